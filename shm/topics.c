/*
 * The topic directory of the shared region (topics.h): names to entries
 * and partition slots.  Lookups are lock-free, because an entry's state
 * is published last; creates and deletes change entries under dir_lock,
 * and the slots a create takes are chosen by shm/slots.c.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

#include "shm/lock.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "shm/slots.h"
#include "shm/topics.h"

static uint32_t
shm_topic_limit(const struct shm *s)
{
	uint32_t n = atomic_load_explicit(&s->hdr->topic_count, memory_order_acquire);

	return n < s->hdr->limits.max_topics ? n : s->hdr->limits.max_topics;
}

/* Lock-free: only entries published (count, then READY) are compared. */
int
shm_topic_find(struct shm *s, const char *name, size_t len)
{
	const struct shm_topic *t;
	uint32_t i, n;

	if (len == 0 || len > TOPIC_NAME_MAX)
		return -1;
	n = shm_topic_limit(s);
	for (i = 0; i < n; i++) {
		t = &s->topics[i];
		if (atomic_load_explicit(&t->state, memory_order_acquire) != TOPIC_READY)
			continue;
		if (t->name_len == len && memcmp(t->name, name, len) == 0)
			return (int)i;
	}
	return -1;
}

/* An entry being deleted under that name (a create waits for the end). */
static int
shm_topic_deleting(struct shm *s, const char *name, size_t len)
{
	const struct shm_topic *t;
	uint32_t i, n = shm_topic_limit(s);

	for (i = 0; i < n; i++) {
		t = &s->topics[i];
		if (atomic_load_explicit(&t->state, memory_order_acquire) ==
		    TOPIC_DELETING && t->name_len == len &&
		    memcmp(t->name, name, len) == 0)
			return (int)i;
	}
	return -1;
}

/*
 * Under dir_lock: finish the publication of a topic whose creator died
 * after storing TOPIC_READY but before topic_count (its entry is whole).
 */
static void
shm_topic_roll_forward(struct shm *s)
{
	struct shm_header *h = s->hdr;
	struct shm_topic *t;
	uint32_t n, end;

	n = atomic_load_explicit(&h->topic_count, memory_order_relaxed);
	while (n < h->limits.max_topics) {
		t = &s->topics[n];
		if (atomic_load_explicit(&t->state, memory_order_acquire) != TOPIC_READY)
			break;
		end = t->first_part + (uint32_t)t->partitions;
		if (atomic_load_explicit(&h->parts_used, memory_order_relaxed) < end)
			atomic_store_explicit(&h->parts_used, end, memory_order_release);
		n++;
		atomic_store_explicit(&h->topic_count, n, memory_order_release);
	}
}

/* Empty partition slot: nobody may append to it (unpublished or dead). */
static void
shm_part_reset(struct shm *s, struct shm_partition *p, uint32_t ti, int32_t i)
{
	producer_part_clear(s, p);
	atomic_store_explicit(&p->head, 0, memory_order_relaxed);
	atomic_store_explicit(&p->tail, 0, memory_order_relaxed);
	__atomic_store_n(&p->next_offset, 0, __ATOMIC_RELEASE);
	atomic_store_explicit(&p->visible_offset, 0, memory_order_relaxed);
	atomic_store_explicit(&p->durable_offset, 0, memory_order_relaxed);
	atomic_store_explicit(&p->log_start, 0, memory_order_relaxed);
	atomic_store_explicit(&p->delete_below, 0, memory_order_relaxed);
	atomic_store_explicit(&p->log_bytes, 0, memory_order_relaxed);
	atomic_store_explicit(&p->storage_error, 0, memory_order_relaxed);
	atomic_store_explicit(&p->sync_wanted, 0, memory_order_relaxed);
	atomic_store_explicit(&p->msgs_in, 0, memory_order_relaxed);
	atomic_store_explicit(&p->bytes_in, 0, memory_order_relaxed);
	atomic_store_explicit(&p->msgs_out, 0, memory_order_relaxed);
	atomic_store_explicit(&p->bytes_out, 0, memory_order_relaxed);
	atomic_store_explicit(&p->segments, 0, memory_order_relaxed);
	atomic_store_explicit(&p->sync_failed, 0, memory_order_relaxed);
	atomic_store_explicit(&p->clean_ratio_ppm, 0, memory_order_relaxed);
	atomic_store_explicit(&p->clean_last_ms, 0, memory_order_relaxed);
	atomic_store_explicit(&p->clean_saved, 0, memory_order_relaxed);
	p->topic = ti;
	p->partition = i;
}

void
shm_topic_id_new(uint8_t id[TOPIC_ID_LEN])
{
	static const uint8_t zero[TOPIC_ID_LEN];
	size_t got;
	ssize_t r;

	do {
		for (got = 0; got < TOPIC_ID_LEN; got += (size_t)r)
			if ((r = getrandom(id + got, TOPIC_ID_LEN - got, 0)) <= 0)
				r = 0;	/* EINTR; the pool never runs dry */
		/* The first base64 letter is id[0]'s top 6 bits; 62 is '-'. */
	} while (memcmp(id, zero, TOPIC_ID_LEN) == 0 || id[0] >> 2 == 62);
}

int
shm_topic_create(struct shm *s, const char *name, size_t len, int32_t n, int *idx)
{
	return shm_topic_create_id(s, name, len, n, NULL, idx);
}

int
shm_topic_create_id(struct shm *s, const char *name, size_t len, int32_t n,
    const uint8_t *id, int *idx)
{
	static const uint8_t zero[TOPIC_ID_LEN];
	struct shm_header *h = s->hdr;
	struct shm_partition *p;
	struct shm_topic *t;
	struct slots_pick pk;
	uint32_t ti, first, i;
	int found, saved;

	if (len == 0 || len > TOPIC_NAME_MAX || n < 1 ||
	    (id != NULL && memcmp(id, zero, TOPIC_ID_LEN) == 0)) {
		errno = EINVAL;
		return -1;
	}
	if ((found = shm_topic_find(s, name, len)) != -1)
		goto exists;
	if (lock_take(&h->dir_lock, NULL, NULL) == -1)
		return -1;
	shm_topic_roll_forward(s);
	if ((found = shm_topic_find(s, name, len)) != -1 ||
	    (found = shm_topic_deleting(s, name, len)) != -1) {
		lock_release(&h->dir_lock);
		goto exists;
	}
	if (slots_pick(s, (uint32_t)n, &pk) == -1) {
		saved = errno;
		lock_release(&h->dir_lock);
		errno = saved;
		return -1;
	}
	ti = pk.ti;
	first = pk.first;

	/* Nobody can see these slots yet: plain stores, published below. */
	for (i = 0; i < (uint32_t)n; i++) {
		p = &s->parts[first + i];
		shm_part_reset(s, p, ti, (int32_t)i);
		atomic_store_explicit(&p->dead, 0, memory_order_release);
	}
	t = &s->topics[ti];
	t->partitions = n;
	t->name_len = (uint32_t)len;
	memset(t->name, 0, sizeof(t->name));
	memcpy(t->name, name, len);
	if (id != NULL)
		memcpy(t->id, id, TOPIC_ID_LEN);
	else
		shm_topic_id_new(t->id);
	atomic_store_explicit(&t->opened, 0, memory_order_relaxed);
	atomic_store_explicit(&t->grow_to, 0, memory_order_relaxed);
	/* Only a grow gives extents (a FREE entry's were handed on). */
	memset(t->ext, 0, sizeof(t->ext));
	if (!pk.fresh) {
		/* A hole is already counted by topic_count and parts_used. */
		atomic_store_explicit(&t->state, TOPIC_READY, memory_order_release);
		lock_release(&h->dir_lock);
		goto created;
	}
	t->first_part = first;
	t->span = (uint32_t)n;
	atomic_store_explicit(&t->state, TOPIC_READY, memory_order_release);
	atomic_store_explicit(&h->parts_used, first + (uint32_t)n, memory_order_release);
	atomic_store_explicit(&h->topic_count, ti + 1, memory_order_release);
	lock_release(&h->dir_lock);
created:
	if (idx != NULL)
		*idx = (int)ti;
	return (int)ti;

exists:
	if (idx != NULL)
		*idx = found;
	errno = EEXIST;
	return -1;
}

/* The READY topic name's entry with dir_lock held, or -1 (ENOENT: released). */
static int
shm_topic_find_locked(struct shm *s, const char *name, size_t len)
{
	int ti;

	if (lock_take(&s->hdr->dir_lock, NULL, NULL) == -1)
		return -1;
	if ((ti = shm_topic_find(s, name, len)) == -1) {
		lock_release(&s->hdr->dir_lock);
		errno = ENOENT;
	}
	return ti;
}

int
shm_topic_delete_begin(struct shm *s, const char *name, size_t len)
{
	struct shm_topic *t;
	struct shm_partition *p;
	uint32_t i, slot;
	int ti, locked;

	if ((ti = shm_topic_find_locked(s, name, len)) == -1)
		return -1;
	t = &s->topics[ti];
	/* First, so that a worker dying below leaves the writer its work. */
	atomic_store_explicit(&t->state, TOPIC_DELETING, memory_order_release);
	lock_release(&s->hdr->dir_lock);
	for (i = 0; i < (uint32_t)t->partitions; i++) {
		if ((slot = shm_topic_slot(s, t, i)) == UINT32_MAX)
			break;
		p = &s->parts[slot];
		/*
		 * The lock waits out an append half-way into the ring.  It
		 * fails only when nobody can take it any more (its owner died
		 * and a locker let go without making it consistent:
		 * ENOTRECOVERABLE), so no append is in it nor can enter:
		 * marked all the same, as groups and parked requests go by
		 * the incarnation.
		 */
		locked = part_lock(s, p) == 0;
		atomic_store_explicit(&p->dead, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&p->incarnation, 1, memory_order_release);
		if (locked)
			part_unlock(p);
	}
	return ti;
}

void
shm_topic_delete_end(struct shm *s, int ti)
{
	struct shm_topic *t = &s->topics[ti];
	struct shm_partition *p;
	uint32_t i, n = shm_topic_capacity(t), slot;

	for (i = 0; i < n; i++) {
		if ((slot = shm_topic_slot(s, t, i)) == UINT32_MAX)
			break;
		p = &s->parts[slot];
		/* Under the lock, so no append can be half-way into the ring. */
		if (part_lock(s, p) == 0) {
			if (atomic_load(&p->dead) == 0)
				atomic_fetch_add(&p->incarnation, 1);
			atomic_store_explicit(&p->dead, 1, memory_order_relaxed);
			shm_part_reset(s, p, (uint32_t)ti, (int32_t)i);
			part_unlock(p);
			continue;
		}
		/*
		 * A lock nobody can take (see shm_topic_delete_begin): nobody
		 * is in the ring either.  Reset the slot, then give it a new
		 * lock, last, so that a topic created in it can take appends;
		 * an append that resolved the old topic and locks it now
		 * finds the slot dead.
		 */
		if (atomic_load(&p->dead) == 0)
			atomic_fetch_add(&p->incarnation, 1);
		atomic_store_explicit(&p->dead, 1, memory_order_relaxed);
		shm_part_reset(s, p, (uint32_t)ti, (int32_t)i);
		(void)lock_init(&p->lock);
	}
	atomic_store_explicit(&t->opened, 0, memory_order_relaxed);
	atomic_store_explicit(&t->grow_to, 0, memory_order_relaxed);
	/*
	 * The extents of a grown topic become holes of their own (under
	 * dir_lock, which a create holds while it picks slots); the first
	 * run stays with the entry, a hole once FREE.
	 */
	if (t->ext[0].span != 0 && lock_take(&s->hdr->dir_lock, NULL, NULL) == 0) {
		shm_topic_roll_forward(s);
		(void)slots_release(s, (uint32_t)ti);
		atomic_store_explicit(&t->state, TOPIC_FREE, memory_order_release);
		lock_release(&s->hdr->dir_lock);
		return;
	}
	atomic_store_explicit(&t->state, TOPIC_FREE, memory_order_release);
}

/* The control block of a published topic's partition, or NULL. */
struct shm_partition *
shm_partition(struct shm *s, int topic, int32_t partition)
{
	const struct shm_topic *t;
	uint32_t slot;

	if (topic < 0 || (uint32_t)topic >= shm_topic_limit(s))
		return NULL;
	t = &s->topics[topic];
	if (atomic_load_explicit(&t->state, memory_order_acquire) != TOPIC_READY ||
	    partition < 0 ||
	    partition >= __atomic_load_n(&t->partitions, __ATOMIC_ACQUIRE) ||
	    (slot = shm_topic_slot(s, t, (uint32_t)partition)) == UINT32_MAX)
		return NULL;
	return &s->parts[slot];
}

int
shm_topic_grow(struct shm *s, const char *name, size_t len, int32_t n,
    int32_t *cur)
{
	struct shm_topic *t;
	struct shm_partition *p;
	uint32_t cap, i, slot;
	int32_t now;
	int ti, err;

	*cur = 0;
	if ((ti = shm_topic_find_locked(s, name, len)) == -1)
		return -1;
	t = &s->topics[ti];
	now = t->partitions;
	if (atomic_load_explicit(&t->grow_to, memory_order_relaxed) > now)
		now = atomic_load_explicit(&t->grow_to, memory_order_relaxed);
	*cur = now;
	cap = shm_topic_capacity(t);
	/*
	 * An entry owning fewer slots than its partitions (not one a create
	 * made) is not grown: its extents would renumber them.
	 */
	err = n <= now ? EINVAL :
	    (uint32_t)n > s->hdr->limits.max_partitions ||
	    cap < (uint32_t)t->partitions ? ENOSPC : 0;
	if (err == 0 && (uint32_t)n > cap &&
	    slots_grow(s, (uint32_t)ti, (uint32_t)n - cap) == -1)
		err = errno;
	/* Owned by this entry, not published: nobody else looks at them. */
	for (i = (uint32_t)now; err == 0 && i < (uint32_t)n; i++) {
		if ((slot = shm_topic_slot(s, t, i)) == UINT32_MAX) {
			err = ENOSPC;
			break;
		}
		p = &s->parts[slot];
		shm_part_reset(s, p, (uint32_t)ti, (int32_t)i);
		atomic_store_explicit(&p->dead, 0, memory_order_release);
	}
	if (err == 0)
		atomic_store_explicit(&t->grow_to, n, memory_order_release);
	lock_release(&s->hdr->dir_lock);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return ti;
}

void
shm_topic_grow_publish(struct shm *s, int ti, int32_t n)
{
	struct shm_topic *t = &s->topics[ti];

	if (n > t->partitions)
		__atomic_store_n(&t->partitions, n, __ATOMIC_RELEASE);
}
