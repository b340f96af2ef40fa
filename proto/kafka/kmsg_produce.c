/*
 * Produce and InitProducerId, from Kafka's ProduceRequest.json,
 * ProduceResponse.json, InitProducerIdRequest.json and
 * InitProducerIdResponse.json (Kafka 3.9 and 4.0; Produce v13's topic
 * IDs are not described yet): one row per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_produce.h"

/*
 * ProduceRequest: v3 adds the transactional id (and RecordBatch v2),
 * v9 is the first flexible version; v4-8 and v10-12 change error codes
 * and the records' format, not fields.
 */
static const struct kfield produce_part[] = {
	KF(KT_INT32, struct km_produce_part, index, 0, KV_MAX),
	KF(KT_RECORDS, struct km_produce_part, records, 0, KV_MAX, KNULL(0)),
};
static const struct kdesc kd_produce_part =
    KDESC("PartitionProduceData", struct km_produce_part, produce_part);

static const struct kfield produce_topic[] = {
	KF(KT_STRING, struct km_produce_topic, name, 0, KV_MAX),
	KFS(kd_produce_part, struct km_produce_topic, partition_data, 0,
	    KV_MAX),
};
static const struct kdesc kd_produce_topic =
    KDESC("TopicProduceData", struct km_produce_topic, produce_topic);

static const struct kfield produce_req[] = {
	KF(KT_STRING, struct km_produce_req, transactional_id, 3, KV_MAX,
	    KNULL(3), .kf_def = -1),
	KF(KT_INT16, struct km_produce_req, acks, 0, KV_MAX),
	KF(KT_INT32, struct km_produce_req, timeout_ms, 0, KV_MAX),
	KFS(kd_produce_topic, struct km_produce_req, topic_data, 0, KV_MAX),
};

/*
 * ProduceResponse: v1 throttle time, v2 log append time, v5 log start
 * offset, v8 record errors (KIP-467), v10 the current leader and the
 * brokers' endpoints as tagged fields (KIP-951).
 */
static const struct kfield record_error[] = {
	KF(KT_INT32, struct km_record_error, batch_index, 8, KV_MAX),
	KF(KT_STRING, struct km_record_error, batch_index_error_message, 8,
	    KV_MAX, KNULL(8), .kf_def = -1),
};
static const struct kdesc kd_record_error =
    KDESC("BatchIndexAndErrorMessage", struct km_record_error,
    record_error);

static const struct kfield leader[] = {
	KF(KT_INT32, struct km_leader, leader_id, 10, KV_MAX, .kf_def = -1),
	KF(KT_INT32, struct km_leader, leader_epoch, 10, KV_MAX,
	    .kf_def = -1),
};
static const struct kdesc kd_leader =
    KDESC("LeaderIdAndEpoch", struct km_leader, leader);

static const struct kfield produce_part_resp[] = {
	KF(KT_INT32, struct km_produce_part_resp, index, 0, KV_MAX),
	KF(KT_INT16, struct km_produce_part_resp, error_code, 0, KV_MAX),
	KF(KT_INT64, struct km_produce_part_resp, base_offset, 0, KV_MAX),
	KF(KT_INT64, struct km_produce_part_resp, log_append_time_ms, 2,
	    KV_MAX, .kf_def = -1),
	KF(KT_INT64, struct km_produce_part_resp, log_start_offset, 5, KV_MAX,
	    .kf_def = -1),
	KFS(kd_record_error, struct km_produce_part_resp, record_errors, 8,
	    KV_MAX),
	KF(KT_STRING, struct km_produce_part_resp, error_message, 8, KV_MAX,
	    KNULL(8), .kf_def = -1),
	KFT(kd_leader, struct km_produce_part_resp, current_leader, 10,
	    KV_MAX, KTAG(0)),
};
static const struct kdesc kd_produce_part_resp =
    KDESC("PartitionProduceResponse", struct km_produce_part_resp,
    produce_part_resp);

static const struct kfield produce_topic_resp[] = {
	KF(KT_STRING, struct km_produce_topic_resp, name, 0, KV_MAX),
	KFS(kd_produce_part_resp, struct km_produce_topic_resp,
	    partition_responses, 0, KV_MAX),
};
static const struct kdesc kd_produce_topic_resp =
    KDESC("TopicProduceResponse", struct km_produce_topic_resp,
    produce_topic_resp);

static const struct kfield node_endpoint[] = {
	KF(KT_INT32, struct km_node_endpoint, node_id, 10, KV_MAX),
	KF(KT_STRING, struct km_node_endpoint, host, 10, KV_MAX),
	KF(KT_INT32, struct km_node_endpoint, port, 10, KV_MAX),
	KF(KT_STRING, struct km_node_endpoint, rack, 10, KV_MAX, KNULL(10),
	    .kf_def = -1),
};
static const struct kdesc kd_node_endpoint =
    KDESC("NodeEndpoint", struct km_node_endpoint, node_endpoint);

static const struct kfield produce_resp[] = {
	KFS(kd_produce_topic_resp, struct km_produce_resp, responses, 0,
	    KV_MAX),
	KF(KT_INT32, struct km_produce_resp, throttle_time_ms, 1, KV_MAX),
	KFS(kd_node_endpoint, struct km_produce_resp, node_endpoints, 10,
	    KV_MAX, KTAG(0)),
};

static const struct kdesc kd_produce_req =
    KDESC("ProduceRequest", struct km_produce_req, produce_req);
static const struct kdesc kd_produce_resp =
    KDESC("ProduceResponse", struct km_produce_resp, produce_resp);

const struct kmsg kmsg_produce = {
	KAPI_PRODUCE, "Produce", 0, 12, 9, &kd_produce_req, &kd_produce_resp
};

/*
 * InitProducerIdRequest: v2 is flexible, v3 lets a producer bump its
 * epoch by naming its id and epoch (KIP-360); v4-5 only new errors.
 */
static const struct kfield init_pid_req[] = {
	KF(KT_STRING, struct km_init_pid_req, transactional_id, 0, KV_MAX,
	    KNULL(0)),
	KF(KT_INT32, struct km_init_pid_req, transaction_timeout_ms, 0,
	    KV_MAX),
	KF(KT_INT64, struct km_init_pid_req, producer_id, 3, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT16, struct km_init_pid_req, producer_epoch, 3, KV_MAX,
	    .kf_def = -1),
};

static const struct kfield init_pid_resp[] = {
	KF(KT_INT32, struct km_init_pid_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_init_pid_resp, error_code, 0, KV_MAX),
	KF(KT_INT64, struct km_init_pid_resp, producer_id, 0, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT16, struct km_init_pid_resp, producer_epoch, 0, KV_MAX),
};

static const struct kdesc kd_init_pid_req =
    KDESC("InitProducerIdRequest", struct km_init_pid_req, init_pid_req);
static const struct kdesc kd_init_pid_resp =
    KDESC("InitProducerIdResponse", struct km_init_pid_resp,
    init_pid_resp);

const struct kmsg kmsg_init_producer_id = {
	KAPI_INIT_PRODUCER_ID, "InitProducerId", 0, 5, 2,
	&kd_init_pid_req, &kd_init_pid_resp
};
