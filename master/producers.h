/*
 * Master, at startup: the idempotent producers' sequence records of a
 * fresh shared region, rebuilt from the tail of each partition log.
 */
#ifndef FLUME_MASTER_PRODUCERS_H
#define FLUME_MASTER_PRODUCERS_H

#include <stdint.h>

#include "shm/shm.h"
#include "store/plog.h"

/* Bytes at the end of each log whose batch headers are read back. */
#define PRODUCERS_SCAN_BYTES	(4u << 20)

/*
 * Read the batch headers of roughly the last PRODUCERS_SCAN_BYTES of l
 * and record every idempotent batch among them for partition p (as if it
 * had just been appended; it is already in the log), raising the next
 * producer id above every id seen.  A corrupt range that recovery kept
 * (plog_open) is stepped over: the batches after it are read as well.
 * Runs before any child exists.
 * Returns the number of batches recorded, or -1 with errno (the table
 * then holds what was read before the error, which is still correct).
 */
int	producers_rebuild(struct shm *s, struct shm_partition *p, struct plog *l);

#endif
