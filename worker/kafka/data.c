/*
 * The Kafka data path: Produce v0-7, Fetch v4-10, ListOffsets v1-2 and
 * InitProducerId v0-1, over the operations of worker/op/ (produce.h,
 * fetch.h, offsets.h, producer.h); their errors are Kafka's by
 * kafka_op_error().
 *
 * A Kafka request is nested (topics, then partitions); an operation
 * takes a flat list of (topic, partition) parts in the same order, so
 * Kafka part n (counting over all topics) is the operation's part n,
 * except for Produce parts refused here first (k->pre[n] != 0), which
 * the operation does not see.  Names and records point into the
 * payload; when conn.c moves the payload, decode runs again and
 * rebuilds the same mapping (the operation's state, k->kst, stays).
 */
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kfetch.h"
#include "proto/kafka/kproduce.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/errcode.h"
#include "worker/kafka/kafka.h"
#include "worker/lograte.h"
#include "worker/op/offsets.h"
#include "worker/op/producer.h"

/* Parts over all topics of a nested request. */
#define NPARTS(q, total) do {						\
	int32_t t_;							\
									\
	(total) = 0;							\
	for (t_ = 0; t_ < (q)->ntopics; t_++)				\
		(total) += (q)->topics[t_].npart;			\
} while (0)

/* ---- Produce ---- */

/*
 * What Kafka's produce path refuses before the log is involved: exactly
 * one RecordBatch v2 per partition, written with baseOffset 0.  The rest
 * (CRC, counts, size, the sequence check) is op_produce()'s.  A
 * v0-2 request may carry a v0/v1 message set (its magic byte is where a
 * batch's is), which Flume cannot store: UNSUPPORTED_FOR_MESSAGE_FORMAT,
 * as a Kafka broker pinned to message format v2 answers.
 */
static int16_t
produce_precheck(const struct kproduce_req *q, int16_t version,
    struct kstr rec)
{
	if (q->transactional_id.len >= 0)
		return KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
	if (version < 3 && rec.len > BATCH_OFF_MAGIC &&
	    ((const uint8_t *)rec.p)[BATCH_OFF_MAGIC] != 2)
		return KERR_UNSUPPORTED_FOR_MESSAGE_FORMAT;
	if (rec.len < BATCH_HEADER_SIZE)
		return KERR_CORRUPT_MESSAGE;
	if ((int64_t)be32_get((const uint8_t *)rec.p + BATCH_OFF_LENGTH) +
	    BATCH_LOG_OVERHEAD != rec.len)
		return KERR_INVALID_RECORD;
	if (be64_get((const uint8_t *)rec.p + BATCH_OFF_BASE_OFFSET) != 0)
		return KERR_INVALID_RECORD;
	return KERR_NONE;
}

int
kafka_produce_decode(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kproduce_req *q = &k->k.produce;
	struct op_produce *a = &k->op.produce;
	struct op_produce_part *parts, *pp;
	int32_t i, j, total, m = 0;

	if (kafka_decode_body(c, r) == -1)
		return -1;
	NPARTS(q, total);
	memset(a, 0, sizeof(*a));
	a->acks = q->acks;
	a->timeout_ms = q->timeout_ms;
	if (total == 0)
		return 0;
	k->pre = conn_alloc(c, (size_t)total * sizeof(*k->pre));
	parts = conn_alloc(c, (size_t)total * sizeof(*parts));
	if (k->pre == NULL || parts == NULL)
		return -1;
	total = 0;
	for (i = 0; i < q->ntopics; i++) {
		for (j = 0; j < q->topics[i].npart; j++, total++) {
			k->pre[total] = q->acks != 0 && q->acks != 1 &&
			    q->acks != -1 ? KERR_INVALID_REQUIRED_ACKS :
			    produce_precheck(q, k->h.api_version,
			    q->topics[i].parts[j].records);
			if (k->pre[total] != KERR_NONE)
				continue;
			pp = &parts[m++];
			pp->topic = q->topics[i].name.p;
			pp->topic_len = (size_t)q->topics[i].name.len;
			pp->partition = q->topics[i].parts[j].partition;
			pp->records = (const uint8_t *)
			    q->topics[i].parts[j].records.p;
			pp->records_len = (size_t)q->topics[i].parts[j].records.len;
		}
	}
	a->parts = parts;
	a->count = m;
	return 0;
}

void
kafka_produce_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct op_produce_st *st = k->kst;
	struct op_ctx x;
	enum op_status s;

	if (k->op.produce.count == 0) {
		/* Nothing for the log: every part was refused here. */
		k->no_op = 1;
		r->noresp = k->k.produce.acks == 0;
		r->state = REQ_DONE;
		return;
	}
	conn_op_ctx(c, r, &x);
	if (st == NULL)
		r->noresp = k->op.produce.acks == 0;
	s = op_produce(&x, &k->op.produce, &st, &k->operr);
	k->kst = st;
	api_req_status(r, s, st != NULL ? st->deadline : 0);
}

void
kafka_produce_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct op_produce_st *st = k->kst;
	struct op_ctx x;

	if (r->state != REQ_WAIT || st == NULL)
		return;
	conn_op_ctx(c, r, &x);
	api_req_status(r, op_produce_poll(&x, st), st->deadline);
}

void
kafka_produce_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kproduce_req *q = &k->k.produce;
	const struct op_produce_st *st = k->kst;
	const struct op_produce_result *res;
	struct kproduce_resp s;
	struct kproduce_topic_resp *t;
	struct kproduce_part_resp *pr;
	int32_t i, j, n = 0, m = 0, old = 0;
	size_t pos;

	memset(&s, 0, sizeof(s));
	s.ntopics = q->ntopics;
	if (q->ntopics > 0 && (s.topics = conn_alloc(c, (size_t)q->ntopics *
	    sizeof(*s.topics))) == NULL)
		goto fail;
	for (i = 0; i < q->ntopics; i++) {
		t = &s.topics[i];
		t->name = q->topics[i].name;
		t->npart = q->topics[i].npart;
		t->parts = NULL;
		if (t->npart > 0 && (t->parts = conn_alloc(c, (size_t)t->npart *
		    sizeof(*t->parts))) == NULL)
			goto fail;
		for (j = 0; j < t->npart; j++, n++) {
			pr = &t->parts[j];
			pr->partition = q->topics[i].parts[j].partition;
			pr->base_offset = -1;
			pr->log_append_time = -1;
			pr->log_start_offset = -1;
			if (k->pre[n] != KERR_NONE) {
				pr->error = k->pre[n];
				old += pr->error ==
				    KERR_UNSUPPORTED_FOR_MESSAGE_FORMAT;
				continue;
			}
			if (k->operr != OP_OK || st == NULL || m >= st->count) {
				pr->error = kafka_op_error(k->operr != OP_OK ?
				    k->operr : OP_INTERNAL);
				m++;
				continue;
			}
			res = &st->res[m++];
			/* Counted as the native face counts its answers. */
			errcode_count(w, res->err);
			pr->error = kafka_op_error(res->err);
			if (res->err == OP_OK) {
				pr->base_offset = res->base_offset;
				pr->log_start_offset = res->log_start;
			}
		}
	}
	if (old > 0)
		lograte_info(w, c->peer, LOGRATE_REFUSED, "Kafka Produce v%d "
		    "with %d old-format (magic 0/1) message sets refused",
		    (int)k->h.api_version, (int)old);
	pos = kafka_resp_begin(c, r);
	kproduce_encode_resp(&c->out, k->h.api_version, &s);
	kafka_resp_end(c, pos);
	return;
fail:
	log_warnx("%s: Kafka Produce answer: out of request memory, closing",
	    c->peer);
	c->dead = 1;
}

/* ---- InitProducerId ---- */

/*
 * A new producer id from the same table as the native INIT_PRODUCER, so
 * Kafka's idempotent producers are deduplicated by the same check.
 * Transactions are not supported: a transactional id is refused.
 */
void
kafka_init_pid_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kinit_pid_resp *s;
	struct op_ctx x;
	enum op_err err;

	r->state = REQ_DONE;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(s, 0, sizeof(*s));
	s->producer_id = -1;
	s->producer_epoch = -1;
	k->kst = s;
	if (k->k.init_pid.transactional_id.len >= 0) {
		lograte_info(w, c->peer, LOGRATE_REFUSED, "InitProducerId with "
		    "a transactional id refused (Flume has no transactions)");
		s->error = KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
		return;
	}
	conn_op_ctx(c, r, &x);
	/* v0-1 name no producer: always a new one. */
	if ((err = op_init_producer(&x, -1, -1, &s->producer_id,
	    &s->producer_epoch)) != OP_OK) {
		/* No id left: as Kafka answers a broker-side failure. */
		s->error = KERR_UNKNOWN_SERVER_ERROR;
		s->producer_id = -1;
		s->producer_epoch = -1;
	}
}

void
kafka_init_pid_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	pos = kafka_resp_begin(c, r);
	kinit_pid_encode_resp(&c->out, k->h.api_version, k->kst);
	kafka_resp_end(c, pos);
}

/* ---- Fetch ---- */

int
kafka_fetch_decode(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kfetch_req *q = &k->k.fetch;
	struct op_fetch *a = &k->op.fetch;
	struct op_fetch_part *parts = NULL, *fp;
	int32_t i, j, total;

	if (kafka_decode_body(c, r) == -1)
		return -1;
	NPARTS(q, total);
	memset(a, 0, sizeof(*a));
	a->max_wait_ms = q->max_wait_ms;
	a->min_bytes = q->min_bytes;
	a->max_bytes = q->max_bytes;
	if (total > 0 && (parts = conn_alloc(c, (size_t)total *
	    sizeof(*parts))) == NULL)
		return -1;
	total = 0;
	for (i = 0; i < q->ntopics; i++) {
		for (j = 0; j < q->topics[i].npart; j++) {
			fp = &parts[total++];
			fp->topic = q->topics[i].name.p;
			fp->topic_len = (size_t)q->topics[i].name.len;
			fp->partition = q->topics[i].parts[j].partition;
			fp->offset = q->topics[i].parts[j].fetch_offset;
			fp->max_bytes = q->topics[i].parts[j].max_bytes;
		}
	}
	a->parts = parts;
	a->count = total;
	return 0;
}

void
kafka_fetch_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kfetch_req *q = &k->k.fetch;
	struct op_fetch_st *st = NULL;
	struct op_ctx x;
	enum op_status s;

	/*
	 * Flume makes no fetch sessions, so a request that continues one
	 * (kfetch.h) was never answered by this broker: refused whole, as
	 * Kafka refuses an unknown session, and the client starts over
	 * with a full fetch.
	 */
	if (q->session_id != 0 || q->session_epoch > 0) {
		lograte_info(w, c->peer, LOGRATE_REFUSED, "Kafka Fetch v%d with "
		    "fetch session %d epoch %d refused (Flume keeps no fetch "
		    "sessions)", (int)k->h.api_version, (int)q->session_id,
		    (int)q->session_epoch);
		k->no_op = 1;
		r->state = REQ_DONE;
		return;
	}
	conn_op_ctx(c, r, &x);
	s = op_fetch(&x, &k->op.fetch, &st, &k->operr);
	k->kst = st;
	api_req_status(r, s, st != NULL ? st->deadline : 0);
}

void
kafka_fetch_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct op_fetch_st *st = k->kst;
	struct op_ctx x;

	if (r->state != REQ_WAIT || st == NULL)
		return;
	conn_op_ctx(c, r, &x);
	api_req_status(r, op_fetch_poll(&x, &k->op.fetch, st), st->deadline);
}

void
kafka_fetch_release(struct req *r)
{
	struct kafka_req *k = r->dec;

	op_fetch_release(k->kst);
}

/*
 * The answer, with each partition's batches sent from the segment file
 * (sendfile) right after their length: the frame size is patched at the
 * end, once every file range is known.
 */
void
kafka_fetch_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kfetch_req *q = &k->k.fetch;
	struct op_fetch_result hp;
	struct kfetch_part_resp pr;
	uint64_t files = 0, size;
	int32_t i, j, n = 0;
	size_t pos;

	pos = kafka_resp_begin(c, r);
	if (k->no_op) {
		kfetch_resp_begin(&c->out, k->h.api_version, 0,
		    q->session_id != 0 ? KERR_FETCH_SESSION_ID_NOT_FOUND :
		    KERR_INVALID_FETCH_SESSION_EPOCH, 0);
		kafka_resp_end(c, pos);
		return;
	}
	kfetch_resp_begin(&c->out, k->h.api_version, 0, KERR_NONE, q->ntopics);
	for (i = 0; i < q->ntopics; i++) {
		kfetch_resp_topic(&c->out, q->topics[i].name,
		    q->topics[i].npart);
		for (j = 0; j < q->topics[i].npart; j++, n++) {
			memset(&pr, 0, sizeof(pr));
			memset(&hp, 0, sizeof(hp));
			hp.fd = -1;
			pr.partition = q->topics[i].parts[j].partition;
			if (k->operr != OP_OK || op_fetch_take(k->kst, n,
			    &hp) == -1)
				hp.err = k->operr != OP_OK ? k->operr :
				    OP_INTERNAL;
			errcode_count(w, hp.err);
			pr.error = kafka_op_error(hp.err);
			pr.high_watermark = pr.last_stable_offset =
			    hp.err == OP_OK ? hp.hwm : -1;
			pr.log_start_offset = hp.err == OP_OK ?
			    hp.log_start : -1;
			if (hp.len > INT32_MAX) {
				close(hp.fd);
				hp.fd = -1;
				hp.len = 0;
			}
			kfetch_resp_part(&c->out, k->h.api_version, &pr,
			    (int32_t)hp.len);
			if (hp.fd < 0 || hp.len == 0) {
				if (hp.fd >= 0)
					close(hp.fd);
				continue;
			}
			op_fetch_sent(&hp);
			files += hp.len;
			/* The output queue owns the descriptor from here. */
			if (conn_out_file(c, hp.fd, hp.pos, hp.len) == -1)
				return;
		}
	}
	size = c->out.len - pos - KFRAME_SIZE_LEN + files;
	if (c->out.err || size > INT32_MAX) {
		c->dead = 1;
		return;
	}
	wbuf_put_u32_at(&c->out, pos, (uint32_t)size);
	conn_out_commit(c);
}

/* ---- ListOffsets ---- */

/* One part's answer, found at exec. */
struct koffset {
	enum op_err	 err;
	int64_t		 offset;
	int64_t		 timestamp;
};

/*
 * -2 earliest, -1 latest, and a timestamp by the time lookup
 * (op_list_offset()), whose record timestamp comes back with the
 * offset; Kafka's v1+ answer -1 as the timestamp of earliest and latest.
 */
void
kafka_list_offsets_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct klist_offsets_req *q = &k->k.list_offsets;
	const struct klist_offsets_topic *t;
	struct koffset *o = NULL;
	struct op_ctx x;
	int32_t i, j, total;

	r->state = REQ_DONE;
	NPARTS(q, total);
	if (total > 0 && (o = conn_alloc(c, (size_t)total * sizeof(*o))) ==
	    NULL) {
		k->operr = OP_NO_MEMORY;
		return;
	}
	conn_op_ctx(c, r, &x);
	k->kst = total > 0 ? o : NULL;
	for (i = 0; i < q->ntopics; i++) {
		t = &q->topics[i];
		for (j = 0; j < t->npart; j++, o++)
			o->err = op_list_offset(&x, t->name.p,
			    (size_t)t->name.len, t->parts[j].partition,
			    t->parts[j].timestamp, &o->offset, &o->timestamp);
	}
}

void
kafka_list_offsets_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct klist_offsets_req *q = &k->k.list_offsets;
	const struct koffset *o = k->kst;
	struct klist_offsets_resp s;
	struct klist_offsets_topic_resp *t;
	struct klist_offsets_part_resp *pr;
	int32_t i, j;
	size_t pos;

	memset(&s, 0, sizeof(s));
	s.ntopics = q->ntopics;
	if (q->ntopics > 0 && (s.topics = conn_alloc(c, (size_t)q->ntopics *
	    sizeof(*s.topics))) == NULL)
		goto fail;
	for (i = 0; i < q->ntopics; i++) {
		t = &s.topics[i];
		t->name = q->topics[i].name;
		t->npart = q->topics[i].npart;
		t->parts = NULL;
		if (t->npart > 0 && (t->parts = conn_alloc(c, (size_t)t->npart *
		    sizeof(*t->parts))) == NULL)
			goto fail;
		for (j = 0; j < t->npart; j++) {
			pr = &t->parts[j];
			pr->partition = q->topics[i].parts[j].partition;
			pr->timestamp = -1;
			pr->offset = -1;
			if (k->operr != OP_OK || o == NULL) {
				pr->error = kafka_op_error(k->operr != OP_OK ?
				    k->operr : OP_INTERNAL);
				continue;
			}
			pr->error = kafka_op_error(o->err);
			pr->offset = o->offset;
			pr->timestamp = o->timestamp;
			o++;
		}
	}
	pos = kafka_resp_begin(c, r);
	klist_offsets_encode_resp(&c->out, k->h.api_version, &s);
	kafka_resp_end(c, pos);
	return;
fail:
	log_warnx("%s: Kafka ListOffsets answer: out of request memory, "
	    "closing", c->peer);
	c->dead = 1;
}
