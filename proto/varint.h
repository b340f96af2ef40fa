/*
 * Zigzag variable-length integers as Kafka encodes records: varint is a
 * zigzag int32 in at most 5 bytes, varlong a zigzag int64 in at most 10.
 */
#ifndef FLUME_PROTO_VARINT_H
#define FLUME_PROTO_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX	5
#define VARLONG_MAX	10

/* Encode into p (room for VARINT_MAX/VARLONG_MAX); return bytes written. */
size_t	varint_put(uint8_t *p, int32_t v);
size_t	varlong_put(uint8_t *p, int64_t v);
/* Bytes the encoding of v takes. */
size_t	varint_size(int32_t v);
size_t	varlong_size(int64_t v);
/*
 * Decode from p[0..len); return bytes consumed, or -1 if the encoding runs
 * past len or is longer than the type allows (over-long encodings and
 * values that do not fit are rejected).
 *
 * Inline for the one- and two-byte encodings, which are nearly every
 * length, delta and count of a record (a 100-byte value's record has
 * six varints, none longer than two bytes): a consumer decodes every
 * record twice (validation, then iteration) and the out-of-line call
 * was over half its instructions.  Two bytes carry 14 bits, which fit
 * either type, so only the longer encodings need the checks of
 * varint_get_long().
 */
int	varint_get_long(const uint8_t *p, size_t len, int32_t *v);
int	varlong_get_long(const uint8_t *p, size_t len, int64_t *v);

static inline int
varint_get(const uint8_t *p, size_t len, int32_t *v)
{
	uint32_t z;

	if (len >= 1 && p[0] < 0x80) {
		z = p[0];
		*v = (int32_t)((z >> 1) ^ (0U - (z & 1)));
		return 1;
	}
	if (len >= 2 && p[1] < 0x80) {
		z = (uint32_t)(p[0] & 0x7f) | (uint32_t)p[1] << 7;
		*v = (int32_t)((z >> 1) ^ (0U - (z & 1)));
		return 2;
	}
	return varint_get_long(p, len, v);
}

static inline int
varlong_get(const uint8_t *p, size_t len, int64_t *v)
{
	uint64_t z;

	if (len >= 1 && p[0] < 0x80) {
		z = p[0];
		*v = (int64_t)((z >> 1) ^ (0ULL - (z & 1)));
		return 1;
	}
	if (len >= 2 && p[1] < 0x80) {
		z = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		*v = (int64_t)((z >> 1) ^ (0ULL - (z & 1)));
		return 2;
	}
	return varlong_get_long(p, len, v);
}

#endif
