/*
 * The classic group APIs as descriptions (kdesc.h): FindCoordinator (10),
 * Heartbeat (12), LeaveGroup (13), DescribeGroups (15), ListGroups (16).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_GROUP_H
#define FLUME_PROTO_KAFKA_KMSG_GROUP_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* FindCoordinator v0-6, flexible 3+; v4 batches the keys (KIP-699). */
struct km_findcoord_req {
	struct kstr	 key;				/* 0-3 */
	int8_t		 key_type;			/* 1+ */
	struct karray	 coordinator_keys;		/* kstr, 4+ */
};

struct km_coordinator {
	struct kstr	 key;
	int32_t		 node_id;
	struct kstr	 host;
	int32_t		 port;
	int16_t		 error_code;
	struct kstr	 error_message;
};

struct km_findcoord_resp {
	int32_t		 throttle_time_ms;		/* 1+ */
	int16_t		 error_code;			/* 0-3 */
	struct kstr	 error_message;			/* 1-3 */
	int32_t		 node_id;			/* 0-3 */
	struct kstr	 host;				/* 0-3 */
	int32_t		 port;				/* 0-3 */
	struct karray	 coordinators;			/* km_coordinator, 4+ */
};

/* Heartbeat v0-4, flexible 4+. */
struct km_heartbeat_req {
	struct kstr	 group_id;
	int32_t		 generation_id;
	struct kstr	 member_id;
	struct kstr	 group_instance_id;		/* 3+ */
};

/* The response of Heartbeat, and of LeaveGroup before v3. */
struct km_heartbeat_resp {
	int32_t		 throttle_time_ms;		/* 1+ */
	int16_t		 error_code;
};

/* LeaveGroup v0-5, flexible 4+; v3 leaves a batch of members. */
struct km_leave_member {
	struct kstr	 member_id;
	struct kstr	 group_instance_id;
	struct kstr	 reason;			/* 5+ */
};

struct km_leave_req {
	struct kstr	 group_id;
	struct kstr	 member_id;			/* 0-2 */
	struct karray	 members;		/* km_leave_member, 3+ */
};

struct km_leave_member_resp {
	struct kstr	 member_id;
	struct kstr	 group_instance_id;
	int16_t		 error_code;
};

struct km_leave_resp {
	int32_t		 throttle_time_ms;		/* 1+ */
	int16_t		 error_code;
	struct karray	 members;		/* km_leave_member_resp, 3+ */
};

/* ListGroups v0-5, flexible 3+. */
struct km_list_groups_req {
	struct karray	 states_filter;			/* kstr, 4+ */
	struct karray	 types_filter;			/* kstr, 5+ */
};

struct km_listed_group {
	struct kstr	 group_id;
	struct kstr	 protocol_type;
	struct kstr	 group_state;			/* 4+ */
	struct kstr	 group_type;			/* 5+ */
};

struct km_list_groups_resp {
	int32_t		 throttle_time_ms;		/* 1+ */
	int16_t		 error_code;
	struct karray	 groups;			/* km_listed_group */
};

/* DescribeGroups v0-6, flexible 5+. */
struct km_describe_groups_req {
	struct karray	 groups;			/* kstr */
	uint8_t		 include_authorized_operations;	/* 3+ */
};

struct km_described_member {
	struct kstr	 member_id;
	struct kstr	 group_instance_id;		/* 4+ */
	struct kstr	 client_id;
	struct kstr	 client_host;
	struct kstr	 member_metadata;		/* bytes */
	struct kstr	 member_assignment;		/* bytes */
};

struct km_described_group {
	int16_t		 error_code;
	struct kstr	 error_message;			/* 6+ */
	struct kstr	 group_id;
	struct kstr	 group_state;
	struct kstr	 protocol_type;
	struct kstr	 protocol_data;
	struct karray	 members;		/* km_described_member */
	int32_t		 authorized_operations;		/* 3+ */
};

struct km_describe_groups_resp {
	int32_t		 throttle_time_ms;		/* 1+ */
	struct karray	 groups;			/* km_described_group */
};

extern const struct kmsg kmsg_find_coordinator, kmsg_heartbeat,
    kmsg_leave_group, kmsg_list_groups, kmsg_describe_groups;

#endif
