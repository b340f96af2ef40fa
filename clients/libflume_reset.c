/*
 * GROUP_RESET (19) and GROUP_DELETE (21) for flume-admin and library
 * users: move a group that has no members to chosen offsets, e.g. past a
 * corrupt batch, or delete it.  One synchronous call each, not resent
 * after a lost connection (a second reset to the same place would be
 * harmless, but the caller should see the failure and decide).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libflume_int.h"

#define RESET_ARENA_LIMIT	(1 << 20)

int
flume_group_reset(struct flume_client *c, const char *group, const char *topic,
    int32_t partition, int mode, int64_t value, struct flume_reset_result **out)
{
	struct group_reset_req req;
	struct group_reset_resp resp;
	struct client_sync s;
	struct arena a;
	int32_t i;
	int rc = -1;

	*out = NULL;
	memset(&s, 0, sizeof(s));
	if (mode < FLUME_RESET_TO_OFFSET || mode > FLUME_RESET_TO_TIME) {
		client_seterr(c, "bad reset mode %d", mode);
		errno = EINVAL;
		return -1;
	}
	req.group = group;
	req.group_len = strlen(group);
	req.topic = topic;
	req.topic_len = strlen(topic);
	req.partition = partition < 0 ? -1 : partition;
	req.mode = (int8_t)mode;
	req.value = value;
	arena_init(&a, RESET_ARENA_LIMIT);
	if (client_call(c, API_GROUP_RESET, &req, c->conf.request_timeout_ms, 0,
	    &s) == -1)
		goto done;
	if (msg_decode_group_reset_resp(s.buf, s.len, &a, &resp) == -1) {
		client_seterr(c, "malformed group reset response");
		errno = EPROTO;
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, group);
		if (resp.error == ERR_GROUP_NOT_EMPTY)
			client_seterr(c, "%s: the group has active members; "
			    "stop them first", group);
		goto done;
	}
	if ((*out = calloc(resp.count > 0 ? (size_t)resp.count : 1,
	    sizeof(**out))) == NULL) {
		client_seterr(c, "out of memory");
		errno = ENOMEM;
		goto done;
	}
	for (i = 0; i < resp.count; i++) {
		(*out)[i].partition = resp.results[i].partition;
		(*out)[i].error = resp.results[i].error;
		(*out)[i].offset = resp.results[i].offset;
	}
	rc = resp.count;
done:
	free(s.buf);
	arena_free(&a);
	return rc;
}

int
flume_group_delete(struct flume_client *c, const char *group)
{
	struct describe_group_req req;
	struct group_error_resp resp;
	struct client_sync s;
	int rc = -1;

	memset(&s, 0, sizeof(s));
	req.group = group;
	req.group_len = strlen(group);
	if (client_call(c, API_GROUP_DELETE, &req, c->conf.request_timeout_ms,
	    0, &s) == -1)
		return -1;
	if (msg_decode_group_error_resp(s.buf, s.len, &resp) == -1) {
		client_seterr(c, "malformed group delete response");
		errno = EPROTO;
	} else if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, group);
		if (resp.error == ERR_GROUP_NOT_EMPTY) {
			client_seterr(c, "%s: the group has active members; "
			    "stop them first", group);
			errno = EBUSY;
		} else if (resp.error == ERR_INVALID_GROUP) {
			client_seterr(c, "%s: no such group", group);
			errno = ENOENT;
		}
	} else
		rc = 0;
	free(s.buf);
	return rc;
}
