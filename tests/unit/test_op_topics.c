/*
 * The topic and broker operations, called directly (no fork): metadata
 * (worker/op/topics.h) of every topic and of named ones with
 * auto-create, create and delete with their waits for the writer (the
 * test plays the writer), and the children listing (worker/op/broker.h).
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "shm/topics.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/op/broker.h"
#include "worker/op/topics.h"

static struct fixture_op f;
static char logbuf[8192];

/* Topic entry ti's partition i: its log from start to end, size bytes. */
static void
part_set(int ti, int32_t i, int64_t start, int64_t end, uint64_t size)
{
	struct shm_partition *p = shm_partition(f.w.shm, ti, i);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	atomic_store(&p->log_start, start);
	__atomic_store_n(&p->next_offset, end, __ATOMIC_RELEASE);
	atomic_store(&p->log_bytes, size);
}

/* Partition i of t is as part_set() made it. */
static void
part_is(const struct op_topic_info *t, int32_t i, int64_t start, int64_t end,
    int64_t size)
{
	CU_ASSERT_EQUAL(t->parts[i].partition, i);
	CU_ASSERT_EQUAL(t->parts[i].log_start, start);
	CU_ASSERT_EQUAL(t->parts[i].log_end, end);
	CU_ASSERT_EQUAL(t->parts[i].size_bytes, size);
}

/* Another topic of n partitions, as a create would make it: its entry. */
static int
topic_add(const char *name, int32_t n)
{
	int idx = -1;

	idx = shm_topic_create(f.w.shm, name, strlen(name), n, &idx);
	CU_ASSERT_FATAL(idx >= 0);
	return idx;
}

/* op_topic_create of name asking n partitions, waiting at most wait_ms. */
static enum op_status
create(const char *name, int32_t n, int64_t wait_ms, struct op_topic_create *a)
{
	memset(a, 0, sizeof(*a));
	a->partitions = n;
	a->deadline = wait_ms > 0 ? f.w.now + wait_ms : 0;
	return op_topic_create(&f.x, name, strlen(name), a);
}

/* Standard error captured around the calls between the two. */
static void
capture_begin(void)
{
	char path[PATH_MAX + 16];

	log_init(0, LOG_LVL_INFO, "worker 0");
	snprintf(path, sizeof(path), "%s/stderr", f.dir);
	CU_ASSERT_FATAL(test_capture_begin(path) == 0);
}

static void
capture_end(void)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/stderr", f.dir);
	CU_ASSERT_FATAL(test_capture_end(path, logbuf, sizeof(logbuf)) >= 0);
}

static void
test_metadata_all(void)
{
	struct op_topic_info *t = NULL;
	int32_t n = -1;
	int u;

	fixture_op_start(&f, 2);
	part_set(0, 0, 3, 10, 700);
	part_set(0, 1, 0, 4, 300);
	u = topic_add("u", 1);
	part_set(u, 0, 0, 0, 0);
	CU_ASSERT_EQUAL(op_metadata(&f.x, NULL, 0, 1, &t, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(t[0].err, OP_OK);
	CU_ASSERT_EQUAL(t[0].name_len, 1);
	CU_ASSERT_NSTRING_EQUAL(t[0].name, "t", 1);
	CU_ASSERT_EQUAL_FATAL(t[0].nparts, 2);
	part_is(&t[0], 0, 3, 10, 700);
	part_is(&t[0], 1, 0, 4, 300);
	CU_ASSERT_EQUAL(t[1].err, OP_OK);
	CU_ASSERT_NSTRING_EQUAL(t[1].name, "u", 1);
	CU_ASSERT_EQUAL_FATAL(t[1].nparts, 1);
	CU_ASSERT_EQUAL(t[1].parts[0].log_end, 0);
	/* A topic being deleted is not listed; nothing is created. */
	CU_ASSERT_EQUAL(shm_topic_delete_begin(f.w.shm, "t", 1), 0);
	CU_ASSERT_EQUAL(op_metadata(&f.x, NULL, 0, 1, &t, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_NSTRING_EQUAL(t[0].name, "u", 1);
	CU_ASSERT_EQUAL(atomic_load(&f.w.shm->hdr->topic_count), 2);
	/* Out of request memory. */
	f.alloc_limit = f.alloced + 1;
	CU_ASSERT_EQUAL(op_metadata(&f.x, NULL, 0, 1, &t, &n), OP_NO_MEMORY);
	fixture_op_done(&f);
}

static void
test_metadata_named(void)
{
	const struct op_name names[] = {
		{ "u", 1 }, { "t", 1 }, { "a/b", 3 },
		{ "__consumer_offsets", 18 }, { "new", 3 },
	};
	struct op_topic_info *t = NULL;
	int32_t n = -1;
	int u;

	fixture_op_start(&f, 1);
	u = topic_add("u", 3);
	part_set(u, 2, 5, 9, 100);
	part_set(0, 0, 0, 7, 50);
	f.conf.auto_create_topics = 0;
	CU_ASSERT_EQUAL(op_metadata(&f.x, names, 5, 1, &t, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	/* In the order asked. */
	CU_ASSERT_EQUAL(t[0].err, OP_OK);
	CU_ASSERT_NSTRING_EQUAL(t[0].name, "u", 1);
	CU_ASSERT_EQUAL_FATAL(t[0].nparts, 3);
	part_is(&t[0], 2, 5, 9, 100);
	CU_ASSERT_EQUAL(t[1].err, OP_OK);
	CU_ASSERT_EQUAL_FATAL(t[1].nparts, 1);
	CU_ASSERT_EQUAL(t[1].parts[0].log_end, 7);
	/* Failed ones carry a copy of the name asked and no partitions. */
	CU_ASSERT_EQUAL(t[2].err, OP_BAD_TOPIC_NAME);
	CU_ASSERT_EQUAL(t[2].name_len, 3);
	CU_ASSERT_STRING_EQUAL(t[2].name, "a/b");
	CU_ASSERT_PTR_NOT_EQUAL(t[2].name, names[2].s);
	CU_ASSERT_EQUAL(t[2].nparts, 0);
	CU_ASSERT_PTR_NULL(t[2].parts);
	CU_ASSERT_EQUAL(t[3].err, OP_NO_TOPIC);
	CU_ASSERT_STRING_EQUAL(t[3].name, "__consumer_offsets");
	/* auto_create_topics off: not created. */
	CU_ASSERT_EQUAL(t[4].err, OP_NO_TOPIC);
	CU_ASSERT_STRING_EQUAL(t[4].name, "new");
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "new", 3), -1);

	/* On, but the request does not allow it. */
	f.conf.auto_create_topics = 1;
	f.conf.partitions = 4;
	CU_ASSERT_EQUAL(op_metadata(&f.x, &names[4], 1, 0, &t, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(t[0].err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "new", 3), -1);
	/* Both on: created with the configured count, listed empty. */
	CU_ASSERT_EQUAL(op_metadata(&f.x, &names[2], 3, 1, &t, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(t[0].err, OP_BAD_TOPIC_NAME);
	/* A reserved name is never created by naming it. */
	CU_ASSERT_EQUAL(t[1].err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "__consumer_offsets", 18), -1);
	CU_ASSERT_EQUAL(t[2].err, OP_OK);
	CU_ASSERT_NSTRING_EQUAL(t[2].name, "new", 3);
	CU_ASSERT_EQUAL_FATAL(t[2].nparts, 4);
	part_is(&t[2], 3, 0, 0, 0);
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "new", 3), 2);
	CU_ASSERT_EQUAL(f.w.wake_writer, 2);
	/* An empty list names nothing. */
	CU_ASSERT_EQUAL(op_metadata(&f.x, names, 0, 1, &t, &n), OP_OK);
	CU_ASSERT_EQUAL(n, 0);
	fixture_op_done(&f);
}

static void
test_create(void)
{
	struct op_topic_create a;
	int ti;

	fixture_op_start(&f, 1);
	f.conf.partitions = 2;
	capture_begin();
	CU_ASSERT_EQUAL(create("new", 0, 5000, &a), OP_WAIT);
	capture_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "created topic new with 2 "
	    "partitions (Test from test)"));
	/* Published at once with the configured count; the writer is woken. */
	CU_ASSERT_EQUAL_FATAL((ti = shm_topic_find(f.w.shm, "new", 3)), 1);
	CU_ASSERT_EQUAL(f.w.shm->topics[ti].partitions, 2);
	CU_ASSERT_EQUAL(a.partitions, 2);
	CU_ASSERT_EQUAL(f.w.wake_writer, 2);
	/* Waits until the writer says the files exist. */
	f.w.now += 1000;
	CU_ASSERT_EQUAL(op_topic_create_poll(&f.x, &a), OP_WAIT);
	atomic_store(&f.w.shm->topics[ti].opened, 1);
	CU_ASSERT_EQUAL(op_topic_create_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(a.partitions, 2);

	/* An existing topic: at once, with its count. */
	CU_ASSERT_EQUAL(create("new", 5, 5000, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_TOPIC_EXISTS);
	CU_ASSERT_EQUAL(a.partitions, 2);

	/* A reserved name: refused, one line naming the API. */
	capture_begin();
	CU_ASSERT_EQUAL(create("__consumer_offsets", 0, 0, &a), OP_DONE);
	capture_end();
	CU_ASSERT_EQUAL(a.err, OP_RESERVED_TOPIC);
	CU_ASSERT_EQUAL(a.partitions, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "test: Test: create of topic "
	    "__consumer_offsets refused: the name is reserved"));
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "__consumer_offsets", 18), -1);
	CU_ASSERT_EQUAL(op_topic_create_check(&f.x, "__transaction_state", 19),
	    OP_RESERVED_TOPIC);

	/* A bad name, too many partitions, none. */
	CU_ASSERT_EQUAL(create("a b", 0, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_TOPIC_NAME);
	CU_ASSERT_EQUAL(create("big", (int32_t)f.conf.max_partitions + 1, 0,
	    &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_PARTITIONS);
	CU_ASSERT_EQUAL(a.partitions, 0);
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "big", 3), -1);
	CU_ASSERT_EQUAL(create("big", -1, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_PARTITIONS);
	/* More than the shared tables hold (32 partitions in all). */
	CU_ASSERT_EQUAL(create("big", 30, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_ROOM);
	fixture_op_done(&f);
}

/* The waits' other ends: no deadline, timeout, storage error, deleted. */
static void
test_create_waits(void)
{
	struct op_topic_create a;
	int ti;

	fixture_op_start(&f, 1);
	/* No deadline: answered once created. */
	CU_ASSERT_EQUAL(create("now", 1, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "now", 3), 1);
	/* The deadline passes first: the topic stays. */
	CU_ASSERT_EQUAL(create("slow", 2, 100, &a), OP_WAIT);
	f.w.now += 100;
	CU_ASSERT_EQUAL(op_topic_create_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_TIMEOUT);
	CU_ASSERT_EQUAL(a.partitions, 2);
	CU_ASSERT_EQUAL_FATAL((ti = shm_topic_find(f.w.shm, "slow", 4)), 2);
	/* The writer could not make a partition's files. */
	CU_ASSERT_EQUAL(create("sick", 2, 100, &a), OP_WAIT);
	CU_ASSERT_EQUAL_FATAL((ti = shm_topic_find(f.w.shm, "sick", 4)), 3);
	atomic_store(&shm_partition(f.w.shm, ti, 1)->storage_error, 1);
	CU_ASSERT_EQUAL(op_topic_create_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_STORAGE);
	/* Deleted while waiting. */
	CU_ASSERT_EQUAL(create("gone", 1, 100, &a), OP_WAIT);
	CU_ASSERT_EQUAL_FATAL((ti = shm_topic_delete_begin(f.w.shm, "gone",
	    4)), 4);
	CU_ASSERT_EQUAL(op_topic_create_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_TOPIC);
	fixture_op_done(&f);
}

static void
test_delete(void)
{
	struct op_topic_delete a;
	int ti;

	fixture_op_start(&f, 3);
	memset(&a, 0, sizeof(a));
	a.deadline = f.w.now + 1000;
	CU_ASSERT_EQUAL(op_topic_delete(&f.x, "t", 1, &a), OP_WAIT);
	CU_ASSERT_EQUAL(a.partitions, 3);
	CU_ASSERT_EQUAL(atomic_load(&f.w.shm->topics[0].state),
	    TOPIC_DELETING);
	CU_ASSERT_EQUAL(f.w.wake_writer, 2);
	/* Gone for new requests at once. */
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "t", 1), -1);
	f.w.now += 500;
	CU_ASSERT_EQUAL(op_topic_delete_poll(&f.x, &a), OP_WAIT);
	/* The writer removed the files. */
	shm_topic_delete_end(f.w.shm, 0);
	CU_ASSERT_EQUAL(op_topic_delete_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(a.partitions, 3);

	/* None of that name, named badly, reserved. */
	memset(&a, 0, sizeof(a));
	capture_begin();
	CU_ASSERT_EQUAL(op_topic_delete(&f.x, "t", 1, &a), OP_DONE);
	capture_end();
	CU_ASSERT_EQUAL(a.err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(a.partitions, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "test: Test: delete of topic t "
	    "refused: no such topic"));
	CU_ASSERT_EQUAL(op_topic_delete(&f.x, "a/b", 3, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_BAD_TOPIC_NAME);
	CU_ASSERT_EQUAL(op_topic_delete(&f.x, "flume.pid", 9, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_RESERVED_TOPIC);

	/* The deadline passes first: the delete goes on. */
	ti = topic_add("v", 1);
	memset(&a, 0, sizeof(a));
	a.deadline = f.w.now + 100;
	CU_ASSERT_EQUAL(op_topic_delete(&f.x, "v", 1, &a), OP_WAIT);
	f.w.now += 100;
	CU_ASSERT_EQUAL(op_topic_delete_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_TIMEOUT);
	CU_ASSERT_EQUAL(a.partitions, 1);
	CU_ASSERT_EQUAL(atomic_load(&f.w.shm->topics[ti].state),
	    TOPIC_DELETING);
	fixture_op_done(&f);
}

/*
 * Each result carries its topic's id (the shared entry's): metadata, a
 * create, a delete; op_topic_find_id() names the READY topic of an id,
 * and not one being deleted or never made.
 */
static void
test_topic_ids(void)
{
	static const uint8_t unknown[TOPIC_ID_LEN] = { 9, 9, 9 };
	static const uint8_t zero[TOPIC_ID_LEN];
	struct op_topic_info *t = NULL;
	struct op_topic_create c;
	struct op_topic_delete a;
	struct op_name nm = { "t", 1 };
	const char *name = NULL;
	size_t len = 0;
	int32_t n = -1;
	int u;

	fixture_op_start(&f, 2);
	u = topic_add("u", 1);
	CU_ASSERT_NOT_EQUAL(memcmp(f.w.shm->topics[0].id, zero,
	    TOPIC_ID_LEN), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(f.w.shm->topics[0].id,
	    f.w.shm->topics[u].id, TOPIC_ID_LEN), 0);
	CU_ASSERT_EQUAL(op_metadata(&f.x, NULL, 0, 0, &t, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(memcmp(t[0].id, f.w.shm->topics[0].id,
	    TOPIC_ID_LEN), 0);
	CU_ASSERT_EQUAL(memcmp(t[1].id, f.w.shm->topics[u].id,
	    TOPIC_ID_LEN), 0);
	CU_ASSERT_EQUAL(op_metadata(&f.x, &nm, 1, 0, &t, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(memcmp(t[0].id, f.w.shm->topics[0].id,
	    TOPIC_ID_LEN), 0);

	CU_ASSERT_EQUAL(op_topic_find_id(&f.x, f.w.shm->topics[u].id, &name,
	    &len), OP_OK);
	CU_ASSERT_EQUAL(len, 1);
	CU_ASSERT_NSTRING_EQUAL(name, "u", 1);
	CU_ASSERT_EQUAL(op_topic_find_id(&f.x, unknown, &name, &len),
	    OP_NO_TOPIC);

	CU_ASSERT_EQUAL(create("w", 1, 0, &c), OP_DONE);
	CU_ASSERT_EQUAL(c.err, OP_OK);
	CU_ASSERT_NOT_EQUAL(memcmp(c.id, zero, TOPIC_ID_LEN), 0);
	CU_ASSERT_EQUAL(op_topic_find_id(&f.x, c.id, &name, &len), OP_OK);
	CU_ASSERT_NSTRING_EQUAL(name, "w", 1);

	memset(&a, 0, sizeof(a));
	a.deadline = f.w.now + 1000;
	CU_ASSERT_EQUAL(op_topic_delete(&f.x, "w", 1, &a), OP_WAIT);
	CU_ASSERT_EQUAL(memcmp(a.id, c.id, TOPIC_ID_LEN), 0);
	/* Being deleted: no longer found by its id. */
	CU_ASSERT_EQUAL(op_topic_find_id(&f.x, c.id, &name, &len),
	    OP_NO_TOPIC);
	fixture_op_done(&f);
}

static void
test_children(void)
{
	struct op_child *ch = NULL;
	struct shm_child *c;
	int64_t now = clock_real_ms();
	int32_t n = -1;
	uint32_t i;

	fixture_op_start(&f, 1);
	for (i = 0; i < f.w.shm->hdr->limits.child_slots; i++)
		atomic_store(&f.w.shm->children[i].pid, 0);
	c = &f.w.shm->children[1];
	atomic_store(&c->pid, 4242);
	c->role = 0;
	c->restarts = 3;
	c->start_ms = now - 60000;
	c = &f.w.shm->children[3];
	atomic_store(&c->pid, 77);
	c->role = 1;
	c->restarts = 0;
	c->start_ms = 0;
	CU_ASSERT_EQUAL(op_broker_children(&f.x, &ch, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(ch[0].slot, 1);
	CU_ASSERT_EQUAL(ch[0].pid, 4242);
	CU_ASSERT_EQUAL(ch[0].role, 0);
	CU_ASSERT_EQUAL(ch[0].restarts, 3);
	CU_ASSERT(ch[0].uptime_ms >= 60000 && ch[0].uptime_ms < 70000);
	CU_ASSERT_EQUAL(ch[1].slot, 3);
	CU_ASSERT_EQUAL(ch[1].pid, 77);
	CU_ASSERT_EQUAL(ch[1].role, 1);
	CU_ASSERT_EQUAL(ch[1].restarts, 0);
	/* Its start unknown. */
	CU_ASSERT_EQUAL(ch[1].uptime_ms, 0);
	atomic_store(&f.w.shm->children[1].pid, 0);
	atomic_store(&f.w.shm->children[3].pid, 0);
	CU_ASSERT_EQUAL(op_broker_children(&f.x, &ch, &n), OP_OK);
	CU_ASSERT_EQUAL(n, 0);
	fixture_op_done(&f);
}

TEST_SUITE("op_topics", NULL, NULL,
    { "metadata of every topic", test_metadata_all },
    { "metadata of named topics, auto-create", test_metadata_named },
    { "create waits for the writer", test_create },
    { "create's timeout, storage error, delete", test_create_waits },
    { "delete waits for the writer", test_delete },
    { "topic ids in results, found by id", test_topic_ids },
    { "the children listing", test_children });
