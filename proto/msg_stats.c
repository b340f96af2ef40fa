/*
 * STATS (18): the broker's figures for flume-admin stats, the same ones
 * the metrics child serves in the Prometheus format.  Layout in
 * proto/msg.h and flume-protocol(7).  Like every decoder in proto/, this
 * one checks that the payload is exactly one well-formed message and
 * sizes no array beyond what the payload could hold.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

void
msg_encode_stats_resp(struct wbuf *wb, const struct stats_resp *m)
{
	const struct stats_child *c;
	const struct stats_partition *p;
	const struct stats_lag *l;
	int32_t i;

	wbuf_i16(wb, m->error);
	wbuf_i32(wb, m->nchildren);
	for (i = 0; i < m->nchildren; i++) {
		c = &m->children[i];
		wbuf_i32(wb, c->slot);
		wbuf_i8(wb, c->role);
		wbuf_i32(wb, c->pid);
		wbuf_i32(wb, c->restarts);
		wbuf_i64(wb, c->connections);
		wbuf_i64(wb, c->accepted);
		wbuf_i64(wb, c->requests);
		wbuf_i64(wb, c->bytes_in);
		wbuf_i64(wb, c->bytes_out);
		wbuf_i64(wb, c->rejected_conns);
		wbuf_i64(wb, c->protocol_errors);
	}
	wbuf_i32(wb, m->nparts);
	for (i = 0; i < m->nparts; i++) {
		p = &m->parts[i];
		wbuf_str(wb, p->topic, p->topic_len);
		wbuf_i32(wb, p->partition);
		wbuf_i64(wb, p->log_start);
		wbuf_i64(wb, p->log_end);
		wbuf_i64(wb, p->visible);
		wbuf_i64(wb, p->durable);
		wbuf_i64(wb, p->msgs_in);
		wbuf_i64(wb, p->bytes_in);
		wbuf_i64(wb, p->msgs_out);
		wbuf_i64(wb, p->bytes_out);
		wbuf_i64(wb, p->ring_used);
		wbuf_i64(wb, p->ring_size);
		wbuf_i32(wb, p->segments);
		wbuf_i64(wb, p->log_bytes);
	}
	wbuf_i64(wb, m->fsync_count);
	wbuf_i64(wb, m->fsync_errors);
	wbuf_i64(wb, m->fsync_sum_us);
	wbuf_i32(wb, m->nbuckets);
	for (i = 0; i < m->nbuckets; i++) {
		wbuf_i64(wb, m->buckets[i].le_us);
		wbuf_i64(wb, m->buckets[i].count);
	}
	wbuf_i32(wb, m->nerrors);
	for (i = 0; i < m->nerrors; i++) {
		wbuf_i16(wb, m->errors[i].error);
		wbuf_i64(wb, m->errors[i].count);
	}
	wbuf_i32(wb, m->nlags);
	for (i = 0; i < m->nlags; i++) {
		l = &m->lags[i];
		wbuf_str(wb, l->group, l->group_len);
		wbuf_str(wb, l->topic, l->topic_len);
		wbuf_i32(wb, l->partition);
		wbuf_i64(wb, l->committed);
		wbuf_i64(wb, l->lag);
	}
}

/*
 * Room for n elements of size sz; NULL for n == 0, NULL with rb->err set
 * when the arena refuses (so the decoder fails as for a short payload).
 */
static void *
stats_array(struct rbuf *rb, struct arena *a, int32_t n, size_t sz)
{
	int fail = 0;
	void *p;

	if (rb->err)
		return NULL;
	if ((p = msg_array(a, n, sz, &fail)) == NULL && fail)
		rb->err = 1;
	return p;
}

int
msg_decode_stats_resp(const uint8_t *buf, size_t len, struct arena *a,
    struct stats_resp *m)
{
	struct stats_child *c;
	struct stats_partition *p;
	struct stats_lag *l;
	struct rbuf rb;
	int32_t i;

	memset(m, 0, sizeof(*m));
	rbuf_init(&rb, buf, len);
	m->error = rbuf_i16(&rb);
	/* An error alone: the broker had nothing else to say. */
	if (!rb.err && rbuf_left(&rb) == 0 && m->error != 0)
		return 0;

	m->nchildren = rbuf_count(&rb, MIN_STATS_CHILD);
	m->children = stats_array(&rb, a, m->nchildren, sizeof(*m->children));
	for (i = 0; i < m->nchildren && !rb.err; i++) {
		c = &m->children[i];
		c->slot = rbuf_i32(&rb);
		c->role = rbuf_i8(&rb);
		c->pid = rbuf_i32(&rb);
		c->restarts = rbuf_i32(&rb);
		c->connections = rbuf_i64(&rb);
		c->accepted = rbuf_i64(&rb);
		c->requests = rbuf_i64(&rb);
		c->bytes_in = rbuf_i64(&rb);
		c->bytes_out = rbuf_i64(&rb);
		c->rejected_conns = rbuf_i64(&rb);
		c->protocol_errors = rbuf_i64(&rb);
	}

	m->nparts = rbuf_count(&rb, MIN_STATS_PARTITION);
	m->parts = stats_array(&rb, a, m->nparts, sizeof(*m->parts));
	for (i = 0; i < m->nparts && !rb.err; i++) {
		p = &m->parts[i];
		p->topic = rbuf_str(&rb, &p->topic_len);
		p->partition = rbuf_i32(&rb);
		p->log_start = rbuf_i64(&rb);
		p->log_end = rbuf_i64(&rb);
		p->visible = rbuf_i64(&rb);
		p->durable = rbuf_i64(&rb);
		p->msgs_in = rbuf_i64(&rb);
		p->bytes_in = rbuf_i64(&rb);
		p->msgs_out = rbuf_i64(&rb);
		p->bytes_out = rbuf_i64(&rb);
		p->ring_used = rbuf_i64(&rb);
		p->ring_size = rbuf_i64(&rb);
		p->segments = rbuf_i32(&rb);
		p->log_bytes = rbuf_i64(&rb);
	}

	m->fsync_count = rbuf_i64(&rb);
	m->fsync_errors = rbuf_i64(&rb);
	m->fsync_sum_us = rbuf_i64(&rb);
	m->nbuckets = rbuf_count(&rb, MIN_STATS_BUCKET);
	m->buckets = stats_array(&rb, a, m->nbuckets, sizeof(*m->buckets));
	for (i = 0; i < m->nbuckets && !rb.err; i++) {
		m->buckets[i].le_us = rbuf_i64(&rb);
		m->buckets[i].count = rbuf_i64(&rb);
	}

	m->nerrors = rbuf_count(&rb, MIN_STATS_ERROR);
	m->errors = stats_array(&rb, a, m->nerrors, sizeof(*m->errors));
	for (i = 0; i < m->nerrors && !rb.err; i++) {
		m->errors[i].error = rbuf_i16(&rb);
		m->errors[i].count = rbuf_i64(&rb);
	}

	m->nlags = rbuf_count(&rb, MIN_STATS_LAG);
	m->lags = stats_array(&rb, a, m->nlags, sizeof(*m->lags));
	for (i = 0; i < m->nlags && !rb.err; i++) {
		l = &m->lags[i];
		l->group = rbuf_str(&rb, &l->group_len);
		l->topic = rbuf_str(&rb, &l->topic_len);
		l->partition = rbuf_i32(&rb);
		l->committed = rbuf_i64(&rb);
		l->lag = rbuf_i64(&rb);
	}
	return msg_done(&rb);
}
