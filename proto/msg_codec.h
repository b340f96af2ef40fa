/*
 * Internal to proto/: the pieces every message codec (msg.c, msg_*.c)
 * shares.  Not for other modules.
 */
#ifndef FLUME_PROTO_MSG_CODEC_H
#define FLUME_PROTO_MSG_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

/*
 * Room for n elements of size sz from the arena; NULL for n <= 0 (nothing
 * to point at) and NULL with *fail set when the arena refuses.
 */
void	*msg_array(struct arena *a, int32_t n, size_t sz, int *fail);
/* The end of every decoder: all read, nothing short, nothing left over. */
int	 msg_done(const struct rbuf *rb);
/*
 * 1 with *error set when a response payload is exactly a non-zero
 * [error i16] (an answer to a request the broker could not decode).
 */
int	 msg_error_only(const uint8_t *p, size_t len, int16_t *error);

#endif
