/*
 * libflume: INIT_PRODUCER, the idempotent producer's handshake (the
 * producer side of idempotence lives in libflume_producer.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libflume_int.h"
#include "proto/msg.h"

struct idem_wait {
	int			 done;
	int			 err;
	int			 bad;
	struct init_producer_resp resp;
};

static int
idem_resp_fn(struct flume_client *c, void *ctx, const uint8_t *payload,
    size_t len, int err)
{
	struct idem_wait *w = ctx;

	w->done = 1;
	if (err != 0) {
		w->err = err;
		return 0;
	}
	if (msg_decode_init_producer_resp(payload, len, &w->resp) == -1) {
		w->bad = 1;
		return -1;
	}
	return 0;
}

int
flume_init_producer(struct flume_client *c, int64_t *producer_id, int16_t *epoch)
{
	struct init_producer_req req;
	struct idem_wait w;
	int64_t deadline;
	uint32_t id;
	size_t start;

	if (!client_connected(c) && client_reconnect(c) == -1)
		return -1;
	memset(&w, 0, sizeof(w));
	req.producer_id = *producer_id < 0 ? -1 : *producer_id;
	req.producer_epoch = *producer_id < 0 ? -1 : *epoch;
	start = client_begin(c, API_INIT_PRODUCER, &id);
	msg_encode_init_producer_req(&c->out, &req);
	if (client_end(c, start, id, idem_resp_fn, &w) == -1)
		return -1;
	deadline = client_now_ms() + c->conf.request_timeout_ms;
	while (!w.done) {
		if (client_now_ms() >= deadline) {
			client_disconnect(c, ETIMEDOUT);
			break;
		}
		(void)client_pump(c, 100);
	}
	if (w.bad) {
		client_seterr(c, "malformed init producer response");
		errno = EPROTO;
		return -1;
	}
	if (w.err != 0) {
		client_seterr(c, "connection to %s lost: %s",
		    flume_client_address(c), strerror(w.err));
		errno = w.err;
		return -1;
	}
	if (w.resp.error != ERR_NONE) {
		client_broker_fail(c, w.resp.error, "init producer");
		if (w.resp.error == ERR_PRODUCER_FENCED)
			errno = EPERM;
		return -1;
	}
	*producer_id = w.resp.producer_id;
	*epoch = w.resp.producer_epoch;
	return 0;
}
