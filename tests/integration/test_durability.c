/*
 * Durability through the real daemon, watched through the store's seam
 * (FLUME_TEST_FSYNC_LOG logs every write and fdatasync with its path;
 * FLUME_FAULT fails them): new directories are synced into their parents
 * before the first acks=all answer, a stored batch resent while the
 * partition has a storage error is answered with its offsets, start-up
 * recovery syncs what it declares durable, bytes whose fdatasync failed
 * are written again before a later fdatasync may count for them, a
 * respawned writer takes over its predecessor's storage error, and an
 * idempotent resend is deduplicated after a restart that met a damaged
 * batch.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;
static char *scratch;		/* flag and trace files live here */
static char trace[PATH_MAX];
static char flag[PATH_MAX];

static int
teardown(void)
{
	flumed_cleanup(&d);
	if (scratch != NULL)
		test_rmtree(scratch);
	free(scratch);
	scratch = NULL;
	unsetenv("FLUME_FAULT");
	unsetenv("FLUME_TEST_FSYNC_LOG");
	return 0;
}

/* A fresh scratch directory with the trace path set; flag made if asked. */
static void
scratch_init(int with_flag)
{
	int fd;

	if (scratch != NULL)
		test_rmtree(scratch);
	free(scratch);
	scratch = test_mkdtemp("dur");
	snprintf(trace, sizeof(trace), "%s/trace", scratch);
	snprintf(flag, sizeof(flag), "%s/flag", scratch);
	if (with_flag) {
		fd = open(flag, O_WRONLY | O_CREAT, 0600);
		CU_ASSERT_FATAL(fd != -1);
		close(fd);
	}
	setenv("FLUME_TEST_FSYNC_LOG", trace, 1);
}

static int
start(const char *extra)
{
	if (d.pid > 0 || d.dir != NULL)
		flumed_cleanup(&d);
	support_use_seams(1);	/* FLUME_TEST_FSYNC_LOG, FLUME_FAULT */
	return flumed_start(&d, extra);
}

static char *
slurp(const char *path)
{
	struct stat st;
	char *buf;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1 || fstat(fd, &st) == -1) {
		if (fd != -1)
			close(fd);
		return strdup("");
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf != NULL && read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	if (buf != NULL)
		buf[st.st_size] = '\0';
	return buf;
}

/* Lines of the trace that are exactly want (prefix: that start with it). */
static int
trace_match(const char *want, int prefix)
{
	char *buf = slurp(trace), *line, *save = NULL;
	int n = 0;

	if (buf == NULL)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		if (prefix ? strncmp(line, want, strlen(want)) == 0 :
		    strcmp(line, want) == 0)
			n++;
	free(buf);
	return n;
}

static int
trace_count(const char *want)
{
	return trace_match(want, 0);
}

/* The data directory as the daemon names it (realpath). */
static void
data_path(char *buf, size_t size, const char *tail)
{
	char real[PATH_MAX];

	CU_ASSERT_FATAL(realpath(d.data, real) != NULL);
	snprintf(buf, size, "%s%s", real, tail);
}

/*
 * Send one PRODUCE (request id 7) of n records "<tag>-<i>" (each padded
 * with pad 'x' bytes) to partition 0, idempotent with (pid, epoch, seq)
 * when pid >= 0.  0 or -1.
 */
static int
produce_send(int fd, const char *topic, int acks, int timeout_ms, int64_t pid,
    int16_t epoch, int32_t seq, const char *tag, int n, size_t pad)
{
	struct batch_builder bb;
	struct produce_part pp;
	struct produce_req req;
	const uint8_t *bytes;
	struct wbuf wb;
	size_t blen;
	char v[2048];
	int i, k, rc;

	batch_builder_init(&bb);
	if (pid >= 0)
		batch_builder_set_producer(&bb, pid, epoch, seq);
	for (i = 0; i < n; i++) {
		k = snprintf(v, sizeof(v), "%s-%06d", tag, i);
		memset(v + k, 'x', pad);
		batch_builder_add(&bb, 1, NULL, -1, v, (int32_t)((size_t)k + pad),
		    NULL, 0);
	}
	batch_builder_close(&bb, &bytes, &blen);
	pp.topic = topic;
	pp.topic_len = strlen(topic);
	pp.partition = 0;
	pp.records = bytes;
	pp.records_len = (int32_t)blen;
	req.acks = (int8_t)acks;
	req.timeout_ms = timeout_ms;
	req.count = 1;
	req.parts = &pp;
	wbuf_init(&wb);
	msg_encode_produce_req(&wb, &req);
	rc = support_request(fd, API_PRODUCE, 7, wb.buf, wb.len);
	wbuf_free(&wb);
	batch_builder_free(&bb);
	return rc;
}

/* The answer to produce_send: the part's error (*base set), or -1. */
static int
produce_recv(int fd, int timeout_ms, int64_t *base)
{
	struct produce_resp resp;
	struct arena a;
	uint8_t *payload = NULL;
	size_t plen;
	uint32_t id;
	int rc = -1;

	arena_init(&a, 1 << 16);
	if (support_recv(fd, timeout_ms, &id, &payload, &plen) == 1 &&
	    id == 7 && msg_decode_produce_resp(payload, plen, &a, &resp) == 0 &&
	    resp.count == 1) {
		rc = resp.results[0].error;
		*base = resp.results[0].base_offset;
	}
	free(payload);
	arena_free(&a);
	return rc;
}

static int
produce(int fd, const char *topic, int acks, int timeout_ms, int64_t pid,
    int16_t epoch, int32_t seq, const char *tag, int n, size_t pad,
    int64_t *base)
{
	if (produce_send(fd, topic, acks, timeout_ms, pid, epoch, seq, tag, n,
	    pad) == -1)
		return -1;
	return produce_recv(fd, timeout_ms + 10000, base);
}

/*
 * FETCH partition 0 from offset from (no waiting): how many records,
 * which must be runs of "<tags[k]>-<j>" (padding ignored), j counting
 * from 0 in each run, counts[k] records long, one run after the other
 * from offset from on; -1 on any other content.
 */
static int
fetch_runs(int fd, const char *topic, int64_t from, const char *const tags[],
    const int counts[], int nruns)
{
	struct fetch_part part = { topic, strlen(topic), 0, from, 1 << 20 };
	struct fetch_req req = { 0, 1, 1 << 20, 1, &part, 0 };
	struct fetch_resp resp;
	struct batch_iter it;
	struct record r;
	struct arena a;
	struct wbuf wb;
	uint8_t *payload = NULL;
	const uint8_t *b;
	char v[64];
	size_t plen, left, sz, k;
	uint32_t id;
	int n = -1, run = 0, j = 0;

	wbuf_init(&wb);
	arena_init(&a, 4 << 20);
	msg_encode_fetch_req(&wb, &req);
	if (support_request(fd, API_FETCH, 9, wb.buf, wb.len) != 0 ||
	    support_recv(fd, 10000, &id, &payload, &plen) != 1 ||
	    msg_decode_fetch_resp(payload, plen, &a, &resp) != 0 ||
	    resp.count != 1 || resp.results[0].error != 0)
		goto out;
	n = 0;
	b = resp.results[0].records;
	left = (size_t)resp.results[0].records_len;
	while (left >= BATCH_HEADER_SIZE) {
		sz = BATCH_LOG_OVERHEAD + be32_get(b + BATCH_OFF_LENGTH);
		if (sz > left || batch_validate(b, sz, NULL) != BATCH_OK ||
		    batch_iter_init(&it, b, sz) == -1) {
			n = -1;
			goto out;
		}
		while (batch_iter_next(&it, &r) == 1) {
			while (run < nruns && j >= counts[run]) {
				run++;
				j = 0;
			}
			if (run == nruns) {
				n = -1;
				goto out;
			}
			snprintf(v, sizeof(v), "%s-%06d", tags[run], j);
			k = strlen(v);
			if (r.offset != from + n || r.value_len < (int32_t)k ||
			    memcmp(r.value, v, k) != 0) {
				n = -1;
				goto out;
			}
			n++;
			j++;
		}
		b += sz;
		left -= sz;
	}
out:
	free(payload);
	arena_free(&a);
	wbuf_free(&wb);
	return n;
}

/*
 * fetch_runs of "<tag1>-<i>" for the first n1 records, then "<tag2>-<j>"
 * for the rest.
 */
static int
fetch_check(int fd, const char *topic, const char *tag1, int n1,
    const char *tag2)
{
	const char *const tags[] = { tag1, tag2 };
	const int counts[] = { n1, INT_MAX };

	return fetch_runs(fd, topic, 0, tags, counts, 2);
}

/* Produce n1 records "<tag>-<i>" with acks=1 and wait until all are readable. */
static void
seed(int fd, const char *topic, const char *tag, int n1)
{
	long long deadline;
	int64_t base = -1;

	CU_ASSERT_EQUAL_FATAL(produce(fd, topic, 1, 5000, -1, 0, 0, tag, n1, 0,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 0);
	deadline = support_now_ms() + 10000;
	while (fetch_check(fd, topic, tag, n1, "none") != n1 &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);	/* polling the condition, bounded */
	CU_ASSERT_EQUAL_FATAL(fetch_check(fd, topic, tag, n1, "none"), n1);
}

/* ---- item 6: new directories are synced into their parents ---- */

static void
test_new_dirs_synced(void)
{
	char topic_dir[PATH_MAX + 64], data_dir[PATH_MAX + 64],
	    part_dir[PATH_MAX + 64], line[2 * PATH_MAX];
	int64_t base = -1;
	int fd, before;

	scratch_init(0);
	CU_ASSERT_EQUAL_FATAL(start("partitions = 3"), 0);
	data_path(data_dir, sizeof(data_dir), "");
	data_path(topic_dir, sizeof(topic_dir), "/nt");
	data_path(part_dir, sizeof(part_dir), "/nt/partition-0");
	snprintf(line, sizeof(line), "writer fdatasync %s ok", data_dir);
	before = trace_count(line);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	/* The topic is created by this produce; the answer waits for the sync. */
	CU_ASSERT_EQUAL(produce(fd, "nt", -1, 10000, -1, 0, 0, "nt", 3, 0,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(fetch_check(fd, "nt", "nt", 3, "none"), 3);
	close(fd);

	/* data_dir: once, for the entry of the new topic directory. */
	CU_ASSERT_EQUAL(trace_count(line) - before, 1);
	/* The topic directory: topic.meta's rename and three partition-N. */
	snprintf(line, sizeof(line), "writer fdatasync %s ok", topic_dir);
	CU_ASSERT_EQUAL(trace_count(line), 4);
	/* Partition 0's own directory: its first segment's entries. */
	snprintf(line, sizeof(line), "writer fdatasync %s ok", part_dir);
	CU_ASSERT_EQUAL(trace_count(line), 1);
	snprintf(line, sizeof(line),
	    "writer fdatasync %s/00000000000000000000.log ok", part_dir);
	CU_ASSERT_EQUAL(trace_count(line), 1);
	flumed_cleanup(&d);
}

/* ---- item 7: a stored batch is answered with its offsets ---- */

static void
test_stored_resend(void)
{
	char env[PATH_MAX + 32];
	int64_t pid = -1, base = -1;
	int16_t epoch = -1;
	int fd;

	scratch_init(1);
	/* Writes fail with ENOSPC past 3000 bytes while the flag exists. */
	snprintf(env, sizeof(env), "enospc:3000:%s", flag);
	setenv("FLUME_FAULT", env, 1);
	CU_ASSERT_EQUAL_FATAL(start("partitions = 1"), 0);
	unsetenv("FLUME_FAULT");
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	seed(fd, "sr", "sra", 50);
	CU_ASSERT_EQUAL_FATAL(support_init_producer(fd, &pid, &epoch), 0);

	/* In the ring (acks=1 answers that); the writer hits the full disk. */
	CU_ASSERT_EQUAL(produce(fd, "sr", 1, 5000, pid, epoch, 0, "srb", 20, 200,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 50);
	/* The writer sets the partition's storage error before this line. */
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d, "No space left on device", 1,
	    10000), 1);
	/* Something new is refused meanwhile, and not stored. */
	CU_ASSERT_EQUAL(produce(fd, "sr", 1, 5000, pid, epoch, 20, "src", 1, 0,
	    &base), ERR_STORAGE);
	/* The stored batch resent (its answer lost): its offsets, no STORAGE. */
	base = -1;
	CU_ASSERT_EQUAL(produce(fd, "sr", 1, 5000, pid, epoch, 0, "srb", 20, 200,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 50);
	/* With acks=all it is answered once durable: after the disk has room. */
	CU_ASSERT_EQUAL(produce_send(fd, "sr", -1, 20000, pid, epoch, 0, "srb",
	    20, 200), 0);
	CU_ASSERT_EQUAL(unlink(flag), 0);
	base = -1;
	CU_ASSERT_EQUAL(produce_recv(fd, 30000, &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 50);
	/* Stored once: the 50 seed records and the 20 of the batch, no more. */
	CU_ASSERT_EQUAL(fetch_check(fd, "sr", "sra", 50, "srb"), 70);
	close(fd);
	flumed_cleanup(&d);
}

/* ---- item 2: start-up recovery syncs what it declares durable ---- */

static void
test_restart_syncs(void)
{
	char seg[PATH_MAX + 64], pdir[PATH_MAX + 64], tdir[PATH_MAX + 64],
	    line[2 * PATH_MAX];
	long long deadline;
	int64_t pid = -1, base = -1;
	int16_t epoch = -1;
	int fd;

	scratch_init(0);
	/* Nothing but acks=all makes the writer sync. */
	CU_ASSERT_EQUAL_FATAL(start("partitions = 1\n"
	    "flush_interval_ms = -1\nflush_messages = -1"), 0);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL_FATAL(support_init_producer(fd, &pid, &epoch), 0);
	/* Sent with acks=all, but only the acks=1 part got through. */
	CU_ASSERT_EQUAL(produce(fd, "rs", 1, 5000, pid, epoch, 0, "rsa", 10, 0,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 0);
	deadline = support_now_ms() + 10000;
	while (fetch_check(fd, "rs", "rsa", 10, "none") != 10 &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);	/* polling the condition, bounded */
	CU_ASSERT_EQUAL_FATAL(fetch_check(fd, "rs", "rsa", 10, "none"), 10);
	close(fd);
	data_path(tdir, sizeof(tdir), "/rs");
	data_path(pdir, sizeof(pdir), "/rs/partition-0");
	data_path(seg, sizeof(seg), "/rs/partition-0/00000000000000000000.log");
	/* Written, never synced. */
	snprintf(line, sizeof(line), "writer write %s ", seg);
	CU_ASSERT_EQUAL(trace_match(line, 1), 1);
	snprintf(line, sizeof(line), "writer fdatasync %s ok", seg);
	CU_ASSERT_EQUAL(trace_count(line), 0);

	/* The master killed (its children with it), then started again. */
	flumed_kill(&d);
	CU_ASSERT_EQUAL(unlink(trace), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	/* The resend: deduplicated, durable because the new master synced it. */
	CU_ASSERT_EQUAL(produce(fd, "rs", -1, 10000, pid, epoch, 0, "rsa", 10, 0,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 0);
	snprintf(line, sizeof(line), "master fdatasync %s ok", seg);
	CU_ASSERT_EQUAL(trace_count(line), 1);
	snprintf(line, sizeof(line), "master fdatasync %s ok", pdir);
	CU_ASSERT_EQUAL(trace_count(line), 1);
	snprintf(line, sizeof(line), "master fdatasync %s ok", tdir);
	CU_ASSERT_EQUAL(trace_count(line), 1);
	/* Nothing was written again, and the batch is stored once. */
	snprintf(line, sizeof(line), "master write %s ", seg);
	CU_ASSERT_EQUAL(trace_match(line, 1), 0);
	CU_ASSERT_EQUAL(fetch_check(fd, "rs", "rsa", 10, "none"), 10);
	close(fd);
	flumed_cleanup(&d);
}

/* The writer alone killed between a write and its sync: its successor syncs. */
static void
test_writer_respawn_syncs(void)
{
	char seg[PATH_MAX + 64], line[2 * PATH_MAX];
	long long deadline;
	int64_t pid = -1, base = -1;
	int16_t epoch = -1;
	pid_t victim;
	int fd;

	scratch_init(0);
	CU_ASSERT_EQUAL_FATAL(start("partitions = 1\n"
	    "flush_interval_ms = -1\nflush_messages = -1"), 0);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL_FATAL(support_init_producer(fd, &pid, &epoch), 0);
	CU_ASSERT_EQUAL(produce(fd, "wr", 1, 5000, pid, epoch, 0, "wra", 10, 0,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 0);
	deadline = support_now_ms() + 10000;
	while (fetch_check(fd, "wr", "wra", 10, "none") != 10 &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);	/* polling the condition, bounded */
	CU_ASSERT_EQUAL_FATAL(fetch_check(fd, "wr", "wra", 10, "none"), 10);
	data_path(seg, sizeof(seg), "/wr/partition-0/00000000000000000000.log");
	snprintf(line, sizeof(line), "writer fdatasync %s ok", seg);
	CU_ASSERT_EQUAL(trace_count(line), 0);

	victim = flumed_child_pid(&d, "writer", 2);
	CU_ASSERT_FATAL(victim > 0);
	CU_ASSERT_EQUAL_FATAL(kill(victim, SIGKILL), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d, "respawned writer", 1, 10000), 1);
	/* The resend is answered durable only after the new writer's sync. */
	CU_ASSERT_EQUAL(produce(fd, "wr", -1, 10000, pid, epoch, 0, "wra", 10, 0,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(trace_count(line), 1);
	CU_ASSERT_EQUAL(fetch_check(fd, "wr", "wra", 10, "none"), 10);
	close(fd);
	flumed_cleanup(&d);
}

/* ---- item 2: after a failed fdatasync only bytes written again count ---- */

/*
 * The trace lines about file path after the last "fdatasync path EIO":
 * how many writes (all ok, *wrote their bytes), then whether exactly one
 * "fdatasync path ok" ends them (1) or not (0); -1 without a failure.
 */
static int
after_failure(const char *path, int *writes, long long *wrote)
{
	char *buf = slurp(trace), *line, *save = NULL, want_w[2 * PATH_MAX],
	    want_eio[2 * PATH_MAX], want_ok[2 * PATH_MAX];
	int seen = 0, synced = 0, bad = 0;
	long long len;

	*writes = 0;
	*wrote = 0;
	if (buf == NULL)
		return -1;
	snprintf(want_w, sizeof(want_w), "writer write %s ", path);
	snprintf(want_eio, sizeof(want_eio), "writer fdatasync %s EIO", path);
	snprintf(want_ok, sizeof(want_ok), "writer fdatasync %s ok", path);
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, want_eio) == 0) {
			seen = 1;
			*writes = synced = bad = 0;
			*wrote = 0;
		} else if (!seen)
			continue;
		else if (strncmp(line, want_w, strlen(want_w)) == 0) {
			if (synced || sscanf(line + strlen(want_w), "%lld ok",
			    &len) != 1)
				bad = 1;
			else {
				(*writes)++;
				*wrote += len;
			}
		} else if (strcmp(line, want_ok) == 0) {
			if (synced)
				bad = 1;
			synced = 1;
		}
	}
	free(buf);
	if (!seen)
		return -1;
	return synced && !bad;
}

static void
test_failed_fsync_rewrites(void)
{
	char env[PATH_MAX + 32], seg[PATH_MAX + 64];
	struct stat st;
	long long wrote;
	int64_t pid = -1, base = -1;
	int16_t epoch = -1;
	int fd, writes;

	scratch_init(1);
	/* fdatasync fails once 3000 bytes are written, while the flag exists. */
	snprintf(env, sizeof(env), "fsync:3000:%s", flag);
	setenv("FLUME_FAULT", env, 1);
	CU_ASSERT_EQUAL_FATAL(start("partitions = 1\n"
	    "flush_interval_ms = -1\nflush_messages = -1"), 0);
	unsetenv("FLUME_FAULT");
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	seed(fd, "fs", "fsa", 50);
	CU_ASSERT_EQUAL_FATAL(support_init_producer(fd, &pid, &epoch), 0);
	data_path(seg, sizeof(seg), "/fs/partition-0/00000000000000000000.log");

	/* Written, then its fdatasync fails: not answered as durable. */
	CU_ASSERT_EQUAL(produce(fd, "fs", -1, 1500, pid, epoch, 0, "fsb", 20,
	    200, &base), ERR_TIMEOUT);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d, "fdatasync: Input/output error",
	    1, 10000), 1);
	/* The resend waits; the disk is healed while it does. */
	CU_ASSERT_EQUAL(produce_send(fd, "fs", -1, 20000, pid, epoch, 0, "fsb",
	    20, 200), 0);
	CU_ASSERT_EQUAL(unlink(flag), 0);
	CU_ASSERT_EQUAL(produce_recv(fd, 30000, &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 50);

	/*
	 * Before that answer, after the last failed fdatasync: the whole
	 * unsynced log (nothing was synced before, so all of the file)
	 * written again, then one fdatasync that succeeded.
	 */
	CU_ASSERT_EQUAL_FATAL(stat(seg, &st), 0);
	CU_ASSERT_EQUAL(after_failure(seg, &writes, &wrote), 1);
	CU_ASSERT_EQUAL(writes, 2);	/* the seed batch and fsb */
	CU_ASSERT_EQUAL(wrote, (long long)st.st_size);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "written again and synced"), 1);
	CU_ASSERT_EQUAL(fetch_check(fd, "fs", "fsa", 50, "fsb"), 70);
	close(fd);
	flumed_cleanup(&d);
}

/* The same failure, then the master killed: recovery writes it again. */
static void
test_failed_fsync_restart(void)
{
	char env[PATH_MAX + 32], seg[PATH_MAX + 64], line[2 * PATH_MAX];
	char *buf, *l, *save = NULL;
	struct stat st;
	long long wrote = 0, len;
	int64_t pid = -1, base = -1;
	int16_t epoch = -1;
	int fd, writes = 0;

	scratch_init(1);
	snprintf(env, sizeof(env), "fsync:3000:%s", flag);
	setenv("FLUME_FAULT", env, 1);
	CU_ASSERT_EQUAL_FATAL(start("partitions = 1\n"
	    "flush_interval_ms = -1\nflush_messages = -1"), 0);
	unsetenv("FLUME_FAULT");
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	seed(fd, "fr", "fra", 50);
	CU_ASSERT_EQUAL_FATAL(support_init_producer(fd, &pid, &epoch), 0);
	CU_ASSERT_EQUAL(produce(fd, "fr", -1, 1500, pid, epoch, 0, "frb", 20,
	    200, &base), ERR_TIMEOUT);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d, "fdatasync: Input/output error",
	    1, 10000), 1);
	close(fd);
	data_path(seg, sizeof(seg), "/fr/partition-0/00000000000000000000.log");

	/* Killed with the failure standing; started again without the fault. */
	flumed_kill(&d);
	CU_ASSERT_EQUAL(unlink(trace), 0);
	CU_ASSERT_EQUAL(unlink(flag), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL(produce(fd, "fr", -1, 10000, pid, epoch, 0, "frb", 20,
	    200, &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 50);

	/* The new master wrote the whole unsynced file again, then synced. */
	CU_ASSERT_EQUAL_FATAL(stat(seg, &st), 0);
	buf = slurp(trace);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	snprintf(line, sizeof(line), "master write %s ", seg);
	for (l = strtok_r(buf, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save))
		if (strncmp(l, line, strlen(line)) == 0 &&
		    sscanf(l + strlen(line), "%lld ok", &len) == 1) {
			writes++;
			wrote += len;
		}
	free(buf);
	CU_ASSERT_EQUAL(writes, 2);
	CU_ASSERT_EQUAL(wrote, (long long)st.st_size);
	/* Once after writing it again, once more by the general sync. */
	snprintf(line, sizeof(line), "master fdatasync %s ok", seg);
	CU_ASSERT_EQUAL(trace_count(line), 2);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "written again from offset 0 and synced"), 1);
	CU_ASSERT_EQUAL(fetch_check(fd, "fr", "fra", 50, "frb"), 70);
	close(fd);
	flumed_cleanup(&d);
}

/* ---- a storage error outlives the writer that saw it ---- */

/*
 * The partition of topic has its storage error (a full disk with
 * kind "enospc", a failed fdatasync with "fsync", from the writer's
 * 3000th byte on while the flag exists), holding the 20 records
 * "<topic>b-<i>" that were acknowledged: room is made again while the
 * writer is stopped, so that it cannot retry, and the writer is killed.
 * Its successor takes the error over: a new produce succeeds, the
 * "storage works again" line is logged, and the log holds exactly the
 * seed, the held batch and the new record.
 */
static void
respawn_after_storage_error(const char *kind, const char *topic, int acks,
    const char *failure)
{
	char env[PATH_MAX + 32], ta[16], tb[16], tc[16], line[256];
	const char *tags[3];
	int counts[3] = { 50, 20, 1 };
	long long deadline;
	int64_t base = -1;
	pid_t victim;
	int fd, rc, n;

	scratch_init(1);
	snprintf(env, sizeof(env), "%s:3000:%s", kind, flag);
	setenv("FLUME_FAULT", env, 1);
	CU_ASSERT_EQUAL_FATAL(start("partitions = 1\n"
	    "flush_interval_ms = -1\nflush_messages = -1"), 0);
	unsetenv("FLUME_FAULT");
	snprintf(ta, sizeof(ta), "%sa", topic);
	snprintf(tb, sizeof(tb), "%sb", topic);
	snprintf(tc, sizeof(tc), "%sc", topic);
	tags[0] = ta;
	tags[1] = tb;
	tags[2] = tc;
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	seed(fd, topic, ta, 50);

	/*
	 * acks=1 is answered from the ring before the write fails; acks=all
	 * waits for the fdatasync, which fails, and times out.
	 */
	rc = produce(fd, topic, acks, 1500, -1, 0, 0, tb, 20, 200, &base);
	CU_ASSERT_EQUAL(rc, acks == 1 ? ERR_NONE : ERR_TIMEOUT);
	if (acks == 1)
		CU_ASSERT_EQUAL(base, 50);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d, failure, 1, 10000), 1);
	CU_ASSERT_EQUAL(produce(fd, topic, 1, 5000, -1, 0, 0, tc, 1, 0, &base),
	    ERR_STORAGE);

	/* Room again, but the writer that saw the error never retries. */
	victim = flumed_child_pid(&d, "writer", 2);
	CU_ASSERT_FATAL(victim > 0);
	CU_ASSERT_EQUAL_FATAL(kill(victim, SIGSTOP), 0);
	CU_ASSERT_FATAL(support_pid_state(victim, "T", 5000));
	CU_ASSERT_EQUAL(unlink(flag), 0);
	CU_ASSERT_EQUAL_FATAL(kill(victim, SIGKILL), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d, "respawned writer", 1, 10000), 1);

	/* Refused until the new writer has written and synced, then taken. */
	rc = ERR_STORAGE;
	deadline = support_now_ms() + 15000;
	while (rc == ERR_STORAGE && support_now_ms() < deadline) {
		rc = produce(fd, topic, -1, 5000, -1, 0, 0, tc, 1, 0, &base);
		if (rc == ERR_STORAGE)
			usleep(50 * 1000);	/* polling the condition, bounded */
	}
	CU_ASSERT_EQUAL(rc, ERR_NONE);
	CU_ASSERT_EQUAL(base, 70);
	snprintf(line, sizeof(line), "%s-0: %s before the writer restarted; "
	    "retrying", topic, strerror(strcmp(kind, "fsync") == 0 ? EIO : ENOSPC));
	CU_ASSERT_EQUAL(flumed_log_count(&d, line), 1);
	snprintf(line, sizeof(line), "%s-0: storage works again", topic);
	CU_ASSERT_EQUAL(flumed_log_count(&d, line), 1);
	/* Everything once, in order; the refused record is not there. */
	n = fetch_runs(fd, topic, 0, tags, counts, 3);
	CU_ASSERT_EQUAL(n, 71);
	close(fd);
	flumed_cleanup(&d);
}

static void
test_respawn_after_enospc(void)
{
	respawn_after_storage_error("enospc", "re", 1, "No space left on device");
}

static void
test_respawn_after_failed_fsync(void)
{
	respawn_after_storage_error("fsync", "rf", -1,
	    "fdatasync: Input/output error");
}

/* ---- idempotent producers' sequences past a damaged batch ---- */

/* XOR the byte at offset byte of batch number nth of a segment file. */
static int
batch_flip(const char *path, int nth, int byte, uint8_t mask)
{
	uint8_t h[BATCH_HEADER_SIZE], c;
	off_t pos = 0;
	int fd, i, rc = -1;

	if ((fd = open(path, O_RDWR)) == -1)
		return -1;
	for (i = 0; i < nth; i++) {
		if (pread(fd, h, sizeof(h), pos) != (ssize_t)sizeof(h))
			goto out;
		pos += BATCH_LOG_OVERHEAD + (off_t)be32_get(h + BATCH_OFF_LENGTH);
	}
	if (pread(fd, &c, 1, pos + byte) == 1) {
		c ^= mask;
		if (pwrite(fd, &c, 1, pos + byte) == 1)
			rc = 0;
	}
out:
	close(fd);
	return rc;
}

/*
 * Ten idempotent batches of five records; the fifth (offsets 20..24)
 * damaged in its length while the broker is down, so start-up recovery
 * keeps it as a corrupt range with the five after it.  The producer's
 * sequences are read back past it: the newest batch resent is answered
 * with its offsets and not stored again, the next one follows it.
 */
static void
test_resend_after_damage(void)
{
	const char *tags[] = { "df", "dg", "dh", "di", "dj", "dk" };
	const int counts[] = { 5, 5, 5, 5, 5, 5 };
	char seg[PATH_MAX + 64], idx[PATH_MAX + 64], tag[8];
	int64_t pid = -1, base = -1;
	int16_t epoch = -1;
	int fd, k;

	scratch_init(0);
	CU_ASSERT_EQUAL_FATAL(start("partitions = 1"), 0);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL_FATAL(support_init_producer(fd, &pid, &epoch), 0);
	for (k = 0; k < 10; k++) {
		snprintf(tag, sizeof(tag), "d%c", 'a' + k);
		CU_ASSERT_EQUAL_FATAL(produce(fd, "dm", -1, 10000, pid, epoch,
		    k * 5, tag, 5, 0, &base), ERR_NONE);
		CU_ASSERT_EQUAL_FATAL(base, k * 5);
	}
	close(fd);
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);

	data_path(seg, sizeof(seg), "/dm/partition-0/00000000000000000000.log");
	data_path(idx, sizeof(idx), "/dm/partition-0/00000000000000000000.index");
	CU_ASSERT_EQUAL_FATAL(batch_flip(seg, 4, BATCH_OFF_LENGTH + 3, 0x10), 0);
	(void)unlink(idx);	/* recovery scans the whole segment */
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "dm/0: corrupt batch: offsets 20 to 24 unreadable"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "reading producer sequences back"),
	    0);

	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	/* The newest batch resent (its answer lost): its offsets. */
	base = -1;
	CU_ASSERT_EQUAL(produce(fd, "dm", -1, 10000, pid, epoch, 45, "dj", 5, 0,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 45);
	/* Not stored twice: the next batch follows the original. */
	base = -1;
	CU_ASSERT_EQUAL(produce(fd, "dm", -1, 10000, pid, epoch, 50, "dk", 5, 0,
	    &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 50);
	CU_ASSERT_EQUAL(fetch_runs(fd, "dm", 25, tags, counts, 6), 30);
	close(fd);
	flumed_cleanup(&d);
}

TEST_SUITE("durability", NULL, teardown,
    { "new topic and partition directories are synced", test_new_dirs_synced },
    { "stored batch resent during a storage error", test_stored_resend },
    { "restart: recovery syncs before durable", test_restart_syncs },
    { "writer respawned: it syncs before durable", test_writer_respawn_syncs },
    { "failed fdatasync: written again before durable",
	test_failed_fsync_rewrites },
    { "failed fdatasync, master killed: recovery writes again",
	test_failed_fsync_restart },
    { "storage error, room again, writer respawned: produce succeeds",
	test_respawn_after_enospc },
    { "failed fdatasync, writer respawned: produce succeeds",
	test_respawn_after_failed_fsync },
    { "idempotent resend after a damaged batch and a restart",
	test_resend_after_damage });
