/*
 * Codecs of AUTH_BEGIN and AUTH_PROVE (layouts in proto/msg_auth.h).
 * Like every decoder in proto/, these are structural only: the user name
 * is checked against the auth file by the worker, not here.
 */
#include <string.h>

#include "proto/msg_auth.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

void
msg_encode_auth_begin_req(struct wbuf *wb, const struct auth_begin_req *m)
{
	wbuf_str(wb, m->user, m->user_len);
}

void
msg_encode_auth_begin_resp(struct wbuf *wb, const struct auth_begin_resp *m)
{
	wbuf_i16(wb, m->error);
	if (m->error == 0)
		wbuf_raw(wb, m->nonce, sizeof(m->nonce));
}

void
msg_encode_auth_prove_req(struct wbuf *wb, const struct auth_prove_req *m)
{
	wbuf_raw(wb, m->mac, sizeof(m->mac));
}

void
msg_encode_auth_prove_resp(struct wbuf *wb, const struct auth_prove_resp *m)
{
	wbuf_i16(wb, m->error);
}

int
msg_decode_auth_begin_req(const uint8_t *p, size_t len, struct auth_begin_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->user = rbuf_str(&rb, &m->user_len);
	return msg_done(&rb);
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

int
msg_decode_auth_prove_req(const uint8_t *p, size_t len, struct auth_prove_req *m)
{
	struct rbuf rb;
	const uint8_t *mac;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	if ((mac = rbuf_raw(&rb, sizeof(m->mac))) != NULL)
		memcpy(m->mac, mac, sizeof(m->mac));
	return msg_done(&rb);
}

int
msg_decode_auth_prove_resp(const uint8_t *p, size_t len, struct auth_prove_resp *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	return msg_done(&rb);
}
