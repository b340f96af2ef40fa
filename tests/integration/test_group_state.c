/*
 * Consumer-group state against the real daemon: committed offsets below
 * 0 (Kafka's "reset to earliest", as kafkajs' admin.resetOffsets commits
 * it) are stored and read as none.
 *
 * Every process is started by this test and signalled by pid; every
 * wait is a bounded poll of a condition.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/kafka/kapi.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define KAFKAJS_JS	"tests/tools/kafkajs_reset.js"
#define KAFKAJS_CACHE	".cache/flume/kafkajs-2.2.4/node_modules"

static struct flumed d;
static int kport;
static char kbroker[64];

static int
setup(void)
{
	char extra[512];

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(kbroker, sizeof(kbroker), "127.0.0.1:%d", kport);
	snprintf(extra, sizeof(extra), "kafka_listen = %s\n"
	    "group_min_session_timeout_ms = 500\n"
	    "group_rebalance_timeout_ms = 5s\n"
	    "group_initial_rebalance_delay_ms = 300ms\n"
	    "[topic t1]\npartitions = 1\n[topic kj]\npartitions = 1\n",
	    kbroker);
	return flumed_start(&d, extra);
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* Produce lines (keyed "k:v" when keyed) to topic, acks=all; exit status. */
static int
produce(const char *topic, const char *lines, int keyed)
{
	const char *kv[] = { "flume-produce", "-t", topic, "-a", "all", "-K", ":",
	    NULL };
	const char *plain[] = { "flume-produce", "-t", topic, "-a", "all", NULL };

	return run_tool(&d, lines, NULL, 30000, keyed ? kv : plain);
}

/* ---- A: offsets below 0 ---- */

/* A raw native call on fd; the answer's payload (free it) or NULL. */
static uint8_t *
raw_call(int fd, uint16_t api, uint32_t id, struct wbuf *wb, size_t *len)
{
	uint8_t *p = NULL;
	uint32_t rid = 0;

	if (support_request(fd, api, id, wb->buf, wb->len) != 0 ||
	    support_recv(fd, 10000, &rid, &p, len) != 1 || rid != id) {
		free(p);
		p = NULL;
	}
	wbuf_reset(wb);
	return p;
}

/* OFFSET_COMMIT of t1/0 at offset as member id of gen: the partition's error. */
static int
native_commit(int fd, struct wbuf *wb, const char *group, const char *id,
    int32_t gen, int64_t offset)
{
	struct commit_part cp = { "t1", 2, 0, offset };
	struct offset_commit_req q = { group, strlen(group), id, strlen(id), gen,
	    1, &cp };
	struct offset_commit_resp r;
	struct arena a;
	uint8_t *p;
	size_t len;
	int e = -1;

	msg_encode_offset_commit_req(wb, &q);
	arena_init(&a, 1 << 16);
	if ((p = raw_call(fd, API_OFFSET_COMMIT, 7, wb, &len)) != NULL &&
	    msg_decode_offset_commit_resp(p, len, &a, &r) == 0)
		e = r.error != ERR_NONE ? r.error : r.count == 1 ? r.errors[0] : -1;
	free(p);
	arena_free(&a);
	return e;
}

/*
 * A member commits 3, then -2 (Kafka's "earliest", which Kafka stores):
 * the commit is taken, libflume reads it as none, and the next member
 * starts at its start_offset (the beginning), not at 3.
 */
static void
test_commit_below_zero(void)
{
	struct wire_str t = { "t1", 2 };
	struct join_group_req jq = { "neg", 3, "", 0, "raw", 3, 10000, 1, &t };
	struct join_group_resp jr;
	struct leave_group_req lq;
	struct flume_group_conf gconf;
	struct flume_client *c;
	struct flume_group *g;
	struct flume_message m;
	struct arena a;
	struct wbuf wb;
	char id[MEMBER_ID_MAX + 1];
	uint8_t *p;
	size_t len;
	int64_t off = 0;
	int fd, rc;

	CU_ASSERT_EQUAL_FATAL(produce("t1", "n0\nn1\nn2\nn3\nn4\n", 0), 0);
	fd = support_connect_served(&d, 5000);
	CU_ASSERT_FATAL(fd >= 0);
	wbuf_init(&wb);
	arena_init(&a, 1 << 16);
	msg_encode_join_group_req(&wb, &jq);
	p = raw_call(fd, API_JOIN_GROUP, 1, &wb, &len);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL_FATAL(msg_decode_join_group_resp(p, len, &a, &jr), 0);
	CU_ASSERT_EQUAL_FATAL(jr.error, ERR_NONE);
	CU_ASSERT_FATAL(jr.member_id_len > 0 && jr.member_id_len <= MEMBER_ID_MAX);
	memcpy(id, jr.member_id, jr.member_id_len);
	id[jr.member_id_len] = '\0';
	free(p);
	CU_ASSERT_EQUAL(native_commit(fd, &wb, "neg", id, jr.generation, 3),
	    ERR_NONE);
	CU_ASSERT_EQUAL(native_commit(fd, &wb, "neg", id, jr.generation, -2),
	    ERR_NONE);
	lq.group = "neg";
	lq.group_len = 3;
	lq.member_id = id;
	lq.member_id_len = strlen(id);
	msg_encode_leave_group_req(&wb, &lq);
	free(raw_call(fd, API_LEAVE_GROUP, 8, &wb, &len));
	close(fd);
	wbuf_free(&wb);
	arena_free(&a);

	c = flume_connect(d.broker);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL(flume_committed_offset(c, "neg", "t1", 0, &off), 0);
	CU_ASSERT_EQUAL(off, -1);
	flume_group_conf_init(&gconf);
	gconf.start_offset = FLUME_OFFSET_BEGINNING;
	gconf.auto_commit_ms = 0;
	g = flume_group_join(c, "neg", (const char *const[]){ "t1" }, 1, &gconf);
	CU_ASSERT_FATAL(g != NULL);
	rc = flume_group_poll(g, &m, 10000);
	CU_ASSERT_EQUAL(rc, 1);
	if (rc == 1) {
		CU_ASSERT_EQUAL(m.offset, 0);
		CU_ASSERT_EQUAL(m.value_len, 2);
		CU_ASSERT_EQUAL(memcmp(m.value, "n0", 2), 0);
	}
	CU_ASSERT_EQUAL(flume_group_close(g), 0);
	flume_close(c);
}

/* NODE_PATH holding kafkajs, or NULL (then the test says so and fails). */
static const char *
kafkajs_path(char buf[1024])
{
	const char *env = getenv("NODE_PATH"), *home = getenv("HOME");
	struct stat st;
	char probe[1200];

	if (env != NULL && *env != '\0') {
		snprintf(probe, sizeof(probe), "%s/kafkajs/package.json", env);
		if (stat(probe, &st) == 0) {
			snprintf(buf, 1024, "%s", env);
			return buf;
		}
	}
	if (home == NULL)
		return NULL;
	snprintf(buf, 1024, "%s/%s", home, KAFKAJS_CACHE);
	snprintf(probe, sizeof(probe), "%s/kafkajs/package.json", buf);
	return stat(probe, &st) == 0 ? buf : NULL;
}

/*
 * kafkajs 2.2.4 (tests/tools/kafkajs_reset.js): a group reads 5 records
 * and commits; admin.resetOffsets({ earliest: true }) returns (it used
 * to crash its internal consumer on OFFSET_OUT_OF_RANGE and never
 * return); the group then reads the 5 again from the start.
 */
static void
test_kafkajs_reset_offsets(void)
{
	const char *argv[] = { "node", KAFKAJS_JS, kbroker, "kj", "kjg", "5",
	    NULL };
	char path[1024], *out = NULL, *err = NULL;
	int rc;

	if (kafkajs_path(path) == NULL) {
		fprintf(stderr, "kafkajs 2.2.4 is not installed: run "
		    "`tests/compat/run kafkajs` once (npm) or set NODE_PATH\n");
		CU_FAIL("kafkajs not installed");
		return;
	}
	setenv("NODE_PATH", path, 1);
	rc = support_run_cmd("/usr/bin/node", argv, NULL, &out, &err, 90000);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (strcmp(out, "first 5 v0 v4\nreset ok\ncommitted -2\n"
	    "second 5 v0 v4\n") != 0)
		fprintf(stderr, "kafkajs_reset.js said:\n%s\nstderr:\n%s\n", out,
		    err != NULL ? err : "");
	CU_ASSERT_STRING_EQUAL(out, "first 5 v0 v4\nreset ok\ncommitted -2\n"
	    "second 5 v0 v4\n");
	free(out);
	free(err);
}

TEST_SUITE("group_state", setup, teardown,
    { "a commit below 0 is stored and read as none", test_commit_below_zero },
    { "kafkajs admin.resetOffsets to earliest returns; the group rereads",
      test_kafkajs_reset_offsets });
