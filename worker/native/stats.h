/*
 * The STATS api (18) in a worker: a snapshot of the broker's figures
 * (shm/stats.h), the same ones the metrics child serves.
 */
#ifndef FLUME_WORKER_NATIVE_STATS_H
#define FLUME_WORKER_NATIVE_STATS_H

struct worker;
struct conn;
struct req;

/* Take the snapshot and encode it; leaves r DONE (or failed with an error). */
void	stats_handler_exec(struct worker *w, struct conn *c, struct req *r);
/* Append the encoded answer of a DONE, error-free r to c's output. */
void	stats_handler_emit(struct worker *w, struct conn *c, struct req *r);

#endif
