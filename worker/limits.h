/*
 * Broker-wide connection limit (max_connections_total) on top of the
 * per-worker one.  There is no shared total counter to leak: the total
 * is the sum of the workers' own children[].connections counters, which
 * the master zeroes when a worker dies (and a new worker starts at 0),
 * so a crashed worker's connections stop counting the moment it is
 * reaped.
 */
#ifndef FLUME_WORKER_LIMITS_H
#define FLUME_WORKER_LIMITS_H

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

#endif
