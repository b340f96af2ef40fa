/*
 * Kafka's compression codecs over zlib, libsnappy, liblz4 (lz4frame) and
 * libzstd; the formats are described in compress.h.
 *
 * Every inflater streams into a compress_buf that grows by doubling, to
 * at most limit + 1 bytes: producing that one extra byte is how a stream
 * that inflates past the limit is told apart from one that ends exactly
 * at it, without ever holding more than the limit.  An input must be
 * consumed exactly: trailing bytes after the end of the stream are
 * corrupt, as a truncated stream is.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "proto/bytes.h"
#include "proto/compress.h"

#define ZBUF_MIN	(64 * 1024)

/* The xerial framing: magic, then version and compat (u32 each). */
static const uint8_t xerial_magic[8] = { 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0 };
#define XERIAL_HEADER	16

void
compress_buf_init(struct compress_buf *z, size_t limit)
{
	memset(z, 0, sizeof(*z));
	z->limit = limit;
}

void
compress_buf_free(struct compress_buf *z)
{
	free(z->buf);
	z->buf = NULL;
	z->len = z->cap = 0;
	ZSTD_freeDCtx(z->zstd);
	z->zstd = NULL;
}

/* Room for want bytes in all; 0 or -1 (ENOMEM). */
static int
zbuf_reserve(struct compress_buf *z, size_t want)
{
	size_t ncap;
	uint8_t *nbuf;

	if (want <= z->cap)
		return 0;
	ncap = z->cap > 0 ? z->cap : ZBUF_MIN;
	while (ncap < want)
		ncap = ncap > SIZE_MAX / 2 ? want : ncap * 2;
	/* Doubling must not take an inflate buffer past limit + 1. */
	if (z->limit > 0 && z->limit < SIZE_MAX && want <= z->limit + 1 &&
	    ncap > z->limit + 1)
		ncap = z->limit + 1;
	if ((nbuf = realloc(z->buf, ncap)) == NULL)
		return -1;
	z->buf = nbuf;
	z->cap = ncap;
	return 0;
}

/*
 * The output is full: grow it, but never past limit + 1.  COMPRESS_OK,
 * COMPRESS_ELIMIT when the output already holds more than the limit, or
 * COMPRESS_ENOMEM.
 */
static int
zbuf_grow(struct compress_buf *z)
{
	size_t hard = z->limit == SIZE_MAX ? SIZE_MAX : z->limit + 1;
	size_t want;

	if (z->len > z->limit || z->cap >= hard)
		return COMPRESS_ELIMIT;
	want = z->cap < ZBUF_MIN ? ZBUF_MIN : z->cap * 2;
	if (want > hard || want < z->cap)
		want = hard;
	if (want > z->cap) {
		uint8_t *nbuf = realloc(z->buf, want);

		if (nbuf == NULL)
			return COMPRESS_ENOMEM;
		z->buf = nbuf;
		z->cap = want;
	}
	return COMPRESS_OK;
}

/* zlib counts in uInt: a larger window is offered in pieces. */
static inline uInt
zlib_avail(size_t n)
{
	return n > UINT_MAX ? UINT_MAX : (uInt)n;
}

static int
gzip_inflate(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	z_stream s;
	int rc, ret;

	memset(&s, 0, sizeof(s));
	/* 16 + MAX_WBITS: a gzip wrapper only, as Kafka specifies. */
	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)
		return COMPRESS_ENOMEM;
	s.next_in = (Bytef *)(uintptr_t)in;
	for (;;) {
		if (z->len == z->cap && (ret = zbuf_grow(z)) != COMPRESS_OK)
			goto out;
		s.next_out = z->buf + z->len;
		s.avail_out = zlib_avail(z->cap - z->len);
		s.avail_in = zlib_avail(inlen - (size_t)(s.next_in - in));
		rc = inflate(&s, Z_NO_FLUSH);
		z->len = (size_t)(s.next_out - z->buf);
		if (rc == Z_STREAM_END)
			break;
		if (rc == Z_BUF_ERROR && s.avail_out == 0)
			continue;	/* only room was missing */
		if (rc != Z_OK || (s.avail_in == 0 && s.avail_out > 0 &&
		    (size_t)(s.next_in - in) == inlen)) {
			/* garbage, or the input ended inside the stream */
			ret = rc == Z_MEM_ERROR ? COMPRESS_ENOMEM : COMPRESS_ECORRUPT;
			goto out;
		}
	}
	ret = (size_t)(s.next_in - in) == inlen ? COMPRESS_OK : COMPRESS_ECORRUPT;
	if (ret == COMPRESS_OK && z->len > z->limit)
		ret = COMPRESS_ELIMIT;
out:
	inflateEnd(&s);
	return ret;
}

/* One raw snappy block, appended to z. */
static int
snappy_block(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	size_t ulen;

	if (snappy_uncompressed_length((const char *)in, inlen, &ulen) !=
	    SNAPPY_OK)
		return COMPRESS_ECORRUPT;
	/* Snappy says its size up front: refuse before allocating it. */
	if (ulen > z->limit - z->len)
		return COMPRESS_ELIMIT;
	if (zbuf_reserve(z, z->len + ulen) == -1)
		return COMPRESS_ENOMEM;
	if (snappy_uncompress((const char *)in, inlen,
	    (char *)z->buf + z->len, &ulen) != SNAPPY_OK)
		return COMPRESS_ECORRUPT;
	z->len += ulen;
	return COMPRESS_OK;
}

static int
snappy_inflate(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	size_t off, blen;
	int rc;

	if (inlen < XERIAL_HEADER || memcmp(in, xerial_magic,
	    sizeof(xerial_magic)) != 0)
		return snappy_block(in, inlen, z);
	/* xerial: [len u32][block] chunks to the end; version is not checked. */
	for (off = XERIAL_HEADER; off < inlen; off += blen) {
		if (inlen - off < 4)
			return COMPRESS_ECORRUPT;
		blen = be32_get(in + off);
		off += 4;
		if (blen > inlen - off)
			return COMPRESS_ECORRUPT;
		if ((rc = snappy_block(in + off, blen, z)) != COMPRESS_OK)
			return rc;
	}
	return COMPRESS_OK;
}

static int
lz4_inflate(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	LZ4F_decompressionContext_t ctx;
	size_t pos = 0, dlen, slen, hint;
	int ret;

	if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION)))
		return COMPRESS_ENOMEM;
	for (;;) {
		if (z->len == z->cap && (ret = zbuf_grow(z)) != COMPRESS_OK)
			goto out;
		dlen = z->cap - z->len;
		slen = inlen - pos;
		hint = LZ4F_decompress(ctx, z->buf + z->len, &dlen, in + pos,
		    &slen, NULL);
		if (LZ4F_isError(hint)) {
			ret = COMPRESS_ECORRUPT;
			goto out;
		}
		pos += slen;
		z->len += dlen;
		if (hint == 0)
			break;		/* the frame is complete */
		/* Wants more input, has none, and the output was not the limit. */
		if (pos == inlen && z->len < z->cap) {
			ret = COMPRESS_ECORRUPT;
			goto out;
		}
	}
	if (pos != inlen)
		ret = COMPRESS_ECORRUPT;
	else
		ret = z->len > z->limit ? COMPRESS_ELIMIT : COMPRESS_OK;
out:
	LZ4F_freeDecompressionContext(ctx);
	return ret;
}

/*
 * The window a zstd frame may ask for: enough for any output under the
 * limit, at least 8 MiB (what high compression levels use when the size
 * is not known), never more than libzstd's default ceiling of 128 MiB.
 * A frame wanting more is refused by the decoder before it allocates.
 */
static int
zstd_window_log(size_t limit)
{
	int wlog = 23;

	while (wlog < 27 && ((size_t)1 << wlog) < limit)
		wlog++;
	return wlog;
}

static int
zstd_inflate(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	unsigned long long declared;
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob;
	ZSTD_DCtx *ctx;
	size_t hint;
	int ret;

	/* A frame that says how large it is can be refused at once. */
	declared = ZSTD_getFrameContentSize(in, inlen);
	if (declared == ZSTD_CONTENTSIZE_ERROR)
		return COMPRESS_ECORRUPT;
	if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > z->limit)
		return COMPRESS_ELIMIT;
	if (z->zstd == NULL && (z->zstd = ZSTD_createDCtx()) == NULL)
		return COMPRESS_ENOMEM;
	ctx = z->zstd;
	/* A failed frame may have left the context mid-stream. */
	if (ZSTD_isError(ZSTD_DCtx_reset(ctx, ZSTD_reset_session_only)) ||
	    ZSTD_isError(ZSTD_DCtx_setParameter(ctx, ZSTD_d_windowLogMax,
	    zstd_window_log(z->limit))))
		return COMPRESS_ENOMEM;
	ib.src = in;
	ib.size = inlen;
	ib.pos = 0;
	for (;;) {
		if (z->len == z->cap && (ret = zbuf_grow(z)) != COMPRESS_OK)
			goto out;
		ob.dst = z->buf;
		ob.size = z->cap;
		ob.pos = z->len;
		hint = ZSTD_decompressStream(ctx, &ob, &ib);
		z->len = ob.pos;
		if (ZSTD_isError(hint)) {
			ret = ZSTD_getErrorCode(hint) ==
			    ZSTD_error_frameParameter_windowTooLarge ?
			    COMPRESS_ELIMIT : COMPRESS_ECORRUPT;
			goto out;
		}
		if (hint == 0)
			break;		/* frame decoded and flushed */
		if (ib.pos == ib.size && ob.pos < ob.size) {
			ret = COMPRESS_ECORRUPT;	/* input ended mid-frame */
			goto out;
		}
	}
	if (ib.pos != ib.size)
		ret = COMPRESS_ECORRUPT;
	else
		ret = z->len > z->limit ? COMPRESS_ELIMIT : COMPRESS_OK;
out:
	return ret;
}

int
compress_inflate(int codec, const uint8_t *in, size_t inlen,
    struct compress_buf *z)
{
	int rc;

	z->len = 0;
	switch (codec) {
	case COMPRESS_GZIP:
		rc = gzip_inflate(in, inlen, z);
		break;
	case COMPRESS_SNAPPY:
		rc = snappy_inflate(in, inlen, z);
		break;
	case COMPRESS_LZ4:
		rc = lz4_inflate(in, inlen, z);
		break;
	case COMPRESS_ZSTD:
		rc = zstd_inflate(in, inlen, z);
		break;
	default:
		rc = COMPRESS_ECODEC;
		break;
	}
	if (rc != COMPRESS_OK)
		z->len = 0;
	return rc;
}

static int
gzip_deflate(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	z_stream s;
	int rc;

	if (inlen > UINT_MAX)
		return COMPRESS_ENOMEM;
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS,
	    8, Z_DEFAULT_STRATEGY) != Z_OK)
		return COMPRESS_ENOMEM;
	if (zbuf_reserve(z, deflateBound(&s, (uLong)inlen)) == -1) {
		deflateEnd(&s);
		return COMPRESS_ENOMEM;
	}
	s.next_in = (Bytef *)(uintptr_t)in;
	s.avail_in = (uInt)inlen;
	s.next_out = z->buf;
	s.avail_out = zlib_avail(z->cap);
	rc = deflate(&s, Z_FINISH);
	z->len = (size_t)(s.next_out - z->buf);
	deflateEnd(&s);
	return rc == Z_STREAM_END ? COMPRESS_OK : COMPRESS_ENOMEM;
}

static int
snappy_deflate(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	size_t n = snappy_max_compressed_length(inlen);

	if (zbuf_reserve(z, n) == -1)
		return COMPRESS_ENOMEM;
	if (snappy_compress((const char *)in, inlen, (char *)z->buf, &n) !=
	    SNAPPY_OK)
		return COMPRESS_ENOMEM;
	z->len = n;
	return COMPRESS_OK;
}

static int
lz4_deflate(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	LZ4F_preferences_t prefs;
	size_t n;

	/*
	 * Independent blocks: Kafka's Java reader decodes each block on its
	 * own and refuses linked ones.
	 */
	memset(&prefs, 0, sizeof(prefs));
	prefs.frameInfo.blockMode = LZ4F_blockIndependent;
	n = LZ4F_compressFrameBound(inlen, &prefs);
	if (zbuf_reserve(z, n) == -1)
		return COMPRESS_ENOMEM;
	n = LZ4F_compressFrame(z->buf, z->cap, in, inlen, &prefs);
	if (LZ4F_isError(n))
		return COMPRESS_ENOMEM;
	z->len = n;
	return COMPRESS_OK;
}

static int
zstd_deflate(const uint8_t *in, size_t inlen, struct compress_buf *z)
{
	size_t n = ZSTD_compressBound(inlen);

	if (zbuf_reserve(z, n) == -1)
		return COMPRESS_ENOMEM;
	n = ZSTD_compress(z->buf, z->cap, in, inlen, ZSTD_CLEVEL_DEFAULT);
	if (ZSTD_isError(n))
		return COMPRESS_ENOMEM;
	z->len = n;
	return COMPRESS_OK;
}

int
compress_deflate(int codec, const uint8_t *in, size_t inlen,
    struct compress_buf *z)
{
	int rc;

	z->len = 0;
	switch (codec) {
	case COMPRESS_GZIP:
		rc = gzip_deflate(in, inlen, z);
		break;
	case COMPRESS_SNAPPY:
		rc = snappy_deflate(in, inlen, z);
		break;
	case COMPRESS_LZ4:
		rc = lz4_deflate(in, inlen, z);
		break;
	case COMPRESS_ZSTD:
		rc = zstd_deflate(in, inlen, z);
		break;
	default:
		rc = COMPRESS_ECODEC;
		break;
	}
	if (rc != COMPRESS_OK)
		z->len = 0;
	return rc;
}

static const char *const codec_names[COMPRESS_NCODECS] = {
	"none", "gzip", "snappy", "lz4", "zstd",
};

const char *
compress_name(int codec)
{
	if (codec < 0 || codec >= COMPRESS_NCODECS)
		return NULL;
	return codec_names[codec];
}

int
compress_by_name(const char *name)
{
	int i;

	for (i = 0; i < COMPRESS_NCODECS; i++)
		if (strcmp(name, codec_names[i]) == 0)
			return i;
	return -1;
}

const char *
compress_strerror(int err)
{
	switch (err) {
	case COMPRESS_OK:
		return "no error";
	case COMPRESS_ECORRUPT:
		return "compressed data corrupt or truncated";
	case COMPRESS_ELIMIT:
		return "inflates past the limit";
	case COMPRESS_ECODEC:
		return "unknown compression codec";
	case COMPRESS_ENOMEM:
		return "out of memory";
	default:
		return "unknown compression error";
	}
}
