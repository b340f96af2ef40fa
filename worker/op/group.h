/*
 * Consumer groups for the operations (worker/op/): access to the shared
 * group table (shm/group.h) that both faces share.  Every operation on
 * a group takes its robust lock for a few loads and stores
 * (op_group_lock() logs a repair when the previous holder died) and
 * wakes every other worker that parked requests when the group's state
 * or generation moved (op_group_unlock()), so a request waiting for a
 * rebalance in another worker is answered as soon as it completes.
 *
 * The operations themselves: worker/op/group_member.h (membership of
 * the native kind), worker/op/group_offsets.h (committed offsets and
 * their reset), worker/op/group_info.h (listing, describing, deleting).
 * They assume a group table (max_groups > 0): each face answers its
 * own way when there is none.
 */
#ifndef FLUME_WORKER_OP_GROUP_H
#define FLUME_WORKER_OP_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct group_params;
struct shm_group;

/* A (topic, partition) pair; topic points at the shared topic table. */
struct op_group_tp {
	const char	*topic;
	size_t		 topic_len;
	int32_t		 partition;
};

/* The group settings of flume.conf, for the shm/group.h calls. */
void	op_group_params(const struct worker *w, struct group_params *gp);
/*
 * Wake every other worker that parked requests: a group's state or
 * generation changed, and one of them may hold a request waiting for it.
 */
void	op_group_wake_all(struct worker *w);
/* Lock group gidx (logging a repair); NULL on failure or if it was deleted. */
struct shm_group *op_group_lock(struct worker *w, int gidx,
	    const struct group_params *gp, uint32_t *state0, uint32_t *gen0);
/*
 * op_group_lock(), and NULL unless the slot still holds group name: a
 * slot deleted and reused since the lookup holds another group.
 */
struct shm_group *op_group_lock_name(struct worker *w, int gidx,
	    const char *name, size_t len, const struct group_params *gp,
	    uint32_t *state0, uint32_t *gen0);
/* Unlock; wake the other workers if the state or generation moved. */
void	op_group_unlock(struct worker *w, struct shm_group *g, uint32_t state0,
	    uint32_t gen0);
/* The (topic, partition) of a partition slot; 0 or -1. */
int	op_group_slot_tp(struct worker *w, uint32_t slot,
	    struct op_group_tp *tp);
/* Topic and partition to a partition slot: OP_OK or OP_NO_TOPIC. */
enum op_err op_group_part(struct worker *w, const char *topic, size_t len,
	    int32_t partition, uint32_t *slot);
/*
 * The group of that name into *gidx: OP_OK, OP_BAD_GROUP (not a valid
 * name) or, when there is none, absent (OP_UNKNOWN_MEMBER for a member's
 * request, OP_BAD_GROUP for a look at it: the caller says which).
 */
enum op_err op_group_find(struct worker *w, const char *name, size_t len,
	    enum op_err absent, int *gidx);
/*
 * The group of that name, created EMPTY if missing (join: for a member,
 * which may take the slots kept for members; else for commits alone).
 * OP_OK, OP_BAD_GROUP, OP_NO_ROOM (logged when it is for want of a slot
 * kept free, join 0) or OP_INTERNAL.
 */
enum op_err op_group_create(struct worker *w, const char *name, size_t len,
	    int join, int *gidx);
/*
 * The operation error for a result of the shared group table (shm/group.h
 * answers the native protocol's codes: ERR_UNKNOWN_MEMBER, ...).
 */
enum op_err op_group_err(int16_t shm_error);

#endif
