/*
 * A classic group's rebalance as descriptions (kdesc.h): JoinGroup (11)
 * and SyncGroup (14).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_JOIN_H
#define FLUME_PROTO_KAFKA_KMSG_JOIN_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* JoinGroup v0-9, flexible 6+. */
struct km_join_protocol {
	struct kstr	 name;
	struct kstr	 metadata;			/* bytes */
};

struct km_join_req {
	struct kstr	 group_id;
	int32_t		 session_timeout_ms;
	int32_t		 rebalance_timeout_ms;		/* 1+ */
	struct kstr	 member_id;
	struct kstr	 group_instance_id;		/* 5+ */
	struct kstr	 protocol_type;
	struct karray	 protocols;			/* km_join_protocol */
	struct kstr	 reason;			/* 8+ */
};

struct km_join_member {
	struct kstr	 member_id;
	struct kstr	 group_instance_id;		/* 5+ */
	struct kstr	 metadata;			/* bytes */
};

struct km_join_resp {
	int32_t		 throttle_time_ms;		/* 2+ */
	int16_t		 error_code;
	int32_t		 generation_id;
	struct kstr	 protocol_type;			/* 7+ */
	struct kstr	 protocol_name;			/* null 7+ */
	struct kstr	 leader;
	uint8_t		 skip_assignment;		/* 9+ */
	struct kstr	 member_id;
	struct karray	 members;			/* km_join_member */
};

/* SyncGroup v0-5, flexible 4+. */
struct km_sync_assignment {
	struct kstr	 member_id;
	struct kstr	 assignment;			/* bytes */
};

struct km_sync_req {
	struct kstr	 group_id;
	int32_t		 generation_id;
	struct kstr	 member_id;
	struct kstr	 group_instance_id;		/* 3+ */
	struct kstr	 protocol_type;			/* 5+ */
	struct kstr	 protocol_name;			/* 5+ */
	struct karray	 assignments;		/* km_sync_assignment */
};

struct km_sync_resp {
	int32_t		 throttle_time_ms;		/* 1+ */
	int16_t		 error_code;
	struct kstr	 protocol_type;			/* 5+ */
	struct kstr	 protocol_name;			/* 5+ */
	struct kstr	 assignment;			/* bytes */
};

extern const struct kmsg kmsg_join_group, kmsg_sync_group;

#endif
