/*
 * Producer-state snapshots (Kafka's <offset>.snapshot): the transactions
 * open in a partition at an offset, so that start-up finds them again by
 * reading the log from the newest snapshot on, not from its start.
 *
 * "<20-digit offset>.snapshot" in the partition directory: magic
 * "FLTXSNP1", the offset i64 (every batch below it counted), a count
 * u32, per open transaction producerId i64, producerEpoch i16,
 * firstOffset i64, then the CRC-32C of all before it, big-endian; saved
 * atomically (temp file, fdatasync, rename, directory sync).  The writer
 * saves one before the first transactional batch a partition gets (so a
 * partition without a snapshot never had a transaction and start-up
 * reads nothing), when a segment rolls and when it shuts down cleanly, after
 * syncing the aborted-transaction indexes the snapshot relies on
 * (store/txnindex.h); the newest TXNSNAP_KEEP are kept.  A snapshot past
 * the log end (a power loss took the end of the log) or one that does
 * not check out is ignored and removed.
 */
#ifndef FLUME_STORE_TXNSNAP_H
#define FLUME_STORE_TXNSNAP_H

#include <stddef.h>
#include <stdint.h>

#define TXNSNAP_KEEP	3
#define TXNSNAP_MAX	4096	/* open transactions a snapshot may hold */

struct txnsnap_entry {
	int64_t		pid;
	int16_t		epoch;
	int64_t		first;
};

/*
 * Save the snapshot at offset (n entries), after syncing the aborted-
 * transaction indexes of the segments from the one holding prev (the
 * previous snapshot's offset; -1: all), and drop all but the newest
 * TXNSNAP_KEEP.  0 or -1.
 */
int	txnsnap_save(const char *dir, int64_t prev, int64_t offset,
	    const struct txnsnap_entry *e, size_t n);
/* The newest snapshot's offset: 1 and *offset, 0 when there is none, -1. */
int	txnsnap_newest(const char *dir, int64_t *offset);
/*
 * The newest valid snapshot at or below end: 1 with *offset and the
 * entries (malloc'ed *e, *n), 0 when there is none; snapshots past end
 * or damaged are removed.  -1 on an I/O error.
 */
int	txnsnap_load(const char *dir, int64_t end, int64_t *offset,
	    struct txnsnap_entry **e, size_t *n);

#endif
