/*
 * The native CONFIG_DESCRIBE (22) and CONFIG_ALTER (23) messages: a
 * topic's or the broker's settings (proto/tconf.h), documented in
 * flume-protocol(7).
 *
 * CONFIG_DESCRIBE
 *   req:  [kind i8][name str]          kind 0 a topic, 1 the broker ("")
 *   resp: [error i16][message str]
 *         [count i32]{[key str][value str][source i8]}
 *         source as Kafka's ConfigSource: 1 the topic's own, 4
 *         flume.conf, 5 the default
 * CONFIG_ALTER
 *   req:  [topic str][validate_only i8]
 *         [count i32]{[op i8][key str][value str]}
 *         op 0 set, 1 delete (value ignored), 2 append, 3 subtract
 *   resp: [error i16][message str]     INVALID_CONFIG naming the key:
 *                                      nothing changed
 */
#ifndef FLUME_PROTO_MSG_TCONF_H
#define FLUME_PROTO_MSG_TCONF_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

enum { CONFIG_KIND_TOPIC = 0, CONFIG_KIND_BROKER = 1 };

struct config_describe_req { int8_t kind; const char *name; size_t name_len; };
struct config_entry { const char *key; size_t key_len; const char *value;
	size_t value_len; int8_t source; };
struct config_describe_resp { int16_t error; const char *message;
	size_t message_len; int32_t count; struct config_entry *entries; };

struct config_edit { int8_t op; const char *key; size_t key_len;
	const char *value; size_t value_len; };
struct config_alter_req { const char *topic; size_t topic_len;
	int8_t validate_only; int32_t count; struct config_edit *edits; };
struct config_alter_resp { int16_t error; const char *message;
	size_t message_len; };

void	msg_encode_config_describe_req(struct wbuf *wb,
	    const struct config_describe_req *m);
void	msg_encode_config_describe_resp(struct wbuf *wb,
	    const struct config_describe_resp *m);
int	msg_decode_config_describe_req(const uint8_t *p, size_t len,
	    struct config_describe_req *m);
int	msg_decode_config_describe_resp(const uint8_t *p, size_t len,
	    struct arena *a, struct config_describe_resp *m);
void	msg_encode_config_alter_req(struct wbuf *wb,
	    const struct config_alter_req *m);
void	msg_encode_config_alter_resp(struct wbuf *wb,
	    const struct config_alter_resp *m);
int	msg_decode_config_alter_req(const uint8_t *p, size_t len,
	    struct arena *a, struct config_alter_req *m);
int	msg_decode_config_alter_resp(const uint8_t *p, size_t len,
	    struct config_alter_resp *m);

#endif
