/*
 * Codecs of AUTH_BEGIN and AUTH_PROVE (layouts in proto/msg_auth.h).
 * Like every decoder in proto/, these are structural only: the user name
 * is checked against the auth file by the worker, not here.  Layout
 * tables (proto/msg_layout.c) but for AUTH_BEGIN's answer, whose nonce is
 * there only when the error is zero, which a table row cannot say.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/msg_auth.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

static const struct msg_field auth_begin_req_rows[] = {
	MSG_STR(struct auth_begin_req, user, user_len),
};
static const struct msg_layout auth_begin_req =
    MSG_REQUEST(auth_begin_req_rows);

static const struct msg_field auth_prove_req_rows[] = {
	MSG_RAW(struct auth_prove_req, mac),
};
static const struct msg_layout auth_prove_req =
    MSG_REQUEST(auth_prove_req_rows);

/* Only [error i16]: as a response layout, a lone non-zero one is all. */
static const struct msg_field auth_prove_resp_rows[] = {
	MSG_I16(struct auth_prove_resp, error),
};
static const struct msg_layout auth_prove_resp =
    MSG_RESPONSE(auth_prove_resp_rows);

MSG_ENCODER(msg_encode_auth_begin_req, auth_begin_req)
MSG_DECODER(msg_decode_auth_begin_req, auth_begin_req)
MSG_ENCODER(msg_encode_auth_prove_req, auth_prove_req)
MSG_DECODER(msg_decode_auth_prove_req, auth_prove_req)
MSG_ENCODER(msg_encode_auth_prove_resp, auth_prove_resp)
MSG_DECODER(msg_decode_auth_prove_resp, auth_prove_resp)

void
msg_encode_auth_begin_resp(struct wbuf *wb, const struct auth_begin_resp *m)
{
	wbuf_i16(wb, m->error);
	if (m->error == 0)
		wbuf_raw(wb, m->nonce, sizeof(m->nonce));
}

int
msg_decode_auth_begin_resp(const uint8_t *p, size_t len, struct auth_begin_resp *m)
{
	struct rbuf rb;
	const uint8_t *n;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	if (!rb.err && m->error == 0) {
		if ((n = rbuf_raw(&rb, sizeof(m->nonce))) != NULL)
			memcpy(m->nonce, n, sizeof(m->nonce));
	}
	return msg_done(&rb);
}
