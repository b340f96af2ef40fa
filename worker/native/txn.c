/*
 * TRANSACTIONS (29) on the native face; see txn.h.  An empty request; the
 * answer lists every transactional id the coordinator keeps.
 */
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "worker/conn.h"
#include "worker/native/native.h"
#include "worker/native/txn.h"
#include "worker/op/txn.h"
#include "worker/worker.h"

void
native_txn_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct transactions_resp *s;
	struct op_txn_info *info;
	struct op_ctx x;
	int32_t i, n;

	(void)w;
	r->state = REQ_DONE;
	if (r->payload_len != 0) {
		r->error = ERR_INVALID_REQUEST;
		return;
	}
	conn_op_ctx(c, r, &x);
	if (op_txn_list(&x, 0, NULL, 0, -1, &info, &n) != OP_OK ||
	    (s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (n > 0 && (s->txns = conn_alloc(c, (size_t)n *
	    sizeof(*s->txns))) == NULL)) {
		r->error = ERR_RESOURCE_LIMIT;
		return;
	}
	if (n == 0)
		s->txns = NULL;
	s->error = ERR_NONE;
	s->count = n;
	for (i = 0; i < n; i++) {
		char *id = conn_alloc(c, info[i].id_len + 1);

		if (id == NULL) {
			r->error = ERR_RESOURCE_LIMIT;
			return;
		}
		memcpy(id, info[i].id, info[i].id_len);
		id[info[i].id_len] = '\0';
		s->txns[i].id = id;
		s->txns[i].id_len = info[i].id_len;
		s->txns[i].producer_id = info[i].pid;
		s->txns[i].epoch = info[i].epoch;
		s->txns[i].state = (int8_t)info[i].state;
		s->txns[i].timeout_ms = info[i].timeout_ms;
		s->txns[i].start_ms = info[i].start_ms;
		s->txns[i].update_ms = info[i].update_ms;
		s->txns[i].partitions = (int32_t)info[i].nparts_all;
	}
	r->st = s;
	r->error = ERR_NONE;
}

void
native_txn_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start = frame_begin_response(&c->out, r->id);

	(void)w;
	msg_encode_transactions_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}
