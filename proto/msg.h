/*
 * The native protocol's operations: API keys, error codes, and the
 * payload layout of every request and response.  Encoders write into a
 * struct wbuf (after frame_begin_*), decoders read a frame payload with
 * full bounds checks and put arrays in a struct arena.  Decoders return
 * 0, or -1 when the payload is malformed (short, overlong, bad count,
 * trailing bytes); they never read outside the payload.
 *
 * Types: i8/i16/i32/i64 big-endian; str = [u16 len][bytes];
 * bytes = [i32 len][bytes] (-1 = null).  Every response payload starts
 * with [error i16]; per-entry results come in request order.
 * The byte-by-byte description for users is man/flume-protocol.7.
 */
#ifndef FLUME_PROTO_MSG_H
#define FLUME_PROTO_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "proto/names.h"
#include "proto/wire.h"

/*
 * The newest protocol version this code speaks.  A connection speaks the
 * smaller of the client's HANDSHAKE version and the broker's (1 without
 * a HANDSHAKE); version 2 adds DESCRIBE_GROUP's kind and epochs, version
 * 3 FETCH's isolation level, last stable offset and aborted transactions.
 */
#define FLUME_PROTOCOL_VERSION	3

enum api_key {
	API_HANDSHAKE = 1,
	API_METADATA = 2,
	API_PRODUCE = 3,
	API_FETCH = 4,
	API_LIST_OFFSETS = 5,
	API_CREATE_TOPIC = 6,
	API_WORKERS = 7,
	API_JOIN_GROUP = 8,
	API_HEARTBEAT = 9,
	API_LEAVE_GROUP = 10,
	API_OFFSET_COMMIT = 11,
	API_OFFSET_FETCH = 12,
	API_LIST_GROUPS = 13,
	API_DESCRIBE_GROUP = 14,
	API_INIT_PRODUCER = 15,
	API_AUTH_BEGIN = 16,		/* challenge-response authentication */
	API_AUTH_PROVE = 17,
	API_STATS = 18,			/* broker figures for flume-admin stats */
	API_GROUP_RESET = 19,		/* set a member-less group's offsets */
	API_DELETE_TOPIC = 20,		/* delete a topic and its data */
	API_GROUP_DELETE = 21,		/* delete a member-less group and its offsets */
	API_CONFIG_DESCRIBE = 22,	/* a topic's or the broker's settings */
	API_CONFIG_ALTER = 23,		/* set or delete a topic's settings */
	API_CREATE_PARTITIONS = 24,	/* grow a topic's partition count */
	API_DELETE_RECORDS = 25,	/* move a partition's log start up */
	API_OFFSET_DELETE = 26,		/* delete a group's committed offsets */
	API_CONNECTIONS = 27,		/* the workers' client connections */
	API_CLEANER = 28,		/* the cleaner's figures */
	API_TRANSACTIONS = 29,		/* the transaction coordinator's table */
	API_MAX = 30
};

enum flume_error {
	ERR_NONE = 0,
	ERR_UNKNOWN = 1,		/* unexpected broker-side failure */
	ERR_INVALID_REQUEST = 2,	/* malformed payload */
	ERR_UNSUPPORTED_API = 3,
	ERR_UNSUPPORTED_VERSION = 4,
	ERR_CORRUPT_MESSAGE = 5,	/* batch failed validation (CRC, counts) */
	ERR_MESSAGE_TOO_LARGE = 6,
	ERR_INVALID_TOPIC = 7,		/* bad or reserved topic name */
	ERR_UNKNOWN_TOPIC_OR_PARTITION = 8,
	ERR_TOPIC_EXISTS = 9,
	ERR_INVALID_PARTITIONS = 10,
	ERR_OFFSET_OUT_OF_RANGE = 11,
	ERR_STORAGE = 12,		/* disk full or I/O error */
	ERR_TIMEOUT = 13,
	ERR_RESOURCE_LIMIT = 14,	/* too many topics/partitions/requests */
	ERR_UNSUPPORTED_COMPRESSION = 15,
	ERR_DUPLICATE_SEQUENCE = 16,
	ERR_OUT_OF_ORDER_SEQUENCE = 17,
	ERR_INVALID_GROUP = 18,
	ERR_UNKNOWN_MEMBER = 19,
	ERR_ILLEGAL_GENERATION = 20,
	ERR_REBALANCE_IN_PROGRESS = 21,
	ERR_INVALID_SESSION_TIMEOUT = 22,
	ERR_AUTH_FAILED = 23,
	ERR_ACCESS_DENIED = 24,
	ERR_SHUTTING_DOWN = 25,
	ERR_AUTH_REQUIRED = 26,		/* authenticate before anything else */
	ERR_PRODUCER_FENCED = 27,	/* unknown producer id or stale epoch */
	ERR_GROUP_NOT_EMPTY = 28,	/* needs a group without members */
	ERR_GROUP_KIND = 29,		/* a Kafka group joined natively, or the reverse */
	ERR_INVALID_CONFIG = 30,	/* an unknown key or a bad value (the message names it) */
	ERR_GROUP_SUBSCRIBED = 31,	/* the group's members consume that topic */
	ERR_INVALID_RECORD = 32,	/* a record without a key to a compacted topic */
	/* Transactions (issue 29, worker/op/txn.h). */
	ERR_TXN_CONCURRENT = 33,	/* a transaction is being completed: retry */
	ERR_TXN_STATE = 34,		/* not in the transaction's state, or no such one */
	ERR_TXN_FENCED = 35,		/* a newer epoch holds the transactional id */
	ERR_TXN_TIMEOUT = 36,		/* a transaction timeout over the broker's limit */
	ERR_UNSTABLE_OFFSET = 37,	/* an offset is pending in a transaction */
	ERR_PRODUCERS_FULL = 38,	/* every producer slot of the partition holds
					   an open transaction: retry later */
	ERR_MAX = 39
};

/*
 * "unknown topic or partition".  Part of libflume's API (clients/flume.h
 * declares it too), so it leaves libflume.so despite -fvisibility=hidden.
 */
__attribute__((visibility("default")))
const char	*flume_strerror(int err);
const char	*api_name(int api_key);		/* "PRODUCE", or "?" */

struct wire_str { const char *s; size_t len; };

/* ---- HANDSHAKE (1) ----
 * req:  [version i16][client_id str]
 * resp: [error i16][version i16][max_frame i32][broker str]   */
struct handshake_req { int16_t version; const char *client_id; size_t client_id_len; };
struct handshake_resp { int16_t error; int16_t version; int32_t max_frame; const char *broker; size_t broker_len; };

/* ---- METADATA (2) ----
 * req:  [auto_create i8][count i32]{[topic str]}      count 0 = all topics
 * resp: [error i16][count i32]{[error i16][topic str][partitions i32]
 *         {[partition i32][log_start i64][log_end i64][size_bytes i64]}} */
struct metadata_req { int8_t auto_create; int32_t count; struct wire_str *topics; };
struct partition_info { int32_t partition; int64_t log_start; int64_t log_end; int64_t size_bytes; };
struct topic_info { int16_t error; const char *name; size_t name_len; int32_t count; struct partition_info *partitions; };
struct metadata_resp { int16_t error; int32_t count; struct topic_info *topics; };


/* ---- CREATE_TOPIC (6) ----
 * req:  [topic str][partitions i32]        partitions 0 = broker default
 * resp: [error i16][partitions i32]          TOPIC_EXISTS if it exists */
struct create_topic_req { const char *topic; size_t topic_len; int32_t partitions; };
struct create_topic_resp { int16_t error; int32_t partitions; };
/* timeout_ms: how long to wait for the files to be gone (<= 0: default). */
struct delete_topic_req { const char *topic; size_t topic_len; int32_t timeout_ms; };
struct delete_topic_resp { int16_t error; int32_t partitions; };

/* ---- PRODUCE (3) ----
 * req:  [acks i8][timeout_ms i32][count i32]{[topic str][partition i32][records bytes]}
 *       acks: 0 none (no response is sent at all), 1 in the ring, -1 fsynced.
 *       records: one or more whole RecordBatch v2, baseOffset ignored.
 * resp: [error i16][count i32]{[error i16][base_offset i64][log_start i64]} */
struct produce_part { const char *topic; size_t topic_len; int32_t partition;
	const uint8_t *records; int32_t records_len; };
struct produce_req { int8_t acks; int32_t timeout_ms; int32_t count; struct produce_part *parts; };
struct produce_result { int16_t error; int64_t base_offset; int64_t log_start; };
struct produce_resp { int16_t error; int32_t count; struct produce_result *results; };

/* ---- FETCH (4) ----
 * req:  [max_wait_ms i32][min_bytes i32][max_bytes i32][count i32]
 *         {[topic str][partition i32][offset i64][max_bytes i32]}
 * resp: [error i16][count i32]{[error i16][log_start i64][high_watermark i64]
 *         [records bytes]}
 *       records: whole batches, starting with the one holding offset; may
 *       begin before offset (skip records below it).  Empty when nothing
 *       is visible at offset after max_wait_ms.  With error
 *       CORRUPT_MESSAGE, records is exactly [first i64][next i64]: offsets
 *       [first, next) lie in a damaged part of the log, next is readable.
 * Protocol version 3 (transactions) adds [isolation i8] at the end of the
 * request (0 read_uncommitted, 1 read_committed: records only below the
 * last stable offset), and to each result, after high_watermark,
 * [last_stable i64][count i32]{[producer_id i64][first_offset i64]}: the
 * aborted transactions of the range (read_committed; none otherwise)
 * (msg_*_fetch_*_v3). */
#define FETCH_CORRUPT_RECORDS	16
#define FETCH_READ_UNCOMMITTED	0
#define FETCH_READ_COMMITTED	1
struct fetch_part { const char *topic; size_t topic_len; int32_t partition;
	int64_t offset; int32_t max_bytes; };
struct fetch_req { int32_t max_wait_ms; int32_t min_bytes; int32_t max_bytes;
	int32_t count; struct fetch_part *parts;
	/* version 3 */
	int8_t isolation; };
struct fetch_aborted { int64_t producer_id; int64_t first_offset; };
struct fetch_result { int16_t error; int64_t log_start; int64_t high_watermark;
	const uint8_t *records; int32_t records_len;
	/* version 3 */
	int64_t last_stable; int32_t naborted; struct fetch_aborted *aborted; };
struct fetch_resp { int16_t error; int32_t count; struct fetch_result *results; };

/* ---- LIST_OFFSETS (5) ----
 * req:  [count i32]{[topic str][partition i32][which i64]}  -2 earliest, -1 latest,
 *       -3 (version 3) the last stable offset
 * resp: [error i16][count i32]{[error i16][offset i64]} */
#define OFFSET_EARLIEST	(-2)
#define OFFSET_LATEST	(-1)
#define OFFSET_LAST_STABLE (-3)	/* version 3: the last stable offset */
struct list_offsets_part { const char *topic; size_t topic_len; int32_t partition; int64_t which; };
struct list_offsets_req { int32_t count; struct list_offsets_part *parts; };
/*
 * timestamp: a lookup by time's record timestamp (-1 for earliest, latest
 * or none found).  It is not on the native wire, which has no room for
 * it; the Kafka face answers it (ListOffsets v1+).
 */
struct list_offsets_result { int16_t error; int64_t offset;
	int64_t timestamp; };
struct list_offsets_resp { int16_t error; int32_t count; struct list_offsets_result *results; };

/* ---- WORKERS (7) ----
 * req:  (empty)
 * resp: [error i16][count i32]{[slot i32][role i8][pid i32][uptime_ms i64][restarts i32]}
 *       role: 0 worker, 1 writer */
struct child_info { int32_t slot; int8_t role; int32_t pid; int64_t uptime_ms; int32_t restarts; };
struct workers_resp { int16_t error; int32_t count; struct child_info *children; };

/* ---- CONNECTIONS (27) ----
 * req:  (empty)
 * resp: [error i16][count i32]{[slot i32][pid i32][protocol i8][tls i8]
 *       [opened_ms i64][peer str][client_name str][client_version str]}
 *       protocol: 0 native, 1 Kafka; client_*: "" unless a Kafka client
 *       named its software (ApiVersions v3+).  proto/msg_conn.c. */
struct conn_info { int32_t slot; int32_t pid; int8_t protocol; int8_t tls;
	int64_t opened_ms; const char *peer; size_t peer_len;
	const char *client_name; size_t client_name_len;
	const char *client_version; size_t client_version_len; };
struct connections_resp { int16_t error; int32_t count; struct conn_info *conns; };
void	msg_encode_connections_resp(struct wbuf *wb,
	    const struct connections_resp *m);
int	msg_decode_connections_resp(const uint8_t *p, size_t len,
	    struct arena *a, struct connections_resp *m);

/* Encoders: append the payload (the caller brackets it with frame_begin/end). */
void	msg_encode_handshake_req(struct wbuf *wb, const struct handshake_req *m);
void	msg_encode_handshake_resp(struct wbuf *wb, const struct handshake_resp *m);
void	msg_encode_metadata_req(struct wbuf *wb, const struct metadata_req *m);
void	msg_encode_metadata_resp(struct wbuf *wb, const struct metadata_resp *m);
/*
 * One topic of a METADATA answer, for an encoder that writes the answer
 * a topic at a time: [error i16][count i32] first, then count of these.
 */
void	msg_encode_topic_info(struct wbuf *wb, const struct topic_info *m);
void	msg_encode_create_topic_req(struct wbuf *wb, const struct create_topic_req *m);
void	msg_encode_create_topic_resp(struct wbuf *wb, const struct create_topic_resp *m);
void	msg_encode_delete_topic_req(struct wbuf *wb, const struct delete_topic_req *m);
void	msg_encode_delete_topic_resp(struct wbuf *wb, const struct delete_topic_resp *m);
void	msg_encode_produce_req(struct wbuf *wb, const struct produce_req *m);
/* The same, the records referenced from wb, not copied (wbuf_bytes_ref). */
void	msg_encode_produce_req_ref(struct wbuf *wb, const struct produce_req *m);
/*
 * A PRODUCE request whose part i is the content of pieces[i] when that
 * has spans (a batch of referenced values, proto/batch.h), else its
 * records; by_ref references every piece (see wbuf_bytes_pieces), else
 * copies them.
 */
void	msg_encode_produce_req_pieces(struct wbuf *wb,
	    const struct produce_req *m, const struct wbuf_pieces *pieces,
	    int by_ref);
void	msg_encode_produce_resp(struct wbuf *wb, const struct produce_resp *m);
void	msg_encode_fetch_req(struct wbuf *wb, const struct fetch_req *m);
void	msg_encode_fetch_resp(struct wbuf *wb, const struct fetch_resp *m);
void	msg_encode_fetch_req_v3(struct wbuf *wb, const struct fetch_req *m);
void	msg_encode_fetch_resp_v3(struct wbuf *wb, const struct fetch_resp *m);
void	msg_encode_list_offsets_req(struct wbuf *wb, const struct list_offsets_req *m);
void	msg_encode_list_offsets_resp(struct wbuf *wb, const struct list_offsets_resp *m);
void	msg_encode_workers_resp(struct wbuf *wb, const struct workers_resp *m);

/* Decoders: 0 or -1 (malformed).  Arrays come from a. */
int	msg_decode_handshake_req(const uint8_t *p, size_t len, struct handshake_req *m);
int	msg_decode_handshake_resp(const uint8_t *p, size_t len, struct handshake_resp *m);
int	msg_decode_metadata_req(const uint8_t *p, size_t len, struct arena *a, struct metadata_req *m);
int	msg_decode_metadata_resp(const uint8_t *p, size_t len, struct arena *a, struct metadata_resp *m);
int	msg_decode_create_topic_req(const uint8_t *p, size_t len, struct create_topic_req *m);
int	msg_decode_create_topic_resp(const uint8_t *p, size_t len, struct create_topic_resp *m);
int	msg_decode_delete_topic_req(const uint8_t *p, size_t len, struct delete_topic_req *m);
int	msg_decode_delete_topic_resp(const uint8_t *p, size_t len, struct delete_topic_resp *m);
int	msg_decode_produce_req(const uint8_t *p, size_t len, struct arena *a, struct produce_req *m);
int	msg_decode_produce_resp(const uint8_t *p, size_t len, struct arena *a, struct produce_resp *m);
int	msg_decode_fetch_req(const uint8_t *p, size_t len, struct arena *a, struct fetch_req *m);
int	msg_decode_fetch_resp(const uint8_t *p, size_t len, struct arena *a, struct fetch_resp *m);
int	msg_decode_fetch_req_v3(const uint8_t *p, size_t len, struct arena *a, struct fetch_req *m);
int	msg_decode_fetch_resp_v3(const uint8_t *p, size_t len, struct arena *a, struct fetch_resp *m);
int	msg_decode_list_offsets_req(const uint8_t *p, size_t len, struct arena *a, struct list_offsets_req *m);
int	msg_decode_list_offsets_resp(const uint8_t *p, size_t len, struct arena *a, struct list_offsets_resp *m);
int	msg_decode_workers_resp(const uint8_t *p, size_t len, struct arena *a, struct workers_resp *m);

/* ==== Consumer groups (8-14); codecs in proto/msg_group.c ==== */

/* Group states as carried by LIST_GROUPS and DESCRIBE_GROUP. */
enum group_wire_state { GROUP_WIRE_EMPTY = 0, GROUP_WIRE_REBALANCING = 1,
	GROUP_WIRE_STABLE = 2, GROUP_WIRE_AWAITING_SYNC = 3 /* Kafka groups */ };

/* One (topic, partition) pair, e.g. of an assignment. */
struct group_tp { const char *topic; size_t topic_len; int32_t partition; };

/* ---- JOIN_GROUP (8) ----
 * req:  [group str][member_id str][client_id str][session_timeout_ms i32]
 *         [count i32]{[topic str]}            member_id empty: a new member
 * resp: [error i16][generation i32][member_id str][count i32]
 *         {[topic str][partition i32]}        this member's partitions */
struct join_group_req { const char *group; size_t group_len;
	const char *member_id; size_t member_id_len;
	const char *client_id; size_t client_id_len;
	int32_t session_timeout_ms; int32_t count; struct wire_str *topics; };
struct join_group_resp { int16_t error; int32_t generation;
	const char *member_id; size_t member_id_len;
	int32_t count; struct group_tp *parts; };

/* ---- HEARTBEAT (9) ----
 * req:  [group str][member_id str][generation i32]
 * resp: [error i16] */
struct heartbeat_req { const char *group; size_t group_len;
	const char *member_id; size_t member_id_len; int32_t generation; };

/* ---- LEAVE_GROUP (10) ----
 * req:  [group str][member_id str]
 * resp: [error i16] */
struct leave_group_req { const char *group; size_t group_len;
	const char *member_id; size_t member_id_len; };

/* Responses that are only [error i16] (HEARTBEAT, LEAVE_GROUP). */
struct group_error_resp { int16_t error; };

/* ---- OFFSET_COMMIT (11) ----
 * req:  [group str][member_id str][generation i32][count i32]
 *         {[topic str][partition i32][offset i64]}
 * resp: [error i16][count i32]{[error i16]} */
struct commit_part { const char *topic; size_t topic_len; int32_t partition; int64_t offset; };
struct offset_commit_req { const char *group; size_t group_len;
	const char *member_id; size_t member_id_len; int32_t generation;
	int32_t count; struct commit_part *parts; };
struct offset_commit_resp { int16_t error; int32_t count; int16_t *errors; };

/* ---- OFFSET_FETCH (12) ----
 * req:  [group str][count i32]{[topic str][partition i32]}
 *         count 0: every committed offset of the group
 * resp: [error i16][count i32]{[topic str][partition i32][error i16][offset i64]}
 *         offset -1: nothing committed */
struct offset_fetch_req { const char *group; size_t group_len;
	int32_t count; struct group_tp *parts; };
struct offset_fetch_result { const char *topic; size_t topic_len; int32_t partition;
	int16_t error; int64_t offset; };
struct offset_fetch_resp { int16_t error; int32_t count; struct offset_fetch_result *results; };

/* ---- LIST_GROUPS (13) ----
 * req:  (empty)
 * resp: [error i16][count i32]{[group str][state i8][generation i32][members i32]} */
struct group_listing { const char *group; size_t group_len; int8_t state;
	int32_t generation; int32_t members; };
struct list_groups_resp { int16_t error; int32_t count; struct group_listing *groups; };

/* ---- DESCRIBE_GROUP (14) ----
 * req:  [group str]
 * resp: [error i16][state i8][generation i32]
 *         [count i32]{[member_id str][client_id str][session_timeout_ms i32]
 *           [count i32]{[topic str][partition i32]}}
 *         [count i32]{[topic str][partition i32][committed i64][log_end i64]}
 * Protocol version 2 (the connection's, from its HANDSHAKE) adds, after
 * generation, [kind i8][assignment_epoch i32], and after each member's
 * partitions [member_epoch i32][instance_id str]
 * [count i32]{revoking [topic str][partition i32]}
 * [count i32]{target [topic str][partition i32]}
 * (msg_*_describe_group_resp_v2). */
enum group_wire_kind { GROUP_WIRE_KIND_NONE = 0, GROUP_WIRE_KIND_NATIVE = 1,
	GROUP_WIRE_KIND_CLASSIC = 2, GROUP_WIRE_KIND_CONSUMER = 3 };
struct member_desc { const char *member_id; size_t member_id_len;
	const char *client_id; size_t client_id_len; int32_t session_timeout_ms;
	int32_t count; struct group_tp *parts;
	/* version 2 */
	int32_t member_epoch; const char *instance_id; size_t instance_id_len;
	int32_t nrevoking; struct group_tp *revoking;
	int32_t ntarget; struct group_tp *target; };
struct group_offset_desc { const char *topic; size_t topic_len; int32_t partition;
	int64_t committed; int64_t log_end; };
struct describe_group_req { const char *group; size_t group_len; };
struct describe_group_resp { int16_t error; int8_t state; int32_t generation;
	int32_t nmembers; struct member_desc *members;
	int32_t noffsets; struct group_offset_desc *offsets;
	/* version 2 */
	int8_t kind; int32_t assignment_epoch; };

/* ---- CREATE_PARTITIONS (24) ----
 * req:  [topic str][count i32][timeout_ms i32]
 *         count: the new total; timeout_ms <= 0: the broker's default
 * resp: [error i16][partitions i32]
 *         the count after the grow; INVALID_PARTITIONS (with the current
 *         count) when count is not above it, RESOURCE_LIMIT past
 *         max_partitions, TIMEOUT when the files took longer (the grow
 *         still completes) */
struct create_partitions_req { const char *topic; size_t topic_len;
	int32_t count; int32_t timeout_ms; };
struct create_partitions_resp { int16_t error; int32_t partitions; };

void	msg_encode_create_partitions_req(struct wbuf *wb,
	    const struct create_partitions_req *m);
void	msg_encode_create_partitions_resp(struct wbuf *wb,
	    const struct create_partitions_resp *m);
int	msg_decode_create_partitions_req(const uint8_t *p, size_t len,
	    struct create_partitions_req *m);
int	msg_decode_create_partitions_resp(const uint8_t *p, size_t len,
	    struct create_partitions_resp *m);

/* ---- GROUP_DELETE (21) ----
 * req:  [group str]			(struct describe_group_req's codec)
 * resp: [error i16]			(struct group_error_resp's)
 *         GROUP_NOT_EMPTY while the group has members, INVALID_GROUP
 *         when there is no such group */

/* ---- DELETE_RECORDS (25) ----
 * req:  [topic str][partition i32][offset i64][timeout_ms i32]
 *         offset -1: the log end; timeout_ms 0: the broker's (30 s)
 * resp: [error i16][log_start i64]
 *         the log start once it reached offset (or was past it already);
 *         OFFSET_OUT_OF_RANGE past the log end, nothing changed */
struct delete_records_req { const char *topic; size_t topic_len;
	int32_t partition; int64_t offset; int32_t timeout_ms; };
struct delete_records_resp { int16_t error; int64_t log_start; };

void	msg_encode_delete_records_req(struct wbuf *wb, const struct delete_records_req *m);
void	msg_encode_delete_records_resp(struct wbuf *wb, const struct delete_records_resp *m);
int	msg_decode_delete_records_req(const uint8_t *p, size_t len, struct delete_records_req *m);
int	msg_decode_delete_records_resp(const uint8_t *p, size_t len, struct delete_records_resp *m);

/* ---- OFFSET_DELETE (26) ----
 * req:  [group str][topic str][count i32]{[partition i32]}
 *         count 0: every partition of topic
 * resp: [error i16][count i32]{[partition i32][error i16]}
 *         per partition: NONE (deleted, or none was committed),
 *         GROUP_SUBSCRIBED while the group's members consume topic,
 *         UNKNOWN_TOPIC_OR_PARTITION; as a whole INVALID_GROUP when
 *         there is no such group */
struct offset_delete_part { int32_t partition; };
struct offset_delete_req { const char *group; size_t group_len;
	const char *topic; size_t topic_len; int32_t count;
	struct offset_delete_part *parts; };
struct offset_delete_result { int32_t partition; int16_t error; };
struct offset_delete_resp { int16_t error; int32_t count;
	struct offset_delete_result *results; };

void	msg_encode_offset_delete_req(struct wbuf *wb, const struct offset_delete_req *m);
void	msg_encode_offset_delete_resp(struct wbuf *wb, const struct offset_delete_resp *m);
int	msg_decode_offset_delete_req(const uint8_t *p, size_t len, struct arena *a,
	    struct offset_delete_req *m);
int	msg_decode_offset_delete_resp(const uint8_t *p, size_t len, struct arena *a,
	    struct offset_delete_resp *m);

/* ---- GROUP_RESET (19) ----
 * req:  [group str][topic str][partition i32][mode i8][value i64]
 *         partition -1: every partition of topic; mode RESET_TO_*: value
 *         is the offset (clamped to the log) or the time in epoch ms
 * resp: [error i16][count i32]{[partition i32][error i16][offset i64]}
 *         refused as a whole (GROUP_NOT_EMPTY) while the group has members */
enum { RESET_TO_OFFSET = 0, RESET_TO_EARLIEST = 1, RESET_TO_LATEST = 2,
	RESET_TO_TIME = 3 };
struct group_reset_req { const char *group; size_t group_len;
	const char *topic; size_t topic_len; int32_t partition; int8_t mode;
	int64_t value; };
struct group_reset_result { int32_t partition; int16_t error; int64_t offset; };
struct group_reset_resp { int16_t error; int32_t count;
	struct group_reset_result *results; };

void	msg_encode_group_reset_req(struct wbuf *wb, const struct group_reset_req *m);
void	msg_encode_group_reset_resp(struct wbuf *wb, const struct group_reset_resp *m);
int	msg_decode_group_reset_req(const uint8_t *p, size_t len, struct group_reset_req *m);
int	msg_decode_group_reset_resp(const uint8_t *p, size_t len, struct arena *a,
	    struct group_reset_resp *m);

void	msg_encode_join_group_req(struct wbuf *wb, const struct join_group_req *m);
void	msg_encode_join_group_resp(struct wbuf *wb, const struct join_group_resp *m);
void	msg_encode_heartbeat_req(struct wbuf *wb, const struct heartbeat_req *m);
void	msg_encode_leave_group_req(struct wbuf *wb, const struct leave_group_req *m);
void	msg_encode_group_error_resp(struct wbuf *wb, const struct group_error_resp *m);
void	msg_encode_offset_commit_req(struct wbuf *wb, const struct offset_commit_req *m);
void	msg_encode_offset_commit_resp(struct wbuf *wb, const struct offset_commit_resp *m);
void	msg_encode_offset_fetch_req(struct wbuf *wb, const struct offset_fetch_req *m);
void	msg_encode_offset_fetch_resp(struct wbuf *wb, const struct offset_fetch_resp *m);
void	msg_encode_list_groups_resp(struct wbuf *wb, const struct list_groups_resp *m);
void	msg_encode_describe_group_req(struct wbuf *wb, const struct describe_group_req *m);
void	msg_encode_describe_group_resp(struct wbuf *wb, const struct describe_group_resp *m);
void	msg_encode_describe_group_resp_v2(struct wbuf *wb, const struct describe_group_resp *m);

int	msg_decode_join_group_req(const uint8_t *p, size_t len, struct arena *a, struct join_group_req *m);
int	msg_decode_join_group_resp(const uint8_t *p, size_t len, struct arena *a, struct join_group_resp *m);
int	msg_decode_heartbeat_req(const uint8_t *p, size_t len, struct heartbeat_req *m);
int	msg_decode_leave_group_req(const uint8_t *p, size_t len, struct leave_group_req *m);
int	msg_decode_group_error_resp(const uint8_t *p, size_t len, struct group_error_resp *m);
int	msg_decode_offset_commit_req(const uint8_t *p, size_t len, struct arena *a, struct offset_commit_req *m);
int	msg_decode_offset_commit_resp(const uint8_t *p, size_t len, struct arena *a, struct offset_commit_resp *m);
int	msg_decode_offset_fetch_req(const uint8_t *p, size_t len, struct arena *a, struct offset_fetch_req *m);
int	msg_decode_offset_fetch_resp(const uint8_t *p, size_t len, struct arena *a, struct offset_fetch_resp *m);
int	msg_decode_list_groups_resp(const uint8_t *p, size_t len, struct arena *a, struct list_groups_resp *m);
int	msg_decode_describe_group_req(const uint8_t *p, size_t len, struct describe_group_req *m);
int	msg_decode_describe_group_resp(const uint8_t *p, size_t len, struct arena *a, struct describe_group_resp *m);
int	msg_decode_describe_group_resp_v2(const uint8_t *p, size_t len, struct arena *a, struct describe_group_resp *m);

/* ==== STATS (18); codec in proto/msg_stats.c ====
 * req:  (empty)
 * resp: [error i16]
 *   [count i32]{[slot i32][role i8][pid i32][restarts i32][connections i64]
 *     [accepted i64][requests i64][bytes_in i64][bytes_out i64]
 *     [rejected_conns i64][protocol_errors i64]}          children; role 2 metrics
 *   [count i32]{[topic str][partition i32][log_start i64][log_end i64]
 *     [visible i64][durable i64][msgs_in i64][bytes_in i64][msgs_out i64]
 *     [bytes_out i64][ring_used i64][ring_size i64][segments i32]
 *     [log_bytes i64]}                                     partitions
 *   [fsync_count i64][fsync_errors i64][fsync_sum_us i64]
 *   [count i32]{[le_us i64][count i64]}   latency buckets, not cumulative; le_us -1 = +Inf
 *   [count i32]{[error i16][count i64]}   answers per error code (non-zero only)
 *   [count i32]{[group str][topic str][partition i32][committed i64][lag i64]} */
struct stats_child { int32_t slot; int8_t role; int32_t pid; int32_t restarts;
	int64_t connections; int64_t accepted; int64_t requests; int64_t bytes_in;
	int64_t bytes_out; int64_t rejected_conns; int64_t protocol_errors;
	/* The metrics' only, not on the wire: */
	int64_t auth_failures; int64_t auth_throttled; int64_t auth_derivations;
	int64_t msgset_conversions; int64_t msgset_bytes; };
struct stats_partition { const char *topic; size_t topic_len; int32_t partition;
	int64_t log_start; int64_t log_end; int64_t visible; int64_t durable;
	int64_t msgs_in; int64_t bytes_in; int64_t msgs_out; int64_t bytes_out;
	int64_t ring_used; int64_t ring_size; int32_t segments; int64_t log_bytes;
	/* The metrics' only, not on the wire (the cleaner's, issue 28): */
	int64_t clean_ratio_ppm; int64_t clean_last_ms; int64_t clean_saved; };
struct stats_bucket { int64_t le_us; int64_t count; };
struct stats_error { int16_t error; int64_t count; };
struct stats_lag { const char *group; size_t group_len; const char *topic;
	size_t topic_len; int32_t partition; int64_t committed; int64_t lag; };
struct stats_resp { int16_t error;
	int32_t nchildren; struct stats_child *children;
	int32_t nparts; struct stats_partition *parts;
	int64_t fsync_count; int64_t fsync_errors; int64_t fsync_sum_us;
	int32_t nbuckets; struct stats_bucket *buckets;
	int32_t nerrors; struct stats_error *errors;
	int32_t nlags; struct stats_lag *lags;
	/* The metrics' only, not on the wire (the cleaner's, issue 28): */
	int64_t cleaner_runs; int64_t cleaner_bytes_read;
	int64_t cleaner_bytes_written; int64_t cleaner_records_removed; };

void	msg_encode_stats_resp(struct wbuf *wb, const struct stats_resp *m);
/* Also accepts a payload that is only a non-zero [error i16]. */
int	msg_decode_stats_resp(const uint8_t *p, size_t len, struct arena *a, struct stats_resp *m);

/* ==== CLEANER (29); codec in proto/msg_cleaner.c ====
 * req:  (empty)
 * resp: [error i16][runs i64][bytes_read i64][bytes_written i64]
 *   [records_removed i64]
 *   [count i32]{[topic str][partition i32][dirty_ppm i32][last_clean_ms i64]
 *     [saved i64][log_bytes i64]}    every partition of a compacted topic */
struct cleaner_part { const char *topic; size_t topic_len; int32_t partition;
	int32_t dirty_ppm; int64_t last_clean_ms; int64_t saved;
	int64_t log_bytes; };
struct cleaner_resp { int16_t error; int64_t runs; int64_t bytes_read;
	int64_t bytes_written; int64_t records_removed;
	int32_t count; struct cleaner_part *parts; };

void	msg_encode_cleaner_resp(struct wbuf *wb, const struct cleaner_resp *m);
int	msg_decode_cleaner_resp(const uint8_t *p, size_t len, struct arena *a,
	    struct cleaner_resp *m);

/* ==== TRANSACTIONS (29); codec in proto/msg_txn.c ====
 * req:  (empty)
 * resp: [error i16]
 *   [count i32]{[id str][producer_id i64][epoch i16][state i8]
 *     [timeout_ms i32][start_ms i64][update_ms i64][partitions i32]}
 *   every transactional id the coordinator keeps; state is Kafka's
 *   (0 Empty .. 7 PrepareEpochFence, shm/txn.h), start_ms -1 when no
 *   transaction is open */
struct txn_listing { const char *id; size_t id_len; int64_t producer_id;
	int16_t epoch; int8_t state; int32_t timeout_ms; int64_t start_ms;
	int64_t update_ms; int32_t partitions; };
struct transactions_resp { int16_t error; int32_t count;
	struct txn_listing *txns; };

void	msg_encode_transactions_resp(struct wbuf *wb,
	    const struct transactions_resp *m);
int	msg_decode_transactions_resp(const uint8_t *p, size_t len,
	    struct arena *a, struct transactions_resp *m);

/* ==== INIT_PRODUCER (15); codec in proto/msg_producer.c ====
 * req:  [producer_id i64][producer_epoch i16]    -1, -1: a new producer id
 * resp: [error i16][producer_id i64][producer_epoch i16]
 *       (a refusal may be [error i16] alone) */
struct init_producer_req { int64_t producer_id; int16_t producer_epoch; };
struct init_producer_resp { int16_t error; int64_t producer_id; int16_t producer_epoch; };

void	msg_encode_init_producer_req(struct wbuf *wb, const struct init_producer_req *m);
void	msg_encode_init_producer_resp(struct wbuf *wb, const struct init_producer_resp *m);
int	msg_decode_init_producer_req(const uint8_t *p, size_t len, struct init_producer_req *m);
int	msg_decode_init_producer_resp(const uint8_t *p, size_t len, struct init_producer_resp *m);

#endif
