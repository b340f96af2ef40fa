/*
 * ApiVersions (18) and Metadata (3) as descriptions (kdesc.h): the C
 * structs the engine fills and reads, and the messages.
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_META_H
#define FLUME_PROTO_KAFKA_KMSG_META_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* ApiVersionsRequest v0-4, flexible 3+. */
struct km_apiver_req {
	struct kstr	 client_software_name;		/* 3+ */
	struct kstr	 client_software_version;	/* 3+ */
};

struct km_apiver_key {
	int16_t		 api_key;
	int16_t		 min_version;
	int16_t		 max_version;
};

struct km_feature {			/* SupportedFeatureKey */
	struct kstr	 name;
	int16_t		 min_version;
	int16_t		 max_version;
};

struct km_finalized {			/* FinalizedFeatureKey */
	struct kstr	 name;
	int16_t		 max_version_level;
	int16_t		 min_version_level;
};

/* ApiVersionsResponse v0-4. */
struct km_apiver_resp {
	int16_t		 error_code;
	struct karray	 api_keys;			/* km_apiver_key */
	int32_t		 throttle_time_ms;		/* 1+ */
	struct karray	 supported_features;		/* 3+, tag 0 */
	int64_t		 finalized_features_epoch;	/* 3+, tag 1 */
	struct karray	 finalized_features;		/* 3+, tag 2 */
	uint8_t		 zk_migration_ready;		/* 3+, tag 3 */
};

/* MetadataRequest v0-13, flexible 9+. */
struct km_meta_req_topic {
	uint8_t		 topic_id[16];			/* 10+ */
	struct kstr	 name;				/* null 10+ */
};

struct km_meta_req {
	struct karray	 topics;			/* null 1+ */
	uint8_t		 allow_auto_topic_creation;	/* 4+ */
	uint8_t		 include_cluster_authorized_operations;	/* 8-10 */
	uint8_t		 include_topic_authorized_operations;	/* 8+ */
};

struct km_meta_broker {
	int32_t		 node_id;
	struct kstr	 host;
	int32_t		 port;
	struct kstr	 rack;				/* 1+ */
};

struct km_meta_part {
	int16_t		 error_code;
	int32_t		 partition_index;
	int32_t		 leader_id;
	int32_t		 leader_epoch;			/* 7+ */
	struct karray	 replica_nodes;			/* int32_t */
	struct karray	 isr_nodes;			/* int32_t */
	struct karray	 offline_replicas;		/* int32_t, 5+ */
};

struct km_meta_topic {
	int16_t		 error_code;
	struct kstr	 name;				/* null 12+ */
	uint8_t		 topic_id[16];			/* 10+ */
	uint8_t		 is_internal;			/* 1+ */
	struct karray	 partitions;			/* km_meta_part */
	int32_t		 topic_authorized_operations;	/* 8+ */
};

struct km_meta_resp {
	int32_t		 throttle_time_ms;		/* 3+ */
	struct karray	 brokers;			/* km_meta_broker */
	struct kstr	 cluster_id;			/* 2+ */
	int32_t		 controller_id;			/* 1+ */
	struct karray	 topics;			/* km_meta_topic */
	int32_t		 cluster_authorized_operations;	/* 8-10 */
	int16_t		 error_code;			/* 13+ */
};

extern const struct kmsg kmsg_api_versions, kmsg_metadata;

#endif
