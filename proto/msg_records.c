/*
 * The native DELETE_RECORDS (25) and OFFSET_DELETE (26) messages
 * (proto/msg.h), as layouts (proto/msg_codec.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

#define MIN_OFFSET_DELETE_PART		4
#define MIN_OFFSET_DELETE_RESULT	(4 + 2)

/* ---- DELETE_RECORDS ---- */

static const struct msg_field delete_records_req_rows[] = {
	MSG_STR(struct delete_records_req, topic, topic_len),
	MSG_I32(struct delete_records_req, partition),
	MSG_I64(struct delete_records_req, offset),
	MSG_I32(struct delete_records_req, timeout_ms),
};
static const struct msg_layout delete_records_req =
    MSG_REQUEST(delete_records_req_rows);

static const struct msg_field delete_records_resp_rows[] = {
	MSG_I16(struct delete_records_resp, error),
	MSG_I64(struct delete_records_resp, log_start),
};
static const struct msg_layout delete_records_resp =
    MSG_RESPONSE(delete_records_resp_rows);

MSG_ENCODER(msg_encode_delete_records_req, delete_records_req)
MSG_ENCODER(msg_encode_delete_records_resp, delete_records_resp)
MSG_DECODER(msg_decode_delete_records_req, delete_records_req)
MSG_DECODER(msg_decode_delete_records_resp, delete_records_resp)

/* ---- OFFSET_DELETE ---- */

static const struct msg_field offset_delete_part_rows[] = {
	MSG_I32(struct offset_delete_part, partition),
};
static const struct msg_layout offset_delete_part =
    MSG_ELEMENT(offset_delete_part_rows, MIN_OFFSET_DELETE_PART);

static const struct msg_field offset_delete_req_rows[] = {
	MSG_STR(struct offset_delete_req, group, group_len),
	MSG_STR(struct offset_delete_req, topic, topic_len),
	MSG_ARRAY(struct offset_delete_req, count, parts, offset_delete_part),
};
static const struct msg_layout offset_delete_req =
    MSG_REQUEST(offset_delete_req_rows);

static const struct msg_field offset_delete_result_rows[] = {
	MSG_I32(struct offset_delete_result, partition),
	MSG_I16(struct offset_delete_result, error),
};
static const struct msg_layout offset_delete_result =
    MSG_ELEMENT(offset_delete_result_rows, MIN_OFFSET_DELETE_RESULT);

static const struct msg_field offset_delete_resp_rows[] = {
	MSG_I16(struct offset_delete_resp, error),
	MSG_ARRAY(struct offset_delete_resp, count, results,
	    offset_delete_result),
};
static const struct msg_layout offset_delete_resp =
    MSG_RESPONSE(offset_delete_resp_rows);

MSG_ENCODER(msg_encode_offset_delete_req, offset_delete_req)
MSG_ENCODER(msg_encode_offset_delete_resp, offset_delete_resp)
MSG_DECODER_ARENA(msg_decode_offset_delete_req, offset_delete_req)
MSG_DECODER_ARENA(msg_decode_offset_delete_resp, offset_delete_resp)
