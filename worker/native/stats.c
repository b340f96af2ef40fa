/*
 * STATS (18): the snapshot is taken and encoded when the request is
 * executed, into memory of the connection's arena, so what is answered
 * is what the region held at that moment even if the answer waits
 * behind earlier ones.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "common/stats.h"
#include "shm/stats.h"
#include "worker/conn.h"
#include "worker/native/stats.h"
#include "worker/worker.h"

/* A snapshot is bounded by the tables' sizes; this only stops a runaway. */
#define STATS_ARENA_LIMIT	(256u << 20)

/* The encoded payload, kept in the connection's arena until emitted. */
struct stats_st {
	uint8_t		*buf;
	size_t		 len;
};

void
stats_handler_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct stats_resp resp;
	struct stats_st *st;
	struct arena a;
	struct wbuf wb;

	r->state = REQ_DONE;
	if (r->payload_len != 0) {
		r->error = ERR_INVALID_REQUEST;
		return;
	}
	arena_init(&a, STATS_ARENA_LIMIT);
	wbuf_init(&wb);
	r->error = ERR_RESOURCE_LIMIT;
	if (stats_collect(w->shm, &a, &resp) == -1)
		goto out;
	msg_encode_stats_resp(&wb, &resp);
	if (wb.err)
		goto out;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL ||
	    (st->buf = conn_alloc(c, wb.len)) == NULL)
		goto out;
	memcpy(st->buf, wb.buf, wb.len);
	st->len = wb.len;
	r->st = st;
	r->error = ERR_NONE;
out:
	wbuf_free(&wb);
	arena_free(&a);
}

void
stats_handler_emit(struct worker *w, struct conn *c, struct req *r)
{
	const struct stats_st *st = r->st;
	size_t start;

	start = frame_begin_response(&c->out, r->id);
	wbuf_raw(&c->out, st->buf, st->len);
	frame_end(&c->out, start);
	conn_out_commit(c);
}
