/*
 * Consumer-group handlers of a worker.  Every operation takes the
 * group's robust lock for a few loads and stores (group_lock() repairs a
 * group whose previous holder died), runs the state machine of
 * shm/group.c and builds its answer while still holding the lock, so the
 * answer is one consistent view.  Names in answers point at the shared
 * topic and member tables only while the lock is held: they are copied
 * into the connection's arena.
 *
 * A JOIN_GROUP whose rebalance is not complete is parked: native_poll()
 * re-checks it after every wake-up, and at the latest every
 * WGROUP_POLL_MS or at the rebalance deadline.  Whoever changes a group's
 * state or generation wakes every worker that parked requests, so a
 * JOIN parked in another worker is answered as soon as the last member
 * has rejoined.
 *
 * With an auth_file every request needs its group permission
 * (worker/access.h: read to be a member and commit, describe to look,
 * delete to reset), a join may subscribe only to topics the user may
 * consume, and a description or a listing of offsets shows only those.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "proto/frame.h"
#include "proto/kafka/kconsumer.h"
#include "proto/msg.h"
#include "shm/group.h"
#include "shm/topics.h"
#include "store/plog.h"
#include "store/topic.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/group.h"
#include "worker/op/offsets.h"
#include "worker/worker.h"

#define WGROUP_POLL_MS	1000	/* a lost wake-up costs a parked JOIN at most this */

/* Per-request state of a JOIN_GROUP. */
struct join_st {
	int			 gidx;
	int			 member;
	char			 id[MEMBER_ID_MAX + 1];
	size_t			 id_len;
	struct join_group_resp	 resp;
};

/* The (empty) state of a successful HEARTBEAT or LEAVE_GROUP; never written. */
static struct group_error_resp wgroup_ok;

void
wgroup_params(const struct worker *w, struct group_params *gp)
{
	gp->rebalance_timeout_ms = w->conf->group_rebalance_timeout_ms;
	gp->min_session_ms = (int32_t)w->conf->group_min_session_timeout_ms;
	gp->max_session_ms = (int32_t)w->conf->group_max_session_timeout_ms;
	gp->initial_delay_ms = w->conf->group_initial_rebalance_delay_ms;
}

int
wgroup_decode(struct conn *c, struct req *r)
{
	struct arena *a = &c->arena;
	size_t sz;
	int rc;

	switch (r->api) {
	case API_JOIN_GROUP:	sz = sizeof(struct join_group_req); break;
	case API_HEARTBEAT:	sz = sizeof(struct heartbeat_req); break;
	case API_LEAVE_GROUP:	sz = sizeof(struct leave_group_req); break;
	case API_OFFSET_COMMIT:	sz = sizeof(struct offset_commit_req); break;
	case API_OFFSET_FETCH:	sz = sizeof(struct offset_fetch_req); break;
	case API_DESCRIBE_GROUP:
	case API_GROUP_DELETE:	sz = sizeof(struct describe_group_req); break;
	case API_GROUP_RESET:	sz = sizeof(struct group_reset_req); break;
	case API_LIST_GROUPS:
		return r->payload_len == 0 ? 0 : -1;
	default:
		return -1;
	}
	if (r->dec == NULL && (r->dec = conn_alloc(c, sz)) == NULL)
		return -1;
	switch (r->api) {
	case API_JOIN_GROUP:
		rc = msg_decode_join_group_req(r->payload, r->payload_len, a, r->dec);
		break;
	case API_HEARTBEAT:
		rc = msg_decode_heartbeat_req(r->payload, r->payload_len, r->dec);
		break;
	case API_LEAVE_GROUP:
		rc = msg_decode_leave_group_req(r->payload, r->payload_len, r->dec);
		break;
	case API_OFFSET_COMMIT:
		rc = msg_decode_offset_commit_req(r->payload, r->payload_len, a,
		    r->dec);
		break;
	case API_OFFSET_FETCH:
		rc = msg_decode_offset_fetch_req(r->payload, r->payload_len, a,
		    r->dec);
		break;
	case API_GROUP_RESET:
		rc = msg_decode_group_reset_req(r->payload, r->payload_len,
		    r->dec);
		break;
	default:	/* DESCRIBE_GROUP, GROUP_DELETE */
		rc = msg_decode_describe_group_req(r->payload, r->payload_len,
		    r->dec);
		break;
	}
	c->arena_bytes += r->payload_len;
	return rc;
}

static void
wgroup_done(struct req *r, int16_t error)
{
	r->error = error;
	r->state = REQ_DONE;
}

/* A copy of len bytes in the arena (NULL when it is full). */
static char *
wgroup_strdup(struct conn *c, const char *s, size_t len)
{
	char *p;

	if ((p = conn_alloc(c, len + 1)) == NULL)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/*
 * Wake every other worker that parked requests: a group's state or
 * generation changed, and one of them may hold a JOIN waiting for it.
 */
void
wgroup_wake_all(struct worker *w)
{
	int slot, n = broker_writer_slot(w->b);

	atomic_thread_fence(memory_order_seq_cst);
	if ((uint32_t)n > w->shm->hdr->limits.child_slots)
		n = (int)w->shm->hdr->limits.child_slots;
	for (slot = 0; slot < n; slot++) {
		if (slot == w->b->slot)
			continue;
		if (atomic_load(&w->shm->children[slot].wake_wanted) != 0 &&
		    atomic_exchange(&w->shm->children[slot].wake_wanted, 0) != 0)
			broker_wake(w->b, slot);
	}
}

struct shm_group *
wgroup_lock(struct worker *w, int gidx, const struct group_params *gp,
    uint32_t *state0, uint32_t *gen0)
{
	struct shm_group *g = group_at(w->shm, (uint32_t)gidx);
	int rc;

	if (g == NULL)
		return NULL;
	if ((rc = group_lock(w->shm, g, w->now, gp)) == -1) {
		log_warn("group lock");
		return NULL;
	}
	if (rc == 1)
		log_warnx("group %.*s: its lock holder died; forced a new "
		    "generation %u", (int)g->name_len, g->name, g->generation);
	/* Deleted since it was looked up (group_delete()): gone. */
	if (atomic_load_explicit(&g->used, memory_order_acquire) !=
	    GROUP_SLOT_USED) {
		group_unlock(g);
		return NULL;
	}
	*state0 = g->state;
	*gen0 = g->generation;
	return g;
}

void
wgroup_no_room(struct worker *w, const char *name, size_t len)
{
	const struct shm_limits *lim = &w->shm->hdr->limits;

	if (errno != ENOSPC)
		return;
	log_warnx("group %.*s: no room for a group without members "
	    "(max_groups %u, the last %u kept for groups that members join; "
	    "see offsets_retention and flume-admin group delete)", (int)len,
	    name, lim->max_groups, group_reserved(lim));
}

struct shm_group *
wgroup_lock_name(struct worker *w, int gidx, const char *name, size_t len,
    const struct group_params *gp, uint32_t *state0, uint32_t *gen0)
{
	struct shm_group *g;

	if ((g = wgroup_lock(w, gidx, gp, state0, gen0)) == NULL)
		return NULL;
	if (g->name_len != len || memcmp(g->name, name, len) != 0) {
		group_unlock(g);
		return NULL;
	}
	return g;
}

void
wgroup_unlock(struct worker *w, struct shm_group *g, uint32_t state0,
    uint32_t gen0)
{
	int changed = g->state != state0 || g->generation != gen0;

	group_unlock(g);
	if (changed)
		wgroup_wake_all(w);
}

int
wgroup_slot_tp(struct worker *w, struct conn *c, uint32_t slot,
    struct group_tp *tp)
{
	const struct shm_partition *p = &w->shm->parts[slot];
	const struct shm_topic *t;

	(void)c;
	if (p->topic >= w->shm->hdr->limits.max_topics)
		return -1;
	t = &w->shm->topics[p->topic];
	if (t->name_len == 0 || t->name_len > TOPIC_NAME_MAX)
		return -1;
	/* Topic entries never change once published: no copy needed. */
	tp->topic = t->name;
	tp->topic_len = t->name_len;
	tp->partition = p->partition;
	return 0;
}

/* Under the lock: fill st->resp with member's generation and partitions. */
static int16_t
join_answer(struct worker *w, struct conn *c, struct shm_group *g,
    struct join_st *st)
{
	uint32_t cap = w->shm->hdr->limits.max_partitions, n, i, *slots;

	if ((slots = conn_alloc(c, cap * sizeof(*slots))) == NULL)
		return ERR_RESOURCE_LIMIT;
	n = group_assignment(w->shm, g, st->member, slots, cap);
	if (n > cap)
		n = cap;
	st->resp.error = ERR_NONE;
	st->resp.generation = (int32_t)g->generation;
	st->resp.member_id = st->id;
	st->resp.member_id_len = st->id_len;
	st->resp.count = 0;
	if (n > 0 && (st->resp.parts = conn_alloc(c, n *
	    sizeof(*st->resp.parts))) == NULL)
		return ERR_RESOURCE_LIMIT;
	for (i = 0; i < n; i++)
		if (wgroup_slot_tp(w, c, slots[i],
		    &st->resp.parts[st->resp.count]) == 0)
			st->resp.count++;
	return ERR_NONE;
}

/* Parked JOIN: answer if the rebalance is complete, else keep waiting. */
static void
join_check(struct worker *w, struct conn *c, struct req *r)
{
	struct join_st *st = r->st;
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0;
	int ready;

	wgroup_params(w, &gp);
	if ((g = wgroup_lock(w, st->gidx, &gp, &s0, &g0)) == NULL) {
		wgroup_done(r, ERR_UNKNOWN);
		return;
	}
	ready = group_join_ready(w->shm, g, st->member, st->id, st->id_len,
	    w->now, &gp);
	if (ready == 1)
		wgroup_done(r, join_answer(w, c, g, st));
	else if (ready == -1)
		wgroup_done(r, ERR_UNKNOWN_MEMBER);
	else if (w->stopping)
		wgroup_done(r, ERR_SHUTTING_DOWN);
	else {
		r->state = REQ_WAIT;
		r->deadline = w->now + WGROUP_POLL_MS;
		if (g->rebalance_deadline > w->now &&
		    g->rebalance_deadline < r->deadline)
			r->deadline = g->rebalance_deadline;
	}
	wgroup_unlock(w, g, s0, g0);
}

static void
exec_join(struct worker *w, struct conn *c, struct req *r)
{
	const struct join_group_req *q = r->dec;
	struct group_join_in in;
	struct group_params gp;
	struct shm_group *g;
	struct join_st *st;
	struct shm_member *m;
	uint32_t topics[GROUP_TOPICS_MAX], n = 0, s0, g0, k;
	int32_t i;
	int16_t err;
	int idx, gidx;

	if (!group_name_valid(q->group, q->group_len) ||
	    q->member_id_len > MEMBER_ID_MAX || q->client_id_len > CLIENT_ID_MAX) {
		wgroup_done(r, ERR_INVALID_GROUP);
		return;
	}
	if (q->count < 1) {
		wgroup_done(r, ERR_INVALID_REQUEST);
		return;
	}
	/* Before the group exists: a refused join creates nothing. */
	if ((err = auth_group(c, AUTH_GROUP_READ, r->name, q->group,
	    q->group_len)) != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	for (i = 0; i < q->count; i++)
		if ((err = auth_group_topic(c, r->name, q->group,
		    q->group_len, q->topics[i].s, q->topics[i].len)) != ERR_NONE) {
			wgroup_done(r, err);
			return;
		}
	for (i = 0; i < q->count; i++) {
		idx = shm_topic_find(w->shm, q->topics[i].s, q->topics[i].len);
		if (idx < 0) {
			wgroup_done(r, ERR_UNKNOWN_TOPIC_OR_PARTITION);
			return;
		}
		for (k = 0; k < n && topics[k] != (uint32_t)idx; k++)
			;
		if (k < n)
			continue;
		if (n == GROUP_TOPICS_MAX) {
			wgroup_done(r, ERR_RESOURCE_LIMIT);
			return;
		}
		topics[n++] = (uint32_t)idx;
	}
	if ((gidx = group_create(w->shm, q->group, q->group_len, 1)) == -1) {
		wgroup_done(r, errno == ENOSPC ? ERR_RESOURCE_LIMIT : ERR_UNKNOWN);
		return;
	}
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		wgroup_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	memset(st, 0, sizeof(*st));
	st->gidx = gidx;
	st->member = -1;
	r->st = st;
	in.member_id = q->member_id;
	in.member_id_len = q->member_id_len;
	in.client_id = q->client_id;
	in.client_id_len = q->client_id_len;
	in.session_timeout_ms = q->session_timeout_ms;
	in.topics = topics;
	in.ntopics = n;
	wgroup_params(w, &gp);
	if ((g = wgroup_lock_name(w, gidx, q->group, q->group_len, &gp, &s0,
	    &g0)) == NULL) {
		wgroup_done(r, ERR_UNKNOWN);
		return;
	}
	err = group_join(w->shm, g, &in, w->now, &gp, &st->member);
	if (err == ERR_NONE) {
		m = group_member_at(w->shm, g, (uint32_t)st->member);
		st->id_len = m->id_len;
		memcpy(st->id, m->id, m->id_len);
		st->id[st->id_len] = '\0';
	}
	wgroup_unlock(w, g, s0, g0);
	if (err != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	join_check(w, c, r);
}

/* HEARTBEAT (leave 0) or LEAVE_GROUP (leave 1) of member id in group. */
static void
exec_member_op(struct worker *w, struct conn *c, struct req *r,
    const char *group, size_t group_len, const char *id, size_t id_len,
    int32_t generation, int leave)
{
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0;
	int16_t err;
	int gidx;

	if (!group_name_valid(group, group_len)) {
		wgroup_done(r, ERR_INVALID_GROUP);
		return;
	}
	if ((err = auth_group(c, AUTH_GROUP_READ, r->name, group,
	    group_len)) != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	if ((gidx = group_find(w->shm, group, group_len)) < 0) {
		wgroup_done(r, ERR_UNKNOWN_MEMBER);
		return;
	}
	wgroup_params(w, &gp);
	if ((g = wgroup_lock(w, gidx, &gp, &s0, &g0)) == NULL) {
		wgroup_done(r, ERR_UNKNOWN);
		return;
	}
	if (leave)
		r->error = group_leave(w->shm, g, id, id_len, w->now, &gp);
	else
		r->error = group_heartbeat(w->shm, g, id, id_len, generation,
		    w->now, &gp);
	wgroup_unlock(w, g, s0, g0);
	/* native_emit() takes a NULL r->st for a failure. */
	if (r->error == ERR_NONE)
		r->st = &wgroup_ok;
	r->state = REQ_DONE;
}

int16_t
wgroup_part(struct worker *w, const char *topic, size_t len, int32_t partition,
    uint32_t *slot)
{
	struct shm_partition *p;
	int idx;

	if ((idx = shm_topic_find(w->shm, topic, len)) < 0 ||
	    (p = shm_partition(w->shm, idx, partition)) == NULL)
		return ERR_UNKNOWN_TOPIC_OR_PARTITION;
	*slot = (uint32_t)(p - w->shm->parts);
	return ERR_NONE;
}

static void
exec_commit(struct worker *w, struct conn *c, struct req *r)
{
	const struct offset_commit_req *q = r->dec;
	struct offset_commit_resp *s;
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0, slot = 0;
	int16_t err;
	int32_t i;
	int gidx, prev;

	if (!group_name_valid(q->group, q->group_len)) {
		wgroup_done(r, ERR_INVALID_GROUP);
		return;
	}
	if ((err = auth_group(c, AUTH_GROUP_READ, r->name, q->group,
	    q->group_len)) != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	if ((gidx = group_find(w->shm, q->group, q->group_len)) < 0) {
		wgroup_done(r, ERR_UNKNOWN_MEMBER);
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (q->count > 0 && (s->errors = conn_alloc(c, (size_t)q->count *
	    sizeof(*s->errors))) == NULL)) {
		wgroup_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	s->error = ERR_NONE;
	s->count = q->count;
	/* Per topic, as for FETCH (and before the lock: a denial is logged). */
	for (i = 0; i < q->count; i++)
		s->errors[i] = auth_topic(c, AUTH_CONSUME, q->parts[i].topic,
		    q->parts[i].topic_len, r->name);
	wgroup_params(w, &gp);
	if ((g = wgroup_lock(w, gidx, &gp, &s0, &g0)) == NULL) {
		wgroup_done(r, ERR_UNKNOWN);
		return;
	}
	err = group_commit_check(w->shm, g, q->member_id, q->member_id_len,
	    q->generation, w->now, &gp, &prev);
	for (i = 0; err == ERR_NONE && i < q->count; i++) {
		if (s->errors[i] != ERR_NONE)
			continue;
		s->errors[i] = wgroup_part(w, q->parts[i].topic,
		    q->parts[i].topic_len, q->parts[i].partition, &slot);
		/* The generation before: only what it owned then. */
		if (s->errors[i] == ERR_NONE && prev >= 0 &&
		    !group_prev_owned(w->shm, g, prev, slot))
			s->errors[i] = ERR_ILLEGAL_GENERATION;
		/* Stored as given: a reader takes one below 0 as none (Kafka's rule). */
		if (s->errors[i] == ERR_NONE)
			group_offset_set(w->shm, g, slot, q->parts[i].offset);
	}
	wgroup_unlock(w, g, s0, g0);
	if (err != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	r->st = s;
	wgroup_done(r, ERR_NONE);
	/* The writer saves committed offsets; it need not sleep out its timeout. */
	worker_wake_writer(w, 0);
}

static void
exec_offset_fetch(struct worker *w, struct conn *c, struct req *r)
{
	const struct offset_fetch_req *q = r->dec;
	struct offset_fetch_resp *s;
	struct offset_fetch_result *res;
	struct shm_group *g = NULL;
	struct group_tp tp;
	uint32_t slot = 0, used;
	int32_t i, n;
	int16_t err;
	int gidx;

	if (!group_name_valid(q->group, q->group_len)) {
		wgroup_done(r, ERR_INVALID_GROUP);
		return;
	}
	if ((err = auth_group(c, AUTH_GROUP_DESCRIBE, r->name,
	    q->group, q->group_len)) != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	gidx = group_find(w->shm, q->group, q->group_len);
	if (gidx >= 0)
		g = group_at(w->shm, (uint32_t)gidx);
	used = atomic_load_explicit(&w->shm->hdr->parts_used, memory_order_acquire);
	if (used > w->shm->hdr->limits.max_partitions)
		used = w->shm->hdr->limits.max_partitions;
	n = q->count;
	if (n == 0 && g != NULL)
		for (slot = 0; slot < used; slot++)
			if (group_offset_get(w->shm, g, slot) >= 0)
				n++;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (n > 0 && (s->results = conn_alloc(c, (size_t)n *
	    sizeof(*s->results))) == NULL)) {
		wgroup_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	s->error = ERR_NONE;
	s->count = 0;
	if (q->count == 0) {
		/* Every committed offset; offsets only grow in number, so bound by n. */
		for (slot = 0; g != NULL && slot < used && s->count < n; slot++) {
			res = &s->results[s->count];
			if ((res->offset = group_offset_get(w->shm, g, slot)) < 0 ||
			    wgroup_slot_tp(w, c, slot, &tp) == -1 ||
			    !auth_may(c, AUTH_CONSUME, tp.topic, tp.topic_len))
				continue;
			res->topic = tp.topic;
			res->topic_len = tp.topic_len;
			res->partition = tp.partition;
			res->error = ERR_NONE;
			s->count++;
		}
	} else {
		for (i = 0; i < q->count; i++) {
			res = &s->results[i];
			res->topic = q->parts[i].topic;
			res->topic_len = q->parts[i].topic_len;
			res->partition = q->parts[i].partition;
			res->offset = -1;
			res->error = auth_topic(c, AUTH_CONSUME, res->topic,
			    res->topic_len, r->name);
			if (res->error == ERR_NONE)
				res->error = wgroup_part(w, res->topic,
				    res->topic_len, res->partition, &slot);
			if (res->error == ERR_NONE && g != NULL)
				res->offset = group_offset_get(w->shm, g, slot);
		}
		s->count = q->count;
	}
	r->st = s;
	wgroup_done(r, ERR_NONE);
}

static void
exec_list_groups(struct worker *w, struct conn *c, struct req *r)
{
	struct list_groups_resp *s;
	struct group_listing *l;
	struct group_params gp;
	struct shm_group *g;
	uint32_t i, n = group_count(w->shm), s0, g0;

	if ((s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (n > 0 && (s->groups = conn_alloc(c, n * sizeof(*s->groups))) == NULL)) {
		wgroup_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	s->error = ERR_NONE;
	s->count = 0;
	wgroup_params(w, &gp);
	for (i = 0; i < n; i++) {
		g = group_at(w->shm, i);
		if (atomic_load_explicit(&g->used, memory_order_acquire) != 1 ||
		    g->name_len == 0 || g->name_len > GROUP_NAME_MAX)
			continue;
		/* Only the groups the user may describe (names never change). */
		if (!auth_group_may(c, AUTH_GROUP_DESCRIBE, g->name, g->name_len))
			continue;
		if ((g = wgroup_lock(w, (int)i, &gp, &s0, &g0)) == NULL)
			continue;
		(void)group_tick(w->shm, g, w->now, &gp);
		l = &s->groups[s->count++];
		l->group = g->name;	/* names never change once published */
		l->group_len = g->name_len;
		l->state = (int8_t)g->state;
		l->generation = (int32_t)g->generation;
		l->members = (int32_t)group_member_count(w->shm, g);
		wgroup_unlock(w, g, s0, g0);
	}
	r->st = s;
	wgroup_done(r, ERR_NONE);
}

/* Is partition slot in one of g's subscribed topics? */
static int
slot_subscribed(struct worker *w, struct shm_group *g, uint32_t slot)
{
	uint32_t k;

	for (k = 0; k < g->ntopics && k < GROUP_TOPICS_MAX; k++)
		if (g->topics[k].topic == w->shm->parts[slot].topic)
			return 1;
	return 0;
}

/*
 * A Kafka member's assignment (the consumer protocol's bytes) as the
 * native description's partitions: at most cap, topics that do not exist
 * skipped.
 */
struct assigned {
	struct worker		*w;
	struct group_tp		*parts;
	int32_t			 cap;
	int32_t			 n;
};

static int
assigned_part(const char *name, size_t nlen, int32_t partition, void *arg)
{
	struct assigned *as = arg;
	const struct shm_topic *t;
	int idx;

	if (as->n >= as->cap)
		return 1;
	if ((idx = shm_topic_find(as->w->shm, name, nlen)) < 0)
		return 0;
	/* Topic entries never change once published. */
	t = &as->w->shm->topics[idx];
	as->parts[as->n].topic = t->name;
	as->parts[as->n].topic_len = t->name_len;
	as->parts[as->n].partition = partition;
	as->n++;
	return 0;
}

/*
 * Keep of parts[0..n) the topics c's user may consume (a description
 * shows nothing of the others); the new count.
 */
static int32_t
parts_readable(const struct conn *c, struct group_tp *parts, int32_t n)
{
	int32_t i, k = 0;

	for (i = 0; i < n; i++)
		if (auth_may(c, AUTH_CONSUME, parts[i].topic, parts[i].topic_len))
			parts[k++] = parts[i];
	return k;
}

static void
exec_describe(struct worker *w, struct conn *c, struct req *r)
{
	const struct describe_group_req *q = r->dec;
	struct describe_group_resp *s;
	struct member_desc *md;
	struct group_offset_desc *od;
	struct group_params gp;
	struct shm_group *g;
	struct shm_member *m;
	struct group_tp tp;
	uint32_t i, j, n, used, maxm, s0, g0, *slots;
	int16_t err = ERR_NONE;
	int gidx;

	if (!group_name_valid(q->group, q->group_len)) {
		wgroup_done(r, ERR_INVALID_GROUP);
		return;
	}
	if ((err = auth_group(c, AUTH_GROUP_DESCRIBE, r->name,
	    q->group, q->group_len)) != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	if ((gidx = group_find(w->shm, q->group, q->group_len)) < 0) {
		wgroup_done(r, ERR_INVALID_GROUP);
		return;
	}
	used = atomic_load_explicit(&w->shm->hdr->parts_used, memory_order_acquire);
	if (used > w->shm->hdr->limits.max_partitions)
		used = w->shm->hdr->limits.max_partitions;
	maxm = w->shm->hdr->limits.max_group_members;
	if ((s = conn_alloc(c, sizeof(*s))) != NULL)
		memset(s, 0, sizeof(*s));
	if (s == NULL ||
	    (s->members = conn_alloc(c, maxm * sizeof(*s->members))) == NULL ||
	    (used > 0 && (s->offsets = conn_alloc(c, used *
	    sizeof(*s->offsets))) == NULL) ||
	    (slots = conn_alloc(c, (used + 1) * sizeof(*slots))) == NULL) {
		wgroup_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	wgroup_params(w, &gp);
	if ((g = wgroup_lock(w, gidx, &gp, &s0, &g0)) == NULL) {
		wgroup_done(r, ERR_UNKNOWN);
		return;
	}
	(void)group_tick(w->shm, g, w->now, &gp);
	s->error = ERR_NONE;
	s->state = (int8_t)g->state;
	s->generation = (int32_t)g->generation;
	s->nmembers = 0;
	for (i = 0; i < maxm && err == ERR_NONE; i++) {
		m = group_member_at(w->shm, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE)
			continue;
		md = &s->members[s->nmembers++];
		memset(md, 0, sizeof(*md));
		md->member_id = wgroup_strdup(c, m->id, m->id_len);
		md->member_id_len = m->id_len;
		md->client_id = wgroup_strdup(c, m->client, m->client_len);
		md->client_id_len = m->client_len;
		md->session_timeout_ms = m->session_timeout_ms;
		n = group_assignment(w->shm, g, (int)i, slots, used);
		if (n > used)
			n = used;
		if (g->kind == GROUP_KIND_KAFKA) {
			/* The leader's assignment, when it is the consumer protocol's. */
			if (md->member_id == NULL || md->client_id == NULL ||
			    (used > 0 && (md->parts = conn_alloc(c, used *
			    sizeof(*md->parts))) == NULL)) {
				err = ERR_RESOURCE_LIMIT;
				break;
			}
			if (g->state == GROUP_STABLE && m->assign_len <=
			    w->shm->hdr->limits.member_meta &&
			    g->ptype_len == 8 && memcmp(g->ptype, "consumer", 8) == 0) {
				struct assigned as = { w, md->parts,
				    (int32_t)used, 0 };

				(void)kconsumer_assignment_parts(
				    group_assign(w->shm, g, i), m->assign_len,
				    assigned_part, &as);
				md->count = as.n;
			}
			md->count = parts_readable(c, md->parts, md->count);
			continue;
		}
		if (md->member_id == NULL || md->client_id == NULL ||
		    (n > 0 && (md->parts = conn_alloc(c, n *
		    sizeof(*md->parts))) == NULL)) {
			err = ERR_RESOURCE_LIMIT;
			break;
		}
		for (j = 0; j < n; j++)
			if (wgroup_slot_tp(w, c, slots[j], &md->parts[md->count]) == 0)
				md->count++;
		md->count = parts_readable(c, md->parts, md->count);
	}
	s->noffsets = 0;
	for (i = 0; i < used && err == ERR_NONE; i++) {
		int64_t off = group_offset_get(w->shm, g, i);

		if (off < 0 && !slot_subscribed(w, g, i))
			continue;
		od = &s->offsets[s->noffsets];
		if (wgroup_slot_tp(w, c, i, &tp) == -1 ||
		    !auth_may(c, AUTH_CONSUME, tp.topic, tp.topic_len))
			continue;
		od->topic = tp.topic;
		od->topic_len = tp.topic_len;
		od->partition = tp.partition;
		od->committed = off;
		od->log_end = __atomic_load_n(&w->shm->parts[i].next_offset,
		    __ATOMIC_ACQUIRE);
		s->noffsets++;
	}
	wgroup_unlock(w, g, s0, g0);
	if (err != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	r->st = s;
	wgroup_done(r, ERR_NONE);
}

/* Where a reset puts partition p; a flume error code. */
static int16_t
reset_target(struct worker *w, struct shm_partition *p,
    const struct group_reset_req *q, int64_t *offset)
{
	int64_t start, end, found;
	int16_t err;

	start = atomic_load_explicit(&p->log_start, memory_order_acquire);
	end = __atomic_load_n(&p->next_offset, __ATOMIC_ACQUIRE);
	switch (q->mode) {
	case RESET_TO_OFFSET:
		*offset = q->value < start ? start :
		    q->value > end ? end : q->value;
		return ERR_NONE;
	case RESET_TO_EARLIEST:
		*offset = start;
		return ERR_NONE;
	case RESET_TO_LATEST:
		*offset = end;
		return ERR_NONE;
	case RESET_TO_TIME:
		/* Only what is in the files: the ring's tail is the newest. */
		end = atomic_load_explicit(&p->visible_offset,
		    memory_order_acquire);
		if ((err = op_offset_for_time(w, p, q->value, offset,
		    &found) == OP_OK ? ERR_NONE : ERR_STORAGE) != ERR_NONE)
			return err;
		/* No record that new: the end, where new ones will come. */
		if (*offset == -1)
			*offset = end;
		return ERR_NONE;
	default:
		return ERR_INVALID_REQUEST;
	}
}

/*
 * GROUP_RESET: set the committed offsets of a group that has no members
 * (a member would overwrite them with its next commit, and could not
 * know it had to move).  The targets are found first, outside the lock
 * (a time lookup reads the log), then stored only if the group is still
 * without members.
 */
static void
exec_group_reset(struct worker *w, struct conn *c, struct req *r)
{
	const struct group_reset_req *q = r->dec;
	struct group_reset_resp *s;
	struct group_params gp;
	struct shm_partition *p;
	struct shm_group *g;
	const struct shm_topic *t;
	uint32_t s0, g0, slot0;
	int32_t i, first, n;
	int16_t err;
	int gidx, tidx;

	if (!group_name_valid(q->group, q->group_len)) {
		wgroup_done(r, ERR_INVALID_GROUP);
		return;
	}
	if ((err = auth_group(c, AUTH_GROUP_DELETE, r->name, q->group,
	    q->group_len)) != ERR_NONE ||
	    (err = auth_topic(c, AUTH_ADMIN, q->topic, q->topic_len,
	    r->name)) !=
	    ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	if ((tidx = shm_topic_find(w->shm, q->topic, q->topic_len)) < 0) {
		wgroup_done(r, ERR_UNKNOWN_TOPIC_OR_PARTITION);
		return;
	}
	t = &w->shm->topics[tidx];
	if (q->partition == -1) {
		first = 0;
		n = (int32_t)t->partitions;
	} else if (q->partition >= 0 && q->partition < (int32_t)t->partitions) {
		first = q->partition;
		n = 1;
	} else {
		wgroup_done(r, ERR_UNKNOWN_TOPIC_OR_PARTITION);
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (n > 0 &&
	    (s->results = conn_alloc(c, (size_t)n * sizeof(*s->results))) ==
	    NULL)) {
		wgroup_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	s->error = ERR_NONE;
	s->count = n;
	for (i = 0; i < n; i++) {
		s->results[i].partition = first + i;
		s->results[i].offset = -1;
		if ((p = shm_partition(w->shm, tidx, first + i)) == NULL)
			s->results[i].error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
		else
			s->results[i].error = reset_target(w, p, q,
			    &s->results[i].offset);
		if (s->results[i].error != ERR_NONE &&
		    s->results[i].error != ERR_UNKNOWN_TOPIC_OR_PARTITION) {
			wgroup_done(r, s->results[i].error);
			return;
		}
	}
	if ((gidx = group_create(w->shm, q->group, q->group_len, 0)) < 0) {
		wgroup_done(r, errno == ENOSPC ? ERR_RESOURCE_LIMIT :
		    ERR_INVALID_GROUP);
		wgroup_no_room(w, q->group, q->group_len);
		return;
	}
	wgroup_params(w, &gp);
	if ((g = wgroup_lock_name(w, gidx, q->group, q->group_len, &gp, &s0,
	    &g0)) == NULL) {
		wgroup_done(r, ERR_UNKNOWN);
		return;
	}
	/* Members silent past their session are gone already. */
	(void)group_tick(w->shm, g, w->now, &gp);
	if (group_member_count(w->shm, g) > 0) {
		wgroup_unlock(w, g, s0, g0);
		wgroup_done(r, ERR_GROUP_NOT_EMPTY);
		return;
	}
	for (i = 0; i < n; i++) {
		if (s->results[i].error != ERR_NONE)
			continue;
		p = shm_partition(w->shm, tidx, first + i);
		slot0 = (uint32_t)(p - w->shm->parts);
		group_offset_set(w->shm, g, slot0, s->results[i].offset);
	}
	wgroup_unlock(w, g, s0, g0);
	log_info("group %.*s: offsets of %.*s reset by %s", (int)q->group_len,
	    q->group, (int)q->topic_len, q->topic, c->peer);
	r->st = s;
	wgroup_done(r, ERR_NONE);
	/* The writer saves committed offsets; it need not sleep out its timeout. */
	worker_wake_writer(w, 0);
}

/*
 * GROUP_DELETE: a group without members loses its committed offsets and
 * its slot (the writer removes its file).  Kafka's DeleteGroups answers
 * NON_EMPTY_GROUP for one with members; so do we (GROUP_NOT_EMPTY).
 */
static void
exec_group_delete(struct worker *w, struct conn *c, struct req *r)
{
	const struct describe_group_req *q = r->dec;
	struct group_params gp;
	int16_t err;
	int gidx;

	/* Refused alike whether or not the group exists. */
	if ((err = auth_group(c, AUTH_GROUP_DELETE, r->name, q->group,
	    q->group_len)) != ERR_NONE) {
		wgroup_done(r, err);
		return;
	}
	if (!group_name_valid(q->group, q->group_len) ||
	    (gidx = group_find(w->shm, q->group, q->group_len)) < 0) {
		wgroup_done(r, ERR_INVALID_GROUP);
		return;
	}
	wgroup_params(w, &gp);
	if ((r->error = group_delete(w->shm, (uint32_t)gidx, w->now, &gp,
	    GROUP_ANY_SEQ)) != ERR_NONE) {
		r->state = REQ_DONE;
		return;
	}
	log_info("group %.*s: deleted by %s", (int)q->group_len, q->group,
	    c->peer);
	r->st = &wgroup_ok;
	wgroup_done(r, ERR_NONE);
	/* The writer removes the file and frees the slot. */
	worker_wake_writer(w, 0);
}

void
wgroup_exec(struct worker *w, struct conn *c, struct req *r)
{
	if (w->shm->hdr->limits.max_groups == 0) {
		wgroup_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	switch (r->api) {
	case API_JOIN_GROUP:
		exec_join(w, c, r);
		break;
	case API_HEARTBEAT: {
		const struct heartbeat_req *q = r->dec;

		exec_member_op(w, c, r, q->group, q->group_len, q->member_id,
		    q->member_id_len, q->generation, 0);
		break;
	}
	case API_LEAVE_GROUP: {
		const struct leave_group_req *q = r->dec;

		exec_member_op(w, c, r, q->group, q->group_len, q->member_id,
		    q->member_id_len, 0, 1);
		break;
	}
	case API_OFFSET_COMMIT:
		exec_commit(w, c, r);
		break;
	case API_OFFSET_FETCH:
		exec_offset_fetch(w, c, r);
		break;
	case API_LIST_GROUPS:
		exec_list_groups(w, c, r);
		break;
	case API_DESCRIBE_GROUP:
		exec_describe(w, c, r);
		break;
	case API_GROUP_RESET:
		exec_group_reset(w, c, r);
		break;
	case API_GROUP_DELETE:
		exec_group_delete(w, c, r);
		break;
	default:
		wgroup_done(r, ERR_UNSUPPORTED_API);
		break;
	}
}

void
wgroup_poll(struct worker *w, struct conn *c, struct req *r)
{
	if (r->api == API_JOIN_GROUP && r->state == REQ_WAIT && r->st != NULL)
		join_check(w, c, r);
}

/* The answer to r when it failed as a whole, in the shape of its api. */
static void
emit_error(struct wbuf *wb, const struct req *r)
{
	wbuf_i16(wb, r->error);
	switch (r->api) {
	case API_JOIN_GROUP:
		wbuf_i32(wb, -1);
		wbuf_str(wb, "", 0);
		wbuf_i32(wb, 0);
		break;
	case API_OFFSET_COMMIT:
	case API_OFFSET_FETCH:
	case API_LIST_GROUPS:
	case API_GROUP_RESET:
		wbuf_i32(wb, 0);
		break;
	case API_DESCRIBE_GROUP:
		wbuf_i8(wb, GROUP_WIRE_EMPTY);
		wbuf_i32(wb, 0);
		wbuf_i32(wb, 0);
		wbuf_i32(wb, 0);
		break;
	default:
		break;
	}
}

void
wgroup_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct wbuf *wb = &c->out;
	struct join_st *st;
	size_t start;

	start = frame_begin_response(wb, r->id);
	if (r->error != ERR_NONE || r->st == NULL) {
		if (r->error == ERR_NONE)
			r->error = ERR_UNKNOWN;
		emit_error(wb, r);
	} else {
		switch (r->api) {
		case API_JOIN_GROUP:
			st = r->st;
			msg_encode_join_group_resp(wb, &st->resp);
			break;
		case API_OFFSET_COMMIT:
			msg_encode_offset_commit_resp(wb, r->st);
			break;
		case API_OFFSET_FETCH:
			msg_encode_offset_fetch_resp(wb, r->st);
			break;
		case API_LIST_GROUPS:
			msg_encode_list_groups_resp(wb, r->st);
			break;
		case API_DESCRIBE_GROUP:
			msg_encode_describe_group_resp(wb, r->st);
			break;
		case API_GROUP_RESET:
			msg_encode_group_reset_resp(wb, r->st);
			break;
		default:
			wbuf_i16(wb, ERR_NONE);
			break;
		}
	}
	frame_end(wb, start);
	conn_out_commit(c);
}
