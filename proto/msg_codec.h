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
 * A message layout as a table: one row per wire field, in wire order,
 * saying where the field lives in the C struct.  A message's encoder and
 * decoder walk the same table, so they cannot disagree about the bytes,
 * and msg_layout_put()/msg_layout_get() are the only code that turns a
 * row into wire bytes and back.  Messages with a field a row cannot say
 * (a conditional nonce, records by reference) keep a hand-written codec.
 */
enum msg_type {
	MSG_T_I8,
	MSG_T_I16,
	MSG_T_I32,
	MSG_T_I64,
	MSG_T_STR,	/* [u16 len][bytes]: const char *, size_t length */
	MSG_T_RECORDS,	/* [i32 len][bytes]: never null on input */
	MSG_T_RAW,	/* a fixed number of bytes without a length */
	MSG_T_ARRAY	/* [count i32]{element}: int32_t count, pointer */
};

struct msg_layout;

/*
 * One row.  mf_off is where the value (or the string, records or array
 * pointer) lives; mf_len where its length or count lives, or for RAW
 * its size; an ARRAY row also has its element's size and layout.
 */
struct msg_field {
	enum msg_type		 mf_type;
	size_t			 mf_off;
	size_t			 mf_len;
	size_t			 mf_size;
	const struct msg_layout	*mf_elem;
};

/*
 * ml_min: an element's smallest wire size, for rbuf_count(); ml_resp: a
 * response, which may be a lone [error i16].
 */
struct msg_layout {
	const struct msg_field	*ml_fields;
	size_t			 ml_nfields;
	size_t			 ml_min;
	int			 ml_resp;
};

/*
 * offsetof(T, f), refusing to compile unless T's member f has the type
 * the row reads and writes through (a table row that names an int32_t
 * member as an i64 would otherwise corrupt the struct silently).
 */
#define MSG_OFF(T, f, type)						\
	(offsetof(T, f) + 0 * sizeof(char[1 - 2 *			\
	    !__builtin_types_compatible_p(__typeof__(((T *)0)->f), type)]))

#define MSG_I8(T, f)	{ MSG_T_I8, MSG_OFF(T, f, int8_t), 0, 0, NULL }
#define MSG_I16(T, f)	{ MSG_T_I16, MSG_OFF(T, f, int16_t), 0, 0, NULL }
#define MSG_I32(T, f)	{ MSG_T_I32, MSG_OFF(T, f, int32_t), 0, 0, NULL }
#define MSG_I64(T, f)	{ MSG_T_I64, MSG_OFF(T, f, int64_t), 0, 0, NULL }
#define MSG_STR(T, f, flen)						\
	{ MSG_T_STR, MSG_OFF(T, f, const char *),			\
	    MSG_OFF(T, flen, size_t), 0, NULL }
#define MSG_RECORDS(T, f, flen)						\
	{ MSG_T_RECORDS, MSG_OFF(T, f, const uint8_t *),		\
	    MSG_OFF(T, flen, int32_t), 0, NULL }
#define MSG_RAW(T, f)							\
	{ MSG_T_RAW, offsetof(T, f), sizeof(((T *)0)->f), 0, NULL }
#define MSG_ARRAY(T, fcount, f, elem)					\
	{ MSG_T_ARRAY, offsetof(T, f), MSG_OFF(T, fcount, int32_t),	\
	    sizeof(*((T *)0)->f), &(elem) }

#define MSG_NROWS(rows)	(sizeof(rows) / sizeof((rows)[0]))
/* A whole request payload. */
#define MSG_REQUEST(rows)	{ (rows), MSG_NROWS(rows), 0, 0 }
/*
 * A whole response payload.  Its first row must be the [error i16] every
 * response starts with: a lone non-zero one is a whole answer too.
 */
#define MSG_RESPONSE(rows)	{ (rows), MSG_NROWS(rows), 0, 1 }
/* An array element; min is its smallest wire size (MIN_* below). */
#define MSG_ELEMENT(rows, min)	{ (rows), MSG_NROWS(rows), (min), 0 }

/* [str] as an array element (struct wire_str): lists of names. */
extern const struct msg_layout msg_wire_str;

void	 msg_layout_put(struct wbuf *wb, const void *m,
	    const struct msg_layout *l);
/* Reads into m; on any failure sets rb->err (arena refusals included). */
void	 msg_layout_get(struct rbuf *rb, struct arena *a, void *m,
	    const struct msg_layout *l);
/*
 * A whole payload into m (size bytes, zeroed first): 0, or -1 unless it is
 * exactly one message of layout l, or for a response a lone non-zero
 * [error i16] (msg_error_only(); only the error is set then).  a may be
 * NULL for a layout without arrays.
 */
int	 msg_layout_decode(const uint8_t *p, size_t len, struct arena *a,
	    void *m, size_t size, const struct msg_layout *l);

/*
 * The public encoder and decoder of a table-driven message, as proto/msg.h
 * declares them (fn is spelled out so that grep finds the definition):
 * both are its layout handed to msg_layout_put() or msg_layout_decode().
 * name is the message's struct tag and the name of its layout.
 */
#define MSG_ENCODER(fn, name)						\
void									\
fn(struct wbuf *wb, const struct name *m)				\
{									\
	msg_layout_put(wb, m, &name);					\
}
#define MSG_DECODER(fn, name)						\
int									\
fn(const uint8_t *p, size_t len, struct name *m)			\
{									\
	return msg_layout_decode(p, len, NULL, m, sizeof(*m), &name);	\
}
#define MSG_DECODER_ARENA(fn, name)					\
int									\
fn(const uint8_t *p, size_t len, struct arena *a, struct name *m)	\
{									\
	return msg_layout_decode(p, len, a, m, sizeof(*m), &name);	\
}

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
#define MIN_FETCH_ABORTED	(8 + 8)
#define MIN_FETCH_RESULT_V3	(2 + 8 + 8 + 8 + 4 + MIN_BYTES)
#define MIN_LIST_OFFSETS_PART	(MIN_STR + 4 + 8)
#define MIN_LIST_OFFSETS_RESULT	(2 + 8)
#define MIN_CHILD_INFO		(4 + 1 + 4 + 8 + 4)
/* msg_group.c */
#define MIN_COMMIT_PART		(MIN_STR + 4 + 8)
#define MIN_OFFSET_FETCH_RESULT	(MIN_STR + 4 + 2 + 8)
#define MIN_LISTING		(MIN_STR + 1 + 4 + 4)
#define MIN_MEMBER_DESC		(MIN_STR + MIN_STR + 4 + 4)
#define MIN_MEMBER_DESC_V2	(MIN_MEMBER_DESC + 4 + MIN_STR + 4 + 4)
#define MIN_OFFSET_DESC		(MIN_STR + 4 + 8 + 8)
#define MIN_RESET_RESULT	(4 + 2 + 8)
/* msg_cleaner.c */
#define MIN_CLEANER_PART	(MIN_STR + 4 + 4 + 8 + 8 + 8)
/* msg_txn.c */
#define MIN_TXN_LISTING		(MIN_STR + 8 + 2 + 1 + 4 + 8 + 8 + 4)
/* msg_stats.c */
#define MIN_STATS_CHILD		(4 + 1 + 4 + 4 + 7 * 8)
#define MIN_STATS_PARTITION	(2 + 4 + 10 * 8 + 4 + 8)
#define MIN_STATS_BUCKET	(8 + 8)
#define MIN_STATS_ERROR		(2 + 8)
#define MIN_STATS_LAG		(2 + 2 + 4 + 8 + 8)

#endif
