/*
 * ListOffsets (2) as a description (kdesc.h): a partition's offset at a
 * time, or its earliest (-2) or latest (-1).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_LISTOFF_H
#define FLUME_PROTO_KAFKA_KMSG_LISTOFF_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* The timestamps that ask for an end rather than a time. */
#define KLIST_OFFSETS_LATEST	(-1)
#define KLIST_OFFSETS_EARLIEST	(-2)

/* ListOffsets v0-10, flexible 6+. */
struct km_listoff_part {
	int32_t		 partition_index;
	int32_t		 current_leader_epoch;		/* 4+ */
	int64_t		 timestamp;
	int32_t		 max_num_offsets;		/* 0 only */
};

struct km_listoff_topic {
	struct kstr	 name;
	struct karray	 partitions;			/* km_listoff_part */
};

struct km_listoff_req {
	int32_t		 replica_id;
	int8_t		 isolation_level;		/* 2+ */
	struct karray	 topics;			/* km_listoff_topic */
	int32_t		 timeout_ms;			/* 10+ */
};

struct km_listoff_part_resp {
	int32_t		 partition_index;
	int16_t		 error_code;
	struct karray	 old_style_offsets;		/* int64_t, 0 only */
	int64_t		 timestamp;			/* 1+ */
	int64_t		 offset;			/* 1+ */
	int32_t		 leader_epoch;			/* 4+ */
};

struct km_listoff_topic_resp {
	struct kstr	 name;
	struct karray	 partitions;		/* km_listoff_part_resp */
};

struct km_listoff_resp {
	int32_t		 throttle_time_ms;		/* 2+ */
	struct karray	 topics;		/* km_listoff_topic_resp */
};

extern const struct kmsg kmsg_list_offsets;

#endif
