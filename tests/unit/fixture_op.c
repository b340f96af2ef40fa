/* The fixture of the operation suites; see fixture_op.h. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/config.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "tests/unit/fixture_shm.h"
#include "worker/op/reader.h"

static void *
fixture_alloc(void *arg, size_t size)
{
	struct fixture_op *f = arg;
	void *p;

	if (f->nallocs == FIXTURE_OP_ALLOCS ||
	    (f->alloc_limit > 0 && f->alloced + size > f->alloc_limit))
		return NULL;
	if ((p = calloc(1, size > 0 ? size : 1)) == NULL)
		return NULL;
	f->alloced += size;
	f->allocs[f->nallocs++] = p;
	return p;
}

void
fixture_op_start(struct fixture_op *f, int32_t nparts)
{
	struct shm_limits lim = {
		.max_topics = 8,
		.max_partitions = 32,
		.ring_size = 1 << 16,
		.child_slots = 4,
		.max_groups = 4,
		.max_group_members = 8,
		.ip_slots = 4,
		.member_meta = 256,
		.max_txns = 4,			/* test_op_txn.c */
		.max_txn_parts = 4,
		.max_txn_offsets = 2,
	};
	char *dir;

	memset(f, 0, sizeof(*f));
	config_defaults(&f->conf);
	dir = test_mkdtemp("op");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(f->dir, sizeof(f->dir), "%s", dir);
	free(dir);
	snprintf(f->conf.data_dir, sizeof(f->conf.data_dir), "%s", f->dir);
	fixture_region(&f->b.shm, &lim, nparts, NULL);
	f->w.b = &f->b;
	f->w.shm = &f->b.shm;
	f->w.conf = &f->conf;
	f->w.me = &f->b.shm.children[0];
	f->w.epfd = f->w.listen_fd = f->w.kafka_fd = -1;
	f->w.tls_fd = f->w.kafka_tls_fd = f->w.wake_fd = -1;
	f->w.now = 1000;
	f->x.w = &f->w;
	f->x.auth = &f->auth;
	f->x.peer = "test";
	f->x.api = "Test";
	f->x.alloc = fixture_alloc;
	f->x.alloc_arg = f;
	CU_ASSERT_EQUAL_FATAL(op_reader_init(&f->w), 0);
}

void
fixture_op_done(struct fixture_op *f)
{
	size_t i;

	for (i = 0; i < f->nallocs; i++)
		free(f->allocs[i]);
	f->nallocs = 0;
	op_reader_fini(&f->w);
	fixture_region_done(&f->b.shm);
	test_rmtree(f->dir);
}
