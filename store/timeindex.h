/*
 * Internal to store/: the sparse time index beside each segment
 * (NNNNNNNNNNNNNNNNNNNN.timeindex), as Kafka's .timeindex.
 *
 * 12-byte entries [timestamp i64][relative offset u32], big-endian.  An
 * entry is written for every batch the offset index (.index) has an entry
 * for, in the same order, holding the largest batch maxTimestamp seen in
 * the segment up to and including that batch, so timestamps never
 * decrease and offsets strictly increase.  A segment that is no longer
 * the active one ends with one more entry when its last batches raised
 * the maximum: (segment max timestamp, last batch's base offset), so the
 * last entry of a closed segment is its max timestamp.  Segments whose
 * batches carry no timestamp at all (every maxTimestamp below 0) have
 * entries with timestamp TIDX_NONE.
 *
 * Like the offset index it is never fsynced: the writer rebuilds what it
 * cannot trust at start-up, following the offset index (tidx_sync).
 */
#ifndef FLUME_STORE_TIMEINDEX_H
#define FLUME_STORE_TIMEINDEX_H

#include <stddef.h>
#include <stdint.h>

#define TIDX_ENTRY	12
#define TIDX_NONE	INT64_MIN	/* no timestamp seen yet */

struct tidx_entry {
	int64_t		ts;
	uint32_t	rel;
};

/* Encode one entry into p[0..TIDX_ENTRY). */
void	tidx_put(uint8_t *p, int64_t ts, uint32_t rel);

/*
 * The whole index of fd, checked for shape (whole entries, timestamps
 * never decreasing, offsets strictly increasing, the first at relative
 * offset 0): 1 and a malloc'ed array, 0 when it is empty or damaged (a
 * torn last entry counts as damage), -1 on an I/O error.
 */
int	tidx_load(int fd, struct tidx_entry **v, size_t *n);

/* The last whole entry of fd: 1 and *e, 0 when there is none, -1 I/O. */
int	tidx_last(int fd, struct tidx_entry *e);

/*
 * The last whole entry of fd whose relative offset is below rel: 1 and
 * *e, 0 when there is none, -1 I/O.  (The entries of batches the log
 * has but readers may not see yet are left out this way.)
 */
int	tidx_last_below(int fd, uint32_t rel, struct tidx_entry *e);

/*
 * Binary search: 1 and *k the index of the first entry whose timestamp is
 * >= ts (*e that entry, *prev the one before, or prev->rel = 0 and
 * prev->ts = TIDX_NONE when k == 0); 0 when no entry reaches ts (*prev
 * the last entry, if any: prev->ts TIDX_NONE when the file is empty);
 * -1 on an I/O error.  A file being appended to is read as it is now.
 */
int	tidx_find(int fd, int64_t ts, struct tidx_entry *prev,
	    struct tidx_entry *e);

#endif
