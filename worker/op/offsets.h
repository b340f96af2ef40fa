/*
 * Offsets of a partition: its earliest, its latest (next_offset:
 * everything acknowledged, ring included) and "which offset was current
 * at time T", the first offset whose record timestamp is >= T, for a
 * list of offsets and the group reset --to-time alike.
 */
#ifndef FLUME_WORKER_OP_OFFSETS_H
#define FLUME_WORKER_OP_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct shm_partition;

#define OP_OFFSET_EARLIEST	(-2)
#define OP_OFFSET_LATEST	(-1)

/*
 * The offset of (topic, partition) that which asks for: OP_OFFSET_EARLIEST,
 * OP_OFFSET_LATEST (*timestamp -1 for both) or a time in ms, then the
 * first offset at or after it with the record's timestamp in *timestamp
 * (both -1 when no record reaches it).  Needs the right to produce to or
 * consume the topic.  OP_OK, OP_DENIED_TOPIC, a lookup's error
 * (op_part_resolve()), OP_BAD_REQUEST (another negative which) or
 * OP_STORAGE.
 */
enum op_err op_list_offset(const struct op_ctx *x, const char *topic,
	    size_t len, int32_t partition, int64_t which, int64_t *offset,
	    int64_t *timestamp);
/*
 * The same for a read_committed consumer (Kafka's isolation level 1):
 * OP_OFFSET_LATEST is the last stable offset (shm/producer.h), and an
 * offset found by time at or past it is none (-1), as Kafka answers.
 */
enum op_err op_list_offset_committed(const struct op_ctx *x,
	    const char *topic, size_t len, int32_t partition, int64_t which,
	    int64_t *offset, int64_t *timestamp);
/*
 * Kafka's MAX_TIMESTAMP (ListOffsets v7+) of (topic, partition), as
 * op_list_offset() checks it: the offset of the first record at or after
 * the log start with the largest timestamp in the partition, and that
 * timestamp (both -1 for an empty log), among what the writer has made
 * visible (plog_reader_max_time: the time indexes and a short scan).
 */
enum op_err op_list_offset_max_ts(const struct op_ctx *x, const char *topic,
	    size_t len, int32_t partition, int64_t *offset, int64_t *timestamp);
/*
 * Into *off the first offset of p at or after the log start whose record
 * timestamp is >= ts, and into *rts that record's timestamp; both -1 when
 * no visible record reaches ts.  Only what the writer has made visible
 * is looked at (plog_reader_time_lookup, through op_reader()): a binary
 * search and a scan of about index_interval_bytes of batch headers.
 * OP_OK or OP_STORAGE.
 */
enum op_err op_offset_for_time(struct worker *w, struct shm_partition *p,
	    int64_t ts, int64_t *off, int64_t *rts);

#endif
