/*
 * Kafka API keys, the (key, version) set Flume speaks, and Kafka's error
 * codes.  The version table is DESIGN.md section 7: non-flexible versions
 * only, verified against kcat 1.7.1, confluent-kafka 1.7.0, kafka-python
 * 2.0.2 and kafkajs 2.2.4.
 */
#ifndef FLUME_PROTO_KAFKA_KAPI_H
#define FLUME_PROTO_KAFKA_KAPI_H

#include <stddef.h>
#include <stdint.h>

enum kapi_key {
	KAPI_PRODUCE		= 0,
	KAPI_FETCH		= 1,
	KAPI_LIST_OFFSETS	= 2,
	KAPI_METADATA		= 3,
	KAPI_OFFSET_COMMIT	= 8,
	KAPI_OFFSET_FETCH	= 9,
	KAPI_FIND_COORDINATOR	= 10,
	KAPI_JOIN_GROUP		= 11,
	KAPI_HEARTBEAT		= 12,
	KAPI_LEAVE_GROUP	= 13,
	KAPI_SYNC_GROUP		= 14,
	KAPI_DESCRIBE_GROUPS	= 15,
	KAPI_LIST_GROUPS	= 16,
	KAPI_SASL_HANDSHAKE	= 17,	/* worker/kafka_sasl.c, codec ksasl.h */
	KAPI_API_VERSIONS	= 18,
	KAPI_CREATE_TOPICS	= 19,
	KAPI_DELETE_TOPICS	= 20,
	KAPI_INIT_PRODUCER_ID	= 22,
	KAPI_SASL_AUTHENTICATE	= 36,
	KAPI_CREATE_PARTITIONS	= 37,
	KAPI_KEY_MAX		= 38	/* one past the highest key above */
};

/* Kafka error codes (org.apache.kafka.common.protocol.Errors). */
enum kerr {
	KERR_UNKNOWN_SERVER_ERROR		= -1,
	KERR_NONE				= 0,
	KERR_OFFSET_OUT_OF_RANGE		= 1,
	KERR_CORRUPT_MESSAGE			= 2,
	KERR_UNKNOWN_TOPIC_OR_PARTITION		= 3,
	KERR_INVALID_FETCH_SIZE			= 4,
	KERR_LEADER_NOT_AVAILABLE		= 5,
	KERR_NOT_LEADER_FOR_PARTITION		= 6,
	KERR_REQUEST_TIMED_OUT			= 7,
	KERR_MESSAGE_TOO_LARGE			= 10,
	KERR_COORDINATOR_NOT_AVAILABLE		= 15,
	KERR_NOT_COORDINATOR			= 16,
	KERR_INVALID_TOPIC_EXCEPTION		= 17,
	KERR_RECORD_LIST_TOO_LARGE		= 18,
	KERR_NOT_ENOUGH_REPLICAS		= 19,
	KERR_INVALID_REQUIRED_ACKS		= 21,
	KERR_ILLEGAL_GENERATION			= 22,
	KERR_INCONSISTENT_GROUP_PROTOCOL	= 23,
	KERR_INVALID_GROUP_ID			= 24,
	KERR_UNKNOWN_MEMBER_ID			= 25,
	KERR_INVALID_SESSION_TIMEOUT		= 26,
	KERR_REBALANCE_IN_PROGRESS		= 27,
	KERR_TOPIC_AUTHORIZATION_FAILED		= 29,
	KERR_GROUP_AUTHORIZATION_FAILED		= 30,
	KERR_CLUSTER_AUTHORIZATION_FAILED	= 31,
	KERR_INVALID_TIMESTAMP			= 32,
	KERR_UNSUPPORTED_SASL_MECHANISM		= 33,
	KERR_ILLEGAL_SASL_STATE			= 34,
	KERR_UNSUPPORTED_VERSION		= 35,
	KERR_TOPIC_ALREADY_EXISTS		= 36,
	KERR_INVALID_PARTITIONS			= 37,
	KERR_INVALID_REPLICATION_FACTOR		= 38,
	KERR_INVALID_REPLICA_ASSIGNMENT		= 39,
	KERR_INVALID_CONFIG			= 40,
	KERR_INVALID_REQUEST			= 42,
	KERR_UNSUPPORTED_FOR_MESSAGE_FORMAT	= 43,
	KERR_POLICY_VIOLATION			= 44,
	KERR_OUT_OF_ORDER_SEQUENCE_NUMBER	= 45,
	KERR_DUPLICATE_SEQUENCE_NUMBER		= 46,
	KERR_INVALID_PRODUCER_EPOCH		= 47,
	KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53,
	KERR_KAFKA_STORAGE_ERROR		= 56,
	KERR_SASL_AUTHENTICATION_FAILED		= 58,
	KERR_UNKNOWN_PRODUCER_ID		= 59,
	KERR_FETCH_SESSION_ID_NOT_FOUND		= 70,
	KERR_INVALID_FETCH_SESSION_EPOCH	= 71,
	KERR_UNSUPPORTED_COMPRESSION_TYPE	= 76,
	KERR_MEMBER_ID_REQUIRED			= 79,
	KERR_NON_EMPTY_GROUP			= 68,
	KERR_GROUP_ID_NOT_FOUND			= 69,
	KERR_TOPIC_DELETION_DISABLED		= 73,
	KERR_INVALID_RECORD			= 87,
	KERR_UNKNOWN_TOPIC_ID			= 100
};

struct kapi_version {
	int16_t		 key;
	int16_t		 min, max;
	const char	*name;
};

/* The supported table, in key order, and its length. */
extern const struct kapi_version kapi_versions[];
extern const size_t kapi_nversions;

/* The row of key, or NULL if Flume does not speak it at all. */
const struct kapi_version *kapi_lookup(int16_t key);
/* 1 if (key, version) is in the table. */
int		 kapi_supported(int16_t key, int16_t version);
/*
 * Kafka's name of the API ("Produce", "DeleteRecords"), for every key
 * Kafka defines, Flume's or not; NULL for a key Kafka does not have.
 */
const char	*kapi_name(int16_t key);

#endif
