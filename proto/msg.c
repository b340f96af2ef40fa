/*
 * Encoders and decoders for the native protocol's payloads, laid out in
 * proto/msg.h (and, for users, flume-protocol(7)).  Each message is one
 * table of rows (struct msg_layout, proto/msg_codec.h) that its encoder
 * and its decoder both read through proto/msg_layout.c, so the two
 * directions cannot drift apart.
 *
 * Decoders are structural only: they check that the payload is exactly
 * one well-formed message (every length and count inside the payload, no
 * trailing bytes) and leave semantic checks (topic names, partition
 * ranges, batch CRCs) to the handlers, which can answer those per entry.
 * Every count goes through rbuf_count() with the smallest size one entry
 * can take on the wire, so a count can never ask for more entries than
 * the payload could hold; arrays come from the caller's arena.
 *
 * Response decoders also accept a payload that is only a non-zero
 * [error i16] (see msg_error_only()), so a client can decode whatever the
 * broker answered and look at m->error.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

static const char *const error_names[ERR_MAX] = {
	[ERR_NONE] = "no error",
	[ERR_UNKNOWN] = "unknown broker error",
	[ERR_INVALID_REQUEST] = "invalid request",
	[ERR_UNSUPPORTED_API] = "unsupported api",
	[ERR_UNSUPPORTED_VERSION] = "unsupported protocol version",
	[ERR_CORRUPT_MESSAGE] = "corrupt record batch",
	[ERR_MESSAGE_TOO_LARGE] = "message too large",
	[ERR_INVALID_TOPIC] = "invalid or reserved topic name",
	[ERR_UNKNOWN_TOPIC_OR_PARTITION] = "unknown topic or partition",
	[ERR_TOPIC_EXISTS] = "topic already exists",
	[ERR_INVALID_PARTITIONS] = "invalid partition count",
	[ERR_OFFSET_OUT_OF_RANGE] = "offset out of range",
	[ERR_STORAGE] = "storage error (disk full or I/O error)",
	[ERR_TIMEOUT] = "request timed out",
	[ERR_RESOURCE_LIMIT] = "resource limit reached",
	[ERR_UNSUPPORTED_COMPRESSION] = "unsupported compression",
	[ERR_DUPLICATE_SEQUENCE] = "duplicate sequence number",
	[ERR_OUT_OF_ORDER_SEQUENCE] = "out of order sequence number",
	[ERR_INVALID_GROUP] = "invalid group",
	[ERR_UNKNOWN_MEMBER] = "unknown group member",
	[ERR_ILLEGAL_GENERATION] = "illegal group generation",
	[ERR_REBALANCE_IN_PROGRESS] = "group rebalance in progress",
	[ERR_INVALID_SESSION_TIMEOUT] = "invalid session timeout",
	[ERR_AUTH_FAILED] = "authentication failed",
	[ERR_ACCESS_DENIED] = "access denied",
	[ERR_SHUTTING_DOWN] = "broker shutting down",
	[ERR_AUTH_REQUIRED] = "authentication required",
	[ERR_PRODUCER_FENCED] = "unknown producer id or stale producer epoch",
	[ERR_GROUP_NOT_EMPTY] = "the group has active members",
	[ERR_GROUP_KIND] = "the group has members of the other protocol (native or kafka)",
	[ERR_INVALID_CONFIG] = "invalid topic setting",
	[ERR_GROUP_SUBSCRIBED] = "the group's members consume the topic",
	[ERR_INVALID_RECORD] = "compacted topic requires keyed records",
	[ERR_PRODUCERS_FULL] = "every producer slot of the partition holds an open transaction",
	[ERR_TXN_CONCURRENT] = "a transaction is being completed",
	[ERR_TXN_STATE] = "invalid transaction state",
	[ERR_TXN_FENCED] = "producer fenced by a newer epoch",
	[ERR_TXN_TIMEOUT] = "invalid transaction timeout",
	[ERR_UNSTABLE_OFFSET] = "offset pending in a transaction",
};

static const char *const api_names[API_MAX] = {
	[API_HANDSHAKE] = "HANDSHAKE",
	[API_METADATA] = "METADATA",
	[API_PRODUCE] = "PRODUCE",
	[API_FETCH] = "FETCH",
	[API_LIST_OFFSETS] = "LIST_OFFSETS",
	[API_CREATE_TOPIC] = "CREATE_TOPIC",
	[API_WORKERS] = "WORKERS",
	[API_JOIN_GROUP] = "JOIN_GROUP",
	[API_HEARTBEAT] = "HEARTBEAT",
	[API_LEAVE_GROUP] = "LEAVE_GROUP",
	[API_OFFSET_COMMIT] = "OFFSET_COMMIT",
	[API_OFFSET_FETCH] = "OFFSET_FETCH",
	[API_LIST_GROUPS] = "LIST_GROUPS",
	[API_DESCRIBE_GROUP] = "DESCRIBE_GROUP",
	[API_INIT_PRODUCER] = "INIT_PRODUCER",
	[API_AUTH_BEGIN] = "AUTH_BEGIN",
	[API_AUTH_PROVE] = "AUTH_PROVE",
	[API_STATS] = "STATS",
	[API_GROUP_RESET] = "GROUP_RESET",
	[API_DELETE_TOPIC] = "DELETE_TOPIC",
	[API_GROUP_DELETE] = "GROUP_DELETE",
	[API_CONFIG_DESCRIBE] = "CONFIG_DESCRIBE",
	[API_CONFIG_ALTER] = "CONFIG_ALTER",
	[API_CREATE_PARTITIONS] = "CREATE_PARTITIONS",
	[API_DELETE_RECORDS] = "DELETE_RECORDS",
	[API_OFFSET_DELETE] = "OFFSET_DELETE",
	[API_CONNECTIONS] = "CONNECTIONS",
	[API_CLEANER] = "CLEANER",
	[API_TRANSACTIONS] = "TRANSACTIONS",
};

const char *
flume_strerror(int err)
{
	if (err < 0 || err >= ERR_MAX || error_names[err] == NULL)
		return "unknown error";
	return error_names[err];
}

const char *
api_name(int api_key)
{
	if (api_key < 0 || api_key >= API_MAX || api_names[api_key] == NULL)
		return "?";
	return api_names[api_key];
}

/*
 * Room for n elements of size sz from the arena; NULL for n == 0 (nothing
 * to point at) and NULL with *fail set when the arena refuses.
 */
void *
msg_array(struct arena *a, int32_t n, size_t sz, int *fail)
{
	void *p;

	if (n <= 0)
		return NULL;
	if ((size_t)n > SIZE_MAX / sz) {
		*fail = 1;
		return NULL;
	}
	if ((p = arena_alloc(a, (size_t)n * sz)) == NULL)
		*fail = 1;
	return p;
}

/* The end of every decoder: all read, nothing short, nothing left over. */
int
msg_done(const struct rbuf *rb)
{
	return rb->err || rbuf_left(rb) != 0 ? -1 : 0;
}

/*
 * A response whose top-level error is set may be sent as that error alone
 * (the broker has nothing else to say about a request it could not
 * decode).  Returns 1, with *error set, when the payload is exactly that;
 * the caller's message is then already zeroed apart from the error.
 */
int
msg_error_only(const uint8_t *p, size_t len, int16_t *error)
{
	struct rbuf rb;
	int16_t e;

	if (len != 2)
		return 0;
	rbuf_init(&rb, p, len);
	if ((e = rbuf_i16(&rb)) == 0)
		return 0;
	*error = e;
	return 1;
}

/*
 * Each message below is one layout table, read by both its encoder and
 * its decoder (proto/msg_layout.c); the table's rows are the wire layout
 * of proto/msg.h, field for field.
 */

/* ---- HANDSHAKE ---- */

static const struct msg_field handshake_req_rows[] = {
	MSG_I16(struct handshake_req, version),
	MSG_STR(struct handshake_req, client_id, client_id_len),
};
static const struct msg_layout handshake_req = MSG_REQUEST(handshake_req_rows);

static const struct msg_field handshake_resp_rows[] = {
	MSG_I16(struct handshake_resp, error),
	MSG_I16(struct handshake_resp, version),
	MSG_I32(struct handshake_resp, max_frame),
	MSG_STR(struct handshake_resp, broker, broker_len),
};
static const struct msg_layout handshake_resp =
    MSG_RESPONSE(handshake_resp_rows);

MSG_ENCODER(msg_encode_handshake_req, handshake_req)
MSG_ENCODER(msg_encode_handshake_resp, handshake_resp)
MSG_DECODER(msg_decode_handshake_req, handshake_req)
MSG_DECODER(msg_decode_handshake_resp, handshake_resp)

/* ---- METADATA ---- */

/* A list of names: METADATA's topics, and JOIN_GROUP's (msg_group.c). */
static const struct msg_field wire_str_rows[] = {
	MSG_STR(struct wire_str, s, len),
};
const struct msg_layout msg_wire_str =
    MSG_ELEMENT(wire_str_rows, MIN_STR);

static const struct msg_field metadata_req_rows[] = {
	MSG_I8(struct metadata_req, auto_create),
	MSG_ARRAY(struct metadata_req, count, topics, msg_wire_str),
};
static const struct msg_layout metadata_req = MSG_REQUEST(metadata_req_rows);

static const struct msg_field partition_info_rows[] = {
	MSG_I32(struct partition_info, partition),
	MSG_I64(struct partition_info, log_start),
	MSG_I64(struct partition_info, log_end),
	MSG_I64(struct partition_info, size_bytes),
};
static const struct msg_layout partition_info =
    MSG_ELEMENT(partition_info_rows, MIN_PARTITION_INFO);

static const struct msg_field topic_info_rows[] = {
	MSG_I16(struct topic_info, error),
	MSG_STR(struct topic_info, name, name_len),
	MSG_ARRAY(struct topic_info, count, partitions, partition_info),
};
static const struct msg_layout topic_info =
    MSG_ELEMENT(topic_info_rows, MIN_METADATA_TOPIC);

static const struct msg_field metadata_resp_rows[] = {
	MSG_I16(struct metadata_resp, error),
	MSG_ARRAY(struct metadata_resp, count, topics, topic_info),
};
static const struct msg_layout metadata_resp = MSG_RESPONSE(metadata_resp_rows);

MSG_ENCODER(msg_encode_metadata_req, metadata_req)
MSG_ENCODER(msg_encode_metadata_resp, metadata_resp)
MSG_ENCODER(msg_encode_topic_info, topic_info)
MSG_DECODER_ARENA(msg_decode_metadata_req, metadata_req)
MSG_DECODER_ARENA(msg_decode_metadata_resp, metadata_resp)

/* ---- CREATE_TOPIC and DELETE_TOPIC ---- */

static const struct msg_field create_topic_req_rows[] = {
	MSG_STR(struct create_topic_req, topic, topic_len),
	MSG_I32(struct create_topic_req, partitions),
};
static const struct msg_layout create_topic_req =
    MSG_REQUEST(create_topic_req_rows);

static const struct msg_field create_topic_resp_rows[] = {
	MSG_I16(struct create_topic_resp, error),
	MSG_I32(struct create_topic_resp, partitions),
};
static const struct msg_layout create_topic_resp =
    MSG_RESPONSE(create_topic_resp_rows);

static const struct msg_field delete_topic_req_rows[] = {
	MSG_STR(struct delete_topic_req, topic, topic_len),
	MSG_I32(struct delete_topic_req, timeout_ms),
};
static const struct msg_layout delete_topic_req =
    MSG_REQUEST(delete_topic_req_rows);

static const struct msg_field delete_topic_resp_rows[] = {
	MSG_I16(struct delete_topic_resp, error),
	MSG_I32(struct delete_topic_resp, partitions),
};
static const struct msg_layout delete_topic_resp =
    MSG_RESPONSE(delete_topic_resp_rows);

MSG_ENCODER(msg_encode_create_topic_req, create_topic_req)
MSG_ENCODER(msg_encode_create_topic_resp, create_topic_resp)
MSG_DECODER(msg_decode_create_topic_req, create_topic_req)
MSG_DECODER(msg_decode_create_topic_resp, create_topic_resp)
MSG_ENCODER(msg_encode_delete_topic_req, delete_topic_req)
MSG_ENCODER(msg_encode_delete_topic_resp, delete_topic_resp)
MSG_DECODER(msg_decode_delete_topic_req, delete_topic_req)
MSG_DECODER(msg_decode_delete_topic_resp, delete_topic_resp)

/* ---- PRODUCE ---- */

/*
 * Records may be empty here (the handler answers that partition with
 * ERR_CORRUPT_MESSAGE) but never null or negative: that is malformed.
 */
static const struct msg_field produce_part_rows[] = {
	MSG_STR(struct produce_part, topic, topic_len),
	MSG_I32(struct produce_part, partition),
	MSG_RECORDS(struct produce_part, records, records_len),
};
static const struct msg_layout produce_part =
    MSG_ELEMENT(produce_part_rows, MIN_PRODUCE_PART);

static const struct msg_field produce_req_rows[] = {
	MSG_I8(struct produce_req, acks),
	MSG_I32(struct produce_req, timeout_ms),
	MSG_ARRAY(struct produce_req, count, parts, produce_part),
};
static const struct msg_layout produce_req = MSG_REQUEST(produce_req_rows);

static const struct msg_field produce_result_rows[] = {
	MSG_I16(struct produce_result, error),
	MSG_I64(struct produce_result, base_offset),
	MSG_I64(struct produce_result, log_start),
};
static const struct msg_layout produce_result =
    MSG_ELEMENT(produce_result_rows, MIN_PRODUCE_RESULT);

static const struct msg_field produce_resp_rows[] = {
	MSG_I16(struct produce_resp, error),
	MSG_ARRAY(struct produce_resp, count, results, produce_result),
};
static const struct msg_layout produce_resp = MSG_RESPONSE(produce_resp_rows);

/*
 * The request is written by hand, not from produce_req: its records may
 * be referenced or come in pieces (libflume's zero-copy produce), which
 * a table row has no way to say.  The bytes are produce_req's all the
 * same, as test_msg pins.
 */
static void
produce_req_put(struct wbuf *wb, const struct produce_req *m, int by_ref,
    const struct wbuf_pieces *pieces)
{
	const struct produce_part *pp;
	int32_t i;

	wbuf_i8(wb, m->acks);
	wbuf_i32(wb, m->timeout_ms);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		pp = &m->parts[i];
		wbuf_str(wb, pp->topic, pp->topic_len);
		wbuf_i32(wb, pp->partition);
		if (pieces != NULL && pieces[i].nspans > 0)
			wbuf_bytes_pieces(wb, &pieces[i], by_ref);
		else if (by_ref)
			wbuf_bytes_ref(wb, pp->records, pp->records_len);
		else
			wbuf_bytes(wb, pp->records, pp->records_len);
	}
}

void
msg_encode_produce_req(struct wbuf *wb, const struct produce_req *m)
{
	produce_req_put(wb, m, 0, NULL);
}

void
msg_encode_produce_req_ref(struct wbuf *wb, const struct produce_req *m)
{
	produce_req_put(wb, m, 1, NULL);
}

void
msg_encode_produce_req_pieces(struct wbuf *wb, const struct produce_req *m,
    const struct wbuf_pieces *pieces, int by_ref)
{
	produce_req_put(wb, m, by_ref, pieces);
}

MSG_ENCODER(msg_encode_produce_resp, produce_resp)
MSG_DECODER_ARENA(msg_decode_produce_req, produce_req)
MSG_DECODER_ARENA(msg_decode_produce_resp, produce_resp)

/* ---- FETCH ---- */

static const struct msg_field fetch_part_rows[] = {
	MSG_STR(struct fetch_part, topic, topic_len),
	MSG_I32(struct fetch_part, partition),
	MSG_I64(struct fetch_part, offset),
	MSG_I32(struct fetch_part, max_bytes),
};
static const struct msg_layout fetch_part =
    MSG_ELEMENT(fetch_part_rows, MIN_FETCH_PART);

static const struct msg_field fetch_req_rows[] = {
	MSG_I32(struct fetch_req, max_wait_ms),
	MSG_I32(struct fetch_req, min_bytes),
	MSG_I32(struct fetch_req, max_bytes),
	MSG_ARRAY(struct fetch_req, count, parts, fetch_part),
};
static const struct msg_layout fetch_req = MSG_REQUEST(fetch_req_rows);

/* Records may be empty (nothing visible yet) but not null or negative. */
static const struct msg_field fetch_result_rows[] = {
	MSG_I16(struct fetch_result, error),
	MSG_I64(struct fetch_result, log_start),
	MSG_I64(struct fetch_result, high_watermark),
	MSG_RECORDS(struct fetch_result, records, records_len),
};
static const struct msg_layout fetch_result =
    MSG_ELEMENT(fetch_result_rows, MIN_FETCH_RESULT);

static const struct msg_field fetch_resp_rows[] = {
	MSG_I16(struct fetch_resp, error),
	MSG_ARRAY(struct fetch_resp, count, results, fetch_result),
};
static const struct msg_layout fetch_resp = MSG_RESPONSE(fetch_resp_rows);

MSG_ENCODER(msg_encode_fetch_req, fetch_req)
MSG_ENCODER(msg_encode_fetch_resp, fetch_resp)
MSG_DECODER_ARENA(msg_decode_fetch_req, fetch_req)
MSG_DECODER_ARENA(msg_decode_fetch_resp, fetch_resp)

/* Protocol version 3: the isolation level, the LSO, aborted transactions. */
static const struct msg_field fetch_req_v3_rows[] = {
	MSG_I32(struct fetch_req, max_wait_ms),
	MSG_I32(struct fetch_req, min_bytes),
	MSG_I32(struct fetch_req, max_bytes),
	MSG_ARRAY(struct fetch_req, count, parts, fetch_part),
	MSG_I8(struct fetch_req, isolation),
};
static const struct msg_layout fetch_req_v3 = MSG_REQUEST(fetch_req_v3_rows);

static const struct msg_field fetch_aborted_rows[] = {
	MSG_I64(struct fetch_aborted, producer_id),
	MSG_I64(struct fetch_aborted, first_offset),
};
static const struct msg_layout fetch_aborted =
    MSG_ELEMENT(fetch_aborted_rows, MIN_FETCH_ABORTED);

static const struct msg_field fetch_result_v3_rows[] = {
	MSG_I16(struct fetch_result, error),
	MSG_I64(struct fetch_result, log_start),
	MSG_I64(struct fetch_result, high_watermark),
	MSG_I64(struct fetch_result, last_stable),
	MSG_ARRAY(struct fetch_result, naborted, aborted, fetch_aborted),
	MSG_RECORDS(struct fetch_result, records, records_len),
};
static const struct msg_layout fetch_result_v3 =
    MSG_ELEMENT(fetch_result_v3_rows, MIN_FETCH_RESULT_V3);

static const struct msg_field fetch_resp_v3_rows[] = {
	MSG_I16(struct fetch_resp, error),
	MSG_ARRAY(struct fetch_resp, count, results, fetch_result_v3),
};
static const struct msg_layout fetch_resp_v3 = MSG_RESPONSE(fetch_resp_v3_rows);

/* Version 3's layouts over the same structs (so not through MSG_ENCODER). */
void
msg_encode_fetch_req_v3(struct wbuf *wb, const struct fetch_req *m)
{
	msg_layout_put(wb, m, &fetch_req_v3);
}

void
msg_encode_fetch_resp_v3(struct wbuf *wb, const struct fetch_resp *m)
{
	msg_layout_put(wb, m, &fetch_resp_v3);
}

int
msg_decode_fetch_req_v3(const uint8_t *p, size_t len, struct arena *a,
    struct fetch_req *m)
{
	return msg_layout_decode(p, len, a, m, sizeof(*m), &fetch_req_v3);
}

int
msg_decode_fetch_resp_v3(const uint8_t *p, size_t len, struct arena *a,
    struct fetch_resp *m)
{
	return msg_layout_decode(p, len, a, m, sizeof(*m), &fetch_resp_v3);
}

/* ---- LIST_OFFSETS ---- */

static const struct msg_field list_offsets_part_rows[] = {
	MSG_STR(struct list_offsets_part, topic, topic_len),
	MSG_I32(struct list_offsets_part, partition),
	MSG_I64(struct list_offsets_part, which),
};
static const struct msg_layout list_offsets_part =
    MSG_ELEMENT(list_offsets_part_rows, MIN_LIST_OFFSETS_PART);

static const struct msg_field list_offsets_req_rows[] = {
	MSG_ARRAY(struct list_offsets_req, count, parts, list_offsets_part),
};
static const struct msg_layout list_offsets_req =
    MSG_REQUEST(list_offsets_req_rows);

/* timestamp is not on the native wire (see struct list_offsets_result). */
static const struct msg_field list_offsets_result_rows[] = {
	MSG_I16(struct list_offsets_result, error),
	MSG_I64(struct list_offsets_result, offset),
};
static const struct msg_layout list_offsets_result =
    MSG_ELEMENT(list_offsets_result_rows, MIN_LIST_OFFSETS_RESULT);

static const struct msg_field list_offsets_resp_rows[] = {
	MSG_I16(struct list_offsets_resp, error),
	MSG_ARRAY(struct list_offsets_resp, count, results,
	    list_offsets_result),
};
static const struct msg_layout list_offsets_resp =
    MSG_RESPONSE(list_offsets_resp_rows);

MSG_ENCODER(msg_encode_list_offsets_req, list_offsets_req)
MSG_ENCODER(msg_encode_list_offsets_resp, list_offsets_resp)
MSG_DECODER_ARENA(msg_decode_list_offsets_req, list_offsets_req)

/* The native wire has no timestamp: a decoded one is always "none", -1. */
int
msg_decode_list_offsets_resp(const uint8_t *p, size_t len, struct arena *a,
    struct list_offsets_resp *m)
{
	int32_t i;

	if (msg_layout_decode(p, len, a, m, sizeof(*m),
	    &list_offsets_resp) == -1)
		return -1;
	for (i = 0; i < m->count; i++)
		m->results[i].timestamp = -1;
	return 0;
}

/* ---- WORKERS ---- */

static const struct msg_field child_info_rows[] = {
	MSG_I32(struct child_info, slot),
	MSG_I8(struct child_info, role),
	MSG_I32(struct child_info, pid),
	MSG_I64(struct child_info, uptime_ms),
	MSG_I32(struct child_info, restarts),
};
static const struct msg_layout child_info =
    MSG_ELEMENT(child_info_rows, MIN_CHILD_INFO);

static const struct msg_field workers_resp_rows[] = {
	MSG_I16(struct workers_resp, error),
	MSG_ARRAY(struct workers_resp, count, children, child_info),
};
static const struct msg_layout workers_resp = MSG_RESPONSE(workers_resp_rows);

MSG_ENCODER(msg_encode_workers_resp, workers_resp)
MSG_DECODER_ARENA(msg_decode_workers_resp, workers_resp)
