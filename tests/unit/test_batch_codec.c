/*
 * A batch's codec changed by the broker (proto/batch_codec.h): every
 * codec to every other, the records, timestamps, producer fields and
 * counts kept, the CRC valid; a corrupt compressed section refused with
 * nothing appended.
 */
#include <stdio.h>
#include <string.h>

#include "proto/batch.h"
#include "proto/batch_codec.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "tests/harness.h"

#define NREC	50

/* A batch of NREC records in codec, producer 77 epoch 3 sequence 9. */
static void
build(struct batch_builder *b, int codec, const uint8_t **out, size_t *len)
{
	char v[64];
	int i;

	batch_builder_init(b);
	batch_builder_set_producer(b, 77, 3, 9);
	for (i = 0; i < NREC; i++) {
		snprintf(v, sizeof(v), "value %d value %d value", i, i);
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, 1000 + i, "k", 1, v,
		    (int32_t)strlen(v), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL_FATAL(batch_builder_close_codec(b, codec, out, len), 0);
}

/* p is a valid batch in codec with build()'s records and fields. */
static void
check(const uint8_t *p, size_t len, int codec, struct compress_buf *z)
{
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	char v[64];
	int i;

	CU_ASSERT_EQUAL_FATAL(batch_validate_z(p, len, &h, z), BATCH_OK);
	CU_ASSERT_EQUAL(batch_codec(p), codec);
	CU_ASSERT_EQUAL(h.records_count, NREC);
	CU_ASSERT_EQUAL(h.producer_id, 77);
	CU_ASSERT_EQUAL(h.producer_epoch, 3);
	CU_ASSERT_EQUAL(h.base_sequence, 9);
	CU_ASSERT_EQUAL(h.first_timestamp, 1000);
	CU_ASSERT_EQUAL(h.max_timestamp, 1000 + NREC - 1);
	CU_ASSERT_EQUAL(h.last_offset_delta, NREC - 1);
	CU_ASSERT_EQUAL_FATAL(batch_iter_init_z(&it, p, len, z), 0);
	for (i = 0; i < NREC; i++) {
		CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
		snprintf(v, sizeof(v), "value %d value %d value", i, i);
		CU_ASSERT_EQUAL(r.timestamp, 1000 + i);
		CU_ASSERT_EQUAL(r.value_len, (int32_t)strlen(v));
		CU_ASSERT_EQUAL(memcmp(r.value, v, strlen(v)), 0);
	}
	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 0);
}

static void
test_every_codec_to_every_codec(void)
{
	struct compress_buf inflated, deflated, out, z;
	struct batch_builder b;
	const uint8_t *in;
	size_t len;
	int from, to;

	compress_buf_init(&inflated, 1 << 20);
	compress_buf_init(&deflated, 0);
	compress_buf_init(&out, 0);
	compress_buf_init(&z, 1 << 20);
	for (from = COMPRESS_NONE; from < COMPRESS_NCODECS; from++) {
		build(&b, from, &in, &len);
		for (to = COMPRESS_NONE; to < COMPRESS_NCODECS; to++) {
			out.len = 0;
			CU_ASSERT_EQUAL_FATAL(batch_recompress(in, len, to,
			    &inflated, &deflated, &out), COMPRESS_OK);
			check(out.buf, out.len, to, &z);
		}
		/* Two batches, one kept as it is, one changed, one after another. */
		out.len = 0;
		CU_ASSERT_EQUAL(batch_recompress_keep(in, len, &out), COMPRESS_OK);
		CU_ASSERT_EQUAL(batch_recompress(in, len, COMPRESS_ZSTD, &inflated,
		    &deflated, &out), COMPRESS_OK);
		check(out.buf, len, from, &z);
		check(out.buf + len, out.len - len, COMPRESS_ZSTD, &z);
		batch_builder_free(&b);
	}
	compress_buf_free(&inflated);
	compress_buf_free(&deflated);
	compress_buf_free(&out);
	compress_buf_free(&z);
}

/* Corrupt or over the limit: refused, nothing appended. */
static void
test_refused(void)
{
	struct compress_buf inflated, deflated, out;
	struct batch_builder b;
	const uint8_t *in;
	uint8_t bad[4096];
	size_t len;

	compress_buf_init(&inflated, 1 << 20);
	compress_buf_init(&deflated, 0);
	compress_buf_init(&out, 0);
	build(&b, COMPRESS_GZIP, &in, &len);
	CU_ASSERT_FATAL(len <= sizeof(bad));
	memcpy(bad, in, len);
	bad[len - 3] ^= 0xff;
	CU_ASSERT_EQUAL(batch_recompress(bad, len, COMPRESS_LZ4, &inflated,
	    &deflated, &out), COMPRESS_ECORRUPT);
	CU_ASSERT_EQUAL(out.len, 0);
	inflated.limit = 16;
	CU_ASSERT_EQUAL(batch_recompress(in, len, COMPRESS_LZ4, &inflated,
	    &deflated, &out), COMPRESS_ELIMIT);
	CU_ASSERT_EQUAL(out.len, 0);
	batch_builder_free(&b);
	compress_buf_free(&inflated);
	compress_buf_free(&deflated);
	compress_buf_free(&out);
}

TEST_SUITE("batch_codec", NULL, NULL,
    { "every codec to every codec, fields kept", test_every_codec_to_every_codec },
    { "corrupt or over the limit: refused", test_refused });
