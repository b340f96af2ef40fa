/*
 * Kafka's committed offsets and group listings in a worker: OffsetCommit
 * v0-2, OffsetFetch v0-1, ListGroups v0-1 and DescribeGroups v0-1.
 *
 * Committed offsets are the native groups' (shm/group.h): one 8-byte
 * slot per partition in the group's table, saved by the writer to the
 * same files (data/flume~offsets/), so flume-admin and the metrics show a
 * Kafka group's lag like a native one's.  OffsetCommit's retention time
 * and per-partition metadata are not kept (OffsetFetch answers an empty
 * metadata string): offsets live as long as their group and topic.
 */
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kgroup.h"
#include "proto/kafka/koffset.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/op/access.h"
#include "worker/op/group.h"
#include "worker/op/group_info.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/group.h"
#include "worker/worker.h"

/* ---- OffsetCommit ---- */

void
kafka_commit_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kcommit_req *q = &k->k.commit;
	struct kcommit_topic_resp *tr = NULL;
	struct kpart_error *pe;
	struct kcommit_resp *s;
	struct group_params gp;
	struct shm_group *g = NULL;
	struct op_ctx x;
	uint32_t s0 = 0, g0 = 0, slot;
	int32_t i, j;
	int16_t err = KERR_NONE, terr;
	int gidx = -1, committed = 0;
	enum op_err e;

	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (q->ntopics > 0 &&
	    (tr = conn_alloc(c, (size_t)q->ntopics * sizeof(*tr))) == NULL)) {
		c->dead = 1;
		return;
	}
	s->ntopics = q->ntopics;
	s->topics = q->ntopics > 0 ? tr : NULL;
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
	if (g != NULL)
		err = kgroup_commit_check(w->shm, g, q->member_id.p,
		    q->member_id.len > 0 ? (size_t)q->member_id.len : 0,
		    q->generation_id, w->now, &gp);
	for (i = 0; i < q->ntopics; i++) {
		tr[i].name = q->topics[i].name;
		tr[i].npart = q->topics[i].npart;
		tr[i].parts = NULL;
		if (q->topics[i].npart <= 0)
			continue;
		if ((pe = conn_alloc(c, (size_t)q->topics[i].npart *
		    sizeof(*pe))) == NULL) {
			tr[i].npart = 0;
			continue;
		}
		tr[i].parts = pe;
		terr = err;
		if (terr == KERR_NONE && q->topics[i].name.len > 0)
			terr = kafka_op_error(op_access_topic(&x, AUTH_CONSUME,
			    q->topics[i].name.p, (size_t)q->topics[i].name.len));
		for (j = 0; j < q->topics[i].npart; j++) {
			const struct kcommit_part *cp = &q->topics[i].parts[j];

			pe[j].partition = cp->partition;
			pe[j].error = terr;
			if (terr != KERR_NONE)
				continue;
			if (q->topics[i].name.len <= 0 || op_group_part(w,
			    q->topics[i].name.p, (size_t)q->topics[i].name.len,
			    cp->partition, &slot) != OP_OK)
				pe[j].error = KERR_UNKNOWN_TOPIC_OR_PARTITION;
			/* Stored as given (Kafka's rule): below 0 reads as none. */
			else if ((pe[j].error = kgroup_commit_topic(w->shm, g,
			    shm_topic_find(w->shm, q->topics[i].name.p,
			    (size_t)q->topics[i].name.len))) == KERR_NONE) {
				group_offset_set(w->shm, g, slot, cp->offset);
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

void
kafka_commit_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	(void)w;
	pos = kafka_resp_begin(c, r);
	kcommit_encode_resp(&c->out, k->h.api_version, k->kst);
	kafka_resp_end(c, pos);
}

/* ---- OffsetFetch ---- */

void
kafka_offset_fetch_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct koffset_fetch_req *q = &k->k.offset_fetch;
	struct koffset_fetch_topic_resp *tr = NULL;
	struct koffset_fetch_part_resp *fp;
	struct koffset_fetch_resp *s;
	struct shm_group *g = NULL;
	struct op_ctx x;
	uint32_t slot;
	int32_t i, j;
	int16_t err = KERR_NONE, terr;
	int gidx;
	enum op_err e;

	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (q->ntopics > 0 &&
	    (tr = conn_alloc(c, (size_t)q->ntopics * sizeof(*tr))) == NULL)) {
		c->dead = 1;
		return;
	}
	s->ntopics = q->ntopics > 0 ? q->ntopics : 0;
	s->topics = q->ntopics > 0 ? tr : NULL;
	k->kst = s;
	if ((e = op_access_group(&x, AUTH_GROUP_DESCRIBE, q->group_id.p,
	    q->group_id.len > 0 ? (size_t)q->group_id.len : 0)) != OP_OK)
		err = kafka_op_error(e);	/* in every partition */
	else if (q->group_id.len <= 0 ||
	    !group_name_valid(q->group_id.p, (size_t)q->group_id.len))
		err = KERR_INVALID_GROUP_ID;
	else if ((gidx = group_find(w->shm, q->group_id.p,
	    (size_t)q->group_id.len)) >= 0)
		g = group_at(w->shm, (uint32_t)gidx);
	for (i = 0; i < s->ntopics; i++) {
		tr[i].name = q->topics[i].name;
		tr[i].npart = q->topics[i].npart > 0 ? q->topics[i].npart : 0;
		tr[i].parts = NULL;
		if (tr[i].npart == 0)
			continue;
		if ((fp = conn_alloc(c, (size_t)tr[i].npart *
		    sizeof(*fp))) == NULL) {
			tr[i].npart = 0;
			continue;
		}
		tr[i].parts = fp;
		terr = err;
		if (terr == KERR_NONE && q->topics[i].name.len > 0)
			terr = kafka_op_error(op_access_topic(&x, AUTH_CONSUME,
			    q->topics[i].name.p, (size_t)q->topics[i].name.len));
		for (j = 0; j < tr[i].npart; j++) {
			fp[j].partition = q->topics[i].parts[j];
			fp[j].offset = -1;
			fp[j].metadata = kstr_c("");
			fp[j].error = terr;
			if (terr != KERR_NONE)
				continue;
			if (q->topics[i].name.len <= 0 || op_group_part(w,
			    q->topics[i].name.p, (size_t)q->topics[i].name.len,
			    fp[j].partition, &slot) != OP_OK)
				fp[j].error = KERR_UNKNOWN_TOPIC_OR_PARTITION;
			else if (g != NULL)
				fp[j].offset = group_offset_get(w->shm, g, slot);
		}
	}
}

void
kafka_offset_fetch_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	(void)w;
	pos = kafka_resp_begin(c, r);
	koffset_fetch_encode_resp(&c->out, k->h.api_version, k->kst);
	kafka_resp_end(c, pos);
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
state_name(const struct shm_group *g, uint32_t members)
{
	switch (g->state) {
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

void
kafka_list_groups_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct klist_groups_resp *s;
	struct klist_groups_entry *e = NULL;
	struct op_group_listing *l;
	struct op_ctx x;
	uint32_t i, n;

	(void)w;
	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	/* Only the groups the user may describe, as Kafka lists them. */
	if ((s = conn_alloc(c, sizeof(*s))) == NULL ||
	    op_group_list(&x, &l, &n) != OP_OK ||
	    (n > 0 && (e = conn_alloc(c, n * sizeof(*e))) == NULL)) {
		c->dead = 1;
		return;
	}
	memset(s, 0, sizeof(*s));
	s->groups = e;
	k->kst = s;
	for (i = 0; i < n; i++) {
		e[s->ngroups].group_id.p = l[i].name;
		e[s->ngroups].group_id.len = (int32_t)l[i].name_len;
		e[s->ngroups].protocol_type = group_ptype(c, l[i].kind,
		    l[i].ptype, l[i].ptype_len);
		if (e[s->ngroups].protocol_type.p != NULL)
			s->ngroups++;
	}
}

void
kafka_list_groups_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	(void)w;
	pos = kafka_resp_begin(c, r);
	klist_groups_encode_resp(&c->out, k->h.api_version, k->kst);
	kafka_resp_end(c, pos);
}

/* Under g's lock: describe it into d; a Kafka error code. */
static int16_t
describe_one(struct worker *w, struct conn *c, struct shm_group *g,
    struct kdescribe_group *d)
{
	struct kdescribe_member *dm = NULL;
	struct shm_member *m;
	const uint8_t *meta;
	uint32_t i, max = w->shm->hdr->limits.max_group_members, n;
	size_t ml, al;

	n = group_member_count(w->shm, g);
	d->state = kstr_c(state_name(g, n));
	d->protocol_type = group_ptype(c, g->kind, g->ptype,
	    g->ptype_len <= KGROUP_PROTO_MAX ? g->ptype_len : 0);
	d->protocol = g->kind == GROUP_KIND_KAFKA && g->state != GROUP_EMPTY &&
	    g->state != GROUP_REBALANCING ? ko_dup(c, g->proto,
	    g->proto_len <= KGROUP_PROTO_MAX ? g->proto_len : 0) : kstr_c("");
	if (d->protocol_type.p == NULL || d->protocol.p == NULL ||
	    (n > 0 && (dm = conn_alloc(c, n * sizeof(*dm))) == NULL))
		return KERR_UNKNOWN_SERVER_ERROR;
	d->members = n > 0 ? dm : NULL;
	d->nmembers = 0;
	for (i = 0; i < max && (uint32_t)d->nmembers < n; i++) {
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
		dm[d->nmembers].member_id = ko_dup(c, m->id, m->id_len);
		dm[d->nmembers].client_id = ko_dup(c, m->client, m->client_len);
		dm[d->nmembers].client_host = ko_dup(c, m->host,
		    m->host_len <= MEMBER_HOST_MAX ? m->host_len : 0);
		dm[d->nmembers].metadata = ko_dup(c, ml > 0 ? meta : NULL, ml);
		dm[d->nmembers].assignment = ko_dup(c, al > 0 ?
		    group_assign(w->shm, g, i) : NULL, al);
		if (dm[d->nmembers].member_id.p == NULL ||
		    dm[d->nmembers].client_id.p == NULL ||
		    dm[d->nmembers].client_host.p == NULL ||
		    dm[d->nmembers].metadata.p == NULL ||
		    dm[d->nmembers].assignment.p == NULL)
			return KERR_UNKNOWN_SERVER_ERROR;
		d->nmembers++;
	}
	return KERR_NONE;
}

void
kafka_describe_groups_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kdescribe_groups_req *q = &k->k.describe_groups;
	struct kdescribe_groups_resp *s;
	struct kdescribe_group *d = NULL;
	struct group_params gp;
	struct shm_group *g;
	struct op_ctx x;
	uint32_t s0, g0;
	int32_t i;
	int gidx;
	enum op_err e;

	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (q->ngroups > 0 &&
	    (d = conn_alloc(c, (size_t)q->ngroups * sizeof(*d))) == NULL)) {
		c->dead = 1;
		return;
	}
	memset(s, 0, sizeof(*s));
	s->ngroups = q->ngroups > 0 ? q->ngroups : 0;
	s->groups = d;
	k->kst = s;
	op_group_params(w, &gp);
	for (i = 0; i < s->ngroups; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		d[i].group_id = q->groups[i];
		/* Kafka answers an unknown group as Dead, without an error. */
		d[i].state = kstr_c("Dead");
		d[i].protocol_type = kstr_c("");
		d[i].protocol = kstr_c("");
		if (q->groups[i].len <= 0 || !group_name_valid(q->groups[i].p,
		    (size_t)q->groups[i].len)) {
			d[i].error = KERR_INVALID_GROUP_ID;
			continue;
		}
		if ((e = op_access_group(&x, AUTH_GROUP_DESCRIBE,
		    q->groups[i].p, (size_t)q->groups[i].len)) != OP_OK) {
			d[i].error = kafka_op_error(e);
			continue;
		}
		if ((gidx = group_find(w->shm, q->groups[i].p,
		    (size_t)q->groups[i].len)) < 0)
			continue;
		if ((g = op_group_lock(w, gidx, &gp, &s0, &g0)) == NULL) {
			d[i].error = KERR_COORDINATOR_NOT_AVAILABLE;
			continue;
		}
		(void)group_tick(w->shm, g, w->now, &gp);
		d[i].error = describe_one(w, c, g, &d[i]);
		op_group_unlock(w, g, s0, g0);
		if (d[i].error != KERR_NONE) {
			d[i].nmembers = 0;
			d[i].state = kstr_c("Dead");
			d[i].protocol_type = kstr_c("");
			d[i].protocol = kstr_c("");
		}
	}
}

void
kafka_describe_groups_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	(void)w;
	pos = kafka_resp_begin(c, r);
	kdescribe_groups_encode_resp(&c->out, k->h.api_version, k->kst);
	kafka_resp_end(c, pos);
}
