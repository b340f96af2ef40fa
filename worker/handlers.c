/*
 * The operations both protocols share: handshake, metadata (with
 * auto-create), create topic, produce (ring append, backpressure, acks,
 * dedup), fetch (long poll, sendfile), list offsets and workers.  Each
 * works on a decoded native request (r->dec) and leaves its answer in
 * r->st; the native table (worker/native/native.c) and the Kafka table
 * (worker/kafka*.c) decode into the same structs and encode the answers
 * their own way.  Decoded requests and per-request state live in the
 * connection's arena; the only resources held outside it are duplicated
 * segment file descriptors of a finished FETCH, handed to the output
 * queue on emit or closed by handle_fetch_release().
 *
 * Shared memory is read with the ordering the writer publishes with:
 * visible_offset, durable_offset and log_start are acquire loads.
 *
 * The log end a client sees (METADATA log_end, LIST_OFFSETS latest, the
 * FETCH high watermark) is next_offset: everything acknowledged, even
 * what is still in the ring.  A FETCH is served only up to
 * visible_offset (what the writer has put in the files) and waits for
 * the rest, so a consumer that reads to the end right after an acks=1
 * produce sees that produce.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "shm/ring.h"
#include "shm/topics.h"
#include "store/plog.h"
#include "store/topic.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/handlers.h"
#include "worker/inflate.h"
#include "worker/native/native.h"
#include "worker/op/part.h"
#include "worker/produce_dedup.h"
#include "worker/stats.h"
#include "worker/timelookup.h"
#include "shm/stats.h"
#include "proto/version.h"

#define PRODUCE_DEFAULT_TIMEOUT	30000	/* ms, when the request gives none */

/* Per-partition state of a PRODUCE being executed. */
struct produce_st {
	struct produce_result	*res;
	struct shm_partition	**parts;	/* NULL: answered with res[i].error */
	int64_t			*next;		/* offset after the appended batches */
	uint32_t		*inc;		/* parts[i]'s incarnation when resolved */
	int32_t			 cur;		/* next part to append */
	int			 appended;	/* validation done, appending */
};

/* Per-partition state of a FETCH. */
struct fetch_slot {
	int16_t			 error;
	int64_t			 log_start;
	int64_t			 hwm;		/* acknowledged end (next_offset) */
	int64_t			 nrec;		/* records in the batches of [pos, pos+len) */
	int64_t			 visible;	/* readable end (visible_offset) */
	struct shm_partition	*p;
	uint32_t		 inc;		/* p's incarnation when resolved */
	int			 fd;		/* dup of the segment fd, or -1 */
	off_t			 pos;
	size_t			 len;
	int64_t			 bad_first;	/* CORRUPT_MESSAGE: the range */
	int64_t			 bad_next;	/* first readable offset after it */
};


struct fetch_st {
	struct fetch_slot	*s;
	int32_t			 n;
	int64_t			 total;
};

int
handlers_init(struct worker *w)
{
	w->nreaders = w->shm->hdr->limits.max_partitions;
	w->readers = calloc(w->nreaders ? w->nreaders : 1, sizeof(*w->readers));
	w->reader_inc = calloc(w->nreaders ? w->nreaders : 1,
	    sizeof(*w->reader_inc));
	return w->readers == NULL || w->reader_inc == NULL ? -1 : 0;
}

void
handlers_fini(struct worker *w)
{
	uint32_t i;

	for (i = 0; i < w->nreaders; i++)
		if (w->readers[i] != NULL)
			plog_reader_close(w->readers[i]);
	free(w->readers);
	free(w->reader_inc);
	w->readers = NULL;
	w->reader_inc = NULL;
	w->nreaders = 0;
}

static void
req_done(struct req *r, int16_t error)
{
	r->error = error;
	r->state = REQ_DONE;
}

/*
 * The operations' lookups in native error codes, until this file's
 * operations move to worker/op/.
 */
#define part_end(p)	op_part_end(p)
#define part_gone(p, inc) op_part_gone((p), (inc))

static int16_t
topic_resolve(struct worker *w, const char *name, size_t len, int create,
    int *tidx)
{
	return native_error(op_topic_resolve(w, name, len, create, tidx));
}

static int16_t
part_resolve(struct worker *w, const char *name, size_t len, int32_t partition,
    int create, struct shm_partition **pp)
{
	return native_error(op_part_resolve(w, name, len, partition, create,
	    pp));
}

static int16_t
part_incarnation(struct worker *w, struct shm_partition *p, uint32_t *inc)
{
	return native_error(op_part_incarnation(w, p, inc));
}

/* NUL-terminated copy of a wire name that passed topic_name_valid(). */
static void
name_copy(char *dst, const char *s, size_t len)
{
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* ---- HANDSHAKE ---- */

void
handle_handshake(struct worker *w, struct conn *c, struct req *r)
{
	const struct handshake_req *q = r->dec;
	struct handshake_resp *s;

	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	s->error = q->version < 1 ? ERR_UNSUPPORTED_VERSION : ERR_NONE;
	if (s->error == ERR_NONE)
		c->handshaken = 1;
	s->version = FLUME_PROTOCOL_VERSION;
	s->max_frame = (int32_t)(w->conf->max_request_bytes > INT32_MAX ?
	    INT32_MAX : w->conf->max_request_bytes);
	s->broker = FLUME_BROKER_NAME;
	s->broker_len = sizeof(FLUME_BROKER_NAME) - 1;
	r->st = s;
	req_done(r, ERR_NONE);
}

/* ---- METADATA ---- */

static int
topic_info_fill(struct worker *w, struct conn *c, int idx, struct topic_info *ti)
{
	const struct shm_topic *t = &w->shm->topics[idx];
	struct shm_partition *p;
	int32_t i;

	ti->error = ERR_NONE;
	ti->name = t->name;
	ti->name_len = t->name_len;
	ti->count = t->partitions;
	if (ti->count <= 0) {
		ti->count = 0;
		ti->partitions = NULL;
		return 0;
	}
	ti->partitions = conn_alloc(c, (size_t)ti->count * sizeof(*ti->partitions));
	if (ti->partitions == NULL)
		return -1;
	for (i = 0; i < ti->count; i++) {
		p = shm_partition(w->shm, idx, i);
		ti->partitions[i].partition = i;
		ti->partitions[i].log_start = atomic_load_explicit(&p->log_start,
		    memory_order_acquire);
		ti->partitions[i].log_end = part_end(p);
		ti->partitions[i].size_bytes = (int64_t)atomic_load_explicit(
		    &p->log_bytes, memory_order_relaxed);
	}
	return 0;
}

void
handle_metadata(struct worker *w, struct conn *c, struct req *r)
{
	const struct metadata_req *q = r->dec;
	struct metadata_resp *s;
	struct topic_info *ti;
	uint32_t i, n;
	int32_t k;
	char *name;
	int idx;

	if ((s = conn_alloc(c, sizeof(*s))) == NULL)
		goto nomem;
	memset(s, 0, sizeof(*s));
	r->st = s;
	if (q->count == 0) {
		n = atomic_load_explicit(&w->shm->hdr->topic_count,
		    memory_order_acquire);
		if (n > w->shm->hdr->limits.max_topics)
			n = w->shm->hdr->limits.max_topics;
		if (n > 0 && (s->topics = conn_alloc(c, n * sizeof(*ti))) == NULL)
			goto nomem;
		for (i = 0; i < n; i++) {
			if (atomic_load_explicit(&w->shm->topics[i].state,
			    memory_order_acquire) != TOPIC_READY)
				continue;
			if (!auth_may(c, AUTH_PRODUCE | AUTH_CONSUME | AUTH_ADMIN,
			    w->shm->topics[i].name, w->shm->topics[i].name_len))
				continue;
			if (topic_info_fill(w, c, (int)i, &s->topics[s->count]) == -1)
				goto nomem;
			s->count++;
		}
		req_done(r, ERR_NONE);
		return;
	}
	if ((s->topics = conn_alloc(c, (size_t)q->count * sizeof(*ti))) == NULL)
		goto nomem;
	for (k = 0; k < q->count; k++) {
		ti = &s->topics[k];
		memset(ti, 0, sizeof(*ti));
		idx = -1;
		ti->error = auth_topic(c, AUTH_PRODUCE | AUTH_CONSUME | AUTH_ADMIN,
		    q->topics[k].s, q->topics[k].len, r->name);
		/* Creating a topic by naming it takes the right to produce to it. */
		if (ti->error == ERR_NONE)
			ti->error = topic_resolve(w, q->topics[k].s,
			    q->topics[k].len, q->auto_create && auth_may(c,
			    AUTH_PRODUCE, q->topics[k].s, q->topics[k].len), &idx);
		if (ti->error == ERR_NONE) {
			if (topic_info_fill(w, c, idx, ti) == -1)
				goto nomem;
		} else {
			/* The payload may move before this is answered. */
			if ((name = conn_alloc(c, q->topics[k].len + 1)) == NULL)
				goto nomem;
			memcpy(name, q->topics[k].s, q->topics[k].len);
			ti->name = name;
			ti->name_len = q->topics[k].len;
		}
	}
	s->count = q->count;
	req_done(r, ERR_NONE);
	return;
nomem:
	r->st = NULL;
	req_done(r, ERR_RESOURCE_LIMIT);
}

/* ---- PRODUCE ---- */

/*
 * Check every batch in records; a flume error code.  Compressed batches
 * are inflated into the worker's one buffer (worker/inflate.h).
 */
static int16_t
records_validate(const struct config *conf, const uint8_t *p, size_t len)
{
	struct compress_buf *z = inflate_scratch(conf);
	size_t off = 0, total;
	uint32_t blen;
	int rc;

	if (len == 0)
		return ERR_CORRUPT_MESSAGE;
	while (off < len) {
		if (len - off < BATCH_HEADER_SIZE)
			return ERR_CORRUPT_MESSAGE;
		blen = be32_get(p + off + BATCH_OFF_LENGTH);
		if (blen > len - off - BATCH_LOG_OVERHEAD)
			return ERR_CORRUPT_MESSAGE;
		total = BATCH_LOG_OVERHEAD + (size_t)blen;
		rc = batch_validate_z(p + off, total, NULL, z);
		if (rc == BATCH_ETOOBIG || rc == BATCH_EINFLATE ||
		    rc == BATCH_ENOMEM || rc == BATCH_ECOMPRESSION)
			log_warnx("produce: compressed batch refused: %s "
			    "(inflate limit %zu bytes)", batch_strerror(rc),
			    z->limit);
		if (rc == BATCH_ECOMPRESSION)
			return ERR_UNSUPPORTED_COMPRESSION;
		if (rc == BATCH_ETOOBIG)
			return ERR_MESSAGE_TOO_LARGE;
		if (rc == BATCH_ENOMEM)
			return ERR_RESOURCE_LIMIT;
		if (rc != BATCH_OK)
			return ERR_CORRUPT_MESSAGE;
		off += total;
	}
	return ERR_NONE;
}

/*
 * message_timestamp_type = log_append: every batch of records gets the
 * broker's time as its maxTimestamp and the LogAppendTime attribute bit,
 * and a new CRC-32C, before it reaches the ring (the batches were just
 * validated, so their lengths hold).  The records' own deltas stay as
 * the producer wrote them; readers take maxTimestamp as every record's.
 */
static void
produce_stamp(const struct config *conf, const struct produce_part *pp)
{
	const struct topic_config *t;
	char name[TOPIC_NAME_MAX + 1];
	uint8_t *p = (uint8_t *)(uintptr_t)pp->records;
	size_t off = 0, total, len = (size_t)pp->records_len;
	int64_t now;

	if (pp->topic_len > TOPIC_NAME_MAX)
		return;
	memcpy(name, pp->topic, pp->topic_len);
	name[pp->topic_len] = '\0';
	t = config_topic(conf, name);
	if (!(t != NULL ? t->log.log_append_time : conf->log.log_append_time))
		return;
	now = clock_real_ms();
	while (off < len) {
		total = BATCH_LOG_OVERHEAD +
		    (size_t)be32_get(p + off + BATCH_OFF_LENGTH);
		batch_set_log_append_time(p + off, total, now);
		off += total;
	}
}

static int16_t
produce_check(struct worker *w, struct conn *c, const struct produce_part *pp,
    const char *api, struct shm_partition **out)
{
	struct shm_partition *p = NULL;
	int16_t err;

	if ((err = auth_topic(c, AUTH_PRODUCE, pp->topic, pp->topic_len,
	    api)) !=
	    ERR_NONE)
		return err;
	/* Kafka: "Cannot append to internal topic" (INVALID_TOPIC_EXCEPTION). */
	if (topic_name_reserved(pp->topic, pp->topic_len))
		return ERR_INVALID_TOPIC;
	if ((err = part_resolve(w, pp->topic, pp->topic_len, pp->partition, 1,
	    &p)) != ERR_NONE)
		return err;
	if ((uint32_t)pp->records_len > w->conf->max_message_bytes)
		return ERR_MESSAGE_TOO_LARGE;
	if ((err = records_validate(w->conf, pp->records,
	    (size_t)pp->records_len)) != ERR_NONE)
		return err;
	produce_stamp(w->conf, pp);
	/*
	 * A resend of batches the partition has is answered with their
	 * offsets even now (for acks=all once they are durable): refusing
	 * it would report stored data as failed.
	 */
	if (atomic_load_explicit(&p->storage_error, memory_order_relaxed) != 0 &&
	    !produce_dedup_stored(w, p, pp->records, (size_t)pp->records_len))
		return ERR_STORAGE;
	*out = p;
	return ERR_NONE;
}

/* acks=all: every appended part durable?  Times out the rest. */
void
handle_produce_poll(struct worker *w, struct req *r)
{
	const struct produce_req *q = r->dec;
	struct produce_st *st = r->st;
	int32_t i;
	int waiting = 0;

	for (i = 0; i < q->count; i++) {
		if (st->parts[i] == NULL || st->res[i].error != ERR_NONE)
			continue;
		if (part_gone(st->parts[i], st->inc[i])) {
			st->res[i].error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
			st->parts[i] = NULL;
			continue;
		}
		if (atomic_load_explicit(&st->parts[i]->durable_offset,
		    memory_order_acquire) >= st->next[i]) {
			st->parts[i] = NULL;
			continue;
		}
		if (w->now >= r->deadline) {
			st->res[i].error = ERR_TIMEOUT;
			st->parts[i] = NULL;
			continue;
		}
		waiting = 1;
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

void
handle_produce(struct worker *w, struct conn *c, struct req *r)
{
	const struct produce_req *q = r->dec;
	struct produce_st *st = r->st;
	struct shm_partition *p;
	int64_t base, next;
	int32_t i;
	int16_t perr = ERR_NONE;
	int rc;

	if (st == NULL) {
		if (q->acks != 0 && q->acks != 1 && q->acks != -1) {
			req_done(r, ERR_INVALID_REQUEST);
			return;
		}
		r->noresp = q->acks == 0;
		r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms :
		    PRODUCE_DEFAULT_TIMEOUT);
		if ((st = conn_alloc(c, sizeof(*st))) == NULL)
			goto nomem;
		memset(st, 0, sizeof(*st));
		if (q->count > 0) {
			st->res = conn_alloc(c, (size_t)q->count * sizeof(*st->res));
			st->parts = conn_alloc(c, (size_t)q->count *
			    sizeof(*st->parts));
			st->next = conn_alloc(c, (size_t)q->count *
			    sizeof(*st->next));
			st->inc = conn_alloc(c, (size_t)q->count *
			    sizeof(*st->inc));
			if (st->res == NULL || st->parts == NULL || st->next == NULL ||
			    st->inc == NULL)
				goto nomem;
		}
		for (i = 0; i < q->count; i++) {
			st->res[i].base_offset = -1;
			st->res[i].log_start = -1;
			st->next[i] = -1;
			st->parts[i] = NULL;
			st->res[i].error = produce_check(w, c, &q->parts[i],
			    r->name, &st->parts[i]);
			st->inc[i] = 0;
			if (st->res[i].error == ERR_NONE &&
			    (st->res[i].error = part_incarnation(w, st->parts[i],
			    &st->inc[i])) != ERR_NONE)
				st->parts[i] = NULL;
		}
		r->st = st;
	}
	for (; st->cur < q->count; st->cur++) {
		i = st->cur;
		if ((p = st->parts[i]) == NULL)
			continue;
		/* Parked on a full ring while its topic was deleted. */
		if (part_gone(p, st->inc[i])) {
			st->res[i].error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
			st->parts[i] = NULL;
			continue;
		}
		rc = produce_dedup_append(w, p, st->inc[i], q->parts[i].records,
		    (size_t)q->parts[i].records_len, &base, &next, &perr);
		if (rc == 1) {
			/* Refused by the sequence check: nothing appended. */
			st->res[i].error = perr;
			st->parts[i] = NULL;
			continue;
		}
		if (rc == -1) {
			if (errno == EAGAIN) {
				if (w->now < r->deadline && !w->stopping) {
					r->state = REQ_BLOCKED;
					return;
				}
				st->res[i].error = w->stopping ?
				    ERR_SHUTTING_DOWN : ERR_TIMEOUT;
			} else if (errno == EMSGSIZE)
				st->res[i].error = ERR_MESSAGE_TOO_LARGE;
			else if (errno == ENOENT)	/* its topic is being deleted */
				st->res[i].error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
			else {
				log_warn("ring append");
				st->res[i].error = ERR_UNKNOWN;
			}
			st->parts[i] = NULL;
			continue;
		}
		st->res[i].base_offset = base;
		st->res[i].log_start = atomic_load_explicit(&p->log_start,
		    memory_order_acquire);
		st->next[i] = next;
		if (q->acks == -1)
			atomic_store(&p->sync_wanted, 1);
		/* A ring a quarter full wants the writer now, not lazily. */
		worker_wake_writer(w, q->acks == -1 || ring_free(w->shm, p) <
		    w->shm->hdr->limits.ring_size / 4 * 3);
	}
	st->appended = 1;
	if (q->acks == -1) {
		handle_produce_poll(w, r);
		return;
	}
	r->state = REQ_DONE;
	return;
nomem:
	r->st = NULL;
	req_done(r, ERR_RESOURCE_LIMIT);
}

/* ---- FETCH ---- */

/* The cached reader of partition p; NULL (errno ENOENT: nothing stored). */
static struct plog_reader *
reader_get(struct worker *w, struct shm_partition *p)
{
	char dir[PATH_MAX], name[TOPIC_NAME_MAX + 1];
	const struct shm_topic *t;
	size_t slot = (size_t)(p - w->shm->parts);
	uint32_t inc;

	if (slot >= w->nreaders) {
		errno = EINVAL;
		return NULL;
	}
	inc = atomic_load_explicit(&p->incarnation, memory_order_acquire);
	if (w->readers[slot] != NULL && w->reader_inc[slot] == inc)
		return w->readers[slot];
	/* Opened on a deleted topic's files: never read them again. */
	if (w->readers[slot] != NULL) {
		plog_reader_close(w->readers[slot]);
		w->readers[slot] = NULL;
	}
	w->reader_inc[slot] = inc;
	t = &w->shm->topics[p->topic];
	if (t->name_len > TOPIC_NAME_MAX) {
		errno = EINVAL;
		return NULL;
	}
	name_copy(name, t->name, t->name_len);
	if (topic_partition_dir(dir, sizeof(dir), w->conf->data_dir, name,
	    p->partition) == -1) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (plog_reader_open(&w->readers[slot], dir) == -1) {
		w->readers[slot] = NULL;
		return NULL;
	}
	/* A consumer far behind the end reads with drop-behind. */
	if (w->conf->cache_window_bytes > 0)
		plog_reader_set_cache_window(w->readers[slot],
		    (uint64_t)w->conf->cache_window_bytes);
	return w->readers[slot];
}

/*
 * A read met a corrupt range: answer CORRUPT_MESSAGE with where it starts
 * and where reading can resume, and log it the first time this worker's
 * reader sees it.  The consumer decides (skip it, or stop); nothing here
 * waits, so it never hangs on the damage.
 */
static void
fetch_corrupt(struct worker *w, struct fetch_slot *s, const struct plog_slice *sl)
{
	char dir[PATH_MAX], name[TOPIC_NAME_MAX + 1];
	const struct shm_topic *t = &w->shm->topics[s->p->topic];

	s->error = ERR_CORRUPT_MESSAGE;
	s->bad_first = sl->first_offset;
	s->bad_next = sl->next_offset;
	if (!sl->corrupt_new)
		return;
	name_copy(name, t->name, t->name_len <= TOPIC_NAME_MAX ?
	    t->name_len : TOPIC_NAME_MAX);
	if (topic_partition_dir(dir, sizeof(dir), w->conf->data_dir, name,
	    s->p->partition) == -1)
		dir[0] = '\0';
	log_warnx("%s/%d: corrupt batch: offsets %lld to %lld unreadable, "
	    "in %s/%020lld.log at position %lld", name, (int)s->p->partition,
	    (long long)sl->first_offset, (long long)sl->next_offset - 1, dir,
	    (long long)sl->segment, (long long)sl->pos);
}

void
fetch_st_release(struct fetch_st *st)
{
	int32_t i;

	for (i = 0; i < st->n; i++) {
		if (st->s[i].fd >= 0)
			close(st->s[i].fd);
		st->s[i].fd = -1;
		st->s[i].len = 0;
	}
	st->total = 0;
}

/*
 * Look up what each partition has at its offset now, within the request's
 * byte limits; the first partition with data may exceed them by the one
 * whole batch it always gets.
 */
static void
fetch_gather(struct worker *w, const struct fetch_req *q, struct fetch_st *st)
{
	const struct fetch_part *fp;
	struct fetch_slot *s;
	struct plog_reader *rd;
	struct plog_slice sl;
	int64_t budget, limit;
	int32_t i;

	fetch_st_release(st);
	budget = q->max_bytes > 0 ? q->max_bytes : INT32_MAX;
	for (i = 0; i < q->count; i++) {
		fp = &q->parts[i];
		s = &st->s[i];
		if (s->p == NULL)
			continue;
		if (part_gone(s->p, s->inc)) {
			/* Deleted while the fetch waited: never the new topic's data. */
			s->error = ERR_UNKNOWN_TOPIC_OR_PARTITION;
			s->p = NULL;
			continue;
		}
		s->error = ERR_NONE;
		s->log_start = atomic_load_explicit(&s->p->log_start,
		    memory_order_acquire);
		s->visible = atomic_load_explicit(&s->p->visible_offset,
		    memory_order_acquire);
		s->hwm = part_end(s->p);
		if (fp->offset < s->log_start || fp->offset > s->hwm) {
			s->error = ERR_OFFSET_OUT_OF_RANGE;
			continue;
		}
		if (fp->offset >= s->visible)
			continue;	/* nothing written there yet: wait */
		limit = fp->max_bytes > 0 ? fp->max_bytes : 1;
		if (st->total > 0) {
			if (budget - st->total <= 0)
				continue;
			if (limit > budget - st->total)
				limit = budget - st->total;
		}
		if ((rd = reader_get(w, s->p)) == NULL) {
			if (errno != ENOENT) {
				log_warn("fetch: partition reader");
				s->error = ERR_STORAGE;
			}
			continue;
		}
		if (plog_reader_read(rd, fp->offset, s->visible, (size_t)limit,
		    &sl) == -1) {
			if (errno == EBADMSG) {
				fetch_corrupt(w, s, &sl);
				continue;
			}
			if (errno == ERANGE)
				s->error = ERR_OFFSET_OUT_OF_RANGE;
			else {
				log_warn("fetch: read");
				s->error = ERR_STORAGE;
			}
			continue;
		}
		if (sl.len == 0 || (st->total > 0 && (int64_t)sl.len > limit))
			continue;
		if ((s->fd = fcntl(sl.fd, F_DUPFD_CLOEXEC, 0)) == -1) {
			log_warn("fetch: dup");
			s->error = ERR_UNKNOWN;
			continue;
		}
		s->pos = sl.pos;
		s->len = sl.len;
		s->nrec = sl.next_offset - sl.first_offset;
		st->total += (int64_t)sl.len;
	}
}

struct plog_reader *
handlers_reader(struct worker *w, struct shm_partition *p)
{
	return reader_get(w, p);
}

/* Answer now, or keep waiting for min_bytes until the deadline? */
static void
fetch_decide(struct worker *w, struct req *r)
{
	const struct fetch_req *q = r->dec;
	struct fetch_st *st = r->st;
	int32_t i;

	fetch_gather(w, q, st);
	if (st->total >= q->min_bytes || w->now >= r->deadline || w->stopping) {
		r->state = REQ_DONE;
		return;
	}
	for (i = 0; i < q->count; i++) {
		if (st->s[i].error != ERR_NONE) {
			r->state = REQ_DONE;
			return;
		}
	}
	/* Hold no file descriptors while parked; gather again on wake. */
	fetch_st_release(st);
	r->state = REQ_WAIT;
}

void
handle_fetch(struct worker *w, struct conn *c, struct req *r)
{
	const struct fetch_req *q = r->dec;
	struct fetch_st *st;
	struct fetch_slot *s;
	int32_t i;

	if ((st = conn_alloc(c, sizeof(*st))) == NULL)
		goto nomem;
	memset(st, 0, sizeof(*st));
	if (q->count > 0 &&
	    (st->s = conn_alloc(c, (size_t)q->count * sizeof(*st->s))) == NULL)
		goto nomem;
	st->n = q->count;
	for (i = 0; i < q->count; i++) {
		s = &st->s[i];
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		s->log_start = -1;
		s->hwm = -1;
		s->error = auth_topic(c, AUTH_CONSUME, q->parts[i].topic,
		    q->parts[i].topic_len, r->name);
		if (s->error == ERR_NONE)
			s->error = part_resolve(w, q->parts[i].topic,
			    q->parts[i].topic_len, q->parts[i].partition, 0,
			    &s->p);
		if (s->error == ERR_NONE)
			s->error = part_incarnation(w, s->p, &s->inc);
		if (s->error != ERR_NONE)
			s->p = NULL;
	}
	r->st = st;
	r->deadline = w->now + (q->max_wait_ms > 0 ? q->max_wait_ms : 0);
	fetch_decide(w, r);
	return;
nomem:
	req_done(r, ERR_RESOURCE_LIMIT);
}

/* ---- LIST_OFFSETS ---- */

void
handle_list_offsets(struct worker *w, struct conn *c, struct req *r)
{
	const struct list_offsets_req *q = r->dec;
	struct list_offsets_resp *s;
	struct shm_partition *p;
	int32_t i;

	if ((s = conn_alloc(c, sizeof(*s))) == NULL)
		goto nomem;
	memset(s, 0, sizeof(*s));
	if (q->count > 0 && (s->results = conn_alloc(c, (size_t)q->count *
	    sizeof(*s->results))) == NULL)
		goto nomem;
	s->count = q->count;
	for (i = 0; i < q->count; i++) {
		s->results[i].offset = -1;
		s->results[i].timestamp = -1;
		p = NULL;
		s->results[i].error = auth_topic(c, AUTH_PRODUCE | AUTH_CONSUME,
		    q->parts[i].topic, q->parts[i].topic_len, r->name);
		if (s->results[i].error == ERR_NONE)
			s->results[i].error = part_resolve(w, q->parts[i].topic,
			    q->parts[i].topic_len, q->parts[i].partition, 0, &p);
		if (s->results[i].error != ERR_NONE)
			continue;
		if (q->parts[i].which == OFFSET_EARLIEST)
			s->results[i].offset = atomic_load_explicit(&p->log_start,
			    memory_order_acquire);
		else if (q->parts[i].which == OFFSET_LATEST)
			s->results[i].offset = part_end(p);
		else if (q->parts[i].which >= 0)	/* a timestamp, ms */
			s->results[i].error = timelookup_offset(w, p,
			    q->parts[i].which, &s->results[i].offset,
			    &s->results[i].timestamp);
		else
			s->results[i].error = ERR_INVALID_REQUEST;
	}
	r->st = s;
	req_done(r, ERR_NONE);
	return;
nomem:
	req_done(r, ERR_RESOURCE_LIMIT);
}

/* ---- WORKERS ---- */

void
handle_workers(struct worker *w, struct conn *c, struct req *r)
{
	struct workers_resp *s;
	struct shm_child *ch;
	struct child_info *ci;
	int64_t now_rt = clock_real_ms();
	uint32_t i, n = w->shm->hdr->limits.child_slots;
	int32_t pid;

	if (r->payload_len != 0) {
		req_done(r, ERR_INVALID_REQUEST);
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL)
		goto nomem;
	memset(s, 0, sizeof(*s));
	if (n > 0 && (s->children = conn_alloc(c, n * sizeof(*ci))) == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		ch = &w->shm->children[i];
		if ((pid = atomic_load(&ch->pid)) <= 0)
			continue;
		ci = &s->children[s->count++];
		ci->slot = (int32_t)i;
		ci->role = (int8_t)ch->role;
		ci->pid = pid;
		ci->uptime_ms = ch->start_ms > 0 && now_rt > ch->start_ms ?
		    now_rt - ch->start_ms : 0;
		ci->restarts = ch->restarts;
	}
	r->st = s;
	req_done(r, ERR_NONE);
	return;
nomem:
	req_done(r, ERR_RESOURCE_LIMIT);
}

void
handle_fetch_emit(struct worker *w, struct conn *c, struct req *r)
{
	const struct fetch_req *q = r->dec;
	struct fetch_st *st = r->st;
	struct fetch_slot *s;
	struct wbuf *wb = &c->out;
	uint64_t size;
	int32_t i;

	size = 4 + 2 + 4;
	for (i = 0; i < q->count; i++)
		size += 2 + 8 + 8 + 4 + (st->s[i].error == ERR_CORRUPT_MESSAGE ?
		    FETCH_CORRUPT_RECORDS : st->s[i].len);
	if (size > UINT32_MAX) {
		c->dead = 1;
		return;
	}
	wbuf_i32(wb, (int32_t)(uint32_t)size);
	wbuf_i32(wb, (int32_t)r->id);
	wbuf_i16(wb, ERR_NONE);
	wbuf_i32(wb, q->count);
	for (i = 0; i < q->count; i++) {
		s = &st->s[i];
		wbuf_i16(wb, s->error);
		wbuf_i64(wb, s->log_start);
		wbuf_i64(wb, s->hwm);
		stats_error_count(w->me, s->error);
		if (s->error == ERR_CORRUPT_MESSAGE) {
			wbuf_i32(wb, FETCH_CORRUPT_RECORDS);
			wbuf_i64(wb, s->bad_first);
			wbuf_i64(wb, s->bad_next);
			continue;
		}
		wbuf_i32(wb, (int32_t)s->len);
		if (s->len > 0) {
			/* Counted as sent once queued: what a consumer received. */
			atomic_fetch_add_explicit(&s->p->msgs_out,
			    s->nrec > 0 ? (uint64_t)s->nrec : 0, memory_order_relaxed);
			atomic_fetch_add_explicit(&s->p->bytes_out, s->len,
			    memory_order_relaxed);
			/* The output queue owns the descriptor from here. */
			if (conn_out_file(c, s->fd, s->pos, s->len) == -1) {
				s->fd = -1;
				return;
			}
			s->fd = -1;
			s->len = 0;
		}
	}
	conn_out_commit(c);
}

void
handle_produce_emit(struct worker *w, struct conn *c, struct req *r)
{
	const struct produce_st *pst = r->st;
	struct produce_resp pr;
	size_t start;
	int32_t i;

	pr.error = ERR_NONE;
	pr.count = ((const struct produce_req *)r->dec)->count;
	pr.results = pst->res;
	for (i = 0; i < pr.count; i++)
		stats_error_count(w->me, pr.results[i].error);
	start = frame_begin_response(&c->out, r->id);
	msg_encode_produce_resp(&c->out, &pr);
	frame_end(&c->out, start);
	conn_out_commit(c);
}

void
handle_fetch_poll(struct worker *w, struct conn *c, struct req *r)
{
	const struct fetch_req *fq = r->dec;
	struct fetch_st *st = r->st;
	int32_t i;
	int moved = 0;

	if (r->state != REQ_WAIT)
		return;
	for (i = 0; i < fq->count && !moved; i++) {
		if (st->s[i].p != NULL && (atomic_load_explicit(
		    &st->s[i].p->visible_offset, memory_order_acquire) !=
		    st->s[i].visible || part_gone(st->s[i].p, st->s[i].inc)))
			moved = 1;
	}
	if (moved || w->now >= r->deadline || w->stopping)
		fetch_decide(w, r);
}

void
handle_fetch_release(struct req *r)
{
	if (r->api == API_FETCH && r->st != NULL)
		fetch_st_release(r->st);
}

int
handler_produce_result(const struct req *r, int32_t i,
    struct produce_result *out)
{
	const struct produce_req *q = r->dec;
	const struct produce_st *st = r->st;

	if (r->api != API_PRODUCE || st == NULL || st->res == NULL || i < 0 ||
	    i >= q->count)
		return -1;
	*out = st->res[i];
	return 0;
}

int
handler_fetch_take(struct req *r, int32_t i, struct handler_fetch_part *out)
{
	const struct fetch_req *q = r->dec;
	struct fetch_st *st = r->st;
	struct fetch_slot *s;

	if (r->api != API_FETCH || st == NULL || i < 0 || i >= q->count)
		return -1;
	s = &st->s[i];
	out->error = s->error;
	out->log_start = s->log_start;
	out->hwm = s->hwm;
	out->nrec = s->nrec;
	out->p = s->p;
	out->fd = s->fd;
	out->pos = s->pos;
	out->len = s->len;
	/* The caller owns the descriptor from here. */
	s->fd = -1;
	s->len = 0;
	return 0;
}
