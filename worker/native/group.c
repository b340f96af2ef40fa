/*
 * The native consumer-group APIs (worker/native/group.h): one set of
 * functions per API, each a row of worker/native/native.c's table.  The
 * operations are worker/op/group*.h's; this file decodes, translates and
 * encodes.  A JOIN_GROUP whose rebalance is not complete is parked
 * (REQ_WAIT) and re-checked by native_join_poll().
 */
#include <stddef.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/kafka/kconsumer.h"
#include "proto/msg.h"
#include "shm/group.h"
#include "worker/conn.h"
#include "worker/errcode.h"
#include "worker/native/group.h"
#include "worker/native/native.h"
#include "worker/op/group_info.h"
#include "worker/op/group_member.h"
#include "worker/op/group_offsets.h"
#include "worker/worker.h"

/* The (empty) state of a successful HEARTBEAT, LEAVE_GROUP or GROUP_DELETE. */
static struct group_error_resp ng_ok;

static void
ng_done(struct req *r, enum op_err e)
{
	r->error = errcode(e);
	r->state = REQ_DONE;
}

/* r answered with s, its state for the emit function. */
static void
ng_answer(struct req *r, void *s)
{
	r->st = s;
	ng_done(r, OP_OK);
}

/* 1 if the broker keeps groups (max_groups); else r is answered, 0. */
static int
ng_table(struct worker *w, struct req *r)
{
	if (w->shm->hdr->limits.max_groups > 0)
		return 1;
	ng_done(r, OP_NO_ROOM);
	return 0;
}

/*
 * r->dec of size (once: a redecode reuses it), the payload's arena use
 * accounted; NULL when the arena is full.
 */
static void *
ng_dec(struct conn *c, struct req *r, size_t size)
{
	if (r->dec == NULL && (r->dec = conn_alloc(c, size)) == NULL)
		return NULL;
	c->arena_bytes += r->payload_len;
	return r->dec;
}

/* A decode function: r->dec of struct type, read by call. */
#define NG_DECODE(name, type, call)					\
int									\
name(struct conn *c, struct req *r)					\
{									\
	if (ng_dec(c, r, sizeof(struct type)) == NULL)			\
		return -1;						\
	return (call);							\
}

/* An emit function: a response frame of encode(r->st). */
#define NG_EMIT(name, encode)						\
void									\
name(struct worker *w, struct conn *c, struct req *r)			\
{									\
	size_t start = frame_begin_response(&c->out, r->id);		\
									\
	(void)w;							\
	encode(&c->out, r->st);						\
	frame_end(&c->out, start);					\
	conn_out_commit(c);						\
}

NG_EMIT(native_group_ok_emit, msg_encode_group_error_resp)

/* A (topic, partition) list of an operation as the native protocol's. */
static struct group_tp *
ng_tps(struct conn *c, const struct op_group_tp *tp, int32_t n)
{
	struct group_tp *g;
	int32_t i;

	if (n <= 0 || (g = conn_alloc(c, (size_t)n * sizeof(*g))) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		g[i].topic = tp[i].topic;
		g[i].topic_len = tp[i].topic_len;
		g[i].partition = tp[i].partition;
	}
	return g;
}

/* ---- JOIN_GROUP ---- */

struct ng_join {
	struct op_join		 op;
	struct join_group_resp	 resp;
};

NG_DECODE(native_join_decode, join_group_req,
    msg_decode_join_group_req(r->payload, r->payload_len,
    &c->arena, r->dec))

/* After the operation: park r, or answer it. */
static void
join_finish(struct conn *c, struct req *r, enum op_status s)
{
	struct ng_join *st = r->st;
	struct join_group_resp *resp = &st->resp;

	if (s == OP_WAIT) {
		r->state = REQ_WAIT;
		r->deadline = st->op.deadline;
		return;
	}
	if (st->op.err == OP_OK) {
		resp->error = ERR_NONE;
		resp->generation = st->op.generation;
		resp->member_id = st->op.id;
		resp->member_id_len = st->op.id_len;
		resp->count = st->op.nparts;
		if (st->op.nparts > 0 && (resp->parts = ng_tps(c, st->op.parts,
		    st->op.nparts)) == NULL)
			st->op.err = OP_NO_MEMORY;
		else
			r->st = resp;	/* what native_join_emit() encodes */
	}
	ng_done(r, st->op.err);
}

void
native_join_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct join_group_req *q = r->dec;
	struct op_join_args a;
	struct op_name *topics = NULL;
	struct ng_join *st;
	struct op_ctx x;
	int32_t i;

	if (!ng_table(w, r))
		return;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL || (q->count > 0 &&
	    (topics = conn_alloc(c, (size_t)q->count * sizeof(*topics))) ==
	    NULL)) {
		ng_done(r, OP_NO_MEMORY);
		return;
	}
	memset(st, 0, sizeof(*st));
	for (i = 0; i < q->count; i++) {
		topics[i].s = q->topics[i].s;
		topics[i].len = q->topics[i].len;
	}
	a.group = q->group;
	a.group_len = q->group_len;
	a.member_id = q->member_id;
	a.member_id_len = q->member_id_len;
	a.client_id = q->client_id;
	a.client_id_len = q->client_id_len;
	a.session_timeout_ms = q->session_timeout_ms;
	a.ntopics = q->count;
	a.topics = topics;
	r->st = st;
	conn_op_ctx(c, r, &x);
	join_finish(c, r, op_group_join(&x, &a, &st->op));
}

void
native_join_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct ng_join *st = r->st;
	struct op_ctx x;

	(void)w;
	if (r->state != REQ_WAIT || st == NULL)
		return;
	conn_op_ctx(c, r, &x);
	join_finish(c, r, op_group_join_poll(&x, &st->op));
}

NG_EMIT(native_join_emit, msg_encode_join_group_resp)

/* ---- HEARTBEAT and LEAVE_GROUP ---- */

NG_DECODE(native_heartbeat_decode, heartbeat_req,
    msg_decode_heartbeat_req(r->payload, r->payload_len, r->dec))

/* native_emit() answers a failure alone; success has the empty state. */
static void
ng_member_done(struct req *r, enum op_err e)
{
	ng_done(r, e);
	if (e == OP_OK)
		r->st = &ng_ok;
}

void
native_heartbeat_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct heartbeat_req *q = r->dec;
	struct op_ctx x;

	if (!ng_table(w, r))
		return;
	conn_op_ctx(c, r, &x);
	ng_member_done(r, op_group_heartbeat(&x, q->group, q->group_len,
	    q->member_id, q->member_id_len, q->generation));
}

NG_DECODE(native_leave_decode, leave_group_req,
    msg_decode_leave_group_req(r->payload, r->payload_len, r->dec))

void
native_leave_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct leave_group_req *q = r->dec;
	struct op_ctx x;

	if (!ng_table(w, r))
		return;
	conn_op_ctx(c, r, &x);
	ng_member_done(r, op_group_leave(&x, q->group, q->group_len,
	    q->member_id, q->member_id_len));
}

/* ---- OFFSET_COMMIT ---- */

NG_DECODE(native_commit_decode, offset_commit_req,
    msg_decode_offset_commit_req(r->payload, r->payload_len,
    &c->arena, r->dec))

void
native_commit_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct offset_commit_req *q = r->dec;
	struct offset_commit_resp *s;
	struct op_group_offset *p = NULL;
	struct op_commit_args a;
	struct op_ctx x;
	enum op_err e;
	int32_t i;

	if (!ng_table(w, r))
		return;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (q->count > 0 &&
	    ((s->errors = conn_alloc(c, (size_t)q->count *
	    sizeof(*s->errors))) == NULL ||
	    (p = conn_alloc(c, (size_t)q->count * sizeof(*p))) == NULL))) {
		ng_done(r, OP_NO_MEMORY);
		return;
	}
	for (i = 0; i < q->count; i++) {
		p[i].topic = q->parts[i].topic;
		p[i].topic_len = q->parts[i].topic_len;
		p[i].partition = q->parts[i].partition;
		p[i].offset = q->parts[i].offset;
	}
	a.group = q->group;
	a.group_len = q->group_len;
	a.member_id = q->member_id;
	a.member_id_len = q->member_id_len;
	a.generation = q->generation;
	a.nparts = q->count;
	a.parts = p;
	conn_op_ctx(c, r, &x);
	if ((e = op_group_commit(&x, &a)) != OP_OK) {
		ng_done(r, e);
		return;
	}
	s->error = ERR_NONE;
	s->count = q->count;
	for (i = 0; i < q->count; i++)
		s->errors[i] = errcode(p[i].err);
	ng_answer(r, s);
}

NG_EMIT(native_commit_emit, msg_encode_offset_commit_resp)

/* ---- OFFSET_FETCH ---- */

NG_DECODE(native_offset_fetch_decode, offset_fetch_req,
    msg_decode_offset_fetch_req(r->payload, r->payload_len,
    &c->arena, r->dec))

void
native_offset_fetch_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct offset_fetch_req *q = r->dec;
	struct offset_fetch_resp *s;
	struct op_group_offset *p = NULL;
	struct op_ctx x;
	enum op_err e;
	int32_t i, n = q->count;
	char *name;

	if (!ng_table(w, r))
		return;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL || (n > 0 &&
	    (p = conn_alloc(c, (size_t)n * sizeof(*p))) == NULL)) {
		ng_done(r, OP_NO_MEMORY);
		return;
	}
	for (i = 0; i < n; i++) {
		p[i].topic = q->parts[i].topic;
		p[i].topic_len = q->parts[i].topic_len;
		p[i].partition = q->parts[i].partition;
	}
	conn_op_ctx(c, r, &x);
	/* count 0: every committed offset of the group. */
	e = n > 0 ? op_group_offsets(&x, q->group, q->group_len, p, n) :
	    op_group_committed(&x, q->group, q->group_len, &p, &n);
	if (e == OP_OK && n > 0 && (s->results = conn_alloc(c, (size_t)n *
	    sizeof(*s->results))) == NULL)
		e = OP_NO_MEMORY;
	if (e != OP_OK) {
		ng_done(r, e);
		return;
	}
	s->error = ERR_NONE;
	s->count = n;
	for (i = 0; i < n; i++) {
		/*
		 * Names the request gave are copied: the answer may wait
		 * behind a FETCH while the payload moves (conn_detach).
		 */
		if (q->count > 0) {
			if ((name = conn_alloc(c, p[i].topic_len + 1)) == NULL) {
				ng_done(r, OP_NO_MEMORY);
				return;
			}
			memcpy(name, p[i].topic, p[i].topic_len);
			p[i].topic = name;
		}
		s->results[i].topic = p[i].topic;
		s->results[i].topic_len = p[i].topic_len;
		s->results[i].partition = p[i].partition;
		s->results[i].error = errcode(p[i].err);
		s->results[i].offset = p[i].offset;
	}
	ng_answer(r, s);
}

NG_EMIT(native_offset_fetch_emit, msg_encode_offset_fetch_resp)

/* ---- LIST_GROUPS ---- */

int
native_list_groups_decode(struct conn *c, struct req *r)
{
	(void)c;
	return r->payload_len == 0 ? 0 : -1;
}

void
native_list_groups_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct list_groups_resp *s;
	struct op_group_listing *l;
	struct op_ctx x;
	enum op_err e;
	uint32_t i, n;

	if (!ng_table(w, r))
		return;
	conn_op_ctx(c, r, &x);
	if ((e = op_group_list(&x, &l, &n)) == OP_OK &&
	    ((s = conn_alloc(c, sizeof(*s))) == NULL || (n > 0 &&
	    (s->groups = conn_alloc(c, n * sizeof(*s->groups))) == NULL)))
		e = OP_NO_MEMORY;
	if (e != OP_OK) {
		ng_done(r, e);
		return;
	}
	s->error = ERR_NONE;
	s->count = (int32_t)n;
	for (i = 0; i < n; i++) {
		s->groups[i].group = l[i].name;
		s->groups[i].group_len = l[i].name_len;
		s->groups[i].state = (int8_t)l[i].state;
		s->groups[i].generation = l[i].generation;
		s->groups[i].members = l[i].members;
	}
	ng_answer(r, s);
}

NG_EMIT(native_list_groups_emit, msg_encode_list_groups_resp)

/* ---- DESCRIBE_GROUP ---- */

NG_DECODE(native_group_name_decode, describe_group_req,
    msg_decode_describe_group_req(r->payload, r->payload_len,
    r->dec))

/* A Kafka consumer's assignment, read partition by partition. */
struct ng_assigned {
	const struct op_ctx		*x;
	const struct op_group_desc	*d;
	struct op_member_desc		*m;
};

static int
ng_assigned_part(const char *topic, size_t len, int32_t partition, void *arg)
{
	struct ng_assigned *as = arg;

	return op_group_desc_assigned(as->x, as->d, as->m, topic, len,
	    partition);
}

/* A GROUP_KIND_* as the wire's. */
static int8_t
ng_kind(uint32_t kind)
{
	switch (kind) {
	case GROUP_KIND_NATIVE:		return GROUP_WIRE_KIND_NATIVE;
	case GROUP_KIND_KAFKA:		return GROUP_WIRE_KIND_CLASSIC;
	case GROUP_KIND_CONSUMER:	return GROUP_WIRE_KIND_CONSUMER;
	default:			return GROUP_WIRE_KIND_NONE;
	}
}

/* d (an operation's) as the native answer s. */
static int
describe_resp(struct conn *c, const struct op_group_desc *d,
    struct describe_group_resp *s)
{
	const struct op_member_desc *m;
	struct member_desc *md;
	struct group_offset_desc *od;
	int32_t i;

	memset(s, 0, sizeof(*s));
	if ((d->nmembers > 0 && (s->members = conn_alloc(c,
	    (size_t)d->nmembers * sizeof(*s->members))) == NULL) ||
	    (d->noffsets > 0 && (s->offsets = conn_alloc(c,
	    (size_t)d->noffsets * sizeof(*s->offsets))) == NULL))
		return -1;
	s->error = ERR_NONE;
	s->state = (int8_t)d->state;
	s->generation = d->generation;
	s->kind = ng_kind(d->kind);
	s->assignment_epoch = d->assign_epoch;
	s->nmembers = d->nmembers;
	for (i = 0; i < d->nmembers; i++) {
		m = &d->members[i];
		md = &s->members[i];
		md->member_id = m->id;
		md->member_id_len = m->id_len;
		md->client_id = m->client;
		md->client_id_len = m->client_len;
		md->session_timeout_ms = m->session_timeout_ms;
		md->count = m->nparts;
		md->parts = ng_tps(c, m->parts, m->nparts);
		md->member_epoch = m->epoch;
		md->instance_id = m->instance;
		md->instance_id_len = m->instance_len;
		md->nrevoking = m->nrevoking;
		md->revoking = ng_tps(c, m->revoking, m->nrevoking);
		md->ntarget = m->ntarget;
		md->target = ng_tps(c, m->target, m->ntarget);
		if ((m->nparts > 0 && md->parts == NULL) ||
		    (m->nrevoking > 0 && md->revoking == NULL) ||
		    (m->ntarget > 0 && md->target == NULL))
			return -1;
	}
	s->noffsets = d->noffsets;
	for (i = 0; i < d->noffsets; i++) {
		od = &s->offsets[i];
		od->topic = d->offsets[i].topic;
		od->topic_len = d->offsets[i].topic_len;
		od->partition = d->offsets[i].partition;
		od->committed = d->offsets[i].committed;
		od->log_end = d->offsets[i].log_end;
	}
	return 0;
}

void
native_describe_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct describe_group_req *q = r->dec;
	struct describe_group_resp *s;
	struct op_group_desc d;
	struct ng_assigned as;
	struct op_ctx x;
	enum op_err e;
	int32_t i;

	if (!ng_table(w, r))
		return;
	conn_op_ctx(c, r, &x);
	if ((e = op_group_describe(&x, q->group, q->group_len, &d)) != OP_OK) {
		ng_done(r, e);
		return;
	}
	/* A Kafka consumer's partitions are in its leader's assignment. */
	for (i = 0; i < d.nmembers; i++) {
		if (d.members[i].assign == NULL)
			continue;
		as.x = &x;
		as.d = &d;
		as.m = &d.members[i];
		(void)kconsumer_assignment_parts(d.members[i].assign,
		    d.members[i].assign_len, ng_assigned_part, &as);
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL ||
	    describe_resp(c, &d, s) == -1) {
		ng_done(r, OP_NO_MEMORY);
		return;
	}
	ng_answer(r, s);
}

/* Version 2's layout to a connection whose HANDSHAKE said 2 or more. */
void
native_describe_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start = frame_begin_response(&c->out, r->id);

	(void)w;
	if (c->proto_version >= 2)
		msg_encode_describe_group_resp_v2(&c->out, r->st);
	else
		msg_encode_describe_group_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}

/* ---- GROUP_RESET ---- */

NG_DECODE(native_reset_decode, group_reset_req,
    msg_decode_group_reset_req(r->payload, r->payload_len, r->dec))

/* The native RESET_TO_* as the operation's; -1 (refused there) otherwise. */
static int
reset_mode(int8_t mode)
{
	switch (mode) {
	case RESET_TO_OFFSET:	return OP_RESET_TO_OFFSET;
	case RESET_TO_EARLIEST:	return OP_RESET_TO_EARLIEST;
	case RESET_TO_LATEST:	return OP_RESET_TO_LATEST;
	case RESET_TO_TIME:	return OP_RESET_TO_TIME;
	default:		return -1;
	}
}

void
native_reset_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct group_reset_req *q = r->dec;
	struct group_reset_resp *s;
	struct op_reset_result *res;
	struct op_reset_args a;
	struct op_ctx x;
	enum op_err e;
	int32_t i, n;

	if (!ng_table(w, r))
		return;
	a.group = q->group;
	a.group_len = q->group_len;
	a.topic = q->topic;
	a.topic_len = q->topic_len;
	a.partition = q->partition;
	a.mode = reset_mode(q->mode);
	a.value = q->value;
	conn_op_ctx(c, r, &x);
	if ((e = op_group_reset(&x, &a, &res, &n)) == OP_OK &&
	    ((s = conn_alloc(c, sizeof(*s))) == NULL || (n > 0 &&
	    (s->results = conn_alloc(c, (size_t)n * sizeof(*s->results))) ==
	    NULL)))
		e = OP_NO_MEMORY;
	if (e != OP_OK) {
		ng_done(r, e);
		return;
	}
	s->error = ERR_NONE;
	s->count = n;
	for (i = 0; i < n; i++) {
		s->results[i].partition = res[i].partition;
		s->results[i].error = errcode(res[i].err);
		s->results[i].offset = res[i].offset;
	}
	ng_answer(r, s);
}

NG_EMIT(native_reset_emit, msg_encode_group_reset_resp)

/* ---- GROUP_DELETE ---- */

void
native_group_delete_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct describe_group_req *q = r->dec;
	struct op_ctx x;

	if (!ng_table(w, r))
		return;
	conn_op_ctx(c, r, &x);
	ng_member_done(r, op_group_delete(&x, q->group, q->group_len));
}
