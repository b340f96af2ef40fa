/*
 * ListOffsets, from Kafka's ListOffsetsRequest.json and
 * ListOffsetsResponse.json (the union of Kafka 3.9's v0-9 and 4.0's
 * v1-10): one row per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_listoff.h"

/*
 * ListOffsetsRequest: v1 drops MaxNumOffsets, v2 adds IsolationLevel,
 * v4 CurrentLeaderEpoch (KIP-320), v6 is flexible, v7-9 only new special
 * timestamps (-3, -4, -5), v10 a timeout for remote storage (KIP-1075).
 */
static const struct kfield listoff_part[] = {
	KF(KT_INT32, struct km_listoff_part, partition_index, 0, KV_MAX),
	KF(KT_INT32, struct km_listoff_part, current_leader_epoch, 4, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_listoff_part, timestamp, 0, KV_MAX),
	KF(KT_INT32, struct km_listoff_part, max_num_offsets, 0, 0,
	    .kf_def = 1),
};
static const struct kdesc kd_listoff_part =
    KDESC("ListOffsetsPartition", struct km_listoff_part, listoff_part);

static const struct kfield listoff_topic[] = {
	KF(KT_STRING, struct km_listoff_topic, name, 0, KV_MAX),
	KFS(kd_listoff_part, struct km_listoff_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_listoff_topic =
    KDESC("ListOffsetsTopic", struct km_listoff_topic, listoff_topic);

static const struct kfield listoff_req[] = {
	KF(KT_INT32, struct km_listoff_req, replica_id, 0, KV_MAX),
	KF(KT_INT8, struct km_listoff_req, isolation_level, 2, KV_MAX),
	KFS(kd_listoff_topic, struct km_listoff_req, topics, 0, KV_MAX),
	KF(KT_INT32, struct km_listoff_req, timeout_ms, 10, KV_MAX),
};

/*
 * ListOffsetsResponse: v1 one timestamp and offset instead of v0's list,
 * v2 throttle time, v4 the leader epoch.
 */
static const struct kfield listoff_part_resp[] = {
	KF(KT_INT32, struct km_listoff_part_resp, partition_index, 0, KV_MAX),
	KF(KT_INT16, struct km_listoff_part_resp, error_code, 0, KV_MAX),
	KFA(KT_INT64, struct km_listoff_part_resp, old_style_offsets, 0, 0),
	KF(KT_INT64, struct km_listoff_part_resp, timestamp, 1, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_listoff_part_resp, offset, 1, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT32, struct km_listoff_part_resp, leader_epoch, 4, KV_MAX,
	    .kf_def = -1),
};
static const struct kdesc kd_listoff_part_resp =
    KDESC("ListOffsetsPartitionResponse", struct km_listoff_part_resp,
    listoff_part_resp);

static const struct kfield listoff_topic_resp[] = {
	KF(KT_STRING, struct km_listoff_topic_resp, name, 0, KV_MAX),
	KFS(kd_listoff_part_resp, struct km_listoff_topic_resp, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_listoff_topic_resp =
    KDESC("ListOffsetsTopicResponse", struct km_listoff_topic_resp,
    listoff_topic_resp);

static const struct kfield listoff_resp[] = {
	KF(KT_INT32, struct km_listoff_resp, throttle_time_ms, 2, KV_MAX),
	KFS(kd_listoff_topic_resp, struct km_listoff_resp, topics, 0, KV_MAX),
};

static const struct kdesc kd_listoff_req =
    KDESC("ListOffsetsRequest", struct km_listoff_req, listoff_req);
static const struct kdesc kd_listoff_resp =
    KDESC("ListOffsetsResponse", struct km_listoff_resp, listoff_resp);

const struct kmsg kmsg_list_offsets = {
	KAPI_LIST_OFFSETS, "ListOffsets", 0, 10, 6,
	&kd_listoff_req, &kd_listoff_resp
};
