/*
 * Kafka's consumer group protocol (KIP-848) with raw requests built by
 * the codec: ConsumerGroupHeartbeat members play a 3-member scenario
 * (join, a member killed: it stops heartbeating and expires, a member
 * added, the topic grown with CreatePartitions) and every step asserts
 * the exact assignments and epochs, that no partition is ever in two
 * members' assignments (ConsumerGroupDescribe after every heartbeat),
 * and that a member keeping a partition is never asked to give it up.
 * Then Kafka's errors for bad input, each changing nothing; member
 * epochs in OffsetCommit; the group kinds refusing each other; ListGroups'
 * type filter; a regular expression subscription.  flume-admin group's
 * epochs, instance ids and revoking and target lists, and the native
 * DESCRIBE_GROUP's layout per HANDSHAKE version; OffsetFetch v9's member
 * epoch check; a silent member removed at its revocation deadline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_cgroup.h"
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_join.h"
#include "proto/kafka/kmsg_offset.h"
#include "proto/kafka/kmsg_partitions.h"
#include "proto/kafka/kmsg_records.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "shm/group.h"
#include "shm/shm.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define SESSION_MS	2000
#define MAXP		16	/* partitions of the test topic, at most */

static struct flumed d;
static struct arena a;
static int fd = -1;
static int32_t corr;

static int
setup(void)
{
	arena_init(&a, 8 << 20);
	if (flumed_start_kafka(&d, NULL,
	    "group_consumer_session_timeout_ms = 2s\n"
	    "group_consumer_heartbeat_interval_ms = 300ms\n"
	    "group_consumer_max_size = 5\n"
	    "group_initial_rebalance_delay_ms = 100ms\n"
	    "[topic cg]\npartitions = 6\n[topic rx-1]\npartitions = 2\n"
	    "[topic rx-2]\npartitions = 1\n[topic other]\npartitions = 3\n"
	    "[topic ad]\npartitions = 2\n") == -1 ||
	    (fd = support_kconnect(&d)) < 0)
		return -1;
	return 0;
}

static int
teardown(void)
{
	if (fd >= 0)
		close(fd);
	flumed_cleanup(&d);
	arena_free(&a);
	return 0;
}

static int
kcall(const struct kmsg *m, int16_t v, const void *q, void *resp)
{
	if (support_ksend(fd, m, v, ++corr, q) != 0)
		return -1;
	return support_krecv(fd, m, v, corr, resp, &a);
}

/* ---- members ---- */

struct mem {
	char		 id[80];
	int32_t		 epoch;
	uint32_t	 owned;		/* bitmask of topic cg's partitions */
	int		 alive;
};

static uint8_t cg_id[16];		/* topic cg's id, from an answer */
static int cg_id_known;

/* Topic cg's partitions in a heartbeat or describe assignment, as a mask. */
static uint32_t
mask_hb(const struct karray *tps)
{
	const struct km_cg_tp *t = tps->v;
	uint32_t m = 0;
	int32_t i, j;

	for (i = 0; i < tps->n; i++) {
		if (cg_id_known && memcmp(t[i].topic_id, cg_id, 16) != 0)
			continue;
		if (!cg_id_known) {
			memcpy(cg_id, t[i].topic_id, 16);
			cg_id_known = 1;
		}
		for (j = 0; j < t[i].partitions.n; j++)
			m |= 1u << ((const int32_t *)t[i].partitions.v)[j];
	}
	return m;
}

static uint32_t
mask_cgd(const struct karray *tps, const char *topic)
{
	const struct km_cgd_tp *t = tps->v;
	uint32_t m = 0;
	int32_t i, j;

	for (i = 0; i < tps->n; i++)
		if (t[i].topic_name.len == (int32_t)strlen(topic) &&
		    memcmp(t[i].topic_name.p, topic, strlen(topic)) == 0)
			for (j = 0; j < t[i].partitions.n; j++)
				m |= 1u << ((const int32_t *)
				    t[i].partitions.v)[j];
	return m;
}

static struct kstr cg_topic_name;
static const char *hbgroup = "ce";	/* ce_beat()'s group */

static int
kstr_is_c(struct kstr s, const char *c)
{
	return s.len == (int32_t)strlen(c) && memcmp(s.p, c, (size_t)s.len) == 0;
}

/* The partitions of mask owned of the topic of id id (-1: unsaid) into q. */
static void
hb_owned(struct km_cghb_req *q, const uint8_t *id, int64_t owned)
{
	static struct km_cg_tp tp;
	static int32_t parts[MAXP];
	int32_t n = 0, i;

	if (owned < 0)
		return;
	for (i = 0; i < MAXP; i++)
		if (owned & (1ll << i))
			parts[n++] = i;
	memcpy(tp.topic_id, id, 16);
	tp.partitions.n = n;
	tp.partitions.v = parts;
	q->topic_partitions.n = n > 0 ? 1 : 0;
	q->topic_partitions.v = &tp;
}

/*
 * A heartbeat request of member mb at epoch (version v): names NULL
 * leaves the subscription unchanged; owned -1 says nothing of owned
 * partitions.
 */
static void
hb_req(struct km_cghb_req *q, int16_t v, const char *group,
    const struct mem *mb, int32_t epoch, const char *topic, int64_t owned)
{
	kdesc_defaults(kmsg_consumer_group_heartbeat.km_req, q);
	q->group_id = kstr_c(group);
	q->member_id = kstr_c(mb->id);
	q->member_epoch = epoch;
	if (epoch == 0)
		q->rebalance_timeout_ms = 5000;
	if (topic != NULL) {
		cg_topic_name = kstr_c(topic);
		q->subscribed_topic_names.n = 1;
		q->subscribed_topic_names.v = &cg_topic_name;
	}
	(void)v;
	hb_owned(q, cg_id, owned);
}

/* Describe group "cg"; the assigned masks per member id into the state. */
static struct km_cgd_group last;

static int
describe(const char *group)
{
	struct km_cgd_req q;
	struct km_cgd_resp s;
	struct kstr g = kstr_c(group);

	kdesc_defaults(kmsg_consumer_group_describe.km_req, &q);
	q.group_ids.n = 1;
	q.group_ids.v = &g;
	if (kcall(&kmsg_consumer_group_describe, 1, &q, &s) != 0 ||
	    s.groups.n != 1)
		return -1;
	last = *(const struct km_cgd_group *)s.groups.v;
	return last.error_code;
}

static const struct km_cgd_member *
described(const char *id)
{
	const struct km_cgd_member *m = last.members.v;
	int32_t i;

	for (i = 0; i < last.members.n; i++)
		if (m[i].member_id.len == (int32_t)strlen(id) &&
		    memcmp(m[i].member_id.p, id, strlen(id)) == 0)
			return &m[i];
	return NULL;
}

/* No partition of cg in two members' assignments. */
static int
no_overlap(void)
{
	const struct km_cgd_member *m;
	uint32_t seen = 0, x;
	int32_t i;

	if (describe("cg") != KERR_NONE)
		return 0;
	m = last.members.v;
	for (i = 0; i < last.members.n; i++) {
		x = mask_cgd(&m[i].assignment.topic_partitions, "cg");
		if ((seen & x) != 0)
			return 0;
		seen |= x;
	}
	return 1;
}

static int overlaps;		/* no_overlap() failures seen */
static int revoked_kept;	/* a partition taken from a member whose target keeps it */

/*
 * One heartbeat of mb reporting what it owns (its last answer's
 * assignment, which a client consumes at once): the error; mb's epoch
 * and owned mask follow the answer.  After it the invariants are
 * checked on a describe.
 */
static int16_t
beat(struct mem *mb, const char *topic)
{
	struct km_cghb_req q;
	struct km_cghb_resp s;
	const struct km_cgd_member *dm;
	uint32_t now, target;

	hb_req(&q, 1, "cg", mb, mb->epoch, mb->epoch == 0 ? topic : NULL,
	    mb->epoch == 0 ? 0 : (int64_t)mb->owned);
	if (mb->epoch == 0)
		q.topic_partitions.n = 0;
	if (kcall(&kmsg_consumer_group_heartbeat, 1, &q, &s) != 0)
		return -1000;
	if (s.error_code != KERR_NONE)
		return s.error_code;
	mb->epoch = s.member_epoch;
	now = s.assignment_marker >= 0 ?
	    mask_hb(&s.assignment.topic_partitions) :
	    mb->owned;
	if (!no_overlap())
		overlaps++;
	if ((dm = described(mb->id)) != NULL) {
		target = mask_cgd(&dm->target_assignment.topic_partitions, "cg");
		if ((mb->owned & target & ~now) != 0)
			revoked_kept++;
	}
	mb->owned = now;
	return KERR_NONE;
}

/* Heartbeat every live member, n rounds. */
static void
rounds(struct mem *m, int nm, int n)
{
	int r, i;

	for (r = 0; r < n; r++)
		for (i = 0; i < nm; i++)
			if (m[i].alive)
				CU_ASSERT_EQUAL(beat(&m[i], "cg"), KERR_NONE);
}

static int
popcount(uint32_t x)
{
	int n = 0;

	for (; x != 0; x &= x - 1)
		n++;
	return n;
}

static int16_t
grow(const char *topic, int32_t count)
{
	struct km_create_partitions_req q;
	struct km_create_partitions_resp s;
	struct km_partitions_topic t;

	kdesc_defaults(kmsg_create_partitions.km_req, &q);
	memset(&t, 0, sizeof(t));
	t.name = kstr_c(topic);
	t.count = count;
	t.assignments.n = -1;
	q.topics.n = 1;
	q.topics.v = &t;
	q.timeout_ms = 15000;
	if (kcall(&kmsg_create_partitions, 3, &q, &s) != 0 || s.results.n != 1)
		return -1000;
	return ((const struct km_partitions_result *)s.results.v)->error_code;
}

static void
test_three_members(void)
{
	struct mem m[4];
	long long t0;
	int32_t e;
	int i;

	memset(m, 0, sizeof(m));
	for (i = 0; i < 4; i++) {
		snprintf(m[i].id, sizeof(m[i].id), "m-%c", 'a' + i);
		m[i].alive = 1;
	}
	m[3].alive = 0;
	/* A alone: everything, at the first group epoch. */
	CU_ASSERT_EQUAL_FATAL(beat(&m[0], "cg"), KERR_NONE);
	CU_ASSERT(cg_id_known);
	CU_ASSERT_EQUAL(m[0].owned, 0x3f);
	e = m[0].epoch;
	CU_ASSERT(e >= 1);
	CU_ASSERT_EQUAL(describe("cg"), KERR_NONE);
	CU_ASSERT(kstr_is_c(last.group_state, "Stable"));
	CU_ASSERT_EQUAL(last.group_epoch, e);
	CU_ASSERT_EQUAL(last.assignment_epoch, e);
	CU_ASSERT(kstr_is_c(last.assignor_name, "uniform"));

	/* B joins: nothing until A released 3, 4, 5; A keeps 0, 1, 2. */
	CU_ASSERT_EQUAL(beat(&m[1], "cg"), KERR_NONE);
	CU_ASSERT_EQUAL(m[1].owned, 0);
	CU_ASSERT_EQUAL(m[1].epoch, e + 1);
	CU_ASSERT_EQUAL(beat(&m[0], "cg"), KERR_NONE);
	CU_ASSERT_EQUAL(m[0].owned, 0x07);
	CU_ASSERT_EQUAL(m[0].epoch, e);		/* revoking: its epoch stays */
	CU_ASSERT_EQUAL(describe("cg"), KERR_NONE);
	CU_ASSERT(kstr_is_c(last.group_state, "Reconciling"));
	CU_ASSERT_EQUAL(beat(&m[1], "cg"), KERR_NONE);
	CU_ASSERT_EQUAL(m[1].owned, 0);		/* still held by A */
	CU_ASSERT_EQUAL(beat(&m[0], "cg"), KERR_NONE);	/* released */
	CU_ASSERT_EQUAL(m[0].owned, 0x07);
	CU_ASSERT_EQUAL(m[0].epoch, e + 1);
	CU_ASSERT_EQUAL(beat(&m[1], "cg"), KERR_NONE);
	CU_ASSERT_EQUAL(m[1].owned, 0x38);
	CU_ASSERT_EQUAL(describe("cg"), KERR_NONE);
	CU_ASSERT(kstr_is_c(last.group_state, "Stable"));

	/* C joins: A keeps 0, 1, B keeps 3, 4, C gets 2 and 5. */
	CU_ASSERT_EQUAL(beat(&m[2], "cg"), KERR_NONE);
	CU_ASSERT_EQUAL(m[2].epoch, e + 2);
	rounds(m, 3, 3);
	CU_ASSERT_EQUAL(m[0].owned, 0x03);
	CU_ASSERT_EQUAL(m[1].owned, 0x18);
	CU_ASSERT_EQUAL(m[2].owned, 0x24);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(m[i].epoch, e + 2);

	/* B is killed: no more heartbeats; its session ends (2 s). */
	m[1].alive = 0;
	t0 = support_now_ms();
	for (i = 0; i < 50; i++) {
		usleep(200 * 1000);
		rounds(m, 3, 1);
		if (describe("cg") == KERR_NONE && last.members.n == 2)
			break;
	}
	CU_ASSERT_EQUAL(last.members.n, 2);
	CU_ASSERT(support_now_ms() - t0 >= SESSION_MS - 300);
	rounds(m, 3, 2);
	/* Its 3 and 4 go to the others, who keep theirs. */
	CU_ASSERT_EQUAL(m[0].owned, 0x0b);	/* 0, 1, 3 */
	CU_ASSERT_EQUAL(m[2].owned, 0x34);	/* 2, 4, 5 */
	CU_ASSERT_EQUAL(m[0].epoch, e + 3);
	CU_ASSERT_EQUAL(m[2].epoch, e + 3);
	CU_ASSERT_EQUAL(beat(&m[1], "cg"), KERR_UNKNOWN_MEMBER_ID);

	/* D is added. */
	m[3].alive = 1;
	rounds(m, 4, 4);
	CU_ASSERT_EQUAL(m[0].owned, 0x03);	/* 0, 1 */
	CU_ASSERT_EQUAL(m[2].owned, 0x14);	/* 2, 4 */
	CU_ASSERT_EQUAL(m[3].owned, 0x28);	/* 3, 5 */
	CU_ASSERT_EQUAL(m[3].epoch, e + 4);

	/* The topic grows to 9: the new partitions are shared out. */
	CU_ASSERT_EQUAL_FATAL(grow("cg", 9), KERR_NONE);
	rounds(m, 4, 4);
	CU_ASSERT_EQUAL(m[0].owned, 0x43);	/* 0, 1, 6 */
	CU_ASSERT_EQUAL(m[2].owned, 0x94);	/* 2, 4, 7 */
	CU_ASSERT_EQUAL(m[3].owned, 0x128);	/* 3, 5, 8 */
	CU_ASSERT_EQUAL(m[0].epoch, e + 5);
	CU_ASSERT_EQUAL(describe("cg"), KERR_NONE);
	CU_ASSERT(kstr_is_c(last.group_state, "Stable"));
	CU_ASSERT_EQUAL(last.group_epoch, e + 5);
	CU_ASSERT_EQUAL(overlaps, 0);
	CU_ASSERT_EQUAL(revoked_kept, 0);
	/* popcount keeps the compiler honest about the masks' meaning. */
	CU_ASSERT_EQUAL(popcount(m[0].owned | m[2].owned | m[3].owned), 9);
}

/* A raw heartbeat of group "ce": its error, *epoch and *assigned set. */
static int16_t
ce_beat(const char *id, int32_t epoch, const char *assignor,
    const char *regex, int32_t rebalance, const char *instance,
    int16_t v, int32_t *out_epoch, char *out_id)
{
	struct km_cghb_req q;
	struct km_cghb_resp s;
	struct mem mb;

	memset(&mb, 0, sizeof(mb));
	snprintf(mb.id, sizeof(mb.id), "%s", id);
	hb_req(&q, v, hbgroup, &mb, epoch, regex == NULL ? "cg" : NULL,
	    epoch == 0 ? 0 : -1);
	if (epoch == 0)
		q.topic_partitions.n = 0;
	q.rebalance_timeout_ms = rebalance;
	q.server_assignor = kstr_c(assignor);
	q.instance_id = kstr_c(instance);
	if (regex != NULL)
		q.subscribed_topic_regex = kstr_c(regex);
	if (kcall(&kmsg_consumer_group_heartbeat, v, &q, &s) != 0)
		return -1000;
	if (out_epoch != NULL)
		*out_epoch = s.member_epoch;
	if (out_id != NULL && s.member_id.len > 0 && s.member_id.len < 80) {
		memcpy(out_id, s.member_id.p, (size_t)s.member_id.len);
		out_id[s.member_id.len] = '\0';
	}
	return s.error_code;
}

/* OffsetCommit (v) of group ce, topic cg partition 0: its error. */
static int16_t
ce_commit(int16_t v, const char *id, int32_t epoch)
{
	struct km_commit_req q;
	struct km_commit_resp s;
	struct km_commit_topic t;
	struct km_commit_part p;
	const struct km_commit_topic_resp *tr;

	kdesc_defaults(kmsg_offset_commit.km_req, &q);
	memset(&p, 0, sizeof(p));
	p.committed_offset = 3;
	p.committed_leader_epoch = -1;
	p.committed_metadata = kstr_c(NULL);
	t.name = kstr_c("cg");
	t.partitions.n = 1;
	t.partitions.v = &p;
	q.group_id = kstr_c("ce");
	q.generation_id = epoch;
	q.member_id = kstr_c(id);
	q.group_instance_id = kstr_c(NULL);
	q.topics.n = 1;
	q.topics.v = &t;
	if (kcall(&kmsg_offset_commit, v, &q, &s) != 0 || s.topics.n != 1)
		return -1000;
	tr = s.topics.v;
	return tr->partitions.n == 1 ? ((const struct km_commit_part_resp *)
	    tr->partitions.v)->error_code : -1000;
}

/* OffsetDelete v0 of group ce, topic's partition 0: its error. */
static int16_t
ce_odelete(const char *topic)
{
	struct km_offset_delete_req q;
	struct km_offset_delete_resp s;
	struct km_odel_topic t;
	struct km_odel_part p;
	const struct km_odel_topic_result *tr;

	kdesc_defaults(kmsg_offset_delete.km_req, &q);
	p.partition_index = 0;
	t.name = kstr_c(topic);
	t.partitions.n = 1;
	t.partitions.v = &p;
	q.group_id = kstr_c("ce");
	q.topics.n = 1;
	q.topics.v = &t;
	if (kcall(&kmsg_offset_delete, 0, &q, &s) != 0)
		return -1000;
	if (s.error_code != KERR_NONE || s.topics.n != 1)
		return s.error_code != KERR_NONE ? s.error_code : -1000;
	tr = s.topics.v;
	return tr->partitions.n == 1 ? ((const struct km_odel_part_result *)
	    tr->partitions.v)->error_code : -1000;
}

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
		if (kstr_is_c(g[i].group_id, group))
			return kstr_is_c(g[i].group_type, type);
	return 0;
}

/* A classic JoinGroup of group (a new member, instance id or NULL). */
static void
join_req(struct km_join_req *jq, struct km_join_protocol *jp,
    const char *group, const char *instance)
{
	kdesc_defaults(kmsg_join_group.km_req, jq);
	jq->group_id = kstr_c(group);
	jq->session_timeout_ms = 10000;
	jq->rebalance_timeout_ms = 10000;
	jq->member_id = kstr_c("");
	jq->group_instance_id = kstr_c(instance);
	jq->protocol_type = kstr_c("consumer");
	jp->name = kstr_c("range");
	jp->metadata = kstr_c("x");
	jq->protocols.n = 1;
	jq->protocols.v = jp;
	jq->reason = kstr_c(NULL);
}

/*
 * Bad input gets Kafka's error and changes nothing (the group epoch
 * stays); member epochs in OffsetCommit; the kinds refuse each other;
 * the type filter; a regular expression subscription.
 */
static void
test_errors_and_kinds(void)
{
	struct km_join_req jq;
	struct km_join_resp js;
	struct km_join_protocol jp;
	const struct km_cgd_member *dm;
	char id[80] = "";
	int32_t ep = -5, ge;

	CU_ASSERT_EQUAL(ce_beat("e-1", 0, NULL, NULL, 5000, NULL, 1, &ep, id),
	    KERR_NONE);
	CU_ASSERT_STRING_EQUAL(id, "e-1");
	CU_ASSERT_EQUAL_FATAL(describe("ce"), KERR_NONE);
	ge = last.group_epoch;
	CU_ASSERT_EQUAL(ep, ge);
	/* v0: the broker makes the id (22 characters, Kafka's Uuid). */
	CU_ASSERT_EQUAL(ce_beat("", 0, "range", NULL, 5000, NULL, 0, &ep, id),
	    KERR_NONE);
	CU_ASSERT_EQUAL(strlen(id), 22);
	CU_ASSERT_EQUAL_FATAL(describe("ce"), KERR_NONE);
	CU_ASSERT_EQUAL(last.group_epoch, ge + 1);
	CU_ASSERT(kstr_is_c(last.assignor_name, "range"));
	ge = last.group_epoch;

	CU_ASSERT_EQUAL(ce_beat("nobody", 3, NULL, NULL, -1, NULL, 1, NULL,
	    NULL), KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(ce_beat("e-1", ge + 7, NULL, NULL, -1, NULL, 1, NULL,
	    NULL), KERR_FENCED_MEMBER_EPOCH);
	CU_ASSERT_EQUAL(ce_beat("e-2", 0, "nope", NULL, 5000, NULL, 1, NULL,
	    NULL), KERR_UNSUPPORTED_ASSIGNOR);
	CU_ASSERT_EQUAL(ce_beat("e-2", 0, NULL, NULL, -1, NULL, 1, NULL,
	    NULL), KERR_INVALID_REQUEST);	/* no rebalance timeout */
	CU_ASSERT_EQUAL(ce_beat("", 0, NULL, NULL, 5000, NULL, 1, NULL,
	    NULL), KERR_INVALID_REQUEST);	/* v1: the client's id */
	CU_ASSERT_EQUAL(ce_beat("e-2", 0, NULL, "(", 5000, NULL, 1, NULL,
	    NULL), KERR_INVALID_REGULAR_EXPRESSION);
	CU_ASSERT_EQUAL(ce_beat("e-2", -3, NULL, NULL, 5000, NULL, 1, NULL,
	    NULL), KERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(ce_beat("e-2", -2, NULL, NULL, 5000, NULL, 1, NULL,
	    NULL), KERR_INVALID_REQUEST);	/* -2 needs an instance id */
	CU_ASSERT_EQUAL_FATAL(describe("ce"), KERR_NONE);
	CU_ASSERT_EQUAL(last.group_epoch, ge);
	CU_ASSERT_EQUAL(last.members.n, 2);

	/* A static member's instance id is held while it is there. */
	CU_ASSERT_EQUAL(ce_beat("s-1", 0, NULL, NULL, 5000, "inst", 1, &ep,
	    NULL), KERR_NONE);
	CU_ASSERT_EQUAL(ce_beat("s-2", 0, NULL, NULL, 5000, "inst", 1, NULL,
	    NULL), KERR_UNRELEASED_INSTANCE_ID);
	CU_ASSERT_EQUAL(ce_beat("s-1", -2, NULL, NULL, -1, "inst", 1, NULL,
	    NULL), KERR_NONE);	/* away, keeps its place */
	CU_ASSERT_EQUAL(ce_beat("s-2", 0, NULL, NULL, 5000, "inst", 1, &ep,
	    id), KERR_NONE);	/* takes it over */
	CU_ASSERT_STRING_EQUAL(id, "s-2");
	CU_ASSERT_EQUAL_FATAL(describe("ce"), KERR_NONE);
	CU_ASSERT_EQUAL(last.members.n, 3);
	CU_ASSERT((dm = described("s-2")) != NULL &&
	    kstr_is_c(dm->instance_id, "inst") && dm->member_type == 1);
	CU_ASSERT(described("s-1") == NULL);
	/* Full at group_consumer_max_size (5). */
	CU_ASSERT_EQUAL(ce_beat("e-4", 0, NULL, NULL, 5000, NULL, 1, NULL,
	    NULL), KERR_NONE);
	CU_ASSERT_EQUAL(ce_beat("e-5", 0, NULL, NULL, 5000, NULL, 1, NULL,
	    NULL), KERR_NONE);
	CU_ASSERT_EQUAL(ce_beat("e-6", 0, NULL, NULL, 5000, NULL, 1, NULL,
	    NULL), KERR_GROUP_MAX_SIZE_REACHED);

	/* OffsetCommit: the member's epoch, v9 (Kafka's rule). */
	CU_ASSERT_EQUAL_FATAL(describe("ce"), KERR_NONE);
	CU_ASSERT((dm = described("e-1")) != NULL);
	ep = dm != NULL ? dm->member_epoch : -9;
	CU_ASSERT_EQUAL(ce_commit(9, "e-1", ep), KERR_NONE);
	CU_ASSERT_EQUAL(ce_commit(9, "e-1", ep - 1), KERR_STALE_MEMBER_EPOCH);
	CU_ASSERT_EQUAL(ce_commit(9, "nobody", ep), KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(ce_commit(8, "e-1", ep), KERR_UNSUPPORTED_VERSION);
	CU_ASSERT_EQUAL(ce_commit(9, "", -1), KERR_UNKNOWN_MEMBER_ID);

	/* OffsetDelete: a topic its members subscribe to keeps its offset. */
	CU_ASSERT_EQUAL(ce_odelete("cg"), KERR_GROUP_SUBSCRIBED_TO_TOPIC);
	CU_ASSERT_EQUAL(ce_odelete("other"), KERR_NONE);

	/* Kinds: a classic JoinGroup is refused while it has members. */
	join_req(&jq, &jp, "ce", NULL);
	CU_ASSERT_EQUAL_FATAL(kcall(&kmsg_join_group, 3, &jq, &js), 0);
	CU_ASSERT_EQUAL(js.error_code, KERR_INCONSISTENT_GROUP_PROTOCOL);
	CU_ASSERT_EQUAL(listed("consumer", "ce"), 1);
	CU_ASSERT_EQUAL(listed("classic", "ce"), 0);
	/* ... and a classic group with members refuses the heartbeat. */
	jq.group_id = kstr_c("cl");
	CU_ASSERT_EQUAL_FATAL(kcall(&kmsg_join_group, 3, &jq, &js), 0);
	CU_ASSERT_EQUAL(js.error_code, KERR_NONE);
	hbgroup = "cl";
	CU_ASSERT_EQUAL(ce_beat("c-1", 0, NULL, NULL, 5000, NULL, 1, NULL,
	    NULL), KERR_GROUP_ID_NOT_FOUND);
	CU_ASSERT_EQUAL(describe("cl"), KERR_GROUP_ID_NOT_FOUND);
	CU_ASSERT_EQUAL(listed("classic", "cl"), 1);

	/* A regular expression: rx-1 and rx-2, not other or cg. */
	hbgroup = "rx";
	CU_ASSERT_EQUAL(ce_beat("r-1", 0, NULL, "rx-.*", 5000, NULL, 1, &ep,
	    NULL), KERR_NONE);
	hbgroup = "ce";
	CU_ASSERT_EQUAL_FATAL(describe("rx"), KERR_NONE);
	CU_ASSERT((dm = described("r-1")) != NULL &&
	    mask_cgd(&dm->assignment.topic_partitions, "rx-1") == 0x3 &&
	    mask_cgd(&dm->assignment.topic_partitions, "rx-2") == 0x1 &&
	    dm->assignment.topic_partitions.n == 2 &&
	    kstr_is_c(dm->subscribed_topic_regex, "rx-.*"));
}

/* ---- flume-admin group and the native DESCRIBE_GROUP's versions ---- */

static uint8_t ad_id[16];		/* topic ad's id, from an answer */
static const char *adgroup = "ad";	/* ad_beat()'s group */
static int32_t ad_rebalance_ms = 5000;	/* ... and the joins' rebalance timeout */

/*
 * A heartbeat (v1) of member id of group "ad" at epoch, subscribing to
 * topic ad when it joins, owning mask's partitions of ad (-1: unsaid):
 * the error; *ep and *assigned (a mask) from the answer.
 */
static int16_t
ad_beat(const char *id, int32_t epoch, const char *instance, int64_t owned,
    int32_t *ep, uint32_t *assigned)
{
	const struct km_cg_tp *at;
	struct km_cghb_req q;
	struct km_cghb_resp s;
	struct mem mb;
	int32_t i, j;

	memset(&mb, 0, sizeof(mb));
	snprintf(mb.id, sizeof(mb.id), "%s", id);
	hb_req(&q, 1, adgroup, &mb, epoch, epoch == 0 ? "ad" : NULL, -1);
	q.instance_id = kstr_c(instance);
	if (epoch == 0) {
		q.topic_partitions.n = 0;
		q.rebalance_timeout_ms = ad_rebalance_ms;
	}
	hb_owned(&q, ad_id, owned);
	if (kcall(&kmsg_consumer_group_heartbeat, 1, &q, &s) != 0)
		return -1000;
	if (s.error_code != KERR_NONE)
		return s.error_code;
	*ep = s.member_epoch;
	if (s.assignment_marker < 0)
		return KERR_NONE;
	*assigned = 0;
	at = s.assignment.topic_partitions.v;
	for (i = 0; i < s.assignment.topic_partitions.n; i++) {
		memcpy(ad_id, at[i].topic_id, 16);
		for (j = 0; j < at[i].partitions.n; j++)
			*assigned |= 1u << ((const int32_t *)
			    at[i].partitions.v)[j];
	}
	return KERR_NONE;
}

/* flume-admin group NAME's output (free it), NULL when it failed. */
static char *
admin_group(const char *name)
{
	const char *argv[] = { "flume-admin", "group", name, NULL };
	char *out = NULL;

	if (run_tool(&d, NULL, &out, 15000, argv) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* The member line flume-admin prints (its format, column by column). */
static void
member_line(char *buf, size_t len, const char *id, const char *client,
    int32_t epoch, const char *instance, const char *parts)
{
	char ep[16];

	snprintf(ep, sizeof(ep), "%d", (int)epoch);
	snprintf(buf, len, "%-40s %-20s %5s %-20s %s\n", id, client, ep,
	    instance, parts);
}

#define MEMBER_HEADER	"MEMBER                                   CLIENT" \
	"               EPOCH INSTANCE             PARTITIONS\n"
/* Topic ad's partitions, subscribed, nothing committed or produced. */
#define AD_OFFSETS	"ad                               0                    -" \
	"                    0                    -\n"			\
	"ad                               1                    -"		\
	"                    0                    -\n"
#define TP_HEADER	"TOPIC                    PARTITION            COMMITTED" \
	"              LOG_END                  LAG\n"

/*
 * flume-admin group ad is exactly: both epochs at epoch, member lines
 * m1 (revoking rev1, target ad/0) and m2 (nothing revoking, target
 * ad/1), then ad's two partitions.
 */
static void
ad_expect(int32_t epoch, const char *m1, const char *rev1, const char *m2)
{
	char want[4096], *out;

	CU_ASSERT_FATAL((out = admin_group("ad")) != NULL);
	snprintf(want, sizeof(want), "group ad\nstate stable\nkind consumer\n"
	    "group epoch %d\nassignment epoch %d\n" MEMBER_HEADER
	    "%s  revoking %s\n  target ad/0\n"
	    "%s  revoking -\n  target ad/1\n" TP_HEADER AD_OFFSETS,
	    (int)epoch, (int)epoch, m1, rev1, m2);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
}

/*
 * Raw native DESCRIBE_GROUP of group on a new connection whose
 * HANDSHAKE says version hv (0: no HANDSHAKE): the answer's bytes
 * decoded by the version 1 and the version 2 decoders into *v1 / *v2
 * (their return values in *r1 / *r2).  0, or -1 without an answer.
 */
static int
native_describe(const char *group, int16_t hv, struct describe_group_resp *v1,
    int *r1, struct describe_group_resp *v2, int *r2)
{
	struct handshake_req hq = { hv, "tests", 5 };
	struct describe_group_req q = { group, strlen(group) };
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t len = 0;
	int nfd, rc = -1;

	if ((nfd = support_connect(&d)) < 0)
		return -1;
	wbuf_init(&wb);
	if (hv > 0) {
		msg_encode_handshake_req(&wb, &hq);
		if (support_call(nfd, API_HANDSHAKE, 1, &wb, 5000, NULL,
		    NULL) != 0)
			goto done;
		wbuf_reset(&wb);
	}
	msg_encode_describe_group_req(&wb, &q);
	if (support_call(nfd, API_DESCRIBE_GROUP, 2, &wb, 5000, &p, &len) !=
	    0)
		goto done;
	*r1 = msg_decode_describe_group_resp(p, len, &a, v1);
	*r2 = msg_decode_describe_group_resp_v2(p, len, &a, v2);
	rc = 0;
done:
	free(p);
	wbuf_free(&wb);
	close(nfd);
	return rc;
}

/*
 * flume-admin group shows a consumer protocol group's group and
 * assignment epochs, each member's epoch and instance id, what it is
 * revoking and its target, line by line: a static member alone, then a
 * second member joins (the first must revoke a partition before the
 * second gets it), then both reconcile.  A classic group's member shows
 * the generation it joined.  The native DESCRIBE_GROUP answers version
 * 2's layout only to a connection whose HANDSHAKE said 2: an old
 * client (version 1, or no HANDSHAKE) still reads version 1's.
 */
static void
test_admin_group(void)
{
	struct describe_group_resp v1, v2;
	struct km_join_req jq;
	struct km_join_resp js;
	struct km_join_protocol jp;
	char want[4096], l1[256], l2[256], jid[128];
	char *out;
	uint32_t as1 = 0, as2 = 0;
	int32_t e1 = -9, e2 = -9, ge;
	int r1, r2;

	/* A static member alone: both partitions, at the first epoch. */
	CU_ASSERT_EQUAL_FATAL(ad_beat("a-1", 0, "ia", -1, &e1, &as1),
	    KERR_NONE);
	CU_ASSERT_EQUAL(as1, 0x3);
	ge = e1;
	CU_ASSERT_FATAL((out = admin_group("ad")) != NULL);
	member_line(l1, sizeof(l1), "a-1", "test", ge, "ia", "ad/0,ad/1");
	snprintf(want, sizeof(want), "group ad\nstate stable\nkind consumer\n"
	    "group epoch %d\nassignment epoch %d\n" MEMBER_HEADER
	    "%s  revoking -\n  target ad/0,ad/1\n" TP_HEADER AD_OFFSETS,
	    (int)ge, (int)ge, l1);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);

	/* a-2 joins: the next epoch; a-1 must give up ad/1 first. */
	CU_ASSERT_EQUAL_FATAL(ad_beat("a-2", 0, NULL, -1, &e2, &as2),
	    KERR_NONE);
	CU_ASSERT_EQUAL(as2, 0);
	CU_ASSERT_EQUAL(e2, ge + 1);
	CU_ASSERT_EQUAL_FATAL(ad_beat("a-1", e1, NULL, 0x3, &e1, &as1),
	    KERR_NONE);
	CU_ASSERT_EQUAL(as1, 0x1);
	CU_ASSERT_EQUAL(e1, ge);
	member_line(l1, sizeof(l1), "a-1", "test", ge, "ia", "ad/0");
	member_line(l2, sizeof(l2), "a-2", "test", ge + 1, "-", "-");
	ad_expect(ge + 1, l1, "ad/1", l2);

	/* a-1 released ad/1: it reaches the epoch, a-2 gets ad/1. */
	CU_ASSERT_EQUAL(ad_beat("a-1", e1, NULL, 0x1, &e1, &as1), KERR_NONE);
	CU_ASSERT_EQUAL(e1, ge + 1);
	CU_ASSERT_EQUAL(ad_beat("a-2", e2, NULL, 0, &e2, &as2), KERR_NONE);
	CU_ASSERT_EQUAL(as2, 0x2);
	member_line(l1, sizeof(l1), "a-1", "test", ge + 1, "ia", "ad/0");
	member_line(l2, sizeof(l2), "a-2", "test", ge + 1, "-", "ad/1");
	ad_expect(ge + 1, l1, "-", l2);

	/* The native answer's versions. */
	CU_ASSERT_EQUAL_FATAL(native_describe("ad", 2, &v1, &r1, &v2, &r2), 0);
	CU_ASSERT_EQUAL(r1, -1);
	CU_ASSERT_EQUAL_FATAL(r2, 0);
	CU_ASSERT_EQUAL(v2.kind, GROUP_WIRE_KIND_CONSUMER);
	CU_ASSERT_EQUAL(v2.generation, ge + 1);
	CU_ASSERT_EQUAL(v2.assignment_epoch, ge + 1);
	CU_ASSERT_EQUAL(v2.nmembers, 2);
	CU_ASSERT_EQUAL_FATAL(native_describe("ad", 1, &v1, &r1, &v2, &r2), 0);
	CU_ASSERT_EQUAL(r1, 0);
	CU_ASSERT_EQUAL(r2, -1);
	CU_ASSERT_EQUAL(v1.generation, ge + 1);
	CU_ASSERT_EQUAL(v1.nmembers, 2);
	CU_ASSERT_EQUAL_FATAL(native_describe("ad", 0, &v1, &r1, &v2, &r2), 0);
	CU_ASSERT_EQUAL(r1, 0);
	CU_ASSERT_EQUAL(r2, -1);

	/* A classic member: the generation it joined, its instance id. */
	join_req(&jq, &jp, "kl", "kl-i");
	CU_ASSERT_EQUAL_FATAL(kcall(&kmsg_join_group, 5, &jq, &js), 0);
	CU_ASSERT_EQUAL_FATAL(js.error_code, KERR_NONE);
	CU_ASSERT_FATAL(js.member_id.len > 0 && js.member_id.len < 100);
	snprintf(jid, sizeof(jid), "%.*s", (int)js.member_id.len,
	    js.member_id.p);
	CU_ASSERT_FATAL((out = admin_group("kl")) != NULL);
	member_line(l1, sizeof(l1), jid, "test", js.generation_id, "kl-i", "-");
	snprintf(want, sizeof(want), "group kl\nstate awaiting-sync\n"
	    "kind classic\ngeneration %d\n" MEMBER_HEADER "%s" TP_HEADER,
	    (int)js.generation_id, l1);
	CU_ASSERT_STRING_EQUAL(out, want);
	CU_ASSERT_EQUAL(js.generation_id, 1);
	free(out);
}

/*
 * OffsetFetch (v) of group's ad/0 as member id at epoch (id NULL: null):
 * the group's error; *ntopics and *offset from the answer.
 */
static int16_t
ofetch(int16_t v, const char *group, const char *id, int32_t epoch,
    int32_t *ntopics, int64_t *offset)
{
	struct km_ofetch_req q;
	struct km_ofetch_resp s;
	struct km_ofetch_group g;
	struct km_ofetch_topic t;
	const struct km_ofetch_group_resp *gr;
	const struct km_ofetch_topic_resp *tr;
	int32_t part = 0;

	kdesc_defaults(kmsg_offset_fetch.km_req, &q);
	memset(&g, 0, sizeof(g));
	t.name = kstr_c("ad");
	t.partition_indexes.n = 1;
	t.partition_indexes.v = &part;
	g.group_id = kstr_c(group);
	g.member_id = kstr_c(id);
	g.member_epoch = epoch;
	g.topics.n = 1;
	g.topics.v = &t;
	q.groups.n = 1;
	q.groups.v = &g;
	*ntopics = -1;
	*offset = -2;
	if (kcall(&kmsg_offset_fetch, v, &q, &s) != 0 || s.groups.n != 1)
		return -1000;
	gr = s.groups.v;
	*ntopics = gr->topics.n;
	tr = gr->topics.v;
	if (gr->topics.n == 1 && tr->partitions.n == 1)
		*offset = ((const struct km_ofetch_part *)
		    tr->partitions.v)->committed_offset;
	return gr->error_code;
}

/*
 * OffsetFetch v9's member id and epoch in a consumer protocol group, as
 * Kafka's validateOffsetFetch: a null id with epoch -1 (admin clients)
 * is not checked; a member not there is UNKNOWN_MEMBER_ID, one at
 * another epoch STALE_MEMBER_EPOCH, each with no topics; v8, a classic
 * group and a group that does not exist check nothing.
 */
static void
test_offset_fetch_epochs(void)
{
	uint32_t as = 0;
	int32_t ep = -9, nt;
	int64_t off;

	adgroup = "of";
	CU_ASSERT_EQUAL_FATAL(ad_beat("o-1", 0, NULL, -1, &ep, &as), KERR_NONE);
	adgroup = "ad";
	CU_ASSERT_EQUAL(as, 0x3);
	CU_ASSERT_EQUAL(ofetch(9, "of", NULL, -1, &nt, &off), KERR_NONE);
	CU_ASSERT(nt == 1 && off == -1);
	CU_ASSERT_EQUAL(ofetch(9, "of", "o-1", ep, &nt, &off), KERR_NONE);
	CU_ASSERT(nt == 1 && off == -1);
	CU_ASSERT_EQUAL(ofetch(9, "of", "o-1", ep - 1, &nt, &off),
	    KERR_STALE_MEMBER_EPOCH);
	CU_ASSERT_EQUAL(nt, 0);
	CU_ASSERT_EQUAL(ofetch(9, "of", "o-1", ep + 1, &nt, &off), 113);
	CU_ASSERT_EQUAL(ofetch(9, "of", "nobody", ep, &nt, &off),
	    KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(nt, 0);
	CU_ASSERT_EQUAL(ofetch(9, "of", NULL, ep, &nt, &off),
	    KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(ofetch(9, "of", "", -1, &nt, &off),
	    KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(ofetch(9, "of", "o-1", -1, &nt, &off),
	    KERR_STALE_MEMBER_EPOCH);
	/* v8 has no member fields; other kinds and no group: no check. */
	CU_ASSERT_EQUAL(ofetch(8, "of", NULL, -1, &nt, &off), KERR_NONE);
	CU_ASSERT(nt == 1 && off == -1);
	CU_ASSERT_EQUAL(ofetch(9, "kl", "nobody", 4, &nt, &off), KERR_NONE);
	CU_ASSERT_EQUAL(nt, 1);
	CU_ASSERT_EQUAL(ofetch(9, "no-such-group", "x", 3, &nt, &off),
	    KERR_NONE);
	CU_ASSERT(nt == 1 && off == -1);
	/* The member is still there at its epoch: nothing changed. */
	CU_ASSERT_EQUAL(ofetch(9, "of", "o-1", ep, &nt, &off), KERR_NONE);
}

/*
 * Is member id in group, as the shared table says (read without running
 * the group's state machine, which a request would)?  1, 0, or -1.
 */
static int
in_table(struct shm *sh, const char *group, const char *id)
{
	int gi = group_find(sh, group, strlen(group));

	if (gi < 0)
		return -1;
	return group_member_find(sh, group_at(sh, (uint32_t)gi), id,
	    strlen(id)) >= 0;
}

/*
 * A member that never acknowledges a revocation and goes silent is
 * removed when its rebalance timeout (1200 ms) passes, by the writer's
 * tick scheduled at that deadline (group_due()), not only at its
 * session end (2 s) or the writer's next periodic pass (up to 1 s
 * later): watched in the shared table, where no request ticks the
 * group.  Then the other member gets both partitions.
 */
static void
test_revoke_deadline(void)
{
	char shname[SHM_NAME_MAX];
	struct shm sh;
	uint32_t as1 = 0, as2 = 0;
	int32_t e1 = -9, e2 = -9;
	long long t0, ts, tr, limit;
	int present;

	CU_ASSERT_FATAL(shm_name_for(d.data, shname, sizeof(shname)) == 0 &&
	    shm_attach(&sh, shname) == 0);
	adgroup = "rv";
	ad_rebalance_ms = 1200;
	CU_ASSERT_EQUAL_FATAL(ad_beat("r-1", 0, NULL, -1, &e1, &as1),
	    KERR_NONE);
	CU_ASSERT_EQUAL(as1, 0x3);
	CU_ASSERT_EQUAL_FATAL(ad_beat("r-2", 0, NULL, -1, &e2, &as2),
	    KERR_NONE);
	CU_ASSERT_EQUAL(as2, 0);
	/* r-1 is told to give up ad/1 and never says it did. */
	t0 = support_now_ms();
	CU_ASSERT_EQUAL_FATAL(ad_beat("r-1", e1, NULL, 0x3, &e1, &as1),
	    KERR_NONE);
	CU_ASSERT_EQUAL(as1, 0x1);
	/* r-2 stays alive (its session runs 2 s from here) with nothing. */
	CU_ASSERT_EQUAL(ad_beat("r-2", e2, NULL, 0, &e2, &as2), KERR_NONE);
	CU_ASSERT_EQUAL(as2, 0);
	ts = support_now_ms();
	CU_ASSERT_EQUAL(in_table(&sh, "rv", "r-1"), 1);
	/* Bounded: the deadline plus 300 ms, well before its session end. */
	limit = ts + 1200 + 300;
	while ((present = in_table(&sh, "rv", "r-1")) == 1 &&
	    support_now_ms() < limit)
		usleep(5 * 1000);	/* polling a condition, bounded above */
	tr = support_now_ms();
	CU_ASSERT_EQUAL(present, 0);
	CU_ASSERT(tr >= t0 + 1200);
	CU_ASSERT(tr <= limit);
	CU_ASSERT_EQUAL(in_table(&sh, "rv", "r-2"), 1);
	shm_detach(&sh);
	adgroup = "ad";
	ad_rebalance_ms = 5000;

	/* The exact state after: r-2 alone owns both at the group epoch. */
	CU_ASSERT_EQUAL(ad_beat("r-1", e1, NULL, 0x1, &e1, &as1),
	    KERR_UNKNOWN_MEMBER_ID);
	adgroup = "rv";
	CU_ASSERT_EQUAL(ad_beat("r-2", e2, NULL, 0, &e2, &as2), KERR_NONE);
	adgroup = "ad";
	CU_ASSERT_EQUAL(as2, 0x3);
	CU_ASSERT_EQUAL_FATAL(describe("rv"), KERR_NONE);
	CU_ASSERT_EQUAL(last.members.n, 1);
	CU_ASSERT_EQUAL(last.group_epoch, e2);
	CU_ASSERT_EQUAL(last.assignment_epoch, e2);
}

TEST_SUITE("kafka_cgroup", setup, teardown,
    { "3 members: join, one killed, one added, the topic grown", test_three_members },
    { "bad input, member epochs in commits, kinds, type filter, regex", test_errors_and_kinds },
    { "flume-admin group: epochs, instance ids, revoking, target; native versions", test_admin_group },
    { "OffsetFetch v9: member id and epoch in a consumer protocol group", test_offset_fetch_epochs },
    { "a member that never releases is removed at its rebalance timeout", test_revoke_deadline });
