/*
 * Encoders and decoders of the consumer-group operations (JOIN_GROUP to
 * DESCRIBE_GROUP, and GROUP_RESET), laid out in proto/msg.h and flume-protocol(7).
 *
 * Same rules as proto/msg.c: decoders are structural only (the handlers
 * check names, member ids and generations), every count goes through
 * rbuf_count() with the smallest wire size of one entry, arrays come from
 * the caller's arena, and a payload must be consumed exactly.  Response
 * decoders accept a lone non-zero [error i16], which is how the broker
 * answers a request it could not serve at all.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

static void
tp_encode(struct wbuf *wb, int32_t n, const struct group_tp *tp)
{
	int32_t i;

	wbuf_i32(wb, n);
	for (i = 0; i < n; i++) {
		wbuf_str(wb, tp[i].topic, tp[i].topic_len);
		wbuf_i32(wb, tp[i].partition);
	}
}

/* [count i32]{[topic str][partition i32]} into *n and *tp; 0 or -1. */
static int
tp_decode(struct rbuf *rb, struct arena *a, int32_t *n, struct group_tp **tp)
{
	int32_t i;
	int fail = 0;

	*n = rbuf_count(rb, MIN_TP);
	if (rb->err)
		return -1;
	*tp = msg_array(a, *n, sizeof(**tp), &fail);
	if (fail)
		return -1;
	for (i = 0; i < *n && !rb->err; i++) {
		(*tp)[i].topic = rbuf_str(rb, &(*tp)[i].topic_len);
		(*tp)[i].partition = rbuf_i32(rb);
	}
	return rb->err ? -1 : 0;
}

/* ---- JOIN_GROUP ---- */

void
msg_encode_join_group_req(struct wbuf *wb, const struct join_group_req *m)
{
	int32_t i;

	wbuf_str(wb, m->group, m->group_len);
	wbuf_str(wb, m->member_id, m->member_id_len);
	wbuf_str(wb, m->client_id, m->client_id_len);
	wbuf_i32(wb, m->session_timeout_ms);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++)
		wbuf_str(wb, m->topics[i].s, m->topics[i].len);
}

void
msg_encode_join_group_resp(struct wbuf *wb, const struct join_group_resp *m)
{
	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->generation);
	wbuf_str(wb, m->member_id, m->member_id_len);
	tp_encode(wb, m->count, m->parts);
}

int
msg_decode_join_group_req(const uint8_t *p, size_t len, struct arena *a,
    struct join_group_req *m)
{
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->group = rbuf_str(&rb, &m->group_len);
	m->member_id = rbuf_str(&rb, &m->member_id_len);
	m->client_id = rbuf_str(&rb, &m->client_id_len);
	m->session_timeout_ms = rbuf_i32(&rb);
	m->count = rbuf_count(&rb, MIN_STR);
	if (rb.err)
		return -1;
	m->topics = msg_array(a, m->count, sizeof(*m->topics), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count && !rb.err; i++)
		m->topics[i].s = rbuf_str(&rb, &m->topics[i].len);
	return msg_done(&rb);
}

int
msg_decode_join_group_resp(const uint8_t *p, size_t len, struct arena *a,
    struct join_group_resp *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->generation = rbuf_i32(&rb);
	m->member_id = rbuf_str(&rb, &m->member_id_len);
	if (tp_decode(&rb, a, &m->count, &m->parts) == -1)
		return -1;
	return msg_done(&rb);
}

/* ---- HEARTBEAT, LEAVE_GROUP and their [error i16] answers ---- */

void
msg_encode_heartbeat_req(struct wbuf *wb, const struct heartbeat_req *m)
{
	wbuf_str(wb, m->group, m->group_len);
	wbuf_str(wb, m->member_id, m->member_id_len);
	wbuf_i32(wb, m->generation);
}

int
msg_decode_heartbeat_req(const uint8_t *p, size_t len, struct heartbeat_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->group = rbuf_str(&rb, &m->group_len);
	m->member_id = rbuf_str(&rb, &m->member_id_len);
	m->generation = rbuf_i32(&rb);
	return msg_done(&rb);
}

void
msg_encode_leave_group_req(struct wbuf *wb, const struct leave_group_req *m)
{
	wbuf_str(wb, m->group, m->group_len);
	wbuf_str(wb, m->member_id, m->member_id_len);
}

int
msg_decode_leave_group_req(const uint8_t *p, size_t len,
    struct leave_group_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->group = rbuf_str(&rb, &m->group_len);
	m->member_id = rbuf_str(&rb, &m->member_id_len);
	return msg_done(&rb);
}

void
msg_encode_group_error_resp(struct wbuf *wb, const struct group_error_resp *m)
{
	wbuf_i16(wb, m->error);
}

/* Exactly [error i16], zero or not. */
int
msg_decode_group_error_resp(const uint8_t *p, size_t len,
    struct group_error_resp *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	return msg_done(&rb);
}

/* ---- OFFSET_COMMIT ---- */

void
msg_encode_offset_commit_req(struct wbuf *wb, const struct offset_commit_req *m)
{
	const struct commit_part *cp;
	int32_t i;

	wbuf_str(wb, m->group, m->group_len);
	wbuf_str(wb, m->member_id, m->member_id_len);
	wbuf_i32(wb, m->generation);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		cp = &m->parts[i];
		wbuf_str(wb, cp->topic, cp->topic_len);
		wbuf_i32(wb, cp->partition);
		wbuf_i64(wb, cp->offset);
	}
}

void
msg_encode_offset_commit_resp(struct wbuf *wb, const struct offset_commit_resp *m)
{
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++)
		wbuf_i16(wb, m->errors[i]);
}

int
msg_decode_offset_commit_req(const uint8_t *p, size_t len, struct arena *a,
    struct offset_commit_req *m)
{
	struct commit_part *cp;
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->group = rbuf_str(&rb, &m->group_len);
	m->member_id = rbuf_str(&rb, &m->member_id_len);
	m->generation = rbuf_i32(&rb);
	m->count = rbuf_count(&rb, MIN_COMMIT_PART);
	if (rb.err)
		return -1;
	m->parts = msg_array(a, m->count, sizeof(*m->parts), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count && !rb.err; i++) {
		cp = &m->parts[i];
		cp->topic = rbuf_str(&rb, &cp->topic_len);
		cp->partition = rbuf_i32(&rb);
		cp->offset = rbuf_i64(&rb);
	}
	return msg_done(&rb);
}

int
msg_decode_offset_commit_resp(const uint8_t *p, size_t len, struct arena *a,
    struct offset_commit_resp *m)
{
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_ERROR);
	if (rb.err)
		return -1;
	m->errors = msg_array(a, m->count, sizeof(*m->errors), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++)
		m->errors[i] = rbuf_i16(&rb);
	return msg_done(&rb);
}

/* ---- OFFSET_FETCH ---- */

void
msg_encode_offset_fetch_req(struct wbuf *wb, const struct offset_fetch_req *m)
{
	wbuf_str(wb, m->group, m->group_len);
	tp_encode(wb, m->count, m->parts);
}

void
msg_encode_offset_fetch_resp(struct wbuf *wb, const struct offset_fetch_resp *m)
{
	const struct offset_fetch_result *r;
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		r = &m->results[i];
		wbuf_str(wb, r->topic, r->topic_len);
		wbuf_i32(wb, r->partition);
		wbuf_i16(wb, r->error);
		wbuf_i64(wb, r->offset);
	}
}

int
msg_decode_offset_fetch_req(const uint8_t *p, size_t len, struct arena *a,
    struct offset_fetch_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->group = rbuf_str(&rb, &m->group_len);
	if (tp_decode(&rb, a, &m->count, &m->parts) == -1)
		return -1;
	return msg_done(&rb);
}

int
msg_decode_offset_fetch_resp(const uint8_t *p, size_t len, struct arena *a,
    struct offset_fetch_resp *m)
{
	struct offset_fetch_result *r;
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_OFFSET_FETCH_RESULT);
	if (rb.err)
		return -1;
	m->results = msg_array(a, m->count, sizeof(*m->results), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count && !rb.err; i++) {
		r = &m->results[i];
		r->topic = rbuf_str(&rb, &r->topic_len);
		r->partition = rbuf_i32(&rb);
		r->error = rbuf_i16(&rb);
		r->offset = rbuf_i64(&rb);
	}
	return msg_done(&rb);
}

/* ---- LIST_GROUPS ---- */

void
msg_encode_list_groups_resp(struct wbuf *wb, const struct list_groups_resp *m)
{
	const struct group_listing *g;
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		g = &m->groups[i];
		wbuf_str(wb, g->group, g->group_len);
		wbuf_i8(wb, g->state);
		wbuf_i32(wb, g->generation);
		wbuf_i32(wb, g->members);
	}
}

int
msg_decode_list_groups_resp(const uint8_t *p, size_t len, struct arena *a,
    struct list_groups_resp *m)
{
	struct group_listing *g;
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_LISTING);
	if (rb.err)
		return -1;
	m->groups = msg_array(a, m->count, sizeof(*m->groups), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count && !rb.err; i++) {
		g = &m->groups[i];
		g->group = rbuf_str(&rb, &g->group_len);
		g->state = rbuf_i8(&rb);
		g->generation = rbuf_i32(&rb);
		g->members = rbuf_i32(&rb);
	}
	return msg_done(&rb);
}

/* ---- DESCRIBE_GROUP ---- */

void
msg_encode_describe_group_req(struct wbuf *wb, const struct describe_group_req *m)
{
	wbuf_str(wb, m->group, m->group_len);
}

int
msg_decode_describe_group_req(const uint8_t *p, size_t len,
    struct describe_group_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->group = rbuf_str(&rb, &m->group_len);
	return msg_done(&rb);
}

void
msg_encode_describe_group_resp(struct wbuf *wb,
    const struct describe_group_resp *m)
{
	const struct member_desc *md;
	const struct group_offset_desc *od;
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i8(wb, m->state);
	wbuf_i32(wb, m->generation);
	wbuf_i32(wb, m->nmembers);
	for (i = 0; i < m->nmembers; i++) {
		md = &m->members[i];
		wbuf_str(wb, md->member_id, md->member_id_len);
		wbuf_str(wb, md->client_id, md->client_id_len);
		wbuf_i32(wb, md->session_timeout_ms);
		tp_encode(wb, md->count, md->parts);
	}
	wbuf_i32(wb, m->noffsets);
	for (i = 0; i < m->noffsets; i++) {
		od = &m->offsets[i];
		wbuf_str(wb, od->topic, od->topic_len);
		wbuf_i32(wb, od->partition);
		wbuf_i64(wb, od->committed);
		wbuf_i64(wb, od->log_end);
	}
}

int
msg_decode_describe_group_resp(const uint8_t *p, size_t len, struct arena *a,
    struct describe_group_resp *m)
{
	struct member_desc *md;
	struct group_offset_desc *od;
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->state = rbuf_i8(&rb);
	m->generation = rbuf_i32(&rb);
	m->nmembers = rbuf_count(&rb, MIN_MEMBER_DESC);
	if (rb.err)
		return -1;
	m->members = msg_array(a, m->nmembers, sizeof(*m->members), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->nmembers; i++) {
		md = &m->members[i];
		md->member_id = rbuf_str(&rb, &md->member_id_len);
		md->client_id = rbuf_str(&rb, &md->client_id_len);
		md->session_timeout_ms = rbuf_i32(&rb);
		if (tp_decode(&rb, a, &md->count, &md->parts) == -1)
			return -1;
	}
	m->noffsets = rbuf_count(&rb, MIN_OFFSET_DESC);
	if (rb.err)
		return -1;
	m->offsets = msg_array(a, m->noffsets, sizeof(*m->offsets), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->noffsets && !rb.err; i++) {
		od = &m->offsets[i];
		od->topic = rbuf_str(&rb, &od->topic_len);
		od->partition = rbuf_i32(&rb);
		od->committed = rbuf_i64(&rb);
		od->log_end = rbuf_i64(&rb);
	}
	return msg_done(&rb);
}

/* ---- GROUP_RESET ---- */

void
msg_encode_group_reset_req(struct wbuf *wb, const struct group_reset_req *m)
{
	wbuf_str(wb, m->group, m->group_len);
	wbuf_str(wb, m->topic, m->topic_len);
	wbuf_i32(wb, m->partition);
	wbuf_i8(wb, m->mode);
	wbuf_i64(wb, m->value);
}

int
msg_decode_group_reset_req(const uint8_t *p, size_t len,
    struct group_reset_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->group = rbuf_str(&rb, &m->group_len);
	m->topic = rbuf_str(&rb, &m->topic_len);
	m->partition = rbuf_i32(&rb);
	m->mode = rbuf_i8(&rb);
	m->value = rbuf_i64(&rb);
	return msg_done(&rb);
}

void
msg_encode_group_reset_resp(struct wbuf *wb, const struct group_reset_resp *m)
{
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		wbuf_i32(wb, m->results[i].partition);
		wbuf_i16(wb, m->results[i].error);
		wbuf_i64(wb, m->results[i].offset);
	}
}

int
msg_decode_group_reset_resp(const uint8_t *p, size_t len, struct arena *a,
    struct group_reset_resp *m)
{
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_RESET_RESULT);
	if (rb.err)
		return -1;
	m->results = msg_array(a, m->count, sizeof(*m->results), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++) {
		m->results[i].partition = rbuf_i32(&rb);
		m->results[i].error = rbuf_i16(&rb);
		m->results[i].offset = rbuf_i64(&rb);
	}
	return msg_done(&rb);
}
