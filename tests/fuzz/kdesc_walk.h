/*
 * What the Kafka fuzz targets (fuzz_kdesc.c, fuzz_kafka.c) do with a
 * decoded description: walk it (every string and bytes must lie inside
 * [fz_lo, fz_hi), every array count must be one the input can hold) and
 * encode it again; that encoding must decode and encode to itself, and
 * through a records hook give the same bytes.  Static functions: each
 * target includes this once.
 */
#ifndef FLUME_TESTS_FUZZ_KDESC_WALK_H
#define FLUME_TESTS_FUZZ_KDESC_WALK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/wire.h"

static const uint8_t *fz_lo, *fz_hi;
static volatile uint8_t fz_sink;

static void walk(const struct kdesc *, const void *);

static void
touch(const struct kstr *s)
{
	int32_t i;

	if (s->len < 0) {
		if (s->len != -1 || s->p != NULL)
			abort();
		return;
	}
	/* Defaults ("") live outside the input; decoded ones inside. */
	if (s->len > 0 && ((const uint8_t *)s->p < fz_lo ||
	    (const uint8_t *)s->p + s->len > fz_hi))
		abort();
	for (i = 0; i < s->len; i++)
		fz_sink ^= (uint8_t)s->p[i];
}

static void
walk_array(const struct kfield *f, const struct karray *a)
{
	const uint8_t *e;
	size_t esz;
	int32_t i;

	if (a->n < -1 || (a->n > 0 && a->v == NULL) ||
	    (size_t)(a->n > 0 ? a->n : 0) > (size_t)(fz_hi - fz_lo))
		abort();
	esz = kdesc_csize(f, f->kf_elem);
	for (i = 0; i < a->n; i++) {
		e = (const uint8_t *)a->v + (size_t)i * esz;
		switch (f->kf_elem) {
		case KT_STRING: case KT_BYTES: case KT_RECORDS:
			touch((const struct kstr *)e);
			break;
		case KT_STRUCT:
			walk(f->kf_sub, e);
			break;
		default:
			fz_sink ^= e[esz - 1];
		}
	}
}

static void
walk(const struct kdesc *d, const void *in)
{
	const struct kfield *f;
	const uint8_t *p;
	size_t i;

	for (i = 0; i < d->kd_nfields; i++) {
		f = &d->kd_fields[i];
		p = (const uint8_t *)in + f->kf_off;
		switch (f->kf_type) {
		case KT_STRING: case KT_BYTES: case KT_RECORDS:
			touch((const struct kstr *)p);
			break;
		case KT_ARRAY:
			walk_array(f, (const struct karray *)p);
			break;
		case KT_STRUCT:
			walk(f->kf_sub, p);
			break;
		default:
			fz_sink ^= p[0];
		}
	}
}

/* A records hook that writes the bytes where the encoder would. */
static int
fz_hook(void *arg, const struct kstr *s, struct wbuf *wb)
{
	(void)arg;
	wbuf_raw(wb, s->p, (size_t)s->len);
	return 0;
}

/* Decode, walk, encode; the encoding decodes and encodes to itself. */
static void
one(const struct kdesc *d, int16_t v, int flex, const uint8_t *p, size_t n,
    void *out, void *out2, struct arena *a)
{
	static const struct kdesc_hook hook = { fz_hook, NULL };
	struct wbuf w1, w2;

	arena_reset(a);
	if (kdesc_decode(d, v, flex, out, p, n, a) != 0)
		return;
	walk(d, out);
	wbuf_init(&w1);
	wbuf_init(&w2);
	if (kdesc_encode(d, v, flex, out, &w1) != 0)
		abort();
	fz_lo = w1.buf;
	fz_hi = w1.len > 0 ? w1.buf + w1.len : w1.buf;
	if (kdesc_decode(d, v, flex, out2, w1.buf, w1.len, a) != 0)
		abort();
	walk(d, out2);
	if (kdesc_encode(d, v, flex, out2, &w2) != 0 || w1.len != w2.len ||
	    (w1.len > 0 && memcmp(w1.buf, w2.buf, w1.len) != 0))
		abort();
	wbuf_reset(&w2);
	if (kdesc_encode_hook(d, v, flex, out2, &hook, &w2) != 0 ||
	    w1.len != w2.len ||
	    (w1.len > 0 && memcmp(w1.buf, w2.buf, w1.len) != 0))
		abort();
	fz_lo = p;
	fz_hi = p + n;
	wbuf_free(&w1);
	wbuf_free(&w2);
}


/*
 * p[0..n) (an exact-size heap copy) as the request and the response of
 * every message in kmsg_all at every version it has, each through one().
 */
static void
all_descriptions(const uint8_t *p, size_t n)
{
	const struct kmsg *m;
	struct arena a;
	void *out, *out2;
	size_t i, max = 0;
	int16_t v;

	for (i = 0; i < kmsg_count; i++) {
		if (kmsg_all[i]->km_req->kd_size > max)
			max = kmsg_all[i]->km_req->kd_size;
		if (kmsg_all[i]->km_resp->kd_size > max)
			max = kmsg_all[i]->km_resp->kd_size;
	}
	if ((out = malloc(max)) == NULL || (out2 = malloc(max)) == NULL)
		abort();
	fz_lo = p;
	fz_hi = p + n;
	arena_init(&a, 1u << 20);
	for (i = 0; i < kmsg_count; i++) {
		m = kmsg_all[i];
		for (v = m->km_vmin; v <= m->km_vmax; v++) {
			one(m->km_req, v, kmsg_flexible(m, v), p, n, out,
			    out2, &a);
			one(m->km_resp, v, kmsg_flexible(m, v), p, n, out,
			    out2, &a);
		}
	}
	arena_free(&a);
	free(out);
	free(out2);
}

#endif
