/*
 * The counters of the broker's figures that the shared region holds:
 * the writer's fdatasync histogram and the answers per error code.  A
 * snapshot of every figure is common/stats.h.
 */
#ifndef FLUME_SHM_STATS_H
#define FLUME_SHM_STATS_H

#include <stdint.h>

#include "shm/shm.h"

/* Upper bounds (microseconds) of the fdatasync buckets; the last is -1 (+Inf). */
extern const int64_t stats_fsync_le_us[SHM_FSYNC_BUCKETS];

/* Writer only: count one fdatasync that took us microseconds (ok) or failed. */
void	stats_fsync_record(struct shm *s, uint64_t us, int ok);
/* Worker only: count one answer carrying error code err (ignored if 0). */
void	stats_error_count(struct shm_child *me, int err);

#endif
