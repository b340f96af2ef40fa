/*
 * Idempotent produce: producer ids and, per partition, the last batches
 * each producer appended, in a fixed table at the end of the shared
 * region (after the consumer groups):
 *
 *   struct producer_dir                       next producer id
 *   struct producer_part parts[max_partitions]
 *     struct producer_entry e[PRODUCER_SLOTS]  one producer each
 *       hist[PRODUCER_HISTORY + 1]             its last appends (a ring)
 *
 * A producer (libflume, or any client) gets an id and an epoch from
 * INIT_PRODUCER and numbers its records per partition: a batch carries
 * producerId, producerEpoch and baseSequence, its records have the
 * sequences baseSequence .. baseSequence + lastOffsetDelta (wrapping
 * after INT32_MAX to 0, as in Kafka).  The broker appends a batch whose
 * first sequence follows the producer's last one on that partition,
 * answers a batch it already has (same first and last sequence as one
 * of the last PRODUCER_HISTORY appends) with the offsets it got then,
 * answers an older resend (its sequences at or before the last ones
 * appended) with ERR_DUPLICATE_SEQUENCE, which a producer takes as
 * stored, and refuses a gap (ERR_OUT_OF_ORDER_SEQUENCE), an id it never issued
 * or an epoch older than the one it saw (ERR_PRODUCER_FENCED).  A
 * producer it has no record of on a partition (or a new epoch) must
 * start at sequence 0: one whose entry was evicted or lost in a restart
 * gets ERR_OUT_OF_ORDER_SEQUENCE and starts over under a new producer
 * id (libflume does so by itself), since accepting a batch at any
 * sequence could let one in that follows a batch that was never stored.
 *
 * The crash rule.  Everything here is read and written only under the
 * partition lock, inside ring_append_hooked(): producer_check() before
 * anything is placed, producer_record() after the bytes are in the ring
 * and before the tail store that publishes them.  A record is written
 * into a history slot outside the valid window and published by one
 * release store of the entry's state word (count and newest slot), so a
 * dead writer leaves either the old window or the new one.  Each record
 * remembers the ring position its append publishes (ring_end): a record
 * whose ring_end is past the partition's tail belongs to an append that
 * died before its tail store, and producer_repair(), run by part_lock()
 * when it inherits the lock of a dead process (before anyone can append
 * again), drops exactly those.  So the table never says "appended" for a
 * batch that is not in the ring, and never lacks one that is.
 *
 * Transactions (DESIGN.md section 3).  A transactional producer's batches
 * (attribute bit 0x10) open a transaction on the partition: the entry's
 * txn_first becomes the batch's base offset if it was -1, in
 * producer_record(), under the lock and before the tail store.  The
 * writer closes it (txn_first back to -1, producer_txn_close()) when it
 * drains the producer's marker, after the aborted-transaction index has
 * the entry of an ABORT.  The partition's last stable offset is then
 * min(visible_offset, every txn_first) (part_lso()).  An entry with an
 * open transaction is never evicted for another producer: a new
 * producer finds no slot (PRODUCER_FULL) until one closes.  txn_first is
 * only ever set from -1 to the base offset of the append that sets it,
 * so producer_repair() drops it exactly when that append is lost (its
 * base is at or past the repaired next_offset).
 *
 * What survives a master restart: a new master drains the old region
 * into the logs and makes a fresh one; producer_rebuild() (master,
 * before fork) reads the batch headers of the last few MiB of every
 * partition log back into the table, and new ids are issued above every
 * id seen and above the ids of earlier runs (they start at the wall
 * clock in ms << 16).
 */
#ifndef FLUME_SHM_PRODUCER_H
#define FLUME_SHM_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "shm/shm.h"

#define PRODUCER_SLOTS		16	/* producers remembered per partition */
#define PRODUCER_HISTORY	5	/* appends remembered per producer and partition */

/* One append of one producer to one partition. */
struct producer_rec {
	int32_t		first_seq;
	int32_t		last_seq;
	int64_t		base_offset;
	int64_t		next_offset;	/* offset after the append */
	uint64_t	ring_end;	/* tail it publishes; 0: known to be in the log */
};

struct producer_entry {
	_Atomic uint32_t	state;		/* count << 8 | newest slot; count 0: free */
	int16_t			epoch;
	int16_t			pad0;
	int64_t			pid;
	_Atomic int64_t		txn_first;	/* open transaction's first offset, -1 none */
	struct producer_rec	hist[PRODUCER_HISTORY + 1];
};

struct producer_part {
	struct producer_entry	e[PRODUCER_SLOTS];
};

struct producer_dir {
	_Atomic int64_t		next_id;	/* ids below were (or may have been) issued */
	uint8_t			pad[56];
};

/* What a produce's records claim. */
struct producer_seq {
	int64_t		pid;		/* -1: not idempotent */
	int16_t		epoch;
	int32_t		first_seq;
	int32_t		last_seq;
	int		txn;		/* the batches are transactional */
};

enum producer_verdict {
	PRODUCER_APPEND = 0,
	PRODUCER_DUPLICATE = 1,		/* *base / *next: the original offsets */
	PRODUCER_OUT_OF_ORDER = 2,
	PRODUCER_FENCED = 3,
	PRODUCER_OLD_DUPLICATE = 4,	/* at or before the last append, but
					   older than the history: stored, offsets unknown */
	PRODUCER_FULL = 5		/* a new producer, and every slot holds
					   an open transaction */
};

/* Bytes of the table for these limits; SIZE_MAX on overflow. */
size_t	producer_table_size(const struct shm_limits *lim);
/* Fresh region (shm_create): ids start at the wall clock in ms << 16. */
void	producer_table_init(struct shm *s);
/* A new producer id, or -1 when the id space is exhausted. */
int64_t	producer_id_new(struct shm *s);
/* Ids below this were issued (an id at or above it is unknown). */
int64_t	producer_id_limit(struct shm *s);
/* Make sure ids up to and including pid count as issued. */
void	producer_id_raise(struct shm *s, int64_t pid);

/* The sequence after seq (INT32_MAX wraps to 0). */
int32_t	producer_seq_next(int32_t seq);
/*
 * What the batches in recs claim: *q->pid -1 when they are not
 * idempotent.  -1 when they disagree (mixed producers or epochs, a
 * negative sequence, sequences that do not follow each other); the
 * batches must have passed validation (whole, header-sized).
 */
int	producer_seq_of(const uint8_t *recs, size_t len, struct producer_seq *q);

/* Under the partition lock: what to do with q (enum producer_verdict). */
int	producer_check(struct shm *s, struct shm_partition *p,
	    const struct producer_seq *q, int64_t *base, int64_t *next);
/* Under the partition lock, before the tail store that publishes ring_end. */
void	producer_record(struct shm *s, struct shm_partition *p,
	    const struct producer_seq *q, int64_t base, int64_t next,
	    uint64_t ring_end);
/*
 * Forget every producer of partition p (its topic was deleted, or the slot
 * is handed to a new topic): under its lock, or before it is published.
 */
void	producer_part_clear(struct shm *s, struct shm_partition *p);
/* Under the partition lock of a dead holder: drop unpublished records. */
void	producer_repair(struct shm *s, struct shm_partition *p);

/*
 * ring_append() with idempotence: 0 appended (or, for a duplicate, the
 * original offsets returned, nothing appended: *dup set); -1 with errno
 * as ring_append (EAGAIN, EMSGSIZE, ...); or a positive
 * PRODUCER_OUT_OF_ORDER / PRODUCER_FENCED / PRODUCER_OLD_DUPLICATE with
 * nothing appended.
 * q->pid -1 is a plain append.  Only into incarnation inc of p (see
 * ring_append_hooked()): a topic re-created in the slot gets nothing.
 */
int	producer_append(struct shm *s, struct shm_partition *p, uint32_t inc,
	    const struct producer_seq *q, const uint8_t *recs, size_t len,
	    int64_t *base, int64_t *next, int *dup);

/* Producers with an entry on partition p (for tests and figures). */
int	producer_count(struct shm *s, struct shm_partition *p);
/* A producer remembered on a partition, as DescribeProducers shows it. */
struct producer_info {
	int64_t		pid;
	int16_t		epoch;
	int32_t		last_seq;	/* of its newest append */
	int64_t		last_base;	/* that append's base offset */
	int64_t		txn_first;	/* its open transaction's first offset, -1 */
};
/*
 * Under the partition lock: the producers remembered on p, at most max,
 * into out; their number.
 */
int	producer_list(struct shm *s, struct shm_partition *p,
	    struct producer_info *out, int max);

/*
 * The last stable offset of partition p: visible_offset, or the first
 * offset of its oldest open transaction when that is lower.  Lock-free.
 */
int64_t	producer_lso(struct shm *s, const struct shm_partition *p);
/* The same for slot `slot` of s. */
int64_t	part_lso(const struct shm *s, uint32_t slot);
/* The first offset of the oldest open transaction of p, or INT64_MAX. */
int64_t	producer_txn_oldest(const struct shm *s, const struct shm_partition *p);
/*
 * Under the partition lock: the writer drained a marker of producer pid
 * at offset marker.  The first offset of the transaction it closes, or
 * -1 when pid has no transaction open below marker (a marker sent
 * again: nothing changes), or the marker's epoch is older than the
 * producer's (a zombie's).  *lso: the last stable offset once it is
 * closed (the other open transactions', else marker + 1), as Kafka's
 * aborted-transaction index wants it.  Nothing is changed until
 * producer_txn_clear().
 */
int64_t	producer_txn_find(struct shm *s, struct shm_partition *p, int64_t pid,
	    int16_t epoch, int64_t marker, int64_t *lso);
/* Under the partition lock: close pid's transaction found above. */
void	producer_txn_clear(struct shm *s, struct shm_partition *p, int64_t pid);
/*
 * Under the partition lock, or before the region is published (start-up
 * rebuild): producer pid (epoch) has a transaction open at first.  -1
 * when no slot can take it.
 */
int	producer_txn_open(struct shm *s, struct shm_partition *p, int64_t pid,
	    int16_t epoch, int64_t first);
/* Open transactions of p (pid, epoch, first) into out, at most max; their number. */
struct producer_txn {
	int64_t		pid;
	int16_t		epoch;
	int64_t		first;
};
int	producer_txn_list(const struct shm *s, const struct shm_partition *p,
	    struct producer_txn *out, int max);

#endif
