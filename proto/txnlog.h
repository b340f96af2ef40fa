/*
 * __transaction_state's records: Kafka's TransactionLogKey (version 0)
 * and TransactionLogValue (version 1, flexible), as Kafka's transaction
 * coordinator writes them, so Kafka's tools decode the topic.
 *
 *   key    version i16 (0), transactionalId string
 *   value  version i16 (1), producerId i64, producerEpoch i16,
 *          transactionTimeoutMs i32, transactionStatus i8,
 *          transactionPartitions compact nullable [topic compact string,
 *          partitionIds compact [i32], tags], lastUpdate i64, start i64,
 *          tags
 *
 * Flume adds one tagged field (tag TXNLOG_TAG_OFFSETS, which Kafka's
 * readers skip as unknown): the transaction's pending TxnOffsetCommit
 * offsets, compact [group compact string, topic compact string,
 * partition i32, offset i64], so that a PrepareCommit read back after a
 * restart still commits them.  A tombstone (null value) forgets the id.
 * Decoding reads values of version 0 (not flexible) and 1.
 */
#ifndef FLUME_PROTO_TXNLOG_H
#define FLUME_PROTO_TXNLOG_H

#include <stddef.h>
#include <stdint.h>

#define TXNLOG_TOPIC		"__transaction_state"
#define TXNLOG_TOPIC_LEN	19
#define TXNLOG_TAG_OFFSETS	0x464c		/* "FL" */

struct txnlog_part {
	const char	*topic;
	size_t		 topic_len;
	int32_t		 partition;
};

struct txnlog_off {
	const char	*group;
	size_t		 group_len;
	const char	*topic;
	size_t		 topic_len;
	int32_t		 partition;
	int64_t		 offset;
};

struct txnlog_value {
	int64_t			 pid;
	int16_t			 epoch;
	int32_t			 timeout_ms;
	int8_t			 status;	/* enum txn_state (shm/txn.h) */
	int64_t			 update_ms;
	int64_t			 start_ms;
	uint32_t		 nparts;	/* entries of parts (decode: at most its cap) */
	struct txnlog_part	*parts;
	uint32_t		 noffs;
	struct txnlog_off	*offs;
};

#define TXNLOG_STATES	8	/* status bytes 0 Empty .. 7 PrepareEpochFence */

/* Kafka's name of status byte st ("Ongoing"...), or NULL. */
const char *txnlog_state_name(uint32_t st);
/* The status byte named name (Kafka's names), or -1. */
int	txnlog_state_parse(const char *name, size_t len);

/* The key of id into buf; its length (more than cap: did not fit). */
size_t	txnlog_key(uint8_t *buf, size_t cap, const char *id, size_t len);
/* The value v into buf; its length (more than cap: did not fit; buf
 * NULL, cap 0 sizes it). */
size_t	txnlog_value(uint8_t *buf, size_t cap, const struct txnlog_value *v);
/* The transactional id of a key (pointing into buf); 0 or -1. */
int	txnlog_key_decode(const uint8_t *buf, size_t len, const char **id,
	    size_t *id_len);
/*
 * A value into v: v->parts and v->offs point to caller arrays of
 * part_cap and off_cap entries; more entries than that, or any damage,
 * is -1.  Strings point into buf.
 */
int	txnlog_value_decode(const uint8_t *buf, size_t len,
	    struct txnlog_value *v, uint32_t part_cap, uint32_t off_cap);

#endif
