/*
 * Kafka consumer groups and the admin APIs with unmodified Kafka clients:
 * kcat -G members (librdkafka's "range" assignor), kafka-python's
 * KafkaConsumer and KafkaAdminClient, confluent-kafka's Consumer
 * (tests/tools/kafka_groups.py), and flume-admin on Kafka groups.  Every
 * member is a process this test started and signals by pid; every wait
 * is bounded and awaits a condition (a line in a member's output, a
 * group state from flume-admin).
 */
#include <sys/wait.h>

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
#include "tests/harness.h"
#include "tests/integration/support.h"

#define PYTHON		"/usr/bin/python3"
#define KCAT		"/usr/bin/kcat"
#define GROUPS_PY	"tests/tools/kafka_groups.py"
#define MAXV		1024

static struct flumed d;
static char *tmp;		/* members' output files */

static int
setup(void)
{
	if ((tmp = test_mkdtemp("kgroups")) == NULL)
		return -1;
	return flumed_start_kafka(&d, NULL, "flush_interval_ms = 100ms\n"
	    "group_initial_rebalance_delay_ms = 300ms\n"
	    "[topic t4]\npartitions = 4\n[topic k4]\npartitions = 4\n"
	    "[topic m4]\npartitions = 4\n[topic w4]\npartitions = 4\n"
	    "[topic p2]\npartitions = 2\n[topic c2]\npartitions = 2\n"
	    "[topic n2]\npartitions = 2\n");
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	if (tmp != NULL) {
		test_rmtree(tmp);
		free(tmp);
	}
	return 0;
}

/* A whole small file (NUL terminated, malloc'ed), "" when missing. */
static char *
slurp(const char *path)
{
	char *buf;
	FILE *f;
	long sz;

	if ((f = fopen(path, "rb")) == NULL)
		return strdup("");
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 ||
	    sz > (8 << 20) || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)sz + 1)) == NULL) {
		fclose(f);
		return strdup("");
	}
	sz = (long)fread(buf, 1, (size_t)sz, f);
	buf[sz] = '\0';
	fclose(f);
	return buf;
}

/* Start path argv with stdin from /dev/null (or input file), out/err to files. */
static pid_t
spawn(const char *path, const char *const argv[], const char *in,
    const char *out, const char *err)
{
	pid_t pid;
	int fd;

	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) != 0)
		return pid;
	if ((fd = open(in != NULL ? in : "/dev/null", O_RDONLY)) != -1)
		dup2(fd, STDIN_FILENO);
	if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
		dup2(fd, STDOUT_FILENO);
	if ((fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
		dup2(fd, STDERR_FILENO);
	execv(path, (char *const *)argv);
	_exit(127);
}

/* Wait (<= timeout_ms) for pid; its exit status, or -1 (then killed). */
static int
reap(pid_t pid, int timeout_ms)
{
	long long deadline = support_now_ms() + timeout_ms;
	int status;
	pid_t r;

	for (;;) {
		if ((r = waitpid(pid, &status, WNOHANG)) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (r == -1 && errno != EINTR)
			return -1;
		if (support_now_ms() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(10 * 1000);	/* polling the child's exit, bounded */
	}
}

/* Run to completion; stdout in *out (malloc'ed). The exit status or -1. */
static int
run(const char *path, const char *const argv[], const char *in, char **out,
    int timeout_ms)
{
	char fo[600], fe[600];
	int rc;

	snprintf(fo, sizeof(fo), "%s/run.out", tmp);
	snprintf(fe, sizeof(fe), "%s/run.err", tmp);
	rc = reap(spawn(path, argv, in, fo, fe), timeout_ms);
	if (out != NULL)
		*out = slurp(fo);
	return rc;
}

/* Produce values v<from>..v<from+n-1> with keys k<i> to topic, by kcat. */
static int
produce(const char *topic, int from, int n)
{
	const char *argv[] = { "kcat", "-b", d.kbroker, "-P", "-t", topic, "-K:",
	    NULL };
	char in[600];
	FILE *f;
	int i;

	snprintf(in, sizeof(in), "%s/produce.in", tmp);
	if ((f = fopen(in, "w")) == NULL)
		return -1;
	for (i = from; i < from + n; i++)
		fprintf(f, "k%d:v%d\n", i, i);
	fclose(f);
	return run(KCAT, argv, in, NULL, 30000);
}

struct member {
	pid_t	pid;
	char	out[600];
	char	err[600];
};

/* A kcat -G member of group on topic printing "%p %s" lines. */
static void
kcat_member(struct member *m, const char *tag, const char *group,
    const char *topic, int session_ms, int heartbeat_ms, int exit_at_end)
{
	char st[64], hb[64];
	const char *argv[] = { "kcat", "-u", "-b", d.kbroker, "-G", group,
	    "-X", "auto.offset.reset=earliest", "-X", st, "-X", hb,
	    "-f", "%p %s\\n", topic, exit_at_end ? "-e" : NULL, NULL };

	snprintf(st, sizeof(st), "session.timeout.ms=%d", session_ms);
	snprintf(hb, sizeof(hb), "heartbeat.interval.ms=%d", heartbeat_ms);
	snprintf(m->out, sizeof(m->out), "%s/%s.out", tmp, tag);
	snprintf(m->err, sizeof(m->err), "%s/%s.err", tmp, tag);
	m->pid = spawn(KCAT, argv, NULL, m->out, m->err);
	CU_ASSERT_FATAL(m->pid > 0);
}

/* A confluent-kafka member (kafka_groups.py member) for seconds. */
static void
py_member(struct member *m, const char *tag, const char *group,
    const char *topic, const char *seconds, const char *heartbeat_ms)
{
	const char *argv[] = { PYTHON, GROUPS_PY, "member", d.kbroker, topic,
	    group, seconds, heartbeat_ms, NULL };

	snprintf(m->out, sizeof(m->out), "%s/%s.out", tmp, tag);
	snprintf(m->err, sizeof(m->err), "%s/%s.err", tmp, tag);
	m->pid = spawn(PYTHON, argv, NULL, m->out, m->err);
	CU_ASSERT_FATAL(m->pid > 0);
}

/* Mark in seen[] every "P vN" line of files; the number of lines. */
static int
values(const char *path, int *seen, int *parts_of)
{
	char *buf = slurp(path), *line, *save = NULL;
	int n = 0, p, v;

	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d v%d", &p, &v) != 2 || v < 0 || v >= MAXV)
			continue;
		seen[v]++;
		if (parts_of != NULL && p >= 0 && p < 8)
			parts_of[p] = 1;
		n++;
	}
	free(buf);
	return n;
}

/* Distinct values among v<from>..v<to-1> seen in the members' outputs. */
static int
distinct(struct member *ms, int nm, int from, int to)
{
	int seen[MAXV], i, n = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < nm; i++)
		(void)values(ms[i].out, seen, NULL);
	for (i = from; i < to && i < MAXV; i++)
		if (seen[i] > 0)
			n++;
	return n;
}

/* Wait (<= timeout_ms) until the members saw every one of v<from>..v<to-1>. */
static int
wait_distinct(struct member *ms, int nm, int from, int to, int timeout_ms)
{
	long long deadline = support_now_ms() + timeout_ms;
	int n;

	while ((n = distinct(ms, nm, from, to)) < to - from &&
	    support_now_ms() < deadline)
		usleep(50 * 1000);	/* polling files a client writes, bounded */
	return n;
}

/*
 * The partitions of the last assignment a member reported, as a bit set:
 * kcat's "assigned: t4 [0], t4 [1]" or kafka_groups.py's "assigned 0,1".
 * -1 when it reported none.
 */
static int
last_assignment(const struct member *m)
{
	char *buf = slurp(m->err), *o = slurp(m->out), *p, *last = NULL, *q;
	int bits = -1;

	for (p = buf; (p = strstr(p, "assigned: ")) != NULL; p++)
		last = p + 10;
	if (last != NULL) {
		bits = 0;
		for (q = last; *q != '\0' && *q != '\n'; q++)
			if (*q == '[')
				bits |= 1 << atoi(q + 1);
	}
	last = NULL;
	for (p = o; (p = strstr(p, "assigned ")) != NULL; p++)
		last = p + 9;
	if (last != NULL) {
		bits = 0;
		for (q = last; *q != '\0' && *q != '\n'; q++)
			if (*q >= '0' && *q <= '9' && (q == last || q[-1] == ','))
				bits |= 1 << atoi(q);
	}
	free(buf);
	free(o);
	return bits;
}

/* Wait (<= timeout_ms) until a's and b's assignments split mask exactly. */
static int
wait_split(const struct member *a, const struct member *b, int mask,
    int timeout_ms)
{
	long long deadline = support_now_ms() + timeout_ms;
	int x, y;

	for (;;) {
		x = last_assignment(a);
		y = b != NULL ? last_assignment(b) : 0;
		if (x > 0 && y >= 0 && (b == NULL || y > 0) && (x & y) == 0 &&
		    (x | y) == mask)
			return 1;
		if (support_now_ms() >= deadline)
			return 0;
		usleep(50 * 1000);	/* polling files a client writes, bounded */
	}
}

/* Stop a member the way a user does (SIGTERM: it commits and leaves). */
static int
stop(struct member *m)
{
	kill(m->pid, SIGTERM);
	return reap(m->pid, 20000);
}

/* flume-admin group NAME; its output (malloc'ed). */
static char *
admin_group(const char *group)
{
	const char *argv[] = { "flume-admin", "group", group, NULL };
	char *out = NULL;

	(void)run_tool(&d, NULL, &out, 10000, argv);
	return out != NULL ? out : strdup("");
}

static void
test_kcat_members_split_then_rerun_prints_nothing(void)
{
	struct member m[3];
	int seen[MAXV], pa[8] = { 0 }, pb[8] = { 0 }, i, na, nb, dup = 0;

	CU_ASSERT_EQUAL_FATAL(produce("t4", 0, 200), 0);
	kcat_member(&m[0], "s0", "g1", "t4", 6000, 500, 0);
	kcat_member(&m[1], "s1", "g1", "t4", 6000, 500, 0);
	CU_ASSERT(wait_split(&m[0], &m[1], 0xf, 20000));
	CU_ASSERT_EQUAL(wait_distinct(m, 2, 0, 200, 20000), 200);
	CU_ASSERT_EQUAL(stop(&m[0]), 0);
	CU_ASSERT_EQUAL(stop(&m[1]), 0);
	memset(seen, 0, sizeof(seen));
	na = values(m[0].out, seen, pa);
	nb = values(m[1].out, seen, pb);
	for (i = 0; i < 200; i++)
		if (seen[i] != 1)
			dup++;
	/* Every record once, and no partition read by both. */
	CU_ASSERT_EQUAL(na + nb, 200);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT(na > 0 && nb > 0);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(pa[i] + pb[i], 1);
	/* Both committed what they printed: a rerun prints nothing. */
	kcat_member(&m[2], "s2", "g1", "t4", 6000, 500, 1);
	CU_ASSERT_EQUAL(reap(m[2].pid, 30000), 0);
	{
		char *o = slurp(m[2].out), *e = slurp(m[2].err);

		CU_ASSERT_STRING_EQUAL(o, "");
		CU_ASSERT_PTR_NOT_NULL(strstr(e, "assigned: t4 [0], t4 [1], "
		    "t4 [2], t4 [3]"));
		free(o);
		free(e);
	}
}

static void
test_kcat_member_killed_moves_partitions(void)
{
	struct member m[2];
	long long t0;

	CU_ASSERT_EQUAL_FATAL(produce("k4", 0, 40), 0);
	kcat_member(&m[0], "k0", "g2", "k4", 4000, 500, 0);
	kcat_member(&m[1], "k1", "g2", "k4", 4000, 500, 0);
	CU_ASSERT_FATAL(wait_split(&m[0], &m[1], 0xf, 20000));
	CU_ASSERT_EQUAL(wait_distinct(m, 2, 0, 40, 20000), 40);
	kill(m[1].pid, SIGKILL);
	CU_ASSERT_EQUAL(reap(m[1].pid, 5000), -1);
	t0 = support_now_ms();
	/* Within the session timeout (4 s) and a rebalance: all four. */
	CU_ASSERT(wait_split(&m[0], NULL, 0xf, 15000));
	CU_ASSERT(support_now_ms() - t0 < 4000 + 5000);
	CU_ASSERT_EQUAL_FATAL(produce("k4", 40, 40), 0);
	CU_ASSERT_EQUAL(wait_distinct(&m[0], 1, 40, 80, 20000), 40);
	CU_ASSERT_EQUAL(stop(&m[0]), 0);
}

/* kafka_groups.py kp|ck on topic/group expecting n; its summary line. */
static char *
py_group(const char *which, const char *topic, const char *group, int n)
{
	char ns[16];
	const char *argv[] = { PYTHON, GROUPS_PY, which, d.kbroker, topic, group,
	    ns, NULL };
	char *out = NULL;

	snprintf(ns, sizeof(ns), "%d", n);
	CU_ASSERT_EQUAL(run(PYTHON, argv, NULL, &out, 90000), 0);
	return out;
}

static void
resume_after_restart(const char *which, const char *topic, const char *group)
{
	char *out;

	CU_ASSERT_EQUAL_FATAL(produce(topic, 0, 50), 0);
	out = py_group(which, topic, group, 50);
	CU_ASSERT_STRING_EQUAL(out, "read 50 distinct 50 first v0 last v49\n");
	free(out);
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL_FATAL(produce(topic, 50, 30), 0);
	/* From where it stopped: the 30 new ones only. */
	out = py_group(which, topic, group, 30);
	CU_ASSERT_STRING_EQUAL(out, "read 30 distinct 30 first v50 last v79\n");
	free(out);
}

static void
test_kafka_python_group_resumes_after_restart(void)
{
	resume_after_restart("kp", "p2", "kpgroup");
}

static void
test_confluent_group_resumes_after_restart(void)
{
	resume_after_restart("ck", "c2", "ckgroup");
}

static void
test_kcat_and_confluent_rebalance(void)
{
	struct member k, p;

	kcat_member(&k, "mk", "g3", "m4", 6000, 500, 0);
	CU_ASSERT_FATAL(wait_split(&k, NULL, 0xf, 20000));
	py_member(&p, "mp", "g3", "m4", "8", "500");
	/* Both range assignors: two partitions each. */
	CU_ASSERT(wait_split(&k, &p, 0xf, 20000));
	CU_ASSERT_EQUAL(last_assignment(&p) == 0x3 ||
	    last_assignment(&p) == 0xc, 1);
	/* The confluent member leaves: kcat gets all four back. */
	CU_ASSERT_EQUAL(reap(p.pid, 30000), 0);
	{
		char *o = slurp(p.out);

		CU_ASSERT_PTR_NOT_NULL(strstr(o, "closed\n"));
		free(o);
	}
	CU_ASSERT(wait_split(&k, NULL, 0xf, 20000));
	CU_ASSERT_EQUAL(stop(&k), 0);
}

static void
test_flume_admin_shows_kafka_group_lag(void)
{
	char *out;
	int lag = 0, rows = 0, part;
	long long committed, end, l;
	char *line, *save = NULL;

	/* g1 committed all 200 of t4 (the first test); 7 more arrive. */
	CU_ASSERT_EQUAL_FATAL(produce("t4", 200, 7), 0);
	out = admin_group("g1");
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "group g1\nstate empty\n"));
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char topic[64];

		if (sscanf(line, "%63s %d %lld %lld %lld", topic, &part,
		    &committed, &end, &l) == 5 && strcmp(topic, "t4") == 0) {
			rows++;
			lag += (int)l;
			CU_ASSERT_EQUAL(end - committed, l);
		}
	}
	CU_ASSERT_EQUAL(rows, 4);
	CU_ASSERT_EQUAL(lag, 7);
	free(out);
	/* The stats snapshot (what the metrics export) has the same lag. */
	{
		const char *argv[] = { "flume-admin", "stats", NULL };
		char g[64], topic[64];

		out = NULL;
		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, argv), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		lag = rows = 0;
		save = NULL;
		line = strstr(out, "\nGROUP LAG\n");
		CU_ASSERT_PTR_NOT_NULL_FATAL(line);
		for (line = strtok_r(line, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save))
			if (sscanf(line, "%63s %63s %d %lld %lld", g, topic,
			    &part, &committed, &l) == 5 &&
			    strcmp(g, "g1") == 0 && strcmp(topic, "t4") == 0) {
				rows++;
				lag += (int)l;
			}
		CU_ASSERT_EQUAL(rows, 4);
		CU_ASSERT_EQUAL(lag, 7);
		free(out);
	}
	/* A live Kafka member: its client id and its assignment. */
	{
		struct member k;

		kcat_member(&k, "lag", "g1", "t4", 6000, 500, 0);
		CU_ASSERT(wait_split(&k, NULL, 0xf, 20000));
		out = admin_group("g1");
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "state stable\n"));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, " rdkafka "));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, " t4/0,t4/1,t4/2,t4/3\n"));
		free(out);
		CU_ASSERT_EQUAL(stop(&k), 0);
	}
}

static void
test_native_member_refuses_kafka_member(void)
{
	const char *argv[] = { "flume-consume", "-b", d.broker, "-g",
	    "mixed", "-t", "n2", "-o", "beginning", NULL };
	char *e, fo[600], fe[600], path[600];
	struct member k;
	pid_t native;
	long long deadline;

	snprintf(fo, sizeof(fo), "%s/native.out", tmp);
	snprintf(fe, sizeof(fe), "%s/native.err", tmp);
	snprintf(path, sizeof(path), "%s/flume-consume", support_bindir());
	native = spawn(path, argv, NULL, fo, fe);
	CU_ASSERT_FATAL(native > 0);
	/* Wait until the native member is in. */
	deadline = support_now_ms() + 10000;
	for (;;) {
		char *o = admin_group("mixed");
		int in = strstr(o, "state stable") != NULL;

		free(o);
		if (in || support_now_ms() >= deadline)
			break;
		usleep(50 * 1000);	/* polling flume-admin, bounded */
	}
	kcat_member(&k, "mixed", "mixed", "n2", 6000, 500, 0);
	deadline = support_now_ms() + 15000;
	for (;;) {
		e = slurp(k.err);
		if (strstr(e, "Inconsistent group protocol") != NULL ||
		    support_now_ms() >= deadline)
			break;
		free(e);
		usleep(50 * 1000);	/* polling kcat's stderr, bounded */
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(e, "Inconsistent group protocol"));
	free(e);
	kill(k.pid, SIGKILL);
	(void)reap(k.pid, 5000);
	kill(native, SIGTERM);
	(void)reap(native, 10000);
}

/*
 * confluent-kafka members here: kcat -G exits when every connection to
 * its only broker drops at once, which killing the workers can do.
 */
static void
test_worker_killed_during_rebalance(void)
{
	struct member m[2];
	long long deadline;
	pid_t w0, w1;
	int seen_rebalancing = 0, n0, n1;
	char *o;

	CU_ASSERT_EQUAL_FATAL(produce("w4", 0, 40), 0);
	/* A heartbeats rarely, so the rebalance B starts stays open a while. */
	py_member(&m[0], "w0", "g5", "w4", "90", "3000");
	CU_ASSERT_FATAL(wait_split(&m[0], NULL, 0xf, 20000));
	CU_ASSERT_EQUAL(wait_distinct(m, 1, 0, 40, 20000), 40);
	py_member(&m[1], "w1", "g5", "w4", "90", "500");
	deadline = support_now_ms() + 10000;
	while (!seen_rebalancing && support_now_ms() < deadline) {
		o = admin_group("g5");
		seen_rebalancing = strstr(o, "state rebalancing") != NULL;
		free(o);
		if (!seen_rebalancing)
			usleep(20 * 1000);	/* polling flume-admin, bounded */
	}
	CU_ASSERT_FATAL(seen_rebalancing);
	/* Both workers die while B's JoinGroup is parked in one of them. */
	w0 = flumed_child_pid(&d, "worker", 0);
	w1 = flumed_child_pid(&d, "worker", 1);
	CU_ASSERT_FATAL(w0 > 0 && w1 > 0);
	n0 = flumed_log_count(&d, "respawned worker 0 ");
	n1 = flumed_log_count(&d, "respawned worker 1 ");
	kill(w0, SIGKILL);
	kill(w1, SIGKILL);
	CU_ASSERT(flumed_wait_log(&d, "respawned worker 0 ", n0 + 1, 15000) > n0);
	CU_ASSERT(flumed_wait_log(&d, "respawned worker 1 ", n1 + 1, 15000) > n1);
	CU_ASSERT_EQUAL_FATAL(produce("w4", 40, 40), 0);
	/* The group settles, split, and nothing is skipped. */
	CU_ASSERT(wait_split(&m[0], &m[1], 0xf, 40000));
	CU_ASSERT_EQUAL(wait_distinct(m, 2, 0, 80, 30000), 80);
	o = admin_group("g5");
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "state stable\n"));
	free(o);
	CU_ASSERT_EQUAL(stop(&m[0]), 0);
	CU_ASSERT_EQUAL(stop(&m[1]), 0);
}

static void
test_kafka_python_admin_creates_and_lists(void)
{
	const char *argv[] = { PYTHON, GROUPS_PY, "create", d.kbroker, "adm",
	    NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL(run(PYTHON, argv, NULL, &out, 60000), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(strncmp(out, "created True\n"
	    "again TopicAlreadyExistsError\n"
	    "rf3 InvalidReplicationFactorError\n"
	    "zero InvalidPartitionsError\n"
	    "validate_only False\n"
	    "partitions [0, 1, 2]\n"
	    "delete [0] False\n"
	    "groups [", 154 + 17), 0);
	/* Kafka groups, and the native one of the test above. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "('kpgroup', 'consumer')"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "('mixed', 'flume')"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "describe kpgroup Empty consumer  0\n"));
	free(out);
}

/* A raw Kafka request: header v1 (client id "raw"), then body. */
static void
kraw(struct wbuf *wb, int16_t key, int16_t version, int32_t corr,
    const struct wbuf *body)
{
	wbuf_reset(wb);
	wbuf_i32(wb, (int32_t)(2 + 2 + 4 + 2 + 3 + body->len));
	wbuf_i16(wb, key);
	wbuf_i16(wb, version);
	wbuf_i32(wb, corr);
	wbuf_str(wb, "raw", 3);
	wbuf_raw(wb, body->buf, body->len);
}

/* Send a raw request, read its answer; the first i16 of the body, or -1000. */
static int
kraw_call(int fd, int16_t key, int16_t version, int32_t corr,
    const struct wbuf *body, int skip)
{
	struct wbuf wb;
	struct rbuf rb;
	uint8_t *p = NULL;
	size_t n = 0;
	uint32_t id = 0;
	int rc = -1000;

	wbuf_init(&wb);
	kraw(&wb, key, version, corr, body);
	if (support_send(fd, wb.buf, wb.len) == 0 &&
	    support_recv(fd, 10000, &id, &p, &n) == 1 && id == (uint32_t)corr) {
		rbuf_init(&rb, p, n);
		(void)rbuf_raw(&rb, (size_t)skip);	/* throttle_time_ms */
		rc = rbuf_i16(&rb);
		if (rb.err)
			rc = -1000;
	}
	free(p);
	wbuf_free(&wb);
	return rc;
}

/* A JoinGroup v1 body: group, session, rebalance 10 s, member, one protocol. */
static void
join_body(struct wbuf *b, const char *group, int32_t session,
    const char *member, size_t meta_len)
{
	static uint8_t meta[8192];

	wbuf_reset(b);
	wbuf_str(b, group, strlen(group));
	wbuf_i32(b, session);
	wbuf_i32(b, 10000);
	wbuf_str(b, member, strlen(member));
	wbuf_str(b, "consumer", 8);
	wbuf_i32(b, 1);
	wbuf_str(b, "range", 5);
	wbuf_bytes(b, meta, (int32_t)meta_len);
}

static void
test_wire_errors(void)
{
	struct wbuf b;
	int fd, before = flumed_log_count(&d, "exceed max_group_member_metadata");

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	/* 4K of metadata space per member (the default); more is refused. */
	join_body(&b, "wire", 10000, "", 4096);
	CU_ASSERT_EQUAL(kraw_call(fd, KAPI_JOIN_GROUP, 1, 1, &b, 0),
	    KERR_MESSAGE_TOO_LARGE);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "exceed max_group_member_metadata",
	    before + 1, 5000), before + 1);
	join_body(&b, "wire", 999, "", 10);	/* below group_min_session_timeout_ms */
	CU_ASSERT_EQUAL(kraw_call(fd, KAPI_JOIN_GROUP, 1, 2, &b, 0),
	    KERR_INVALID_SESSION_TIMEOUT);
	join_body(&b, "wire", 10000, "nobody-0123", 10);
	CU_ASSERT_EQUAL(kraw_call(fd, KAPI_JOIN_GROUP, 1, 3, &b, 0),
	    KERR_UNKNOWN_MEMBER_ID);
	/* Heartbeat v1 of an unknown member: throttle, then the error. */
	wbuf_reset(&b);
	wbuf_str(&b, "wire", 4);
	wbuf_i32(&b, 1);
	wbuf_str(&b, "nobody-0123", 11);
	CU_ASSERT_EQUAL(kraw_call(fd, KAPI_HEARTBEAT, 1, 4, &b, 4),
	    KERR_UNKNOWN_MEMBER_ID);
	/* The connection is still good: FindCoordinator answers. */
	wbuf_reset(&b);
	wbuf_str(&b, "wire", 4);
	CU_ASSERT_EQUAL(kraw_call(fd, KAPI_FIND_COORDINATOR, 0, 5, &b, 0),
	    KERR_NONE);
	wbuf_free(&b);
	close(fd);
}

/* Send a raw request; its answer's body (malloc'ed, *n bytes) or NULL. */
static uint8_t *
kraw_body(int fd, int16_t key, int16_t version, int32_t corr,
    const struct wbuf *body, size_t *n)
{
	struct wbuf wb;
	uint8_t *p = NULL;
	uint32_t id = 0;

	wbuf_init(&wb);
	kraw(&wb, key, version, corr, body);
	if (support_send(fd, wb.buf, wb.len) != 0 ||
	    support_recv(fd, 10000, &id, &p, n) != 1 || id != (uint32_t)corr) {
		free(p);
		p = NULL;
	}
	wbuf_free(&wb);
	return p;
}

/*
 * JoinGroup v1 of group "kdt" for member (empty: new), subscribed to
 * topic "kdt" in the consumer protocol's Subscription v0.  The error;
 * *gen and id (MEMBER_ID_MAX + 1) from the answer.
 */
static int
kdt_join(int fd, struct wbuf *b, int32_t corr, const char *member,
    int32_t *gen, char *id)
{
	struct wbuf meta;
	struct rbuf rb;
	const char *s;
	uint8_t *p;
	size_t n, l;
	int rc = -1000;

	wbuf_init(&meta);
	wbuf_i16(&meta, 0);		/* Subscription v0 */
	wbuf_i32(&meta, 1);
	wbuf_str(&meta, "kdt", 3);
	wbuf_bytes(&meta, NULL, 0);	/* user data: empty */
	wbuf_reset(b);
	wbuf_str(b, "kdt", 3);
	wbuf_i32(b, 10000);
	wbuf_i32(b, 10000);
	wbuf_str(b, member, strlen(member));
	wbuf_str(b, "consumer", 8);
	wbuf_i32(b, 1);
	wbuf_str(b, "range", 5);
	wbuf_bytes(b, meta.buf, (int32_t)meta.len);
	wbuf_free(&meta);
	if ((p = kraw_body(fd, KAPI_JOIN_GROUP, 1, corr, b, &n)) == NULL)
		return rc;
	rbuf_init(&rb, p, n);
	rc = rbuf_i16(&rb);
	*gen = rbuf_i32(&rb);
	(void)rbuf_str(&rb, &l);	/* protocol */
	(void)rbuf_str(&rb, &l);	/* leader */
	s = rbuf_str(&rb, &l);
	if (rb.err || s == NULL || l > MEMBER_ID_MAX)
		rc = -1000;
	else {
		memcpy(id, s, l);
		id[l] = '\0';
	}
	free(p);
	return rc;
}

/* SyncGroup v0 of the leader id, assigning itself kdt's partition 0. */
static int
kdt_sync(int fd, struct wbuf *b, int32_t corr, const char *id, int32_t gen)
{
	struct wbuf as;

	wbuf_init(&as);
	wbuf_i16(&as, 0);		/* Assignment v0 */
	wbuf_i32(&as, 1);
	wbuf_str(&as, "kdt", 3);
	wbuf_i32(&as, 1);
	wbuf_i32(&as, 0);
	wbuf_bytes(&as, NULL, 0);
	wbuf_reset(b);
	wbuf_str(b, "kdt", 3);
	wbuf_i32(b, gen);
	wbuf_str(b, id, strlen(id));
	wbuf_i32(b, 1);
	wbuf_str(b, id, strlen(id));
	wbuf_bytes(b, as.buf, (int32_t)as.len);
	wbuf_free(&as);
	return kraw_call(fd, KAPI_SYNC_GROUP, 0, corr, b, 0);
}

static int
kdt_heartbeat(int fd, struct wbuf *b, int32_t corr, const char *id,
    int32_t gen)
{
	wbuf_reset(b);
	wbuf_str(b, "kdt", 3);
	wbuf_i32(b, gen);
	wbuf_str(b, id, strlen(id));
	return kraw_call(fd, KAPI_HEARTBEAT, 0, corr, b, 0);
}

/* OffsetCommit v2 of kdt/0 at off: the partition's error, or -1000. */
static int
kdt_commit(int fd, struct wbuf *b, int32_t corr, const char *id,
    int32_t gen, int64_t off)
{
	struct rbuf rb;
	uint8_t *p;
	size_t n, l;
	int rc = -1000;

	wbuf_reset(b);
	wbuf_str(b, "kdt", 3);
	wbuf_i32(b, gen);
	wbuf_str(b, id, strlen(id));
	wbuf_i64(b, -1);		/* retention: the broker's */
	wbuf_i32(b, 1);
	wbuf_str(b, "kdt", 3);
	wbuf_i32(b, 1);
	wbuf_i32(b, 0);
	wbuf_i64(b, off);
	wbuf_str(b, "", 0);
	if ((p = kraw_body(fd, KAPI_OFFSET_COMMIT, 2, corr, b, &n)) == NULL)
		return rc;
	rbuf_init(&rb, p, n);
	if (rbuf_i32(&rb) == 1 && rbuf_str(&rb, &l) != NULL && l == 3 &&
	    rbuf_i32(&rb) == 1 && rbuf_i32(&rb) == 0)
		rc = rbuf_i16(&rb);
	if (rb.err)
		rc = -1000;
	free(p);
	return rc;
}

/*
 * A topic a Kafka member subscribed to is deleted and created again
 * under its name (same entry, same slot, same partition count).  As a
 * Kafka coordinator drops the offsets of a deleted topic, the member's
 * generation must not go on committing the old topic's offsets into the
 * new one: its heartbeat says REBALANCE_IN_PROGRESS, its commit of the
 * old generation gets UNKNOWN_TOPIC_OR_PARTITION and stores nothing;
 * once it rejoins (generation + 1) it commits into the new topic.
 */
static void
test_deleted_topic_member(void)
{
	struct flume_client *c;
	struct wbuf b;
	char id[MEMBER_ID_MAX + 1], id2[MEMBER_ID_MAX + 1];
	int32_t gen = -1, gen2 = -1, n = 0;
	int64_t off = -2;
	int fd;

	c = flume_connect(d.broker);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL_FATAL(flume_create_topic(c, "kdt", 1, &n), 0);
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	CU_ASSERT_EQUAL_FATAL(kdt_join(fd, &b, 1, "", &gen, id), KERR_NONE);
	CU_ASSERT(gen >= 1);
	CU_ASSERT_EQUAL_FATAL(kdt_sync(fd, &b, 2, id, gen), KERR_NONE);
	CU_ASSERT_EQUAL(kdt_heartbeat(fd, &b, 3, id, gen), KERR_NONE);
	CU_ASSERT_EQUAL(kdt_commit(fd, &b, 4, id, gen, 5), KERR_NONE);
	CU_ASSERT_EQUAL(flume_committed_offset(c, "kdt", "kdt", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 5);

	CU_ASSERT_EQUAL_FATAL(flume_delete_topic(c, "kdt", &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	/* Gone: nothing to commit into. */
	CU_ASSERT_EQUAL(kdt_commit(fd, &b, 5, id, gen, 5),
	    KERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL_FATAL(flume_create_topic(c, "kdt", 1, &n), 0);
	off = -2;
	CU_ASSERT_EQUAL(flume_committed_offset(c, "kdt", "kdt", 0, &off), 0);
	CU_ASSERT_EQUAL(off, -1);

	/* Created again: the old generation's member is told to rejoin. */
	CU_ASSERT_EQUAL(kdt_heartbeat(fd, &b, 6, id, gen),
	    KERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(kdt_commit(fd, &b, 7, id, gen, 5),
	    KERR_UNKNOWN_TOPIC_OR_PARTITION);
	off = -2;
	CU_ASSERT_EQUAL(flume_committed_offset(c, "kdt", "kdt", 0, &off), 0);
	CU_ASSERT_EQUAL(off, -1);

	/* It rejoins: generation + 1 on the new topic, commits again. */
	CU_ASSERT_EQUAL(kdt_join(fd, &b, 8, id, &gen2, id2), KERR_NONE);
	CU_ASSERT_STRING_EQUAL(id2, id);
	CU_ASSERT_EQUAL(gen2, gen + 1);
	CU_ASSERT_EQUAL(kdt_sync(fd, &b, 9, id, gen2), KERR_NONE);
	CU_ASSERT_EQUAL(kdt_heartbeat(fd, &b, 10, id, gen2), KERR_NONE);
	CU_ASSERT_EQUAL(kdt_commit(fd, &b, 11, id, gen2, 2), KERR_NONE);
	off = -2;
	CU_ASSERT_EQUAL(flume_committed_offset(c, "kdt", "kdt", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 2);
	wbuf_free(&b);
	close(fd);
	flume_close(c);
}

TEST_SUITE("kafka_groups", setup, teardown,
    { "two kcat -G members split 4 partitions; a rerun prints nothing", test_kcat_members_split_then_rerun_prints_nothing },
    { "kill -9 of a member moves its partitions within the session", test_kcat_member_killed_moves_partitions },
    { "kafka-python group reads, commits, resumes after a restart", test_kafka_python_group_resumes_after_restart },
    { "confluent-kafka group reads, commits, resumes after a restart", test_confluent_group_resumes_after_restart },
    { "a kcat and a confluent-kafka member rebalance", test_kcat_and_confluent_rebalance },
    { "flume-admin group and stats show a Kafka group's lag and members", test_flume_admin_shows_kafka_group_lag },
    { "a Kafka member of a native group is refused", test_native_member_refuses_kafka_member },
    { "workers killed during a rebalance: it settles, nothing skipped", test_worker_killed_during_rebalance },
    { "kafka-python's KafkaAdminClient creates topics and lists groups", test_kafka_python_admin_creates_and_lists },
    { "raw frames: 10 (metadata over the bound, logged), 25, 26", test_wire_errors },
    { "a deleted and re-created topic ends its member's generation", test_deleted_topic_member });
