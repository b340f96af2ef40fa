/*
 * Fetch (1) as a description (kdesc.h).  The records of a response are
 * bytes like any others here; the broker's sender may instead reference
 * them (wbuf_bytes_ref) when it wires this in.
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_FETCH_H
#define FLUME_PROTO_KAFKA_KMSG_FETCH_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_produce.h"	/* km_leader, km_node_endpoint */

/* Fetch v0-17, flexible 12+. */
struct km_replica_state {
	int32_t		 replica_id;
	int64_t		 replica_epoch;
};

struct km_fetch_part {
	int32_t		 partition;
	int32_t		 current_leader_epoch;		/* 9+ */
	int64_t		 fetch_offset;
	int32_t		 last_fetched_epoch;		/* 12+ */
	int64_t		 log_start_offset;		/* 5+ */
	int32_t		 partition_max_bytes;
	uint8_t		 replica_directory_id[16];	/* 17+, tag 0 */
};

struct km_fetch_topic {
	struct kstr	 topic;				/* 0-12 */
	uint8_t		 topic_id[16];			/* 13+ */
	struct karray	 partitions;			/* km_fetch_part */
};

struct km_forgotten_topic {
	struct kstr	 topic;				/* 7-12 */
	uint8_t		 topic_id[16];			/* 13+ */
	struct karray	 partitions;			/* int32_t */
};

struct km_fetch_req {
	struct kstr	 cluster_id;			/* 12+, tag 0 */
	int32_t		 replica_id;			/* 0-14 */
	struct km_replica_state replica_state;		/* 15+, tag 1 */
	int32_t		 max_wait_ms;
	int32_t		 min_bytes;
	int32_t		 max_bytes;			/* 3+ */
	int8_t		 isolation_level;		/* 4+ */
	int32_t		 session_id;			/* 7+ */
	int32_t		 session_epoch;			/* 7+ */
	struct karray	 topics;			/* km_fetch_topic */
	struct karray	 forgotten_topics_data;	/* km_forgotten_topic, 7+ */
	struct kstr	 rack_id;			/* 11+ */
};

struct km_epoch_end {				/* EpochEndOffset */
	int32_t		 epoch;
	int64_t		 end_offset;
};

struct km_snapshot_id {
	int64_t		 end_offset;
	int32_t		 epoch;
};

struct km_aborted_txn {
	int64_t		 producer_id;
	int64_t		 first_offset;
};

struct km_fetch_part_resp {
	int32_t		 partition_index;
	int16_t		 error_code;
	int64_t		 high_watermark;
	int64_t		 last_stable_offset;		/* 4+ */
	int64_t		 log_start_offset;		/* 5+ */
	struct km_epoch_end diverging_epoch;		/* 12+, tag 0 */
	struct km_leader current_leader;		/* 12+, tag 1 */
	struct km_snapshot_id snapshot_id;		/* 12+, tag 2 */
	struct karray	 aborted_transactions;	/* km_aborted_txn, 4+ */
	int32_t		 preferred_read_replica;	/* 11+ */
	struct kstr	 records;			/* nullable */
};

struct km_fetch_topic_resp {
	struct kstr	 topic;				/* 0-12 */
	uint8_t		 topic_id[16];			/* 13+ */
	struct karray	 partitions;		/* km_fetch_part_resp */
};

struct km_fetch_resp {
	int32_t		 throttle_time_ms;		/* 1+ */
	int16_t		 error_code;			/* 7+ */
	int32_t		 session_id;			/* 7+ */
	struct karray	 responses;		/* km_fetch_topic_resp */
	struct karray	 node_endpoints;	/* km_node_endpoint, 16+ */
};

extern const struct kmsg kmsg_fetch;

#endif
