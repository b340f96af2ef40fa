/*
 * Lookups in a dispatch table (worker/dispatch.h).  Tables are short
 * (one row per API key), so a scan is as fast as anything else.
 */
#include <stddef.h>

#include "worker/conn.h"
#include "worker/dispatch.h"

const struct api_row *
api_row_find(const struct api_row *t, size_t n, int key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].key == key)
			return &t[i];
	return NULL;
}

void
api_req_status(struct req *r, enum op_status s, int64_t deadline)
{
	r->state = s == OP_BLOCKED ? REQ_BLOCKED : s == OP_WAIT ? REQ_WAIT :
	    REQ_DONE;
	r->deadline = deadline;
}
