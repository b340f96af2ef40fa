/*
 * The time lookup behind every "offset for time" request: the partition
 * reader this worker keeps (handlers_reader) and the store's search over
 * the time indexes.  Synchronous in the worker: a binary search plus a
 * scan of about index_interval_bytes of batch headers.
 */
#include <errno.h>
#include <stdatomic.h>

#include "common/log.h"
#include "proto/msg.h"
#include "shm/shm.h"
#include "store/plog.h"
#include "worker/handlers.h"
#include "worker/timelookup.h"
#include "worker/worker.h"

int16_t
timelookup_offset(struct worker *w, struct shm_partition *p, int64_t ts,
    int64_t *off, int64_t *rts)
{
	struct plog_reader *rd;
	int64_t start, visible;

	*off = *rts = -1;
	start = atomic_load_explicit(&p->log_start, memory_order_acquire);
	visible = atomic_load_explicit(&p->visible_offset, memory_order_acquire);
	if ((rd = handlers_reader(w, p)) == NULL)
		return errno == ENOENT ? ERR_NONE : ERR_STORAGE;
	if (plog_reader_time_lookup(rd, ts, visible, off, rts) == -1) {
		log_warn("time lookup: partition %d", (int)p->partition);
		return ERR_STORAGE;
	}
	/* Segments below the start may linger until retention unlinks them. */
	if (*off != -1 && *off < start)
		*off = start;
	return ERR_NONE;
}
