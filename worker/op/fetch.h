/*
 * Fetch: for each part, the byte range of whole batches a segment file
 * holds from the part's offset on (store/plog.h), to be sent with
 * sendfile(2); a request that finds less than min_bytes waits for data
 * (OP_WAIT, op_fetch_poll()) until its deadline.
 *
 * A part is served only up to visible_offset (what the writer has put in
 * the files) and waits for the rest; its high watermark is next_offset,
 * everything acknowledged, so a consumer that reads to the end right
 * after an acks=1 produce sees that produce.  The first part with data
 * may exceed the byte limits by the one whole batch it always gets.
 *
 * With isolation 1 (read_committed) a part is served only up to its last
 * stable offset (shm/producer.h: below every open transaction), with the
 * aborted transactions of the range read (their producer ids and first
 * offsets, store/txnindex.h), and its long poll wakes when the LSO moves.
 *
 * A finished fetch holds one duplicated file descriptor per part with
 * data: the face takes it (op_fetch_take()) to queue it on its output,
 * and op_fetch_release() closes what it did not take.
 */
#ifndef FLUME_WORKER_OP_FETCH_H
#define FLUME_WORKER_OP_FETCH_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct shm_partition;

struct op_fetch_part {
	const char		*topic;
	size_t			 topic_len;
	int32_t			 partition;
	int64_t			 offset;
	int32_t			 max_bytes;	/* <= 0: one batch */
};

struct op_fetch {
	int32_t			 max_wait_ms;
	int32_t			 min_bytes;
	int32_t			 max_bytes;	/* the whole answer; <= 0: no limit */
	int32_t			 count;
	int8_t			 isolation;	/* 0 read_uncommitted, 1 read_committed */
	const struct op_fetch_part *parts;
};

/* An aborted transaction in a read_committed part's range. */
struct op_fetch_aborted {
	int64_t			 pid;
	int64_t			 first;
};

struct op_fetch_result {
	enum op_err		 err;
	int64_t			 log_start;	/* -1 when unknown */
	int64_t			 hwm;		/* acknowledged end (next_offset), or -1 */
	int64_t			 lso;		/* last stable offset (the high
						   watermark without an open
						   transaction), or -1 */
	const struct op_fetch_aborted *aborted;	/* read_committed: [naborted] */
	int32_t			 naborted;
	int64_t			 nrec;		/* records in [pos, pos + len) */
	int			 fd;		/* -1: no data */
	off_t			 pos;
	size_t			 len;
	int64_t			 bad_first;	/* OP_CORRUPT_STORED: the range */
	int64_t			 bad_next;	/* first readable offset after it */
	/* The operation's own. */
	struct shm_partition	*p;
	uint32_t		 inc;		/* p's incarnation when resolved */
	int64_t			 visible;	/* readable end (visible_offset, or
						   the LSO for read_committed) */
};

/* In the request's memory. */
struct op_fetch_st {
	struct op_fetch_result	*res;		/* [count] */
	int32_t			 count;
	int64_t			 total;		/* bytes in the file ranges */
	int64_t			 deadline;	/* for OP_WAIT */
};

/*
 * Run a fetch: the state into *stp (NULL with OP_DONE and *err
 * OP_NO_MEMORY when the request's memory is short; *err OP_OK
 * otherwise).  OP_DONE: each part's outcome is in (*stp)->res.
 */
enum op_status op_fetch(const struct op_ctx *x, const struct op_fetch *a,
	    struct op_fetch_st **stp, enum op_err *err);
/* A waiting fetch: data arrived, a topic went, or the deadline passed? */
enum op_status op_fetch_poll(const struct op_ctx *x, const struct op_fetch *a,
	    struct op_fetch_st *st);
/*
 * Part i's result, its file range handed over: the caller owns
 * (*out).fd from here (and counts it sent with op_fetch_sent()).
 * -1 for a part out of range.
 */
int	op_fetch_take(struct op_fetch_st *st, int32_t i,
	    struct op_fetch_result *out);
/* Count what r's range carries as sent to a consumer (r->len > 0). */
void	op_fetch_sent(const struct op_fetch_result *r);
/* Close the descriptors the face did not take. */
void	op_fetch_release(struct op_fetch_st *st);

#endif
