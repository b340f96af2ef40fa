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
/* Execute r (state NEW or BLOCKED); leaves it DONE, WAIT or BLOCKED. */
void	handler_exec(struct worker *w, struct conn *c, struct req *r);
/* Re-check a BLOCKED or WAIT request's condition and deadline. */
void	handler_poll(struct worker *w, struct conn *c, struct req *r);
/* The payload moved (detached); decode it again from r->payload. 0 or -1. */
int	handler_redecode(struct conn *c, struct req *r);
/* Append r's response (DONE) to c's output. */
void	handler_emit(struct worker *w, struct conn *c, struct req *r);
/* Free what r holds outside the arena (file descriptors). */
void	handler_release(struct req *r);
/* The worker's cached reader of p's log; NULL (errno ENOENT: nothing stored). */
struct plog_reader *handlers_reader(struct worker *w, struct shm_partition *p);

/*
 * For the Kafka listener: execute r, whose r->dec is already a native
 * decoded request of r->api (METADATA, PRODUCE, FETCH, LIST_OFFSETS);
 * called again for a BLOCKED one, like handler_exec().
 */
void	handler_exec_decoded(struct worker *w, struct conn *c, struct req *r);
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
