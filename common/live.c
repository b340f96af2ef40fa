/*
 * The children's side of a reload (see live.h and master/live.c).
 *
 * Readers copy the live block between two loads of its seq and keep the
 * copy only when both loads saw the same even value.  Every field is an
 * atomic, so a torn copy is impossible at the language level as well;
 * the seqlock makes the copy consistent as a whole.  Retries are bounded:
 * a master that died mid-write leaves seq odd, and then the children
 * simply keep what they have (the next master creates a new region).
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/live.h"
#include "common/log.h"

#define LIVE_READ_TRIES	64

/* The generation this process has applied. */
static uint32_t	live_seen;

int
live_refresh(struct shm *s, struct config *c)
{
	struct shm_live *l = &s->hdr->live;
	uint32_t off[SHM_LIVE_FIELDS], width[SHM_LIVE_FIELDS];
	int64_t value[SHM_LIVE_FIELDS];
	uint32_t s1, s2, gen, n, i;
	int try;

	gen = atomic_load_explicit(&l->generation, memory_order_relaxed);
	if (gen == live_seen)
		return 0;
	for (try = 0; try < LIVE_READ_TRIES; try++) {
		s1 = atomic_load_explicit(&l->seq, memory_order_acquire);
		if (s1 & 1) {
			sched_yield();
			continue;
		}
		gen = atomic_load_explicit(&l->generation, memory_order_relaxed);
		n = atomic_load_explicit(&l->nfields, memory_order_relaxed);
		if (n > SHM_LIVE_FIELDS)
			n = SHM_LIVE_FIELDS;
		for (i = 0; i < n; i++) {
			off[i] = atomic_load_explicit(&l->field[i].off,
			    memory_order_relaxed);
			width[i] = atomic_load_explicit(&l->field[i].width,
			    memory_order_relaxed);
			value[i] = atomic_load_explicit(&l->field[i].value,
			    memory_order_relaxed);
		}
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&l->seq, memory_order_relaxed);
		if (s1 != s2)
			continue;
		for (i = 0; i < n; i++)
			if (config_set_field(c, off[i], width[i], value[i]) == -1)
				log_warnx("live: setting at %u (%u bytes) is not "
				    "in the configuration; ignored", off[i],
				    width[i]);
		log_setlevel(c->log_level);
		live_seen = gen;
		log_info("applied the reloaded settings (generation %u)", gen);
		return 1;
	}
	return 0;
}
