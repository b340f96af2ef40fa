/*
 * Kafka's settings APIs in a worker: DescribeConfigs v0-4, AlterConfigs
 * v0-2 and IncrementalAlterConfigs v0-1, through their descriptions
 * (proto/kafka/kmsg_config.h), over the topic settings operations
 * (worker/op/tconf.h).
 *
 * Resources: a topic (type 2) and the broker (type 4, named "" or "0",
 * its node id).  Other types are INVALID_REQUEST.  A topic's settings
 * are answered with their source (ConfigSource, v1+): DYNAMIC_TOPIC_CONFIG
 * (1) for the topic's own, STATIC_BROKER_CONFIG (4) for flume.conf's,
 * global or [topic] section, DEFAULT_CONFIG (5) for the built-in default;
 * v0 says IsDefault instead.  With IncludeSynonyms (v1+) each key lists
 * where its value could come from, most specific first: the topic's own,
 * flume.conf's and the default, the broker-level ones under Kafka's
 * broker names (log.retention.ms for retention.ms).  ConfigType and,
 * with IncludeDocumentation, Documentation from v3.  ConfigurationKeys
 * filters; a key Flume does not know is left out, as Kafka does.
 * The broker resource lists the same settings under Kafka's broker
 * names, read only.
 *
 * AlterConfigs replaces the topic's whole dynamic set, as Kafka does;
 * IncrementalAlterConfigs applies SET (0), DELETE (1), APPEND (2) and
 * SUBTRACT (3, list keys: cleanup.policy).  A resource with one bad key
 * changes nothing and answers INVALID_CONFIG with a message naming it.
 * ValidateOnly checks and changes nothing.  An alteration is answered
 * once the writer saved it (REQUEST_TIMED_OUT after 30 s: it is in
 * force, still being saved).  The broker's settings are flume.conf's:
 * altering them is INVALID_REQUEST saying so (CLUSTER_AUTHORIZATION_
 * FAILED first for a user without admin on every topic).
 *
 * Permissions: describing a topic needs consume or admin on it,
 * altering admin (TOPIC_AUTHORIZATION_FAILED otherwise).
 */
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_config.h"
#include "proto/tconf.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/kafka/config.h"
#include "worker/kafka/kafka.h"
#include "worker/op/access.h"
#include "worker/op/tconf.h"
#include "worker/op/topics.h"
#include "worker/worker.h"

#define KAFKA_NODE_NAME		"0"
/* How long an alteration waits for the writer's save. */
#define CONFIG_ALTER_TIMEOUT_MS	30000

/* Copy a C string into c's memory. */
static char *
cstr(struct conn *c, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if ((p = conn_alloc(c, n)) != NULL)
		memcpy(p, s, n);
	return p;
}

static struct kstr
kstr_val(struct conn *c, enum tconf_key k, int64_t v, int *fail)
{
	char buf[64], *p;

	tconf_print(k, v, buf, sizeof(buf));
	if ((p = cstr(c, buf)) == NULL)
		*fail = 1;
	return kstr_c(p);
}

/* Is the broker resource named name this broker? */
static int
broker_name_ok(struct kstr name)
{
	return name.len == 0 || (name.len == 1 && name.p[0] == '0');
}

/* A key's name as the resource type lists it. */
static const char *
key_name(enum tconf_key k, int broker)
{
	return broker && tconf_defs[k].broker != NULL ? tconf_defs[k].broker :
	    tconf_defs[k].name;
}

/*
 * r's state: n (at least 0) zeroed per-resource items of size bytes, in
 * c's memory and k->kst; NULL (the connection closed) when out of
 * memory.  r is DONE until an item waits.
 */
struct kitems {
	int32_t		 n;
	void		*t;	/* struct kdescribe_one or kalter_one [n] */
};

static struct kitems *
items_new(struct conn *c, struct req *r, int32_t n, size_t size)
{
	struct kafka_req *k = r->dec;
	struct kitems *st;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return NULL;
	}
	st->n = n > 0 ? n : 0;
	st->t = NULL;
	if (st->n > 0) {
		if ((st->t = conn_alloc(c, (size_t)st->n * size)) == NULL) {
			c->dead = 1;
			return NULL;
		}
		memset(st->t, 0, (size_t)st->n * size);
	}
	k->kst = st;
	return st;
}

/* One resource of a DescribeConfigs. */
struct kdescribe_one {
	int16_t			 error;
	const char		*why;
	int			 broker;
	struct op_tconf_view	 v;
};

void
kafka_describe_configs_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_describe_configs_req *q = k->body;
	const struct km_describe_configs_resource *rs = q->resources.v;
	struct kitems *st;
	struct kdescribe_one *items;
	struct kdescribe_one *o;
	struct op_ctx x;
	enum op_err err;
	int32_t i;

	(void)w;
	if ((st = items_new(c, r, q->resources.n, sizeof(*items))) == NULL)
		return;
	items = st->t;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->n; i++) {
		o = &items[i];
		if (rs[i].resource_type == KCONFIG_RESOURCE_BROKER) {
			o->broker = 1;
			if (!broker_name_ok(rs[i].resource_name)) {
				o->error = KERR_INVALID_REQUEST;
				o->why = "this broker is node 0";
				continue;
			}
			if ((err = op_access_gate(&x, 0, 0)) != OP_OK)
				o->error = KERR_CLUSTER_AUTHORIZATION_FAILED;
			else
				(void)op_tconf_describe_broker(&x, &o->v);
			continue;
		}
		if (rs[i].resource_type != KCONFIG_RESOURCE_TOPIC) {
			o->error = KERR_INVALID_REQUEST;
			o->why = "Flume describes topic (2) and broker (4) "
			    "resources only";
			continue;
		}
		err = rs[i].resource_name.len <= 0 ? OP_BAD_TOPIC_NAME :
		    op_tconf_describe(&x, rs[i].resource_name.p,
		    (size_t)rs[i].resource_name.len, &o->v);
		if (err == OP_BAD_TOPIC_NAME) {
			o->error = KERR_INVALID_TOPIC_EXCEPTION;
			o->why = "invalid topic name";
		} else if (err == OP_NO_TOPIC) {
			o->error = KERR_UNKNOWN_TOPIC_OR_PARTITION;
			o->why = "no such topic";
		} else if (err != OP_OK)
			o->error = kafka_op_error(err);
	}
}

/* Is key k asked for by the filter keys (null: every key)? */
static int
key_wanted(const struct karray *keys, enum tconf_key k, int broker)
{
	const struct kstr *s = keys->v;
	const char *name = key_name(k, broker);
	int32_t i;

	if (keys->n < 0)
		return 1;
	for (i = 0; i < keys->n; i++)
		if (s[i].len >= 0 && (size_t)s[i].len == strlen(name) &&
		    memcmp(s[i].p, name, (size_t)s[i].len) == 0)
			return 1;
	return 0;
}

/* The synonyms of key k, most specific first. */
static int
synonyms(struct conn *c, const struct kdescribe_one *o, enum tconf_key k,
    struct karray *out)
{
	struct km_describe_configs_synonym *s;
	int n = 0, fail = 0;

	if ((s = conn_alloc(c, 3 * sizeof(*s))) == NULL)
		return -1;
	memset(s, 0, 3 * sizeof(*s));
	if (!o->broker && o->v.src[k] == TCS_DYNAMIC_TOPIC) {
		s[n].name = kstr_c(tconf_defs[k].name);
		s[n].value = kstr_val(c, k, o->v.eff.v[k], &fail);
		s[n++].source = TCS_DYNAMIC_TOPIC;
	}
	if (o->v.below_src[k] == TCS_STATIC_BROKER) {
		s[n].name = kstr_c(key_name(k, 1));
		s[n].value = kstr_val(c, k, o->v.below.v[k], &fail);
		s[n++].source = TCS_STATIC_BROKER;
	}
	s[n].name = kstr_c(key_name(k, 1));
	s[n].value = kstr_val(c, k, o->v.below_src[k] == TCS_DEFAULT ?
	    o->v.below.v[k] : tconf_defs[k].def, &fail);
	s[n++].source = TCS_DEFAULT;
	out->n = n;
	out->v = s;
	return fail ? -1 : 0;
}

/* The configs of one described resource into *out. */
static int
describe_configs(struct conn *c, int16_t version,
    const struct km_describe_configs_req *q,
    const struct km_describe_configs_resource *rs,
    const struct kdescribe_one *o, struct karray *out)
{
	struct km_describe_configs_config *cf;
	int k, n = 0, fail = 0;

	if ((cf = conn_alloc(c, TC_NKEYS * sizeof(*cf))) == NULL)
		return -1;
	for (k = 0; k < TC_NKEYS; k++) {
		if (!key_wanted(&rs->configuration_keys, (enum tconf_key)k,
		    o->broker))
			continue;
		memset(&cf[n], 0, sizeof(cf[n]));
		cf[n].name = kstr_c(key_name((enum tconf_key)k, o->broker));
		cf[n].value = kstr_val(c, (enum tconf_key)k, o->v.eff.v[k],
		    &fail);
		cf[n].read_only = o->broker;
		cf[n].is_default = o->v.src[k] == TCS_DEFAULT;
		cf[n].config_source = o->v.src[k];
		cf[n].config_type = (int8_t)tconf_defs[k].type;
		cf[n].documentation = kstr_c(version >= 3 &&
		    q->include_documentation ? tconf_defs[k].doc : NULL);
		if (version >= 1 && q->include_synonyms &&
		    synonyms(c, o, (enum tconf_key)k, &cf[n].synonyms) == -1)
			return -1;
		n++;
	}
	out->n = n;
	out->v = cf;
	return fail ? -1 : 0;
}

void
kafka_describe_configs_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_describe_configs_req *q = k->body;
	const struct km_describe_configs_resource *rs = q->resources.v;
	const struct kitems *st = k->kst;
	const struct kdescribe_one *items = st->t;
	const struct kdescribe_one *o;
	struct km_describe_configs_resp s;
	struct km_describe_configs_result *t = NULL;
	int32_t i;

	(void)w;
	kdesc_defaults(kmsg_describe_configs.km_resp, &s);
	if (st->n > 0 && (t = conn_alloc(c, (size_t)st->n *
	    sizeof(*t))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < st->n; i++) {
		o = &items[i];
		memset(&t[i], 0, sizeof(t[i]));
		t[i].error_code = o->error;
		t[i].error_message = kstr_c(o->why);
		t[i].resource_type = rs[i].resource_type;
		t[i].resource_name = rs[i].resource_name;
		if (o->error != KERR_NONE)
			continue;
		if (describe_configs(c, k->h.api_version, q, &rs[i], o,
		    &t[i].configs) == -1) {
			c->dead = 1;
			return;
		}
	}
	s.results.n = st->n;
	s.results.v = t;
	kafka_emit_desc(c, r, &s);
}

/* One resource of an AlterConfigs or IncrementalAlterConfigs. */
struct kalter_one {
	int16_t			 error;
	const char		*why;
	int			 wait;
	struct op_tconf_alter	 a;
};

/* The Kafka answer of an alteration that ended with a->err. */
static void
alter_result(struct kalter_one *o)
{
	o->error = kafka_op_error(o->a.err);
	o->why = o->a.why[0] != '\0' ? o->a.why : NULL;
	switch (o->a.err) {
	case OP_NO_TOPIC:
		o->error = KERR_UNKNOWN_TOPIC_OR_PARTITION;
		o->why = "no such topic";
		break;
	case OP_BAD_TOPIC_NAME:
		o->error = KERR_INVALID_TOPIC_EXCEPTION;
		o->why = "invalid topic name";
		break;
	default:
		break;
	}
}

/* The edits of one resource, in c's memory (they point into the body). */
static struct op_tconf_edit *
alter_edits(struct conn *c, const struct km_alter_configs_resource *rs,
    int incremental)
{
	const struct km_alterable_config *cf = rs->configs.v;
	struct op_tconf_edit *e;
	int32_t i, n = rs->configs.n > 0 ? rs->configs.n : 0;

	if ((e = conn_alloc(c, (size_t)(n > 0 ? n : 1) * sizeof(*e))) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		e[i].name = cf[i].name.p;
		e[i].name_len = cf[i].name.len > 0 ? (size_t)cf[i].name.len : 0;
		e[i].value = cf[i].value.len >= 0 ? cf[i].value.p : NULL;
		if (e[i].value == NULL && cf[i].value.len >= 0)
			e[i].value = "";
		e[i].value_len = cf[i].value.len > 0 ?
		    (size_t)cf[i].value.len : 0;
		e[i].kind = incremental ? cf[i].config_operation :
		    OP_TCONF_SET;
	}
	return e;
}

void
kafka_alter_configs_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_alter_configs_req *q = k->body;
	const struct km_alter_configs_resource *rs = q->resources.v;
	int incremental = k->h.api_key == KAPI_INCREMENTAL_ALTER_CONFIGS;
	struct kitems *st;
	struct kalter_one *items;
	struct kalter_one *o;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	if ((st = items_new(c, r, q->resources.n, sizeof(*items))) == NULL)
		return;
	items = st->t;
	conn_op_ctx(c, r, &x);
	r->deadline = w->now + CONFIG_ALTER_TIMEOUT_MS;
	for (i = 0; i < st->n; i++) {
		o = &items[i];
		if (rs[i].resource_type == KCONFIG_RESOURCE_BROKER) {
			if (op_access_gate(&x, AUTH_ADMIN, 1) != OP_OK)
				o->error = KERR_CLUSTER_AUTHORIZATION_FAILED;
			else {
				o->error = KERR_INVALID_REQUEST;
				o->why = "broker settings are set in flume.conf "
				    "(a SIGHUP reloads it)";
			}
			continue;
		}
		if (rs[i].resource_type != KCONFIG_RESOURCE_TOPIC) {
			o->error = KERR_INVALID_REQUEST;
			o->why = "Flume alters topic (2) resources only";
			continue;
		}
		if ((o->a.edits = alter_edits(c, &rs[i], incremental)) == NULL) {
			c->dead = 1;
			return;
		}
		o->a.n = rs[i].configs.n > 0 ? rs[i].configs.n : 0;
		o->a.replace = !incremental;
		o->a.validate_only = q->validate_only;
		o->a.deadline = r->deadline;
		if (rs[i].resource_name.len <= 0) {
			o->a.err = OP_BAD_TOPIC_NAME;
			alter_result(o);
			continue;
		}
		if (op_tconf_alter(&x, rs[i].resource_name.p,
		    (size_t)rs[i].resource_name.len, &o->a) == OP_WAIT)
			waiting = o->wait = 1;
		else
			alter_result(o);
		/* The body may move while waiting: no pointers into it kept. */
		o->a.edits = NULL;
	}
	if (waiting)
		r->state = REQ_WAIT;
}

void
kafka_alter_configs_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kitems *st = k->kst;
	struct kalter_one *items = st->t;
	struct kalter_one *o;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	(void)w;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->n; i++) {
		o = &items[i];
		if (!o->wait)
			continue;
		if (op_tconf_alter_poll(&x, &o->a) == OP_WAIT) {
			waiting = 1;
			continue;
		}
		o->wait = 0;
		alter_result(o);
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

void
kafka_alter_configs_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_alter_configs_req *q = k->body;
	const struct km_alter_configs_resource *rs = q->resources.v;
	const struct kitems *st = k->kst;
	struct kalter_one *items = st->t;
	struct km_alter_configs_resp s;
	struct km_alter_configs_result *t = NULL;
	int32_t i;

	(void)w;
	kdesc_defaults(((const struct kmsg *)k->row->desc)->km_resp, &s);
	if (st->n > 0 && (t = conn_alloc(c, (size_t)st->n *
	    sizeof(*t))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < st->n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].error_code = items[i].error;
		t[i].error_message = kstr_c(items[i].why);
		t[i].resource_type = rs[i].resource_type;
		t[i].resource_name = rs[i].resource_name;
	}
	s.responses.n = st->n;
	s.responses.v = t;
	kafka_emit_desc(c, r, &s);
}
