/*
 * flume-kbench's pure parts (tests/bench/kbench_opts.c): the command line
 * of each mode (defaults, values, the options a mode does not take,
 * usage errors) and the ApiVersions probe (the exact request bytes, and
 * the groups verdict on whole, partial, error and malformed answers).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tests/bench/kbench_opts.h"
#include "tests/harness.h"

static int
parse(struct kbench_opts *o, char *err, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = "flume-kbench";
	va_start(ap, err);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	return kbench_parse(argc, argv, o, err, 200);
}

static void
test_defaults(void)
{
	struct kbench_opts o;
	char err[200];

	unsetenv("FLUME_KAFKA_BROKER");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", NULL), KBENCH_RUN);
	CU_ASSERT_EQUAL(o.mode, KB_PRODUCE);
	CU_ASSERT_STRING_EQUAL(o.mode_name, "produce");
	CU_ASSERT_STRING_EQUAL(o.topic, "t");
	CU_ASSERT_STRING_EQUAL(o.broker, "127.0.0.1:9092");
	CU_ASSERT_EQUAL(o.count, 1000000u);
	CU_ASSERT_EQUAL(o.size, 100u);
	CU_ASSERT_EQUAL(o.acks, 1);
	CU_ASSERT_EQUAL(o.conns, 1);
	CU_ASSERT_EQUAL(o.linger_ms, -1);
	CU_ASSERT_EQUAL(o.batch_bytes, -1);
	CU_ASSERT_EQUAL(o.commit_every, 1000);
	CU_ASSERT_EQUAL(o.txn_records, 0);
	CU_ASSERT_PTR_NULL(o.group);
	CU_ASSERT_EQUAL(o.json, 0);
	/* sync sends fewer by default, as flume-bench sync. */
	CU_ASSERT_EQUAL(parse(&o, err, "sync", "-t", "t", NULL), KBENCH_RUN);
	CU_ASSERT_EQUAL(o.mode, KB_SYNC);
	CU_ASSERT_EQUAL(o.count, 10000u);
	/* The environment gives the broker when -b does not. */
	setenv("FLUME_KAFKA_BROKER", "127.0.0.1:19092", 1);
	CU_ASSERT_EQUAL(parse(&o, err, "consume", "-t", "t", NULL), KBENCH_RUN);
	CU_ASSERT_STRING_EQUAL(o.broker, "127.0.0.1:19092");
	CU_ASSERT_EQUAL(parse(&o, err, "consume", "-b", "h:1", "-t", "t", NULL),
	    KBENCH_RUN);
	CU_ASSERT_STRING_EQUAL(o.broker, "h:1");
	unsetenv("FLUME_KAFKA_BROKER");
}

static void
test_values(void)
{
	struct kbench_opts o;
	char err[200];

	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-J", "-a", "all", "-B",
	    "65536", "-l", "5", "-n", "42", "-s", "10240", "-t", "x", NULL),
	    KBENCH_RUN);
	CU_ASSERT_EQUAL(o.acks, -1);
	CU_ASSERT_EQUAL(o.batch_bytes, 65536);
	CU_ASSERT_EQUAL(o.linger_ms, 5);
	CU_ASSERT_EQUAL(o.count, 42u);
	CU_ASSERT_EQUAL(o.size, 10240u);
	CU_ASSERT_EQUAL(o.json, 1);
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-a", "0", "-s", "0", "-t",
	    "x", NULL), KBENCH_RUN);
	CU_ASSERT_EQUAL(o.acks, 0);
	CU_ASSERT_EQUAL(o.size, 0u);
	/* Transactions make the producer idempotent: acks all. */
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-x", "1000", "-t", "x",
	    NULL), KBENCH_RUN);
	CU_ASSERT_EQUAL(o.txn_records, 1000);
	CU_ASSERT_EQUAL(o.acks, -1);
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-a", "all", "-x", "1", "-t",
	    "x", NULL), KBENCH_RUN);
	CU_ASSERT_EQUAL(o.txn_records, 1);
	CU_ASSERT_EQUAL(o.acks, -1);
	CU_ASSERT_EQUAL(parse(&o, err, "group", "-c", "4", "-g", "g1", "-m",
	    "500", "-t", "x", NULL), KBENCH_RUN);
	CU_ASSERT_EQUAL(o.mode, KB_GROUP);
	CU_ASSERT_EQUAL(o.conns, 4);
	CU_ASSERT_STRING_EQUAL(o.group, "g1");
	CU_ASSERT_EQUAL(o.commit_every, 500);
	CU_ASSERT_EQUAL(parse(&o, err, "consume", "-c", "64", "-n", "7", "-t",
	    "x", NULL), KBENCH_RUN);
	CU_ASSERT_EQUAL(o.conns, 64);
	CU_ASSERT_EQUAL(o.count, 7u);
}

static void
test_help_version(void)
{
	struct kbench_opts o;
	char err[200];

	CU_ASSERT_EQUAL(parse(&o, err, "-h", NULL), KBENCH_HELP);
	CU_ASSERT_EQUAL(parse(&o, err, "--help", NULL), KBENCH_HELP);
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-h", NULL), KBENCH_HELP);
	CU_ASSERT_EQUAL(parse(&o, err, "-V", NULL), KBENCH_VERSION);
	CU_ASSERT_EQUAL(parse(&o, err, "--version", NULL), KBENCH_VERSION);
	CU_ASSERT_PTR_NOT_NULL(strstr(kbench_usage, "flume-kbench group"));
}

/* Each usage error and its exact reason. */
static void
test_errors(void)
{
	struct kbench_opts o;
	char err[200];

	CU_ASSERT_EQUAL(parse(&o, err, NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "no mode");
	CU_ASSERT_EQUAL(parse(&o, err, "e2e", "-t", "t", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "unknown mode e2e");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-t topic is required");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-t topic is required");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-a", "2", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-a: 0, 1 or all");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-n", "0", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-n: bad value 0");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-s", "1x", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-s: bad value 1x");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-s", "67108865",
	    NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-s: bad value 67108865");
	CU_ASSERT_EQUAL(parse(&o, err, "group", "-t", "t", "-c", "65", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-c: bad value 65");
	CU_ASSERT_EQUAL(parse(&o, err, "group", "-t", "t", "-m", "0", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-m: bad value 0");
	CU_ASSERT_EQUAL(parse(&o, err, "group", "-t", "t", "-g", "", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-g: bad value ");
	/* Options of another mode are refused, not ignored. */
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-c", "2", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-c is not for produce");
	CU_ASSERT_EQUAL(parse(&o, err, "consume", "-t", "t", "-a", "all", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-a is not for consume");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-g", "g", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-g is not for produce");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-y", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-y: unknown option");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-x", "0", NULL),
	    -1);
	CU_ASSERT_STRING_EQUAL(err, "-x: bad value 0");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-x", "16777217",
	    NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-x: bad value 16777217");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-x", "10", "-a",
	    "1", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-x: transactions need -a all");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-a", "0", "-t", "t", "-x",
	    "10", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-x: transactions need -a all");
	CU_ASSERT_EQUAL(parse(&o, err, "sync", "-t", "t", "-x", "10", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-x is not for sync");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "-x", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-x: needs a value");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "-t: needs a value");
	CU_ASSERT_EQUAL(parse(&o, err, "produce", "-t", "t", "extra", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "unexpected argument extra");
}

static void
test_apiversions_request(void)
{
	static const uint8_t want[] = { 0, 0, 0, 22, 0, 18, 0, 0, 0x12, 0x34,
	    0x56, 0x78, 0, 12, 'f', 'l', 'u', 'm', 'e', '-', 'k', 'b', 'e',
	    'n', 'c', 'h' };
	uint8_t buf[64];

	CU_ASSERT_EQUAL(kbench_apiversions_req(buf, sizeof(buf), 0x12345678),
	    (int)sizeof(want));
	CU_ASSERT_EQUAL(memcmp(buf, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(kbench_apiversions_req(buf, sizeof(want) - 1, 1), -1);
}

/* An ApiVersions v0 answer listing keys[0..n) (error err) into buf; its length. */
static size_t
answer(uint8_t *buf, int32_t corr, int16_t err, const int16_t *keys, int n)
{
	size_t off = 10;
	int i;

	buf[0] = (uint8_t)((uint32_t)corr >> 24);
	buf[1] = (uint8_t)((uint32_t)corr >> 16);
	buf[2] = (uint8_t)((uint32_t)corr >> 8);
	buf[3] = (uint8_t)corr;
	buf[4] = (uint8_t)((uint16_t)err >> 8);
	buf[5] = (uint8_t)err;
	buf[6] = buf[7] = buf[8] = 0;
	buf[9] = (uint8_t)n;
	for (i = 0; i < n; i++) {
		buf[off] = (uint8_t)((uint16_t)keys[i] >> 8);
		buf[off + 1] = (uint8_t)keys[i];
		buf[off + 2] = 0;
		buf[off + 3] = 0;	/* min 0 */
		buf[off + 4] = 0;
		buf[off + 5] = 3;	/* max 3 */
		off += 6;
	}
	return off;
}

static void
test_groups_served(void)
{
	/* Today's listener: the data path and the producer id, no groups. */
	static const int16_t data[] = { 0, 1, 2, 3, 18, 22 };
	static const int16_t all[] = { 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14,
	    15, 16, 18, 19, 20, 22 };
	/* Everything but SyncGroup (14). */
	static const int16_t nosync[] = { 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 18 };
	uint8_t buf[256];
	size_t n;

	n = answer(buf, 7, 0, data, 6);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n, 7), 0);
	n = answer(buf, 7, 0, all, 17);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n, 7), 1);
	n = answer(buf, 7, 0, nosync, 11);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n, 7), 0);
	/* An error answer serves nothing, whatever it lists. */
	n = answer(buf, 7, 35, all, 17);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n, 7), 0);
	/* Malformed: another correlation id, cut short, too long, too short. */
	n = answer(buf, 7, 0, all, 17);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n, 8), -1);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n - 1, 7), -1);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n + 1, 7), -1);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, 9, 7), -1);
	/* A count far past the bytes (no overflow into a long read). */
	buf[6] = 0x7f;
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n, 7), -1);
	n = answer(buf, 7, 0, NULL, 0);
	CU_ASSERT_EQUAL(n, 10u);
	CU_ASSERT_EQUAL(kbench_groups_served(buf, n, 7), 0);
}

/*
 * A commit acknowledged on another member's thread stores a time later
 * than the "now" this thread read: that is progress, not a stall.
 */
static void
test_stalled(void)
{
	const uint64_t s = 1000000000u;

	CU_ASSERT_EQUAL(kbench_stalled(100 * s, 100 * s, 30 * s), 0);
	CU_ASSERT_EQUAL(kbench_stalled(100 * s, 130 * s, 30 * s), 0);
	CU_ASSERT_EQUAL(kbench_stalled(100 * s, 130 * s + 1, 30 * s), 1);
	CU_ASSERT_EQUAL(kbench_stalled(0, 31 * s, 30 * s), 1);
	/* moved after now: a microsecond, or a whole second. */
	CU_ASSERT_EQUAL(kbench_stalled(100 * s + 1000, 100 * s, 30 * s), 0);
	CU_ASSERT_EQUAL(kbench_stalled(101 * s, 100 * s, 30 * s), 0);
}

TEST_SUITE("kbench", NULL, NULL,
    { "defaults", test_defaults },
    { "values", test_values },
    { "help and version", test_help_version },
    { "usage errors", test_errors },
    { "ApiVersions request", test_apiversions_request },
    { "groups served", test_groups_served },
    { "stall, not a race", test_stalled });
