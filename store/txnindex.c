/*
 * The aborted-transaction index (see txnindex.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "store/segment.h"
#include "store/txnindex.h"

#define TXNINDEX_MAX_ENTRIES	(1u << 24)	/* a sanity bound on one file */

void
txnindex_encode(uint8_t out[TXNINDEX_ENTRY], const struct txn_aborted *a)
{
	be16_put(out, 0);
	be64_put(out + 2, (uint64_t)a->pid);
	be64_put(out + 10, (uint64_t)a->first);
	be64_put(out + 18, (uint64_t)a->last);
	be64_put(out + 26, (uint64_t)a->lso);
}

int
txnindex_decode(const uint8_t in[TXNINDEX_ENTRY], struct txn_aborted *a)
{
	if (be16_get(in) != 0)
		return -1;
	a->pid = (int64_t)be64_get(in + 2);
	a->first = (int64_t)be64_get(in + 10);
	a->last = (int64_t)be64_get(in + 18);
	a->lso = (int64_t)be64_get(in + 26);
	return 0;
}

static int
tx_open(const char *dir, int64_t base, int flags, int *fd)
{
	char path[PATH_MAX];

	if (seg_path(path, sizeof(path), dir, base, "txnindex") == -1)
		return -1;
	*fd = open(path, flags | O_CLOEXEC, 0644);
	return *fd == -1 ? -1 : 0;
}

int
txnindex_append(const char *dir, int64_t base, const struct txn_aborted *a)
{
	uint8_t e[TXNINDEX_ENTRY], last[TXNINDEX_ENTRY];
	struct txn_aborted prev;
	struct stat st;
	int fd, rc = -1, err;

	if (tx_open(dir, base, O_RDWR | O_CREAT, &fd) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto out;
	/* A torn entry (the writer died mid-write) is cut off first. */
	if (st.st_size % TXNINDEX_ENTRY != 0) {
		st.st_size -= st.st_size % TXNINDEX_ENTRY;
		if (ftruncate(fd, st.st_size) == -1)
			goto out;
	}
	if (st.st_size >= TXNINDEX_ENTRY &&
	    seg_pread_full(fd, last, sizeof(last), st.st_size - TXNINDEX_ENTRY) ==
	    TXNINDEX_ENTRY && txnindex_decode(last, &prev) == 0 &&
	    prev.pid == a->pid && prev.last == a->last) {
		rc = 0;
		goto out;
	}
	txnindex_encode(e, a);
	if (pwrite(fd, e, sizeof(e), st.st_size) != (ssize_t)sizeof(e)) {
		if (errno == 0)
			errno = EIO;
		goto out;
	}
	rc = 0;
out:
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

int
txnindex_load(const char *dir, int64_t base, struct txn_aborted **out,
    size_t *n)
{
	struct txn_aborted *v = NULL;
	struct stat st;
	uint8_t *buf = NULL;
	size_t k, cnt;
	int fd, err;

	*out = NULL;
	*n = 0;
	if (tx_open(dir, base, O_RDONLY, &fd) == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) == -1)
		goto fail;
	cnt = (size_t)st.st_size / TXNINDEX_ENTRY;
	if (cnt == 0) {
		close(fd);
		return 0;
	}
	if (cnt > TXNINDEX_MAX_ENTRIES) {
		errno = EFBIG;
		goto fail;
	}
	if ((buf = malloc(cnt * TXNINDEX_ENTRY)) == NULL ||
	    (v = calloc(cnt, sizeof(*v))) == NULL)
		goto fail;
	if (seg_pread_full(fd, buf, cnt * TXNINDEX_ENTRY, 0) !=
	    (ssize_t)(cnt * TXNINDEX_ENTRY)) {
		errno = EIO;
		goto fail;
	}
	for (k = 0; k < cnt; k++)
		if (txnindex_decode(buf + k * TXNINDEX_ENTRY, &v[*n]) == 0)
			(*n)++;
	free(buf);
	close(fd);
	*out = v;
	return 0;
fail:
	err = errno;
	free(buf);
	free(v);
	close(fd);
	errno = err;
	*n = 0;
	return -1;
}

int
txnindex_truncate(const char *dir, int64_t base, int64_t offset)
{
	struct txn_aborted *v;
	size_t n, keep;
	int fd, rc;

	if (txnindex_load(dir, base, &v, &n) == -1)
		return -1;
	for (keep = 0; keep < n && v[keep].last < offset; keep++)
		;
	free(v);
	if (tx_open(dir, base, O_RDWR, &fd) == -1)
		return errno == ENOENT ? 0 : -1;
	rc = ftruncate(fd, (off_t)(keep * TXNINDEX_ENTRY));
	close(fd);
	return rc;
}

int
txnindex_sync(const char *dir, int64_t base)
{
	int fd, rc;

	if (tx_open(dir, base, O_RDONLY, &fd) == -1)
		return errno == ENOENT ? 0 : -1;
	rc = fdatasync(fd);
	close(fd);
	return rc;
}

int
txnindex_collect(const char *dir, const int64_t *bases, size_t nbases,
    int64_t start, int64_t upper, struct txn_aborted **out, size_t *n,
    size_t *cap)
{
	struct txn_aborted *v, *nv;
	size_t i, k, m, first = 0;
	size_t ncap;

	/* The segment holding start: the last base at or below it. */
	for (i = 0; i < nbases; i++)
		if (bases[i] <= start)
			first = i;
	for (i = first; i < nbases; i++) {
		if (txnindex_load(dir, bases[i], &v, &m) == -1)
			return -1;
		for (k = 0; k < m; k++) {
			if (v[k].last >= start && v[k].first < upper) {
				if (*n == *cap) {
					ncap = *cap ? *cap * 2 : 16;
					if ((nv = reallocarray(*out, ncap,
					    sizeof(*nv))) == NULL) {
						free(v);
						return -1;
					}
					*out = nv;
					*cap = ncap;
				}
				(*out)[(*n)++] = v[k];
			}
			if (v[k].lso >= upper) {
				free(v);
				return 0;
			}
		}
		free(v);
	}
	return 0;
}
