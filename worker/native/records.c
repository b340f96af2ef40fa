/*
 * The native DELETE_RECORDS and OFFSET_DELETE (worker/native/records.h):
 * each decodes its request (proto/msg.h), calls its operation
 * (worker/op/records.h, worker/op/group_offsets.h) and encodes the
 * answer.  An error answer is native_emit()'s: the error code alone.
 */
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "worker/conn.h"
#include "worker/errcode.h"
#include "worker/native/records.h"
#include "worker/op/group_offsets.h"
#include "worker/op/records.h"
#include "worker/worker.h"

/* r->dec of size (once: a redecode reuses it), the arena use accounted. */
static void *
nr_dec(struct conn *c, struct req *r, size_t size)
{
	if (r->dec == NULL && (r->dec = conn_alloc(c, size)) == NULL)
		return NULL;
	c->arena_bytes += r->payload_len;
	return r->dec;
}

/* One response frame of what encode writes. */
#define NR_EMIT(c, r, call) do {					\
	size_t start_ = frame_begin_response(&(c)->out, (r)->id);	\
	call;								\
	frame_end(&(c)->out, start_);					\
	conn_out_commit(c);						\
} while (0)

/* ---- DELETE_RECORDS ---- */

struct nrec_st {
	struct delete_records_resp	resp;	/* first: r->st points here */
	struct op_delete_records	a;
};

int
native_delete_records_decode(struct conn *c, struct req *r)
{
	if (nr_dec(c, r, sizeof(struct delete_records_req)) == NULL)
		return -1;
	return msg_decode_delete_records_req(r->payload, r->payload_len,
	    r->dec);
}

/* r's state once the operation answered s. */
static void
nrec_answer(struct req *r, enum op_status s)
{
	struct nrec_st *st = (struct nrec_st *)r->st;

	if (s != OP_DONE) {
		r->state = REQ_WAIT;
		return;
	}
	r->error = errcode(st->a.err);
	st->resp.error = r->error;
	st->resp.log_start = st->a.low_watermark;
	r->state = REQ_DONE;
}

void
native_delete_records_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct delete_records_req *q = r->dec;
	struct nrec_st *st;
	struct op_ctx x;

	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		r->error = ERR_RESOURCE_LIMIT;
		r->state = REQ_DONE;
		return;
	}
	memset(st, 0, sizeof(*st));
	r->st = st;
	r->error = ERR_NONE;
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms :
	    OP_DELETE_RECORDS_TIMEOUT_MS);
	st->a.offset = q->offset;
	st->a.deadline = r->deadline;
	conn_op_ctx(c, r, &x);
	nrec_answer(r, op_delete_records(&x, q->topic, q->topic_len,
	    q->partition, &st->a));
}

void
native_delete_records_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct nrec_st *st = (struct nrec_st *)r->st;
	struct op_ctx x;

	(void)w;
	conn_op_ctx(c, r, &x);
	nrec_answer(r, op_delete_records_poll(&x, &st->a));
}

void
native_delete_records_emit(struct worker *w, struct conn *c, struct req *r)
{
	(void)w;
	NR_EMIT(c, r, msg_encode_delete_records_resp(&c->out, r->st));
}

/* ---- OFFSET_DELETE ---- */

int
native_offset_delete_decode(struct conn *c, struct req *r)
{
	if (nr_dec(c, r, sizeof(struct offset_delete_req)) == NULL)
		return -1;
	return msg_decode_offset_delete_req(r->payload, r->payload_len,
	    &c->arena, r->dec);
}

/*
 * The partitions asked: those of q, or every partition of the topic for
 * none (an unknown topic: one partition -1, answered unknown).
 */
static struct op_group_offset *
odel_parts(struct worker *w, struct conn *c,
    const struct offset_delete_req *q, int32_t *n)
{
	struct op_group_offset *p;
	int32_t i;
	int ti = -1;

	*n = q->count;
	if (*n == 0) {
		ti = shm_topic_find(w->shm, q->topic, q->topic_len);
		*n = ti >= 0 ? w->shm->topics[ti].partitions : 1;
	}
	if ((p = conn_alloc(c, (size_t)*n * sizeof(*p))) == NULL)
		return NULL;
	for (i = 0; i < *n; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].topic = q->topic;
		p[i].topic_len = q->topic_len;
		p[i].partition = q->count > 0 ? q->parts[i].partition :
		    ti >= 0 ? i : -1;
	}
	return p;
}

void
native_offset_delete_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct offset_delete_req *q = r->dec;
	struct offset_delete_resp *s;
	struct op_group_offset *p;
	struct op_ctx x;
	enum op_err e;
	int32_t i, n;

	r->state = REQ_DONE;
	if (w->shm->hdr->limits.max_groups == 0) {
		r->error = errcode(OP_NO_GROUP);
		return;
	}
	if ((p = odel_parts(w, c, q, &n)) == NULL ||
	    (s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (s->results = conn_alloc(c, (size_t)n * sizeof(*s->results))) ==
	    NULL) {
		r->error = ERR_RESOURCE_LIMIT;
		return;
	}
	conn_op_ctx(c, r, &x);
	if ((e = op_group_offset_delete(&x, q->group, q->group_len, p, n)) !=
	    OP_OK) {
		r->error = errcode(e);
		return;
	}
	s->error = ERR_NONE;
	s->count = n;
	for (i = 0; i < n; i++) {
		s->results[i].partition = p[i].partition;
		s->results[i].error = errcode(p[i].err);
	}
	r->error = ERR_NONE;
	r->st = s;
}

void
native_offset_delete_emit(struct worker *w, struct conn *c, struct req *r)
{
	(void)w;
	NR_EMIT(c, r, msg_encode_offset_delete_resp(&c->out, r->st));
}
