/*
 * Kafka's consumer group protocol (KIP-848) as descriptions (kdesc.h):
 * ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_CGROUP_H
#define FLUME_PROTO_KAFKA_KMSG_CGROUP_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* ConsumerGroupHeartbeat v0-1, flexible 0+. */
struct km_cg_tp {
	uint8_t		 topic_id[16];
	struct karray	 partitions;			/* int32_t */
};

struct km_cghb_req {
	struct kstr	 group_id;
	struct kstr	 member_id;
	int32_t		 member_epoch;
	struct kstr	 instance_id;			/* nullable */
	struct kstr	 rack_id;			/* nullable */
	int32_t		 rebalance_timeout_ms;
	struct karray	 subscribed_topic_names;	/* kstr, nullable */
	struct kstr	 subscribed_topic_regex;	/* 1+, nullable */
	struct kstr	 server_assignor;		/* nullable */
	struct karray	 topic_partitions;	/* km_cg_tp, nullable */
};

struct km_cghb_assignment {
	struct karray	 topic_partitions;		/* km_cg_tp */
};

struct km_cghb_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct kstr	 member_id;			/* nullable */
	int32_t		 member_epoch;
	int32_t		 heartbeat_interval_ms;
	int8_t		 assignment_marker;		/* -1 null, 1 present */
	struct km_cghb_assignment assignment;		/* nullable (KFNS) */
};

/* ConsumerGroupDescribe v0-1, flexible 0+. */
struct km_cgd_req {
	struct karray	 group_ids;			/* kstr */
	uint8_t		 include_authorized_operations;
};

struct km_cgd_tp {
	uint8_t		 topic_id[16];
	struct kstr	 topic_name;
	struct karray	 partitions;			/* int32_t */
};

struct km_cgd_assignment {
	struct karray	 topic_partitions;		/* km_cgd_tp */
};

struct km_cgd_member {
	struct kstr	 member_id;
	struct kstr	 instance_id;			/* nullable */
	struct kstr	 rack_id;			/* nullable */
	int32_t		 member_epoch;
	struct kstr	 client_id;
	struct kstr	 client_host;
	struct karray	 subscribed_topic_names;	/* kstr */
	struct kstr	 subscribed_topic_regex;	/* nullable */
	struct km_cgd_assignment assignment;
	struct km_cgd_assignment target_assignment;
	int8_t		 member_type;			/* 1+: 1 consumer, 0 classic */
};

struct km_cgd_group {
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct kstr	 group_id;
	struct kstr	 group_state;
	int32_t		 group_epoch;
	int32_t		 assignment_epoch;
	struct kstr	 assignor_name;
	struct karray	 members;			/* km_cgd_member */
	int32_t		 authorized_operations;
};

struct km_cgd_resp {
	int32_t		 throttle_time_ms;
	struct karray	 groups;			/* km_cgd_group */
};

extern const struct kmsg kmsg_consumer_group_heartbeat,
    kmsg_consumer_group_describe;

#endif
