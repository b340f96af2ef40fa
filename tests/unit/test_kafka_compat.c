/*
 * Compatibility with a real Kafka implementation, both ways: a batch
 * written by kafka-python (tests/fixtures/kafka_python_batch.bin, made by
 * tests/tools/kafka_fixture.py) is decoded by Flume field for field, and a
 * batch built by Flume is read back by kafka-python (tests/tools/
 * kafka_check.py, run with the Debian python3-kafka package).
 *
 * The source tree is found through $FLUME_SRCDIR, else from __FILE__
 * (relative when built from the repository root, which is where the tests
 * run).
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/crc32c.h"
#include "tests/harness.h"

#define PYTHON		"/usr/bin/python3"
#define FIXTURE		"tests/fixtures/kafka_python_batch.bin"
#define CHECKER		"tests/tools/kafka_check.py"
#define THIS_FILE	"tests/unit/test_kafka_compat.c"

#define BASE_TS		1700000000000LL

struct hdr {
	const char	*key;
	const char	*value;		/* NULL = null */
	int32_t		 value_len;
};

/* The records kafka_fixture.py wrote, in order. */
static const struct {
	int64_t		 ts;
	const char	*key;		/* NULL = null */
	int32_t		 key_len;
	const char	*value;
	int32_t		 value_len;
	int		 nh;
	struct hdr	 h[2];
} want[] = {
	{ BASE_TS + 0, "key-1", 5, "value-1", 7, 0, { { 0 } } },
	{ BASE_TS + 5, NULL, -1, "no key here", 11, 0, { { 0 } } },
	{ BASE_TS + 3, "hdr", 3, "two headers", 11, 2,
	    { { "trace-id", "abc-123", 7 }, { "empty", "", 0 } } },
	{ BASE_TS + 9, "tombstone", 9, NULL, -1, 0, { { 0 } } },
	{ BASE_TS + 7, "empty-value", 11, "", 0, 0, { { 0 } } },
	/* "grüße 日本 ✓" in UTF-8 */
	{ BASE_TS + 1, "utf8", 4,
	    "gr\xc3\xbc\xc3\x9f" "e \xe6\x97\xa5\xe6\x9c\xac \xe2\x9c\x93",
	    18, 1, { { "null-value", NULL, -1 } } },
};
#define NWANT	((int)(sizeof(want) / sizeof(want[0])))

static char srcdir[1024];

static int
setup(void)
{
	const char *env = getenv("FLUME_SRCDIR"), *file = __FILE__;
	size_t n = strlen(file), t = strlen(THIS_FILE);

	if (env != NULL && *env != '\0')
		snprintf(srcdir, sizeof(srcdir), "%s", env);
	else if (n > t && strcmp(file + n - t, THIS_FILE) == 0)
		snprintf(srcdir, sizeof(srcdir), "%.*s", (int)(n - t), file);
	else
		snprintf(srcdir, sizeof(srcdir), ".");
	return 0;
}

/* Read a whole small file into a malloc'd buffer; NULL on failure. */
static uint8_t *
slurp(const char *path, size_t *len)
{
	uint8_t *buf;
	FILE *f;
	long sz;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) <= 0 ||
	    sz > (1 << 20) || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)sz)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)sz;
	return buf;
}

static void
check_bytes(const uint8_t *got, int32_t got_len, const char *exp,
    int32_t exp_len)
{
	CU_ASSERT_EQUAL_FATAL(got_len, exp_len);
	if (exp_len < 0) {
		CU_ASSERT_PTR_NULL(got);
	} else {
		CU_ASSERT_PTR_NOT_NULL_FATAL(got);
		CU_ASSERT_EQUAL(memcmp(got, exp, (size_t)exp_len), 0);
	}
}

/*
 * The records kafka_fixture.py adds to its compressed batches after
 * want[]: kafka-python does not compress a batch that would not shrink.
 */
#define NEXTRA	40
#define EXTRA_TS(i)	(BASE_TS + 100 + (i))

static void
extra_record(int i, char *key, size_t keysz, char *value, size_t valsz)
{
	int n, j;

	snprintf(key, keysz, "key-%02d", i);
	n = snprintf(value, valsz, "compressible value %02d ", i);
	for (j = 0; j < 20; j++)
		n += snprintf(value + n, valsz - (size_t)n, "abc");
}

/*
 * Walk a batch (a compressed one through z) and compare every record with
 * want[], then with nextra of the extra records.
 */
static void
check_records_z(const uint8_t *buf, size_t len, int64_t base,
    const struct compress_buf *z, int nextra)
{
	struct batch_iter it;
	struct record r;
	struct record_header_iter hi;
	struct record_header h;
	char key[16], value[128];
	int i, k;

	CU_ASSERT_EQUAL_FATAL(batch_iter_init_z(&it, buf, len, z), BATCH_OK);
	for (i = 0; i < NWANT; i++) {
		CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
		CU_ASSERT_EQUAL(r.offset, base + i);
		CU_ASSERT_EQUAL(r.timestamp, want[i].ts);
		check_bytes(r.key, r.key_len, want[i].key, want[i].key_len);
		check_bytes(r.value, r.value_len, want[i].value,
		    want[i].value_len);
		CU_ASSERT_EQUAL_FATAL(r.header_count, want[i].nh);
		record_header_iter_init(&hi, &r);
		for (k = 0; k < want[i].nh; k++) {
			CU_ASSERT_EQUAL_FATAL(record_header_next(&hi, &h), 1);
			check_bytes(h.key, h.key_len, want[i].h[k].key,
			    (int32_t)strlen(want[i].h[k].key));
			check_bytes(h.value, h.value_len, want[i].h[k].value,
			    want[i].h[k].value_len);
		}
		CU_ASSERT_EQUAL(record_header_next(&hi, &h), 0);
	}
	for (i = 0; i < nextra; i++) {
		extra_record(i, key, sizeof(key), value, sizeof(value));
		CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
		CU_ASSERT_EQUAL(r.offset, base + NWANT + i);
		CU_ASSERT_EQUAL(r.timestamp, EXTRA_TS(i));
		check_bytes(r.key, r.key_len, key, (int32_t)strlen(key));
		check_bytes(r.value, r.value_len, value, (int32_t)strlen(value));
		CU_ASSERT_EQUAL(r.header_count, 0);
	}
	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 0);
}

static void
check_records(const uint8_t *buf, size_t len, int64_t base)
{
	check_records_z(buf, len, base, NULL, 0);
}

/* Build want[] with Flume's builder, compressed with codec. */
static void
build_want_codec(struct batch_builder *b, int codec, const uint8_t **out,
    size_t *len)
{
	struct record_header rh[2];
	int i, k;

	for (i = 0; i < NWANT; i++) {
		for (k = 0; k < want[i].nh; k++) {
			rh[k].key = (const uint8_t *)want[i].h[k].key;
			rh[k].key_len = (int32_t)strlen(want[i].h[k].key);
			rh[k].value = (const uint8_t *)want[i].h[k].value;
			rh[k].value_len = want[i].h[k].value_len;
		}
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(b, want[i].ts,
		    want[i].key, want[i].key_len, want[i].value,
		    want[i].value_len, rh, want[i].nh), 0);
	}
	CU_ASSERT_EQUAL_FATAL(batch_builder_close_codec(b, codec, out, len), 0);
}

static void
build_want(struct batch_builder *b, const uint8_t **out, size_t *len)
{
	build_want_codec(b, COMPRESS_NONE, out, len);
}

static void
test_decode_kafka_python_batch(void)
{
	struct batch_header h;
	struct batch_builder b;
	const uint8_t *mine;
	uint8_t *buf;
	size_t len = 0, mine_len = 0;
	char path[1200];

	snprintf(path, sizeof(path), "%s/%s", srcdir, FIXTURE);
	buf = slurp(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL(len, 218);

	CU_ASSERT_EQUAL_FATAL(batch_validate(buf, len, &h), BATCH_OK);
	CU_ASSERT_EQUAL(h.base_offset, 0);
	CU_ASSERT_EQUAL(h.length, 218 - 12);
	CU_ASSERT_EQUAL(h.leader_epoch, 0);	/* kafka-python writes 0 */
	CU_ASSERT_EQUAL(h.magic, 2);
	CU_ASSERT_EQUAL(h.crc, 0x6bc3158aU);
	CU_ASSERT_EQUAL(h.crc, crc32c(0, buf + 21, len - 21));
	CU_ASSERT_EQUAL(h.attributes, 0);
	CU_ASSERT_EQUAL(h.last_offset_delta, NWANT - 1);
	CU_ASSERT_EQUAL(h.first_timestamp, BASE_TS);
	CU_ASSERT_EQUAL(h.max_timestamp, BASE_TS + 9);
	CU_ASSERT_EQUAL(h.producer_id, -1);
	CU_ASSERT_EQUAL(h.producer_epoch, -1);
	CU_ASSERT_EQUAL(h.base_sequence, -1);
	CU_ASSERT_EQUAL(h.records_count, NWANT);
	check_records(buf, len, 0);

	/* As the broker stores it: rebased, still valid. */
	batch_set_base_offset(buf, 1000);
	CU_ASSERT_EQUAL(batch_validate(buf, len, NULL), BATCH_OK);
	CU_ASSERT_EQUAL(batch_last_offset(buf), 1000 + NWANT - 1);
	check_records(buf, len, 1000);

	/*
	 * Flume's builder makes the same bytes, apart from the leader epoch
	 * (Flume writes -1 = unknown, as the Java client does): so the CRC
	 * is the same too.
	 */
	batch_builder_init(&b);
	build_want(&b, &mine, &mine_len);
	CU_ASSERT_EQUAL_FATAL(mine_len, len);
	CU_ASSERT_EQUAL(memcmp(mine + 8, buf + 8, 4), 0);
	CU_ASSERT_EQUAL(be32_get(mine + BATCH_OFF_EPOCH), 0xffffffffU);
	CU_ASSERT_EQUAL(memcmp(mine + 16, buf + 16, len - 16), 0);
	batch_builder_free(&b);
	free(buf);
}

/* Run the checker; its exit status, or -1 if it did not exit normally. */
static int
run_checker_codec(const char *file, int codec, char **expected, int nexp)
{
	char script[1200], codecarg[8], *argv[16];
	pid_t pid;
	int st, i, devnull;

	snprintf(script, sizeof(script), "%s/%s", srcdir, CHECKER);
	snprintf(codecarg, sizeof(codecarg), "%d", codec);
	CU_ASSERT_FATAL(nexp + 6 <= 16);
	argv[0] = PYTHON;
	argv[1] = script;
	argv[2] = "--codec";
	argv[3] = codecarg;
	argv[4] = (char *)file;
	for (i = 0; i < nexp; i++)
		argv[5 + i] = expected[i];
	argv[5 + nexp] = NULL;
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		/* Keep the test output clean; failures show as status. */
		if ((devnull = open("/dev/null", O_WRONLY)) != -1)
			dup2(devnull, STDOUT_FILENO);
		execv(PYTHON, argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
run_checker(const char *file, char **expected, int nexp)
{
	return run_checker_codec(file, COMPRESS_NONE, expected, nexp);
}

static char *
hex_field(const char *p, int32_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *s;
	int32_t i;

	if (len < 0)
		return strdup("-");
	s = malloc((size_t)len * 2 + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (i = 0; i < len; i++) {
		s[2 * i] = digits[(uint8_t)p[i] >> 4];
		s[2 * i + 1] = digits[(uint8_t)p[i] & 0xf];
	}
	s[2 * len] = '\0';
	return s;
}

/* "KEY|VALUE|HK=HV..." as kafka_check.py takes it. */
static char *
expected_arg(int i)
{
	char *k, *v, *hv, *s, *t;
	int j;

	k = hex_field(want[i].key, want[i].key_len);
	v = hex_field(want[i].value, want[i].value_len);
	CU_ASSERT_FATAL(asprintf(&s, "%s|%s", k, v) != -1);
	free(k);
	free(v);
	for (j = 0; j < want[i].nh; j++) {
		hv = hex_field(want[i].h[j].value, want[i].h[j].value_len);
		CU_ASSERT_FATAL(asprintf(&t, "%s|%s=%s", s, want[i].h[j].key,
		    hv) != -1);
		free(hv);
		free(s);
		s = t;
	}
	return s;
}

static int
write_file(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (f == NULL)
		return -1;
	ok = fwrite(p, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void
test_kafka_python_reads_flume_batch(void)
{
	struct batch_builder b;
	const uint8_t *out;
	uint8_t *copy;
	char *dir, *file, *exp[NWANT], *saved;
	size_t len;
	int i;

	batch_builder_init(&b);
	build_want(&b, &out, &len);
	copy = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, len);
	batch_set_base_offset(copy, 500);

	dir = test_mkdtemp("kafka");
	CU_ASSERT_FATAL(asprintf(&file, "%s/batch.bin", dir) != -1);
	CU_ASSERT_EQUAL_FATAL(write_file(file, copy, len), 0);
	for (i = 0; i < NWANT; i++)
		exp[i] = expected_arg(i);

	CU_ASSERT_EQUAL(run_checker(file, exp, NWANT), 0);

	/* The checker can fail: a wrong expectation ... */
	saved = exp[2];
	exp[2] = "686472|74776f2068656164657273|trace-id=6162632d313233";
	CU_ASSERT_EQUAL(run_checker(file, exp, NWANT), 1);
	exp[2] = saved;
	CU_ASSERT_EQUAL(run_checker(file, exp, NWANT - 1), 1);
	/* ... and a corrupted byte under the CRC. */
	copy[len - 3] ^= 0x20;
	CU_ASSERT_EQUAL_FATAL(write_file(file, copy, len), 0);
	CU_ASSERT_EQUAL(run_checker(file, exp, NWANT), 1);

	for (i = 0; i < NWANT; i++)
		free(exp[i]);
	test_rmtree(dir);
	free(dir);
	free(file);
	free(copy);
	batch_builder_free(&b);
}

static const struct {
	int		 codec;
	const char	*file;
} zfix[] = {
	{ COMPRESS_GZIP, "tests/fixtures/kafka_python_batch_gzip.bin" },
	{ COMPRESS_SNAPPY, "tests/fixtures/kafka_python_batch_snappy.bin" },
	{ COMPRESS_LZ4, "tests/fixtures/kafka_python_batch_lz4.bin" },
	{ COMPRESS_ZSTD, "tests/fixtures/kafka_python_batch_zstd.bin" },
};
#define NZFIX	((int)(sizeof(zfix) / sizeof(zfix[0])))

/*
 * Batches kafka-python compressed with each codec (snappy in the xerial
 * framing): valid, stored as they are, and read back record for record.
 */
static void
test_decode_kafka_python_compressed(void)
{
	struct batch_header h;
	struct compress_buf z;
	uint8_t *buf;
	size_t len = 0;
	char path[1200];
	int i;

	for (i = 0; i < NZFIX; i++) {
		snprintf(path, sizeof(path), "%s/%s", srcdir, zfix[i].file);
		buf = slurp(path, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		CU_ASSERT_EQUAL(be16_get(buf + BATCH_OFF_ATTRIBUTES) &
		    BATCH_COMPRESSION_MASK, zfix[i].codec);
		if (zfix[i].codec == COMPRESS_SNAPPY)
			CU_ASSERT_EQUAL(buf[BATCH_HEADER_SIZE], 0x82);
		/* Without an inflate buffer it is refused, not misread. */
		CU_ASSERT_EQUAL(batch_validate(buf, len, NULL),
		    BATCH_ECOMPRESSION);
		compress_buf_init(&z, 1 << 20);
		CU_ASSERT_EQUAL_FATAL(batch_validate_z(buf, len, &h, &z),
		    BATCH_OK);
		CU_ASSERT_EQUAL(h.records_count, NWANT + NEXTRA);
		CU_ASSERT_EQUAL(h.last_offset_delta, NWANT + NEXTRA - 1);
		CU_ASSERT_EQUAL(h.first_timestamp, BASE_TS);
		CU_ASSERT_EQUAL(h.max_timestamp, EXTRA_TS(NEXTRA - 1));
		check_records_z(buf, len, 0, &z, NEXTRA);
		/* Rebased as the broker stores it. */
		batch_set_base_offset(buf, 7000);
		CU_ASSERT_EQUAL_FATAL(batch_validate_z(buf, len, NULL, &z),
		    BATCH_OK);
		check_records_z(buf, len, 7000, &z, NEXTRA);
		compress_buf_free(&z);
		free(buf);
	}
}

/* Batches Flume compresses, each codec, decoded by kafka-python exactly. */
static void
test_kafka_python_reads_flume_compressed(void)
{
	static const int codecs[] = { COMPRESS_GZIP, COMPRESS_SNAPPY,
	    COMPRESS_LZ4, COMPRESS_ZSTD };
	struct batch_builder b;
	const uint8_t *out;
	char *dir, *file, *exp[NWANT];
	size_t len;
	int i, c;

	dir = test_mkdtemp("kafkaz");
	CU_ASSERT_FATAL(asprintf(&file, "%s/batch.bin", dir) != -1);
	for (i = 0; i < NWANT; i++)
		exp[i] = expected_arg(i);
	for (c = 0; c < 4; c++) {
		batch_builder_init(&b);
		build_want_codec(&b, codecs[c], &out, &len);
		CU_ASSERT_EQUAL(be16_get(out + BATCH_OFF_ATTRIBUTES), codecs[c]);
		CU_ASSERT_EQUAL_FATAL(write_file(file, out, len), 0);
		CU_ASSERT_EQUAL(run_checker_codec(file, codecs[c], exp, NWANT),
		    0);
		/* The checker does look: the wrong codec, one record short. */
		CU_ASSERT_EQUAL(run_checker_codec(file, codecs[(c + 1) % 4],
		    exp, NWANT), 1);
		CU_ASSERT_EQUAL(run_checker_codec(file, codecs[c], exp,
		    NWANT - 1), 1);
		batch_builder_free(&b);
	}
	for (i = 0; i < NWANT; i++)
		free(exp[i]);
	test_rmtree(dir);
	free(dir);
	free(file);
}

TEST_SUITE("kafka_compat", setup, NULL,
    { "decode a kafka-python batch", test_decode_kafka_python_batch },
    { "kafka-python reads a Flume batch",
	test_kafka_python_reads_flume_batch },
    { "decode kafka-python's compressed batches",
	test_decode_kafka_python_compressed },
    { "kafka-python reads Flume's compressed batches",
	test_kafka_python_reads_flume_compressed });
