/*
 * CONFIG_DESCRIBE and CONFIG_ALTER for the tools: one request, wait for
 * its answer (bounded by the client's request timeout), decode it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clients/flume_config.h"
#include "clients/libflume_int.h"

int
flume_tool_config_describe(struct flume_client *c, const char *topic,
    struct arena *a, struct config_describe_resp *out)
{
	struct config_describe_req req;
	struct client_sync s;
	uint8_t *body;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	req.kind = topic == NULL ? CONFIG_KIND_BROKER : CONFIG_KIND_TOPIC;
	req.name = topic != NULL ? topic : "";
	req.name_len = strlen(req.name);
	if (client_call(c, API_CONFIG_DESCRIBE, &req,
	    c->conf.request_timeout_ms, 1, &s) == -1)
		return -1;
	/* The strings point into the body: it lives in a, as they do. */
	if ((body = arena_alloc(a, s.len > 0 ? s.len : 1)) == NULL) {
		client_seterr(c, "config response: out of memory");
		errno = ENOMEM;
		free(s.buf);
		return -1;
	}
	memcpy(body, s.buf, s.len);
	if (msg_decode_config_describe_resp(body, s.len, a, out) == -1) {
		client_seterr(c, "malformed config response");
		errno = EPROTO;
	} else if (out->error != ERR_NONE)
		client_broker_fail(c, out->error, topic != NULL ? topic :
		    "broker");
	else
		rc = 0;
	free(s.buf);
	return rc;
}

int
flume_tool_config_alter(struct flume_client *c, const char *topic,
    const struct config_edit *edits, int32_t n)
{
	struct config_alter_req req;
	struct config_alter_resp resp;
	struct client_sync s;
	int rc = -1;

	memset(&req, 0, sizeof(req));
	req.topic = topic;
	req.topic_len = strlen(topic);
	req.count = n;
	req.edits = (struct config_edit *)(uintptr_t)edits;
	if (client_call(c, API_CONFIG_ALTER, &req, c->conf.request_timeout_ms,
	    0, &s) == -1)
		return -1;
	if (msg_decode_config_alter_resp(s.buf, s.len, &resp) == -1) {
		client_seterr(c, "malformed config response");
		errno = EPROTO;
	} else if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, topic);
		if (resp.message_len > 0)
			client_seterr(c, "%s: %.*s", topic,
			    (int)resp.message_len, resp.message);
	} else
		rc = 0;
	free(s.buf);
	return rc;
}
