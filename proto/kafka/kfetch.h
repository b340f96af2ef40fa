/*
 * Fetch v4-10 and ListOffsets v1-2.
 *
 * Fetch request:
 *   replica_id i32, max_wait_ms i32, min_bytes i32, max_bytes i32,
 *   isolation_level i8, v7+ session_id i32, v7+ session_epoch i32,
 *   topics [name str, partitions [partition i32,
 *   v9+ current_leader_epoch i32, fetch_offset i64,
 *   v5+ log_start_offset i64, partition_max_bytes i32]],
 *   v7+ forgotten_topics [name str, partitions [i32]]
 *   (v6 is v5's layout, v8 v7's, v10 v9's)
 * Fetch response:
 *   throttle_time_ms i32, v7+ error i16, v7+ session_id i32,
 *   topics [name str, partitions [partition i32, error i16,
 *   high_watermark i64, last_stable_offset i64,
 *   v5+ log_start_offset i64, aborted_transactions nullable
 *   [producer_id i64, first_offset i64], records nbytes]]
 *
 * Flume has no fetch sessions (KIP-227): every answer is a full one
 * with session_id 0, which tells the client no session was made, so the
 * forgotten topics of a request are ignored.  Only a request that
 * refers to a session (a non-zero session_id, or epoch > 0 without one)
 * is refused, with the top-level error and no topics.  A
 * single node has one leader epoch and no replicas to fence, so the
 * current_leader_epoch is not checked either.
 *
 * ListOffsets request:
 *   replica_id i32, v2 isolation_level i8, topics [name str,
 *   partitions [partition i32, timestamp i64]]
 *   (-1 latest, -2 earliest, else a time in ms)
 * ListOffsets response:
 *   v2 throttle_time_ms i32, topics [name str, partitions
 *   [partition i32, error i16, timestamp i64, offset i64]]
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
	int32_t		 leader_epoch;		/* v9+; -1 otherwise */
	int64_t		 fetch_offset;
	int64_t		 log_start_offset;	/* v5+ (followers'); -1 otherwise */
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
	int32_t			 session_id;		/* v7+; 0 otherwise */
	int32_t			 session_epoch;		/* v7+; -1 otherwise */
	int32_t			 ntopics;
	struct kfetch_topic	*topics;
	int32_t			 nforgotten;		/* v7+: parts in them */
};

struct kfetch_part_resp {
	int32_t		 partition;
	int16_t		 error;
	int64_t		 high_watermark;
	int64_t		 last_stable_offset;
	int64_t		 log_start_offset;	/* v5+ */
	struct kstr	 records;	/* written from memory by kfetch_encode_resp */
};

struct kfetch_topic_resp {
	struct kstr		 name;
	int32_t			 npart;
	struct kfetch_part_resp	*parts;
};

struct kfetch_resp {
	int32_t			 throttle_ms;
	int16_t			 error;			/* v7+ */
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
	int8_t				 isolation_level;	/* v2 */
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
	int32_t				 throttle_ms;		/* v2 */
	int32_t				 ntopics;
	struct klist_offsets_topic_resp	*topics;
};

#define KLIST_OFFSETS_LATEST	(-1)
#define KLIST_OFFSETS_EARLIEST	(-2)

int	kfetch_decode_req(struct kfetch_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kfetch_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kfetch_resp *r);
/*
 * The pieces: begin, then per topic a topic, then per partition a part.
 * begin writes a v7+ answer's error and session_id 0 (no session).
 */
void	kfetch_resp_begin(struct wbuf *wb, int16_t version,
	    int32_t throttle_ms, int16_t error, int32_t ntopics);
void	kfetch_resp_topic(struct wbuf *wb, struct kstr name, int32_t npart);
/* Everything of a partition up to and including the records length. */
void	kfetch_resp_part(struct wbuf *wb, int16_t version,
	    const struct kfetch_part_resp *pr, int32_t records_len);

int	klist_offsets_decode_req(struct klist_offsets_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	klist_offsets_encode_resp(struct wbuf *wb, int16_t version,
	    const struct klist_offsets_resp *r);

#endif
