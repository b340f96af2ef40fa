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

static const struct msg_field init_producer_req_rows[] = {
	MSG_I64(struct init_producer_req, producer_id),
	MSG_I16(struct init_producer_req, producer_epoch),
};
static const struct msg_layout init_producer_req =
    MSG_REQUEST(init_producer_req_rows);

static const struct msg_field init_producer_resp_rows[] = {
	MSG_I16(struct init_producer_resp, error),
	MSG_I64(struct init_producer_resp, producer_id),
	MSG_I16(struct init_producer_resp, producer_epoch),
};
static const struct msg_layout init_producer_resp =
    MSG_RESPONSE(init_producer_resp_rows);

MSG_ENCODER(msg_encode_init_producer_req, init_producer_req)
MSG_ENCODER(msg_encode_init_producer_resp, init_producer_resp)
MSG_DECODER(msg_decode_init_producer_req, init_producer_req)

int
msg_decode_init_producer_resp(const uint8_t *p, size_t len,
    struct init_producer_resp *m)
{
	if (msg_layout_decode(p, len, NULL, m, sizeof(*m),
	    &init_producer_resp) == -1)
		return -1;
	/*
	 * [error] alone is how the broker answers a request it refused: it
	 * names no producer, which is -1, -1 (not id 0, epoch 0).
	 */
	if (len == MIN_ERROR) {
		m->producer_id = -1;
		m->producer_epoch = -1;
	}
	return 0;
}
