/*
 * Encoders and decoders of the consumer-group operations (JOIN_GROUP to
 * DESCRIBE_GROUP, and GROUP_RESET), laid out in proto/msg.h and flume-protocol(7).
 *
 * Same rules as proto/msg.c, and the same machinery: each message is a
 * table of rows (struct msg_layout) that proto/msg_layout.c encodes and
 * decodes.  Decoders are structural only (the handlers check names,
 * member ids and generations), every count goes through rbuf_count()
 * with the smallest wire size of one entry, arrays come from the caller's
 * arena, and a payload must be consumed exactly.  Response decoders
 * accept a lone non-zero [error i16], which is how the broker answers a
 * request it could not serve at all.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

/* [topic str][partition i32]: an assignment, or a partition asked for. */
static const struct msg_field group_tp_rows[] = {
	MSG_STR(struct group_tp, topic, topic_len),
	MSG_I32(struct group_tp, partition),
};
static const struct msg_layout group_tp = MSG_ELEMENT(group_tp_rows, MIN_TP);

/* ---- JOIN_GROUP ---- */

static const struct msg_field join_group_req_rows[] = {
	MSG_STR(struct join_group_req, group, group_len),
	MSG_STR(struct join_group_req, member_id, member_id_len),
	MSG_STR(struct join_group_req, client_id, client_id_len),
	MSG_I32(struct join_group_req, session_timeout_ms),
	MSG_ARRAY(struct join_group_req, count, topics, msg_wire_str),
};
static const struct msg_layout join_group_req =
    MSG_REQUEST(join_group_req_rows);

static const struct msg_field join_group_resp_rows[] = {
	MSG_I16(struct join_group_resp, error),
	MSG_I32(struct join_group_resp, generation),
	MSG_STR(struct join_group_resp, member_id, member_id_len),
	MSG_ARRAY(struct join_group_resp, count, parts, group_tp),
};
static const struct msg_layout join_group_resp =
    MSG_RESPONSE(join_group_resp_rows);

MSG_ENCODER(msg_encode_join_group_req, join_group_req)
MSG_ENCODER(msg_encode_join_group_resp, join_group_resp)
MSG_DECODER_ARENA(msg_decode_join_group_req, join_group_req)
MSG_DECODER_ARENA(msg_decode_join_group_resp, join_group_resp)

/* ---- HEARTBEAT, LEAVE_GROUP and their [error i16] answers ---- */

static const struct msg_field heartbeat_req_rows[] = {
	MSG_STR(struct heartbeat_req, group, group_len),
	MSG_STR(struct heartbeat_req, member_id, member_id_len),
	MSG_I32(struct heartbeat_req, generation),
};
static const struct msg_layout heartbeat_req = MSG_REQUEST(heartbeat_req_rows);

static const struct msg_field leave_group_req_rows[] = {
	MSG_STR(struct leave_group_req, group, group_len),
	MSG_STR(struct leave_group_req, member_id, member_id_len),
};
static const struct msg_layout leave_group_req =
    MSG_REQUEST(leave_group_req_rows);

/*
 * Exactly [error i16], zero or not (as a response layout a lone non-zero
 * error is the whole answer, which here is the same thing).
 */
static const struct msg_field group_error_resp_rows[] = {
	MSG_I16(struct group_error_resp, error),
};
static const struct msg_layout group_error_resp =
    MSG_RESPONSE(group_error_resp_rows);

MSG_ENCODER(msg_encode_heartbeat_req, heartbeat_req)
MSG_DECODER(msg_decode_heartbeat_req, heartbeat_req)
MSG_ENCODER(msg_encode_leave_group_req, leave_group_req)
MSG_DECODER(msg_decode_leave_group_req, leave_group_req)
MSG_ENCODER(msg_encode_group_error_resp, group_error_resp)
MSG_DECODER(msg_decode_group_error_resp, group_error_resp)

/* ---- OFFSET_COMMIT ---- */

static const struct msg_field commit_part_rows[] = {
	MSG_STR(struct commit_part, topic, topic_len),
	MSG_I32(struct commit_part, partition),
	MSG_I64(struct commit_part, offset),
};
static const struct msg_layout commit_part =
    MSG_ELEMENT(commit_part_rows, MIN_COMMIT_PART);

static const struct msg_field offset_commit_req_rows[] = {
	MSG_STR(struct offset_commit_req, group, group_len),
	MSG_STR(struct offset_commit_req, member_id, member_id_len),
	MSG_I32(struct offset_commit_req, generation),
	MSG_ARRAY(struct offset_commit_req, count, parts, commit_part),
};
static const struct msg_layout offset_commit_req =
    MSG_REQUEST(offset_commit_req_rows);

/* An element that is a bare int16_t: the row's value is at offset 0. */
static const struct msg_field error_code_rows[] = {
	{ MSG_T_I16, 0, 0, 0, NULL },
};
static const struct msg_layout error_code =
    MSG_ELEMENT(error_code_rows, MIN_ERROR);

static const struct msg_field offset_commit_resp_rows[] = {
	MSG_I16(struct offset_commit_resp, error),
	MSG_ARRAY(struct offset_commit_resp, count, errors, error_code),
};
static const struct msg_layout offset_commit_resp =
    MSG_RESPONSE(offset_commit_resp_rows);

MSG_ENCODER(msg_encode_offset_commit_req, offset_commit_req)
MSG_ENCODER(msg_encode_offset_commit_resp, offset_commit_resp)
MSG_DECODER_ARENA(msg_decode_offset_commit_req, offset_commit_req)
MSG_DECODER_ARENA(msg_decode_offset_commit_resp, offset_commit_resp)

/* ---- OFFSET_FETCH ---- */

static const struct msg_field offset_fetch_req_rows[] = {
	MSG_STR(struct offset_fetch_req, group, group_len),
	MSG_ARRAY(struct offset_fetch_req, count, parts, group_tp),
};
static const struct msg_layout offset_fetch_req =
    MSG_REQUEST(offset_fetch_req_rows);

static const struct msg_field offset_fetch_result_rows[] = {
	MSG_STR(struct offset_fetch_result, topic, topic_len),
	MSG_I32(struct offset_fetch_result, partition),
	MSG_I16(struct offset_fetch_result, error),
	MSG_I64(struct offset_fetch_result, offset),
};
static const struct msg_layout offset_fetch_result =
    MSG_ELEMENT(offset_fetch_result_rows, MIN_OFFSET_FETCH_RESULT);

static const struct msg_field offset_fetch_resp_rows[] = {
	MSG_I16(struct offset_fetch_resp, error),
	MSG_ARRAY(struct offset_fetch_resp, count, results,
	    offset_fetch_result),
};
static const struct msg_layout offset_fetch_resp =
    MSG_RESPONSE(offset_fetch_resp_rows);

MSG_ENCODER(msg_encode_offset_fetch_req, offset_fetch_req)
MSG_ENCODER(msg_encode_offset_fetch_resp, offset_fetch_resp)
MSG_DECODER_ARENA(msg_decode_offset_fetch_req, offset_fetch_req)
MSG_DECODER_ARENA(msg_decode_offset_fetch_resp, offset_fetch_resp)

/* ---- LIST_GROUPS ---- */

static const struct msg_field group_listing_rows[] = {
	MSG_STR(struct group_listing, group, group_len),
	MSG_I8(struct group_listing, state),
	MSG_I32(struct group_listing, generation),
	MSG_I32(struct group_listing, members),
};
static const struct msg_layout group_listing =
    MSG_ELEMENT(group_listing_rows, MIN_LISTING);

static const struct msg_field list_groups_resp_rows[] = {
	MSG_I16(struct list_groups_resp, error),
	MSG_ARRAY(struct list_groups_resp, count, groups, group_listing),
};
static const struct msg_layout list_groups_resp =
    MSG_RESPONSE(list_groups_resp_rows);

MSG_ENCODER(msg_encode_list_groups_resp, list_groups_resp)
MSG_DECODER_ARENA(msg_decode_list_groups_resp, list_groups_resp)

/* ---- DESCRIBE_GROUP (and GROUP_DELETE's request) ---- */

static const struct msg_field describe_group_req_rows[] = {
	MSG_STR(struct describe_group_req, group, group_len),
};
static const struct msg_layout describe_group_req =
    MSG_REQUEST(describe_group_req_rows);

static const struct msg_field member_desc_rows[] = {
	MSG_STR(struct member_desc, member_id, member_id_len),
	MSG_STR(struct member_desc, client_id, client_id_len),
	MSG_I32(struct member_desc, session_timeout_ms),
	MSG_ARRAY(struct member_desc, count, parts, group_tp),
};
static const struct msg_layout member_desc =
    MSG_ELEMENT(member_desc_rows, MIN_MEMBER_DESC);

/* Version 2: the same, then its epoch, instance id, revoking and target. */
static const struct msg_field member_desc_v2_rows[] = {
	MSG_STR(struct member_desc, member_id, member_id_len),
	MSG_STR(struct member_desc, client_id, client_id_len),
	MSG_I32(struct member_desc, session_timeout_ms),
	MSG_ARRAY(struct member_desc, count, parts, group_tp),
	MSG_I32(struct member_desc, member_epoch),
	MSG_STR(struct member_desc, instance_id, instance_id_len),
	MSG_ARRAY(struct member_desc, nrevoking, revoking, group_tp),
	MSG_ARRAY(struct member_desc, ntarget, target, group_tp),
};
static const struct msg_layout member_desc_v2 =
    MSG_ELEMENT(member_desc_v2_rows, MIN_MEMBER_DESC_V2);

static const struct msg_field group_offset_desc_rows[] = {
	MSG_STR(struct group_offset_desc, topic, topic_len),
	MSG_I32(struct group_offset_desc, partition),
	MSG_I64(struct group_offset_desc, committed),
	MSG_I64(struct group_offset_desc, log_end),
};
static const struct msg_layout group_offset_desc =
    MSG_ELEMENT(group_offset_desc_rows, MIN_OFFSET_DESC);

static const struct msg_field describe_group_resp_rows[] = {
	MSG_I16(struct describe_group_resp, error),
	MSG_I8(struct describe_group_resp, state),
	MSG_I32(struct describe_group_resp, generation),
	MSG_ARRAY(struct describe_group_resp, nmembers, members, member_desc),
	MSG_ARRAY(struct describe_group_resp, noffsets, offsets,
	    group_offset_desc),
};
static const struct msg_layout describe_group_resp =
    MSG_RESPONSE(describe_group_resp_rows);

static const struct msg_field describe_group_resp_v2_rows[] = {
	MSG_I16(struct describe_group_resp, error),
	MSG_I8(struct describe_group_resp, state),
	MSG_I32(struct describe_group_resp, generation),
	MSG_I8(struct describe_group_resp, kind),
	MSG_I32(struct describe_group_resp, assignment_epoch),
	MSG_ARRAY(struct describe_group_resp, nmembers, members,
	    member_desc_v2),
	MSG_ARRAY(struct describe_group_resp, noffsets, offsets,
	    group_offset_desc),
};
static const struct msg_layout describe_group_resp_v2 =
    MSG_RESPONSE(describe_group_resp_v2_rows);

MSG_ENCODER(msg_encode_describe_group_req, describe_group_req)
MSG_ENCODER(msg_encode_describe_group_resp, describe_group_resp)
MSG_DECODER(msg_decode_describe_group_req, describe_group_req)
MSG_DECODER_ARENA(msg_decode_describe_group_resp, describe_group_resp)

/* Version 2's layout over the same struct (so not through MSG_ENCODER). */
void
msg_encode_describe_group_resp_v2(struct wbuf *wb,
    const struct describe_group_resp *m)
{
	msg_layout_put(wb, m, &describe_group_resp_v2);
}

int
msg_decode_describe_group_resp_v2(const uint8_t *p, size_t len,
    struct arena *a, struct describe_group_resp *m)
{
	return msg_layout_decode(p, len, a, m, sizeof(*m),
	    &describe_group_resp_v2);
}

/* ---- GROUP_RESET ---- */

static const struct msg_field group_reset_req_rows[] = {
	MSG_STR(struct group_reset_req, group, group_len),
	MSG_STR(struct group_reset_req, topic, topic_len),
	MSG_I32(struct group_reset_req, partition),
	MSG_I8(struct group_reset_req, mode),
	MSG_I64(struct group_reset_req, value),
};
static const struct msg_layout group_reset_req =
    MSG_REQUEST(group_reset_req_rows);

static const struct msg_field group_reset_result_rows[] = {
	MSG_I32(struct group_reset_result, partition),
	MSG_I16(struct group_reset_result, error),
	MSG_I64(struct group_reset_result, offset),
};
static const struct msg_layout group_reset_result =
    MSG_ELEMENT(group_reset_result_rows, MIN_RESET_RESULT);

static const struct msg_field group_reset_resp_rows[] = {
	MSG_I16(struct group_reset_resp, error),
	MSG_ARRAY(struct group_reset_resp, count, results, group_reset_result),
};
static const struct msg_layout group_reset_resp =
    MSG_RESPONSE(group_reset_resp_rows);

MSG_ENCODER(msg_encode_group_reset_req, group_reset_req)
MSG_ENCODER(msg_encode_group_reset_resp, group_reset_resp)
MSG_DECODER(msg_decode_group_reset_req, group_reset_req)
MSG_DECODER_ARENA(msg_decode_group_reset_resp, group_reset_resp)
