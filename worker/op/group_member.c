/*
 * Membership of a native group (worker/op/group_member.h).  A join whose
 * rebalance is not complete waits: its face parks it and calls
 * op_group_join_poll() after every wake-up, and at the latest every
 * OP_JOIN_POLL_MS or at the rebalance deadline.  Whoever changes a
 * group's state or generation wakes every worker that parked requests
 * (op_group_unlock()).
 */
#include <string.h>

#include "shm/group.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/op/access.h"
#include "worker/op/group_member.h"
#include "worker/worker.h"

#define OP_JOIN_POLL_MS	1000	/* a lost wake-up costs a waiting join at most this */

/* Under the lock: the member's generation and partitions into st. */
static enum op_err
join_answer(const struct op_ctx *x, struct shm_group *g, struct op_join *st)
{
	struct worker *w = x->w;
	uint32_t cap = w->shm->hdr->limits.max_partitions, n, i, *slots;

	if ((slots = op_alloc(x, cap * sizeof(*slots))) == NULL)
		return OP_NO_MEMORY;
	n = group_assignment(w->shm, g, st->member, slots, cap);
	if (n > cap)
		n = cap;
	st->generation = (int32_t)g->generation;
	st->nparts = 0;
	if (n > 0 && (st->parts = op_alloc(x, n * sizeof(*st->parts))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < n; i++)
		if (op_group_slot_tp(w, slots[i], &st->parts[st->nparts]) == 0)
			st->nparts++;
	return OP_OK;
}

static enum op_status
join_done(struct op_join *st, enum op_err e)
{
	st->err = e;
	return OP_DONE;
}

enum op_status
op_group_join_poll(const struct op_ctx *x, struct op_join *st)
{
	struct worker *w = x->w;
	struct group_params gp;
	struct shm_group *g;
	enum op_status s = OP_DONE;
	uint32_t s0, g0;
	int ready;

	op_group_params(w, &gp);
	if ((g = op_group_lock(w, st->gidx, &gp, &s0, &g0)) == NULL)
		return join_done(st, OP_INTERNAL);
	ready = group_join_ready(w->shm, g, st->member, st->id, st->id_len,
	    w->now, &gp);
	if (ready == 1)
		st->err = join_answer(x, g, st);
	else if (ready == -1)
		st->err = OP_UNKNOWN_MEMBER;
	else if (w->stopping)
		st->err = OP_SHUTTING_DOWN;
	else {
		s = OP_WAIT;
		st->deadline = w->now + OP_JOIN_POLL_MS;
		if (g->rebalance_deadline > w->now &&
		    g->rebalance_deadline < st->deadline)
			st->deadline = g->rebalance_deadline;
	}
	op_group_unlock(w, g, s0, g0);
	return s;
}

/* The topic indexes of a's subscription, each once, into topics. */
static enum op_err
join_topics(struct worker *w, const struct op_join_args *a, uint32_t *topics,
    uint32_t *n)
{
	uint32_t k;
	int32_t i;
	int idx;

	*n = 0;
	for (i = 0; i < a->ntopics; i++) {
		idx = shm_topic_find(w->shm, a->topics[i].s, a->topics[i].len);
		if (idx < 0)
			return OP_NO_TOPIC;
		for (k = 0; k < *n && topics[k] != (uint32_t)idx; k++)
			;
		if (k < *n)
			continue;
		if (*n == GROUP_TOPICS_MAX)
			return OP_NO_ROOM;
		topics[(*n)++] = (uint32_t)idx;
	}
	return OP_OK;
}

enum op_status
op_group_join(const struct op_ctx *x, const struct op_join_args *a,
    struct op_join *st)
{
	struct worker *w = x->w;
	struct group_join_in in;
	struct group_params gp;
	struct shm_group *g;
	struct shm_member *m;
	uint32_t topics[GROUP_TOPICS_MAX], n, s0, g0;
	int32_t i;
	int16_t rc;
	enum op_err e;

	st->gidx = -1;
	st->member = -1;
	if (!group_name_valid(a->group, a->group_len) ||
	    a->member_id_len > MEMBER_ID_MAX || a->client_id_len > CLIENT_ID_MAX)
		return join_done(st, OP_BAD_GROUP);
	if (a->ntopics < 1)
		return join_done(st, OP_BAD_REQUEST);
	/* Before the group exists: a refused join creates nothing. */
	if ((e = op_access_group(x, AUTH_GROUP_READ, a->group,
	    a->group_len)) != OP_OK)
		return join_done(st, e);
	for (i = 0; i < a->ntopics; i++)
		if ((e = op_access_group_topic(x, a->group, a->group_len,
		    a->topics[i].s, a->topics[i].len)) != OP_OK)
			return join_done(st, e);
	if ((e = join_topics(w, a, topics, &n)) != OP_OK ||
	    (e = op_group_create(w, a->group, a->group_len, 1,
	    &st->gidx)) != OP_OK)
		return join_done(st, e);
	in.member_id = a->member_id;
	in.member_id_len = a->member_id_len;
	in.client_id = a->client_id;
	in.client_id_len = a->client_id_len;
	in.session_timeout_ms = a->session_timeout_ms;
	in.topics = topics;
	in.ntopics = n;
	op_group_params(w, &gp);
	if ((g = op_group_lock_name(w, st->gidx, a->group, a->group_len, &gp,
	    &s0, &g0)) == NULL)
		return join_done(st, OP_INTERNAL);
	rc = group_join(w->shm, g, &in, w->now, &gp, &st->member);
	if (rc == ERR_NONE) {
		m = group_member_at(w->shm, g, (uint32_t)st->member);
		st->id_len = m->id_len;
		memcpy(st->id, m->id, m->id_len);
		st->id[st->id_len] = '\0';
	}
	op_group_unlock(w, g, s0, g0);
	if (rc != ERR_NONE)
		return join_done(st, op_group_err(rc));
	return op_group_join_poll(x, st);
}

/* A heartbeat (leave 0) or a leave (1) of member id in group. */
static enum op_err
member_op(const struct op_ctx *x, const char *group, size_t glen,
    const char *id, size_t id_len, int32_t generation, int leave)
{
	struct worker *w = x->w;
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0;
	int16_t rc;
	enum op_err e;
	int gidx;

	if (!group_name_valid(group, glen))
		return OP_BAD_GROUP;
	if ((e = op_access_group(x, AUTH_GROUP_READ, group, glen)) != OP_OK ||
	    (e = op_group_find(w, group, glen, OP_UNKNOWN_MEMBER, &gidx)) !=
	    OP_OK)
		return e;
	op_group_params(w, &gp);
	if ((g = op_group_lock(w, gidx, &gp, &s0, &g0)) == NULL)
		return OP_INTERNAL;
	if (leave)
		rc = group_leave(w->shm, g, id, id_len, w->now, &gp);
	else
		rc = group_heartbeat(w->shm, g, id, id_len, generation, w->now,
		    &gp);
	op_group_unlock(w, g, s0, g0);
	return op_group_err(rc);
}

enum op_err
op_group_heartbeat(const struct op_ctx *x, const char *group, size_t glen,
    const char *id, size_t id_len, int32_t generation)
{
	return member_op(x, group, glen, id, id_len, generation, 0);
}

enum op_err
op_group_leave(const struct op_ctx *x, const char *group, size_t glen,
    const char *id, size_t id_len)
{
	return member_op(x, group, glen, id, id_len, 0, 1);
}
