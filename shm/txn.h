/*
 * The transaction coordinator's table in the shared region (issue 29):
 * one entry per transactional id, max_transactions of them, after the
 * idempotent producers' table.
 *
 *   struct txn_dir                       lock, high-water count
 *   { struct shm_txn                     id, producer id and epoch, state,
 *                                        timeout, times, the log bookkeeping
 *     uint32_t parts[max_txn_parts]      partition slots in the transaction
 *     int64_t  marks[max_txn_parts]      offset of each one's marker (writer)
 *     struct txn_offset offs[max_txn_offsets] } pending TxnOffsetCommit offsets
 *
 * States are Kafka's (TransactionState, the status byte of its
 * TransactionLogValue).  Workers move Empty/Complete* -> Ongoing
 * (AddPartitionsToTxn, AddOffsetsToTxn), Ongoing -> Prepare* (EndTxn), and
 * fence (InitProducerId: an epoch bump; an Ongoing one goes to
 * PrepareAbort with the bumped epoch).  The writer (master/writer_txn.c)
 * logs every change to __transaction_state, publishes durable_gen once
 * its record is durable (the change is answered then), appends the
 * markers, waits for them to be durable, applies a commit's pending
 * offsets and moves to Complete*; it also aborts Ongoing transactions
 * past their timeout (epoch bump) and expires idle ids (Dead, a
 * tombstone, the entry freed).
 *
 * Every change is made under the table's robust lock.  The crash rule:
 * fields are written first and published by the release store of
 * state, nparts, noffs or used; gen is bumped last (the writer logs an
 * entry whose gen moved).  A process that died holding the lock may have
 * left a change unlogged: the repair bumps every entry's gen, so the
 * writer logs each entry again (a duplicate record is harmless, the
 * topic is compacted and replay takes the latest).
 */
#ifndef FLUME_SHM_TXN_H
#define FLUME_SHM_TXN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/names.h"
#include "shm/shm.h"

#define TXN_ID_MAX		255	/* bytes of a transactional id Flume keeps */
#define TXN_GROUPS		4	/* groups one transaction commits offsets of */

/* Kafka's TransactionState ids (TransactionLogValue.TransactionStatus). */
enum txn_state {
	TXN_EMPTY = 0,
	TXN_ONGOING = 1,
	TXN_PREPARE_COMMIT = 2,
	TXN_PREPARE_ABORT = 3,
	TXN_COMPLETE_COMMIT = 4,
	TXN_COMPLETE_ABORT = 5,
	TXN_DEAD = 6,
	TXN_PREPARE_EPOCH_FENCE = 7,
	TXN_STATE_MAX = 8
};

/* A TxnOffsetCommit offset waiting for the COMMIT. */
struct txn_offset {
	uint32_t	group;		/* index into groups[] */
	uint32_t	slot;		/* partition slot */
	int64_t		offset;
};

struct shm_txn {
	_Atomic uint32_t	used;		/* 1: an id; published last */
	_Atomic uint32_t	state;		/* enum txn_state */
	int64_t			pid;
	_Atomic int32_t		epoch;		/* int16 values */
	int32_t			timeout_ms;
	int64_t			start_ms;	/* CLOCK_REALTIME: first partition added */
	int64_t			update_ms;	/* last change */
	_Atomic uint32_t	nparts;
	_Atomic uint32_t	noffs;
	_Atomic uint32_t	ngroups;
	uint32_t		id_len;
	_Atomic uint64_t	gen;		/* bumped by every change to log */
	/* The writer's: */
	_Atomic uint64_t	logged_gen;	/* gen of the last record appended */
	_Atomic int64_t		log_offset;	/* its offset in __transaction_state */
	_Atomic uint32_t	log_part;	/* its partition slot */
	_Atomic uint64_t	durable_gen;	/* gen of the last record known durable */
	_Atomic uint32_t	marks_sent;	/* markers appended to parts[0..) */
	uint32_t		pad0;
	char			id[TXN_ID_MAX + 1];
	char			groups[TXN_GROUPS][GROUP_NAME_MAX + 1];
};

struct txn_dir {
	pthread_mutex_t		lock;
	_Atomic uint32_t	count;		/* entries [0..count) may be used */
	uint32_t		pad0;
};

/* Bytes of the table for these limits; SIZE_MAX on overflow. */
size_t	txn_table_size(const struct shm_limits *lim);
/* Fresh region (shm_create): 0 or -1. */
int	txn_table_init(struct shm *s);

/* 0 (1: the holder had died, repaired) or -1. */
int	txn_lock(struct shm *s);
void	txn_unlock(struct shm *s);

uint32_t	 txn_count(const struct shm *s);
struct shm_txn	*txn_at(const struct shm *s, uint32_t i);
uint32_t	*txn_parts(const struct shm *s, struct shm_txn *t);
int64_t		*txn_marks(const struct shm *s, struct shm_txn *t);
struct txn_offset *txn_offs(const struct shm *s, struct shm_txn *t);

/* Locked: the entry of id, or -1. */
int	txn_find(struct shm *s, const char *id, size_t len);
/* Locked: the entry holding producer id pid, or -1. */
int	txn_find_pid(struct shm *s, int64_t pid);
/*
 * Locked: a new entry for id (state Empty, epoch -1, no producer id:
 * the caller fills pid and publishes with txn_touch); -1 with ENOSPC
 * when the table is full.
 */
int	txn_create(struct shm *s, const char *id, size_t len);
/* Locked: the entry changed; bump gen (last) and its update time. */
void	txn_touch(struct shm_txn *t, int64_t now);
/* Locked: the index of slot in t's partitions, or -1. */
int	txn_has_part(const struct shm *s, struct shm_txn *t, uint32_t slot);
/* Locked: the index of group in t's groups, or -1. */
int	txn_group(struct shm_txn *t, const char *group, size_t len);
/* Locked: forget t's partitions, groups and pending offsets (Complete*). */
void	txn_clear(struct shm_txn *t);
/* Kafka's name of a state ("Ongoing", "PrepareCommit"...), or NULL. */
const char *txn_state_name(uint32_t st);
/* The state named name (Kafka's names), or -1. */
int	txn_state_parse(const char *name, size_t len);
/* Locked, or for a reader that tolerates a torn copy: any pending offset of
 * group (by name) on partition slot in an unfinished transaction. */
int	txn_offset_pending(struct shm *s, const char *group, size_t len,
	    uint32_t slot);

#endif
