/*
 * flume-bench's pure helpers: the log-linear latency histogram (exact
 * buckets below 64, every bucket's bounds, bounded relative error,
 * percentiles by rank, merging) and the exact JSON and summary text of a
 * result, including truncation and the keys left out when not measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/bench_stats.h"
#include "tests/harness.h"

static void
test_bucket_exact_range(void)
{
	uint64_t v;

	for (v = 0; v < BENCH_HIST_SUB; v++) {
		CU_ASSERT_EQUAL(bench_hist_bucket(v), (size_t)v);
		CU_ASSERT_EQUAL(bench_hist_bucket_high((size_t)v), v);
	}
	/* 64 and 65 share the first two-wide bucket; 66 starts the next. */
	CU_ASSERT_EQUAL(bench_hist_bucket(64), 64u);
	CU_ASSERT_EQUAL(bench_hist_bucket(65), 64u);
	CU_ASSERT_EQUAL(bench_hist_bucket(66), 65u);
	CU_ASSERT_EQUAL(bench_hist_bucket_high(64), 65u);
	CU_ASSERT_EQUAL(bench_hist_bucket(127), 95u);
	CU_ASSERT_EQUAL(bench_hist_bucket(128), 96u);
	CU_ASSERT_EQUAL(bench_hist_bucket_high(96), 131u);
	CU_ASSERT_EQUAL(bench_hist_bucket(UINT64_MAX), BENCH_HIST_BUCKETS - 1);
	CU_ASSERT_EQUAL(bench_hist_bucket_high(BENCH_HIST_BUCKETS - 1), UINT64_MAX);
}

/* Every bucket: its high value maps to it, high + 1 to the next one. */
static void
test_bucket_bounds(void)
{
	uint64_t hi;
	size_t i;

	for (i = 0; i + 1 < BENCH_HIST_BUCKETS; i++) {
		hi = bench_hist_bucket_high(i);
		CU_ASSERT_EQUAL_FATAL(bench_hist_bucket(hi), i);
		CU_ASSERT_EQUAL_FATAL(bench_hist_bucket(hi + 1), i + 1);
	}
}

/* A reported value is never below the true one and at most 1/32 above. */
static void
test_relative_error(void)
{
	uint64_t v, hi;
	int i;

	for (i = 0; i < 100000; i++) {
		v = test_rand() >> (test_rand() % 64);
		hi = bench_hist_bucket_high(bench_hist_bucket(v));
		CU_ASSERT_FATAL(hi >= v);
		CU_ASSERT_FATAL(hi - v <= v / 32);
	}
}

static void
test_percentiles(void)
{
	struct bench_hist *h = malloc(sizeof(*h));
	uint64_t v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	bench_hist_init(h);
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0.5), 0u);
	/* 1..60 are exact: the rank-th smallest value. */
	for (v = 1; v <= 60; v++)
		bench_hist_add(h, v);
	CU_ASSERT_EQUAL(h->count, 60u);
	CU_ASSERT_EQUAL(h->min, 1u);
	CU_ASSERT_EQUAL(h->max, 60u);
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0.5), 30u);
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0.99), 60u);	/* ceil(59.4) */
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0.999), 60u);
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0.01), 1u);
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0), 1u);
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 1.0), 60u);

	/* 1000 values 1000..1999 us-ish: p50 is 1499's bucket high. */
	bench_hist_init(h);
	for (v = 1000; v < 2000; v++)
		bench_hist_add(h, v);
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0.5),
	    bench_hist_bucket_high(bench_hist_bucket(1499)));
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0.5), 1503u);
	/* The top bucket is clamped to the largest value seen. */
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 1.0), 1999u);
	CU_ASSERT_EQUAL(bench_hist_percentile(h, 0.999), 1999u);
	free(h);
}

static void
test_merge(void)
{
	struct bench_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	bench_hist_init(a);
	bench_hist_init(b);
	for (i = 0; i < 99; i++)
		bench_hist_add(a, 10);
	bench_hist_add(b, 50);
	bench_hist_merge(a, b);
	CU_ASSERT_EQUAL(a->count, 100u);
	CU_ASSERT_EQUAL(a->min, 10u);
	CU_ASSERT_EQUAL(a->max, 50u);
	CU_ASSERT_EQUAL(bench_hist_percentile(a, 0.99), 10u);
	CU_ASSERT_EQUAL(bench_hist_percentile(a, 0.999), 50u);
	/* Merging an empty histogram changes nothing (min stays). */
	bench_hist_init(b);
	bench_hist_merge(a, b);
	CU_ASSERT_EQUAL(a->count, 100u);
	CU_ASSERT_EQUAL(a->min, 10u);
	free(a);
	free(b);
}

static void
test_json(void)
{
	struct bench_hist *h = malloc(sizeof(*h));
	struct bench_result r;
	char buf[512], small[16];
	int n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	bench_hist_init(h);
	bench_hist_add(h, 40000);	/* bucket high 40959, clamped to 40000 */
	memset(&r, 0, sizeof(r));
	r.mode = "produce";
	r.msgs = 1000;
	r.bytes = 100000;
	r.seconds = 0.5;
	r.wire_bytes = 110500;
	r.lat = h;
	n = bench_json(buf, sizeof(buf), &r);
	CU_ASSERT_STRING_EQUAL(buf, "{\"mode\":\"produce\",\"msgs\":1000,"
	    "\"bytes\":100000,\"seconds\":0.500,\"failed\":0,"
	    "\"msgs_per_sec\":2000.0,\"mb_per_sec\":0.19,\"p50_us\":40.0,"
	    "\"p99_us\":40.0,\"p999_us\":40.0,\"max_us\":40.0,\"avg_us\":40.0,"
	    "\"bytes_on_wire_per_msg\":110.50}\n");
	CU_ASSERT_EQUAL(n, (int)strlen(buf));

	/* Cut short: snprintf's rule, the length needed comes back. */
	CU_ASSERT_EQUAL(bench_json(small, sizeof(small), &r), n);
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);

	/* consume: no latency, no wire figure. */
	r.mode = "consume";
	r.lat = NULL;
	r.wire_bytes = -1;
	r.seconds = 2;
	r.bytes = 3 * 1024 * 1024;
	bench_json(buf, sizeof(buf), &r);
	CU_ASSERT_STRING_EQUAL(buf, "{\"mode\":\"consume\",\"msgs\":1000,"
	    "\"bytes\":3145728,\"seconds\":2.000,\"failed\":0,"
	    "\"msgs_per_sec\":500.0,\"mb_per_sec\":1.50}\n");
	CU_ASSERT(bench_msgs_per_sec(&r) == 500.0);
	r.seconds = 0;
	CU_ASSERT(bench_msgs_per_sec(&r) == 0.0);
	CU_ASSERT(bench_mb_per_sec(&r) == 0.0);
	free(h);
}

static void
test_summary(void)
{
	struct bench_hist *h = malloc(sizeof(*h));
	struct bench_result r;
	char buf[512];

	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	bench_hist_init(h);
	bench_hist_add(h, 2000);
	bench_hist_add(h, 4000);
	memset(&r, 0, sizeof(r));
	r.mode = "sync";
	r.msgs = 10;
	r.bytes = 1000;
	r.seconds = 0.001;
	r.failed = 1;
	r.wire_bytes = 2000;
	r.lat = h;
	bench_summary(buf, sizeof(buf), &r);
	CU_ASSERT_STRING_EQUAL(buf,
	    "sync: 10 messages (1 failed) in 0.001 s: 10000.0 msgs/s, 0.95 MB/s\n"
	    "latency us: p50 2.0, p99 4.0, p99.9 4.0, max 4.0, avg 3.0\n"
	    "bytes on the wire per message: 200.00\n");
	free(h);
}

/* group: commits and redeliveries, and nothing of them for other modes. */
static void
test_group_result(void)
{
	struct bench_result r;
	char buf[512];
	int n;

	memset(&r, 0, sizeof(r));
	r.mode = "group";
	r.msgs = 3000;
	r.bytes = 300000;
	r.seconds = 1.5;
	r.wire_bytes = -1;
	r.commits = 4;
	r.redelivered = 17;
	n = bench_json(buf, sizeof(buf), &r);
	CU_ASSERT_STRING_EQUAL(buf, "{\"mode\":\"group\",\"msgs\":3000,"
	    "\"bytes\":300000,\"seconds\":1.500,\"failed\":0,"
	    "\"msgs_per_sec\":2000.0,\"mb_per_sec\":0.19,\"commits\":4,"
	    "\"msgs_per_commit\":750.0,\"redelivered\":17}\n");
	CU_ASSERT_EQUAL(n, (int)strlen(buf));
	bench_summary(buf, sizeof(buf), &r);
	CU_ASSERT_STRING_EQUAL(buf,
	    "group: 3000 messages (0 failed) in 1.500 s: 2000.0 msgs/s, 0.19 MB/s\n"
	    "commits: 4 (750.0 messages each), redelivered after a rebalance: 17\n");
	r.commits = 0;
	bench_summary(buf, sizeof(buf), &r);
	CU_ASSERT_STRING_EQUAL(buf,
	    "group: 3000 messages (0 failed) in 1.500 s: 2000.0 msgs/s, 0.19 MB/s\n");
}

TEST_SUITE("bench_stats", NULL, NULL,
    { "group result", test_group_result },
    { "bucket exact range", test_bucket_exact_range },
    { "bucket bounds", test_bucket_bounds },
    { "relative error", test_relative_error },
    { "percentiles", test_percentiles },
    { "merge", test_merge },
    { "json", test_json },
    { "summary", test_summary });
