/*
 * Kafka's consumer group protocol (KIP-848), from Kafka's
 * ConsumerGroupHeartbeatRequest.json, ConsumerGroupHeartbeatResponse.json,
 * ConsumerGroupDescribeRequest.json and ConsumerGroupDescribeResponse.json
 * (Kafka 4.0): one row per field, in wire order.  Every version is
 * flexible.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_cgroup.h"

/* TopicPartitions of the heartbeat: a topic id and its partitions. */
static const struct kfield cg_tp[] = {
	KF(KT_UUID, struct km_cg_tp, topic_id, 0, KV_MAX),
	KFA(KT_INT32, struct km_cg_tp, partitions, 0, KV_MAX),
};
static const struct kdesc kd_cg_tp =
    KDESC("TopicPartitions", struct km_cg_tp, cg_tp);

/*
 * ConsumerGroupHeartbeatRequest: v1 adds SubscribedTopicRegex (KIP-848;
 * from v1 the member id is the client's, KIP-1082).  Nullable fields
 * are null when unchanged since the member's last heartbeat.
 */
static const struct kfield cghb_req[] = {
	KF(KT_STRING, struct km_cghb_req, group_id, 0, KV_MAX),
	KF(KT_STRING, struct km_cghb_req, member_id, 0, KV_MAX),
	KF(KT_INT32, struct km_cghb_req, member_epoch, 0, KV_MAX),
	KF(KT_STRING, struct km_cghb_req, instance_id, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KF(KT_STRING, struct km_cghb_req, rack_id, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KF(KT_INT32, struct km_cghb_req, rebalance_timeout_ms, 0, KV_MAX,
	    .kf_def = -1),
	KFA(KT_STRING, struct km_cghb_req, subscribed_topic_names, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KF(KT_STRING, struct km_cghb_req, subscribed_topic_regex, 1, KV_MAX,
	    KNULL(1), .kf_def = -1),
	KF(KT_STRING, struct km_cghb_req, server_assignor, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KFS(kd_cg_tp, struct km_cghb_req, topic_partitions, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
};

/* ConsumerGroupHeartbeatResponse: the same fields in v0 and v1. */
static const struct kfield cghb_assignment[] = {
	KFS(kd_cg_tp, struct km_cghb_assignment, topic_partitions, 0, KV_MAX),
};
static const struct kdesc kd_cghb_assignment =
    KDESC("Assignment", struct km_cghb_assignment, cghb_assignment);

static const struct kfield cghb_resp[] = {
	KF(KT_INT32, struct km_cghb_resp, throttle_time_ms, 0, KV_MAX),
	KF(KT_INT16, struct km_cghb_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_cghb_resp, error_message, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KF(KT_STRING, struct km_cghb_resp, member_id, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KF(KT_INT32, struct km_cghb_resp, member_epoch, 0, KV_MAX),
	KF(KT_INT32, struct km_cghb_resp, heartbeat_interval_ms, 0, KV_MAX),
	/* A nullable struct: its marker, then it (kdesc.h KFNS). */
	KF(KT_INT8, struct km_cghb_resp, assignment_marker, 0, KV_MAX,
	    .kf_def = -1),
	KFNS(kd_cghb_assignment, struct km_cghb_resp, assignment, 0, KV_MAX),
};

static const struct kdesc kd_cghb_req =
    KDESC("ConsumerGroupHeartbeatRequest", struct km_cghb_req, cghb_req);
static const struct kdesc kd_cghb_resp =
    KDESC("ConsumerGroupHeartbeatResponse", struct km_cghb_resp, cghb_resp);

const struct kmsg kmsg_consumer_group_heartbeat = {
	KAPI_CONSUMER_GROUP_HEARTBEAT, "ConsumerGroupHeartbeat", 0, 1, 0,
	&kd_cghb_req, &kd_cghb_resp
};

/* ConsumerGroupDescribe: v1 adds a member's MemberType (KIP-1099). */
static const struct kfield cgd_req[] = {
	KFA(KT_STRING, struct km_cgd_req, group_ids, 0, KV_MAX),
	KF(KT_BOOL, struct km_cgd_req, include_authorized_operations, 0,
	    KV_MAX),
};

static const struct kfield cgd_tp[] = {
	KF(KT_UUID, struct km_cgd_tp, topic_id, 0, KV_MAX),
	KF(KT_STRING, struct km_cgd_tp, topic_name, 0, KV_MAX),
	KFA(KT_INT32, struct km_cgd_tp, partitions, 0, KV_MAX),
};
static const struct kdesc kd_cgd_tp =
    KDESC("TopicPartitions", struct km_cgd_tp, cgd_tp);

static const struct kfield cgd_assignment[] = {
	KFS(kd_cgd_tp, struct km_cgd_assignment, topic_partitions, 0, KV_MAX),
};
static const struct kdesc kd_cgd_assignment =
    KDESC("Assignment", struct km_cgd_assignment, cgd_assignment);

static const struct kfield cgd_member[] = {
	KF(KT_STRING, struct km_cgd_member, member_id, 0, KV_MAX),
	KF(KT_STRING, struct km_cgd_member, instance_id, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KF(KT_STRING, struct km_cgd_member, rack_id, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KF(KT_INT32, struct km_cgd_member, member_epoch, 0, KV_MAX),
	KF(KT_STRING, struct km_cgd_member, client_id, 0, KV_MAX),
	KF(KT_STRING, struct km_cgd_member, client_host, 0, KV_MAX),
	KFA(KT_STRING, struct km_cgd_member, subscribed_topic_names, 0,
	    KV_MAX),
	KF(KT_STRING, struct km_cgd_member, subscribed_topic_regex, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KFT(kd_cgd_assignment, struct km_cgd_member, assignment, 0, KV_MAX),
	KFT(kd_cgd_assignment, struct km_cgd_member, target_assignment, 0,
	    KV_MAX),
	KF(KT_INT8, struct km_cgd_member, member_type, 1, KV_MAX,
	    .kf_def = -1),
};
static const struct kdesc kd_cgd_member =
    KDESC("Member", struct km_cgd_member, cgd_member);

static const struct kfield cgd_group[] = {
	KF(KT_INT16, struct km_cgd_group, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_cgd_group, error_message, 0, KV_MAX, KNULL(0),
	    .kf_def = -1),
	KF(KT_STRING, struct km_cgd_group, group_id, 0, KV_MAX),
	KF(KT_STRING, struct km_cgd_group, group_state, 0, KV_MAX),
	KF(KT_INT32, struct km_cgd_group, group_epoch, 0, KV_MAX),
	KF(KT_INT32, struct km_cgd_group, assignment_epoch, 0, KV_MAX),
	KF(KT_STRING, struct km_cgd_group, assignor_name, 0, KV_MAX),
	KFS(kd_cgd_member, struct km_cgd_group, members, 0, KV_MAX),
	KF(KT_INT32, struct km_cgd_group, authorized_operations, 0, KV_MAX,
	    .kf_def = INT32_MIN),
};
static const struct kdesc kd_cgd_group =
    KDESC("DescribedGroup", struct km_cgd_group, cgd_group);

static const struct kfield cgd_resp[] = {
	KF(KT_INT32, struct km_cgd_resp, throttle_time_ms, 0, KV_MAX),
	KFS(kd_cgd_group, struct km_cgd_resp, groups, 0, KV_MAX),
};

static const struct kdesc kd_cgd_req =
    KDESC("ConsumerGroupDescribeRequest", struct km_cgd_req, cgd_req);
static const struct kdesc kd_cgd_resp =
    KDESC("ConsumerGroupDescribeResponse", struct km_cgd_resp, cgd_resp);

const struct kmsg kmsg_consumer_group_describe = {
	KAPI_CONSUMER_GROUP_DESCRIBE, "ConsumerGroupDescribe", 0, 1, 0,
	&kd_cgd_req, &kd_cgd_resp
};
