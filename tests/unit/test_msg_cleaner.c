/*
 * proto/msg_cleaner.c: the native CLEANER answer round-trips field for
 * field, matches hand-written bytes, and refuses every truncation and a
 * trailing byte; a lone non-zero error decodes as an error-only answer.
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

static struct cleaner_part s_parts[] = {
	{ "kv", 2, 0, 250000, 1764772800123LL, 4096, 100 },
	{ "kv", 2, 1, 0, 0, 0, 0 },
};
static const struct cleaner_resp s_resp = { ERR_NONE, 3, 1000, 200, 17, 2,
    s_parts };

static void
test_round_trip(void)
{
	static const uint8_t want[] = {
		0, 0,					/* error */
		0, 0, 0, 0, 0, 0, 0, 3,			/* runs */
		0, 0, 0, 0, 0, 0, 0x03, 0xe8,		/* bytes_read */
		0, 0, 0, 0, 0, 0, 0, 200,		/* bytes_written */
		0, 0, 0, 0, 0, 0, 0, 17,		/* records_removed */
		0, 0, 0, 2,				/* count */
		0, 2, 'k', 'v', 0, 0, 0, 0,		/* kv, 0 */
		0, 0x03, 0xd0, 0x90,			/* 250000 ppm */
		0, 0, 0x01, 0x9a, 0xe4, 0xa7, 0xe6, 0x7b, /* last clean */
		0, 0, 0, 0, 0, 0, 0x10, 0,		/* saved */
		0, 0, 0, 0, 0, 0, 0, 100,		/* log_bytes */
		0, 2, 'k', 'v', 0, 0, 0, 1,
		0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct cleaner_resp m;
	struct wbuf wb;
	size_t i;

	wbuf_init(&wb);
	msg_encode_cleaner_resp(&wb, &s_resp);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(want));
	CU_ASSERT(memcmp(wb.buf, want, sizeof(want)) == 0);
	CU_ASSERT_EQUAL_FATAL(msg_decode_cleaner_resp(wb.buf, wb.len, &arena,
	    &m), 0);
	CU_ASSERT_EQUAL(m.runs, 3);
	CU_ASSERT_EQUAL(m.bytes_read, 1000);
	CU_ASSERT_EQUAL(m.bytes_written, 200);
	CU_ASSERT_EQUAL(m.records_removed, 17);
	CU_ASSERT_EQUAL_FATAL(m.count, 2);
	CU_ASSERT(m.parts[0].topic_len == 2 &&
	    memcmp(m.parts[0].topic, "kv", 2) == 0);
	CU_ASSERT_EQUAL(m.parts[0].dirty_ppm, 250000);
	CU_ASSERT_EQUAL(m.parts[0].last_clean_ms, 1764772800123LL);
	CU_ASSERT_EQUAL(m.parts[0].saved, 4096);
	CU_ASSERT_EQUAL(m.parts[0].log_bytes, 100);
	CU_ASSERT_EQUAL(m.parts[1].partition, 1);
	/* Every truncation and a trailing byte are refused. */
	for (i = 0; i < wb.len; i++)
		CU_ASSERT_EQUAL(msg_decode_cleaner_resp(wb.buf, i, &arena,
		    &m), -1);
	wbuf_i8(&wb, 0);
	CU_ASSERT_EQUAL(msg_decode_cleaner_resp(wb.buf, wb.len, &arena, &m),
	    -1);
	wbuf_free(&wb);
}

static void
test_error_only(void)
{
	static const uint8_t denied[] = { 0, ERR_ACCESS_DENIED };
	struct cleaner_resp m;

	CU_ASSERT_EQUAL(msg_decode_cleaner_resp(denied, sizeof(denied),
	    &arena, &m), 0);
	CU_ASSERT_EQUAL(m.error, ERR_ACCESS_DENIED);
	CU_ASSERT_EQUAL(m.count, 0);
}

TEST_SUITE("msg_cleaner", suite_setup, suite_teardown,
    { "CLEANER answer: round trip, bytes, truncations", test_round_trip },
    { "a lone error is a whole answer", test_error_only });
