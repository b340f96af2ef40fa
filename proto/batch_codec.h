/*
 * A stored batch's codec changed by the broker (a topic's
 * compression.type, proto/tconf.h): the records inflated and compressed
 * again, the header kept but for the codec bits, the length and the CRC
 * (producer fields, offset deltas, timestamps and counts stay).  Pure.
 */
#ifndef FLUME_PROTO_BATCH_CODEC_H
#define FLUME_PROTO_BATCH_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "proto/compress.h"

/* The codec bits of a batch's attributes (COMPRESS_*). */
int	batch_codec(const uint8_t *batch);
/*
 * Append batch in[0..len) (whole and valid) with its records in codec
 * (COMPRESS_NONE: uncompressed) to out (its len grows; its limit does
 * not apply), through inflated (bounded by its limit) and deflated as
 * scratch.  COMPRESS_OK or a negative compress_error (out unchanged).
 */
int	batch_recompress(const uint8_t *in, size_t len, int codec,
	    struct compress_buf *inflated, struct compress_buf *deflated,
	    struct compress_buf *out);
/* Append batch in[0..len) to out as it is: COMPRESS_OK or COMPRESS_ENOMEM. */
int	batch_recompress_keep(const uint8_t *in, size_t len,
	    struct compress_buf *out);

#endif
