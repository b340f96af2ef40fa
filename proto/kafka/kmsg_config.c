/*
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs, from
 * Kafka's DescribeConfigsRequest.json, DescribeConfigsResponse.json,
 * AlterConfigsRequest.json, AlterConfigsResponse.json,
 * IncrementalAlterConfigsRequest.json and
 * IncrementalAlterConfigsResponse.json (the union of Kafka 3.9 and 4.0):
 * one row per field, in wire order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_config.h"

/*
 * DescribeConfigsRequest: v1 IncludeSynonyms, v3 IncludeDocumentation,
 * v4 flexible.  The response: v0 IsDefault, v1 ConfigSource and the
 * synonyms instead, v3 ConfigType and Documentation.
 */
static const struct kfield describe_resource[] = {
	KF(KT_INT8, struct km_describe_configs_resource, resource_type, 0,
	    KV_MAX),
	KF(KT_STRING, struct km_describe_configs_resource, resource_name, 0,
	    KV_MAX),
	KFA(KT_STRING, struct km_describe_configs_resource,
	    configuration_keys, 0, KV_MAX, KNULL(0)),
};
static const struct kdesc kd_describe_resource =
    KDESC("DescribeConfigsResource", struct km_describe_configs_resource,
    describe_resource);

static const struct kfield describe_configs_req[] = {
	KFS(kd_describe_resource, struct km_describe_configs_req, resources, 0,
	    KV_MAX),
	KF(KT_BOOL, struct km_describe_configs_req, include_synonyms, 1,
	    KV_MAX),
	KF(KT_BOOL, struct km_describe_configs_req, include_documentation, 3,
	    KV_MAX),
};

static const struct kfield describe_synonym[] = {
	KF(KT_STRING, struct km_describe_configs_synonym, name, 1, KV_MAX),
	KF(KT_STRING, struct km_describe_configs_synonym, value, 1, KV_MAX,
	    KNULL(0)),
	KF(KT_INT8, struct km_describe_configs_synonym, source, 1, KV_MAX),
};
static const struct kdesc kd_describe_synonym =
    KDESC("DescribeConfigsSynonym", struct km_describe_configs_synonym,
    describe_synonym);

static const struct kfield describe_config[] = {
	KF(KT_STRING, struct km_describe_configs_config, name, 0, KV_MAX),
	KF(KT_STRING, struct km_describe_configs_config, value, 0, KV_MAX,
	    KNULL(0)),
	KF(KT_BOOL, struct km_describe_configs_config, read_only, 0, KV_MAX),
	KF(KT_BOOL, struct km_describe_configs_config, is_default, 0, 0),
	KF(KT_INT8, struct km_describe_configs_config, config_source, 1,
	    KV_MAX, .kf_def = -1),
	KF(KT_BOOL, struct km_describe_configs_config, is_sensitive, 0,
	    KV_MAX),
	KFS(kd_describe_synonym, struct km_describe_configs_config, synonyms,
	    1, KV_MAX),
	KF(KT_INT8, struct km_describe_configs_config, config_type, 3, KV_MAX),
	KF(KT_STRING, struct km_describe_configs_config, documentation, 3,
	    KV_MAX, KNULL(0), .kf_def = -1),
};
static const struct kdesc kd_describe_config =
    KDESC("DescribeConfigsResourceResult", struct km_describe_configs_config,
    describe_config);

static const struct kfield describe_result[] = {
	KF(KT_INT16, struct km_describe_configs_result, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_describe_configs_result, error_message, 0,
	    KV_MAX, KNULL(0), .kf_def = -1),
	KF(KT_INT8, struct km_describe_configs_result, resource_type, 0,
	    KV_MAX),
	KF(KT_STRING, struct km_describe_configs_result, resource_name, 0,
	    KV_MAX),
	KFS(kd_describe_config, struct km_describe_configs_result, configs, 0,
	    KV_MAX),
};
static const struct kdesc kd_describe_result =
    KDESC("DescribeConfigsResult", struct km_describe_configs_result,
    describe_result);

static const struct kfield describe_configs_resp[] = {
	KF(KT_INT32, struct km_describe_configs_resp, throttle_time_ms, 0,
	    KV_MAX),
	KFS(kd_describe_result, struct km_describe_configs_resp, results, 0,
	    KV_MAX),
};

static const struct kdesc kd_describe_configs_req =
    KDESC("DescribeConfigsRequest", struct km_describe_configs_req,
    describe_configs_req);
static const struct kdesc kd_describe_configs_resp =
    KDESC("DescribeConfigsResponse", struct km_describe_configs_resp,
    describe_configs_resp);

const struct kmsg kmsg_describe_configs = {
	KAPI_DESCRIBE_CONFIGS, "DescribeConfigs", 0, 4, 4,
	&kd_describe_configs_req, &kd_describe_configs_resp
};

/* AlterConfigs: v1 is v0 (throttling), v2 flexible. */
static const struct kfield alterable_config[] = {
	KF(KT_STRING, struct km_alterable_config, name, 0, KV_MAX),
	KF(KT_STRING, struct km_alterable_config, value, 0, KV_MAX, KNULL(0)),
};
static const struct kdesc kd_alterable_config =
    KDESC("AlterableConfig", struct km_alterable_config, alterable_config);

static const struct kfield alter_resource[] = {
	KF(KT_INT8, struct km_alter_configs_resource, resource_type, 0,
	    KV_MAX),
	KF(KT_STRING, struct km_alter_configs_resource, resource_name, 0,
	    KV_MAX),
	KFS(kd_alterable_config, struct km_alter_configs_resource, configs, 0,
	    KV_MAX),
};
static const struct kdesc kd_alter_resource =
    KDESC("AlterConfigsResource", struct km_alter_configs_resource,
    alter_resource);

static const struct kfield alter_configs_req[] = {
	KFS(kd_alter_resource, struct km_alter_configs_req, resources, 0,
	    KV_MAX),
	KF(KT_BOOL, struct km_alter_configs_req, validate_only, 0, KV_MAX),
};

static const struct kfield alter_result[] = {
	KF(KT_INT16, struct km_alter_configs_result, error_code, 0, KV_MAX),
	KF(KT_STRING, struct km_alter_configs_result, error_message, 0,
	    KV_MAX, KNULL(0), .kf_def = -1),
	KF(KT_INT8, struct km_alter_configs_result, resource_type, 0, KV_MAX),
	KF(KT_STRING, struct km_alter_configs_result, resource_name, 0,
	    KV_MAX),
};
static const struct kdesc kd_alter_result =
    KDESC("AlterConfigsResourceResponse", struct km_alter_configs_result,
    alter_result);

static const struct kfield alter_configs_resp[] = {
	KF(KT_INT32, struct km_alter_configs_resp, throttle_time_ms, 0,
	    KV_MAX),
	KFS(kd_alter_result, struct km_alter_configs_resp, responses, 0,
	    KV_MAX),
};

static const struct kdesc kd_alter_configs_req =
    KDESC("AlterConfigsRequest", struct km_alter_configs_req,
    alter_configs_req);
static const struct kdesc kd_alter_configs_resp =
    KDESC("AlterConfigsResponse", struct km_alter_configs_resp,
    alter_configs_resp);

const struct kmsg kmsg_alter_configs = {
	KAPI_ALTER_CONFIGS, "AlterConfigs", 0, 2, 2,
	&kd_alter_configs_req, &kd_alter_configs_resp
};

/* IncrementalAlterConfigs: v1 flexible. */
static const struct kfield incr_config[] = {
	KF(KT_STRING, struct km_alterable_config, name, 0, KV_MAX),
	KF(KT_INT8, struct km_alterable_config, config_operation, 0, KV_MAX),
	KF(KT_STRING, struct km_alterable_config, value, 0, KV_MAX, KNULL(0)),
};
static const struct kdesc kd_incr_config =
    KDESC("AlterableConfig", struct km_alterable_config, incr_config);

static const struct kfield incr_resource[] = {
	KF(KT_INT8, struct km_alter_configs_resource, resource_type, 0,
	    KV_MAX),
	KF(KT_STRING, struct km_alter_configs_resource, resource_name, 0,
	    KV_MAX),
	KFS(kd_incr_config, struct km_alter_configs_resource, configs, 0,
	    KV_MAX),
};
static const struct kdesc kd_incr_resource =
    KDESC("AlterConfigsResource", struct km_alter_configs_resource,
    incr_resource);

static const struct kfield incr_configs_req[] = {
	KFS(kd_incr_resource, struct km_alter_configs_req, resources, 0,
	    KV_MAX),
	KF(KT_BOOL, struct km_alter_configs_req, validate_only, 0, KV_MAX),
};

static const struct kdesc kd_incr_configs_req =
    KDESC("IncrementalAlterConfigsRequest", struct km_alter_configs_req,
    incr_configs_req);
static const struct kdesc kd_incr_configs_resp =
    KDESC("IncrementalAlterConfigsResponse", struct km_alter_configs_resp,
    alter_configs_resp);

const struct kmsg kmsg_incremental_alter_configs = {
	KAPI_INCREMENTAL_ALTER_CONFIGS, "IncrementalAlterConfigs", 0, 1, 1,
	&kd_incr_configs_req, &kd_incr_configs_resp
};
