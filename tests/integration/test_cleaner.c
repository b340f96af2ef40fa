/*
 * Log compaction through the real daemon (issue 28): librdkafka produces
 * 100,000 records over 1,000 keys (100 versions each; the last version
 * of 10 keys, 1%, is a tombstone) to a compacted topic with 64 KiB
 * segments, then enough other records to close the last segment that
 * holds them.  The cleaner child compacts it; a consumer from the
 * beginning then reads exactly one record per live key, its latest
 * value, in offset order, and none of a tombstoned key once the
 * tombstones' horizon passed; the bytes on disk fall with it; the same
 * after a restart.  Then the cleaner is killed with SIGKILL at 20
 * moments of its passes, and the swap is stopped at each of its crash
 * points with the broker down (the files as a power loss leaves them),
 * and every check holds again.  A keyless record is refused on both
 * faces.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "proto/batch.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "store/clean.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define NKEYS		1000
#define NVERS		100
#define NFILL		1000	/* filler records: close the data's last segment */

static struct flumed d;

static int
setup(void)
{
	return flumed_start_kafka(&d, NULL, "flush_interval_ms = 20ms\n"
	    "cleaner_backoff_ms = 100ms\n"
	    "[topic cmp]\npartitions = 1\ncleanup.policy = compact\n"
	    "segment.bytes = 64K\nmin.cleanable.dirty.ratio = 0.01\n"
	    "delete.retention.ms = 1500\n"
	    "[topic cmk]\npartitions = 1\ncleanup.policy = compact\n"
	    "segment.bytes = 64K\nmin.cleanable.dirty.ratio = 0.01\n"
	    "delete.retention.ms = 1500\n"
	    "[topic cpw]\npartitions = 1\nsegment.bytes = 64K\n"
	    "[topic cmi]\npartitions = 1\ncleanup.policy = compact\n"
	    "segment.bytes = 64K\nmin.cleanable.dirty.ratio = 0.01\n"
	    "[topic kl]\npartitions = 1\ncleanup.policy = compact,delete\n");
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* ---- librdkafka ---- */

static int dr_errors, dr_last_err;

static void
dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	(void)rk;
	(void)opaque;
	if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
		dr_errors++;
		dr_last_err = m->err;
	}
}

static rd_kafka_t *
producer_new(void)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char err[256];

	if (rd_kafka_conf_set(conf, "bootstrap.servers", d.kbroker, err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "linger.ms", "5", err, sizeof(err)) !=
	    RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "message.send.max.retries", "0", err,
	    sizeof(err)) != RD_KAFKA_CONF_OK) {
		rd_kafka_conf_destroy(conf);
		return NULL;
	}
	rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
	return rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
}

/* The value version v of key k has; NULL for the tombstone. */
static const char *
value_of(int k, int v, char *buf, size_t size)
{
	if (v == NVERS - 1 && k % 100 == 7)
		return NULL;
	snprintf(buf, size, "val-%04d-%03d", k, v);
	return buf;
}

static int
put(rd_kafka_t *rk, const char *topic, const char *key, const char *val)
{
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		if (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
		    RD_KAFKA_V_PARTITION(0),
		    RD_KAFKA_V_KEY(key, strlen(key)),
		    RD_KAFKA_V_VALUE((void *)val, val ? strlen(val) : 0),
		    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
		    RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR_NO_ERROR)
			return 0;
		rd_kafka_poll(rk, 10);	/* queue full: let deliveries drain */
	}
	return -1;
}

/* The data set (versions [from, to) of every key), then the filler. */
static int
produce_data(const char *topic, int from, int to, const char *fill_tag)
{
	rd_kafka_t *rk = producer_new();
	char key[32], val[32], fill[101];
	int v, k, i, rc = 0;

	if (rk == NULL)
		return -1;
	dr_errors = 0;
	for (v = from; v < to && rc == 0; v++)
		for (k = 0; k < NKEYS && rc == 0; k++) {
			snprintf(key, sizeof(key), "key%04d", k);
			rc = put(rk, topic, key, value_of(k, v, val, sizeof(val)));
		}
	/* 1000 x 100 bytes: the data's last segment closes behind them. */
	memset(fill, 'f', sizeof(fill) - 1);
	fill[sizeof(fill) - 1] = '\0';
	/*
	 * The writer rolls a segment before a run of batches once it is
	 * full, and appends the run whole: flushed in five runs, the filler
	 * rolls the segment holding the data's end.
	 */
	for (i = 0; i < NFILL && rc == 0; i++) {
		if (i % (NFILL / 5) == 0 &&
		    rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR)
			rc = -1;
		snprintf(key, sizeof(key), "fill-%s-%d", fill_tag, i);
		if (rc == 0)
			rc = put(rk, topic, key, fill);
	}
	if (rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR)
		rc = -1;
	rd_kafka_destroy(rk);
	return rc == 0 && dr_errors == 0 ? 0 : -1;
}

/* What a consumer from the beginning read of the data keys. */
struct view {
	int	count[NKEYS];		/* records of each key */
	char	last[NKEYS][32];	/* the last value ("" tombstone) */
	int	tomb[NKEYS];		/* the last was a tombstone */
	int	ordered;		/* offsets strictly increasing */
	long	records;		/* all, filler included */
	long	errors;			/* messages carrying an error */
};

static int
consume_all(const char *topic, struct view *vw)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	rd_kafka_topic_partition_list_t *tl;
	rd_kafka_message_t *m;
	rd_kafka_t *rk;
	int64_t lo, hi, last = -1;
	char err[256];
	int k, idle = 0;

	memset(vw, 0, sizeof(*vw));
	vw->ordered = 1;
	if (rd_kafka_conf_set(conf, "bootstrap.servers", d.kbroker, err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "group.id", "cleaner-test", err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "enable.auto.commit", "false", err,
	    sizeof(err)) != RD_KAFKA_CONF_OK) {
		rd_kafka_conf_destroy(conf);
		return -1;
	}
	if ((rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err,
	    sizeof(err))) == NULL)
		return -1;
	if (rd_kafka_query_watermark_offsets(rk, topic, 0, &lo, &hi,
	    10000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		rd_kafka_destroy(rk);
		return -1;
	}
	tl = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(tl, topic, 0)->offset =
	    RD_KAFKA_OFFSET_BEGINNING;
	rd_kafka_assign(rk, tl);
	rd_kafka_topic_partition_list_destroy(tl);
	while (last < hi - 1 && idle < 100) {
		if ((m = rd_kafka_consumer_poll(rk, 100)) == NULL) {
			idle++;
			continue;
		}
		idle = 0;
		if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR &&
		    m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			if (vw->errors++ == 0)
				fprintf(stderr, "%s: offset %lld: %s\n", topic,
				    (long long)m->offset, rd_kafka_err2str(m->err));
		}
		if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
			if (m->offset <= last)
				vw->ordered = 0;
			last = m->offset;
			vw->records++;
			if (m->key_len == 7 && sscanf(m->key, "key%04d", &k) ==
			    1 && k >= 0 && k < NKEYS) {
				vw->count[k]++;
				vw->tomb[k] = m->payload == NULL;
				snprintf(vw->last[k], sizeof(vw->last[k]), "%.*s",
				    (int)m->len, m->payload ? (char *)m->payload :
				    "");
			}
		}
		rd_kafka_message_destroy(m);
	}
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	if (last != hi - 1)
		fprintf(stderr, "%s: read up to %lld of [%lld, %lld)\n", topic,
		    (long long)last, (long long)lo, (long long)hi);
	return last == hi - 1 ? 0 : -1;
}

/*
 * Every live key read exactly once with its latest value (version
 * lastv), no tombstoned key at all: the number of keys that fail.
 */
static int
view_bad(const struct view *vw, int lastv)
{
	char val[32];
	int k, bad = 0;

	for (k = 0; k < NKEYS; k++) {
		if (value_of(k, lastv, val, sizeof(val)) == NULL) {
			bad += vw->count[k] != 0;
			continue;
		}
		if (vw->count[k] != 1 || vw->tomb[k] ||
		    strcmp(vw->last[k], val) != 0) {
			if (bad == 0)
				fprintf(stderr, "key%04d: %d records, last %s%s, "
				    "want %s\n", k, vw->count[k], vw->last[k],
				    vw->tomb[k] ? " (tombstone)" : "", val);
			bad++;
		}
	}
	if (!vw->ordered)
		bad++;
	return bad;
}

/*
 * Read topic from the beginning until every check of view_bad holds or
 * ms passed (a bounded poll: the cleaner works meanwhile): the keys that
 * still fail at the last read.
 */
static int
await_view(const char *topic, int lastv, int ms)
{
	struct view *vw = malloc(sizeof(*vw));
	long long dl = support_now_ms() + ms;
	int bad = NKEYS;

	if (vw == NULL)
		return -1;
	do {
		if (consume_all(topic, vw) == 0 &&
		    (bad = view_bad(vw, lastv)) == 0)
			break;
	} while (support_now_ms() < dl);
	if (bad != 0) {
		char cmd[1200];

		fprintf(stderr, "%s: %d keys fail, %ld records read\n", topic,
		    bad, vw->records);
		snprintf(cmd, sizeof(cmd), "grep -v 'INFO .master' %s | tail -12 >&2; ls -la %s/%s/partition-0 | tail -5 >&2", d.log, d.data, topic);
		(void)!system(cmd);
	}
	free(vw);
	return bad;
}

/* Bytes of the partition's segment logs. */
static long long
log_bytes(const char *topic)
{
	char path[1024], f[1400];
	struct dirent *de;
	struct stat st;
	long long sum = 0;
	DIR *dp;
	size_t l;

	snprintf(path, sizeof(path), "%s/%s/partition-0", d.data, topic);
	if ((dp = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(dp)) != NULL) {
		l = strlen(de->d_name);
		if (l < 4 || strcmp(de->d_name + l - 4, ".log") != 0)
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, de->d_name);
		if (stat(f, &st) == 0)
			sum += st.st_size;
	}
	closedir(dp);
	return sum;
}

/* Wait for the cleaner to have swapped n times in topic's partition 0. */
static int
wait_cleaned(const char *topic, int n, int ms)
{
	char needle[64];

	snprintf(needle, sizeof(needle), "%s-0: cleaned ", topic);
	return flumed_wait_log(&d, needle, n, ms) >= n;
}

static void
test_compact(void)
{
	long long before, after;

	CU_ASSERT_EQUAL_FATAL(produce_data("cmp", 0, NVERS, "a"), 0);
	before = log_bytes("cmp");
	CU_ASSERT(before > 2000000);
	/*
	 * Passes run while it is produced; the one past the tombstones'
	 * horizon (1.5 s after the pass that first kept them) drops them.
	 */
	CU_ASSERT_EQUAL(await_view("cmp", NVERS - 1, 30000), 0);
	CU_ASSERT(wait_cleaned("cmp", 1, 1000));
	after = log_bytes("cmp");
	/* flume-admin cleaner: the passes, and cmp's row with its savings. */
	{
		const char *argv[] = { "flume-admin", "cleaner", NULL };
		char *out = NULL, *row, last[32];
		long long runs = 0, saved = 0, bytes = 0;
		int part = -1;
		double dirty = -1;

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, argv), 0);
		CU_ASSERT_FATAL(out != NULL);
		CU_ASSERT_EQUAL(sscanf(out, "RUNS %lld", &runs), 1);
		CU_ASSERT(runs >= 1);
		CU_ASSERT_FATAL((row = strstr(out, "\ncmp ")) != NULL);
		CU_ASSERT_EQUAL(sscanf(row, "\ncmp %d %lf %31s %lld %lld", &part,
		    &dirty, last, &saved, &bytes), 5);
		CU_ASSERT_EQUAL(part, 0);
		CU_ASSERT(dirty >= 0 && dirty <= 1);
		CU_ASSERT(strncmp(last, "20", 2) == 0);	/* a date, not "-" */
		CU_ASSERT(saved > 0 && saved <= before);
		CU_ASSERT(bytes > 0);
		/* A topic that is not compacted has no row. */
		CU_ASSERT_PTR_NULL(strstr(out, "\ncpw "));
		free(out);
	}
	/* 990 live records of 80 bytes and 100 KB of filler, of 3.5 MB. */
	CU_ASSERT(after > 0 && after * 5 < before);
	/* The same after a restart. */
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(log_bytes("cmp"), after);
	CU_ASSERT_EQUAL(await_view("cmp", NVERS - 1, 0), 0);
}

/*
 * A consumer reading cmk from the beginning again and again while the
 * cleaner works and is killed: every read must be whole (no error, no
 * torn batch: librdkafka checks each batch's CRC), in offset order, and
 * hold every key at least once (each has versions before the reads
 * start; its latest one is never removed).
 */
struct reader_st {
	volatile int	stop;
	volatile int	prod;		/* odd while the test produces */
	int		reads, checked;	/* reads, of them with keys checked */
	int		bad_read, bad_order, bad_keys;
};

static void *
reader_main(void *arg)
{
	struct reader_st *rs = arg;
	struct view *vw = malloc(sizeof(*vw));
	int k, prod;

	while (vw != NULL && !rs->stop) {
		prod = rs->prod;
		if (consume_all("cmk", vw) != 0 || vw->errors != 0) {
			rs->bad_read++;
			continue;
		}
		rs->reads++;
		if (!vw->ordered)
			rs->bad_order++;
		/*
		 * A read during a produce may end before a key's newer
		 * version while the cleaner removed the older one: keys are
		 * checked only for reads with no produce during them.
		 */
		if ((prod & 1) || prod != rs->prod)
			continue;
		rs->checked++;
		for (k = 0; k < NKEYS; k++)
			if (vw->count[k] < 1)
				break;
		if (k < NKEYS)
			rs->bad_keys++;
	}
	free(vw);
	return NULL;
}

/*
 * SIGKILL of the cleaner at 20 moments of its passes: each pass starts
 * ("cleaning cmk-0" in the log), then a random 0-300 ms later it is
 * killed; the master respawns it.  New data keeps each round dirty, so
 * the next pass comes; kills land in the key map, the rewrite, the swap
 * or after it.  At the end every check holds, and after a restart.
 */
static void
test_kill_cleaner(void)
{
	struct reader_st rs = { 0, 0, 0, 0, 0, 0, 0 };
	pthread_t reader;
	pid_t pid;
	int round, starts, v;

	CU_ASSERT_EQUAL_FATAL(produce_data("cmk", 0, 20, "k0"), 0);
	v = 20;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&reader, NULL, reader_main, &rs), 0);
	for (round = 0; round < 20; round++) {
		char tag[16];

		starts = flumed_log_count(&d, "cleaning cmk-0");
		snprintf(tag, sizeof(tag), "k%d", round + 1);
		/* Two more versions of every key: dirty again. */
		rs.prod++;
		CU_ASSERT_EQUAL_FATAL(produce_data("cmk", v, v + 2, tag), 0);
		rs.prod++;
		v += 2;
		CU_ASSERT_FATAL(flumed_wait_log(&d, "cleaning cmk-0",
		    starts + 1, 20000) > starts);
		usleep((useconds_t)(test_rand() % 300) * 1000);
		pid = flumed_child_pid(&d, "cleaner", -1);
		CU_ASSERT_FATAL(pid > 0);
		kill(pid, SIGKILL);
		CU_ASSERT(support_pid_state(pid, "ZX", 5000));
	}
	rs.stop = 1;
	pthread_join(reader, NULL);
	CU_ASSERT(rs.reads >= 1);
	CU_ASSERT(rs.checked >= 1);
	CU_ASSERT_EQUAL(rs.bad_read, 0);
	CU_ASSERT_EQUAL(rs.bad_order, 0);
	CU_ASSERT_EQUAL(rs.bad_keys, 0);
	fprintf(stderr, "concurrent reader: %d reads, %d with keys checked\n",
	    rs.reads, rs.checked);
	CU_ASSERT_EQUAL_FATAL(produce_data("cmk", v, NVERS, "kz"), 0);
	CU_ASSERT(flumed_log_count(&d, "cleaner (pid") >= 20);
	CU_ASSERT_EQUAL(await_view("cmk", NVERS - 1, 30000), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(await_view("cmk", NVERS - 1, 0), 0);
}

static int stop_at;

static int
power_cut(void *arg, int step)
{
	(void)arg;
	return step == stop_at;
}

/*
 * A power loss at each point of the swap.  Topic cpw is not compacted
 * by the broker (cleanup.policy delete, no retention), so the test's
 * own pass is the only one: with the broker down, a pass over new dirty
 * data stops at each crash point of the swap (every step before it
 * synced, the files as the cut leaves them), then the broker starts on
 * them and recovers the swap: exactly the latest value of each key.
 */
static void
test_power_cut(void)
{
	struct clean_config cc;
	struct clean_stats st;
	char dir[1024], tag[16];
	int v = 0;

	snprintf(dir, sizeof(dir), "%s/cpw/partition-0", d.data);
	CU_ASSERT_EQUAL_FATAL(produce_data("cpw", 0, 10, "p0"), 0);
	v = 10;
	for (stop_at = 1; stop_at <= 4; stop_at++) {
		if (stop_at > 1) {
			snprintf(tag, sizeof(tag), "p%d", stop_at);
			CU_ASSERT_EQUAL_FATAL(produce_data("cpw", v, v + 1,
			    tag), 0);
			v++;
		}
		CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
		memset(&cc, 0, sizeof(cc));
		cc.now_ms = support_now_ms();
		cc.limit = INT64_MAX;
		cc.delete_retention_ms = 1500;
		cc.segment_bytes = 65536;
		cc.index_interval_bytes = 4096;
		cc.dedupe_bytes = 1 << 20;
		cc.inflate_limit = 1 << 26;
		cc.swap_hook = power_cut;
		CU_ASSERT_EQUAL(clean_partition(dir, &cc, &st), -1);
		CU_ASSERT_EQUAL(errno, EINTR);
		CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
		/* v - 1 is no tombstone version for any key (below NVERS - 1). */
		CU_ASSERT_EQUAL(await_view("cpw", v - 1, 0), 0);
	}
}

/* ---- an idempotent producer, natively ---- */

/*
 * PRODUCE (acks=all) of one batch of n records key%04d = "idem" with
 * (pid, epoch, seq): the part's error, *base its base offset; -1.
 */
static int
produce_idem(int fd, const char *topic, int64_t pid, int16_t epoch,
    int32_t seq, int n, int64_t *base)
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
	char key[16];
	int i, rc = -1;

	batch_builder_init(&bb);
	batch_builder_set_producer(&bb, pid, epoch, seq);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "key%04d", i);
		batch_builder_add(&bb, support_now_ms(), key, 7, "idem", 4,
		    NULL, 0);
	}
	batch_builder_close(&bb, &bytes, &blen);
	pp.topic = topic;
	pp.topic_len = strlen(topic);
	pp.partition = 0;
	pp.records = bytes;
	pp.records_len = (int32_t)blen;
	req.acks = -1;
	req.timeout_ms = 10000;
	req.count = 1;
	req.parts = &pp;
	wbuf_init(&wb);
	msg_encode_produce_req(&wb, &req);
	arena_init(&a, 1 << 16);
	if (support_request(fd, API_PRODUCE, 7, wb.buf, wb.len) == 0 &&
	    support_recv(fd, 20000, &id, &payload, &plen) == 1 && id == 7 &&
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
 * An idempotent producer's batch (10 keys) is superseded by later
 * versions of its keys and compacted away, but stays as its producer's
 * last batch (emptied): the same batch sent again is still answered as
 * the duplicate it is (its first offset, nothing appended), before and
 * after a restart, and the partition's consumers never see it twice.
 */
static void
test_idempotent(void)
{
	int64_t pid = -1, base = -1, again = -1, lo, hi = -1, hi2 = -2;
	int16_t epoch = -1;
	rd_kafka_t *rk;
	int fd;

	CU_ASSERT_FATAL((fd = support_connect_served(&d, 5000)) >= 0);
	CU_ASSERT_EQUAL_FATAL(support_init_producer(fd, &pid, &epoch), 0);
	CU_ASSERT_EQUAL_FATAL(produce_idem(fd, "cmi", pid, epoch, 0, 10, &base),
	    ERR_NONE);
	CU_ASSERT_EQUAL(base, 0);
	close(fd);
	/* Two versions of every key after it, and the filler. */
	CU_ASSERT_EQUAL_FATAL(produce_data("cmi", 0, 2, "i"), 0);
	CU_ASSERT_FATAL(wait_cleaned("cmi", 1, 30000));
	CU_ASSERT_FATAL((rk = producer_new()) != NULL);
	CU_ASSERT_EQUAL(rd_kafka_query_watermark_offsets(rk, "cmi", 0, &lo, &hi,
	    10000), RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_FATAL((fd = support_connect_served(&d, 5000)) >= 0);
	CU_ASSERT_EQUAL(produce_idem(fd, "cmi", pid, epoch, 0, 10, &again),
	    ERR_NONE);
	CU_ASSERT_EQUAL(again, base);
	close(fd);
	CU_ASSERT_EQUAL(rd_kafka_query_watermark_offsets(rk, "cmi", 0, &lo,
	    &hi2, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_EQUAL(hi2, hi);
	rd_kafka_destroy(rk);
	/* After a restart the log is all the broker knows it from. */
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_FATAL((fd = support_connect_served(&d, 5000)) >= 0);
	CU_ASSERT_EQUAL(produce_idem(fd, "cmi", pid, epoch, 0, 10, &again),
	    ERR_NONE);
	CU_ASSERT_EQUAL(again, base);
	close(fd);
	CU_ASSERT_EQUAL(await_view("cmi", 1, 0), 0);
}

/* A record without a key to a compacted topic: refused on both faces. */
static void
test_keyless(void)
{
	rd_kafka_t *rk = producer_new();
	char *out = NULL, *err = NULL;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rk);
	dr_errors = 0;
	dr_last_err = 0;
	CU_ASSERT_EQUAL(rd_kafka_producev(rk, RD_KAFKA_V_TOPIC("kl"),
	    RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_VALUE("v", 1),
	    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
	    RD_KAFKA_RESP_ERR_NO_ERROR);
	rd_kafka_flush(rk, 10000);
	CU_ASSERT_EQUAL(dr_errors, 1);
	CU_ASSERT_EQUAL(dr_last_err, RD_KAFKA_RESP_ERR_INVALID_RECORD);
	/* With a key it goes in. */
	CU_ASSERT_EQUAL(put(rk, "kl", "k", "v"), 0);
	rd_kafka_flush(rk, 10000);
	CU_ASSERT_EQUAL(dr_errors, 1);
	rd_kafka_destroy(rk);
	rc = support_tool(NULL, &out, &err, "flume-produce", "-b", d.broker,
	    "-t", "kl", "nokey", NULL);
	CU_ASSERT_NOT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(err != NULL ? strstr(err,
	    "compacted topic requires keyed records") : NULL);
	free(out);
	free(err);
}

TEST_SUITE("cleaner", setup, teardown,
    { "a keyless record to a compacted topic is refused", test_keyless },
    { "100,000 records over 1,000 keys compacted, read back, restarted",
	test_compact },
    { "SIGKILL of the cleaner at 20 moments of its passes",
	test_kill_cleaner },
    { "a power cut at each point of the swap", test_power_cut },
    { "an idempotent producer's resend after a clean is a duplicate",
	test_idempotent });
