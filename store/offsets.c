/*
 * Committed consumer-group offsets: one text file per group,
 * <dir>/<group>.offsets, replaced atomically (store/file.c):
 *	flume-offsets 1
 *	group <group>
 *	<topic> <partition> <offset>		(one line per entry)
 *	crc32c XXXXXXXX				(CRC-32C of the lines above)
 * Topic and group names never hold spaces or newlines (topic.h), so the
 * lines split unambiguously.  A file that does not parse exactly, or
 * fails its checksum, is refused with EBADMSG rather than half-used.
 *
 * A group name of 248 or 249 bytes plus ".offsets" exceeds NAME_MAX; such
 * groups are refused with ENAMETOOLONG.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/crc32c.h"
#include "store/file.h"
#include "store/offsets.h"
#include "store/topic.h"

#define OFFSETS_MAX	(64u << 20)	/* refuse absurd files before reading */

static int
group_file(char *name, size_t size, const char *group)
{
	int n;

	if (group == NULL || !group_name_valid(group, strlen(group))) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(name, size, "%s%s", group, OFFSETS_SUFFIX);
	if (n < 0 || (size_t)n >= size || (size_t)n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Append printf output to a growing buffer. */
struct tbuf {
	char	*p;
	size_t	 len, cap;
};

static int
tbuf_printf(struct tbuf *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
tbuf_printf(struct tbuf *t, const char *fmt, ...)
{
	va_list ap;
	char *np;
	size_t ncap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -1;
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return 0;
		}
		ncap = t->cap * 2 + (size_t)n + 1;
		if ((np = realloc(t->p, ncap)) == NULL)
			return -1;
		t->p = np;
		t->cap = ncap;
	}
}

int
offsets_save(const char *dir, const char *group, const struct offset_entry *e,
    size_t n)
{
	char name[NAME_MAX + 2];
	struct tbuf t = { NULL, 0, 0 };
	size_t i;
	int rc = -1, saved;

	if (group_file(name, sizeof(name), group) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (!topic_name_valid(e[i].topic, strnlen(e[i].topic,
		    sizeof(e[i].topic))) || e[i].partition < 0) {
			errno = EINVAL;
			return -1;
		}
	}
	if (store_mkdir(dir) == -1)
		return -1;
	if ((t.p = malloc(256)) == NULL)
		return -1;
	t.cap = 256;
	if (tbuf_printf(&t, "flume-offsets 1\ngroup %s\n", group) == -1)
		goto out;
	for (i = 0; i < n; i++)
		if (tbuf_printf(&t, "%s %" PRId32 " %" PRId64 "\n", e[i].topic,
		    e[i].partition, e[i].offset) == -1)
			goto out;
	if (tbuf_printf(&t, "crc32c %08" PRIx32 "\n",
	    crc32c(0, t.p, t.len)) == -1)
		goto out;
	rc = store_file_replace(dir, name, t.p, t.len);
out:
	saved = errno;
	free(t.p);
	errno = saved;
	return rc;
}

/* Parse one "<topic> <partition> <offset>" line (NUL-terminated). */
static int
parse_entry(const char *line, struct offset_entry *e)
{
	const char *sp;
	char *end;
	long long v;
	size_t tlen;

	if ((sp = strchr(line, ' ')) == NULL)
		return -1;
	tlen = (size_t)(sp - line);
	if (!topic_name_valid(line, tlen))
		return -1;
	memset(e->topic, 0, sizeof(e->topic));
	memcpy(e->topic, line, tlen);
	line = sp + 1;
	if (*line < '0' || *line > '9')
		return -1;
	errno = 0;
	v = strtoll(line, &end, 10);
	if (errno != 0 || v > INT32_MAX || *end != ' ')
		return -1;
	e->partition = (int32_t)v;
	line = end + 1;
	if (!((*line >= '0' && *line <= '9') || *line == '-'))
		return -1;
	errno = 0;
	v = strtoll(line, &end, 10);
	if (errno != 0 || *end != '\0' || end == line)
		return -1;
	e->offset = (int64_t)v;
	return 0;
}

/* <dir>/<group>.offsets into path (PATH_MAX). */
static int
group_path(char *path, const char *dir, const char *group)
{
	char name[NAME_MAX + 2];
	int k;

	if (group_file(name, sizeof(name), group) == -1)
		return -1;
	k = snprintf(path, PATH_MAX, "%s/%s", dir, name);
	if (k < 0 || k >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
offsets_remove(const char *dir, const char *group)
{
	char path[PATH_MAX];

	if (group_path(path, dir, group) == -1)
		return -1;
	if (unlink(path) == -1)
		return errno == ENOENT ? 0 : -1;
	return store_dir_sync(dir);
}

int
offsets_mtime(const char *dir, const char *group, int64_t *ms)
{
	char path[PATH_MAX];
	struct stat st;

	if (group_path(path, dir, group) == -1 || stat(path, &st) == -1)
		return -1;
	*ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	return 0;
}

int
offsets_load(const char *dir, const char *group, struct offset_entry **ep,
    size_t *np)
{
	char name[NAME_MAX + 2], path[PATH_MAX], *buf, *line, *nl;
	struct offset_entry *v = NULL, *nv;
	size_t len, body, n = 0, cap = 0;
	int k;

	*ep = NULL;
	*np = 0;
	if (group_file(name, sizeof(name), group) == -1)
		return -1;
	k = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (k < 0 || (size_t)k >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (store_file_read(path, OFFSETS_MAX, &buf, &len) == -1)
		return errno == ENOENT ? 0 : -1;
	if (store_text_check(buf, len, &body) == -1)
		goto bad;
	buf[body] = '\0';

	line = buf;
	if ((nl = strchr(line, '\n')) == NULL)
		goto bad;
	*nl = '\0';
	if (strcmp(line, "flume-offsets 1") != 0)
		goto bad;
	line = nl + 1;
	if ((nl = strchr(line, '\n')) == NULL)
		goto bad;
	*nl = '\0';
	if (strncmp(line, "group ", 6) != 0 || strcmp(line + 6, group) != 0)
		goto bad;
	for (line = nl + 1; *line != '\0'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			goto bad;
		*nl = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL) {
				free(v);
				free(buf);
				return -1;
			}
			v = nv;
		}
		if (parse_entry(line, &v[n]) == -1)
			goto bad;
		n++;
	}
	free(buf);
	*ep = v;
	*np = n;
	return 0;
bad:
	free(v);
	free(buf);
	errno = EBADMSG;
	return -1;
}

/* A saved group's file: "<group>.offsets"; keep the group's name. */
static size_t
offsets_file_keep(const char *dir, const char *name, size_t len)
{
	size_t sl = sizeof(OFFSETS_SUFFIX) - 1;

	(void)dir;
	if (len <= sl || strcmp(name + len - sl, OFFSETS_SUFFIX) != 0 ||
	    !group_name_valid(name, len - sl))
		return 0;
	return len - sl;
}

int
offsets_list(const char *dir, char ***groups, size_t *np)
{
	if (store_dir_names(dir, offsets_file_keep, groups, np) == -1)
		return errno == ENOENT ? 0 : -1;
	return 0;
}

/* Remove every file of directory path, then it, and sync data_dir. */
static int
offsets_dir_drop(const char *data_dir, const char *path)
{
	char file[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((d = opendir(path)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(file, sizeof(file), "%s/%s", path, de->d_name) >=
		    (int)sizeof(file) || (unlink(file) == -1 && errno != ENOENT))
			rc = -1;
	}
	closedir(d);
	if (rc == -1 || rmdir(path) == -1)
		return -1;
	return store_dir_sync(data_dir);
}

static int
offsets_path(char *buf, size_t size, const char *data_dir, const char *name)
{
	if (snprintf(buf, size, "%s/%s", data_dir, name) >= (int)size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
offsets_retire(const char *data_dir)
{
	char dir[PATH_MAX], kept[PATH_MAX];
	struct stat st;

	if (offsets_path(dir, sizeof(dir), data_dir, OFFSETS_DIR) == -1 ||
	    offsets_path(kept, sizeof(kept), data_dir, OFFSETS_MIGRATED) == -1)
		return -1;
	if (stat(dir, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (stat(kept, &st) == 0)
		return offsets_dir_drop(data_dir, dir) == -1 ? -1 : 2;
	if (rename(dir, kept) == -1 || store_dir_sync(data_dir) == -1)
		return -1;
	return 1;
}

int
offsets_migrated_drop(const char *data_dir)
{
	char kept[PATH_MAX];
	struct stat st;

	if (offsets_path(kept, sizeof(kept), data_dir, OFFSETS_MIGRATED) == -1)
		return -1;
	if (stat(kept, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	return offsets_dir_drop(data_dir, kept) == -1 ? -1 : 1;
}

int
offsets_pending(const char *data_dir)
{
	char dir[PATH_MAX];
	struct stat st;

	return offsets_path(dir, sizeof(dir), data_dir, OFFSETS_DIR) == 0 &&
	    stat(dir, &st) == 0;
}
