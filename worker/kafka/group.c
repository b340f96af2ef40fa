/*
 * The Kafka group coordinator APIs of a worker: FindCoordinator,
 * JoinGroup, SyncGroup, Heartbeat and LeaveGroup over the shared groups
 * table (the state machine is shm/kgroup.c).  As for native groups
 * (worker/op/group.h), each request takes the group's robust lock for a
 * few loads and stores and copies what its answer needs into the
 * connection's arena before unlocking.
 *
 * A JoinGroup waiting for the rebalance and a follower's SyncGroup
 * waiting for the leader's are parked (REQ_WAIT) and re-checked after
 * every wake-up, at the latest every KGROUP_POLL_MS or at the rebalance
 * deadline; whoever moves a group's state or generation (a worker, or
 * the writer's expiry) wakes every worker that parked requests.
 *
 * With an auth_file, every group request needs the user's permission
 * on the group (worker/op/access.h): describe for FindCoordinator, read
 * for the others, else GROUP_AUTHORIZATION_FAILED; a JoinGroup of
 * protocol type "consumer" must moreover subscribe only to topics the
 * user may consume, read from each protocol's metadata (i16 version,
 * [string] topics, ...), else the same error and the group is not
 * touched.  Other protocol types carry opaque metadata: for them the
 * first rule alone applies; their members still read only what each
 * fetch allows.
 */
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kconsumer.h"
#include "proto/kafka/kgroup.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "store/topic.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/op/access.h"
#include "worker/op/group.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/group.h"
#include "worker/worker.h"

#define KGROUP_POLL_MS	1000	/* a lost wake-up costs a parked request at most this */

/* Per-request state of a JoinGroup or SyncGroup. */
struct kg_st {
	int			 gidx;
	int			 member;
	uint32_t		 wait_gen;
	int32_t			 generation;	/* SyncGroup */
	char			 id[MEMBER_ID_MAX + 1];
	size_t			 id_len;
	union {
		struct kjoin_resp	 join;
		struct ksync_resp	 sync;
		struct kgroup_error_resp err;
	} resp;
};

/* A copy in the arena as a kstr (len 0 on a full arena: caller checks p). */
static struct kstr
kg_dup(struct conn *c, const void *s, size_t len)
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

static struct kg_st *
kg_st_new(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kg_st *st;

	if ((st = conn_alloc(c, sizeof(*st))) == NULL)
		return NULL;
	memset(st, 0, sizeof(*st));
	st->gidx = -1;
	st->member = -1;
	k->kst = st;
	return st;
}

/* Group index of a Kafka group id, created when create; -1 with *err. */
static int
kg_group(struct worker *w, struct kstr id, int create, int16_t *err)
{
	char esc[LOG_ESC_SIZE(GROUP_NAME_MAX)];
	size_t len = id.len > 0 ? (size_t)id.len : 0;
	enum op_err e;
	int gidx = -1;

	if (w->shm->hdr->limits.max_groups == 0) {
		*err = KERR_COORDINATOR_NOT_AVAILABLE;
		return -1;
	}
	e = create ? op_group_create(w, id.p, len, 1, &gidx) :
	    op_group_find(w, id.p, len, OP_UNKNOWN_MEMBER, &gidx);
	switch (e) {
	case OP_OK:
		return gidx;
	case OP_UNKNOWN_MEMBER:
		*err = KERR_UNKNOWN_MEMBER_ID;
		return -1;
	case OP_NO_ROOM:
		*err = KERR_COORDINATOR_NOT_AVAILABLE;
		log_warnx("group %s: no room (max_groups %u)",
		    log_escape(esc, sizeof(esc), id.p, len),
		    w->shm->hdr->limits.max_groups);
		return -1;
	default:	/* not a valid name */
		*err = KERR_INVALID_GROUP_ID;
		return -1;
	}
}

/* GROUP_AUTHORIZATION_FAILED unless the user of x has perm on group. */
static int16_t
kg_authorize(const struct op_ctx *x, unsigned perm, struct kstr group)
{
	return kafka_op_error(op_access_group(x, perm, group.p, group.len > 0 ?
	    (size_t)group.len : 0));
}

struct kg_sub_check {
	const struct op_ctx	*x;
	const struct kjoin_req	*q;
	int			 denied;
};

/* A subscribed topic the member may not consume: stop, denied. */
static int
kg_sub_topic(const char *name, size_t nlen, void *arg)
{
	struct kg_sub_check *k = arg;
	size_t glen = k->q->group_id.len > 0 ? (size_t)k->q->group_id.len : 0;

	if (op_access_group_topic(k->x, k->q->group_id.p, glen, name,
	    nlen) == OP_OK)
		return 0;
	k->denied = 1;
	return 1;
}

/*
 * kg_authorize, and a consumer's subscriptions name only its topics: a
 * topic denied is GROUP_AUTHORIZATION_FAILED too (the join is refused).
 */
static int16_t
kg_authorize_join(const struct op_ctx *x, const struct kjoin_req *q)
{
	struct kg_sub_check k = { x, q, 0 };
	size_t glen = q->group_id.len > 0 ? (size_t)q->group_id.len : 0;
	int32_t i;
	int16_t err;

	if ((err = kg_authorize(x, AUTH_GROUP_READ, q->group_id)) != KERR_NONE ||
	    !auth_enabled() || !kstr_eq(q->protocol_type, "consumer"))
		return err;
	for (i = 0; i < q->nprotocols && !k.denied; i++) {
		if (kconsumer_subscription_topics(
		    (const uint8_t *)q->protocols[i].data.p,
		    q->protocols[i].data.len > 0 ?
		    (size_t)q->protocols[i].data.len : 0, kg_sub_topic,
		    &k) == -1) {
			(void)op_access_group_topic(x, q->group_id.p, glen,
			    NULL, 0);
			return KERR_GROUP_AUTHORIZATION_FAILED;
		}
	}
	return k.denied ? KERR_GROUP_AUTHORIZATION_FAILED : KERR_NONE;
}

/* ---- FindCoordinator ---- */

void
kafka_find_coord_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kfind_coord_resp *s;
	struct op_ctx x;

	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(s, 0, sizeof(*s));
	/* One broker: it coordinates every group. */
	s->error = w->shm->hdr->limits.max_groups == 0 ?
	    KERR_COORDINATOR_NOT_AVAILABLE : kg_authorize(&x,
	    AUTH_GROUP_DESCRIBE, k->k.find_coord.group_id);
	s->node_id = 0;
	/* The listener the client came in on, as Metadata does. */
	s->host = kstr_c(c->tls != NULL ? w->conf->kafka_tls_adv_host :
	    w->conf->kafka_adv_host);
	s->port = c->tls != NULL ? w->conf->kafka_tls_adv_port :
	    w->conf->kafka_adv_port;
	k->kst = s;
}

void
kafka_find_coord_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	(void)w;
	pos = kafka_resp_begin(c, r);
	kfind_coord_encode_resp(&c->out, k->h.api_version, k->kst);
	kafka_resp_end(c, pos);
}

/* ---- JoinGroup ---- */

static void
join_fail(struct kg_st *st, struct req *r, int16_t err)
{
	memset(&st->resp.join, 0, sizeof(st->resp.join));
	st->resp.join.error = err;
	st->resp.join.generation_id = -1;
	st->resp.join.protocol_name = kstr_c("");
	st->resp.join.leader = kstr_c("");
	st->resp.join.member_id.p = st->id;
	st->resp.join.member_id.len = (int32_t)st->id_len;
	r->state = REQ_DONE;
}

/* Under the lock: the answer for the current generation. */
static int16_t
join_answer(struct worker *w, struct conn *c, struct shm_group *g,
    struct kg_st *st)
{
	struct kjoin_resp *s = &st->resp.join;
	struct kgroup_blob *mb;
	struct shm_member *m;
	const uint8_t *meta;
	uint32_t i, n = 0, max = w->shm->hdr->limits.max_group_members;
	size_t ml;

	memset(s, 0, sizeof(*s));
	s->generation_id = (int32_t)g->generation;
	s->protocol_name = kg_dup(c, g->proto, g->proto_len);
	s->member_id.p = st->id;
	s->member_id.len = (int32_t)st->id_len;
	m = g->leader >= 0 ? group_member_at(w->shm, g, (uint32_t)g->leader) :
	    NULL;
	s->leader = m != NULL ? kg_dup(c, m->id, m->id_len) : kstr_c("");
	if (s->protocol_name.p == NULL || s->leader.p == NULL)
		return KERR_UNKNOWN_SERVER_ERROR;
	if (st->member != g->leader)
		return KERR_NONE;
	/* The leader alone gets every member's subscription. */
	if ((mb = conn_alloc(c, max * sizeof(*mb))) == NULL)
		return KERR_UNKNOWN_SERVER_ERROR;
	for (i = 0; i < max; i++) {
		m = group_member_at(w->shm, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE || m->joined_gen != g->generation)
			continue;
		if (kgroup_member_metadata(w->shm, g, i, &meta, &ml) == -1)
			ml = 0;
		mb[n].name = kg_dup(c, m->id, m->id_len);
		mb[n].data = kg_dup(c, meta, ml);
		if (mb[n].name.p == NULL || mb[n].data.p == NULL)
			return KERR_UNKNOWN_SERVER_ERROR;
		n++;
	}
	s->nmembers = (int32_t)n;
	s->members = mb;
	return KERR_NONE;
}

static void
join_check(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kg_st *st = k->kst;
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0;
	int16_t err;
	int ready;

	op_group_params(w, &gp);
	if ((g = op_group_lock(w, st->gidx, &gp, &s0, &g0)) == NULL) {
		join_fail(st, r, KERR_COORDINATOR_NOT_AVAILABLE);
		return;
	}
	ready = kgroup_join_ready(w->shm, g, st->member, st->id, st->id_len,
	    st->wait_gen, w->now, &gp);
	if (ready == 1) {
		if ((err = join_answer(w, c, g, st)) != KERR_NONE)
			join_fail(st, r, err);
		r->state = REQ_DONE;
	} else if (ready == -1)
		join_fail(st, r, KERR_UNKNOWN_MEMBER_ID);
	else if (w->stopping)
		join_fail(st, r, KERR_NOT_COORDINATOR);	/* it asks again */
	else {
		r->state = REQ_WAIT;
		r->deadline = w->now + KGROUP_POLL_MS;
		if (g->state == GROUP_REBALANCING &&
		    g->rebalance_deadline > w->now &&
		    g->rebalance_deadline < r->deadline)
			r->deadline = g->rebalance_deadline;
	}
	op_group_unlock(w, g, s0, g0);
}

/* The address part of "host:port". */
static size_t
peer_host_len(const char *peer)
{
	const char *colon = strrchr(peer, ':');

	return colon != NULL ? (size_t)(colon - peer) : strlen(peer);
}

void
kafka_join_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kjoin_req *q = &k->k.join;
	struct kgroup_proto *protos;
	struct kgroup_join_in in;
	struct group_params gp;
	struct shm_group *g;
	struct shm_member *m;
	struct kg_st *st;
	char esc[LOG_ESC_SIZE(GROUP_NAME_MAX)];
	struct op_ctx x;
	uint32_t s0, g0;
	int32_t i;
	int16_t err = KERR_NONE;
	int ready = 0;

	if ((st = kg_st_new(c, r)) == NULL) {
		c->dead = 1;
		r->noresp = 1;
		r->state = REQ_DONE;
		return;
	}
	if (q->member_id.len > MEMBER_ID_MAX) {
		join_fail(st, r, KERR_UNKNOWN_MEMBER_ID);
		return;
	}
	if (q->member_id.len > 0) {
		memcpy(st->id, q->member_id.p, (size_t)q->member_id.len);
		st->id_len = (size_t)q->member_id.len;
	}
	/* Before the group exists: a refused join creates nothing. */
	conn_op_ctx(c, r, &x);
	if ((err = kg_authorize_join(&x, q)) != KERR_NONE) {
		join_fail(st, r, err);
		return;
	}
	if ((st->gidx = kg_group(w, q->group_id, 1, &err)) < 0) {
		join_fail(st, r, err);
		return;
	}
	if (q->nprotocols <= 0 || (protos = conn_alloc(c,
	    (size_t)q->nprotocols * sizeof(*protos))) == NULL) {
		join_fail(st, r, KERR_INCONSISTENT_GROUP_PROTOCOL);
		return;
	}
	for (i = 0; i < q->nprotocols; i++) {
		protos[i].name = q->protocols[i].name.p;
		protos[i].name_len = q->protocols[i].name.len > 0 ?
		    (size_t)q->protocols[i].name.len : 0;
		protos[i].meta = (const uint8_t *)q->protocols[i].data.p;
		protos[i].meta_len = q->protocols[i].data.len > 0 ?
		    (size_t)q->protocols[i].data.len : 0;
	}
	memset(&in, 0, sizeof(in));
	in.member_id = st->id;
	in.member_id_len = st->id_len;
	in.client_id = k->h.client_id.p;
	in.client_id_len = k->h.client_id.len > 0 ?
	    (size_t)k->h.client_id.len : 0;
	if (in.client_id_len > CLIENT_ID_MAX)
		in.client_id_len = CLIENT_ID_MAX;
	in.host = c->peer;
	in.host_len = peer_host_len(c->peer);
	in.session_timeout_ms = q->session_timeout_ms;
	in.rebalance_timeout_ms = q->rebalance_timeout_ms;
	in.ptype = q->protocol_type.p;
	in.ptype_len = q->protocol_type.len > 0 ?
	    (size_t)q->protocol_type.len : 0;
	in.protos = protos;
	in.nprotos = (uint32_t)q->nprotocols;
	op_group_params(w, &gp);
	/* By name: the slot may have been deleted and reused since kg_group. */
	if ((g = op_group_lock_name(w, st->gidx, q->group_id.p,
	    (size_t)q->group_id.len, &gp, &s0, &g0)) == NULL) {
		join_fail(st, r, KERR_COORDINATOR_NOT_AVAILABLE);
		return;
	}
	st->wait_gen = g->generation;
	err = kgroup_join(w->shm, g, &in, w->now, &gp, &st->member, &ready);
	if (err == KERR_NONE) {
		m = group_member_at(w->shm, g, (uint32_t)st->member);
		st->id_len = m->id_len;
		memcpy(st->id, m->id, m->id_len);
		st->id[st->id_len] = '\0';
		if (ready && (err = join_answer(w, c, g, st)) == KERR_NONE)
			r->state = REQ_DONE;
	}
	op_group_unlock(w, g, s0, g0);
	if (err == KERR_MESSAGE_TOO_LARGE)
		log_warnx("%s: group %s: JoinGroup refused, its protocols "
		    "exceed max_group_member_metadata (%u bytes)", c->peer,
		    log_escape(esc, sizeof(esc), q->group_id.p,
		    (size_t)q->group_id.len), w->shm->hdr->limits.member_meta);
	if (err != KERR_NONE) {
		join_fail(st, r, err);
		return;
	}
	if (!ready)
		join_check(w, c, r);
}

void
kafka_join_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (r->state == REQ_WAIT && k->kst != NULL)
		join_check(w, c, r);
}

void
kafka_join_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kg_st *st = k->kst;
	size_t pos;

	(void)w;
	if (st == NULL) {
		c->dead = 1;
		return;
	}
	pos = kafka_resp_begin(c, r);
	kjoin_encode_resp(&c->out, k->h.api_version, &st->resp.join);
	kafka_resp_end(c, pos);
}

/* ---- SyncGroup ---- */

static void
sync_done(struct kg_st *st, struct req *r, int16_t err)
{
	memset(&st->resp.sync, 0, sizeof(st->resp.sync));
	st->resp.sync.error = err;
	st->resp.sync.assignment = kstr_c("");
	r->state = REQ_DONE;
}

/* Under the lock: the member's assignment into the answer. */
static void
sync_answer(struct worker *w, struct conn *c, struct shm_group *g,
    struct kg_st *st, struct req *r)
{
	struct shm_member *m = group_member_at(w->shm, g, (uint32_t)st->member);
	size_t n = m->assign_len <= w->shm->hdr->limits.member_meta ?
	    m->assign_len : 0;

	sync_done(st, r, KERR_NONE);
	st->resp.sync.assignment = kg_dup(c, group_assign(w->shm, g,
	    (uint32_t)st->member), n);
	if (st->resp.sync.assignment.p == NULL)
		sync_done(st, r, KERR_UNKNOWN_SERVER_ERROR);
}

/* A follower's SyncGroup waiting for the leader's assignment. */
void
kafka_sync_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kg_st *st = k->kst;
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0;
	int16_t err = KERR_NONE;
	int rc;

	if (r->state != REQ_WAIT || st == NULL)
		return;
	op_group_params(w, &gp);
	if ((g = op_group_lock(w, st->gidx, &gp, &s0, &g0)) == NULL) {
		sync_done(st, r, KERR_COORDINATOR_NOT_AVAILABLE);
		return;
	}
	rc = kgroup_sync_ready(w->shm, g, st->member, st->id, st->id_len,
	    st->generation, w->now, &gp, &err);
	if (rc == 1)
		sync_answer(w, c, g, st, r);
	else if (rc == -1)
		sync_done(st, r, err);
	else if (w->stopping)
		sync_done(st, r, KERR_NOT_COORDINATOR);
	else
		r->deadline = w->now + KGROUP_POLL_MS;
	op_group_unlock(w, g, s0, g0);
}

void
kafka_sync_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct ksync_req *q = &k->k.sync;
	struct kgroup_assign_in *a = NULL;
	struct group_params gp;
	struct shm_group *g;
	struct kg_st *st;
	struct op_ctx x;
	char esc[LOG_ESC_SIZE(GROUP_NAME_MAX)];
	uint32_t s0, g0;
	int32_t i;
	int16_t err = KERR_NONE;
	int ready = 0;

	op_group_params(w, &gp);
	if ((st = kg_st_new(c, r)) == NULL) {
		c->dead = 1;
		r->noresp = 1;
		r->state = REQ_DONE;
		return;
	}
	conn_op_ctx(c, r, &x);
	if ((err = kg_authorize(&x, AUTH_GROUP_READ, q->group_id)) != KERR_NONE) {
		sync_done(st, r, err);
		return;
	}
	if (q->member_id.len <= 0 || q->member_id.len > MEMBER_ID_MAX) {
		sync_done(st, r, KERR_UNKNOWN_MEMBER_ID);
		return;
	}
	memcpy(st->id, q->member_id.p, (size_t)q->member_id.len);
	st->id_len = (size_t)q->member_id.len;
	st->generation = q->generation_id;
	if ((st->gidx = kg_group(w, q->group_id, 0, &err)) < 0) {
		sync_done(st, r, err);
		return;
	}
	if (q->nassign > 0 && (a = conn_alloc(c, (size_t)q->nassign *
	    sizeof(*a))) == NULL) {
		sync_done(st, r, KERR_UNKNOWN_SERVER_ERROR);
		return;
	}
	for (i = 0; i < q->nassign; i++) {
		a[i].member_id = q->assign[i].name.p;
		a[i].member_id_len = q->assign[i].name.len > 0 ?
		    (size_t)q->assign[i].name.len : 0;
		a[i].data = (const uint8_t *)q->assign[i].data.p;
		a[i].len = q->assign[i].data.len > 0 ?
		    (size_t)q->assign[i].data.len : 0;
	}
	if ((g = op_group_lock(w, st->gidx, &gp, &s0, &g0)) == NULL) {
		sync_done(st, r, KERR_COORDINATOR_NOT_AVAILABLE);
		return;
	}
	err = kgroup_sync(w->shm, g, st->id, st->id_len, st->generation, a,
	    q->nassign > 0 ? (uint32_t)q->nassign : 0, w->now, &gp,
	    &st->member, &ready);
	if (err != KERR_NONE)
		sync_done(st, r, err);
	else if (ready)
		sync_answer(w, c, g, st, r);
	else {
		r->state = REQ_WAIT;
		r->deadline = w->now + KGROUP_POLL_MS;
	}
	op_group_unlock(w, g, s0, g0);
	if (err == KERR_MESSAGE_TOO_LARGE)
		log_warnx("%s: group %s: SyncGroup refused, an assignment "
		    "exceeds max_group_member_metadata (%u bytes)", c->peer,
		    log_escape(esc, sizeof(esc), q->group_id.p,
		    (size_t)q->group_id.len), w->shm->hdr->limits.member_meta);
}

void
kafka_sync_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kg_st *st = k->kst;
	size_t pos;

	(void)w;
	if (st == NULL) {
		c->dead = 1;
		return;
	}
	pos = kafka_resp_begin(c, r);
	ksync_encode_resp(&c->out, k->h.api_version, &st->resp.sync);
	kafka_resp_end(c, pos);
}

/* ---- Heartbeat and LeaveGroup ---- */

/*
 * Heartbeat (generation) or LeaveGroup (leave) of member id in group:
 * r answered with a Kafka error code.
 */
static void
member_op(struct worker *w, struct conn *c, struct req *r, struct kstr group,
    struct kstr id, int32_t generation, int leave)
{
	struct group_params gp;
	struct shm_group *g;
	struct kg_st *st;
	struct op_ctx x;
	uint32_t s0, g0;
	int16_t err = KERR_NONE;

	if ((st = kg_st_new(c, r)) == NULL) {
		c->dead = 1;
		r->noresp = 1;
		r->state = REQ_DONE;
		return;
	}
	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((st->resp.err.error = kg_authorize(&x, AUTH_GROUP_READ, group)) !=
	    KERR_NONE)
		return;
	if (id.len <= 0 || id.len > MEMBER_ID_MAX) {
		st->resp.err.error = KERR_UNKNOWN_MEMBER_ID;
		return;
	}
	if ((st->gidx = kg_group(w, group, 0, &err)) < 0) {
		st->resp.err.error = err;
		return;
	}
	op_group_params(w, &gp);
	if ((g = op_group_lock(w, st->gidx, &gp, &s0, &g0)) == NULL) {
		st->resp.err.error = KERR_COORDINATOR_NOT_AVAILABLE;
		return;
	}
	if (leave)
		err = kgroup_leave(w->shm, g, id.p, (size_t)id.len, w->now, &gp);
	else
		err = kgroup_heartbeat(w->shm, g, id.p, (size_t)id.len,
		    generation, w->now, &gp);
	op_group_unlock(w, g, s0, g0);
	st->resp.err.error = err;
}

void
kafka_heartbeat_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	member_op(w, c, r, k->k.heartbeat.group_id, k->k.heartbeat.member_id,
	    k->k.heartbeat.generation_id, 0);
}

void
kafka_leave_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	member_op(w, c, r, k->k.leave.group_id, k->k.leave.member_id, 0, 1);
}

void
kafka_member_op_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kg_st *st = k->kst;
	size_t pos;

	(void)w;
	if (st == NULL) {
		c->dead = 1;
		return;
	}
	pos = kafka_resp_begin(c, r);
	kgroup_error_encode_resp(&c->out, k->h.api_version, &st->resp.err);
	kafka_resp_end(c, pos);
}
