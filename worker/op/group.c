/*
 * The shared group table for the operations (worker/op/group.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/broker.h"
#include "common/config.h"
#include "common/log.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/op/group.h"
#include "worker/worker.h"

void
op_group_params(const struct worker *w, struct group_params *gp)
{
	gp->rebalance_timeout_ms = w->conf->group_rebalance_timeout_ms;
	gp->min_session_ms = (int32_t)w->conf->group_min_session_timeout_ms;
	gp->max_session_ms = (int32_t)w->conf->group_max_session_timeout_ms;
	gp->initial_delay_ms = w->conf->group_initial_rebalance_delay_ms;
	gp->cg_session_ms = (int32_t)w->conf->group_consumer_session_timeout_ms;
	gp->cg_heartbeat_ms = (int32_t)w->conf->group_consumer_heartbeat_interval_ms;
	gp->cg_assignor = cgroup_assignor(w->conf->group_consumer_assignor,
	    strlen(w->conf->group_consumer_assignor));
	gp->cg_max_size = w->conf->group_consumer_max_size;
	gp->cg_migration = (uint32_t)cgroup_policy(
	    w->conf->group_consumer_migration_policy);
}

void
op_group_wake_all(struct worker *w)
{
	int slot, n = broker_writer_slot(w->b);

	atomic_thread_fence(memory_order_seq_cst);
	if ((uint32_t)n > w->shm->hdr->limits.child_slots)
		n = (int)w->shm->hdr->limits.child_slots;
	for (slot = 0; slot < n; slot++) {
		if (slot == w->b->slot)
			continue;
		if (atomic_load(&w->shm->children[slot].wake_wanted) != 0 &&
		    atomic_exchange(&w->shm->children[slot].wake_wanted, 0) != 0)
			broker_wake(w->b, slot);
	}
}

struct shm_group *
op_group_lock(struct worker *w, int gidx, const struct group_params *gp,
    uint32_t *state0, uint32_t *gen0)
{
	struct shm_group *g = group_at(w->shm, (uint32_t)gidx);
	int rc;

	if (g == NULL)
		return NULL;
	if ((rc = group_lock(w->shm, g, w->now, gp)) == -1) {
		log_warn("group lock");
		return NULL;
	}
	if (rc == 1)
		log_warnx("group %.*s: its lock holder died; forced a new "
		    "generation %u", (int)g->name_len, g->name, g->generation);
	/* Deleted since it was looked up (group_delete()): gone. */
	if (atomic_load_explicit(&g->used, memory_order_acquire) !=
	    GROUP_SLOT_USED) {
		group_unlock(g);
		return NULL;
	}
	*state0 = g->state;
	*gen0 = g->generation;
	return g;
}

/* Log why group_create() (join 0) refused group name, if for room. */
static void
op_group_no_room(struct worker *w, const char *name, size_t len)
{
	const struct shm_limits *lim = &w->shm->hdr->limits;

	if (errno != ENOSPC)
		return;
	log_warnx("group %.*s: no room for a group without members "
	    "(max_groups %u, the last %u kept for groups that members join; "
	    "see offsets_retention and flume-admin group delete)", (int)len,
	    name, lim->max_groups, group_reserved(lim));
}

struct shm_group *
op_group_lock_name(struct worker *w, int gidx, const char *name, size_t len,
    const struct group_params *gp, uint32_t *state0, uint32_t *gen0)
{
	struct shm_group *g;

	if ((g = op_group_lock(w, gidx, gp, state0, gen0)) == NULL)
		return NULL;
	if (g->name_len != len || memcmp(g->name, name, len) != 0) {
		group_unlock(g);
		return NULL;
	}
	return g;
}

void
op_group_unlock(struct worker *w, struct shm_group *g, uint32_t state0,
    uint32_t gen0)
{
	int changed = g->state != state0 || g->generation != gen0;

	group_unlock(g);
	if (changed)
		op_group_wake_all(w);
}

int
op_group_slot_tp(struct worker *w, uint32_t slot, struct op_group_tp *tp)
{
	const struct shm_partition *p = &w->shm->parts[slot];
	const struct shm_topic *t;

	if (p->topic >= w->shm->hdr->limits.max_topics)
		return -1;
	t = &w->shm->topics[p->topic];
	if (t->name_len == 0 || t->name_len > TOPIC_NAME_MAX)
		return -1;
	/* Topic entries never change once published: no copy needed. */
	tp->topic = t->name;
	tp->topic_len = t->name_len;
	tp->partition = p->partition;
	return 0;
}

enum op_err
op_group_part(struct worker *w, const char *topic, size_t len,
    int32_t partition, uint32_t *slot)
{
	struct shm_partition *p;
	int idx;

	if ((idx = shm_topic_find(w->shm, topic, len)) < 0 ||
	    (p = shm_partition(w->shm, idx, partition)) == NULL)
		return OP_NO_TOPIC;
	*slot = (uint32_t)(p - w->shm->parts);
	return OP_OK;
}

enum op_err
op_group_find(struct worker *w, const char *name, size_t len,
    enum op_err absent, int *gidx)
{
	if (!group_name_valid(name, len))
		return OP_BAD_GROUP;
	if ((*gidx = group_find(w->shm, name, len)) < 0)
		return absent;
	return OP_OK;
}

enum op_err
op_group_create(struct worker *w, const char *name, size_t len, int join,
    int *gidx)
{
	if (!group_name_valid(name, len))
		return OP_BAD_GROUP;
	if ((*gidx = group_create(w->shm, name, len, join)) >= 0)
		return OP_OK;
	if (errno == ENOSPC) {
		if (!join)
			op_group_no_room(w, name, len);
		return OP_NO_ROOM;
	}
	return errno == EINVAL ? OP_BAD_GROUP : OP_INTERNAL;
}

enum op_err
op_group_err(int16_t e)
{
	switch (e) {
	case ERR_NONE:			return OP_OK;
	case ERR_INVALID_REQUEST:	return OP_BAD_REQUEST;
	case ERR_INVALID_GROUP:		return OP_BAD_GROUP;
	case ERR_UNKNOWN_MEMBER:	return OP_UNKNOWN_MEMBER;
	case ERR_ILLEGAL_GENERATION:	return OP_STALE_GENERATION;
	case ERR_REBALANCE_IN_PROGRESS:	return OP_REBALANCING;
	case ERR_INVALID_SESSION_TIMEOUT: return OP_BAD_SESSION_TIMEOUT;
	case ERR_GROUP_NOT_EMPTY:	return OP_GROUP_NOT_EMPTY;
	case ERR_GROUP_KIND:		return OP_GROUP_KIND;
	case ERR_RESOURCE_LIMIT:	return OP_NO_ROOM;
	case ERR_STORAGE:		return OP_STORAGE;
	default:			return OP_INTERNAL;
	}
}
