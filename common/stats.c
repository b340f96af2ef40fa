/*
 * Snapshots of the broker's figures (see common/stats.h).  Topic names of
 * published topics never change, so a snapshot may point at them in the
 * region; group names are copied all the same (cheap, and independent).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/stats.h"
#include "shm/group.h"
#include "shm/stats.h"
#include "shm/topics.h"

static int64_t
u2i(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static int
stats_children(struct shm *s, struct arena *a, struct stats_resp *out)
{
	struct shm_child *ch;
	struct stats_child *c;
	uint32_t i, n = s->hdr->limits.child_slots;

	if ((out->children = arena_alloc(a, (n ? n : 1) * sizeof(*c))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		ch = &s->children[i];
		c = &out->children[out->nchildren++];
		c->slot = (int32_t)i;
		c->role = (int8_t)ch->role;
		c->pid = atomic_load(&ch->pid);
		c->restarts = ch->restarts;
		c->connections = u2i(atomic_load(&ch->connections));
		c->accepted = u2i(atomic_load(&ch->accepted));
		c->requests = u2i(atomic_load(&ch->requests));
		c->bytes_in = u2i(atomic_load(&ch->bytes_in));
		c->bytes_out = u2i(atomic_load(&ch->bytes_out));
		c->rejected_conns = u2i(atomic_load(&ch->rejected_conns));
		c->protocol_errors = u2i(atomic_load(&ch->protocol_errors));
		c->auth_failures = u2i(atomic_load(&ch->auth_failures));
		c->auth_throttled = u2i(atomic_load(&ch->auth_throttled));
		c->auth_derivations = u2i(atomic_load(&ch->auth_derivations));
		c->msgset_conversions =
		    u2i(atomic_load(&ch->msgset_conversions));
		c->msgset_bytes = u2i(atomic_load(&ch->msgset_bytes));
	}
	return 0;
}

static int
stats_parts(struct shm *s, struct arena *a, struct stats_resp *out)
{
	const struct shm_topic *t;
	struct shm_partition *sp;
	struct stats_partition *p;
	uint32_t ti, nt, total = 0, max = s->hdr->limits.max_partitions;
	uint64_t head, tail;
	int32_t pi;
	char *name;

	nt = atomic_load_explicit(&s->hdr->topic_count, memory_order_acquire);
	if (nt > s->hdr->limits.max_topics)
		nt = s->hdr->limits.max_topics;
	for (ti = 0; ti < nt; ti++) {
		t = &s->topics[ti];
		if (atomic_load_explicit(&t->state, memory_order_acquire) ==
		    TOPIC_READY && t->partitions > 0)
			total += (uint32_t)t->partitions;
	}
	if (total > max)
		total = max;
	if ((out->parts = arena_alloc(a, (total ? total : 1) * sizeof(*p))) == NULL)
		return -1;
	for (ti = 0; ti < nt; ti++) {
		t = &s->topics[ti];
		if (atomic_load_explicit(&t->state, memory_order_acquire) !=
		    TOPIC_READY || t->partitions <= 0 ||
		    t->name_len == 0 || t->name_len > TOPIC_NAME_MAX)
			continue;
		if ((name = arena_alloc(a, t->name_len + 1)) == NULL)
			return -1;
		memcpy(name, t->name, t->name_len);
		name[t->name_len] = '\0';
		for (pi = 0; pi < t->partitions; pi++) {
			if ((uint32_t)out->nparts >= total ||
			    (sp = shm_partition(s, (int)ti, pi)) == NULL)
				break;
			p = &out->parts[out->nparts++];
			p->topic = name;
			p->topic_len = t->name_len;
			p->partition = pi;
			p->log_start = atomic_load_explicit(&sp->log_start,
			    memory_order_acquire);
			p->log_end = __atomic_load_n(&sp->next_offset,
			    __ATOMIC_ACQUIRE);
			p->visible = atomic_load_explicit(&sp->visible_offset,
			    memory_order_acquire);
			p->durable = atomic_load_explicit(&sp->durable_offset,
			    memory_order_acquire);
			p->msgs_in = u2i(atomic_load(&sp->msgs_in));
			p->bytes_in = u2i(atomic_load(&sp->bytes_in));
			p->msgs_out = u2i(atomic_load(&sp->msgs_out));
			p->bytes_out = u2i(atomic_load(&sp->bytes_out));
			head = atomic_load(&sp->head);
			tail = atomic_load(&sp->tail);
			p->ring_used = tail >= head ? u2i(tail - head) : 0;
			p->ring_size = u2i(s->hdr->limits.ring_size);
			p->segments = (int32_t)atomic_load(&sp->segments);
			p->log_bytes = u2i(atomic_load(&sp->log_bytes));
			p->clean_ratio_ppm = atomic_load(&sp->clean_ratio_ppm);
			p->clean_last_ms = atomic_load(&sp->clean_last_ms);
			p->clean_saved = u2i(atomic_load(&sp->clean_saved));
		}
	}
	return 0;
}

static int
stats_fsync(struct shm *s, struct arena *a, struct stats_resp *out)
{
	struct shm_fsync *f = &s->hdr->fsync;
	int i;

	out->fsync_count = u2i(atomic_load_explicit(&f->count, memory_order_acquire));
	out->cleaner_runs = u2i(atomic_load(&s->hdr->cleaner.runs));
	out->cleaner_bytes_read = u2i(atomic_load(&s->hdr->cleaner.bytes_read));
	out->cleaner_bytes_written =
	    u2i(atomic_load(&s->hdr->cleaner.bytes_written));
	out->cleaner_records_removed =
	    u2i(atomic_load(&s->hdr->cleaner.records_removed));
	out->fsync_errors = u2i(atomic_load(&f->errors));
	out->fsync_sum_us = u2i(atomic_load(&f->sum_us));
	if ((out->buckets = arena_alloc(a, SHM_FSYNC_BUCKETS *
	    sizeof(*out->buckets))) == NULL)
		return -1;
	out->nbuckets = SHM_FSYNC_BUCKETS;
	for (i = 0; i < SHM_FSYNC_BUCKETS; i++) {
		out->buckets[i].le_us = stats_fsync_le_us[i];
		out->buckets[i].count = u2i(atomic_load(&f->bucket[i]));
	}
	return 0;
}

/* Answers per error code, summed over every child slot. */
static int
stats_errors(struct shm *s, struct arena *a, struct stats_resp *out)
{
	uint64_t sum[SHM_ERR_SLOTS];
	uint32_t i, n = s->hdr->limits.child_slots;
	int e;

	memset(sum, 0, sizeof(sum));
	for (i = 0; i < n; i++)
		for (e = 1; e < SHM_ERR_SLOTS; e++)
			sum[e] += atomic_load_explicit(&s->children[i].errors[e],
			    memory_order_relaxed);
	if ((out->errors = arena_alloc(a, SHM_ERR_SLOTS *
	    sizeof(*out->errors))) == NULL)
		return -1;
	for (e = 1; e < SHM_ERR_SLOTS; e++) {
		if (sum[e] == 0)
			continue;
		out->errors[out->nerrors].error = (int16_t)e;
		out->errors[out->nerrors].count = u2i(sum[e]);
		out->nerrors++;
	}
	return 0;
}

/*
 * Consumer-group lag: one entry per (group, partition slot) with a
 * committed offset; lag = the partition's acknowledged end - committed.
 * Two passes (count, then fill) bounded by the first count, since
 * commits may arrive in between.
 */
static int
stats_lags(struct shm *s, struct arena *a, struct stats_resp *out)
{
	struct shm_group *g;
	struct shm_partition *sp;
	const struct shm_topic *t;
	struct stats_lag *l;
	uint32_t gi, ng = group_count(s), pi, np, n = 0, len;
	int64_t committed, end;
	char *name;

	np = atomic_load_explicit(&s->hdr->parts_used, memory_order_acquire);
	if (np > s->hdr->limits.max_partitions)
		np = s->hdr->limits.max_partitions;
	for (gi = 0; gi < ng; gi++) {
		if ((g = group_at(s, gi)) == NULL ||
		    atomic_load_explicit(&g->used, memory_order_acquire) == 0)
			continue;
		for (pi = 0; pi < np; pi++)
			if (group_offset_get(s, g, pi) >= 0)
				n++;
	}
	out->nlags = 0;
	out->lags = NULL;
	if (n == 0)
		return 0;
	if ((out->lags = arena_alloc(a, n * sizeof(*l))) == NULL)
		return -1;
	for (gi = 0; gi < ng; gi++) {
		if ((g = group_at(s, gi)) == NULL ||
		    atomic_load_explicit(&g->used, memory_order_acquire) == 0)
			continue;
		len = g->name_len;
		if (len == 0 || len > GROUP_NAME_MAX)
			continue;
		name = NULL;
		for (pi = 0; pi < np && (uint32_t)out->nlags < n; pi++) {
			if ((committed = group_offset_get(s, g, pi)) < 0)
				continue;
			sp = &s->parts[pi];
			if (sp->topic >= s->hdr->limits.max_topics)
				continue;
			t = &s->topics[sp->topic];
			if (t->name_len == 0 || t->name_len > TOPIC_NAME_MAX)
				continue;
			if (name == NULL) {
				if ((name = arena_alloc(a, len + 1)) == NULL)
					return -1;
				memcpy(name, g->name, len);
				name[len] = '\0';
			}
			l = &out->lags[out->nlags++];
			l->group = name;
			l->group_len = len;
			l->topic = t->name;
			l->topic_len = t->name_len;
			l->partition = sp->partition;
			l->committed = committed;
			end = __atomic_load_n(&sp->next_offset, __ATOMIC_ACQUIRE);
			l->lag = end > committed ? end - committed : 0;
		}
	}
	return 0;
}

int
stats_collect(struct shm *s, struct arena *a, struct stats_resp *out)
{
	memset(out, 0, sizeof(*out));
	if (stats_children(s, a, out) == -1 || stats_parts(s, a, out) == -1 ||
	    stats_fsync(s, a, out) == -1 || stats_errors(s, a, out) == -1 ||
	    stats_lags(s, a, out) == -1) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}
