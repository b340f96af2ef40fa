/*
 * The shape of a worker's dispatch table: one row per API key of a
 * protocol, with what every request of that key goes through.  The Kafka
 * listener (worker/kafka.c) is dispatched from such a table; the native
 * handlers can move to the same shape.
 *
 *   decode   r->payload into r->dec (the connection's arena); 0 or -1.
 *            Called again when the payload moved (conn.c detaches it).
 *   exec     run it (state NEW or BLOCKED); leaves it DONE, WAIT or BLOCKED.
 *   poll     re-check a WAIT or BLOCKED request; NULL: it never waits.
 *   emit     append the answer of a DONE request to the output.
 *   release  free what it holds outside the arena; NULL: nothing.
 *   perm     the AUTH_* bits a user needs for it; 0: any client.
 */
#ifndef FLUME_WORKER_DISPATCH_H
#define FLUME_WORKER_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

struct worker;
struct conn;
struct req;

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
};

/* The row of key in a table of n rows, or NULL. */
const struct api_row *api_row_find(const struct api_row *t, size_t n, int key);

#endif
