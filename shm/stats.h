/*
 * The broker's figures, read from the shared region: one snapshot
 * (struct stats_resp of proto/msg.h) that the STATS api sends as it is
 * and the metrics child renders in the Prometheus text format, so the two
 * always show the same numbers.  Also the writer's fdatasync histogram.
 *
 * Every figure is a counter or a published offset read with one atomic
 * load, so a snapshot needs no lock and may be taken by any process at
 * any time (its figures are each exact, not taken at one instant).
 */
#ifndef FLUME_SHM_STATS_H
#define FLUME_SHM_STATS_H

#include <stdint.h>

#include "proto/msg.h"
#include "proto/wire.h"
#include "shm/shm.h"

/* Upper bounds (microseconds) of the fdatasync buckets; the last is -1 (+Inf). */
extern const int64_t stats_fsync_le_us[SHM_FSYNC_BUCKETS];

/* Writer only: count one fdatasync that took us microseconds (ok) or failed. */
void	stats_fsync_record(struct shm *s, uint64_t us, int ok);
/* Worker only: count one answer carrying error code err (ignored if 0). */
void	stats_error_count(struct shm_child *me, int err);

/*
 * Fill out from the region; arrays and names are copied into a (names
 * of topics are copied, so the snapshot stays valid whatever happens in
 * the region).  0, or -1 with errno ENOMEM when the arena refuses.
 */
int	stats_collect(struct shm *s, struct arena *a, struct stats_resp *out);

#endif
