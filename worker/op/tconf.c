/*
 * Topic settings operations; see tconf.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "shm/lock.h"
#include "shm/shm.h"
#include "shm/tconf.h"
#include "store/topic.h"
#include "worker/op/access.h"
#include "worker/op/part.h"
#include "worker/op/tconf.h"
#include "worker/worker.h"

static const char *
api(const struct op_ctx *x)
{
	return x->api != NULL ? x->api : "request";
}

/* Entry ti's name as a C string (the entry is READY: it is stable). */
static void
entry_name(struct worker *w, int ti, char name[TOPIC_NAME_MAX + 1])
{
	const struct shm_topic *t = &w->shm->topics[ti];
	size_t len = t->name_len <= TOPIC_NAME_MAX ? t->name_len : 0;

	memcpy(name, t->name, len);
	name[len] = '\0';
}

/* Effective settings of entry ti with its dynamic set into *dyn. */
static void
entry_view(struct worker *w, int ti, struct tconf *dyn,
    struct op_tconf_view *v, uint32_t *gen)
{
	char name[TOPIC_NAME_MAX + 1];
	uint32_t g;

	entry_name(w, ti, name);
	(void)shm_tconf_read(w->shm, ti, w->shm->topics[ti].id, dyn, &g);
	if (gen != NULL)
		*gen = g;
	config_topic_tconf(w->conf, name, dyn, &v->eff, v->src);
	config_topic_tconf(w->conf, name, NULL, &v->below, v->below_src);
}

void
op_tconf_topic(struct worker *w, int ti, struct tconf *eff)
{
	char name[TOPIC_NAME_MAX + 1];
	struct tconf dyn;
	uint32_t gen;

	/* Every produce asks: the effective values only, no sources. */
	entry_name(w, ti, name);
	(void)shm_tconf_read(w->shm, ti, w->shm->topics[ti].id, &dyn, &gen);
	config_topic_tconf(w->conf, name, &dyn, eff, NULL);
}

/* Find READY topic name for x: OP_OK with *ti, else the error. */
static enum op_err
find_topic(const struct op_ctx *x, const char *name, size_t len,
    unsigned perms, int *ti)
{
	enum op_err err;

	if (len == 0 || len > TOPIC_NAME_MAX || !topic_name_valid(name, len))
		return OP_BAD_TOPIC_NAME;
	if ((err = op_access_topic(x, perms, name, len)) != OP_OK)
		return err;
	return op_topic_resolve(x->w, name, len, 0, ti);
}

enum op_err
op_tconf_describe(const struct op_ctx *x, const char *name, size_t len,
    struct op_tconf_view *v)
{
	struct tconf dyn;
	enum op_err err;
	int ti;

	if ((err = find_topic(x, name, len, AUTH_CONSUME | AUTH_ADMIN,
	    &ti)) != OP_OK)
		return err;
	entry_view(x->w, ti, &dyn, v, NULL);
	return OP_OK;
}

enum op_err
op_tconf_describe_broker(const struct op_ctx *x, struct op_tconf_view *v)
{
	config_topic_tconf(x->w->conf, NULL, NULL, &v->eff, v->src);
	v->below = v->eff;
	memcpy(v->below_src, v->src, sizeof(v->src));
	return OP_OK;
}

/* A value's checks that depend on this broker (over proto/tconf.c's). */
static int
check_broker(const struct op_ctx *x, enum tconf_key k, int64_t v, char *why,
    size_t whylen)
{
	const struct config *c = x->w->conf;
	int64_t cap;

	if (k != TC_MAX_MESSAGE_BYTES)
		return 0;
	/* A batch must fit the ring twice over and a request whole. */
	cap = (int64_t)(c->ring_size / 2);
	if ((int64_t)c->max_request_bytes - 1024 < cap)
		cap = (int64_t)c->max_request_bytes - 1024;
	if (v <= cap)
		return 0;
	snprintf(why, whylen, "invalid value %" PRId64 " for max.message.bytes: "
	    "at most %" PRId64 " on this broker (half of ring_size, "
	    "max_request_bytes less 1K)", v, cap);
	return -1;
}

/*
 * Apply edits to *t (eff: the effective values, where APPEND and
 * SUBTRACT start): 0, or -1 with why naming the key.
 */
static int
edits_apply(const struct op_ctx *x, const struct op_tconf_edit *e, int n,
    struct tconf *t, const struct tconf *eff, char *why, size_t whylen)
{
	enum tconf_key k;
	int64_t v;
	int i;

	for (i = 0; i < n; i++) {
		if (tconf_key_find(e[i].name, e[i].name_len, &k) == -1) {
			snprintf(why, whylen, "unknown topic setting '%.*s'",
			    (int)(e[i].name_len > 128 ? 128 : e[i].name_len),
			    e[i].name);
			return -1;
		}
		switch (e[i].kind) {
		case OP_TCONF_DELETE:
			tconf_del(t, k);
			continue;
		case OP_TCONF_SET:
			if (e[i].value == NULL) {
				/* Kafka: a null value in a set removes the key. */
				tconf_del(t, k);
				continue;
			}
			if (tconf_parse(k, e[i].value, e[i].value_len, &v, why,
			    whylen) == -1 || check_broker(x, k, v, why,
			    whylen) == -1)
				return -1;
			tconf_put(t, k, v);
			continue;
		case OP_TCONF_APPEND:
		case OP_TCONF_SUBTRACT:
			v = tconf_has(t, k) ? t->v[k] : eff->v[k];
			if (e[i].value == NULL || tconf_list_edit(k, &v,
			    e[i].value, e[i].value_len,
			    e[i].kind == OP_TCONF_APPEND, why, whylen) == -1) {
				if (e[i].value == NULL)
					snprintf(why, whylen, "%s: a value is "
					    "needed to append or subtract",
					    tconf_defs[k].name);
				return -1;
			}
			tconf_put(t, k, v);
			continue;
		default:
			snprintf(why, whylen, "%s: unknown operation %d",
			    tconf_defs[k].name, e[i].kind);
			return -1;
		}
	}
	return 0;
}

enum op_err
op_tconf_check_new(const struct op_ctx *x, const struct op_tconf_edit *e,
    int n, struct tconf *out, char *why, size_t whylen)
{
	struct tconf eff;

	memset(out, 0, sizeof(*out));
	config_topic_tconf(x->w->conf, NULL, NULL, &eff, NULL);
	if (edits_apply(x, e, n, out, &eff, why, whylen) == -1)
		return OP_BAD_CONFIG;
	return OP_OK;
}

void
op_tconf_publish_new(const struct op_ctx *x, int ti, const uint8_t *id,
    const struct tconf *t, uint32_t *gen)
{
	struct shm *s = x->w->shm;

	*gen = 0;
	if (t->set == 0)
		return;
	if (lock_take(&s->hdr->dir_lock, NULL, NULL) == -1) {
		log_warn("topic settings: dir_lock");
		return;
	}
	*gen = shm_tconf_publish(s, ti, id, t);
	lock_release(&s->hdr->dir_lock);
	worker_wake_writer(x->w, 1);
}

int
op_tconf_is_saved(struct worker *w, int ti, uint32_t gen)
{
	if (gen == 0)
		return 1;
	return (int32_t)(shm_tconf_saved_gen(w->shm, ti) - gen) >= 0;
}

enum op_status
op_tconf_alter(const struct op_ctx *x, const char *name, size_t len,
    struct op_tconf_alter *a)
{
	struct worker *w = x->w;
	struct op_tconf_view v;
	struct tconf dyn, next;
	uint8_t id[TOPIC_ID_LEN];
	char key[64];
	int ti;

	a->why[0] = '\0';
	a->gen = 0;
	a->ti = -1;
	/* __consumer_offsets stays compacted: the broker's to set. */
	if (op_part_internal(x, "settings", "changed", name, len)) {
		a->err = OP_RESERVED_TOPIC;
		return OP_DONE;
	}
	if ((a->err = find_topic(x, name, len, AUTH_ADMIN, &ti)) != OP_OK)
		return OP_DONE;
	if (lock_take(&w->shm->hdr->dir_lock, NULL, NULL) == -1) {
		log_warn("topic settings: dir_lock");
		a->err = OP_INTERNAL;
		return OP_DONE;
	}
	/* Under the lock: two alterations never lose each other's keys. */
	entry_view(w, ti, &dyn, &v, NULL);
	memcpy(id, w->shm->topics[ti].id, sizeof(id));
	if (a->replace)
		memset(&next, 0, sizeof(next));
	else
		next = dyn;
	if (edits_apply(x, a->edits, a->n, &next, &v.eff, a->why,
	    sizeof(a->why)) == -1) {
		lock_release(&w->shm->hdr->dir_lock);
		log_warnx("%s: %s: settings of topic %.*s refused: %s", x->peer,
		    api(x), (int)len, name, a->why);
		a->err = OP_BAD_CONFIG;
		return OP_DONE;
	}
	if (a->validate_only) {
		lock_release(&w->shm->hdr->dir_lock);
		a->err = OP_OK;
		return OP_DONE;
	}
	a->gen = shm_tconf_publish(w->shm, ti, id, &next);
	lock_release(&w->shm->hdr->dir_lock);
	a->ti = ti;
	snprintf(key, sizeof(key), "%d key%s", a->n, a->n == 1 ? "" : "s");
	log_info("topic %.*s: settings changed (%s, %s from %s)", (int)len, name,
	    key, api(x), x->peer);
	worker_wake_writer(w, 1);
	return op_tconf_alter_poll(x, a);
}

enum op_status
op_tconf_alter_poll(const struct op_ctx *x, struct op_tconf_alter *a)
{
	if (a->ti < 0)
		return OP_DONE;
	if (op_tconf_is_saved(x->w, a->ti, a->gen)) {
		a->err = OP_OK;
		a->ti = -1;
		return OP_DONE;
	}
	if (x->w->now < a->deadline)
		return OP_WAIT;
	a->err = OP_TIMEOUT;
	snprintf(a->why, sizeof(a->why), "the settings are in force; saving "
	    "them to disk is still under way");
	a->ti = -1;
	return OP_DONE;
}
