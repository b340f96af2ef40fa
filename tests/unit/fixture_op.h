/*
 * The fixture of the operation suites (test_op_*): a worker of its own
 * over a fresh shared region (fixture_shm.h) with one topic "t", a data
 * directory under TMPDIR, flume.conf's defaults, and a request context
 * (worker/op/op.h) whose memory is freed by fixture_op_done().  No
 * process is forked: the operations are called directly.  The region
 * is f->b.shm (w.shm points at it); groups have room for 4 of 8 members.
 * The worker's partition readers (worker/op/reader.h) are set up, over
 * the data directory.
 */
#ifndef FLUME_TESTS_UNIT_FIXTURE_OP_H
#define FLUME_TESTS_UNIT_FIXTURE_OP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "common/broker.h"
#include "common/config.h"
#include "shm/shm.h"
#include "worker/op/access.h"
#include "worker/op/op.h"
#include "worker/worker.h"

#define FIXTURE_OP_ALLOCS	4096

struct fixture_op {
	struct config		 conf;
	struct broker		 b;
	struct worker		 w;
	struct auth_session	 auth;
	struct op_ctx		 x;
	char			 dir[PATH_MAX];		/* data_dir */
	void			*allocs[FIXTURE_OP_ALLOCS];
	size_t			 nallocs;
	size_t			 alloc_limit;	/* bytes x may hand out; 0: no limit */
	size_t			 alloced;
};

/* Set up f with topic "t" of nparts partitions; a failure fails the test. */
void	fixture_op_start(struct fixture_op *f, int32_t nparts);
/* Free what f holds, remove its region and its data directory. */
void	fixture_op_done(struct fixture_op *f);

#endif
