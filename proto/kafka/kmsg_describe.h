/*
 * The read-only cluster and log APIs as descriptions (kdesc.h):
 * OffsetForLeaderEpoch (23), DescribeLogDirs (35),
 * ListPartitionReassignments (46), DescribeCluster (60),
 * DescribeProducers (61) and DescribeTopicPartitions (75).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_DESCRIBE_H
#define FLUME_PROTO_KAFKA_KMSG_DESCRIBE_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* OffsetForLeaderEpoch v0-4, flexible 4+. */
struct km_ofle_part {
	int32_t		 partition;
	int32_t		 current_leader_epoch;		/* 2+ */
	int32_t		 leader_epoch;
};

struct km_ofle_topic {
	struct kstr	 topic;
	struct karray	 partitions;			/* km_ofle_part */
};

struct km_ofle_req {
	int32_t		 replica_id;			/* 3+ */
	struct karray	 topics;			/* km_ofle_topic */
};

struct km_ofle_part_resp {
	int16_t		 error_code;
	int32_t		 partition;
	int32_t		 leader_epoch;			/* 1+ */
	int64_t		 end_offset;
};

struct km_ofle_topic_resp {
	struct kstr	 topic;
	struct karray	 partitions;		/* km_ofle_part_resp */
};

struct km_ofle_resp {
	int32_t		 throttle_time_ms;		/* 2+ */
	struct karray	 topics;		/* km_ofle_topic_resp */
};

/* DescribeLogDirs v0-4, flexible 2+. */
struct km_logdirs_topic {
	struct kstr	 topic;
	struct karray	 partitions;			/* int32_t */
};

struct km_logdirs_req {
	struct karray	 topics;		/* km_logdirs_topic, null: all */
};

struct km_logdirs_part {
	int32_t		 partition_index;
	int64_t		 partition_size;
	int64_t		 offset_lag;
	uint8_t		 is_future_key;
};

struct km_logdirs_topic_resp {
	struct kstr	 name;
	struct karray	 partitions;			/* km_logdirs_part */
};

struct km_logdirs_result {
	int16_t		 error_code;
	struct kstr	 log_dir;
	struct karray	 topics;		/* km_logdirs_topic_resp */
	int64_t		 total_bytes;			/* 4+ */
	int64_t		 usable_bytes;			/* 4+ */
};

struct km_logdirs_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;			/* 3+ */
	struct karray	 results;			/* km_logdirs_result */
};

/* ListPartitionReassignments v0, flexible. */
struct km_lpr_topic {
	struct kstr	 name;
	struct karray	 partition_indexes;		/* int32_t */
};

struct km_lpr_req {
	int32_t		 timeout_ms;
	struct karray	 topics;		/* km_lpr_topic, null: all */
};

struct km_lpr_part_resp {
	int32_t		 partition_index;
	struct karray	 replicas;			/* int32_t */
	struct karray	 adding_replicas;		/* int32_t */
	struct karray	 removing_replicas;		/* int32_t */
};

struct km_lpr_topic_resp {
	struct kstr	 name;
	struct karray	 partitions;		/* km_lpr_part_resp */
};

struct km_lpr_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct karray	 topics;		/* km_lpr_topic_resp */
};

/* DescribeCluster v0-2, flexible. */
struct km_dcluster_req {
	uint8_t		 include_cluster_authorized_operations;
	int8_t		 endpoint_type;			/* 1+ */
	uint8_t		 include_fenced_brokers;	/* 2+ */
};

struct km_dcluster_broker {
	int32_t		 broker_id;
	struct kstr	 host;
	int32_t		 port;
	struct kstr	 rack;				/* nullable */
	uint8_t		 is_fenced;			/* 2+ */
};

struct km_dcluster_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	int8_t		 endpoint_type;			/* 1+ */
	struct kstr	 cluster_id;
	int32_t		 controller_id;
	struct karray	 brokers;			/* km_dcluster_broker */
	int32_t		 cluster_authorized_operations;
};

/* DescribeProducers v0, flexible. */
struct km_dprod_topic {
	struct kstr	 name;
	struct karray	 partition_indexes;		/* int32_t */
};

struct km_dprod_req {
	struct karray	 topics;			/* km_dprod_topic */
};

struct km_dprod_state {
	int64_t		 producer_id;
	int32_t		 producer_epoch;
	int32_t		 last_sequence;
	int64_t		 last_timestamp;
	int32_t		 coordinator_epoch;
	int64_t		 current_txn_start_offset;
};

struct km_dprod_part_resp {
	int32_t		 partition_index;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct karray	 active_producers;		/* km_dprod_state */
};

struct km_dprod_topic_resp {
	struct kstr	 name;
	struct karray	 partitions;		/* km_dprod_part_resp */
};

struct km_dprod_resp {
	int32_t		 throttle_time_ms;
	struct karray	 topics;		/* km_dprod_topic_resp */
};

/* DescribeTopicPartitions v0, flexible. */
struct km_dtp_cursor {
	struct kstr	 topic_name;
	int32_t		 partition_index;
};

struct km_dtp_topic {
	struct kstr	 name;
};

struct km_dtp_req {
	struct karray	 topics;			/* km_dtp_topic */
	int32_t		 response_partition_limit;
	int8_t		 cursor_present;	/* -1 null (KFNS marker) */
	struct km_dtp_cursor cursor;
};

struct km_dtp_part {
	int16_t		 error_code;
	int32_t		 partition_index;
	int32_t		 leader_id;
	int32_t		 leader_epoch;
	struct karray	 replica_nodes;			/* int32_t */
	struct karray	 isr_nodes;			/* int32_t */
	struct karray	 eligible_leader_replicas;	/* int32_t, nullable */
	struct karray	 last_known_elr;		/* int32_t, nullable */
	struct karray	 offline_replicas;		/* int32_t */
};

struct km_dtp_topic_resp {
	int16_t		 error_code;
	struct kstr	 name;				/* nullable */
	uint8_t		 topic_id[16];
	uint8_t		 is_internal;
	struct karray	 partitions;			/* km_dtp_part */
	int32_t		 topic_authorized_operations;
};

struct km_dtp_resp {
	int32_t		 throttle_time_ms;
	struct karray	 topics;		/* km_dtp_topic_resp */
	int8_t		 next_cursor_present;	/* -1 null (KFNS marker) */
	struct km_dtp_cursor next_cursor;
};

extern const struct kmsg kmsg_offset_for_leader_epoch;
extern const struct kmsg kmsg_describe_log_dirs;
extern const struct kmsg kmsg_list_partition_reassignments;
extern const struct kmsg kmsg_describe_cluster;
extern const struct kmsg kmsg_describe_producers;
extern const struct kmsg kmsg_describe_topic_partitions;

#endif
