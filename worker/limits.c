/*
 * The total connection limit (see limits.h).  A reservation raises this
 * worker's counter before the sum is read, so at every instant the
 * counters hold at least the true number of connections: two workers
 * accepting at the same moment may both refuse the last slot, but can
 * never both take it.
 */
#include <stdatomic.h>

#include "shm/shm.h"
#include "worker/limits.h"
#include "worker/worker.h"

uint64_t
limits_conn_total(const struct worker *w)
{
	const struct shm_child *ch;
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < w->shm->hdr->limits.child_slots; i++) {
		ch = &w->shm->children[i];
		if (ch->role == ROLE_WORKER)
			total += atomic_load_explicit(&ch->connections,
			    memory_order_acquire);
	}
	return total;
}

int
limits_conn_reserve(struct worker *w)
{
	atomic_fetch_add_explicit(&w->me->connections, 1, memory_order_acq_rel);
	if (limits_conn_total(w) > w->conf->max_connections_total) {
		limits_conn_release(w);
		return -1;
	}
	return 0;
}

void
limits_conn_release(struct worker *w)
{
	atomic_fetch_sub_explicit(&w->me->connections, 1, memory_order_release);
}
