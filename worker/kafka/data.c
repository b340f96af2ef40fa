/*
 * The Kafka data path through the declarative codec (kdesc.h): Produce
 * v0-12, Fetch v0-17, ListOffsets v0-10 and InitProducerId v0-5, over
 * the operations of worker/op/ (produce.h, fetch.h, offsets.h,
 * producer.h); their errors are Kafka's by kafka_op_error().
 *
 * A Kafka request is nested (topics, then partitions); an operation
 * takes a flat list of (topic, partition) parts in the same order, so
 * Kafka part n (counting over all topics) is the operation's part n,
 * except for parts refused here first (k->pre[n] != 0), which the
 * operation does not see.  Names and records point into the payload;
 * when conn.c moves the payload, decode runs again and rebuilds the same
 * mapping (the operation's state, k->kst, stays).  What decode worked
 * out once and must not redo (a converted message set, a topic found by
 * its id) lives in request memory (k->aux) and is reused then.
 *
 * Old message formats (proto/kafka/kmsgset.h): a Produce v0-2 may carry
 * a magic 0 or 1 message set, stored as one RecordBatch v2 with the
 * producer's codec; a Fetch v0-3 gets the stored batches read into
 * memory and converted to magic 0 (v0-1) or 1 (v2-3), uncompressed.
 * Fetch v4+ stays zero copy: its records go from
 * the segment file with sendfile, through the codec's records hook.
 * Conversions are counted per worker (msgset_conversions, msgset_bytes).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/config.h"
#include "common/log.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_fetch.h"
#include "proto/kafka/kmsg_listoff.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/kafka/kmsgset.h"
#include "proto/names.h"
#include "shm/shm.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/errcode.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/txn.h"
#include "worker/lograte.h"
#include "worker/op/inflate.h"
#include "worker/op/offsets.h"
#include "worker/op/producer.h"
#include "worker/op/topics.h"
#include "worker/worker.h"

#define KAFKA_LIST_MAX_TS	(-3)	/* ListOffsets v7+ MAX_TIMESTAMP */
#define KAFKA_LIST_EARLIEST_LOCAL (-4)	/* v8+: no tiers here, earliest */
#define KAFKA_LIST_LATEST_TIERED (-5)	/* v9+: no tiers here, latest */

/* Elements of a karray of T. */
#define KA(a, T)	((T *)(a).v)

/* ---- message set conversion ---- */

/*
 * The worker's converter (workers are single-threaded processes, as for
 * inflate_scratch()), made again when a reload changes its limits: the
 * inflate limit the produce path uses, and as many messages as that
 * inflated size can hold.
 */
static struct kmsgset *
conv(struct worker *w)
{
	static struct kmsgset *k;
	static struct kmsgset_limits cur;
	struct kmsgset_limits lim;
	size_t n;

	lim.inflate_limit = inflate_limit(w->conf);
	n = (lim.inflate_limit + w->conf->max_message_bytes) /
	    (KMSGSET_LOG_OVERHEAD + KMSGSET_V0_OVERHEAD) + 1;
	lim.max_records = n > INT32_MAX ? INT32_MAX : (int32_t)n;
	if (k != NULL && (cur.inflate_limit != lim.inflate_limit ||
	    cur.max_records != lim.max_records)) {
		kmsgset_free(k);
		k = NULL;
	}
	if (k == NULL && (k = kmsgset_new(&lim)) != NULL)
		cur = lim;
	return k;
}

static void
conv_count(struct worker *w, size_t bytes)
{
	atomic_fetch_add_explicit(&w->me->msgset_conversions, 1,
	    memory_order_relaxed);
	atomic_fetch_add_explicit(&w->me->msgset_bytes, bytes,
	    memory_order_relaxed);
}

/* A producer's message set that cannot be converted, as Kafka answers. */
static int16_t
conv_error(int e)
{
	switch (e) {
	case KMSGSET_ECRC:
	case KMSGSET_ESHORT:
	case KMSGSET_ESIZE:
	case KMSGSET_EINFLATE:
	case KMSGSET_EEMPTY:
		return KERR_CORRUPT_MESSAGE;
	case KMSGSET_ECODEC:
		return KERR_UNSUPPORTED_COMPRESSION_TYPE;
	case KMSGSET_ELIMIT:
		return KERR_MESSAGE_TOO_LARGE;
	case KMSGSET_ENOMEM:
		return kafka_op_error(OP_NO_MEMORY);
	default:
		return KERR_INVALID_RECORD;
	}
}

/* ---- Produce ---- */

/*
 * What Kafka's produce path refuses before the log is involved: exactly
 * one RecordBatch v2 per partition, written with baseOffset 0.  The rest
 * (CRC, counts, size, the sequence check, a transactional batch's
 * transaction, worker/op/txn.h) is op_produce()'s.
 */
static int16_t
produce_precheck(const struct km_produce_req *q, struct kstr rec)
{
	(void)q;
	if (rec.len < BATCH_HEADER_SIZE)
		return KERR_CORRUPT_MESSAGE;
	if ((int64_t)be32_get((const uint8_t *)rec.p + BATCH_OFF_LENGTH) +
	    BATCH_LOG_OVERHEAD != rec.len)
		return KERR_INVALID_RECORD;
	if (be64_get((const uint8_t *)rec.p + BATCH_OFF_BASE_OFFSET) != 0)
		return KERR_INVALID_RECORD;
	return KERR_NONE;
}

/*
 * A v0-2 part whose set is magic 0 or 1 (the magic byte sits where a
 * batch's does), converted once into request memory: *rec becomes the
 * batch.  KERR_NONE, or the part's error.
 */
static int16_t
produce_convert(struct conn *c, int16_t version, struct kstr *rec)
{
	const uint8_t *out, *p = (const uint8_t *)rec->p;
	struct kmsgset *k;
	size_t outlen;
	void *copy;
	int e, codec;

	if (version >= 3 || rec->len <= BATCH_OFF_MAGIC ||
	    p[BATCH_OFF_MAGIC] > 1)
		return KERR_NONE;
	if ((k = conv(c->w)) == NULL)
		return kafka_op_error(OP_NO_MEMORY);
	/* Stored with the producer's codec, as Kafka does. */
	codec = kmsgset_codec(p, (size_t)rec->len);
	if ((e = kmsgset_to_batches_codec(k, p, (size_t)rec->len,
	    clock_real_ms(), codec > COMPRESS_LZ4 ? COMPRESS_NONE : codec,
	    &out, &outlen)) != KMSGSET_OK) {
		lograte_info(c->w, c->peer, LOGRATE_REFUSED, "Kafka Produce "
		    "v%d: old-format (magic %d) message set refused: %s",
		    (int)version, (int)p[BATCH_OFF_MAGIC], kmsgset_strerror(e));
		return conv_error(e);
	}
	if (outlen > INT32_MAX || (copy = conn_alloc(c, outlen)) == NULL)
		return kafka_op_error(OP_NO_MEMORY);
	memcpy(copy, out, outlen);
	conv_count(c->w, (size_t)rec->len);
	rec->p = copy;
	rec->len = (int32_t)outlen;
	return KERR_NONE;
}

/* k->aux[n].len of a part stored as sent (not a converted message set). */
#define PRODUCE_AS_SENT		(-2)

/* Part pd's records to store: converted once, or the payload's. */
static struct kstr
produce_records(const struct kstr *conv_rec, const struct km_produce_part *pd)
{
	return conv_rec->len == PRODUCE_AS_SENT ? pd->records : *conv_rec;
}

int
kafka_produce_decode(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_produce_req *q;
	const struct km_produce_topic *t;
	const struct km_produce_part *pd;
	struct op_produce *a = &k->op.produce;
	struct op_produce_part *parts, *pp;
	struct kstr *recs, rec;
	int first = k->pre == NULL;
	int32_t i, j, total = 0, m = 0;

	if (kafka_decode_desc(c, r) == -1)
		return -1;
	q = k->body;
	for (i = 0; i < q->topic_data.n; i++)
		total += KA(q->topic_data, struct km_produce_topic)[i].
		    partition_data.n;
	memset(a, 0, sizeof(*a));
	a->acks = q->acks;
	a->timeout_ms = q->timeout_ms;
	if (total == 0)
		return 0;
	if (first) {
		k->pre = conn_alloc(c, (size_t)total * sizeof(*k->pre));
		k->aux = conn_alloc(c, (size_t)total * sizeof(*recs));
	}
	parts = conn_alloc(c, (size_t)total * sizeof(*parts));
	if (k->pre == NULL || k->aux == NULL || parts == NULL)
		return -1;
	recs = k->aux;
	total = 0;
	for (i = 0; i < q->topic_data.n; i++) {
		t = &KA(q->topic_data, struct km_produce_topic)[i];
		for (j = 0; j < t->partition_data.n; j++, total++) {
			pd = &KA(t->partition_data, struct km_produce_part)[j];
			if (first) {
				recs[total] = pd->records;
				k->pre[total] = q->acks != 0 && q->acks != 1 &&
				    q->acks != -1 ? KERR_INVALID_REQUIRED_ACKS :
				    produce_convert(c, k->h.api_version,
				    &recs[total]);
				if (k->pre[total] == KERR_NONE)
					k->pre[total] = produce_precheck(q,
					    recs[total]);
				/* Not converted: the payload's, as it moves. */
				if (recs[total].p == pd->records.p)
					recs[total].len = PRODUCE_AS_SENT;
			}
			rec = produce_records(&recs[total], pd);
			if (k->pre[total] != KERR_NONE)
				continue;
			pp = &parts[m++];
			pp->topic = t->name.p;
			pp->topic_len = (size_t)t->name.len;
			pp->partition = pd->index;
			pp->records = (const uint8_t *)rec.p;
			pp->records_len = (size_t)rec.len;
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
	const struct km_produce_req *q = k->body;
	struct op_produce_st *st = k->kst;
	struct op_ctx x;
	enum op_status s;

	if (k->op.produce.count == 0) {
		/* Nothing for the log: every part was refused here. */
		k->no_op = 1;
		r->noresp = q->acks == 0;
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

/*
 * The time the log stamped on a stored part (v2+): -1 unless the topic
 * keeps LogAppendTime, then the batch's maxTimestamp, which op_produce()
 * set to the broker's time in place with the LogAppendTime attribute
 * (the topic's setting may change between the two: the batch says).
 */
static int64_t
produce_append_time(const struct config *conf, const struct kstr *name,
    const struct kstr *rec)
{
	const uint8_t *p = (const uint8_t *)rec->p;

	(void)conf;
	(void)name;
	if (rec->len < BATCH_HEADER_SIZE ||
	    !(be16_get(p + BATCH_OFF_ATTRIBUTES) & BATCH_ATTR_LOG_APPEND_TIME))
		return -1;
	return (int64_t)be64_get(p + BATCH_OFF_MAX_TS);
}

void
kafka_produce_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_produce_req *q = k->body;
	const struct km_produce_topic *qt;
	const struct op_produce_st *st = k->kst;
	const struct op_produce_result *res;
	const struct kstr *recs = k->aux;
	struct km_produce_resp s;
	struct km_produce_topic_resp *t;
	struct km_produce_part_resp *pr;
	struct kstr rec;
	int32_t i, j, n = 0, m = 0;

	kdesc_defaults(kmsg_produce.km_resp, &s);
	if (q->topic_data.n > 0 && (s.responses.v = conn_alloc(c,
	    (size_t)q->topic_data.n * sizeof(*t))) == NULL)
		goto fail;
	s.responses.n = q->topic_data.n;
	for (i = 0; i < q->topic_data.n; i++) {
		qt = &KA(q->topic_data, struct km_produce_topic)[i];
		t = &KA(s.responses, struct km_produce_topic_resp)[i];
		t->name = qt->name;
		t->partition_responses.n = qt->partition_data.n;
		t->partition_responses.v = NULL;
		if (qt->partition_data.n > 0 && (t->partition_responses.v =
		    conn_alloc(c, (size_t)qt->partition_data.n *
		    sizeof(*pr))) == NULL)
			goto fail;
		for (j = 0; j < qt->partition_data.n; j++, n++) {
			pr = &KA(t->partition_responses,
			    struct km_produce_part_resp)[j];
			memset(pr, 0, sizeof(*pr));
			pr->index = KA(qt->partition_data,
			    struct km_produce_part)[j].index;
			pr->base_offset = -1;
			pr->log_append_time_ms = -1;
			pr->log_start_offset = -1;
			pr->error_message.len = -1;
			/* Never NOT_LEADER here: no current leader to name. */
			pr->current_leader.leader_id = -1;
			pr->current_leader.leader_epoch = -1;
			if (k->pre[n] != KERR_NONE) {
				pr->error_code = k->pre[n];
				continue;
			}
			if (k->operr != OP_OK || st == NULL || m >= st->count) {
				pr->error_code = kafka_op_error(k->operr !=
				    OP_OK ? k->operr : OP_INTERNAL);
				m++;
				continue;
			}
			res = &st->res[m++];
			/* Counted as the native face counts its answers. */
			errcode_count(w, res->err);
			pr->error_code = kafka_op_error(res->err);
			if (res->err == OP_KEYLESS) {
				/* v8+ carry it; Kafka's words for it differ. */
				pr->error_message.p = op_strerror(OP_KEYLESS);
				pr->error_message.len = (int32_t)strlen(
				    pr->error_message.p);
			}
			if (res->err == OP_OK) {
				pr->base_offset = res->base_offset;
				pr->log_start_offset = res->log_start;
				rec = produce_records(&recs[n], &KA(
				    qt->partition_data,
				    struct km_produce_part)[j]);
				pr->log_append_time_ms = produce_append_time(
				    w->conf, &qt->name, &rec);
			}
		}
	}
	kafka_emit_desc(c, r, &s);
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
 * A transactional id goes to the coordinator (worker/kafka/txn.c).  v3+
 * may name the producer's current id and epoch: without a transactional
 * id Kafka answers a new id with epoch 0 all the same (its epoch bump is
 * for transactional producers), and so does Flume; naming only one of
 * the two is INVALID_REQUEST, as in Kafka.
 */
void
kafka_init_pid_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_init_pid_req *q = k->body;
	struct km_init_pid_resp *s;
	struct op_ctx x;

	r->state = REQ_DONE;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_init_producer_id.km_resp, s);
	s->producer_id = -1;
	s->producer_epoch = -1;
	k->kst = s;
	if (q->transactional_id.len >= 0) {
		/* Transactions: worker/kafka/txn.c. */
		kafka_txn_init_exec(w, c, r);
		return;
	}
	if ((q->producer_id == -1) != (q->producer_epoch == -1)) {
		s->error_code = KERR_INVALID_REQUEST;
		return;
	}
	conn_op_ctx(c, r, &x);
	if (op_init_producer(&x, -1, -1, &s->producer_id,
	    &s->producer_epoch) != OP_OK) {
		/* No id left: as Kafka answers a broker-side failure. */
		s->error_code = KERR_UNKNOWN_SERVER_ERROR;
		s->producer_id = -1;
		s->producer_epoch = -1;
	}
}

void
kafka_init_pid_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	kafka_emit_desc(c, r, k->kst);
}

/* ---- Fetch ---- */

/* What decode found per Kafka topic (k->aux), once. */
struct kfetch_tid {
	int16_t		 err;		/* UNKNOWN_TOPIC_ID, or 0 */
	size_t		 len;
	char		 name[TOPIC_NAME_MAX + 1];
};

int
kafka_fetch_decode(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_fetch_req *q;
	const struct km_fetch_topic *t;
	const struct km_fetch_part *fq;
	struct op_fetch *a = &k->op.fetch;
	struct op_fetch_part *parts = NULL, *fp;
	struct kfetch_tid *kt;
	struct op_ctx x;
	const char *name;
	int32_t i, j, total = 0, m = 0;

	if (kafka_decode_desc(c, r) == -1)
		return -1;
	q = k->body;
	for (i = 0; i < q->topics.n; i++)
		total += KA(q->topics, struct km_fetch_topic)[i].partitions.n;
	memset(a, 0, sizeof(*a));
	a->max_wait_ms = q->max_wait_ms;
	a->min_bytes = q->min_bytes;
	a->max_bytes = q->max_bytes;
	a->isolation = q->isolation_level == 1 ? 1 : 0;
	/*
	 * v13+ name topics by id: found once, the names copied (a deleted
	 * topic's entry may be reused), kept across redecodes.
	 */
	if (k->h.api_version >= 13 && k->aux == NULL && q->topics.n > 0) {
		if ((k->aux = conn_alloc(c, (size_t)q->topics.n *
		    sizeof(*kt))) == NULL)
			return -1;
		conn_op_ctx(c, r, &x);
		for (i = 0; i < q->topics.n; i++) {
			kt = &((struct kfetch_tid *)k->aux)[i];
			kt->err = KERR_UNKNOWN_TOPIC_ID;
			kt->len = 0;
			if (op_topic_find_id(&x, KA(q->topics,
			    struct km_fetch_topic)[i].topic_id, &name,
			    &kt->len) != OP_OK || kt->len > TOPIC_NAME_MAX)
				continue;
			memcpy(kt->name, name, kt->len);
			kt->err = KERR_NONE;
		}
	}
	if (total > 0 && ((parts = conn_alloc(c, (size_t)total *
	    sizeof(*parts))) == NULL || (k->pre == NULL && (k->pre =
	    conn_alloc(c, (size_t)total * sizeof(*k->pre))) == NULL)))
		return -1;
	total = 0;
	for (i = 0; i < q->topics.n; i++) {
		t = &KA(q->topics, struct km_fetch_topic)[i];
		kt = k->aux != NULL ? &((struct kfetch_tid *)k->aux)[i] :
		    NULL;
		for (j = 0; j < t->partitions.n; j++, total++) {
			fq = &KA(t->partitions, struct km_fetch_part)[j];
			k->pre[total] = kt != NULL ? kt->err : KERR_NONE;
			if (k->pre[total] != KERR_NONE)
				continue;
			fp = &parts[m++];
			fp->topic = kt != NULL ? kt->name : t->topic.p;
			fp->topic_len = kt != NULL ? kt->len :
			    (size_t)t->topic.len;
			fp->partition = fq->partition;
			fp->offset = fq->fetch_offset;
			fp->max_bytes = fq->partition_max_bytes;
		}
	}
	a->parts = parts;
	a->count = m;
	return 0;
}

void
kafka_fetch_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_fetch_req *q = k->body;
	struct op_fetch_st *st = NULL;
	struct op_ctx x;
	enum op_status s;

	/*
	 * Flume makes no fetch sessions (a full request is answered with
	 * session id 0, which tells the client none was made), so a
	 * request that continues one was never answered by this broker:
	 * refused whole, as Kafka refuses an unknown session, and the
	 * client starts over with a full fetch.
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

/* The answer's file ranges, queued by the codec's records hook. */
struct kfetch_out {
	struct conn	*c;
	uint64_t	 files;		/* bytes queued from files */
};

/* A records field of a v4+ answer: its file range after the prefix. */
static int
fetch_queue_file(void *arg, const struct kstr *s, struct wbuf *wb)
{
	struct kfetch_out *o = arg;
	struct op_fetch_result *hp = (struct op_fetch_result *)(uintptr_t)s->p;
	int fd = hp->fd;

	(void)wb;		/* o->c->out: committed by conn_out_file */
	hp->fd = -1;
	/* The output queue owns the descriptor from here. */
	if (conn_out_file(o->c, fd, hp->pos, hp->len) == -1)
		return -1;
	op_fetch_sent(hp);
	o->files += hp->len;
	return 0;
}

/*
 * The worker's buffers for Fetch v0-3: the stored batches read in, and
 * the converted message sets of one answer back to back (the answer's
 * records point into it until it is encoded).  Outside the request's
 * memory, which a pipelining consumer would otherwise fill with copies
 * no one needs once the answer is in the output; more than
 * FETCH_SCRATCH_KEEP is given back after each answer.
 */
#define FETCH_SCRATCH_KEEP	(4u << 20)

struct scratch {
	uint8_t		*buf;
	size_t		 len, cap;
};

static struct scratch fetch_in, fetch_out;

/* Room for n more bytes at s->buf + s->len: 0 or -1. */
static int
scratch_room(struct scratch *s, size_t n)
{
	uint8_t *nb;
	size_t cap;

	if (s->cap - s->len >= n)
		return 0;
	cap = s->cap ? s->cap : 65536;
	while (cap - s->len < n)
		cap *= 2;
	if ((nb = realloc(s->buf, cap)) == NULL)
		return -1;
	s->buf = nb;
	s->cap = cap;
	return 0;
}

static void
scratch_trim(struct scratch *s)
{
	s->len = 0;
	if (s->cap > FETCH_SCRATCH_KEEP) {
		free(s->buf);
		s->buf = NULL;
		s->cap = 0;
	}
}

/*
 * Fetch v0-3: part hp's batches read (at most what the part and the
 * answer may still take, but always the first batch whole: op_fetch
 * bounds it by max_message_bytes) and converted to magic, appended to
 * fetch_out at *off, *len bytes: at most *budget but always the first
 * message whole (KIP-74; before v3 Kafka sent a partial message there,
 * which a client can only skip by asking for more).  KERR_NONE or the
 * part's error.
 */
static int16_t
fetch_convert(struct conn *c, struct op_fetch_result *hp, int magic,
    int64_t offset, int32_t part_max, int64_t *budget, size_t *off,
    size_t *len)
{
	uint8_t hdr[BATCH_LOG_OVERHEAD];
	struct kmsgset_fetch res;
	const uint8_t *out;
	struct kmsgset *k;
	size_t want, lim, first;
	ssize_t n;
	int e;

	*off = fetch_out.len;
	*len = 0;
	lim = part_max > 0 ? (size_t)part_max : 1;
	if ((int64_t)lim > *budget)
		lim = *budget > 0 ? (size_t)*budget : 1;
	want = hp->len;
	if (want > lim) {
		/* At least the first batch (its length from its header). */
		if (pread(hp->fd, hdr, sizeof(hdr), hp->pos) !=
		    (ssize_t)sizeof(hdr))
			return kafka_op_error(OP_STORAGE);
		first = BATCH_LOG_OVERHEAD + (size_t)be32_get(hdr +
		    BATCH_OFF_LENGTH);
		want = first > lim ? first : lim;
		if (want > hp->len)
			want = hp->len;
	}
	fetch_in.len = 0;
	if (scratch_room(&fetch_in, want) == -1)
		return kafka_op_error(OP_NO_MEMORY);
	if ((n = pread(hp->fd, fetch_in.buf, want, hp->pos)) < 0 ||
	    (size_t)n != want)
		return kafka_op_error(OP_STORAGE);
	if ((k = conv(c->w)) == NULL)
		return kafka_op_error(OP_NO_MEMORY);
	if ((e = kmsgset_from_batches(k, fetch_in.buf, want, magic, offset,
	    lim, 1, &out, &res)) != KMSGSET_OK) {
		log_warnx("%s: Kafka Fetch: stored batches not converted to "
		    "magic %d: %s", c->peer, magic, kmsgset_strerror(e));
		return e == KMSGSET_EBATCH ? kafka_op_error(OP_CORRUPT_STORED) :
		    e == KMSGSET_ELIMIT ? KERR_MESSAGE_TOO_LARGE :
		    kafka_op_error(OP_NO_MEMORY);
	}
	if (res.len == 0)
		return KERR_NONE;
	if (res.len > INT32_MAX || scratch_room(&fetch_out, res.len) == -1)
		return kafka_op_error(OP_NO_MEMORY);
	memcpy(fetch_out.buf + fetch_out.len, out, res.len);
	fetch_out.len += res.len;
	*len = res.len;
	*budget -= (int64_t)res.len;
	conv_count(c->w, res.len);
	return KERR_NONE;
}

/* A read_committed part's aborted transactions, in the answer. */
static int
fetch_aborted_out(struct conn *c, struct km_fetch_part_resp *pr,
    const struct op_fetch_result *hp)
{
	struct km_aborted_txn *at;
	int32_t i;

	if ((at = conn_alloc(c, (size_t)hp->naborted * sizeof(*at))) == NULL)
		return -1;
	for (i = 0; i < hp->naborted; i++) {
		memset(&at[i], 0, sizeof(at[i]));
		at[i].producer_id = hp->aborted[i].pid;
		at[i].first_offset = hp->aborted[i].first;
	}
	pr->aborted_transactions.v = at;
	pr->aborted_transactions.n = hp->naborted;
	return 0;
}

/*
 * The answer, by the description: v4+ with each partition's batches
 * sent from the segment file (sendfile) right after their length, the
 * frame size patched at the end once every file range is known; v0-3
 * with the batches converted to a message set in the frame itself.
 * A full request made no session: session id 0.  last_stable_offset is
 * the partition's LSO; read_committed (v4+) reads stop there and carry
 * the aborted transactions of the range read (an empty list when none;
 * null for read_uncommitted, as Kafka).  No preferred read replica.
 */
void
kafka_fetch_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_fetch_req *q = k->body;
	const struct km_fetch_topic *qt;
	const struct km_fetch_part *fq;
	struct op_fetch_result *hps = NULL, *hp;
	struct km_fetch_resp s;
	struct km_fetch_topic_resp *t;
	struct km_fetch_part_resp *pr;
	struct kfetch_out o = { c, 0 };
	struct kdesc_hook hook = { fetch_queue_file, &o };
	int16_t v = k->h.api_version;
	int64_t budget = q->max_bytes > 0 ? q->max_bytes : INT32_MAX;
	int32_t i, j, n = 0, m = 0, total = 0;
	size_t *coff = NULL, clen;
	uint64_t size;
	size_t pos;
	int rc, taken = 0;	/* hps holds the parts' file ranges */

	kdesc_defaults(kmsg_fetch.km_resp, &s);
	if (k->no_op) {
		s.error_code = q->session_id != 0 ?
		    KERR_FETCH_SESSION_ID_NOT_FOUND :
		    KERR_INVALID_FETCH_SESSION_EPOCH;
		kafka_emit_desc(c, r, &s);
		return;
	}
	for (i = 0; i < q->topics.n; i++)
		total += KA(q->topics, struct km_fetch_topic)[i].partitions.n;
	if (total > 0 && ((hps = conn_alloc(c, (size_t)total *
	    sizeof(*hps))) == NULL || (v < 4 && (coff = conn_alloc(c,
	    (size_t)total * sizeof(*coff))) == NULL)))
		goto fail;
	fetch_out.len = 0;
	if (q->topics.n > 0 && (s.responses.v = conn_alloc(c,
	    (size_t)q->topics.n * sizeof(*t))) == NULL)
		goto fail;
	s.responses.n = q->topics.n;
	/* Every part's file range taken first: none is left behind. */
	for (n = 0; n < total; n++) {
		hp = &hps[n];
		memset(hp, 0, sizeof(*hp));
		hp->fd = -1;
		if (k->pre[n] != KERR_NONE)
			continue;
		if (k->operr != OP_OK || op_fetch_take(k->kst, m, hp) == -1)
			hp->err = k->operr != OP_OK ? k->operr : OP_INTERNAL;
		m++;
		if (hp->len > INT32_MAX || (hp->fd >= 0 && hp->len == 0)) {
			close(hp->fd);
			hp->fd = -1;
			hp->len = 0;
		}
	}
	taken = 1;
	for (i = 0, n = 0; i < q->topics.n; i++) {
		qt = &KA(q->topics, struct km_fetch_topic)[i];
		t = &KA(s.responses, struct km_fetch_topic_resp)[i];
		memset(t, 0, sizeof(*t));
		t->topic = qt->topic;
		memcpy(t->topic_id, qt->topic_id, sizeof(t->topic_id));
		if (qt->partitions.n > 0 && (t->partitions.v = conn_alloc(c,
		    (size_t)qt->partitions.n * sizeof(*pr))) == NULL)
			goto fail;
		t->partitions.n = qt->partitions.n;
		for (j = 0; j < qt->partitions.n; j++, n++) {
			fq = &KA(qt->partitions, struct km_fetch_part)[j];
			pr = &KA(t->partitions, struct km_fetch_part_resp)[j];
			hp = &hps[n];
			memset(pr, 0, sizeof(*pr));
			pr->partition_index = fq->partition;
			pr->diverging_epoch.epoch = -1;
			pr->diverging_epoch.end_offset = -1;
			pr->current_leader.leader_id = -1;
			pr->current_leader.leader_epoch = -1;
			pr->snapshot_id.end_offset = -1;
			pr->snapshot_id.epoch = -1;
			pr->aborted_transactions.n = q->isolation_level == 0 ?
			    -1 : 0;
			pr->preferred_read_replica = -1;
			if (k->pre[n] != KERR_NONE) {
				pr->error_code = k->pre[n];
				pr->high_watermark = pr->last_stable_offset =
				    pr->log_start_offset = -1;
				continue;
			}
			errcode_count(w, hp->err);
			pr->error_code = kafka_op_error(hp->err);
			pr->high_watermark = hp->err == OP_OK ? hp->hwm : -1;
			pr->last_stable_offset = hp->err == OP_OK ? hp->lso : -1;
			if (q->isolation_level == 1 && hp->naborted > 0 &&
			    fetch_aborted_out(c, pr, hp) == -1)
				goto fail;
			pr->log_start_offset = hp->err == OP_OK ?
			    hp->log_start : -1;
			if (hp->fd < 0)
				continue;
			if (v >= 4) {
				pr->records.p = (const char *)hp;
				pr->records.len = (int32_t)hp->len;
				continue;
			}
			rc = fetch_convert(c, hp, v >= 2 ? 1 : 0,
			    fq->fetch_offset, fq->partition_max_bytes,
			    &budget, &coff[n], &clen);
			if (rc == KERR_NONE && clen > 0) {
				op_fetch_sent(hp);
				/* Pointed at once fetch_out stops moving. */
				pr->records.len = (int32_t)clen;
			} else if (rc != KERR_NONE)
				pr->error_code = (int16_t)rc;
			close(hp->fd);
			hp->fd = -1;
		}
	}
	for (i = 0, n = 0; v < 4 && i < q->topics.n; i++) {
		t = &KA(s.responses, struct km_fetch_topic_resp)[i];
		for (j = 0; j < t->partitions.n; j++, n++) {
			pr = &KA(t->partitions, struct km_fetch_part_resp)[j];
			if (pr->records.len > 0)
				pr->records.p = (const char *)fetch_out.buf +
				    coff[n];
		}
	}
	pos = kafka_resp_begin(c, r);
	/* v0-3's records are the converted bytes themselves: no hook. */
	if (kmsg_encode_resp_hook(&kmsg_fetch, v, &s, v >= 4 ? &hook : NULL,
	    &c->out) == -1) {
		log_warnx("%s: Kafka Fetch v%d: the answer does not fit its "
		    "version, closing", c->peer, (int)v);
		goto dead;
	}
	size = c->out.len - pos - KFRAME_SIZE_LEN + o.files;
	if (c->out.err || size > INT32_MAX)
		goto dead;
	wbuf_put_u32_at(&c->out, pos, (uint32_t)size);
	conn_out_commit(c);
	scratch_trim(&fetch_out);
	scratch_trim(&fetch_in);
	return;
fail:
	log_warnx("%s: Kafka Fetch answer: out of request memory, closing",
	    c->peer);
dead:
	c->dead = 1;
	scratch_trim(&fetch_out);
	scratch_trim(&fetch_in);
	for (n = 0; taken && n < total; n++)
		if (hps[n].fd >= 0)
			close(hps[n].fd);
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
 * isolation_level 1 (v2+): latest is the last stable offset, and a time
 * found at or past it none (op_list_offset_committed()).
 * v7's MAX_TIMESTAMP (-3) is op_list_offset_max_ts()'s; Flume keeps no
 * tiers, so v8's earliest local (-4) is the earliest and v9's latest
 * tiered (-5) the latest.
 */
void
kafka_list_offsets_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_listoff_req *q = k->body;
	const struct km_listoff_topic *t;
	const struct km_listoff_part *pq;
	struct koffset *o = NULL;
	struct op_ctx x;
	int32_t i, j, total = 0;
	int64_t ts;

	r->state = REQ_DONE;
	for (i = 0; i < q->topics.n; i++)
		total += KA(q->topics, struct km_listoff_topic)[i].partitions.n;
	if (total > 0 && (o = conn_alloc(c, (size_t)total * sizeof(*o))) ==
	    NULL) {
		k->operr = OP_NO_MEMORY;
		return;
	}
	conn_op_ctx(c, r, &x);
	k->kst = total > 0 ? o : NULL;
	for (i = 0; i < q->topics.n; i++) {
		t = &KA(q->topics, struct km_listoff_topic)[i];
		for (j = 0; j < t->partitions.n; j++, o++) {
			pq = &KA(t->partitions, struct km_listoff_part)[j];
			ts = pq->timestamp;
			if (ts == KAFKA_LIST_EARLIEST_LOCAL)
				ts = OP_OFFSET_EARLIEST;
			else if (ts == KAFKA_LIST_LATEST_TIERED)
				ts = OP_OFFSET_LATEST;
			if (ts == KAFKA_LIST_MAX_TS)
				o->err = op_list_offset_max_ts(&x, t->name.p,
				    (size_t)t->name.len, pq->partition_index,
				    &o->offset, &o->timestamp);
			else if (q->isolation_level == 1)
				o->err = op_list_offset_committed(&x, t->name.p,
				    (size_t)t->name.len, pq->partition_index,
				    ts, &o->offset, &o->timestamp);
			else
				o->err = op_list_offset(&x, t->name.p,
				    (size_t)t->name.len, pq->partition_index,
				    ts, &o->offset, &o->timestamp);
			/* v0 by time: past every record, the log end. */
			if (k->h.api_version == 0 && o->err == OP_OK &&
			    ts >= 0 && o->offset == -1)
				o->err = op_list_offset(&x, t->name.p,
				    (size_t)t->name.len, pq->partition_index,
				    OP_OFFSET_LATEST, &o->offset,
				    &o->timestamp);
		}
	}
}

/*
 * v0 answers a list of offsets (old_style_offsets), at most
 * max_num_offsets: Kafka lists segment boundaries before the time there;
 * Flume answers the one offset found (the first record at or after the
 * time, the earliest or the latest), which is what clients ask for
 * (max_num_offsets 1).  v1+ answer one offset with its timestamp, v4+
 * with leader epoch 0 (Flume's only leader's).
 */
void
kafka_list_offsets_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_listoff_req *q = k->body;
	const struct km_listoff_topic *qt;
	const struct km_listoff_part *pq;
	const struct koffset *o = k->kst;
	struct km_listoff_resp s;
	struct km_listoff_topic_resp *t;
	struct km_listoff_part_resp *pr;
	int64_t *old;
	int32_t i, j;

	kdesc_defaults(kmsg_list_offsets.km_resp, &s);
	if (q->topics.n > 0 && (s.topics.v = conn_alloc(c,
	    (size_t)q->topics.n * sizeof(*t))) == NULL)
		goto fail;
	s.topics.n = q->topics.n;
	for (i = 0; i < q->topics.n; i++) {
		qt = &KA(q->topics, struct km_listoff_topic)[i];
		t = &KA(s.topics, struct km_listoff_topic_resp)[i];
		t->name = qt->name;
		t->partitions.n = qt->partitions.n;
		t->partitions.v = NULL;
		if (qt->partitions.n > 0 && (t->partitions.v = conn_alloc(c,
		    (size_t)qt->partitions.n * sizeof(*pr))) == NULL)
			goto fail;
		for (j = 0; j < qt->partitions.n; j++) {
			pq = &KA(qt->partitions, struct km_listoff_part)[j];
			pr = &KA(t->partitions, struct km_listoff_part_resp)[j];
			memset(pr, 0, sizeof(*pr));
			pr->partition_index = pq->partition_index;
			pr->timestamp = -1;
			pr->offset = -1;
			pr->leader_epoch = -1;
			if (k->operr != OP_OK || o == NULL) {
				pr->error_code = kafka_op_error(k->operr !=
				    OP_OK ? k->operr : OP_INTERNAL);
				continue;
			}
			pr->error_code = kafka_op_error(o->err);
			if (o->err == OP_OK) {
				pr->offset = o->offset;
				pr->timestamp = o->timestamp;
				pr->leader_epoch = 0;
				if (pq->max_num_offsets > 0 && o->offset >= 0) {
					if ((old = conn_alloc(c,
					    sizeof(*old))) == NULL)
						goto fail;
					*old = o->offset;
					pr->old_style_offsets.n = 1;
					pr->old_style_offsets.v = old;
				}
			}
			o++;
		}
	}
	kafka_emit_desc(c, r, &s);
	return;
fail:
	log_warnx("%s: Kafka ListOffsets answer: out of request memory, "
	    "closing", c->peer);
	c->dead = 1;
}
