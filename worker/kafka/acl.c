/*
 * Kafka's ACL APIs in a worker: DescribeAcls, CreateAcls and DeleteAcls
 * v0-3 (proto/kafka/kmsg_acl.h) over the auth_file's permissions
 * (worker/op/acl.h; the mapping is common/authacl.h).
 *
 * As in Kafka, without an authorizer (here: without an auth_file) every
 * call is SECURITY_DISABLED, and only a user with the broker's admin
 * rights (admin on every topic, Kafka's ALTER or DESCRIBE on the
 * cluster) may call them: CLUSTER_AUTHORIZATION_FAILED otherwise,
 * DescribeAcls in its top-level error, the others per creation or
 * filter.  A creation the auth_file cannot express is INVALID_REQUEST
 * with a message saying why; a matching ACL DeleteAcls must keep (part of
 * a permission the filters do not wholly match) is INVALID_REQUEST in its
 * matching entry.  CreateAcls and DeleteAcls answer once the changed file
 * is in force in this worker (REQUEST_TIMED_OUT after
 * OP_AUTH_CHANGE_WAIT_MS: written, not yet read by the master).
 */
#include <string.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_acl.h"
#include "worker/conn.h"
#include "worker/kafka/acl.h"
#include "worker/kafka/kafka.h"
#include "worker/op/acl.h"
#include "worker/worker.h"


/* A Kafka string (null: len -1) as the op's string (NULL). */
static void
spec_str(struct kstr s, const char **p, size_t *len)
{
	*p = s.len >= 0 ? s.p : NULL;
	*len = s.len >= 0 ? (size_t)s.len : 0;
}

static void
spec_of_filter(const struct km_acl_filter *f, struct acl_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->res = f->resource_type;
	s->pat = f->pattern_type;
	s->op = f->operation;
	s->perm = f->permission_type;
	spec_str(f->resource_name, &s->name, &s->name_len);
	spec_str(f->principal, &s->principal, &s->principal_len);
	spec_str(f->host, &s->host, &s->host_len);
}

/*
 * The n filters or creations of a request as the op's specs, in c's
 * memory; NULL (c is dead) when it has none left.
 */
static struct acl_spec *
specs_of(struct conn *c, const struct km_acl_filter *f, int32_t n)
{
	struct acl_spec *sp;
	int32_t i;

	if ((sp = conn_alloc(c, (size_t)(n > 0 ? n : 1) * sizeof(*sp))) ==
	    NULL) {
		c->dead = 1;
		return NULL;
	}
	for (i = 0; i < n; i++)
		spec_of_filter(&f[i], &sp[i]);
	return sp;
}

const char *
kafka_auth_gate_message(enum op_err e)
{
	return e == OP_SECURITY_DISABLED ? "no auth_file is configured: there "
	    "are no ACLs or users (see flume.conf(5))" :
	    e == OP_DENIED_CLUSTER ? "the broker's admin rights (admin on "
	    "every topic) are needed" : NULL;
}

/* ---- DescribeAcls ---- */

struct kacl_describe {
	int16_t			 error;
	const char		*why;
	struct acl_binding	*b;
	size_t			 n;
	char			 whybuf[ACL_WHY_MAX];
};

void
kafka_describe_acls_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_acl_filter *q = k->body;
	struct kacl_describe *st;
	struct acl_spec f;
	struct op_ctx x;
	enum op_err e;

	(void)w;
	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(st, 0, sizeof(*st));
	k->kst = st;
	conn_op_ctx(c, r, &x);
	if ((e = op_auth_admin(&x)) != OP_OK) {
		st->error = kafka_op_error(e);
		st->why = kafka_auth_gate_message(e);
		return;
	}
	spec_of_filter(q, &f);
	e = op_acl_describe(&x, &f, &st->b, &st->n, st->whybuf,
	    sizeof(st->whybuf));
	st->error = kafka_op_error(e);
	if (e == OP_BAD_REQUEST)
		st->why = st->whybuf;
}

void
kafka_describe_acls_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kacl_describe *st = k->kst;
	struct km_describe_acls_resp s;
	struct km_acl_resource *res = NULL;
	struct km_acl_description *d = NULL;
	const struct acl_binding *b;
	size_t i, nres = 0;

	(void)w;
	kdesc_defaults(kmsg_describe_acls.km_resp, &s);
	s.error_code = st->error;
	s.error_message = kstr_c(st->why);
	if (st->n > 0 && ((res = conn_alloc(c, st->n * sizeof(*res))) == NULL ||
	    (d = conn_alloc(c, st->n * sizeof(*d))) == NULL)) {
		c->dead = 1;
		return;
	}
	/* Sorted by resource: one entry per resource, its ACLs after. */
	for (i = 0; i < st->n; i++) {
		b = &st->b[i];
		if (i == 0 || b->res != b[-1].res || b->pat != b[-1].pat ||
		    strcmp(b->name, b[-1].name) != 0) {
			memset(&res[nres], 0, sizeof(res[nres]));
			res[nres].resource_type = b->res;
			res[nres].resource_name = kstr_c(b->name);
			res[nres].pattern_type = b->pat;
			res[nres].acls.v = &d[i];
			nres++;
		}
		res[nres - 1].acls.n++;
		memset(&d[i], 0, sizeof(d[i]));
		d[i].principal = kstr_c(b->principal);
		d[i].host = kstr_c("*");
		d[i].operation = b->op;
		d[i].permission_type = b->perm;
	}
	s.resources.n = (int32_t)nres;
	s.resources.v = res;
	kafka_emit_desc(c, r, &s);
}

/* ---- CreateAcls ---- */

/* A CreateAcls or DeleteAcls: the gate, then its op. */
struct kacl_change {
	int			 del;		/* DeleteAcls */
	enum op_err		 gate;
	struct op_acl_create	 cr;
	struct op_acl_delete	 dl;
};

/* CreateAcls (creations) or DeleteAcls (filters): run its op. */
static void
acl_change_exec(struct conn *c, struct req *r, const struct karray *specs,
    int del)
{
	struct kafka_req *k = r->dec;
	struct kacl_change *st;
	struct acl_spec *sp;
	struct op_ctx x;
	size_t n = specs->n > 0 ? (size_t)specs->n : 0;
	enum op_status os;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(st, 0, sizeof(*st));
	st->del = del;
	k->kst = st;
	conn_op_ctx(c, r, &x);
	if ((st->gate = op_auth_admin(&x)) != OP_OK)
		return;
	if ((sp = specs_of(c, specs->v, specs->n)) == NULL)
		return;
	if (del) {
		st->dl.f = sp;
		st->dl.n = n;
		os = op_acl_delete(&x, &st->dl);
	} else {
		st->cr.c = sp;
		st->cr.n = n;
		os = op_acl_create(&x, &st->cr);
	}
	if (os == OP_WAIT) {
		r->deadline = del ? st->dl.ch.deadline : st->cr.ch.deadline;
		r->state = REQ_WAIT;
	}
	/* The body may move while parked: the specs are not read again. */
	st->cr.c = NULL;
	st->dl.f = NULL;
}

void
kafka_create_acls_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct km_create_acls_req *q =
	    ((struct kafka_req *)r->dec)->body;

	(void)w;
	acl_change_exec(c, r, &q->creations, 0);
}

void
kafka_delete_acls_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct km_delete_acls_req *q =
	    ((struct kafka_req *)r->dec)->body;

	(void)w;
	acl_change_exec(c, r, &q->filters, 1);
}

void
kafka_acls_change_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kacl_change *st = ((struct kafka_req *)r->dec)->kst;

	(void)w;
	kafka_auth_change_poll(c, r, st->del ? &st->dl.ch : &st->cr.ch);
}

/* The Kafka error and message of a change that ended with err. */
static int16_t
change_error(enum op_err err, const char **why)
{
	*why = err == OP_TIMEOUT ? "written to the auth_file, not yet in "
	    "force" : err == OP_OK ? NULL : "the auth_file could not be "
	    "changed (see the broker's log)";
	return kafka_op_error(err);
}

void
kafka_create_acls_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_create_acls_req *q = k->body;
	const struct kacl_change *ch = k->kst;
	const struct op_acl_create *st = &ch->cr;
	struct km_create_acls_resp s;
	struct km_acl_creation_result *res = NULL;
	const char *why;
	int16_t err;
	int32_t i, n = q->creations.n > 0 ? q->creations.n : 0;

	(void)w;
	kdesc_defaults(kmsg_create_acls.km_resp, &s);
	if (n > 0 && (res = conn_alloc(c, (size_t)n * sizeof(*res))) == NULL) {
		c->dead = 1;
		return;
	}
	err = change_error(st->ch.err, &why);
	for (i = 0; i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		if (ch->gate != OP_OK) {
			res[i].error_code = kafka_op_error(ch->gate);
			res[i].error_message =
			    kstr_c(kafka_auth_gate_message(ch->gate));
		} else if (st->refused == NULL) {
			res[i].error_code = kafka_op_error(st->ch.err);
		} else if (st->refused[i]) {
			res[i].error_code = KERR_INVALID_REQUEST;
			res[i].error_message = kstr_c(st->why[i]);
		} else {
			res[i].error_code = err;
			res[i].error_message = kstr_c(why);
		}
	}
	s.results.n = n;
	s.results.v = res;
	kafka_emit_desc(c, r, &s);
}

/* ---- DeleteAcls ---- */

void
kafka_delete_acls_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_delete_acls_req *q = k->body;
	const struct kacl_change *ch = k->kst;
	const struct op_acl_delete *st = &ch->dl;
	struct km_delete_acls_resp s;
	struct km_acl_filter_result *res = NULL;
	struct km_acl_matching *m;
	const struct acl_deleted *d;
	const char *why;
	int16_t err;
	int32_t i, n = q->filters.n > 0 ? q->filters.n : 0;
	size_t j;

	(void)w;
	kdesc_defaults(kmsg_delete_acls.km_resp, &s);
	if (n > 0 && (res = conn_alloc(c, (size_t)n * sizeof(*res))) == NULL) {
		c->dead = 1;
		return;
	}
	err = change_error(st->ch.err, &why);
	for (i = 0; i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		if (ch->gate != OP_OK) {
			res[i].error_code = kafka_op_error(ch->gate);
			res[i].error_message =
			    kstr_c(kafka_auth_gate_message(ch->gate));
			continue;
		}
		if (st->d == NULL) {
			res[i].error_code = kafka_op_error(st->ch.err);
			continue;
		}
		d = &st->d[i];
		if (d->refused) {
			res[i].error_code = KERR_INVALID_REQUEST;
			res[i].error_message = kstr_c(d->why);
			continue;
		}
		res[i].error_code = err;
		res[i].error_message = kstr_c(why);
		if (d->n == 0)
			continue;
		if ((m = conn_alloc(c, d->n * sizeof(*m))) == NULL) {
			c->dead = 1;
			return;
		}
		for (j = 0; j < d->n; j++) {
			memset(&m[j], 0, sizeof(m[j]));
			if (d->m[j].refused) {
				m[j].error_code = KERR_INVALID_REQUEST;
				m[j].error_message = kstr_c(d->m[j].why);
			}
			m[j].resource_type = d->m[j].b.res;
			m[j].resource_name = kstr_c(d->m[j].b.name);
			m[j].pattern_type = d->m[j].b.pat;
			m[j].principal = kstr_c(d->m[j].b.principal);
			m[j].host = kstr_c("*");
			m[j].operation = d->m[j].b.op;
			m[j].permission_type = d->m[j].b.perm;
		}
		res[i].matching_acls.n = (int32_t)d->n;
		res[i].matching_acls.v = m;
	}
	s.filter_results.n = n;
	s.filter_results.v = res;
	kafka_emit_desc(c, r, &s);
}

/* ---- the waits ---- */

void
kafka_auth_change_poll(struct conn *c, struct req *r,
    struct op_auth_change *ch)
{
	struct op_ctx x;

	conn_op_ctx(c, r, &x);
	r->state = op_auth_change_poll(&x, ch) == OP_WAIT ? REQ_WAIT :
	    REQ_DONE;
}
