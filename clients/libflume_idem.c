/*
 * libflume: INIT_PRODUCER, the idempotent producer's handshake (the
 * producer side of idempotence lives in libflume_producer.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libflume_int.h"
#include "proto/msg.h"

int
flume_init_producer(struct flume_client *c, int64_t *producer_id, int16_t *epoch)
{
	struct init_producer_req req;
	struct init_producer_resp resp;
	struct client_sync s;
	int rc;

	req.producer_id = *producer_id < 0 ? -1 : *producer_id;
	req.producer_epoch = *producer_id < 0 ? -1 : *epoch;
	/*
	 * A new id may be asked for again after a lost connection (the first
	 * answer's id is then simply never used); an epoch bump may not, since
	 * a second one would find this producer's old epoch fenced.
	 */
	if (client_call(c, API_INIT_PRODUCER, &req, c->conf.request_timeout_ms,
	    req.producer_id < 0, &s) == -1)
		return -1;
	rc = msg_decode_init_producer_resp(s.buf, s.len, &resp);
	free(s.buf);
	if (rc == -1) {
		client_seterr(c, "malformed init producer response");
		errno = EPROTO;
		return -1;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, "init producer");
		if (resp.error == ERR_PRODUCER_FENCED)
			errno = EPERM;
		return -1;
	}
	*producer_id = resp.producer_id;
	*epoch = resp.producer_epoch;
	return 0;
}
