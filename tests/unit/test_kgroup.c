/*
 * shm/kgroup.c, Kafka's classic coordinator, on a real shared region:
 * the initial delay and its extension, protocol selection, the leader's
 * member list, SyncGroup parking and assignments, Kafka's error codes
 * where Kafka returns them (22, 23, 25, 26, 27), session expiry and the
 * rebalance timeout, the bounded metadata space, native and Kafka kinds
 * refusing each other, commit fencing, the crash rule, and the
 * two-step join of JoinGroup v4 and later (MEMBER_ID_REQUIRED), static
 * membership (KIP-345: a restart keeps the assignment without a
 * rebalance, the old id fenced with 82, expiry, LeaveGroup by instance).
 */
#include <sys/wait.h>

#include <bsd/string.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/kafka/kapi.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "tests/harness.h"

#define SESSION		1500
#define REBALANCE	5000
#define DELAY		100
#define META		256

static struct shm s;
static char name[64];
static int t2;
static const struct group_params gp = { 30000, 1000, 60000, DELAY,
    45000, 5000, 1, 0, 3 };
/* Set: kjoin() joins as JoinGroup v4+ does, a pending id into it. */
static char *pending;
static size_t pending_len;
/* Set: kjoin() joins as a static member; replaced is its out flag. */
static const char *instance;
static int replaced;

static int
suite_setup(void)
{
	struct shm_limits lim;

	memset(&lim, 0, sizeof(lim));
	lim.child_slots = 2;
	lim.max_topics = 4;
	lim.max_partitions = 16;
	lim.ring_size = 4096;
	lim.max_groups = 12;
	lim.max_group_members = 4;
	lim.member_meta = META;
	snprintf(name, sizeof(name), "/flume-test-kgroup-%ld", (long)getpid());
	if (shm_create(&s, name, &lim) == -1)
		return -1;
	if (shm_topic_create(&s, "t2", 2, 2, &t2) == -1)
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

/* Protocols "name:meta,name:meta" into p (at most 4). */
static uint32_t
protos(const char *spec, struct kgroup_proto *p, char buf[256])
{
	char *save = NULL, *tok, *colon;
	uint32_t n = 0;

	strlcpy(buf, spec, 256);
	for (tok = strtok_r(buf, ",", &save); tok != NULL && n < 4;
	    tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		*colon = '\0';
		p[n].name = tok;
		p[n].name_len = strlen(tok);
		p[n].meta = (const uint8_t *)colon + 1;
		p[n].meta_len = strlen(colon + 1);
		n++;
	}
	return n;
}

/*
 * JoinGroup as id ("" for a new member, updated) with spec; the error,
 * *member and *ready set.
 */
static int16_t
kjoin(struct shm_group *g, char *id, const char *ptype, const char *spec,
    int32_t session, int64_t now, int *member, int *rdy)
{
	struct kgroup_proto p[4];
	struct kgroup_join_in in;
	struct shm_member *m;
	char buf[256];
	int16_t err;

	memset(&in, 0, sizeof(in));
	in.member_id = id;
	in.member_id_len = strlen(id);
	in.client_id = "rdkafka";
	in.client_id_len = 7;
	in.host = "127.0.0.1";
	in.host_len = 9;
	in.session_timeout_ms = session;
	in.rebalance_timeout_ms = REBALANCE;
	in.ptype = ptype;
	in.ptype_len = strlen(ptype);
	in.nprotos = protos(spec, p, buf);
	in.protos = p;
	in.require_id = pending != NULL;
	in.pending = pending;
	in.pending_len = &pending_len;
	in.instance = instance;
	in.instance_len = instance != NULL ? strlen(instance) : 0;
	in.replaced = &replaced;
	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	err = kgroup_join(&s, g, &in, now, &gp, member, rdy);
	if (err == KERR_NONE) {
		m = group_member_at(&s, g, (uint32_t)*member);
		memcpy(id, m->id, m->id_len);
		id[m->id_len] = '\0';
	}
	group_unlock(g);
	return err;
}

static int
kready(struct shm_group *g, int member, const char *id, uint32_t wait_gen,
    int64_t now)
{
	int rc;

	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	rc = kgroup_join_ready(&s, g, member, id, strlen(id), wait_gen, now, &gp);
	group_unlock(g);
	return rc;
}

static int16_t
khb(struct shm_group *g, const char *id, int32_t gen, int64_t now)
{
	int16_t e;

	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	e = kgroup_heartbeat(&s, g, id, strlen(id), instance,
	    instance != NULL ? strlen(instance) : 0, gen, now, &gp);
	group_unlock(g);
	return e;
}

static int16_t
ksync(struct shm_group *g, const char *id, int32_t gen,
    const struct kgroup_assign_in *a, uint32_t na, int64_t now, int *rdy)
{
	int16_t e;
	int member = -1;

	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	e = kgroup_sync(&s, g, id, strlen(id), instance, instance != NULL ?
	    strlen(instance) : 0, gen, a, na, now, &gp, &member, rdy);
	group_unlock(g);
	return e;
}

/* Member's stored assignment as a C string. */
static const char *
kassign(struct shm_group *g, int member)
{
	static char buf[META + 1];
	struct shm_member *m = group_member_at(&s, g, (uint32_t)member);

	memcpy(buf, group_assign(&s, g, (uint32_t)member), m->assign_len);
	buf[m->assign_len] = '\0';
	return buf;
}

static const char *
kmeta(struct shm_group *g, int member)
{
	static char buf[META + 1];
	const uint8_t *p;
	size_t n;

	if (kgroup_member_metadata(&s, g, (uint32_t)member, &p, &n) == -1)
		return "(none)";
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

static void
test_initial_delay_and_leader(void)
{
	struct shm_group *g = new_group("init");
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "";
	int ma, mb, ra, rb;

	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:A1,roundrobin:A2",
	    SESSION, 1000, &ma, &ra), KERR_NONE);
	CU_ASSERT_EQUAL(ra, 0);
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_KAFKA);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(g->generation, 0);
	/* Alone, but a new group waits the initial delay for others. */
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, 1050), 0);
	CU_ASSERT_EQUAL(kjoin(g, b, "consumer", "roundrobin:B2,range:B1",
	    SESSION, 1080, &mb, &rb), KERR_NONE);
	CU_ASSERT_EQUAL(rb, 0);
	/* Extended by the delay from the newcomer: 1180, not 1100. */
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, 1150), 0);
	CU_ASSERT_EQUAL(kready(g, mb, b, 0, 1181), 1);
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, 1181), 1);
	CU_ASSERT_EQUAL(g->generation, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_AWAITING_SYNC);
	CU_ASSERT_EQUAL(g->leader, ma);
	/* One vote each: the tie goes to the first member's choice. */
	CU_ASSERT_STRING_EQUAL(g->proto, "range");
	CU_ASSERT_STRING_EQUAL(kmeta(g, ma), "A1");
	CU_ASSERT_STRING_EQUAL(kmeta(g, mb), "B1");
	CU_ASSERT_STRING_EQUAL(group_member_at(&s, g, (uint32_t)mb)->host,
	    "127.0.0.1");
}

static void
test_protocol_votes_and_inconsistent(void)
{
	struct shm_group *g = new_group("votes");
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "",
	    c[MEMBER_ID_MAX + 1] = "", d[MEMBER_ID_MAX + 1] = "";
	int ma, mb, mc, md, r;

	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a,roundrobin:a",
	    SESSION, 0, &ma, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kjoin(g, b, "consumer", "roundrobin:b,range:b",
	    SESSION, 1, &mb, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kjoin(g, c, "consumer", "roundrobin:c,range:c",
	    SESSION, 2, &mc, &r), KERR_NONE);
	/* Nothing in common with the others, or another protocol type. */
	CU_ASSERT_EQUAL(kjoin(g, d, "consumer", "sticky:d", SESSION, 3, &md,
	    &r), KERR_INCONSISTENT_GROUP_PROTOCOL);
	CU_ASSERT_EQUAL(kjoin(g, d, "connect", "range:d", SESSION, 3, &md, &r),
	    KERR_INCONSISTENT_GROUP_PROTOCOL);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 3);
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, 200), 1);
	CU_ASSERT_STRING_EQUAL(g->proto, "roundrobin");
	CU_ASSERT_STRING_EQUAL(kmeta(g, mc), "c");
}

static void
test_sync_errors_and_rejoin(void)
{
	struct shm_group *g = new_group("sync");
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "",
	    c[MEMBER_ID_MAX + 1] = "";
	struct kgroup_assign_in as[2];
	int16_t err;
	int ma, mb, mc, r, member = -1;
	int64_t now = 10000;

	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", 999, now, &ma, &r),
	    KERR_INVALID_SESSION_TIMEOUT);
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", 60001, now, &ma,
	    &r), KERR_INVALID_SESSION_TIMEOUT);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 0);
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", SESSION, now, &ma,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(kjoin(g, b, "consumer", "range:b", SESSION, now, &mb,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, mb, b, 0, now + DELAY), 1);
	CU_ASSERT_EQUAL(g->generation, 1);
	/* The follower's SyncGroup waits for the leader's. */
	CU_ASSERT_EQUAL(ksync(g, b, 1, NULL, 0, now + 110, &r), KERR_NONE);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(ksync(g, b, 0, NULL, 0, now + 110, &r),
	    KERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(ksync(g, "nobody", 1, NULL, 0, now + 110, &r),
	    KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(khb(g, b, 1, now + 110), KERR_REBALANCE_IN_PROGRESS);
	as[0].member_id = a;
	as[0].member_id_len = strlen(a);
	as[0].data = (const uint8_t *)"parts-of-a";
	as[0].len = 10;
	as[1].member_id = b;
	as[1].member_id_len = strlen(b);
	as[1].data = (const uint8_t *)"parts-of-b";
	as[1].len = 10;
	CU_ASSERT_EQUAL(ksync(g, a, 1, as, 2, now + 120, &r), KERR_NONE);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_STRING_EQUAL(kassign(g, ma), "parts-of-a");
	CU_ASSERT_EQUAL(group_lock(&s, g, now + 121, &gp), 0);
	CU_ASSERT_EQUAL(kgroup_sync_ready(&s, g, mb, b, strlen(b), 1,
	    now + 121, &gp, &err), 1);
	group_unlock(g);
	CU_ASSERT_STRING_EQUAL(kassign(g, mb), "parts-of-b");
	CU_ASSERT_EQUAL(khb(g, a, 1, now + 130), KERR_NONE);
	CU_ASSERT_EQUAL(khb(g, a, 2, now + 130), KERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(khb(g, "nobody", 1, now + 130),
	    KERR_UNKNOWN_MEMBER_ID);
	/* A follower rejoining unchanged gets the generation at once. */
	CU_ASSERT_EQUAL(kjoin(g, b, "consumer", "range:b", SESSION, now + 140,
	    &member, &r), KERR_NONE);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT_EQUAL(member, mb);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	/* A rejoin with an unknown id is refused. */
	CU_ASSERT_EQUAL(kjoin(g, strcpy(c, "stale-id"), "consumer", "range:c",
	    SESSION, now + 140, &mc, &r), KERR_UNKNOWN_MEMBER_ID);
	/* A new member: a rebalance everybody must rejoin. */
	c[0] = '\0';
	CU_ASSERT_EQUAL(kjoin(g, c, "consumer", "range:c", SESSION, now + 150,
	    &mc, &r), KERR_NONE);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(khb(g, a, 1, now + 160), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(ksync(g, a, 1, NULL, 0, now + 160, &r),
	    KERR_REBALANCE_IN_PROGRESS);
	/* Commits of the generation are fine while preparing. */
	CU_ASSERT_EQUAL(group_lock(&s, g, now + 160, &gp), 0);
	CU_ASSERT_EQUAL(kgroup_commit_check(&s, g, a, strlen(a), NULL, 0,
	    1, now + 160, &gp), KERR_NONE);
	group_unlock(g);
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", SESSION, now + 170,
	    &member, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 1, now + 170), 0);	/* b not yet */
	CU_ASSERT_EQUAL(kjoin(g, b, "consumer", "range:b", SESSION, now + 180,
	    &member, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 1, now + 180), 1);
	CU_ASSERT_EQUAL(g->generation, 2);
	CU_ASSERT_EQUAL(g->state, GROUP_AWAITING_SYNC);
	CU_ASSERT_EQUAL(group_lock(&s, g, now + 190, &gp), 0);
	CU_ASSERT_EQUAL(kgroup_commit_check(&s, g, a, strlen(a), NULL, 0,
	    2, now + 190, &gp), KERR_REBALANCE_IN_PROGRESS);
	group_unlock(g);
	CU_ASSERT_EQUAL(ksync(g, a, 2, NULL, 0, now + 200, &r), KERR_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(group_lock(&s, g, now + 210, &gp), 0);
	CU_ASSERT_EQUAL(kgroup_commit_check(&s, g, a, strlen(a), NULL, 0,
	    1, now + 210, &gp), KERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(kgroup_commit_check(&s, g, "", 0, NULL, 0, -1,
	    now + 210, &gp), KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(kgroup_commit_check(&s, g, c, strlen(c), NULL, 0,
	    2, now + 210, &gp), KERR_NONE);
	group_unlock(g);
	/* Leaving: the others rejoin without it. */
	CU_ASSERT_EQUAL(group_lock(&s, g, now + 220, &gp), 0);
	CU_ASSERT_EQUAL(kgroup_leave(&s, g, c, strlen(c), NULL, 0,
	    now + 220, &gp), KERR_NONE);
	CU_ASSERT_EQUAL(kgroup_leave(&s, g, c, strlen(c), NULL, 0,
	    now + 220, &gp), KERR_UNKNOWN_MEMBER_ID);
	group_unlock(g);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
}

static void
test_expiry_and_rebalance_timeout(void)
{
	struct shm_group *g = new_group("expiry");
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "",
	    c[MEMBER_ID_MAX + 1] = "";
	int ma, mb, mc, r;
	int64_t now = 50000;

	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", SESSION, now, &ma,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(kjoin(g, b, "consumer", "range:b", SESSION, now, &mb,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, now + DELAY), 1);
	CU_ASSERT_EQUAL(ksync(g, a, 1, NULL, 0, now + DELAY, &r), KERR_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	/* b goes silent; a heartbeats: b is dropped after its session. */
	CU_ASSERT_EQUAL(khb(g, a, 1, now + 1000), KERR_NONE);
	CU_ASSERT_EQUAL(khb(g, a, 1, now + DELAY + SESSION), KERR_NONE);
	CU_ASSERT_EQUAL(khb(g, a, 1, now + DELAY + SESSION + 1),
	    KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	CU_ASSERT_EQUAL(khb(g, b, 1, now + DELAY + SESSION + 2),
	    KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", SESSION,
	    now + 1700, &ma, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 1, now + 1700), 1);
	CU_ASSERT_EQUAL(g->generation, 2);
	CU_ASSERT_EQUAL(ksync(g, a, 2, NULL, 0, now + 1700, &r), KERR_NONE);
	/*
	 * c joins; a keeps heartbeating but never rejoins: at the rebalance
	 * timeout (REBALANCE, the members' largest) a is dropped.
	 */
	CU_ASSERT_EQUAL(kjoin(g, c, "consumer", "range:c", SESSION,
	    now + 2000, &mc, &r), KERR_NONE);
	CU_ASSERT_EQUAL(khb(g, a, 2, now + 3000), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(khb(g, a, 2, now + 4400), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(khb(g, a, 2, now + 5800), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(kready(g, mc, c, 2, now + 2000 + REBALANCE - 1), 0);
	CU_ASSERT_EQUAL(kready(g, mc, c, 2, now + 2000 + REBALANCE), 1);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	CU_ASSERT_EQUAL(g->leader, mc);
	CU_ASSERT_EQUAL(g->generation, 3);
	/* Everybody gone: EMPTY. */
	CU_ASSERT_EQUAL(group_lock(&s, g, now + 7100, &gp), 0);
	CU_ASSERT_EQUAL(kgroup_leave(&s, g, c, strlen(c), NULL, 0,
	    now + 7100, &gp), KERR_NONE);
	(void)kgroup_tick(&s, g, now + 7100, &gp);
	group_unlock(g);
	CU_ASSERT_EQUAL(g->state, GROUP_EMPTY);
	CU_ASSERT_EQUAL(g->generation, 4);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 0);
}

static void
test_metadata_bound(void)
{
	struct shm_group *g = new_group("meta");
	char a[MEMBER_ID_MAX + 1] = "", big[META + 16];
	struct kgroup_assign_in as;
	struct kgroup_proto p;
	struct kgroup_join_in in;
	int ma, r;

	memset(big, 'x', sizeof(big));
	memset(&in, 0, sizeof(in));
	in.session_timeout_ms = SESSION;
	in.rebalance_timeout_ms = REBALANCE;
	in.ptype = "consumer";
	in.ptype_len = 8;
	p.name = "range";
	p.name_len = 5;
	p.meta = (const uint8_t *)big;
	p.meta_len = META - 6 - 5 + 1;	/* one byte over, with its framing */
	in.protos = &p;
	in.nprotos = 1;
	CU_ASSERT_FATAL(group_lock(&s, g, 0, &gp) == 0);
	CU_ASSERT_EQUAL(kgroup_join(&s, g, &in, 0, &gp, &ma, &r),
	    KERR_MESSAGE_TOO_LARGE);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 0);
	p.meta_len--;		/* exactly the space */
	CU_ASSERT_EQUAL(kgroup_join(&s, g, &in, 0, &gp, &ma, &r), KERR_NONE);
	group_unlock(g);
	CU_ASSERT_EQUAL(group_member_at(&s, g, (uint32_t)ma)->meta_len, META);
	memcpy(a, group_member_at(&s, g, (uint32_t)ma)->id,
	    group_member_at(&s, g, (uint32_t)ma)->id_len);
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, DELAY), 1);
	as.member_id = a;
	as.member_id_len = strlen(a);
	as.data = (const uint8_t *)big;
	as.len = META + 1;
	CU_ASSERT_EQUAL(ksync(g, a, 1, &as, 1, DELAY, &r),
	    KERR_MESSAGE_TOO_LARGE);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);	/* everyone rejoins */
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:small", SESSION,
	    DELAY + 1, &ma, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 1, DELAY + 1), 1);
	as.len = META;
	CU_ASSERT_EQUAL(ksync(g, a, 2, &as, 1, DELAY + 2, &r), KERR_NONE);
	CU_ASSERT_EQUAL(group_member_at(&s, g, (uint32_t)ma)->assign_len, META);
}

static void
test_kinds_refuse_each_other(void)
{
	struct shm_group *g = new_group("kinds");
	uint32_t topics[1] = { (uint32_t)t2 };
	struct group_join_in nin;
	char a[MEMBER_ID_MAX + 1] = "";
	int ma, r, nm = -1;

	memset(&nin, 0, sizeof(nin));
	nin.client_id = "flume";
	nin.client_id_len = 5;
	nin.session_timeout_ms = SESSION;
	nin.topics = topics;
	nin.ntopics = 1;
	CU_ASSERT_FATAL(group_lock(&s, g, 0, &gp) == 0);
	CU_ASSERT_EQUAL(group_join(&s, g, &nin, 0, &gp, &nm), ERR_NONE);
	group_unlock(g);
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_NATIVE);
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", SESSION, 1, &ma,
	    &r), KERR_INCONSISTENT_GROUP_PROTOCOL);
	/* The native member expires: the group is free for Kafka. */
	a[0] = '\0';
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", SESSION,
	    SESSION + 10, &ma, &r), KERR_NONE);
	CU_ASSERT_EQUAL(g->kind, GROUP_KIND_KAFKA);
	CU_ASSERT_FATAL(group_lock(&s, g, SESSION + 20, &gp) == 0);
	CU_ASSERT_EQUAL(group_join(&s, g, &nin, SESSION + 20, &gp, &nm),
	    ERR_GROUP_KIND);
	group_unlock(g);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
}

static void
test_crash_repair(void)
{
	struct shm_group *g = new_group("crash");
	char a[MEMBER_ID_MAX + 1] = "";
	int ma, r, st, rc;
	pid_t pid;
	int64_t now = 100000;

	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", SESSION, now, &ma,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, now + DELAY), 1);
	CU_ASSERT_EQUAL(ksync(g, a, 1, NULL, 0, now + DELAY, &r), KERR_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		/* Dies holding the lock, half-way through an update. */
		if (group_lock(&s, g, now, &gp) != 0)
			_exit(1);
		g->state = GROUP_AWAITING_SYNC;
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	rc = group_lock(&s, g, now + 200, &gp);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	group_unlock(g);
	CU_ASSERT_EQUAL(khb(g, a, 1, now + 210), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:a", SESSION, now + 220,
	    &ma, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 1, now + 220), 1);
	CU_ASSERT_EQUAL(g->generation, 2);
	CU_ASSERT_EQUAL(ksync(g, a, 2, NULL, 0, now + 230, &r), KERR_NONE);
	CU_ASSERT_EQUAL(khb(g, a, 2, now + 240), KERR_NONE);
}

/* JoinGroup of a new member with protocol "range" carrying meta bytes. */
static int16_t
kjoin_meta(struct shm_group *g, char *id, const char *ptype,
    const uint8_t *meta, size_t mlen, int64_t now, int *member, int *rdy)
{
	struct kgroup_proto p = { "range", 5, meta, mlen };
	struct kgroup_join_in in;
	struct shm_member *m;
	int16_t err;

	memset(&in, 0, sizeof(in));
	in.member_id = "";
	in.client_id = "rdkafka";
	in.client_id_len = 7;
	in.session_timeout_ms = SESSION;
	in.rebalance_timeout_ms = REBALANCE;
	in.ptype = ptype;
	in.ptype_len = strlen(ptype);
	in.nprotos = 1;
	in.protos = &p;
	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	err = kgroup_join(&s, g, &in, now, &gp, member, rdy);
	if (err == KERR_NONE) {
		m = group_member_at(&s, g, (uint32_t)*member);
		memcpy(id, m->id, m->id_len);
		id[m->id_len] = '\0';
	}
	group_unlock(g);
	return err;
}

static int16_t
kcommit_topic(struct shm_group *g, int topic, int64_t now)
{
	int16_t e;

	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	e = kgroup_commit_topic(&s, g, topic);
	group_unlock(g);
	return e;
}

/*
 * The topics of a "consumer" group's Subscriptions are kept when its
 * generation forms: "sub" is (t2 and "nope" are not subscribed or do
 * not exist; a truncated entry ends the list).  Deleting "sub" ends the
 * generation (heartbeat 27) and refuses its commits into "sub" (3), not
 * into other topics.  Another protocol type's metadata is opaque.
 */
static void
test_subscription_topic_deleted(void)
{
	/* Subscription v1: 3 topics, the last one cut short. */
	static const uint8_t sub[] = { 0, 1, 0, 0, 0, 3, 0, 3, 's', 'u', 'b',
	    0, 4, 'n', 'o', 'p', 'e', 0x7f, 0xff, 'x' };
	struct shm_group *g = new_group("gsub"), *o = new_group("gconnect");
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "";
	int ma, mb, r, ti = -1;
	int64_t now = 200000;

	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "sub", 3, 1, &ti), ti);
	CU_ASSERT_EQUAL(kjoin_meta(g, a, "consumer", sub, sizeof(sub), now,
	    &ma, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, now + DELAY), 1);
	CU_ASSERT_EQUAL(ksync(g, a, 1, NULL, 0, now + DELAY, &r), KERR_NONE);
	CU_ASSERT_EQUAL_FATAL(g->ntopics, 1);
	CU_ASSERT_EQUAL(g->topics[0].topic, (uint32_t)ti);
	CU_ASSERT_EQUAL(khb(g, a, 1, now + DELAY + 10), KERR_NONE);
	CU_ASSERT_EQUAL(kcommit_topic(g, ti, now + DELAY + 10), KERR_NONE);
	CU_ASSERT_EQUAL(kjoin_meta(o, b, "connect", sub, sizeof(sub), now,
	    &mb, &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(o, mb, b, 0, now + DELAY), 1);
	CU_ASSERT_EQUAL(ksync(o, b, 1, NULL, 0, now + DELAY, &r), KERR_NONE);
	CU_ASSERT_EQUAL(o->ntopics, 0);

	CU_ASSERT_EQUAL(shm_topic_delete_begin(&s, "sub", 3), ti);
	CU_ASSERT_EQUAL(kcommit_topic(g, ti, now + DELAY + 20),
	    KERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL(kcommit_topic(g, t2, now + DELAY + 20), KERR_NONE);
	CU_ASSERT_EQUAL(khb(g, a, 1, now + DELAY + 30),
	    KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(khb(o, b, 1, now + DELAY + 30), KERR_NONE);
	shm_topic_delete_end(&s, ti);
}

/*
 * JoinGroup v4+: a new member gets MEMBER_ID_REQUIRED and an id, and
 * is not a member until it joins with it; a changed id, or one given
 * before the generation changed, is UNKNOWN_MEMBER_ID.
 */
static void
test_member_id_required(void)
{
	struct shm_group *g = new_group("kpend");
	char p1[MEMBER_ID_MAX + 1], p2[MEMBER_ID_MAX + 1];
	char id[MEMBER_ID_MAX + 1] = "";
	int m = -1, rdy = -1;

	pending = p1;
	CU_ASSERT_EQUAL(kjoin(g, id, "consumer", "range:x", SESSION, 1000,
	    &m, &rdy), KERR_MEMBER_ID_REQUIRED);
	p1[pending_len] = '\0';
	CU_ASSERT_EQUAL(pending_len, 7 + 1 + 16);
	CU_ASSERT_EQUAL(strncmp(p1, "rdkafka-", 8), 0);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 0);
	pending = p2;
	CU_ASSERT_EQUAL(kjoin(g, id, "consumer", "range:x", SESSION, 1000,
	    &m, &rdy), KERR_MEMBER_ID_REQUIRED);
	p2[pending_len] = '\0';
	CU_ASSERT_STRING_NOT_EQUAL(p1, p2);
	/* Its last digit changed: not an id this group gave. */
	strlcpy(id, p1, sizeof(id));
	id[strlen(id) - 1] = id[strlen(id) - 1] == '0' ? '1' : '0';
	CU_ASSERT_EQUAL(kjoin(g, id, "consumer", "range:x", SESSION, 1000,
	    &m, &rdy), KERR_UNKNOWN_MEMBER_ID);
	strlcpy(id, p1, sizeof(id));
	CU_ASSERT_EQUAL(kjoin(g, id, "consumer", "range:x", SESSION, 1000,
	    &m, &rdy), KERR_NONE);
	CU_ASSERT_STRING_EQUAL(id, p1);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 1);
	CU_ASSERT_EQUAL(kready(g, m, p1, 0, 1000 + DELAY + 1), 1);
	CU_ASSERT_EQUAL(g->generation, 1);
	/* p2 was given at generation 0. */
	strlcpy(id, p2, sizeof(id));
	CU_ASSERT_EQUAL(kjoin(g, id, "consumer", "range:x", SESSION, 1200,
	    &m, &rdy), KERR_UNKNOWN_MEMBER_ID);
	pending = NULL;
}

/* kgroup_leave() of (id, inst) under the lock. */
static int16_t
kleave(struct shm_group *g, const char *id, const char *inst, int64_t now)
{
	int16_t e;

	CU_ASSERT_FATAL(group_lock(&s, g, now, &gp) == 0);
	e = kgroup_leave(&s, g, id, strlen(id), inst, inst != NULL ?
	    strlen(inst) : 0, now, &gp);
	group_unlock(g);
	return e;
}

/*
 * Static membership (KIP-345), as Kafka's coordinator: a static member
 * joins without MEMBER_ID_REQUIRED; restarted (a join with no member id
 * and its instance id) in a STABLE group it gets a new id, the same
 * slot, generation and assignment at once, nobody else rebalances, and
 * its old id is fenced (82) wherever it names the instance; a static
 * member that does not rejoin a rebalance stays until its session ends,
 * whose expiry starts a rebalance; LeaveGroup by instance id alone.
 */
static void
test_static_membership(void)
{
	struct shm_group *g = new_group("kstatic");
	struct kgroup_assign_in as[2];
	char a[MEMBER_ID_MAX + 1] = "", b[MEMBER_ID_MAX + 1] = "",
	    old[MEMBER_ID_MAX + 1], c[MEMBER_ID_MAX + 1] = "", p1[MEMBER_ID_MAX + 1];
	int ma = -1, mb = -1, m = -1, mc = -1, r = -1;
	int64_t t;

	/* Static: joins at once though the version asks for an id round. */
	pending = p1;
	instance = "inst-a";
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:A", 10000, 1000, &ma,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(strncmp(a, "inst-a-", 7), 0);
	CU_ASSERT_EQUAL(strlen(a), 7 + 16);
	CU_ASSERT_EQUAL(replaced, 0);
	instance = NULL;
	pending = NULL;
	CU_ASSERT_EQUAL(kjoin(g, b, "consumer", "range:B", SESSION, 1010, &mb,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, ma, a, 0, 1000 + DELAY + 11), 1);
	CU_ASSERT_EQUAL(g->generation, 1);
	CU_ASSERT_EQUAL(g->leader, ma);
	as[0].member_id = a;
	as[0].member_id_len = strlen(a);
	as[0].data = (const uint8_t *)"PA";
	as[0].len = 2;
	as[1].member_id = b;
	as[1].member_id_len = strlen(b);
	as[1].data = (const uint8_t *)"PB";
	as[1].len = 2;
	instance = "inst-a";
	CU_ASSERT_EQUAL(ksync(g, a, 1, as, 2, 1200, &r), KERR_NONE);
	instance = NULL;
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);

	/* The restart: new id, same slot, assignment and generation. */
	strlcpy(old, a, sizeof(old));
	a[0] = '\0';
	instance = "inst-a";
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:A2", 10000, 1300, &m,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(m, ma);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT_EQUAL(replaced, 1);
	CU_ASSERT_STRING_NOT_EQUAL(a, old);
	CU_ASSERT_EQUAL(strncmp(a, "inst-a-", 7), 0);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(g->generation, 1);
	CU_ASSERT_EQUAL(g->leader, ma);
	CU_ASSERT_STRING_EQUAL(kassign(g, ma), "PA");
	CU_ASSERT_STRING_EQUAL(kmeta(g, ma), "A2");
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	/* The old id, naming the instance: fenced everywhere. */
	CU_ASSERT_EQUAL(khb(g, old, 1, 1310), KERR_FENCED_INSTANCE_ID);
	CU_ASSERT_EQUAL(ksync(g, old, 1, NULL, 0, 1310, &r),
	    KERR_FENCED_INSTANCE_ID);
	CU_ASSERT_EQUAL(group_lock(&s, g, 1310, &gp), 0);
	CU_ASSERT_EQUAL(kgroup_commit_check(&s, g, old, strlen(old), "inst-a",
	    6, 1, 1310, &gp), KERR_FENCED_INSTANCE_ID);
	group_unlock(g);
	strlcpy(c, old, sizeof(c));
	CU_ASSERT_EQUAL(kjoin(g, c, "consumer", "range:A", 10000, 1310, &m,
	    &r), KERR_FENCED_INSTANCE_ID);
	CU_ASSERT_EQUAL(kleave(g, old, "inst-a", 1310),
	    KERR_FENCED_INSTANCE_ID);
	instance = NULL;
	CU_ASSERT_EQUAL(khb(g, old, 1, 1310), KERR_UNKNOWN_MEMBER_ID);
	/* The new id: its assignment back, the others undisturbed. */
	instance = "inst-a";
	CU_ASSERT_EQUAL(khb(g, a, 1, 1320), KERR_NONE);
	CU_ASSERT_EQUAL(ksync(g, a, 1, NULL, 0, 1320, &r), KERR_NONE);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT_STRING_EQUAL(kassign(g, ma), "PA");
	instance = "inst-x";	/* a known id with an unknown instance */
	CU_ASSERT_EQUAL(khb(g, a, 1, 1320), KERR_UNKNOWN_MEMBER_ID);
	instance = NULL;
	CU_ASSERT_EQUAL(khb(g, b, 1, 1330), KERR_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	CU_ASSERT_EQUAL(g->generation, 1);
	CU_ASSERT_STRING_EQUAL(kassign(g, mb), "PB");

	/* A newcomer: the static member does not rejoin, yet stays. */
	c[0] = '\0';
	CU_ASSERT_EQUAL(kjoin(g, c, "consumer", "range:C", SESSION, 2000, &mc,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_REBALANCING);
	CU_ASSERT_EQUAL(kjoin(g, b, "consumer", "range:B", SESSION, 2010, &m,
	    &r), KERR_NONE);
	CU_ASSERT_EQUAL(kready(g, mc, c, 1, 2000 + REBALANCE - 1), 0);
	CU_ASSERT_EQUAL(khb(g, b, 1, 2000 + REBALANCE - 1),
	    KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(kready(g, mc, c, 1, 2000 + REBALANCE), 1);
	CU_ASSERT_EQUAL(g->generation, 2);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 3);
	CU_ASSERT_NOT_EQUAL(g->leader, ma);	/* a joined member leads */
	CU_ASSERT_EQUAL(group_member_at(&s, g, (uint32_t)ma)->joined_gen, 2);
	instance = "inst-a";
	CU_ASSERT_EQUAL(khb(g, a, 1, 2000 + REBALANCE),
	    KERR_ILLEGAL_GENERATION);
	instance = NULL;

	/*
	 * The completed round restarted every session (as Kafka's): the
	 * static member's ends 10 s after, removed, and a rebalance.
	 */
	CU_ASSERT_EQUAL(ksync(g, b, 2, NULL, 0, 7010, &r), KERR_NONE);
	CU_ASSERT_EQUAL(g->state, GROUP_STABLE);
	for (t = 8000; t <= 17000; t += 1000) {
		CU_ASSERT_EQUAL(khb(g, b, 2, t), KERR_NONE);
		CU_ASSERT_EQUAL(khb(g, c, 2, t), KERR_NONE);
	}
	CU_ASSERT_EQUAL(group_member_count(&s, g), 3);
	CU_ASSERT_EQUAL(khb(g, b, 2, 17001), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
	CU_ASSERT_EQUAL(kgroup_instance_find(&s, g, "inst-a", 6), -1);

	/* Back as a new static member; LeaveGroup by instance id alone. */
	a[0] = '\0';
	instance = "inst-a";
	CU_ASSERT_EQUAL(kjoin(g, a, "consumer", "range:A", 10000, 17100, &ma,
	    &r), KERR_NONE);
	instance = NULL;
	CU_ASSERT_EQUAL(kgroup_instance_find(&s, g, "inst-a", 6), ma);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 3);
	CU_ASSERT_EQUAL(kleave(g, "", "inst-b", 17110),
	    KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(kleave(g, "", "inst-a", 17110), KERR_NONE);
	CU_ASSERT_EQUAL(kgroup_instance_find(&s, g, "inst-a", 6), -1);
	CU_ASSERT_EQUAL(group_member_count(&s, g), 2);
}

TEST_SUITE("kgroup", suite_setup, suite_teardown,
    { "initial delay, extended by arrivals; leader and metadata", test_initial_delay_and_leader },
    { "protocol votes; INCONSISTENT_GROUP_PROTOCOL", test_protocol_votes_and_inconsistent },
    { "SyncGroup waits for the leader; 22, 25, 26, 27 as Kafka", test_sync_errors_and_rejoin },
    { "session expiry and the rebalance timeout", test_expiry_and_rebalance_timeout },
    { "metadata and assignments are bounded, not truncated", test_metadata_bound },
    { "native and Kafka members refuse each other", test_kinds_refuse_each_other },
    { "a lock holder's death is repaired by a new generation", test_crash_repair },
    { "a subscribed topic deleted ends the generation, refuses its commits", test_subscription_topic_deleted },
    { "JoinGroup v4+: MEMBER_ID_REQUIRED, then the id given joins", test_member_id_required },
    { "static members: restart without rebalance, fencing, expiry", test_static_membership });
