/*
 * Membership of a group of the native kind (shm/group.h's state machine):
 * join, with its wait for the rebalance, heartbeat and leave.  A member
 * is assigned partitions by the broker (group_assign_rr()), so a join
 * answers with them.  Kafka's members (a leader assigns) are the Kafka
 * face's (shm/kgroup.h).
 *
 * With an auth_file a member needs read on the group, and a join may
 * subscribe only to topics the user may consume: a refused join
 * creates nothing.
 */
#ifndef FLUME_WORKER_OP_GROUP_MEMBER_H
#define FLUME_WORKER_OP_GROUP_MEMBER_H

#include <stddef.h>
#include <stdint.h>

#include "proto/names.h"
#include "worker/op/group.h"
#include "worker/op/op.h"

/* A name from the request (not NUL-terminated). */
struct op_name {
	const char	*s;
	size_t		 len;
};

struct op_join_args {
	const char		*group;
	size_t			 group_len;
	const char		*member_id;	/* empty: a new member */
	size_t			 member_id_len;
	const char		*client_id;
	size_t			 client_id_len;
	int32_t			 session_timeout_ms;
	int32_t			 ntopics;	/* its subscription, at least 1 */
	const struct op_name	*topics;
};

/*
 * A join across its wait, in the caller's request memory (zeroed).  Once
 * done without error: the member's id, its generation and its
 * partitions (topic names point at the shared topic table).
 */
struct op_join {
	int			 gidx;
	int			 member;
	char			 id[MEMBER_ID_MAX + 1];
	size_t			 id_len;
	int64_t			 deadline;	/* OP_WAIT: poll again by then */
	enum op_err		 err;		/* OP_DONE: the outcome */
	int32_t			 generation;
	int32_t			 nparts;
	struct op_group_tp	*parts;
};

/*
 * Join a.group: OP_DONE (st->err: OP_OK, OP_BAD_GROUP, OP_BAD_REQUEST,
 * OP_DENIED_GROUP, OP_DENIED_TOPIC, OP_NO_TOPIC, OP_NO_ROOM,
 * OP_NO_MEMORY, OP_BAD_SESSION_TIMEOUT, OP_GROUP_KIND, OP_INTERNAL ...)
 * or OP_WAIT until the rebalance completes: then op_group_join_poll()
 * after a wake-up or at st->deadline.
 */
enum op_status op_group_join(const struct op_ctx *x,
	    const struct op_join_args *a, struct op_join *st);
/* A waiting join: OP_DONE (also OP_UNKNOWN_MEMBER, OP_SHUTTING_DOWN) or OP_WAIT. */
enum op_status op_group_join_poll(const struct op_ctx *x, struct op_join *st);
/*
 * Member id of group is alive in generation: OP_OK, OP_BAD_GROUP,
 * OP_DENIED_GROUP, OP_UNKNOWN_MEMBER, OP_STALE_GENERATION,
 * OP_REBALANCING (rejoin) or OP_INTERNAL.
 */
enum op_err op_group_heartbeat(const struct op_ctx *x, const char *group,
	    size_t glen, const char *id, size_t id_len, int32_t generation);
/* Member id leaves group: OP_OK, OP_BAD_GROUP, OP_DENIED_GROUP, OP_UNKNOWN_MEMBER ... */
enum op_err op_group_leave(const struct op_ctx *x, const char *group,
	    size_t glen, const char *id, size_t id_len);

#endif
