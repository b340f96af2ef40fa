/*
 * Settings that change without a restart.  On SIGHUP the master re-reads
 * its configuration file (live_reload); an invalid file is logged and
 * changes nothing.  The changed settings that can be applied live are
 * copied into the master's configuration and published in the shared
 * region's live block (struct shm_live, a seqlock), and every child is
 * woken (they apply it with live_refresh, common/live.h); the others
 * are named in the log as needing a restart.  Which settings reload is
 * the reload column of the key table in master/config.c.
 */
#ifndef FLUME_MASTER_LIVE_H
#define FLUME_MASTER_LIVE_H

#include "common/broker.h"
#include "master/config.h"
#include "shm/shm.h"

/*
 * Master, once after config_load: remember the file's settings as read,
 * so a reload compares file to file (the master adjusts some of its
 * values, e.g. makes data_dir absolute or applies -v).  0 or -1 (ENOMEM).
 */
int	live_init(const struct config *as_read);
void	live_fini(void);

/*
 * Master, on SIGHUP: re-read b->conf->path; apply what can be applied to
 * the master's configuration (b->conf), publish it to b's region and wake
 * the children; log what changed and what needs a restart.  Returns the
 * number of settings applied, or -1 when the file is invalid (logged;
 * nothing changed).
 */
int	live_reload(struct broker *b);
/*
 * Master: read the auth_file again and publish it (SIGHUP, and SIGUSR1,
 * which a worker sends after it changed the file: worker/op/acl.c);
 * with wake, wake every child when it changed.  auth_reload()'s answer.
 */
int	live_reload_users(struct broker *b, int wake);

/* Master: write c's reloadable settings into s's live block (new generation). */
void	live_publish(struct shm *s, const struct config *c);

#endif
