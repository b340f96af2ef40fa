/*
 * proto/msg.c: every message round-trips field for field; the PRODUCE,
 * FETCH and other layouts are pinned by hand-written bytes; every
 * truncation, a trailing byte, huge and negative counts, negative record
 * lengths and an exhausted arena are refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_auth.h"
#include "proto/wire.h"
#include "tests/harness.h"

#define ARENA_LIMIT	(1 << 20)

static struct arena arena;

static int
suite_setup(void)
{
	arena_init(&arena, ARENA_LIMIT);
	return 0;
}

static int
suite_teardown(void)
{
	arena_free(&arena);
	return 0;
}

/* A string field equals the C string want (length and bytes). */
static int
str_eq(const char *s, size_t len, const char *want)
{
	return s != NULL && len == strlen(want) && memcmp(s, want, len) == 0;
}

static int
bytes_eq(const uint8_t *p, int32_t len, const uint8_t *want, int32_t wlen)
{
	if (len != wlen)
		return 0;
	if (len == 0)
		return p != NULL;
	return p != NULL && memcmp(p, want, (size_t)len) == 0;
}

/* ---- sample messages, each with several entries and edge values ---- */

static const uint8_t rec_a[] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06 };
static const uint8_t rec_b[] = { 0xff };

static const struct handshake_req s_hs_req = { 1, "flume-test", 10 };
static const struct handshake_resp s_hs_resp = { 0, 1, 16 * 1024 * 1024 + 1024,
    "flume 0.1", 9 };

static struct wire_str s_md_topics[] = {
	{ "orders", 6 }, { "", 0 }, { "a.b-c_d", 7 },
};
static const struct metadata_req s_md_req = { 1, 3, s_md_topics };
static struct partition_info s_md_parts0[] = {
	{ 0, 0, 100, 4096 },
	{ 1, 5, 9, 512 },
	{ 2, INT64_MAX, INT64_MIN, -1 },
};
static struct topic_info s_md_topics_info[] = {
	{ 0, "orders", 6, 3, s_md_parts0 },
	{ ERR_UNKNOWN_TOPIC_OR_PARTITION, "nope", 4, 0, NULL },
	{ 0, "x", 1, 1, s_md_parts0 + 1 },
};
static const struct metadata_resp s_md_resp = { 0, 3, s_md_topics_info };

static const struct create_topic_req s_ct_req = { "events", 6, 12 };
static const struct create_topic_resp s_ct_resp = { ERR_TOPIC_EXISTS, 8 };
static const struct delete_topic_req s_dt_req = { "events", 6, 2500 };
static const struct delete_topic_resp s_dt_resp = { ERR_TIMEOUT, 3 };
static const struct create_partitions_req s_cp_req = { "events", 6, 9, 1500 };
static const struct create_partitions_resp s_cp_resp = {
	ERR_INVALID_PARTITIONS, 9 };

static struct produce_part s_pr_parts[] = {
	{ "orders", 6, 0, rec_a, (int32_t)sizeof(rec_a) },
	{ "orders", 6, 7, rec_b, 1 },
	{ "t", 1, -1, rec_a, 0 },
};
static const struct produce_req s_pr_req = { -1, 30000, 3, s_pr_parts };
static struct produce_result s_pr_results[] = {
	{ 0, 1000, 0 },
	{ ERR_STORAGE, -1, -1 },
	{ ERR_CORRUPT_MESSAGE, INT64_MIN, INT64_MAX },
};
static const struct produce_resp s_pr_resp = { 0, 3, s_pr_results };

static struct fetch_part s_fe_parts[] = {
	{ "orders", 6, 0, 0, 1 << 20 },
	{ "orders", 6, 1, INT64_MAX, 0 },
	{ "logs", 4, 2, -2, -1 },
};
static const struct fetch_req s_fe_req = { 500, 1, 1 << 24, 3, s_fe_parts, 0 };
static struct fetch_result s_fe_results[] = {
	{ 0, 0, 7, rec_a, (int32_t)sizeof(rec_a), 0, 0, NULL },
	{ ERR_OFFSET_OUT_OF_RANGE, 10, 20, rec_a, 0, 0, 0, NULL },
	{ 0, 3, 4, rec_b, 1, 0, 0, NULL },
};
static const struct fetch_resp s_fe_resp = { 0, 3, s_fe_results };
/* Version 3: the isolation level, LSOs and aborted transactions. */
static const struct fetch_req s_fe3_req = { 500, 1, 1 << 24, 3, s_fe_parts,
	FETCH_READ_COMMITTED };
static struct fetch_aborted s_fe3_ab[] = { { 77, 3 }, { 78, INT64_MAX } };
static struct fetch_result s_fe3_results[] = {
	{ 0, 0, 7, rec_a, (int32_t)sizeof(rec_a), 5, 2, s_fe3_ab },
	{ ERR_OFFSET_OUT_OF_RANGE, 10, 20, rec_a, 0, 20, 0, NULL },
	{ 0, 3, 4, rec_b, 1, 4, 1, s_fe3_ab },
};
static const struct fetch_resp s_fe3_resp = { 0, 3, s_fe3_results };

static struct list_offsets_part s_lo_parts[] = {
	{ "orders", 6, 0, OFFSET_EARLIEST },
	{ "orders", 6, 1, OFFSET_LATEST },
	{ "z", 1, 2147483647, 123456789012LL },
};
static const struct list_offsets_req s_lo_req = { 3, s_lo_parts };
static struct list_offsets_result s_lo_results[] = {
	{ 0, 0, -1 }, { 0, 99, -1 }, { ERR_UNKNOWN_TOPIC_OR_PARTITION, -1, -1 },
};
static const struct list_offsets_resp s_lo_resp = { 0, 3, s_lo_results };

static struct child_info s_wk_children[] = {
	{ 0, 0, 1234, 5000, 0 },
	{ 1, 0, 1235, 4999, 3 },
	{ 2, 1, 2147483647, INT64_MAX, -1 },
};
static const struct workers_resp s_wk_resp = { 0, 3, s_wk_children };

/* ---- field-by-field comparison against the samples ---- */

static int
same_hs_req(const struct handshake_req *m)
{
	return m->version == 1 && str_eq(m->client_id, m->client_id_len,
	    "flume-test");
}

static int
same_hs_resp(const struct handshake_resp *m)
{
	return m->error == 0 && m->version == 1 &&
	    m->max_frame == s_hs_resp.max_frame &&
	    str_eq(m->broker, m->broker_len, "flume 0.1");
}

static int
same_md_req(const struct metadata_req *m)
{
	int32_t i;

	if (m->auto_create != 1 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++)
		if (m->topics[i].len != s_md_topics[i].len ||
		    (m->topics[i].len > 0 && memcmp(m->topics[i].s,
		    s_md_topics[i].s, m->topics[i].len) != 0))
			return 0;
	return 1;
}

static int
same_md_resp(const struct metadata_resp *m)
{
	const struct topic_info *t, *w;
	int32_t i, j;

	if (m->error != 0 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++) {
		t = &m->topics[i];
		w = &s_md_topics_info[i];
		if (t->error != w->error || t->count != w->count ||
		    !str_eq(t->name, t->name_len, w->name))
			return 0;
		if (t->count == 0 && t->partitions != NULL)
			return 0;
		for (j = 0; j < t->count; j++) {
			const struct partition_info *p = &t->partitions[j];
			const struct partition_info *q = &w->partitions[j];

			if (p->partition != q->partition ||
			    p->log_start != q->log_start ||
			    p->log_end != q->log_end ||
			    p->size_bytes != q->size_bytes)
				return 0;
		}
	}
	return 1;
}

static int
same_pr_req(const struct produce_req *m)
{
	int32_t i;

	if (m->acks != -1 || m->timeout_ms != 30000 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++) {
		const struct produce_part *p = &m->parts[i], *w = &s_pr_parts[i];

		if (!str_eq(p->topic, p->topic_len, w->topic) ||
		    p->partition != w->partition ||
		    !bytes_eq(p->records, p->records_len, w->records,
		    w->records_len))
			return 0;
	}
	return 1;
}

static int
same_pr_resp(const struct produce_resp *m)
{
	int32_t i;

	if (m->error != 0 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++)
		if (m->results[i].error != s_pr_results[i].error ||
		    m->results[i].base_offset != s_pr_results[i].base_offset ||
		    m->results[i].log_start != s_pr_results[i].log_start)
			return 0;
	return 1;
}

static int
same_fe_req(const struct fetch_req *m)
{
	int32_t i;

	if (m->max_wait_ms != 500 || m->min_bytes != 1 ||
	    m->max_bytes != 1 << 24 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++) {
		const struct fetch_part *p = &m->parts[i], *w = &s_fe_parts[i];

		if (!str_eq(p->topic, p->topic_len, w->topic) ||
		    p->partition != w->partition || p->offset != w->offset ||
		    p->max_bytes != w->max_bytes)
			return 0;
	}
	return 1;
}

static int
same_fe_resp(const struct fetch_resp *m)
{
	int32_t i;

	if (m->error != 0 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++) {
		const struct fetch_result *r = &m->results[i];
		const struct fetch_result *w = &s_fe_results[i];

		if (r->error != w->error || r->log_start != w->log_start ||
		    r->high_watermark != w->high_watermark ||
		    !bytes_eq(r->records, r->records_len, w->records,
		    w->records_len))
			return 0;
	}
	return 1;
}

static int
same_fe3_req(const struct fetch_req *m)
{
	return same_fe_req(m) && m->isolation == FETCH_READ_COMMITTED;
}

static int
same_fe3_resp(const struct fetch_resp *m)
{
	int32_t i, k;

	if (m->error != 0 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++) {
		const struct fetch_result *r = &m->results[i];
		const struct fetch_result *w = &s_fe3_results[i];

		if (r->error != w->error || r->log_start != w->log_start ||
		    r->high_watermark != w->high_watermark ||
		    r->last_stable != w->last_stable ||
		    r->naborted != w->naborted ||
		    !bytes_eq(r->records, r->records_len, w->records,
		    w->records_len))
			return 0;
		for (k = 0; k < r->naborted; k++)
			if (r->aborted[k].producer_id != w->aborted[k].producer_id ||
			    r->aborted[k].first_offset != w->aborted[k].first_offset)
				return 0;
	}
	return 1;
}

static int
same_lo_req(const struct list_offsets_req *m)
{
	int32_t i;

	if (m->count != 3)
		return 0;
	for (i = 0; i < 3; i++) {
		const struct list_offsets_part *p = &m->parts[i];
		const struct list_offsets_part *w = &s_lo_parts[i];

		if (!str_eq(p->topic, p->topic_len, w->topic) ||
		    p->partition != w->partition || p->which != w->which)
			return 0;
	}
	return 1;
}

static int
same_lo_resp(const struct list_offsets_resp *m)
{
	int32_t i;

	if (m->error != 0 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++)
		if (m->results[i].error != s_lo_results[i].error ||
		    m->results[i].offset != s_lo_results[i].offset ||
		    m->results[i].timestamp != -1)
			return 0;
	return 1;
}

static int
same_wk_resp(const struct workers_resp *m)
{
	int32_t i;

	if (m->error != 0 || m->count != 3)
		return 0;
	for (i = 0; i < 3; i++) {
		const struct child_info *c = &m->children[i];
		const struct child_info *w = &s_wk_children[i];

		if (c->slot != w->slot || c->role != w->role ||
		    c->pid != w->pid || c->uptime_ms != w->uptime_ms ||
		    c->restarts != w->restarts)
			return 0;
	}
	return 1;
}

/*
 * One row per message type: encode the sample, and decode a payload
 * returning the decoder's result and, through *same, whether the decoded
 * message equals the sample field for field.
 */
struct msg_case {
	const char	*name;
	void		(*encode)(struct wbuf *);
	int		(*decode)(const uint8_t *, size_t, struct arena *, int *);
};

#define MSG_CASE(tag, sample, type, enc, dec, same)			\
static void								\
enc_##tag(struct wbuf *wb)						\
{									\
	enc(wb, &sample);						\
}									\
static int								\
dec_##tag(const uint8_t *p, size_t len, struct arena *a, int *ok)	\
{									\
	struct type m;							\
	int rc;								\
									\
	rc = dec;							\
	*ok = rc == 0 && same(&m);					\
	return rc;							\
}

MSG_CASE(hs_req, s_hs_req, handshake_req, msg_encode_handshake_req,
    msg_decode_handshake_req(p, len, &m), same_hs_req)
MSG_CASE(hs_resp, s_hs_resp, handshake_resp, msg_encode_handshake_resp,
    msg_decode_handshake_resp(p, len, &m), same_hs_resp)
MSG_CASE(md_req, s_md_req, metadata_req, msg_encode_metadata_req,
    msg_decode_metadata_req(p, len, a, &m), same_md_req)
MSG_CASE(md_resp, s_md_resp, metadata_resp, msg_encode_metadata_resp,
    msg_decode_metadata_resp(p, len, a, &m), same_md_resp)
MSG_CASE(pr_req, s_pr_req, produce_req, msg_encode_produce_req,
    msg_decode_produce_req(p, len, a, &m), same_pr_req)
MSG_CASE(pr_resp, s_pr_resp, produce_resp, msg_encode_produce_resp,
    msg_decode_produce_resp(p, len, a, &m), same_pr_resp)
MSG_CASE(fe_req, s_fe_req, fetch_req, msg_encode_fetch_req,
    msg_decode_fetch_req(p, len, a, &m), same_fe_req)
MSG_CASE(fe_resp, s_fe_resp, fetch_resp, msg_encode_fetch_resp,
    msg_decode_fetch_resp(p, len, a, &m), same_fe_resp)
MSG_CASE(fe3_req, s_fe3_req, fetch_req, msg_encode_fetch_req_v3,
    msg_decode_fetch_req_v3(p, len, a, &m), same_fe3_req)
MSG_CASE(fe3_resp, s_fe3_resp, fetch_resp, msg_encode_fetch_resp_v3,
    msg_decode_fetch_resp_v3(p, len, a, &m), same_fe3_resp)
MSG_CASE(lo_req, s_lo_req, list_offsets_req, msg_encode_list_offsets_req,
    msg_decode_list_offsets_req(p, len, a, &m), same_lo_req)
MSG_CASE(lo_resp, s_lo_resp, list_offsets_resp, msg_encode_list_offsets_resp,
    msg_decode_list_offsets_resp(p, len, a, &m), same_lo_resp)
MSG_CASE(wk_resp, s_wk_resp, workers_resp, msg_encode_workers_resp,
    msg_decode_workers_resp(p, len, a, &m), same_wk_resp)

static int
same_ct_req(const struct create_topic_req *m)
{
	return str_eq(m->topic, m->topic_len, "events") && m->partitions == 12;
}

static int
same_ct_resp(const struct create_topic_resp *m)
{
	return m->error == ERR_TOPIC_EXISTS && m->partitions == 8;
}

MSG_CASE(ct_req, s_ct_req, create_topic_req, msg_encode_create_topic_req,
    msg_decode_create_topic_req(p, len, &m), same_ct_req)
MSG_CASE(ct_resp, s_ct_resp, create_topic_resp, msg_encode_create_topic_resp,
    msg_decode_create_topic_resp(p, len, &m), same_ct_resp)

static int
same_dt_req(const struct delete_topic_req *m)
{
	return str_eq(m->topic, m->topic_len, "events") && m->timeout_ms == 2500;
}

static int
same_dt_resp(const struct delete_topic_resp *m)
{
	return m->error == ERR_TIMEOUT && m->partitions == 3;
}

MSG_CASE(dt_req, s_dt_req, delete_topic_req, msg_encode_delete_topic_req,
    msg_decode_delete_topic_req(p, len, &m), same_dt_req)
MSG_CASE(dt_resp, s_dt_resp, delete_topic_resp, msg_encode_delete_topic_resp,
    msg_decode_delete_topic_resp(p, len, &m), same_dt_resp)

static int
same_cp_req(const struct create_partitions_req *m)
{
	return str_eq(m->topic, m->topic_len, "events") && m->count == 9 &&
	    m->timeout_ms == 1500;
}

static int
same_cp_resp(const struct create_partitions_resp *m)
{
	return m->error == ERR_INVALID_PARTITIONS && m->partitions == 9;
}

MSG_CASE(cp_req, s_cp_req, create_partitions_req,
    msg_encode_create_partitions_req,
    msg_decode_create_partitions_req(p, len, &m), same_cp_req)
MSG_CASE(cp_resp, s_cp_resp, create_partitions_resp,
    msg_encode_create_partitions_resp,
    msg_decode_create_partitions_resp(p, len, &m), same_cp_resp)

static const struct msg_case cases[] = {
	{ "handshake_req", enc_hs_req, dec_hs_req },
	{ "handshake_resp", enc_hs_resp, dec_hs_resp },
	{ "metadata_req", enc_md_req, dec_md_req },
	{ "metadata_resp", enc_md_resp, dec_md_resp },
	{ "create_topic_req", enc_ct_req, dec_ct_req },
	{ "create_topic_resp", enc_ct_resp, dec_ct_resp },
	{ "produce_req", enc_pr_req, dec_pr_req },
	{ "produce_resp", enc_pr_resp, dec_pr_resp },
	{ "fetch_req", enc_fe_req, dec_fe_req },
	{ "fetch_resp", enc_fe_resp, dec_fe_resp },
	{ "list_offsets_req", enc_lo_req, dec_lo_req },
	{ "list_offsets_resp", enc_lo_resp, dec_lo_resp },
	{ "workers_resp", enc_wk_resp, dec_wk_resp },
	/* Last: the tests below name the others by index. */
	{ "delete_topic_req", enc_dt_req, dec_dt_req },
	{ "delete_topic_resp", enc_dt_resp, dec_dt_resp },
	{ "create_partitions_req", enc_cp_req, dec_cp_req },
	{ "create_partitions_resp", enc_cp_resp, dec_cp_resp },
	{ "fetch_req_v3", enc_fe3_req, dec_fe3_req },
	{ "fetch_resp_v3", enc_fe3_resp, dec_fe3_resp },
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* Decode an exact-size heap copy, so ASan catches any read past the end. */
static int
decode_copy(const struct msg_case *mc, const uint8_t *p, size_t len, int *ok)
{
	uint8_t *copy;
	int rc;

	copy = malloc(len == 0 ? 1 : len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	if (len > 0)
		memcpy(copy, p, len);
	arena_reset(&arena);
	rc = mc->decode(copy, len, &arena, ok);
	free(copy);
	return rc;
}

static void
test_round_trip_all(void)
{
	struct wbuf wb;
	size_t i;
	int ok, rc;

	wbuf_init(&wb);
	for (i = 0; i < NCASES; i++) {
		wbuf_reset(&wb);
		cases[i].encode(&wb);
		CU_ASSERT_EQUAL_FATAL(wb.err, 0);
		arena_reset(&arena);
		ok = 0;
		rc = cases[i].decode(wb.buf, wb.len, &arena, &ok);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT(ok);
		if (rc != 0 || !ok)
			fprintf(stderr, "round trip failed: %s\n", cases[i].name);
	}
	wbuf_free(&wb);
}

static void
test_every_truncation_fails(void)
{
	struct wbuf wb;
	size_t i, n;
	int ok, bad = 0;

	wbuf_init(&wb);
	for (i = 0; i < NCASES; i++) {
		wbuf_reset(&wb);
		cases[i].encode(&wb);
		CU_ASSERT_EQUAL_FATAL(wb.err, 0);
		for (n = 0; n < wb.len; n++) {
			/*
			 * A response cut right after a non-zero error is the
			 * error-only form, which decodes (as not the sample).
			 */
			if (n == 2 && strstr(cases[i].name, "_resp") != NULL &&
			    (wb.buf[0] != 0 || wb.buf[1] != 0)) {
				CU_ASSERT_EQUAL(decode_copy(&cases[i], wb.buf,
				    n, &ok), 0);
				CU_ASSERT_EQUAL(ok, 0);
				continue;
			}
			if (decode_copy(&cases[i], wb.buf, n, &ok) != -1) {
				fprintf(stderr, "%s: %zu of %zu bytes accepted\n",
				    cases[i].name, n, wb.len);
				bad++;
			}
		}
		/* The whole message still decodes from a heap copy. */
		CU_ASSERT_EQUAL(decode_copy(&cases[i], wb.buf, wb.len, &ok), 0);
		CU_ASSERT(ok);
	}
	CU_ASSERT_EQUAL(bad, 0);
	wbuf_free(&wb);
}

static void
test_trailing_byte_fails(void)
{
	struct wbuf wb;
	size_t i;
	int ok;

	wbuf_init(&wb);
	for (i = 0; i < NCASES; i++) {
		wbuf_reset(&wb);
		cases[i].encode(&wb);
		wbuf_i8(&wb, 0);
		CU_ASSERT_EQUAL_FATAL(wb.err, 0);
		CU_ASSERT_EQUAL(decode_copy(&cases[i], wb.buf, wb.len, &ok), -1);
		CU_ASSERT_EQUAL(decode_copy(&cases[i], wb.buf, wb.len - 1, &ok),
		    0);
	}
	wbuf_free(&wb);
}

/*
 * An arena too small for the arrays: the decoder fails cleanly instead of
 * writing through NULL, and succeeds with room.
 */
static void
test_arena_exhausted_fails(void)
{
	struct wbuf wb;
	struct arena small;
	size_t i;
	int ok;

	wbuf_init(&wb);
	arena_init(&small, 16);
	for (i = 0; i < NCASES; i++) {
		if (cases[i].encode == enc_hs_req ||
		    cases[i].encode == enc_hs_resp ||
		    cases[i].encode == enc_ct_req ||
		    cases[i].encode == enc_ct_resp ||
		    cases[i].encode == enc_dt_req ||
		    cases[i].encode == enc_dt_resp ||
		    cases[i].encode == enc_cp_req ||
		    cases[i].encode == enc_cp_resp)
			continue;	/* no arrays */
		wbuf_reset(&wb);
		cases[i].encode(&wb);
		arena_reset(&small);
		CU_ASSERT_EQUAL(cases[i].decode(wb.buf, wb.len, &small, &ok),
		    -1);
	}
	arena_free(&small);
	wbuf_free(&wb);
}

/* ---- hand-written payloads pin the layouts ---- */

static const uint8_t hand_produce_req[] = {
	0xff,					/* acks -1 */
	0x00, 0x00, 0x13, 0x88,			/* timeout_ms 5000 */
	0x00, 0x00, 0x00, 0x02,			/* count 2 */
	0x00, 0x03, 'a', 'b', 'c',		/* topic "abc" */
	0x00, 0x00, 0x00, 0x01,			/* partition 1 */
	0x00, 0x00, 0x00, 0x03, 0x0a, 0x0b, 0x0c, /* records, 3 bytes */
	0x00, 0x01, 'z',			/* topic "z" */
	0x00, 0x00, 0x00, 0x00,			/* partition 0 */
	0x00, 0x00, 0x00, 0x00,			/* records, empty */
};

static void
test_hand_produce_req(void)
{
	static const uint8_t recs[] = { 0x0a, 0x0b, 0x0c };
	struct produce_req m;
	struct produce_part parts[2] = {
		{ "abc", 3, 1, recs, 3 }, { "z", 1, 0, recs, 0 },
	};
	struct produce_req in = { -1, 5000, 2, parts };
	struct wbuf wb;

	arena_reset(&arena);
	CU_ASSERT_EQUAL_FATAL(msg_decode_produce_req(hand_produce_req,
	    sizeof(hand_produce_req), &arena, &m), 0);
	CU_ASSERT_EQUAL(m.acks, -1);
	CU_ASSERT_EQUAL(m.timeout_ms, 5000);
	CU_ASSERT_EQUAL_FATAL(m.count, 2);
	CU_ASSERT(str_eq(m.parts[0].topic, m.parts[0].topic_len, "abc"));
	CU_ASSERT_PTR_EQUAL(m.parts[0].topic, hand_produce_req + 11);
	CU_ASSERT_EQUAL(m.parts[0].partition, 1);
	CU_ASSERT_EQUAL(m.parts[0].records_len, 3);
	CU_ASSERT_PTR_EQUAL(m.parts[0].records, hand_produce_req + 22);
	CU_ASSERT(str_eq(m.parts[1].topic, m.parts[1].topic_len, "z"));
	CU_ASSERT_EQUAL(m.parts[1].partition, 0);
	CU_ASSERT_EQUAL(m.parts[1].records_len, 0);

	/* And the encoder writes exactly these bytes. */
	wbuf_init(&wb);
	msg_encode_produce_req(&wb, &in);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(hand_produce_req));
	CU_ASSERT_EQUAL(memcmp(wb.buf, hand_produce_req, wb.len), 0);
	wbuf_free(&wb);
}

static const uint8_t hand_fetch_req[] = {
	0x00, 0x00, 0x01, 0xf4,			/* max_wait_ms 500 */
	0x00, 0x00, 0x00, 0x01,			/* min_bytes 1 */
	0x00, 0x10, 0x00, 0x00,			/* max_bytes 1 MiB */
	0x00, 0x00, 0x00, 0x02,			/* count 2 */
	0x00, 0x02, 'o', 'k',			/* topic "ok" */
	0x00, 0x00, 0x00, 0x03,			/* partition 3 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, /* offset 2^32+2 */
	0x00, 0x00, 0x10, 0x00,			/* max_bytes 4096 */
	0x00, 0x00,				/* topic "" */
	0xff, 0xff, 0xff, 0xff,			/* partition -1 */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, /* offset -2 */
	0x00, 0x00, 0x00, 0x00,			/* max_bytes 0 */
};

static void
test_hand_fetch_req(void)
{
	struct fetch_req m;
	struct fetch_part parts[2] = {
		{ "ok", 2, 3, 0x100000002LL, 4096 }, { "", 0, -1, -2, 0 },
	};
	struct fetch_req in = { 500, 1, 1 << 20, 2, parts, 0 };
	struct wbuf wb;

	arena_reset(&arena);
	CU_ASSERT_EQUAL_FATAL(msg_decode_fetch_req(hand_fetch_req,
	    sizeof(hand_fetch_req), &arena, &m), 0);
	CU_ASSERT_EQUAL(m.max_wait_ms, 500);
	CU_ASSERT_EQUAL(m.min_bytes, 1);
	CU_ASSERT_EQUAL(m.max_bytes, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(m.count, 2);
	CU_ASSERT(str_eq(m.parts[0].topic, m.parts[0].topic_len, "ok"));
	CU_ASSERT_EQUAL(m.parts[0].partition, 3);
	CU_ASSERT_EQUAL(m.parts[0].offset, 0x100000002LL);
	CU_ASSERT_EQUAL(m.parts[0].max_bytes, 4096);
	CU_ASSERT_EQUAL(m.parts[1].topic_len, 0);
	CU_ASSERT_EQUAL(m.parts[1].partition, -1);
	CU_ASSERT_EQUAL(m.parts[1].offset, -2);
	CU_ASSERT_EQUAL(m.parts[1].max_bytes, 0);

	wbuf_init(&wb);
	msg_encode_fetch_req(&wb, &in);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(hand_fetch_req));
	CU_ASSERT_EQUAL(memcmp(wb.buf, hand_fetch_req, wb.len), 0);
	wbuf_free(&wb);
}

/* Responses and the small requests, pinned by their encoded bytes. */
static void
test_hand_encodings(void)
{
	static const uint8_t recs[] = { 0xab, 0xcd };
	static const uint8_t want_pr_resp[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x0c,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
	};
	static const uint8_t want_fe_resp[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x02, 0xab, 0xcd,
	};
	static const uint8_t want_hs_req[] = {
		0x00, 0x01, 0x00, 0x02, 'c', 'l',
	};
	static const uint8_t want_hs_resp[] = {
		0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x04, 0x00, 0x00, 0x01, 'b',
	};
	static const uint8_t want_md_req[] = {
		0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 't',
	};
	static const uint8_t want_md_resp[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x01, 't', 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	};
	static const uint8_t want_ct_req[] = {
		0x00, 0x01, 't', 0x00, 0x00, 0x00, 0x04,
	};
	static const uint8_t want_dt_req[] = {
		0x00, 0x01, 't', 0x00, 0x00, 0x27, 0x10,
	};
	static const uint8_t want_dt_resp[] = {
		0x00, 0x08, 0x00, 0x00, 0x00, 0x02,
	};
	static const uint8_t want_lo_req[] = {
		0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 't', 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
	};
	static const uint8_t want_lo_resp[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	static const uint8_t want_wk_resp[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00, 0x30, 0x39,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,
		0x00, 0x00, 0x00, 0x07,
	};
	struct produce_result pr = { ERR_STORAGE, 256, 16 };
	struct produce_resp prm = { 0, 1, &pr };
	struct fetch_result fr = { 0, 5, 9, recs, 2, 0, 0, NULL };
	struct fetch_resp frm = { 0, 1, &fr };
	struct handshake_req hq = { 1, "cl", 2 };
	struct handshake_resp hr = { 0, 1, 0x01000400, "b", 1 };
	struct wire_str t = { "t", 1 };
	struct metadata_req mq = { 1, 1, &t };
	struct partition_info pi = { 2, 3, 4, 5 };
	struct topic_info ti = { 0, "t", 1, 1, &pi };
	struct metadata_resp mr = { 0, 1, &ti };
	struct create_topic_req cq = { "t", 1, 4 };
	struct delete_topic_req dq = { "t", 1, 10000 };
	struct delete_topic_resp dr = { ERR_UNKNOWN_TOPIC_OR_PARTITION, 2 };
	struct list_offsets_part lp = { "t", 1, 0, OFFSET_EARLIEST };
	struct list_offsets_req lq = { 1, &lp };
	struct list_offsets_result lr = { ERR_UNKNOWN_TOPIC_OR_PARTITION, -1,
	    -1 };
	struct list_offsets_resp lrm = { 0, 1, &lr };
	struct child_info ci = { 2, 1, 12345, 1000, 7 };
	struct workers_resp wr = { 0, 1, &ci };
	struct wbuf wb;

	wbuf_init(&wb);
#define PIN(call, want) do {						\
	wbuf_reset(&wb);						\
	call;								\
	CU_ASSERT_EQUAL(wb.err, 0);					\
	CU_ASSERT_EQUAL(wb.len, sizeof(want));				\
	CU_ASSERT(wb.len == sizeof(want) &&				\
	    memcmp(wb.buf, want, sizeof(want)) == 0);			\
} while (0)
	PIN(msg_encode_produce_resp(&wb, &prm), want_pr_resp);
	PIN(msg_encode_fetch_resp(&wb, &frm), want_fe_resp);
	PIN(msg_encode_handshake_req(&wb, &hq), want_hs_req);
	PIN(msg_encode_handshake_resp(&wb, &hr), want_hs_resp);
	PIN(msg_encode_metadata_req(&wb, &mq), want_md_req);
	PIN(msg_encode_metadata_resp(&wb, &mr), want_md_resp);
	PIN(msg_encode_create_topic_req(&wb, &cq), want_ct_req);
	PIN(msg_encode_delete_topic_req(&wb, &dq), want_dt_req);
	PIN(msg_encode_delete_topic_resp(&wb, &dr), want_dt_resp);
	PIN(msg_encode_list_offsets_req(&wb, &lq), want_lo_req);
	PIN(msg_encode_list_offsets_resp(&wb, &lrm), want_lo_resp);
	PIN(msg_encode_workers_resp(&wb, &wr), want_wk_resp);
#undef PIN
	wbuf_free(&wb);
}

/*
 * The small codecs beside msg.c (msg_producer.c, msg_auth.c, msg_stats.c)
 * and CREATE_TOPIC's answer, pinned by their bytes; each pinned payload
 * also decodes and encodes again to the same bytes.
 */
#define I64(v)	0, 0, 0, 0, 0, 0, 0, (v)
#define PIN_SMALL(name, msg, want) do {					\
	struct name got_;						\
									\
	wbuf_reset(&wb);						\
	msg_encode_##name(&wb, msg);					\
	CU_ASSERT(wb.err == 0 && wb.len == sizeof(want) &&		\
	    memcmp(wb.buf, want, sizeof(want)) == 0);			\
	arena_reset(&arena);						\
	CU_ASSERT_EQUAL(DECODE_##name(want, &got_), 0);			\
	wbuf_reset(&wb);						\
	msg_encode_##name(&wb, &got_);					\
	CU_ASSERT(wb.err == 0 && wb.len == sizeof(want) &&		\
	    memcmp(wb.buf, want, sizeof(want)) == 0);			\
} while (0)
#define DECODE_create_topic_resp(w, m)	msg_decode_create_topic_resp(w, sizeof(w), m)
#define DECODE_init_producer_req(w, m)	msg_decode_init_producer_req(w, sizeof(w), m)
#define DECODE_init_producer_resp(w, m)	msg_decode_init_producer_resp(w, sizeof(w), m)
#define DECODE_auth_begin_req(w, m)	msg_decode_auth_begin_req(w, sizeof(w), m)
#define DECODE_auth_begin_resp(w, m)	msg_decode_auth_begin_resp(w, sizeof(w), m)
#define DECODE_auth_prove_req(w, m)	msg_decode_auth_prove_req(w, sizeof(w), m)
#define DECODE_auth_prove_resp(w, m)	msg_decode_auth_prove_resp(w, sizeof(w), m)
#define DECODE_stats_resp(w, m)		msg_decode_stats_resp(w, sizeof(w), &arena, m)

static void
test_hand_small_codecs(void)
{
	static const uint8_t want_ct_resp[] = { 0, ERR_TOPIC_EXISTS, 0, 0, 0, 3 };
	static const uint8_t want_ip_req[] = { 1, 2, 3, 4, 5, 6, 7, 8, 0, 5 };
	static const uint8_t want_ip_resp[] = { 0, 0, I64(7), 0, 2 };
	static const uint8_t want_ab_req[] = { 0, 1, 'u' };
	static const uint8_t want_ab_resp[] = { 0, 0,
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
	static const uint8_t want_ab_err[] = { 0, ERR_AUTH_FAILED };
	static const uint8_t want_ap_req[] = {
		31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,
		15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };
	static const uint8_t want_ap_resp[] = { 0, ERR_AUTH_FAILED };
	static const uint8_t want_st_resp[] = {
		0, 0,
		0, 0, 0, 1,					/* one child: */
		0, 0, 0, 1, 2, 0, 0, 0, 3, 0, 0, 0, 4,		/* slot, role, pid, restarts */
		I64(5), I64(6), I64(7), I64(8), I64(9), I64(10), I64(11),
		0, 0, 0, 1,					/* one partition: */
		0, 1, 't', 0, 0, 0, 2,
		I64(3), I64(4), I64(5), I64(6), I64(7), I64(8), I64(9),
		I64(10), I64(11), I64(12), 0, 0, 0, 13, I64(14),
		I64(15), I64(16), I64(17),			/* fsyncs */
		0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		I64(18),					/* +Inf bucket */
		0, 0, 0, 1, 0, ERR_UNKNOWN_TOPIC_OR_PARTITION, I64(19),
		0, 0, 0, 1, 0, 1, 'g', 0, 1, 't', 0, 0, 0, 0,	/* one lag */
		I64(20), I64(21),
	};
	struct create_topic_resp cr = { ERR_TOPIC_EXISTS, 3 };
	struct init_producer_req iq = { 0x0102030405060708LL, 5 };
	struct init_producer_resp ir = { ERR_NONE, 7, 2 };
	struct auth_begin_req bq = { "u", 1 };
	struct auth_begin_resp br, be = { ERR_AUTH_FAILED, { 0 } };
	struct auth_prove_req pq;
	struct auth_prove_resp pr = { ERR_AUTH_FAILED };
	struct stats_child sc = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 0, 0,
	    0, 0 };
	struct stats_partition sp = { "t", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
	    12, 13, 14, 0, 0, 0 };
	struct stats_bucket sb = { -1, 18 };
	struct stats_error se = { ERR_UNKNOWN_TOPIC_OR_PARTITION, 19 };
	struct stats_lag sl = { "g", 1, "t", 1, 0, 20, 21 };
	struct stats_resp sr = { ERR_NONE, 1, &sc, 1, &sp, 15, 16, 17,
	    1, &sb, 1, &se, 1, &sl, 0, 0, 0, 0 };
	struct wbuf wb;
	int i;

	br.error = ERR_NONE;
	for (i = 0; i < AUTH_NONCE_LEN; i++)
		br.nonce[i] = (uint8_t)i;
	for (i = 0; i < AUTH_MAC_LEN; i++)
		pq.mac[i] = (uint8_t)(AUTH_MAC_LEN - 1 - i);
	wbuf_init(&wb);
	PIN_SMALL(create_topic_resp, &cr, want_ct_resp);
	PIN_SMALL(init_producer_req, &iq, want_ip_req);
	PIN_SMALL(init_producer_resp, &ir, want_ip_resp);
	PIN_SMALL(auth_begin_req, &bq, want_ab_req);
	PIN_SMALL(auth_begin_resp, &br, want_ab_resp);
	PIN_SMALL(auth_begin_resp, &be, want_ab_err);
	PIN_SMALL(auth_prove_req, &pq, want_ap_req);
	PIN_SMALL(auth_prove_resp, &pr, want_ap_resp);
	PIN_SMALL(stats_resp, &sr, want_st_resp);
	wbuf_free(&wb);
}
#undef I64

/* ---- counts and lengths ---- */

/*
 * A payload of `head` prefix bytes, then the count, then `tail` zero bytes;
 * decoded with a fresh arena that must stay unallocated.
 */
static int
decode_with_count(const struct msg_case *mc, const uint8_t *head,
    size_t headlen, uint32_t count, size_t tail, int *allocated)
{
	uint8_t buf[256];
	struct arena a;
	int ok, rc;

	CU_ASSERT_FATAL(headlen + 4 + tail <= sizeof(buf));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, head, headlen);
	buf[headlen] = (uint8_t)(count >> 24);
	buf[headlen + 1] = (uint8_t)(count >> 16);
	buf[headlen + 2] = (uint8_t)(count >> 8);
	buf[headlen + 3] = (uint8_t)count;
	arena_init(&a, ARENA_LIMIT);
	rc = mc->decode(buf, headlen + 4 + tail, &a, &ok);
	*allocated = a.buf != NULL;
	arena_free(&a);
	return rc;
}

static void
test_bad_counts_fail(void)
{
	static const uint8_t zero[16];
	static const struct {
		int		 idx;		/* into cases[] */
		size_t		 head;		/* bytes before the count */
	} arrays[] = {
		{ 2, 1 },	/* metadata_req: auto_create */
		{ 3, 2 },	/* metadata_resp: error */
		{ 6, 5 },	/* produce_req: acks, timeout */
		{ 7, 2 },
		{ 8, 12 },	/* fetch_req: three i32 */
		{ 9, 2 },
		{ 10, 0 },	/* list_offsets_req */
		{ 11, 2 },
		{ 12, 2 },
	};
	static const uint32_t bad[] = { 0x7fffffff, 0xffffffff, 0x80000000,
	    0x80000001, 0x00010000 };
	size_t i, j;
	int allocated;

	for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		const struct msg_case *mc = &cases[arrays[i].idx];

		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			CU_ASSERT_EQUAL(decode_with_count(mc, zero,
			    arrays[i].head, bad[j], 200, &allocated), -1);
			CU_ASSERT_EQUAL(allocated, 0);
		}
		/* Count 0 with nothing after it is a valid empty message. */
		CU_ASSERT_EQUAL(decode_with_count(mc, zero, arrays[i].head, 0,
		    0, &allocated), 0);
		CU_ASSERT_EQUAL(allocated, 0);
	}
}

/*
 * Each count is checked with the true smallest entry size: n all-zero
 * entries of exactly that size decode (as empty strings, zero numbers,
 * empty records), one byte less is refused before anything is allocated.
 */
static void
test_count_min_sizes(void)
{
	static const uint8_t zero[16];
	static const struct {
		int		 idx;
		size_t		 head;
		size_t		 min;
	} arrays[] = {
		{ 2, 1, 2 }, { 3, 2, 8 }, { 6, 5, 10 }, { 7, 2, 18 },
		{ 8, 12, 18 }, { 9, 2, 22 }, { 10, 0, 14 }, { 11, 2, 10 },
		{ 12, 2, 21 },
	};
	size_t i;
	int allocated;

	for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		const struct msg_case *mc = &cases[arrays[i].idx];

		CU_ASSERT_EQUAL(decode_with_count(mc, zero, arrays[i].head, 3,
		    3 * arrays[i].min, &allocated), 0);
		CU_ASSERT_EQUAL(allocated, 1);
		CU_ASSERT_EQUAL(decode_with_count(mc, zero, arrays[i].head, 3,
		    3 * arrays[i].min - 1, &allocated), -1);
		CU_ASSERT_EQUAL(allocated, 0);
	}
}

static void
test_metadata_inner_count(void)
{
	/* One topic "t" whose partition count is huge, then negative. */
	static const uint8_t head[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 't',
	};
	static const uint32_t bad[] = { 0x7fffffff, 0xffffffff, 2 };
	size_t j;
	int allocated;

	for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++)
		CU_ASSERT_EQUAL(decode_with_count(&cases[3], head,
		    sizeof(head), bad[j], 28, &allocated), -1);
	/* Exactly one partition fits in 28 bytes. */
	CU_ASSERT_EQUAL(decode_with_count(&cases[3], head, sizeof(head), 1,
	    28, &allocated), 0);
	CU_ASSERT_EQUAL(allocated, 1);
}

static void
test_record_lengths(void)
{
	/* produce_req, one part "t"/0, records length L, nothing following. */
	uint8_t pr[] = {
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x01, 't', 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff,
	};
	/* fetch_resp, one result, records length L, nothing following. */
	uint8_t fr[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff,
	};
	struct produce_req pm;
	struct fetch_resp fm;

	/* -1 (null) is malformed for records in both directions. */
	arena_reset(&arena);
	CU_ASSERT_EQUAL(msg_decode_produce_req(pr, sizeof(pr), &arena, &pm), -1);
	CU_ASSERT_EQUAL(msg_decode_fetch_resp(fr, sizeof(fr), &arena, &fm), -1);
	/* So is any other negative length. */
	pr[sizeof(pr) - 1] = 0xfe;
	fr[sizeof(fr) - 1] = 0xfe;
	CU_ASSERT_EQUAL(msg_decode_produce_req(pr, sizeof(pr), &arena, &pm), -1);
	CU_ASSERT_EQUAL(msg_decode_fetch_resp(fr, sizeof(fr), &arena, &fm), -1);
	pr[sizeof(pr) - 4] = 0x80;
	memset(pr + sizeof(pr) - 3, 0, 3);
	CU_ASSERT_EQUAL(msg_decode_produce_req(pr, sizeof(pr), &arena, &pm), -1);
	/* Empty records are structurally fine. */
	memset(pr + sizeof(pr) - 4, 0, 4);
	memset(fr + sizeof(fr) - 4, 0, 4);
	CU_ASSERT_EQUAL(msg_decode_produce_req(pr, sizeof(pr), &arena, &pm), 0);
	CU_ASSERT_EQUAL(pm.parts[0].records_len, 0);
	CU_ASSERT_EQUAL(msg_decode_fetch_resp(fr, sizeof(fr), &arena, &fm), 0);
	CU_ASSERT_EQUAL(fm.results[0].records_len, 0);
	CU_ASSERT_PTR_NOT_NULL(fm.results[0].records);
	/* A length one past the payload. */
	pr[sizeof(pr) - 1] = 0x01;
	CU_ASSERT_EQUAL(msg_decode_produce_req(pr, sizeof(pr), &arena, &pm), -1);
}

/* Responses: a non-zero error alone decodes; a zero error alone does not. */
static void
test_error_only_responses(void)
{
	static const uint8_t inval[] = { 0x00, 0x02 };
	static const uint8_t none[] = { 0x00, 0x00 };
	static const uint8_t inval_extra[] = { 0x00, 0x02, 0x00 };
	struct handshake_resp hr;
	struct metadata_resp mr;
	struct create_topic_resp cr;
	struct produce_resp pr;
	struct fetch_resp fr;
	struct list_offsets_resp lr;
	struct workers_resp wr;
	struct produce_req preq;

	arena_reset(&arena);
	CU_ASSERT_EQUAL(msg_decode_handshake_resp(inval, 2, &hr), 0);
	CU_ASSERT_EQUAL(hr.error, ERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(hr.max_frame, 0);
	CU_ASSERT_EQUAL(msg_decode_metadata_resp(inval, 2, &arena, &mr), 0);
	CU_ASSERT_EQUAL(mr.error, ERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(mr.count, 0);
	CU_ASSERT_PTR_NULL(mr.topics);
	CU_ASSERT_EQUAL(msg_decode_create_topic_resp(inval, 2, &cr), 0);
	CU_ASSERT_EQUAL(cr.error, ERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(msg_decode_produce_resp(inval, 2, &arena, &pr), 0);
	CU_ASSERT_EQUAL(pr.error, ERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(pr.count, 0);
	CU_ASSERT_EQUAL(msg_decode_fetch_resp(inval, 2, &arena, &fr), 0);
	CU_ASSERT_EQUAL(fr.error, ERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(fr.count, 0);
	CU_ASSERT_EQUAL(msg_decode_list_offsets_resp(inval, 2, &arena, &lr), 0);
	CU_ASSERT_EQUAL(lr.error, ERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(msg_decode_workers_resp(inval, 2, &arena, &wr), 0);
	CU_ASSERT_EQUAL(wr.error, ERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(wr.count, 0);

	CU_ASSERT_EQUAL(msg_decode_produce_resp(none, 2, &arena, &pr), -1);
	CU_ASSERT_EQUAL(msg_decode_handshake_resp(none, 2, &hr), -1);
	CU_ASSERT_EQUAL(msg_decode_fetch_resp(inval_extra, 3, &arena, &fr), -1);
	/* Requests have no such form. */
	CU_ASSERT_EQUAL(msg_decode_produce_req(inval, 2, &arena, &preq), -1);
}

static void
test_strerror_and_names(void)
{
	int i, j, k, ok = 1;
	const char *s;

	CU_ASSERT_STRING_EQUAL(flume_strerror(ERR_UNKNOWN_TOPIC_OR_PARTITION),
	    "unknown topic or partition");
	CU_ASSERT_STRING_EQUAL(flume_strerror(ERR_STORAGE),
	    "storage error (disk full or I/O error)");
	CU_ASSERT_STRING_EQUAL(flume_strerror(ERR_NONE), "no error");
	CU_ASSERT_STRING_EQUAL(flume_strerror(-1), "unknown error");
	CU_ASSERT_STRING_EQUAL(flume_strerror(ERR_MAX), "unknown error");
	CU_ASSERT_STRING_EQUAL(flume_strerror(32767), "unknown error");
	for (i = 0; i < ERR_MAX; i++) {
		s = flume_strerror(i);
		if (strcmp(s, "unknown error") == 0 || s[0] == '\0')
			ok = 0;
		for (k = 0; s[k] != '\0'; k++) {
			if (strncmp(s + k, "I/O", 3) == 0)
				k += 2;		/* lowercase, except "I/O" */
			else if (s[k] >= 'A' && s[k] <= 'Z')
				ok = 0;
		}
		for (j = 0; j < i; j++)
			if (strcmp(s, flume_strerror(j)) == 0)
				ok = 0;
	}
	CU_ASSERT(ok);

	CU_ASSERT_STRING_EQUAL(api_name(API_PRODUCE), "PRODUCE");
	CU_ASSERT_STRING_EQUAL(api_name(API_HANDSHAKE), "HANDSHAKE");
	CU_ASSERT_STRING_EQUAL(api_name(API_LIST_OFFSETS), "LIST_OFFSETS");
	CU_ASSERT_STRING_EQUAL(api_name(API_INIT_PRODUCER), "INIT_PRODUCER");
	CU_ASSERT_STRING_EQUAL(api_name(0), "?");
	CU_ASSERT_STRING_EQUAL(api_name(API_MAX), "?");
	CU_ASSERT_STRING_EQUAL(api_name(-3), "?");
	ok = 1;
	for (i = 1; i < API_MAX; i++) {
		s = api_name(i);
		if (strcmp(s, "?") == 0)
			ok = 0;
		for (j = 1; j < i; j++)
			if (strcmp(s, api_name(j)) == 0)
				ok = 0;
	}
	CU_ASSERT(ok);
}

/*
 * CONNECTIONS' answer, byte by byte as flume-protocol(7) lays it out,
 * decoded back field by field; every truncation and a trailing byte fail.
 */
static void
test_connections_resp(void)
{
	static const uint8_t want[] = {
		0x00, 0x00,			/* error */
		0x00, 0x00, 0x00, 0x01,		/* count */
		0x00, 0x00, 0x00, 0x01,		/* slot */
		0x00, 0x00, 0x30, 0x39,		/* pid 12345 */
		0x01, 0x00,			/* Kafka, no TLS */
		0x00, 0x00, 0x01, 0x8c, 0x00, 0x00, 0x00, 0x07, /* opened_ms */
		0x00, 0x03, 'a', ':', '1',	/* peer */
		0x00, 0x02, 'r', 'k',		/* client_name */
		0x00, 0x00,			/* client_version "" */
	};
	struct conn_info ci = { 1, 12345, 1, 0, 0x18c00000007LL, "a:1", 3,
	    "rk", 2, "", 0 };
	struct connections_resp m = { 0, 1, &ci }, d;
	uint8_t buf[sizeof(want) + 1];
	struct arena a;
	struct wbuf wb;
	size_t n;

	wbuf_init(&wb);
	msg_encode_connections_resp(&wb, &m);
	CU_ASSERT_EQUAL(wb.err, 0);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(want));
	CU_ASSERT(memcmp(wb.buf, want, sizeof(want)) == 0);
	wbuf_free(&wb);
	arena_init(&a, 1 << 16);
	CU_ASSERT_EQUAL_FATAL(msg_decode_connections_resp(want, sizeof(want),
	    &a, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.count, 1);
	CU_ASSERT_EQUAL(d.conns[0].slot, 1);
	CU_ASSERT_EQUAL(d.conns[0].pid, 12345);
	CU_ASSERT_EQUAL(d.conns[0].protocol, 1);
	CU_ASSERT_EQUAL(d.conns[0].tls, 0);
	CU_ASSERT_EQUAL(d.conns[0].opened_ms, 0x18c00000007LL);
	CU_ASSERT(d.conns[0].peer_len == 3 &&
	    memcmp(d.conns[0].peer, "a:1", 3) == 0);
	CU_ASSERT(d.conns[0].client_name_len == 2 &&
	    memcmp(d.conns[0].client_name, "rk", 2) == 0);
	CU_ASSERT_EQUAL(d.conns[0].client_version_len, 0);
	for (n = 3; n < sizeof(want); n++) {
		memcpy(buf, want, n);
		arena_reset(&a);
		CU_ASSERT_EQUAL(msg_decode_connections_resp(buf, n, &a, &d),
		    -1);
	}
	memcpy(buf, want, sizeof(want));
	buf[sizeof(want)] = 0;
	CU_ASSERT_EQUAL(msg_decode_connections_resp(buf, sizeof(buf), &a,
	    &d), -1);
	/* A lone error. */
	buf[0] = 0;
	buf[1] = ERR_ACCESS_DENIED;
	CU_ASSERT_EQUAL(msg_decode_connections_resp(buf, 2, &a, &d), 0);
	CU_ASSERT_EQUAL(d.error, ERR_ACCESS_DENIED);
	arena_free(&a);
}

/* Version 3's FETCH, byte by byte where it differs from version 2's. */
static void
test_fetch_v3_bytes(void)
{
	struct fetch_part part = { "t", 1, 2, 9, 100 };
	struct fetch_req req = { 10, 1, 1000, 1, &part, FETCH_READ_COMMITTED };
	struct fetch_aborted ab = { 0x0102030405060708LL, 0x11 };
	struct fetch_result res = { 0, 1, 12, rec_b, 1, 10, 1, &ab };
	struct fetch_resp resp = { 0, 1, &res };
	static const uint8_t want_req[] = {
		0, 0, 0, 10,  0, 0, 0, 1,  0, 0, 3, 0xe8,  0, 0, 0, 1,
		0, 1, 't',  0, 0, 0, 2,  0, 0, 0, 0, 0, 0, 0, 9,  0, 0, 0, 100,
		1
	};
	static const uint8_t want_head[] = {
		0, 0,  0, 0, 0, 1,
		0, 0,  0, 0, 0, 0, 0, 0, 0, 1,  0, 0, 0, 0, 0, 0, 0, 12,
		0, 0, 0, 0, 0, 0, 0, 10,  0, 0, 0, 1,
		1, 2, 3, 4, 5, 6, 7, 8,  0, 0, 0, 0, 0, 0, 0, 0x11,
		0, 0, 0, 1
	};
	struct wbuf wb;

	wbuf_init(&wb);
	msg_encode_fetch_req_v3(&wb, &req);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(want_req));
	CU_ASSERT_EQUAL(memcmp(wb.buf, want_req, sizeof(want_req)), 0);
	wb.len = 0;
	msg_encode_fetch_resp_v3(&wb, &resp);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(want_head) + 1);
	CU_ASSERT_EQUAL(memcmp(wb.buf, want_head, sizeof(want_head)), 0);
	CU_ASSERT_EQUAL(wb.buf[sizeof(want_head)], rec_b[0]);
	wbuf_free(&wb);
}

TEST_SUITE("msg", suite_setup, suite_teardown,
	{ "CONNECTIONS response", test_connections_resp },
	{ "FETCH version 3 bytes", test_fetch_v3_bytes },
	{ "round_trip_all", test_round_trip_all },
	{ "every_truncation_fails", test_every_truncation_fails },
	{ "trailing_byte_fails", test_trailing_byte_fails },
	{ "arena_exhausted_fails", test_arena_exhausted_fails },
	{ "hand_produce_req", test_hand_produce_req },
	{ "hand_fetch_req", test_hand_fetch_req },
	{ "hand_encodings", test_hand_encodings },
	{ "hand_small_codecs", test_hand_small_codecs },
	{ "bad_counts_fail", test_bad_counts_fail },
	{ "count_min_sizes", test_count_min_sizes },
	{ "metadata_inner_count", test_metadata_inner_count },
	{ "record_lengths", test_record_lengths },
	{ "error_only_responses", test_error_only_responses },
	{ "strerror_and_names", test_strerror_and_names });
