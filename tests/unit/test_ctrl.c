/*
 * Transaction markers (proto/ctrl.c): Kafka's control batch layout
 * (DefaultRecordBatch with the control bit, EndTransactionMarker's key
 * and value), checked byte by byte and through the batch validator.
 */
#include <string.h>

#include "proto/batch.h"
#include "proto/ctrl.h"
#include "tests/harness.h"

/* The record after the header: COMMIT, coordinator epoch 7. */
static const uint8_t commit_record[] = {
	0x20,			/* length 16 */
	0x00, 0x00, 0x00,	/* attributes, timestampDelta, offsetDelta */
	0x08, 0x00, 0x00, 0x00, 0x01,		/* key: version 0, type 1 */
	0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,	/* value: version 0, epoch 7 */
	0x00,			/* no headers */
};

static void
test_encode(void)
{
	struct ctrl_marker m = { .producer_id = 4242, .producer_epoch = 3,
	    .type = CTRL_COMMIT, .coordinator_epoch = 7,
	    .timestamp = 1700000000000 };
	uint8_t b[CTRL_MARKER_SIZE];
	struct batch_header h;

	ctrl_marker_encode(b, &m);
	CU_ASSERT_EQUAL(batch_validate(b, sizeof(b), &h), BATCH_OK);
	CU_ASSERT_EQUAL(h.attributes, 0x30);
	CU_ASSERT_EQUAL(h.producer_id, 4242);
	CU_ASSERT_EQUAL(h.producer_epoch, 3);
	CU_ASSERT_EQUAL(h.base_sequence, -1);
	CU_ASSERT_EQUAL(h.records_count, 1);
	CU_ASSERT_EQUAL(h.last_offset_delta, 0);
	CU_ASSERT_EQUAL(h.first_timestamp, 1700000000000);
	CU_ASSERT_EQUAL(h.max_timestamp, 1700000000000);
	CU_ASSERT_EQUAL(batch_total_size(&h), CTRL_MARKER_SIZE);
	CU_ASSERT_EQUAL(sizeof(commit_record), CTRL_MARKER_SIZE - BATCH_HEADER_SIZE);
	CU_ASSERT_EQUAL(memcmp(b + BATCH_HEADER_SIZE, commit_record,
	    sizeof(commit_record)), 0);
	CU_ASSERT_EQUAL(ctrl_is_control(b), 1);
	CU_ASSERT_EQUAL(ctrl_is_transactional(b), 1);
}

static void
test_parse(void)
{
	struct ctrl_marker m = { .producer_id = 9, .producer_epoch = 0,
	    .type = CTRL_ABORT, .coordinator_epoch = 0, .timestamp = 5 }, d;
	uint8_t b[CTRL_MARKER_SIZE];
	struct batch_builder bb;
	const uint8_t *out;
	size_t outlen;

	ctrl_marker_encode(b, &m);
	CU_ASSERT_EQUAL(ctrl_marker_parse(b, sizeof(b), &d), 1);
	CU_ASSERT_EQUAL(d.type, CTRL_ABORT);
	CU_ASSERT_EQUAL(d.producer_id, 9);
	CU_ASSERT_EQUAL(d.producer_epoch, 0);
	CU_ASSERT_EQUAL(d.coordinator_epoch, 0);
	CU_ASSERT_EQUAL(d.timestamp, 5);

	/* An unknown control type (Kafka has others: leader change). */
	b[BATCH_HEADER_SIZE + 8] = 2;
	CU_ASSERT_EQUAL(ctrl_marker_parse(b, sizeof(b), &d), -1);

	/* A data batch is not a control batch. */
	batch_builder_init(&bb);
	CU_ASSERT_EQUAL(batch_builder_add(&bb, 1, "k", 1, "v", 1, NULL, 0), 0);
	CU_ASSERT_EQUAL(batch_builder_close(&bb, &out, &outlen), 0);
	CU_ASSERT_EQUAL(ctrl_marker_parse(out, outlen, &d), 0);
	CU_ASSERT_EQUAL(ctrl_is_control(out), 0);
	CU_ASSERT_EQUAL(ctrl_is_transactional(out), 0);
	CU_ASSERT_EQUAL(ctrl_marker_parse(out, 20, &d), -1);
	batch_builder_free(&bb);
}

TEST_SUITE("ctrl", NULL, NULL,
    { "marker batch bytes", test_encode },
    { "marker parse", test_parse });
