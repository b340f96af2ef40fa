/*
 * Kafka's committed offsets and group listings in a worker: OffsetCommit
 * v0-9, OffsetFetch v0-9, ListGroups v0-5 and DescribeGroups v0-6.
 *
 * Committed offsets are the native groups' (shm/group.h): one 8-byte
 * slot per partition in the group's table, saved by the writer to the
 * same files (data/flume~offsets/), so flume-admin and the metrics show a
 * Kafka group's lag like a native one's.  OffsetCommit's retention time
 * (v2-4: ignored, as Kafka 2.1 and later do), leader epoch (v6) and
 * per-partition metadata are not kept (OffsetFetch answers an empty
 * metadata string and epoch -1): offsets live as long as their group
 * and topic.  OffsetFetch v7's require_stable answers
 * UNSTABLE_OFFSET_COMMIT for an offset pending in a transaction.  A static member's commit (v7+
 * group_instance_id) is checked as Kafka's: FENCED_INSTANCE_ID when
 * another member id holds the instance.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_offset.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/op/access.h"
#include "worker/op/group.h"
#include "worker/op/group_info.h"
#include "worker/op/group_offsets.h"
#include "worker/op/part.h"
#include "worker/op/txn.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/group.h"
#include "worker/worker.h"

/* ---- OffsetCommit ---- */

/*
 * v1 adds the member's generation (v9 names it generation or member
 * epoch: a classic group's generation), v2-4 a retention time; commit
 * timestamps (v1) and leader epochs (v6) are not kept.
 */
void
kafka_commit_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_commit_req *q = k->body;
	const struct km_commit_topic *qt = q->topics.v;
	const struct km_commit_part *cp;
	struct km_commit_topic_resp *tr = NULL;
	struct km_commit_part_resp *pe;
	struct km_commit_resp *s;
	struct group_params gp;
	struct shm_group *g = NULL;
	struct op_ctx x;
	uint32_t s0 = 0, g0 = 0, slot;
	int32_t i, j, nt = q->topics.n > 0 ? q->topics.n : 0;
	int16_t err = KERR_NONE, terr;
	int gidx = -1, committed = 0;
	enum op_err e;

	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (nt > 0 &&
	    (tr = conn_alloc(c, (size_t)nt * sizeof(*tr))) == NULL)) {
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_offset_commit.km_resp, s);
	s->topics.n = nt;
	s->topics.v = tr;
	k->kst = s;
	if (w->shm->hdr->limits.max_groups == 0)
		err = KERR_COORDINATOR_NOT_AVAILABLE;
	else if ((e = op_access_group(&x, AUTH_GROUP_READ, q->group_id.p,
	    q->group_id.len > 0 ? (size_t)q->group_id.len : 0)) != OP_OK)
		err = kafka_op_error(e);	/* in every partition */
	else if (q->group_id.len <= 0 ||
	    !group_name_valid(q->group_id.p, (size_t)q->group_id.len))
		err = KERR_INVALID_GROUP_ID;
	else if (q->member_id.len > MEMBER_ID_MAX)
		err = KERR_UNKNOWN_MEMBER_ID;
	else if (op_group_create(w, q->group_id.p, (size_t)q->group_id.len, 0,
	    &gidx) != OP_OK)
		err = KERR_COORDINATOR_NOT_AVAILABLE;
	op_group_params(w, &gp);
	if (err == KERR_NONE && (g = op_group_lock_name(w, gidx, q->group_id.p,
	    (size_t)q->group_id.len, &gp, &s0, &g0)) == NULL)
		err = KERR_COORDINATOR_NOT_AVAILABLE;
	if (g != NULL && g->kind == GROUP_KIND_CONSUMER)
		/*
		 * Member epochs (KIP-848); its members commit with v9+, its
		 * classic members (the online migration) with any version.
		 */
		err = (err = cgroup_commit_check(w->shm, g, q->member_id.p,
		    q->member_id.len > 0 ? (size_t)q->member_id.len : 0,
		    q->generation_id, w->now, &gp)) == KERR_NONE &&
		    q->generation_id >= 0 && k->h.api_version < 9 &&
		    !cgroup_is_classic(w->shm, g, (uint32_t)group_member_find(
		    w->shm, g, q->member_id.p, q->member_id.len > 0 ?
		    (size_t)q->member_id.len : 0)) ?
		    KERR_UNSUPPORTED_VERSION : err;
	else if (g != NULL)
		err = kgroup_commit_check(w->shm, g, q->member_id.p,
		    q->member_id.len > 0 ? (size_t)q->member_id.len : 0,
		    q->group_instance_id.len > 0 ? q->group_instance_id.p :
		    NULL, q->group_instance_id.len > 0 ?
		    (size_t)q->group_instance_id.len : 0,
		    q->generation_id, w->now, &gp);
	for (i = 0; i < nt; i++) {
		tr[i].name = qt[i].name;
		tr[i].partitions.n = 0;
		tr[i].partitions.v = NULL;
		if (qt[i].partitions.n <= 0)
			continue;
		if ((pe = conn_alloc(c, (size_t)qt[i].partitions.n *
		    sizeof(*pe))) == NULL)
			continue;
		tr[i].partitions.n = qt[i].partitions.n;
		tr[i].partitions.v = pe;
		terr = err;
		if (terr == KERR_NONE && qt[i].name.len > 0)
			terr = kafka_op_error(op_access_topic(&x, AUTH_CONSUME,
			    qt[i].name.p, (size_t)qt[i].name.len));
		for (j = 0; j < qt[i].partitions.n; j++) {
			cp = (const struct km_commit_part *)
			    qt[i].partitions.v + j;
			pe[j].partition_index = cp->partition_index;
			pe[j].error_code = terr;
			if (terr != KERR_NONE)
				continue;
			if (qt[i].name.len <= 0 || op_group_part(w,
			    qt[i].name.p, (size_t)qt[i].name.len,
			    cp->partition_index, &slot) != OP_OK)
				pe[j].error_code =
				    KERR_UNKNOWN_TOPIC_OR_PARTITION;
			/* Stored as given (Kafka's rule): below 0 reads as none. */
			else if ((pe[j].error_code = kgroup_commit_topic(w->shm,
			    g, shm_topic_find(w->shm, qt[i].name.p,
			    (size_t)qt[i].name.len))) == KERR_NONE) {
				group_offset_set(w->shm, g, slot,
				    cp->committed_offset);
				committed = 1;
			}
		}
	}
	if (g != NULL)
		op_group_unlock(w, g, s0, g0);
	/* The writer saves committed offsets; it need not sleep out its timeout. */
	if (committed)
		worker_wake_writer(w, 0);
}

/* ---- OffsetFetch ---- */

/* A partition's answer: nothing committed, no metadata, no epoch. */
static void
ofetch_part(struct km_ofetch_part *fp, int32_t partition, int64_t offset,
    int16_t err)
{
	fp->partition_index = partition;
	fp->committed_offset = offset;
	fp->committed_leader_epoch = -1;
	fp->metadata = kstr_c("");
	fp->error_code = err;
}

/*
 * The answer to a null topic list: every offset the group committed,
 * grouped by topic.
 */
static enum op_err
ofetch_all(struct conn *c, const struct op_ctx *x, struct kstr group,
    struct karray *out)
{
	struct km_ofetch_topic_resp *tr;
	struct km_ofetch_part *fp;
	struct op_group_offset *p;
	int32_t i, n, t, nt = 0, *tix;
	size_t off = 0;
	enum op_err e;

	if ((e = op_group_committed(x, group.p, (size_t)group.len, &p,
	    &n)) != OP_OK || n == 0)
		return e;
	if ((tr = conn_alloc(c, (size_t)n * sizeof(*tr))) == NULL ||
	    (fp = conn_alloc(c, (size_t)n * sizeof(*fp))) == NULL ||
	    (tix = conn_alloc(c, (size_t)n * sizeof(*tix))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < n; i++) {
		for (t = 0; t < nt; t++)
			if ((size_t)tr[t].name.len == p[i].topic_len &&
			    memcmp(tr[t].name.p, p[i].topic,
			    p[i].topic_len) == 0)
				break;
		if (t == nt) {
			tr[nt].name.p = p[i].topic;
			tr[nt].name.len = (int32_t)p[i].topic_len;
			tr[nt++].partitions.n = 0;
		}
		tix[i] = t;
		tr[t].partitions.n++;
	}
	for (t = 0; t < nt; t++) {
		tr[t].partitions.v = fp + off;
		off += (size_t)tr[t].partitions.n;
		tr[t].partitions.n = 0;
	}
	for (i = 0; i < n; i++) {
		t = tix[i];
		ofetch_part((struct km_ofetch_part *)tr[t].partitions.v +
		    tr[t].partitions.n++, p[i].partition, p[i].offset,
		    KERR_NONE);
	}
	out->n = nt;
	out->v = tr;
	return OP_OK;
}

/*
 * One group's answer (its topics into out): a null topic list (v2+)
 * asks for every committed offset.  A group-wide error is the answer's
 * (*gerr) from v2, each partition's before (v0-1 have nowhere else to
 * put it).  OP_OK, or OP_NO_MEMORY.
 */
static enum op_err
ofetch_group(struct conn *c, const struct op_ctx *x, int16_t version,
    struct kstr group, const struct karray *topics, struct karray *out,
    int16_t *gerr)
{
	const struct km_ofetch_topic *qt = topics->v;
	struct km_ofetch_topic_resp *tr = NULL;
	struct km_ofetch_part *fp = NULL;
	struct op_group_offset *p = NULL;
	size_t glen = group.len > 0 ? (size_t)group.len : 0;
	int32_t i, j, n = 0, nt = topics->n > 0 ? topics->n : 0;
	enum op_err e;

	out->n = 0;
	out->v = NULL;
	*gerr = KERR_NONE;
	if (topics->n < 0) {
		group.len = (int32_t)glen;
		e = ofetch_all(c, x, group, out);
		if (e == OP_NO_MEMORY)
			return e;
		*gerr = kafka_op_error(e);
		return OP_OK;
	}
	for (i = 0; i < nt; i++)
		n += qt[i].partition_indexes.n > 0 ? qt[i].partition_indexes.n : 0;
	if ((nt > 0 && (tr = conn_alloc(c, (size_t)nt * sizeof(*tr))) ==
	    NULL) || (n > 0 && ((p = conn_alloc(c, (size_t)n *
	    sizeof(*p))) == NULL || (fp = conn_alloc(c, (size_t)n *
	    sizeof(*fp))) == NULL)))
		return OP_NO_MEMORY;
	for (i = 0, n = 0; i < nt; i++)
		for (j = 0; j < qt[i].partition_indexes.n; j++, n++) {
			p[n].topic = qt[i].name.p;
			p[n].topic_len = qt[i].name.len > 0 ?
			    (size_t)qt[i].name.len : 0;
			p[n].partition = ((const int32_t *)
			    qt[i].partition_indexes.v)[j];
		}
	if ((e = op_group_offsets(x, group.p, glen, p, n)) != OP_OK) {
		*gerr = kafka_op_error(e);
		if (version >= 2)
			return OP_OK;
	}
	for (i = 0, n = 0; i < nt; i++) {
		tr[i].name = qt[i].name;
		tr[i].partitions.n = qt[i].partition_indexes.n > 0 ?
		    qt[i].partition_indexes.n : 0;
		tr[i].partitions.v = fp != NULL ? fp + n : NULL;
		for (j = 0; j < tr[i].partitions.n; j++, n++)
			ofetch_part(&fp[n], p[n].partition, e == OP_OK ?
			    p[n].offset : -1, e == OP_OK ?
			    kafka_op_error(p[n].err) : *gerr);
	}
	out->n = nt;
	out->v = nt > 0 ? tr : NULL;
	if (version < 2)
		*gerr = KERR_NONE;
	return OP_OK;
}

/*
 * v9's member id and epoch, for a consumer protocol group (Kafka's
 * validateOffsetFetch; classic and native groups do not check them):
 * the group's error, KERR_NONE when the fetch may go on.  A group the
 * user may not describe, or none of that name, is left to
 * ofetch_group() (a denial, or offsets of -1).
 */
static int16_t
ofetch_member(struct worker *w, const struct op_ctx *x,
    const struct km_ofetch_group *qg)
{
	struct group_params gp;
	struct shm_group *g;
	size_t glen = qg->group_id.len > 0 ? (size_t)qg->group_id.len : 0;
	uint32_t s0, g0;
	int16_t err = KERR_NONE;
	int gidx;

	if (qg->member_id.len < 0 && qg->member_epoch < 0)
		return KERR_NONE;
	if (!group_name_valid(qg->group_id.p, glen) ||
	    op_access_group(x, AUTH_GROUP_DESCRIBE, qg->group_id.p, glen) !=
	    OP_OK || op_group_find(w, qg->group_id.p, glen, OP_BAD_GROUP,
	    &gidx) != OP_OK)
		return KERR_NONE;
	op_group_params(w, &gp);
	if ((g = op_group_lock_name(w, gidx, qg->group_id.p, glen, &gp, &s0,
	    &g0)) == NULL)
		return KERR_NONE;
	if (g->kind == GROUP_KIND_CONSUMER)
		err = cgroup_fetch_check(w->shm, g, qg->member_id.len >= 0 ?
		    qg->member_id.p : NULL, qg->member_id.len > 0 ?
		    (size_t)qg->member_id.len : 0, qg->member_epoch, w->now,
		    &gp);
	op_group_unlock(w, g, s0, g0);
	return err;
}

/*
 * v0-7 ask for one group, v8 and later for several, each answered with
 * its own error and topics.  v9's member id and epoch are checked in a
 * consumer protocol group (ofetch_member()): a member that is not there,
 * or at another epoch, gets the group's error and no topics.
 */
/*
 * require_stable (v7+): a partition with an offset pending in an open
 * transaction (worker/op/txn.h) answers UNSTABLE_OFFSET_COMMIT and no
 * offset, as Kafka's; the client retries until the transaction ends.
 */
static void
ofetch_stable(struct worker *w, struct kstr group, struct karray *topics)
{
	struct km_ofetch_topic_resp *t = topics->v;
	struct km_ofetch_part *fp;
	struct shm_partition *p;
	int32_t i, j;

	for (i = 0; i < topics->n; i++) {
		fp = t[i].partitions.v;
		for (j = 0; j < t[i].partitions.n; j++)
			if (op_part_resolve(w, t[i].name.p, t[i].name.len > 0 ?
			    (size_t)t[i].name.len : 0, fp[j].partition_index, 0,
			    &p) == OP_OK && op_txn_unstable(w, group.p,
			    group.len > 0 ? (size_t)group.len : 0,
			    (uint32_t)(p - w->shm->parts))) {
				fp[j].error_code = KERR_UNSTABLE_OFFSET_COMMIT;
				fp[j].committed_offset = -1;
			}
	}
}

void
kafka_offset_fetch_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_ofetch_req *q = k->body;
	const struct km_ofetch_group *qg = q->groups.v;
	struct km_ofetch_group_resp *gr = NULL;
	struct km_ofetch_resp *s;
	struct op_ctx x;
	int32_t i, ng = q->groups.n > 0 ? q->groups.n : 0;

	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (ng > 0 &&
	    (gr = conn_alloc(c, (size_t)ng * sizeof(*gr))) == NULL)) {
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_offset_fetch.km_resp, s);
	if (k->h.api_version < 8) {
		if (ofetch_group(c, &x, k->h.api_version, q->group_id,
		    &q->topics, &s->topics, &s->error_code) != OP_OK) {
			c->dead = 1;
			return;
		}
		if (k->h.api_version >= 7 && q->require_stable)
			ofetch_stable(w, q->group_id, &s->topics);
		k->kst = s;
		return;
	}
	for (i = 0; i < ng; i++) {
		gr[i].group_id = qg[i].group_id;
		gr[i].topics.n = 0;
		gr[i].topics.v = NULL;
		if (k->h.api_version >= 9 &&
		    (gr[i].error_code = ofetch_member(w, &x, &qg[i])) !=
		    KERR_NONE)
			continue;
		if (ofetch_group(c, &x, k->h.api_version, qg[i].group_id,
		    &qg[i].topics, &gr[i].topics, &gr[i].error_code) != OP_OK) {
			c->dead = 1;
			return;
		}
		if (q->require_stable)
			ofetch_stable(w, qg[i].group_id, &gr[i].topics);
	}
	s->groups.n = ng;
	s->groups.v = gr;
	k->kst = s;
}

/* ---- ListGroups and DescribeGroups ---- */

/* A copy in the arena as a kstr; .p NULL when the arena is full. */
static struct kstr
ko_dup(struct conn *c, const void *s, size_t len)
{
	struct kstr k = { NULL, 0 };
	char *p;

	if ((p = conn_alloc(c, len + 1)) == NULL)
		return k;
	if (len > 0)
		memcpy(p, s, len);
	p[len] = '\0';
	k.p = p;
	k.len = (int32_t)len;
	return k;
}

/* Kafka's names for a group's states. */
static const char *
state_name(uint32_t state, uint32_t members)
{
	switch (state) {
	case GROUP_REBALANCING:
		return "PreparingRebalance";
	case GROUP_AWAITING_SYNC:
		return "CompletingRebalance";
	case GROUP_STABLE:
		return members > 0 ? "Stable" : "Empty";
	default:
		return "Empty";
	}
}

/* The protocol type a Kafka client sees for a group of either kind. */
static struct kstr
group_ptype(struct conn *c, uint32_t kind, const char *ptype, size_t len)
{
	if (kind == GROUP_KIND_KAFKA)
		return ko_dup(c, ptype, len);
	/* Native groups, and groups that only hold commits. */
	return kstr_c(kind == GROUP_KIND_NATIVE ? "flume" : "consumer");
}

/* Is s (of a ListGroups filter) one of the strings of f, ignoring case? */
static int
list_filter_has(const struct karray *f, const char *s)
{
	const struct kstr *v = f->v;
	int32_t i;

	for (i = 0; i < f->n; i++)
		if ((size_t)v[i].len == strlen(s) &&
		    strncasecmp(v[i].p, s, strlen(s)) == 0)
			return 1;
	return 0;
}

/*
 * Every group the user may describe, as Kafka lists them: native
 * groups too (protocol type "flume"), all of the "classic" type (v5),
 * with Kafka's state names (v4).  A filter (v4 states, v5 types) keeps
 * the groups it names, ignoring case as Kafka does.
 */
void
kafka_list_groups_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_list_groups_req *q = k->body;
	struct km_list_groups_resp *s;
	struct km_listed_group *e = NULL;
	struct op_group_listing *l;
	struct op_ctx x;
	uint32_t i, n;
	int32_t m = 0;
	const char *state, *gtype;

	(void)w;
	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL ||
	    op_group_list(&x, &l, &n) != OP_OK ||
	    (n > 0 && (e = conn_alloc(c, n * sizeof(*e))) == NULL)) {
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_list_groups.km_resp, s);
	k->kst = s;
	for (i = 0; i < n; i++) {
		/* KIP-848: a consumer protocol group is of type "consumer". */
		gtype = l[i].kind == GROUP_KIND_CONSUMER ? "consumer" :
		    "classic";
		if (q->types_filter.n > 0 && !list_filter_has(&q->types_filter,
		    gtype))
			continue;
		state = state_name(l[i].state, l[i].members > 0 ?
		    (uint32_t)l[i].members : 0);
		if (q->states_filter.n > 0 &&
		    !list_filter_has(&q->states_filter, state))
			continue;
		e[m].group_id.p = l[i].name;
		e[m].group_id.len = (int32_t)l[i].name_len;
		e[m].protocol_type = group_ptype(c, l[i].kind, l[i].ptype,
		    l[i].ptype_len);
		e[m].group_state = kstr_c(state);
		e[m].group_type = kstr_c(gtype);
		if (e[m].protocol_type.p != NULL)
			m++;
	}
	s->groups.n = m;
	s->groups.v = e;
}

/* Under g's lock: describe it into d; a Kafka error code. */
static int16_t
describe_one(struct worker *w, struct conn *c, struct shm_group *g,
    struct km_described_group *d)
{
	struct km_described_member *dm = NULL;
	struct shm_member *m;
	const uint8_t *meta;
	uint32_t i, max = w->shm->hdr->limits.max_group_members, n;
	size_t ml, al;

	n = group_member_count(w->shm, g);
	d->group_state = kstr_c(state_name(g->state, n));
	d->protocol_type = group_ptype(c, g->kind, g->ptype,
	    g->ptype_len <= KGROUP_PROTO_MAX ? g->ptype_len : 0);
	d->protocol_data = g->kind == GROUP_KIND_KAFKA &&
	    g->state != GROUP_EMPTY &&
	    g->state != GROUP_REBALANCING ? ko_dup(c, g->proto,
	    g->proto_len <= KGROUP_PROTO_MAX ? g->proto_len : 0) : kstr_c("");
	if (d->protocol_type.p == NULL || d->protocol_data.p == NULL ||
	    (n > 0 && (dm = conn_alloc(c, n * sizeof(*dm))) == NULL))
		return KERR_UNKNOWN_SERVER_ERROR;
	d->members.v = n > 0 ? dm : NULL;
	d->members.n = 0;
	for (i = 0; i < max && (uint32_t)d->members.n < n; i++) {
		m = group_member_at(w->shm, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE)
			continue;
		if (g->kind != GROUP_KIND_KAFKA ||
		    kgroup_member_metadata(w->shm, g, i, &meta, &ml) == -1)
			ml = 0;
		al = g->kind == GROUP_KIND_KAFKA && g->state == GROUP_STABLE &&
		    m->assign_len <= w->shm->hdr->limits.member_meta ?
		    m->assign_len : 0;
		dm[d->members.n].member_id = ko_dup(c, m->id, m->id_len);
		dm[d->members.n].client_id = ko_dup(c, m->client, m->client_len);
		dm[d->members.n].client_host = ko_dup(c, m->host,
		    m->host_len <= MEMBER_HOST_MAX ? m->host_len : 0);
		if (m->instance_len > 0 &&
		    m->instance_len <= KGROUP_INSTANCE_MAX) {
			dm[d->members.n].group_instance_id = ko_dup(c,
			    m->instance, m->instance_len);
			if (dm[d->members.n].group_instance_id.p == NULL)
				return KERR_UNKNOWN_SERVER_ERROR;
		} else {
			dm[d->members.n].group_instance_id.p = NULL;
			dm[d->members.n].group_instance_id.len = -1;
		}
		dm[d->members.n].member_metadata = ko_dup(c, ml > 0 ? meta :
		    NULL, ml);
		dm[d->members.n].member_assignment = ko_dup(c, al > 0 ?
		    group_assign(w->shm, g, i) : NULL, al);
		if (dm[d->members.n].member_id.p == NULL ||
		    dm[d->members.n].client_id.p == NULL ||
		    dm[d->members.n].client_host.p == NULL ||
		    dm[d->members.n].member_metadata.p == NULL ||
		    dm[d->members.n].member_assignment.p == NULL)
			return KERR_UNKNOWN_SERVER_ERROR;
		d->members.n++;
	}
	return KERR_NONE;
}

/* The operations (Kafka's ACL operation bits) the user may do on group. */
static int32_t
describe_ops(const struct op_ctx *x, struct kstr group)
{
	static const struct { unsigned perm; int bit; } ops[] = {
		{ AUTH_GROUP_READ, 3 },		/* READ */
		{ AUTH_GROUP_DELETE, 6 },	/* DELETE */
		{ AUTH_GROUP_DESCRIBE, 8 },	/* DESCRIBE */
	};
	int32_t bits = 0;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (op_access_group_may(x, ops[i].perm, group.p,
		    (size_t)group.len))
			bits |= (int32_t)1 << ops[i].bit;
	return bits;
}

/*
 * A group that does not exist is Dead, without an error before v6 and
 * GROUP_ID_NOT_FOUND from v6 (KIP-1043), as Kafka answers.  The
 * authorized operations (v3) are given when asked for, else Kafka's
 * INT32_MIN; a static member's group_instance_id is shown from v4.
 */
void
kafka_describe_groups_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_describe_groups_req *q = k->body;
	const struct kstr *qg = q->groups.v;
	struct km_describe_groups_resp *s;
	struct km_described_group *d = NULL;
	struct group_params gp;
	struct shm_group *g;
	struct op_ctx x;
	uint32_t s0, g0;
	int32_t i, ng = q->groups.n > 0 ? q->groups.n : 0;
	int gidx;
	enum op_err e;
	char *msg;

	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (ng > 0 &&
	    (d = conn_alloc(c, (size_t)ng * sizeof(*d))) == NULL)) {
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_describe_groups.km_resp, s);
	s->groups.n = ng;
	s->groups.v = d;
	k->kst = s;
	op_group_params(w, &gp);
	for (i = 0; i < ng; i++) {
		kdesc_defaults(kmsg_describe_groups.km_resp->kd_fields[1].kf_sub,
		    &d[i]);
		d[i].group_id = qg[i];
		d[i].group_state = kstr_c("Dead");
		d[i].authorized_operations = INT32_MIN;
		if (qg[i].len <= 0 || !group_name_valid(qg[i].p,
		    (size_t)qg[i].len)) {
			d[i].error_code = KERR_INVALID_GROUP_ID;
			continue;
		}
		if ((e = op_access_group(&x, AUTH_GROUP_DESCRIBE,
		    qg[i].p, (size_t)qg[i].len)) != OP_OK) {
			d[i].error_code = kafka_op_error(e);
			continue;
		}
		if (q->include_authorized_operations)
			d[i].authorized_operations = describe_ops(&x, qg[i]);
		if ((gidx = group_find(w->shm, qg[i].p,
		    (size_t)qg[i].len)) < 0) {
			if (k->h.api_version < 6)
				continue;
			d[i].error_code = KERR_GROUP_ID_NOT_FOUND;
			if ((msg = conn_alloc(c, (size_t)qg[i].len + 32)) !=
			    NULL) {
				(void)snprintf(msg, (size_t)qg[i].len + 32,
				    "Group %.*s not found.", (int)qg[i].len,
				    qg[i].p);
				d[i].error_message = kstr_c(msg);
			}
			continue;
		}
		if ((g = op_group_lock(w, gidx, &gp, &s0, &g0)) == NULL) {
			d[i].error_code = KERR_COORDINATOR_NOT_AVAILABLE;
			continue;
		}
		(void)group_tick(w->shm, g, w->now, &gp);
		if (g->kind == GROUP_KIND_CONSUMER) {
			/* As Kafka 4.0: ConsumerGroupDescribe describes it. */
			op_group_unlock(w, g, s0, g0);
			if (k->h.api_version >= 6 && (msg = conn_alloc(c,
			    (size_t)qg[i].len + 40)) != NULL) {
				d[i].error_code = KERR_GROUP_ID_NOT_FOUND;
				(void)snprintf(msg, (size_t)qg[i].len + 40,
				    "Group %.*s is not a classic group.",
				    (int)qg[i].len, qg[i].p);
				d[i].error_message = kstr_c(msg);
			}
			continue;
		}
		d[i].error_code = describe_one(w, c, g, &d[i]);
		op_group_unlock(w, g, s0, g0);
		if (d[i].error_code != KERR_NONE) {
			d[i].members.n = 0;
			d[i].group_state = kstr_c("Dead");
			d[i].protocol_type = kstr_c("");
			d[i].protocol_data = kstr_c("");
		}
	}
}
