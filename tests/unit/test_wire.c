/*
 * proto/wire.c: exact bytes of every writer, every reader refusing every
 * short input, the count limits, and the arena's limit, alignment and
 * reuse of memory.
 */
#include <sys/uio.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/bytes.h"
#include "proto/frame.h"
#include "proto/wire.h"
#include "tests/harness.h"

static void
assert_bytes(const struct wbuf *wb, const uint8_t *want, size_t n)
{
	CU_ASSERT_EQUAL_FATAL(wb->err, 0);
	CU_ASSERT_EQUAL_FATAL(wb->len, n);
	CU_ASSERT_EQUAL(memcmp(wb->buf, want, n), 0);
}

static void
test_write_ints(void)
{
	struct wbuf wb;
	static const uint8_t want[] = {
		0x7f, 0x80,
		0x01, 0x02, 0xff, 0xfe,
		0x01, 0x02, 0x03, 0x04, 0xff, 0xff, 0xff, 0xfe,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};

	wbuf_init(&wb);
	wbuf_i8(&wb, 127);
	wbuf_i8(&wb, -128);
	wbuf_i16(&wb, 0x0102);
	wbuf_i16(&wb, -2);
	wbuf_i32(&wb, 0x01020304);
	wbuf_i32(&wb, -2);
	wbuf_i64(&wb, 0x0102030405060708LL);
	wbuf_i64(&wb, INT64_MIN);
	assert_bytes(&wb, want, sizeof(want));
	wbuf_free(&wb);
	CU_ASSERT_PTR_NULL(wb.buf);
	CU_ASSERT_EQUAL(wb.len, 0);
}

static void
test_write_str_bytes_raw(void)
{
	struct wbuf wb;
	static const uint8_t want[] = {
		0x00, 0x03, 'a', 'b', 'c',		/* str "abc" */
		0x00, 0x00,				/* str "" */
		0x00, 0x00, 0x00, 0x02, 0xde, 0xad,	/* bytes {de ad} */
		0x00, 0x00, 0x00, 0x00,			/* bytes empty */
		0xff, 0xff, 0xff, 0xff,			/* bytes null */
		0x11, 0x22, 0x33,			/* raw */
	};
	static const uint8_t two[] = { 0xde, 0xad };
	static const uint8_t raw[] = { 0x11, 0x22, 0x33 };

	wbuf_init(&wb);
	wbuf_str(&wb, "abcdef", 3);
	wbuf_str(&wb, NULL, 0);
	wbuf_bytes(&wb, two, 2);
	wbuf_bytes(&wb, two, 0);
	wbuf_bytes(&wb, NULL, -1);
	wbuf_raw(&wb, raw, 3);
	wbuf_raw(&wb, NULL, 0);
	assert_bytes(&wb, want, sizeof(want));
	wbuf_free(&wb);
}

static void
test_write_str_limits(void)
{
	struct wbuf wb;
	char *big;
	static const uint8_t one[] = { 0x01 };

	big = malloc(65536);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memset(big, 'x', 65536);

	/* 65535 bytes is the longest string and is written whole. */
	wbuf_init(&wb);
	wbuf_str(&wb, big, 65535);
	CU_ASSERT_EQUAL(wb.err, 0);
	CU_ASSERT_EQUAL(wb.len, 2 + 65535);
	CU_ASSERT_EQUAL(wb.buf[0], 0xff);
	CU_ASSERT_EQUAL(wb.buf[1], 0xff);
	CU_ASSERT_EQUAL(wb.buf[2 + 65534], 'x');

	/* One more is refused, not truncated, and the error sticks. */
	wbuf_reset(&wb);
	wbuf_i8(&wb, 1);
	wbuf_str(&wb, big, 65536);
	CU_ASSERT_EQUAL(wb.err, EINVAL);
	CU_ASSERT_EQUAL(wb.len, 1);
	wbuf_i32(&wb, 7);
	CU_ASSERT_EQUAL(wb.len, 1);
	CU_ASSERT_EQUAL(wb.buf[0], 0x01);

	/* Byte arrays: only -1 of the negative lengths means something. */
	wbuf_reset(&wb);
	CU_ASSERT_EQUAL(wb.err, 0);
	wbuf_bytes(&wb, one, -2);
	CU_ASSERT_EQUAL(wb.err, EINVAL);
	CU_ASSERT_EQUAL(wb.len, 0);
	wbuf_free(&wb);
	free(big);
}

static void
test_wbuf_growth_and_reset(void)
{
	struct wbuf wb;
	uint8_t *buf;
	size_t i, cap;
	int ok = 1;

	wbuf_init(&wb);
	for (i = 0; i < 50000; i++)
		wbuf_i32(&wb, (int32_t)(i * 2654435761u));
	CU_ASSERT_EQUAL_FATAL(wb.err, 0);
	CU_ASSERT_EQUAL_FATAL(wb.len, 200000);
	CU_ASSERT(wb.cap >= wb.len);
	for (i = 0; i < 50000; i++) {
		uint32_t v = (uint32_t)(i * 2654435761u);
		const uint8_t *p = wb.buf + 4 * i;

		if (p[0] != (uint8_t)(v >> 24) || p[1] != (uint8_t)(v >> 16) ||
		    p[2] != (uint8_t)(v >> 8) || p[3] != (uint8_t)v)
			ok = 0;
	}
	CU_ASSERT(ok);

	/* Reset keeps the memory: refilling does not reallocate. */
	cap = wb.cap;
	buf = wb.buf;
	wbuf_reset(&wb);
	CU_ASSERT_EQUAL(wb.len, 0);
	for (i = 0; i < 50000; i++)
		wbuf_i32(&wb, 1);
	CU_ASSERT_PTR_EQUAL(wb.buf, buf);
	CU_ASSERT_EQUAL(wb.cap, cap);
	wbuf_free(&wb);
}

static void
test_wbuf_reserve_failure_sticks(void)
{
	struct wbuf wb;
	uint8_t *p;

	wbuf_init(&wb);
	p = wbuf_reserve(&wb, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(wb.len, 3);
	memcpy(p, "xyz", 3);
	/* A size that cannot be represented is an allocation failure. */
	CU_ASSERT_PTR_NULL(wbuf_reserve(&wb, SIZE_MAX - 1));
	CU_ASSERT_EQUAL(wb.err, ENOMEM);
	CU_ASSERT_EQUAL(wb.len, 3);
	/* Data kept, later writes ignored. */
	wbuf_i64(&wb, 5);
	wbuf_str(&wb, "a", 1);
	CU_ASSERT_PTR_NULL(wbuf_reserve(&wb, 1));
	CU_ASSERT_EQUAL(wb.len, 3);
	CU_ASSERT_EQUAL(memcmp(wb.buf, "xyz", 3), 0);
	wbuf_free(&wb);
}

static void
test_wbuf_put_u32_at(void)
{
	struct wbuf wb;
	static const uint8_t want[] = {
		0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02,
		0x03, 0x04,
	};

	wbuf_init(&wb);
	wbuf_i32(&wb, 0);
	wbuf_i32(&wb, 0);
	wbuf_i32(&wb, 0);
	wbuf_put_u32_at(&wb, 0, 0xaabbccdd);
	wbuf_put_u32_at(&wb, 8, 0x01020304);
	assert_bytes(&wb, want, sizeof(want));

	/* Past what was written: refused, nothing changes. */
	wbuf_put_u32_at(&wb, 9, 0xffffffff);
	CU_ASSERT_EQUAL(wb.err, EINVAL);
	CU_ASSERT_EQUAL(wb.len, 12);
	CU_ASSERT_EQUAL(memcmp(wb.buf, want, sizeof(want)), 0);
	wbuf_reset(&wb);
	wbuf_i32(&wb, 0);
	wbuf_put_u32_at(&wb, SIZE_MAX - 1, 1);
	CU_ASSERT_EQUAL(wb.err, EINVAL);
	wbuf_free(&wb);
}

static void
test_read_ints(void)
{
	static const uint8_t in[] = {
		0x80,
		0xff, 0xfe,
		0x80, 0x00, 0x00, 0x01,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd,
		0x7f,
	};
	struct rbuf rb;

	rbuf_init(&rb, in, sizeof(in));
	CU_ASSERT_EQUAL(rbuf_i8(&rb), -128);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), -2);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), INT32_MIN + 1);
	CU_ASSERT_EQUAL(rbuf_i64(&rb), -3);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 1);
	CU_ASSERT_EQUAL(rbuf_i8(&rb), 127);
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i8(&rb), 0);
	CU_ASSERT_EQUAL(rb.err, 1);
}

/* Which reader, and how many bytes its field needs. */
enum reader { R_I8, R_I16, R_I32, R_I64, R_STR, R_BYTES, R_RAW, R_COUNT };

/* Input in which every reader succeeds when given need() bytes. */
static const uint8_t full_in[] = {
	0x00, 0x05, 0x00, 0x00, 0x00, 0x02, 0x41, 0x42, 0x43,
};

static size_t
reader_need(enum reader r)
{
	switch (r) {
	case R_I8:	return 1;
	case R_I16:	return 2;
	case R_I32:	return 4;
	case R_I64:	return 8;
	case R_STR:	return 7;	/* [00 05] + 5 bytes */
	case R_BYTES:	return 9;	/* [00 05 00 00] = 327680: too long */
	case R_RAW:	return 6;
	case R_COUNT:	return 4;
	}
	return 0;
}

/* Run a reader; returns 1 if it produced a non-zero value or pointer. */
static int
reader_run(enum reader r, struct rbuf *rb)
{
	size_t sl;
	int32_t bl;

	switch (r) {
	case R_I8:	return rbuf_i8(rb) != 0;
	case R_I16:	return rbuf_i16(rb) != 0;
	case R_I32:	return rbuf_i32(rb) != 0;
	case R_I64:	return rbuf_i64(rb) != 0;
	case R_STR:	return rbuf_str(rb, &sl) != NULL || sl != 0;
	case R_BYTES:	return rbuf_bytes(rb, &bl) != NULL || bl != 0;
	case R_RAW:	return rbuf_raw(rb, 6) != NULL;
	case R_COUNT:	return rbuf_count(rb, 0) != 0;
	}
	return 1;
}

static void
test_read_every_short_length(void)
{
	enum reader r;
	struct rbuf rb;
	size_t n;
	uint8_t *copy;

	for (r = R_I8; r <= R_COUNT; r++) {
		if (r == R_BYTES)
			continue;	/* its length field never fits full_in */
		for (n = 0; n < reader_need(r); n++) {
			/* An exact-size heap copy so ASan sees any over-read. */
			copy = malloc(n == 0 ? 1 : n);
			CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
			memcpy(copy, full_in, n);
			rbuf_init(&rb, copy, n);
			CU_ASSERT_EQUAL(reader_run(r, &rb), 0);
			CU_ASSERT_EQUAL(rb.err, 1);
			CU_ASSERT(rb.p <= rb.end);
			free(copy);
		}
		/* And with enough bytes it succeeds (the test can fail). */
		if (r != R_COUNT) {
			rbuf_init(&rb, full_in, reader_need(r));
			reader_run(r, &rb);
			CU_ASSERT_EQUAL(rb.err, 0);
			CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
		}
	}
	/* bytes: the length field alone, short, at every length. */
	for (n = 0; n < 4; n++) {
		static const uint8_t len2[] = { 0x00, 0x00, 0x00, 0x02, 'a', 'b' };

		rbuf_init(&rb, len2, n);
		CU_ASSERT_EQUAL(reader_run(R_BYTES, &rb), 0);
		CU_ASSERT_EQUAL(rb.err, 1);
	}
}

static void
test_read_error_sticks(void)
{
	static const uint8_t in[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06 };
	struct rbuf rb;
	size_t sl = 99;
	int32_t bl = 99;

	rbuf_init(&rb, in, 3);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rb.err, 1);
	/* Enough bytes remain for these, but the error is sticky. */
	CU_ASSERT_EQUAL(rbuf_i8(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), 0);
	CU_ASSERT_PTR_NULL(rbuf_raw(&rb, 1));
	CU_ASSERT_PTR_NULL(rbuf_str(&rb, &sl));
	CU_ASSERT_EQUAL(sl, 0);
	CU_ASSERT_PTR_NULL(rbuf_bytes(&rb, &bl));
	CU_ASSERT_EQUAL(bl, 0);
	CU_ASSERT_EQUAL(rbuf_count(&rb, 1), 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 3);
}

static void
test_read_str(void)
{
	static const uint8_t in[] = {
		0x00, 0x03, 'a', 'b', 'c', 0x00, 0x00, 0x00, 0x04, 'x', 'y', 'z',
	};
	static const uint8_t big[] = { 0xff, 0xff, 'a' };
	struct rbuf rb;
	const char *s;
	size_t len;

	rbuf_init(&rb, in, sizeof(in));
	s = rbuf_str(&rb, &len);
	CU_ASSERT_PTR_EQUAL(s, in + 2);
	CU_ASSERT_EQUAL(len, 3);
	s = rbuf_str(&rb, &len);		/* empty: not NULL */
	CU_ASSERT_PTR_EQUAL(s, in + 7);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_EQUAL(rb.err, 0);
	s = rbuf_str(&rb, &len);		/* says 4, 3 are left */
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_EQUAL(rb.err, 1);

	/* A length of 65535 with far fewer bytes behind it. */
	rbuf_init(&rb, big, sizeof(big));
	CU_ASSERT_PTR_NULL(rbuf_str(&rb, &len));
	CU_ASSERT_EQUAL(rb.err, 1);
}

static void
test_read_bytes(void)
{
	static const uint8_t in[] = {
		0x00, 0x00, 0x00, 0x02, 0xaa, 0xbb,
		0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x01,
	};
	static const uint8_t neg2[] = { 0xff, 0xff, 0xff, 0xfe, 0x00 };
	static const uint8_t min[] = { 0x80, 0x00, 0x00, 0x00 };
	static const uint8_t huge[] = { 0x7f, 0xff, 0xff, 0xff, 0x00 };
	struct rbuf rb;
	const uint8_t *p;
	int32_t len;

	rbuf_init(&rb, in, sizeof(in));
	p = rbuf_bytes(&rb, &len);
	CU_ASSERT_PTR_EQUAL(p, in + 4);
	CU_ASSERT_EQUAL(len, 2);
	p = rbuf_bytes(&rb, &len);
	CU_ASSERT_PTR_EQUAL(p, in + 10);	/* empty is not null */
	CU_ASSERT_EQUAL(len, 0);
	p = rbuf_bytes(&rb, &len);
	CU_ASSERT_PTR_NULL(p);			/* null */
	CU_ASSERT_EQUAL(len, -1);
	CU_ASSERT_EQUAL(rb.err, 0);
	p = rbuf_bytes(&rb, &len);		/* 1 byte promised, 0 left */
	CU_ASSERT_PTR_NULL(p);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_EQUAL(rb.err, 1);

	rbuf_init(&rb, neg2, sizeof(neg2));
	CU_ASSERT_PTR_NULL(rbuf_bytes(&rb, &len));
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_EQUAL(rb.err, 1);
	rbuf_init(&rb, min, sizeof(min));
	CU_ASSERT_PTR_NULL(rbuf_bytes(&rb, &len));
	CU_ASSERT_EQUAL(rb.err, 1);
	rbuf_init(&rb, huge, sizeof(huge));
	CU_ASSERT_PTR_NULL(rbuf_bytes(&rb, &len));
	CU_ASSERT_EQUAL(rb.err, 1);
}

static void
test_read_raw(void)
{
	static const uint8_t in[] = { 1, 2, 3, 4, 5 };
	struct rbuf rb;

	rbuf_init(&rb, in, sizeof(in));
	CU_ASSERT_PTR_EQUAL(rbuf_raw(&rb, 0), in);
	CU_ASSERT_PTR_EQUAL(rbuf_raw(&rb, 2), in);
	CU_ASSERT_PTR_EQUAL(rbuf_raw(&rb, 3), in + 2);
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_PTR_NULL(rbuf_raw(&rb, 1));
	CU_ASSERT_EQUAL(rb.err, 1);
	rbuf_init(&rb, in, sizeof(in));
	CU_ASSERT_PTR_NULL(rbuf_raw(&rb, SIZE_MAX));
	CU_ASSERT_EQUAL(rb.err, 1);
}

/* A count field followed by `tail` bytes of zeroes. */
static int32_t
count_with_tail(uint32_t raw, size_t tail, size_t min, int *err)
{
	uint8_t buf[64];
	struct rbuf rb;
	int32_t n;

	memset(buf, 0, sizeof(buf));
	buf[0] = (uint8_t)(raw >> 24);
	buf[1] = (uint8_t)(raw >> 16);
	buf[2] = (uint8_t)(raw >> 8);
	buf[3] = (uint8_t)raw;
	rbuf_init(&rb, buf, 4 + tail);
	n = rbuf_count(&rb, min);
	*err = rb.err;
	return n;
}

static void
test_read_count(void)
{
	int err;

	CU_ASSERT_EQUAL(count_with_tail(0, 0, 10, &err), 0);
	CU_ASSERT_EQUAL(err, 0);
	/* 3 * 10 bytes: fits exactly, then one byte short. */
	CU_ASSERT_EQUAL(count_with_tail(3, 30, 10, &err), 3);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_EQUAL(count_with_tail(3, 29, 10, &err), 0);
	CU_ASSERT_EQUAL(err, 1);
	CU_ASSERT_EQUAL(count_with_tail(4, 30, 10, &err), 0);
	CU_ASSERT_EQUAL(err, 1);
	/* The largest counts, which would overflow count * size. */
	CU_ASSERT_EQUAL(count_with_tail(0x7fffffff, 60, 1, &err), 0);
	CU_ASSERT_EQUAL(err, 1);
	CU_ASSERT_EQUAL(count_with_tail(0x7fffffff, 60, SIZE_MAX, &err), 0);
	CU_ASSERT_EQUAL(err, 1);
	/* Negative counts. */
	CU_ASSERT_EQUAL(count_with_tail(0xffffffff, 60, 1, &err), 0);
	CU_ASSERT_EQUAL(err, 1);
	CU_ASSERT_EQUAL(count_with_tail(0x80000000, 60, 1, &err), 0);
	CU_ASSERT_EQUAL(err, 1);
	/* min_elem_size 0 is taken as 1. */
	CU_ASSERT_EQUAL(count_with_tail(5, 5, 0, &err), 5);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_EQUAL(count_with_tail(6, 5, 0, &err), 0);
	CU_ASSERT_EQUAL(err, 1);
}

static void
test_arena_alignment(void)
{
	static const size_t sizes[] = { 1, 3, 7, 8, 9, 15, 16, 17, 0, 31, 1000,
	    5000, 2, 0, 12345 };
	struct arena a;
	uint8_t *p[sizeof(sizes) / sizeof(sizes[0])];
	size_t i, j, n = sizeof(sizes) / sizeof(sizes[0]);
	int ok = 1;

	arena_init(&a, 1 << 20);
	for (i = 0; i < n; i++) {
		p[i] = arena_alloc(&a, sizes[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p[i]);
		CU_ASSERT_EQUAL((uintptr_t)p[i] % 8, 0);
		memset(p[i], (int)i, sizes[i]);
	}
	/* Nothing overlaps: every block still holds its own pattern. */
	for (i = 0; i < n; i++)
		for (j = 0; j < sizes[i]; j++)
			if (p[i][j] != (uint8_t)i)
				ok = 0;
	CU_ASSERT(ok);
	/* Zero-size allocations are distinct. */
	CU_ASSERT_PTR_NOT_EQUAL(p[8], p[13]);
	arena_free(&a);
	CU_ASSERT_PTR_NULL(a.buf);
}

static void
test_arena_limit(void)
{
	struct arena a;
	int i;

	arena_init(&a, 64);
	CU_ASSERT_PTR_NULL(arena_alloc(&a, 65));
	CU_ASSERT_PTR_NULL(a.buf);		/* refused before allocating */
	CU_ASSERT_PTR_NOT_NULL(arena_alloc(&a, 60));	/* rounds to 64 */
	CU_ASSERT_PTR_NULL(arena_alloc(&a, 1));
	CU_ASSERT_PTR_NULL(arena_alloc(&a, 0));
	arena_reset(&a);
	for (i = 0; i < 8; i++)
		CU_ASSERT_PTR_NOT_NULL(arena_alloc(&a, 8));
	CU_ASSERT_PTR_NULL(arena_alloc(&a, 8));
	arena_free(&a);

	/* The limit holds across chunks: 100 KiB in 1 KiB pieces. */
	arena_init(&a, 100 * 1024);
	for (i = 0; i < 100; i++)
		CU_ASSERT_PTR_NOT_NULL(arena_alloc(&a, 1024));
	CU_ASSERT_PTR_NULL(arena_alloc(&a, 8));
	arena_reset(&a);
	CU_ASSERT_PTR_NOT_NULL(arena_alloc(&a, 100 * 1024));
	CU_ASSERT_PTR_NULL(arena_alloc(&a, 1));
	arena_free(&a);

	/* A size near SIZE_MAX neither overflows nor allocates. */
	arena_init(&a, SIZE_MAX);
	CU_ASSERT_PTR_NULL(arena_alloc(&a, SIZE_MAX - 3));
	CU_ASSERT_PTR_NULL(a.buf);
	arena_free(&a);
}

static void
test_arena_reset_keeps_memory(void)
{
	struct arena a;
	uint8_t *first, *buf;
	int i, round;
	int same = 1;

	arena_init(&a, 1 << 20);
	/* A first request grows several chunks. */
	for (i = 0; i < 40; i++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(arena_alloc(&a, 1000));
	arena_reset(&a);
	buf = a.buf;
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	/* Later requests of the same size reuse the kept chunk. */
	first = arena_alloc(&a, 1000);
	for (round = 0; round < 5; round++) {
		arena_reset(&a);
		if (arena_alloc(&a, 1000) != first)
			same = 0;
		for (i = 1; i < 40; i++)
			if (arena_alloc(&a, 1000) == NULL)
				same = 0;
		if (a.buf != buf)
			same = 0;
	}
	CU_ASSERT(same);
	arena_free(&a);
	/* arena_free on a never-used or freed arena is harmless. */
	arena_free(&a);
	arena_init(&a, 16);
	arena_reset(&a);
	arena_free(&a);
}

/* The content of wb from byte off, gathered through wbuf_iov, max pieces. */
static size_t
gather(const struct wbuf *wb, size_t off, int max, uint8_t *out, int *pieces)
{
	struct iovec iov[8];
	size_t n = 0;
	int i;

	*pieces = wbuf_iov(wb, off, iov, max);
	for (i = 0; i < *pieces; i++) {
		CU_ASSERT(iov[i].iov_len > 0);
		memcpy(out + n, iov[i].iov_base, iov[i].iov_len);
		n += iov[i].iov_len;
	}
	return n;
}

/*
 * Bytes by reference: the length goes into buf, the bytes stay where
 * they are; size, size_from, a frame's length, iovecs from every offset
 * and truncation all count them exactly as if they had been copied.
 */
static void
test_wbuf_spans(void)
{
	static const uint8_t a[5] = { 'a', 'b', 'c', 'd', 'e' };
	static const uint8_t b[3] = { 'x', 'y', 'z' };
	struct wbuf wb, flat;
	uint8_t got[128];
	size_t start, off, n;
	int pieces;

	wbuf_init(&wb);
	wbuf_init(&flat);
	start = frame_begin_request(&wb, 7, 42);
	wbuf_i8(&wb, 1);
	wbuf_bytes_ref(&wb, a, 5);
	wbuf_i16(&wb, 2);
	wbuf_bytes_ref(&wb, b, 3);
	wbuf_bytes_ref(&wb, NULL, 0);	/* empty: nothing referenced */
	frame_end(&wb, start);
	/* The same content, copied. */
	start = frame_begin_request(&flat, 7, 42);
	wbuf_i8(&flat, 1);
	wbuf_bytes(&flat, a, 5);
	wbuf_i16(&flat, 2);
	wbuf_bytes(&flat, b, 3);
	wbuf_bytes(&flat, NULL, 0);
	frame_end(&flat, start);
	CU_ASSERT_EQUAL_FATAL(wb.err, 0);
	CU_ASSERT_EQUAL(wb.nspans, 2);
	CU_ASSERT_EQUAL(wb.span_bytes, 8);
	CU_ASSERT_EQUAL(wb.len + 8, flat.len);
	CU_ASSERT_EQUAL(wbuf_size(&wb), flat.len);
	CU_ASSERT_EQUAL(wbuf_size_from(&wb, 0), flat.len);
	CU_ASSERT_EQUAL(wbuf_size_from(&wb, 10), flat.len - 10);
	/* Every offset: exactly the copied content's tail, in <= 5 pieces. */
	for (off = 0; off <= flat.len; off++) {
		n = gather(&wb, off, 8, got, &pieces);
		CU_ASSERT_EQUAL(n, flat.len - off);
		CU_ASSERT(memcmp(got, flat.buf + off, n) == 0);
		CU_ASSERT(pieces <= 5);
	}
	/* 5 pieces from 0: header+len, a, i16+len, b, the final len. */
	n = gather(&wb, 0, 8, got, &pieces);
	CU_ASSERT_EQUAL(pieces, 5);
	/* At most max pieces: a prefix of the content. */
	n = gather(&wb, 0, 2, got, &pieces);
	CU_ASSERT_EQUAL(pieces, 2);
	CU_ASSERT_EQUAL(n, 10 + 1 + 4 + 5);
	CU_ASSERT(memcmp(got, flat.buf, n) == 0);
	/*
	 * A frame after a span at its very end: its length counts only its
	 * own bytes, and dropping it (truncating at its start) keeps that
	 * span, which ends the frame before.
	 */
	start = frame_begin_request(&wb, 7, 43);
	wbuf_bytes_ref(&wb, a, 2);
	frame_end(&wb, start);
	CU_ASSERT_EQUAL(wbuf_size_from(&wb, start), 10 + 4 + 2);
	CU_ASSERT_EQUAL(be32_get(wb.buf + start), 10 + 4 + 2 - 4);
	wbuf_truncate(&wb, start);
	CU_ASSERT_EQUAL(wb.nspans, 2);
	CU_ASSERT_EQUAL(wbuf_size(&wb), flat.len);
	/* Truncating before the second span drops it and its length. */
	wbuf_truncate(&wb, 10 + 1 + 4 + 2);
	CU_ASSERT_EQUAL(wb.nspans, 1);
	CU_ASSERT_EQUAL(wbuf_size(&wb), 10 + 1 + 4 + 5 + 2);
	wbuf_reset(&wb);
	CU_ASSERT_EQUAL(wb.nspans, 0);
	CU_ASSERT_EQUAL(wbuf_size(&wb), 0);
	CU_ASSERT_EQUAL(wbuf_iov(&wb, 0, NULL, 0), 0);
	/* A frame that ends with a span, then one that is dropped. */
	start = frame_begin_request(&wb, 7, 44);
	wbuf_bytes_ref(&wb, b, 3);
	frame_end(&wb, start);
	CU_ASSERT_EQUAL(wb.spans[0].at, wb.len);
	start = frame_begin_request(&wb, 7, 45);
	wbuf_bytes_ref(&wb, a, 5);
	frame_end(&wb, start);
	CU_ASSERT_EQUAL(be32_get(wb.buf), 10 + 4 + 3 - 4);
	CU_ASSERT_EQUAL(be32_get(wb.buf + start), 10 + 4 + 5 - 4);
	wbuf_truncate(&wb, start);
	CU_ASSERT_EQUAL(wb.nspans, 1);
	CU_ASSERT_EQUAL(wbuf_size(&wb), 10 + 4 + 3);
	n = gather(&wb, 0, 8, got, &pieces);
	CU_ASSERT_EQUAL(n, 17);
	CU_ASSERT(memcmp(got + 14, "xyz", 3) == 0);
	wbuf_free(&wb);
	wbuf_free(&flat);
}

/*
 * Content in pieces (own bytes with spans inserted, as a batch of
 * referenced values): referenced and copied, it is the same [i32][bytes]
 * as the joined content; referenced, its own bytes are not copied.
 */
static void
test_wbuf_pieces(void)
{
	static const uint8_t own[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const uint8_t a[4] = { 'a', 'b', 'c', 'd' };
	static const uint8_t b[2] = { 'x', 'y' };
	/* Spans at the start, in the middle, twice at one place, at the end. */
	const struct wbuf_span spans[] = {
	    { 0, a, 4, 0 }, { 3, b, 2, 0 }, { 3, a, 1, 0 }, { 10, b, 2, 0 } };
	static const uint8_t joined[] = { 'a', 'b', 'c', 'd', 0, 1, 2, 'x',
	    'y', 'a', 3, 4, 5, 6, 7, 8, 9, 'x', 'y' };
	struct wbuf_pieces pc = { own, sizeof(own), spans, 4, 9 };
	struct wbuf_pieces none = { own, sizeof(own), NULL, 0, 0 };
	struct wbuf ref, cp;
	uint8_t got[64], flat[64];
	size_t n, off;
	int pieces, by_ref;

	for (by_ref = 0; by_ref < 2; by_ref++) {
		wbuf_init(&ref);
		wbuf_i8(&ref, 7);
		wbuf_bytes_pieces(&ref, &pc, by_ref);
		wbuf_i8(&ref, 8);
		CU_ASSERT_EQUAL_FATAL(ref.err, 0);
		CU_ASSERT_EQUAL(wbuf_size(&ref), 1 + 4 + sizeof(joined) + 1);
		CU_ASSERT_EQUAL(ref.nspans, by_ref ? 6u : 0u);	/* no empty piece */
		CU_ASSERT_EQUAL(ref.len, by_ref ? 1u + 4 + 1 :
		    1 + 4 + sizeof(joined) + 1);
		/* From every offset: the tail of the flat content. */
		flat[0] = 7;
		be32_put(flat + 1, sizeof(joined));
		memcpy(flat + 5, joined, sizeof(joined));
		flat[5 + sizeof(joined)] = 8;
		for (off = 0; off <= wbuf_size(&ref); off++) {
			n = gather(&ref, off, 8, got, &pieces);
			CU_ASSERT_EQUAL(n, wbuf_size(&ref) - off);
			CU_ASSERT(memcmp(got, flat + off, n) == 0);
		}
		n = gather(&ref, 0, 8, got, &pieces);
		CU_ASSERT_EQUAL_FATAL(n, 1 + 4 + sizeof(joined) + 1);
		CU_ASSERT_EQUAL(got[0], 7);
		CU_ASSERT_EQUAL(be32_get(got + 1), sizeof(joined));
		CU_ASSERT(memcmp(got + 5, joined, sizeof(joined)) == 0);
		CU_ASSERT_EQUAL(got[n - 1], 8);
		wbuf_free(&ref);
	}
	/* Without spans: the plain [i32][bytes]. */
	wbuf_init(&ref);
	wbuf_init(&cp);
	wbuf_bytes_pieces(&ref, &none, 0);
	wbuf_bytes(&cp, own, sizeof(own));
	CU_ASSERT_EQUAL_FATAL(ref.len, cp.len);
	CU_ASSERT(memcmp(ref.buf, cp.buf, cp.len) == 0);
	wbuf_free(&ref);
	wbuf_free(&cp);
}

TEST_SUITE("wire", NULL, NULL,
	{ "write_ints", test_write_ints },
	{ "write_str_bytes_raw", test_write_str_bytes_raw },
	{ "write_str_limits", test_write_str_limits },
	{ "wbuf_growth_and_reset", test_wbuf_growth_and_reset },
	{ "wbuf_reserve_failure_sticks", test_wbuf_reserve_failure_sticks },
	{ "wbuf_put_u32_at", test_wbuf_put_u32_at },
	{ "wbuf_spans", test_wbuf_spans },
	{ "wbuf_pieces", test_wbuf_pieces },
	{ "read_ints", test_read_ints },
	{ "read_every_short_length", test_read_every_short_length },
	{ "read_error_sticks", test_read_error_sticks },
	{ "read_str", test_read_str },
	{ "read_bytes", test_read_bytes },
	{ "read_raw", test_read_raw },
	{ "read_count", test_read_count },
	{ "arena_alignment", test_arena_alignment },
	{ "arena_limit", test_arena_limit },
	{ "arena_reset_keeps_memory", test_arena_reset_keeps_memory });
