/*
 * OffsetCommit and OffsetFetch, from Kafka's OffsetCommitRequest.json,
 * OffsetCommitResponse.json, OffsetFetchRequest.json and
 * OffsetFetchResponse.json (Kafka 4.0; OffsetCommit v10's topic IDs are
 * not described yet): one row per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_offset.h"

/*
 * OffsetCommitRequest: v1 adds the generation, member and a per-partition
 * timestamp (v1 only), v2-4 a retention time instead, v6 leader epochs
 * (KIP-320), v7 static membership (KIP-345).
 */
static const struct kfield commit_part[] = {
	KF(KT_INT32, struct km_commit_part, partition_index, 0, KV_MAX),
	KF(KT_INT64, struct km_commit_part, committed_offset, 0, KV_MAX),
	KF(KT_INT32, struct km_commit_part, committed_leader_epoch, 6, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_commit_part, commit_timestamp, 1, 1,
	    .kf_def = -1),
	KF(KT_STRING, struct km_commit_part, committed_metadata, 0, KV_MAX,
	    KNULL(0)),
};
static const struct kdesc kd_commit_part =
    KDESC("OffsetCommitRequestPartition", struct km_commit_part,
    commit_part);

static const struct kfield commit_topic[] = {
	KF(KT_STRING, struct km_commit_topic, name, 0, KV_MAX),
	KFS(kd_commit_part, struct km_commit_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_commit_topic =
    KDESC("OffsetCommitRequestTopic", struct km_commit_topic, commit_topic);

static const struct kfield commit_req[] = {
	KF(KT_STRING, struct km_commit_req, group_id, 0, KV_MAX),
	KF(KT_INT32, struct km_commit_req, generation_id, 1, KV_MAX,
	    .kf_def = -1),
	KF(KT_STRING, struct km_commit_req, member_id, 1, KV_MAX),
	KF(KT_STRING, struct km_commit_req, group_instance_id, 7, KV_MAX,
	    KNULL(7), .kf_def = -1),
	KF(KT_INT64, struct km_commit_req, retention_time_ms, 2, 4,
	    .kf_def = -1),
	KFS(kd_commit_topic, struct km_commit_req, topics, 0, KV_MAX),
};

static const struct kfield commit_part_resp[] = {
	KF(KT_INT32, struct km_commit_part_resp, partition_index, 0, KV_MAX),
	KF(KT_INT16, struct km_commit_part_resp, error_code, 0, KV_MAX),
};
static const struct kdesc kd_commit_part_resp =
    KDESC("OffsetCommitResponsePartition", struct km_commit_part_resp,
    commit_part_resp);

static const struct kfield commit_topic_resp[] = {
	KF(KT_STRING, struct km_commit_topic_resp, name, 0, KV_MAX),
	KFS(kd_commit_part_resp, struct km_commit_topic_resp, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_commit_topic_resp =
    KDESC("OffsetCommitResponseTopic", struct km_commit_topic_resp,
    commit_topic_resp);

static const struct kfield commit_resp[] = {
	KF(KT_INT32, struct km_commit_resp, throttle_time_ms, 3, KV_MAX),
	KFS(kd_commit_topic_resp, struct km_commit_resp, topics, 0, KV_MAX),
};

static const struct kdesc kd_commit_req =
    KDESC("OffsetCommitRequest", struct km_commit_req, commit_req);
static const struct kdesc kd_commit_resp =
    KDESC("OffsetCommitResponse", struct km_commit_resp, commit_resp);

const struct kmsg kmsg_offset_commit = {
	KAPI_OFFSET_COMMIT, "OffsetCommit", 0, 9, 8,
	&kd_commit_req, &kd_commit_resp
};

/*
 * OffsetFetchRequest: v2 a null topic array for every topic, v7
 * RequireStable (KIP-447), v8 a batch of groups replacing GroupId and
 * Topics, v9 the member id and epoch of KIP-848.  The groups' topics
 * reuse the older rows: in v8+ every one of them is present.
 */
static const struct kfield ofetch_topic[] = {
	KF(KT_STRING, struct km_ofetch_topic, name, 0, KV_MAX),
	KFA(KT_INT32, struct km_ofetch_topic, partition_indexes, 0, KV_MAX),
};
static const struct kdesc kd_ofetch_topic =
    KDESC("OffsetFetchRequestTopic", struct km_ofetch_topic, ofetch_topic);

static const struct kfield ofetch_group[] = {
	KF(KT_STRING, struct km_ofetch_group, group_id, 8, KV_MAX),
	KF(KT_STRING, struct km_ofetch_group, member_id, 9, KV_MAX, KNULL(9),
	    .kf_def = -1),
	KF(KT_INT32, struct km_ofetch_group, member_epoch, 9, KV_MAX,
	    .kf_def = -1),
	KFS(kd_ofetch_topic, struct km_ofetch_group, topics, 8, KV_MAX,
	    KNULL(8)),
};
static const struct kdesc kd_ofetch_group =
    KDESC("OffsetFetchRequestGroup", struct km_ofetch_group, ofetch_group);

static const struct kfield ofetch_req[] = {
	KF(KT_STRING, struct km_ofetch_req, group_id, 0, 7),
	KFS(kd_ofetch_topic, struct km_ofetch_req, topics, 0, 7, KNULL(2)),
	KFS(kd_ofetch_group, struct km_ofetch_req, groups, 8, KV_MAX),
	KF(KT_BOOL, struct km_ofetch_req, require_stable, 7, KV_MAX),
};

/* OffsetFetchResponse: v2 a top-level error, v3 throttle, v5 epochs. */
static const struct kfield ofetch_part[] = {
	KF(KT_INT32, struct km_ofetch_part, partition_index, 0, KV_MAX),
	KF(KT_INT64, struct km_ofetch_part, committed_offset, 0, KV_MAX),
	KF(KT_INT32, struct km_ofetch_part, committed_leader_epoch, 5, KV_MAX,
	    .kf_def = -1),
	KF(KT_STRING, struct km_ofetch_part, metadata, 0, KV_MAX, KNULL(0)),
	KF(KT_INT16, struct km_ofetch_part, error_code, 0, KV_MAX),
};
static const struct kdesc kd_ofetch_part =
    KDESC("OffsetFetchResponsePartition", struct km_ofetch_part,
    ofetch_part);

static const struct kfield ofetch_topic_resp[] = {
	KF(KT_STRING, struct km_ofetch_topic_resp, name, 0, KV_MAX),
	KFS(kd_ofetch_part, struct km_ofetch_topic_resp, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_ofetch_topic_resp =
    KDESC("OffsetFetchResponseTopic", struct km_ofetch_topic_resp,
    ofetch_topic_resp);

static const struct kfield ofetch_group_resp[] = {
	KF(KT_STRING, struct km_ofetch_group_resp, group_id, 8, KV_MAX),
	KFS(kd_ofetch_topic_resp, struct km_ofetch_group_resp, topics, 8,
	    KV_MAX),
	KF(KT_INT16, struct km_ofetch_group_resp, error_code, 8, KV_MAX),
};
static const struct kdesc kd_ofetch_group_resp =
    KDESC("OffsetFetchResponseGroup", struct km_ofetch_group_resp,
    ofetch_group_resp);

static const struct kfield ofetch_resp[] = {
	KF(KT_INT32, struct km_ofetch_resp, throttle_time_ms, 3, KV_MAX),
	KFS(kd_ofetch_topic_resp, struct km_ofetch_resp, topics, 0, 7),
	KF(KT_INT16, struct km_ofetch_resp, error_code, 2, 7),
	KFS(kd_ofetch_group_resp, struct km_ofetch_resp, groups, 8, KV_MAX),
};

static const struct kdesc kd_ofetch_req =
    KDESC("OffsetFetchRequest", struct km_ofetch_req, ofetch_req);
static const struct kdesc kd_ofetch_resp =
    KDESC("OffsetFetchResponse", struct km_ofetch_resp, ofetch_resp);

const struct kmsg kmsg_offset_fetch = {
	KAPI_OFFSET_FETCH, "OffsetFetch", 0, 9, 6,
	&kd_ofetch_req, &kd_ofetch_resp
};
