/*
 * The SASL messages inside Kafka's SASL exchange, pure and bounds-checked
 * (fuzzed by tests/fuzz/fuzz_kafka.c).  The requests that carry them,
 * SaslHandshake and SaslAuthenticate, are descriptions (kmsg_sasl.h);
 * after SaslHandshake v0 a client sends bare tokens framed by an i32 size
 * instead (kafka-python does), after v1 it wraps each in a
 * SaslAuthenticate (librdkafka does).
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
