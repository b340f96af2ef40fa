/*
 * The writer's partition log: append, roll, sync, recover, retain.
 *
 * Every segment keeps its log and index file descriptors open (O_APPEND,
 * so after an ftruncate the next write lands at the new end).  An append
 * writes the batch bytes with one write per segment touched, then the new
 * index entries with one more: the log always leads the index, so no
 * reader can find an entry pointing at bytes that are not there.  A
 * failure anywhere in an append undoes all of it — new segments are
 * unlinked, the old active segment and its index are truncated back — so
 * a caller that sees -1 may simply retry the same bytes.
 *
 * Writeback starts early: once PLOG_WRITEBACK_BYTES of whole pages have
 * been appended to a segment since the last request, the kernel is asked
 * to start writing them (store_io.writeback, not waiting).  The log is
 * append-only, so each page goes to disk once anyway; starting early only
 * spreads that I/O out.  Left to the kernel, gigabytes of dirty pages pile
 * up at a high append rate until it throttles the writer in write(2) for
 * long stretches, and the periodic fdatasync has all of it to write at
 * once while every partition waits.  Measured with the writer taking
 * 600 MB/s into one partition: the once-a-second fdatasync went from
 * 140 ms on average (up to 250 ms, the ring full meanwhile) to under 1 ms.
 *
 * Behind the writeback, the page cache is let go: once a segment's bytes
 * lie more than cfg.cache_window bytes behind the end of the log (over
 * all segments), the kernel is told they will not be needed again soon
 * (store_io.dropcache, posix_fadvise DONTNEED), a whole number of pages
 * and at least PLOG_WRITEBACK_BYTES at a time.  Only pages already
 * written back are dropped (DONTNEED leaves dirty ones and ones still
 * being written alone), so this never waits and never hides a write error
 * from fdatasync.  A disk slower than the appends (this VM's writes 690
 * MB/s, the log takes more) still has pages in flight when they fall
 * behind the window, so every drop covers the window's width behind the
 * previous one again: a page is asked to go when it is W behind the end
 * and on each step after, until it is 2W behind.  Without that, a run of
 * 600 MB at 1 MiB records left 150-170 MiB in the cache instead of 64,
 * and the writer, back on never-touched pages, used 0.4-0.5 CPU-s instead
 * of 0.2-0.3.  Why: the
 * next pages the log needs are then the ones just freed, still mapped by
 * the machine, instead of never-used memory.  Measured on the 2-core VM
 * this broker is developed on, a write into never-touched page-cache
 * pages runs at 0.45 GB/s (each first touch faults in the hypervisor),
 * into recycled ones at 4 GB/s; the writer spent 86% of its time in that
 * copy at 10 KiB records.  Readers of older bytes read them from disk
 * again.  Only bytes this writer appended are dropped: what was in a
 * file when the log was opened is left to the kernel.
 *
 * The index is never fsynced: recovery checks it and regenerates what it
 * cannot trust.  Index entries follow one rule everywhere (append, tail
 * recovery, rebuild): the first batch of a segment is indexed, and then
 * every batch that starts index_interval_bytes or more after the
 * position of the previous entry.  So a rebuilt index equals the one the
 * appends wrote, and recovery can tell a damaged index from a short one.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/crc32c.h"
#include "store/clean.h"
#include "store/file.h"
#include "store/io.h"
#include "store/logstart.h"
#include "store/plog.h"
#include "store/segment.h"
#include "store/timeindex.h"
#include "store/txnindex.h"

/* Appended bytes of a segment between two early writeback requests. */
#define PLOG_WRITEBACK_BYTES	(4U << 20)
/* Writeback requests cover whole pages: a partial last page is written again. */
#define PLOG_WRITEBACK_ALIGN	4096U

struct seg {
	int64_t		base;
	int		log_fd;
	int		idx_fd;
	uint64_t	size;		/* log bytes */
	uint64_t	idx_size;	/* index bytes */
	uint64_t	last_idx_pos;	/* position of the newest index entry */
	int		tidx_fd;	/* the time index (timeindex.h) */
	uint64_t	tidx_size;	/* its bytes */
	int64_t		tidx_last_ts;	/* timestamp of its newest entry */
	int64_t		max_ts;		/* largest maxTimestamp in the segment */
	int64_t		last_base;	/* baseOffset of its last batch; -1 none */
	int		dirty;		/* written since the last fdatasync */
	uint64_t	wb_pos;		/* log bytes handed to writeback */
	uint64_t	drop_pos;	/* log bytes let go from the page cache */
	uint64_t	drop_floor;	/* bytes in the file when it was opened */
	int64_t		born_ms;	/* made or opened (CLOCK_REALTIME ms), for segment_ms */
};

struct plog {
	char		*dir;
	int		 dir_fd;
	struct plog_config cfg;
	struct seg	*segs;
	int		 nsegs, cap;
	int64_t		 next_offset;
	int64_t		 start;		/* DeleteRecords' log start (logstart.h); -1 none */
	int		 dir_dirty;	/* entries created or removed since sync */
	int		 broken;	/* an undo failed: errno, refuse appends */
	int		 compacted;	/* seg_dir_compacted() at open or reload */
	int64_t		 txn_floor;	/* oldest open transaction's first offset */
	uint8_t		*ibuf;		/* pending index entries of one append */
	size_t		 ibuf_cap;
	uint8_t		*tbuf;		/* the time index entries beside them */
	size_t		 tbuf_cap;
};

/* One index entry decoded. */
struct idx_entry {
	uint32_t	rel;
	uint32_t	pos;
};

/* A growing list of index entries built by a scan. */
struct idx_list {
	struct idx_entry *v;
	size_t		 n, cap;
};

static int
idx_list_push(struct idx_list *il, uint32_t rel, uint32_t pos)
{
	struct idx_entry *nv;
	size_t ncap;

	if (il->n == il->cap) {
		ncap = il->cap ? il->cap * 2 : 64;
		if ((nv = reallocarray(il->v, ncap, sizeof(*nv))) == NULL)
			return -1;
		il->v = nv;
		il->cap = ncap;
	}
	il->v[il->n].rel = rel;
	il->v[il->n].pos = pos;
	il->n++;
	return 0;
}

/* Whether the batch at pos gets an index entry (the rule at the top). */
static int
idx_due(const struct plog *l, int have_entry, uint64_t last_pos, uint64_t pos)
{
	return !have_entry || pos - last_pos >= l->cfg.index_interval_bytes;
}

static void
seg_close_fds(struct seg *sg)
{
	if (sg->log_fd != -1)
		close(sg->log_fd);
	if (sg->idx_fd != -1)
		close(sg->idx_fd);
	if (sg->tidx_fd != -1)
		close(sg->tidx_fd);
	sg->log_fd = sg->idx_fd = sg->tidx_fd = -1;
}

/* Wall-clock ms: when a segment was made, for segment_ms. */
static int64_t
plog_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
plog_push_seg(struct plog *l, const struct seg *sg)
{
	struct seg *nv;
	int ncap;

	if (l->nsegs == l->cap) {
		ncap = l->cap ? l->cap * 2 : 8;
		if ((nv = reallocarray(l->segs, (size_t)ncap, sizeof(*nv))) == NULL)
			return -1;
		l->segs = nv;
		l->cap = ncap;
	}
	l->segs[l->nsegs] = *sg;
	l->segs[l->nsegs++].born_ms = plog_now_ms();
	return 0;
}

/* Replace the whole index file with entries. */
static int
idx_rewrite(int fd, const struct idx_entry *e, size_t n, uint64_t *idx_size)
{
	uint8_t *buf;
	size_t i;
	int rc;

	if (ftruncate(fd, 0) == -1)
		return -1;
	*idx_size = 0;
	if (n == 0)
		return 0;
	if ((buf = reallocarray(NULL, n, SEG_INDEX_ENTRY)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		be32_put(buf + i * SEG_INDEX_ENTRY, e[i].rel);
		be32_put(buf + i * SEG_INDEX_ENTRY + 4, e[i].pos);
	}
	rc = seg_write_all(fd, buf, n * SEG_INDEX_ENTRY);
	free(buf);
	if (rc == 0)
		*idx_size = n * SEG_INDEX_ENTRY;
	return rc;
}

/*
 * Read a segment's index into memory and check what is cheap to check:
 * whole entries, strictly increasing offsets and positions, the first at
 * (0, 0), positions inside the log (only below limit; beyond it is
 * reported through *beyond, not as damage).  1 = usable, 0 = damaged or
 * missing, -1 = I/O error.
 */
static int
idx_load(int fd, uint64_t log_size, uint64_t limit, struct idx_list *il)
{
	struct stat st;
	uint8_t *buf;
	size_t n, i;
	uint32_t rel, pos;
	ssize_t got;

	il->n = 0;
	if (fstat(fd, &st) == -1)
		return -1;
	if ((uint64_t)st.st_size % SEG_INDEX_ENTRY != 0)
		return 0;
	/* Every entry names a batch of at least a header's size. */
	if ((uint64_t)st.st_size / SEG_INDEX_ENTRY > log_size / BATCH_HEADER_SIZE + 1)
		return 0;
	n = (size_t)st.st_size / SEG_INDEX_ENTRY;
	if (n == 0)
		return log_size == 0;
	if ((buf = malloc(n * SEG_INDEX_ENTRY)) == NULL)
		return -1;
	got = seg_pread_full(fd, buf, n * SEG_INDEX_ENTRY, 0);
	if (got != (ssize_t)(n * SEG_INDEX_ENTRY)) {
		free(buf);
		return got < 0 ? -1 : 0;
	}
	for (i = 0; i < n; i++) {
		rel = be32_get(buf + i * SEG_INDEX_ENTRY);
		pos = be32_get(buf + i * SEG_INDEX_ENTRY + 4);
		/* A compacted segment may begin past its base (store/clean.h). */
		if (i == 0 ? pos != 0 :
		    (rel <= il->v[i - 1].rel || pos <= il->v[i - 1].pos))
			goto damaged;
		if (pos >= limit)
			goto damaged;
		if (idx_list_push(il, rel, pos) == -1) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 1;
damaged:
	free(buf);
	il->n = 0;
	return 0;
}

/*
 * Rebuild an older segment's index from its batch headers (trusted: no
 * CRC).  The scan stops at the first header that does not continue the
 * segment; such a segment is still served up to there.
 */
static int
seg_rebuild_index(struct plog *l, struct seg *sg)
{
	struct hdr_cursor *c;
	struct batch_header h;
	struct idx_list il = { NULL, 0, 0 };
	uint64_t pos = 0, last_pos = 0;
	int64_t at = sg->base;
	int r, rc = -1;

	if ((c = malloc(sizeof(*c))) == NULL)
		return -1;
	hdr_cursor_init(c, sg->log_fd, sg->size);
	while (pos < sg->size && pos < SEG_POS_MAX) {
		if ((r = hdr_cursor_get(c, pos, &h)) == -1)
			goto out;
		if (r == 1 && l->compacted && h.base_offset > at)
			at = h.base_offset;	/* a compacted gap */
		if (r == 0 || h.base_offset != at ||
		    (uint64_t)(at - sg->base) > SEG_REL_MAX)
			break;
		if (idx_due(l, il.n > 0, last_pos, pos)) {
			if (idx_list_push(&il, (uint32_t)(at - sg->base),
			    (uint32_t)pos) == -1)
				goto out;
			last_pos = pos;
		}
		at = h.base_offset + h.last_offset_delta + 1;
		pos += batch_total_size(&h);
	}
	if (idx_rewrite(sg->idx_fd, il.v, il.n, &sg->idx_size) == -1)
		goto out;
	sg->last_idx_pos = last_pos;
	rc = 0;
out:
	free(il.v);
	free(c);
	return rc;
}

/*
 * Read the whole batch at pos and check it continues the log: header,
 * inside the file, expected baseOffset, CRC.  1 valid (*next and *tot
 * set), 0 not, -1 I/O error.  *buf grows as needed.
 */
static int
batch_check_at(int fd, uint64_t size, uint64_t pos, int64_t expect,
    uint8_t **buf, size_t *cap, int64_t *next, size_t *tot)
{
	uint8_t hdr[BATCH_HEADER_SIZE], *nb;
	struct batch_header h;
	size_t total;
	ssize_t got;

	if (pos > size || size - pos < BATCH_HEADER_SIZE)
		return 0;
	got = seg_pread_full(fd, hdr, sizeof(hdr), (off_t)pos);
	if (got < 0)
		return -1;
	if ((size_t)got < sizeof(hdr) ||
	    batch_parse_header(hdr, sizeof(hdr), &h) != BATCH_OK)
		return 0;
	total = batch_total_size(&h);
	if (total > size - pos || h.base_offset != expect ||
	    h.last_offset_delta < 0)
		return 0;
	if (total > *cap) {
		if ((nb = realloc(*buf, total)) == NULL)
			return -1;
		*buf = nb;
		*cap = total;
	}
	got = seg_pread_full(fd, *buf, total, (off_t)pos);
	if (got < 0)
		return -1;
	if ((size_t)got != total || batch_check_crc(*buf, total) != BATCH_OK)
		return 0;
	*next = h.base_offset + h.last_offset_delta + 1;
	*tot = total;
	return 1;
}

/*
 * Recover the last segment: start from the newest index entry whose batch
 * checks out (or the beginning), check every batch from there to the end
 * (length, offsets, CRC).  At a bad one, look for a valid batch with later
 * offsets behind it: if there is one the bad bytes are damage, kept and
 * reported (they are served as CORRUPT_MESSAGE), and the check goes on
 * from there; if not they are a torn tail and truncated.  The index is
 * made to agree with what is left.
 */
static int
seg_recover_tail(struct plog *l, struct seg *sg, struct plog_recovery *rec)
{
	struct idx_list il = { NULL, 0, 0 }, regen = { NULL, 0, 0 };
	struct plog_corrupt_range *cr;
	uint8_t *buf = NULL;
	size_t cap = 0, tot, keep, i, j, k;
	uint64_t pos, last_pos, rpos;
	int64_t at, next, roff;
	int r, usable, damaged = 0, rc = -1;

	if ((usable = idx_load(sg->idx_fd, sg->size, UINT64_MAX, &il)) == -1)
		goto out;
	if (!usable)
		damaged = 1;

	/* Entries past the end of the file lost their batches: not damage. */
	for (k = 0; k < il.n && il.v[k].pos < sg->size; k++)
		;
	/* The newest entry whose batch is whole and correct. */
	keep = 0;
	pos = 0;
	at = sg->base;
	for (j = k; j > 0; j--) {
		r = batch_check_at(sg->log_fd, sg->size, il.v[j - 1].pos,
		    sg->base + il.v[j - 1].rel, &buf, &cap, &next, &tot);
		if (r == -1)
			goto out;
		if (r == 1) {
			keep = j - 1;
			pos = il.v[keep].pos;
			at = sg->base + il.v[keep].rel;
			break;
		}
	}

	/* Check forward, regenerating the entries from keep on. */
	last_pos = pos;
	while (pos < sg->size && pos < SEG_POS_MAX &&
	    (uint64_t)(at - sg->base) <= SEG_REL_MAX) {
		r = batch_check_at(sg->log_fd, sg->size, pos, at, &buf, &cap,
		    &next, &tot);
		if (r == -1)
			goto out;
		if (r == 0) {
			/*
			 * A torn tail has nothing valid behind it; damage
			 * does.  Keep the valid batches after it.
			 */
			r = seg_resync(sg->log_fd, sg->size, pos + 1, at,
			    sg->base + (int64_t)SEG_REL_MAX, &rpos, &roff);
			if (r == -1)
				goto out;
			if (r == 0)
				break;
			if (rec->ncorrupt < PLOG_CORRUPT_MAX) {
				cr = &rec->corrupt[rec->ncorrupt];
				cr->first_offset = at;
				cr->next_offset = roff;
				cr->segment = sg->base;
				cr->pos = pos;
				cr->end = rpos;
			}
			rec->ncorrupt++;
			/*
			 * Index the batch after the damage, whatever the
			 * interval says: reads past the damage start there
			 * and never scan into it.  An index still starts at
			 * (0, 0), even when that is where the damage is.
			 */
			if (keep == 0 && regen.n == 0 && pos == 0 &&
			    idx_list_push(&regen, 0, 0) == -1)
				goto out;
			if (idx_list_push(&regen, (uint32_t)(roff - sg->base),
			    (uint32_t)rpos) == -1)
				goto out;
			last_pos = rpos;
			pos = rpos;
			at = roff;
			damaged = 1;
			continue;
		}
		if (idx_due(l, regen.n > 0, last_pos, pos)) {
			if (idx_list_push(&regen, (uint32_t)(at - sg->base),
			    (uint32_t)pos) == -1)
				goto out;
			last_pos = pos;
		}
		at = next;
		pos += tot;
	}

	/*
	 * The old entries from keep that lie in what is left must be what
	 * the rule gives; extra regenerated ones at the end only mean the
	 * writer died between the log write and the index write.
	 */
	for (i = keep, j = 0; !damaged && i < il.n && il.v[i].pos < pos; i++, j++)
		if (j >= regen.n || il.v[i].rel != regen.v[j].rel ||
		    il.v[i].pos != regen.v[j].pos)
			damaged = 1;

	if (pos < sg->size) {
		if (ftruncate(sg->log_fd, (off_t)pos) == -1)
			goto out;
		rec->truncated_bytes += sg->size - pos;
		sg->size = pos;
	}
	/* Entries [0, keep) stay; the rest is regen. */
	il.n = keep;
	for (j = 0; j < regen.n; j++)
		if (idx_list_push(&il, regen.v[j].rel, regen.v[j].pos) == -1)
			goto out;
	if (idx_rewrite(sg->idx_fd, il.v, il.n, &sg->idx_size) == -1)
		goto out;
	sg->last_idx_pos = il.n > 0 ? il.v[il.n - 1].pos : 0;
	l->next_offset = at;
	if (damaged && sg->size > 0)
		rec->index_rebuilt = 1;
	rc = 0;
out:
	free(il.v);
	free(regen.v);
	free(buf);
	return rc;
}

/*
 * Make the time index agree with the (final) offset index of sg: keep the
 * leading entries whose offsets match the offset index's, then scan batch
 * headers from the last of them to the end of the segment, writing an
 * entry at every batch the offset index names (a corrupt range is
 * stepped over as a read does: to the next offset index entry, which
 * recovery put at the batch after the damage).  A closed segment gets its
 * final entry.  Normally only the tail after the newest entry is read;
 * a missing or damaged file is rebuilt by a scan of the whole segment.
 */
static int
seg_sync_timeindex(struct plog *l, struct seg *sg, int closed,
    struct plog_recovery *rec)
{
	struct idx_list il = { NULL, 0, 0 };
	struct tidx_entry *tv = NULL, *nv = NULL;
	struct hdr_cursor *c = NULL;
	struct batch_header h;
	uint8_t *buf = NULL;
	size_t tn = 0, m = 0, j = 0, nn = 0, i;
	uint64_t pos = 0;
	int64_t at = sg->base, run = TIDX_NONE;
	int r, skip = 0, rc = -1;

	sg->max_ts = sg->tidx_last_ts = TIDX_NONE;
	sg->last_base = -1;
	if ((r = idx_load(sg->idx_fd, sg->size, sg->size, &il)) == -1)
		goto out;
	if ((r = tidx_load(sg->tidx_fd, &tv, &tn)) == -1)
		goto out;
	while (m < tn && m < il.n && tv[m].rel == il.v[m].rel)
		m++;
	if ((nv = reallocarray(NULL, il.n + 1, sizeof(*nv))) == NULL ||
	    (c = malloc(sizeof(*c))) == NULL)
		goto out;
	for (i = 0; i < m; i++)
		nv[nn++] = tv[i];
	if (m > 0) {
		/* Its batch is in the entry already; the scan goes on after. */
		run = tv[m - 1].ts;
		pos = il.v[m - 1].pos;
		at = sg->base + il.v[m - 1].rel;
		j = m;
		skip = 1;
	}
	hdr_cursor_init(c, sg->log_fd, sg->size);
	while (pos < sg->size) {
		if ((r = hdr_cursor_get(c, pos, &h)) == -1)
			goto out;
		if (r == 1 && closed && l->compacted && h.base_offset > at)
			at = h.base_offset;	/* a compacted gap */
		if (r == 0 || h.base_offset != at) {
			while (j < il.n && il.v[j].pos <= pos)
				j++;
			if (j == il.n)
				break;
			pos = il.v[j].pos;
			at = sg->base + il.v[j].rel;
			continue;
		}
		if (!skip && h.max_timestamp > run)
			run = h.max_timestamp;
		if (!skip && j < il.n && il.v[j].pos == pos) {
			nv[nn].ts = run;
			nv[nn].rel = il.v[j].rel;
			nn++;
			j++;
		}
		skip = 0;
		sg->last_base = h.base_offset;
		at = h.base_offset + h.last_offset_delta + 1;
		pos += batch_total_size(&h);
	}
	if (closed && sg->last_base >= 0 && nn > 0 && run > nv[nn - 1].ts &&
	    (uint32_t)(sg->last_base - sg->base) > nv[nn - 1].rel) {
		nv[nn].ts = run;
		nv[nn].rel = (uint32_t)(sg->last_base - sg->base);
		nn++;
	}
	sg->max_ts = run;
	sg->tidx_last_ts = nn > 0 ? nv[nn - 1].ts : TIDX_NONE;
	sg->tidx_size = nn * TIDX_ENTRY;
	for (i = 0; i < nn && i < tn; i++)
		if (nv[i].ts != tv[i].ts || nv[i].rel != tv[i].rel)
			break;
	if (i == nn && nn == tn) {
		rc = 0;
		goto out;
	}
	/*
	 * Missing, damaged, or wrong before its last entry: more than the
	 * tail a killed writer had not written yet (or a final entry of a
	 * segment that is the active one again after a failed roll).
	 */
	if ((tn == 0 && sg->size > 0) || i + 1 < tn)
		rec->timeindex_rebuilt = 1;
	if ((buf = reallocarray(NULL, nn > 0 ? nn : 1, TIDX_ENTRY)) == NULL)
		goto out;
	for (i = 0; i < nn; i++)
		tidx_put(buf + i * TIDX_ENTRY, nv[i].ts, nv[i].rel);
	if (ftruncate(sg->tidx_fd, 0) == -1 ||
	    seg_write_all(sg->tidx_fd, buf, nn * TIDX_ENTRY) == -1)
		goto out;
	rc = 0;
out:
	free(buf);
	free(c);
	free(nv);
	free(tv);
	free(il.v);
	return rc;
}

/* Open one existing segment's files; the last one is recovered. */
static int
seg_load(struct plog *l, int64_t base, int last, struct plog_recovery *rec)
{
	char path[4096];
	struct seg sg;
	struct stat st;
	struct idx_list il = { NULL, 0, 0 };
	int r;

	memset(&sg, 0, sizeof(sg));
	sg.base = base;
	sg.log_fd = sg.idx_fd = sg.tidx_fd = -1;
	if (seg_path(path, sizeof(path), l->dir, base, "log") == -1 ||
	    (sg.log_fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC)) == -1 ||
	    fstat(sg.log_fd, &st) == -1)
		goto fail;
	sg.size = (uint64_t)st.st_size;
	if (seg_path(path, sizeof(path), l->dir, base, "index") == -1 ||
	    (sg.idx_fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1)
		goto fail;
	if (seg_path(path, sizeof(path), l->dir, base, "timeindex") == -1 ||
	    (sg.tidx_fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1)
		goto fail;

	if (last) {
		if (seg_recover_tail(l, &sg, rec) == -1)
			goto fail;
	} else {
		if ((r = idx_load(sg.idx_fd, sg.size, sg.size, &il)) == -1)
			goto fail;
		if (r == 1) {
			sg.idx_size = il.n * SEG_INDEX_ENTRY;
			sg.last_idx_pos = il.n > 0 ? il.v[il.n - 1].pos : 0;
		} else {
			rec->index_rebuilt = 1;
			if (seg_rebuild_index(l, &sg) == -1)
				goto fail;
		}
	}
	/* After the offset index, which it follows. */
	if (seg_sync_timeindex(l, &sg, !last, rec) == -1)
		goto fail;
	/* What is already in the file is the kernel's business. */
	sg.wb_pos = sg.size - sg.size % PLOG_WRITEBACK_ALIGN;
	sg.drop_pos = sg.drop_floor = sg.size;
	if (plog_push_seg(l, &sg) == -1)
		goto fail;
	free(il.v);
	return 0;
fail:
	{
		int saved = errno;

		free(il.v);
		seg_close_fds(&sg);
		errno = saved;
	}
	return -1;
}

/* Create a new, empty active segment starting at base. */
static int
seg_create(struct plog *l, int64_t base)
{
	char path[4096];
	struct seg sg;

	memset(&sg, 0, sizeof(sg));
	sg.base = base;
	sg.log_fd = sg.idx_fd = sg.tidx_fd = -1;
	sg.max_ts = sg.tidx_last_ts = TIDX_NONE;
	sg.last_base = -1;
	/*
	 * O_TRUNC: a file with this name can only be left over from a roll
	 * that failed and could not be undone; it holds nothing we kept.
	 */
	if (seg_path(path, sizeof(path), l->dir, base, "log") == -1 ||
	    (sg.log_fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644)) == -1)
		goto fail;
	if (seg_path(path, sizeof(path), l->dir, base, "index") == -1 ||
	    (sg.idx_fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644)) == -1)
		goto fail;
	if (seg_path(path, sizeof(path), l->dir, base, "timeindex") == -1 ||
	    (sg.tidx_fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644)) == -1)
		goto fail;
	/* Nor can an aborted-transaction index of that name. */
	if (seg_path(path, sizeof(path), l->dir, base, "txnindex") == -1 ||
	    (unlink(path) == -1 && errno != ENOENT))
		goto fail;
	if (plog_push_seg(l, &sg) == -1)
		goto fail;
	l->dir_dirty = 1;
	return 0;
fail:
	{
		int saved = errno;

		if (sg.log_fd != -1) {
			seg_path(path, sizeof(path), l->dir, base, "log");
			unlink(path);
		}
		seg_close_fds(&sg);
		errno = saved;
	}
	return -1;
}

/* Close and unlink a segment's files (log first: readers look for logs). */
static void
seg_remove(struct plog *l, struct seg *sg)
{
	char path[4096];

	if (seg_path(path, sizeof(path), l->dir, sg->base, "log") == 0)
		unlink(path);
	if (seg_path(path, sizeof(path), l->dir, sg->base, "index") == 0)
		unlink(path);
	if (seg_path(path, sizeof(path), l->dir, sg->base, "timeindex") == 0)
		unlink(path);
	if (seg_path(path, sizeof(path), l->dir, sg->base, "txnindex") == 0)
		unlink(path);
	seg_close_fds(sg);
	l->dir_dirty = 1;
}

int
plog_open(struct plog **lp, const char *dir, const struct plog_config *cfg,
    struct plog_recovery *rec)
{
	struct plog *l;
	struct plog_recovery dummy;
	int64_t *bases = NULL;
	size_t n = 0, i;
	int saved;

	if (rec == NULL)
		rec = &dummy;
	memset(rec, 0, sizeof(*rec));
	if (cfg->segment_bytes == 0) {
		errno = EINVAL;
		return -1;
	}
	if (store_mkdir_p(dir, 0755) == -1)
		return -1;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return -1;
	l->dir_fd = -1;
	l->cfg = *cfg;
	l->txn_floor = INT64_MAX;
	if ((l->dir = strdup(dir)) == NULL)
		goto fail;
	if ((l->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		goto fail;
	/* A compaction's swap a crash cut short: finished or undone first. */
	if (clean_recover(dir) == -1)
		goto fail;
	if (seg_list(dir, &bases, &n) == -1)
		goto fail;
	rec->segments = (int)n;
	l->compacted = seg_dir_compacted(dir);
	for (i = 0; i < n; i++)
		if (seg_load(l, bases[i], i + 1 == n, rec) == -1)
			goto fail;
	if (n == 0) {
		if (seg_create(l, 0) == -1)
			goto fail;
		l->next_offset = 0;
	} else if (txnindex_truncate(dir, bases[n - 1], l->next_offset) == -1)
		goto fail;	/* aborts whose markers a torn tail took */
	/* A damaged checkpoint is reported; the segments still say a start. */
	if (logstart_load(dir, &l->start) == -1) {
		if (errno == ENOMEM)
			goto fail;
		rec->logstart_bad = 1;
		l->start = -1;
	}
	free(bases);
	*lp = l;
	return 0;
fail:
	saved = errno;
	free(bases);
	plog_close(l);
	errno = saved;
	return -1;
}

void
plog_close(struct plog *l)
{
	int i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nsegs; i++)
		seg_close_fds(&l->segs[i]);
	if (l->dir_fd != -1)
		close(l->dir_fd);
	free(l->segs);
	free(l->dir);
	free(l->ibuf);
	free(l->tbuf);
	free(l);
}

/*
 * The oldest segment's base, or the checkpointed start inside it; never
 * past the log end (a power loss may have taken records acknowledged
 * with acks=1 after the checkpoint was written: the log goes on from
 * its end, which is then also its start).
 */
int64_t
plog_start_offset(const struct plog *l)
{
	int64_t s = l->segs[0].base;

	if (l->start > s)
		s = l->start;
	return s < l->next_offset ? s : l->next_offset;
}

int
plog_delete_below(struct plog *l, int64_t offset, int *deleted)
{
	int n = 0;

	if (deleted != NULL)
		*deleted = 0;
	if (offset > l->next_offset) {
		errno = EINVAL;
		return -1;
	}
	if (offset > plog_start_offset(l)) {
		/* Persisted first: a crash then leaves segments below it. */
		if (logstart_save(l->dir, offset) == -1)
			return -1;
		l->start = offset;
	} else
		offset = plog_start_offset(l);	/* what a crash left: removed */
	/* Whole segments below it, as Kafka: never the active one. */
	while (l->nsegs > 1 && l->segs[1].base <= offset) {
		seg_remove(l, &l->segs[0]);
		memmove(&l->segs[0], &l->segs[1],
		    (size_t)(l->nsegs - 1) * sizeof(l->segs[0]));
		l->nsegs--;
		n++;
	}
	if (deleted != NULL)
		*deleted = n;
	return 0;
}

int
plog_reload_closed(struct plog *l)
{
	struct plog_recovery rec;
	struct seg active;
	int64_t *bases = NULL;
	size_t n = 0, i;
	int i2, rc = 0, saved = 0;

	if (seg_list(l->dir, &bases, &n) == -1)
		return -1;
	l->compacted = seg_dir_compacted(l->dir);
	active = l->segs[l->nsegs - 1];
	for (i2 = 0; i2 + 1 < l->nsegs; i2++)
		seg_close_fds(&l->segs[i2]);
	l->nsegs = 0;
	memset(&rec, 0, sizeof(rec));
	for (i = 0; i < n && bases[i] < active.base; i++)
		if (seg_load(l, bases[i], 0, &rec) == -1 && rc == 0) {
			saved = errno;
			rc = -1;	/* the others still load */
		}
	free(bases);
	if (plog_push_seg(l, &active) == -1) {
		/* No room to put it back: nothing can append; say so. */
		l->broken = errno;
		return -1;
	}
	l->segs[l->nsegs - 1].born_ms = active.born_ms;
	l->dir_dirty = 1;
	if (rc == -1)
		errno = saved;
	return rc;
}

int64_t
plog_end_offset(const struct plog *l)
{
	return l->next_offset;
}

uint64_t
plog_size_bytes(const struct plog *l)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < l->nsegs; i++)
		total += l->segs[i].size;
	return total;
}

int
plog_segment_count(const struct plog *l)
{
	return l->nsegs;
}

/*
 * Ask the kernel to start writing sg's whole pages appended since the last
 * request once there are PLOG_WRITEBACK_BYTES of them.  Never fails: this
 * is advice, and fdatasync reports any error it would have met.
 */
static void
plog_writeback(struct seg *sg)
{
	uint64_t end = sg->size - sg->size % PLOG_WRITEBACK_ALIGN;

	if (sg->wb_pos > end)		/* an undone append shrank the segment */
		sg->wb_pos = end;
	if (end - sg->wb_pos < PLOG_WRITEBACK_BYTES)
		return;
	(void)store_io.writeback(sg->log_fd, (off_t)sg->wb_pos,
	    (off_t)(end - sg->wb_pos));
	sg->wb_pos = end;
}

/*
 * Let the page cache go for what lies more than cfg.cache_window bytes
 * behind the end of the log (the rule at the top), and once more for the
 * cache_window bytes before the last drop (pages written back since).
 * Walks from the active segment back and stops at the first sealed
 * segment with nothing left to drop: older ones were done before it.
 * Never fails (advice).
 */
static void
plog_drop_behind(struct plog *l)
{
	uint64_t keep = l->cfg.cache_window, end, lo;
	struct seg *sg;
	int i;

	if (keep == 0)
		return;
	for (i = l->nsegs - 1; i >= 0; i--) {
		sg = &l->segs[i];
		if (sg->drop_pos > sg->size)	/* an undone append */
			sg->drop_pos = sg->size;
		if (sg->drop_floor > sg->size)
			sg->drop_floor = sg->size;
		if (keep >= sg->size) {
			keep -= sg->size;
			continue;
		}
		end = sg->size - keep;
		keep = 0;
		/* Whole pages in the active segment, which is written again. */
		if (i == l->nsegs - 1)
			end -= end % PLOG_WRITEBACK_ALIGN;
		if (end <= sg->drop_pos) {
			if (i < l->nsegs - 1)
				break;
			continue;
		}
		/* In steps, but a sealed segment up to its end. */
		if (end - sg->drop_pos < PLOG_WRITEBACK_BYTES &&
		    (i == l->nsegs - 1 || end < sg->size))
			continue;
		lo = sg->drop_pos - sg->drop_floor > l->cfg.cache_window ?
		    sg->drop_pos - l->cfg.cache_window : sg->drop_floor;
		(void)store_io.dropcache(sg->log_fd, (off_t)lo, (off_t)(end - lo));
		sg->drop_pos = end;
	}
}

/* Write the batches [from, to) and their pending index entries to sg. */
static int
plog_flush_run(struct plog *l, struct seg *sg, const uint8_t *from, size_t len,
    size_t nidx)
{
	if (len == 0)
		return 0;
	if (seg_write_all(sg->log_fd, from, len) == -1)
		return -1;
	sg->size += len;
	sg->dirty = 1;
	plog_writeback(sg);
	plog_drop_behind(l);
	if (nidx > 0) {
		if (seg_write_all(sg->idx_fd, l->ibuf, nidx * SEG_INDEX_ENTRY) == -1)
			return -1;
		sg->idx_size += nidx * SEG_INDEX_ENTRY;
		/* After the offset index: recovery follows that one. */
		if (seg_write_all(sg->tidx_fd, l->tbuf, nidx * TIDX_ENTRY) == -1)
			return -1;
		sg->tidx_size += nidx * TIDX_ENTRY;
	}
	return 0;
}

/*
 * A segment that stops being the active one gets a final time index entry
 * when its last batches raised its max timestamp, so the last entry of a
 * closed segment is its max (what time lookups and retention read).
 */
static int
plog_close_timeindex(struct seg *sg)
{
	uint8_t e[TIDX_ENTRY];

	if (sg->last_base < 0 || sg->max_ts <= sg->tidx_last_ts)
		return 0;
	tidx_put(e, sg->max_ts, (uint32_t)(sg->last_base - sg->base));
	if (seg_write_all(sg->tidx_fd, e, sizeof(e)) == -1)
		return -1;
	sg->tidx_size += TIDX_ENTRY;
	sg->tidx_last_ts = sg->max_ts;
	return 0;
}

static int
ibuf_reserve(struct plog *l, size_t nentries)
{
	uint8_t *nb;
	size_t need = nentries * SEG_INDEX_ENTRY;

	if (need <= l->ibuf_cap)
		return 0;
	if ((nb = realloc(l->ibuf, need)) == NULL)
		return -1;
	l->ibuf = nb;
	l->ibuf_cap = need;
	if ((nb = realloc(l->tbuf, nentries * TIDX_ENTRY)) == NULL)
		return -1;
	l->tbuf = nb;
	l->tbuf_cap = nentries * TIDX_ENTRY;
	return 0;
}

/* Check that buf holds whole batch headers end to end; count them. */
static int
plog_frame_check(const uint8_t *buf, size_t len, size_t *count)
{
	struct batch_header h;
	size_t pos = 0, tot;

	*count = 0;
	while (pos < len) {
		if (batch_parse_header(buf + pos, len - pos, &h) != BATCH_OK ||
		    h.last_offset_delta < 0)
			return -1;
		tot = batch_total_size(&h);
		if (tot > len - pos)
			return -1;
		pos += tot;
		(*count)++;
	}
	return *count > 0 ? 0 : -1;
}

/*
 * The append behind plog_append (keep == 0: assign the log's next offsets)
 * and plog_append_at (keep == 1: the batches carry their offsets, which
 * must continue the log exactly; the buffer is not written).
 */
static int
plog_append_batches(struct plog *l, uint8_t *batches, size_t len, int keep,
    int64_t *base_offset)
{
	struct batch_header h;
	struct seg *sg;
	size_t pos, run, tot, nbatches, nidx;
	uint64_t at_pos, size0, idx0, lastidx0, tidx0;
	int64_t off, next0, rel_last, maxts0, tlast0, lastb0;
	int nsegs0, saved;

	if (l->broken) {
		errno = l->broken;
		return -1;
	}
	if (batches == NULL || plog_frame_check(batches, len, &nbatches) == -1) {
		errno = EINVAL;
		return -1;
	}
	if (ibuf_reserve(l, nbatches) == -1)
		return -1;

	nsegs0 = l->nsegs;
	sg = &l->segs[l->nsegs - 1];
	size0 = sg->size;
	idx0 = sg->idx_size;
	lastidx0 = sg->last_idx_pos;
	tidx0 = sg->tidx_size;
	maxts0 = sg->max_ts;
	tlast0 = sg->tidx_last_ts;
	lastb0 = sg->last_base;
	next0 = l->next_offset;

	off = l->next_offset;
	pos = run = 0;
	nidx = 0;
	while (pos < len) {
		batch_parse_header(batches + pos, len - pos, &h);
		tot = batch_total_size(&h);
		if (keep && h.base_offset != off) {
			errno = EINVAL;
			goto undo;
		}
		at_pos = sg->size + (pos - run);
		rel_last = off + h.last_offset_delta - sg->base;
		if (at_pos > 0 && (at_pos + tot > l->cfg.segment_bytes ||
		    (l->cfg.segment_ms > 0 && pos == 0 &&
		    plog_now_ms() - sg->born_ms >= l->cfg.segment_ms) ||
		    at_pos >= SEG_POS_MAX || rel_last > (int64_t)SEG_REL_MAX)) {
			if (plog_flush_run(l, sg, batches + run, pos - run, nidx) == -1 ||
			    plog_close_timeindex(sg) == -1)
				goto undo;
			if (seg_create(l, off) == -1)
				goto undo;
			sg = &l->segs[l->nsegs - 1];
			run = pos;
			nidx = 0;
			at_pos = 0;
		}
		if (!keep)
			batch_set_base_offset(batches + pos, off);
		if (h.max_timestamp > sg->max_ts)
			sg->max_ts = h.max_timestamp;
		sg->last_base = off;
		if (idx_due(l, sg->idx_size > 0 || nidx > 0, sg->last_idx_pos,
		    at_pos)) {
			be32_put(l->ibuf + nidx * SEG_INDEX_ENTRY,
			    (uint32_t)(off - sg->base));
			be32_put(l->ibuf + nidx * SEG_INDEX_ENTRY + 4,
			    (uint32_t)at_pos);
			tidx_put(l->tbuf + nidx * TIDX_ENTRY, sg->max_ts,
			    (uint32_t)(off - sg->base));
			sg->tidx_last_ts = sg->max_ts;
			sg->last_idx_pos = at_pos;
			nidx++;
		}
		off += (int64_t)h.last_offset_delta + 1;
		pos += tot;
	}
	if (plog_flush_run(l, sg, batches + run, pos - run, nidx) == -1)
		goto undo;
	if (base_offset != NULL)
		*base_offset = keep && len > 0 ? batch_base_offset(batches) : l->next_offset;
	l->next_offset = off;
	return 0;

undo:
	saved = errno;
	while (l->nsegs > nsegs0)
		seg_remove(l, &l->segs[--l->nsegs]);
	sg = &l->segs[nsegs0 - 1];
	if (ftruncate(sg->log_fd, (off_t)size0) == -1 ||
	    ftruncate(sg->idx_fd, (off_t)idx0) == -1 ||
	    ftruncate(sg->tidx_fd, (off_t)tidx0) == -1)
		l->broken = errno;
	sg->size = size0;
	sg->idx_size = idx0;
	sg->last_idx_pos = lastidx0;
	sg->tidx_size = tidx0;
	sg->max_ts = maxts0;
	sg->tidx_last_ts = tlast0;
	sg->last_base = lastb0;
	l->next_offset = next0;
	errno = saved;
	return -1;
}

int
plog_append(struct plog *l, uint8_t *batches, size_t len, int64_t *base_offset)
{
	return plog_append_batches(l, batches, len, 0, base_offset);
}

int
plog_append_at(struct plog *l, const uint8_t *batches, size_t len, size_t *skipped)
{
	struct batch_header h;
	size_t pos = 0, nbatches;

	if (batches == NULL || plog_frame_check(batches, len, &nbatches) == -1) {
		errno = EINVAL;
		return -1;
	}
	/* Batches that reached the log before a crash are skipped whole. */
	while (pos < len) {
		batch_parse_header(batches + pos, len - pos, &h);
		if (h.base_offset + h.last_offset_delta >= l->next_offset)
			break;
		pos += batch_total_size(&h);
	}
	if (skipped != NULL)
		*skipped = pos;
	if (pos == len)
		return 0;
	if (h.base_offset != l->next_offset) {
		errno = EINVAL;		/* overlaps the log end, or leaves a gap */
		return -1;
	}
	/* Keep mode never writes into the buffer. */
	return plog_append_batches(l, (uint8_t *)(uintptr_t)(batches + pos),
	    len - pos, 1, NULL);
}

int
plog_sync(struct plog *l)
{
	int i;

	/* A roll leaves the previous segments' tails unsynced too. */
	for (i = 0; i < l->nsegs; i++) {
		if (!l->segs[i].dirty)
			continue;
		if (store_io.fdatasync(l->segs[i].log_fd) == -1)
			return -1;
		l->segs[i].dirty = 0;
	}
	if (l->dir_dirty) {
		if (store_io.fdatasync(l->dir_fd) == -1)
			return -1;
		l->dir_dirty = 0;
	}
	return 0;
}

int
plog_sync_all(struct plog *l)
{
	int i;

	for (i = 0; i < l->nsegs; i++)
		l->segs[i].dirty = 1;
	l->dir_dirty = 1;
	return plog_sync(l);
}

struct plog_sync {
	int	nfds;
	int	fds[];	/* segments oldest first, then the directory */
};

int
plog_sync_begin(struct plog *l, int all, struct plog_sync **out)
{
	struct plog_sync *ps;
	int i, n = 0;

	if ((ps = malloc(sizeof(*ps) + ((size_t)l->nsegs + 1) * sizeof(int))) == NULL)
		return -1;
	ps->nfds = 0;
	for (i = 0; i < l->nsegs; i++) {
		if (!all && !l->segs[i].dirty)
			continue;
		if ((ps->fds[n] = fcntl(l->segs[i].log_fd, F_DUPFD_CLOEXEC, 0)) == -1)
			goto fail;
		ps->nfds = ++n;
	}
	if (all || l->dir_dirty) {
		if ((ps->fds[n] = fcntl(l->dir_fd, F_DUPFD_CLOEXEC, 0)) == -1)
			goto fail;
		ps->nfds = ++n;
	}
	/* Taken: appends from now on mark their segment again. */
	for (i = 0; i < l->nsegs; i++)
		l->segs[i].dirty = 0;
	l->dir_dirty = 0;
	*out = ps;
	return 0;
fail:
	plog_sync_end(ps);
	return -1;
}

int
plog_sync_run(struct plog_sync *ps)
{
	int i;

	for (i = 0; i < ps->nfds; i++)
		if (store_io.fdatasync(ps->fds[i]) == -1)
			return -1;
	return 0;
}

void
plog_sync_end(struct plog_sync *ps)
{
	int i, saved = errno;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->nfds; i++)
		close(ps->fds[i]);
	free(ps);
	errno = saved;
}

/*
 * Write sg's batches from pos to its end again, as the file reads them
 * back, through a second descriptor (the log's is O_APPEND, where pwrite
 * appends).  Every batch must pass its CRC-32C and continue the offsets
 * of the one before: a page the kernel lost after a failed writeback is
 * read back from the disk and fails that, and must not be made durable.
 */
static int
seg_rewrite(struct plog *l, struct seg *sg, uint64_t pos, int64_t *expect)
{
	char path[4096];
	uint8_t *buf = NULL, *nb;
	size_t cap = 0, sz;
	int64_t base;
	int fd, saved;

	if (pos >= sg->size)
		return 0;
	if (seg_path(path, sizeof(path), l->dir, sg->base, "log") == -1 ||
	    (fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	while (pos < sg->size) {
		if (sg->size - pos < BATCH_HEADER_SIZE)
			goto bad;
		if (cap < BATCH_HEADER_SIZE) {
			if ((nb = realloc(buf, BATCH_HEADER_SIZE)) == NULL)
				goto fail;
			buf = nb;
			cap = BATCH_HEADER_SIZE;
		}
		if (seg_pread_full(sg->log_fd, buf, BATCH_LOG_OVERHEAD,
		    (off_t)pos) != BATCH_LOG_OVERHEAD)
			goto bad;
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(buf + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > sg->size - pos)
			goto bad;
		if (sz > cap) {
			if ((nb = realloc(buf, sz)) == NULL)
				goto fail;
			buf = nb;
			cap = sz;
		}
		if (seg_pread_full(sg->log_fd, buf, sz, (off_t)pos) != (ssize_t)sz)
			goto bad;
		base = (int64_t)be64_get(buf + BATCH_OFF_BASE_OFFSET);
		if (crc32c(0, buf + BATCH_OFF_ATTRIBUTES, sz - BATCH_OFF_ATTRIBUTES) !=
		    be32_get(buf + BATCH_OFF_CRC) || (*expect >= 0 && base != *expect))
			goto bad;
		if (lseek(fd, (off_t)pos, SEEK_SET) == -1 ||
		    seg_write_all(fd, buf, sz) == -1)
			goto fail;
		*expect = base + (int64_t)be32_get(buf + BATCH_OFF_LAST_DELTA) + 1;
		pos += sz;
	}
	free(buf);
	return close(fd);
bad:
	errno = EIO;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return -1;
}

int
plog_resync(struct plog *l, int64_t offset)
{
	struct plog_slice sl;
	uint64_t pos = 0;
	int64_t expect = -1;
	int i, first = 0;

	if (offset >= l->next_offset)
		return plog_sync(l);
	/* Below the log start: retention took the rest; all of it, then. */
	if (offset >= plog_start_offset(l)) {
		if (plog_read(l, offset, l->next_offset, 1, &sl) == -1)
			return -1;
		while (first < l->nsegs && l->segs[first].log_fd != sl.fd)
			first++;
		if (first == l->nsegs) {
			errno = EIO;
			return -1;
		}
		pos = (uint64_t)sl.pos;
	}
	for (i = first; i < l->nsegs; i++, pos = 0) {
		if (seg_rewrite(l, &l->segs[i], pos, &expect) == -1)
			return -1;
		l->segs[i].dirty = 1;
	}
	l->dir_dirty = 1;
	return plog_sync(l);
}

void
plog_set_txn_floor(struct plog *l, int64_t offset)
{
	l->txn_floor = offset;
}

const char *
plog_dir(const struct plog *l)
{
	return l->dir;
}

int64_t
plog_segment_of(const struct plog *l, int64_t offset)
{
	int i;

	for (i = l->nsegs - 1; i > 0; i--)
		if (l->segs[i].base <= offset)
			break;
	return l->segs[i].base;
}

int
plog_segment_bases(const struct plog *l, int64_t **bases, size_t *n)
{
	int i;

	if ((*bases = calloc((size_t)l->nsegs, sizeof(**bases))) == NULL)
		return -1;
	for (i = 0; i < l->nsegs; i++)
		(*bases)[i] = l->segs[i].base;
	*n = (size_t)l->nsegs;
	return 0;
}

int
plog_retain(struct plog *l, int64_t now_ms, int *deleted)
{
	struct stat st;
	uint64_t total;
	int64_t mtime_ms;
	int n = 0, old, expired;

	total = plog_size_bytes(l);
	while (l->nsegs > 1) {
		old = l->cfg.retention_bytes >= 0 &&
		    total > (uint64_t)l->cfg.retention_bytes;
		expired = 0;
		if (!old && l->cfg.retention_ms >= 0) {
			/*
			 * Its newest record's time, as the time index keeps
			 * it; the file time only for a segment whose batches
			 * carry no timestamps.
			 */
			mtime_ms = l->segs[0].max_ts;
			if (mtime_ms < 0) {
				if (fstat(l->segs[0].log_fd, &st) == -1)
					return -1;
				mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 +
				    st.st_mtim.tv_nsec / 1000000;
			}
			expired = now_ms - mtime_ms > l->cfg.retention_ms;
		}
		if (!old && !expired)
			break;
		/* Never the segment of an open transaction's first offset. */
		if (l->segs[1].base > l->txn_floor)
			break;
		total -= l->segs[0].size;
		seg_remove(l, &l->segs[0]);
		memmove(&l->segs[0], &l->segs[1],
		    (size_t)(l->nsegs - 1) * sizeof(l->segs[0]));
		l->nsegs--;
		n++;
	}
	if (deleted != NULL)
		*deleted = n;
	return 0;
}

int
plog_read(struct plog *l, int64_t offset, int64_t visible_end,
    size_t max_bytes, struct plog_slice *s)
{
	struct seg_ref sr;
	int lo, hi, mid, r;

	if (visible_end > l->next_offset)
		visible_end = l->next_offset;
	if (offset < plog_start_offset(l) || offset > visible_end) {
		errno = ERANGE;
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->first_offset = s->next_offset = offset;
	if (offset == visible_end)
		return 0;
	/* The last segment whose base is at or below offset. */
	lo = 0;
	hi = l->nsegs;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (l->segs[mid].base <= offset)
			lo = mid;
		else
			hi = mid;
	}
	for (;;) {
		sr.base = l->segs[lo].base;
		sr.log_fd = l->segs[lo].log_fd;
		sr.idx_fd = l->segs[lo].idx_fd;
		sr.log_size = l->segs[lo].size;
		sr.compacted = l->compacted;
		if ((r = seg_read(&sr, offset, visible_end, max_bytes, s)) == -1) {
			if (errno == EBADMSG && s->next_offset == -1)
				s->next_offset = lo + 1 < l->nsegs ?
				    l->segs[lo + 1].base : visible_end;
			return -1;
		}
		if (r == 1)
			return 0;
		/* Compaction left no batch at or past offset here: the next. */
		if (!l->compacted || lo + 1 >= l->nsegs) {
			errno = EIO;
			return -1;
		}
		offset = l->segs[++lo].base;
		s->first_offset = s->next_offset = offset;
	}
}

void
plog_set_config(struct plog *l, const struct plog_config *cfg)
{
	if (cfg->segment_bytes == 0 || cfg->index_interval_bytes == 0)
		return;
	l->cfg.segment_bytes = cfg->segment_bytes;
	l->cfg.index_interval_bytes = cfg->index_interval_bytes;
	l->cfg.retention_bytes = cfg->retention_bytes;
	l->cfg.retention_ms = cfg->retention_ms;
	l->cfg.segment_ms = cfg->segment_ms;
}
