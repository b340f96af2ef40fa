/*
 * Recompressing a batch; see batch_codec.h.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/batch.h"
#include "proto/batch_codec.h"
#include "proto/bytes.h"
#include "proto/crc32c.h"

#define CODEC_MASK	0x07

int
batch_codec(const uint8_t *batch)
{
	return be16_get(batch + BATCH_OFF_ATTRIBUTES) & CODEC_MASK;
}

/* Room for n more bytes in out: 0, or -1. */
static int
out_reserve(struct compress_buf *out, size_t n)
{
	size_t cap;
	uint8_t *nb;

	if (out->len + n <= out->cap)
		return 0;
	cap = out->cap > 0 ? out->cap : 4096;
	while (cap < out->len + n)
		cap *= 2;
	if ((nb = realloc(out->buf, cap)) == NULL)
		return -1;
	out->buf = nb;
	out->cap = cap;
	return 0;
}

int
batch_recompress_keep(const uint8_t *in, size_t len, struct compress_buf *out)
{
	if (out_reserve(out, len) == -1)
		return COMPRESS_ENOMEM;
	memcpy(out->buf + out->len, in, len);
	out->len += len;
	return COMPRESS_OK;
}

int
batch_recompress(const uint8_t *in, size_t len, int codec,
    struct compress_buf *inflated, struct compress_buf *deflated,
    struct compress_buf *out)
{
	const uint8_t *raw = in + BATCH_HEADER_SIZE, *sec;
	size_t rawlen = len - BATCH_HEADER_SIZE, seclen, total;
	uint16_t attrs;
	uint8_t *h;
	int from = batch_codec(in), rc;

	if (len < BATCH_HEADER_SIZE)
		return COMPRESS_ECORRUPT;
	if (from != COMPRESS_NONE) {
		if ((rc = compress_inflate(from, raw, rawlen, inflated)) !=
		    COMPRESS_OK)
			return rc;
		raw = inflated->buf;
		rawlen = inflated->len;
	}
	sec = raw;
	seclen = rawlen;
	if (codec != COMPRESS_NONE) {
		if ((rc = compress_deflate(codec, raw, rawlen, deflated)) !=
		    COMPRESS_OK)
			return rc;
		sec = deflated->buf;
		seclen = deflated->len;
	}
	total = BATCH_HEADER_SIZE + seclen;
	if (total - BATCH_LOG_OVERHEAD > UINT32_MAX / 2 ||
	    out_reserve(out, total) == -1)
		return COMPRESS_ENOMEM;
	h = out->buf + out->len;
	memcpy(h, in, BATCH_HEADER_SIZE);
	memcpy(h + BATCH_HEADER_SIZE, sec, seclen);
	attrs = be16_get(h + BATCH_OFF_ATTRIBUTES);
	be16_put(h + BATCH_OFF_ATTRIBUTES, (uint16_t)((attrs & ~CODEC_MASK) |
	    (uint16_t)codec));
	be32_put(h + BATCH_OFF_LENGTH, (uint32_t)(total - BATCH_LOG_OVERHEAD));
	batch_header_recrc(h, total, crc32c(0, h + BATCH_HEADER_SIZE, seclen));
	out->len += total;
	return COMPRESS_OK;
}
