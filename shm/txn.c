/*
 * The transaction table (see txn.h).
 */
#include <errno.h>
#include <string.h>

#include "proto/txnlog.h"
#include "shm/lock.h"
#include "shm/txn.h"

#define TXN_ALIGN	64


static size_t
dir_size(void)
{
	return (sizeof(struct txn_dir) + TXN_ALIGN - 1) & ~(size_t)(TXN_ALIGN - 1);
}

/* Bytes of one entry with its arrays, 64-byte aligned; SIZE_MAX on overflow. */
static size_t
entry_size(const struct shm_limits *lim)
{
	size_t n = sizeof(struct shm_txn), a;

	if (__builtin_mul_overflow((size_t)lim->max_txn_parts,
	    sizeof(uint32_t) + sizeof(int64_t), &a) ||
	    __builtin_add_overflow(n, a, &n) ||
	    __builtin_mul_overflow((size_t)lim->max_txn_offsets,
	    sizeof(struct txn_offset), &a) ||
	    __builtin_add_overflow(n, a + 16 + TXN_ALIGN, &n))
		return SIZE_MAX;
	return n & ~(size_t)(TXN_ALIGN - 1);
}

size_t
txn_table_size(const struct shm_limits *lim)
{
	size_t e, n;

	if (lim->max_txns == 0)
		return 0;
	if ((e = entry_size(lim)) == SIZE_MAX ||
	    __builtin_mul_overflow(e, (size_t)lim->max_txns, &n) ||
	    __builtin_add_overflow(n, dir_size(), &n))
		return SIZE_MAX;
	return n;
}

static struct txn_dir *
txn_dir(const struct shm *s)
{
	return (struct txn_dir *)(void *)s->txns;
}

int
txn_table_init(struct shm *s)
{
	if (s->hdr->limits.max_txns == 0)
		return 0;
	return lock_init(&txn_dir(s)->lock);
}

/* A dead holder may have left a change unlogged: log every entry again. */
static void
txn_repair(void *arg)
{
	struct shm *s = arg;
	uint32_t i, n = txn_count(s);

	for (i = 0; i < n; i++)
		atomic_fetch_add(&txn_at(s, i)->gen, 1);
}

int
txn_lock(struct shm *s)
{
	if (s->hdr->limits.max_txns == 0) {
		errno = ENOSPC;
		return -1;
	}
	return lock_take(&txn_dir(s)->lock, txn_repair, s);
}

void
txn_unlock(struct shm *s)
{
	lock_release(&txn_dir(s)->lock);
}

uint32_t
txn_count(const struct shm *s)
{
	uint32_t n;

	if (s->hdr->limits.max_txns == 0)
		return 0;
	n = atomic_load_explicit(&txn_dir(s)->count, memory_order_acquire);
	return n < s->hdr->limits.max_txns ? n : s->hdr->limits.max_txns;
}

struct shm_txn *
txn_at(const struct shm *s, uint32_t i)
{
	return (struct shm_txn *)(void *)(s->txns + dir_size() +
	    (size_t)i * entry_size(&s->hdr->limits));
}

uint32_t *
txn_parts(const struct shm *s, struct shm_txn *t)
{
	(void)s;
	return (uint32_t *)(void *)((uint8_t *)t + sizeof(*t));
}

int64_t *
txn_marks(const struct shm *s, struct shm_txn *t)
{
	size_t o = sizeof(*t) + (size_t)s->hdr->limits.max_txn_parts *
	    sizeof(uint32_t);

	o = (o + 7) & ~(size_t)7;
	return (int64_t *)(void *)((uint8_t *)t + o);
}

struct txn_offset *
txn_offs(const struct shm *s, struct shm_txn *t)
{
	return (struct txn_offset *)(void *)(txn_marks(s, t) +
	    s->hdr->limits.max_txn_parts);
}

int
txn_find(struct shm *s, const char *id, size_t len)
{
	uint32_t i, n = txn_count(s);
	struct shm_txn *t;

	for (i = 0; i < n; i++) {
		t = txn_at(s, i);
		if (atomic_load_explicit(&t->used, memory_order_acquire) &&
		    t->id_len == len && memcmp(t->id, id, len) == 0)
			return (int)i;
	}
	return -1;
}

int
txn_find_pid(struct shm *s, int64_t pid)
{
	uint32_t i, n = txn_count(s);
	struct shm_txn *t;

	for (i = 0; i < n; i++) {
		t = txn_at(s, i);
		if (atomic_load_explicit(&t->used, memory_order_acquire) &&
		    t->pid == pid)
			return (int)i;
	}
	return -1;
}

int
txn_create(struct shm *s, const char *id, size_t len)
{
	struct txn_dir *d = txn_dir(s);
	uint32_t i, n = txn_count(s);
	struct shm_txn *t;

	if (len > TXN_ID_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!atomic_load_explicit(&txn_at(s, i)->used,
		    memory_order_acquire))
			break;
	if (i == n) {
		if (n >= s->hdr->limits.max_txns) {
			errno = ENOSPC;
			return -1;
		}
		atomic_store_explicit(&d->count, n + 1, memory_order_release);
	}
	t = txn_at(s, i);
	atomic_store(&t->state, TXN_EMPTY);
	t->pid = -1;
	atomic_store(&t->epoch, -1);
	t->timeout_ms = 0;
	t->start_ms = -1;
	t->update_ms = 0;
	atomic_store(&t->nparts, 0);
	atomic_store(&t->noffs, 0);
	atomic_store(&t->ngroups, 0);
	atomic_store(&t->marks_sent, 0);
	atomic_store(&t->log_offset, -1);
	memcpy(t->id, id, len);
	t->id[len] = '\0';
	t->id_len = (uint32_t)len;
	/* Not logged yet: logged_gen stays behind gen. */
	atomic_store(&t->logged_gen, atomic_load(&t->gen));
	atomic_store(&t->durable_gen, atomic_load(&t->gen));
	atomic_store_explicit(&t->used, 1, memory_order_release);
	return (int)i;
}

void
txn_touch(struct shm_txn *t, int64_t now)
{
	t->update_ms = now;
	atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
}

int
txn_has_part(const struct shm *s, struct shm_txn *t, uint32_t slot)
{
	uint32_t i, n = atomic_load_explicit(&t->nparts, memory_order_acquire);
	const uint32_t *p = txn_parts(s, t);

	if (n > s->hdr->limits.max_txn_parts)
		n = s->hdr->limits.max_txn_parts;
	for (i = 0; i < n; i++)
		if (p[i] == slot)
			return (int)i;
	return -1;
}

int
txn_group(struct shm_txn *t, const char *group, size_t len)
{
	uint32_t i, n = atomic_load_explicit(&t->ngroups, memory_order_acquire);

	if (n > TXN_GROUPS)
		n = TXN_GROUPS;
	for (i = 0; i < n; i++)
		if (strlen(t->groups[i]) == len &&
		    memcmp(t->groups[i], group, len) == 0)
			return (int)i;
	return -1;
}

void
txn_clear(struct shm_txn *t)
{
	atomic_store_explicit(&t->nparts, 0, memory_order_release);
	atomic_store_explicit(&t->noffs, 0, memory_order_release);
	atomic_store_explicit(&t->ngroups, 0, memory_order_release);
	atomic_store(&t->marks_sent, 0);
}

const char *
txn_state_name(uint32_t st)
{
	return txnlog_state_name(st);
}

int
txn_state_parse(const char *name, size_t len)
{
	return txnlog_state_parse(name, len);
}

int
txn_offset_pending(struct shm *s, const char *group, size_t len,
    uint32_t slot)
{
	uint32_t i, j, n = txn_count(s), no, st;
	struct shm_txn *t;
	struct txn_offset *o;
	int g;

	for (i = 0; i < n; i++) {
		t = txn_at(s, i);
		if (!atomic_load_explicit(&t->used, memory_order_acquire))
			continue;
		st = atomic_load_explicit(&t->state, memory_order_acquire);
		if (st != TXN_ONGOING && st != TXN_PREPARE_COMMIT &&
		    st != TXN_PREPARE_ABORT)
			continue;
		if ((g = txn_group(t, group, len)) < 0)
			continue;
		no = atomic_load_explicit(&t->noffs, memory_order_acquire);
		if (no > s->hdr->limits.max_txn_offsets)
			no = s->hdr->limits.max_txn_offsets;
		o = txn_offs(s, t);
		for (j = 0; j < no; j++)
			if (o[j].group == (uint32_t)g && o[j].slot == slot)
				return 1;
	}
	return 0;
}
