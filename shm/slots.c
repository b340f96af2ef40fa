/*
 * Partition slot ranges of the topic directory (see slots.h).  Everything
 * here runs under dir_lock, in the worker (or the master, at start-up)
 * that creates a topic; only FREE entries are changed, by release stores
 * ordered so that a range is never owned by two entries at once.
 */
#include <errno.h>
#include <stdlib.h>

#include "shm/slots.h"

/* A FREE entry's range, as the merge sorts them. */
struct slots_hole {
	uint32_t	first;
	uint32_t	span;
	uint32_t	ti;
};

static uint32_t
slots_count(const struct shm *s)
{
	uint32_t n = atomic_load_explicit(&s->hdr->topic_count, memory_order_acquire);

	return n < s->hdr->limits.max_topics ? n : s->hdr->limits.max_topics;
}

/* Entry ti is a hole: FREE, owning slots below used. */
static int
slots_hole(const struct shm *s, uint32_t ti, uint32_t used)
{
	const struct shm_topic *t = &s->topics[ti];

	return atomic_load_explicit(&t->state, memory_order_acquire) == TOPIC_FREE &&
	    t->span > 0 && t->first_part < used && t->span <= used - t->first_part;
}

/* A FREE entry below topic_count that owns no slot (other than but), or -1. */
static int
slots_spare(const struct shm *s, uint32_t but)
{
	uint32_t ti, count = slots_count(s);

	for (ti = 0; ti < count; ti++)
		if (ti != but && s->topics[ti].span == 0 &&
		    atomic_load_explicit(&s->topics[ti].state,
		    memory_order_acquire) == TOPIC_FREE)
			return (int)ti;
	return -1;
}

/*
 * FREE entry t, which owns nothing, takes [first, first + span): grown
 * last.  Who remembered a topic by its entry and the incarnation of its
 * first slot (groups, a parked create) must see a topic made here as
 * another one: incarnations only grow, so one above the old first
 * slot's, which the delete bumped past everything remembered, will do.
 * The slot is free, so a higher incarnation only tells what holds an
 * older one that it is gone, which it is.
 */
static void
slots_claim(struct shm *s, struct shm_topic *t, uint32_t first, uint32_t span)
{
	uint32_t old = t->first_part, inc;

	if (old < s->hdr->limits.max_partitions) {
		inc = atomic_load_explicit(&s->parts[old].incarnation,
		    memory_order_acquire);
		if (atomic_load_explicit(&s->parts[first].incarnation,
		    memory_order_acquire) <= inc)
			atomic_store_explicit(&s->parts[first].incarnation,
			    inc + 1, memory_order_release);
	}
	__atomic_store_n(&t->first_part, first, __ATOMIC_RELEASE);
	__atomic_store_n(&t->span, span, __ATOMIC_RELEASE);
}

/* The smallest hole of at least n slots, or -1. */
static int
slots_best(const struct shm *s, uint32_t n, uint32_t used)
{
	uint32_t ti, count = slots_count(s);
	int best = -1;

	for (ti = 0; ti < count; ti++) {
		if (!slots_hole(s, ti, used) || s->topics[ti].span < n ||
		    (best != -1 && s->topics[ti].span >= s->topics[best].span))
			continue;
		best = (int)ti;
		if (s->topics[ti].span == n)
			break;
	}
	return best;
}

/*
 * Hole ti is larger than n: its end goes to an entry that owns nothing
 * (one a merge emptied, else a new one past topic_count), so another
 * topic can have it.  With neither, the topic keeps the whole hole.
 */
static void
slots_trim(struct shm *s, uint32_t ti, uint32_t n)
{
	struct shm_topic *t = &s->topics[ti], *spare;
	uint32_t count = slots_count(s), rest;
	int sp;

	if (t->span <= n)
		return;
	if ((sp = slots_spare(s, ti)) == -1) {
		if (count >= s->hdr->limits.max_topics)
			return;
		/*
		 * Not counted yet, so unseen; not READY either, or the roll
		 * forward at the start of this create would have counted it.
		 */
		sp = (int)count;
		spare = &s->topics[sp];
		atomic_store_explicit(&spare->state, TOPIC_FREE, memory_order_relaxed);
		__atomic_store_n(&spare->span, 0, __ATOMIC_RELEASE);
	}
	spare = &s->topics[sp];
	rest = t->span - n;
	/* Shrunk first: a crash in between leaves the end owned by nobody. */
	__atomic_store_n(&t->span, n, __ATOMIC_RELEASE);
	slots_claim(s, spare, t->first_part + n, rest);
	if ((uint32_t)sp == count)
		atomic_store_explicit(&s->hdr->topic_count, count + 1,
		    memory_order_release);
}

static int
slots_hole_cmp(const void *a, const void *b)
{
	const struct slots_hole *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * Merge holes that touch, the last of them with the slots after
 * parts_used if it ends there, into one of at least n slots: its entry,
 * or -1 with ENOSPC (ENOMEM).  The others are left owning nothing.
 */
static int
slots_merge(struct shm *s, uint32_t n, uint32_t used)
{
	struct slots_hole *h;
	uint32_t count = slots_count(s), m = 0, i, j, k;
	uint64_t total = 0, room, extra = 0, tail;
	int ti;

	if ((h = calloc(count > 0 ? count : 1, sizeof(*h))) == NULL)
		return -1;
	for (k = 0; k < count; k++)
		if (slots_hole(s, k, used)) {
			h[m].first = s->topics[k].first_part;
			h[m].span = s->topics[k].span;
			h[m].ti = k;
			m++;
		}
	qsort(h, m, sizeof(*h), slots_hole_cmp);
	room = s->hdr->limits.max_partitions - used;
	for (i = 0, j = 0; j < m; j++) {
		/* A run of touching holes starts at i. */
		if (j > i && h[j].first != h[j - 1].first + h[j - 1].span) {
			i = j;
			total = 0;
		}
		total += h[j].span;
		extra = h[j].first + h[j].span == used ? room : 0;
		if (total + extra >= n)
			break;
	}
	if (j == m) {
		free(h);
		errno = ENOSPC;
		return -1;
	}
	/* As few holes as will do, the last ones of the run. */
	while (i < j && total - h[i].span + extra >= n)
		total -= h[i++].span;
	tail = total < n ? n - total : 0;
	/* Emptied first, grown last: nothing is owned twice on the way. */
	for (k = i + 1; k <= j; k++)
		__atomic_store_n(&s->topics[h[k].ti].span, 0, __ATOMIC_RELEASE);
	if (tail > 0)
		atomic_store_explicit(&s->hdr->parts_used, used + (uint32_t)tail,
		    memory_order_release);
	__atomic_store_n(&s->topics[h[i].ti].span, (uint32_t)(total + tail),
	    __ATOMIC_RELEASE);
	ti = (int)h[i].ti;
	free(h);
	return ti;
}

int
slots_pick(struct shm *s, uint32_t n, struct slots_pick *pk)
{
	uint32_t used, max = s->hdr->limits.max_partitions;
	int ti;

	used = atomic_load_explicit(&s->hdr->parts_used, memory_order_relaxed);
	if (n == 0 || used > max) {
		errno = ENOSPC;
		return -1;
	}
	pk->fresh = 0;
	if ((ti = slots_best(s, n, used)) == -1 && n <= max - used) {
		/* Slots never used: to an entry that owns none, else a new one. */
		if ((ti = slots_spare(s, UINT32_MAX)) != -1) {
			atomic_store_explicit(&s->hdr->parts_used, used + n,
			    memory_order_release);
			slots_claim(s, &s->topics[ti], used, n);
		} else if (slots_count(s) < s->hdr->limits.max_topics) {
			pk->ti = slots_count(s);
			pk->first = used;
			pk->fresh = 1;
			return 0;
		}
	}
	if (ti == -1 && (ti = slots_merge(s, n, used)) == -1)
		return -1;
	slots_trim(s, (uint32_t)ti, n);
	pk->ti = (uint32_t)ti;
	pk->first = s->topics[ti].first_part;
	return 0;
}

/*
 * Entry t's last run: its span's address and its first slot; *next the
 * first unused extent (SHM_TOPIC_EXTENTS: none left).
 */
static uint32_t *
slots_last_run(struct shm_topic *t, uint32_t *first, int *next)
{
	int e;

	for (e = 0; e < SHM_TOPIC_EXTENTS && t->ext[e].span != 0; e++)
		;
	*next = e;
	if (e == 0) {
		*first = t->first_part;
		return &t->span;
	}
	*first = t->ext[e - 1].first;
	return &t->ext[e - 1].span;
}

int
slots_grow(struct shm *s, uint32_t ti, uint32_t k)
{
	struct shm_topic *t = &s->topics[ti], *h;
	uint32_t used, max = s->hdr->limits.max_partitions, first, got, *span;
	int next, hi;

	used = atomic_load_explicit(&s->hdr->parts_used, memory_order_relaxed);
	if (k == 0)
		return 0;
	if (used > max) {
		errno = ENOSPC;
		return -1;
	}
	span = slots_last_run(t, &first, &next);
	/* Nothing after the last run is owned: it grows in place. */
	if (first <= used && *span == used - first && k <= max - used) {
		atomic_store_explicit(&s->hdr->parts_used, used + k,
		    memory_order_release);
		__atomic_store_n(span, *span + k, __ATOMIC_RELEASE);
		return 0;
	}
	if (next == SHM_TOPIC_EXTENTS) {
		errno = ENOSPC;
		return -1;
	}
	if ((hi = slots_best(s, k, used)) == -1 && k <= max - used) {
		atomic_store_explicit(&s->hdr->parts_used, used + k,
		    memory_order_release);
		first = used;
		got = k;
	} else {
		if (hi == -1 && (hi = slots_merge(s, k, used)) == -1)
			return -1;
		slots_trim(s, (uint32_t)hi, k);
		h = &s->topics[hi];
		first = h->first_part;
		got = h->span;
		/* The hole lets go first: owned by nobody in between. */
		__atomic_store_n(&h->span, 0, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&t->ext[next].first, first, __ATOMIC_RELEASE);
	__atomic_store_n(&t->ext[next].span, got, __ATOMIC_RELEASE);
	return 0;
}

uint32_t
slots_release(struct shm *s, uint32_t ti)
{
	struct shm_topic *t = &s->topics[ti], *spare;
	uint32_t lost = 0, first, span, count;
	int e, sp;

	for (e = 0; e < SHM_TOPIC_EXTENTS; e++) {
		if ((span = t->ext[e].span) == 0)
			continue;
		first = t->ext[e].first;
		count = slots_count(s);
		if ((sp = slots_spare(s, ti)) == -1 &&
		    count < s->hdr->limits.max_topics) {
			/* Unseen past topic_count (rolled forward first). */
			sp = (int)count;
			spare = &s->topics[sp];
			atomic_store_explicit(&spare->state, TOPIC_FREE,
			    memory_order_relaxed);
			__atomic_store_n(&spare->span, 0, __ATOMIC_RELEASE);
		}
		/* Emptied first, claimed last: never owned twice. */
		__atomic_store_n(&t->ext[e].span, 0, __ATOMIC_RELEASE);
		if (sp == -1) {
			lost += span;
			continue;
		}
		slots_claim(s, &s->topics[sp], first, span);
		if ((uint32_t)sp == count)
			atomic_store_explicit(&s->hdr->topic_count, count + 1,
			    memory_order_release);
	}
	return lost;
}
