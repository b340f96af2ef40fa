/*
 * CLEANER (28): the cleaner's figures for flume-admin cleaner (issue 28).
 * Layout in proto/msg.h and flume-protocol(7); a layout table like the
 * other messages (proto/msg_layout.c).
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

static const struct msg_field cleaner_part_rows[] = {
	MSG_STR(struct cleaner_part, topic, topic_len),
	MSG_I32(struct cleaner_part, partition),
	MSG_I32(struct cleaner_part, dirty_ppm),
	MSG_I64(struct cleaner_part, last_clean_ms),
	MSG_I64(struct cleaner_part, saved),
	MSG_I64(struct cleaner_part, log_bytes),
};
static const struct msg_layout cleaner_part =
    MSG_ELEMENT(cleaner_part_rows, MIN_CLEANER_PART);

static const struct msg_field cleaner_resp_rows[] = {
	MSG_I16(struct cleaner_resp, error),
	MSG_I64(struct cleaner_resp, runs),
	MSG_I64(struct cleaner_resp, bytes_read),
	MSG_I64(struct cleaner_resp, bytes_written),
	MSG_I64(struct cleaner_resp, records_removed),
	MSG_ARRAY(struct cleaner_resp, count, parts, cleaner_part),
};
static const struct msg_layout cleaner_resp = MSG_RESPONSE(cleaner_resp_rows);

MSG_ENCODER(msg_encode_cleaner_resp, cleaner_resp)
MSG_DECODER_ARENA(msg_decode_cleaner_resp, cleaner_resp)
