/*
 * Internal to proto/: the pieces every message codec (msg.c, msg_*.c)
 * shares.  Not for other modules.
 */
#ifndef FLUME_PROTO_MSG_CODEC_H
#define FLUME_PROTO_MSG_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

/*
 * Room for n elements of size sz from the arena; NULL for n <= 0 (nothing
 * to point at) and NULL with *fail set when the arena refuses.
 */
void	*msg_array(struct arena *a, int32_t n, size_t sz, int *fail);
/* The end of every decoder: all read, nothing short, nothing left over. */
int	 msg_done(const struct rbuf *rb);
/*
 * 1 with *error set when a response payload is exactly a non-zero
 * [error i16] (an answer to a request the broker could not decode).
 */
int	 msg_error_only(const uint8_t *p, size_t len, int16_t *error);

/*
 * The smallest wire size of one array element of each message, for
 * rbuf_count() (an element count the bytes left cannot hold is refused
 * before anything is allocated).  One place for every codec.
 */
#define MIN_STR			2			/* [u16 len] */
#define MIN_BYTES		4			/* [i32 len] */
#define MIN_ERROR		2			/* [error i16] */
#define MIN_TP			(MIN_STR + 4)		/* topic, partition */
/* msg.c */
#define MIN_METADATA_TOPIC	(2 + MIN_STR + 4)	/* error, name, count */
#define MIN_PARTITION_INFO	(4 + 8 + 8 + 8)
#define MIN_PRODUCE_PART	(MIN_STR + 4 + MIN_BYTES)
#define MIN_PRODUCE_RESULT	(2 + 8 + 8)
#define MIN_FETCH_PART		(MIN_STR + 4 + 8 + 4)
#define MIN_FETCH_RESULT	(2 + 8 + 8 + MIN_BYTES)
#define MIN_LIST_OFFSETS_PART	(MIN_STR + 4 + 8)
#define MIN_LIST_OFFSETS_RESULT	(2 + 8)
#define MIN_CHILD_INFO		(4 + 1 + 4 + 8 + 4)
/* msg_group.c */
#define MIN_COMMIT_PART		(MIN_STR + 4 + 8)
#define MIN_OFFSET_FETCH_RESULT	(MIN_STR + 4 + 2 + 8)
#define MIN_LISTING		(MIN_STR + 1 + 4 + 4)
#define MIN_MEMBER_DESC		(MIN_STR + MIN_STR + 4 + 4)
#define MIN_OFFSET_DESC		(MIN_STR + 4 + 8 + 8)
#define MIN_RESET_RESULT	(4 + 2 + 8)
/* msg_stats.c */
#define MIN_STATS_CHILD		(4 + 1 + 4 + 4 + 7 * 8)
#define MIN_STATS_PARTITION	(2 + 4 + 10 * 8 + 4 + 8)
#define MIN_STATS_BUCKET	(8 + 8)
#define MIN_STATS_ERROR		(2 + 8)
#define MIN_STATS_LAG		(2 + 2 + 4 + 8 + 8)

#endif
