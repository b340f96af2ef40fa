/*
 * CreatePartitions (37) as a description (kdesc.h).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_PARTITIONS_H
#define FLUME_PROTO_KAFKA_KMSG_PARTITIONS_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* CreatePartitions v0-3, flexible 2+. */
struct km_partitions_assignment {
	struct karray	 broker_ids;			/* int32_t */
};

struct km_partitions_topic {
	struct kstr	 name;
	int32_t		 count;
	struct karray	 assignments;	/* km_partitions_assignment, nullable */
};

struct km_create_partitions_req {
	struct karray	 topics;			/* km_partitions_topic */
	int32_t		 timeout_ms;
	uint8_t		 validate_only;
};

struct km_partitions_result {
	struct kstr	 name;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
};

struct km_create_partitions_resp {
	int32_t		 throttle_time_ms;
	struct karray	 results;			/* km_partitions_result */
};

extern const struct kmsg kmsg_create_partitions;

#endif
