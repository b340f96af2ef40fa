/*
 * CREATE_PARTITIONS (24) for flume-admin and library users: grow a
 * topic's partition count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clients/flume.h"
#include "clients/libflume_int.h"
#include "proto/msg.h"

int
flume_create_partitions(struct flume_client *c, const char *topic,
    int32_t count, int32_t *now)
{
	struct create_partitions_req req;
	struct create_partitions_resp resp;
	struct client_sync s;
	int rc = -1;

	memset(&s, 0, sizeof(s));
	req.topic = topic;
	req.topic_len = strlen(topic);
	req.count = count;
	/* The broker answers within this; the call waits a little longer. */
	req.timeout_ms = c->conf.request_timeout_ms;
	if (client_call(c, API_CREATE_PARTITIONS, &req,
	    c->conf.request_timeout_ms + 1000, 0, &s) == -1)
		goto done;
	if (msg_decode_create_partitions_resp(s.buf, s.len, &resp) == -1) {
		client_seterr(c, "malformed create partitions response");
		errno = EPROTO;
		goto done;
	}
	if (now != NULL)
		*now = resp.partitions;
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, topic);
		if (resp.error == ERR_INVALID_PARTITIONS)
			client_seterr(c, "%s: has %d partitions; a topic only "
			    "grows", topic, (int)resp.partitions);
		goto done;
	}
	rc = 0;
done:
	free(s.buf);
	return rc;
}
