/*
 * Deleting records, groups and committed offsets as descriptions
 * (kdesc.h): DeleteRecords (21) v0-2, DeleteGroups (42) v0-2, both
 * flexible from v2, and OffsetDelete (47) v0, never flexible.  Checked
 * against Kafka's DeleteRecordsRequest/Response.json,
 * DeleteGroupsRequest/Response.json and OffsetDeleteRequest/Response.json.
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_RECORDS_H
#define FLUME_PROTO_KAFKA_KMSG_RECORDS_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* DeleteRecords v0-2 (v1 as v0; v2 flexible). */
struct km_delrec_part {
	int32_t		 partition_index;
	int64_t		 offset;
};

struct km_delrec_topic {
	struct kstr	 name;
	struct karray	 partitions;		/* km_delrec_part */
};

struct km_delete_records_req {
	struct karray	 topics;		/* km_delrec_topic */
	int32_t		 timeout_ms;
};

struct km_delrec_part_result {
	int32_t		 partition_index;
	int64_t		 low_watermark;
	int16_t		 error_code;
};

struct km_delrec_topic_result {
	struct kstr	 name;
	struct karray	 partitions;		/* km_delrec_part_result */
};

struct km_delete_records_resp {
	int32_t		 throttle_time_ms;
	struct karray	 topics;		/* km_delrec_topic_result */
};

/* DeleteGroups v0-2 (v1 as v0; v2 flexible). */
struct km_delete_groups_req {
	struct karray	 groups_names;		/* kstr */
};

struct km_deletable_group {
	struct kstr	 group_id;
	int16_t		 error_code;
};

struct km_delete_groups_resp {
	int32_t		 throttle_time_ms;
	struct karray	 results;		/* km_deletable_group */
};

/* OffsetDelete v0. */
struct km_odel_part {
	int32_t		 partition_index;
};

struct km_odel_topic {
	struct kstr	 name;
	struct karray	 partitions;		/* km_odel_part */
};

struct km_offset_delete_req {
	struct kstr	 group_id;
	struct karray	 topics;		/* km_odel_topic */
};

struct km_odel_part_result {
	int32_t		 partition_index;
	int16_t		 error_code;
};

struct km_odel_topic_result {
	struct kstr	 name;
	struct karray	 partitions;		/* km_odel_part_result */
};

struct km_offset_delete_resp {
	int16_t		 error_code;
	int32_t		 throttle_time_ms;
	struct karray	 topics;		/* km_odel_topic_result */
};

extern const struct kmsg kmsg_delete_records, kmsg_delete_groups,
	    kmsg_offset_delete;

#endif
