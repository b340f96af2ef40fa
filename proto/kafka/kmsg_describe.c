/*
 * The read-only cluster and log APIs, from Kafka's message definitions
 * (clients/src/main/resources/common/message/<Name>Request.json and
 * Response.json), the union of Kafka 3.9's and 4.0's versions: one row
 * per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_describe.h"

/* ---- OffsetForLeaderEpoch (23) v0-4, flexible 4+ ---- */

/*
 * v1 is v0, v2 adds CurrentLeaderEpoch (fencing), v3 ReplicaId (default
 * -2, a "debug" consumer; -1 a consumer), v4 is flexible.  Kafka 4.0
 * serves v2-4, 3.9 v0-4.
 */
static const struct kfield ofle_part[] = {
	KF(KT_INT32, struct km_ofle_part, partition, 0, KV_MAX),
	KF(KT_INT32, struct km_ofle_part, current_leader_epoch, 2, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT32, struct km_ofle_part, leader_epoch, 0, KV_MAX),
};
static const struct kdesc kd_ofle_part =
    KDESC("OffsetForLeaderPartition", struct km_ofle_part, ofle_part);

static const struct kfield ofle_topic[] = {
	KF(KT_STRING, struct km_ofle_topic, topic, 0, KV_MAX),
	KFS(kd_ofle_part, struct km_ofle_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_ofle_topic =
    KDESC("OffsetForLeaderTopic", struct km_ofle_topic, ofle_topic);

static const struct kfield ofle_req[] = {
	KF(KT_INT32, struct km_ofle_req, replica_id, 3, KV_MAX, .kf_def = -2),
	KFS(kd_ofle_topic, struct km_ofle_req, topics, 0, KV_MAX),
};

/* v1 adds the leader epoch, v2 the throttle time, v3 is v2. */
static const struct kfield ofle_part_resp[] = {
	KF(KT_INT16, struct km_ofle_part_resp, error_code, 0, KV_MAX),
	KF(KT_INT32, struct km_ofle_part_resp, partition, 0, KV_MAX),
	KF(KT_INT32, struct km_ofle_part_resp, leader_epoch, 1, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_ofle_part_resp, end_offset, 0, KV_MAX,
	    .kf_def = -1),
};
static const struct kdesc kd_ofle_part_resp =
    KDESC("EpochEndOffset", struct km_ofle_part_resp, ofle_part_resp);

static const struct kfield ofle_topic_resp[] = {
	KF(KT_STRING, struct km_ofle_topic_resp, topic, 0, KV_MAX),
	KFS(kd_ofle_part_resp, struct km_ofle_topic_resp, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_ofle_topic_resp =
    KDESC("OffsetForLeaderTopicResult", struct km_ofle_topic_resp,
    ofle_topic_resp);

static const struct kfield ofle_resp[] = {
	KF(KT_INT32, struct km_ofle_resp, throttle_time_ms, 2, KV_MAX),
	KFS(kd_ofle_topic_resp, struct km_ofle_resp, topics, 0, KV_MAX),
};

static const struct kdesc kd_ofle_req =
    KDESC("OffsetForLeaderEpochRequest", struct km_ofle_req, ofle_req);
static const struct kdesc kd_ofle_resp =
    KDESC("OffsetForLeaderEpochResponse", struct km_ofle_resp, ofle_resp);

const struct kmsg kmsg_offset_for_leader_epoch = {
	KAPI_OFFSET_FOR_LEADER_EPOCH, "OffsetForLeaderEpoch", 0, 4, 4,
	&kd_ofle_req, &kd_ofle_resp
};

/* ---- DescribeLogDirs (35) v0-4, flexible 2+ ---- */

/* v1 is v0, v2 flexible, v3 and v4 only add response fields. */
static const struct kfield logdirs_topic[] = {
	KF(KT_STRING, struct km_logdirs_topic, topic, 0, KV_MAX),
	KFA(KT_INT32, struct km_logdirs_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_logdirs_topic =
    KDESC("DescribableLogDirTopic", struct km_logdirs_topic, logdirs_topic);

static const struct kfield logdirs_req[] = {
	KFS(kd_logdirs_topic, struct km_logdirs_req, topics, 0, KV_MAX,
	    KNULL(0)),
};

static const struct kfield logdirs_part[] = {
	KF(KT_INT32, struct km_logdirs_part, partition_index, 0, KV_MAX),
	KF(KT_INT64, struct km_logdirs_part, partition_size, 0, KV_MAX),
	KF(KT_INT64, struct km_logdirs_part, offset_lag, 0, KV_MAX),
	KF(KT_BOOL, struct km_logdirs_part, is_future_key, 0, KV_MAX),
};
static const struct kdesc kd_logdirs_part =
    KDESC("DescribeLogDirsPartition", struct km_logdirs_part, logdirs_part);

static const struct kfield logdirs_topic_resp[] = {
	KF(KT_STRING, struct km_logdirs_topic_resp, name, 0, KV_MAX),
	KFS(kd_logdirs_part, struct km_logdirs_topic_resp, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_logdirs_topic_resp =
    KDESC("DescribeLogDirsTopic", struct km_logdirs_topic_resp,
    logdirs_topic_resp);

/* v3 adds the top-level error code, v4 the volume's sizes. */
static const struct kfield logdirs_result[] = {
	KF(KT_INT16, struct km_logdirs_result, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_logdirs_result, log_dir, 0, KV_MAX),
	KFS(kd_logdirs_topic_resp, struct km_logdirs_result, topics, 0,
	    KV_MAX),
	KF(KT_INT64, struct km_logdirs_result, total_bytes, 4, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_logdirs_result, usable_bytes, 4, KV_MAX,
	    .kf_def = -1),
};
static const struct kdesc kd_logdirs_result =
    KDESC("DescribeLogDirsResult", struct km_logdirs_result,
    logdirs_result);

static const struct kfield logdirs_resp[] = {
	KF(KT_INT32, struct km_logdirs_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_logdirs_resp, error_code, 3, KV_MAX),
	KFS(kd_logdirs_result, struct km_logdirs_resp, results, 0, KV_MAX),
};

static const struct kdesc kd_logdirs_req =
    KDESC("DescribeLogDirsRequest", struct km_logdirs_req, logdirs_req);
static const struct kdesc kd_logdirs_resp =
    KDESC("DescribeLogDirsResponse", struct km_logdirs_resp, logdirs_resp);

const struct kmsg kmsg_describe_log_dirs = {
	KAPI_DESCRIBE_LOG_DIRS, "DescribeLogDirs", 0, 4, 2,
	&kd_logdirs_req, &kd_logdirs_resp
};

/* ---- ListPartitionReassignments (46) v0, flexible ---- */

static const struct kfield lpr_topic[] = {
	KF(KT_STRING, struct km_lpr_topic, name, 0, KV_MAX),
	KFA(KT_INT32, struct km_lpr_topic, partition_indexes, 0, KV_MAX),
};
static const struct kdesc kd_lpr_topic =
    KDESC("ListPartitionReassignmentsTopics", struct km_lpr_topic,
    lpr_topic);

static const struct kfield lpr_req[] = {
	KF(KT_INT32, struct km_lpr_req, timeout_ms, 0, KV_MAX,
	    .kf_def = 60000),
	KFS(kd_lpr_topic, struct km_lpr_req, topics, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
};

static const struct kfield lpr_part_resp[] = {
	KF(KT_INT32, struct km_lpr_part_resp, partition_index, 0, KV_MAX),
	KFA(KT_INT32, struct km_lpr_part_resp, replicas, 0, KV_MAX),
	KFA(KT_INT32, struct km_lpr_part_resp, adding_replicas, 0, KV_MAX),
	KFA(KT_INT32, struct km_lpr_part_resp, removing_replicas, 0, KV_MAX),
};
static const struct kdesc kd_lpr_part_resp =
    KDESC("OngoingPartitionReassignment", struct km_lpr_part_resp,
    lpr_part_resp);

static const struct kfield lpr_topic_resp[] = {
	KF(KT_STRING, struct km_lpr_topic_resp, name, 0, KV_MAX),
	KFS(kd_lpr_part_resp, struct km_lpr_topic_resp, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_lpr_topic_resp =
    KDESC("OngoingTopicReassignment", struct km_lpr_topic_resp,
    lpr_topic_resp);

static const struct kfield lpr_resp[] = {
	KF(KT_INT32, struct km_lpr_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_lpr_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_lpr_resp, error_message, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KFS(kd_lpr_topic_resp, struct km_lpr_resp, topics, 0, KV_MAX),
};

static const struct kdesc kd_lpr_req =
    KDESC("ListPartitionReassignmentsRequest", struct km_lpr_req, lpr_req);
static const struct kdesc kd_lpr_resp =
    KDESC("ListPartitionReassignmentsResponse", struct km_lpr_resp,
    lpr_resp);

const struct kmsg kmsg_list_partition_reassignments = {
	KAPI_LIST_PARTITION_REASSIGNMENTS, "ListPartitionReassignments", 0, 0,
	0, &kd_lpr_req, &kd_lpr_resp
};

/* ---- DescribeCluster (60) v0-2, flexible ---- */

/*
 * v1 adds EndpointType (KIP-919: 1 brokers, 2 controllers), v2
 * IncludeFencedBrokers and a broker's IsFenced (KIP-1073, Kafka 4.0).
 */
static const struct kfield dcluster_req[] = {
	KF(KT_BOOL, struct km_dcluster_req,
	    include_cluster_authorized_operations, 0, KV_MAX),
	KF(KT_INT8, struct km_dcluster_req, endpoint_type, 1, KV_MAX,
	    .kf_def = 1),
	KF(KT_BOOL, struct km_dcluster_req, include_fenced_brokers, 2,
	    KV_MAX),
};

static const struct kfield dcluster_broker[] = {
	KF(KT_INT32, struct km_dcluster_broker, broker_id, 0, KV_MAX),
	KF(KT_STRING, struct km_dcluster_broker, host, 0, KV_MAX),
	KF(KT_INT32, struct km_dcluster_broker, port, 0, KV_MAX),
	KF(KT_STRING, struct km_dcluster_broker, rack, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KF(KT_BOOL, struct km_dcluster_broker, is_fenced, 2, KV_MAX),
};
static const struct kdesc kd_dcluster_broker =
    KDESC("DescribeClusterBroker", struct km_dcluster_broker,
    dcluster_broker);

static const struct kfield dcluster_resp[] = {
	KF(KT_INT32, struct km_dcluster_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_dcluster_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_dcluster_resp, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KF(KT_INT8, struct km_dcluster_resp, endpoint_type, 1, KV_MAX,
	    .kf_def = 1),
	KF(KT_STRING, struct km_dcluster_resp, cluster_id, 0, KV_MAX),
	KF(KT_INT32, struct km_dcluster_resp, controller_id, 0, KV_MAX,
	    .kf_def = -1),
	KFS(kd_dcluster_broker, struct km_dcluster_resp, brokers, 0, KV_MAX),
	KF(KT_INT32, struct km_dcluster_resp, cluster_authorized_operations,
	    0, KV_MAX, .kf_def = INT32_MIN),
};

static const struct kdesc kd_dcluster_req =
    KDESC("DescribeClusterRequest", struct km_dcluster_req, dcluster_req);
static const struct kdesc kd_dcluster_resp =
    KDESC("DescribeClusterResponse", struct km_dcluster_resp,
    dcluster_resp);

const struct kmsg kmsg_describe_cluster = {
	KAPI_DESCRIBE_CLUSTER, "DescribeCluster", 0, 2, 0,
	&kd_dcluster_req, &kd_dcluster_resp
};

/* ---- DescribeProducers (61) v0, flexible ---- */

static const struct kfield dprod_topic[] = {
	KF(KT_STRING, struct km_dprod_topic, name, 0, KV_MAX),
	KFA(KT_INT32, struct km_dprod_topic, partition_indexes, 0, KV_MAX),
};
static const struct kdesc kd_dprod_topic =
    KDESC("TopicRequest", struct km_dprod_topic, dprod_topic);

static const struct kfield dprod_req[] = {
	KFS(kd_dprod_topic, struct km_dprod_req, topics, 0, KV_MAX),
};

static const struct kfield dprod_state[] = {
	KF(KT_INT64, struct km_dprod_state, producer_id, 0, KV_MAX),
	KF(KT_INT32, struct km_dprod_state, producer_epoch, 0, KV_MAX),
	KF(KT_INT32, struct km_dprod_state, last_sequence, 0, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_dprod_state, last_timestamp, 0, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT32, struct km_dprod_state, coordinator_epoch, 0, KV_MAX),
	KF(KT_INT64, struct km_dprod_state, current_txn_start_offset, 0,
	    KV_MAX, .kf_def = -1),
};
static const struct kdesc kd_dprod_state =
    KDESC("ProducerState", struct km_dprod_state, dprod_state);

static const struct kfield dprod_part_resp[] = {
	KF(KT_INT32, struct km_dprod_part_resp, partition_index, 0, KV_MAX),
	KF(KT_INT16, struct km_dprod_part_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_dprod_part_resp, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KFS(kd_dprod_state, struct km_dprod_part_resp, active_producers, 0,
	    KV_MAX),
};
static const struct kdesc kd_dprod_part_resp =
    KDESC("PartitionResponse", struct km_dprod_part_resp, dprod_part_resp);

static const struct kfield dprod_topic_resp[] = {
	KF(KT_STRING, struct km_dprod_topic_resp, name, 0, KV_MAX),
	KFS(kd_dprod_part_resp, struct km_dprod_topic_resp, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_dprod_topic_resp =
    KDESC("TopicResponse", struct km_dprod_topic_resp, dprod_topic_resp);

static const struct kfield dprod_resp[] = {
	KF(KT_INT32, struct km_dprod_resp, throttle_time_ms, 0, KV_MAX),
	KFS(kd_dprod_topic_resp, struct km_dprod_resp, topics, 0, KV_MAX),
};

static const struct kdesc kd_dprod_req =
    KDESC("DescribeProducersRequest", struct km_dprod_req, dprod_req);
static const struct kdesc kd_dprod_resp =
    KDESC("DescribeProducersResponse", struct km_dprod_resp, dprod_resp);

const struct kmsg kmsg_describe_producers = {
	KAPI_DESCRIBE_PRODUCERS, "DescribeProducers", 0, 0, 0,
	&kd_dprod_req, &kd_dprod_resp
};

/* ---- DescribeTopicPartitions (75) v0, flexible ---- */

static const struct kfield dtp_cursor[] = {
	KF(KT_STRING, struct km_dtp_cursor, topic_name, 0, KV_MAX),
	KF(KT_INT32, struct km_dtp_cursor, partition_index, 0, KV_MAX),
};
static const struct kdesc kd_dtp_cursor =
    KDESC("Cursor", struct km_dtp_cursor, dtp_cursor);

static const struct kfield dtp_topic[] = {
	KF(KT_STRING, struct km_dtp_topic, name, 0, KV_MAX),
};
static const struct kdesc kd_dtp_topic =
    KDESC("TopicRequest", struct km_dtp_topic, dtp_topic);

static const struct kfield dtp_req[] = {
	KFS(kd_dtp_topic, struct km_dtp_req, topics, 0, KV_MAX),
	KF(KT_INT32, struct km_dtp_req, response_partition_limit, 0, KV_MAX,
	    .kf_def = 2000),
	/* Cursor: nullable, default null (KFNS). */
	KF(KT_INT8, struct km_dtp_req, cursor_present, 0, KV_MAX,
	    .kf_def = -1),
	KFNS(kd_dtp_cursor, struct km_dtp_req, cursor, 0, KV_MAX),
};

static const struct kfield dtp_part[] = {
	KF(KT_INT16, struct km_dtp_part, error_code, 0, KV_MAX),
	KF(KT_INT32, struct km_dtp_part, partition_index, 0, KV_MAX),
	KF(KT_INT32, struct km_dtp_part, leader_id, 0, KV_MAX),
	KF(KT_INT32, struct km_dtp_part, leader_epoch, 0, KV_MAX,
	    .kf_def = -1),
	KFA(KT_INT32, struct km_dtp_part, replica_nodes, 0, KV_MAX),
	KFA(KT_INT32, struct km_dtp_part, isr_nodes, 0, KV_MAX),
	KFA(KT_INT32, struct km_dtp_part, eligible_leader_replicas, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KFA(KT_INT32, struct km_dtp_part, last_known_elr, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KFA(KT_INT32, struct km_dtp_part, offline_replicas, 0, KV_MAX),
};
static const struct kdesc kd_dtp_part =
    KDESC("DescribeTopicPartitionsResponsePartition", struct km_dtp_part,
    dtp_part);

static const struct kfield dtp_topic_resp[] = {
	KF(KT_INT16, struct km_dtp_topic_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_dtp_topic_resp, name, 0, KV_MAX, KNULL(0)),
	KF(KT_UUID, struct km_dtp_topic_resp, topic_id, 0, KV_MAX),
	KF(KT_BOOL, struct km_dtp_topic_resp, is_internal, 0, KV_MAX),
	KFS(kd_dtp_part, struct km_dtp_topic_resp, partitions, 0, KV_MAX),
	KF(KT_INT32, struct km_dtp_topic_resp, topic_authorized_operations,
	    0, KV_MAX, .kf_def = INT32_MIN),
};
static const struct kdesc kd_dtp_topic_resp =
    KDESC("DescribeTopicPartitionsResponseTopic", struct km_dtp_topic_resp,
    dtp_topic_resp);

static const struct kfield dtp_resp[] = {
	KF(KT_INT32, struct km_dtp_resp, throttle_time_ms, 0, KV_MAX),
	KFS(kd_dtp_topic_resp, struct km_dtp_resp, topics, 0, KV_MAX),
	KF(KT_INT8, struct km_dtp_resp, next_cursor_present, 0, KV_MAX,
	    .kf_def = -1),
	KFNS(kd_dtp_cursor, struct km_dtp_resp, next_cursor, 0, KV_MAX),
};

static const struct kdesc kd_dtp_req =
    KDESC("DescribeTopicPartitionsRequest", struct km_dtp_req, dtp_req);
static const struct kdesc kd_dtp_resp =
    KDESC("DescribeTopicPartitionsResponse", struct km_dtp_resp, dtp_resp);

const struct kmsg kmsg_describe_topic_partitions = {
	KAPI_DESCRIBE_TOPIC_PARTITIONS, "DescribeTopicPartitions", 0, 0, 0,
	&kd_dtp_req, &kd_dtp_resp
};
