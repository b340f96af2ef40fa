/*
 * The CONNECTIONS api in a worker (worker/native/conns.c): every client
 * connection of the running workers, for flume-admin connections.
 */
#ifndef FLUME_WORKER_NATIVE_CONNS_H
#define FLUME_WORKER_NATIVE_CONNS_H

struct worker;
struct conn;
struct req;

void	native_connections_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	native_connections_emit(struct worker *w, struct conn *c,
	    struct req *r);

#endif
