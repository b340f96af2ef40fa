/*
 * Committed offsets files: round trip, atomic replacement (a crash
 * before the rename, simulated by a torn temp file and by a write that
 * fails half way, leaves the old file whole and loadable), corruption
 * refused, listing, group names checked before any path is built, and
 * the move out of the old layout's __consumer_offsets directory.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/io.h"
#include "store/offsets.h"
#include "store/offsets_migrate.h"
#include "tests/harness.h"

static void
entry(struct offset_entry *e, const char *topic, int32_t part, int64_t off)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->topic, sizeof(e->topic), "%s", topic);
	e->partition = part;
	e->offset = off;
}

static void
check_equal(const struct offset_entry *a, size_t na,
    const struct offset_entry *b, size_t nb)
{
	size_t i;

	CU_ASSERT_FATAL(na == nb);
	for (i = 0; i < na; i++) {
		CU_ASSERT(strcmp(a[i].topic, b[i].topic) == 0);
		CU_ASSERT(a[i].partition == b[i].partition);
		CU_ASSERT(a[i].offset == b[i].offset);
	}
}

/* Files in dir other than "." and "..". */
static int
count_files(const char *dir)
{
	DIR *d;
	struct dirent *de;
	int n = 0;

	CU_ASSERT_FATAL((d = opendir(dir)) != NULL);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void
test_round_trip(void)
{
	struct offset_entry e[4], *got;
	size_t n;
	char *top = test_mkdtemp("offsets"), dir[4096];

	snprintf(dir, sizeof(dir), "%s/__consumer_offsets", top);
	/* Missing directory and file: zero entries, not an error. */
	CU_ASSERT_FATAL(offsets_load(dir, "g1", &got, &n) == 0);
	CU_ASSERT(n == 0);
	free(got);

	entry(&e[0], "orders", 0, 0);
	entry(&e[1], "orders", 7, 123456789012345LL);
	entry(&e[2], "a.b_c-D", 2147483647, -1);
	entry(&e[3], "x", 3, 9223372036854775807LL);
	CU_ASSERT_FATAL(offsets_save(dir, "g1", e, 4) == 0);
	CU_ASSERT_FATAL(offsets_load(dir, "g1", &got, &n) == 0);
	check_equal(got, n, e, 4);
	free(got);

	/* Replace with fewer entries; then with none. */
	CU_ASSERT_FATAL(offsets_save(dir, "g1", e + 1, 1) == 0);
	CU_ASSERT_FATAL(offsets_load(dir, "g1", &got, &n) == 0);
	check_equal(got, n, e + 1, 1);
	free(got);
	CU_ASSERT_FATAL(offsets_save(dir, "g1", NULL, 0) == 0);
	CU_ASSERT_FATAL(offsets_load(dir, "g1", &got, &n) == 0);
	CU_ASSERT(n == 0);
	free(got);
	/* Exactly one file: no temp files left behind. */
	CU_ASSERT(count_files(dir) == 1);
	test_rmtree(top);
	free(top);
}

/* The write seam: let budget bytes through, then ENOSPC. */
static long long io_budget;

static ssize_t
enospc_write(int fd, const void *p, size_t n)
{
	ssize_t w;

	if (io_budget <= 0) {
		errno = ENOSPC;
		return -1;
	}
	if ((long long)n > io_budget)
		n = (size_t)io_budget;
	if ((w = write(fd, p, n)) > 0)
		io_budget -= w;
	return w;
}

static int
failing_sync(int fd)
{
	errno = EIO;
	return -1;
}

static void
test_crash_before_rename(void)
{
	struct offset_entry e[3], f[3], *got;
	char path[4096];
	size_t n;
	int fd, rc, saved;
	char *dir = test_mkdtemp("offcrash");

	entry(&e[0], "t", 0, 10);
	entry(&e[1], "t", 1, 20);
	entry(&e[2], "u", 0, 30);
	CU_ASSERT_FATAL(offsets_save(dir, "grp", e, 3) == 0);
	entry(&f[0], "t", 0, 11);
	entry(&f[1], "t", 1, 21);
	entry(&f[2], "u", 0, 31);

	/* A torn temp file from a save that died before its rename. */
	snprintf(path, sizeof(path), "%s/.tmp-AbC123", dir);
	CU_ASSERT_FATAL((fd = open(path, O_WRONLY | O_CREAT, 0644)) != -1);
	CU_ASSERT_FATAL(write(fd, "flume-offsets 1\ngroup grp\nt 0 1", 31) == 31);
	close(fd);
	CU_ASSERT_FATAL(offsets_load(dir, "grp", &got, &n) == 0);
	check_equal(got, n, e, 3);
	free(got);

	/* A save whose write fails at every point: old file still there. */
	for (io_budget = 0; io_budget < 40; io_budget += 3) {
		long long b = io_budget;

		store_io.write = enospc_write;
		errno = 0;
		rc = offsets_save(dir, "grp", f, 3);
		saved = errno;
		store_io_reset();
		CU_ASSERT_FATAL(rc == -1);
		CU_ASSERT_FATAL(saved == ENOSPC);
		CU_ASSERT_FATAL(offsets_load(dir, "grp", &got, &n) == 0);
		check_equal(got, n, e, 3);
		free(got);
		/* The failed save removed its own temp file. */
		CU_ASSERT_FATAL(count_files(dir) == 2);
		io_budget = b;
	}
	/* fsync failing: not renamed either. */
	store_io.fdatasync = failing_sync;
	errno = 0;
	rc = offsets_save(dir, "grp", f, 3);
	saved = errno;
	store_io_reset();
	CU_ASSERT(rc == -1 && saved == EIO);
	CU_ASSERT_FATAL(offsets_load(dir, "grp", &got, &n) == 0);
	check_equal(got, n, e, 3);
	free(got);

	/* Then a save goes through, and the stray temp file is not a group. */
	CU_ASSERT_FATAL(offsets_save(dir, "grp", f, 3) == 0);
	CU_ASSERT_FATAL(offsets_load(dir, "grp", &got, &n) == 0);
	check_equal(got, n, f, 3);
	free(got);
	{
		char **groups;
		size_t ng, i;

		CU_ASSERT_FATAL(offsets_list(dir, &groups, &ng) == 0);
		CU_ASSERT(ng == 1 && strcmp(groups[0], "grp") == 0);
		for (i = 0; i < ng; i++)
			free(groups[i]);
		free(groups);
	}
	test_rmtree(dir);
	free(dir);
}

static void
test_corrupt(void)
{
	struct offset_entry e[2], *got;
	char path[4096], *orig, *bad;
	struct stat st;
	size_t n, i, len;
	int fd, refused = 0;
	char *dir = test_mkdtemp("offcorrupt");

	entry(&e[0], "orders", 3, 4242);
	entry(&e[1], "orders", 4, 17);
	CU_ASSERT_FATAL(offsets_save(dir, "g", e, 2) == 0);
	snprintf(path, sizeof(path), "%s/g.offsets", dir);
	CU_ASSERT_FATAL(stat(path, &st) == 0);
	len = (size_t)st.st_size;
	orig = malloc(len);
	bad = malloc(len);
	CU_ASSERT_FATAL(orig != NULL && bad != NULL);
	CU_ASSERT_FATAL((fd = open(path, O_RDONLY)) != -1);
	CU_ASSERT_FATAL(read(fd, orig, len) == (ssize_t)len);
	close(fd);

	/* Every single-byte change and every truncation is refused. */
	for (i = 0; i < len; i++) {
		memcpy(bad, orig, len);
		bad[i] ^= 0x01;
		CU_ASSERT_FATAL((fd = open(path, O_WRONLY | O_TRUNC)) != -1);
		CU_ASSERT_FATAL(write(fd, bad, len) == (ssize_t)len);
		close(fd);
		errno = 0;
		if (offsets_load(dir, "g", &got, &n) == -1 && errno == EBADMSG)
			refused++;
		CU_ASSERT(got == NULL && n == 0);
		CU_ASSERT_FATAL((fd = open(path, O_WRONLY | O_TRUNC)) != -1);
		CU_ASSERT_FATAL(write(fd, orig, i) == (ssize_t)i);
		close(fd);
		errno = 0;
		if (offsets_load(dir, "g", &got, &n) == -1 && errno == EBADMSG)
			refused++;
	}
	CU_ASSERT(refused == (int)(2 * len));

	/* The file of another group under this name is refused too. */
	CU_ASSERT_FATAL(offsets_save(dir, "h", e, 2) == 0);
	snprintf(bad, len, "%s/h.offsets", dir);
	CU_ASSERT_FATAL(rename(bad, path) == 0);
	errno = 0;
	CU_ASSERT(offsets_load(dir, "g", &got, &n) == -1 && errno == EBADMSG);

	free(orig);
	free(bad);
	test_rmtree(dir);
	free(dir);
}

static void
test_names_and_list(void)
{
	struct offset_entry e, *got;
	char **groups, name[300];
	size_t n, i;
	char *dir = test_mkdtemp("offlist");

	entry(&e, "t", 0, 1);
	CU_ASSERT_FATAL(offsets_list(dir, &groups, &n) == 0);
	CU_ASSERT(n == 0);
	free(groups);
	CU_ASSERT_FATAL(offsets_save(dir, "zeta", &e, 1) == 0);
	CU_ASSERT_FATAL(offsets_save(dir, "alpha", &e, 1) == 0);
	CU_ASSERT_FATAL(offsets_save(dir, ".hidden-ish", &e, 1) == 0);
	CU_ASSERT_FATAL(offsets_list(dir, &groups, &n) == 0);
	CU_ASSERT_FATAL(n == 3);
	CU_ASSERT(strcmp(groups[0], ".hidden-ish") == 0);
	CU_ASSERT(strcmp(groups[1], "alpha") == 0);
	CU_ASSERT(strcmp(groups[2], "zeta") == 0);
	for (i = 0; i < n; i++)
		free(groups[i]);
	free(groups);

	/* Names that could leave the directory are refused. */
	errno = 0;
	CU_ASSERT(offsets_save(dir, "../x", &e, 1) == -1 && errno == EINVAL);
	errno = 0;
	CU_ASSERT(offsets_save(dir, "..", &e, 1) == -1 && errno == EINVAL);
	errno = 0;
	CU_ASSERT(offsets_save(dir, "", &e, 1) == -1 && errno == EINVAL);
	errno = 0;
	CU_ASSERT(offsets_load(dir, "a/b", &got, &n) == -1 && errno == EINVAL);
	/* An entry with a bad topic name is refused, nothing written. */
	snprintf(e.topic, sizeof(e.topic), "no space");
	errno = 0;
	CU_ASSERT(offsets_save(dir, "alpha2", &e, 1) == -1 && errno == EINVAL);
	/* 247 bytes + ".offsets" is NAME_MAX; 248 does not fit a file name. */
	entry(&e, "t", 0, 5);
	memset(name, 'g', 247);
	name[247] = '\0';
	CU_ASSERT_FATAL(offsets_save(dir, name, &e, 1) == 0);
	CU_ASSERT_FATAL(offsets_load(dir, name, &got, &n) == 0);
	CU_ASSERT(n == 1 && got[0].offset == 5);
	free(got);
	name[247] = 'g';
	name[248] = '\0';
	errno = 0;
	CU_ASSERT(offsets_save(dir, name, &e, 1) == -1 && errno == ENAMETOOLONG);
	CU_ASSERT_FATAL(offsets_list(dir, &groups, &n) == 0);
	CU_ASSERT(n == 4);
	for (i = 0; i < n; i++)
		free(groups[i]);
	free(groups);
	test_rmtree(dir);
	free(dir);
}

/* The fdatasync seam's log: the directories synced, in order. */
static char	synced[8][4096];
static int	nsynced;

static int
logging_sync(int fd)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (nsynced < 8 && (n = readlink(link, synced[nsynced],
	    sizeof(synced[0]) - 1)) > 0)
		synced[nsynced++][n] = '\0';
	return fdatasync(fd);
}

/* Last position of path in the sync log, -1 if it was not synced. */
static int
synced_at(const char *path)
{
	char real[4096];
	int i;

	if (realpath(path, real) == NULL)
		return -1;
	for (i = nsynced - 1; i >= 0; i--)
		if (strcmp(synced[i], real) == 0)
			break;
	return i;
}

static void
check_group(const char *dir, const char *group, int64_t off)
{
	struct offset_entry *got;
	size_t n;

	CU_ASSERT_FATAL(offsets_load(dir, group, &got, &n) == 0);
	CU_ASSERT(n == 1 && strcmp(got[0].topic, "t") == 0 &&
	    got[0].partition == 0 && got[0].offset == off);
	free(got);
}

/*
 * A data directory of the old layout: the group files move to
 * OFFSETS_DIR, the new directory synced before the old one, the old
 * directory removed with the temp file a cut save left; run again, it
 * finds nothing to do.
 */
static void
test_migrate(void)
{
	struct offsets_migration m;
	struct offset_entry e;
	char old[2048], new[2048], path[4096];
	char *top = test_mkdtemp("offmig");
	int fd, i_new, i_old;

	snprintf(old, sizeof(old), "%s/%s", top, OFFSETS_OLD_DIR);
	snprintf(new, sizeof(new), "%s/%s", top, OFFSETS_DIR);
	entry(&e, "t", 0, 41);
	CU_ASSERT_FATAL(offsets_save(old, "g1", &e, 1) == 0);
	entry(&e, "t", 0, 42);
	CU_ASSERT_FATAL(offsets_save(old, "g2", &e, 1) == 0);
	snprintf(path, sizeof(path), "%s/.tmp-AbC123", old);
	CU_ASSERT_FATAL((fd = open(path, O_CREAT | O_WRONLY, 0644)) != -1);
	close(fd);

	nsynced = 0;
	store_io.fdatasync = logging_sync;
	CU_ASSERT_FATAL(offsets_migrate(top, &m) == 0);
	store_io_reset();
	CU_ASSERT(m.moved == 2 && m.kept == 0 && m.old_left == 0);
	check_group(new, "g1", 41);
	check_group(new, "g2", 42);
	CU_ASSERT(count_files(new) == 2);
	CU_ASSERT(access(old, F_OK) == -1 && errno == ENOENT);
	/* The new entries are durable before the old ones go. */
	i_new = synced_at(new);
	CU_ASSERT(i_new >= 0);
	CU_ASSERT(nsynced >= 3);
	/* The old directory is gone: its sync is the one between. */
	for (i_old = 0; i_old < nsynced; i_old++)
		if (strstr(synced[i_old], "/" OFFSETS_OLD_DIR) != NULL)
			break;
	CU_ASSERT(i_old < nsynced && i_new < i_old);
	CU_ASSERT(synced_at(top) > i_old);

	CU_ASSERT_FATAL(offsets_migrate(top, &m) == 0);
	CU_ASSERT(m.moved == 0 && m.kept == 0 && m.old_left == 0);
	check_group(new, "g1", 41);
	test_rmtree(top);
	free(top);
}

/*
 * A group in both places keeps the new file and leaves the old one; an
 * old directory that is also a topic a client made stays, topic and all.
 * A sync that fails is an error, and what moved stays moved.
 */
static void
test_migrate_partial(void)
{
	struct offsets_migration m;
	struct offset_entry e;
	char old[2048], new[2048], path[4096];
	char *top = test_mkdtemp("offmig2");

	snprintf(old, sizeof(old), "%s/%s", top, OFFSETS_OLD_DIR);
	snprintf(new, sizeof(new), "%s/%s", top, OFFSETS_DIR);
	entry(&e, "t", 0, 3);
	CU_ASSERT_FATAL(offsets_save(old, "g3", &e, 1) == 0);
	entry(&e, "t", 0, 4);
	CU_ASSERT_FATAL(offsets_save(old, "g4", &e, 1) == 0);
	entry(&e, "t", 0, 33);
	CU_ASSERT_FATAL(offsets_save(new, "g3", &e, 1) == 0);
	snprintf(path, sizeof(path), "%s/partition-0", old);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);

	CU_ASSERT_FATAL(offsets_migrate(top, &m) == 0);
	CU_ASSERT(m.moved == 1 && m.kept == 1 && m.old_left == 1);
	check_group(new, "g3", 33);
	check_group(new, "g4", 4);
	check_group(old, "g3", 3);
	snprintf(path, sizeof(path), "%s/g4.offsets", old);
	CU_ASSERT(access(path, F_OK) == -1 && errno == ENOENT);
	snprintf(path, sizeof(path), "%s/partition-0", old);
	CU_ASSERT(access(path, F_OK) == 0);

	entry(&e, "t", 0, 5);
	CU_ASSERT_FATAL(offsets_save(old, "g5", &e, 1) == 0);
	store_io.fdatasync = failing_sync;
	errno = 0;
	CU_ASSERT(offsets_migrate(top, &m) == -1 && errno == EIO);
	store_io_reset();
	CU_ASSERT(m.moved == 1);
	check_group(new, "g5", 5);
	snprintf(path, sizeof(path), "%s/g5.offsets", old);
	CU_ASSERT(access(path, F_OK) == -1 && errno == ENOENT);

	/* No old directory at all: nothing to do. */
	test_rmtree(old);
	CU_ASSERT_FATAL(offsets_migrate(top, &m) == 0);
	CU_ASSERT(m.moved == 0 && m.kept == 0 && m.old_left == 0);
	test_rmtree(top);
	free(top);
}

TEST_SUITE("offsets", NULL, NULL,
    { "round trip", test_round_trip },
    { "crash before rename", test_crash_before_rename },
    { "corrupt file refused", test_corrupt },
    { "group names and list", test_names_and_list },
    { "the old directory's files move", test_migrate },
    { "a move that finds both, a topic, a failed sync",
	test_migrate_partial });
