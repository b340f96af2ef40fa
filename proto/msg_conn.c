/*
 * The encoder and decoder of CONNECTIONS (proto/msg.h, flume-protocol(7)),
 * with proto/msg.c's machinery: a table of rows that proto/msg_layout.c
 * encodes and decodes, arrays from the caller's arena, the payload
 * consumed exactly, a lone non-zero [error i16] accepted.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

/* The smallest wire size of one connection. */
#define MIN_CONN_INFO	(4 + 4 + 1 + 1 + 8 + MIN_STR * 3)

static const struct msg_field conn_info_rows[] = {
	MSG_I32(struct conn_info, slot),
	MSG_I32(struct conn_info, pid),
	MSG_I8(struct conn_info, protocol),
	MSG_I8(struct conn_info, tls),
	MSG_I64(struct conn_info, opened_ms),
	MSG_STR(struct conn_info, peer, peer_len),
	MSG_STR(struct conn_info, client_name, client_name_len),
	MSG_STR(struct conn_info, client_version, client_version_len),
};
static const struct msg_layout conn_info =
    MSG_ELEMENT(conn_info_rows, MIN_CONN_INFO);

static const struct msg_field connections_resp_rows[] = {
	MSG_I16(struct connections_resp, error),
	MSG_ARRAY(struct connections_resp, count, conns, conn_info),
};
static const struct msg_layout connections_resp =
    MSG_RESPONSE(connections_resp_rows);

MSG_ENCODER(msg_encode_connections_resp, connections_resp)
MSG_DECODER_ARENA(msg_decode_connections_resp, connections_resp)
