/*
 * The partition side of transactions in the writer (DESIGN.md section 3,
 * shm/producer.h): closing a producer's open transaction when the
 * writer drains its marker, the aborted-transaction index
 * (store/txnindex.h), producer-state snapshots (store/txnsnap.h) and
 * the start-up rebuild of the open transactions from them and the log.
 */
#ifndef FLUME_MASTER_TXNPART_H
#define FLUME_MASTER_TXNPART_H

#include <stddef.h>
#include <stdint.h>

struct shm;
struct shm_partition;
struct plog;

/*
 * The run data[0..n) was just appended to log (and visible_offset
 * published), not yet released from p's ring: close the transactions
 * its markers end, an ABORT's index entry written first.  Markers a
 * previous writer already handled change nothing.  0, or -1 (an index
 * could not be written: the caller retries the run, nothing closed).
 */
int	txn_markers_drained(struct shm *s, struct shm_partition *p,
	    struct plog *log, const uint8_t *data, size_t n);

/*
 * Before the run data[0..n) is appended to log: the partition's first
 * transactional batch (*snap -1: it has no snapshot) gets a snapshot at
 * the log end first, so that a partition without one never had a
 * transaction.  *snap: the newest snapshot's offset.  0 or -1.
 */
int	txn_before_append(struct shm *s, struct shm_partition *p,
	    struct plog *log, const uint8_t *data, size_t n, int64_t *snap);
/*
 * Save a snapshot of p's open transactions at the log end (a segment
 * rolled, or a clean shutdown), if the partition has one (*snap >= 0).
 * 0 or -1.
 */
int	txn_snapshot(struct shm *s, struct shm_partition *p, struct plog *log,
	    int64_t *snap);
/* The newest snapshot's offset of log's partition, -1 none (or unreadable). */
int64_t	txn_snapshot_newest(struct plog *log);
/*
 * Start-up (master, before fork): p's open transactions from the newest
 * snapshot and the batches after it, and the aborted-transaction index
 * entries of the markers after it written again.  The number of open
 * transactions, or -1.
 */
int	txn_rebuild(struct shm *s, struct shm_partition *p, struct plog *l);

#endif
