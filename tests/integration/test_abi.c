/*
 * libflume's binary interface: libflume.so exports the API of flume.h
 * (every symbol named flume_*) and nothing else, so a program can never
 * come to depend on the library's internals (the codecs, the buffers,
 * CRC-32C); and the installed libflume.a carries none of the tools'
 * helpers (libflumetool.a, not installed).
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

static void
count_member(const char *line, void *arg)
{
	int *tool = arg;

	if (strcmp(line, "libflume_tool.o") == 0 ||
	    strcmp(line, "libflume_stats.o") == 0 ||
	    strcmp(line, "bench_stats.o") == 0)
		(*tool)++;
}

static void
test_archive_has_no_tool_helpers(void)
{
	char cmd[1024];
	int tool = 0;

	snprintf(cmd, sizeof(cmd), "ar t %s/libflume.a", build_dir());
	CU_ASSERT(each_line(cmd, count_member, &tool) > 0);
	CU_ASSERT_EQUAL(tool, 0);
	/* ... they are in the tools' own archive. */
	tool = 0;
	snprintf(cmd, sizeof(cmd), "ar t %s/libflumetool.a", build_dir());
	CU_ASSERT_EQUAL(each_line(cmd, count_member, &tool), 3);
	CU_ASSERT_EQUAL(tool, 3);
}

TEST_SUITE("abi", NULL, NULL,
	{ "libflume.so exports only flume_*", test_so_exports_only_api },
	{ "libflume.a carries no tool helper", test_archive_has_no_tool_helpers });
