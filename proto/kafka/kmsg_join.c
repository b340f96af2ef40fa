/*
 * JoinGroup and SyncGroup, from Kafka's JoinGroupRequest.json,
 * JoinGroupResponse.json, SyncGroupRequest.json and
 * SyncGroupResponse.json (Kafka 4.0): one row per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_join.h"

/*
 * JoinGroupRequest: v1 adds the rebalance timeout, v4 MEMBER_ID_REQUIRED
 * (KIP-394, no field), v5 static membership (KIP-345), v8 a reason
 * (KIP-800).
 */
static const struct kfield join_protocol[] = {
	KF(KT_STRING, struct km_join_protocol, name, 0, KV_MAX),
	KF(KT_BYTES, struct km_join_protocol, metadata, 0, KV_MAX),
};
static const struct kdesc kd_join_protocol =
    KDESC("JoinGroupRequestProtocol", struct km_join_protocol,
    join_protocol);

static const struct kfield join_req[] = {
	KF(KT_STRING, struct km_join_req, group_id, 0, KV_MAX),
	KF(KT_INT32, struct km_join_req, session_timeout_ms, 0, KV_MAX),
	KF(KT_INT32, struct km_join_req, rebalance_timeout_ms, 1, KV_MAX,
	    .kf_def = -1),
	KF(KT_STRING, struct km_join_req, member_id, 0, KV_MAX),
	KF(KT_STRING, struct km_join_req, group_instance_id, 5, KV_MAX,
	    KNULL(5), .kf_def = -1),
	KF(KT_STRING, struct km_join_req, protocol_type, 0, KV_MAX),
	KFS(kd_join_protocol, struct km_join_req, protocols, 0, KV_MAX),
	KF(KT_STRING, struct km_join_req, reason, 8, KV_MAX, KNULL(8),
	    .kf_def = -1),
};

/*
 * JoinGroupResponse: v2 throttle time, v7 the protocol type and a
 * nullable protocol name, v9 SkipAssignment (KIP-814).
 */
static const struct kfield join_member[] = {
	KF(KT_STRING, struct km_join_member, member_id, 0, KV_MAX),
	KF(KT_STRING, struct km_join_member, group_instance_id, 5, KV_MAX,
	    KNULL(5), .kf_def = -1),
	KF(KT_BYTES, struct km_join_member, metadata, 0, KV_MAX),
};
static const struct kdesc kd_join_member =
    KDESC("JoinGroupResponseMember", struct km_join_member, join_member);

static const struct kfield join_resp[] = {
	KF(KT_INT32, struct km_join_resp, throttle_time_ms, 2, KV_MAX),
	KF(KT_INT16, struct km_join_resp, error_code, 0, KV_MAX),
	KF(KT_INT32, struct km_join_resp, generation_id, 0, KV_MAX,
	    .kf_def = -1),
	KF(KT_STRING, struct km_join_resp, protocol_type, 7, KV_MAX, KNULL(7),
	    .kf_def = -1),
	KF(KT_STRING, struct km_join_resp, protocol_name, 0, KV_MAX, KNULL(7)),
	KF(KT_STRING, struct km_join_resp, leader, 0, KV_MAX),
	KF(KT_BOOL, struct km_join_resp, skip_assignment, 9, KV_MAX),
	KF(KT_STRING, struct km_join_resp, member_id, 0, KV_MAX),
	KFS(kd_join_member, struct km_join_resp, members, 0, KV_MAX),
};

static const struct kdesc kd_join_req =
    KDESC("JoinGroupRequest", struct km_join_req, join_req);
static const struct kdesc kd_join_resp =
    KDESC("JoinGroupResponse", struct km_join_resp, join_resp);

const struct kmsg kmsg_join_group = {
	KAPI_JOIN_GROUP, "JoinGroup", 0, 9, 6, &kd_join_req, &kd_join_resp
};

/*
 * SyncGroupRequest: v3 static membership, v5 the protocol type and name
 * (KIP-559); the response: v1 throttle time, v5 the same two.
 */
static const struct kfield sync_assignment[] = {
	KF(KT_STRING, struct km_sync_assignment, member_id, 0, KV_MAX),
	KF(KT_BYTES, struct km_sync_assignment, assignment, 0, KV_MAX),
};
static const struct kdesc kd_sync_assignment =
    KDESC("SyncGroupRequestAssignment", struct km_sync_assignment,
    sync_assignment);

static const struct kfield sync_req[] = {
	KF(KT_STRING, struct km_sync_req, group_id, 0, KV_MAX),
	KF(KT_INT32, struct km_sync_req, generation_id, 0, KV_MAX),
	KF(KT_STRING, struct km_sync_req, member_id, 0, KV_MAX),
	KF(KT_STRING, struct km_sync_req, group_instance_id, 3, KV_MAX,
	    KNULL(3), .kf_def = -1),
	KF(KT_STRING, struct km_sync_req, protocol_type, 5, KV_MAX, KNULL(5),
	    .kf_def = -1),
	KF(KT_STRING, struct km_sync_req, protocol_name, 5, KV_MAX, KNULL(5),
	    .kf_def = -1),
	KFS(kd_sync_assignment, struct km_sync_req, assignments, 0, KV_MAX),
};

static const struct kfield sync_resp[] = {
	KF(KT_INT32, struct km_sync_resp, throttle_time_ms, 1, KV_MAX),
	KF(KT_INT16, struct km_sync_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_sync_resp, protocol_type, 5, KV_MAX, KNULL(5),
	    .kf_def = -1),
	KF(KT_STRING, struct km_sync_resp, protocol_name, 5, KV_MAX, KNULL(5),
	    .kf_def = -1),
	KF(KT_BYTES, struct km_sync_resp, assignment, 0, KV_MAX),
};

static const struct kdesc kd_sync_req =
    KDESC("SyncGroupRequest", struct km_sync_req, sync_req);
static const struct kdesc kd_sync_resp =
    KDESC("SyncGroupResponse", struct km_sync_resp, sync_resp);

const struct kmsg kmsg_sync_group = {
	KAPI_SYNC_GROUP, "SyncGroup", 0, 5, 4, &kd_sync_req, &kd_sync_resp
};
