/*
 * Idempotent produce: producer ids and per-partition sequence records
 * (see producer.h for the design and the crash rule).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/ctrl.h"
#include "shm/producer.h"
#include "shm/ring.h"

#define HSLOTS		(PRODUCER_HISTORY + 1)	/* one slot outside the window */
#define ST_COUNT(st)	((st) >> 8)
#define ST_NEWEST(st)	((st) & 0xff)
#define ST_MAKE(c, n)	((uint32_t)(c) << 8 | (uint32_t)(n))
#define ID_SHIFT	16			/* ids per ms of wall clock */

static struct producer_dir *
pdir(struct shm *s)
{
	return (struct producer_dir *)(void *)s->producers;
}

static struct producer_part *
ppart(const struct shm *s, const struct shm_partition *p)
{
	size_t i = (size_t)(p - s->parts);

	return (struct producer_part *)(void *)(s->producers +
	    sizeof(struct producer_dir)) + i;
}

size_t
producer_table_size(const struct shm_limits *lim)
{
	size_t n;

	if (__builtin_mul_overflow((size_t)lim->max_partitions,
	    sizeof(struct producer_part), &n) ||
	    __builtin_add_overflow(n, sizeof(struct producer_dir), &n))
		return SIZE_MAX;
	return n;
}

void
producer_table_init(struct shm *s)
{
	struct timespec ts;
	int64_t ms;
	uint32_t i, k;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (ms < 1)
		ms = 1;
	atomic_store(&pdir(s)->next_id, ms << ID_SHIFT);
	for (i = 0; i < s->hdr->limits.max_partitions; i++)
		for (k = 0; k < PRODUCER_SLOTS; k++)
			atomic_store(&ppart(s, &s->parts[i])->e[k].txn_first, -1);
}

int64_t
producer_id_new(struct shm *s)
{
	int64_t id = atomic_fetch_add(&pdir(s)->next_id, 1);

	return id < 0 || id == INT64_MAX ? -1 : id;
}

int64_t
producer_id_limit(struct shm *s)
{
	return atomic_load(&pdir(s)->next_id);
}

void
producer_id_raise(struct shm *s, int64_t pid)
{
	int64_t cur = atomic_load(&pdir(s)->next_id);

	if (pid < 0 || pid == INT64_MAX)
		return;
	while (cur <= pid &&
	    !atomic_compare_exchange_weak(&pdir(s)->next_id, &cur, pid + 1))
		;
}

int32_t
producer_seq_next(int32_t seq)
{
	return seq == INT32_MAX ? 0 : seq + 1;
}

/* The sequence delta records after seq. */
static int32_t
seq_add(int32_t seq, int32_t delta)
{
	int64_t v = (int64_t)seq + delta;

	return (int32_t)(v % ((int64_t)INT32_MAX + 1));
}

/* How many sequences b is after a, modulo the sequence space. */
static int32_t
seq_distance(int32_t a, int32_t b)
{
	int64_t d = (int64_t)b - a;

	if (d < 0)
		d += (int64_t)INT32_MAX + 1;
	return (int32_t)d;
}

int
producer_seq_of(const uint8_t *recs, size_t len, struct producer_seq *q)
{
	size_t off = 0, sz;
	int64_t pid;
	int32_t seq, delta, expect = 0;
	int16_t epoch;
	int first = 1, txn;

	q->txn = 0;
	q->pid = -1;
	q->epoch = -1;
	q->first_seq = q->last_seq = -1;
	while (off < len) {
		if (len - off < BATCH_HEADER_SIZE)
			return -1;
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(recs + off + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > len - off)
			return -1;
		pid = (int64_t)be64_get(recs + off + BATCH_OFF_PRODUCER_ID);
		epoch = (int16_t)be16_get(recs + off + BATCH_OFF_PRODUCER_EPOCH);
		seq = (int32_t)be32_get(recs + off + BATCH_OFF_BASE_SEQUENCE);
		delta = (int32_t)be32_get(recs + off + BATCH_OFF_LAST_DELTA);
		txn = ctrl_is_transactional(recs + off);
		if (delta < 0)
			return -1;
		if (first) {
			first = 0;
			q->txn = txn;
			q->pid = pid < 0 ? -1 : pid;
			q->epoch = epoch;
			q->first_seq = seq;
		} else if ((pid < 0) != (q->pid < 0) || txn != q->txn ||
		    (pid >= 0 && (pid != q->pid || epoch != q->epoch ||
		    seq != expect)))
			return -1;
		if (pid >= 0) {
			if (seq < 0 || epoch < 0)
				return -1;
			q->last_seq = seq_add(seq, delta);
			expect = producer_seq_next(q->last_seq);
		}
		off += sz;
	}
	if (first)
		return -1;
	if (q->pid < 0) {
		if (q->txn)
			return -1;	/* a transaction needs a producer id */
		q->epoch = -1;
		q->first_seq = q->last_seq = -1;
	}
	return 0;
}

static struct producer_entry *entry_take(struct producer_part *);
static struct producer_entry *txn_entry(struct producer_part *, int64_t);

static struct producer_entry *
entry_find(struct producer_part *pp, int64_t pid)
{
	int i;

	for (i = 0; i < PRODUCER_SLOTS; i++)
		if (ST_COUNT(atomic_load_explicit(&pp->e[i].state,
		    memory_order_relaxed)) > 0 && pp->e[i].pid == pid)
			return &pp->e[i];
	return NULL;
}

/* The k-th record of the window, 0 the oldest; count records in all. */
static const struct producer_rec *
entry_rec(const struct producer_entry *e, uint32_t st, uint32_t k)
{
	uint32_t count = ST_COUNT(st), newest = ST_NEWEST(st);

	return &e->hist[(newest + HSLOTS * 2 - (count - 1) + k) % HSLOTS];
}

int
producer_check(struct shm *s, struct shm_partition *p,
    const struct producer_seq *q, int64_t *base, int64_t *next)
{
	const struct producer_rec *r, *first = NULL;
	struct producer_entry *e;
	uint32_t st, k, count;

	if (q->pid < 0)
		return PRODUCER_APPEND;
	if (q->pid >= producer_id_limit(s))
		return PRODUCER_FENCED;
	/*
	 * A producer starts a partition (or a new epoch) at sequence 0.
	 * Accepting it elsewhere would let a batch that follows a lost one
	 * in, after which the lost one, resent, would look stored.
	 */
	if ((e = entry_find(ppart(s, p), q->pid)) == NULL) {
		if (q->first_seq != 0)
			return PRODUCER_OUT_OF_ORDER;
		return entry_take(ppart(s, p)) == NULL &&
		    txn_entry(ppart(s, p), q->pid) == NULL ? PRODUCER_FULL :
		    PRODUCER_APPEND;
	}
	if (q->epoch < e->epoch)
		return PRODUCER_FENCED;
	if (q->epoch > e->epoch)
		return q->first_seq == 0 ? PRODUCER_APPEND : PRODUCER_OUT_OF_ORDER;
	st = atomic_load_explicit(&e->state, memory_order_relaxed);
	count = ST_COUNT(st);
	if (count > PRODUCER_HISTORY || ST_NEWEST(st) >= HSLOTS)
		return PRODUCER_APPEND;		/* cannot happen; be lenient */
	if (q->first_seq == producer_seq_next(e->hist[ST_NEWEST(st)].last_seq))
		return PRODUCER_APPEND;
	/* A resend: the same run of sequences as one or more recent appends. */
	for (k = 0; k < count; k++) {
		r = entry_rec(e, st, k);
		if (first == NULL && r->first_seq == q->first_seq)
			first = r;
		if (first != NULL && r->last_seq == q->last_seq) {
			*base = first->base_offset;
			*next = r->next_offset;
			return PRODUCER_DUPLICATE;
		}
	}
	/*
	 * Sequences are appended in order, so a run that ends at or before
	 * the last one appended was stored (a resend of an append older
	 * than the history); anything else leaves a gap.
	 */
	if (seq_distance(q->last_seq, e->hist[ST_NEWEST(st)].last_seq) <
	    ((int32_t)1 << 30))
		return PRODUCER_OLD_DUPLICATE;
	return PRODUCER_OUT_OF_ORDER;
}

/*
 * A slot for a producer new to this partition: a free one, else the
 * least recent without an open transaction; NULL when every slot holds one.
 */
static struct producer_entry *
entry_take(struct producer_part *pp)
{
	struct producer_entry *e, *victim = NULL;
	int64_t oldest = INT64_MAX;
	uint32_t st;
	int i;

	for (i = 0; i < PRODUCER_SLOTS; i++) {
		e = &pp->e[i];
		if (atomic_load_explicit(&e->txn_first, memory_order_relaxed) >= 0)
			continue;
		st = atomic_load_explicit(&e->state, memory_order_relaxed);
		if (ST_COUNT(st) == 0)
			return e;
		if (ST_NEWEST(st) < HSLOTS &&
		    e->hist[ST_NEWEST(st)].next_offset < oldest) {
			oldest = e->hist[ST_NEWEST(st)].next_offset;
			victim = e;
		}
	}
	return victim;
}

void
producer_record(struct shm *s, struct shm_partition *p,
    const struct producer_seq *q, int64_t base, int64_t next, uint64_t ring_end)
{
	struct producer_part *pp = ppart(s, p);
	struct producer_entry *e;
	struct producer_rec *r;
	uint32_t st, count, slot;

	if (q->pid < 0)
		return;
	if (q->txn && atomic_load_explicit(&p->txn_seen, memory_order_relaxed) == 0)
		atomic_store_explicit(&p->txn_seen, 1, memory_order_release);
	e = entry_find(pp, q->pid);
	if (e != NULL && e->epoch == q->epoch) {
		st = atomic_load_explicit(&e->state, memory_order_relaxed);
		count = ST_COUNT(st);
		slot = (ST_NEWEST(st) + 1) % HSLOTS;
		/* slot is outside the window: readers of the old state never look there. */
		r = &e->hist[slot];
		r->first_seq = q->first_seq;
		r->last_seq = q->last_seq;
		r->base_offset = base;
		r->next_offset = next;
		r->ring_end = ring_end;
		if (count < PRODUCER_HISTORY)
			count++;
		if (q->txn && atomic_load_explicit(&e->txn_first,
		    memory_order_relaxed) < 0)
			atomic_store_explicit(&e->txn_first, base,
			    memory_order_release);
		atomic_store_explicit(&e->state, ST_MAKE(count, slot),
		    memory_order_release);
		return;
	}
	/*
	 * A new producer here, or a new epoch: the entry starts over, but
	 * keeps an open transaction (its marker, of the new epoch, is on
	 * its way).  producer_check() found a slot under this lock.
	 */
	if (e == NULL && (e = txn_entry(pp, q->pid)) == NULL &&
	    (e = entry_take(pp)) == NULL)
		return;
	if (q->txn && atomic_load_explicit(&e->txn_first,
	    memory_order_relaxed) < 0)
		atomic_store_explicit(&e->txn_first, base, memory_order_release);
	atomic_store_explicit(&e->state, 0, memory_order_release);
	atomic_signal_fence(memory_order_seq_cst);
	e->pid = q->pid;
	e->epoch = q->epoch;
	r = &e->hist[0];
	r->first_seq = q->first_seq;
	r->last_seq = q->last_seq;
	r->base_offset = base;
	r->next_offset = next;
	r->ring_end = ring_end;
	atomic_store_explicit(&e->state, ST_MAKE(1, 0), memory_order_release);
}

void
producer_part_clear(struct shm *s, struct shm_partition *p)
{
	struct producer_part *pp = ppart(s, p);
	int i;

	atomic_store_explicit(&p->txn_seen, 0, memory_order_release);
	/* One store per entry frees it (state count 0), as entry_take expects. */
	for (i = 0; i < PRODUCER_SLOTS; i++) {
		atomic_store_explicit(&pp->e[i].txn_first, -1,
		    memory_order_release);
		atomic_store_explicit(&pp->e[i].state, 0, memory_order_release);
	}
}

void
producer_repair(struct shm *s, struct shm_partition *p)
{
	struct producer_part *pp = ppart(s, p);
	struct producer_entry *e;
	uint64_t tail = atomic_load_explicit(&p->tail, memory_order_relaxed);
	int64_t next = __atomic_load_n(&p->next_offset, __ATOMIC_RELAXED);
	uint32_t st, count, newest;
	int i;

	for (i = 0; i < PRODUCER_SLOTS; i++) {
		e = &pp->e[i];
		/* Opened by an append that never published (ring_repair ran). */
		if (atomic_load_explicit(&e->txn_first, memory_order_relaxed) >=
		    next)
			atomic_store_explicit(&e->txn_first, -1,
			    memory_order_release);
		st = atomic_load_explicit(&e->state, memory_order_relaxed);
		count = ST_COUNT(st);
		newest = ST_NEWEST(st);
		if (count == 0)
			continue;
		if (count > PRODUCER_HISTORY || newest >= HSLOTS) {
			atomic_store_explicit(&e->state, 0, memory_order_release);
			continue;
		}
		/* Only the newest records can be unpublished; ring_end grows. */
		while (count > 0 && e->hist[newest].ring_end > tail) {
			newest = (newest + HSLOTS - 1) % HSLOTS;
			count--;
		}
		if (ST_MAKE(count, count > 0 ? newest : 0) != st)
			atomic_store_explicit(&e->state,
			    ST_MAKE(count, count > 0 ? newest : 0),
			    memory_order_release);
	}
}

struct dedup_arg {
	const struct producer_seq *q;
	int64_t	base, next;
	int	dup;
};

static int
dedup_check(struct shm *s, struct shm_partition *p, void *arg)
{
	struct dedup_arg *a = arg;
	int v;

	v = producer_check(s, p, a->q, &a->base, &a->next);
	if (v == PRODUCER_DUPLICATE)
		a->dup = 1;
	return v;
}

static void
dedup_record(struct shm *s, struct shm_partition *p, void *arg, int64_t base,
    int64_t next, uint64_t tail)
{
	struct dedup_arg *a = arg;

	producer_record(s, p, a->q, base, next, tail);
}

int
producer_append(struct shm *s, struct shm_partition *p, uint32_t inc,
    const struct producer_seq *q, const uint8_t *recs, size_t len,
    int64_t *base, int64_t *next, int *dup)
{
	struct dedup_arg a;
	struct ring_hook h;
	int rc;

	*dup = 0;
	if (q->pid < 0)
		return ring_append_hooked(s, p, inc, recs, len, NULL, base,
		    next);
	memset(&a, 0, sizeof(a));
	a.q = q;
	h.check = dedup_check;
	h.record = dedup_record;
	h.arg = &a;
	rc = ring_append_hooked(s, p, inc, recs, len, &h, base, next);
	if (rc == PRODUCER_DUPLICATE) {
		*dup = 1;
		*base = a.base;
		*next = a.next;
		return 0;
	}
	return rc;
}

int
producer_count(struct shm *s, struct shm_partition *p)
{
	struct producer_part *pp = ppart(s, p);
	int i, n = 0;

	for (i = 0; i < PRODUCER_SLOTS; i++)
		if (ST_COUNT(atomic_load(&pp->e[i].state)) > 0)
			n++;
	return n;
}

int
producer_list(struct shm *s, struct shm_partition *p,
    struct producer_info *out, int max)
{
	struct producer_part *pp = ppart(s, p);
	const struct producer_rec *r;
	uint32_t st;
	int i, n = 0;

	for (i = 0; i < PRODUCER_SLOTS && n < max; i++) {
		st = atomic_load_explicit(&pp->e[i].state,
		    memory_order_acquire);
		out[n].txn_first = atomic_load_explicit(&pp->e[i].txn_first,
		    memory_order_acquire);
		/* One with an open transaction only (rebuilt at start-up) counts. */
		if (ST_COUNT(st) == 0 && out[n].txn_first < 0)
			continue;
		out[n].pid = pp->e[i].pid;
		out[n].epoch = pp->e[i].epoch;
		out[n].last_seq = out[n].last_base = -1;
		if (ST_COUNT(st) > 0) {
			r = entry_rec(&pp->e[i], st, ST_COUNT(st) - 1);
			out[n].last_seq = r->last_seq;
			out[n].last_base = r->base_offset;
		}
		n++;
	}
	return n;
}

int64_t
producer_txn_oldest(const struct shm *s, const struct shm_partition *p)
{
	const struct producer_part *pp = ppart(s, p);
	int64_t f, min = INT64_MAX;
	int i;

	for (i = 0; i < PRODUCER_SLOTS; i++) {
		f = atomic_load_explicit(&pp->e[i].txn_first, memory_order_acquire);
		if (f >= 0 && f < min)
			min = f;
	}
	return min;
}

int64_t
producer_lso(struct shm *s, const struct shm_partition *p)
{
	/*
	 * visible_offset first: a transaction drained below it was opened
	 * (txn_first stored before the tail store the writer read) before
	 * it moved, so it is seen here unless its marker closed it.
	 */
	int64_t vis = atomic_load_explicit(&p->visible_offset,
	    memory_order_acquire);
	int64_t f = producer_txn_oldest(s, p);

	return f < vis ? f : vis;
}

int64_t
part_lso(const struct shm *s, uint32_t slot)
{
	return producer_lso((struct shm *)(uintptr_t)s, &s->parts[slot]);
}

/* The entry of pid holding an open transaction, whatever its state. */
static struct producer_entry *
txn_entry(struct producer_part *pp, int64_t pid)
{
	int i;

	for (i = 0; i < PRODUCER_SLOTS; i++)
		if (pp->e[i].pid == pid && atomic_load_explicit(
		    &pp->e[i].txn_first, memory_order_relaxed) >= 0)
			return &pp->e[i];
	return NULL;
}

int64_t
producer_txn_find(struct shm *s, struct shm_partition *p, int64_t pid,
    int16_t epoch, int64_t marker, int64_t *lso)
{
	struct producer_part *pp = ppart(s, p);
	struct producer_entry *e = txn_entry(pp, pid);
	int64_t first, f, min = marker + 1;
	int i;

	if (e == NULL || epoch < e->epoch)
		return -1;
	first = atomic_load_explicit(&e->txn_first, memory_order_relaxed);
	/* A transaction opened after this marker is not the one it ends. */
	if (first > marker)
		return -1;
	for (i = 0; i < PRODUCER_SLOTS; i++) {
		if (&pp->e[i] == e)
			continue;
		f = atomic_load_explicit(&pp->e[i].txn_first,
		    memory_order_relaxed);
		if (f >= 0 && f < min)
			min = f;
	}
	*lso = min;
	return first;
}

void
producer_txn_clear(struct shm *s, struct shm_partition *p, int64_t pid)
{
	struct producer_entry *e = txn_entry(ppart(s, p), pid);

	if (e != NULL)
		atomic_store_explicit(&e->txn_first, -1, memory_order_release);
}

int
producer_txn_open(struct shm *s, struct shm_partition *p, int64_t pid,
    int16_t epoch, int64_t first)
{
	struct producer_part *pp = ppart(s, p);
	struct producer_entry *e;

	if ((e = entry_find(pp, pid)) != NULL || (e = txn_entry(pp, pid)) != NULL) {
		if (atomic_load_explicit(&e->txn_first, memory_order_relaxed) < 0)
			atomic_store_explicit(&e->txn_first, first,
			    memory_order_release);
		return 0;
	}
	if ((e = entry_take(pp)) == NULL)
		return -1;
	/* An entry without history: sequences start again at 0 (producer_check). */
	atomic_store_explicit(&e->state, 0, memory_order_release);
	e->pid = pid;
	e->epoch = epoch;
	atomic_store_explicit(&e->txn_first, first, memory_order_release);
	return 0;
}

int
producer_txn_list(const struct shm *s, const struct shm_partition *p,
    struct producer_txn *out, int max)
{
	const struct producer_part *pp = ppart(s, p);
	int64_t f;
	int i, n = 0;

	for (i = 0; i < PRODUCER_SLOTS && n < max; i++) {
		f = atomic_load_explicit(&pp->e[i].txn_first, memory_order_acquire);
		if (f < 0)
			continue;
		out[n].pid = pp->e[i].pid;
		out[n].epoch = pp->e[i].epoch;
		out[n].first = f;
		n++;
	}
	return n;
}
