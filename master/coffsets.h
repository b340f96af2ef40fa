/*
 * __consumer_offsets, the broker's side (proto/coffsets.h has the
 * records): one place holds every group's committed offsets, native and
 * Kafka, as Kafka keeps them, in a compacted internal topic that Kafka's
 * tools and Burrow read.
 *
 * The writer appends what changed (master/writer_group.c); start-up
 * recovery rebuilds the region's committed offsets from the topic:
 * replayed in offset order per partition, the latest record of a key
 * wins, a tombstone deletes it.  A group lives in one partition
 * (coffsets_partition_for), so its records are in order.
 */
#ifndef FLUME_MASTER_COFFSETS_H
#define FLUME_MASTER_COFFSETS_H

#include <stdint.h>

#include "master/config.h"
#include "shm/shm.h"
#include "store/plog.h"

/*
 * Partitions of __consumer_offsets: its topic.meta's count, or the
 * configured offsets_topic_num_partitions while it is not made yet
 * (the count is fixed once it is).
 */
int32_t	coffsets_partitions(const struct config *conf);

struct coffsets_replay {
	uint64_t	records;	/* commit records read */
	uint64_t	tombstones;
	uint64_t	dropped;	/* for topics or partitions that are gone */
	uint64_t	bad;		/* records that do not decode */
};

/*
 * Master, start-up recovery: read every record of the log l (partition
 * part of __consumer_offsets) into the region's groups, as committed and
 * as logged (the writer then need not append them again).  0 or -1.
 */
int	coffsets_replay(struct shm *s, struct plog *l, int32_t part,
	    struct coffsets_replay *r);
/* After every partition was replayed: free groups left with no offset. */
void	coffsets_replay_end(struct shm *s);

#endif
