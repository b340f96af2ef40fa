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

#endif
