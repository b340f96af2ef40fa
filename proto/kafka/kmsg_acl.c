/*
 * DescribeAcls, CreateAcls, DeleteAcls, DescribeUserScramCredentials and
 * AlterUserScramCredentials, from Kafka's <Name>Request.json and
 * <Name>Response.json (the union of Kafka 3.9 and 4.0: the ACL APIs
 * 0-3, 3.9 serving v0, 4.0 from v1; the SCRAM APIs v0): one row per
 * field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_acl.h"

/*
 * The ACL APIs: v1 the pattern type (KIP-290; v0 is LITERAL), v2
 * flexible, v3 the USER resource type (KIP-554: no new field).
 */
static const struct kfield acl_filter[] = {
	KF(KT_INT8, struct km_acl_filter, resource_type, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_filter, resource_name, 0, KV_MAX,
	    KNULL(0)),
	KF(KT_INT8, struct km_acl_filter, pattern_type, 1, KV_MAX,
	    .kf_def = 3),
	KF(KT_STRING, struct km_acl_filter, principal, 0, KV_MAX, KNULL(0)),
	KF(KT_STRING, struct km_acl_filter, host, 0, KV_MAX, KNULL(0)),
	KF(KT_INT8, struct km_acl_filter, operation, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_filter, permission_type, 0, KV_MAX),
};
static const struct kdesc kd_acl_filter =
    KDESC("DeleteAclsFilter", struct km_acl_filter, acl_filter);

static const struct kfield acl_description[] = {
	KF(KT_STRING, struct km_acl_description, principal, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_description, host, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_description, operation, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_description, permission_type, 0, KV_MAX),
};
static const struct kdesc kd_acl_description =
    KDESC("AclDescription", struct km_acl_description, acl_description);

static const struct kfield acl_resource[] = {
	KF(KT_INT8, struct km_acl_resource, resource_type, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_resource, resource_name, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_resource, pattern_type, 1, KV_MAX,
	    .kf_def = 3),
	KFS(kd_acl_description, struct km_acl_resource, acls, 0, KV_MAX),
};
static const struct kdesc kd_acl_resource =
    KDESC("DescribeAclsResource", struct km_acl_resource, acl_resource);

static const struct kfield describe_acls_resp[] = {
	KF(KT_INT32, struct km_describe_acls_resp, throttle_time_ms, 0,
	    KV_MAX),
	KF(KT_INT16, struct km_describe_acls_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_describe_acls_resp, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KFS(kd_acl_resource, struct km_describe_acls_resp, resources, 0,
	    KV_MAX),
};

static const struct kdesc kd_describe_acls_req =
    KDESC("DescribeAclsRequest", struct km_acl_filter, acl_filter);
static const struct kdesc kd_describe_acls_resp =
    KDESC("DescribeAclsResponse", struct km_describe_acls_resp,
    describe_acls_resp);

const struct kmsg kmsg_describe_acls = {
	KAPI_DESCRIBE_ACLS, "DescribeAcls", 0, 3, 2,
	&kd_describe_acls_req, &kd_describe_acls_resp
};

/* A filter's fields, none nullable. */
static const struct kfield acl_creation[] = {
	KF(KT_INT8, struct km_acl_filter, resource_type, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_filter, resource_name, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_filter, pattern_type, 1, KV_MAX,
	    .kf_def = 3),
	KF(KT_STRING, struct km_acl_filter, principal, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_filter, host, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_filter, operation, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_filter, permission_type, 0, KV_MAX),
};
static const struct kdesc kd_acl_creation =
    KDESC("AclCreation", struct km_acl_filter, acl_creation);

static const struct kfield create_acls_req[] = {
	KFS(kd_acl_creation, struct km_create_acls_req, creations, 0, KV_MAX),
};

static const struct kfield acl_creation_result[] = {
	KF(KT_INT16, struct km_acl_creation_result, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_creation_result, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
};
static const struct kdesc kd_acl_creation_result =
    KDESC("AclCreationResult", struct km_acl_creation_result,
    acl_creation_result);

static const struct kfield create_acls_resp[] = {
	KF(KT_INT32, struct km_create_acls_resp, throttle_time_ms, 0, KV_MAX),
	KFS(kd_acl_creation_result, struct km_create_acls_resp, results, 0,
	    KV_MAX),
};

static const struct kdesc kd_create_acls_req =
    KDESC("CreateAclsRequest", struct km_create_acls_req, create_acls_req);
static const struct kdesc kd_create_acls_resp =
    KDESC("CreateAclsResponse", struct km_create_acls_resp,
    create_acls_resp);

const struct kmsg kmsg_create_acls = {
	KAPI_CREATE_ACLS, "CreateAcls", 0, 3, 2,
	&kd_create_acls_req, &kd_create_acls_resp
};

static const struct kfield delete_acls_req[] = {
	KFS(kd_acl_filter, struct km_delete_acls_req, filters, 0, KV_MAX),
};

static const struct kfield acl_matching[] = {
	KF(KT_INT16, struct km_acl_matching, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_matching, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KF(KT_INT8, struct km_acl_matching, resource_type, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_matching, resource_name, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_matching, pattern_type, 1, KV_MAX,
	    .kf_def = 3),
	KF(KT_STRING, struct km_acl_matching, principal, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_matching, host, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_matching, operation, 0, KV_MAX),
	KF(KT_INT8, struct km_acl_matching, permission_type, 0, KV_MAX),
};
static const struct kdesc kd_acl_matching =
    KDESC("DeleteAclsMatchingAcl", struct km_acl_matching, acl_matching);

static const struct kfield acl_filter_result[] = {
	KF(KT_INT16, struct km_acl_filter_result, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_acl_filter_result, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KFS(kd_acl_matching, struct km_acl_filter_result, matching_acls, 0,
	    KV_MAX),
};
static const struct kdesc kd_acl_filter_result =
    KDESC("DeleteAclsFilterResult", struct km_acl_filter_result,
    acl_filter_result);

static const struct kfield delete_acls_resp[] = {
	KF(KT_INT32, struct km_delete_acls_resp, throttle_time_ms, 0, KV_MAX),
	KFS(kd_acl_filter_result, struct km_delete_acls_resp, filter_results,
	    0, KV_MAX),
};

static const struct kdesc kd_delete_acls_req =
    KDESC("DeleteAclsRequest", struct km_delete_acls_req, delete_acls_req);
static const struct kdesc kd_delete_acls_resp =
    KDESC("DeleteAclsResponse", struct km_delete_acls_resp,
    delete_acls_resp);

const struct kmsg kmsg_delete_acls = {
	KAPI_DELETE_ACLS, "DeleteAcls", 0, 3, 2,
	&kd_delete_acls_req, &kd_delete_acls_resp
};

/* The SCRAM credential APIs (KIP-554): v0 only, flexible. */
static const struct kfield scram_user_name[] = {
	KF(KT_STRING, struct km_scram_user_name, name, 0, KV_MAX),
};
static const struct kdesc kd_scram_user_name =
    KDESC("UserName", struct km_scram_user_name, scram_user_name);

static const struct kfield describe_scram_req[] = {
	KFS(kd_scram_user_name, struct km_describe_scram_req, users, 0,
	    KV_MAX, KNULL(0)),
};

static const struct kfield scram_credential_info[] = {
	KF(KT_INT8, struct km_scram_credential_info, mechanism, 0, KV_MAX),
	KF(KT_INT32, struct km_scram_credential_info, iterations, 0, KV_MAX),
};
static const struct kdesc kd_scram_credential_info =
    KDESC("CredentialInfo", struct km_scram_credential_info,
    scram_credential_info);

static const struct kfield describe_scram_result[] = {
	KF(KT_STRING, struct km_describe_scram_result, user, 0, KV_MAX),
	KF(KT_INT16, struct km_describe_scram_result, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_describe_scram_result, error_message, 0,
	    KV_MAX, KNULL(0), .kf_def = -1),
	KFS(kd_scram_credential_info, struct km_describe_scram_result,
	    credential_infos, 0, KV_MAX),
};
static const struct kdesc kd_describe_scram_result =
    KDESC("DescribeUserScramCredentialsResult",
    struct km_describe_scram_result, describe_scram_result);

static const struct kfield describe_scram_resp[] = {
	KF(KT_INT32, struct km_describe_scram_resp, throttle_time_ms, 0,
	    KV_MAX),
	KF(KT_INT16, struct km_describe_scram_resp, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_describe_scram_resp, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
	KFS(kd_describe_scram_result, struct km_describe_scram_resp, results,
	    0, KV_MAX),
};

static const struct kdesc kd_describe_scram_req =
    KDESC("DescribeUserScramCredentialsRequest",
    struct km_describe_scram_req, describe_scram_req);
static const struct kdesc kd_describe_scram_resp =
    KDESC("DescribeUserScramCredentialsResponse",
    struct km_describe_scram_resp, describe_scram_resp);

const struct kmsg kmsg_describe_scram = {
	KAPI_DESCRIBE_USER_SCRAM_CREDENTIALS, "DescribeUserScramCredentials",
	0, 0, 0, &kd_describe_scram_req, &kd_describe_scram_resp
};

static const struct kfield scram_deletion[] = {
	KF(KT_STRING, struct km_scram_deletion, name, 0, KV_MAX),
	KF(KT_INT8, struct km_scram_deletion, mechanism, 0, KV_MAX),
};
static const struct kdesc kd_scram_deletion =
    KDESC("ScramCredentialDeletion", struct km_scram_deletion,
    scram_deletion);

static const struct kfield scram_upsertion[] = {
	KF(KT_STRING, struct km_scram_upsertion, name, 0, KV_MAX),
	KF(KT_INT8, struct km_scram_upsertion, mechanism, 0, KV_MAX),
	KF(KT_INT32, struct km_scram_upsertion, iterations, 0, KV_MAX),
	KF(KT_BYTES, struct km_scram_upsertion, salt, 0, KV_MAX),
	KF(KT_BYTES, struct km_scram_upsertion, salted_password, 0, KV_MAX),
};
static const struct kdesc kd_scram_upsertion =
    KDESC("ScramCredentialUpsertion", struct km_scram_upsertion,
    scram_upsertion);

static const struct kfield alter_scram_req[] = {
	KFS(kd_scram_deletion, struct km_alter_scram_req, deletions, 0,
	    KV_MAX),
	KFS(kd_scram_upsertion, struct km_alter_scram_req, upsertions, 0,
	    KV_MAX),
};

static const struct kfield alter_scram_result[] = {
	KF(KT_STRING, struct km_alter_scram_result, user, 0, KV_MAX),
	KF(KT_INT16, struct km_alter_scram_result, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_alter_scram_result, error_message, 0, KV_MAX,
	    KNULL(0), .kf_def = -1),
};
static const struct kdesc kd_alter_scram_result =
    KDESC("AlterUserScramCredentialsResult",
    struct km_alter_scram_result, alter_scram_result);

static const struct kfield alter_scram_resp[] = {
	KF(KT_INT32, struct km_alter_scram_resp, throttle_time_ms, 0, KV_MAX),
	KFS(kd_alter_scram_result, struct km_alter_scram_resp, results, 0,
	    KV_MAX),
};

static const struct kdesc kd_alter_scram_req =
    KDESC("AlterUserScramCredentialsRequest", struct km_alter_scram_req,
    alter_scram_req);
static const struct kdesc kd_alter_scram_resp =
    KDESC("AlterUserScramCredentialsResponse",
    struct km_alter_scram_resp, alter_scram_resp);

const struct kmsg kmsg_alter_scram = {
	KAPI_ALTER_USER_SCRAM_CREDENTIALS, "AlterUserScramCredentials",
	0, 0, 0, &kd_alter_scram_req, &kd_alter_scram_resp
};
