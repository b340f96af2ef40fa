/*
 * The protocol-neutral operations of a worker (worker/op/): what a
 * request does to shared memory and the log, whichever protocol asked.
 * The two faces (worker/native/, worker/kafka/) decode their protocol,
 * fill an operation's arguments, call it, and encode its results in
 * their own answer with their own error codes.
 *
 * An operation never sees an API key, a frame, a connection or a
 * protocol header: what it needs of the request's origin is the
 * context below (who asks, from where, how the face names the request
 * in logs, and where its per-request memory comes from).  It answers
 * with an enum op_err named for what happened; each face maps it with
 * one table (worker/native/errors.c, worker/kafka/errors.c).
 *
 * An operation that must wait returns OP_WAIT (a condition: data,
 * durability, a rebalance, the writer) or OP_BLOCKED (ring space: call
 * it again before anything later of the connection runs); its state
 * lives in the caller's request memory and its poll function is called
 * after every wake-up and at the deadline it set.
 */
#ifndef FLUME_WORKER_OP_OP_H
#define FLUME_WORKER_OP_OP_H

#include <stddef.h>
#include <stdint.h>

struct worker;
struct auth_session;

enum op_status {
	OP_DONE = 0,		/* finished; results are final */
	OP_WAIT,		/* call its poll after a wake-up or at the deadline */
	OP_BLOCKED		/* call it again (ring full); holds later requests */
};

enum op_err {
	OP_OK = 0,
	OP_INTERNAL,		/* unexpected broker-side failure (logged) */
	OP_BAD_REQUEST,		/* a value the operation cannot take */
	OP_BAD_BATCH,		/* a produced batch fails validation */
	OP_BAD_COMPRESSION,	/* a produced batch's codec is not built in */
	OP_CORRUPT_STORED,	/* the log holds damage at the offset read */
	OP_TOO_LARGE,		/* over max_message_bytes or an inflate limit */
	OP_BAD_TOPIC_NAME,	/* not a valid topic name */
	OP_RESERVED_TOPIC,	/* a reserved name (store/topic.h) */
	OP_NO_TOPIC,		/* no such topic or partition (or deleted) */
	OP_TOPIC_EXISTS,
	OP_BAD_PARTITIONS,	/* a partition count out of range */
	OP_OUT_OF_RANGE,	/* an offset outside the log */
	OP_STORAGE,		/* disk full or I/O error */
	OP_TIMEOUT,
	OP_SHUTTING_DOWN,	/* the worker is stopping: retry */
	OP_NO_ROOM,		/* the shared tables are full */
	OP_NO_MEMORY,		/* the request's memory limit */
	OP_DUPLICATE_SEQUENCE,	/* an idempotent resend too old to answer */
	OP_OUT_OF_ORDER_SEQUENCE,
	OP_FENCED_PRODUCER,	/* unknown producer id or stale epoch */
	OP_BAD_GROUP,		/* not a valid group name */
	OP_UNKNOWN_MEMBER,
	OP_STALE_GENERATION,
	OP_REBALANCING,
	OP_BAD_SESSION_TIMEOUT,
	OP_GROUP_NOT_EMPTY,	/* needs a group without members */
	OP_GROUP_KIND,		/* the group is of the other protocol */
	OP_AUTH_REQUIRED,	/* authenticate first */
	OP_DENIED_TOPIC,	/* the user may not do this on the topic */
	OP_DENIED_GROUP,	/* ... on the group */
	OP_DENIED_CLUSTER,	/* ... on the broker */
	OP_BAD_CONFIG,		/* a topic setting that is unknown or invalid */
	OP_BAD_TIMESTAMP,	/* a record timestamp outside the topic's bounds */
	OP_NO_GROUP,		/* no group of that (valid) name */
	OP_GROUP_SUBSCRIBED,	/* the group's members consume that topic */
	OP_SECURITY_DISABLED,	/* no auth_file: no users or permissions to change */
	OP_POLICY,		/* the topic's settings forbid it (cleanup.policy) */
	OP_KEYLESS,		/* a record without a key to a compacted topic */
	OP_PRODUCERS_FULL,	/* every producer slot of the partition holds an
				   open transaction: retry */
	/* Transactions (worker/op/txn.h, issue 29). */
	OP_TXN_CONCURRENT,	/* a Prepare* is being completed: retry */
	OP_TXN_BAD_STATE,	/* not allowed in the transaction's state */
	OP_TXN_BAD_MAPPING,	/* the producer id is not the transaction's */
	OP_TXN_BAD_TIMEOUT,	/* over transaction_max_timeout_ms, or <= 0 */
	OP_TXN_FENCED,		/* a newer epoch holds the transactional id */
	OP_TXN_EPOCH,		/* a produce with an older epoch */
	OP_TXN_NOT_FOUND,	/* no such transactional id */
	OP_TXN_NOT_ATTEMPTED,	/* another part of the request failed */
	OP_TXN_UNSTABLE,	/* an offset is pending in a transaction */
	OP_CONTROL_BATCH,	/* a client sent a control batch */
	OP_ERR_MAX
};

/* Where a request came from, for the operations it calls. */
struct op_ctx {
	struct worker		*w;
	struct auth_session	*auth;	/* who asks (worker/op/access.h) */
	const char		*peer;	/* its address, for logs */
	const char		*api;	/* the request as its face names it, for logs */
	/* Request memory, freed with the request; NULL over its limit. */
	void			*(*alloc)(void *arg, size_t size);
	void			*alloc_arg;
};

/* size bytes of the request's memory, or NULL (then OP_NO_MEMORY). */
static inline void *
op_alloc(const struct op_ctx *x, size_t size)
{
	return x->alloc(x->alloc_arg, size);
}

/* The name of e, for logs and tests ("OP_NO_TOPIC" reads as "no topic"). */
const char *op_strerror(enum op_err e);

#endif
