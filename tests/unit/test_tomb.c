/*
 * Tombstones of deleted topics (store/tomb.h): the rename, the sweep
 * that removes them bottom-up without following a link out of the data
 * directory, and what counts as one.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/tomb.h"
#include "store/topic.h"
#include "tests/harness.h"

static void
touch(const char *dir, const char *name)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "w"));
	fputs("x", f);
	fclose(f);
}

static int
present(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

static void
test_names(void)
{
	CU_ASSERT(tomb_is(".deleted-orders~7"));
	CU_ASSERT(tomb_is(".deleted-a~0"));
	/* A valid topic name is never a tombstone ('~' is not allowed). */
	CU_ASSERT(!tomb_is(".deleted-orders"));
	CU_ASSERT(topic_name_valid(".deleted-orders", 15));
	CU_ASSERT(!topic_name_valid(".deleted-orders~7", 17));
	CU_ASSERT(!tomb_is("orders"));
	CU_ASSERT(!tomb_is("deleted-orders~1"));
}

static void
test_bury_and_sweep(void)
{
	char *data = test_mkdtemp("tomb"), *outside = test_mkdtemp("tomb-out");
	char path[PATH_MAX], tomb[PATH_MAX], want[PATH_MAX];
	int removed = -1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	CU_ASSERT_PTR_NOT_NULL_FATAL(outside);
	CU_ASSERT_EQUAL(topic_meta_save(data, "orders", 2, NULL), 0);
	CU_ASSERT_EQUAL(topic_meta_save(data, "keep", 1, NULL), 0);
	snprintf(path, sizeof(path), "%s/orders/partition-0", data);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	touch(path, "00000000000000000000.log");
	touch(outside, "precious");
	/* A link inside the topic: removed, never followed. */
	snprintf(path, sizeof(path), "%s/orders/partition-0/link", data);
	CU_ASSERT_EQUAL(symlink(outside, path), 0);

	CU_ASSERT_EQUAL(tomb_bury(data, "orders", 7, tomb, sizeof(tomb)), 0);
	snprintf(want, sizeof(want), "%s/.deleted-orders~7", data);
	CU_ASSERT_STRING_EQUAL(tomb, want);
	CU_ASSERT(!present(data, "orders"));
	CU_ASSERT(present(data, ".deleted-orders~7"));
	/* Recovery lists no tombstone as a topic. */
	{
		char **names = NULL;
		size_t n = 0, i;

		CU_ASSERT_EQUAL(topic_list(data, &names, &n), 0);
		CU_ASSERT_EQUAL(n, 1);
		if (n == 1)
			CU_ASSERT_STRING_EQUAL(names[0], "keep");
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	/* No such topic: ENOENT, nothing made. */
	errno = 0;
	CU_ASSERT_EQUAL(tomb_bury(data, "none", 1, tomb, sizeof(tomb)), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	errno = 0;
	CU_ASSERT_EQUAL(tomb_bury(data, "../x", 1, tomb, sizeof(tomb)), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);

	CU_ASSERT_EQUAL(tomb_sweep(data, &removed), 0);
	CU_ASSERT_EQUAL(removed, 1);
	CU_ASSERT(!present(data, ".deleted-orders~7"));
	CU_ASSERT(present(data, "keep"));
	CU_ASSERT(present(outside, "precious"));
	/* Nothing left: a second sweep removes nothing. */
	CU_ASSERT_EQUAL(tomb_sweep(data, &removed), 0);
	CU_ASSERT_EQUAL(removed, 0);
	test_rmtree(data);
	test_rmtree(outside);
	free(data);
	free(outside);
}

TEST_SUITE("tomb", NULL, NULL,
    { "names", test_names },
    { "bury and sweep", test_bury_and_sweep });
