/*
 * The Kafka transaction APIs (issue 29): InitProducerId with a
 * transactional id, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
 * TxnOffsetCommit, DescribeTransactions, ListTransactions.  Each exec
 * fills worker/op/txn.h's arguments and keeps a state (k->kst) whose
 * first member is the response; a change waits until the writer logged
 * it durably (op_txn_poll), then the response gets its error codes.
 *
 * Kafka's version rules for errors: PRODUCER_FENCED (90) came with
 * InitProducerId v4 and AddPartitionsToTxn, AddOffsetsToTxn and EndTxn
 * v2; older versions get INVALID_PRODUCER_EPOCH (47), as Kafka's
 * KafkaApis converts.  TxnOffsetCommit never answers PRODUCER_FENCED.
 */
#include <string.h>

#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/kafka/kmsg_txn.h"
#include "shm/txn.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/txn.h"
#include "worker/lograte.h"
#include "common/config.h"
#include "worker/op/txn.h"
#include "worker/worker.h"

/* One transaction of a request (AddPartitionsToTxn v4+ has several). */
struct ktxn_job {
	struct op_txn_who	 who;
	struct op_txn_wait	 wait;
	int			 waiting;
	struct op_txn_part	*parts;		/* AddPartitionsToTxn */
	int32_t			 nparts;
	struct op_txn_off	*offs;		/* TxnOffsetCommit */
	int32_t			 noffs;
};

struct ktxn_st {
	void			*resp;		/* the response, filled at the end */
	struct op_txn_init	 init;		/* InitProducerId */
	struct ktxn_job		*jobs;
	int32_t			 njobs;
};

/* Kafka's code for e in this API and version. */
static int16_t
txn_kerr(const struct kafka_req *k, enum op_err e)
{
	int16_t v = k->h.api_version, key = k->h.api_key;

	if (e == OP_TXN_FENCED &&
	    ((key == KAPI_INIT_PRODUCER_ID && v < 4) ||
	    (key != KAPI_INIT_PRODUCER_ID && v < 2) ||
	    key == KAPI_TXN_OFFSET_COMMIT))
		return KERR_INVALID_PRODUCER_EPOCH;
	/* A full table: a broker-side failure the producer may retry. */
	if (e == OP_NO_ROOM)
		return KERR_COORDINATOR_NOT_AVAILABLE;
	return kafka_op_error(e);
}

static struct ktxn_st *
st_new(struct conn *c, struct req *r, const struct kmsg *m, size_t rsize)
{
	struct kafka_req *k = r->dec;
	struct ktxn_st *st;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return NULL;
	}
	memset(st, 0, sizeof(*st));
	st->resp = conn_alloc(c, rsize);
	if (st->resp == NULL) {
		c->dead = 1;
		return NULL;
	}
	kdesc_defaults(m->km_resp, st->resp);
	k->kst = st;
	return st;
}

/* The jobs array, n entries zeroed. */
static int
st_jobs(struct conn *c, struct ktxn_st *st, int32_t n)
{
	if (n <= 0)
		return 0;
	if ((st->jobs = conn_alloc(c, (size_t)n * sizeof(*st->jobs))) == NULL) {
		c->dead = 1;
		return -1;
	}
	memset(st->jobs, 0, (size_t)n * sizeof(*st->jobs));
	st->njobs = n;
	return 0;
}

static void
who_of(struct op_txn_who *who, struct kstr id, int64_t pid, int16_t epoch)
{
	who->id = id.p;
	who->id_len = id.len > 0 ? (size_t)id.len : 0;
	who->pid = pid;
	who->epoch = epoch;
}

/* The permission every call naming a transaction needs: produce. */
static enum op_err
txn_gate(struct conn *c, struct req *r)
{
	return auth_gate(c, AUTH_PRODUCE, r->name);
}

/* ---- InitProducerId ---- */

static void
init_fill(struct kafka_req *k, struct ktxn_st *st)
{
	struct km_init_pid_resp *s = st->resp;

	s->error_code = txn_kerr(k, st->init.wait.err);
	s->producer_id = s->error_code == KERR_NONE ? st->init.pid : -1;
	s->producer_epoch = s->error_code == KERR_NONE ? st->init.epoch : -1;
}

void
kafka_txn_init_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_init_pid_req *q = k->body;
	struct ktxn_st *st;
	struct op_ctx x;

	if ((st = st_new(c, r, &kmsg_init_producer_id,
	    sizeof(struct km_init_pid_resp))) == NULL)
		return;
	/* data.c's emit sends k->kst: the response; the state is in aux. */
	k->kst = st->resp;
	k->aux = st;
	if (q->transactional_id.len == 0 ||
	    (q->producer_id == -1) != (q->producer_epoch == -1)) {
		st->init.wait.err = OP_BAD_REQUEST;
		init_fill(k, st);
		return;
	}
	st->init.id = q->transactional_id.p;
	st->init.id_len = (size_t)q->transactional_id.len;
	st->init.timeout_ms = q->transaction_timeout_ms;
	st->init.exp_pid = q->producer_id;
	st->init.exp_epoch = q->producer_epoch;
	conn_op_ctx(c, r, &x);
	if (op_txn_init(&x, &st->init) == OP_WAIT) {
		r->state = REQ_WAIT;
		r->deadline = st->init.wait.deadline;
		return;
	}
	if (st->init.wait.err == OP_TXN_BAD_TIMEOUT)
		lograte_info(w, c->peer, LOGRATE_REFUSED, "InitProducerId: "
		    "transaction timeout %d ms refused (at most "
		    "transaction_max_timeout_ms, %lld)", q->transaction_timeout_ms,
		    (long long)w->conf->transaction_max_timeout_ms);
	init_fill(k, st);
}

void
kafka_txn_init_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct ktxn_st *st = k->aux;
	struct op_ctx x;

	if (st == NULL) {
		r->state = REQ_DONE;
		return;
	}
	conn_op_ctx(c, r, &x);
	if (op_txn_poll(&x, &st->init.wait) == OP_WAIT) {
		r->state = REQ_WAIT;
		return;
	}
	r->state = REQ_DONE;
	init_fill(k, st);
}

/* ---- the waiting ones ---- */

/* Fill the response from the jobs' outcomes (all done). */
static int
txn_fill(struct conn *c, struct kafka_req *k, struct ktxn_st *st);

void
kafka_txn_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct ktxn_st *st = k->kst;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->njobs; i++) {
		if (!st->jobs[i].waiting)
			continue;
		if (op_txn_poll(&x, &st->jobs[i].wait) == OP_WAIT)
			waiting = 1;
		else
			st->jobs[i].waiting = 0;
	}
	if (waiting) {
		r->state = REQ_WAIT;
		return;
	}
	r->state = REQ_DONE;
	if (txn_fill(c, k, st) == -1)
		c->dead = 1;
}

/* After exec started every job: wait, or fill now. */
static void
txn_started(struct conn *c, struct req *r, struct ktxn_st *st)
{
	struct kafka_req *k = r->dec;
	int32_t i;

	r->state = REQ_DONE;
	for (i = 0; i < st->njobs; i++)
		if (st->jobs[i].waiting) {
			r->state = REQ_WAIT;
			if (r->deadline == 0 ||
			    st->jobs[i].wait.deadline < r->deadline)
				r->deadline = st->jobs[i].wait.deadline;
		}
	if (r->state == REQ_DONE && txn_fill(c, k, st) == -1)
		c->dead = 1;
}

/* ---- AddPartitionsToTxn ---- */

/* The job's partitions from topics (km_addparts_topic). */
static int
addparts_job(struct conn *c, struct ktxn_job *j, const struct karray *topics)
{
	const struct km_addparts_topic *t = topics->v;
	int32_t i, p, n = 0, nt = topics->n > 0 ? topics->n : 0;

	for (i = 0; i < nt; i++)
		n += t[i].partitions.n > 0 ? t[i].partitions.n : 0;
	if (n > 0 && (j->parts = conn_alloc(c, (size_t)n *
	    sizeof(*j->parts))) == NULL)
		return -1;
	for (i = 0; i < nt; i++)
		for (p = 0; p < t[i].partitions.n; p++) {
			j->parts[j->nparts].topic = t[i].name.p;
			j->parts[j->nparts].topic_len = t[i].name.len > 0 ?
			    (size_t)t[i].name.len : 0;
			j->parts[j->nparts].partition =
			    ((const int32_t *)t[i].partitions.v)[p];
			j->parts[j->nparts].err = OP_OK;
			j->nparts++;
		}
	return 0;
}

/* The per-topic results of a job, in the request's shape. */
static int
addparts_results(struct conn *c, const struct kafka_req *k,
    const struct karray *topics, const struct ktxn_job *j, struct karray *out)
{
	const struct km_addparts_topic *t = topics->v;
	struct km_addparts_tresult *tr;
	struct km_addparts_presult *pr;
	int32_t i, p, at = 0, nt = topics->n > 0 ? topics->n : 0;

	out->n = nt;
	out->v = NULL;
	if (nt == 0)
		return 0;
	if ((tr = conn_alloc(c, (size_t)nt * sizeof(*tr))) == NULL)
		return -1;
	for (i = 0; i < nt; i++) {
		int32_t np = t[i].partitions.n > 0 ? t[i].partitions.n : 0;

		tr[i].name = t[i].name;
		tr[i].results_by_partition.n = np;
		tr[i].results_by_partition.v = NULL;
		if (np == 0)
			continue;
		if ((pr = conn_alloc(c, (size_t)np * sizeof(*pr))) == NULL)
			return -1;
		for (p = 0; p < np; p++, at++) {
			pr[p].partition_index =
			    ((const int32_t *)t[i].partitions.v)[p];
			pr[p].partition_error_code = at < j->nparts ?
			    txn_kerr(k, j->parts[at].err) : KERR_NONE;
		}
		tr[i].results_by_partition.v = pr;
	}
	out->v = tr;
	return 0;
}

void
kafka_addparts_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_addparts_req *q = k->body;
	const struct km_addparts_txn *tx = q->transactions.v;
	struct ktxn_st *st;
	struct ktxn_job *j;
	struct op_ctx x;
	enum op_err gate;
	int32_t i, n;

	if ((st = st_new(c, r, &kmsg_add_partitions_to_txn,
	    sizeof(struct km_addparts_resp))) == NULL)
		return;
	n = k->h.api_version >= 4 ? (q->transactions.n > 0 ?
	    q->transactions.n : 0) : 1;
	if (st_jobs(c, st, n) == -1)
		return;
	conn_op_ctx(c, r, &x);
	gate = txn_gate(c, r);
	for (i = 0; i < n; i++) {
		const struct karray *topics = k->h.api_version >= 4 ?
		    &tx[i].topics : &q->v3_topics;

		j = &st->jobs[i];
		if (k->h.api_version >= 4)
			who_of(&j->who, tx[i].transactional_id,
			    tx[i].producer_id, tx[i].producer_epoch);
		else
			who_of(&j->who, q->v3_transactional_id,
			    q->v3_producer_id, q->v3_producer_epoch);
		if (addparts_job(c, j, topics) == -1) {
			c->dead = 1;
			return;
		}
		if (gate != OP_OK) {
			int32_t p;

			for (p = 0; p < j->nparts; p++)
				j->parts[p].err = OP_DENIED_TOPIC;
			continue;
		}
		if (op_txn_add(&x, &j->who, j->parts, j->nparts,
		    k->h.api_version >= 4 && tx[i].verify_only,
		    &j->wait) == OP_WAIT)
			j->waiting = 1;
	}
	txn_started(c, r, st);
}

static int
addparts_fill(struct conn *c, struct kafka_req *k, struct ktxn_st *st)
{
	const struct km_addparts_req *q = k->body;
	const struct km_addparts_txn *tx = q->transactions.v;
	struct km_addparts_resp *s = st->resp;
	struct km_addparts_txnresult *res;
	int32_t i, p;

	/* A wait's failure (a timeout, a fence) goes to every partition. */
	for (i = 0; i < st->njobs; i++)
		if (st->jobs[i].wait.err != OP_OK)
			for (p = 0; p < st->jobs[i].nparts; p++)
				if (st->jobs[i].parts[p].err == OP_OK)
					st->jobs[i].parts[p].err =
					    st->jobs[i].wait.err;
	if (k->h.api_version < 4)
		return st->njobs < 1 ? 0 : addparts_results(c, k,
		    &q->v3_topics, &st->jobs[0], &s->results_by_topic_v3);
	if (st->njobs == 0)
		return 0;
	if ((res = conn_alloc(c, (size_t)st->njobs * sizeof(*res))) == NULL)
		return -1;
	for (i = 0; i < st->njobs; i++) {
		res[i].transactional_id = tx[i].transactional_id;
		if (addparts_results(c, k, &tx[i].topics, &st->jobs[i],
		    &res[i].topic_results) == -1)
			return -1;
	}
	s->results_by_transaction.n = st->njobs;
	s->results_by_transaction.v = res;
	return 0;
}

/* ---- AddOffsetsToTxn, EndTxn ---- */

void
kafka_addoffs_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_addoffs_req *q = k->body;
	struct ktxn_st *st;
	struct op_ctx x;

	if ((st = st_new(c, r, &kmsg_add_offsets_to_txn,
	    sizeof(struct km_addoffs_resp))) == NULL || st_jobs(c, st, 1) == -1)
		return;
	who_of(&st->jobs[0].who, q->transactional_id, q->producer_id,
	    q->producer_epoch);
	conn_op_ctx(c, r, &x);
	if ((st->jobs[0].wait.err = txn_gate(c, r)) != OP_OK)
		st->jobs[0].wait.err = OP_DENIED_GROUP;
	else if (op_txn_add_group(&x, &st->jobs[0].who, q->group_id.p,
	    q->group_id.len > 0 ? (size_t)q->group_id.len : 0,
	    &st->jobs[0].wait) == OP_WAIT)
		st->jobs[0].waiting = 1;
	txn_started(c, r, st);
}

void
kafka_endtxn_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_endtxn_req *q = k->body;
	struct ktxn_st *st;
	struct op_ctx x;

	if ((st = st_new(c, r, &kmsg_end_txn,
	    sizeof(struct km_endtxn_resp))) == NULL || st_jobs(c, st, 1) == -1)
		return;
	who_of(&st->jobs[0].who, q->transactional_id, q->producer_id,
	    q->producer_epoch);
	conn_op_ctx(c, r, &x);
	if ((st->jobs[0].wait.err = txn_gate(c, r)) != OP_OK)
		st->jobs[0].wait.err = OP_DENIED_CLUSTER;
	else if (op_txn_end(&x, &st->jobs[0].who, q->committed != 0,
	    &st->jobs[0].wait) == OP_WAIT)
		st->jobs[0].waiting = 1;
	txn_started(c, r, st);
}

/* ---- TxnOffsetCommit ---- */

void
kafka_txnoc_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_txnoc_req *q = k->body;
	const struct km_txnoc_topic *t = q->topics.v;
	struct ktxn_st *st;
	struct ktxn_job *j;
	struct op_ctx x;
	int32_t i, p, n = 0, nt = q->topics.n > 0 ? q->topics.n : 0;

	if ((st = st_new(c, r, &kmsg_txn_offset_commit,
	    sizeof(struct km_txnoc_resp))) == NULL || st_jobs(c, st, 1) == -1)
		return;
	j = &st->jobs[0];
	who_of(&j->who, q->transactional_id, q->producer_id,
	    q->producer_epoch);
	for (i = 0; i < nt; i++)
		n += t[i].partitions.n > 0 ? t[i].partitions.n : 0;
	if (n > 0 && (j->offs = conn_alloc(c, (size_t)n *
	    sizeof(*j->offs))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < nt; i++)
		for (p = 0; p < t[i].partitions.n; p++) {
			const struct km_txnoc_part *tp =
			    &((const struct km_txnoc_part *)t[i].partitions.v)[p];

			j->offs[j->noffs].topic = t[i].name.p;
			j->offs[j->noffs].topic_len = t[i].name.len > 0 ?
			    (size_t)t[i].name.len : 0;
			j->offs[j->noffs].partition = tp->partition_index;
			j->offs[j->noffs].offset = tp->committed_offset;
			j->offs[j->noffs].err = OP_OK;
			j->noffs++;
		}
	conn_op_ctx(c, r, &x);
	if (auth_gate(c, AUTH_CONSUME, r->name) != OP_OK ||
	    txn_gate(c, r) != OP_OK) {
		for (i = 0; i < j->noffs; i++)
			j->offs[i].err = OP_DENIED_GROUP;
	} else {
		struct op_txn_member m = { q->member_id.p, q->member_id.len > 0 ?
		    (size_t)q->member_id.len : 0, q->generation_id };

		if (op_txn_offsets(&x, &j->who, q->group_id.p,
		    q->group_id.len > 0 ? (size_t)q->group_id.len : 0, &m,
		    j->offs, j->noffs, &j->wait) == OP_WAIT)
			j->waiting = 1;
	}
	txn_started(c, r, st);
}

static int
txnoc_fill(struct conn *c, struct kafka_req *k, struct ktxn_st *st)
{
	const struct km_txnoc_req *q = k->body;
	const struct km_txnoc_topic *t = q->topics.v;
	struct km_txnoc_resp *s = st->resp;
	struct km_txnoc_tresp *tr;
	struct km_txnoc_presp *pr;
	struct ktxn_job *j = &st->jobs[0];
	int32_t i, p, at = 0, nt = q->topics.n > 0 ? q->topics.n : 0;
	enum op_err e;

	s->topics.n = nt;
	if (nt == 0)
		return 0;
	if ((tr = conn_alloc(c, (size_t)nt * sizeof(*tr))) == NULL)
		return -1;
	for (i = 0; i < nt; i++) {
		int32_t np = t[i].partitions.n > 0 ? t[i].partitions.n : 0;

		tr[i].name = t[i].name;
		tr[i].partitions.n = np;
		tr[i].partitions.v = NULL;
		if (np == 0)
			continue;
		if ((pr = conn_alloc(c, (size_t)np * sizeof(*pr))) == NULL)
			return -1;
		for (p = 0; p < np; p++, at++) {
			pr[p].partition_index = ((const struct km_txnoc_part *)
			    t[i].partitions.v)[p].partition_index;
			e = j->offs[at].err != OP_OK ? j->offs[at].err :
			    j->wait.err;
			pr[p].error_code = txn_kerr(k, e);
		}
		tr[i].partitions.v = pr;
	}
	s->topics.v = tr;
	return 0;
}

static int
txn_fill(struct conn *c, struct kafka_req *k, struct ktxn_st *st)
{
	switch (k->h.api_key) {
	case KAPI_ADD_PARTITIONS_TO_TXN:
		return addparts_fill(c, k, st);
	case KAPI_ADD_OFFSETS_TO_TXN:
		((struct km_addoffs_resp *)st->resp)->error_code =
		    txn_kerr(k, st->jobs[0].wait.err);
		return 0;
	case KAPI_END_TXN: {
		struct km_endtxn_resp *s = st->resp;

		s->error_code = txn_kerr(k, st->jobs[0].wait.err);
		return 0;
	}
	case KAPI_TXN_OFFSET_COMMIT:
		return txnoc_fill(c, k, st);
	default:
		return 0;
	}
}

/* ---- DescribeTransactions, ListTransactions ---- */

/* The partitions of in grouped by topic, into out (km_desctxn_topic). */
static int
desc_topics(struct conn *c, const struct op_txn_info *in, struct karray *out)
{
	struct km_desctxn_topic *t;
	int32_t *parts;
	uint32_t i, j, n = 0;

	out->n = 0;
	out->v = NULL;
	if (in->nparts == 0)
		return 0;
	if ((t = conn_alloc(c, in->nparts * sizeof(*t))) == NULL ||
	    (parts = conn_alloc(c, in->nparts * sizeof(*parts))) == NULL)
		return -1;
	for (i = 0; i < in->nparts; i++) {
		for (j = 0; j < n; j++)
			if (strcmp(t[j].topic.p, in->parts[i].topic) == 0)
				break;
		if (j == n) {
			t[n].topic = kstr_c(in->parts[i].topic);
			t[n].partitions.n = 0;
			t[n].partitions.v = parts + i;
			n++;
		}
	}
	/* Each topic's partitions contiguous: a second pass places them. */
	{
		int32_t at = 0;

		for (j = 0; j < n; j++) {
			t[j].partitions.v = parts + at;
			for (i = 0; i < in->nparts; i++)
				if (strcmp(t[j].topic.p, in->parts[i].topic) == 0)
					parts[at++] = in->parts[i].partition;
			t[j].partitions.n = (int32_t)(parts + at -
			    (int32_t *)t[j].partitions.v);
		}
	}
	out->n = (int32_t)n;
	out->v = t;
	return 0;
}

void
kafka_desctxn_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_desctxn_req *q = k->body;
	const struct kstr *ids = q->transactional_ids.v;
	struct km_desctxn_resp *s;
	struct km_desctxn_state *o = NULL;
	struct ktxn_st *st;
	struct op_txn_info info;
	struct op_ctx x;
	enum op_err e;
	int32_t i, n = q->transactional_ids.n > 0 ? q->transactional_ids.n : 0;
	int denied;

	if ((st = st_new(c, r, &kmsg_describe_transactions,
	    sizeof(*s))) == NULL)
		return;
	s = st->resp;
	if (n > 0 && (o = conn_alloc(c, (size_t)n * sizeof(*o))) == NULL) {
		c->dead = 1;
		return;
	}
	conn_op_ctx(c, r, &x);
	denied = auth_gate(c, AUTH_PRODUCE, r->name) != OP_OK;
	for (i = 0; i < n; i++) {
		memset(&o[i], 0, sizeof(o[i]));
		o[i].transactional_id = ids[i];
		o[i].transaction_state = kstr_c("");
		o[i].producer_id = -1;
		o[i].producer_epoch = -1;
		o[i].transaction_start_time_ms = -1;
		if (denied) {
			o[i].error_code =
			    KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
			continue;
		}
		e = op_txn_describe(&x, ids[i].p, ids[i].len > 0 ?
		    (size_t)ids[i].len : 0, &info);
		if (e != OP_OK) {
			o[i].error_code = txn_kerr(k, e);
			continue;
		}
		o[i].transaction_state = kstr_c(txn_state_name(info.state));
		o[i].transaction_timeout_ms = info.timeout_ms;
		o[i].transaction_start_time_ms = info.start_ms;
		o[i].producer_id = info.pid;
		o[i].producer_epoch = info.epoch;
		if (desc_topics(c, &info, &o[i].topics) == -1) {
			c->dead = 1;
			return;
		}
	}
	s->transaction_states.n = n;
	s->transaction_states.v = o;
}

void
kafka_listtxn_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_listtxn_req *q = k->body;
	const struct kstr *sf = q->state_filters.v;
	struct km_listtxn_resp *s;
	struct km_listtxn_state *o = NULL;
	struct kstr *unknown = NULL;
	struct op_txn_info *info;
	struct ktxn_st *st;
	struct op_ctx x;
	uint32_t states = 0;
	int32_t i, n, nu = 0, ns = q->state_filters.n > 0 ? q->state_filters.n : 0;
	int v;
	enum op_err e;

	if ((st = st_new(c, r, &kmsg_list_transactions, sizeof(*s))) == NULL)
		return;
	s = st->resp;
	if (ns > 0 && (unknown = conn_alloc(c, (size_t)ns *
	    sizeof(*unknown))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < ns; i++) {
		if ((v = txn_state_parse(sf[i].p, sf[i].len > 0 ?
		    (size_t)sf[i].len : 0)) < 0)
			unknown[nu++] = sf[i];
		else
			states |= 1u << v;
	}
	s->unknown_state_filters.n = nu;
	s->unknown_state_filters.v = unknown;
	/* Only unknown states asked: nothing can match (as Kafka). */
	if (ns > 0 && states == 0)
		return;
	conn_op_ctx(c, r, &x);
	if (auth_gate(c, AUTH_PRODUCE, r->name) != OP_OK)
		return;		/* Kafka lists only what the user may describe */
	e = op_txn_list(&x, states, q->producer_id_filters.v,
	    q->producer_id_filters.n > 0 ? q->producer_id_filters.n : 0,
	    k->h.api_version >= 1 ? q->duration_filter : -1, &info, &n);
	if (e != OP_OK) {
		s->error_code = txn_kerr(k, e);
		return;
	}
	if (n > 0 && (o = conn_alloc(c, (size_t)n * sizeof(*o))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		char *id = conn_alloc(c, info[i].id_len + 1);

		if (id == NULL) {
			c->dead = 1;
			return;
		}
		memcpy(id, info[i].id, info[i].id_len);
		id[info[i].id_len] = '\0';
		o[i].transactional_id = kstr_c(id);
		o[i].producer_id = info[i].pid;
		o[i].transaction_state = kstr_c(txn_state_name(info[i].state));
	}
	s->transaction_states.n = n;
	s->transaction_states.v = o;
}

void
kafka_txn_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct ktxn_st *st = k->kst;

	(void)w;
	if (st == NULL || st->resp == NULL) {
		c->dead = 1;
		return;
	}
	kafka_emit_desc(c, r, st->resp);
}
