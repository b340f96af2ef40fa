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

#include "proto/names.h"
#include "shm/shm.h"

int	shm_topic_find(struct shm *s, const char *name, size_t len);	/* index or -1 */
/*
 * Create a topic of n partitions, each ring empty with next_offset 0.
 * Returns the index; -1 with EEXIST (and *idx set) if it exists, ENOSPC
 * when the topic or partition tables are full.
 */
int	shm_topic_create(struct shm *s, const char *name, size_t len, int32_t n, int *idx);
/*
 * The same with the topic's id (TOPIC_ID_LEN bytes, proto/names.h), as
 * recovery reads it from topic.meta; id NULL: a new random one, as
 * shm_topic_create makes.  -1 with EINVAL for an all-zero id.
 */
int	shm_topic_create_id(struct shm *s, const char *name, size_t len,
	    int32_t n, const uint8_t *id, int *idx);
/*
 * A new topic id into id: random, never all zero, and never one whose
 * Kafka text form (URL-safe base64) starts with '-', which Kafka's tools
 * would read as an option (Kafka's Uuid.randomUuid() avoids them too).
 */
void	shm_topic_id_new(uint8_t id[TOPIC_ID_LEN]);
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
/*
 * Worker: ask for READY topic name to grow to n partitions (n above its
 * count and any grow already asked; *cur says which).  Takes the slots
 * (shm/slots.h: slots_grow), resets [*cur, n) empty and stores grow_to
 * last; the writer then makes the files and publishes the count
 * (shm_topic_grow_publish), so every reader sees the old topic or the
 * whole new one.  The entry's index, or -1 with ENOENT (no such topic),
 * EINVAL (n not above *cur) or ENOSPC (no room).
 */
int	shm_topic_grow(struct shm *s, const char *name, size_t len, int32_t n,
	    int32_t *cur);
/* Writer, once the files of partitions below n exist: publish n. */
void	shm_topic_grow_publish(struct shm *s, int ti, int32_t n);

#endif
