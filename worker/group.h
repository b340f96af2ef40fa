/*
 * The consumer-group API handlers of a worker (JOIN_GROUP to
 * DESCRIBE_GROUP), hooked into worker/handlers.c's switches.  The state
 * they act on is the shared group table (shm/group.h); a JOIN_GROUP that
 * must wait for its rebalance is parked (REQ_WAIT), never blocked on.
 */
#ifndef FLUME_WORKER_GROUP_H
#define FLUME_WORKER_GROUP_H

#include <stdint.h>

struct worker;
struct conn;
struct req;

/* Decode r's payload into r->dec (again after a detach). 0 or -1. */
int	wgroup_decode(struct conn *c, struct req *r);
/* Execute r (decoded); leaves it DONE or WAIT. */
void	wgroup_exec(struct worker *w, struct conn *c, struct req *r);
/* Re-check a parked JOIN_GROUP. */
void	wgroup_poll(struct worker *w, struct conn *c, struct req *r);
/* Append r's response (error or not) to c's output. */
void	wgroup_emit(struct worker *w, struct conn *c, struct req *r);

#endif
