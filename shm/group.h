/*
 * Consumer groups in the shared region: a fixed table of max_groups
 * groups, each with max_group_members member slots and one committed
 * offset per partition slot, appended after the rings (shm/shm.h).
 *
 *   struct shm_group_dir                 creation lock, count
 *   { struct shm_group                   lock, name, state, generation, topics
 *     struct shm_member members[max_group_members]
 *     int64_t offsets[max_partitions] }  [max_groups], each 64-byte aligned
 *
 * The state machine (every call below marked "locked" runs under the
 * group's robust lock, taken with group_lock()):
 *
 *   EMPTY --join--> REBALANCING --all members rejoined, or the
 *   rebalance timeout passed (the others are dropped)--> STABLE
 *   STABLE --join of a new member, leave, expiry, subscription or
 *   partition count change, a subscribed topic deleted (even if
 *   created again)--> REBALANCING (generation + 1)
 *
 * A member has joined generation G when its joined_gen is G; the
 * assignment of a STABLE group is a pure function of its generation's
 * members (sorted by id) and the partition counts of its topics, taken
 * when the rebalance completed (group_assign_rr()).  A member that stops
 * heartbeating for its session timeout is removed (group_tick(), run by
 * every operation on the group and by the writer); members waiting in a
 * rebalance they already rejoined are not expired.
 *
 * A member that has not rejoined yet may still commit, while the group
 * is REBALANCING, the partitions it owned in the generation just ended
 * (group_commit_check()): nobody owns them in the new one before it
 * completes, and a member that stops commits what it processed instead
 * of having it delivered again.  Once a newer generation completed, its
 * commits are refused (the partition may have moved on).
 *
 * Slots: a group slot is FREE, USED or DELETED.  group_delete() takes an
 * empty group out of sight (DELETED: no lookup finds it, its offsets are
 * gone); the writer appends its tombstones to __consumer_offsets and
 * frees the slot (group_slot_free()), which group_create() then reuses.
 *
 * The crash rule: a member slot is filled before its state is published
 * and freed by one store; each committed offset is one 8-byte atomic
 * store; a slot's `used` is stored last.  A process that dies holding a group's lock leaves it
 * EOWNERDEAD; group_lock() then repairs it by dropping member slots that
 * do not check out and forcing a rebalance (a new generation), which is
 * always a valid transition: every member simply rejoins.
 */
#ifndef FLUME_SHM_GROUP_H
#define FLUME_SHM_GROUP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"
#include "shm/shm.h"

#define GROUP_TOPICS_MAX	16	/* topics one member (and one group) subscribes */

enum group_state {
	GROUP_EMPTY = GROUP_WIRE_EMPTY,
	GROUP_REBALANCING = GROUP_WIRE_REBALANCING,	/* Kafka: PreparingRebalance */
	GROUP_STABLE = GROUP_WIRE_STABLE,
	GROUP_AWAITING_SYNC = GROUP_WIRE_AWAITING_SYNC	/* Kafka only (shm/kgroup.h) */
};

enum { MEMBER_FREE = 0, MEMBER_ACTIVE = 1 };

/*
 * Who a group belongs to.  A group takes the kind of its first member
 * while it has none; a member of the other kind is refused while it has
 * members (ERR_GROUP_KIND).
 */
enum { GROUP_KIND_NONE = 0, GROUP_KIND_NATIVE = 1, GROUP_KIND_KAFKA = 2,
	GROUP_KIND_CONSUMER = 3 };	/* Kafka's consumer protocol (shm/cgroup.h) */

#define MEMBER_HOST_MAX		63	/* the client's address as the worker saw it */
#define KGROUP_PROTO_MAX	64	/* a Kafka protocol type or protocol name */
#define KMEMBER_JOINING		0x1	/* Kafka: rejoined the rebalance being prepared */
/*
 * A member of a consumer protocol group that speaks the classic protocol
 * (JoinGroup, SyncGroup, Heartbeat: shm/cgroup.h, the online migration).
 * Its metadata space holds its protocols (as a classic member's), then
 * its subscription (as a consumer member's); its assignment space its
 * three lists.
 */
#define KMEMBER_CLASSIC		0x2
/*
 * A Kafka static member's group.instance.id (KIP-345): Kafka's clients
 * refuse longer ones (JoinGroupRequest.validateGroupInstanceId), so do we
 * (INVALID_REQUEST).  instance_len 0: a dynamic member.
 */
#define KGROUP_INSTANCE_MAX	249

struct shm_member {
	_Atomic uint32_t	state;		/* MEMBER_*, published last */
	uint32_t		joined_gen;	/* the generation it last joined */
	int32_t			session_timeout_ms;
	uint16_t		id_len;
	uint16_t		client_len;
	int64_t			last_seen_ms;	/* CLOCK_MONOTONIC ms of its last request */
	uint32_t		ntopics;
	uint32_t		topics[GROUP_TOPICS_MAX];	/* topic indexes */
	char			id[MEMBER_ID_MAX + 1];
	char			client[CLIENT_ID_MAX + 1];
	uint16_t		host_len;
	char			host[MEMBER_HOST_MAX + 1];
	/* Kafka members (shm/kgroup.h); their bytes are in group_meta(). */
	uint32_t		kflags;		/* KMEMBER_* */
	int32_t			rebalance_timeout_ms;
	uint32_t		nprotocols;
	uint32_t		meta_len;	/* protocols, encoded, in the metadata space */
	uint32_t		assign_len;	/* the leader's assignment for it */
	/* Native: its rank among the members of generation rank_gen. */
	uint32_t		rank_gen;
	uint32_t		rank;
	uint16_t		instance_len;	/* Kafka static member, 0: dynamic */
	char			instance[KGROUP_INSTANCE_MAX + 1];
	/* Consumer protocol members (shm/cgroup.h). */
	int32_t			cg_epoch;	/* member epoch; -2: a static member away */
	int32_t			cg_prev_epoch;
	int64_t			cg_revoke_deadline;	/* CLOCK_MONOTONIC ms, while revoking */
	uint32_t		cg_assignor;	/* CG_ASSIGNOR_* it asked for, 0: none */
};

/*
 * A topic of the generation's subscription.  The index alone cannot say
 * that the topic was deleted and its entry reused by a new one (even of
 * the same name and size); the incarnation of its first partition slot,
 * bumped by every delete, can: group_tick() then starts a rebalance, so
 * no member goes on with an assignment, and commits, of a topic gone.
 */
struct group_topic {
	uint32_t		topic;		/* index into shm topics */
	int32_t			partitions;	/* its count when the rebalance completed */
	uint32_t		incarnation;	/* ... and its first slot's incarnation */
};

enum { GROUP_SLOT_FREE = 0, GROUP_SLOT_USED = 1, GROUP_SLOT_DELETED = 2 };

struct shm_group {
	pthread_mutex_t		lock;		/* robust; everything below but used/name */
	_Atomic uint32_t	used;		/* GROUP_SLOT_*, published last */
	uint32_t		name_len;
	char			name[GROUP_NAME_MAX + 1];
	uint32_t		state;		/* enum group_state */
	uint32_t		generation;
	int64_t			rebalance_deadline;	/* CLOCK_MONOTONIC ms */
	uint32_t		ntopics;	/* the subscription of the generation */
	struct group_topic	topics[GROUP_TOPICS_MAX];
	_Atomic uint64_t	commit_seq;	/* bumped by every commit (the writer saves) */
	uint32_t		kind;		/* GROUP_KIND_* */
	uint32_t		gen_members;	/* native: members of the generation completed */
	/* Kafka groups (shm/kgroup.h). */
	int32_t			leader;		/* member index, -1: none */
	uint32_t		initial;	/* the first rebalance of an empty group */
	int64_t			rebalance_start;	/* CLOCK_MONOTONIC ms */
	uint16_t		ptype_len;
	char			ptype[KGROUP_PROTO_MAX + 1];	/* protocol type, "consumer" */
	uint16_t		proto_len;
	char			proto[KGROUP_PROTO_MAX + 1];	/* of the generation */
	/* Consumer protocol groups (shm/cgroup.h): generation is the group epoch. */
	uint32_t		cg_assign_epoch;	/* of the target assignment */
	uint32_t		cg_assignor;	/* CG_ASSIGNOR_* of the target */
	uint64_t		cg_topics_hash;	/* the subscribed topics it was computed on */
	/*
	 * CG_MIGRATE_*: a conversion between the classic and consumer kinds
	 * under way (stored first, cleared after kind): the repair of a lock
	 * holder that died mid-way rolls an upgrade back and a downgrade
	 * forward (shm/cgroup.h).
	 */
	uint32_t		cg_migrating;
};

struct shm_group_dir {
	pthread_mutex_t		lock;		/* robust; group creation */
	_Atomic uint32_t	count;		/* groups[0..count) are published */
};

/* What a group operation needs from the configuration. */
struct group_params {
	int64_t		rebalance_timeout_ms;
	int32_t		min_session_ms;
	int32_t		max_session_ms;
	int64_t		initial_delay_ms;	/* Kafka: a new group's first rebalance */
	/* Kafka's consumer protocol (shm/cgroup.h). */
	int32_t		cg_session_ms;		/* group_consumer_session_timeout_ms */
	int32_t		cg_heartbeat_ms;	/* group_consumer_heartbeat_interval_ms */
	uint32_t	cg_assignor;		/* group_consumer_assignor (CG_ASSIGNOR_*) */
	uint32_t	cg_max_size;		/* group_consumer_max_size */
	uint32_t	cg_migration;		/* group_consumer_migration_policy: CG_POLICY_* bits */
};

/* Bytes of the group table for these limits (0 when max_groups is 0). */
size_t	group_table_size(const struct shm_limits *lim);
/* Master, in shm_create(): initialise the locks. 0 or -1. */
int	group_table_init(struct shm *s);

uint32_t group_count(const struct shm *s);
/* Group i (published or not), NULL when i is outside the table. */
struct shm_group *group_at(const struct shm *s, uint32_t i);
struct shm_member *group_member_at(const struct shm *s, struct shm_group *g, uint32_t i);

/*
 * Member i's Kafka bytes: its protocols (metadata) and its assignment,
 * member_meta bytes each; NULL when the table has no such space.
 */
uint8_t	*group_meta(const struct shm *s, struct shm_group *g, uint32_t i);
uint8_t	*group_assign(const struct shm *s, struct shm_group *g, uint32_t i);

/* Index of a published group of that name, or -1 (lock-free). */
int	group_find(struct shm *s, const char *name, size_t len);
/*
 * The group of that name, created EMPTY if missing; index or -1 (ENOSPC,
 * EINVAL).  A group created for a member (join) may take any free slot;
 * one created by a commit alone (join 0) is refused (ENOSPC) once only
 * group_reserved() slots are left, so that groups with members always
 * find room.
 */
int	group_create(struct shm *s, const char *name, size_t len, int join);
/* Slots kept for groups created by a join: an eighth of the table, at least 1. */
uint32_t group_reserved(const struct shm_limits *lim);
/*
 * Delete group idx if it has no members (and, unless if_seq is
 * GROUP_ANY_SEQ, if its commit_seq is still if_seq: the writer expires a
 * group it saw idle, not one committed to since): its offsets are
 * dropped and the slot becomes DELETED, for the writer to log their
 * tombstones and free it.  Takes the directory lock, then the group's.  A
 * flume error: ERR_NONE, ERR_GROUP_NOT_EMPTY (members, or a commit since
 * if_seq), ERR_INVALID_GROUP (no such group), ERR_UNKNOWN (a lock failed).
 */
#define GROUP_ANY_SEQ	UINT64_MAX
int16_t	group_delete(struct shm *s, uint32_t idx, int64_t now,
	    const struct group_params *gp, uint64_t if_seq);
/* Writer: DELETED slot idx's tombstones are logged; it may be reused. */
void	group_slot_free(struct shm *s, uint32_t idx);

/*
 * Take g's lock.  0, 1 when the previous owner died and g was repaired
 * (members checked, a new generation forced), -1 on failure.
 */
int	group_lock(struct shm *s, struct shm_group *g, int64_t now,
	    const struct group_params *gp);
void	group_unlock(struct shm_group *g);

/* ---- locked ---- */

/* "<client id, sanitised>-<16 hex digits>" into out (MEMBER_ID_MAX + 1), unique in g. */
size_t	group_member_id_make(const struct shm *s, struct shm_group *g,
	    const char *client, size_t clen, char *out);
/* Member index of id, or -1. */
int	group_member_find(const struct shm *s, struct shm_group *g,
	    const char *id, size_t len);
uint32_t group_member_count(const struct shm *s, struct shm_group *g);

struct group_join_in {
	const char	*member_id;	/* empty: a new member */
	size_t		 member_id_len;
	const char	*client_id;
	size_t		 client_id_len;
	int32_t		 session_timeout_ms;
	const uint32_t	*topics;	/* topic indexes, 1..GROUP_TOPICS_MAX */
	uint32_t	 ntopics;
};

/*
 * A member joins the current generation (a new member starts one).
 * Returns a flume error code; *member gets its index.
 */
int16_t	group_join(struct shm *s, struct shm_group *g,
	    const struct group_join_in *in, int64_t now,
	    const struct group_params *gp, int *member);
/*
 * Whether member (index) may have its join answered: 1 (STABLE, it is in
 * the generation), 0 (keep waiting), -1 (it is gone: ERR_UNKNOWN_MEMBER).
 * Runs group_tick() first.
 */
int	group_join_ready(struct shm *s, struct shm_group *g, int member,
	    const char *id, size_t len, int64_t now, const struct group_params *gp);
int16_t	group_heartbeat(struct shm *s, struct shm_group *g, const char *id,
	    size_t len, int32_t generation, int64_t now,
	    const struct group_params *gp);
int16_t	group_leave(struct shm *s, struct shm_group *g, const char *id,
	    size_t len, int64_t now, const struct group_params *gp);
/*
 * May member id of generation commit now?  A flume error code.  *prev is
 * the member's index when it may commit only the partitions it owned in
 * the generation before (see the top of this file: group_prev_owned()),
 * -1 when it may commit any.
 */
int16_t	group_commit_check(struct shm *s, struct shm_group *g, const char *id,
	    size_t len, int32_t generation, int64_t now,
	    const struct group_params *gp, int *prev);
/* Did member own partition slot in the generation that ended last? */
int	group_prev_owned(struct shm *s, struct shm_group *g, int member,
	    uint32_t slot);
/*
 * Expire silent members, finish a rebalance that is complete or timed
 * out, start one when a topic's partition count changed or the topic was
 * deleted since the rebalance completed.  1 if the state or generation
 * changed.
 */
int	group_tick(struct shm *s, struct shm_group *g, int64_t now,
	    const struct group_params *gp);
/*
 * Locked: the nearest time group_tick() has something to do (the
 * rebalance deadline, a member's session end, a consumer protocol
 * member's revocation deadline), INT64_MAX when nothing is due.  The
 * writer sleeps until it (master/writer_group.c).
 */
int64_t	group_due(const struct shm *s, struct shm_group *g);
/*
 * The incarnation of topic index t's first partition slot (0 outside
 * the table): it changes with every delete of the topic, also when a
 * create of the same name reuses the entry and its slots.
 */
uint32_t group_topic_incarnation(struct shm *s, uint32_t t);
/*
 * The partition slots (indexes into shm parts) of member in the current
 * generation, in topic then partition order, at most cap; returns how
 * many it has (which may exceed cap).  0 unless the group is STABLE and
 * the member is in the generation.
 */
uint32_t group_assignment(struct shm *s, struct shm_group *g, int member,
	    uint32_t *slots, uint32_t cap);

/* ---- committed offsets (atomic, no lock needed) ---- */

/* -1: nothing committed (also for a slot outside the table). */
int64_t	group_offset_get(const struct shm *s, struct shm_group *g, uint32_t slot);
void	group_offset_set(const struct shm *s, struct shm_group *g, uint32_t slot,
	    int64_t offset);

/*
 * The writer's record of what it appended to __consumer_offsets for
 * each slot (-1: nothing live there), beside the committed offsets: it
 * appends what differs (master/writer_group.c).  Written by the writer
 * alone (and by group_create() for a slot nobody uses), so a respawned
 * writer knows what the topic holds; a writer that dies between its
 * append and this store appends the same value again, harmlessly.
 */
int64_t	group_logged_get(const struct shm *s, struct shm_group *g, uint32_t slot);
void	group_logged_set(const struct shm *s, struct shm_group *g, uint32_t slot,
	    int64_t offset);

/*
 * The assignment rule: of npart partitions listed in order, partition k
 * goes to member k % nmembers (members sorted by id).  Every partition
 * has one owner and shares differ by at most one.  owner[npart].
 */
void	group_assign_rr(uint32_t nmembers, uint32_t npart, uint32_t *owner);

#endif
