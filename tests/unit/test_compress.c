/*
 * proto/compress: every codec inflates what it deflates, raw and xerial
 * snappy are both read, truncated or garbage input is refused, and the
 * output limit is a hard bound (a bomb costs at most the limit, a zstd
 * frame that declares its size costs nothing).  Then the batch layer:
 * compressed batches validate and iterate exactly, and each way a
 * compressed batch can be wrong has its error.
 */
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>
#include <zstd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/crc32c.h"
#include "tests/harness.h"

static const int codecs[] = {
	COMPRESS_GZIP, COMPRESS_SNAPPY, COMPRESS_LZ4, COMPRESS_ZSTD,
};
#define NCODECS	((int)(sizeof(codecs) / sizeof(codecs[0])))

/* Compressible but not trivial: words with a counter, then noise. */
static uint8_t *
sample(size_t len)
{
	uint8_t *p = malloc(len);
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)("flume record "[i % 13] + (i / 4096) % 7);
	if (len > 64)
		test_fill_random(p + len / 2, len / 16);
	return p;
}

static void
test_round_trip(void)
{
	static const size_t sizes[] = { 1, 100, 65536, 65537, 300000 };
	struct compress_buf c, d;
	uint8_t *in;
	size_t s;
	int i;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		in = sample(sizes[s]);
		for (i = 0; i < NCODECS; i++) {
			compress_buf_init(&c, 0);
			compress_buf_init(&d, sizes[s]);
			CU_ASSERT_EQUAL_FATAL(compress_deflate(codecs[i], in,
			    sizes[s], &c), COMPRESS_OK);
			CU_ASSERT(c.len > 0);
			CU_ASSERT_EQUAL_FATAL(compress_inflate(codecs[i],
			    c.buf, c.len, &d), COMPRESS_OK);
			CU_ASSERT_EQUAL_FATAL(d.len, sizes[s]);
			CU_ASSERT_EQUAL(memcmp(d.buf, in, sizes[s]), 0);
			/* The buffer never holds more than the limit + 1. */
			CU_ASSERT(d.cap <= sizes[s] + 1);
			/* Exactly at the limit is fine; one byte less is not. */
			d.limit = sizes[s] - 1;
			CU_ASSERT_EQUAL(compress_inflate(codecs[i], c.buf,
			    c.len, &d), COMPRESS_ELIMIT);
			CU_ASSERT_EQUAL(d.len, 0);
			compress_buf_free(&c);
			compress_buf_free(&d);
		}
		free(in);
	}
}

/* gzip.compress(b"hello, flume", mtime=0) from Python's gzip module. */
static const uint8_t gzip_hello[] = {
	0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48,
	0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0x48, 0xcb, 0x29, 0xcd, 0x4d, 0x05, 0x00,
	0xb4, 0x74, 0xcd, 0xdb, 0x0c, 0x00, 0x00, 0x00,
};

static void
test_gzip_foreign(void)
{
	struct compress_buf d;
	uint8_t junk[sizeof(gzip_hello) + 1];

	compress_buf_init(&d, 1024);
	CU_ASSERT_EQUAL_FATAL(compress_inflate(COMPRESS_GZIP, gzip_hello,
	    sizeof(gzip_hello), &d), COMPRESS_OK);
	CU_ASSERT_EQUAL(d.len, 12);
	CU_ASSERT_EQUAL(memcmp(d.buf, "hello, flume", 12), 0);
	/* A CRC-32 trailer that does not match. */
	memcpy(junk, gzip_hello, sizeof(gzip_hello));
	junk[sizeof(gzip_hello) - 6] ^= 1;
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_GZIP, junk,
	    sizeof(gzip_hello), &d), COMPRESS_ECORRUPT);
	/* A zlib stream is not a gzip stream. */
	junk[0] = 0x78;
	junk[1] = 0x9c;
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_GZIP, junk,
	    sizeof(gzip_hello), &d), COMPRESS_ECORRUPT);
	compress_buf_free(&d);
}

/* Append one xerial chunk: [len u32][raw snappy of p[0..n)]. */
static size_t
xerial_chunk(uint8_t *out, const uint8_t *p, size_t n)
{
	size_t clen = snappy_max_compressed_length(n);

	CU_ASSERT_EQUAL_FATAL(snappy_compress((const char *)p, n,
	    (char *)out + 4, &clen), SNAPPY_OK);
	be32_put(out, (uint32_t)clen);
	return 4 + clen;
}

static void
test_snappy_raw_and_xerial(void)
{
	static const uint8_t magic[16] = { 0x82, 'S', 'N', 'A', 'P', 'P', 'Y',
	    0, 0, 0, 0, 1, 0, 0, 0, 1 };
	struct compress_buf d;
	size_t n = 100000, half = 40000, xlen, first, clen;
	uint8_t *in = sample(n), *x, *raw;

	compress_buf_init(&d, n);
	/* Raw: one snappy block, as librdkafka writes it. */
	clen = snappy_max_compressed_length(n);
	raw = malloc(clen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(raw);
	CU_ASSERT_EQUAL_FATAL(snappy_compress((const char *)in, n,
	    (char *)raw, &clen), SNAPPY_OK);
	CU_ASSERT_EQUAL_FATAL(compress_inflate(COMPRESS_SNAPPY, raw, clen, &d),
	    COMPRESS_OK);
	CU_ASSERT_EQUAL(d.len, n);
	CU_ASSERT_EQUAL(memcmp(d.buf, in, n), 0);
	/* Raw, truncated. */
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_SNAPPY, raw, clen - 1, &d),
	    COMPRESS_ECORRUPT);

	/* xerial: header, then two chunks, as the Java client writes. */
	x = malloc(16 + 2 * (4 + snappy_max_compressed_length(n)));
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	memcpy(x, magic, 16);
	first = xerial_chunk(x + 16, in, half);
	xlen = 16 + first + xerial_chunk(x + 16 + first, in + half, n - half);
	CU_ASSERT_EQUAL_FATAL(compress_inflate(COMPRESS_SNAPPY, x, xlen, &d),
	    COMPRESS_OK);
	CU_ASSERT_EQUAL(d.len, n);
	CU_ASSERT_EQUAL(memcmp(d.buf, in, n), 0);
	/* Cut inside the second chunk, and inside a chunk length. */
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_SNAPPY, x, xlen - 1, &d),
	    COMPRESS_ECORRUPT);
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_SNAPPY, x, 16 + first + 2,
	    &d), COMPRESS_ECORRUPT);
	/* A chunk length past the end. */
	be32_put(x + 16 + first, (uint32_t)(xlen));
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_SNAPPY, x, xlen, &d),
	    COMPRESS_ECORRUPT);
	/* The limit applies across chunks: refused at the second. */
	xerial_chunk(x + 16 + first, in + half, n - half);
	d.limit = n - 1;
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_SNAPPY, x, xlen, &d),
	    COMPRESS_ELIMIT);
	free(x);
	free(raw);
	free(in);
	compress_buf_free(&d);
}

/* Every prefix is refused, and so is one trailing byte. */
static void
test_truncated_and_trailing(void)
{
	struct compress_buf c, d;
	size_t n = 5000, cut;
	uint8_t *in = sample(n), *tail;
	int i;

	for (i = 0; i < NCODECS; i++) {
		compress_buf_init(&c, 0);
		compress_buf_init(&d, n);
		CU_ASSERT_EQUAL_FATAL(compress_deflate(codecs[i], in, n, &c),
		    COMPRESS_OK);
		for (cut = 0; cut < c.len; cut++) {
			int rc = compress_inflate(codecs[i], c.buf, cut, &d);

			CU_ASSERT_EQUAL(rc, COMPRESS_ECORRUPT);
			if (rc != COMPRESS_ECORRUPT) {
				fprintf(stderr, "%s cut %zu of %zu: %d\n",
				    compress_name(codecs[i]), cut, c.len, rc);
				break;
			}
		}
		tail = malloc(c.len + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tail);
		memcpy(tail, c.buf, c.len);
		tail[c.len] = 0;
		CU_ASSERT_EQUAL(compress_inflate(codecs[i], tail, c.len + 1,
		    &d), COMPRESS_ECORRUPT);
		free(tail);
		compress_buf_free(&c);
		compress_buf_free(&d);
	}
	free(in);
}

static void
test_garbage(void)
{
	struct compress_buf d;
	uint8_t junk[4096];
	int i, round;

	compress_buf_init(&d, 1 << 20);
	for (round = 0; round < 50; round++) {
		test_fill_random(junk, sizeof(junk));
		for (i = 0; i < NCODECS; i++)
			CU_ASSERT_NOT_EQUAL(compress_inflate(codecs[i], junk,
			    sizeof(junk), &d), COMPRESS_OK);
	}
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_NONE, junk, 10, &d),
	    COMPRESS_ECODEC);
	CU_ASSERT_EQUAL(compress_inflate(5, junk, 10, &d), COMPRESS_ECODEC);
	CU_ASSERT_EQUAL(compress_deflate(7, junk, 10, &d), COMPRESS_ECODEC);
	compress_buf_free(&d);
}

/*
 * A zstd bomb: 64 MiB of zeros streamed without a declared size
 * inflates into at most limit + 1 bytes before it is refused; with the
 * size declared it is refused before any buffer is allocated.
 */
static void
test_bomb(void)
{
	const size_t big = (size_t)64 << 20, limit = 1 << 20;
	struct compress_buf d, c;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob;
	uint8_t *zeros, *out;
	size_t fed, outcap = 1 << 20, rest;
	int i, rounds = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cc);
	zeros = calloc(1, 1 << 20);
	out = malloc(outcap);
	CU_ASSERT_FATAL(zeros != NULL && out != NULL);
	ob.dst = out;
	ob.size = outcap;
	ob.pos = 0;
	for (fed = 0; fed < big; fed += 1 << 20) {
		ib.src = zeros;
		ib.size = 1 << 20;
		ib.pos = 0;
		CU_ASSERT_FATAL(!ZSTD_isError(ZSTD_compressStream2(cc, &ob,
		    &ib, ZSTD_e_continue)));
		CU_ASSERT_EQUAL_FATAL(ib.pos, ib.size);
	}
	ib.size = ib.pos = 0;
	do {
		rest = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
		CU_ASSERT_FATAL(!ZSTD_isError(rest));
	} while (rest != 0 && ++rounds < 100);
	CU_ASSERT_EQUAL_FATAL(rest, 0);
	CU_ASSERT(ob.pos < 64 * 1024);		/* tiny */
	CU_ASSERT_EQUAL(ZSTD_getFrameContentSize(out, ob.pos),
	    ZSTD_CONTENTSIZE_UNKNOWN);

	compress_buf_init(&d, limit);
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_ZSTD, out, ob.pos, &d),
	    COMPRESS_ELIMIT);
	CU_ASSERT(d.cap <= limit + 1);
	compress_buf_free(&d);

	/* Declared: 1 MiB + 1 of zeros, refused on the frame header alone. */
	compress_buf_init(&c, 0);
	CU_ASSERT_EQUAL_FATAL(compress_deflate(COMPRESS_ZSTD, zeros, 1 << 20,
	    &c), COMPRESS_OK);
	compress_buf_init(&d, (1 << 20) - 1);
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_ZSTD, c.buf, c.len, &d),
	    COMPRESS_ELIMIT);
	CU_ASSERT_EQUAL(d.cap, 0);
	compress_buf_free(&c);
	compress_buf_free(&d);

	/* The other streaming codecs stop at the limit too. */
	for (i = 0; i < NCODECS; i++) {
		compress_buf_init(&c, 0);
		compress_buf_init(&d, 4096);
		CU_ASSERT_EQUAL_FATAL(compress_deflate(codecs[i], zeros,
		    1 << 20, &c), COMPRESS_OK);
		CU_ASSERT_EQUAL(compress_inflate(codecs[i], c.buf, c.len, &d),
		    COMPRESS_ELIMIT);
		CU_ASSERT(d.cap <= 4097);
		compress_buf_free(&c);
		compress_buf_free(&d);
	}
	ZSTD_freeCCtx(cc);
	free(zeros);
	free(out);
}

static void
test_names(void)
{
	CU_ASSERT_EQUAL(compress_by_name("none"), COMPRESS_NONE);
	CU_ASSERT_EQUAL(compress_by_name("gzip"), COMPRESS_GZIP);
	CU_ASSERT_EQUAL(compress_by_name("snappy"), COMPRESS_SNAPPY);
	CU_ASSERT_EQUAL(compress_by_name("lz4"), COMPRESS_LZ4);
	CU_ASSERT_EQUAL(compress_by_name("zstd"), COMPRESS_ZSTD);
	CU_ASSERT_EQUAL(compress_by_name("brotli"), -1);
	CU_ASSERT_EQUAL(compress_by_name(""), -1);
	CU_ASSERT_STRING_EQUAL(compress_name(COMPRESS_LZ4), "lz4");
	CU_ASSERT_PTR_NULL(compress_name(5));
	CU_ASSERT_PTR_NULL(compress_name(-1));
}

/* ---- compressed batches ---- */

#define NREC	50

/* Build a batch of NREC records compressed with codec. */
static void
build(struct batch_builder *b, int codec, const uint8_t **out, size_t *len)
{
	char key[16], val[64];
	int i, kl, vl;

	batch_builder_init(b);
	for (i = 0; i < NREC; i++) {
		kl = snprintf(key, sizeof(key), "k%d", i);
		vl = snprintf(val, sizeof(val), "value number %d of the batch", i);
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, 1700000000000LL + i,
		    key, i == 7 ? -1 : kl, val, i == 9 ? -1 : vl, NULL, 0), 0);
	}
	CU_ASSERT_EQUAL_FATAL(batch_builder_close_codec(b, codec, out, len), 0);
}

/* Re-CRC a batch after a test edited it. */
static void
recrc(uint8_t *p, size_t len)
{
	be32_put(p + BATCH_OFF_CRC, crc32c(0, p + BATCH_CRC_START,
	    len - BATCH_CRC_START));
}

static void
test_batch_codecs(void)
{
	struct batch_builder b, plain;
	struct compress_buf z;
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	const uint8_t *out, *pout;
	size_t len, plen;
	char want[64];
	int i, n, rc;

	build(&plain, COMPRESS_NONE, &pout, &plen);
	for (i = 0; i < NCODECS; i++) {
		build(&b, codecs[i], &out, &len);
		CU_ASSERT(len < plen);		/* it did compress */
		CU_ASSERT_EQUAL(be16_get(out + BATCH_OFF_ATTRIBUTES),
		    codecs[i]);
		compress_buf_init(&z, 1 << 20);
		CU_ASSERT_EQUAL(batch_validate(out, len, NULL),
		    BATCH_ECOMPRESSION);
		CU_ASSERT_EQUAL_FATAL(batch_validate_z(out, len, &h, &z),
		    BATCH_OK);
		CU_ASSERT_EQUAL(h.records_count, NREC);
		/* The inflated records are the plain batch's, byte for byte. */
		CU_ASSERT_EQUAL_FATAL(z.len, plen - BATCH_HEADER_SIZE);
		CU_ASSERT_EQUAL(memcmp(z.buf, pout + BATCH_HEADER_SIZE, z.len),
		    0);
		CU_ASSERT_EQUAL(batch_iter_init(&it, out, len),
		    BATCH_ECOMPRESSION);
		CU_ASSERT_EQUAL_FATAL(batch_iter_init_z(&it, out, len, &z),
		    BATCH_OK);
		for (n = 0; (rc = batch_iter_next(&it, &r)) == 1; n++) {
			CU_ASSERT_EQUAL(r.offset, n);
			CU_ASSERT_EQUAL(r.timestamp, 1700000000000LL + n);
			snprintf(want, sizeof(want), "value number %d of the "
			    "batch", n);
			if (n == 9) {
				CU_ASSERT_EQUAL(r.value_len, -1);
			} else {
				CU_ASSERT_EQUAL(r.value_len, (int)strlen(want));
				CU_ASSERT_EQUAL(memcmp(r.value, want,
				    strlen(want)), 0);
			}
			CU_ASSERT_EQUAL(r.key_len, n == 7 ? -1 :
			    snprintf(want, sizeof(want), "k%d", n));
		}
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(n, NREC);
		/* Too small a limit: refused, whatever the codec. */
		z.limit = plen - BATCH_HEADER_SIZE - 1;
		CU_ASSERT_EQUAL(batch_validate_z(out, len, NULL, &z),
		    BATCH_ETOOBIG);
		compress_buf_free(&z);
		batch_builder_free(&b);
	}
	batch_builder_free(&plain);
}

static void
test_batch_errors(void)
{
	struct batch_builder b;
	struct compress_buf z;
	const uint8_t *out;
	uint8_t *p;
	size_t len;
	int i;

	compress_buf_init(&z, 1 << 20);
	for (i = 0; i < NCODECS; i++) {
		build(&b, codecs[i], &out, &len);
		p = malloc(len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);

		/* The CRC covers the compressed bytes. */
		memcpy(p, out, len);
		p[len - 3] ^= 0x40;
		CU_ASSERT_EQUAL(batch_validate_z(p, len, NULL, &z), BATCH_ECRC);
		/* Garbled compressed data with a right CRC: the codec's
		 * first byte (magic, or snappy's length varint). */
		memcpy(p, out, len);
		p[BATCH_HEADER_SIZE] ^= 0xff;
		recrc(p, len);
		CU_ASSERT_EQUAL(batch_validate_z(p, len, NULL, &z),
		    BATCH_EINFLATE);
		/* Compressed data cut short (batchLength and CRC to match). */
		memcpy(p, out, len);
		be32_put(p + BATCH_OFF_LENGTH, (uint32_t)(len - 1 - 12));
		recrc(p, len - 1);
		CU_ASSERT_EQUAL(batch_validate_z(p, len - 1, NULL, &z),
		    BATCH_EINFLATE);
		/* recordsCount one too high, one too low, zero. */
		memcpy(p, out, len);
		be32_put(p + BATCH_OFF_COUNT, NREC + 1);
		recrc(p, len);
		CU_ASSERT_EQUAL(batch_validate_z(p, len, NULL, &z), BATCH_ECOUNT);
		be32_put(p + BATCH_OFF_COUNT, NREC - 1);
		recrc(p, len);
		CU_ASSERT_EQUAL(batch_validate_z(p, len, NULL, &z), BATCH_ECOUNT);
		be32_put(p + BATCH_OFF_COUNT, 0);
		recrc(p, len);
		CU_ASSERT_EQUAL(batch_validate_z(p, len, NULL, &z), BATCH_ECOUNT);
		/* lastOffsetDelta wrong. */
		memcpy(p, out, len);
		be32_put(p + BATCH_OFF_LAST_DELTA, NREC);
		recrc(p, len);
		CU_ASSERT_EQUAL(batch_validate_z(p, len, NULL, &z), BATCH_EDELTA);
		/* The attributes name another codec: its data is garbage. */
		memcpy(p, out, len);
		be16_put(p + BATCH_OFF_ATTRIBUTES,
		    (uint16_t)(codecs[(i + 1) % NCODECS]));
		recrc(p, len);
		CU_ASSERT_EQUAL(batch_validate_z(p, len, NULL, &z),
		    BATCH_EINFLATE);
		/* Reserved codecs 5..7. */
		be16_put(p + BATCH_OFF_ATTRIBUTES, 5);
		recrc(p, len);
		CU_ASSERT_EQUAL(batch_validate_z(p, len, NULL, &z),
		    BATCH_ECOMPRESSION);
		free(p);
		batch_builder_free(&b);
	}
	/* Unknown codec on the producer side. */
	batch_builder_init(&b);
	CU_ASSERT_EQUAL(batch_builder_add(&b, 1, "k", 1, "v", 1, NULL, 0), 0);
	CU_ASSERT_EQUAL(batch_builder_close_codec(&b, 6, &out, &len), -1);
	batch_builder_free(&b);
	compress_buf_free(&z);
}

TEST_SUITE("compress", NULL, NULL,
    { "every codec round trip and exact limit", test_round_trip },
    { "gzip stream from another encoder", test_gzip_foreign },
    { "snappy raw and xerial framing", test_snappy_raw_and_xerial },
    { "truncated and trailing bytes refused", test_truncated_and_trailing },
    { "garbage and unknown codecs refused", test_garbage },
    { "bombs stop at the limit", test_bomb },
    { "codec names", test_names },
    { "compressed batches validate and iterate", test_batch_codecs },
    { "compressed batch errors", test_batch_errors });
