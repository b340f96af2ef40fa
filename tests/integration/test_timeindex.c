/*
 * Time indexes from the outside: 10,000 messages with increasing
 * timestamps set by a confluent-kafka producer, then `flume-consume -o @T`
 * (epoch ms, ISO 8601, relative) and confluent-kafka offsets_for_times
 * start exactly at the first message with timestamp >= T, also after
 * every .timeindex file is deleted and the broker restarted; retention by
 * age deletes exactly the segments whose max timestamp is old (the files
 * themselves are new); compressed batches from confluent-kafka (gzip,
 * snappy, lz4, zstd) and kafka-python (gzip) come back intact through
 * kcat, flume-consume and kafka-python; a log_append topic stores broker
 * time and the rewritten CRC validates in both Kafka clients.
 * tests/tools/timeindex_clients.py drives the Python clients.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clients/flume.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define CLIENTS		"tests/tools/timeindex_clients.py"
#define NMSG		10000
#define T0		1700000000000LL		/* 2023-11-14T22:13:20Z */
#define STEP		10

static struct flumed d;

static int
setup(void)
{
	return flumed_start_kafka(&d, NULL, "partitions = 1\n"
	    "flush_interval_ms = 50ms\n"
	    "retention_check_ms = 100ms\n"
	    "[topic ti]\nsegment_bytes = 4K\nindex_interval_bytes = 512\n"
	    "retention_ms = -1\n"
	    "[topic ret]\nsegment_bytes = 4K\nretention_ms = 1h\n"
	    "[topic rel]\nretention_ms = -1\n"
	    "[topic z]\nretention_ms = -1\n"
	    "[topic la]\nretention_ms = -1\n"
	    "message_timestamp_type = log_append\n");
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

static int64_t
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Run a shell command line (bounded by coreutils timeout), its stdout
 * (stderr goes to the test's) into *out, malloc'ed; the exit status.
 */
static int
run_sh(char **out, const char *fmt, ...)
{
	char cmd[16384], *buf;
	size_t len = 0, cap = 1 << 16;
	va_list ap;
	FILE *f;
	size_t n;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	if ((f = popen(cmd, "r")) == NULL || (buf = malloc(cap)) == NULL)
		return -1;
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	st = pclose(f);
	if (out != NULL)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
py(char **out, const char *args)
{
	return run_sh(out, "timeout 120 /usr/bin/python3 %s %s", CLIENTS, args);
}

/* flume-consume -t topic -p 0 -o at -e [-n count], "%o %v" lines. */
static char *
consume(const char *topic, const char *at, const char *count)
{
	const char *argv[] = { "flume-consume", "-t", topic, "-p", "0", "-o",
	    at, "-e", "-f", "%o %v\\n", count != NULL ? "-n" : NULL, count,
	    NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
	return out;
}

static void
expect_at(const char *at, long long off)
{
	char want[64], *out;

	if (off < 0)
		want[0] = '\0';
	else
		snprintf(want, sizeof(want), "%lld m%lld\n", off, off);
	out = consume("ti", at, "1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (strcmp(out, want) != 0)
		fprintf(stderr, "-o %s: got '%s' want '%s'\n", at, out, want);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
}

/* The answers for one state of the log; the same before and after. */
static void
check_times(void)
{
	static const long long ks[] = { 0, 1, 2, 777, 1234, 5000, 9998 };
	char args[1024], want[512], at[64], *out = NULL;
	size_t i, o, w;

	/* T = T0 + STEP*k + 5: the first message >= T is k + 1. */
	o = (size_t)snprintf(args, sizeof(args), "times %s ti %lld %lld",
	    d.kbroker, T0 - 1, T0);
	w = (size_t)snprintf(want, sizeof(want), "offsets_for_times: 0 0");
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		o += (size_t)snprintf(args + o, sizeof(args) - o, " %lld",
		    T0 + STEP * ks[i] + 5);
		w += (size_t)snprintf(want + w, sizeof(want) - w, " %lld",
		    ks[i] + 1);
		snprintf(at, sizeof(at), "@%lld", T0 + STEP * ks[i] + 5);
		expect_at(at, ks[i] + 1);
	}
	snprintf(args + o, sizeof(args) - o, " %lld %lld",
	    T0 + STEP * (NMSG - 1), T0 + STEP * NMSG);
	snprintf(want + w, sizeof(want) - w, " %d -1\n", NMSG - 1);
	CU_ASSERT_EQUAL(py(&out, args), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);

	/* kafka-python: the found record's offset and its timestamp. */
	o = (size_t)snprintf(args, sizeof(args), "ktimes %s ti %lld",
	    d.kbroker, T0 - 1);
	w = (size_t)snprintf(want, sizeof(want),
	    "kafka-python offsets_for_times: 0@%lld", T0);
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		o += (size_t)snprintf(args + o, sizeof(args) - o, " %lld",
		    T0 + STEP * ks[i] + 5);
		w += (size_t)snprintf(want + w, sizeof(want) - w, " %lld@%lld",
		    ks[i] + 1, T0 + STEP * (ks[i] + 1));
	}
	snprintf(args + o, sizeof(args) - o, " %lld", T0 + STEP * NMSG);
	snprintf(want + w, sizeof(want) - w, " None\n");
	CU_ASSERT_EQUAL(py(&out, args), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);

	expect_at("@1700000000000", 0);
	snprintf(at, sizeof(at), "@%lld", T0 + STEP * (NMSG - 1));
	expect_at(at, NMSG - 1);
	snprintf(at, sizeof(at), "@%lld", T0 + STEP * NMSG);
	expect_at(at, -1);
	/* ISO 8601: T0 + 12345 ms is message 1235 (12350 ms). */
	expect_at("@2023-11-14T22:13:32.345Z", 1235);
	expect_at("@2023-11-14T23:13:32.345+01:00", 1235);
	expect_at("@2023-11-14T17:13:32.340-0500", 1234);
	expect_at("@2023-11-14T22:13:20Z", 0);
}

/* flume-admin group reset --to-time, in ms and as ISO 8601. */
static void
check_group_reset(void)
{
	static const char *const at[] = { "1700000012345",
	    "@2023-11-14T22:13:32.345Z", "@2023-11-14T22:15:00Z" };
	static const long long want[] = { 1235, 1235, 10000 };
	struct flume_client *c;
	int64_t off;
	char *out = NULL;
	size_t i;

	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		const char *argv[] = { "flume-admin", "group", "G", "reset",
		    "-t", "ti", "-p", "0", "--to-time", at[i], NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 15000, argv), 0);
		free(out);
		off = -2;
		CU_ASSERT_PTR_NOT_NULL_FATAL(c = flume_connect(d.broker));
		CU_ASSERT_EQUAL(flume_committed_offset(c, "G", "ti", 0, &off),
		    0);
		flume_close(c);
		CU_ASSERT_EQUAL(off, want[i]);
	}
}

static int
count_files(const char *dir, const char *ext, int64_t below)
{
	struct dirent *de;
	DIR *dd;
	size_t el = strlen(ext);
	int n = 0;

	if ((dd = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(dd)) != NULL) {
		size_t l = strlen(de->d_name);

		if (l == 20 + el && strcmp(de->d_name + 20, ext) == 0 &&
		    strtoll(de->d_name, NULL, 10) < below)
			n++;
	}
	closedir(dd);
	return n;
}

static void
test_offsets_for_times(void)
{
	char args[256], dir[700], path[1024], *out = NULL;
	struct dirent *de;
	DIR *dd;
	int nseg, n = 0;

	snprintf(args, sizeof(args), "produce %s ti %d %lld %d", d.kbroker, NMSG,
	    T0, STEP);
	CU_ASSERT_EQUAL_FATAL(py(&out, args), 0);
	CU_ASSERT_STRING_EQUAL(out, "produced 10000, 0 unacked, 0 errors\n");
	free(out);
	/* Everything visible to the readers before looking. */
	out = consume("ti", "9999", "1");
	CU_ASSERT_STRING_EQUAL(out, "9999 m9999\n");
	free(out);
	snprintf(dir, sizeof(dir), "%s/ti/partition-0", d.data);
	nseg = count_files(dir, ".log", INT64_MAX);
	if (nseg < 20)
		fprintf(stderr, "ti: %d segments\n", nseg);
	CU_ASSERT(nseg >= 20);
	CU_ASSERT_EQUAL(count_files(dir, ".timeindex", INT64_MAX), nseg);
	check_times();

	/* No time index at all, then a restart: rebuilt, same answers. */
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dd = opendir(dir));
	while ((de = readdir(dd)) != NULL) {
		if (strstr(de->d_name, ".timeindex") == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		CU_ASSERT(unlink(path) == 0);
		n++;
	}
	closedir(dd);
	CU_ASSERT_EQUAL(n, nseg);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT(flumed_log_count(&d, "ti/0: rebuilt the time index") == 1);
	CU_ASSERT_EQUAL(count_files(dir, ".timeindex", INT64_MAX), nseg);
	check_times();
	check_group_reset();
}

/* -o -1h and friends, against timestamps relative to now. */
static void
test_relative(void)
{
	char args[256], *out = NULL, want[128];
	int64_t now = wall_ms();

	snprintf(args, sizeof(args), "produce_ts %s rel %lld,%lld,%lld",
	    d.kbroker, (long long)(now - 3 * 3600000),
	    (long long)(now - 5400000), (long long)(now - 600000));
	CU_ASSERT_EQUAL_FATAL(py(&out, args), 0);
	free(out);
	out = consume("rel", "2", "1");	/* wait until visible */
	free(out);
	out = consume("rel", "-1h", NULL);
	snprintf(want, sizeof(want), "2 at%lld\n", (long long)(now - 600000));
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	out = consume("rel", "-2h", NULL);
	snprintf(want, sizeof(want), "1 at%lld\n2 at%lld\n",
	    (long long)(now - 5400000), (long long)(now - 600000));
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	out = consume("rel", "-1d", "1");
	snprintf(want, sizeof(want), "0 at%lld\n", (long long)(now - 3 * 3600000));
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	out = consume("rel", "-5m", NULL);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	/* Bad times: exit 2 and a message (the three lines on stderr). */
	{
		const char *argv[] = { "flume-consume", "-t", "rel", "-o",
		    "@2026-13-01T00:00:00Z", "-e", NULL };
		const char *argv2[] = { "flume-consume", "-t", "rel", "-o",
		    "@2026-12-01T14:00:00", "-e", NULL };
		const char *argv3[] = { "flume-consume", "-t", "rel", "-o",
		    "-1w", "-e", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, argv), 2);
		CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, argv2), 2);
		CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, argv3), 2);
	}
}

/*
 * 300 messages three hours old, then 300 new ones: the segments holding
 * only old ones go, although every file was written just now.
 */
static void
test_retention_by_age(void)
{
	char args[8192], dir[700], *out = NULL, want[64];
	int64_t now = wall_ms(), keep = -1;
	long long deadline;
	size_t o;
	int i, nlog, left;
	struct dirent *de;
	DIR *dd;

	for (i = 0; i < 2; i++) {
		int j;

		o = (size_t)snprintf(args, sizeof(args), "produce_ts %s ret ",
		    d.kbroker);
		for (j = 0; j < 300; j++)
			o += (size_t)snprintf(args + o, sizeof(args) - o, "%s%lld",
			    j ? "," : "", (long long)(i == 0 ?
			    now - 3 * 3600000 + j : now + j));
		CU_ASSERT_EQUAL_FATAL(py(&out, args), 0);
		free(out);
	}
	snprintf(dir, sizeof(dir), "%s/ret/partition-0", d.data);
	/* The segment that holds offset 300, the first new message. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(dd = opendir(dir));
	while ((de = readdir(dd)) != NULL) {
		int64_t b;

		if (strlen(de->d_name) != 24 || strstr(de->d_name, ".log") == NULL)
			continue;
		b = strtoll(de->d_name, NULL, 10);
		if (b <= 300 && b > keep)
			keep = b;
	}
	closedir(dd);
	CU_ASSERT_FATAL(keep > 0);
	/* Bounded wait for retention (checked every 100 ms). */
	deadline = support_now_ms() + 10000;
	while ((left = count_files(dir, ".log", keep)) > 0 &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);	/* polling the directory, bounded */
	if (left != 0) {
		run_sh(&out, "ls -la %s; grep -i retent %s", dir, d.log);
		fprintf(stderr, "keep %lld\n%s\n", (long long)keep, out);
		free(out);
	}
	CU_ASSERT_EQUAL(left, 0);
	CU_ASSERT_EQUAL(count_files(dir, ".timeindex", keep), 0);
	CU_ASSERT_EQUAL(count_files(dir, ".index", keep), 0);
	nlog = count_files(dir, ".log", INT64_MAX);
	CU_ASSERT(nlog >= 1);
	CU_ASSERT_EQUAL(count_files(dir, ".timeindex", INT64_MAX), nlog);
	/* And nothing newer went: the earliest offset is that segment's. */
	out = consume("ret", "beginning", "1");
	snprintf(want, sizeof(want), "%lld at", (long long)keep);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT(strncmp(out, want, strlen(want)) == 0);
	free(out);
}

#define ZN	50
#define NCODEC	4

/* The values the codecs command sends, in order, one per line. */
static char *
codec_values(void)
{
	static const char *const names[NCODEC] = { "gzip", "snappy", "lz4",
	    "zstd" };
	char pad[201], *buf, *p;
	size_t i;
	int j;

	memset(pad, 'x', 200);
	pad[200] = '\0';
	if ((buf = malloc(NCODEC * ZN * 300)) == NULL)
		return NULL;
	p = buf;
	for (i = 0; i < NCODEC; i++)
		for (j = 0; j < ZN; j++)
			p += sprintf(p, "%ld %s-%d-%s\n", (long)(i * ZN +
			    (size_t)j), names[i], j, pad);
	return buf;
}

/* Records per codec (attributes bits 0-2) in the one segment at path. */
static void
codecs_on_disk(const char *path, int *recs, int *batches)
{
	uint8_t h[61];
	long pos = 0;
	FILE *f;
	int c;

	memset(recs, 0, 8 * sizeof(*recs));
	*batches = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "rb"));
	while (*batches < 100000 && fseek(f, pos, SEEK_SET) == 0 &&
	    fread(h, 1, sizeof(h), f) == sizeof(h)) {
		c = h[22] & 7;
		recs[c] += (int)((uint32_t)h[57] << 24 | (uint32_t)h[58] << 16 |
		    (uint32_t)h[59] << 8 | h[60]);
		pos += 12 + (long)((uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 |
		    (uint32_t)h[10] << 8 | h[11]);
		(*batches)++;
	}
	fclose(f);
}

/*
 * Compressed batches through the Kafka listener, from kafka-python with
 * each codec: the native produce's validation (batch_validate_z) takes
 * them, the log keeps them compressed, every reader gets the values.
 */
static void
test_compressed_kafka(void)
{
	char args[256], path[800], *out = NULL, *want;
	const char *argv[] = { "flume-consume", "-t", "z", "-p", "0", "-o",
	    "beginning", "-e", "-f", "%o %v\\n", NULL };
	int recs[8], nb, c;

	snprintf(args, sizeof(args), "codecs %s z %d", d.kbroker, ZN);
	CU_ASSERT_EQUAL_FATAL(py(&out, args), 0);
	CU_ASSERT_STRING_EQUAL(out, "kafka-python read 200 of 200, 0 differ\n");
	free(out);

	want = codec_values();
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	CU_ASSERT_EQUAL(run_sh(&out, "timeout 60 /usr/bin/kcat -b %s -C -t z "
	    "-p 0 -o beginning -e -q -f '%%o %%s\\n'", d.kbroker), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	free(want);
	/* Stored as they came: ZN records under each codec, none plain. */
	snprintf(path, sizeof(path), "%s/z/partition-0/%020d.log", d.data, 0);
	codecs_on_disk(path, recs, &nb);
	CU_ASSERT(nb >= NCODEC);
	CU_ASSERT_EQUAL(recs[0], 0);
	for (c = 1; c <= NCODEC; c++)
		CU_ASSERT_EQUAL(recs[c], ZN);
}

/*
 * Kafka's error codes for compressed batches the native validation
 * refuses, from raw Produce v3 requests: a zstd bomb (1 GiB of zeros)
 * MESSAGE_TOO_LARGE (10), gzip that does not inflate CORRUPT_MESSAGE (2),
 * codec 5 UNSUPPORTED_COMPRESSION_TYPE (76); each logged once; none took
 * an offset, so the plain batch after them is offset 0.
 */
static void
test_kafka_compression_errors(void)
{
	char args[256], *out = NULL;
	int n0 = flumed_log_count(&d, "compressed batch refused");

	snprintf(args, sizeof(args), "kerrors %s kz", d.kbroker);
	CU_ASSERT_EQUAL_FATAL(py(&out, args), 0);
	CU_ASSERT_STRING_EQUAL(out, "errors: 10 2 76, then 0 at 0\n");
	free(out);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "compressed batch refused"),
	    n0 + 3);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "batch inflates past the limit"),
	    1);
	out = consume("kz", "beginning", NULL);
	CU_ASSERT_STRING_EQUAL(out, "0 ok\n");
	free(out);
}

/*
 * message_timestamp_type = log_append: producers say 1000, the log says
 * when the broker took the batch, and both clients check the CRC the
 * broker wrote (confluent-kafka with check.crcs).
 */
static void
test_log_append(void)
{
	char args[256], want[128], *out = NULL, *line, *save = NULL, v[32];
	char who[32];
	int64_t before, after;
	long long ts, first = -1;
	int type, nkp = 0, nck = 0;

	before = wall_ms();
	snprintf(args, sizeof(args), "stamps %s la 5", d.kbroker);
	CU_ASSERT_EQUAL_FATAL(py(&out, args), 0);
	after = wall_ms();
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		CU_ASSERT_EQUAL_FATAL(sscanf(line, "%31s %31s type %d ts %lld",
		    who, v, &type, &ts), 4);
		CU_ASSERT(ts >= before && ts <= after);
		if (strcmp(who, "kafka-python") == 0) {
			CU_ASSERT_EQUAL(type, 1);	/* LogAppendTime */
			if (nkp == 0)
				first = ts;
			nkp++;
		} else {
			CU_ASSERT_STRING_EQUAL(who, "confluent-kafka");
			CU_ASSERT_EQUAL(type, 2);	/* LOG_APPEND_TIME */
			nck++;
		}
	}
	CU_ASSERT_EQUAL(nkp, 5);
	CU_ASSERT_EQUAL(nck, 5);
	free(out);
	/* A time lookup answers the broker's time, not the producer's. */
	snprintf(args, sizeof(args), "ktimes %s la 0 %lld", d.kbroker,
	    (long long)after + 60000);
	snprintf(want, sizeof(want), "kafka-python offsets_for_times: 0@%lld "
	    "None\n", first);
	CU_ASSERT_EQUAL(py(&out, args), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	/* flume-consume prints the same broker time (%T). */
	{
		const char *argv[] = { "flume-consume", "-t", "la", "-p", "0",
		    "-o", "beginning", "-e", "-f", "%T\\n", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		ts = atoll(out);
		CU_ASSERT(ts >= before && ts <= after);
		free(out);
	}
}

TEST_SUITE("timeindex", setup, teardown,
    { "offsets_for_times and -o @T, also after a rebuild",
	test_offsets_for_times },
    { "-o -1h", test_relative },
    { "retention by the max timestamp", test_retention_by_age },
    { "compressed batches from Kafka clients", test_compressed_kafka },
    { "Kafka errors for bad compressed batches",
	test_kafka_compression_errors },
    { "message_timestamp_type = log_append", test_log_append });
