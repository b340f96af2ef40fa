/*
 * The Kafka data path: Produce v0-7, Fetch v4-10, ListOffsets v1-2 and
 * InitProducerId v0-1, mapped onto the native operations of handlers.c.
 *
 * A Kafka request is nested (topics, then partitions); the native one is
 * a flat list of (topic, partition) parts in the same order, so Kafka
 * part n (counting over all topics) is native part n, except for Produce
 * parts refused here first (k->pre[n] != 0), which the native request
 * leaves out.  Names and records point into the payload; when conn.c
 * moves the payload, decode runs again and rebuilds the same mapping.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kfetch.h"
#include "proto/kafka/kproduce.h"
#include "shm/producer.h"
#include "shm/stats.h"
#include "shm/topics.h"
#include "worker/conn.h"
#include "worker/handlers.h"
#include "worker/kafka/kafka.h"
#include "worker/lograte.h"
#include "worker/native/native.h"

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
 * (CRC, counts, size, the sequence check) is the native produce's.  A
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
	struct produce_req *n = &k->native.produce;
	struct produce_part *pp;
	int32_t i, j, total, m = 0;

	if (kafka_decode_body(c, r) == -1)
		return -1;
	NPARTS(q, total);
	memset(n, 0, sizeof(*n));
	n->acks = (int8_t)q->acks;
	n->timeout_ms = q->timeout_ms;
	if (total == 0)
		return 0;
	k->pre = conn_alloc(c, (size_t)total * sizeof(*k->pre));
	n->parts = conn_alloc(c, (size_t)total * sizeof(*n->parts));
	if (k->pre == NULL || n->parts == NULL)
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
			pp = &n->parts[m++];
			pp->topic = q->topics[i].name.p;
			pp->topic_len = (size_t)q->topics[i].name.len;
			pp->partition = q->topics[i].parts[j].partition;
			pp->records = (const uint8_t *)
			    q->topics[i].parts[j].records.p;
			pp->records_len = q->topics[i].parts[j].records.len;
		}
	}
	n->count = m;
	return 0;
}

void
kafka_produce_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (k->native.produce.count == 0) {
		/* Nothing for the log: every part was refused here. */
		k->no_native = 1;
		r->noresp = k->k.produce.acks == 0;
		r->state = REQ_DONE;
		return;
	}
	r->api = API_PRODUCE;
	native_exec_decoded(w, c, r);
}

void
kafka_produce_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kproduce_req *q = &k->k.produce;
	struct kproduce_resp s;
	struct kproduce_topic_resp *t;
	struct kproduce_part_resp *pr;
	struct produce_result res;
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
			if (r->error != ERR_NONE ||
			    handler_produce_result(r, m++, &res) == -1) {
				pr->error = kafka_error(r->error != ERR_NONE ?
				    r->error : ERR_UNKNOWN);
				continue;
			}
			/* Counted by native code, as the native answers are. */
			stats_error_count(w->me, res.error);
			pr->error = kafka_error(res.error);
			if (res.error == ERR_NONE) {
				pr->base_offset = res.base_offset;
				pr->log_start_offset = res.log_start;
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
	int64_t id;

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
	if ((id = producer_id_new(w->shm)) < 0) {
		s->error = KERR_UNKNOWN_SERVER_ERROR;
		return;
	}
	s->producer_id = id;
	s->producer_epoch = 0;
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
	struct fetch_req *n = &k->native.fetch;
	struct fetch_part *fp;
	int32_t i, j, total;

	if (kafka_decode_body(c, r) == -1)
		return -1;
	NPARTS(q, total);
	memset(n, 0, sizeof(*n));
	n->max_wait_ms = q->max_wait_ms;
	n->min_bytes = q->min_bytes;
	n->max_bytes = q->max_bytes;
	if (total > 0 && (n->parts = conn_alloc(c, (size_t)total *
	    sizeof(*n->parts))) == NULL)
		return -1;
	total = 0;
	for (i = 0; i < q->ntopics; i++) {
		for (j = 0; j < q->topics[i].npart; j++) {
			fp = &n->parts[total++];
			fp->topic = q->topics[i].name.p;
			fp->topic_len = (size_t)q->topics[i].name.len;
			fp->partition = q->topics[i].parts[j].partition;
			fp->offset = q->topics[i].parts[j].fetch_offset;
			fp->max_bytes = q->topics[i].parts[j].max_bytes;
		}
	}
	n->count = total;
	return 0;
}

void
kafka_fetch_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kfetch_req *q = &k->k.fetch;

	r->api = API_FETCH;
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
		k->no_native = 1;
		r->state = REQ_DONE;
		return;
	}
	native_exec_decoded(w, c, r);
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
	struct handler_fetch_part hp;
	struct kfetch_part_resp pr;
	uint64_t files = 0, size;
	int32_t i, j, n = 0;
	size_t pos;

	pos = kafka_resp_begin(c, r);
	if (k->no_native) {
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
			if (r->error != ERR_NONE ||
			    handler_fetch_take(r, n, &hp) == -1)
				hp.error = r->error != ERR_NONE ? r->error :
				    ERR_UNKNOWN;
			stats_error_count(w->me, hp.error);
			pr.error = kafka_error(hp.error);
			pr.high_watermark = pr.last_stable_offset =
			    hp.error == ERR_NONE ? hp.hwm : -1;
			pr.log_start_offset = hp.error == ERR_NONE ?
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
			atomic_fetch_add_explicit(&hp.p->msgs_out,
			    hp.nrec > 0 ? (uint64_t)hp.nrec : 0,
			    memory_order_relaxed);
			atomic_fetch_add_explicit(&hp.p->bytes_out, hp.len,
			    memory_order_relaxed);
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

int
kafka_list_offsets_decode(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct klist_offsets_req *q = &k->k.list_offsets;
	struct list_offsets_req *n = &k->native.list_offsets;
	struct list_offsets_part *lp;
	int32_t i, j, total;

	if (kafka_decode_body(c, r) == -1)
		return -1;
	NPARTS(q, total);
	memset(n, 0, sizeof(*n));
	if (total > 0 && (n->parts = conn_alloc(c, (size_t)total *
	    sizeof(*n->parts))) == NULL)
		return -1;
	total = 0;
	for (i = 0; i < q->ntopics; i++) {
		for (j = 0; j < q->topics[i].npart; j++) {
			lp = &n->parts[total++];
			lp->topic = q->topics[i].name.p;
			lp->topic_len = (size_t)q->topics[i].name.len;
			lp->partition = q->topics[i].parts[j].partition;
			lp->which = q->topics[i].parts[j].timestamp;
		}
	}
	n->count = total;
	return 0;
}

/*
 * The native LIST_OFFSETS answers it all: -2 earliest, -1 latest, and a
 * timestamp by the time lookup (worker/timelookup.h), whose record
 * timestamp comes back with the offset; Kafka's v1+ answer -1 as the
 * timestamp of earliest and latest.
 */
void
kafka_list_offsets_exec(struct worker *w, struct conn *c, struct req *r)
{
	r->api = API_LIST_OFFSETS;
	native_exec_decoded(w, c, r);
}

void
kafka_list_offsets_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct klist_offsets_req *q = &k->k.list_offsets;
	const struct list_offsets_resp *lr = r->st;
	struct klist_offsets_resp s;
	struct klist_offsets_topic_resp *t;
	struct klist_offsets_part_resp *pr;
	int32_t i, j, n = 0;
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
			pr->timestamp = -1;
			pr->offset = -1;
			if (r->error != ERR_NONE || lr == NULL ||
			    n >= lr->count) {
				pr->error = kafka_error(r->error != ERR_NONE ?
				    r->error : ERR_UNKNOWN);
				continue;
			}
			pr->error = kafka_error(lr->results[n].error);
			pr->offset = lr->results[n].offset;
			pr->timestamp = lr->results[n].timestamp;
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
