/*
 * The counters of the broker's figures that live in the shared region
 * (see shm/stats.h); common/stats.c reads them into a snapshot.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "shm/group.h"
#include "shm/stats.h"

_Static_assert(ERR_MAX <= SHM_ERR_SLOTS, "error codes must fit the shm counters");

const int64_t stats_fsync_le_us[SHM_FSYNC_BUCKETS] = {
	100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000,
	250000, 500000, 1000000, 2500000, 10000000, -1
};

void
stats_fsync_record(struct shm *s, uint64_t us, int ok)
{
	struct shm_fsync *f = &s->hdr->fsync;
	int i;

	if (!ok) {
		atomic_fetch_add_explicit(&f->errors, 1, memory_order_relaxed);
		return;
	}
	for (i = 0; i < SHM_FSYNC_BUCKETS - 1; i++)
		if ((int64_t)us <= stats_fsync_le_us[i])
			break;
	atomic_fetch_add_explicit(&f->bucket[i], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&f->sum_us, us, memory_order_relaxed);
	/* Last: a reader that sees the count sees its bucket too. */
	atomic_fetch_add_explicit(&f->count, 1, memory_order_release);
}

void
stats_error_count(struct shm_child *me, int err)
{
	if (err <= 0)
		return;
	if (err >= SHM_ERR_SLOTS)
		err = SHM_ERR_SLOTS - 1;
	atomic_fetch_add_explicit(&me->errors[err], 1, memory_order_relaxed);
}
