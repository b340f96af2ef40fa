/*
 * SaslHandshake and SaslAuthenticate, from Kafka's
 * SaslHandshakeRequest.json, SaslHandshakeResponse.json,
 * SaslAuthenticateRequest.json and SaslAuthenticateResponse.json: one
 * row per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_sasl.h"

/* SaslHandshake: v1 means SaslAuthenticate frames follow (KIP-152). */
static const struct kfield handshake_req[] = {
	KF(KT_STRING, struct km_sasl_handshake_req, mechanism, 0, KV_MAX),
};

static const struct kfield handshake_resp[] = {
	KF(KT_INT16, struct km_sasl_handshake_resp, error_code, 0, KV_MAX),
	KFA(KT_STRING, struct km_sasl_handshake_resp, mechanisms, 0, KV_MAX),
};

static const struct kdesc kd_handshake_req =
    KDESC("SaslHandshakeRequest", struct km_sasl_handshake_req,
    handshake_req);
static const struct kdesc kd_handshake_resp =
    KDESC("SaslHandshakeResponse", struct km_sasl_handshake_resp,
    handshake_resp);

const struct kmsg kmsg_sasl_handshake = {
	KAPI_SASL_HANDSHAKE, "SaslHandshake", 0, 1, -1,
	&kd_handshake_req, &kd_handshake_resp
};

/*
 * SaslAuthenticate: v1 adds the session lifetime (KIP-368), v2 is
 * flexible.
 */
static const struct kfield auth_req[] = {
	KF(KT_BYTES, struct km_sasl_auth_req, auth_bytes, 0, KV_MAX),
};

static const struct kfield auth_resp[] = {
	KF(KT_INT16, struct km_sasl_auth_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_sasl_auth_resp, error_message, 0, KV_MAX,
	    KNULL(0)),
	KF(KT_BYTES, struct km_sasl_auth_resp, auth_bytes, 0, KV_MAX),
	KF(KT_INT64, struct km_sasl_auth_resp, session_lifetime_ms, 1,
	    KV_MAX),
};

static const struct kdesc kd_auth_req =
    KDESC("SaslAuthenticateRequest", struct km_sasl_auth_req, auth_req);
static const struct kdesc kd_auth_resp =
    KDESC("SaslAuthenticateResponse", struct km_sasl_auth_resp, auth_resp);

const struct kmsg kmsg_sasl_authenticate = {
	KAPI_SASL_AUTHENTICATE, "SaslAuthenticate", 0, 2, 2,
	&kd_auth_req, &kd_auth_resp
};
