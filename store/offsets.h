/*
 * Committed offsets live in the __consumer_offsets topic (master/
 * coffsets.h).  These files are what brokers before it kept, read once
 * into the topic at the first start with it, and the form a crashed
 * region's offsets are drained to at start-up (a drain child appends
 * no batches of its own); the writer retires the directory once what
 * it held is in the topic and synced (offsets_retire).
 *
 * Committed consumer-group offsets, one small file per group under
 * <data_dir>/flume~offsets/<group>.offsets, replaced atomically:
 * temp file, fsync, rename, fsync the directory.  A torn temp file never
 * replaces a good one; a file that fails its checksum is refused on load.
 */
#ifndef FLUME_STORE_OFFSETS_H
#define FLUME_STORE_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"

/*
 * The directory under data_dir.  '~' is in no topic name (store/topic.h),
 * so no topic a client creates or deletes can be this directory; the old
 * place, __consumer_offsets, was one (store/offsets_migrate.h moves it).
 */
#define OFFSETS_DIR	"flume~offsets"
#define OFFSETS_SUFFIX	".offsets"	/* <group>.offsets */
#define OFFSETS_MIGRATED "flume~offsets.migrated"	/* kept until a clean start */

struct offset_entry {
	char		topic[TOPIC_NAME_MAX + 1];
	int32_t		partition;
	int64_t		offset;
};

/* dir is the OFFSETS_DIR directory (created if missing). 0 or -1. */
int	offsets_save(const char *dir, const char *group,
	    const struct offset_entry *e, size_t n);
/* *e is malloc'ed (free it); a missing file is 0 entries, not an error. */
int	offsets_load(const char *dir, const char *group,
	    struct offset_entry **e, size_t *n);
/* Group names of every saved file (malloc'ed array of malloc'ed names). */
int	offsets_list(const char *dir, char ***groups, size_t *n);
/* Remove a group's file (and sync the directory); no file is 0. */
int	offsets_remove(const char *dir, const char *group);
/* When a group's file was last written (CLOCK_REALTIME ms); 0 or -1 (ENOENT). */
int	offsets_mtime(const char *dir, const char *group, int64_t *ms);

/* Is there an OFFSETS_DIR under data_dir? */
int	offsets_pending(const char *data_dir);
/*
 * Its contents are in the topic: rename OFFSETS_DIR to OFFSETS_MIGRATED
 * (1), or remove it when OFFSETS_MIGRATED is there already (2); 0 when
 * there is none; -1 with errno.  data_dir is synced.
 */
int	offsets_retire(const char *data_dir);
/* A clean start: remove OFFSETS_MIGRATED.  1 removed, 0 none, -1. */
int	offsets_migrated_drop(const char *data_dir);

#endif
