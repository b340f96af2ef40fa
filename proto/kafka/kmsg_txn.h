/*
 * The transaction APIs as descriptions (kdesc.h), from Kafka's
 * Request.json and Response.json (Kafka 3.9 oldest .. 4.0 newest):
 * AddPartitionsToTxn (24) v0-5, AddOffsetsToTxn (25) v0-4, EndTxn (26)
 * v0-5, TxnOffsetCommit (28) v0-5, DescribeTransactions (65) v0,
 * ListTransactions (66) v0-1.
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_TXN_H
#define FLUME_PROTO_KAFKA_KMSG_TXN_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* AddPartitionsToTxn v0-5, flexible 3+; v4+ batches transactions. */
struct km_addparts_topic {
	struct kstr	 name;
	struct karray	 partitions;			/* int32_t */
};

struct km_addparts_txn {
	struct kstr	 transactional_id;
	int64_t		 producer_id;
	int16_t		 producer_epoch;
	uint8_t		 verify_only;
	struct karray	 topics;			/* km_addparts_topic */
};

struct km_addparts_req {
	struct karray	 transactions;			/* km_addparts_txn, 4+ */
	struct kstr	 v3_transactional_id;		/* 0-3 */
	int64_t		 v3_producer_id;		/* 0-3 */
	int16_t		 v3_producer_epoch;		/* 0-3 */
	struct karray	 v3_topics;			/* km_addparts_topic, 0-3 */
};

struct km_addparts_presult {
	int32_t		 partition_index;
	int16_t		 partition_error_code;
};

struct km_addparts_tresult {
	struct kstr	 name;
	struct karray	 results_by_partition;		/* km_addparts_presult */
};

struct km_addparts_txnresult {
	struct kstr	 transactional_id;
	struct karray	 topic_results;			/* km_addparts_tresult */
};

struct km_addparts_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;			/* 4+ */
	struct karray	 results_by_transaction;	/* km_addparts_txnresult, 4+ */
	struct karray	 results_by_topic_v3;		/* km_addparts_tresult, 0-3 */
};

/* AddOffsetsToTxn v0-4, flexible 3+. */
struct km_addoffs_req {
	struct kstr	 transactional_id;
	int64_t		 producer_id;
	int16_t		 producer_epoch;
	struct kstr	 group_id;
};

struct km_addoffs_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
};

/* EndTxn v0-5, flexible 3+; v5's answer names the producer. */
struct km_endtxn_req {
	struct kstr	 transactional_id;
	int64_t		 producer_id;
	int16_t		 producer_epoch;
	uint8_t		 committed;
};

struct km_endtxn_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
	int64_t		 producer_id;			/* 5+ */
	int16_t		 producer_epoch;		/* 5+ */
};

/* TxnOffsetCommit v0-5, flexible 3+; v3 adds the group member. */
struct km_txnoc_part {
	int32_t		 partition_index;
	int64_t		 committed_offset;
	int32_t		 committed_leader_epoch;	/* 2+ */
	struct kstr	 committed_metadata;		/* nullable */
};

struct km_txnoc_topic {
	struct kstr	 name;
	struct karray	 partitions;			/* km_txnoc_part */
};

struct km_txnoc_req {
	struct kstr	 transactional_id;
	struct kstr	 group_id;
	int64_t		 producer_id;
	int16_t		 producer_epoch;
	int32_t		 generation_id;			/* 3+ */
	struct kstr	 member_id;			/* 3+ */
	struct kstr	 group_instance_id;		/* 3+, nullable */
	struct karray	 topics;			/* km_txnoc_topic */
};

struct km_txnoc_presp {
	int32_t		 partition_index;
	int16_t		 error_code;
};

struct km_txnoc_tresp {
	struct kstr	 name;
	struct karray	 partitions;			/* km_txnoc_presp */
};

struct km_txnoc_resp {
	int32_t		 throttle_time_ms;
	struct karray	 topics;			/* km_txnoc_tresp */
};

/* DescribeTransactions v0, flexible. */
struct km_desctxn_req {
	struct karray	 transactional_ids;		/* kstr */
};

struct km_desctxn_topic {
	struct kstr	 topic;
	struct karray	 partitions;			/* int32_t */
};

struct km_desctxn_state {
	int16_t		 error_code;
	struct kstr	 transactional_id;
	struct kstr	 transaction_state;
	int32_t		 transaction_timeout_ms;
	int64_t		 transaction_start_time_ms;
	int64_t		 producer_id;
	int16_t		 producer_epoch;
	struct karray	 topics;			/* km_desctxn_topic */
};

struct km_desctxn_resp {
	int32_t		 throttle_time_ms;
	struct karray	 transaction_states;		/* km_desctxn_state */
};

/* ListTransactions v0-1, flexible; v1 adds DurationFilter. */
struct km_listtxn_req {
	struct karray	 state_filters;			/* kstr */
	struct karray	 producer_id_filters;		/* int64_t */
	int64_t		 duration_filter;		/* 1+ */
};

struct km_listtxn_state {
	struct kstr	 transactional_id;
	int64_t		 producer_id;
	struct kstr	 transaction_state;
};

struct km_listtxn_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
	struct karray	 unknown_state_filters;		/* kstr */
	struct karray	 transaction_states;		/* km_listtxn_state */
};

extern const struct kmsg kmsg_add_partitions_to_txn, kmsg_add_offsets_to_txn,
    kmsg_end_txn, kmsg_txn_offset_commit, kmsg_describe_transactions,
    kmsg_list_transactions;

#endif
