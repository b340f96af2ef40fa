/*
 * Faults through the real daemon: the writer and the master killed (with
 * the idempotent producer: nothing acknowledged lost, nothing stored
 * twice), a shared region from another layout refused, power loss after
 * acks=all, torn tails, a full disk, children that cannot start, and
 * peers that stall.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "shm/shm.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define MAXOFF	200000		/* offsets per partition a test may read */

static struct flumed d;

static int
teardown(void)
{
	flumed_cleanup(&d);
	unsetenv("FLUME_FAULT");
	unsetenv("FLUME_TEST_CHILD_EXIT");
	return 0;
}

/*
 * Start a daemon for one test.  A test stopped by a failed FATAL
 * assertion leaves its daemon behind: it is cleaned up here first.
 */
static int
start(const char *extra)
{
	if (d.pid > 0 || d.dir != NULL)
		flumed_cleanup(&d);
	support_use_seams(1);	/* FLUME_FAULT, FLUME_TEST_CHILD_EXIT */
	return flumed_start(&d, extra);
}

/* Lines "<prefix>-NNNNNN" for n in [from, from + count). */
static char *
numbered(const char *prefix, int from, int count)
{
	char *buf = malloc((size_t)count * 40 + 1);
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < count; i++)
		len += (size_t)sprintf(buf + len, "%s-%06d\n", prefix, from + i);
	return buf;
}

/* What a topic holds: value per (partition, offset). */
struct stored {
	int	  nparts;
	char	**v[4];
	long	  end[4];	/* one past the highest offset seen */
	long	  count[4];	/* records read */
};

static void
stored_free(struct stored *s)
{
	int p;
	long o;

	for (p = 0; p < s->nparts; p++) {
		for (o = 0; s->v[p] != NULL && o < MAXOFF; o++)
			free(s->v[p][o]);
		free(s->v[p]);
	}
	memset(s, 0, sizeof(*s));
}

/* Read every partition from the beginning; -1 on a tool failure. */
static int
read_stored(const char *topic, int nparts, struct stored *s)
{
	const char *argv[] = { "flume-consume", "-t", topic, "-o", "beginning",
	    "-e", "-f", "%p %o %v\\n", NULL };
	char *out = NULL, *line, *save = NULL, v[64];
	long o;
	int p;

	memset(s, 0, sizeof(*s));
	s->nparts = nparts;
	for (p = 0; p < nparts; p++)
		s->v[p] = calloc(MAXOFF, sizeof(char *));
	if (run_tool(&d, NULL, &out, 60000, argv) != 0) {
		free(out);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d %ld %63s", &p, &o, v) != 3 || p < 0 ||
		    p >= nparts || o < 0 || o >= MAXOFF)
			continue;
		s->count[p]++;
		free(s->v[p][o]);
		s->v[p][o] = strdup(v);
		if (o + 1 > s->end[p])
			s->end[p] = o + 1;
	}
	free(out);
	return 0;
}

/*
 * Every offset below end holds exactly one record, and no value is
 * stored twice; returns how many values with prefix are stored, or -1.
 */
static int
stored_check(const struct stored *s, const char *prefix, int n, int *dups,
    int *holes)
{
	char *seen = calloc((size_t)n, 1);
	size_t plen = strlen(prefix);
	int p, k, found = 0;
	long o;

	*dups = *holes = 0;
	for (p = 0; p < s->nparts; p++) {
		if (s->count[p] != s->end[p])
			(*holes)++;
		for (o = 0; o < s->end[p]; o++) {
			if (s->v[p][o] == NULL) {
				(*holes)++;
				continue;
			}
			if (strncmp(s->v[p][o], prefix, plen) != 0 ||
			    s->v[p][o][plen] != '-')
				continue;
			k = atoi(s->v[p][o] + plen + 1);
			if (k < 0 || k >= n)
				continue;
			if (seen[k])
				(*dups)++;
			else
				found++;
			seen[k] = 1;
		}
	}
	free(seen);
	return found;
}

/*
 * Each "P O" line of a producer's -v output names, in order, the value
 * prefix-(from + i): how many acknowledged records are not stored there.
 */
static int
acked_missing(const char *out, const struct stored *s, const char *prefix,
    int from, int *acked)
{
	const char *line = out;
	char want[64];
	int p, bad = 0, i = 0;
	long o;

	while (line != NULL && *line != '\0') {
		if (sscanf(line, "%d %ld", &p, &o) == 2) {
			snprintf(want, sizeof(want), "%s-%06d", prefix, from + i);
			if (p < 0 || p >= s->nparts || o < 0 || o >= MAXOFF ||
			    s->v[p][o] == NULL || strcmp(s->v[p][o], want) != 0)
				bad++;
			i++;
		}
		if ((line = strchr(line, '\n')) != NULL)
			line++;
	}
	*acked = i;
	return bad;
}

/* Start flume-produce -v in the background, its output to path. */
static pid_t
produce_bg(const char *topic, const char *acks, const char *input,
    const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		const char *argv[] = { "flume-produce", "-t", topic, "-a", acks,
		    "-v", NULL };
		char *out = NULL;
		int st = run_tool(&d, input, &out, 90000, argv);
		FILE *f = fopen(path, "w");

		if (f != NULL && out != NULL)
			fputs(out, f);
		if (f != NULL)
			fclose(f);
		_exit(st < 0 ? 99 : st);
	}
	return pid;
}

static char *
slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1 || fstat(fd, &st) == -1)
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	if (buf != NULL && read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	if (buf != NULL)
		buf[st.st_size] = '\0';
	if (len != NULL)
		*len = (size_t)st.st_size;
	return buf;
}

/* Has pid exited (a zombie counts: it runs no more)?  Waits up to ms. */
static int
pid_gone(pid_t pid, int ms)
{
	return support_pid_state(pid, "ZX", ms);
}

/* ---- the writer killed while an idempotent producer sends ---- */

static void
test_writer_killed(void)
{
	char path[600], *input = numbered("wk", 0, 30000), *out;
	struct stored s;
	pid_t prod, victim;
	int st = -1, kills = 0, dups, holes, acked = 0;
	long long deadline;

	CU_ASSERT_EQUAL_FATAL(start("partitions = 2\n"
	    "ring_size = 256K\nmax_message_bytes = 64K"), 0);
	snprintf(path, sizeof(path), "%s/wk.out", d.dir);
	prod = produce_bg("wk", "1", input, path);
	CU_ASSERT_FATAL(prod > 0);
	deadline = support_now_ms() + 30000;
	while (kills < 3 && support_now_ms() < deadline) {
		if (waitpid(prod, &st, WNOHANG) == prod) {
			prod = -1;
			break;
		}
		victim = flumed_child_pid(&d, "writer", 2);
		if (victim > 0 && kill(victim, SIGKILL) == 0) {
			kills++;
			/* The next kill only once this writer's successor runs. */
			flumed_wait_log(&d, "respawned writer", kills, 5000);
		}
		usleep(100 * 1000);	/* spacing between kills, not a wait */
	}
	if (prod > 0 && waitpid(prod, &st, 0) != prod)
		st = -1;
	CU_ASSERT(kills >= 1);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "exited on signal 9"), kills);
	CU_ASSERT_EQUAL_FATAL(read_stored("wk", 2, &s), 0);
	CU_ASSERT_EQUAL(stored_check(&s, "wk", 30000, &dups, &holes), 30000);
	CU_ASSERT_EQUAL(dups, 0);
	CU_ASSERT_EQUAL(holes, 0);
	CU_ASSERT_EQUAL(s.end[0] + s.end[1], 30000);
	out = slurp(path, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(acked_missing(out, &s, "wk", 0, &acked), 0);
	CU_ASSERT_EQUAL(acked, 30000);
	free(out);
	stored_free(&s);
	free(input);
	flumed_cleanup(&d);
}

/* ---- the master killed: children follow it, a new master drains ---- */

static void
test_master_killed(void)
{
	const char *argv[] = { "flume-produce", "-t", "mk", "-v", NULL };
	char *input = numbered("mk", 0, 5000), *out = NULL;
	pid_t kids[3];
	struct stored s;
	int i, dups, holes, acked;

	CU_ASSERT_EQUAL_FATAL(start("partitions = 2\n"
	    "flush_interval_ms = -1"), 0);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, input, &out, 60000, argv), 0);
	kids[0] = flumed_child_pid(&d, "worker", 0);
	kids[1] = flumed_child_pid(&d, "worker", 1);
	kids[2] = flumed_child_pid(&d, "writer", 2);
	for (i = 0; i < 3; i++)
		CU_ASSERT_FATAL(kids[i] > 0);
	/* Only the master: PR_SET_PDEATHSIG takes its children along. */
	CU_ASSERT_EQUAL(kill(d.pid, SIGKILL), 0);
	CU_ASSERT_EQUAL(waitpid(d.pid, NULL, 0), d.pid);
	d.pid = 0;
	for (i = 0; i < 3; i++)
		CU_ASSERT(pid_gone(kids[i], 5000));
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "of a previous run"), 1);
	CU_ASSERT_EQUAL_FATAL(read_stored("mk", 2, &s), 0);
	CU_ASSERT_EQUAL(stored_check(&s, "mk", 5000, &dups, &holes), 5000);
	CU_ASSERT_EQUAL(dups, 0);
	CU_ASSERT_EQUAL(holes, 0);
	CU_ASSERT_EQUAL(acked_missing(out, &s, "mk", 0, &acked), 0);
	CU_ASSERT_EQUAL(acked, 5000);
	stored_free(&s);
	free(out);
	free(input);
	flumed_cleanup(&d);
}

/* ---- a region with another magic or version is refused ---- */

/* Overwrite n bytes at off of the broker's shm object; 0 or -1. */
static int
shm_poke(size_t off, const void *bytes, size_t n)
{
	char name[SHM_NAME_MAX], path[SHM_NAME_MAX + 16];
	int fd, rc;

	if (shm_name_for(d.data, name, sizeof(name)) == -1)
		return -1;
	snprintf(path, sizeof(path), "/dev/shm%s", name);
	if ((fd = open(path, O_WRONLY)) == -1)
		return -1;
	rc = pwrite(fd, bytes, n, (off_t)off) == (ssize_t)n ? 0 : -1;
	close(fd);
	return rc;
}

static void
test_bad_region(void)
{
	const char *argv[] = { "flume-produce", "-t", "br", "-a", "all", NULL };
	const char *refused = "has another layout or is damaged: not used";
	char *input = numbered("br", 0, 300);
	uint64_t magic = 0x0123456789abcdefULL;
	uint32_t version = SHM_LAYOUT_VERSION + 7;
	struct stored s;
	int dups, holes;

	CU_ASSERT_EQUAL_FATAL(start("partitions = 1"), 0);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, input, NULL, 60000, argv), 0);

	flumed_kill(&d);
	CU_ASSERT_EQUAL_FATAL(shm_poke(offsetof(struct shm_header, magic),
	    &magic, sizeof(magic)), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, refused), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "of a previous run"), 0);
	CU_ASSERT_EQUAL_FATAL(read_stored("br", 1, &s), 0);
	CU_ASSERT_EQUAL(stored_check(&s, "br", 300, &dups, &holes), 300);
	CU_ASSERT_EQUAL(dups + holes, 0);
	stored_free(&s);

	flumed_kill(&d);
	CU_ASSERT_EQUAL_FATAL(shm_poke(offsetof(struct shm_header, version),
	    &version, sizeof(version)), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, refused), 2);
	CU_ASSERT_EQUAL_FATAL(read_stored("br", 1, &s), 0);
	CU_ASSERT_EQUAL(stored_check(&s, "br", 300, &dups, &holes), 300);
	CU_ASSERT_EQUAL(dups + holes, 0);
	CU_ASSERT_EQUAL(s.end[0], 300);
	stored_free(&s);
	free(input);
	flumed_cleanup(&d);
}

/* ---- power loss after acks=all ---- */

static off_t
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void
test_power_loss(void)
{
	const char *all[] = { "flume-produce", "-t", "pl", "-a", "all", "-v", NULL };
	const char *one[] = { "flume-produce", "-t", "pl", "-a", "1", NULL };
	char *a = numbered("pla", 0, 3000), *b = numbered("plb", 0, 3000);
	char seg[2][700], *orig[2], *out = NULL;
	off_t synced[2], full[2], len;
	size_t olen[2];
	struct stored s;
	int p, k, dups, holes, acked, found;

	/* fdatasync only when acks=all asks: the acks=1 tail is never synced. */
	CU_ASSERT_EQUAL_FATAL(start("partitions = 2\n"
	    "flush_interval_ms = -1\nflush_messages = -1"), 0);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, a, &out, 60000, all), 0);
	for (p = 0; p < 2; p++) {
		snprintf(seg[p], sizeof(seg[p]),
		    "%s/pl/partition-%d/00000000000000000000.log", d.data, p);
		synced[p] = file_size(seg[p]);
		CU_ASSERT_FATAL(synced[p] > 0);
	}
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, b, NULL, 60000, one), 0);
	/* Everything visible, so in the files (not necessarily on disk). */
	CU_ASSERT_EQUAL_FATAL(read_stored("pl", 2, &s), 0);
	CU_ASSERT_EQUAL(s.end[0] + s.end[1], 6000);
	stored_free(&s);
	flumed_kill(&d);
	for (p = 0; p < 2; p++) {
		full[p] = file_size(seg[p]);
		CU_ASSERT_FATAL(full[p] > synced[p]);
		orig[p] = slurp(seg[p], &olen[p]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(orig[p]);
	}

	/* The disk kept anything from the synced end to the whole file. */
	for (k = 0; k < 4; k++) {
		for (p = 0; p < 2; p++) {
			int fd;

			len = k == 0 ? synced[p] : synced[p] +
			    (off_t)(test_rand() % (uint64_t)(full[p] - synced[p] + 1));
			fd = open(seg[p], O_WRONLY | O_TRUNC);
			CU_ASSERT_FATAL(fd != -1);
			CU_ASSERT_EQUAL(write(fd, orig[p], (size_t)len), len);
			close(fd);
		}
		CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
		CU_ASSERT_EQUAL_FATAL(read_stored("pl", 2, &s), 0);
		/* Every acks=all record where it was acknowledged, ... */
		CU_ASSERT_EQUAL(acked_missing(out, &s, "pla", 0, &acked), 0);
		CU_ASSERT_EQUAL(acked, 3000);
		/* ... and of the rest a whole prefix per partition, no garbage. */
		found = stored_check(&s, "plb", 3000, &dups, &holes);
		CU_ASSERT(found >= 0 && found <= 3000);
		CU_ASSERT_EQUAL(dups, 0);
		CU_ASSERT_EQUAL(holes, 0);
		if (k == 0)
			CU_ASSERT_EQUAL(found, 0);
		stored_free(&s);
		flumed_kill(&d);
	}
	for (p = 0; p < 2; p++)
		free(orig[p]);
	free(out);
	free(a);
	free(b);
	flumed_cleanup(&d);
}

/* ---- torn and corrupt tails, one log line per partition ---- */

static void
test_torn_tail(void)
{
	const char *argv[] = { "flume-produce", "-t", "tt", "-a", "all", NULL };
	char *input = numbered("tt", 0, 2000), seg[2][700], line[128], *data;
	unsigned char junk[37];
	struct stored s;
	size_t len, last = 0, pos;
	int fd, dups, holes;

	CU_ASSERT_EQUAL_FATAL(start("partitions = 2"), 0);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, input, NULL, 60000, argv), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	for (int p = 0; p < 2; p++)
		snprintf(seg[p], sizeof(seg[p]),
		    "%s/tt/partition-%d/00000000000000000000.log", d.data, p);

	/* Partition 0: 37 bytes of garbage after the last batch. */
	test_fill_random(junk, sizeof(junk));
	fd = open(seg[0], O_WRONLY | O_APPEND);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	/* Partition 1: one flipped bit in the last batch's records. */
	data = slurp(seg[1], &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	for (pos = 0; pos + BATCH_HEADER_SIZE <= len;
	    pos += BATCH_LOG_OVERHEAD + be32_get((uint8_t *)data + pos + 8))
		last = pos;
	fd = open(seg[1], O_WRONLY);
	data[len - 3] ^= 0x10;
	CU_ASSERT_EQUAL(pwrite(fd, data + len - 3, 1, (off_t)len - 3), 1);
	close(fd);
	free(data);

	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "dropped"), 2);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "tt/0: dropped 37 bytes of torn tail"), 1);
	snprintf(line, sizeof(line), "tt/1: dropped %zu bytes of torn tail",
	    len - last);
	CU_ASSERT_EQUAL(flumed_log_count(&d, line), 1);
	CU_ASSERT_EQUAL(file_size(seg[0]), file_size(seg[0]));
	CU_ASSERT_EQUAL(file_size(seg[1]), (off_t)last);

	/* Everything but partition 1's last batch, and new produces go on. */
	CU_ASSERT_EQUAL_FATAL(read_stored("tt", 2, &s), 0);
	CU_ASSERT(stored_check(&s, "tt", 2000, &dups, &holes) < 2000);
	CU_ASSERT(stored_check(&s, "tt", 2000, &dups, &holes) > 1000);
	CU_ASSERT_EQUAL(dups + holes, 0);
	stored_free(&s);
	free(input);
	flumed_cleanup(&d);
}

/* ---- a full disk, injected into the writer's store_io ---- */

/* One PRODUCE (acks=1) of n records "<tag>-<i>" to fd; the part's error. */
static int
raw_produce(int fd, const char *topic, int32_t part, const char *tag, int n,
    size_t pad, int64_t *base)
{
	struct batch_builder bb;
	struct produce_part pp;
	struct produce_req req;
	struct produce_resp resp;
	const uint8_t *bytes;
	struct arena a;
	struct wbuf wb;
	uint8_t *payload = NULL;
	size_t blen, plen;
	uint32_t id;
	char v[2048];
	int i, rc = -1;

	batch_builder_init(&bb);
	for (i = 0; i < n; i++) {
		int k = snprintf(v, sizeof(v), "%s-%06d", tag, i);

		memset(v + k, 'x', pad);
		batch_builder_add(&bb, 1, NULL, -1, v, (int32_t)((size_t)k + pad),
		    NULL, 0);
	}
	batch_builder_close(&bb, &bytes, &blen);
	pp.topic = topic;
	pp.topic_len = strlen(topic);
	pp.partition = part;
	pp.records = bytes;
	pp.records_len = (int32_t)blen;
	req.acks = 1;
	req.timeout_ms = 5000;
	req.count = 1;
	req.parts = &pp;
	wbuf_init(&wb);
	arena_init(&a, 1 << 20);
	msg_encode_produce_req(&wb, &req);
	if (support_request(fd, API_PRODUCE, 7, wb.buf, wb.len) == 0 &&
	    support_recv(fd, 10000, &id, &payload, &plen) == 1 &&
	    msg_decode_produce_resp(payload, plen, &a, &resp) == 0 &&
	    resp.count == 1) {
		rc = resp.results[0].error;
		*base = resp.results[0].base_offset;
	}
	free(payload);
	arena_free(&a);
	wbuf_free(&wb);
	batch_builder_free(&bb);
	return rc;
}

/*
 * FETCH partition 0 from offset 0 (no waiting): the number of records
 * read, each of which must be "<tag>-<i>" at offset i, or -1.
 */
static int
raw_fetch_check(int fd, const char *topic, const char *tag, int want)
{
	struct fetch_part part = { topic, strlen(topic), 0, 0, 1 << 20 };
	struct fetch_req req = { 0, 1, 1 << 20, 1, &part, 0 };
	struct fetch_resp resp;
	struct batch_iter it;
	struct record r;
	struct arena a;
	struct wbuf wb;
	uint8_t *payload = NULL;
	const uint8_t *b;
	char v[64];
	size_t plen, left, sz;
	uint32_t id;
	int n = -1;

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
			snprintf(v, sizeof(v), "%s-%06d", tag, (int)r.offset);
			if (r.offset != n || r.value_len != (int32_t)strlen(v) ||
			    memcmp(r.value, v, strlen(v)) != 0) {
				n = -1;
				goto out;
			}
			n++;
		}
		b += sz;
		left -= sz;
	}
	if (n > want)
		n = -1;
out:
	free(payload);
	arena_free(&a);
	wbuf_free(&wb);
	return n;
}

static void
test_disk_full(void)
{
	const char *seed[] = { "flume-produce", "-t", "df", "-p", "0", NULL };
	char flag[600], env[700], *input = numbered("dfa", 0, 50);
	struct stored s;
	int64_t base;
	int fd, rc, i, tries, acked_x = 0, dups, holes;
	long long deadline;

	/* Writes stop after 3000 bytes while the flag file exists. */
	flag[0] = '\0';
	{
		char *tmp = test_mkdtemp("flag");

		snprintf(flag, sizeof(flag), "%s/full", tmp);
		free(tmp);
	}
	fd = open(flag, O_WRONLY | O_CREAT, 0600);
	CU_ASSERT_FATAL(fd != -1);
	close(fd);
	snprintf(env, sizeof(env), "enospc:3000:%s", flag);
	setenv("FLUME_FAULT", env, 1);
	CU_ASSERT_EQUAL_FATAL(start("partitions = 1"), 0);
	unsetenv("FLUME_FAULT");
	/* The writer logs it as it starts, maybe after the port opened. */
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "TEST FAULT INJECTION", 1, 10000), 1);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, input, NULL, 30000, seed), 0);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);

	/* The seed is in the file before anything else arrives. */
	deadline = support_now_ms() + 10000;
	while (raw_fetch_check(fd, "df", "dfa", 50) != 50 &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);	/* polling the condition, bounded */

	/* Acknowledged into the ring; the writer then hits the full disk. */
	CU_ASSERT_EQUAL(raw_produce(fd, "df", 0, "dfb", 20, 200, &base), ERR_NONE);
	CU_ASSERT_EQUAL(base, 50);
	rc = ERR_NONE;
	deadline = support_now_ms() + 10000;
	for (tries = 0; rc == ERR_NONE && support_now_ms() < deadline; tries++) {
		rc = raw_produce(fd, "df", 0, "dfx", 1, 0, &base);
		if (rc == ERR_NONE) {
			CU_ASSERT_EQUAL(base, 70 + acked_x);
			acked_x++;
			usleep(20 * 1000);	/* spacing; the loop is bounded */
		}
	}
	CU_ASSERT_EQUAL(rc, ERR_STORAGE);
	CU_ASSERT(flumed_log_count(&d, "No space left on device") >= 1);

	/* What was stored before stays readable meanwhile. */
	CU_ASSERT_EQUAL(raw_fetch_check(fd, "df", "dfa", 50), 50);

	/* The disk has room again: writes resume, the ring drains. */
	CU_ASSERT_EQUAL(unlink(flag), 0);
	rc = ERR_STORAGE;
	deadline = support_now_ms() + 15000;
	while (rc != ERR_NONE && support_now_ms() < deadline) {
		rc = raw_produce(fd, "df", 0, "dfz", 1, 0, &base);
		if (rc != ERR_NONE)
			usleep(50 * 1000);	/* polling the condition, bounded */
	}
	CU_ASSERT_EQUAL(rc, ERR_NONE);
	CU_ASSERT_EQUAL(base, 70 + acked_x);
	CU_ASSERT(flumed_wait_log(&d, "storage works again", 1, 5000) >= 1);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(read_stored("df", 1, &s), 0);
	CU_ASSERT_EQUAL(s.end[0], 71 + acked_x);
	CU_ASSERT_EQUAL(s.count[0], 71 + acked_x);
	CU_ASSERT_EQUAL(stored_check(&s, "dfa", 50, &dups, &holes), 50);
	CU_ASSERT_EQUAL(stored_check(&s, "dfb", 20, &dups, &holes), 20);
	CU_ASSERT_EQUAL(dups + holes, 0);
	for (i = 0; i < 20; i++)
		CU_ASSERT(s.v[0][50 + i] != NULL && strncmp(s.v[0][50 + i],
		    "dfb-", 4) == 0 && atoi(s.v[0][50 + i] + 4) == i);
	stored_free(&s);
	{
		char *dir = strdup(flag);

		*strrchr(dir, '/') = '\0';
		test_rmtree(dir);
		free(dir);
	}
	free(input);
	flumed_cleanup(&d);
}

/* ---- children that cannot start ---- */

static void
test_crash_loop_backoff(void)
{
	const char *argv[] = { "flume-produce", "-t", "cl", "-p", "0", "-v", "x",
	    NULL };
	char *out = NULL;

	/* Worker 0 dies at start three times, then runs. */
	setenv("FLUME_TEST_CHILD_EXIT", "worker 0:1:3", 1);
	CU_ASSERT_EQUAL_FATAL(start(NULL), 0);
	unsetenv("FLUME_TEST_CHILD_EXIT");
	CU_ASSERT(flumed_wait_log(&d, "respawned worker 0 (pid", 3, 15000) >= 3);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "(1 time in a row): respawning in 100 ms"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "(2 times in a row): respawning in 200 ms"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "(3 times in a row): respawning in 400 ms"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "exited with status 1"), 3);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, argv), 0);
	CU_ASSERT_PTR_NOT_NULL(out);
	if (out != NULL)
		CU_ASSERT_STRING_EQUAL(out, "0 0\n");
	free(out);
	/* The fourth start stayed up. */
	CU_ASSERT_EQUAL(flumed_log_count(&d, "respawned worker 0 (pid"), 3);
	CU_ASSERT(flumed_child_pid(&d, "worker", 0) > 0);
	flumed_cleanup(&d);
}

static void
test_exit_2_not_respawned(void)
{
	const char *argv[] = { "flume-produce", "-t", "nr", "-v", "y", NULL };
	char *out = NULL;

	setenv("FLUME_TEST_CHILD_EXIT", "worker 1:2", 1);
	CU_ASSERT_EQUAL_FATAL(start(NULL), 0);
	unsetenv("FLUME_TEST_CHILD_EXIT");
	CU_ASSERT(flumed_wait_log(&d, "exited with status 2: not respawned", 1,
	    10000) >= 1);
	/* The other worker serves; worker 1 stays gone. */
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, argv), 0);
	free(out);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "respawned worker 1"), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "exited with status 2"), 1);
	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	flumed_cleanup(&d);
}

/* ---- peers that stall ---- */

static void
test_stalled_peers(void)
{
	const char *argv[] = { "flume-produce", "-t", "sp", "-p", "0", "-v", "z",
	    NULL };
	uint8_t half[10] = { 0, 0, 1, 0, 0, API_PRODUCE, 0, 0, 0, 1 };
	uint8_t *payload = NULL;
	char *out = NULL;
	size_t plen;
	uint32_t id;
	long long t0;
	int silent, partial, i;

	CU_ASSERT_EQUAL_FATAL(start("request_timeout_ms = 400ms\n"
	    "idle_timeout_ms = 700ms\nworkers = 1"), 0);
	silent = support_connect(&d);
	partial = support_connect(&d);
	CU_ASSERT_FATAL(silent != -1 && partial != -1);
	t0 = support_now_ms();
	/* A frame of 65536 bytes announced, 6 of them sent. */
	CU_ASSERT_EQUAL(support_send(partial, half, sizeof(half)), 0);
	/* The one worker serves others meanwhile, ring and lock untouched. */
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, argv), 0);
		if (out != NULL)
			CU_ASSERT_EQUAL(atoi(strchr(out, ' ') + 1), i);
		free(out);
		out = NULL;
	}
	/* Both are dropped: recv sees the close (0), not a timeout (-1). */
	CU_ASSERT_EQUAL(support_recv(partial, 5000, &id, &payload, &plen), 0);
	CU_ASSERT(support_now_ms() - t0 >= 350);
	CU_ASSERT_EQUAL(support_recv(silent, 5000, &id, &payload, &plen), 0);
	CU_ASSERT(support_now_ms() - t0 >= 650);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "request not completed in time"), 1);
	close(silent);
	close(partial);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, argv), 0);
	free(out);
	flumed_cleanup(&d);
}

TEST_SUITE("faults", NULL, teardown,
    { "writer killed while producing", test_writer_killed },
    { "master killed: children exit, new master drains", test_master_killed },
    { "region of another layout refused", test_bad_region },
    { "power loss after acks=all", test_power_loss },
    { "torn and corrupt tails", test_torn_tail },
    { "disk full (injected), then room again", test_disk_full },
    { "crash loop: growing respawn delay", test_crash_loop_backoff },
    { "exit status 2: not respawned", test_exit_2_not_respawned },
    { "stalled peers are dropped", test_stalled_peers });
