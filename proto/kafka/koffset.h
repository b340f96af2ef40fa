/*
 * Committed offsets: OffsetCommit v0-2 and OffsetFetch v0-1.
 *
 * OffsetCommit request: group_id str, v1+ generation_id i32,
 *   v1+ member_id str, v2 retention_time_ms i64,
 *   topics [name str, partitions [partition i32, offset i64,
 *   v1 only: commit_timestamp i64, metadata nstr]]
 * OffsetCommit response: topics [name str, partitions [partition i32,
 *   error i16]]
 * OffsetFetch v0-1 request: group_id str, topics [name str,
 *   partitions [i32]]
 * OffsetFetch v0-1 response: topics [name str, partitions [partition i32,
 *   offset i64 (-1: none), metadata nstr, error i16]]
 */
#ifndef FLUME_PROTO_KAFKA_KOFFSET_H
#define FLUME_PROTO_KAFKA_KOFFSET_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

struct kcommit_part {
	int32_t		 partition;
	int64_t		 offset;
	int64_t		 timestamp;	/* v1 only; -1 otherwise */
	struct kstr	 metadata;
};

struct kcommit_topic {
	struct kstr		 name;
	int32_t			 npart;
	struct kcommit_part	*parts;
};

struct kcommit_req {
	struct kstr		 group_id;
	int32_t			 generation_id;	/* v0: -1 */
	struct kstr		 member_id;	/* v0: "" */
	int64_t			 retention_ms;	/* v2 only; -1 otherwise */
	int32_t			 ntopics;
	struct kcommit_topic	*topics;
};

/* OffsetCommit response: per partition an error. */
struct kpart_error {
	int32_t		 partition;
	int16_t		 error;
};

struct kcommit_topic_resp {
	struct kstr			 name;
	int32_t				 npart;
	const struct kpart_error	*parts;
};

struct kcommit_resp {
	int32_t				 ntopics;
	const struct kcommit_topic_resp	*topics;
};

struct koffset_fetch_topic {
	struct kstr	 name;
	int32_t		 npart;
	int32_t		*parts;
};

struct koffset_fetch_req {
	struct kstr			 group_id;
	int32_t				 ntopics;
	struct koffset_fetch_topic	*topics;
};

struct koffset_fetch_part_resp {
	int32_t		 partition;
	int64_t		 offset;
	struct kstr	 metadata;
	int16_t		 error;
};

struct koffset_fetch_topic_resp {
	struct kstr				 name;
	int32_t					 npart;
	const struct koffset_fetch_part_resp	*parts;
};

struct koffset_fetch_resp {
	int32_t					 ntopics;
	const struct koffset_fetch_topic_resp	*topics;
};

int	kcommit_decode_req(struct kcommit_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	kcommit_encode_resp(struct wbuf *wb, int16_t version,
	    const struct kcommit_resp *r);
int	koffset_fetch_decode_req(struct koffset_fetch_req *r, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);
void	koffset_fetch_encode_resp(struct wbuf *wb, int16_t version,
	    const struct koffset_fetch_resp *r);

#endif
