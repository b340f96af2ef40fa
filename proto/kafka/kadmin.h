/*
 * Topic administration: CreateTopics v0-2 and DeleteTopics v0-1.
 *
 * CreateTopics request: topics [name str, num_partitions i32,
 *   replication_factor i16, assignments [partition i32, broker_ids [i32]],
 *   configs [name str, value nstr]], timeout_ms i32,
 *   v1+ validate_only bool
 * CreateTopics response: v2+ throttle_time_ms i32,
 *   topics [name str, error i16, v1+ error_message nstr]
 * DeleteTopics request: topics [name str], timeout_ms i32
 * DeleteTopics response: v1+ throttle_time_ms i32, topics [name str,
 *   error i16]
 */
#ifndef FLUME_PROTO_KAFKA_KADMIN_H
#define FLUME_PROTO_KAFKA_KADMIN_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

struct kcreate_assignment {
	int32_t		 partition;
	int32_t		 nbrokers;
	int32_t		*brokers;
};

struct kcreate_config {
	struct kstr	 name;
	struct kstr	 value;
};

struct kcreate_topic {
	struct kstr			 name;
	int32_t				 num_partitions;
	int16_t				 replication_factor;
	int32_t				 nassign;
	struct kcreate_assignment	*assign;
	int32_t				 nconfigs;
	struct kcreate_config		*configs;
};

struct kcreate_topics_req {
	int32_t			 ntopics;
	struct kcreate_topic	*topics;
	int32_t			 timeout_ms;
	int			 validate_only;	/* v0: 0 */
};

struct ktopic_error {
	struct kstr	 name;
	int16_t		 error;
	struct kstr	 message;	/* CreateTopics v1+ only */
};

struct ktopic_errors_resp {
	int32_t				 throttle_ms;
	int32_t				 ntopics;
	const struct ktopic_error	*topics;
};

struct kdelete_topics_req {
	int32_t		 ntopics;
	struct kstr	*topics;
	int32_t		 timeout_ms;
};

int	kcreate_topics_decode_req(struct kcreate_topics_req *r,
	    int16_t version, const uint8_t *p, size_t len, struct arena *a);
void	kcreate_topics_encode_resp(struct wbuf *wb, int16_t version,
	    const struct ktopic_errors_resp *r);
int	kdelete_topics_decode_req(struct kdelete_topics_req *r,
	    int16_t version, const uint8_t *p, size_t len, struct arena *a);
void	kdelete_topics_encode_resp(struct wbuf *wb, int16_t version,
	    const struct ktopic_errors_resp *r);

#endif
