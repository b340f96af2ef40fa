/*
 * The cleaner's figures (worker/op/cleaner.h).
 */
#include <stdatomic.h>
#include <stddef.h>

#include "proto/tconf.h"
#include "shm/shm.h"
#include "worker/op/cleaner.h"
#include "worker/op/tconf.h"
#include "worker/worker.h"

enum op_err
op_cleaner_info(const struct op_ctx *x, struct op_cleaner_part **out,
    int32_t *n, struct op_cleaner_totals *t)
{
	struct shm *s = x->w->shm;
	struct shm_cleaner *sc = &s->hdr->cleaner;
	struct shm_partition *p;
	struct shm_topic *tp;
	struct op_cleaner_part *cp;
	struct tconf tc;
	uint32_t ti, nt, pi, slot, total = 0;

	*out = NULL;
	*n = 0;
	t->runs = (int64_t)atomic_load(&sc->runs);
	t->bytes_read = (int64_t)atomic_load(&sc->bytes_read);
	t->bytes_written = (int64_t)atomic_load(&sc->bytes_written);
	t->records_removed = (int64_t)atomic_load(&sc->records_removed);
	nt = atomic_load(&s->hdr->topic_count);
	if (nt > s->hdr->limits.max_topics)
		nt = s->hdr->limits.max_topics;
	/* At most every slot; the real count is taken as we go. */
	total = s->hdr->limits.max_partitions;
	if (total > 0 && (*out = op_alloc(x, total * sizeof(**out))) == NULL)
		return OP_NO_MEMORY;
	for (ti = 0; ti < nt; ti++) {
		tp = &s->topics[ti];
		if (atomic_load_explicit(&tp->state, memory_order_acquire) !=
		    TOPIC_READY)
			continue;
		op_tconf_topic(x->w, (int)ti, &tc);
		if (!(tc.v[TC_CLEANUP_POLICY] & TCONF_CLEANUP_COMPACT))
			continue;
		for (pi = 0; pi < (uint32_t)tp->partitions; pi++) {
			if ((slot = shm_topic_slot(s, tp, pi)) == UINT32_MAX ||
			    (uint32_t)*n >= total)
				break;
			p = &s->parts[slot];
			cp = &(*out)[(*n)++];
			cp->topic = tp->name;
			cp->topic_len = tp->name_len <= TOPIC_NAME_MAX ?
			    tp->name_len : TOPIC_NAME_MAX;
			cp->partition = (int32_t)pi;
			cp->dirty_ppm = (int32_t)atomic_load(&p->clean_ratio_ppm);
			cp->last_clean_ms = atomic_load(&p->clean_last_ms);
			cp->saved = (int64_t)atomic_load(&p->clean_saved);
			cp->log_bytes = (int64_t)atomic_load(&p->log_bytes);
		}
	}
	return OP_OK;
}
