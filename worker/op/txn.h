/*
 * The transaction coordinator's operations (issue 29): Kafka's
 * InitProducerId with a transactional id, AddPartitionsToTxn,
 * AddOffsetsToTxn, EndTxn, TxnOffsetCommit, Describe/ListTransactions,
 * and the checks produce and OffsetFetch make, over the shared table
 * (shm/txn.h).  States and errors follow Kafka's TransactionCoordinator.
 *
 * A change is answered once the writer logged it to __transaction_state
 * and the record is durable (the entry's durable_gen reaches the change's
 * gen): the op returns OP_WAIT and its poll finishes it.  So an EndTxn
 * answered OK means the Prepare* is on disk, and the writer completes it
 * whatever dies afterwards (master/writer_txn.c).
 */
#ifndef FLUME_WORKER_OP_TXN_H
#define FLUME_WORKER_OP_TXN_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct worker;

/* What a change waits for (request memory of the caller). */
struct op_txn_wait {
	int		 idx;		/* entry; -1 nothing to wait for */
	int64_t		 pid;
	uint64_t	 gen;
	int64_t		 deadline;
	enum op_err	 err;		/* the outcome once OP_DONE */
};

/* InitProducerId with a transactional id (not NULL, not empty). */
struct op_txn_init {
	const char	*id;
	size_t		 id_len;
	int32_t		 timeout_ms;
	int64_t		 exp_pid;	/* v3+: the producer's, or -1 */
	int16_t		 exp_epoch;
	int64_t		 pid;		/* results */
	int16_t		 epoch;
	struct op_txn_wait wait;
};
enum op_status op_txn_init(const struct op_ctx *x, struct op_txn_init *a);

/* Who asks, for the calls naming a transaction. */
struct op_txn_who {
	const char	*id;
	size_t		 id_len;
	int64_t		 pid;
	int16_t		 epoch;
};

/* One partition to add (err: its outcome). */
struct op_txn_part {
	const char	*topic;
	size_t		 topic_len;
	int32_t		 partition;
	enum op_err	 err;
};
/*
 * AddPartitionsToTxn: all or nothing.  An unknown partition gets
 * OP_NO_TOPIC and the others OP_TXN_NOT_ATTEMPTED; a transaction-level
 * error goes to every partition and to wait.err.  verify_only (v4+) only
 * checks that each one is in the transaction (OP_TXN_BAD_STATE if not).
 */
enum op_status op_txn_add(const struct op_ctx *x, const struct op_txn_who *who,
	    struct op_txn_part *parts, int32_t n, int verify_only,
	    struct op_txn_wait *wait);
/* AddOffsetsToTxn: group's partition of __consumer_offsets joins. */
enum op_status op_txn_add_group(const struct op_ctx *x,
	    const struct op_txn_who *who, const char *group, size_t glen,
	    struct op_txn_wait *wait);
/* EndTxn. */
enum op_status op_txn_end(const struct op_ctx *x, const struct op_txn_who *who,
	    int commit, struct op_txn_wait *wait);
/* Any of the above: OP_DONE with wait->err, or OP_WAIT. */
enum op_status op_txn_poll(const struct op_ctx *x, struct op_txn_wait *wait);

/* One TxnOffsetCommit offset (err: its outcome). */
struct op_txn_off {
	const char	*topic;
	size_t		 topic_len;
	int32_t		 partition;
	int64_t		 offset;
	enum op_err	 err;
};
/*
 * TxnOffsetCommit: pending until the COMMIT marker.  A transaction-level
 * error goes to wait->err and every offset.  Answered once logged (the
 * offsets ride in the transaction's records, proto/txnlog.h), so a
 * master restart keeps them.  A member (v3+: member id or generation
 * given) is checked as OffsetCommit checks it (KIP-447: a zombie of an
 * older generation is fenced): OP_UNKNOWN_MEMBER, OP_STALE_GENERATION,
 * OP_REBALANCING.  The user needs to read the group.
 */
struct op_txn_member {
	const char	*id;
	size_t		 id_len;
	int32_t		 generation;	/* -1: none */
};
enum op_status op_txn_offsets(const struct op_ctx *x,
	    const struct op_txn_who *who, const char *group, size_t glen,
	    const struct op_txn_member *member, struct op_txn_off *offs,
	    int32_t n, struct op_txn_wait *wait);

/* A transaction as Describe/ListTransactions and flume-admin show it. */
struct op_txn_info {
	char		 id[256];
	size_t		 id_len;
	int64_t		 pid;
	int16_t		 epoch;
	uint32_t	 state;		/* enum txn_state */
	int32_t		 timeout_ms;
	int64_t		 start_ms;	/* -1 none */
	int64_t		 update_ms;
	uint32_t	 nparts_all;	/* partitions in the transaction */
	uint32_t	 nparts;
	struct op_txn_tp {
		const char	*topic;	/* request memory */
		int32_t		 partition;
	}		*parts;
};
/* The transaction of id: OP_OK, OP_TXN_NOT_FOUND, OP_NO_MEMORY. */
enum op_err op_txn_describe(const struct op_ctx *x, const char *id, size_t len,
	    struct op_txn_info *out);
/*
 * Every transaction (without their partitions) whose state is in the
 * states mask (bit per enum txn_state; 0 any), producer id in pids (n 0:
 * any), started more than min_ms ago (-1 any; Kafka's DurationFilter,
 * whatever the state): *out in request memory.
 */
enum op_err op_txn_list(const struct op_ctx *x, uint32_t states,
	    const int64_t *pids, int32_t npids, int64_t min_ms,
	    struct op_txn_info **out, int32_t *nout);

/*
 * Produce: may a transactional batch of (pid, epoch) go to partition
 * slot?  OP_OK, OP_TXN_EPOCH (an older epoch: fenced), OP_TXN_BAD_STATE.
 */
enum op_err op_txn_produce_check(struct worker *w, int64_t pid, int16_t epoch,
	    uint32_t slot);
/* Is recs' first batch transactional?  Its producer id and epoch. */
int	op_txn_batch(const uint8_t *recs, size_t len, int64_t *pid,
	    int16_t *epoch);
/*
 * op_producer_append() of a transactional batch, checked and appended
 * under the transaction table's lock: a transaction that moves to
 * Prepare* (EndTxn, InitProducerId's fence, a timeout; all under that
 * lock) can never get a batch after its marker, which the writer
 * appends under the same lock.  The same returns as op_producer_append.
 */
struct shm_partition;
int	op_txn_append(struct worker *w, struct shm_partition *p, uint32_t inc,
	    const uint8_t *recs, size_t len, int64_t *base, int64_t *next,
	    enum op_err *err);
/*
 * Produce, every batch of recs (validated) for partition slot: a control
 * batch is OP_CONTROL_BATCH (only the broker writes markers), a
 * transactional one must pass op_txn_produce_check().
 */
enum op_err op_txn_batches(struct worker *w, uint32_t slot, const uint8_t *recs,
	    size_t len);
/* OffsetFetch require_stable: does group have a pending offset on slot? */
int	op_txn_unstable(struct worker *w, const char *group, size_t glen,
	    uint32_t slot);

#endif
