/*
 * A worker's small tables keyed by client address (the log limiter,
 * worker/lograte.h; the authentication throttle, worker/authlimit.h).
 *
 * A table is a fixed array, private to the worker process, of entries
 * whose first member is a struct addr_slot.  An address hashes to a
 * bucket of ADDRTAB_WAYS entries; when the bucket is full, its least
 * recently used entry is taken over, so memory stays fixed whatever the
 * number of addresses, and an address seen often keeps its entry.
 */
#ifndef FLUME_WORKER_ADDRTAB_H
#define FLUME_WORKER_ADDRTAB_H

#include <stddef.h>
#include <stdint.h>

#define ADDRTAB_ADDR_MAX	48	/* an IPv6 address in text, with room */
#define ADDRTAB_WAYS		8

struct addr_slot {
	char		 addr[ADDRTAB_ADDR_MAX];	/* "" = free */
	int64_t		 used;				/* last addrtab_get, ms */
};

/*
 * The address of a peer name as conn.c writes it: "127.0.0.1:5555"
 * gives "127.0.0.1", "[::1]:5555" gives "::1"; anything else is kept
 * whole (cut to fit).
 */
void	addrtab_addr(const char *peer, char out[ADDRTAB_ADDR_MAX]);
/*
 * The entry of addr in tab (n entries of size bytes, n a multiple of
 * ADDRTAB_WAYS), made when missing: a new entry is zero past its slot.
 * Its used time becomes now.
 */
void	*addrtab_get(void *tab, size_t n, size_t size, const char *addr,
	    int64_t now);

#endif
