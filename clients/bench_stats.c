/*
 * flume-bench's latency histogram and result rendering; see bench_stats.h.
 */
#include <stdio.h>
#include <string.h>

#include "clients/bench_stats.h"

void
bench_hist_init(struct bench_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

size_t
bench_hist_bucket(uint64_t v)
{
	unsigned msb, shift;

	if (v < BENCH_HIST_SUB)
		return (size_t)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	shift = msb - (BENCH_HIST_SUB_BITS - 1);
	/* v >> shift is in [SUB/2, SUB): the top SUB_BITS bits of v. */
	return BENCH_HIST_SUB + (size_t)(msb - BENCH_HIST_SUB_BITS) *
	    (BENCH_HIST_SUB / 2) + (size_t)((v >> shift) - BENCH_HIST_SUB / 2);
}

uint64_t
bench_hist_bucket_high(size_t idx)
{
	size_t k, sub;
	unsigned shift;

	if (idx < BENCH_HIST_SUB)
		return (uint64_t)idx;
	if (idx >= BENCH_HIST_BUCKETS)
		return UINT64_MAX;
	k = idx - BENCH_HIST_SUB;
	shift = (unsigned)(k / (BENCH_HIST_SUB / 2)) + 1;
	sub = k % (BENCH_HIST_SUB / 2) + BENCH_HIST_SUB / 2;
	if (shift + BENCH_HIST_SUB_BITS >= 64 && sub + 1 == BENCH_HIST_SUB)
		return UINT64_MAX;
	return (((uint64_t)sub + 1) << shift) - 1;
}

void
bench_hist_add(struct bench_hist *h, uint64_t v)
{
	h->b[bench_hist_bucket(v)]++;
	h->count++;
	h->sum += (long double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void
bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src)
{
	size_t i;

	if (src->count == 0)
		return;
	for (i = 0; i < BENCH_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t
bench_hist_percentile(const struct bench_hist *h, double q)
{
	uint64_t rank, seen = 0, high;
	double r;
	size_t i;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	r = q * (double)h->count;
	rank = (uint64_t)r;
	if ((double)rank < r)
		rank++;		/* ceil, without libm */
	if (rank == 0)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (i = 0; i < BENCH_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			high = bench_hist_bucket_high(i);
			return high > h->max ? h->max : high;
		}
	}
	return h->max;
}

double
bench_msgs_per_sec(const struct bench_result *r)
{
	return r->seconds > 0 ? (double)r->msgs / r->seconds : 0;
}

double
bench_mb_per_sec(const struct bench_result *r)
{
	return r->seconds > 0 ?
	    (double)r->bytes / (1024.0 * 1024.0) / r->seconds : 0;
}

/* Nanoseconds as microseconds with one decimal. */
static double
us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static double
avg_us(const struct bench_hist *h)
{
	return h->count > 0 ? (double)(h->sum / (long double)h->count) / 1000.0 : 0;
}

/* snprintf that appends at *off and keeps the total length needed. */
#define BENCH_PUT(...) do {						\
	int n_ = snprintf(buf + (off < len ? off : len),		\
	    off < len ? len - off : 0, __VA_ARGS__);			\
	if (n_ < 0)							\
		return -1;						\
	off += (size_t)n_;						\
} while (0)

int
bench_json(char *buf, size_t len, const struct bench_result *r)
{
	const struct bench_hist *h = r->lat;
	size_t off = 0;

	BENCH_PUT("{\"mode\":\"%s\",\"msgs\":%llu,\"bytes\":%llu,"
	    "\"seconds\":%.3f,\"failed\":%llu,\"msgs_per_sec\":%.1f,"
	    "\"mb_per_sec\":%.2f", r->mode, (unsigned long long)r->msgs,
	    (unsigned long long)r->bytes, r->seconds,
	    (unsigned long long)r->failed, bench_msgs_per_sec(r),
	    bench_mb_per_sec(r));
	if (h != NULL)
		BENCH_PUT(",\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,"
		    "\"max_us\":%.1f,\"avg_us\":%.1f",
		    us(bench_hist_percentile(h, 0.50)),
		    us(bench_hist_percentile(h, 0.99)),
		    us(bench_hist_percentile(h, 0.999)), us(h->count ? h->max : 0),
		    avg_us(h));
	if (r->wire_bytes >= 0 && r->msgs > 0)
		BENCH_PUT(",\"bytes_on_wire_per_msg\":%.2f",
		    (double)r->wire_bytes / (double)r->msgs);
	if (r->commits > 0)
		BENCH_PUT(",\"commits\":%llu,\"msgs_per_commit\":%.1f,"
		    "\"redelivered\":%llu", (unsigned long long)r->commits,
		    (double)r->msgs / (double)r->commits,
		    (unsigned long long)r->redelivered);
	BENCH_PUT("}\n");
	return (int)off;
}

int
bench_summary(char *buf, size_t len, const struct bench_result *r)
{
	const struct bench_hist *h = r->lat;
	size_t off = 0;

	BENCH_PUT("%s: %llu messages (%llu failed) in %.3f s: %.1f msgs/s, "
	    "%.2f MB/s\n", r->mode, (unsigned long long)r->msgs,
	    (unsigned long long)r->failed, r->seconds, bench_msgs_per_sec(r),
	    bench_mb_per_sec(r));
	if (h != NULL)
		BENCH_PUT("latency us: p50 %.1f, p99 %.1f, p99.9 %.1f, "
		    "max %.1f, avg %.1f\n", us(bench_hist_percentile(h, 0.50)),
		    us(bench_hist_percentile(h, 0.99)),
		    us(bench_hist_percentile(h, 0.999)), us(h->count ? h->max : 0),
		    avg_us(h));
	if (r->wire_bytes >= 0 && r->msgs > 0)
		BENCH_PUT("bytes on the wire per message: %.2f\n",
		    (double)r->wire_bytes / (double)r->msgs);
	if (r->commits > 0)
		BENCH_PUT("commits: %llu (%.1f messages each), redelivered "
		    "after a rebalance: %llu\n", (unsigned long long)r->commits,
		    (double)r->msgs / (double)r->commits,
		    (unsigned long long)r->redelivered);
	return (int)off;
}
