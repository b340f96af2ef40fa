/*
 * Consumer groups, writer side (see writer_group.h).
 *
 * Logging committed offsets to __consumer_offsets (master/coffsets.h):
 * every commit bumps its group's commit_seq after storing the offsets,
 * so the writer reads the sequence first and the offsets after it; a
 * commit racing with the append bumps the sequence again and is appended
 * by a later cycle.  Every cycle, each group whose sequence moved gets
 * one batch: a commit record (Kafka's key and value, version 1) for each
 * offset that differs from what the writer logged last (the logged
 * offsets beside the committed ones in shared memory, shm/group.h), a
 * tombstone for each one deleted.  The batch goes into the ring of the
 * group's partition, as a produce would, and the writer drains it with
 * the data: one append, the same group commit and flush policy.  A full
 * ring is retried the next cycle (the offsets stay in shared memory,
 * which outlives every process but the machine).  No file is rewritten:
 * the topic is compacted, its latest record per key is the state.
 *
 * Expiry: the writer runs every group's state machine at least every
 * WG_TICK_MAX_MS and at the nearest deadline it saw (group_due(): a
 * rebalance's, a member's session end, a consumer protocol member's
 * revocation deadline), so a group whose members all went silent still
 * loses them (the workers run the same machine on every group request).
 * A deadline set between two ticks is seen at the next one, at most
 * WG_TICK_MAX_MS later.
 *
 * Retention (offsets_retention, Kafka's offsets.retention.minutes): a
 * group without members whose offsets did not change for that long (the
 * writer's tick notes, in wall-clock time, when it last saw members or a
 * commit; a writer that starts counts from then) is deleted
 * (group_delete()), as a `flume-admin group delete` does.  A deleted
 * slot's offsets and the group get their tombstones here, then the slot
 * is freed for reuse (wg_reap()); keys that a group of the same name
 * made meanwhile holds are left to it.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "master/writer_group.h"
#include "proto/batch.h"
#include "proto/coffsets.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/ring.h"
#include "shm/topics.h"
#include "store/offsets.h"
#include "store/topic.h"

#define WG_TICK_MAX_MS		1000
#define WG_RETRY_MS		1000
#define WG_MIGRATE_POLL_MS	100	/* until the loaded files are logged and synced */

struct wg_slot {
	uint64_t	saved_seq;	/* commit_seq of the last save */
	int		error;		/* errno of the last failed save, 0 if none */
	int64_t		retry_ms;
	int64_t		active_ms;	/* CLOCK_REALTIME: members or a commit seen; 0 unknown */
	uint64_t	seen_seq;	/* commit_seq at that time */
	int		reap_error;	/* errno of the last failed file removal */
};

struct writer_groups {
	struct broker		*b;
	struct shm		*s;
	const struct config	*conf;
	char			 dir[PATH_MAX];
	struct wg_slot		*slots;		/* [max_groups] */
	int64_t			 next_tick;
	int64_t			 next_save;	/* nearest deferred save or retry */
	struct batch_builder	 bb;		/* one batch per group and cycle */
	int64_t			*snap;		/* [max_partitions]: offsets a batch holds */
	int			 migrating;	/* OFFSETS_DIR to retire once logged */
};

static int
offsets_dir(char *buf, size_t size, const struct config *conf)
{
	int n = snprintf(buf, size, "%s/%s", conf->data_dir, OFFSETS_DIR);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static void
wg_params(const struct config *conf, struct group_params *gp)
{
	gp->rebalance_timeout_ms = conf->group_rebalance_timeout_ms;
	gp->min_session_ms = (int32_t)conf->group_min_session_timeout_ms;
	gp->max_session_ms = (int32_t)conf->group_max_session_timeout_ms;
	gp->initial_delay_ms = conf->group_initial_rebalance_delay_ms;
	gp->cg_session_ms = (int32_t)conf->group_consumer_session_timeout_ms;
	gp->cg_heartbeat_ms = (int32_t)conf->group_consumer_heartbeat_interval_ms;
	gp->cg_assignor = cgroup_assignor(conf->group_consumer_assignor,
	    strlen(conf->group_consumer_assignor));
	gp->cg_max_size = conf->group_consumer_max_size;
	gp->cg_migration = (uint32_t)cgroup_policy(
	    conf->group_consumer_migration_policy);
}

/*
 * Copy group g's name into buf (GROUP_NAME_MAX + 1) if it checks out:
 * its slot is in state used (GROUP_SLOT_*), a valid name.  A region
 * re-attached at start-up is trusted no further than this.
 */
static int
group_name_get(struct shm_group *g, uint32_t used, char *buf)
{
	uint32_t len = g->name_len;

	if (atomic_load_explicit(&g->used, memory_order_acquire) != used ||
	    len == 0 || len > GROUP_NAME_MAX)
		return -1;
	memcpy(buf, g->name, len);
	buf[len] = '\0';
	return group_name_valid(buf, len) ? 0 : -1;
}

/* Topic name and partition of partition slot i, checked; 0 or -1. */
static int
slot_entry(const struct shm *s, uint32_t i, struct offset_entry *e)
{
	const struct shm_partition *p = &s->parts[i];
	const struct shm_topic *t;
	uint32_t n = atomic_load_explicit(&s->hdr->topic_count, memory_order_acquire);

	if (p->topic >= n || p->topic >= s->hdr->limits.max_topics)
		return -1;
	t = &s->topics[p->topic];
	if (atomic_load_explicit(&t->state, memory_order_acquire) != TOPIC_READY ||
	    t->name_len == 0 || t->name_len > TOPIC_NAME_MAX ||
	    p->partition < 0 || p->partition >= t->partitions)
		return -1;
	memset(e->topic, 0, sizeof(e->topic));
	memcpy(e->topic, t->name, t->name_len);
	if (!topic_name_valid(e->topic, t->name_len))
		return -1;
	e->partition = p->partition;
	return 0;
}

/*
 * Collect g's committed offsets into *ep (malloc'ed) and save them.
 * 0 (also when there is nothing to save), or -1 with errno.
 */
static int
group_save(const struct shm *s, struct shm_group *g, const char *dir,
    const char *name)
{
	struct offset_entry *e;
	uint32_t i, used, n = 0;
	int64_t off;
	int rc, saved;

	used = atomic_load_explicit(&s->hdr->parts_used, memory_order_acquire);
	if (used > s->hdr->limits.max_partitions)
		used = s->hdr->limits.max_partitions;
	if ((e = calloc(used > 0 ? used : 1, sizeof(*e))) == NULL)
		return -1;
	for (i = 0; i < used; i++) {
		if ((off = group_offset_get(s, g, i)) < 0)
			continue;
		if (slot_entry(s, i, &e[n]) == -1)
			continue;
		e[n].offset = off;
		n++;
	}
	/* Nothing committed (deleted, or every offset below 0): no file. */
	rc = n == 0 ? offsets_remove(dir, name) : offsets_save(dir, name, e, n);
	saved = errno;
	free(e);
	errno = saved;
	return rc;
}

/*
 * The partition of __consumer_offsets holding group name (Kafka's rule),
 * and its incarnation; NULL while the topic is not there.
 */
static struct shm_partition *
wg_partition(struct shm *s, const char *name, size_t len, uint32_t *inc)
{
	struct shm_partition *p;
	int tidx;

	if ((tidx = shm_topic_find(s, COFFSETS_TOPIC, COFFSETS_TOPIC_LEN)) < 0 ||
	    (p = shm_partition(s, tidx, coffsets_partition_for(name, len,
	    (int32_t)s->topics[tidx].partitions))) == NULL)
		return NULL;
	*inc = atomic_load_explicit(&p->incarnation, memory_order_acquire);
	return p;
}

/*
 * Add to bb the record of (group, topic, partition): a commit of offset,
 * or a tombstone (offset < 0).  Key v1, value v1 (proto/coffsets.h).
 */
static int
wg_record(struct batch_builder *bb, const char *group, const char *topic,
    int32_t partition, int64_t offset, int64_t real)
{
	struct coffsets_commit v = { .version = 1, .offset = offset,
	    .leader_epoch = -1, .metadata = "", .commit_ts = real,
	    .expire_ts = -1 };
	uint8_t key[2 * (GROUP_NAME_MAX + TOPIC_NAME_MAX) + 16], val[64];
	size_t kl, vl = 0;

	kl = coffsets_commit_key(key, sizeof(key), group, strlen(group), topic,
	    strlen(topic), partition);
	if (offset >= 0)
		vl = coffsets_commit_value(val, sizeof(val), &v);
	if (kl > sizeof(key) || vl > sizeof(val)) {
		errno = EINVAL;
		return -1;
	}
	return batch_builder_add(bb, real, key, (int32_t)kl,
	    offset >= 0 ? val : NULL, offset >= 0 ? (int32_t)vl : -1, NULL, 0);
}

/* A group tombstone (GroupMetadataKey v2, null value): the group is gone. */
static int
wg_group_tombstone(struct batch_builder *bb, const char *group, int64_t real)
{
	uint8_t key[GROUP_NAME_MAX + 16];
	size_t kl = coffsets_group_key(key, sizeof(key), group, strlen(group));

	if (kl > sizeof(key)) {
		errno = EINVAL;
		return -1;
	}
	return batch_builder_add(bb, real, key, (int32_t)kl, NULL, -1, NULL, 0);
}

/*
 * Append bb's batch to group name's partition of __consumer_offsets
 * through its ring, as any produced batch goes (the writer drains it
 * like the others, with their group commit and fsync policy).  0 (also
 * with no records), or -1 with errno (EAGAIN: the ring is full now).
 */
static int
wg_append(struct shm *s, struct batch_builder *bb, const char *name)
{
	struct shm_partition *p;
	const uint8_t *batch;
	size_t len;
	int64_t base, next;
	uint32_t inc;

	if (bb->count == 0)
		return 0;
	if ((p = wg_partition(s, name, strlen(name), &inc)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	if (batch_builder_close(bb, &batch, &len) == -1)
		return -1;
	return ring_append_hooked(s, p, inc, batch, len, NULL, &base, &next);
}

/*
 * Append what g's committed offsets changed since the writer last
 * logged them, one batch: a commit record per changed offset, a
 * tombstone per deleted one.  With gone (a deleted group), every logged
 * offset gets its tombstone and the group one (Kafka's DeleteGroups and
 * expiry write the same), except keys that live, a group of the same
 * name made since, logged again (then the key is its).  0 or -1.
 */
static int
group_log(struct writer_groups *wg, struct shm_group *g, const char *name,
    struct shm_group *live)
{
	const struct shm *s = wg->s;
	struct batch_builder *bb = &wg->bb;
	struct offset_entry e;
	uint32_t i, used;
	int64_t off, was, real = clock_real_ms();
	int saved;

	used = atomic_load_explicit(&s->hdr->parts_used, memory_order_acquire);
	if (used > s->hdr->limits.max_partitions)
		used = s->hdr->limits.max_partitions;
	batch_builder_reset(bb);
	for (i = 0; i < used; i++) {
		off = group_offset_get(s, g, i);
		was = group_logged_get(s, g, i);
		wg->snap[i] = off;
		if (off == was || (off < 0 && was < 0))
			continue;
		if (live != NULL && (group_logged_get(s, live, i) >= 0 ||
		    group_offset_get(s, live, i) >= 0))
			continue;
		/* A slot whose topic is gone had its tombstones (wg_topic_gone). */
		if (slot_entry(s, i, &e) == -1)
			continue;
		if (wg_record(bb, name, e.topic, e.partition, off, real) == -1)
			return -1;
	}
	if (atomic_load_explicit(&g->used, memory_order_acquire) ==
	    GROUP_SLOT_DELETED && live == NULL &&
	    wg_group_tombstone(bb, name, real) == -1)
		return -1;
	if (wg_append(wg->s, bb, name) == -1) {
		saved = errno;
		batch_builder_reset(bb);
		errno = saved;
		return -1;
	}
	batch_builder_reset(bb);
	/* In the ring: what the topic will hold. */
	for (i = 0; i < used; i++)
		group_logged_set(s, g, i, wg->snap[i]);
	return 0;
}

void
writer_groups_topic_gone(struct writer_groups *wg, const char *topic,
    int32_t partition, uint32_t slot)
{
	struct shm_group *g;
	char name[GROUP_NAME_MAX + 1];
	uint32_t i, n;
	int64_t real = clock_real_ms();

	if (wg == NULL)
		return;
	n = group_count(wg->s);
	for (i = 0; i < n; i++) {
		g = group_at(wg->s, i);
		if (group_logged_get(wg->s, g, slot) < 0 ||
		    (group_name_get(g, GROUP_SLOT_USED, name) == -1 &&
		    group_name_get(g, GROUP_SLOT_DELETED, name) == -1))
			continue;
		batch_builder_reset(&wg->bb);
		if (wg_record(&wg->bb, name, topic, partition, -1, real) == -1 ||
		    wg_append(wg->s, &wg->bb, name) == -1)
			log_warn("group %s: cannot append the tombstone of "
			    "%s/%d to %s", name, topic, partition,
			    COFFSETS_TOPIC);
		batch_builder_reset(&wg->bb);
		group_logged_set(wg->s, g, slot, -1);
	}
}

int
writer_groups_open(struct writer_groups **wgp, struct broker *b)
{
	struct writer_groups *wg;
	uint32_t n = b->shm.hdr->limits.max_groups;

	*wgp = NULL;
	if ((wg = calloc(1, sizeof(*wg))) == NULL)
		return -1;
	if ((wg->slots = calloc(n > 0 ? n : 1, sizeof(*wg->slots))) == NULL ||
	    (wg->snap = calloc(b->shm.hdr->limits.max_partitions + 1,
	    sizeof(*wg->snap))) == NULL) {
		free(wg->slots);
		free(wg);
		return -1;
	}
	wg->b = b;
	wg->s = &b->shm;
	wg->conf = b->conf;
	batch_builder_init(&wg->bb);
	wg->migrating = offsets_pending(b->conf->data_dir);
	if (offsets_dir(wg->dir, sizeof(wg->dir), b->conf) == -1) {
		free(wg->snap);
		free(wg->slots);
		free(wg);
		return -1;
	}
	*wgp = wg;
	return 0;
}

void
writer_groups_close(struct writer_groups *wg)
{
	if (wg == NULL)
		return;
	batch_builder_free(&wg->bb);
	free(wg->snap);
	free(wg->slots);
	free(wg);
}

/* Wake every worker that parked requests (a JOIN may wait for this group). */
static void
wg_wake_workers(struct writer_groups *wg)
{
	int slot, n = broker_writer_slot(wg->b);

	atomic_thread_fence(memory_order_seq_cst);
	if ((uint32_t)n > wg->s->hdr->limits.child_slots)
		n = (int)wg->s->hdr->limits.child_slots;
	for (slot = 0; slot < n; slot++)
		if (atomic_load(&wg->s->children[slot].wake_wanted) != 0 &&
		    atomic_exchange(&wg->s->children[slot].wake_wanted, 0) != 0)
			broker_wake(wg->b, slot);
}

/*
 * Log what changed (group_log) in every group; with force, ignore
 * backoffs.  -1 if some group is not logged.
 */
static int
wg_save_changed(struct writer_groups *wg, int64_t now, int force)
{
	struct shm_group *g;
	struct wg_slot *sl;
	char name[GROUP_NAME_MAX + 1];
	uint32_t i, n = group_count(wg->s);
	uint64_t seq;
	int rc = 0;

	wg->next_save = INT64_MAX;
	for (i = 0; i < n; i++) {
		g = group_at(wg->s, i);
		sl = &wg->slots[i];
		seq = atomic_load_explicit(&g->commit_seq, memory_order_acquire);
		if (seq == sl->saved_seq || group_name_get(g, GROUP_SLOT_USED, name) == -1)
			continue;
		if (!force && sl->error != 0 && now < sl->retry_ms) {
			if (sl->retry_ms < wg->next_save)
				wg->next_save = sl->retry_ms;
			rc = -1;
			continue;
		}
		if (group_log(wg, g, name, NULL) == -1) {
			/* A full ring frees as the writer drains it: soon. */
			if (sl->error != errno && errno != EAGAIN)
				log_warn("group %s: cannot append its committed "
				    "offsets to %s; retrying", name,
				    COFFSETS_TOPIC);
			sl->error = errno;
			sl->retry_ms = now + (errno == EAGAIN ? 1 : WG_RETRY_MS);
			if (sl->retry_ms < wg->next_save)
				wg->next_save = sl->retry_ms;
			rc = -1;
			continue;
		}
		if (sl->error != 0 && sl->error != EAGAIN)
			log_info("group %s: committed offsets logged again", name);
		sl->error = 0;
		sl->saved_seq = seq;
	}
	return rc;
}

/*
 * Log the tombstones of DELETED slots and free them for reuse.  A group
 * of the same name made since keeps the keys it holds (group_log).
 */
static void
wg_reap(struct writer_groups *wg)
{
	struct shm_group *g;
	struct wg_slot *sl;
	char name[GROUP_NAME_MAX + 1];
	uint32_t i, n = group_count(wg->s);
	int live, rc;

	for (i = 0; i < n; i++) {
		g = group_at(wg->s, i);
		if (atomic_load_explicit(&g->used, memory_order_acquire) !=
		    GROUP_SLOT_DELETED)
			continue;
		sl = &wg->slots[i];
		if (group_name_get(g, GROUP_SLOT_DELETED, name) == -1)
			rc = 0;		/* no name: nothing it could have logged */
		else {
			live = group_find(wg->s, name, strlen(name));
			rc = group_log(wg, g, name, live >= 0 ?
			    group_at(wg->s, (uint32_t)live) : NULL);
		}
		if (rc == -1) {
			if (sl->reap_error != errno && errno != EAGAIN)
				log_warn("group %s: cannot append its tombstones "
				    "to %s; retrying", name, COFFSETS_TOPIC);
			sl->reap_error = errno;
			continue;
		}
		memset(sl, 0, sizeof(*sl));
		sl->saved_seq = atomic_load_explicit(&g->commit_seq,
		    memory_order_acquire);
		group_slot_free(wg->s, i);
	}
}

/*
 * Retention of group i (locked, ticked) at wall-clock time real: note
 * when it was last seen with members or a commit.  Its commit_seq when
 * it has been idle past offsets_retention, else GROUP_ANY_SEQ.
 */
static uint64_t
wg_idle(struct writer_groups *wg, uint32_t i, struct shm_group *g,
    int64_t real)
{
	struct wg_slot *sl = &wg->slots[i];
	uint64_t seq = atomic_load_explicit(&g->commit_seq, memory_order_acquire);

	if (sl->active_ms == 0) {
		/* A writer just started: retention counts from now. */
		sl->active_ms = real;
		sl->seen_seq = seq;
	}
	if (group_member_count(wg->s, g) > 0 || seq != sl->seen_seq) {
		sl->active_ms = real;
		sl->seen_seq = seq;
		return GROUP_ANY_SEQ;
	}
	if (wg->conf->offsets_retention_ms < 0 ||
	    real - sl->active_ms < wg->conf->offsets_retention_ms)
		return GROUP_ANY_SEQ;
	return seq;
}

/* Run every group's state machine and retention; note the nearest deadline. */
static void
wg_tick(struct writer_groups *wg, int64_t now)
{
	struct group_params gp;
	struct shm_group *g;
	char name[GROUP_NAME_MAX + 1];
	uint32_t i, n = group_count(wg->s);
	int64_t due = now + WG_TICK_MAX_MS, t, real = clock_real_ms();
	uint64_t idle;
	int changed = 0, rc;

	wg_params(wg->conf, &gp);
	for (i = 0; i < n; i++) {
		g = group_at(wg->s, i);
		if (atomic_load_explicit(&g->used, memory_order_acquire) !=
		    GROUP_SLOT_USED)
			continue;
		if ((rc = group_lock(wg->s, g, now, &gp)) == -1)
			continue;
		if (rc == 1) {
			log_warnx("group %u: its lock holder died; forced a new "
			    "generation", i);
			changed = 1;
		}
		if (group_tick(wg->s, g, now, &gp))
			changed = 1;
		if ((t = group_due(wg->s, g)) < due)
			due = t;
		idle = wg_idle(wg, i, g, real);
		group_unlock(g);
		/* Deleted only if still idle: no member, no commit since. */
		if (idle != GROUP_ANY_SEQ &&
		    group_name_get(g, GROUP_SLOT_USED, name) == 0 &&
		    group_delete(wg->s, i, now, &gp, idle) == ERR_NONE)
			log_info("group %s: no member and no commit for %lld ms "
			    "(offsets_retention): its offsets expired", name,
			    (long long)(real - wg->slots[i].active_ms));
	}
	wg_reap(wg);
	wg->next_tick = due > now ? due : now + 1;
	if (changed)
		wg_wake_workers(wg);
}

/*
 * Is everything the region's groups hold in __consumer_offsets and
 * synced?  Then the files it was loaded from may go.
 */
static int
wg_all_durable(struct writer_groups *wg)
{
	struct shm_partition *p;
	struct shm_group *g;
	uint32_t i, n = group_count(wg->s);
	int32_t j;
	int tidx;

	for (i = 0; i < n; i++) {
		g = group_at(wg->s, i);
		if (atomic_load_explicit(&g->used, memory_order_acquire) !=
		    GROUP_SLOT_FREE && atomic_load_explicit(&g->commit_seq,
		    memory_order_acquire) != wg->slots[i].saved_seq)
			return 0;
	}
	if ((tidx = shm_topic_find(wg->s, COFFSETS_TOPIC,
	    COFFSETS_TOPIC_LEN)) < 0)
		return 0;
	for (j = 0; j < (int32_t)wg->s->topics[tidx].partitions; j++)
		if ((p = shm_partition(wg->s, tidx, j)) == NULL ||
		    atomic_load(&p->durable_offset) <
		    __atomic_load_n(&p->next_offset, __ATOMIC_ACQUIRE))
			return 0;
	return 1;
}

/* The old offsets files are in the topic, synced: retire them. */
static void
wg_migrate(struct writer_groups *wg, int64_t now)
{
	int rc;

	if (!wg_all_durable(wg)) {
		if (now + WG_MIGRATE_POLL_MS < wg->next_save)
			wg->next_save = now + WG_MIGRATE_POLL_MS;
		return;
	}
	wg->migrating = 0;
	if ((rc = offsets_retire(wg->conf->data_dir)) == -1)
		log_warn("%s/%s: cannot retire the committed offsets files "
		    "(they are in %s)", wg->conf->data_dir, OFFSETS_DIR,
		    COFFSETS_TOPIC);
	else if (rc == 1)
		log_info("committed offsets of %s/%s are in %s; the files are "
		    "kept as %s until the next clean start", wg->conf->data_dir,
		    OFFSETS_DIR, COFFSETS_TOPIC, OFFSETS_MIGRATED);
	else if (rc == 2)
		log_info("committed offsets of %s/%s are in %s; files removed",
		    wg->conf->data_dir, OFFSETS_DIR, COFFSETS_TOPIC);
}

void
writer_groups_cycle(struct writer_groups *wg, int64_t now)
{
	if (wg == NULL)
		return;
	if (group_count(wg->s) == 0) {
		wg->next_save = INT64_MAX;
		if (wg->migrating)
			wg_migrate(wg, now);
		return;
	}
	(void)wg_save_changed(wg, now, 0);
	/* Deleted groups' tombstones at once: their slots are wanted. */
	wg_reap(wg);
	if (wg->migrating)
		wg_migrate(wg, now);
	if (now >= wg->next_tick)
		wg_tick(wg, now);
}

int64_t
writer_groups_due(const struct writer_groups *wg)
{
	int64_t t;

	if (wg == NULL || (group_count(wg->s) == 0 && !wg->migrating))
		return INT64_MAX;
	if (group_count(wg->s) == 0)
		return wg->next_save;
	t = wg->next_tick;
	return wg->next_save < t ? wg->next_save : t;
}

int
writer_groups_finish(struct writer_groups *wg, int64_t now)
{
	if (wg == NULL || group_count(wg->s) == 0)
		return 0;
	wg_reap(wg);
	return wg_save_changed(wg, now, 1);
}

int
writer_groups_drain_region(struct shm *old, const struct config *conf)
{
	struct shm_group *g;
	char dir[PATH_MAX], name[GROUP_NAME_MAX + 1];
	uint32_t i, n;
	int saved = 0, rc = 0;

	if (old->groups == NULL || old->hdr->limits.max_groups == 0)
		return 0;
	if (offsets_dir(dir, sizeof(dir), conf) == -1) {
		log_warn("%s/%s", conf->data_dir, OFFSETS_DIR);
		return -1;
	}
	n = group_count(old);
	for (i = 0; i < n; i++) {
		g = group_at(old, i);
		if (atomic_load_explicit(&g->used, memory_order_acquire) ==
		    GROUP_SLOT_FREE)
			continue;
		/* Deleted, its file not yet removed (unless made again). */
		if (group_name_get(g, GROUP_SLOT_DELETED, name) == 0) {
			if (group_find(old, name, strlen(name)) == -1 &&
			    offsets_remove(dir, name) == -1) {
				log_warn("group %s: cannot remove its committed "
				    "offsets", name);
				rc = -1;
			}
			continue;
		}
		if (group_name_get(g, GROUP_SLOT_USED, name) == -1) {
			log_warnx("old shared memory: group entry %u is damaged; "
			    "ignored", i);
			continue;
		}
		if (group_save(old, g, dir, name) == -1) {
			log_warn("group %s: cannot save committed offsets", name);
			rc = -1;
			continue;
		}
		saved++;
	}
	return rc == -1 ? -1 : saved;
}

int
writer_groups_load(struct shm *s, const struct config *conf)
{
	struct offset_entry *e;
	struct shm_partition *p;
	struct shm_group *g;
	char dir[PATH_MAX], **names = NULL;
	size_t n = 0, i, j, ne;
	int gidx, tidx, loaded = 0, dropped;

	if (s->hdr->limits.max_groups == 0)
		return 0;
	if (offsets_dir(dir, sizeof(dir), conf) == -1 ||
	    offsets_list(dir, &names, &n) == -1) {
		log_warn("cannot list the committed offsets in %s/%s",
		    conf->data_dir, OFFSETS_DIR);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (offsets_load(dir, names[i], &e, &ne) == -1) {
			log_warn("group %s: cannot read its committed offsets; "
			    "ignored", names[i]);
			continue;
		}
		if ((gidx = group_create(s, names[i], strlen(names[i]), 1)) == -1) {
			log_warnx("group %s does not fit: raise max_groups (%u)",
			    names[i], conf->max_groups);
			free(e);
			continue;
		}
		g = group_at(s, (uint32_t)gidx);
		dropped = 0;
		/*
		 * A file holds the group's whole state, newer than the topic's
		 * (a drained region's) or the only one (a broker before the
		 * topic): it replaces what the topic gave.  The writer appends
		 * the difference (commit_seq moved).
		 */
		for (j = 0; j < s->hdr->limits.max_partitions; j++)
			if (group_offset_get(s, g, (uint32_t)j) >= 0)
				group_offset_set(s, g, (uint32_t)j, -1);
		for (j = 0; j < ne; j++) {
			tidx = shm_topic_find(s, e[j].topic, strlen(e[j].topic));
			if (tidx < 0 || e[j].offset < 0 ||
			    (p = shm_partition(s, tidx, e[j].partition)) == NULL) {
				dropped++;
				continue;
			}
			group_offset_set(s, g, (uint32_t)(p - s->parts), e[j].offset);
		}
		if (dropped > 0)
			log_warnx("group %s: %d committed offset%s for missing "
			    "topics or partitions dropped", names[i], dropped,
			    dropped == 1 ? "" : "s");
		free(e);
		loaded++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (loaded > 0)
		log_info("loaded the committed offsets of %d group%s", loaded,
		    loaded == 1 ? "" : "s");
	return loaded;
}
