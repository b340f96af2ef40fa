/*
 * Finding a topic and a partition by name for an operation, with the
 * partition's incarnation (shm/shm.h), so that a request that waits
 * notices its topic deleted meanwhile, even when a new topic reuses the
 * slot.
 */
#ifndef FLUME_WORKER_OP_PART_H
#define FLUME_WORKER_OP_PART_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct shm_partition;

/*
 * Find (or, with create and auto_create_topics, create) topic name; its
 * index in *tidx.  A reserved name (store/topic.h) is never created: it
 * is unknown like any topic that does not exist.  OP_OK,
 * OP_BAD_TOPIC_NAME, OP_NO_TOPIC, OP_BAD_PARTITIONS (its configured
 * count is out of range), OP_NO_ROOM or OP_INTERNAL.
 */
enum op_err op_topic_resolve(struct worker *w, const char *name, size_t len,
	    int create, int *tidx);
/* op_topic_resolve() and partition of it: OP_NO_TOPIC if out of range. */
enum op_err op_part_resolve(struct worker *w, const char *name, size_t len,
	    int32_t partition, int create, struct shm_partition **pp);
/*
 * p's incarnation into *inc, taken while its topic is READY: OP_OK, or
 * OP_NO_TOPIC when it is being deleted.
 */
enum op_err op_part_incarnation(struct worker *w, struct shm_partition *p,
	    uint32_t *inc);
/* Was p's topic deleted since op_part_incarnation() gave inc? */
int	op_part_gone(const struct shm_partition *p, uint32_t inc);
/* The acknowledged end of p's log, ring included (next_offset). */
int64_t	op_part_end(struct shm_partition *p);

/*
 * Is name a reserved topic (store/topic.h: __consumer_offsets, the
 * broker's own)?  Then one line is logged, "<peer>: <api>: <what> of
 * <name> not <done>: an internal topic", and 1 is returned.
 */
int	op_part_internal(const struct op_ctx *x, const char *what,
	    const char *done, const char *name, size_t len);

#endif
