/*
 * Rebuilding the committed offsets from __consumer_offsets (see
 * coffsets.h).  Only the broker appends to the topic (clients are
 * refused), always uncompressed batches; anything else is counted bad
 * and skipped, never trusted.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "master/coffsets.h"
#include "master/replay.h"
#include "proto/batch.h"
#include "proto/coffsets.h"
#include "shm/group.h"
#include "shm/topics.h"
#include "store/topic.h"

int32_t
coffsets_partitions(const struct config *conf)
{
	int32_t n;

	if (topic_meta_load(conf->data_dir, COFFSETS_TOPIC, &n, NULL) == 0 &&
	    n > 0)
		return n;
	return conf->offsets_topic_partitions;
}

/* One record of the topic into the region. */
static void
replay_record(struct shm *s, const struct record *rec,
    struct coffsets_replay *r)
{
	struct coffsets_key k;
	struct coffsets_commit v;
	struct shm_partition *p;
	struct shm_group *g;
	uint32_t slot;
	int gidx, tidx;

	if (rec->key_len < 0 || coffsets_key_decode(rec->key,
	    (size_t)rec->key_len, &k) == -1) {
		r->bad++;
		return;
	}
	if (k.version == COFFSETS_KEY_GROUP)
		return;		/* membership is not restored: members rejoin */
	if (!group_name_valid(k.group, k.group_len)) {
		r->bad++;
		return;
	}
	if (rec->value_len >= 0 && coffsets_commit_decode(rec->value,
	    (size_t)rec->value_len, &v) == -1) {
		r->bad++;
		return;
	}
	tidx = k.topic_len <= TOPIC_NAME_MAX ?
	    shm_topic_find(s, k.topic, k.topic_len) : -1;
	if (tidx < 0 || (p = shm_partition(s, tidx, k.partition)) == NULL) {
		r->dropped++;
		return;
	}
	slot = (uint32_t)(p - s->parts);
	if (rec->value_len < 0) {
		r->tombstones++;
		if ((gidx = group_find(s, k.group, k.group_len)) >= 0) {
			g = group_at(s, (uint32_t)gidx);
			group_offset_set(s, g, slot, -1);
			group_logged_set(s, g, slot, -1);
		}
		return;
	}
	if ((gidx = group_create(s, k.group, k.group_len, 1)) == -1) {
		r->dropped++;
		return;
	}
	g = group_at(s, (uint32_t)gidx);
	group_offset_set(s, g, slot, v.offset);
	group_logged_set(s, g, slot, v.offset);
	r->records++;
}

/* One record of the topic (replay_log()'s callback). */
struct coffsets_ctx {
	struct shm		*s;
	struct coffsets_replay	*r;
};

static void
replay_one(void *arg, const struct record *rec)
{
	struct coffsets_ctx *c = arg;

	replay_record(c->s, rec, c->r);
}

int
coffsets_replay(struct shm *s, struct plog *l, int32_t part,
    struct coffsets_replay *r)
{
	struct coffsets_ctx c = { s, r };

	(void)part;
	if (s->hdr->limits.max_groups == 0)
		return 0;
	return replay_log(l, replay_one, &c, &r->bad);
}

void
coffsets_replay_end(struct shm *s)
{
	struct group_params gp = { 0 };
	struct shm_group *g;
	uint32_t i, j, n = group_count(s), used;

	used = atomic_load_explicit(&s->hdr->parts_used, memory_order_acquire);
	for (i = 0; i < n; i++) {
		g = group_at(s, i);
		if (atomic_load_explicit(&g->used, memory_order_acquire) !=
		    GROUP_SLOT_USED)
			continue;
		for (j = 0; j < used; j++)
			if (group_offset_get(s, g, j) >= 0)
				break;
		if (j < used)
			continue;
		if (group_delete(s, i, 0, &gp, GROUP_ANY_SEQ) == ERR_NONE)
			group_slot_free(s, i);
	}
	/* Loaded is logged: the writer has nothing to append for them. */
	for (i = 0; i < n; i++)
		atomic_store(&group_at(s, i)->commit_seq, 0);
}
