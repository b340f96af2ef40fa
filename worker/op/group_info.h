/*
 * Looking at groups and deleting one (worker/op/): the listing of every
 * group, the description of one (its members, their partitions, its
 * committed offsets and their partitions' log ends), and the delete of
 * a group without members.
 *
 * With an auth_file: a listing shows only the groups the user may
 * describe, a description needs describe on the group and shows only
 * the topics the user may consume; a delete needs delete on the group.
 */
#ifndef FLUME_WORKER_OP_GROUP_INFO_H
#define FLUME_WORKER_OP_GROUP_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "proto/names.h"
#include "worker/op/group.h"
#include "worker/op/op.h"

#define OP_GROUP_PTYPE_MAX	64	/* KGROUP_PROTO_MAX (shm/group.h) */

struct op_group_listing {
	const char	*name;		/* the shared table's: names never change */
	size_t		 name_len;
	uint32_t	 state;		/* enum group_state (shm/group.h) */
	uint32_t	 kind;		/* GROUP_KIND_* */
	int32_t		 generation;
	int32_t		 members;
	size_t		 ptype_len;	/* a Kafka group's protocol type */
	char		 ptype[OP_GROUP_PTYPE_MAX + 1];
};

/* Every group the user may describe, in request memory: OP_OK or OP_NO_MEMORY. */
enum op_err op_group_list(const struct op_ctx *x,
	    struct op_group_listing **groups, uint32_t *n);

struct op_member_desc {
	const char		*id;		/* copies */
	size_t			 id_len;
	const char		*client;
	size_t			 client_len;
	int32_t			 session_timeout_ms;
	int32_t			 nparts;	/* its partitions the user may consume */
	struct op_group_tp	*parts;
	/*
	 * A Kafka consumer's member: the leader's assignment for it (a copy,
	 * in the consumer protocol's bytes), NULL when there is none.  The
	 * face reads it and adds each partition with op_group_desc_assigned().
	 */
	const uint8_t		*assign;
	size_t			 assign_len;
	int32_t			 seen;		/* partitions added so far */
	/*
	 * Its epoch: a consumer protocol member's member epoch, else the
	 * generation it last joined.  Its static instance id ("" for none).
	 * A consumer protocol member's revoking and target lists (the
	 * topics the user may consume), none for the other kinds.
	 */
	int32_t			 epoch;
	const char		*instance;
	size_t			 instance_len;
	int32_t			 nrevoking;
	struct op_group_tp	*revoking;
	int32_t			 ntarget;
	struct op_group_tp	*target;
};

struct op_offset_desc {
	const char	*topic;
	size_t		 topic_len;
	int32_t		 partition;
	int64_t		 committed;	/* -1: nothing */
	int64_t		 log_end;
};

struct op_group_desc {
	uint32_t		 state;		/* enum group_state */
	uint32_t		 kind;		/* GROUP_KIND_* */
	int32_t			 generation;	/* a consumer group's group epoch */
	int32_t			 assign_epoch;	/* its target's epoch; -1 other kinds */
	int32_t			 nmembers;
	struct op_member_desc	*members;
	int32_t			 noffsets;	/* committed or subscribed partitions */
	struct op_offset_desc	*offsets;
	int32_t			 cap;		/* room of each member's parts */
};

/*
 * Describe group into d (request memory): OP_OK, OP_BAD_GROUP (invalid
 * or no such group), OP_DENIED_GROUP, OP_NO_MEMORY or OP_INTERNAL.
 */
enum op_err op_group_describe(const struct op_ctx *x, const char *group,
	    size_t glen, struct op_group_desc *d);
/*
 * Add (topic, partition) of m's assignment to m's partitions, unless the
 * topic does not exist or the user may not consume it.  0, or 1 when m
 * has as many as the broker has partitions (stop).
 */
int	op_group_desc_assigned(const struct op_ctx *x,
	    const struct op_group_desc *d, struct op_member_desc *m,
	    const char *topic, size_t len, int32_t partition);

/*
 * Delete group: its committed offsets and its slot (the writer removes
 * its file).  OP_OK, OP_DENIED_GROUP (whether or not it exists),
 * OP_BAD_GROUP (an invalid name), OP_NO_GROUP (none of that name),
 * OP_GROUP_NOT_EMPTY (it has members) or OP_INTERNAL.  Kafka's
 * DeleteGroups and the native GROUP_DELETE.
 */
enum op_err op_group_delete(const struct op_ctx *x, const char *group,
	    size_t glen);

#endif
