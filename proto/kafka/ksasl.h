/*
 * Kafka's SASL requests and the SASL messages inside them, pure and
 * bounds-checked (fuzzed by tests/fuzz/fuzz_kafka.c).
 *
 * SaslHandshake v0-1: [mechanism STRING] -> [error i16][mechanisms
 * [STRING]].  After v0 the client sends bare SASL tokens framed by an
 * i32 size (kafka-python does); after v1 it wraps each in
 * SaslAuthenticate v0: [auth_bytes BYTES] -> [error i16][error_message
 * NULLABLE_STRING][auth_bytes BYTES] (librdkafka does).
 *
 * SCRAM (RFC 5802): client-first "n,[a=authzid],n=user,r=nonce[,ext]",
 * client-final "c=channel-binding,r=nonce[,ext],p=proof".  PLAIN
 * (RFC 4616): "[authzid] NUL user NUL password".
 */
#ifndef FLUME_PROTO_KAFKA_KSASL_H
#define FLUME_PROTO_KAFKA_KSASL_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

#define KSASL_USER_MAX		255	/* decoded SCRAM user names */
#define KSASL_NONCE_MAX		255	/* client nonce */

/* SaslHandshake request: the mechanism; 0 or -1. */
int	ksasl_handshake_decode(const uint8_t *p, size_t len, struct kstr *mech);
void	ksasl_handshake_encode_resp(struct wbuf *wb, int16_t error,
	    const char *const *mechs, int nmechs);
/* SaslAuthenticate v0 request: the token; 0 or -1. */
int	ksasl_authenticate_decode(const uint8_t *p, size_t len, struct kstr *tok);
void	ksasl_authenticate_encode_resp(struct wbuf *wb, int16_t error,
	    const char *msg, const void *tok, size_t toklen);

struct ksasl_scram_first {
	char		 user[KSASL_USER_MAX + 1];	/* =2C and =3D decoded */
	size_t		 user_len;
	const char	*nonce;			/* into the message */
	size_t		 nonce_len;
	const char	*bare;			/* client-first-message-bare */
	size_t		 bare_len;
};

/* A SCRAM client-first message without channel binding; 0 or -1. */
int	ksasl_scram_first_parse(const char *p, size_t len,
	    struct ksasl_scram_first *f);

struct ksasl_scram_final {
	const char	*cbind;			/* the c= value (base64) */
	size_t		 cbind_len;
	const char	*nonce;			/* r= */
	size_t		 nonce_len;
	const char	*proof;			/* p= (base64) */
	size_t		 proof_len;
	const char	*without_proof;		/* the message ... */
	size_t		 without_proof_len;	/* ... up to ",p=" */
};

/* A SCRAM client-final message; 0 or -1. */
int	ksasl_scram_final_parse(const char *p, size_t len,
	    struct ksasl_scram_final *f);

/* PLAIN: user and password point into p; 0 or -1 (an authzid must be empty or the user). */
int	ksasl_plain_parse(const char *p, size_t len, const char **user,
	    size_t *user_len, const char **pass, size_t *pass_len);

#endif
