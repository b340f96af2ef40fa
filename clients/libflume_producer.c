/*
 * libflume producer: per-partition batch builders, linger and size based
 * sealing, pipelined PRODUCE requests, per-message delivery reports, and
 * resending after a lost connection.
 *
 * A batch is always in exactly one place: open (the partition's builder,
 * also on openq in the order batches were opened, so the oldest is the
 * first to linger out), sendq (sealed, waiting for a request slot), a
 * request in flight, or the free list.  Batches and requests are recycled,
 * so a producer in steady state allocates nothing per message.
 *
 * After a lost connection every request in flight is failed by the client;
 * their batches go back to the front of sendq in their original order and
 * are sent again, byte for byte, after a reconnect.  Without idempotence
 * (a later issue) a batch the broker had already stored is then stored
 * twice.
 *
 * flume_produce_ref() appends a value by reference (batch_builder_add_ref):
 * a sealed batch is then the builder's bytes with the caller's values in
 * between (b->pc), sent as an iovec of those pieces.  The caller keeps a
 * value until its delivery is reported, and a batch is reported only once
 * it is answered for good, so every resend finds the same bytes.  Where
 * a request must hold a copy (TLS, acks=0) the pieces are copied into it
 * when it is encoded; a compressing producer copies at append.
 */
#include <sys/queue.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/libflume_int.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/msg.h"

/* Room in a request frame for everything but the batch bytes. */
#define PROD_REQ_SLACK		1024
/* Sends of one batch before it is reported failed. */
#define PROD_MAX_SENDS		10
/*
 * flume_produce() looks at the socket for acknowledgements once per this
 * many messages (a power of two) when it has nothing to send: a poll(2)
 * per message would cost more than building the message.
 */
#define PROD_POLL_EVERY		64
/*
 * How often a producer asks METADATA again for a topic it sends to, so
 * that keyed records of a topic that grew (CREATE_PARTITIONS) go over its
 * new count (Kafka's clients: metadata.max.age.ms, 5 minutes).
 */
#define PROD_TOPIC_REFRESH_MS	10000

struct prod_topic;

struct prod_batch {
	TAILQ_ENTRY(prod_batch) link;
	struct prod_topic	*topic;
	int32_t			 partition;
	struct batch_builder	 bb;
	const uint8_t		*bytes;		/* sealed: into bb */
	size_t			 len;		/* sealed: all of it, values included */
	struct wbuf_pieces	 pc;		/* sealed: bytes and referenced values */
	uint64_t		*seqs;		/* message sequence numbers */
	size_t			 nseq, seqcap;
	int64_t			 opened_ms;
	int			 sends;
	int64_t			 pid;		/* numbered under this producer id; -1 not yet */
	int32_t			 base_seq;
	uint64_t		 order;		/* seal order: resends keep it */
};
TAILQ_HEAD(prod_batchq, prod_batch);

struct prod_req {
	TAILQ_ENTRY(prod_req)	 link;
	struct flume_producer	*p;
	struct prod_batchq	 batches;
	int			 nbatches;
	int			 failed;	/* errno: resend after reconnect */
	int64_t			 sent_ms;
};
TAILQ_HEAD(prod_reqq, prod_req);

struct prod_topic {
	char			*name;
	int32_t			 nparts;
	int32_t			 sticky;	/* keyless records go here */
	int32_t			*seq;		/* next sequence per partition (idempotence) */
	struct prod_batch	**open;		/* per partition, or NULL */
	int64_t			 checked_ms;	/* when METADATA last gave nparts */
};

struct flume_producer {
	struct flume_client	*c;
	struct flume_producer_conf conf;
	struct prod_topic	**topics;
	size_t			 ntopics;
	struct prod_batchq	 openq, sendq, freeb;
	struct prod_reqq	 inflight, freer;
	int			 ninflight;
	int			 need_retry;
	int			 dead;		/* reconnecting failed for good */
	uint64_t		 next_seq;
	uint64_t		 pending;
	uint64_t		 failed;
	int64_t			 pid;		/* idempotence: producer id, -1 none */
	int16_t			 epoch;
	int			 reinit;	/* a batch failed for good: take a new id */
	uint64_t		 sealed;	/* batches sealed so far */
	size_t			 buffered;	/* sealed bytes not yet acknowledged */
	struct produce_part	*parts;		/* reused for encoding */
	struct wbuf_pieces	*pieces;	/* the same, for each part */
	size_t			 partcap;
	struct arena		 arena;		/* response decoding */
};

void
flume_producer_conf_init(struct flume_producer_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->acks = 1;
	conf->linger_ms = 5;
	conf->batch_bytes = 16384;
	conf->max_inflight = 8;
	conf->max_request_bytes = 1024 * 1024;
	conf->buffer_bytes = 32 * 1024 * 1024;
	conf->timeout_ms = 30000;
	conf->auto_create = 1;
	conf->idempotent = 1;
}

static int	prod_idem_start(struct flume_producer *p);

/* flume.h spells proto/compress.h's codec numbers for users. */
_Static_assert(FLUME_COMPRESSION_GZIP == COMPRESS_GZIP &&
    FLUME_COMPRESSION_SNAPPY == COMPRESS_SNAPPY &&
    FLUME_COMPRESSION_LZ4 == COMPRESS_LZ4 &&
    FLUME_COMPRESSION_ZSTD == COMPRESS_ZSTD, "codec numbers");

int
flume_compression_by_name(const char *name)
{
	return compress_by_name(name);
}

struct flume_producer *
flume_producer_new(struct flume_client *c, const struct flume_producer_conf *conf)
{
	struct flume_producer *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->c = c;
	if (conf != NULL)
		p->conf = *conf;
	else
		flume_producer_conf_init(&p->conf);
	if (p->conf.acks != 0 && p->conf.acks != 1 && p->conf.acks != -1) {
		free(p);
		client_seterr(c, "acks must be 0, 1 or -1 (all)");
		errno = EINVAL;
		return NULL;
	}
	if (compress_name(p->conf.compression) == NULL) {
		client_seterr(c, "unknown compression %d", p->conf.compression);
		free(p);
		errno = EINVAL;
		return NULL;
	}
	if (p->conf.linger_ms < 0)
		p->conf.linger_ms = 0;
	if (p->conf.batch_bytes < BATCH_HEADER_SIZE + 16)
		p->conf.batch_bytes = BATCH_HEADER_SIZE + 16;
	if (p->conf.max_inflight <= 0)
		p->conf.max_inflight = 1;
	/* A request over the broker's frame limit would cost the connection. */
	if (c->max_frame > PROD_REQ_SLACK * 2 &&
	    p->conf.max_request_bytes > (size_t)c->max_frame - PROD_REQ_SLACK)
		p->conf.max_request_bytes = (size_t)c->max_frame - PROD_REQ_SLACK;
	if (p->conf.batch_bytes > p->conf.max_request_bytes)
		p->conf.batch_bytes = p->conf.max_request_bytes;
	if (p->conf.max_request_bytes < p->conf.batch_bytes)
		p->conf.max_request_bytes = p->conf.batch_bytes;
	if (p->conf.buffer_bytes < p->conf.max_request_bytes)
		p->conf.buffer_bytes = p->conf.max_request_bytes;
	if (p->conf.timeout_ms <= 0)
		p->conf.timeout_ms = 30000;
	TAILQ_INIT(&p->openq);
	TAILQ_INIT(&p->sendq);
	TAILQ_INIT(&p->freeb);
	TAILQ_INIT(&p->inflight);
	TAILQ_INIT(&p->freer);
	arena_init(&p->arena, 16 * 1024 * 1024);
	p->pid = -1;
	p->epoch = -1;
	if (p->conf.idempotent && p->conf.acks != 0 && prod_idem_start(p) == -1) {
		arena_free(&p->arena);
		free(p);
		return NULL;
	}
	return p;
}

static void
prod_batch_destroy(struct prod_batch *b)
{
	batch_builder_free(&b->bb);
	free(b->seqs);
	free(b);
}

static void
prod_batchq_destroy(struct prod_batchq *q)
{
	struct prod_batch *b;

	while ((b = TAILQ_FIRST(q)) != NULL) {
		TAILQ_REMOVE(q, b, link);
		prod_batch_destroy(b);
	}
}

void
flume_producer_free(struct flume_producer *p)
{
	struct prod_req *r;
	size_t i;

	if (p == NULL)
		return;
	/* Handlers of requests in flight point at us: fail them first. */
	if (p->ninflight > 0)
		client_disconnect(p->c, ECONNABORTED);
	TAILQ_CONCAT(&p->freer, &p->inflight, link);
	while ((r = TAILQ_FIRST(&p->freer)) != NULL) {
		TAILQ_REMOVE(&p->freer, r, link);
		prod_batchq_destroy(&r->batches);
		free(r);
	}
	prod_batchq_destroy(&p->openq);
	prod_batchq_destroy(&p->sendq);
	prod_batchq_destroy(&p->freeb);
	for (i = 0; i < p->ntopics; i++) {
		free(p->topics[i]->name);
		free(p->topics[i]->open);
		free(p->topics[i]->seq);
		free(p->topics[i]);
	}
	free(p->topics);
	free(p->parts);
	free(p->pieces);
	arena_free(&p->arena);
	free(p);
}

uint64_t
flume_producer_pending(const struct flume_producer *p)
{
	return p->pending;
}

uint64_t
flume_producer_failed(const struct flume_producer *p)
{
	return p->failed;
}

/* Report every message of b (error e, or offsets from base) and recycle b. */
static void
prod_batch_report(struct flume_producer *p, struct prod_batch *b, int e,
    int64_t base)
{
	struct flume_delivery d;
	size_t i;

	d.topic = b->topic->name;
	d.partition = b->partition;
	d.error = e;
	for (i = 0; i < b->nseq; i++) {
		d.seq = b->seqs[i];
		d.offset = e != 0 || base < 0 ? -1 : base + (int64_t)i;
		if (p->conf.on_delivery != NULL)
			p->conf.on_delivery(&d, p->conf.on_delivery_arg);
	}
	p->pending -= b->nseq;
	if (e != 0)
		p->failed += b->nseq;
	if (b->bytes != NULL)
		p->buffered -= b->len;
	batch_builder_reset(&b->bb);
	b->bytes = NULL;
	b->len = 0;
	b->nseq = 0;
	b->sends = 0;
	b->pid = -1;
	TAILQ_INSERT_HEAD(&p->freeb, b, link);
}

static void
prod_req_recycle(struct flume_producer *p, struct prod_req *r)
{
	TAILQ_REMOVE(&p->inflight, r, link);
	p->ninflight--;
	TAILQ_INIT(&r->batches);
	r->nbatches = 0;
	r->failed = 0;
	TAILQ_INSERT_HEAD(&p->freer, r, link);
}

/*
 * Idempotence.  A batch is numbered when it is first sent (its producer
 * fields patched and its CRC redone), with the partition's next
 * sequences under the current producer id, and keeps its numbers for
 * every resend, so the broker can tell a resend from a new batch.  A
 * batch refused for a gap (an earlier one is being resent) or a timeout
 * goes back to the send queue in its place; one that fails for good
 * leaves a gap no later batch can fill, so the producer takes a new
 * producer id and numbers what it has not sent yet afresh.
 */
static int
prod_idem_start(struct flume_producer *p)
{
	int64_t id = -1;
	int16_t epoch = -1;

	if (flume_init_producer(p->c, &id, &epoch) == -1) {
		if (flume_broker_error(p->c) == ERR_UNSUPPORTED_API)
			return 0;	/* an older broker: no idempotence */
		return -1;
	}
	p->pid = id;
	p->epoch = epoch;
	return 0;
}

static void
prod_idem_number(struct flume_producer *p, struct prod_batch *b)
{
	int32_t *next = &b->topic->seq[b->partition];
	uint8_t *h;

	/* The sealed bytes: the builder's, or its compressed copy. */
	if (b->bytes == b->bb.buf)
		h = b->bb.buf;
	else if (b->bytes == b->bb.zbatch)
		h = b->bb.zbatch;
	else
		return;
	if (b->len < BATCH_HEADER_SIZE)
		return;
	b->pid = p->pid;
	b->base_seq = *next;
	be64_put(h + BATCH_OFF_PRODUCER_ID, (uint64_t)p->pid);
	be16_put(h + BATCH_OFF_PRODUCER_EPOCH, (uint16_t)p->epoch);
	be32_put(h + BATCH_OFF_BASE_SEQUENCE, (uint32_t)b->base_seq);
	/* The header's CRC only: the records' is known since the seal. */
	batch_header_recrc(h, b->len, b->bb.records_crc);
	*next = (int32_t)(((int64_t)*next + b->bb.count) %
	    ((int64_t)INT32_MAX + 1));
}

/* Put b back in the send queue before later batches of its partition. */
static void
prod_idem_requeue(struct flume_producer *p, struct prod_batch *b)
{
	struct prod_batch *x;

	TAILQ_FOREACH(x, &p->sendq, link)
		if (x->topic == b->topic && x->partition == b->partition &&
		    x->order > b->order)
			break;
	if (x != NULL)
		TAILQ_INSERT_BEFORE(x, b, link);
	else
		TAILQ_INSERT_TAIL(&p->sendq, b, link);
}

/*
 * A numbered batch was refused with e: 1 when it goes back to the send
 * queue, 0 when it is to be reported failed.
 */
/* Is b the oldest batch of its partition not yet answered? */
static int
prod_idem_oldest(struct flume_producer *p, const struct prod_batch *b)
{
	const struct prod_batch *x;
	const struct prod_req *r;

	TAILQ_FOREACH(x, &p->sendq, link)
		if (x->topic == b->topic && x->partition == b->partition &&
		    x->order < b->order)
			return 0;
	TAILQ_FOREACH(r, &p->inflight, link)
		TAILQ_FOREACH(x, &r->batches, link)
			if (x->topic == b->topic && x->partition == b->partition &&
			    x->order < b->order)
				return 0;
	return 1;
}

static int
prod_idem_failed(struct flume_producer *p, struct prod_batch *b, int e)
{
	if (b->sends < PROD_MAX_SENDS && (e == ERR_OUT_OF_ORDER_SEQUENCE ||
	    e == ERR_TIMEOUT)) {
		/*
		 * A gap with nothing of ours before it: the broker forgot
		 * this producer (evicted, or not found after a restart).
		 * Nothing refused for a gap was stored, so it starts over
		 * under a new id.
		 */
		if (e == ERR_OUT_OF_ORDER_SEQUENCE && b->pid == p->pid &&
		    prod_idem_oldest(p, b))
			p->reinit = 1;
		/* A batch numbered under an id given up since is numbered again. */
		if (b->pid != p->pid || (p->reinit &&
		    e == ERR_OUT_OF_ORDER_SEQUENCE))
			b->pid = -1;
		prod_idem_requeue(p, b);
		return 1;
	}
	if (b->pid == p->pid)
		p->reinit = 1;
	return 0;
}

/* After a batch failed for good: a new producer id, sequences from 0. */
static int
prod_idem_restart(struct flume_producer *p)
{
	size_t i;

	if (prod_idem_start(p) == -1)
		return -1;
	p->reinit = 0;
	/*
	 * Batches numbered under the old id keep their numbers: they were
	 * sent, and may be stored.  Refused for a gap, they are numbered
	 * again (prod_idem_failed).
	 */
	for (i = 0; i < p->ntopics; i++)
		memset(p->topics[i]->seq, 0, (size_t)p->topics[i]->nparts *
		    sizeof(int32_t));
	return 0;
}

int64_t
flume_producer_id(const struct flume_producer *p)
{
	return p->pid;
}

/* Broker errors after which sending the same batch again makes sense. */
static int
prod_retriable(int e)
{
	return e == ERR_SHUTTING_DOWN;
}

/* The PRODUCE response handler: report every batch of the request. */
static int
prod_resp_fn(struct flume_client *c, void *ctx, const uint8_t *payload,
    size_t len, int err)
{
	struct prod_req *r = ctx;
	struct flume_producer *p = r->p;
	struct produce_resp resp;
	struct prod_batch *b;
	int32_t i;
	int e;

	if (err != 0) {
		r->failed = err;
		p->need_retry = 1;
		return 0;
	}
	arena_reset(&p->arena);
	if (msg_decode_produce_resp(payload, len, &p->arena, &resp) == -1 ||
	    (resp.error == ERR_NONE && resp.count != r->nbatches)) {
		client_seterr(c, "malformed produce response");
		r->failed = EPROTO;
		p->need_retry = 1;
		return -1;
	}
	if (resp.error != ERR_NONE && prod_retriable(resp.error)) {
		r->failed = ECONNRESET;
		p->need_retry = 1;
		return 0;
	}
	i = 0;
	while ((b = TAILQ_FIRST(&r->batches)) != NULL) {
		TAILQ_REMOVE(&r->batches, b, link);
		e = resp.error != ERR_NONE ? resp.error : resp.results[i].error;
		/* A resend of a batch stored long ago: stored, offsets unknown. */
		if (e == ERR_DUPLICATE_SEQUENCE && b->pid >= 0) {
			prod_batch_report(p, b, 0, -1);
			i++;
			continue;
		}
		if (e != ERR_NONE && b->pid >= 0 && prod_idem_failed(p, b, e)) {
			i++;
			continue;
		}
		if (e != ERR_NONE)
			client_broker_fail(c, e, b->topic->name);
		prod_batch_report(p, b, e,
		    e == ERR_NONE ? resp.results[i].base_offset : -1);
		i++;
	}
	prod_req_recycle(p, r);
	return 0;
}

/* Close the builder of b and queue it for sending. */
static void
prod_seal(struct flume_producer *p, struct prod_batch *b)
{
	struct prod_topic *t = b->topic;
	int rc;

	TAILQ_REMOVE(&p->openq, b, link);
	t->open[b->partition] = NULL;
	if (t->sticky == b->partition)
		t->sticky = (t->sticky + 1) % t->nparts;
	b->pid = -1;
	b->order = p->sealed++;
	memset(&b->pc, 0, sizeof(b->pc));
	/*
	 * Uncompressed: in pieces, the referenced values left where they are.
	 * Compressed once, whole.  Retries resend these same bytes.
	 */
	if (p->conf.compression == COMPRESS_NONE)
		rc = batch_builder_close_pieces(&b->bb, &b->pc);
	else if ((rc = batch_builder_close_codec(&b->bb, p->conf.compression,
	    &b->pc.buf, &b->pc.len)) == 0)
		b->pc.nspans = 0;
	if (rc == -1) {
		b->bytes = NULL;
		client_seterr(p->c, "cannot close batch: %s", strerror(errno));
		prod_batch_report(p, b, -errno, -1);
		return;
	}
	b->bytes = b->pc.buf;
	b->len = b->pc.len + b->pc.span_bytes;
	p->buffered += b->len;
	TAILQ_INSERT_TAIL(&p->sendq, b, link);
}

/* Is a batch for b's partition already part of r? */
static int
prod_req_has(const struct prod_req *r, const struct prod_batch *b)
{
	const struct prod_batch *x;

	TAILQ_FOREACH(x, &r->batches, link)
		if (x->topic == b->topic && x->partition == b->partition)
			return 1;
	return 0;
}

/* Encode r's batches as one PRODUCE request into the client's output. */
static int
prod_encode(struct flume_producer *p, struct prod_req *r)
{
	struct produce_req req;
	struct produce_part *np;
	struct wbuf_pieces *npc;
	struct prod_batch *b;
	uint32_t id;
	size_t start, i = 0, ncap;
	int by_ref;

	if ((size_t)r->nbatches > p->partcap) {
		ncap = (size_t)r->nbatches * 2;
		if ((np = reallocarray(p->parts, ncap, sizeof(*np))) == NULL)
			return -1;
		p->parts = np;
		if ((npc = reallocarray(p->pieces, ncap, sizeof(*npc))) == NULL)
			return -1;
		p->pieces = npc;
		p->partcap = ncap;
	}
	TAILQ_FOREACH(b, &r->batches, link) {
		if (p->pid >= 0 && b->pid < 0)
			prod_idem_number(p, b);
		p->parts[i].topic = b->topic->name;
		p->parts[i].topic_len = strlen(b->topic->name);
		p->parts[i].partition = b->partition;
		p->parts[i].records = b->bytes;
		p->parts[i].records_len = (int32_t)b->len;
		p->pieces[i] = b->pc;
		b->sends++;
		i++;
	}
	req.acks = (int8_t)p->conf.acks;
	req.timeout_ms = p->conf.timeout_ms;
	req.count = r->nbatches;
	req.parts = p->parts;
	start = client_begin(p->c, API_PRODUCE, &id);
	/*
	 * The batches stay as they are until answered, so the request only
	 * references them (no copy of every batch into the output); with
	 * acks=0 they are recycled at once and must be copied (referenced
	 * values with them: their delivery is reported right after this).
	 */
	by_ref = p->conf.acks != 0 && client_can_ref(p->c);
	msg_encode_produce_req_pieces(&p->c->out, &req, p->pieces, by_ref);
	return client_end(p->c, start, id, p->conf.acks != 0 ? prod_resp_fn : NULL,
	    r);
}

/* Turn queued batches into requests while request slots are free. */
static int
prod_send(struct flume_producer *p)
{
	struct prod_req *r;
	struct prod_batch *b, *bad;
	size_t bytes;

	while (!TAILQ_EMPTY(&p->sendq) && client_connected(p->c) &&
	    (p->conf.acks == 0 || p->ninflight < p->conf.max_inflight)) {
		if ((r = TAILQ_FIRST(&p->freer)) != NULL)
			TAILQ_REMOVE(&p->freer, r, link);
		else if ((r = calloc(1, sizeof(*r))) == NULL)
			return -1;
		r->p = p;
		TAILQ_INIT(&r->batches);
		r->nbatches = 0;
		r->failed = 0;
		bytes = 0;
		while ((b = TAILQ_FIRST(&p->sendq)) != NULL) {
			if (r->nbatches > 0 &&
			    (bytes + b->len > p->conf.max_request_bytes ||
			    r->nbatches == INT32_MAX / 2 || prod_req_has(r, b)))
				break;
			TAILQ_REMOVE(&p->sendq, b, link);
			TAILQ_INSERT_TAIL(&r->batches, b, link);
			r->nbatches++;
			bytes += b->len;
		}
		TAILQ_INSERT_TAIL(&p->inflight, r, link);
		p->ninflight++;
		r->sent_ms = client_now_ms();
		if (prod_encode(p, r) == -1) {
			while ((bad = TAILQ_FIRST(&r->batches)) != NULL) {
				TAILQ_REMOVE(&r->batches, bad, link);
				prod_batch_report(p, bad, -errno, -1);
			}
			prod_req_recycle(p, r);
			return -1;
		}
		if (p->conf.acks == 0) {
			/* No answer will come: sent is all we will know. */
			while ((b = TAILQ_FIRST(&r->batches)) != NULL) {
				TAILQ_REMOVE(&r->batches, b, link);
				prod_batch_report(p, b, 0, -1);
			}
			prod_req_recycle(p, r);
		}
	}
	return 0;
}

/* Fail every batch that is queued, in flight or open with error e. */
static void
prod_fail_all(struct flume_producer *p, int e)
{
	struct prod_req *r;
	struct prod_batch *b;

	while ((r = TAILQ_FIRST(&p->inflight)) != NULL) {
		while ((b = TAILQ_FIRST(&r->batches)) != NULL) {
			TAILQ_REMOVE(&r->batches, b, link);
			prod_batch_report(p, b, e, -1);
		}
		prod_req_recycle(p, r);
	}
	while ((b = TAILQ_FIRST(&p->openq)) != NULL)
		prod_seal(p, b);
	while ((b = TAILQ_FIRST(&p->sendq)) != NULL) {
		TAILQ_REMOVE(&p->sendq, b, link);
		prod_batch_report(p, b, e, -1);
	}
}

/*
 * After a lost connection: put the batches of failed requests back at the
 * front of sendq in their original order, then reconnect.
 */
static int
prod_retry(struct flume_producer *p)
{
	struct prod_req *r, *rprev;
	struct prod_batch *b, *bprev;
	int e;

	p->need_retry = 0;
	for (r = TAILQ_LAST(&p->inflight, prod_reqq); r != NULL; r = rprev) {
		rprev = TAILQ_PREV(r, prod_reqq, link);
		if (r->failed == 0)
			continue;
		for (b = TAILQ_LAST(&r->batches, prod_batchq); b != NULL;
		    b = bprev) {
			bprev = TAILQ_PREV(b, prod_batchq, link);
			TAILQ_REMOVE(&r->batches, b, link);
			if (b->sends >= PROD_MAX_SENDS) {
				if (b->pid >= 0 && b->pid == p->pid)
					p->reinit = 1;
				prod_batch_report(p, b, -r->failed, -1);
			}
			else
				TAILQ_INSERT_HEAD(&p->sendq, b, link);
		}
		prod_req_recycle(p, r);
	}
	if (client_connected(p->c))
		return 0;
	if (client_reconnect(p->c) == -1) {
		e = errno;
		p->dead = 1;
		prod_fail_all(p, -e);
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * Everything that needs no waiting: retry, seal lingered batches, send,
 * and, when pump is set, one non-blocking round of I/O (a caller about to
 * wait on the socket anyway passes 0: the round would cost a poll(2) for
 * an answer that cannot have come yet).
 */
static int
prod_service(struct flume_producer *p, int64_t now, int pump)
{
	struct prod_batch *b;
	struct prod_req *r;

	if (p->dead) {
		errno = ENOTCONN;
		return -1;
	}
	if (p->reinit && prod_idem_restart(p) == -1 && p->dead)
		return -1;
	if ((p->need_retry || (!client_connected(p->c) &&
	    (!TAILQ_EMPTY(&p->sendq) || p->ninflight > 0))) &&
	    prod_retry(p) == -1)
		return -1;
	/*
	 * A broker that stops answering: drop the connection, which fails
	 * the requests in flight, and send them again on a new one.
	 */
	if ((r = TAILQ_FIRST(&p->inflight)) != NULL && now - r->sent_ms >
	    (int64_t)p->conf.timeout_ms + p->c->conf.request_timeout_ms) {
		client_seterr(p->c, "produce request timed out");
		client_disconnect(p->c, ETIMEDOUT);
		if (prod_retry(p) == -1)
			return -1;
	}
	while ((b = TAILQ_FIRST(&p->openq)) != NULL &&
	    now - b->opened_ms >= p->conf.linger_ms)
		prod_seal(p, b);
	if (prod_send(p) == -1)
		return -1;
	if (!pump)
		return 0;
	if (client_connected(p->c) && (client_unsent(p->c) > 0 ||
	    client_waiting(p->c) > 0))
		(void)client_pump(p->c, 0);
	if (p->need_retry && prod_retry(p) == -1)
		return -1;
	return prod_send(p);
}

/*
 * Whether flume_produce() must run prod_service() now: something can be
 * sent, a batch lingered out, the connection needs care, or it is time
 * to read acknowledgements.
 */
static int
prod_service_due(const struct flume_producer *p, int64_t now)
{
	const struct prod_batch *b;

	if (p->need_retry || !client_connected(p->c) ||
	    (p->next_seq & (PROD_POLL_EVERY - 1)) == 0)
		return 1;
	if (!TAILQ_EMPTY(&p->sendq) &&
	    (p->conf.acks == 0 || p->ninflight < p->conf.max_inflight))
		return 1;
	b = TAILQ_FIRST(&p->openq);
	return b != NULL && now - b->opened_ms >= p->conf.linger_ms;
}

int
flume_producer_poll(struct flume_producer *p, int timeout_ms)
{
	struct prod_batch *b;
	int64_t now = client_now_ms(), wait = timeout_ms;

	if (prod_service(p, now, 1) == -1)
		return -1;
	if ((b = TAILQ_FIRST(&p->openq)) != NULL &&
	    b->opened_ms + p->conf.linger_ms - now < wait)
		wait = b->opened_ms + p->conf.linger_ms - now;
	if (wait < 0)
		wait = 0;
	if (client_connected(p->c) && (client_unsent(p->c) > 0 ||
	    client_waiting(p->c) > 0))
		(void)client_pump(p->c, (int)wait);
	return prod_service(p, client_now_ms(), 1);
}

/*
 * Ask METADATA for t's partition count again; a count that grew widens
 * t (new partitions: no open batch, sequences from 0).  A failed ask
 * keeps what t has: the sends go on over the count known.
 */
static void
prod_topic_refresh(struct flume_producer *p, struct prod_topic *t,
    int64_t now)
{
	struct flume_metadata *md;
	struct prod_batch **no;
	int32_t *ns, n;
	const char *name = t->name;

	t->checked_ms = now;
	if (flume_metadata(p->c, &name, 1, 0, &md) == -1)
		return;
	n = md->topic_count == 1 && md->topics[0].error == 0 ?
	    md->topics[0].partition_count : 0;
	flume_metadata_free(md);
	if (n <= t->nparts)
		return;
	if ((no = reallocarray(t->open, (size_t)n, sizeof(*no))) != NULL)
		t->open = no;
	if ((ns = reallocarray(t->seq, (size_t)n, sizeof(*ns))) != NULL)
		t->seq = ns;
	if (no == NULL || ns == NULL)
		return;
	memset(t->open + t->nparts, 0, (size_t)(n - t->nparts) * sizeof(*no));
	memset(t->seq + t->nparts, 0, (size_t)(n - t->nparts) * sizeof(*ns));
	t->nparts = n;
}

/*
 * The producer's topic record for name, looked up (and created) via
 * METADATA, its count asked again every PROD_TOPIC_REFRESH_MS.  now is
 * the caller's clock: one more clock_gettime per record cost the
 * 100-byte produce bench 10% of its rate.
 */
static struct prod_topic *
prod_topic_get(struct flume_producer *p, const char *name, int64_t now)
{
	struct flume_metadata *md;
	struct prod_topic *t, **nt;
	size_t i;

	for (i = 0; i < p->ntopics; i++)
		if (strcmp(p->topics[i]->name, name) == 0) {
			t = p->topics[i];
			if (now - t->checked_ms >= PROD_TOPIC_REFRESH_MS)
				prod_topic_refresh(p, t, now);
			return t;
		}
	if (flume_metadata(p->c, &name, 1, p->conf.auto_create, &md) == -1)
		return NULL;
	if (md->topic_count != 1 || md->topics[0].error != 0 ||
	    md->topics[0].partition_count <= 0) {
		if (md->topic_count == 1 && md->topics[0].error != 0)
			client_broker_fail(p->c, md->topics[0].error, name);
		else
			client_broker_fail(p->c, ERR_UNKNOWN_TOPIC_OR_PARTITION,
			    name);
		flume_metadata_free(md);
		return NULL;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL ||
	    (t->name = strdup(name)) == NULL ||
	    (t->open = calloc((size_t)md->topics[0].partition_count,
	    sizeof(*t->open))) == NULL ||
	    (t->seq = calloc((size_t)md->topics[0].partition_count,
	    sizeof(*t->seq))) == NULL ||
	    (nt = reallocarray(p->topics, p->ntopics + 1, sizeof(*nt))) == NULL) {
		if (t != NULL) {
			free(t->name);
			free(t->open);
			free(t->seq);
		}
		free(t);
		flume_metadata_free(md);
		client_seterr(p->c, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	t->nparts = md->topics[0].partition_count;
	t->checked_ms = now;
	/* Spread keyless records of many producers over the partitions. */
	t->sticky = (int32_t)((uint32_t)(client_now_ms() ^ (int64_t)(uintptr_t)t) %
	    (uint32_t)t->nparts);
	flume_metadata_free(md);
	p->topics = nt;
	p->topics[p->ntopics++] = t;
	return t;
}

/* A fresh (recycled) batch for t/partition, put on openq. */
static struct prod_batch *
prod_open(struct flume_producer *p, struct prod_topic *t, int32_t partition,
    int64_t now)
{
	struct prod_batch *b;

	if ((b = TAILQ_FIRST(&p->freeb)) != NULL)
		TAILQ_REMOVE(&p->freeb, b, link);
	else {
		if ((b = calloc(1, sizeof(*b))) == NULL)
			return NULL;
		batch_builder_init(&b->bb);
	}
	b->topic = t;
	b->partition = partition;
	b->opened_ms = now;
	b->nseq = 0;
	b->sends = 0;
	b->bytes = NULL;
	b->pid = -1;
	t->open[partition] = b;
	TAILQ_INSERT_TAIL(&p->openq, b, link);
	return b;
}

static int64_t
prod_wallclock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * flume_produce and flume_produce_ref: append one message, by_ref when
 * its value may stay the caller's (see flume.h for when it is copied).
 */
static int
prod_add(struct flume_producer *p, const char *topic, int32_t partition,
    const void *key, int32_t key_len, const void *value, int32_t value_len,
    uint64_t *seq, int by_ref)
{
	struct prod_topic *t;
	struct prod_batch *b;
	uint64_t *ns;
	size_t recsize, ncap;
	int64_t now;
	int32_t part;
	int tries, rc;

	if (p->dead) {
		errno = ENOTCONN;
		return -1;
	}
	if (key_len < -1 || value_len < -1 || (key == NULL && key_len > 0) ||
	    (value == NULL && value_len > 0)) {
		client_seterr(p->c, "bad key or value length");
		errno = EINVAL;
		return -1;
	}
	now = client_now_ms();
	if ((t = prod_topic_get(p, topic, now)) == NULL)
		return -1;
	if (partition != FLUME_PARTITION_ANY &&
	    (partition < 0 || partition >= t->nparts)) {
		client_seterr(p->c, "partition %d out of range: %s has %d",
		    (int)partition, topic, (int)t->nparts);
		errno = EINVAL;
		return -1;
	}
	recsize = batch_builder_record_size(key_len, value_len, NULL, 0);
	if (recsize > p->conf.max_request_bytes - BATCH_HEADER_SIZE &&
	    recsize > p->conf.batch_bytes) {
		client_seterr(p->c, "message of %zu bytes is larger than a "
		    "request may be", recsize);
		errno = EMSGSIZE;
		return -1;
	}
	for (tries = 0; ; tries++) {
		if (partition != FLUME_PARTITION_ANY)
			part = partition;
		else if (key != NULL)
			part = flume_partition_for_key(key, (size_t)key_len,
			    t->nparts);
		else
			part = t->sticky;
		b = t->open[part];
		/* Full: seal it (a keyless record then moves on). */
		if (b != NULL && b->bb.count > 0 && tries <= t->nparts &&
		    batch_builder_size(&b->bb) + recsize > p->conf.batch_bytes) {
			prod_seal(p, b);
			continue;
		}
		break;
	}
	if (b == NULL && (b = prod_open(p, t, part, now)) == NULL)
		goto nomem;
	if (b->nseq == b->seqcap) {
		ncap = b->seqcap ? b->seqcap * 2 : 64;
		if ((ns = reallocarray(b->seqs, ncap, sizeof(*ns))) == NULL)
			goto nomem;
		b->seqs = ns;
		b->seqcap = ncap;
	}
	/* Referencing a short value costs more than copying it. */
	if (by_ref && value_len >= FLUME_PRODUCE_REF_MIN &&
	    p->conf.compression == COMPRESS_NONE)
		rc = batch_builder_add_ref(&b->bb, prod_wallclock_ms(), key,
		    key_len, value, value_len, NULL, 0);
	else
		rc = batch_builder_add(&b->bb, prod_wallclock_ms(), key,
		    key_len, value, value_len, NULL, 0);
	if (rc == -1) {
		client_seterr(p->c, "cannot add record: %s", strerror(errno));
		return -1;
	}
	b->seqs[b->nseq++] = p->next_seq;
	if (seq != NULL)
		*seq = p->next_seq;
	p->next_seq++;
	p->pending++;
	if (batch_builder_size(&b->bb) >= p->conf.batch_bytes)
		prod_seal(p, b);
	if (prod_service_due(p, now) && prod_service(p, now, 1) == -1)
		return 0;	/* queued; its report carries the failure */
	/* Backpressure: bounded, since each round waits for the socket. */
	while (p->buffered > p->conf.buffer_bytes && !p->dead)
		if (flume_producer_poll(p, 100) == -1)
			break;
	return 0;
nomem:
	client_seterr(p->c, "out of memory");
	errno = ENOMEM;
	return -1;
}

int
flume_produce(struct flume_producer *p, const char *topic, int32_t partition,
    const void *key, int32_t key_len, const void *value, int32_t value_len,
    uint64_t *seq)
{
	return prod_add(p, topic, partition, key, key_len, value, value_len,
	    seq, 0);
}

int
flume_produce_ref(struct flume_producer *p, const char *topic,
    int32_t partition, const void *key, int32_t key_len, const void *value,
    int32_t value_len, uint64_t *seq)
{
	return prod_add(p, topic, partition, key, key_len, value, value_len,
	    seq, 1);
}

int
flume_producer_flush(struct flume_producer *p, int timeout_ms)
{
	struct prod_batch *b;
	int64_t deadline = client_now_ms() + timeout_ms, left, now;

	while ((b = TAILQ_FIRST(&p->openq)) != NULL)
		prod_seal(p, b);
	for (;;) {
		now = client_now_ms();
		left = timeout_ms < 0 ? 100 : deadline - now;
		/*
		 * A round of I/O here only when no wait follows: client_pump()
		 * below writes, then waits, in one poll(2) per answer.
		 */
		if (prod_service(p, now, left <= 0) == -1 && p->dead)
			break;
		if (p->pending == 0 && client_unsent(p->c) == 0)
			break;
		if (left <= 0) {
			client_seterr(p->c, "flush timed out with %llu messages "
			    "unacknowledged", (unsigned long long)p->pending);
			errno = ETIMEDOUT;
			return -1;
		}
		if (client_connected(p->c))
			(void)client_pump(p->c, (int)(left > 100 ? 100 : left));
	}
	if (p->failed > 0 || p->pending > 0) {
		errno = p->dead ? ENOTCONN : EIO;
		return -1;
	}
	return 0;
}
