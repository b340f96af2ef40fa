/*
 * Atomic replacement of small files, the way Redis writes its dump: write
 * a temp file in the same directory, fsync it, rename it over the old
 * name, fsync the directory so the rename itself survives a power loss.
 * A crash at any point leaves either the old file or the new one under
 * the name, never a mix; a stray temp file is harmless (readers only
 * open the final name) and is reused by nobody.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/crc32c.h"
#include "store/file.h"
#include "store/io.h"
#include "store/segment.h"

int
store_dir_sync(const char *dir)
{
	int fd, rc, saved;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	rc = store_io.fdatasync(fd);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int
store_file_replace(const char *dir, const char *name, const void *buf,
    size_t len)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	int fd, n, saved;

	n = snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(dst) || strlen(name) > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	n = snprintf(tmp, sizeof(tmp), "%s/" STORE_TMP_PREFIX "XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		return -1;
	if (fchmod(fd, 0644) == -1 || seg_write_all(fd, buf, len) == -1 ||
	    store_io.fdatasync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, dst) == -1)
		goto fail;
	return store_dir_sync(dir);
fail:
	saved = errno;
	if (fd != -1)
		close(fd);
	unlink(tmp);
	errno = saved;
	return -1;
}

int
store_file_read(const char *path, size_t max, char **bufp, size_t *lenp)
{
	struct stat st;
	char *buf;
	ssize_t got;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto fail;
	if ((uint64_t)st.st_size > max) {
		errno = EFBIG;
		goto fail;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL)
		goto fail;
	got = seg_pread_full(fd, buf, (size_t)st.st_size, 0);
	if (got < 0) {
		saved = errno;
		free(buf);
		errno = saved;
		goto fail;
	}
	buf[got] = '\0';
	close(fd);
	*bufp = buf;
	*lenp = (size_t)got;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/*
 * The new entry is durable only once its parent is synced.  If that sync
 * fails the directory is removed again, so a retry creates it anew and
 * syncs again instead of finding it (EEXIST) and skipping the sync.
 */
static int
store_mkdir_mode(const char *path, mode_t mode)
{
	char parent[PATH_MAX];
	int saved;

	if (strlen(path) >= sizeof(parent)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdir(path, mode) == -1)
		return errno == EEXIST ? 0 : -1;
	memcpy(parent, path, strlen(path) + 1);
	if (store_dir_sync(dirname(parent)) == 0)
		return 0;
	saved = errno;
	(void)rmdir(path);
	errno = saved;
	return -1;
}

int
store_mkdir(const char *path)
{
	return store_mkdir_mode(path, 0755);
}

int
store_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *p;
	size_t n;

	if ((n = strlen(path)) == 0 || n >= sizeof(buf)) {
		errno = n == 0 ? ENOENT : ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (store_mkdir_mode(buf, mode) == -1)
			return -1;
		*p = '/';
	}
	return store_mkdir_mode(buf, mode);
}

/*
 * Check the trailing "crc32c XXXXXXXX\n" line of a text file; *body_len
 * gets the length of what it covers.  0, or -1 with EBADMSG.
 */
int
store_text_check(const char *buf, size_t len, size_t *body_len)
{
	const size_t tail = sizeof("crc32c XXXXXXXX\n") - 1;
	char want[sizeof("crc32c XXXXXXXX\n")];
	size_t body;

	if (len < tail || memchr(buf, '\0', len) != NULL)
		goto bad;
	body = len - tail;
	if (body > 0 && buf[body - 1] != '\n')
		goto bad;
	snprintf(want, sizeof(want), "crc32c %08" PRIx32 "\n",
	    crc32c(0, buf, body));
	if (memcmp(buf + body, want, tail) != 0)
		goto bad;
	*body_len = body;
	return 0;
bad:
	errno = EBADMSG;
	return -1;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
store_dir_names(const char *dir,
    size_t (*keep)(const char *dir, const char *name, size_t len),
    char ***names, size_t *np)
{
	char **v = NULL, **nv;
	struct dirent *de;
	DIR *d;
	size_t n = 0, cap = 0, i, k;
	int saved;

	*names = NULL;
	*np = 0;
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((errno = 0, de = readdir(d)) != NULL) {
		if ((k = keep(dir, de->d_name, strlen(de->d_name))) == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				goto fail;
			v = nv;
		}
		if ((v[n] = strndup(de->d_name, k)) == NULL)
			goto fail;
		n++;
	}
	if (errno != 0)
		goto fail;
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), name_cmp);
	*names = v;
	*np = n;
	return 0;
fail:
	saved = errno;
	closedir(d);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	errno = saved;
	return -1;
}
