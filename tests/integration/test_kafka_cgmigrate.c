/*
 * The online migration between Kafka's classic and consumer protocols
 * (KIP-848's upgrade and downgrade, group_consumer_migration_policy)
 * over the Kafka wire, with the consumer protocol's real bytes in
 * JoinGroup and SyncGroup: a classic member owning the 4 partitions of
 * topic mg; a ConsumerGroupHeartbeat upgrades the group (the classic
 * member keeps its partitions until it rejoins: REBALANCE_IN_PROGRESS on
 * its heartbeat, then JoinGroup answers its member epoch as the
 * generation, no leader, and SyncGroup its share); the consumer member
 * gets the rest once released; commits take the member epoch; the
 * consumer member leaves and the group is a classic one again, preparing
 * a rebalance at the generation the classic member has; a consumer
 * member that goes silent is expired by the writer, which downgrades the
 * group with no request.  A second broker
 * with the policy disabled answers the consumer member
 * GROUP_ID_NOT_FOUND and changes nothing; a classic member of another
 * protocol type is INCONSISTENT_GROUP_PROTOCOL, while one of the
 * consumer protocol may join a consumer group, which stays one when the
 * consumer member leaves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kconsumer.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_cgroup.h"
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_join.h"
#include "proto/kafka/kmsg_offset.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d, dd;	/* bidirectional, disabled */
static int fd = -1, fdd = -1;
static struct arena a;
static int32_t corr;

static int
broker(struct flumed *f, int *kfd, const char *policy)
{
	struct flumed k;
	char extra[512];
	int kport;

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(extra, sizeof(extra), "kafka_listen = 127.0.0.1:%d\n"
	    "group_consumer_session_timeout_ms = 3s\n"
	    "group_consumer_heartbeat_interval_ms = 300ms\n"
	    "group_initial_rebalance_delay_ms = 100ms\n"
	    "group_consumer_migration_policy = %s\n"
	    "[topic mg]\npartitions = 4\n", kport, policy);
	if (flumed_start(f, extra) == -1) {
		fprintf(stderr, "broker (%s) did not start\n", policy);
		return -1;
	}
	k = *f;
	k.port = kport;
	if ((*kfd = support_connect(&k)) < 0)
		fprintf(stderr, "broker (%s): no Kafka listener\n", policy);
	return *kfd < 0 ? -1 : 0;
}

static int
setup(void)
{
	arena_init(&a, 8 << 20);
	return broker(&d, &fd, "bidirectional") == -1 ||
	    broker(&dd, &fdd, "DISABLED") == -1 ? -1 : 0;
}

static int
teardown(void)
{
	if (fd >= 0)
		close(fd);
	if (fdd >= 0)
		close(fdd);
	flumed_cleanup(&d);
	flumed_cleanup(&dd);
	arena_free(&a);
	return 0;
}

static int cfd;		/* the broker kcall() talks to */

static int
kcall(const struct kmsg *m, int16_t v, const void *q, void *resp)
{
	if (support_ksend(cfd, m, v, ++corr, q) != 0)
		return -1;
	return support_krecv(cfd, m, v, corr, resp, &a);
}

static int
is(struct kstr s, const char *c)
{
	return s.len == (int32_t)strlen(c) && memcmp(s.p, c, (size_t)s.len) == 0;
}

/* A subscription v1 to mg owning mask's partitions (Kafka's bytes). */
static size_t
subscription(uint8_t *b, uint32_t owned)
{
	size_t n = 0;
	uint32_t p, k = 0;

	b[n++] = 0, b[n++] = 1;			/* version 1 */
	memcpy(b + n, "\0\0\0\1\0\2mg", 8), n += 8;	/* topics [mg] */
	memcpy(b + n, "\xff\xff\xff\xff", 4), n += 4;	/* user_data null */
	for (p = 0; p < 4; p++)
		k += (owned >> p) & 1;
	if (k == 0) {
		memcpy(b + n, "\0\0\0\0", 4), n += 4;
		return n;
	}
	memcpy(b + n, "\0\0\0\1\0\2mg", 8), n += 8;
	b[n++] = 0, b[n++] = 0, b[n++] = 0, b[n++] = (uint8_t)k;
	for (p = 0; p < 4; p++)
		if (owned & (1u << p))
			b[n++] = 0, b[n++] = 0, b[n++] = 0, b[n++] = (uint8_t)p;
	return n;
}

static int
part_bit(const char *t, size_t tl, int32_t p, void *arg)
{
	if (tl == 2 && memcmp(t, "mg", 2) == 0 && p >= 0 && p < 32)
		*(uint32_t *)arg |= 1u << p;
	return 0;
}

static uint32_t
assignment_mask(struct kstr b)
{
	uint32_t m = 0;

	if (kconsumer_assignment_parts((const uint8_t *)b.p, (size_t)b.len,
	    part_bit, &m) == -1)
		return 0xdead;
	return m;
}

static char cid[80];		/* the classic member's id */
static uint8_t subbuf[64];

static int required;	/* MEMBER_ID_REQUIRED answers seen */

/* JoinGroup v7 of the classic member (id cid, "" new) owning owned. */
static int16_t
cjoin(const char *group, const char *ptype, uint32_t owned,
    struct km_join_resp *js)
{
	struct km_join_req q;
	struct km_join_protocol p;

	kdesc_defaults(kmsg_join_group.km_req, &q);
	q.group_id = kstr_c(group);
	q.session_timeout_ms = 10000;
	q.rebalance_timeout_ms = 10000;
	q.member_id = kstr_c(cid);
	q.group_instance_id = kstr_c(NULL);
	q.protocol_type = kstr_c(ptype);
	p.name = kstr_c("range");
	p.metadata.p = (const char *)subbuf;
	p.metadata.len = (int32_t)subscription(subbuf, owned);
	q.protocols.n = 1;
	q.protocols.v = &p;
	q.reason = kstr_c(NULL);
	if (kcall(&kmsg_join_group, 7, &q, js) != 0)
		return -1000;
	if (js->error_code == KERR_MEMBER_ID_REQUIRED && cid[0] == '\0' &&
	    js->member_id.len > 0 && js->member_id.len < 80) {
		/* KIP-394: again with the id it gave (a classic or consumer group). */
		memcpy(cid, js->member_id.p, (size_t)js->member_id.len);
		cid[js->member_id.len] = '\0';
		required++;
		q.member_id = kstr_c(cid);
		if (kcall(&kmsg_join_group, 7, &q, js) != 0)
			return -1000;
	}
	if (js->error_code == KERR_NONE && js->member_id.len > 0 &&
	    js->member_id.len < 80) {
		memcpy(cid, js->member_id.p, (size_t)js->member_id.len);
		cid[js->member_id.len] = '\0';
	}
	return js->error_code;
}

/* SyncGroup v5 (the leader gives all 4 partitions to itself when lead). */
static int16_t
csync(const char *group, int32_t gen, int lead, uint32_t *mask)
{
	static uint8_t asg[64];
	struct km_sync_req q;
	struct km_sync_resp s;
	struct km_sync_assignment sa;
	struct kconsumer_tp tps[4] = { { "mg", 2, 0 }, { "mg", 2, 1 },
	    { "mg", 2, 2 }, { "mg", 2, 3 } };

	kdesc_defaults(kmsg_sync_group.km_req, &q);
	q.group_id = kstr_c(group);
	q.generation_id = gen;
	q.member_id = kstr_c(cid);
	q.group_instance_id = kstr_c(NULL);
	q.protocol_type = kstr_c("consumer");
	q.protocol_name = kstr_c("range");
	if (lead) {
		sa.member_id = kstr_c(cid);
		sa.assignment.p = (const char *)asg;
		sa.assignment.len = (int32_t)kconsumer_assignment_encode(asg,
		    sizeof(asg), 1, tps, 4);
		q.assignments.n = 1;
		q.assignments.v = &sa;
	}
	if (kcall(&kmsg_sync_group, 5, &q, &s) != 0)
		return -1000;
	if (s.error_code == KERR_NONE)
		*mask = assignment_mask(s.assignment);
	return s.error_code;
}

static int16_t
cbeat(const char *group, int32_t gen)
{
	struct km_heartbeat_req q;
	struct km_heartbeat_resp s;

	kdesc_defaults(kmsg_heartbeat.km_req, &q);
	q.group_id = kstr_c(group);
	q.generation_id = gen;
	q.member_id = kstr_c(cid);
	q.group_instance_id = kstr_c(NULL);
	if (kcall(&kmsg_heartbeat, 3, &q, &s) != 0)
		return -1000;
	return s.error_code;
}

/* OffsetCommit v7 of the classic member, mg-0: its error. */
static int16_t
ccommit(const char *group, int32_t gen)
{
	struct km_commit_req q;
	struct km_commit_resp s;
	struct km_commit_topic t;
	struct km_commit_part p;
	const struct km_commit_topic_resp *tr;

	kdesc_defaults(kmsg_offset_commit.km_req, &q);
	memset(&p, 0, sizeof(p));
	p.committed_offset = 5;
	p.committed_leader_epoch = -1;
	p.committed_metadata = kstr_c(NULL);
	t.name = kstr_c("mg");
	t.partitions.n = 1;
	t.partitions.v = &p;
	q.group_id = kstr_c(group);
	q.generation_id = gen;
	q.member_id = kstr_c(cid);
	q.group_instance_id = kstr_c(NULL);
	q.topics.n = 1;
	q.topics.v = &t;
	if (kcall(&kmsg_offset_commit, 7, &q, &s) != 0 || s.topics.n != 1)
		return -1000;
	tr = s.topics.v;
	return tr->partitions.n == 1 ? ((const struct km_commit_part_resp *)
	    tr->partitions.v)->error_code : -1000;
}

/*
 * ConsumerGroupHeartbeat v0 of member id (epoch 0 joins, subscribing mg),
 * owning nothing; its epoch, assignment and id (when asked).
 */
static int16_t
hb(const char *group, char *id, int32_t epoch, int32_t *out_epoch,
    uint32_t *mask)
{
	struct km_cghb_req q;
	struct km_cghb_resp s;
	struct kstr topic = kstr_c("mg");
	const struct km_cg_tp *tp;
	int32_t i, j;

	kdesc_defaults(kmsg_consumer_group_heartbeat.km_req, &q);
	q.group_id = kstr_c(group);
	q.member_id = kstr_c(id);
	q.member_epoch = epoch;
	if (epoch == 0) {
		q.rebalance_timeout_ms = 5000;
		q.subscribed_topic_names.n = 1;
		q.subscribed_topic_names.v = &topic;
	}
	q.topic_partitions.n = epoch >= 0 ? 0 : -1;
	if (kcall(&kmsg_consumer_group_heartbeat, 0, &q, &s) != 0)
		return -1000;
	if (s.error_code != KERR_NONE)
		return s.error_code;
	if (out_epoch != NULL)
		*out_epoch = s.member_epoch;
	if (s.member_id.len > 0 && s.member_id.len < 80) {
		memcpy(id, s.member_id.p, (size_t)s.member_id.len);
		id[s.member_id.len] = '\0';
	}
	if (mask != NULL) {
		*mask = 0;
		tp = s.assignment.topic_partitions.v;
		for (i = 0; i < s.assignment.topic_partitions.n; i++)
			for (j = 0; j < tp[i].partitions.n; j++)
				*mask |= 1u << ((const int32_t *)
				    tp[i].partitions.v)[j];
	}
	return s.error_code;
}

/* Is group listed by ListGroups v5 with type ("classic", "consumer")? */
static int
listed(const char *type, const char *group)
{
	struct km_list_groups_req q;
	struct km_list_groups_resp s;
	const struct km_listed_group *g;
	struct kstr t = kstr_c(type);
	int32_t i;

	kdesc_defaults(kmsg_list_groups.km_req, &q);
	q.types_filter.n = 1;
	q.types_filter.v = &t;
	if (kcall(&kmsg_list_groups, 5, &q, &s) != 0)
		return -1;
	g = s.groups.v;
	for (i = 0; i < s.groups.n; i++)
		if (is(g[i].group_id, group))
			return 1;
	return 0;
}

/* DescribeGroups v5 of group: state and members, or an error. */
static int16_t
dgroup(const char *group, struct km_described_group *out)
{
	struct km_describe_groups_req q;
	struct km_describe_groups_resp s;
	struct kstr g = kstr_c(group);

	kdesc_defaults(kmsg_describe_groups.km_req, &q);
	q.groups.n = 1;
	q.groups.v = &g;
	if (kcall(&kmsg_describe_groups, 5, &q, &s) != 0 || s.groups.n != 1)
		return -1000;
	*out = *(const struct km_described_group *)s.groups.v;
	return out->error_code;
}

/*
 * ConsumerGroupDescribe v1 of group: its state, and member id's type and
 * assignment (a mask of mg), or -1 when it is not there.
 */
static int
cgd_member(const char *group, const char *id, char *state, size_t slen,
    uint32_t *mask)
{
	struct km_cgd_req q;
	struct km_cgd_resp s;
	struct kstr g = kstr_c(group);
	const struct km_cgd_group *dg;
	const struct km_cgd_member *dm;
	const struct km_cgd_tp *tp;
	int32_t i, j, k;

	kdesc_defaults(kmsg_consumer_group_describe.km_req, &q);
	q.group_ids.n = 1;
	q.group_ids.v = &g;
	if (kcall(&kmsg_consumer_group_describe, 1, &q, &s) != 0 ||
	    s.groups.n != 1)
		return -1;
	dg = s.groups.v;
	snprintf(state, slen, "%.*s", dg->group_state.len, dg->group_state.p);
	dm = dg->members.v;
	for (i = 0; i < dg->members.n; i++) {
		if (!is(dm[i].member_id, id))
			continue;
		*mask = 0;
		tp = dm[i].assignment.topic_partitions.v;
		for (j = 0; j < dm[i].assignment.topic_partitions.n; j++)
			for (k = 0; k < tp[j].partitions.n; k++)
				*mask |= 1u << ((const int32_t *)
				    tp[j].partitions.v)[k];
		return dm[i].member_type;
	}
	return -1;
}

/* A STABLE classic group owning mg entirely; its generation. */
static int32_t
classic_group(const char *group)
{
	struct km_join_resp js;
	uint32_t m = 0;

	cid[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(cjoin(group, "consumer", 0, &js), KERR_NONE);
	CU_ASSERT_EQUAL(js.generation_id, 1);
	CU_ASSERT(is(js.leader, cid));
	CU_ASSERT_EQUAL_FATAL(csync(group, js.generation_id, 1, &m), KERR_NONE);
	CU_ASSERT_EQUAL(m, 0xf);
	return js.generation_id;
}

static void
test_upgrade_downgrade(void)
{
	struct km_join_resp js;
	struct km_described_group dg = { 0 };
	const struct km_described_member *dm;
	char c[80] = "", state[32];
	int32_t gen, ec = 0;
	uint32_t m = 0, mc = 0;

	cfd = fd;
	gen = classic_group("mg1");
	/* The consumer member joins: an upgrade; mg is still the classic one's. */
	CU_ASSERT_EQUAL(hb("mg1", c, 0, &ec, &mc), KERR_NONE);
	CU_ASSERT_EQUAL(ec, 2);
	CU_ASSERT_EQUAL(mc, 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "upgraded to the consumer protocol"), 1);
	CU_ASSERT_EQUAL(listed("consumer", "mg1"), 1);
	CU_ASSERT_EQUAL(listed("classic", "mg1"), 0);
	/* Described as Kafka: the classic member (type 0) holds mg. */
	CU_ASSERT_EQUAL(cgd_member("mg1", cid, state, sizeof(state), &m), 0);
	CU_ASSERT_EQUAL(m, 0xf);
	CU_ASSERT_STRING_EQUAL(state, "Reconciling");
	CU_ASSERT_EQUAL(cgd_member("mg1", c, state, sizeof(state), &m), 1);
	CU_ASSERT_EQUAL(m, 0);
	/* Its heartbeat: rejoin.  Its commits still take generation 1. */
	CU_ASSERT_EQUAL(cbeat("mg1", gen), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(cbeat("mg1", gen + 5), KERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(ccommit("mg1", gen), KERR_NONE);
	/* Eager, it gave everything up: its member epoch, no leader. */
	CU_ASSERT_EQUAL(cjoin("mg1", "consumer", 0, &js), KERR_NONE);
	CU_ASSERT_EQUAL(js.generation_id, 2);
	CU_ASSERT(is(js.leader, ""));
	CU_ASSERT(is(js.protocol_type, "consumer"));
	CU_ASSERT(is(js.protocol_name, "range"));
	CU_ASSERT_EQUAL(js.members.n, 0);
	CU_ASSERT_EQUAL(csync("mg1", gen, 0, &m), KERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(csync("mg1", 2, 0, &m), KERR_NONE);
	CU_ASSERT_EQUAL(m, 0x3);	/* uniform, sticky: it keeps mg-0,1 */
	CU_ASSERT_EQUAL(cbeat("mg1", 2), KERR_NONE);
	CU_ASSERT_EQUAL(ccommit("mg1", 2), KERR_NONE);
	CU_ASSERT_EQUAL(ccommit("mg1", 1), KERR_ILLEGAL_GENERATION);
	/* The consumer member gets the two released. */
	CU_ASSERT_EQUAL(hb("mg1", c, ec, &ec, &mc), KERR_NONE);
	CU_ASSERT_EQUAL(mc, 0xc);
	CU_ASSERT_EQUAL(ec, 2);
	/* It leaves: a classic group again, at generation 2, rebalancing. */
	CU_ASSERT_EQUAL(hb("mg1", c, -1, NULL, NULL), KERR_NONE);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "downgraded to the classic protocol"), 1);
	CU_ASSERT_EQUAL(listed("classic", "mg1"), 1);
	CU_ASSERT_EQUAL_FATAL(dgroup("mg1", &dg), KERR_NONE);
	CU_ASSERT(is(dg.group_state, "PreparingRebalance"));
	CU_ASSERT(is(dg.protocol_type, "consumer"));
	CU_ASSERT_EQUAL_FATAL(dg.members.n, 1);
	dm = dg.members.v;
	CU_ASSERT(is(dm->member_id, cid));
	CU_ASSERT_EQUAL(cbeat("mg1", 2), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(cjoin("mg1", "consumer", 0, &js), KERR_NONE);
	CU_ASSERT_EQUAL(js.generation_id, 3);
	CU_ASSERT(is(js.leader, cid));
	CU_ASSERT_EQUAL(js.members.n, 1);
	CU_ASSERT_EQUAL(csync("mg1", 3, 1, &m), KERR_NONE);
	CU_ASSERT_EQUAL(m, 0xf);
	CU_ASSERT_EQUAL(cbeat("mg1", 3), KERR_NONE);
}

/*
 * The consumer member goes silent: its session ends and the writer's
 * tick, with no request, makes the group a classic one again.
 */
static void
test_downgrade_by_expiry(void)
{
	struct km_join_resp js;
	struct km_described_group dg = { 0 };
	char c[80] = "";
	int32_t ec = 0;
	uint32_t m = 0;
	long long end;

	cfd = fd;
	(void)classic_group("mg2");
	CU_ASSERT_EQUAL(hb("mg2", c, 0, &ec, NULL), KERR_NONE);
	CU_ASSERT_EQUAL(cjoin("mg2", "consumer", 0, &js), KERR_NONE);
	CU_ASSERT_EQUAL(csync("mg2", js.generation_id, 0, &m), KERR_NONE);
	CU_ASSERT_EQUAL(m, 0x3);
	/* The classic member heartbeats; the consumer member is silent. */
	end = support_now_ms() + 8000;
	while (listed("classic", "mg2") != 1 && support_now_ms() < end) {
		(void)cbeat("mg2", js.generation_id);
		usleep(200 * 1000);	/* a classic member's heartbeat interval */
	}
	CU_ASSERT_EQUAL(listed("classic", "mg2"), 1);
	CU_ASSERT_EQUAL_FATAL(dgroup("mg2", &dg), KERR_NONE);
	CU_ASSERT(is(dg.group_state, "PreparingRebalance"));
	CU_ASSERT_EQUAL(dg.members.n, 1);
	CU_ASSERT_EQUAL(cbeat("mg2", js.generation_id),
	    KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(cjoin("mg2", "consumer", 0, &js), KERR_NONE);
	CU_ASSERT(is(js.leader, cid));
	CU_ASSERT_EQUAL(csync("mg2", js.generation_id, 1, &m), KERR_NONE);
	CU_ASSERT_EQUAL(m, 0xf);
}

static void
test_disabled(void)
{
	struct km_join_resp js;
	char c[80] = "";
	int32_t ec = 0, gen;
	uint32_t m = 0, mc = 0;

	cfd = fdd;
	(void)classic_group("dg1");
	CU_ASSERT_EQUAL(hb("dg1", c, 0, &ec, NULL), KERR_GROUP_ID_NOT_FOUND);
	CU_ASSERT_EQUAL(cbeat("dg1", 1), KERR_NONE);	/* still classic, stable */
	CU_ASSERT_EQUAL(listed("classic", "dg1"), 1);
	/* A consumer group: a classic member of another protocol type... */
	c[0] = '\0';
	CU_ASSERT_EQUAL(hb("dg2", c, 0, &ec, &mc), KERR_NONE);
	CU_ASSERT_EQUAL(mc, 0xf);
	cid[0] = '\0';
	CU_ASSERT_EQUAL(cjoin("dg2", "other", 0, &js),
	    KERR_INCONSISTENT_GROUP_PROTOCOL);
	/* ... or of the consumer protocol, which joins whatever the policy. */
	required = 0;
	CU_ASSERT_EQUAL(cjoin("dg2", "consumer", 0, &js), KERR_NONE);
	CU_ASSERT_EQUAL(required, 1);
	CU_ASSERT_EQUAL(strlen(cid), 22);	/* a Uuid, as Kafka's */
	gen = js.generation_id;
	CU_ASSERT_EQUAL(gen, 2);
	CU_ASSERT_EQUAL(csync("dg2", gen, 0, &m), KERR_NONE);
	CU_ASSERT_EQUAL(m, 0);		/* its share is still the other's */
	CU_ASSERT_EQUAL(hb("dg2", c, ec, &ec, &mc), KERR_NONE);
	CU_ASSERT_EQUAL(mc, 0x3);
	CU_ASSERT_EQUAL(cbeat("dg2", gen), KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(cjoin("dg2", "consumer", 0, &js), KERR_NONE);
	CU_ASSERT_EQUAL(csync("dg2", js.generation_id, 0, &m), KERR_NONE);
	CU_ASSERT_EQUAL(m, 0xc);
	/* The consumer member leaves: no downgrade, a consumer group still. */
	CU_ASSERT_EQUAL(hb("dg2", c, -1, NULL, NULL), KERR_NONE);
	CU_ASSERT_EQUAL(listed("consumer", "dg2"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&dd, "downgraded"), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&dd, "upgraded"), 0);
	CU_ASSERT_EQUAL(cbeat("dg2", js.generation_id), KERR_REBALANCE_IN_PROGRESS);
}

TEST_SUITE("kafka_cgmigrate", setup, teardown,
    { "upgrade, classic member served from the consumer group, downgrade", test_upgrade_downgrade },
    { "the consumer member's session ends: a classic group again", test_downgrade_by_expiry },
    { "policy disabled; classic members of a consumer group", test_disabled });
