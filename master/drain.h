/*
 * A drain of a region's rings into the partition logs, run in a child of
 * its own: the master never writes a segment, so a drain that crashes on
 * damaged data takes the child down, not the supervisor.
 */
#ifndef FLUME_MASTER_DRAIN_H
#define FLUME_MASTER_DRAIN_H

#include "master/config.h"
#include "shm/shm.h"

#define DRAIN_GROUPS	0x1	/* also save the region's committed offsets */

/*
 * Fork a child ("flume-master: drain") that runs writer_drain_region on
 * s (and writer_groups_drain_region with DRAIN_GROUPS), logs what it
 * wrote and exits; wait for it.  s must be mapped shared (the child's
 * moves of ring heads are seen here).  0 when the child drained
 * everything, -1 when it failed, died or could not be forked (logged):
 * the region must then be kept.
 */
int	drain_child(struct shm *s, const struct config *conf, int flags);

#endif
