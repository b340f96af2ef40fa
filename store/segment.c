/*
 * Segment files shared by the writer's log and the readers: naming, the
 * sparse index lookup and the forward scan over batch headers.
 *
 * A read never trusts what it finds: an index entry must point at a batch
 * whose baseOffset matches it (else the scan starts from the beginning of
 * the segment), and every header on the way must continue the offsets of
 * the one before and end inside the bytes the caller says exist.  The
 * writer may be appending to the same file while a reader scans it; only
 * batches that end at or before the visible offset are ever returned, and
 * those were wholly written before that offset was published.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "store/io.h"
#include "store/segment.h"

int
seg_path(char *buf, size_t size, const char *dir, int64_t base, const char *ext)
{
	int n;

	n = snprintf(buf, size, "%s/%020lld.%s", dir, (long long)base, ext);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
seg_parse_name(const char *name, int64_t *base)
{
	uint64_t v = 0;
	int i;

	if (strlen(name) != 24 || strcmp(name + 20, ".log") != 0)
		return 0;
	for (i = 0; i < 20; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		if (v > ((uint64_t)INT64_MAX - (uint64_t)(name[i] - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(name[i] - '0');
	}
	*base = (int64_t)v;
	return 1;
}

static int
base_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int
seg_dir_compacted(const char *dir)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/cleaner-checkpoint", dir);

	return n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0;
}

int
seg_list(const char *dir, int64_t **bases, size_t *n)
{
	DIR *d;
	struct dirent *de;
	int64_t *v = NULL, *nv, base;
	size_t cnt = 0, cap = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (!seg_parse_name(de->d_name, &base))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				goto fail;
			v = nv;
		}
		v[cnt++] = base;
	}
	if (errno != 0)
		goto fail;
	closedir(d);
	if (cnt > 1)
		qsort(v, cnt, sizeof(*v), base_cmp);
	*bases = v;
	*n = cnt;
	return 0;
fail:
	{
		int saved = errno;

		closedir(d);
		free(v);
		errno = saved;
	}
	return -1;
}

int
seg_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = store_io.write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			/* No progress and no error: treat as a full disk. */
			errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t
seg_pread_full(int fd, void *buf, size_t len, off_t pos)
{
	uint8_t *p = buf;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(fd, p + got, len - got, pos + (off_t)got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

void
hdr_cursor_init(struct hdr_cursor *c, int fd, uint64_t fsize)
{
	c->fd = fd;
	c->fsize = fsize;
	c->win_pos = 0;
	c->win_len = 0;
}

int
hdr_cursor_get(struct hdr_cursor *c, uint64_t pos, struct batch_header *h)
{
	size_t want;
	ssize_t n;

	if (pos > c->fsize || c->fsize - pos < BATCH_HEADER_SIZE)
		return 0;
	if (pos < c->win_pos || pos + BATCH_HEADER_SIZE > c->win_pos + c->win_len) {
		want = sizeof(c->win);
		if (c->fsize - pos < want)
			want = (size_t)(c->fsize - pos);
		n = seg_pread_full(c->fd, c->win, want, (off_t)pos);
		if (n < 0)
			return -1;
		c->win_pos = pos;
		c->win_len = (size_t)n;
		if ((size_t)n < BATCH_HEADER_SIZE)
			return 0;	/* the file is shorter than we were told */
	}
	if (batch_parse_header(c->win + (pos - c->win_pos), BATCH_HEADER_SIZE,
	    h) != BATCH_OK)
		return 0;
	if (h->last_offset_delta < 0)
		return 0;
	if (batch_total_size(h) > c->fsize - pos)
		return 0;
	return 1;
}

int
seg_batch_crc_ok(int fd, uint64_t pos, size_t len, uint8_t **buf, size_t *cap)
{
	uint8_t *nb;
	ssize_t got;

	if (len > *cap) {
		if ((nb = realloc(*buf, len)) == NULL)
			return -1;
		*buf = nb;
		*cap = len;
	}
	if ((got = seg_pread_full(fd, *buf, len, (off_t)pos)) < 0)
		return -1;
	return (size_t)got == len && batch_check_crc(*buf, len) == BATCH_OK;
}

#define SEG_RESYNC_WINDOW	(64 * 1024)

int
seg_resync(int fd, uint64_t size, uint64_t from, int64_t after, int64_t limit,
    uint64_t *rpos, int64_t *roff)
{
	struct batch_header h;
	uint8_t *win, *buf = NULL;
	uint64_t p, wpos = 0;
	size_t wlen = 0, cap = 0, tot;
	ssize_t n;
	int r, rc = -1;

	if ((win = malloc(SEG_RESYNC_WINDOW)) == NULL)
		return -1;
	for (p = from; p < size && size - p >= BATCH_HEADER_SIZE; p++) {
		if (p < wpos || p + BATCH_HEADER_SIZE > wpos + wlen) {
			n = seg_pread_full(fd, win, SEG_RESYNC_WINDOW, (off_t)p);
			if (n < 0)
				goto out;
			wpos = p;
			wlen = (size_t)n;
			if (wlen < BATCH_HEADER_SIZE)
				break;
		}
		/* The magic byte first: most positions fail there. */
		if (win[p - wpos + BATCH_OFF_MAGIC] != BATCH_MAGIC ||
		    batch_parse_header(win + (p - wpos), BATCH_HEADER_SIZE,
		    &h) != BATCH_OK || h.last_offset_delta < 0 ||
		    h.base_offset <= after || h.base_offset > limit ||
		    h.last_offset_delta >= limit - h.base_offset)
			continue;
		tot = batch_total_size(&h);
		if (tot > size - p)
			continue;
		if ((r = seg_batch_crc_ok(fd, p, tot, &buf, &cap)) == -1)
			goto out;
		if (r == 1) {
			*rpos = p;
			*roff = h.base_offset;
			rc = 1;
			goto out;
		}
	}
	rc = 0;
out:
	free(buf);
	free(win);
	return rc;
}

/* Fill s for a read that met the corrupt range at (pos, off). Sets errno. */
static void
seg_corrupt_fill(const struct seg_ref *sr, uint64_t pos, int64_t off,
    int64_t resume, struct plog_slice *s)
{
	s->fd = -1;
	s->len = 0;
	s->pos = (off_t)pos;
	s->segment = sr->base;
	s->first_offset = off;
	s->next_offset = resume;
	errno = EBADMSG;
}

/*
 * The newest index entry at or below offset: 1 with its position and
 * offset, 0 when there is none usable (no index, none low enough).  The
 * index may be growing or being truncated under us: a short read ends the
 * search there.
 */
static int
index_lookup(const struct seg_ref *sr, int64_t offset, uint64_t *pos, int64_t *at)
{
	struct stat st;
	uint8_t e[SEG_INDEX_ENTRY];
	uint64_t lo, hi, mid, rel, p;

	if (sr->idx_fd == -1 || fstat(sr->idx_fd, &st) == -1)
		return 0;
	rel = (uint64_t)(offset - sr->base);
	lo = 0;
	hi = (uint64_t)st.st_size / SEG_INDEX_ENTRY;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (seg_pread_full(sr->idx_fd, e, sizeof(e),
		    (off_t)(mid * SEG_INDEX_ENTRY)) != (ssize_t)sizeof(e)) {
			hi = mid;
			continue;
		}
		if (be32_get(e) <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	if (seg_pread_full(sr->idx_fd, e, sizeof(e),
	    (off_t)((lo - 1) * SEG_INDEX_ENTRY)) != (ssize_t)sizeof(e))
		return 0;
	p = be32_get(e + 4);
	if (p >= sr->log_size)
		return 0;
	*pos = p;
	*at = sr->base + (int64_t)be32_get(e);
	return 1;
}

int
seg_read(const struct seg_ref *sr, int64_t offset, int64_t visible_end,
    size_t max_bytes, struct plog_slice *s)
{
	struct hdr_cursor c;
	struct batch_header h;
	uint8_t *cbuf = NULL;
	uint64_t pos = 0, start, rpos, prev_pos = 0, bad_pos;
	int64_t at = sr->base, last, next, roff, prev_off = -1, bad_off;
	int64_t cur_base = 0;
	size_t len, tot, prev_tot = 0, ccap = 0;
	int r, from_index, first = 1;

	from_index = index_lookup(sr, offset, &pos, &at);
	hdr_cursor_init(&c, sr->log_fd, sr->log_size);
	s->segment = sr->base;

	/* Find the batch holding offset; pos strictly grows, so this ends. */
	for (;;) {
		if ((r = hdr_cursor_get(&c, pos, &h)) == -1)
			goto fail;
		/*
		 * A compacted segment has gaps between batches (store/clean.h):
		 * a batch further on than expected, below visible_end, is the
		 * next one.
		 */
		if (r == 1 && sr->compacted && h.base_offset > at &&
		    h.base_offset < visible_end && !(first && from_index))
			at = h.base_offset;
		if (r == 0 || h.base_offset != at) {
			if (first && from_index) {
				/* A stale or damaged entry: scan from the start. */
				from_index = 0;
				pos = 0;
				at = sr->base;
				continue;
			}
			/* The data ends here: the rest is in the next segment. */
			if (pos >= sr->log_size || at >= visible_end)
				goto none;
			/*
			 * Offset at was wholly written before visible_end was
			 * published, so this is damage.  The batch before may
			 * be its cause (a wrong length points into garbage).
			 */
			bad_pos = pos;
			bad_off = at;
			if (prev_off >= 0) {
				if ((r = seg_batch_crc_ok(sr->log_fd, prev_pos,
				    prev_tot, &cbuf, &ccap)) == -1)
					goto fail;
				if (r == 0) {
					bad_pos = prev_pos;
					bad_off = prev_off;
				}
			}
			r = seg_resync(sr->log_fd, sr->log_size, bad_pos + 1,
			    bad_off, visible_end, &rpos, &roff);
			if (r == -1)
				goto fail;
			if (r == 1 && roff <= offset) {
				/* Past the damage: carry on from there. */
				pos = rpos;
				at = roff;
				prev_off = -1;
				continue;
			}
			free(cbuf);
			seg_corrupt_fill(sr, bad_pos, bad_off, r == 1 ? roff : -1, s);
			return -1;
		}
		first = 0;
		last = h.base_offset + h.last_offset_delta;
		if (last >= offset)
			break;
		if (last + 1 >= visible_end)
			goto none;
		prev_pos = pos;
		prev_off = at;
		prev_tot = batch_total_size(&h);
		pos += prev_tot;
		at = last + 1;
	}

	/* Whole visible batches from there, at least one, up to max_bytes. */
	start = pos;
	len = 0;
	next = offset;
	for (;;) {
		last = h.base_offset + h.last_offset_delta;
		if (last >= visible_end) {
			if (len > 0)
				break;
			/*
			 * Batches are published whole, so the one holding a
			 * visible offset ends below visible_end: this header
			 * lies (lastOffsetDelta).
			 */
			r = seg_resync(sr->log_fd, sr->log_size, pos + 1,
			    h.base_offset, visible_end, &rpos, &roff);
			if (r == -1)
				goto fail;
			free(cbuf);
			seg_corrupt_fill(sr, pos, h.base_offset, r == 1 ? roff : -1,
			    s);
			return -1;
		}
		tot = batch_total_size(&h);
		if (len > 0 && tot > max_bytes - len)
			break;
		cur_base = h.base_offset;
		len += tot;
		pos += tot;
		next = last + 1;
		if (next >= visible_end || len >= max_bytes)
			break;
		if ((r = hdr_cursor_get(&c, pos, &h)) == -1)
			goto fail;
		if (r == 1 && sr->compacted && h.base_offset > next &&
		    h.base_offset < visible_end)
			next = h.base_offset;	/* a compacted gap */
		if (r == 0 || h.base_offset != next) {
			/*
			 * The chain breaks inside the data: the batch just
			 * taken may have a wrong length.  Never hand that one
			 * out; the read at its offset reports the damage.
			 */
			if (pos < sr->log_size) {
				if ((r = seg_batch_crc_ok(sr->log_fd, pos - tot,
				    tot, &cbuf, &ccap)) == -1)
					goto fail;
				if (r == 0) {
					len -= tot;
					pos -= tot;
					next = cur_base;
					if (len == 0) {
						r = seg_resync(sr->log_fd,
						    sr->log_size, pos + 1,
						    cur_base, visible_end,
						    &rpos, &roff);
						if (r == -1)
							goto fail;
						free(cbuf);
						seg_corrupt_fill(sr, pos, cur_base,
						    r == 1 ? roff : -1, s);
						return -1;
					}
				}
			}
			break;
		}
	}
	free(cbuf);
	s->fd = len > 0 ? sr->log_fd : -1;
	s->pos = len > 0 ? (off_t)start : 0;
	s->len = len;
	s->first_offset = len > 0 ? at : offset;
	s->next_offset = next;
	return 1;
none:
	free(cbuf);
	return 0;
fail:
	free(cbuf);
	return -1;
}
