/*
 * A group's committed offsets (shm/group.h: one 8-byte slot per
 * partition, saved by the writer): commit by a member of the native
 * kind, fetch, and the reset of a group without members (to the log's
 * start, its end, an offset or a time).
 *
 * With an auth_file: read on the group to commit, describe to fetch,
 * delete on the group and admin on the topic to reset; each partition
 * committed or fetched needs consume on its topic, and a listing of
 * every committed offset shows only those topics.
 */
#ifndef FLUME_WORKER_OP_GROUP_OFFSETS_H
#define FLUME_WORKER_OP_GROUP_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/group.h"
#include "worker/op/op.h"

/* One partition's committed offset, asked (topic, partition) and answered. */
struct op_group_offset {
	const char	*topic;
	size_t		 topic_len;
	int32_t		 partition;
	enum op_err	 err;		/* answered: OP_OK, OP_DENIED_TOPIC, OP_NO_TOPIC ... */
	int64_t		 offset;	/* committed; -1: nothing */
};

struct op_commit_args {
	const char		*group;
	size_t			 group_len;
	const char		*member_id;
	size_t			 member_id_len;
	int32_t			 generation;
	int32_t			 nparts;
	struct op_group_offset	*parts;	/* offset: what to store; err: answered */
};

/*
 * Store a.parts' offsets for a member of a.group's generation (one that
 * has not rejoined a rebalance yet: only the partitions it owned).  As
 * a whole: OP_OK (then per partition: OP_OK, OP_DENIED_TOPIC,
 * OP_NO_TOPIC, OP_STALE_GENERATION), OP_BAD_GROUP, OP_DENIED_GROUP,
 * OP_UNKNOWN_MEMBER, OP_STALE_GENERATION, OP_REBALANCING, OP_INTERNAL.
 * Below 0 is stored as given and reads as nothing (Kafka's rule).
 */
enum op_err op_group_commit(const struct op_ctx *x,
	    const struct op_commit_args *a);
/*
 * The committed offsets of parts[0..n) in group (-1 for a group that
 * does not exist): OP_OK (each part's err and offset set),
 * OP_BAD_GROUP or OP_DENIED_GROUP.
 */
enum op_err op_group_offsets(const struct op_ctx *x, const char *group,
	    size_t glen, struct op_group_offset *parts, int32_t n);
/*
 * Every committed offset of group the user may read, in request memory
 * (topic names point at the shared topic table): OP_OK, OP_BAD_GROUP,
 * OP_DENIED_GROUP or OP_NO_MEMORY.
 */
enum op_err op_group_committed(const struct op_ctx *x, const char *group,
	    size_t glen, struct op_group_offset **parts, int32_t *n);

enum op_reset_mode {
	OP_RESET_TO_OFFSET = 0,	/* value, within the log */
	OP_RESET_TO_EARLIEST,
	OP_RESET_TO_LATEST,
	OP_RESET_TO_TIME	/* the first record at or after value (epoch ms) */
};

struct op_reset_args {
	const char		*group;
	size_t			 group_len;
	const char		*topic;
	size_t			 topic_len;
	int32_t			 partition;	/* -1: every partition of topic */
	int			 mode;		/* enum op_reset_mode; others: OP_BAD_REQUEST */
	int64_t			 value;
};

struct op_reset_result {
	int32_t			 partition;
	enum op_err		 err;		/* OP_OK or OP_NO_TOPIC */
	int64_t			 offset;	/* where it was set */
};

/*
 * Set the committed offsets of a.topic's partitions in a.group, created
 * if missing, as long as it has no members (a member would overwrite
 * them with its next commit): results in request memory.  OP_OK,
 * OP_BAD_GROUP, OP_DENIED_GROUP, OP_DENIED_TOPIC, OP_NO_TOPIC,
 * OP_BAD_REQUEST, OP_STORAGE (a time lookup), OP_NO_ROOM, OP_NO_MEMORY,
 * OP_GROUP_NOT_EMPTY, OP_INTERNAL.
 */
enum op_err op_group_reset(const struct op_ctx *x,
	    const struct op_reset_args *a, struct op_reset_result **res,
	    int32_t *n);

/*
 * Delete group's committed offsets of parts[0..n) (Kafka's OffsetDelete,
 * the native OFFSET_DELETE).  As a whole: OP_OK, then per part: OP_OK
 * (deleted, or none was committed; offset: what was), OP_DENIED_TOPIC,
 * OP_NO_TOPIC, or OP_GROUP_SUBSCRIBED when the group has members and
 * its generation subscribes the topic (they would commit it again);
 * else OP_BAD_GROUP (an invalid name), OP_DENIED_GROUP, OP_NO_GROUP
 * (none of that name) or OP_GROUP_NOT_EMPTY (members of a Kafka
 * protocol that says nothing of topics, as Kafka refuses them).  Needs
 * delete on the group and consume on each topic, as Kafka asks DELETE
 * and READ.  The writer saves the group without them (its file follows
 * within WG_SAVE_MS, as for a commit).
 */
enum op_err op_group_offset_delete(const struct op_ctx *x, const char *group,
	    size_t glen, struct op_group_offset *parts, int32_t n);

#endif
