/*
 * Zigzag varint/varlong: exact encodings, round trips at every size
 * boundary, and rejection of truncated and over-long input.
 */
#include <limits.h>
#include <string.h>

#include "proto/varint.h"
#include "tests/harness.h"

static const int32_t int_cases[] = {
	0, 1, -1, 63, -63, 64, -64, 65, -65, 8191, -8191, 8192, -8192,
	1048575, -1048575, 1048576, -1048576, 134217727, -134217728,
	134217728, -134217729, INT32_MAX, INT32_MIN, INT32_MAX - 1,
	INT32_MIN + 1,
};

static const int64_t long_cases[] = {
	0, 1, -1, 63, -63, 64, -64, 8191, -8191, 8192, -8192,
	INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1,
	0x3fffffffffffffffLL, -0x4000000000000000LL, 0x4000000000000000LL,
	-0x4000000000000001LL, INT64_MAX, INT64_MIN, INT64_MAX - 1,
	INT64_MIN + 1, 1700000000000LL, -1700000000000LL,
};

/* Expected byte count: 7 payload bits per byte of the zigzag value. */
static size_t
expected_size(uint64_t zz)
{
	size_t n = 1;

	while (zz >= 0x80) {
		zz >>= 7;
		n++;
	}
	return n;
}

static void
test_known_encodings(void)
{
	static const struct {
		int32_t v;
		uint8_t enc[5];
		size_t len;
	} k[] = {
		{ 0, { 0x00 }, 1 },
		{ -1, { 0x01 }, 1 },
		{ 1, { 0x02 }, 1 },
		{ -2, { 0x03 }, 1 },
		{ 63, { 0x7e }, 1 },
		{ -64, { 0x7f }, 1 },
		{ 64, { 0x80, 0x01 }, 2 },
		{ -65, { 0x81, 0x01 }, 2 },
		{ 150, { 0xac, 0x02 }, 2 },
		{ 8191, { 0xfe, 0x7f }, 2 },
		{ -8192, { 0xff, 0x7f }, 2 },
		{ 8192, { 0x80, 0x80, 0x01 }, 3 },
		{ INT32_MAX, { 0xfe, 0xff, 0xff, 0xff, 0x0f }, 5 },
		{ INT32_MIN, { 0xff, 0xff, 0xff, 0xff, 0x0f }, 5 },
	};
	uint8_t buf[VARLONG_MAX];
	int32_t v;
	int64_t lv;
	size_t i, n;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		memset(buf, 0xaa, sizeof(buf));
		n = varint_put(buf, k[i].v);
		CU_ASSERT_EQUAL(n, k[i].len);
		CU_ASSERT_EQUAL(memcmp(buf, k[i].enc, k[i].len), 0);
		CU_ASSERT_EQUAL(buf[k[i].len], 0xaa);	/* nothing beyond */
		CU_ASSERT_EQUAL(varint_get(k[i].enc, k[i].len, &v),
		    (int)k[i].len);
		CU_ASSERT_EQUAL(v, k[i].v);
		/* The same small values encode identically as varlongs. */
		n = varlong_put(buf, k[i].v);
		CU_ASSERT_EQUAL(n, k[i].len);
		CU_ASSERT_EQUAL(memcmp(buf, k[i].enc, k[i].len), 0);
		CU_ASSERT_EQUAL(varlong_get(k[i].enc, k[i].len, &lv),
		    (int)k[i].len);
		CU_ASSERT_EQUAL(lv, k[i].v);
	}
	/* INT64 extremes take all 10 bytes, the last carrying one bit. */
	n = varlong_put(buf, INT64_MIN);
	CU_ASSERT_EQUAL(n, 10);
	CU_ASSERT_EQUAL(buf[0], 0xff);
	CU_ASSERT_EQUAL(buf[8], 0xff);
	CU_ASSERT_EQUAL(buf[9], 0x01);
	n = varlong_put(buf, INT64_MAX);
	CU_ASSERT_EQUAL(n, 10);
	CU_ASSERT_EQUAL(buf[0], 0xfe);
	CU_ASSERT_EQUAL(buf[9], 0x01);
}

static void
test_varint_round_trip(void)
{
	uint8_t buf[VARINT_MAX + 3];
	uint32_t zz;
	int32_t v, got;
	size_t i, n, cut;

	for (i = 0; i < sizeof(int_cases) / sizeof(int_cases[0]); i++) {
		v = int_cases[i];
		zz = v >= 0 ? (uint32_t)v * 2 : (uint32_t)(-(int64_t)v) * 2 - 1;
		n = varint_put(buf, v);
		CU_ASSERT_EQUAL(n, expected_size(zz));
		CU_ASSERT_EQUAL(n, varint_size(v));
		CU_ASSERT(n <= VARINT_MAX);
		got = 0x5a5a5a5a;
		CU_ASSERT_EQUAL(varint_get(buf, n, &got), (int)n);
		CU_ASSERT_EQUAL(got, v);
		/* Extra bytes after the encoding are not consumed. */
		buf[n] = 0x7f;
		CU_ASSERT_EQUAL(varint_get(buf, n + 1, &got), (int)n);
		CU_ASSERT_EQUAL(got, v);
		/* Every truncation is rejected. */
		for (cut = 0; cut < n; cut++)
			CU_ASSERT_EQUAL(varint_get(buf, cut, &got), -1);
	}
}

static void
test_varlong_round_trip(void)
{
	uint8_t buf[VARLONG_MAX + 3];
	uint64_t zz;
	int64_t v, got;
	size_t i, n, cut;

	for (i = 0; i < sizeof(long_cases) / sizeof(long_cases[0]); i++) {
		v = long_cases[i];
		zz = v >= 0 ? (uint64_t)v * 2 : ~((uint64_t)v) * 2 + 1;
		n = varlong_put(buf, v);
		CU_ASSERT_EQUAL(n, expected_size(zz));
		CU_ASSERT_EQUAL(n, varlong_size(v));
		CU_ASSERT(n <= VARLONG_MAX);
		got = 0x5a5a5a5a;
		CU_ASSERT_EQUAL(varlong_get(buf, n, &got), (int)n);
		CU_ASSERT_EQUAL(got, v);
		buf[n] = 0x01;
		CU_ASSERT_EQUAL(varlong_get(buf, n + 1, &got), (int)n);
		CU_ASSERT_EQUAL(got, v);
		for (cut = 0; cut < n; cut++)
			CU_ASSERT_EQUAL(varlong_get(buf, cut, &got), -1);
	}
}

/* Random values of every magnitude survive the round trip. */
static void
test_random_round_trip(void)
{
	uint8_t buf[VARLONG_MAX];
	int64_t lv, lgot;
	int32_t v, got;
	int i, shift;

	for (i = 0; i < 20000; i++) {
		shift = (int)(test_rand() % 64);
		lv = (int64_t)(test_rand() >> shift);
		if (test_rand() & 1)
			lv = -lv;
		CU_ASSERT_EQUAL_FATAL(varlong_get(buf, varlong_put(buf, lv),
		    &lgot), (int)varlong_size(lv));
		CU_ASSERT_EQUAL_FATAL(lgot, lv);
		v = (int32_t)(uint32_t)lv;
		CU_ASSERT_EQUAL_FATAL(varint_get(buf, varint_put(buf, v),
		    &got), (int)varint_size(v));
		CU_ASSERT_EQUAL_FATAL(got, v);
	}
}

static void
test_overlong_rejected(void)
{
	/* Six bytes: the fifth still says "more". */
	static const uint8_t six[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	/* Five bytes whose last one carries bits past bit 31. */
	static const uint8_t hi5a[] = { 0xff, 0xff, 0xff, 0xff, 0x10 };
	static const uint8_t hi5b[] = { 0x80, 0x80, 0x80, 0x80, 0x7f };
	/* Largest legal 5th byte. */
	static const uint8_t ok5[] = { 0xff, 0xff, 0xff, 0xff, 0x0f };
	/* Eleven bytes for a varlong. */
	static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x80, 0x80, 0x80, 0x80, 0x00 };
	/* Ten bytes whose last carries bits past bit 63. */
	static const uint8_t hi10[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0x02 };
	static const uint8_t ok10[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0x01 };
	/* Non-minimal but within the byte limit: accepted, as Kafka does. */
	static const uint8_t padded0[] = { 0x80, 0x80, 0x00 };
	int32_t v;
	int64_t lv;

	CU_ASSERT_EQUAL(varint_get(six, sizeof(six), &v), -1);
	CU_ASSERT_EQUAL(varint_get(hi5a, sizeof(hi5a), &v), -1);
	CU_ASSERT_EQUAL(varint_get(hi5b, sizeof(hi5b), &v), -1);
	CU_ASSERT_EQUAL(varint_get(ok5, sizeof(ok5), &v), 5);
	CU_ASSERT_EQUAL(v, INT32_MIN);
	/* A varint of 6 bytes is not accepted as a varint even when valid
	 * as a varlong. */
	CU_ASSERT_EQUAL(varlong_get(six, sizeof(six), &lv), 6);
	CU_ASSERT_EQUAL(lv, 0);

	CU_ASSERT_EQUAL(varlong_get(eleven, sizeof(eleven), &lv), -1);
	CU_ASSERT_EQUAL(varlong_get(hi10, sizeof(hi10), &lv), -1);
	CU_ASSERT_EQUAL(varlong_get(ok10, sizeof(ok10), &lv), 10);
	CU_ASSERT_EQUAL(lv, INT64_MIN);
	CU_ASSERT_EQUAL(varint_get(ok10, sizeof(ok10), &v), -1);

	CU_ASSERT_EQUAL(varint_get(padded0, sizeof(padded0), &v), 3);
	CU_ASSERT_EQUAL(v, 0);

	/* Empty input and a lone continuation byte. */
	CU_ASSERT_EQUAL(varint_get(six, 0, &v), -1);
	CU_ASSERT_EQUAL(varlong_get(six, 0, &lv), -1);
	CU_ASSERT_EQUAL(varint_get(six, 1, &v), -1);
	CU_ASSERT_EQUAL(varlong_get(eleven, 10, &lv), -1);
}

/*
 * The one- and two-byte encodings varint.h decodes inline, next to the
 * three-byte ones that go the long way: exact values at the zigzag
 * boundaries 63/64 (one byte to two) and 8191/8192 (two to three), the
 * 127/128 unsigned boundary, negatives, non-minimal encodings, and
 * never a byte read past len (the byte after it would end the varint).
 */
static void
test_short_paths(void)
{
	static const struct {
		uint8_t enc[4];
		size_t len;
		int n;		/* bytes consumed; -1: rejected */
		int32_t v;
	} k[] = {
		{ { 0x00 }, 1, 1, 0 },
		{ { 0x7e }, 1, 1, 63 },		/* zigzag 126 */
		{ { 0x7f }, 1, 1, -64 },	/* zigzag 127: last 1-byte */
		{ { 0x01 }, 1, 1, -1 },
		{ { 0x80, 0x01 }, 2, 2, 64 },	/* zigzag 128: first 2-byte */
		{ { 0x81, 0x01 }, 2, 2, -65 },
		{ { 0xfd, 0x01 }, 2, 2, -127 },	/* zigzag 253 */
		{ { 0xfe, 0x01 }, 2, 2, 127 },	/* zigzag 254 */
		{ { 0x80, 0x02 }, 2, 2, 128 },	/* zigzag 256 */
		{ { 0xff, 0x01 }, 2, 2, -128 },	/* zigzag 255 */
		{ { 0xfe, 0x7f }, 2, 2, 8191 },	/* last 2-byte */
		{ { 0xff, 0x7f }, 2, 2, -8192 },
		{ { 0x80, 0x80, 0x01 }, 3, 3, 8192 },	/* first 3-byte */
		{ { 0x81, 0x80, 0x01 }, 3, 3, -8193 },
		{ { 0x80, 0x00 }, 2, 2, 0 },	/* non-minimal: accepted */
		{ { 0xff, 0x00 }, 2, 2, -64 },
		{ { 0x80, 0x80, 0x00 }, 3, 3, 0 },
		{ { 0x00 }, 0, -1, 0 },		/* nothing to read */
		{ { 0x80, 0x01 }, 1, -1, 0 },	/* cut after a continuation */
		{ { 0x80, 0x80, 0x01 }, 2, -1, 0 },
		{ { 0xc8, 0x01, 0x00 }, 3, 2, 100 },	/* stops at its end */
	};
	int32_t v;
	int64_t lv;
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		v = 12345;
		lv = 12345;
		CU_ASSERT_EQUAL(varint_get(k[i].enc, k[i].len, &v), k[i].n);
		CU_ASSERT_EQUAL(varlong_get(k[i].enc, k[i].len, &lv), k[i].n);
		if (k[i].n > 0) {
			CU_ASSERT_EQUAL(v, k[i].v);
			CU_ASSERT_EQUAL(lv, (int64_t)k[i].v);
		} else {
			CU_ASSERT_EQUAL(v, 12345);	/* untouched on failure */
			CU_ASSERT_EQUAL(lv, 12345);
		}
	}
}

TEST_SUITE("varint", NULL, NULL,
    { "one- and two-byte fast paths, exact values", test_short_paths },
    { "known encodings", test_known_encodings },
    { "varint round trip at boundaries", test_varint_round_trip },
    { "varlong round trip at boundaries", test_varlong_round_trip },
    { "random round trip", test_random_round_trip },
    { "over-long and truncated rejected", test_overlong_rejected });
