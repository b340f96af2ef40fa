/*
 * Consumer-group state against the real daemon: committed offsets below
 * 0 (Kafka's "reset to earliest", as kafkajs' admin.resetOffsets commits
 * it) are stored and read as none; two flume-consume -g members stopped
 * by one SIGTERM together commit everything they printed; the group
 * table cannot be filled for good by groups that only commit (room is
 * kept for joins, flume-admin group delete frees a slot, and
 * offsets_retention expires idle empty groups, also across a restart).
 *
 * Every process is started by this test and signalled by pid; every
 * wait is a bounded poll of a condition.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/kafka/kapi.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "store/offsets.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define WAIT_MS		20000
#define KAFKAJS_JS	"tests/tools/kafkajs_reset.js"
#define KAFKAJS_CACHE	".cache/flume/kafkajs-2.2.4/node_modules"

static struct flumed d;

static int
setup(void)
{
	return flumed_start_kafka(&d, NULL,
	    "group_min_session_timeout_ms = 500\n"
	    "group_rebalance_timeout_ms = 5s\n"
	    "group_initial_rebalance_delay_ms = 300ms\n"
	    "max_groups = 64\n"
	    "[topic t1]\npartitions = 1\n[topic kj]\npartitions = 1\n");
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
	p = NULL;
	CU_ASSERT_FATAL(support_call(fd, API_JOIN_GROUP, 1, &wb, 10000, &p,
	    &len) > -1000);
	CU_ASSERT_EQUAL_FATAL(msg_decode_join_group_resp(p, len, &a, &jr), 0);
	CU_ASSERT_EQUAL_FATAL(jr.error, ERR_NONE);
	CU_ASSERT_FATAL(jr.member_id_len > 0 && jr.member_id_len <= MEMBER_ID_MAX);
	memcpy(id, jr.member_id, jr.member_id_len);
	id[jr.member_id_len] = '\0';
	free(p);
	CU_ASSERT_EQUAL(support_commit(fd, "neg", id, jr.generation, "t1", 0, 3),
	    ERR_NONE);
	CU_ASSERT_EQUAL(support_commit(fd, "neg", id, jr.generation, "t1", 0,
	    -2), ERR_NONE);
	lq.group = "neg";
	lq.group_len = 3;
	lq.member_id = id;
	lq.member_id_len = strlen(id);
	wbuf_reset(&wb);
	msg_encode_leave_group_req(&wb, &lq);
	CU_ASSERT_EQUAL(support_call(fd, API_LEAVE_GROUP, 8, &wb, 10000, NULL,
	    NULL), ERR_NONE);
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
	const char *argv[] = { "node", KAFKAJS_JS, d.kbroker, "kj", "kjg", "5",
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

/* ---- B: members that stop together ---- */

struct member {
	pid_t	pid;
	char	out[600];
};

/*
 * flume-consume -g group -t topic, values to m->out; -C 60000: no timed
 * commit within the test, so the rerun shows exactly what the members
 * committed on their rebalances and exits.
 */
static void
member_start(struct member *m, const char *group, const char *topic, int i)
{
	char prog[512];
	int fd;

	snprintf(prog, sizeof(prog), "%s/flume-consume", support_bindir());
	snprintf(m->out, sizeof(m->out), "%s/%s-%d.out", d.dir, group, i);
	fflush(stdout);
	fflush(stderr);
	m->pid = fork();
	CU_ASSERT_FATAL(m->pid >= 0);
	if (m->pid == 0) {
		if ((fd = open(m->out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
			_exit(127);
		dup2(fd, STDOUT_FILENO);
		close(fd);
		execl(prog, "flume-consume", "-b", d.broker, "-g", group, "-t",
		    topic, "-o", "beginning", "-s", "1500", "-C", "60000", "-f",
		    "%v\\n", (char *)NULL);
		_exit(127);
	}
}

/* Distinct "vNNN" values (N < 400) the two members printed together. */
static int
distinct_of(const struct member *m)
{
	char seen[400], line[64];
	FILE *f;
	int i, v, n = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 2; i++) {
		if ((f = fopen(m[i].out, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "v%d", &v) == 1 && v >= 0 && v < 400 &&
			    !seen[v]) {
				seen[v] = 1;
				n++;
			}
		fclose(f);
	}
	return n;
}

/* Lines in a string. */
static int
lines_in(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/* Wait (<= 15 s) for pid; its exit status, or -1 (then SIGKILLed). */
static int
member_wait(struct member *m)
{
	long long deadline = support_now_ms() + 15000;
	int st;
	pid_t r;

	while ((r = waitpid(m->pid, &st, WNOHANG)) == 0 &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);
	if (r != m->pid) {
		kill(m->pid, SIGKILL);
		waitpid(m->pid, NULL, 0);
		st = -1;
	}
	m->pid = 0;
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * The README's scenario: 400 keyed records, two members started
 * together print them between them (often one member all of them, the
 * other joining late), both get SIGTERM at once; each commits what it
 * printed although the other's leave (or its own late join) began a new
 * generation, so a rerun of the group prints nothing.  Three rounds,
 * each with a group and a topic of its own: the old broker refused a
 * last commit in most (ILLEGAL_GENERATION).
 */
static void
test_stop_together(void)
{
	char *in, *out = NULL, name[16];
	const char *argv[] = { "flume-consume", "-g", name, "-t", name, "-o",
	    "beginning", "-e", NULL };
	struct member m[2];
	size_t len = 0;
	int i, round;

	in = malloc(400 * 16);
	CU_ASSERT_FATAL(in != NULL);
	for (i = 0; i < 400; i++)
		len += (size_t)sprintf(in + len, "k%03d:v%03d\n", i, i);
	for (round = 0; round < 3; round++) {
		snprintf(name, sizeof(name), "st%d", round);
		CU_ASSERT_EQUAL_FATAL(produce(name, in, 1), 0);
		member_start(&m[0], name, name, 0);
		member_start(&m[1], name, name, 1);
		WAIT_UNTIL(distinct_of(m) == 400, WAIT_MS);
		CU_ASSERT_EQUAL(distinct_of(m), 400);
		kill(m[0].pid, SIGTERM);
		kill(m[1].pid, SIGTERM);
		CU_ASSERT_EQUAL(member_wait(&m[0]), 0);
		CU_ASSERT_EQUAL(member_wait(&m[1]), 0);
		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
		CU_ASSERT_PTR_NOT_NULL(out);
		if (out != NULL && out[0] != '\0')
			fprintf(stderr, "round %d: the rerun printed %d lines\n",
			    round, lines_in(out));
		CU_ASSERT_STRING_EQUAL(out != NULL ? out : "?", "");
		free(out);
		out = NULL;
	}
	free(in);
}

/* ---- C: the group table ---- */

/*
 * A Kafka OffsetCommit v2 of t1/0 = offset by group (generation -1, no
 * member: a "simple" commit, as kafka-consumer-groups or an assign()ed
 * consumer sends): the partition's error, or -1000.
 */
static int
kafka_commit(int fd, const char *group, int32_t corr, int64_t offset)
{
	struct wbuf wb;
	struct rbuf rb;
	uint8_t *p = NULL;
	uint32_t id = 0;
	size_t n = 0, body;
	int rc = -1000;

	wbuf_init(&wb);
	wbuf_i32(&wb, 0);			/* size, patched below */
	wbuf_i16(&wb, KAPI_OFFSET_COMMIT);
	wbuf_i16(&wb, 2);
	wbuf_i32(&wb, corr);
	wbuf_str(&wb, "raw", 3);
	wbuf_str(&wb, group, strlen(group));
	wbuf_i32(&wb, -1);			/* generation */
	wbuf_str(&wb, "", 0);			/* member id */
	wbuf_i64(&wb, -1);			/* retention time */
	wbuf_i32(&wb, 1);
	wbuf_str(&wb, "t1", 2);
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 0);
	wbuf_i64(&wb, offset);
	wbuf_str(&wb, "", 0);			/* metadata */
	body = wb.len - 4;
	wb.buf[0] = (uint8_t)(body >> 24);
	wb.buf[1] = (uint8_t)(body >> 16);
	wb.buf[2] = (uint8_t)(body >> 8);
	wb.buf[3] = (uint8_t)body;
	if (support_send(fd, wb.buf, wb.len) == 0 &&
	    support_recv(fd, 10000, &id, &p, &n) == 1 && id == (uint32_t)corr) {
		/* [topics: 1][name "t1"][partitions: 1][partition 0][error] */
		rbuf_init(&rb, p, n);
		(void)rbuf_i32(&rb);
		(void)rbuf_raw(&rb, 2 + 2);
		(void)rbuf_i32(&rb);
		(void)rbuf_i32(&rb);
		rc = rbuf_i16(&rb);
		if (rb.err)
			rc = -1000;
	}
	free(p);
	wbuf_free(&wb);
	return rc;
}

/* Set offsets_retention in flume.conf (before any [topic] section). */
static int
conf_retention(const char *value)
{
	char *text = NULL, *line, *nl;
	FILE *f;
	long sz;

	if ((f = fopen(d.conf, "r")) == NULL)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (text = calloc(1, (size_t)sz + 1)) ==
	    NULL || fread(text, 1, (size_t)sz, f) != (size_t)sz) {
		fclose(f);
		free(text);
		return -1;
	}
	fclose(f);
	if ((f = fopen(d.conf, "w")) == NULL) {
		free(text);
		return -1;
	}
	fprintf(f, "offsets_retention = %s\n", value);
	for (line = text; *line != '\0'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line) - 1;
		if (strncmp(line, "offsets_retention", 17) != 0)
			fwrite(line, 1, (size_t)(nl - line + 1), f);
	}
	free(text);
	return fclose(f) == 0 ? 0 : -1;
}

/* Groups flume-admin groups lists. */
static int
groups_listed(void)
{
	struct flume_group_info *l;
	struct flume_client *c;
	int n;

	if ((c = flume_connect(d.broker)) == NULL)
		return -1;
	n = flume_list_groups(c, &l);
	if (n >= 0)
		flume_group_list_free(l, n);
	flume_close(c);
	return n;
}

/* A Kafka commit-only group "fillN" at offset 1 from a fresh connection. */
static int
fill_one(int n)
{
	char name[32];
	int fd, rc;

	if ((fd = support_kconnect(&d)) < 0)
		return -1000;
	snprintf(name, sizeof(name), "fill%d", n);
	rc = kafka_commit(fd, name, n, 1);
	close(fd);
	return rc;
}

/*
 * 64 Kafka commits to new group names (max_groups = 64): 56 are taken,
 * the last 8 slots are kept for groups that members join, so the rest
 * are refused (COORDINATOR_NOT_AVAILABLE, logged) and (a) a joined
 * group still gets room; (b) after flume-admin group delete (refused
 * while the group has a member) a new one gets room; (c) with
 * offsets_retention = 2s the empty groups expire, room comes back, and
 * after a restart they stay gone.
 */
static void
test_table_room(void)
{
	const char *del_neg[] = { "flume-admin", "group", "neg", "delete", NULL };
	const char *del_f0[] = { "flume-admin", "group", "fill0", "delete", NULL };
	const char *del_none[] = { "flume-admin", "group", "nosuch", "delete",
	    NULL };
	struct flume_group_conf gconf;
	struct flume_client *c;
	struct flume_group *g;
	int i, ok = 0, refused = 0, before, base;

	base = groups_listed();		/* the groups of the tests before */
	CU_ASSERT_FATAL(base >= 0 && base < 8);
	before = flumed_log_count(&d, "no room for a group without members");
	for (i = 0; i < 64; i++) {
		int e = fill_one(i);

		if (e == KERR_NONE)
			ok++;
		else if (e == KERR_COORDINATOR_NOT_AVAILABLE)
			refused++;
	}
	CU_ASSERT_EQUAL(ok, 56 - base);
	CU_ASSERT_EQUAL(refused, 64 - (56 - base));
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "no room for a group without "
	    "members", before + refused, 5000), before + refused);
	CU_ASSERT_EQUAL(groups_listed(), 56);

	/* (a) A group that a member joins still finds room. */
	c = flume_connect(d.broker);
	CU_ASSERT_FATAL(c != NULL);
	flume_group_conf_init(&gconf);
	gconf.session_timeout_ms = 1500;
	gconf.heartbeat_interval_ms = 500;
	g = flume_group_join(c, "joined", (const char *const[]){ "t1" }, 1,
	    &gconf);
	CU_ASSERT_PTR_NOT_NULL(g);
	CU_ASSERT_EQUAL(groups_listed(), 57);

	/* (b) A delete is refused while the group has a member ... */
	{
		const char *argv[] = { "flume-admin", "group", "joined",
		    "delete", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, argv), 1);
	}
	CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, del_none), 1);
	if (g != NULL)
		CU_ASSERT_EQUAL(flume_group_close(g), 0);
	flume_close(c);
	/*
	 * ... and frees the slot of an empty one, once the writer has
	 * appended its tombstones to __consumer_offsets.
	 */
	CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, del_neg), 0);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, del_f0), 0);
	WAIT_UNTIL(groups_listed() == 55, WAIT_MS);
	CU_ASSERT_EQUAL(groups_listed(), 55);
	WAIT_UNTIL(fill_one(100) == KERR_NONE, WAIT_MS);
	CU_ASSERT_EQUAL(fill_one(100), KERR_NONE);

	/* (c) A short retention: the empty groups expire ... */
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(conf_retention("2s"), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	WAIT_UNTIL(groups_listed() == 0, WAIT_MS);
	CU_ASSERT_EQUAL(groups_listed(), 0);
	CU_ASSERT(flumed_log_count(&d, "its offsets expired") >= 56);
	/*
	 * ... and stay gone after a restart (with the default retention):
	 * their tombstones in __consumer_offsets win over their commits.
	 */
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(conf_retention("7d"), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(groups_listed(), 0);
	for (ok = 0, i = 200; i < 256; i++)
		ok += fill_one(i) == KERR_NONE;
	CU_ASSERT_EQUAL(ok, 56);
}

TEST_SUITE("group_state", setup, teardown,
    { "a commit below 0 is stored and read as none", test_commit_below_zero },
    { "kafkajs admin.resetOffsets to earliest returns; the group rereads",
      test_kafkajs_reset_offsets },
    { "two members SIGTERMed together commit all; a rerun prints nothing",
      test_stop_together },
    { "commit-only groups cannot fill the table; delete and expiry free it",
      test_table_room });
