/*
 * The deleting operations called directly (no fork), over fixture_op's
 * worker: op_delete_records() (worker/op/records.h) publishing the
 * start it asks for and waiting for the writer's log_start, and
 * op_group_offset_delete() (worker/op/group_offsets.h) on a group with
 * and without members; both denied by an auth table.  No writer runs:
 * the tests play its part by storing log_start.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/authfile.h"
#include "shm/group.h"
#include "shm/topics.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/op/group_member.h"
#include "worker/op/group_offsets.h"
#include "worker/op/records.h"

#define SESSION	10000
static struct fixture_op f;

static struct shm_partition *
part(int32_t i)
{
	struct shm_partition *p = shm_partition(f.w.shm,
	    shm_topic_find(f.w.shm, "t", 1), i);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

static enum op_status
delrec(int32_t partition, int64_t offset, struct op_delete_records *a)
{
	memset(a, 0, sizeof(*a));
	a->offset = offset;
	a->deadline = f.w.now + 1000;
	return op_delete_records(&f.x, "t", 1, partition, a);
}

static void
test_delete_records(void)
{
	struct op_delete_records a, b;
	struct shm_partition *p;

	fixture_op_start(&f, 2);
	p = part(0);
	__atomic_store_n(&p->next_offset, 10, __ATOMIC_RELEASE);
	/* Past the end, below 0, no such partition: nothing asked. */
	CU_ASSERT_EQUAL(delrec(0, 11, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(a.low_watermark, -1);
	CU_ASSERT_EQUAL(delrec(0, -2, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(delrec(2, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(atomic_load(&p->delete_below), 0);
	/* At the start already: done at once. */
	CU_ASSERT_EQUAL(delrec(0, 0, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(a.low_watermark, 0);
	/* Asked: published, the writer woken, waits for log_start. */
	f.w.wake_writer = 0;
	CU_ASSERT_EQUAL(delrec(0, 6, &a), OP_WAIT);
	CU_ASSERT_EQUAL(atomic_load(&p->delete_below), 6);
	CU_ASSERT_EQUAL(f.w.wake_writer, 2);
	/* A lower one waits too, and never lowers what was asked. */
	CU_ASSERT_EQUAL(delrec(0, 4, &b), OP_WAIT);
	CU_ASSERT_EQUAL(atomic_load(&p->delete_below), 6);
	CU_ASSERT_EQUAL(op_delete_records_poll(&f.x, &a), OP_WAIT);
	atomic_store(&p->log_start, 6);
	CU_ASSERT_EQUAL(op_delete_records_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_OK);
	CU_ASSERT_EQUAL(a.low_watermark, 6);
	CU_ASSERT_EQUAL(op_delete_records_poll(&f.x, &b), OP_DONE);
	CU_ASSERT_EQUAL(b.err, OP_OK);
	CU_ASSERT_EQUAL(b.low_watermark, 6);
	/* -1: the end; the deadline passes first. */
	CU_ASSERT_EQUAL(delrec(0, OP_DELETE_TO_END, &a), OP_WAIT);
	CU_ASSERT_EQUAL(atomic_load(&p->delete_below), 10);
	f.w.now = a.deadline;
	CU_ASSERT_EQUAL(op_delete_records_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_TIMEOUT);
	/* Deleted while waiting: gone. */
	CU_ASSERT_EQUAL(delrec(0, 8, &a), OP_WAIT);
	atomic_fetch_add(&p->incarnation, 1);
	CU_ASSERT_EQUAL(op_delete_records_poll(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_NO_TOPIC);
	/* The other partition is untouched. */
	CU_ASSERT_EQUAL(atomic_load(&part(1)->delete_below), 0);
	fixture_op_done(&f);
}

/*
 * __consumer_offsets, the broker's internal topic: its records are
 * never deleted (Kafka: INVALID_TOPIC_EXCEPTION), even when it exists.
 */
static void
test_delete_records_internal(void)
{
	struct op_delete_records a;
	struct shm_partition *p;
	int idx = -1;

	fixture_op_start(&f, 1);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(f.w.shm, "__consumer_offsets",
	    18, 2, &idx), idx);
	p = shm_partition(f.w.shm, idx, 0);
	__atomic_store_n(&p->next_offset, 10, __ATOMIC_RELEASE);
	memset(&a, 0, sizeof(a));
	a.offset = 5;
	a.deadline = f.w.now + 1000;
	CU_ASSERT_EQUAL(op_delete_records(&f.x, "__consumer_offsets", 18, 0,
	    &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_RESERVED_TOPIC);
	CU_ASSERT_EQUAL(atomic_load(&p->delete_below), 0);
	fixture_op_done(&f);
}

/* A member of "g" subscribed to "t": joined and answered. */
static void
join_one(struct op_join *st)
{
	struct op_name topic = { "t", 1 };
	struct op_join_args a = { "g", 1, "", 0, "cl", 2, SESSION, 1, &topic };
	enum op_status s;

	memset(st, 0, sizeof(*st));
	s = op_group_join(&f.x, &a, st);
	if (s == OP_WAIT) {
		f.w.now = st->deadline;
		s = op_group_join_poll(&f.x, st);
	}
	CU_ASSERT_EQUAL_FATAL(s, OP_DONE);
	CU_ASSERT_EQUAL_FATAL(st->err, OP_OK);
}

static int64_t
committed(const char *topic, int32_t partition)
{
	struct op_group_offset q = { topic, strlen(topic), partition,
	    OP_INTERNAL, 7 };

	CU_ASSERT_EQUAL(op_group_offsets(&f.x, "g", 1, &q, 1), OP_OK);
	return q.offset;
}

static void
test_offset_delete(void)
{
	struct op_group_offset c[3] = {
		{ "t", 1, 0, OP_INTERNAL, 100 },
		{ "t", 1, 1, OP_INTERNAL, 200 },
		{ "u", 1, 0, OP_INTERNAL, 300 },
	};
	struct op_group_offset d[4] = {
		{ "t", 1, 0, OP_INTERNAL, 0 },
		{ "u", 1, 0, OP_INTERNAL, 0 },
		{ "t", 1, 9, OP_INTERNAL, 0 },
		{ "v", 1, 0, OP_INTERNAL, 0 },
	};
	struct op_commit_args a;
	struct group_params gp;
	struct shm_group *g;
	struct op_join st;
	uint32_t s0, g0;
	uint64_t seq;
	int idx = -1, gidx = -1;

	fixture_op_start(&f, 2);
	CU_ASSERT_FATAL(shm_topic_create(f.w.shm, "u", 1, 1, &idx) >= 0);
	CU_ASSERT_EQUAL(op_group_offset_delete(&f.x, "g", 1, d, 1),
	    OP_NO_GROUP);
	CU_ASSERT_EQUAL(op_group_offset_delete(&f.x, "", 0, d, 1),
	    OP_BAD_GROUP);
	join_one(&st);
	a.group = "g";
	a.group_len = 1;
	a.member_id = st.id;
	a.member_id_len = st.id_len;
	a.generation = st.generation;
	a.nparts = 3;
	a.parts = c;
	CU_ASSERT_EQUAL_FATAL(op_group_commit(&f.x, &a), OP_OK);
	CU_ASSERT_EQUAL(committed("u", 0), 300);
	CU_ASSERT_EQUAL(op_group_find(&f.w, "g", 1, OP_NO_GROUP, &gidx),
	    OP_OK);
	g = group_at(f.w.shm, (uint32_t)gidx);
	seq = atomic_load(&g->commit_seq);
	/* A member consumes t: its offsets stay; u's go. */
	f.w.wake_writer = 0;
	CU_ASSERT_EQUAL(op_group_offset_delete(&f.x, "g", 1, d, 4), OP_OK);
	CU_ASSERT_EQUAL(d[0].err, OP_GROUP_SUBSCRIBED);
	CU_ASSERT_EQUAL(d[1].err, OP_OK);
	CU_ASSERT_EQUAL(d[1].offset, 300);
	CU_ASSERT_EQUAL(d[2].err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(d[3].err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(committed("t", 0), 100);
	CU_ASSERT_EQUAL(committed("u", 0), -1);
	/* The writer saves the group without it. */
	CU_ASSERT(atomic_load(&g->commit_seq) > seq);
	CU_ASSERT_EQUAL(f.w.wake_writer, 1);
	/* Nothing committed there: still fine. */
	CU_ASSERT_EQUAL(op_group_offset_delete(&f.x, "g", 1, &d[1], 1), OP_OK);
	CU_ASSERT_EQUAL(d[1].err, OP_OK);
	CU_ASSERT_EQUAL(d[1].offset, -1);
	/*
	 * Members of a Kafka protocol that says nothing of topics (Connect's):
	 * refused as a whole, as Kafka does.
	 */
	op_group_params(&f.w, &gp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g = op_group_lock(&f.w, gidx, &gp, &s0,
	    &g0));
	g->kind = GROUP_KIND_KAFKA;
	memcpy(g->ptype, "connect", 7);
	g->ptype_len = 7;
	op_group_unlock(&f.w, g, s0, g0);
	CU_ASSERT_EQUAL(op_group_offset_delete(&f.x, "g", 1, d, 1),
	    OP_GROUP_NOT_EMPTY);
	memcpy(g->ptype, "consumer", 8);
	g->ptype_len = 8;
	CU_ASSERT_EQUAL(op_group_offset_delete(&f.x, "g", 1, d, 1), OP_OK);
	CU_ASSERT_EQUAL(d[0].err, OP_GROUP_SUBSCRIBED);
	g->kind = GROUP_KIND_NATIVE;
	/* Once the member left, t's offsets go too. */
	CU_ASSERT_EQUAL(op_group_leave(&f.x, "g", 1, st.id, st.id_len), OP_OK);
	CU_ASSERT_EQUAL(op_group_offset_delete(&f.x, "g", 1, d, 1), OP_OK);
	CU_ASSERT_EQUAL(d[0].err, OP_OK);
	CU_ASSERT_EQUAL(d[0].offset, 100);
	CU_ASSERT_EQUAL(committed("t", 0), -1);
	CU_ASSERT_EQUAL(committed("t", 1), 200);
	fixture_op_done(&f);
}

/* bob may consume t and read group g, not administer or delete. */
static void
test_denied(void)
{
	static const char text[] = "bob:y:consume,group-read,group-describe\n";
	struct op_group_offset d = { "t", 1, 0, OP_INTERNAL, 0 };
	struct op_delete_records a;
	char path[PATH_MAX + 8], err[256], warn[256];
	int fd;

	fixture_op_start(&f, 1);
	snprintf(path, sizeof(path), "%s/users", f.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL(write(fd, text, sizeof(text) - 1),
	    (ssize_t)sizeof(text) - 1);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(auth_load(path, err, sizeof(err), warn,
	    sizeof(warn)), 0);
	f.auth.user = auth_find_in(auth_table_current(), "bob", 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.auth.user);
	__atomic_store_n(&part(0)->next_offset, 10, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(delrec(0, 5, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.err, OP_DENIED_TOPIC);
	CU_ASSERT_EQUAL(atomic_load(&part(0)->delete_below), 0);
	CU_ASSERT_EQUAL(op_group_offset_delete(&f.x, "g", 1, &d, 1),
	    OP_DENIED_GROUP);
	CU_ASSERT_EQUAL(f.auth.denials, 2);
	auth_unload();
	fixture_op_done(&f);
}

TEST_SUITE("op_records", NULL, NULL,
    { "delete records: out of range, asked, waited for, timed out, gone",
	test_delete_records },
    { "delete records of __consumer_offsets refused",
	test_delete_records_internal },
    { "offset delete: subscribed, unsubscribed, another protocol, empty",
	test_offset_delete },
    { "denied by the auth table", test_denied });
