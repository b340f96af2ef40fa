/*
 * Settings that change without a restart, the children's side.  On
 * SIGHUP the master publishes the reloadable settings in the shared
 * region's live block (master/live.c) and wakes every child; each child
 * calls live_refresh() from its loop and copies a new generation into its
 * own configuration (its private copy since fork).
 */
#ifndef FLUME_COMMON_LIVE_H
#define FLUME_COMMON_LIVE_H

#include "common/config.h"
#include "shm/shm.h"

/*
 * If the master published a generation this process has not applied,
 * copy it into c (this process's configuration) and set the log level.
 * 1 when something was applied, 0 otherwise (nothing new, or the block
 * was being written: try again).
 */
int	live_refresh(struct shm *s, struct config *c);

#endif
