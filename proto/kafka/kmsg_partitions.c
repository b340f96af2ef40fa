/*
 * CreatePartitions, from Kafka's CreatePartitionsRequest.json and
 * CreatePartitionsResponse.json (v0-3 in Kafka 3.9 and 4.0): v1 is v0
 * (throttling answered before it is applied), v2 flexible, v3 v2 that
 * may answer THROTTLING_QUOTA_EXCEEDED (KIP-599).  One row per field,
 * in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_partitions.h"

static const struct kfield partitions_assignment[] = {
	KFA(KT_INT32, struct km_partitions_assignment, broker_ids, 0, KV_MAX),
};
static const struct kdesc kd_partitions_assignment =
    KDESC("CreatePartitionsAssignment", struct km_partitions_assignment,
    partitions_assignment);

static const struct kfield partitions_topic[] = {
	KF(KT_STRING, struct km_partitions_topic, name, 0, KV_MAX),
	KF(KT_INT32, struct km_partitions_topic, count, 0, KV_MAX),
	KFS(kd_partitions_assignment, struct km_partitions_topic, assignments,
	    0, KV_MAX, KNULL(0)),
};
static const struct kdesc kd_partitions_topic =
    KDESC("CreatePartitionsTopic", struct km_partitions_topic,
    partitions_topic);

static const struct kfield create_partitions_req[] = {
	KFS(kd_partitions_topic, struct km_create_partitions_req, topics, 0,
	    KV_MAX),
	KF(KT_INT32, struct km_create_partitions_req, timeout_ms, 0, KV_MAX),
	KF(KT_BOOL, struct km_create_partitions_req, validate_only, 0, KV_MAX),
};

static const struct kfield partitions_result[] = {
	KF(KT_STRING, struct km_partitions_result, name, 0, KV_MAX),
	KF(KT_INT16, struct km_partitions_result, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_partitions_result, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
};
static const struct kdesc kd_partitions_result =
    KDESC("CreatePartitionsTopicResult", struct km_partitions_result,
    partitions_result);

static const struct kfield create_partitions_resp[] = {
	KF(KT_INT32, struct km_create_partitions_resp, throttle_time_ms, 0,
	    KV_MAX),
	KFS(kd_partitions_result, struct km_create_partitions_resp, results,
	    0, KV_MAX),
};

static const struct kdesc kd_create_partitions_req =
    KDESC("CreatePartitionsRequest", struct km_create_partitions_req,
    create_partitions_req);
static const struct kdesc kd_create_partitions_resp =
    KDESC("CreatePartitionsResponse", struct km_create_partitions_resp,
    create_partitions_resp);

const struct kmsg kmsg_create_partitions = {
	KAPI_CREATE_PARTITIONS, "CreatePartitions", 0, 3, 2,
	&kd_create_partitions_req, &kd_create_partitions_resp
};
