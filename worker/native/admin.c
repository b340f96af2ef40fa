/*
 * The native HANDSHAKE, METADATA, CREATE_TOPIC, DELETE_TOPIC and
 * WORKERS (worker/native/admin.h): the decoded request (r->dec) becomes
 * an operation's arguments, its results the native answer in r->st
 * (proto/msg.h), its errors native codes (errcode()).
 */
#include <limits.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/version.h"
#include "worker/conn.h"
#include "worker/errcode.h"
#include "worker/native/admin.h"
#include "worker/native/native.h"
#include "worker/op/broker.h"
#include "worker/op/topics.h"
#include "worker/worker.h"

static void
req_done(struct req *r, int16_t error)
{
	r->error = error;
	r->state = REQ_DONE;
}

/* ---- HANDSHAKE ---- */

void
native_handshake_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct handshake_req *q = r->dec;
	struct handshake_resp *s;

	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	s->error = q->version < 1 ? ERR_UNSUPPORTED_VERSION : ERR_NONE;
	if (s->error == ERR_NONE)
		c->handshaken = 1;
	s->version = FLUME_PROTOCOL_VERSION;
	s->max_frame = (int32_t)(w->conf->max_request_bytes > INT32_MAX ?
	    INT32_MAX : w->conf->max_request_bytes);
	s->broker = FLUME_BROKER_NAME;
	s->broker_len = sizeof(FLUME_BROKER_NAME) - 1;
	r->st = s;
	req_done(r, ERR_NONE);
}

/* ---- METADATA ---- */

/* The native answer of op_metadata()'s n results t. */
static struct metadata_resp *
metadata_resp(struct conn *c, const struct op_topic_info *t, int32_t n)
{
	struct metadata_resp *s;
	struct topic_info *ti;
	int32_t i, j;

	if ((s = conn_alloc(c, sizeof(*s))) == NULL)
		return NULL;
	memset(s, 0, sizeof(*s));
	if (n > 0 && (s->topics = conn_alloc(c, (size_t)n *
	    sizeof(*s->topics))) == NULL)
		return NULL;
	s->count = n;
	for (i = 0; i < n; i++) {
		ti = &s->topics[i];
		memset(ti, 0, sizeof(*ti));
		ti->error = errcode(t[i].err);
		ti->name = t[i].name;
		ti->name_len = t[i].name_len;
		if (t[i].err != OP_OK || t[i].nparts <= 0)
			continue;
		if ((ti->partitions = conn_alloc(c, (size_t)t[i].nparts *
		    sizeof(*ti->partitions))) == NULL)
			return NULL;
		ti->count = t[i].nparts;
		for (j = 0; j < t[i].nparts; j++) {
			ti->partitions[j].partition = t[i].parts[j].partition;
			ti->partitions[j].log_start = t[i].parts[j].log_start;
			ti->partitions[j].log_end = t[i].parts[j].log_end;
			ti->partitions[j].size_bytes = t[i].parts[j].size_bytes;
		}
	}
	return s;
}

void
native_metadata_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct metadata_req *q = r->dec;
	struct op_topic_info *t;
	struct op_name *names = NULL;
	struct op_ctx x;
	int32_t k, n;

	(void)w;
	conn_op_ctx(c, r, &x);
	r->st = NULL;
	/* count 0: every topic. */
	if (q->count > 0) {
		if ((names = conn_alloc(c, (size_t)q->count *
		    sizeof(*names))) == NULL) {
			req_done(r, ERR_RESOURCE_LIMIT);
			return;
		}
		for (k = 0; k < q->count; k++) {
			names[k].s = q->topics[k].s;
			names[k].len = q->topics[k].len;
		}
	}
	if (op_metadata(&x, names, q->count, q->auto_create, &t, &n) != OP_OK ||
	    (r->st = metadata_resp(c, t, n)) == NULL) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	req_done(r, ERR_NONE);
}

/* ---- CREATE_TOPIC and DELETE_TOPIC ---- */

/*
 * A create's or delete's state of size bytes, its native answer first
 * (r->st points there), the request's deadline timeout_ms away; NULL
 * (r answered) when out of request memory.
 */
static void *
topic_st(struct conn *c, struct req *r, size_t size, int32_t timeout_ms)
{
	void *st;

	if ((st = conn_alloc(c, size)) == NULL) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return NULL;
	}
	memset(st, 0, size);
	r->st = st;
	r->error = ERR_NONE;
	r->deadline = c->w->now + timeout_ms;
	return st;
}

/*
 * The answer ({error, partitions}: both native answers' shape) once the
 * operation is done with err and the topic's n partitions.
 */
static void
topic_answer(struct req *r, enum op_status s, int16_t *error,
    int32_t *partitions, enum op_err err, int32_t n)
{
	if (s != OP_DONE) {
		r->state = REQ_WAIT;
		return;
	}
	*error = errcode(err);
	*partitions = n;
	r->state = REQ_DONE;
}

struct create_st {
	struct create_topic_resp resp;	/* first: r->st points here */
	struct op_topic_create	 a;
};

void
native_create_topic_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct create_topic_req *q = r->dec;
	struct create_st *st;
	struct op_ctx x;
	enum op_status s;

	(void)w;
	/* The native request carries no timeout. */
	if ((st = topic_st(c, r, sizeof(*st), TOPIC_CREATE_TIMEOUT_MS)) == NULL)
		return;
	st->a.deadline = r->deadline;
	st->a.partitions = q->partitions;
	conn_op_ctx(c, r, &x);
	s = op_topic_create(&x, q->topic, q->topic_len, &st->a);
	topic_answer(r, s, &st->resp.error, &st->resp.partitions, st->a.err,
	    st->a.partitions);
}

void
native_create_topic_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct create_st *st = (struct create_st *)r->st;
	struct op_ctx x;
	enum op_status s;

	(void)w;
	conn_op_ctx(c, r, &x);
	s = op_topic_create_poll(&x, &st->a);
	topic_answer(r, s, &st->resp.error, &st->resp.partitions, st->a.err,
	    st->a.partitions);
}

struct delete_st {
	struct delete_topic_resp resp;	/* first: r->st points here */
	struct op_topic_delete	 a;
};

void
native_delete_topic_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct delete_topic_req *q = r->dec;
	struct delete_st *st;
	struct op_ctx x;
	enum op_status s;

	(void)w;
	if ((st = topic_st(c, r, sizeof(*st), q->timeout_ms > 0 ?
	    q->timeout_ms : TOPIC_DELETE_TIMEOUT_MS)) == NULL)
		return;
	st->a.deadline = r->deadline;
	conn_op_ctx(c, r, &x);
	s = op_topic_delete(&x, q->topic, q->topic_len, &st->a);
	topic_answer(r, s, &st->resp.error, &st->resp.partitions, st->a.err,
	    st->a.partitions);
}

void
native_delete_topic_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct delete_st *st = (struct delete_st *)r->st;
	struct op_ctx x;
	enum op_status s;

	(void)w;
	conn_op_ctx(c, r, &x);
	s = op_topic_delete_poll(&x, &st->a);
	topic_answer(r, s, &st->resp.error, &st->resp.partitions, st->a.err,
	    st->a.partitions);
}

/* ---- WORKERS ---- */

void
native_workers_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct workers_resp *s;
	struct op_child *ch;
	struct op_ctx x;
	int32_t i, n;

	(void)w;
	if (r->payload_len != 0) {
		req_done(r, ERR_INVALID_REQUEST);
		return;
	}
	conn_op_ctx(c, r, &x);
	if (op_broker_children(&x, &ch, &n) != OP_OK ||
	    (s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (n > 0 && (s->children = conn_alloc(c, (size_t)n *
	    sizeof(*s->children))) == NULL)) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	if (n == 0)
		s->children = NULL;
	s->error = ERR_NONE;
	s->count = n;
	for (i = 0; i < n; i++) {
		s->children[i].slot = ch[i].slot;
		s->children[i].role = ch[i].role;
		s->children[i].pid = ch[i].pid;
		s->children[i].uptime_ms = ch[i].uptime_ms;
		s->children[i].restarts = ch[i].restarts;
	}
	r->st = s;
	req_done(r, ERR_NONE);
}
