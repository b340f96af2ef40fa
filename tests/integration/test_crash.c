/*
 * Kill processes under load and check that every acknowledged message is
 * still readable; long-poll and backpressure as a client sees them.
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define NMSG	20000

static struct flumed d;

static int
setup(void)
{
	/* A small ring and an fsync per batch make the ring fill up. */
	return flumed_start(&d, "partitions = 2\nring_size = 64K\n"
	    "max_message_bytes = 16K\nflush_messages = 1") == 0 ? 0 : -1;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* Start flume-produce in the background; its stdout goes to outpath. */
static pid_t
produce_async(const char *topic, const char *acks, const char *input,
    const char *outpath)
{
	pid_t pid = fork();

	if (pid == 0) {
		const char *argv[] = { "flume-produce", "-t", topic, "-a", acks,
		    "-v", NULL };
		char *out = NULL;
		int st = run_tool(&d, input, &out, 60000, argv);
		FILE *f = fopen(outpath, "w");

		if (f != NULL && out != NULL)
			fputs(out, f);
		if (f != NULL)
			fclose(f);
		_exit(st < 0 ? 99 : st);
	}
	return pid;
}

static char *
numbered_input(const char *prefix, int n)
{
	char *buf = malloc((size_t)n * 32 + 1);
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += (size_t)sprintf(buf + len, "%s-%06d\n", prefix, i);
	return buf;
}

/* value[p][o] for every record of a topic, from flume-consume. */
struct table {
	char	**values[2];
	long	  count[2];
};

static int
read_topic(const char *topic, struct table *t)
{
	const char *argv[] = { "flume-consume", "-t", topic, "-o", "beginning",
	    "-e", "-f", "%p %o %v\\n", NULL };
	char *out = NULL, *line, *save = NULL;
	int n = 0;

	memset(t, 0, sizeof(*t));
	if (run_tool(&d, NULL, &out, 60000, argv) != 0) {
		free(out);
		return -1;
	}
	for (int p = 0; p < 2; p++)
		t->values[p] = calloc(4 * NMSG, sizeof(char *));
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		int p;
		long o;
		char v[64];

		if (sscanf(line, "%d %ld %63s", &p, &o, v) != 3 || p < 0 || p > 1 ||
		    o < 0 || o >= 4 * NMSG)
			continue;
		t->values[p][o] = strdup(v);
		if (o + 1 > t->count[p])
			t->count[p] = o + 1;
		n++;
	}
	free(out);
	return n;
}

static void
table_free(struct table *t)
{
	for (int p = 0; p < 2; p++) {
		for (long o = 0; t->values[p] != NULL && o < 4 * NMSG; o++)
			free(t->values[p][o]);
		free(t->values[p]);
	}
}

/* Every "P O" line the producer printed names the right stored value. */
static int
check_acked(const char *outpath, const char *prefix, const struct table *t,
    int *acked)
{
	FILE *f = fopen(outpath, "r");
	int p, i = 0, bad = 0;
	long o;

	if (f == NULL)
		return -1;
	while (fscanf(f, "%d %ld", &p, &o) == 2) {
		char want[64];

		snprintf(want, sizeof(want), "%s-%06d", prefix, i++);
		if (p < 0 || p > 1 || o < 0 || o >= 4 * NMSG ||
		    t->values[p][o] == NULL || strcmp(t->values[p][o], want) != 0)
			bad++;
	}
	fclose(f);
	*acked = i;
	return bad;
}

static void
test_kill_worker_while_producing(void)
{
	char outpath[600];
	char *input = numbered_input("kw", NMSG);
	struct table t;
	pid_t prod, victim;
	int status, acked = 0, kills = 0;
	long long deadline;

	snprintf(outpath, sizeof(outpath), "%s/produce.out", d.dir);
	prod = produce_async("kw", "1", input, outpath);
	CU_ASSERT_FATAL(prod > 0);
	/* Kill workers while the producer is running, a few times. */
	deadline = support_now_ms() + 30000;
	status = -1;
	while (kills < 3 && support_now_ms() < deadline) {
		if (waitpid(prod, &status, WNOHANG) == prod) {
			prod = -1;
			break;
		}
		victim = flumed_child_pid(&d, "worker", kills % 2);
		if (victim > 0 && kill(victim, SIGKILL) == 0)
			kills++;
		usleep(100 * 1000);	/* spacing between kills, not a wait */
	}
	if (prod > 0 && waitpid(prod, &status, 0) != prod)
		status = -1;
	CU_ASSERT(kills >= 1);
	CU_ASSERT_FATAL(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	CU_ASSERT_FATAL(read_topic("kw", &t) >= NMSG);
	CU_ASSERT_EQUAL(check_acked(outpath, "kw", &t, &acked), 0);
	CU_ASSERT_EQUAL(acked, NMSG);
	table_free(&t);
	free(input);
}

/* SIGKILL the master: a new one drains the old shared rings. */
static void
test_kill_master_and_restart(void)
{
	const char *argv[] = { "flume-produce", "-t", "km", "-v", NULL };
	char *input = numbered_input("km", 5000), *out = NULL;
	char outpath[600];
	struct table t;
	FILE *f;
	int acked = 0;

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, input, &out, 60000, argv), 0);
	snprintf(outpath, sizeof(outpath), "%s/km.out", d.dir);
	f = fopen(outpath, "w");
	fputs(out, f);
	fclose(f);
	free(out);
	flumed_kill(&d);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_FATAL(read_topic("km", &t) == 5000);
	CU_ASSERT_EQUAL(check_acked(outpath, "km", &t, &acked), 0);
	CU_ASSERT_EQUAL(acked, 5000);
	table_free(&t);
	free(input);
}

/*
 * A writer that cannot drain at shutdown (stopped, then killed once the
 * master asks it to drain): a drain child writes the rings to the logs,
 * not the master, and every acknowledged record is there after a start.
 */
static void
test_shutdown_drain_child(void)
{
	const char *argv[] = { "flume-produce", "-t", "sd", "-v", NULL };
	char *input = numbered_input("sd", 500), *out = NULL;
	char outpath[600];
	long long deadline;
	struct table t;
	pid_t writer;
	FILE *f;
	int acked = 0, status = -1, drains, found;

	/* The log is shared with the suite's earlier starts: count from here. */
	drains = flumed_log_count(&d, "[drain ");
	found = flumed_log_count(&d, "found shared memory");
	writer = flumed_child_pid(&d, "writer", -1);
	CU_ASSERT_FATAL(writer > 0);
	CU_ASSERT_EQUAL_FATAL(kill(writer, SIGSTOP), 0);
	/* acks=1: answered from the rings, which nobody drains now. */
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, input, &out, 60000, argv), 0);
	snprintf(outpath, sizeof(outpath), "%s/sd.out", d.dir);
	f = fopen(outpath, "w");
	fputs(out, f);
	fclose(f);
	free(out);

	CU_ASSERT_EQUAL(kill(d.pid, SIGTERM), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d,
	    "asking the writer to drain", 1, 20000), 1);
	CU_ASSERT_EQUAL(kill(writer, SIGKILL), 0);
	deadline = support_now_ms() + 20000;
	while (support_now_ms() < deadline)
		if (waitpid(d.pid, &status, WNOHANG) == d.pid) {
			d.pid = 0;
			break;
		} else
			usleep(10 * 1000);
	CU_ASSERT_EQUAL_FATAL(d.pid, 0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "draining the rings in a child"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "[drain "), drains + 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "draining the rings failed"), 0);

	/* The region was drained and removed: the next start finds none. */
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "found shared memory"), found);
	CU_ASSERT_FATAL(read_topic("sd", &t) == 500);
	CU_ASSERT_EQUAL(check_acked(outpath, "sd", &t, &acked), 0);
	CU_ASSERT_EQUAL(acked, 500);
	table_free(&t);
	free(input);
}

/* A FETCH parked on an empty partition wakes within a few ms of a produce. */
static void
test_long_poll(void)
{
	const char *create[] = { "flume-admin", "create", "lp", "-p", "1", NULL };
	const char *produce[] = { "flume-produce", "-t", "lp", "wake-up", NULL };
	struct fetch_part part = { "lp", 2, 0, 0, 1 << 20 };
	struct fetch_req req = { 300, 1, 1 << 20, 1, &part, 0 };
	struct fetch_resp resp;
	struct arena a;
	struct wbuf wb;
	uint8_t *payload = NULL;
	size_t plen;
	uint32_t id;
	long long t0, t1;
	int fd;

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, NULL, 10000, create), 0);
	arena_init(&a, 1 << 20);
	wbuf_init(&wb);
	msg_encode_fetch_req(&wb, &req);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);

	/* Nothing comes: the answer arrives after max_wait_ms, empty. */
	t0 = support_now_ms();
	CU_ASSERT_EQUAL(support_request(fd, API_FETCH, 1, wb.buf, wb.len), 0);
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 5000, &id, &payload, &plen), 1);
	t1 = support_now_ms();
	CU_ASSERT(t1 - t0 >= 290);
	CU_ASSERT_EQUAL(msg_decode_fetch_resp(payload, plen, &a, &resp), 0);
	CU_ASSERT_EQUAL(resp.count, 1);
	CU_ASSERT_EQUAL(resp.results[0].error, 0);
	CU_ASSERT_EQUAL(resp.results[0].records_len, 0);
	free(payload);

	/*
	 * A produce wakes a fetch that would otherwise wait 60 s: an answer
	 * within the 9 s support_recv waits is the wake-up's.
	 */
	req.max_wait_ms = 60000;
	wbuf_reset(&wb);
	arena_reset(&a);
	msg_encode_fetch_req(&wb, &req);
	CU_ASSERT_EQUAL(support_request(fd, API_FETCH, 2, wb.buf, wb.len), 0);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, NULL, 10000, produce), 0);
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 9000, &id, &payload, &plen), 1);
	CU_ASSERT_EQUAL(id, 2);
	CU_ASSERT_EQUAL(msg_decode_fetch_resp(payload, plen, &a, &resp), 0);
	CU_ASSERT_EQUAL(resp.results[0].error, 0);
	CU_ASSERT(resp.results[0].records_len > 61);
	CU_ASSERT_EQUAL(resp.results[0].high_watermark, 1);
	free(payload);
	close(fd);
	wbuf_free(&wb);
	arena_free(&a);
}

/*
 * A tiny ring and an fsync per batch, awaited by the producer (acks=all:
 * the writer's syncs run on their own thread and no longer hold the ring
 * up, so with acks=1 the producer could finish before one fetch): the
 * producer is slowed, not refused; every message arrives, and a fetch of
 * another topic is served meanwhile.
 */
static void
test_backpressure(void)
{
	const char *seed[] = { "flume-produce", "-t", "other", "-p", "0", "x", NULL };
	const char *peek[] = { "flume-consume", "-t", "other", "-p", "0", "-o",
	    "beginning", "-e", NULL };
	char outpath[600], *input = numbered_input("bp", NMSG), *out = NULL;
	struct table t;
	pid_t prod;
	int status, acked = 0, peeks = 0, meanwhile = 0;

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, NULL, 10000, seed), 0);
	snprintf(outpath, sizeof(outpath), "%s/bp.out", d.dir);
	prod = produce_async("bp", "all", input, outpath);
	while (waitpid(prod, &status, WNOHANG) == 0 && peeks < 50) {
		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, peek), 0);
		CU_ASSERT_STRING_EQUAL(out, "x\n");
		free(out);
		/* Answered while the producer was still being held back. */
		if (waitpid(prod, &status, WNOHANG) == 0)
			meanwhile++;
		else
			break;
		peeks++;
	}
	if (peeks == 50)
		waitpid(prod, &status, 0);
	CU_ASSERT_FATAL(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	CU_ASSERT(meanwhile >= 1);
	CU_ASSERT_FATAL(read_topic("bp", &t) == NMSG);
	CU_ASSERT_EQUAL(check_acked(outpath, "bp", &t, &acked), 0);
	CU_ASSERT_EQUAL(acked, NMSG);
	table_free(&t);
	free(input);
}

TEST_SUITE("crash", setup, teardown,
    { "kill -9 workers while producing", test_kill_worker_while_producing },
    { "kill -9 master, restart", test_kill_master_and_restart },
    { "a writer that does not drain at shutdown", test_shutdown_drain_child },
    { "long-poll fetch", test_long_poll },
    { "backpressure", test_backpressure });
