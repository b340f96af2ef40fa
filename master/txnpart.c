/*
 * Transactions on the partition side, in the writer (see txnpart.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "master/txnpart.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/ctrl.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "store/plog.h"
#include "store/txnindex.h"
#include "store/txnsnap.h"

/* One marker at offset off: close its transaction. */
static int
marker_close(struct shm *s, struct shm_partition *p, struct plog *log,
    const struct ctrl_marker *m, int64_t off)
{
	struct txn_aborted a;
	int64_t first, lso;
	int rc = 0;

	if (part_lock(s, p) == -1)
		return -1;
	first = producer_txn_find(s, p, m->producer_id, m->producer_epoch, off,
	    &lso);
	if (first >= 0 && m->type == CTRL_ABORT) {
		a.pid = m->producer_id;
		a.first = first;
		a.last = off;
		a.lso = lso;
		/* Before the LSO may pass it: a reader must find it. */
		rc = txnindex_append(plog_dir(log), plog_segment_of(log, off), &a);
	}
	if (first >= 0 && rc == 0)
		producer_txn_clear(s, p, m->producer_id);
	part_unlock(p);
	return rc;
}

int
txn_markers_drained(struct shm *s, struct shm_partition *p, struct plog *log,
    const uint8_t *data, size_t n)
{
	struct ctrl_marker m;
	size_t pos, sz;

	/* Never a transaction here: a marker has nothing to close. */
	if (atomic_load_explicit(&p->txn_seen, memory_order_acquire) == 0)
		return 0;
	for (pos = 0; pos + BATCH_HEADER_SIZE <= n; pos += sz) {
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(data + pos + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > n - pos)
			break;
		if (!ctrl_is_control(data + pos) ||
		    ctrl_marker_parse(data + pos, sz, &m) != 1)
			continue;
		if (marker_close(s, p, log, &m,
		    (int64_t)be64_get(data + pos + BATCH_OFF_BASE_OFFSET)) == -1) {
			log_warn("writing the aborted-transaction index");
			return -1;
		}
	}
	return 0;
}

int64_t
txn_snapshot_newest(struct plog *log)
{
	int64_t off = -1;

	return txnsnap_newest(plog_dir(log), &off) == 1 ? off : -1;
}

static int
snapshot_at(struct shm *s, struct shm_partition *p, struct plog *log,
    int64_t *snap)
{
	struct producer_txn tx[PRODUCER_SLOTS];
	struct txnsnap_entry e[PRODUCER_SLOTS];
	int64_t end = plog_end_offset(log);
	int n, k, m = 0;

	if (part_lock(s, p) == -1)
		return -1;
	n = producer_txn_list(s, p, tx, PRODUCER_SLOTS);
	part_unlock(p);
	/* Opened below the end: drained, and every marker below it seen. */
	for (k = 0; k < n; k++)
		if (tx[k].first < end) {
			e[m].pid = tx[k].pid;
			e[m].epoch = tx[k].epoch;
			e[m].first = tx[k].first;
			m++;
		}
	if (txnsnap_save(plog_dir(log), *snap, end, e, (size_t)m) == -1) {
		log_warn("saving a producer-state snapshot in %s", plog_dir(log));
		return -1;
	}
	*snap = end;
	return 0;
}

int
txn_snapshot(struct shm *s, struct shm_partition *p, struct plog *log,
    int64_t *snap)
{
	if (*snap < 0 || *snap == plog_end_offset(log))
		return 0;
	return snapshot_at(s, p, log, snap);
}

int
txn_before_append(struct shm *s, struct shm_partition *p, struct plog *log,
    const uint8_t *data, size_t n, int64_t *snap)
{
	int64_t end = plog_end_offset(log);
	size_t pos, sz;

	/* txn_seen is stored before the tail that published the run. */
	if (*snap >= 0 || atomic_load_explicit(&p->txn_seen,
	    memory_order_acquire) == 0)
		return 0;
	for (pos = 0; pos + BATCH_HEADER_SIZE <= n; pos += sz) {
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(data + pos + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > n - pos)
			break;
		/* Not one the log already has (a drain repeated after a crash). */
		if ((int64_t)be64_get(data + pos + BATCH_OFF_BASE_OFFSET) >= end &&
		    ctrl_is_transactional(data + pos))
			return snapshot_at(s, p, log, snap);
	}
	return 0;
}

/* ---- start-up ---- */

struct rtx {
	struct txnsnap_entry *v;
	size_t		 n, cap;
};

static struct txnsnap_entry *
rtx_find(struct rtx *t, int64_t pid)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].pid == pid)
			return &t->v[i];
	return NULL;
}

static int
rtx_add(struct rtx *t, int64_t pid, int16_t epoch, int64_t first)
{
	struct txnsnap_entry *nv;
	size_t ncap;

	if (t->n == t->cap) {
		ncap = t->cap ? t->cap * 2 : 16;
		if ((nv = reallocarray(t->v, ncap, sizeof(*nv))) == NULL)
			return -1;
		t->v = nv;
		t->cap = ncap;
	}
	t->v[t->n].pid = pid;
	t->v[t->n].epoch = epoch;
	t->v[t->n].first = first;
	t->n++;
	return 0;
}

/* One batch read back at off: open or close what it says. */
static int
rebuild_batch(struct plog *l, struct rtx *t, const uint8_t *h, int fd,
    off_t pos, size_t sz)
{
	struct txnsnap_entry *e;
	struct ctrl_marker m;
	struct txn_aborted a;
	uint8_t buf[256];
	int64_t off = (int64_t)be64_get(h + BATCH_OFF_BASE_OFFSET);
	int64_t pid = (int64_t)be64_get(h + BATCH_OFF_PRODUCER_ID);
	int16_t epoch = (int16_t)be16_get(h + BATCH_OFF_PRODUCER_EPOCH);
	size_t i;

	if (!ctrl_is_transactional(h) || pid < 0)
		return 0;
	if (!ctrl_is_control(h)) {
		if (rtx_find(t, pid) == NULL && rtx_add(t, pid, epoch, off) == -1)
			return -1;
		return 0;
	}
	if (sz > sizeof(buf) || pread(fd, buf, sz, pos) != (ssize_t)sz ||
	    ctrl_marker_parse(buf, sz, &m) != 1)
		return 0;	/* not a marker Flume knows: skipped, as readers do */
	if ((e = rtx_find(t, pid)) == NULL || e->first > off || epoch < e->epoch)
		return 0;
	if (m.type == CTRL_ABORT) {
		a.pid = pid;
		a.first = e->first;
		a.last = off;
		a.lso = off + 1;
		for (i = 0; i < t->n; i++)
			if (&t->v[i] != e && t->v[i].first < a.lso)
				a.lso = t->v[i].first;
		if (txnindex_append(plog_dir(l), plog_segment_of(l, off), &a) == -1)
			return -1;
	}
	*e = t->v[--t->n];
	return 0;
}

/* Every batch of [from, end): rebuild_batch, stepping over damage. */
static int
rebuild_scan(struct plog *l, struct rtx *t, int64_t from, int64_t end)
{
	uint8_t h[BATCH_HEADER_SIZE];
	struct plog_slice sl;
	off_t pos, stop;
	size_t sz;

	while (from < end) {
		if (plog_read(l, from, end, 1u << 20, &sl) == -1) {
			if (errno != EBADMSG || sl.next_offset <= from)
				return -1;
			from = sl.next_offset;
			continue;
		}
		if (sl.len == 0 || sl.next_offset <= from)
			break;
		for (pos = sl.pos, stop = sl.pos + (off_t)sl.len;
		    stop - pos >= BATCH_HEADER_SIZE; pos += (off_t)sz) {
			if (pread(sl.fd, h, sizeof(h), pos) != (ssize_t)sizeof(h)) {
				errno = EIO;
				return -1;
			}
			sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(h + BATCH_OFF_LENGTH);
			if (sz < BATCH_HEADER_SIZE || (off_t)sz > stop - pos)
				break;
			if (rebuild_batch(l, t, h, sl.fd, pos, sz) == -1)
				return -1;
		}
		from = sl.next_offset;
	}
	return 0;
}

int
txn_rebuild(struct shm *s, struct shm_partition *p, struct plog *l)
{
	const char *dir = plog_dir(l);
	struct rtx t = { NULL, 0, 0 };
	int64_t snap = -1, from, start = plog_start_offset(l);
	int64_t end = plog_end_offset(l), *bases = NULL;
	size_t nb = 0, i;
	int r, n = 0;

	if ((r = txnsnap_load(dir, end, &snap, &t.v, &t.n)) == -1)
		return -1;
	if (r == 0)
		return 0;	/* never had a transaction (txnsnap.h) */
	atomic_store(&p->txn_seen, 1);
	t.cap = t.n;
	from = snap > start ? snap : start;
	/* The markers from there on are indexed again by the scan. */
	if (plog_segment_bases(l, &bases, &nb) == -1)
		goto fail;
	for (i = 0; i < nb; i++)
		if ((i + 1 == nb || bases[i + 1] > from) &&
		    txnindex_truncate(dir, bases[i], from) == -1)
			goto fail;
	if (rebuild_scan(l, &t, from, end) == -1)
		goto fail;
	for (i = 0; i < t.n; i++) {
		producer_id_raise(s, t.v[i].pid);
		if (producer_txn_open(s, p, t.v[i].pid, t.v[i].epoch,
		    t.v[i].first) == -1)
			log_warnx("%s: producer %lld: no slot for its open "
			    "transaction from offset %lld", dir,
			    (long long)t.v[i].pid, (long long)t.v[i].first);
		else
			n++;
	}
	free(bases);
	free(t.v);
	return n;
fail:
	free(bases);
	free(t.v);
	return -1;
}
