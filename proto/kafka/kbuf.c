/*
 * Kafka primitive types: nullable strings, byte arrays, booleans and
 * checked array counts, built on the sticky-error rbuf/wbuf of wire.c.
 * Nothing here reads outside the rbuf's range.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

int
kstr_eq(struct kstr s, const char *c)
{
	size_t n = strlen(c);

	return s.len >= 0 && (size_t)s.len == n &&
	    (n == 0 || memcmp(s.p, c, n) == 0);
}

struct kstr
kstr_c(const char *c)
{
	struct kstr s;

	s.p = c;
	s.len = c == NULL ? -1 : (int32_t)strlen(c);
	return s;
}

struct kstr
kbuf_nstr(struct rbuf *rb)
{
	struct kstr s = { NULL, -1 };
	int16_t n;

	n = rbuf_i16(rb);
	if (rb->err)
		return s;
	if (n == -1)
		return s;
	if (n < 0) {
		rb->err = 1;
		return s;
	}
	if ((s.p = (const char *)rbuf_raw(rb, (size_t)n)) == NULL)
		return s;
	s.len = n;
	return s;
}

struct kstr
kbuf_str(struct rbuf *rb)
{
	struct kstr s = kbuf_nstr(rb);

	if (s.len < 0)
		rb->err = 1;
	return s;
}

struct kstr
kbuf_bytes(struct rbuf *rb)
{
	struct kstr s = { NULL, -1 };
	int32_t n;

	n = rbuf_i32(rb);
	if (rb->err || n == -1)
		return s;
	if (n < 0) {
		rb->err = 1;
		return s;
	}
	if ((s.p = (const char *)rbuf_raw(rb, (size_t)n)) == NULL)
		return s;
	s.len = n;
	return s;
}

int
kbuf_bool(struct rbuf *rb)
{
	return rbuf_i8(rb) != 0;
}

int32_t
kbuf_count(struct rbuf *rb, size_t min_elem, int nullable)
{
	int32_t n;

	n = rbuf_i32(rb);
	if (rb->err)
		return 0;
	if (n == -1 && nullable)
		return -1;
	if (min_elem == 0)
		min_elem = 1;
	if (n < 0 || (size_t)n > rbuf_left(rb) / min_elem) {
		rb->err = 1;
		return 0;
	}
	return n;
}

void *
kbuf_alloc(struct rbuf *rb, struct arena *a, int32_t count, size_t size)
{
	void *p;

	if (rb->err || count <= 0)
		return NULL;
	/* count was checked against the frame, so this cannot overflow. */
	if ((p = arena_alloc(a, (size_t)count * size)) == NULL)
		rb->err = 1;
	return p;
}

void
kbuf_put_str(struct wbuf *wb, struct kstr s)
{
	uint8_t *d;

	if (wb->err)
		return;
	if (s.len < -1 || s.len > INT16_MAX) {
		wb->err = EINVAL;
		return;
	}
	wbuf_i16(wb, (int16_t)s.len);
	if (s.len > 0 && (d = wbuf_reserve(wb, (size_t)s.len)) != NULL)
		memcpy(d, s.p, (size_t)s.len);
}

void
kbuf_put_cstr(struct wbuf *wb, const char *s)
{
	kbuf_put_str(wb, kstr_c(s));
}

void
kbuf_put_bytes(struct wbuf *wb, struct kstr s)
{
	wbuf_bytes(wb, s.p, s.len);
}
