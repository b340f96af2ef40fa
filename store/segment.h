/*
 * Internal to store/: what the writer's log (plog.c) and the read-only
 * reader (reader.c) share about segment files — their names, the sparse
 * index format, scanning batch headers and serving a read from one
 * segment.  Not for other modules.
 */
#ifndef FLUME_STORE_SEGMENT_H
#define FLUME_STORE_SEGMENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto/batch.h"
#include "store/plog.h"

#define SEG_INDEX_ENTRY		8	/* [relative offset u32][position u32] */
#define SEG_POS_MAX		UINT32_MAX	/* a batch must start below this */
#define SEG_REL_MAX		UINT32_MAX	/* relative offsets fit in u32 */
#define SEG_CURSOR_WINDOW	8192

/* "<dir>/<20-digit base>.<ext>"; -1 (ENAMETOOLONG) if it does not fit. */
int	seg_path(char *buf, size_t size, const char *dir, int64_t base,
	    const char *ext);
/* 1 and *base when name is exactly "<20 digits>.log", else 0. */
int	seg_parse_name(const char *name, int64_t *base);
/* Bases of every segment log in dir, ascending (malloc'ed). 0 or -1. */
int	seg_list(const char *dir, int64_t **bases, size_t *n);

/* write(2) through store_io until done; -1 with errno on failure. */
int	seg_write_all(int fd, const void *buf, size_t len);
/* pread(2) until len bytes or end of file; bytes read or -1. */
ssize_t	seg_pread_full(int fd, void *buf, size_t len, off_t pos);

/*
 * Reads batch headers at increasing positions of one segment file through
 * a window, so a forward scan over small batches costs one pread per
 * window rather than one per batch.
 */
struct hdr_cursor {
	int		fd;
	uint64_t	fsize;		/* bytes of the file we may look at */
	uint64_t	win_pos;
	size_t		win_len;
	uint8_t		win[SEG_CURSOR_WINDOW];
};

void	hdr_cursor_init(struct hdr_cursor *c, int fd, uint64_t fsize);
/*
 * 1 and *h when a plausible batch header sits at pos and the whole batch
 * lies within fsize; 0 when it does not (end of data, garbage); -1 on an
 * I/O error.
 */
int	hdr_cursor_get(struct hdr_cursor *c, uint64_t pos, struct batch_header *h);

/*
 * Whether the whole batch [pos, pos+len) of fd passes its CRC: 1 yes,
 * 0 no (or cut short), -1 on an I/O error.  *buf grows as needed.
 */
int	seg_batch_crc_ok(int fd, uint64_t pos, size_t len, uint8_t **buf,
	    size_t *cap);
/*
 * Where valid batches resume after a corrupt spot: the first position at
 * or after from (below size) where a whole batch starts whose CRC is good,
 * whose magic is 2 and whose offsets lie in (after, limit).  1 with *rpos
 * and *roff (its baseOffset), 0 when there is none, -1 on an I/O error.
 * A byte-by-byte scan: only ever run on damage.
 */
int	seg_resync(int fd, uint64_t size, uint64_t from, int64_t after,
	    int64_t limit, uint64_t *rpos, int64_t *roff);

/* One segment as a read sees it. */
struct seg_ref {
	int64_t		base;
	int		log_fd;
	int		idx_fd;		/* -1: no index, scan from the start */
	uint64_t	log_size;	/* bytes that may be looked at */
	int		compacted;	/* gaps between batches are no damage */
};

/*
 * Whether dir's log has been compacted (store/clean.h: the cleaner's
 * checkpoint exists, written before its first swap): its segments may
 * have gaps between batches and end before the next one begins.
 */
int	seg_dir_compacted(const char *dir);

/*
 * Serve a read from one segment (see plog_read): 1 and *s filled when the
 * batch holding offset is in this segment, 0 when the segment's data ends
 * before it, -1 on an I/O error.  offset < visible_end is the caller's.
 * -1 with errno EBADMSG when offset lies in a corrupt range (a header
 * that does not continue the offsets, or whose batch fails its CRC where
 * the chain breaks): s->first_offset is where the range starts, s->pos
 * its file position, s->next_offset the first offset of the next valid
 * batch in this segment or -1 when none follows in it.
 */
int	seg_read(const struct seg_ref *sr, int64_t offset, int64_t visible_end,
	    size_t max_bytes, struct plog_slice *s);

#endif
