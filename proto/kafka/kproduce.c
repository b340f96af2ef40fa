/*
 * Produce v0-7 and InitProducerId v0-1 codecs (layouts in kproduce.h).
 * The record bytes are not looked at here: proto/batch.c validates them.
 */
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kproduce.h"
#include "proto/wire.h"

/* The smallest encodings of one array element, for kbuf_count. */
#define TOPIC_MIN	(2 + 4)		/* name "", empty partitions */
#define PART_MIN	(4 + 4)		/* partition, null records */

int
kproduce_decode_req(struct kproduce_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	struct kproduce_topic *t;
	int32_t i, j;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 7)
		return -1;
	rbuf_init(&rb, p, len);
	if (version >= 3)
		r->transactional_id = kbuf_nstr(&rb);
	else
		r->transactional_id.len = -1;
	r->acks = rbuf_i16(&rb);
	r->timeout_ms = rbuf_i32(&rb);
	r->ntopics = kbuf_count(&rb, TOPIC_MIN, 0);
	r->topics = kbuf_alloc(&rb, a, r->ntopics, sizeof(*r->topics));
	for (i = 0; i < r->ntopics && !rb.err; i++) {
		t = &r->topics[i];
		t->name = kbuf_str(&rb);
		t->npart = kbuf_count(&rb, PART_MIN, 0);
		t->parts = kbuf_alloc(&rb, a, t->npart, sizeof(*t->parts));
		for (j = 0; j < t->npart && !rb.err; j++) {
			t->parts[j].partition = rbuf_i32(&rb);
			t->parts[j].records = kbuf_bytes(&rb);
		}
	}
	return kbuf_done(&rb);
}

void
kproduce_encode_resp(struct wbuf *wb, int16_t version,
    const struct kproduce_resp *r)
{
	const struct kproduce_topic_resp *t;
	const struct kproduce_part_resp *pr;
	int32_t i, j;

	wbuf_i32(wb, r->ntopics);
	for (i = 0; i < r->ntopics; i++) {
		t = &r->topics[i];
		kbuf_put_str(wb, t->name);
		wbuf_i32(wb, t->npart);
		for (j = 0; j < t->npart; j++) {
			pr = &t->parts[j];
			wbuf_i32(wb, pr->partition);
			wbuf_i16(wb, pr->error);
			wbuf_i64(wb, pr->base_offset);
			if (version >= 2)
				wbuf_i64(wb, pr->log_append_time);
			if (version >= 5)
				wbuf_i64(wb, pr->log_start_offset);
		}
	}
	if (version >= 1)
		wbuf_i32(wb, r->throttle_ms);
}

int
kinit_pid_decode_req(struct kinit_pid_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;

	(void)a;
	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 1)
		return -1;
	rbuf_init(&rb, p, len);
	r->transactional_id = kbuf_nstr(&rb);
	r->txn_timeout_ms = rbuf_i32(&rb);
	return kbuf_done(&rb);
}

void
kinit_pid_encode_resp(struct wbuf *wb, int16_t version,
    const struct kinit_pid_resp *r)
{
	(void)version;
	wbuf_i32(wb, r->throttle_ms);
	wbuf_i16(wb, r->error);
	wbuf_i64(wb, r->producer_id);
	wbuf_i16(wb, r->producer_epoch);
}
