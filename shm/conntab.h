/*
 * The connections of each worker, for flume-admin connections: who is
 * connected, on which protocol, since when, and the client software a
 * Kafka client names in ApiVersions v3+ (KIP-511).
 *
 * Every worker slot owns a table of conn_slots entries (the limits; at
 * most max_connections_total, which no worker can exceed); only that
 * worker writes it, the master clears it when the worker has died,
 * before anyone is forked into the slot, and any worker reads it.  An
 * entry is a seqlock: its worker makes seq odd, writes, makes it even
 * again; a reader copies it and keeps the copy only when seq was even and
 * unchanged, else retries a few times and skips it.  A worker killed
 * mid-write leaves seq odd: readers skip that entry until the master
 * clears the table.
 */
#ifndef FLUME_SHM_CONNTAB_H
#define FLUME_SHM_CONNTAB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "shm/shm.h"

#define CONNTAB_SLOTS_MAX	65536u	/* entries per worker at most */
#define CONNTAB_PEER		48	/* "[v6 address]:port", NUL-terminated */
#define CONNTAB_SW		32	/* client software name or version */

enum conntab_face { CONNTAB_NATIVE = 0, CONNTAB_KAFKA = 1 };

struct conntab_entry {
	_Atomic uint32_t	seq;		/* odd while its worker writes it */
	uint8_t			used;
	uint8_t			face;		/* enum conntab_face */
	uint8_t			tls;
	uint8_t			pad;
	int64_t			opened_ms;	/* wall clock */
	char			peer[CONNTAB_PEER];
	char			sw_name[CONNTAB_SW];	/* "" until named */
	char			sw_version[CONNTAB_SW];
};

/* Bytes of the tables for these limits; SIZE_MAX on overflow. */
size_t	conntab_table_size(const struct shm_limits *lim);
/*
 * Worker in slot: an entry for a new connection; its index, or -1 when
 * the table is full (the connection is then just not listed).
 */
int	conntab_take(struct shm *s, uint32_t slot, int face, int tls,
	    const char *peer, int64_t opened_ms);
/* Worker in slot: entry idx's client software (lengths may be > max). */
void	conntab_set_client(struct shm *s, uint32_t slot, int idx,
	    const char *name, size_t nlen, const char *version, size_t vlen);
/* Worker in slot: entry idx is on TLS. */
void	conntab_set_tls(struct shm *s, uint32_t slot, int idx);
/* Worker in slot: the connection of entry idx is gone. */
void	conntab_release(struct shm *s, uint32_t slot, int idx);
/* A consistent copy of entry idx of slot's table: 1 in use, else 0. */
int	conntab_read(const struct shm *s, uint32_t slot, uint32_t idx,
	    struct conntab_entry *out);
/* Entries per worker table. */
uint32_t conntab_slots(const struct shm *s);
/* Master: empty the table of a slot whose worker is gone. */
void	conntab_clear(struct shm *s, uint32_t slot);

#endif
