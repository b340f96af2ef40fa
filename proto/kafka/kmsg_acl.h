/*
 * ACLs and SCRAM credentials as descriptions (kdesc.h): DescribeAcls
 * (29), CreateAcls (30), DeleteAcls (31), DescribeUserScramCredentials
 * (50) and AlterUserScramCredentials (51).
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_ACL_H
#define FLUME_PROTO_KAFKA_KMSG_ACL_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/*
 * DescribeAcls v0-3, flexible 2+; DeleteAcls' filters and CreateAcls'
 * creations have the same fields (a creation's strings not nullable).
 */
struct km_acl_filter {
	int8_t		 resource_type;
	struct kstr	 resource_name;			/* nullable */
	int8_t		 pattern_type;			/* 1+, default 3 */
	struct kstr	 principal;			/* nullable */
	struct kstr	 host;				/* nullable */
	int8_t		 operation;
	int8_t		 permission_type;
};

struct km_acl_description {
	struct kstr	 principal;
	struct kstr	 host;
	int8_t		 operation;
	int8_t		 permission_type;
};

struct km_acl_resource {
	int8_t		 resource_type;
	struct kstr	 resource_name;
	int8_t		 pattern_type;			/* 1+ */
	struct karray	 acls;			/* km_acl_description */
};

struct km_describe_acls_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct karray	 resources;			/* km_acl_resource */
};

/* CreateAcls v0-3, flexible 2+. */
struct km_create_acls_req {
	struct karray	 creations;			/* km_acl_filter */
};

struct km_acl_creation_result {
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
};

struct km_create_acls_resp {
	int32_t		 throttle_time_ms;
	struct karray	 results;		/* km_acl_creation_result */
};

/* DeleteAcls v0-3, flexible 2+. */
struct km_delete_acls_req {
	struct karray	 filters;			/* km_acl_filter */
};

struct km_acl_matching {
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	int8_t		 resource_type;
	struct kstr	 resource_name;
	int8_t		 pattern_type;			/* 1+ */
	struct kstr	 principal;
	struct kstr	 host;
	int8_t		 operation;
	int8_t		 permission_type;
};

struct km_acl_filter_result {
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct karray	 matching_acls;			/* km_acl_matching */
};

struct km_delete_acls_resp {
	int32_t		 throttle_time_ms;
	struct karray	 filter_results;	/* km_acl_filter_result */
};

/* DescribeUserScramCredentials v0, flexible. */
struct km_scram_user_name {
	struct kstr	 name;
};

struct km_describe_scram_req {
	struct karray	 users;		/* km_scram_user_name, nullable */
};

struct km_scram_credential_info {
	int8_t		 mechanism;
	int32_t		 iterations;
};

struct km_describe_scram_result {
	struct kstr	 user;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct karray	 credential_infos;	/* km_scram_credential_info */
};

struct km_describe_scram_resp {
	int32_t		 throttle_time_ms;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	struct karray	 results;		/* km_describe_scram_result */
};

/* AlterUserScramCredentials v0, flexible. */
struct km_scram_deletion {
	struct kstr	 name;
	int8_t		 mechanism;
};

struct km_scram_upsertion {
	struct kstr	 name;
	int8_t		 mechanism;
	int32_t		 iterations;
	struct kstr	 salt;				/* bytes */
	struct kstr	 salted_password;		/* bytes */
};

struct km_alter_scram_req {
	struct karray	 deletions;			/* km_scram_deletion */
	struct karray	 upsertions;			/* km_scram_upsertion */
};

struct km_alter_scram_result {
	struct kstr	 user;
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
};

struct km_alter_scram_resp {
	int32_t		 throttle_time_ms;
	struct karray	 results;		/* km_alter_scram_result */
};

extern const struct kmsg kmsg_describe_acls, kmsg_create_acls,
    kmsg_delete_acls, kmsg_describe_scram, kmsg_alter_scram;

#endif
