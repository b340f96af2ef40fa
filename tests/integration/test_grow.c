/*
 * Growing a topic's partition count against the real daemon: the native
 * CREATE_PARTITIONS (flume-admin partitions) while a keyed acks=all
 * producer and a two-member native consumer group run; a grow kept
 * across a restart; a grow of a topic whose next slots belong to another
 * (extents) with both topics' data kept; a running libflume producer
 * following the new count; a writer that dies with a grow asked (its
 * successor finishes it); Kafka's CreatePartitions at every version,
 * and the refusals (decrease, same count, unknown topic,
 * too many, a reserved name, a bad assignment, no permission), each with
 * Kafka's error and nothing changed.
 *
 * Producers and consumers are the tools (flume-produce, flume-consume
 * -g), background processes killed by pid in teardown.  Every wait is a
 * bounded poll of a condition.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_partitions.h"
#include "proto/kafka/kmsg_sasl.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define NCONS		2
#define BATCHES		24
#define PER_BATCH	50
#define WAIT_MS		30000

static struct flumed d, da;
static pid_t cons[NCONS], prod;
static char outpath[NCONS][600];

static int
setup(void)
{
	if (flumed_start_kafka(&d, NULL, "partitions = 3\nmax_partitions = 40\n"
	    "client_log_interval_ms = 0\ngroup_min_session_timeout_ms = 500\n"
	    "group_rebalance_timeout_ms = 5s\n"
	    "flush_interval_ms = 50ms\n") != 0 ||
	    flumed_start_kafka(&da, "alice:alice-pw:produce,consume,admin\n"
	    "bob:bob-pw:produce,consume\n", "client_log_interval_ms = 0\n"
	    "[topic s1]\npartitions = 2\n") != 0)
		return -1;
	return 0;
}

static void
kill_pid(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
		*pid = 0;
	}
}

static int
teardown(void)
{
	int i;

	for (i = 0; i < NCONS; i++)
		kill_pid(&cons[i]);
	kill_pid(&prod);
	flumed_cleanup(&d);
	flumed_cleanup(&da);
	return 0;
}

/* ---- the tools ---- */

static int
admin(const char *const argv[], char **out)
{
	return run_tool(&d, NULL, out, 20000, argv);
}

/* The topic's partition count as METADATA says, -1 when unknown. */
static int32_t
partition_count(const struct flumed *b, const char *topic)
{
	struct flume_client *c;
	struct flume_metadata *md;
	int32_t n = -1;

	if ((c = flume_connect(b->broker)) == NULL)
		return -1;
	if (flume_metadata(c, &topic, 1, 0, &md) == 0) {
		if (md->topic_count == 1 && md->topics[0].error == 0)
			n = md->topics[0].partition_count;
		flume_metadata_free(md);
	}
	flume_close(c);
	return n;
}

/* The count topic.meta records, -1 when unreadable. */
static int32_t
meta_count(const struct flumed *b, const char *topic)
{
	char path[700], line[128];
	FILE *f;
	int n = -1;

	snprintf(path, sizeof(path), "%s/%s/topic.meta", b->data, topic);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "partitions %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Produce values "tag-i" keyed "ktag-i", i in [0, n), acks=all: exit status. */
static int
produce(const char *topic, const char *tag, int n)
{
	const char *argv[] = { "flume-produce", "-t", topic, "-K", ":", "-a",
	    "all", NULL };
	char *in = malloc((size_t)n * 48 + 1);
	size_t len = 0;
	int i, rc;

	if (in == NULL)
		return -1;
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(in + len, "k%s-%d:%s-%d\n", tag, i, tag,
		    i);
	rc = run_tool(&d, in, NULL, 20000, argv);
	free(in);
	return rc;
}

/* Every record of topic's partition p, "offset value" per line. */
static char *
read_partition(const char *topic, int p)
{
	char ps[16];
	const char *argv[] = { "flume-consume", "-t", topic, "-p", ps, "-o",
	    "beginning", "-e", "-f", "%o %v\\n", NULL };
	char *out = NULL;

	snprintf(ps, sizeof(ps), "%d", p);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 20000, argv), 0);
	return out;
}

/* Start consumer i: flume-consume -g group -t topic, "P O V" lines. */
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

/*
 * Is group stable with n members whose assignments cover partitions
 * [0, parts) exactly once?
 */
static int
group_covers(const char *group, int n, int parts)
{
	struct flume_client *c;
	struct flume_group_desc *gd = NULL;
	int32_t i, j;
	int mask = 0, ok, bit;

	if ((c = flume_connect(d.broker)) == NULL)
		return 0;
	if (flume_describe_group(c, group, &gd) == -1)
		gd = NULL;
	flume_close(c);
	if (gd == NULL)
		return 0;
	ok = gd->state == FLUME_GROUP_STABLE && gd->member_count == n;
	for (i = 0; ok && i < gd->member_count; i++)
		for (j = 0; j < gd->members[i].count; j++) {
			bit = 1 << gd->members[i].parts[j].partition;
			if (mask & bit)
				ok = 0;
			mask |= bit;
		}
	flume_group_desc_free(gd);
	return ok && mask == (1 << parts) - 1;
}

/* ---- grow under load ---- */

/* What the consumers printed: times each (batch, i) was seen, and where. */
struct seen {
	int	count[BATCHES][PER_BATCH];
	int	part[BATCHES][PER_BATCH];
	int	total;
};

static void
seen_read(struct seen *s)
{
	char line[256];
	FILE *f;
	int c, p, b, i;
	long o;

	memset(s, 0, sizeof(*s));
	for (c = 0; c < NCONS; c++) {
		if ((f = fopen(outpath[c], "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL) {
			if (sscanf(line, "%d %ld b%d-%d", &p, &o, &b, &i) != 4 ||
			    b < 0 || b >= BATCHES || i < 0 || i >= PER_BATCH)
				continue;
			s->count[b][i]++;
			s->part[b][i] = p;
			s->total++;
		}
		fclose(f);
	}
}

/*
 * Batches acknowledged in full so far, per the producer's log: when each
 * started and when its acknowledgement came.
 */
static int
acked_read(const char *path, long long start[BATCHES], long long end[BATCHES])
{
	char line[64];
	FILE *f;
	long long t, e;
	int b, n = 0;

	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%d %lld %lld", &b, &t, &e) == 3 && b >= 0 &&
		    b < BATCHES) {
			start[b] = t;
			end[b] = e;
			n++;
		}
	fclose(f);
	return n;
}

/* Are all n batches' records seen by the group? */
static int
all_seen(int n)
{
	struct seen *s = malloc(sizeof(*s));
	int b, i, ok = 1;

	if (s == NULL)
		return 0;
	seen_read(s);
	for (b = 0; b < n && ok; b++)
		for (i = 0; i < PER_BATCH; i++)
			if (s->count[b][i] == 0)
				ok = 0;
	free(s);
	return ok;
}

/*
 * A topic of 3 partitions grows to 6 while a producer sends keyed batches
 * with acks=all (a new flume-produce per batch, as a restarted client
 * would: each asks METADATA) and two flume-consume -g members consume.
 * Every acknowledged record is read back, none more than twice (at least
 * once: a record may come again after the rebalance), the group's
 * assignment covers all 6 partitions, records sent after the grow land
 * on FNV-1a(key) % 6 (before it: % 3), and the new partitions hold data.
 */
static void
test_grow_under_load(void)
{
	const char *create[] = { "flume-admin", "create", "g", "-p", "3", NULL };
	const char *grow[] = { "flume-admin", "partitions", "g", "6", NULL };
	char acked[700], tag[16], key[32];
	long long start[BATCHES], end[BATCHES], grow_begin, grow_end;
	struct seen *s;
	int b, i, n, dup = 0, newparts = 0, klen;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(admin(create, NULL), 0);
	consumer_start(0, "gg", "g");
	consumer_start(1, "gg", "g");
	WAIT_UNTIL(group_covers("gg", 2, 3), WAIT_MS);
	CU_ASSERT_FATAL(group_covers("gg", 2, 3));

	snprintf(acked, sizeof(acked), "%s/acked", d.dir);
	prod = fork();
	CU_ASSERT_FATAL(prod >= 0);
	if (prod == 0) {
		for (b = 0; b < BATCHES; b++) {
			long long t = support_now_ms();

			snprintf(tag, sizeof(tag), "b%d", b);
			if (produce("g", tag, PER_BATCH) != 0)
				_exit(1);
			if ((f = fopen(acked, "a")) == NULL)
				_exit(2);
			fprintf(f, "%d %lld %lld\n", b, t, support_now_ms());
			fclose(f);
			usleep(50 * 1000);	/* a steady producer, not a flood */
		}
		_exit(0);
	}
	memset(start, 0, sizeof(start));
	memset(end, 0, sizeof(end));
	WAIT_UNTIL(acked_read(acked, start, end) >= 4, WAIT_MS);
	CU_ASSERT_FATAL(acked_read(acked, start, end) >= 4);
	grow_begin = support_now_ms();
	CU_ASSERT_EQUAL_FATAL(admin(grow, NULL), 0);
	grow_end = support_now_ms();
	CU_ASSERT_EQUAL(partition_count(&d, "g"), 6);
	CU_ASSERT_EQUAL(meta_count(&d, "g"), 6);

	WAIT_UNTIL(waitpid(prod, &i, WNOHANG) == prod, WAIT_MS * 2);
	CU_ASSERT(WIFEXITED(i) && WEXITSTATUS(i) == 0);
	prod = 0;
	CU_ASSERT_EQUAL_FATAL(acked_read(acked, start, end), BATCHES);
	WAIT_UNTIL(all_seen(BATCHES) && group_covers("gg", 2, 6), WAIT_MS);
	CU_ASSERT(group_covers("gg", 2, 6));

	s = malloc(sizeof(*s));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	seen_read(s);
	for (b = 0; b < BATCHES; b++)
		for (i = 0; i < PER_BATCH; i++) {
			CU_ASSERT(s->count[b][i] >= 1 && s->count[b][i] <= 2);
			dup += s->count[b][i] > 1;
			klen = snprintf(key, sizeof(key), "kb%d-%d", b, i);
			n = flume_partition_for_key(key, (size_t)klen,
			    start[b] > grow_end ? 6 : 3);
			if (start[b] > grow_end || end[b] < grow_begin) {
				CU_ASSERT_EQUAL(s->part[b][i], n);
			} else {
				/* Sent while it grew: either count. */
				CU_ASSERT(s->part[b][i] == n || s->part[b][i] ==
				    flume_partition_for_key(key, (size_t)klen, 6));
			}
			newparts |= s->part[b][i] >= 3 ? 1 << s->part[b][i] : 0;
		}
	/* Keys of the batches after the grow reach every new partition. */
	CU_ASSERT_EQUAL(newparts, 0x38);
	CU_ASSERT(dup <= BATCHES * PER_BATCH / 2);
	free(s);
	kill_pid(&cons[0]);
	kill_pid(&cons[1]);
}

/* ---- a running producer ---- */

static void
on_delivery(const struct flume_delivery *dl, void *arg)
{
	int32_t *part = arg;

	*part = dl->error == 0 ? dl->partition : -2;
}

/* Produce one keyed record with p and flush: its partition, or < 0. */
static int32_t
produce_key(struct flume_producer *p, const char *key, int32_t *part)
{
	*part = -1;
	if (flume_produce(p, "lp", FLUME_PARTITION_ANY, key,
	    (int32_t)strlen(key), "v", 1, NULL) == -1 ||
	    flume_producer_flush(p, 10000) == -1)
		return -1;
	return *part;
}

/*
 * A libflume producer that runs across the grow asks the count again
 * (within 10 s) and routes its keys over the new one: a key whose
 * FNV-1a modulo 6 is a new partition lands there, before the grow on
 * its partition modulo 2.
 */
static void
test_running_producer(void)
{
	const char *create[] = { "flume-admin", "create", "lp", "-p", "2", NULL };
	const char *grow[] = { "flume-admin", "partitions", "lp", "6", NULL };
	struct flume_producer_conf pc;
	struct flume_producer *p;
	struct flume_client *c;
	char key[32];
	int32_t part, want = -1;
	int i;

	CU_ASSERT_EQUAL_FATAL(admin(create, NULL), 0);
	/* A key of a new partition: FNV-1a % 6 is 3, 4 or 5. */
	for (i = 0; want < 3; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		want = flume_partition_for_key(key, strlen(key), 6);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(c = flume_connect(d.broker));
	flume_producer_conf_init(&pc);
	pc.acks = -1;
	pc.on_delivery = on_delivery;
	pc.on_delivery_arg = &part;
	CU_ASSERT_PTR_NOT_NULL_FATAL(p = flume_producer_new(c, &pc));
	CU_ASSERT_EQUAL(produce_key(p, key, &part),
	    flume_partition_for_key(key, strlen(key), 2));
	CU_ASSERT_EQUAL_FATAL(admin(grow, NULL), 0);
	WAIT_UNTIL(produce_key(p, key, &part) == want, 20000);
	CU_ASSERT_EQUAL(part, want);
	flume_producer_free(p);
	flume_close(c);
}

/* ---- restart, extents ---- */

/* Partition p of topic holds exactly lines "i tag-j" for the given values. */
static int
partition_holds(const char *topic, int p, const char *want)
{
	char *got = read_partition(topic, p);
	int ok = got != NULL && strcmp(got, want) == 0;

	if (!ok)
		fprintf(stderr, "%s-%d: got [%s] want [%s]\n", topic, p,
		    got != NULL ? got : "(null)", want);
	free(got);
	return ok;
}

/* Produce one record "v" to topic's partition p (acks=all): exit status. */
static int
produce_to(const char *topic, int p, const char *v)
{
	char ps[16];
	const char *argv[] = { "flume-produce", "-t", topic, "-p", ps, "-a",
	    "all", v, NULL };

	snprintf(ps, sizeof(ps), "%d", p);
	return run_tool(&d, NULL, NULL, 20000, argv);
}

/*
 * x and y of 2 partitions each, made one after the other (y's slots
 * follow x's): x grows to 5 and y to 4 (each through an extent), every
 * partition of both gets records before and after, and each reads back
 * exactly what was written to it; then a restart (recovery lays each
 * topic out as one run again) keeps the counts in topic.meta and every
 * record, and produce and fetch work on every partition.  An empty
 * partition directory past topic.meta's count (what a crash in the
 * middle of a grow leaves) is ignored at start and taken by the next
 * grow.
 */
static void
test_grow_extents_restart(void)
{
	const char *cx[] = { "flume-admin", "create", "x", "-p", "2", NULL };
	const char *cy[] = { "flume-admin", "create", "y", "-p", "2", NULL };
	const char *gx[] = { "flume-admin", "partitions", "x", "5", NULL };
	const char *gy[] = { "flume-admin", "partitions", "y", "4", NULL };
	char v[32], want[64], extra_dir[700];
	int p, round;
	const char *g6[] = { "flume-admin", "partitions", "x", "6", NULL };

	CU_ASSERT_EQUAL_FATAL(admin(cx, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(admin(cy, NULL), 0);
	for (p = 0; p < 2; p++) {
		snprintf(v, sizeof(v), "x%d-a", p);
		CU_ASSERT_EQUAL(produce_to("x", p, v), 0);
		snprintf(v, sizeof(v), "y%d-a", p);
		CU_ASSERT_EQUAL(produce_to("y", p, v), 0);
	}
	CU_ASSERT_EQUAL_FATAL(admin(gx, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(admin(gy, NULL), 0);
	CU_ASSERT_EQUAL(partition_count(&d, "x"), 5);
	CU_ASSERT_EQUAL(partition_count(&d, "y"), 4);
	for (p = 0; p < 5; p++) {
		snprintf(v, sizeof(v), "x%d-b", p);
		CU_ASSERT_EQUAL(produce_to("x", p, v), 0);
	}
	for (p = 0; p < 4; p++) {
		snprintf(v, sizeof(v), "y%d-b", p);
		CU_ASSERT_EQUAL(produce_to("y", p, v), 0);
	}
	for (round = 0; round < 2; round++) {
		for (p = 0; p < 5; p++) {
			if (p < 2)
				snprintf(want, sizeof(want), "0 x%d-a\n1 x%d-b\n",
				    p, p);
			else
				snprintf(want, sizeof(want), "0 x%d-b\n", p);
			CU_ASSERT(partition_holds("x", p, want));
		}
		for (p = 0; p < 4; p++) {
			if (p < 2)
				snprintf(want, sizeof(want), "0 y%d-a\n1 y%d-b\n",
				    p, p);
			else
				snprintf(want, sizeof(want), "0 y%d-b\n", p);
			CU_ASSERT(partition_holds("y", p, want));
		}
		if (round == 1)
			break;
		CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
		CU_ASSERT_EQUAL(meta_count(&d, "x"), 5);
		CU_ASSERT_EQUAL(meta_count(&d, "y"), 4);
		/*
		 * What a crash between making a grow's logs and renaming
		 * topic.meta leaves: an empty partition past the count.
		 */
		CU_ASSERT_FATAL(snprintf(extra_dir, sizeof(extra_dir),
		    "%s/x/partition-5", d.data) < (int)sizeof(extra_dir));
		CU_ASSERT_EQUAL(mkdir(extra_dir, 0755), 0);
		CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
		CU_ASSERT_EQUAL(partition_count(&d, "x"), 5);
		CU_ASSERT_EQUAL(partition_count(&d, "y"), 4);
	}
	/* After the restart the new partitions take records at offset 1. */
	CU_ASSERT_EQUAL(produce_to("x", 4, "x4-c"), 0);
	CU_ASSERT(partition_holds("x", 4, "0 x4-b\n1 x4-c\n"));
	/* The empty directory past the count was ignored, then taken. */
	CU_ASSERT_EQUAL(partition_count(&d, "x"), 5);
	CU_ASSERT_EQUAL_FATAL(admin(g6, NULL), 0);
	CU_ASSERT_EQUAL(produce_to("x", 5, "x5-a"), 0);
	CU_ASSERT(partition_holds("x", 5, "0 x5-a\n"));
	CU_ASSERT_EQUAL(meta_count(&d, "x"), 6);
}

/* ---- Kafka's CreatePartitions ---- */

/*
 * Send (m, v) request q on fd with correlation id corr and decode the
 * answer into resp (its bytes in *buf, freed by the caller): 0 or -1.
 */
static int
kcall(int fd, const struct kmsg *m, int16_t v, int32_t corr, const void *q,
    void *resp, uint8_t **buf, struct arena *a)
{
	struct kreq_hdr h;
	struct wbuf wb;
	uint32_t id = 0;
	size_t n = 0, off = 0;
	int rc;

	wbuf_init(&wb);
	wbuf_i32(&wb, 0);
	h.api_key = m->km_key;
	h.api_version = v;
	h.correlation_id = corr;
	h.client_id = kstr_c("test_grow");
	CU_ASSERT_EQUAL_FATAL(kmsg_encode_req_hdr(&h, &wb), 0);
	CU_ASSERT_EQUAL_FATAL(kmsg_encode_req(m, v, q, &wb), 0);
	wbuf_put_u32_at(&wb, 0, (uint32_t)(wb.len - 4));
	rc = support_send(fd, wb.buf, wb.len);
	wbuf_free(&wb);
	*buf = NULL;
	if (rc != 0 || support_recv(fd, 20000, &id, buf, &n) != 1)
		return -1;
	CU_ASSERT_EQUAL(id, (uint32_t)corr);
	if (kmsg_resp_hdr_version(m->km_key, v) == 1)
		off = 1;	/* the response header's tagged fields */
	if (n < off)
		return -1;
	return kmsg_decode_resp(m, v, resp, *buf + off, n - off, a);
}

/* The timeout_ms kgrow() asks with. */
static int32_t kgrow_timeout = 15000;

/* One topic's outcome of a CreatePartitions. */
struct kgrow {
	int16_t		 error;
	char		 msg[160];	/* "(null)" for a null message */
};

/*
 * CreatePartitions v of topic to count on fd (nassign lists naming
 * broker, none when nassign < 0; validate_only): the answer's one result.
 */
static int
kgrow(int fd, int16_t v, const char *topic, int32_t count, int nassign,
    int32_t broker, int validate, struct kgrow *out)
{
	struct km_create_partitions_req q;
	struct km_create_partitions_resp s;
	struct km_partitions_topic t;
	struct km_partitions_assignment as[8];
	const struct km_partitions_result *r;
	struct arena a;
	uint8_t *buf;
	int i, rc = -1;

	memset(&t, 0, sizeof(t));
	t.name = kstr_c(topic);
	t.count = count;
	t.assignments.n = nassign;
	t.assignments.v = as;
	for (i = 0; i < nassign && i < 8; i++) {
		as[i].broker_ids.n = 1;
		as[i].broker_ids.v = &broker;
	}
	kdesc_defaults(kmsg_create_partitions.km_req, &q);
	q.topics.n = 1;
	q.topics.v = &t;
	q.timeout_ms = kgrow_timeout;
	q.validate_only = (uint8_t)validate;
	arena_init(&a, 1 << 20);
	if (kcall(fd, &kmsg_create_partitions, v, 40 + v, &q, &s, &buf,
	    &a) == 0 && s.results.n == 1) {
		r = s.results.v;
		CU_ASSERT_EQUAL(s.throttle_time_ms, 0);
		CU_ASSERT(r->name.len == (int32_t)strlen(topic) &&
		    memcmp(r->name.p, topic, strlen(topic)) == 0);
		out->error = r->error_code;
		if (r->error_message.len < 0)
			snprintf(out->msg, sizeof(out->msg), "(null)");
		else
			snprintf(out->msg, sizeof(out->msg), "%.*s",
			    (int)r->error_message.len, r->error_message.p);
		rc = 0;
	}
	free(buf);
	arena_free(&a);
	return rc;
}

/*
 * Every version 0-3 grows a topic by one (error NONE, a null message,
 * the count in Metadata and topic.meta); validate_only changes nothing; a
 * manual assignment naming broker 0 is taken.
 */
static void
test_kafka_every_version(void)
{
	const char *create[] = { "flume-admin", "create", "k", "-p", "1", NULL };
	struct kgrow g;
	int fd;
	int16_t v;

	CU_ASSERT_EQUAL_FATAL(admin(create, NULL), 0);
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	for (v = 0; v <= 3; v++) {
		CU_ASSERT_EQUAL_FATAL(kgrow(fd, v, "k", 2 + v, -1, 0, 1, &g), 0);
		CU_ASSERT_EQUAL(g.error, KERR_NONE);
		CU_ASSERT_EQUAL(partition_count(&d, "k"), 1 + v);
		CU_ASSERT_EQUAL_FATAL(kgrow(fd, v, "k", 2 + v, -1, 0, 0, &g), 0);
		CU_ASSERT_EQUAL(g.error, KERR_NONE);
		CU_ASSERT_STRING_EQUAL(g.msg, "(null)");
		CU_ASSERT_EQUAL(partition_count(&d, "k"), 2 + v);
		CU_ASSERT_EQUAL(meta_count(&d, "k"), 2 + v);
	}
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 1, "k", 7, 2, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_NONE);
	CU_ASSERT_EQUAL(partition_count(&d, "k"), 7);
	close(fd);
}

/*
 * Refusals, each with Kafka's error and message, the topic untouched:
 * decrease, the same count, an unknown topic, past max_partitions, a
 * reserved name, an assignment naming another broker or of the wrong
 * length, and (on the broker with users) a user without admin.
 */
static void
test_kafka_refused(void)
{
	const char *create[] = { "flume-admin", "create", "r", "-p", "3", NULL };
	struct kgrow g;
	int fd;

	CU_ASSERT_EQUAL_FATAL(admin(create, NULL), 0);
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 3, "r", 2, -1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_INVALID_PARTITIONS);
	CU_ASSERT_STRING_EQUAL(g.msg, "The topic r currently has 3 "
	    "partition(s); 2 would not be an increase.");
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 0, "r", 3, -1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_INVALID_PARTITIONS);
	CU_ASSERT_STRING_EQUAL(g.msg, "Topic already has 3 partition(s).");
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 2, "nosuch", 4, -1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL(partition_count(&d, "nosuch"), -1);
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 1, "r", 41, -1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_POLICY_VIOLATION);
	CU_ASSERT_STRING_EQUAL(g.msg, "no room: raise max_partitions");
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 1, "__consumer_offsets", 60, -1, 0, 0,
	    &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_INVALID_TOPIC_EXCEPTION);
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 3, "r", 5, 2, 1, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_INVALID_REPLICA_ASSIGNMENT);
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 3, "r", 5, 1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_INVALID_REPLICA_ASSIGNMENT);
	CU_ASSERT_EQUAL(partition_count(&d, "r"), 3);
	CU_ASSERT_EQUAL(meta_count(&d, "r"), 3);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "growing topic r from"), 0);
	close(fd);
}

/*
 * The writer stops (SIGSTOP) with a grow asked: the answer times out
 * (REQUEST_TIMED_OUT) and clients still see the old count; the writer
 * is killed, and the one the master starts makes the files and
 * publishes the count.
 */
static void
test_kafka_writer_dies(void)
{
	const char *create[] = { "flume-admin", "create", "wd", "-p", "2", NULL };
	struct kgrow g;
	pid_t writer;
	int fd;

	CU_ASSERT_EQUAL_FATAL(admin(create, NULL), 0);
	CU_ASSERT_FATAL((writer = flumed_child_pid(&d, "writer", -1)) > 0);
	CU_ASSERT_EQUAL_FATAL(kill(writer, SIGSTOP), 0);
	CU_ASSERT_FATAL(support_pid_state(writer, "T", 5000));
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	kgrow_timeout = 300;
	CU_ASSERT_EQUAL(kgrow(fd, 3, "wd", 4, -1, 0, 0, &g), 0);
	kgrow_timeout = 15000;
	CU_ASSERT_EQUAL(g.error, KERR_REQUEST_TIMED_OUT);
	CU_ASSERT_EQUAL(partition_count(&d, "wd"), 2);
	CU_ASSERT_EQUAL(meta_count(&d, "wd"), 2);
	/* The same count again: a grow to it is under way. */
	CU_ASSERT_EQUAL(kgrow(fd, 3, "wd", 4, -1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_INVALID_PARTITIONS);
	CU_ASSERT_EQUAL(kill(writer, SIGKILL), 0);
	WAIT_UNTIL(partition_count(&d, "wd") == 4, WAIT_MS);
	CU_ASSERT_EQUAL(partition_count(&d, "wd"), 4);
	CU_ASSERT_EQUAL(meta_count(&d, "wd"), 4);
	CU_ASSERT_EQUAL(produce_to("wd", 3, "wd3-a"), 0);
	CU_ASSERT(partition_holds("wd", 3, "0 wd3-a\n"));
	close(fd);
}

/* SASL PLAIN as user on fd (SaslHandshake v1, SaslAuthenticate v1). */
static void
sasl_plain(int fd, const char *user, const char *pw)
{
	struct km_sasl_handshake_req hq;
	struct km_sasl_handshake_resp hs;
	struct km_sasl_auth_req aq;
	struct km_sasl_auth_resp as;
	struct arena a;
	uint8_t *buf;
	char msg[64];
	int n;

	arena_init(&a, 1 << 16);
	hq.mechanism = kstr_c("PLAIN");
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_sasl_handshake, 1, 1, &hq, &hs,
	    &buf, &a), 0);
	CU_ASSERT_EQUAL(hs.error_code, 0);
	free(buf);
	n = snprintf(msg, sizeof(msg), "%c%s%c%s", 0, user, 0, pw);
	aq.auth_bytes.p = msg;
	aq.auth_bytes.len = n;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_sasl_authenticate, 1, 2, &aq,
	    &as, &buf, &a), 0);
	CU_ASSERT_EQUAL(as.error_code, 0);
	free(buf);
	arena_free(&a);
}

/* bob (produce, consume) may not grow s1; alice (admin) may. */
static void
test_kafka_no_permission(void)
{
	struct kgrow g;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
	sasl_plain(fd, "bob", "bob-pw");
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 2, "s1", 4, -1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_TOPIC_AUTHORIZATION_FAILED);
	close(fd);
	CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
	sasl_plain(fd, "alice", "alice-pw");
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 2, "s1", 2, -1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_INVALID_PARTITIONS);
	CU_ASSERT_EQUAL_FATAL(kgrow(fd, 2, "s1", 4, -1, 0, 0, &g), 0);
	CU_ASSERT_EQUAL(g.error, KERR_NONE);
	CU_ASSERT_EQUAL(meta_count(&da, "s1"), 4);
	close(fd);
}

/* flume-admin partitions: the count grown to, and the refusals' words. */
static void
test_admin_tool(void)
{
	const char *create[] = { "flume-admin", "create", "n", "-p", "2", NULL };
	const char *grow[] = { "flume-admin", "partitions", "n", "4", NULL };
	const char *less[] = { "flume-admin", "partitions", "n", "3", NULL };
	const char *none[] = { "flume-admin", "partitions", "nn", "3", NULL };
	const char *bad[] = { "flume-admin", "partitions", "n", "x", NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL_FATAL(admin(create, NULL), 0);
	CU_ASSERT_EQUAL(admin(grow, &out), 0);
	CU_ASSERT_STRING_EQUAL(out != NULL ? out : "", "grew n to 4 partitions\n");
	free(out);
	CU_ASSERT_EQUAL(admin(less, NULL), 1);
	CU_ASSERT_EQUAL(admin(none, NULL), 1);
	CU_ASSERT_EQUAL(admin(bad, NULL), 2);
	CU_ASSERT_EQUAL(partition_count(&d, "n"), 4);
}

TEST_SUITE("grow", setup, teardown,
	{ "grow 3 -> 6 under a producer and a group", test_grow_under_load },
	{ "a running producer routes over the new count",
	    test_running_producer },
	{ "extents, and a restart", test_grow_extents_restart },
	{ "Kafka CreatePartitions v0-3", test_kafka_every_version },
	{ "Kafka refusals", test_kafka_refused },
	{ "the writer dies with a grow asked", test_kafka_writer_dies },
	{ "Kafka without admin permission", test_kafka_no_permission },
	{ "flume-admin partitions", test_admin_tool });
