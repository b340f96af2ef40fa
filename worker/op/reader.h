/*
 * The worker's readers of partition logs (store/plog.h), one per
 * partition slot, opened on first use and kept: fetch and the time
 * lookups read through them.  A reader opened before its topic was
 * deleted (the slot's incarnation changed, shm/shm.h) is closed and
 * opened again on the new topic's files, never read again.
 */
#ifndef FLUME_WORKER_OP_READER_H
#define FLUME_WORKER_OP_READER_H

struct worker;
struct plog_reader;
struct shm_partition;

/* Make room for the worker's readers (none open yet); 0 or -1. */
int	op_reader_init(struct worker *w);
/* Close every reader and free the cache. */
void	op_reader_fini(struct worker *w);
/*
 * The reader of p's log, opened now if need be; NULL with errno (ENOENT:
 * nothing stored yet, which is no error).
 */
struct plog_reader *op_reader(struct worker *w, struct shm_partition *p);

#endif
