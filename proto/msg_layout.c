/*
 * The one encoder and the one decoder behind every table-driven message
 * codec (struct msg_layout in proto/msg_codec.h).  A layout row names a
 * wire type and where the value lives in the C struct; these functions
 * walk the rows in wire order, so a message's two directions are one
 * description instead of two hand-written twins that must agree.
 *
 * The decoder keeps the rules of proto/msg.c: every count goes through
 * rbuf_count() with the element's smallest wire size before anything is
 * allocated, arrays come from the caller's arena, record bytes are never
 * null or negative, and the payload must be consumed exactly.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

/*
 * Array and record pointers are copied with memcpy: the row only knows
 * the member's offset, not its pointer type, and a store through a
 * (void **) into a (struct x *) member is not one C allows.
 */
static const void *
field_ptr(const uint8_t *base, size_t off)
{
	const void *p;

	memcpy(&p, base + off, sizeof(p));
	return p;
}

static void
field_set_ptr(uint8_t *base, size_t off, const void *p)
{
	memcpy(base + off, &p, sizeof(p));
}

void
msg_layout_put(struct wbuf *wb, const void *m, const struct msg_layout *l)
{
	const struct msg_field *f;
	const uint8_t *base = m, *elem;
	int32_t i, n;
	size_t k;

	for (k = 0; k < l->ml_nfields; k++) {
		f = &l->ml_fields[k];
		switch (f->mf_type) {
		case MSG_T_I8:
			wbuf_i8(wb, *(const int8_t *)(base + f->mf_off));
			break;
		case MSG_T_I16:
			wbuf_i16(wb, *(const int16_t *)(base + f->mf_off));
			break;
		case MSG_T_I32:
			wbuf_i32(wb, *(const int32_t *)(base + f->mf_off));
			break;
		case MSG_T_I64:
			wbuf_i64(wb, *(const int64_t *)(base + f->mf_off));
			break;
		case MSG_T_STR:
			wbuf_str(wb, field_ptr(base, f->mf_off),
			    *(const size_t *)(base + f->mf_len));
			break;
		case MSG_T_RECORDS:
			wbuf_bytes(wb, field_ptr(base, f->mf_off),
			    *(const int32_t *)(base + f->mf_len));
			break;
		case MSG_T_RAW:
			wbuf_raw(wb, base + f->mf_off, f->mf_len);
			break;
		case MSG_T_ARRAY:
			n = *(const int32_t *)(base + f->mf_len);
			elem = field_ptr(base, f->mf_off);
			wbuf_i32(wb, n);
			for (i = 0; i < n; i++)
				msg_layout_put(wb,
				    elem + (size_t)i * f->mf_size, f->mf_elem);
			break;
		}
	}
}

/* Record bytes that must be present (not null, not negative). */
static const uint8_t *
get_records(struct rbuf *rb, int32_t *len)
{
	const uint8_t *p;

	p = rbuf_bytes(rb, len);
	if (*len < 0) {
		rb->err = 1;
		*len = 0;
		return NULL;
	}
	return p;
}

/* [count i32]{element} of field f into base; sets rb->err on failure. */
static void
get_array(struct rbuf *rb, struct arena *a, uint8_t *base,
    const struct msg_field *f)
{
	uint8_t *elem;
	int32_t i, n;
	int fail = 0;

	n = rbuf_count(rb, f->mf_elem->ml_min);
	if (rb->err)
		return;
	elem = msg_array(a, n, f->mf_size, &fail);
	if (fail) {
		rb->err = 1;
		return;
	}
	/* Members that are not on the wire start out zero, as in m. */
	if (elem != NULL)
		memset(elem, 0, (size_t)n * f->mf_size);
	*(int32_t *)(base + f->mf_len) = n;
	field_set_ptr(base, f->mf_off, elem);
	for (i = 0; i < n && !rb->err; i++)
		msg_layout_get(rb, a, elem + (size_t)i * f->mf_size,
		    f->mf_elem);
}

void
msg_layout_get(struct rbuf *rb, struct arena *a, void *m,
    const struct msg_layout *l)
{
	const struct msg_field *f;
	const uint8_t *raw;
	uint8_t *base = m;
	size_t k;

	for (k = 0; k < l->ml_nfields && !rb->err; k++) {
		f = &l->ml_fields[k];
		switch (f->mf_type) {
		case MSG_T_I8:
			*(int8_t *)(base + f->mf_off) = rbuf_i8(rb);
			break;
		case MSG_T_I16:
			*(int16_t *)(base + f->mf_off) = rbuf_i16(rb);
			break;
		case MSG_T_I32:
			*(int32_t *)(base + f->mf_off) = rbuf_i32(rb);
			break;
		case MSG_T_I64:
			*(int64_t *)(base + f->mf_off) = rbuf_i64(rb);
			break;
		case MSG_T_STR:
			field_set_ptr(base, f->mf_off,
			    rbuf_str(rb, (size_t *)(base + f->mf_len)));
			break;
		case MSG_T_RECORDS:
			field_set_ptr(base, f->mf_off,
			    get_records(rb, (int32_t *)(base + f->mf_len)));
			break;
		case MSG_T_RAW:
			if ((raw = rbuf_raw(rb, f->mf_len)) != NULL)
				memcpy(base + f->mf_off, raw, f->mf_len);
			break;
		case MSG_T_ARRAY:
			get_array(rb, a, base, f);
			break;
		}
	}
}

int
msg_layout_decode(const uint8_t *p, size_t len, struct arena *a, void *m,
    size_t size, const struct msg_layout *l)
{
	struct rbuf rb;
	int16_t error;

	memset(m, 0, size);
	if (l->ml_resp && msg_error_only(p, len, &error)) {
		*(int16_t *)((uint8_t *)m + l->ml_fields[0].mf_off) = error;
		return 0;
	}
	rbuf_init(&rb, p, len);
	msg_layout_get(&rb, a, m, l);
	return msg_done(&rb);
}
