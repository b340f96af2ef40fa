/*
 * The writer's side of topic settings (issue 27): it saves a topic's
 * dynamic settings to topic.config when a worker published new ones
 * (shm/tconf.h), marks them saved, and applies them to the topic's
 * logs: segment.bytes, index.interval.bytes, retention (none unless
 * cleanup.policy has delete), segment.ms, flush.ms, flush.messages.
 */
#ifndef FLUME_MASTER_WRITER_TCONF_H
#define FLUME_MASTER_WRITER_TCONF_H

#include <stdint.h>

#include "common/config.h"
#include "shm/shm.h"
#include "store/plog.h"

/* What the writer applies of a topic's effective settings. */
struct writer_tlog {
	struct plog_config	cfg;
	int64_t			flush_ms;	/* -1 never */
	int64_t			flush_msgs;	/* -1 never */
};

/* Topic entry ti's (name) settings as the writer applies them. */
void	writer_tconf_log(struct shm *s, const struct config *c, uint32_t ti,
	    const char *name, struct writer_tlog *out);
/* 1 when entry ti published a generation other than *seen. */
int	writer_tconf_changed(struct shm *s, uint32_t ti, uint32_t seen);
/*
 * Save entry ti's (topic name, files made) published settings to
 * topic.config unless already saved, and mark them saved; *seen takes
 * the generation.  0, or -1 (logged; *seen unchanged: retried).
 */
int	writer_tconf_save(struct shm *s, const struct config *c, uint32_t ti,
	    const char *name, uint32_t *seen);

#endif
