/*
 * flume-kbench: flume-bench's scenarios through the Kafka listener, with
 * librdkafka as the client, in the spirit of kafka-producer-perf-test and
 * kafka-consumer-perf-test, so `make bench` sets the two paths side by
 * side in the same format (clients/bench_stats.c renders both).
 *
 *   produce  COUNT messages of SIZE bytes, as fast as librdkafka batches
 *            them (-l linger.ms, -B batch.size, -a acks); rate, the
 *            delivery latency of every eighth message and the bytes sent
 *            per message (librdkafka's statistics, tx_bytes)
 *            -x N: in transactions of N messages (transactional.id
 *            flume-kbench-PID: init_transactions before the clock,
 *            then begin, N messages, commit), idempotent, acks all
 *   sync     one message per request: linger 0, one request in flight,
 *            each delivery report awaited before the next message
 *   consume  the topic from the beginning, partitions assigned by hand
 *            (-c clients share them), up to the end offsets at start
 *   group    -c members of one consumer group subscribe, read the topic
 *            to its end in batches off the consumer queue and commit
 *            what they processed every -m messages without waiting (as
 *            flume-bench group does); a message counts once the broker
 *            acknowledged a commit that covers it
 *
 * FLUME_TLS=1 (as the flume-* tools read it) makes the connections
 * security.protocol=SSL, trusting FLUME_CA_FILE when set (else the
 * system's CAs), for the TLS rows on kafka_listen_tls; group mode's
 * ApiVersions probe is plaintext, so it is for produce, sync and consume.
 *
 * A separate program so that only it links librdkafka; not installed.
 * It never fails on speed: exit 0 when every message was delivered (or
 * read), 1 when not, 2 on a usage error, 3 when the broker does not
 * serve consumer groups (group only, found out by an ApiVersions
 * request before anything waits for an assignment) or transactions
 * (produce -x: init_transactions fails with _UNSUPPORTED_FEATURE), with
 * the reason as "na" in the JSON line.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "clients/bench_stats.h"
#include "clients/flume_tool.h"
#include "tests/bench/kbench_opts.h"

#define KB_SAMPLE		8	/* produce: latency of every 8th message */
#define KB_POLL_MS		100
/*
 * group: how long a consume call waits to fill its batch; a member's
 * last, partial batch waits this long before its commit goes out.
 */
#define KB_GROUP_POLL_MS	10
#define KB_HEARTBEAT_MS		100	/* group: see kconsumer_new() */
#define KB_BATCH		1024	/* consume: messages taken per call */
#define KB_QUEUE_KB		32768	/* produce: libflume's buffer_bytes */
#define KB_RDK_MAX_BYTES	1000000	/* librdkafka's message.max.bytes */
#define KB_BATCH_SLACK		65536	/* a request's bytes besides its batch */
#define KB_STATS_MS		50	/* produce: statistics interval */
#define KB_STATS_WAIT_MS	2000
#define KB_STALL_NS		(30ull * 1000000000u)	/* no progress: give up */
#define KB_PROBE_MS		5000	/* the ApiVersions probe */
#define KB_EXIT_NA		3	/* a row the broker cannot fill */
#define KB_TXN_MS		60000	/* init and commit of a transaction */

struct kb {
	struct kbench_opts o;
	uint8_t		*value;
	int32_t		 partitions;
	int64_t		*lo, *hi;	/* consume, group: offsets at start */
	uint64_t	 total;		/* consume, group: messages to read */
	pthread_barrier_t start;
	_Atomic int	 stop;
	const char	*na;		/* why the broker cannot fill the row */
	/* group: the highest committed offset per partition (as flume-bench) */
	_Atomic int64_t	*gdone;
	_Atomic uint64_t gcommitted, gcommits, gend_ns, gmoved_ns;
};

struct kthread {
	struct kb	*k;
	int		 idx;
	struct bench_hist hist;
	uint64_t	*sent_ns;	/* produce, sync: by message number / KB_SAMPLE */
	uint64_t	 msgs, bytes, failed;
	_Atomic uint64_t delivered;
	/* produce, sync: librdkafka's tx_bytes, from its statistics */
	int64_t		 tx_bytes;
	unsigned	 stats_seen;
	int64_t		 wire;		/* bytes sent in the run, -1: unknown */
	uint64_t	 end_ns;	/* when the last report came, 0: not yet */
	int		 ok;
	char		 err[300];
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
kconf_set(rd_kafka_conf_t *conf, const char *name, const char *value,
    char *err, size_t errlen)
{
	char e[160];

	if (rd_kafka_conf_set(conf, name, value, e, sizeof(e)) !=
	    RD_KAFKA_CONF_OK) {
		snprintf(err, errlen, "%.40s=%.60s: %s", name, value, e);
		return -1;
	}
	return 0;
}

/* librdkafka's own log lines (connection trouble) as ours, on stderr. */
static void
klog(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	if (level <= 4)
		fprintf(stderr, "flume-kbench: %s: %s\n", fac, buf);
}

/* FLUME_TLS is 1 or yes, as libflume_tool.c reads it. */
static int
kbench_tls(void)
{
	const char *on = getenv("FLUME_TLS");

	return on != NULL && (strcmp(on, "1") == 0 || strcmp(on, "yes") == 0);
}

static rd_kafka_conf_t *
kconf_new(const struct kb *k, char *err, size_t errlen)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	const char *ca = getenv("FLUME_CA_FILE");

	rd_kafka_conf_set_log_cb(conf, klog);
	if (kconf_set(conf, "bootstrap.servers", k->o.broker, err, errlen) == -1 ||
	    kconf_set(conf, "client.id", "flume-kbench", err, errlen) == -1)
		goto fail;
	if (kbench_tls() && (kconf_set(conf, "security.protocol", "SSL", err,
	    errlen) == -1 || (ca != NULL && ca[0] != '\0' && kconf_set(conf,
	    "ssl.ca.location", ca, err, errlen) == -1)))
		goto fail;
	return conf;
fail:
	rd_kafka_conf_destroy(conf);
	return NULL;
}

/* Delivery report: count it, and its latency when it was a sampled one. */
static void
on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	struct kthread *t = opaque;
	uint64_t i = (uint64_t)(uintptr_t)m->_private;

	if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
		if (t->failed++ == 0)
			snprintf(t->err, sizeof(t->err), "delivery: %s",
			    rd_kafka_err2str(m->err));
		return;
	}
	if (t->k->o.mode == KB_PRODUCE && i % KB_SAMPLE == 0 && i > 0)
		bench_hist_add(&t->hist, now_ns() - t->sent_ns[i / KB_SAMPLE]);
	atomic_fetch_add_explicit(&t->delivered, 1, memory_order_relaxed);
}

/*
 * librdkafka's statistics (every KB_STATS_MS, served by rd_kafka_poll()
 * on the producing thread): keep the bytes sent to brokers, the
 * top-level "tx_bytes" (a broker's own counter is "txbytes").
 */
static int
on_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque)
{
	struct kthread *t = opaque;
	const char *p = strstr(json, "\"tx_bytes\":");

	if (p != NULL) {
		t->tx_bytes = strtoll(p + strlen("\"tx_bytes\":"), NULL, 10);
		t->stats_seen++;
	}
	return 0;	/* librdkafka frees json */
}

/*
 * Bytes sent so far, from statistics taken after this call (at most
 * KB_STATS_WAIT_MS); -1 when none came.
 */
static int64_t
ktx_bytes(struct kthread *t, rd_kafka_t *rk)
{
	unsigned seen = t->stats_seen;
	uint64_t deadline = now_ns() + KB_STATS_WAIT_MS * 1000000ull;

	while (t->stats_seen - seen < 2 && now_ns() < deadline)
		rd_kafka_poll(rk, KB_STATS_MS);
	return t->stats_seen - seen >= 2 ? t->tx_bytes : -1;
}

/*
 * Queue message number i (0: the warm-up one), waiting while
 * librdkafka's queue is full.  0 or -1.
 */
static int
kproduce(struct kthread *t, rd_kafka_t *rk, uint64_t i)
{
	struct kb *k = t->k;
	rd_kafka_resp_err_t e;

	for (;;) {
		/* No copy: every message points at the same filler. */
		e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(k->o.topic),
		    RD_KAFKA_V_VALUE(k->value, k->o.size),
		    RD_KAFKA_V_OPAQUE((void *)(uintptr_t)i), RD_KAFKA_V_END);
		if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
			return 0;
		if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
			snprintf(t->err, sizeof(t->err), "produce: %s",
			    rd_kafka_err2str(e));
			return -1;
		}
		rd_kafka_poll(rk, 1);
	}
}

enum ktxn_step { KTXN_INIT, KTXN_BEGIN, KTXN_COMMIT };

/*
 * produce -x: one step of a transaction; 0, or -1 with the reason in
 * t->err (and k->na when init finds the broker does not serve
 * transactions).
 */
static int
ktxn(struct kthread *t, rd_kafka_t *rk, enum ktxn_step step)
{
	static const char *const name[] = { "init_transactions",
	    "begin_transaction", "commit_transaction" };
	rd_kafka_error_t *e;

	e = step == KTXN_INIT ? rd_kafka_init_transactions(rk, KB_TXN_MS) :
	    step == KTXN_BEGIN ? rd_kafka_begin_transaction(rk) :
	    rd_kafka_commit_transaction(rk, KB_TXN_MS);
	if (e == NULL)
		return 0;
	snprintf(t->err, sizeof(t->err), "%s: %s", name[step],
	    rd_kafka_error_string(e));
	if (step == KTXN_INIT &&
	    rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE)
		t->k->na = "transactions not served";
	rd_kafka_error_destroy(e);
	return -1;
}

/* produce and sync: one producer (the -c option is not theirs). */
static void *
producer_main(void *arg)
{
	struct kthread *t = arg;
	struct kb *k = t->k;
	rd_kafka_conf_t *conf;
	rd_kafka_t *rk = NULL;
	char num[32], qkb[32], e[256];
	uint64_t i, t0;
	int64_t w0 = -1, tx;
	long long mmb;

	if ((conf = kconf_new(k, t->err, sizeof(t->err))) == NULL)
		goto wait;
	rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
	rd_kafka_conf_set_stats_cb(conf, on_stats);
	rd_kafka_conf_set_opaque(conf, t);
	snprintf(num, sizeof(num), "%d", KB_STATS_MS);
	if (kconf_set(conf, "statistics.interval.ms", num, t->err,
	    sizeof(t->err)) == -1)
		goto wait_conf;
	snprintf(num, sizeof(num), "%d", k->o.acks);
	/*
	 * librdkafka's own queue limit of 100000 messages (a deeper queue
	 * measured no faster, only later), and at most KB_QUEUE_KB of
	 * them unsent, as libflume's default buffer_bytes: without it a
	 * run of 10 KB values queues 1 GB and its latency is the queue's.
	 */
	snprintf(qkb, sizeof(qkb), "%d", KB_QUEUE_KB);
	if (kconf_set(conf, "acks", num, t->err, sizeof(t->err)) == -1 ||
	    kconf_set(conf, "queue.buffering.max.kbytes", qkb, t->err,
	    sizeof(t->err)) == -1 ||
	    kconf_set(conf, "enable.idempotence", k->o.txn_records > 0 ?
	    "true" : "false", t->err, sizeof(t->err)) == -1)
		goto wait_conf;
	snprintf(num, sizeof(num), "flume-kbench-%ld", (long)getpid());
	if (k->o.txn_records > 0 && kconf_set(conf, "transactional.id", num,
	    t->err, sizeof(t->err)) == -1)
		goto wait_conf;
	/*
	 * librdkafka caps both a message and a batch at message.max.bytes
	 * (default 1000000): raise it for a value larger than that, and
	 * for a larger -B, or -B 1048576 would build batches of at most
	 * 1000000 bytes.
	 */
	mmb = 0;
	if (k->o.size + 1024 > KB_RDK_MAX_BYTES)
		mmb = (long long)k->o.size + 1024 * 1024;
	if (k->o.batch_bytes + KB_BATCH_SLACK > KB_RDK_MAX_BYTES &&
	    k->o.batch_bytes + KB_BATCH_SLACK > mmb)
		mmb = k->o.batch_bytes + KB_BATCH_SLACK;
	snprintf(num, sizeof(num), "%lld", mmb);
	if (mmb > 0 && kconf_set(conf, "message.max.bytes", num, t->err,
	    sizeof(t->err)) == -1)
		goto wait_conf;
	if (k->o.mode == KB_SYNC) {
		if (kconf_set(conf, "linger.ms", "0", t->err,
		    sizeof(t->err)) == -1 || kconf_set(conf,
		    "max.in.flight.requests.per.connection", "1", t->err,
		    sizeof(t->err)) == -1)
			goto wait_conf;
	} else if (k->o.linger_ms >= 0) {
		snprintf(num, sizeof(num), "%lld", k->o.linger_ms);
		if (kconf_set(conf, "linger.ms", num, t->err,
		    sizeof(t->err)) == -1)
			goto wait_conf;
	}
	if (k->o.batch_bytes >= 0) {
		snprintf(num, sizeof(num), "%lld", k->o.batch_bytes);
		if (kconf_set(conf, "batch.size", num, t->err,
		    sizeof(t->err)) == -1)
			goto wait_conf;
	}
	if ((rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, e, sizeof(e))) == NULL) {
		snprintf(t->err, sizeof(t->err), "producer: %s", e);
		goto wait_conf;
	}
	conf = NULL;
	if ((t->sent_ns = calloc(k->o.count / KB_SAMPLE + 2,
	    sizeof(*t->sent_ns))) == NULL) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		goto wait;
	}
	if (k->o.txn_records > 0 && (ktxn(t, rk, KTXN_INIT) == -1 ||
	    ktxn(t, rk, KTXN_BEGIN) == -1))
		goto wait;
	/* The warm-up message learns the topic before the clock starts. */
	if (kproduce(t, rk, 0) == -1)
		goto wait;
	if (k->o.txn_records > 0 && ktxn(t, rk, KTXN_COMMIT) == -1)
		goto wait;
	rd_kafka_flush(rk, 10000);
	if (atomic_load(&t->delivered) != 1) {
		if (t->err[0] == '\0')
			snprintf(t->err, sizeof(t->err), "first message: not "
			    "delivered in 10 s");
		goto wait;
	}
	atomic_store(&t->delivered, 0);
	/*
	 * The wire figure counts from here (a statistics callback after
	 * the warm-up, taken before the clock starts).
	 */
	w0 = ktx_bytes(t, rk);
	t->ok = 1;
	goto wait;
wait_conf:
	if (conf != NULL)
		rd_kafka_conf_destroy(conf);
wait:
	pthread_barrier_wait(&k->start);
	if (!t->ok)
		goto out;
	t->ok = 0;
	for (i = 1; i <= k->o.count; i++) {
		t0 = now_ns();
		/* Two clock reads per message would cost a tenth of the rate. */
		if (i % KB_SAMPLE == 0)
			t->sent_ns[i / KB_SAMPLE] = t0;
		if (k->o.txn_records > 0 &&
		    (i - 1) % (uint64_t)k->o.txn_records == 0 &&
		    ktxn(t, rk, KTXN_BEGIN) == -1)
			goto out;
		if (kproduce(t, rk, i) == -1)
			goto out;
		/* The commit flushes the transaction's messages. */
		if (k->o.txn_records > 0 &&
		    (i % (uint64_t)k->o.txn_records == 0 || i == k->o.count) &&
		    ktxn(t, rk, KTXN_COMMIT) == -1)
			goto out;
		if (k->o.mode == KB_SYNC) {
			/* The report, and nothing else, ends the round trip. */
			while (atomic_load(&t->delivered) + t->failed < i)
				rd_kafka_poll(rk, KB_POLL_MS);
			bench_hist_add(&t->hist, now_ns() - t0);
		} else if ((i & 1023) == 0)
			rd_kafka_poll(rk, 0);
	}
	/* Every report is in when nothing is left queued or in flight. */
	while (rd_kafka_outq_len(rk) > 0)
		rd_kafka_poll(rk, KB_POLL_MS);
	t->msgs = atomic_load(&t->delivered);
	t->bytes = t->msgs * k->o.size;
	t->ok = t->failed == 0 && t->msgs == k->o.count;
	/* The clock stops here; the statistics' wait is outside it. */
	t->end_ns = now_ns();
	if (w0 >= 0 && (tx = ktx_bytes(t, rk)) >= w0)
		t->wire = tx - w0;
out:
	if (rk != NULL) {
		rd_kafka_flush(rk, 10000);
		rd_kafka_destroy(rk);
	}
	return NULL;
}

static void	on_commit(rd_kafka_t *, rd_kafka_resp_err_t,
		    rd_kafka_topic_partition_list_t *, void *);

/* A consumer (consume, group), its librdkafka logs on stderr. */
static rd_kafka_t *
kconsumer_new(struct kthread *t, const char *group)
{
	rd_kafka_conf_t *conf;
	rd_kafka_t *rk;
	char e[256], num[32];

	if ((conf = kconf_new(t->k, t->err, sizeof(t->err))) == NULL)
		return NULL;
	if (kconf_set(conf, "enable.auto.commit", "false", t->err,
	    sizeof(t->err)) == -1 || kconf_set(conf, "auto.offset.reset",
	    "earliest", t->err, sizeof(t->err)) == -1 ||
	    /* A partition's end is an event: the bench knows it is done. */
	    kconf_set(conf, "enable.partition.eof", "true", t->err,
	    sizeof(t->err)) == -1 ||
	    (group != NULL && kconf_set(conf, "group.id", group, t->err,
	    sizeof(t->err)) == -1)) {
		rd_kafka_conf_destroy(conf);
		return NULL;
	}
	/*
	 * A group member: commits are answered to on_commit().  A member
	 * that joins after the first rebalance (the broker's
	 * group_initial_rebalance_delay_ms is 100 ms in make bench) gets
	 * its share once the others learn of the rebalance from a
	 * heartbeat: every KB_HEARTBEAT_MS, not the 3 s default, which is
	 * most of a run.
	 */
	if (t->k->o.mode == KB_GROUP && group != NULL) {
		rd_kafka_conf_set_offset_commit_cb(conf, on_commit);
		rd_kafka_conf_set_opaque(conf, t);
		snprintf(num, sizeof(num), "%d", KB_HEARTBEAT_MS);
		if (kconf_set(conf, "heartbeat.interval.ms", num, t->err,
		    sizeof(t->err)) == -1) {
			rd_kafka_conf_destroy(conf);
			return NULL;
		}
	}
	if ((rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, e, sizeof(e))) == NULL) {
		snprintf(t->err, sizeof(t->err), "consumer: %s", e);
		rd_kafka_conf_destroy(conf);
		return NULL;
	}
	rd_kafka_poll_set_consumer(rk);
	return rk;
}

/*
 * consume: partitions idx, idx + conns, ... from their start, until this
 * thread has read what they held when the run began.
 */
static void *
consumer_main(void *arg)
{
	struct kthread *t = arg;
	struct kb *k = t->k;
	rd_kafka_topic_partition_list_t *l = NULL;
	rd_kafka_message_t *m;
	rd_kafka_resp_err_t e;
	rd_kafka_t *rk = NULL;
	rd_kafka_queue_t *q = NULL;
	rd_kafka_message_t *ms[KB_BATCH];
	uint64_t want = 0, moved;
	ssize_t got, j;
	int32_t p;

	if ((l = rd_kafka_topic_partition_list_new(k->partitions)) == NULL)
		goto wait;
	for (p = t->idx; p < k->partitions; p += k->o.conns) {
		rd_kafka_topic_partition_list_add(l, k->o.topic, p)->offset =
		    k->lo[p];
		want += (uint64_t)(k->hi[p] - k->lo[p]);
	}
	t->ok = 1;
wait:
	pthread_barrier_wait(&k->start);
	if (!t->ok)
		goto out;
	t->ok = 0;
	/*
	 * Connecting is inside the clock: librdkafka connects lazily, and
	 * flume-bench consume's first fetch is timed too.
	 */
	/*
	 * librdkafka's assign() wants a group.id even though the offsets
	 * are given and nothing is committed.
	 */
	if ((rk = kconsumer_new(t, "flume-kbench-assign")) == NULL)
		goto out;
	if ((e = rd_kafka_assign(rk, l)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		snprintf(t->err, sizeof(t->err), "assign: %s",
		    rd_kafka_err2str(e));
		goto out;
	}
	/*
	 * Batches off the consumer queue: one lock and one clock read per
	 * KB_BATCH messages instead of per message, the fastest way
	 * librdkafka hands messages to an application.
	 */
	if ((q = rd_kafka_queue_get_consumer(rk)) == NULL) {
		snprintf(t->err, sizeof(t->err), "no consumer queue");
		goto out;
	}
	moved = now_ns();
	while (t->msgs < want && !atomic_load(&k->stop)) {
		if ((got = rd_kafka_consume_batch_queue(q, KB_POLL_MS, ms,
		    KB_BATCH)) <= 0) {
			if (now_ns() - moved > KB_STALL_NS) {
				snprintf(t->err, sizeof(t->err),
				    "consume: nothing for 30 s");
				break;
			}
			continue;
		}
		moved = now_ns();
		for (j = 0; j < got; j++) {
			m = ms[j];
			if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
				/* -n: a partition's share ends at hi[p]. */
				if (m->partition >= 0 &&
				    m->partition < k->partitions &&
				    m->offset < k->hi[m->partition]) {
					t->msgs++;
					t->bytes += m->len;
				}
			} else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF &&
			    t->err[0] == '\0')
				snprintf(t->err, sizeof(t->err), "consume: %s",
				    rd_kafka_message_errstr(m));
			rd_kafka_message_destroy(m);
		}
	}
	t->ok = t->msgs == want;
out:
	if (q != NULL)
		rd_kafka_queue_destroy(q);
	if (rk != NULL) {
		rd_kafka_consumer_close(rk);
		rd_kafka_destroy(rk);
	}
	if (l != NULL)
		rd_kafka_topic_partition_list_destroy(l);
	return NULL;
}

/* group: as flume-bench's group_advance(). */
static void
group_advance(struct kb *k, int32_t p, int64_t next)
{
	int64_t old = atomic_load(&k->gdone[p]);
	uint64_t total, now;

	if (next > k->hi[p])
		next = k->hi[p];
	while (old < next &&
	    !atomic_compare_exchange_weak(&k->gdone[p], &old, next))
		;
	if (old >= next)
		return;
	now = now_ns();
	atomic_store(&k->gmoved_ns, now);
	total = atomic_fetch_add(&k->gcommitted, (uint64_t)(next - old)) +
	    (uint64_t)(next - old);
	if (total >= k->total)
		atomic_store(&k->gend_ns, now);
}

/*
 * group: the broker acknowledged a commit (librdkafka's offset commit
 * callback, served by the member's consume call): count what each
 * partition it stored newly covers.  A commit refused by a rebalance is
 * no failure (the new owner reads on from the last commit that was
 * stored), nor is one librdkafka skipped because nothing was new.
 */
static void
on_commit(rd_kafka_t *rk, rd_kafka_resp_err_t err,
    rd_kafka_topic_partition_list_t *l, void *opaque)
{
	struct kthread *t = opaque;
	struct kb *k = t->k;
	int i;

	if (err == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS ||
	    err == RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION ||
	    err == RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID ||
	    err == RD_KAFKA_RESP_ERR__STATE ||
	    err == RD_KAFKA_RESP_ERR__NO_OFFSET ||
	    err == RD_KAFKA_RESP_ERR__DESTROY)
		return;
	if (err != RD_KAFKA_RESP_ERR_NO_ERROR || l == NULL) {
		if (t->err[0] == '\0')
			snprintf(t->err, sizeof(t->err), "commit: %s",
			    rd_kafka_err2str(err));
		t->failed++;
		return;
	}
	atomic_fetch_add(&k->gcommits, 1);
	for (i = 0; i < l->cnt; i++)
		if (l->elems[i].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
		    l->elems[i].partition >= 0 &&
		    l->elems[i].partition < k->partitions)
			group_advance(k, l->elems[i].partition,
			    l->elems[i].offset);
}

/*
 * group: commit the next offsets of the partitions this batch touched,
 * without waiting for the answer, as a throughput-minded consumer (and
 * flume-bench group) does: on_commit() counts the messages once the
 * broker stored them.  0 or -1.
 */
static int
group_commit_batch(struct kthread *t, rd_kafka_t *rk, int64_t *next,
    int *touched)
{
	struct kb *k = t->k;
	rd_kafka_topic_partition_list_t *l;
	rd_kafka_resp_err_t e;
	int32_t p;
	int rc = 0;

	if ((l = rd_kafka_topic_partition_list_new(k->partitions)) == NULL)
		return -1;
	for (p = 0; p < k->partitions; p++)
		if (touched[p])
			rd_kafka_topic_partition_list_add(l, k->o.topic,
			    p)->offset = next[p];
	/* librdkafka copies the list; the result comes to on_commit(). */
	if (l->cnt > 0 && (e = rd_kafka_commit(rk, l, 1)) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR__STATE) {
		snprintf(t->err, sizeof(t->err), "commit: %s",
		    rd_kafka_err2str(e));
		rc = -1;
	}
	rd_kafka_topic_partition_list_destroy(l);
	memset(touched, 0, (size_t)k->partitions * sizeof(*touched));
	return rc;
}

/* group: one member; the clock runs from before it subscribes. */
static void *
group_main(void *arg)
{
	struct kthread *t = arg;
	struct kb *k = t->k;
	rd_kafka_topic_partition_list_t *sub = NULL;
	rd_kafka_message_t *ms[KB_BATCH], *m;
	rd_kafka_resp_err_t e;
	rd_kafka_queue_t *q = NULL;
	rd_kafka_t *rk = NULL;
	int64_t *next;
	int *touched, end, fail;
	long long inbatch = 0;
	uint64_t moved;
	ssize_t got, j;

	next = calloc((size_t)k->partitions, sizeof(*next));
	touched = calloc((size_t)k->partitions, sizeof(*touched));
	if (next == NULL || touched == NULL)
		snprintf(t->err, sizeof(t->err), "out of memory");
	else
		t->ok = 1;
	pthread_barrier_wait(&k->start);
	if (!t->ok)
		goto out;
	t->ok = 0;
	if ((rk = kconsumer_new(t, k->o.group)) == NULL)
		goto stop;
	if ((q = rd_kafka_queue_get_consumer(rk)) == NULL) {
		snprintf(t->err, sizeof(t->err), "no consumer queue");
		goto stop;
	}
	sub = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(sub, k->o.topic, RD_KAFKA_PARTITION_UA);
	if ((e = rd_kafka_subscribe(rk, sub)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		snprintf(t->err, sizeof(t->err), "subscribe: %s",
		    rd_kafka_err2str(e));
		goto stop;
	}
	while (!atomic_load_explicit(&k->stop, memory_order_relaxed) &&
	    atomic_load(&k->gcommitted) < k->total) {
		/*
		 * Up to KB_BATCH messages per call, one lock and one wake-up
		 * for all of them; the same call serves the commit callbacks
		 * and the rebalances.
		 */
		got = rd_kafka_consume_batch_queue(q, KB_GROUP_POLL_MS, ms,
		    KB_BATCH);
		if (got < 0) {
			snprintf(t->err, sizeof(t->err), "consume: %s",
			    rd_kafka_err2str(rd_kafka_last_error()));
			goto stop;
		}
		fail = 0;
		for (j = 0; j < got; j++) {
			m = ms[j];
			if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR &&
			    m->partition >= 0 && m->partition < k->partitions) {
				t->msgs++;
				t->bytes += m->len;
				next[m->partition] = m->offset + 1;
				touched[m->partition] = 1;
				inbatch++;
			} else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF &&
			    t->err[0] == '\0')
				snprintf(t->err, sizeof(t->err), "consume: %s",
				    rd_kafka_message_errstr(m));
			/*
			 * A batch is -m messages, or what came before a
			 * partition's end (enable.partition.eof) or a call
			 * that found nothing.
			 */
			end = inbatch >= k->o.commit_every ||
			    m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF;
			rd_kafka_message_destroy(m);
			if (end && !fail &&
			    group_commit_batch(t, rk, next, touched) == -1)
				fail = 1;	/* the rest are still destroyed */
			if (end)
				inbatch = 0;
		}
		if (fail)
			goto stop;
		if (got > 0)
			continue;
		if (inbatch > 0) {
			if (group_commit_batch(t, rk, next, touched) == -1)
				goto stop;
			inbatch = 0;
		}
		/* The last move is read before the clock (kbench_stalled()). */
		moved = atomic_load(&k->gmoved_ns);
		if (kbench_stalled(moved, now_ns(), KB_STALL_NS)) {
			snprintf(t->err, sizeof(t->err), "group: no commit "
			    "moved for 30 s");
			goto stop;
		}
	}
	t->ok = t->failed == 0;
	if (t->ok)
		t->err[0] = '\0';	/* errors the run recovered from */
	goto out;
stop:
	atomic_store(&k->stop, 1);
out:
	if (sub != NULL)
		rd_kafka_topic_partition_list_destroy(sub);
	if (q != NULL)
		rd_kafka_queue_destroy(q);
	if (rk != NULL) {
		rd_kafka_consumer_close(rk);
		rd_kafka_destroy(rk);
	}
	free(next);
	free(touched);
	return NULL;
}

/*
 * host:port of the first bootstrap server into a connected socket, or
 * -1 with the reason in err.
 */
static int
kprobe_connect(const char *broker, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL, *ai;
	char first[300], *colon;
	int fd = -1, rc;

	/* The first of a comma-separated list, split at its last colon. */
	if (strlen(broker) >= sizeof(first)) {
		snprintf(err, errlen, "broker address too long");
		return -1;
	}
	memcpy(first, broker, strlen(broker) + 1);
	first[strcspn(first, ",")] = '\0';
	if ((colon = strrchr(first, ':')) == NULL || colon == first ||
	    colon[1] == '\0') {
		snprintf(err, errlen, "%.200s: not host:port", first);
		return -1;
	}
	*colon = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(first, colon + 1, &hints, &res)) != 0) {
		snprintf(err, errlen, "%s: %s", broker, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL && fd == -1; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    0)) == -1)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd == -1)
		snprintf(err, errlen, "%s: %s", broker, strerror(errno));
	return fd;
}

/* Read exactly len bytes by the deadline; 0 or -1. */
static int
kprobe_read(int fd, uint8_t *buf, size_t len, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	size_t off = 0;
	uint64_t now;

	while (off < len) {
		if ((now = now_ns()) >= deadline ||
		    poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			return -1;
		if ((n = read(fd, buf + off, len - off)) <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/*
 * Does the broker serve consumer groups?  1, 0, or -1 with the reason
 * in err (no answer).
 */
static int
kprobe_groups(const char *broker, char *err, size_t errlen)
{
	uint8_t req[64], hdr[4], *resp = NULL;
	uint64_t deadline = now_ns() + KB_PROBE_MS * 1000000ull;
	uint32_t len;
	int fd, n, rc = -1;

	if ((fd = kprobe_connect(broker, err, errlen)) == -1)
		return -1;
	n = kbench_apiversions_req(req, sizeof(req), 1);
	if (n < 0 || write(fd, req, (size_t)n) != n ||
	    kprobe_read(fd, hdr, 4, deadline) == -1) {
		snprintf(err, errlen, "%s: no ApiVersions answer", broker);
		goto done;
	}
	len = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 |
	    (uint32_t)hdr[2] << 8 | hdr[3];
	if (len > 1 << 20 || (resp = malloc(len > 0 ? len : 1)) == NULL ||
	    kprobe_read(fd, resp, len, deadline) == -1 ||
	    (rc = kbench_groups_served(resp, len, 1)) == -1) {
		snprintf(err, errlen, "%s: bad ApiVersions answer", broker);
		rc = -1;
	}
done:
	free(resp);
	close(fd);
	return rc;
}

/*
 * The topic's partition count and (consume, group) each partition's
 * offsets now; 0 or -1.
 */
static int
kb_prepare(struct kb *k)
{
	struct kthread t;
	rd_kafka_t *rk;
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_topic_t *rkt;
	rd_kafka_resp_err_t e;
	int32_t p;
	int rc = -1;

	memset(&t, 0, sizeof(t));
	t.k = k;
	if ((rk = kconsumer_new(&t, NULL)) == NULL) {
		fprintf(stderr, "flume-kbench: %s\n", t.err);
		return -1;
	}
	rkt = rd_kafka_topic_new(rk, k->o.topic, NULL);
	if ((e = rd_kafka_metadata(rk, 0, rkt, &md, 10000)) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR || md->topic_cnt != 1 ||
	    md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fprintf(stderr, "flume-kbench: %s: %s\n", k->o.topic,
		    rd_kafka_err2str(e != RD_KAFKA_RESP_ERR_NO_ERROR ? e :
		    md->topic_cnt != 1 ? RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC :
		    md->topics[0].err));
		goto done;
	}
	k->partitions = md->topics[0].partition_cnt;
	k->lo = calloc((size_t)k->partitions, sizeof(*k->lo));
	k->hi = calloc((size_t)k->partitions, sizeof(*k->hi));
	k->gdone = calloc((size_t)k->partitions, sizeof(*k->gdone));
	if (k->lo == NULL || k->hi == NULL || k->gdone == NULL) {
		fprintf(stderr, "flume-kbench: out of memory\n");
		goto done;
	}
	for (p = 0; p < k->partitions; p++) {
		if ((e = rd_kafka_query_watermark_offsets(rk, k->o.topic, p,
		    &k->lo[p], &k->hi[p], 10000)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
			fprintf(stderr, "flume-kbench: %s/%d: %s\n", k->o.topic,
			    (int)p, rd_kafka_err2str(e));
			goto done;
		}
		atomic_init(&k->gdone[p], k->lo[p]);
		k->total += (uint64_t)(k->hi[p] - k->lo[p]);
	}
	rc = 0;
done:
	if (md != NULL)
		rd_kafka_metadata_destroy(md);
	rd_kafka_topic_destroy(rkt);
	rd_kafka_destroy(rk);
	return rc;
}

/* consume -n: take the first n messages, partition by partition. */
static void
kb_limit(struct kb *k)
{
	uint64_t left = k->o.count, n;
	int32_t p;

	for (p = 0; p < k->partitions; p++) {
		n = (uint64_t)(k->hi[p] - k->lo[p]);
		if (n > left)
			n = left;
		k->hi[p] = k->lo[p] + (int64_t)n;
		left -= n;
	}
	k->total = k->o.count - left;
}

static int
kb_run(struct kb *k)
{
	struct kthread *ts;
	struct bench_hist *all;
	struct bench_result r;
	pthread_t *tids;
	void *(*fn)(void *);
	uint64_t t0, t1;
	char out[1024];
	int nthreads, i, rc = 1;

	nthreads = k->o.mode == KB_PRODUCE || k->o.mode == KB_SYNC ? 1 :
	    k->o.conns;
	fn = k->o.mode == KB_CONSUME ? consumer_main : k->o.mode == KB_GROUP ?
	    group_main : producer_main;
	ts = calloc((size_t)nthreads, sizeof(*ts));
	tids = calloc((size_t)nthreads, sizeof(*tids));
	all = malloc(sizeof(*all));
	if (ts == NULL || tids == NULL || all == NULL) {
		fprintf(stderr, "flume-kbench: out of memory\n");
		goto done;
	}
	bench_hist_init(all);
	pthread_barrier_init(&k->start, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		ts[i].k = k;
		ts[i].idx = i;
		ts[i].wire = -1;
		bench_hist_init(&ts[i].hist);
		if (pthread_create(&tids[i], NULL, fn, &ts[i]) != 0) {
			/* Those started wait at a barrier that cannot complete. */
			fprintf(stderr, "flume-kbench: cannot start %d threads\n",
			    nthreads);
			_exit(1);
		}
	}
	pthread_barrier_wait(&k->start);
	t0 = now_ns();
	atomic_store(&k->gmoved_ns, t0);
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	t1 = now_ns();
	pthread_barrier_destroy(&k->start);
	if (k->na != NULL) {
		/* Not a failure of the benchmark: a row it cannot fill. */
		printf(k->o.json ? "{\"mode\":\"%s\",\"na\":\"%s\"}\n" :
		    "%s: n/a (%s)\n", k->o.mode_name, k->na);
		rc = KB_EXIT_NA;
		goto done;
	}

	memset(&r, 0, sizeof(r));
	r.mode = k->o.mode_name;
	r.wire_bytes = -1;
	rc = 0;
	for (i = 0; i < nthreads; i++) {
		if (ts[i].err[0] != '\0')
			fprintf(stderr, "flume-kbench: %s\n", ts[i].err);
		if (!ts[i].ok)
			rc = 1;
		r.msgs += ts[i].msgs;
		r.bytes += ts[i].bytes;
		r.failed += ts[i].failed;
		bench_hist_merge(all, &ts[i].hist);
	}
	if (k->o.mode == KB_GROUP) {
		/* Distinct messages, timed to the commit that covered the last. */
		if (atomic_load(&k->gend_ns) > t0)
			t1 = atomic_load(&k->gend_ns);
		r.commits = atomic_load(&k->gcommits);
		if (r.msgs > atomic_load(&k->gcommitted))
			r.redelivered = r.msgs - atomic_load(&k->gcommitted);
		r.msgs = atomic_load(&k->gcommitted);
		r.bytes = r.msgs * k->o.size;
		if (r.msgs != k->total)
			rc = 1;
	}
	if (k->o.mode == KB_CONSUME && r.msgs != k->total)
		rc = 1;
	if ((k->o.mode == KB_PRODUCE || k->o.mode == KB_SYNC) &&
	    ts[0].end_ns > t0) {
		t1 = ts[0].end_ns;
		r.wire_bytes = ts[0].wire;
	}
	r.seconds = (double)(t1 - t0) / 1e9;
	if ((k->o.mode == KB_PRODUCE || k->o.mode == KB_SYNC) && k->o.acks != 0)
		r.lat = all;
	if (k->o.json)
		bench_json(out, sizeof(out), &r);
	else
		bench_summary(out, sizeof(out), &r);
	fputs(out, stdout);
done:
	for (i = 0; ts != NULL && i < nthreads; i++)
		free(ts[i].sent_ns);
	free(ts);
	free(tids);
	free(all);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct kb *k;
	char err[300], gname[64];
	size_t i;
	uint32_t x = 0x9e3779b9u;
	int rc;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		return 1;
	switch (kbench_parse(argc, argv, &k->o, err, sizeof(err))) {
	case KBENCH_RUN:
		break;
	case KBENCH_HELP:
		fputs(kbench_usage, stdout);
		free(k);
		return 0;
	case KBENCH_VERSION:
		flume_tool_version("flume-kbench");
		free(k);
		return 0;
	default:
		fprintf(stderr, "flume-kbench: %s\n%s", err, kbench_usage);
		free(k);
		return 2;
	}
	if (k->o.mode == KB_GROUP && kbench_tls()) {
		fprintf(stderr, "flume-kbench: group: FLUME_TLS is not "
		    "supported (its probe is plaintext)\n");
		free(k);
		return 2;
	}
	if (k->o.mode == KB_GROUP) {
		if ((rc = kprobe_groups(k->o.broker, err, sizeof(err))) == -1) {
			fprintf(stderr, "flume-kbench: %s\n", err);
			free(k);
			return 1;
		}
		if (rc == 0) {
			/* Not a failure of the benchmark: a row it cannot fill. */
			printf(k->o.json ? "{\"mode\":\"group\",\"na\":"
			    "\"groups not served\"}\n" :
			    "group: n/a (groups not served)\n");
			free(k);
			return KB_EXIT_NA;
		}
		if (k->o.group == NULL) {
			snprintf(gname, sizeof(gname), "flume-kbench-%ld",
			    (long)getpid());
			k->o.group = gname;
		}
	}
	if ((k->value = malloc(k->o.size > 0 ? k->o.size : 1)) == NULL) {
		free(k);
		return 1;
	}
	/* The same filler as flume-bench's. */
	for (i = 0; i < k->o.size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		k->value[i] = (uint8_t)(' ' + x % 95);
	}
	rc = 1;
	if (k->o.mode == KB_PRODUCE || k->o.mode == KB_SYNC)
		rc = kb_run(k);
	else if (kb_prepare(k) == 0) {
		if (k->o.mode == KB_CONSUME && k->o.count < k->total)
			kb_limit(k);
		if (k->o.mode == KB_CONSUME && k->o.conns > k->partitions)
			k->o.conns = k->partitions;
		if (k->total == 0)
			fprintf(stderr, "flume-kbench: %s is empty: produce to "
			    "it first\n", k->o.topic);
		else
			rc = kb_run(k);
	}
	free(k->lo);
	free(k->hi);
	free(k->gdone);
	free(k->value);
	free(k);
	return rc;
}
