/*
 * Metadata v0-4 and ApiVersions v0-2.
 *
 * Metadata request: topics [name str] (v1+: null means all topics; v0:
 *   empty means all), v4: allow_auto_topic_creation bool
 * Metadata response:
 *   v3+ throttle_time_ms i32,
 *   brokers [node_id i32, host str, port i32, v1+ rack nstr],
 *   v2+ cluster_id nstr, v1+ controller_id i32,
 *   topics [error i16, name str, v1+ is_internal bool,
 *   partitions [error i16, partition i32, leader i32, replicas [i32],
 *   isr [i32]]]
 * ApiVersions v0-2 request: empty.
 * ApiVersions response: error i16, api_versions [key i16, min i16,
 *   max i16], v1+ throttle_time_ms i32
 */
#ifndef FLUME_PROTO_KAFKA_KMETA_H
#define FLUME_PROTO_KAFKA_KMETA_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

struct kmetadata_req {
	int32_t		 ntopics;	/* -1: null (all topics) */
	struct kstr	*topics;
	int		 allow_auto_create;	/* v4 field; 1 for v0-3 */
};

struct kmetadata_broker {
	int32_t		 node_id;
	struct kstr	 host;
	int32_t		 port;
	struct kstr	 rack;
};

struct kmetadata_part {
	int16_t		 error;
	int32_t		 partition;
	int32_t		 leader;
	int32_t		 nreplicas;
	const int32_t	*replicas;
	int32_t		 nisr;
	const int32_t	*isr;
};

struct kmetadata_topic {
	int16_t			 error;
	struct kstr		 name;
	int			 is_internal;
	int32_t			 npart;
	struct kmetadata_part	*parts;
};

struct kmetadata_resp {
	int32_t			 throttle_ms;
	int32_t			 nbrokers;
	struct kmetadata_broker	*brokers;
	struct kstr		 cluster_id;
	int32_t			 controller_id;
	int32_t			 ntopics;
	struct kmetadata_topic	*topics;
};

struct kapi_versions_resp {
	int16_t				 error;
	int32_t				 napis;
	const struct kapi_version	*apis;
	int32_t				 throttle_ms;
};

int	kmetadata_decode_req(struct kmetadata_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kmetadata_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kmetadata_resp *r);

/* v0-2 only: a v3+ body is flexible and is not decoded. */
int	kapi_versions_decode_req(int16_t version, const uint8_t *p, size_t len);
void	kapi_versions_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kapi_versions_resp *r);

#endif
