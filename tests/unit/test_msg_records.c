/*
 * proto/msg_records.c: the native DELETE_RECORDS and OFFSET_DELETE
 * messages round-trip field for field, match hand-written bytes, and
 * refuse every truncation, a trailing byte and a negative count; a lone
 * non-zero error decodes as an error-only answer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"

static struct arena arena;

static int
suite_setup(void)
{
	arena_init(&arena, 1 << 20);
	return 0;
}

static int
suite_teardown(void)
{
	arena_free(&arena);
	return 0;
}

static const struct delete_records_req s_dr_req = { "orders", 6, 2, 19402,
    5000 };
static const struct delete_records_resp s_dr_resp = { ERR_NONE, 19402 };
static struct offset_delete_part s_parts[] = { { 0 }, { 7 } };
static const struct offset_delete_req s_od_req = { "billing", 7, "orders", 6,
    2, s_parts };
static struct offset_delete_result s_res[] = { { 0, ERR_NONE },
    { 7, ERR_GROUP_SUBSCRIBED } };
static const struct offset_delete_resp s_od_resp = { ERR_NONE, 2, s_res };

static void
test_round_trips(void)
{
	struct delete_records_req a;
	struct delete_records_resp b;
	struct offset_delete_req c;
	struct offset_delete_resp d;
	struct wbuf wb;

	wbuf_init(&wb);
	msg_encode_delete_records_req(&wb, &s_dr_req);
	CU_ASSERT_EQUAL_FATAL(msg_decode_delete_records_req(wb.buf, wb.len,
	    &a), 0);
	CU_ASSERT(a.topic_len == 6 && memcmp(a.topic, "orders", 6) == 0);
	CU_ASSERT_EQUAL(a.partition, 2);
	CU_ASSERT_EQUAL(a.offset, 19402);
	CU_ASSERT_EQUAL(a.timeout_ms, 5000);
	wbuf_reset(&wb);
	msg_encode_delete_records_resp(&wb, &s_dr_resp);
	CU_ASSERT_EQUAL_FATAL(msg_decode_delete_records_resp(wb.buf, wb.len,
	    &b), 0);
	CU_ASSERT_EQUAL(b.error, ERR_NONE);
	CU_ASSERT_EQUAL(b.log_start, 19402);
	wbuf_reset(&wb);
	msg_encode_offset_delete_req(&wb, &s_od_req);
	CU_ASSERT_EQUAL_FATAL(msg_decode_offset_delete_req(wb.buf, wb.len,
	    &arena, &c), 0);
	CU_ASSERT(c.group_len == 7 && memcmp(c.group, "billing", 7) == 0);
	CU_ASSERT(c.topic_len == 6 && memcmp(c.topic, "orders", 6) == 0);
	CU_ASSERT_EQUAL_FATAL(c.count, 2);
	CU_ASSERT_EQUAL(c.parts[0].partition, 0);
	CU_ASSERT_EQUAL(c.parts[1].partition, 7);
	wbuf_reset(&wb);
	msg_encode_offset_delete_resp(&wb, &s_od_resp);
	CU_ASSERT_EQUAL_FATAL(msg_decode_offset_delete_resp(wb.buf, wb.len,
	    &arena, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.count, 2);
	CU_ASSERT_EQUAL(d.results[1].partition, 7);
	CU_ASSERT_EQUAL(d.results[1].error, ERR_GROUP_SUBSCRIBED);
	wbuf_free(&wb);
}

static void
test_hand_bytes(void)
{
	static const uint8_t dr[] = { 0, 1, 't', 0, 0, 0, 3,
	    0, 0, 0, 0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t od[] = { 0, 1, 'g', 0, 1, 't', 0, 0, 0, 1,
	    0, 0, 0, 4 };
	static const uint8_t odr[] = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 0, 31 };
	static const uint8_t lone[] = { 0, ERR_OFFSET_OUT_OF_RANGE };
	struct delete_records_req q = { "t", 1, 3, 256, -1 };
	struct offset_delete_part part = { 4 };
	struct offset_delete_req oq = { "g", 1, "t", 1, 1, &part };
	struct offset_delete_result res = { 4, ERR_GROUP_SUBSCRIBED };
	struct offset_delete_resp oresp = { ERR_NONE, 1, &res };
	struct delete_records_resp b;
	struct wbuf wb;

	wbuf_init(&wb);
	msg_encode_delete_records_req(&wb, &q);
	CU_ASSERT(wb.len == sizeof(dr) && memcmp(wb.buf, dr, wb.len) == 0);
	wbuf_reset(&wb);
	msg_encode_offset_delete_req(&wb, &oq);
	CU_ASSERT(wb.len == sizeof(od) && memcmp(wb.buf, od, wb.len) == 0);
	wbuf_reset(&wb);
	msg_encode_offset_delete_resp(&wb, &oresp);
	CU_ASSERT(wb.len == sizeof(odr) && memcmp(wb.buf, odr, wb.len) == 0);
	wbuf_free(&wb);
	CU_ASSERT_EQUAL(msg_decode_delete_records_resp(lone, sizeof(lone),
	    &b), 0);
	CU_ASSERT_EQUAL(b.error, ERR_OFFSET_OUT_OF_RANGE);
}

static void
test_truncations(void)
{
	static const uint8_t negative[] = { 0, 1, 'g', 0, 1, 't', 0xff, 0xff,
	    0xff, 0xff };
	struct delete_records_req a;
	struct offset_delete_req c;
	struct wbuf wb;
	size_t i;

	wbuf_init(&wb);
	msg_encode_delete_records_req(&wb, &s_dr_req);
	for (i = 0; i < wb.len; i++)
		CU_ASSERT_EQUAL(msg_decode_delete_records_req(wb.buf, i, &a),
		    -1);
	wbuf_i8(&wb, 0);
	CU_ASSERT_EQUAL(msg_decode_delete_records_req(wb.buf, wb.len, &a), -1);
	wbuf_reset(&wb);
	msg_encode_offset_delete_req(&wb, &s_od_req);
	for (i = 0; i < wb.len; i++)
		CU_ASSERT_EQUAL(msg_decode_offset_delete_req(wb.buf, i, &arena,
		    &c), -1);
	wbuf_i8(&wb, 0);
	CU_ASSERT_EQUAL(msg_decode_offset_delete_req(wb.buf, wb.len, &arena,
	    &c), -1);
	CU_ASSERT_EQUAL(msg_decode_offset_delete_req(negative,
	    sizeof(negative), &arena, &c), -1);
	wbuf_free(&wb);
	CU_ASSERT_STRING_EQUAL(api_name(API_DELETE_RECORDS), "DELETE_RECORDS");
	CU_ASSERT_STRING_EQUAL(api_name(API_OFFSET_DELETE), "OFFSET_DELETE");
	CU_ASSERT_STRING_EQUAL(flume_strerror(ERR_GROUP_SUBSCRIBED),
	    "the group's members consume the topic");
}

TEST_SUITE("msg_records", suite_setup, suite_teardown,
    { "round trips", test_round_trips },
    { "hand-written bytes, a lone error", test_hand_bytes },
    { "truncations, a trailing byte, a negative count, names",
	test_truncations });
