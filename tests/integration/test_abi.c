/*
 * libflume's binary interface: libflume.so exports the API of flume.h
 * (every symbol named flume_*) and nothing else, so a program can never
 * come to depend on the library's internals (the codecs, the buffers,
 * CRC-32C); the installed libflume.a exports the same and carries none
 * of the tools' helpers (libflumetool.a, not installed).
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"

static const char *
build_dir(void)
{
	const char *b = getenv("FLUME_BUILD");

	return b != NULL && *b != '\0' ? b : "build";
}

/*
 * Each line of `cmd`'s stdout into fn(line, arg); the number of lines,
 * or -1 if the command failed.
 */
static int
each_line(const char *cmd, void (*fn)(const char *, void *), void *arg)
{
	char line[1024];
	FILE *f;
	int n = 0, st;

	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		fn(line, arg);
		n++;
	}
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return n;
}

static void
count_line(const char *line, void *arg)
{
	(void)line;
	(void)arg;
}

struct tally {
	int	 api;		/* flume_* */
	int	 other;		/* anything else */
	int	 connect;	/* flume_connect seen */
};

static void
tally_symbol(const char *line, void *arg)
{
	struct tally *t = arg;

	if (strncmp(line, "flume_", 6) == 0)
		t->api++;
	else {
		fprintf(stderr, "exported, not flume_*: %s\n", line);
		t->other++;
	}
	if (strcmp(line, "flume_connect") == 0)
		t->connect = 1;
}

static void
test_so_exports_only_api(void)
{
	struct tally t = { 0, 0, 0 };
	char cmd[1024];
	int n;

	snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s/libflume.so "
	    "| awk '{print $3}'", build_dir());
	n = each_line(cmd, tally_symbol, &t);
	CU_ASSERT(n > 0);
	CU_ASSERT_EQUAL(t.other, 0);
	CU_ASSERT_EQUAL(t.api, n);
	CU_ASSERT_EQUAL(t.connect, 1);
}

/*
 * The installed archive: one object whose hidden symbols were made
 * local, so its defined globals are libflume.so's exports, no more
 * (no codec, no buffer, no flume_tool_* helper of libflumetool.a).
 */
static void
test_archive_exports_only_api(void)
{
	struct tally ta = { 0, 0, 0 };
	char cmd[1024];
	int n, so;

	snprintf(cmd, sizeof(cmd), "nm --defined-only --extern-only %s/libflume.a "
	    "| awk 'NF == 3 {print $3}'", build_dir());
	n = each_line(cmd, tally_symbol, &ta);
	CU_ASSERT(n > 0);
	CU_ASSERT_EQUAL(ta.other, 0);
	CU_ASSERT_EQUAL(ta.api, n);
	CU_ASSERT_EQUAL(ta.connect, 1);

	/* The same set as the shared library's dynamic table. */
	snprintf(cmd, sizeof(cmd), "nm --defined-only --extern-only %s/libflume.a "
	    "| awk 'NF == 3 {print $3}' | sort > %s/abi-a.txt && "
	    "nm -D --defined-only %s/libflume.so | awk '{print $3}' | sort "
	    "| diff - %s/abi-a.txt && wc -l < %s/abi-a.txt",
	    build_dir(), build_dir(), build_dir(), build_dir(), build_dir());
	so = each_line(cmd, count_line, NULL);
	CU_ASSERT_EQUAL(so, 1);

	snprintf(cmd, sizeof(cmd), "nm --defined-only --extern-only %s/libflume.a "
	    "| { grep ' flume_tool_' || true; }", build_dir());
	CU_ASSERT_EQUAL(each_line(cmd, count_line, NULL), 0);
	/* ... they are in the tools' own archive. */
	snprintf(cmd, sizeof(cmd), "nm --defined-only --extern-only %s/libflumetool.a "
	    "| grep ' flume_tool_connect$'", build_dir());
	CU_ASSERT_EQUAL(each_line(cmd, count_line, NULL), 1);
}

/*
 * No test hook in a shipped binary: the fault seams (master/fault.h) are
 * in the test build of the broker only, which reads every variable.
 */
static void
test_no_seams_shipped(void)
{
	const char *bin = getenv("FLUME_BIN");
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "strings -a %s/flume-master "
	    "| { grep -E '^FLUME_(FAULT|TEST_)' || true; }",
	    bin != NULL && *bin != '\0' ? bin : "bin");
	CU_ASSERT_EQUAL(each_line(cmd, count_line, NULL), 0);
	snprintf(cmd, sizeof(cmd), "strings -a %s/tests/flume-master-seams "
	    "| grep -Ex 'FLUME_FAULT|FLUME_TEST_FSYNC_LOG|"
	    "FLUME_TEST_CHILD_EXIT|FLUME_TEST_DELETE_CRASH'", build_dir());
	CU_ASSERT_EQUAL(each_line(cmd, count_line, NULL), 4);
}

TEST_SUITE("abi", NULL, NULL,
	{ "libflume.so exports only flume_*", test_so_exports_only_api },
	{ "libflume.a exports only flume_*", test_archive_exports_only_api },
	{ "no fault seam in the shipped flume-master", test_no_seams_shipped });
