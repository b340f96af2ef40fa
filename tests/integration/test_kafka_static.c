/*
 * Static membership of Kafka classic groups (KIP-345) with raw requests
 * built by the codec (proto/kafka/kdesc.h): a static member restarted
 * within its session takes its assignment back at once, in the same
 * generation, while the other member's heartbeats never see a
 * rebalance; its old member id is fenced (FENCED_INSTANCE_ID) in
 * Heartbeat, OffsetCommit, JoinGroup and LeaveGroup; a second process
 * with the same instance id fences the first; a static member that
 * stops is removed only when its session ends, which starts a
 * rebalance; LeaveGroup v3+ removes a member by instance id alone;
 * DescribeGroups and the leader's JoinGroup show the instance ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_join.h"
#include "proto/kafka/kmsg_offset.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define GROUP		"st"
#define SESSION		3000

static struct flumed d;
static struct arena a;

static int
setup(void)
{
	arena_init(&a, 1 << 20);
	return flumed_start_kafka(&d, NULL,
	    "group_initial_rebalance_delay_ms = 300ms\n"
	    "[topic st4]\npartitions = 4\n");
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	arena_free(&a);
	return 0;
}

static int
ksend(int fd, const struct kmsg *m, int16_t v, int32_t corr, const void *q)
{
	return support_ksend(fd, m, v, corr, q);
}

static int
krecv(int fd, const struct kmsg *m, int16_t v, int32_t corr, void *resp)
{
	return support_krecv(fd, m, v, corr, resp, &a);
}

static int
kcall(int fd, const struct kmsg *m, int16_t v, int32_t corr, const void *q,
    void *resp)
{
	if (support_ksend(fd, m, v, corr, q) != 0)
		return -1;
	return support_krecv(fd, m, v, corr, resp, &a);
}

static struct kstr
kstr_copy(const struct kstr s)
{
	char *p;

	if (s.len < 0)
		return s;
	p = arena_alloc(&a, (size_t)s.len + 1);
	CU_ASSERT_FATAL(p != NULL);
	memcpy(p, s.p, (size_t)s.len);
	p[s.len] = '\0';
	return (struct kstr){ p, s.len };
}

static int
kstr_is(struct kstr s, const char *c)
{
	if (c == NULL)
		return s.len < 0;
	return s.len == (int32_t)strlen(c) && memcmp(s.p, c, (size_t)s.len) == 0;
}

static struct km_join_protocol join_proto[1];

/* A JoinGroup v9 (or v) request of member (maybe ""), instance (maybe NULL). */
static void
join_req(struct km_join_req *q, const char *member, const char *instance,
    const char *meta)
{
	kdesc_defaults(kmsg_join_group.km_req, q);
	q->group_id = kstr_c(GROUP);
	q->session_timeout_ms = SESSION;
	q->rebalance_timeout_ms = 10000;
	q->member_id = kstr_c(member);
	q->group_instance_id = kstr_c(instance);
	q->protocol_type = kstr_c("consumer");
	join_proto[0].name = kstr_c("range");
	join_proto[0].metadata = kstr_c(meta);
	q->protocols.n = 1;
	q->protocols.v = join_proto;
	q->reason = kstr_c(NULL);
}

static int16_t
heartbeat(int fd, int32_t corr, const char *member, const char *instance,
    int32_t gen)
{
	struct km_heartbeat_req q;
	struct km_heartbeat_resp s;

	kdesc_defaults(kmsg_heartbeat.km_req, &q);
	q.group_id = kstr_c(GROUP);
	q.generation_id = gen;
	q.member_id = kstr_c(member);
	q.group_instance_id = kstr_c(instance);
	if (kcall(fd, &kmsg_heartbeat, 4, corr, &q, &s) != 0)
		return -1000;
	return s.error_code;
}

/* SyncGroup v5; the leader passes its assignments (n of them). */
static int16_t
sync_group(int fd, int32_t corr, const char *member, const char *instance,
    int32_t gen, struct km_sync_assignment *as, int32_t n, struct kstr *got)
{
	struct km_sync_req q;
	struct km_sync_resp s;

	kdesc_defaults(kmsg_sync_group.km_req, &q);
	q.group_id = kstr_c(GROUP);
	q.generation_id = gen;
	q.member_id = kstr_c(member);
	q.group_instance_id = kstr_c(instance);
	q.protocol_type = kstr_c("consumer");
	q.protocol_name = kstr_c("range");
	q.assignments.n = n;
	q.assignments.v = as;
	if (kcall(fd, &kmsg_sync_group, 5, corr, &q, &s) != 0)
		return -1000;
	if (got != NULL)
		*got = kstr_copy(s.assignment);
	return s.error_code;
}

/* OffsetCommit v8 of st4/0 at off: the partition's error. */
static int16_t
commit(int fd, int32_t corr, const char *member, const char *instance,
    int32_t gen, int64_t off)
{
	struct km_commit_req q;
	struct km_commit_resp s;
	struct km_commit_topic t;
	struct km_commit_part p;
	const struct km_commit_topic_resp *tr;

	kdesc_defaults(kmsg_offset_commit.km_req, &q);
	memset(&p, 0, sizeof(p));
	p.partition_index = 0;
	p.committed_offset = off;
	p.committed_leader_epoch = -1;
	p.committed_metadata = kstr_c(NULL);
	t.name = kstr_c("st4");
	t.partitions.n = 1;
	t.partitions.v = &p;
	q.group_id = kstr_c(GROUP);
	q.generation_id = gen;
	q.member_id = kstr_c(member);
	q.group_instance_id = kstr_c(instance);
	q.topics.n = 1;
	q.topics.v = &t;
	if (kcall(fd, &kmsg_offset_commit, 8, corr, &q, &s) != 0 ||
	    s.topics.n != 1)
		return -1000;
	tr = s.topics.v;
	if (tr->partitions.n != 1)
		return -1000;
	return ((const struct km_commit_part_resp *)tr->partitions.v)->error_code;
}

/* LeaveGroup v5 of one member: its error (the top level one when not NONE). */
static int16_t
leave(int fd, int32_t corr, const char *member, const char *instance)
{
	struct km_leave_req q;
	struct km_leave_resp s;
	struct km_leave_member lm;

	kdesc_defaults(kmsg_leave_group.km_req, &q);
	lm.member_id = kstr_c(member);
	lm.group_instance_id = kstr_c(instance);
	lm.reason = kstr_c(NULL);
	q.group_id = kstr_c(GROUP);
	q.members.n = 1;
	q.members.v = &lm;
	if (kcall(fd, &kmsg_leave_group, 5, corr, &q, &s) != 0)
		return -1000;
	if (s.error_code != KERR_NONE || s.members.n != 1)
		return s.error_code != KERR_NONE ? s.error_code : -1000;
	return ((const struct km_leave_member_resp *)s.members.v)->error_code;
}

/* DescribeGroups v5 of GROUP into *g (0, or -1). */
static int
describe(int fd, int32_t corr, struct km_described_group *g)
{
	struct km_describe_groups_req q;
	struct km_describe_groups_resp s;
	struct kstr name = kstr_c(GROUP);

	kdesc_defaults(kmsg_describe_groups.km_req, &q);
	q.groups.n = 1;
	q.groups.v = &name;
	if (kcall(fd, &kmsg_describe_groups, 5, corr, &q, &s) != 0 ||
	    s.groups.n != 1)
		return -1;
	*g = *(const struct km_described_group *)s.groups.v;
	return 0;
}

/* The described member of id, NULL when none. */
static const struct km_described_member *
described(const struct km_described_group *g, const char *id)
{
	const struct km_described_member *m = g->members.v;
	int32_t i;

	for (i = 0; i < g->members.n; i++)
		if (kstr_is(m[i].member_id, id))
			return &m[i];
	return NULL;
}

/* The leader's member list: the instance id shown for member id. */
static const struct km_join_member *
join_member(const struct km_join_resp *s, const char *id)
{
	const struct km_join_member *m = s->members.v;
	int32_t i;

	for (i = 0; i < s->members.n; i++)
		if (kstr_is(m[i].member_id, id))
			return &m[i];
	return NULL;
}

static void
test_static_restart_fencing_expiry(void)
{
	struct km_join_req q;
	struct km_join_resp ja, jb, jr;
	struct km_sync_assignment as[2];
	struct km_described_group dg;
	const struct km_described_member *dm;
	const struct km_join_member *jm;
	struct kstr got, ida, idb, ida2, idc, idd;
	long long t0, t;
	int32_t gen;
	int16_t e;
	int fa, fb, fa2, fc, fd_, i;

	CU_ASSERT_FATAL((fa = support_kconnect(&d)) >= 0);
	CU_ASSERT_FATAL((fb = support_kconnect(&d)) >= 0);

	/* A, static: joins at once (no MEMBER_ID_REQUIRED round), parks. */
	join_req(&q, "", "inst-a", "meta-a");
	CU_ASSERT_EQUAL_FATAL(ksend(fa, &kmsg_join_group, 9, 1, &q), 0);
	/* B, dynamic: MEMBER_ID_REQUIRED first (v4+). */
	join_req(&q, "", NULL, "meta-b");
	CU_ASSERT_EQUAL_FATAL(kcall(fb, &kmsg_join_group, 9, 2, &q, &jb), 0);
	CU_ASSERT_EQUAL_FATAL(jb.error_code, KERR_MEMBER_ID_REQUIRED);
	idb = kstr_copy(jb.member_id);
	join_req(&q, idb.p, NULL, "meta-b");
	CU_ASSERT_EQUAL_FATAL(ksend(fb, &kmsg_join_group, 9, 3, &q), 0);
	CU_ASSERT_EQUAL_FATAL(krecv(fa, &kmsg_join_group, 9, 1, &ja), 0);
	CU_ASSERT_EQUAL_FATAL(ja.error_code, KERR_NONE);
	ida = kstr_copy(ja.member_id);
	CU_ASSERT_EQUAL(strncmp(ida.p, "inst-a-", 7), 0);
	gen = ja.generation_id;
	CU_ASSERT(gen >= 1);
	/* A came first: it leads and sees both, with their instance ids. */
	CU_ASSERT(kstr_is(ja.leader, ida.p));
	CU_ASSERT_EQUAL(ja.skip_assignment, 0);
	CU_ASSERT_EQUAL_FATAL(ja.members.n, 2);
	CU_ASSERT((jm = join_member(&ja, ida.p)) != NULL &&
	    kstr_is(jm->group_instance_id, "inst-a") &&
	    kstr_is(jm->metadata, "meta-a"));
	CU_ASSERT((jm = join_member(&ja, idb.p)) != NULL &&
	    kstr_is(jm->group_instance_id, NULL));
	CU_ASSERT_EQUAL_FATAL(krecv(fb, &kmsg_join_group, 9, 3, &jb), 0);
	CU_ASSERT_EQUAL(jb.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(jb.generation_id, gen);
	CU_ASSERT_EQUAL(jb.members.n, 0);

	as[0].member_id = ida;
	as[0].assignment = kstr_c("st4:0,1");
	as[1].member_id = idb;
	as[1].assignment = kstr_c("st4:2,3");
	CU_ASSERT_EQUAL(sync_group(fa, 4, ida.p, "inst-a", gen, as, 2, &got),
	    KERR_NONE);
	CU_ASSERT(kstr_is(got, "st4:0,1"));
	CU_ASSERT_EQUAL(sync_group(fb, 5, idb.p, NULL, gen, NULL, 0, &got),
	    KERR_NONE);
	CU_ASSERT(kstr_is(got, "st4:2,3"));
	CU_ASSERT_EQUAL(heartbeat(fb, 6, idb.p, NULL, gen), KERR_NONE);
	CU_ASSERT_EQUAL(commit(fa, 7, ida.p, "inst-a", gen, 11), KERR_NONE);

	/*
	 * A restarts within its session (its connection gone, no
	 * LeaveGroup, as a closing static consumer): answered at once in
	 * the same generation under a new id; it still leads, told to
	 * skip the assignment (v9).
	 */
	close(fa);
	CU_ASSERT_FATAL((fa2 = support_kconnect(&d)) >= 0);
	join_req(&q, "", "inst-a", "meta-a");
	CU_ASSERT_EQUAL_FATAL(kcall(fa2, &kmsg_join_group, 9, 8, &q, &jr), 0);
	CU_ASSERT_EQUAL(jr.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(jr.generation_id, gen);
	ida2 = kstr_copy(jr.member_id);
	CU_ASSERT(strcmp(ida2.p, ida.p) != 0);
	CU_ASSERT_EQUAL(strncmp(ida2.p, "inst-a-", 7), 0);
	CU_ASSERT(kstr_is(jr.leader, ida2.p));
	CU_ASSERT_EQUAL(jr.skip_assignment, 1);
	CU_ASSERT_EQUAL(jr.members.n, 2);
	CU_ASSERT_EQUAL(sync_group(fa2, 9, ida2.p, "inst-a", gen, NULL, 0,
	    &got), KERR_NONE);
	CU_ASSERT(kstr_is(got, "st4:0,1"));
	/* B saw nothing: same generation, same assignment, no rebalance. */
	CU_ASSERT_EQUAL(heartbeat(fb, 10, idb.p, NULL, gen), KERR_NONE);
	CU_ASSERT_EQUAL(sync_group(fb, 11, idb.p, NULL, gen, NULL, 0, &got),
	    KERR_NONE);
	CU_ASSERT(kstr_is(got, "st4:2,3"));
	CU_ASSERT_EQUAL_FATAL(describe(fb, 12, &dg), 0);
	CU_ASSERT(kstr_is(dg.group_state, "Stable"));
	CU_ASSERT_EQUAL(dg.members.n, 2);
	CU_ASSERT((dm = described(&dg, ida2.p)) != NULL &&
	    kstr_is(dm->group_instance_id, "inst-a") &&
	    kstr_is(dm->member_assignment, "st4:0,1"));
	CU_ASSERT((dm = described(&dg, idb.p)) != NULL &&
	    kstr_is(dm->group_instance_id, NULL));

	/* The old id naming the instance: fenced, and nothing changes. */
	CU_ASSERT_EQUAL(heartbeat(fb, 13, ida.p, "inst-a", gen),
	    KERR_FENCED_INSTANCE_ID);
	CU_ASSERT_EQUAL(sync_group(fb, 14, ida.p, "inst-a", gen, NULL, 0,
	    NULL), KERR_FENCED_INSTANCE_ID);
	CU_ASSERT_EQUAL(commit(fb, 15, ida.p, "inst-a", gen, 99),
	    KERR_FENCED_INSTANCE_ID);
	join_req(&q, ida.p, "inst-a", "meta-a");
	CU_ASSERT_EQUAL_FATAL(kcall(fb, &kmsg_join_group, 9, 16, &q, &jr), 0);
	CU_ASSERT_EQUAL(jr.error_code, KERR_FENCED_INSTANCE_ID);
	CU_ASSERT_EQUAL(leave(fb, 17, ida.p, "inst-a"),
	    KERR_FENCED_INSTANCE_ID);
	CU_ASSERT_EQUAL(heartbeat(fb, 18, ida.p, NULL, gen),
	    KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(heartbeat(fb, 19, idb.p, NULL, gen), KERR_NONE);
	CU_ASSERT_EQUAL(commit(fa2, 20, ida2.p, "inst-a", gen, 12), KERR_NONE);

	/* A second live process with the instance id fences the first. */
	CU_ASSERT_FATAL((fc = support_kconnect(&d)) >= 0);
	join_req(&q, "", "inst-a", "meta-a");
	CU_ASSERT_EQUAL_FATAL(kcall(fc, &kmsg_join_group, 9, 21, &q, &jr), 0);
	CU_ASSERT_EQUAL(jr.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(jr.generation_id, gen);
	idc = kstr_copy(jr.member_id);
	CU_ASSERT(strcmp(idc.p, ida2.p) != 0);
	CU_ASSERT_EQUAL(heartbeat(fa2, 22, ida2.p, "inst-a", gen),
	    KERR_FENCED_INSTANCE_ID);
	CU_ASSERT_EQUAL(heartbeat(fc, 23, idc.p, "inst-a", gen), KERR_NONE);
	CU_ASSERT_EQUAL(heartbeat(fb, 24, idb.p, NULL, gen), KERR_NONE);

	/*
	 * C stops: B's heartbeats go on answering NONE until C's session
	 * (3 s) ends, which starts a rebalance; B rejoins alone.
	 */
	t0 = support_now_ms();
	e = KERR_NONE;
	for (i = 0; i < 100 && e == KERR_NONE; i++) {
		usleep(200 * 1000);	/* B's heartbeat interval */
		e = heartbeat(fb, 25 + i, idb.p, NULL, gen);
	}
	t = support_now_ms() - t0;
	CU_ASSERT_EQUAL(e, KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT(t >= SESSION - 200);
	join_req(&q, idb.p, NULL, "meta-b");
	CU_ASSERT_EQUAL_FATAL(kcall(fb, &kmsg_join_group, 9, 200, &q, &jb), 0);
	CU_ASSERT_EQUAL(jb.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(jb.generation_id, gen + 1);
	CU_ASSERT(kstr_is(jb.leader, idb.p));
	CU_ASSERT_EQUAL(jb.members.n, 1);
	CU_ASSERT_EQUAL(heartbeat(fc, 201, idc.p, "inst-a", gen + 1),
	    KERR_UNKNOWN_MEMBER_ID);

	/* D joins static; LeaveGroup names it by instance id alone. */
	CU_ASSERT_FATAL((fd_ = support_kconnect(&d)) >= 0);
	join_req(&q, "", "inst-d", "meta-d");
	CU_ASSERT_EQUAL(sync_group(fb, 210, idb.p, NULL, gen + 1, NULL, 0,
	    NULL), KERR_NONE);
	CU_ASSERT_EQUAL_FATAL(ksend(fd_, &kmsg_join_group, 9, 202, &q), 0);
	/* D's join (another connection) is in once B is told to rejoin. */
	e = KERR_NONE;
	for (i = 0; i < 100 && e == KERR_NONE; i++) {
		if (i > 0)
			usleep(50 * 1000);
		e = heartbeat(fb, 300 + i, idb.p, NULL, gen + 1);
	}
	CU_ASSERT_EQUAL(e, KERR_REBALANCE_IN_PROGRESS);
	join_req(&q, idb.p, NULL, "meta-b");
	CU_ASSERT_EQUAL_FATAL(kcall(fb, &kmsg_join_group, 9, 203, &q, &jb), 0);
	CU_ASSERT_EQUAL(jb.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(jb.generation_id, gen + 2);
	CU_ASSERT_EQUAL_FATAL(krecv(fd_, &kmsg_join_group, 9, 202, &jr), 0);
	CU_ASSERT_EQUAL(jr.error_code, KERR_NONE);
	idd = kstr_copy(jr.member_id);
	CU_ASSERT_EQUAL(strncmp(idd.p, "inst-d-", 7), 0);
	CU_ASSERT_EQUAL(leave(fb, 204, "", "inst-x"), KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(leave(fb, 205, "", "inst-d"), KERR_NONE);
	CU_ASSERT_EQUAL_FATAL(describe(fb, 206, &dg), 0);
	CU_ASSERT(kstr_is(dg.group_state, "PreparingRebalance"));
	CU_ASSERT_EQUAL(dg.members.n, 1);
	CU_ASSERT(described(&dg, idb.p) != NULL);
	CU_ASSERT_EQUAL(heartbeat(fd_, 207, idd.p, "inst-d", gen + 2),
	    KERR_UNKNOWN_MEMBER_ID);
	close(fd_);
	close(fc);
	close(fa2);
	close(fb);
}

/* An instance id longer than Kafka's clients allow is refused, nothing joins. */
static void
test_instance_id_bound(void)
{
	struct km_join_req q;
	struct km_join_resp s;
	char big[251];
	int fd;

	memset(big, 'i', 250);
	big[250] = '\0';
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	join_req(&q, "", big, "m");
	q.group_id = kstr_c("st-bound");
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_join_group, 9, 1, &q, &s), 0);
	CU_ASSERT_EQUAL(s.error_code, KERR_INVALID_REQUEST);
	big[249] = '\0';
	join_req(&q, "", big, "m");
	q.group_id = kstr_c("st-bound");
	q.session_timeout_ms = 1000;
	CU_ASSERT_EQUAL_FATAL(ksend(fd, &kmsg_join_group, 9, 2, &q), 0);
	CU_ASSERT_EQUAL_FATAL(krecv(fd, &kmsg_join_group, 9, 2, &s), 0);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	close(fd);
}

TEST_SUITE("kafka_static", setup, teardown,
    { "static member: restart keeps its assignment, fencing, expiry, leave by instance", test_static_restart_fencing_expiry },
    { "an instance id over 249 bytes is INVALID_REQUEST", test_instance_id_bound });
