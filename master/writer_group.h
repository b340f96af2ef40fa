/*
 * The writer's consumer-group duties (DESIGN.md section 1): append
 * committed offsets to __consumer_offsets (master/coffsets.h), retire
 * the old offsets files once they are in it, and expire silent group
 * members; plus the two startup steps of the master's recovery that move
 * committed offsets between a region and the disk (files, store/
 * offsets.h: a drain child appends no batch of its own).
 */
#ifndef FLUME_MASTER_WRITER_GROUP_H
#define FLUME_MASTER_WRITER_GROUP_H

#include <stdint.h>

#include "common/broker.h"
#include "master/config.h"
#include "shm/shm.h"

struct writer_groups;

/* Writer start; b->shm mapped.  0 or -1 (ENOMEM). */
int	writer_groups_open(struct writer_groups **wgp, struct broker *b);
void	writer_groups_close(struct writer_groups *wg);
/*
 * One pass at now (CLOCK_MONOTONIC ms): append what every group's
 * offsets changed since the last pass (deleted groups' tombstones too); when due, run every group's state machine
 * (expiry, rebalance timeout) and wake the workers if a group changed.
 */
void	writer_groups_cycle(struct writer_groups *wg, int64_t now);
/* CLOCK_MONOTONIC ms of the next duty (INT64_MAX: none). */
int64_t	writer_groups_due(const struct writer_groups *wg);
/*
 * Topic delete: partition (slot) of topic is gone; every group that
 * logged an offset for it gets its tombstone in __consumer_offsets.
 */
void	writer_groups_topic_gone(struct writer_groups *wg, const char *topic,
	    int32_t partition, uint32_t slot);
/*
 * Shutdown, before the rings' last drain: append whatever changed.  0,
 * or -1 if some group's batch could not go into its ring.
 */
int	writer_groups_finish(struct writer_groups *wg, int64_t now);

/*
 * Master, startup recovery: save the committed offsets that an old,
 * re-attached region holds (trusting none of its entries unchecked).
 * Returns the number of groups saved, or -1 when a save failed (the
 * region must then be kept).
 */
int	writer_groups_drain_region(struct shm *old, const struct config *conf);
/*
 * Master, startup recovery: enter every saved group with its committed
 * offsets (for topics and partitions that exist) into a fresh region.
 * A file that cannot be read is logged and skipped.  Returns the number
 * of groups loaded, or -1 when the directory cannot be listed.
 */
int	writer_groups_load(struct shm *s, const struct config *conf);

#endif
