/*
 * DELETE_RECORDS (25) and OFFSET_DELETE (26) for flume-admin and library
 * users: move a partition's log start up, delete a group's committed
 * offsets.  One synchronous call each, not resent after a lost
 * connection (the caller sees the failure and decides).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libflume_int.h"

#define ODEL_ARENA_LIMIT	(1 << 20)
/* The broker waits up to this for the writer; the call a little longer. */
#define DELREC_TIMEOUT_MS	25000

int
flume_delete_records(struct flume_client *c, const char *topic,
    int32_t partition, int64_t offset, int64_t *log_start)
{
	struct delete_records_req req;
	struct delete_records_resp resp;
	struct client_sync s;
	int rc = -1;

	memset(&s, 0, sizeof(s));
	req.topic = topic;
	req.topic_len = strlen(topic);
	req.partition = partition;
	req.offset = offset;
	req.timeout_ms = DELREC_TIMEOUT_MS;
	if (client_call(c, API_DELETE_RECORDS, &req,
	    c->conf.request_timeout_ms > DELREC_TIMEOUT_MS ?
	    c->conf.request_timeout_ms : DELREC_TIMEOUT_MS + 5000, 0,
	    &s) == -1)
		return -1;
	if (msg_decode_delete_records_resp(s.buf, s.len, &resp) == -1) {
		client_seterr(c, "malformed delete records response");
		errno = EPROTO;
	} else if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, topic);
		if (resp.error == ERR_OFFSET_OUT_OF_RANGE) {
			client_seterr(c, "%s/%d: offset %lld is past the end "
			    "of the log", topic, (int)partition,
			    (long long)offset);
			errno = ERANGE;
		}
	} else {
		if (log_start != NULL)
			*log_start = resp.log_start;
		rc = 0;
	}
	free(s.buf);
	return rc;
}

int
flume_group_delete_offsets(struct flume_client *c, const char *group,
    const char *topic, const int32_t *partitions, int32_t n,
    struct flume_offset_delete_result **out)
{
	struct offset_delete_req req;
	struct offset_delete_resp resp;
	struct client_sync s;
	struct arena a;
	int32_t i;
	int rc = -1;

	*out = NULL;
	memset(&s, 0, sizeof(s));
	req.group = group;
	req.group_len = strlen(group);
	req.topic = topic;
	req.topic_len = strlen(topic);
	req.count = n > 0 ? n : 0;
	req.parts = NULL;
	if (n > 0 && (req.parts = calloc((size_t)n,
	    sizeof(*req.parts))) == NULL) {
		client_seterr(c, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < req.count; i++)
		req.parts[i].partition = partitions[i];
	arena_init(&a, ODEL_ARENA_LIMIT);
	if (client_call(c, API_OFFSET_DELETE, &req, c->conf.request_timeout_ms,
	    0, &s) == -1)
		goto done;
	if (msg_decode_offset_delete_resp(s.buf, s.len, &a, &resp) == -1) {
		client_seterr(c, "malformed offset delete response");
		errno = EPROTO;
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, group);
		if (resp.error == ERR_INVALID_GROUP) {
			client_seterr(c, "%s: no such group", group);
			errno = ENOENT;
		}
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
	}
	rc = resp.count;
done:
	free(req.parts);
	free(s.buf);
	arena_free(&a);
	return rc;
}
