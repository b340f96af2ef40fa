/*
 * Big-endian loads and stores for the wire and the log.  Inline, alignment
 * free (memcpy), and the only place byte order is handled.
 */
#ifndef FLUME_PROTO_BYTES_H
#define FLUME_PROTO_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint16_t
be16_get(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t
be32_get(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

static inline uint64_t
be64_get(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}

static inline void
be16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
be32_put(uint8_t *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static inline void
be64_put(uint8_t *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

#endif
