/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78).
 *
 * Two paths compute the same function: the SSE4.2 crc32 instruction, 8
 * bytes per instruction, compiled for that target with a function
 * attribute so the rest of the tree needs no -msse4.2; and a portable
 * slicing-by-8 table walk.  crc32c() picks one the first time it runs and
 * keeps it; pthread_once makes that choice race-free in threaded clients.
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
#include <nmmintrin.h>
#endif

#define CRC32C_POLY	0x82F63B78U

static uint32_t		crc32c_table[8][256];
static int		crc32c_use_hw;
static pthread_once_t	crc32c_once = PTHREAD_ONCE_INIT;

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
#ifdef CRC32C_HAVE_SSE42
	__builtin_cpu_init();
	crc32c_use_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
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
__attribute__((target("sse4.2")))
static uint32_t
crc32c_sse42(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = ~crc, w;

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
#endif

uint32_t
crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
#ifdef CRC32C_HAVE_SSE42
	pthread_once(&crc32c_once, crc32c_init);
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

uint32_t
crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc32c_once, crc32c_init);
#ifdef CRC32C_HAVE_SSE42
	if (crc32c_use_hw)
		return crc32c_sse42(crc, buf, len);
#endif
	return crc32c_sw(crc, buf, len);
}
