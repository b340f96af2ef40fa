/*
 * The cleaner's figures (issue 28) as the shared region holds them
 * (shm/shm.h: the header's cleaner totals, each partition's dirty
 * ratio, last clean and bytes saved), for an administrator
 * (worker/op/cleaner.c).
 */
#ifndef FLUME_WORKER_OP_CLEANER_H
#define FLUME_WORKER_OP_CLEANER_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct op_cleaner_part {
	const char	*topic;		/* in the region: valid until it changes */
	size_t		 topic_len;
	int32_t		 partition;
	int32_t		 dirty_ppm;	/* dirty ratio, millionths */
	int64_t		 last_clean_ms;	/* 0: never cleaned */
	int64_t		 saved;		/* bytes the passes removed */
	int64_t		 log_bytes;	/* the partition's segments now */
};

struct op_cleaner_totals {
	int64_t		 runs, bytes_read, bytes_written, records_removed;
};

/*
 * Every partition of every topic whose cleanup.policy has compact, in
 * topic table order, into *out (request memory) and *n, the totals into
 * *t: OP_OK or OP_NO_MEMORY.
 */
enum op_err op_cleaner_info(const struct op_ctx *x,
	    struct op_cleaner_part **out, int32_t *n, struct op_cleaner_totals *t);

#endif
