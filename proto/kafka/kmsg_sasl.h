/*
 * The SASL exchange as descriptions (kdesc.h): SaslHandshake (17) and
 * SaslAuthenticate (36).  The mechanisms' own messages (SCRAM, PLAIN)
 * are ksasl.h's.
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_SASL_H
#define FLUME_PROTO_KAFKA_KMSG_SASL_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* SaslHandshake v0-1, never flexible. */
struct km_sasl_handshake_req {
	struct kstr	 mechanism;
};

struct km_sasl_handshake_resp {
	int16_t		 error_code;
	struct karray	 mechanisms;			/* kstr */
};

/* SaslAuthenticate v0-2, flexible 2+. */
struct km_sasl_auth_req {
	struct kstr	 auth_bytes;
};

struct km_sasl_auth_resp {
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct kstr	 auth_bytes;
	int64_t		 session_lifetime_ms;		/* 1+ */
};

extern const struct kmsg kmsg_sasl_handshake, kmsg_sasl_authenticate;

#endif
