/*
 * Broker-wide connection limits on top of the per-worker one:
 * max_connections_total, and max_connections_per_ip (counts per client
 * address in shm/ipcount.h, each worker's own table, cleared by the
 * master when the worker dies, so a killed worker leaks no counts).
 *
 * max_connections_total:  There is no shared total counter to leak: the total
 * is the sum of the workers' own children[].connections counters, which
 * the master zeroes when a worker dies (and a new worker starts at 0),
 * so a crashed worker's connections stop counting the moment it is
 * reaped.
 */
#ifndef FLUME_WORKER_LIMITS_H
#define FLUME_WORKER_LIMITS_H

#include <sys/socket.h>
#include <stdint.h>

struct worker;

/*
 * Reserve one connection against max_connections_total: 0 (reserved;
 * give it back with limits_conn_release() once conn_new() has counted
 * the connection, or failed), -1 when the broker is full.
 */
int	limits_conn_reserve(struct worker *w);
void	limits_conn_release(struct worker *w);
/* Connections open in all workers now, as the counters say. */
uint64_t limits_conn_total(const struct worker *w);
/*
 * Reserve one connection from the address in ss against
 * max_connections_per_ip: 0 with *key (0 when not counted: no limit, not
 * an IP address, or this worker's table full, logged with peer), to be
 * given back with limits_ip_release(); -1 when the address is at its
 * limit.
 */
int	limits_ip_reserve(struct worker *w, const struct sockaddr_storage *ss,
	    const char *peer, uint64_t *key);
/* Give back a reservation of limits_ip_reserve (key 0: nothing). */
void	limits_ip_release(struct worker *w, uint64_t key);
/* The address of ss as shm/ipcount.h keys it; 0 when not an IP address. */
uint64_t limits_addr_key(const struct sockaddr_storage *ss);

/*
 * Memory of incomplete frames (partial_frame_memory per worker,
 * partial_frame_memory_per_ip per client address in it): a connection
 * whose reader holds bytes of a frame not yet whole is charged its
 * reader's whole buffer (conn.c), which grows only as bytes arrive
 * (proto/frame.h).  Growing past FRAME_READ_MIN must fit both limits,
 * with what the other connections hold (alone, a connection may grow to
 * any frame max_request_bytes allows); a connection it does not fit
 * stops being read until it does.
 *
 * May a connection from addr (0: unknown) that is charged held bytes be
 * charged want instead, with reserved bytes already promised to others?
 * 1 yes, 0 not now.
 */
int	limits_partial_fits(const struct worker *w, uint64_t addr, size_t held,
	    size_t want, uint64_t reserved);
/* A connection's charge changes from held to now bytes. */
void	limits_partial_charge(struct worker *w, size_t held, size_t now);

#endif
