/*
 * CONFIG_DESCRIBE and CONFIG_ALTER as layouts (msg_codec.h); the wire
 * form is in msg_tconf.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/msg_codec.h"
#include "proto/msg_tconf.h"

#define MIN_CONFIG_ENTRY	(MIN_STR + MIN_STR + 1)
#define MIN_CONFIG_EDIT		(1 + MIN_STR + MIN_STR)

static const struct msg_field config_describe_req_rows[] = {
	MSG_I8(struct config_describe_req, kind),
	MSG_STR(struct config_describe_req, name, name_len),
};
static const struct msg_layout config_describe_req =
    MSG_REQUEST(config_describe_req_rows);

static const struct msg_field config_entry_rows[] = {
	MSG_STR(struct config_entry, key, key_len),
	MSG_STR(struct config_entry, value, value_len),
	MSG_I8(struct config_entry, source),
};
static const struct msg_layout config_entry =
    MSG_ELEMENT(config_entry_rows, MIN_CONFIG_ENTRY);

static const struct msg_field config_describe_resp_rows[] = {
	MSG_I16(struct config_describe_resp, error),
	MSG_STR(struct config_describe_resp, message, message_len),
	MSG_ARRAY(struct config_describe_resp, count, entries, config_entry),
};
static const struct msg_layout config_describe_resp =
    MSG_RESPONSE(config_describe_resp_rows);

MSG_ENCODER(msg_encode_config_describe_req, config_describe_req)
MSG_ENCODER(msg_encode_config_describe_resp, config_describe_resp)
MSG_DECODER(msg_decode_config_describe_req, config_describe_req)
MSG_DECODER_ARENA(msg_decode_config_describe_resp, config_describe_resp)

static const struct msg_field config_edit_rows[] = {
	MSG_I8(struct config_edit, op),
	MSG_STR(struct config_edit, key, key_len),
	MSG_STR(struct config_edit, value, value_len),
};
static const struct msg_layout config_edit =
    MSG_ELEMENT(config_edit_rows, MIN_CONFIG_EDIT);

static const struct msg_field config_alter_req_rows[] = {
	MSG_STR(struct config_alter_req, topic, topic_len),
	MSG_I8(struct config_alter_req, validate_only),
	MSG_ARRAY(struct config_alter_req, count, edits, config_edit),
};
static const struct msg_layout config_alter_req =
    MSG_REQUEST(config_alter_req_rows);

static const struct msg_field config_alter_resp_rows[] = {
	MSG_I16(struct config_alter_resp, error),
	MSG_STR(struct config_alter_resp, message, message_len),
};
static const struct msg_layout config_alter_resp =
    MSG_RESPONSE(config_alter_resp_rows);

MSG_ENCODER(msg_encode_config_alter_req, config_alter_req)
MSG_ENCODER(msg_encode_config_alter_resp, config_alter_resp)
MSG_DECODER_ARENA(msg_decode_config_alter_req, config_alter_req)
MSG_DECODER(msg_decode_config_alter_resp, config_alter_resp)
