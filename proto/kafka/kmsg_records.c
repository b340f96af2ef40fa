/*
 * DeleteRecords, DeleteGroups and OffsetDelete (kmsg_records.h).
 */
#include <stddef.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_records.h"

/* ---- DeleteRecords ---- */

static const struct kfield delrec_part[] = {
	KF(KT_INT32, struct km_delrec_part, partition_index, 0, KV_MAX),
	KF(KT_INT64, struct km_delrec_part, offset, 0, KV_MAX),
};
static const struct kdesc kd_delrec_part =
    KDESC("DeleteRecordsPartition", struct km_delrec_part, delrec_part);

static const struct kfield delrec_topic[] = {
	KF(KT_STRING, struct km_delrec_topic, name, 0, KV_MAX),
	KFS(kd_delrec_part, struct km_delrec_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_delrec_topic =
    KDESC("DeleteRecordsTopic", struct km_delrec_topic, delrec_topic);

static const struct kfield delete_records_req[] = {
	KFS(kd_delrec_topic, struct km_delete_records_req, topics, 0, KV_MAX),
	KF(KT_INT32, struct km_delete_records_req, timeout_ms, 0, KV_MAX),
};

static const struct kfield delrec_part_result[] = {
	KF(KT_INT32, struct km_delrec_part_result, partition_index, 0,
	    KV_MAX),
	KF(KT_INT64, struct km_delrec_part_result, low_watermark, 0, KV_MAX),
	KF(KT_INT16, struct km_delrec_part_result, error_code, 0, KV_MAX),
};
static const struct kdesc kd_delrec_part_result =
    KDESC("DeleteRecordsPartitionResult", struct km_delrec_part_result,
    delrec_part_result);

static const struct kfield delrec_topic_result[] = {
	KF(KT_STRING, struct km_delrec_topic_result, name, 0, KV_MAX),
	KFS(kd_delrec_part_result, struct km_delrec_topic_result, partitions,
	    0, KV_MAX),
};
static const struct kdesc kd_delrec_topic_result =
    KDESC("DeleteRecordsTopicResult", struct km_delrec_topic_result,
    delrec_topic_result);

static const struct kfield delete_records_resp[] = {
	KF(KT_INT32, struct km_delete_records_resp, throttle_time_ms, 0,
	    KV_MAX),
	KFS(kd_delrec_topic_result, struct km_delete_records_resp, topics, 0,
	    KV_MAX),
};

static const struct kdesc kd_delete_records_req =
    KDESC("DeleteRecordsRequest", struct km_delete_records_req,
    delete_records_req);
static const struct kdesc kd_delete_records_resp =
    KDESC("DeleteRecordsResponse", struct km_delete_records_resp,
    delete_records_resp);

const struct kmsg kmsg_delete_records = {
	KAPI_DELETE_RECORDS, "DeleteRecords", 0, 2, 2,
	&kd_delete_records_req, &kd_delete_records_resp
};

/* ---- DeleteGroups ---- */

static const struct kfield delete_groups_req[] = {
	KFA(KT_STRING, struct km_delete_groups_req, groups_names, 0, KV_MAX),
};

static const struct kfield deletable_group[] = {
	KF(KT_STRING, struct km_deletable_group, group_id, 0, KV_MAX),
	KF(KT_INT16, struct km_deletable_group, error_code, 0, KV_MAX),
};
static const struct kdesc kd_deletable_group =
    KDESC("DeletableGroupResult", struct km_deletable_group,
    deletable_group);

static const struct kfield delete_groups_resp[] = {
	KF(KT_INT32, struct km_delete_groups_resp, throttle_time_ms, 0,
	    KV_MAX),
	KFS(kd_deletable_group, struct km_delete_groups_resp, results, 0,
	    KV_MAX),
};

static const struct kdesc kd_delete_groups_req =
    KDESC("DeleteGroupsRequest", struct km_delete_groups_req,
    delete_groups_req);
static const struct kdesc kd_delete_groups_resp =
    KDESC("DeleteGroupsResponse", struct km_delete_groups_resp,
    delete_groups_resp);

const struct kmsg kmsg_delete_groups = {
	KAPI_DELETE_GROUPS, "DeleteGroups", 0, 2, 2,
	&kd_delete_groups_req, &kd_delete_groups_resp
};

/* ---- OffsetDelete ---- */

static const struct kfield odel_part[] = {
	KF(KT_INT32, struct km_odel_part, partition_index, 0, KV_MAX),
};
static const struct kdesc kd_odel_part =
    KDESC("OffsetDeleteRequestPartition", struct km_odel_part, odel_part);

static const struct kfield odel_topic[] = {
	KF(KT_STRING, struct km_odel_topic, name, 0, KV_MAX),
	KFS(kd_odel_part, struct km_odel_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_odel_topic =
    KDESC("OffsetDeleteRequestTopic", struct km_odel_topic, odel_topic);

static const struct kfield offset_delete_req[] = {
	KF(KT_STRING, struct km_offset_delete_req, group_id, 0, KV_MAX),
	KFS(kd_odel_topic, struct km_offset_delete_req, topics, 0, KV_MAX),
};

static const struct kfield odel_part_result[] = {
	KF(KT_INT32, struct km_odel_part_result, partition_index, 0, KV_MAX),
	KF(KT_INT16, struct km_odel_part_result, error_code, 0, KV_MAX),
};
static const struct kdesc kd_odel_part_result =
    KDESC("OffsetDeleteResponsePartition", struct km_odel_part_result,
    odel_part_result);

static const struct kfield odel_topic_result[] = {
	KF(KT_STRING, struct km_odel_topic_result, name, 0, KV_MAX),
	KFS(kd_odel_part_result, struct km_odel_topic_result, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_odel_topic_result =
    KDESC("OffsetDeleteResponseTopic", struct km_odel_topic_result,
    odel_topic_result);

static const struct kfield offset_delete_resp[] = {
	KF(KT_INT16, struct km_offset_delete_resp, error_code, 0, KV_MAX),
	KF(KT_INT32, struct km_offset_delete_resp, throttle_time_ms, 0,
	    KV_MAX),
	KFS(kd_odel_topic_result, struct km_offset_delete_resp, topics, 0,
	    KV_MAX),
};

static const struct kdesc kd_offset_delete_req =
    KDESC("OffsetDeleteRequest", struct km_offset_delete_req,
    offset_delete_req);
static const struct kdesc kd_offset_delete_resp =
    KDESC("OffsetDeleteResponse", struct km_offset_delete_resp,
    offset_delete_resp);

const struct kmsg kmsg_offset_delete = {
	KAPI_OFFSET_DELETE, "OffsetDelete", 0, 0, -1,
	&kd_offset_delete_req, &kd_offset_delete_resp
};
