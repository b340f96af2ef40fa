/*
 * The broker's processes (worker/op/broker.h).
 */
#include <stdatomic.h>
#include <stddef.h>

#include "common/clock.h"
#include "shm/shm.h"
#include "worker/op/broker.h"
#include "worker/worker.h"

enum op_err
op_broker_children(const struct op_ctx *x, struct op_child **out, int32_t *n)
{
	struct shm *shm = x->w->shm;
	struct shm_child *ch;
	struct op_child *ci;
	int64_t now_rt = clock_real_ms();
	uint32_t i, slots = shm->hdr->limits.child_slots;
	int32_t pid;

	*out = NULL;
	*n = 0;
	if (slots > 0 && (*out = op_alloc(x, slots * sizeof(**out))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < slots; i++) {
		ch = &shm->children[i];
		if ((pid = atomic_load(&ch->pid)) <= 0)
			continue;
		ci = &(*out)[(*n)++];
		ci->slot = (int32_t)i;
		ci->role = (int8_t)ch->role;
		ci->pid = pid;
		ci->uptime_ms = ch->start_ms > 0 && now_rt > ch->start_ms ?
		    now_rt - ch->start_ms : 0;
		ci->restarts = ch->restarts;
	}
	return OP_OK;
}
