/*
 * The shape of a worker's dispatch table: one row per API key of a
 * protocol, with what every request of that key goes through.  The Kafka
 * listener (worker/kafka/kafka.c) is dispatched from such a table; the native
 * handlers can move to the same shape.
 *
 *   decode   r->payload into r->dec (the connection's arena); 0 or -1.
 *            Called again when the payload moved (conn.c detaches it).
 *   exec     run it (state NEW or BLOCKED); leaves it DONE, WAIT or BLOCKED.
 *   poll     re-check a WAIT or BLOCKED request; NULL: it never waits.
 *   emit     append the answer of a DONE request to the output.
 *   release  free what it holds outside the arena; NULL: nothing.
 *   perm     the AUTH_* bits (common/authfile.h) a user needs for it, on some
 *            topic, or with API_PERM_ALL on every topic; 0: any
 *            authenticated user (the handler checks per topic);
 *            API_PERM_OPEN: answered before authentication too.
 *   errbody  native only: what an error answer carries after its code
 *            (so the api's own decoder reads it).
 *   desc     the face's own description of the API, NULL: none (Kafka:
 *            its struct kmsg, proto/kafka/kdesc.h, which decodes the
 *            request and encodes the answer at every version).
 *
 * Adding an API to a protocol is adding a row to its table.
 */
#ifndef FLUME_WORKER_DISPATCH_H
#define FLUME_WORKER_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct worker;
struct conn;
struct req;

#define API_PERM_OPEN	0x100u
#define API_PERM_ALL	0x200u

enum api_errbody {
	ERRBODY_NONE = 0,	/* [error i16] */
	ERRBODY_EMPTY,		/* [error i16][count i32 = 0] */
	ERRBODY_HANDSHAKE,	/* [error i16][version i16][max_frame i32][broker str] */
};

struct api_row {
	int16_t		 key;
	int16_t		 min_version, max_version;
	const char	*name;
	unsigned	 perm;
	int		(*decode)(struct conn *c, struct req *r);
	void		(*exec)(struct worker *w, struct conn *c, struct req *r);
	void		(*poll)(struct worker *w, struct conn *c, struct req *r);
	void		(*emit)(struct worker *w, struct conn *c, struct req *r);
	void		(*release)(struct req *r);
	enum api_errbody errbody;
	const void	*desc;
};

/* The row of key in a table of n rows, or NULL. */
const struct api_row *api_row_find(const struct api_row *t, size_t n, int key);
/*
 * r's state after its operation answered s (worker/op/op.h): DONE, or
 * WAIT / BLOCKED until deadline.
 */
void	api_req_status(struct req *r, enum op_status s, int64_t deadline);

#endif
