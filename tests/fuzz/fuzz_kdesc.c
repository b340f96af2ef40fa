/*
 * libFuzzer target: the declarative Kafka codec (proto/kafka/kdesc.h).
 * The input is a message body, decoded with every description (request
 * and response of every message in kmsg_all) at every version it has,
 * and as a request header.  What decodes is walked (ASan checks that
 * every string lies inside the input and every array inside the arena),
 * encoded again, and that encoding must decode and encode to itself:
 * decode and encode agree on every description at every version.  The
 * encoding through a records hook that appends the records itself
 * (kdesc_encode_hook) must be the same bytes.
 * The corpus (tests/fuzz/corpus/fuzz_kdesc/) holds real clients' bodies
 * and the flexible ones test_kdesc builds by hand.
 */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kmsg *m;
	struct kreq_hdr h;
	struct arena a;
	uint8_t *copy;
	void *out, *out2;
	size_t i, hlen, max = 0;
	int16_t v;

	for (i = 0; i < kmsg_count; i++) {
		if (kmsg_all[i]->km_req->kd_size > max)
			max = kmsg_all[i]->km_req->kd_size;
		if (kmsg_all[i]->km_resp->kd_size > max)
			max = kmsg_all[i]->km_resp->kd_size;
	}
	/* An exact-size heap copy, so ASan sees any read past the end. */
	if ((copy = malloc(size ? size : 1)) == NULL ||
	    (out = malloc(max)) == NULL || (out2 = malloc(max)) == NULL)
		abort();
	memcpy(copy, data, size);
	fz_lo = copy;
	fz_hi = copy + size;
	arena_init(&a, 1u << 20);
	for (i = 0; i < kmsg_count; i++) {
		m = kmsg_all[i];
		for (v = m->km_vmin; v <= m->km_vmax; v++) {
			one(m->km_req, v, kmsg_flexible(m, v), copy, size, out,
			    out2, &a);
			one(m->km_resp, v, kmsg_flexible(m, v), copy, size,
			    out, out2, &a);
		}
	}
	if (kmsg_decode_req_hdr(&h, copy, size, &hlen) == 0) {
		if (hlen > size)
			abort();
		touch(&h.client_id);
	}
	arena_free(&a);
	free(out);
	free(out2);
	free(copy);
	return 0;
}
