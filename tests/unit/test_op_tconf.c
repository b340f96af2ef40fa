/*
 * The topic settings operations (worker/op/tconf.h), called directly: an
 * alteration is validated whole, published by generation and waits for
 * the writer's save (the test plays the writer); describe's values and
 * sources; CreateTopics' checks; a produce's view of a topic.
 */
#include <stdatomic.h>
#include <string.h>

#include "proto/tconf.h"
#include "shm/tconf.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/op/tconf.h"

static struct fixture_op f;

static struct op_tconf_edit
edit(const char *key, const char *value, int kind)
{
	struct op_tconf_edit e;

	e.name = key;
	e.name_len = strlen(key);
	e.value = value;
	e.value_len = value != NULL ? strlen(value) : 0;
	e.kind = kind;
	return e;
}

/* Alter "t" with n edits (replace or not), the writer not yet saving. */
static enum op_status
alter(const struct op_tconf_edit *e, int n, int replace, int validate,
    struct op_tconf_alter *a)
{
	memset(a, 0, sizeof(*a));
	a->edits = e;
	a->n = n;
	a->replace = replace;
	a->validate_only = validate;
	a->deadline = f.w.now + 1000;
	return op_tconf_alter(&f.x, "t", 1, a);
}

/* The published dynamic set of "t" and its generation. */
static uint32_t
published(struct tconf *t)
{
	uint32_t gen;

	(void)shm_tconf_read(f.w.shm, 0, f.w.shm->topics[0].id, t, &gen);
	return gen;
}

static void
test_alter_waits_for_save(void)
{
	struct op_tconf_edit e[3];
	struct op_tconf_alter a;
	struct tconf t;

	fixture_op_start(&f, 1);
	e[0] = edit("retention.ms", "1000", OP_TCONF_SET);
	e[1] = edit("cleanup.policy", "compact", OP_TCONF_SET);
	CU_ASSERT_EQUAL(alter(e, 2, 1, 0, &a), OP_WAIT);
	CU_ASSERT_EQUAL(a.gen, 1);
	CU_ASSERT_EQUAL(published(&t), 1);
	CU_ASSERT_EQUAL(t.set, (1u << TC_RETENTION_MS) |
	    (1u << TC_CLEANUP_POLICY));
	CU_ASSERT_EQUAL(t.v[TC_RETENTION_MS], 1000);
	CU_ASSERT_EQUAL(t.v[TC_CLEANUP_POLICY], TCONF_CLEANUP_COMPACT);
	CU_ASSERT_EQUAL(op_tconf_alter_poll(&f.x, &a), OP_WAIT);
	/* The writer saved it. */
	shm_tconf_saved(f.w.shm, 0, 1);
	CU_ASSERT_EQUAL(op_tconf_alter_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);

	/* Incremental: APPEND to the list, DELETE a key, keep the rest. */
	e[0] = edit("cleanup.policy", "delete", OP_TCONF_APPEND);
	e[1] = edit("retention.ms", NULL, OP_TCONF_DELETE);
	e[2] = edit("segment.ms", "60000", OP_TCONF_SET);
	CU_ASSERT_EQUAL(alter(e, 3, 0, 0, &a), OP_WAIT);
	CU_ASSERT_EQUAL(published(&t), 2);
	CU_ASSERT_EQUAL(t.set, (1u << TC_CLEANUP_POLICY) |
	    (1u << TC_SEGMENT_MS));
	CU_ASSERT_EQUAL(t.v[TC_CLEANUP_POLICY], TCONF_CLEANUP_COMPACT |
	    TCONF_CLEANUP_DELETE);
	/* Not saved by the deadline: in force, the answer says so. */
	f.w.now += 1000;
	CU_ASSERT_EQUAL(op_tconf_alter_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_TIMEOUT);
	CU_ASSERT_STRING_EQUAL(a.why, "the settings are in force; saving "
	    "them to disk is still under way");

	/* Replace: the set becomes exactly the edits. */
	e[0] = edit("max.message.bytes", "5000", OP_TCONF_SET);
	CU_ASSERT_EQUAL(alter(e, 1, 1, 0, &a), OP_WAIT);
	CU_ASSERT_EQUAL(published(&t), 3);
	CU_ASSERT_EQUAL(t.set, 1u << TC_MAX_MESSAGE_BYTES);
	fixture_op_done(&f);
}

static void
test_alter_bad_changes_nothing(void)
{
	struct op_tconf_edit e[2];
	struct op_tconf_alter a;
	struct tconf t;

	fixture_op_start(&f, 1);
	e[0] = edit("retention.ms", "1000", OP_TCONF_SET);
	e[1] = edit("segment.bytes", "12", OP_TCONF_SET);
	CU_ASSERT_EQUAL(alter(e, 2, 0, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_CONFIG);
	CU_ASSERT_STRING_EQUAL(a.why, "invalid value '12' for segment.bytes: "
	    "expected an integer from 4096 to 2147483647");
	CU_ASSERT_EQUAL(published(&t), 0);
	e[1] = edit("no.such.key", "1", OP_TCONF_SET);
	CU_ASSERT_EQUAL(alter(e, 2, 1, 0, &a), OP_DONE);
	CU_ASSERT_STRING_EQUAL(a.why, "unknown topic setting 'no.such.key'");
	e[1] = edit("retention.ms", "1", 7);
	CU_ASSERT_EQUAL(alter(e, 2, 0, 0, &a), OP_DONE);
	CU_ASSERT_STRING_EQUAL(a.why, "retention.ms: unknown operation 7");
	/* Over half the ring (the fixture's ring_size) is too large here. */
	e[1] = edit("max.message.bytes", "2147483647", OP_TCONF_SET);
	CU_ASSERT_EQUAL(alter(e, 2, 0, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_CONFIG);
	CU_ASSERT(strncmp(a.why, "invalid value 2147483647 for "
	    "max.message.bytes: at most ", 56) == 0);
	/* validate_only: good, and still nothing published. */
	CU_ASSERT_EQUAL(alter(e, 1, 0, 1, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(published(&t), 0);
	CU_ASSERT_EQUAL(op_tconf_alter(&f.x, "nope", 4, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_tconf_alter(&f.x, "a/b", 3, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_TOPIC_NAME);
	fixture_op_done(&f);
}

static void
test_describe_and_produce_view(void)
{
	struct op_tconf_edit e[2];
	struct op_tconf_view v;
	struct op_tconf_alter a;
	struct tconf eff;

	fixture_op_start(&f, 1);
	CU_ASSERT_EQUAL(op_tconf_describe(&f.x, "t", 1, &v), OP_OK);
	CU_ASSERT_EQUAL(v.eff.v[TC_RETENTION_MS], 7 * 86400000LL);
	CU_ASSERT_EQUAL(v.src[TC_RETENTION_MS], TCS_DEFAULT);
	e[0] = edit("message.timestamp.type", "LogAppendTime", OP_TCONF_SET);
	e[1] = edit("max.message.bytes", "100", OP_TCONF_SET);
	CU_ASSERT_EQUAL(alter(e, 2, 1, 0, &a), OP_WAIT);
	CU_ASSERT_EQUAL(op_tconf_describe(&f.x, "t", 1, &v), OP_OK);
	CU_ASSERT_EQUAL(v.eff.v[TC_TS_TYPE], TCONF_TS_LOG_APPEND);
	CU_ASSERT_EQUAL(v.src[TC_TS_TYPE], TCS_DYNAMIC_TOPIC);
	CU_ASSERT_EQUAL(v.below.v[TC_TS_TYPE], TCONF_TS_CREATE);
	CU_ASSERT_EQUAL(v.below_src[TC_TS_TYPE], TCS_DEFAULT);
	/* A produce sees the same at once, saved or not. */
	op_tconf_topic(&f.w, 0, &eff);
	CU_ASSERT_EQUAL(eff.v[TC_MAX_MESSAGE_BYTES], 100);
	CU_ASSERT_EQUAL(eff.v[TC_TS_TYPE], TCONF_TS_LOG_APPEND);
	/* A later topic in the same entry does not inherit them. */
	memset(f.w.shm->topics[0].id, 0x77, TOPIC_ID_LEN);
	op_tconf_topic(&f.w, 0, &eff);
	CU_ASSERT_EQUAL(eff.v[TC_MAX_MESSAGE_BYTES], 1048576);
	CU_ASSERT_EQUAL(op_tconf_describe(&f.x, "zz", 2, &v), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_tconf_describe_broker(&f.x, &v), OP_OK);
	CU_ASSERT_EQUAL(v.eff.v[TC_SEGMENT_BYTES], 1073741824);
	fixture_op_done(&f);
}

static void
test_create_checks(void)
{
	struct op_tconf_edit e[2];
	struct tconf t;
	char why[OP_TCONF_WHY];
	uint32_t gen;

	fixture_op_start(&f, 1);
	e[0] = edit("cleanup.policy", "compact", OP_TCONF_SET);
	e[1] = edit("retention.ms", "-1", OP_TCONF_SET);
	CU_ASSERT_EQUAL(op_tconf_check_new(&f.x, e, 2, &t, why, sizeof(why)),
	    OP_OK);
	CU_ASSERT_EQUAL(t.set, (1u << TC_CLEANUP_POLICY) |
	    (1u << TC_RETENTION_MS));
	e[1] = edit("retention.ms", "-3", OP_TCONF_SET);
	CU_ASSERT_EQUAL(op_tconf_check_new(&f.x, e, 2, &t, why, sizeof(why)),
	    OP_BAD_CONFIG);
	CU_ASSERT_STRING_EQUAL(why, "invalid value '-3' for retention.ms: "
	    "expected -1 or an integer from 0 to 9223372036854775807");
	/* Nothing to publish: nothing to wait for. */
	memset(&t, 0, sizeof(t));
	op_tconf_publish_new(&f.x, 0, f.w.shm->topics[0].id, &t, &gen);
	CU_ASSERT_EQUAL(gen, 0);
	CU_ASSERT(op_tconf_is_saved(&f.w, 0, 0));
	tconf_put(&t, TC_SEGMENT_MS, 1000);
	op_tconf_publish_new(&f.x, 0, f.w.shm->topics[0].id, &t, &gen);
	CU_ASSERT_EQUAL(gen, 1);
	CU_ASSERT(!op_tconf_is_saved(&f.w, 0, gen));
	shm_tconf_saved(f.w.shm, 0, gen);
	CU_ASSERT(op_tconf_is_saved(&f.w, 0, gen));
	fixture_op_done(&f);
}

TEST_SUITE("op_tconf", NULL, NULL,
    { "alter publishes and waits for the writer's save",
	test_alter_waits_for_save },
    { "bad input changes nothing", test_alter_bad_changes_nothing },
    { "describe's sources; a produce's view", test_describe_and_produce_view },
    { "CreateTopics' checks and publication", test_create_checks });
