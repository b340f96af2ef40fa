/*
 * Settings that change without a restart.  On SIGHUP the master re-reads
 * its configuration file (live_reload); an invalid file is logged and
 * changes nothing.  The changed settings that can be applied live are
 * copied into the master's configuration and published in the shared
 * region's live block (struct shm_live, a seqlock), and every child is
 * woken; the others are named in the log as needing a restart.  Each
 * child calls live_refresh() from its loop and copies a new generation
 * into its own configuration (its private copy since fork).
 *
 * Reloadable: log_level, retention_ms, retention_bytes (for topics
 * without a [topic] section), retention_check_ms, flush_interval_ms,
 * flush_messages, max_connections, max_message_bytes, idle_timeout_ms,
 * request_timeout_ms, auto_create_topics.
 */
#ifndef FLUME_MASTER_LIVE_H
#define FLUME_MASTER_LIVE_H

#include "master/broker.h"
#include "master/config.h"
#include "shm/shm.h"

/* 1 if key (a flume.conf key name) can change without a restart. */
int	live_key_reloadable(const char *key);

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

/* Master: write c's reloadable settings into s's live block (new generation). */
void	live_publish(struct shm *s, const struct config *c);

/*
 * Child: if the master published a generation this process has not
 * applied, copy it into c (the child's private copy of the
 * configuration) and set the log level.  1 when something was applied,
 * 0 otherwise (nothing new, or the block was being written: try again).
 */
int	live_refresh(struct shm *s, const struct config *c);

#endif
