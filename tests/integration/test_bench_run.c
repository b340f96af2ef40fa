/*
 * Short runs of the benchmark programs against a real broker with both
 * listeners, asserting counts only (never speed): flume-bench group
 * reads every message of a topic exactly once as counted and leaves the
 * group's committed offsets at the log's end; flume-kbench produces,
 * sends one message per request and consumes through the Kafka listener
 * with every message accounted for on the native side; and flume-kbench
 * group, through the Kafka groups the broker serves, reads every
 * message once as counted and commits to the end.
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/flume.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define RUN_TIMEOUT_S	120

static struct flumed d;
static char kbroker[64];

static int
setup(void)
{
	char extra[256];
	int kport;

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(kbroker, sizeof(kbroker), "127.0.0.1:%d", kport);
	snprintf(extra, sizeof(extra), "kafka_listen = %s\n"
	    "[topic g4]\npartitions = 4\n[topic k1]\npartitions = 1\n"
	    "[topic k3]\npartitions = 3\n", kbroker);
	return flumed_start(&d, extra);
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/*
 * Run `bin/PROG ARGS` (bounded by timeout(1); stderr to the broker's
 * directory) with stdout into out; its exit status, or -1.
 */
static int
bench(char *out, size_t outsz, const char *prog, const char *args)
{
	char cmd[1024];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "timeout %d %s/%s %s </dev/null "
	    "2>>%s/bench.err", RUN_TIMEOUT_S, support_bindir(), prog, args,
	    d.dir);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	n = fread(out, 1, outsz - 1, f);
	out[n] = '\0';
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The integer after "key": in a JSON line; -1 when absent. */
static long long
jnum(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	if ((p = strstr(json, pat)) == NULL)
		return -1;
	return strtoll(p + strlen(pat), NULL, 10);
}

/* bytes_on_wire_per_msg of a JSON line; -1 when absent. */
static double
wire_per_msg(const char *json)
{
	const char *p = strstr(json, "\"bytes_on_wire_per_msg\":");

	return p == NULL ? -1 : strtod(p + strlen("\"bytes_on_wire_per_msg\":"),
	    NULL);
}

/* Sum of the topic's end offsets over its partitions (all start at 0). */
static long long
log_end(const char *topic, int32_t partitions)
{
	struct flume_client *c;
	long long sum = 0;
	int64_t off;
	int32_t p;

	if ((c = flume_connect(d.broker)) == NULL)
		return -1;
	for (p = 0; p < partitions; p++) {
		if (flume_list_offset(c, topic, p, FLUME_OFFSET_END, &off) == -1) {
			sum = -1;
			break;
		}
		sum += off;
	}
	flume_close(c);
	return sum;
}

/* Every partition's committed offset of group equals its log end. */
static void
assert_committed_to_end(const char *group, const char *topic,
    int32_t partitions)
{
	struct flume_client *c;
	int64_t off, end;
	int32_t p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c = flume_connect(d.broker));
	for (p = 0; p < partitions; p++) {
		CU_ASSERT_EQUAL(flume_list_offset(c, topic, p, FLUME_OFFSET_END,
		    &end), 0);
		CU_ASSERT_EQUAL(flume_committed_offset(c, group, topic, p,
		    &off), 0);
		CU_ASSERT(end > 0);
		CU_ASSERT_EQUAL(off, end);
	}
	flume_close(c);
}

/*
 * 20000 messages over 4 partitions by two producers (plus their two
 * warm-up messages), read by a group of three members committing every
 * 500: 20002 distinct messages, committed to the end.
 */
static void
test_native_group(void)
{
	char out[4096], args[512];

	snprintf(args, sizeof(args), "produce -J -b %s -t g4 -n 20000 -c 2",
	    d.broker);
	CU_ASSERT_EQUAL_FATAL(bench(out, sizeof(out), "flume-bench", args), 0);
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 20000);
	CU_ASSERT_EQUAL(jnum(out, "failed"), 0);
	CU_ASSERT_EQUAL_FATAL(log_end("g4", 4), 20002);

	snprintf(args, sizeof(args), "group -J -b %s -t g4 -c 3 -m 500 -g gb1",
	    d.broker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-bench", args), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "{\"mode\":\"group\","));
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 20002);
	CU_ASSERT_EQUAL(jnum(out, "bytes"), 20002 * 100);
	CU_ASSERT_EQUAL(jnum(out, "failed"), 0);
	/* Each commit covers at most 500 of one member's messages. */
	CU_ASSERT(jnum(out, "commits") >= 20002 / 500);
	CU_ASSERT(jnum(out, "redelivered") >= 0);
	assert_committed_to_end("gb1", "g4", 4);

	/* An unknown topic: exit 1, nothing on stdout. */
	snprintf(args, sizeof(args), "group -b %s -t nosuch -g gb1", d.broker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-bench", args), 1);
	CU_ASSERT_STRING_EQUAL(out, "");
	/* Usage errors: exit 2, nothing on stdout. */
	snprintf(args, sizeof(args), "produce -b %s -t g4 -g gb1", d.broker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-bench", args), 2);
	CU_ASSERT_STRING_EQUAL(out, "");
	snprintf(args, sizeof(args), "group -b %s -t g4 -m 0", d.broker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-bench", args), 2);
	CU_ASSERT_STRING_EQUAL(out, "");
}

/*
 * Through the Kafka listener: 5000 produced in batches, 50 one at a
 * time, all read back by flume-kbench consume and by the native
 * flume-bench consume, and counted in the log.
 */
static void
test_kafka_produce_sync_consume(void)
{
	char out[4096], args[512];

	snprintf(args, sizeof(args), "produce -J -b %s -t k1 -n 5000 -l 5 "
	    "-B 16384", kbroker);
	CU_ASSERT_EQUAL_FATAL(bench(out, sizeof(out), "flume-kbench", args), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "{\"mode\":\"produce\","));
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 5000);
	CU_ASSERT_EQUAL(jnum(out, "bytes"), 500000);
	CU_ASSERT_EQUAL(jnum(out, "failed"), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"p99_us\":"));
	/* Every message's 100 value bytes went over the wire, and more. */
	CU_ASSERT(wire_per_msg(out) > 100.0);
	CU_ASSERT_EQUAL(log_end("k1", 1), 5001);	/* and the warm-up one */

	snprintf(args, sizeof(args), "sync -J -b %s -t k1 -n 50 -a all", kbroker);
	CU_ASSERT_EQUAL_FATAL(bench(out, sizeof(out), "flume-kbench", args), 0);
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 50);
	CU_ASSERT(wire_per_msg(out) > 100.0);
	CU_ASSERT_EQUAL(log_end("k1", 1), 5052);

	snprintf(args, sizeof(args), "consume -J -b %s -t k1", kbroker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-kbench", args), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "{\"mode\":\"consume\","));
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 5052);
	CU_ASSERT_EQUAL(jnum(out, "bytes"), 505200);
	/* -n stops short of the end exactly. */
	snprintf(args, sizeof(args), "consume -J -b %s -t k1 -n 1234", kbroker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-kbench", args), 0);
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 1234);
	/* What librdkafka wrote, libflume reads. */
	snprintf(args, sizeof(args), "consume -J -b %s -t k1", d.broker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-bench", args), 0);
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 5052);

	/* Two consumers share three partitions of native messages. */
	snprintf(args, sizeof(args), "produce -J -b %s -t k3 -n 3000", d.broker);
	CU_ASSERT_EQUAL_FATAL(bench(out, sizeof(out), "flume-bench", args), 0);
	snprintf(args, sizeof(args), "consume -J -b %s -t k3 -c 2", kbroker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-kbench", args), 0);
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 3001);

	/* An unknown or empty topic is an error, not a figure. */
	snprintf(args, sizeof(args), "consume -b %s -t empty1", kbroker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-kbench", args), 1);
	CU_ASSERT_STRING_EQUAL(out, "");
	/* Usage errors: exit 2, nothing on stdout. */
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-kbench",
	    "consume -t k1 -a all"), 2);
	CU_ASSERT_STRING_EQUAL(out, "");
}

/*
 * flume-kbench group on the topic of test_native_group, through the
 * Kafka listener: the broker serves Kafka groups, so it runs (exit 0,
 * not the "n/a" and exit 3 of a broker that does not list them; the
 * probe's verdict is test_kbench's groups_served) and reads every
 * message once as counted, committed to the end.
 */
static void
test_kafka_group(void)
{
	char out[4096], args[512];

	CU_ASSERT_EQUAL_FATAL(log_end("g4", 4), 20002);
	snprintf(args, sizeof(args), "group -J -b %s -t g4 -c 2 -g kg1",
	    kbroker);
	CU_ASSERT_EQUAL(bench(out, sizeof(out), "flume-kbench", args), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "{\"mode\":\"group\","));
	CU_ASSERT_PTR_NULL(strstr(out, "\"na\":"));
	CU_ASSERT_EQUAL(jnum(out, "msgs"), 20002);
	CU_ASSERT_EQUAL(jnum(out, "bytes"), 20002 * 100);
	CU_ASSERT_EQUAL(jnum(out, "failed"), 0);
	assert_committed_to_end("kg1", "g4", 4);
}

TEST_SUITE("bench_run", setup, teardown,
    { "flume-bench group reads all, commits to the end", test_native_group },
    { "flume-kbench produce, sync, consume: every message",
	test_kafka_produce_sync_consume },
    { "flume-kbench group: every message, committed to the end",
	test_kafka_group });
