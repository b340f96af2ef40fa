/*
 * A partition ring: the bytes of record batches waiting for the writer.
 * Producers are workers (ring_append, under the partition lock); the only
 * consumer is the writer (ring_peek / ring_release, no lock).
 *
 * Batches are stored whole and contiguous.  When a batch does not fit
 * before the end of the ring, the rest of the ring is skipped: with 12 or
 * more bytes left a skip marker (baseOffset -1, batchLength = bytes left
 * - 12) is written there; with fewer, the reader skips them by rule.
 *
 * Crash rule: ring_append writes the bytes, then publishes tail (one
 * store), then stores next_offset.  A producer that dies before the tail
 * store leaves nothing visible and takes no offsets; one that dies
 * between the two leaves next_offset behind, and the next part_lock()
 * (which sees EOWNERDEAD) repairs it from the ring itself.  So offsets in
 * a ring are never reused, torn, or left with a gap (plog_append_at
 * refuses gaps).
 */
#ifndef FLUME_SHM_RING_H
#define FLUME_SHM_RING_H

#include <stddef.h>
#include <stdint.h>

#include "shm/shm.h"

/*
 * Append len bytes holding one or more whole, validated batches, assigning
 * consecutive offsets (patching each baseOffset in the ring copy).  All or
 * nothing.  0 with *base_offset (first batch) and *next_offset (after the
 * last); -1 with EAGAIN when the ring lacks room now (park and retry when
 * the writer frees space), EMSGSIZE when it could never fit, ENOENT when
 * the partition's topic is being deleted.  Appends to whichever topic
 * holds the slot now: a worker, which may race a delete, uses
 * ring_append_hooked() with the incarnation it resolved.
 */
int	ring_append(struct shm *s, struct shm_partition *p, const uint8_t *batches,
	    size_t len, int64_t *base_offset, int64_t *next_offset);
/*
 * Calls made inside ring_append_hooked()'s critical section (the
 * idempotent producer's sequence table, shm/producer.h).  check runs
 * first, before any space is looked at: 0 goes on, a positive value is
 * returned at once with nothing appended.  record runs after the bytes
 * are in the ring and before the tail store, with the tail that store
 * will publish.  Neither may take a lock or fail.
 */
struct ring_hook {
	int	(*check)(struct shm *s, struct shm_partition *p, void *arg);
	void	(*record)(struct shm *s, struct shm_partition *p, void *arg,
		    int64_t base, int64_t next, uint64_t tail);
	void	*arg;
};
/*
 * ring_append with hooks (NULL: none), into incarnation inc of p only
 * (the p->incarnation the caller saw while the topic was READY): checked
 * under the lock, so a topic deleted and re-created in the same slot
 * after the caller's check gets nothing, -1 with ENOENT, as a dead
 * partition does.  May also return check's value.
 */
int	ring_append_hooked(struct shm *s, struct shm_partition *p, uint32_t inc,
	    const uint8_t *batches, size_t len, const struct ring_hook *h,
	    int64_t *base_offset, int64_t *next_offset);
/* Bytes free now (for a quick check before locking). */
uint64_t ring_free(const struct shm *s, const struct shm_partition *p);
/*
 * Writer: the longest contiguous run of whole batches at head (skipping
 * any skip marker or tail slack first, which advances head).  Returns its
 * length (0 when empty) and sets *data.  Acquire-loads tail.
 */
size_t	ring_peek(struct shm *s, struct shm_partition *p, uint8_t **data);
/* Writer: n bytes from head were consumed; release-stores head. */
void	ring_release(struct shm *s, struct shm_partition *p, size_t n);
/*
 * Writer, after ring_peek() returned 0: 1 if that was not an empty ring
 * but bytes at head that are not a whole batch (head/tail out of range,
 * a bad batchLength): a bug or a damaged region, never skipped silently.
 * Also: ring_append() fails with EINVAL when the bytes are not whole
 * batches, EPROTO when head/tail are out of range, or an errno from
 * lock_take().
 */
int	ring_damaged(struct shm *s, struct shm_partition *p);
/*
 * Take a partition's lock, the one lock of its ring and its producers'
 * sequences (unlock with part_unlock).  When its previous holder died,
 * both are repaired first: next_offset is brought up to the end of the
 * last published batch (see the crash rule above) and the sequence
 * records of an append that never published its tail are dropped
 * (producer_repair).  Never take p->lock with lock_take() directly, or
 * that repair could be missed.  0 or -1 with errno.
 */
int	part_lock(struct shm *s, struct shm_partition *p);
void	part_unlock(struct shm_partition *p);

#endif
