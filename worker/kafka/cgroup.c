/*
 * Kafka's consumer group protocol (KIP-848) in a worker:
 * ConsumerGroupHeartbeat and ConsumerGroupDescribe over the shared
 * groups table (the state machine is shm/cgroup.c).  As the classic
 * coordinator (worker/kafka/group.c), each request takes the group's
 * robust lock for a few loads and stores and copies what its answer
 * needs into the connection's arena before unlocking.  Nothing parks: a
 * member learns of a new target assignment at its next heartbeat, every
 * group_consumer_heartbeat_interval_ms.
 *
 * The request's shape is checked first, as Kafka's
 * throwIfConsumerGroupHeartbeatRequestIsInvalid does (INVALID_REQUEST,
 * UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION), before the group is
 * touched.  Owned partitions come as topic ids; an id this broker does
 * not know is left out, as Kafka does.
 */
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_cgroup.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/kafka/cgmigrate.h"
#include "worker/kafka/cgroup.h"
#include "worker/kafka/group.h"
#include "worker/kafka/kafka.h"
#include "worker/op/access.h"
#include "worker/op/group.h"
#include "worker/worker.h"

static const struct kstr cg_null = { NULL, -1 };

/* The index of the READY topic with this id, or -1. */
static int
topic_by_id(const struct shm *s, const uint8_t id[16])
{
	const struct shm_topic *t;
	uint32_t i;

	for (i = 0; i < s->hdr->limits.max_topics; i++) {
		t = &s->topics[i];
		if (atomic_load_explicit(&t->state, memory_order_acquire) ==
		    TOPIC_READY && memcmp(t->id, id, 16) == 0)
			return (int)i;
	}
	return -1;
}

/*
 * A list of partitions (sorted by topic as the assignor writes them)
 * as Kafka's TopicPartitions, one entry per topic: the heartbeat's
 * (names 0, km_cg_tp) or the describe's (names 1, km_cgd_tp).  0 or -1.
 */
static int
tp_group(struct worker *w, struct conn *c, const struct cg_tp *v, uint32_t n,
    int names, struct karray *out)
{
	struct km_cg_tp *a = NULL;
	struct km_cgd_tp *b = NULL;
	const struct shm_topic *t;
	int32_t *parts;
	uint32_t i, j, k, nt = 0;

	out->n = 0;
	out->v = NULL;
	if (n == 0)
		return 0;
	if ((names ? (void *)(b = conn_alloc(c, n * sizeof(*b))) :
	    (void *)(a = conn_alloc(c, n * sizeof(*a)))) == NULL)
		return -1;
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j].topic == v[i].topic; j++)
			;
		if ((parts = conn_alloc(c, (j - i) * sizeof(*parts))) == NULL)
			return -1;
		for (k = i; k < j; k++)
			parts[k - i] = v[k].partition;
		t = &w->shm->topics[v[i].topic];
		if (names) {
			memcpy(b[nt].topic_id, t->id, 16);
			b[nt].topic_name = kafka_group_dup(c, t->name, t->name_len <=
			    TOPIC_NAME_MAX ? t->name_len : 0);
			if (b[nt].topic_name.p == NULL)
				return -1;
			b[nt].partitions.n = (int32_t)(j - i);
			b[nt].partitions.v = parts;
		} else {
			memcpy(a[nt].topic_id, t->id, 16);
			a[nt].partitions.n = (int32_t)(j - i);
			a[nt].partitions.v = parts;
		}
		nt++;
	}
	out->n = (int32_t)nt;
	out->v = names ? (void *)b : (void *)a;
	return 0;
}

/* A member's list which, grouped, into out; 0 or -1. */
static int
member_list(struct worker *w, struct conn *c, struct shm_group *g,
    uint32_t i, int which, int names, struct karray *out)
{
	uint32_t cap = w->shm->hdr->limits.member_meta / sizeof(struct cg_tp);
	struct cg_tp *v;
	uint32_t n;

	if ((v = conn_alloc(c, (cap + 1) * sizeof(*v))) == NULL)
		return -1;
	n = cgroup_list(w->shm, g, i, which, v, cap);
	return tp_group(w, c, v, n < cap ? n : cap, names, out);
}

/*
 * Kafka's request checks, before the group is touched: an error code
 * (and its message in *msg), or NONE with in's subscription filled.
 */
static int16_t
cghb_check(struct conn *c, const struct kafka_req *k,
    const struct km_cghb_req *q, struct cgroup_hb_in *in, const char **msg)
{
	const struct kstr *names = q->subscribed_topic_names.v;
	const struct km_cg_tp *tp = q->topic_partitions.v;
	const char **np;
	size_t *nl;
	int32_t i;

	*msg = NULL;
	if (q->group_id.len <= 0) {
		*msg = "GroupId can't be empty.";
		return KERR_INVALID_REQUEST;
	}
	if ((k->h.api_version >= 1 || q->member_epoch != 0) &&
	    q->member_id.len <= 0) {
		*msg = "MemberId can't be empty.";
		return KERR_INVALID_REQUEST;
	}
	if (q->member_id.len > MEMBER_ID_MAX) {
		*msg = "MemberId is too long.";
		return KERR_INVALID_REQUEST;
	}
	if (q->instance_id.len == 0 || q->rack_id.len == 0) {
		*msg = q->instance_id.len == 0 ? "InstanceId can't be empty." :
		    "RackId can't be empty.";
		return KERR_INVALID_REQUEST;
	}
	if (q->instance_id.len > KGROUP_INSTANCE_MAX) {
		*msg = "InstanceId is too long.";
		return KERR_INVALID_REQUEST;
	}
	if (q->member_epoch < -2) {
		*msg = "MemberEpoch is invalid.";
		return KERR_INVALID_REQUEST;
	}
	if (q->member_epoch == -2 && q->instance_id.len < 0) {
		*msg = "InstanceId can't be null.";
		return KERR_INVALID_REQUEST;
	}
	if (q->member_epoch == 0) {
		if (q->rebalance_timeout_ms == -1) {
			*msg = "RebalanceTimeoutMs must be provided in first "
			    "request.";
			return KERR_INVALID_REQUEST;
		}
		if (q->topic_partitions.n != 0) {
			*msg = "TopicPartitions must be empty when "
			    "(re-)joining.";
			return KERR_INVALID_REQUEST;
		}
		if (q->subscribed_topic_names.n < 0 &&
		    q->subscribed_topic_regex.len < 0) {
			*msg = "SubscribedTopicNames or SubscribedTopicRegex "
			    "must be set in first request.";
			return KERR_INVALID_REQUEST;
		}
	}
	if (q->server_assignor.len >= 0 && (in->assignor = cgroup_assignor(
	    q->server_assignor.p, (size_t)q->server_assignor.len)) ==
	    CG_ASSIGNOR_NONE) {
		*msg = "Unsupported assignor.";
		return KERR_UNSUPPORTED_ASSIGNOR;
	}
	if (q->subscribed_topic_regex.len > 0 &&
	    !cgroup_regex_valid(q->subscribed_topic_regex.p,
	    (size_t)q->subscribed_topic_regex.len)) {
		*msg = "SubscribedTopicRegex is not a valid regular expression.";
		return KERR_INVALID_REGULAR_EXPRESSION;
	}
	if (q->subscribed_topic_names.n > CG_NAMES_MAX) {
		*msg = "Too many SubscribedTopicNames.";
		return KERR_INVALID_REQUEST;
	}
	if (q->subscribed_topic_names.n >= 0) {
		in->names_set = 1;
		in->nnames = (uint32_t)q->subscribed_topic_names.n;
		if ((np = conn_alloc(c, (in->nnames + 1) * sizeof(*np))) ==
		    NULL || (nl = conn_alloc(c, (in->nnames + 1) *
		    sizeof(*nl))) == NULL)
			return KERR_UNKNOWN_SERVER_ERROR;
		for (i = 0; i < q->subscribed_topic_names.n; i++) {
			np[i] = names[i].p;
			nl[i] = names[i].len > 0 ? (size_t)names[i].len : 0;
		}
		in->names = np;
		in->name_lens = nl;
	}
	if (q->subscribed_topic_regex.len >= 0) {
		in->regex = q->subscribed_topic_regex.len > 0 ?
		    q->subscribed_topic_regex.p : "";
		in->regex_len = (size_t)q->subscribed_topic_regex.len;
	}
	(void)tp;
	return KERR_NONE;
}

/* The owned partitions of q, by topic index; NONE or an error. */
static int16_t
cghb_owned(struct worker *w, struct conn *c, const struct km_cghb_req *q,
    struct cgroup_hb_in *in)
{
	const struct km_cg_tp *tp = q->topic_partitions.v;
	struct cg_tp *o;
	int32_t i, j, n = 0, t;

	if (q->topic_partitions.n < 0)
		return KERR_NONE;
	for (i = 0; i < q->topic_partitions.n; i++)
		n += tp[i].partitions.n > 0 ? tp[i].partitions.n : 0;
	if ((o = conn_alloc(c, ((size_t)n + 1) * sizeof(*o))) == NULL)
		return KERR_UNKNOWN_SERVER_ERROR;
	in->owned_set = 1;
	in->owned = o;
	in->nowned = 0;
	for (i = 0; i < q->topic_partitions.n; i++) {
		if ((t = topic_by_id(w->shm, tp[i].topic_id)) < 0)
			continue;
		for (j = 0; j < tp[i].partitions.n; j++) {
			o[in->nowned].topic = (uint32_t)t;
			o[in->nowned].partition =
			    ((const int32_t *)tp[i].partitions.v)[j];
			in->nowned++;
		}
	}
	return KERR_NONE;
}

void
kafka_cghb_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_cghb_req *q = k->body;
	struct km_cghb_resp *s;
	struct cgroup_hb_in in;
	struct group_params gp;
	struct shm_group *g;
	struct shm_member *m;
	struct op_ctx x;
	const char *msg = NULL;
	char esc[LOG_ESC_SIZE(GROUP_NAME_MAX)];
	uint32_t s0, g0;
	int16_t err;
	int gidx = -1, member = -1;
	uint32_t kind0;
	enum op_err e;

	r->state = REQ_DONE;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_consumer_group_heartbeat.km_resp, s);
	k->kst = s;
	memset(&in, 0, sizeof(in));
	conn_op_ctx(c, r, &x);
	if ((e = op_access_group(&x, AUTH_GROUP_READ, q->group_id.p,
	    q->group_id.len > 0 ? (size_t)q->group_id.len : 0)) != OP_OK) {
		s->error_code = kafka_op_error(e);
		return;
	}
	if ((err = cghb_check(c, k, q, &in, &msg)) != KERR_NONE ||
	    (err = cghb_owned(w, c, q, &in)) != KERR_NONE) {
		s->error_code = err;
		s->error_message = msg != NULL ? kstr_c(msg) : cg_null;
		log_info("%s: ConsumerGroupHeartbeat of group %s refused: %s",
		    c->peer, log_escape(esc, sizeof(esc), q->group_id.p,
		    q->group_id.len > 0 ? (size_t)q->group_id.len : 0),
		    msg != NULL ? msg : "error");
		return;
	}
	if (w->shm->hdr->limits.max_groups == 0 ||
	    (e = op_group_create(w, q->group_id.p, (size_t)q->group_id.len, 1,
	    &gidx)) != OP_OK) {
		s->error_code = w->shm->hdr->limits.max_groups == 0 ||
		    e == OP_NO_ROOM ? KERR_COORDINATOR_NOT_AVAILABLE :
		    KERR_INVALID_GROUP_ID;
		return;
	}
	in.member_id = q->member_id.p;
	in.member_id_len = q->member_id.len > 0 ? (size_t)q->member_id.len : 0;
	in.epoch = q->member_epoch;
	in.instance = q->instance_id.len > 0 ? q->instance_id.p : NULL;
	in.instance_len = q->instance_id.len > 0 ?
	    (size_t)q->instance_id.len : 0;
	in.client_id = k->h.client_id.p;
	in.client_id_len = k->h.client_id.len > 0 ?
	    (size_t)k->h.client_id.len : 0;
	if (in.client_id_len > CLIENT_ID_MAX)
		in.client_id_len = CLIENT_ID_MAX;
	in.host = c->peer;
	in.host_len = kafka_peer_host_len(c->peer);
	in.rebalance_timeout_ms = q->rebalance_timeout_ms;
	op_group_params(w, &gp);
	if ((g = op_group_lock_name(w, gidx, q->group_id.p,
	    (size_t)q->group_id.len, &gp, &s0, &g0)) == NULL) {
		s->error_code = KERR_COORDINATOR_NOT_AVAILABLE;
		return;
	}
	err = KERR_NONE;
	kind0 = g->kind;
	if (g->kind == GROUP_KIND_KAFKA && in.epoch == 0) {
		/* A classic group with members: the online upgrade (or not). */
		(void)group_tick(w->shm, g, w->now, &gp);
		if (g->kind == GROUP_KIND_KAFKA &&
		    group_member_count(w->shm, g) > 0 &&
		    (err = kafka_cg_upgrade(w, c, g, &gp)) == KERR_NONE)
			log_info("%s: group %s: upgraded to the consumer "
			    "protocol", c->peer, log_escape(esc, sizeof(esc),
			    q->group_id.p, (size_t)q->group_id.len));
	}
	if (err == KERR_NONE)
		err = cgroup_heartbeat(w->shm, g, &in, w->now, &gp, &member);
	if (kind0 == GROUP_KIND_CONSUMER && g->kind == GROUP_KIND_KAFKA)
		log_info("%s: group %s: downgraded to the classic protocol",
		    c->peer, log_escape(esc, sizeof(esc), q->group_id.p,
		    (size_t)q->group_id.len));
	s->error_code = err;
	if (err == KERR_NONE && member >= 0) {
		m = group_member_at(w->shm, g, (uint32_t)member);
		s->member_id = kafka_group_dup(c, m->id, m->id_len);
		s->member_epoch = q->member_epoch < 0 ? q->member_epoch :
		    m->cg_epoch;
		s->heartbeat_interval_ms = gp.cg_heartbeat_ms;
		if (q->member_epoch >= 0) {
			s->assignment_marker = 1;
			if (member_list(w, c, g, (uint32_t)member, CG_ASSIGNED,
			    0, &s->assignment.topic_partitions) == -1)
				s->error_code = KERR_UNKNOWN_SERVER_ERROR;
		}
		if (s->member_id.p == NULL)
			s->error_code = KERR_UNKNOWN_SERVER_ERROR;
	}
	op_group_unlock(w, g, s0, g0);
	if (err == KERR_MESSAGE_TOO_LARGE)
		log_warnx("%s: group %s: ConsumerGroupHeartbeat refused, its "
		    "subscription exceeds max_group_member_metadata (%u bytes)",
		    c->peer, log_escape(esc, sizeof(esc), q->group_id.p,
		    (size_t)q->group_id.len), w->shm->hdr->limits.member_meta);
}

/* Under g's lock: describe consumer group g into d; a Kafka error. */
static int16_t
cgd_one(struct worker *w, struct conn *c, struct shm_group *g,
    int16_t version, struct km_cgd_group *d)
{
	struct km_cgd_member *dm;
	struct shm_member *m;
	const char *names[CG_NAMES_MAX], *re;
	size_t lens[CG_NAMES_MAX], rl;
	struct kstr *sn;
	uint32_t i, j, n = group_member_count(w->shm, g), nn;

	(void)version;
	d->group_state = kstr_c(cgroup_state_name(w->shm, g));
	d->group_epoch = (int32_t)g->generation;
	d->assignment_epoch = (int32_t)g->cg_assign_epoch;
	d->assignor_name = kstr_c(cgroup_assignor_name(g->cg_assignor));
	if (n > 0 && (dm = conn_alloc(c, n * sizeof(*dm))) == NULL)
		return KERR_UNKNOWN_SERVER_ERROR;
	d->members.v = n > 0 ? dm : NULL;
	d->members.n = 0;
	for (i = 0; i < w->shm->hdr->limits.max_group_members &&
	    (uint32_t)d->members.n < n; i++) {
		m = group_member_at(w->shm, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE)
			continue;
		dm = (struct km_cgd_member *)d->members.v + d->members.n;
		kdesc_defaults(kmsg_consumer_group_describe.km_resp->
		    kd_fields[1].kf_sub->kd_fields[7].kf_sub, dm);
		dm->member_id = kafka_group_dup(c, m->id, m->id_len);
		dm->instance_id = m->instance_len > 0 && m->instance_len <=
		    KGROUP_INSTANCE_MAX ? kafka_group_dup(c, m->instance,
		    m->instance_len) : cg_null;
		dm->member_epoch = m->cg_epoch;
		dm->client_id = kafka_group_dup(c, m->client, m->client_len <=
		    CLIENT_ID_MAX ? m->client_len : 0);
		dm->client_host = kafka_group_dup(c, m->host, m->host_len <=
		    MEMBER_HOST_MAX ? m->host_len : 0);
		/* Kafka's: 1 a consumer protocol member, 0 a classic one. */
		dm->member_type = cgroup_is_classic(w->shm, g, i) ? 0 : 1;
		if (cgroup_subscription(w->shm, g, i, &re, &rl, names, lens,
		    CG_NAMES_MAX, &nn) == -1)
			nn = 0;
		dm->subscribed_topic_regex = re != NULL ? kafka_group_dup(c, re, rl) :
		    cg_null;
		if ((sn = conn_alloc(c, (nn + 1) * sizeof(*sn))) == NULL)
			return KERR_UNKNOWN_SERVER_ERROR;
		for (j = 0; j < nn; j++)
			if ((sn[j] = kafka_group_dup(c, names[j], lens[j])).p == NULL)
				return KERR_UNKNOWN_SERVER_ERROR;
		dm->subscribed_topic_names.n = (int32_t)nn;
		dm->subscribed_topic_names.v = sn;
		if (dm->member_id.p == NULL || dm->client_id.p == NULL ||
		    dm->client_host.p == NULL ||
		    member_list(w, c, g, i, CG_ASSIGNED, 1,
		    &dm->assignment.topic_partitions) == -1 ||
		    member_list(w, c, g, i, CG_TARGET, 1,
		    &dm->target_assignment.topic_partitions) == -1)
			return KERR_UNKNOWN_SERVER_ERROR;
		d->members.n++;
	}
	return KERR_NONE;
}

/*
 * A group that does not exist, or is not of the consumer kind, is
 * GROUP_ID_NOT_FOUND with Kafka's message.
 */
void
kafka_cgd_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_cgd_req *q = k->body;
	const struct kstr *qg = q->group_ids.v;
	struct km_cgd_resp *s;
	struct km_cgd_group *d = NULL;
	struct group_params gp;
	struct shm_group *g;
	struct op_ctx x;
	uint32_t s0, g0;
	int32_t i, ng = q->group_ids.n > 0 ? q->group_ids.n : 0;
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
	kdesc_defaults(kmsg_consumer_group_describe.km_resp, s);
	s->groups.n = ng;
	s->groups.v = d;
	k->kst = s;
	op_group_params(w, &gp);
	for (i = 0; i < ng; i++) {
		kdesc_defaults(kmsg_consumer_group_describe.km_resp->
		    kd_fields[1].kf_sub, &d[i]);
		d[i].group_id = qg[i];
		d[i].group_state = kstr_c("Dead");
		d[i].assignor_name = kstr_c("");
		if (qg[i].len <= 0 || !group_name_valid(qg[i].p,
		    (size_t)qg[i].len)) {
			d[i].error_code = KERR_INVALID_GROUP_ID;
			continue;
		}
		if ((e = op_access_group(&x, AUTH_GROUP_DESCRIBE, qg[i].p,
		    (size_t)qg[i].len)) != OP_OK) {
			d[i].error_code = kafka_op_error(e);
			continue;
		}
		g = NULL;
		if ((gidx = group_find(w->shm, qg[i].p, (size_t)qg[i].len)) >= 0)
			g = op_group_lock_name(w, gidx, qg[i].p,
			    (size_t)qg[i].len, &gp, &s0, &g0);
		if (g == NULL || g->kind != GROUP_KIND_CONSUMER) {
			if (g != NULL)
				op_group_unlock(w, g, s0, g0);
			d[i].error_code = KERR_GROUP_ID_NOT_FOUND;
			if ((msg = conn_alloc(c, (size_t)qg[i].len + 48)) != NULL) {
				memcpy(msg, "Group ", 6);
				memcpy(msg + 6, qg[i].p, (size_t)qg[i].len);
				strcpy(msg + 6 + qg[i].len, g != NULL ?
				    " is not a consumer group." : " not found.");
				d[i].error_message = kstr_c(msg);
			}
			continue;
		}
		(void)group_tick(w->shm, g, w->now, &gp);
		d[i].error_code = cgd_one(w, c, g, k->h.api_version, &d[i]);
		op_group_unlock(w, g, s0, g0);
	}
}
