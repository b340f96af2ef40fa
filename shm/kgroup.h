/*
 * Kafka's classic group coordinator over the shared groups table
 * (shm/group.h): the same group slots, member slots, robust lock and
 * committed offsets as native groups, a group of kind GROUP_KIND_KAFKA.
 *
 *   EMPTY --first JoinGroup--> REBALANCING (initial: waits
 *     initial_delay_ms, extended while members keep arriving)
 *   REBALANCING --every known member rejoined (KMEMBER_JOINING), or the
 *     rebalance timeout (the largest of the members') passed: who did not
 *     rejoin is dropped--> AWAITING_SYNC (generation + 1, a leader, a
 *     protocol)
 *   AWAITING_SYNC --the leader's SyncGroup--> STABLE
 *   STABLE / AWAITING_SYNC --a new member, a leave, an expiry, the
 *     leader's or a changed member's rejoin, a topic of the members'
 *     "consumer" subscriptions deleted (even if created again)-->
 *     REBALANCING
 *
 * Unlike the native machine, the generation grows when a join phase
 * completes (as Kafka's), so a member's generation is the one its
 * JoinGroup answer carried.  A member's protocols are stored encoded in
 * its metadata space ([u16 name len][name][u32 len][metadata] each), its
 * assignment in its assignment space, member_meta bytes each: more is
 * refused (KERR_MESSAGE_TOO_LARGE), never truncated.
 *
 * Static members (KIP-345, JoinGroup v5+ with a group_instance_id) as
 * Kafka's coordinator has them: a known instance joining with no member
 * id takes its old slot under a new member id, keeps its assignment and
 * the generation, and is answered at once while the group is STABLE and
 * the protocol the group would select stays the same (else a rebalance
 * starts); the member id it replaced is fenced (FENCED_INSTANCE_ID to a
 * request naming the instance with the old id).  A static member that
 * did not rejoin a rebalance stays in the group (only its session
 * timeout removes it, and that starts a rebalance); LeaveGroup v3+ may
 * name a member by instance id alone.
 *
 * Every function returns a Kafka error code (proto/kafka/kapi.h) and runs
 * under the group's lock (group_lock()).  The crash rule holds as for
 * native groups: member slots are filled before they are published, the
 * state is stored last, and a repaired group (its lock holder died)
 * prepares a rebalance: every member rejoins and gets a new generation.
 */
#ifndef FLUME_SHM_KGROUP_H
#define FLUME_SHM_KGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "shm/group.h"

struct kgroup_proto {
	const char	*name;
	size_t		 name_len;
	const uint8_t	*meta;
	size_t		 meta_len;
};

struct kgroup_join_in {
	const char			*member_id;	/* empty: a new member */
	size_t				 member_id_len;
	const char			*client_id;
	size_t				 client_id_len;
	const char			*host;
	size_t				 host_len;
	int32_t				 session_timeout_ms;
	int32_t				 rebalance_timeout_ms;
	const char			*ptype;		/* protocol type */
	size_t				 ptype_len;
	const struct kgroup_proto	*protos;
	uint32_t			 nprotos;
	/*
	 * JoinGroup v4+ (KIP-394): a new member first gets
	 * MEMBER_ID_REQUIRED and an id in pending (MEMBER_ID_MAX + 1,
	 * *pending_len), and joins with it.
	 */
	int				 require_id;
	char				*pending;
	size_t				*pending_len;
	/* v5+: the group.instance.id, NULL (or length 0): a dynamic member. */
	const char			*instance;
	size_t				 instance_len;
	/*
	 * Out: 1 when a known static member replaced its old id in a STABLE
	 * group (answered at once, no rebalance); the leader's answer then
	 * carries the members with skip_assignment (KIP-814).
	 */
	int				*replaced;
};

/* One entry of the leader's SyncGroup. */
struct kgroup_assign_in {
	const char	*member_id;
	size_t		 member_id_len;
	const uint8_t	*data;
	size_t		 len;
};

/*
 * JoinGroup.  *member gets the member's index; *ready is 1 when it is
 * answered at once (with the current generation), 0 when it waits for
 * the rebalance (kgroup_join_ready()).
 */
int16_t	kgroup_join(struct shm *s, struct shm_group *g,
	    const struct kgroup_join_in *in, int64_t now,
	    const struct group_params *gp, int *member, int *ready);
/*
 * A parked JoinGroup of member (index, id) that waited while the group
 * was at generation wait_gen: 1 answer now, 0 keep waiting, -1 the
 * member is gone (UNKNOWN_MEMBER_ID).
 */
int	kgroup_join_ready(struct shm *s, struct shm_group *g, int member,
	    const char *id, size_t len, uint32_t wait_gen, int64_t now,
	    const struct group_params *gp);
/* Member i's metadata for the generation's protocol (0 or -1). */
int	kgroup_member_metadata(const struct shm *s, struct shm_group *g,
	    uint32_t i, const uint8_t **meta, size_t *len);
/*
 * SyncGroup.  With the leader's assignments, the group becomes STABLE.
 * *ready: 1 answered now (the member's assignment is in its space), 0
 * wait for the leader (kgroup_sync_ready()).
 */
int16_t	kgroup_sync(struct shm *s, struct shm_group *g, const char *id,
	    size_t len, const char *inst, size_t ilen, int32_t generation, const struct kgroup_assign_in *a,
	    uint32_t na, int64_t now, const struct group_params *gp,
	    int *member, int *ready);
/* A parked SyncGroup: 1 answer (NONE), 0 wait, -1 with *err set. */
int	kgroup_sync_ready(struct shm *s, struct shm_group *g, int member,
	    const char *id, size_t len, int32_t generation, int64_t now,
	    const struct group_params *gp, int16_t *err);
/*
 * Heartbeat, LeaveGroup and the commit check take the member's instance
 * id too (inst NULL: none given): an instance now held by another member
 * id is FENCED_INSTANCE_ID, one unknown is UNKNOWN_MEMBER_ID (Kafka's
 * validateCurrentMember).  A LeaveGroup v3+ with an empty member id
 * removes the instance's member, whatever its id (an admin's removal).
 */
int16_t	kgroup_heartbeat(struct shm *s, struct shm_group *g, const char *id,
	    size_t len, const char *inst, size_t ilen, int32_t generation,
	    int64_t now, const struct group_params *gp);
int16_t	kgroup_leave(struct shm *s, struct shm_group *g, const char *id,
	    size_t len, const char *inst, size_t ilen, int64_t now,
	    const struct group_params *gp);
/*
 * May (id, generation) commit?  Generation -1 with no member id commits
 * only to a group without members (Kafka's "simple" consumer).
 */
int16_t	kgroup_commit_check(struct shm *s, struct shm_group *g,
	    const char *id, size_t len, const char *inst, size_t ilen,
	    int32_t generation, int64_t now, const struct group_params *gp);
/* Member index of a static member's instance id, or -1. */
int	kgroup_instance_find(const struct shm *s, struct shm_group *g,
	    const char *inst, size_t ilen);
/*
 * After kgroup_commit_check() of a member: may it commit into topic
 * (index)?  UNKNOWN_TOPIC_OR_PARTITION when its generation subscribed
 * the topic and it was deleted since (even if created again under its
 * name: the old topic's offsets mean nothing in the new one).
 */
int16_t	kgroup_commit_topic(struct shm *s, struct shm_group *g, int topic);

/*
 * For shm/cgroup.c (the online migration): store in's protocols in member
 * i's metadata space (meta_len, nprotocols); a Kafka error code.
 */
int16_t	kgroup_store_protocols(struct shm *s, struct shm_group *g, uint32_t i,
	    const struct kgroup_join_in *in);
/*
 * The downgrade of a consumer group whose members all speak the classic
 * protocol (their protocols stored): protocol type "consumer", the
 * protocol selected, and a rebalance prepared at the group's generation,
 * as Kafka's convertToClassicGroup.  The caller stores the kind.
 */
void	kgroup_adopt(struct shm *s, struct shm_group *g, int64_t now,
	    const struct group_params *gp);

/* For shm/group.c: the Kafka machine's group_tick() and repair. */
int	kgroup_tick(struct shm *s, struct shm_group *g, int64_t now,
	    const struct group_params *gp);
void	kgroup_repair(struct shm *s, struct shm_group *g, int64_t now,
	    const struct group_params *gp);

#endif
