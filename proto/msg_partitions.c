/*
 * Encoders and decoders of CREATE_PARTITIONS (proto/msg.h,
 * flume-protocol(7)), with the rows of proto/msg_layout.c as every
 * native message.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

static const struct msg_field create_partitions_req_rows[] = {
	MSG_STR(struct create_partitions_req, topic, topic_len),
	MSG_I32(struct create_partitions_req, count),
	MSG_I32(struct create_partitions_req, timeout_ms),
};
static const struct msg_layout create_partitions_req =
    MSG_REQUEST(create_partitions_req_rows);

static const struct msg_field create_partitions_resp_rows[] = {
	MSG_I16(struct create_partitions_resp, error),
	MSG_I32(struct create_partitions_resp, partitions),
};
static const struct msg_layout create_partitions_resp =
    MSG_RESPONSE(create_partitions_resp_rows);

MSG_ENCODER(msg_encode_create_partitions_req, create_partitions_req)
MSG_ENCODER(msg_encode_create_partitions_resp, create_partitions_resp)
MSG_DECODER(msg_decode_create_partitions_req, create_partitions_req)
MSG_DECODER(msg_decode_create_partitions_resp, create_partitions_resp)
