/*
 * The auth_file hand-off from the master to the workers (see authpub.h).
 */
#include <sched.h>
#include <string.h>

#include "shm/authpub.h"

#define AUTHPUB_READ_TRIES	64

uint32_t
authpub_publish(struct shm *s, const void *text, size_t len)
{
	struct shm_authpub *a = s->authpub;
	uint32_t seq = atomic_load_explicit(&a->seq, memory_order_relaxed);
	uint32_t gen;

	if (len > AUTHPUB_TEXT_MAX)
		len = AUTHPUB_TEXT_MAX;
	atomic_store_explicit(&a->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	memcpy(a->text, text, len);
	atomic_store_explicit(&a->len, (uint32_t)len, memory_order_relaxed);
	gen = atomic_load_explicit(&a->generation, memory_order_relaxed) + 1;
	if (gen == 0)
		gen = 1;
	atomic_store_explicit(&a->generation, gen, memory_order_relaxed);
	atomic_store_explicit(&a->seq, seq + 2, memory_order_release);
	return gen;
}

uint32_t
authpub_generation(const struct shm *s)
{
	return atomic_load_explicit(&s->authpub->generation,
	    memory_order_acquire);
}

int
authpub_read(const struct shm *s, uint8_t *buf, size_t *len, uint32_t *gen)
{
	struct shm_authpub *a = s->authpub;
	uint32_t s1, s2, n;
	int i;

	for (i = 0; i < AUTHPUB_READ_TRIES; i++) {
		s1 = atomic_load_explicit(&a->seq, memory_order_acquire);
		if (s1 & 1) {
			sched_yield();
			continue;
		}
		*gen = atomic_load_explicit(&a->generation, memory_order_relaxed);
		n = atomic_load_explicit(&a->len, memory_order_relaxed);
		if (n > AUTHPUB_TEXT_MAX)
			n = AUTHPUB_TEXT_MAX;
		/*
		 * The text may be overwritten while we copy it; the second
		 * load of seq tells, and the torn copy is thrown away.
		 */
		memcpy(buf, a->text, n);
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&a->seq, memory_order_relaxed);
		if (s1 != s2)
			continue;
		*len = n;
		return 1;
	}
	return 0;
}
