/*
 * Connections per client address (see ipcount.h).
 */
#include <errno.h>
#include <stdatomic.h>

#include "shm/ipcount.h"

#define IP_COUNT_BITS	16
#define IP_COUNT_MASK	((1ull << IP_COUNT_BITS) - 1)

static _Atomic uint64_t *
ipcount_table(const struct shm *s, uint32_t slot)
{
	return (_Atomic uint64_t *)(void *)s->ipcount +
	    (size_t)slot * s->hdr->limits.ip_slots;
}

size_t
ipcount_table_size(const struct shm_limits *lim)
{
	size_t n;

	if (__builtin_mul_overflow((size_t)lim->child_slots,
	    (size_t)lim->ip_slots, &n) ||
	    __builtin_mul_overflow(n, sizeof(uint64_t), &n))
		return SIZE_MAX;
	return n;
}

uint64_t
ipcount_key(const void *addr, size_t len)
{
	const unsigned char *p = addr;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	/* FNV-1a 64, folded to 48 bits. */
	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	h = (h ^ (h >> 48)) & ((1ull << 48) - 1);
	return h == 0 ? 1 : h;
}

/* The entry of key in table t, or -1; *free_at gets a usable one (or -1). */
static long
ipcount_find(_Atomic uint64_t *t, uint32_t n, uint64_t key, long *free_at)
{
	uint64_t e;
	uint32_t i, at;
	long reuse = -1;

	*free_at = -1;
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		at = (uint32_t)((key + i) % n);
		e = atomic_load_explicit(&t[at], memory_order_acquire);
		if (e == 0) {
			*free_at = at;
			break;
		}
		if ((e >> IP_COUNT_BITS) == key)
			return at;
		if ((e & IP_COUNT_MASK) == 0 && reuse == -1)
			reuse = at;
	}
	if (reuse != -1)
		*free_at = reuse;
	return -1;
}

uint32_t
ipcount_total(const struct shm *s, uint64_t key)
{
	const struct shm_child *ch;
	uint32_t slot, n = s->hdr->limits.ip_slots, total = 0;
	long at, unused;

	for (slot = 0; slot < s->hdr->limits.child_slots; slot++) {
		ch = &s->children[slot];
		/* A dead worker's connections died with it. */
		if (ch->role != ROLE_WORKER ||
		    atomic_load_explicit(&ch->state, memory_order_acquire) !=
		    CHILD_ACTIVE)
			continue;
		at = ipcount_find(ipcount_table(s, slot), n, key, &unused);
		if (at >= 0)
			total += (uint32_t)(atomic_load_explicit(
			    &ipcount_table(s, slot)[at], memory_order_acquire) &
			    IP_COUNT_MASK);
	}
	return total;
}

int
ipcount_reserve(struct shm *s, uint32_t slot, uint64_t key, uint32_t limit)
{
	_Atomic uint64_t *t = ipcount_table(s, slot);
	uint32_t n = s->hdr->limits.ip_slots;
	uint64_t e;
	long at, free_at;

	if ((at = ipcount_find(t, n, key, &free_at)) < 0) {
		if (free_at < 0) {
			errno = ENOSPC;
			return -1;
		}
		at = free_at;
		atomic_store_explicit(&t[at], key << IP_COUNT_BITS,
		    memory_order_release);
	}
	e = atomic_load_explicit(&t[at], memory_order_relaxed);
	if ((e & IP_COUNT_MASK) == IP_COUNT_MASK) {
		errno = EMFILE;
		return -1;
	}
	/* Ours first, then the sum: see ipcount.h. */
	atomic_store_explicit(&t[at], e + 1, memory_order_seq_cst);
	if (ipcount_total(s, key) > limit) {
		ipcount_release(s, slot, key);
		errno = EMFILE;
		return -1;
	}
	return 0;
}

void
ipcount_release(struct shm *s, uint32_t slot, uint64_t key)
{
	_Atomic uint64_t *t = ipcount_table(s, slot);
	uint64_t e;
	long at, unused;

	if ((at = ipcount_find(t, s->hdr->limits.ip_slots, key, &unused)) < 0)
		return;
	e = atomic_load_explicit(&t[at], memory_order_relaxed);
	if ((e & IP_COUNT_MASK) > 0)
		atomic_store_explicit(&t[at], e - 1, memory_order_release);
}

void
ipcount_clear(struct shm *s, uint32_t slot)
{
	_Atomic uint64_t *t = ipcount_table(s, slot);
	uint32_t i;

	for (i = 0; i < s->hdr->limits.ip_slots; i++)
		atomic_store_explicit(&t[i], 0, memory_order_relaxed);
}
