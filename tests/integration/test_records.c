/*
 * Deleting records, groups and committed offsets (issue 27) through the
 * real daemon: librdkafka 2.0's admin API (rd_kafka_DeleteRecords,
 * rd_kafka_DeleteGroups, rd_kafka_DeleteConsumerGroupOffsets: Kafka's
 * DeleteRecords, DeleteGroups and OffsetDelete), the native face
 * through libflume and flume-admin, and a restart in between.
 *
 * Topic "dr" (one partition, 4 KiB segments) gets 30 records of 1000
 * bytes, one batch each, so its log has several segments whose bases
 * the tests read from the directory.  The tests run in order on one
 * broker and build on each other; the last one starts a second broker
 * with an auth_file.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "clients/flume.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define HOST		"127.0.0.1"
#define NREC		30
#define MAXFILES	64

static struct flumed d;
static char kbroker[64];
/* The bases of dr/0's segments before the first delete, ascending. */
static long long bases[MAXFILES];
static int nbases;
/* The offset the first delete moved the start to. */
static long long mid;

static int
start_with(struct flumed *fd, char *broker, size_t size, const char *more)
{
	char extra[1600];
	int kport;

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(broker, size, HOST ":%d", kport);
	snprintf(extra, sizeof(extra), "kafka_listen = %s\n"
	    "group_initial_rebalance_delay_ms = 100ms\n"
	    "segment_bytes = 4K\n%s"
	    "[topic dr]\npartitions = 1\n[topic ed]\npartitions = 1\n"
	    "[topic od]\npartitions = 2\n[topic ox]\npartitions = 2\n",
	    broker, more);
	return flumed_start(fd, extra);
}

static int
setup(void)
{
	return start_with(&d, kbroker, sizeof(kbroker), "");
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* ---- librdkafka ---- */

static rd_kafka_t *
client_new(const char *broker, rd_kafka_type_t type, const char *group,
    const char *user, const char *pw)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char err[256];
	int ok;

	ok = rd_kafka_conf_set(conf, "bootstrap.servers", broker, err,
	    sizeof(err)) == RD_KAFKA_CONF_OK;
	if (ok && type == RD_KAFKA_PRODUCER)
		ok = rd_kafka_conf_set(conf, "linger.ms", "0", err,
		    sizeof(err)) == RD_KAFKA_CONF_OK;
	if (ok && group != NULL)
		ok = rd_kafka_conf_set(conf, "group.id", group, err,
		    sizeof(err)) == RD_KAFKA_CONF_OK &&
		    rd_kafka_conf_set(conf, "auto.offset.reset", "error",
		    err, sizeof(err)) == RD_KAFKA_CONF_OK &&
		    rd_kafka_conf_set(conf, "enable.auto.commit", "false",
		    err, sizeof(err)) == RD_KAFKA_CONF_OK;
	if (ok && user != NULL)
		ok = rd_kafka_conf_set(conf, "security.protocol",
		    "SASL_PLAINTEXT", err, sizeof(err)) == RD_KAFKA_CONF_OK &&
		    rd_kafka_conf_set(conf, "sasl.mechanisms",
		    "SCRAM-SHA-256", err, sizeof(err)) == RD_KAFKA_CONF_OK &&
		    rd_kafka_conf_set(conf, "sasl.username", user, err,
		    sizeof(err)) == RD_KAFKA_CONF_OK &&
		    rd_kafka_conf_set(conf, "sasl.password", pw, err,
		    sizeof(err)) == RD_KAFKA_CONF_OK;
	if (!ok) {
		rd_kafka_conf_destroy(conf);
		return NULL;
	}
	return rd_kafka_new(type, conf, err, sizeof(err));
}

static rd_kafka_t *
admin_new(void)
{
	return client_new(kbroker, RD_KAFKA_PRODUCER, NULL, NULL, NULL);
}

/* Wait for the admin result of type t on q (20 s); NULL on timeout. */
static rd_kafka_event_t *
admin_wait(rd_kafka_queue_t *q, rd_kafka_event_type_t t)
{
	rd_kafka_event_t *ev;
	int i;

	for (i = 0; i < 200; i++) {
		if ((ev = rd_kafka_queue_poll(q, 100)) == NULL)
			continue;
		if (rd_kafka_event_type(ev) == t)
			return ev;
		rd_kafka_event_destroy(ev);
	}
	return NULL;
}

/* n records of 1000 bytes to topic/part, one batch each; 0 or -1. */
static int
produce(rd_kafka_t *rk, const char *topic, int32_t part, int n)
{
	char value[1000];
	int i;

	memset(value, 'v', sizeof(value));
	for (i = 0; i < n; i++) {
		if (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
		    RD_KAFKA_V_PARTITION(part),
		    RD_KAFKA_V_VALUE(value, sizeof(value)),
		    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
		    RD_KAFKA_V_END) != RD_KAFKA_RESP_ERR_NO_ERROR)
			return -1;
		if (rd_kafka_flush(rk, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR)
			return -1;
	}
	return 0;
}

/*
 * rd_kafka_DeleteRecords of topic/part below offset: the partition's
 * error, its low watermark in *low; -1000 when no answer came.
 */
static int
delete_records(rd_kafka_t *rk, const char *topic, int32_t part,
    int64_t offset, int64_t *low)
{
	rd_kafka_topic_partition_list_t *tl;
	rd_kafka_DeleteRecords_t *dr;
	rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
	const rd_kafka_topic_partition_list_t *res;
	rd_kafka_event_t *ev;
	int err = -1000;

	tl = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(tl, topic, part)->offset = offset;
	dr = rd_kafka_DeleteRecords_new(tl);
	rd_kafka_topic_partition_list_destroy(tl);
	rd_kafka_DeleteRecords(rk, &dr, 1, NULL, q);
	rd_kafka_DeleteRecords_destroy(dr);
	if ((ev = admin_wait(q, RD_KAFKA_EVENT_DELETERECORDS_RESULT)) !=
	    NULL) {
		/* librdkafka asserts there are results: not on an error. */
		if ((err = rd_kafka_event_error(ev)) != 0)
			fprintf(stderr, "DeleteRecords: %s\n",
			    rd_kafka_event_error_string(ev));
		else if ((res = rd_kafka_DeleteRecords_result_offsets(
		    rd_kafka_event_DeleteRecords_result(ev))) != NULL &&
		    res->cnt == 1) {
			err = res->elems[0].err;
			*low = res->elems[0].offset;
		} else
			err = -2000;
		rd_kafka_event_destroy(ev);
	}
	rd_kafka_queue_destroy(q);
	return err;
}

/* Kafka's ListOffsets earliest and latest of topic/part; 0 or -1. */
static int
watermarks(rd_kafka_t *rk, const char *topic, int32_t part, int64_t *lo,
    int64_t *hi)
{
	return rd_kafka_query_watermark_offsets(rk, topic, part, lo, hi,
	    10000) == RD_KAFKA_RESP_ERR_NO_ERROR ? 0 : -1;
}

/*
 * A consumer of topic/part from offset with auto.offset.reset=error:
 * the error its fetch meets (RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET when
 * the broker answered OFFSET_OUT_OF_RANGE), 0 with the offset of the
 * first message in *first; -1000 when nothing came.
 */
static int
consume_from(const char *topic, int32_t part, int64_t offset,
    int64_t *first)
{
	rd_kafka_t *rk;
	rd_kafka_topic_partition_list_t *tl;
	rd_kafka_message_t *m;
	int i, err = -1000;

	if ((rk = client_new(kbroker, RD_KAFKA_CONSUMER, "reader", NULL,
	    NULL)) == NULL)
		return -1000;
	tl = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(tl, topic, part)->offset = offset;
	rd_kafka_assign(rk, tl);
	rd_kafka_topic_partition_list_destroy(tl);
	for (i = 0; i < 100 && err == -1000; i++) {
		if ((m = rd_kafka_consumer_poll(rk, 100)) == NULL)
			continue;
		err = m->err;
		if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
			*first = m->offset;
		rd_kafka_message_destroy(m);
	}
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	return err;
}

/* ---- native ---- */

/* The native FETCH of topic/part at offset: the partition's error. */
static int
native_fetch_error(const char *topic, int32_t part, int64_t offset)
{
	struct wbuf w;
	uint8_t *p = NULL;
	size_t len = 0;
	int fd, rc;

	if ((fd = support_connect_served(&d, 5000)) < 0)
		return -1000;
	wbuf_init(&w);
	wbuf_i32(&w, 0);		/* max_wait_ms */
	wbuf_i32(&w, 1);		/* min_bytes */
	wbuf_i32(&w, 1 << 20);
	wbuf_i32(&w, 1);
	wbuf_str(&w, topic, strlen(topic));
	wbuf_i32(&w, part);
	wbuf_i64(&w, offset);
	wbuf_i32(&w, 1 << 20);
	rc = support_call(fd, API_FETCH, 7, &w, 5000, &p, &len);
	if (rc == 0)
		rc = len >= 8 ? (int16_t)((p[6] << 8) | p[7]) : -2000;
	free(p);
	wbuf_free(&w);
	close(fd);
	return rc;
}

/* The native LIST_OFFSETS earliest (-2) or latest (-1); -100 on failure. */
static long long
native_offset(const char *topic, int32_t part, int64_t which)
{
	struct flume_client *c;
	int64_t off = -100;

	if ((c = flume_connect(d.broker)) == NULL)
		return -100;
	if (flume_list_offset(c, topic, part, which, &off) == -1)
		off = -100;
	flume_close(c);
	return (long long)off;
}

/* The group's committed offset of topic/part (-1: none); -100 on failure. */
static long long
committed(const char *group, const char *topic, int32_t part)
{
	struct flume_client *c;
	int64_t off = -100;

	if ((c = flume_connect(d.broker)) == NULL)
		return -100;
	if (flume_committed_offset(c, group, topic, part, &off) == -1)
		off = -100;
	flume_close(c);
	return (long long)off;
}

/*
 * Set group's committed offset of topic/part (-1: every partition; the
 * group has no members).
 */
static int
commit_at(const char *group, const char *topic, int32_t part, int64_t off)
{
	struct flume_client *c;
	struct flume_reset_result *res = NULL;
	int n;

	if ((c = flume_connect(d.broker)) == NULL)
		return -1;
	n = flume_group_reset(c, group, topic, part, FLUME_RESET_TO_OFFSET,
	    off, &res);
	free(res);
	flume_close(c);
	return n >= 1 ? 0 : -1;
}

/* ---- the partition directory ---- */

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The sorted entries of topic/part's directory, joined by spaces into
 * buf; the number of entries, or -1.
 */
static int
dir_files(const char *topic, int32_t part, char *buf, size_t size)
{
	char path[1024], *names[MAXFILES];
	struct dirent *de;
	DIR *dp;
	int n = 0, i;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/data/%s/partition-%d", d.dir, topic,
	    (int)part);
	if ((dp = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(dp)) != NULL && n < MAXFILES)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(dp);
	qsort(names, (size_t)n, sizeof(names[0]), name_cmp);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    i > 0 ? " " : "", names[i]);
		free(names[i]);
	}
	return n;
}

/* The file list of segments bases[from..nbases), then more (or NULL). */
static void
expect_files(int from, const char *more, char *buf, size_t size)
{
	const char *ext[3] = { "index", "log", "timeindex" };
	size_t len = 0;
	int i, e;

	buf[0] = '\0';
	for (i = from; i < nbases; i++)
		for (e = 0; e < 3; e++)
			len += (size_t)snprintf(buf + len, size - len,
			    "%s%020lld.%s", len > 0 ? " " : "", bases[i],
			    ext[e]);
	if (more != NULL)
		snprintf(buf + len, size - len, "%s%s", len > 0 ? " " : "",
		    more);
}

/* ---- DeleteRecords ---- */

/*
 * 30 records in several segments; DeleteRecords to an offset inside the
 * third segment answers it as the low watermark; the two segments below
 * it are gone from the directory (exactly: the others and log-start
 * remain); a Kafka fetch below it meets OFFSET_OUT_OF_RANGE, a native
 * FETCH too; ListOffsets earliest (both faces) and the metadata's log
 * start say it; a fetch at it returns the record of that offset.
 */
static void
test_delete_mid_segment(void)
{
	char files[4096], want[4096], path[1024];
	struct dirent *de;
	DIR *dp;
	rd_kafka_t *rk;
	int64_t low = -5, lo = -5, hi = -5, first = -5;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rk = admin_new());
	CU_ASSERT_FATAL(produce(rk, "dr", 0, NREC) == 0);
	CU_ASSERT_EQUAL(native_offset("dr", 0, -1), NREC);
	/* Every batch reaches the files before the listing. */
	WAIT_UNTIL(native_offset("dr", 0, -1) == NREC, 5000);
	snprintf(path, sizeof(path), "%s/data/dr/partition-0", d.dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dp = opendir(path));
	nbases = 0;
	while ((de = readdir(dp)) != NULL && nbases < MAXFILES) {
		size_t l = strlen(de->d_name);

		if (l == 24 && strcmp(de->d_name + 20, ".log") == 0)
			bases[nbases++] = atoll(de->d_name);
	}
	closedir(dp);
	for (i = 1; i < nbases; i++)	/* sorted: they are few */
		if (bases[i] < bases[i - 1]) {
			long long t = bases[i];

			bases[i] = bases[i - 1];
			bases[i - 1] = t;
			i = 0;
		}
	CU_ASSERT_FATAL(nbases >= 4);
	CU_ASSERT_EQUAL(bases[0], 0);
	/* Inside the third segment, not at its base. */
	CU_ASSERT_FATAL(bases[3] - bases[2] >= 2);
	mid = bases[2] + 1;
	expect_files(0, NULL, want, sizeof(want));
	CU_ASSERT_EQUAL(dir_files("dr", 0, files, sizeof(files)), 3 * nbases);
	CU_ASSERT_STRING_EQUAL(files, want);

	CU_ASSERT_EQUAL(delete_records(rk, "dr", 0, mid, &low),
	    RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_EQUAL(low, mid);
	expect_files(2, "log-start", want, sizeof(want));
	CU_ASSERT_EQUAL(dir_files("dr", 0, files, sizeof(files)),
	    3 * (nbases - 2) + 1);
	CU_ASSERT_STRING_EQUAL(files, want);
	CU_ASSERT_EQUAL(watermarks(rk, "dr", 0, &lo, &hi), 0);
	CU_ASSERT_EQUAL(lo, mid);
	CU_ASSERT_EQUAL(hi, NREC);
	CU_ASSERT_EQUAL(native_offset("dr", 0, -2), mid);
	CU_ASSERT_EQUAL(consume_from("dr", 0, mid - 1, &first),
	    RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET);
	CU_ASSERT_EQUAL(consume_from("dr", 0, 0, &first),
	    RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET);
	CU_ASSERT_EQUAL(consume_from("dr", 0, mid, &first), 0);
	CU_ASSERT_EQUAL(first, mid);
	CU_ASSERT_EQUAL(native_fetch_error("dr", 0, mid - 1),
	    ERR_OFFSET_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(native_fetch_error("dr", 0, mid), ERR_NONE);
	CU_ASSERT(flumed_log_count(&d, "dr-0: records deleted below") == 1);
	rd_kafka_destroy(rk);
}

/*
 * Below the start: nothing changes, the answer is the start as it is.
 * Past the end: OFFSET_OUT_OF_RANGE with low watermark -1 and nothing
 * changed (files, earliest).
 */
static void
test_delete_below_and_past(void)
{
	char files[4096], want[4096];
	struct flume_client *c;
	rd_kafka_t *rk;
	int64_t low = -5, lo = -5, hi = -5, start = -5;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rk = admin_new());
	CU_ASSERT_EQUAL(delete_records(rk, "dr", 0, 1, &low),
	    RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_EQUAL(low, mid);
	CU_ASSERT_EQUAL(delete_records(rk, "dr", 0, NREC + 1, &low),
	    RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(low, -1);
	CU_ASSERT_EQUAL(watermarks(rk, "dr", 0, &lo, &hi), 0);
	CU_ASSERT_EQUAL(lo, mid);
	CU_ASSERT_EQUAL(hi, NREC);
	expect_files(2, "log-start", want, sizeof(want));
	dir_files("dr", 0, files, sizeof(files));
	CU_ASSERT_STRING_EQUAL(files, want);
	/* An unknown partition (librdkafka refuses it before asking). */
	CU_ASSERT_PTR_NOT_NULL_FATAL(c = flume_connect(d.broker));
	CU_ASSERT_EQUAL(flume_delete_records(c, "dr", 5, 0, &start), -1);
	CU_ASSERT_EQUAL(flume_broker_error(c), ERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL(flume_delete_records(c, "dr", 0, NREC + 1, &start),
	    -1);
	CU_ASSERT_EQUAL(flume_broker_error(c), ERR_OFFSET_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(flume_delete_records(c, "dr", 0, 0, &start), 0);
	CU_ASSERT_EQUAL(start, mid);
	flume_close(c);
	CU_ASSERT(flumed_log_count(&d, "records below 31 not deleted: the "
	    "log ends at 30") == 2);
	rd_kafka_destroy(rk);
}

/*
 * After a restart the start is still exact (inside its segment, not
 * rounded down to the segment's base) and the files are the same.
 */
static void
test_delete_restart(void)
{
	char files[4096], want[4096];
	int64_t first = -5;

	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(native_offset("dr", 0, -2), mid);
	CU_ASSERT_EQUAL(native_offset("dr", 0, -1), NREC);
	expect_files(2, "log-start", want, sizeof(want));
	dir_files("dr", 0, files, sizeof(files));
	CU_ASSERT_STRING_EQUAL(files, want);
	CU_ASSERT_EQUAL(native_fetch_error("dr", 0, mid - 1),
	    ERR_OFFSET_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(consume_from("dr", 0, mid - 1, &first),
	    RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET);
}

/*
 * -1 is the high watermark: every record goes, the start is the end;
 * new records follow at the old end and are read from there.
 */
static void
test_delete_to_end(void)
{
	rd_kafka_t *rk;
	int64_t low = -5, lo = -5, hi = -5, first = -5;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rk = admin_new());
	CU_ASSERT_EQUAL(delete_records(rk, "dr", 0, -1, &low),
	    RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_EQUAL(low, NREC);
	CU_ASSERT_EQUAL(watermarks(rk, "dr", 0, &lo, &hi), 0);
	CU_ASSERT_EQUAL(lo, NREC);
	CU_ASSERT_EQUAL(hi, NREC);
	CU_ASSERT_EQUAL(native_fetch_error("dr", 0, NREC - 1),
	    ERR_OFFSET_OUT_OF_RANGE);
	CU_ASSERT_FATAL(produce(rk, "dr", 0, 1) == 0);
	CU_ASSERT_EQUAL(consume_from("dr", 0, NREC, &first), 0);
	CU_ASSERT_EQUAL(first, NREC);
	rd_kafka_destroy(rk);
}

/* ---- DeleteGroups and OffsetDelete ---- */

/* rd_kafka_DeleteGroups of group: its error; -1000 when no answer came. */
static int
delete_group(rd_kafka_t *rk, const char *group)
{
	rd_kafka_DeleteGroup_t *g = rd_kafka_DeleteGroup_new(group);
	rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
	const rd_kafka_group_result_t **gr;
	const rd_kafka_error_t *e;
	rd_kafka_event_t *ev;
	size_t n;
	int err = -1000;

	rd_kafka_DeleteGroups(rk, &g, 1, NULL, q);
	rd_kafka_DeleteGroup_destroy(g);
	if ((ev = admin_wait(q, RD_KAFKA_EVENT_DELETEGROUPS_RESULT)) != NULL) {
		gr = rd_kafka_DeleteGroups_result_groups(
		    rd_kafka_event_DeleteGroups_result(ev), &n);
		if (n == 1) {
			e = rd_kafka_group_result_error(gr[0]);
			err = e != NULL ? (int)rd_kafka_error_code(e) : 0;
		} else
			err = rd_kafka_event_error(ev);
		rd_kafka_event_destroy(ev);
	}
	rd_kafka_queue_destroy(q);
	return err;
}

/*
 * rd_kafka_DeleteConsumerGroupOffsets of group's partitions tl: the
 * group's error (-1000: no answer), each partition's error in errs.
 */
static int
delete_offsets(rd_kafka_t *rk, const char *group,
    rd_kafka_topic_partition_list_t *tl, int *errs)
{
	rd_kafka_DeleteConsumerGroupOffsets_t *o;
	rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
	const rd_kafka_group_result_t **gr;
	const rd_kafka_topic_partition_list_t *pl;
	const rd_kafka_error_t *e;
	rd_kafka_event_t *ev;
	size_t n;
	int err = -1000, i;

	o = rd_kafka_DeleteConsumerGroupOffsets_new(group, tl);
	rd_kafka_DeleteConsumerGroupOffsets(rk, &o, 1, NULL, q);
	rd_kafka_DeleteConsumerGroupOffsets_destroy(o);
	if ((ev = admin_wait(q,
	    RD_KAFKA_EVENT_DELETECONSUMERGROUPOFFSETS_RESULT)) != NULL) {
		gr = rd_kafka_DeleteConsumerGroupOffsets_result_groups(
		    rd_kafka_event_DeleteConsumerGroupOffsets_result(ev), &n);
		err = rd_kafka_event_error(ev);
		if (err == 0 && n == 1) {
			e = rd_kafka_group_result_error(gr[0]);
			err = e != NULL ? (int)rd_kafka_error_code(e) : 0;
			pl = rd_kafka_group_result_partitions(gr[0]);
			for (i = 0; pl != NULL && i < pl->cnt &&
			    i < tl->cnt; i++)
				errs[i] = pl->elems[i].err;
		}
		rd_kafka_event_destroy(ev);
	}
	rd_kafka_queue_destroy(q);
	return err;
}

/* A consumer of group subscribed to topic, until it has an assignment. */
static rd_kafka_t *
member_new(const char *group, const char *topic)
{
	rd_kafka_topic_partition_list_t *tl, *as = NULL;
	rd_kafka_message_t *m;
	rd_kafka_t *rk;
	int i;

	if ((rk = client_new(kbroker, RD_KAFKA_CONSUMER, group, NULL,
	    NULL)) == NULL)
		return NULL;
	rd_kafka_poll_set_consumer(rk);
	tl = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(tl, topic, RD_KAFKA_PARTITION_UA);
	rd_kafka_subscribe(rk, tl);
	rd_kafka_topic_partition_list_destroy(tl);
	for (i = 0; i < 150; i++) {
		if ((m = rd_kafka_consumer_poll(rk, 100)) != NULL)
			rd_kafka_message_destroy(m);
		if (rd_kafka_assignment(rk, &as) ==
		    RD_KAFKA_RESP_ERR_NO_ERROR && as->cnt > 0) {
			rd_kafka_topic_partition_list_destroy(as);
			return rk;
		}
		if (as != NULL)
			rd_kafka_topic_partition_list_destroy(as);
		as = NULL;
	}
	rd_kafka_destroy(rk);
	return NULL;
}

/*
 * librdkafka 2.0's DeleteGroups (which aborts the client process when
 * the broker lacks the API) of a group without members: its committed
 * offsets are gone (OffsetFetch answers -1), a second delete is
 * GROUP_ID_NOT_FOUND; of a group with a member: NON_EMPTY_GROUP and its
 * offsets stay.
 */
static void
test_delete_groups(void)
{
	rd_kafka_t *rk, *mem;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rk = admin_new());
	CU_ASSERT_EQUAL_FATAL(commit_at("ge", "ed", 0, 0), 0);
	CU_ASSERT_EQUAL(committed("ge", "ed", 0), 0);
	CU_ASSERT_EQUAL(delete_group(rk, "ge"), RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_EQUAL(committed("ge", "ed", 0), -1);
	CU_ASSERT_EQUAL(delete_group(rk, "ge"),
	    RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND);

	CU_ASSERT_EQUAL_FATAL(commit_at("gl", "ed", 0, 0), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mem = member_new("gl", "ed"));
	CU_ASSERT_EQUAL(delete_group(rk, "gl"),
	    RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP);
	CU_ASSERT_EQUAL(committed("gl", "ed", 0), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, ": DeleteGroups: delete of group "
	    "gl refused: it has members"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, ": DeleteGroups: delete of group "
	    "ge refused: no such group"), 1);
	rd_kafka_consumer_close(mem);
	rd_kafka_destroy(mem);
	/* Its member left: now it goes. */
	CU_ASSERT_EQUAL(delete_group(rk, "gl"), RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_EQUAL(committed("gl", "ed", 0), -1);
	rd_kafka_destroy(rk);
}

/*
 * OffsetDelete of a group without members deletes what is asked and
 * keeps the rest; of a group whose member consumes "od": od's
 * partitions are GROUP_SUBSCRIBED_TO_TOPIC and kept, ox's (not
 * subscribed) deleted.  An unknown group is GROUP_ID_NOT_FOUND.  After
 * a restart the deleted offsets are still gone.
 */
static void
test_offset_delete(void)
{
	rd_kafka_topic_partition_list_t *tl;
	rd_kafka_t *rk, *mem;
	int errs[4] = { -5, -5, -5, -5 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(rk = admin_new());
	CU_ASSERT_EQUAL_FATAL(commit_at("oe", "od", -1, 0), 0);
	CU_ASSERT_EQUAL(committed("oe", "od", 1), 0);
	tl = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(tl, "od", 1);
	CU_ASSERT_EQUAL(delete_offsets(rk, "oe", tl, errs), 0);
	CU_ASSERT_EQUAL(errs[0], 0);
	rd_kafka_topic_partition_list_destroy(tl);
	CU_ASSERT_EQUAL(committed("oe", "od", 0), 0);
	CU_ASSERT_EQUAL(committed("oe", "od", 1), -1);

	CU_ASSERT_EQUAL_FATAL(commit_at("oa", "od", -1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(commit_at("oa", "ox", -1, 0), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mem = member_new("oa", "od"));
	tl = rd_kafka_topic_partition_list_new(4);
	rd_kafka_topic_partition_list_add(tl, "od", 0);
	rd_kafka_topic_partition_list_add(tl, "od", 1);
	rd_kafka_topic_partition_list_add(tl, "ox", 0);
	rd_kafka_topic_partition_list_add(tl, "ox", 1);
	CU_ASSERT_EQUAL(delete_offsets(rk, "oa", tl, errs), 0);
	CU_ASSERT_EQUAL(errs[0], RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC);
	CU_ASSERT_EQUAL(errs[1], RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC);
	CU_ASSERT_EQUAL(errs[2], 0);
	CU_ASSERT_EQUAL(errs[3], 0);
	CU_ASSERT_EQUAL(committed("oa", "od", 0), 0);
	CU_ASSERT_EQUAL(committed("oa", "od", 1), 0);
	CU_ASSERT_EQUAL(committed("oa", "ox", 0), -1);
	CU_ASSERT_EQUAL(committed("oa", "ox", 1), -1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, ": OffsetDelete: group oa: 2 "
	    "committed offsets kept: its members consume the topic"), 1);
	CU_ASSERT_EQUAL(delete_offsets(rk, "nosuchgroup", tl, errs),
	    RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND);
	rd_kafka_topic_partition_list_destroy(tl);
	rd_kafka_consumer_close(mem);
	rd_kafka_destroy(mem);
	rd_kafka_destroy(rk);

	/* Saved without them: a restart reads the files back. */
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(committed("oe", "od", 0), 0);
	CU_ASSERT_EQUAL(committed("oe", "od", 1), -1);
	CU_ASSERT_EQUAL(committed("oa", "od", 0), 0);
	CU_ASSERT_EQUAL(committed("oa", "od", 1), 0);
	CU_ASSERT_EQUAL(committed("oa", "ox", 0), -1);
	CU_ASSERT_EQUAL(committed("oa", "ox", 1), -1);
}

/* ---- flexible versions and edge cases, by hand ---- */

/*
 * Send body as (key, ver) with a v2 request header (flexible: an empty
 * tag section after the client id) and expect the answer want (after
 * the response header v1's empty tag section); 1 when it matches.
 */
static int
flex_exchange(int fd, int16_t key, int16_t ver, int32_t corr,
    const uint8_t *body, size_t blen, const uint8_t *want, size_t wlen)
{
	uint8_t buf[256], *p = NULL;
	uint32_t id = 0;
	size_t n = 0;
	int ok;

	buf[0] = 0;				/* header tags */
	memcpy(buf + 1, body, blen);
	if (support_kafka_send(fd, key, ver, corr, buf, blen + 1) == -1 ||
	    support_recv(fd, 10000, &id, &p, &n) != 1)
		return 0;
	ok = id == (uint32_t)corr && n == wlen + 1 && p[0] == 0 &&
	    memcmp(p + 1, want, wlen) == 0;
	if (!ok) {
		size_t i;

		fprintf(stderr, "key %d v%d: got", key, ver);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %02x", p[i]);
		fprintf(stderr, "\n");
	}
	free(p);
	return ok;
}

/*
 * DeleteGroups v2 (flexible: no client sends it) of "" and an unknown
 * group: INVALID_GROUP_ID and GROUP_ID_NOT_FOUND; DeleteRecords v2 of
 * dr/0 at -1 answers the log end; OffsetDelete v0 of "" is
 * INVALID_GROUP_ID without topics.
 */
static void
test_flexible_by_hand(void)
{
	static const uint8_t dg[] = { 3, 1, 3, 'n', 'o', 0 };
	static const uint8_t dg_want[] = { 0, 0, 0, 0, 3, 1, 0, 24, 0,
	    3, 'n', 'o', 0, 69, 0, 0 };
	static const uint8_t dr[] = { 2, 3, 'd', 'r', 2, 0, 0, 0, 0,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0,
	    0, 0, 0x13, 0x88, 0 };
	static const uint8_t od[] = { 0, 0, 0, 0, 0, 1, 0, 2, 'd', 'r',
	    0, 0, 0, 1, 0, 0, 0, 0 };
	static const uint8_t od_want[] = { 0, 24, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t dr_want[] = { 0, 0, 0, 0, 2, 3, 'd', 'r', 2, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t *p = NULL;
	uint32_t id = 0;
	size_t n = 0;
	int fd;
	int64_t end = native_offset("dr", 0, -1);

	CU_ASSERT_FATAL(end > 0);
	CU_ASSERT_FATAL((fd = support_connect_from(atoi(strchr(kbroker,
	    ':') + 1), NULL)) >= 0);
	CU_ASSERT(flex_exchange(fd, 42, 2, 1, dg, sizeof(dg), dg_want,
	    sizeof(dg_want)));
	/* low_watermark at [13..21): the end. */
	dr_want[13] = (uint8_t)(end >> 56);
	dr_want[14] = (uint8_t)(end >> 48);
	dr_want[15] = (uint8_t)(end >> 40);
	dr_want[16] = (uint8_t)(end >> 32);
	dr_want[17] = (uint8_t)(end >> 24);
	dr_want[18] = (uint8_t)(end >> 16);
	dr_want[19] = (uint8_t)(end >> 8);
	dr_want[20] = (uint8_t)end;
	CU_ASSERT(flex_exchange(fd, 21, 2, 2, dr, sizeof(dr), dr_want,
	    sizeof(dr_want)));
	CU_ASSERT_EQUAL(native_offset("dr", 0, -2), end);
	/* OffsetDelete is not flexible: header v1, answer header v0. */
	CU_ASSERT_EQUAL_FATAL(support_kafka_send(fd, 47, 0, 3, od,
	    sizeof(od)), 0);
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(id, 3);
	CU_ASSERT(n == sizeof(od_want) && memcmp(p, od_want, n) == 0);
	free(p);
	close(fd);
}

/* ---- flume-admin ---- */

static int
admin(char **out, const char *a1, const char *a2, const char *a3,
    const char *a4, const char *a5)
{
	const char *argv[] = { "flume-admin", a1, a2, a3, a4, a5, NULL };

	return run_tool(&d, NULL, out, 30000, argv);
}

/*
 * A topic whose cleanup.policy lacks delete loses no record this way
 * (Kafka's POLICY_VIOLATION): the start stays, no log-start file is
 * written; set back to delete, the same request is served.
 */
static void
test_delete_compacted(void)
{
	char *out = NULL;
	rd_kafka_t *rk;
	int64_t low = -5, lo = -5, hi = -5;
	char path[1024];

	CU_ASSERT_EQUAL_FATAL(admin(&out, "create", "drc", "-p", "1", NULL),
	    0);
	free(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rk = admin_new());
	CU_ASSERT_FATAL(produce(rk, "drc", 0, 3) == 0);
	CU_ASSERT_EQUAL_FATAL(admin(&out, "config", "drc", "set",
	    "cleanup.policy=compact", NULL), 0);
	free(out);
	CU_ASSERT_EQUAL(delete_records(rk, "drc", 0, 2, &low),
	    RD_KAFKA_RESP_ERR_POLICY_VIOLATION);
	CU_ASSERT_EQUAL(low, -1);
	CU_ASSERT_EQUAL(watermarks(rk, "drc", 0, &lo, &hi), 0);
	CU_ASSERT_EQUAL(lo, 0);
	CU_ASSERT_EQUAL(hi, 3);
	snprintf(path, sizeof(path), "%s/data/drc/partition-0/log-start",
	    d.dir);
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	CU_ASSERT(flumed_log_count(&d, "drc-0: records not deleted: "
	    "cleanup.policy is compact") == 1);
	CU_ASSERT_EQUAL_FATAL(admin(&out, "config", "drc", "set",
	    "cleanup.policy=compact,delete", NULL), 0);
	free(out);
	CU_ASSERT_EQUAL(delete_records(rk, "drc", 0, 2, &low),
	    RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_EQUAL(low, 2);
	rd_kafka_destroy(rk);
}

/*
 * flume-admin delete-records moves the start and says where it is; past
 * the end it fails and changes nothing; group NAME delete-offsets
 * deletes one partition's offset, group NAME delete the group; a native
 * member's topic is refused (GROUP_SUBSCRIBED) until it left.
 */
static void
test_admin_tool(void)
{
	static const char *const topics[] = { "ox" };
	struct flume_group_conf gc;
	struct flume_client *mc;
	struct flume_group *g;
	char *out = NULL;

	CU_ASSERT_EQUAL(admin(&out, "delete-records", "ed", "0", "0", NULL),
	    0);
	CU_ASSERT_STRING_EQUAL(out, "ed/0: log starts at 0\n");
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(commit_at("ta", "ox", -1, 0), 0);
	CU_ASSERT_EQUAL(admin(&out, "group", "ta", "delete-offsets", "ox",
	    "1"), 0);
	CU_ASSERT_STRING_EQUAL(out, "ox/1: deleted\n");
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(committed("ta", "ox", 0), 0);
	CU_ASSERT_EQUAL(committed("ta", "ox", 1), -1);
	CU_ASSERT_EQUAL(admin(&out, "group", "ta", "delete", NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(out, "deleted group ta\n");
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(committed("ta", "ox", 0), -1);
	CU_ASSERT_EQUAL(admin(&out, "group", "ta", "delete-offsets", "ox",
	    NULL), 1);
	free(out);
	out = NULL;
	/* A native member consumes ox: its offsets stay, refused. */
	CU_ASSERT_EQUAL(commit_at("tn", "ox", -1, 0), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mc = flume_connect(d.broker));
	flume_group_conf_init(&gc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g = flume_group_join(mc, "tn", topics, 1,
	    &gc));
	CU_ASSERT_EQUAL(admin(&out, "group", "tn", "delete-offsets", "ox",
	    "0"), 1);
	CU_ASSERT_STRING_EQUAL(out, "ox/0: the group's members consume the "
	    "topic\n");
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(committed("tn", "ox", 0), 0);
	flume_group_close(g);
	flume_close(mc);
	CU_ASSERT_EQUAL(admin(&out, "group", "tn", "delete-offsets", "ox",
	    "0"), 0);
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(committed("tn", "ox", 0), -1);
	CU_ASSERT_EQUAL(committed("tn", "ox", 1), 0);
	/* dr ends at NREC + 1 (test_delete_to_end's record). */
	CU_ASSERT_EQUAL(admin(&out, "delete-records", "dr", "0", "99", NULL),
	    1);
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(native_offset("dr", 0, -2), NREC);
	CU_ASSERT_EQUAL(admin(&out, "delete-records", "dr", "0", "end", NULL),
	    0);
	CU_ASSERT_STRING_EQUAL(out, "dr/0: log starts at 31\n");
	free(out);
	CU_ASSERT_EQUAL(native_offset("dr", 0, -2), NREC + 1);
}

/*
 * With an auth_file, bob (consume only) gets TOPIC_AUTHORIZATION_FAILED
 * for DeleteRecords and nothing moves; GROUP_AUTHORIZATION_FAILED for
 * DeleteGroups and OffsetDelete, the offsets kept.  alice (admin,
 * group-delete) may.
 */
static void
test_no_permission(void)
{
	struct flumed a;
	char abroker[64], more[1100], users[700];
	rd_kafka_topic_partition_list_t *tl;
	rd_kafka_t *al, *bo;
	int64_t low = -5, lo = -5, hi = -5;
	int errs[1] = { -5 };
	FILE *f;

	memset(&a, 0, sizeof(a));
	snprintf(users, sizeof(users), "%s/users", d.dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(users, "w"));
	fprintf(f, "alice:alice-pw:produce,consume,admin,group-read,"
	    "group-describe,group-delete\nbob:bob-pw:consume,group-read,"
	    "group-describe\n");
	fclose(f);
	snprintf(more, sizeof(more), "auth_file = %s\n", users);
	CU_ASSERT_EQUAL_FATAL(start_with(&a, abroker, sizeof(abroker), more),
	    0);
	al = client_new(abroker, RD_KAFKA_PRODUCER, NULL, "alice",
	    "alice-pw");
	bo = client_new(abroker, RD_KAFKA_PRODUCER, NULL, "bob", "bob-pw");
	CU_ASSERT_PTR_NOT_NULL_FATAL(al);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bo);
	CU_ASSERT_FATAL(produce(al, "dr", 0, 3) == 0);
	CU_ASSERT_EQUAL(delete_records(bo, "dr", 0, 2, &low),
	    RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(low, -1);
	CU_ASSERT_EQUAL(watermarks(al, "dr", 0, &lo, &hi), 0);
	CU_ASSERT_EQUAL(lo, 0);
	CU_ASSERT_EQUAL(hi, 3);
	CU_ASSERT_EQUAL(delete_group(bo, "nosuch"),
	    RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED);
	tl = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(tl, "dr", 0);
	CU_ASSERT_EQUAL(delete_offsets(bo, "nosuch", tl, errs),
	    RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED);
	rd_kafka_topic_partition_list_destroy(tl);
	CU_ASSERT_EQUAL(delete_records(al, "dr", 0, 2, &low),
	    RD_KAFKA_RESP_ERR_NO_ERROR);
	CU_ASSERT_EQUAL(low, 2);
	rd_kafka_destroy(al);
	rd_kafka_destroy(bo);
	CU_ASSERT(flumed_log_count(&a, "user bob: access denied: "
	    "DeleteRecords on topic dr") >= 1);
	flumed_cleanup(&a);
}

TEST_SUITE("records",  setup, teardown,
    { "DeleteRecords inside a segment: fetch below it out of range, "
	"segments below removed", test_delete_mid_segment },
    { "DeleteRecords below the start, past the end, unknown partition",
	test_delete_below_and_past },
    { "DeleteRecords survives a restart, exact", test_delete_restart },
    { "DeleteRecords -1: the high watermark", test_delete_to_end },
    { "DeleteGroups (librdkafka 2.0): empty, live, unknown",
	test_delete_groups },
    { "OffsetDelete: empty group, subscribed member, restart",
	test_offset_delete },
    { "flume-admin delete-records, group delete-offsets, group delete",
	test_admin_tool },
    { "DeleteGroups v2, DeleteRecords v2, OffsetDelete v0 by hand",
	test_flexible_by_hand },
    { "DeleteRecords on a compacted topic: POLICY_VIOLATION",
	test_delete_compacted },
    { "without permission: nothing changes", test_no_permission });
