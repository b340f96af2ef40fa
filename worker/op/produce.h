/*
 * Produce: append each part's batches to its partition's ring, after
 * the checks (access, topic, size, batch validation, a storage error),
 * deduplicated by producer (worker/op/producer.h).  A full ring blocks
 * the request (OP_BLOCKED: call op_produce() again, nothing later of the
 * connection runs meanwhile, so its produces keep their order) until
 * its deadline; acks=all then waits (OP_WAIT, op_produce_poll()) until
 * the writer made every appended part durable.
 *
 * The arguments point into the request; the face rebuilds them when the
 * request's bytes move, and passes them again on every call: the state
 * keeps no pointer into them.  message_timestamp_type = log_append
 * stamps the batches in place.
 */
#ifndef FLUME_WORKER_OP_PRODUCE_H
#define FLUME_WORKER_OP_PRODUCE_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct shm_partition;

#define OP_PRODUCE_DEFAULT_TIMEOUT	30000	/* ms, for a timeout <= 0 */

struct op_produce_part {
	const char		*topic;
	size_t			 topic_len;
	int32_t			 partition;
	const uint8_t		*records;	/* whole record batches */
	size_t			 records_len;
};

struct op_produce {
	int			 acks;		/* 0, 1 or -1 (all) */
	int32_t			 timeout_ms;	/* ring space and acks=all */
	int32_t			 count;
	const struct op_produce_part *parts;
};

struct op_produce_result {
	enum op_err		 err;
	int64_t			 base_offset;	/* -1 unless OP_OK */
	int64_t			 log_start;	/* -1 unless OP_OK */
};

/* In the request's memory; results are final once OP_DONE. */
struct op_produce_st {
	struct op_produce_result *res;		/* [count] */
	int32_t			 count;
	int64_t			 deadline;	/* for OP_BLOCKED and OP_WAIT */
	/* The operation's own. */
	struct shm_partition	**parts;	/* NULL: answered */
	int64_t			*next;		/* offset after the appended batches */
	uint32_t		*inc;		/* parts[i]'s incarnation */
	/*
	 * What parts[i] appends: the request's records, or their copy in
	 * the topic's compression.type (request memory).
	 */
	const uint8_t		**recs;
	size_t			*rec_lens;
	int32_t			 cur;		/* next part to append */
	int			 acks;
};

/*
 * Run a produce: *stp NULL the first time (the state is allocated then;
 * NULL again with OP_DONE and *err OP_NO_MEMORY when the request's
 * memory is short, with OP_BAD_REQUEST for acks not 0, 1 or -1), the
 * same state after OP_BLOCKED.  *err is OP_OK otherwise; each part's
 * outcome is in (*stp)->res.  An acks=0 produce is answered by no one:
 * the face sends nothing.
 */
enum op_status op_produce(const struct op_ctx *x, const struct op_produce *a,
	    struct op_produce_st **stp, enum op_err *err);
/* acks=all: every appended part durable yet?  Times out the rest. */
enum op_status op_produce_poll(const struct op_ctx *x, struct op_produce_st *st);

#endif
