/*
 * CRC-32C throughput: the SSE4.2 path and the slicing-by-8 table path over
 * a 1 MiB buffer, in GB/s (10^9 bytes per second).  A benchmark, not a
 * test: it prints figures and always exits 0.  Standalone main(); links
 * with libflumecore.a only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "proto/crc32c.h"

#define BUF_SIZE	(1024 * 1024)
#define MIN_SECONDS	0.3

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run fn over buf until MIN_SECONDS have passed; bytes per second. */
static double
measure(crc_fn fn, const uint8_t *buf, size_t len, uint32_t *sink)
{
	double t0, t;
	uint64_t bytes = 0;
	uint32_t c = 0;
	int i;

	/* Warm up caches and the table. */
	c = fn(c, buf, len);
	t0 = now();
	do {
		for (i = 0; i < 16; i++) {
			c = fn(c, buf, len);
			bytes += len;
		}
		t = now() - t0;
	} while (t < MIN_SECONDS);
	*sink ^= c;
	return (double)bytes / t;
}

int
main(void)
{
	uint8_t *buf;
	uint32_t sink = 0, x = 0x12345678;
	size_t i;

	if ((buf = malloc(BUF_SIZE)) == NULL) {
		printf("bench_crc: out of memory\n");
		return 0;
	}
	for (i = 0; i < BUF_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	printf("crc32c sw (slicing-by-8), 1 MiB buffer: %.2f GB/s\n",
	    measure(crc32c_sw, buf, BUF_SIZE, &sink) / 1e9);
	if (crc32c_hw_available())
		printf("crc32c hw (%s), 1 MiB buffer: %.2f GB/s\n",
		    crc32c_path(), measure(crc32c_hw, buf, BUF_SIZE, &sink) / 1e9);
	else
		printf("crc32c hw: not available on this CPU\n");
	printf("crc32c() uses: %s\n", crc32c_path());
	/* Keep the results observable so the loops are not optimised out. */
	if (sink == 0x5eed)
		printf("(sink %08x)\n", sink);
	free(buf);
	return 0;
}
