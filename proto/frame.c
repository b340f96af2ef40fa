/*
 * Native frame codec: a reader that reassembles frames from arbitrary
 * splits of a byte stream, and the two helpers that start and finish a
 * frame in a struct wbuf.
 *
 * The reader's buffer holds [start, len) unconsumed bytes.  It is sized
 * for the bytes of the frame being read that arrived, never for what a
 * peer merely claims: a size field is checked against max_size the moment
 * its 4 bytes are in, and the buffer doubles only when the frame does not
 * fit and the room left is small, up to the frame's size; so it holds at
 * most twice what came, and a whole frame costs a few reallocs, not a
 * copy per read.  Frames handed out by frame_reader_next() stay
 * in place until the next space/feed call, which is the only place bytes
 * move (compaction) or memory is reallocated.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/bytes.h"
#include "proto/frame.h"
#include "proto/wire.h"

/* Frames up to this size are read into a buffer of their size at once. */
#define FRAME_WHOLE_MAX	(256 * 1024)
/* An idle reader keeps at most this much memory (large frames are rare). */
#define FRAME_KEEP_MAX	(64 * 1024)

static inline size_t
frame_header_len(const struct frame_reader *r)
{
	if (r->kind == FRAME_KAFKA)
		return FRAME_KAFKA_HEADER;
	return r->kind == FRAME_REQUEST ? FRAME_REQ_HEADER : FRAME_RESP_HEADER;
}

/*
 * The size field of the frame at r->start: 0 if its 4 bytes are not all
 * in yet, 1 with *size set if acceptable, -1 if too large or too small.
 */
static int
frame_size(const struct frame_reader *r, uint32_t *size)
{
	uint32_t sz;

	if (r->len - r->start < FRAME_SIZE_LEN)
		return 0;
	sz = be32_get(r->buf + r->start);
	if (sz > r->max_size || sz < frame_header_len(r) - FRAME_SIZE_LEN)
		return -1;
	*size = sz;
	return 1;
}

void
frame_reader_init(struct frame_reader *r, enum frame_kind kind, uint32_t max_size)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->max_size = max_size;
}

void
frame_reader_free(struct frame_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->len = r->cap = r->start = 0;
}

/* Move the unconsumed bytes to the front of the buffer. */
static void
frame_compact(struct frame_reader *r)
{
	size_t pending = r->len - r->start;

	if (r->start == 0)
		return;
	if (pending > 0)
		memmove(r->buf, r->buf + r->start, pending);
	r->start = 0;
	r->len = pending;
}

/* Resize the buffer to exactly ncap (>= pending bytes); 0 or -1. */
static int
frame_resize(struct frame_reader *r, size_t ncap)
{
	uint8_t *nbuf;

	frame_compact(r);
	if ((nbuf = realloc(r->buf, ncap)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	r->buf = nbuf;
	r->cap = ncap;
	return 0;
}

size_t
frame_reader_want(const struct frame_reader *r)
{
	size_t pending = r->len - r->start, frame, ncap;
	uint32_t size;

	/* What frame_reader_space() keeps of an idle buffer. */
	if (r->cap == 0 || (pending == 0 && r->cap > FRAME_KEEP_MAX))
		return FRAME_READ_MIN;
	/* A refused size never makes the buffer grow. */
	if (frame_size(r, &size) != 1)
		return r->cap;
	frame = FRAME_SIZE_LEN + (size_t)size;
	/* The frame is compacted to the front before it grows. */
	if (frame <= r->cap)
		return r->cap;
	/*
	 * A frame of ordinary size gets its whole size at once: one read,
	 * no regrowth (a producer's 64 KiB requests would otherwise cost
	 * five reallocs and reads each).  What that lets a peer hold is
	 * bounded by the worker's partial-frame budget all the same.
	 */
	if (frame <= FRAME_WHOLE_MAX)
		return frame;
	if (r->cap - pending >= FRAME_READ_MIN / 2)
		return r->cap;
	ncap = r->cap * 2;
	return ncap < frame ? ncap : frame;
}

void
frame_reader_trim(struct frame_reader *r)
{
	if (r->start != r->len)
		return;
	r->start = r->len = 0;
	if (r->cap > FRAME_KEEP_MAX) {
		free(r->buf);
		r->buf = NULL;
		r->cap = 0;
	}
}

uint8_t *
frame_reader_space(struct frame_reader *r, size_t *room)
{
	size_t want = FRAME_SIZE_LEN, ncap;
	uint32_t size;

	ncap = frame_reader_want(r);
	/* Drop memory a past large frame needed once nothing is pending. */
	frame_reader_trim(r);
	if (frame_size(r, &size) == 1)
		want = FRAME_SIZE_LEN + (size_t)size;
	/*
	 * Compact when the current frame would not fit behind start, or
	 * when the free tail is too small for an efficient read.
	 */
	if (r->start > 0 && (r->start + want > r->cap ||
	    r->cap - r->len < FRAME_READ_MIN / 4))
		frame_compact(r);
	if (ncap > r->cap && frame_resize(r, ncap) == -1)
		return NULL;
	*room = r->cap - r->len;
	return r->buf + r->len;
}

void
frame_reader_commit(struct frame_reader *r, size_t n)
{
	/* Never trust n past the room handed out. */
	if (n > r->cap - r->len)
		n = r->cap - r->len;
	r->len += n;
}

int
frame_reader_feed(struct frame_reader *r, const void *p, size_t n)
{
	size_t ncap;

	if (n == 0)
		return 0;
	if (r->start == r->len)
		r->start = r->len = 0;
	if (r->cap - r->len < n) {
		frame_compact(r);
		if (r->cap - r->len < n) {
			/* The caller holds these bytes already; double to fit. */
			ncap = r->cap > FRAME_READ_MIN ? r->cap : FRAME_READ_MIN;
			while (ncap - r->len < n) {
				if (ncap > SIZE_MAX / 2) {
					errno = ENOMEM;
					return -1;
				}
				ncap *= 2;
			}
			if (frame_resize(r, ncap) == -1)
				return -1;
		}
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
	return 0;
}

int
frame_reader_next(struct frame_reader *r, struct frame *f)
{
	const uint8_t *p;
	size_t hdr = frame_header_len(r);
	uint32_t size;
	int st;

	if ((st = frame_size(r, &size)) != 1)
		return st;
	if (r->len - r->start < FRAME_SIZE_LEN + (size_t)size)
		return 0;
	p = r->buf + r->start + FRAME_SIZE_LEN;
	if (r->kind == FRAME_KAFKA) {
		f->api_key = be16_get(p);
		f->request_id = be32_get(p + 4);
		/* The whole Kafka header stays in the payload. */
		hdr = FRAME_SIZE_LEN;
	} else if (r->kind == FRAME_REQUEST) {
		f->api_key = be16_get(p);
		f->request_id = be32_get(p + 2);
	} else {
		f->api_key = 0;
		f->request_id = be32_get(p);
	}
	f->payload = r->buf + r->start + hdr;
	f->payload_len = FRAME_SIZE_LEN + (size_t)size - hdr;
	r->start += FRAME_SIZE_LEN + (size_t)size;
	return 1;
}

size_t
frame_reader_pending(const struct frame_reader *r)
{
	return r->len - r->start;
}

size_t
frame_begin_request(struct wbuf *wb, uint16_t api_key, uint32_t request_id)
{
	size_t start = wb->len;

	wbuf_i32(wb, 0);		/* size, patched by frame_end() */
	wbuf_i16(wb, (int16_t)api_key);
	wbuf_i32(wb, (int32_t)request_id);
	return start;
}

size_t
frame_begin_response(struct wbuf *wb, uint32_t request_id)
{
	size_t start = wb->len;

	wbuf_i32(wb, 0);
	wbuf_i32(wb, (int32_t)request_id);
	return start;
}

/* Patch the size of the frame begun at start; a frame over 4 GiB is EMSGSIZE. */
void
frame_end(struct wbuf *wb, size_t start)
{
	size_t size;

	if (wb->err)
		return;
	if (start > wb->len || wb->len - start < FRAME_SIZE_LEN) {
		wb->err = EINVAL;
		return;
	}
	size = wbuf_size_from(wb, start) - FRAME_SIZE_LEN;
	if (size > UINT32_MAX) {
		wb->err = EMSGSIZE;
		return;
	}
	wbuf_put_u32_at(wb, start, (uint32_t)size);
}
