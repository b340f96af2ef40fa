/*
 * The operations' shared pieces, called directly (no fork): topic and
 * partition lookup with auto-create and incarnations (worker/op/part.h),
 * access verdicts (worker/op/access.h), and the two faces' error tables.
 */
#include <stdatomic.h>
#include <string.h>

#include "proto/kafka/kapi.h"
#include "proto/msg.h"
#include "shm/topics.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/errcode.h"
#include "worker/kafka/kafka.h"
#include "worker/op/access.h"
#include "worker/op/part.h"

static struct fixture_op f;

static void
test_resolve(void)
{
	struct shm_partition *p = NULL;
	uint32_t inc;
	int idx = -1;

	fixture_op_start(&f, 3);
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "t", 1, 0, &idx), OP_OK);
	CU_ASSERT_EQUAL(idx, 0);
	CU_ASSERT_EQUAL(op_part_resolve(&f.w, "t", 1, 2, 0, &p), OP_OK);
	CU_ASSERT_PTR_EQUAL(p, shm_partition(f.w.shm, 0, 2));
	CU_ASSERT_EQUAL(op_part_resolve(&f.w, "t", 1, 3, 0, &p), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_part_resolve(&f.w, "t", 1, -1, 0, &p), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "u", 1, 0, &idx), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "a/b", 3, 1, &idx),
	    OP_BAD_TOPIC_NAME);
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "", 0, 1, &idx),
	    OP_BAD_TOPIC_NAME);
	/* The offsets topic is never created by naming it. */
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "__consumer_offsets", 18, 1,
	    &idx), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "__consumer_offsets", 18), -1);
	/* Incarnations: unchanged until the topic is deleted. */
	CU_ASSERT_EQUAL_FATAL(op_part_resolve(&f.w, "t", 1, 1, 0, &p), OP_OK);
	CU_ASSERT_EQUAL(op_part_incarnation(&f.w, p, &inc), OP_OK);
	CU_ASSERT_FALSE(op_part_gone(p, inc));
	atomic_fetch_add(&p->incarnation, 1);
	CU_ASSERT_TRUE(op_part_gone(p, inc));
	atomic_store(&p->dead, 1);
	CU_ASSERT_EQUAL(op_part_incarnation(&f.w, p, &inc), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_part_end(p), 0);
	fixture_op_done(&f);
}

static void
test_auto_create(void)
{
	int idx = -1;

	fixture_op_start(&f, 1);
	f.conf.auto_create_topics = 0;
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "new", 3, 1, &idx), OP_NO_TOPIC);
	f.conf.auto_create_topics = 1;
	f.conf.partitions = 4;
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "new", 3, 1, &idx), OP_OK);
	CU_ASSERT_EQUAL(idx, 1);
	CU_ASSERT_EQUAL(f.w.shm->topics[1].partitions, 4);
	/* The writer is woken now, to make its files. */
	CU_ASSERT_EQUAL(f.w.wake_writer, 2);
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "new", 3, 1, &idx), OP_OK);
	CU_ASSERT_EQUAL(idx, 1);
	f.conf.partitions = (int32_t)f.conf.max_partitions + 1;
	CU_ASSERT_EQUAL(op_topic_resolve(&f.w, "big", 3, 1, &idx),
	    OP_BAD_PARTITIONS);
	fixture_op_done(&f);
}

static void
test_access_open(void)
{
	fixture_op_start(&f, 1);
	/* Without an auth_file, everything is allowed. */
	CU_ASSERT_EQUAL(op_access_gate(&f.x, AUTH_ADMIN, 1), OP_OK);
	CU_ASSERT_EQUAL(op_access_topic(&f.x, AUTH_PRODUCE, "t", 1), OP_OK);
	CU_ASSERT_EQUAL(op_access_group(&f.x, AUTH_GROUP_READ, "g", 1), OP_OK);
	CU_ASSERT_EQUAL(op_access_group_topic(&f.x, "g", 1, NULL, 0), OP_OK);
	CU_ASSERT_TRUE(op_access_topic_may(&f.x, AUTH_CONSUME, "t", 1));
	CU_ASSERT_EQUAL(f.auth.denials, 0);
	fixture_op_done(&f);
}

/* Every operation error has its own answer in both faces. */
static void
test_error_tables(void)
{
	int e;

	for (e = OP_OK + 1; e < OP_ERR_MAX; e++) {
		CU_ASSERT_NOT_EQUAL(errcode((enum op_err)e), ERR_NONE);
		CU_ASSERT_NOT_EQUAL(kafka_op_error((enum op_err)e), KERR_NONE);
		if (e != OP_INTERNAL) {
			CU_ASSERT_NOT_EQUAL(errcode((enum op_err)e),
			    ERR_UNKNOWN);
			CU_ASSERT_NOT_EQUAL(kafka_op_error((enum op_err)e),
			    KERR_UNKNOWN_SERVER_ERROR);
		}
		CU_ASSERT_STRING_NOT_EQUAL(op_strerror((enum op_err)e),
		    "unknown error");
	}
	CU_ASSERT_EQUAL(errcode(OP_OK), ERR_NONE);
	CU_ASSERT_EQUAL(kafka_op_error(OP_OK), KERR_NONE);
	/* Denials name their resource in Kafka, not in the native protocol. */
	CU_ASSERT_EQUAL(kafka_op_error(OP_DENIED_TOPIC),
	    KERR_TOPIC_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(kafka_op_error(OP_DENIED_GROUP),
	    KERR_GROUP_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(kafka_op_error(OP_DENIED_CLUSTER),
	    KERR_CLUSTER_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(errcode(OP_DENIED_GROUP), ERR_ACCESS_DENIED);
	CU_ASSERT_EQUAL(errcode(OP_NO_MEMORY), ERR_RESOURCE_LIMIT);
	CU_ASSERT_EQUAL(errcode(OP_ERR_MAX), ERR_UNKNOWN);
	CU_ASSERT_EQUAL(kafka_op_error(OP_ERR_MAX), KERR_UNKNOWN_SERVER_ERROR);
}

TEST_SUITE("op_part", NULL, NULL,
    { "topic and partition lookup", test_resolve },
    { "auto-create by name", test_auto_create },
    { "access without an auth_file", test_access_open },
    { "error tables of both faces", test_error_tables });
