/*
 * Encoders and decoders for the native protocol's payloads, one pair per
 * layout documented in proto/msg.h (and, for users, flume-protocol(7)).
 *
 * Decoders are structural only: they check that the payload is exactly
 * one well-formed message (every length and count inside the payload, no
 * trailing bytes) and leave semantic checks (topic names, partition
 * ranges, batch CRCs) to the handlers, which can answer those per entry.
 * Every count goes through rbuf_count() with the smallest size one entry
 * can take on the wire, so a count can never ask for more entries than
 * the payload could hold; arrays come from the caller's arena.
 *
 * Response decoders also accept a payload that is only a non-zero
 * [error i16] (see msg_error_only()), so a client can decode whatever the
 * broker answered and look at m->error.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

static const char *const error_names[ERR_MAX] = {
	[ERR_NONE] = "no error",
	[ERR_UNKNOWN] = "unknown broker error",
	[ERR_INVALID_REQUEST] = "invalid request",
	[ERR_UNSUPPORTED_API] = "unsupported api",
	[ERR_UNSUPPORTED_VERSION] = "unsupported protocol version",
	[ERR_CORRUPT_MESSAGE] = "corrupt record batch",
	[ERR_MESSAGE_TOO_LARGE] = "message too large",
	[ERR_INVALID_TOPIC] = "invalid or reserved topic name",
	[ERR_UNKNOWN_TOPIC_OR_PARTITION] = "unknown topic or partition",
	[ERR_TOPIC_EXISTS] = "topic already exists",
	[ERR_INVALID_PARTITIONS] = "invalid partition count",
	[ERR_OFFSET_OUT_OF_RANGE] = "offset out of range",
	[ERR_STORAGE] = "storage error (disk full or I/O error)",
	[ERR_TIMEOUT] = "request timed out",
	[ERR_RESOURCE_LIMIT] = "resource limit reached",
	[ERR_UNSUPPORTED_COMPRESSION] = "unsupported compression",
	[ERR_DUPLICATE_SEQUENCE] = "duplicate sequence number",
	[ERR_OUT_OF_ORDER_SEQUENCE] = "out of order sequence number",
	[ERR_INVALID_GROUP] = "invalid group",
	[ERR_UNKNOWN_MEMBER] = "unknown group member",
	[ERR_ILLEGAL_GENERATION] = "illegal group generation",
	[ERR_REBALANCE_IN_PROGRESS] = "group rebalance in progress",
	[ERR_INVALID_SESSION_TIMEOUT] = "invalid session timeout",
	[ERR_AUTH_FAILED] = "authentication failed",
	[ERR_ACCESS_DENIED] = "access denied",
	[ERR_SHUTTING_DOWN] = "broker shutting down",
	[ERR_AUTH_REQUIRED] = "authentication required",
	[ERR_PRODUCER_FENCED] = "unknown producer id or stale producer epoch",
	[ERR_GROUP_NOT_EMPTY] = "the group has active members",
	[ERR_GROUP_KIND] = "the group has members of the other protocol (native or kafka)",
};

static const char *const api_names[API_MAX] = {
	[API_HANDSHAKE] = "HANDSHAKE",
	[API_METADATA] = "METADATA",
	[API_PRODUCE] = "PRODUCE",
	[API_FETCH] = "FETCH",
	[API_LIST_OFFSETS] = "LIST_OFFSETS",
	[API_CREATE_TOPIC] = "CREATE_TOPIC",
	[API_WORKERS] = "WORKERS",
	[API_JOIN_GROUP] = "JOIN_GROUP",
	[API_HEARTBEAT] = "HEARTBEAT",
	[API_LEAVE_GROUP] = "LEAVE_GROUP",
	[API_OFFSET_COMMIT] = "OFFSET_COMMIT",
	[API_OFFSET_FETCH] = "OFFSET_FETCH",
	[API_LIST_GROUPS] = "LIST_GROUPS",
	[API_DESCRIBE_GROUP] = "DESCRIBE_GROUP",
	[API_INIT_PRODUCER] = "INIT_PRODUCER",
	[API_AUTH_BEGIN] = "AUTH_BEGIN",
	[API_AUTH_PROVE] = "AUTH_PROVE",
	[API_STATS] = "STATS",
	[API_GROUP_RESET] = "GROUP_RESET",
	[API_DELETE_TOPIC] = "DELETE_TOPIC",
	[API_GROUP_DELETE] = "GROUP_DELETE",
};

const char *
flume_strerror(int err)
{
	if (err < 0 || err >= ERR_MAX || error_names[err] == NULL)
		return "unknown error";
	return error_names[err];
}

const char *
api_name(int api_key)
{
	if (api_key < 0 || api_key >= API_MAX || api_names[api_key] == NULL)
		return "?";
	return api_names[api_key];
}

/*
 * Room for n elements of size sz from the arena; NULL for n == 0 (nothing
 * to point at) and NULL with *fail set when the arena refuses.
 */
void *
msg_array(struct arena *a, int32_t n, size_t sz, int *fail)
{
	void *p;

	if (n <= 0)
		return NULL;
	if ((size_t)n > SIZE_MAX / sz) {
		*fail = 1;
		return NULL;
	}
	if ((p = arena_alloc(a, (size_t)n * sz)) == NULL)
		*fail = 1;
	return p;
}

/* The end of every decoder: all read, nothing short, nothing left over. */
int
msg_done(const struct rbuf *rb)
{
	return rb->err || rbuf_left(rb) != 0 ? -1 : 0;
}

/*
 * A response whose top-level error is set may be sent as that error alone
 * (the broker has nothing else to say about a request it could not
 * decode).  Returns 1, with *error set, when the payload is exactly that;
 * the caller's message is then already zeroed apart from the error.
 */
int
msg_error_only(const uint8_t *p, size_t len, int16_t *error)
{
	struct rbuf rb;
	int16_t e;

	if (len != 2)
		return 0;
	rbuf_init(&rb, p, len);
	if ((e = rbuf_i16(&rb)) == 0)
		return 0;
	*error = e;
	return 1;
}

/* Record bytes that must be present (not null, not negative). */
static const uint8_t *
msg_records(struct rbuf *rb, int32_t *len)
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

/* ---- HANDSHAKE ---- */

void
msg_encode_handshake_req(struct wbuf *wb, const struct handshake_req *m)
{
	wbuf_i16(wb, m->version);
	wbuf_str(wb, m->client_id, m->client_id_len);
}

void
msg_encode_handshake_resp(struct wbuf *wb, const struct handshake_resp *m)
{
	wbuf_i16(wb, m->error);
	wbuf_i16(wb, m->version);
	wbuf_i32(wb, m->max_frame);
	wbuf_str(wb, m->broker, m->broker_len);
}

int
msg_decode_handshake_req(const uint8_t *p, size_t len, struct handshake_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->version = rbuf_i16(&rb);
	m->client_id = rbuf_str(&rb, &m->client_id_len);
	return msg_done(&rb);
}

int
msg_decode_handshake_resp(const uint8_t *p, size_t len, struct handshake_resp *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->version = rbuf_i16(&rb);
	m->max_frame = rbuf_i32(&rb);
	m->broker = rbuf_str(&rb, &m->broker_len);
	return msg_done(&rb);
}

/* ---- METADATA ---- */

void
msg_encode_metadata_req(struct wbuf *wb, const struct metadata_req *m)
{
	int32_t i;

	wbuf_i8(wb, m->auto_create);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++)
		wbuf_str(wb, m->topics[i].s, m->topics[i].len);
}

void
msg_encode_metadata_resp(struct wbuf *wb, const struct metadata_resp *m)
{
	const struct topic_info *t;
	const struct partition_info *pi;
	int32_t i, j;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		t = &m->topics[i];
		wbuf_i16(wb, t->error);
		wbuf_str(wb, t->name, t->name_len);
		wbuf_i32(wb, t->count);
		for (j = 0; j < t->count; j++) {
			pi = &t->partitions[j];
			wbuf_i32(wb, pi->partition);
			wbuf_i64(wb, pi->log_start);
			wbuf_i64(wb, pi->log_end);
			wbuf_i64(wb, pi->size_bytes);
		}
	}
}

int
msg_decode_metadata_req(const uint8_t *p, size_t len, struct arena *a,
    struct metadata_req *m)
{
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->auto_create = rbuf_i8(&rb);
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
msg_decode_metadata_resp(const uint8_t *p, size_t len, struct arena *a,
    struct metadata_resp *m)
{
	struct rbuf rb;
	struct topic_info *t;
	struct partition_info *pi;
	int32_t i, j;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_METADATA_TOPIC);
	if (rb.err)
		return -1;
	m->topics = msg_array(a, m->count, sizeof(*m->topics), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++) {
		t = &m->topics[i];
		memset(t, 0, sizeof(*t));
		t->error = rbuf_i16(&rb);
		t->name = rbuf_str(&rb, &t->name_len);
		t->count = rbuf_count(&rb, MIN_PARTITION_INFO);
		if (rb.err)
			return -1;
		t->partitions = msg_array(a, t->count, sizeof(*t->partitions),
		    &fail);
		if (fail)
			return -1;
		for (j = 0; j < t->count; j++) {
			pi = &t->partitions[j];
			pi->partition = rbuf_i32(&rb);
			pi->log_start = rbuf_i64(&rb);
			pi->log_end = rbuf_i64(&rb);
			pi->size_bytes = rbuf_i64(&rb);
		}
	}
	return msg_done(&rb);
}

/* ---- CREATE_TOPIC ---- */

void
msg_encode_create_topic_req(struct wbuf *wb, const struct create_topic_req *m)
{
	wbuf_str(wb, m->topic, m->topic_len);
	wbuf_i32(wb, m->partitions);
}

void
msg_encode_create_topic_resp(struct wbuf *wb, const struct create_topic_resp *m)
{
	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->partitions);
}

int
msg_decode_create_topic_req(const uint8_t *p, size_t len,
    struct create_topic_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->topic = rbuf_str(&rb, &m->topic_len);
	m->partitions = rbuf_i32(&rb);
	return msg_done(&rb);
}

/* ---- DELETE_TOPIC ---- */

void
msg_encode_delete_topic_req(struct wbuf *wb, const struct delete_topic_req *m)
{
	wbuf_str(wb, m->topic, m->topic_len);
	wbuf_i32(wb, m->timeout_ms);
}

void
msg_encode_delete_topic_resp(struct wbuf *wb, const struct delete_topic_resp *m)
{
	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->partitions);
}

int
msg_decode_delete_topic_req(const uint8_t *p, size_t len,
    struct delete_topic_req *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->topic = rbuf_str(&rb, &m->topic_len);
	m->timeout_ms = rbuf_i32(&rb);
	return msg_done(&rb);
}

int
msg_decode_delete_topic_resp(const uint8_t *p, size_t len,
    struct delete_topic_resp *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->partitions = rbuf_i32(&rb);
	return msg_done(&rb);
}

int
msg_decode_create_topic_resp(const uint8_t *p, size_t len,
    struct create_topic_resp *m)
{
	struct rbuf rb;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->partitions = rbuf_i32(&rb);
	return msg_done(&rb);
}

/* ---- PRODUCE ---- */

static void
produce_req_put(struct wbuf *wb, const struct produce_req *m, int by_ref,
    const struct wbuf_pieces *pieces)
{
	const struct produce_part *pp;
	int32_t i;

	wbuf_i8(wb, m->acks);
	wbuf_i32(wb, m->timeout_ms);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		pp = &m->parts[i];
		wbuf_str(wb, pp->topic, pp->topic_len);
		wbuf_i32(wb, pp->partition);
		if (pieces != NULL && pieces[i].nspans > 0)
			wbuf_bytes_pieces(wb, &pieces[i], by_ref);
		else if (by_ref)
			wbuf_bytes_ref(wb, pp->records, pp->records_len);
		else
			wbuf_bytes(wb, pp->records, pp->records_len);
	}
}

void
msg_encode_produce_req(struct wbuf *wb, const struct produce_req *m)
{
	produce_req_put(wb, m, 0, NULL);
}

void
msg_encode_produce_req_ref(struct wbuf *wb, const struct produce_req *m)
{
	produce_req_put(wb, m, 1, NULL);
}

void
msg_encode_produce_req_pieces(struct wbuf *wb, const struct produce_req *m,
    const struct wbuf_pieces *pieces, int by_ref)
{
	produce_req_put(wb, m, by_ref, pieces);
}

void
msg_encode_produce_resp(struct wbuf *wb, const struct produce_resp *m)
{
	const struct produce_result *r;
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		r = &m->results[i];
		wbuf_i16(wb, r->error);
		wbuf_i64(wb, r->base_offset);
		wbuf_i64(wb, r->log_start);
	}
}

/*
 * Records may be empty here (the handler answers that partition with
 * ERR_CORRUPT_MESSAGE) but never null or negative: that is malformed.
 */
int
msg_decode_produce_req(const uint8_t *p, size_t len, struct arena *a,
    struct produce_req *m)
{
	struct rbuf rb;
	struct produce_part *pp;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->acks = rbuf_i8(&rb);
	m->timeout_ms = rbuf_i32(&rb);
	m->count = rbuf_count(&rb, MIN_PRODUCE_PART);
	if (rb.err)
		return -1;
	m->parts = msg_array(a, m->count, sizeof(*m->parts), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count && !rb.err; i++) {
		pp = &m->parts[i];
		pp->topic = rbuf_str(&rb, &pp->topic_len);
		pp->partition = rbuf_i32(&rb);
		pp->records = msg_records(&rb, &pp->records_len);
	}
	return msg_done(&rb);
}

int
msg_decode_produce_resp(const uint8_t *p, size_t len, struct arena *a,
    struct produce_resp *m)
{
	struct rbuf rb;
	struct produce_result *r;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_PRODUCE_RESULT);
	if (rb.err)
		return -1;
	m->results = msg_array(a, m->count, sizeof(*m->results), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++) {
		r = &m->results[i];
		r->error = rbuf_i16(&rb);
		r->base_offset = rbuf_i64(&rb);
		r->log_start = rbuf_i64(&rb);
	}
	return msg_done(&rb);
}

/* ---- FETCH ---- */

void
msg_encode_fetch_req(struct wbuf *wb, const struct fetch_req *m)
{
	const struct fetch_part *fp;
	int32_t i;

	wbuf_i32(wb, m->max_wait_ms);
	wbuf_i32(wb, m->min_bytes);
	wbuf_i32(wb, m->max_bytes);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		fp = &m->parts[i];
		wbuf_str(wb, fp->topic, fp->topic_len);
		wbuf_i32(wb, fp->partition);
		wbuf_i64(wb, fp->offset);
		wbuf_i32(wb, fp->max_bytes);
	}
}

void
msg_encode_fetch_resp(struct wbuf *wb, const struct fetch_resp *m)
{
	const struct fetch_result *r;
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		r = &m->results[i];
		wbuf_i16(wb, r->error);
		wbuf_i64(wb, r->log_start);
		wbuf_i64(wb, r->high_watermark);
		wbuf_bytes(wb, r->records, r->records_len);
	}
}

int
msg_decode_fetch_req(const uint8_t *p, size_t len, struct arena *a,
    struct fetch_req *m)
{
	struct rbuf rb;
	struct fetch_part *fp;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->max_wait_ms = rbuf_i32(&rb);
	m->min_bytes = rbuf_i32(&rb);
	m->max_bytes = rbuf_i32(&rb);
	m->count = rbuf_count(&rb, MIN_FETCH_PART);
	if (rb.err)
		return -1;
	m->parts = msg_array(a, m->count, sizeof(*m->parts), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++) {
		fp = &m->parts[i];
		fp->topic = rbuf_str(&rb, &fp->topic_len);
		fp->partition = rbuf_i32(&rb);
		fp->offset = rbuf_i64(&rb);
		fp->max_bytes = rbuf_i32(&rb);
	}
	return msg_done(&rb);
}

/* Records may be empty (nothing visible yet) but not null or negative. */
int
msg_decode_fetch_resp(const uint8_t *p, size_t len, struct arena *a,
    struct fetch_resp *m)
{
	struct rbuf rb;
	struct fetch_result *r;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_FETCH_RESULT);
	if (rb.err)
		return -1;
	m->results = msg_array(a, m->count, sizeof(*m->results), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++) {
		r = &m->results[i];
		r->error = rbuf_i16(&rb);
		r->log_start = rbuf_i64(&rb);
		r->high_watermark = rbuf_i64(&rb);
		r->records = msg_records(&rb, &r->records_len);
	}
	return msg_done(&rb);
}

/* ---- LIST_OFFSETS ---- */

void
msg_encode_list_offsets_req(struct wbuf *wb, const struct list_offsets_req *m)
{
	const struct list_offsets_part *lp;
	int32_t i;

	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		lp = &m->parts[i];
		wbuf_str(wb, lp->topic, lp->topic_len);
		wbuf_i32(wb, lp->partition);
		wbuf_i64(wb, lp->which);
	}
}

void
msg_encode_list_offsets_resp(struct wbuf *wb, const struct list_offsets_resp *m)
{
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		wbuf_i16(wb, m->results[i].error);
		wbuf_i64(wb, m->results[i].offset);
	}
}

int
msg_decode_list_offsets_req(const uint8_t *p, size_t len, struct arena *a,
    struct list_offsets_req *m)
{
	struct rbuf rb;
	struct list_offsets_part *lp;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, p, len);
	m->count = rbuf_count(&rb, MIN_LIST_OFFSETS_PART);
	if (rb.err)
		return -1;
	m->parts = msg_array(a, m->count, sizeof(*m->parts), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++) {
		lp = &m->parts[i];
		lp->topic = rbuf_str(&rb, &lp->topic_len);
		lp->partition = rbuf_i32(&rb);
		lp->which = rbuf_i64(&rb);
	}
	return msg_done(&rb);
}

int
msg_decode_list_offsets_resp(const uint8_t *p, size_t len, struct arena *a,
    struct list_offsets_resp *m)
{
	struct rbuf rb;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_LIST_OFFSETS_RESULT);
	if (rb.err)
		return -1;
	m->results = msg_array(a, m->count, sizeof(*m->results), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++) {
		m->results[i].error = rbuf_i16(&rb);
		m->results[i].offset = rbuf_i64(&rb);
		m->results[i].timestamp = -1;
	}
	return msg_done(&rb);
}

/* ---- WORKERS ---- */

void
msg_encode_workers_resp(struct wbuf *wb, const struct workers_resp *m)
{
	const struct child_info *c;
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->count);
	for (i = 0; i < m->count; i++) {
		c = &m->children[i];
		wbuf_i32(wb, c->slot);
		wbuf_i8(wb, c->role);
		wbuf_i32(wb, c->pid);
		wbuf_i64(wb, c->uptime_ms);
		wbuf_i32(wb, c->restarts);
	}
}

int
msg_decode_workers_resp(const uint8_t *p, size_t len, struct arena *a,
    struct workers_resp *m)
{
	struct rbuf rb;
	struct child_info *c;
	int32_t i;
	int fail = 0;

	memset(m, 0, sizeof(*m));
	if (msg_error_only(p, len, &m->error))
		return 0;
	rbuf_init(&rb, p, len);
	m->error = rbuf_i16(&rb);
	m->count = rbuf_count(&rb, MIN_CHILD_INFO);
	if (rb.err)
		return -1;
	m->children = msg_array(a, m->count, sizeof(*m->children), &fail);
	if (fail)
		return -1;
	for (i = 0; i < m->count; i++) {
		c = &m->children[i];
		c->slot = rbuf_i32(&rb);
		c->role = rbuf_i8(&rb);
		c->pid = rbuf_i32(&rb);
		c->uptime_ms = rbuf_i64(&rb);
		c->restarts = rbuf_i32(&rb);
	}
	return msg_done(&rb);
}
