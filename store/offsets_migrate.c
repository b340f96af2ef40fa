/*
 * The move of committed offsets from the old directory (see
 * offsets_migrate.h).  Each file moves by rename(2), so at every instant
 * it is whole in one of the two directories.  A group that has a file in
 * both (a copy made by hand) keeps the new one; the old is left in place
 * and counted, never deleted.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/file.h"
#include "store/offsets.h"
#include "store/offsets_migrate.h"

static int
path_join(char *buf, size_t size, const char *dir, const char *name,
    const char *suffix)
{
	int n = snprintf(buf, size, "%s/%s%s", dir, name, suffix);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int
is_tmp(const char *name)
{
	return strncmp(name, STORE_TMP_PREFIX, sizeof(STORE_TMP_PREFIX) - 1) ==
	    0;
}

/* Entries of the old directory other than "." and ".." ... */
static size_t
keep_other(const char *dir, const char *name, size_t len)
{
	(void)dir;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || is_tmp(name))
		return 0;
	return len;
}

/* ... and the temp files of a save cut short. */
static size_t
keep_tmp(const char *dir, const char *name, size_t len)
{
	(void)dir;
	return is_tmp(name) ? len : 0;
}

static void
names_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Remove the old directory when only temp files are left in it.  0 (*left
 * set when something else is still there), or -1.
 */
static int
old_dir_remove(const char *data_dir, const char *old, int *left)
{
	char **v, path[PATH_MAX];
	size_t n, i;

	if (store_dir_names(old, keep_other, &v, &n) == -1)
		return -1;
	names_free(v, n);
	if (n > 0) {
		*left = 1;
		return 0;
	}
	if (store_dir_names(old, keep_tmp, &v, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (path_join(path, sizeof(path), old, v[i], "") == -1 ||
		    (unlink(path) == -1 && errno != ENOENT)) {
			names_free(v, n);
			return -1;
		}
	}
	names_free(v, n);
	if (rmdir(old) == -1)
		return -1;
	return store_dir_sync(data_dir);
}

int
offsets_migrate(const char *data_dir, struct offsets_migration *m)
{
	char old[PATH_MAX], new[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	char **groups = NULL;
	struct stat st;
	size_t n = 0, i;
	int rc = -1, saved;

	memset(m, 0, sizeof(*m));
	if (path_join(old, sizeof(old), data_dir, OFFSETS_OLD_DIR, "") == -1 ||
	    path_join(new, sizeof(new), data_dir, OFFSETS_DIR, "") == -1)
		return -1;
	if (lstat(old, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		m->old_left = 1;
		return 0;
	}
	if (offsets_list(old, &groups, &n) == -1)
		return -1;
	if (n > 0 && store_mkdir(new) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		if (path_join(from, sizeof(from), old, groups[i],
		    OFFSETS_SUFFIX) == -1 ||
		    path_join(to, sizeof(to), new, groups[i],
		    OFFSETS_SUFFIX) == -1)
			goto out;
		if (lstat(to, &st) == 0) {
			m->kept++;
			continue;
		}
		if (errno != ENOENT || rename(from, to) == -1)
			goto out;
		m->moved++;
	}
	rc = 0;
out:
	saved = errno;
	names_free(groups, n);
	/* What moved is synced even when a later rename failed. */
	if (m->moved > 0 && (store_dir_sync(new) == -1 ||
	    store_dir_sync(old) == -1)) {
		saved = errno;
		rc = -1;
	}
	if (rc == 0 && old_dir_remove(data_dir, old, &m->old_left) == -1) {
		saved = errno;
		rc = -1;
	}
	errno = saved;
	return rc;
}
