/*
 * The pure parts of flume-bench (in libflume.a, hidden from libflume.so):
 * a latency histogram with bounded relative error, and the summary and
 * JSON renderings of one run's result.  No I/O, no clock, so
 * tests/unit/test_bench_stats.c checks them exactly.
 *
 * The histogram is log-linear, as HdrHistogram is: values below
 * BENCH_HIST_SUB are kept exactly; above, each power of two is split into
 * BENCH_HIST_SUB / 2 equal sub-buckets, so a reported value is at most
 * 2 / BENCH_HIST_SUB (about 3%) above the true one and never below it.
 * Recording is one bit scan and one increment: cheap enough to call for
 * every message.
 */
#ifndef FLUME_CLIENTS_BENCH_STATS_H
#define FLUME_CLIENTS_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define BENCH_HIST_SUB_BITS	6
#define BENCH_HIST_SUB		(1u << BENCH_HIST_SUB_BITS)	/* 64 */
/* Buckets for every uint64_t value: the exact range plus 58 halves of 32. */
#define BENCH_HIST_BUCKETS	(BENCH_HIST_SUB + (64 - BENCH_HIST_SUB_BITS) * \
				    (BENCH_HIST_SUB / 2))

struct bench_hist {
	uint64_t	 count;
	uint64_t	 min, max;
	long double	 sum;
	uint64_t	 b[BENCH_HIST_BUCKETS];
};

void	bench_hist_init(struct bench_hist *h);
/* Count one value (nanoseconds, by convention). */
void	bench_hist_add(struct bench_hist *h, uint64_t v);
/* Add every count of src to dst. */
void	bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src);
/*
 * The smallest recorded value v such that at least q (0 < q <= 1) of
 * all values are <= v, reported as the highest value of v's bucket
 * (clamped to the maximum seen); 0 for an empty histogram.
 */
uint64_t bench_hist_percentile(const struct bench_hist *h, double q);
/* Bucket index of v, and the highest value that bucket holds. */
size_t	bench_hist_bucket(uint64_t v);
uint64_t bench_hist_bucket_high(size_t idx);

/* One run of flume-bench, as printed. */
struct bench_result {
	const char	*mode;		/* produce, consume, e2e, sync */
	uint64_t	 msgs;		/* messages produced (or consumed) */
	uint64_t	 bytes;		/* value bytes of those messages */
	double		 seconds;	/* wall time of the run */
	uint64_t	 failed;	/* messages reported failed */
	int64_t		 wire_bytes;	/* bytes written to the broker, -1: not measured */
	uint64_t	 commits;	/* group: offset commits made, 0: not a group run */
	uint64_t	 redelivered;	/* group: messages handed out again after a rebalance */
	const struct bench_hist *lat;	/* NULL: no latency figures */
};

/* Messages per second and MB/s (MB = 2^20 bytes of values); 0 if seconds <= 0. */
double	bench_msgs_per_sec(const struct bench_result *r);
double	bench_mb_per_sec(const struct bench_result *r);
/*
 * Render r as one JSON object on one line, ending in a newline, into
 * buf[0..len): keys mode, msgs, bytes, seconds, failed, msgs_per_sec,
 * mb_per_sec, then (with lat) p50_us, p99_us, p999_us, max_us, avg_us,
 * then (with wire_bytes >= 0 and msgs > 0) bytes_on_wire_per_msg, then
 * (with commits > 0) commits, msgs_per_commit and redelivered.  The
 * snprintf convention: the length it needed, which is >= len when cut.
 */
int	bench_json(char *buf, size_t len, const struct bench_result *r);
/* The same as human-readable lines ("key: value" style summary). */
int	bench_summary(char *buf, size_t len, const struct bench_result *r);

#pragma GCC visibility pop

#endif
