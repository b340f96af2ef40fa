/*
 * Topic settings in shared memory; the protocol is in tconf.h.
 */
#include <string.h>

#include "shm/tconf.h"

/* A reader racing two publications retries; a bound keeps it finite. */
#define TCONF_READ_TRIES	64

size_t
shm_tconf_table_size(const struct shm_limits *lim)
{
	size_t n;

	if (__builtin_mul_overflow((size_t)lim->max_topics,
	    sizeof(struct shm_tconf), &n))
		return SIZE_MAX;
	return n;
}

static struct shm_tconf *
entry(struct shm *s, int ti)
{
	if (ti < 0 || (uint32_t)ti >= s->hdr->limits.max_topics)
		return NULL;
	return &s->tconf[ti];
}

int
shm_tconf_read(struct shm *s, int ti, const uint8_t *id, struct tconf *t,
    uint32_t *gen)
{
	struct shm_tconf *e = entry(s, ti);
	struct shm_tconf_slot copy;
	uint32_t g, again;
	int i;

	memset(t, 0, sizeof(*t));
	*gen = 0;
	if (e == NULL)
		return 0;
	for (i = 0; i < TCONF_READ_TRIES; i++) {
		g = atomic_load_explicit(&e->gen, memory_order_acquire);
		if (g == 0)
			return 0;
		memcpy(&copy, &e->slot[g & 1], sizeof(copy));
		atomic_thread_fence(memory_order_acquire);
		again = atomic_load_explicit(&e->gen, memory_order_relaxed);
		if (again != g)
			continue;
		if (memcmp(copy.id, id, TOPIC_ID_LEN) != 0)
			return 0;
		/* Never trust a bit beyond the table. */
		copy.t.set &= (1u << TC_NKEYS) - 1;
		*t = copy.t;
		*gen = g;
		return 1;
	}
	return 0;
}

uint32_t
shm_tconf_publish(struct shm *s, int ti, const uint8_t *id,
    const struct tconf *t)
{
	struct shm_tconf *e = entry(s, ti);
	uint32_t g;

	if (e == NULL)
		return 0;
	g = atomic_load_explicit(&e->gen, memory_order_relaxed) + 1;
	if (g == 0)
		g = 2;		/* 0 means "never": skip it, keep the parity */
	memcpy(e->slot[g & 1].id, id, TOPIC_ID_LEN);
	e->slot[g & 1].t = *t;
	atomic_store_explicit(&e->gen, g, memory_order_release);
	return g;
}

void
shm_tconf_saved(struct shm *s, int ti, uint32_t gen)
{
	struct shm_tconf *e = entry(s, ti);

	if (e != NULL)
		atomic_store_explicit(&e->saved, gen, memory_order_release);
}

uint32_t
shm_tconf_saved_gen(struct shm *s, int ti)
{
	struct shm_tconf *e = entry(s, ti);

	return e == NULL ? 0 : atomic_load_explicit(&e->saved,
	    memory_order_acquire);
}
