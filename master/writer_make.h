/*
 * Making a new topic's files: its directory and topic.meta, then each
 * partition's log, every step synced.  On ext4 each of those syncs waits
 * for the journal, and the journal for the data of every file written
 * before it: 320-410 ms measured under a 1 GB/s produce.  While the
 * writer's loop made them, no ring was drained and every producer of
 * every partition stopped; so the writer fills a wmake and hands it to
 * its sync threads (master/writer_sync.h), and takes the opened logs
 * when the job comes back.  Unit tests without the threads run it in line.
 *
 * wmake_run() touches nothing but the job and the files under data_dir:
 * no configuration (the segment settings are copied in) and no log lines
 * (what recovery found is handed back).
 */
#ifndef FLUME_MASTER_WRITER_MAKE_H
#define FLUME_MASTER_WRITER_MAKE_H

#include <limits.h>
#include <stdint.h>

#include "proto/msg.h"
#include "store/plog.h"

struct wmake_part {
	struct plog		*log;	/* NULL if err, or once the writer took it */
	int			 err;	/* why the log could not be opened */
	struct plog_recovery	 rec;	/* what opening it found */
};

struct wmake {
	char		 data_dir[PATH_MAX];
	char		 name[TOPIC_NAME_MAX + 1];
	uint32_t	 ti;		/* the topic's entry */
	int32_t		 partitions;	/* as in memory */
	uint8_t		 id[TOPIC_ID_LEN]; /* the topic's id, as in memory */
	struct plog_config cfg;
	int		 meta_err;	/* 0, or why topic.meta could not be made */
	int32_t		 meta_parts;	/* what a topic.meta found says; 0: written */
	struct wmake_part *parts;	/* [partitions]; only if meta_err is 0 */
};

/* NULL with errno on a failed allocation or a data_dir too long. */
struct wmake *wmake_new(const char *data_dir, const char *name, uint32_t ti,
	    int32_t partitions, const struct plog_config *cfg);
/* Make (or find) topic.meta, then open every partition's log; meta_err. */
int	wmake_run(struct wmake *m);
/* Closes the logs the writer did not take. */
void	wmake_free(struct wmake *m);

/*
 * A grown topic's new files (CreatePartitions), in the writer's loop:
 * the logs of partitions [from, to) opened into logs[to - from] (each
 * directory made and synced), then topic.meta rewritten with count to
 * and its id (temp, sync, rename) and the directories synced.  A crash
 * before the rename leaves the old count and empty partition
 * directories past it, which recovery ignores and the next grow reuses.
 * 0, or -1 with errno, every log closed.
 */
int	wmake_grow(const char *data_dir, const char *name, int32_t from,
	    int32_t to, const uint8_t *id, const struct plog_config *cfg,
	    struct plog **logs);

#endif
