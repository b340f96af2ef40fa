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
 * The online migration (Kafka's group.consumer.migration.policy, KIP-848).
 * A ConsumerGroupHeartbeat joining a classic group with members upgrades
 * it when the policy allows (cgroup_upgradable()): every classic member
 * stays, as a classic member of the consumer group (KMEMBER_CLASSIC) at
 * member epoch = the classic generation, with its assignment as its
 * assigned and target lists; the group epoch and the assignment epoch
 * are the generation.  Classic members go on with JoinGroup, SyncGroup,
 * Heartbeat and LeaveGroup, answered from the consumer group: JoinGroup
 * reconciles them (their subscription's owned partitions say what they
 * gave up) and answers their member epoch as the generation, SyncGroup
 * their assigned list, Heartbeat REBALANCE_IN_PROGRESS while they are
 * behind the group epoch, must revoke, or wait for partitions now free.
 * When the last member of the consumer protocol leaves (a leave, an
 * expiry) and classic members remain, the group becomes a classic one
 * again if the policy allows, at the group epoch, preparing a rebalance.
 *
 * The crash rule: cg_migrating is stored before any member changes and
 * cleared after the kind; cgroup_migrate_repair() rolls an upgrade back
 * (still classic: members' assignments dropped, the classic repair's
 * rebalance reassigns) and a downgrade forward (it needs no more than
 * the members' protocols, already stored).
 */
enum { CG_POLICY_UPGRADE = 1, CG_POLICY_DOWNGRADE = 2 };
enum { CG_MIGRATE_NONE = 0, CG_MIGRATE_UP = 1, CG_MIGRATE_DOWN = 2 };

/* disabled, upgrade, downgrade, bidirectional (any case): CG_POLICY_* bits, -1. */
int	cgroup_policy(const char *name);

/* A classic member as the face decoded it: its subscription and what it owns. */
struct cg_classic_member {
	uint32_t		 idx;		/* cgroup_upgrade(): the member slot */
	const char *const	*names;
	const size_t		*lens;
	uint32_t		 nnames;
	const struct cg_tp	*owned;
	uint32_t		 nowned;
};

struct kgroup_join_in;

/* May g (a classic group with members) be upgraded now?  1 or 0. */
int	cgroup_upgradable(struct shm *s, struct shm_group *g,
	    const struct group_params *gp);
/*
 * Upgrade: mv one entry per member (all of them); KERR_NONE, or
 * GROUP_ID_NOT_FOUND (Kafka's "not a consumer group") and nothing changed.
 */
int16_t	cgroup_upgrade(struct shm *s, struct shm_group *g,
	    const struct cg_classic_member *mv, uint32_t n, int64_t now,
	    const struct group_params *gp);
/*
 * The classic APIs of a consumer group with members (Kafka's
 * classicGroup*ToConsumerGroup).  JoinGroup: sub its subscription and
 * owned partitions; *member's epoch is the generation to answer.
 */
int16_t	cgroup_classic_join(struct shm *s, struct shm_group *g,
	    const struct kgroup_join_in *in, const struct cg_classic_member *sub,
	    int64_t now, const struct group_params *gp, int *member);
/* ptype, pname: SyncGroup v5's, NULL when not given. */
int16_t	cgroup_classic_sync(struct shm *s, struct shm_group *g, const char *id,
	    size_t len, const char *inst, size_t ilen, int32_t generation,
	    const char *ptype, size_t ptlen, const char *pname, size_t pnlen,
	    int64_t now, const struct group_params *gp, int *member);
int16_t	cgroup_classic_heartbeat(struct shm *s, struct shm_group *g,
	    const char *id, size_t len, const char *inst, size_t ilen,
	    int32_t generation, int64_t now, const struct group_params *gp);
int16_t	cgroup_classic_leave(struct shm *s, struct shm_group *g, const char *id,
	    size_t len, const char *inst, size_t ilen, int64_t now,
	    const struct group_params *gp);
/* A classic member's first protocol: its name and metadata; 0 or -1. */
int	cgroup_classic_protocol(const struct shm *s, struct shm_group *g,
	    uint32_t i, const char **name, size_t *nlen, const uint8_t **meta,
	    size_t *mlen);
/* Is member i a classic member?  1 or 0. */
int	cgroup_is_classic(const struct shm *s, struct shm_group *g, uint32_t i);
/* For shm/group.c: a repair while cg_migrating is set (see above). */
void	cgroup_migrate_repair(struct shm *s, struct shm_group *g, int64_t now,
	    const struct group_params *gp);

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
