/*
 * "Which offset was current at time T": the first offset of a partition
 * whose record timestamp is >= T, for Kafka ListOffsets, the native
 * LIST_OFFSETS timestamp form and the group reset --to-time alike.
 */
#ifndef FLUME_WORKER_TIMELOOKUP_H
#define FLUME_WORKER_TIMELOOKUP_H

#include <stdint.h>

struct worker;
struct shm_partition;

/*
 * Into *off the first offset of p at or after the log start whose record
 * timestamp is >= ts, and into *rts that record's timestamp; both -1 when
 * no visible record reaches ts.  Only what the writer has made visible is
 * looked at (store/plog.h, plog_reader_time_lookup).  A flume error code.
 */
int16_t	timelookup_offset(struct worker *w, struct shm_partition *p, int64_t ts,
	    int64_t *off, int64_t *rts);

#endif
