/*
 * The native API handlers of a worker: decode a request (into the
 * connection's arena), execute it against shared memory and the log,
 * park it when it must wait, and encode its response.
 */
#ifndef FLUME_WORKER_HANDLERS_H
#define FLUME_WORKER_HANDLERS_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

struct worker;
struct conn;
struct req;
struct plog_reader;
struct produce_result;
struct shm_partition;

/* Open the per-partition reader cache; 0 or -1. */
int	handlers_init(struct worker *w);
void	handlers_fini(struct worker *w);
/*
 * The operations, on a decoded native request r->dec of r->api; each
 * leaves r DONE (answer in r->st, or r->error), WAIT or BLOCKED, and is
 * called again for a BLOCKED one.  The dispatch tables call them.
 */
void	handle_produce(struct worker *w, struct conn *c, struct req *r);
void	handle_fetch(struct worker *w, struct conn *c, struct req *r);
void	handle_list_offsets(struct worker *w, struct conn *c, struct req *r);
/* acks=all: every appended part durable yet?  Times out the rest. */
void	handle_produce_poll(struct worker *w, struct req *r);
/* The native PRODUCE answer. */
void	handle_produce_emit(struct worker *w, struct conn *c, struct req *r);
/* A parked FETCH: data arrived, or its deadline passed? */
void	handle_fetch_poll(struct worker *w, struct conn *c, struct req *r);
/* The native FETCH answer, file ranges by sendfile. */
void	handle_fetch_emit(struct worker *w, struct conn *c, struct req *r);
/* Close a FETCH's file descriptors that were not handed on. */
void	handle_fetch_release(struct req *r);

/* The worker's cached reader of p's log; NULL (errno ENOENT: nothing stored). */
struct plog_reader *handlers_reader(struct worker *w, struct shm_partition *p);

/* Part i of a finished PRODUCE; 0 or -1. */
int	handler_produce_result(const struct req *r, int32_t i,
	    struct produce_result *out);

/* Part i of a finished FETCH; its file range (fd, pos, len) is handed over. */
struct handler_fetch_part {
	int16_t			 error;		/* flume error code */
	int64_t			 log_start;
	int64_t			 hwm;
	int64_t			 nrec;
	struct shm_partition	*p;
	int			 fd;		/* -1: no data */
	off_t			 pos;
	size_t			 len;
};
int	handler_fetch_take(struct req *r, int32_t i,
	    struct handler_fetch_part *out);

#endif
