/*
 * libflume without a broker: the FNV-1a partitioner's exact values, the
 * tools' helpers (format rendering, -K splitting, argument parsing,
 * uptime), and the client against a small fake broker thread on a
 * loopback port: handshake and admin calls, pipelined PRODUCE with
 * request-id matching, resending after a dropped connection, and the
 * consumer's offsets, end detection, mid-batch skipping and CRC check,
 * and transactions: markers never handed out, read_committed skipping
 * aborted transactions by the broker's list, read_uncommitted, and a
 * broker of protocol version 2.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "clients/flume_tool.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/ctrl.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"

/* ---- partitioner ---- */

static void
test_fnv1a(void)
{
	CU_ASSERT_EQUAL(flume_fnv1a32("", 0), 0x811c9dc5u);
	CU_ASSERT_EQUAL(flume_fnv1a32("a", 1), 0xe40c292cu);
	CU_ASSERT_EQUAL(flume_fnv1a32("foobar", 6), 0xbf9cf968u);
	CU_ASSERT_EQUAL(flume_fnv1a32("user-1", 6), 0xf5537974u);
	CU_ASSERT_EQUAL(flume_fnv1a32("order-42", 8), 0x572446f4u);
}

static void
test_partition_for_key(void)
{
	CU_ASSERT_EQUAL(flume_partition_for_key("", 0, 3), 1);
	CU_ASSERT_EQUAL(flume_partition_for_key("a", 1, 8), 4);
	CU_ASSERT_EQUAL(flume_partition_for_key("foobar", 6, 7), 0);
	CU_ASSERT_EQUAL(flume_partition_for_key("user-2", 6, 8), 5);
	CU_ASSERT_EQUAL(flume_partition_for_key("order-42", 8, 3), 2);
	CU_ASSERT_EQUAL(flume_partition_for_key("key", 3, 1), 0);
	CU_ASSERT_EQUAL(flume_partition_for_key("key", 3, 0), -1);
}

/* ---- tool helpers ---- */

static void
render(const char *fmt, const struct flume_message *m, const char *want)
{
	struct flume_tool_buf b = { NULL, 0, 0 };
	char err[128];

	CU_ASSERT_EQUAL_FATAL(flume_tool_format_check(fmt, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(flume_tool_format(&b, fmt, m), 0);
	CU_ASSERT_EQUAL(b.len, strlen(want));
	if (b.len == strlen(want) && b.len > 0)
		CU_ASSERT_EQUAL(memcmp(b.p, want, b.len), 0);
	flume_tool_buf_free(&b);
}

static void
test_format(void)
{
	struct flume_message m = { "orders", 2, 1234, 1700000000123LL,
	    "k1", 2, "hello", 5 };
	struct flume_message nk = { "t", 0, 0, 5, NULL, -1, NULL, -1 };
	char err[128];

	render("%v\n", &m, "hello\n");
	render("%t/%p@%o %k=%v %T\\n", &m,
	    "orders/2@1234 k1=hello 1700000000123\n");
	render("\\t%%v\\\\%v", &m, "\t%v\\hello");
	render("[%k][%v]", &nk, "[][]");
	render("no newline", &m, "no newline");
	render("\\q", &m, "\\q");
	render("", &m, "");
	CU_ASSERT_EQUAL(flume_tool_format_check("%x", err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "%x"));
	CU_ASSERT_EQUAL(flume_tool_format_check("100%", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(flume_tool_format_check("%%%v", err, sizeof(err)), 0);
}

static void
test_split_key(void)
{
	const char *k, *v;
	int32_t kl, vl;
	const char *line = "user:a:b";

	CU_ASSERT_EQUAL(flume_tool_split_key(line, strlen(line), ":", &k, &kl,
	    &v, &vl), 1);
	CU_ASSERT_EQUAL(kl, 4);
	CU_ASSERT_EQUAL(memcmp(k, "user", 4), 0);
	CU_ASSERT_EQUAL(vl, 3);
	CU_ASSERT_EQUAL(memcmp(v, "a:b", 3), 0);

	CU_ASSERT_EQUAL(flume_tool_split_key("plain", 5, ":", &k, &kl, &v, &vl), 0);
	CU_ASSERT_PTR_NULL(k);
	CU_ASSERT_EQUAL(kl, -1);
	CU_ASSERT_EQUAL(vl, 5);
	CU_ASSERT_PTR_EQUAL(v, (const void *)v);

	CU_ASSERT_EQUAL(flume_tool_split_key(":v", 2, ":", &k, &kl, &v, &vl), 1);
	CU_ASSERT_EQUAL(kl, 0);
	CU_ASSERT_EQUAL(vl, 1);
	CU_ASSERT_EQUAL(flume_tool_split_key("k:", 2, ":", &k, &kl, &v, &vl), 1);
	CU_ASSERT_EQUAL(kl, 1);
	CU_ASSERT_EQUAL(vl, 0);
	/* Multi-byte delimiter; only the bytes given count (no NUL search). */
	CU_ASSERT_EQUAL(flume_tool_split_key("a=>b=>c", 7, "=>", &k, &kl, &v,
	    &vl), 1);
	CU_ASSERT_EQUAL(kl, 1);
	CU_ASSERT_EQUAL(vl, 4);
	CU_ASSERT_EQUAL(memcmp(v, "b=>c", 4), 0);
	CU_ASSERT_EQUAL(flume_tool_split_key("ab:", 2, ":", &k, &kl, &v, &vl), 0);
}

static void
test_parse(void)
{
	int acks = 9;
	int64_t off = 0;
	long long v = 0;

	CU_ASSERT_EQUAL(flume_tool_parse_acks("0", &acks), 0);
	CU_ASSERT_EQUAL(acks, 0);
	CU_ASSERT_EQUAL(flume_tool_parse_acks("1", &acks), 0);
	CU_ASSERT_EQUAL(acks, 1);
	CU_ASSERT_EQUAL(flume_tool_parse_acks("all", &acks), 0);
	CU_ASSERT_EQUAL(acks, -1);
	CU_ASSERT_EQUAL(flume_tool_parse_acks("2", &acks), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_acks("", &acks), -1);

	CU_ASSERT_EQUAL(flume_tool_parse_offset("beginning", &off), 0);
	CU_ASSERT_EQUAL(off, FLUME_OFFSET_BEGINNING);
	CU_ASSERT_EQUAL(flume_tool_parse_offset("end", &off), 0);
	CU_ASSERT_EQUAL(off, FLUME_OFFSET_END);
	CU_ASSERT_EQUAL(flume_tool_parse_offset("42", &off), 0);
	CU_ASSERT_EQUAL(off, 42);
	CU_ASSERT_EQUAL(flume_tool_parse_offset("-3", &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_offset("4x", &off), -1);

	/* -o @T and -o -age (flume-consume). */
	CU_ASSERT_EQUAL(flume_tool_parse_time("@1700000000000", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 1700000000000LL);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@2023-11-14T22:13:20Z", 0,
	    &off), 0);
	CU_ASSERT_EQUAL(off, 1700000000000LL);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@2023-11-14T22:13:20.5Z", 0,
	    &off), 0);
	CU_ASSERT_EQUAL(off, 1700000000500LL);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@2023-11-14T23:43:20.123456+01:30",
	    0, &off), 0);
	CU_ASSERT_EQUAL(off, 1700000000123LL);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@2023-11-14T17:13-0500", 0,
	    &off), 0);
	CU_ASSERT_EQUAL(off, 1700000000000LL - 20000);
	CU_ASSERT_EQUAL(flume_tool_parse_time("-1h", 1700000000000LL, &off), 0);
	CU_ASSERT_EQUAL(off, 1700000000000LL - 3600000);
	CU_ASSERT_EQUAL(flume_tool_parse_time("-30m", 1700000000000LL, &off), 0);
	CU_ASSERT_EQUAL(off, 1700000000000LL - 1800000);
	CU_ASSERT_EQUAL(flume_tool_parse_time("-2d", 1700000000000LL, &off), 0);
	CU_ASSERT_EQUAL(off, 1700000000000LL - 172800000);
	CU_ASSERT_EQUAL(flume_tool_parse_time("-15s", 1000000, &off), 0);
	CU_ASSERT_EQUAL(off, 1000000 - 15000);
	CU_ASSERT_EQUAL(flume_tool_parse_time("-250ms", 1000, &off), 0);
	CU_ASSERT_EQUAL(off, 750);
	CU_ASSERT_EQUAL(flume_tool_parse_time("-2d", 1000, &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("-1w", 1000, &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("-h", 1000, &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@", 0, &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@-5", 0, &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@12x", 0, &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@2026-12-01T14:00:00", 0,
	    &off), -1);		/* no zone */
	CU_ASSERT_EQUAL(flume_tool_parse_time("@2026-02-30T14:00:00Z", 0,
	    &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@2026-12-01T24:00:00Z", 0,
	    &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("@2026-12-01T14:00:00Zjunk", 0,
	    &off), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_time("1700000000000", 0, &off), -1);

	CU_ASSERT_EQUAL(flume_tool_parse_long("7", 0, 10, &v), 0);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(flume_tool_parse_long("11", 0, 10, &v), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_long("", 0, 10, &v), -1);
	CU_ASSERT_EQUAL(flume_tool_parse_long("99999999999999999999", 0,
	    INT64_MAX, &v), -1);

	unsetenv("FLUME_BROKER");
	CU_ASSERT_STRING_EQUAL(flume_tool_broker(NULL), "127.0.0.1:9192");
	setenv("FLUME_BROKER", "[::1]:7000", 1);
	CU_ASSERT_STRING_EQUAL(flume_tool_broker(NULL), "[::1]:7000");
	CU_ASSERT_STRING_EQUAL(flume_tool_broker("h:1"), "h:1");
	unsetenv("FLUME_BROKER");
}

static void
test_uptime(void)
{
	char b[32];

	flume_tool_uptime(b, sizeof(b), 42999);
	CU_ASSERT_STRING_EQUAL(b, "42s");
	flume_tool_uptime(b, sizeof(b), 303000);
	CU_ASSERT_STRING_EQUAL(b, "5m03s");
	flume_tool_uptime(b, sizeof(b), 3723000);
	CU_ASSERT_STRING_EQUAL(b, "1h02m03s");
	flume_tool_uptime(b, sizeof(b), (2 * 86400 + 3 * 3600 + 4 * 60 + 5) * 1000LL);
	CU_ASSERT_STRING_EQUAL(b, "2d03h04m05s");
	flume_tool_uptime(b, sizeof(b), -5);
	CU_ASSERT_STRING_EQUAL(b, "0s");
}

/* ---- a fake broker on a loopback port ---- */

#define FAKE_TOPICS	4
#define FAKE_PARTS	3

struct fake_part {
	struct wbuf	 log;		/* batches, baseOffset patched */
	int64_t		 next;
};

struct fake_topic {
	char		 name[32];
	int32_t		 nparts;
	struct fake_part parts[FAKE_PARTS];
};

struct fake {
	int		 lfd;
	int		 stopfd[2];
	uint16_t	 port;
	pthread_t	 thread;
	struct fake_topic topics[FAKE_TOPICS];
	int		 ntopics;
	/* Knobs, set before the client connects. */
	int		 hold;		/* answer PRODUCE in groups of hold */
	int		 drop_at;	/* close instead of the Nth PRODUCE (1-based) */
	int		 drop_fetch_at;	/* close instead of the Nth FETCH */
	int		 drop_api;	/* close instead of the ... */
	int		 drop_api_at;	/* ... Nth request of this api */
	int16_t		 version;	/* protocol version it speaks; 0: ours */
	int64_t		 lso;		/* partition 0's last stable offset; -1 hw */
	struct fetch_aborted aborted[4];	/* partition 0's, read_committed */
	int32_t		 naborted;
	int		 isolation;	/* of the last FETCH; -1 version 2's */
	/* Observations. */
	int		 api_seen;	/* requests of drop_api seen */
	int		 produces;	/* PRODUCE requests seen */
	int		 fetches;	/* FETCH requests seen */
	int		 accepts;
	int		 max_held;
	int		 bad_crc;	/* batches that failed batch_validate */
};

static struct fake_topic *
fake_topic(struct fake *f, const char *name, size_t len)
{
	int i;

	for (i = 0; i < f->ntopics; i++)
		if (strlen(f->topics[i].name) == len &&
		    memcmp(f->topics[i].name, name, len) == 0)
			return &f->topics[i];
	return NULL;
}

static struct fake_topic *
fake_add_topic(struct fake *f, const char *name, size_t len, int32_t nparts)
{
	struct fake_topic *t;
	int32_t i;

	if (f->ntopics == FAKE_TOPICS || len >= sizeof(t->name) ||
	    nparts > FAKE_PARTS)
		return NULL;
	t = &f->topics[f->ntopics++];
	memcpy(t->name, name, len);
	t->name[len] = '\0';
	t->nparts = nparts;
	for (i = 0; i < nparts; i++) {
		wbuf_init(&t->parts[i].log);
		t->parts[i].next = 0;
	}
	return t;
}

static void
fake_metadata(struct fake *f, const uint8_t *p, size_t len, struct arena *a,
    struct wbuf *out)
{
	struct metadata_req req;
	struct metadata_resp resp;
	struct topic_info ti[FAKE_TOPICS + 4];
	struct partition_info pi[FAKE_TOPICS + 4][FAKE_PARTS];
	struct fake_topic *t;
	int32_t i, j, n;

	memset(&resp, 0, sizeof(resp));
	memset(ti, 0, sizeof(ti));
	if (msg_decode_metadata_req(p, len, a, &req) == -1 ||
	    req.count > FAKE_TOPICS + 4) {
		resp.error = ERR_INVALID_REQUEST;
		msg_encode_metadata_resp(out, &resp);
		return;
	}
	n = req.count == 0 ? f->ntopics : req.count;
	for (i = 0; i < n; i++) {
		t = req.count == 0 ? &f->topics[i] :
		    fake_topic(f, req.topics[i].s, req.topics[i].len);
		if (t == NULL && req.auto_create)
			t = fake_add_topic(f, req.topics[i].s, req.topics[i].len, 1);
		if (t == NULL) {
			ti[i].error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
			ti[i].name = req.topics[i].s;
			ti[i].name_len = req.topics[i].len;
			continue;
		}
		ti[i].name = t->name;
		ti[i].name_len = strlen(t->name);
		ti[i].count = t->nparts;
		ti[i].partitions = pi[i];
		for (j = 0; j < t->nparts; j++) {
			pi[i][j].partition = j;
			pi[i][j].log_start = 0;
			pi[i][j].log_end = t->parts[j].next;
			pi[i][j].size_bytes = (int64_t)t->parts[j].log.len;
		}
	}
	resp.count = n;
	resp.topics = ti;
	msg_encode_metadata_resp(out, &resp);
}

/* Store PRODUCE records; the response is appended to out. */
static void
fake_produce(struct fake *f, const uint8_t *p, size_t len, struct arena *a,
    struct wbuf *out)
{
	struct produce_req req;
	struct produce_resp resp;
	struct produce_result res[16];
	struct batch_header h;
	struct fake_topic *t;
	struct fake_part *fp;
	size_t pos, at;
	int32_t i;

	memset(&resp, 0, sizeof(resp));
	memset(res, 0, sizeof(res));
	if (msg_decode_produce_req(p, len, a, &req) == -1 || req.count > 16) {
		resp.error = ERR_INVALID_REQUEST;
		msg_encode_produce_resp(out, &resp);
		return;
	}
	for (i = 0; i < req.count; i++) {
		t = fake_topic(f, req.parts[i].topic, req.parts[i].topic_len);
		if (t == NULL || req.parts[i].partition < 0 ||
		    req.parts[i].partition >= t->nparts) {
			res[i].error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
			continue;
		}
		fp = &t->parts[req.parts[i].partition];
		res[i].base_offset = fp->next;
		for (pos = 0; pos < (size_t)req.parts[i].records_len; ) {
			if (batch_parse_header(req.parts[i].records + pos,
			    (size_t)req.parts[i].records_len - pos, &h) != BATCH_OK ||
			    batch_total_size(&h) > (size_t)req.parts[i].records_len - pos ||
			    batch_validate(req.parts[i].records + pos,
			    batch_total_size(&h), NULL) != BATCH_OK) {
				f->bad_crc++;
				res[i].error = ERR_CORRUPT_MESSAGE;
				break;
			}
			at = fp->log.len;
			wbuf_raw(&fp->log, req.parts[i].records + pos,
			    batch_total_size(&h));
			batch_set_base_offset(fp->log.buf + at, fp->next);
			fp->next += h.last_offset_delta + 1;
			pos += batch_total_size(&h);
		}
	}
	if (req.acks == 0)
		return;
	resp.count = req.count;
	resp.results = res;
	msg_encode_produce_resp(out, &resp);
}

static void
fake_fetch(struct fake *f, const uint8_t *p, size_t len, struct arena *a,
    struct wbuf *out)
{
	struct fetch_req req;
	struct fetch_resp resp;
	struct fetch_result res[8];
	struct batch_header h;
	struct fake_topic *t;
	struct fake_part *fp;
	size_t pos, start;
	int32_t i;

	int v3 = f->version == 0 || f->version >= 3;
	int64_t end;

	memset(&resp, 0, sizeof(resp));
	memset(res, 0, sizeof(res));
	memset(&req, 0, sizeof(req));
	if ((v3 ? msg_decode_fetch_req_v3 : msg_decode_fetch_req)(p, len, a,
	    &req) == -1 || req.count > 8) {
		resp.error = ERR_INVALID_REQUEST;
		(v3 ? msg_encode_fetch_resp_v3 : msg_encode_fetch_resp)(out,
		    &resp);
		return;
	}
	f->isolation = v3 ? req.isolation : -1;
	for (i = 0; i < req.count; i++) {
		t = fake_topic(f, req.parts[i].topic, req.parts[i].topic_len);
		if (t == NULL || req.parts[i].partition >= t->nparts) {
			res[i].error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
			continue;
		}
		fp = &t->parts[req.parts[i].partition];
		res[i].high_watermark = res[i].last_stable = fp->next;
		end = (int64_t)fp->log.len;
		if (req.parts[i].partition == 0 && f->lso >= 0) {
			res[i].last_stable = f->lso;
			if (req.isolation == FETCH_READ_COMMITTED) {
				res[i].naborted = f->naborted;
				res[i].aborted = f->aborted;
			}
		}
		if (req.parts[i].offset > fp->next || req.parts[i].offset < 0) {
			res[i].error = ERR_OFFSET_OUT_OF_RANGE;
			continue;
		}
		/* The first batch holding offset, then whole batches. */
		start = fp->log.len;
		for (pos = 0; pos < fp->log.len; pos += batch_total_size(&h)) {
			batch_parse_header(fp->log.buf + pos, fp->log.len - pos, &h);
			/* read_committed: nothing from the LSO on. */
			if (req.isolation == FETCH_READ_COMMITTED &&
			    h.base_offset >= res[i].last_stable) {
				end = (int64_t)pos;
				break;
			}
			if (start == fp->log.len &&
			    h.base_offset + h.last_offset_delta >= req.parts[i].offset)
				start = pos;
		}
		if ((int64_t)start > end)
			start = (size_t)end;
		res[i].records = fp->log.buf + start;
		res[i].records_len = (int32_t)(end - (int64_t)start);
	}
	resp.count = req.count;
	resp.results = res;
	(v3 ? msg_encode_fetch_resp_v3 : msg_encode_fetch_resp)(out, &resp);
}

static void
fake_other(struct fake *f, const struct frame *fr, struct arena *a,
    struct wbuf *out)
{
	struct handshake_resp hs = { 0, f->version != 0 ? f->version :
	    FLUME_PROTOCOL_VERSION, 1 << 20, "fake", 4 };
	struct create_topic_req cr;
	struct create_topic_resp crr = { 0, 0 };
	struct list_offsets_req lr;
	struct list_offsets_resp lrr = { 0, 0, NULL };
	struct list_offsets_result lres[16];
	struct child_info ch[2] = { { 0, 0, 4242, 61000, 1 },
	    { 1, 1, 4243, 3723000, 0 } };
	struct workers_resp wr = { 0, 2, ch };
	/* A new producer id per request, so a resend shows in the answer. */
	struct init_producer_resp ip = { 0, 100 + f->api_seen, 0 };
	struct fake_topic *t;
	int32_t i;

	switch (fr->api_key) {
	case API_HANDSHAKE:
		msg_encode_handshake_resp(out, &hs);
		break;
	case API_METADATA:
		fake_metadata(f, fr->payload, fr->payload_len, a, out);
		break;
	case API_CREATE_TOPIC:
		if (msg_decode_create_topic_req(fr->payload, fr->payload_len,
		    &cr) == -1)
			crr.error = ERR_INVALID_REQUEST;
		else if (fake_topic(f, cr.topic, cr.topic_len) != NULL)
			crr.error = ERR_TOPIC_EXISTS;
		else if (fake_add_topic(f, cr.topic, cr.topic_len,
		    cr.partitions == 0 ? 1 : cr.partitions) == NULL)
			crr.error = ERR_INVALID_PARTITIONS;
		else
			crr.partitions = cr.partitions == 0 ? 1 : cr.partitions;
		msg_encode_create_topic_resp(out, &crr);
		break;
	case API_LIST_OFFSETS:
		memset(lres, 0, sizeof(lres));
		if (msg_decode_list_offsets_req(fr->payload, fr->payload_len, a,
		    &lr) == -1 || lr.count > 16) {
			lrr.error = ERR_INVALID_REQUEST;
		} else {
			for (i = 0; i < lr.count; i++) {
				t = fake_topic(f, lr.parts[i].topic,
				    lr.parts[i].topic_len);
				if (t == NULL || lr.parts[i].partition >= t->nparts)
					lres[i].error =
					    ERR_UNKNOWN_TOPIC_OR_PARTITION;
				else if (lr.parts[i].which == OFFSET_LAST_STABLE &&
				    lr.parts[i].partition == 0 && f->lso >= 0)
					lres[i].offset = f->lso;
				else
					lres[i].offset = lr.parts[i].which ==
					    OFFSET_EARLIEST ? 0 :
					    t->parts[lr.parts[i].partition].next;
			}
			lrr.count = lr.count;
			lrr.results = lres;
		}
		msg_encode_list_offsets_resp(out, &lrr);
		break;
	case API_WORKERS:
		msg_encode_workers_resp(out, &wr);
		break;
	case API_INIT_PRODUCER:
		msg_encode_init_producer_resp(out, &ip);
		break;
	default:
		wbuf_i16(out, ERR_UNSUPPORTED_API);
		break;
	}
}

static int
fake_write_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = send(fd, p, n, MSG_NOSIGNAL)) <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Serve one connection until it closes, the stop pipe fires, or a drop. */
static void
fake_serve(struct fake *f, int fd)
{
	struct frame_reader rd;
	struct frame fr;
	struct wbuf out;
	struct arena a;
	struct pollfd pfd[2];
	uint8_t *space, drain[4096];
	size_t room, start;
	ssize_t n;
	int held = 0, rc = 0, done = 0;

	frame_reader_init(&rd, FRAME_REQUEST, 1 << 24);
	wbuf_init(&out);
	arena_init(&a, 1 << 24);
	while (!done) {
		pfd[0].fd = fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = f->stopfd[0];
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, 10000) <= 0 || (pfd[1].revents & POLLIN))
			break;
		if ((space = frame_reader_space(&rd, &room)) == NULL)
			break;
		if ((n = recv(fd, space, room, 0)) <= 0)
			break;
		frame_reader_commit(&rd, (size_t)n);
		while ((rc = frame_reader_next(&rd, &fr)) == 1) {
			arena_reset(&a);
			if (fr.api_key == API_PRODUCE) {
				f->produces++;
				if (f->produces == f->drop_at) {
					done = 1;	/* drop it unanswered */
					break;
				}
			}
			if (fr.api_key == API_FETCH &&
			    ++f->fetches == f->drop_fetch_at) {
				done = 1;
				break;
			}
			if (fr.api_key == f->drop_api &&
			    ++f->api_seen == f->drop_api_at) {
				done = 1;
				break;
			}
			start = frame_begin_response(&out, fr.request_id);
			if (fr.api_key == API_PRODUCE) {
				fake_produce(f, fr.payload, fr.payload_len, &a, &out);
				if (out.len - start == FRAME_RESP_HEADER) {
					out.len = start;	/* acks 0 */
					continue;
				}
				frame_end(&out, start);
				if (++held > f->max_held)
					f->max_held = held;
				if (held < f->hold)
					continue;
			} else {
				if (fr.api_key == API_FETCH)
					fake_fetch(f, fr.payload, fr.payload_len,
					    &a, &out);
				else
					fake_other(f, &fr, &a, &out);
				frame_end(&out, start);
			}
			held = 0;
			if (fake_write_all(fd, out.buf, out.len) == -1)
				done = 1;
			wbuf_reset(&out);
		}
		if (rc == -1)
			break;
	}
	if (done) {
		/*
		 * A drop: half-close and drain until the client closes, so the
		 * answers already written reach it (closing with unread input
		 * would send a reset, which may discard them).
		 */
		shutdown(fd, SHUT_WR);
		pfd[0].fd = fd;
		pfd[0].events = POLLIN;
		while (poll(pfd, 1, 5000) == 1 &&
		    recv(fd, drain, sizeof(drain), 0) > 0)
			;
	}
	close(fd);
	frame_reader_free(&rd);
	wbuf_free(&out);
	arena_free(&a);
}

static void *
fake_main(void *arg)
{
	struct fake *f = arg;
	struct pollfd pfd[2];
	int fd;

	for (;;) {
		pfd[0].fd = f->lfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = f->stopfd[0];
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, 10000) <= 0 || (pfd[1].revents & POLLIN))
			break;
		if ((fd = accept(f->lfd, NULL, NULL)) == -1)
			continue;
		f->accepts++;
		fake_serve(f, fd);
	}
	return NULL;
}

static struct fake *
fake_start(void)
{
	struct fake *f;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);

	f = calloc(1, sizeof(*f));
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	f->hold = 1;
	f->drop_at = -1;
	f->drop_fetch_at = -1;
	f->drop_api = -1;
	f->drop_api_at = -1;
	f->lso = -1;
	fake_add_topic(f, "t", 1, 3);
	f->lfd = socket(AF_INET, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(f->lfd >= 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CU_ASSERT_FATAL(bind(f->lfd, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	CU_ASSERT_FATAL(listen(f->lfd, 8) == 0);
	CU_ASSERT_FATAL(getsockname(f->lfd, (struct sockaddr *)&sin, &sl) == 0);
	f->port = ntohs(sin.sin_port);
	CU_ASSERT_FATAL(pipe(f->stopfd) == 0);
	return f;
}

static void
fake_run(struct fake *f)
{
	CU_ASSERT_FATAL(pthread_create(&f->thread, NULL, fake_main, f) == 0);
}

/* Stop the thread (joining it makes its observations safe to read). */
static void
fake_stop(struct fake *f)
{
	int i, j;

	(void)write(f->stopfd[1], "x", 1);
	pthread_join(f->thread, NULL);
	close(f->stopfd[0]);
	close(f->stopfd[1]);
	close(f->lfd);
	for (i = 0; i < f->ntopics; i++)
		for (j = 0; j < f->topics[i].nparts; j++)
			wbuf_free(&f->topics[i].parts[j].log);
	free(f);
}

static struct flume_client *
fake_connect(struct fake *f)
{
	struct flume_client_conf conf;
	struct flume_client *c;
	char addr[64];

	flume_client_conf_init(&conf);
	conf.request_timeout_ms = 5000;
	conf.reconnect_backoff_ms = 10;
	conf.reconnect_attempts = 5;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", (unsigned)f->port);
	c = flume_connect_conf(addr, &conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	return c;
}

static void
test_connect_refused(void)
{
	struct fake *f = fake_start();
	char addr[64];
	uint16_t port = f->port;

	/* A port nobody listens on: close the listener first. */
	fake_run(f);
	fake_stop(f);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", (unsigned)port);
	errno = 0;
	CU_ASSERT_PTR_NULL(flume_connect(addr));
	CU_ASSERT_EQUAL(errno, ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(flume_errstr(NULL), "cannot connect to"));
	CU_ASSERT_PTR_NOT_NULL(strstr(flume_errstr(NULL), addr));
	CU_ASSERT_PTR_NULL(flume_connect("127.0.0.1:notaport"));
	CU_ASSERT_PTR_NULL(flume_connect("[::1"));
}

static void
test_admin(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_metadata *md;
	struct flume_worker_info *w;
	const char *names[] = { "t", "nope" };
	int32_t created = 0;
	int64_t off = -5;

	fake_run(f);
	c = fake_connect(f);
	CU_ASSERT_EQUAL_FATAL(flume_metadata(c, names, 2, 0, &md), 0);
	CU_ASSERT_EQUAL_FATAL(md->topic_count, 2);
	CU_ASSERT_STRING_EQUAL(md->topics[0].name, "t");
	CU_ASSERT_EQUAL(md->topics[0].error, 0);
	CU_ASSERT_EQUAL(md->topics[0].partition_count, 3);
	CU_ASSERT_EQUAL(md->topics[0].partitions[2].partition, 2);
	CU_ASSERT_EQUAL(md->topics[1].error, ERR_UNKNOWN_TOPIC_OR_PARTITION);
	flume_metadata_free(md);

	CU_ASSERT_EQUAL(flume_create_topic(c, "new", 2, &created), 0);
	CU_ASSERT_EQUAL(created, 2);
	CU_ASSERT_EQUAL(flume_create_topic(c, "new", 2, &created), -1);
	CU_ASSERT_EQUAL(errno, EEXIST);
	CU_ASSERT_EQUAL(flume_broker_error(c), ERR_TOPIC_EXISTS);
	CU_ASSERT_STRING_EQUAL(flume_errstr(c), "new: topic already exists");

	CU_ASSERT_EQUAL_FATAL(flume_metadata(c, NULL, 0, 0, &md), 0);
	CU_ASSERT_EQUAL(md->topic_count, 2);
	CU_ASSERT_STRING_EQUAL(md->topics[1].name, "new");
	CU_ASSERT_EQUAL(md->topics[1].partition_count, 2);
	flume_metadata_free(md);

	CU_ASSERT_EQUAL(flume_list_offset(c, "t", 1, FLUME_OFFSET_END, &off), 0);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_EQUAL(flume_list_offset(c, "zz", 0, FLUME_OFFSET_END, &off), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);

	CU_ASSERT_EQUAL_FATAL(flume_workers(c, &w), 2);
	CU_ASSERT_EQUAL(w[0].pid, 4242);
	CU_ASSERT_EQUAL(w[0].role, 0);
	CU_ASSERT_EQUAL(w[1].role, 1);
	CU_ASSERT_EQUAL(w[1].uptime_ms, 3723000);
	CU_ASSERT_EQUAL(w[0].restarts, 1);
	free(w);
	flume_close(c);
	fake_stop(f);
}

/* Delivery reports, by sequence number. */
struct reports {
	int		 n;
	int		 inorder;	/* every report came in seq order */
	int32_t		 part[64];
	int64_t		 off[64];
	int		 err[64];
};

static void
on_report(const struct flume_delivery *d, void *arg)
{
	struct reports *r = arg;

	if (d->seq != (uint64_t)r->n)
		r->inorder = 0;
	if (d->seq < 64) {
		r->part[d->seq] = d->partition;
		r->off[d->seq] = d->offset;
		r->err[d->seq] = d->error;
	}
	r->n++;
}

static struct flume_producer *
make_producer(struct flume_client *c, struct reports *r, size_t batch_bytes)
{
	struct flume_producer_conf pc;
	struct flume_producer *p;

	memset(r, 0, sizeof(*r));
	r->inorder = 1;
	flume_producer_conf_init(&pc);
	pc.batch_bytes = batch_bytes;
	/* Batches close when full or at flush, never by the clock. */
	pc.linger_ms = 60000;
	pc.on_delivery = on_report;
	pc.on_delivery_arg = r;
	p = flume_producer_new(c, &pc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

/*
 * The fake answers only once it holds 4 PRODUCE requests, so the flush
 * can only finish if the producer pipelines at least 4 requests.
 */
static void
test_produce_pipelined(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_producer *p;
	struct reports r;
	char v[32];
	uint64_t seq;
	int i;

	f->hold = 4;
	fake_run(f);
	c = fake_connect(f);
	/* Every record fills a batch; one partition: one batch per request. */
	p = make_producer(c, &r, 1);
	for (i = 0; i < 16; i++) {
		snprintf(v, sizeof(v), "message-%02d-padding", i);
		CU_ASSERT_EQUAL_FATAL(flume_produce(p, "t", 1, NULL, -1, v,
		    (int32_t)strlen(v), &seq), 0);
		CU_ASSERT_EQUAL(seq, (uint64_t)i);
	}
	CU_ASSERT_EQUAL(flume_producer_flush(p, 5000), 0);
	CU_ASSERT_EQUAL(flume_producer_pending(p), 0);
	CU_ASSERT_EQUAL(r.n, 16);
	CU_ASSERT_EQUAL(r.inorder, 1);
	for (i = 0; i < 16; i++) {
		CU_ASSERT_EQUAL(r.part[i], 1);
		CU_ASSERT_EQUAL(r.off[i], i);
		CU_ASSERT_EQUAL(r.err[i], 0);
	}
	flume_producer_free(p);
	flume_close(c);
	fake_stop(f);
	/* Read after the join. */
}

/* Keyed records go where the FNV-1a partitioner says; keyless spread. */
static void
test_produce_keys(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_producer *p;
	struct reports r;
	int i;

	fake_run(f);
	c = fake_connect(f);
	p = make_producer(c, &r, 16384);
	CU_ASSERT_EQUAL(flume_produce(p, "t", FLUME_PARTITION_ANY, "order-42", 8,
	    "a", 1, NULL), 0);
	CU_ASSERT_EQUAL(flume_produce(p, "t", FLUME_PARTITION_ANY, "user-1", 6,
	    "b", 1, NULL), 0);
	CU_ASSERT_EQUAL(flume_produce(p, "t", FLUME_PARTITION_ANY, "order-42", 8,
	    "c", 1, NULL), 0);
	CU_ASSERT_EQUAL(flume_produce(p, "t", 0, NULL, -1, "d", 1, NULL), 0);
	CU_ASSERT_EQUAL(flume_produce(p, "t", 3, NULL, -1, "e", 1, NULL), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* Auto-created through METADATA (the fake makes 1 partition). */
	CU_ASSERT_EQUAL(flume_produce(p, "auto", FLUME_PARTITION_ANY, NULL, -1,
	    "f", 1, NULL), 0);
	CU_ASSERT_EQUAL(flume_producer_flush(p, 5000), 0);
	CU_ASSERT_EQUAL(r.n, 5);
	CU_ASSERT_EQUAL(r.part[0], 2);
	CU_ASSERT_EQUAL(r.off[0], 0);
	CU_ASSERT_EQUAL(r.part[1], 1);
	CU_ASSERT_EQUAL(r.off[1], 0);
	CU_ASSERT_EQUAL(r.part[2], 2);
	CU_ASSERT_EQUAL(r.off[2], 1);
	CU_ASSERT_EQUAL(r.part[3], 0);
	CU_ASSERT_EQUAL(r.off[3], 0);
	CU_ASSERT_EQUAL(r.part[4], 0);
	CU_ASSERT_EQUAL(r.off[4], 0);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(r.err[i], 0);
	flume_producer_free(p);
	flume_close(c);
	fake_stop(f);
}

/*
 * The fake drops the connection instead of answering the 3rd PRODUCE:
 * the producer reconnects and resends, every message is acknowledged, in
 * order, and the log holds each message exactly once (the dropped request
 * was never stored).
 */
static void
test_produce_retry(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_producer *p;
	struct flume_consumer *k;
	struct flume_message m;
	struct reports r;
	char v[32], want[32];
	int i, rc, got = 0;

	f->drop_at = 3;
	fake_run(f);
	c = fake_connect(f);
	p = make_producer(c, &r, 1);
	for (i = 0; i < 8; i++) {
		snprintf(v, sizeof(v), "retry-%d-padding-bytes", i);
		CU_ASSERT_EQUAL_FATAL(flume_produce(p, "t", 2, NULL, -1, v,
		    (int32_t)strlen(v), NULL), 0);
	}
	CU_ASSERT_EQUAL(flume_producer_flush(p, 5000), 0);
	CU_ASSERT_EQUAL(r.n, 8);
	CU_ASSERT_EQUAL(r.inorder, 1);
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(r.err[i], 0);
		CU_ASSERT_EQUAL(r.off[i], i);
	}
	CU_ASSERT_EQUAL(flume_client_reconnects(c), 1);
	flume_producer_free(p);

	k = flume_consumer_new(c, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, "t", 2,
	    FLUME_OFFSET_BEGINNING), 0);
	for (i = 0; i < 20 && !flume_consumer_at_end(k); i++) {
		rc = flume_consumer_poll(k, &m, 1000);
		CU_ASSERT_NOT_EQUAL_FATAL(rc, -1);
		if (rc == 0)
			continue;
		snprintf(want, sizeof(want), "retry-%d-padding-bytes", got);
		CU_ASSERT_EQUAL(m.offset, got);
		CU_ASSERT_EQUAL(m.value_len, (int32_t)strlen(want));
		CU_ASSERT_EQUAL(memcmp(m.value, want, strlen(want)), 0);
		got++;
	}
	CU_ASSERT_EQUAL(got, 8);
	CU_ASSERT_EQUAL(flume_consumer_position(k, "t", 2), 8);
	flume_consumer_free(k);
	flume_close(c);
	CU_ASSERT_EQUAL(f->accepts, 2);
	fake_stop(f);
}

/*
 * Consume every partition from the beginning, from a mid-batch offset,
 * and from the end; keys and null keys come back as produced.
 */
static void
test_consume(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_producer *p;
	struct flume_consumer *k;
	struct flume_message m;
	struct reports r;
	char v[16];
	int i, rc, rounds, got = 0, per[3] = { 0, 0, 0 };

	fake_run(f);
	c = fake_connect(f);
	/* One batch per partition with 5 records each (linger holds them). */
	p = make_producer(c, &r, 16384);
	for (i = 0; i < 15; i++) {
		snprintf(v, sizeof(v), "v%d", i);
		CU_ASSERT_EQUAL_FATAL(flume_produce(p, "t", i % 3,
		    i % 2 ? "key" : NULL, i % 2 ? 3 : -1, v,
		    (int32_t)strlen(v), NULL), 0);
	}
	CU_ASSERT_EQUAL_FATAL(flume_producer_flush(p, 5000), 0);
	flume_producer_free(p);

	k = flume_consumer_new(c, NULL);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, "t",
	    FLUME_PARTITION_ANY, FLUME_OFFSET_BEGINNING), 0);
	CU_ASSERT_EQUAL(flume_consumer_at_end(k), 0);
	for (rounds = 0; rounds < 50 && !flume_consumer_at_end(k); rounds++) {
		rc = flume_consumer_poll(k, &m, 1000);
		CU_ASSERT_NOT_EQUAL_FATAL(rc, -1);
		if (rc == 0)
			continue;
		CU_ASSERT_FATAL(m.partition >= 0 && m.partition < 3);
		/* Message i went to partition i % 3 at offset i / 3. */
		i = m.partition + 3 * per[m.partition];
		CU_ASSERT_EQUAL(m.offset, per[m.partition]);
		snprintf(v, sizeof(v), "v%d", i);
		CU_ASSERT_EQUAL(m.value_len, (int32_t)strlen(v));
		CU_ASSERT_EQUAL(memcmp(m.value, v, strlen(v)), 0);
		CU_ASSERT_STRING_EQUAL(m.topic, "t");
		if (i % 2) {
			CU_ASSERT_EQUAL(m.key_len, 3);
			CU_ASSERT_EQUAL(memcmp(m.key, "key", 3), 0);
		} else {
			CU_ASSERT_EQUAL(m.key_len, -1);
			CU_ASSERT_PTR_NULL(m.key);
		}
		per[m.partition]++;
		got++;
	}
	CU_ASSERT_EQUAL(got, 15);
	CU_ASSERT_EQUAL(per[0], 5);
	CU_ASSERT_EQUAL(per[2], 5);
	flume_consumer_free(k);

	/* From offset 3 of partition 1: the batch starts at 0, skip 0..2. */
	k = flume_consumer_new(c, NULL);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, "t", 1, 3), 0);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_poll(k, &m, 1000), 1);
	CU_ASSERT_EQUAL(m.offset, 3);
	CU_ASSERT_EQUAL(memcmp(m.value, "v10", 3), 0);
	/* Offset 4 is in the same answer: the next poll needs no round trip. */
	CU_ASSERT_EQUAL(flume_consumer_buffered(k), 1);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_poll(k, &m, 1000), 1);
	CU_ASSERT_EQUAL(m.offset, 4);
	/* ... and that was the answer's last record: flush output now. */
	CU_ASSERT_EQUAL(flume_consumer_buffered(k), 0);
	CU_ASSERT_EQUAL(flume_consumer_at_end(k), 1);
	flume_consumer_free(k);

	/* From the end: already at the end, nothing to read. */
	k = flume_consumer_new(c, NULL);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, "t",
	    FLUME_PARTITION_ANY, FLUME_OFFSET_END), 0);
	CU_ASSERT_EQUAL(flume_consumer_at_end(k), 1);
	CU_ASSERT_EQUAL(flume_consumer_position(k, "t", 0), 5);
	CU_ASSERT_EQUAL(flume_consumer_poll(k, &m, 0), 0);
	/* Past the end clamps to it; unknown topic fails. */
	CU_ASSERT_EQUAL(flume_consumer_subscribe(k, "t", 0, 99), 0);
	CU_ASSERT_EQUAL(flume_consumer_position(k, "t", 0), 5);
	CU_ASSERT_EQUAL(flume_consumer_subscribe(k, "zz", 0, 0), -1);
	CU_ASSERT_EQUAL(flume_consumer_subscribe(k, "t", 7, 0), -1);
	flume_consumer_free(k);
	flume_close(c);
	fake_stop(f);
}

/*
 * The fake drops the connection instead of answering the 2nd FETCH: the
 * consumer reconnects and goes on from its next offset, so every message
 * comes exactly once.
 */
static void
test_consume_reconnect(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_producer *p;
	struct flume_consumer *k;
	struct flume_consumer_conf kc;
	struct flume_message m;
	struct reports r;
	char v[16];
	int i, rc, got = 0;

	fake_run(f);
	c = fake_connect(f);
	p = make_producer(c, &r, 1);
	for (i = 0; i < 6; i++) {
		snprintf(v, sizeof(v), "m%d", i);
		CU_ASSERT_EQUAL_FATAL(flume_produce(p, "t", 0, NULL, -1, v,
		    (int32_t)strlen(v), NULL), 0);
	}
	CU_ASSERT_EQUAL_FATAL(flume_producer_flush(p, 5000), 0);
	flume_producer_free(p);

	f->drop_fetch_at = 2;
	flume_consumer_conf_init(&kc);
	kc.max_bytes = 1024;	/* the fake ignores it; the client asks anyway */
	k = flume_consumer_new(c, &kc);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, "t", 0,
	    FLUME_OFFSET_BEGINNING), 0);
	/* The first fetch returns everything; read half of it. */
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(flume_consumer_poll(k, &m, 1000), 1);
		CU_ASSERT_EQUAL(m.offset, i);
		got++;
	}
	CU_ASSERT_EQUAL(flume_consumer_position(k, "t", 0), 3);
	for (i = 0; i < 20 && !flume_consumer_at_end(k); i++) {
		rc = flume_consumer_poll(k, &m, 1000);
		CU_ASSERT_NOT_EQUAL_FATAL(rc, -1);
		if (rc == 0)
			continue;
		CU_ASSERT_EQUAL(m.offset, got);
		snprintf(v, sizeof(v), "m%d", got);
		CU_ASSERT_EQUAL(memcmp(m.value, v, strlen(v)), 0);
		got++;
	}
	CU_ASSERT_EQUAL(got, 6);
	/* Drained the first response, then the 2nd fetch was dropped. */
	CU_ASSERT_EQUAL(flume_client_reconnects(c), 0);
	rc = flume_consumer_poll(k, &m, 0);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(flume_client_reconnects(c), 1);
	CU_ASSERT_EQUAL(flume_consumer_position(k, "t", 0), 6);
	flume_consumer_free(k);
	flume_close(c);
	fake_stop(f);
}

/*
 * The broker goes away for good: reconnecting gives up after its bounded
 * attempts and every queued message is reported failed.
 */
static void
test_produce_broker_gone(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_producer *p;
	struct reports r;
	int i;

	fake_run(f);
	c = fake_connect(f);
	p = make_producer(c, &r, 16384);
	CU_ASSERT_EQUAL_FATAL(flume_produce(p, "t", 0, NULL, -1, "a", 1, NULL), 0);
	fake_stop(f);
	CU_ASSERT_EQUAL(flume_produce(p, "t", 0, NULL, -1, "b", 1, NULL), 0);
	CU_ASSERT_EQUAL(flume_producer_flush(p, 10000), -1);
	CU_ASSERT_EQUAL(r.n, 2);
	for (i = 0; i < 2; i++) {
		CU_ASSERT(r.err[i] < 0);
		CU_ASSERT_EQUAL(r.off[i], -1);
	}
	CU_ASSERT_EQUAL(flume_producer_failed(p), 2);
	CU_ASSERT_EQUAL(flume_producer_pending(p), 0);
	CU_ASSERT_EQUAL(flume_produce(p, "t", 0, NULL, -1, "c", 1, NULL), -1);
	flume_producer_free(p);
	flume_close(c);
}

/* A stored batch with a flipped byte is refused, not handed out. */
static void
test_consume_corrupt(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_producer *p;
	struct flume_consumer *k;
	struct flume_message m;
	struct reports r;

	fake_run(f);
	c = fake_connect(f);
	p = make_producer(c, &r, 16384);
	CU_ASSERT_EQUAL_FATAL(flume_produce(p, "t", 0, NULL, -1, "hello", 5,
	    NULL), 0);
	CU_ASSERT_EQUAL_FATAL(flume_producer_flush(p, 5000), 0);
	flume_producer_free(p);
	/*
	 * The fake thread is idle, blocked in poll between requests: the last
	 * answer was written before flush could return.
	 */
	f->topics[0].parts[0].log.buf[f->topics[0].parts[0].log.len - 1] ^= 1;

	k = flume_consumer_new(c, NULL);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, "t", 0,
	    FLUME_OFFSET_BEGINNING), 0);
	CU_ASSERT_EQUAL(flume_consumer_poll(k, &m, 1000), -1);
	CU_ASSERT_EQUAL(errno, EBADMSG);
	CU_ASSERT_PTR_NOT_NULL(strstr(flume_errstr(c), "corrupt batch"));
	CU_ASSERT_EQUAL(flume_consumer_position(k, "t", 0), 0);
	flume_consumer_free(k);
	flume_close(c);
	fake_stop(f);
}

/*
 * A lost connection during an idempotent call (METADATA, LIST_OFFSETS)
 * sends it once more on a new connection; CREATE_TOPIC is not sent again.
 */
static void
test_call_resend(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	struct flume_metadata *md = NULL;
	const char *names[] = { "t" };
	int64_t off = -5;

	f->drop_api = API_METADATA;
	f->drop_api_at = 1;
	fake_run(f);
	c = fake_connect(f);
	CU_ASSERT_EQUAL_FATAL(flume_metadata(c, names, 1, 0, &md), 0);
	CU_ASSERT_EQUAL(md->topic_count, 1);
	CU_ASSERT_EQUAL(md->topics[0].partition_count, 3);
	CU_ASSERT_EQUAL(f->api_seen, 2);
	CU_ASSERT_EQUAL(f->accepts, 2);
	flume_metadata_free(md);
	CU_ASSERT_EQUAL(flume_list_offset(c, "t", 1, FLUME_OFFSET_END, &off), 0);
	CU_ASSERT_EQUAL(off, 0);
	flume_close(c);
	fake_stop(f);

	f = fake_start();
	f->drop_api = API_CREATE_TOPIC;
	f->drop_api_at = 1;
	fake_run(f);
	c = fake_connect(f);
	CU_ASSERT_EQUAL(flume_create_topic(c, "new", 2, NULL), -1);
	CU_ASSERT_EQUAL(f->api_seen, 1);
	flume_close(c);
	fake_stop(f);
}

/*
 * A worker killed while it holds a new connection (the master respawns
 * it): the first connect is tried again, not failed.  A broker that
 * refuses is still reported at once (test_connect_refused).
 */
static void
test_connect_reset(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;

	f->drop_api = API_HANDSHAKE;
	f->drop_api_at = 1;
	fake_run(f);
	c = fake_connect(f);
	CU_ASSERT_PTR_NOT_NULL(c);
	CU_ASSERT_EQUAL(f->api_seen, 2);
	CU_ASSERT_EQUAL(f->accepts, 2);
	if (c != NULL)
		flume_close(c);
	fake_stop(f);
}

/*
 * INIT_PRODUCER for a new id is sent again after a lost connection (the
 * first id is simply never used); an epoch bump is not, since a second
 * bump would find the producer's old epoch fenced.
 */
static void
test_init_producer_resend(void)
{
	struct fake *f = fake_start();
	struct flume_client *c;
	int64_t pid = -1;
	int16_t epoch = -1;

	f->drop_api = API_INIT_PRODUCER;
	f->drop_api_at = 1;
	fake_run(f);
	c = fake_connect(f);
	CU_ASSERT_EQUAL(flume_init_producer(c, &pid, &epoch), 0);
	CU_ASSERT_EQUAL(pid, 102);	/* the second request's answer */
	CU_ASSERT_EQUAL(epoch, 0);
	CU_ASSERT_EQUAL(f->api_seen, 2);
	flume_close(c);
	fake_stop(f);

	f = fake_start();
	f->drop_api = API_INIT_PRODUCER;
	f->drop_api_at = 1;
	fake_run(f);
	c = fake_connect(f);
	pid = 7;
	epoch = 3;
	CU_ASSERT_EQUAL(flume_init_producer(c, &pid, &epoch), -1);
	CU_ASSERT_EQUAL(f->api_seen, 1);
	flume_close(c);
	fake_stop(f);
}

/* Append a batch of one record (value v) to fp, transactional for txn. */
static void
fake_append(struct fake_part *fp, int64_t pid, int txn, const char *v)
{
	struct batch_builder bb;
	const uint8_t *out;
	size_t len, at = fp->log.len;

	batch_builder_init(&bb);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1000, NULL, -1, v,
	    (int32_t)strlen(v), NULL, 0), 0);
	if (pid >= 0)
		batch_builder_set_producer(&bb, pid, 0, (int32_t)fp->next);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &out, &len), 0);
	wbuf_raw(&fp->log, out, len);
	batch_builder_free(&bb);
	batch_set_base_offset(fp->log.buf + at, fp->next);
	if (txn)
		test_batch_set_transactional(fp->log.buf + at, len);
	fp->next++;
}

static void
fake_marker(struct fake_part *fp, int64_t pid, int type)
{
	struct ctrl_marker m = { pid, 0, (int16_t)type, 0, 1000 };
	uint8_t b[CTRL_MARKER_SIZE];

	ctrl_marker_encode(b, &m);
	batch_set_base_offset(b, fp->next);
	wbuf_raw(&fp->log, b, sizeof(b));
	fp->next++;
}

/*
 * Read partition 0 of "t" to its end with the given isolation (-1: the
 * default); "offset:value" of each message read, joined by commas.
 */
static void
read_all(struct fake *f, int isolation, char *buf, size_t size)
{
	struct flume_client *c = fake_connect(f);
	struct flume_consumer *k;
	struct flume_message m;
	size_t n = 0;
	int i, rc;

	buf[0] = '\0';
	k = flume_consumer_new(c, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	if (isolation >= 0)
		CU_ASSERT_EQUAL(flume_consumer_set_isolation(k, isolation), 0);
	CU_ASSERT_EQUAL(flume_consumer_set_isolation(k, 2), -1);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, "t", 0,
	    FLUME_OFFSET_BEGINNING), 0);
	for (i = 0; i < 20 && (i == 0 || !flume_consumer_at_end(k)); i++) {
		rc = flume_consumer_poll(k, &m, 1000);
		CU_ASSERT_NOT_EQUAL_FATAL(rc, -1);
		if (rc == 1)
			n += (size_t)snprintf(buf + n, size - n, "%s%lld:%.*s",
			    n > 0 ? "," : "", (long long)m.offset,
			    (int)m.value_len, (const char *)m.value);
	}
	CU_ASSERT(flume_consumer_at_end(k));
	flume_consumer_free(k);
	flume_close(c);
}

/* Where a consumer subscribed to partition 0 at its end starts. */
static int64_t
end_position(struct fake *f, int isolation)
{
	struct flume_client *c = fake_connect(f);
	struct flume_consumer *k = flume_consumer_new(c, NULL);
	int64_t pos;

	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	if (isolation >= 0)
		CU_ASSERT_EQUAL(flume_consumer_set_isolation(k, isolation), 0);
	CU_ASSERT_EQUAL_FATAL(flume_consumer_subscribe(k, "t", 0,
	    FLUME_OFFSET_END), 0);
	pos = flume_consumer_position(k, "t", 0);
	flume_consumer_free(k);
	flume_close(c);
	return pos;
}

/*
 * Partition 0: 0 plain, 1-2 A (aborted), 3 B (committed), 4 A's ABORT,
 * 5 B's COMMIT, 6 plain, 7 C (open): the LSO is 7.
 */
static void
test_consume_txn(void)
{
	struct fake *f = fake_start();
	struct fake_part *fp = &f->topics[0].parts[0];
	char got[256];

	fake_append(fp, -1, 0, "p0");
	fake_append(fp, 11, 1, "a1");
	fake_append(fp, 11, 1, "a2");
	fake_append(fp, 12, 1, "b3");
	fake_marker(fp, 11, CTRL_ABORT);
	fake_marker(fp, 12, CTRL_COMMIT);
	fake_append(fp, -1, 0, "p6");
	fake_append(fp, 13, 1, "c7");
	f->lso = 7;
	f->aborted[0].producer_id = 11;
	f->aborted[0].first_offset = 1;
	f->naborted = 1;
	fake_run(f);
	/* read_committed by default: no A, no markers, nothing past the LSO. */
	read_all(f, -1, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "0:p0,3:b3,6:p6");
	CU_ASSERT_EQUAL(f->isolation, FETCH_READ_COMMITTED);
	read_all(f, FLUME_READ_UNCOMMITTED, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "0:p0,1:a1,2:a2,3:b3,6:p6,7:c7");
	CU_ASSERT_EQUAL(f->isolation, FETCH_READ_UNCOMMITTED);
	/* The end is the LSO read committed, the log end uncommitted. */
	CU_ASSERT_EQUAL(end_position(f, -1), 7);
	CU_ASSERT_EQUAL(end_position(f, FLUME_READ_UNCOMMITTED), 8);
	fake_stop(f);

	/* A broker of version 2 filters nothing: only the markers go. */
	f = fake_start();
	fp = &f->topics[0].parts[0];
	f->version = 2;
	fake_append(fp, 11, 1, "a0");
	fake_marker(fp, 11, CTRL_ABORT);
	fake_append(fp, -1, 0, "p2");
	fake_run(f);
	read_all(f, -1, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "0:a0,2:p2");
	CU_ASSERT_EQUAL(f->isolation, -1);
	fake_stop(f);
}

TEST_SUITE("client", NULL, NULL,
	{ "fnv1a32 exact values", test_fnv1a },
	{ "partition for key", test_partition_for_key },
	{ "format rendering", test_format },
	{ "-K key splitting", test_split_key },
	{ "argument parsing", test_parse },
	{ "uptime format", test_uptime },
	{ "connect refused", test_connect_refused },
	{ "admin calls", test_admin },
	{ "idempotent calls resent once", test_call_resend },
	{ "a first connect reset by a dying worker is tried again",
	    test_connect_reset },
	{ "INIT_PRODUCER for a new id resent once, an epoch bump not",
	    test_init_producer_resend },
	{ "pipelined produce", test_produce_pipelined },
	{ "keyed and keyless produce", test_produce_keys },
	{ "produce retry after disconnect", test_produce_retry },
	{ "consume", test_consume },
	{ "consume reconnect", test_consume_reconnect },
	{ "produce with the broker gone", test_produce_broker_gone },
	{ "consume corrupt batch", test_consume_corrupt },
	{ "consume transactions", test_consume_txn });
