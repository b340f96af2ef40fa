/*
 * shm/group.c on a real shared region: the assignment rule (every
 * partition one owner, shares within one, deterministic), the state
 * machine (join, rebalance, rejoin, heartbeat answers, leave, session
 * expiry, rebalance timeout, fencing of commits) and the crash rule (a
 * process that dies holding a group's lock leaves a group that the next
 * locker repairs with a new generation).
 */
#include <sys/wait.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm/group.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "tests/harness.h"

#define SESSION		1500
#define REBALANCE	3000

static struct shm s;
static char name[64];
static int t6, t2;		/* topics with 6 and 2 partitions */
static const struct group_params gp = { REBALANCE, 1000, 60000, 0,
    45000, 5000, 1, 0, 3 };

static int
suite_setup(void)
{
	struct shm_limits lim;

	memset(&lim, 0, sizeof(lim));
	lim.child_slots = 2;
	lim.max_topics = 4;
	lim.max_partitions = 16;
	lim.ring_size = 4096;
	lim.max_groups = 7;
	lim.max_group_members = 4;
	snprintf(name, sizeof(name), "/flume-test-group-%ld", (long)getpid());
	if (shm_create(&s, name, &lim) == -1)
		return -1;
	if (shm_topic_create(&s, "t6", 2, 6, &t6) == -1 ||
	    shm_topic_create(&s, "t2", 2, 2, &t2) == -1)
		return -1;
	return 0;
}

static int
suite_teardown(void)
{
	shm_detach(&s);
	shm_unlink_name(name);
	return 0;
}

/* A fresh group named n (each test uses its own). */
static struct shm_group *
new_group(const char *n)
{
	int idx = group_create(&s, n, strlen(n), 1);

	CU_ASSERT_FATAL(idx >= 0);
	return group_at(&s, (uint32_t)idx);
}

/* Join as a new member (id returned in id[65]) or rejoin as id. */
static int
join(struct shm_group *g, char *id, int64_t now, const uint32_t *topics,
    uint32_t nt)
{
	struct group_join_in in;
	struct shm_member *m;
	int member = -1;
	int16_t err;

	memset(&in, 0, sizeof(in));
	in.member_id = id;
	in.member_id_len = strlen(id);
	in.client_id = "test client";
	in.client_id_len = 11;
	in.session_timeout_ms = SESSION;
	in.topics = topics;
	in.ntopics = nt;
	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	err = group_join(&s, g, &in, now, &gp, &member);
	CU_ASSERT_EQUAL(err, ERR_NONE);
	if (err == ERR_NONE) {
		m = group_member_at(&s, g, (uint32_t)member);
		memcpy(id, m->id, m->id_len);
		id[m->id_len] = '\0';
	}
	group_unlock(g);
	return member;
}

static int
ready(struct shm_group *g, int member, const char *id, int64_t now)
{
	int rc;

	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	rc = group_join_ready(&s, g, member, id, strlen(id), now, &gp);
	group_unlock(g);
	return rc;
}

static int16_t
heartbeat(struct shm_group *g, const char *id, int32_t gen, int64_t now)
{
	int16_t e;

	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	e = group_heartbeat(&s, g, id, strlen(id), gen, now, &gp);
	group_unlock(g);
	return e;
}

/* Member's partition slots; returns how many. */
static uint32_t
assigned(struct shm_group *g, int member, uint32_t *slots)
{
	uint32_t n;

	CU_ASSERT_FATAL(group_lock(&s, g, 0, &gp) == 0);
	n = group_assignment(&s, g, member, slots, 16);
	group_unlock(g);
	return n;
}

static uint32_t
slot_of(int topic, int32_t p)
{
	return (uint32_t)(shm_partition(&s, topic, p) - s.parts);
}

static void
test_assign_rule(void)
{
	uint32_t owner[64], again[64], count[8];
	uint32_t m, n, k, lo, hi;

	for (m = 1; m <= 7; m++) {
		for (n = 0; n <= 40; n++) {
			memset(count, 0, sizeof(count));
			group_assign_rr(m, n, owner);
			group_assign_rr(m, n, again);
			CU_ASSERT(n == 0 || memcmp(owner, again, n * 4) == 0);
			for (k = 0; k < n; k++) {
				CU_ASSERT(owner[k] < m);
				count[owner[k]]++;
			}
			lo = hi = count[0];
			for (k = 0; k < m; k++) {
				lo = count[k] < lo ? count[k] : lo;
				hi = count[k] > hi ? count[k] : hi;
			}
			CU_ASSERT(hi - lo <= 1);
			CU_ASSERT_EQUAL(count[0], (n + m - 1) / m);
		}
	}
}

static void
test_create_find(void)
{
	struct shm_group *g;
	int a, b;

	a = group_create(&s, "cf", 2, 1);
	b = group_create(&s, "cf", 2, 1);
	CU_ASSERT(a >= 0);
	CU_ASSERT_EQUAL(a, b);
	CU_ASSERT_EQUAL(group_find(&s, "cf", 2), a);
	CU_ASSERT_EQUAL(group_find(&s, "cg", 2), -1);
	g = group_at(&s, (uint32_t)a);
	CU_ASSERT_EQUAL(g->state, GROUP_EMPTY);
	CU_ASSERT_EQUAL(g->generation, 0);
	CU_ASSERT_EQUAL(group_offset_get(&s, g, 0), -1);
	CU_ASSERT_EQUAL(group_offset_get(&s, g, 15), -1);
	CU_ASSERT_EQUAL(group_offset_get(&s, g, 16), -1);	/* outside */
	group_offset_set(&s, g, 3, 42);
	CU_ASSERT_EQUAL(group_offset_get(&s, g, 3), 42);
	CU_ASSERT_EQUAL(atomic_load(&g->commit_seq), 1);
}

/*
 * Three members on 6 partitions: the first is answered at once, each new
 * one starts a generation the others learn of by heartbeat and rejoin;
 * in the end each holds two partitions and together all six once.
 */
static void
test_three_members(void)
{
	struct shm_group *g = new_group("three");
	uint32_t topics[1] = { (uint32_t)t6 }, sl[3][16], n[3], seen[16];
	char id[3][MEMBER_ID_MAX + 1] = { "", "", "" };
	int mem[3], i, j;
	int64_t now = 1000000;

	mem[0] = join(g, id[0], now, topics, 1);
	CU_ASSERT_EQUAL(ready(g, mem[0], id[0], now), 1);
	CU_ASSERT_EQUAL(g->generation, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(assigned(g, mem[0], sl[0]), 6);
	for (j = 0; j < 6; j++)
		CU_ASSERT_EQUAL(sl[0][j], slot_of(t6, j));
	CU_ASSERT_EQUAL(strncmp(id[0], "test_client-", 12), 0);
	CU_ASSERT_EQUAL(strlen(id[0]), 12 + 16);

	mem[1] = join(g, id[1], now + 10, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(g->generation, 2);
	CU_ASSERT_EQUAL(ready(g, mem[1], id[1], now + 10), 0);
	CU_ASSERT_EQUAL(heartbeat(g, id[0], 1, now + 20), ERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(join(g, id[0], now + 30, topics, 1), mem[0]);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(ready(g, mem[1], id[1], now + 30), 1);
	CU_ASSERT_EQUAL(ready(g, mem[0], id[0], now + 30), 1);

	mem[2] = join(g, id[2], now + 40, topics, 1);
	CU_ASSERT_EQUAL(g->generation, 3);
	CU_ASSERT_EQUAL(heartbeat(g, id[0], 2, now + 50), ERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(heartbeat(g, id[1], 2, now + 50), ERR_REBALANCE_IN_PROGRESS);
	join(g, id[1], now + 60, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	join(g, id[0], now + 70, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 3);

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(ready(g, mem[i], id[i], now + 80), 1);
		CU_ASSERT_EQUAL(heartbeat(g, id[i], 3, now + 80), ERR_NONE);
		n[i] = assigned(g, mem[i], sl[i]);
		CU_ASSERT_EQUAL(n[i], 2);
		for (j = 0; j < (int)n[i] && j < 16; j++)
			seen[sl[i][j]]++;
	}
	for (j = 0; j < 6; j++)
		CU_ASSERT_EQUAL(seen[slot_of(t6, j)], 1);
	/* Nothing changed: the same answer again, in the same generation. */
	for (i = 0; i < 3; i++) {
		uint32_t again[16];

		CU_ASSERT_EQUAL(assigned(g, mem[i], again), 2);
		CU_ASSERT_EQUAL(memcmp(again, sl[i], 2 * sizeof(uint32_t)), 0);
	}
	CU_ASSERT_EQUAL(join(g, id[2], now + 90, topics, 1), mem[2]);
	CU_ASSERT_EQUAL(g->generation, 3);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(heartbeat(g, id[0], 2, now + 90), ERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(heartbeat(g, "nobody", 3, now + 90), ERR_UNKNOWN_MEMBER);
}

/* A commit checked as member id of generation gen; *prev as it answered. */
static int16_t
commit_check(struct shm_group *g, const char *id, int32_t gen, int64_t now,
    int *prev)
{
	int16_t e;

	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	e = group_commit_check(&s, g, id, strlen(id), gen, now, &gp, prev);
	group_unlock(g);
	return e;
}

static void
test_commit_fencing(void)
{
	struct shm_group *g = new_group("fence");
	uint32_t topics[1] = { (uint32_t)t2 };
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "";
	int64_t now = 2000000;
	int prev;

	join(g, a, now, topics, 1);
	CU_ASSERT_EQUAL(commit_check(g, a, 1, now, &prev), ERR_NONE);
	CU_ASSERT_EQUAL(prev, -1);
	join(g, b, now + 1, topics, 1);	/* generation 2 */
	join(g, a, now + 2, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(commit_check(g, a, 1, now + 3, &prev),
	    ERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(commit_check(g, "ghost", 2, now + 3, &prev),
	    ERR_UNKNOWN_MEMBER);
	CU_ASSERT_EQUAL(commit_check(g, b, 2, now + 3, &prev), ERR_NONE);
	CU_ASSERT_EQUAL(prev, -1);
}

/* A silent member is dropped after its session; the survivor gets all. */
static void
test_session_expiry(void)
{
	struct shm_group *g = new_group("expiry");
	uint32_t topics[1] = { (uint32_t)t6 }, sl[16];
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "";
	int ma, mb;
	int64_t now = 3000000;

	ma = join(g, a, now, topics, 1);
	mb = join(g, b, now, topics, 1);
	join(g, a, now, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(assigned(g, ma, sl), 3);
	CU_ASSERT_EQUAL(assigned(g, mb, sl), 3);
	/* a heartbeats, b is silent; at exactly its session b survives. */
	CU_ASSERT_EQUAL(heartbeat(g, a, 2, now + SESSION), ERR_NONE);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	CU_ASSERT_EQUAL(heartbeat(g, a, 2, now + SESSION + 1),
	    ERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	CU_ASSERT_EQUAL(g->generation, 3);
	join(g, a, now + SESSION + 2, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(assigned(g, ma, sl), 6);
	CU_ASSERT_EQUAL(heartbeat(g, b, 2, now + SESSION + 3), ERR_UNKNOWN_MEMBER);
}

/* Who does not rejoin before the rebalance timeout is dropped. */
static void
test_rebalance_timeout(void)
{
	struct shm_group *g = new_group("timeout");
	uint32_t topics[1] = { (uint32_t)t6 }, sl[16];
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "";
	char c[MEMBER_ID_MAX + 1] = "";
	int ma, mc;
	int64_t now = 4000000;

	ma = join(g, a, now, topics, 1);
	join(g, b, now, topics, 1);
	join(g, a, now, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	mc = join(g, c, now + 100, topics, 1);	/* generation 3 */
	/* b keeps heartbeating but never rejoins; a rejoins. */
	join(g, a, now + 200, topics, 1);
	CU_ASSERT_EQUAL(heartbeat(g, b, 2, now + 1000), ERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(heartbeat(g, b, 2, now + 2000), ERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(ready(g, mc, c, now + 2500), 0);
	CU_ASSERT_EQUAL(heartbeat(g, b, 2, now + 3000), ERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(ready(g, mc, c, now + 100 + REBALANCE - 1), 0);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 3);
	CU_ASSERT_EQUAL(ready(g, mc, c, now + 100 + REBALANCE), 1);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	CU_ASSERT_EQUAL(g->generation, 3);
	CU_ASSERT_EQUAL(assigned(g, ma, sl) + assigned(g, mc, sl), 6);
	CU_ASSERT_EQUAL(heartbeat(g, b, 2, now + 100 + REBALANCE), ERR_UNKNOWN_MEMBER);
}

static void
test_leave_and_limits(void)
{
	struct shm_group *g = new_group("leave");
	uint32_t topics[2] = { (uint32_t)t6, (uint32_t)t2 }, sl[16];
	char id[5][MEMBER_ID_MAX + 1] = { "", "", "", "", "" };
	struct group_join_in in;
	int m0, member, i;
	int64_t now = 5000000;

	m0 = join(g, id[0], now, topics, 2);
	CU_ASSERT_EQUAL(assigned(g, m0, sl), 8);
	CU_ASSERT_EQUAL(sl[6], slot_of(t2, 0));	/* topics in index order */
	join(g, id[1], now, topics, 2);
	join(g, id[0], now, topics, 2);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(g->generation, 2);
	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	CU_ASSERT_EQUAL(group_leave(&s, g, id[1], strlen(id[1]), now, &gp), ERR_NONE);
	CU_ASSERT_EQUAL(group_leave(&s, g, id[1], strlen(id[1]), now, &gp),
	    ERR_UNKNOWN_MEMBER);
	group_unlock(g);
	CU_ASSERT_EQUAL(g->generation, 3);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	join(g, id[0], now + 1, topics, 2);
	CU_ASSERT_EQUAL(assigned(g, m0, sl), 8);

	/* A session outside the bounds, then a full member table. */
	memset(&in, 0, sizeof(in));
	in.member_id = "";
	in.client_id = "x";
	in.client_id_len = 1;
	in.session_timeout_ms = 999;
	in.topics = topics;
	in.ntopics = 1;
	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	CU_ASSERT_EQUAL(group_join(&s, g, &in, now, &gp, &member),
	    ERR_INVALID_SESSION_TIMEOUT);
	in.session_timeout_ms = SESSION;
	in.ntopics = 0;
	CU_ASSERT_EQUAL(group_join(&s, g, &in, now, &gp, &member),
	    ERR_INVALID_REQUEST);
	in.ntopics = 1;
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(group_join(&s, g, &in, now, &gp, &member), ERR_NONE);
	CU_ASSERT_EQUAL(group_join(&s, g, &in, now, &gp, &member),
	    ERR_RESOURCE_LIMIT);
	in.member_id = "unknown";
	in.member_id_len = 7;
	CU_ASSERT_EQUAL(group_join(&s, g, &in, now, &gp, &member),
	    ERR_UNKNOWN_MEMBER);
	group_unlock(g);
	/* Six groups so far: a seventh fits, an eighth is refused. */
	CU_ASSERT(group_create(&s, "x1", 2, 1) >= 0);
	CU_ASSERT_EQUAL(group_create(&s, "x2", 2, 1), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
}

/*
 * A child locks a stable group, half-writes a member slot (ACTIVE with no
 * id) and dies holding the lock: the next locker repairs it (the broken
 * slot freed, a new generation), and the survivor's rejoin completes it.
 */
static void
test_crash_repair(void)
{
	struct shm_group *g;
	uint32_t topics[1] = { (uint32_t)t2 }, sl[16];
	char a[MEMBER_ID_MAX + 1] = "";
	struct shm_member *m;
	int ma, st, rc;
	pid_t pid;
	int64_t now = 6000000;

	/* Re-use the empty group of test_create_find (the table is full). */
	g = group_at(&s, (uint32_t)group_find(&s, "cf", 2));
	CU_ASSERT_FATAL(g != NULL);
	ma = join(g, a, now, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(g->generation, 1);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		if (group_lock(&s, g, now, &gp) != 0)
			_exit(1);
		m = group_member_at(&s, g, (uint32_t)(ma == 0 ? 1 : 0));
		m->id_len = 0;
		atomic_store(&m->state, MEMBER_ACTIVE);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);	/* the torn slot */
	rc = group_lock(&s, g, now + 1, &gp);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	CU_ASSERT_EQUAL(g->generation, 2);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	group_unlock(g);
	CU_ASSERT_EQUAL(heartbeat(g, a, 1, now + 2), ERR_REBALANCE_IN_PROGRESS);
	/* A JOIN parked when the repair happened rejoins by itself. */
	CU_ASSERT_EQUAL(ready(g, ma, a, now + 3), 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(assigned(g, ma, sl), 2);
	CU_ASSERT_EQUAL(heartbeat(g, a, 2, now + 4), ERR_NONE);
	/* The lock works normally again. */
	CU_ASSERT_EQUAL(group_lock(&s, g, now + 5, &gp), 0);
	group_unlock(g);
}


/*
 * Two members stop together: a leaves first (a new generation begins),
 * b's last commit, of the generation just ended, is taken for exactly
 * the partitions b owned in it, until the next generation completes.
 */
static void
test_prev_generation_commit(void)
{
	struct shm_group *g = new_group("pg");
	uint32_t topics[1] = { (uint32_t)t6 }, sl[16], i, owned = 0;
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "";
	int64_t now = 8000000;
	int ma, mb, prev, n, k, mine;

	ma = join(g, a, now, topics, 1);
	mb = join(g, b, now, topics, 1);
	join(g, a, now, topics, 1);
	CU_ASSERT_EQUAL_FATAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL_FATAL(g->generation, 2);
	CU_ASSERT_EQUAL(assigned(g, ma, sl), 3);
	n = (int)assigned(g, mb, sl);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_FATAL(group_lock(&s, g, now + 1, &gp) == 0);
	CU_ASSERT_EQUAL(group_leave(&s, g, a, strlen(a), now + 1, &gp), ERR_NONE);
	group_unlock(g);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(g->generation, 3);
	/* b has not rejoined: its generation-2 commit is taken ... */
	CU_ASSERT_EQUAL(commit_check(g, b, 2, now + 2, &prev), ERR_NONE);
	CU_ASSERT_EQUAL(prev, mb);
	/* ... for its own partitions of generation 2 only. */
	for (i = 0; i < 6; i++) {
		for (mine = 0, k = 0; k < n; k++)
			if (sl[k] == slot_of(t6, (int32_t)i))
				mine = 1;
		CU_ASSERT_EQUAL(group_prev_owned(&s, g, mb,
		    slot_of(t6, (int32_t)i)), mine);
		owned += (uint32_t)mine;
	}
	CU_ASSERT_EQUAL(owned, 3);
	CU_ASSERT_EQUAL(group_prev_owned(&s, g, mb, slot_of(t2, 0)), 0);
	CU_ASSERT_EQUAL(commit_check(g, b, 1, now + 2, &prev),
	    ERR_ILLEGAL_GENERATION);
	/* Generation 3 completes: b owns all; generation 2 is fenced again. */
	join(g, b, now + 3, topics, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(assigned(g, mb, sl), 6);
	CU_ASSERT_EQUAL(commit_check(g, b, 2, now + 4, &prev),
	    ERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(commit_check(g, b, 3, now + 4, &prev), ERR_NONE);
	CU_ASSERT_EQUAL(prev, -1);
}

/*
 * The table is full (seven groups): deletion takes an empty group out of
 * sight, the freed slot is reused with no offsets; groups with members
 * (or a commit since the writer looked) are not deleted; the last slot
 * is kept for a group that a member joins.
 */
static void
test_delete_and_room(void)
{
	struct shm_group *g;
	uint32_t topics[1] = { (uint32_t)t2 };
	char a[MEMBER_ID_MAX + 1] = "";
	int64_t now = 90000000;	/* every earlier member is silent by then */
	uint64_t seq;
	int x1, j1, fence;

	CU_ASSERT_EQUAL(group_count(&s), 7);
	CU_ASSERT_EQUAL(group_reserved(&s.hdr->limits), 1);
	CU_ASSERT_EQUAL(group_create(&s, "c1", 2, 0), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	CU_ASSERT_EQUAL(group_create(&s, "j1", 2, 1), -1);
	x1 = group_find(&s, "x1", 2);
	CU_ASSERT_FATAL(x1 >= 0);
	group_offset_set(&s, group_at(&s, (uint32_t)x1), slot_of(t2, 0), 42);
	CU_ASSERT_EQUAL(group_delete(&s, (uint32_t)x1, now, &gp, GROUP_ANY_SEQ),
	    ERR_NONE);
	CU_ASSERT_EQUAL(group_find(&s, "x1", 2), -1);
	CU_ASSERT_EQUAL(group_delete(&s, (uint32_t)x1, now, &gp, GROUP_ANY_SEQ),
	    ERR_INVALID_GROUP);
	/* Not reused before the writer removed its file. */
	CU_ASSERT_EQUAL(group_create(&s, "j1", 2, 1), -1);
	group_slot_free(&s, (uint32_t)x1);
	/* One free slot: kept for a join. */
	CU_ASSERT_EQUAL(group_create(&s, "c1", 2, 0), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	j1 = group_create(&s, "j1", 2, 1);
	CU_ASSERT_EQUAL(j1, x1);
	g = group_at(&s, (uint32_t)j1);
	CU_ASSERT_EQUAL(group_offset_get(&s, g, slot_of(t2, 0)), -1);
	CU_ASSERT_EQUAL(group_count(&s), 7);
	join(g, a, now, topics, 1);
	CU_ASSERT_EQUAL(group_delete(&s, (uint32_t)j1, now + 1, &gp,
	    GROUP_ANY_SEQ), ERR_GROUP_NOT_EMPTY);
	CU_ASSERT_EQUAL(group_find(&s, "j1", 2), j1);
	/* A commit after the writer saw the group idle keeps it. */
	fence = group_find(&s, "fence", 5);
	CU_ASSERT_FATAL(fence >= 0);
	g = group_at(&s, (uint32_t)fence);
	seq = atomic_load(&g->commit_seq);
	group_offset_set(&s, g, slot_of(t2, 1), 7);
	CU_ASSERT_EQUAL(group_delete(&s, (uint32_t)fence, now, &gp, seq),
	    ERR_GROUP_NOT_EMPTY);
	seq = atomic_load(&g->commit_seq);
	CU_ASSERT_EQUAL(group_delete(&s, (uint32_t)fence, now, &gp, seq),
	    ERR_NONE);
	group_slot_free(&s, (uint32_t)fence);
	CU_ASSERT(group_create(&s, "c2", 2, 1) == fence);
	/* Room for the next test's group. */
	CU_ASSERT_EQUAL(group_delete(&s, (uint32_t)fence, now, &gp,
	    GROUP_ANY_SEQ), ERR_NONE);
	group_slot_free(&s, (uint32_t)fence);
}

TEST_SUITE("group", suite_setup, suite_teardown,
    { "assignment rule: one owner, shares within one", test_assign_rule },
    { "create, find, offsets default to none", test_create_find },
    { "three members rebalance to two partitions each", test_three_members },
    { "commits are fenced by generation and member", test_commit_fencing },
    { "a silent member expires after its session", test_session_expiry },
    { "members that do not rejoin are dropped at the timeout", test_rebalance_timeout },
    { "leave starts a generation; bounds and limits", test_leave_and_limits },
    { "a lock holder's death is repaired by a new generation", test_crash_repair },
    { "delete, reuse, and room kept for joined groups", test_delete_and_room },
    { "a stopping member commits its partitions of the last generation",
      test_prev_generation_commit });
