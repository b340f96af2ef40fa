/*
 * Bounds-checked readers and growable writers for protocol payloads.
 *
 * A struct rbuf reads big-endian fields from a byte range; the first read
 * that would pass the end sets rb->err and every later read returns zero
 * values, so a decoder checks rb->err once at the end (and before using a
 * count to size anything).  Nothing here ever reads outside [p, end).
 *
 * Strings on the wire are [u16 length][bytes]; byte arrays are
 * [i32 length][bytes] with -1 meaning null.
 */
#ifndef FLUME_PROTO_WIRE_H
#define FLUME_PROTO_WIRE_H

#include <stddef.h>
#include <stdint.h>

struct rbuf {
	const uint8_t	*p;
	const uint8_t	*end;
	int		 err;
};

static inline void
rbuf_init(struct rbuf *rb, const void *buf, size_t len)
{
	rb->p = buf;
	rb->end = rb->p + len;
	rb->err = 0;
}

static inline size_t
rbuf_left(const struct rbuf *rb)
{
	return (size_t)(rb->end - rb->p);
}

int8_t		 rbuf_i8(struct rbuf *rb);
int16_t		 rbuf_i16(struct rbuf *rb);
int32_t		 rbuf_i32(struct rbuf *rb);
int64_t		 rbuf_i64(struct rbuf *rb);
/* A [u16 len][bytes] string: returns a pointer into the buffer, sets *len. */
const char	*rbuf_str(struct rbuf *rb, size_t *len);
/* An [i32 len][bytes] array; -1 = null (returns NULL, *len = -1). */
const uint8_t	*rbuf_bytes(struct rbuf *rb, int32_t *len);
/* n raw bytes. */
const uint8_t	*rbuf_raw(struct rbuf *rb, size_t n);
/*
 * An array count: fails (sets err) if negative or if count * min_elem_size
 * exceeds what is left, so a count can never size an allocation larger
 * than the frame.
 */
int32_t		 rbuf_count(struct rbuf *rb, size_t min_elem_size);

/*
 * Growable output buffer; on allocation failure err is set, data kept.
 *
 * Bytes may also be appended by reference (wbuf_bytes_ref): not copied,
 * only remembered as a span to be sent after the first `at` bytes of buf.
 * The buffer's content is then buf with the spans inserted, wbuf_size()
 * bytes long, and is sent with wbuf_iov(); the caller keeps each span's
 * memory alive and unchanged until the buffer is sent, reset or
 * truncated before it.  Only a sender that can do that uses them.
 */
struct wbuf_span {
	size_t		 at;		/* inserted after buf[0..at) */
	const uint8_t	*p;
	size_t		 len;
	size_t		 before;	/* bytes of the spans before it */
};

/*
 * Content in pieces: buf[0..len) with the spans inserted (each after
 * buf[0..at)), len + span_bytes bytes in all.  A batch built from
 * referenced values looks like this (proto/batch.h).
 */
struct wbuf_pieces {
	const uint8_t		*buf;
	size_t			 len;
	const struct wbuf_span	*spans;		/* ordered by at */
	size_t			 nspans;
	size_t			 span_bytes;
};

struct wbuf {
	uint8_t		*buf;
	size_t		 len, cap;
	int		 err;
	struct wbuf_span *spans;	/* ordered by at */
	size_t		 nspans, spancap;
	size_t		 span_bytes;	/* their total length */
};

void		 wbuf_init(struct wbuf *wb);
void		 wbuf_free(struct wbuf *wb);
void		 wbuf_reset(struct wbuf *wb);		/* len = 0, keep memory */
/* Make room for n more bytes; returns a pointer to them or NULL. */
uint8_t		*wbuf_reserve(struct wbuf *wb, size_t n);
void		 wbuf_i8(struct wbuf *wb, int8_t v);
void		 wbuf_i16(struct wbuf *wb, int16_t v);
void		 wbuf_i32(struct wbuf *wb, int32_t v);
void		 wbuf_i64(struct wbuf *wb, int64_t v);
void		 wbuf_str(struct wbuf *wb, const char *s, size_t len);
void		 wbuf_bytes(struct wbuf *wb, const void *p, int32_t len); /* -1: null */
void		 wbuf_raw(struct wbuf *wb, const void *p, size_t len);
/* An [i32 len][bytes] array whose bytes are referenced, not copied. */
void		 wbuf_bytes_ref(struct wbuf *wb, const void *p, int32_t len);
/* n raw bytes referenced, not copied (no length prefix). */
void		 wbuf_raw_ref(struct wbuf *wb, const void *p, size_t len);
/*
 * An [i32 len][bytes] array of the content of pc: with by_ref every
 * piece is referenced (the caller keeps pc's memory as for
 * wbuf_bytes_ref), else all of it is copied into one run of buf.
 * The content must fit an i32 (EMSGSIZE).
 */
void		 wbuf_bytes_pieces(struct wbuf *wb, const struct wbuf_pieces *pc,
		    int by_ref);
/*
 * Bytes of content (buf and spans); from buf position pos to the end (a
 * span at pos itself belongs before it: it ends what came before).
 */
size_t		 wbuf_size(const struct wbuf *wb);
size_t		 wbuf_size_from(const struct wbuf *wb, size_t pos);
/* Drop everything from buf position pos on (spans after pos too). */
void		 wbuf_truncate(struct wbuf *wb, size_t pos);
/*
 * Fill at most max iovecs with the content from byte off (counted over
 * buf and spans) to the end; returns how many were filled.
 */
struct iovec;
int		 wbuf_iov(const struct wbuf *wb, size_t off, struct iovec *iov,
		    int max);
/* Overwrite a big-endian u32 at pos (for patching a length later). */
void		 wbuf_put_u32_at(struct wbuf *wb, size_t pos, uint32_t v);

/*
 * Bump allocator for decoded requests: reset per request, so decoding
 * allocates nothing in steady state.  Returns NULL when limit is reached.
 */
struct arena {
	uint8_t		*buf;
	size_t		 used, cap, limit;
};

void		 arena_init(struct arena *a, size_t limit);
void		 arena_free(struct arena *a);
void		 arena_reset(struct arena *a);
void		*arena_alloc(struct arena *a, size_t size);	/* 8-aligned */

#endif
