/*
 * __transaction_state at start-up (issue 29): master/recovery.c makes
 * the topic at the first start (transaction_state_log_num_partitions,
 * compacted) and replays each partition into the region's transaction
 * table (shm/txn.h): the latest record per transactional id wins, a
 * tombstone forgets it.  Entries come back as logged and durable; a
 * Prepare* is then completed by the writer (its markers appended again,
 * harmlessly), an Ongoing one aborted at its timeout, as Kafka's
 * TransactionStateManager does when it loads a partition.
 */
#ifndef FLUME_MASTER_TXNSTATE_H
#define FLUME_MASTER_TXNSTATE_H

#include <stdint.h>

#include "common/config.h"
#include "shm/shm.h"
#include "store/plog.h"

struct txnstate_replay {
	uint64_t	records;
	uint64_t	tombstones;
	uint64_t	bad;		/* records that do not decode */
	uint64_t	dropped;	/* over max_transactions */
};

/* Partitions of __transaction_state: its topic.meta's, or the configured. */
int32_t	txnstate_partitions(const struct config *conf);
/* Master: replay the log l (a partition of the topic) into s.  0 or -1. */
int	txnstate_replay(struct shm *s, struct plog *l, struct txnstate_replay *r);
/* After every partition: Dead entries freed, fences turned into aborts. */
void	txnstate_replay_end(struct shm *s);

#endif
