/*
 * What the hand-written Kafka codec's test (test_kafka_codec.c, gone with
 * that codec) checked beyond test_kdesc's field assertions, now through
 * the descriptions (kdesc.h):
 *   - every request of tests/fixtures/kafka_codec/ (kafka-python 2.0.2's
 *     classes, kcat/librdkafka 2.0.2 captured live) decodes with its own
 *     description, and no proper prefix of its body, nor the body with
 *     one more byte, does;
 *   - the record batches inside librdkafka's Produce v3 and v7 (lz4) are
 *     the records kcat was given;
 *   - hostile counts and lengths are refused before anything is sized by
 *     them;
 *   - the frame size prefix, the v1 request header the tests write, and
 *     the response frame the listener writes (kheader.h);
 *   - Kafka's names of the API keys (kapi.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kheader.h"
#include "proto/kafka/kmsg_fetch.h"
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_meta.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/wire.h"
#include "tests/harness.h"

#define THIS_FILE	"tests/unit/test_kfixtures.c"
#define FIXTURES	"tests/fixtures/kafka_codec"

static const char *srcdir;

static int
setup(void)
{
	srcdir = test_srcdir(__FILE__, THIS_FILE);
	return 0;
}

static int
dec(const struct kmsg *m, int16_t v, const void *p, size_t len,
    struct arena *a)
{
	void *out;
	int rc;

	if ((out = malloc(m->km_req->kd_size)) == NULL)
		return -2;
	arena_reset(a);
	rc = kmsg_decode_req(m, v, out, p, len, a);
	free(out);
	return rc;
}

/*
 * A fixture's frame: the size prefix, the header (v1, or v2 for a
 * flexible version), its body; NULL when unreadable.
 */
static uint8_t *
load(const char *file, size_t *len, struct kreq_hdr *h, size_t *body)
{
	char path[1200];
	uint8_t *buf;
	int32_t size = 0;
	size_t hlen;

	snprintf(path, sizeof(path), "%s/%s/%s", srcdir, FIXTURES, file);
	if ((buf = test_slurp(path, len)) == NULL)
		return NULL;
	CU_ASSERT_EQUAL_FATAL(kframe_size(buf, *len, &size), 1);
	CU_ASSERT_EQUAL_FATAL((size_t)size, *len - KFRAME_SIZE_LEN);
	CU_ASSERT_EQUAL_FATAL(kmsg_decode_req_hdr(h, buf + KFRAME_SIZE_LEN,
	    (size_t)size, &hlen), 0);
	*body = KFRAME_SIZE_LEN + hlen;
	return buf;
}

/* Every fixture: its body decodes exactly; no prefix or extension does. */
static void
test_every_fixture_and_its_truncations(void)
{
	const struct kmsg *m;
	struct kreq_hdr h;
	struct arena a;
	struct dirent *de;
	DIR *d;
	char path[1200];
	uint8_t *buf, *copy;
	size_t len, boff, blen, n;
	int nfx = 0, seen[128] = { 0 };

	snprintf(path, sizeof(path), "%s/%s", srcdir, FIXTURES);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d = opendir(path));
	arena_init(&a, 1u << 20);
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".bin") != 0)
			continue;
		buf = load(de->d_name, &len, &h, &boff);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m = kmsg_lookup(h.api_key));
		blen = len - boff;
		if (dec(m, h.api_version, buf + boff, blen, &a) != 0) {
			fprintf(stderr, "%s: does not decode\n", de->d_name);
			CU_FAIL("a fixture does not decode");
		}
		/* Exact-size copies, so a read past the end would be seen. */
		for (n = 0; n < blen; n++) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(copy = malloc(n ? n : 1));
			memcpy(copy, buf + boff, n);
			if (dec(m, h.api_version, copy, n, &a) != -1) {
				fprintf(stderr, "%s: prefix %zu decodes\n",
				    de->d_name, n);
				CU_FAIL("a proper prefix decoded");
			}
			free(copy);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(copy = malloc(blen + 1));
		memcpy(copy, buf + boff, blen);
		copy[blen] = 0;
		CU_ASSERT_EQUAL(dec(m, h.api_version, copy, blen + 1, &a), -1);
		free(copy);
		if (h.api_key >= 0 && h.api_key < 128)
			seen[h.api_key]++;
		nfx++;
		free(buf);
	}
	closedir(d);
	arena_free(&a);
	/* kafka-python's 51 and the 9 captured from kcat. */
	CU_ASSERT_EQUAL(nfx, 60);
	CU_ASSERT_EQUAL(seen[KAPI_PRODUCE], 10);
	CU_ASSERT_EQUAL(seen[KAPI_FETCH], 9);
	CU_ASSERT_EQUAL(seen[KAPI_METADATA], 6);
	CU_ASSERT_EQUAL(seen[KAPI_API_VERSIONS], 5);
}

/*
 * The batches of kcat's Produce requests, captured through a proxy:
 * v3 producing "a", "b" with key k to partition 1 of t1; v7 (kcat -z lz4)
 * producing 86 x 'a' and 92 x 'b', both with key k.
 */
static void
test_librdkafka_batches(void)
{
	static const char *files[] = { "librdkafka-Produce-v3.bin",
	    "librdkafka-Produce-v7.bin" };
	const struct km_produce_topic *t;
	const struct km_produce_part *pp;
	struct km_produce_req r;
	struct kreq_hdr h;
	struct arena a;
	struct batch_header bh;
	struct compress_buf z;
	struct batch_iter it;
	struct record rec;
	uint8_t *buf;
	size_t len, boff;
	int32_t i, j, f;

	arena_init(&a, 1u << 16);
	compress_buf_init(&z, 1u << 20);
	for (f = 0; f < 2; f++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf = load(files[f], &len, &h,
		    &boff));
		CU_ASSERT_EQUAL(h.api_key, KAPI_PRODUCE);
		CU_ASSERT_EQUAL(h.api_version, f == 0 ? 3 : 7);
		arena_reset(&a);
		CU_ASSERT_EQUAL_FATAL(kmsg_decode_req(&kmsg_produce,
		    h.api_version, &r, buf + boff, len - boff, &a), 0);
		CU_ASSERT_EQUAL_FATAL(r.topic_data.n, 1);
		t = r.topic_data.v;
		CU_ASSERT_EQUAL_FATAL(t[0].partition_data.n, 1);
		pp = t[0].partition_data.v;
		CU_ASSERT_EQUAL_FATAL(batch_validate_z((const uint8_t *)
		    pp->records.p, (size_t)pp->records.len, &bh, &z),
		    BATCH_OK);
		CU_ASSERT_EQUAL(bh.attributes & BATCH_COMPRESSION_MASK,
		    f == 0 ? 0 : 3);		/* none, lz4 */
		CU_ASSERT_EQUAL(bh.base_offset, 0);
		CU_ASSERT_EQUAL_FATAL(bh.records_count, 2);
		CU_ASSERT_EQUAL_FATAL(batch_iter_init_z(&it, (const uint8_t *)
		    pp->records.p, (size_t)pp->records.len, &z), 0);
		for (i = 0; i < 2; i++) {
			CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &rec), 1);
			CU_ASSERT_EQUAL(rec.offset, i);
			CU_ASSERT(rec.key_len == 1 && rec.key[0] == 'k');
			CU_ASSERT_EQUAL_FATAL(rec.value_len, f == 0 ? 1 :
			    i == 0 ? 86 : 92);
			for (j = 0; j < rec.value_len; j++)
				CU_ASSERT_EQUAL(rec.value[j], i == 0 ?
				    'a' : 'b');
		}
		CU_ASSERT_EQUAL(batch_iter_next(&it, &rec), 0);
		free(buf);
	}
	compress_buf_free(&z);
	arena_free(&a);
}

/* Hostile counts and lengths: refused before anything is sized by them. */
static void
test_hostile_counts_and_lengths(void)
{
	static const uint8_t huge_count[] = {	/* Metadata v1: 2^31-1 topics */
		0x7f, 0xff, 0xff, 0xff, 0, 1, 'a' };
	static const uint8_t neg_count[] = { 0xff, 0xff, 0xff, 0xfe };
	static const uint8_t neg_str[] = {	/* FindCoordinator: len -2 */
		0xff, 0xfe, 'g' };
	static const uint8_t null_str[] = { 0xff, 0xff };	/* not nullable */
	static const uint8_t null_v0[] = { 0xff, 0xff, 0xff, 0xff };
	/* Produce v3: 1 topic "t", 1 partition, records claiming 1 GiB. */
	static const uint8_t big_records[] = {
		0xff, 0xff, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 't',
		0, 0, 0, 1, 0, 0, 0, 0, 0x40, 0, 0, 0, 1, 2, 3 };
	/* Fetch v4: 3 partitions claimed, room for one (16 bytes each). */
	static const uint8_t short_parts[] = {
		0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0,
		0, 0, 0, 1, 0, 1, 'u', 0, 0, 0, 3,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	struct km_meta_req mr;
	struct arena a;

	arena_init(&a, 4096);
	CU_ASSERT_EQUAL(dec(&kmsg_metadata, 1, huge_count, sizeof(huge_count),
	    &a), -1);
	CU_ASSERT_EQUAL(a.used, 0);
	CU_ASSERT_EQUAL(dec(&kmsg_metadata, 1, neg_count, sizeof(neg_count),
	    &a), -1);
	/* v0 arrays are not nullable; v1's is (all topics). */
	CU_ASSERT_EQUAL(dec(&kmsg_metadata, 0, null_v0, sizeof(null_v0), &a),
	    -1);
	arena_reset(&a);
	CU_ASSERT_EQUAL(kmsg_decode_req(&kmsg_metadata, 1, &mr, null_v0,
	    sizeof(null_v0), &a), 0);
	CU_ASSERT_EQUAL(mr.topics.n, -1);
	CU_ASSERT_PTR_NULL(mr.topics.v);
	CU_ASSERT_EQUAL(dec(&kmsg_find_coordinator, 0, neg_str,
	    sizeof(neg_str), &a), -1);
	CU_ASSERT_EQUAL(dec(&kmsg_find_coordinator, 0, null_str,
	    sizeof(null_str), &a), -1);
	CU_ASSERT_EQUAL(dec(&kmsg_produce, 3, big_records, sizeof(big_records),
	    &a), -1);
	CU_ASSERT_EQUAL(dec(&kmsg_fetch, 4, short_parts, sizeof(short_parts),
	    &a), -1);
	/* Produce v2 has no transactional id: the same bytes do not fit. */
	CU_ASSERT_EQUAL(dec(&kmsg_produce, 2, big_records, sizeof(big_records),
	    &a), -1);
	arena_free(&a);
}

/*
 * Frame sizes (too small to hold a header, negative, incomplete), a v1
 * header whose client id runs past the frame, and a whole response
 * frame: size, correlation id, body, after what was already queued.
 */
static void
test_frames(void)
{
	static const uint8_t hb[] = { 0, 18, 0, 3, 0, 0, 0, 7, 0, 5, 'a',
	    'b' };
	uint8_t b[4];
	int32_t size = 0;
	struct kheader h;
	struct kreq_hdr rh;
	struct wbuf wb;
	size_t pos, hlen;

	be32_put(b, 9);
	CU_ASSERT_EQUAL(kframe_size(b, 4, &size), -1);
	be32_put(b, 0x80000000u);
	CU_ASSERT_EQUAL(kframe_size(b, 4, &size), -1);
	be32_put(b, 10);
	CU_ASSERT_EQUAL(kframe_size(b, 3, &size), 0);
	CU_ASSERT_EQUAL(kframe_size(b, 4, &size), 1);
	CU_ASSERT_EQUAL(size, 10);
	/* ApiVersions v3: header v2, but the client id runs out first. */
	CU_ASSERT_EQUAL(kmsg_decode_req_hdr(&rh, hb, sizeof(hb), &hlen), -1);
	CU_ASSERT_EQUAL(kmsg_decode_req_hdr(&rh, hb, 8, &hlen), -1);

	/* What the tools write decodes as the listener reads it. */
	wbuf_init(&wb);
	h = (struct kheader){ KAPI_METADATA, 4, 77, { "tool", 4 }, 0 };
	kheader_encode(&wb, &h);
	CU_ASSERT_EQUAL_FATAL(kmsg_decode_req_hdr(&rh, wb.buf, wb.len, &hlen),
	    0);
	CU_ASSERT_EQUAL(hlen, wb.len);
	CU_ASSERT_EQUAL(rh.api_key, KAPI_METADATA);
	CU_ASSERT_EQUAL(rh.api_version, 4);
	CU_ASSERT_EQUAL(rh.correlation_id, 77);
	CU_ASSERT(kstr_eq(rh.client_id, "tool"));

	wbuf_reset(&wb);
	wbuf_i8(&wb, 0x55);		/* something already queued */
	pos = kheader_resp_begin(&wb, 0x01020304);
	wbuf_i16(&wb, KERR_NONE);
	wbuf_i32(&wb, 0);
	kheader_resp_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(wb.err, 0);
	CU_ASSERT_EQUAL_FATAL(wb.len, 1 + 4 + 4 + 6);
	CU_ASSERT_EQUAL(be32_get(wb.buf + 1), 10);
	CU_ASSERT_EQUAL(be32_get(wb.buf + 5), 0x01020304);
	wbuf_free(&wb);
}

/* Every key Kafka has is named, served or not. */
static void
test_api_names(void)
{
	CU_ASSERT_STRING_EQUAL(kapi_name(KAPI_FETCH), "Fetch");
	CU_ASSERT_PTR_NULL(kapi_name(99));
	CU_ASSERT_PTR_NULL(kapi_name(-1));
	CU_ASSERT_STRING_EQUAL(kapi_name(0), "Produce");
	CU_ASSERT_STRING_EQUAL(kapi_name(21), "DeleteRecords");
	CU_ASSERT_STRING_EQUAL(kapi_name(32), "DescribeConfigs");
	CU_ASSERT_STRING_EQUAL(kapi_name(33), "AlterConfigs");
	CU_ASSERT_STRING_EQUAL(kapi_name(37), "CreatePartitions");
	CU_ASSERT_STRING_EQUAL(kapi_name(42), "DeleteGroups");
	CU_ASSERT_STRING_EQUAL(kapi_name(68), "ConsumerGroupHeartbeat");
}

TEST_SUITE("kfixtures", setup, NULL,
    { "every client fixture and its truncations",
	test_every_fixture_and_its_truncations },
    { "librdkafka's record batches", test_librdkafka_batches },
    { "hostile counts and lengths", test_hostile_counts_and_lengths },
    { "frames and headers", test_frames },
    { "API names", test_api_names });
