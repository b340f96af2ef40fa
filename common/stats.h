/*
 * The broker's figures, read from the shared region: one snapshot
 * (struct stats_resp of proto/msg.h) that the STATS api sends as it is
 * and the metrics child renders in the Prometheus text format, so the two
 * always show the same numbers.
 *
 * Every figure is a counter or a published offset read with one atomic
 * load, so a snapshot needs no lock and may be taken by any process at
 * any time (its figures are each exact, not taken at one instant).
 */
#ifndef FLUME_COMMON_STATS_H
#define FLUME_COMMON_STATS_H

#include "proto/msg.h"
#include "proto/wire.h"
#include "shm/shm.h"

/*
 * Fill out from the region; arrays and names are copied into a (names
 * of topics are copied, so the snapshot stays valid whatever happens in
 * the region).  0, or -1 with errno ENOMEM when the arena refuses.
 */
int	stats_collect(struct shm *s, struct arena *a, struct stats_resp *out);

#endif
