/*
 * Kafka's primitive types on top of proto/wire.h's bounds-checked rbuf and
 * growable wbuf (big-endian, sticky error flags; see wire.h).
 *
 * Kafka differs from the native protocol in three places, all here:
 * strings are [i16 len][bytes] with -1 meaning null, arrays are
 * [i32 count][elements] with -1 meaning null, and booleans are one byte.
 * Strings and byte arrays decode as pointers into the request buffer
 * (zero copy): a decoded request lives only as long as its buffer.
 */
#ifndef FLUME_PROTO_KAFKA_KBUF_H
#define FLUME_PROTO_KAFKA_KBUF_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

/* A string or byte array; len -1 is null (p NULL), 0 is empty. */
struct kstr {
	const char	*p;
	int32_t		 len;
};

/* Decoded (not null, not an error) strings compare with this. */
int		 kstr_eq(struct kstr s, const char *c);
struct kstr	 kstr_c(const char *c);		/* from a C string; NULL = null */

/* [i16 len][bytes]; -1 is null.  Other negative lengths set rb->err. */
struct kstr	 kbuf_nstr(struct rbuf *rb);
/* As kbuf_nstr, but null is an error (Kafka's non-nullable STRING). */
struct kstr	 kbuf_str(struct rbuf *rb);
/* [i32 len][bytes]; -1 is null. */
struct kstr	 kbuf_bytes(struct rbuf *rb);
/* A boolean: 0 or 1 (any non-zero byte is taken as true, as Kafka does). */
int		 kbuf_bool(struct rbuf *rb);
/*
 * An array count.  -1 (null) returns -1 and is not an error when nullable
 * is set; otherwise, and for any other negative count, rb->err is set.  A
 * count whose elements (min_elem bytes each) cannot fit in what is left
 * sets rb->err, so the count can size an allocation.
 */
int32_t		 kbuf_count(struct rbuf *rb, size_t min_elem, int nullable);
/*
 * count elements of size bytes from the arena (NULL for count <= 0, and
 * sets rb->err when the arena is exhausted).
 */
void		*kbuf_alloc(struct rbuf *rb, struct arena *a, int32_t count,
		    size_t size);

/*
 * The end of a request body: 0 when every read succeeded and the body was
 * consumed exactly (trailing bytes mean a layout mismatch), else -1.
 */
static inline int
kbuf_done(const struct rbuf *rb)
{
	return rb->err || rbuf_left(rb) != 0 ? -1 : 0;
}

/* Writers; a string longer than INT16_MAX sets wb->err = EINVAL. */
void		 kbuf_put_str(struct wbuf *wb, struct kstr s);	/* len -1: null */
void		 kbuf_put_cstr(struct wbuf *wb, const char *s);	/* NULL: null */
void		 kbuf_put_bytes(struct wbuf *wb, struct kstr s);	/* len -1: null */

#endif
