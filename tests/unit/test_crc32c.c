/*
 * CRC-32C: published check values, piecewise computation, and agreement
 * between the SSE4.2 and the table-driven path.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/crc32c.h"
#include "tests/harness.h"

struct vector {
	const char	*name;
	uint8_t		 data[48];
	size_t		 len;
	uint32_t	 crc;
};

static struct vector vectors[6];
static size_t nvectors;

/* Known answers: RFC 3720 appendix B.4 and the usual "123456789" check. */
static int
setup(void)
{
	struct vector *v;
	size_t i;

	v = &vectors[nvectors++];
	v->name = "empty";
	v->len = 0;
	v->crc = 0;

	v = &vectors[nvectors++];
	v->name = "123456789";
	memcpy(v->data, "123456789", 9);
	v->len = 9;
	v->crc = 0xE3069283U;

	v = &vectors[nvectors++];
	v->name = "32 zeros";
	v->len = 32;
	v->crc = 0x8A9136AAU;

	v = &vectors[nvectors++];
	v->name = "32 0xff";
	memset(v->data, 0xff, 32);
	v->len = 32;
	v->crc = 0x62A8AB43U;

	v = &vectors[nvectors++];
	v->name = "32 incrementing";
	for (i = 0; i < 32; i++)
		v->data[i] = (uint8_t)i;
	v->len = 32;
	v->crc = 0x46DD794EU;

	v = &vectors[nvectors++];
	v->name = "32 decrementing";
	for (i = 0; i < 32; i++)
		v->data[i] = (uint8_t)(31 - i);
	v->len = 32;
	v->crc = 0x113FDB5CU;
	return 0;
}

static void
test_vectors(void)
{
	size_t i;

	for (i = 0; i < nvectors; i++) {
		CU_ASSERT_EQUAL(crc32c(0, vectors[i].data, vectors[i].len),
		    vectors[i].crc);
		CU_ASSERT_EQUAL(crc32c_sw(0, vectors[i].data, vectors[i].len),
		    vectors[i].crc);
		if (crc32c_hw_available())
			CU_ASSERT_EQUAL(crc32c_hw(0, vectors[i].data,
			    vectors[i].len), vectors[i].crc);
	}
	/* A NULL buffer of length 0 is the identity, whatever crc is. */
	CU_ASSERT_EQUAL(crc32c(0x12345678U, NULL, 0), 0x12345678U);
	CU_ASSERT_EQUAL(crc32c_sw(0x12345678U, NULL, 0), 0x12345678U);
}

/* Chaining at every split point of every vector gives the one-shot value. */
static void
test_incremental(void)
{
	uint8_t big[1000];
	uint32_t whole, c;
	size_t i, k;

	for (i = 0; i < nvectors; i++) {
		for (k = 0; k <= vectors[i].len; k++) {
			c = crc32c(0, vectors[i].data, k);
			c = crc32c(c, vectors[i].data + k, vectors[i].len - k);
			CU_ASSERT_EQUAL(c, vectors[i].crc);
			c = crc32c_sw(0, vectors[i].data, k);
			c = crc32c_sw(c, vectors[i].data + k,
			    vectors[i].len - k);
			CU_ASSERT_EQUAL(c, vectors[i].crc);
		}
	}
	test_fill_random(big, sizeof(big));
	whole = crc32c_sw(0, big, sizeof(big));
	for (k = 0; k <= sizeof(big); k++) {
		c = crc32c(crc32c(0, big, k), big + k, sizeof(big) - k);
		CU_ASSERT_EQUAL_FATAL(c, whole);
		c = crc32c_sw(crc32c_sw(0, big, k), big + k, sizeof(big) - k);
		CU_ASSERT_EQUAL_FATAL(c, whole);
	}
	/* Three pieces, mixing the paths. */
	c = crc32c_sw(0, big, 3);
	c = crc32c(c, big + 3, 500);
	c = crc32c_sw(c, big + 503, sizeof(big) - 503);
	CU_ASSERT_EQUAL(c, whole);
}

/* A changed bit must change the CRC (CRC-32 detects every 1-bit error). */
static void
test_single_bit(void)
{
	uint8_t buf[64];
	uint32_t ref, c;
	size_t bit;

	test_fill_random(buf, sizeof(buf));
	ref = crc32c(0, buf, sizeof(buf));
	for (bit = 0; bit < sizeof(buf) * 8; bit++) {
		buf[bit / 8] ^= (uint8_t)(1U << (bit % 8));
		c = crc32c(0, buf, sizeof(buf));
		buf[bit / 8] ^= (uint8_t)(1U << (bit % 8));
		CU_ASSERT_NOT_EQUAL(c, ref);
	}
	CU_ASSERT_EQUAL(crc32c(0, buf, sizeof(buf)), ref);
}

/*
 * hw == sw on random buffers of random length at random misalignment
 * (heap copies sized exactly, so ASan catches any read past the end).
 */
static void
test_hw_matches_sw(void)
{
	uint8_t *buf;
	size_t len, off;
	uint32_t seed;
	int i;

	if (!crc32c_hw_available()) {
		/* Nothing to compare; crc32c() must still be the sw path. */
		CU_ASSERT_EQUAL(crc32c(0, "123456789", 9), 0xE3069283U);
		return;
	}
	for (i = 0; i < 1000; i++) {
		len = (size_t)(test_rand() % 4096);
		off = (size_t)(test_rand() % 16);
		seed = (uint32_t)test_rand();
		buf = malloc(off + len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		test_fill_random(buf, off + len);
		CU_ASSERT_EQUAL(crc32c_hw(seed, buf + off, len),
		    crc32c_sw(seed, buf + off, len));
		CU_ASSERT_EQUAL(crc32c(0, buf + off, len),
		    crc32c_sw(0, buf + off, len));
		free(buf);
	}
}

/*
 * The hardware path runs buffers of 3 * 256 and 3 * 8192 bytes and more
 * as three chains joined by shift tables: hw == sw at every length around
 * those thresholds and their multiples, at every misalignment mod 8, and
 * on long buffers split at random points.
 */
static void
test_hw_blocks(void)
{
	static const size_t edges[] = { 768, 1536, 24576, 49152, 73728 };
	uint8_t *buf;
	size_t cap = 100000, len, off, k, e;
	uint32_t seed, whole, c;
	int d, i;

	buf = malloc(cap + 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	test_fill_random(buf, cap + 8);
	for (e = 0; e < sizeof(edges) / sizeof(edges[0]); e++)
		for (d = -9; d <= 9; d++)
			for (off = 0; off < 8; off++) {
				len = (size_t)((long)edges[e] + d);
				seed = (uint32_t)test_rand();
				CU_ASSERT_EQUAL_FATAL(crc32c(seed, buf + off, len),
				    crc32c_sw(seed, buf + off, len));
			}
	for (i = 0; i < 50; i++) {
		len = (size_t)(test_rand() % cap);
		off = (size_t)(test_rand() % 8);
		k = len > 0 ? (size_t)(test_rand() % len) : 0;
		whole = crc32c_sw(0, buf + off, len);
		CU_ASSERT_EQUAL_FATAL(crc32c(0, buf + off, len), whole);
		c = crc32c(crc32c(0, buf + off, k), buf + off + k, len - k);
		CU_ASSERT_EQUAL_FATAL(c, whole);
	}
	/* Known answer over the long path: 24576 zero bytes, computed bit by bit. */
	memset(buf, 0, 24576);
	c = 0xffffffffU;
	for (k = 0; k < 24576 * 8; k++)
		c = (c & 1) ? (c >> 1) ^ 0x82F63B78U : c >> 1;
	CU_ASSERT_EQUAL(crc32c(0, buf, 24576), ~c);
	free(buf);
}

/*
 * Buffers of 1024 bytes and more are folded with carry-less multiplies
 * where the CPU has them, 256 bytes a round, then finished by the crc32
 * instruction: crc32c() == sw at every length from 1000 to 1600 (every
 * remainder mod 256 past the threshold, twice), at every misalignment
 * mod 64, from any start value, on a buffer of one repeated byte (where
 * a wrong constant cancels less often than on random bytes: 0xff) and on
 * random ones; and one known answer computed bit by bit.
 */
static void
test_fold(void)
{
	uint8_t *buf;
	size_t len, off;
	uint32_t seed, c;
	int pass;

	buf = malloc(1600 + 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			memset(buf, 0xff, 1600 + 64);
		else
			test_fill_random(buf, 1600 + 64);
		for (len = 1000; len <= 1600; len++) {
			off = len % 64;
			seed = pass == 0 ? 0 : (uint32_t)test_rand();
			CU_ASSERT_EQUAL_FATAL(crc32c(seed, buf + off, len),
			    crc32c_sw(seed, buf + off, len));
		}
	}
	memset(buf, 0, 1600);
	buf[0] = 1;
	buf[1599] = 0x80;
	c = 0xffffffffU;
	for (len = 0; len < 1600 * 8; len++) {
		if (((buf[len / 8] >> (len % 8)) & 1) != 0)
			c ^= 1;
		c = (c & 1) ? (c >> 1) ^ 0x82F63B78U : c >> 1;
	}
	CU_ASSERT_EQUAL(crc32c(0, buf, 1600), ~c);
	free(buf);
}

/*
 * crc32c_combine equals the CRC of the concatenation for every split of
 * random buffers (empty A or B included), and "123456789" split anywhere
 * gives the published check value.
 */
static void
test_combine(void)
{
	static const size_t lens[] = { 0, 1, 7, 8, 61, 256, 4097, 65536,
	    1048576 + 13 };
	uint8_t *buf;
	size_t i, j, n, cut;
	uint32_t a, b;
	unsigned seed = 7;

	for (cut = 0; cut <= 9; cut++)
		CU_ASSERT_EQUAL(crc32c_combine(crc32c(0, "123456789", cut),
		    crc32c(0, &"123456789"[cut], 9 - cut), 9 - cut),
		    0xE3069283U);
	n = lens[sizeof(lens) / sizeof(lens[0]) - 1];
	buf = malloc(n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)rand_r(&seed);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			if (lens[i] + lens[j] > n)
				continue;
			a = crc32c(0, buf, lens[i]);
			b = crc32c(0, buf + lens[i], lens[j]);
			CU_ASSERT_EQUAL(crc32c_combine(a, b, lens[j]),
			    crc32c(0, buf, lens[i] + lens[j]));
		}
	free(buf);
}

TEST_SUITE("crc32c", setup, NULL,
    { "known vectors", test_vectors },
    { "incremental equals one-shot", test_incremental },
    { "combine equals the CRC of the concatenation", test_combine },
    { "every single-bit error detected", test_single_bit },
    { "hw equals sw on random buffers", test_hw_matches_sw },
    { "hw equals sw around the three-chain block sizes", test_hw_blocks },
    { "folded CRC equals sw around its thresholds", test_fold });
