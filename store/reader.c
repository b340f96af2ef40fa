/*
 * The read-only view of a partition log, for processes other than the
 * writer (workers serving FETCH).  It caches one read-only descriptor per
 * segment log and index, and learns about segment changes lazily: the
 * directory is rescanned when an offset lies past the data of the newest
 * segment it knows (the writer rolled) or when the segment it would read
 * has been unlinked (retention).  Each read looks at the files as they
 * are now (fstat for the size, pread for index entries), so appends by
 * the writer need no signal to the reader.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/plog.h"
#include "store/segment.h"

struct rseg {
	int64_t		base;
	int		log_fd;
	int		idx_fd;		/* -1 until the index file exists */
};

/* Corrupt ranges already reported, so each is logged once per reader. */
#define READER_SEEN_MAX	8

struct plog_reader {
	char		*dir;
	struct rseg	*segs;
	size_t		 nsegs;
	int64_t		 seen[READER_SEEN_MAX];	/* first offsets; -1 free */
	size_t		 seen_next;		/* slot to reuse next */
};

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
	rs->log_fd = rs->idx_fd = -1;
}

static int
rseg_open_index(const struct plog_reader *r, struct rseg *rs)
{
	char path[4096];

	if (seg_path(path, sizeof(path), r->dir, rs->base, "index") == -1)
		return -1;
	rs->idx_fd = open(path, O_RDONLY | O_CLOEXEC);
	return rs->idx_fd == -1 ? -1 : 0;
}

/* Whether the file behind fd has been unlinked. */
static int
fd_unlinked(int fd)
{
	struct stat st;

	return fstat(fd, &st) == -1 || st.st_nlink == 0;
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
	if ((nv = calloc(n > 0 ? n : 1, sizeof(*nv))) == NULL) {
		free(bases);
		return -1;
	}
	for (i = 0, j = 0; i < n; i++) {
		struct rseg *rs = &nv[cnt];

		rs->base = bases[i];
		rs->log_fd = rs->idx_fd = -1;
		/* Both lists are sorted: walk the old one alongside. */
		while (j < r->nsegs && r->segs[j].base < bases[i])
			j++;
		if (j < r->nsegs && r->segs[j].base == bases[i] &&
		    !fd_unlinked(r->segs[j].log_fd)) {
			*rs = r->segs[j];
			r->segs[j].log_fd = r->segs[j].idx_fd = -1;
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
		if (rc == 1)
			return 0;
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

/*
 * A forward scan of batch headers, oldest segment first.  A segment whose
 * headers stop continuing the offsets (damage) is left at that point and
 * the search goes on with the next one; what the damage hides cannot be
 * the answer anyway, it cannot be read.
 */
int
plog_reader_offset_for_time(struct plog_reader *r, int64_t ts_ms,
    int64_t visible_end, int64_t *offset)
{
	struct hdr_cursor *c;
	struct batch_header h;
	struct stat st;
	uint64_t pos;
	int64_t at;
	size_t i;
	int rc;

	*offset = visible_end;
	if (reader_rescan(r) == -1)
		return -1;
	if ((c = malloc(sizeof(*c))) == NULL)
		return -1;
	for (i = 0; i < r->nsegs; i++) {
		if (r->segs[i].base >= visible_end)
			break;
		if (fstat(r->segs[i].log_fd, &st) == -1)
			goto fail;
		hdr_cursor_init(c, r->segs[i].log_fd, (uint64_t)st.st_size);
		pos = 0;
		at = r->segs[i].base;
		while (at < visible_end) {
			if ((rc = hdr_cursor_get(c, pos, &h)) == -1)
				goto fail;
			if (rc == 0 || h.base_offset != at ||
			    h.base_offset + h.last_offset_delta >= visible_end)
				break;
			if (h.max_timestamp >= ts_ms) {
				*offset = h.base_offset;
				free(c);
				return 0;
			}
			at = h.base_offset + h.last_offset_delta + 1;
			pos += batch_total_size(&h);
		}
	}
	free(c);
	return 0;
fail:
	free(c);
	return -1;
}
