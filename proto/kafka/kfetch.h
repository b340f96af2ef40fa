/*
 * Fetch v4 and ListOffsets v1.
 *
 * Fetch v4 request:
 *   replica_id i32, max_wait_ms i32, min_bytes i32, max_bytes i32,
 *   isolation_level i8, topics [name str, partitions [partition i32,
 *   fetch_offset i64, partition_max_bytes i32]]
 * Fetch v4 response:
 *   throttle_time_ms i32, topics [name str, partitions [partition i32,
 *   error i16, high_watermark i64, last_stable_offset i64,
 *   aborted_transactions nullable [producer_id i64, first_offset i64],
 *   records nbytes]]
 * ListOffsets v1 request:
 *   replica_id i32, topics [name str, partitions [partition i32,
 *   timestamp i64]]    (-1 latest, -2 earliest, else a time in ms)
 * ListOffsets v1 response:
 *   topics [name str, partitions [partition i32, error i16,
 *   timestamp i64, offset i64]]
 *
 * The fetch response is also written piecewise (kfetch_resp_*) so that a
 * partition's records can follow their length from a file (sendfile)
 * instead of from memory.
 */
#ifndef FLUME_PROTO_KAFKA_KFETCH_H
#define FLUME_PROTO_KAFKA_KFETCH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

struct kfetch_part {
	int32_t		 partition;
	int64_t		 fetch_offset;
	int32_t		 max_bytes;
};

struct kfetch_topic {
	struct kstr		 name;
	int32_t			 npart;
	struct kfetch_part	*parts;
};

struct kfetch_req {
	int32_t			 replica_id;
	int32_t			 max_wait_ms;
	int32_t			 min_bytes;
	int32_t			 max_bytes;
	int8_t			 isolation_level;
	int32_t			 ntopics;
	struct kfetch_topic	*topics;
};

struct kfetch_part_resp {
	int32_t		 partition;
	int16_t		 error;
	int64_t		 high_watermark;
	int64_t		 last_stable_offset;
	struct kstr	 records;	/* written from memory by kfetch_encode_resp */
};

struct kfetch_topic_resp {
	struct kstr		 name;
	int32_t			 npart;
	struct kfetch_part_resp	*parts;
};

struct kfetch_resp {
	int32_t			 throttle_ms;
	int32_t			 ntopics;
	struct kfetch_topic_resp *topics;
};

struct klist_offsets_part {
	int32_t		 partition;
	int64_t		 timestamp;
};

struct klist_offsets_topic {
	struct kstr			 name;
	int32_t				 npart;
	struct klist_offsets_part	*parts;
};

struct klist_offsets_req {
	int32_t				 replica_id;
	int32_t				 ntopics;
	struct klist_offsets_topic	*topics;
};

struct klist_offsets_part_resp {
	int32_t		 partition;
	int16_t		 error;
	int64_t		 timestamp;
	int64_t		 offset;
};

struct klist_offsets_topic_resp {
	struct kstr			 name;
	int32_t				 npart;
	struct klist_offsets_part_resp	*parts;
};

struct klist_offsets_resp {
	int32_t				 ntopics;
	struct klist_offsets_topic_resp	*topics;
};

#define KLIST_OFFSETS_LATEST	(-1)
#define KLIST_OFFSETS_EARLIEST	(-2)

int	kfetch_decode_req(struct kfetch_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kfetch_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kfetch_resp *r);
/* The pieces: begin, then per topic a topic, then per partition a part. */
void	kfetch_resp_begin(struct wbuf *wb, int32_t throttle_ms, int32_t ntopics);
void	kfetch_resp_topic(struct wbuf *wb, struct kstr name, int32_t npart);
/* Everything of a partition up to and including the records length. */
void	kfetch_resp_part(struct wbuf *wb, const struct kfetch_part_resp *pr,
	    int32_t records_len);

int	klist_offsets_decode_req(struct klist_offsets_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	klist_offsets_encode_resp(struct wbuf *wb, int16_t version,
	    const struct klist_offsets_resp *r);

#endif
