/*
 * flume-admin group NAME reset through the real daemon: a group's
 * committed offsets set to an offset, the earliest, the latest and a
 * time, refused while the group has a member, and a new member starting
 * where the reset put it.
 *
 * Topic "orders" has two partitions: partition 0 holds "m-000000".."m-000099"
 * (offsets 0..99, produced in two runs: before and after time T),
 * partition 1 holds "m-001000".."m-001059" (offsets 0..59).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/flume.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

static long long
epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Produce "m-NNNNNN" for n in [from, from + count) to orders/part. */
static int
produce(int part, int from, int count)
{
	char pstr[16], *in = malloc((size_t)count * 16 + 1);
	const char *argv[] = { "flume-produce", "-t", "orders", "-p", pstr,
	    "-a", "all", NULL };
	size_t len = 0;
	int i, rc;

	snprintf(pstr, sizeof(pstr), "%d", part);
	in[0] = '\0';
	for (i = from; i < from + count; i++)
		len += (size_t)sprintf(in + len, "m-%06d\n", i);
	rc = run_tool(&d, in, NULL, 30000, argv);
	free(in);
	return rc;
}

/* The committed offset of group G on orders/part; -2 on failure. */
static long long
committed(int part)
{
	struct flume_client *c;
	int64_t off = -2;

	if ((c = flume_connect(d.broker)) == NULL)
		return -2;
	if (flume_committed_offset(c, "G", "orders", part, &off) == -1)
		off = -2;
	flume_close(c);
	return (long long)off;
}

/* flume-admin group G reset ARGS...; exit status, stdout in *out. */
static int
reset(char **out, const char *a1, const char *a2, const char *a3,
    const char *a4, const char *a5)
{
	const char *argv[] = { "flume-admin", "group", "G", "reset", a1, a2,
	    a3, a4, a5, NULL };

	return run_tool(&d, NULL, out, 15000, argv);
}

/* Lines "m-NNNNNN" for n in [from, to), as a consumer prints them. */
static char *
expected(int from, int to)
{
	char *s = malloc((size_t)(to - from) * 16 + 1);
	size_t len = 0;
	int i;

	s[0] = '\0';
	for (i = from; i < to; i++)
		len += (size_t)sprintf(s + len, "m-%06d\n", i);
	return s;
}

static void
test_reset(void)
{
	const char *consume[] = { "flume-consume", "-g", "G", "-t", "orders",
	    "-o", "beginning", "-e", NULL };
	const char *show[] = { "flume-admin", "group", "G", NULL };
	struct flume_group_conf gconf;
	struct flume_client *c;
	struct flume_group *g;
	struct flume_message m;
	char *out = NULL, *want, tstr[32], fstr[32];
	long long t, deadline;
	int rc;

	CU_ASSERT_FATAL(flumed_start(&d, "partitions = 2\n") == 0);
	CU_ASSERT_FATAL(produce(0, 0, 50) == 0);
	/* T: after every timestamp of the first run, before the second's. */
	t = epoch_ms() + 1;
	deadline = support_now_ms() + 1000;
	while (epoch_ms() <= t && support_now_ms() < deadline)
		;
	CU_ASSERT_FATAL(epoch_ms() > t);
	CU_ASSERT_FATAL(produce(0, 50, 50) == 0);
	CU_ASSERT_FATAL(produce(1, 1000, 60) == 0);

	/* The group reads everything and commits it, then stops. */
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, consume), 0);
	free(out);
	CU_ASSERT_EQUAL(committed(0), 100);
	CU_ASSERT_EQUAL(committed(1), 60);

	/* Partition 0 back to 40: shown, and the other one untouched. */
	CU_ASSERT_EQUAL(reset(&out, "-t", "orders", "-p", "0", "--to-offset"),
	    2);	/* --to-offset without its number: usage, nothing sent */
	free(out);
	CU_ASSERT_EQUAL(committed(0), 100);
	{
		const char *argv[] = { "flume-admin", "group", "G", "reset",
		    "-t", "orders", "-p", "0", "--to-offset", "40", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 15000, argv), 0);
	}
	CU_ASSERT_PTR_NOT_NULL(out != NULL ? strstr(out, "orders                           0                   40\n") : NULL);
	free(out);
	CU_ASSERT_EQUAL(committed(0), 40);
	CU_ASSERT_EQUAL(committed(1), 60);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 15000, show), 0);
	CU_ASSERT_PTR_NOT_NULL(out != NULL ? strstr(out, "orders                           0                   40                  100                   60\n") : NULL);
	free(out);

	/* A new member starts at 40: exactly offsets 40..99 of partition 0. */
	{
		const char *argv[] = { "flume-consume", "-g", "G", "-t",
		    "orders", "-e", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
	}
	want = expected(40, 100);
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "", want);
	free(want);
	free(out);
	CU_ASSERT_EQUAL(committed(0), 100);

	/* Refused while a member is in the group; nothing changes. */
	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
	flume_group_conf_init(&gconf);
	gconf.auto_commit_ms = 0;
	g = flume_group_join(c, "G", (const char *const[]){ "orders" }, 1, &gconf);
	CU_ASSERT_FATAL(g != NULL);
	CU_ASSERT_EQUAL(flume_group_poll(g, &m, 100), 0);
	CU_ASSERT_EQUAL(reset(&out, "-t", "orders", "--to-earliest", NULL,
	    NULL), 1);
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "", "");
	free(out);
	CU_ASSERT_EQUAL(committed(0), 100);
	CU_ASSERT_EQUAL(committed(1), 60);
	CU_ASSERT_EQUAL(flume_group_close(g), 0);
	flume_close(c);

	/* Earliest, latest, and by time, each exactly. */
	CU_ASSERT_EQUAL(reset(&out, "-t", "orders", "--to-earliest", NULL,
	    NULL), 0);
	free(out);
	CU_ASSERT_EQUAL(committed(0), 0);
	CU_ASSERT_EQUAL(committed(1), 0);
	CU_ASSERT_EQUAL(reset(&out, "-t", "orders", "--to-latest", NULL,
	    NULL), 0);
	free(out);
	CU_ASSERT_EQUAL(committed(0), 100);
	CU_ASSERT_EQUAL(committed(1), 60);
	snprintf(tstr, sizeof(tstr), "%lld", t);
	CU_ASSERT_EQUAL(reset(&out, "-t", "orders", "-p", "0", "--to-time"),
	    2);
	free(out);
	{
		const char *argv[] = { "flume-admin", "group", "G", "reset",
		    "-t", "orders", "-p", "0", "--to-time", tstr, NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 15000, argv), 0);
		free(out);
	}
	CU_ASSERT_EQUAL(committed(0), 50);
	CU_ASSERT_EQUAL(committed(1), 60);
	/* A time after every record: the log end. */
	snprintf(fstr, sizeof(fstr), "%lld", epoch_ms() + 3600000);
	{
		const char *argv[] = { "flume-admin", "group", "G", "reset",
		    "-t", "orders", "--to-time", fstr, NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 15000, argv), 0);
		free(out);
	}
	CU_ASSERT_EQUAL(committed(0), 100);
	CU_ASSERT_EQUAL(committed(1), 60);
	/* An offset past the end is clamped to it; an unknown topic fails. */
	{
		const char *argv[] = { "flume-admin", "group", "G", "reset",
		    "-t", "orders", "-p", "1", "--to-offset", "999", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 15000, argv), 0);
		free(out);
	}
	CU_ASSERT_EQUAL(committed(1), 60);
	rc = reset(&out, "-t", "nosuch", "--to-earliest", NULL, NULL);
	CU_ASSERT_EQUAL(rc, 1);
	free(out);
}

TEST_SUITE("reset", NULL, teardown,
    { "reset to offset, earliest, latest, time; refused with members", test_reset });
