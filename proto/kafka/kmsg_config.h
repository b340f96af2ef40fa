/*
 * Topic and broker settings as descriptions (kdesc.h): DescribeConfigs
 * (32) v0-4, AlterConfigs (33) v0-2, IncrementalAlterConfigs (44) v0-1.
 */
#ifndef FLUME_PROTO_KAFKA_KMSG_CONFIG_H
#define FLUME_PROTO_KAFKA_KMSG_CONFIG_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* Kafka's ConfigResource.Type numbers. */
#define KCONFIG_RESOURCE_TOPIC	2
#define KCONFIG_RESOURCE_BROKER	4

/* DescribeConfigs v0-4, flexible 4+. */
struct km_describe_configs_resource {
	int8_t		 resource_type;
	struct kstr	 resource_name;
	struct karray	 configuration_keys;	/* kstr, nullable */
};

struct km_describe_configs_req {
	struct karray	 resources;	/* km_describe_configs_resource */
	uint8_t		 include_synonyms;		/* 1+ */
	uint8_t		 include_documentation;		/* 3+ */
};

struct km_describe_configs_synonym {
	struct kstr	 name;
	struct kstr	 value;				/* nullable */
	int8_t		 source;
};

struct km_describe_configs_config {
	struct kstr	 name;
	struct kstr	 value;				/* nullable */
	uint8_t		 read_only;
	uint8_t		 is_default;			/* 0 only */
	int8_t		 config_source;			/* 1+ */
	uint8_t		 is_sensitive;
	struct karray	 synonyms;	/* km_describe_configs_synonym, 1+ */
	int8_t		 config_type;			/* 3+ */
	struct kstr	 documentation;			/* 3+, nullable */
};

struct km_describe_configs_result {
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	int8_t		 resource_type;
	struct kstr	 resource_name;
	struct karray	 configs;	/* km_describe_configs_config */
};

struct km_describe_configs_resp {
	int32_t		 throttle_time_ms;
	struct karray	 results;	/* km_describe_configs_result */
};

/*
 * AlterConfigs v0-2 (flexible 2+) and IncrementalAlterConfigs v0-1
 * (flexible 1+): the same shapes, the incremental one with an
 * operation per key.
 */
struct km_alterable_config {
	struct kstr	 name;
	int8_t		 config_operation;	/* incremental only */
	struct kstr	 value;				/* nullable */
};

struct km_alter_configs_resource {
	int8_t		 resource_type;
	struct kstr	 resource_name;
	struct karray	 configs;		/* km_alterable_config */
};

struct km_alter_configs_req {
	struct karray	 resources;	/* km_alter_configs_resource */
	uint8_t		 validate_only;
};

struct km_alter_configs_result {
	int16_t		 error_code;
	struct kstr	 error_message;			/* nullable */
	int8_t		 resource_type;
	struct kstr	 resource_name;
};

struct km_alter_configs_resp {
	int32_t		 throttle_time_ms;
	struct karray	 responses;	/* km_alter_configs_result */
};

extern const struct kmsg kmsg_describe_configs, kmsg_alter_configs,
    kmsg_incremental_alter_configs;

#endif
