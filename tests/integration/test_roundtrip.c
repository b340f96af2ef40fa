/*
 * The broker as a user drives it with the tools: produce keyed and keyless
 * messages, read them back exactly, restart the master, kill a worker.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;

static int
setup(void)
{
	return flumed_start(&d, "partitions = 3") == 0 ? 0 : -1;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

static uint32_t
fnv1a(const char *s)
{
	uint32_t h = 0x811c9dc5;

	for (; *s != '\0'; s++) {
		h ^= (uint8_t)*s;
		h *= 0x01000193;
	}
	return h;
}

/* One consumed record, parsed from "-f '%p %o %k %v\n'". */
struct rec {
	int	 partition;
	long	 offset;
	char	 key[64];
	char	 value[128];
};

static int
consume_all(const char *topic, struct rec *recs, int max)
{
	const char *argv[] = { "flume-consume", "-t", topic, "-o", "beginning",
	    "-e", "-f", "%p %o %k %v\\n", NULL };
	char *out = NULL, *line, *save = NULL;
	int n = 0;

	if (run_tool(&d, NULL, &out, 20000, argv) != 0) {
		free(out);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line != NULL && n < max;
	    line = strtok_r(NULL, "\n", &save)) {
		struct rec *r = &recs[n];

		memset(r, 0, sizeof(*r));
		if (sscanf(line, "%d %ld %63s %127s", &r->partition, &r->offset,
		    r->key, r->value) == 4)
			n++;
		else if (memset(r, 0, sizeof(*r)), sscanf(line, "%d %ld  %127s",
		    &r->partition, &r->offset, r->value) == 3)
			n++;	/* null key prints as empty */
	}
	free(out);
	return n;
}

static const struct rec *
find_rec(const struct rec *recs, int n, int partition, long offset)
{
	for (int i = 0; i < n; i++)
		if (recs[i].partition == partition && recs[i].offset == offset)
			return &recs[i];
	return NULL;
}

static void
test_create_and_describe(void)
{
	const char *create[] = { "flume-admin", "create", "rt", "-p", "4", NULL };
	const char *again[] = { "flume-admin", "create", "rt", "-p", "4", NULL };
	const char *topics[] = { "flume-admin", "topics", NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 10000, create), 0);
	CU_ASSERT_STRING_EQUAL(out, "created rt with 4 partitions\n");
	free(out);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, again), 1);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, topics), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "rt"));
	free(out);
}

/* Keyed messages: same key, same partition (FNV-1a mod 4); offsets exact. */
static void
test_keyed_roundtrip(void)
{
	const char *argv[] = { "flume-produce", "-t", "rt", "-K", ":", "-v", NULL };
	char input[4096], *out = NULL, *line, *save = NULL;
	int part[40], next[4] = { 0, 0, 0, 0 };
	long off[40];
	struct rec recs[64];
	size_t len = 0;
	int i, n;

	for (i = 0; i < 40; i++)
		len += (size_t)snprintf(input + len, sizeof(input) - len,
		    "key-%d:value-%d\n", i % 7, i);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, input, &out, 20000, argv), 0);
	i = 0;
	for (line = strtok_r(out, "\n", &save); line != NULL && i < 40;
	    line = strtok_r(NULL, "\n", &save), i++)
		CU_ASSERT_EQUAL(sscanf(line, "%d %ld", &part[i], &off[i]), 2);
	free(out);
	CU_ASSERT_EQUAL_FATAL(i, 40);
	for (i = 0; i < 40; i++) {
		char key[32];

		snprintf(key, sizeof(key), "key-%d", i % 7);
		CU_ASSERT_EQUAL(part[i], (int)(fnv1a(key) % 4));
		/* Offsets of one partition follow input order with no gap. */
		CU_ASSERT_EQUAL(off[i], next[part[i]]);
		next[part[i]] = (int)off[i] + 1;
	}
	n = consume_all("rt", recs, 64);
	CU_ASSERT_EQUAL_FATAL(n, 40);
	for (i = 0; i < 40; i++) {
		const struct rec *r = find_rec(recs, n, part[i], off[i]);
		char key[32], value[32];

		snprintf(key, sizeof(key), "key-%d", i % 7);
		snprintf(value, sizeof(value), "value-%d", i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_STRING_EQUAL(r->key, key);
		CU_ASSERT_STRING_EQUAL(r->value, value);
	}
}

/* Keyless messages given as arguments, and an explicit partition. */
static void
test_keyless_and_explicit_partition(void)
{
	const char *argv[] = { "flume-produce", "-t", "free", "-v", "one", "two",
	    "three", NULL };
	const char *pinned[] = { "flume-produce", "-t", "free", "-p", "2", "-v",
	    "pinned", NULL };
	struct rec recs[16];
	char *out = NULL;
	int p[3], n, i;
	long o[3];

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 20000, argv), 0);
	CU_ASSERT_EQUAL(sscanf(out, "%d %ld\n%d %ld\n%d %ld", &p[0], &o[0],
	    &p[1], &o[1], &p[2], &o[2]), 6);
	free(out);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 20000, pinned), 0);
	CU_ASSERT_PTR_NOT_NULL(out);
	CU_ASSERT_EQUAL(strncmp(out, "2 ", 2), 0);
	free(out);
	n = consume_all("free", recs, 16);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	for (i = 0; i < 3; i++) {
		const char *want[] = { "one", "two", "three" };
		const struct rec *r = find_rec(recs, n, p[i], o[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_STRING_EQUAL(r->value, want[i]);
		CU_ASSERT(p[i] >= 0 && p[i] < 3);
	}
}

/* SIGTERM, start again: everything is there and offsets continue. */
static void
test_restart_keeps_everything(void)
{
	const char *argv[] = { "flume-produce", "-t", "rt", "-k", "key-0", "-v",
	    "after-restart", NULL };
	struct rec before[64], after[64];
	char *out = NULL;
	int nb, na, p;
	long o, end = -1;

	nb = consume_all("rt", before, 64);
	CU_ASSERT_EQUAL_FATAL(nb, 40);
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	na = consume_all("rt", after, 64);
	CU_ASSERT_EQUAL_FATAL(na, nb);
	CU_ASSERT_EQUAL(memcmp(before, after, sizeof(before[0]) * (size_t)nb), 0);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 20000, argv), 0);
	CU_ASSERT_EQUAL(sscanf(out, "%d %ld", &p, &o), 2);
	free(out);
	for (int i = 0; i < nb; i++)
		if (before[i].partition == p && before[i].offset > end)
			end = before[i].offset;
	CU_ASSERT_EQUAL(p, (int)(fnv1a("key-0") % 4));
	CU_ASSERT_EQUAL(o, end + 1);
}

/* The README's walk-through, exactly as a user types it. */
static void
test_user_walkthrough(void)
{
	const char *produce[] = { "flume-produce", "-t", "orders", "-k", "user-1", NULL };
	const char *consume[] = { "flume-consume", "-t", "orders", "-o", "beginning",
	    "-e", NULL };
	char *out = NULL;
	pid_t victim, fresh = -1;
	long long deadline;

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, "a\nb\nc\n", NULL, 20000, produce), 0);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_STRING_EQUAL(out, "a\nb\nc\n");
	free(out);
	victim = flumed_child_pid(&d, "worker", 1);
	CU_ASSERT_FATAL(victim > 0);
	CU_ASSERT_EQUAL_FATAL(kill(victim, SIGKILL), 0);
	deadline = support_now_ms() + 10000;
	while (support_now_ms() < deadline) {
		fresh = flumed_child_pid(&d, "worker", 1);
		if (fresh > 0 && fresh != victim)
			break;
		usleep(20 * 1000);
	}
	CU_ASSERT(fresh > 0 && fresh != victim);
	CU_ASSERT(flumed_log_count(&d, "signal 9") >= 1);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_STRING_EQUAL(out, "a\nb\nc\n");
	free(out);
}

TEST_SUITE("roundtrip", setup, teardown,
    { "create and describe", test_create_and_describe },
    { "keyed round trip", test_keyed_roundtrip },
    { "keyless and explicit partition", test_keyless_and_explicit_partition },
    { "restart keeps everything", test_restart_keeps_everything },
    { "user walk-through", test_user_walkthrough });
