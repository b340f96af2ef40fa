/*
 * Kafka's SCRAM credential APIs in a worker (KIP-554):
 * DescribeUserScramCredentials and AlterUserScramCredentials v0
 * (proto/kafka/kmsg_acl.h) over the auth_file's users (worker/op/scram.h;
 * the mapping is common/authscram.h).
 *
 * Both need an auth_file (SECURITY_DISABLED otherwise, the top-level
 * error of Describe and each user's of Alter) and the broker's admin
 * rights (CLUSTER_AUTHORIZATION_FAILED: Kafka asks DESCRIBE or ALTER on
 * the cluster).  Describe answers each user asked, or every user with a
 * credential: a user with a password has both mechanisms at 4096
 * iterations; an unknown one is RESOURCE_NOT_FOUND, one asked twice
 * DUPLICATE_RESOURCE.  Alter answers per user: Kafka's
 * UNSUPPORTED_SASL_MECHANISM, UNACCEPTABLE_CREDENTIAL (iterations
 * outside 4096-16384, an empty name), RESOURCE_NOT_FOUND and
 * DUPLICATE_RESOURCE, and Flume's own refusals as INVALID_REQUEST with
 * a message (a salted password of the wrong length, a mechanism that
 * comes from a password); it answers once the file is in force here.
 */
#include <stdio.h>
#include <string.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_acl.h"
#include "worker/conn.h"
#include "worker/kafka/acl.h"
#include "worker/kafka/kafka.h"
#include "worker/op/scram.h"
#include "worker/worker.h"


static int16_t
scram_error(enum authscram_err e)
{
	switch (e) {
	case AUTHSCRAM_OK:
		return KERR_NONE;
	case AUTHSCRAM_DUPLICATE:
		return KERR_DUPLICATE_RESOURCE;
	case AUTHSCRAM_NOT_FOUND:
		return KERR_RESOURCE_NOT_FOUND;
	case AUTHSCRAM_MECHANISM:
		return KERR_UNSUPPORTED_SASL_MECHANISM;
	case AUTHSCRAM_UNACCEPTABLE:
		return KERR_UNACCEPTABLE_CREDENTIAL;
	case AUTHSCRAM_PASSWORD:
		return KERR_INVALID_REQUEST;
	default:
		return KERR_UNKNOWN_SERVER_ERROR;
	}
}

/* ---- DescribeUserScramCredentials ---- */

struct kscram_describe {
	enum op_err		 err;
	struct op_scram_user	*u;
	size_t			 n;
};

void
kafka_describe_scram_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_describe_scram_req *q = k->body;
	const struct km_scram_user_name *un = q->users.v;
	struct kscram_describe *st;
	struct op_scram_user *all;
	struct op_ctx x;
	size_t i, n = q->users.n > 0 ? (size_t)q->users.n : 0, nall;
	char *cp;

	(void)w;
	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL ||
	    (n > 0 && (st->u = conn_alloc(c, n * sizeof(*st->u))) == NULL)) {
		c->dead = 1;
		return;
	}
	if (n == 0)
		st->u = NULL;
	st->n = n;
	k->kst = st;
	conn_op_ctx(c, r, &x);
	if ((st->err = op_auth_admin(&x)) != OP_OK)
		return;
	for (i = 0; i < n; i++) {
		memset(&st->u[i], 0, sizeof(st->u[i]));
		/* Copies: the answer is made after the body may have moved. */
		if ((cp = conn_alloc(c, un[i].name.len > 0 ?
		    (size_t)un[i].name.len : 1)) == NULL) {
			c->dead = 1;
			return;
		}
		if (un[i].name.len > 0)
			memcpy(cp, un[i].name.p, (size_t)un[i].name.len);
		st->u[i].name = cp;
		st->u[i].name_len = un[i].name.len > 0 ?
		    (size_t)un[i].name.len : 0;
	}
	st->err = op_scram_describe(&x, st->u, n, &all, &nall);
	if (n == 0) {
		st->u = all;
		st->n = nall;
	}
}

void
kafka_describe_scram_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kscram_describe *st = k->kst;
	struct km_describe_scram_resp s;
	struct km_describe_scram_result *res = NULL;
	struct km_scram_credential_info *ci;
	const struct op_scram_user *u;
	char *msg;
	size_t i, j;
	int m, nc;

	(void)w;
	kdesc_defaults(kmsg_describe_scram.km_resp, &s);
	if (st->err != OP_OK) {
		s.error_code = kafka_op_error(st->err);
		s.error_message =
		    kstr_c(kafka_auth_gate_message(st->err));
		kafka_emit_desc(c, r, &s);
		return;
	}
	if (st->n > 0 && (res = conn_alloc(c, st->n * sizeof(*res))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0, j = 0; i < st->n; i++) {
		u = &st->u[i];
		if (u->repeat)
			continue;
		memset(&res[j], 0, sizeof(res[j]));
		res[j].user.p = u->name;
		res[j].user.len = (int32_t)u->name_len;
		res[j].error_code = scram_error(u->err);
		if (u->err != AUTHSCRAM_OK) {
			/* Kafka's messages, with the name. */
			if ((msg = conn_alloc(c, 128 + u->name_len)) == NULL) {
				c->dead = 1;
				return;
			}
			snprintf(msg, 128 + u->name_len, "%s%.*s",
			    u->err == AUTHSCRAM_DUPLICATE ? "Cannot describe "
			    "SCRAM credentials for the same user twice in a "
			    "single request: " : "Attempt to describe a user "
			    "credential that does not exist: ",
			    (int)u->name_len, u->name);
			res[j++].error_message = kstr_c(msg);
			continue;
		}
		if ((ci = conn_alloc(c, 2 * sizeof(*ci))) == NULL) {
			c->dead = 1;
			return;
		}
		for (m = 0, nc = 0; m < 2; m++) {
			if (u->it[m] == 0)
				continue;
			ci[nc].mechanism = (int8_t)(m + 1);
			ci[nc].iterations = u->it[m];
			nc++;
		}
		res[j].credential_infos.n = nc;
		res[j++].credential_infos.v = ci;
	}
	s.results.n = (int32_t)j;
	s.results.v = res;
	kafka_emit_desc(c, r, &s);
}

/* ---- AlterUserScramCredentials ---- */

struct kscram_alter {
	enum op_err		 gate;
	size_t			 n;	/* alterations: users for a refusal */
	struct scram_alter	*a;
	struct op_scram_alter	 op;
};

/* A copy of s in c's memory (""), or NULL. */
static char *
str_copy(struct conn *c, struct kstr s, size_t *len)
{
	char *p;

	*len = s.len > 0 ? (size_t)s.len : 0;
	if ((p = conn_alloc(c, *len + 1)) == NULL)
		return NULL;
	if (*len > 0)
		memcpy(p, s.p, *len);
	p[*len] = '\0';
	return p;
}

void
kafka_alter_scram_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_alter_scram_req *q = k->body;
	const struct km_scram_deletion *de = q->deletions.v;
	const struct km_scram_upsertion *up = q->upsertions.v;
	struct kscram_alter *st;
	struct scram_alter *a;
	struct op_ctx x;
	size_t nd = q->deletions.n > 0 ? (size_t)q->deletions.n : 0;
	size_t nu = q->upsertions.n > 0 ? (size_t)q->upsertions.n : 0, i;

	(void)w;
	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL ||
	    (st->a = a = conn_alloc(c, (nd + nu + 1) * sizeof(*a))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(&st->op, 0, sizeof(st->op));
	st->n = nd + nu;
	k->kst = st;
	/* Kafka's order: the deletions, then the upsertions. */
	for (i = 0; i < nd + nu; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		if ((a[i].user = str_copy(c, i < nd ? de[i].name :
		    up[i - nd].name, &a[i].user_len)) == NULL) {
			c->dead = 1;
			return;
		}
		if (i < nd) {
			a[i].del = 1;
			a[i].mech = de[i].mechanism;
			continue;
		}
		a[i].mech = up[i - nd].mechanism;
		a[i].iterations = up[i - nd].iterations;
		a[i].salt = (const uint8_t *)up[i - nd].salt.p;
		a[i].salt_len = up[i - nd].salt.len > 0 ?
		    (size_t)up[i - nd].salt.len : 0;
		a[i].salted = (const uint8_t *)up[i - nd].salted_password.p;
		a[i].salted_len = up[i - nd].salted_password.len > 0 ?
		    (size_t)up[i - nd].salted_password.len : 0;
	}
	conn_op_ctx(c, r, &x);
	if ((st->gate = op_auth_admin(&x)) != OP_OK)
		return;
	st->op.a = a;
	st->op.n = nd + nu;
	if (op_scram_alter(&x, &st->op) == OP_WAIT) {
		r->deadline = st->op.ch.deadline;
		r->state = REQ_WAIT;
	}
	/* The salts are the body's: not read again. */
	for (i = 0; i < nd + nu; i++)
		a[i].salt = a[i].salted = NULL;
}

void
kafka_alter_scram_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	(void)w;
	kafka_auth_change_poll(c, r, &((struct kscram_alter *)k->kst)->op.ch);
}

void
kafka_alter_scram_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kscram_alter *st = k->kst;
	struct km_alter_scram_resp s;
	struct km_alter_scram_result *res = NULL;
	const struct scram_result *sr;
	size_t i, j, n;

	(void)w;
	kdesc_defaults(kmsg_alter_scram.km_resp, &s);
	n = st->gate != OP_OK ? st->n : st->op.nres;
	if (n > 0 && (res = conn_alloc(c, n * sizeof(*res))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0, j = 0; i < n; i++) {
		memset(&res[j], 0, sizeof(res[j]));
		if (st->gate != OP_OK) {
			/* One answer per user named. */
			size_t m;

			for (m = 0; m < j; m++)
				if ((size_t)res[m].user.len == st->a[i].user_len &&
				    memcmp(res[m].user.p, st->a[i].user,
				    st->a[i].user_len) == 0)
					break;
			if (m < j)
				continue;
			res[j].user.p = st->a[i].user;
			res[j].user.len = (int32_t)st->a[i].user_len;
			res[j].error_code = kafka_op_error(st->gate);
			res[j].error_message =
			    kstr_c(kafka_auth_gate_message(st->gate));
			j++;
			continue;
		}
		sr = &st->op.res[i];
		res[j].user.p = sr->user;
		res[j].user.len = (int32_t)sr->user_len;
		if (sr->err != AUTHSCRAM_OK) {
			res[j].error_code = scram_error(sr->err);
			res[j].error_message = kstr_c(sr->why);
		} else if (st->op.ch.err != OP_OK) {
			res[j].error_code = kafka_op_error(st->op.ch.err);
			res[j].error_message = kstr_c(st->op.ch.err == OP_TIMEOUT ?
			    "written to the auth_file, not yet in force" :
			    "the auth_file could not be changed (see the "
			    "broker's log)");
		}
		j++;
	}
	s.results.n = (int32_t)j;
	s.results.v = res;
	kafka_emit_desc(c, r, &s);
}
