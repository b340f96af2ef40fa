/*
 * Transactions, writer side (see writer_txn.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "master/writer_txn.h"
#include "proto/batch.h"
#include "proto/coffsets.h"
#include "proto/ctrl.h"
#include "proto/txnlog.h"
#include "shm/group.h"
#include "shm/ring.h"
#include "shm/topics.h"
#include "shm/txn.h"

#define WT_TICK_MS	1000	/* timeouts and expiry are checked this often */
#define WT_VALUE_MAX	(1u << 20)

/* The __transaction_state partition of id, or NULL (not there). */
static struct shm_partition *
wt_partition(struct shm *s, const char *id, size_t len, uint32_t *inc)
{
	struct shm_partition *p;
	int tidx;

	if ((tidx = shm_topic_find(s, TXNLOG_TOPIC, TXNLOG_TOPIC_LEN)) < 0 ||
	    (p = shm_partition(s, tidx, coffsets_partition_for(id, len,
	    (int32_t)s->topics[tidx].partitions))) == NULL)
		return NULL;
	*inc = atomic_load_explicit(&p->incarnation, memory_order_acquire);
	return p;
}

/* Topic name and partition of slot into tp; -1 if it is no topic's now. */
static int
slot_tp(struct shm *s, uint32_t slot, struct txnlog_part *tp)
{
	struct shm_partition *p;
	uint32_t ti;

	if (slot >= s->hdr->limits.max_partitions)
		return -1;
	p = &s->parts[slot];
	ti = p->topic;
	if (ti >= s->hdr->limits.max_topics ||
	    atomic_load(&s->topics[ti].state) != TOPIC_READY)
		return -1;
	tp->topic = s->topics[ti].name;
	tp->topic_len = s->topics[ti].name_len;
	tp->partition = p->partition;
	return 0;
}

/*
 * Append t's record (its state now, or a tombstone for Dead) to its
 * partition of __transaction_state.  0, or -1 with errno (EAGAIN: full).
 */
static int
wt_log(struct shm *s, struct shm_txn *t, uint64_t gen)
{
	struct batch_builder bb;
	struct txnlog_value v;
	struct txnlog_part *tps = NULL;
	struct txnlog_off *tos = NULL;
	struct txn_offset *o = txn_offs(s, t);
	struct shm_partition *p;
	uint8_t key[TXN_ID_MAX + 8], *val = NULL;
	const uint8_t *batch;
	uint32_t i, n, no, inc, st = atomic_load(&t->state);
	size_t kl, vl = 0, blen;
	int64_t base, next, real = clock_real_ms();
	int rc = -1, saved;

	if ((p = wt_partition(s, t->id, t->id_len, &inc)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	kl = txnlog_key(key, sizeof(key), t->id, t->id_len);
	memset(&v, 0, sizeof(v));
	n = atomic_load(&t->nparts);
	no = atomic_load(&t->noffs);
	if (n > s->hdr->limits.max_txn_parts)
		n = s->hdr->limits.max_txn_parts;
	if (no > s->hdr->limits.max_txn_offsets)
		no = s->hdr->limits.max_txn_offsets;
	batch_builder_init(&bb);
	if (st != TXN_DEAD) {
		if ((tps = calloc(n + 1, sizeof(*tps))) == NULL ||
		    (tos = calloc(no + 1, sizeof(*tos))) == NULL)
			goto out;
		v.pid = t->pid;
		v.epoch = (int16_t)atomic_load(&t->epoch);
		v.timeout_ms = t->timeout_ms;
		v.status = (int8_t)st;
		v.update_ms = t->update_ms;
		v.start_ms = t->start_ms;
		v.parts = tps;
		v.offs = tos;
		for (i = 0; i < n; i++)
			if (slot_tp(s, txn_parts(s, t)[i], &tps[v.nparts]) == 0)
				v.nparts++;
		for (i = 0; i < no; i++) {
			struct txnlog_part tp;

			if (o[i].group >= TXN_GROUPS ||
			    slot_tp(s, o[i].slot, &tp) == -1)
				continue;
			tos[v.noffs].group = t->groups[o[i].group];
			tos[v.noffs].group_len = strnlen(t->groups[o[i].group],
			    GROUP_NAME_MAX);
			tos[v.noffs].topic = tp.topic;
			tos[v.noffs].topic_len = tp.topic_len;
			tos[v.noffs].partition = tp.partition;
			tos[v.noffs].offset = __atomic_load_n(&o[i].offset,
			    __ATOMIC_ACQUIRE);
			v.noffs++;
		}
		vl = txnlog_value(NULL, 0, &v);
		if (vl > WT_VALUE_MAX) {
			errno = EMSGSIZE;
			goto out;
		}
		if ((val = malloc(vl)) == NULL ||
		    txnlog_value(val, vl, &v) != vl)
			goto out;
	}
	if (batch_builder_add(&bb, real, key, (int32_t)kl,
	    st == TXN_DEAD ? NULL : val, st == TXN_DEAD ? -1 : (int32_t)vl,
	    NULL, 0) == -1 ||
	    batch_builder_close(&bb, &batch, &blen) == -1)
		goto out;
	if (ring_append_hooked(s, p, inc, batch, blen, NULL, &base, &next) == -1)
		goto out;
	atomic_store(&t->log_part, (uint32_t)(p - s->parts));
	atomic_store(&t->log_offset, base);
	atomic_store_explicit(&t->logged_gen, gen, memory_order_release);
	atomic_store(&p->sync_wanted, 1);
	rc = 0;
out:
	saved = errno;
	batch_builder_free(&bb);
	free(tps);
	free(tos);
	free(val);
	errno = saved;
	return rc;
}

/*
 * Append the missing markers of a Prepare* t.  1 once every one is
 * appended, 0 to come back (a full ring).
 */
static int
wt_marks(struct shm *s, struct shm_txn *t, int commit)
{
	struct ctrl_marker m;
	uint8_t buf[CTRL_MARKER_SIZE];
	uint32_t i = atomic_load(&t->marks_sent), n = atomic_load(&t->nparts);
	uint32_t slot, inc;
	int64_t base, next;
	struct shm_partition *p;

	if (n > s->hdr->limits.max_txn_parts)
		n = s->hdr->limits.max_txn_parts;
	memset(&m, 0, sizeof(m));
	m.producer_id = t->pid;
	m.producer_epoch = (int16_t)atomic_load(&t->epoch);
	m.type = commit ? CTRL_COMMIT : CTRL_ABORT;
	m.coordinator_epoch = 0;
	for (; i < n; i++) {
		slot = txn_parts(s, t)[i];
		m.timestamp = clock_real_ms();
		ctrl_marker_encode(buf, &m);
		if (slot >= s->hdr->limits.max_partitions) {
			txn_marks(s, t)[i] = -1;
			atomic_store(&t->marks_sent, i + 1);
			continue;
		}
		p = &s->parts[slot];
		inc = atomic_load_explicit(&p->incarnation, memory_order_acquire);
		if (ring_append_hooked(s, p, inc, buf, sizeof(buf), NULL, &base,
		    &next) == -1) {
			if (errno == EAGAIN)
				return 0;
			/* The topic is gone: nothing left to mark there. */
			base = -1;
		} else
			atomic_store(&p->sync_wanted, 1);
		txn_marks(s, t)[i] = base;
		atomic_store_explicit(&t->marks_sent, i + 1, memory_order_release);
	}
	return 1;
}

/* Every marker of t durable? */
static int
wt_marks_durable(struct shm *s, struct shm_txn *t)
{
	uint32_t i, n = atomic_load(&t->marks_sent);
	int64_t off;

	for (i = 0; i < n; i++) {
		off = txn_marks(s, t)[i];
		if (off >= 0 && atomic_load(&s->parts[txn_parts(s, t)[i]].
		    durable_offset) <= off) {
			atomic_store(&s->parts[txn_parts(s, t)[i]].sync_wanted, 1);
			return 0;
		}
	}
	return 1;
}

/* A committed transaction's offsets become the groups' committed ones. */
static void
wt_apply_offsets(struct shm *s, struct shm_txn *t)
{
	struct txn_offset *o = txn_offs(s, t);
	struct shm_group *g;
	uint32_t i, n = atomic_load(&t->noffs), ng = atomic_load(&t->ngroups);
	int gi;

	if (n > s->hdr->limits.max_txn_offsets)
		n = s->hdr->limits.max_txn_offsets;
	for (i = 0; i < n; i++) {
		if (o[i].group >= ng || o[i].group >= TXN_GROUPS ||
		    o[i].slot >= s->hdr->limits.max_partitions)
			continue;
		gi = group_create(s, t->groups[o[i].group],
		    strnlen(t->groups[o[i].group], GROUP_NAME_MAX), 0);
		if (gi < 0) {
			log_warnx("transaction %s: group %s has no slot: its "
			    "committed offset is dropped", t->id,
			    t->groups[o[i].group]);
			continue;
		}
		g = group_at(s, (uint32_t)gi);
		group_offset_set(s, g, o[i].slot, o[i].offset);
		atomic_fetch_add_explicit(&g->commit_seq, 1,
		    memory_order_release);
	}
}

/* One entry; 1 if something moved. */
static int
wt_entry(struct shm *s, const struct config *conf, struct shm_txn *t,
    int64_t real, int tick)
{
	uint64_t gen = atomic_load_explicit(&t->gen, memory_order_acquire);
	uint32_t st = atomic_load(&t->state);
	int moved = 0, commit;
	int64_t logged;

	if (gen != atomic_load(&t->logged_gen) && wt_log(s, t, gen) == -1 &&
	    errno != EAGAIN)
		log_warn("transaction %s: cannot log its state to %s", t->id,
		    TXNLOG_TOPIC);
	logged = (int64_t)atomic_load(&t->logged_gen);
	if ((uint64_t)logged != atomic_load(&t->durable_gen)) {
		uint32_t lp = atomic_load(&t->log_part);

		if (lp < s->hdr->limits.max_partitions &&
		    atomic_load(&s->parts[lp].durable_offset) >
		    atomic_load(&t->log_offset)) {
			atomic_store_explicit(&t->durable_gen, (uint64_t)logged,
			    memory_order_release);
			moved = 1;
		} else if (lp < s->hdr->limits.max_partitions)
			atomic_store(&s->parts[lp].sync_wanted, 1);
	}
	if (st == TXN_DEAD) {
		if (atomic_load(&t->durable_gen) == gen) {
			atomic_store_explicit(&t->used, 0, memory_order_release);
			log_info("transactional id %s expired", t->id);
		}
		return moved;
	}
	/* A Prepare* completes once its own record is durable. */
	if ((st == TXN_PREPARE_COMMIT || st == TXN_PREPARE_ABORT) &&
	    atomic_load(&t->durable_gen) == gen) {
		commit = st == TXN_PREPARE_COMMIT;
		if (!wt_marks(s, t, commit) || !wt_marks_durable(s, t))
			return moved;
		if (commit)
			wt_apply_offsets(s, t);
		txn_clear(t);
		atomic_store_explicit(&t->state, commit ? TXN_COMPLETE_COMMIT :
		    TXN_COMPLETE_ABORT, memory_order_release);
		txn_touch(t, real);
		return 1;
	}
	if (!tick)
		return moved;
	if (st == TXN_ONGOING && t->start_ms >= 0 &&
	    real - t->start_ms > t->timeout_ms) {
		int32_t e = atomic_load(&t->epoch);

		/* Kafka: fence with a bumped epoch, then abort. */
		if (e < INT16_MAX - 1)
			atomic_store(&t->epoch, e + 1);
		atomic_store(&t->marks_sent, 0);
		atomic_store_explicit(&t->state, TXN_PREPARE_ABORT,
		    memory_order_release);
		txn_touch(t, real);
		log_info("transaction %s (producer %lld) timed out after %d ms: "
		    "aborted", t->id, (long long)t->pid, t->timeout_ms);
		return 1;
	}
	if ((st == TXN_EMPTY || st == TXN_COMPLETE_COMMIT ||
	    st == TXN_COMPLETE_ABORT) &&
	    real - t->update_ms > conf->transactional_id_expiration_ms) {
		atomic_store_explicit(&t->state, TXN_DEAD, memory_order_release);
		txn_touch(t, real);
		return 1;
	}
	return moved;
}

static int64_t wt_next_tick;

int
writer_txn_cycle(struct shm *s, const struct config *conf, int64_t now)
{
	uint32_t i, n;
	int moved = 0, tick = 0, round;
	int64_t real = clock_real_ms();

	if (s->hdr->limits.max_txns == 0 || (n = txn_count(s)) == 0)
		return 0;
	if (now >= wt_next_tick) {
		tick = 1;
		wt_next_tick = now + WT_TICK_MS;
	}
	if (txn_lock(s) == -1) {
		log_warn("transaction table lock");
		return 0;
	}
	/* Twice: a completion's record goes out in the same cycle. */
	for (round = 0; round < 2; round++)
		for (i = 0; i < n; i++) {
			struct shm_txn *t = txn_at(s, i);

			if (atomic_load_explicit(&t->used, memory_order_acquire))
				moved |= wt_entry(s, conf, t, real,
				    tick && round == 0);
		}
	txn_unlock(s);
	return moved;
}

int64_t
writer_txn_due(struct shm *s, int64_t now)
{
	uint32_t i, n;
	struct shm_txn *t;
	uint32_t st;

	if (s->hdr->limits.max_txns == 0 || (n = txn_count(s)) == 0)
		return INT64_MAX;
	for (i = 0; i < n; i++) {
		t = txn_at(s, i);
		if (!atomic_load(&t->used))
			continue;
		st = atomic_load(&t->state);
		/* Work in flight: come back soon (durability, markers). */
		if (atomic_load(&t->gen) != atomic_load(&t->durable_gen) ||
		    st == TXN_PREPARE_COMMIT || st == TXN_PREPARE_ABORT ||
		    st == TXN_DEAD)
			return now + 5;
	}
	return wt_next_tick > now ? wt_next_tick : now + WT_TICK_MS;
}
