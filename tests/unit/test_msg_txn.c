/*
 * proto/msg_txn.c: the native TRANSACTIONS answer round-trips field for
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

static struct txn_listing s_txns[] = {
	{ "tx", 2, 77, 3, 1, 60000, 1000, 1001, 2 },
};
static const struct transactions_resp s_resp = { ERR_NONE, 1, s_txns };

static void
test_round_trip(void)
{
	static const uint8_t want[] = {
		0, 0,					/* error */
		0, 0, 0, 1,				/* count */
		0, 2, 't', 'x',				/* id */
		0, 0, 0, 0, 0, 0, 0, 77,		/* producer id */
		0, 3,					/* epoch */
		1,					/* Ongoing */
		0, 0, 0xea, 0x60,			/* timeout 60000 */
		0, 0, 0, 0, 0, 0, 0x03, 0xe8,		/* start */
		0, 0, 0, 0, 0, 0, 0x03, 0xe9,		/* update */
		0, 0, 0, 2,				/* partitions */
	};
	struct transactions_resp m;
	struct wbuf wb;
	size_t i;

	wbuf_init(&wb);
	msg_encode_transactions_resp(&wb, &s_resp);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(want));
	CU_ASSERT(memcmp(wb.buf, want, sizeof(want)) == 0);
	CU_ASSERT_EQUAL_FATAL(msg_decode_transactions_resp(wb.buf, wb.len,
	    &arena, &m), 0);
	CU_ASSERT_EQUAL_FATAL(m.count, 1);
	CU_ASSERT(m.txns[0].id_len == 2 && memcmp(m.txns[0].id, "tx", 2) == 0);
	CU_ASSERT_EQUAL(m.txns[0].producer_id, 77);
	CU_ASSERT_EQUAL(m.txns[0].epoch, 3);
	CU_ASSERT_EQUAL(m.txns[0].state, 1);
	CU_ASSERT_EQUAL(m.txns[0].timeout_ms, 60000);
	CU_ASSERT_EQUAL(m.txns[0].start_ms, 1000);
	CU_ASSERT_EQUAL(m.txns[0].update_ms, 1001);
	CU_ASSERT_EQUAL(m.txns[0].partitions, 2);
	for (i = 0; i < wb.len; i++)
		CU_ASSERT_EQUAL(msg_decode_transactions_resp(wb.buf, i, &arena,
		    &m), -1);
	wbuf_i8(&wb, 0);
	CU_ASSERT_EQUAL(msg_decode_transactions_resp(wb.buf, wb.len, &arena,
	    &m), -1);
	wbuf_free(&wb);
}

static void
test_error_only(void)
{
	static const uint8_t denied[] = { 0, ERR_ACCESS_DENIED };
	struct transactions_resp m;

	CU_ASSERT_EQUAL(msg_decode_transactions_resp(denied, sizeof(denied),
	    &arena, &m), 0);
	CU_ASSERT_EQUAL(m.error, ERR_ACCESS_DENIED);
	CU_ASSERT_EQUAL(m.count, 0);
}

TEST_SUITE("msg_txn", suite_setup, suite_teardown,
    { "TRANSACTIONS answer: round trip, bytes, truncations",
      test_round_trip },
    { "an error-only answer", test_error_only });
