/*
 * The shared-memory fixture of the unit suites: one region per test
 * process, under a name of its own, made and removed the same way by
 * every suite that needs one.
 */
#ifndef FLUME_TESTS_UNIT_FIXTURE_SHM_H
#define FLUME_TESTS_UNIT_FIXTURE_SHM_H

#include <stdint.h>

#include "shm/shm.h"

/* "/flume-test-SUITE-PID": this test process's region name. */
const char *fixture_shm_name(void);
/*
 * A fresh region with lim and one topic "t" of nparts partitions; *p
 * (when p is not NULL) its partition 0.  A failure fails the test.
 */
void	fixture_region(struct shm *s, const struct shm_limits *lim,
	    int32_t nparts, struct shm_partition **p);
/* Detach s and remove the region. */
void	fixture_region_done(struct shm *s);

#endif
