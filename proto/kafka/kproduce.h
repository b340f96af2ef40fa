/*
 * Produce v0-7 and InitProducerId v0-1.
 *
 * Produce request:
 *   v3+ transactional_id nstr, acks i16, timeout_ms i32,
 *   topics [name str, partitions [partition i32, records nbytes]]
 *   (v4-7 are v3's layout; they tell a broker what the client can take)
 * Produce response:
 *   topics [name str, partitions [partition i32, error i16,
 *   base_offset i64, v2+ log_append_time i64, v5+ log_start_offset i64]],
 *   v1+ throttle_time_ms i32
 *
 * v0-2 exist only because librdkafka 2.0.2 compresses with gzip, snappy
 * or lz4 only when the broker's Produce range reaches down to v0; it
 * then sends v3+ anyway.  A v0-2 request carrying a v0/v1 message set
 * is refused per partition (the worker's check), not decoded here.
 * InitProducerId v0-1 request (v1 differs only in what it may return):
 *   transactional_id nstr, transaction_timeout_ms i32
 * InitProducerId v0-1 response:
 *   throttle_time_ms i32, error i16, producer_id i64, producer_epoch i16
 */
#ifndef FLUME_PROTO_KAFKA_KPRODUCE_H
#define FLUME_PROTO_KAFKA_KPRODUCE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

struct kproduce_part {
	int32_t		 partition;
	struct kstr	 records;	/* RecordBatch bytes, zero copy */
};

struct kproduce_topic {
	struct kstr		 name;
	int32_t			 npart;
	struct kproduce_part	*parts;
};

struct kproduce_req {
	struct kstr		 transactional_id;	/* v0-2: null */
	int16_t			 acks;
	int32_t			 timeout_ms;
	int32_t			 ntopics;
	struct kproduce_topic	*topics;
};

struct kproduce_part_resp {
	int32_t		 partition;
	int16_t		 error;
	int64_t		 base_offset;
	int64_t		 log_append_time;	/* -1: CreateTime is used */
	int64_t		 log_start_offset;	/* v5+ */
};

struct kproduce_topic_resp {
	struct kstr			 name;
	int32_t				 npart;
	struct kproduce_part_resp	*parts;
};

struct kproduce_resp {
	int32_t				 ntopics;
	struct kproduce_topic_resp	*topics;
	int32_t				 throttle_ms;
};

struct kinit_pid_req {
	struct kstr	 transactional_id;
	int32_t		 txn_timeout_ms;
};

struct kinit_pid_resp {
	int32_t		 throttle_ms;
	int16_t		 error;
	int64_t		 producer_id;
	int16_t		 producer_epoch;
};

/* Decoders: 0, or -1 for a body that does not parse exactly. */
int	kproduce_decode_req(struct kproduce_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kproduce_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kproduce_resp *r);

int	kinit_pid_decode_req(struct kinit_pid_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kinit_pid_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kinit_pid_resp *r);

#endif
