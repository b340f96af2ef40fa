/*
 * Deleting records (Kafka's DeleteRecords, the native DELETE_RECORDS):
 * moving a partition's log start up, for both faces.
 *
 * A worker cannot touch the files (the writer owns them), so the request
 * is published in shared memory: the partition's delete_below is raised
 * (never lowered) to the offset asked, the writer persists the new start
 * (store/logstart.h), removes the segments wholly below it and raises
 * log_start; the request waits for that (OP_WAIT) as a topic create
 * waits for its files.  From then on a fetch below the start is
 * OP_OUT_OF_RANGE and the earliest offset is the new start, also after
 * a restart.  Needs admin on the topic (Kafka asks DELETE on it).
 */
#ifndef FLUME_WORKER_OP_RECORDS_H
#define FLUME_WORKER_OP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct shm_partition;

/* Kafka's DeleteRecords offset that means "the high watermark". */
#define OP_DELETE_TO_END	(-1)
/* How long a request without a timeout waits (the native one with 0). */
#define OP_DELETE_RECORDS_TIMEOUT_MS	30000

struct op_delete_records {
	int64_t			 offset;	/* asked; OP_DELETE_TO_END: the log end */
	int64_t			 deadline;	/* set by the caller */
	enum op_err		 err;		/* once OP_DONE */
	int64_t			 low_watermark;	/* once OP_DONE: the log start; -1 on error */
	struct shm_partition	*p;		/* waited on, NULL once done */
	uint32_t		 inc;
	int64_t			 target;	/* the start waited for */
};

/*
 * Delete the records of (topic, partition) below a->offset.  OP_DONE
 * with a->err: OP_DENIED_TOPIC (logged), OP_BAD_TOPIC_NAME, OP_NO_TOPIC,
 * OP_OUT_OF_RANGE (below 0 or past the log end: nothing changed), or
 * OP_OK when the log already starts there or later (low_watermark: the
 * start as it is).  OP_WAIT: asked of the writer; call
 * op_delete_records_poll().
 */
enum op_status op_delete_records(const struct op_ctx *x, const char *topic,
	    size_t len, int32_t partition, struct op_delete_records *a);
/*
 * OP_DONE once the log start reached the offset (OP_OK), the topic was
 * deleted (OP_NO_TOPIC) or the deadline passed (OP_TIMEOUT: the writer
 * still carries it out); else OP_WAIT.
 */
enum op_status op_delete_records_poll(const struct op_ctx *x,
	    struct op_delete_records *a);

#endif
