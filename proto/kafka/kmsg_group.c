/*
 * The classic group APIs, from Kafka's FindCoordinator, Heartbeat,
 * LeaveGroup, ListGroups and DescribeGroups Request.json and
 * Response.json (Kafka 4.0): one row per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_group.h"

#define AUTH_OPS_NONE	INT32_MIN	/* "-2147483648": not requested */

/*
 * FindCoordinatorRequest: v1 adds KeyType (0 group, 1 transaction),
 * v4 replaces Key by CoordinatorKeys; v5 and v6 only add error codes
 * and share-group keys, not fields.
 */
static const struct kfield findcoord_req[] = {
	KF(KT_STRING, struct km_findcoord_req, key, 0, 3),
	KF(KT_INT8, struct km_findcoord_req, key_type, 1, KV_MAX),
	KFA(KT_STRING, struct km_findcoord_req, coordinator_keys, 4, KV_MAX),
};

static const struct kfield coordinator[] = {
	KF(KT_STRING, struct km_coordinator, key, 4, KV_MAX),
	KF(KT_INT32, struct km_coordinator, node_id, 4, KV_MAX),
	KF(KT_STRING, struct km_coordinator, host, 4, KV_MAX),
	KF(KT_INT32, struct km_coordinator, port, 4, KV_MAX),
	KF(KT_INT16, struct km_coordinator, error_code, 4, KV_MAX),
	KF(KT_STRING, struct km_coordinator, error_message, 4, KV_MAX,
	    KNULL(4), .kf_def = -1),
};
static const struct kdesc kd_coordinator =
    KDESC("Coordinator", struct km_coordinator, coordinator);

static const struct kfield findcoord_resp[] = {
	KF(KT_INT32, struct km_findcoord_resp, throttle_time_ms, 1, KV_MAX),
	KF(KT_INT16, struct km_findcoord_resp, error_code, 0, 3),
	KF(KT_STRING, struct km_findcoord_resp, error_message, 1, 3, KNULL(1),
	    .kf_def = -1),
	KF(KT_INT32, struct km_findcoord_resp, node_id, 0, 3),
	KF(KT_STRING, struct km_findcoord_resp, host, 0, 3),
	KF(KT_INT32, struct km_findcoord_resp, port, 0, 3),
	KFS(kd_coordinator, struct km_findcoord_resp, coordinators, 4, KV_MAX),
};

static const struct kdesc kd_findcoord_req =
    KDESC("FindCoordinatorRequest", struct km_findcoord_req, findcoord_req);
static const struct kdesc kd_findcoord_resp =
    KDESC("FindCoordinatorResponse", struct km_findcoord_resp,
    findcoord_resp);

const struct kmsg kmsg_find_coordinator = {
	KAPI_FIND_COORDINATOR, "FindCoordinator", 0, 6, 3,
	&kd_findcoord_req, &kd_findcoord_resp
};

/* HeartbeatRequest: v3 adds GroupInstanceId (KIP-345). */
static const struct kfield heartbeat_req[] = {
	KF(KT_STRING, struct km_heartbeat_req, group_id, 0, KV_MAX),
	KF(KT_INT32, struct km_heartbeat_req, generation_id, 0, KV_MAX),
	KF(KT_STRING, struct km_heartbeat_req, member_id, 0, KV_MAX),
	KF(KT_STRING, struct km_heartbeat_req, group_instance_id, 3, KV_MAX,
	    KNULL(3), .kf_def = -1),
};

static const struct kfield heartbeat_resp[] = {
	KF(KT_INT32, struct km_heartbeat_resp, throttle_time_ms, 1, KV_MAX),
	KF(KT_INT16, struct km_heartbeat_resp, error_code, 0, KV_MAX),
};

static const struct kdesc kd_heartbeat_req =
    KDESC("HeartbeatRequest", struct km_heartbeat_req, heartbeat_req);
static const struct kdesc kd_heartbeat_resp =
    KDESC("HeartbeatResponse", struct km_heartbeat_resp, heartbeat_resp);

const struct kmsg kmsg_heartbeat = {
	KAPI_HEARTBEAT, "Heartbeat", 0, 4, 4,
	&kd_heartbeat_req, &kd_heartbeat_resp
};

/*
 * LeaveGroupRequest: v3 replaces MemberId by a batch of members with
 * their instance ids (KIP-345), v5 adds a reason (KIP-800).
 */
static const struct kfield leave_member[] = {
	KF(KT_STRING, struct km_leave_member, member_id, 3, KV_MAX),
	KF(KT_STRING, struct km_leave_member, group_instance_id, 3, KV_MAX,
	    KNULL(3), .kf_def = -1),
	KF(KT_STRING, struct km_leave_member, reason, 5, KV_MAX, KNULL(5),
	    .kf_def = -1),
};
static const struct kdesc kd_leave_member =
    KDESC("MemberIdentity", struct km_leave_member, leave_member);

static const struct kfield leave_req[] = {
	KF(KT_STRING, struct km_leave_req, group_id, 0, KV_MAX),
	KF(KT_STRING, struct km_leave_req, member_id, 0, 2),
	KFS(kd_leave_member, struct km_leave_req, members, 3, KV_MAX),
};

static const struct kfield leave_member_resp[] = {
	KF(KT_STRING, struct km_leave_member_resp, member_id, 3, KV_MAX),
	KF(KT_STRING, struct km_leave_member_resp, group_instance_id, 3,
	    KV_MAX, KNULL(3), .kf_def = -1),
	KF(KT_INT16, struct km_leave_member_resp, error_code, 3, KV_MAX),
};
static const struct kdesc kd_leave_member_resp =
    KDESC("MemberResponse", struct km_leave_member_resp, leave_member_resp);

static const struct kfield leave_resp[] = {
	KF(KT_INT32, struct km_leave_resp, throttle_time_ms, 1, KV_MAX),
	KF(KT_INT16, struct km_leave_resp, error_code, 0, KV_MAX),
	KFS(kd_leave_member_resp, struct km_leave_resp, members, 3, KV_MAX),
};

static const struct kdesc kd_leave_req =
    KDESC("LeaveGroupRequest", struct km_leave_req, leave_req);
static const struct kdesc kd_leave_resp =
    KDESC("LeaveGroupResponse", struct km_leave_resp, leave_resp);

const struct kmsg kmsg_leave_group = {
	KAPI_LEAVE_GROUP, "LeaveGroup", 0, 5, 4, &kd_leave_req, &kd_leave_resp
};

/* ListGroupsRequest: v4 filters by state (KIP-518), v5 by type (KIP-848). */
static const struct kfield list_groups_req[] = {
	KFA(KT_STRING, struct km_list_groups_req, states_filter, 4, KV_MAX),
	KFA(KT_STRING, struct km_list_groups_req, types_filter, 5, KV_MAX),
};

static const struct kfield listed_group[] = {
	KF(KT_STRING, struct km_listed_group, group_id, 0, KV_MAX),
	KF(KT_STRING, struct km_listed_group, protocol_type, 0, KV_MAX),
	KF(KT_STRING, struct km_listed_group, group_state, 4, KV_MAX),
	KF(KT_STRING, struct km_listed_group, group_type, 5, KV_MAX),
};
static const struct kdesc kd_listed_group =
    KDESC("ListedGroup", struct km_listed_group, listed_group);

static const struct kfield list_groups_resp[] = {
	KF(KT_INT32, struct km_list_groups_resp, throttle_time_ms, 1, KV_MAX),
	KF(KT_INT16, struct km_list_groups_resp, error_code, 0, KV_MAX),
	KFS(kd_listed_group, struct km_list_groups_resp, groups, 0, KV_MAX),
};

static const struct kdesc kd_list_groups_req =
    KDESC("ListGroupsRequest", struct km_list_groups_req, list_groups_req);
static const struct kdesc kd_list_groups_resp =
    KDESC("ListGroupsResponse", struct km_list_groups_resp,
    list_groups_resp);

const struct kmsg kmsg_list_groups = {
	KAPI_LIST_GROUPS, "ListGroups", 0, 5, 3,
	&kd_list_groups_req, &kd_list_groups_resp
};

/*
 * DescribeGroupsRequest: v3 asks for authorized operations (KIP-430).
 * The response: v4 adds instance ids, v6 per-group error messages.
 */
static const struct kfield describe_groups_req[] = {
	KFA(KT_STRING, struct km_describe_groups_req, groups, 0, KV_MAX),
	KF(KT_BOOL, struct km_describe_groups_req,
	    include_authorized_operations, 3, KV_MAX),
};

static const struct kfield described_member[] = {
	KF(KT_STRING, struct km_described_member, member_id, 0, KV_MAX),
	KF(KT_STRING, struct km_described_member, group_instance_id, 4,
	    KV_MAX, KNULL(4), .kf_def = -1),
	KF(KT_STRING, struct km_described_member, client_id, 0, KV_MAX),
	KF(KT_STRING, struct km_described_member, client_host, 0, KV_MAX),
	KF(KT_BYTES, struct km_described_member, member_metadata, 0, KV_MAX),
	KF(KT_BYTES, struct km_described_member, member_assignment, 0,
	    KV_MAX),
};
static const struct kdesc kd_described_member =
    KDESC("DescribedGroupMember", struct km_described_member,
    described_member);

static const struct kfield described_group[] = {
	KF(KT_INT16, struct km_described_group, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_described_group, error_message, 6, KV_MAX,
	    KNULL(6), .kf_def = -1),
	KF(KT_STRING, struct km_described_group, group_id, 0, KV_MAX),
	KF(KT_STRING, struct km_described_group, group_state, 0, KV_MAX),
	KF(KT_STRING, struct km_described_group, protocol_type, 0, KV_MAX),
	KF(KT_STRING, struct km_described_group, protocol_data, 0, KV_MAX),
	KFS(kd_described_member, struct km_described_group, members, 0,
	    KV_MAX),
	KF(KT_INT32, struct km_described_group, authorized_operations, 3,
	    KV_MAX, .kf_def = AUTH_OPS_NONE),
};
static const struct kdesc kd_described_group =
    KDESC("DescribedGroup", struct km_described_group, described_group);

static const struct kfield describe_groups_resp[] = {
	KF(KT_INT32, struct km_describe_groups_resp, throttle_time_ms, 1,
	    KV_MAX),
	KFS(kd_described_group, struct km_describe_groups_resp, groups, 0,
	    KV_MAX),
};

static const struct kdesc kd_describe_groups_req =
    KDESC("DescribeGroupsRequest", struct km_describe_groups_req,
    describe_groups_req);
static const struct kdesc kd_describe_groups_resp =
    KDESC("DescribeGroupsResponse", struct km_describe_groups_resp,
    describe_groups_resp);

const struct kmsg kmsg_describe_groups = {
	KAPI_DESCRIBE_GROUPS, "DescribeGroups", 0, 6, 5,
	&kd_describe_groups_req, &kd_describe_groups_resp
};
