/*
 * What every operation shares: the names of its errors.
 */
#include "worker/op/op.h"

static const char *const op_errnames[OP_ERR_MAX] = {
	[OP_OK]			= "no error",
	[OP_INTERNAL]		= "internal error",
	[OP_BAD_REQUEST]	= "bad request",
	[OP_BAD_BATCH]		= "invalid record batch",
	[OP_BAD_COMPRESSION]	= "unsupported compression",
	[OP_CORRUPT_STORED]	= "corrupt data in the log",
	[OP_TOO_LARGE]		= "message too large",
	[OP_BAD_TOPIC_NAME]	= "invalid topic name",
	[OP_RESERVED_TOPIC]	= "reserved topic name",
	[OP_NO_TOPIC]		= "unknown topic or partition",
	[OP_TOPIC_EXISTS]	= "topic exists",
	[OP_BAD_PARTITIONS]	= "invalid partition count",
	[OP_OUT_OF_RANGE]	= "offset out of range",
	[OP_STORAGE]		= "storage error",
	[OP_TIMEOUT]		= "timed out",
	[OP_SHUTTING_DOWN]	= "shutting down",
	[OP_NO_ROOM]		= "no room in the shared tables",
	[OP_NO_MEMORY]		= "request memory limit",
	[OP_DUPLICATE_SEQUENCE]	= "duplicate sequence",
	[OP_OUT_OF_ORDER_SEQUENCE] = "out of order sequence",
	[OP_FENCED_PRODUCER]	= "fenced or unknown producer",
	[OP_BAD_GROUP]		= "invalid group name",
	[OP_UNKNOWN_MEMBER]	= "unknown member",
	[OP_STALE_GENERATION]	= "stale generation",
	[OP_REBALANCING]	= "rebalance in progress",
	[OP_BAD_SESSION_TIMEOUT] = "invalid session timeout",
	[OP_GROUP_NOT_EMPTY]	= "group not empty",
	[OP_GROUP_KIND]		= "group of another protocol",
	[OP_AUTH_REQUIRED]	= "authentication required",
	[OP_DENIED_TOPIC]	= "access denied on topic",
	[OP_DENIED_GROUP]	= "access denied on group",
	[OP_DENIED_CLUSTER]	= "access denied on the broker",
	[OP_BAD_CONFIG]		= "invalid topic setting",
	[OP_BAD_TIMESTAMP]	= "record timestamp out of bounds",
	[OP_NO_GROUP]		= "no such group",
	[OP_GROUP_SUBSCRIBED]	= "the group's members consume the topic",
	[OP_SECURITY_DISABLED]	= "no auth_file: security is off",
	[OP_POLICY]		= "the topic's cleanup.policy forbids it",
	[OP_KEYLESS]		= "compacted topic requires keyed records",
	[OP_PRODUCERS_FULL]	= "every producer slot of the partition holds an open transaction",
	[OP_TXN_CONCURRENT]	= "a transaction is being completed",
	[OP_TXN_BAD_STATE]	= "invalid transaction state",
	[OP_TXN_BAD_MAPPING]	= "producer id not the transaction's",
	[OP_TXN_BAD_TIMEOUT]	= "invalid transaction timeout",
	[OP_TXN_FENCED]		= "producer fenced",
	[OP_TXN_EPOCH]		= "producer epoch fenced",
	[OP_TXN_NOT_FOUND]	= "no such transactional id",
	[OP_TXN_NOT_ATTEMPTED]	= "not attempted",
	[OP_TXN_UNSTABLE]	= "offset pending in a transaction",
	[OP_CONTROL_BATCH]	= "control batches are the broker's",
};

const char *
op_strerror(enum op_err e)
{
	if ((unsigned)e >= OP_ERR_MAX || op_errnames[e] == NULL)
		return "unknown error";
	return op_errnames[e];
}
