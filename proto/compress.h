/*
 * Kafka's record compression codecs, over Debian's libraries: the records
 * section of a RecordBatch v2 (everything after the 61-byte header) is one
 * compressed stream when attributes bits 0-2 name a codec.
 *
 *   1 gzip    a gzip stream (zlib)
 *   2 snappy  raw snappy, or the xerial framing the Java client and
 *             kafka-python write (magic 82 'SNAPPY' 00, version, compat,
 *             then [length u32][raw snappy block] chunks); both are read,
 *             raw snappy is written
 *   3 lz4     the LZ4 frame format (lz4frame)
 *   4 zstd    a zstd frame
 *
 * Inflating is bounded: the output goes into a compress_buf that grows as
 * output appears, never past its limit, so a small input that would
 * inflate to gigabytes costs at most the limit and is refused.  Pure: no
 * logging, no globals.
 */
#ifndef FLUME_PROTO_COMPRESS_H
#define FLUME_PROTO_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

enum compress_codec {
	COMPRESS_NONE = 0,
	COMPRESS_GZIP = 1,
	COMPRESS_SNAPPY = 2,
	COMPRESS_LZ4 = 3,
	COMPRESS_ZSTD = 4,
	COMPRESS_NCODECS = 5,
};

/*
 * The most a batch may inflate to anywhere in Flume: the broker's limit is
 * lower (flume.conf(5), max_message_bytes), a client reading batches uses
 * this one.
 */
#define COMPRESS_LIMIT_MAX	((size_t)64 * 1024 * 1024)

enum compress_error {
	COMPRESS_OK = 0,
	COMPRESS_ECORRUPT = -1,	/* truncated, garbage or trailing bytes */
	COMPRESS_ELIMIT = -2,	/* the output would pass the buffer's limit */
	COMPRESS_ECODEC = -3,	/* not a codec this build knows */
	COMPRESS_ENOMEM = -4,
};

/*
 * Output buffer, reused across calls: buf keeps its allocation (cap) so a
 * worker that inflates many batches allocates once.  limit is the hard
 * bound on len; set it before use (0 means nothing may be inflated).
 * The zstd decoder's context is kept too: its window is reused, not
 * allocated per batch.
 */
struct compress_buf {
	uint8_t		*buf;
	size_t		 len, cap;
	size_t		 limit;
	void		*zstd;		/* decoder context, kept for reuse */
};

void	compress_buf_init(struct compress_buf *z, size_t limit);
void	compress_buf_free(struct compress_buf *z);

/*
 * Inflate in[0..inlen), compressed with codec, into z (replacing what it
 * held).  COMPRESS_OK with z->len set, or a negative compress_error; on
 * error z->len is 0.
 */
int	compress_inflate(int codec, const uint8_t *in, size_t inlen,
	    struct compress_buf *z);

/*
 * Compress in[0..inlen) with codec into z (replacing what it held; the
 * limit does not apply).  COMPRESS_OK or a negative compress_error.
 */
int	compress_deflate(int codec, const uint8_t *in, size_t inlen,
	    struct compress_buf *z);

/* "gzip", "snappy", "lz4", "zstd", "none"; NULL for an unknown codec. */
const char *compress_name(int codec);
/* The codec a name means, or -1. */
int	compress_by_name(const char *name);
const char *compress_strerror(int err);

#endif
