/*
 * The consumer-group API handlers of a worker (JOIN_GROUP to
 * DESCRIBE_GROUP), hooked into worker/handlers.c's switches.  The state
 * they act on is the shared group table (shm/group.h); a JOIN_GROUP that
 * must wait for its rebalance is parked (REQ_WAIT), never blocked on.
 */
#ifndef FLUME_WORKER_GROUP_H
#define FLUME_WORKER_GROUP_H

#include <stddef.h>
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

/* ---- shared with the Kafka group APIs (worker/kafka/group.c) ---- */

struct group_params;
struct shm_group;
struct group_tp;

void	wgroup_params(const struct worker *w, struct group_params *gp);
/*
 * Wake every other worker that parked requests: a group's state or
 * generation changed, and one of them may hold a request waiting for it.
 */
void	wgroup_wake_all(struct worker *w);
/* Log why group_create() (join 0) refused group name, if for room. */
void	wgroup_no_room(struct worker *w, const char *name, size_t len);
/* Lock group gidx (logging a repair); NULL on failure or if it was deleted. */
struct shm_group *wgroup_lock(struct worker *w, int gidx,
	    const struct group_params *gp, uint32_t *state0, uint32_t *gen0);
/*
 * wgroup_lock(), and NULL unless the slot still holds group name: a slot
 * deleted and reused since the lookup holds another group.
 */
struct shm_group *wgroup_lock_name(struct worker *w, int gidx,
	    const char *name, size_t len, const struct group_params *gp,
	    uint32_t *state0, uint32_t *gen0);
/* Unlock; wake the other workers if the state or generation moved. */
void	wgroup_unlock(struct worker *w, struct shm_group *g, uint32_t state0,
	    uint32_t gen0);
/* The (topic, partition) of a partition slot; 0 or -1. */
int	wgroup_slot_tp(struct worker *w, struct conn *c, uint32_t slot,
	    struct group_tp *tp);
/* Topic and partition to a partition slot; a flume error code. */
int16_t	wgroup_part(struct worker *w, const char *topic, size_t len,
	    int32_t partition, uint32_t *slot);

#endif
