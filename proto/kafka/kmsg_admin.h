/*
 * Topic administration as descriptions (kdesc.h): CreateTopics (19) and
 * DeleteTopics (20).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_ADMIN_H
#define FLUME_PROTO_KAFKA_KMSG_ADMIN_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* CreateTopics v0-7, flexible 5+. */
struct km_replica_assignment {
	int32_t		 partition_index;
	struct karray	 broker_ids;			/* int32_t */
};

struct km_topic_config {
	struct kstr	 name;
	struct kstr	 value;				/* nullable */
};

struct km_creatable_topic {
	struct kstr	 name;
	int32_t		 num_partitions;
	int16_t		 replication_factor;
	struct karray	 assignments;		/* km_replica_assignment */
	struct karray	 configs;			/* km_topic_config */
};

struct km_create_topics_req {
	struct karray	 topics;			/* km_creatable_topic */
	int32_t		 timeout_ms;
	uint8_t		 validate_only;			/* 1+ */
};

struct km_created_config {
	struct kstr	 name;
	struct kstr	 value;				/* nullable */
	uint8_t		 read_only;
	int8_t		 config_source;
	uint8_t		 is_sensitive;
};

struct km_created_topic {
	struct kstr	 name;
	uint8_t		 topic_id[16];			/* 7+ */
	int16_t		 error_code;
	struct kstr	 error_message;			/* 1+ */
	int16_t		 topic_config_error_code;	/* 5+, tag 0 */
	int32_t		 num_partitions;		/* 5+ */
	int16_t		 replication_factor;		/* 5+ */
	struct karray	 configs;	/* km_created_config, 5+, null */
};

struct km_create_topics_resp {
	int32_t		 throttle_time_ms;		/* 2+ */
	struct karray	 topics;			/* km_created_topic */
};

/* DeleteTopics v0-6, flexible 4+. */
struct km_delete_topic_state {
	struct kstr	 name;				/* nullable */
	uint8_t		 topic_id[16];
};

struct km_delete_topics_req {
	struct karray	 topic_names;			/* kstr, 0-5 */
	struct karray	 topics;		/* km_delete_topic_state, 6+ */
	int32_t		 timeout_ms;
};

struct km_deleted_topic {
	struct kstr	 name;				/* null 6+ */
	uint8_t		 topic_id[16];			/* 6+ */
	int16_t		 error_code;
	struct kstr	 error_message;			/* 5+ */
};

struct km_delete_topics_resp {
	int32_t		 throttle_time_ms;		/* 1+ */
	struct karray	 responses;			/* km_deleted_topic */
};

extern const struct kmsg kmsg_create_topics, kmsg_delete_topics;

#endif
