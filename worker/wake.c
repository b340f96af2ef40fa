/*
 * The small services of the worker's loop its modules call (worker.h):
 * asking for the writer, the worker's slot, the next timeout sweep.
 * Apart from worker.c, so that an operation (worker/op/) that wakes the
 * writer does not link the event loop and, through it, the faces.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "common/broker.h"
#include "shm/shm.h"
#include "worker/worker.h"

void
worker_wake_writer(struct worker *w, int force)
{
	if (force)
		w->wake_writer = 2;
	else if (w->wake_writer == 0) {
		w->wake_writer = 1;
		w->wake_writer_at = w->now + WORKER_LAZY_WAKE_MS;
	}
}

/* Does any worker have requests parked until the writer moves? */
static int
worker_someone_waits(struct worker *w)
{
	int slot, n = broker_writer_slot(w->b);

	if ((uint32_t)n > w->shm->hdr->limits.child_slots)
		n = (int)w->shm->hdr->limits.child_slots;
	for (slot = 0; slot < n; slot++)
		if (atomic_load_explicit(&w->shm->children[slot].wake_wanted,
		    memory_order_relaxed) != 0)
			return 1;
	return 0;
}

/*
 * The ring tails were stored (seq_cst) before this load of
 * writer_sleeping, which is all the Dekker pairing with the writer needs:
 * a writer seen awake re-reads every tail before it sleeps.  Doing it
 * later in the turn only batches the wake-ups.
 */
int64_t
worker_wake_flush(struct worker *w)
{
	if (w->wake_writer == 0)
		return WORKER_NEVER;
	if (w->wake_writer == 1 &&
	    atomic_load(&w->shm->hdr->writer_sleeping) == 0) {
		w->wake_writer = 0;
		return WORKER_NEVER;
	}
	if (w->wake_writer == 1 && w->now < w->wake_writer_at &&
	    !w->stopping && !worker_someone_waits(w))
		return w->wake_writer_at;
	w->wake_writer = 0;
	broker_wake(w->b, broker_writer_slot(w->b));
	return WORKER_NEVER;
}

uint32_t
worker_slot(const struct worker *w)
{
	return (uint32_t)(w->me - w->shm->children);
}

void
worker_sweep_before(struct worker *w, int64_t t)
{
	if (t < w->next_sweep)
		w->next_sweep = t;
}
