/*
 * What every program promises on its command line, as kcat and Kafka's
 * tools do: -h/--help prints the usage on stdout and exits 0,
 * -V/--version prints "name VERSION" (proto/version.h, the one place the
 * version is written) and exits 0, and an unknown option prints the usage
 * on stderr, nothing on stdout, and exits non-zero.
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/version.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static const char *const programs[] = {
	"flume-master", "flume-produce", "flume-consume", "flume-admin",
	"flume-bench", "flume-kbench", "flume-mirror",
};
#define NPROGRAMS	(sizeof(programs) / sizeof(programs[0]))

/*
 * Run `bin/prog arg` (bounded by timeout(1)) with stdin from /dev/null;
 * its stdout (at most outsz - 1 bytes) into out, its exit status, or -1.
 */
static int
run(const char *prog, const char *arg, char *out, size_t outsz)
{
	char cmd[1024];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "timeout 10 %s/%s %s </dev/null 2>/dev/null",
	    support_bindir(), prog, arg);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	n = fread(out, 1, outsz - 1, f);
	out[n] = '\0';
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void
test_help(void)
{
	char out[4096], want[64];
	const char *arg[] = { "-h", "--help" };
	size_t i, j;

	for (i = 0; i < NPROGRAMS; i++) {
		snprintf(want, sizeof(want), "usage: %s ", programs[i]);
		for (j = 0; j < 2; j++) {
			CU_ASSERT_EQUAL(run(programs[i], arg[j], out, sizeof(out)), 0);
			if (strncmp(out, want, strlen(want)) != 0)
				fprintf(stderr, "%s %s: %s\n", programs[i], arg[j], out);
			CU_ASSERT_EQUAL(strncmp(out, want, strlen(want)), 0);
			/* The usage names the help and version options. */
			CU_ASSERT_PTR_NOT_NULL(strstr(out, "--help"));
			CU_ASSERT_PTR_NOT_NULL(strstr(out, "--version"));
		}
	}
}

static void
test_version(void)
{
	char out[256], want[64];
	const char *arg[] = { "-V", "--version" };
	size_t i, j;

	for (i = 0; i < NPROGRAMS; i++) {
		snprintf(want, sizeof(want), "%s %s\n", programs[i], FLUME_VERSION);
		for (j = 0; j < 2; j++) {
			CU_ASSERT_EQUAL(run(programs[i], arg[j], out, sizeof(out)), 0);
			CU_ASSERT_STRING_EQUAL(out, want);
		}
	}
}

static void
test_bad_option(void)
{
	char out[256];
	size_t i;
	int st;

	for (i = 0; i < NPROGRAMS; i++) {
		/* flume-bench and flume-kbench take their mode first. */
		st = run(programs[i], strstr(programs[i], "bench") != NULL ?
		    "produce --no-such-option" : "--no-such-option", out, sizeof(out));
		CU_ASSERT(st > 0);
		CU_ASSERT_STRING_EQUAL(out, "");
	}
}

TEST_SUITE("cli", NULL, NULL,
	{ "-h and --help print the usage on stdout, exit 0", test_help },
	{ "-V and --version print the one version, exit 0", test_version },
	{ "an unknown option fails with nothing on stdout", test_bad_option });
