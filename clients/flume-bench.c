/*
 * flume-bench: measure a Flume broker through libflume, in the spirit of
 * kafka-producer-perf-test.
 *
 *   produce  COUNT messages as fast as the producer batches them; rate
 *            and acknowledgement latency (flume_produce() to its report);
 *            the values are handed over without a copy (flume_produce_ref:
 *            each thread's value buffer never changes), --copy copies them
 *   consume  COUNT messages from the beginning of the topic; rate
 *   e2e      produce and consume at once; the end-to-end latency of each
 *            message (its send time travels in its first 8 value bytes)
 *   sync     one message per request, waiting for each acknowledgement
 *   group    a consumer group of -c members reads the topic to its end,
 *            marking and committing what it processed after every batch
 *            of -m messages (1000: what the peers' group reads take)
 *
 * Each connection (-c) is its own thread with its own client, so threads
 * share nothing but counters read by the progress line.  A progress line
 * goes to stderr once a second when stderr is a terminal; the summary (or
 * with -J one JSON object) goes to stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clients/bench_stats.h"
#include "clients/flume.h"
#include "clients/flume_tool.h"

#define BENCH_MAX_CONNS		64
#define BENCH_IDLE_POLLS	5	/* consume: empty 1 s polls at the end */
/*
 * e2e: producers stay at most this many value bytes ahead of the
 * consumer, so the latency measured is that of a rate the consumer
 * sustains, not the age of a backlog that grows for as long as the run.
 */
/* produce: the acknowledgement latency of every this many messages. */
#define PRODUCE_SAMPLE		8
#define E2E_WINDOW_BYTES	(512 * 1024)
/* group: a member's poll timeout, so it sees the run end promptly. */
#define GROUP_POLL_MS		100
#define GROUP_BATCH		1000	/* -m default */
/* group: no commit moved the group for this long: give up. */
#define GROUP_STALL_NS		(30ull * 1000000000u)

enum bench_mode { MODE_PRODUCE, MODE_CONSUME, MODE_E2E, MODE_SYNC, MODE_GROUP };

struct bench {
	enum bench_mode	 mode;
	const char	*mode_name;
	const char	*broker;
	const char	*topic;
	uint64_t	 count;
	size_t		 size;
	int32_t		 partitions;	/* the topic's, once known */
	int		 conns;
	long long	 batch_bytes;	/* -1: library default */
	long long	 linger_ms;	/* -1: library default */
	long long	 buffer_bytes;	/* -1: library default */
	long long	 window_bytes;	/* e2e: -W, default E2E_WINDOW_BYTES */
	int		 acks;
	int		 compression;	/* -z, FLUME_COMPRESSION_* */
	int		 json;
	int		 copy;		/* --copy: flume_produce, not _ref */
	uint8_t		*value;		/* size bytes of filler */
	pthread_barrier_t start;
	_Atomic uint64_t done;		/* messages acknowledged / consumed */
	/* e2e flow control: messages produced and consumed so far. */
	_Atomic uint64_t e2e_sent, e2e_seen;
	uint64_t	 e2e_window;	/* messages */
	_Atomic int	 e2e_waiting;
	pthread_mutex_t	 e2e_mu;
	pthread_cond_t	 e2e_cv;
	_Atomic uint64_t failed;
	_Atomic int	 stop;		/* a thread failed: everyone stops */
	/*
	 * group: per partition the log's start and end when the run began,
	 * and the highest offset committed so far; the run ends when the
	 * commits cover every message (gcommitted == gtotal), which is the
	 * count of distinct messages however often a rebalance handed one
	 * out again.
	 */
	const char	*group;
	long long	 gbatch;	/* messages per commit */
	int64_t		*gstart, *gend;
	_Atomic int64_t	*gdone;
	uint64_t	 gtotal;
	_Atomic uint64_t gcommitted;
	_Atomic uint64_t gcommits;
	_Atomic uint64_t gend_ns;	/* when gcommitted reached gtotal */
	_Atomic uint64_t gmoved_ns;	/* when a commit last moved the group */
};

/* One connection's thread. */
struct bthread {
	struct bench	*b;
	int		 idx;
	int		 consumer;	/* e2e: the consuming thread */
	uint64_t	 n;		/* messages this thread sends */
	struct flume_client *c;
	struct bench_hist hist;
	uint64_t	*sent_ns;	/* send time by seq & wmask */
	uint64_t	*sent_seq;
	uint64_t	 wmask;
	uint64_t	 msgs, bytes, wire;
	uint64_t	 last_ns;	/* when the last message was consumed */
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

static void
usage(FILE *f)
{
	fprintf(f, "usage: flume-bench produce|consume|e2e|sync -t topic "
	    "[-J] [-a 0|1|all] [-B batch_bytes]\n"
	    "                   [-b host:port] [-c connections] "
	    "[-l linger_ms] [-M buffer_bytes]\n"
	    "                   [-n count] [-P partitions] [-s size] "
	    "[-W window_bytes]\n"
	    "                   [-z gzip|snappy|lz4|zstd|none] [--copy]\n"
	    "       flume-bench group -t topic [-J] [-b host:port] "
	    "[-c members] [-g group]\n"
	    "                   [-m messages_per_commit]\n"
	    "       flume-bench -h | --help | -V | --version\n");
}

static void
bthread_fail(struct bthread *t, const char *what)
{
	snprintf(t->err, sizeof(t->err), "%s: %s", what, flume_errstr(t->c));
	atomic_store(&t->b->stop, 1);
}

/* Delivery report: count it, and its latency when the send time is known. */
static void
on_delivery(const struct flume_delivery *d, void *arg)
{
	struct bthread *t = arg;
	uint64_t i = d->seq & t->wmask;

	if (d->error != 0) {
		atomic_fetch_add_explicit(&t->b->failed, 1, memory_order_relaxed);
		return;
	}
	if (t->sent_seq != NULL && t->sent_seq[i] == d->seq)
		bench_hist_add(&t->hist, now_ns() - t->sent_ns[i]);
	atomic_fetch_add_explicit(&t->b->done, 1, memory_order_relaxed);
}

/*
 * A window of send times as large as the producer can have messages
 * unreported: its buffer, every partition's open batch and a request,
 * over the smallest record.
 */
static int
bthread_window(struct bthread *t, const struct flume_producer_conf *pc)
{
	uint64_t need, cap = 1024;

	need = (pc->buffer_bytes + (uint64_t)t->b->partitions * pc->batch_bytes +
	    2 * pc->max_request_bytes) / (t->b->size + 8) + 1024;
	while (cap < need && cap < (1u << 26))
		cap <<= 1;
	t->sent_ns = calloc(cap, sizeof(*t->sent_ns));
	t->sent_seq = calloc(cap, sizeof(*t->sent_seq));
	if (t->sent_ns == NULL || t->sent_seq == NULL)
		return -1;
	memset(t->sent_seq, 0xff, cap * sizeof(*t->sent_seq));
	t->wmask = cap - 1;
	return 0;
}

static void
bench_producer_conf(const struct bench *b, struct flume_producer_conf *pc)
{
	flume_producer_conf_init(pc);
	pc->acks = b->acks;
	pc->compression = b->compression;
	if (b->batch_bytes >= 0)
		pc->batch_bytes = (size_t)b->batch_bytes;
	if (b->linger_ms >= 0)
		pc->linger_ms = (int)b->linger_ms;
	/* Requests as large as batches allow, so many fit in flight. */
	if (pc->max_request_bytes < pc->batch_bytes * 4)
		pc->max_request_bytes = pc->batch_bytes * 4;
	if (b->buffer_bytes >= 0)
		pc->buffer_bytes = (size_t)b->buffer_bytes;
	if (b->mode == MODE_SYNC) {
		pc->linger_ms = 0;
		pc->max_inflight = 1;
	}
}

/*
 * e2e: wait (making progress on the producer meanwhile) while the
 * consumer is a window or more behind.
 */
static void
e2e_throttle(struct bench *b, struct flume_producer *p)
{
	struct timespec ts;

	atomic_fetch_add_explicit(&b->e2e_sent, 1, memory_order_relaxed);
	while (atomic_load_explicit(&b->e2e_sent, memory_order_relaxed) -
	    atomic_load_explicit(&b->e2e_seen, memory_order_relaxed) >
	    b->e2e_window && !atomic_load(&b->stop)) {
		(void)flume_producer_poll(p, 0);
		pthread_mutex_lock(&b->e2e_mu);
		atomic_store(&b->e2e_waiting, 1);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (atomic_load(&b->e2e_sent) - atomic_load(&b->e2e_seen) >
		    b->e2e_window)
			(void)pthread_cond_timedwait(&b->e2e_cv, &b->e2e_mu, &ts);
		pthread_mutex_unlock(&b->e2e_mu);
	}
}

/* e2e: the consumer saw n more messages; wake a waiting producer. */
static void
e2e_seen(struct bench *b, uint64_t n)
{
	atomic_fetch_add(&b->e2e_seen, n);
	if (atomic_load(&b->e2e_waiting) &&
	    atomic_exchange(&b->e2e_waiting, 0)) {
		pthread_mutex_lock(&b->e2e_mu);
		pthread_cond_broadcast(&b->e2e_cv);
		pthread_mutex_unlock(&b->e2e_mu);
	}
}

/*
 * Queue one message of val.  produce and sync hand the value over
 * (flume_produce_ref): val stays as it is until the last flush.  e2e
 * writes each message's send time into val, so it copies, as --copy does.
 */
static int
bench_produce(const struct bench *b, struct flume_producer *p, int32_t part,
    const uint8_t *val, uint64_t *seq)
{
	if (b->copy || b->mode == MODE_E2E)
		return flume_produce(p, b->topic, part, NULL, -1, val,
		    (int32_t)b->size, seq);
	return flume_produce_ref(p, b->topic, part, NULL, -1, val,
	    (int32_t)b->size, seq);
}

/* produce, sync and the producing side of e2e. */
static void *
producer_main(void *arg)
{
	struct bthread *t = arg;
	struct bench *b = t->b;
	struct flume_producer_conf pc;
	struct flume_producer *p = NULL;
	uint8_t *val = NULL;
	uint64_t i, seq, w0 = 0, t0;
	int sample;

	bench_producer_conf(b, &pc);
	pc.on_delivery = on_delivery;
	pc.on_delivery_arg = t;
	if ((val = malloc(b->size > 0 ? b->size : 1)) == NULL) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		goto wait;
	}
	memcpy(val, b->value, b->size);
	/* e2e: a zero send time marks the warm-up message for the consumer. */
	if (b->mode == MODE_E2E)
		memset(val, 0, 8);
	if ((p = flume_producer_new(t->c, &pc)) == NULL) {
		bthread_fail(t, "producer");
		goto wait;
	}
	if (b->acks != 0 && b->mode != MODE_E2E && bthread_window(t, &pc) == -1) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		goto wait;
	}
	/* Learn the topic before the clock starts (an empty flush). */
	if (bench_produce(b, p, 0, val, &seq) == -1 ||
	    flume_producer_flush(p, -1) == -1) {
		bthread_fail(t, "first message");
		goto wait;
	}
	atomic_fetch_sub_explicit(&b->done, 1, memory_order_relaxed);
	w0 = flume_client_bytes_out(t->c);
	t->ok = 1;
wait:
	pthread_barrier_wait(&b->start);
	if (!t->ok || atomic_load(&b->stop))
		goto out;
	t->ok = 0;
	for (i = 0; i < t->n; i++) {
		if ((i & 1023) == 0 && atomic_load_explicit(&b->stop,
		    memory_order_relaxed))
			goto out;
		if (b->mode == MODE_E2E)
			e2e_throttle(b, p);
		/* Two clock reads per message would cost a tenth of the rate. */
		sample = b->mode != MODE_PRODUCE || (i & (PRODUCE_SAMPLE - 1)) == 0;
		t0 = sample ? now_ns() : 0;
		if (b->mode == MODE_E2E)
			memcpy(val, &t0, 8);
		if (bench_produce(b, p, FLUME_PARTITION_ANY, val, &seq) == -1) {
			bthread_fail(t, "produce");
			goto out;
		}
		if (t->sent_seq != NULL && sample) {
			t->sent_seq[seq & t->wmask] = seq;
			t->sent_ns[seq & t->wmask] = t0;
		}
		if (b->mode == MODE_SYNC &&
		    flume_producer_flush(p, -1) == -1 &&
		    flume_producer_pending(p) > 0) {
			bthread_fail(t, "produce");
			goto out;
		}
	}
	if (flume_producer_flush(p, -1) == -1 && flume_producer_failed(p) == 0) {
		bthread_fail(t, "flush");
		goto out;
	}
	t->msgs = t->n;
	t->bytes = t->n * b->size;
	t->wire = flume_client_bytes_out(t->c) - w0;
	t->ok = 1;
out:
	flume_producer_free(p);
	free(val);
	return NULL;
}

/* consume and the consuming side of e2e: partitions idx, idx + conns, ... */
static void *
consumer_main(void *arg)
{
	struct bthread *t = arg;
	struct bench *b = t->b;
	struct flume_consumer *k = NULL;
	struct flume_message m;
	uint64_t sent, now, local = 0;
	int32_t pi;
	int rc, idle = 0, nconsumers = b->mode == MODE_E2E ? 1 : b->conns;
	int64_t start = b->mode == MODE_E2E ? FLUME_OFFSET_END :
	    FLUME_OFFSET_BEGINNING;

	if ((k = flume_consumer_new(t->c, NULL)) == NULL) {
		bthread_fail(t, "consumer");
		goto wait;
	}
	for (pi = t->consumer ? 0 : t->idx; pi < b->partitions;
	    pi += nconsumers) {
		if (flume_consumer_subscribe(k, b->topic, pi, start) == -1) {
			bthread_fail(t, "subscribe");
			goto wait;
		}
	}
	t->ok = 1;
wait:
	pthread_barrier_wait(&b->start);
	if (!t->ok || atomic_load(&b->stop))
		goto out;
	t->ok = 0;
	for (;;) {
		if ((local & 1023) == 0 && (atomic_load_explicit(&b->stop,
		    memory_order_relaxed) || (b->mode == MODE_CONSUME &&
		    atomic_load_explicit(&b->done, memory_order_relaxed) >=
		    b->count)))
			break;
		if (t->msgs >= b->count)
			break;
		if ((rc = flume_consumer_poll(k, &m, 1000)) == -1) {
			bthread_fail(t, "consume");
			goto out;
		}
		if (rc == 0) {
			/* consume: the log's end; e2e: producers may be slow. */
			if ((b->mode == MODE_CONSUME && flume_consumer_at_end(k)) ||
			    ++idle >= BENCH_IDLE_POLLS * (b->mode == MODE_E2E ? 6 : 1))
				break;
			continue;
		}
		idle = 0;
		if (b->mode == MODE_E2E) {
			if (m.value_len < 8)
				continue;
			memcpy(&sent, m.value, 8);
			if (sent == 0)
				continue;	/* a producer's warm-up message */
			now = now_ns();
			if (now >= sent)
				bench_hist_add(&t->hist, now - sent);
			t->last_ns = now;
		}
		t->msgs++;
		if (m.value_len > 0)
			t->bytes += (uint64_t)m.value_len;
		if (b->mode == MODE_E2E) {
			if (++local == 256) {
				e2e_seen(b, local);
				local = 0;
			}
		} else if (++local == 1024) {
			atomic_fetch_add_explicit(&b->done, local,
			    memory_order_relaxed);
			local = 0;
		}
	}
	if (b->mode == MODE_CONSUME)
		atomic_fetch_add_explicit(&b->done, local, memory_order_relaxed);
	else
		e2e_seen(b, local);
	t->ok = 1;
out:
	flume_consumer_free(k);
	return NULL;
}

/*
 * group: raise the group's committed offset of partition p to next (a
 * commit of this member just stored it) and count the messages that
 * newly covers.  Another member may have committed further already.
 */
static void
group_advance(struct bench *b, int32_t p, int64_t next)
{
	int64_t old = atomic_load(&b->gdone[p]);
	uint64_t total, now;

	if (next > b->gend[p])
		next = b->gend[p];	/* nothing past the end was produced */
	while (old < next &&
	    !atomic_compare_exchange_weak(&b->gdone[p], &old, next))
		;
	if (old >= next)
		return;
	now = now_ns();
	atomic_store(&b->gmoved_ns, now);
	total = atomic_fetch_add(&b->gcommitted, (uint64_t)(next - old)) +
	    (uint64_t)(next - old);
	if (total >= b->gtotal)
		atomic_store(&b->gend_ns, now);
}

/*
 * group: mark every partition this batch touched up to what was
 * processed and commit, as a consumer that finished a batch does: while
 * more is to be read, without waiting for the answer (it comes with the
 * next fetch, as a real consumer pipelines its commit), and at the end
 * of its partitions synchronously, since nothing is left to overlap it
 * with.  Messages count once the broker acknowledged the commit that
 * covers them (flume_group_committed).  A commit refused because a
 * rebalance began is no failure: the member rejoins in its next poll
 * and the new owner reads on from the last commit.
 */
static int
group_commit_batch(struct bthread *t, struct flume_group *g, int64_t *next,
    int *touched)
{
	struct bench *b = t->b;
	int64_t off;
	int32_t p;
	int any = 0, rc;

	for (p = 0; p < b->partitions; p++) {
		if (!touched[p])
			continue;
		if (flume_group_mark(g, b->topic, p, next[p]) == 0)
			any = 1;
		else if (errno != ENOENT)
			return -1;
	}
	if (any) {
		rc = flume_group_at_end(g) ? flume_group_commit(g) :
		    flume_group_commit_async(g);
		if (rc == -1 && errno != EAGAIN)
			return -1;
		if (rc == 0)
			atomic_fetch_add(&b->gcommits, 1);
	}
	for (p = 0; p < b->partitions; p++)
		if (flume_group_committed(g, b->topic, p, &off) == 0 && off >= 0)
			group_advance(b, p, off);
	memset(touched, 0, (size_t)b->partitions * sizeof(*touched));
	return 0;
}

/* group: one member; the clock runs from before its join. */
static void *
group_main(void *arg)
{
	struct bthread *t = arg;
	struct bench *b = t->b;
	struct flume_group_conf gc;
	struct flume_group *g = NULL;
	struct flume_message m;
	int64_t *next;
	int *touched;
	long long inbatch = 0;
	int rc, end;

	next = calloc((size_t)b->partitions, sizeof(*next));
	touched = calloc((size_t)b->partitions, sizeof(*touched));
	if (next == NULL || touched == NULL)
		snprintf(t->err, sizeof(t->err), "out of memory");
	else
		t->ok = 1;
	pthread_barrier_wait(&b->start);
	if (!t->ok || atomic_load(&b->stop))
		goto out;
	t->ok = 0;
	flume_group_conf_init(&gc);
	gc.start_offset = FLUME_OFFSET_BEGINNING;
	gc.auto_commit_ms = 0;		/* every commit is the batch's own */
	if ((g = flume_group_join(t->c, b->group, &b->topic, 1, &gc)) == NULL) {
		bthread_fail(t, "join");
		goto out;
	}
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed) &&
	    atomic_load(&b->gcommitted) < b->gtotal) {
		if ((rc = flume_group_poll(g, &m, GROUP_POLL_MS)) == -1) {
			bthread_fail(t, "poll");
			goto out;
		}
		if (rc == 1 && m.partition >= 0 && m.partition < b->partitions) {
			t->msgs++;
			if (m.value_len > 0)
				t->bytes += (uint64_t)m.value_len;
			next[m.partition] = m.offset + 1;
			touched[m.partition] = 1;
			inbatch++;
		}
		/*
		 * A batch is -m messages, or what came before the member
		 * reached the end of its partitions or a poll found nothing.
		 * (flume_group_buffered() does not end one: it stays 1 up to
		 * the poll that fetches the next response.)
		 */
		end = rc == 0 || inbatch >= b->gbatch || flume_group_at_end(g);
		if (end && group_commit_batch(t, g, next, touched) == -1) {
			bthread_fail(t, "commit");
			goto out;
		}
		if (end)
			inbatch = 0;
		if (rc == 0 && now_ns() - atomic_load(&b->gmoved_ns) >
		    GROUP_STALL_NS) {
			snprintf(t->err, sizeof(t->err), "group: no commit "
			    "moved for %llu s", GROUP_STALL_NS / 1000000000u);
			atomic_store(&b->stop, 1);
			goto out;
		}
	}
	t->ok = 1;
out:
	if (g != NULL && flume_group_close(g) == -1 && t->ok)
		bthread_fail(t, "leave");
	free(next);
	free(touched);
	return NULL;
}

/*
 * group: where every partition starts and ends now; the run reads all
 * of it.  0 or -1.
 */
static int
group_prepare(struct bench *b)
{
	struct flume_client *c;
	int32_t p;
	int rc = -1;

	b->gstart = calloc((size_t)b->partitions, sizeof(*b->gstart));
	b->gend = calloc((size_t)b->partitions, sizeof(*b->gend));
	b->gdone = calloc((size_t)b->partitions, sizeof(*b->gdone));
	if (b->gstart == NULL || b->gend == NULL || b->gdone == NULL) {
		fprintf(stderr, "flume-bench: out of memory\n");
		return -1;
	}
	if ((c = flume_connect(b->broker)) == NULL) {
		fprintf(stderr, "flume-bench: %s\n", flume_errstr(NULL));
		return -1;
	}
	for (p = 0; p < b->partitions; p++) {
		if (flume_list_offset(c, b->topic, p, FLUME_OFFSET_BEGINNING,
		    &b->gstart[p]) == -1 || flume_list_offset(c, b->topic, p,
		    FLUME_OFFSET_END, &b->gend[p]) == -1) {
			fprintf(stderr, "flume-bench: %s/%d: %s\n", b->topic,
			    (int)p, flume_errstr(c));
			goto done;
		}
		atomic_init(&b->gdone[p], b->gstart[p]);
		b->gtotal += (uint64_t)(b->gend[p] - b->gstart[p]);
	}
	if (b->gtotal == 0) {
		fprintf(stderr, "flume-bench: %s is empty: produce to it first\n",
		    b->topic);
		goto done;
	}
	rc = 0;
done:
	flume_close(c);
	return rc;
}

/* Create the topic with -P partitions (or find it); its partition count. */
static int
bench_topic(struct bench *b, int32_t want)
{
	struct flume_client *c;
	struct flume_metadata *md = NULL;
	int32_t created;
	int rc = -1;

	if ((c = flume_tool_connect(b->broker, NULL)) == NULL) {
		fprintf(stderr, "flume-bench: %s\n", flume_errstr(NULL));
		return -1;
	}
	if (want > 0 && flume_create_topic(c, b->topic, want, &created) == -1 &&
	    errno != EEXIST) {
		fprintf(stderr, "flume-bench: %s\n", flume_errstr(c));
		goto done;
	}
	if (flume_metadata(c, &b->topic, 1, b->mode != MODE_CONSUME &&
	    b->mode != MODE_GROUP, &md) == -1 ||
	    md->topic_count != 1 || md->topics[0].error != 0) {
		fprintf(stderr, "flume-bench: %s: %s\n", b->topic,
		    md != NULL && md->topic_count == 1 ?
		    flume_strerror(md->topics[0].error) : flume_errstr(c));
		goto done;
	}
	b->partitions = md->topics[0].partition_count;
	if (want > 0 && b->partitions != want)
		fprintf(stderr, "flume-bench: %s exists with %d partitions\n",
		    b->topic, (int)b->partitions);
	rc = 0;
done:
	flume_metadata_free(md);
	flume_close(c);
	return rc;
}

static void
progress(struct bench *b, uint64_t t0, uint64_t *last_n, uint64_t *last_t)
{
	uint64_t n = atomic_load(&b->done), t = now_ns();
	double dt = (double)(t - *last_t) / 1e9;

	if (dt <= 0)
		return;
	fprintf(stderr, "%s: %llu messages, %.1f msgs/s, %.2f MB/s, %.0f s\n",
	    b->mode_name, (unsigned long long)n, (double)(n - *last_n) / dt,
	    (double)(n - *last_n) * (double)b->size / (1024.0 * 1024.0) / dt,
	    (double)(t - t0) / 1e9);
	*last_n = n;
	*last_t = t;
}

static int
bench_run(struct bench *b)
{
	struct bthread *ts;
	struct bench_hist *all;
	struct bench_result r;
	pthread_t *tids;
	uint64_t t0, t1, last_n = 0, last_t, per;
	char out[1024];
	int nthreads, i, rc = 1, tty = isatty(2), barrier = 0;
	struct timespec tick;

	nthreads = b->conns + (b->mode == MODE_E2E ? 1 : 0);
	ts = calloc((size_t)nthreads, sizeof(*ts));
	tids = calloc((size_t)nthreads, sizeof(*tids));
	all = malloc(sizeof(*all));
	if (ts == NULL || tids == NULL || all == NULL) {
		fprintf(stderr, "flume-bench: out of memory\n");
		goto done;
	}
	bench_hist_init(all);
	pthread_barrier_init(&b->start, NULL, (unsigned)nthreads + 1);
	pthread_mutex_init(&b->e2e_mu, NULL);
	pthread_cond_init(&b->e2e_cv, NULL);
	b->e2e_window = (uint64_t)b->window_bytes / (b->size > 0 ? b->size : 1);
	if (b->e2e_window < 64)
		b->e2e_window = 64;
	barrier = 1;
	per = b->count / (uint64_t)b->conns;
	for (i = 0; i < nthreads; i++) {
		ts[i].b = b;
		ts[i].idx = i;
		ts[i].consumer = b->mode == MODE_E2E && i == b->conns;
		ts[i].n = per + (i == 0 ? b->count % (uint64_t)b->conns : 0);
		bench_hist_init(&ts[i].hist);
		/* Connect here, so a dead broker is reported once, plainly. */
		if ((ts[i].c = flume_tool_connect(b->broker, NULL)) == NULL) {
			fprintf(stderr, "flume-bench: %s\n", flume_errstr(NULL));
			goto done;
		}
	}
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&tids[i], NULL, b->mode == MODE_GROUP ?
		    group_main : (b->mode == MODE_CONSUME || ts[i].consumer) ?
		    consumer_main : producer_main, &ts[i]) != 0) {
			/* Those started wait at a barrier that cannot complete. */
			fprintf(stderr, "flume-bench: cannot start %d threads\n",
			    nthreads);
			_exit(1);
		}
	}
	pthread_barrier_wait(&b->start);
	t0 = last_t = now_ns();
	atomic_store(&b->gmoved_ns, t0);
	/* Progress once a second until every thread is done. */
	for (i = 0; i < nthreads; i++) {
		while (tty && pthread_tryjoin_np(tids[i], NULL) == EBUSY) {
			tick.tv_sec = 0;
			tick.tv_nsec = 100 * 1000000L;
			nanosleep(&tick, NULL);
			if (now_ns() - last_t >= 1000000000u)
				progress(b, t0, &last_n, &last_t);
		}
		if (!tty)
			pthread_join(tids[i], NULL);
	}
	t1 = now_ns();

	memset(&r, 0, sizeof(r));
	r.mode = b->mode_name;
	r.wire_bytes = -1;
	for (i = 0; i < nthreads; i++) {
		if (ts[i].err[0] != '\0')
			fprintf(stderr, "flume-bench: %s\n", ts[i].err);
		if (b->mode == MODE_E2E) {
			if (ts[i].consumer) {
				r.msgs = ts[i].msgs;
				r.bytes = ts[i].bytes;
				if (ts[i].last_ns > t0)
					t1 = ts[i].last_ns;
			}
		} else {
			r.msgs += ts[i].msgs;
			r.bytes += ts[i].bytes;
		}
		if (!ts[i].consumer && b->mode != MODE_CONSUME &&
		    b->mode != MODE_GROUP) {
			if (r.wire_bytes < 0)
				r.wire_bytes = 0;
			r.wire_bytes += (int64_t)ts[i].wire;
		}
		bench_hist_merge(all, &ts[i].hist);
	}
	r.failed = atomic_load(&b->failed);
	if (b->mode == MODE_GROUP) {
		/* Distinct messages, timed to the commit that covered the last. */
		if (atomic_load(&b->gend_ns) > t0)
			t1 = atomic_load(&b->gend_ns);
		r.commits = atomic_load(&b->gcommits);
		if (r.msgs > atomic_load(&b->gcommitted))
			r.redelivered = r.msgs - atomic_load(&b->gcommitted);
		r.msgs = atomic_load(&b->gcommitted);
		if (r.msgs + r.redelivered > 0)
			r.bytes = (uint64_t)((double)r.bytes * (double)r.msgs /
			    (double)(r.msgs + r.redelivered));
	}
	r.seconds = (double)(t1 - t0) / 1e9;
	if (b->mode != MODE_CONSUME && b->mode != MODE_GROUP &&
	    !(b->acks == 0 && b->mode != MODE_E2E))
		r.lat = all;
	if (b->json)
		bench_json(out, sizeof(out), &r);
	else
		bench_summary(out, sizeof(out), &r);
	fputs(out, stdout);
	rc = 0;
	for (i = 0; i < nthreads; i++)
		if (!ts[i].ok)
			rc = 1;
	if (r.failed > 0 || (b->mode != MODE_CONSUME && b->mode != MODE_GROUP &&
	    r.msgs < b->count) || (b->mode == MODE_GROUP && r.msgs != b->gtotal))
		rc = 1;
done:
	for (i = 0; ts != NULL && i < nthreads; i++) {
		flume_close(ts[i].c);
		free(ts[i].sent_ns);
		free(ts[i].sent_seq);
	}
	if (barrier) {
		pthread_barrier_destroy(&b->start);
		pthread_mutex_destroy(&b->e2e_mu);
		pthread_cond_destroy(&b->e2e_cv);
	}
	free(ts);
	free(tids);
	free(all);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct bench b;
	long long v;
	const char *bopt = NULL;
	static const struct option longopts[] = {
		{ "copy", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char gname[64];
	int ch, rc;
	int32_t want = 0;
	size_t i;
	uint32_t x = 0x9e3779b9u;

	memset(&b, 0, sizeof(b));
	b.count = 1000000;
	b.size = 100;
	b.conns = 1;
	b.batch_bytes = -1;
	b.linger_ms = -1;
	b.buffer_bytes = -1;
	b.window_bytes = E2E_WINDOW_BYTES;
	b.acks = 1;
	b.gbatch = GROUP_BATCH;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		flume_tool_version("flume-bench");
		return 0;
	}
	b.mode_name = argv[1];
	if (strcmp(argv[1], "produce") == 0)
		b.mode = MODE_PRODUCE;
	else if (strcmp(argv[1], "consume") == 0)
		b.mode = MODE_CONSUME;
	else if (strcmp(argv[1], "e2e") == 0)
		b.mode = MODE_E2E;
	else if (strcmp(argv[1], "sync") == 0) {
		b.mode = MODE_SYNC;
		b.count = 10000;
	} else if (strcmp(argv[1], "group") == 0)
		b.mode = MODE_GROUP;
	else {
		usage(stderr);
		return 2;
	}
	argc--;
	argv++;
	while ((ch = getopt_long(argc, argv, "a:B:b:c:g:hJl:M:m:n:P:s:t:W:z:",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			if (flume_tool_parse_acks(optarg, &b.acks) == -1) {
				fprintf(stderr, "flume-bench: -a: 0, 1 or all\n");
				return 2;
			}
			break;
		case 'B':
			if (flume_tool_parse_long(optarg, 128, 64 << 20, &v) == -1)
				goto bad;
			b.batch_bytes = v;
			break;
		case 'b':
			bopt = optarg;
			break;
		case 'c':
			if (flume_tool_parse_long(optarg, 1, BENCH_MAX_CONNS, &v) == -1)
				goto bad;
			b.conns = (int)v;
			break;
		case 'g':
			if (optarg[0] == '\0')
				goto bad;
			b.group = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'J':
			b.json = 1;
			break;
		case 'K':
			b.copy = 1;
			break;
		case 'l':
			if (flume_tool_parse_long(optarg, 0, 60000, &v) == -1)
				goto bad;
			b.linger_ms = v;
			break;
		case 'M':
			if (flume_tool_parse_long(optarg, 1024, 1LL << 34, &v) == -1)
				goto bad;
			b.buffer_bytes = v;
			break;
		case 'm':
			if (flume_tool_parse_long(optarg, 1, 1 << 24, &v) == -1)
				goto bad;
			b.gbatch = v;
			break;
		case 'n':
			if (flume_tool_parse_long(optarg, 1, 1LL << 40, &v) == -1)
				goto bad;
			b.count = (uint64_t)v;
			break;
		case 'P':
			if (flume_tool_parse_long(optarg, 1, 1 << 16, &v) == -1)
				goto bad;
			want = (int32_t)v;
			break;
		case 's':
			if (flume_tool_parse_long(optarg, 0, 64 << 20, &v) == -1)
				goto bad;
			b.size = (size_t)v;
			break;
		case 't':
			b.topic = optarg;
			break;
		case 'W':
			if (flume_tool_parse_long(optarg, 1024, 1LL << 34, &v) == -1)
				goto bad;
			b.window_bytes = v;
			break;
		case 'z':
			if ((b.compression = flume_compression_by_name(optarg)) ==
			    -1)
				goto bad;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (b.topic == NULL || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (b.mode == MODE_E2E && b.size < 8) {
		fprintf(stderr, "flume-bench: e2e needs -s 8 or more (the send "
		    "time travels in the value)\n");
		return 2;
	}
	if (b.group != NULL && b.mode != MODE_GROUP) {
		fprintf(stderr, "flume-bench: -g is for group\n");
		return 2;
	}
	if (b.mode == MODE_GROUP && b.group == NULL) {
		/* A new group each run, so it reads from the beginning. */
		snprintf(gname, sizeof(gname), "flume-bench-%ld",
		    (long)getpid());
		b.group = gname;
	}
	if ((uint64_t)b.conns > b.count && b.mode != MODE_CONSUME &&
	    b.mode != MODE_GROUP)
		b.conns = (int)b.count;
	b.broker = flume_tool_broker(bopt);
	if ((b.value = malloc(b.size > 0 ? b.size : 1)) == NULL) {
		fprintf(stderr, "flume-bench: out of memory\n");
		return 1;
	}
	/* Filler that does not look like one repeated byte. */
	for (i = 0; i < b.size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b.value[i] = (uint8_t)(' ' + x % 95);
	}
	if (bench_topic(&b, want) == -1) {
		free(b.value);
		return 1;
	}
	if (b.mode == MODE_CONSUME && b.conns > b.partitions)
		b.conns = b.partitions;
	if (b.mode == MODE_GROUP && group_prepare(&b) == -1)
		rc = 1;
	else
		rc = bench_run(&b);
	free(b.gstart);
	free(b.gend);
	free(b.gdone);
	free(b.value);
	return rc;
bad:
	fprintf(stderr, "flume-bench: -%c: bad value %s\n", ch, optarg);
	return 2;
}
