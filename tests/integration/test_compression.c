/*
 * Compressed batches through the real broker: flume-produce -z with each
 * codec, read back by flume-consume exactly as the uncompressed run, with
 * the codec in the attributes of the batches on disk; batches that
 * kafka-python compressed stored byte for byte and read back; and zip
 * bombs (1 GiB of zstd in 32 KiB, with and without a declared size)
 * refused with MESSAGE_TOO_LARGE while the workers' peak RSS stays
 * within a bound, storing nothing.  Through the Kafka listener,
 * confluent-kafka producers and kcat -z with each codec: librdkafka
 * compresses only when ApiVersions lists the Produce and Fetch versions
 * it wants, so the codec must reach the disk, and the records come back
 * exactly through flume-consume, confluent-kafka and kcat.
 *
 * The broker runs with max_message_bytes = 256K, so it inflates a batch
 * to at most 16 x 256K = 4 MiB.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/crc32c.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define INFLATE_LIMIT	(16 * 256 * 1024)
#define NLINES		300
#define NKAFKA		200
#define PYTHON		"/usr/bin/python3"
#define KCAT		"/usr/bin/kcat"
#define CLIENTS		"tests/tools/kafka_clients.py"

static struct flumed d;

/* Little-endian, as zstd frames are. */
static void
le_put(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int
setup(void)
{
	return flumed_start_kafka(&d, NULL, "max_message_bytes = 256K\n"
	    "partitions = 1\n");
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fstat(fileno(f), &st) == -1 || st.st_size <= 0 ||
	    (buf = malloc((size_t)st.st_size)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)st.st_size;
	return buf;
}

/* The first segment of topic's partition 0, whole. */
static uint8_t *
segment(const char *topic, size_t *len)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s/partition-0/"
	    "00000000000000000000.log", d.data, topic);
	return slurp(path, len);
}

static void
create_topic(const char *topic)
{
	const char *argv[] = { "flume-admin", "create", topic, "-p", "1", NULL };

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, NULL, 10000, argv), 0);
}

static char *
consume(const char *topic)
{
	const char *argv[] = { "flume-consume", "-t", topic, "-o", "beginning",
	    "-e", "-f", "%o %k|%v\\n", NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, argv), 0);
	return out;
}

/*
 * Walk the batches of a segment: every one CRC-valid with codec in its
 * attributes and a producer id (idempotence survives compression); the
 * number of records, or -1.
 */
static long
segment_records(const uint8_t *p, size_t len, int codec, int *nbatches)
{
	struct batch_header h;
	size_t off = 0, total;
	long n = 0;

	*nbatches = 0;
	while (off < len) {
		if (batch_parse_header(p + off, len - off, &h) != BATCH_OK)
			return -1;
		total = batch_total_size(&h);
		if (total > len - off || batch_check_crc(p + off, total) !=
		    BATCH_OK)
			return -1;
		CU_ASSERT_EQUAL(h.attributes & BATCH_COMPRESSION_MASK, codec);
		CU_ASSERT(h.producer_id >= 0);
		CU_ASSERT_EQUAL(h.base_offset, n);
		n += h.records_count;
		off += total;
		(*nbatches)++;
	}
	return n;
}

static void
test_produce_each_codec(void)
{
	static const char *names[] = { "none", "gzip", "snappy", "lz4", "zstd" };
	char *input, *want, *out, topic[32];
	const char *argv[] = { "flume-produce", "-t", topic, "-k", "user-7",
	    "-z", NULL, NULL };
	size_t ilen = 0, wlen = 0, cap = NLINES * 128, plain_size = 0, seglen;
	uint8_t *seg;
	int i, c, nb;

	input = malloc(cap);
	want = malloc(cap);
	CU_ASSERT_FATAL(input != NULL && want != NULL);
	for (i = 0; i < NLINES; i++) {
		ilen += (size_t)snprintf(input + ilen, cap - ilen,
		    "line %d: the quick brown fox jumps over the lazy dog\n", i);
		wlen += (size_t)snprintf(want + wlen, cap - wlen,
		    "%d user-7|line %d: the quick brown fox jumps over the "
		    "lazy dog\n", i, i);
	}
	for (c = 0; c < 5; c++) {
		snprintf(topic, sizeof(topic), "z-%s", names[c]);
		argv[6] = names[c];
		create_topic(topic);
		CU_ASSERT_EQUAL_FATAL(run_tool(&d, input, NULL, 20000, argv), 0);
		out = consume(topic);
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		/* Exactly the input, whatever the codec. */
		CU_ASSERT_STRING_EQUAL(out, want);
		free(out);
		seg = segment(topic, &seglen);
		CU_ASSERT_PTR_NOT_NULL_FATAL(seg);
		CU_ASSERT_EQUAL(segment_records(seg, seglen, c, &nb), NLINES);
		CU_ASSERT(nb >= 1);
		if (c == 0)
			plain_size = seglen;
		else
			CU_ASSERT(seglen < plain_size / 2);	/* compressed */
		free(seg);
	}
	free(input);
	free(want);
}

/* The records the Kafka clients send, as "%o %k|%v\n" lines. */
static char *
kafka_lines(void)
{
	size_t cap = NKAFKA * 96, n = 0;
	char *s = malloc(cap);
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	s[0] = '\0';
	for (i = 0; i < NKAFKA; i++)
		n += (size_t)snprintf(s + n, cap - n, "%d key-%d|record %d: "
		    "the quick brown fox jumps over the lazy dog\n", i, i % 7,
		    i);
	return s;
}

/* The codec's batches on disk hold exactly the NKAFKA records. */
static void
check_stored(const char *topic, int codec, const char *want)
{
	uint8_t *seg;
	size_t seglen;
	char *out;
	int nb;

	seg = segment(topic, &seglen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(seg);
	CU_ASSERT_EQUAL(segment_records(seg, seglen, codec, &nb), NKAFKA);
	CU_ASSERT(nb >= 1);
	free(seg);
	out = consume(topic);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
}

static void
test_confluent_each_codec(void)
{
	static const char *names[] = { "gzip", "snappy", "lz4", "zstd" };
	char topic[32], n[16], want_line[128], *out, *want = kafka_lines();
	const char *argv[] = { PYTHON, CLIENTS, "codec", d.kbroker, topic, NULL,
	    n, NULL };
	int i;

	snprintf(n, sizeof(n), "%d", NKAFKA);
	for (i = 0; i < 4; i++) {
		snprintf(topic, sizeof(topic), "ck-%s", names[i]);
		create_topic(topic);
		argv[5] = names[i];
		out = NULL;
		CU_ASSERT_EQUAL(support_run_cmd(PYTHON, argv, NULL, &out, NULL,
		    90000), 0);
		snprintf(want_line, sizeof(want_line), "confluent-kafka %s: "
		    "0 unacked, 0 errors, %d read, 0 differ\n", names[i],
		    NKAFKA);
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		CU_ASSERT_STRING_EQUAL(out, want_line);
		free(out);
		check_stored(topic, i + 1, want);
	}
	free(want);
}

static void
test_kcat_each_codec(void)
{
	static const char *names[] = { "gzip", "snappy", "lz4", "zstd" };
	char topic[32], *input, *want = kafka_lines(), *out;
	const char *pargv[] = { "kcat", "-b", d.kbroker, "-P", "-t", topic,
	    "-p", "0", "-K", ":", "-z", NULL, "-X", "enable.idempotence=true",
	    NULL };
	const char *cargv[] = { "kcat", "-b", d.kbroker, "-C", "-t", topic,
	    "-p", "0", "-o", "beginning", "-e", "-q", "-f", "%o %k|%s\n",
	    NULL };
	size_t cap = NKAFKA * 96, n;
	int i, j;

	CU_ASSERT_PTR_NOT_NULL_FATAL(input = malloc(cap));
	for (i = 0; i < 4; i++) {
		snprintf(topic, sizeof(topic), "kc-%s", names[i]);
		create_topic(topic);
		pargv[11] = names[i];
		for (j = 0, n = 0; j < NKAFKA; j++)
			n += (size_t)snprintf(input + n, cap - n, "key-%d:"
			    "record %d: the quick brown fox jumps over the "
			    "lazy dog\n", j % 7, j);
		CU_ASSERT_EQUAL(support_run_cmd(KCAT, pargv, input, NULL, NULL,
		    30000), 0);
		check_stored(topic, i + 1, want);
		out = NULL;
		CU_ASSERT_EQUAL(support_run_cmd(KCAT, cargv, NULL, &out, NULL,
		    30000), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		CU_ASSERT_STRING_EQUAL(out, want);
		free(out);
	}
	free(input);
	free(want);
}

/* One PRODUCE of records to topic/0; the entry's error, or -1. */
static int
produce_raw(const char *topic, const uint8_t *records, size_t len,
    int64_t *base)
{
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t plen = 0;
	int fd, rc = -1;

	if ((fd = support_connect(&d)) == -1)
		return -1;
	wbuf_init(&wb);
	wbuf_i8(&wb, 1);
	wbuf_i32(&wb, 5000);
	wbuf_i32(&wb, 1);
	wbuf_str(&wb, topic, strlen(topic));
	wbuf_i32(&wb, 0);
	wbuf_bytes(&wb, records, (int32_t)len);
	if (support_call(fd, API_PRODUCE, 1, &wb, 10000, &p, &plen) == 0 &&
	    plen >= 16 && be32_get(p + 2) == 1) {
		rc = (int16_t)be16_get(p + 6);
		if (base != NULL)
			*base = (int64_t)be64_get(p + 8);
	}
	free(p);
	wbuf_free(&wb);
	close(fd);
	return rc;
}

/* What kafka_fixture.py's records look like through "%o %k|%v\n". */
static char *
fixture_lines(void)
{
	static const char *first =
	    "0 key-1|value-1\n"
	    "1 |no key here\n"
	    "2 hdr|two headers\n"
	    "3 tombstone|\n"
	    "4 empty-value|\n"
	    "5 utf8|gr\xc3\xbc\xc3\x9f" "e \xe6\x97\xa5\xe6\x9c\xac \xe2\x9c\x93\n";
	char *s = malloc(8192);
	size_t n;
	int i, j;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	n = (size_t)snprintf(s, 8192, "%s", first);
	for (i = 0; i < 40; i++) {
		n += (size_t)snprintf(s + n, 8192 - n,
		    "%d key-%02d|compressible value %02d ", 6 + i, i, i);
		for (j = 0; j < 20; j++)
			n += (size_t)snprintf(s + n, 8192 - n, "abc");
		n += (size_t)snprintf(s + n, 8192 - n, "\n");
	}
	return s;
}

static void
test_kafka_python_batches(void)
{
	static const char *names[] = { "gzip", "snappy", "lz4", "zstd" };
	char path[1024], topic[32], *out, *want = fixture_lines();
	uint8_t *fix, *seg;
	size_t flen, seglen;
	int64_t base = -1;
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "tests/fixtures/"
		    "kafka_python_batch_%s.bin", names[i]);
		fix = slurp(path, &flen);
		CU_ASSERT_PTR_NOT_NULL_FATAL(fix);
		snprintf(topic, sizeof(topic), "kp-%s", names[i]);
		create_topic(topic);
		CU_ASSERT_EQUAL(produce_raw(topic, fix, flen, &base), ERR_NONE);
		CU_ASSERT_EQUAL(base, 0);
		out = consume(topic);
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		CU_ASSERT_STRING_EQUAL(out, want);
		free(out);
		/* Stored as kafka-python wrote it (baseOffset was 0 already). */
		seg = segment(topic, &seglen);
		CU_ASSERT_PTR_NOT_NULL_FATAL(seg);
		CU_ASSERT_EQUAL(seglen, flen);
		CU_ASSERT(seglen == flen && memcmp(seg, fix, flen) == 0);
		free(seg);
		free(fix);
	}
	free(want);
}

/*
 * A zstd frame of `blocks` RLE blocks of 128 KiB of zeros, as a batch
 * claiming count records.  declared: the frame header states the size.
 */
static uint8_t *
bomb(size_t blocks, int declared, int32_t count, size_t *len)
{
	uint64_t content = (uint64_t)blocks << 17;
	size_t zlen = 4 + 1 + 1 + (declared ? 8 : 0) + blocks * 4, i;
	uint8_t *b = calloc(1, BATCH_HEADER_SIZE + zlen), *p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	p = b + BATCH_HEADER_SIZE;
	le_put(p, 0xFD2FB528, 4);	/* zstd magic */
	p += 4;
	*p++ = declared ? 0xC0 : 0x00;	/* 8-byte content size, or none */
	*p++ = 7 << 3;			/* window 2^17 */
	if (declared) {
		le_put(p, content, 8);
		p += 8;
	}
	for (i = 0; i < blocks; i++) {
		uint32_t bh = (i + 1 == blocks) | (1 << 1) | (131072u << 3);

		p[0] = (uint8_t)bh;	/* last, RLE, 128 KiB */
		p[1] = (uint8_t)(bh >> 8);
		p[2] = (uint8_t)(bh >> 16);
		p[3] = 0;		/* the byte repeated */
		p += 4;
	}
	be64_put(b + BATCH_OFF_BASE_OFFSET, 0);
	be32_put(b + BATCH_OFF_LENGTH, (uint32_t)(BATCH_HEADER_SIZE + zlen -
	    BATCH_LOG_OVERHEAD));
	be32_put(b + BATCH_OFF_EPOCH, 0xffffffff);
	b[BATCH_OFF_MAGIC] = BATCH_MAGIC;
	be16_put(b + BATCH_OFF_ATTRIBUTES, COMPRESS_ZSTD);
	be32_put(b + BATCH_OFF_LAST_DELTA, (uint32_t)(count - 1));
	be64_put(b + BATCH_OFF_PRODUCER_ID, (uint64_t)-1);
	be16_put(b + BATCH_OFF_PRODUCER_EPOCH, 0xffff);
	be32_put(b + BATCH_OFF_BASE_SEQUENCE, 0xffffffff);
	be32_put(b + BATCH_OFF_COUNT, (uint32_t)count);
	*len = BATCH_HEADER_SIZE + zlen;
	be32_put(b + BATCH_OFF_CRC, crc32c(0, b + BATCH_CRC_START,
	    *len - BATCH_CRC_START));
	return b;
}

static void
hwm_kib(long out[2])
{
	char path[64], line[256];
	FILE *f;
	pid_t pid;
	int i;

	for (i = 0; i < 2; i++) {
		out[i] = -1;
		pid = flumed_child_pid(&d, "worker", i);
		CU_ASSERT_FATAL(pid > 0);
		snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "r"));
		while (fgets(line, sizeof(line), f) != NULL)
			sscanf(line, "VmHWM: %ld", &out[i]);
		fclose(f);
		CU_ASSERT_FATAL(out[i] > 0);
	}
}

static void
test_zip_bomb(void)
{
	const size_t blocks = 8192;		/* 8192 x 128 KiB = 1 GiB */
	struct compress_buf z;
	uint8_t *declared, *streamed, *copy;
	size_t dlen, slen;
	long before[2], after[2], bound;
	const char *san;
	int64_t base = -1;
	int i, logged;

	create_topic("bomb");
	declared = bomb(blocks, 1, 1000000, &dlen);
	streamed = bomb(blocks, 0, 1000000, &slen);
	CU_ASSERT(dlen < 40 * 1024 && slen < 40 * 1024);	/* tiny */
	/* Both are well-formed 1 GiB zstd frames. */
	CU_ASSERT_EQUAL(ZSTD_getFrameContentSize(declared + BATCH_HEADER_SIZE,
	    dlen - BATCH_HEADER_SIZE), (unsigned long long)1 << 30);
	CU_ASSERT_EQUAL(ZSTD_findFrameCompressedSize(declared +
	    BATCH_HEADER_SIZE, dlen - BATCH_HEADER_SIZE), dlen -
	    BATCH_HEADER_SIZE);
	CU_ASSERT_EQUAL(ZSTD_getFrameContentSize(streamed + BATCH_HEADER_SIZE,
	    slen - BATCH_HEADER_SIZE), ZSTD_CONTENTSIZE_UNKNOWN);
	CU_ASSERT_EQUAL(ZSTD_findFrameCompressedSize(streamed +
	    BATCH_HEADER_SIZE, slen - BATCH_HEADER_SIZE), slen -
	    BATCH_HEADER_SIZE);
	/* The streamed one really inflates (here into at most 1 MiB). */
	compress_buf_init(&z, 1 << 20);
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_ZSTD, streamed +
	    BATCH_HEADER_SIZE, slen - BATCH_HEADER_SIZE, &z), COMPRESS_ELIMIT);
	compress_buf_free(&z);

	logged = flumed_log_count(&d, "compressed batch refused");
	hwm_kib(before);
	for (i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(produce_raw("bomb", declared, dlen, NULL),
		    ERR_MESSAGE_TOO_LARGE);
		CU_ASSERT_EQUAL(produce_raw("bomb", streamed, slen, NULL),
		    ERR_MESSAGE_TOO_LARGE);
	}
	hwm_kib(after);
	/*
	 * At most the 4 MiB inflate buffer (and the halves realloc passed
	 * through), the zstd window and slack: 16 MiB, against 1 GiB.
	 * AddressSanitizer keeps every freed block resident in its
	 * quarantine (each realloc step, each connection's buffers): twice
	 * that there.
	 */
	san = getenv("FLUME_SANITIZE");
	bound = san != NULL && strcmp(san, "1") == 0 ? 32 * 1024 : 16 * 1024;
	for (i = 0; i < 2; i++) {
		fprintf(stderr, "worker %d VmHWM %ld -> %ld KiB (bound +%ld)\n",
		    i, before[i], after[i], bound);
		CU_ASSERT(after[i] - before[i] < bound);
	}
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "compressed batch refused",
	    logged + 20, 5000), logged + 20);

	/* Corrupt compressed data, and a reserved codec. */
	copy = malloc(slen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, streamed, slen);
	copy[BATCH_HEADER_SIZE] ^= 0xff;	/* zstd magic */
	be32_put(copy + BATCH_OFF_CRC, crc32c(0, copy + BATCH_CRC_START,
	    slen - BATCH_CRC_START));
	CU_ASSERT_EQUAL(produce_raw("bomb", copy, slen, NULL),
	    ERR_CORRUPT_MESSAGE);
	memcpy(copy, streamed, slen);
	be16_put(copy + BATCH_OFF_ATTRIBUTES, 5);
	be32_put(copy + BATCH_OFF_CRC, crc32c(0, copy + BATCH_CRC_START,
	    slen - BATCH_CRC_START));
	CU_ASSERT_EQUAL(produce_raw("bomb", copy, slen, NULL),
	    ERR_UNSUPPORTED_COMPRESSION);
	free(copy);

	/* Nothing of it was stored: the next batch gets offset 0. */
	{
		struct batch_builder bb;
		const uint8_t *ok;
		size_t oklen;

		batch_builder_init(&bb);
		CU_ASSERT_EQUAL(batch_builder_add(&bb, 1, "k", 1, "after", 5,
		    NULL, 0), 0);
		CU_ASSERT_EQUAL_FATAL(batch_builder_close_codec(&bb,
		    COMPRESS_ZSTD, &ok, &oklen), 0);
		CU_ASSERT_EQUAL(produce_raw("bomb", ok, oklen, &base),
		    ERR_NONE);
		CU_ASSERT_EQUAL(base, 0);
		batch_builder_free(&bb);
	}
	free(declared);
	free(streamed);
}

TEST_SUITE("compression", setup, teardown,
    { "flume-produce -z each codec, read back exactly", test_produce_each_codec },
    { "kafka-python's compressed batches stored and read",
	test_kafka_python_batches },
    { "zip bombs refused, workers do not grow", test_zip_bomb },
    { "confluent-kafka compression.type each codec, stored and read",
	test_confluent_each_codec },
    { "kcat -z each codec, stored and read", test_kcat_each_codec });
