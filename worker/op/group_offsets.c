/*
 * Committed offsets of a group (worker/op/group_offsets.h).  A committed
 * offset is one atomic 8-byte slot: a fetch reads it without the lock; a
 * commit takes the lock only to check the member's generation.
 */
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/op/access.h"
#include "worker/op/group_offsets.h"
#include "worker/op/offsets.h"
#include "worker/worker.h"

enum op_err
op_group_commit(const struct op_ctx *x, const struct op_commit_args *a)
{
	struct worker *w = x->w;
	struct op_group_offset *p;
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0, slot = 0;
	int32_t i;
	int16_t rc;
	enum op_err e;
	int gidx, prev;

	if (!group_name_valid(a->group, a->group_len))
		return OP_BAD_GROUP;
	if ((e = op_access_group(x, AUTH_GROUP_READ, a->group,
	    a->group_len)) != OP_OK ||
	    (e = op_group_find(w, a->group, a->group_len, OP_UNKNOWN_MEMBER,
	    &gidx)) != OP_OK)
		return e;
	/* Per topic, as for a fetch (and before the lock: a denial is logged). */
	for (i = 0; i < a->nparts; i++)
		a->parts[i].err = op_access_topic(x, AUTH_CONSUME,
		    a->parts[i].topic, a->parts[i].topic_len);
	op_group_params(w, &gp);
	if ((g = op_group_lock(w, gidx, &gp, &s0, &g0)) == NULL)
		return OP_INTERNAL;
	rc = group_commit_check(w->shm, g, a->member_id, a->member_id_len,
	    a->generation, w->now, &gp, &prev);
	for (i = 0; rc == ERR_NONE && i < a->nparts; i++) {
		p = &a->parts[i];
		if (p->err != OP_OK)
			continue;
		p->err = op_group_part(w, p->topic, p->topic_len, p->partition,
		    &slot);
		/* The generation before: only what it owned then. */
		if (p->err == OP_OK && prev >= 0 &&
		    !group_prev_owned(w->shm, g, prev, slot))
			p->err = OP_STALE_GENERATION;
		if (p->err == OP_OK)
			group_offset_set(w->shm, g, slot, p->offset);
	}
	op_group_unlock(w, g, s0, g0);
	if (rc != ERR_NONE)
		return op_group_err(rc);
	/* The writer saves committed offsets; it need not sleep out its timeout. */
	worker_wake_writer(w, 0);
	return OP_OK;
}

/* The group of that name, unlocked (its offsets are atomic); NULL: none. */
static enum op_err
offsets_group(const struct op_ctx *x, const char *group, size_t glen,
    struct shm_group **g)
{
	enum op_err e;
	int gidx;

	*g = NULL;
	if (!group_name_valid(group, glen))
		return OP_BAD_GROUP;
	if ((e = op_access_group(x, AUTH_GROUP_DESCRIBE, group, glen)) != OP_OK)
		return e;
	if (op_group_find(x->w, group, glen, OP_BAD_GROUP, &gidx) == OP_OK)
		*g = group_at(x->w->shm, (uint32_t)gidx);
	return OP_OK;
}

/* Partition slots in use (every one below has a topic or had one). */
static uint32_t
slots_used(struct worker *w)
{
	uint32_t used;

	used = atomic_load_explicit(&w->shm->hdr->parts_used,
	    memory_order_acquire);
	if (used > w->shm->hdr->limits.max_partitions)
		used = w->shm->hdr->limits.max_partitions;
	return used;
}

enum op_err
op_group_offsets(const struct op_ctx *x, const char *group, size_t glen,
    struct op_group_offset *parts, int32_t n)
{
	struct op_group_offset *p;
	struct shm_group *g;
	uint32_t slot = 0;
	int32_t i;
	enum op_err e;

	if ((e = offsets_group(x, group, glen, &g)) != OP_OK)
		return e;
	for (i = 0; i < n; i++) {
		p = &parts[i];
		p->offset = -1;
		p->err = op_access_topic(x, AUTH_CONSUME, p->topic,
		    p->topic_len);
		if (p->err == OP_OK)
			p->err = op_group_part(x->w, p->topic, p->topic_len,
			    p->partition, &slot);
		if (p->err == OP_OK && g != NULL)
			p->offset = group_offset_get(x->w->shm, g, slot);
	}
	return OP_OK;
}

enum op_err
op_group_committed(const struct op_ctx *x, const char *group, size_t glen,
    struct op_group_offset **parts, int32_t *n)
{
	struct worker *w = x->w;
	struct op_group_offset *p = NULL;
	struct shm_group *g;
	struct op_group_tp tp;
	uint32_t slot, used = slots_used(w);
	int32_t max = 0;
	enum op_err e;

	*parts = NULL;
	*n = 0;
	if ((e = offsets_group(x, group, glen, &g)) != OP_OK || g == NULL)
		return e;
	for (slot = 0; slot < used; slot++)
		if (group_offset_get(w->shm, g, slot) >= 0)
			max++;
	if (max > 0 && (p = op_alloc(x, (size_t)max * sizeof(*p))) == NULL)
		return OP_NO_MEMORY;
	/* Offsets only grow in number: bound by what was counted. */
	for (slot = 0; slot < used && *n < max; slot++) {
		p[*n].offset = group_offset_get(w->shm, g, slot);
		if (p[*n].offset < 0 || op_group_slot_tp(w, slot, &tp) == -1 ||
		    !op_access_topic_may(x, AUTH_CONSUME, tp.topic,
		    tp.topic_len))
			continue;
		p[*n].topic = tp.topic;
		p[*n].topic_len = tp.topic_len;
		p[*n].partition = tp.partition;
		p[*n].err = OP_OK;
		(*n)++;
	}
	*parts = p;
	return OP_OK;
}

/* Where a reset puts partition p. */
static enum op_err
reset_target(struct worker *w, struct shm_partition *p,
    const struct op_reset_args *a, int64_t *offset)
{
	int64_t start, end, found;
	enum op_err err;

	start = atomic_load_explicit(&p->log_start, memory_order_acquire);
	end = __atomic_load_n(&p->next_offset, __ATOMIC_ACQUIRE);
	switch (a->mode) {
	case OP_RESET_TO_OFFSET:
		*offset = a->value < start ? start :
		    a->value > end ? end : a->value;
		return OP_OK;
	case OP_RESET_TO_EARLIEST:
		*offset = start;
		return OP_OK;
	case OP_RESET_TO_LATEST:
		*offset = end;
		return OP_OK;
	case OP_RESET_TO_TIME:
		/* Only what is in the files: the ring's tail is the newest. */
		end = atomic_load_explicit(&p->visible_offset,
		    memory_order_acquire);
		if ((err = op_offset_for_time(w, p, a->value, offset,
		    &found)) != OP_OK)
			return err;
		/* No record that new: the end, where new ones will come. */
		if (*offset == -1)
			*offset = end;
		return OP_OK;
	default:
		return OP_BAD_REQUEST;
	}
}

/*
 * The targets are found first, outside the lock (a time lookup reads the
 * log), then stored only if the group is still without members.
 */
enum op_err
op_group_reset(const struct op_ctx *x, const struct op_reset_args *a,
    struct op_reset_result **resp, int32_t *np)
{
	struct worker *w = x->w;
	struct op_reset_result *res = NULL;
	struct group_params gp;
	struct shm_partition *p;
	struct shm_group *g;
	const struct shm_topic *t;
	uint32_t s0, g0;
	int32_t i, first, n;
	enum op_err e;
	int gidx, tidx;

	*resp = NULL;
	*np = 0;
	if (!group_name_valid(a->group, a->group_len))
		return OP_BAD_GROUP;
	if ((e = op_access_group(x, AUTH_GROUP_DELETE, a->group,
	    a->group_len)) != OP_OK ||
	    (e = op_access_topic(x, AUTH_ADMIN, a->topic, a->topic_len)) !=
	    OP_OK)
		return e;
	if ((tidx = shm_topic_find(w->shm, a->topic, a->topic_len)) < 0)
		return OP_NO_TOPIC;
	t = &w->shm->topics[tidx];
	if (a->partition == -1) {
		first = 0;
		n = (int32_t)t->partitions;
	} else if (a->partition >= 0 && a->partition < (int32_t)t->partitions) {
		first = a->partition;
		n = 1;
	} else
		return OP_NO_TOPIC;
	if (n > 0 && (res = op_alloc(x, (size_t)n * sizeof(*res))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < n; i++) {
		res[i].partition = first + i;
		res[i].offset = -1;
		if ((p = shm_partition(w->shm, tidx, first + i)) == NULL)
			res[i].err = OP_NO_TOPIC;
		else if ((res[i].err = reset_target(w, p, a,
		    &res[i].offset)) != OP_OK)
			return res[i].err;
	}
	if ((e = op_group_create(w, a->group, a->group_len, 0, &gidx)) != OP_OK)
		return e;
	op_group_params(w, &gp);
	if ((g = op_group_lock_name(w, gidx, a->group, a->group_len, &gp, &s0,
	    &g0)) == NULL)
		return OP_INTERNAL;
	/* Members silent past their session are gone already. */
	(void)group_tick(w->shm, g, w->now, &gp);
	if (group_member_count(w->shm, g) > 0) {
		op_group_unlock(w, g, s0, g0);
		return OP_GROUP_NOT_EMPTY;
	}
	for (i = 0; i < n; i++) {
		if (res[i].err != OP_OK)
			continue;
		p = shm_partition(w->shm, tidx, first + i);
		group_offset_set(w->shm, g, (uint32_t)(p - w->shm->parts),
		    res[i].offset);
	}
	op_group_unlock(w, g, s0, g0);
	log_info("group %.*s: offsets of %.*s reset by %s", (int)a->group_len,
	    a->group, (int)a->topic_len, a->topic, x->peer);
	*resp = res;
	*np = n;
	/* The writer saves committed offsets; it need not sleep out its timeout. */
	worker_wake_writer(w, 0);
	return OP_OK;
}

static const char *
odelete_api(const struct op_ctx *x)
{
	return x->api != NULL ? x->api : "?";
}

/* Is slot's topic one the generation of g subscribes? (locked) */
static int
odelete_subscribed(struct worker *w, struct shm_group *g, uint32_t slot)
{
	uint32_t k;

	if (g->kind == GROUP_KIND_CONSUMER)	/* its members' subscriptions */
		return cgroup_subscribes(w->shm, g, w->shm->parts[slot].topic);
	for (k = 0; k < g->ntopics && k < GROUP_TOPICS_MAX; k++)
		if (g->topics[k].topic == w->shm->parts[slot].topic &&
		    g->topics[k].incarnation ==
		    group_topic_incarnation(w->shm, g->topics[k].topic))
			return 1;
	return 0;
}

/*
 * Does g say what its members consume?  A native group and a Kafka
 * group of the "consumer" protocol type do (its generation's
 * subscription, shm/kgroup.c); another Kafka protocol (Connect's) does
 * not.
 */
static int
odelete_knows_topics(const struct shm_group *g)
{
	return g->kind != GROUP_KIND_KAFKA || (g->ptype_len == 8 &&
	    memcmp(g->ptype, "consumer", 8) == 0);
}

enum op_err
op_group_offset_delete(const struct op_ctx *x, const char *group,
    size_t glen, struct op_group_offset *parts, int32_t n)
{
	struct worker *w = x->w;
	struct op_group_offset *p;
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0, slot = 0;
	int32_t i, deleted = 0, kept = 0;
	enum op_err e;
	int gidx, active;

	if (!group_name_valid(group, glen)) {
		log_info("%s: %s: offsets of a group not deleted: invalid name",
		    x->peer, odelete_api(x));
		return OP_BAD_GROUP;
	}
	if ((e = op_access_group(x, AUTH_GROUP_DELETE, group, glen)) != OP_OK)
		return e;
	/* Per topic, as for a fetch (and before the lock: a denial is logged). */
	for (i = 0; i < n; i++) {
		p = &parts[i];
		p->offset = -1;
		p->err = op_access_topic(x, AUTH_CONSUME, p->topic,
		    p->topic_len);
		if (p->err == OP_OK)
			p->err = op_group_part(w, p->topic, p->topic_len,
			    p->partition, &slot);
	}
	if ((e = op_group_find(w, group, glen, OP_NO_GROUP, &gidx)) != OP_OK ||
	    (op_group_params(w, &gp), g = op_group_lock_name(w, gidx, group,
	    glen, &gp, &s0, &g0)) == NULL) {
		log_info("%s: %s: offsets of group %.*s not deleted: no such "
		    "group", x->peer, odelete_api(x), (int)glen, group);
		return OP_NO_GROUP;
	}
	/* Members silent past their session are gone already. */
	(void)group_tick(w->shm, g, w->now, &gp);
	active = group_member_count(w->shm, g) > 0;
	if (active && !odelete_knows_topics(g)) {
		op_group_unlock(w, g, s0, g0);
		log_info("%s: %s: offsets of group %.*s not deleted: it has "
		    "members of a protocol other than consumer", x->peer,
		    odelete_api(x), (int)glen, group);
		return OP_GROUP_NOT_EMPTY;
	}
	for (i = 0; i < n; i++) {
		p = &parts[i];
		/* Looked up again under the lock: the topic may be gone. */
		if (p->err != OP_OK || (p->err = op_group_part(w, p->topic,
		    p->topic_len, p->partition, &slot)) != OP_OK)
			continue;
		if (active && odelete_subscribed(w, g, slot)) {
			p->err = OP_GROUP_SUBSCRIBED;
			kept++;
			continue;
		}
		p->offset = group_offset_get(w->shm, g, slot);
		if (p->offset >= 0) {
			group_offset_set(w->shm, g, slot, -1);
			deleted++;
		}
	}
	op_group_unlock(w, g, s0, g0);
	if (kept > 0)
		log_info("%s: %s: group %.*s: %d committed offset%s kept: its "
		    "members consume the topic", x->peer, odelete_api(x),
		    (int)glen, group, (int)kept, kept == 1 ? "" : "s");
	if (deleted > 0) {
		log_info("group %.*s: %d committed offset%s deleted by %s",
		    (int)glen, group, (int)deleted, deleted == 1 ? "" : "s",
		    x->peer);
		/* The writer saves the group's file without them. */
		worker_wake_writer(w, 0);
	}
	return OP_OK;
}
