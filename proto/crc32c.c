/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78).
 *
 * Two paths compute the same function: the SSE4.2 crc32 instruction, 8
 * bytes per instruction, compiled for that target with a function
 * attribute so the rest of the tree needs no -msse4.2; and a portable
 * slicing-by-8 table walk.  crc32c() picks one the first time it runs and
 * keeps it; pthread_once makes that choice race-free in threaded clients.
 *
 * The instruction takes three cycles but can start one every cycle, so
 * one dependent chain runs it at a third of its speed.  Long buffers are
 * cut into three adjacent blocks checksummed as three independent chains
 * (the second and third from 0), then joined: the CRC register is linear,
 * so crc(A||B) = shift(crc(A), |B|) ^ crc0(B), where shift(c, n) is c
 * run through n zero bytes, a fixed 32x32 bit matrix for a fixed n,
 * applied with four byte-indexed tables.
 *
 * Where the CPU has carry-less multiplication on 512-bit registers
 * (VPCLMULQDQ with AVX-512), buffers of CRC32C_FOLD_MIN bytes and more
 * are folded instead, 64 bytes per instruction pair.  In the register's
 * bit order a 16-byte block B read as 128 bits stands for a polynomial
 * of degree < 128 (bit j is x^(127-j)); a block followed by D more bits
 * of message counts as B * x^D, and B = L * x^64 + H (L its low 64 bits)
 * gives B * x^D == L * (x^(D+64) mod P) + H * (x^D mod P), two products
 * of 64 by 32 bits, under 128 bits: a block congruent to B * x^D that is
 * simply XORed into the block D bits later.  The carry-less multiply of
 * two 64-bit values in this bit order yields their product times x, so
 * the constants are x^(D+63) and x^(D-1) mod P.  Four registers of four
 * blocks fold 256 bytes ahead (D = 2048) while the buffer lasts, are
 * folded into one, its four blocks into one; a 16-byte message congruent
 * to everything read has the same CRC, which the crc32 instruction takes
 * from there, and on through the last bytes.  The start register enters
 * as the first 32 bits of the message (XORed in: the same CRC).  All the
 * constants are computed at start-up from the x^(2^k) table below.
 *
 * The crc argument and the result are the finished (inverted) values, so
 * crc32c(crc32c(0, a, n), b, m) == crc32c(0, a||b, n+m).
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "proto/crc32c.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC32C_HAVE_SSE42	1
#include <immintrin.h>
#endif

#define CRC32C_POLY	0x82F63B78U

/* Block lengths of the three-chain loop (powers of two, at least 8). */
#define CRC32C_LONG	8192
#define CRC32C_SHORT	256

static uint32_t		crc32c_table[8][256];
/* [k][b]: the register b << 8k run through CRC32C_LONG (SHORT) zero bytes. */
static uint32_t		crc32c_long[4][256];
static uint32_t		crc32c_short[4][256];
/* [k]: x^(2^k) mod P, in the reflected bit order of the register. */
static uint32_t		crc32c_x2k[64];
static int		crc32c_use_hw;
/*
 * Folding: the shortest buffer worth it, and the constants per distance
 * D in bits, as { x^(D+63), x^(D-1) } mod P in the high halves of 64-bit
 * words: [0] 2048 (the loop), [1] 1536, [2] 1024, [3] 512 (register into
 * register), [4] 384, [5] 256, [6] 128 (block into block).
 */
#define CRC32C_FOLD_MIN	1024
static const unsigned	crc32c_fold_bits[7] = {
	2048, 1536, 1024, 512, 384, 256, 128
};
static uint64_t		crc32c_fold[7][2];
static int		crc32c_use_fold;
static pthread_once_t	crc32c_once = PTHREAD_ONCE_INIT;

/* The image of v under the linear map m (m[i]: the image of bit i). */
static uint32_t
gf2_apply(const uint32_t m[32], uint32_t v)
{
	uint32_t r = 0;
	int i;

	for (i = 0; v != 0; i++, v >>= 1)
		if (v & 1)
			r ^= m[i];
	return r;
}

/*
 * Fill t with the map "run the register through len zero bytes" (len a
 * power of two), starting from one zero byte and squaring.
 */
static void
crc32c_shift_table(uint32_t t[4][256], size_t len)
{
	uint32_t m[32], sq[32];
	size_t n;
	int i, k;

	for (i = 0; i < 32; i++)
		m[i] = ((1U << i) >> 8) ^ crc32c_table[0][(1U << i) & 0xff];
	for (n = 1; n < len; n *= 2) {
		for (i = 0; i < 32; i++)
			sq[i] = gf2_apply(m, m[i]);
		memcpy(m, sq, sizeof(m));
	}
	for (k = 0; k < 4; k++)
		for (i = 0; i < 256; i++)
			t[k][i] = gf2_apply(m, (uint32_t)i << (8 * k));
}

/*
 * a(x) * b(x) mod P, both in the register's reflected order (bit 31 is
 * x^0): for each term of a, from x^0 up, add b, then multiply b by x.
 */
static uint32_t
gf2_mulmod(uint32_t a, uint32_t b)
{
	uint32_t m, p = 0;

	for (m = 1U << 31; m != 0; m >>= 1) {
		if (a & m)
			p ^= b;
		b = (b & 1) ? (b >> 1) ^ CRC32C_POLY : b >> 1;
	}
	return p;
}

/* x^n mod P, from the x^(2^k) table (filled first). */
static uint32_t
crc32c_xpow(uint64_t n)
{
	uint32_t x = 1U << 31;			/* x^0 */
	int k;

	for (k = 0; n != 0 && k < 64; k++, n >>= 1)
		if (n & 1)
			x = gf2_mulmod(crc32c_x2k[k], x);
	return x;
}

/* Build the slicing tables and probe the CPU; runs exactly once. */
static void
crc32c_init(void)
{
	uint32_t c;
	int i, j, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (j = 0; j < 8; j++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		crc32c_table[0][i] = c;
	}
	/* table[k][n]: the CRC of byte n followed by k zero bytes. */
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++) {
			c = crc32c_table[k - 1][i];
			crc32c_table[k][i] = (c >> 8) ^ crc32c_table[0][c & 0xff];
		}
	crc32c_shift_table(crc32c_long, CRC32C_LONG);
	crc32c_shift_table(crc32c_short, CRC32C_SHORT);
	crc32c_x2k[0] = 1U << 30;		/* x^1 */
	for (k = 1; k < 64; k++)
		crc32c_x2k[k] = gf2_mulmod(crc32c_x2k[k - 1], crc32c_x2k[k - 1]);
	for (k = 0; k < 7; k++) {
		crc32c_fold[k][0] =
		    (uint64_t)crc32c_xpow(crc32c_fold_bits[k] + 63) << 32;
		crc32c_fold[k][1] =
		    (uint64_t)crc32c_xpow(crc32c_fold_bits[k] - 1) << 32;
	}
#ifdef CRC32C_HAVE_SSE42
	__builtin_cpu_init();
	crc32c_use_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	crc32c_use_fold = crc32c_use_hw && __builtin_cpu_supports("pclmul") &&
	    __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("vpclmulqdq") ? 1 : 0;
#endif
}

/* Little-endian 32-bit load, whatever the host byte order and alignment. */
static inline uint32_t
le32_load(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t
crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t lo, hi;

	pthread_once(&crc32c_once, crc32c_init);
	crc = ~crc;
	while (len >= 8) {
		lo = le32_load(p) ^ crc;
		hi = le32_load(p + 4);
		crc = crc32c_table[7][lo & 0xff] ^
		    crc32c_table[6][(lo >> 8) & 0xff] ^
		    crc32c_table[5][(lo >> 16) & 0xff] ^
		    crc32c_table[4][lo >> 24] ^
		    crc32c_table[3][hi & 0xff] ^
		    crc32c_table[2][(hi >> 8) & 0xff] ^
		    crc32c_table[1][(hi >> 16) & 0xff] ^
		    crc32c_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len-- > 0)
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

#ifdef CRC32C_HAVE_SSE42
/* The register c run through as many zero bytes as table t stands for. */
static inline uint32_t
crc32c_shift(const uint32_t t[4][256], uint32_t c)
{
	return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^
	    t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}

/*
 * Three independent chains over the blocks [0, n), [n, 2n), [2n, 3n) of
 * p, joined into the register that one chain from c would have left.
 */
__attribute__((target("sse4.2")))
static inline uint64_t
crc32c_sse42_3way(uint64_t c, const uint8_t *p, size_t n,
    const uint32_t t[4][256])
{
	uint64_t c1 = 0, c2 = 0, w0, w1, w2;
	size_t i;

	for (i = 0; i < n; i += 8) {
		memcpy(&w0, p + i, 8);
		memcpy(&w1, p + n + i, 8);
		memcpy(&w2, p + 2 * n + i, 8);
		c = _mm_crc32_u64(c, w0);
		c1 = _mm_crc32_u64(c1, w1);
		c2 = _mm_crc32_u64(c2, w2);
	}
	c = crc32c_shift(t, (uint32_t)c) ^ (uint32_t)c1;
	return crc32c_shift(t, (uint32_t)c) ^ (uint32_t)c2;
}

__attribute__((target("sse4.2")))
static uint32_t
crc32c_sse42(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = ~crc, w;

	while (len >= 3 * CRC32C_LONG) {
		c = crc32c_sse42_3way(c, p, CRC32C_LONG, crc32c_long);
		p += 3 * CRC32C_LONG;
		len -= 3 * CRC32C_LONG;
	}
	while (len >= 3 * CRC32C_SHORT) {
		c = crc32c_sse42_3way(c, p, CRC32C_SHORT, crc32c_short);
		p += 3 * CRC32C_SHORT;
		len -= 3 * CRC32C_SHORT;
	}
	/* memcpy keeps the loads legal at any alignment (UBSan agrees). */
	while (len >= 8) {
		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
		p += 8;
		len -= 8;
	}
	while (len-- > 0)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return ~(uint32_t)c;
}

#define CRC32C_FOLD_TARGET	"sse4.2,pclmul,avx512f,vpclmulqdq"

/* Every block of x moved D bits on (constants k) and XORed into d. */
__attribute__((target(CRC32C_FOLD_TARGET)))
static inline __m512i
crc32c_fold512(__m512i x, __m512i k, __m512i d)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
	    _mm512_clmulepi64_epi128(x, k, 0x11), d, 0x96);
}

__attribute__((target(CRC32C_FOLD_TARGET)))
static inline __m128i
crc32c_fold128(__m128i x, const uint64_t k[2], __m128i d)
{
	__m128i kk = _mm_set_epi64x((long long)k[1], (long long)k[0]);

	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, kk, 0x00),
	    _mm_clmulepi64_si128(x, kk, 0x11)), d);
}

/* len >= 256: fold (the rule at the top), then the crc32 instruction. */
__attribute__((target(CRC32C_FOLD_TARGET)))
static uint32_t
crc32c_fold_run(uint32_t crc, const uint8_t *p, size_t len)
{
	__m512i x0, x1, x2, x3, k;
	__m128i b;
	uint64_t q[2], c;

	k = _mm512_broadcast_i32x4(_mm_set_epi64x(
	    (long long)crc32c_fold[0][1], (long long)crc32c_fold[0][0]));
	x0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_inserti32x4(
	    _mm512_setzero_si512(), _mm_cvtsi32_si128((int)~crc), 0));
	x1 = _mm512_loadu_si512(p + 64);
	x2 = _mm512_loadu_si512(p + 128);
	x3 = _mm512_loadu_si512(p + 192);
	p += 256;
	len -= 256;
	while (len >= 256) {
		x0 = crc32c_fold512(x0, k, _mm512_loadu_si512(p));
		x1 = crc32c_fold512(x1, k, _mm512_loadu_si512(p + 64));
		x2 = crc32c_fold512(x2, k, _mm512_loadu_si512(p + 128));
		x3 = crc32c_fold512(x3, k, _mm512_loadu_si512(p + 192));
		p += 256;
		len -= 256;
	}
	x3 = crc32c_fold512(x0, _mm512_broadcast_i32x4(_mm_set_epi64x(
	    (long long)crc32c_fold[1][1], (long long)crc32c_fold[1][0])), x3);
	x3 = crc32c_fold512(x1, _mm512_broadcast_i32x4(_mm_set_epi64x(
	    (long long)crc32c_fold[2][1], (long long)crc32c_fold[2][0])), x3);
	x3 = crc32c_fold512(x2, _mm512_broadcast_i32x4(_mm_set_epi64x(
	    (long long)crc32c_fold[3][1], (long long)crc32c_fold[3][0])), x3);
	b = _mm512_extracti32x4_epi32(x3, 3);
	b = crc32c_fold128(_mm512_extracti32x4_epi32(x3, 0), crc32c_fold[4], b);
	b = crc32c_fold128(_mm512_extracti32x4_epi32(x3, 1), crc32c_fold[5], b);
	b = crc32c_fold128(_mm512_extracti32x4_epi32(x3, 2), crc32c_fold[6], b);
	_mm_storeu_si128((__m128i *)(void *)q, b);
	c = _mm_crc32_u64(0, q[0]);
	c = _mm_crc32_u64(c, q[1]);
	return crc32c_sse42(~(uint32_t)c, p, len);
}
#endif

uint32_t
crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
#ifdef CRC32C_HAVE_SSE42
	pthread_once(&crc32c_once, crc32c_init);
	if (crc32c_use_fold && len >= CRC32C_FOLD_MIN)
		return crc32c_fold_run(crc, buf, len);
	if (crc32c_use_hw)
		return crc32c_sse42(crc, buf, len);
#endif
	/* Misuse on a CPU without the instruction: still the right answer. */
	return crc32c_sw(crc, buf, len);
}

int
crc32c_hw_available(void)
{
	pthread_once(&crc32c_once, crc32c_init);
	return crc32c_use_hw;
}

const char *
crc32c_path(void)
{
	pthread_once(&crc32c_once, crc32c_init);
	return crc32c_use_fold ? "vpclmulqdq" : crc32c_use_hw ? "sse4.2" : "sw";
}

uint32_t
crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc32c_once, crc32c_init);
#ifdef CRC32C_HAVE_SSE42
	if (crc32c_use_fold && len >= CRC32C_FOLD_MIN)
		return crc32c_fold_run(crc, buf, len);
	if (crc32c_use_hw)
		return crc32c_sse42(crc, buf, len);
#endif
	return crc32c_sw(crc, buf, len);
}

/*
 * crc(A||B) from crc(A), crc(B) and |B|: crc(A) run through |B| zero
 * bytes, which is multiplying it by x^(8|B|) mod P, plus crc(B) (the
 * register's start and final inversions cancel).  x^(8|B|) is a product
 * of the precomputed x^(2^k), one per bit of 8|B|: 64 steps at most.
 */
uint32_t
crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b)
{
	pthread_once(&crc32c_once, crc32c_init);
	return gf2_mulmod(crc32c_xpow((uint64_t)len_b << 3), crc_a) ^ crc_b;
}
