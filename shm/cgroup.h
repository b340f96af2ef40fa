/*
 * Kafka's consumer group protocol (KIP-848) over the shared groups table
 * (shm/group.h): a group of kind GROUP_KIND_CONSUMER.  The broker
 * assigns; members only heartbeat (ConsumerGroupHeartbeat).
 *
 * Epochs.  The group epoch (the group's generation field) grows with
 * every change of membership, of a member's subscription or assignor,
 * or of the subscribed topics (a topic created, deleted or grown: the
 * group keeps a hash of what it computed on).  The target assignment is
 * computed for the whole group when the group epoch passed the
 * assignment epoch (cg_assign_epoch), by the "uniform" assignor (sticky:
 * a member keeps what it had up to its share; shares differ by at most
 * one among members of the same subscription) or "range" (per topic,
 * consecutive ranges over the subscribed members sorted by id).  A
 * member's epoch reaches the assignment epoch when it owns nothing that
 * the target takes from it.
 *
 * Revoke, then assign.  Each member has three lists in its assignment
 * space (group_assign(), max_group_member_metadata bytes): assigned
 * (what it may consume, which its heartbeat answer carries), revoking
 * (what it must give up) and target.  When its target drops partitions
 * it holds, they move to revoking and its epoch stays; once a heartbeat
 * lists owned partitions without any of them (or its rebalance timeout
 * passes, which removes it), they are released.  A partition of a
 * member's target is added to its assigned list only while no other
 * member has it assigned or revoking: no partition is ever in two
 * members' lists.  A member that keeps a partition is never asked to
 * give it up.
 *
 * Subscriptions are topic names and/or a regular expression (POSIX ERE,
 * regcomp(3), matched against the whole name: an approximation of
 * Kafka's RE2/J), kept in the member's metadata space.
 *
 * The crash rule: member slots are filled before they are published;
 * a repaired group (its lock holder died) drops member slots that do
 * not check out and bumps the group epoch, which is always valid: every
 * target is computed again and members reconcile against it.
 */
#ifndef FLUME_SHM_CGROUP_H
#define FLUME_SHM_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "shm/group.h"

enum { CG_ASSIGNOR_NONE = 0, CG_ASSIGNOR_UNIFORM = 1, CG_ASSIGNOR_RANGE = 2 };

#define CG_REGEX_MAX	255	/* a subscribed_topic_regex's bytes */
#define CG_NAMES_MAX	GROUP_TOPICS_MAX * 4	/* subscribed topic names */

/* A topic partition by topic index (shm topics) and partition number. */
struct cg_tp {
	uint32_t	topic;
	int32_t		partition;
};

/* Which of a member's lists. */
enum { CG_ASSIGNED = 0, CG_REVOKING = 1, CG_TARGET = 2 };

struct cgroup_hb_in {
	const char	*member_id;	/* "" with epoch 0: the broker makes one */
	size_t		 member_id_len;
	int32_t		 epoch;		/* 0 join, -1 leave, -2 static leave */
	const char	*instance;	/* NULL: none given */
	size_t		 instance_len;
	const char	*client_id;
	size_t		 client_id_len;
	const char	*host;
	size_t		 host_len;
	int32_t		 rebalance_timeout_ms;	/* -1: unchanged */
	/* Subscribed topic names; names_set 0: unchanged (null). */
	int		 names_set;
	const char *const *names;
	const size_t	*name_lens;
	uint32_t	 nnames;
	const char	*regex;		/* NULL: unchanged */
	size_t		 regex_len;
	uint32_t	 assignor;	/* CG_ASSIGNOR_*, NONE: unchanged */
	/* Owned partitions (topic ids resolved); owned_set 0: unchanged. */
	int		 owned_set;
	const struct cg_tp *owned;
	uint32_t	 nowned;
};

/*
 * A ConsumerGroupHeartbeat: a Kafka error code; *member the member's
 * index (its epoch and assigned list are the answer) when NONE.  The
 * caller checked the request's shape (INVALID_REQUEST) and the assignor
 * name; a member id the broker makes is written into the slot.
 */
int16_t	cgroup_heartbeat(struct shm *s, struct shm_group *g,
	    const struct cgroup_hb_in *in, int64_t now,
	    const struct group_params *gp, int *member);
/* List which of member i into out (at most cap); how many it holds. */
uint32_t cgroup_list(const struct shm *s, struct shm_group *g, uint32_t i,
	    int which, struct cg_tp *out, uint32_t cap);
/* Member i's subscription: its regex (NULL: none) and names. */
int	cgroup_subscription(const struct shm *s, struct shm_group *g,
	    uint32_t i, const char **regex, size_t *rlen,
	    const char **names, size_t *lens, uint32_t cap, uint32_t *n);
/*
 * May (id, epoch) commit offsets?  Epoch < 0 without a member id only
 * into a group without members; else the member must exist
 * (UNKNOWN_MEMBER_ID) at that epoch (STALE_MEMBER_EPOCH).
 */
int16_t	cgroup_commit_check(struct shm *s, struct shm_group *g,
	    const char *id, size_t len, int32_t epoch, int64_t now,
	    const struct group_params *gp);
/*
 * May (id, epoch) fetch the group's offsets (OffsetFetch v9, Kafka's
 * ConsumerGroup.validateOffsetFetch)?  A null id (NULL) with epoch < 0,
 * as admin clients send, is never checked; else the member must exist
 * (UNKNOWN_MEMBER_ID) at that epoch (STALE_MEMBER_EPOCH).
 */
int16_t	cgroup_fetch_check(struct shm *s, struct shm_group *g,
	    const char *id, size_t len, int32_t epoch, int64_t now,
	    const struct group_params *gp);
/* Does a member of g subscribe to topic (index)?  1 or 0. */
int	cgroup_subscribes(const struct shm *s, struct shm_group *g,
	    uint32_t topic);
/* "uniform" / "range" to CG_ASSIGNOR_*, NONE when unknown. */
uint32_t cgroup_assignor(const char *name, size_t len);
const char *cgroup_assignor_name(uint32_t a);
/* Does a regex compile (POSIX ERE)?  1 or 0. */
int	cgroup_regex_valid(const char *re, size_t len);
/* The group's state name as Kafka's: Empty, Assigning, Reconciling, Stable. */
const char *cgroup_state_name(const struct shm *s, struct shm_group *g);

/*
 * For shm/group.c: group_due() of member i (the ms after its revocation
 * deadline while it revokes, else INT64_MAX), group_tick() and the
 * repair of a consumer group.
 */
int64_t	cgroup_revoke_due(const struct shm *s, struct shm_group *g,
	    uint32_t i);
int	cgroup_tick(struct shm *s, struct shm_group *g, int64_t now,
	    const struct group_params *gp);
void	cgroup_repair(struct shm *s, struct shm_group *g, int64_t now,
	    const struct group_params *gp);

#endif
