/*
 * flume_produce_ref through the real daemon: values handed over without a
 * copy come back byte for byte at the offsets their deliveries reported,
 * around the copy threshold and at 1 MiB, also when the connection is
 * lost under the producer and its batches are sent again; a value is not
 * read once its delivery was reported (the test overwrites it then); and
 * the documented copies (short values, a compressing producer) are
 * copies, while a referenced value changed too early is refused whole;
 * over TLS and with acks=0 (requests encoded from a copy) the same.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/msg.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define MIB		(1024 * 1024)
#define MAXMSG		512
#define WAIT_MS		30000

static struct flumed d;
static char *certs;
static char ca[600], tbroker[64];

/* What the deliveries said, by sequence number. */
struct got {
	int		 n;			/* reports so far */
	int		 times[MAXMSG];		/* reports per seq */
	int64_t		 offset[MAXMSG];
	int		 error[MAXMSG];
	uint8_t		*buf[MAXMSG];		/* overwritten when reported */
	int32_t		 len[MAXMSG];
};

static int
setup(void)
{
	const char *argv[] = { "sh", "scripts/make-test-certs", NULL, NULL };
	char extra[2048];
	int tport;

	if ((certs = test_mkdtemp("zcopycerts")) == NULL)
		return -1;
	argv[2] = certs;
	if (support_run_cmd("/bin/sh", argv, NULL, NULL, NULL, 30000) != 0 ||
	    (tport = support_free_port()) <= 0)
		return -1;
	snprintf(ca, sizeof(ca), "%s/ca.pem", certs);
	snprintf(tbroker, sizeof(tbroker), "127.0.0.1:%d", tport);
	snprintf(extra, sizeof(extra), "max_message_bytes = 4M\n"
	    "listen_tls = %s\ntls_cert_file = %s/server.pem\n"
	    "tls_key_file = %s/server.key\n", tbroker, certs, certs);
	return flumed_start(&d, extra) == 0 ? 0 : -1;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	if (certs != NULL) {
		test_rmtree(certs);
		free(certs);
	}
	return 0;
}

/*
 * The delivery report: record it, then scribble over the value, which the
 * library must not read any more (a resend would carry the scribbles).
 */
static void
on_delivery(const struct flume_delivery *dl, void *arg)
{
	struct got *g = arg;

	g->n++;
	if (dl->seq >= MAXMSG)
		return;
	g->times[dl->seq]++;
	g->offset[dl->seq] = dl->offset;
	g->error[dl->seq] = dl->error;
	if (g->buf[dl->seq] != NULL && g->len[dl->seq] > 0)
		memset(g->buf[dl->seq], 0xEE, (size_t)g->len[dl->seq]);
}

/* Value i's bytes: a pattern of its number and position. */
static void
fill(uint8_t *p, int32_t len, int i)
{
	int32_t k;

	for (k = 0; k < len; k++)
		p[k] = (uint8_t)(i * 131 + k * 7 + (k >> 8));
}

static int
same(const uint8_t *p, int32_t len, int i)
{
	int32_t k;

	for (k = 0; k < len; k++)
		if (p[k] != (uint8_t)(i * 131 + k * 7 + (k >> 8)))
			return 0;
	return 1;
}

static struct flume_producer *
producer_acks(struct flume_client *c, struct got *g, int linger_ms, int codec,
    int acks)
{
	struct flume_producer_conf pc;

	flume_producer_conf_init(&pc);
	pc.acks = acks;
	pc.on_delivery = on_delivery;
	pc.on_delivery_arg = g;
	pc.linger_ms = linger_ms;
	pc.batch_bytes = 2 * MIB;
	pc.max_request_bytes = 3 * MIB;
	pc.compression = codec;
	return flume_producer_new(c, &pc);
}

static struct flume_producer *
producer(struct flume_client *c, struct got *g, int linger_ms, int codec)
{
	return producer_acks(c, g, linger_ms, codec, 1);
}

/*
 * Read topic's partition 0 from the beginning: exactly n messages, message
 * i at offset i with value i's pattern of lens[i] bytes (-1: null).
 */
static void
check_topic(const char *topic, int n, const int32_t *lens)
{
	struct flume_consumer_conf cc;
	struct flume_consumer *k;
	struct flume_client *c;
	struct flume_message m;
	long long deadline = support_now_ms() + WAIT_MS;
	int i = 0, rc, bad = 0;

	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
	flume_consumer_conf_init(&cc);
	cc.max_bytes = 4 * MIB;
	CU_ASSERT_FATAL((k = flume_consumer_new(c, &cc)) != NULL);
	CU_ASSERT_FATAL(flume_consumer_subscribe(k, topic, 0,
	    FLUME_OFFSET_BEGINNING) == 0);
	while (i < n && support_now_ms() < deadline) {
		if ((rc = flume_consumer_poll(k, &m, 500)) == -1)
			break;
		if (rc == 0)
			continue;
		if (m.offset != i || m.value_len != lens[i] ||
		    (lens[i] > 0 && !same(m.value, m.value_len, i)) ||
		    (lens[i] == -1 && m.value != NULL))
			bad++;
		i++;
	}
	CU_ASSERT_EQUAL(i, n);
	CU_ASSERT_EQUAL(bad, 0);
	/* Nothing after them. */
	CU_ASSERT_EQUAL(flume_consumer_poll(k, &m, 300), 0);
	CU_ASSERT(flume_consumer_at_end(k));
	flume_consumer_free(k);
	flume_close(c);
}

/*
 * Every size around the copy threshold, empty, null and 1 MiB, each
 * message with its own buffer: delivered once each at offset = seq, and
 * read back exactly, although every buffer was overwritten on delivery.
 */
static void
test_sizes(void)
{
	static const int32_t sizes[] = { 0, -1, 1, 100, 511, 512, 513, 1000,
	    4096, 10240, 65536, MIB, 511, MIB, 512, 3 };
	const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
	static struct got g;
	int32_t lens[MAXMSG];
	struct flume_producer *p;
	struct flume_client *c;
	uint64_t seq;
	int i, n = 3 * nsizes, bad = 0;

	memset(&g, 0, sizeof(g));
	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
	CU_ASSERT_FATAL((p = producer(c, &g, 5, FLUME_COMPRESSION_NONE)) != NULL);
	for (i = 0; i < n; i++) {
		lens[i] = sizes[i % nsizes];
		g.len[i] = lens[i];
		if (lens[i] >= 0) {
			CU_ASSERT_FATAL((g.buf[i] = malloc((size_t)lens[i] + 1)) != NULL);
			fill(g.buf[i], lens[i], i);
		}
		CU_ASSERT_EQUAL_FATAL(flume_produce_ref(p, "zsizes", 0, "k", 1,
		    g.buf[i], lens[i], &seq), 0);
		CU_ASSERT_EQUAL(seq, (uint64_t)i);
	}
	CU_ASSERT_EQUAL(flume_producer_flush(p, WAIT_MS), 0);
	CU_ASSERT_EQUAL(g.n, n);
	for (i = 0; i < n; i++)
		if (g.times[i] != 1 || g.error[i] != 0 || g.offset[i] != i)
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	flume_producer_free(p);
	flume_close(c);
	check_topic("zsizes", n, lens);
	for (i = 0; i < n; i++)
		free(g.buf[i]);
}

/*
 * The connection lost under the producer (both workers killed while
 * batches are in flight): the producer reconnects and sends its batches
 * again from the same referenced values; every message is stored once,
 * in order, byte for byte.
 */
static void
test_reconnect(void)
{
	static struct got g;
	int32_t lens[MAXMSG];
	struct flume_producer *p;
	struct flume_client *c;
	pid_t w0, w1;
	int i, n = 300, bad = 0, killed = 0;

	memset(&g, 0, sizeof(g));
	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
	CU_ASSERT_FATAL((p = producer(c, &g, 1, FLUME_COMPRESSION_NONE)) != NULL);
	CU_ASSERT(flume_producer_id(p) >= 0);
	w0 = flumed_child_pid(&d, "worker", 0);
	w1 = flumed_child_pid(&d, "worker", 1);
	CU_ASSERT_FATAL(w0 > 0 && w1 > 0);
	for (i = 0; i < n; i++) {
		lens[i] = i % 3 == 0 ? 600 : 40000 + i;
		g.len[i] = lens[i];
		CU_ASSERT_FATAL((g.buf[i] = malloc((size_t)lens[i])) != NULL);
		fill(g.buf[i], lens[i], i);
		CU_ASSERT_EQUAL_FATAL(flume_produce_ref(p, "zreconn", 0, NULL,
		    -1, g.buf[i], lens[i], NULL), 0);
		/* Halfway, with requests in flight: both workers go. */
		if (i == n / 2 && flume_producer_pending(p) > 0) {
			CU_ASSERT_EQUAL(kill(w0, SIGKILL), 0);
			CU_ASSERT_EQUAL(kill(w1, SIGKILL), 0);
			killed = 1;
		}
	}
	CU_ASSERT_FATAL(killed);
	CU_ASSERT_EQUAL(flume_producer_flush(p, WAIT_MS), 0);
	CU_ASSERT(flume_client_reconnects(c) >= 1);
	CU_ASSERT_EQUAL(g.n, n);
	/* Offsets as stored; -1 only for a resend found already stored. */
	for (i = 0; i < n; i++)
		if (g.times[i] != 1 || g.error[i] != 0 ||
		    (g.offset[i] != i && g.offset[i] != -1))
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	flume_producer_free(p);
	flume_close(c);
	check_topic("zreconn", n, lens);
	for (i = 0; i < n; i++)
		free(g.buf[i]);
}

/*
 * The copies flume.h documents: a value shorter than FLUME_PRODUCE_REF_MIN
 * and any value of a compressing producer may be changed right after the
 * call; a referenced one changed before it was sent fails its CRC at the
 * broker (CORRUPT_MESSAGE) and nothing of that batch is stored.
 */
static void
test_copy_threshold(void)
{
	static struct got g;
	int32_t lens[2];
	struct flume_producer *p;
	struct flume_client *c;
	uint8_t *v;

	CU_ASSERT_FATAL((v = malloc(4096)) != NULL);
	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);

	/* Below the threshold: copied, the change does not matter. */
	memset(&g, 0, sizeof(g));
	CU_ASSERT_FATAL((p = producer(c, &g, 60000, FLUME_COMPRESSION_NONE)) != NULL);
	fill(v, FLUME_PRODUCE_REF_MIN - 1, 0);
	CU_ASSERT_EQUAL_FATAL(flume_produce_ref(p, "zthresh", 0, NULL, -1, v,
	    FLUME_PRODUCE_REF_MIN - 1, NULL), 0);
	memset(v, 0, 4096);
	CU_ASSERT_EQUAL(flume_producer_flush(p, WAIT_MS), 0);
	CU_ASSERT_EQUAL(g.n, 1);
	CU_ASSERT_EQUAL(g.error[0], 0);
	CU_ASSERT_EQUAL(g.offset[0], 0);

	/* At the threshold: referenced, so the change is seen and refused. */
	memset(&g, 0, sizeof(g));
	fill(v, FLUME_PRODUCE_REF_MIN, 1);
	CU_ASSERT_EQUAL_FATAL(flume_produce_ref(p, "zthresh", 0, NULL, -1, v,
	    FLUME_PRODUCE_REF_MIN, NULL), 0);
	v[FLUME_PRODUCE_REF_MIN / 2] ^= 0xFF;
	CU_ASSERT_EQUAL(flume_producer_flush(p, WAIT_MS), -1);
	CU_ASSERT_EQUAL(g.n, 1);
	CU_ASSERT_EQUAL(g.error[1], ERR_CORRUPT_MESSAGE);
	CU_ASSERT_EQUAL(g.offset[1], -1);
	flume_producer_free(p);

	/* A compressing producer copies whatever the size. */
	memset(&g, 0, sizeof(g));
	CU_ASSERT_FATAL((p = producer(c, &g, 60000, FLUME_COMPRESSION_LZ4)) != NULL);
	fill(v, 4096, 1);
	CU_ASSERT_EQUAL_FATAL(flume_produce_ref(p, "zthresh", 0, NULL, -1, v,
	    4096, NULL), 0);
	memset(v, 0, 4096);
	CU_ASSERT_EQUAL(flume_producer_flush(p, WAIT_MS), 0);
	CU_ASSERT_EQUAL(g.n, 1);
	CU_ASSERT_EQUAL(g.error[0], 0);
	CU_ASSERT_EQUAL(g.offset[0], 1);
	flume_producer_free(p);
	flume_close(c);
	free(v);

	lens[0] = FLUME_PRODUCE_REF_MIN - 1;
	lens[1] = 4096;
	check_topic("zthresh", 2, lens);
}

/*
 * Referenced values over a connection whose requests hold a copy: TLS
 * (acks=1) and plaintext acks=0, whose deliveries are reported as soon
 * as the request is encoded, so the overwriting on delivery comes before
 * the bytes are written to the socket.  Read back exactly.
 */
static void
test_copied_requests(void)
{
	static struct got g;
	struct flume_tls_conf tls;
	int32_t lens[MAXMSG];
	struct flume_producer *p;
	struct flume_client *c;
	const char *topic;
	int i, k, n = 40, bad;

	for (k = 0; k < 2; k++) {
		memset(&g, 0, sizeof(g));
		if (k == 0) {
			flume_tls_conf_init(&tls);
			tls.ca_file = ca;
			c = flume_connect_tls(tbroker, NULL, &tls);
			CU_ASSERT_FATAL(c != NULL);
			CU_ASSERT(flume_client_tls_version(c) != NULL);
			topic = "ztls";
		} else {
			CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
			topic = "zacks0";
		}
		p = producer_acks(c, &g, 1, FLUME_COMPRESSION_NONE, k == 0 ? 1 : 0);
		CU_ASSERT_FATAL(p != NULL);
		for (i = 0; i < n; i++) {
			lens[i] = i % 2 ? 700 + i : 70000 + i;
			g.len[i] = lens[i];
			CU_ASSERT_FATAL((g.buf[i] = malloc((size_t)lens[i])) != NULL);
			fill(g.buf[i], lens[i], i);
			CU_ASSERT_EQUAL_FATAL(flume_produce_ref(p, topic, 0, NULL,
			    -1, g.buf[i], lens[i], NULL), 0);
		}
		CU_ASSERT_EQUAL(flume_producer_flush(p, WAIT_MS), 0);
		CU_ASSERT_EQUAL(g.n, n);
		for (i = 0, bad = 0; i < n; i++)
			if (g.times[i] != 1 || g.error[i] != 0 ||
			    g.offset[i] != (k == 0 ? i : -1))
				bad++;
		CU_ASSERT_EQUAL(bad, 0);
		flume_producer_free(p);
		flume_close(c);
		check_topic(topic, n, lens);
		for (i = 0; i < n; i++)
			free(g.buf[i]);
	}
}

TEST_SUITE("zcopy", setup, teardown,
    { "referenced values of every size, read back exactly", test_sizes },
    { "referenced values resent after a lost connection", test_reconnect },
    { "the copy threshold and the copying paths", test_copy_threshold },
    { "referenced values over TLS and with acks=0", test_copied_requests });
