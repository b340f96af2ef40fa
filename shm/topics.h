/*
 * The topic directory in the shared region: topic names to table entries
 * and their partitions' slots (struct shm_topic, shm.h).  Lookups are
 * lock-free (an entry's state is published last); create and delete
 * change entries under the header's dir_lock.
 */
#ifndef FLUME_SHM_TOPICS_H
#define FLUME_SHM_TOPICS_H

#include <stddef.h>
#include <stdint.h>

#include "shm/shm.h"

int	shm_topic_find(struct shm *s, const char *name, size_t len);	/* index or -1 */
/*
 * Create a topic of n partitions, each ring empty with next_offset 0.
 * Returns the index; -1 with EEXIST (and *idx set) if it exists, ENOSPC
 * when the topic or partition tables are full.
 */
int	shm_topic_create(struct shm *s, const char *name, size_t len, int32_t n, int *idx);
/*
 * Worker: start deleting a READY topic (state DELETING; the writer does
 * the rest).  When it returns, every partition is dead and its
 * incarnation bumped: nothing enters any more, also through a partition
 * lock that cannot be taken (ENOTRECOVERABLE).  Its index, or -1 with
 * ENOENT when no READY topic has that name.
 */
int	shm_topic_delete_begin(struct shm *s, const char *name, size_t len);
/*
 * Writer, after it removed the files: reset topic ti's partition slots
 * to empty (a slot whose lock cannot be taken gets a new one) and store
 * FREE, so a later create can reuse the entry.
 */
void	shm_topic_delete_end(struct shm *s, int ti);
/* The control block of a published topic's partition, or NULL. */
struct shm_partition *shm_partition(struct shm *s, int topic, int32_t partition);

#endif
