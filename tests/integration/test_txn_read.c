/*
 * Reading transactions through a running broker (issue 29, the partition
 * side): librdkafka's transactional producer commits, aborts and leaves
 * one transaction open on partition 0 of "tx"; then
 *  - Kafka Fetch read_committed answers exactly the records below the
 *    last stable offset, last_stable_offset and the aborted transaction;
 *    read_uncommitted everything with a null list; ListOffsets
 *    isolation 1 the LSO;
 *  - libflume's consumer (native protocol version 3) reads committed by
 *    default and everything with FLUME_READ_UNCOMMITTED, never a marker;
 *  - librdkafka's read_committed consumer gets exactly the committed
 *    records, read_uncommitted all of them;
 *  - the open transaction survives a clean restart, kill -9 of the
 *    writer and kill -9 of the whole broker: the LSO stays at its first
 *    offset; committed afterwards, its records appear.
 *
 * Offsets are exact: one per record, one per marker.  Transaction 1:
 * c0..c9 at 0-9, COMMIT at 10; 2: a0..a9 at 11-20, ABORT at 21; 3:
 * c10..c14 at 22-26, COMMIT at 27; 4 (open): o0..o2 at 28-30.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "clients/flume.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/ctrl.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_fetch.h"
#include "proto/kafka/kmsg_listoff.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define HOST	"127.0.0.1"
#define TOPIC	"tx"
#define LSO	28	/* the open transaction's first offset */
#define HWM	31

static struct flumed d;
static int kport;
static char kbroker[64];
static rd_kafka_t *prod;	/* the transactional producer, kept open */

static int
setup(void)
{
	char extra[256];

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(kbroker, sizeof(kbroker), HOST ":%d", kport);
	snprintf(extra, sizeof(extra), "kafka_listen = %s\n"
	    "[topic " TOPIC "]\npartitions = 1\n", kbroker);
	return flumed_start(&d, extra);
}

static int
teardown(void)
{
	if (prod != NULL)
		rd_kafka_destroy(prod);
	flumed_cleanup(&d);
	return 0;
}

static int
kconnect(void)
{
	return support_connect_from(kport, NULL);
}

/* n records "<tag><first + i>" to partition 0 in the open transaction. */
static void
send_n(const char *tag, int first, int n)
{
	char v[32];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(v, sizeof(v), "%s%d", tag, first + i);
		CU_ASSERT_EQUAL_FATAL(rd_kafka_producev(prod,
		    RD_KAFKA_V_TOPIC(TOPIC), RD_KAFKA_V_PARTITION(0),
		    RD_KAFKA_V_VALUE(v, strlen(v)),
		    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
		    RD_KAFKA_RESP_ERR_NO_ERROR);
	}
}

static void
txn_ok(rd_kafka_error_t *e, const char *what)
{
	if (e != NULL) {
		fprintf(stderr, "%s: %s\n", what, rd_kafka_error_string(e));
		rd_kafka_error_destroy(e);
		CU_FAIL_FATAL("transaction call failed");
	}
}

/* A Fetch v11 of partition 0 from offset with the isolation level. */
static const struct km_fetch_part_resp *
kfetch(int fd, int8_t iso, int64_t offset, struct arena *a)
{
	static struct km_fetch_resp s;
	static uint8_t *raw;	/* the answer's bytes, until the next call */
	struct km_fetch_part fp;
	struct km_fetch_topic ft;
	struct km_fetch_req q;
	const struct km_fetch_topic_resp *tr;

	kdesc_defaults(kmsg_fetch.km_req, &q);
	memset(&fp, 0, sizeof(fp));
	fp.current_leader_epoch = -1;
	fp.last_fetched_epoch = -1;
	fp.log_start_offset = -1;
	fp.fetch_offset = offset;
	fp.partition_max_bytes = 1 << 20;
	memset(&ft, 0, sizeof(ft));
	ft.topic = kstr_c(TOPIC);
	ft.partitions.n = 1;
	ft.partitions.v = &fp;
	q.replica_id = -1;
	q.max_wait_ms = 0;
	q.min_bytes = 0;
	q.max_bytes = 1 << 20;
	q.isolation_level = iso;
	q.topics.n = 1;
	q.topics.v = &ft;
	free(raw);
	CU_ASSERT_EQUAL_FATAL(support_kafka_call(fd, &kmsg_fetch, 11, 7, &q, &s,
	    a, &raw), 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	tr = s.responses.v;
	CU_ASSERT_EQUAL_FATAL(tr->partitions.n, 1);
	return tr->partitions.v;
}

/* ListOffsets v5 latest with the isolation level. */
static int64_t
klatest(int fd, int8_t iso)
{
	struct km_listoff_resp s;
	struct km_listoff_part lp;
	struct km_listoff_topic lt;
	struct km_listoff_req q;
	const struct km_listoff_topic_resp *tr;
	const struct km_listoff_part_resp *pr;
	struct arena a;
	uint8_t *raw;
	int64_t off;

	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_list_offsets.km_req, &q);
	memset(&lp, 0, sizeof(lp));
	lp.current_leader_epoch = -1;
	lp.timestamp = -1;
	lt.name = kstr_c(TOPIC);
	lt.partitions.n = 1;
	lt.partitions.v = &lp;
	q.replica_id = -1;
	q.isolation_level = iso;
	q.topics.n = 1;
	q.topics.v = &lt;
	CU_ASSERT_EQUAL_FATAL(support_kafka_call(fd, &kmsg_list_offsets, 5, 9,
	    &q, &s, &a, &raw), 0);
	tr = s.topics.v;
	pr = tr->partitions.v;
	CU_ASSERT_EQUAL(pr->error_code, KERR_NONE);
	off = pr->offset;
	free(raw);
	arena_free(&a);
	return off;
}

/* The LSO through ListOffsets, on a fresh connection. */
static int64_t
lso_now(void)
{
	int fd = kconnect();
	int64_t off;

	CU_ASSERT_FATAL(fd >= 0);
	off = klatest(fd, 1);
	close(fd);
	return off;
}

/* Poll the LSO every 50 ms up to ms until it is want: 1 when it is. */
static int
await_lso(int64_t want, int ms)
{
	long long end = support_now_ms() + ms;
	int64_t got;

	while ((got = lso_now()) != want && support_now_ms() < end)
		usleep(50 * 1000);
	if (got != want)
		fprintf(stderr, "LSO %lld, want %lld\n", (long long)got,
		    (long long)want);
	return got == want;
}

/* A writer other than old serves again within ms: 1. */
static int
await_writer(pid_t old, int ms)
{
	long long end = support_now_ms() + ms;
	pid_t w;

	while (((w = flumed_child_pid(&d, "writer", -1)) <= 0 || w == old) &&
	    support_now_ms() < end)
		usleep(50 * 1000);
	return w > 0 && w != old;
}

/*
 * The batches of a Fetch answer: "offset:value" of each data record,
 * "offset:M<type>" of each marker, joined by commas; *pid the producer
 * of the data.
 */
static void
records_str(const struct km_fetch_part_resp *pr, char *buf, size_t size,
    int64_t *pid)
{
	const uint8_t *p = (const uint8_t *)pr->records.p;
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	size_t pos = 0, n = 0, len = pr->records.len > 0 ?
	    (size_t)pr->records.len : 0;

	buf[0] = '\0';
	while (pos < len && batch_parse_header(p + pos, len - pos, &h) ==
	    BATCH_OK && batch_total_size(&h) <= len - pos) {
		if (batch_iter_init(&it, p + pos, batch_total_size(&h)) == 0)
			while (batch_iter_next(&it, &r) == 1) {
				if (h.attributes & BATCH_ATTR_CONTROL)
					n += (size_t)snprintf(buf + n, size - n,
					    "%s%lld:M%d", n ? "," : "",
					    (long long)r.offset,
					    r.key_len == 4 ? ((const uint8_t *)
					    r.key)[3] : -1);
				else {
					n += (size_t)snprintf(buf + n, size - n,
					    "%s%lld:%.*s", n ? "," : "",
					    (long long)r.offset, (int)r.value_len,
					    (const char *)r.value);
					*pid = h.producer_id;
				}
			}
		pos += batch_total_size(&h);
	}
}

static const char *const committed_str =
    "0:c0,1:c1,2:c2,3:c3,4:c4,5:c5,6:c6,7:c7,8:c8,9:c9,10:M1,"
    "11:a0,12:a1,13:a2,14:a3,15:a4,16:a5,17:a6,18:a7,19:a8,20:a9,21:M0,"
    "22:c10,23:c11,24:c12,25:c13,26:c14,27:M1";

static void
test_produce(void)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char err[256];

	CU_ASSERT_EQUAL_FATAL(rd_kafka_conf_set(conf, "bootstrap.servers",
	    kbroker, err, sizeof(err)), RD_KAFKA_CONF_OK);
	CU_ASSERT_EQUAL_FATAL(rd_kafka_conf_set(conf, "transactional.id",
	    "txread-1", err, sizeof(err)), RD_KAFKA_CONF_OK);
	CU_ASSERT_EQUAL_FATAL(rd_kafka_conf_set(conf, "linger.ms", "5", err,
	    sizeof(err)), RD_KAFKA_CONF_OK);
	prod = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(prod);
	txn_ok(rd_kafka_init_transactions(prod, 30000), "init");
	txn_ok(rd_kafka_begin_transaction(prod), "begin 1");
	send_n("c", 0, 10);
	txn_ok(rd_kafka_commit_transaction(prod, 30000), "commit 1");
	txn_ok(rd_kafka_begin_transaction(prod), "begin 2");
	send_n("a", 0, 10);
	CU_ASSERT_EQUAL(rd_kafka_flush(prod, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
	txn_ok(rd_kafka_abort_transaction(prod, 30000), "abort 2");
	txn_ok(rd_kafka_begin_transaction(prod), "begin 3");
	send_n("c", 10, 5);
	txn_ok(rd_kafka_commit_transaction(prod, 30000), "commit 3");
	txn_ok(rd_kafka_begin_transaction(prod), "begin 4");
	send_n("o", 0, 3);
	CU_ASSERT_EQUAL(rd_kafka_flush(prod, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
}

static void
test_kafka_fetch(void)
{
	const struct km_fetch_part_resp *pr;
	const struct km_aborted_txn *at;
	struct arena a;
	char got[2048];
	int64_t pid = -1, pid2 = -1;
	int fd = kconnect();

	CU_ASSERT_FATAL(fd >= 0);
	arena_init(&a, 8 << 20);
	/* The LSO shows once the last batch is written: bounded poll. */
	CU_ASSERT(await_lso(LSO, 5000));
	pr = kfetch(fd, 1, 0, &a);
	CU_ASSERT_EQUAL(pr->error_code, KERR_NONE);
	CU_ASSERT_EQUAL(pr->high_watermark, HWM);
	CU_ASSERT_EQUAL(pr->last_stable_offset, LSO);
	records_str(pr, got, sizeof(got), &pid);
	CU_ASSERT_STRING_EQUAL(got, committed_str);
	CU_ASSERT_EQUAL_FATAL(pr->aborted_transactions.n, 1);
	at = pr->aborted_transactions.v;
	CU_ASSERT_EQUAL(at->producer_id, pid);
	CU_ASSERT_EQUAL(at->first_offset, 11);
	/* From inside the committed tail: nothing aborted there. */
	pr = kfetch(fd, 1, 22, &a);
	CU_ASSERT_EQUAL(pr->aborted_transactions.n, 0);
	records_str(pr, got, sizeof(got), &pid2);
	CU_ASSERT_STRING_EQUAL(got, "22:c10,23:c11,24:c12,25:c13,26:c14,27:M1");
	/* At the LSO: nothing yet. */
	pr = kfetch(fd, 1, LSO, &a);
	CU_ASSERT_EQUAL(pr->records.len, 0);
	/* read_uncommitted: all of it, a null list, the same LSO. */
	pr = kfetch(fd, 0, 0, &a);
	CU_ASSERT_EQUAL(pr->last_stable_offset, LSO);
	CU_ASSERT_EQUAL(pr->aborted_transactions.n, -1);
	records_str(pr, got, sizeof(got), &pid2);
	CU_ASSERT(strncmp(got, committed_str, strlen(committed_str)) == 0);
	CU_ASSERT_STRING_EQUAL(got + strlen(committed_str), ",28:o0,29:o1,30:o2");
	CU_ASSERT_EQUAL(klatest(fd, 1), LSO);
	CU_ASSERT_EQUAL(klatest(fd, 0), HWM);
	arena_free(&a);
	close(fd);
}

/* libflume's consumer from the beginning to its end: "offset:value,...". */
static void
native_read(int isolation, char *buf, size_t size)
{
	struct flume_client *c;
	struct flume_consumer *k;
	struct flume_message m;
	size_t n = 0;
	int i, rc;

	buf[0] = '\0';
	c = flume_connect(d.broker);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	k = flume_consumer_new(c, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	if (isolation >= 0)
		CU_ASSERT_EQUAL(flume_consumer_set_isolation(k, isolation), 0);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, TOPIC, 0,
	    FLUME_OFFSET_BEGINNING), 0);
	for (i = 0; i < 50 && (i == 0 || !flume_consumer_at_end(k)); i++) {
		rc = flume_consumer_poll(k, &m, 500);
		CU_ASSERT_NOT_EQUAL_FATAL(rc, -1);
		if (rc == 1)
			n += (size_t)snprintf(buf + n, size - n, "%s%lld:%.*s",
			    n ? "," : "", (long long)m.offset, (int)m.value_len,
			    (const char *)m.value);
	}
	CU_ASSERT(flume_consumer_at_end(k));
	flume_consumer_free(k);
	flume_close(c);
}

static const char *const native_committed =
    "0:c0,1:c1,2:c2,3:c3,4:c4,5:c5,6:c6,7:c7,8:c8,9:c9,"
    "22:c10,23:c11,24:c12,25:c13,26:c14";

/* Where a native consumer subscribed at the end starts. */
static int64_t
native_end(int isolation)
{
	struct flume_client *c = flume_connect(d.broker);
	struct flume_consumer *k;
	int64_t pos;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	k = flume_consumer_new(c, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	if (isolation >= 0)
		CU_ASSERT_EQUAL(flume_consumer_set_isolation(k, isolation), 0);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, TOPIC, 0,
	    FLUME_OFFSET_END), 0);
	pos = flume_consumer_position(k, TOPIC, 0);
	flume_consumer_free(k);
	flume_close(c);
	return pos;
}

static void
test_native(void)
{
	char got[2048];

	CU_ASSERT_EQUAL(native_end(-1), LSO);
	CU_ASSERT_EQUAL(native_end(FLUME_READ_UNCOMMITTED), HWM);

	native_read(-1, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, native_committed);
	native_read(FLUME_READ_UNCOMMITTED, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got,
	    "0:c0,1:c1,2:c2,3:c3,4:c4,5:c5,6:c6,7:c7,8:c8,9:c9,"
	    "11:a0,12:a1,13:a2,14:a3,15:a4,16:a5,17:a6,18:a7,19:a8,20:a9,"
	    "22:c10,23:c11,24:c12,25:c13,26:c14,28:o0,29:o1,30:o2");
}

/* librdkafka's consumer with isolation.level; "offset:value,..." for want records. */
static int
rdk_read(const char *iso, int want, char *buf, size_t size)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	rd_kafka_topic_partition_list_t *tl;
	rd_kafka_message_t *m;
	rd_kafka_t *rk;
	char err[256];
	size_t n = 0;
	int got = 0, idle = 0;

	buf[0] = '\0';
	if (rd_kafka_conf_set(conf, "bootstrap.servers", kbroker, err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "group.id", "txread", err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "isolation.level", iso, err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    (rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err,
	    sizeof(err))) == NULL)
		return -1;
	tl = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(tl, TOPIC, 0)->offset =
	    RD_KAFKA_OFFSET_BEGINNING;
	rd_kafka_assign(rk, tl);
	rd_kafka_topic_partition_list_destroy(tl);
	/* Past want, a while more: nothing else may come. */
	while (idle < (got < want ? 100 : 10)) {
		if ((m = rd_kafka_consumer_poll(rk, 100)) == NULL) {
			idle++;
			continue;
		}
		if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
			n += (size_t)snprintf(buf + n, size - n, "%s%lld:%.*s",
			    n ? "," : "", (long long)m->offset, (int)m->len,
			    (const char *)m->payload);
			got++;
			idle = 0;
		}
		rd_kafka_message_destroy(m);
	}
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	return got;
}

static void
test_rdkafka_consumers(void)
{
	char got[4096];

	CU_ASSERT_EQUAL(rdk_read("read_committed", 15, got, sizeof(got)), 15);
	CU_ASSERT_STRING_EQUAL(got, native_committed);
	CU_ASSERT_EQUAL(rdk_read("read_uncommitted", 28, got, sizeof(got)), 28);
}

/* The open transaction survives restarts and kills; then it commits. */
static void
test_survives(void)
{
	char got[2048];
	pid_t w;

	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(lso_now(), LSO);
	w = flumed_child_pid(&d, "writer", -1);
	CU_ASSERT_FATAL(w > 0);
	kill(w, SIGKILL);
	CU_ASSERT(support_pid_state(w, "ZX", 5000));
	CU_ASSERT(await_writer(w, 10000));
	CU_ASSERT_EQUAL(lso_now(), LSO);
	flumed_kill(&d);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(lso_now(), LSO);
	native_read(-1, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, native_committed);
	/* Its producer commits it: the LSO moves past its marker. */
	txn_ok(rd_kafka_commit_transaction(prod, 60000), "commit 4");
	CU_ASSERT(await_lso(HWM + 1, 10000));
	native_read(-1, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "0:c0,1:c1,2:c2,3:c3,4:c4,5:c5,6:c6,7:c7,"
	    "8:c8,9:c9,22:c10,23:c11,24:c12,25:c13,26:c14,28:o0,29:o1,30:o2");
}

TEST_SUITE("txn_read", setup, teardown,
    { "transactional producer", test_produce },
    { "Kafka Fetch and ListOffsets read_committed", test_kafka_fetch },
    { "libflume consumer", test_native },
    { "librdkafka consumers", test_rdkafka_consumers },
    { "an open transaction survives restarts and kills", test_survives });
