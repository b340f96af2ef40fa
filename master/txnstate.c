/*
 * Replaying __transaction_state into the transaction table (see
 * txnstate.h).  Only the writer appends to the topic (clients are
 * refused); a record that does not decode is counted and skipped.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "master/replay.h"
#include "master/txnstate.h"
#include "proto/batch.h"
#include "proto/txnlog.h"
#include "shm/producer.h"
#include "shm/topics.h"
#include "shm/txn.h"
#include "store/topic.h"

int32_t
txnstate_partitions(const struct config *conf)
{
	int32_t n;

	if (topic_meta_load(conf->data_dir, TXNLOG_TOPIC, &n, NULL) == 0 &&
	    n > 0)
		return n;
	return conf->transaction_topic_partitions;
}

/* The slot of (topic, partition), or -1. */
static int64_t
tp_slot(struct shm *s, const char *topic, size_t len, int32_t part)
{
	struct shm_partition *p;
	int tidx;

	if (len > TOPIC_NAME_MAX ||
	    (tidx = shm_topic_find(s, topic, len)) < 0 ||
	    (p = shm_partition(s, tidx, part)) == NULL)
		return -1;
	return p - s->parts;
}

struct replay_buf {
	struct txnlog_part	*parts;
	struct txnlog_off	*offs;
};

static void
replay_record(struct shm *s, const struct record *rec, struct replay_buf *b,
    struct txnstate_replay *r)
{
	const struct shm_limits *lim = &s->hdr->limits;
	struct txnlog_value v;
	struct shm_txn *t;
	const char *id;
	size_t idl;
	uint32_t i, n;
	int64_t slot;
	int idx, gi;

	if (rec->key_len < 0 || txnlog_key_decode(rec->key,
	    (size_t)rec->key_len, &id, &idl) == -1 || idl == 0 ||
	    idl > TXN_ID_MAX) {
		r->bad++;
		return;
	}
	idx = txn_find(s, id, idl);
	if (rec->value_len < 0) {
		r->tombstones++;
		if (idx >= 0)
			atomic_store(&txn_at(s, (uint32_t)idx)->used, 0);
		return;
	}
	v.parts = b->parts;
	v.offs = b->offs;
	if (txnlog_value_decode(rec->value, (size_t)rec->value_len, &v,
	    lim->max_txn_parts, lim->max_txn_offsets) == -1 ||
	    v.status >= TXN_STATE_MAX) {
		r->bad++;
		return;
	}
	if (idx < 0 && (idx = txn_create(s, id, idl)) < 0) {
		r->dropped++;
		return;
	}
	t = txn_at(s, (uint32_t)idx);
	txn_clear(t);
	t->pid = v.pid;
	atomic_store(&t->epoch, v.epoch);
	t->timeout_ms = v.timeout_ms;
	t->start_ms = v.start_ms;
	t->update_ms = v.update_ms;
	n = 0;
	for (i = 0; i < v.nparts; i++) {
		slot = tp_slot(s, v.parts[i].topic, v.parts[i].topic_len,
		    v.parts[i].partition);
		if (slot < 0 || txn_has_part(s, t, (uint32_t)slot) >= 0)
			continue;
		txn_parts(s, t)[n] = (uint32_t)slot;
		txn_marks(s, t)[n] = -1;
		atomic_store(&t->nparts, ++n);
	}
	n = 0;
	for (i = 0; i < v.noffs; i++) {
		uint32_t ng = atomic_load(&t->ngroups);

		slot = tp_slot(s, v.offs[i].topic, v.offs[i].topic_len,
		    v.offs[i].partition);
		if (slot < 0 || v.offs[i].group_len == 0 ||
		    v.offs[i].group_len > GROUP_NAME_MAX)
			continue;
		if ((gi = txn_group(t, v.offs[i].group,
		    v.offs[i].group_len)) < 0) {
			if (ng >= TXN_GROUPS)
				continue;
			memcpy(t->groups[ng], v.offs[i].group,
			    v.offs[i].group_len);
			t->groups[ng][v.offs[i].group_len] = '\0';
			atomic_store(&t->ngroups, ng + 1);
			gi = (int)ng;
		}
		txn_offs(s, t)[n].group = (uint32_t)gi;
		txn_offs(s, t)[n].slot = (uint32_t)slot;
		txn_offs(s, t)[n].offset = v.offs[i].offset;
		atomic_store(&t->noffs, ++n);
	}
	atomic_store(&t->state, (uint32_t)v.status);
	/* As logged and durable: the writer appends nothing for it. */
	atomic_store(&t->logged_gen, atomic_load(&t->gen));
	atomic_store(&t->durable_gen, atomic_load(&t->gen));
	if (v.pid >= 0)
		producer_id_raise(s, v.pid);
	r->records++;
}

/* One record of the topic (replay_log()'s callback). */
struct txnstate_ctx {
	struct shm		*s;
	struct replay_buf	*b;
	struct txnstate_replay	*r;
};

static void
replay_one(void *arg, const struct record *rec)
{
	struct txnstate_ctx *c = arg;

	replay_record(c->s, rec, c->b, c->r);
}

int
txnstate_replay(struct shm *s, struct plog *l, struct txnstate_replay *r)
{
	const struct shm_limits *lim = &s->hdr->limits;
	struct replay_buf b;
	struct txnstate_ctx c = { s, &b, r };
	int rc = -1;

	if (lim->max_txns == 0)
		return 0;
	b.parts = calloc((size_t)lim->max_txn_parts + 1, sizeof(*b.parts));
	b.offs = calloc((size_t)lim->max_txn_offsets + 1, sizeof(*b.offs));
	if (b.parts != NULL && b.offs != NULL)
		rc = replay_log(l, replay_one, &c, &r->bad);
	free(b.parts);
	free(b.offs);
	return rc;
}

void
txnstate_replay_end(struct shm *s)
{
	uint32_t i, n = txn_count(s);
	struct shm_txn *t;

	for (i = 0; i < n; i++) {
		t = txn_at(s, i);
		if (!atomic_load(&t->used))
			continue;
		switch (atomic_load(&t->state)) {
		case TXN_DEAD:
			atomic_store(&t->used, 0);
			break;
		case TXN_PREPARE_EPOCH_FENCE:
			/* Kafka completes a fence as an abort. */
			atomic_store(&t->state, TXN_PREPARE_ABORT);
			break;
		default:
			break;
		}
	}
}
