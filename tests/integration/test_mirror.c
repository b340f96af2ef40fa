/*
 * flume-mirror, Flume to Flume: two brokers on loopback, each with a
 * Kafka listener.  100,000 records over 6 partitions (keys, a null key
 * now and then, values, headers, timestamps) are copied with --once; the
 * mirror is killed -9 half-way and started again; then the target holds
 * every source record, in order per partition, equal in every field, and
 * the only repeats are the rule of flume-mirror(1): per partition, the
 * records from the committed offset at the kill up to what the target had
 * acknowledged, copied once more right after.  A group's committed
 * offsets are translated to exact values.  Records are produced and read
 * back with librdkafka: libflume's API carries no headers or timestamps.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "clients/flume.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define NREC		100000
#define NPART		6
#define TOPIC		"mt"
#define TS_BASE		1764597600000LL

static struct flumed src, dst;
static char skafka[64], dkafka[64];

/* One record as read back; the fields flume-mirror must keep. */
struct rec {
	char		*key;		/* NULL: null key */
	size_t		 klen;
	char		*val;
	size_t		 vlen;
	char		*hdrs;		/* "name=value;" for each header */
	int64_t		 ts;
};

struct part_recs {
	struct rec	*r;
	size_t		 n;
};

static int
start_pair(void)
{
	char extra[256];
	int sp, dp;

	if ((sp = support_free_port()) <= 0 || (dp = support_free_port()) <= 0)
		return -1;
	snprintf(skafka, sizeof(skafka), "127.0.0.1:%d", sp);
	snprintf(dkafka, sizeof(dkafka), "127.0.0.1:%d", dp);
	snprintf(extra, sizeof(extra), "kafka_listen = %s\npartitions = %d\n",
	    skafka, NPART);
	if (flumed_start(&src, extra) != 0)
		return -1;
	/* The target's "few" has fewer partitions than the source's. */
	snprintf(extra, sizeof(extra), "kafka_listen = %s\npartitions = %d\n"
	    "[topic few]\npartitions = 2\n", dkafka, NPART);
	return flumed_start(&dst, extra);
}

static int
teardown(void)
{
	flumed_cleanup(&src);
	flumed_cleanup(&dst);
	return 0;
}

static rd_kafka_t *
rk_new(rd_kafka_type_t type, const char *servers)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char errstr[256];

	rd_kafka_conf_set(conf, "bootstrap.servers", servers, errstr, sizeof(errstr));
	rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof(errstr));
	if (type == RD_KAFKA_PRODUCER) {
		rd_kafka_conf_set(conf, "acks", "all", errstr, sizeof(errstr));
		rd_kafka_conf_set(conf, "linger.ms", "5", errstr, sizeof(errstr));
	} else
		rd_kafka_conf_set(conf, "group.id", "test-reader", errstr,
		    sizeof(errstr));
	return rd_kafka_new(type, conf, errstr, sizeof(errstr));
}

/* Record i of the source: partition i % NPART, in that partition's order. */
static int
produce_all(const char *topic, int n)
{
	rd_kafka_t *p;
	rd_kafka_headers_t *h;
	char key[32], val[128], seq[32];
	int i, rc = 0, tries;
	rd_kafka_resp_err_t e;

	if ((p = rk_new(RD_KAFKA_PRODUCER, skafka)) == NULL)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		int kl = snprintf(key, sizeof(key), "k%06d", i);
		int vl = snprintf(val, sizeof(val), "value %06d of the source, "
		    "padded to look like a small event", i);

		/* Every 1000th record has a null key. */
		const char *kp = i % 1000 == 7 ? NULL : key;
		size_t klen = kp != NULL ? (size_t)kl : 0;

		h = rd_kafka_headers_new(2);
		snprintf(seq, sizeof(seq), "%d", i);
		rd_kafka_header_add(h, "seq", -1, seq, -1);
		if (i % 3 == 0)
			rd_kafka_header_add(h, "bin", -1, "\0\1\2", 3);
		for (tries = 0; tries < 1000; tries++) {
			e = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic),
			    RD_KAFKA_V_PARTITION(i % NPART),
			    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
			    RD_KAFKA_V_KEY(kp, klen),
			    RD_KAFKA_V_VALUE(val, (size_t)vl),
			    RD_KAFKA_V_TIMESTAMP(TS_BASE + i),
			    RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_END);
			if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
				break;
			rd_kafka_poll(p, 10);
		}
		if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
			rd_kafka_headers_destroy(h);
			rc = -1;
		}
	}
	if (rd_kafka_flush(p, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR)
		rc = -1;
	rd_kafka_destroy(p);
	return rc;
}

/* Sum of the high watermarks of topic's NPART partitions on servers; -1 on error. */
static int64_t
total_end(rd_kafka_t *rk, const char *topic, int64_t *ends)
{
	int64_t lo, hi, total = 0;
	int p;

	for (p = 0; p < NPART; p++) {
		if (rd_kafka_query_watermark_offsets(rk, topic, p, &lo, &hi,
		    5000) != RD_KAFKA_RESP_ERR_NO_ERROR)
			return -1;
		if (ends != NULL)
			ends[p] = hi;
		total += hi;
	}
	return total;
}

static char *
dup_bytes(const void *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s != NULL) {
		if (n > 0)
			memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/* Every record of topic's partitions, up to counts[p], from servers; 0 or -1. */
static int
read_all(const char *servers, const char *topic, const int64_t *counts,
    struct part_recs *out)
{
	rd_kafka_topic_partition_list_t *l;
	rd_kafka_message_t *m;
	rd_kafka_headers_t *h;
	rd_kafka_timestamp_type_t tst;
	rd_kafka_t *c;
	int64_t want = 0, got = 0, deadline;
	const char *name;
	const void *v;
	size_t vl, i, hl;
	char hb[256];
	int p;

	if ((c = rk_new(RD_KAFKA_CONSUMER, servers)) == NULL)
		return -1;
	rd_kafka_poll_set_consumer(c);
	l = rd_kafka_topic_partition_list_new(NPART);
	for (p = 0; p < NPART; p++) {
		rd_kafka_topic_partition_list_add(l, topic, p)->offset =
		    RD_KAFKA_OFFSET_BEGINNING;
		out[p].r = calloc((size_t)counts[p] + 1, sizeof(struct rec));
		out[p].n = 0;
		want += counts[p];
	}
	rd_kafka_assign(c, l);
	rd_kafka_topic_partition_list_destroy(l);
	deadline = support_now_ms() + 30000;
	while (got < want && support_now_ms() < deadline) {
		struct rec *r;

		if ((m = rd_kafka_consumer_poll(c, 200)) == NULL)
			continue;
		p = m->partition;
		if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR || p < 0 || p >= NPART ||
		    (int64_t)out[p].n >= counts[p] ||
		    m->offset != (int64_t)out[p].n) {
			rd_kafka_message_destroy(m);
			continue;
		}
		r = &out[p].r[out[p].n++];
		r->key = m->key != NULL ? dup_bytes(m->key, m->key_len) : NULL;
		r->klen = m->key_len;
		r->val = dup_bytes(m->payload, m->len);
		r->vlen = m->len;
		r->ts = rd_kafka_message_timestamp(m, &tst);
		if (tst != RD_KAFKA_TIMESTAMP_CREATE_TIME)
			r->ts = -1;
		hb[0] = '\0';
		hl = 0;
		if (rd_kafka_message_headers(m, &h) == RD_KAFKA_RESP_ERR_NO_ERROR)
			for (i = 0; rd_kafka_header_get_all(h, i, &name, &v, &vl) ==
			    RD_KAFKA_RESP_ERR_NO_ERROR && hl < sizeof(hb) - 64; i++) {
				size_t j;

				hl += (size_t)snprintf(hb + hl, sizeof(hb) - hl,
				    "%s=", name);
				for (j = 0; j < vl && hl < sizeof(hb) - 8; j++)
					hl += (size_t)snprintf(hb + hl,
					    sizeof(hb) - hl, "%02x",
					    ((const unsigned char *)v)[j]);
				hl += (size_t)snprintf(hb + hl, sizeof(hb) - hl,
				    ";");
			}
		r->hdrs = strdup(hb);
		got++;
		rd_kafka_message_destroy(m);
	}
	rd_kafka_consumer_close(c);
	rd_kafka_destroy(c);
	return got == want ? 0 : -1;
}

static void
recs_free(struct part_recs *pr)
{
	size_t i;
	int p;

	for (p = 0; p < NPART; p++) {
		for (i = 0; i < pr[p].n; i++) {
			free(pr[p].r[i].key);
			free(pr[p].r[i].val);
			free(pr[p].r[i].hdrs);
		}
		free(pr[p].r);
	}
}

static int
rec_equal(const struct rec *a, const struct rec *b)
{
	if ((a->key == NULL) != (b->key == NULL) || a->klen != b->klen ||
	    (a->key != NULL && memcmp(a->key, b->key, a->klen) != 0))
		return 0;
	return a->vlen == b->vlen && memcmp(a->val, b->val, a->vlen) == 0 &&
	    a->ts == b->ts && strcmp(a->hdrs, b->hdrs) == 0;
}

/* Start bin/flume-mirror with args (NULL-terminated); its pid, or -1. */
static pid_t
mirror_spawn(const char *const *args)
{
	char path[1024];
	const char *argv[32];
	pid_t pid;
	int i, n = 0, fd;

	snprintf(path, sizeof(path), "%s/flume-mirror", support_bindir());
	argv[n++] = "flume-mirror";
	for (i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, 1);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Wait (<= timeout_ms) for pid to exit; its exit status, or -1. */
static int
wait_exit(pid_t pid, int timeout_ms)
{
	int64_t deadline = support_now_ms() + timeout_ms;
	int st;

	while (support_now_ms() < deadline) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (r == -1)
			return -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

static int64_t
committed_on(const struct flumed *d, const char *group, int p)
{
	struct flume_client *c;
	int64_t off = -2;

	if ((c = flume_connect(d->broker)) == NULL)
		return -2;
	if (flume_committed_offset(c, group, TOPIC, p, &off) == -1)
		off = -2;
	flume_close(c);
	return off;
}

/* Commit group's offset of partition p on the source (native reset). */
static int
commit_src(const char *group, int p, int64_t off)
{
	struct flume_client *c;
	struct flume_reset_result *res = NULL;
	int n;

	if ((c = flume_connect(src.broker)) == NULL)
		return -1;
	n = flume_group_reset(c, group, TOPIC, p, FLUME_RESET_TO_OFFSET, off, &res);
	flume_close(c);
	n = n == 1 && res[0].error == 0 && res[0].offset == off ? 0 : -1;
	free(res);
	return n;
}

static void
test_mirror_kill_resume(void)
{
	struct part_recs s[NPART], t[NPART];
	int64_t send[NPART], tend[NPART], c[NPART], k[NPART], now;
	int64_t deadline, total;
	rd_kafka_t *q;
	char *out = NULL, *err = NULL, path[1024], line[256];
	pid_t pid;
	size_t i;
	int p, rc;
	const char *const run[] = { "-s", skafka, "-d", dkafka, "--once", "-q",
	    "-c", "50", TOPIC, NULL };

	CU_ASSERT_FATAL(start_pair() == 0);
	CU_ASSERT_FATAL(produce_all(TOPIC, NREC) == 0);
	CU_ASSERT_FATAL((q = rk_new(RD_KAFKA_PRODUCER, dkafka)) != NULL);
	{
		rd_kafka_t *sq = rk_new(RD_KAFKA_PRODUCER, skafka);

		CU_ASSERT_FATAL(sq != NULL);
		CU_ASSERT_EQUAL(total_end(sq, TOPIC, send), NREC);
		rd_kafka_destroy(sq);
	}
	/*
	 * Group "app" on the source: an early offset, a middle one, the end,
	 * seven before the end, none on partition 4, one more.
	 */
	for (p = 0; p < NPART; p++) {
		int64_t o = p == 0 ? 100 : p == 1 ? 2000 : p == 2 ? send[p] :
		    p == 3 ? send[p] - 7 : 16000;

		if (p != 4)
			CU_ASSERT_FATAL(commit_src("app", p, o) == 0);
	}

	/*
	 * First run: kill -9 once the target holds >= 30,000 records and the
	 * mirror committed a position.
	 */
	CU_ASSERT_FATAL((pid = mirror_spawn(run)) > 0);
	deadline = support_now_ms() + 30000;
	total = 0;
	now = 0;
	while ((total < 30000 || now <= 0) && support_now_ms() < deadline &&
	    waitpid(pid, &rc, WNOHANG) == 0) {
		if ((total = total_end(q, TOPIC, NULL)) < 0)
			total = 0;
		if (total >= 30000)
			for (now = 0, p = 0; p < NPART; p++)
				now += committed_on(&src, "flume-mirror", p) > 0;
		usleep(2000);
	}
	CU_ASSERT_FATAL(total >= 30000 && now > 0);
	CU_ASSERT_FATAL(total < NREC);	/* really half-way */
	CU_ASSERT_FATAL(kill(pid, SIGKILL) == 0);
	CU_ASSERT_FATAL(waitpid(pid, &rc, 0) == pid);
	CU_ASSERT(WIFSIGNALED(rc) && WTERMSIG(rc) == SIGKILL);
	/*
	 * Produce requests the mirror sent just before it died may still be
	 * appended, and commits to the source stored, until each broker has
	 * closed its connections (closing one drops what it still held).
	 * With q gone too, neither broker holds one then.
	 */
	rd_kafka_destroy(q);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_connections(&dst, 0, 10000), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_connections(&src, 0, 10000), 0);
	CU_ASSERT_FATAL((q = rk_new(RD_KAFKA_PRODUCER, dkafka)) != NULL);
	for (p = 0; p < NPART; p++) {
		/* None committed (-1): the restart starts from the log start. */
		if ((c[p] = committed_on(&src, "flume-mirror", p)) == -1)
			c[p] = 0;
		CU_ASSERT_FATAL(c[p] >= 0 && c[p] <= send[p]);
	}

	/* Second run, to the end, translating "app". */
	{
		const char *const argv[] = { "flume-mirror", "-s", skafka, "-d",
		    dkafka, "--once", "--groups", "app", TOPIC, NULL };

		snprintf(path, sizeof(path), "%s/flume-mirror", support_bindir());
		rc = support_run_cmd(path, argv, NULL, &out, &err, 60000);
		CU_ASSERT_EQUAL(rc, 0);
		if (rc != 0)
			fprintf(stderr, "flume-mirror: %s\n", err ? err : "");
	}
	CU_ASSERT_FATAL(total_end(q, TOPIC, tend) > 0);

	/* Every source record, in order, with the stated repeats only. */
	CU_ASSERT_FATAL(read_all(skafka, TOPIC, send, s) == 0);
	CU_ASSERT_FATAL(read_all(dkafka, TOPIC, tend, t) == 0);
	for (p = 0; p < NPART; p++) {
		size_t bad = 0;

		/* Target p = source[0, k) then source[c, end): k - c repeats. */
		k[p] = tend[p] - (send[p] - c[p]);
		CU_ASSERT(k[p] >= c[p] && k[p] <= send[p]);
		if (k[p] < c[p] || k[p] > send[p])
			continue;
		for (i = 0; i < (size_t)k[p]; i++)
			bad += !rec_equal(&t[p].r[i], &s[p].r[i]);
		for (i = (size_t)k[p]; i < t[p].n; i++)
			bad += !rec_equal(&t[p].r[i],
			    &s[p].r[i - (size_t)k[p] + (size_t)c[p]]);
		CU_ASSERT_EQUAL(bad, 0);
		fprintf(stderr, "  partition %d: %lld records, committed %lld "
		    "at the kill, %lld copied again\n", p, (long long)send[p],
		    (long long)c[p], (long long)(k[p] - c[p]));
	}
	/* The source's fields really were there to keep. */
	CU_ASSERT_PTR_NULL(s[1].r[1].key);		/* record 7 */
	CU_ASSERT_STRING_EQUAL(s[0].r[1].key, "k000006");
	CU_ASSERT_STRING_EQUAL(s[0].r[1].hdrs, "seq=36;bin=000102;");
	CU_ASSERT_EQUAL(s[0].r[1].ts, TS_BASE + 6);

	/* "app" translated: before the restart's position 1:1, after it shifted. */
	for (p = 0; p < NPART; p++) {
		int64_t o = committed_on(&src, "app", p), want;

		if (p == 4) {
			CU_ASSERT_EQUAL(o, -1);
			CU_ASSERT_EQUAL(committed_on(&dst, "app", p), -1);
			continue;
		}
		want = o < c[p] ? o : k[p] + (o - c[p]);
		CU_ASSERT_EQUAL(committed_on(&dst, "app", p), want);
		snprintf(line, sizeof(line), "app " TOPIC " %d %lld -> %lld%s\n",
		    p, (long long)o, (long long)want, want == o ?
		    " (same offset: source and target offsets are equal)" : "");
		CU_ASSERT_PTR_NOT_NULL(out != NULL ? strstr(out, line) : NULL);
	}
	now = 0;
	for (p = 0; p < NPART; p++)
		now += committed_on(&src, "flume-mirror", p);
	CU_ASSERT_EQUAL(now, NREC);
	recs_free(s);
	recs_free(t);
	free(out);
	free(err);
	rd_kafka_destroy(q);
}

/* Without --once it follows new records until SIGTERM, then commits. */
static void
test_mirror_continuous(void)
{
	const char *const args[] = { "-s", skafka, "-d", dkafka, "-q", "-g",
	    "live-mirror", "live", NULL };
	rd_kafka_t *q;
	struct flume_client *fc;
	int64_t ends[NPART], total = 0, deadline, off;
	pid_t pid;
	int p;

	CU_ASSERT_FATAL(produce_all("live", 60) == 0);
	CU_ASSERT_FATAL((pid = mirror_spawn(args)) > 0);
	CU_ASSERT_FATAL((q = rk_new(RD_KAFKA_PRODUCER, dkafka)) != NULL);
	/* Records produced while it runs are copied too. */
	deadline = support_now_ms() + 15000;
	while (total < 60 && support_now_ms() < deadline) {
		/* Until the mirror created the target topic, ends fail. */
		if ((total = total_end(q, "live", NULL)) < 0)
			total = 0;
		usleep(20000);
	}
	CU_ASSERT_EQUAL_FATAL(total, 60);
	CU_ASSERT_FATAL(produce_all("live", 120) == 0);
	deadline = support_now_ms() + 15000;
	while (total < 180 && support_now_ms() < deadline) {
		if ((total = total_end(q, "live", ends)) < 0)
			total = 0;
		usleep(20000);
	}
	CU_ASSERT_EQUAL(total, 180);
	CU_ASSERT_FATAL(kill(pid, SIGTERM) == 0);
	CU_ASSERT_EQUAL(wait_exit(pid, 15000), 0);
	/* Clean shutdown: every acknowledged record's position committed. */
	CU_ASSERT_FATAL((fc = flume_connect(src.broker)) != NULL);
	for (p = 0; p < NPART; p++) {
		CU_ASSERT_EQUAL(flume_committed_offset(fc, "live-mirror", "live",
		    p, &off), 0);
		CU_ASSERT_EQUAL(off, ends[p]);
		CU_ASSERT_EQUAL(ends[p], 30);
	}
	flume_close(fc);
	rd_kafka_destroy(q);
}

/* Refusals: fewer target partitions, an unreachable broker, bad usage. */
static void
test_mirror_refusals(void)
{
	char path[1024], *err = NULL;
	int port;
	char dead[64];

	snprintf(path, sizeof(path), "%s/flume-mirror", support_bindir());
	CU_ASSERT_FATAL(produce_all("few", 6) == 0);
	{
		rd_kafka_t *q = rk_new(RD_KAFKA_PRODUCER, dkafka);

		/* Make the target's "few" exist (2 partitions, its config). */
		CU_ASSERT_FATAL(q != NULL);
		CU_ASSERT_EQUAL(rd_kafka_producev(q, RD_KAFKA_V_TOPIC("few"),
		    RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_VALUE("x", 1),
		    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
		    RD_KAFKA_V_END), RD_KAFKA_RESP_ERR_NO_ERROR);
		CU_ASSERT_EQUAL(rd_kafka_flush(q, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
		rd_kafka_destroy(q);
	}
	{
		const char *const argv[] = { "flume-mirror", "-s", skafka, "-d",
		    dkafka, "--once", "few", NULL };

		CU_ASSERT_EQUAL(support_run_cmd(path, argv, NULL, NULL, &err,
		    30000), 1);
		CU_ASSERT_PTR_NOT_NULL(err != NULL ? strstr(err, "topic few has "
		    "2 partitions, the source 6: refusing") : NULL);
		free(err);
		err = NULL;
	}
	CU_ASSERT_FATAL((port = support_free_port()) > 0);
	snprintf(dead, sizeof(dead), "127.0.0.1:%d", port);
	{
		const char *const argv[] = { "flume-mirror", "-s", dead, "-d",
		    dkafka, "-t", "1000", "--once", "few", NULL };
		int64_t t0 = support_now_ms();

		CU_ASSERT_EQUAL(support_run_cmd(path, argv, NULL, NULL, &err,
		    30000), 1);
		CU_ASSERT(support_now_ms() - t0 < 10000);
		CU_ASSERT_PTR_NOT_NULL(err != NULL ? strstr(err, "no metadata "
		    "within 1000 ms") : NULL);
		free(err);
		err = NULL;
	}
	{
		const char *const argv[] = { "flume-mirror", "-s", skafka, "-d",
		    dkafka, "-X", "nosuch.property=1", "--once", "few", NULL };

		CU_ASSERT_EQUAL(support_run_cmd(path, argv, NULL, NULL, &err,
		    30000), 1);
		CU_ASSERT_PTR_NOT_NULL(err != NULL ? strstr(err,
		    "nosuch.property") : NULL);
		free(err);
		err = NULL;
	}
	{
		const char *const argv[] = { "flume-mirror", "-s", skafka,
		    "few", NULL };

		CU_ASSERT_EQUAL(support_run_cmd(path, argv, NULL, NULL, &err,
		    30000), 2);
		free(err);
	}
}

TEST_SUITE("mirror", NULL, teardown,
    { "100,000 records, kill -9 half-way, resume, groups translated",
      test_mirror_kill_resume },
    { "continuous until SIGTERM, positions committed", test_mirror_continuous },
    { "fewer target partitions, unreachable broker, bad options refused",
      test_mirror_refusals });
