/*
 * The transaction coordinator's operations (see txn.h), after Kafka's
 * TransactionCoordinator: handleInitProducerId, handleAddPartitions-
 * ToTransaction, handleEndTransaction, and the group coordinator's
 * TxnOffsetCommit, over shm/txn.h.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/clock.h"
#include "common/config.h"
#include "common/log.h"
#include "proto/batch.h"
#include "proto/coffsets.h"
#include "proto/ctrl.h"
#include "shm/producer.h"
#include "shm/topics.h"
#include "shm/txn.h"
#include "shm/group.h"
#include "worker/op/access.h"
#include "worker/op/group.h"
#include "worker/op/part.h"
#include "worker/op/producer.h"
#include "worker/op/txn.h"
#include "worker/worker.h"

/* Epochs are Kafka's int16; at the last one a new producer id is taken. */
#define TXN_EPOCH_LAST	(INT16_MAX - 1)

static void
wait_none(struct op_txn_wait *wt, enum op_err err)
{
	wt->idx = -1;
	wt->err = err;
}

/* After a change of entry idx under the lock: wait for it to be logged. */
static enum op_status
wait_for(const struct op_ctx *x, struct op_txn_wait *wt, int idx,
    struct shm_txn *t)
{
	struct worker *w = x->w;

	wt->idx = idx;
	wt->pid = t->pid;
	wt->gen = atomic_load_explicit(&t->gen, memory_order_acquire);
	wt->err = OP_OK;
	if (wt->deadline == 0)
		wt->deadline = w->now + w->conf->request_timeout_ms;
	worker_wake_writer(w, 1);
	return op_txn_poll(x, wt);
}

enum op_status
op_txn_poll(const struct op_ctx *x, struct op_txn_wait *wt)
{
	struct worker *w = x->w;
	struct shm_txn *t;

	if (wt->idx < 0)
		return OP_DONE;
	t = txn_at(w->shm, (uint32_t)wt->idx);
	if (!atomic_load_explicit(&t->used, memory_order_acquire) ||
	    t->pid != wt->pid) {
		/* Expired or fenced meanwhile: the change was overtaken. */
		wt->err = OP_TXN_FENCED;
		wt->idx = -1;
		return OP_DONE;
	}
	if (atomic_load_explicit(&t->durable_gen, memory_order_acquire) >=
	    wt->gen) {
		wt->idx = -1;
		return OP_DONE;
	}
	if (w->now >= wt->deadline) {
		/* Clients retry; the change stays and is logged later. */
		wt->err = OP_TIMEOUT;
		wt->idx = -1;
		return OP_DONE;
	}
	return OP_WAIT;
}

/* The lock, or OP_INTERNAL logged. */
static enum op_err
lock(const struct op_ctx *x)
{
	if (x->w->shm->hdr->limits.max_txns == 0)
		return OP_NO_ROOM;
	if (txn_lock(x->w->shm) == -1) {
		log_warn("%s: %s: transaction table lock", x->peer, x->api);
		return OP_INTERNAL;
	}
	return OP_OK;
}

/* A new epoch for t (a new producer id past the last one): 0 or -1. */
static int
bump_epoch(struct worker *w, struct shm_txn *t)
{
	int32_t e = atomic_load(&t->epoch);
	int64_t pid;

	if (t->pid >= 0 && e < TXN_EPOCH_LAST) {
		atomic_store(&t->epoch, e + 1);
		return 0;
	}
	if ((pid = producer_id_new(w->shm)) < 0)
		return -1;
	t->pid = pid;
	atomic_store(&t->epoch, 0);
	return 0;
}

enum op_status
op_txn_init(const struct op_ctx *x, struct op_txn_init *a)
{
	struct worker *w = x->w;
	struct shm *s = w->shm;
	struct shm_txn *t;
	enum op_err e;
	int idx;
	uint32_t st;
	int64_t now = clock_real_ms();

	a->pid = -1;
	a->epoch = -1;
	if (a->id_len == 0 || a->id_len > TXN_ID_MAX) {
		wait_none(&a->wait, OP_BAD_REQUEST);
		return OP_DONE;
	}
	if (a->timeout_ms <= 0 ||
	    a->timeout_ms > w->conf->transaction_max_timeout_ms) {
		wait_none(&a->wait, OP_TXN_BAD_TIMEOUT);
		return OP_DONE;
	}
	if ((e = lock(x)) != OP_OK) {
		wait_none(&a->wait, e);
		return OP_DONE;
	}
	if ((idx = txn_find(s, a->id, a->id_len)) < 0) {
		if (a->exp_pid >= 0) {
			/* Kafka: an expected id for an unknown one is fenced. */
			txn_unlock(s);
			wait_none(&a->wait, OP_TXN_FENCED);
			return OP_DONE;
		}
		if ((idx = txn_create(s, a->id, a->id_len)) < 0) {
			txn_unlock(s);
			log_warnx("%s: %s: max_transactions (%u) reached", x->peer,
			    x->api, s->hdr->limits.max_txns);
			wait_none(&a->wait, OP_NO_ROOM);
			return OP_DONE;
		}
		t = txn_at(s, (uint32_t)idx);
	} else
		t = txn_at(s, (uint32_t)idx);
	if (a->exp_pid >= 0 && (a->exp_pid != t->pid ||
	    a->exp_epoch != (int16_t)atomic_load(&t->epoch))) {
		txn_unlock(s);
		wait_none(&a->wait, OP_TXN_FENCED);
		return OP_DONE;
	}
	st = atomic_load(&t->state);
	switch (st) {
	case TXN_PREPARE_COMMIT:
	case TXN_PREPARE_ABORT:
	case TXN_PREPARE_EPOCH_FENCE:
	case TXN_DEAD:
		txn_unlock(s);
		wait_none(&a->wait, OP_TXN_CONCURRENT);
		return OP_DONE;
	case TXN_ONGOING:
		/*
		 * Fence the old instance and abort its transaction with the
		 * bumped epoch; the client retries (CONCURRENT_TRANSACTIONS)
		 * and gets a new epoch once the abort is complete.
		 */
		if (bump_epoch(w, t) == -1)
			goto no_id;
		atomic_store(&t->marks_sent, 0);
		atomic_store_explicit(&t->state, TXN_PREPARE_ABORT,
		    memory_order_release);
		txn_touch(t, now);
		txn_unlock(s);
		worker_wake_writer(w, 1);
		log_info("%s: transactional id %.*s: a new instance fences "
		    "producer %lld; its open transaction is aborted", x->peer,
		    (int)a->id_len, a->id, (long long)t->pid);
		wait_none(&a->wait, OP_TXN_CONCURRENT);
		return OP_DONE;
	default:
		break;
	}
	/* Empty, Complete*, or new: a new epoch (or id), state Empty. */
	if (bump_epoch(w, t) == -1)
		goto no_id;
	t->timeout_ms = a->timeout_ms;
	txn_clear(t);
	t->start_ms = -1;
	atomic_store_explicit(&t->state, TXN_EMPTY, memory_order_release);
	txn_touch(t, now);
	a->pid = t->pid;
	a->epoch = (int16_t)atomic_load(&t->epoch);
	txn_unlock(s);
	return wait_for(x, &a->wait, idx, t);
no_id:
	txn_unlock(s);
	wait_none(&a->wait, OP_NO_ROOM);
	return OP_DONE;
}

/*
 * Locked: the entry of who, checked as Kafka checks a request naming a
 * transaction; its index or -1 with *err.
 */
static int
txn_check(struct shm *s, const struct op_txn_who *who, enum op_err *err)
{
	struct shm_txn *t;
	int idx;

	if (who->id_len == 0 || who->id_len > TXN_ID_MAX) {
		*err = OP_BAD_REQUEST;
		return -1;
	}
	if ((idx = txn_find(s, who->id, who->id_len)) < 0) {
		*err = OP_TXN_BAD_MAPPING;
		return -1;
	}
	t = txn_at(s, (uint32_t)idx);
	if (t->pid != who->pid) {
		*err = OP_TXN_BAD_MAPPING;
		return -1;
	}
	if (who->epoch != (int16_t)atomic_load(&t->epoch)) {
		*err = OP_TXN_FENCED;
		return -1;
	}
	return idx;
}

/* Locked: may partitions be added to t now?  Moves Empty/Complete* on. */
static enum op_err
txn_open(struct shm_txn *t, int64_t now)
{
	uint32_t st = atomic_load(&t->state);

	if (st == TXN_PREPARE_COMMIT || st == TXN_PREPARE_ABORT ||
	    st == TXN_PREPARE_EPOCH_FENCE)
		return OP_TXN_CONCURRENT;
	if (st == TXN_DEAD)
		return OP_TXN_BAD_STATE;
	if (st != TXN_ONGOING) {
		txn_clear(t);
		t->start_ms = now;
	}
	return OP_OK;
}

/* Locked: add slot to t (if not there); OP_OK or OP_NO_ROOM. */
static enum op_err
add_slot(struct shm *s, struct shm_txn *t, uint32_t slot)
{
	uint32_t n = atomic_load(&t->nparts);

	if (txn_has_part(s, t, slot) >= 0)
		return OP_OK;
	if (n >= s->hdr->limits.max_txn_parts)
		return OP_NO_ROOM;
	txn_parts(s, t)[n] = slot;
	txn_marks(s, t)[n] = -1;
	atomic_store_explicit(&t->nparts, n + 1, memory_order_release);
	return OP_OK;
}

static void
parts_fail(struct op_txn_part *parts, int32_t n, enum op_err e)
{
	int32_t i;

	for (i = 0; i < n; i++)
		parts[i].err = e;
}

enum op_status
op_txn_add(const struct op_ctx *x, const struct op_txn_who *who,
    struct op_txn_part *parts, int32_t n, int verify_only,
    struct op_txn_wait *wait)
{
	struct worker *w = x->w;
	struct shm *s = w->shm;
	struct shm_partition *p;
	struct shm_txn *t;
	uint32_t *slots;
	enum op_err e = OP_OK;
	int32_t i;
	int idx, bad = 0, added = 0;

	if (n <= 0) {
		wait_none(wait, OP_OK);
		return OP_DONE;
	}
	if ((slots = op_alloc(x, (size_t)n * sizeof(*slots))) == NULL) {
		parts_fail(parts, n, OP_NO_MEMORY);
		wait_none(wait, OP_NO_MEMORY);
		return OP_DONE;
	}
	for (i = 0; i < n; i++) {
		parts[i].err = op_part_resolve(w, parts[i].topic,
		    parts[i].topic_len, parts[i].partition, 0, &p);
		if (parts[i].err != OP_OK) {
			parts[i].err = OP_NO_TOPIC;
			bad = 1;
			continue;
		}
		slots[i] = (uint32_t)(p - s->parts);
	}
	if (bad && !verify_only) {
		for (i = 0; i < n; i++)
			if (parts[i].err == OP_OK)
				parts[i].err = OP_TXN_NOT_ATTEMPTED;
		wait_none(wait, OP_NO_TOPIC);
		return OP_DONE;
	}
	if ((e = lock(x)) != OP_OK) {
		parts_fail(parts, n, e);
		wait_none(wait, e);
		return OP_DONE;
	}
	if ((idx = txn_check(s, who, &e)) < 0)
		goto fail;
	t = txn_at(s, (uint32_t)idx);
	if (verify_only) {
		for (i = 0; i < n; i++)
			if (parts[i].err == OP_OK &&
			    (atomic_load(&t->state) != TXN_ONGOING ||
			    txn_has_part(s, t, slots[i]) < 0))
				parts[i].err = OP_TXN_BAD_STATE;
		txn_unlock(s);
		wait_none(wait, OP_OK);
		return OP_DONE;
	}
	/* Everything there already: nothing to log (as Kafka). */
	if (atomic_load(&t->state) == TXN_ONGOING) {
		for (i = 0; i < n; i++)
			if (txn_has_part(s, t, slots[i]) < 0)
				break;
		if (i == n) {
			txn_unlock(s);
			wait_none(wait, OP_OK);
			return OP_DONE;
		}
	}
	if (atomic_load(&t->nparts) + (uint32_t)n > s->hdr->limits.max_txn_parts) {
		for (i = 0, added = 0; i < n; i++)
			if (txn_has_part(s, t, slots[i]) < 0)
				added++;
		if (atomic_load(&t->state) != TXN_ONGOING ||
		    atomic_load(&t->nparts) + (uint32_t)added >
		    s->hdr->limits.max_txn_parts) {
			log_warnx("%s: %s: transaction %.*s: over "
			    "max_transaction_partitions (%u)", x->peer, x->api,
			    (int)who->id_len, who->id,
			    s->hdr->limits.max_txn_parts);
			e = OP_NO_ROOM;
			goto fail;
		}
	}
	if ((e = txn_open(t, clock_real_ms())) != OP_OK)
		goto fail;
	for (i = 0; i < n; i++)
		(void)add_slot(s, t, slots[i]);
	atomic_store_explicit(&t->state, TXN_ONGOING, memory_order_release);
	txn_touch(t, clock_real_ms());
	txn_unlock(s);
	return wait_for(x, wait, idx, t);
fail:
	txn_unlock(s);
	parts_fail(parts, n, e);
	wait_none(wait, e);
	return OP_DONE;
}

enum op_status
op_txn_add_group(const struct op_ctx *x, const struct op_txn_who *who,
    const char *group, size_t glen, struct op_txn_wait *wait)
{
	struct worker *w = x->w;
	struct shm *s = w->shm;
	struct shm_partition *p;
	struct shm_txn *t;
	enum op_err e;
	uint32_t ng;
	int idx, tidx, gi;

	if (glen == 0 || glen > GROUP_NAME_MAX) {
		wait_none(wait, OP_BAD_GROUP);
		return OP_DONE;
	}
	if ((tidx = shm_topic_find(s, COFFSETS_TOPIC, COFFSETS_TOPIC_LEN)) < 0 ||
	    (p = shm_partition(s, tidx, coffsets_partition_for(group, glen,
	    s->topics[tidx].partitions))) == NULL) {
		wait_none(wait, OP_INTERNAL);
		return OP_DONE;
	}
	if ((e = lock(x)) != OP_OK) {
		wait_none(wait, e);
		return OP_DONE;
	}
	if ((idx = txn_check(s, who, &e)) < 0)
		goto fail;
	t = txn_at(s, (uint32_t)idx);
	if (atomic_load(&t->state) == TXN_ONGOING &&
	    txn_group(t, group, glen) >= 0 &&
	    txn_has_part(s, t, (uint32_t)(p - s->parts)) >= 0) {
		txn_unlock(s);
		wait_none(wait, OP_OK);
		return OP_DONE;
	}
	if ((e = txn_open(t, clock_real_ms())) != OP_OK)
		goto fail;
	if ((gi = txn_group(t, group, glen)) < 0) {
		ng = atomic_load(&t->ngroups);
		if (ng >= TXN_GROUPS) {
			e = OP_NO_ROOM;
			goto fail;
		}
		memcpy(t->groups[ng], group, glen);
		t->groups[ng][glen] = '\0';
		atomic_store_explicit(&t->ngroups, ng + 1, memory_order_release);
	}
	if ((e = add_slot(s, t, (uint32_t)(p - s->parts))) != OP_OK)
		goto fail;
	atomic_store_explicit(&t->state, TXN_ONGOING, memory_order_release);
	txn_touch(t, clock_real_ms());
	txn_unlock(s);
	return wait_for(x, wait, idx, t);
fail:
	txn_unlock(s);
	wait_none(wait, e);
	return OP_DONE;
}

enum op_status
op_txn_end(const struct op_ctx *x, const struct op_txn_who *who, int commit,
    struct op_txn_wait *wait)
{
	struct worker *w = x->w;
	struct shm *s = w->shm;
	struct shm_txn *t;
	enum op_err e;
	uint32_t st;
	int idx;

	if ((e = lock(x)) != OP_OK) {
		wait_none(wait, e);
		return OP_DONE;
	}
	if ((idx = txn_check(s, who, &e)) < 0)
		goto fail;
	t = txn_at(s, (uint32_t)idx);
	st = atomic_load(&t->state);
	switch (st) {
	case TXN_ONGOING:
		atomic_store(&t->marks_sent, 0);
		atomic_store_explicit(&t->state, commit ? TXN_PREPARE_COMMIT :
		    TXN_PREPARE_ABORT, memory_order_release);
		txn_touch(t, clock_real_ms());
		txn_unlock(s);
		return wait_for(x, wait, idx, t);
	case TXN_COMPLETE_COMMIT:
		e = commit ? OP_OK : OP_TXN_BAD_STATE;
		break;
	case TXN_COMPLETE_ABORT:
		e = commit ? OP_TXN_BAD_STATE : OP_OK;
		break;
	case TXN_PREPARE_COMMIT:
		e = commit ? OP_TXN_CONCURRENT : OP_TXN_BAD_STATE;
		break;
	case TXN_PREPARE_ABORT:
		e = commit ? OP_TXN_BAD_STATE : OP_TXN_CONCURRENT;
		break;
	case TXN_PREPARE_EPOCH_FENCE:
		e = OP_TXN_CONCURRENT;
		break;
	default:		/* Empty, Dead */
		e = OP_TXN_BAD_STATE;
		break;
	}
fail:
	txn_unlock(s);
	wait_none(wait, e);
	return OP_DONE;
}

/* A TxnOffsetCommit's group member, checked as OffsetCommit's. */
static enum op_err
member_check(const struct op_ctx *x, const char *group, size_t glen,
    const struct op_txn_member *m)
{
	struct worker *w = x->w;
	struct group_params gp;
	struct shm_group *g;
	uint32_t s0, g0;
	int16_t rc;
	enum op_err e;
	int gidx, prev;

	if (m == NULL || (m->generation < 0 && m->id_len == 0))
		return OP_OK;
	if ((e = op_group_find(w, group, glen, OP_UNKNOWN_MEMBER, &gidx)) !=
	    OP_OK)
		return e;
	op_group_params(w, &gp);
	if ((g = op_group_lock(w, gidx, &gp, &s0, &g0)) == NULL)
		return OP_INTERNAL;
	rc = group_commit_check(w->shm, g, m->id, m->id_len, m->generation,
	    w->now, &gp, &prev);
	op_group_unlock(w, g, s0, g0);
	return rc == ERR_NONE ? OP_OK : op_group_err(rc);
}

enum op_status
op_txn_offsets(const struct op_ctx *x, const struct op_txn_who *who,
    const char *group, size_t glen, const struct op_txn_member *member,
    struct op_txn_off *offs, int32_t n, struct op_txn_wait *wait)
{
	struct worker *w = x->w;
	struct shm *s = w->shm;
	struct shm_partition *p;
	struct shm_txn *t;
	struct txn_offset *o;
	enum op_err e;
	uint32_t no, j, slot;
	int32_t i;
	int idx, gi;

	if (glen == 0 || glen > GROUP_NAME_MAX) {
		e = OP_BAD_GROUP;
		goto all;
	}
	if ((e = op_access_group(x, AUTH_GROUP_READ, group, glen)) != OP_OK ||
	    (e = member_check(x, group, glen, member)) != OP_OK)
		goto all;
	if ((e = lock(x)) != OP_OK)
		goto all;
	if ((idx = txn_check(s, who, &e)) < 0)
		goto unlock;
	t = txn_at(s, (uint32_t)idx);
	/* AddOffsetsToTxn first (Kafka: the group's partition is verified). */
	if (atomic_load(&t->state) != TXN_ONGOING ||
	    (gi = txn_group(t, group, glen)) < 0) {
		e = OP_TXN_BAD_STATE;
		goto unlock;
	}
	o = txn_offs(s, t);
	for (i = 0; i < n; i++) {
		offs[i].err = op_part_resolve(w, offs[i].topic,
		    offs[i].topic_len, offs[i].partition, 0, &p);
		if (offs[i].err != OP_OK) {
			offs[i].err = OP_NO_TOPIC;
			continue;
		}
		slot = (uint32_t)(p - s->parts);
		no = atomic_load(&t->noffs);
		for (j = 0; j < no; j++)
			if (o[j].group == (uint32_t)gi && o[j].slot == slot)
				break;
		if (j < no) {
			/* One 8-byte store: a torn entry never shows. */
			__atomic_store_n(&o[j].offset, offs[i].offset,
			    __ATOMIC_RELEASE);
			continue;
		}
		if (no >= s->hdr->limits.max_txn_offsets) {
			offs[i].err = OP_NO_ROOM;
			continue;
		}
		o[no].group = (uint32_t)gi;
		o[no].slot = slot;
		o[no].offset = offs[i].offset;
		atomic_store_explicit(&t->noffs, no + 1, memory_order_release);
	}
	txn_touch(t, clock_real_ms());
	txn_unlock(s);
	return wait_for(x, wait, idx, t);
unlock:
	txn_unlock(s);
all:
	for (i = 0; i < n; i++)
		offs[i].err = e;
	wait_none(wait, e);
	return OP_DONE;
}

/* A copy of entry t into out (partitions in request memory if want). */
static enum op_err
info_of(const struct op_ctx *x, struct shm_txn *t, struct op_txn_info *out,
    int want_parts)
{
	struct shm *s = x->w->shm;
	const uint32_t *sl = txn_parts(s, t);
	uint32_t i, n;

	memset(out, 0, sizeof(*out));
	out->id_len = t->id_len < sizeof(out->id) ? t->id_len :
	    sizeof(out->id) - 1;
	memcpy(out->id, t->id, out->id_len);
	out->pid = t->pid;
	out->epoch = (int16_t)atomic_load(&t->epoch);
	out->state = atomic_load(&t->state);
	out->timeout_ms = t->timeout_ms;
	out->start_ms = t->start_ms;
	out->update_ms = t->update_ms;
	n = atomic_load(&t->nparts);
	if (n > s->hdr->limits.max_txn_parts)
		n = s->hdr->limits.max_txn_parts;
	out->nparts_all = n;
	if (!want_parts)
		return OP_OK;
	if (n > 0 && (out->parts = op_alloc(x, n * sizeof(*out->parts))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < n; i++) {
		struct shm_partition *p;
		uint32_t ti;

		if (sl[i] >= s->hdr->limits.max_partitions)
			continue;
		p = &s->parts[sl[i]];
		ti = p->topic;
		if (ti >= s->hdr->limits.max_topics)
			continue;
		out->parts[out->nparts].topic = s->topics[ti].name;
		out->parts[out->nparts].partition = p->partition;
		out->nparts++;
	}
	return OP_OK;
}

enum op_err
op_txn_describe(const struct op_ctx *x, const char *id, size_t len,
    struct op_txn_info *out)
{
	struct shm *s = x->w->shm;
	enum op_err e;
	int idx;

	if ((e = lock(x)) != OP_OK)
		return e == OP_NO_ROOM ? OP_TXN_NOT_FOUND : e;
	if ((idx = txn_find(s, id, len)) < 0 ||
	    atomic_load(&txn_at(s, (uint32_t)idx)->state) == TXN_DEAD) {
		txn_unlock(s);
		return OP_TXN_NOT_FOUND;
	}
	e = info_of(x, txn_at(s, (uint32_t)idx), out, 1);
	txn_unlock(s);
	return e;
}

enum op_err
op_txn_list(const struct op_ctx *x, uint32_t states, const int64_t *pids,
    int32_t npids, int64_t min_ms, struct op_txn_info **out, int32_t *nout)
{
	struct shm *s = x->w->shm;
	struct shm_txn *t;
	uint32_t i, n, st;
	int32_t j, k = 0;
	int64_t now = clock_real_ms();
	enum op_err e;

	*out = NULL;
	*nout = 0;
	if (s->hdr->limits.max_txns == 0)
		return OP_OK;
	if ((e = lock(x)) != OP_OK)
		return e;
	n = txn_count(s);
	if (n > 0 && (*out = op_alloc(x, n * sizeof(**out))) == NULL) {
		txn_unlock(s);
		return OP_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		t = txn_at(s, i);
		if (!atomic_load(&t->used))
			continue;
		st = atomic_load(&t->state);
		if (st == TXN_DEAD || (states != 0 && !(states & (1u << st))))
			continue;
		if (npids > 0) {
			for (j = 0; j < npids; j++)
				if (pids[j] == t->pid)
					break;
			if (j == npids)
				continue;
		}
		/* Kafka's DurationFilter: started longer ago (any state). */
		if (min_ms >= 0 && now - t->start_ms <= min_ms)
			continue;
		(void)info_of(x, t, &(*out)[k++], 0);
	}
	txn_unlock(s);
	*nout = k;
	return OP_OK;
}

/* Locked: may (pid, epoch) append a transactional batch to slot? */
static enum op_err
produce_check_locked(struct shm *s, int64_t pid, int16_t epoch,
    uint32_t slot)
{
	struct shm_txn *t;
	int idx;
	int16_t cur;

	if ((idx = txn_find_pid(s, pid)) < 0)
		return OP_TXN_BAD_STATE;
	t = txn_at(s, (uint32_t)idx);
	cur = (int16_t)atomic_load(&t->epoch);
	if (epoch < cur)
		return OP_TXN_EPOCH;
	if (epoch != cur || atomic_load(&t->state) != TXN_ONGOING ||
	    txn_has_part(s, t, slot) < 0)
		return OP_TXN_BAD_STATE;
	return OP_OK;
}

enum op_err
op_txn_produce_check(struct worker *w, int64_t pid, int16_t epoch,
    uint32_t slot)
{
	struct shm *s = w->shm;
	enum op_err e;

	if (s->hdr->limits.max_txns == 0 || pid < 0)
		return OP_TXN_BAD_STATE;
	if (txn_lock(s) == -1)
		return OP_INTERNAL;
	e = produce_check_locked(s, pid, epoch, slot);
	txn_unlock(s);
	return e;
}

int
op_txn_batch(const uint8_t *recs, size_t len, int64_t *pid, int16_t *epoch)
{
	struct batch_header h;

	if (len < BATCH_HEADER_SIZE ||
	    batch_parse_header(recs, len, &h) != BATCH_OK || h.magic < 2 ||
	    !(h.attributes & BATCH_ATTR_TRANSACTIONAL))
		return 0;
	*pid = h.producer_id;
	*epoch = h.producer_epoch;
	return 1;
}

int
op_txn_append(struct worker *w, struct shm_partition *p, uint32_t inc,
    const uint8_t *recs, size_t len, int64_t *base, int64_t *next,
    enum op_err *err)
{
	struct shm *s = w->shm;
	int64_t pid = -1;
	int16_t epoch = -1;
	int rc;

	(void)op_txn_batch(recs, len, &pid, &epoch);
	if (s->hdr->limits.max_txns == 0 || pid < 0) {
		*err = OP_TXN_BAD_STATE;
		return -1;
	}
	if (txn_lock(s) == -1) {
		*err = OP_INTERNAL;
		return -1;
	}
	if ((*err = produce_check_locked(s, pid, epoch,
	    (uint32_t)(p - s->parts))) != OP_OK) {
		txn_unlock(s);
		return -1;
	}
	rc = op_producer_append(w, p, inc, recs, len, base, next, err);
	txn_unlock(s);
	return rc;
}

enum op_err
op_txn_batches(struct worker *w, uint32_t slot, const uint8_t *recs,
    size_t len)
{
	struct batch_header h;
	size_t pos = 0, sz;
	enum op_err e;

	while (len - pos >= BATCH_HEADER_SIZE &&
	    batch_parse_header(recs + pos, len - pos, &h) == BATCH_OK) {
		if (h.magic >= 2 && (h.attributes & BATCH_ATTR_CONTROL))
			return OP_CONTROL_BATCH;
		if (h.magic >= 2 && (h.attributes & BATCH_ATTR_TRANSACTIONAL) &&
		    (e = op_txn_produce_check(w, h.producer_id,
		    h.producer_epoch, slot)) != OP_OK)
			return e;
		if ((sz = batch_total_size(&h)) > len - pos)
			break;
		pos += sz;
	}
	return OP_OK;
}

int
op_txn_unstable(struct worker *w, const char *group, size_t glen,
    uint32_t slot)
{
	struct shm *s = w->shm;
	int v;

	if (s->hdr->limits.max_txns == 0 || txn_lock(s) == -1)
		return 0;
	v = txn_offset_pending(s, group, glen, slot);
	txn_unlock(s);
	return v;
}
