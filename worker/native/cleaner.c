/*
 * CLEANER (29) on the native face; see cleaner.h.  An empty request; the
 * answer lists every partition of the compacted topics.
 */
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "worker/conn.h"
#include "worker/native/cleaner.h"
#include "worker/native/native.h"
#include "worker/op/cleaner.h"
#include "worker/worker.h"

static void
req_done(struct req *r, int16_t error)
{
	r->error = error;
	r->state = REQ_DONE;
}

void
native_cleaner_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct cleaner_resp *s;
	struct op_cleaner_part *cp;
	struct op_cleaner_totals t;
	struct op_ctx x;
	int32_t i, n;

	(void)w;
	if (r->payload_len != 0) {
		req_done(r, ERR_INVALID_REQUEST);
		return;
	}
	conn_op_ctx(c, r, &x);
	if (op_cleaner_info(&x, &cp, &n, &t) != OP_OK ||
	    (s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (n > 0 && (s->parts = conn_alloc(c, (size_t)n *
	    sizeof(*s->parts))) == NULL)) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	if (n == 0)
		s->parts = NULL;
	s->error = ERR_NONE;
	s->runs = t.runs;
	s->bytes_read = t.bytes_read;
	s->bytes_written = t.bytes_written;
	s->records_removed = t.records_removed;
	s->count = n;
	for (i = 0; i < n; i++) {
		s->parts[i].topic = cp[i].topic;
		s->parts[i].topic_len = cp[i].topic_len;
		s->parts[i].partition = cp[i].partition;
		s->parts[i].dirty_ppm = cp[i].dirty_ppm;
		s->parts[i].last_clean_ms = cp[i].last_clean_ms;
		s->parts[i].saved = cp[i].saved;
		s->parts[i].log_bytes = cp[i].log_bytes;
	}
	r->st = s;
	req_done(r, ERR_NONE);
}

void
native_cleaner_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start = frame_begin_response(&c->out, r->id);

	(void)w;
	msg_encode_cleaner_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}
