/*
 * The short chaos run inside make check: flume-chaos (tests/chaos/chaos.c)
 * starts its own daemon, kills workers, the writer and the master while
 * idempotent producers send 150000 numbered messages and a consumer
 * group of three reads them, then reads every partition back.  Nothing
 * acknowledged may be lost and nothing stored twice.
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/integration/support.h"

static void
test_short_chaos(void)
{
	const char *argv[] = { "flume-chaos", "-n", "150000", "-r", "25000",
	    "-p", "2", "-P", "3", "-g", "3", "-k", "150-300", "-W", "5",
	    "-d", "60", "-s", "12345", NULL };
	struct flumed none;
	char *out = NULL, *line;
	unsigned long long acked = 0, lost = 1, dup = 1, redelivered = 0;
	long long unavail = -1;
	int kills = 0, st;

	/* run_tool passes "-b <broker>": for flume-chaos, -b names the programs. */
	memset(&none, 0, sizeof(none));
	snprintf(none.broker, sizeof(none.broker), "%s", support_bindir());
	st = run_tool(&none, NULL, &out, 150000, argv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	line = strstr(out, "chaos: kills=");
	CU_ASSERT_PTR_NOT_NULL(line);
	if (line != NULL)
		CU_ASSERT_EQUAL(sscanf(line, "chaos: kills=%d acked=%llu lost=%llu "
		    "duplicated=%llu redelivered=%llu max_unavailable_ms=%lld",
		    &kills, &acked, &lost, &dup, &redelivered, &unavail), 6);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_EQUAL(lost, 0);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(acked, 150000);
	/* The master and a few workers (or the writer, every fifth kill). */
	CU_ASSERT(kills >= 3);
	CU_ASSERT(unavail >= 0);
	fprintf(stderr, "%s", out);
	free(out);
}

TEST_SUITE("chaos", NULL, NULL,
    { "short chaos run: nothing lost, nothing duplicated", test_short_chaos });
