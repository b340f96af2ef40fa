/*
 * The Kafka listener with unmodified Kafka clients (Debian's kcat,
 * python3-kafka and python3-confluent-kafka; tests/tools/kafka_clients.py
 * drives the Python ones), raw Kafka frames for exact error codes, and
 * bad input on the Kafka port.  The broker listens for Kafka on a free
 * loopback port of its own.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/crc32c.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kheader.h"
#include "proto/kafka/kmsg_fetch.h"
#include "proto/kafka/kmsg_listoff.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/kafka/kmsgset.h"
#include "proto/names.h"
#include "proto/wire.h"
#include "store/topic.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define PYTHON		"/usr/bin/python3"
#define KCAT		"/usr/bin/kcat"
#define CLIENTS		"tests/tools/kafka_clients.py"
#define FIXTURES	"tests/fixtures/kafka_codec"
#define BATCH_FIXTURE	"tests/fixtures/kafka_python_batch.bin"
#define MSGSET_FIXTURES	"tests/fixtures/kmsgset"
#define IDEM_MESSAGES	100000

static struct flumed d;
static int kport, mport;
static char kbroker[64];
static pid_t workers_before[2];

static int
setup(void)
{
	char extra[768];

	if ((kport = support_free_port()) <= 0 ||
	    (mport = support_free_port()) <= 0 || mport == kport)
		return -1;
	snprintf(kbroker, sizeof(kbroker), "127.0.0.1:%d", kport);
	/* Every refusal logged: the bad-input test counts them. */
	snprintf(extra, sizeof(extra), "partitions = 3\n"
	    "client_log_interval_ms = 0\n"
	    "metrics_listen = 127.0.0.1:%d\n"
	    "kafka_listen = %s\nflush_interval_ms = 100ms\n"
	    "max_message_bytes = 256K\n"
	    "[topic t1]\npartitions = 1\n[topic t3]\npartitions = 3\n"
	    "[topic t5]\npartitions = 1\n[topic t7]\npartitions = 1\n"
	    "[topic tm0]\npartitions = 1\n[topic tm1]\npartitions = 1\n",
	    mport, kbroker);
	if (flumed_start(&d, extra) != 0)
		return -1;
	workers_before[0] = flumed_child_pid(&d, "worker", 0);
	workers_before[1] = flumed_child_pid(&d, "worker", 1);
	return workers_before[0] > 0 && workers_before[1] > 0 ? 0 : -1;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* A whole small file; NULL on failure. */
static char *
slurp(const char *path, size_t *len)
{
	char *buf;
	FILE *f;
	long sz;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 ||
	    sz > (8 << 20) || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)sz + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fclose(f);
		free(buf);
		return NULL;
	}
	buf[sz] = '\0';
	fclose(f);
	if (len != NULL)
		*len = (size_t)sz;
	return buf;
}

/*
 * Run path with argv, input on stdin; stdout in *out, stderr in *err
 * (malloc'ed; either may be NULL).  Killed after timeout_ms.  The exit
 * status, or -1.
 */
static int
run_cmd(const char *path, const char *const argv[], const char *input,
    char **out, char **err, int timeout_ms)
{
	char *dir, fin[600], fout[600], ferr[600];
	long long deadline;
	int status = -1, fd;
	pid_t pid, r;
	FILE *f;

	dir = test_mkdtemp("kcmd");
	snprintf(fin, sizeof(fin), "%s/in", dir);
	snprintf(fout, sizeof(fout), "%s/out", dir);
	snprintf(ferr, sizeof(ferr), "%s/err", dir);
	if ((f = fopen(fin, "w")) == NULL)
		return -1;
	if (input != NULL)
		fputs(input, f);
	fclose(f);
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if ((fd = open(fin, O_RDONLY)) != -1)
			dup2(fd, STDIN_FILENO);
		if ((fd = open(fout, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
			dup2(fd, STDOUT_FILENO);
		if ((fd = open(ferr, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
			dup2(fd, STDERR_FILENO);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	deadline = support_now_ms() + timeout_ms;
	for (;;) {
		if ((r = waitpid(pid, &status, WNOHANG)) == pid)
			break;
		if (r == -1 && errno != EINTR) {
			status = -1;
			break;
		}
		if (support_now_ms() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -1;
			break;
		}
		usleep(5 * 1000);	/* polling the child's exit, bounded */
	}
	if (out != NULL)
		*out = slurp(fout, NULL);
	if (err != NULL)
		*err = slurp(ferr, NULL);
	test_rmtree(dir);
	free(dir);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* kcat -b KAFKA args... NULL; exit status, output in *out (and *err). */
static int
kcat(const char *input, char **out, char **err, ...)
{
	const char *argv[24] = { "kcat", "-b", kbroker };
	va_list ap;
	int n = 3;

	va_start(ap, err);
	while (n < 23 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_cmd(KCAT, argv, input, out, err, 30000);
}

/* tests/tools/kafka_clients.py args...; exit status, stdout in *out. */
static int
clients(char **out, const char *a1, const char *a2, const char *a3,
    const char *a4, int timeout_ms)
{
	const char *argv[] = { PYTHON, CLIENTS, a1, kbroker, a2, a3, a4, NULL };

	return run_cmd(PYTHON, argv, NULL, out, NULL, timeout_ms);
}

static void
test_kcat_lists_the_broker(void)
{
	char *out = NULL, want[128];

	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, "-L", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	snprintf(want, sizeof(want), "  broker 0 at %s (controller)\n", kbroker);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, " 1 brokers:\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(out);
}

static void
test_kcat_produce_then_consume(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(kcat("a\nb\n", NULL, NULL, "-P", "-t", "t1", "-k", "k",
	    NULL), 0);
	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, "-C", "-t", "t1", "-o",
	    "beginning", "-e", "-f", "%k=%s@%o\\n", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "k=a@0\nk=b@1\n");
	free(out);
	/* The topic is listed now, led by node 0. */
	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, "-L", "-t", "t1", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  topic \"t1\" with 1 partitions:\n"
	    "    partition 0, leader 0, replicas: 0, isrs: 0\n"));
	free(out);
}

/* An offset past the end: OFFSET_OUT_OF_RANGE, and kcat resets to the end. */
static void
test_kcat_offset_past_the_end_resets(void)
{
	char *out = NULL, *err = NULL;

	CU_ASSERT_EQUAL(kcat(NULL, &out, &err, "-C", "-t", "t1", "-p", "0",
	    "-o", "100", "-e", "-f", "%s\\n", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "offset reset (at offset 100"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Offset out of range"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Reached end of topic t1 [0] at "
	    "offset 2"));
	free(out);
	free(err);
}

static void
test_kcat_and_flume_tools_read_each_other(void)
{
	const char *consume[] = { "flume-consume", "-t", "t1", "-o", "beginning",
	    "-e", "-f", "%k %v\\n", NULL };
	const char *produce[] = { "flume-produce", "-t", "t2", "-k", "kk", NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "k a\nk b\n");
	free(out);
	CU_ASSERT_EQUAL(run_tool(&d, "x\ny\n", NULL, 20000, produce), 0);
	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, "-C", "-t", "t2", "-o",
	    "beginning", "-e", "-f", "%k=%s\\n", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "kk=x\nkk=y\n");
	free(out);
}

static void
test_kafka_python_keys_headers_acks_all(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(clients(&out, "kp", "kp", "50", NULL, 60000), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out,
	    "kafka-python: 50 produced, 50 read, 0 differ, 3 partitions\n");
	free(out);
}

static void
test_confluent_offsets_for_times(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(clients(&out, "times", "tt", NULL, NULL, 60000), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "offsets_for_times: 4 0 -1\n"
	    "kafka-python offsets_for_times: 4@1700000004000 "
	    "0@1700000000000 None\n");
	free(out);
}

/* The count kafka_clients.py idem wrote last; -1 if none yet. */
static long
idem_progress(const char *path)
{
	char *s = slurp(path, NULL);
	long n = s != NULL ? strtol(s, NULL, 10) : -1;

	free(s);
	return n;
}

/* Wait (<= timeout_ms) until the producer acknowledged at least n. */
static long
idem_wait(const char *path, long n, int timeout_ms)
{
	long long deadline = support_now_ms() + timeout_ms;
	long got;

	while ((got = idem_progress(path)) < n &&
	    support_now_ms() < deadline)
		usleep(2 * 1000);	/* polling a condition, bounded */
	return got;
}

/* Let the idempotent client go on past message n (PATH.goN, see kafka_clients.py). */
static void
idem_go(const char *path, long n)
{
	char go[700];
	int fd;

	snprintf(go, sizeof(go), "%s.go%ld", path, n);
	fd = open(go, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd != -1);
	close(fd);
}

/* Kill worker slot and wait (<= 10 s) until it is back under a new pid. */
static void
kill_worker(int slot)
{
	long long deadline;
	pid_t old = flumed_child_pid(&d, "worker", slot), now = -1;

	CU_ASSERT_FATAL(old > 0);
	CU_ASSERT_EQUAL_FATAL(kill(old, SIGKILL), 0);
	deadline = support_now_ms() + 10000;
	while (support_now_ms() < deadline) {
		now = flumed_child_pid(&d, "worker", slot);
		if (now > 0 && now != old)
			break;
		usleep(10 * 1000);	/* polling a condition, bounded */
	}
	CU_ASSERT(now > 0 && now != old);
	workers_before[slot] = now;
}

/*
 * confluent-kafka's idempotent producer while a worker is killed twice
 * under it: every message is read back exactly once.
 */
static void
test_idempotent_producer_survives_worker_kills(void)
{
	const char *argv[] = { PYTHON, CLIENTS, "idem", kbroker, "idem",
	    "100000", NULL, NULL };
	char *dir, path[600], *out = NULL, want[160];
	int kills = flumed_log_count(&d, "exited on signal 9");
	long at1, at2;
	pid_t pid;
	int status = -1, fd;
	long long deadline;

	dir = test_mkdtemp("kidem");
	snprintf(path, sizeof(path), "%s/progress", dir);
	argv[6] = path;
	fflush(stdout);
	CU_ASSERT_FATAL((pid = fork()) != -1);
	if (pid == 0) {
		char o[640];

		snprintf(o, sizeof(o), "%s/out", dir);
		if ((fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
			dup2(fd, STDOUT_FILENO);
		if ((fd = open("/dev/null", O_WRONLY)) != -1)
			dup2(fd, STDERR_FILENO);
		execv(PYTHON, (char *const *)argv);
		_exit(127);
	}
	/*
	 * Kill while it produces; the client then holds at 3/10 and 7/10 sent
	 * until told the kill is done (idem_go), so both land mid-run.
	 */
	at1 = idem_wait(path, 20000, 60000);
	kill_worker(0);
	idem_go(path, IDEM_MESSAGES * 3 / 10);
	at2 = idem_wait(path, 60000, 60000);
	kill_worker(1);
	idem_go(path, IDEM_MESSAGES * 7 / 10);
	deadline = support_now_ms() + 180000;
	while (waitpid(pid, &status, WNOHANG) != pid) {
		if (support_now_ms() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -1;
			break;
		}
		usleep(10 * 1000);	/* polling the child's exit, bounded */
	}
	/* Both kills came while it was still producing. */
	CU_ASSERT(at1 >= 20000 && at1 < IDEM_MESSAGES);
	CU_ASSERT(at2 >= 60000 && at2 < IDEM_MESSAGES);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "exited on signal 9"), kills + 2);
	CU_ASSERT(status != -1 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0);
	snprintf(path, sizeof(path), "%s/out", dir);
	out = slurp(path, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	snprintf(want, sizeof(want), "confluent-kafka idempotent: %d acked, "
	    "0 unacked, 0 errors, %d distinct, 0 duplicates\n", IDEM_MESSAGES,
	    IDEM_MESSAGES);
	CU_ASSERT_STRING_EQUAL(out, want);
	printf("\n  idempotent producer: workers killed at %ld and %ld acked\n",
	    at1, at2);
	free(out);
	test_rmtree(dir);
	free(dir);
}

/* ---- raw frames ---- */

static int
kconnect(void)
{
	struct flumed k = d;

	k.port = kport;
	return support_connect(&k);
}

/* Begin a request frame in wb; finish with kframe_end(). */
static size_t
kframe_begin(struct wbuf *wb, int16_t key, int16_t version, int32_t corr)
{
	struct kheader h;
	size_t pos = wb->len;

	memset(&h, 0, sizeof(h));
	h.api_key = key;
	h.api_version = version;
	h.correlation_id = corr;
	h.client_id = kstr_c("test_kafka");
	wbuf_i32(wb, 0);
	kheader_encode(wb, &h);
	return pos;
}

static void
kframe_end(struct wbuf *wb, size_t pos)
{
	wbuf_put_u32_at(wb, pos, (uint32_t)(wb->len - pos - 4));
}

/* Send wb, read one answer: 1 (body in *p, *n), 0 closed, -1 timeout. */
static int
kcall(int fd, const struct wbuf *wb, int32_t corr, uint8_t **p, size_t *n)
{
	uint32_t id = 0;
	int rc;

	if (support_send(fd, wb->buf, wb->len) == -1)
		return 0;
	rc = support_recv(fd, 10000, &id, p, n);
	if (rc == 1)
		CU_ASSERT_EQUAL(id, (uint32_t)corr);
	return rc;
}

/*
 * kcat's own first requests, captured (correlation ids 1, 2): ApiVersions
 * v3 (flexible: compact array, tagged fields, yet response header v0)
 * and v0, each answered with the table's rows, which lie within the
 * versions the codec describes (proto/kafka/kmsg*.c).
 */
static void
test_api_versions_v3_and_v0(void)
{
	static const int16_t want[][3] = { { 0, 0, 12 }, { 1, 0, 17 },
	    { 2, 0, 10 }, { 3, 0, 13 }, { 18, 0, 4 }, { 22, 0, 5 },
	    /* transactions (test_kafka_txn.c) */
	    { 24, 0, 5 }, { 25, 0, 4 }, { 26, 0, 5 }, { 28, 0, 5 },
	    { 65, 0, 0 }, { 66, 0, 1 },
	    /* groups and admin (test_kafka_groups.c) */
	    { 10, 0, 6 }, { 11, 0, 9 }, { 14, 0, 5 }, { 12, 0, 4 },
	    { 13, 0, 5 }, { 8, 0, 9 }, { 9, 0, 9 }, { 16, 0, 5 },
	    { 15, 0, 6 }, { 19, 0, 7 }, { 20, 0, 6 },
	    /* topic settings (test_tconfig.c) */
	    { 32, 0, 4 }, { 33, 0, 2 }, { 44, 0, 1 },
	    /* CreatePartitions (test_grow.c) */
	    { 37, 0, 3 },
	    /* records, groups and offsets deleted (test_records.c) */
	    { 21, 0, 2 }, { 42, 0, 2 }, { 47, 0, 0 },
	    /* read-only cluster and log APIs (test_kafka_describe.c) */
	    { 23, 0, 4 }, { 35, 0, 4 }, { 46, 0, 0 }, { 60, 0, 2 },
	    { 61, 0, 0 }, { 75, 0, 0 },
	    /* SASL (test_sasl.c) */
	    { 17, 0, 1 }, { 36, 0, 2 },
	    /* ACLs and SCRAM users (test_kafka_acl.c) */
	    { 29, 0, 3 }, { 30, 0, 3 }, { 31, 0, 3 }, { 50, 0, 0 },
	    { 51, 0, 0 },
	    /* the consumer group protocol (test_kafka_cgroup.c) */
	    { 68, 0, 1 }, { 69, 0, 1 } };
	const char *files[] = { FIXTURES "/kcat-ApiVersions-v3.bin",
	    FIXTURES "/kcat-ApiVersions-v0.bin" };
	struct rbuf rb;
	uint8_t *p = NULL;
	size_t n = 0, flen;
	char *frame;
	int fd, i, k;
	int32_t count;
	int16_t key, min, max, lo, hi, flex;
	uint32_t id;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	for (i = 0; i < 2; i++) {
		frame = slurp(files[i], &flen);
		CU_ASSERT_PTR_NOT_NULL_FATAL(frame);
		CU_ASSERT_EQUAL_FATAL(support_send(fd, frame, flen), 0);
		free(frame);
		CU_ASSERT_EQUAL_FATAL(support_recv(fd, 10000, &id, &p, &n), 1);
		CU_ASSERT_EQUAL(id, (uint32_t)(i + 1));
		rbuf_init(&rb, p, n);
		CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
		/* v3: a compact array, N + 1 as one varint byte. */
		count = i == 0 ? (uint8_t)rbuf_i8(&rb) - 1 : rbuf_i32(&rb);
		CU_ASSERT_EQUAL_FATAL(count,
		    (int32_t)(sizeof(want) / sizeof(want[0])));
		for (k = 0; k < count; k++) {
			key = rbuf_i16(&rb);
			min = rbuf_i16(&rb);
			max = rbuf_i16(&rb);
			if (i == 0)
				CU_ASSERT_EQUAL((uint8_t)rbuf_i8(&rb), 0);	/* no tags */
			CU_ASSERT_EQUAL(key, want[k][0]);
			CU_ASSERT_EQUAL(min, want[k][1]);
			CU_ASSERT_EQUAL(max, want[k][2]);
			CU_ASSERT_EQUAL_FATAL(kmsg_versions(key, &lo, &hi,
			    &flex), 0);
			CU_ASSERT(lo <= min && max <= hi);
		}
		if (i == 0) {
			CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);	/* throttle */
			CU_ASSERT_EQUAL((uint8_t)rbuf_i8(&rb), 0);	/* no tags */
		}
		CU_ASSERT_EQUAL(rb.err, 0);
		CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
		free(p);
		p = NULL;
	}
	/* Above the highest version: v0 body with UNSUPPORTED_VERSION. */
	frame = slurp(files[0], &flen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(frame);
	frame[4 + 2 + 1] = 9;			/* api_version 9 */
	CU_ASSERT_EQUAL_FATAL(support_send(fd, frame, flen), 0);
	free(frame);
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 10000, &id, &p, &n), 1);
	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_UNSUPPORTED_VERSION);
	CU_ASSERT_EQUAL(rbuf_i32(&rb),
	    (int32_t)(sizeof(want) / sizeof(want[0])));
	free(p);
	close(fd);
}

/* One Produce v3 to topic with (partition, records) parts. */
static void
produce_req(struct wbuf *wb, int32_t corr, const char *txn, int16_t acks,
    const char *topic, int n, const int32_t *parts,
    const uint8_t *const *recs, const size_t *lens)
{
	size_t pos;
	int i;

	pos = kframe_begin(wb, KAPI_PRODUCE, 3, corr);
	kbuf_put_cstr(wb, txn);
	wbuf_i16(wb, acks);
	wbuf_i32(wb, 5000);
	wbuf_i32(wb, 1);
	kbuf_put_cstr(wb, topic);
	wbuf_i32(wb, n);
	for (i = 0; i < n; i++) {
		wbuf_i32(wb, parts[i]);
		wbuf_bytes(wb, recs[i], (int32_t)lens[i]);
	}
	kframe_end(wb, pos);
}

/* Check a Produce v3 answer for topic: per part (partition, error, offset). */
static void
check_produce_resp(const uint8_t *p, size_t n, const char *topic, int np,
    const int32_t *parts, const int16_t *errs, const int64_t *offs)
{
	struct rbuf rb;
	struct kstr name;
	int i;

	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	name = kbuf_str(&rb);
	CU_ASSERT(kstr_eq(name, topic));
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), np);
	for (i = 0; i < np; i++) {
		CU_ASSERT_EQUAL(rbuf_i32(&rb), parts[i]);
		CU_ASSERT_EQUAL(rbuf_i16(&rb), errs[i]);
		CU_ASSERT_EQUAL(rbuf_i64(&rb), offs[i]);
		CU_ASSERT_EQUAL(rbuf_i64(&rb), -1);	/* log append time */
	}
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);		/* throttle */
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
}

/* Produce errors with Kafka's codes, per partition; nothing bad is stored. */
static void
test_produce_errors_per_partition(void)
{
	char path[600];
	const char *consume[] = { "flume-consume", "-t", "t3", "-p", NULL,
	    "-o", "beginning", "-e", "-f", "%o %v\\n", NULL };
	uint8_t *good, *badcrc, *rebased, *big, *p = NULL;
	size_t glen, n = 0, blen;
	struct batch_builder bb;
	const uint8_t *built;
	static char value[300 * 1024];
	struct wbuf wb;
	char *out = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s", BATCH_FIXTURE);
	good = (uint8_t *)slurp(path, &glen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(good);
	CU_ASSERT_EQUAL_FATAL(glen, 218);
	badcrc = malloc(glen);
	rebased = malloc(glen);
	CU_ASSERT_FATAL(badcrc != NULL && rebased != NULL);
	memcpy(badcrc, good, glen);
	badcrc[glen - 3] ^= 0x20;		/* under the CRC */
	memcpy(rebased, good, glen);
	batch_set_base_offset(rebased, 5);	/* not 0: INVALID_RECORD */
	memset(value, 'v', sizeof(value));
	batch_builder_init(&bb);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1, NULL, -1, value,
	    (int32_t)sizeof(value), NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &built, &blen), 0);
	big = malloc(blen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memcpy(big, built, blen);
	batch_builder_free(&bb);

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	wbuf_init(&wb);
	{
		const int32_t parts[] = { 0, 1, 2, 9, 1 };
		const uint8_t *recs[] = { good, badcrc, rebased, good, big };
		const size_t lens[] = { glen, glen, glen, glen, blen };
		const int16_t errs[] = { KERR_NONE, KERR_CORRUPT_MESSAGE,
		    KERR_INVALID_RECORD, KERR_UNKNOWN_TOPIC_OR_PARTITION,
		    KERR_MESSAGE_TOO_LARGE };
		const int64_t offs[] = { 0, -1, -1, -1, -1 };

		produce_req(&wb, 7, NULL, -1, "t3", 5, parts, recs, lens);
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, 7, &p, &n), 1);
		check_produce_resp(p, n, "t3", 5, parts, errs, offs);
		free(p);
	}
	{
		/*
		 * acks 2: every part refused; a transactional batch of no
		 * open transaction (test_kafka_txn.c): INVALID_TXN_STATE.
		 */
		const int32_t parts[] = { 0 };
		const uint8_t *recs[] = { good };
		const size_t lens[] = { glen };
		const int16_t e21[] = { KERR_INVALID_REQUIRED_ACKS };
		const int16_t e48[] = { KERR_INVALID_TXN_STATE };
		const int64_t offs[] = { -1 };
		uint8_t *txb = malloc(glen);
		const uint8_t *trecs[] = { txb };

		CU_ASSERT_PTR_NOT_NULL_FATAL(txb);
		memcpy(txb, good, glen);
		txb[BATCH_OFF_ATTRIBUTES + 1] |= 0x10;	/* transactional */
		be32_put(txb + BATCH_OFF_CRC, crc32c(0, txb +
		    BATCH_OFF_ATTRIBUTES, glen - BATCH_OFF_ATTRIBUTES));

		wbuf_reset(&wb);
		produce_req(&wb, 8, NULL, 2, "t3", 1, parts, recs, lens);
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, 8, &p, &n), 1);
		check_produce_resp(p, n, "t3", 1, parts, e21, offs);
		free(p);
		wbuf_reset(&wb);
		produce_req(&wb, 9, "txn", 1, "t3", 1, parts, trecs, lens);
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, 9, &p, &n), 1);
		check_produce_resp(p, n, "t3", 1, parts, e48, offs);
		free(p);
		free(txb);
	}
	close(fd);
	/* Partition 0 holds the one good batch (6 records), 1 and 2 nothing. */
	consume[4] = "0";
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(strncmp(out, "0 value-1\n1 no key here\n", 24), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n5 "));
	CU_ASSERT_PTR_NULL(strstr(out, "\n6 "));
	free(out);
	consume[4] = "1";
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	consume[4] = "2";
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	wbuf_free(&wb);
	free(good);
	free(badcrc);
	free(rebased);
	free(big);
}

/*
 * Fetch v4 with max_bytes 1 still gets the whole batch holding the
 * offset (Kafka's "at least one batch"), from offset 3 inside it; an
 * offset past the end is OFFSET_OUT_OF_RANGE.
 */
static void
test_fetch_whole_batch_and_out_of_range(void)
{
	struct rbuf rb;
	struct wbuf wb;
	const uint8_t *rec;
	uint8_t *p = NULL;
	size_t n = 0, pos;
	int32_t rlen;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	wbuf_init(&wb);
	pos = kframe_begin(&wb, KAPI_FETCH, 4, 11);
	wbuf_i32(&wb, -1);		/* replica */
	wbuf_i32(&wb, 100);		/* max wait */
	wbuf_i32(&wb, 1);		/* min bytes */
	wbuf_i32(&wb, 1);		/* max bytes */
	wbuf_i8(&wb, 0);
	wbuf_i32(&wb, 1);
	kbuf_put_cstr(&wb, "t3");
	wbuf_i32(&wb, 2);
	wbuf_i32(&wb, 0);		/* partition 0 from offset 3 */
	wbuf_i64(&wb, 3);
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 1);		/* partition 1 (empty) from 7 */
	wbuf_i64(&wb, 7);
	wbuf_i32(&wb, 1);
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, 11, &p, &n), 1);
	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);	/* throttle */
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT(kstr_eq(kbuf_str(&rb), "t3"));
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 2);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 6);	/* high watermark */
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 6);	/* last stable offset */
	CU_ASSERT_EQUAL(rbuf_i32(&rb), -1);	/* aborted: null (read_uncommitted) */
	rlen = rbuf_i32(&rb);
	CU_ASSERT_EQUAL_FATAL(rlen, 218);
	rec = rbuf_raw(&rb, (size_t)rlen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	CU_ASSERT_EQUAL(batch_validate(rec, (size_t)rlen, NULL), BATCH_OK);
	CU_ASSERT_EQUAL(be64_get(rec), 0);	/* the batch holding offset 3 */
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 1);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_OFFSET_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(rbuf_i64(&rb), -1);
	CU_ASSERT_EQUAL(rbuf_i64(&rb), -1);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), -1);	/* aborted: null */
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);	/* empty records */
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	free(p);
	wbuf_free(&wb);
	close(fd);
}

/* A one-record batch of producer pid, epoch, sequence seq; malloc'ed. */
static uint8_t *
idem_batch(int64_t pid, int16_t epoch, int32_t seq, const char *value,
    size_t *len)
{
	struct batch_builder bb;
	const uint8_t *out;
	uint8_t *copy;

	batch_builder_init(&bb);
	batch_builder_set_producer(&bb, pid, epoch, seq);
	CU_ASSERT_FATAL(batch_builder_add(&bb, 1700000000000LL, NULL, -1,
	    value, (int32_t)strlen(value), NULL, 0) == 0);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &out, len) == 0);
	copy = malloc(*len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, *len);
	batch_builder_free(&bb);
	return copy;
}

/* Produce one batch to t5 partition 0 and check (error, offset). */
static void
idem_send(int fd, int32_t corr, const uint8_t *b, size_t len, int16_t err,
    int64_t off)
{
	const int32_t parts[] = { 0 };
	const uint8_t *recs[] = { b };
	const size_t lens[] = { len };
	const int16_t errs[] = { err };
	const int64_t offs[] = { off };
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t n = 0;

	wbuf_init(&wb);
	produce_req(&wb, corr, NULL, -1, "t5", 1, parts, recs, lens);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, corr, &p, &n), 1);
	check_produce_resp(p, n, "t5", 1, parts, errs, offs);
	free(p);
	wbuf_free(&wb);
}

/* One Produce of version v (acks=all) of records to t7/0; the answer. */
static void
produce_v(int fd, int16_t v, int32_t corr, const uint8_t *rec, size_t len,
    uint8_t **p, size_t *n)
{
	struct wbuf wb;
	size_t pos;

	wbuf_init(&wb);
	pos = kframe_begin(&wb, KAPI_PRODUCE, v, corr);
	if (v >= 3)
		kbuf_put_cstr(&wb, NULL);
	wbuf_i16(&wb, -1);
	wbuf_i32(&wb, 5000);
	wbuf_i32(&wb, 1);
	kbuf_put_cstr(&wb, "t7");
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 0);
	wbuf_bytes(&wb, rec, (int32_t)len);
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, corr, p, n), 1);
	wbuf_free(&wb);
}

/*
 * The versions librdkafka needs to compress (kmsg_produce.h, kmsg_fetch.h), byte
 * by byte: Produce v2 refuses an old (magic 1) message set whose CRC is
 * wrong (converted ones: test_old_message_sets), v0 and v7
 * store batches and answer with their own layouts, and a Fetch v10 with
 * session fields and forgotten topics gets a full answer, session 0.
 */
static void
test_produce_v0_v7_fetch_v10(void)
{
	uint8_t old[8 + 4 + 4 + 1 + 1 + 8 + 4 + 4 + 1], *b0, *b1, *p = NULL;
	const uint8_t *rec;
	struct rbuf rb;
	struct wbuf wb;
	size_t n = 0, l0, l1, pos;
	int fd, logs = flumed_log_count(&d, "old-format");

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	/* A magic 1 message: offset, size, crc, magic, attributes, ts, key, value. */
	memset(old, 0, sizeof(old));
	be32_put(old + 8, (uint32_t)(sizeof(old) - 12));
	old[16] = 1;
	be32_put(old + 26, 0xffffffffu);
	be32_put(old + 30, 1);
	old[34] = 'x';
	produce_v(fd, 2, 61, old, sizeof(old), &p, &n);
	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT(kstr_eq(kbuf_str(&rb), "t7"));
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_CORRUPT_MESSAGE);	/* CRC 0 */
	CU_ASSERT_EQUAL(rbuf_i64(&rb), -1);		/* base offset */
	CU_ASSERT_EQUAL(rbuf_i64(&rb), -1);		/* log append time */
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);		/* throttle */
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	free(p);
	CU_ASSERT(flumed_wait_log(&d, "old-format", logs + 1, 5000) ==
	    logs + 1);

	b0 = idem_batch(-1, -1, -1, "v0", &l0);
	produce_v(fd, 0, 62, b0, l0, &p, &n);
	rbuf_init(&rb, p, n);				/* v0: no more */
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT(kstr_eq(kbuf_str(&rb), "t7"));
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 0);
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	free(p);

	b1 = idem_batch(-1, -1, -1, "v7", &l1);
	produce_v(fd, 7, 63, b1, l1, &p, &n);
	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT(kstr_eq(kbuf_str(&rb), "t7"));
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 1);		/* base offset */
	CU_ASSERT_EQUAL(rbuf_i64(&rb), -1);		/* log append time */
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 0);		/* log start offset */
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);		/* throttle */
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	free(p);

	wbuf_init(&wb);
	pos = kframe_begin(&wb, KAPI_FETCH, 10, 64);
	wbuf_i32(&wb, -1);		/* replica */
	wbuf_i32(&wb, 100);		/* max wait */
	wbuf_i32(&wb, 1);		/* min bytes */
	wbuf_i32(&wb, 1 << 20);		/* max bytes */
	wbuf_i8(&wb, 0);		/* read uncommitted */
	wbuf_i32(&wb, 0);		/* session id: none */
	wbuf_i32(&wb, -1);		/* session epoch: final */
	wbuf_i32(&wb, 1);
	kbuf_put_cstr(&wb, "t7");
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 0);		/* partition */
	wbuf_i32(&wb, -1);		/* current leader epoch */
	wbuf_i64(&wb, 0);		/* fetch offset */
	wbuf_i64(&wb, -1);		/* log start offset */
	wbuf_i32(&wb, 1 << 20);
	wbuf_i32(&wb, 1);		/* forgotten: "t1" [2] */
	kbuf_put_cstr(&wb, "t1");
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 2);
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, 64, &p, &n), 1);
	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);	/* throttle */
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);	/* session id: none made */
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT(kstr_eq(kbuf_str(&rb), "t7"));
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 2);	/* high watermark */
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 2);	/* last stable offset */
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 0);	/* log start offset */
	CU_ASSERT_EQUAL(rbuf_i32(&rb), -1);	/* aborted: null (read_uncommitted) */
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), (int32_t)(l0 + l1));
	rec = rbuf_raw(&rb, l0 + l1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	/* Both batches as sent, with the offsets the log gave them. */
	CU_ASSERT_EQUAL(be64_get(rec), 0);
	CU_ASSERT(memcmp(rec + 8, b0 + 8, l0 - 8) == 0);
	CU_ASSERT_EQUAL(be64_get(rec + l0), 1);
	CU_ASSERT(memcmp(rec + l0 + 8, b1 + 8, l1 - 8) == 0);
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	free(p);
	free(b0);
	free(b1);
	wbuf_free(&wb);
	close(fd);
}

/* A Fetch v10 of t7/0 with (session id, epoch); the answer's error. */
static int16_t
fetch_session(int fd, int32_t corr, int32_t session, int32_t epoch)
{
	struct rbuf rb;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t n = 0, pos;
	int16_t err = -1;

	wbuf_init(&wb);
	pos = kframe_begin(&wb, KAPI_FETCH, 10, corr);
	wbuf_i32(&wb, -1);
	wbuf_i32(&wb, 0);		/* max wait: answer at once */
	wbuf_i32(&wb, 0);
	wbuf_i32(&wb, 1 << 20);
	wbuf_i8(&wb, 0);
	wbuf_i32(&wb, session);
	wbuf_i32(&wb, epoch);
	wbuf_i32(&wb, 1);
	kbuf_put_cstr(&wb, "t7");
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 0);
	wbuf_i32(&wb, -1);
	wbuf_i64(&wb, 2);		/* the end: no records */
	wbuf_i64(&wb, -1);
	wbuf_i32(&wb, 1 << 20);
	wbuf_i32(&wb, 0);		/* no forgotten topics */
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, corr, &p, &n), 1);
	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);		/* throttle */
	err = rbuf_i16(&rb);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);		/* session id */
	CU_ASSERT_EQUAL(rbuf_i32(&rb), err == KERR_NONE ? 1 : 0);
	if (err == KERR_NONE) {
		CU_ASSERT(kstr_eq(kbuf_str(&rb), "t7"));
		CU_ASSERT_EQUAL(rbuf_i32(&rb), 1);
		CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
		CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
		CU_ASSERT_EQUAL(rbuf_i64(&rb), 2);
		CU_ASSERT_EQUAL(rbuf_i64(&rb), 2);
		CU_ASSERT_EQUAL(rbuf_i64(&rb), 0);
		CU_ASSERT_EQUAL(rbuf_i32(&rb), -1);	/* aborted: null */
		CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);	/* no records */
	}
	CU_ASSERT_EQUAL(rb.err, 0);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	free(p);
	wbuf_free(&wb);
	return err;
}

/*
 * Fetch sessions: Flume makes none, so one that a client claims is
 * FETCH_SESSION_ID_NOT_FOUND, an epoch without one
 * INVALID_FETCH_SESSION_EPOCH, each logged once; asking for a new one
 * (epoch 0) is a full fetch, as is the next request on the connection.
 */
static void
test_fetch_sessions_refused(void)
{
	int fd, logs = flumed_log_count(&d, "keeps no fetch sessions");

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(fetch_session(fd, 71, 12345, 3),
	    KERR_FETCH_SESSION_ID_NOT_FOUND);
	CU_ASSERT_EQUAL(fetch_session(fd, 72, 0, 1),
	    KERR_INVALID_FETCH_SESSION_EPOCH);
	CU_ASSERT_EQUAL(fetch_session(fd, 73, 0, 0), KERR_NONE);
	CU_ASSERT_EQUAL(fetch_session(fd, 74, 0, -1), KERR_NONE);
	CU_ASSERT(flumed_wait_log(&d, "keeps no fetch sessions", logs + 2,
	    5000) == logs + 2);
	close(fd);
}

/*
 * InitProducerId and the producer table: a resend of the last batch is
 * answered with its original offset (not stored twice), a sequence gap is
 * OUT_OF_ORDER_SEQUENCE_NUMBER, an id never issued UNKNOWN_PRODUCER_ID,
 * and a transactional id gets its own producer id, epoch 0, from the
 * transaction coordinator (test_kafka_txn.c).
 */
static void
test_init_producer_id_and_dedup(void)
{
	const char *consume[] = { "flume-consume", "-t", "t5", "-p", "0",
	    "-o", "beginning", "-e", "-f", "%o %v\\n", NULL };
	struct rbuf rb;
	struct wbuf wb;
	uint8_t *p = NULL, *b0, *b1, *b3, *bx;
	size_t n = 0, pos, l0, l1, l3, lx;
	char *out = NULL;
	int64_t pid;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	wbuf_init(&wb);
	pos = kframe_begin(&wb, KAPI_INIT_PRODUCER_ID, 1, 51);
	kbuf_put_cstr(&wb, NULL);
	wbuf_i32(&wb, 60000);
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, 51, &p, &n), 1);
	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
	pid = rbuf_i64(&rb);
	CU_ASSERT(pid >= 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), 0);	/* epoch */
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	free(p);

	b0 = idem_batch(pid, 0, 0, "s0", &l0);
	b1 = idem_batch(pid, 0, 1, "s1", &l1);
	b3 = idem_batch(pid, 0, 3, "s3", &l3);
	bx = idem_batch(pid + 1000000, 0, 0, "sx", &lx);
	idem_send(fd, 52, b0, l0, KERR_NONE, 0);
	idem_send(fd, 53, b1, l1, KERR_NONE, 1);
	idem_send(fd, 54, b1, l1, KERR_NONE, 1);	/* resent: same offset */
	idem_send(fd, 55, b3, l3, KERR_OUT_OF_ORDER_SEQUENCE_NUMBER, -1);
	idem_send(fd, 56, bx, lx, KERR_UNKNOWN_PRODUCER_ID, -1);

	wbuf_reset(&wb);
	pos = kframe_begin(&wb, KAPI_INIT_PRODUCER_ID, 0, 57);
	kbuf_put_cstr(&wb, "my-txn");
	wbuf_i32(&wb, 60000);
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, 57, &p, &n), 1);
	rbuf_init(&rb, p, n);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
	CU_ASSERT(rbuf_i64(&rb) > pid);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), 0);
	free(p);
	close(fd);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "0 s0\n1 s1\n");
	free(out);
	free(b0);
	free(b1);
	free(b3);
	free(bx);
	wbuf_free(&wb);
}

/*
 * acks=0 gets no answer at all, yet is stored, and answers stay in
 * request order: the next answer on the connection is the ApiVersions
 * sent after it.
 */
static void
test_acks_zero_is_not_answered(void)
{
	const char *consume[] = { "flume-consume", "-t", "t3", "-p", "2",
	    "-o", "beginning", "-e", "-f", "%o %v\\n", NULL };
	const int32_t parts[] = { 2 };
	const uint8_t *recs[1];
	size_t lens[1], glen, pos, n = 0;
	uint8_t *good, *p = NULL;
	struct wbuf wb;
	char *out = NULL;
	uint32_t id = 0;
	int fd;

	good = (uint8_t *)slurp(BATCH_FIXTURE, &glen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(good);
	recs[0] = good;
	lens[0] = glen;
	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	wbuf_init(&wb);
	produce_req(&wb, 31, NULL, 0, "t3", 1, parts, recs, lens);
	pos = kframe_begin(&wb, KAPI_API_VERSIONS, 0, 32);
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(support_send(fd, wb.buf, wb.len), 0);
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(id, 32);
	CU_ASSERT(n >= 2 && be16_get(p) == KERR_NONE);
	free(p);
	close(fd);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(strncmp(out, "0 value-1\n1 no key here\n", 24), 0);
	free(out);
	wbuf_free(&wb);
	free(good);
}

/*
 * A Fetch waiting on an empty partition (max_wait 20 s) is answered as
 * soon as another client appends there, with the new batch.
 */
static void
test_fetch_long_poll_woken_by_append(void)
{
	struct rbuf rb;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t n = 0, pos;
	long long t0, waited;
	uint32_t id = 0;
	int32_t rlen;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	wbuf_init(&wb);
	pos = kframe_begin(&wb, KAPI_FETCH, 4, 41);
	wbuf_i32(&wb, -1);
	wbuf_i32(&wb, 20000);		/* max wait */
	wbuf_i32(&wb, 1);		/* min bytes */
	wbuf_i32(&wb, 1 << 20);
	wbuf_i8(&wb, 0);
	wbuf_i32(&wb, 1);
	kbuf_put_cstr(&wb, "t1");
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 0);
	wbuf_i64(&wb, 2);		/* the end of t1 */
	wbuf_i32(&wb, 1 << 20);
	kframe_end(&wb, pos);
	t0 = support_now_ms();
	CU_ASSERT_EQUAL_FATAL(support_send(fd, wb.buf, wb.len), 0);
	/* Parked: nothing comes back within 300 ms. */
	CU_ASSERT_EQUAL(support_recv(fd, 300, &id, &p, &n), -1);
	CU_ASSERT_EQUAL(kcat("c\n", NULL, NULL, "-P", "-t", "t1", "-k", "k",
	    NULL), 0);
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 15000, &id, &p, &n), 1);
	waited = support_now_ms() - t0;
	CU_ASSERT(waited < 15000);
	CU_ASSERT_EQUAL(id, 41);
	rbuf_init(&rb, p, n);
	rbuf_i32(&rb);
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT(kstr_eq(kbuf_str(&rb), "t1"));
	CU_ASSERT_EQUAL_FATAL(rbuf_i32(&rb), 1);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);
	CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
	CU_ASSERT_EQUAL(rbuf_i64(&rb), 3);
	rbuf_i64(&rb);
	CU_ASSERT_EQUAL(rbuf_i32(&rb), -1);	/* aborted: null */
	rlen = rbuf_i32(&rb);
	CU_ASSERT_FATAL(rlen >= BATCH_HEADER_SIZE);
	/* kcat's batch, stored at offset 2. */
	CU_ASSERT_EQUAL(be64_get(rbuf_raw(&rb, (size_t)rlen)), 2);
	CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
	printf("\n  long-poll fetch answered %lld ms after it was sent\n",
	    waited);
	free(p);
	wbuf_free(&wb);
	close(fd);
}

/* Send bytes; the broker must close the connection (recv sees EOF). */
static int
expect_closed(const void *buf, size_t len)
{
	uint8_t *p = NULL;
	size_t n = 0;
	uint32_t id;
	int fd, rc;

	if ((fd = kconnect()) < 0)
		return -1;
	if (support_send(fd, buf, len) == -1) {
		close(fd);
		return 0;	/* closed while we were still sending */
	}
	rc = support_recv(fd, 10000, &id, &p, &n);
	free(p);
	close(fd);
	return rc == 0 ? 0 : -1;
}

static void
test_bad_input_closes_only_that_connection(void)
{
	static const uint8_t huge[] = { 0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 1 };
	static const uint8_t negative[] = { 0xff, 0xff, 0xff, 0xf0, 0, 3 };
	static const uint8_t tiny[] = { 0, 0, 0, 5, 0, 3, 0, 1, 0 };
	static const char *fx[] = { "00-Produce-v3", "01-Fetch-v4",
	    "02-ListOffsets-v1", "07-Metadata-v4", "12-InitProducerId-v1" };
	struct wbuf wb;
	char path[600], *frame;
	size_t flen, pos;
	int i, before = flumed_log_count(&d, "closing connection");
	int cases = 0;

	CU_ASSERT_EQUAL(expect_closed(huge, sizeof(huge)), 0);
	CU_ASSERT_EQUAL(expect_closed(negative, sizeof(negative)), 0);
	CU_ASSERT_EQUAL(expect_closed(tiny, sizeof(tiny)), 0);
	wbuf_init(&wb);
	/* Keys and versions Flume does not speak. */
	pos = kframe_begin(&wb, 4, 0, 1);	/* LeaderAndIsr */
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL(expect_closed(wb.buf, wb.len), 0);
	cases++;
	wbuf_reset(&wb);
	pos = kframe_begin(&wb, KAPI_PRODUCE, 13, 2);
	wbuf_i8(&wb, 0);	/* header v2 (flexible): no tagged fields */
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL(expect_closed(wb.buf, wb.len), 0);
	cases++;
	wbuf_reset(&wb);
	pos = kframe_begin(&wb, KAPI_JOIN_GROUP, 10, 3);	/* above Kafka 4.0's */
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL(expect_closed(wb.buf, wb.len), 0);
	cases++;
	/* kafka-python's requests with the last body byte cut off. */
	for (i = 0; i < (int)(sizeof(fx) / sizeof(fx[0])); i++) {
		snprintf(path, sizeof(path), "%s/%s.bin", FIXTURES, fx[i]);
		frame = slurp(path, &flen);
		CU_ASSERT_PTR_NOT_NULL_FATAL(frame);
		be32_put((uint8_t *)frame, (uint32_t)(flen - 5));
		CU_ASSERT_EQUAL(expect_closed(frame, flen - 1), 0);
		free(frame);
		cases++;
	}
	/* One log line per closed connection (the size ones by conn.c). */
	CU_ASSERT(flumed_wait_log(&d, "closing connection", before + cases,
	    5000) >= before + cases);
	CU_ASSERT(flumed_log_count(&d, "bad frame size") >= 3);
	CU_ASSERT(flumed_log_count(&d, "is not supported") >= 3);
	CU_ASSERT(flumed_log_count(&d, "malformed body") >= 5);
	wbuf_free(&wb);
}

/* Many connections sending random bytes at the Kafka port. */
static void
test_random_bytes_flood(void)
{
	uint8_t buf[512];
	int i, fd, closed = 0;

	for (i = 0; i < 100; i++) {
		test_fill_random(buf, sizeof(buf));
		/* A size the broker accepts, so the header or body is random. */
		be32_put(buf, (uint32_t)(sizeof(buf) - 4));
		if ((fd = kconnect()) < 0)
			continue;
		if (support_send(fd, buf, sizeof(buf)) == 0) {
			uint8_t *p = NULL;
			size_t n = 0;
			uint32_t id;

			if (support_recv(fd, 10000, &id, &p, &n) == 0)
				closed++;
			free(p);
		} else
			closed++;
		close(fd);
	}
	/* Random headers name no API Flume speaks (or a body that fails). */
	CU_ASSERT_EQUAL(closed, 100);
}

static void
test_workers_survived(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(flumed_child_pid(&d, "worker", 0), workers_before[0]);
	CU_ASSERT_EQUAL(flumed_child_pid(&d, "worker", 1), workers_before[1]);
	/* And the Kafka port still serves. */
	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, "-C", "-t", "t1", "-o",
	    "beginning", "-e", "-f", "%s\\n", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "a\nb\nc\n");
	free(out);
}

/* With an auth_file, nothing but ApiVersions and SASL before SASL. */
static void
test_auth_file_refuses_all_but_api_versions(void)
{
	struct flumed a;
	struct wbuf wb;
	char extra[1024], *dir, users[600];
	uint8_t *p = NULL;
	size_t n = 0, pos;
	int port, fd;
	FILE *f;

	dir = test_mkdtemp("kauth");
	snprintf(users, sizeof(users), "%s/users", dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(users, "w"));
	fprintf(f, "u:secret:produce,consume\n");
	fclose(f);
	port = support_free_port();
	snprintf(extra, sizeof(extra), "auth_file = %s\n"
	    "kafka_listen = 127.0.0.1:%d\n", users, port);
	CU_ASSERT_EQUAL_FATAL(flumed_start(&a, extra), 0);
	{
		struct flumed k = a;

		k.port = port;
		CU_ASSERT_FATAL((fd = support_connect(&k)) >= 0);
	}
	wbuf_init(&wb);
	pos = kframe_begin(&wb, KAPI_API_VERSIONS, 1, 21);
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL(kcall(fd, &wb, 21, &p, &n), 1);
	CU_ASSERT(n >= 2 && be16_get(p) == KERR_NONE);
	free(p);
	p = NULL;
	wbuf_reset(&wb);
	pos = kframe_begin(&wb, KAPI_METADATA, 1, 22);
	wbuf_i32(&wb, -1);
	kframe_end(&wb, pos);
	CU_ASSERT_EQUAL(kcall(fd, &wb, 22, &p, &n), 0);
	free(p);
	close(fd);
	CU_ASSERT_EQUAL(flumed_wait_log(&a, "before authentication", 1, 5000),
	    1);
	wbuf_free(&wb);
	flumed_cleanup(&a);
	test_rmtree(dir);
	free(dir);
}

/*
 * ListOffsets v1 on the wire, on the 10 records of "tt" that the
 * offsets_for_times test produced (timestamps T0 + 1000 i): a time gives
 * the first record at or after it with that record's timestamp; earliest,
 * latest and a time past every record give timestamp -1.
 */
static void
test_list_offsets_v1_timestamps(void)
{
	static const int64_t ask[] = { 1700000003500LL, 1700000000000LL,
	    1700000009000LL, 1700000100000LL, KLIST_OFFSETS_EARLIEST,
	    KLIST_OFFSETS_LATEST };
	static const int64_t want_off[] = { 4, 0, 9, -1, 0, 10 };
	static const int64_t want_ts[] = { 1700000004000LL, 1700000000000LL,
	    1700000009000LL, -1, -1, -1 };
	struct wbuf wb;
	struct rbuf rb;
	uint8_t *p = NULL;
	size_t n = 0, len, i;
	const char *name;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	wbuf_init(&wb);
	for (i = 0; i < sizeof(ask) / sizeof(ask[0]); i++) {
		size_t pos;

		wbuf_reset(&wb);
		pos = kframe_begin(&wb, KAPI_LIST_OFFSETS, 1, 70 + (int32_t)i);
		wbuf_i32(&wb, -1);		/* replica_id */
		wbuf_i32(&wb, 1);
		wbuf_str(&wb, "tt", 2);
		wbuf_i32(&wb, 1);
		wbuf_i32(&wb, 0);
		wbuf_i64(&wb, ask[i]);
		kframe_end(&wb, pos);
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &wb, 70 + (int32_t)i, &p, &n),
		    1);
		rbuf_init(&rb, p, n);
		CU_ASSERT_EQUAL(rbuf_i32(&rb), 1);
		name = rbuf_str(&rb, &len);
		CU_ASSERT(name != NULL && len == 2 &&
		    memcmp(name, "tt", 2) == 0);
		CU_ASSERT_EQUAL(rbuf_i32(&rb), 1);
		CU_ASSERT_EQUAL(rbuf_i32(&rb), 0);		/* partition */
		CU_ASSERT_EQUAL(rbuf_i16(&rb), KERR_NONE);
		CU_ASSERT_EQUAL(rbuf_i64(&rb), want_ts[i]);
		CU_ASSERT_EQUAL(rbuf_i64(&rb), want_off[i]);
		CU_ASSERT_EQUAL(rbuf_left(&rb), 0);
		CU_ASSERT_FALSE(rb.err);
		free(p);
		p = NULL;
	}
	wbuf_free(&wb);
	close(fd);
}

/* ---- the data APIs at every version, by their descriptions ---- */

/*
 * One request of message m at version v, encoded by its description with
 * the header the version takes; the answer decoded into resp (arrays
 * from a, strings into *raw, which the caller frees).
 */
static void
kd_call(int fd, const struct kmsg *m, int16_t v, int32_t corr,
    const void *req, void *resp, struct arena *a, uint8_t **raw)
{
	CU_ASSERT_EQUAL_FATAL(support_kafka_call(fd, m, v, corr, req, resp, a,
	    raw), 0);
}

/* A Produce of one part (topic, partition 0, records) at version v. */
static void
kd_produce(int fd, int16_t v, int32_t corr, const char *topic,
    const void *rec, size_t len, struct km_produce_resp *s, struct arena *a,
    uint8_t **raw)
{
	struct km_produce_part pp;
	struct km_produce_topic pt;
	struct km_produce_req q;

	kdesc_defaults(kmsg_produce.km_req, &q);
	pp.index = 0;
	pp.records.p = rec;
	pp.records.len = (int32_t)len;
	pt.name = kstr_c(topic);
	pt.partition_data.n = 1;
	pt.partition_data.v = &pp;
	q.acks = -1;
	q.timeout_ms = 5000;
	q.topic_data.n = 1;
	q.topic_data.v = &pt;
	kd_call(fd, &kmsg_produce, v, corr, &q, s, a, raw);
}

/* A Fetch at version v of partition 0 of each topic (by name or id). */
static void
kd_fetch(int fd, int16_t v, int32_t corr, const char *const *topics,
    const uint8_t (*ids)[TOPIC_ID_LEN], int nt, int64_t offset,
    struct km_fetch_resp *s, struct arena *a, uint8_t **raw)
{
	struct km_fetch_part fp[4];
	struct km_fetch_topic ft[4];
	struct km_fetch_req q;
	int i;

	CU_ASSERT_FATAL(nt <= 4);
	kdesc_defaults(kmsg_fetch.km_req, &q);
	for (i = 0; i < nt; i++) {
		memset(&fp[i], 0, sizeof(fp[i]));
		fp[i].current_leader_epoch = -1;
		fp[i].last_fetched_epoch = -1;
		fp[i].log_start_offset = -1;
		fp[i].fetch_offset = offset;
		fp[i].partition_max_bytes = 1 << 20;
		memset(&ft[i], 0, sizeof(ft[i]));
		ft[i].topic = kstr_c(topics != NULL ? topics[i] : "");
		if (ids != NULL)
			memcpy(ft[i].topic_id, ids[i], TOPIC_ID_LEN);
		ft[i].partitions.n = 1;
		ft[i].partitions.v = &fp[i];
	}
	q.max_wait_ms = 0;
	q.min_bytes = 0;
	q.max_bytes = 1 << 20;
	q.topics.n = nt;
	q.topics.v = ft;
	kd_call(fd, &kmsg_fetch, v, corr, &q, s, a, raw);
}

/* The five records of tests/fixtures/kmsgset/m*-*.txt (kafka-python's). */
static const char *const ms_key[] = { "k0", NULL, "k2", "", "key-4" };
static const char *const ms_val[] = { "v0", "value-one", NULL, "", NULL };

static int
ms_field_ok(const uint8_t *p, int32_t len, int i, int key)
{
	const char *want = key ? ms_key[i] : ms_val[i];
	int32_t k;

	if (!key && i == 4) {			/* 300 x */
		if (len != 300)
			return 0;
		for (k = 0; k < len; k++)
			if (p[k] != 'x')
				return 0;
		return 1;
	}
	if (want == NULL)
		return len == -1;
	return len == (int32_t)strlen(want) && memcmp(p, want, (size_t)len) == 0;
}

/* Walk state of an old message set read back. */
struct ms_seen {
	int	 n;
	int	 magic;
	int64_t	 ts0;		/* the first timestamp wanted; -1 for magic 0 */
	int	 same;		/* ... or all the first's, the broker's time */
	int	 bad;
};

static int
ms_seen_cb(const struct kmsgset_msg *m, void *arg)
{
	struct ms_seen *s = arg;

	if (s->same && s->n == 0) {
		s->ts0 = m->timestamp;
		if (s->ts0 <= 1700000000000LL)
			s->bad++;
	}
	if (s->n >= 5 || m->offset != s->n || m->magic != s->magic ||
	    m->timestamp != (s->ts0 == -1 ? -1 : s->same ? s->ts0 :
	    s->ts0 + s->n) ||
	    !ms_field_ok(m->key, m->key_len, s->n, 1) ||
	    !ms_field_ok(m->value, m->value_len, s->n, 0))
		s->bad++;
	s->n++;
	return 0;
}

/*
 * The one batch of a Fetch v4+ answer: the five records, times from ts0,
 * compressed with codec (the producer's, kept by the conversion).
 */
static void
ms_check_batch(const struct kstr *rec, int64_t ts0, int codec)
{
	const uint8_t *b = (const uint8_t *)rec->p;
	struct compress_buf z;
	struct batch_header bh;
	struct batch_iter it;
	struct record r;
	int i = 0;

	CU_ASSERT_FATAL(rec->len > BATCH_HEADER_SIZE);
	CU_ASSERT_EQUAL(b[BATCH_OFF_ATTRIBUTES + 1] & 7, codec);
	compress_buf_init(&z, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(batch_validate_z(b, (size_t)rec->len, &bh, &z),
	    BATCH_OK);
	CU_ASSERT_EQUAL(batch_base_offset(b), 0);
	CU_ASSERT_EQUAL_FATAL(batch_iter_init_z(&it, b, (size_t)rec->len, &z),
	    BATCH_OK);
	while (batch_iter_next(&it, &r) == 1) {
		CU_ASSERT_EQUAL(r.offset, i);
		if (ts0 >= 0)
			CU_ASSERT_EQUAL(r.timestamp, ts0 + i);
		CU_ASSERT(ms_field_ok(r.key, r.key_len, i, 1));
		CU_ASSERT(ms_field_ok(r.value, r.value_len, i, 0));
		i++;
	}
	CU_ASSERT_EQUAL(i, 5);
	compress_buf_free(&z);
}

/* One partition's answer of a fetch: partition 0, no error, hwm 5. */
static const struct km_fetch_part_resp *
ms_part(const struct km_fetch_resp *s, int t, int16_t err)
{
	const struct km_fetch_topic_resp *tr;
	const struct km_fetch_part_resp *pr;

	CU_ASSERT_FATAL(s->responses.n > t);
	tr = &((const struct km_fetch_topic_resp *)s->responses.v)[t];
	CU_ASSERT_EQUAL_FATAL(tr->partitions.n, 1);
	pr = tr->partitions.v;
	CU_ASSERT_EQUAL(pr->partition_index, 0);
	CU_ASSERT_EQUAL(pr->error_code, err);
	CU_ASSERT_EQUAL(pr->high_watermark, err == KERR_NONE ? 5 : -1);
	return pr;
}

/* The sum over worker slots of a metrics series (the metrics child's). */
static long long
metric_sum(const char *name)
{
	static const char code[] =
	    "import sys, urllib.request\n"
	    "b = urllib.request.urlopen(sys.argv[1], timeout=10).read()\n"
	    "print(sum(int(l.split()[-1]) for l in b.decode().splitlines()\n"
	    "    if l.startswith(sys.argv[2] + '{')))\n";
	char url[64], *out = NULL;
	const char *argv[] = { PYTHON, "-c", code, url, name, NULL };
	long long v = -1;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", mport);
	if (run_cmd(PYTHON, argv, NULL, &out, NULL, 15000) == 0 && out != NULL)
		v = strtoll(out, NULL, 10);
	free(out);
	return v;
}

/*
 * Old message formats, with kafka-python's own message sets: Produce v0
 * with a magic-0 set (uncompressed) and v2 with a magic-1 set (gzip)
 * each store one batch of the five records at offsets 0-4 (with the
 * producer's codec); Fetch v12 reads them as batches with the same keys,
 * values and (magic 1) timestamps; Fetch v0 as magic 0 and v3 as magic 1 message sets with
 * the same offsets, keys, values and timestamps; Fetch v13 and v17 find
 * tm1 by its id (topic.meta's), an unknown id is UNKNOWN_TOPIC_ID;
 * flume-consume reads what the old produce wrote; and the metrics count
 * the seven conversions (two produced sets, five fetched) and their
 * bytes exactly.
 */
static void
test_old_message_sets(void)
{
	static const char *const tm1[] = { "tm1" };
	static const char *const tm0[] = { "tm0" };
	const char *consume[] = { "flume-consume", "-t", "tm1", "-p", "0",
	    "-o", "beginning", "-e", "-f", "%o %T %k=%v\\n", NULL };
	const struct km_produce_part_resp *ppr;
	const struct km_fetch_part_resp *pr;
	const struct km_fetch_topic_resp *tr;
	struct km_produce_resp ps;
	struct km_fetch_resp fs;
	uint8_t ids[2][TOPIC_ID_LEN], *raw = NULL, *m0, *m1;
	struct kmsgset_limits lim = { 1 << 20, 1000 };
	struct kmsgset *k;
	struct ms_seen seen;
	struct arena a;
	size_t l0, l1;
	int32_t parts;
	char *out = NULL, want[1024];
	long long conv0, bytes0, fetched = 0;
	int fd, i, v;

	conv0 = metric_sum("flume_worker_kafka_msgset_conversions_total");
	bytes0 = metric_sum("flume_worker_kafka_msgset_bytes_total");
	CU_ASSERT(conv0 >= 0 && bytes0 >= 0);
	m0 = (uint8_t *)slurp(MSGSET_FIXTURES "/m0-none.bin", &l0);
	m1 = (uint8_t *)slurp(MSGSET_FIXTURES "/m1-gzip.bin", &l1);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k = kmsgset_new(&lim));
	arena_init(&a, 1 << 24);
	CU_ASSERT_FATAL((fd = kconnect()) >= 0);

	kd_produce(fd, 0, 201, "tm0", m0, l0, &ps, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(ps.responses.n, 1);
	ppr = ((const struct km_produce_topic_resp *)ps.responses.v)->
	    partition_responses.v;
	CU_ASSERT_EQUAL(ppr->error_code, KERR_NONE);
	CU_ASSERT_EQUAL(ppr->base_offset, 0);
	free(raw);
	kd_produce(fd, 2, 202, "tm1", m1, l1, &ps, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(ps.responses.n, 1);
	ppr = ((const struct km_produce_topic_resp *)ps.responses.v)->
	    partition_responses.v;
	CU_ASSERT_EQUAL(ppr->error_code, KERR_NONE);
	CU_ASSERT_EQUAL(ppr->base_offset, 0);
	CU_ASSERT_EQUAL(ppr->log_append_time_ms, -1);	/* CreateTime */
	CU_ASSERT_EQUAL(ps.throttle_time_ms, 0);
	free(raw);

	/* As batches (v12, flexible), each as one batch of five. */
	kd_fetch(fd, 12, 203, tm1, NULL, 1, 0, &fs, &a, &raw);
	CU_ASSERT_EQUAL(fs.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(fs.session_id, 0);
	pr = ms_part(&fs, 0, KERR_NONE);
	CU_ASSERT_EQUAL(pr->last_stable_offset, 5);
	CU_ASSERT_EQUAL(pr->log_start_offset, 0);
	CU_ASSERT_EQUAL(pr->aborted_transactions.n, -1);
	CU_ASSERT_EQUAL(pr->preferred_read_replica, -1);
	ms_check_batch(&pr->records, 1700000000000LL, COMPRESS_GZIP);
	free(raw);
	kd_fetch(fd, 12, 204, tm0, NULL, 1, 0, &fs, &a, &raw);
	ms_check_batch(&ms_part(&fs, 0, KERR_NONE)->records, -1,
	    COMPRESS_NONE);
	free(raw);

	/*
	 * As old message sets: v0 magic 0 (no timestamps), v3 magic 1 with
	 * the producer's timestamps, or for the magic-0 produce the one time
	 * the broker gave all five.
	 */
	for (v = 0; v <= 3; v += 3) {
		for (i = 0; i < 2; i++) {
			kd_fetch(fd, (int16_t)v, 205 + v * 2 + i,
			    i == 0 ? tm0 : tm1, NULL, 1, 0, &fs, &a, &raw);
			pr = ms_part(&fs, 0, KERR_NONE);
			memset(&seen, 0, sizeof(seen));
			seen.magic = v >= 2 ? 1 : 0;
			seen.ts0 = v < 2 ? -1 : i == 1 ? 1700000000000LL : 0;
			seen.same = v >= 2 && i == 0;
			CU_ASSERT_EQUAL(kmsgset_walk(k, (const uint8_t *)
			    pr->records.p, (size_t)pr->records.len,
			    ms_seen_cb, &seen), KMSGSET_OK);
			CU_ASSERT_EQUAL(seen.n, 5);
			CU_ASSERT_EQUAL(seen.bad, 0);
			fetched += pr->records.len;
			free(raw);
		}
	}
	/* From offset 3: only offsets 3 and 4 (v2, magic 1). */
	kd_fetch(fd, 2, 220, tm1, NULL, 1, 3, &fs, &a, &raw);
	pr = ms_part(&fs, 0, KERR_NONE);
	memset(&seen, 0, sizeof(seen));
	seen.n = 3;
	seen.magic = 1;
	seen.ts0 = 1700000000000LL;
	CU_ASSERT_EQUAL(kmsgset_walk(k, (const uint8_t *)pr->records.p,
	    (size_t)pr->records.len, ms_seen_cb, &seen), KMSGSET_OK);
	CU_ASSERT_EQUAL(seen.n, 5);
	CU_ASSERT_EQUAL(seen.bad, 0);
	fetched += pr->records.len;
	free(raw);
	CU_ASSERT_EQUAL(metric_sum("flume_worker_kafka_msgset_conversions_total"),
	    conv0 + 7);
	CU_ASSERT_EQUAL(metric_sum("flume_worker_kafka_msgset_bytes_total"),
	    bytes0 + (long long)(l0 + l1) + fetched);

	/* By topic id (v13, v17): tm1's, and one no topic has. */
	CU_ASSERT_EQUAL_FATAL(topic_meta_load(d.data, "tm1", &parts, ids[0]),
	    0);
	CU_ASSERT_EQUAL(parts, 1);
	memset(ids[1], 0x5a, TOPIC_ID_LEN);
	for (v = 13; v <= 17; v += 4) {
		kd_fetch(fd, (int16_t)v, 221 + v, NULL,
		    (const uint8_t (*)[TOPIC_ID_LEN])ids, 2, 0, &fs, &a, &raw);
		CU_ASSERT_EQUAL_FATAL(fs.responses.n, 2);
		tr = fs.responses.v;
		CU_ASSERT(memcmp(tr[0].topic_id, ids[0], TOPIC_ID_LEN) == 0);
		CU_ASSERT(memcmp(tr[1].topic_id, ids[1], TOPIC_ID_LEN) == 0);
		ms_check_batch(&ms_part(&fs, 0, KERR_NONE)->records,
		    1700000000000LL, COMPRESS_GZIP);
		pr = ms_part(&fs, 1, 100);	/* UNKNOWN_TOPIC_ID */
		CU_ASSERT_EQUAL(pr->records.len, 0);
		free(raw);
	}
	close(fd);

	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, consume), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	snprintf(want, sizeof(want), "0 1700000000000 k0=v0\n"
	    "1 1700000000001 =value-one\n2 1700000000002 k2=\n"
	    "3 1700000000003 =\n4 1700000000004 key-4=");
	i = (int)strlen(want);
	memset(want + i, 'x', 300);
	memcpy(want + i + 300, "\n", 2);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	arena_free(&a);
	kmsgset_free(k);
	free(m0);
	free(m1);
}

/* A ListOffsets at version v of tm1/0 at ts (v0: max_num_offsets max). */
static const struct km_listoff_part_resp *
kd_list(int fd, int16_t v, int32_t corr, int64_t ts, int32_t max,
    struct km_listoff_resp *s, struct arena *a, uint8_t **raw)
{
	struct km_listoff_part lp;
	struct km_listoff_topic lt;
	struct km_listoff_req q;
	const struct km_listoff_topic_resp *tr;
	const struct km_listoff_part_resp *pr;

	kdesc_defaults(kmsg_list_offsets.km_req, &q);
	memset(&lp, 0, sizeof(lp));
	lp.partition_index = 0;
	lp.current_leader_epoch = -1;
	lp.timestamp = ts;
	lp.max_num_offsets = max;
	lt.name = kstr_c("tm1");
	lt.partitions.n = 1;
	lt.partitions.v = &lp;
	q.replica_id = -1;
	q.topics.n = 1;
	q.topics.v = &lt;
	q.timeout_ms = 1000;
	kd_call(fd, &kmsg_list_offsets, v, corr, &q, s, a, raw);
	CU_ASSERT_EQUAL_FATAL(s->topics.n, 1);
	tr = s->topics.v;
	CU_ASSERT(kstr_eq(tr->name, "tm1"));
	CU_ASSERT_EQUAL_FATAL(tr->partitions.n, 1);
	pr = tr->partitions.v;
	CU_ASSERT_EQUAL(pr->partition_index, 0);
	CU_ASSERT_EQUAL(pr->error_code, KERR_NONE);
	return pr;
}

/*
 * ListOffsets v0, v7 and v10 (flexible) on tm1's five records (times
 * T0 + i, test_old_message_sets): v0's list of one offset (the end, the
 * start, a time's first record, the end for a time past every record,
 * none for max_num_offsets 0); v7's MAX_TIMESTAMP is offset 4 with T0 +
 * 4, leader epoch 0; v10's earliest local is the start, latest tiered
 * the end.
 */
static void
test_list_offsets_v0_v7_v10(void)
{
	static const struct {
		int64_t	ts;
		int32_t	max;
		int	n;
		int64_t	off;
	} v0[] = { { -1, 1, 1, 5 }, { -2, 1, 1, 0 },
	    { 1700000000002LL, 1, 1, 2 }, { 1800000000000LL, 1, 1, 5 },
	    { -1, 0, 0, -1 } };
	static const struct {
		int16_t	v;
		int64_t	ts;
		int64_t	off, rts;
	} vn[] = { { 7, -3, 4, 1700000000004LL }, { 7, -1, 5, -1 },
	    { 10, -4, 0, -1 }, { 10, -5, 5, -1 }, { 10, -3, 4,
	    1700000000004LL }, { 10, 1700000000003LL, 3, 1700000000003LL } };
	const struct km_listoff_part_resp *pr;
	struct km_listoff_resp s;
	struct arena a;
	uint8_t *raw = NULL;
	size_t i;
	int fd;

	arena_init(&a, 1 << 20);
	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	for (i = 0; i < sizeof(v0) / sizeof(v0[0]); i++) {
		pr = kd_list(fd, 0, 300 + (int32_t)i, v0[i].ts, v0[i].max, &s,
		    &a, &raw);
		CU_ASSERT_EQUAL(pr->old_style_offsets.n, v0[i].n);
		if (pr->old_style_offsets.n == 1 && v0[i].n == 1)
			CU_ASSERT_EQUAL(*(const int64_t *)
			    pr->old_style_offsets.v, v0[i].off);
		free(raw);
	}
	for (i = 0; i < sizeof(vn) / sizeof(vn[0]); i++) {
		pr = kd_list(fd, vn[i].v, 310 + (int32_t)i, vn[i].ts, 0, &s,
		    &a, &raw);
		CU_ASSERT_EQUAL(pr->offset, vn[i].off);
		CU_ASSERT_EQUAL(pr->timestamp, vn[i].rts);
		CU_ASSERT_EQUAL(pr->leader_epoch, 0);
		CU_ASSERT_EQUAL(s.throttle_time_ms, 0);
		free(raw);
	}
	close(fd);
	arena_free(&a);
}

/*
 * InitProducerId v0, v3 naming the id and epoch it had (a new id, epoch
 * 0, as Kafka answers without a transactional id), v5 naming only an id
 * (INVALID_REQUEST) and v4 with a transactional id (refused).
 */
static void
test_init_producer_id_v0_v3_v5(void)
{
	struct km_init_pid_req q;
	struct km_init_pid_resp s;
	struct arena a;
	uint8_t *raw = NULL;
	int64_t first;
	int fd;

	arena_init(&a, 1 << 16);
	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	kdesc_defaults(kmsg_init_producer_id.km_req, &q);
	q.transactional_id.len = -1;		/* none: idempotent only */
	q.transaction_timeout_ms = 60000;
	kd_call(fd, &kmsg_init_producer_id, 0, 401, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	CU_ASSERT(s.producer_id >= 0);
	CU_ASSERT_EQUAL(s.producer_epoch, 0);
	first = s.producer_id;
	free(raw);
	q.producer_id = first;
	q.producer_epoch = 0;
	kd_call(fd, &kmsg_init_producer_id, 3, 402, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	CU_ASSERT(s.producer_id >= 0 && s.producer_id != first);
	CU_ASSERT_EQUAL(s.producer_epoch, 0);
	free(raw);
	q.producer_epoch = -1;
	kd_call(fd, &kmsg_init_producer_id, 5, 403, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(s.producer_id, -1);
	CU_ASSERT_EQUAL(s.producer_epoch, -1);
	free(raw);
	q.producer_id = -1;
	q.transactional_id = kstr_c("tx");
	kd_call(fd, &kmsg_init_producer_id, 4, 404, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	CU_ASSERT(s.producer_id >= 0);
	CU_ASSERT_EQUAL(s.producer_epoch, 0);
	free(raw);
	close(fd);
	arena_free(&a);
}

TEST_SUITE("kafka", setup, teardown,
    { "kcat -L lists the broker", test_kcat_lists_the_broker },
    { "kcat produces, kcat consumes", test_kcat_produce_then_consume },
    { "kcat -o 100 past the end resets",
	test_kcat_offset_past_the_end_resets },
    { "kcat and the flume tools read each other",
	test_kcat_and_flume_tools_read_each_other },
    { "kafka-python keys, headers, acks=all",
	test_kafka_python_keys_headers_acks_all },
    { "confluent-kafka offsets_for_times", test_confluent_offsets_for_times },
    { "ListOffsets v1: the found record's timestamp",
	test_list_offsets_v1_timestamps },
    { "ApiVersions v3 and v0 from the table",
	test_api_versions_v3_and_v0 },
    { "Produce errors per partition", test_produce_errors_per_partition },
    { "Fetch: a whole batch, out of range",
	test_fetch_whole_batch_and_out_of_range },
    { "acks=0 is not answered", test_acks_zero_is_not_answered },
    { "InitProducerId and dedup", test_init_producer_id_and_dedup },
    { "Fetch long poll woken by an append",
	test_fetch_long_poll_woken_by_append },
    { "Produce v0, v2, v7 and Fetch v10 on the wire",
	test_produce_v0_v7_fetch_v10 },
    { "Fetch sessions refused", test_fetch_sessions_refused },
    { "old message sets: Produce v0/v2, Fetch v0/v3/v12, v13/v17 by id",
	test_old_message_sets },
    { "ListOffsets v0, v7 (MAX_TIMESTAMP), v10", test_list_offsets_v0_v7_v10 },
    { "InitProducerId v0, v3, v5", test_init_producer_id_v0_v3_v5 },
    { "bad input closes only that connection",
	test_bad_input_closes_only_that_connection },
    { "random bytes flood", test_random_bytes_flood },
    { "workers survived the bad input", test_workers_survived },
    { "idempotent producer survives two worker kills",
	test_idempotent_producer_survives_worker_kills },
    { "auth_file: only ApiVersions", test_auth_file_refuses_all_but_api_versions });
