/*
 * The authentication operations of the native protocol (see msg.h for
 * the types and conventions, flume-protocol(7) for users):
 *
 * ---- AUTH_BEGIN (16) ----
 * req:  [user str]
 * resp: [error i16][nonce 32 bytes]     the nonce is absent when error != 0
 *
 * ---- AUTH_PROVE (17) ----
 * req:  [mac 32 bytes]                  HMAC-SHA256(key = secret, msg = nonce)
 * resp: [error i16]
 *
 * The fixed-size fields are raw bytes without a length prefix.
 */
#ifndef FLUME_PROTO_MSG_AUTH_H
#define FLUME_PROTO_MSG_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

#define AUTH_NONCE_LEN		32
#define AUTH_MAC_LEN		32
#define AUTH_USER_MAX		64

struct auth_begin_req { const char *user; size_t user_len; };
struct auth_begin_resp { int16_t error; uint8_t nonce[AUTH_NONCE_LEN]; };
struct auth_prove_req { uint8_t mac[AUTH_MAC_LEN]; };
struct auth_prove_resp { int16_t error; };

void	msg_encode_auth_begin_req(struct wbuf *wb, const struct auth_begin_req *m);
void	msg_encode_auth_begin_resp(struct wbuf *wb, const struct auth_begin_resp *m);
void	msg_encode_auth_prove_req(struct wbuf *wb, const struct auth_prove_req *m);
void	msg_encode_auth_prove_resp(struct wbuf *wb, const struct auth_prove_resp *m);

/* Decoders: 0 or -1 (malformed: short, overlong, trailing bytes). */
int	msg_decode_auth_begin_req(const uint8_t *p, size_t len, struct auth_begin_req *m);
int	msg_decode_auth_begin_resp(const uint8_t *p, size_t len, struct auth_begin_resp *m);
int	msg_decode_auth_prove_req(const uint8_t *p, size_t len, struct auth_prove_req *m);
int	msg_decode_auth_prove_resp(const uint8_t *p, size_t len, struct auth_prove_resp *m);

#endif
