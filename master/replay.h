/*
 * Reading an internal topic's partition back at start-up, record by
 * record (master/coffsets.c, master/txnstate.c): every whole batch of
 * the log from its start to its end, in offset order.  Only the broker
 * appends to these topics, so anything that does not decode is counted
 * and skipped, never trusted.
 */
#ifndef FLUME_MASTER_REPLAY_H
#define FLUME_MASTER_REPLAY_H

#include <stdint.h>

#include "proto/batch.h"
#include "store/plog.h"

/*
 * Call rec(arg, record) for every record of l; *bad counts the batches
 * that fail validation or iteration.  0, or -1 with errno (a read).
 */
int	replay_log(struct plog *l, void (*rec)(void *, const struct record *),
	    void *arg, uint64_t *bad);

#endif
