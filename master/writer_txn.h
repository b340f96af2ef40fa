/*
 * Transactions, the writer's side (issue 29; shm/txn.h has the table):
 * logs every change of the table to __transaction_state, publishes each
 * entry's durable_gen once its record is durable, completes every
 * Prepare* (a marker to each partition through its ring, then, once they
 * are all durable, a commit's pending offsets into the groups and the
 * state Complete*), aborts Ongoing transactions past their timeout with
 * an epoch bump, and expires idle transactional ids.
 *
 * The crash rule: a Prepare* is answered only once durable, so a writer
 * or master killed at any point finds it again (in the region, or
 * replayed from the topic, master/txnstate.h) and completes it; markers
 * appended twice are harmless (shm/txn.h, the seam with the partitions).
 */
#ifndef FLUME_MASTER_WRITER_TXN_H
#define FLUME_MASTER_WRITER_TXN_H

#include <stdint.h>

#include "common/config.h"
#include "shm/shm.h"

/* One pass; 1 if something a worker may wait for moved. */
int	writer_txn_cycle(struct shm *s, const struct config *conf, int64_t now);
/* When the next pass is due (monotonic ms), INT64_MAX if never. */
int64_t	writer_txn_due(struct shm *s, int64_t now);

#endif
