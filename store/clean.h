/*
 * Log compaction of one partition directory (issue 28), as Kafka's log
 * cleaner does it, and the crash rule of its swap.  Called by the
 * cleaner child (master/cleaner.c) and by the log's open (plog_open runs
 * clean_recover first).
 *
 * What is cleaned.  The closed segments (never the last, active one)
 * that lie wholly below a limit the caller gives (the durable offset),
 * and that hold no record younger than min.compaction.lag.ms: the
 * cleanable part.  Past the checkpoint (file "cleaner-checkpoint") lies
 * the dirty part: a pass builds the map key -> last offset over it,
 * segment by segment while the map has room (a bounded open-addressing
 * table of 128-bit key hashes, 24 bytes an entry), then rewrites every
 * segment from the first through the last one the map covered, keeping
 *  - each key's latest record (a record whose key the map has at a later
 *    offset goes: that later record is kept, in this pass or past it),
 *  - a tombstone (null value) until delete.retention.ms after the pass
 *    that first covered it (the checkpoint file remembers when each
 *    range was first cleaned), then it goes too,
 *  - records without a key (a compacted topic refuses them on produce;
 *    ones written before are kept),
 *  - each producer id's last batch in the rewritten range: emptied, it
 *    stays as a header with no records (Kafka's choice), so the idempotent
 *    producer state rebuilt from the log still knows its last sequence.
 * Offsets never change; a batch keeps its header (base offset, last
 * offset delta, timestamps, producer fields), only its count, length and
 * CRC change; a compressed one is compressed again with its codec.
 * Neighbouring segments are merged while their original sizes add up to
 * at most segment.bytes, each output named by the base of its first
 * input.  Indexes are rebuilt as the log's appends build them.
 *
 * The swap, under the crash rule.  Every output is written as
 * <base>.log.cleaned (+ .index.cleaned, .timeindex.cleaned) and
 * fdatasync'ed; then the manifest "cleaner-swap" (the range replaced and
 * the new bases, CRC-checked) is written atomically: that is the commit
 * point.  Then the .cleaned files are renamed .swap, the directory is
 * synced, each .swap replaces its name (indexes first, the log last, so a
 * reader that opened a log still linked after opening its index has a
 * matching pair), the old segments the outputs cover are unlinked (never
 * truncated: readers holding them keep reading), the directory synced,
 * the manifest removed.  clean_recover() rolls a committed swap forward
 * from any of those states and removes .cleaned/.swap files of one that
 * never committed, so the partition is exactly the old segments or
 * exactly the new ones.
 *
 * Errors: 0 or -1 with errno.
 */
#ifndef FLUME_STORE_CLEAN_H
#define FLUME_STORE_CLEAN_H

#include <stddef.h>
#include <stdint.h>

#define CLEAN_CHECKPOINT	"cleaner-checkpoint"
#define CLEAN_MANIFEST		"cleaner-swap"

struct clean_config {
	int64_t		now_ms;
	int64_t		limit;		/* never clean at or past this offset */
	int64_t		min_lag_ms;	/* min.compaction.lag.ms */
	int64_t		delete_retention_ms; /* delete.retention.ms */
	uint64_t	segment_bytes;	/* merge up to this */
	uint32_t	index_interval_bytes;
	size_t		dedupe_bytes;	/* the key map's memory */
	size_t		inflate_limit;	/* bound on one batch's records */
	uint64_t	io_bytes_per_sec; /* 0: unthrottled */
	/*
	 * Called between batches with the bytes moved so far; a non-zero
	 * answer aborts the pass (ECANCELED).  The swap is not a point where
	 * it is called.  May be NULL.
	 */
	int		(*yield)(void *arg, uint64_t bytes);
	void		*yield_arg;
	/*
	 * Tests: called at each step of the swap (1: manifest written, 2:
	 * renamed .swap, 3: first replacement done, 4: old ones unlinked);
	 * a non-zero answer stops there as a crash would (-1, EINTR).
	 */
	int		(*swap_hook)(void *arg, int step);
	void		*swap_arg;
	/*
	 * Called with the swap about to start; it must answer 0 only when
	 * the segments read are all still there (retention and DeleteRecords
	 * took none), and hold whatever keeps them so until swap_done.
	 * NULL: nothing to coordinate with (tests).
	 */
	int		(*swap_begin)(void *arg);
	void		(*swap_done)(void *arg);
	void		*swap_lock_arg;
};

/* What a look at a partition found, for choosing which to clean. */
struct clean_state {
	uint64_t	clean_bytes;	/* closed cleanable bytes below the checkpoint */
	uint64_t	dirty_bytes;	/* cleanable bytes past it */
	int64_t		checkpoint;	/* first dirty offset */
	int64_t		first_dirty_ts;	/* oldest dirty batch's max timestamp; -1 */
	int64_t		cleanable_end;	/* offset the cleanable part ends at */
	int64_t		tombs_due;	/* kept tombstones may go from then; 0 none */
};

struct clean_stats {
	uint64_t	bytes_read;
	uint64_t	bytes_written;
	uint64_t	bytes_before;	/* of the segments replaced */
	uint64_t	bytes_after;	/* of their replacement */
	uint64_t	records_removed;
	int64_t		checkpoint;	/* the new one */
	int		segments_in, segments_out;
};

/* The cleanable and dirty parts of dir (see the top).  0 or -1. */
int	clean_inspect(const char *dir, const struct clean_config *cc,
	    struct clean_state *cs);
/*
 * One pass over dir (the top): 0 with *st filled (segments_in 0: nothing
 * was dirty), or -1 (ECANCELED: yield said stop; ENOSPC: one segment's
 * keys do not fit the map; EAGAIN: swap_begin refused).  Whatever it
 * left is cleaned up by the next pass or clean_recover.
 */
int	clean_partition(const char *dir, const struct clean_config *cc,
	    struct clean_stats *st);
/*
 * Finish a committed swap or discard an uncommitted one (the top).  1
 * when it changed anything, 0 when there was nothing to do, -1.
 */
int	clean_recover(const char *dir);

#endif
