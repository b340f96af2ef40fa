/*
 * shm/cgroup.c's online migration (KIP-848's upgrade and downgrade,
 * group_consumer_migration_policy) on a real shared region: a STABLE
 * classic group of two members upgraded when a consumer protocol member
 * joins (every member kept at the classic generation with its
 * assignment), the classic members' JoinGroup, SyncGroup and Heartbeat
 * answered from the consumer state while partitions move (never one in
 * two members' lists), the downgrade when the consumer member leaves
 * (at the group epoch, a classic rebalance prepared), the policies, the
 * classic APIs' errors, and the crash rule: a lock holder that dies
 * mid-upgrade leaves a classic group (rolled back), mid-downgrade a
 * classic group (rolled forward).
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/kafka/kapi.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "tests/harness.h"

#define DELAY	100

static struct shm s;
static char name[64];
static int ta;
static struct group_params gp = { 30000, 1000, 60000, DELAY,
    2000, 500, CG_ASSIGNOR_UNIFORM, 0, CG_POLICY_UPGRADE | CG_POLICY_DOWNGRADE };

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
	snprintf(name, sizeof(name), "/flume-test-cgmigrate-%ld",
	    (long)getpid());
	if (shm_create(&s, name, &lim) == -1)
		return -1;
	return shm_topic_create(&s, "ta", 2, 4, &ta) == -1 ? -1 : 0;
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

static void
lock(struct shm_group *g, int64_t now)
{
	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
}

static const struct kgroup_proto range_proto = { "range", 5,
    (const uint8_t *)"sub", 3 };

static void
join_in(struct kgroup_join_in *in, const char *id, const char *ptype,
    char *pending, size_t *plen)
{
	memset(in, 0, sizeof(*in));
	in->member_id = id;
	in->member_id_len = strlen(id);
	in->client_id = "rdkafka";
	in->client_id_len = 7;
	in->host = "127.0.0.1";
	in->host_len = 9;
	in->session_timeout_ms = 10000;
	in->rebalance_timeout_ms = 5000;
	in->ptype = ptype;
	in->ptype_len = strlen(ptype);
	in->protos = &range_proto;
	in->nprotos = 1;
	in->require_id = pending != NULL;
	in->pending = pending;
	in->pending_len = plen;
}

/* Partitions of "ta" in mask (bit p: partition p) into v. */
static uint32_t
tps(uint32_t mask, struct cg_tp *v)
{
	uint32_t n = 0;
	int32_t p;

	for (p = 0; p < 4; p++)
		if (mask & (1u << p)) {
			v[n].topic = (uint32_t)ta;
			v[n++].partition = p;
		}
	return n;
}

static uint32_t
list_mask(struct shm_group *g, int member, int which)
{
	struct cg_tp v[32];
	uint32_t n, k, mask = 0;

	n = cgroup_list(&s, g, (uint32_t)member, which, v, 32);
	for (k = 0; k < n; k++)
		mask |= 1u << v[k].partition;
	return mask;
}

static int
idx_of(struct shm_group *g, const char *id)
{
	return group_member_find(&s, g, id, strlen(id));
}

/* No partition in two members' assigned or revoking lists. */
static void
assert_disjoint(struct shm_group *g)
{
	uint32_t i, seen = 0, mine;

	for (i = 0; i < 4; i++) {
		if (atomic_load(&group_member_at(&s, g, i)->state) !=
		    MEMBER_ACTIVE)
			continue;
		mine = list_mask(g, (int)i, CG_ASSIGNED) |
		    list_mask(g, (int)i, CG_REVOKING);
		CU_ASSERT_EQUAL(seen & mine, 0);
		seen |= mine;
	}
}

/* A STABLE classic group: "a" owns ta-0,1, "b" ta-2,3, generation 1. */
static void
classic_group(struct shm_group *g, char *a, char *b)
{
	struct kgroup_join_in in;
	struct kgroup_assign_in as[2];
	int ma, mb, r;

	join_in(&in, "", "consumer", NULL, NULL);
	lock(g, 0);
	CU_ASSERT_EQUAL(kgroup_join(&s, g, &in, 0, &gp, &ma, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kgroup_join(&s, g, &in, 10, &gp, &mb, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kgroup_tick(&s, g, 10 + DELAY, &gp), 1);
	CU_ASSERT_EQUAL(g->state, GROUP_AWAITING_SYNC);
	CU_ASSERT_EQUAL(g->generation, 1);
	strcpy(a, group_member_at(&s, g, (uint32_t)g->leader)->id);
	strcpy(b, group_member_at(&s, g, (uint32_t)(g->leader == ma ? mb :
	    ma))->id);
	as[0].member_id = a;
	as[0].member_id_len = strlen(a);
	as[0].data = (const uint8_t *)"assign-a";
	as[0].len = 8;
	as[1].member_id = b;
	as[1].member_id_len = strlen(b);
	as[1].data = (const uint8_t *)"assign-b";
	as[1].len = 8;
	CU_ASSERT_EQUAL(kgroup_sync(&s, g, a, strlen(a), NULL, 0, 1, as, 2,
	    20 + DELAY, &gp, &ma, &r), KERR_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	group_unlock(g);
}

static const char *const ta_name[1] = { "ta" };
static const size_t ta_len[1] = { 2 };

static int16_t
upgrade(struct shm_group *g, const char *a, const char *b, int64_t now)
{
	struct cg_classic_member mv[2];
	struct cg_tp oa[4], ob[4];
	int16_t e;

	memset(mv, 0, sizeof(mv));
	mv[0].idx = (uint32_t)idx_of(g, a);
	mv[1].idx = (uint32_t)idx_of(g, b);
	mv[0].names = mv[1].names = ta_name;
	mv[0].lens = mv[1].lens = ta_len;
	mv[0].nnames = mv[1].nnames = 1;
	mv[0].owned = oa;
	mv[0].nowned = tps(0x3, oa);
	mv[1].owned = ob;
	mv[1].nowned = tps(0xc, ob);
	lock(g, now);
	e = cgroup_upgrade(&s, g, mv, 2, now, &gp);
	group_unlock(g);
	return e;
}

/* A classic member's subscription: "ta", owning nothing said. */
static void
ta_sub(struct cg_classic_member *sub)
{
	memset(sub, 0, sizeof(*sub));
	sub->names = ta_name;
	sub->lens = ta_len;
	sub->nnames = 1;
}

/* A consumer protocol member's heartbeat (subscribing "ta" on a join). */
static int16_t
chb(struct shm_group *g, const char *id, int32_t epoch, int64_t owned,
    int64_t now, int32_t *out_epoch)
{
	struct cgroup_hb_in in;
	struct cg_tp own[4];
	int16_t e;
	int member = -1;

	memset(&in, 0, sizeof(in));
	in.member_id = id;
	in.member_id_len = strlen(id);
	in.epoch = epoch;
	in.client_id = "pk";
	in.client_id_len = 2;
	in.rebalance_timeout_ms = epoch == 0 ? 1000 : -1;
	if (epoch == 0) {
		in.names_set = 1;
		in.names = ta_name;
		in.name_lens = ta_len;
		in.nnames = 1;
	}
	if (owned >= 0) {
		in.owned_set = 1;
		in.owned = own;
		in.nowned = tps((uint32_t)owned, own);
	}
	lock(g, now);
	e = cgroup_heartbeat(&s, g, &in, now, &gp, &member);
	if (e == KERR_NONE && out_epoch != NULL)
		*out_epoch = group_member_at(&s, g, (uint32_t)member)->cg_epoch;
	group_unlock(g);
	return e;
}

/* A classic member's JoinGroup owning mask; *gen its answer's generation. */
static int16_t
cjoin(struct shm_group *g, const char *id, const char *ptype, uint32_t owned,
    int64_t now, int32_t *gen)
{
	struct kgroup_join_in in;
	struct cg_classic_member sub;
	struct cg_tp o[4];
	int16_t e;
	int member = -1;

	join_in(&in, id, ptype, NULL, NULL);
	ta_sub(&sub);
	sub.owned = o;
	sub.nowned = tps(owned, o);
	lock(g, now);
	e = cgroup_classic_join(&s, g, &in, &sub, now, &gp, &member);
	if (e == KERR_NONE && gen != NULL)
		*gen = group_member_at(&s, g, (uint32_t)member)->cg_epoch;
	group_unlock(g);
	return e;
}

static int16_t
csync(struct shm_group *g, const char *id, int32_t gen, const char *pname,
    int64_t now, uint32_t *assigned)
{
	int16_t e;
	int member = -1;

	lock(g, now);
	e = cgroup_classic_sync(&s, g, id, strlen(id), NULL, 0, gen, "consumer",
	    8, pname, pname != NULL ? strlen(pname) : 0, now, &gp, &member);
	if (e == KERR_NONE)
		*assigned = list_mask(g, member, CG_ASSIGNED);
	group_unlock(g);
	return e;
}

static int16_t
cbeat(struct shm_group *g, const char *id, int32_t gen, int64_t now)
{
	int16_t e;

	lock(g, now);
	e = cgroup_classic_heartbeat(&s, g, id, strlen(id), NULL, 0, gen, now,
	    &gp);
	group_unlock(g);
	return e;
}

static void
test_upgrade_and_downgrade(void)
{
	struct shm_group *g = new_group("mig");
	char a[MEMBER_ID_MAX + 1], b[MEMBER_ID_MAX + 1];
	const char *re, *names[4];
	size_t rl, lens[4];
	uint32_t n, got = 0;
	int32_t ec = 0, ga = 0, gb = 0;
	uint32_t epoch;
	const uint8_t *meta;
	size_t ml;

	classic_group(g, a, b);
	CU_ASSERT_EQUAL(upgrade(g, a, b, 200), KERR_NONE);
	/* Every member kept, at the classic generation, with its partitions. */
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_CONSUMER);
	CU_ASSERT_EQUAL(g->cg_migrating, CG_MIGRATE_NONE);
	CU_ASSERT_EQUAL(g->generation, 1);
	CU_ASSERT_EQUAL(g->cg_assign_epoch, 1);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	CU_ASSERT(cgroup_is_classic(&s, g, (uint32_t)idx_of(g, a)));
	CU_ASSERT_EQUAL(group_member_at(&s, g, (uint32_t)idx_of(g, a))->cg_epoch, 1);
	CU_ASSERT_EQUAL(list_mask(g, idx_of(g, a), CG_ASSIGNED), 0x3);
	CU_ASSERT_EQUAL(list_mask(g, idx_of(g, b), CG_ASSIGNED), 0xc);
	CU_ASSERT_EQUAL(list_mask(g, idx_of(g, b), CG_TARGET), 0xc);
	CU_ASSERT_STRING_EQUAL(cgroup_state_name(&s, g), "Stable");
	CU_ASSERT_EQUAL(cgroup_subscription(&s, g, (uint32_t)idx_of(g, a), &re,
	    &rl, names, lens, 4, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT(re == NULL && lens[0] == 2 && memcmp(names[0], "ta", 2) == 0);
	CU_ASSERT_EQUAL(cbeat(g, a, 1, 210), KERR_NONE);

	/* The consumer member joins: a's ta-0 goes to it, once a gave it up. */
	CU_ASSERT_EQUAL(chb(g, "c", 0, 0, 220, &ec), KERR_NONE);
	epoch = g->generation;
	CU_ASSERT_EQUAL(epoch, 2);
	CU_ASSERT_EQUAL(list_mask(g, idx_of(g, "c"), CG_TARGET), 0x1);
	CU_ASSERT_EQUAL(list_mask(g, idx_of(g, "c"), CG_ASSIGNED), 0);
	assert_disjoint(g);
	CU_ASSERT_EQUAL(cbeat(g, a, 1, 230), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(cbeat(g, b, 1, 230), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(cbeat(g, b, 7, 230), KERR_ILLEGAL_GENERATION);
	/* An eager member rejoins owning nothing: at once at the new epoch. */
	CU_ASSERT_EQUAL(cjoin(g, a, "consumer", 0, 240, &ga), KERR_NONE);
	CU_ASSERT_EQUAL(ga, (int32_t)epoch);
	CU_ASSERT_EQUAL(csync(g, a, 1, "range", 245, &got),
	    KERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(csync(g, a, ga, "roundrobin", 245, &got),
	    KERR_INCONSISTENT_GROUP_PROTOCOL);
	CU_ASSERT_EQUAL(csync(g, a, ga, "range", 250, &got), KERR_NONE);
	CU_ASSERT_EQUAL(got, 0x2);
	assert_disjoint(g);
	CU_ASSERT_EQUAL(cbeat(g, a, ga, 255), KERR_NONE);
	/* ta-0 is free: c gets it at its next heartbeat. */
	CU_ASSERT_EQUAL(chb(g, "c", ec, 0, 260, &ec), KERR_NONE);
	CU_ASSERT_EQUAL(list_mask(g, idx_of(g, "c"), CG_ASSIGNED), 0x1);
	CU_ASSERT_EQUAL(ec, (int32_t)epoch);
	assert_disjoint(g);
	/* A cooperative rejoin of b keeping ta-2,3. */
	CU_ASSERT_EQUAL(cjoin(g, b, "consumer", 0xc, 270, &gb), KERR_NONE);
	CU_ASSERT_EQUAL(gb, (int32_t)epoch);
	CU_ASSERT_EQUAL(csync(g, b, gb, NULL, 275, &got), KERR_NONE);
	CU_ASSERT_EQUAL(got, 0xc);
	CU_ASSERT_EQUAL(cbeat(g, b, gb, 280), KERR_NONE);
	CU_ASSERT_STRING_EQUAL(cgroup_state_name(&s, g), "Stable");
	/* A classic member commits with its member epoch as the generation. */
	lock(g, 285);
	CU_ASSERT_EQUAL(cgroup_commit_check(&s, g, a, strlen(a), ga, 285, &gp),
	    KERR_NONE);
	CU_ASSERT_EQUAL(cgroup_commit_check(&s, g, a, strlen(a), 1, 285, &gp),
	    KERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(cgroup_commit_check(&s, g, "c", 1, 1, 285, &gp),
	    KERR_STALE_MEMBER_EPOCH);
	group_unlock(g);

	/* The consumer member leaves: a classic group again, at epoch 2. */
	CU_ASSERT_EQUAL(chb(g, "c", -1, -1, 300, NULL), KERR_NONE);
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_KAFKA);
	CU_ASSERT_EQUAL(g->cg_migrating, CG_MIGRATE_NONE);
	CU_ASSERT_EQUAL(g->generation, epoch);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	CU_ASSERT(g->ptype_len == 8 && memcmp(g->ptype, "consumer", 8) == 0);
	CU_ASSERT(g->proto_len == 5 && memcmp(g->proto, "range", 5) == 0);
	CU_ASSERT(!cgroup_is_classic(&s, g, (uint32_t)idx_of(g, a)));
	lock(g, 305);
	CU_ASSERT_EQUAL(kgroup_member_metadata(&s, g, (uint32_t)idx_of(g, a),
	    &meta, &ml), 0);
	CU_ASSERT(ml == 3 && memcmp(meta, "sub", 3) == 0);
	CU_ASSERT_EQUAL(group_member_at(&s, g, (uint32_t)idx_of(g, a))->meta_len,
	    2 + 5 + 4 + 3);
	/* Its members hear of the rebalance at the generation they had. */
	CU_ASSERT_EQUAL(kgroup_heartbeat(&s, g, a, strlen(a), NULL, 0,
	    (int32_t)epoch, 305, &gp), KERR_REBALANCE_IN_PROGRESS);
	group_unlock(g);
}

/* upgrade only: the group stays a consumer group of classic members. */
static void
test_policies(void)
{
	struct shm_group *g = new_group("pol");
	char a[MEMBER_ID_MAX + 1], b[MEMBER_ID_MAX + 1];
	uint32_t gen;

	classic_group(g, a, b);
	gp.cg_migration = CG_POLICY_DOWNGRADE;
	lock(g, 200);
	CU_ASSERT_EQUAL(cgroup_upgradable(&s, g, &gp), 0);
	group_unlock(g);
	gen = g->generation;
	CU_ASSERT_EQUAL(upgrade(g, a, b, 200), KERR_GROUP_ID_NOT_FOUND);
	/* disabled: Kafka's answer to the consumer member, nothing changed. */
	gp.cg_migration = 0;
	CU_ASSERT_EQUAL(chb(g, "c", 0, 0, 210, NULL), KERR_GROUP_ID_NOT_FOUND);
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_KAFKA);
	CU_ASSERT_EQUAL(g->generation, gen);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	gp.cg_migration = CG_POLICY_UPGRADE;
	CU_ASSERT_EQUAL(upgrade(g, a, b, 220), KERR_NONE);
	CU_ASSERT_EQUAL(chb(g, "c", 0, 0, 230, NULL), KERR_NONE);
	CU_ASSERT_EQUAL(chb(g, "c", -1, -1, 240, NULL), KERR_NONE);
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_CONSUMER);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	CU_ASSERT(cgroup_is_classic(&s, g, (uint32_t)idx_of(g, b)));
	gp.cg_migration = CG_POLICY_UPGRADE | CG_POLICY_DOWNGRADE;
	/* Another protocol type, a classic heartbeat of a consumer member. */
	CU_ASSERT_EQUAL(chb(g, "d", 0, 0, 250, NULL), KERR_NONE);
	CU_ASSERT_EQUAL(cjoin(g, "", "other", 0, 260, NULL),
	    KERR_INCONSISTENT_GROUP_PROTOCOL);
	CU_ASSERT_EQUAL(cbeat(g, "d", 1, 260), KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(cbeat(g, "nobody", 1, 260), KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(cgroup_policy("BIDIRECTIONAL"), 3);
	CU_ASSERT_EQUAL(cgroup_policy("upgrade"), CG_POLICY_UPGRADE);
	CU_ASSERT_EQUAL(cgroup_policy("Downgrade"), CG_POLICY_DOWNGRADE);
	CU_ASSERT_EQUAL(cgroup_policy("disabled"), 0);
	CU_ASSERT_EQUAL(cgroup_policy("sideways"), -1);
}

/* A new classic member of a consumer group: MEMBER_ID_REQUIRED first. */
static void
test_classic_join(void)
{
	struct shm_group *g = new_group("cj");
	struct kgroup_join_in in;
	struct cg_classic_member sub;
	char pending[MEMBER_ID_MAX + 1];
	size_t plen = 0;
	uint32_t got = 0;
	int32_t ec = 0, gen = 0;
	int member = -1;

	CU_ASSERT_EQUAL(chb(g, "c", 0, 0, 100, &ec), KERR_NONE);
	CU_ASSERT_EQUAL(chb(g, "c", ec, 0, 110, &ec), KERR_NONE);
	CU_ASSERT_EQUAL(list_mask(g, idx_of(g, "c"), CG_ASSIGNED), 0xf);
	join_in(&in, "", "consumer", pending, &plen);
	ta_sub(&sub);
	lock(g, 120);
	CU_ASSERT_EQUAL(cgroup_classic_join(&s, g, &in, &sub, 120, &gp,
	    &member), KERR_MEMBER_ID_REQUIRED);
	CU_ASSERT_EQUAL(plen, 22);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	group_unlock(g);
	pending[plen] = '\0';
	CU_ASSERT_EQUAL(cjoin(g, pending, "consumer", 0, 130, &gen), KERR_NONE);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	CU_ASSERT_EQUAL(gen, (int32_t)g->generation);
	/* Half of ta is its target; c still holds it: nothing yet. */
	CU_ASSERT_EQUAL(csync(g, pending, gen, "range", 140, &got), KERR_NONE);
	CU_ASSERT_EQUAL(got, 0);
	CU_ASSERT_EQUAL(cbeat(g, pending, gen, 150), KERR_NONE);
	/* c revokes (owning what it keeps): the classic member must rejoin. */
	CU_ASSERT_EQUAL(chb(g, "c", ec, 0xf, 160, &ec), KERR_NONE);
	CU_ASSERT_EQUAL(chb(g, "c", ec, list_mask(g, idx_of(g, "c"),
	    CG_ASSIGNED), 170, &ec), KERR_NONE);
	assert_disjoint(g);
	CU_ASSERT_EQUAL(cbeat(g, pending, gen, 180), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(cjoin(g, pending, "consumer", 0, 190, &gen), KERR_NONE);
	CU_ASSERT_EQUAL(csync(g, pending, gen, "range", 200, &got), KERR_NONE);
	CU_ASSERT_EQUAL(got | list_mask(g, idx_of(g, "c"), CG_ASSIGNED), 0xf);
	CU_ASSERT_EQUAL(got & list_mask(g, idx_of(g, "c"), CG_ASSIGNED), 0);
	CU_ASSERT(got != 0);
	CU_ASSERT_EQUAL(cbeat(g, pending, gen, 210), KERR_NONE);
	/* Its LeaveGroup: c alone, still a consumer group. */
	lock(g, 220);
	CU_ASSERT_EQUAL(cgroup_classic_leave(&s, g, pending, strlen(pending),
	    NULL, 0, 220, &gp), KERR_NONE);
	group_unlock(g);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_CONSUMER);
}

/* A static classic member: fenced by id, restarted keeping its partitions. */
static void
test_classic_static(void)
{
	struct shm_group *g = new_group("cs");
	struct kgroup_join_in in;
	struct cg_classic_member sub;
	char id1[MEMBER_ID_MAX + 1];
	int32_t ec = 0;
	uint32_t got = 0;
	int member = -1;

	CU_ASSERT_EQUAL(chb(g, "c", 0, 0, 100, &ec), KERR_NONE);
	ta_sub(&sub);
	/* A static member joins without an id round trip. */
	join_in(&in, "", "consumer", id1, NULL);
	in.instance = "i1";
	in.instance_len = 2;
	lock(g, 110);
	CU_ASSERT_EQUAL(cgroup_classic_join(&s, g, &in, &sub, 110, &gp,
	    &member), KERR_NONE);
	strcpy(id1, group_member_at(&s, g, (uint32_t)member)->id);
	/* Another id naming its instance is fenced; an unknown one too. */
	in.member_id = "someone";
	in.member_id_len = 7;
	CU_ASSERT_EQUAL(cgroup_classic_join(&s, g, &in, &sub, 120, &gp,
	    &member), KERR_FENCED_INSTANCE_ID);
	in.instance = "i2";
	CU_ASSERT_EQUAL(cgroup_classic_join(&s, g, &in, &sub, 120, &gp,
	    &member), KERR_UNKNOWN_MEMBER_ID);
	group_unlock(g);
	CU_ASSERT_EQUAL(chb(g, "c", ec, 0, 130, &ec), KERR_NONE);
	lock(g, 150);
	in.member_id = id1;
	in.member_id_len = strlen(id1);
	in.instance = "i1";
	CU_ASSERT_EQUAL(cgroup_classic_join(&s, g, &in, &sub, 150, &gp,
	    &member), KERR_NONE);
	group_unlock(g);
	CU_ASSERT_EQUAL(list_mask(g, member, CG_ASSIGNED), 0xc);
	/* Restarted (no member id): a new id, its partitions kept. */
	lock(g, 160);
	in.member_id = "";
	in.member_id_len = 0;
	CU_ASSERT_EQUAL(cgroup_classic_join(&s, g, &in, &sub, 160, &gp,
	    &member), KERR_NONE);
	CU_ASSERT(strcmp(group_member_at(&s, g, (uint32_t)member)->id, id1) != 0);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	group_unlock(g);
	CU_ASSERT_EQUAL(list_mask(g, member, CG_ASSIGNED), 0xc);
	CU_ASSERT_EQUAL(cbeat(g, id1, ec, 170), KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(csync(g, group_member_at(&s, g, (uint32_t)member)->id,
	    group_member_at(&s, g, (uint32_t)member)->cg_epoch, "range", 170,
	    &got), KERR_NONE);
	CU_ASSERT_EQUAL(got, 0xc);
}

/* Die holding g's lock after step() ran; the repair follows. */
static void
die_in(struct shm_group *g, void (*step)(struct shm_group *), int64_t now)
{
	int st;
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		if (group_lock(&s, g, now, &gp) != 0)
			_exit(1);
		step(g);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(group_lock(&s, g, now + 10, &gp), 1);
	group_unlock(g);
}

/* An upgrade torn after the first member changed. */
static void
torn_upgrade(struct shm_group *g)
{
	uint32_t i;

	g->cg_migrating = CG_MIGRATE_UP;
	for (i = 0; i < 4; i++)
		if (atomic_load(&group_member_at(&s, g, i)->state) ==
		    MEMBER_ACTIVE) {
			group_member_at(&s, g, i)->kflags |= KMEMBER_CLASSIC;
			group_member_at(&s, g, i)->assign_len = 100;
			break;
		}
}

/* A downgrade torn after the consumer member's slot was freed. */
static void
torn_downgrade(struct shm_group *g)
{
	int c = group_member_find(&s, g, "c", 1);

	g->cg_migrating = CG_MIGRATE_DOWN;
	atomic_store(&group_member_at(&s, g, (uint32_t)c)->state, MEMBER_FREE);
}

static void
test_crash(void)
{
	struct shm_group *g = new_group("crash");
	char a[MEMBER_ID_MAX + 1], b[MEMBER_ID_MAX + 1];
	uint32_t i, n;

	classic_group(g, a, b);
	die_in(g, torn_upgrade, 200);
	/* Rolled back: a classic group preparing a rebalance, no lists left. */
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_KAFKA);
	CU_ASSERT_EQUAL(g->cg_migrating, CG_MIGRATE_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	/* The member it changed has no assignment; the other keeps its bytes. */
	for (i = 0, n = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(group_member_at(&s, g, i)->kflags &
		    KMEMBER_CLASSIC, 0);
		if (atomic_load(&group_member_at(&s, g, i)->state) ==
		    MEMBER_ACTIVE)
			CU_ASSERT_EQUAL(group_member_at(&s, g, i)->assign_len,
			    n++ == 0 ? 0u : 8u);
	}
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(upgrade(g, a, b, 300), KERR_NONE);
	CU_ASSERT_EQUAL(chb(g, "c", 0, 0, 310, NULL), KERR_NONE);
	die_in(g, torn_downgrade, 320);
	/* Rolled forward: the two classic members, a classic rebalance. */
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_KAFKA);
	CU_ASSERT_EQUAL(g->cg_migrating, CG_MIGRATE_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	CU_ASSERT(idx_of(g, a) >= 0 && idx_of(g, b) >= 0);
	CU_ASSERT_EQUAL(idx_of(g, "c"), -1);
	CU_ASSERT(g->proto_len == 5 && memcmp(g->proto, "range", 5) == 0);
}

TEST_SUITE("cgmigrate", suite_setup, suite_teardown,
    { "upgrade with members, classic members served, downgrade", test_upgrade_and_downgrade },
    { "policies: disabled, upgrade only; errors of the classic APIs", test_policies },
    { "a classic member joins a consumer group", test_classic_join },
    { "a static classic member: fenced, restarted", test_classic_static },
    { "crash: a torn upgrade rolls back, a torn downgrade forward", test_crash });
