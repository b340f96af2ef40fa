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
 */
int	varint_get(const uint8_t *p, size_t len, int32_t *v);
int	varlong_get(const uint8_t *p, size_t len, int64_t *v);

#endif
