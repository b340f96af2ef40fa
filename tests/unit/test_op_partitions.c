/*
 * Growing a topic (worker/op/partitions.h), called directly: the test
 * plays the writer (shm_topic_grow_publish).  The wait, validate_only,
 * the refusals and their log lines, a deadline, a delete meanwhile.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "shm/topics.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/op/partitions.h"

static struct fixture_op f;

/* op_partitions_grow of name to count, waiting at most wait_ms (0: not). */
static enum op_status
grow(const char *name, int32_t count, int validate, int64_t wait_ms,
    struct op_partitions_grow *a)
{
	memset(a, 0, sizeof(*a));
	a->count = count;
	a->validate_only = validate;
	a->deadline = wait_ms > 0 ? f.w.now + wait_ms : 0;
	return op_partitions_grow(&f.x, name, strlen(name), a);
}

/*
 * Asked, the answer waits until the writer publishes; then the new
 * partitions are there, empty.  validate_only changes nothing.
 */
static void
test_grow_waits_for_writer(void)
{
	struct op_partitions_grow a;

	fixture_op_start(&f, 3);
	CU_ASSERT_EQUAL(grow("t", 5, 1, 1000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(a.current, 3);
	CU_ASSERT_EQUAL(atomic_load(&f.w.shm->topics[0].grow_to), 0);
	CU_ASSERT_EQUAL(shm_topic_capacity(&f.w.shm->topics[0]), 3);

	CU_ASSERT_EQUAL(grow("t", 5, 0, 1000, &a), OP_WAIT);
	CU_ASSERT_EQUAL(a.current, 3);
	CU_ASSERT_EQUAL(atomic_load(&f.w.shm->topics[0].grow_to), 5);
	CU_ASSERT_EQUAL(op_partitions_grow_poll(&f.x, &a), OP_WAIT);
	CU_ASSERT_PTR_NULL(shm_partition(f.w.shm, 0, 3));
	shm_topic_grow_publish(f.w.shm, 0, 5);
	CU_ASSERT_EQUAL(op_partitions_grow_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_PTR_NOT_NULL(shm_partition(f.w.shm, 0, 4));
	CU_ASSERT_EQUAL(shm_partition(f.w.shm, 0, 4)->next_offset, 0);

	/* Without a deadline: answered once asked. */
	CU_ASSERT_EQUAL(grow("t", 6, 0, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(atomic_load(&f.w.shm->topics[0].grow_to), 6);
	fixture_op_done(&f);
}

/* Each refusal: its error, the current count, nothing asked. */
static void
test_grow_refused(void)
{
	struct op_partitions_grow a;

	fixture_op_start(&f, 3);
	CU_ASSERT_EQUAL(grow("t", 3, 0, 1000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_PARTITIONS);
	CU_ASSERT_EQUAL(a.current, 3);
	CU_ASSERT_EQUAL(grow("t", 2, 1, 1000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_PARTITIONS);
	CU_ASSERT_EQUAL(grow("nope", 4, 0, 1000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(grow("bad/name", 4, 0, 1000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_TOPIC_NAME);
	CU_ASSERT_EQUAL(grow("__consumer_offsets", 60, 0, 1000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_RESERVED_TOPIC);
	/* Past max_partitions (256), then past the region's 32 slots. */
	CU_ASSERT_EQUAL(grow("t", 300, 0, 1000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_ROOM);
	CU_ASSERT_EQUAL(grow("t", 40, 0, 1000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_ROOM);
	CU_ASSERT_EQUAL(atomic_load(&f.w.shm->topics[0].grow_to), 0);
	CU_ASSERT_EQUAL(f.w.shm->topics[0].partitions, 3);
	CU_ASSERT_EQUAL(shm_topic_capacity(&f.w.shm->topics[0]), 3);

	/* A grow asked and not yet published counts as the current one. */
	CU_ASSERT_EQUAL(grow("t", 5, 0, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(grow("t", 5, 0, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_PARTITIONS);
	CU_ASSERT_EQUAL(a.current, 5);
	fixture_op_done(&f);
}

/* The deadline passes: OP_TIMEOUT, the grow goes on; a delete: OP_NO_TOPIC. */
static void
test_grow_timeout_and_delete(void)
{
	struct op_partitions_grow a;
	int ti;

	fixture_op_start(&f, 1);
	CU_ASSERT_EQUAL(grow("t", 2, 0, 100, &a), OP_WAIT);
	f.w.now += 100;
	CU_ASSERT_EQUAL(op_partitions_grow_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_TIMEOUT);
	CU_ASSERT_EQUAL(atomic_load(&f.w.shm->topics[0].grow_to), 2);

	CU_ASSERT_EQUAL(grow("t", 3, 0, 1000, &a), OP_WAIT);
	ti = shm_topic_delete_begin(f.w.shm, "t", 1);
	CU_ASSERT_EQUAL_FATAL(ti, 0);
	CU_ASSERT_EQUAL(op_partitions_grow_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_TOPIC);
	fixture_op_done(&f);
}

TEST_SUITE("op_partitions", NULL, NULL,
	{ "grow waits for the writer", test_grow_waits_for_writer },
	{ "refusals", test_grow_refused },
	{ "timeout, delete meanwhile", test_grow_timeout_and_delete });
