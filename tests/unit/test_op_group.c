/*
 * The consumer-group operations called directly (no fork), over
 * fixture_op's worker: the group table's access (worker/op/group.h),
 * native-kind membership (op/group_member.h), committed offsets and
 * their reset (op/group_offsets.h), listing, describing and deleting
 * (op/group_info.h), and a group denied by an auth table.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/authfile.h"
#include "shm/group.h"
#include "shm/topics.h"
#include "store/plog.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/op/group.h"
#include "worker/op/group_info.h"
#include "worker/op/group_member.h"
#include "worker/op/group_offsets.h"

#define SESSION	10000
static struct fixture_op f;

static void
tp_is(const struct op_group_tp *tp, const char *topic, int32_t partition)
{
	CU_ASSERT_EQUAL(tp->topic_len, strlen(topic));
	CU_ASSERT_EQUAL(memcmp(tp->topic, topic, tp->topic_len), 0);
	CU_ASSERT_EQUAL(tp->partition, partition);
}

static void
test_table(void)
{
	struct group_params gp;
	struct shm_group *g;
	struct op_group_tp tp;
	uint32_t s0 = 99, g0 = 99, slot = 99;
	int gidx = -1, other = -1;

	fixture_op_start(&f, 3);
	op_group_params(&f.w, &gp);
	CU_ASSERT_EQUAL(gp.rebalance_timeout_ms,
	    f.conf.group_rebalance_timeout_ms);
	CU_ASSERT_EQUAL(gp.min_session_ms,
	    (int32_t)f.conf.group_min_session_timeout_ms);
	/* Lookup and creation by name. */
	CU_ASSERT_EQUAL(op_group_find(&f.w, "g", 1, OP_UNKNOWN_MEMBER, &gidx),
	    OP_UNKNOWN_MEMBER);
	CU_ASSERT_EQUAL(op_group_find(&f.w, "g", 1, OP_BAD_GROUP, &gidx),
	    OP_BAD_GROUP);
	CU_ASSERT_EQUAL(op_group_create(&f.w, "g", 1, 1, &gidx), OP_OK);
	CU_ASSERT_EQUAL(gidx, 0);
	CU_ASSERT_EQUAL(op_group_find(&f.w, "g", 1, OP_BAD_GROUP, &other),
	    OP_OK);
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(op_group_create(&f.w, "g", 1, 0, &other), OP_OK);
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(op_group_find(&f.w, "", 0, OP_UNKNOWN_MEMBER, &other),
	    OP_BAD_GROUP);
	CU_ASSERT_EQUAL(op_group_create(&f.w, "a b", 3, 1, &other),
	    OP_BAD_GROUP);
	/* Lock and unlock: the group of that name, unchanged. */
	g = op_group_lock(&f.w, gidx, &gp, &s0, &g0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->name_len, 1);
	CU_ASSERT_EQUAL(g->name[0], 'g');
	CU_ASSERT_EQUAL(s0, GROUP_EMPTY);
	CU_ASSERT_EQUAL(g0, 0);
	op_group_unlock(&f.w, g, s0, g0);
	CU_ASSERT_PTR_NULL(op_group_lock_name(&f.w, gidx, "h", 1, &gp, &s0,
	    &g0));
	g = op_group_lock_name(&f.w, gidx, "g", 1, &gp, &s0, &g0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	op_group_unlock(&f.w, g, s0, g0);
	/* No slot there: NULL. */
	CU_ASSERT_PTR_NULL(op_group_lock(&f.w, 4, &gp, &s0, &g0));
	/* Partition slots. */
	CU_ASSERT_EQUAL(op_group_part(&f.w, "t", 1, 2, &slot), OP_OK);
	CU_ASSERT_EQUAL(slot, 2);
	CU_ASSERT_EQUAL(op_group_part(&f.w, "t", 1, 3, &slot), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_group_part(&f.w, "u", 1, 0, &slot), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_group_slot_tp(&f.w, 1, &tp), 0);
	tp_is(&tp, "t", 1);
	/*
	 * 4 slots, the last kept for groups that members join: "g", "a",
	 * "b", then "c" only for a member.
	 */
	CU_ASSERT_EQUAL(op_group_create(&f.w, "a", 1, 0, &other), OP_OK);
	CU_ASSERT_EQUAL(op_group_create(&f.w, "b", 1, 0, &other), OP_OK);
	CU_ASSERT_EQUAL(op_group_create(&f.w, "c", 1, 0, &other), OP_NO_ROOM);
	CU_ASSERT_EQUAL(op_group_create(&f.w, "c", 1, 1, &other), OP_OK);
	CU_ASSERT_EQUAL(other, 3);
	CU_ASSERT_EQUAL(op_group_create(&f.w, "d", 1, 1, &other), OP_NO_ROOM);
	/* The shared table's answers. */
	CU_ASSERT_EQUAL(op_group_err(ERR_NONE), OP_OK);
	CU_ASSERT_EQUAL(op_group_err(ERR_UNKNOWN_MEMBER), OP_UNKNOWN_MEMBER);
	CU_ASSERT_EQUAL(op_group_err(ERR_ILLEGAL_GENERATION),
	    OP_STALE_GENERATION);
	CU_ASSERT_EQUAL(op_group_err(ERR_GROUP_KIND), OP_GROUP_KIND);
	CU_ASSERT_EQUAL(op_group_err(ERR_UNKNOWN), OP_INTERNAL);
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
		/* The rebalance completes by its deadline at the latest. */
		CU_ASSERT(st->deadline > f.w.now);
		f.w.now = st->deadline;
		s = op_group_join_poll(&f.x, st);
	}
	CU_ASSERT_EQUAL_FATAL(s, OP_DONE);
	CU_ASSERT_EQUAL_FATAL(st->err, OP_OK);
}

static void
test_membership(void)
{
	struct op_name topic = { "t", 1 }, none = { "u", 1 };
	struct op_join_args a = { "g", 1, "", 0, "cl", 2, SESSION, 1, &topic };
	struct op_join st, st2;

	fixture_op_start(&f, 3);
	join_one(&st);
	CU_ASSERT_EQUAL(st.generation, 1);
	CU_ASSERT_EQUAL(st.id_len, strlen(st.id));
	CU_ASSERT_EQUAL(strncmp(st.id, "cl-", 3), 0);
	CU_ASSERT_EQUAL_FATAL(st.nparts, 3);
	tp_is(&st.parts[0], "t", 0);
	tp_is(&st.parts[1], "t", 1);
	tp_is(&st.parts[2], "t", 2);
	/* Heartbeats: of its generation only, of a member it knows. */
	CU_ASSERT_EQUAL(op_group_heartbeat(&f.x, "g", 1, st.id, st.id_len, 1),
	    OP_OK);
	CU_ASSERT_EQUAL(op_group_heartbeat(&f.x, "g", 1, st.id, st.id_len, 0),
	    OP_STALE_GENERATION);
	CU_ASSERT_EQUAL(op_group_heartbeat(&f.x, "g", 1, "x", 1, 1),
	    OP_UNKNOWN_MEMBER);
	CU_ASSERT_EQUAL(op_group_heartbeat(&f.x, "h", 1, st.id, st.id_len, 1),
	    OP_UNKNOWN_MEMBER);
	CU_ASSERT_EQUAL(op_group_heartbeat(&f.x, "", 0, st.id, st.id_len, 1),
	    OP_BAD_GROUP);
	/* Joins refused before anything is created. */
	memset(&st2, 0, sizeof(st2));
	a.group = "h";
	a.topics = &none;
	CU_ASSERT_EQUAL(op_group_join(&f.x, &a, &st2), OP_DONE);
	CU_ASSERT_EQUAL(st2.err, OP_NO_TOPIC);
	a.ntopics = 0;
	CU_ASSERT_EQUAL(op_group_join(&f.x, &a, &st2), OP_DONE);
	CU_ASSERT_EQUAL(st2.err, OP_BAD_REQUEST);
	a.ntopics = 1;
	a.topics = &topic;
	a.session_timeout_ms = 1;
	CU_ASSERT_EQUAL(op_group_join(&f.x, &a, &st2), OP_DONE);
	CU_ASSERT_EQUAL(st2.err, OP_BAD_SESSION_TIMEOUT);
	a.group = "";
	a.group_len = 0;
	CU_ASSERT_EQUAL(op_group_join(&f.x, &a, &st2), OP_DONE);
	CU_ASSERT_EQUAL(st2.err, OP_BAD_GROUP);
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "h", 1), -1);
	/* Leave: once. */
	CU_ASSERT_EQUAL(op_group_leave(&f.x, "g", 1, st.id, st.id_len), OP_OK);
	CU_ASSERT_EQUAL(op_group_leave(&f.x, "g", 1, st.id, st.id_len),
	    OP_UNKNOWN_MEMBER);
	fixture_op_done(&f);
}

static void
test_commit_fetch(void)
{
	struct op_group_offset c[3] = {
		{ "t", 1, 0, OP_INTERNAL, 100 },
		{ "t", 1, 1, OP_INTERNAL, 200 },
		{ "t", 1, 5, OP_INTERNAL, 1 },
	};
	struct op_group_offset q[3] = {
		{ "t", 1, 0, OP_INTERNAL, 7 },
		{ "t", 1, 1, OP_INTERNAL, 7 },
		{ "t", 1, 2, OP_INTERNAL, 7 },
	};
	struct op_commit_args a;
	struct op_group_offset *all;
	struct op_join st;
	int32_t n = -1;

	fixture_op_start(&f, 3);
	/* Nothing yet: -1 everywhere, even for a group that does not exist. */
	CU_ASSERT_EQUAL(op_group_offsets(&f.x, "g", 1, q, 3), OP_OK);
	CU_ASSERT_EQUAL(q[0].err, OP_OK);
	CU_ASSERT_EQUAL(q[0].offset, -1);
	CU_ASSERT_EQUAL(op_group_committed(&f.x, "g", 1, &all, &n), OP_OK);
	CU_ASSERT_EQUAL(n, 0);
	join_one(&st);
	a.group = "g";
	a.group_len = 1;
	a.member_id = st.id;
	a.member_id_len = st.id_len;
	a.generation = st.generation;
	a.nparts = 3;
	a.parts = c;
	CU_ASSERT_EQUAL(op_group_commit(&f.x, &a), OP_OK);
	CU_ASSERT_EQUAL(c[0].err, OP_OK);
	CU_ASSERT_EQUAL(c[1].err, OP_OK);
	CU_ASSERT_EQUAL(c[2].err, OP_NO_TOPIC);
	/* The writer is asked to save them (lazily). */
	CU_ASSERT_EQUAL(f.w.wake_writer, 1);
	CU_ASSERT_EQUAL(op_group_offsets(&f.x, "g", 1, q, 3), OP_OK);
	CU_ASSERT_EQUAL(q[0].offset, 100);
	CU_ASSERT_EQUAL(q[1].offset, 200);
	CU_ASSERT_EQUAL(q[2].offset, -1);
	CU_ASSERT_EQUAL(q[2].err, OP_OK);
	CU_ASSERT_EQUAL(op_group_committed(&f.x, "g", 1, &all, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(all[0].partition, 0);
	CU_ASSERT_EQUAL(all[0].offset, 100);
	CU_ASSERT_EQUAL(all[1].partition, 1);
	CU_ASSERT_EQUAL(all[1].offset, 200);
	CU_ASSERT_EQUAL(all[1].topic_len, 1);
	CU_ASSERT_EQUAL(all[1].topic[0], 't');
	/* Refused as a whole: a stale generation, an unknown member or group. */
	c[0].offset = 999;
	a.generation = st.generation + 1;
	CU_ASSERT_EQUAL(op_group_commit(&f.x, &a), OP_STALE_GENERATION);
	a.generation = st.generation;
	a.member_id = "nobody";
	a.member_id_len = 6;
	CU_ASSERT_EQUAL(op_group_commit(&f.x, &a), OP_UNKNOWN_MEMBER);
	a.group = "h";
	CU_ASSERT_EQUAL(op_group_commit(&f.x, &a), OP_UNKNOWN_MEMBER);
	a.group = "";
	a.group_len = 0;
	CU_ASSERT_EQUAL(op_group_commit(&f.x, &a), OP_BAD_GROUP);
	CU_ASSERT_EQUAL(op_group_offsets(&f.x, "", 0, q, 3), OP_BAD_GROUP);
	CU_ASSERT_EQUAL(op_group_offsets(&f.x, "g", 1, q, 1), OP_OK);
	CU_ASSERT_EQUAL(q[0].offset, 100);
	fixture_op_done(&f);
}

/* Commit parts[0..n) to "g" as member st. */
static enum op_err
commit(const struct op_join *st, struct op_group_offset *parts, int32_t n)
{
	struct op_commit_args a = { "g", 1, st->id, st->id_len,
	    st->generation, n, parts };

	return op_group_commit(&f.x, &a);
}

/* A reset of "g"'s offsets of topic "t": its results. */
static enum op_err
reset(int32_t partition, int mode, int64_t value,
    struct op_reset_result **res, int32_t *n)
{
	struct op_reset_args a = { "g", 1, "t", 1, partition, mode, value };

	return op_group_reset(&f.x, &a, res, n);
}

static int64_t
committed(int32_t partition)
{
	struct op_group_offset q = { "t", 1, partition, OP_INTERNAL, 7 };

	CU_ASSERT_EQUAL(op_group_offsets(&f.x, "g", 1, &q, 1), OP_OK);
	return q.offset;
}

static void
test_reset(void)
{
	struct op_reset_result *res;
	struct shm_partition *p;
	struct op_join st;
	int32_t i, n;

	/* With the worker's reader cache, for the time lookup (none on disk). */
	fixture_op_start(&f, 3);
	/* Partition 1's log is [10, 500), 400 of it in the files. */
	p = shm_partition(f.w.shm, 0, 1);
	atomic_store(&p->log_start, 10);
	__atomic_store_n(&p->next_offset, 500, __ATOMIC_RELEASE);
	atomic_store(&p->visible_offset, 400);
	CU_ASSERT_EQUAL(reset(1, OP_RESET_TO_OFFSET, 50, &res, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(res[0].partition, 1);
	CU_ASSERT_EQUAL(res[0].err, OP_OK);
	CU_ASSERT_EQUAL(res[0].offset, 50);
	CU_ASSERT_EQUAL(committed(1), 50);
	CU_ASSERT_EQUAL(committed(0), -1);
	/* Clamped to the log. */
	CU_ASSERT_EQUAL(reset(1, OP_RESET_TO_OFFSET, 5, &res, &n), OP_OK);
	CU_ASSERT_EQUAL(res[0].offset, 10);
	CU_ASSERT_EQUAL(reset(1, OP_RESET_TO_OFFSET, 900, &res, &n), OP_OK);
	CU_ASSERT_EQUAL(res[0].offset, 500);
	CU_ASSERT_EQUAL(reset(1, OP_RESET_TO_EARLIEST, 0, &res, &n), OP_OK);
	CU_ASSERT_EQUAL(res[0].offset, 10);
	CU_ASSERT_EQUAL(committed(1), 10);
	/* Every partition. */
	CU_ASSERT_EQUAL(reset(-1, OP_RESET_TO_LATEST, 0, &res, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(res[i].partition, i);
		CU_ASSERT_EQUAL(res[i].err, OP_OK);
	}
	CU_ASSERT_EQUAL(res[0].offset, 0);
	CU_ASSERT_EQUAL(res[1].offset, 500);
	CU_ASSERT_EQUAL(committed(1), 500);
	CU_ASSERT_EQUAL(committed(2), 0);
	/* A time no record in the files reaches: where the files end. */
	CU_ASSERT_EQUAL_FATAL(reset(1, OP_RESET_TO_TIME, 1000, &res, &n), OP_OK);
	CU_ASSERT_EQUAL(res[0].offset, 400);
	/* Refusals. */
	CU_ASSERT_EQUAL(reset(1, 9, 0, &res, &n), OP_BAD_REQUEST);
	CU_ASSERT_EQUAL(reset(3, OP_RESET_TO_EARLIEST, 0, &res, &n),
	    OP_NO_TOPIC);
	CU_ASSERT_EQUAL(n, 0);
	{
		struct op_reset_args a = { "g", 1, "u", 1, -1,
		    OP_RESET_TO_EARLIEST, 0 };

		CU_ASSERT_EQUAL(op_group_reset(&f.x, &a, &res, &n),
		    OP_NO_TOPIC);
		a.group = "";
		a.group_len = 0;
		CU_ASSERT_EQUAL(op_group_reset(&f.x, &a, &res, &n),
		    OP_BAD_GROUP);
	}
	/* Not while the group has a member. */
	join_one(&st);
	CU_ASSERT_EQUAL(reset(1, OP_RESET_TO_EARLIEST, 0, &res, &n),
	    OP_GROUP_NOT_EMPTY);
	CU_ASSERT_EQUAL(committed(1), 400);
	fixture_op_done(&f);
}

static void
test_describe_list_delete(void)
{
	struct op_group_offset c[1] = { { "t", 1, 1, OP_INTERNAL, 42 } };
	struct op_group_listing *l;
	struct op_group_desc d;
	struct op_join st;
	struct shm_partition *p;
	uint32_t n = 99;
	int gidx;

	fixture_op_start(&f, 2);
	CU_ASSERT_EQUAL(op_group_list(&f.x, &l, &n), OP_OK);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(op_group_describe(&f.x, "g", 1, &d), OP_BAD_GROUP);
	join_one(&st);
	CU_ASSERT_EQUAL_FATAL(commit(&st, c, 1), OP_OK);
	p = shm_partition(f.w.shm, 0, 1);
	__atomic_store_n(&p->next_offset, 77, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(op_group_list(&f.x, &l, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(l[0].name_len, 1);
	CU_ASSERT_EQUAL(l[0].name[0], 'g');
	CU_ASSERT_EQUAL(l[0].state, GROUP_STABLE);
	CU_ASSERT_EQUAL(l[0].kind, GROUP_KIND_NATIVE);
	CU_ASSERT_EQUAL(l[0].generation, 1);
	CU_ASSERT_EQUAL(l[0].members, 1);
	CU_ASSERT_EQUAL(op_group_describe(&f.x, "g", 1, &d), OP_OK);
	CU_ASSERT_EQUAL(d.state, GROUP_STABLE);
	CU_ASSERT_EQUAL(d.kind, GROUP_KIND_NATIVE);
	CU_ASSERT_EQUAL(d.generation, 1);
	CU_ASSERT_EQUAL_FATAL(d.nmembers, 1);
	CU_ASSERT_EQUAL(d.members[0].id_len, st.id_len);
	CU_ASSERT_EQUAL(memcmp(d.members[0].id, st.id, st.id_len), 0);
	CU_ASSERT_STRING_EQUAL(d.members[0].client, "cl");
	CU_ASSERT_EQUAL(d.members[0].session_timeout_ms, SESSION);
	CU_ASSERT_PTR_NULL(d.members[0].assign);
	CU_ASSERT_EQUAL_FATAL(d.members[0].nparts, 2);
	tp_is(&d.members[0].parts[0], "t", 0);
	tp_is(&d.members[0].parts[1], "t", 1);
	/* Both partitions: subscribed, one committed. */
	CU_ASSERT_EQUAL_FATAL(d.noffsets, 2);
	CU_ASSERT_EQUAL(d.offsets[0].partition, 0);
	CU_ASSERT_EQUAL(d.offsets[0].committed, -1);
	CU_ASSERT_EQUAL(d.offsets[0].log_end, 0);
	CU_ASSERT_EQUAL(d.offsets[1].partition, 1);
	CU_ASSERT_EQUAL(d.offsets[1].committed, 42);
	CU_ASSERT_EQUAL(d.offsets[1].log_end, 77);
	/* A Kafka member's partitions are added as its assignment names them. */
	d.members[0].nparts = 0;
	d.members[0].seen = 0;
	CU_ASSERT_EQUAL(op_group_desc_assigned(&f.x, &d, &d.members[0], "u", 1,
	    0), 0);
	CU_ASSERT_EQUAL(op_group_desc_assigned(&f.x, &d, &d.members[0], "t", 1,
	    1), 0);
	CU_ASSERT_EQUAL(d.members[0].nparts, 1);
	tp_is(&d.members[0].parts[0], "t", 1);
	CU_ASSERT_EQUAL(d.cap, 2);
	CU_ASSERT_EQUAL(op_group_desc_assigned(&f.x, &d, &d.members[0], "t", 1,
	    0), 0);
	CU_ASSERT_EQUAL(op_group_desc_assigned(&f.x, &d, &d.members[0], "t", 1,
	    0), 1);
	/* Delete: not with a member; then gone, offsets with it. */
	CU_ASSERT_EQUAL(op_group_delete(&f.x, "g", 1), OP_GROUP_NOT_EMPTY);
	CU_ASSERT_EQUAL(op_group_leave(&f.x, "g", 1, st.id, st.id_len), OP_OK);
	CU_ASSERT_EQUAL(op_group_delete(&f.x, "g", 1), OP_OK);
	CU_ASSERT_EQUAL(op_group_find(&f.w, "g", 1, OP_BAD_GROUP, &gidx),
	    OP_BAD_GROUP);
	CU_ASSERT_EQUAL(op_group_delete(&f.x, "g", 1), OP_NO_GROUP);
	CU_ASSERT_EQUAL(op_group_delete(&f.x, "", 0), OP_BAD_GROUP);
	CU_ASSERT_EQUAL(op_group_list(&f.x, &l, &n), OP_OK);
	CU_ASSERT_EQUAL(n, 0);
	fixture_op_done(&f);
}

/* alice may consume and use the groups "a."; bob may only consume. */
static void
test_denied(void)
{
	static const char text[] =
	    "alice:x:consume,group-read=a.\nbob:y:consume\n";
	struct op_name topic = { "t", 1 };
	struct op_join_args a = { "b.g", 3, "", 0, "cl", 2, SESSION, 1, &topic };
	struct op_group_offset q = { "t", 1, 0, OP_INTERNAL, 7 };
	struct op_group_listing *l;
	struct op_group_desc d;
	struct op_reset_result *res;
	struct op_reset_args ra = { "a.g", 3, "t", 1, 0, OP_RESET_TO_EARLIEST,
	    0 };
	struct op_join st;
	char path[PATH_MAX + 8], err[256], warn[256];
	uint32_t n;
	int32_t rn;
	int fd, gidx;

	fixture_op_start(&f, 1);
	snprintf(path, sizeof(path), "%s/users", f.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL(write(fd, text, sizeof(text) - 1),
	    (ssize_t)sizeof(text) - 1);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(auth_load(path, err, sizeof(err), warn,
	    sizeof(warn)), 0);
	f.auth.user = auth_find_in(auth_table_current(), "alice", 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.auth.user);
	/* A refused join creates nothing. */
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(op_group_join(&f.x, &a, &st), OP_DONE);
	CU_ASSERT_EQUAL(st.err, OP_DENIED_GROUP);
	CU_ASSERT_EQUAL(op_group_find(&f.w, "b.g", 3, OP_BAD_GROUP, &gidx),
	    OP_BAD_GROUP);
	CU_ASSERT_EQUAL(f.auth.denials, 1);
	CU_ASSERT_EQUAL(op_group_offsets(&f.x, "b.g", 3, &q, 1),
	    OP_DENIED_GROUP);
	CU_ASSERT_EQUAL(op_group_describe(&f.x, "b.g", 3, &d), OP_DENIED_GROUP);
	CU_ASSERT_EQUAL(op_group_delete(&f.x, "b.g", 3), OP_DENIED_GROUP);
	/* Read on "a.": a member, and listed; no delete, so no reset. */
	a.group = "a.g";
	memset(&st, 0, sizeof(st));
	if (op_group_join(&f.x, &a, &st) == OP_WAIT) {
		f.w.now = st.deadline;
		(void)op_group_join_poll(&f.x, &st);
	}
	CU_ASSERT_EQUAL(st.err, OP_OK);
	CU_ASSERT_EQUAL(op_group_create(&f.w, "b.h", 3, 0, &gidx), OP_OK);
	CU_ASSERT_EQUAL(op_group_list(&f.x, &l, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(l[0].name_len, 3);
	CU_ASSERT_EQUAL(memcmp(l[0].name, "a.g", 3), 0);
	CU_ASSERT_EQUAL(op_group_reset(&f.x, &ra, &res, &rn), OP_DENIED_GROUP);
	CU_ASSERT_EQUAL(op_group_delete(&f.x, "a.g", 3), OP_DENIED_GROUP);
	/* bob: no group at all. */
	f.auth.user = auth_find_in(auth_table_current(), "bob", 3);
	CU_ASSERT_EQUAL(op_group_heartbeat(&f.x, "a.g", 3, st.id, st.id_len,
	    st.generation), OP_DENIED_GROUP);
	CU_ASSERT_EQUAL(op_group_list(&f.x, &l, &n), OP_OK);
	CU_ASSERT_EQUAL(n, 0);
	auth_unload();
	fixture_op_done(&f);
}

TEST_SUITE("op_group", NULL, NULL,
    { "group table: lookup, creation, lock, slots", test_table },
    { "native membership: join, heartbeat, leave", test_membership },
    { "commit then fetch committed offsets", test_commit_fetch },
    { "reset to an offset, earliest, latest, a time", test_reset },
    { "describe, list and delete", test_describe_list_delete },
    { "a group denied by the auth table", test_denied });
