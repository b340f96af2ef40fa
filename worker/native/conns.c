/*
 * CONNECTIONS (worker/native/conns.h): the operation's list
 * (worker/op/describe.h: op_connections) on the native wire.  The row
 * asks admin on every topic, as WORKERS does: it shows every client's
 * address.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/native/conns.h"
#include "worker/op/describe.h"
#include "worker/worker.h"

void
native_connections_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct connections_resp *s;
	struct op_conn *v;
	struct op_ctx x;
	int32_t i, n;

	(void)w;
	r->state = REQ_DONE;
	if (r->payload_len != 0) {
		r->error = ERR_INVALID_REQUEST;
		return;
	}
	conn_op_ctx(c, r, &x);
	if (op_connections(&x, &v, &n) != OP_OK ||
	    (s = conn_alloc(c, sizeof(*s))) == NULL ||
	    (n > 0 && (s->conns = conn_alloc(c, (size_t)n *
	    sizeof(*s->conns))) == NULL)) {
		r->error = ERR_RESOURCE_LIMIT;
		return;
	}
	if (n == 0)
		s->conns = NULL;
	s->error = ERR_NONE;
	s->count = n;
	for (i = 0; i < n; i++) {
		s->conns[i].slot = v[i].slot;
		s->conns[i].pid = v[i].pid;
		s->conns[i].protocol = v[i].kafka;
		s->conns[i].tls = v[i].tls;
		s->conns[i].opened_ms = v[i].opened_ms;
		s->conns[i].peer = v[i].peer;
		s->conns[i].peer_len = strlen(v[i].peer);
		s->conns[i].client_name = v[i].sw_name;
		s->conns[i].client_name_len = strlen(v[i].sw_name);
		s->conns[i].client_version = v[i].sw_version;
		s->conns[i].client_version_len = strlen(v[i].sw_version);
	}
	r->st = s;
	r->error = ERR_NONE;
}

void
native_connections_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start;

	(void)w;
	start = frame_begin_response(&c->out, r->id);
	msg_encode_connections_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}
