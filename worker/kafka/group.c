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
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_join.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "store/topic.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/op/access.h"
#include "worker/op/group.h"
#include "worker/kafka/cgmigrate.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/group.h"
#include "worker/worker.h"

#define KGROUP_POLL_MS	1000	/* a lost wake-up costs a parked request at most this */

/*
 * Per-request state of a group request, and its answer: first, so that
 * k->kst is the answer kafka_group_emit() sends.
 */
struct kg_st {
	union {
		struct km_join_resp	 join;
		struct km_sync_resp	 sync;
		struct km_heartbeat_resp hb;
		struct km_leave_resp	 leave;
	} resp;
	int			 gidx;
	int			 member;
	uint32_t		 wait_gen;
	int32_t			 generation;	/* SyncGroup */
	int			 replaced;	/* JoinGroup: a static member's restart */
	char			 id[MEMBER_ID_MAX + 1];
	size_t			 id_len;
};

/* A request's group_instance_id: NULL when null or absent (dynamic). */
static const char *
kg_inst(struct kstr inst, size_t *len)
{
	*len = inst.len > 0 ? (size_t)inst.len : 0;
	return inst.len > 0 ? inst.p : NULL;
}

static const struct kstr kg_null = { NULL, -1 };

struct kstr
kafka_group_dup(struct conn *c, const void *s, size_t len)
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
	const struct km_join_req *q;
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
kg_authorize_join(const struct op_ctx *x, const struct km_join_req *q)
{
	const struct km_join_protocol *pr = q->protocols.v;
	struct kg_sub_check k = { x, q, 0 };
	size_t glen = q->group_id.len > 0 ? (size_t)q->group_id.len : 0;
	int32_t i;
	int16_t err;

	if ((err = kg_authorize(x, AUTH_GROUP_READ, q->group_id)) != KERR_NONE ||
	    !auth_enabled() || !kstr_eq(q->protocol_type, "consumer"))
		return err;
	for (i = 0; i < q->protocols.n && !k.denied; i++) {
		if (kconsumer_subscription_topics(
		    (const uint8_t *)pr[i].metadata.p,
		    pr[i].metadata.len > 0 ? (size_t)pr[i].metadata.len : 0,
		    kg_sub_topic, &k) == -1) {
			(void)op_access_group_topic(x, q->group_id.p, glen,
			    NULL, 0);
			return KERR_GROUP_AUTHORIZATION_FAILED;
		}
	}
	return k.denied ? KERR_GROUP_AUTHORIZATION_FAILED : KERR_NONE;
}

/*
 * Every group request's answer: k->kst, the response of the row's
 * description (a kg_st's is its first member).
 */
void
kafka_group_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	(void)w;
	if (k->kst == NULL) {
		c->dead = 1;
		return;
	}
	kafka_emit_desc(c, r, k->kst);
}

/* ---- FindCoordinator ---- */

/*
 * One key's coordinator into co: this broker for a group (key type 0)
 * and for a transactional id (1, unless max_transactions is 0); other types are
 * Kafka's INVALID_REQUEST.  An error answers node -1, host "", port -1
 * and Kafka's message, as Kafka does.
 */
static void
find_coord_one(struct worker *w, struct conn *c, const struct op_ctx *x,
    struct kstr key, int8_t key_type, struct km_coordinator *co)
{
	co->key = key;
	co->error_code = KERR_NONE;
	co->error_message = kg_null;
	if (key_type == 1) {
		/* The transaction coordinator (worker/kafka/txn.c) is here too. */
		if (w->shm->hdr->limits.max_txns == 0) {
			co->error_code = KERR_COORDINATOR_NOT_AVAILABLE;
			co->error_message = kstr_c("Transactions are off: "
			    "max_transactions is 0");
		}
	} else if (key_type != 0) {
		co->error_code = KERR_INVALID_REQUEST;
		co->error_message = kstr_c("Unknown coordinator type");
	} else if (w->shm->hdr->limits.max_groups == 0) {
		co->error_code = KERR_COORDINATOR_NOT_AVAILABLE;
		co->error_message = kstr_c("The coordinator is not "
		    "available.");
	} else if ((co->error_code = kg_authorize(x, AUTH_GROUP_DESCRIBE,
	    key)) != KERR_NONE)
		co->error_message = kstr_c("Not authorized to access group: "
		    "Group authorization failed.");
	if (co->error_code != KERR_NONE) {
		co->node_id = -1;
		co->host = kstr_c("");
		co->port = -1;
		return;
	}
	/* One broker, the listener the client came in on (as Metadata). */
	co->node_id = 0;
	co->host = kstr_c(c->tls != NULL ? w->conf->kafka_tls_adv_host :
	    w->conf->kafka_adv_host);
	co->port = c->tls != NULL ? w->conf->kafka_tls_adv_port :
	    w->conf->kafka_adv_port;
}

/* v0-3 ask for one key, v4 and later for a batch answered per key. */
void
kafka_find_coord_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_findcoord_req *q = k->body;
	const struct kstr *keys = q->coordinator_keys.v;
	struct km_findcoord_resp *s;
	struct km_coordinator one, *co = NULL;
	struct op_ctx x;
	int32_t i, n = q->coordinator_keys.n > 0 ? q->coordinator_keys.n : 0;

	r->state = REQ_DONE;
	conn_op_ctx(c, r, &x);
	if ((s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (n > 0 && (co = conn_alloc(c, (size_t)n * sizeof(*co))) == NULL)) {
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_find_coordinator.km_resp, s);
	k->kst = s;
	if (k->h.api_version >= 4) {
		for (i = 0; i < n; i++)
			find_coord_one(w, c, &x, keys[i], q->key_type, &co[i]);
		s->coordinators.n = n;
		s->coordinators.v = co;
		return;
	}
	find_coord_one(w, c, &x, q->key, q->key_type, &one);
	s->error_code = one.error_code;
	s->error_message = one.error_message;
	s->node_id = one.node_id;
	s->host = one.host;
	s->port = one.port;
}

/* ---- JoinGroup ---- */

/*
 * An answer without a generation: generation -1, no protocol (null from
 * v7, "" before, as Kafka), the member id asked for (or the one
 * MEMBER_ID_REQUIRED gives).
 */
static void
join_fail(struct kg_st *st, struct req *r, int16_t err)
{
	struct kafka_req *k = r->dec;
	struct km_join_resp *s = &st->resp.join;

	kdesc_defaults(kmsg_join_group.km_resp, s);
	s->error_code = err;
	s->protocol_name = k->h.api_version >= 7 ? kg_null : kstr_c("");
	s->member_id.p = st->id;
	s->member_id.len = (int32_t)st->id_len;
	r->state = REQ_DONE;
}

/* Under the lock: the answer for the current generation. */
static int16_t
join_answer(struct worker *w, struct conn *c, struct shm_group *g,
    struct kg_st *st)
{
	struct km_join_resp *s = &st->resp.join;
	struct km_join_member *mb;
	struct shm_member *m;
	const uint8_t *meta;
	uint32_t i, n = 0, max = w->shm->hdr->limits.max_group_members;
	size_t ml;

	kdesc_defaults(kmsg_join_group.km_resp, s);
	s->generation_id = (int32_t)g->generation;
	s->protocol_type = kafka_group_dup(c, g->ptype, g->ptype_len);
	s->protocol_name = kafka_group_dup(c, g->proto, g->proto_len);
	s->member_id.p = st->id;
	s->member_id.len = (int32_t)st->id_len;
	m = g->leader >= 0 ? group_member_at(w->shm, g, (uint32_t)g->leader) :
	    NULL;
	s->leader = m != NULL ? kafka_group_dup(c, m->id, m->id_len) : kstr_c("");
	if (s->protocol_type.p == NULL || s->protocol_name.p == NULL ||
	    s->leader.p == NULL)
		return KERR_UNKNOWN_SERVER_ERROR;
	if (st->member != g->leader)
		return KERR_NONE;
	/*
	 * A static leader's restart in a STABLE group: it learns it leads
	 * but must not assign (KIP-814; before v9 its SyncGroup in a
	 * STABLE group just gets its assignment back).
	 */
	s->skip_assignment = st->replaced ? 1 : 0;
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
		mb[n].member_id = kafka_group_dup(c, m->id, m->id_len);
		mb[n].group_instance_id = m->instance_len > 0 &&
		    m->instance_len <= KGROUP_INSTANCE_MAX ? kafka_group_dup(c,
		    m->instance, m->instance_len) : kg_null;
		if (m->instance_len > 0 && mb[n].group_instance_id.p == NULL)
			return KERR_UNKNOWN_SERVER_ERROR;
		mb[n].metadata = kafka_group_dup(c, meta, ml);
		if (mb[n].member_id.p == NULL || mb[n].metadata.p == NULL)
			return KERR_UNKNOWN_SERVER_ERROR;
		n++;
	}
	s->members.n = (int32_t)n;
	s->members.v = mb;
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
		/* Upgraded while it waited: Kafka's completeAllJoinFutures. */
		join_fail(st, r, g->kind == GROUP_KIND_CONSUMER ?
		    KERR_REBALANCE_IN_PROGRESS : KERR_UNKNOWN_MEMBER_ID);
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

/*
 * Under the lock: a classic member joins consumer group g (shm/cgroup.h).
 * Its answer: its member epoch as the generation, protocol type
 * "consumer", its first protocol, no leader and no members (it syncs
 * as a follower), as Kafka's.
 */
static int16_t
join_consumer(struct worker *w, struct conn *c, struct shm_group *g,
    struct kg_st *st, const struct kgroup_join_in *in)
{
	struct km_join_resp *s = &st->resp.join;
	struct cg_classic_member sub;
	struct group_params gp;
	struct shm_member *m;
	const char *name;
	size_t nl;
	int16_t err;

	op_group_params(w, &gp);
	if (in->ptype_len != 8 || memcmp(in->ptype, "consumer", 8) != 0)
		return KERR_INCONSISTENT_GROUP_PROTOCOL;
	/* Every protocol carries the same subscription: the first's. */
	if (kafka_cg_decode(w, c, in->protos[0].meta, in->protos[0].meta_len,
	    NULL, 0, &sub) == -1)
		return KERR_INCONSISTENT_GROUP_PROTOCOL;
	if ((err = cgroup_classic_join(w->shm, g, in, &sub, w->now, &gp,
	    &st->member)) != KERR_NONE)
		return err;
	m = group_member_at(w->shm, g, (uint32_t)st->member);
	st->id_len = m->id_len;
	memcpy(st->id, m->id, m->id_len);
	st->id[st->id_len] = '\0';
	kdesc_defaults(kmsg_join_group.km_resp, s);
	s->generation_id = m->cg_epoch;
	s->protocol_type = kstr_c("consumer");
	if (cgroup_classic_protocol(w->shm, g, (uint32_t)st->member, &name, &nl,
	    NULL, NULL) == -1)
		return KERR_UNKNOWN_SERVER_ERROR;
	s->protocol_name = kafka_group_dup(c, name, nl);
	s->member_id.p = st->id;
	s->member_id.len = (int32_t)st->id_len;
	s->leader = kstr_c("");
	return s->protocol_name.p == NULL ? KERR_UNKNOWN_SERVER_ERROR :
	    KERR_NONE;
}

size_t
kafka_peer_host_len(const char *peer)
{
	const char *colon = strrchr(peer, ':');

	return colon != NULL ? (size_t)(colon - peer) : strlen(peer);
}

/*
 * From v4 a new dynamic member (empty id) is answered MEMBER_ID_REQUIRED
 * with its id and joins again with it (KIP-394), as Kafka does; before
 * v4, and a static member (v5+ with a group_instance_id, KIP-345), joins
 * at once (shm/kgroup.h for the static rules).
 */
void
kafka_join_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_join_req *q = k->body;
	const struct km_join_protocol *pr = q->protocols.v;
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
	if (q->protocols.n <= 0 || (protos = conn_alloc(c,
	    (size_t)q->protocols.n * sizeof(*protos))) == NULL) {
		join_fail(st, r, KERR_INCONSISTENT_GROUP_PROTOCOL);
		return;
	}
	for (i = 0; i < q->protocols.n; i++) {
		protos[i].name = pr[i].name.p;
		protos[i].name_len = pr[i].name.len > 0 ?
		    (size_t)pr[i].name.len : 0;
		protos[i].meta = (const uint8_t *)pr[i].metadata.p;
		protos[i].meta_len = pr[i].metadata.len > 0 ?
		    (size_t)pr[i].metadata.len : 0;
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
	in.host_len = kafka_peer_host_len(c->peer);
	in.session_timeout_ms = q->session_timeout_ms;
	in.rebalance_timeout_ms = q->rebalance_timeout_ms;
	in.ptype = q->protocol_type.p;
	in.ptype_len = q->protocol_type.len > 0 ?
	    (size_t)q->protocol_type.len : 0;
	in.protos = protos;
	in.nprotos = (uint32_t)q->protocols.n;
	in.require_id = k->h.api_version >= 4;
	in.pending = st->id;
	in.pending_len = &st->id_len;
	in.instance = kg_inst(q->group_instance_id, &in.instance_len);
	in.replaced = &st->replaced;
	op_group_params(w, &gp);
	/* By name: the slot may have been deleted and reused since kg_group. */
	if ((g = op_group_lock_name(w, st->gidx, q->group_id.p,
	    (size_t)q->group_id.len, &gp, &s0, &g0)) == NULL) {
		join_fail(st, r, KERR_COORDINATOR_NOT_AVAILABLE);
		return;
	}
	st->wait_gen = g->generation;
	if (g->kind == GROUP_KIND_CONSUMER &&
	    group_member_count(w->shm, g) > 0) {
		/* Kafka's classicGroupJoinToConsumerGroup: answered at once. */
		err = join_consumer(w, c, g, st, &in);
		op_group_unlock(w, g, s0, g0);
		if (err != KERR_NONE)
			join_fail(st, r, err);
		else
			r->state = REQ_DONE;
		return;
	}
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

/* ---- SyncGroup ---- */

/* An answer without an assignment: no protocol (null in v5, as Kafka). */
static void
sync_done(struct kg_st *st, struct req *r, int16_t err)
{
	kdesc_defaults(kmsg_sync_group.km_resp, &st->resp.sync);
	st->resp.sync.error_code = err;
	st->resp.sync.protocol_type = kg_null;
	st->resp.sync.protocol_name = kg_null;
	r->state = REQ_DONE;
}

/* Under the lock: the member's assignment and the protocol into the answer. */
static void
sync_answer(struct worker *w, struct conn *c, struct shm_group *g,
    struct kg_st *st, struct req *r)
{
	struct km_sync_resp *s = &st->resp.sync;
	struct shm_member *m = group_member_at(w->shm, g, (uint32_t)st->member);
	size_t n = m->assign_len <= w->shm->hdr->limits.member_meta ?
	    m->assign_len : 0;

	sync_done(st, r, KERR_NONE);
	s->assignment = kafka_group_dup(c, group_assign(w->shm, g,
	    (uint32_t)st->member), n);
	s->protocol_type = kafka_group_dup(c, g->ptype, g->ptype_len);
	s->protocol_name = kafka_group_dup(c, g->proto, g->proto_len);
	if (s->assignment.p == NULL || s->protocol_type.p == NULL ||
	    s->protocol_name.p == NULL)
		sync_done(st, r, KERR_UNKNOWN_SERVER_ERROR);
}

/* Does a SyncGroup v5's protocol type or name (when given) differ from g's? */
static int
sync_protocol_differs(const struct shm_group *g, const struct km_sync_req *q)
{
	return (q->protocol_type.len >= 0 &&
	    ((size_t)q->protocol_type.len != g->ptype_len ||
	    memcmp(q->protocol_type.p, g->ptype, g->ptype_len) != 0)) ||
	    (q->protocol_name.len >= 0 &&
	    ((size_t)q->protocol_name.len != g->proto_len ||
	    memcmp(q->protocol_name.p, g->proto, g->proto_len) != 0));
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
	if (rc == -1 && g->kind == GROUP_KIND_CONSUMER)
		err = KERR_REBALANCE_IN_PROGRESS;	/* upgraded meanwhile */
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

/*
 * v5 names the protocol type and name the member expects: a member of
 * the generation whose names differ from the group's gets
 * INCONSISTENT_GROUP_PROTOCOL (after the member and generation checks,
 * as Kafka).  A group_instance_id (v3) held by another member id is
 * FENCED_INSTANCE_ID.
 */
void
kafka_sync_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_sync_req *q = k->body;
	const struct km_sync_assignment *qa = q->assignments.v;
	struct kgroup_assign_in *a = NULL;
	struct group_params gp;
	struct shm_group *g;
	struct kg_st *st;
	struct op_ctx x;
	char esc[LOG_ESC_SIZE(GROUP_NAME_MAX)];
	uint32_t s0, g0;
	const char *inst;
	size_t ilen;
	int32_t i;
	int16_t err = KERR_NONE;
	int ready = 0, answered = 0;

	op_group_params(w, &gp);
	inst = kg_inst(q->group_instance_id, &ilen);
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
	if (q->assignments.n > 0 && (a = conn_alloc(c,
	    (size_t)q->assignments.n * sizeof(*a))) == NULL) {
		sync_done(st, r, KERR_UNKNOWN_SERVER_ERROR);
		return;
	}
	for (i = 0; i < q->assignments.n; i++) {
		a[i].member_id = qa[i].member_id.p;
		a[i].member_id_len = qa[i].member_id.len > 0 ?
		    (size_t)qa[i].member_id.len : 0;
		a[i].data = (const uint8_t *)qa[i].assignment.p;
		a[i].len = qa[i].assignment.len > 0 ?
		    (size_t)qa[i].assignment.len : 0;
	}
	if ((g = op_group_lock(w, st->gidx, &gp, &s0, &g0)) == NULL) {
		sync_done(st, r, KERR_COORDINATOR_NOT_AVAILABLE);
		return;
	}
	(void)group_tick(w->shm, g, w->now, &gp);
	if (g->kind == GROUP_KIND_CONSUMER &&
	    group_member_count(w->shm, g) > 0) {
		/* Kafka's classicGroupSyncToConsumerGroup. */
		err = cgroup_classic_sync(w->shm, g, st->id, st->id_len, inst,
		    ilen, st->generation, q->protocol_type.len >= 0 ?
		    q->protocol_type.p : NULL, q->protocol_type.len > 0 ?
		    (size_t)q->protocol_type.len : 0, q->protocol_name.len >= 0 ?
		    q->protocol_name.p : NULL, q->protocol_name.len > 0 ?
		    (size_t)q->protocol_name.len : 0, w->now, &gp, &st->member);
		answered = 1;
		if (err == KERR_NONE) {
			sync_done(st, r, KERR_NONE);
			st->resp.sync.assignment = kafka_cg_assignment(w, c, g,
			    (uint32_t)st->member);
			st->resp.sync.protocol_type = q->protocol_type;
			st->resp.sync.protocol_name = q->protocol_name;
			if (st->resp.sync.assignment.p == NULL)
				sync_done(st, r, KERR_UNKNOWN_SERVER_ERROR);
		} else
			sync_done(st, r, err);
	} else if (g->kind == GROUP_KIND_KAFKA &&
	    (uint32_t)st->generation == g->generation &&
	    group_member_find(w->shm, g, st->id, st->id_len) >= 0 &&
	    (inst == NULL || kgroup_instance_find(w->shm, g, inst, ilen) ==
	    group_member_find(w->shm, g, st->id, st->id_len)) &&
	    sync_protocol_differs(g, q))
		err = KERR_INCONSISTENT_GROUP_PROTOCOL;
	else
		err = kgroup_sync(w->shm, g, st->id, st->id_len, inst, ilen,
		    st->generation, a, q->assignments.n > 0 ?
		    (uint32_t)q->assignments.n : 0, w->now, &gp, &st->member,
		    &ready);
	if (answered)
		;	/* above (a consumer group) */
	else if (err != KERR_NONE)
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

/* ---- Heartbeat and LeaveGroup ---- */

/*
 * Heartbeat (generation) or LeaveGroup (leave) of member id in the group
 * at gidx: a Kafka error code.
 */
static int16_t
member_op(struct worker *w, int gidx, struct kstr id, struct kstr instance,
    int32_t generation, int leave)
{
	struct group_params gp;
	struct shm_group *g;
	const char *inst;
	size_t ilen;
	uint32_t s0, g0;
	int16_t err;

	inst = kg_inst(instance, &ilen);
	/* A LeaveGroup v3+ may name a member by its instance id alone. */
	if (id.len > MEMBER_ID_MAX || (id.len <= 0 && (!leave ||
	    inst == NULL)))
		return KERR_UNKNOWN_MEMBER_ID;
	op_group_params(w, &gp);
	if ((g = op_group_lock(w, gidx, &gp, &s0, &g0)) == NULL)
		return KERR_COORDINATOR_NOT_AVAILABLE;
	(void)group_tick(w->shm, g, w->now, &gp);
	if (g->kind == GROUP_KIND_CONSUMER && leave)
		/* Kafka's classicGroup*ToConsumerGroup */
		err = cgroup_classic_leave(w->shm, g, id.p, id.len > 0 ?
		    (size_t)id.len : 0, inst, ilen, w->now, &gp);
	else if (g->kind == GROUP_KIND_CONSUMER)
		err = cgroup_classic_heartbeat(w->shm, g, id.p, (size_t)id.len,
		    inst, ilen, generation, w->now, &gp);
	else if (leave)
		err = kgroup_leave(w->shm, g, id.p, id.len > 0 ?
		    (size_t)id.len : 0, inst, ilen, w->now, &gp);
	else
		err = kgroup_heartbeat(w->shm, g, id.p, (size_t)id.len, inst,
		    ilen, generation, w->now, &gp);
	op_group_unlock(w, g, s0, g0);
	return err;
}

/* The group of a Heartbeat or LeaveGroup v0-2 and the member's error. */
static int16_t
member_request(struct worker *w, struct conn *c, struct req *r,
    struct kstr group, struct kstr id, struct kstr inst, int32_t generation,
    int leave)
{
	struct op_ctx x;
	int16_t err;
	int gidx;

	conn_op_ctx(c, r, &x);
	if ((err = kg_authorize(&x, AUTH_GROUP_READ, group)) != KERR_NONE)
		return err;
	if (id.len <= 0 || id.len > MEMBER_ID_MAX)
		return KERR_UNKNOWN_MEMBER_ID;
	if ((gidx = kg_group(w, group, 0, &err)) < 0)
		return err;
	return member_op(w, gidx, id, inst, generation, leave);
}

/* v3+: the member's group_instance_id, checked as Kafka (FENCED_INSTANCE_ID). */
void
kafka_heartbeat_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_heartbeat_req *q = k->body;
	struct kg_st *st;

	r->state = REQ_DONE;
	if ((st = kg_st_new(c, r)) == NULL) {
		c->dead = 1;
		r->noresp = 1;
		return;
	}
	kdesc_defaults(kmsg_heartbeat.km_resp, &st->resp.hb);
	st->resp.hb.error_code = member_request(w, c, r, q->group_id,
	    q->member_id, q->group_instance_id, q->generation_id, 0);
}

/*
 * v0-2 leave one member, v3 and later a batch, each answered with its
 * error (a member may be named by its group_instance_id alone; one
 * naming an instance another member id holds is FENCED_INSTANCE_ID).  A group that does not exist has none of them (top level
 * NONE, each UNKNOWN_MEMBER_ID, as Kafka); a group-wide failure is the
 * top level error alone.
 */
void
kafka_leave_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_leave_req *q = k->body;
	const struct km_leave_member *qm = q->members.v;
	struct km_leave_member_resp *rm = NULL;
	struct km_leave_resp *s;
	struct kg_st *st;
	struct op_ctx x;
	int32_t i, n = q->members.n > 0 ? q->members.n : 0;
	int16_t err = KERR_NONE;
	int gidx;

	r->state = REQ_DONE;
	if ((st = kg_st_new(c, r)) == NULL ||
	    (n > 0 && (rm = conn_alloc(c, (size_t)n * sizeof(*rm))) == NULL)) {
		c->dead = 1;
		r->noresp = 1;
		return;
	}
	s = &st->resp.leave;
	kdesc_defaults(kmsg_leave_group.km_resp, s);
	if (k->h.api_version < 3) {
		s->error_code = member_request(w, c, r, q->group_id,
		    q->member_id, kg_null, 0, 1);
		return;
	}
	conn_op_ctx(c, r, &x);
	if ((s->error_code = kg_authorize(&x, AUTH_GROUP_READ,
	    q->group_id)) != KERR_NONE)
		return;
	if ((gidx = kg_group(w, q->group_id, 0, &err)) < 0 &&
	    err != KERR_UNKNOWN_MEMBER_ID) {
		s->error_code = err;
		return;
	}
	for (i = 0; i < n; i++) {
		rm[i].member_id = qm[i].member_id;
		rm[i].group_instance_id = qm[i].group_instance_id;
		rm[i].error_code = gidx < 0 ? KERR_UNKNOWN_MEMBER_ID :
		    member_op(w, gidx, qm[i].member_id,
		    qm[i].group_instance_id, 0, 1);
	}
	s->members.n = n;
	s->members.v = rm;
}
