/*
 * Fetch, from Kafka's FetchRequest.json and FetchResponse.json (the union
 * of Kafka 3.9's v0-16 and 4.0's v4-17): one row per field, in wire
 * order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_fetch.h"
#include "proto/kafka/kmsg_produce.h"

/*
 * FetchRequest: v3 MaxBytes, v4 IsolationLevel, v5 LogStartOffset, v7
 * fetch sessions (KIP-227), v9 CurrentLeaderEpoch (KIP-320), v11 RackId
 * (KIP-392), v12 flexible with LastFetchedEpoch and the tagged cluster
 * id, v13 topic IDs (KIP-516), v15 ReplicaState (KIP-903), v17 the
 * tagged ReplicaDirectoryId (KIP-853).
 */
static const struct kfield replica_state[] = {
	KF(KT_INT32, struct km_replica_state, replica_id, 15, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_replica_state, replica_epoch, 15, KV_MAX,
	    .kf_def = -1),
};
static const struct kdesc kd_replica_state =
    KDESC("ReplicaState", struct km_replica_state, replica_state);

static const struct kfield fetch_part[] = {
	KF(KT_INT32, struct km_fetch_part, partition, 0, KV_MAX),
	KF(KT_INT32, struct km_fetch_part, current_leader_epoch, 9, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_fetch_part, fetch_offset, 0, KV_MAX),
	KF(KT_INT32, struct km_fetch_part, last_fetched_epoch, 12, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_fetch_part, log_start_offset, 5, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT32, struct km_fetch_part, partition_max_bytes, 0, KV_MAX),
	KF(KT_UUID, struct km_fetch_part, replica_directory_id, 17, KV_MAX,
	    KTAG(0)),
};
static const struct kdesc kd_fetch_part =
    KDESC("FetchPartition", struct km_fetch_part, fetch_part);

static const struct kfield fetch_topic[] = {
	KF(KT_STRING, struct km_fetch_topic, topic, 0, 12),
	KF(KT_UUID, struct km_fetch_topic, topic_id, 13, KV_MAX),
	KFS(kd_fetch_part, struct km_fetch_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_fetch_topic =
    KDESC("FetchTopic", struct km_fetch_topic, fetch_topic);

static const struct kfield forgotten_topic[] = {
	KF(KT_STRING, struct km_forgotten_topic, topic, 7, 12),
	KF(KT_UUID, struct km_forgotten_topic, topic_id, 13, KV_MAX),
	KFA(KT_INT32, struct km_forgotten_topic, partitions, 7, KV_MAX),
};
static const struct kdesc kd_forgotten_topic =
    KDESC("ForgottenTopic", struct km_forgotten_topic, forgotten_topic);

static const struct kfield fetch_req[] = {
	KF(KT_STRING, struct km_fetch_req, cluster_id, 12, KV_MAX,
	    .kf_flags = KF_TAGGED | KF_NULL, .kf_tag = 0, .kf_nullmin = 12,
	    .kf_def = -1),
	KF(KT_INT32, struct km_fetch_req, replica_id, 0, 14, .kf_def = -1),
	KFT(kd_replica_state, struct km_fetch_req, replica_state, 15, KV_MAX,
	    KTAG(1)),
	KF(KT_INT32, struct km_fetch_req, max_wait_ms, 0, KV_MAX),
	KF(KT_INT32, struct km_fetch_req, min_bytes, 0, KV_MAX),
	KF(KT_INT32, struct km_fetch_req, max_bytes, 3, KV_MAX,
	    .kf_def = INT32_MAX),
	KF(KT_INT8, struct km_fetch_req, isolation_level, 4, KV_MAX),
	KF(KT_INT32, struct km_fetch_req, session_id, 7, KV_MAX),
	KF(KT_INT32, struct km_fetch_req, session_epoch, 7, KV_MAX,
	    .kf_def = -1),
	KFS(kd_fetch_topic, struct km_fetch_req, topics, 0, KV_MAX),
	KFS(kd_forgotten_topic, struct km_fetch_req, forgotten_topics_data, 7,
	    KV_MAX),
	KF(KT_STRING, struct km_fetch_req, rack_id, 11, KV_MAX),
};

/*
 * FetchResponse: v1 throttle time, v4 LastStableOffset and aborted
 * transactions, v5 LogStartOffset, v7 sessions, v11
 * PreferredReadReplica, v12 the tagged diverging epoch, current leader
 * and snapshot id, v13 topic IDs, v16 tagged broker endpoints
 * (KIP-951).
 */
static const struct kfield epoch_end[] = {
	KF(KT_INT32, struct km_epoch_end, epoch, 12, KV_MAX, .kf_def = -1),
	KF(KT_INT64, struct km_epoch_end, end_offset, 12, KV_MAX,
	    .kf_def = -1),
};
static const struct kdesc kd_epoch_end =
    KDESC("EpochEndOffset", struct km_epoch_end, epoch_end);

static const struct kfield fetch_leader[] = {
	KF(KT_INT32, struct km_leader, leader_id, 12, KV_MAX, .kf_def = -1),
	KF(KT_INT32, struct km_leader, leader_epoch, 12, KV_MAX,
	    .kf_def = -1),
};
static const struct kdesc kd_fetch_leader =
    KDESC("LeaderIdAndEpoch", struct km_leader, fetch_leader);

static const struct kfield snapshot_id[] = {
	KF(KT_INT64, struct km_snapshot_id, end_offset, 12, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT32, struct km_snapshot_id, epoch, 12, KV_MAX, .kf_def = -1),
};
static const struct kdesc kd_snapshot_id =
    KDESC("SnapshotId", struct km_snapshot_id, snapshot_id);

static const struct kfield aborted_txn[] = {
	KF(KT_INT64, struct km_aborted_txn, producer_id, 4, KV_MAX),
	KF(KT_INT64, struct km_aborted_txn, first_offset, 4, KV_MAX),
};
static const struct kdesc kd_aborted_txn =
    KDESC("AbortedTransaction", struct km_aborted_txn, aborted_txn);

static const struct kfield fetch_part_resp[] = {
	KF(KT_INT32, struct km_fetch_part_resp, partition_index, 0, KV_MAX),
	KF(KT_INT16, struct km_fetch_part_resp, error_code, 0, KV_MAX),
	KF(KT_INT64, struct km_fetch_part_resp, high_watermark, 0, KV_MAX),
	KF(KT_INT64, struct km_fetch_part_resp, last_stable_offset, 4, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT64, struct km_fetch_part_resp, log_start_offset, 5, KV_MAX,
	    .kf_def = -1),
	KFT(kd_epoch_end, struct km_fetch_part_resp, diverging_epoch, 12,
	    KV_MAX, KTAG(0)),
	KFT(kd_fetch_leader, struct km_fetch_part_resp, current_leader, 12,
	    KV_MAX, KTAG(1)),
	KFT(kd_snapshot_id, struct km_fetch_part_resp, snapshot_id, 12,
	    KV_MAX, KTAG(2)),
	KFS(kd_aborted_txn, struct km_fetch_part_resp, aborted_transactions,
	    4, KV_MAX, KNULL(4)),
	KF(KT_INT32, struct km_fetch_part_resp, preferred_read_replica, 11,
	    KV_MAX, .kf_def = -1),
	KF(KT_RECORDS, struct km_fetch_part_resp, records, 0, KV_MAX,
	    KNULL(0)),
};
static const struct kdesc kd_fetch_part_resp =
    KDESC("PartitionData", struct km_fetch_part_resp, fetch_part_resp);

static const struct kfield fetch_topic_resp[] = {
	KF(KT_STRING, struct km_fetch_topic_resp, topic, 0, 12),
	KF(KT_UUID, struct km_fetch_topic_resp, topic_id, 13, KV_MAX),
	KFS(kd_fetch_part_resp, struct km_fetch_topic_resp, partitions, 0,
	    KV_MAX),
};
static const struct kdesc kd_fetch_topic_resp =
    KDESC("FetchableTopicResponse", struct km_fetch_topic_resp,
    fetch_topic_resp);

static const struct kfield fetch_endpoint[] = {
	KF(KT_INT32, struct km_node_endpoint, node_id, 16, KV_MAX),
	KF(KT_STRING, struct km_node_endpoint, host, 16, KV_MAX),
	KF(KT_INT32, struct km_node_endpoint, port, 16, KV_MAX),
	KF(KT_STRING, struct km_node_endpoint, rack, 16, KV_MAX, KNULL(16),
	    .kf_def = -1),
};
static const struct kdesc kd_fetch_endpoint =
    KDESC("NodeEndpoint", struct km_node_endpoint, fetch_endpoint);

static const struct kfield fetch_resp[] = {
	KF(KT_INT32, struct km_fetch_resp, throttle_time_ms, 1, KV_MAX),
	KF(KT_INT16, struct km_fetch_resp, error_code, 7, KV_MAX),
	KF(KT_INT32, struct km_fetch_resp, session_id, 7, KV_MAX),
	KFS(kd_fetch_topic_resp, struct km_fetch_resp, responses, 0, KV_MAX),
	KFS(kd_fetch_endpoint, struct km_fetch_resp, node_endpoints, 16,
	    KV_MAX, KTAG(0)),
};

static const struct kdesc kd_fetch_req =
    KDESC("FetchRequest", struct km_fetch_req, fetch_req);
static const struct kdesc kd_fetch_resp =
    KDESC("FetchResponse", struct km_fetch_resp, fetch_resp);

const struct kmsg kmsg_fetch = {
	KAPI_FETCH, "Fetch", 0, 17, 12, &kd_fetch_req, &kd_fetch_resp
};
