/*
 * The native CONFIG_DESCRIBE and CONFIG_ALTER codecs (proto/msg_tconf.h):
 * every field round trip, the exact bytes of a request, a lone error
 * answer, and every proper prefix refused.
 */
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_tconf.h"
#include "proto/wire.h"
#include "tests/harness.h"

static void
test_describe(void)
{
	static const uint8_t want[] = { 0, 0, 3, 'a', 'b', 'c' };
	struct config_describe_req q = { CONFIG_KIND_TOPIC, "abc", 3 }, q2;
	struct config_entry e[2] = {
		{ "retention.ms", 12, "1000", 4, 1 },
		{ "segment.bytes", 13, "1073741824", 10, 5 },
	};
	struct config_describe_resp s = { ERR_NONE, "", 0, 2, e }, s2;
	struct arena a;
	struct wbuf wb;
	size_t i;

	wbuf_init(&wb);
	msg_encode_config_describe_req(&wb, &q);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(wb.buf, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(msg_decode_config_describe_req(wb.buf, wb.len, &q2), 0);
	CU_ASSERT_EQUAL(q2.kind, CONFIG_KIND_TOPIC);
	CU_ASSERT_EQUAL(q2.name_len, 3);
	for (i = 0; i < wb.len; i++)
		CU_ASSERT_EQUAL(msg_decode_config_describe_req(wb.buf, i, &q2),
		    -1);
	wbuf_free(&wb);

	wbuf_init(&wb);
	arena_init(&a, 1 << 16);
	msg_encode_config_describe_resp(&wb, &s);
	CU_ASSERT_EQUAL_FATAL(msg_decode_config_describe_resp(wb.buf, wb.len,
	    &a, &s2), 0);
	CU_ASSERT_EQUAL(s2.error, ERR_NONE);
	CU_ASSERT_EQUAL_FATAL(s2.count, 2);
	CU_ASSERT_EQUAL(s2.entries[1].key_len, 13);
	CU_ASSERT_EQUAL(memcmp(s2.entries[1].value, "1073741824", 10), 0);
	CU_ASSERT_EQUAL(s2.entries[0].source, 1);
	CU_ASSERT_EQUAL(s2.entries[1].source, 5);
	for (i = 0; i < wb.len; i++) {
		arena_reset(&a);
		CU_ASSERT_EQUAL(msg_decode_config_describe_resp(wb.buf, i, &a,
		    &s2), -1);
	}
	/* A request the broker could not decode: [error i16] alone. */
	{
		static const uint8_t lone[] = { 0, ERR_INVALID_REQUEST };

		CU_ASSERT_EQUAL(msg_decode_config_describe_resp(lone, 2, &a,
		    &s2), 0);
		CU_ASSERT_EQUAL(s2.error, ERR_INVALID_REQUEST);
		CU_ASSERT_EQUAL(s2.count, 0);
	}
	arena_free(&a);
	wbuf_free(&wb);
}

static void
test_alter(void)
{
	struct config_edit e[2] = {
		{ 0, "retention.ms", 12, "1000", 4 },
		{ 1, "segment.ms", 10, "", 0 },
	};
	struct config_alter_req q = { "t", 1, 1, 2, e }, q2;
	struct config_alter_resp s = { ERR_INVALID_CONFIG,
	    "unknown topic setting 'x'", 25 }, s2;
	struct arena a;
	struct wbuf wb;
	size_t i;

	wbuf_init(&wb);
	arena_init(&a, 1 << 16);
	msg_encode_config_alter_req(&wb, &q);
	CU_ASSERT_EQUAL_FATAL(msg_decode_config_alter_req(wb.buf, wb.len, &a,
	    &q2), 0);
	CU_ASSERT_EQUAL(q2.validate_only, 1);
	CU_ASSERT_EQUAL_FATAL(q2.count, 2);
	CU_ASSERT_EQUAL(q2.edits[0].op, 0);
	CU_ASSERT_EQUAL(memcmp(q2.edits[0].value, "1000", 4), 0);
	CU_ASSERT_EQUAL(q2.edits[1].op, 1);
	CU_ASSERT_EQUAL(q2.edits[1].key_len, 10);
	for (i = 0; i < wb.len; i++) {
		arena_reset(&a);
		CU_ASSERT_EQUAL(msg_decode_config_alter_req(wb.buf, i, &a, &q2),
		    -1);
	}
	wbuf_free(&wb);
	wbuf_init(&wb);
	msg_encode_config_alter_resp(&wb, &s);
	CU_ASSERT_EQUAL_FATAL(msg_decode_config_alter_resp(wb.buf, wb.len,
	    &s2), 0);
	CU_ASSERT_EQUAL(s2.error, ERR_INVALID_CONFIG);
	CU_ASSERT_EQUAL(s2.message_len, 25);
	CU_ASSERT_EQUAL(memcmp(s2.message, "unknown topic setting 'x'", 25), 0);
	arena_free(&a);
	wbuf_free(&wb);
}

TEST_SUITE("msg_tconf", NULL, NULL,
    { "CONFIG_DESCRIBE request and answer", test_describe },
    { "CONFIG_ALTER request and answer", test_alter });
