/*
 * At-least-once for consumer groups: a member commits only what the
 * application finished with.  For flume-consume -g that is what it has
 * written and flushed to stdout; for libflume users what they marked
 * with flume_group_mark().
 *
 *  - flume-consume -g writing into a pipe the test does not read: the
 *    committed offset never exceeds what later comes out of the pipe.
 *  - three members killed with SIGKILL and restarted while messages
 *    trickle in: every acknowledged message is printed by some member.
 *  - the library: poll without marking commits nothing; marks are what
 *    flume_group_commit() and flume_group_close() store.
 *
 * Messages are produced one request at a time so that they reach the
 * consumers as a trickle of small fetch answers (the case in which the
 * old tool kept everything in its buffer while committing it).
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define WAIT_MS		20000
#define NMEMBERS	3

static struct flumed d;
static pid_t cons[NMEMBERS + 1];

static int
setup(void)
{
	memset(cons, 0, sizeof(cons));
	return flumed_start(&d, "group_min_session_timeout_ms = 500\n"
	    "group_rebalance_timeout_ms = 5s\n") == 0 ? 0 : -1;
}

static void
member_kill(int i)
{
	if (cons[i] > 0) {
		kill(cons[i], SIGKILL);
		waitpid(cons[i], NULL, 0);
		cons[i] = 0;
	}
}

static int
teardown(void)
{
	int i;

	for (i = 0; i <= NMEMBERS; i++)
		member_kill(i);
	flumed_cleanup(&d);
	return 0;
}

static void
create_topic(const char *topic, const char *parts)
{
	const char *argv[] = { "flume-admin", "create", topic, "-p", parts, NULL };

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, NULL, 10000, argv), 0);
}

/*
 * Start member i of group on topic with stdout on fd (a file or a pipe),
 * committing every 50 ms.  extra is one more argument or NULL.
 */
static void
member_start(int i, const char *group, const char *topic, int fd,
    const char *extra)
{
	char prog[512];
	pid_t pid;
	int null;

	snprintf(prog, sizeof(prog), "%s/flume-consume", support_bindir());
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		if ((null = open("/dev/null", O_WRONLY)) != -1)
			dup2(null, STDERR_FILENO);
		execl(prog, "flume-consume", "-b", d.broker, "-g", group, "-t",
		    topic, "-o", "beginning", "-s", "1500", "-C", "50",
		    "-f", "%v\\n", extra, (char *)NULL);
		_exit(127);
	}
	cons[i] = pid;
}

/* Produce values v-from .. v-(to-1) one request each; the count acked. */
static int
produce_trickle(const char *topic, int from, int to)
{
	struct flume_producer_conf pc;
	struct flume_producer *p;
	struct flume_client *c;
	char v[32];
	int i, n, acked = 0;

	if ((c = flume_connect(d.broker)) == NULL)
		return 0;
	flume_producer_conf_init(&pc);
	pc.linger_ms = 0;
	if ((p = flume_producer_new(c, &pc)) == NULL) {
		flume_close(c);
		return 0;
	}
	for (i = from; i < to; i++) {
		n = snprintf(v, sizeof(v), "v-%d", i);
		if (flume_produce(p, topic, FLUME_PARTITION_ANY, NULL, -1, v, n,
		    NULL) == 0 && flume_producer_flush(p, 10000) == 0)
			acked++;
	}
	flume_producer_free(p);
	flume_close(c);
	return acked;
}

/* The group's committed offset of topic/partition (-1: none or error). */
static int64_t
committed(const char *group, const char *topic, int32_t partition)
{
	struct flume_client *c;
	int64_t off = -1;

	if ((c = flume_connect(d.broker)) == NULL)
		return -1;
	if (flume_committed_offset(c, group, topic, partition, &off) == -1)
		off = -1;
	flume_close(c);
	return off;
}

/* Wait (bounded) until group is stable with n members; 1 when it is. */
static int
wait_members(const char *group, int n)
{
	long long deadline = support_now_ms() + WAIT_MS;
	struct flume_group_desc *gd;
	struct flume_client *c;
	int ok = 0;

	while (!ok && support_now_ms() < deadline) {
		if ((c = flume_connect(d.broker)) != NULL) {
			if (flume_describe_group(c, group, &gd) == 0) {
				ok = gd->state == FLUME_GROUP_STABLE &&
				    gd->member_count == n;
				flume_group_desc_free(gd);
			}
			flume_close(c);
		}
		if (!ok)
			usleep(20 * 1000);
	}
	return ok;
}

/* Count "v-N" lines of buf into seen[N] (N < n); returns the line count. */
static int
count_lines(const char *buf, unsigned char *seen, int n)
{
	const char *p = buf, *nl;
	int k, lines = 0;

	while (*p != '\0' && (nl = strchr(p, '\n')) != NULL) {
		if (sscanf(p, "v-%d", &k) == 1 && k >= 0 && k < n) {
			if (seen[k] < 255)
				seen[k]++;
		}
		lines++;
		p = nl + 1;
	}
	return lines;
}

/* Read all of fd until EOF (bounded by 10 s); malloc'ed, NUL terminated. */
static char *
read_all(int fd)
{
	long long deadline = support_now_ms() + 10000;
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap + 1), *nb;
	ssize_t r;

	while (buf != NULL && support_now_ms() < deadline) {
		if (len == cap) {
			if ((nb = realloc(buf, cap * 2 + 1)) == NULL)
				break;
			buf = nb;
			cap *= 2;
		}
		if ((r = read(fd, buf + len, cap - len)) > 0)
			len += (size_t)r;
		else if (r == 0 || errno != EINTR)
			break;
	}
	if (buf != NULL)
		buf[len] = '\0';
	return buf;
}

static char *
read_file(const char *path)
{
	char *buf;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return NULL;
	buf = read_all(fd);
	close(fd);
	return buf;
}

#define PIPE_N	1500

/*
 * Wait (bounded) until pid sleeps in write(2) on its stdout, a pipe
 * nobody reads: the write cannot complete (a pipe write sleeps only
 * without room), so it sleeps there for good.  The syscall a sleeping
 * task is in is in /proc/PID/syscall ("NR ARG1 ..."), "running" while it
 * runs.  1 when it does.
 */
static int
await_write_blocked(pid_t pid)
{
	long long deadline = support_now_ms() + WAIT_MS;
	char path[64], buf[256];
	long nr;
	unsigned long fd;
	int n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/syscall", (long)pid);
	while (support_now_ms() < deadline) {
		n = 0;
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(buf, sizeof(buf), f) != NULL)
				n = sscanf(buf, "%ld %lx", &nr, &fd);
			fclose(f);
		}
		if (n == 2 && nr == SYS_write && fd == STDOUT_FILENO)
			return 1;
		usleep(20 * 1000);	/* polling a condition, bounded above */
	}
	return 0;
}

/*
 * stdout is a 4 KiB pipe nobody reads: what the member commits must be
 * in the pipe (it stops committing once its writes block), and a new
 * member continues exactly there.
 */
static void
test_pipe_unread(void)
{
	unsigned char seen[PIPE_N];
	char *out, *rest;
	int pfd[2], lines, i, fd;
	int64_t c = -1, cmax = -1;
	long long deadline;
	char path[600];

	create_topic("pipe", "1");
	CU_ASSERT_FATAL(pipe(pfd) == 0);
	CU_ASSERT_FATAL(fcntl(pfd[1], F_SETPIPE_SZ, 4096) == 4096);
	member_start(0, "gp", "pipe", pfd[1], NULL);
	close(pfd[1]);
	CU_ASSERT_FATAL(wait_members("gp", 1));

	/* A first few fit in the pipe: printed, so committed. */
	CU_ASSERT_EQUAL_FATAL(produce_trickle("pipe", 0, 10), 10);
	deadline = support_now_ms() + WAIT_MS;
	while ((c = committed("gp", "pipe", 0)) < 10 &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);
	CU_ASSERT_EQUAL(c, 10);
	cmax = c;
	CU_ASSERT_EQUAL_FATAL(produce_trickle("pipe", 10, PIPE_N), PIPE_N - 10);
	/*
	 * The member fills the pipe and blocks writing to it (the old tool,
	 * which kept what it committed in its own buffer, never did).  It
	 * commits synchronously, so blocked there it has no commit in
	 * flight: the committed offset read now is its last.
	 */
	CU_ASSERT_FATAL(await_write_blocked(cons[0]));
	cmax = committed("gp", "pipe", 0);
	member_kill(0);
	out = read_all(pfd[0]);
	close(pfd[0]);
	CU_ASSERT_FATAL(out != NULL);
	memset(seen, 0, sizeof(seen));
	lines = count_lines(out, seen, PIPE_N);
	/* The pipe held exactly v-0 .. v-(lines-1), in order, once each. */
	for (i = 0; i < lines; i++)
		CU_ASSERT_EQUAL(seen[i], 1);
	CU_ASSERT(lines > 0 && lines < PIPE_N);
	/* Never committed past what came out of the pipe. */
	CU_ASSERT(cmax >= 10);
	CU_ASSERT(cmax <= lines);
	/* Killed while blocked: nothing more was committed. */
	c = committed("gp", "pipe", 0);
	CU_ASSERT_EQUAL(c, cmax);
	free(out);

	/* The next member prints exactly the rest: v-c .. v-(PIPE_N-1). */
	snprintf(path, sizeof(path), "%s/pipe-rest.out", d.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd != -1);
	member_start(1, "gp", "pipe", fd, "-e");
	close(fd);
	deadline = support_now_ms() + WAIT_MS;
	while (waitpid(cons[1], &i, WNOHANG) == 0 && support_now_ms() < deadline)
		usleep(20 * 1000);
	member_kill(1);
	rest = read_file(path);
	CU_ASSERT_FATAL(rest != NULL);
	memset(seen, 0, sizeof(seen));
	CU_ASSERT_EQUAL(count_lines(rest, seen, PIPE_N), PIPE_N - c);
	for (i = 0; i < PIPE_N; i++)
		CU_ASSERT_EQUAL(seen[i], i >= c ? 1 : 0);
	free(rest);
	CU_ASSERT_EQUAL(committed("gp", "pipe", 0), PIPE_N);
}

#define CYCLE_N		300
#define CYCLES		6

/*
 * Three members on a 3-partition topic; after each trickle of messages
 * one member is killed with SIGKILL and restarted (appending to its
 * file).  In the end every acknowledged message was printed by some
 * member: the union of the files is exactly the produced set.
 */
static void
test_kill_restart(void)
{
	unsigned char *seen;
	char path[NMEMBERS][600], *out;
	int i, cyc, fd, acked = 0, total = CYCLE_N * CYCLES;
	long long deadline;
	int64_t sum, c;

	create_topic("cyc", "3");
	for (i = 0; i < NMEMBERS; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/cyc-%d.out", d.dir, i);
		fd = open(path[i], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
		CU_ASSERT_FATAL(fd != -1);
		member_start(i, "gc", "cyc", fd, NULL);
		close(fd);
	}
	CU_ASSERT_FATAL(wait_members("gc", NMEMBERS));
	for (cyc = 0; cyc < CYCLES; cyc++) {
		acked += produce_trickle("cyc", cyc * CYCLE_N,
		    (cyc + 1) * CYCLE_N);
		i = cyc % NMEMBERS;
		member_kill(i);
		fd = open(path[i], O_WRONLY | O_APPEND);
		CU_ASSERT_FATAL(fd != -1);
		member_start(i, "gc", "cyc", fd, NULL);
		close(fd);
	}
	CU_ASSERT_EQUAL(acked, total);
	/* Wait until the group has committed everything, then stop them. */
	deadline = support_now_ms() + WAIT_MS;
	do {
		sum = 0;
		for (i = 0; i < 3; i++) {
			c = committed("gc", "cyc", i);
			sum += c > 0 ? c : 0;
		}
		if (sum != total)
			usleep(50 * 1000);
	} while (sum != total && support_now_ms() < deadline);
	CU_ASSERT_EQUAL(sum, total);
	for (i = 0; i < NMEMBERS; i++)
		member_kill(i);

	seen = calloc((size_t)total, 1);
	CU_ASSERT_FATAL(seen != NULL);
	for (i = 0; i < NMEMBERS; i++) {
		out = read_file(path[i]);
		CU_ASSERT_FATAL(out != NULL);
		count_lines(out, seen, total);
		free(out);
	}
	for (i = 0, sum = 0; i < total; i++)
		sum += seen[i] > 0;
	CU_ASSERT_EQUAL(sum, total);
	free(seen);
}

/*
 * The library contract: a poll hands out, a mark acknowledges, and only
 * marks are committed (by flume_group_commit and flume_group_close).
 */
static void
test_library_marks(void)
{
	const char *topics[] = { "lib" };
	struct flume_group_conf gc;
	struct flume_message m;
	struct flume_client *c;
	struct flume_group *g;
	int got = 0, rc;
	long long deadline;

	create_topic("lib", "1");
	CU_ASSERT_EQUAL_FATAL(produce_trickle("lib", 0, 10), 10);
	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
	flume_group_conf_init(&gc);
	gc.auto_commit_ms = 0;
	gc.start_offset = FLUME_OFFSET_BEGINNING;
	gc.session_timeout_ms = 1500;
	g = flume_group_join(c, "gl", topics, 1, &gc);
	CU_ASSERT_FATAL(g != NULL);
	/* The join pins the start: committed 0, nothing handed out yet. */
	CU_ASSERT_EQUAL(committed("gl", "lib", 0), 0);
	deadline = support_now_ms() + WAIT_MS;
	while (got < 10 && support_now_ms() < deadline) {
		rc = flume_group_poll(g, &m, 200);
		CU_ASSERT_FATAL(rc != -1);
		if (rc == 1) {
			CU_ASSERT_EQUAL(m.offset, got);
			got++;
		}
	}
	CU_ASSERT_EQUAL_FATAL(got, 10);
	/* All ten handed out, none marked: a commit stores nothing new. */
	CU_ASSERT_EQUAL(flume_group_commit(g), 0);
	CU_ASSERT_EQUAL(committed("gl", "lib", 0), 0);
	/* Marks: bounded by what was handed out, on assigned partitions only. */
	CU_ASSERT_EQUAL(flume_group_mark(g, "lib", 0, 11), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(flume_group_mark(g, "lib", 1, 1), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(flume_group_mark(g, "other", 0, 1), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(flume_group_mark(g, "lib", 0, 4), 0);
	CU_ASSERT_EQUAL(flume_group_commit(g), 0);
	CU_ASSERT_EQUAL(committed("gl", "lib", 0), 4);
	/* The last message handed out (offset 9) marked: 10 on close. */
	CU_ASSERT_EQUAL(flume_group_mark_message(g, &m), 0);
	CU_ASSERT_EQUAL(flume_group_close(g), 0);
	CU_ASSERT_EQUAL(committed("gl", "lib", 0), 10);

	/* Auto-commit commits marks too, and nothing unmarked. */
	CU_ASSERT_EQUAL_FATAL(produce_trickle("lib", 10, 20), 10);
	gc.auto_commit_ms = 50;
	g = flume_group_join(c, "gl", topics, 1, &gc);
	CU_ASSERT_FATAL(g != NULL);
	got = 0;
	deadline = support_now_ms() + WAIT_MS;
	while (got < 10 && support_now_ms() < deadline) {
		rc = flume_group_poll(g, &m, 200);
		CU_ASSERT_FATAL(rc != -1);
		if (rc == 1) {
			CU_ASSERT_EQUAL(m.offset, 10 + got);
			if (++got <= 3)
				CU_ASSERT_EQUAL(flume_group_mark_message(g, &m), 0);
		}
	}
	CU_ASSERT_EQUAL_FATAL(got, 10);
	/* Poll past the commit interval: the mark at 13 is committed. */
	deadline = support_now_ms() + WAIT_MS;
	while (committed("gl", "lib", 0) != 13 && support_now_ms() < deadline)
		CU_ASSERT(flume_group_poll(g, &m, 100) == 0);
	CU_ASSERT_EQUAL(committed("gl", "lib", 0), 13);
	/* Gone without closing: 13 stays, 13..19 are delivered again. */
	flume_group_free(g);
	CU_ASSERT_EQUAL(committed("gl", "lib", 0), 13);
	flume_close(c);
}

/*
 * flume_group_commit_async: only marks are sent; nothing counts as
 * committed before the broker's answer, which the next call that talks
 * to the broker takes; a synchronous commit or close takes every answer
 * before its own; a group freed with an answer outstanding drops it.
 */
static void
test_library_async(void)
{
	const char *topics[] = { "alib" };
	struct flume_group_conf gc;
	struct flume_message m;
	struct flume_client *c;
	struct flume_group *g;
	int64_t off = -2;
	int got = 0, rc;
	long long deadline;

	create_topic("alib", "1");
	CU_ASSERT_EQUAL_FATAL(produce_trickle("alib", 0, 10), 10);
	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
	flume_group_conf_init(&gc);
	gc.auto_commit_ms = 0;
	gc.start_offset = FLUME_OFFSET_BEGINNING;
	gc.session_timeout_ms = 1500;
	g = flume_group_join(c, "ga", topics, 1, &gc);
	CU_ASSERT_FATAL(g != NULL);
	/* The pin of the join is known committed. */
	CU_ASSERT_EQUAL(flume_group_committed(g, "alib", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_EQUAL(flume_group_committed(g, "alib", 1, &off), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	deadline = support_now_ms() + WAIT_MS;
	while (got < 10 && support_now_ms() < deadline) {
		rc = flume_group_poll(g, &m, 200);
		CU_ASSERT_FATAL(rc != -1);
		if (rc == 1) {
			CU_ASSERT_EQUAL(m.offset, got);
			got++;
		}
	}
	CU_ASSERT_EQUAL_FATAL(got, 10);
	/* Handed out, not marked: nothing to send. */
	CU_ASSERT_EQUAL(flume_group_commit_async(g), 0);
	CU_ASSERT_EQUAL(committed("ga", "alib", 0), 0);

	/* Mark 4: the answer arrives with a later poll. */
	CU_ASSERT_EQUAL(flume_group_mark(g, "alib", 0, 4), 0);
	CU_ASSERT_EQUAL(flume_group_commit_async(g), 0);
	deadline = support_now_ms() + WAIT_MS;
	while (flume_group_committed(g, "alib", 0, &off) == 0 && off != 4 &&
	    support_now_ms() < deadline)
		CU_ASSERT(flume_group_poll(g, &m, 50) == 0);
	CU_ASSERT_EQUAL(off, 4);
	CU_ASSERT_EQUAL(committed("ga", "alib", 0), 4);

	/* Async 7, then a synchronous commit: both answers taken, in order. */
	CU_ASSERT_EQUAL(flume_group_mark(g, "alib", 0, 7), 0);
	CU_ASSERT_EQUAL(flume_group_commit_async(g), 0);
	CU_ASSERT_EQUAL(flume_group_commit(g), 0);
	CU_ASSERT_EQUAL(flume_group_committed(g, "alib", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 7);
	CU_ASSERT_EQUAL(committed("ga", "alib", 0), 7);

	/* Async 9, then close: close waits for it and commits nothing more. */
	CU_ASSERT_EQUAL(flume_group_mark(g, "alib", 0, 9), 0);
	CU_ASSERT_EQUAL(flume_group_commit_async(g), 0);
	CU_ASSERT_EQUAL(flume_group_close(g), 0);
	CU_ASSERT_EQUAL(committed("ga", "alib", 0), 9);

	/* Freed with an answer outstanding: dropped, the client lives on. */
	g = flume_group_join(c, "ga", topics, 1, &gc);
	CU_ASSERT_FATAL(g != NULL);
	got = 0;
	deadline = support_now_ms() + WAIT_MS;
	while (got < 1 && support_now_ms() < deadline) {
		rc = flume_group_poll(g, &m, 200);
		CU_ASSERT_FATAL(rc != -1);
		if (rc == 1) {
			CU_ASSERT_EQUAL(m.offset, 9);
			got++;
		}
	}
	CU_ASSERT_EQUAL_FATAL(got, 1);
	CU_ASSERT_EQUAL(flume_group_mark_message(g, &m), 0);
	CU_ASSERT_EQUAL(flume_group_commit_async(g), 0);
	flume_group_free(g);
	CU_ASSERT_EQUAL(flume_committed_offset(c, "ga", "alib", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 10);
	flume_close(c);
}

/* A second member joining "gar" on its own thread (the join waits). */
struct joiner {
	struct flume_client	*c;
	struct flume_group_conf	 gc;
	struct flume_group	*g;
};

static void *
joiner_main(void *arg)
{
	struct joiner *j = arg;
	const char *topics[] = { "arlib" };

	j->g = flume_group_join(j->c, "gar", topics, 1, &j->gc);
	return NULL;
}

/* The state of group (FLUME_GROUP_*), -1 on error. */
static int
group_state(const char *group)
{
	struct flume_group_desc *gd;
	struct flume_client *c;
	int st = -1;

	if ((c = flume_connect(d.broker)) == NULL)
		return -1;
	if (flume_describe_group(c, group, &gd) == 0) {
		st = gd->state;
		flume_group_desc_free(gd);
	}
	flume_close(c);
	return st;
}

/*
 * An async commit sent after a rebalance began, before the member
 * rejoined, is taken (as Kafka takes one while a group prepares a
 * rebalance): nobody owns the partition in the new generation yet.  The
 * member then rejoins, and whoever owns the partition afterwards goes on
 * from that commit.
 */
static void
test_library_async_rebalance(void)
{
	const char *topics[] = { "arlib" };
	struct flume_group_conf gc;
	struct flume_message m;
	struct flume_client *c;
	struct flume_group *a;
	struct joiner j;
	pthread_t th;
	int64_t off = -2;
	int got = 0, rc;
	long long deadline;

	create_topic("arlib", "1");
	CU_ASSERT_EQUAL_FATAL(produce_trickle("arlib", 0, 10), 10);
	CU_ASSERT_FATAL((c = flume_connect(d.broker)) != NULL);
	flume_group_conf_init(&gc);
	gc.auto_commit_ms = 0;
	gc.start_offset = FLUME_OFFSET_BEGINNING;
	gc.session_timeout_ms = 1500;
	a = flume_group_join(c, "gar", topics, 1, &gc);
	CU_ASSERT_FATAL(a != NULL);
	deadline = support_now_ms() + WAIT_MS;
	while (got < 10 && support_now_ms() < deadline) {
		rc = flume_group_poll(a, &m, 200);
		CU_ASSERT_FATAL(rc != -1);
		if (rc == 1)
			CU_ASSERT_EQUAL(m.offset, got++);
	}
	CU_ASSERT_EQUAL_FATAL(got, 10);
	CU_ASSERT_EQUAL(committed("gar", "arlib", 0), 0);

	/* A second member: the group rebalances, a's generation is old. */
	memset(&j, 0, sizeof(j));
	j.gc = gc;
	CU_ASSERT_FATAL((j.c = flume_connect(d.broker)) != NULL);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, joiner_main, &j), 0);
	deadline = support_now_ms() + WAIT_MS;
	while (group_state("gar") != FLUME_GROUP_REBALANCING &&
	    support_now_ms() < deadline)
		usleep(10 * 1000);
	CU_ASSERT_EQUAL(group_state("gar"), FLUME_GROUP_REBALANCING);

	CU_ASSERT_EQUAL(flume_group_mark(a, "arlib", 0, 5), 0);
	CU_ASSERT_EQUAL(flume_group_commit_async(a), 0);
	/* Taken, whether its answer came with commit_async's read or this one's. */
	CU_ASSERT_EQUAL(flume_group_commit(a), 0);
	CU_ASSERT_EQUAL(committed("gar", "arlib", 0), 5);
	CU_ASSERT_EQUAL(flume_group_committed(a, "arlib", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 5);

	/* a's next polls rejoin; then both members hold their assignment. */
	deadline = support_now_ms() + WAIT_MS;
	while (flume_group_assignments(a) < 2 && support_now_ms() < deadline)
		CU_ASSERT(flume_group_poll(a, &m, 100) != -1);
	CU_ASSERT_EQUAL(flume_group_assignments(a), 2);
	CU_ASSERT_EQUAL(pthread_join(th, NULL), 0);
	CU_ASSERT_FATAL(j.g != NULL);
	if (flume_group_committed(a, "arlib", 0, &off) == 0) {
		/* a kept it: the mark survived and the assignment committed it. */
		CU_ASSERT_EQUAL(off, 5);
		CU_ASSERT_EQUAL(committed("gar", "arlib", 0), 5);
	} else {
		/* The new owner reads on from a's commit. */
		CU_ASSERT_EQUAL(errno, ENOENT);
		CU_ASSERT_EQUAL(committed("gar", "arlib", 0), 5);
		rc = 0;
		deadline = support_now_ms() + WAIT_MS;
		while (rc != 1 && support_now_ms() < deadline)
			CU_ASSERT((rc = flume_group_poll(j.g, &m, 100)) != -1);
		CU_ASSERT_EQUAL(rc, 1);
		CU_ASSERT_EQUAL(m.offset, 5);
	}
	CU_ASSERT_EQUAL(flume_group_close(a), 0);
	CU_ASSERT_EQUAL(flume_group_close(j.g), 0);
	flume_close(j.c);
	flume_close(c);
}

TEST_SUITE("atleastonce", setup, teardown,
    { "pipe_unread", test_pipe_unread },
    { "kill_restart", test_kill_restart },
    { "library_marks", test_library_marks },
    { "library_async_commit", test_library_async },
    { "library_async_commit_rebalance", test_library_async_rebalance });
