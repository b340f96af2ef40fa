/*
 * CreateTopics and DeleteTopics, from Kafka's CreateTopicsRequest.json,
 * CreateTopicsResponse.json, DeleteTopicsRequest.json and
 * DeleteTopicsResponse.json (the union of Kafka 3.9 and 4.0): one row per
 * field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_admin.h"

/*
 * CreateTopicsRequest: v1 ValidateOnly, v5 flexible; the response: v1
 * error messages, v2 throttle time, v5 the topic's resulting partitions,
 * replication and configs (KIP-525), v7 its topic ID.
 */
static const struct kfield replica_assignment[] = {
	KF(KT_INT32, struct km_replica_assignment, partition_index, 0,
	    KV_MAX),
	KFA(KT_INT32, struct km_replica_assignment, broker_ids, 0, KV_MAX),
};
static const struct kdesc kd_replica_assignment =
    KDESC("CreatableReplicaAssignment", struct km_replica_assignment,
    replica_assignment);

static const struct kfield topic_config[] = {
	KF(KT_STRING, struct km_topic_config, name, 0, KV_MAX),
	KF(KT_STRING, struct km_topic_config, value, 0, KV_MAX, KNULL(0)),
};
static const struct kdesc kd_topic_config =
    KDESC("CreatableTopicConfig", struct km_topic_config, topic_config);

static const struct kfield creatable_topic[] = {
	KF(KT_STRING, struct km_creatable_topic, name, 0, KV_MAX),
	KF(KT_INT32, struct km_creatable_topic, num_partitions, 0, KV_MAX),
	KF(KT_INT16, struct km_creatable_topic, replication_factor, 0,
	    KV_MAX),
	KFS(kd_replica_assignment, struct km_creatable_topic, assignments, 0,
	    KV_MAX),
	KFS(kd_topic_config, struct km_creatable_topic, configs, 0, KV_MAX),
};
static const struct kdesc kd_creatable_topic =
    KDESC("CreatableTopic", struct km_creatable_topic, creatable_topic);

static const struct kfield create_topics_req[] = {
	KFS(kd_creatable_topic, struct km_create_topics_req, topics, 0,
	    KV_MAX),
	KF(KT_INT32, struct km_create_topics_req, timeout_ms, 0, KV_MAX,
	    .kf_def = 60000),
	KF(KT_BOOL, struct km_create_topics_req, validate_only, 1, KV_MAX),
};

static const struct kfield created_config[] = {
	KF(KT_STRING, struct km_created_config, name, 5, KV_MAX),
	KF(KT_STRING, struct km_created_config, value, 5, KV_MAX, KNULL(5)),
	KF(KT_BOOL, struct km_created_config, read_only, 5, KV_MAX),
	KF(KT_INT8, struct km_created_config, config_source, 5, KV_MAX,
	    .kf_def = -1),
	KF(KT_BOOL, struct km_created_config, is_sensitive, 5, KV_MAX),
};
static const struct kdesc kd_created_config =
    KDESC("CreatableTopicConfigs", struct km_created_config,
    created_config);

static const struct kfield created_topic[] = {
	KF(KT_STRING, struct km_created_topic, name, 0, KV_MAX),
	KF(KT_UUID, struct km_created_topic, topic_id, 7, KV_MAX),
	KF(KT_INT16, struct km_created_topic, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_created_topic, error_message, 1, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KF(KT_INT16, struct km_created_topic, topic_config_error_code, 5,
	    KV_MAX, KTAG(0)),
	KF(KT_INT32, struct km_created_topic, num_partitions, 5, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT16, struct km_created_topic, replication_factor, 5, KV_MAX,
	    .kf_def = -1),
	KFS(kd_created_config, struct km_created_topic, configs, 5, KV_MAX,
	    KNULL(5)),
};
static const struct kdesc kd_created_topic =
    KDESC("CreatableTopicResult", struct km_created_topic, created_topic);

static const struct kfield create_topics_resp[] = {
	KF(KT_INT32, struct km_create_topics_resp, throttle_time_ms, 2,
	    KV_MAX),
	KFS(kd_created_topic, struct km_create_topics_resp, topics, 0, KV_MAX),
};

static const struct kdesc kd_create_topics_req =
    KDESC("CreateTopicsRequest", struct km_create_topics_req,
    create_topics_req);
static const struct kdesc kd_create_topics_resp =
    KDESC("CreateTopicsResponse", struct km_create_topics_resp,
    create_topics_resp);

const struct kmsg kmsg_create_topics = {
	KAPI_CREATE_TOPICS, "CreateTopics", 0, 7, 5,
	&kd_create_topics_req, &kd_create_topics_resp
};

/*
 * DeleteTopicsRequest: v4 flexible, v6 topics by name or ID (KIP-516)
 * instead of names; the response: v1 throttle time, v5 error messages,
 * v6 topic IDs and nullable names.
 */
static const struct kfield delete_topic_state[] = {
	KF(KT_STRING, struct km_delete_topic_state, name, 6, KV_MAX, KNULL(6),
	    .kf_def = -1),
	KF(KT_UUID, struct km_delete_topic_state, topic_id, 6, KV_MAX),
};
static const struct kdesc kd_delete_topic_state =
    KDESC("DeleteTopicState", struct km_delete_topic_state,
    delete_topic_state);

static const struct kfield delete_topics_req[] = {
	KFA(KT_STRING, struct km_delete_topics_req, topic_names, 0, 5),
	KFS(kd_delete_topic_state, struct km_delete_topics_req, topics, 6,
	    KV_MAX),
	KF(KT_INT32, struct km_delete_topics_req, timeout_ms, 0, KV_MAX),
};

static const struct kfield deleted_topic[] = {
	KF(KT_STRING, struct km_deleted_topic, name, 0, KV_MAX, KNULL(6)),
	KF(KT_UUID, struct km_deleted_topic, topic_id, 6, KV_MAX),
	KF(KT_INT16, struct km_deleted_topic, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_deleted_topic, error_message, 5, KV_MAX,
	    KNULL(5), .kf_def = -1),
};
static const struct kdesc kd_deleted_topic =
    KDESC("DeletableTopicResult", struct km_deleted_topic, deleted_topic);

static const struct kfield delete_topics_resp[] = {
	KF(KT_INT32, struct km_delete_topics_resp, throttle_time_ms, 1,
	    KV_MAX),
	KFS(kd_deleted_topic, struct km_delete_topics_resp, responses, 0,
	    KV_MAX),
};

static const struct kdesc kd_delete_topics_req =
    KDESC("DeleteTopicsRequest", struct km_delete_topics_req,
    delete_topics_req);
static const struct kdesc kd_delete_topics_resp =
    KDESC("DeleteTopicsResponse", struct km_delete_topics_resp,
    delete_topics_resp);

const struct kmsg kmsg_delete_topics = {
	KAPI_DELETE_TOPICS, "DeleteTopics", 0, 6, 4,
	&kd_delete_topics_req, &kd_delete_topics_resp
};
