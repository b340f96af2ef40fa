/*
 * Listing, describing and deleting groups (worker/op/group_info.h).
 * Each group is looked at under its lock, after group_tick() (members
 * silent past their session are gone), so an answer is one consistent
 * view; what it names of the member table is copied into request
 * memory before the unlock.
 */
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/op/access.h"
#include "worker/op/group_info.h"
#include "worker/worker.h"

_Static_assert(OP_GROUP_PTYPE_MAX == KGROUP_PROTO_MAX,
    "a listing holds a protocol type");

enum op_err
op_group_list(const struct op_ctx *x, struct op_group_listing **groups,
    uint32_t *np)
{
	struct worker *w = x->w;
	struct op_group_listing *l = NULL, *e;
	struct group_params gp;
	struct shm_group *g;
	uint32_t i, n = group_count(w->shm), s0, g0;

	*groups = NULL;
	*np = 0;
	if (n > 0 && (l = op_alloc(x, n * sizeof(*l))) == NULL)
		return OP_NO_MEMORY;
	op_group_params(w, &gp);
	for (i = 0; i < n; i++) {
		g = group_at(w->shm, i);
		if (atomic_load_explicit(&g->used, memory_order_acquire) !=
		    GROUP_SLOT_USED || g->name_len == 0 ||
		    g->name_len > GROUP_NAME_MAX)
			continue;
		/* Only the groups the user may describe (names never change). */
		if (!op_access_group_may(x, AUTH_GROUP_DESCRIBE, g->name,
		    g->name_len))
			continue;
		if ((g = op_group_lock(w, (int)i, &gp, &s0, &g0)) == NULL)
			continue;
		(void)group_tick(w->shm, g, w->now, &gp);
		e = &l[(*np)++];
		e->name = g->name;
		e->name_len = g->name_len;
		e->state = g->state;
		e->kind = g->kind;
		e->generation = (int32_t)g->generation;
		e->members = (int32_t)group_member_count(w->shm, g);
		e->ptype_len = g->ptype_len <= KGROUP_PROTO_MAX ? g->ptype_len : 0;
		memcpy(e->ptype, g->ptype, e->ptype_len);
		e->ptype[e->ptype_len] = '\0';
		op_group_unlock(w, g, s0, g0);
	}
	*groups = l;
	return OP_OK;
}

/* A copy of len bytes in request memory (NULL when it is full). */
static void *
dup(const struct op_ctx *x, const void *s, size_t len)
{
	char *p;

	if ((p = op_alloc(x, len + 1)) == NULL)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/*
 * Is partition slot in one of g's subscribed topics?  A consumer
 * protocol group's are its members' subscriptions (names or regex),
 * asked once per topic: *memo holds the last topic asked and its answer.
 */
static int
slot_subscribed(struct worker *w, struct shm_group *g, uint32_t slot,
    uint64_t *memo)
{
	uint32_t k, topic = w->shm->parts[slot].topic;

	if (g->kind == GROUP_KIND_CONSUMER) {
		if ((uint32_t)(*memo >> 1) != topic || *memo == UINT64_MAX)
			*memo = (uint64_t)topic << 1 |
			    (uint64_t)cgroup_subscribes(w->shm, g, topic);
		return (int)(*memo & 1);
	}
	for (k = 0; k < g->ntopics && k < GROUP_TOPICS_MAX; k++)
		if (g->topics[k].topic == w->shm->parts[slot].topic)
			return 1;
	return 0;
}

/* Keep of m's partitions the topics the user may consume. */
static void
parts_readable(const struct op_ctx *x, struct op_member_desc *m)
{
	int32_t i, k = 0;

	for (i = 0; i < m->nparts; i++)
		if (op_access_topic_may(x, AUTH_CONSUME, m->parts[i].topic,
		    m->parts[i].topic_len))
			m->parts[k++] = m->parts[i];
	m->nparts = k;
}

int
op_group_desc_assigned(const struct op_ctx *x, const struct op_group_desc *d,
    struct op_member_desc *m, const char *topic, size_t len,
    int32_t partition)
{
	const struct shm_topic *t;
	int idx;

	if (m->seen >= d->cap)
		return 1;
	if ((idx = shm_topic_find(x->w->shm, topic, len)) < 0)
		return 0;
	m->seen++;
	/* Topic entries never change once published. */
	t = &x->w->shm->topics[idx];
	if (!op_access_topic_may(x, AUTH_CONSUME, t->name, t->name_len))
		return 0;
	m->parts[m->nparts].topic = t->name;
	m->parts[m->nparts].topic_len = t->name_len;
	m->parts[m->nparts].partition = partition;
	m->nparts++;
	return 0;
}

/*
 * Under g's lock: consumer member i's list which (CG_*) as the topics
 * the user may consume, into *out (request memory, room for used).
 */
static enum op_err
cg_parts(const struct op_ctx *x, struct shm_group *g, uint32_t i, int which,
    uint32_t used, struct op_group_tp **out, int32_t *nout)
{
	struct worker *w = x->w;
	const struct shm_topic *t;
	struct op_group_tp *p;
	struct cg_tp *tp;
	uint32_t j, n;
	int32_t k = 0;

	*out = NULL;
	*nout = 0;
	if (used == 0)
		return OP_OK;
	if ((p = op_alloc(x, used * sizeof(*p))) == NULL ||
	    (tp = op_alloc(x, used * sizeof(*tp))) == NULL)
		return OP_NO_MEMORY;
	n = cgroup_list(w->shm, g, i, which, tp, used);
	for (j = 0; j < n && j < used; j++) {
		t = &w->shm->topics[tp[j].topic];
		if (!op_access_topic_may(x, AUTH_CONSUME, t->name,
		    t->name_len))
			continue;
		p[k].topic = t->name;
		p[k].topic_len = t->name_len;
		p[k].partition = tp[j].partition;
		k++;
	}
	*out = p;
	*nout = k;
	return OP_OK;
}

/* Under g's lock: member i (active) into m. */
static enum op_err
describe_member(const struct op_ctx *x, struct shm_group *g, uint32_t i,
    struct op_member_desc *m, uint32_t *slots, uint32_t used)
{
	struct worker *w = x->w;
	struct shm_member *sm = group_member_at(w->shm, g, i);
	uint32_t j, n;

	memset(m, 0, sizeof(*m));
	m->id = dup(x, sm->id, sm->id_len);
	m->id_len = sm->id_len;
	m->client = dup(x, sm->client, sm->client_len);
	m->client_len = sm->client_len;
	m->session_timeout_ms = sm->session_timeout_ms;
	m->epoch = g->kind == GROUP_KIND_CONSUMER ? sm->cg_epoch :
	    (int32_t)sm->joined_gen;
	m->instance_len = sm->instance_len <= KGROUP_INSTANCE_MAX ?
	    sm->instance_len : 0;
	m->instance = dup(x, sm->instance, m->instance_len);
	if (m->id == NULL || m->client == NULL || m->instance == NULL)
		return OP_NO_MEMORY;
	if (g->kind == GROUP_KIND_KAFKA) {
		/* The leader's assignment, when it is the consumer protocol's. */
		if (used > 0 && (m->parts = op_alloc(x, used *
		    sizeof(*m->parts))) == NULL)
			return OP_NO_MEMORY;
		if (g->state == GROUP_STABLE && sm->assign_len <=
		    w->shm->hdr->limits.member_meta && g->ptype_len == 8 &&
		    memcmp(g->ptype, "consumer", 8) == 0) {
			if ((m->assign = dup(x, group_assign(w->shm, g, i),
			    sm->assign_len)) == NULL)
				return OP_NO_MEMORY;
			m->assign_len = sm->assign_len;
		}
		return OP_OK;
	}
	if (g->kind == GROUP_KIND_CONSUMER) {
		/* The broker's assignment (KIP-848): its three lists. */
		enum op_err e;

		if ((e = cg_parts(x, g, i, CG_ASSIGNED, used, &m->parts,
		    &m->nparts)) != OP_OK ||
		    (e = cg_parts(x, g, i, CG_REVOKING, used, &m->revoking,
		    &m->nrevoking)) != OP_OK)
			return e;
		return cg_parts(x, g, i, CG_TARGET, used, &m->target,
		    &m->ntarget);
	}
	n = group_assignment(w->shm, g, (int)i, slots, used);
	if (n > used)
		n = used;
	if (n > 0 && (m->parts = op_alloc(x, n * sizeof(*m->parts))) == NULL)
		return OP_NO_MEMORY;
	for (j = 0; j < n; j++)
		if (op_group_slot_tp(w, slots[j], &m->parts[m->nparts]) == 0)
			m->nparts++;
	parts_readable(x, m);
	return OP_OK;
}

enum op_err
op_group_describe(const struct op_ctx *x, const char *group, size_t glen,
    struct op_group_desc *d)
{
	struct worker *w = x->w;
	struct op_offset_desc *od;
	struct group_params gp;
	struct shm_group *g;
	struct shm_member *m;
	struct op_group_tp tp;
	uint32_t i, used, maxm, s0, g0, *slots;
	uint64_t memo = UINT64_MAX;	/* slot_subscribed()'s */
	enum op_err e = OP_OK;
	int gidx;

	memset(d, 0, sizeof(*d));
	if (!group_name_valid(group, glen))
		return OP_BAD_GROUP;
	if ((e = op_access_group(x, AUTH_GROUP_DESCRIBE, group, glen)) !=
	    OP_OK ||
	    (e = op_group_find(w, group, glen, OP_BAD_GROUP, &gidx)) != OP_OK)
		return e;
	used = atomic_load_explicit(&w->shm->hdr->parts_used,
	    memory_order_acquire);
	if (used > w->shm->hdr->limits.max_partitions)
		used = w->shm->hdr->limits.max_partitions;
	maxm = w->shm->hdr->limits.max_group_members;
	d->cap = (int32_t)used;
	if ((d->members = op_alloc(x, maxm * sizeof(*d->members))) == NULL ||
	    (used > 0 && (d->offsets = op_alloc(x, used *
	    sizeof(*d->offsets))) == NULL) ||
	    (slots = op_alloc(x, (used + 1) * sizeof(*slots))) == NULL)
		return OP_NO_MEMORY;
	op_group_params(w, &gp);
	if ((g = op_group_lock(w, gidx, &gp, &s0, &g0)) == NULL)
		return OP_INTERNAL;
	(void)group_tick(w->shm, g, w->now, &gp);
	d->state = g->state;
	d->kind = g->kind;
	d->generation = (int32_t)g->generation;
	d->assign_epoch = g->kind == GROUP_KIND_CONSUMER ?
	    (int32_t)g->cg_assign_epoch : -1;
	for (i = 0; i < maxm && e == OP_OK; i++) {
		m = group_member_at(w->shm, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE)
			continue;
		e = describe_member(x, g, i, &d->members[d->nmembers++],
		    slots, used);
	}
	for (i = 0; i < used && e == OP_OK; i++) {
		int64_t off = group_offset_get(w->shm, g, i);

		if (off < 0 && !slot_subscribed(w, g, i, &memo))
			continue;
		if (op_group_slot_tp(w, i, &tp) == -1 ||
		    !op_access_topic_may(x, AUTH_CONSUME, tp.topic,
		    tp.topic_len))
			continue;
		od = &d->offsets[d->noffsets++];
		od->topic = tp.topic;
		od->topic_len = tp.topic_len;
		od->partition = tp.partition;
		od->committed = off;
		od->log_end = __atomic_load_n(&w->shm->parts[i].next_offset,
		    __ATOMIC_ACQUIRE);
	}
	op_group_unlock(w, g, s0, g0);
	return e;
}

enum op_err
op_group_delete(const struct op_ctx *x, const char *group, size_t glen)
{
	struct worker *w = x->w;
	struct group_params gp;
	enum op_err e;
	int gidx;

	/* Refused alike whether or not the group exists. */
	if ((e = op_access_group(x, AUTH_GROUP_DELETE, group, glen)) != OP_OK)
		return e;
	/* A refusal is one line; a valid name is safe to print. */
	if ((e = op_group_find(w, group, glen, OP_NO_GROUP, &gidx)) != OP_OK) {
		if (e == OP_NO_GROUP)
			log_info("%s: %s: delete of group %.*s refused: no such "
			    "group", x->peer, x->api != NULL ? x->api : "?",
			    (int)glen, group);
		else
			log_info("%s: %s: delete of a group refused: invalid "
			    "name", x->peer, x->api != NULL ? x->api : "?");
		return e;
	}
	op_group_params(w, &gp);
	if ((e = op_group_err(group_delete(w->shm, (uint32_t)gidx, w->now, &gp,
	    GROUP_ANY_SEQ))) != OP_OK) {
		if (e == OP_GROUP_NOT_EMPTY)
			log_info("%s: %s: delete of group %.*s refused: it has "
			    "members", x->peer, x->api != NULL ? x->api : "?",
			    (int)glen, group);
		return e;
	}
	log_info("group %.*s: deleted by %s", (int)glen, group, x->peer);
	/* The writer removes the file and frees the slot. */
	worker_wake_writer(w, 0);
	return OP_OK;
}
