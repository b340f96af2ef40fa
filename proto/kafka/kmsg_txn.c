/*
 * The transaction APIs (see kmsg_txn.h), one row per field of Kafka's
 * JSON, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_txn.h"

/*
 * AddPartitionsToTxnRequest: v2 only new errors (PRODUCER_FENCED), v3
 * flexible, v4 batches transactions and adds VerifyOnly (brokers'), v5
 * only TRANSACTION_ABORTABLE.
 */
static const struct kfield addparts_topic[] = {
	KF(KT_STRING, struct km_addparts_topic, name, 0, KV_MAX),
	KFA(KT_INT32, struct km_addparts_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_addparts_topic =
    KDESC("AddPartitionsToTxnTopic", struct km_addparts_topic, addparts_topic);

static const struct kfield addparts_txn[] = {
	KF(KT_STRING, struct km_addparts_txn, transactional_id, 4, KV_MAX),
	KF(KT_INT64, struct km_addparts_txn, producer_id, 4, KV_MAX),
	KF(KT_INT16, struct km_addparts_txn, producer_epoch, 4, KV_MAX),
	KF(KT_BOOL, struct km_addparts_txn, verify_only, 4, KV_MAX),
	KFS(kd_addparts_topic, struct km_addparts_txn, topics, 4, KV_MAX),
};
static const struct kdesc kd_addparts_txn =
    KDESC("AddPartitionsToTxnTransaction", struct km_addparts_txn,
    addparts_txn);

static const struct kfield addparts_req[] = {
	KFS(kd_addparts_txn, struct km_addparts_req, transactions, 4, KV_MAX),
	KF(KT_STRING, struct km_addparts_req, v3_transactional_id, 0, 3),
	KF(KT_INT64, struct km_addparts_req, v3_producer_id, 0, 3),
	KF(KT_INT16, struct km_addparts_req, v3_producer_epoch, 0, 3),
	KFS(kd_addparts_topic, struct km_addparts_req, v3_topics, 0, 3),
};

static const struct kfield addparts_presult[] = {
	KF(KT_INT32, struct km_addparts_presult, partition_index, 0, KV_MAX),
	KF(KT_INT16, struct km_addparts_presult, partition_error_code, 0,
	    KV_MAX),
};
static const struct kdesc kd_addparts_presult =
    KDESC("AddPartitionsToTxnPartitionResult", struct km_addparts_presult,
    addparts_presult);

static const struct kfield addparts_tresult[] = {
	KF(KT_STRING, struct km_addparts_tresult, name, 0, KV_MAX),
	KFS(kd_addparts_presult, struct km_addparts_tresult,
	    results_by_partition, 0, KV_MAX),
};
static const struct kdesc kd_addparts_tresult =
    KDESC("AddPartitionsToTxnTopicResult", struct km_addparts_tresult,
    addparts_tresult);

static const struct kfield addparts_txnresult[] = {
	KF(KT_STRING, struct km_addparts_txnresult, transactional_id, 4,
	    KV_MAX),
	KFS(kd_addparts_tresult, struct km_addparts_txnresult, topic_results,
	    4, KV_MAX),
};
static const struct kdesc kd_addparts_txnresult =
    KDESC("AddPartitionsToTxnResult", struct km_addparts_txnresult,
    addparts_txnresult);

static const struct kfield addparts_resp[] = {
	KF(KT_INT32, struct km_addparts_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_addparts_resp, error_code, 4, KV_MAX),
	KFS(kd_addparts_txnresult, struct km_addparts_resp,
	    results_by_transaction, 4, KV_MAX),
	KFS(kd_addparts_tresult, struct km_addparts_resp, results_by_topic_v3,
	    0, 3),
};

static const struct kdesc kd_addparts_req =
    KDESC("AddPartitionsToTxnRequest", struct km_addparts_req, addparts_req);
static const struct kdesc kd_addparts_resp =
    KDESC("AddPartitionsToTxnResponse", struct km_addparts_resp,
    addparts_resp);

const struct kmsg kmsg_add_partitions_to_txn = {
	KAPI_ADD_PARTITIONS_TO_TXN, "AddPartitionsToTxn", 0, 5, 3,
	&kd_addparts_req, &kd_addparts_resp
};

/* AddOffsetsToTxnRequest: v2 PRODUCER_FENCED, v3 flexible, v4 errors only. */
static const struct kfield addoffs_req[] = {
	KF(KT_STRING, struct km_addoffs_req, transactional_id, 0, KV_MAX),
	KF(KT_INT64, struct km_addoffs_req, producer_id, 0, KV_MAX),
	KF(KT_INT16, struct km_addoffs_req, producer_epoch, 0, KV_MAX),
	KF(KT_STRING, struct km_addoffs_req, group_id, 0, KV_MAX),
};

static const struct kfield addoffs_resp[] = {
	KF(KT_INT32, struct km_addoffs_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_addoffs_resp, error_code, 0, KV_MAX),
};

static const struct kdesc kd_addoffs_req =
    KDESC("AddOffsetsToTxnRequest", struct km_addoffs_req, addoffs_req);
static const struct kdesc kd_addoffs_resp =
    KDESC("AddOffsetsToTxnResponse", struct km_addoffs_resp, addoffs_resp);

const struct kmsg kmsg_add_offsets_to_txn = {
	KAPI_ADD_OFFSETS_TO_TXN, "AddOffsetsToTxn", 0, 4, 3,
	&kd_addoffs_req, &kd_addoffs_resp
};

/* EndTxnRequest: v2 PRODUCER_FENCED, v3 flexible, v4 errors, v5 KIP-890. */
static const struct kfield endtxn_req[] = {
	KF(KT_STRING, struct km_endtxn_req, transactional_id, 0, KV_MAX),
	KF(KT_INT64, struct km_endtxn_req, producer_id, 0, KV_MAX),
	KF(KT_INT16, struct km_endtxn_req, producer_epoch, 0, KV_MAX),
	KF(KT_BOOL, struct km_endtxn_req, committed, 0, KV_MAX),
};

static const struct kfield endtxn_resp[] = {
	KF(KT_INT32, struct km_endtxn_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_endtxn_resp, error_code, 0, KV_MAX),
	KF(KT_INT64, struct km_endtxn_resp, producer_id, 5, KV_MAX,
	    .kf_def = -1),
	KF(KT_INT16, struct km_endtxn_resp, producer_epoch, 5, KV_MAX,
	    .kf_def = -1),
};

static const struct kdesc kd_endtxn_req =
    KDESC("EndTxnRequest", struct km_endtxn_req, endtxn_req);
static const struct kdesc kd_endtxn_resp =
    KDESC("EndTxnResponse", struct km_endtxn_resp, endtxn_resp);

const struct kmsg kmsg_end_txn = {
	KAPI_END_TXN, "EndTxn", 0, 5, 3, &kd_endtxn_req, &kd_endtxn_resp
};

/*
 * TxnOffsetCommitRequest: v2 adds the leader epoch, v3 the member
 * (flexible), v4 and v5 only errors (KIP-890).
 */
static const struct kfield txnoc_part[] = {
	KF(KT_INT32, struct km_txnoc_part, partition_index, 0, KV_MAX),
	KF(KT_INT64, struct km_txnoc_part, committed_offset, 0, KV_MAX),
	KF(KT_INT32, struct km_txnoc_part, committed_leader_epoch, 2, KV_MAX,
	    .kf_def = -1),
	KF(KT_STRING, struct km_txnoc_part, committed_metadata, 0, KV_MAX,
	    KNULL(0)),
};
static const struct kdesc kd_txnoc_part =
    KDESC("TxnOffsetCommitRequestPartition", struct km_txnoc_part,
    txnoc_part);

static const struct kfield txnoc_topic[] = {
	KF(KT_STRING, struct km_txnoc_topic, name, 0, KV_MAX),
	KFS(kd_txnoc_part, struct km_txnoc_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_txnoc_topic =
    KDESC("TxnOffsetCommitRequestTopic", struct km_txnoc_topic, txnoc_topic);

static const struct kfield txnoc_req[] = {
	KF(KT_STRING, struct km_txnoc_req, transactional_id, 0, KV_MAX),
	KF(KT_STRING, struct km_txnoc_req, group_id, 0, KV_MAX),
	KF(KT_INT64, struct km_txnoc_req, producer_id, 0, KV_MAX),
	KF(KT_INT16, struct km_txnoc_req, producer_epoch, 0, KV_MAX),
	KF(KT_INT32, struct km_txnoc_req, generation_id, 3, KV_MAX,
	    .kf_def = -1),
	KF(KT_STRING, struct km_txnoc_req, member_id, 3, KV_MAX),
	KF(KT_STRING, struct km_txnoc_req, group_instance_id, 3, KV_MAX,
	    KNULL(3), .kf_def = -1),
	KFS(kd_txnoc_topic, struct km_txnoc_req, topics, 0, KV_MAX),
};

static const struct kfield txnoc_presp[] = {
	KF(KT_INT32, struct km_txnoc_presp, partition_index, 0, KV_MAX),
	KF(KT_INT16, struct km_txnoc_presp, error_code, 0, KV_MAX),
};
static const struct kdesc kd_txnoc_presp =
    KDESC("TxnOffsetCommitResponsePartition", struct km_txnoc_presp,
    txnoc_presp);

static const struct kfield txnoc_tresp[] = {
	KF(KT_STRING, struct km_txnoc_tresp, name, 0, KV_MAX),
	KFS(kd_txnoc_presp, struct km_txnoc_tresp, partitions, 0, KV_MAX),
};
static const struct kdesc kd_txnoc_tresp =
    KDESC("TxnOffsetCommitResponseTopic", struct km_txnoc_tresp, txnoc_tresp);

static const struct kfield txnoc_resp[] = {
	KF(KT_INT32, struct km_txnoc_resp, throttle_time_ms, 0, KV_MAX),
	KFS(kd_txnoc_tresp, struct km_txnoc_resp, topics, 0, KV_MAX),
};

static const struct kdesc kd_txnoc_req =
    KDESC("TxnOffsetCommitRequest", struct km_txnoc_req, txnoc_req);
static const struct kdesc kd_txnoc_resp =
    KDESC("TxnOffsetCommitResponse", struct km_txnoc_resp, txnoc_resp);

const struct kmsg kmsg_txn_offset_commit = {
	KAPI_TXN_OFFSET_COMMIT, "TxnOffsetCommit", 0, 5, 3,
	&kd_txnoc_req, &kd_txnoc_resp
};

/* DescribeTransactionsRequest v0 (KIP-664), flexible. */
static const struct kfield desctxn_req[] = {
	KFA(KT_STRING, struct km_desctxn_req, transactional_ids, 0, KV_MAX),
};

static const struct kfield desctxn_topic[] = {
	KF(KT_STRING, struct km_desctxn_topic, topic, 0, KV_MAX),
	KFA(KT_INT32, struct km_desctxn_topic, partitions, 0, KV_MAX),
};
static const struct kdesc kd_desctxn_topic =
    KDESC("TopicData", struct km_desctxn_topic, desctxn_topic);

static const struct kfield desctxn_state[] = {
	KF(KT_INT16, struct km_desctxn_state, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_desctxn_state, transactional_id, 0, KV_MAX),
	KF(KT_STRING, struct km_desctxn_state, transaction_state, 0, KV_MAX),
	KF(KT_INT32, struct km_desctxn_state, transaction_timeout_ms, 0,
	    KV_MAX),
	KF(KT_INT64, struct km_desctxn_state, transaction_start_time_ms, 0,
	    KV_MAX),
	KF(KT_INT64, struct km_desctxn_state, producer_id, 0, KV_MAX),
	KF(KT_INT16, struct km_desctxn_state, producer_epoch, 0, KV_MAX),
	KFS(kd_desctxn_topic, struct km_desctxn_state, topics, 0, KV_MAX),
};
static const struct kdesc kd_desctxn_state =
    KDESC("TransactionState", struct km_desctxn_state, desctxn_state);

static const struct kfield desctxn_resp[] = {
	KF(KT_INT32, struct km_desctxn_resp, throttle_time_ms, 0, KV_MAX),
	KFS(kd_desctxn_state, struct km_desctxn_resp, transaction_states, 0,
	    KV_MAX),
};

static const struct kdesc kd_desctxn_req =
    KDESC("DescribeTransactionsRequest", struct km_desctxn_req, desctxn_req);
static const struct kdesc kd_desctxn_resp =
    KDESC("DescribeTransactionsResponse", struct km_desctxn_resp,
    desctxn_resp);

const struct kmsg kmsg_describe_transactions = {
	KAPI_DESCRIBE_TRANSACTIONS, "DescribeTransactions", 0, 0, 0,
	&kd_desctxn_req, &kd_desctxn_resp
};

/* ListTransactionsRequest v0-1 (KIP-664; v1 KIP-994), flexible. */
static const struct kfield listtxn_req[] = {
	KFA(KT_STRING, struct km_listtxn_req, state_filters, 0, KV_MAX),
	KFA(KT_INT64, struct km_listtxn_req, producer_id_filters, 0, KV_MAX),
	KF(KT_INT64, struct km_listtxn_req, duration_filter, 1, KV_MAX,
	    .kf_def = -1),
};

static const struct kfield listtxn_state[] = {
	KF(KT_STRING, struct km_listtxn_state, transactional_id, 0, KV_MAX),
	KF(KT_INT64, struct km_listtxn_state, producer_id, 0, KV_MAX),
	KF(KT_STRING, struct km_listtxn_state, transaction_state, 0, KV_MAX),
};
static const struct kdesc kd_listtxn_state =
    KDESC("TransactionState", struct km_listtxn_state, listtxn_state);

static const struct kfield listtxn_resp[] = {
	KF(KT_INT32, struct km_listtxn_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_listtxn_resp, error_code, 0, KV_MAX),
	KFA(KT_STRING, struct km_listtxn_resp, unknown_state_filters, 0,
	    KV_MAX),
	KFS(kd_listtxn_state, struct km_listtxn_resp, transaction_states, 0,
	    KV_MAX),
};

static const struct kdesc kd_listtxn_req =
    KDESC("ListTransactionsRequest", struct km_listtxn_req, listtxn_req);
static const struct kdesc kd_listtxn_resp =
    KDESC("ListTransactionsResponse", struct km_listtxn_resp, listtxn_resp);

const struct kmsg kmsg_list_transactions = {
	KAPI_LIST_TRANSACTIONS, "ListTransactions", 0, 1, 0,
	&kd_listtxn_req, &kd_listtxn_resp
};
