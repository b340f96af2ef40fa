/*
 * CONFIG_DESCRIBE and CONFIG_ALTER in a worker (see config.h).  Every
 * answer carries its error and a message in its own body (r->error stays
 * NONE), so that an INVALID_CONFIG says which key.
 */
#include <stdio.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/msg_tconf.h"
#include "proto/tconf.h"
#include "worker/conn.h"
#include "worker/errcode.h"
#include "worker/native/config.h"
#include "worker/op/tconf.h"
#include "worker/worker.h"

/* How long CONFIG_ALTER waits for the writer's save (libflume waits 30 s). */
#define CONFIG_ALTER_WAIT_MS	25000

/* r->dec of size once (a redecode reuses it), the payload accounted. */
static void *
dec(struct conn *c, struct req *r, size_t size)
{
	if (r->dec == NULL && (r->dec = conn_alloc(c, size)) == NULL)
		return NULL;
	c->arena_bytes += r->payload_len;
	return r->dec;
}

int
native_config_describe_decode(struct conn *c, struct req *r)
{
	if (dec(c, r, sizeof(struct config_describe_req)) == NULL)
		return -1;
	return msg_decode_config_describe_req(r->payload, r->payload_len,
	    r->dec);
}

int
native_config_alter_decode(struct conn *c, struct req *r)
{
	if (dec(c, r, sizeof(struct config_alter_req)) == NULL)
		return -1;
	return msg_decode_config_alter_req(r->payload, r->payload_len,
	    &c->arena, r->dec);
}

/* r answered with error alone (out of request memory). */
static void
refuse(struct req *r, int16_t error)
{
	r->error = error;
	r->state = REQ_DONE;
}

/* r answered with s (its error and message inside). */
static void
answer(struct req *r, void *s)
{
	r->st = s;
	r->error = ERR_NONE;
	r->state = REQ_DONE;
}

void
native_config_describe_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct config_describe_req *q = r->dec;
	struct config_describe_resp *s;
	struct op_tconf_view v;
	struct op_ctx x;
	enum op_err e;
	char buf[64], *val;
	int k, broker = q->kind == CONFIG_KIND_BROKER;

	(void)w;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		refuse(r, ERR_RESOURCE_LIMIT);
		return;
	}
	memset(s, 0, sizeof(*s));
	conn_op_ctx(c, r, &x);
	if (q->kind != CONFIG_KIND_TOPIC && !broker)
		e = OP_BAD_REQUEST;
	else if (broker)
		e = op_tconf_describe_broker(&x, &v);
	else
		e = op_tconf_describe(&x, q->name, q->name_len, &v);
	s->error = errcode(e);
	if (e == OP_OK && (s->entries = conn_alloc(c, TC_NKEYS *
	    sizeof(*s->entries))) == NULL) {
		refuse(r, ERR_RESOURCE_LIMIT);
		return;
	}
	for (k = 0; e == OP_OK && k < TC_NKEYS; k++) {
		tconf_print((enum tconf_key)k, v.eff.v[k], buf, sizeof(buf));
		if ((val = conn_alloc(c, strlen(buf) + 1)) == NULL) {
			refuse(r, ERR_RESOURCE_LIMIT);
			return;
		}
		memcpy(val, buf, strlen(buf) + 1);
		s->entries[k].key = broker && tconf_defs[k].broker != NULL ?
		    tconf_defs[k].broker : tconf_defs[k].name;
		s->entries[k].key_len = strlen(s->entries[k].key);
		s->entries[k].value = val;
		s->entries[k].value_len = strlen(val);
		s->entries[k].source = v.src[k];
		s->count = k + 1;
	}
	answer(r, s);
}

void
native_config_describe_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start = frame_begin_response(&c->out, r->id);

	(void)w;
	msg_encode_config_describe_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}

struct alter_st {
	struct config_alter_resp resp;		/* first: r->st points here */
	struct op_tconf_alter	 a;
};

static void
alter_answer(struct req *r, struct alter_st *st, enum op_status s)
{
	if (s != OP_DONE) {
		r->state = REQ_WAIT;
		return;
	}
	st->resp.error = errcode(st->a.err);
	st->resp.message = st->a.why;
	st->resp.message_len = strlen(st->a.why);
	answer(r, st);
}

void
native_config_alter_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct config_alter_req *q = r->dec;
	struct op_tconf_edit *e = NULL;
	struct alter_st *st;
	struct op_ctx x;
	int32_t i;

	if ((st = conn_alloc(c, sizeof(*st))) == NULL || (q->count > 0 &&
	    (e = conn_alloc(c, (size_t)q->count * sizeof(*e))) == NULL)) {
		refuse(r, ERR_RESOURCE_LIMIT);
		return;
	}
	memset(st, 0, sizeof(*st));
	r->st = st;
	r->error = ERR_NONE;
	for (i = 0; i < q->count; i++) {
		e[i].name = q->edits[i].key;
		e[i].name_len = q->edits[i].key_len;
		e[i].value = q->edits[i].value != NULL ? q->edits[i].value : "";
		e[i].value_len = q->edits[i].value_len;
		e[i].kind = q->edits[i].op;
	}
	st->a.edits = e;
	st->a.n = q->count > 0 ? q->count : 0;
	st->a.validate_only = q->validate_only;
	r->deadline = w->now + CONFIG_ALTER_WAIT_MS;
	st->a.deadline = r->deadline;
	conn_op_ctx(c, r, &x);
	alter_answer(r, st, op_tconf_alter(&x, q->topic, q->topic_len, &st->a));
	/* The payload may move while waiting: keep no pointer into it. */
	st->a.edits = NULL;
}

void
native_config_alter_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct alter_st *st = r->st;
	struct op_ctx x;

	(void)w;
	conn_op_ctx(c, r, &x);
	alter_answer(r, st, op_tconf_alter_poll(&x, &st->a));
}

void
native_config_alter_emit(struct worker *w, struct conn *c, struct req *r)
{
	size_t start = frame_begin_response(&c->out, r->id);

	(void)w;
	msg_encode_config_alter_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}
