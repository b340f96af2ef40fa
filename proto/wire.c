/*
 * Bounds-checked readers, growable writers and the per-request arena.
 *
 * Readers never look past rb->end: every read first compares what it needs
 * with rbuf_left(), and the first short read sets the sticky rb->err so a
 * decoder can read a whole structure and check once.  Writers keep a
 * sticky wb->err (an errno value) for the same reason: an encoder writes
 * everything and the caller checks wb->err before sending.
 */
#include <sys/uio.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/bytes.h"
#include "proto/wire.h"

#define WBUF_MIN_CAP	256
#define ARENA_MIN_CHUNK	4096

/*
 * Reserve n readable bytes: returns where they start and advances, or
 * sets the sticky error and returns NULL if fewer than n are left.
 */
static const uint8_t *
rbuf_take(struct rbuf *rb, size_t n)
{
	const uint8_t *p;

	if (rb->err)
		return NULL;
	if (n > rbuf_left(rb)) {
		rb->err = 1;
		return NULL;
	}
	p = rb->p;
	rb->p += n;
	return p;
}

int8_t
rbuf_i8(struct rbuf *rb)
{
	const uint8_t *p = rbuf_take(rb, 1);

	return p == NULL ? 0 : (int8_t)p[0];
}

int16_t
rbuf_i16(struct rbuf *rb)
{
	const uint8_t *p = rbuf_take(rb, 2);

	return p == NULL ? 0 : (int16_t)be16_get(p);
}

int32_t
rbuf_i32(struct rbuf *rb)
{
	const uint8_t *p = rbuf_take(rb, 4);

	return p == NULL ? 0 : (int32_t)be32_get(p);
}

int64_t
rbuf_i64(struct rbuf *rb)
{
	const uint8_t *p = rbuf_take(rb, 8);

	return p == NULL ? 0 : (int64_t)be64_get(p);
}

/*
 * A [u16 len][bytes] string; the pointer is into the buffer and is not
 * NUL-terminated.  On error: NULL and *len = 0.
 */
const char *
rbuf_str(struct rbuf *rb, size_t *len)
{
	const uint8_t *p;
	uint16_t n;

	*len = 0;
	if ((p = rbuf_take(rb, 2)) == NULL)
		return NULL;
	n = be16_get(p);
	if ((p = rbuf_take(rb, n)) == NULL)
		return NULL;
	*len = n;
	return (const char *)p;
}

/*
 * An [i32 len][bytes] array.  -1 is null (NULL, *len = -1, not an error);
 * any other negative length is an error (NULL, *len = 0).  A zero-length
 * array returns a non-NULL pointer so it can be told from null.
 */
const uint8_t *
rbuf_bytes(struct rbuf *rb, int32_t *len)
{
	const uint8_t *p;
	int32_t n;

	*len = 0;
	n = rbuf_i32(rb);
	if (rb->err)
		return NULL;
	if (n == -1) {
		*len = -1;
		return NULL;
	}
	if (n < 0) {
		rb->err = 1;
		return NULL;
	}
	if ((p = rbuf_take(rb, (size_t)n)) == NULL)
		return NULL;
	*len = n;
	return p;
}

const uint8_t *
rbuf_raw(struct rbuf *rb, size_t n)
{
	return rbuf_take(rb, n);
}

/*
 * An array count that can be trusted to size an allocation: negative, or
 * more elements of min_elem_size bytes than the bytes left could hold, is
 * an error (returns 0).  min_elem_size 0 is taken as 1, so even a count of
 * empty elements cannot exceed the frame.
 */
int32_t
rbuf_count(struct rbuf *rb, size_t min_elem_size)
{
	int32_t n;

	n = rbuf_i32(rb);
	if (rb->err)
		return 0;
	if (min_elem_size == 0)
		min_elem_size = 1;
	if (n < 0 || (size_t)n > rbuf_left(rb) / min_elem_size) {
		rb->err = 1;
		return 0;
	}
	return n;
}

void
wbuf_init(struct wbuf *wb)
{
	wb->buf = NULL;
	wb->len = wb->cap = 0;
	wb->err = 0;
	wb->spans = NULL;
	wb->nspans = wb->spancap = 0;
	wb->span_bytes = 0;
}

void
wbuf_free(struct wbuf *wb)
{
	free(wb->buf);
	free(wb->spans);
	wbuf_init(wb);
}

/* Empty the buffer for reuse; memory is kept and the error cleared. */
void
wbuf_reset(struct wbuf *wb)
{
	wb->len = 0;
	wb->err = 0;
	wb->nspans = 0;
	wb->span_bytes = 0;
}

size_t
wbuf_size(const struct wbuf *wb)
{
	return wb->len + wb->span_bytes;
}

size_t
wbuf_size_from(const struct wbuf *wb, size_t pos)
{
	size_t n = wb->len - pos, i = wb->nspans;

	/* A span at pos itself ends what came before pos. */
	while (i > 0 && wb->spans[i - 1].at > pos)
		n += wb->spans[--i].len;
	return n;
}

void
wbuf_truncate(struct wbuf *wb, size_t pos)
{
	if (pos >= wb->len)
		return;
	wb->len = pos;
	while (wb->nspans > 0 && wb->spans[wb->nspans - 1].at > pos)
		wb->span_bytes -= wb->spans[--wb->nspans].len;
}

int
wbuf_iov(const struct wbuf *wb, size_t off, struct iovec *iov, int max)
{
	size_t pos = 0, i, seg, lo, hi, mid;	/* pos: buf bytes walked */
	int n = 0;

	/*
	 * Start at the first span that ends after off (a binary search on
	 * where each ends in the content): a sender that writes a buffer of
	 * thousands of spans in chunks does not walk them all per chunk.
	 */
	lo = 0;
	hi = wb->nspans;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (wb->spans[mid].at + wb->spans[mid].before +
		    wb->spans[mid].len > off)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo > 0) {
		pos = wb->spans[lo - 1].at;
		off -= pos + wb->spans[lo - 1].before + wb->spans[lo - 1].len;
	}
	for (i = lo; i <= wb->nspans && n < max; i++) {
		/* buf up to the next span (or its end), then the span. */
		seg = (i < wb->nspans ? wb->spans[i].at : wb->len) - pos;
		if (off < seg) {
			iov[n].iov_base = wb->buf + pos + off;
			iov[n].iov_len = seg - off;
			n++;
			off = 0;
		} else
			off -= seg;
		pos += seg;
		if (i == wb->nspans || n == max)
			break;
		seg = wb->spans[i].len;
		if (off < seg) {
			iov[n].iov_base = (void *)(uintptr_t)(wb->spans[i].p + off);
			iov[n].iov_len = seg - off;
			n++;
			off = 0;
		} else
			off -= seg;
	}
	return n;
}

/*
 * Append n bytes of room to the buffer (wb->len grows by n) and return
 * where they start, for the caller to fill.  NULL, with wb->err set to
 * ENOMEM, if the buffer cannot grow; NULL without touching the buffer if
 * an earlier write already failed.
 */
uint8_t *
wbuf_reserve(struct wbuf *wb, size_t n)
{
	uint8_t *p;
	size_t cap;

	if (wb->err)
		return NULL;
	if (n > SIZE_MAX - wb->len) {
		wb->err = ENOMEM;
		return NULL;
	}
	if (wb->len + n > wb->cap) {
		cap = wb->cap < WBUF_MIN_CAP ? WBUF_MIN_CAP : wb->cap;
		while (cap < wb->len + n) {
			if (cap > SIZE_MAX / 2) {
				cap = wb->len + n;
				break;
			}
			cap *= 2;
		}
		if ((p = realloc(wb->buf, cap)) == NULL) {
			wb->err = ENOMEM;
			return NULL;
		}
		wb->buf = p;
		wb->cap = cap;
	}
	p = wb->buf + wb->len;
	wb->len += n;
	return p;
}

void
wbuf_i8(struct wbuf *wb, int8_t v)
{
	uint8_t *p;

	if ((p = wbuf_reserve(wb, 1)) != NULL)
		p[0] = (uint8_t)v;
}

void
wbuf_i16(struct wbuf *wb, int16_t v)
{
	uint8_t *p;

	if ((p = wbuf_reserve(wb, 2)) != NULL)
		be16_put(p, (uint16_t)v);
}

void
wbuf_i32(struct wbuf *wb, int32_t v)
{
	uint8_t *p;

	if ((p = wbuf_reserve(wb, 4)) != NULL)
		be32_put(p, (uint32_t)v);
}

void
wbuf_i64(struct wbuf *wb, int64_t v)
{
	uint8_t *p;

	if ((p = wbuf_reserve(wb, 8)) != NULL)
		be64_put(p, (uint64_t)v);
}

/*
 * A [u16 len][bytes] string.  A string longer than 65535 bytes cannot be
 * encoded: it sets wb->err = EINVAL rather than being truncated silently.
 */
void
wbuf_str(struct wbuf *wb, const char *s, size_t len)
{
	uint8_t *p;

	if (wb->err)
		return;
	if (len > UINT16_MAX) {
		wb->err = EINVAL;
		return;
	}
	if ((p = wbuf_reserve(wb, 2 + len)) == NULL)
		return;
	be16_put(p, (uint16_t)len);
	if (len > 0)
		memcpy(p + 2, s, len);
}

/*
 * An [i32 len][bytes] array; len -1 writes null (p is not read).  Lengths
 * below -1 set wb->err = EINVAL.
 */
void
wbuf_bytes(struct wbuf *wb, const void *p, int32_t len)
{
	uint8_t *d;

	if (wb->err)
		return;
	if (len < -1) {
		wb->err = EINVAL;
		return;
	}
	if ((d = wbuf_reserve(wb, 4 + (len > 0 ? (size_t)len : 0))) == NULL)
		return;
	be32_put(d, (uint32_t)len);
	if (len > 0)
		memcpy(d + 4, p, (size_t)len);
}

/* Room for one more span; 0 or -1 (err set). */
static int
wbuf_span_room(struct wbuf *wb)
{
	struct wbuf_span *ns;
	size_t ncap;

	if (wb->err)
		return -1;
	if (wb->nspans == wb->spancap) {
		ncap = wb->spancap ? wb->spancap * 2 : 16;
		if ((ns = reallocarray(wb->spans, ncap, sizeof(*ns))) == NULL) {
			wb->err = ENOMEM;
			return -1;
		}
		wb->spans = ns;
		wb->spancap = ncap;
	}
	return 0;
}

/* Remember p[0..len) as a span after what buf holds now; 0 or -1 (err set). */
static int
wbuf_span_add(struct wbuf *wb, const void *p, size_t len)
{
	if (wbuf_span_room(wb) == -1)
		return -1;
	wb->spans[wb->nspans].at = wb->len;
	wb->spans[wb->nspans].p = p;
	wb->spans[wb->nspans].len = len;
	wb->spans[wb->nspans].before = wb->span_bytes;
	wb->nspans++;
	wb->span_bytes += len;
	return 0;
}

void
wbuf_bytes_ref(struct wbuf *wb, const void *p, int32_t len)
{
	if (len <= 0) {
		wbuf_bytes(wb, p, len);
		return;
	}
	/* Room for the span first: a failure then leaves no length behind. */
	if (wbuf_span_room(wb) == -1)
		return;
	wbuf_i32(wb, len);
	(void)wbuf_span_add(wb, p, (size_t)len);
}

void
wbuf_raw_ref(struct wbuf *wb, const void *p, size_t len)
{
	if (len > 0)
		(void)wbuf_span_add(wb, p, len);
}

void
wbuf_bytes_pieces(struct wbuf *wb, const struct wbuf_pieces *pc, int by_ref)
{
	size_t total = pc->len + pc->span_bytes, pos = 0, i, seg;
	uint8_t *d = NULL;

	if (total > INT32_MAX) {
		wb->err = EMSGSIZE;
		return;
	}
	wbuf_i32(wb, (int32_t)total);
	if (!by_ref && (d = wbuf_reserve(wb, total)) == NULL)
		return;
	for (i = 0; i <= pc->nspans && !wb->err; i++) {
		/* Own bytes up to the next span (or the end), then the span. */
		seg = (i < pc->nspans ? pc->spans[i].at : pc->len) - pos;
		if (by_ref)
			wbuf_raw_ref(wb, pc->buf + pos, seg);
		else if (seg > 0) {
			memcpy(d, pc->buf + pos, seg);
			d += seg;
		}
		pos += seg;
		if (i == pc->nspans)
			break;
		if (by_ref)
			wbuf_raw_ref(wb, pc->spans[i].p, pc->spans[i].len);
		else if (pc->spans[i].len > 0) {
			memcpy(d, pc->spans[i].p, pc->spans[i].len);
			d += pc->spans[i].len;
		}
	}
}

void
wbuf_raw(struct wbuf *wb, const void *p, size_t len)
{
	uint8_t *d;

	if ((d = wbuf_reserve(wb, len)) != NULL && len > 0)
		memcpy(d, p, len);
}

/*
 * Patch 4 bytes already written at pos (a frame's size field).  A position
 * that is not inside what was written sets wb->err = EINVAL.
 */
void
wbuf_put_u32_at(struct wbuf *wb, size_t pos, uint32_t v)
{
	if (wb->err)
		return;
	if (pos > wb->len || wb->len - pos < 4) {
		wb->err = EINVAL;
		return;
	}
	be32_put(wb->buf + pos, v);
}

/*
 * The arena is a chain of chunks, newest first; each starts with a header
 * linking to the previous chunk and recording how many bytes were handed
 * out before it, so that the limit covers every chunk since the last reset
 * without another field in struct arena.  arena_reset() merges them into
 * one chunk, so once a request of the usual size has been decoded, decoding
 * allocates nothing.
 */
struct arena_chunk {
	struct arena_chunk	*prev;
	size_t			 given_before;
};

/* Chunk header size, kept a multiple of 16 so malloc alignment carries. */
#define ARENA_HDR	((sizeof(struct arena_chunk) + 15) & ~(size_t)15)

void
arena_init(struct arena *a, size_t limit)
{
	a->buf = NULL;
	a->used = a->cap = 0;
	a->limit = limit;
}

void
arena_free(struct arena *a)
{
	struct arena_chunk *c, *prev;

	for (c = (struct arena_chunk *)(void *)a->buf; c != NULL; c = prev) {
		prev = c->prev;
		free(c);
	}
	a->buf = NULL;
	a->used = a->cap = 0;
}

/*
 * Forget every allocation but keep the memory.  If the last request needed
 * more than one chunk, they are merged into one chunk of their total size,
 * so the next request of that size is served without calling malloc.
 */
void
arena_reset(struct arena *a)
{
	struct arena_chunk *c, *prev, *merged;
	size_t total;

	if ((c = (struct arena_chunk *)(void *)a->buf) == NULL)
		return;
	if (c->prev != NULL) {
		total = a->cap + c->given_before;
		if (total - ARENA_HDR > a->limit)
			total = a->limit + ARENA_HDR;
		if ((merged = malloc(total)) != NULL) {
			arena_free(a);
			c = merged;
			a->buf = (uint8_t *)c;
			a->cap = total;
		} else {
			/* Keep the newest chunk: it is the largest. */
			for (prev = c->prev; prev != NULL; ) {
				struct arena_chunk *pp = prev->prev;

				free(prev);
				prev = pp;
			}
		}
	}
	c->prev = NULL;
	c->given_before = 0;
	a->used = ARENA_HDR;
}

/* Bytes handed out since the last reset. */
static size_t
arena_given(const struct arena *a)
{
	const struct arena_chunk *c = (const void *)a->buf;

	return c == NULL ? 0 : c->given_before + (a->used - ARENA_HDR);
}

/*
 * size bytes, 8-aligned, valid until arena_reset() or arena_free(); NULL
 * once the bytes handed out since the last reset (each rounded up to 8)
 * would pass a->limit, or on ENOMEM.  size 0 gets a distinct 8-byte slot.
 */
void *
arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c;
	size_t given, want, room;
	void *p;

	if (size > a->limit || size > SIZE_MAX / 2)
		return NULL;
	size = size == 0 ? 8 : (size + 7) & ~(size_t)7;
	given = arena_given(a);
	if (size > a->limit - given)
		return NULL;
	if (a->buf == NULL || a->cap - a->used < size) {
		/* Grow geometrically, but never past what the limit allows. */
		want = a->cap > ARENA_MIN_CHUNK / 2 ? a->cap * 2 : ARENA_MIN_CHUNK;
		room = a->limit - given;
		room = room > SIZE_MAX / 2 ? SIZE_MAX / 2 : room + ARENA_HDR;
		if (want > room)
			want = room;
		if (want < size + ARENA_HDR)
			want = size + ARENA_HDR;
		if ((c = malloc(want)) == NULL)
			return NULL;
		c->prev = (struct arena_chunk *)(void *)a->buf;
		c->given_before = given;
		a->buf = (uint8_t *)c;
		a->cap = want;
		a->used = ARENA_HDR;
	}
	p = a->buf + a->used;
	a->used += size;
	return p;
}
