/*
 * The writer's side of topic settings; see writer_tconf.h.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "master/config.h"
#include "master/writer_tconf.h"
#include "shm/tconf.h"
#include "store/tconfig.h"

void
writer_tconf_log(struct shm *s, const struct config *c, uint32_t ti,
    const char *name, struct writer_tlog *out)
{
	struct tconf dyn, eff;
	uint32_t gen;

	config_topic_log(c, name, &out->cfg);
	(void)shm_tconf_read(s, (int)ti, s->topics[ti].id, &dyn, &gen);
	config_topic_tconf(c, name, &dyn, &eff, NULL);
	out->cfg.segment_bytes = (uint64_t)eff.v[TC_SEGMENT_BYTES];
	out->cfg.index_interval_bytes = (uint32_t)eff.v[TC_INDEX_INTERVAL_BYTES];
	out->cfg.retention_ms = eff.v[TC_RETENTION_MS];
	out->cfg.retention_bytes = eff.v[TC_RETENTION_BYTES];
	/* A topic that is not cleanup.policy delete is never cut by age or size. */
	if (!(eff.v[TC_CLEANUP_POLICY] & TCONF_CLEANUP_DELETE)) {
		out->cfg.retention_ms = -1;
		out->cfg.retention_bytes = -1;
	}
	out->cfg.segment_ms = eff.v[TC_SEGMENT_MS];
	out->flush_ms = eff.v[TC_FLUSH_MS] == INT64_MAX ? -1 :
	    eff.v[TC_FLUSH_MS];
	out->flush_msgs = eff.v[TC_FLUSH_MESSAGES] == INT64_MAX ? -1 :
	    eff.v[TC_FLUSH_MESSAGES];
}

int
writer_tconf_changed(struct shm *s, uint32_t ti, uint32_t seen)
{
	return atomic_load_explicit(&s->tconf[ti].gen, memory_order_acquire) !=
	    seen;
}

int
writer_tconf_save(struct shm *s, const struct config *c, uint32_t ti,
    const char *name, uint32_t *seen)
{
	struct tconf t;
	uint32_t gen;

	if (!shm_tconf_read(s, (int)ti, s->topics[ti].id, &t, &gen)) {
		/* Another topic's, or none: nothing of this one to save. */
		*seen = atomic_load_explicit(&s->tconf[ti].gen,
		    memory_order_acquire);
		return 0;
	}
	if (shm_tconf_saved_gen(s, (int)ti) != gen) {
		if (topic_config_save(c->data_dir, name, &t) == -1) {
			log_warn("topic %s: cannot save %s; retrying", name,
			    TOPIC_CONFIG);
			return -1;
		}
		shm_tconf_saved(s, (int)ti, gen);
		log_debug("topic %s: settings saved (generation %u)", name, gen);
	}
	*seen = gen;
	return 0;
}
