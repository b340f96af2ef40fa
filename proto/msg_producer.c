/*
 * INIT_PRODUCER (15): the codec of the idempotent producer's handshake.
 *
 * req:  [producer_id i64][producer_epoch i16]
 *       -1, -1 asks for a new producer id; an id the broker issued before
 *       asks for the next epoch of that id (fencing older instances).
 * resp: [error i16][producer_id i64][producer_epoch i16]
 *       An error may also be answered as [error i16] alone.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

void
msg_encode_init_producer_req(struct wbuf *wb, const struct init_producer_req *m)
{
	wbuf_i64(wb, m->producer_id);
	wbuf_i16(wb, m->producer_epoch);
}

void
msg_encode_init_producer_resp(struct wbuf *wb, const struct init_producer_resp *m)
{
	wbuf_i16(wb, m->error);
	wbuf_i64(wb, m->producer_id);
	wbuf_i16(wb, m->producer_epoch);
}

int
msg_decode_init_producer_req(const uint8_t *p, size_t len,
    struct init_producer_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->producer_id = rbuf_i64(&rb);
	m->producer_epoch = rbuf_i16(&rb);
	return msg_done(&rb);
}

int
msg_decode_init_producer_resp(const uint8_t *p, size_t len,
    struct init_producer_resp *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	m->producer_id = -1;
	m->producer_epoch = -1;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	/* [error] alone is how the broker answers a request it refused. */
	if (!rb.err && rbuf_left(&rb) == 0 && m->error != ERR_NONE)
		return 0;
	m->producer_id = rbuf_i64(&rb);
	m->producer_epoch = rbuf_i16(&rb);
	return msg_done(&rb);
}
