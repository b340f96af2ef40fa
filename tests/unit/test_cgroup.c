/*
 * shm/cgroup.c, Kafka's consumer group protocol (KIP-848), on a real
 * shared region: the range assignor's exact ranges, the uniform one's
 * stickiness with members of different subscriptions, revoke-then-assign
 * on one partition, a member whose rebalance timeout passes while it
 * revokes, session expiry, a heartbeat's client id and host (a static
 * member taken over shows the new instance's), and the crash rule (a torn member slot is
 * dropped and the group epoch bumped, after which every target is
 * computed again).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/kafka/kapi.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "tests/harness.h"

static struct shm s;
static char name[64];
static int ta, tb;
static const struct group_params gp = { 30000, 1000, 60000, 0,
    2000, 500, CG_ASSIGNOR_UNIFORM, 0, 3 };

static int
suite_setup(void)
{
	struct shm_limits lim;

	memset(&lim, 0, sizeof(lim));
	lim.child_slots = 2;
	lim.max_topics = 4;
	lim.max_partitions = 32;
	lim.ring_size = 4096;
	lim.max_groups = 8;
	lim.max_group_members = 4;
	lim.member_meta = 1024;
	snprintf(name, sizeof(name), "/flume-test-cgroup-%ld", (long)getpid());
	if (shm_create(&s, name, &lim) == -1)
		return -1;
	if (shm_topic_create(&s, "ta", 2, 5, &ta) == -1 ||
	    shm_topic_create(&s, "tb", 2, 4, &tb) == -1)
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

static struct shm_group *
new_group(const char *n)
{
	int idx = group_create(&s, n, strlen(n), 1);

	CU_ASSERT_FATAL(idx >= 0);
	return group_at(&s, (uint32_t)idx);
}

/*
 * A heartbeat of id at epoch; topics "ta", "tb" or "ta,tb" on a join
 * (NULL: unchanged); owned: a mask per topic (ta low 16 bits, tb high),
 * -1 unsaid.  The error; *assigned the member's assigned mask after.
 */
static int16_t
hb(struct shm_group *g, const char *id, int32_t epoch, const char *topics,
    uint32_t assignor, int64_t owned, int64_t now, uint32_t *assigned,
    int32_t *out_epoch)
{
	struct cgroup_hb_in in;
	struct cg_tp own[32], v[64];
	const char *names[2];
	size_t lens[2];
	uint32_t n, k, mask = 0;
	int16_t e;
	int member = -1, i;

	memset(&in, 0, sizeof(in));
	in.member_id = id;
	in.member_id_len = strlen(id);
	in.epoch = epoch;
	in.client_id = "c";
	in.client_id_len = 1;
	in.rebalance_timeout_ms = epoch == 0 ? 1000 : -1;
	in.assignor = assignor;
	if (topics != NULL) {
		in.names_set = 1;
		in.nnames = 0;
		if (strstr(topics, "ta") != NULL) {
			names[in.nnames] = "ta";
			lens[in.nnames++] = 2;
		}
		if (strstr(topics, "tb") != NULL) {
			names[in.nnames] = "tb";
			lens[in.nnames++] = 2;
		}
		in.names = names;
		in.name_lens = lens;
	}
	if (owned >= 0) {
		in.owned_set = 1;
		in.owned = own;
		for (i = 0; i < 32; i++)
			if (owned & (1ll << i)) {
				own[in.nowned].topic = (uint32_t)(i < 16 ? ta : tb);
				own[in.nowned++].partition = i % 16;
			}
	}
	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) >= 0);
	e = cgroup_heartbeat(&s, g, &in, now, &gp, &member);
	if (e == KERR_NONE && member >= 0) {
		n = cgroup_list(&s, g, (uint32_t)member, CG_ASSIGNED, v, 64);
		for (k = 0; k < n; k++)
			mask |= 1u << (v[k].partition +
			    (v[k].topic == (uint32_t)ta ? 0 : 16));
		if (out_epoch != NULL)
			*out_epoch = group_member_at(&s, g,
			    (uint32_t)member)->cg_epoch;
	}
	group_unlock(g);
	if (assigned != NULL)
		*assigned = mask;
	return e;
}

static void
test_range(void)
{
	struct shm_group *g = new_group("crange");
	uint32_t a = 0, b = 0;
	int32_t ea = 0, eb = 0;

	CU_ASSERT_EQUAL(hb(g, "m-a", 0, "ta,tb", CG_ASSIGNOR_RANGE, 0, 1000,
	    &a, &ea), KERR_NONE);
	CU_ASSERT_EQUAL(a, 0x1f | (0xfu << 16));
	CU_ASSERT_EQUAL(hb(g, "m-b", 0, "ta,tb", CG_ASSIGNOR_RANGE, 0, 1000,
	    &b, &eb), KERR_NONE);
	CU_ASSERT_EQUAL(b, 0);
	CU_ASSERT_EQUAL(eb, ea + 1);
	CU_ASSERT_EQUAL(g->cg_assignor, CG_ASSIGNOR_RANGE);
	/* Per topic: ta 0-2 and 3-4, tb 0-1 and 2-3. */
	CU_ASSERT_EQUAL(hb(g, "m-a", ea, NULL, 0, a, 1010, &a, &ea),
	    KERR_NONE);
	CU_ASSERT_EQUAL(a, 0x07 | (0x3u << 16));
	CU_ASSERT_EQUAL(ea, eb - 1);	/* revoking: its epoch stays */
	CU_ASSERT_EQUAL(hb(g, "m-a", ea, NULL, 0, a, 1020, &a, &ea),
	    KERR_NONE);
	CU_ASSERT_EQUAL(ea, eb);
	CU_ASSERT_EQUAL(hb(g, "m-b", eb, NULL, 0, 0, 1030, &b, &eb),
	    KERR_NONE);
	CU_ASSERT_EQUAL(b, 0x18 | (0xcu << 16));
	/* An epoch ahead of the member's is fenced; nothing changes. */
	CU_ASSERT_EQUAL(hb(g, "m-b", eb + 1, NULL, 0, b, 1040, NULL, NULL),
	    KERR_FENCED_MEMBER_EPOCH);
	CU_ASSERT_STRING_EQUAL(cgroup_state_name(&s, g), "Stable");
}

/*
 * Uniform with different subscriptions: x reads ta and tb, y only ta.
 * y's share comes from ta; x keeps what it had.
 */
static void
test_uniform_sticky(void)
{
	struct shm_group *g = new_group("cuni");
	uint32_t x = 0, y = 0, x2 = 0;
	int32_t ex = 0, ey = 0;
	int i;

	CU_ASSERT_EQUAL(hb(g, "x", 0, "ta,tb", 0, 0, 1000, &x, &ex),
	    KERR_NONE);
	CU_ASSERT_EQUAL(x, 0x1f | (0xfu << 16));
	CU_ASSERT_EQUAL(hb(g, "y", 0, "ta", 0, 0, 1000, &y, &ey), KERR_NONE);
	CU_ASSERT_EQUAL(y, 0);		/* all held by x */
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(hb(g, "x", ex, NULL, 0, x, 1100 + i, &x2, &ex),
		    KERR_NONE);
		/* x never gives up what it keeps: only ta's go. */
		CU_ASSERT_EQUAL(x2 & ~x, 0);
		CU_ASSERT_EQUAL(x2 & (0xfu << 16), 0xfu << 16);
		x = x2;
		CU_ASSERT_EQUAL(hb(g, "y", ey, NULL, 0, y, 1100 + i, &y, &ey),
		    KERR_NONE);
		CU_ASSERT_EQUAL(x & y, 0);
	}
	/* 9 partitions, shares 5 and 4 (y can only take ta's). */
	CU_ASSERT_EQUAL(__builtin_popcount(x), 5);
	CU_ASSERT_EQUAL(__builtin_popcount(y), 4);
	CU_ASSERT_EQUAL(y & (0xfu << 16), 0);
	CU_ASSERT_EQUAL(ex, (int32_t)g->cg_assign_epoch);
	CU_ASSERT_EQUAL(ey, (int32_t)g->cg_assign_epoch);
	CU_ASSERT_STRING_EQUAL(cgroup_state_name(&s, g), "Stable");
}

/* A member that never releases within its rebalance timeout is removed. */
static void
test_revoke_timeout_and_expiry(void)
{
	struct shm_group *g = new_group("crevoke");
	uint32_t p = 0, q = 0;
	int32_t ep = 0, eq = 0;
	uint32_t gen;

	CU_ASSERT_EQUAL(hb(g, "p", 0, "ta", 0, 0, 1000, &p, &ep), KERR_NONE);
	CU_ASSERT_EQUAL(hb(g, "q", 0, "ta", 0, 0, 1000, &q, &eq), KERR_NONE);
	CU_ASSERT_EQUAL(hb(g, "p", ep, NULL, 0, p, 1100, &p, &ep), KERR_NONE);
	CU_ASSERT_EQUAL(p, 0x07);	/* revoking 3, 4 */
	CU_ASSERT_STRING_EQUAL(cgroup_state_name(&s, g), "Reconciling");
	/* p says it still owns 3 and 4: nothing moves. */
	CU_ASSERT_EQUAL(hb(g, "p", ep, NULL, 0, 0x1f, 1200, &p, NULL),
	    KERR_NONE);
	CU_ASSERT_EQUAL(hb(g, "q", eq, NULL, 0, 0, 1200, &q, &eq), KERR_NONE);
	CU_ASSERT_EQUAL(q, 0);
	/*
	 * The writer's next tick (group_due()) is the ms after p's
	 * revocation deadline (1100 + 1000), before any session ends
	 * (p's at 1200 + 2000, q's at 1200 + 2000).
	 */
	CU_ASSERT_FATAL(group_lock(&s, g, 1200, &gp) >= 0);
	CU_ASSERT_EQUAL(group_due(&s, g), 2101);
	group_unlock(g);
	gen = g->generation;
	/* Its rebalance timeout (1 s from 1100) passes: it is removed. */
	CU_ASSERT_EQUAL(hb(g, "q", eq, NULL, 0, 0, 2101, &q, &eq), KERR_NONE);
	CU_ASSERT_EQUAL(g->generation, gen + 1);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	CU_ASSERT_EQUAL(q, 0x1f);
	CU_ASSERT_EQUAL(hb(g, "p", ep, NULL, 0, -1, 2101, NULL, NULL),
	    KERR_UNKNOWN_MEMBER_ID);
	/* Nothing revoking: the session end of q (last seen at 2101). */
	CU_ASSERT_FATAL(group_lock(&s, g, 2101, &gp) >= 0);
	CU_ASSERT_EQUAL(group_due(&s, g), 2101 + 2000 + 1);
	group_unlock(g);
	/* Session expiry (2 s) through the tick, as the writer runs it. */
	CU_ASSERT_FATAL(group_lock(&s, g, 4102, &gp) >= 0);
	CU_ASSERT_EQUAL(group_tick(&s, g, 4102, &gp), 1);
	group_unlock(g);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 0);
	CU_ASSERT_STRING_EQUAL(cgroup_state_name(&s, g), "Empty");
	CU_ASSERT_EQUAL(group_due(&s, g), INT64_MAX);
}

/* The crash rule: a torn slot is dropped, the epoch bumped, targets redone. */
static void
test_repair(void)
{
	struct shm_group *g = new_group("crepair");
	uint32_t u = 0, v = 0, bad = 99999;
	int32_t eu = 0, ev = 0;
	uint32_t gen;
	int iv;

	CU_ASSERT_EQUAL(hb(g, "u", 0, "tb", 0, 0, 1000, &u, &eu), KERR_NONE);
	CU_ASSERT_EQUAL(hb(g, "v", 0, "tb", 0, 0, 1000, &v, &ev), KERR_NONE);
	CU_ASSERT_EQUAL(hb(g, "u", eu, NULL, 0, u, 1010, &u, &eu), KERR_NONE);
	CU_ASSERT_EQUAL(hb(g, "u", eu, NULL, 0, u, 1020, &u, &eu), KERR_NONE);
	CU_ASSERT_EQUAL(hb(g, "v", ev, NULL, 0, 0, 1030, &v, &ev), KERR_NONE);
	CU_ASSERT_EQUAL(u | v, 0xfu << 16);
	CU_ASSERT_EQUAL(u & v, 0);
	/* v's slot torn: a list count over the space. */
	iv = group_member_find(&s, g, "v", 1);
	CU_ASSERT_FATAL(iv >= 0);
	memcpy(group_assign(&s, g, (uint32_t)iv), &bad, 4);
	gen = g->generation;
	CU_ASSERT_FATAL(group_lock(&s, g, 1040, &gp) >= 0);
	cgroup_repair(&s, g, 1040, &gp);
	group_unlock(g);
	CU_ASSERT_EQUAL(g->generation, gen + 1);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	/* u's next heartbeat: a new target, all four, at the new epoch. */
	CU_ASSERT_EQUAL(hb(g, "u", eu, NULL, 0, u, 1050, &u, &eu), KERR_NONE);
	CU_ASSERT_EQUAL(u, 0xfu << 16);
	CU_ASSERT_EQUAL(eu, (int32_t)g->generation);
	CU_ASSERT_EQUAL(g->cg_assign_epoch, g->generation);
}

/* One heartbeat of static member (id, instance "inst") from client. */
static int16_t
static_hb(struct shm_group *g, const char *id, int32_t epoch,
    const char *client, const char *host, int64_t now, int *member)
{
	static const char *names[1] = { "ta" };
	static const size_t lens[1] = { 2 };
	struct cgroup_hb_in in;
	int16_t e;

	memset(&in, 0, sizeof(in));
	in.member_id = id;
	in.member_id_len = strlen(id);
	in.epoch = epoch;
	in.instance = "inst";
	in.instance_len = 4;
	in.client_id = client;
	in.client_id_len = strlen(client);
	in.host = host;
	in.host_len = strlen(host);
	in.rebalance_timeout_ms = epoch == 0 ? 1000 : -1;
	if (epoch == 0) {
		in.names_set = 1;
		in.names = names;
		in.name_lens = lens;
		in.nnames = 1;
	}
	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) >= 0);
	e = cgroup_heartbeat(&s, g, &in, now, &gp, member);
	group_unlock(g);
	return e;
}

static int
has_client(struct shm_group *g, int member, const char *client,
    const char *host)
{
	const struct shm_member *m = group_member_at(&s, g, (uint32_t)member);

	return m->client_len == strlen(client) &&
	    memcmp(m->client, client, m->client_len) == 0 &&
	    strcmp(m->host, host) == 0;
}

/*
 * Kafka sets a member's client id and host from every heartbeat: a static
 * member taken over by a new instance shows the new one's.
 */
static void
test_client_update(void)
{
	struct shm_group *g = new_group("cclient");
	int i1 = -1, i2 = -1, i3 = -1;

	CU_ASSERT_EQUAL(static_hb(g, "s1", 0, "old", "/10.0.0.1", 1000, &i1),
	    KERR_NONE);
	CU_ASSERT_FATAL(i1 >= 0);
	CU_ASSERT(has_client(g, i1, "old", "/10.0.0.1"));
	CU_ASSERT_EQUAL(static_hb(g, "s1", -2, "old", "/10.0.0.1", 1010, &i1),
	    KERR_NONE);
	CU_ASSERT_EQUAL(static_hb(g, "s2", 0, "new", "/10.0.0.2", 1020, &i2),
	    KERR_NONE);
	CU_ASSERT_EQUAL(i2, i1);	/* its place */
	CU_ASSERT(has_client(g, i2, "new", "/10.0.0.2"));
	CU_ASSERT_EQUAL(static_hb(g, "s2",
	    group_member_at(&s, g, (uint32_t)i2)->cg_epoch, "newer",
	    "/10.0.0.3", 1030, &i3), KERR_NONE);
	CU_ASSERT_EQUAL(i3, i2);
	CU_ASSERT(has_client(g, i3, "newer", "/10.0.0.3"));
}

TEST_SUITE("cgroup", suite_setup, suite_teardown,
    { "a heartbeat sets the member's client id and host (static takeover)", test_client_update },
    { "range: consecutive ranges per topic", test_range },
    { "uniform: balanced by subscription, sticky", test_uniform_sticky },
    { "revoke timeout removes a member (the writer's due time); session expiry", test_revoke_timeout_and_expiry },
    { "a torn slot is dropped, the epoch bumped", test_repair });
