/*
 * Topic deletion through the real daemon (issue 15): flume-admin delete
 * and libflume's flume_delete_topic, Kafka DeleteTopics from kafka-python's
 * KafkaAdminClient, slot reuse, and a delete cut short by a crash that
 * start-up recovery finishes.
 *
 * The broker has auto_create_topics off, so a deleted topic stays gone
 * until it is created again, and room for 9 partitions only.  Topics
 * "t1" and "t2" have 2 partitions each; every produced value is
 * "<topic>-<partition>-<n>".
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/kafka/kapi.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define PYTHON		"/usr/bin/python3"
#define CLIENTS		"tests/tools/kafka_clients.py"
#define LOOP_ROUNDS	10	/* x 2 partitions: more than max_partitions */

static struct flumed d;
static struct flumed small;	/* test_delete_holes_merge's own broker */
static int kport;
static char kbroker[64];

static int
setup(void)
{
	char extra[512];

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(kbroker, sizeof(kbroker), "127.0.0.1:%d", kport);
	snprintf(extra, sizeof(extra), "partitions = 2\nmax_partitions = 9\n"
	    "max_topics = 6\nauto_create_topics = false\n"
	    "kafka_listen = %s\nflush_interval_ms = 100ms\n", kbroker);
	support_use_seams(1);	/* FLUME_FAULT, FLUME_TEST_DELETE_CRASH */
	return flumed_start(&d, extra);
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	flumed_cleanup(&small);
	return 0;
}

/* flume-admin ARGS...; exit status, stdout in *out (may be NULL). */
static int
admin(const struct flumed *b, char **out, const char *a1, const char *a2,
    const char *a3)
{
	const char *argv[] = { "flume-admin", a1, a2, a3, NULL };

	return run_tool(b, NULL, out, 30000, argv);
}

/* Produce "<topic>-<part>-<n>" for n in [from, from + count), acks=all. */
static int
produce(const struct flumed *b, const char *topic, int part, int from,
    int count)
{
	char pstr[16], *in = malloc((size_t)count * 48 + 1);
	const char *argv[] = { "flume-produce", "-t", topic, "-p", pstr,
	    "-a", "all", NULL };
	size_t len = 0;
	int i, rc;

	snprintf(pstr, sizeof(pstr), "%d", part);
	in[0] = '\0';
	for (i = from; i < from + count; i++)
		len += (size_t)sprintf(in + len, "%s-%d-%d\n", topic, part, i);
	rc = run_tool(b, in, NULL, 30000, argv);
	free(in);
	return rc;
}

/* "OFFSET VALUE" lines of topic/part from the beginning; NULL on failure. */
static char *
consume(const struct flumed *b, const char *topic, int part)
{
	char pstr[16], *out = NULL;
	const char *argv[] = { "flume-consume", "-t", topic, "-p", pstr,
	    "-o", "beginning", "-e", "-f", "%o %v\n", NULL };

	snprintf(pstr, sizeof(pstr), "%d", part);
	if (run_tool(b, NULL, &out, 30000, argv) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* What consume() prints for n in [from, to) at offsets [first, ...). */
static char *
expected(const char *topic, int part, int first, int from, int to)
{
	char *s = malloc((size_t)(to - from) * 64 + 1);
	size_t len = 0;
	int i;

	s[0] = '\0';
	for (i = from; i < to; i++)
		len += (size_t)sprintf(s + len, "%d %s-%d-%d\n", first + i - from,
		    topic, part, i);
	return s;
}

static void
assert_consumed(const struct flumed *b, const char *topic, int part,
    int first, int from, int to)
{
	char *got = consume(b, topic, part), *want = expected(topic, part,
	    first, from, to);

	CU_ASSERT_PTR_NOT_NULL(got);
	if (got != NULL && strcmp(got, want) != 0)
		fprintf(stderr, "%s-%d: got\n%s\nwant\n%s\n", topic, part, got,
		    want);
	CU_ASSERT(got != NULL && strcmp(got, want) == 0);
	free(got);
	free(want);
}

/* The committed offset of group G on topic/part; -2 on failure. */
static long long
committed(const char *topic, int part)
{
	struct flume_client *c;
	int64_t off = -2;

	if ((c = flume_connect(d.broker)) == NULL)
		return -2;
	if (flume_committed_offset(c, "G", topic, part, &off) == -1)
		off = -2;
	flume_close(c);
	return (long long)off;
}

/* 1 if path exists. */
static int
exists(const char *dir, const char *name)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* Entries of dir whose name starts with prefix. */
static int
count_prefixed(const char *dir, const char *prefix)
{
	struct dirent *de;
	DIR *dp;
	int n = 0;

	if ((dp = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(dp)) != NULL)
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(dp);
	return n;
}

/* A whole file (malloc'ed), its length in *len; NULL on failure. */
static char *
slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	FILE *f;
	long sz;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)sz + 1)) != NULL &&
	    fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	} else if (buf != NULL)
		*len = (size_t)sz;
	fclose(f);
	return buf;
}

/* The first segment of topic/part (offset 0 onwards). */
static char *
segment(const struct flumed *b, const char *topic, int part, size_t *len)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s/partition-%d/%020d.log", b->data,
	    topic, part, 0);
	return slurp(path, len);
}

/*
 * Delete t1 while t2 lives beside it: t1 is gone from the topic list and
 * the disk, no tombstone is left, t2's segments are unchanged byte for
 * byte and t2 still takes and serves records; t1 created again starts at
 * offset 0 with only the new records, and group G's offsets on t1 are gone.
 */
static void
test_delete_keeps_others(void)
{
	const char *group[] = { "flume-consume", "-g", "G", "-t", "t1", "-o",
	    "beginning", "-e", NULL };
	char *out = NULL, *seg0, *seg1, *after;
	size_t len0 = 0, len1 = 0, alen = 0;
	int p;

	CU_ASSERT_EQUAL_FATAL(admin(&d, NULL, "create", "t1", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(admin(&d, NULL, "create", "t2", NULL), 0);
	for (p = 0; p < 2; p++) {
		CU_ASSERT_EQUAL_FATAL(produce(&d, "t1", p, 0, 10), 0);
		CU_ASSERT_EQUAL_FATAL(produce(&d, "t2", p, 0, 10), 0);
	}
	/* Group G reads t1 to its end and commits. */
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, group), 0);
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(committed("t1", 0), 10);
	CU_ASSERT_EQUAL(committed("t1", 1), 10);
	seg0 = segment(&d, "t2", 0, &len0);
	seg1 = segment(&d, "t2", 1, &len1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(seg0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(seg1);
	CU_ASSERT(len0 > 0 && len1 > 0);

	CU_ASSERT_EQUAL(admin(&d, &out, "delete", "t1", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(out);
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "",
	    "deleted t1 with 2 partitions\n");
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(admin(&d, &out, "topics", NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "", "t2 2\n");
	free(out);
	out = NULL;
	CU_ASSERT_FALSE(exists(d.data, "t1"));
	CU_ASSERT_EQUAL(count_prefixed(d.data, ".deleted-"), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "deleted topic t1 (2 partitions)"), 1);
	/* Produce and fetch of t1 now find nothing. */
	CU_ASSERT_NOT_EQUAL(produce(&d, "t1", 0, 100, 1), 0);
	CU_ASSERT_PTR_NULL(consume(&d, "t1", 0));

	/* t2: the same bytes, and it goes on working. */
	after = segment(&d, "t2", 0, &alen);
	CU_ASSERT(after != NULL && alen == len0 && memcmp(after, seg0, len0) == 0);
	free(after);
	after = segment(&d, "t2", 1, &alen);
	CU_ASSERT(after != NULL && alen == len1 && memcmp(after, seg1, len1) == 0);
	free(after);
	free(seg0);
	free(seg1);
	CU_ASSERT_EQUAL(produce(&d, "t2", 0, 10, 5), 0);
	assert_consumed(&d, "t2", 0, 0, 0, 15);
	assert_consumed(&d, "t2", 1, 0, 0, 10);

	/* t1 again: empty, from offset 0, without G's old offsets. */
	CU_ASSERT_EQUAL(admin(&d, NULL, "create", "t1", NULL), 0);
	CU_ASSERT_EQUAL(committed("t1", 0), -1);
	CU_ASSERT_EQUAL(committed("t1", 1), -1);
	CU_ASSERT_EQUAL(produce(&d, "t1", 0, 500, 3), 0);
	assert_consumed(&d, "t1", 0, 0, 500, 503);
	out = consume(&d, "t1", 1);
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "(failed)", "");
	free(out);
	CU_ASSERT_EQUAL(committed("t2", 0), -1);
}

/* Unknown and invalid names: a clear error each, nothing deleted. */
static void
test_delete_unknown(void)
{
	struct flume_client *c;
	char *out = NULL, *err = NULL, bin[600];
	int32_t parts = -1;
	int before = flumed_log_count(&d, "delete of topic nosuch refused");

	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
	CU_ASSERT_EQUAL(flume_delete_topic(c, "nosuch", &parts), -1);
	CU_ASSERT_EQUAL(flume_broker_error(c), ERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL(parts, -1);
	CU_ASSERT_EQUAL(flume_delete_topic(c, "bad/name", &parts), -1);
	CU_ASSERT_EQUAL(flume_broker_error(c), ERR_INVALID_TOPIC);
	flume_close(c);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "delete of topic nosuch refused",
	    before + 1, 5000), before + 1);

	/* One bad name among several: the others are still deleted. */
	CU_ASSERT_EQUAL(admin(&d, NULL, "create", "t3", NULL), 0);
	snprintf(bin, sizeof(bin), "%s/flume-admin", support_bindir());
	{
		const char *full[] = { "flume-admin", "-b", d.broker, "delete",
		    "nosuch", "t3", NULL };

		CU_ASSERT_EQUAL(support_run_cmd(bin, full, NULL, &out, &err,
		    30000), 1);
	}
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "",
	    "deleted t3 with 2 partitions\n");
	CU_ASSERT_PTR_NOT_NULL(err != NULL ? strstr(err,
	    "cannot delete nosuch: ") : NULL);
	free(out);
	free(err);
	out = NULL;
	CU_ASSERT_EQUAL(admin(&d, &out, "topics", NULL, NULL), 0);
	CU_ASSERT_PTR_NULL(out != NULL ? strstr(out, "t3 ") : "t3 ");
	free(out);
	/* Usage: delete needs a topic. */
	CU_ASSERT_EQUAL(admin(&d, NULL, "delete", NULL, NULL), 2);
}

/*
 * Create and delete in a loop, two partitions a time, more rounds than
 * max_partitions has slots for without reuse: each round starts empty.
 */
static void
test_delete_reuses_slots(void)
{
	char *want;
	char *got;
	int i;

	for (i = 0; i < LOOP_ROUNDS; i++) {
		CU_ASSERT_EQUAL_FATAL(admin(&d, NULL, "create", "loop", NULL), 0);
		CU_ASSERT_EQUAL_FATAL(produce(&d, "loop", 1, i, 1), 0);
		got = consume(&d, "loop", 1);
		want = expected("loop", 1, 0, i, i + 1);
		CU_ASSERT(got != NULL && strcmp(got, want) == 0);
		free(got);
		free(want);
		CU_ASSERT_EQUAL_FATAL(admin(&d, NULL, "delete", "loop", NULL), 0);
	}
	CU_ASSERT_EQUAL(flumed_log_count(&d, "deleted topic loop"), LOOP_ROUNDS);
	/* t2 was never touched by any of it. */
	assert_consumed(&d, "t2", 1, 0, 0, 10);
}

/*
 * Issue 32: a broker of 4 partition slots, each used once by a topic of
 * one partition and freed by its delete, makes a topic of 3 partitions
 * without a restart (the freed slots merge), and it takes records.
 */
static void
test_delete_holes_merge(void)
{
	const char *del[] = { "flume-admin", "delete", "h0", "h1", "h2", "h3",
	    NULL };
	const char *big[] = { "flume-admin", "create", "big", "-p", "3", NULL };
	char name[8];
	int i;

	CU_ASSERT_EQUAL_FATAL(flumed_start(&small, "partitions = 1\n"
	    "max_partitions = 4\nmax_topics = 8\nauto_create_topics = false\n"),
	    0);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		CU_ASSERT_EQUAL_FATAL(admin(&small, NULL, "create", name, NULL), 0);
	}
	CU_ASSERT_NOT_EQUAL(run_tool(&small, NULL, NULL, 30000, big), 0);
	CU_ASSERT_EQUAL_FATAL(run_tool(&small, NULL, NULL, 30000, del), 0);
	CU_ASSERT_EQUAL(run_tool(&small, NULL, NULL, 30000, big), 0);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(produce(&small, "big", i, 10 * i, 2), 0);
		assert_consumed(&small, "big", i, 0, 10 * i, 10 * i + 2);
	}
	flumed_cleanup(&small);
}

/* Issue 15's proof: kafka-python's KafkaAdminClient creates, lists, deletes. */
static void
test_kafka_python_admin(void)
{
	const char *argv[] = { PYTHON, CLIENTS, "admin", kbroker, "ka", NULL };
	char *out = NULL, *err = NULL;
	int rc;

	rc = support_run_cmd(PYTHON, argv, NULL, &out, &err, 60000);
	if (rc != 0)
		fprintf(stderr, "kafka_clients.py admin: %s\n", err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "", "admin: listed True, "
	    "delete [0], listed after False, again unknown\n");
	free(out);
	free(err);
	CU_ASSERT_FALSE(exists(d.data, "ka"));
}

/*
 * The broker dies right after the rename (FLUME_TEST_DELETE_CRASH): the
 * topic's directory is a tombstone, and the next start removes it and
 * does not bring the topic back; the other topic is intact.
 */
static void
test_delete_crash_recovery(void)
{
	struct flumed c;
	char *out = NULL;
	long long deadline;
	int st = 0, gone = 0;
	pid_t r;

	CU_ASSERT_EQUAL_FATAL(setenv("FLUME_TEST_DELETE_CRASH", "1", 1), 0);
	if (flumed_start(&c, "partitions = 2\nauto_create_topics = false\n") !=
	    0) {
		unsetenv("FLUME_TEST_DELETE_CRASH");
		CU_FAIL_FATAL("broker did not start");
	}
	unsetenv("FLUME_TEST_DELETE_CRASH");
	CU_ASSERT_EQUAL(admin(&c, NULL, "create", "t1", NULL), 0);
	CU_ASSERT_EQUAL(admin(&c, NULL, "create", "t2", NULL), 0);
	CU_ASSERT_EQUAL(produce(&c, "t1", 0, 0, 5), 0);
	CU_ASSERT_EQUAL(produce(&c, "t2", 1, 0, 5), 0);
	/* The answer never comes: the broker is killed half-way. */
	CU_ASSERT_NOT_EQUAL(admin(&c, NULL, "delete", "t1", NULL), 0);
	deadline = support_now_ms() + 10000;
	while (!gone && support_now_ms() < deadline) {
		r = waitpid(c.pid, &st, WNOHANG);
		if (r == c.pid)
			gone = 1;
		else
			usleep(10 * 1000);
	}
	if (!gone) {
		/* Always clean up: a broker left running would outlive the test. */
		flumed_cleanup(&c);
		CU_FAIL_FATAL("the broker did not die after the rename");
	}
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* The workers and the writer go with it (same process group). */
	flumed_kill(&c);
	CU_ASSERT_FALSE(exists(c.data, "t1"));
	CU_ASSERT_EQUAL(count_prefixed(c.data, ".deleted-t1~"), 1);
	CU_ASSERT_TRUE(exists(c.data, "t2"));

	if (flumed_restart(&c) != 0) {
		flumed_cleanup(&c);
		CU_FAIL_FATAL("no restart");
	}
	CU_ASSERT_EQUAL(flumed_log_count(&c,
	    "finished 1 topic delete a previous run left half-done"), 1);
	CU_ASSERT_EQUAL(count_prefixed(c.data, ".deleted-"), 0);
	CU_ASSERT_FALSE(exists(c.data, "t1"));
	CU_ASSERT_EQUAL(admin(&c, &out, "topics", NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "", "t2 2\n");
	free(out);
	assert_consumed(&c, "t2", 1, 0, 0, 5);
	/* And t1 made again is empty. */
	CU_ASSERT_EQUAL(admin(&c, NULL, "create", "t1", NULL), 0);
	CU_ASSERT_EQUAL(produce(&c, "t1", 0, 7, 1), 0);
	assert_consumed(&c, "t1", 0, 0, 7, 8);
	flumed_cleanup(&c);
}

/* Native DELETE_TOPIC of topic as user; the answer's error code. */
static int
native_delete(const struct flumed *b, const char *user, const char *pw,
    const char *topic)
{
	struct wbuf wb;
	int fd, rc;

	if ((fd = support_connect(b)) == -1)
		return -3000;
	if (support_handshake(fd, 1, 5000) != 0 ||
	    support_auth(fd, user, pw) != 0) {
		close(fd);
		return -4000;
	}
	wbuf_init(&wb);
	wbuf_str(&wb, topic, strlen(topic));
	wbuf_i32(&wb, 10000);
	rc = support_call(fd, API_DELETE_TOPIC, 2, &wb, 15000, NULL, NULL);
	wbuf_free(&wb);
	close(fd);
	return rc;
}

/* One raw Kafka request on fd (client id "t"); 0 or -1. */
static int
ksend(int fd, int16_t key, int16_t ver, int32_t corr, const uint8_t *body,
    size_t blen)
{
	return support_kafka_send(fd, key, ver, corr, body, blen);
}

/*
 * Kafka DeleteTopics v1 of topic as user (SASL PLAIN, which the broker
 * offers on loopback): that topic's error code, or < -1000 on failure.
 */
static int
kafka_delete(int port, const char *user, const char *pw, const char *topic)
{
	struct flumed k;
	uint8_t body[256], *p = NULL;
	size_t n = 0, tl = strlen(topic), ul = strlen(user), pl = strlen(pw);
	uint32_t id;
	int fd, rc = -5000;

	memset(&k, 0, sizeof(k));
	k.port = port;
	if ((fd = support_connect(&k)) == -1)
		return -3000;
	/* SaslHandshake v1 "PLAIN". */
	be16_put(body, 5);
	memcpy(body + 2, "PLAIN", 5);
	if (ksend(fd, KAPI_SASL_HANDSHAKE, 1, 1, body, 7) != 0 ||
	    support_recv(fd, 10000, &id, &p, &n) != 1 || n < 2 ||
	    be16_get(p) != 0)
		goto out;
	free(p);
	p = NULL;
	/* SaslAuthenticate v0: bytes "\0user\0password". */
	be32_put(body, (uint32_t)(2 + ul + pl));
	body[4] = 0;
	memcpy(body + 5, user, ul);
	body[5 + ul] = 0;
	memcpy(body + 6 + ul, pw, pl);
	if (ksend(fd, KAPI_SASL_AUTHENTICATE, 0, 2, body, 6 + ul + pl) != 0 ||
	    support_recv(fd, 10000, &id, &p, &n) != 1 || n < 2 ||
	    be16_get(p) != 0)
		goto out;
	free(p);
	p = NULL;
	/* DeleteTopics v1: [topic], timeout_ms. */
	be32_put(body, 1);
	be16_put(body + 4, (uint16_t)tl);
	memcpy(body + 6, topic, tl);
	be32_put(body + 6 + tl, 10000);
	if (ksend(fd, KAPI_DELETE_TOPICS, 1, 3, body, 10 + tl) != 0 ||
	    support_recv(fd, 15000, &id, &p, &n) != 1 || id != 3)
		goto out;
	/* throttle i32, count i32 (1), name str, error i16 */
	if (n == 4 + 4 + 2 + tl + 2 && be32_get(p + 4) == 1 &&
	    memcmp(p + 10, topic, tl) == 0)
		rc = (int16_t)be16_get(p + 10 + tl);
out:
	free(p);
	close(fd);
	return rc;
}

/*
 * With an auth_file, deleting needs admin on the topic (the permission
 * that creates it): a consume-only user is refused on both protocols
 * (ACCESS_DENIED, Kafka TOPIC_AUTHORIZATION_FAILED 29) and the topic
 * stays; an admin deletes it (0), and again finds none (3).
 */
static void
test_delete_needs_admin(void)
{
	struct flumed a;
	char *dir, users[600], extra[1024], *out = NULL;
	int kp;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir = test_mkdtemp("delauth"));
	snprintf(users, sizeof(users), "%s/users", dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(users, "w"));
	fprintf(f, "alice:alice-pw:produce,consume,admin\nbob:bob-pw:consume\n");
	fclose(f);
	chmod(users, 0600);
	CU_ASSERT_FATAL((kp = support_free_port()) > 0);
	snprintf(extra, sizeof(extra), "auth_file = %s\nkafka_listen = "
	    "127.0.0.1:%d\nauto_create_topics = false\n[topic a1]\n"
	    "partitions = 1\n[topic a2]\npartitions = 1\n", users, kp);
	CU_ASSERT_FATAL(flumed_start(&a, extra) == 0);

	CU_ASSERT_EQUAL(native_delete(&a, "bob", "bob-pw", "a1"),
	    ERR_ACCESS_DENIED);
	CU_ASSERT_EQUAL(kafka_delete(kp, "bob", "bob-pw", "a2"),
	    KERR_TOPIC_AUTHORIZATION_FAILED);
	CU_ASSERT_TRUE(exists(a.data, "a1"));
	CU_ASSERT_TRUE(exists(a.data, "a2"));

	CU_ASSERT_EQUAL(native_delete(&a, "alice", "alice-pw", "a1"), ERR_NONE);
	CU_ASSERT_EQUAL(kafka_delete(kp, "alice", "alice-pw", "a2"), KERR_NONE);
	CU_ASSERT_EQUAL(kafka_delete(kp, "alice", "alice-pw", "a2"),
	    KERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL(native_delete(&a, "alice", "alice-pw", "a1"),
	    ERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_FALSE(exists(a.data, "a1"));
	CU_ASSERT_FALSE(exists(a.data, "a2"));
	free(out);
	flumed_cleanup(&a);
	test_rmtree(dir);
	free(dir);
}

/* A one-record acks=all PRODUCE payload for topic/0. */
static void
produce_payload(struct wbuf *wb, const char *topic, const char *value)
{
	struct batch_builder bb;
	const uint8_t *batch;
	size_t blen;

	batch_builder_init(&bb);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1700000000000LL, NULL, -1,
	    value, (int32_t)strlen(value), NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &batch, &blen), 0);
	wbuf_i8(wb, -1);
	wbuf_i32(wb, 30000);
	wbuf_i32(wb, 1);
	wbuf_str(wb, topic, strlen(topic));
	wbuf_i32(wb, 0);
	wbuf_bytes(wb, batch, (int32_t)blen);
	batch_builder_free(&bb);
}

/*
 * An acks=all produce parked because fdatasync fails (FLUME_FAULT) is
 * answered UNKNOWN_TOPIC_OR_PARTITION as soon as its topic is deleted,
 * not left to time out; the delete itself, whose directory sync fails
 * too, is retried and answered once the fault is gone.
 */
static void
test_delete_answers_parked_produce(void)
{
	struct flumed f;
	struct wbuf wb;
	char env[700], flag[600], *dir;
	uint8_t *p = NULL;
	size_t n = 0;
	uint32_t id;
	long long t0;
	int fd1, fd2, rc;
	FILE *fl;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir = test_mkdtemp("delfault"));
	snprintf(flag, sizeof(flag), "%s/fault-on", dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fl = fopen(flag, "w"));
	fclose(fl);
	/* From the first byte of a segment on: the log opens, syncs fail. */
	snprintf(env, sizeof(env), "fsync:1:%s", flag);
	setenv("FLUME_FAULT", env, 1);
	rc = flumed_start(&f, "auto_create_topics = false\n"
	    "[topic p]\npartitions = 1\n");
	unsetenv("FLUME_FAULT");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	fd1 = support_connect_served(&f, 5000);
	fd2 = support_connect_served(&f, 5000);
	if (fd1 < 0 || fd2 < 0) {
		flumed_cleanup(&f);
		CU_FAIL_FATAL("cannot connect");
	}

	wbuf_init(&wb);
	produce_payload(&wb, "p", "parked");
	CU_ASSERT_EQUAL(support_request(fd1, API_PRODUCE, 7, wb.buf, wb.len), 0);
	/* Parked: its fdatasync failed (and keeps failing). */
	if (flumed_wait_log(&f, "p-0: fdatasync: Input/output error; "
	    "keeping the data in memory", 1, 10000) < 1) {
		flumed_cleanup(&f);
		CU_FAIL_FATAL("the produce was not held back by the fault");
	}
	wbuf_reset(&wb);
	wbuf_str(&wb, "p", 1);
	wbuf_i32(&wb, 30000);
	t0 = support_now_ms();
	CU_ASSERT_EQUAL(support_request(fd2, API_DELETE_TOPIC, 8, wb.buf,
	    wb.len), 0);
	/* The produce: refused at once, well before its 30 s timeout. */
	CU_ASSERT_EQUAL(support_recv(fd1, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(id, 7);
	CU_ASSERT(n >= 8 && be16_get(p) == 0 && be32_get(p + 2) == 1 &&
	    (int16_t)be16_get(p + 6) == ERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT(support_now_ms() - t0 < 10000);
	free(p);
	p = NULL;
	/* The delete waits for its directory sync, which fails until now. */
	CU_ASSERT(flumed_wait_log(&f, "delete topic p: renaming its directory",
	    1, 10000) >= 1);
	CU_ASSERT_EQUAL(unlink(flag), 0);
	CU_ASSERT_EQUAL(support_recv(fd2, 20000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(id, 8);
	CU_ASSERT(n == 6 && be16_get(p) == ERR_NONE && be32_get(p + 2) == 1);
	free(p);
	CU_ASSERT_FALSE(exists(f.data, "p"));
	CU_ASSERT_EQUAL(count_prefixed(f.data, ".deleted-"), 0);
	wbuf_free(&wb);
	close(fd1);
	close(fd2);
	flumed_cleanup(&f);
	test_rmtree(dir);
	free(dir);
}

TEST_SUITE("delete", setup, teardown,
	{ "a parked acks=all produce is answered at the delete",
	    test_delete_answers_parked_produce },
	{ "with auth_file: admin permission deletes", test_delete_needs_admin },
	{ "delete keeps other topics, recreate starts at 0",
	    test_delete_keeps_others },
	{ "unknown and invalid names", test_delete_unknown },
	{ "slots are reused", test_delete_reuses_slots },
	{ "freed slots merge for a larger topic", test_delete_holes_merge },
	{ "kafka-python KafkaAdminClient", test_kafka_python_admin },
	{ "crash after the rename: start-up finishes it",
	    test_delete_crash_recovery });
