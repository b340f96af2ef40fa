/*
 * Zigzag varints, as Kafka's record format encodes them: the signed value
 * is mapped to unsigned (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...) and written
 * seven bits at a time, low group first, high bit meaning "more follows".
 *
 * Decoding accepts non-minimal encodings (Kafka's own readers do) but never
 * more bytes than the type can need, and never a last byte whose bits do
 * not fit the type: a 5th varint byte may carry only 4 bits, a 10th varlong
 * byte only 1.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/varint.h"

static inline uint32_t
zigzag32(int32_t v)
{
	/* Shift the unsigned value: left-shifting a negative int is UB. */
	return ((uint32_t)v << 1) ^ (0U - ((uint32_t)v >> 31));
}

static inline uint64_t
zigzag64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (0ULL - ((uint64_t)v >> 63));
}

static inline size_t
uvarint_put(uint8_t *p, uint64_t u)
{
	size_t n = 0;

	while (u >= 0x80) {
		p[n++] = (uint8_t)(u | 0x80);
		u >>= 7;
	}
	p[n++] = (uint8_t)u;
	return n;
}

static inline size_t
uvarint_size(uint64_t u)
{
	size_t n = 1;

	while (u >= 0x80) {
		u >>= 7;
		n++;
	}
	return n;
}

/*
 * Decode an unsigned varint of at most maxbytes from p[0..len) whose value
 * must fit in bits bits; bytes consumed or -1.
 */
static int
uvarint_get(const uint8_t *p, size_t len, int maxbytes, int bits, uint64_t *out)
{
	uint64_t u = 0;
	int i, shift;

	for (i = 0; i < maxbytes; i++) {
		if ((size_t)i >= len)
			return -1;
		shift = 7 * i;
		if (i == maxbytes - 1) {
			/* Last permitted byte: no continuation, no excess bits. */
			if (p[i] >> (bits - shift) != 0)
				return -1;
		}
		u |= (uint64_t)(p[i] & 0x7f) << shift;
		if ((p[i] & 0x80) == 0) {
			*out = u;
			return i + 1;
		}
	}
	return -1;
}

size_t
varint_put(uint8_t *p, int32_t v)
{
	return uvarint_put(p, zigzag32(v));
}

size_t
varlong_put(uint8_t *p, int64_t v)
{
	return uvarint_put(p, zigzag64(v));
}

size_t
varint_size(int32_t v)
{
	return uvarint_size(zigzag32(v));
}

size_t
varlong_size(int64_t v)
{
	return uvarint_size(zigzag64(v));
}

/* The general decoders; varint.h inlines the short encodings. */
int
varint_get_long(const uint8_t *p, size_t len, int32_t *v)
{
	uint64_t u;
	uint32_t z;
	int n;

	if ((n = uvarint_get(p, len, VARINT_MAX, 32, &u)) < 0)
		return -1;
	z = (uint32_t)u;
	*v = (int32_t)((z >> 1) ^ (0U - (z & 1)));
	return n;
}

int
varlong_get_long(const uint8_t *p, size_t len, int64_t *v)
{
	uint64_t u;
	int n;

	if ((n = uvarint_get(p, len, VARLONG_MAX, 64, &u)) < 0)
		return -1;
	*v = (int64_t)((u >> 1) ^ (0ULL - (u & 1)));
	return n;
}
