/*
 * The time index file format (see timeindex.h): encoding, loading with
 * shape checks, and the binary search a time lookup starts with.  What
 * goes into the file is decided by the writer's log (plog.c).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>

#include "proto/bytes.h"
#include "store/segment.h"
#include "store/timeindex.h"

void
tidx_put(uint8_t *p, int64_t ts, uint32_t rel)
{
	be64_put(p, (uint64_t)ts);
	be32_put(p + 8, rel);
}

static void
tidx_get(const uint8_t *p, struct tidx_entry *e)
{
	e->ts = (int64_t)be64_get(p);
	e->rel = be32_get(p + 8);
}

int
tidx_load(int fd, struct tidx_entry **vp, size_t *np)
{
	struct stat st;
	struct tidx_entry *v;
	uint8_t *buf;
	size_t n, i;
	ssize_t got;

	*vp = NULL;
	*np = 0;
	if (fstat(fd, &st) == -1)
		return -1;
	if (st.st_size == 0 || (uint64_t)st.st_size % TIDX_ENTRY != 0)
		return 0;
	n = (size_t)st.st_size / TIDX_ENTRY;
	if ((buf = malloc(n * TIDX_ENTRY)) == NULL)
		return -1;
	if ((v = reallocarray(NULL, n, sizeof(*v))) == NULL) {
		free(buf);
		return -1;
	}
	got = seg_pread_full(fd, buf, n * TIDX_ENTRY, 0);
	if (got != (ssize_t)(n * TIDX_ENTRY)) {
		free(buf);
		free(v);
		return got < 0 ? -1 : 0;
	}
	for (i = 0; i < n; i++) {
		tidx_get(buf + i * TIDX_ENTRY, &v[i]);
		/* A compacted segment's first batch may lie past its base. */
		if (i > 0 &&
		    (v[i].rel <= v[i - 1].rel || v[i].ts < v[i - 1].ts)) {
			free(buf);
			free(v);
			return 0;
		}
	}
	free(buf);
	*vp = v;
	*np = n;
	return 1;
}

/* Entry i of fd; 1, 0 when it is not (wholly) there, -1 I/O. */
static int
tidx_read(int fd, uint64_t i, struct tidx_entry *e)
{
	uint8_t b[TIDX_ENTRY];
	ssize_t got;

	got = seg_pread_full(fd, b, sizeof(b), (off_t)(i * TIDX_ENTRY));
	if (got < 0)
		return -1;
	if (got != (ssize_t)sizeof(b))
		return 0;
	tidx_get(b, e);
	return 1;
}

int
tidx_last(int fd, struct tidx_entry *e)
{
	struct stat st;
	uint64_t n;

	if (fstat(fd, &st) == -1)
		return -1;
	if ((n = (uint64_t)st.st_size / TIDX_ENTRY) == 0)
		return 0;
	return tidx_read(fd, n - 1, e);
}

/*
 * Binary search over fd's whole entries: into *lo the first whose
 * timestamp is >= ts (by_rel 0) or whose relative offset is >= rel
 * (by_rel 1), the count when there is none; an entry truncated under
 * us ends the search.  0 or -1 (I/O).
 */
static int
tidx_lower(int fd, int by_rel, int64_t ts, uint32_t rel, uint64_t *lo)
{
	struct stat st;
	struct tidx_entry m;
	uint64_t hi, mid;
	int r;

	if (fstat(fd, &st) == -1)
		return -1;
	*lo = 0;
	hi = (uint64_t)st.st_size / TIDX_ENTRY;
	while (*lo < hi) {
		mid = *lo + (hi - *lo) / 2;
		if ((r = tidx_read(fd, mid, &m)) == -1)
			return -1;
		if (r == 1 && (by_rel ? m.rel < rel : m.ts < ts))
			*lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int
tidx_last_below(int fd, uint32_t rel, struct tidx_entry *e)
{
	uint64_t lo;

	if (tidx_lower(fd, 1, 0, rel, &lo) == -1)
		return -1;
	if (lo == 0)
		return 0;
	return tidx_read(fd, lo - 1, e);
}

int
tidx_find(int fd, int64_t ts, struct tidx_entry *prev, struct tidx_entry *e)
{
	uint64_t lo;
	int r;

	prev->ts = TIDX_NONE;
	prev->rel = 0;
	if (tidx_lower(fd, 0, ts, 0, &lo) == -1)
		return -1;
	if (lo > 0 && (r = tidx_read(fd, lo - 1, prev)) != 1) {
		prev->ts = TIDX_NONE;
		prev->rel = 0;
		if (r == -1)
			return -1;
	}
	if ((r = tidx_read(fd, lo, e)) == -1)
		return -1;
	return r;
}
