/*
 * Growing a topic's partition count (Kafka's CreatePartitions, the
 * native CREATE_PARTITIONS), for both faces (worker/op/partitions.c).
 *
 * The new slots are taken and reset in shared memory at once
 * (shm_topic_grow()); the writer then makes the new partitions' logs,
 * rewrites topic.meta with the new count and only then publishes the
 * count, so produce, fetch and metadata see the old topic or the whole
 * new one, and a crash leaves the old count or the new one on disk.  The
 * request waits (OP_WAIT) for that publication, as a create waits for its
 * files.  A topic only grows: a count not above the current one (or one
 * a grow in progress already asked for) is OP_BAD_PARTITIONS.  Groups
 * subscribed to the topic rebalance onto the new partitions (shm/group.h:
 * a partition count change starts a rebalance).  Keys route over the new
 * count from then on, so the order of one key's records holds only
 * within each side of the grow, as in Kafka.
 *
 * Needs admin permission on the topic; the reserved names are never
 * grown (OP_RESERVED_TOPIC, logged).
 */
#ifndef FLUME_WORKER_OP_PARTITIONS_H
#define FLUME_WORKER_OP_PARTITIONS_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

/* How long a grow waits when its request carries no timeout (native). */
#define PARTITIONS_GROW_TIMEOUT_MS	25000

struct op_partitions_grow {
	int32_t		 count;		/* asked: the new total (caller) */
	int		 validate_only;	/* check everything, change nothing (caller) */
	int64_t		 deadline;	/* caller; 0: answer once asked */
	enum op_err	 err;		/* the outcome once OP_DONE */
	int32_t		 current;	/* the count it had (or a grow asked) */
	int		 ti;		/* the entry waited on, -1: none */
	uint32_t	 inc;		/* its partition 0's incarnation */
};

/*
 * Grow name to a->count partitions.  OP_DONE with a->err: OP_BAD_TOPIC_NAME,
 * OP_RESERVED_TOPIC, OP_DENIED_TOPIC (logged), OP_NO_TOPIC,
 * OP_BAD_PARTITIONS (not above a->current), OP_NO_ROOM (over
 * max_partitions, or no slots left), or OP_OK (validate_only, or no
 * deadline: asked, not waited for).  OP_WAIT: asked, call
 * op_partitions_grow_poll().
 */
enum op_status op_partitions_grow(const struct op_ctx *x, const char *name,
	    size_t len, struct op_partitions_grow *a);
/*
 * OP_DONE once the new count is published (OP_OK), the topic was deleted
 * meanwhile (OP_NO_TOPIC) or the deadline passed (OP_TIMEOUT: the grow
 * goes on); else OP_WAIT.
 */
enum op_status op_partitions_grow_poll(const struct op_ctx *x,
	    struct op_partitions_grow *a);

#endif
