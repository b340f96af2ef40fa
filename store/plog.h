/*
 * The partition log: one directory of segment files named by the 20-digit
 * base offset of their first batch (00000000000000000000.log) and a sparse
 * index beside each (.index: 8-byte entries [relative offset u32][file
 * position u32], big-endian, one every index_interval_bytes).
 *
 * Two handles:
 *  - struct plog, the writer's: appends, rolls, syncs, recovers, applies
 *    retention.  Exactly one process (the writer) opens a directory this
 *    way at a time.
 *  - struct plog_reader, read-only, for any process (workers serving
 *    FETCH): finds where an offset lives by the index files and batch
 *    headers on disk, never reading at or past the visible end the caller
 *    passes in (bytes past it may still be being written).
 *
 * Errors: 0 or -1 with errno set.
 */
#ifndef FLUME_STORE_PLOG_H
#define FLUME_STORE_PLOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct plog_config {
	uint64_t	segment_bytes;		/* roll when a segment reaches this */
	uint32_t	index_interval_bytes;	/* bytes between index entries */
	int64_t		retention_bytes;	/* -1 = unlimited */
	int64_t		retention_ms;		/* -1 = unlimited */
	uint64_t	cache_window;		/* newest bytes left in the page
						   cache; 0 = all (plog.c) */
	int64_t		segment_ms;		/* roll a segment this old; 0 never */
};

/* A corrupt range recovery found and kept (valid batches follow it). */
struct plog_corrupt_range {
	int64_t		first_offset;	/* the offset the bad bytes should hold */
	int64_t		next_offset;	/* baseOffset of the valid batch after them */
	int64_t		segment;	/* base offset of the segment file */
	uint64_t	pos;		/* file positions [pos, end) */
	uint64_t	end;
};

#define PLOG_CORRUPT_MAX	8	/* ranges reported in detail */

/* What plog_open found and did; the caller logs it. */
struct plog_recovery {
	uint64_t	truncated_bytes;	/* dropped from the last segment's tail */
	int		index_rebuilt;		/* an index was missing or damaged */
	int		timeindex_rebuilt;	/* a time index was, and was rebuilt */
	int		segments;		/* segment files found */
	int		ncorrupt;		/* corrupt ranges kept (all of them) */
	int		logstart_bad;		/* the log-start file was damaged: ignored */
	struct plog_corrupt_range corrupt[PLOG_CORRUPT_MAX];	/* the first ones */
};

struct plog;

/*
 * Open (creating the directory if needed) and recover: scan the last
 * segment from its last index entry, checking every batch (length,
 * offsets, CRC).  A bad batch followed by valid ones whose offsets carry
 * on is corruption: it is kept in place, reported in rec->corrupt, and
 * the valid batch after it gets an index entry so reads can get past it.
 * Only bytes with no valid batch behind them (a torn tail) are truncated.
 * A missing or damaged index is rebuilt.
 */
int	plog_open(struct plog **lp, const char *dir, const struct plog_config *cfg,
	    struct plog_recovery *rec);
void	plog_close(struct plog *l);

/* First offset kept: the oldest segment's base or the checkpointed start. */
int64_t	plog_start_offset(const struct plog *l);
int64_t	plog_end_offset(const struct plog *l);		/* next offset to assign */
uint64_t plog_size_bytes(const struct plog *l);	/* all segments */
int	plog_segment_count(const struct plog *l);

/*
 * Append len bytes of one or more whole, valid batches.  Each batch's
 * baseOffset is rewritten in place to the next offsets of the log (the
 * CRC does not cover it); *base_offset gets the first.  Rolls the segment
 * first when it is full.  On a write error nothing is published: the
 * segment is truncated back to its old end so the log stays whole.
 */
int	plog_append(struct plog *l, uint8_t *batches, size_t len, int64_t *base_offset);
/*
 * Append batches that already carry their offsets (the writer draining a
 * ring, where workers assigned them): they must continue the log
 * exactly.  Leading batches that end below the log end are skipped, not
 * written (they reached the log before a crash); *skipped gets their byte
 * count.  -1 with EINVAL if a batch overlaps the log end or leaves a gap.
 * Same single-write and error behaviour as plog_append.
 */
int	plog_append_at(struct plog *l, const uint8_t *batches, size_t len, size_t *skipped);
/* fdatasync the active segment (and directory after a roll). */
int	plog_sync(struct plog *l);
/*
 * fdatasync every segment and the directory, whether or not this handle
 * wrote them: start-up recovery, which cannot know what a killed writer
 * left unsynced.
 */
int	plog_sync_all(struct plog *l);
/*
 * The same fdatasync, run off the appending thread: plog_sync_begin()
 * takes what plog_sync() would sync now (every segment written since the
 * last sync, or every segment with all, and the directory when it
 * changed) as duplicated descriptors, and marks the handle synced;
 * plog_sync_run(), from any thread, syncs them in plog_sync()'s order
 * and may run while the handle appends on (what was written before the
 * begin is covered); plog_sync_end() frees them.  A run that fails leaves
 * the handle as a failed plog_sync() does: only plog_resync() may count
 * those bytes durable again.  Begin returns 0 or -1 (nothing taken).
 */
struct plog_sync;
int	plog_sync_begin(struct plog *l, int all, struct plog_sync **out);
int	plog_sync_run(struct plog_sync *ps);
void	plog_sync_end(struct plog_sync *ps);
/*
 * After a failed fdatasync a later successful one proves nothing about
 * the bytes it covered (the kernel may have marked their pages clean
 * without writing them).  Write everything from the batch holding offset
 * to the log end again from what the files read back, checking every
 * batch's CRC-32C and offsets (-1 with EIO on a mismatch: those bytes
 * are lost), then fdatasync it all.  0 or -1.
 */
int	plog_resync(struct plog *l, int64_t offset);
/*
 * Delete whole oldest segments while the log exceeds retention_bytes or a
 * segment's newest timestamp (its file mtime) is older than retention_ms;
 * never the active segment.  *deleted gets the number removed.
 */
int	plog_retain(struct plog *l, int64_t now_ms, int *deleted);
/*
 * Retention keeps every segment holding offset or later ones: the first
 * offset of the partition's oldest open transaction (INT64_MAX: none).
 */
void	plog_set_txn_floor(struct plog *l, int64_t offset);
/* The log's directory. */
const char *plog_dir(const struct plog *l);
/* The base of the segment holding offset (the first one below it). */
int64_t	plog_segment_of(const struct plog *l, int64_t offset);
/* Every segment's base, ascending (malloc'ed).  0 or -1. */
int	plog_segment_bases(const struct plog *l, int64_t **bases, size_t *n);
/*
 * Change an open log's segment, index and retention settings (a topic's
 * settings changed); cache_window stays.  The next append and the next
 * plog_retain use them.
 */
void	plog_set_config(struct plog *l, const struct plog_config *cfg);

/*
 * DeleteRecords: move the log start up to offset (at most the log end),
 * persisted first (store/logstart.h), then remove the segments wholly
 * below it, never the active one (Kafka's rule); a start inside a kept
 * segment stays exact.  An offset at or below the start moves nothing
 * but still removes the segments wholly below the start, which a crash
 * between the two steps left.  *deleted gets the segments removed.  0,
 * or -1 (EINVAL past the end).
 */
int	plog_delete_below(struct plog *l, int64_t offset, int *deleted);

/*
 * The closed segments were replaced on disk (the cleaner's swap,
 * store/clean.h): close them and open what the directory holds now below
 * the active segment, which stays as it is.  0 or -1 (segments that could
 * not be opened are left out).
 */
int	plog_reload_closed(struct plog *l);

/* Where a read is served from: whole batches [pos, pos+len) of fd. */
struct plog_slice {
	int		fd;		/* owned by the log/reader; do not close */
	off_t		pos;
	size_t		len;		/* 0: nothing visible at that offset */
	int64_t		first_offset;	/* baseOffset of the first batch */
	int64_t		next_offset;	/* offset after the last batch included */
	int64_t		segment;	/* base offset of the segment read */
	int		corrupt_new;	/* EBADMSG: not reported by this reader before */
};

/*
 * Batches starting with the one containing offset, up to max_bytes, but
 * always at least one whole batch; only batches that end at or before
 * visible_end (an offset) are returned.  -1 with errno ERANGE when offset
 * is below the log start or above visible_end.  -1 with errno EBADMSG
 * when offset lies in a corrupt range: s->first_offset is its first
 * offset, s->next_offset the first offset readable after it (always
 * greater), s->segment and s->pos the file and position where it starts.
 */
int	plog_read(struct plog *l, int64_t offset, int64_t visible_end,
	    size_t max_bytes, struct plog_slice *s);

struct plog_reader;

int	plog_reader_open(struct plog_reader **rp, const char *dir);
void	plog_reader_close(struct plog_reader *r);
/*
 * Reads that lie more than bytes before the end of the log let the page
 * cache go behind them (store/reader.c); 0 (the default): never.
 */
void	plog_reader_set_cache_window(struct plog_reader *r, uint64_t bytes);
/*
 * As plog_read; rescans the directory when segments rolled or were
 * deleted.  On EBADMSG, s->corrupt_new is 1 the first time this reader
 * meets that range (so the caller logs it once).
 */
int	plog_reader_read(struct plog_reader *r, int64_t offset, int64_t visible_end,
	    size_t max_bytes, struct plog_slice *s);
/*
 * The first offset whose record timestamp is >= ts_ms, looking only below
 * visible_end, as Kafka's ListOffsets answers: the first batch whose
 * maxTimestamp is >= ts_ms, and within it the first record whose own
 * timestamp is (CreateTime records of one batch need not be in order; a
 * LogAppendTime batch's records all have its maxTimestamp).  *offset and
 * *found_ts (that record's timestamp) are -1 when no record reaches
 * ts_ms.  Found through the time indexes (store/timeindex.h).  0 or -1.
 */
int	plog_reader_time_lookup(struct plog_reader *r, int64_t ts_ms,
	    int64_t visible_end, int64_t *offset, int64_t *found_ts);
/*
 * Kafka's MAX_TIMESTAMP (ListOffsets v7+): the offset of the first record
 * at or after first (the log start) and below visible_end with the
 * largest timestamp, and that timestamp; both -1 when there is no record
 * (or none has a timestamp).  Through the time indexes and a short scan
 * of batch headers (store/reader.c says when it is longer).  0 or -1.
 */
int	plog_reader_max_time(struct plog_reader *r, int64_t first,
	    int64_t visible_end, int64_t *offset, int64_t *found_ts);
/*
 * The aborted transactions overlapping [start, upper) from the segments'
 * aborted-transaction indexes (store/txnindex.h), as Kafka's Fetch
 * answers them for read_committed: *out malloc'ed (NULL when none), *n
 * entries.  0 or -1.
 */
struct txn_aborted;
int	plog_reader_aborted(struct plog_reader *r, int64_t start, int64_t upper,
	    struct txn_aborted **out, size_t *n);
/* The same, with *offset = visible_end when nothing reaches ts_ms. */
int	plog_reader_offset_for_time(struct plog_reader *r, int64_t ts_ms,
	    int64_t visible_end, int64_t *offset);

#endif
