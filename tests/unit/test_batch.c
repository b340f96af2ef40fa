/*
 * RecordBatch v2: the builder's exact output, iteration, and a validator
 * that catches every way a batch can be wrong (each batch_error value is
 * produced by a hand-made batch), every flipped byte the CRC covers, and
 * every truncation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/crc32c.h"
#include "proto/varint.h"
#include "tests/harness.h"

/* A tiny writer for hand-made batches (fixed size; tests stay small). */
struct w {
	uint8_t	buf[4096];
	size_t	len;
};

static void
w_raw(struct w *w, const void *p, size_t n)
{
	CU_ASSERT_FATAL(w->len + n <= sizeof(w->buf));
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void
w_u8(struct w *w, uint8_t v)
{
	w_raw(w, &v, 1);
}

static void
w_varint(struct w *w, int32_t v)
{
	uint8_t tmp[VARINT_MAX];

	w_raw(w, tmp, varint_put(tmp, v));
}

static void
w_varlong(struct w *w, int64_t v)
{
	uint8_t tmp[VARLONG_MAX];

	w_raw(w, tmp, varlong_put(tmp, v));
}

/* A nullable field: NULL is length -1. */
static void
w_field(struct w *w, const char *s)
{
	if (s == NULL) {
		w_varint(w, -1);
		return;
	}
	w_varint(w, (int32_t)strlen(s));
	w_raw(w, s, strlen(s));
}

/* Append a record whose length field is its true length plus adjust. */
static void
w_record(struct w *w, int32_t adjust, int64_t ts_delta, int32_t offset_delta,
    const char *key, const char *value, int nh, const char *const *hk,
    const char *const *hv)
{
	struct w body;
	int i;

	body.len = 0;
	w_u8(&body, 0);
	w_varlong(&body, ts_delta);
	w_varint(&body, offset_delta);
	w_field(&body, key);
	w_field(&body, value);
	w_varint(&body, nh);
	for (i = 0; i < nh; i++) {
		w_field(&body, hk[i]);
		w_field(&body, hv[i]);
	}
	w_varint(w, (int32_t)body.len + adjust);
	w_raw(w, body.buf, body.len);
}

/* Wrap records in a header (as a client would) and CRC it. */
static void
w_batch(struct w *out, const struct w *recs, int32_t count, int32_t last_delta,
    int16_t attributes)
{
	uint8_t *h = out->buf;

	memset(out->buf, 0, BATCH_HEADER_SIZE);
	out->len = BATCH_HEADER_SIZE;
	w_raw(out, recs->buf, recs->len);
	be64_put(h + BATCH_OFF_BASE_OFFSET, 0);
	be32_put(h + BATCH_OFF_LENGTH, (uint32_t)(out->len - 12));
	be32_put(h + BATCH_OFF_EPOCH, (uint32_t)-1);
	h[BATCH_OFF_MAGIC] = 2;
	be16_put(h + BATCH_OFF_ATTRIBUTES, (uint16_t)attributes);
	be32_put(h + BATCH_OFF_LAST_DELTA, (uint32_t)last_delta);
	be64_put(h + BATCH_OFF_FIRST_TS, 1000);
	be64_put(h + BATCH_OFF_MAX_TS, 1000);
	be64_put(h + BATCH_OFF_PRODUCER_ID, (uint64_t)-1);
	be16_put(h + BATCH_OFF_PRODUCER_EPOCH, (uint16_t)-1);
	be32_put(h + BATCH_OFF_BASE_SEQUENCE, (uint32_t)-1);
	be32_put(h + BATCH_OFF_COUNT, (uint32_t)count);
	be32_put(h + BATCH_OFF_CRC,
	    crc32c(0, h + BATCH_CRC_START, out->len - BATCH_CRC_START));
}

static void
recrc(uint8_t *buf, size_t len)
{
	be32_put(buf + BATCH_OFF_CRC,
	    crc32c(0, buf + BATCH_CRC_START, len - BATCH_CRC_START));
}

/* Validate a copy of exactly len bytes on the heap, so ASan sees overruns. */
static int
validate_copy(const uint8_t *buf, size_t len)
{
	uint8_t *copy = malloc(len > 0 ? len : 1);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	if (len > 0)
		memcpy(copy, buf, len);
	rc = batch_validate(copy, len, NULL);
	free(copy);
	return rc;
}

/* The reference batch that most tests use. */
#define REF_COUNT	6
static const struct record_header ref_h3[] = {
	{ (const uint8_t *)"trace", 5, (const uint8_t *)"abc123", 6 },
	{ (const uint8_t *)"empty", 5, (const uint8_t *)"", 0 },
	{ (const uint8_t *)"nil", 3, NULL, -1 },
};

static void
build_ref(struct batch_builder *b, const uint8_t **out, size_t *outlen)
{
	static uint8_t big[300];

	memset(big, 'x', sizeof(big));
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, 1700000000000LL,
	    "key-1", 5, "value-1", 7, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, 1700000000500LL,
	    NULL, -1, "no key", 6, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, 1699999999000LL,
	    "tombstone", 9, NULL, -1, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, 1700000002000LL,
	    "h", 1, "with headers", 12, ref_h3, 3), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, 1700000001000LL,
	    "", 0, "", 0, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, 1700000001000LL,
	    "big", 3, big, (int32_t)sizeof(big), NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(b, out, outlen), 0);
}

static void
check_ref_records(const uint8_t *buf, size_t len, int64_t base)
{
	struct batch_iter it;
	struct record r;
	struct record_header_iter hi;
	struct record_header h;
	int i;

	CU_ASSERT_EQUAL_FATAL(batch_iter_init(&it, buf, len), BATCH_OK);

	CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.offset, base + 0);
	CU_ASSERT_EQUAL(r.timestamp, 1700000000000LL);
	CU_ASSERT_EQUAL(r.key_len, 5);
	CU_ASSERT_EQUAL(memcmp(r.key, "key-1", 5), 0);
	CU_ASSERT_EQUAL(r.value_len, 7);
	CU_ASSERT_EQUAL(memcmp(r.value, "value-1", 7), 0);
	CU_ASSERT_EQUAL(r.header_count, 0);
	CU_ASSERT_EQUAL(r.headers_len, 0);

	CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.offset, base + 1);
	CU_ASSERT_EQUAL(r.timestamp, 1700000000500LL);
	CU_ASSERT_EQUAL(r.key_len, -1);
	CU_ASSERT_PTR_NULL(r.key);
	CU_ASSERT_EQUAL(r.value_len, 6);
	CU_ASSERT_EQUAL(memcmp(r.value, "no key", 6), 0);

	CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.offset, base + 2);
	CU_ASSERT_EQUAL(r.timestamp, 1699999999000LL);	/* negative delta */
	CU_ASSERT_EQUAL(r.key_len, 9);
	CU_ASSERT_EQUAL(memcmp(r.key, "tombstone", 9), 0);
	CU_ASSERT_EQUAL(r.value_len, -1);
	CU_ASSERT_PTR_NULL(r.value);

	CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.offset, base + 3);
	CU_ASSERT_EQUAL(r.timestamp, 1700000002000LL);
	CU_ASSERT_EQUAL(r.key_len, 1);
	CU_ASSERT_EQUAL(r.key[0], 'h');
	CU_ASSERT_EQUAL(r.value_len, 12);
	CU_ASSERT_EQUAL(memcmp(r.value, "with headers", 12), 0);
	CU_ASSERT_EQUAL(r.header_count, 3);
	/* 1+5+1+6 + 1+5+1 + 1+3+1 */
	CU_ASSERT_EQUAL(r.headers_len, 25);
	record_header_iter_init(&hi, &r);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(record_header_next(&hi, &h), 1);
		CU_ASSERT_EQUAL(h.key_len, ref_h3[i].key_len);
		CU_ASSERT_EQUAL(memcmp(h.key, ref_h3[i].key,
		    (size_t)h.key_len), 0);
		CU_ASSERT_EQUAL(h.value_len, ref_h3[i].value_len);
		if (h.value_len > 0)
			CU_ASSERT_EQUAL(memcmp(h.value, ref_h3[i].value,
			    (size_t)h.value_len), 0);
	}
	CU_ASSERT_PTR_NULL(h.value);		/* the last one is null */
	CU_ASSERT_EQUAL(record_header_next(&hi, &h), 0);

	CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.offset, base + 4);
	CU_ASSERT_EQUAL(r.key_len, 0);
	CU_ASSERT_PTR_NOT_NULL(r.key);		/* empty, not null */
	CU_ASSERT_EQUAL(r.value_len, 0);
	CU_ASSERT_PTR_NOT_NULL(r.value);
	record_header_iter_init(&hi, &r);
	CU_ASSERT_EQUAL(record_header_next(&hi, &h), 0);

	CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.offset, base + 5);
	CU_ASSERT_EQUAL(r.value_len, 300);
	CU_ASSERT_EQUAL(r.value[0], 'x');
	CU_ASSERT_EQUAL(r.value[299], 'x');
	/* value, then the header count byte ends the batch */
	CU_ASSERT_PTR_EQUAL(r.value + 300 + 1, buf + len);

	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 0);
	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 0);
}

static void
test_build_validate_iterate(void)
{
	struct batch_builder b;
	struct batch_header h;
	const uint8_t *out;
	uint8_t *copy;
	size_t len;

	batch_builder_init(&b);
	CU_ASSERT_EQUAL(batch_builder_size(&b), BATCH_HEADER_SIZE);
	build_ref(&b, &out, &len);
	CU_ASSERT_EQUAL(len, batch_builder_size(&b));

	CU_ASSERT_EQUAL(batch_validate(out, len, &h), BATCH_OK);
	CU_ASSERT_EQUAL(h.base_offset, 0);
	CU_ASSERT_EQUAL(h.length, (int32_t)(len - 12));
	CU_ASSERT_EQUAL(batch_total_size(&h), len);
	CU_ASSERT_EQUAL(h.leader_epoch, -1);
	CU_ASSERT_EQUAL(h.magic, 2);
	CU_ASSERT_EQUAL(h.crc, crc32c(0, out + 21, len - 21));
	CU_ASSERT_EQUAL(h.attributes, 0);
	CU_ASSERT_EQUAL(h.last_offset_delta, REF_COUNT - 1);
	CU_ASSERT_EQUAL(h.first_timestamp, 1700000000000LL);
	CU_ASSERT_EQUAL(h.max_timestamp, 1700000002000LL);
	CU_ASSERT_EQUAL(h.producer_id, -1);
	CU_ASSERT_EQUAL(h.producer_epoch, -1);
	CU_ASSERT_EQUAL(h.base_sequence, -1);
	CU_ASSERT_EQUAL(h.records_count, REF_COUNT);
	CU_ASSERT_EQUAL(batch_check_crc(out, len), BATCH_OK);
	CU_ASSERT_STRING_EQUAL(batch_strerror(BATCH_OK), "no error");

	check_ref_records(out, len, 0);

	/* Rebasing touches only the uncovered baseOffset. */
	copy = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, len);
	batch_set_base_offset(copy, 4242);
	CU_ASSERT_EQUAL(batch_base_offset(copy), 4242);
	CU_ASSERT_EQUAL(batch_last_offset(copy), 4242 + REF_COUNT - 1);
	CU_ASSERT_EQUAL(memcmp(copy + 8, out + 8, len - 8), 0);
	CU_ASSERT_EQUAL(batch_validate(copy, len, NULL), BATCH_OK);
	check_ref_records(copy, len, 4242);
	free(copy);
	batch_builder_free(&b);
}

/* The bytes of a one-record batch, worked out by hand from the spec. */
static void
test_exact_bytes(void)
{
	static const uint8_t want[] = {
		0, 0, 0, 0, 0, 0, 0, 0,			/* baseOffset */
		0, 0, 0, 62,				/* batchLength */
		0xff, 0xff, 0xff, 0xff,			/* leader epoch */
		2,					/* magic */
		0, 0, 0, 0,				/* crc (checked apart) */
		0, 0,					/* attributes */
		0, 0, 0, 0,				/* lastOffsetDelta */
		0, 0, 0, 0, 0, 0, 0x30, 0x39,		/* firstTimestamp */
		0, 0, 0, 0, 0, 0, 0x30, 0x39,		/* maxTimestamp */
		0, 0, 0, 0, 0, 0, 0, 7,			/* producerId */
		0, 3,					/* producerEpoch */
		0, 0, 0, 9,				/* baseSequence */
		0, 0, 0, 1,				/* recordsCount */
		0x18,			/* record length 12 */
		0x00,			/* attributes */
		0x00,			/* timestampDelta 0 */
		0x00,			/* offsetDelta 0 */
		0x02, 'k',		/* key */
		0x02, 'v',		/* value */
		0x02,			/* 1 header */
		0x04, 'h', 'k',		/* header key */
		0x01,			/* header value null */
	};
	struct record_header hdr = { (const uint8_t *)"hk", 2, NULL, -1 };
	struct batch_builder b;
	const uint8_t *out;
	size_t len;

	batch_builder_init(&b);
	batch_builder_set_producer(&b, 7, 3, 9);
	CU_ASSERT_EQUAL(batch_builder_add(&b, 12345, "k", 1, "v", 1, &hdr, 1), 0);
	CU_ASSERT_EQUAL(batch_builder_close(&b, &out, &len), 0);
	CU_ASSERT_EQUAL_FATAL(len, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(out, want, 17), 0);
	CU_ASSERT_EQUAL(memcmp(out + 21, want + 21, len - 21), 0);
	CU_ASSERT_EQUAL(be32_get(out + 17), crc32c(0, want + 21, len - 21));
	CU_ASSERT_EQUAL(batch_validate(out, len, NULL), BATCH_OK);
	batch_builder_free(&b);
}

static void
test_builder_reuse_and_errors(void)
{
	struct batch_builder b;
	struct batch_header h;
	struct record_header badh = { NULL, -1, NULL, -1 };
	const uint8_t *out, *out2;
	uint8_t *buf0;
	size_t len, len2, cap0, before, est;
	int i;

	batch_builder_init(&b);
	CU_ASSERT_EQUAL(batch_builder_close(&b, &out, &len), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);

	/* Invalid arguments leave the builder untouched. */
	errno = 0;
	CU_ASSERT_EQUAL(batch_builder_add(&b, 1, NULL, 3, "v", 1, NULL, 0), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(batch_builder_add(&b, 1, "k", -2, "v", 1, NULL, 0), -1);
	CU_ASSERT_EQUAL(batch_builder_add(&b, 1, "k", 1, NULL, 1, NULL, 0), -1);
	CU_ASSERT_EQUAL(batch_builder_add(&b, 1, "k", 1, "v", 1, NULL, 2), -1);
	CU_ASSERT_EQUAL(batch_builder_add(&b, 1, "k", 1, "v", 1, NULL, -1), -1);
	CU_ASSERT_EQUAL(batch_builder_add(&b, 1, "k", 1, "v", 1, &badh, 1), -1);
	CU_ASSERT_EQUAL(b.count, 0);
	CU_ASSERT_EQUAL(batch_builder_size(&b), BATCH_HEADER_SIZE);

	build_ref(&b, &out, &len);
	buf0 = b.buf;
	cap0 = b.cap;
	CU_ASSERT_EQUAL(batch_builder_add(&b, 1, "k", 1, "v", 1, NULL, 0), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);

	/* Same records after a reset: same buffer, identical bytes. */
	batch_builder_reset(&b);
	CU_ASSERT_EQUAL(batch_builder_size(&b), BATCH_HEADER_SIZE);
	build_ref(&b, &out2, &len2);
	CU_ASSERT_PTR_EQUAL(b.buf, buf0);
	CU_ASSERT_EQUAL(b.cap, cap0);
	CU_ASSERT_EQUAL(len2, len);

	/* Many batches through one builder; record_size bounds each add. */
	for (i = 0; i < 50; i++) {
		batch_builder_reset(&b);
		batch_builder_set_producer(&b, 99, 1, i * 10);
		before = batch_builder_size(&b);
		est = batch_builder_record_size(3, 5, ref_h3, 3);
		CU_ASSERT_EQUAL(batch_builder_add(&b, 100 + i, "abc", 3,
		    "defgh", 5, ref_h3, 3), 0);
		CU_ASSERT(batch_builder_size(&b) > before);
		CU_ASSERT(batch_builder_size(&b) - before <= est);
		CU_ASSERT_EQUAL(batch_builder_close(&b, &out, &len), 0);
		CU_ASSERT_EQUAL_FATAL(batch_validate(out, len, &h), BATCH_OK);
		CU_ASSERT_EQUAL(h.producer_id, 99);
		CU_ASSERT_EQUAL(h.producer_epoch, 1);
		CU_ASSERT_EQUAL(h.base_sequence, i * 10);
		CU_ASSERT_EQUAL(h.first_timestamp, 100 + i);
		CU_ASSERT_EQUAL(h.records_count, 1);
	}
	CU_ASSERT_PTR_EQUAL(b.buf, buf0);
	batch_builder_free(&b);
	CU_ASSERT_PTR_NULL(b.buf);
	batch_builder_free(&b);		/* twice is harmless */
}

/*
 * Flip each byte of a built batch.  baseOffset (0..7) and the leader epoch
 * (12..15) are outside the CRC by Kafka's design (the broker rewrites
 * them), so those still validate; every other byte must be caught.
 */
static void
test_flip_every_byte(void)
{
	static const uint8_t masks[] = { 0xff, 0x01, 0x80 };
	struct batch_builder b;
	struct batch_header h;
	const uint8_t *out;
	uint8_t *copy;
	size_t len, i, m;
	int rc;

	batch_builder_init(&b);
	build_ref(&b, &out, &len);
	copy = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, len);
	for (i = 0; i < len; i++) {
		for (m = 0; m < sizeof(masks); m++) {
			copy[i] ^= masks[m];
			rc = batch_validate(copy, len, &h);
			if (i < 8 || (i >= 12 && i < 16)) {
				CU_ASSERT_EQUAL(rc, BATCH_OK);
			} else if (i < 12) {
				CU_ASSERT(rc == BATCH_ESHORT ||
				    rc == BATCH_ELENGTH);
			} else if (i == BATCH_OFF_MAGIC) {
				CU_ASSERT_EQUAL(rc, BATCH_EMAGIC);
			} else {
				/* CRC field itself or any covered byte. */
				CU_ASSERT_EQUAL(rc, BATCH_ECRC);
				CU_ASSERT_EQUAL(batch_check_crc(copy, len),
				    BATCH_ECRC);
			}
			copy[i] ^= masks[m];
		}
	}
	CU_ASSERT_EQUAL(batch_validate(copy, len, NULL), BATCH_OK);
	free(copy);
	batch_builder_free(&b);
}

static void
test_truncation(void)
{
	struct batch_builder b;
	const uint8_t *out;
	uint8_t *longer;
	size_t len, cut;

	batch_builder_init(&b);
	build_ref(&b, &out, &len);
	for (cut = 0; cut < len; cut++) {
		CU_ASSERT_EQUAL(validate_copy(out, cut), BATCH_ESHORT);
		if (cut >= BATCH_HEADER_SIZE)
			CU_ASSERT_EQUAL(batch_check_crc(out, cut),
			    BATCH_ESHORT);
	}
	/* A buffer longer than the batch disagrees the other way. */
	longer = calloc(1, len + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(longer);
	memcpy(longer, out, len);
	CU_ASSERT_EQUAL(batch_validate(longer, len + 1, NULL), BATCH_ELENGTH);
	CU_ASSERT_EQUAL(batch_check_crc(longer, len + 1), BATCH_ELENGTH);
	CU_ASSERT_EQUAL(batch_validate(longer, len, NULL), BATCH_OK);
	free(longer);
	batch_builder_free(&b);
}

/* Header-level errors: length field, magic, compression, counts, deltas. */
static void
test_header_errors(void)
{
	struct batch_header h;
	struct w recs, bt;
	uint8_t *p;
	int i;

	recs.len = 0;
	for (i = 0; i < 3; i++)
		w_record(&recs, 0, i, i, "k", "v", 0, NULL, NULL);
	w_batch(&bt, &recs, 3, 2, 0);
	p = bt.buf;
	CU_ASSERT_EQUAL_FATAL(validate_copy(p, bt.len), BATCH_OK);

	/* batchLength below the header, negative, larger, smaller. */
	be32_put(p + 8, 48);
	CU_ASSERT_EQUAL(validate_copy(p, bt.len), BATCH_ELENGTH);
	CU_ASSERT_EQUAL(batch_parse_header(p, bt.len, &h), BATCH_ELENGTH);
	be32_put(p + 8, 0x80000000U);
	CU_ASSERT_EQUAL(validate_copy(p, bt.len), BATCH_ELENGTH);
	be32_put(p + 8, (uint32_t)(bt.len - 12 + 1));
	CU_ASSERT_EQUAL(validate_copy(p, bt.len), BATCH_ESHORT);
	be32_put(p + 8, (uint32_t)(bt.len - 12 - 1));
	CU_ASSERT_EQUAL(validate_copy(p, bt.len), BATCH_ELENGTH);
	be32_put(p + 8, (uint32_t)(bt.len - 12));

	/* Magic 0, 1, 3: parse_header already refuses. */
	for (i = 0; i < 4; i++) {
		if (i == 2)
			continue;
		p[16] = (uint8_t)i;
		CU_ASSERT_EQUAL(validate_copy(p, bt.len), BATCH_EMAGIC);
		CU_ASSERT_EQUAL(batch_parse_header(p, bt.len, &h),
		    BATCH_EMAGIC);
	}
	p[16] = 2;
	CU_ASSERT_EQUAL(batch_parse_header(p, BATCH_HEADER_SIZE - 1, &h),
	    BATCH_ESHORT);
	CU_ASSERT_EQUAL(batch_parse_header(p, BATCH_HEADER_SIZE, &h),
	    BATCH_OK);
	CU_ASSERT_EQUAL(h.records_count, 3);

	/* Any compression codec (1..4, and the reserved 5..7). */
	for (i = 1; i <= 7; i++) {
		w_batch(&bt, &recs, 3, 2, (int16_t)i);
		CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len),
		    BATCH_ECOMPRESSION);
	}
	/* Other attribute bits (timestamp type, transactional) are fine. */
	w_batch(&bt, &recs, 3, 2, 0x18);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_OK);

	/* recordsCount too high, too low, zero, negative. */
	w_batch(&bt, &recs, 4, 2, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECOUNT);
	w_batch(&bt, &recs, 2, 2, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECOUNT);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECOUNT);
	w_batch(&bt, &recs, 0, 2, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECOUNT);
	w_batch(&bt, &recs, -1, 2, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECOUNT);
	w_batch(&bt, &recs, 0x7fffffff, 2, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECOUNT);

	/* lastOffsetDelta wrong either way. */
	w_batch(&bt, &recs, 3, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_EDELTA);
	w_batch(&bt, &recs, 3, 3, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_EDELTA);
	w_batch(&bt, &recs, 3, -1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_EDELTA);

	/* CRC: a wrong stored value, and a record byte changed under it. */
	w_batch(&bt, &recs, 3, 2, 0);
	bt.buf[17] ^= 0x10;
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECRC);
	bt.buf[17] ^= 0x10;
	bt.buf[bt.len - 2] ^= 0x01;	/* the last value byte */
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECRC);
	recrc(bt.buf, bt.len);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_OK);

	for (i = BATCH_OK; i >= BATCH_ETRAILING; i--)
		CU_ASSERT_STRING_NOT_EQUAL(batch_strerror(i),
		    "unknown batch error");
	CU_ASSERT_STRING_EQUAL(batch_strerror(-100), "unknown batch error");
}

/* offsetDelta must run 0..n-1. */
static void
test_offset_delta_errors(void)
{
	struct w recs, bt;

	recs.len = 0;
	w_record(&recs, 0, 0, 0, "a", "1", 0, NULL, NULL);
	w_record(&recs, 0, 0, 2, "b", "2", 0, NULL, NULL);	/* gap */
	w_record(&recs, 0, 0, 2, "c", "3", 0, NULL, NULL);
	w_batch(&bt, &recs, 3, 2, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_EDELTA);

	recs.len = 0;
	w_record(&recs, 0, 0, 1, "a", "1", 0, NULL, NULL);	/* not 0 */
	w_batch(&bt, &recs, 1, 0, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_EDELTA);

	recs.len = 0;
	w_record(&recs, 0, 0, 0, "a", "1", 0, NULL, NULL);
	w_record(&recs, 0, 0, 0, "b", "2", 0, NULL, NULL);	/* repeat */
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_EDELTA);

	recs.len = 0;
	w_record(&recs, 0, 0, 0, "a", "1", 0, NULL, NULL);
	w_record(&recs, 0, 0, -1, "b", "2", 0, NULL, NULL);	/* backwards */
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_EDELTA);
}

/*
 * Records that lie about their lengths.  Each case is one well-formed
 * record followed by one bad one; the batch CRC is correct, so only the
 * record walk can catch it.
 */
static void
test_record_errors(void)
{
	static const char *const hk[] = { "hk" }, *const hv[] = { "hv" };
	static const char *const nullk[] = { NULL };
	struct w recs, bt, body;
	struct batch_iter it;
	struct record r;
	size_t good;
	int rc;

	recs.len = 0;
	w_record(&recs, 0, 0, 0, "a", "1", 1, hk, hv);
	good = recs.len;

	/* Record length longer than what is left of the batch. */
	w_record(&recs, 1, 0, 1, "b", "2", 0, NULL, NULL);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);

	/* Record length shorter than its fields: the value overruns it. */
	recs.len = good;
	w_record(&recs, -1, 0, 1, "b", "2", 0, NULL, NULL);
	w_u8(&recs, 0);		/* keep the batch length honest */
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);

	/* Record length longer than its fields (a spare byte inside it). */
	recs.len = good;
	w_record(&recs, 1, 0, 1, "b", "2", 0, NULL, NULL);
	w_u8(&recs, 0);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);

	/* Negative record length. */
	recs.len = good;
	w_varint(&recs, -3);
	w_u8(&recs, 0);
	w_u8(&recs, 0);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);

	/* Record length varint cut off by the end of the batch. */
	recs.len = good;
	w_u8(&recs, 0x80);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);

	/* Zero-length record: not even the attributes byte. */
	recs.len = good;
	w_varint(&recs, 0);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);

	/*
	 * Hand-built bodies: [len][attr][tsDelta][offsetDelta] then the
	 * field under test.
	 */
#define BAD_BODY(...) do {						\
		static const uint8_t tail_[] = { __VA_ARGS__ };	\
		body.len = 0;						\
		w_u8(&body, 0);						\
		w_varlong(&body, 0);					\
		w_varint(&body, 1);					\
		w_raw(&body, tail_, sizeof(tail_));			\
		recs.len = good;					\
		w_varint(&recs, (int32_t)body.len);			\
		w_raw(&recs, body.buf, body.len);			\
		w_batch(&bt, &recs, 2, 1, 0);				\
	} while (0)

	/* key length 5 (zigzag 10) but 1 byte of key before the record ends */
	BAD_BODY(10, 'k');
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* key length -2 */
	BAD_BODY(3, 2, 'v', 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* value length 4 with 2 bytes */
	BAD_BODY(2, 'k', 8, 'v', 'v');
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* header count missing */
	BAD_BODY(2, 'k', 2, 'v');
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* header count -1 */
	BAD_BODY(2, 'k', 2, 'v', 1);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* 2 headers promised, 1 present */
	BAD_BODY(2, 'k', 2, 'v', 4, 2, 'h', 2, 'v');
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* header key length 3 with 1 byte */
	BAD_BODY(2, 'k', 2, 'v', 2, 6, 'h');
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* header value length 3 with 1 byte */
	BAD_BODY(2, 'k', 2, 'v', 2, 2, 'h', 6, 'v');
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* timestampDelta varlong runs off the record */
	body.len = 0;
	w_u8(&body, 0);
	w_u8(&body, 0x80);
	w_u8(&body, 0x80);
	recs.len = good;
	w_varint(&recs, (int32_t)body.len);
	w_raw(&recs, body.buf, body.len);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);
	/* the same body shape, well formed, passes: the macro is sound */
	BAD_BODY(2, 'k', 2, 'v', 2, 2, 'h', 2, 'v');
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_OK);
#undef BAD_BODY

	/* Null header key: Kafka's header key is a non-null string. */
	recs.len = good;
	w_record(&recs, 0, 0, 1, "b", "2", 1, nullk, hv);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ERECORD);

	/* The iterator refuses the same record and stays failed. */
	recs.len = good;
	w_record(&recs, 0, 0, 1, "b", "2", 1, nullk, hv);
	w_record(&recs, 0, 0, 2, "c", "3", 0, NULL, NULL);
	w_batch(&bt, &recs, 3, 2, 0);
	CU_ASSERT_EQUAL(batch_iter_init(&it, bt.buf, bt.len), BATCH_OK);
	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.key[0], 'a');
	rc = batch_iter_next(&it, &r);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 0);
}

/* Junk after the last record that does not parse as a record. */
static void
test_trailing(void)
{
	static const uint8_t junk[][3] = {
		{ 0x01 },		/* length -1 */
		{ 0x00 },		/* empty record */
		{ 0x06, 0x00, 0x00 },	/* length 3 with 2 bytes */
	};
	static const size_t junk_len[] = { 1, 1, 3 };
	struct w recs, bt;
	size_t i, good;

	recs.len = 0;
	w_record(&recs, 0, 0, 0, "a", "1", 0, NULL, NULL);
	w_record(&recs, 0, 0, 1, "b", "2", 0, NULL, NULL);
	good = recs.len;
	for (i = 0; i < 3; i++) {
		recs.len = good;
		w_raw(&recs, junk[i], junk_len[i]);
		w_batch(&bt, &recs, 2, 1, 0);
		CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len),
		    BATCH_ETRAILING);
	}
	/* A whole extra record is a count problem, not trailing junk. */
	recs.len = good;
	w_record(&recs, 0, 0, 2, "c", "3", 0, NULL, NULL);
	w_batch(&bt, &recs, 2, 1, 0);
	CU_ASSERT_EQUAL(validate_copy(bt.buf, bt.len), BATCH_ECOUNT);
}

/* Malformed header bytes handed to the header iterator directly. */
static void
test_header_iter_malformed(void)
{
	static const uint8_t bad1[] = { 0x06, 'a' };		/* key overruns */
	static const uint8_t bad2[] = { 0x01, 0x00 };		/* null key */
	static const uint8_t bad3[] = { 0x02, 'a', 0x08, 'b' };	/* value */
	static const uint8_t good[] = { 0x02, 'a', 0x02, 'b' };
	struct record r;
	struct record_header_iter hi;
	struct record_header h;

	memset(&r, 0, sizeof(r));
	r.header_count = 1;
	r.headers = bad1;
	r.headers_len = sizeof(bad1);
	record_header_iter_init(&hi, &r);
	CU_ASSERT_EQUAL(record_header_next(&hi, &h), -1);
	CU_ASSERT_EQUAL(record_header_next(&hi, &h), 0);
	r.headers = bad2;
	r.headers_len = sizeof(bad2);
	record_header_iter_init(&hi, &r);
	CU_ASSERT_EQUAL(record_header_next(&hi, &h), -1);
	r.headers = bad3;
	r.headers_len = sizeof(bad3);
	record_header_iter_init(&hi, &r);
	CU_ASSERT_EQUAL(record_header_next(&hi, &h), -1);
	/* headers_len bounds the walk even when the count asks for more */
	r.header_count = 2;
	r.headers = good;
	r.headers_len = sizeof(good);
	record_header_iter_init(&hi, &r);
	CU_ASSERT_EQUAL(record_header_next(&hi, &h), 1);
	CU_ASSERT_EQUAL(h.key_len, 1);
	CU_ASSERT_EQUAL(h.key[0], 'a');
	CU_ASSERT_EQUAL(h.value_len, 1);
	CU_ASSERT_EQUAL(h.value[0], 'b');
	CU_ASSERT_EQUAL(record_header_next(&hi, &h), -1);
}

/*
 * Random corruption with the CRC fixed up afterwards, so the record
 * walker sees the damage: the validator must return a defined code and,
 * when it accepts, iteration must yield exactly recordsCount records.
 */
static void
test_random_corruption(void)
{
	struct batch_builder b;
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	struct record_header_iter hi;
	struct record_header rh;
	const uint8_t *out;
	uint8_t *copy;
	size_t len, pos;
	int i, k, n, rc, accepted = 0, hn;

	batch_builder_init(&b);
	build_ref(&b, &out, &len);
	copy = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	for (i = 0; i < 5000; i++) {
		memcpy(copy, out, len);
		n = 1 + (int)(test_rand() % 3);
		for (k = 0; k < n; k++) {
			pos = BATCH_HEADER_SIZE +
			    (size_t)(test_rand() % (len - BATCH_HEADER_SIZE));
			copy[pos] = (uint8_t)test_rand();
		}
		recrc(copy, len);
		rc = batch_validate(copy, len, &h);
		CU_ASSERT_FATAL(rc <= BATCH_OK && rc >= BATCH_ETRAILING);
		if (rc != BATCH_OK)
			continue;
		accepted++;
		CU_ASSERT_EQUAL_FATAL(batch_iter_init(&it, copy, len), BATCH_OK);
		for (k = 0; (rc = batch_iter_next(&it, &r)) == 1; k++) {
			record_header_iter_init(&hi, &r);
			hn = 0;
			while (record_header_next(&hi, &rh) == 1)
				hn++;
			CU_ASSERT_EQUAL(hn, r.header_count);
		}
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(k, h.records_count);
	}
	/* Changes inside keys and values are legal: some must pass. */
	CU_ASSERT(accepted > 0);
	free(copy);
	batch_builder_free(&b);
}

/* LogAppendTime: the bit, maxTimestamp, a CRC that validates again. */
static void
test_log_append_time(void)
{
	struct batch_builder b;
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	const uint8_t *out;
	uint8_t *buf;
	size_t len;
	int n = 0;

	batch_builder_init(&b);
	CU_ASSERT_FATAL(batch_builder_add(&b, 1000, NULL, -1, "a", 1, NULL,
	    0) == 0);
	CU_ASSERT_FATAL(batch_builder_add(&b, 900, NULL, -1, "b", 1, NULL,
	    0) == 0);
	CU_ASSERT_FATAL(batch_builder_close(&b, &out, &len) == 0);
	CU_ASSERT_FATAL((buf = malloc(len)) != NULL);
	memcpy(buf, out, len);
	batch_set_log_append_time(buf, len, 1764600000000LL);
	CU_ASSERT_EQUAL(batch_validate(buf, len, &h), BATCH_OK);
	CU_ASSERT_EQUAL(h.attributes, BATCH_ATTR_LOG_APPEND_TIME);
	CU_ASSERT_EQUAL(h.max_timestamp, 1764600000000LL);
	CU_ASSERT_EQUAL(h.first_timestamp, 1000);	/* as the producer wrote */
	CU_ASSERT_FATAL(batch_iter_init(&it, buf, len) == BATCH_OK);
	while (batch_iter_next(&it, &r) == 1) {
		CU_ASSERT_EQUAL(r.timestamp, 1764600000000LL);
		n++;
	}
	CU_ASSERT_EQUAL(n, 2);
	/* Any other change to the covered bytes still fails the CRC. */
	buf[len - 1] ^= 1;
	CU_ASSERT_EQUAL(batch_validate(buf, len, NULL), BATCH_ECRC);
	free(buf);
	batch_builder_free(&b);
}

/*
 * A sealed batch whose producer fields are patched afterwards gets, from
 * batch_header_recrc and the builder's records_crc, exactly the CRC a
 * full pass computes, plain and compressed; the builder's records_crc is
 * the CRC of the bytes after the header.
 */
static void
test_header_recrc(void)
{
	static const int codecs[] = { COMPRESS_NONE, COMPRESS_GZIP };
	struct batch_builder b;
	const uint8_t *out;
	uint8_t *h;
	size_t len, i;
	int k;
	char val[300];

	for (k = 0; k < 2; k++) {
		batch_builder_init(&b);
		for (i = 0; i < 50; i++) {
			snprintf(val, sizeof(val), "value %zu %0200zu", i, i * 7);
			CU_ASSERT_FATAL(batch_builder_add(&b, 1000 + (int64_t)i,
			    "k", 1, val, (int32_t)strlen(val), NULL, 0) == 0);
		}
		CU_ASSERT_FATAL(batch_builder_close_codec(&b, codecs[k], &out,
		    &len) == 0);
		h = (uint8_t *)(uintptr_t)out;
		CU_ASSERT_EQUAL(b.records_crc, crc32c(0, h + BATCH_HEADER_SIZE,
		    len - BATCH_HEADER_SIZE));
		be64_put(h + BATCH_OFF_PRODUCER_ID, 77);
		be16_put(h + BATCH_OFF_PRODUCER_EPOCH, 3);
		be32_put(h + BATCH_OFF_BASE_SEQUENCE, 1234);
		batch_header_recrc(h, len, b.records_crc);
		CU_ASSERT_EQUAL(be32_get(h + BATCH_OFF_CRC), crc32c(0,
		    h + BATCH_CRC_START, len - BATCH_CRC_START));
		batch_builder_free(&b);
	}
}

/* The content of a batch in pieces, put together here: own bytes, spans. */
static uint8_t *
pieces_join(const struct wbuf_pieces *pc, size_t *len)
{
	uint8_t *out;
	size_t pos = 0, n = 0, i;

	*len = pc->len + pc->span_bytes;
	CU_ASSERT_FATAL((out = malloc(*len)) != NULL);
	for (i = 0; i < pc->nspans; i++) {
		CU_ASSERT_FATAL(pc->spans[i].at >= pos && pc->spans[i].at <= pc->len);
		memcpy(out + n, pc->buf + pos, pc->spans[i].at - pos);
		n += pc->spans[i].at - pos;
		pos = pc->spans[i].at;
		memcpy(out + n, pc->spans[i].p, pc->spans[i].len);
		n += pc->spans[i].len;
	}
	memcpy(out + n, pc->buf + pos, pc->len - pos);
	n += pc->len - pos;
	CU_ASSERT_EQUAL_FATAL(n, *len);
	return out;
}

/* Producer fields patched and the CRC redone, as libflume's renumbering. */
static void
renumber(uint8_t *h, size_t len, uint32_t records_crc)
{
	be64_put(h + BATCH_OFF_PRODUCER_ID, 4242);
	be16_put(h + BATCH_OFF_PRODUCER_EPOCH, 7);
	be32_put(h + BATCH_OFF_BASE_SEQUENCE, 99);
	batch_header_recrc(h, len, records_crc);
}

/*
 * A batch built from referenced values is byte for byte (CRC included)
 * the batch built by copying them: joined from its pieces, closed whole
 * (the referenced values copied in at close), and after renumbering;
 * its pieces point at the caller's values, which it never copied.
 */
static void
test_ref_identical(void)
{
	/* Value lengths per case; -1 null, 0 empty. */
	static const int32_t cases[][8] = {
		{ 1000 },
		{ 511, 512, 513, 0, -1, 1, 4096, 70000 },
		{ 0 },
		{ -1 },
		{ -1, 0, -1, 0 },
		{ 512, 512, 512 },
	};
	static const int ncase[] = { 1, 8, 1, 1, 4, 3 };
	struct record_header hdr = { (const uint8_t *)"h", 1,
	    (const uint8_t *)"hv", 2 };
	struct batch_builder bc, br, bf;
	struct wbuf_pieces pc;
	const uint8_t *copy, *flat;
	uint8_t *vals[8], *joined, *c2;
	size_t clen, flen, jlen, nref, refbytes;
	int k, i, many;

	for (k = 0; k < (int)(sizeof(ncase) / sizeof(ncase[0])); k++) {
		for (many = 0; many < 2; many++) {
			batch_builder_init(&bc);
			batch_builder_init(&br);
			batch_builder_init(&bf);
			nref = refbytes = 0;
			for (i = 0; i < ncase[k]; i++) {
				int32_t vl = cases[k][i];
				const char *key = many ? "key" : NULL;
				int32_t kl = many ? 3 : -1;

				vals[i] = NULL;
				if (vl >= 0) {
					CU_ASSERT_FATAL((vals[i] =
					    malloc((size_t)vl + 1)) != NULL);
					test_fill_random(vals[i], (size_t)vl);
				}
				CU_ASSERT_FATAL(batch_builder_add(&bc, 5000 + i,
				    key, kl, vals[i], vl, &hdr, many) == 0);
				CU_ASSERT_FATAL(batch_builder_add_ref(&br,
				    5000 + i, key, kl, vals[i], vl, &hdr,
				    many) == 0);
				CU_ASSERT_FATAL(batch_builder_add_ref(&bf,
				    5000 + i, key, kl, vals[i], vl, &hdr,
				    many) == 0);
				if (vl > 0) {
					nref++;
					refbytes += (size_t)vl;
				}
			}
			CU_ASSERT_EQUAL(batch_builder_size(&br),
			    batch_builder_size(&bc));
			CU_ASSERT_FATAL(batch_builder_close(&bc, &copy,
			    &clen) == 0);
			CU_ASSERT_FATAL(batch_builder_close_pieces(&br,
			    &pc) == 0);
			CU_ASSERT_EQUAL(pc.nspans, nref);
			CU_ASSERT_EQUAL(pc.span_bytes, refbytes);
			CU_ASSERT_EQUAL(pc.len, clen - refbytes);
			for (i = 0, jlen = 0; i < ncase[k]; i++)
				if (cases[k][i] > 0)
					CU_ASSERT(pc.spans[jlen++].p == vals[i]);
			joined = pieces_join(&pc, &jlen);
			CU_ASSERT_EQUAL_FATAL(jlen, clen);
			CU_ASSERT(memcmp(joined, copy, clen) == 0);
			CU_ASSERT_EQUAL(br.records_crc, bc.records_crc);
			CU_ASSERT_EQUAL(batch_validate(joined, jlen, NULL),
			    BATCH_OK);
			free(joined);
			CU_ASSERT_FATAL(batch_builder_close(&bf, &flat,
			    &flen) == 0);
			CU_ASSERT_EQUAL_FATAL(flen, clen);
			CU_ASSERT(memcmp(flat, copy, clen) == 0);

			/* Renumbered: the header of the pieces is their buf. */
			CU_ASSERT_FATAL((c2 = malloc(clen)) != NULL);
			memcpy(c2, copy, clen);
			renumber(c2, clen, bc.records_crc);
			renumber((uint8_t *)(uintptr_t)pc.buf, clen,
			    br.records_crc);
			joined = pieces_join(&pc, &jlen);
			CU_ASSERT(memcmp(joined, c2, clen) == 0);
			CU_ASSERT_EQUAL(batch_validate(joined, jlen, NULL),
			    BATCH_OK);
			CU_ASSERT_EQUAL(be64_get(joined + BATCH_OFF_PRODUCER_ID),
			    4242);
			free(joined);
			free(c2);

			/* Reused after a reset: no span left behind. */
			batch_builder_reset(&br);
			CU_ASSERT_FATAL(batch_builder_add_ref(&br, 1, NULL, -1,
			    "x", 1, NULL, 0) == 0);
			CU_ASSERT_FATAL(batch_builder_close_pieces(&br,
			    &pc) == 0);
			CU_ASSERT_EQUAL(pc.nspans, 1);
			CU_ASSERT_EQUAL(pc.len + pc.span_bytes,
			    batch_builder_size(&br));
			joined = pieces_join(&pc, &jlen);
			CU_ASSERT_EQUAL(batch_validate(joined, jlen, NULL),
			    BATCH_OK);
			free(joined);
			for (i = 0; i < ncase[k]; i++)
				free(vals[i]);
			batch_builder_free(&bc);
			batch_builder_free(&br);
			batch_builder_free(&bf);
		}
	}
}

/*
 * Copied and referenced records mixed, past the builder's CRC run several
 * times: the pieces are the copied batch, byte for byte.
 */
static void
test_ref_mixed(void)
{
	static uint8_t big[3000], small[90];
	struct batch_builder bc, br;
	struct wbuf_pieces pc;
	const uint8_t *copy;
	uint8_t *joined;
	size_t clen, jlen;
	int i;

	test_fill_random(big, sizeof(big));
	test_fill_random(small, sizeof(small));
	batch_builder_init(&bc);
	batch_builder_init(&br);
	for (i = 0; i < 2000; i++) {
		/* Runs of short copied records between referenced ones. */
		if (i % 50 == 49) {
			CU_ASSERT_FATAL(batch_builder_add(&bc, i, NULL, -1, big,
			    (int32_t)sizeof(big), NULL, 0) == 0);
			CU_ASSERT_FATAL(batch_builder_add_ref(&br, i, NULL, -1,
			    big, (int32_t)sizeof(big), NULL, 0) == 0);
		} else {
			CU_ASSERT_FATAL(batch_builder_add(&bc, i, "k", 1, small,
			    i % 90, NULL, 0) == 0);
			CU_ASSERT_FATAL(batch_builder_add(&br, i, "k", 1, small,
			    i % 90, NULL, 0) == 0);
		}
	}
	CU_ASSERT_FATAL(batch_builder_close(&bc, &copy, &clen) == 0);
	CU_ASSERT_FATAL(batch_builder_close_pieces(&br, &pc) == 0);
	CU_ASSERT_EQUAL(pc.nspans, 40);
	joined = pieces_join(&pc, &jlen);
	CU_ASSERT_EQUAL_FATAL(jlen, clen);
	CU_ASSERT(clen > 4 * 32 * 1024);
	CU_ASSERT(memcmp(joined, copy, clen) == 0);
	CU_ASSERT_EQUAL(batch_validate(joined, jlen, NULL), BATCH_OK);
	CU_ASSERT_EQUAL(batch_validate(copy, clen, NULL), BATCH_OK);
	free(joined);
	batch_builder_free(&bc);
	batch_builder_free(&br);
}

/*
 * A compressed close of referenced values compresses their bytes: the
 * same batch as from copied ones.
 */
static void
test_ref_compressed(void)
{
	static char vs[20][2000];
	struct batch_builder bc, br;
	const uint8_t *a, *b;
	size_t alen, blen;
	int i;

	batch_builder_init(&bc);
	batch_builder_init(&br);
	for (i = 0; i < 20; i++) {
		memset(vs[i], 'a' + i, sizeof(vs[i]));
		CU_ASSERT_FATAL(batch_builder_add(&bc, i, "k", 1, vs[i],
		    (int32_t)sizeof(vs[i]), NULL, 0) == 0);
		CU_ASSERT_FATAL(batch_builder_add_ref(&br, i, "k", 1, vs[i],
		    (int32_t)sizeof(vs[i]), NULL, 0) == 0);
	}
	CU_ASSERT_FATAL(batch_builder_close_codec(&bc, COMPRESS_ZSTD, &a,
	    &alen) == 0);
	CU_ASSERT_FATAL(batch_builder_close_codec(&br, COMPRESS_ZSTD, &b,
	    &blen) == 0);
	CU_ASSERT_EQUAL_FATAL(alen, blen);
	CU_ASSERT(memcmp(a, b, alen) == 0);
	CU_ASSERT_EQUAL(bc.records_crc, br.records_crc);
	CU_ASSERT_EQUAL(batch_validate_z(b, blen, NULL, NULL),
	    BATCH_ECOMPRESSION);
	CU_ASSERT_EQUAL(batch_check_crc(b, blen), BATCH_OK);
	batch_builder_free(&bc);
	batch_builder_free(&br);
}

/*
 * A hostile base offset near INT64_MAX: the last offset and each
 * record's offset wrap (no signed overflow, which UBSan in
 * make check SANITIZE=1 would stop on), and such a batch still reads.
 */
static void
test_offset_wrap(void)
{
	struct batch_builder bb;
	struct batch_iter it;
	struct record r;
	const uint8_t *out;
	uint8_t *b;
	size_t len;

	batch_builder_init(&bb);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1000, "k", 1, "v", 1,
	    NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1001, "k", 1, "w", 1,
	    NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &out, &len), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = malloc(len));
	memcpy(b, out, len);
	be64_put(b + BATCH_OFF_BASE_OFFSET, (uint64_t)INT64_MAX);
	CU_ASSERT_EQUAL(batch_last_offset(b), INT64_MIN);
	CU_ASSERT_EQUAL_FATAL(batch_iter_init(&it, b, len), 0);
	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.offset, INT64_MAX);
	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.offset, INT64_MIN);
	CU_ASSERT_EQUAL(r.value_len, 1);
	CU_ASSERT_EQUAL(memcmp(r.value, "w", 1), 0);
	free(b);
	batch_builder_free(&bb);
}

TEST_SUITE("batch", NULL, NULL,
    { "build, validate, iterate", test_build_validate_iterate },
    { "LogAppendTime rewrite", test_log_append_time },
    { "CRC redone from the header alone", test_header_recrc },
    { "offsets near INT64_MAX wrap, never overflow", test_offset_wrap },
    { "referenced values: the same bytes as copied", test_ref_identical },
    { "referenced values compressed", test_ref_compressed },
    { "referenced and copied values mixed", test_ref_mixed },
    { "exact bytes of a one-record batch", test_exact_bytes },
    { "builder reuse and argument errors", test_builder_reuse_and_errors },
    { "every flipped byte detected", test_flip_every_byte },
    { "every truncation detected", test_truncation },
    { "header errors", test_header_errors },
    { "offsetDelta errors", test_offset_delta_errors },
    { "record length errors", test_record_errors },
    { "trailing bytes", test_trailing },
    { "header iterator on malformed headers", test_header_iter_malformed },
    { "random corruption", test_random_corruption });
