/*
 * libflume consumer: fetch subscribed partitions with long-polling FETCH
 * requests and hand out their records one at a time, in offset order per
 * partition.
 *
 * One FETCH covers every subscribed partition.  Its response is copied
 * once into a buffer the consumer keeps (the frame reader's copy goes away
 * at the next read), and messages handed out point into it, so there is
 * no allocation per message.  Every batch's CRC and records are validated
 * before any of its records is trusted; records below the partition's
 * next offset (a fetch may start mid-batch) are skipped.
 *
 * Transactions: control batches (markers) are never handed out.  With a
 * broker of protocol version 3 a consumer reads read_committed unless
 * told otherwise (flume_consumer_set_isolation()): the broker stops at
 * the last stable offset and lists the aborted transactions of each
 * range, and the batches of those are skipped as Kafka's consumers do:
 * a producer's aborted transaction becomes active at its first offset
 * and ends at its ABORT marker.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libflume_int.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/ctrl.h"
#include "proto/msg.h"

/* The total max_bytes one FETCH asks for. */
#define CONS_FETCH_MAX		(64 * 1024 * 1024)

struct cons_part {
	const char	*topic;		/* one of k->topics */
	int32_t		 partition;
	int64_t		 next;
	int64_t		 log_start;
	int64_t		 hw;
	int64_t		 stable;	/* last stable offset (version 3), else hw */
	int32_t		 max_bytes;
};

struct flume_consumer {
	struct flume_client	*c;
	struct flume_consumer_conf conf;
	char			**topics;
	size_t			 ntopics;
	struct cons_part	*parts;
	size_t			 nparts;
	struct fetch_part	*fparts;	/* reused for encoding */

	/* The FETCH in flight. */
	int			 fetch_done;
	int			 fetch_err;
	uint8_t			*resp;
	size_t			 resp_len, resp_cap;

	/* The response being handed out. */
	struct arena		 arena;
	struct fetch_resp	 fr;
	int			 have;
	int32_t			 ri;		/* result index */
	const uint8_t		*rp, *rend;	/* batches left in result ri */
	int			 progressed;	/* a whole batch seen in ri */
	struct batch_iter	 it;
	int			 in_batch;
	int64_t			 batch_last;
	struct compress_buf	 z;		/* the current batch, inflated */

	int			 isolation;	/* FLUME_READ_*; default committed */
	int			 v3;		/* the FETCH in hand is version 3's */
	/* The current result's aborted transactions, by first offset. */
	struct fetch_aborted	*ab;
	int32_t			 nab, abi;	/* count, next not yet active */
	int64_t			*active;	/* producers inside an aborted one */
	int32_t			 nactive;
};

void
flume_consumer_conf_init(struct flume_consumer_conf *conf)
{
	conf->max_wait_ms = 500;
	conf->min_bytes = 1;
	conf->max_bytes = 1024 * 1024;
}

struct flume_consumer *
flume_consumer_new(struct flume_client *c, const struct flume_consumer_conf *conf)
{
	struct flume_consumer *k;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		return NULL;
	k->c = c;
	k->isolation = FLUME_READ_COMMITTED;
	compress_buf_init(&k->z, COMPRESS_LIMIT_MAX);
	if (conf != NULL)
		k->conf = *conf;
	else
		flume_consumer_conf_init(&k->conf);
	if (k->conf.max_wait_ms < 0)
		k->conf.max_wait_ms = 0;
	if (k->conf.min_bytes < 0)
		k->conf.min_bytes = 0;
	if (k->conf.max_bytes < 1024)
		k->conf.max_bytes = 1024;
	arena_init(&k->arena, 64 * 1024 * 1024);
	return k;
}

void
flume_consumer_free(struct flume_consumer *k)
{
	size_t i;

	if (k == NULL)
		return;
	/* A FETCH in flight points at k. */
	if (!k->fetch_done && client_waiting(k->c) > 0)
		client_disconnect(k->c, ECONNABORTED);
	for (i = 0; i < k->ntopics; i++)
		free(k->topics[i]);
	free(k->topics);
	free(k->parts);
	free(k->fparts);
	free(k->resp);
	compress_buf_free(&k->z);
	arena_free(&k->arena);
	free(k);
}

/* k's copy of topic (added when new); NULL on ENOMEM. */
static const char *
cons_topic(struct flume_consumer *k, const char *topic)
{
	char **nt, *s;
	size_t i;

	for (i = 0; i < k->ntopics; i++)
		if (strcmp(k->topics[i], topic) == 0)
			return k->topics[i];
	if ((s = strdup(topic)) == NULL)
		return NULL;
	if ((nt = reallocarray(k->topics, k->ntopics + 1, sizeof(*nt))) == NULL) {
		free(s);
		return NULL;
	}
	k->topics = nt;
	k->topics[k->ntopics++] = s;
	return s;
}

static struct cons_part *
cons_find(const struct flume_consumer *k, const char *topic, int32_t partition)
{
	size_t i;

	for (i = 0; i < k->nparts; i++)
		if (k->parts[i].partition == partition &&
		    strcmp(k->parts[i].topic, topic) == 0)
			return &k->parts[i];
	return NULL;
}

int
flume_consumer_subscribe(struct flume_consumer *k, const char *topic,
    int32_t partition, int64_t offset)
{
	struct flume_metadata *md = NULL;
	struct list_offsets_part *lo = NULL;
	struct cons_part *np, *cp;
	struct fetch_part *nf;
	const char *name;
	int64_t *res = NULL;
	int32_t first, n, i;
	int rc = -1, stable;

	if (offset < FLUME_OFFSET_BEGINNING) {
		client_seterr(k->c, "bad start offset %lld", (long long)offset);
		errno = EINVAL;
		return -1;
	}
	/* A new subscription starts a new fetch: drop what is being handed out. */
	k->have = 0;
	k->in_batch = 0;
	if (flume_metadata(k->c, &topic, 1, 0, &md) == -1)
		return -1;
	if (md->topic_count != 1 || md->topics[0].error != 0) {
		client_broker_fail(k->c, md->topic_count == 1 ?
		    md->topics[0].error : ERR_UNKNOWN_TOPIC_OR_PARTITION, topic);
		goto done;
	}
	n = md->topics[0].partition_count;
	if (partition != FLUME_PARTITION_ANY && (partition < 0 || partition >= n)) {
		client_seterr(k->c, "%s: partition %d out of range (%d partitions)",
		    topic, (int)partition, (int)n);
		errno = ENOENT;
		goto done;
	}
	first = partition == FLUME_PARTITION_ANY ? 0 : partition;
	if (partition != FLUME_PARTITION_ANY)
		n = 1;
	if (n <= 0) {
		client_broker_fail(k->c, ERR_UNKNOWN_TOPIC_OR_PARTITION, topic);
		goto done;
	}
	if ((name = cons_topic(k, topic)) == NULL ||
	    (lo = calloc((size_t)n * 3, sizeof(*lo))) == NULL ||
	    (res = calloc((size_t)n * 3, sizeof(*res))) == NULL ||
	    (np = reallocarray(k->parts, k->nparts + (size_t)n,
	    sizeof(*np))) == NULL)
		goto nomem;
	k->parts = np;
	if ((nf = reallocarray(k->fparts, k->nparts + (size_t)n,
	    sizeof(*nf))) == NULL)
		goto nomem;
	k->fparts = nf;
	/* Read committed, the end is the last stable offset (version 3). */
	stable = k->c->proto_version >= 3 && k->isolation == FLUME_READ_COMMITTED;
	for (i = 0; i < 3 * n; i++) {
		lo[i].topic = name;
		lo[i].topic_len = strlen(name);
		lo[i].partition = first + i / 3;
		lo[i].which = i % 3 == 0 ? OFFSET_EARLIEST : i % 3 == 1 ||
		    !stable ? OFFSET_LATEST : OFFSET_LAST_STABLE;
	}
	if (client_list_offsets(k->c, lo, n * 3, res) == -1)
		goto done;
	for (i = 0; i < n; i++) {
		if ((cp = cons_find(k, name, first + i)) == NULL) {
			cp = &k->parts[k->nparts++];
			cp->topic = name;
			cp->partition = first + i;
			cp->max_bytes = k->conf.max_bytes;
		}
		cp->log_start = res[3 * i];
		cp->hw = res[3 * i + 1];
		cp->stable = res[3 * i + 2];
		if (offset == FLUME_OFFSET_BEGINNING)
			cp->next = cp->log_start;
		else if (offset == FLUME_OFFSET_END)
			cp->next = cp->stable;
		else
			cp->next = offset < cp->log_start ? cp->log_start :
			    offset > cp->hw ? cp->hw : offset;
	}
	rc = 0;
	goto done;
nomem:
	client_seterr(k->c, "out of memory");
	errno = ENOMEM;
done:
	flume_metadata_free(md);
	free(lo);
	free(res);
	return rc;
}

int
flume_consumer_at_end(const struct flume_consumer *k)
{
	size_t i;

	for (i = 0; i < k->nparts; i++)
		if (k->parts[i].next < k->parts[i].stable)
			return 0;
	return 1;
}

int
flume_consumer_buffered(const struct flume_consumer *k)
{
	int32_t i;

	if (!k->have)
		return 0;
	/* More records of this batch, more batches of this partition ... */
	if ((k->in_batch && k->it.remaining > 0) ||
	    (k->rp != NULL && k->rp < k->rend))
		return 1;
	/* ... or a later partition of the answer with records (or an error). */
	for (i = k->ri + 1; i < k->fr.count; i++)
		if (k->fr.results[i].records_len > 0 ||
		    k->fr.results[i].error != ERR_NONE)
			return 1;
	return 0;
}

int64_t
flume_consumer_position(const struct flume_consumer *k, const char *topic,
    int32_t partition)
{
	const struct cons_part *cp = cons_find(k, topic, partition);

	return cp == NULL ? -1 : cp->next;
}

/* FETCH response handler: keep a copy for cons_next() to walk. */
static int
cons_fetch_fn(struct flume_client *c, void *ctx, const uint8_t *payload,
    size_t len, int err)
{
	struct flume_consumer *k = ctx;
	uint8_t *nb;

	k->fetch_done = 1;
	if (err != 0) {
		k->fetch_err = err;
		return 0;
	}
	if (len > k->resp_cap) {
		if ((nb = realloc(k->resp, len)) == NULL) {
			k->fetch_err = ENOMEM;
			return 0;
		}
		k->resp = nb;
		k->resp_cap = len;
	}
	memcpy(k->resp, payload, len);
	k->resp_len = len;
	return 0;
}

int
flume_consumer_set_isolation(struct flume_consumer *k, int isolation)
{
	if (isolation != FLUME_READ_COMMITTED &&
	    isolation != FLUME_READ_UNCOMMITTED) {
		errno = EINVAL;
		return -1;
	}
	k->isolation = isolation;
	return 0;
}

static int
ab_cmp(const void *a, const void *b)
{
	const struct fetch_aborted *x = a, *y = b;

	return x->first_offset < y->first_offset ? -1 :
	    x->first_offset > y->first_offset;
}

static int
active_has(const struct flume_consumer *k, int64_t pid)
{
	int32_t i;

	for (i = 0; i < k->nactive; i++)
		if (k->active[i] == pid)
			return 1;
	return 0;
}

/*
 * read_committed: should the batch h (not a control batch) be skipped?
 * The aborted transactions that start at or before its last offset
 * become active first.
 */
static int
txn_skip(struct flume_consumer *k, const struct batch_header *h)
{
	int64_t last = h->base_offset + h->last_offset_delta;

	while (k->abi < k->nab && k->ab[k->abi].first_offset <= last) {
		if (!active_has(k, k->ab[k->abi].producer_id))
			k->active[k->nactive++] = k->ab[k->abi].producer_id;
		k->abi++;
	}
	return (h->attributes & BATCH_ATTR_TRANSACTIONAL) &&
	    active_has(k, h->producer_id);
}

/* A control batch: an ABORT marker ends its producer's aborted transaction. */
static void
txn_marker(struct flume_consumer *k, const uint8_t *b, size_t len,
    const struct batch_header *h)
{
	struct ctrl_marker m;
	int32_t i;

	if (ctrl_marker_parse(b, len, &m) != 1 || m.type != CTRL_ABORT)
		return;
	for (i = 0; i < k->nactive; i++)
		if (k->active[i] == h->producer_id) {
			k->active[i] = k->active[--k->nactive];
			return;
		}
}

/*
 * Send one FETCH for every partition and wait for its answer; 0 with the
 * response decoded into k->fr, or -1.  A lost connection is re-established
 * here and the fetch sent again from the next offsets.
 */
static int
cons_fetch(struct flume_consumer *k, int max_wait_ms)
{
	struct fetch_req req;
	size_t i, start, total;
	uint32_t id;
	int64_t deadline, left;
	int attempt;

	for (i = 0; i < k->nparts; i++) {
		k->fparts[i].topic = k->parts[i].topic;
		k->fparts[i].topic_len = strlen(k->parts[i].topic);
		k->fparts[i].partition = k->parts[i].partition;
		k->fparts[i].offset = k->parts[i].next;
		k->fparts[i].max_bytes = k->parts[i].max_bytes;
	}
	total = k->nparts * (size_t)k->conf.max_bytes;
	req.max_wait_ms = max_wait_ms;
	req.min_bytes = k->conf.min_bytes;
	req.max_bytes = total > CONS_FETCH_MAX ? CONS_FETCH_MAX : (int32_t)total;
	req.count = (int32_t)k->nparts;
	req.parts = k->fparts;
	req.isolation = k->isolation == FLUME_READ_UNCOMMITTED ?
	    FETCH_READ_UNCOMMITTED : FETCH_READ_COMMITTED;
	for (attempt = 0; attempt < 3; attempt++) {
		if (!client_connected(k->c) && client_reconnect(k->c) == -1)
			return -1;
		k->fetch_done = 0;
		k->fetch_err = 0;
		start = client_begin(k->c, API_FETCH, &id);
		/* A reconnect may have met another broker: its version. */
		k->v3 = k->c->proto_version >= 3;
		(k->v3 ? msg_encode_fetch_req_v3 : msg_encode_fetch_req)(
		    &k->c->out, &req);
		if (client_end(k->c, start, id, cons_fetch_fn, k) == -1)
			return -1;
		deadline = client_now_ms() + max_wait_ms +
		    k->c->conf.request_timeout_ms;
		while (!k->fetch_done) {
			left = deadline - client_now_ms();
			if (left <= 0) {
				client_disconnect(k->c, ETIMEDOUT);
				break;
			}
			(void)client_pump(k->c, (int)(left > 1000 ? 1000 : left));
		}
		if (k->fetch_err == 0)
			break;
		if (k->fetch_err == ENOMEM) {
			client_seterr(k->c, "out of memory");
			errno = ENOMEM;
			return -1;
		}
	}
	if (k->fetch_err != 0) {
		errno = k->fetch_err;
		return -1;
	}
	arena_reset(&k->arena);
	if ((k->v3 ? msg_decode_fetch_resp_v3 : msg_decode_fetch_resp)(k->resp,
	    k->resp_len, &k->arena, &k->fr) == -1 ||
	    (k->fr.error == ERR_NONE && (size_t)k->fr.count != k->nparts)) {
		client_seterr(k->c, "malformed fetch response");
		client_disconnect(k->c, EPROTO);
		errno = EPROTO;
		return -1;
	}
	if (k->fr.error != ERR_NONE)
		return client_broker_fail(k->c, k->fr.error, "fetch");
	k->have = 1;
	k->ri = -1;
	k->rp = k->rend = NULL;
	k->in_batch = 0;
	return 0;
}

/* Start on result ri: its error, watermarks and records; 0 or -1. */
static int
cons_result(struct flume_consumer *k)
{
	const struct fetch_result *r = &k->fr.results[k->ri];
	struct cons_part *cp = &k->parts[k->ri];

	k->rp = k->rend = NULL;
	k->progressed = 0;
	k->nab = k->abi = k->nactive = 0;
	if (r->error == ERR_OFFSET_OUT_OF_RANGE) {
		/* Retention moved the start, or we asked past the end: clamp. */
		cp->log_start = r->log_start;
		cp->hw = cp->stable = r->high_watermark;
		if (cp->next < cp->log_start)
			cp->next = cp->log_start;
		else if (cp->next > cp->hw)
			cp->next = cp->hw;
		return 0;
	}
	if (r->error == ERR_CORRUPT_MESSAGE &&
	    r->records_len == FETCH_CORRUPT_RECORDS) {
		/* [first i64][next i64]: the broker's view of the damage. */
		client_corrupt(k->c, cp->topic, cp->partition,
		    (int64_t)be64_get(r->records),
		    (int64_t)be64_get(r->records + 8));
		return -1;
	}
	if (r->error != ERR_NONE) {
		client_broker_fail(k->c, r->error, cp->topic);
		client_seterr(k->c, "%s/%d: %s", cp->topic, (int)cp->partition,
		    flume_strerror(r->error));
		return -1;
	}
	cp->log_start = r->log_start;
	cp->hw = r->high_watermark;
	cp->stable = k->v3 && k->isolation == FLUME_READ_COMMITTED ?
	    r->last_stable : r->high_watermark;
	k->rp = r->records;
	k->rend = r->records + r->records_len;
	if (k->v3 && r->naborted > 0) {
		/* In the arena, which lives as long as the response. */
		if ((k->active = arena_alloc(&k->arena, (size_t)r->naborted *
		    sizeof(*k->active))) == NULL) {
			client_seterr(k->c, "out of memory");
			errno = ENOMEM;
			return -1;
		}
		k->ab = r->aborted;
		k->nab = r->naborted;
		qsort(k->ab, (size_t)k->nab, sizeof(*k->ab), ab_cmp);
	}
	return 0;
}

/*
 * The next record of the current response at or past its partition's next
 * offset: 1 with *m, 0 when the response is used up, -1 on a corrupt batch.
 */
static int
cons_next(struct flume_consumer *k, struct flume_message *m)
{
	struct batch_header h;
	struct record rec;
	struct cons_part *cp;
	size_t left, total;
	int rc;

	while (k->have) {
		cp = k->ri >= 0 ? &k->parts[k->ri] : NULL;
		if (k->in_batch) {
			rc = batch_iter_next(&k->it, &rec);
			if (rc == 1) {
				if (rec.offset < cp->next)
					continue;
				m->topic = cp->topic;
				m->partition = cp->partition;
				m->offset = rec.offset;
				m->timestamp = rec.timestamp;
				m->key = rec.key_len >= 0 ? rec.key : NULL;
				m->key_len = rec.key_len;
				m->value = rec.value_len >= 0 ? rec.value : NULL;
				m->value_len = rec.value_len;
				cp->next = rec.offset + 1;
				return 1;
			}
			k->in_batch = 0;
			if (rc == -1)
				goto corrupt;
			if (k->batch_last + 1 > cp->next)
				cp->next = k->batch_last + 1;
			continue;
		}
		if (cp != NULL && k->rp < k->rend) {
			left = (size_t)(k->rend - k->rp);
			if (batch_parse_header(k->rp, left, &h) != BATCH_OK ||
			    (total = batch_total_size(&h)) > left) {
				/*
				 * A batch cut short by max_bytes: if it is the
				 * first, it alone is larger than we asked for.
				 */
				if (!k->progressed && cp->max_bytes < INT32_MAX / 2)
					cp->max_bytes *= 2;
				k->rp = k->rend;
				continue;
			}
			k->progressed = 1;
			/*
			 * A compressed batch is inflated into k->z, which
			 * the record pointers handed out then point into.
			 */
			if ((rc = batch_validate_z(k->rp, total, NULL,
			    &k->z)) != BATCH_OK) {
				/*
				 * Damage the broker's header checks cannot see
				 * (records, CRC): the range is this batch, as
				 * far as its header tells.
				 */
				client_corrupt(k->c, cp->topic, cp->partition,
				    h.base_offset, h.last_offset_delta >= 0 ?
				    h.base_offset + h.last_offset_delta + 1 :
				    h.base_offset + 1);
				k->have = 0;
				return -1;
			}
			k->batch_last = h.base_offset + h.last_offset_delta;
			/* Markers, and read_committed's aborted data: passed over. */
			if ((h.attributes & BATCH_ATTR_CONTROL) ||
			    (k->nab > 0 && txn_skip(k, &h))) {
				if (h.attributes & BATCH_ATTR_CONTROL)
					txn_marker(k, k->rp, total, &h);
				if (k->batch_last + 1 > cp->next)
					cp->next = k->batch_last + 1;
				k->rp += total;
				continue;
			}
			if (k->batch_last >= cp->next &&
			    batch_iter_init_z(&k->it, k->rp, total, &k->z) ==
			    BATCH_OK)
				k->in_batch = 1;
			k->rp += total;
			continue;
		}
		if (++k->ri >= k->fr.count) {
			k->have = 0;
			return 0;
		}
		if (cons_result(k) == -1) {
			k->have = 0;
			return -1;
		}
	}
	return 0;
corrupt:
	client_seterr(k->c, "%s/%d: corrupt record in batch ending at %lld",
	    cp->topic, (int)cp->partition, (long long)k->batch_last);
	errno = EBADMSG;
	k->have = 0;
	return -1;
}

int
consumer_next_buffered(struct flume_consumer *k, struct flume_message *m)
{
	return cons_next(k, m);
}

int
flume_consumer_poll(struct flume_consumer *k, struct flume_message *m,
    int timeout_ms)
{
	int64_t deadline = 0, left;
	int rc, wait, rounds;

	if (k->nparts == 0) {
		client_seterr(k->c, "nothing subscribed");
		errno = EINVAL;
		return -1;
	}
	/*
	 * Bounded: every round either long-polls or uses up a response.
	 * The clock is read only once the buffer is empty: a buffered
	 * message is handed out without it.
	 */
	for (rounds = 0; ; rounds++) {
		if ((rc = cons_next(k, m)) != 0)
			return rc;
		if (rounds == 0) {
			left = timeout_ms > 0 ? timeout_ms : 0;
			deadline = client_now_ms() + left;
		} else
			left = deadline - client_now_ms();
		if (rounds > 0 && left <= 0)
			return 0;
		wait = k->conf.max_wait_ms;
		if (left < wait)
			wait = left > 0 ? (int)left : 0;
		if (cons_fetch(k, wait) == -1)
			return -1;
	}
}
