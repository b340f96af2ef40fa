/*
 * The native HANDSHAKE, METADATA, CREATE_TOPIC, DELETE_TOPIC and
 * WORKERS (worker/native/admin.h): the decoded request (r->dec) becomes
 * an operation's arguments, its results the native answer in r->st
 * (proto/msg.h), its errors native codes (errcode()).
 */
#include <limits.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/version.h"
#include "store/topic.h"
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
	if (s->error == ERR_NONE) {
		c->handshaken = 1;
		/* What this connection's answers may use (DESCRIBE_GROUP). */
		c->proto_version = q->version < FLUME_PROTOCOL_VERSION ?
		    q->version : FLUME_PROTOCOL_VERSION;
	}
	s->version = FLUME_PROTOCOL_VERSION;
	s->max_frame = (int32_t)(w->conf->max_request_bytes > INT32_MAX ?
	    INT32_MAX : w->conf->max_request_bytes);
	s->broker = FLUME_BROKER_NAME;
	s->broker_len = sizeof(FLUME_BROKER_NAME) - 1;
	r->st = s;
	req_done(r, ERR_NONE);
}

/* ---- METADATA ---- */

/*
 * A METADATA's results, encoded a topic at a time at emit: the native
 * answer is never built whole beside them, so a request naming many
 * wide topics costs its request memory once.
 */
struct meta_st {
	struct op_topic_info	*t;
	int32_t			 n;
	struct partition_info	*scratch;	/* the widest topic's partitions */
};

void
native_metadata_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct metadata_req *q = r->dec;
	struct op_name *names = NULL;
	struct meta_st *st;
	struct op_ctx x;
	int32_t k, most = 0;

	(void)w;
	conn_op_ctx(c, r, &x);
	r->st = NULL;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	memset(st, 0, sizeof(*st));
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
	if (op_metadata(&x, names, q->count, q->auto_create, &st->t,
	    &st->n) != OP_OK) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	/*
	 * Every topic: the clients' own, without the broker's internal
	 * __consumer_offsets (as kafka-topics --exclude-internal); asked
	 * by name it is answered.
	 */
	if (q->count == 0) {
		int32_t kept = 0;

		for (k = 0; k < st->n; k++)
			if (!topic_name_reserved(st->t[k].name,
			    st->t[k].name_len))
				st->t[kept++] = st->t[k];
		st->n = kept;
	}
	for (k = 0; k < st->n; k++)
		if (st->t[k].err == OP_OK && st->t[k].nparts > most)
			most = st->t[k].nparts;
	if (most > 0 && (st->scratch = conn_alloc(c, (size_t)most *
	    sizeof(*st->scratch))) == NULL) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	r->st = st;
	req_done(r, ERR_NONE);
}

void
native_metadata_emit(struct worker *w, struct conn *c, struct req *r)
{
	const struct meta_st *st = r->st;
	const struct op_topic_info *t;
	struct topic_info ti;
	size_t start;
	int32_t i, j;

	start = frame_begin_response(&c->out, r->id);
	wbuf_i16(&c->out, ERR_NONE);
	wbuf_i32(&c->out, st->n);
	for (i = 0; i < st->n; i++) {
		t = &st->t[i];
		memset(&ti, 0, sizeof(ti));
		ti.error = errcode(t->err);
		ti.name = t->name;
		ti.name_len = t->name_len;
		if (t->err == OP_OK && t->nparts > 0) {
			ti.count = t->nparts;
			ti.partitions = st->scratch;
			for (j = 0; j < t->nparts; j++) {
				st->scratch[j].partition = t->parts[j].partition;
				st->scratch[j].log_start = t->parts[j].log_start;
				st->scratch[j].log_end = t->parts[j].log_end;
				st->scratch[j].size_bytes =
				    t->parts[j].size_bytes;
			}
		}
		msg_encode_topic_info(&c->out, &ti);
	}
	frame_end(&c->out, start);
	conn_out_commit(c);
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
