/*
 * Creating a topic answers only once the topic is on disk: the native
 * CREATE_TOPIC and Kafka's CreateTopics wait for the writer to make the
 * directory, topic.meta and each partition's directory, so the files are
 * there when the answer is read.  Kafka's timeout_ms bounds the wait
 * (0: none); with the writer stopped (SIGSTOP on the writer the daemon
 * forked, always continued again) a create times out but stays created,
 * and a topic whose directory cannot be made (a regular file of its
 * name in data_dir) is answered the storage error.
 *
 * The broker: 2 workers (the writer in slot 2), auto_create_topics off,
 * a Kafka listener.
 */
#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "proto/crc32c.h"
#include "proto/kafka/kapi.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"
#include "worker/op/topics.h"

#define WRITER_SLOT	2	/* after the 2 workers flumed_start asks for */

static struct flumed d;

static int
setup(void)
{
	return flumed_start_kafka(&d, NULL, "auto_create_topics = false\n");
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* Is data_dir/topic/sub (sub NULL: the topic directory) a file / directory? */
static int
on_disk(const char *topic, const char *sub, int dir)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s%s%s", d.data, topic,
	    sub != NULL ? "/" : "", sub != NULL ? sub : "");
	if (stat(path, &st) == -1)
		return 0;
	return dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

/* topic.meta and partition-0 .. partition-(n-1) all exist. */
static int
topic_on_disk(const char *topic, int n)
{
	char sub[32];
	int i;

	if (!on_disk(topic, "topic.meta", 0))
		return 0;
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "partition-%d", i);
		if (!on_disk(topic, sub, 1))
			return 0;
	}
	return 1;
}

/* Native CREATE_TOPIC on fd: the answer's error, its partitions in *parts. */
static int
ncreate(int fd, uint32_t id, const char *topic, int32_t n, int32_t *parts)
{
	struct create_topic_req q = { topic, strlen(topic), n };
	struct create_topic_resp r;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t len = 0;
	int rc;

	wbuf_init(&wb);
	msg_encode_create_topic_req(&wb, &q);
	rc = support_call(fd, API_CREATE_TOPIC, id, &wb, 40000, &p, &len);
	wbuf_free(&wb);
	if (rc >= 0 && msg_decode_create_topic_resp(p, len, &r) == 0) {
		*parts = r.partitions;
		rc = r.error;
	} else if (rc >= 0)
		rc = -3000;
	free(p);
	return rc;
}

/*
 * Kafka CreateTopics v0 of one topic (n partitions, replication 1) with
 * timeout_ms, as request corr: the topic's error code, or -1 when the
 * answer did not come (10 s) or is not about that topic.
 */
static int
kcreate(int fd, int32_t corr, const char *topic, int32_t n, int32_t timeout_ms)
{
	uint8_t buf[256], *p = NULL;
	size_t len = 4, tl = strlen(topic), plen = 0;
	uint32_t id;
	int rc = -1;

	be16_put(buf + len, KAPI_CREATE_TOPICS);
	be16_put(buf + len + 2, 0);
	be32_put(buf + len + 4, (uint32_t)corr);
	be16_put(buf + len + 8, 1);
	buf[len + 10] = 't';			/* client id "t" */
	len += 11;
	be32_put(buf + len, 1);			/* one topic */
	be16_put(buf + len + 4, (uint16_t)tl);
	memcpy(buf + len + 6, topic, tl);
	len += 6 + tl;
	be32_put(buf + len, (uint32_t)n);	/* partitions */
	be16_put(buf + len + 4, 1);		/* replication factor */
	be32_put(buf + len + 6, 0);		/* assignments */
	be32_put(buf + len + 10, 0);		/* configs */
	be32_put(buf + len + 14, (uint32_t)timeout_ms);
	len += 18;
	be32_put(buf, (uint32_t)(len - 4));
	if (support_send(fd, buf, len) == -1 ||
	    support_recv(fd, 10000, &id, &p, &plen) != 1 ||
	    id != (uint32_t)corr)
		goto out;
	/* v0: [1][name][error] */
	if (plen == 4 + 2 + tl + 2 && be32_get(p) == 1 &&
	    be16_get(p + 4) == tl && memcmp(p + 6, topic, tl) == 0)
		rc = (int16_t)be16_get(p + 6 + tl);
out:
	free(p);
	return rc;
}

/*
 * The files are there when the answer is read, every time (before this
 * change the answer came before the writer had even made the directory).
 */
static void
test_native_create_on_disk(void)
{
	char name[32];
	int32_t parts = 0;
	int fd, i;

	CU_ASSERT_FATAL((fd = support_connect_served(&d, 5000)) >= 0);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		CU_ASSERT_EQUAL(ncreate(fd, (uint32_t)(10 + i), name, 3, &parts),
		    ERR_NONE);
		CU_ASSERT_EQUAL(parts, 3);
		CU_ASSERT(topic_on_disk(name, 3));
	}
	/* An existing topic: TOPIC_EXISTS with its partitions, at once. */
	CU_ASSERT_EQUAL(ncreate(fd, 30, "n0", 5, &parts), ERR_TOPIC_EXISTS);
	CU_ASSERT_EQUAL(parts, 3);
	close(fd);
}

static void
test_kafka_create_on_disk(void)
{
	char name[32];
	int fd, i;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		CU_ASSERT_EQUAL(kcreate(fd, 10 + i, name, 2, 10000), KERR_NONE);
		CU_ASSERT(topic_on_disk(name, 2));
	}
	CU_ASSERT_EQUAL(kcreate(fd, 30, "k0", 2, 10000),
	    KERR_TOPIC_ALREADY_EXISTS);
	close(fd);
}

/*
 * The writer stopped: timeout_ms 0 answers NONE at once (nothing can be
 * on disk yet), timeout_ms 300 answers REQUEST_TIMED_OUT after it, and
 * both topics exist; once the writer runs again a native create waits
 * for it and finds all three on disk.
 */
static void
test_writer_held(void)
{
	pid_t writer;
	long long t0, took;
	int32_t parts = 0;
	int kfd, nfd;

	CU_ASSERT_FATAL((writer = flumed_child_pid(&d, "writer", WRITER_SLOT)) > 0);
	CU_ASSERT_FATAL((kfd = support_kconnect(&d)) >= 0);
	CU_ASSERT_FATAL((nfd = support_connect_served(&d, 5000)) >= 0);
	CU_ASSERT_FATAL(kill(writer, SIGSTOP) == 0);
	/* Only non-fatal checks until the writer is continued. */
	CU_ASSERT_EQUAL(kcreate(kfd, 1, "h0", 1, 0), KERR_NONE);
	CU_ASSERT_FALSE(on_disk("h0", NULL, 1));
	t0 = support_now_ms();
	CU_ASSERT_EQUAL(kcreate(kfd, 2, "h1", 1, 300), KERR_REQUEST_TIMED_OUT);
	took = support_now_ms() - t0;
	CU_ASSERT(took >= 290);
	CU_ASSERT_FALSE(on_disk("h1", NULL, 1));
	CU_ASSERT_EQUAL(kcreate(kfd, 3, "h1", 1, 300), KERR_TOPIC_ALREADY_EXISTS);
	CU_ASSERT_EQUAL(kill(writer, SIGCONT), 0);

	CU_ASSERT_EQUAL(ncreate(nfd, 4, "h2", 1, &parts), ERR_NONE);
	CU_ASSERT(topic_on_disk("h2", 1));
	CU_ASSERT(topic_on_disk("h0", 1));
	CU_ASSERT(topic_on_disk("h1", 1));
	close(kfd);
	close(nfd);
}

/*
 * A create parked while the writer is stopped, then the writer killed:
 * the writer the master forks in its place opens the topic as it starts
 * (writer_open), and the parked create is answered, well before its
 * 25 s (TOPIC_CREATE_TIMEOUT_MS).  A broker of its own, holding no other
 * topic.
 */
static void
test_writer_restarted(void)
{
	struct create_topic_req q = { "r0", 2, 1 };
	struct create_topic_resp r = { -1, 0 };
	struct flumed f;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t len = 0;
	uint32_t id = 0;
	pid_t writer;
	long long t0;
	char path[1024];
	struct stat st;
	int fd;

	CU_ASSERT_EQUAL_FATAL(flumed_start(&f, "auto_create_topics = false\n"),
	    0);
	writer = flumed_child_pid(&f, "writer", WRITER_SLOT);
	fd = support_connect_served(&f, 5000);
	if (writer <= 0 || fd < 0 || kill(writer, SIGSTOP) == -1) {
		flumed_cleanup(&f);
		CU_FAIL_FATAL("no writer or no connection");
	}
	wbuf_init(&wb);
	msg_encode_create_topic_req(&wb, &q);
	CU_ASSERT_EQUAL(support_request(fd, API_CREATE_TOPIC, 9, wb.buf,
	    wb.len), 0);
	wbuf_free(&wb);
	/* Parked: nothing comes while the writer cannot run. */
	CU_ASSERT_EQUAL(support_recv(fd, 300, &id, &p, &len), -1);
	t0 = support_now_ms();
	CU_ASSERT_EQUAL(kill(writer, SIGKILL), 0);
	/*
	 * Read past the create's own deadline, so that an answer only that
	 * deadline would bring is read too, and late: the restart must bring
	 * it well before.
	 */
	CU_ASSERT_EQUAL(support_recv(fd, TOPIC_CREATE_TIMEOUT_MS + 5000, &id,
	    &p, &len), 1);
	CU_ASSERT(support_now_ms() - t0 < TOPIC_CREATE_TIMEOUT_MS / 2);
	CU_ASSERT_EQUAL(id, 9);
	CU_ASSERT(p != NULL && msg_decode_create_topic_resp(p, len, &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_NONE);
	CU_ASSERT_EQUAL(r.partitions, 1);
	snprintf(path, sizeof(path), "%s/r0/partition-0", f.data);
	CU_ASSERT(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	free(p);
	close(fd);
	flumed_cleanup(&f);
}

/* Make data_dir/name a regular file, so its directory cannot be made. */
static int
block(const char *name)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", d.data, name);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	return fclose(f);
}

static int
unblock(const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", d.data, name);
	return unlink(path);
}

/* Wait (<= 10 s) until topic's files are on disk; 1 if they came. */
static int
await_on_disk(const char *topic, int n)
{
	long long deadline = support_now_ms() + 10000;

	while (!topic_on_disk(topic, n) && support_now_ms() < deadline)
		usleep(20 * 1000);
	return topic_on_disk(topic, n);
}

/*
 * The writer cannot write topic.meta: STORAGE (Kafka: KAFKA_STORAGE_ERROR)
 * well before the timeout, the topic stays created, and the writer makes
 * it once the way is clear.
 */
static void
test_storage_error(void)
{
	int32_t parts = 0;
	int kfd, nfd;

	CU_ASSERT_FATAL((kfd = support_kconnect(&d)) >= 0);
	CU_ASSERT_FATAL((nfd = support_connect_served(&d, 5000)) >= 0);
	CU_ASSERT_FATAL(block("sk") == 0);
	CU_ASSERT_EQUAL(kcreate(kfd, 1, "sk", 1, 8000), KERR_KAFKA_STORAGE_ERROR);
	CU_ASSERT_EQUAL(kcreate(kfd, 2, "sk", 1, 8000), KERR_TOPIC_ALREADY_EXISTS);
	CU_ASSERT_EQUAL(unblock("sk"), 0);

	CU_ASSERT_FATAL(block("sn") == 0);
	CU_ASSERT_EQUAL(ncreate(nfd, 3, "sn", 2, &parts), ERR_STORAGE);
	CU_ASSERT_EQUAL(parts, 2);
	CU_ASSERT(await_on_disk("sk", 1));
	CU_ASSERT_EQUAL(ncreate(nfd, 4, "sn", 2, &parts), ERR_TOPIC_EXISTS);
	CU_ASSERT_EQUAL(unblock("sn"), 0);

	CU_ASSERT_EQUAL(ncreate(nfd, 5, "sa", 1, &parts), ERR_NONE);
	CU_ASSERT(await_on_disk("sn", 2));
	CU_ASSERT(topic_on_disk("sa", 1));
	close(kfd);
	close(nfd);
}

/*
 * Two topics that cannot be made do not hold a third one back: it is
 * answered NONE with its files there while both still fail (before, the
 * writer stopped at the first and the third waited out its 25 s for a
 * TIMEOUT).  Each is made once its way is clear and takes records then.
 * One log line per failing topic: hb is retried (and fails) in the pass
 * that makes ha, before hb is cleared, and logs no second line.
 */
static void
test_storage_error_alone(void)
{
	static const char *const names[] = { "ha", "hb" };
	const char *produce[] = { "flume-produce", "-t", NULL, "-p", "0", NULL };
	const char *consume[] = { "flume-consume", "-t", NULL, "-p", "0",
	    "-o", "beginning", "-e", NULL };
	char *out = NULL;
	int32_t parts = 0;
	int nfd, i;

	CU_ASSERT_FATAL((nfd = support_connect_served(&d, 5000)) >= 0);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(block(names[i]) == 0);
		CU_ASSERT_EQUAL(ncreate(nfd, 10 + i, names[i], 1, &parts),
		    ERR_STORAGE);
	}
	CU_ASSERT_EQUAL(ncreate(nfd, 12, "hc", 3, &parts), ERR_NONE);
	CU_ASSERT_EQUAL(parts, 3);
	CU_ASSERT(topic_on_disk("hc", 3));
	CU_ASSERT(!on_disk("ha", NULL, 1) && !on_disk("hb", NULL, 1));
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(unblock(names[i]), 0);
		CU_ASSERT(await_on_disk(names[i], 1));
		produce[2] = consume[2] = names[i];
		CU_ASSERT_EQUAL(run_tool(&d, "one\ntwo\n", NULL, 10000,
		    produce), 0);
		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, consume), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		CU_ASSERT_STRING_EQUAL(out, "one\ntwo\n");
		free(out);
		out = NULL;
	}
	CU_ASSERT_EQUAL(flumed_log_count(&d, "topic ha: cannot write topic.meta"),
	    1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "topic hb: cannot write topic.meta"),
	    1);
	close(nfd);
}

/* The id line of data_dir/topic/topic.meta into id (33 bytes); 0 or -1. */
static int
meta_id(const char *topic, char *id)
{
	char path[1024], text[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/topic.meta", d.data, topic);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if ((p = strstr(text, "\nid ")) == NULL || strlen(p + 4) < 33 ||
	    p[4 + 32] != '\n')
		return -1;
	memcpy(id, p + 4, 32);
	id[32] = '\0';
	return 0;
}

/*
 * A topic's id (KIP-516) is made at creation, kept in topic.meta and the
 * same after a restart; a topic.meta written before ids gets one at the
 * next start, then keeps it.
 */
static void
test_topic_ids(void)
{
	static const char old[] = "flume-topic 1\npartitions 2\n";
	char path[1024], id[33], again[33], oldid[33];
	int32_t parts = 0;
	FILE *f;
	int fd;

	CU_ASSERT_FATAL((fd = support_connect_served(&d, 5000)) >= 0);
	CU_ASSERT_EQUAL(ncreate(fd, 1, "ids", 1, &parts), ERR_NONE);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(meta_id("ids", id), 0);
	CU_ASSERT_EQUAL(strspn(id, "0123456789abcdef"), 32);
	CU_ASSERT_NOT_EQUAL(strcmp(id, "00000000000000000000000000000000"), 0);

	snprintf(path, sizeof(path), "%s/legacy", d.data);
	CU_ASSERT_EQUAL_FATAL(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/legacy/topic.meta", d.data);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "w"));
	fprintf(f, "%scrc32c %08x\n", old,
	    (unsigned)crc32c(0, old, sizeof(old) - 1));
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	CU_ASSERT_EQUAL(meta_id("legacy", oldid), -1);

	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "topic legacy: given a topic id"),
	    1);
	CU_ASSERT_EQUAL(meta_id("ids", again), 0);
	CU_ASSERT_STRING_EQUAL(again, id);
	CU_ASSERT_EQUAL_FATAL(meta_id("legacy", oldid), 0);
	CU_ASSERT_NOT_EQUAL(strcmp(oldid, id), 0);

	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(meta_id("legacy", again), 0);
	CU_ASSERT_STRING_EQUAL(again, oldid);
	CU_ASSERT_EQUAL(meta_id("ids", again), 0);
	CU_ASSERT_STRING_EQUAL(again, id);
	/* Only the first start gave it one. */
	CU_ASSERT_EQUAL(flumed_log_count(&d, "given a topic id"), 1);
}

TEST_SUITE("create", setup, teardown,
	{ "native CREATE_TOPIC answers with the files on disk",
	    test_native_create_on_disk },
	{ "Kafka CreateTopics answers with the files on disk",
	    test_kafka_create_on_disk },
	{ "writer stopped: timeout_ms 0 at once, else REQUEST_TIMED_OUT",
	    test_writer_held },
	{ "a create parked across a writer restart is answered",
	    test_writer_restarted },
	{ "topic.meta cannot be written: the storage error",
	    test_storage_error },
	{ "a topic that cannot be made holds no other create back",
	    test_storage_error_alone },
	{ "topic ids: made at create, kept in topic.meta, given to old topics",
	    test_topic_ids });
