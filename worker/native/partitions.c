/*
 * The native CREATE_PARTITIONS (proto/msg.h): grow a topic through the
 * operation Kafka's CreatePartitions uses (worker/op/partitions.h),
 * answering the count after the grow, or the current one with
 * INVALID_PARTITIONS.
 */
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "worker/conn.h"
#include "worker/errcode.h"
#include "worker/native/partitions.h"
#include "worker/op/partitions.h"
#include "worker/worker.h"

struct grow_st {
	struct create_partitions_resp resp;	/* first: r->st points here */
	struct op_partitions_grow a;
};

int
native_partitions_decode(struct conn *c, struct req *r)
{
	if (r->dec == NULL &&
	    (r->dec = conn_alloc(c, sizeof(struct create_partitions_req))) ==
	    NULL)
		return -1;
	c->arena_bytes += r->payload_len;
	return msg_decode_create_partitions_req(r->payload, r->payload_len,
	    r->dec);
}

/* The answer once the operation is done. */
static void
grow_answer(struct req *r, enum op_status s, struct grow_st *st)
{
	if (s != OP_DONE) {
		r->state = REQ_WAIT;
		return;
	}
	st->resp.error = errcode(st->a.err);
	st->resp.partitions = st->a.err == OP_OK || st->a.err == OP_TIMEOUT ?
	    st->a.count : st->a.current;
	r->state = REQ_DONE;
}

void
native_partitions_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct create_partitions_req *q = r->dec;
	struct grow_st *st;
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
	    PARTITIONS_GROW_TIMEOUT_MS);
	st->a.count = q->count;
	st->a.deadline = r->deadline;
	conn_op_ctx(c, r, &x);
	grow_answer(r, op_partitions_grow(&x, q->topic, q->topic_len, &st->a),
	    st);
}

void
native_partitions_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct grow_st *st = r->st;
	struct op_ctx x;

	(void)w;
	conn_op_ctx(c, r, &x);
	grow_answer(r, op_partitions_grow_poll(&x, &st->a), st);
}

void
native_partitions_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start;

	(void)w;
	start = frame_begin_response(&c->out, r->id);
	msg_encode_create_partitions_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}
