/*
 * The classic group protocol: FindCoordinator v0, JoinGroup v0-2,
 * SyncGroup v0-1, Heartbeat v0-1, LeaveGroup v0-1, ListGroups v0-1,
 * DescribeGroups v0-1.  "throttle" below is throttle_time_ms i32, present
 * in every response of version 1 and above (JoinGroup: 2 and above).
 *
 * FindCoordinator v0:  req group_id str
 *                      resp error i16, node_id i32, host str, port i32
 * JoinGroup:  req group_id str, session_timeout_ms i32,
 *             v1+ rebalance_timeout_ms i32, member_id str,
 *             protocol_type str, protocols [name str, metadata bytes]
 *             resp v2+ throttle, error i16, generation_id i32,
 *             protocol_name str, leader str, member_id str,
 *             members [member_id str, metadata bytes]
 * SyncGroup:  req group_id str, generation_id i32, member_id str,
 *             assignments [member_id str, assignment bytes]
 *             resp v1+ throttle, error i16, assignment bytes
 * Heartbeat:  req group_id str, generation_id i32, member_id str
 *             resp v1+ throttle, error i16
 * LeaveGroup: req group_id str, member_id str
 *             resp v1+ throttle, error i16
 * ListGroups: req empty
 *             resp v1+ throttle, error i16,
 *             groups [group_id str, protocol_type str]
 * DescribeGroups: req groups [group_id str]
 *             resp v1+ throttle, groups [error i16, group_id str,
 *             state str, protocol_type str, protocol str,
 *             members [member_id str, client_id str, client_host str,
 *             metadata bytes, assignment bytes]]
 */
#ifndef FLUME_PROTO_KAFKA_KGROUP_H
#define FLUME_PROTO_KAFKA_KGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

struct kfind_coord_req {
	struct kstr	 group_id;
};

struct kfind_coord_resp {
	int16_t		 error;
	int32_t		 node_id;
	struct kstr	 host;
	int32_t		 port;
};

/* A (name or member id, opaque bytes) pair: protocols, members, assignments. */
struct kgroup_blob {
	struct kstr	 name;
	struct kstr	 data;
};

struct kjoin_req {
	struct kstr		 group_id;
	int32_t			 session_timeout_ms;
	int32_t			 rebalance_timeout_ms;	/* v0: the session timeout */
	struct kstr		 member_id;
	struct kstr		 protocol_type;
	int32_t			 nprotocols;
	struct kgroup_blob	*protocols;
};

struct kjoin_resp {
	int32_t			 throttle_ms;
	int16_t			 error;
	int32_t			 generation_id;
	struct kstr		 protocol_name;
	struct kstr		 leader;
	struct kstr		 member_id;
	int32_t			 nmembers;
	const struct kgroup_blob *members;
};

struct ksync_req {
	struct kstr		 group_id;
	int32_t			 generation_id;
	struct kstr		 member_id;
	int32_t			 nassign;
	struct kgroup_blob	*assign;
};

struct ksync_resp {
	int32_t		 throttle_ms;
	int16_t		 error;
	struct kstr	 assignment;
};

struct kheartbeat_req {
	struct kstr	 group_id;
	int32_t		 generation_id;
	struct kstr	 member_id;
};

struct kleave_req {
	struct kstr	 group_id;
	struct kstr	 member_id;
};

/* Heartbeat and LeaveGroup answer the same: [throttle] error. */
struct kgroup_error_resp {
	int32_t		 throttle_ms;
	int16_t		 error;
};

struct klist_groups_entry {
	struct kstr	 group_id;
	struct kstr	 protocol_type;
};

struct klist_groups_resp {
	int32_t				 throttle_ms;
	int16_t				 error;
	int32_t				 ngroups;
	const struct klist_groups_entry	*groups;
};

struct kdescribe_groups_req {
	int32_t		 ngroups;
	struct kstr	*groups;
};

struct kdescribe_member {
	struct kstr	 member_id;
	struct kstr	 client_id;
	struct kstr	 client_host;
	struct kstr	 metadata;
	struct kstr	 assignment;
};

struct kdescribe_group {
	int16_t				 error;
	struct kstr			 group_id;
	struct kstr			 state;
	struct kstr			 protocol_type;
	struct kstr			 protocol;
	int32_t				 nmembers;
	const struct kdescribe_member	*members;
};

struct kdescribe_groups_resp {
	int32_t				 throttle_ms;
	int32_t				 ngroups;
	const struct kdescribe_group	*groups;
};

int	kfind_coord_decode_req(struct kfind_coord_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kfind_coord_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kfind_coord_resp *r);
int	kjoin_decode_req(struct kjoin_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kjoin_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kjoin_resp *r);
int	ksync_decode_req(struct ksync_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	ksync_encode_resp(struct wbuf *wb, int16_t version,
	    const struct ksync_resp *r);
int	kheartbeat_decode_req(struct kheartbeat_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
int	kleave_decode_req(struct kleave_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kgroup_error_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kgroup_error_resp *r);
int	klist_groups_decode_req(int16_t version, const uint8_t *p, size_t len);
void	klist_groups_encode_resp(struct wbuf *wb, int16_t version,
	    const struct klist_groups_resp *r);
int	kdescribe_groups_decode_req(struct kdescribe_groups_req *r,
	    int16_t version, const uint8_t *p, size_t len, struct arena *a);
void	kdescribe_groups_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kdescribe_groups_resp *r);

#endif
