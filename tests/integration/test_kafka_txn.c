/*
 * Transactions, the coordinator's side (issue 29), through requests made
 * with the codec (kcall.h): FindCoordinator key type 1, InitProducerId
 * with a transactional id (new id, epoch bump, fencing, bad timeouts),
 * AddPartitionsToTxn, transactional produce and its checks, EndTxn
 * commit and abort with the markers in the log (read back from the
 * segment files, as read_uncommitted sees them), the states' errors,
 * TxnOffsetCommit with OffsetFetch require_stable, Describe/List-
 * Transactions, the timeout abort, and restarts: an Ongoing transaction
 * replayed from __transaction_state and aborted at its timeout, and
 * kill -9 of the broker or the writer right after EndTxn answered,
 * which must still leave a COMMIT marker on every partition.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/crc32c.h"
#include "proto/ctrl.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_listoff.h"
#include "proto/kafka/kmsg_offset.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/kafka/kmsg_txn.h"
#include "tests/harness.h"
#include "tests/integration/kcall.h"
#include "tests/integration/support.h"

#define NPARTS	20	/* partitions of topic "many" */

static struct flumed d;
static int kport;
static int32_t corr = 100;

static int
setup(void)
{
	char extra[512];

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(extra, sizeof(extra), "kafka_listen = 127.0.0.1:%d\n"
	    "flush_interval_ms = 20ms\n"
	    "transaction_max_timeout_ms = 60s\n"
	    "transaction_state_log_num_partitions = 3\n"
	    "offsets_topic_num_partitions = 3\n"
	    "[topic tx]\npartitions = 2\n"
	    "[topic many]\npartitions = %d\n", kport, NPARTS);
	return flumed_start(&d, extra);
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

static int
kconnect(void)
{
	struct flumed k = d;

	k.port = kport;
	return support_connect(&k);
}

static void
call(int fd, const struct kmsg *m, int16_t v, const void *q, void *s)
{
	CU_ASSERT_EQUAL_FATAL(kcall(fd, m, v, corr++, q, s), 0);
}

/* InitProducerId v: its error; *pid, *epoch the answer. */
static int16_t
init_pid(int fd, int16_t v, const char *tid, int32_t timeout, int64_t xpid,
    int16_t xepoch, int64_t *pid, int16_t *epoch)
{
	struct km_init_pid_req q;
	struct km_init_pid_resp s;

	kdesc_defaults(kmsg_init_producer_id.km_req, &q);
	q.transactional_id = kstr_c(tid);
	q.transaction_timeout_ms = timeout;
	q.producer_id = xpid;
	q.producer_epoch = xepoch;
	call(fd, &kmsg_init_producer_id, v, &q, &s);
	*pid = s.producer_id;
	*epoch = s.producer_epoch;
	return s.error_code;
}

/* InitProducerId until it is not CONCURRENT_TRANSACTIONS (bounded). */
static int16_t
init_pid_retry(int fd, const char *tid, int32_t timeout, int64_t *pid,
    int16_t *epoch)
{
	*pid = -1;
	*epoch = -1;
	int16_t e = KERR_CONCURRENT_TRANSACTIONS;
	long long end = support_now_ms() + 10000;

	while (e == KERR_CONCURRENT_TRANSACTIONS && support_now_ms() < end) {
		e = init_pid(fd, 4, tid, timeout, -1, -1, pid, epoch);
		if (e == KERR_CONCURRENT_TRANSACTIONS)
			usleep(20 * 1000);	/* the client's retry backoff */
	}
	return e;
}

/*
 * AddPartitionsToTxn v (v0-3 or v4 batched) of partitions [0, n) of
 * topic: the error of every partition (asserted equal).
 */
static int16_t
add_parts(int fd, int16_t v, const char *tid, int64_t pid, int16_t epoch,
    const char *topic, int32_t n)
{
	struct km_addparts_req q;
	struct km_addparts_resp s;
	struct km_addparts_topic t;
	struct km_addparts_txn tx;
	const struct km_addparts_tresult *tr;
	const struct km_addparts_presult *pr;
	int32_t parts[NPARTS], i;
	int16_t e = -2;

	kdesc_defaults(kmsg_add_partitions_to_txn.km_req, &q);
	for (i = 0; i < n; i++)
		parts[i] = i;
	t.name = kstr_c(topic);
	t.partitions.n = n;
	t.partitions.v = parts;
	if (v >= 4) {
		memset(&tx, 0, sizeof(tx));
		tx.transactional_id = kstr_c(tid);
		tx.producer_id = pid;
		tx.producer_epoch = epoch;
		tx.topics.n = 1;
		tx.topics.v = &t;
		q.transactions.n = 1;
		q.transactions.v = &tx;
	} else {
		q.v3_transactional_id = kstr_c(tid);
		q.v3_producer_id = pid;
		q.v3_producer_epoch = epoch;
		q.v3_topics.n = 1;
		q.v3_topics.v = &t;
	}
	call(fd, &kmsg_add_partitions_to_txn, v, &q, &s);
	if (v >= 4) {
		const struct km_addparts_txnresult *res =
		    s.results_by_transaction.v;

		CU_ASSERT_EQUAL_FATAL(s.results_by_transaction.n, 1);
		CU_ASSERT(kstr_eq(res->transactional_id, tid));
		CU_ASSERT_EQUAL_FATAL(res->topic_results.n, 1);
		tr = res->topic_results.v;
	} else {
		CU_ASSERT_EQUAL_FATAL(s.results_by_topic_v3.n, 1);
		tr = s.results_by_topic_v3.v;
	}
	CU_ASSERT(kstr_eq(tr->name, topic));
	CU_ASSERT_EQUAL_FATAL(tr->results_by_partition.n, n);
	pr = tr->results_by_partition.v;
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(pr[i].partition_index, i);
		if (i == 0)
			e = pr[i].partition_error_code;
		CU_ASSERT_EQUAL(pr[i].partition_error_code, e);
	}
	return e;
}

static int16_t
end_txn(int fd, int16_t v, const char *tid, int64_t pid, int16_t epoch,
    int commit)
{
	struct km_endtxn_req q;
	struct km_endtxn_resp s;

	kdesc_defaults(kmsg_end_txn.km_req, &q);
	q.transactional_id = kstr_c(tid);
	q.producer_id = pid;
	q.producer_epoch = epoch;
	q.committed = (uint8_t)commit;
	call(fd, &kmsg_end_txn, v, &q, &s);
	return s.error_code;
}

/*
 * Produce v7 one batch of n records to (topic, partition) as pid/epoch
 * from sequence seq, with the transactional bit (txn) or as a control
 * batch (ctrl, a COMMIT marker): the partition's error, *base its offset.
 */
static int16_t
produce(int fd, const char *topic, int32_t partition, int64_t pid,
    int16_t epoch, int32_t seq, int n, int txn, int ctrl, int64_t *base)
{
	struct batch_builder bb;
	struct km_produce_part pp;
	struct km_produce_topic pt;
	struct km_produce_req q;
	struct km_produce_resp s;
	const struct km_produce_topic_resp *tr;
	const struct km_produce_part_resp *pr;
	const uint8_t *out;
	uint8_t *buf, mk[CTRL_MARKER_SIZE];
	size_t outlen;
	char val[32];
	int i;

	batch_builder_init(&bb);
	if (ctrl) {
		struct ctrl_marker m = { pid, epoch, CTRL_COMMIT, 0, 1000 };

		ctrl_marker_encode(mk, &m);
		out = mk;
		outlen = sizeof(mk);
	} else {
		if (pid >= 0)
			batch_builder_set_producer(&bb, pid, epoch, seq);
		for (i = 0; i < n; i++) {
			snprintf(val, sizeof(val), "%s-%d-%d", topic, partition,
			    seq + i);
			CU_ASSERT_FATAL(batch_builder_add(&bb, 1000 + i, NULL,
			    -1, val, (int32_t)strlen(val), NULL, 0) == 0);
		}
		CU_ASSERT_FATAL(batch_builder_close(&bb, &out, &outlen) == 0);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf = malloc(outlen));
	memcpy(buf, out, outlen);
	if (txn) {
		buf[BATCH_OFF_ATTRIBUTES + 1] |= BATCH_ATTR_TRANSACTIONAL;
		be32_put(buf + BATCH_OFF_CRC, crc32c(0, buf +
		    BATCH_OFF_ATTRIBUTES, outlen - BATCH_OFF_ATTRIBUTES));
	}
	kdesc_defaults(kmsg_produce.km_req, &q);
	pp.index = partition;
	pp.records.p = (const char *)buf;
	pp.records.len = (int32_t)outlen;
	pt.name = kstr_c(topic);
	pt.partition_data.n = 1;
	pt.partition_data.v = &pp;
	q.acks = -1;
	q.timeout_ms = 5000;
	q.topic_data.n = 1;
	q.topic_data.v = &pt;
	call(fd, &kmsg_produce, 7, &q, &s);
	free(buf);
	batch_builder_free(&bb);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	tr = s.responses.v;
	CU_ASSERT_EQUAL_FATAL(tr->partition_responses.n, 1);
	pr = tr->partition_responses.v;
	if (base != NULL)
		*base = pr->base_offset;
	return pr->error_code;
}

/*
 * ListOffsets v2 latest of (topic, partition) at isolation (1:
 * read_committed, the last stable offset; txdata's side).
 */
static int64_t
latest(int fd, const char *topic, int32_t partition, int8_t isolation)
{
	struct km_listoff_req q;
	struct km_listoff_resp s;
	struct km_listoff_topic t;
	struct km_listoff_part p;
	const struct km_listoff_topic_resp *tr;
	const struct km_listoff_part_resp *pr;

	kdesc_defaults(kmsg_list_offsets.km_req, &q);
	memset(&p, 0, sizeof(p));
	p.partition_index = partition;
	p.current_leader_epoch = -1;
	p.timestamp = -1;
	t.name = kstr_c(topic);
	t.partitions.n = 1;
	t.partitions.v = &p;
	q.replica_id = -1;
	q.isolation_level = isolation;
	q.topics.n = 1;
	q.topics.v = &t;
	call(fd, &kmsg_list_offsets, 2, &q, &s);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	tr = s.topics.v;
	CU_ASSERT_EQUAL_FATAL(tr->partitions.n, 1);
	pr = tr->partitions.v;
	CU_ASSERT_EQUAL(pr->error_code, KERR_NONE);
	return pr->offset;
}

/* DescribeTransactions v0 of tid: its error; state, epoch, partitions. */
static int16_t
describe(int fd, const char *tid, char *state, int16_t *epoch,
    int32_t *nparts)
{
	struct km_desctxn_req q;
	struct km_desctxn_resp s;
	const struct km_desctxn_state *o;
	const struct km_desctxn_topic *t;
	struct kstr id = kstr_c(tid);
	int32_t i;

	q.transactional_ids.n = 1;
	q.transactional_ids.v = &id;
	call(fd, &kmsg_describe_transactions, 0, &q, &s);
	CU_ASSERT_EQUAL_FATAL(s.transaction_states.n, 1);
	o = s.transaction_states.v;
	CU_ASSERT(kstr_eq(o->transactional_id, tid));
	snprintf(state, 32, "%.*s", o->transaction_state.len,
	    o->transaction_state.p);
	*epoch = o->producer_epoch;
	*nparts = 0;
	t = o->topics.v;
	for (i = 0; i < o->topics.n; i++)
		*nparts += t[i].partitions.n;
	return o->error_code;
}

/* Wait (<= ms) until tid's state is want; 1 if it got there. */
static int
wait_state(int fd, const char *tid, const char *want, int ms)
{
	char st[32] = "";
	int16_t ep;
	int32_t np;
	long long end = support_now_ms() + ms;

	do {
		CU_ASSERT_EQUAL(describe(fd, tid, st, &ep, &np), KERR_NONE);
		kcall_release();
		if (strcmp(st, want) == 0)
			return 1;
		usleep(20 * 1000);	/* polling the state, bounded */
	} while (support_now_ms() < end);
	return 0;
}

/* What one partition's log holds, batch by batch. */
struct logbatch {
	int64_t		base;
	int16_t		attributes;
	int64_t		pid;
	int16_t		epoch;
	int		marker;		/* -1 data, CTRL_ABORT, CTRL_COMMIT */
};

/* The batches of (topic, partition)'s segment files, up to max: count. */
static int
log_read(const char *topic, int32_t partition, struct logbatch *out, int max)
{
	char dir[1024], path[1300];
	struct dirent *de;
	struct batch_header h;
	struct ctrl_marker m;
	DIR *dp;
	uint8_t *buf;
	size_t pos, sz;
	long len;
	FILE *f;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/%s/partition-%d", d.data, topic,
	    partition);
	if ((dp = opendir(dir)) == NULL)
		return -1;
	/* One segment here: every test log is far under segment_bytes. */
	while ((de = readdir(dp)) != NULL) {
		if (strlen(de->d_name) < 5 ||
		    strcmp(de->d_name + strlen(de->d_name) - 4, ".log") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((f = fopen(path, "rb")) == NULL)
			continue;
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc(len > 0 ? (size_t)len : 1);
		if (buf == NULL || fread(buf, 1, (size_t)len, f) !=
		    (size_t)len) {
			free(buf);
			fclose(f);
			continue;
		}
		fclose(f);
		for (pos = 0; (size_t)len - pos >= BATCH_HEADER_SIZE &&
		    batch_parse_header(buf + pos, (size_t)len - pos, &h) ==
		    BATCH_OK && n < max; pos += sz) {
			sz = batch_total_size(&h);
			if (sz > (size_t)len - pos)
				break;
			out[n].base = h.base_offset;
			out[n].attributes = h.attributes;
			out[n].pid = h.producer_id;
			out[n].epoch = h.producer_epoch;
			out[n].marker = ctrl_marker_parse(buf + pos, sz, &m) == 1 ?
			    m.type : -1;
			n++;
		}
		free(buf);
	}
	closedir(dp);
	return n;
}

/* Markers of type in (topic, partition) for pid. */
static int
markers(const char *topic, int32_t partition, int64_t pid, int type)
{
	struct logbatch b[256];
	int i, n = log_read(topic, partition, b, 256), c = 0;

	for (i = 0; i < n; i++)
		if (b[i].marker == type && b[i].pid == pid)
			c++;
	return c;
}

/* ---- the tests ---- */

static void
test_find_coordinator(void)
{
	struct km_findcoord_req q;
	struct km_findcoord_resp s;
	const struct km_coordinator *co;
	struct kstr keys[2] = { kstr_c("t-a"), kstr_c("t-b") };
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	kdesc_defaults(kmsg_find_coordinator.km_req, &q);
	q.key = kstr_c("t-a");
	q.key_type = 1;
	call(fd, &kmsg_find_coordinator, 1, &q, &s);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	CU_ASSERT_EQUAL(s.node_id, 0);
	CU_ASSERT_EQUAL(s.port, kport);
	kdesc_defaults(kmsg_find_coordinator.km_req, &q);
	q.key_type = 1;
	q.coordinator_keys.n = 2;
	q.coordinator_keys.v = keys;
	call(fd, &kmsg_find_coordinator, 4, &q, &s);
	CU_ASSERT_EQUAL_FATAL(s.coordinators.n, 2);
	co = s.coordinators.v;
	CU_ASSERT(kstr_eq(co[0].key, "t-a"));
	CU_ASSERT(kstr_eq(co[1].key, "t-b"));
	CU_ASSERT_EQUAL(co[0].error_code, KERR_NONE);
	CU_ASSERT_EQUAL(co[1].error_code, KERR_NONE);
	CU_ASSERT_EQUAL(co[1].port, kport);
	kcall_release();
	close(fd);
}

static void
test_init_producer_id(void)
{
	int64_t pid, pid2;
	int16_t ep, ep2;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(init_pid(fd, 1, "i-1", 10000, -1, -1, &pid, &ep),
	    KERR_NONE);
	CU_ASSERT(pid >= 0);
	CU_ASSERT_EQUAL(ep, 0);
	/* The same id again: the same producer id, the epoch bumped. */
	CU_ASSERT_EQUAL(init_pid(fd, 4, "i-1", 10000, -1, -1, &pid2, &ep2),
	    KERR_NONE);
	CU_ASSERT_EQUAL(pid2, pid);
	CU_ASSERT_EQUAL(ep2, 1);
	/* KIP-360: naming the current id and epoch bumps it too. */
	CU_ASSERT_EQUAL(init_pid(fd, 3, "i-1", 10000, pid, 1, &pid2, &ep2),
	    KERR_NONE);
	CU_ASSERT_EQUAL(ep2, 2);
	/* A stale epoch named: PRODUCER_FENCED from v4, before it 47. */
	CU_ASSERT_EQUAL(init_pid(fd, 4, "i-1", 10000, pid, 0, &pid2, &ep2),
	    KERR_PRODUCER_FENCED);
	CU_ASSERT_EQUAL(pid2, -1);
	CU_ASSERT_EQUAL(init_pid(fd, 3, "i-1", 10000, pid, 0, &pid2, &ep2),
	    KERR_INVALID_PRODUCER_EPOCH);
	/* Timeouts: over transaction_max_timeout_ms (60s), or none. */
	CU_ASSERT_EQUAL(init_pid(fd, 4, "i-2", 60001, -1, -1, &pid2, &ep2),
	    KERR_INVALID_TRANSACTION_TIMEOUT);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "i-2", 0, -1, -1, &pid2, &ep2),
	    KERR_INVALID_TRANSACTION_TIMEOUT);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "", 1000, -1, -1, &pid2, &ep2),
	    KERR_INVALID_REQUEST);
	/* Bad input changed nothing: i-2 does not exist. */
	{
		char st[32];
		int32_t np;
		struct km_desctxn_req q;
		struct km_desctxn_resp s;
		struct kstr id = kstr_c("i-2");

		(void)st;
		(void)np;
		q.transactional_ids.n = 1;
		q.transactional_ids.v = &id;
		call(fd, &kmsg_describe_transactions, 0, &q, &s);
		CU_ASSERT_EQUAL(((const struct km_desctxn_state *)
		    s.transaction_states.v)->error_code,
		    KERR_TRANSACTIONAL_ID_NOT_FOUND);
	}
	kcall_release();
	close(fd);
}

/* Commit: records and a COMMIT marker on both partitions, in order. */
static void
test_commit(void)
{
	struct logbatch b[64];
	char st[32];
	int64_t pid, base0, base1;
	int16_t ep;
	int32_t np;
	int fd, n, i;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	/* Made by a plain produce first (auto_create_topics). */
	CU_ASSERT_EQUAL(produce(fd, "tx", 0, -1, 0, 0, 1, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(produce(fd, "tx", 1, -1, 0, 0, 1, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "c-1", 30000, -1, -1, &pid, &ep), 0);
	CU_ASSERT_EQUAL(add_parts(fd, 3, "c-1", pid, ep, "tx", 2), KERR_NONE);
	CU_ASSERT_EQUAL(describe(fd, "c-1", st, &ep, &np), KERR_NONE);
	CU_ASSERT_STRING_EQUAL(st, "Ongoing");
	CU_ASSERT_EQUAL(np, 2);
	CU_ASSERT_EQUAL(produce(fd, "tx", 0, pid, ep, 0, 5, 1, 0, &base0), 0);
	CU_ASSERT_EQUAL(produce(fd, "tx", 1, pid, ep, 0, 3, 1, 0, &base1), 0);
	CU_ASSERT_EQUAL(base0, 1);
	CU_ASSERT_EQUAL(base1, 1);
	/* Open: read_committed stops at its first offset, the end goes on. */
	WAIT_UNTIL(latest(fd, "tx", 0, 0) == 6, 5000);
	CU_ASSERT_EQUAL(latest(fd, "tx", 0, 0), 6);
	CU_ASSERT_EQUAL(latest(fd, "tx", 0, 1), 1);
	CU_ASSERT_EQUAL(end_txn(fd, 3, "c-1", pid, ep, 1), KERR_NONE);
	CU_ASSERT(wait_state(fd, "c-1", "CompleteCommit", 5000));
	/* Committed: the LSO is past the marker on both partitions. */
	WAIT_UNTIL(latest(fd, "tx", 0, 1) == 7 && latest(fd, "tx", 1, 1) == 5,
	    5000);
	CU_ASSERT_EQUAL(latest(fd, "tx", 0, 1), 7);
	CU_ASSERT_EQUAL(latest(fd, "tx", 1, 1), 5);
	/* A retried commit of a completed one is fine, an abort is not. */
	CU_ASSERT_EQUAL(end_txn(fd, 3, "c-1", pid, ep, 1), KERR_NONE);
	CU_ASSERT_EQUAL(end_txn(fd, 3, "c-1", pid, ep, 0),
	    KERR_INVALID_TXN_STATE);
	WAIT_UNTIL(markers("tx", 0, pid, CTRL_COMMIT) == 1 &&
	    markers("tx", 1, pid, CTRL_COMMIT) == 1, 5000);
	n = log_read("tx", 0, b, 64);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(b[0].marker, -1);	/* the plain record */
	CU_ASSERT_EQUAL(b[1].base, 1);
	CU_ASSERT_EQUAL(b[1].attributes & BATCH_ATTR_TRANSACTIONAL,
	    BATCH_ATTR_TRANSACTIONAL);
	CU_ASSERT_EQUAL(b[1].marker, -1);
	CU_ASSERT_EQUAL(b[2].base, 6);		/* after the 5 records */
	CU_ASSERT_EQUAL(b[2].marker, CTRL_COMMIT);
	CU_ASSERT_EQUAL(b[2].pid, pid);
	CU_ASSERT_EQUAL(b[2].epoch, ep);
	n = log_read("tx", 1, b, 64);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(b[2].base, 4);
	CU_ASSERT_EQUAL(b[2].marker, CTRL_COMMIT);
	for (i = 0; i < n; i++)
		CU_ASSERT(b[i].marker != CTRL_ABORT);
	/* EndTxn on a transaction with nothing open: INVALID_TXN_STATE. */
	CU_ASSERT_EQUAL(init_pid(fd, 4, "c-2", 30000, -1, -1, &pid, &ep), 0);
	CU_ASSERT_EQUAL(end_txn(fd, 3, "c-2", pid, ep, 1),
	    KERR_INVALID_TXN_STATE);
	kcall_release();
	close(fd);
}

/* Abort, and what produce and the coordinator refuse. */
static void
test_abort_and_checks(void)
{
	int64_t pid, pid2, off;
	int16_t ep, ep2;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "a-1", 30000, -1, -1, &pid, &ep), 0);
	/* Not added yet: the transactional batch is refused. */
	CU_ASSERT_EQUAL(produce(fd, "tx", 0, pid, ep, 0, 2, 1, 0, NULL),
	    KERR_INVALID_TXN_STATE);
	CU_ASSERT_EQUAL(add_parts(fd, 4, "a-1", pid, ep, "tx", 1), KERR_NONE);
	/* Unknown topic: that one UNKNOWN_TOPIC, nothing added. */
	CU_ASSERT_EQUAL(add_parts(fd, 3, "a-1", pid, ep, "nosuch", 1),
	    KERR_UNKNOWN_TOPIC_OR_PARTITION);
	/* Wrong producer id, wrong epoch (v1: 47, v2+: 90). */
	CU_ASSERT_EQUAL(add_parts(fd, 3, "a-1", pid + 1, ep, "tx", 1),
	    KERR_INVALID_PRODUCER_ID_MAPPING);
	CU_ASSERT_EQUAL(add_parts(fd, 1, "a-1", pid, ep + 1, "tx", 1),
	    KERR_INVALID_PRODUCER_EPOCH);
	CU_ASSERT_EQUAL(add_parts(fd, 2, "a-1", pid, ep + 1, "tx", 1),
	    KERR_PRODUCER_FENCED);
	/* Clients never write control batches. */
	CU_ASSERT_EQUAL(produce(fd, "tx", 0, pid, ep, 0, 1, 1, 1, NULL),
	    KERR_INVALID_RECORD);
	CU_ASSERT_EQUAL(produce(fd, "tx", 0, pid, ep, 0, 2, 1, 0, &off), 0);
	CU_ASSERT_EQUAL(end_txn(fd, 1, "a-1", pid, ep, 0), KERR_NONE);
	CU_ASSERT(wait_state(fd, "a-1", "CompleteAbort", 5000));
	WAIT_UNTIL(markers("tx", 0, pid, CTRL_ABORT) == 1, 5000);
	CU_ASSERT_EQUAL(markers("tx", 0, pid, CTRL_ABORT), 1);
	CU_ASSERT_EQUAL(markers("tx", 0, pid, CTRL_COMMIT), 0);
	/* Abort again: fine; commit now: INVALID_TXN_STATE. */
	CU_ASSERT_EQUAL(end_txn(fd, 3, "a-1", pid, ep, 0), KERR_NONE);
	CU_ASSERT_EQUAL(end_txn(fd, 3, "a-1", pid, ep, 1),
	    KERR_INVALID_TXN_STATE);

	/*
	 * Fencing: a new instance while a transaction is open aborts it
	 * (CONCURRENT_TRANSACTIONS until then) and gets epoch + 2; the old
	 * instance's produce is INVALID_PRODUCER_EPOCH, its EndTxn fenced.
	 */
	CU_ASSERT_EQUAL(add_parts(fd, 3, "a-1", pid, ep, "tx", 2), KERR_NONE);
	CU_ASSERT_EQUAL(produce(fd, "tx", 1, pid, ep, 0, 2, 1, 0, NULL), 0);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "a-1", 30000, -1, -1, &pid2, &ep2),
	    KERR_CONCURRENT_TRANSACTIONS);
	CU_ASSERT_EQUAL(init_pid_retry(fd, "a-1", 30000, &pid2, &ep2),
	    KERR_NONE);
	CU_ASSERT_EQUAL(pid2, pid);
	CU_ASSERT_EQUAL(ep2, ep + 2);
	WAIT_UNTIL(markers("tx", 1, pid, CTRL_ABORT) == 1, 5000);
	CU_ASSERT_EQUAL(markers("tx", 1, pid, CTRL_ABORT), 1);
	CU_ASSERT_EQUAL(produce(fd, "tx", 1, pid, ep, 2, 1, 1, 0, NULL),
	    KERR_INVALID_PRODUCER_EPOCH);
	CU_ASSERT_EQUAL(end_txn(fd, 4, "a-1", pid, ep, 1),
	    KERR_PRODUCER_FENCED);
	kcall_release();
	close(fd);
}

/* OffsetFetch v7 of (group, tx/0) with require_stable: error, offset. */
static int16_t
fetch_offset(int fd, const char *group, int stable, int64_t *off)
{
	struct km_ofetch_req q;
	struct km_ofetch_resp s;
	struct km_ofetch_topic t;
	const struct km_ofetch_topic_resp *tr;
	const struct km_ofetch_part *fp;
	int32_t p0 = 0;

	kdesc_defaults(kmsg_offset_fetch.km_req, &q);
	q.group_id = kstr_c(group);
	t.name = kstr_c("tx");
	t.partition_indexes.n = 1;
	t.partition_indexes.v = &p0;
	q.topics.n = 1;
	q.topics.v = &t;
	q.require_stable = (uint8_t)stable;
	call(fd, &kmsg_offset_fetch, 7, &q, &s);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	tr = s.topics.v;
	CU_ASSERT_EQUAL_FATAL(tr->partitions.n, 1);
	fp = tr->partitions.v;
	*off = fp->committed_offset;
	return fp->error_code;
}

static int16_t
txn_offset_commit_m(int fd, int16_t v, const char *tid, const char *group,
    int64_t pid, int16_t epoch, int64_t offset, const char *member,
    int32_t generation)
{
	struct km_txnoc_req q;
	struct km_txnoc_resp s;
	struct km_txnoc_topic t;
	struct km_txnoc_part p;
	const struct km_txnoc_tresp *tr;
	const struct km_txnoc_presp *pr;

	kdesc_defaults(kmsg_txn_offset_commit.km_req, &q);
	memset(&p, 0, sizeof(p));
	p.partition_index = 0;
	p.committed_offset = offset;
	p.committed_leader_epoch = -1;
	p.committed_metadata = kstr_c("");
	t.name = kstr_c("tx");
	t.partitions.n = 1;
	t.partitions.v = &p;
	q.transactional_id = kstr_c(tid);
	q.group_id = kstr_c(group);
	q.producer_id = pid;
	q.producer_epoch = epoch;
	q.topics.n = 1;
	q.topics.v = &t;
	q.member_id = kstr_c(member);
	q.generation_id = generation;
	call(fd, &kmsg_txn_offset_commit, v, &q, &s);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	tr = s.topics.v;
	CU_ASSERT_EQUAL_FATAL(tr->partitions.n, 1);
	pr = tr->partitions.v;
	return pr->error_code;
}

static int16_t
txn_offset_commit(int fd, int16_t v, const char *tid, const char *group,
    int64_t pid, int16_t epoch, int64_t offset)
{
	return txn_offset_commit_m(fd, v, tid, group, pid, epoch, offset, "",
	    -1);
}

static int16_t
add_offsets(int fd, int16_t v, const char *tid, const char *group,
    int64_t pid, int16_t epoch)
{
	struct km_addoffs_req q;
	struct km_addoffs_resp s;

	q.transactional_id = kstr_c(tid);
	q.producer_id = pid;
	q.producer_epoch = epoch;
	q.group_id = kstr_c(group);
	call(fd, &kmsg_add_offsets_to_txn, v, &q, &s);
	return s.error_code;
}

static void
test_txn_offsets(void)
{
	int64_t pid, off;
	int16_t ep;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "o-1", 30000, -1, -1, &pid, &ep), 0);
	/* Before AddOffsetsToTxn: INVALID_TXN_STATE, nothing pending. */
	CU_ASSERT_EQUAL(txn_offset_commit(fd, 3, "o-1", "og", pid, ep, 7),
	    KERR_INVALID_TXN_STATE);
	CU_ASSERT_EQUAL(add_offsets(fd, 3, "o-1", "og", pid, ep), KERR_NONE);
	/* v3's member: one the group does not have is fenced (KIP-447). */
	CU_ASSERT_EQUAL(txn_offset_commit_m(fd, 3, "o-1", "og", pid, ep, 8,
	    "zombie", 5), KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT_EQUAL(txn_offset_commit(fd, 3, "o-1", "og", pid, ep, 7),
	    KERR_NONE);
	CU_ASSERT_EQUAL(fetch_offset(fd, "og", 1, &off),
	    KERR_UNSTABLE_OFFSET_COMMIT);
	CU_ASSERT_EQUAL(off, -1);
	/* Without require_stable: the committed one (none yet). */
	CU_ASSERT_EQUAL(fetch_offset(fd, "og", 0, &off), KERR_NONE);
	CU_ASSERT_EQUAL(off, -1);
	CU_ASSERT_EQUAL(end_txn(fd, 3, "o-1", pid, ep, 1), KERR_NONE);
	CU_ASSERT(wait_state(fd, "o-1", "CompleteCommit", 5000));
	CU_ASSERT_EQUAL(fetch_offset(fd, "og", 1, &off), KERR_NONE);
	CU_ASSERT_EQUAL(off, 7);
	/* An aborted transaction's offsets never land. */
	CU_ASSERT_EQUAL(add_offsets(fd, 4, "o-1", "og", pid, ep), KERR_NONE);
	CU_ASSERT_EQUAL(txn_offset_commit(fd, 5, "o-1", "og", pid, ep, 9),
	    KERR_NONE);
	CU_ASSERT_EQUAL(end_txn(fd, 5, "o-1", pid, ep, 0), KERR_NONE);
	CU_ASSERT(wait_state(fd, "o-1", "CompleteAbort", 5000));
	CU_ASSERT_EQUAL(fetch_offset(fd, "og", 1, &off), KERR_NONE);
	CU_ASSERT_EQUAL(off, 7);
	/* TxnOffsetCommit with a stale epoch: 47, never 90. */
	CU_ASSERT_EQUAL(txn_offset_commit(fd, 3, "o-1", "og", pid, ep + 1, 9),
	    KERR_INVALID_PRODUCER_EPOCH);
	kcall_release();
	close(fd);
}

static void
test_list_transactions(void)
{
	struct km_listtxn_req q;
	struct km_listtxn_resp s;
	const struct km_listtxn_state *o;
	struct kstr f[2] = { kstr_c("Ongoing"), kstr_c("Nonsense") };
	int64_t pid;
	int16_t ep;
	int32_t i;
	int fd, seen = 0;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "l-1", 30000, -1, -1, &pid, &ep), 0);
	CU_ASSERT_EQUAL(add_parts(fd, 3, "l-1", pid, ep, "tx", 1), KERR_NONE);
	kdesc_defaults(kmsg_list_transactions.km_req, &q);
	q.state_filters.n = 2;
	q.state_filters.v = f;
	call(fd, &kmsg_list_transactions, 1, &q, &s);
	CU_ASSERT_EQUAL(s.error_code, KERR_NONE);
	CU_ASSERT_EQUAL_FATAL(s.unknown_state_filters.n, 1);
	CU_ASSERT(kstr_eq(((const struct kstr *)
	    s.unknown_state_filters.v)[0], "Nonsense"));
	o = s.transaction_states.v;
	for (i = 0; i < s.transaction_states.n; i++) {
		CU_ASSERT(kstr_eq(o[i].transaction_state, "Ongoing"));
		if (kstr_eq(o[i].transactional_id, "l-1")) {
			CU_ASSERT_EQUAL(o[i].producer_id, pid);
			seen++;
		}
	}
	CU_ASSERT_EQUAL(seen, 1);
	/* By producer id: exactly that one. */
	kdesc_defaults(kmsg_list_transactions.km_req, &q);
	q.producer_id_filters.n = 1;
	q.producer_id_filters.v = &pid;
	call(fd, &kmsg_list_transactions, 0, &q, &s);
	CU_ASSERT_EQUAL_FATAL(s.transaction_states.n, 1);
	o = s.transaction_states.v;
	CU_ASSERT(kstr_eq(o->transactional_id, "l-1"));
	/* v1's DurationFilter: begun more than a day ago, none; 0, l-1. */
	q.duration_filter = 86400000;
	call(fd, &kmsg_list_transactions, 1, &q, &s);
	CU_ASSERT_EQUAL(s.transaction_states.n, 0);
	q.duration_filter = 0;	/* once a millisecond has passed since */
	WAIT_UNTIL((call(fd, &kmsg_list_transactions, 1, &q, &s),
	    s.transaction_states.n == 1), 2000);
	CU_ASSERT_EQUAL(s.transaction_states.n, 1);
	CU_ASSERT_EQUAL(end_txn(fd, 3, "l-1", pid, ep, 0), KERR_NONE);
	kcall_release();
	close(fd);
}

/* flume-admin transactions: the table, Kafka's state names. */
static void
test_admin_transactions(void)
{
	const char *argv[] = { "flume-admin", "transactions", NULL };
	char *out = NULL, want[160];
	int64_t pid;
	int16_t ep;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "adm-1", 12345, -1, -1, &pid, &ep), 0);
	CU_ASSERT_EQUAL(add_parts(fd, 3, "adm-1", pid, ep, "tx", 2),
	    KERR_NONE);
	kcall_release();
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 10000, argv), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(strncmp(out, "TRANSACTIONAL_ID ", 17), 0);
	snprintf(want, sizeof(want), "\nadm-1%19s %-18s %20lld %6d %10d %5d ",
	    " ", "Ongoing", (long long)pid, (int)ep, 12345, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(out);
	CU_ASSERT_EQUAL(end_txn(fd, 3, "adm-1", pid, ep, 0), KERR_NONE);
	kcall_release();
	close(fd);
}

/* Past its timeout, the broker aborts it with a bumped epoch. */
static void
test_timeout(void)
{
	char st[32];
	int64_t pid, first = -1;
	int16_t ep, ep2;
	int32_t np;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "to-1", 1000, -1, -1, &pid, &ep), 0);
	CU_ASSERT_EQUAL(add_parts(fd, 3, "to-1", pid, ep, "tx", 1), KERR_NONE);
	CU_ASSERT_EQUAL(produce(fd, "tx", 0, pid, ep, 0, 2, 1, 0, &first), 0);
	/* Held at its first offset while it is open... */
	CU_ASSERT_EQUAL(latest(fd, "tx", 0, 1), first);
	CU_ASSERT(wait_state(fd, "to-1", "CompleteAbort", 8000));
	/* ...and past its ABORT marker once the broker aborted it. */
	WAIT_UNTIL(latest(fd, "tx", 0, 1) == first + 3, 5000);
	CU_ASSERT_EQUAL(latest(fd, "tx", 0, 1), first + 3);
	CU_ASSERT_EQUAL(latest(fd, "tx", 0, 0), first + 3);
	CU_ASSERT_EQUAL(describe(fd, "to-1", st, &ep2, &np), KERR_NONE);
	CU_ASSERT_EQUAL(ep2, ep + 1);
	CU_ASSERT_EQUAL(np, 0);
	WAIT_UNTIL(markers("tx", 0, pid, CTRL_ABORT) >= 1, 5000);
	CU_ASSERT_EQUAL(markers("tx", 0, pid, CTRL_ABORT), 1);
	CU_ASSERT_EQUAL(end_txn(fd, 4, "to-1", pid, ep, 1),
	    KERR_PRODUCER_FENCED);
	CU_ASSERT_EQUAL(produce(fd, "tx", 0, pid, ep, 2, 1, 1, 0, NULL),
	    KERR_INVALID_PRODUCER_EPOCH);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "transaction to-1", 1, 1000), 1);
	kcall_release();
	close(fd);
}

/*
 * A restart keeps every transaction: an Ongoing one comes back with its
 * partitions (from __transaction_state) and is aborted at its timeout.
 */
static void
test_restart_ongoing(void)
{
	char st[32];
	int64_t pid;
	int16_t ep, ep2;
	int32_t np;
	int fd;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(init_pid(fd, 4, "r-1", 3000, -1, -1, &pid, &ep), 0);
	CU_ASSERT_EQUAL(add_parts(fd, 3, "r-1", pid, ep, "tx", 2), KERR_NONE);
	CU_ASSERT_EQUAL(produce(fd, "tx", 1, pid, ep, 0, 2, 1, 0, NULL), 0);
	kcall_release();
	close(fd);
	flumed_kill(&d);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL(describe(fd, "r-1", st, &ep2, &np), KERR_NONE);
	/* Ongoing, or already aborted if the restart took its timeout. */
	CU_ASSERT(strcmp(st, "Ongoing") == 0 ||
	    strcmp(st, "CompleteAbort") == 0 ||
	    strcmp(st, "PrepareAbort") == 0);
	if (strcmp(st, "Ongoing") == 0) {
		CU_ASSERT_EQUAL(np, 2);
		CU_ASSERT_EQUAL(ep2, ep);
	}
	CU_ASSERT(wait_state(fd, "r-1", "CompleteAbort", 10000));
	WAIT_UNTIL(markers("tx", 0, pid, CTRL_ABORT) >= 1 &&
	    markers("tx", 1, pid, CTRL_ABORT) >= 1, 5000);
	CU_ASSERT(markers("tx", 0, pid, CTRL_ABORT) >= 1);
	CU_ASSERT(markers("tx", 1, pid, CTRL_ABORT) >= 1);
	CU_ASSERT_EQUAL(markers("tx", 1, pid, CTRL_COMMIT), 0);
	kcall_release();
	close(fd);
}

/*
 * The crash rule: EndTxn answered, then kill -9 (of the whole broker,
 * or of the writer) before the markers are all out; after the restart
 * every one of the NPARTS partitions has its COMMIT marker, none an
 * ABORT.  Five rounds each.
 */
static void
crash_round(int whole, int round)
{
	char tid[32];
	int64_t pid = -1;
	int16_t ep = -1;
	int32_t p;
	int fd;
	pid_t w;

	snprintf(tid, sizeof(tid), "k-%d-%d", whole, round);
	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT_EQUAL_FATAL(init_pid_retry(fd, tid, 30000, &pid, &ep), 0);
	CU_ASSERT_EQUAL_FATAL(add_parts(fd, 3, tid, pid, ep, "many", NPARTS),
	    KERR_NONE);
	for (p = 0; p < NPARTS; p++)
		CU_ASSERT_EQUAL(produce(fd, "many", p, pid, ep, 0, 3, 1, 0,
		    NULL), 0);
	/* Looked up first: the kill follows the answer at once. */
	w = whole ? d.pid : flumed_child_pid(&d, "writer", -1);
	CU_ASSERT_FATAL(w > 0);
	CU_ASSERT_EQUAL_FATAL(end_txn(fd, 3, tid, pid, ep, 1), KERR_NONE);
	if (whole) {
		flumed_kill(&d);
		CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	} else
		kill(w, SIGKILL);
	kcall_release();
	close(fd);
	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	CU_ASSERT(wait_state(fd, tid, "CompleteCommit", 15000));
	for (p = 0; p < NPARTS; p++) {
		WAIT_UNTIL(markers("many", p, pid, CTRL_COMMIT) >= 1, 5000);
		CU_ASSERT(markers("many", p, pid, CTRL_COMMIT) >= 1);
		CU_ASSERT_EQUAL(markers("many", p, pid, CTRL_ABORT), 0);
	}
	kcall_release();
	close(fd);
}

static void
test_kill_broker_mid_completion(void)
{
	int fd, p;

	CU_ASSERT_FATAL((fd = kconnect()) >= 0);
	for (p = 0; p < NPARTS; p++)
		CU_ASSERT_EQUAL(produce(fd, "many", p, -1, 0, 0, 1, 0, 0,
		    NULL), 0);
	kcall_release();
	close(fd);
	for (p = 0; p < 5; p++)
		crash_round(1, p);
}

/*
 * kill -9 of every worker right after an EndTxn (commit) is sent, before
 * its answer: the client retries on a new connection until it is
 * answered; whether the killed worker had moved the transaction on or
 * not, it ends committed on every partition, never aborted anywhere.
 */
static void
test_kill_workers_mid_end(void)
{
	struct km_endtxn_req q;
	int64_t pid = -1;
	int16_t ep = -1, e = -1;
	int32_t p;
	pid_t w0, w1;
	int fd, r;
	long long end;

	for (r = 0; r < 3; r++) {
		char tid[32];

		snprintf(tid, sizeof(tid), "kw-%d", r);
		CU_ASSERT_FATAL((fd = kconnect()) >= 0);
		CU_ASSERT_EQUAL_FATAL(init_pid_retry(fd, tid, 30000, &pid, &ep),
		    0);
		CU_ASSERT_EQUAL_FATAL(add_parts(fd, 3, tid, pid, ep, "many",
		    NPARTS), KERR_NONE);
		for (p = 0; p < NPARTS; p++)
			CU_ASSERT_EQUAL(produce(fd, "many", p, pid, ep, 0, 2, 1,
			    0, NULL), 0);
		kcall_release();
		w0 = flumed_child_pid(&d, "worker", 0);
		w1 = flumed_child_pid(&d, "worker", 1);
		CU_ASSERT_FATAL(w0 > 0 && w1 > 0);
		kdesc_defaults(kmsg_end_txn.km_req, &q);
		q.transactional_id = kstr_c(tid);
		q.producer_id = pid;
		q.producer_epoch = ep;
		q.committed = 1;
		CU_ASSERT_EQUAL_FATAL(support_ksend(fd, &kmsg_end_txn, 3,
		    corr++, &q), 0);
		kill(w0, SIGKILL);
		kill(w1, SIGKILL);
		close(fd);
		/* The client's retry: until answered (workers respawn). */
		end = support_now_ms() + 15000;
		do {
			if ((fd = kconnect()) >= 0) {
				e = end_txn(fd, 3, tid, pid, ep, 1);
				kcall_release();
				close(fd);
			}
			if (e != KERR_NONE)
				usleep(50 * 1000);	/* the retry backoff */
		} while (e != KERR_NONE && support_now_ms() < end);
		CU_ASSERT_EQUAL_FATAL(e, KERR_NONE);
		CU_ASSERT_FATAL((fd = kconnect()) >= 0);
		CU_ASSERT(wait_state(fd, tid, "CompleteCommit", 10000));
		for (p = 0; p < NPARTS; p++) {
			WAIT_UNTIL(markers("many", p, pid, CTRL_COMMIT) >= 1,
			    5000);
			CU_ASSERT(markers("many", p, pid, CTRL_COMMIT) >= 1);
			CU_ASSERT_EQUAL(markers("many", p, pid, CTRL_ABORT), 0);
		}
		kcall_release();
		close(fd);
	}
}

static void
test_kill_writer_mid_completion(void)
{
	int r;

	for (r = 0; r < 5; r++)
		crash_round(0, r);
}

TEST_SUITE("kafka_txn", setup, teardown,
    { "FindCoordinator key type 1, v1 and batched v4",
      test_find_coordinator },
    { "InitProducerId with a transactional id", test_init_producer_id },
    { "commit: markers after the records", test_commit },
    { "abort, fencing and what produce refuses", test_abort_and_checks },
    { "TxnOffsetCommit and require_stable", test_txn_offsets },
    { "ListTransactions filters", test_list_transactions },
    { "flume-admin transactions", test_admin_transactions },
    { "timeout: aborted with an epoch bump", test_timeout },
    { "restart: Ongoing replayed, aborted at its timeout",
      test_restart_ongoing },
    { "kill -9 of the broker after EndTxn: committed everywhere",
      test_kill_broker_mid_completion },
    { "kill -9 of the writer after EndTxn: committed everywhere",
      test_kill_writer_mid_completion },
    { "kill -9 of the workers under EndTxn: committed everywhere",
      test_kill_workers_mid_end });
