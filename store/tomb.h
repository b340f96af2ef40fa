/*
 * Removing a deleted topic's files crash-safely.  The writer first
 * renames the topic's directory to a tombstone in the data directory,
 * "<data_dir>/.deleted-<topic>~<n>", and syncs the data directory; from
 * then on the topic is gone for start-up recovery, whatever happens to
 * the files.  The tombstone is then removed, and start-up recovery
 * removes any it finds (a delete cut short by a crash).  '~' is not
 * allowed in topic names, so no tombstone is ever taken for a topic.
 */
#ifndef FLUME_STORE_TOMB_H
#define FLUME_STORE_TOMB_H

#include <stddef.h>
#include <stdint.h>

/* 1 if a data directory entry of that name is a tombstone. */
int	tomb_is(const char *name);
/*
 * Rename <data_dir>/<topic> to a tombstone numbered n and sync data_dir;
 * the tombstone's path in buf.  0, or -1 with errno (ENOENT: the topic
 * has no directory, nothing to do).
 */
int	tomb_bury(const char *data_dir, const char *topic, uint64_t n,
	    char *buf, size_t size);
/*
 * Remove every tombstone under data_dir (depth-first, never following a
 * symbolic link) and sync data_dir when one was removed; *removed counts
 * them.  0, or -1 with errno of the first failure (the rest are tried).
 */
int	tomb_sweep(const char *data_dir, int *removed);

#endif
