/*
 * The aborted-transaction index (Kafka's .txnindex), one file beside each
 * segment, "<20-digit base>.txnindex": an entry for every transaction
 * aborted by a marker in that segment, 34 bytes each, big-endian:
 *
 *   version i16 (0), producerId i64, firstOffset i64,
 *   lastOffset i64 (the ABORT marker's offset),
 *   lastStableOffset i64 (the partition's LSO once it was closed)
 *
 * The writer appends an entry when it drains an ABORT marker, before the
 * partition's last stable offset can pass the transaction, so a
 * read_committed reader below the LSO finds every abort it needs.  Like
 * the other indexes it is not synced at each append: it is synced before
 * a producer-state snapshot (store/txnsnap.h) is saved, and start-up
 * rebuilds the entries of the markers past the newest snapshot from the
 * log (master/txnpart.c).  A read collects the aborted transactions
 * overlapping [start, upper) as Kafka's Log.collectAbortedTransactions
 * does: from the segment holding start onwards, every entry with
 * lastOffset >= start and firstOffset < upper, until one whose
 * lastStableOffset reaches upper.
 */
#ifndef FLUME_STORE_TXNINDEX_H
#define FLUME_STORE_TXNINDEX_H

#include <stddef.h>
#include <stdint.h>

#define TXNINDEX_ENTRY	34

struct txn_aborted {
	int64_t		pid;
	int64_t		first;
	int64_t		last;
	int64_t		lso;
};

void	txnindex_encode(uint8_t out[TXNINDEX_ENTRY], const struct txn_aborted *a);
/* 0, or -1 when the entry's version is not 0. */
int	txnindex_decode(const uint8_t in[TXNINDEX_ENTRY], struct txn_aborted *a);

/*
 * Append a to segment base's index in dir, unless its newest entry is
 * already a (a writer that died after writing it drains the marker
 * again).  0 or -1.
 */
int	txnindex_append(const char *dir, int64_t base, const struct txn_aborted *a);
/* Drop the entries whose marker is at or past offset (a torn log end). 0 or -1. */
int	txnindex_truncate(const char *dir, int64_t base, int64_t offset);
/* fdatasync segment base's index, if it exists.  0 or -1. */
int	txnindex_sync(const char *dir, int64_t base);
/* The entries of segment base (malloc'ed, *n of them; none: NULL, 0).  0 or -1. */
int	txnindex_load(const char *dir, int64_t base, struct txn_aborted **out,
	    size_t *n);
/*
 * The aborted transactions overlapping [start, upper), from the segments
 * bases[0..nbases) (ascending; those below start's segment are skipped),
 * appended to *out (realloc'ed; *n entries, *cap room).  0 or -1.
 */
int	txnindex_collect(const char *dir, const int64_t *bases, size_t nbases,
	    int64_t start, int64_t upper, struct txn_aborted **out, size_t *n,
	    size_t *cap);

#endif
