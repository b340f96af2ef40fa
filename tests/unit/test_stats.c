/*
 * The operability pieces that need no daemon: the STATS codec, the
 * snapshot of a region's counters, the Prometheus rendering, the
 * configuration diff of a reload and the live-settings seqlock.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/string.h>

#include "master/config.h"
#include "common/live.h"
#include "master/live.h"
#include "common/log.h"
#include "master/metrics.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "common/stats.h"
#include "shm/stats.h"
#include "tests/harness.h"
#include "tests/unit/fixture_shm.h"


static int
setup(void)
{
	log_init(0, LOG_LVL_WARN, "test");
	return 0;
}

static int
teardown(void)
{
	shm_unlink_name(fixture_shm_name());
	return 0;
}

/* A response with one of everything and distinct values. */
static void
sample(struct stats_resp *m, struct stats_child *c, struct stats_partition *p,
    struct stats_bucket *b, struct stats_error *e, struct stats_lag *l)
{
	int i;

	memset(m, 0, sizeof(*m));
	memset(c, 0, 2 * sizeof(*c));
	memset(p, 0, sizeof(*p));
	memset(l, 0, sizeof(*l));
	c[0] = (struct stats_child){ 0, 0, 4242, 3, 5, 6, 7, 8, 9, 10, 11,
	    12, 13, 14, 15, 16 };
	c[1] = (struct stats_child){ 1, 1, 4243, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0 };
	p->topic = "orders";
	p->topic_len = 6;
	p->partition = 2;
	p->log_start = 100;
	p->log_end = 250;
	p->visible = 240;
	p->durable = 230;
	p->msgs_in = 150;
	p->bytes_in = 15000;
	p->msgs_out = 75;
	p->bytes_out = 7500;
	p->ring_used = 64;
	p->ring_size = 65536;
	p->segments = 4;
	p->log_bytes = 123456;
	for (i = 0; i < SHM_FSYNC_BUCKETS; i++) {
		b[i].le_us = stats_fsync_le_us[i];
		b[i].count = i == 0 ? 1 : i == 2 ? 1 : i == SHM_FSYNC_BUCKETS - 1 ? 1 : 0;
	}
	e->error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
	e->count = 12;
	l->group = "g\"1\\";
	l->group_len = 4;
	l->topic = "orders";
	l->topic_len = 6;
	l->partition = 2;
	l->committed = 200;
	l->lag = 50;
	m->nchildren = 2;
	m->children = c;
	m->nparts = 1;
	m->parts = p;
	m->fsync_count = 3;
	m->fsync_errors = 1;
	m->fsync_sum_us = 20000350;
	m->nbuckets = SHM_FSYNC_BUCKETS;
	m->buckets = b;
	m->nerrors = 1;
	m->errors = e;
	m->nlags = 1;
	m->lags = l;
}

static void
test_codec_roundtrip(void)
{
	struct stats_child c[2];
	struct stats_partition p;
	struct stats_bucket b[SHM_FSYNC_BUCKETS];
	struct stats_error e;
	struct stats_lag l;
	struct stats_resp m, d;
	struct arena a;
	struct wbuf wb;
	size_t n;
	int i, ok = 1;

	sample(&m, c, &p, b, &e, &l);
	wbuf_init(&wb);
	msg_encode_stats_resp(&wb, &m);
	CU_ASSERT_FATAL(!wb.err);
	/* Header sizes: 2 + 4 + 2 children + 4 + 1 partition + 24 + 4 + 16 buckets ... */
	CU_ASSERT_EQUAL(wb.len, 2 + 4 + 2 * 69 + 4 + (2 + 6 + 4 + 10 * 8 + 4 + 8) +
	    24 + 4 + SHM_FSYNC_BUCKETS * 16 + 4 + 10 + 4 + (2 + 4 + 2 + 6 + 4 + 16));
	arena_init(&a, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(msg_decode_stats_resp(wb.buf, wb.len, &a, &d), 0);
	CU_ASSERT_EQUAL(d.error, 0);
	CU_ASSERT_EQUAL_FATAL(d.nchildren, 2);
	CU_ASSERT_EQUAL(d.children[0].slot, 0);
	CU_ASSERT_EQUAL(d.children[0].role, 0);
	CU_ASSERT_EQUAL(d.children[0].pid, 4242);
	CU_ASSERT_EQUAL(d.children[0].restarts, 3);
	CU_ASSERT_EQUAL(d.children[0].connections, 5);
	CU_ASSERT_EQUAL(d.children[0].accepted, 6);
	CU_ASSERT_EQUAL(d.children[0].requests, 7);
	CU_ASSERT_EQUAL(d.children[0].bytes_in, 8);
	CU_ASSERT_EQUAL(d.children[0].bytes_out, 9);
	CU_ASSERT_EQUAL(d.children[0].rejected_conns, 10);
	CU_ASSERT_EQUAL(d.children[0].protocol_errors, 11);
	CU_ASSERT_EQUAL(d.children[1].slot, 1);
	CU_ASSERT_EQUAL(d.children[1].role, 1);
	CU_ASSERT_EQUAL(d.children[1].pid, 4243);
	CU_ASSERT_EQUAL_FATAL(d.nparts, 1);
	CU_ASSERT_EQUAL(d.parts[0].topic_len, 6);
	CU_ASSERT_NSTRING_EQUAL(d.parts[0].topic, "orders", 6);
	CU_ASSERT_EQUAL(d.parts[0].partition, 2);
	CU_ASSERT_EQUAL(d.parts[0].log_start, 100);
	CU_ASSERT_EQUAL(d.parts[0].log_end, 250);
	CU_ASSERT_EQUAL(d.parts[0].visible, 240);
	CU_ASSERT_EQUAL(d.parts[0].durable, 230);
	CU_ASSERT_EQUAL(d.parts[0].msgs_in, 150);
	CU_ASSERT_EQUAL(d.parts[0].bytes_in, 15000);
	CU_ASSERT_EQUAL(d.parts[0].msgs_out, 75);
	CU_ASSERT_EQUAL(d.parts[0].bytes_out, 7500);
	CU_ASSERT_EQUAL(d.parts[0].ring_used, 64);
	CU_ASSERT_EQUAL(d.parts[0].ring_size, 65536);
	CU_ASSERT_EQUAL(d.parts[0].segments, 4);
	CU_ASSERT_EQUAL(d.parts[0].log_bytes, 123456);
	CU_ASSERT_EQUAL(d.fsync_count, 3);
	CU_ASSERT_EQUAL(d.fsync_errors, 1);
	CU_ASSERT_EQUAL(d.fsync_sum_us, 20000350);
	CU_ASSERT_EQUAL_FATAL(d.nbuckets, SHM_FSYNC_BUCKETS);
	for (i = 0; i < SHM_FSYNC_BUCKETS; i++)
		if (d.buckets[i].le_us != b[i].le_us || d.buckets[i].count != b[i].count)
			ok = 0;
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL_FATAL(d.nerrors, 1);
	CU_ASSERT_EQUAL(d.errors[0].error, ERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL(d.errors[0].count, 12);
	CU_ASSERT_EQUAL_FATAL(d.nlags, 1);
	CU_ASSERT_EQUAL(d.lags[0].group_len, 4);
	CU_ASSERT_NSTRING_EQUAL(d.lags[0].group, "g\"1\\", 4);
	CU_ASSERT_EQUAL(d.lags[0].committed, 200);
	CU_ASSERT_EQUAL(d.lags[0].lag, 50);

	/* Every shorter payload and one with a byte too many are refused. */
	ok = 1;
	for (n = 0; n < wb.len; n++) {
		arena_reset(&a);
		if (n == 2 && wb.buf[0] == 0 && wb.buf[1] == 0) {
			/* [error 0] alone is not an error-only answer. */
			if (msg_decode_stats_resp(wb.buf, n, &a, &d) != -1)
				ok = 0;
			continue;
		}
		if (msg_decode_stats_resp(wb.buf, n, &a, &d) != -1)
			ok = 0;
	}
	CU_ASSERT(ok);
	wbuf_i8(&wb, 0);
	arena_reset(&a);
	CU_ASSERT_EQUAL(msg_decode_stats_resp(wb.buf, wb.len, &a, &d), -1);
	arena_free(&a);
	wbuf_free(&wb);
}

static void
test_codec_error_only(void)
{
	uint8_t buf[2] = { 0, ERR_ACCESS_DENIED };
	struct stats_resp d;
	struct arena a;

	arena_init(&a, 4096);
	CU_ASSERT_EQUAL(msg_decode_stats_resp(buf, sizeof(buf), &a, &d), 0);
	CU_ASSERT_EQUAL(d.error, ERR_ACCESS_DENIED);
	CU_ASSERT_EQUAL(d.nparts, 0);
	CU_ASSERT_EQUAL(d.nchildren, 0);
	arena_free(&a);
}

/* A count that claims more entries than the payload holds is refused. */
static void
test_codec_huge_count(void)
{
	uint8_t buf[6] = { 0, 0, 0x7f, 0xff, 0xff, 0xff };
	struct stats_resp d;
	struct arena a;

	arena_init(&a, 4096);
	CU_ASSERT_EQUAL(msg_decode_stats_resp(buf, sizeof(buf), &a, &d), -1);
	arena_free(&a);
}

static void
test_collect(void)
{
	struct shm_limits lim = {
		.child_slots = 3, .max_topics = 4, .max_partitions = 4,
		.ring_size = 64 * 1024
	};
	struct shm s;
	struct shm_partition *p;
	struct stats_resp st;
	struct arena a;
	int idx = -1, i;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &lim), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "clicks", 6, 2, &idx), 0);
	p = shm_partition(&s, idx, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	atomic_store(&p->msgs_in, 7);
	atomic_store(&p->bytes_in, 700);
	atomic_store(&p->msgs_out, 3);
	atomic_store(&p->bytes_out, 300);
	atomic_store(&p->head, 1000);
	atomic_store(&p->tail, 1400);
	atomic_store(&p->segments, 2);
	atomic_store(&p->log_bytes, 4096);
	atomic_store(&p->log_start, 5);
	__atomic_store_n(&p->next_offset, 12, __ATOMIC_RELEASE);
	atomic_store(&p->visible_offset, 11);
	atomic_store(&p->durable_offset, 10);
	atomic_store(&s.children[0].pid, 100);
	atomic_store(&s.children[0].requests, 9);
	atomic_store(&s.children[0].rejected_conns, 2);
	s.children[0].restarts = 1;
	stats_error_count(&s.children[0], ERR_INVALID_TOPIC);
	stats_error_count(&s.children[1], ERR_INVALID_TOPIC);
	stats_error_count(&s.children[1], ERR_MESSAGE_TOO_LARGE);
	stats_error_count(&s.children[1], 0);
	stats_fsync_record(&s, 50, 1);		/* <= 100 us */
	stats_fsync_record(&s, 300, 1);		/* <= 500 us */
	stats_fsync_record(&s, 20000000, 1);	/* +Inf */
	stats_fsync_record(&s, 0, 0);

	arena_init(&a, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(stats_collect(&s, &a, &st), 0);
	CU_ASSERT_EQUAL(st.nchildren, 3);
	CU_ASSERT_EQUAL(st.children[0].pid, 100);
	CU_ASSERT_EQUAL(st.children[0].requests, 9);
	CU_ASSERT_EQUAL(st.children[0].rejected_conns, 2);
	CU_ASSERT_EQUAL(st.children[0].restarts, 1);
	CU_ASSERT_EQUAL_FATAL(st.nparts, 2);
	CU_ASSERT_NSTRING_EQUAL(st.parts[1].topic, "clicks", 6);
	CU_ASSERT_EQUAL(st.parts[0].partition, 0);
	CU_ASSERT_EQUAL(st.parts[0].msgs_in, 0);
	CU_ASSERT_EQUAL(st.parts[1].partition, 1);
	CU_ASSERT_EQUAL(st.parts[1].msgs_in, 7);
	CU_ASSERT_EQUAL(st.parts[1].bytes_in, 700);
	CU_ASSERT_EQUAL(st.parts[1].msgs_out, 3);
	CU_ASSERT_EQUAL(st.parts[1].bytes_out, 300);
	CU_ASSERT_EQUAL(st.parts[1].ring_used, 400);
	CU_ASSERT_EQUAL(st.parts[1].ring_size, 65536);
	CU_ASSERT_EQUAL(st.parts[1].segments, 2);
	CU_ASSERT_EQUAL(st.parts[1].log_bytes, 4096);
	CU_ASSERT_EQUAL(st.parts[1].log_start, 5);
	CU_ASSERT_EQUAL(st.parts[1].log_end, 12);
	CU_ASSERT_EQUAL(st.parts[1].visible, 11);
	CU_ASSERT_EQUAL(st.parts[1].durable, 10);
	CU_ASSERT_EQUAL(st.fsync_count, 3);
	CU_ASSERT_EQUAL(st.fsync_errors, 1);
	CU_ASSERT_EQUAL(st.fsync_sum_us, 20000350);
	CU_ASSERT_EQUAL_FATAL(st.nbuckets, SHM_FSYNC_BUCKETS);
	for (i = 0; i < SHM_FSYNC_BUCKETS; i++)
		CU_ASSERT_EQUAL(st.buckets[i].count,
		    (i == 0 || i == 2 || i == SHM_FSYNC_BUCKETS - 1) ? 1 : 0);
	CU_ASSERT_EQUAL(st.buckets[SHM_FSYNC_BUCKETS - 1].le_us, -1);
	CU_ASSERT_EQUAL_FATAL(st.nerrors, 2);
	CU_ASSERT_EQUAL(st.errors[0].error, ERR_MESSAGE_TOO_LARGE);
	CU_ASSERT_EQUAL(st.errors[0].count, 1);
	CU_ASSERT_EQUAL(st.errors[1].error, ERR_INVALID_TOPIC);
	CU_ASSERT_EQUAL(st.errors[1].count, 2);
	CU_ASSERT_EQUAL(st.nlags, 0);
	arena_free(&a);
	shm_detach(&s);
	shm_unlink_name(fixture_shm_name());
}

static void
test_render(void)
{
	struct stats_child c[2];
	struct stats_partition p;
	struct stats_bucket b[SHM_FSYNC_BUCKETS];
	struct stats_error e;
	struct stats_lag l;
	struct stats_resp m;
	struct wbuf wb;
	char *text;
	static const char *const want[] = {
		"# TYPE flume_partition_messages_in_total counter\n",
		"\nflume_partition_messages_in_total{topic=\"orders\",partition=\"2\"} 150\n",
		"\nflume_partition_bytes_out_total{topic=\"orders\",partition=\"2\"} 7500\n",
		"\nflume_partition_log_start_offset{topic=\"orders\",partition=\"2\"} 100\n",
		"\nflume_partition_log_end_offset{topic=\"orders\",partition=\"2\"} 250\n",
		"\nflume_partition_ring_used_bytes{topic=\"orders\",partition=\"2\"} 64\n",
		"\nflume_partition_segments{topic=\"orders\",partition=\"2\"} 4\n",
		"\nflume_group_lag{group=\"g\\\"1\\\\\",topic=\"orders\",partition=\"2\"} 50\n",
		"\nflume_child_up{slot=\"0\",role=\"worker\"} 1\n",
		"\nflume_child_restarts_total{slot=\"0\",role=\"worker\"} 3\n",
		"\nflume_worker_requests_total{slot=\"0\",role=\"worker\"} 7\n",
		"\nflume_worker_auth_failures_total{slot=\"0\",role=\"worker\"} 12\n",
		"\nflume_worker_auth_throttled_total{slot=\"0\",role=\"worker\"} 13\n",
		"\nflume_worker_auth_key_derivations_total{slot=\"0\",role=\"worker\"} 14\n",
		"\nflume_worker_kafka_msgset_conversions_total{slot=\"0\",role=\"worker\"} 15\n",
		"\nflume_worker_kafka_msgset_bytes_total{slot=\"0\",role=\"worker\"} 16\n",
		"\nflume_worker_connections_rejected_total{slot=\"0\",role=\"worker\"} 10\n",
		"\nflume_request_errors_total{code=\"8\",error=\"unknown topic or partition\"} 12\n",
		"\nflume_fsync_duration_seconds_bucket{le=\"0.0001\"} 1\n",
		"\nflume_fsync_duration_seconds_bucket{le=\"0.00025\"} 1\n",
		"\nflume_fsync_duration_seconds_bucket{le=\"0.0005\"} 2\n",
		"\nflume_fsync_duration_seconds_bucket{le=\"10\"} 2\n",
		"\nflume_fsync_duration_seconds_bucket{le=\"+Inf\"} 3\n",
		"\nflume_fsync_duration_seconds_sum 20.000350\n",
		"\nflume_fsync_duration_seconds_count 3\n",
		"\nflume_fsync_errors_total 1\n",
	};
	size_t i;

	sample(&m, c, &p, b, &e, &l);
	wbuf_init(&wb);
	metrics_render(&m, &wb);
	wbuf_i8(&wb, 0);
	CU_ASSERT_FATAL(!wb.err);
	text = (char *)wb.buf;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (strstr(text, want[i]) == NULL)
			fprintf(stderr, "missing: %s", want[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, want[i]));
	}
	/* The writer is not a worker: no worker series for slot 1. */
	CU_ASSERT_PTR_NULL(strstr(text, "flume_worker_requests_total{slot=\"1\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "flume_child_up{slot=\"1\",role=\"writer\"} 1\n"));
	/* Every line is a comment or "name{labels} value" / "name value". */
	for (char *line = text; *line != '\0'; line = strchr(line, '\n') + 1) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(strchr(line, '\n'));
		CU_ASSERT(line[0] == '#' || strncmp(line, "flume_", 6) == 0);
	}
	wbuf_free(&wb);
}

static void
diff_collect(const char *key, void *arg)
{
	char *buf = arg;

	strlcat(buf, key, 512);
	strlcat(buf, ";", 512);
}

static int
write_conf(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void
test_config_diff(void)
{
	char *dir = test_mkdtemp("statsconf"), path[512], err[1024], got[512];
	struct config a, b;

	snprintf(path, sizeof(path), "%s/f.conf", dir);
	CU_ASSERT_EQUAL_FATAL(write_conf(path, "log_level = info\n"
	    "retention_ms = 7d\n[topic keep]\nretention_ms = 1d\n"), 0);
	CU_ASSERT_EQUAL_FATAL(config_load(&a, path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(write_conf(path, "log_level = debug\n"
	    "listen = 127.0.0.1:9999\nretention_ms = 7d\n"
	    "metrics_listen = 127.0.0.1:9193\n"
	    "[topic keep]\nretention_ms = 2d\n[topic new]\n"), 0);
	CU_ASSERT_EQUAL_FATAL(config_load(&b, path, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(b.metrics_listen, "127.0.0.1:9193");
	CU_ASSERT_STRING_EQUAL(b.metrics_port, "9193");
	got[0] = '\0';
	CU_ASSERT_EQUAL(config_diff(&a, &b, diff_collect, got), 5);
	CU_ASSERT_STRING_EQUAL(got, "listen;log_level;metrics_listen;"
	    "[topic keep];[topic new];");
	got[0] = '\0';
	CU_ASSERT_EQUAL(config_diff(&b, &b, diff_collect, got), 0);
	CU_ASSERT_STRING_EQUAL(got, "");
	CU_ASSERT(config_key_reloadable("log_level"));
	CU_ASSERT(config_key_reloadable("retention_ms"));
	CU_ASSERT(config_key_reloadable("max_connections"));
	CU_ASSERT(!config_key_reloadable("listen"));
	CU_ASSERT(!config_key_reloadable("workers"));
	CU_ASSERT(!config_key_reloadable("metrics_listen"));
	CU_ASSERT(!config_key_reloadable("no_such_key"));
	config_free(&a);
	config_free(&b);

	/* metrics_listen = off is accepted and means none. */
	CU_ASSERT_EQUAL_FATAL(write_conf(path, "metrics_listen = off\n"), 0);
	CU_ASSERT_EQUAL_FATAL(config_load(&a, path, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(a.metrics_listen, "");
	config_free(&a);
	CU_ASSERT_EQUAL_FATAL(write_conf(path, "metrics_listen = nowhere\n"), 0);
	CU_ASSERT_EQUAL(config_load(&a, path, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "f.conf:1: bad value 'nowhere' for metrics_listen"));
	test_rmtree(dir);
	free(dir);
}

static void
test_live_seqlock(void)
{
	struct shm_limits lim = {
		.child_slots = 2, .max_topics = 1, .max_partitions = 1,
		.ring_size = 4096
	};
	struct config master, child;
	struct shm s;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &lim), 0);
	config_defaults(&master);
	config_defaults(&child);
	/* Nothing published yet: nothing to apply. */
	CU_ASSERT_EQUAL(live_refresh(&s, &child), 0);

	master.log_level = LOG_LVL_ERROR;
	master.log.retention_ms = 5000;
	master.log.retention_bytes = 1 << 20;
	master.max_connections = 7;
	master.idle_timeout_ms = 1234;
	master.flush_messages = 3;
	master.ring_size = 1 << 16;	/* not reloadable */
	live_publish(&s, &master);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->live.seq), 2);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->live.generation), 1);
	CU_ASSERT_EQUAL(live_refresh(&s, &child), 1);
	CU_ASSERT_EQUAL(child.log_level, LOG_LVL_ERROR);
	CU_ASSERT_EQUAL(log_getlevel(), LOG_LVL_ERROR);
	CU_ASSERT_EQUAL(child.log.retention_ms, 5000);
	CU_ASSERT_EQUAL(child.log.retention_bytes, 1 << 20);
	CU_ASSERT_EQUAL(child.max_connections, 7);
	CU_ASSERT_EQUAL(child.idle_timeout_ms, 1234);
	CU_ASSERT_EQUAL(child.flush_messages, 3);
	/* Not reloadable: untouched. */
	CU_ASSERT_EQUAL(child.ring_size, 8u << 20);
	/* Applied once. */
	CU_ASSERT_EQUAL(live_refresh(&s, &child), 0);

	/* A master that died mid-write: seq stays odd, the child keeps its values. */
	master.max_connections = 99;
	live_publish(&s, &master);
	atomic_fetch_add(&s.hdr->live.seq, 1);
	CU_ASSERT_EQUAL(live_refresh(&s, &child), 0);
	CU_ASSERT_EQUAL(child.max_connections, 7);
	atomic_fetch_add(&s.hdr->live.seq, 1);
	CU_ASSERT_EQUAL(live_refresh(&s, &child), 1);
	CU_ASSERT_EQUAL(child.max_connections, 99);

	/* A place outside struct config in the block is refused, not written. */
	master.max_connections = 5;
	live_publish(&s, &master);
	atomic_store(&s.hdr->live.field[0].off, (uint32_t)sizeof(struct config));
	CU_ASSERT_EQUAL(live_refresh(&s, &child), 1);
	CU_ASSERT_EQUAL(child.max_connections, 5);
	log_setlevel(LOG_LVL_WARN);
	config_free(&master);
	config_free(&child);
	shm_detach(&s);
	shm_unlink_name(fixture_shm_name());
}

/* The reload column: exactly these keys, all numbers, all fit the live block. */
static void
test_reload_column(void)
{
	static const char *const want[] = {
		"retention_bytes", "retention_ms", "flush_interval_ms",
		"flush_messages", "max_message_bytes", "auto_create_topics",
		"max_connections", "max_connections_per_ip",
		"handshake_timeout_ms", "idle_timeout_ms", "request_timeout_ms",
		"retention_check_ms", "log_level",
	};
	struct config_field f[SHM_LIVE_FIELDS];
	size_t i, n;

	n = config_reloadable(f, SHM_LIVE_FIELDS);
	CU_ASSERT_EQUAL_FATAL(n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < n; i++) {
		CU_ASSERT_STRING_EQUAL(f[i].name, want[i]);
		CU_ASSERT(f[i].width == 4 || f[i].width == 8);
		CU_ASSERT(f[i].off + f[i].width <= sizeof(struct config));
		CU_ASSERT(config_key_reloadable(f[i].name));
	}
}

TEST_SUITE("stats", setup, teardown,
	{ "STATS codec round trip, truncations refused", test_codec_roundtrip },
	{ "STATS error-only answer", test_codec_error_only },
	{ "STATS count beyond the payload", test_codec_huge_count },
	{ "snapshot of a region's counters", test_collect },
	{ "Prometheus text rendering", test_render },
	{ "configuration diff for SIGHUP", test_config_diff },
	{ "live settings seqlock", test_live_seqlock },
	{ "the reload column of the key table", test_reload_column });
