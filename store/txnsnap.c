/*
 * Producer-state snapshots (see txnsnap.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "proto/crc32c.h"
#include "store/file.h"
#include "store/segment.h"
#include "store/txnindex.h"
#include "store/txnsnap.h"

#define SNAP_MAGIC	"FLTXSNP1"
#define SNAP_HEAD	(8 + 8 + 4)
#define SNAP_ENTRY	(8 + 2 + 8)
#define SNAP_EXT	".snapshot"
#define SNAP_NAME_LEN	(20 + sizeof(SNAP_EXT) - 1)

static size_t
snap_keep(const char *dir, const char *name, size_t len)
{
	size_t i;

	(void)dir;
	if (len != SNAP_NAME_LEN || strcmp(name + 20, SNAP_EXT) != 0)
		return 0;
	for (i = 0; i < 20; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	return len;
}

static int64_t
snap_offset(const char *name)
{
	return (int64_t)strtoull(name, NULL, 10);
}

static void
snap_unlink(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path))
		(void)unlink(path);
}

static void
names_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int
txnsnap_newest(const char *dir, int64_t *offset)
{
	char **v = NULL;
	size_t nv = 0;

	if (store_dir_names(dir, snap_keep, &v, &nv) == -1)
		return errno == ENOENT ? 0 : -1;
	if (nv > 0)
		*offset = snap_offset(v[nv - 1]);
	names_free(v, nv);
	return nv > 0;
}

/* Sync the indexes of the segments holding offsets from prev on. */
static int
sync_indexes(const char *dir, int64_t prev)
{
	int64_t *bases = NULL;
	size_t nb = 0, i;
	int rc = 0;

	if (seg_list(dir, &bases, &nb) == -1)
		return -1;
	for (i = 0; i < nb && rc == 0; i++)
		if (prev < 0 || i + 1 == nb || bases[i + 1] > prev)
			rc = txnindex_sync(dir, bases[i]);
	free(bases);
	return rc;
}

int
txnsnap_save(const char *dir, int64_t prev, int64_t offset,
    const struct txnsnap_entry *e, size_t n)
{
	char name[SNAP_NAME_LEN + 1], **v = NULL;
	uint8_t *buf;
	size_t len, i, nv = 0;
	int rc;

	/* What the snapshot says was indexed below offset must stay so. */
	if (sync_indexes(dir, prev) == -1)
		return -1;
	if (n > TXNSNAP_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	len = SNAP_HEAD + n * SNAP_ENTRY + 4;
	if ((buf = malloc(len)) == NULL)
		return -1;
	memcpy(buf, SNAP_MAGIC, 8);
	be64_put(buf + 8, (uint64_t)offset);
	be32_put(buf + 16, (uint32_t)n);
	for (i = 0; i < n; i++) {
		be64_put(buf + SNAP_HEAD + i * SNAP_ENTRY, (uint64_t)e[i].pid);
		be16_put(buf + SNAP_HEAD + i * SNAP_ENTRY + 8,
		    (uint16_t)e[i].epoch);
		be64_put(buf + SNAP_HEAD + i * SNAP_ENTRY + 10,
		    (uint64_t)e[i].first);
	}
	be32_put(buf + len - 4, crc32c(0, buf, len - 4));
	snprintf(name, sizeof(name), "%020lld" SNAP_EXT, (long long)offset);
	rc = store_file_replace(dir, name, buf, len);
	free(buf);
	if (rc == -1)
		return -1;
	/* The older ones: only the newest few are ever read. */
	if (store_dir_names(dir, snap_keep, &v, &nv) == 0) {
		for (i = 0; i + TXNSNAP_KEEP < nv; i++)
			snap_unlink(dir, v[i]);
		names_free(v, nv);
	}
	return 0;
}

/* Parse one snapshot file: 0, or -1 (EBADMSG: damaged). */
static int
snap_read(const char *dir, const char *name, int64_t *offset,
    struct txnsnap_entry **e, size_t *n)
{
	char path[PATH_MAX], *buf;
	const uint8_t *b;
	size_t len, cnt, i;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (store_file_read(path, SNAP_HEAD + TXNSNAP_MAX * SNAP_ENTRY + 4,
	    &buf, &len) == -1)
		return -1;
	b = (const uint8_t *)buf;
	if (len < SNAP_HEAD + 4 || memcmp(b, SNAP_MAGIC, 8) != 0 ||
	    be32_get(b + len - 4) != crc32c(0, b, len - 4) ||
	    (cnt = be32_get(b + 16)) > TXNSNAP_MAX ||
	    len != SNAP_HEAD + cnt * SNAP_ENTRY + 4) {
		free(buf);
		errno = EBADMSG;
		return -1;
	}
	*offset = (int64_t)be64_get(b + 8);
	*e = NULL;
	*n = cnt;
	if (cnt > 0 && (*e = calloc(cnt, sizeof(**e))) == NULL) {
		free(buf);
		return -1;
	}
	for (i = 0; i < cnt; i++) {
		(*e)[i].pid = (int64_t)be64_get(b + SNAP_HEAD + i * SNAP_ENTRY);
		(*e)[i].epoch = (int16_t)be16_get(b + SNAP_HEAD +
		    i * SNAP_ENTRY + 8);
		(*e)[i].first = (int64_t)be64_get(b + SNAP_HEAD +
		    i * SNAP_ENTRY + 10);
	}
	free(buf);
	return 0;
}

int
txnsnap_load(const char *dir, int64_t end, int64_t *offset,
    struct txnsnap_entry **e, size_t *n)
{
	char **v = NULL;
	size_t nv = 0, i;
	int rc = 0;

	*e = NULL;
	*n = 0;
	if (store_dir_names(dir, snap_keep, &v, &nv) == -1)
		return errno == ENOENT ? 0 : -1;
	for (i = nv; i-- > 0;) {
		if (snap_offset(v[i]) > end) {
			snap_unlink(dir, v[i]);	/* past a log a power loss cut */
			continue;
		}
		if (snap_read(dir, v[i], offset, e, n) == 0 &&
		    *offset == snap_offset(v[i])) {
			rc = 1;
			break;
		}
		free(*e);
		*e = NULL;
		*n = 0;
		if (errno != EBADMSG && errno != 0) {
			rc = -1;
			break;
		}
		snap_unlink(dir, v[i]);
	}
	names_free(v, nv);
	return rc;
}
