/*
 * Fetch (worker/op/fetch.h): long poll over visible_offset, file ranges
 * for sendfile.  Shared memory is read with the ordering the writer
 * publishes with: visible_offset and log_start are acquire loads.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "shm/producer.h"
#include "shm/shm.h"
#include "store/plog.h"
#include "store/topic.h"
#include "store/txnindex.h"
#include "worker/op/access.h"
#include "worker/op/fetch.h"
#include "worker/op/part.h"
#include "worker/op/reader.h"
#include "worker/worker.h"

/*
 * A read met a corrupt range: answer it with where it starts and where
 * reading can resume, and log it the first time this worker's reader
 * sees it.  The consumer decides (skip it, or stop); nothing here
 * waits, so it never hangs on the damage.
 */
static void
fetch_corrupt(struct worker *w, struct op_fetch_result *s,
    const struct plog_slice *sl)
{
	char dir[PATH_MAX], name[TOPIC_NAME_MAX + 1];
	const struct shm_topic *t = &w->shm->topics[s->p->topic];
	size_t len;

	s->err = OP_CORRUPT_STORED;
	s->bad_first = sl->first_offset;
	s->bad_next = sl->next_offset;
	if (!sl->corrupt_new)
		return;
	len = t->name_len <= TOPIC_NAME_MAX ? t->name_len : TOPIC_NAME_MAX;
	memcpy(name, t->name, len);
	name[len] = '\0';
	if (topic_partition_dir(dir, sizeof(dir), w->conf->data_dir, name,
	    s->p->partition) == -1)
		dir[0] = '\0';
	log_warnx("%s/%d: corrupt batch: offsets %lld to %lld unreadable, "
	    "in %s/%020lld.log at position %lld", name, (int)s->p->partition,
	    (long long)sl->first_offset, (long long)sl->next_offset - 1, dir,
	    (long long)sl->segment, (long long)sl->pos);
}

void
op_fetch_release(struct op_fetch_st *st)
{
	int32_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->count; i++) {
		if (st->res[i].fd >= 0)
			close(st->res[i].fd);
		st->res[i].fd = -1;
		st->res[i].len = 0;
	}
	st->total = 0;
}

/*
 * Look up what each partition has at its offset now, within the request's
 * byte limits; the first partition with data may exceed them by the one
 * whole batch it always gets.
 */
/* The readable end of s for a's isolation level. */
static int64_t
fetch_end(struct worker *w, const struct op_fetch *a, struct shm_partition *p)
{
	return a->isolation == 1 ? producer_lso(w->shm, p) :
	    atomic_load_explicit(&p->visible_offset, memory_order_acquire);
}

/*
 * read_committed: the aborted transactions of the range read, [from,
 * upper), in the request's memory.  A failure is the part's error.
 */
static void
fetch_aborted(const struct op_ctx *x, struct plog_reader *rd,
    struct op_fetch_result *s, int64_t from, int64_t upper)
{
	struct txn_aborted *v;
	struct op_fetch_aborted *o;
	size_t n, k;

	s->aborted = NULL;
	s->naborted = 0;
	if (plog_reader_aborted(rd, from, upper, &v, &n) == -1) {
		log_warn("fetch: aborted-transaction index");
		s->err = OP_STORAGE;
		return;
	}
	if (n == 0)
		return;
	if (n > INT32_MAX || (o = op_alloc(x, n * sizeof(*o))) == NULL) {
		free(v);
		s->err = OP_NO_MEMORY;
		return;
	}
	for (k = 0; k < n; k++) {
		o[k].pid = v[k].pid;
		o[k].first = v[k].first;
	}
	free(v);
	s->aborted = o;
	s->naborted = (int32_t)n;
}

static void
fetch_gather(const struct op_ctx *x, const struct op_fetch *a,
    struct op_fetch_st *st)
{
	struct worker *w = x->w;
	const struct op_fetch_part *fp;
	struct op_fetch_result *s;
	struct plog_reader *rd;
	struct plog_slice sl;
	int64_t budget, limit, oldest;
	int32_t i;

	op_fetch_release(st);
	budget = a->max_bytes > 0 ? a->max_bytes : INT32_MAX;
	for (i = 0; i < st->count && i < a->count; i++) {
		fp = &a->parts[i];
		s = &st->res[i];
		if (s->p == NULL)
			continue;
		if (op_part_gone(s->p, s->inc)) {
			/* Deleted while the fetch waited: never the new topic's data. */
			s->err = OP_NO_TOPIC;
			s->p = NULL;
			continue;
		}
		s->err = OP_OK;
		s->aborted = NULL;
		s->naborted = 0;
		s->log_start = atomic_load_explicit(&s->p->log_start,
		    memory_order_acquire);
		/* Readable: visible_offset, and below every open transaction. */
		s->visible = a->isolation == 1 ? producer_lso(w->shm, s->p) :
		    atomic_load_explicit(&s->p->visible_offset,
		    memory_order_acquire);
		s->hwm = op_part_end(s->p);
		/* As clients see it: the high watermark, or an open one's start. */
		oldest = producer_txn_oldest(w->shm, s->p);
		s->lso = oldest < s->hwm ? oldest : s->hwm;
		if (fp->offset < s->log_start || fp->offset > s->hwm) {
			s->err = OP_OUT_OF_RANGE;
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
		if ((rd = op_reader(w, s->p)) == NULL) {
			if (errno != ENOENT) {
				log_warn("fetch: partition reader");
				s->err = OP_STORAGE;
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
				s->err = OP_OUT_OF_RANGE;
			else {
				log_warn("fetch: read");
				s->err = OP_STORAGE;
			}
			continue;
		}
		if (sl.len == 0 || (st->total > 0 && (int64_t)sl.len > limit))
			continue;
		if ((s->fd = fcntl(sl.fd, F_DUPFD_CLOEXEC, 0)) == -1) {
			log_warn("fetch: dup");
			s->err = OP_INTERNAL;
			continue;
		}
		/* Only a partition that may hold transactions has aborts. */
		if (a->isolation == 1 && atomic_load_explicit(&s->p->txn_seen,
		    memory_order_acquire) != 0) {
			fetch_aborted(x, rd, s, fp->offset, sl.next_offset);
			if (s->err != OP_OK) {
				close(s->fd);
				s->fd = -1;
				continue;
			}
		}
		s->pos = sl.pos;
		s->len = sl.len;
		s->nrec = sl.next_offset - sl.first_offset;
		st->total += (int64_t)sl.len;
	}
}

/* Answer now, or keep waiting for min_bytes until the deadline? */
static enum op_status
fetch_decide(const struct op_ctx *x, const struct op_fetch *a,
    struct op_fetch_st *st)
{
	struct worker *w = x->w;
	int32_t i;

	fetch_gather(x, a, st);
	if (st->total >= a->min_bytes || w->now >= st->deadline || w->stopping)
		return OP_DONE;
	for (i = 0; i < st->count; i++)
		if (st->res[i].err != OP_OK)
			return OP_DONE;
	/* Hold no file descriptors while parked; gather again on wake. */
	op_fetch_release(st);
	return OP_WAIT;
}

enum op_status
op_fetch(const struct op_ctx *x, const struct op_fetch *a,
    struct op_fetch_st **stp, enum op_err *err)
{
	struct worker *w = x->w;
	struct op_fetch_result *s;
	struct op_fetch_st *st;
	int32_t i;

	*err = OP_OK;
	if ((*stp = st = op_alloc(x, sizeof(*st))) == NULL)
		goto nomem;
	memset(st, 0, sizeof(*st));
	st->count = a->count > 0 ? a->count : 0;
	if (st->count > 0 && (st->res = op_alloc(x, (size_t)st->count *
	    sizeof(*st->res))) == NULL)
		goto nomem;
	for (i = 0; i < st->count; i++) {
		s = &st->res[i];
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		s->log_start = -1;
		s->hwm = -1;
		s->lso = -1;
		s->err = op_access_topic(x, AUTH_CONSUME, a->parts[i].topic,
		    a->parts[i].topic_len);
		if (s->err == OP_OK)
			s->err = op_part_resolve(w, a->parts[i].topic,
			    a->parts[i].topic_len, a->parts[i].partition, 0,
			    &s->p);
		if (s->err == OP_OK)
			s->err = op_part_incarnation(w, s->p, &s->inc);
		if (s->err != OP_OK)
			s->p = NULL;
	}
	st->deadline = w->now + (a->max_wait_ms > 0 ? a->max_wait_ms : 0);
	return fetch_decide(x, a, st);
nomem:
	*stp = NULL;
	*err = OP_NO_MEMORY;
	return OP_DONE;
}

enum op_status
op_fetch_poll(const struct op_ctx *x, const struct op_fetch *a,
    struct op_fetch_st *st)
{
	struct worker *w = x->w;
	struct op_fetch_result *s;
	int32_t i;
	int moved = 0;

	for (i = 0; i < st->count && !moved; i++) {
		s = &st->res[i];
		if (s->p != NULL && (fetch_end(w, a, s->p) != s->visible ||
		    op_part_gone(s->p, s->inc)))
			moved = 1;
	}
	if (moved || w->now >= st->deadline || w->stopping)
		return fetch_decide(x, a, st);
	return OP_WAIT;
}

int
op_fetch_take(struct op_fetch_st *st, int32_t i, struct op_fetch_result *out)
{
	if (st == NULL || i < 0 || i >= st->count)
		return -1;
	*out = st->res[i];
	/* The caller owns the descriptor from here. */
	st->res[i].fd = -1;
	st->res[i].len = 0;
	return 0;
}

void
op_fetch_sent(const struct op_fetch_result *r)
{
	/* Counted as sent once queued: what a consumer received. */
	atomic_fetch_add_explicit(&r->p->msgs_out, r->nrec > 0 ?
	    (uint64_t)r->nrec : 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&r->p->bytes_out, r->len,
	    memory_order_relaxed);
}
