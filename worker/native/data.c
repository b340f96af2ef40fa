/*
 * The native data path: PRODUCE, FETCH, LIST_OFFSETS and INIT_PRODUCER.
 * Each decodes its request (proto/msg.h) into the connection's arena,
 * fills the operation's arguments (worker/op/), calls it, and encodes
 * the native answer with errcode()'s codes.  The arguments point
 * into the payload; when conn.c moves it, decode runs again and
 * rebuilds them, while the operation's state (r->st) stays.
 */
#include <stdint.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "shm/stats.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/errcode.h"
#include "worker/native/data.h"
#include "worker/native/native.h"
#include "worker/op/fetch.h"
#include "worker/op/offsets.h"
#include "worker/op/produce.h"
#include "worker/op/producer.h"
#include "worker/worker.h"

_Static_assert(OFFSET_EARLIEST == OP_OFFSET_EARLIEST &&
    OFFSET_LATEST == OP_OFFSET_LATEST, "LIST_OFFSETS carries the op's values");

/* The request as decoded, and the operation's arguments built from it. */
struct native_produce {
	struct produce_req	 q;
	struct op_produce	 a;
};

struct native_fetch {
	struct fetch_req	 q;
	struct op_fetch		 a;
};

/* A PRODUCE in progress: the operation's state and the native results. */
struct native_produce_st {
	struct op_produce_st	*op;
	struct produce_result	*res;
};

/*
 * r->dec of size bytes (once: a redecode reuses it), the payload's arena
 * use accounted (once per request: conn_detach takes a redecode's back).
 */
static void *
dec_alloc(struct conn *c, struct req *r, size_t size)
{
	if (r->dec == NULL && (r->dec = conn_alloc(c, size)) == NULL)
		return NULL;
	c->arena_bytes += r->payload_len;
	return r->dec;
}

/* ---- PRODUCE ---- */

int
native_produce_decode(struct conn *c, struct req *r)
{
	struct native_produce *n;
	struct op_produce_part *pp;
	int32_t i;

	if ((n = dec_alloc(c, r, sizeof(*n))) == NULL)
		return -1;
	if (msg_decode_produce_req(r->payload, r->payload_len, &c->arena,
	    &n->q) == -1)
		return -1;
	memset(&n->a, 0, sizeof(n->a));
	n->a.acks = n->q.acks;
	n->a.timeout_ms = n->q.timeout_ms;
	n->a.count = n->q.count;
	if (n->q.count <= 0)
		return 0;
	if ((pp = conn_alloc(c, (size_t)n->q.count * sizeof(*pp))) == NULL)
		return -1;
	for (i = 0; i < n->q.count; i++) {
		pp[i].topic = n->q.parts[i].topic;
		pp[i].topic_len = n->q.parts[i].topic_len;
		pp[i].partition = n->q.parts[i].partition;
		pp[i].records = n->q.parts[i].records;
		pp[i].records_len = (size_t)n->q.parts[i].records_len;
	}
	n->a.parts = pp;
	return 0;
}

/* Done: the native results of every part. */
static void
produce_results(struct native_produce_st *st)
{
	int32_t i;

	for (i = 0; i < st->op->count; i++) {
		st->res[i].error = errcode(st->op->res[i].err);
		st->res[i].base_offset = st->op->res[i].base_offset;
		st->res[i].log_start = st->op->res[i].log_start;
	}
}

static void
produce_status(struct req *r, enum op_status s)
{
	struct native_produce_st *st = r->st;

	api_req_status(r, s, st->op->deadline);
	if (s == OP_DONE)
		produce_results(st);
}

void
native_produce_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct native_produce *n = r->dec;
	struct native_produce_st *st = r->st;
	struct op_ctx x;
	enum op_status s;
	enum op_err err;

	conn_op_ctx(c, r, &x);
	if (st == NULL) {
		r->noresp = n->a.acks == 0;
		if ((st = conn_alloc(c, sizeof(*st))) == NULL ||
		    (n->a.count > 0 && (st->res = conn_alloc(c,
		    (size_t)n->a.count * sizeof(*st->res))) == NULL)) {
			r->error = ERR_RESOURCE_LIMIT;
			r->state = REQ_DONE;
			return;
		}
		st->op = NULL;
	}
	s = op_produce(&x, &n->a, &st->op, &err);
	if (err != OP_OK) {
		r->error = errcode(err);
		r->state = REQ_DONE;
		return;
	}
	r->st = st;
	produce_status(r, s);
}

void
native_produce_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct native_produce_st *st = r->st;
	struct op_ctx x;

	conn_op_ctx(c, r, &x);
	produce_status(r, op_produce_poll(&x, st->op));
}

void
native_produce_emit(struct worker *w, struct conn *c, struct req *r)
{
	const struct native_produce_st *st = r->st;
	struct produce_resp pr;
	size_t start;
	int32_t i;

	pr.error = ERR_NONE;
	pr.count = st->op->count;
	pr.results = st->res;
	for (i = 0; i < pr.count; i++)
		stats_error_count(w->me, pr.results[i].error);
	start = frame_begin_response(&c->out, r->id);
	msg_encode_produce_resp(&c->out, &pr);
	frame_end(&c->out, start);
	conn_out_commit(c);
}

/* ---- FETCH ---- */

int
native_fetch_decode(struct conn *c, struct req *r)
{
	struct native_fetch *n;
	struct op_fetch_part *fp;
	int32_t i;

	if ((n = dec_alloc(c, r, sizeof(*n))) == NULL)
		return -1;
	/* Version 3 ends with the isolation level. */
	if ((c->proto_version >= 3 ? msg_decode_fetch_req_v3 :
	    msg_decode_fetch_req)(r->payload, r->payload_len, &c->arena,
	    &n->q) == -1)
		return -1;
	memset(&n->a, 0, sizeof(n->a));
	n->a.isolation = n->q.isolation == FETCH_READ_COMMITTED ? 1 : 0;
	n->a.max_wait_ms = n->q.max_wait_ms;
	n->a.min_bytes = n->q.min_bytes;
	n->a.max_bytes = n->q.max_bytes;
	n->a.count = n->q.count;
	if (n->q.count <= 0)
		return 0;
	if ((fp = conn_alloc(c, (size_t)n->q.count * sizeof(*fp))) == NULL)
		return -1;
	for (i = 0; i < n->q.count; i++) {
		fp[i].topic = n->q.parts[i].topic;
		fp[i].topic_len = n->q.parts[i].topic_len;
		fp[i].partition = n->q.parts[i].partition;
		fp[i].offset = n->q.parts[i].offset;
		fp[i].max_bytes = n->q.parts[i].max_bytes;
	}
	n->a.parts = fp;
	return 0;
}

void
native_fetch_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct native_fetch *n = r->dec;
	struct op_fetch_st *st = NULL;
	struct op_ctx x;
	enum op_status s;
	enum op_err err;

	conn_op_ctx(c, r, &x);
	s = op_fetch(&x, &n->a, &st, &err);
	if (err != OP_OK) {
		r->error = errcode(err);
		r->state = REQ_DONE;
		return;
	}
	r->st = st;
	api_req_status(r, s, st->deadline);
}

void
native_fetch_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct native_fetch *n = r->dec;
	struct op_fetch_st *st = r->st;
	struct op_ctx x;

	conn_op_ctx(c, r, &x);
	api_req_status(r, op_fetch_poll(&x, &n->a, st), st->deadline);
}

/*
 * The answer, file ranges by sendfile; version 3 with each part's last
 * stable offset and aborted transactions.
 */
void
native_fetch_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct op_fetch_st *st = r->st;
	struct op_fetch_result s;
	struct wbuf *wb = &c->out;
	uint64_t size;
	int32_t i, k;
	int16_t e;
	int v3 = c->proto_version >= 3;

	size = 4 + 2 + 4;
	for (i = 0; i < st->count; i++)
		size += 2 + 8 + 8 + 4 + (st->res[i].err == OP_CORRUPT_STORED ?
		    FETCH_CORRUPT_RECORDS : st->res[i].len) + (v3 ? 8 + 4 +
		    16 * (uint64_t)(st->res[i].naborted > 0 ?
		    st->res[i].naborted : 0) : 0);
	if (size > UINT32_MAX) {
		c->dead = 1;
		return;
	}
	wbuf_i32(wb, (int32_t)(uint32_t)size);
	wbuf_i32(wb, (int32_t)r->id);
	wbuf_i16(wb, ERR_NONE);
	wbuf_i32(wb, st->count);
	for (i = 0; i < st->count; i++) {
		op_fetch_take(st, i, &s);
		e = errcode(s.err);
		wbuf_i16(wb, e);
		wbuf_i64(wb, s.log_start);
		wbuf_i64(wb, s.hwm);
		if (v3) {
			wbuf_i64(wb, s.lso);
			wbuf_i32(wb, s.naborted > 0 ? s.naborted : 0);
			for (k = 0; k < s.naborted; k++) {
				wbuf_i64(wb, s.aborted[k].pid);
				wbuf_i64(wb, s.aborted[k].first);
			}
		}
		stats_error_count(w->me, e);
		if (s.err == OP_CORRUPT_STORED) {
			wbuf_i32(wb, FETCH_CORRUPT_RECORDS);
			wbuf_i64(wb, s.bad_first);
			wbuf_i64(wb, s.bad_next);
			continue;
		}
		wbuf_i32(wb, (int32_t)s.len);
		if (s.len > 0) {
			op_fetch_sent(&s);
			/* The output queue owns the descriptor from here. */
			if (conn_out_file(c, s.fd, s.pos, s.len) == -1)
				return;
		}
	}
	conn_out_commit(c);
}

void
native_fetch_release(struct req *r)
{
	op_fetch_release(r->st);
}

/* ---- LIST_OFFSETS ---- */

int
native_list_offsets_decode(struct conn *c, struct req *r)
{
	if (dec_alloc(c, r, sizeof(struct list_offsets_req)) == NULL)
		return -1;
	return msg_decode_list_offsets_req(r->payload, r->payload_len,
	    &c->arena, r->dec);
}

void
native_list_offsets_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct list_offsets_req *q = r->dec;
	struct list_offsets_resp *s;
	struct op_ctx x;
	int32_t i;

	conn_op_ctx(c, r, &x);
	r->state = REQ_DONE;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL)
		goto nomem;
	memset(s, 0, sizeof(*s));
	if (q->count > 0 && (s->results = conn_alloc(c, (size_t)q->count *
	    sizeof(*s->results))) == NULL)
		goto nomem;
	s->count = q->count;
	for (i = 0; i < q->count; i++)
		s->results[i].error = errcode(q->parts[i].which ==
		    OFFSET_LAST_STABLE && c->proto_version >= 3 ?
		    op_list_offset_committed(&x, q->parts[i].topic,
		    q->parts[i].topic_len, q->parts[i].partition,
		    OP_OFFSET_LATEST, &s->results[i].offset,
		    &s->results[i].timestamp) : op_list_offset(&x,
		    q->parts[i].topic, q->parts[i].topic_len,
		    q->parts[i].partition, q->parts[i].which,
		    &s->results[i].offset, &s->results[i].timestamp));
	r->st = s;
	r->error = ERR_NONE;
	return;
nomem:
	r->error = ERR_RESOURCE_LIMIT;
}

void
native_list_offsets_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start;

	start = frame_begin_response(&c->out, r->id);
	msg_encode_list_offsets_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}

/* ---- INIT_PRODUCER ---- */

void
native_init_producer_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct init_producer_req q;
	struct init_producer_resp *s;
	struct op_ctx x;
	enum op_err err;

	r->state = REQ_DONE;
	if (msg_decode_init_producer_req(r->payload, r->payload_len, &q) == -1) {
		r->error = ERR_INVALID_REQUEST;
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		r->error = ERR_RESOURCE_LIMIT;
		return;
	}
	memset(s, 0, sizeof(*s));
	conn_op_ctx(c, r, &x);
	err = op_init_producer(&x, q.producer_id, q.producer_epoch,
	    &s->producer_id, &s->producer_epoch);
	r->st = s;
	r->error = errcode(err);
}

void
native_init_producer_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start;

	start = frame_begin_response(&c->out, r->id);
	msg_encode_init_producer_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}
