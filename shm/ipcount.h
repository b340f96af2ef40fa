/*
 * Connections per client address, for max_connections_per_ip.
 *
 * Every worker slot owns one open-addressing table of ip_slots entries;
 * only that worker writes it (the master clears it when the worker has
 * died, before anyone is forked into the slot), anyone reads it.  An
 * entry is one 64-bit atomic: a 48-bit hash of the address (never 0)
 * above a 16-bit count, so a reader always sees a whole entry.  An entry
 * whose count fell to 0 keeps its hash (probe chains never break) and
 * is reused for another address only when no empty entry is left.
 *
 * A reservation raises the worker's own count before it sums every
 * active worker's, as the total limit does (worker/limits.c): two
 * workers accepting from one address at the same instant may both
 * refuse the last connection, never both take it.  Two addresses whose
 * hashes collide share a count (about 1 in 10^8 for 4,000 addresses),
 * which can only refuse early.
 */
#ifndef FLUME_SHM_IPCOUNT_H
#define FLUME_SHM_IPCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "shm/shm.h"

#define IPCOUNT_MAX	65535u	/* largest per-address limit (16-bit counts) */
#define IPCOUNT_SLOTS_MAX 131072u	/* entries per worker table at most */

/* Bytes of the tables for these limits. */
size_t	ipcount_table_size(const struct shm_limits *lim);
/* The key of an address (len 4 or 16 bytes); never 0. */
uint64_t ipcount_key(const void *addr, size_t len);
/*
 * Worker in slot: take one connection of key if the sum over the active
 * workers stays at or below limit.  0, or -1 with errno EMFILE (over the
 * limit) or ENOSPC (this worker's table is full).
 */
int	ipcount_reserve(struct shm *s, uint32_t slot, uint64_t key,
	    uint32_t limit);
/* Worker in slot: give back one connection of key. */
void	ipcount_release(struct shm *s, uint32_t slot, uint64_t key);
/* Connections of key over every active worker. */
uint32_t ipcount_total(const struct shm *s, uint64_t key);
/* Master: empty the table of a slot whose worker is gone. */
void	ipcount_clear(struct shm *s, uint32_t slot);

#endif
