/*
 * Tombstones of deleted topics (store/tomb.h).  The removal walks the
 * tree with nftw(3) bottom-up and physically (FTW_PHYS), so a link in
 * a topic directory is removed, never followed out of the data
 * directory.  A topic directory is two levels deep (partition-N/ and
 * its segment files), far below the descriptor limit given to nftw.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store/file.h"
#include "store/tomb.h"
#include "store/topic.h"

#define TOMB_PREFIX	".deleted-"
#define TOMB_FDS	16

int
tomb_is(const char *name)
{
	return strncmp(name, TOMB_PREFIX, sizeof(TOMB_PREFIX) - 1) == 0 &&
	    strchr(name, '~') != NULL;
}

int
tomb_bury(const char *data_dir, const char *topic, uint64_t n, char *buf,
    size_t size)
{
	char from[PATH_MAX];
	int k;

	if (!topic_name_valid(topic, strlen(topic))) {
		errno = EINVAL;
		return -1;
	}
	k = snprintf(from, sizeof(from), "%s/%s", data_dir, topic);
	if (k < 0 || (size_t)k >= sizeof(from)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	k = snprintf(buf, size, "%s/" TOMB_PREFIX "%s~%" PRIu64, data_dir,
	    topic, n);
	if (k < 0 || (size_t)k >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (rename(from, buf) == -1)
		return -1;
	return store_dir_sync(data_dir);
}

static int
tomb_unlink(const char *path, const struct stat *st, int type, struct FTW *f)
{
	if (type == FTW_DP)
		return rmdir(path) == -1 ? -1 : 0;
	return unlink(path) == -1 ? -1 : 0;
}

int
tomb_sweep(const char *data_dir, int *removed)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int k, rc = 0, err = 0;

	*removed = 0;
	if ((d = opendir(data_dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (!tomb_is(de->d_name))
			continue;
		k = snprintf(path, sizeof(path), "%s/%s", data_dir, de->d_name);
		if (k < 0 || (size_t)k >= sizeof(path)) {
			err = ENAMETOOLONG;
			continue;
		}
		if (nftw(path, tomb_unlink, TOMB_FDS, FTW_DEPTH | FTW_PHYS) != 0) {
			if (err == 0)
				err = errno != 0 ? errno : EIO;
			continue;
		}
		(*removed)++;
	}
	closedir(d);
	if (*removed > 0 && store_dir_sync(data_dir) == -1 && err == 0)
		err = errno;
	if (err != 0) {
		errno = err;
		rc = -1;
	}
	return rc;
}
