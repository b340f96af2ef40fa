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
 * type filter; a regular expression subscription.
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
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define SESSION_MS	2000
#define MAXP		16	/* partitions of the test topic, at most */

static struct flumed d;
static struct flumed k;
static int kport;
static struct arena a;
static int fd = -1;
static int32_t corr;

static int
setup(void)
{
	char extra[512];

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(extra, sizeof(extra), "kafka_listen = 127.0.0.1:%d\n"
	    "group_consumer_session_timeout_ms = 2s\n"
	    "group_consumer_heartbeat_interval_ms = 300ms\n"
	    "group_consumer_max_size = 5\n"
	    "group_initial_rebalance_delay_ms = 100ms\n"
	    "[topic cg]\npartitions = 6\n[topic rx-1]\npartitions = 2\n"
	    "[topic rx-2]\npartitions = 1\n[topic other]\npartitions = 3\n",
	    kport);
	arena_init(&a, 8 << 20);
	if (flumed_start(&d, extra) == -1)
		return -1;
	k = d;
	k.port = kport;
	if ((fd = support_connect(&k)) < 0)
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
	struct kreq_hdr h;
	struct wbuf wb;
	uint8_t *buf = NULL, *keep;
	uint32_t id = 0;
	size_t n = 0, off;
	int rc = -1;

	corr++;
	wbuf_init(&wb);
	wbuf_i32(&wb, 0);
	h.api_key = m->km_key;
	h.api_version = v;
	h.correlation_id = corr;
	h.client_id = kstr_c("test_cgroup");
	if (kmsg_encode_req_hdr(&h, &wb) != 0 ||
	    kmsg_encode_req(m, v, q, &wb) != 0) {
		wbuf_free(&wb);
		return -1;
	}
	wbuf_put_u32_at(&wb, 0, (uint32_t)(wb.len - 4));
	if (support_send(fd, wb.buf, wb.len) != 0 ||
	    support_recv(fd, 20000, &id, &buf, &n) != 1 ||
	    id != (uint32_t)corr)
		goto out;
	off = kmsg_resp_hdr_version(m->km_key, v) == 1 ? 1 : 0;
	if (n < off || (keep = arena_alloc(&a, n)) == NULL)
		goto out;
	memcpy(keep, buf, n);
	rc = kmsg_decode_resp(m, v, resp, keep + off, n - off, &a);
out:
	free(buf);
	wbuf_free(&wb);
	return rc;
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

static int
kstr_is_c(struct kstr s, const char *c)
{
	return s.len == (int32_t)strlen(c) && memcmp(s.p, c, (size_t)s.len) == 0;
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
	static struct km_cg_tp tp;
	static int32_t parts[MAXP];
	int32_t n = 0, i;

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
	if (owned >= 0) {
		for (i = 0; i < MAXP; i++)
			if (owned & (1ll << i))
				parts[n++] = i;
		memcpy(tp.topic_id, cg_id, 16);
		tp.partitions.n = n;
		tp.partitions.v = parts;
		q->topic_partitions.n = n > 0 ? 1 : 0;
		q->topic_partitions.v = &tp;
	}
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
	now = s.assignment.kpresent ? mask_hb(&s.assignment.topic_partitions) :
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

TEST_SUITE("kafka_cgroup", setup, teardown,
    { "3 members: join, one killed, one added, the topic grown", test_three_members });
