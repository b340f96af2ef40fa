/*
 * The partition side of transactions in the writer (DESIGN.md section 3,
 * shm/producer.h): closing a producer's open transaction when the
 * writer drains its marker, the aborted-transaction index
 * (store/txnindex.h), producer-state snapshots (store/txnsnap.h) and
 * the start-up rebuild of the open transactions from them and the log.
 */
#ifndef FLUME_MASTER_TXNSTATE_H
#define FLUME_MASTER_TXNSTATE_H

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

#endif
