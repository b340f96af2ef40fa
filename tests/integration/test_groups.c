/*
 * Consumer groups against the real daemon: flume-consume -g processes
 * share a topic's partitions, survive a member's SIGKILL, a restart of a
 * member, the death of the worker holding a member's connection and a
 * master restart without losing committed offsets; two groups fan out;
 * a commit from an old generation is refused (raw protocol).
 *
 * Consumers are background processes (bin/flume-consume writing "P O V"
 * lines to a file), always killed by pid in teardown.  Sessions are
 * 1500 ms (heartbeat 500 ms) and consumers commit every 200 ms, so every
 * wait below is a bounded poll of a condition, well inside its deadline.
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
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define SESSION_MS	1500
#define HEARTBEAT_MS	(SESSION_MS / 3)
#define MAXCONS		8
#define WAIT_MS		20000

static struct flumed d;
static pid_t cons[MAXCONS];
static char outpath[MAXCONS][600];

static int
setup(void)
{
	memset(cons, 0, sizeof(cons));
	return flumed_start(&d, "partitions = 6\n"
	    "group_min_session_timeout_ms = 500\n"
	    "group_rebalance_timeout_ms = 5s\n") == 0 ? 0 : -1;
}

static void
consumer_kill(int i, int sig)
{
	if (cons[i] > 0) {
		kill(cons[i], sig);
		waitpid(cons[i], NULL, 0);
		cons[i] = 0;
	}
}

static int
teardown(void)
{
	int i;

	for (i = 0; i < MAXCONS; i++)
		consumer_kill(i, SIGKILL);
	flumed_cleanup(&d);
	return 0;
}

/* Start consumer slot i: bin/flume-consume -g group -t topic, "P O V" lines. */
static void
consumer_start(int i, const char *group, const char *topic)
{
	char prog[512];
	pid_t pid;
	int fd;

	snprintf(prog, sizeof(prog), "%s/flume-consume", support_bindir());
	snprintf(outpath[i], sizeof(outpath[i]), "%s/consumer-%d.out", d.dir, i);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		if ((fd = open(outpath[i], O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
			_exit(127);
		dup2(fd, STDOUT_FILENO);
		close(fd);
		execl(prog, "flume-consume", "-b", d.broker, "-g", group, "-t", topic,
		    "-o", "beginning", "-s", "1500", "-C", "200", "-f", "%p %o %v\\n",
		    (char *)NULL);
		_exit(127);
	}
	cons[i] = pid;
}

/* SIGTERM consumer i (it commits and leaves) and return its exit status. */
static int
consumer_stop(int i)
{
	long long deadline = support_now_ms() + 10000;
	int st;
	pid_t r;

	if (cons[i] <= 0)
		return -1;
	kill(cons[i], SIGTERM);
	while ((r = waitpid(cons[i], &st, WNOHANG)) == 0 &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);
	if (r != cons[i]) {
		consumer_kill(i, SIGKILL);
		return -1;
	}
	cons[i] = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* What a consumer printed: values and the partitions they came from. */
struct seen {
	int	count[1000];	/* times value tag-N was printed */
	int	parts;		/* bit mask of partitions printed */
	int	total;
};

static void
seen_read(int i, const char *tag, struct seen *s)
{
	char line[256], want[64];
	FILE *f;
	int p, n;
	long o;

	memset(s, 0, sizeof(*s));
	if ((f = fopen(outpath[i], "r")) == NULL)
		return;
	snprintf(want, sizeof(want), "%s-%%d", tag);
	while (fgets(line, sizeof(line), f) != NULL) {
		char v[64];

		if (sscanf(line, "%d %ld %63s", &p, &o, v) != 3 ||
		    sscanf(v, want, &n) != 1 || n < 0 || n >= 1000)
			continue;
		s->count[n]++;
		s->parts |= 1 << p;
		s->total++;
	}
	fclose(f);
}

/* Produce values tag-0 .. tag-(n-1) keyed k<i> (spread by key hash). */
static void
produce(const char *topic, const char *tag, int n)
{
	const char *argv[] = { "flume-produce", "-t", topic, "-K", ":", NULL };
	char *in = malloc((size_t)n * 40 + 1);
	size_t len = 0;
	int i;

	CU_ASSERT_FATAL(in != NULL);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(in + len, "k%s%d:%s-%d\n", tag, i, tag, i);
	CU_ASSERT_EQUAL(run_tool(&d, in, NULL, 20000, argv), 0);
	free(in);
}

static void
create_topic(const char *topic)
{
	const char *argv[] = { "flume-admin", "create", topic, "-p", "6", NULL };

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, NULL, 10000, argv), 0);
}

static struct flume_group_desc *
describe(const char *group)
{
	struct flume_client *c;
	struct flume_group_desc *gd = NULL;

	if ((c = flume_connect(d.broker)) == NULL)
		return NULL;
	if (flume_describe_group(c, group, &gd) == -1)
		gd = NULL;
	flume_close(c);
	return gd;
}

/*
 * Is group stable with `members` members whose assignments cover the 6
 * partitions exactly once, each holding want_each (0: any)?
 */
static int
group_settled(const char *group, int members, int want_each)
{
	struct flume_group_desc *gd = describe(group);
	int32_t i, j;
	int mask = 0, ok;

	if (gd == NULL)
		return 0;
	ok = gd->state == FLUME_GROUP_STABLE && gd->member_count == members;
	for (i = 0; ok && i < gd->member_count; i++) {
		if (want_each > 0 && gd->members[i].count != want_each)
			ok = 0;
		for (j = 0; j < gd->members[i].count; j++) {
			int bit = 1 << gd->members[i].parts[j].partition;

			if (mask & bit)
				ok = 0;
			mask |= bit;
		}
	}
	flume_group_desc_free(gd);
	return ok && mask == 0x3f;
}

static int
group_state(const char *group)
{
	struct flume_group_desc *gd = describe(group);
	int st;

	if (gd == NULL)
		return -1;
	st = gd->state;
	flume_group_desc_free(gd);
	return st;
}

/* Has the group committed the log end of every partition? */
static int
group_caught_up(const char *group)
{
	struct flume_group_desc *gd = describe(group);
	int32_t i;
	int ok;

	if (gd == NULL)
		return 0;
	ok = gd->partition_count == 6;
	for (i = 0; ok && i < gd->partition_count; i++)
		if (gd->partitions[i].committed != gd->partitions[i].log_end)
			ok = 0;
	flume_group_desc_free(gd);
	return ok;
}

/* Do consumers [first, first+n) together hold values tag-0..tag-(cnt-1)? */
static int
all_seen(int first, int n, const char *tag, int cnt, int *dups)
{
	struct seen s;
	static int sum[1000];
	int i, v, ok = 1;

	memset(sum, 0, sizeof(sum));
	for (i = first; i < first + n; i++) {
		seen_read(i, tag, &s);
		for (v = 0; v < 1000; v++)
			sum[v] += s.count[v];
	}
	if (dups != NULL)
		*dups = 0;
	for (v = 0; v < cnt; v++) {
		if (sum[v] == 0)
			ok = 0;
		if (sum[v] > 1 && dups != NULL)
			(*dups)++;
	}
	return ok;
}

static void
test_three_share(void)
{
	struct seen s[3];
	int i, dups = -1, mask = 0;

	create_topic("gt1");
	for (i = 0; i < 3; i++)
		consumer_start(i, "g1", "gt1");
	WAIT_UNTIL(group_settled("g1", 3, 2), WAIT_MS);
	CU_ASSERT_FATAL(group_settled("g1", 3, 2));
	produce("gt1", "a", 300);
	WAIT_UNTIL(all_seen(0, 3, "a", 300, NULL), WAIT_MS);
	CU_ASSERT(all_seen(0, 3, "a", 300, &dups));
	CU_ASSERT_EQUAL(dups, 0);
	for (i = 0; i < 3; i++) {
		seen_read(i, "a", &s[i]);
		/* Each printed only its own two partitions, nobody else's. */
		CU_ASSERT_EQUAL(__builtin_popcount(s[i].parts), 2);
		CU_ASSERT_EQUAL(mask & s[i].parts, 0);
		mask |= s[i].parts;
	}
	CU_ASSERT_EQUAL(s[0].total + s[1].total + s[2].total, 300);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(consumer_stop(i), 0);
}

static void
test_kill_member(void)
{
	long long t0, took;
	int i;

	create_topic("gt2");
	for (i = 0; i < 3; i++)
		consumer_start(i, "g2", "gt2");
	WAIT_UNTIL(group_settled("g2", 3, 2), WAIT_MS);
	CU_ASSERT_FATAL(group_settled("g2", 3, 2));
	produce("gt2", "b", 120);
	WAIT_UNTIL(all_seen(0, 3, "b", 120, NULL) && group_caught_up("g2"), WAIT_MS);
	CU_ASSERT_FATAL(group_caught_up("g2"));

	consumer_kill(0, SIGKILL);
	t0 = support_now_ms();
	WAIT_UNTIL(group_settled("g2", 2, 3), WAIT_MS);
	took = support_now_ms() - t0;
	CU_ASSERT_FATAL(group_settled("g2", 2, 3));
	fprintf(stderr, "    survivors own every partition %lld ms after the "
	    "SIGKILL (session %d ms, heartbeat %d ms)\n", took, SESSION_MS,
	    HEARTBEAT_MS);
	/* Session timeout plus one heartbeat, and slack for a loaded machine. */
	CU_ASSERT(took <= SESSION_MS + HEARTBEAT_MS + 3000);
	produce("gt2", "c", 120);
	WAIT_UNTIL(all_seen(1, 2, "c", 120, NULL), WAIT_MS);
	CU_ASSERT(all_seen(1, 2, "c", 120, NULL));
	for (i = 1; i < 3; i++)
		CU_ASSERT_EQUAL(consumer_stop(i), 0);
}

static void
test_restart_resumes(void)
{
	struct seen s;
	int v, again = 0;

	create_topic("gt3");
	consumer_start(0, "g3", "gt3");
	WAIT_UNTIL(group_settled("g3", 1, 6), WAIT_MS);
	produce("gt3", "d", 100);
	WAIT_UNTIL(all_seen(0, 1, "d", 100, NULL) && group_caught_up("g3"), WAIT_MS);
	CU_ASSERT_FATAL(group_caught_up("g3"));
	CU_ASSERT_EQUAL(consumer_stop(0), 0);

	produce("gt3", "e", 100);
	consumer_start(1, "g3", "gt3");
	WAIT_UNTIL(all_seen(1, 1, "e", 100, NULL), WAIT_MS);
	CU_ASSERT(all_seen(1, 1, "e", 100, NULL));
	/* Nothing before the committed offsets came again. */
	seen_read(1, "d", &s);
	for (v = 0; v < 100; v++)
		again += s.count[v];
	CU_ASSERT_EQUAL(again, 0);
	CU_ASSERT_EQUAL(s.total, 0);
	CU_ASSERT_EQUAL(consumer_stop(1), 0);
}

/* One raw request and its answer's payload (malloc'ed). */
static uint8_t *
raw_call(int fd, uint16_t api, uint32_t id, struct wbuf *wb, size_t *len)
{
	uint8_t *payload = NULL;
	uint32_t rid;

	if (support_request(fd, api, id, wb->buf, wb->len) == -1)
		return NULL;
	wbuf_reset(wb);
	if (support_recv(fd, 10000, &rid, &payload, len) != 1 || rid != id) {
		free(payload);
		return NULL;
	}
	return payload;
}

static void
raw_join(struct wbuf *wb, const char *member)
{
	struct wire_str t = { "gt4", 3 };
	struct join_group_req q = { "g4", 2, member, strlen(member), "raw", 3,
	    SESSION_MS, 1, &t };

	msg_encode_join_group_req(wb, &q);
}

static int16_t
raw_commit(int fd, struct wbuf *wb, const char *member, int32_t gen,
    int64_t offset)
{
	(void)wb;
	return (int16_t)support_commit(fd, "g4", member, gen, "gt4", 0, offset);
}

static void
test_stale_commit(void)
{
	struct join_group_resp jr;
	struct group_error_resp er;
	struct heartbeat_req hb;
	struct arena a;
	struct wbuf wb;
	char a_id[MEMBER_ID_MAX + 1];
	uint8_t *p;
	size_t len;
	int fa, fb;
	int64_t off;
	struct flume_client *c;

	create_topic("gt4");
	wbuf_init(&wb);
	arena_init(&a, 1 << 16);
	/* Handshaken: a raw connection would meet handshake_timeout_ms. */
	fa = support_connect_served(&d, 5000);
	fb = support_connect_served(&d, 5000);
	CU_ASSERT_FATAL(fa >= 0 && fb >= 0);

	/* A joins alone: generation 1. */
	raw_join(&wb, "");
	p = raw_call(fa, API_JOIN_GROUP, 1, &wb, &len);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL_FATAL(msg_decode_join_group_resp(p, len, &a, &jr), 0);
	CU_ASSERT_EQUAL(jr.error, ERR_NONE);
	CU_ASSERT_EQUAL(jr.generation, 1);
	CU_ASSERT_EQUAL(jr.count, 6);
	CU_ASSERT_FATAL(jr.member_id_len > 0 && jr.member_id_len <= MEMBER_ID_MAX);
	memcpy(a_id, jr.member_id, jr.member_id_len);
	a_id[jr.member_id_len] = '\0';
	free(p);
	CU_ASSERT_EQUAL(raw_commit(fa, &wb, a_id, 1, 5), ERR_NONE);

	/* B joins (its answer waits for A); A hears of it and is fenced. */
	raw_join(&wb, "");
	CU_ASSERT_EQUAL_FATAL(support_request(fb, API_JOIN_GROUP, 2, wb.buf,
	    wb.len), 0);
	wbuf_reset(&wb);
	hb.group = "g4";
	hb.group_len = 2;
	hb.member_id = a_id;
	hb.member_id_len = strlen(a_id);
	hb.generation = 1;
	WAIT_UNTIL(group_state("g4") == FLUME_GROUP_REBALANCING, WAIT_MS);
	CU_ASSERT_EQUAL_FATAL(group_state("g4"), FLUME_GROUP_REBALANCING);
	msg_encode_heartbeat_req(&wb, &hb);
	p = raw_call(fa, API_HEARTBEAT, 3, &wb, &len);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(msg_decode_group_error_resp(p, len, &er), 0);
	CU_ASSERT_EQUAL(er.error, ERR_REBALANCE_IN_PROGRESS);
	free(p);
	/*
	 * Until generation 2 completes nobody else owns A's partitions: its
	 * generation-1 commit is still taken (a member that stops now keeps
	 * what it did).
	 */
	CU_ASSERT_EQUAL(raw_commit(fa, &wb, a_id, 1, 9), ERR_NONE);
	CU_ASSERT_EQUAL(raw_commit(fa, &wb, "nobody", 2, 9), ERR_UNKNOWN_MEMBER);

	/* A rejoins: generation 2 completes for both. */
	raw_join(&wb, a_id);
	p = raw_call(fa, API_JOIN_GROUP, 4, &wb, &len);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(msg_decode_join_group_resp(p, len, &a, &jr), 0);
	CU_ASSERT_EQUAL(jr.error, ERR_NONE);
	CU_ASSERT_EQUAL(jr.generation, 2);
	CU_ASSERT_EQUAL(jr.count, 3);
	free(p);
	p = NULL;
	CU_ASSERT_EQUAL(support_recv(fb, 10000, &(uint32_t){ 0 }, &p, &len), 1);
	CU_ASSERT_EQUAL(msg_decode_join_group_resp(p, len, &a, &jr), 0);
	CU_ASSERT_EQUAL(jr.generation, 2);
	CU_ASSERT_EQUAL(jr.count, 3);
	free(p);
	CU_ASSERT_EQUAL(raw_commit(fa, &wb, a_id, 1, 11), ERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(raw_commit(fa, &wb, a_id, 2, 7), ERR_NONE);

	/* The stale commit changed nothing; partition 1 has none. */
	c = flume_connect(d.broker);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL(flume_committed_offset(c, "g4", "gt4", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 7);
	CU_ASSERT_EQUAL(flume_committed_offset(c, "g4", "gt4", 1, &off), 0);
	CU_ASSERT_EQUAL(off, -1);
	flume_close(c);
	close(fa);
	close(fb);
	wbuf_free(&wb);
	arena_free(&a);
}

/*
 * A raw JOIN of group "gd" to topic "gdt" (member "" is a new one); its
 * error or -1.  jr's member id is copied to id_out, as the answer is freed.
 */
static int16_t
raw_join_gd(int fd, struct wbuf *wb, uint32_t id, const char *member,
    struct arena *a, struct join_group_resp *jr, char *id_out)
{
	struct wire_str t = { "gdt", 3 };
	struct join_group_req q = { "gd", 2, member, strlen(member), "raw", 3,
	    10000, 1, &t };
	uint8_t *p;
	size_t len;
	int16_t e = -1;

	msg_encode_join_group_req(wb, &q);
	if ((p = raw_call(fd, API_JOIN_GROUP, id, wb, &len)) != NULL &&
	    msg_decode_join_group_resp(p, len, a, jr) == 0 &&
	    jr->member_id_len > 0 && jr->member_id_len <= MEMBER_ID_MAX) {
		memcpy(id_out, jr->member_id, jr->member_id_len);
		id_out[jr->member_id_len] = '\0';
		e = jr->error;
	}
	free(p);
	return e;
}

/* A raw HEARTBEAT of member id in group "gd"; its error or -1. */
static int16_t
raw_heartbeat_gd(int fd, struct wbuf *wb, const char *member, int32_t gen)
{
	struct heartbeat_req hb = { "gd", 2, member, strlen(member), gen };
	struct group_error_resp er;
	uint8_t *p;
	size_t len;
	int16_t e = -1;

	msg_encode_heartbeat_req(wb, &hb);
	if ((p = raw_call(fd, API_HEARTBEAT, 50, wb, &len)) != NULL &&
	    msg_decode_group_error_resp(p, len, &er) == 0)
		e = er.error;
	free(p);
	return e;
}

/* A raw OFFSET_COMMIT of gdt/0 for member id in group "gd". */
static int16_t
raw_commit_gd(int fd, struct wbuf *wb, const char *member, int32_t gen,
    int64_t offset)
{
	(void)wb;
	return (int16_t)support_commit(fd, "gd", member, gen, "gdt", 0, offset);
}

/*
 * A subscribed topic deleted and created again under its name, in the
 * same entry and partition slots: the generation that was assigned the
 * old topic is over, so its member neither heartbeats on in it nor
 * commits the old topic's offsets into the new one; it rejoins.
 */
static void
test_deleted_topic(void)
{
	struct join_group_resp jr;
	struct flume_client *c;
	struct arena a;
	struct wbuf wb;
	char a_id[MEMBER_ID_MAX + 1], b_id[MEMBER_ID_MAX + 1];
	int32_t n = 0, gen;
	int64_t off = -2;
	int fa;

	create_topic("gdt");
	wbuf_init(&wb);
	arena_init(&a, 1 << 16);
	fa = support_connect_served(&d, 10000);
	CU_ASSERT_FATAL(fa >= 0);
	CU_ASSERT_EQUAL_FATAL(raw_join_gd(fa, &wb, 1, "", &a, &jr, a_id),
	    ERR_NONE);
	CU_ASSERT_EQUAL(jr.count, 6);
	gen = jr.generation;
	CU_ASSERT_EQUAL(raw_commit_gd(fa, &wb, a_id, gen, 5), ERR_NONE);

	c = flume_connect(d.broker);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL_FATAL(flume_delete_topic(c, "gdt", &n), 0);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT_EQUAL_FATAL(flume_create_topic(c, "gdt", 6, &n), 0);
	CU_ASSERT_EQUAL(flume_committed_offset(c, "gd", "gdt", 0, &off), 0);
	CU_ASSERT_EQUAL(off, -1);

	/* The old generation is over: told to rejoin, its commit refused. */
	CU_ASSERT_EQUAL(raw_heartbeat_gd(fa, &wb, a_id, gen),
	    ERR_REBALANCE_IN_PROGRESS);
	CU_ASSERT_EQUAL(raw_commit_gd(fa, &wb, a_id, gen, 5),
	    ERR_ILLEGAL_GENERATION);
	off = -2;
	CU_ASSERT_EQUAL(flume_committed_offset(c, "gd", "gdt", 0, &off), 0);
	CU_ASSERT_EQUAL(off, -1);

	/* It rejoins: a new generation on the new topic, commits again. */
	CU_ASSERT_EQUAL(raw_join_gd(fa, &wb, 2, a_id, &a, &jr, b_id), ERR_NONE);
	CU_ASSERT_STRING_EQUAL(b_id, a_id);
	CU_ASSERT_EQUAL(jr.generation, gen + 1);
	CU_ASSERT_EQUAL(jr.count, 6);
	CU_ASSERT_EQUAL(raw_commit_gd(fa, &wb, a_id, gen + 1, 0), ERR_NONE);
	off = -2;
	CU_ASSERT_EQUAL(flume_committed_offset(c, "gd", "gdt", 0, &off), 0);
	CU_ASSERT_EQUAL(off, 0);
	flume_close(c);
	close(fa);
	wbuf_free(&wb);
	arena_free(&a);
}

static void
test_two_groups(void)
{
	int dups = -1;

	create_topic("gt5");
	consumer_start(0, "g5a", "gt5");
	consumer_start(1, "g5b", "gt5");
	WAIT_UNTIL(group_settled("g5a", 1, 6) && group_settled("g5b", 1, 6), WAIT_MS);
	produce("gt5", "f", 200);
	WAIT_UNTIL(all_seen(0, 1, "f", 200, NULL) && all_seen(1, 1, "f", 200, NULL),
	    WAIT_MS);
	CU_ASSERT(all_seen(0, 1, "f", 200, &dups));
	CU_ASSERT_EQUAL(dups, 0);
	CU_ASSERT(all_seen(1, 1, "f", 200, &dups));
	CU_ASSERT_EQUAL(dups, 0);
	CU_ASSERT_EQUAL(consumer_stop(0), 0);
	CU_ASSERT_EQUAL(consumer_stop(1), 0);
}

/* The committed offsets of group as a "P:OFF " string (malloc'ed). */
static char *
committed_of(const char *group)
{
	struct flume_group_desc *gd = describe(group);
	char *s;
	size_t len = 0;
	int32_t i;

	if (gd == NULL || (s = malloc(64 * 8)) == NULL) {
		flume_group_desc_free(gd);
		return NULL;
	}
	s[0] = '\0';
	for (i = 0; i < gd->partition_count && i < 8; i++)
		len += (size_t)sprintf(s + len, "%d:%lld ",
		    (int)gd->partitions[i].partition,
		    (long long)gd->partitions[i].committed);
	flume_group_desc_free(gd);
	return s;
}

/* Every partition's committed offset now at least what `before` says. */
static int
committed_not_below(const char *group, const char *before)
{
	char *now = committed_of(group);
	const char *b = before, *n = now;
	int p1, p2, k1, k2, ok = now != NULL;
	long long o1, o2;

	while (ok && sscanf(b, "%d:%lld %n", &p1, &o1, &k1) == 2) {
		if (sscanf(n, "%d:%lld %n", &p2, &o2, &k2) != 2 || p1 != p2 ||
		    o2 < o1)
			ok = 0;
		b += k1;
		n += k2;
	}
	free(now);
	return ok;
}

static void
test_kill_worker(void)
{
	struct flume_group_desc *gd;
	char *before, member[MEMBER_ID_MAX + 1];
	pid_t w0, w1;

	create_topic("gt6");
	consumer_start(0, "g6", "gt6");
	WAIT_UNTIL(group_settled("g6", 1, 6), WAIT_MS);
	produce("gt6", "g", 100);
	WAIT_UNTIL(all_seen(0, 1, "g", 100, NULL) && group_caught_up("g6"), WAIT_MS);
	CU_ASSERT_FATAL(group_caught_up("g6"));
	before = committed_of("g6");
	CU_ASSERT_FATAL(before != NULL);
	gd = describe("g6");
	CU_ASSERT_FATAL(gd != NULL && gd->member_count == 1);
	snprintf(member, sizeof(member), "%s", gd->members[0].member_id);
	flume_group_desc_free(gd);

	/* Two workers: killing both kills the one holding the connection. */
	w0 = flumed_child_pid(&d, "worker", 0);
	w1 = flumed_child_pid(&d, "worker", 1);
	CU_ASSERT_FATAL(w0 > 0 && w1 > 0);
	CU_ASSERT_EQUAL(kill(w0, SIGKILL), 0);
	CU_ASSERT_EQUAL(kill(w1, SIGKILL), 0);
	WAIT_UNTIL(flumed_child_pid(&d, "worker", 0) > 0 &&
	    flumed_child_pid(&d, "worker", 0) != w0 &&
	    flumed_child_pid(&d, "worker", 1) > 0 &&
	    flumed_child_pid(&d, "worker", 1) != w1, WAIT_MS);

	CU_ASSERT(committed_not_below("g6", before));
	produce("gt6", "h", 100);
	WAIT_UNTIL(all_seen(0, 1, "h", 100, NULL) && group_caught_up("g6"), WAIT_MS);
	CU_ASSERT(all_seen(0, 1, "h", 100, NULL));
	CU_ASSERT(committed_not_below("g6", before));
	/* The member kept (or regained) every partition. */
	CU_ASSERT(group_settled("g6", 1, 6));
	gd = describe("g6");
	CU_ASSERT_FATAL(gd != NULL);
	if (gd->member_count == 1 && strcmp(gd->members[0].member_id, member) != 0)
		fprintf(stderr, "    the member rejoined as %s\n",
		    gd->members[0].member_id);
	flume_group_desc_free(gd);
	free(before);
	CU_ASSERT_EQUAL(consumer_stop(0), 0);
}

/* The COMMITTED column of `flume-admin group NAME`, as "P:OFF " pairs. */
static char *
admin_committed(const char *group)
{
	const char *argv[] = { "flume-admin", "group", group, NULL };
	char *out = NULL, *line, *save = NULL, *s, t[256], c[32], e[32], l[32];
	size_t len = 0;
	int p, in_table = 0;

	if (run_tool(&d, NULL, &out, 10000, argv) != 0 ||
	    (s = calloc(1, 1024)) == NULL) {
		free(out);
		return NULL;
	}
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "TOPIC ", 6) == 0) {
			in_table = 1;
			continue;
		}
		if (in_table && sscanf(line, "%255s %d %31s %31s %31s", t, &p, c,
		    e, l) == 5 && len < 900)
			len += (size_t)snprintf(s + len, 1024 - len, "%s/%d:%s ",
			    t, p, c);
	}
	free(out);
	return s;
}

static void
test_master_restart(void)
{
	char *before, *after;

	/* Groups g3 and g6 have committed offsets; nobody is consuming. */
	before = admin_committed("g6");
	CU_ASSERT_FATAL(before != NULL);
	CU_ASSERT(strstr(before, "gt6/0:") != NULL);
	CU_ASSERT(strstr(before, ":-") == NULL);

	/* SIGKILL: the next master drains them from the old shared memory. */
	flumed_kill(&d);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	after = admin_committed("g6");
	CU_ASSERT_FATAL(after != NULL);
	CU_ASSERT_STRING_EQUAL(after, before);
	free(after);

	/* A clean stop: the writer saved them on its way out. */
	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	after = admin_committed("g6");
	CU_ASSERT_FATAL(after != NULL);
	CU_ASSERT_STRING_EQUAL(after, before);
	free(after);
	free(before);
	before = admin_committed("g3");
	CU_ASSERT(before != NULL && strstr(before, "gt3/5:") != NULL &&
	    strstr(before, ":-") == NULL);
	free(before);
}

TEST_SUITE("groups", setup, teardown,
    { "three consumers share six partitions, each message once", test_three_share },
    { "a SIGKILLed member's partitions move to the survivors", test_kill_member },
    { "a restarted member resumes after the committed offset", test_restart_resumes },
    { "a commit from an old generation is refused", test_stale_commit },
    { "a deleted and re-created topic ends its generation",
	test_deleted_topic },
    { "two groups each get every message", test_two_groups },
    { "killing the member's worker loses no committed offset", test_kill_worker },
    { "committed offsets survive master restarts", test_master_restart });
