/*
 * The read-only cluster and log APIs on the Kafka listener (worker/kafka/
 * describe.c), as raw requests at their lowest, first flexible and
 * highest versions, with exact answers: DescribeCluster,
 * DescribeLogDirs, OffsetForLeaderEpoch, ListPartitionReassignments,
 * DescribeProducers, DescribeTopicPartitions (its pages), and
 * ListOffsets MAX_TIMESTAMP over times out of order across segments.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_describe.h"
#include "proto/kafka/kmsg_listoff.h"
#include "proto/kafka/kmsg_meta.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/kafka/kmsg_sasl.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

/* Kafka's authorized operations without an authorizer (KIP-430 bits). */
#define CLUSTER_ALL	8096	/* Create, Alter, Describe, ClusterAction,
				   DescribeConfigs, AlterConfigs, IdempotentWrite */
#define TOPIC_ALL	3576	/* Read, Write, Create, Delete, Alter,
				   Describe, DescribeConfigs, AlterConfigs */

static struct flumed d, da;

static int
setup(void)
{
	char path[600];
	FILE *f;
	int i;

	if (flumed_start_kafka(&d, NULL, "flush_interval_ms = 20ms\n"
	    "[topic t3]\npartitions = 3\n[topic t5]\npartitions = 1\n"
	    "[topic pkt]\npartitions = 2\n"
	    "[topic tmax]\npartitions = 1\nsegment_bytes = 4K\n"
	    "index_interval_bytes = 256\n") != 0)
		return -1;
	/* A broker with users: ops administers a.*, bob only uses it. */
	if (flumed_start_kafka(&da, "ops:ops-pw:admin=a.,consume=a.\n"
	    "bob:bob-pw:consume=a.,produce=a.\n"
	    "root:root-pw:admin,produce,consume\n",
	    "[topic a.x]\npartitions = 2\n[topic b.y]\npartitions = 1\n") != 0)
		return -1;
	/* flume-admin's secret files. */
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s.secret", da.dir,
		    i == 0 ? "root" : "ops");
		if ((f = fopen(path, "w")) == NULL)
			return -1;
		fprintf(f, "%s\n", i == 0 ? "root:root-pw" : "ops:ops-pw");
		fclose(f);
		chmod(path, 0600);
	}
	return 0;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	flumed_cleanup(&da);
	return 0;
}

/* One request of message m at version v, its answer in resp (support.h). */
static void
kd_call(int fd, const struct kmsg *m, int16_t v, int32_t corr,
    const void *req, void *resp, struct arena *a, uint8_t **raw)
{
	CU_ASSERT_EQUAL_FATAL(support_kafka_call(fd, m, v, corr, req, resp, a,
	    raw), 0);
}

/*
 * Produce (v7, acks all) one batch of n records to (topic, partition),
 * record i with timestamp ts[i] (NULL: 1000 + i), as producer pid/epoch
 * from sequence seq (pid -1: not idempotent).  Its base offset, and its
 * size in *size.
 */
static int64_t
produce(int fd, const char *topic, int32_t partition, int n,
    const int64_t *ts, int64_t pid, int16_t epoch, int32_t seq,
    size_t *size)
{
	static int32_t corr = 5000;
	struct batch_builder bb;
	struct km_produce_part pp;
	struct km_produce_topic pt;
	struct km_produce_req q;
	struct km_produce_resp s;
	const struct km_produce_topic_resp *tr;
	const struct km_produce_part_resp *pr;
	const uint8_t *out;
	size_t outlen;
	struct arena a;
	uint8_t *raw = NULL;
	char val[32];
	int64_t base;
	int i;

	batch_builder_init(&bb);
	if (pid >= 0)
		batch_builder_set_producer(&bb, pid, epoch, seq);
	for (i = 0; i < n; i++) {
		snprintf(val, sizeof(val), "%s-%d-%d", topic, partition, i);
		CU_ASSERT_FATAL(batch_builder_add(&bb, ts != NULL ? ts[i] :
		    1000 + i, NULL, -1, val, (int32_t)strlen(val), NULL,
		    0) == 0);
	}
	CU_ASSERT_FATAL(batch_builder_close(&bb, &out, &outlen) == 0);
	kdesc_defaults(kmsg_produce.km_req, &q);
	pp.index = partition;
	pp.records.p = (const char *)out;
	pp.records.len = (int32_t)outlen;
	pt.name = kstr_c(topic);
	pt.partition_data.n = 1;
	pt.partition_data.v = &pp;
	q.acks = -1;
	q.timeout_ms = 5000;
	q.topic_data.n = 1;
	q.topic_data.v = &pt;
	arena_init(&a, 1 << 20);
	kd_call(fd, &kmsg_produce, 7, corr++, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	tr = s.responses.v;
	CU_ASSERT_EQUAL_FATAL(tr->partition_responses.n, 1);
	pr = tr->partition_responses.v;
	CU_ASSERT_EQUAL_FATAL(pr->error_code, KERR_NONE);
	base = pr->base_offset;
	if (size != NULL)
		*size = outlen;
	free(raw);
	arena_free(&a);
	batch_builder_free(&bb);
	return base;
}

/* ---- DescribeCluster ---- */

static void
check_broker(const struct km_dcluster_resp *s)
{
	const struct km_dcluster_broker *b = s->brokers.v;

	CU_ASSERT_EQUAL(s->error_code, KERR_NONE);
	CU_ASSERT_EQUAL(s->error_message.len, -1);
	CU_ASSERT(kstr_eq(s->cluster_id, "flume"));
	CU_ASSERT_EQUAL(s->controller_id, 0);
	CU_ASSERT_EQUAL_FATAL(s->brokers.n, 1);
	CU_ASSERT_EQUAL(b->broker_id, 0);
	CU_ASSERT(kstr_eq(b->host, "127.0.0.1"));
	CU_ASSERT_EQUAL(b->port, d.kport);
	CU_ASSERT_EQUAL(b->rack.len, -1);
	CU_ASSERT_EQUAL(b->is_fenced, 0);
}

/*
 * v0 (flexible already), v1 and v2: this node, cluster "flume", the
 * controller itself; authorized operations only when asked (every
 * cluster operation without an auth_file); a controllers endpoint type
 * is MISMATCHED_ENDPOINT_TYPE, an unknown one UNSUPPORTED_ENDPOINT_TYPE.
 */
static void
test_describe_cluster(void)
{
	struct km_dcluster_req q;
	struct km_dcluster_resp s;
	struct arena a;
	uint8_t *raw = NULL;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_describe_cluster.km_req, &q);
	kd_call(fd, &kmsg_describe_cluster, 0, 1, &q, &s, &a, &raw);
	check_broker(&s);
	CU_ASSERT_EQUAL(s.cluster_authorized_operations, INT32_MIN);
	free(raw);
	q.include_cluster_authorized_operations = 1;
	kd_call(fd, &kmsg_describe_cluster, 1, 2, &q, &s, &a, &raw);
	check_broker(&s);
	CU_ASSERT_EQUAL(s.endpoint_type, 1);
	CU_ASSERT_EQUAL(s.cluster_authorized_operations, CLUSTER_ALL);
	free(raw);
	q.include_fenced_brokers = 1;
	kd_call(fd, &kmsg_describe_cluster, 2, 3, &q, &s, &a, &raw);
	check_broker(&s);
	CU_ASSERT_EQUAL(s.cluster_authorized_operations, CLUSTER_ALL);
	free(raw);
	q.endpoint_type = 2;
	kd_call(fd, &kmsg_describe_cluster, 2, 4, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_MISMATCHED_ENDPOINT_TYPE);
	CU_ASSERT(kstr_eq(s.error_message, "The request was sent to an "
	    "endpoint of type BROKER, but we wanted an endpoint of type "
	    "CONTROLLER"));
	CU_ASSERT_EQUAL(s.brokers.n, 0);
	CU_ASSERT_EQUAL(s.controller_id, -1);
	free(raw);
	q.endpoint_type = 7;
	kd_call(fd, &kmsg_describe_cluster, 1, 5, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_UNSUPPORTED_ENDPOINT_TYPE);
	CU_ASSERT(kstr_eq(s.error_message, "Unsupported endpoint type 7"));
	CU_ASSERT_EQUAL(s.brokers.n, 0);
	free(raw);
	arena_free(&a);
	close(fd);
}

/* ---- DescribeLogDirs ---- */

/* The size t3/p has in one DescribeLogDirs v4 of all topics, or -1. */
static int64_t
logdirs_size(int fd, int32_t corr, const char *topic, int32_t partition)
{
	struct km_logdirs_req q;
	struct km_logdirs_resp s;
	const struct km_logdirs_result *res;
	const struct km_logdirs_topic_resp *t;
	const struct km_logdirs_part *p;
	struct arena a;
	uint8_t *raw = NULL;
	int64_t size = -1;
	int32_t i, j;

	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_describe_log_dirs.km_req, &q);
	q.topics.n = -1;
	kd_call(fd, &kmsg_describe_log_dirs, 4, corr, &q, &s, &a, &raw);
	if (s.results.n == 1) {
		res = s.results.v;
		t = res->topics.v;
		for (i = 0; i < res->topics.n; i++) {
			if (!kstr_eq(t[i].name, topic))
				continue;
			p = t[i].partitions.v;
			for (j = 0; j < t[i].partitions.n; j++)
				if (p[j].partition_index == partition)
					size = p[j].partition_size;
		}
	}
	free(raw);
	arena_free(&a);
	return size;
}

/*
 * v0, v2 (flexible), v3 and v4: one log directory, the data directory's
 * real path, with exactly the partitions asked that exist (t3's 0 and 1,
 * not 7 nor an unknown topic's), each its bytes on disk, lag 0, not a
 * future log; v3 adds the top-level error (0), v4 the volume's sizes
 * (the total as statvfs says; usable within it).  Null topics: all.
 */
static void
test_describe_log_dirs(void)
{
	static const int32_t want_parts[] = { 0, 1, 7 }, one[] = { 0 };
	struct km_logdirs_topic rt[3];
	struct km_logdirs_req q;
	struct km_logdirs_resp s;
	const struct km_logdirs_result *res;
	const struct km_logdirs_topic_resp *t;
	const struct km_logdirs_part *p;
	struct statvfs sv;
	struct arena a;
	char dir[PATH_MAX];
	uint8_t *raw = NULL;
	size_t size1 = 0;
	int16_t vers[] = { 0, 2, 3, 4 };
	int fd, i;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	CU_ASSERT_FATAL(realpath(d.data, dir) != NULL);
	(void)produce(fd, "t3", 1, 3, NULL, -1, 0, 0, &size1);
	/* The writer counts the bytes once it wrote them. */
	WAIT_UNTIL(logdirs_size(fd, 90, "t3", 1) == (int64_t)size1, 5000);
	CU_ASSERT_EQUAL_FATAL(logdirs_size(fd, 91, "t3", 1), (int64_t)size1);
	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_describe_log_dirs.km_req, &q);
	memset(rt, 0, sizeof(rt));
	rt[0].topic = kstr_c("t3");
	rt[0].partitions.n = 3;
	rt[0].partitions.v = (void *)want_parts;
	rt[1].topic = kstr_c("nosuch");
	rt[1].partitions.n = 1;
	rt[1].partitions.v = (void *)one;
	rt[2].topic = kstr_c("t3");		/* again: answered once */
	rt[2].partitions.n = 1;
	rt[2].partitions.v = (void *)one;
	q.topics.n = 3;
	q.topics.v = rt;
	for (i = 0; i < 4; i++) {
		kd_call(fd, &kmsg_describe_log_dirs, vers[i], 100 + i, &q, &s,
		    &a, &raw);
		CU_ASSERT_EQUAL(s.throttle_time_ms, 0);
		CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
		CU_ASSERT_EQUAL_FATAL(s.results.n, 1);
		res = s.results.v;
		CU_ASSERT_EQUAL(res->error_code, KERR_NONE);
		CU_ASSERT(kstr_eq(res->log_dir, dir));
		CU_ASSERT_EQUAL_FATAL(res->topics.n, 1);
		t = res->topics.v;
		CU_ASSERT(kstr_eq(t->name, "t3"));
		CU_ASSERT_EQUAL_FATAL(t->partitions.n, 2);
		p = t->partitions.v;
		CU_ASSERT_EQUAL(p[0].partition_index, 0);
		CU_ASSERT_EQUAL(p[0].partition_size, 0);
		CU_ASSERT_EQUAL(p[1].partition_index, 1);
		CU_ASSERT_EQUAL(p[1].partition_size, (int64_t)size1);
		CU_ASSERT_EQUAL(p[1].offset_lag, 0);
		CU_ASSERT_EQUAL(p[1].is_future_key, 0);
		if (vers[i] >= 4) {
			CU_ASSERT_FATAL(statvfs(dir, &sv) == 0);
			CU_ASSERT_EQUAL(res->total_bytes, (int64_t)sv.f_blocks *
			    (int64_t)sv.f_frsize);
			CU_ASSERT(res->usable_bytes > 0 &&
			    res->usable_bytes <= res->total_bytes);
		} else {
			CU_ASSERT_EQUAL(res->total_bytes, -1);
			CU_ASSERT_EQUAL(res->usable_bytes, -1);
		}
		free(raw);
	}
	/* Null: every topic, t3's three partitions among them. */
	q.topics.n = -1;
	kd_call(fd, &kmsg_describe_log_dirs, 0, 110, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.results.n, 1);
	res = s.results.v;
	for (i = 0; i < res->topics.n; i++) {
		t = (const struct km_logdirs_topic_resp *)res->topics.v + i;
		if (kstr_eq(t->name, "t3"))
			CU_ASSERT_EQUAL(t->partitions.n, 3);
	}
	CU_ASSERT(res->topics.n >= 3);	/* t3, t5, tmax */
	free(raw);
	arena_free(&a);
	close(fd);
}

/* ---- OffsetForLeaderEpoch ---- */

struct ofle_case {
	const char	*topic;
	int32_t		 partition, current, epoch;
	int16_t		 err;
	int32_t		 want_epoch;
	int64_t		 want_end;	/* -2: t5's end */
};

/*
 * v0, v2, v3 and v4 (flexible): epoch 0 ends at the log end with epoch
 * 0, a later epoch and -1 are undefined (-1, -1), an epoch below -1
 * starts at the log start; a current leader epoch of 1 is
 * UNKNOWN_LEADER_EPOCH, -2 FENCED_LEADER_EPOCH; unknown partitions and
 * topics UNKNOWN_TOPIC_OR_PARTITION.  v0 carries no epoch.
 */
static void
test_offset_for_leader_epoch(void)
{
	static const struct ofle_case cs[] = {
		{ "t5", 0, -1, 0, KERR_NONE, 0, -2 },
		{ "t5", 0, 0, 0, KERR_NONE, 0, -2 },
		{ "t5", 0, -1, 1, KERR_NONE, -1, -1 },
		{ "t5", 0, -1, -1, KERR_NONE, -1, -1 },
		{ "t5", 0, -1, -5, KERR_NONE, -5, 0 },
		{ "t5", 0, 1, 0, KERR_UNKNOWN_LEADER_EPOCH, -1, -1 },
		{ "t5", 0, -2, 0, KERR_FENCED_LEADER_EPOCH, -1, -1 },
		{ "t5", 4, -1, 0, KERR_UNKNOWN_TOPIC_OR_PARTITION, -1, -1 },
		{ "nosuch", 0, -1, 0, KERR_UNKNOWN_TOPIC_OR_PARTITION, -1, -1 },
	};
	enum { NC = sizeof(cs) / sizeof(cs[0]) };
	static const int16_t vers[] = { 0, 2, 3, 4 };
	struct km_ofle_part rp[NC];
	struct km_ofle_topic rt[NC];
	struct km_ofle_req q;
	struct km_ofle_resp s;
	const struct km_ofle_topic_resp *tr;
	const struct km_ofle_part_resp *pr;
	struct arena a;
	uint8_t *raw = NULL;
	int64_t end;
	int fd, i, v;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	end = produce(fd, "t5", 0, 4, NULL, -1, 0, 0, NULL) + 4;
	for (i = 0; i < NC; i++) {
		rp[i].partition = cs[i].partition;
		rp[i].current_leader_epoch = cs[i].current;
		rp[i].leader_epoch = cs[i].epoch;
		rt[i].topic = kstr_c(cs[i].topic);
		rt[i].partitions.n = 1;
		rt[i].partitions.v = &rp[i];
	}
	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_offset_for_leader_epoch.km_req, &q);
	q.replica_id = -1;
	q.topics.v = rt;
	for (v = 0; v < 4; v++) {
		/* Before v2 there is no current epoch to check. */
		q.topics.n = vers[v] < 2 ? 5 : NC;
		kd_call(fd, &kmsg_offset_for_leader_epoch, vers[v], 200 + v,
		    &q, &s, &a, &raw);
		CU_ASSERT_EQUAL(s.throttle_time_ms, 0);
		CU_ASSERT_EQUAL_FATAL(s.topics.n, q.topics.n);
		for (i = 0; i < q.topics.n; i++) {
			tr = (const struct km_ofle_topic_resp *)s.topics.v + i;
			CU_ASSERT(kstr_eq(tr->topic, cs[i].topic));
			CU_ASSERT_EQUAL_FATAL(tr->partitions.n, 1);
			pr = tr->partitions.v;
			CU_ASSERT_EQUAL(pr->partition, cs[i].partition);
			CU_ASSERT_EQUAL(pr->error_code, cs[i].err);
			CU_ASSERT_EQUAL(pr->end_offset, cs[i].want_end == -2 ?
			    end : cs[i].want_end);
			CU_ASSERT_EQUAL(pr->leader_epoch, vers[v] == 0 ? -1 :
			    cs[i].want_epoch);
		}
		free(raw);
	}
	arena_free(&a);
	close(fd);
}

/* ---- ListPartitionReassignments ---- */

/* v0: none, ever; named topics (known or not) change nothing. */
static void
test_list_reassignments(void)
{
	static const int32_t parts[] = { 0, 1 };
	struct km_lpr_topic rt[2];
	struct km_lpr_req q;
	struct km_lpr_resp s;
	struct arena a;
	uint8_t *raw = NULL;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_list_partition_reassignments.km_req, &q);
	CU_ASSERT_EQUAL(q.topics.n, -1);
	kd_call(fd, &kmsg_list_partition_reassignments, 0, 300, &q, &s, &a,
	    &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(s.error_message.len, -1);
	CU_ASSERT_EQUAL(s.topics.n, 0);
	free(raw);
	memset(rt, 0, sizeof(rt));
	rt[0].name = kstr_c("t3");
	rt[0].partition_indexes.n = 2;
	rt[0].partition_indexes.v = (void *)parts;
	rt[1].name = kstr_c("nosuch");
	q.topics.n = 2;
	q.topics.v = rt;
	kd_call(fd, &kmsg_list_partition_reassignments, 0, 301, &q, &s, &a,
	    &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(s.topics.n, 0);
	free(raw);
	arena_free(&a);
	close(fd);
}

/* ---- DescribeProducers ---- */

/*
 * v0: an idempotent producer's two batches on t3/2 are its state there
 * (id, epoch, last sequence 4, the last batch's max timestamp,
 * coordinator epoch and transaction start -1); t3/0 has none; t3/9 is
 * UNKNOWN_TOPIC_OR_PARTITION without a message, an unknown topic with
 * Kafka's.
 */
static void
test_describe_producers(void)
{
	static const int32_t parts[] = { 2, 0, 9 }, one[] = { 0 };
	static const int64_t ts[] = { 7000, 7100, 7050 };
	struct km_init_pid_req iq;
	struct km_init_pid_resp is;
	struct km_dprod_topic rt[2];
	struct km_dprod_req q;
	struct km_dprod_resp s;
	const struct km_dprod_topic_resp *tr;
	const struct km_dprod_part_resp *pr;
	const struct km_dprod_state *st;
	struct arena a;
	uint8_t *raw = NULL;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_init_producer_id.km_req, &iq);
	iq.transactional_id = kstr_c(NULL);
	iq.transaction_timeout_ms = 60000;
	kd_call(fd, &kmsg_init_producer_id, 0, 400, &iq, &is, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(is.error_code, KERR_NONE);
	free(raw);
	(void)produce(fd, "t3", 2, 2, NULL, is.producer_id, is.producer_epoch,
	    0, NULL);
	(void)produce(fd, "t3", 2, 3, ts, is.producer_id, is.producer_epoch,
	    2, NULL);
	kdesc_defaults(kmsg_describe_producers.km_req, &q);
	memset(rt, 0, sizeof(rt));
	rt[0].name = kstr_c("t3");
	rt[0].partition_indexes.n = 3;
	rt[0].partition_indexes.v = (void *)parts;
	rt[1].name = kstr_c("nosuch");
	rt[1].partition_indexes.n = 1;
	rt[1].partition_indexes.v = (void *)one;
	q.topics.n = 2;
	q.topics.v = rt;
	kd_call(fd, &kmsg_describe_producers, 0, 401, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 2);
	tr = s.topics.v;
	CU_ASSERT(kstr_eq(tr[0].name, "t3"));
	CU_ASSERT_EQUAL_FATAL(tr[0].partitions.n, 3);
	pr = tr[0].partitions.v;
	CU_ASSERT_EQUAL(pr[0].partition_index, 2);
	CU_ASSERT_EQUAL(pr[0].error_code, KERR_NONE);
	CU_ASSERT_EQUAL(pr[0].error_message.len, -1);
	CU_ASSERT_EQUAL_FATAL(pr[0].active_producers.n, 1);
	st = pr[0].active_producers.v;
	CU_ASSERT_EQUAL(st->producer_id, is.producer_id);
	CU_ASSERT_EQUAL(st->producer_epoch, is.producer_epoch);
	CU_ASSERT_EQUAL(st->last_sequence, 4);
	CU_ASSERT_EQUAL(st->last_timestamp, 7100);
	CU_ASSERT_EQUAL(st->coordinator_epoch, -1);
	CU_ASSERT_EQUAL(st->current_txn_start_offset, -1);
	CU_ASSERT_EQUAL(pr[1].partition_index, 0);
	CU_ASSERT_EQUAL(pr[1].error_code, KERR_NONE);
	CU_ASSERT_EQUAL(pr[1].active_producers.n, 0);
	CU_ASSERT_EQUAL(pr[2].partition_index, 9);
	CU_ASSERT_EQUAL(pr[2].error_code, KERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL(pr[2].error_message.len, -1);
	CU_ASSERT(kstr_eq(tr[1].name, "nosuch"));
	CU_ASSERT_EQUAL_FATAL(tr[1].partitions.n, 1);
	pr = tr[1].partitions.v;
	CU_ASSERT_EQUAL(pr->error_code, KERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT(kstr_eq(pr->error_message,
	    "This server does not host this topic-partition."));
	free(raw);
	arena_free(&a);
	close(fd);
}

/* ---- DescribeTopicPartitions ---- */

/* One DescribeTopicPartitions v0; cursor NULL: none. */
static void
dtp_call(int fd, int32_t corr, const char *const *names, int n,
    int32_t limit, const char *cursor, int32_t cpart,
    struct km_dtp_resp *s, struct arena *a, uint8_t **raw)
{
	struct km_dtp_topic rt[8];
	struct km_dtp_req q;
	int i;

	kdesc_defaults(kmsg_describe_topic_partitions.km_req, &q);
	for (i = 0; i < n; i++)
		rt[i].name = kstr_c(names[i]);
	q.topics.n = n;
	q.topics.v = rt;
	q.response_partition_limit = limit;
	if (cursor != NULL) {
		q.cursor_present = 1;
		q.cursor.topic_name = kstr_c(cursor);
		q.cursor.partition_index = cpart;
	}
	kd_call(fd, &kmsg_describe_topic_partitions, 0, corr, &q, s, a, raw);
	CU_ASSERT_EQUAL(s->throttle_time_ms, 0);
}

/* Topic i of s is name with partitions [from, to) and no error. */
static void
dtp_topic(const struct km_dtp_resp *s, int i, const char *name,
    int32_t from, int32_t to)
{
	const struct km_dtp_topic_resp *t;
	const struct km_dtp_part *p;
	const int32_t *r;
	static const uint8_t zero[16];
	int32_t j;

	CU_ASSERT_FATAL(i < s->topics.n);
	t = (const struct km_dtp_topic_resp *)s->topics.v + i;
	CU_ASSERT(kstr_eq(t->name, name));
	CU_ASSERT_EQUAL(t->error_code, KERR_NONE);
	CU_ASSERT(memcmp(t->topic_id, zero, 16) != 0);
	CU_ASSERT_EQUAL(t->is_internal, 0);
	CU_ASSERT_EQUAL(t->topic_authorized_operations, TOPIC_ALL);
	CU_ASSERT_EQUAL_FATAL(t->partitions.n, to - from);
	p = t->partitions.v;
	for (j = 0; j < to - from; j++) {
		CU_ASSERT_EQUAL(p[j].error_code, KERR_NONE);
		CU_ASSERT_EQUAL(p[j].partition_index, from + j);
		CU_ASSERT_EQUAL(p[j].leader_id, 0);
		CU_ASSERT_EQUAL(p[j].leader_epoch, 0);
		CU_ASSERT_EQUAL_FATAL(p[j].replica_nodes.n, 1);
		CU_ASSERT_EQUAL_FATAL(p[j].isr_nodes.n, 1);
		r = p[j].replica_nodes.v;
		CU_ASSERT_EQUAL(r[0], 0);
		r = p[j].isr_nodes.v;
		CU_ASSERT_EQUAL(r[0], 0);
		CU_ASSERT_EQUAL(p[j].eligible_leader_replicas.n, 0);
		CU_ASSERT_EQUAL(p[j].last_known_elr.n, 0);
		CU_ASSERT_EQUAL(p[j].offline_replicas.n, 0);
	}
}

/* s's next cursor is (name, partition); name NULL: there is none. */
static void
dtp_next(const struct km_dtp_resp *s, const char *name, int32_t partition)
{
	if (name == NULL) {
		CU_ASSERT_EQUAL(s->next_cursor_present, -1);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(s->next_cursor_present, 1);
	CU_ASSERT(kstr_eq(s->next_cursor.topic_name, name));
	CU_ASSERT_EQUAL(s->next_cursor.partition_index, partition);
}

/*
 * v0: named topics sorted, an unknown one UNKNOWN_TOPIC_OR_PARTITION (zero
 * id, no partitions), an invalid name INVALID_TOPIC_EXCEPTION; pages of
 * response_partition_limit partitions with a next cursor: t3 (3) and t5
 * (1) by 2 are t3 0-1, then t3 2 and t5 0, which ends the listing; by 3
 * the page ends exactly at t3's end and the cursor is t5/0.  A cursor
 * whose topic is not named, or a negative partition, is INVALID_REQUEST
 * for every topic.  No topics: all of them, from the cursor on.
 */
static void
test_describe_topic_partitions(void)
{
	static const char *const both[] = { "t5", "t3" };
	static const char *const unk[] = { "t3", "nosuch", "bad name" };
	static const char *const all_t[] = { "t3" };
	const struct km_dtp_topic_resp *t;
	struct km_dtp_resp s;
	struct arena a;
	uint8_t *raw = NULL;
	uint8_t id3[16];
	int fd, i, seen3 = 0;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	arena_init(&a, 1 << 20);
	dtp_call(fd, 500, unk, 3, 2000, NULL, 0, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 3);
	t = s.topics.v;
	CU_ASSERT(kstr_eq(t[0].name, "bad name"));
	CU_ASSERT_EQUAL(t[0].error_code, KERR_INVALID_TOPIC_EXCEPTION);
	CU_ASSERT(kstr_eq(t[1].name, "nosuch"));
	CU_ASSERT_EQUAL(t[1].error_code, KERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT_EQUAL(t[1].partitions.n, 0);
	CU_ASSERT_EQUAL(t[1].topic_id[0] | t[1].topic_id[15], 0);
	dtp_topic(&s, 2, "t3", 0, 3);
	memcpy(id3, t[2].topic_id, 16);
	dtp_next(&s, NULL, 0);
	free(raw);
	/* Page 1 of 2 by 2. */
	dtp_call(fd, 501, both, 2, 2, NULL, 0, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	dtp_topic(&s, 0, "t3", 0, 2);
	dtp_next(&s, "t3", 2);
	free(raw);
	/* Page 2: from the cursor, the rest: no cursor. */
	dtp_call(fd, 502, both, 2, 2, "t3", 2, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 2);
	dtp_topic(&s, 0, "t3", 2, 3);
	dtp_topic(&s, 1, "t5", 0, 1);
	dtp_next(&s, NULL, 0);
	free(raw);
	/* A page that ends at a topic's end points at the next topic. */
	dtp_call(fd, 503, both, 2, 3, NULL, 0, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	dtp_topic(&s, 0, "t3", 0, 3);
	dtp_next(&s, "t5", 0);
	free(raw);
	/* Limit 0 counts as 1. */
	dtp_call(fd, 504, both, 2, 0, "t5", 0, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	dtp_topic(&s, 0, "t5", 0, 1);
	dtp_next(&s, NULL, 0);
	free(raw);
	/* Refused cursors. */
	dtp_call(fd, 505, all_t, 1, 10, "t5", 0, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	t = s.topics.v;
	CU_ASSERT(kstr_eq(t[0].name, "t3"));
	CU_ASSERT_EQUAL(t[0].error_code, KERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(t[0].topic_authorized_operations, INT32_MIN);
	free(raw);
	dtp_call(fd, 506, both, 2, 10, "t3", -1, &s, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 2);
	t = s.topics.v;
	CU_ASSERT_EQUAL(t[0].error_code, KERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(t[1].error_code, KERR_INVALID_REQUEST);
	free(raw);
	/* Every topic, from t3 on: t3 first, with the same id. */
	dtp_call(fd, 507, NULL, 0, 2000, "t3", 1, &s, &a, &raw);
	CU_ASSERT_FATAL(s.topics.n >= 3);
	dtp_topic(&s, 0, "t3", 1, 3);
	t = s.topics.v;
	CU_ASSERT(memcmp(t[0].topic_id, id3, 16) == 0);
	for (i = 1; i < s.topics.n; i++) {
		CU_ASSERT(t[i].name.len > 0 && memcmp(t[i].name.p, "t3", 2) >= 0);
		seen3 += kstr_eq(t[i].name, "t5");
	}
	CU_ASSERT_EQUAL(seen3, 1);
	free(raw);
	arena_free(&a);
	close(fd);
}

/* ---- ListOffsets MAX_TIMESTAMP ---- */

/*
 * tmax rolls every 4 KiB: batches of 40 records with times out of order
 * across segments; the newest batch's max is not the largest, which an
 * early batch holds at its 8th record and a later one again.  v7 and v10
 * answer that first record's offset and its time, leader epoch 0.
 */
static void
test_list_offsets_max_timestamp(void)
{
	struct km_listoff_part lp;
	struct km_listoff_topic lt;
	struct km_listoff_req q;
	struct km_listoff_resp s;
	const struct km_listoff_topic_resp *tr;
	const struct km_listoff_part_resp *pr;
	int64_t ts[40], base, want = -1;
	int16_t vers[] = { 7, 10 };
	struct arena a;
	uint8_t *raw = NULL;
	int fd, b, i;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	for (b = 0; b < 12; b++) {
		for (i = 0; i < 40; i++)
			ts[i] = 50000 + ((b * 37 + i * 11) % 97) * 10;
		if (b == 2)
			ts[7] = 99000;
		if (b == 9)
			ts[30] = 99000;
		base = produce(fd, "tmax", 0, 40, ts, -1, 0, 0, NULL);
		if (b == 2)
			want = base + 7;
	}
	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_list_offsets.km_req, &q);
	memset(&lp, 0, sizeof(lp));
	lp.current_leader_epoch = -1;
	lp.timestamp = -3;
	lt.name = kstr_c("tmax");
	lt.partitions.n = 1;
	lt.partitions.v = &lp;
	q.replica_id = -1;
	q.topics.n = 1;
	q.topics.v = &lt;
	for (i = 0; i < 2; i++) {
		kd_call(fd, &kmsg_list_offsets, vers[i], 600 + i, &q, &s, &a,
		    &raw);
		CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
		tr = s.topics.v;
		CU_ASSERT_EQUAL_FATAL(tr->partitions.n, 1);
		pr = tr->partitions.v;
		CU_ASSERT_EQUAL(pr->error_code, KERR_NONE);
		CU_ASSERT_EQUAL(pr->offset, want);
		CU_ASSERT_EQUAL(pr->timestamp, 99000);
		CU_ASSERT_EQUAL(pr->leader_epoch, 0);
		free(raw);
	}
	arena_free(&a);
	close(fd);
}

/* ---- permissions ---- */

/* A connection to the broker with users, logged in with SASL PLAIN. */
static int
login(const char *user, const char *pw)
{
	struct km_sasl_handshake_req hq;
	struct km_sasl_handshake_resp hs;
	struct km_sasl_auth_req aq;
	struct km_sasl_auth_resp as;
	struct arena a;
	uint8_t *raw = NULL;
	char msg[64];
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
	arena_init(&a, 1 << 16);
	hq.mechanism = kstr_c("PLAIN");
	kd_call(fd, &kmsg_sasl_handshake, 1, 1, &hq, &hs, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(hs.error_code, KERR_NONE);
	free(raw);
	aq.auth_bytes.p = msg;
	aq.auth_bytes.len = snprintf(msg, sizeof(msg), "%c%s%c%s", 0, user,
	    0, pw);
	kd_call(fd, &kmsg_sasl_authenticate, 1, 2, &aq, &as, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(as.error_code, KERR_NONE);
	free(raw);
	arena_free(&a);
	return fd;
}

/*
 * With an auth_file: bob (consume and produce a.*, no admin) gets
 * CLUSTER_AUTHORIZATION_FAILED for DescribeLogDirs (v3+; v0 an empty
 * list) and ListPartitionReassignments, the cluster operations Describe
 * and IdempotentWrite, TOPIC_AUTHORIZATION_FAILED for b.y in
 * OffsetForLeaderEpoch, DescribeProducers (with Kafka's message) and
 * DescribeTopicPartitions (after a.x, zero id), whose listing of all
 * topics shows him a.x alone with Read, Write and Describe.  ops (admin
 * on a.*) sees a.x's log directories and not b.y's.
 */
static void
test_permissions(void)
{
	static const int32_t p0[] = { 0 };
	static const char *const named[] = { "b.y", "a.x" };
	struct km_logdirs_req lq;
	struct km_logdirs_resp ls;
	struct km_lpr_req rq;
	struct km_lpr_resp rs;
	struct km_dcluster_req cq;
	struct km_dcluster_resp cs;
	struct km_ofle_part op[2];
	struct km_ofle_topic ot[2];
	struct km_ofle_req oq;
	struct km_ofle_resp os;
	struct km_dprod_topic dt;
	struct km_dprod_req dq;
	struct km_dprod_resp ds;
	struct km_dtp_resp ts;
	const struct km_logdirs_result *res;
	const struct km_logdirs_topic_resp *lt;
	const struct km_ofle_topic_resp *otr;
	const struct km_ofle_part_resp *opr;
	const struct km_dprod_topic_resp *dtr;
	const struct km_dprod_part_resp *dpr;
	const struct km_dtp_topic_resp *tt;
	struct arena a;
	uint8_t *raw = NULL;
	int fd, i;

	fd = login("bob", "bob-pw");
	arena_init(&a, 1 << 20);
	kdesc_defaults(kmsg_describe_log_dirs.km_req, &lq);
	lq.topics.n = -1;
	kd_call(fd, &kmsg_describe_log_dirs, 3, 10, &lq, &ls, &a, &raw);
	CU_ASSERT_EQUAL(ls.error_code, KERR_CLUSTER_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(ls.results.n, 0);
	free(raw);
	kd_call(fd, &kmsg_describe_log_dirs, 0, 11, &lq, &ls, &a, &raw);
	CU_ASSERT_EQUAL(ls.results.n, 0);
	free(raw);
	kdesc_defaults(kmsg_list_partition_reassignments.km_req, &rq);
	kd_call(fd, &kmsg_list_partition_reassignments, 0, 12, &rq, &rs, &a,
	    &raw);
	CU_ASSERT_EQUAL(rs.error_code, KERR_CLUSTER_AUTHORIZATION_FAILED);
	CU_ASSERT(kstr_eq(rs.error_message, "Cluster authorization failed."));
	CU_ASSERT_EQUAL(rs.topics.n, 0);
	free(raw);
	kdesc_defaults(kmsg_describe_cluster.km_req, &cq);
	cq.include_cluster_authorized_operations = 1;
	kd_call(fd, &kmsg_describe_cluster, 1, 13, &cq, &cs, &a, &raw);
	CU_ASSERT_EQUAL(cs.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(cs.cluster_authorized_operations, (1 << 8) | (1 << 12));
	free(raw);
	/* OffsetForLeaderEpoch v4: b.y denied, a.x answered. */
	kdesc_defaults(kmsg_offset_for_leader_epoch.km_req, &oq);
	for (i = 0; i < 2; i++) {
		op[i].partition = 0;
		op[i].current_leader_epoch = -1;
		op[i].leader_epoch = 0;
		ot[i].topic = kstr_c(named[i]);
		ot[i].partitions.n = 1;
		ot[i].partitions.v = &op[i];
	}
	oq.replica_id = -1;
	oq.topics.n = 2;
	oq.topics.v = ot;
	kd_call(fd, &kmsg_offset_for_leader_epoch, 4, 14, &oq, &os, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(os.topics.n, 2);
	otr = os.topics.v;
	opr = otr[0].partitions.v;
	CU_ASSERT_EQUAL(opr->error_code, KERR_TOPIC_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(opr->end_offset, -1);
	opr = otr[1].partitions.v;
	CU_ASSERT_EQUAL(opr->error_code, KERR_NONE);
	CU_ASSERT_EQUAL(opr->end_offset, 0);
	CU_ASSERT_EQUAL(opr->leader_epoch, 0);
	free(raw);
	/* DescribeProducers: b.y denied, with Kafka's message. */
	kdesc_defaults(kmsg_describe_producers.km_req, &dq);
	dt.name = kstr_c("b.y");
	dt.partition_indexes.n = 1;
	dt.partition_indexes.v = (void *)p0;
	dq.topics.n = 1;
	dq.topics.v = &dt;
	kd_call(fd, &kmsg_describe_producers, 0, 15, &dq, &ds, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(ds.topics.n, 1);
	dtr = ds.topics.v;
	CU_ASSERT_EQUAL_FATAL(dtr->partitions.n, 1);
	dpr = dtr->partitions.v;
	CU_ASSERT_EQUAL(dpr->error_code, KERR_TOPIC_AUTHORIZATION_FAILED);
	CU_ASSERT(kstr_eq(dpr->error_message, "Topic authorization failed."));
	free(raw);
	/* DescribeTopicPartitions: a.x, then b.y denied. */
	dtp_call(fd, 16, named, 2, 2000, NULL, 0, &ts, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(ts.topics.n, 2);
	tt = ts.topics.v;
	CU_ASSERT(kstr_eq(tt[0].name, "a.x"));
	CU_ASSERT_EQUAL(tt[0].error_code, KERR_NONE);
	CU_ASSERT_EQUAL(tt[0].partitions.n, 2);
	CU_ASSERT_EQUAL(tt[0].topic_authorized_operations,
	    (1 << 3) | (1 << 4) | (1 << 8));
	CU_ASSERT(kstr_eq(tt[1].name, "b.y"));
	CU_ASSERT_EQUAL(tt[1].error_code, KERR_TOPIC_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(tt[1].topic_id[0] | tt[1].topic_id[15], 0);
	CU_ASSERT_EQUAL(tt[1].partitions.n, 0);
	CU_ASSERT_EQUAL(tt[1].topic_authorized_operations, INT32_MIN);
	free(raw);
	dtp_call(fd, 17, NULL, 0, 2000, NULL, 0, &ts, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(ts.topics.n, 1);
	tt = ts.topics.v;
	CU_ASSERT(kstr_eq(tt[0].name, "a.x"));
	free(raw);
	close(fd);
	/* ops: the log directories of a.x, not of b.y. */
	fd = login("ops", "ops-pw");
	kd_call(fd, &kmsg_describe_log_dirs, 4, 20, &lq, &ls, &a, &raw);
	CU_ASSERT_EQUAL(ls.error_code, KERR_NONE);
	CU_ASSERT_EQUAL_FATAL(ls.results.n, 1);
	res = ls.results.v;
	CU_ASSERT_EQUAL_FATAL(res->topics.n, 1);
	lt = res->topics.v;
	CU_ASSERT(kstr_eq(lt->name, "a.x"));
	CU_ASSERT_EQUAL(lt->partitions.n, 2);
	free(raw);
	kd_call(fd, &kmsg_list_partition_reassignments, 0, 21, &rq, &rs, &a,
	    &raw);
	CU_ASSERT_EQUAL(rs.error_code, KERR_NONE);
	free(raw);
	arena_free(&a);
	close(fd);
}

/* ---- flume-admin connections ---- */

/* The line of out whose peer column is peer, or NULL. */
static const char *
conn_line(const char *out, const char *peer)
{
	const char *p = out;
	size_t n = strlen(peer);

	while (p != NULL && *p != '\0') {
		/* "SLOT PID PEER ..." */
		const char *q = p;
		int field = 0;

		while (field < 2 && (q = strchr(q, ' ')) != NULL) {
			while (*q == ' ')
				q++;
			field++;
		}
		if (q != NULL && strncmp(q, peer, n) == 0 && q[n] == ' ')
			return p;
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return NULL;
}

/* The blank-separated fields of line l (at most 7 of 63 bytes). */
static int
conn_fields(const char *l, char f[7][64])
{
	char line[512];
	size_t n = strcspn(l, "\n");

	if (n >= sizeof(line))
		return -1;
	memcpy(line, l, n);
	line[n] = '\0';
	return sscanf(line, "%63s %63s %63s %63s %63s %63s %63s", f[0], f[1],
	    f[2], f[3], f[4], f[5], f[6]);
}

/*
 * A Kafka client that names its software in ApiVersions v3 (KIP-511) is
 * listed by flume-admin connections with that name and version, on the
 * Kafka protocol; one that sends v0 is listed with "-"; a closed one is
 * gone.  The native connection of flume-admin itself is listed too.
 */
static void
test_connections_client_software(void)
{
	static const char *const argv[] = { "flume-admin", "connections",
	    NULL };
	struct km_apiver_req q;
	struct km_apiver_resp s;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct arena a;
	uint8_t *raw = NULL;
	char peer1[64], peer2[64], *out = NULL, f[7][64];
	const char *l;
	int fd1, fd2;

	CU_ASSERT_FATAL((fd1 = support_kconnect(&d)) >= 0);
	CU_ASSERT_FATAL((fd2 = support_kconnect(&d)) >= 0);
	arena_init(&a, 1 << 16);
	kdesc_defaults(kmsg_api_versions.km_req, &q);
	q.client_software_name = kstr_c("kdesc-test");
	q.client_software_version = kstr_c("9.8.7");
	kd_call(fd1, &kmsg_api_versions, 3, 1, &q, &s, &a, &raw);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	free(raw);
	kd_call(fd2, &kmsg_api_versions, 0, 1, &q, &s, &a, &raw);
	free(raw);
	arena_free(&a);
	CU_ASSERT_FATAL(getsockname(fd1, (struct sockaddr *)&sa, &sl) == 0);
	snprintf(peer1, sizeof(peer1), "127.0.0.1:%d", ntohs(sa.sin_port));
	sl = sizeof(sa);
	CU_ASSERT_FATAL(getsockname(fd2, (struct sockaddr *)&sa, &sl) == 0);
	snprintf(peer2, sizeof(peer2), "127.0.0.1:%d", ntohs(sa.sin_port));
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 10000, argv), 0);
	CU_ASSERT(strncmp(out, "SLOT ", 5) == 0 &&
	    strstr(out, "PROTOCOL") != NULL && strstr(out, "CLIENT") != NULL &&
	    strstr(out, "VERSION") != NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l = conn_line(out, peer1));
	CU_ASSERT_EQUAL(conn_fields(l, f), 7);
	CU_ASSERT_STRING_EQUAL(f[2], peer1);
	CU_ASSERT_STRING_EQUAL(f[3], "kafka");
	CU_ASSERT(strlen(f[4]) == 20 && f[4][10] == 'T' && f[4][19] == 'Z');
	CU_ASSERT_STRING_EQUAL(f[5], "kdesc-test");
	CU_ASSERT_STRING_EQUAL(f[6], "9.8.7");
	CU_ASSERT_PTR_NOT_NULL_FATAL(l = conn_line(out, peer2));
	CU_ASSERT_EQUAL(conn_fields(l, f), 7);
	CU_ASSERT_STRING_EQUAL(f[3], "kafka");
	CU_ASSERT_STRING_EQUAL(f[5], "-");
	CU_ASSERT_STRING_EQUAL(f[6], "-");
	/* flume-admin's own native connection. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, " native "));
	free(out);
	out = NULL;
	close(fd1);
	WAIT_UNTIL(run_tool(&d, NULL, &out, 10000, argv) == 0 &&
	    conn_line(out, peer1) == NULL ? 1 : (free(out), out = NULL, 0),
	    5000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_PTR_NULL(conn_line(out, peer1));
	CU_ASSERT_PTR_NOT_NULL(conn_line(out, peer2));
	free(out);
	close(fd2);
}

/* ---- a real client's requests ---- */

/*
 * Send the captured frame file (tests/fixtures/kdesc/) as it is and
 * decode its answer at the frame's version into resp (strings into
 * *raw, which the caller frees).
 */
static void
replay(int fd, const char *file, const struct kmsg *m, int16_t v,
    void *resp, struct arena *a, uint8_t **raw)
{
	char path[512];
	uint8_t *frame, *p = NULL;
	size_t flen, n = 0;
	uint32_t id = 0;

	snprintf(path, sizeof(path), "tests/fixtures/kdesc/%s", file);
	CU_ASSERT_PTR_NOT_NULL_FATAL(frame = test_slurp(path, &flen));
	CU_ASSERT_EQUAL_FATAL(support_send(fd, frame, flen), 0);
	free(frame);
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 10000, &id, &p, &n), 1);
	*raw = p;
	/* Every one of these is flexible: response header v1. */
	CU_ASSERT_FATAL(n >= 1 && p[0] == 0);
	CU_ASSERT_EQUAL_FATAL(kmsg_decode_resp(m, v, resp, p + 1, n - 1, a),
	    0);
}

/*
 * @platformatic/kafka 1.22.0's requests (the client decoded these very
 * answers when they were captured): the cluster with its operations,
 * pkt's log directories, the end of epoch 0, no producers on an empty
 * partition, a page of one partition with the cursor at pkt/1, and no
 * reassignments.
 */
static void
test_platformatic_requests(void)
{
	struct km_dcluster_resp dc;
	struct km_logdirs_resp ld;
	struct km_ofle_resp oe;
	struct km_dprod_resp dp;
	struct km_dtp_resp tp;
	struct km_lpr_resp lr;
	const struct km_logdirs_result *res;
	const struct km_logdirs_topic_resp *lt;
	const struct km_ofle_topic_resp *ot;
	const struct km_ofle_part_resp *op;
	const struct km_dprod_topic_resp *dt;
	const struct km_dprod_part_resp *dpp;
	struct arena a;
	uint8_t *raw = NULL;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	arena_init(&a, 1 << 20);
	replay(fd, "platformatic-kafka-DescribeCluster-v1.bin",
	    &kmsg_describe_cluster, 1, &dc, &a, &raw);
	check_broker(&dc);
	CU_ASSERT_EQUAL(dc.cluster_authorized_operations, CLUSTER_ALL);
	free(raw);
	replay(fd, "platformatic-kafka-DescribeLogDirs-v4.bin",
	    &kmsg_describe_log_dirs, 4, &ld, &a, &raw);
	CU_ASSERT_EQUAL(ld.error_code, KERR_NONE);
	CU_ASSERT_EQUAL_FATAL(ld.results.n, 1);
	res = ld.results.v;
	CU_ASSERT_EQUAL_FATAL(res->topics.n, 1);
	lt = res->topics.v;
	CU_ASSERT(kstr_eq(lt->name, "pkt"));
	CU_ASSERT_EQUAL(lt->partitions.n, 2);
	free(raw);
	replay(fd, "platformatic-kafka-OffsetForLeaderEpoch-v4.bin",
	    &kmsg_offset_for_leader_epoch, 4, &oe, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(oe.topics.n, 1);
	ot = oe.topics.v;
	CU_ASSERT_EQUAL_FATAL(ot->partitions.n, 1);
	op = ot->partitions.v;
	CU_ASSERT(op->error_code == KERR_NONE && op->leader_epoch == 0 &&
	    op->end_offset == 0);
	free(raw);
	replay(fd, "platformatic-kafka-DescribeProducers-v0.bin",
	    &kmsg_describe_producers, 0, &dp, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(dp.topics.n, 1);
	dt = dp.topics.v;
	CU_ASSERT_EQUAL_FATAL(dt->partitions.n, 1);
	dpp = dt->partitions.v;
	CU_ASSERT(dpp->error_code == KERR_NONE &&
	    dpp->active_producers.n == 0);
	free(raw);
	replay(fd, "platformatic-kafka-DescribeTopicPartitions-v0.bin",
	    &kmsg_describe_topic_partitions, 0, &tp, &a, &raw);
	CU_ASSERT_EQUAL_FATAL(tp.topics.n, 1);
	dtp_topic(&tp, 0, "pkt", 0, 1);
	dtp_next(&tp, "pkt", 1);
	free(raw);
	replay(fd, "platformatic-kafka-ListPartitionReassignments-v0.bin",
	    &kmsg_list_partition_reassignments, 0, &lr, &a, &raw);
	CU_ASSERT(lr.error_code == KERR_NONE && lr.error_message.len == -1 &&
	    lr.topics.n == 0);
	free(raw);
	arena_free(&a);
	close(fd);
}

/*
 * With an auth_file, flume-admin connections needs admin on every topic
 * (as workers): ops (admin on a.* only) is refused, exit 1; root sees
 * bob's Kafka connection with the software it named, and its own.
 */
static void
test_connections_permission(void)
{
	char ops[600], root[600], *out = NULL, peer[64], f[7][64];
	const char *ops_argv[] = { "flume-admin", "--secret-file", ops,
	    "connections", NULL };
	const char *root_argv[] = { "flume-admin", "--secret-file", root,
	    "connections", NULL };
	struct km_apiver_req q;
	struct km_apiver_resp s;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct arena a;
	uint8_t *raw = NULL;
	const char *l;
	int fd;

	snprintf(ops, sizeof(ops), "%s/ops.secret", da.dir);
	snprintf(root, sizeof(root), "%s/root.secret", da.dir);
	CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
	arena_init(&a, 1 << 16);
	kdesc_defaults(kmsg_api_versions.km_req, &q);
	q.client_software_name = kstr_c("bob-app");
	q.client_software_version = kstr_c("1.0");
	kd_call(fd, &kmsg_api_versions, 4, 1, &q, &s, &a, &raw);
	free(raw);
	arena_free(&a);
	CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
	snprintf(peer, sizeof(peer), "127.0.0.1:%d", ntohs(sa.sin_port));
	CU_ASSERT_EQUAL(run_tool(&da, NULL, NULL, 10000, ops_argv), 1);
	CU_ASSERT_EQUAL_FATAL(run_tool(&da, NULL, &out, 10000, root_argv), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l = conn_line(out, peer));
	CU_ASSERT_EQUAL(conn_fields(l, f), 7);
	CU_ASSERT_STRING_EQUAL(f[3], "kafka");
	CU_ASSERT_STRING_EQUAL(f[5], "bob-app");
	CU_ASSERT_STRING_EQUAL(f[6], "1.0");
	CU_ASSERT_PTR_NOT_NULL(strstr(out, " native "));
	free(out);
	close(fd);
}

TEST_SUITE("kafka_describe", setup, teardown,
    { "flume-admin connections needs admin on every topic",
      test_connections_permission },
    { "@platformatic/kafka's requests", test_platformatic_requests },
    { "flume-admin connections: client software (KIP-511)",
      test_connections_client_software },
    { "permissions: auth_file users", test_permissions },
    { "DescribeCluster v0-2", test_describe_cluster },
    { "DescribeLogDirs v0-4", test_describe_log_dirs },
    { "OffsetForLeaderEpoch v0-4", test_offset_for_leader_epoch },
    { "ListPartitionReassignments v0", test_list_reassignments },
    { "DescribeProducers v0", test_describe_producers },
    { "DescribeTopicPartitions v0 and its pages",
      test_describe_topic_partitions },
    { "ListOffsets MAX_TIMESTAMP across segments",
      test_list_offsets_max_timestamp });
