/*
 * The engine of the declarative codec (kdesc.h): decode and encode any
 * description at any version.  The wire types are Kafka's
 * (https://kafka.apache.org/protocol#protocol_types); a flexible version
 * (KIP-482) writes strings, bytes and arrays with a uvarint length plus
 * one (0 is null) and ends every struct with a tagged field section:
 * a uvarint count, then per field a uvarint tag, a uvarint size and the
 * value.
 *
 * Decoding reads through an rbuf (proto/wire.h), whose sticky error makes
 * every read past the end harmless; lengths and counts are checked
 * against what is left before anything is sized from them, so an array
 * can never ask the arena for more than the body could describe.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/varint.h"
#include "proto/wire.h"

#define UVARINT_MAX	5

static int	read_struct(const struct kdesc *, int16_t, int, void *,
		    struct rbuf *, struct arena *);
static void	write_struct(const struct kdesc *, int16_t, int, const void *,
	    const struct kdesc_hook *,
		    struct wbuf *);

static int
in_version(const struct kfield *f, int16_t v)
{
	return v >= f->kf_vmin && v <= f->kf_vmax;
}

static int
nullable(const struct kfield *f, int16_t v)
{
	return (f->kf_flags & KF_NULL) && v >= f->kf_nullmin;
}

/*
 * Is row i of d a nullable struct (KFNS) that is null in s?  Its marker,
 * the int8 row before it, says so: below 0 null, else present (Kafka
 * writes -1 and 1).
 */
static int
null_struct(const struct kdesc *d, size_t i, int16_t v, const void *s)
{
	const struct kfield *f = &d->kd_fields[i];

	if (f->kf_type != KT_STRUCT || !nullable(f, v) || i == 0 ||
	    d->kd_fields[i - 1].kf_type != KT_INT8)
		return 0;
	return *((const int8_t *)s + d->kd_fields[i - 1].kf_off) < 0;
}

static int
compact(const struct kfield *f, int flexible)
{
	return flexible && !(f->kf_flags & KF_NOFLEX);
}

static uint32_t
rbuf_uvarint(struct rbuf *rb)
{
	uint32_t v = 0;
	uint8_t b;
	int i;

	for (i = 0; i < UVARINT_MAX; i++) {
		if (rb->err || rb->p >= rb->end) {
			rb->err = 1;
			return 0;
		}
		b = *rb->p++;
		/* The fifth byte carries the top 4 bits; more overflows. */
		if (i == UVARINT_MAX - 1 && b > 0x0f)
			break;
		v |= (uint32_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0)
			return v;
	}
	rb->err = 1;
	return 0;
}

static size_t
uvarint_put(uint8_t *p, uint32_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static void
wbuf_uvarint(struct wbuf *wb, uint32_t v)
{
	uint8_t tmp[UVARINT_MAX];

	wbuf_raw(wb, tmp, uvarint_put(tmp, v));
}

size_t
kdesc_csize(const struct kfield *f, int t)
{
	switch (t) {
	case KT_INT8:
	case KT_BOOL:
		return 1;
	case KT_INT16:
	case KT_UINT16:
		return 2;
	case KT_INT32:
	case KT_VARINT:
	case KT_UVARINT:
		return 4;
	case KT_INT64:
	case KT_VARLONG:
		return 8;
	case KT_FLOAT64:
		return sizeof(double);
	case KT_UUID:
		return 16;
	case KT_STRING:
	case KT_BYTES:
	case KT_RECORDS:
		return sizeof(struct kstr);
	case KT_ARRAY:
		return sizeof(struct karray);
	case KT_STRUCT:
		return f->kf_sub->kd_size;
	}
	return 0;
}

/*
 * The fewest bytes a value of type t takes on the wire, at least 1: what
 * an array count is checked against.
 */
static size_t
wire_min(const struct kfield *f, int t, int16_t v, int flexible)
{
	const struct kfield *g;
	size_t i, n;

	switch (t) {
	case KT_INT16:
	case KT_UINT16:
		return 2;
	case KT_INT32:
		return 4;
	case KT_INT64:
	case KT_FLOAT64:
		return 8;
	case KT_UUID:
		return 16;
	case KT_STRING:
		return compact(f, flexible) ? 1 : 2;
	case KT_BYTES:
	case KT_RECORDS:
	case KT_ARRAY:
		return compact(f, flexible) ? 1 : 4;
	case KT_STRUCT:
		n = flexible ? 1 : 0;
		for (i = 0; i < f->kf_sub->kd_nfields; i++) {
			g = &f->kf_sub->kd_fields[i];
			/* A nullable struct may be only its marker. */
			if (g->kf_type == KT_STRUCT && (g->kf_flags & KF_NULL))
				continue;
			if (in_version(g, v) && !(g->kf_flags & KF_TAGGED))
				n += wire_min(g, g->kf_type, v, flexible);
		}
		return n ? n : 1;
	}
	return 1;
}

/* The integer types (bool too) in their C types, through an int64_t. */
static int
is_int(int t)
{
	return t == KT_INT8 || t == KT_BOOL || t == KT_INT16 ||
	    t == KT_UINT16 || t == KT_INT32 || t == KT_VARINT ||
	    t == KT_UVARINT || t == KT_INT64 || t == KT_VARLONG;
}

static void
int_store(int t, void *p, int64_t v)
{
	switch (t) {
	case KT_INT8: *(int8_t *)p = (int8_t)v; break;
	case KT_BOOL: *(uint8_t *)p = v != 0; break;
	case KT_INT16: *(int16_t *)p = (int16_t)v; break;
	case KT_UINT16: *(uint16_t *)p = (uint16_t)v; break;
	case KT_INT32: case KT_VARINT: *(int32_t *)p = (int32_t)v; break;
	case KT_UVARINT: *(uint32_t *)p = (uint32_t)v; break;
	default: *(int64_t *)p = v; break;
	}
}

static int64_t
int_load(int t, const void *p)
{
	switch (t) {
	case KT_INT8: return *(const int8_t *)p;
	case KT_BOOL: return *(const uint8_t *)p != 0;
	case KT_INT16: return *(const int16_t *)p;
	case KT_UINT16: return *(const uint16_t *)p;
	case KT_INT32: case KT_VARINT: return *(const int32_t *)p;
	case KT_UVARINT: return *(const uint32_t *)p;
	default: return *(const int64_t *)p;
	}
}

static void
set_default(const struct kfield *f, void *dst)
{
	struct kstr *s = dst;
	struct karray *a = dst;
	double d;

	if (is_int(f->kf_type)) {
		int_store(f->kf_type, dst, f->kf_def);
		return;
	}
	switch (f->kf_type) {
	case KT_FLOAT64:
		d = (double)f->kf_def;
		memcpy(dst, &d, sizeof(d));
		break;
	case KT_UUID:
		memset(dst, 0, 16);
		break;
	case KT_STRING:
	case KT_BYTES:
	case KT_RECORDS:
		s->p = f->kf_def == -1 ? NULL : "";
		s->len = f->kf_def == -1 ? -1 : 0;
		break;
	case KT_ARRAY:
		a->n = f->kf_def == -1 ? -1 : 0;
		a->v = NULL;
		break;
	case KT_STRUCT:
		kdesc_defaults(f->kf_sub, dst);
		break;
	}
}

void
kdesc_defaults(const struct kdesc *d, void *out)
{
	size_t i;

	memset(out, 0, d->kd_size);
	for (i = 0; i < d->kd_nfields; i++)
		set_default(&d->kd_fields[i],
		    (uint8_t *)out + d->kd_fields[i].kf_off);
}

/*
 * A string or byte array: its length (i16 or i32, or a compact uvarint),
 * -1 for null where the version allows it, at most max.
 */
static void
read_kstr(const struct kfield *f, int16_t v, int flexible, int32_t max,
    struct rbuf *rb, struct kstr *s)
{
	int64_t n;

	s->p = NULL;
	s->len = -1;
	if (compact(f, flexible))
		n = (int64_t)rbuf_uvarint(rb) - 1;
	else if (max == INT16_MAX)
		n = rbuf_i16(rb);
	else
		n = rbuf_i32(rb);
	if (rb->err)
		return;
	if (n == -1 && nullable(f, v))
		return;
	if (n < 0 || n > max || (uint64_t)n > rbuf_left(rb)) {
		rb->err = 1;
		return;
	}
	s->p = (const char *)rbuf_raw(rb, (size_t)n);
	s->len = (int32_t)n;
}

static int
read_one(const struct kfield *f, int t, int16_t v, int flexible, void *dst,
    struct rbuf *rb, struct arena *a)
{
	int64_t i64;
	double d;

	switch (t) {
	case KT_INT8:
	case KT_BOOL:
		int_store(t, dst, rbuf_i8(rb));
		break;
	case KT_INT16:
	case KT_UINT16:
		int_store(t, dst, rbuf_i16(rb));
		break;
	case KT_INT32:
		int_store(t, dst, rbuf_i32(rb));
		break;
	case KT_INT64:
		int_store(t, dst, rbuf_i64(rb));
		break;
	case KT_FLOAT64:
		i64 = rbuf_i64(rb);
		memcpy(&d, &i64, sizeof(d));
		memcpy(dst, &d, sizeof(d));
		break;
	case KT_UVARINT:
		int_store(t, dst, rbuf_uvarint(rb));
		break;
	case KT_VARINT: {
		int32_t x = 0;
		int n = rb->err ? -1 : varint_get(rb->p, rbuf_left(rb), &x);

		if (n < 0)
			rb->err = 1;
		else
			rb->p += n;
		*(int32_t *)dst = x;
		break;
	}
	case KT_VARLONG: {
		int64_t x = 0;
		int n = rb->err ? -1 : varlong_get(rb->p, rbuf_left(rb), &x);

		if (n < 0)
			rb->err = 1;
		else
			rb->p += n;
		*(int64_t *)dst = x;
		break;
	}
	case KT_UUID: {
		const uint8_t *u = rbuf_raw(rb, 16);

		if (u != NULL)
			memcpy(dst, u, 16);
		break;
	}
	case KT_STRING:
		read_kstr(f, v, flexible, INT16_MAX, rb, dst);
		break;
	case KT_BYTES:
	case KT_RECORDS:
		read_kstr(f, v, flexible, INT32_MAX, rb, dst);
		break;
	case KT_STRUCT:
		return read_struct(f->kf_sub, v, flexible, dst, rb, a);
	case KT_ARRAY: {
		struct karray *arr = dst;
		size_t esz, min;
		int64_t n;
		int32_t i;

		arr->n = 0;
		arr->v = NULL;
		n = compact(f, flexible) ? (int64_t)rbuf_uvarint(rb) - 1 :
		    rbuf_i32(rb);
		if (rb->err)
			return -1;
		if (n == -1 && nullable(f, v)) {
			arr->n = -1;
			return 0;
		}
		min = wire_min(f, f->kf_elem, v, flexible);
		if (n < 0 || (uint64_t)n > rbuf_left(rb) / min) {
			rb->err = 1;
			return -1;
		}
		if (n == 0)
			return 0;
		esz = kdesc_csize(f, f->kf_elem);
		/* n * min <= left, and esz is small: no overflow. */
		if ((arr->v = arena_alloc(a, (size_t)n * esz)) == NULL) {
			rb->err = 1;
			return -1;
		}
		arr->n = (int32_t)n;
		for (i = 0; i < arr->n && !rb->err; i++)
			if (read_one(f, f->kf_elem, v, flexible,
			    (uint8_t *)arr->v + (size_t)i * esz, rb, a) == -1)
				return -1;
		break;
	}
	default:
		rb->err = 1;
	}
	return rb->err ? -1 : 0;
}

static const struct kfield *
tagged_field(const struct kdesc *d, int16_t v, uint32_t tag)
{
	const struct kfield *f;
	size_t i;

	for (i = 0; i < d->kd_nfields; i++) {
		f = &d->kd_fields[i];
		if ((f->kf_flags & KF_TAGGED) && (uint32_t)f->kf_tag == tag &&
		    in_version(f, v))
			return f;
	}
	return NULL;
}

/*
 * A tagged field section: known tags are decoded from exactly their
 * size, unknown ones skipped.
 */
static int
read_tags(const struct kdesc *d, int16_t v, void *out, struct rbuf *rb,
    struct arena *a)
{
	const struct kfield *f;
	struct rbuf sub;
	uint32_t n, i, tag, size;

	n = rbuf_uvarint(rb);
	/* Each takes a tag and a size byte at least. */
	if (rb->err || n > rbuf_left(rb) / 2) {
		rb->err = 1;
		return -1;
	}
	for (i = 0; i < n; i++) {
		tag = rbuf_uvarint(rb);
		size = rbuf_uvarint(rb);
		if (rb->err || size > rbuf_left(rb)) {
			rb->err = 1;
			return -1;
		}
		rbuf_init(&sub, rb->p, size);
		rb->p += size;
		if ((f = tagged_field(d, v, tag)) == NULL)
			continue;
		if (read_one(f, f->kf_type, v, 1, (uint8_t *)out + f->kf_off,
		    &sub, a) == -1 || rbuf_left(&sub) != 0) {
			rb->err = 1;
			return -1;
		}
	}
	return 0;
}

static int
read_struct(const struct kdesc *d, int16_t v, int flexible, void *out,
    struct rbuf *rb, struct arena *a)
{
	const struct kfield *f;
	size_t i;

	/*
	 * Fields the body has are read, the others (and tagged ones, which
	 * the section at the end may set) take their defaults: every
	 * member is written once, the hot path's arrays of partitions
	 * pay no memset.
	 */
	for (i = 0; i < d->kd_nfields; i++) {
		f = &d->kd_fields[i];
		if (!in_version(f, v) || (f->kf_flags & KF_TAGGED) ||
		    null_struct(d, i, v, out))
			set_default(f, (uint8_t *)out + f->kf_off);
		else if (read_one(f, f->kf_type, v, flexible,
		    (uint8_t *)out + f->kf_off, rb, a) == -1)
			return -1;
	}
	if (flexible && read_tags(d, v, out, rb, a) == -1)
		return -1;
	return rb->err ? -1 : 0;
}

int
kdesc_read(const struct kdesc *d, int16_t version, int flexible, void *out,
    struct rbuf *rb, struct arena *a)
{
	return read_struct(d, version, flexible, out, rb, a);
}

int
kdesc_decode(const struct kdesc *d, int16_t version, int flexible,
    void *out, const uint8_t *p, size_t len, struct arena *a)
{
	static const uint8_t empty[1];
	struct rbuf rb;

	/* An empty wbuf has no buffer: NULL + 0 is undefined. */
	rbuf_init(&rb, p != NULL ? p : empty, p != NULL ? len : 0);
	if (read_struct(d, version, flexible, out, &rb, a) == -1)
		return -1;
	return kbuf_done(&rb);
}

static void
write_kstr(const struct kfield *f, int16_t v, int flexible, int32_t max,
    const struct kstr *s, struct wbuf *wb)
{
	if (wb->err)
		return;
	if (s->len < -1 || s->len > max || (s->len == -1 && !nullable(f, v)) ||
	    (s->len > 0 && s->p == NULL)) {
		wb->err = EINVAL;
		return;
	}
	if (compact(f, flexible))
		wbuf_uvarint(wb, (uint32_t)(s->len + 1));
	else if (max == INT16_MAX)
		wbuf_i16(wb, (int16_t)s->len);
	else
		wbuf_i32(wb, s->len);
	if (s->len > 0)
		wbuf_raw(wb, s->p, (size_t)s->len);
}

/*
 * A records field through the caller's hook: the length prefix here,
 * the bytes the hook's (kdesc.h).  A hook failure fails the encode.
 */
static void
write_records(const struct kfield *f, int16_t v, int flexible,
    const struct kstr *s, const struct kdesc_hook *h, struct wbuf *wb)
{
	if (s->len <= 0) {		/* null or empty: nothing to queue */
		write_kstr(f, v, flexible, INT32_MAX, s, wb);
		return;
	}
	if (wb->err)
		return;
	if (compact(f, flexible))
		wbuf_uvarint(wb, (uint32_t)s->len + 1);
	else
		wbuf_i32(wb, s->len);
	if (!wb->err && h->fn(h->arg, s, wb) == -1 && !wb->err)
		wb->err = EIO;
}

static void
write_one(const struct kfield *f, int t, int16_t v, int flexible,
    const void *src, const struct kdesc_hook *h, struct wbuf *wb)
{
	uint8_t tmp[VARLONG_MAX];
	int64_t i64;
	double d;

	switch (t) {
	case KT_INT8:
	case KT_BOOL:
		wbuf_i8(wb, (int8_t)int_load(t, src));
		break;
	case KT_INT16:
	case KT_UINT16:
		wbuf_i16(wb, (int16_t)int_load(t, src));
		break;
	case KT_INT32:
		wbuf_i32(wb, (int32_t)int_load(t, src));
		break;
	case KT_INT64:
		wbuf_i64(wb, int_load(t, src));
		break;
	case KT_FLOAT64:
		memcpy(&d, src, sizeof(d));
		memcpy(&i64, &d, sizeof(i64));
		wbuf_i64(wb, i64);
		break;
	case KT_UVARINT:
		wbuf_uvarint(wb, (uint32_t)int_load(t, src));
		break;
	case KT_VARINT:
		wbuf_raw(wb, tmp, varint_put(tmp, *(const int32_t *)src));
		break;
	case KT_VARLONG:
		wbuf_raw(wb, tmp, varlong_put(tmp, *(const int64_t *)src));
		break;
	case KT_UUID:
		wbuf_raw(wb, src, 16);
		break;
	case KT_STRING:
		write_kstr(f, v, flexible, INT16_MAX, src, wb);
		break;
	case KT_RECORDS:
		if (h != NULL) {
			write_records(f, v, flexible, src, h, wb);
			break;
		}
		/* FALLTHROUGH */
	case KT_BYTES:
		write_kstr(f, v, flexible, INT32_MAX, src, wb);
		break;
	case KT_STRUCT:
		write_struct(f->kf_sub, v, flexible, src, h, wb);
		break;
	case KT_ARRAY: {
		const struct karray *arr = src;
		size_t esz;
		int32_t i;

		if (arr->n < -1 || (arr->n == -1 && !nullable(f, v)) ||
		    (arr->n > 0 && arr->v == NULL)) {
			wb->err = EINVAL;
			return;
		}
		if (compact(f, flexible))
			wbuf_uvarint(wb, (uint32_t)arr->n + 1);
		else
			wbuf_i32(wb, arr->n);
		esz = kdesc_csize(f, f->kf_elem);
		for (i = 0; i < arr->n && !wb->err; i++)
			write_one(f, f->kf_elem, v, flexible,
			    (const uint8_t *)arr->v + (size_t)i * esz, h, wb);
		break;
	}
	default:
		wb->err = EINVAL;
	}
}

/* Kafka writes a tagged field only when it differs from its default. */
static int
is_default(const struct kfield *f, const void *src)
{
	static const uint8_t zero[16];
	const struct kstr *s = src;
	const struct karray *a = src;
	const struct kfield *g;
	size_t i;
	double d;

	if (is_int(f->kf_type))
		return int_load(f->kf_type, src) ==
		    (f->kf_type == KT_BOOL ? f->kf_def != 0 : f->kf_def);
	switch (f->kf_type) {
	case KT_FLOAT64:
		memcpy(&d, src, sizeof(d));
		return d == (double)f->kf_def;
	case KT_UUID:
		return memcmp(src, zero, 16) == 0;
	case KT_STRING:
	case KT_BYTES:
	case KT_RECORDS:
		return f->kf_def == -1 ? s->len == -1 : s->len == 0;
	case KT_ARRAY:
		return f->kf_def == -1 ? a->n == -1 : a->n == 0;
	case KT_STRUCT:
		for (i = 0; i < f->kf_sub->kd_nfields; i++) {
			g = &f->kf_sub->kd_fields[i];
			if (!is_default(g, (const uint8_t *)src + g->kf_off))
				return 0;
		}
		return 1;
	}
	return 1;
}

static void
write_tags(const struct kdesc *d, int16_t v, const void *in, struct wbuf *wb)
{
	const struct kfield *f;
	const void *src;
	uint8_t tmp[UVARINT_MAX];
	uint8_t *room;
	size_t i, start, size, k;
	uint32_t n = 0;

	for (i = 0; i < d->kd_nfields; i++) {
		f = &d->kd_fields[i];
		if ((f->kf_flags & KF_TAGGED) && in_version(f, v) &&
		    !is_default(f, (const uint8_t *)in + f->kf_off))
			n++;
	}
	wbuf_uvarint(wb, n);
	/* Descriptions list tagged fields in ascending tag order. */
	for (i = 0; i < d->kd_nfields && !wb->err; i++) {
		f = &d->kd_fields[i];
		src = (const uint8_t *)in + f->kf_off;
		if (!(f->kf_flags & KF_TAGGED) || !in_version(f, v) ||
		    is_default(f, src))
			continue;
		wbuf_uvarint(wb, (uint32_t)f->kf_tag);
		start = wb->len;
		/* Moved below: never through the hook (kdesc.h). */
		write_one(f, f->kf_type, v, 1, src, NULL, wb);
		if (wb->err)
			return;
		/* The size goes before the value: move the value up. */
		size = wb->len - start;
		if (size > UINT32_MAX) {
			wb->err = EINVAL;
			return;
		}
		k = uvarint_put(tmp, (uint32_t)size);
		if ((room = wbuf_reserve(wb, k)) == NULL)
			return;
		memmove(wb->buf + start + k, wb->buf + start, size);
		memcpy(wb->buf + start, tmp, k);
	}
}

static void
write_struct(const struct kdesc *d, int16_t v, int flexible, const void *in,
    const struct kdesc_hook *h, struct wbuf *wb)
{
	const struct kfield *f;
	size_t i;

	for (i = 0; i < d->kd_nfields && !wb->err; i++) {
		f = &d->kd_fields[i];
		if (!in_version(f, v) || (f->kf_flags & KF_TAGGED) ||
		    null_struct(d, i, v, in))
			continue;
		write_one(f, f->kf_type, v, flexible,
		    (const uint8_t *)in + f->kf_off, h, wb);
	}
	if (flexible)
		write_tags(d, v, in, wb);
}

int
kdesc_encode(const struct kdesc *d, int16_t version, int flexible,
    const void *in, struct wbuf *wb)
{
	return kdesc_encode_hook(d, version, flexible, in, NULL, wb);
}

int
kdesc_encode_hook(const struct kdesc *d, int16_t version, int flexible,
    const void *in, const struct kdesc_hook *h, struct wbuf *wb)
{
	write_struct(d, version, flexible, in, h, wb);
	if (wb->err) {
		errno = wb->err == ENOMEM || wb->err == EIO ? wb->err : EINVAL;
		return -1;
	}
	return 0;
}

/* One value of type t at p (row f's, or its element's): see kdesc_rebase. */
static void
rebase_value(const struct kfield *f, int t, int16_t v, void *p,
    const uint8_t *from, size_t len, ptrdiff_t delta)
{
	struct kstr *s = p;
	struct karray *arr = p;
	size_t esz;
	int32_t i;

	switch (t) {
	case KT_STRING:
	case KT_BYTES:
	case KT_RECORDS:
		if (s->p != NULL && (const uint8_t *)s->p >= from &&
		    (const uint8_t *)s->p < from + len)
			s->p += delta;
		break;
	case KT_STRUCT:
		kdesc_rebase(f->kf_sub, v, p, from, len, delta);
		break;
	case KT_ARRAY:
		if (arr->v == NULL || arr->n <= 0)
			break;
		esz = kdesc_csize(f, f->kf_elem);
		for (i = 0; i < arr->n; i++)
			rebase_value(f, f->kf_elem, v, (uint8_t *)arr->v +
			    (size_t)i * esz, from, len, delta);
		break;
	}
}

void
kdesc_rebase(const struct kdesc *d, int16_t version, void *s,
    const uint8_t *from, size_t len, ptrdiff_t delta)
{
	const struct kfield *f;
	size_t i;

	for (i = 0; i < d->kd_nfields; i++) {
		f = &d->kd_fields[i];
		if (in_version(f, version))
			rebase_value(f, f->kf_type, version,
			    (uint8_t *)s + f->kf_off, from, len, delta);
	}
}
