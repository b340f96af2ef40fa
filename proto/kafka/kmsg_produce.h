/*
 * Produce (0) and InitProducerId (22) as descriptions (kdesc.h).  The
 * records are a byte range of the request (zero copy), as proto/batch.h
 * reads them.
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_PRODUCE_H
#define FLUME_PROTO_KAFKA_KMSG_PRODUCE_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* Produce v0-12, flexible 9+. */
struct km_produce_part {
	int32_t		 index;
	struct kstr	 records;			/* nullable */
};

struct km_produce_topic {
	struct kstr	 name;
	struct karray	 partition_data;	/* km_produce_part */
};

struct km_produce_req {
	struct kstr	 transactional_id;		/* 3+ */
	int16_t		 acks;
	int32_t		 timeout_ms;
	struct karray	 topic_data;		/* km_produce_topic */
};

struct km_record_error {			/* BatchIndexAndErrorMessage */
	int32_t		 batch_index;
	struct kstr	 batch_index_error_message;
};

struct km_leader {				/* LeaderIdAndEpoch */
	int32_t		 leader_id;
	int32_t		 leader_epoch;
};

struct km_produce_part_resp {
	int32_t		 index;
	int16_t		 error_code;
	int64_t		 base_offset;
	int64_t		 log_append_time_ms;		/* 2+ */
	int64_t		 log_start_offset;		/* 5+ */
	struct karray	 record_errors;		/* km_record_error, 8+ */
	struct kstr	 error_message;			/* 8+ */
	struct km_leader current_leader;		/* 10+, tag 0 */
};

struct km_produce_topic_resp {
	struct kstr	 name;
	struct karray	 partition_responses;	/* km_produce_part_resp */
};

struct km_node_endpoint {
	int32_t		 node_id;
	struct kstr	 host;
	int32_t		 port;
	struct kstr	 rack;
};

struct km_produce_resp {
	struct karray	 responses;		/* km_produce_topic_resp */
	int32_t		 throttle_time_ms;		/* 1+ */
	struct karray	 node_endpoints;	/* km_node_endpoint, 10+ */
};

/* InitProducerId v0-5, flexible 2+. */
struct km_init_pid_req {
	struct kstr	 transactional_id;		/* nullable */
	int32_t		 transaction_timeout_ms;
	int64_t		 producer_id;			/* 3+ */
	int16_t		 producer_epoch;		/* 3+ */
};

struct km_init_pid_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
	int64_t		 producer_id;
	int16_t		 producer_epoch;
};

extern const struct kmsg kmsg_produce, kmsg_init_producer_id;

#endif
