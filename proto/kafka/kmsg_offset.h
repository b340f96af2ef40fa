/*
 * A group's committed offsets as descriptions (kdesc.h): OffsetCommit (8)
 * and OffsetFetch (9).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_OFFSET_H
#define FLUME_PROTO_KAFKA_KMSG_OFFSET_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* OffsetCommit v0-9, flexible 8+. */
struct km_commit_part {
	int32_t		 partition_index;
	int64_t		 committed_offset;
	int32_t		 committed_leader_epoch;	/* 6+ */
	int64_t		 commit_timestamp;		/* 1 only */
	struct kstr	 committed_metadata;		/* nullable */
};

struct km_commit_topic {
	struct kstr	 name;
	struct karray	 partitions;			/* km_commit_part */
};

struct km_commit_req {
	struct kstr	 group_id;
	int32_t		 generation_id;			/* 1+ */
	struct kstr	 member_id;			/* 1+ */
	struct kstr	 group_instance_id;		/* 7+ */
	int64_t		 retention_time_ms;		/* 2-4 */
	struct karray	 topics;			/* km_commit_topic */
};

struct km_commit_part_resp {
	int32_t		 partition_index;
	int16_t		 error_code;
};

struct km_commit_topic_resp {
	struct kstr	 name;
	struct karray	 partitions;		/* km_commit_part_resp */
};

struct km_commit_resp {
	int32_t		 throttle_time_ms;		/* 3+ */
	struct karray	 topics;		/* km_commit_topic_resp */
};

/*
 * OffsetFetch v0-9, flexible 6+; v8 batches groups, whose topics and
 * partitions have the shape of the older top-level ones.
 */
struct km_ofetch_topic {
	struct kstr	 name;
	struct karray	 partition_indexes;		/* int32_t */
};

struct km_ofetch_group {
	struct kstr	 group_id;
	struct kstr	 member_id;			/* 9+ */
	int32_t		 member_epoch;			/* 9+ */
	struct karray	 topics;		/* km_ofetch_topic, null */
};

struct km_ofetch_req {
	struct kstr	 group_id;			/* 0-7 */
	struct karray	 topics;	/* km_ofetch_topic, 0-7, null 2+ */
	struct karray	 groups;		/* km_ofetch_group, 8+ */
	uint8_t		 require_stable;		/* 7+ */
};

struct km_ofetch_part {
	int32_t		 partition_index;
	int64_t		 committed_offset;
	int32_t		 committed_leader_epoch;	/* 5+ */
	struct kstr	 metadata;			/* nullable */
	int16_t		 error_code;
};

struct km_ofetch_topic_resp {
	struct kstr	 name;
	struct karray	 partitions;			/* km_ofetch_part */
};

struct km_ofetch_group_resp {
	struct kstr	 group_id;
	struct karray	 topics;		/* km_ofetch_topic_resp */
	int16_t		 error_code;
};

struct km_ofetch_resp {
	int32_t		 throttle_time_ms;		/* 3+ */
	struct karray	 topics;	/* km_ofetch_topic_resp, 0-7 */
	int16_t		 error_code;			/* 2-7 */
	struct karray	 groups;	/* km_ofetch_group_resp, 8+ */
};

extern const struct kmsg kmsg_offset_commit, kmsg_offset_fetch;

#endif
