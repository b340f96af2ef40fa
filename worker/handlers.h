/*
 * The native API handlers of a worker: decode a request (into the
 * connection's arena), execute it against shared memory and the log,
 * park it when it must wait, and encode its response.
 */
#ifndef FLUME_WORKER_HANDLERS_H
#define FLUME_WORKER_HANDLERS_H

#include <stddef.h>
#include <stdint.h>

struct worker;
struct conn;
struct req;

/*
 * The operations, on a decoded native request r->dec of r->api; each
 * leaves r DONE (answer in r->st, or r->error), WAIT or BLOCKED, and is
 * called again for a BLOCKED one.  The dispatch tables call them.
 */
void	handle_handshake(struct worker *w, struct conn *c, struct req *r);
void	handle_metadata(struct worker *w, struct conn *c, struct req *r);
void	handle_workers(struct worker *w, struct conn *c, struct req *r);

#endif
