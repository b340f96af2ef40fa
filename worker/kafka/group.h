/*
 * The Kafka group APIs of a worker, rows of the Kafka table
 * (worker/kafka/kafka.c): the coordinator (worker/kafka/group.c: FindCoordinator,
 * JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and the committed offsets
 * and group listings (worker/kafka/offset.c: OffsetCommit, OffsetFetch,
 * ListGroups, DescribeGroups).  Every one is served in every version
 * Kafka 3.9 and 4.0 serve, decoded and answered through its description
 * (proto/kafka/kmsg_group.h, kmsg_join.h, kmsg_offset.h) with Kafka's
 * error codes.
 */
#ifndef FLUME_WORKER_KAFKA_GROUP_H
#define FLUME_WORKER_KAFKA_GROUP_H

#include <stddef.h>
#include <stdint.h>

struct worker;
struct conn;
struct req;

struct kstr;

/* A copy in the arena as a kstr (len 0 on a full arena: caller checks p). */
struct kstr kafka_group_dup(struct conn *c, const void *s, size_t len);
/* The address part of a connection's "host:port". */
size_t	kafka_peer_host_len(const char *peer);
/* The answer of every row here: k->kst, in the row's description. */
void	kafka_group_emit(struct worker *w, struct conn *c, struct req *r);
void	kafka_find_coord_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_join_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_sync_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_heartbeat_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_leave_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_commit_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_offset_fetch_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_list_groups_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_describe_groups_exec(struct worker *w, struct conn *c,
	    struct req *r);
/* Re-check a parked JoinGroup, a parked SyncGroup. */
void	kafka_join_poll(struct worker *w, struct conn *c, struct req *r);
void	kafka_sync_poll(struct worker *w, struct conn *c, struct req *r);

#endif
