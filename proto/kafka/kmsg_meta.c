/*
 * ApiVersions and Metadata, from Kafka's ApiVersionsRequest.json,
 * ApiVersionsResponse.json, MetadataRequest.json and
 * MetadataResponse.json (Kafka 4.0): one row per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_meta.h"

#define AUTH_OPS_NONE	INT32_MIN	/* "-2147483648": not requested */

/* ApiVersionsRequest: v3 adds the client's name and version. */
static const struct kfield apiver_req[] = {
	KF(KT_STRING, struct km_apiver_req, client_software_name, 3, KV_MAX),
	KF(KT_STRING, struct km_apiver_req, client_software_version, 3,
	    KV_MAX),
};

/* ApiVersionsResponse.ApiKeys (ApiVersion). */
static const struct kfield apiver_key[] = {
	KF(KT_INT16, struct km_apiver_key, api_key, 0, KV_MAX),
	KF(KT_INT16, struct km_apiver_key, min_version, 0, KV_MAX),
	KF(KT_INT16, struct km_apiver_key, max_version, 0, KV_MAX),
};
static const struct kdesc kd_apiver_key =
    KDESC("ApiVersion", struct km_apiver_key, apiver_key);

static const struct kfield feature[] = {
	KF(KT_STRING, struct km_feature, name, 3, KV_MAX),
	KF(KT_INT16, struct km_feature, min_version, 3, KV_MAX),
	KF(KT_INT16, struct km_feature, max_version, 3, KV_MAX),
};
static const struct kdesc kd_feature =
    KDESC("SupportedFeatureKey", struct km_feature, feature);

static const struct kfield finalized[] = {
	KF(KT_STRING, struct km_finalized, name, 3, KV_MAX),
	KF(KT_INT16, struct km_finalized, max_version_level, 3, KV_MAX),
	KF(KT_INT16, struct km_finalized, min_version_level, 3, KV_MAX),
};
static const struct kdesc kd_finalized =
    KDESC("FinalizedFeatureKey", struct km_finalized, finalized);

/* ApiVersionsResponse: v1 adds throttle time, v3 the tagged features. */
static const struct kfield apiver_resp[] = {
	KF(KT_INT16, struct km_apiver_resp, error_code, 0, KV_MAX),
	KFS(kd_apiver_key, struct km_apiver_resp, api_keys, 0, KV_MAX),
	KF(KT_INT32, struct km_apiver_resp, throttle_time_ms, 1, KV_MAX),
	KFS(kd_feature, struct km_apiver_resp, supported_features, 3, KV_MAX,
	    KTAG(0)),
	KF(KT_INT64, struct km_apiver_resp, finalized_features_epoch, 3,
	    KV_MAX, KTAG(1), .kf_def = -1),
	KFS(kd_finalized, struct km_apiver_resp, finalized_features, 3,
	    KV_MAX, KTAG(2)),
	KF(KT_BOOL, struct km_apiver_resp, zk_migration_ready, 3, KV_MAX,
	    KTAG(3)),
};

static const struct kdesc kd_apiver_req =
    KDESC("ApiVersionsRequest", struct km_apiver_req, apiver_req);
static const struct kdesc kd_apiver_resp =
    KDESC("ApiVersionsResponse", struct km_apiver_resp, apiver_resp);

const struct kmsg kmsg_api_versions = {
	KAPI_API_VERSIONS, "ApiVersions", 0, 4, 3,
	&kd_apiver_req, &kd_apiver_resp
};

/*
 * MetadataRequest: a null topic array (v1+) is every topic; v4 adds
 * AllowAutoTopicCreation, v8 the authorized-operations flags (the
 * cluster one gone in v11), v10 topic IDs, with nullable names.
 */
static const struct kfield meta_req_topic[] = {
	KF(KT_UUID, struct km_meta_req_topic, topic_id, 10, KV_MAX),
	KF(KT_STRING, struct km_meta_req_topic, name, 0, KV_MAX, KNULL(10)),
};
static const struct kdesc kd_meta_req_topic =
    KDESC("MetadataRequestTopic", struct km_meta_req_topic, meta_req_topic);

static const struct kfield meta_req[] = {
	KFS(kd_meta_req_topic, struct km_meta_req, topics, 0, KV_MAX,
	    KNULL(1)),
	KF(KT_BOOL, struct km_meta_req, allow_auto_topic_creation, 4, KV_MAX,
	    .kf_def = 1),
	KF(KT_BOOL, struct km_meta_req, include_cluster_authorized_operations,
	    8, 10),
	KF(KT_BOOL, struct km_meta_req, include_topic_authorized_operations,
	    8, KV_MAX),
};

static const struct kfield meta_broker[] = {
	KF(KT_INT32, struct km_meta_broker, node_id, 0, KV_MAX),
	KF(KT_STRING, struct km_meta_broker, host, 0, KV_MAX),
	KF(KT_INT32, struct km_meta_broker, port, 0, KV_MAX),
	KF(KT_STRING, struct km_meta_broker, rack, 1, KV_MAX, KNULL(1),
	    .kf_def = -1),
};
static const struct kdesc kd_meta_broker =
    KDESC("MetadataResponseBroker", struct km_meta_broker, meta_broker);

static const struct kfield meta_part[] = {
	KF(KT_INT16, struct km_meta_part, error_code, 0, KV_MAX),
	KF(KT_INT32, struct km_meta_part, partition_index, 0, KV_MAX),
	KF(KT_INT32, struct km_meta_part, leader_id, 0, KV_MAX),
	KF(KT_INT32, struct km_meta_part, leader_epoch, 7, KV_MAX,
	    .kf_def = -1),
	KFA(KT_INT32, struct km_meta_part, replica_nodes, 0, KV_MAX),
	KFA(KT_INT32, struct km_meta_part, isr_nodes, 0, KV_MAX),
	KFA(KT_INT32, struct km_meta_part, offline_replicas, 5, KV_MAX),
};
static const struct kdesc kd_meta_part =
    KDESC("MetadataResponsePartition", struct km_meta_part, meta_part);

static const struct kfield meta_topic[] = {
	KF(KT_INT16, struct km_meta_topic, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_meta_topic, name, 0, KV_MAX, KNULL(12)),
	KF(KT_UUID, struct km_meta_topic, topic_id, 10, KV_MAX),
	KF(KT_BOOL, struct km_meta_topic, is_internal, 1, KV_MAX),
	KFS(kd_meta_part, struct km_meta_topic, partitions, 0, KV_MAX),
	KF(KT_INT32, struct km_meta_topic, topic_authorized_operations, 8,
	    KV_MAX, .kf_def = AUTH_OPS_NONE),
};
static const struct kdesc kd_meta_topic =
    KDESC("MetadataResponseTopic", struct km_meta_topic, meta_topic);

/*
 * MetadataResponse: v1 racks, controller and is_internal, v2 the
 * cluster id, v3 throttle time, v5 offline replicas, v7 leader epochs,
 * v8 authorized operations (the cluster's gone in v11), v10 topic IDs,
 * v12 nullable topic names, v13 a top-level error code (KIP-1102).
 */
static const struct kfield meta_resp[] = {
	KF(KT_INT32, struct km_meta_resp, throttle_time_ms, 3, KV_MAX),
	KFS(kd_meta_broker, struct km_meta_resp, brokers, 0, KV_MAX),
	KF(KT_STRING, struct km_meta_resp, cluster_id, 2, KV_MAX, KNULL(2),
	    .kf_def = -1),
	KF(KT_INT32, struct km_meta_resp, controller_id, 1, KV_MAX,
	    .kf_def = -1),
	KFS(kd_meta_topic, struct km_meta_resp, topics, 0, KV_MAX),
	KF(KT_INT32, struct km_meta_resp, cluster_authorized_operations, 8, 10,
	    .kf_def = AUTH_OPS_NONE),
	KF(KT_INT16, struct km_meta_resp, error_code, 13, KV_MAX),
};

static const struct kdesc kd_meta_req =
    KDESC("MetadataRequest", struct km_meta_req, meta_req);
static const struct kdesc kd_meta_resp =
    KDESC("MetadataResponse", struct km_meta_resp, meta_resp);

const struct kmsg kmsg_metadata = {
	KAPI_METADATA, "Metadata", 0, 13, 9, &kd_meta_req, &kd_meta_resp
};
