/*
 * The read-only view of a partition log, for processes other than the
 * writer (workers serving FETCH).  It caches one read-only descriptor per
 * segment log and index, and learns about segment changes lazily: the
 * directory is rescanned when an offset lies past the data of the newest
 * segment it knows (the writer rolled) or when the segment it would read
 * has been unlinked (retention).  Each read looks at the files as they
 * are now (fstat for the size, pread for index entries), so appends by
 * the writer need no signal to the reader.
 *
 * A reader given a cache window (plog_reader_set_cache_window) lets the
 * page cache go behind a consumer that reads older bytes, as the writer
 * does behind the end of the log: once a read lies more than the window
 * before the end, what lies READER_DROP_LAG and more before it is
 * dropped (store_io.dropcache), at least READER_DROP_STEP at a time.
 * Such a consumer, catching up or replaying, thus reuses a few megabytes
 * of memory instead of filling the cache with old bytes and pushing out
 * the new ones that consumers at the end read.  The lag leaves alone
 * what is still in flight (sendfile hands the socket references to the
 * pages) and what other consumers close behind are about to read.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/compress.h"
#include "store/io.h"
#include "store/plog.h"
#include "store/segment.h"
#include "store/timeindex.h"
#include "store/txnindex.h"

struct rseg {
	int64_t		base;
	int		log_fd;
	int		idx_fd;		/* -1 until the index file exists */
	int		tidx_fd;	/* -1 until a time lookup opens it */
	uint64_t	drop_pos;	/* log bytes let go from the page cache */
};

/* Bytes kept cached behind a read outside the window, and the least dropped. */
#define READER_DROP_LAG		(8U << 20)
#define READER_DROP_STEP	(4U << 20)

/* Corrupt ranges already reported, so each is logged once per reader. */
#define READER_SEEN_MAX	8

struct plog_reader {
	char		*dir;
	struct rseg	*segs;
	size_t		 nsegs;
	int64_t		 seen[READER_SEEN_MAX];	/* first offsets; -1 free */
	size_t		 seen_next;		/* slot to reuse next */
	uint64_t	 cache_window;		/* 0: never drop */
	uint64_t	 gen;			/* rescans so far: segs moved */
	int		 compacted;		/* seg_dir_compacted() at the last rescan */
};

void
plog_reader_set_cache_window(struct plog_reader *r, uint64_t bytes)
{
	r->cache_window = bytes;
}

/*
 * After a read of s from segment lo (of size seg_size): when it lies more
 * than the window before the end of the log, drop the segment's pages
 * READER_DROP_LAG and more before it (the rule at the top).  Advice only.
 */
static void
reader_drop_behind(struct plog_reader *r, size_t lo, uint64_t seg_size,
    const struct plog_slice *s)
{
	struct rseg *rs = &r->segs[lo];
	struct stat st;
	uint64_t end = (uint64_t)s->pos + s->len, after, to;

	if (r->cache_window == 0 || end > seg_size || (uint64_t)s->pos <
	    READER_DROP_LAG + READER_DROP_STEP)
		return;
	after = seg_size - end;
	/* Newer segments count too: the newest one's size, at least. */
	if (lo + 1 < r->nsegs && after <= r->cache_window &&
	    fstat(r->segs[r->nsegs - 1].log_fd, &st) == 0)
		after += (uint64_t)st.st_size;
	if (after <= r->cache_window)
		return;
	to = (uint64_t)s->pos - READER_DROP_LAG;
	to -= to % 4096;
	if (to < rs->drop_pos || to - rs->drop_pos < READER_DROP_STEP)
		return;
	(void)store_io.dropcache(rs->log_fd, (off_t)rs->drop_pos,
	    (off_t)(to - rs->drop_pos));
	rs->drop_pos = to;
}

/* 1 when the corrupt range starting at off was not reported before. */
static int
reader_note_corrupt(struct plog_reader *r, int64_t off)
{
	size_t i;

	for (i = 0; i < READER_SEEN_MAX; i++)
		if (r->seen[i] == off)
			return 0;
	r->seen[r->seen_next] = off;
	r->seen_next = (r->seen_next + 1) % READER_SEEN_MAX;
	return 1;
}

static void
rseg_close(struct rseg *rs)
{
	if (rs->log_fd != -1)
		close(rs->log_fd);
	if (rs->idx_fd != -1)
		close(rs->idx_fd);
	if (rs->tidx_fd != -1)
		close(rs->tidx_fd);
	rs->log_fd = rs->idx_fd = rs->tidx_fd = -1;
}

/* Whether the file behind fd has been unlinked. */
static int
fd_unlinked(int fd)
{
	struct stat st;

	return fstat(fd, &st) == -1 || st.st_nlink == 0;
}

static int
rseg_open_index(const struct plog_reader *r, struct rseg *rs)
{
	char path[4096];

	if (seg_path(path, sizeof(path), r->dir, rs->base, "index") == -1)
		return -1;
	rs->idx_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (rs->idx_fd == -1)
		return -1;
	/*
	 * The cleaner's swap renames a segment's index before its log
	 * (store/clean.h): a log still linked after its index was opened is
	 * the one that index describes.  Otherwise read without an index;
	 * the next read finds the log unlinked and rescans.
	 */
	if (fd_unlinked(rs->log_fd)) {
		close(rs->idx_fd);
		rs->idx_fd = -1;
		return -1;
	}
	return 0;
}

/* Re-read the directory; keep descriptors of segments still there. */
static int
reader_rescan(struct plog_reader *r)
{
	char path[4096];
	int64_t *bases;
	struct rseg *nv;
	size_t n, i, j, cnt = 0;

	if (seg_list(r->dir, &bases, &n) == -1)
		return -1;
	r->compacted = seg_dir_compacted(r->dir);
	if ((nv = calloc(n > 0 ? n : 1, sizeof(*nv))) == NULL) {
		free(bases);
		return -1;
	}
	for (i = 0, j = 0; i < n; i++) {
		struct rseg *rs = &nv[cnt];

		rs->base = bases[i];
		rs->log_fd = rs->idx_fd = rs->tidx_fd = -1;
		/* Both lists are sorted: walk the old one alongside. */
		while (j < r->nsegs && r->segs[j].base < bases[i])
			j++;
		if (j < r->nsegs && r->segs[j].base == bases[i] &&
		    !fd_unlinked(r->segs[j].log_fd)) {
			*rs = r->segs[j];
			r->segs[j].log_fd = r->segs[j].idx_fd = -1;
			r->segs[j].tidx_fd = -1;
		} else {
			if (seg_path(path, sizeof(path), r->dir, bases[i],
			    "log") == -1)
				continue;
			if ((rs->log_fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
				continue;	/* deleted since we listed it */
			rseg_open_index(r, rs);
		}
		cnt++;
	}
	for (j = 0; j < r->nsegs; j++)
		rseg_close(&r->segs[j]);
	free(r->segs);
	free(bases);
	r->segs = nv;
	r->nsegs = cnt;
	r->gen++;
	return 0;
}

int
plog_reader_open(struct plog_reader **rp, const char *dir)
{
	struct plog_reader *r;
	size_t i;
	int saved;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return -1;
	for (i = 0; i < READER_SEEN_MAX; i++)
		r->seen[i] = -1;
	if ((r->dir = strdup(dir)) == NULL || reader_rescan(r) == -1) {
		saved = errno;
		plog_reader_close(r);
		errno = saved;
		return -1;
	}
	*rp = r;
	return 0;
}

void
plog_reader_close(struct plog_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nsegs; i++)
		rseg_close(&r->segs[i]);
	free(r->segs);
	free(r->dir);
	free(r);
}

int
plog_reader_read(struct plog_reader *r, int64_t offset, int64_t visible_end,
    size_t max_bytes, struct plog_slice *s)
{
	struct seg_ref sr;
	struct stat st;
	struct rseg *rs;
	size_t lo = 0, hi, mid;
	int attempt, rc;

	memset(&st, 0, sizeof(st));
	if (offset > visible_end || offset < 0) {
		errno = ERANGE;
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->first_offset = s->next_offset = offset;

	/* At most one rescan: a second miss is not a stale cache. */
	for (attempt = 0; attempt < 2; attempt++) {
		if (attempt > 0 && reader_rescan(r) == -1)
			return -1;
		if (r->nsegs == 0) {
			if (attempt == 0)
				continue;
			if (offset == visible_end)
				return 0;
			errno = ERANGE;
			return -1;
		}
		if (offset < r->segs[0].base) {
			/* The start only moves up, so no rescan can help. */
			if (attempt == 0 && fd_unlinked(r->segs[0].log_fd))
				continue;
			errno = ERANGE;
			return -1;
		}
		lo = 0;
		hi = r->nsegs;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (r->segs[mid].base <= offset)
				lo = mid;
			else
				hi = mid;
		}
		rs = &r->segs[lo];
		if (fstat(rs->log_fd, &st) == -1)
			return -1;
		if (st.st_nlink == 0) {
			if (attempt == 0)
				continue;
			errno = ERANGE;		/* retention took it just now */
			return -1;
		}
		if (offset == visible_end)
			return 0;
		if (rs->idx_fd == -1)
			rseg_open_index(r, rs);
		sr.base = rs->base;
		sr.log_fd = rs->log_fd;
		sr.idx_fd = rs->idx_fd;
		sr.log_size = (uint64_t)st.st_size;
		sr.compacted = r->compacted;
		if ((rc = seg_read(&sr, offset, visible_end, max_bytes, s)) == -1) {
			if (errno != EBADMSG)
				return -1;
			/* Nothing valid after it in this segment: the next one. */
			if (s->next_offset == -1)
				s->next_offset = lo + 1 < r->nsegs ?
				    r->segs[lo + 1].base : visible_end;
			s->corrupt_new = reader_note_corrupt(r, s->first_offset);
			errno = EBADMSG;
			return -1;
		}
		if (rc == 1) {
			if (s->len > 0)
				reader_drop_behind(r, lo, sr.log_size, s);
			return 0;
		}
		/*
		 * Compaction left no batch at or past offset in this segment:
		 * a fetch across the gap goes on at the next one.
		 */
		if (r->compacted && lo + 1 < r->nsegs &&
		    r->segs[lo + 1].base <= visible_end) {
			offset = r->segs[lo + 1].base;
			s->first_offset = s->next_offset = offset;
			attempt = -1;
			continue;
		}
	}
	/*
	 * Visible, yet in no segment: the file holding it was cut short.
	 * Report it as damage up to where data resumes, never as "nothing
	 * yet", which would have the consumer wait for ever.
	 */
	s->fd = -1;
	s->len = 0;
	s->first_offset = offset;
	s->next_offset = lo + 1 < r->nsegs ? r->segs[lo + 1].base : visible_end;
	s->segment = r->segs[lo].base;
	s->pos = st.st_size;
	s->corrupt_new = reader_note_corrupt(r, offset);
	errno = EBADMSG;
	return -1;
}

/* Open rs's time index if it is not yet; 0 or -1 (no such file). */
static int
rseg_open_timeindex(const struct plog_reader *r, struct rseg *rs)
{
	char path[4096];

	if (rs->tidx_fd != -1)
		return 0;
	if (seg_path(path, sizeof(path), r->dir, rs->base, "timeindex") == -1)
		return -1;
	rs->tidx_fd = open(path, O_RDONLY | O_CLOEXEC);
	return rs->tidx_fd == -1 ? -1 : 0;
}

/*
 * The max timestamp of closed segment rs: the last entry of its time
 * index, or (no index, or a torn one: a broker that has not recovered it
 * yet) a scan of its batch headers.  Otherwise the index is trusted: the
 * writer's start-up recovery made it agree with the log.  0 or -1.
 */
static int
rseg_max_ts(const struct plog_reader *r, struct rseg *rs, struct hdr_cursor *c,
    int64_t *max)
{
	struct tidx_entry e;
	struct batch_header h;
	struct stat st;
	uint64_t pos = 0;
	int64_t at = rs->base;
	int rc;

	*max = TIDX_NONE;
	/* A torn file lost its last entry, the max: scan instead. */
	if (rseg_open_timeindex(r, rs) == 0 && fstat(rs->tidx_fd, &st) == 0 &&
	    st.st_size % TIDX_ENTRY == 0 &&
	    (rc = tidx_last(rs->tidx_fd, &e)) != 0) {
		if (rc == -1)
			return -1;
		*max = e.ts;
		return 0;
	}
	if (fstat(rs->log_fd, &st) == -1)
		return -1;
	hdr_cursor_init(c, rs->log_fd, (uint64_t)st.st_size);
	for (;;) {
		if ((rc = hdr_cursor_get(c, pos, &h)) == -1)
			return -1;
		if (rc == 0 || h.base_offset != at)
			return 0;
		if (h.max_timestamp > *max)
			*max = h.max_timestamp;
		at = h.base_offset + h.last_offset_delta + 1;
		pos += batch_total_size(&h);
	}
}

/*
 * The batch of len bytes at pos of fd has maxTimestamp >= ts: the offset
 * of its first record at or after from whose timestamp is >= ts.  A
 * LogAppendTime batch's records all carry its maxTimestamp; a compressed
 * one is inflated (never past COMPRESS_LIMIT_MAX).  A batch that cannot
 * be read record by record answers with its base offset (from, if that
 * is later).  1 found, 0 when no record at or after from reaches ts (the
 * batch holds from), -1 (I/O).
 */
static int
batch_first_at(int fd, off_t pos, size_t len, const struct batch_header *bh,
    int64_t ts, int64_t from, int64_t *off, int64_t *rts)
{
	struct compress_buf z;
	struct batch_iter it;
	struct record rec;
	uint8_t *buf;
	ssize_t got;
	int rc, found = 1;

	*off = bh->base_offset > from ? bh->base_offset : from;
	*rts = bh->max_timestamp;
	if (bh->attributes & BATCH_ATTR_LOG_APPEND_TIME)
		return 1;
	if ((buf = malloc(len)) == NULL)
		return -1;
	if ((got = seg_pread_full(fd, buf, len, pos)) != (ssize_t)len) {
		free(buf);
		return -1;
	}
	compress_buf_init(&z, COMPRESS_LIMIT_MAX);
	if (batch_validate_z(buf, len, NULL, &z) == BATCH_OK &&
	    batch_iter_init_z(&it, buf, len, &z) == BATCH_OK) {
		found = 0;
		while ((rc = batch_iter_next(&it, &rec)) == 1) {
			if (rec.offset >= from && rec.timestamp >= ts) {
				*off = rec.offset;
				*rts = rec.timestamp;
				found = 1;
				break;
			}
		}
	}
	compress_buf_free(&z);
	free(buf);
	return found;
}

/*
 * Binary search over the segments by their max timestamps (kept as a
 * running maximum, so the search is exact even when CreateTime goes back
 * and forth between segments), then over that segment's time index, then
 * a forward scan of batch headers from the entry before the one that
 * reaches ts: at most about index_interval_bytes of headers.  The active
 * (last) segment's max is not in its index yet; it is the answer when no
 * closed segment reaches ts.
 */
/*
 * The segments a lookup from offset first looks at: [*k0, *n), the
 * first holding first, the last starting below visible_end.  0 when
 * there are none.
 */
static int
reader_span(const struct plog_reader *r, int64_t first, int64_t visible_end,
    size_t *k0, size_t *n)
{
	for (*n = 0; *n < r->nsegs && r->segs[*n].base < visible_end; (*n)++)
		;
	for (*k0 = 0; *k0 + 1 < *n && r->segs[*k0 + 1].base <= first; (*k0)++)
		;
	return *n > 0 && first < visible_end;
}

/* plog_reader_time_lookup, for records at or after first only. */
static int
time_lookup(struct plog_reader *r, int64_t ts_ms, int64_t first,
    int64_t visible_end, int64_t *offset, int64_t *found_ts)
{
	struct hdr_cursor *c;
	struct tidx_entry prev, e;
	struct batch_header h;
	struct plog_slice sl;
	int64_t *pm = NULL, m, from;
	size_t n, i, k0, lo, hi, mid, done;
	int rc;

	*offset = -1;
	*found_ts = -1;
	if (reader_rescan(r) == -1)
		return -1;
	if (!reader_span(r, first, visible_end, &k0, &n))
		return 0;
	if ((c = malloc(sizeof(*c))) == NULL ||
	    (pm = reallocarray(NULL, n, sizeof(*pm))) == NULL)
		goto fail;
	m = TIDX_NONE;
	for (i = k0; i + 1 < n; i++) {
		if (rseg_max_ts(r, &r->segs[i], c, &pm[i]) == -1)
			goto fail;
		if (pm[i] < m)
			pm[i] = m;
		m = pm[i];
	}
	pm[n - 1] = INT64_MAX;
	lo = k0;
	hi = n - 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pm[mid] >= ts_ms)
			hi = mid;
		else
			lo = mid + 1;
	}
	from = r->segs[lo].base;
	if (rseg_open_timeindex(r, &r->segs[lo]) == 0) {
		if (tidx_find(r->segs[lo].tidx_fd, ts_ms, &prev, &e) == -1)
			goto fail;
		from += prev.rel;
	}
	if (from < first)
		from = first;
	/* Batch headers from there; reads step over damage. */
	while (from < visible_end) {
		if (plog_reader_read(r, from, visible_end, SEG_CURSOR_WINDOW,
		    &sl) == -1) {
			if (errno == EBADMSG && sl.next_offset > from) {
				from = sl.next_offset;
				continue;
			}
			if (errno == ERANGE)
				break;		/* retention took it meanwhile */
			goto fail;
		}
		if (sl.len == 0)
			break;
		hdr_cursor_init(c, sl.fd, (uint64_t)sl.pos + sl.len);
		for (done = 0; done < sl.len; done += batch_total_size(&h)) {
			if ((rc = hdr_cursor_get(c, (uint64_t)sl.pos + done,
			    &h)) == -1)
				goto fail;
			if (rc == 0)
				break;
			if (h.max_timestamp < ts_ms ||
			    h.base_offset + h.last_offset_delta < from)
				continue;
			if ((rc = batch_first_at(sl.fd, sl.pos + (off_t)done,
			    batch_total_size(&h), &h, ts_ms, first, offset,
			    found_ts)) == -1)
				goto fail;
			if (rc == 0) {
				*offset = *found_ts = -1;
				continue;	/* only records below first reach it */
			}
			if (*offset < from)
				*offset = from;
			free(pm);
			free(c);
			return 0;
		}
		if (sl.next_offset <= from)
			break;		/* no progress: never loop */
		from = sl.next_offset;
	}
	free(pm);
	free(c);
	return 0;
fail:
	free(pm);
	free(c);
	return -1;
}

int
plog_reader_time_lookup(struct plog_reader *r, int64_t ts_ms,
    int64_t visible_end, int64_t *offset, int64_t *found_ts)
{
	return time_lookup(r, ts_ms, 0, visible_end, offset, found_ts);
}

/*
 * The largest timestamp of the records of the batch of len bytes at pos
 * of fd that are at or after from (the batch holds from): a compressed
 * batch is inflated within COMPRESS_LIMIT_MAX; one that cannot be read
 * record by record counts with its maxTimestamp.  0 or -1 (I/O).
 */
static int
batch_max_from(int fd, off_t pos, size_t len, const struct batch_header *bh,
    int64_t from, int64_t *max)
{
	struct compress_buf z;
	struct batch_iter it;
	struct record rec;
	uint8_t *buf;
	int64_t m = TIDX_NONE;
	int ok = 0;

	if (bh->attributes & BATCH_ATTR_LOG_APPEND_TIME) {
		*max = bh->max_timestamp;
		return 0;
	}
	if ((buf = malloc(len)) == NULL)
		return -1;
	if (seg_pread_full(fd, buf, len, pos) != (ssize_t)len) {
		free(buf);
		return -1;
	}
	compress_buf_init(&z, COMPRESS_LIMIT_MAX);
	if (batch_validate_z(buf, len, NULL, &z) == BATCH_OK &&
	    batch_iter_init_z(&it, buf, len, &z) == BATCH_OK) {
		ok = 1;
		while (batch_iter_next(&it, &rec) == 1)
			if (rec.offset >= from && rec.timestamp > m)
				m = rec.timestamp;
	}
	compress_buf_free(&z);
	free(buf);
	*max = ok ? m : bh->max_timestamp;
	return 0;
}

/*
 * Raise *max to the largest timestamp of the records in [from, end)
 * (end an offset, at most the visible end), scanning batch headers from
 * the batch holding at (<= from): reads step over damage.  0 or -1.
 */
static int
scan_max(struct plog_reader *r, struct hdr_cursor *c, int64_t at,
    int64_t from, int64_t end, int64_t *max)
{
	struct batch_header h;
	struct plog_slice sl;
	size_t done;
	int64_t m;
	int rc;

	while (at < end) {
		if (plog_reader_read(r, at, end, SEG_CURSOR_WINDOW, &sl) == -1) {
			if (errno == EBADMSG && sl.next_offset > at) {
				at = sl.next_offset;
				continue;
			}
			if (errno == ERANGE)
				return 0;	/* retention took it meanwhile */
			return -1;
		}
		if (sl.len == 0)
			return 0;
		hdr_cursor_init(c, sl.fd, (uint64_t)sl.pos + sl.len);
		for (done = 0; done < sl.len; done += batch_total_size(&h)) {
			if ((rc = hdr_cursor_get(c, (uint64_t)sl.pos + done,
			    &h)) == -1)
				return -1;
			if (rc == 0)
				break;
			if (h.base_offset + h.last_offset_delta < from ||
			    h.base_offset >= end)
				continue;
			m = h.max_timestamp;
			if (h.base_offset < from && batch_max_from(sl.fd,
			    sl.pos + (off_t)done, batch_total_size(&h), &h, from,
			    &m) == -1)
				return -1;
			if (m > *max)
				*max = m;
		}
		if (sl.next_offset <= at)
			return 0;	/* no progress: never loop */
		at = sl.next_offset;
	}
	return 0;
}

/*
 * The largest timestamp of the visible records of the last segment of
 * the span, rs, from offset first (<= rs's base) on: its time index up
 * to the last entry of a visible batch, then the batch headers from that
 * entry's batch on (about index_interval_bytes of them).
 */
static int
tail_max(struct plog_reader *r, struct rseg *rs, struct hdr_cursor *c,
    int64_t first, int64_t visible_end, int64_t *max)
{
	struct tidx_entry e;
	int64_t at = rs->base;
	int rc;

	if (rseg_open_timeindex(r, rs) == 0 && visible_end - rs->base <=
	    (int64_t)UINT32_MAX) {
		if ((rc = tidx_last_below(rs->tidx_fd,
		    (uint32_t)(visible_end - rs->base), &e)) == -1)
			return -1;
		if (rc == 1) {
			if (e.ts > *max)
				*max = e.ts;
			at = rs->base + e.rel;
		}
	}
	return scan_max(r, c, at, first, visible_end, max);
}

/*
 * Kafka's MAX_TIMESTAMP: the largest timestamp M of the records in
 * [first, visible_end), then the first of them whose timestamp is M
 * (time_lookup for M, since none is above it).  M comes from the time
 * indexes: a closed segment's last entry is its max (store/timeindex.h),
 * the last segment's index is followed by a short scan of the batches it
 * does not cover yet.  A segment that first cuts (records below the log
 * start linger until their segment goes) is read batch by batch from
 * first to its end, and only when its max, which may be a record below
 * first's, is above everything later: rare (a DeleteRecords inside a
 * segment whose older records carry the newest times).  M below 0 (no
 * record has a timestamp) answers as an empty log.
 */
int
plog_reader_max_time(struct plog_reader *r, int64_t first,
    int64_t visible_end, int64_t *offset, int64_t *found_ts)
{
	struct hdr_cursor *c;
	int64_t m, ms, end;
	uint64_t gen;
	size_t n, i, k0;
	int rc = -1, tries = 0;

	*offset = -1;
	*found_ts = -1;
	if (first < 0)
		first = 0;
	if ((c = malloc(sizeof(*c))) == NULL)
		return -1;
again:
	/* A rescan (the segments changed under a read) moves r->segs. */
	if (tries++ == 4) {
		errno = EAGAIN;
		goto out;
	}
	if (reader_rescan(r) == -1)
		goto out;
	gen = r->gen;
	if (!reader_span(r, first, visible_end, &k0, &n)) {
		rc = 0;
		goto out;
	}
	m = TIDX_NONE;
	for (i = k0 + 1; i + 1 < n; i++) {
		if (rseg_max_ts(r, &r->segs[i], c, &ms) == -1)
			goto out;
		if (ms > m)
			m = ms;
	}
	if (n - 1 > k0 && tail_max(r, &r->segs[n - 1], c, first, visible_end,
	    &m) == -1)
		goto out;
	if (r->gen != gen)
		goto again;
	/* The segment holding first; its max may be of records below it. */
	end = k0 + 1 < n ? r->segs[k0 + 1].base : visible_end;
	ms = TIDX_NONE;
	if ((k0 + 1 == n ? tail_max(r, &r->segs[k0], c, r->segs[k0].base,
	    visible_end, &ms) : rseg_max_ts(r, &r->segs[k0], c, &ms)) == -1)
		goto out;
	if (r->gen != gen)
		goto again;
	if (ms > m && r->segs[k0].base >= first)
		m = ms;
	else if (ms > m) {
		/* Is the segment's max at or after first?  Else read it. */
		if (time_lookup(r, ms, first, end, offset, found_ts) == -1)
			goto out;
		if (*offset != -1) {
			rc = 0;
			goto out;
		}
		if (scan_max(r, c, first, first, end, &m) == -1)
			goto out;
	}
	rc = 0;
	if (m >= 0)
		rc = time_lookup(r, m, first, visible_end, offset, found_ts);
out:
	free(c);
	return rc;
}

int
plog_reader_offset_for_time(struct plog_reader *r, int64_t ts_ms,
    int64_t visible_end, int64_t *offset)
{
	int64_t found;

	if (plog_reader_time_lookup(r, ts_ms, visible_end, offset, &found) == -1)
		return -1;
	if (*offset == -1)
		*offset = visible_end;
	return 0;
}

/*
 * One look at the directory as it is (an index of a segment rolled
 * since counts): the bases of the aborted-transaction indexes from the
 * segment holding start on (malloc'ed, ascending).  0 or -1.
 */
static int
aborted_bases(const char *dir, int64_t start, int64_t **out, size_t *n)
{
	char name[32];
	struct dirent *de;
	int64_t base, first = INT64_MIN, *v = NULL, *nv;
	size_t cap = 0, len, i, k;
	DIR *d;

	*out = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len == 29 && strcmp(de->d_name + 20, ".txnindex") == 0) {
			/* "<20 digits>.txnindex" read as the log's name would be. */
			memcpy(name, de->d_name, 20);
			memcpy(name + 20, ".log", 5);
			if (!seg_parse_name(name, &base))
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 16;
				if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL) {
					free(v);
					closedir(d);
					return -1;
				}
				v = nv;
			}
			v[(*n)++] = base;
		} else if (seg_parse_name(de->d_name, &base) && base <= start &&
		    base > first)
			first = base;	/* the segment holding start */
	}
	closedir(d);
	/* Ascending, and none of a segment before start's. */
	for (i = 1; i < *n; i++)
		for (k = i; k > 0 && v[k - 1] > v[k]; k--) {
			base = v[k];
			v[k] = v[k - 1];
			v[k - 1] = base;
		}
	for (i = 0; i < *n && v[i] < first; i++)
		;
	if (i > 0 && i < *n)
		memmove(v, v + i, (*n - i) * sizeof(*v));
	*n -= i;
	*out = v;
	return 0;
}

int
plog_reader_aborted(struct plog_reader *r, int64_t start, int64_t upper,
    struct txn_aborted **out, size_t *n)
{
	int64_t *bases = NULL;
	size_t nb = 0, cap = 0;
	int rc, err;

	*out = NULL;
	*n = 0;
	if (aborted_bases(r->dir, start, &bases, &nb) == -1)
		return -1;
	if (nb == 0) {
		free(bases);
		return 0;
	}
	rc = txnindex_collect(r->dir, bases, nb, start, upper, out, n, &cap);
	err = errno;
	free(bases);
	if (rc == -1) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	errno = err;
	return rc;
}
