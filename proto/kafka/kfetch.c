/*
 * Fetch v4-10 and ListOffsets v1-2 codecs (layouts in kfetch.h).
 */
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kfetch.h"
#include "proto/wire.h"

#define TOPIC_MIN	(2 + 4)
#define FETCH_PART_MIN	(4 + 8 + 4)	/* v4; later versions are longer */
#define FORGOT_PART_MIN	4
#define LIST_PART_MIN	(4 + 8)

int
kfetch_decode_req(struct kfetch_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	struct kfetch_topic *t;
	struct kfetch_part *fp;
	int32_t i, j, n;

	memset(r, 0, sizeof(*r));
	if (version < 4 || version > 10)
		return -1;
	rbuf_init(&rb, p, len);
	r->replica_id = rbuf_i32(&rb);
	r->max_wait_ms = rbuf_i32(&rb);
	r->min_bytes = rbuf_i32(&rb);
	r->max_bytes = rbuf_i32(&rb);
	r->isolation_level = rbuf_i8(&rb);
	r->session_epoch = -1;
	if (version >= 7) {
		r->session_id = rbuf_i32(&rb);
		r->session_epoch = rbuf_i32(&rb);
	}
	r->ntopics = kbuf_count(&rb, TOPIC_MIN, 0);
	r->topics = kbuf_alloc(&rb, a, r->ntopics, sizeof(*r->topics));
	for (i = 0; i < r->ntopics && !rb.err; i++) {
		t = &r->topics[i];
		t->name = kbuf_str(&rb);
		t->npart = kbuf_count(&rb, FETCH_PART_MIN, 0);
		t->parts = kbuf_alloc(&rb, a, t->npart, sizeof(*t->parts));
		for (j = 0; j < t->npart && !rb.err; j++) {
			fp = &t->parts[j];
			fp->partition = rbuf_i32(&rb);
			fp->leader_epoch = version >= 9 ? rbuf_i32(&rb) : -1;
			fp->fetch_offset = rbuf_i64(&rb);
			fp->log_start_offset = version >= 5 ? rbuf_i64(&rb) :
			    -1;
			fp->max_bytes = rbuf_i32(&rb);
		}
	}
	if (version < 7)
		return kbuf_done(&rb);
	/* Forgotten topics only mean something in a session: checked, unkept. */
	n = kbuf_count(&rb, TOPIC_MIN, 0);
	for (i = 0; i < n && !rb.err; i++) {
		(void)kbuf_str(&rb);
		j = kbuf_count(&rb, FORGOT_PART_MIN, 0);
		r->nforgotten += j;
		while (j-- > 0 && !rb.err)
			(void)rbuf_i32(&rb);
	}
	return kbuf_done(&rb);
}

void
kfetch_resp_begin(struct wbuf *wb, int16_t version, int32_t throttle_ms,
    int16_t error, int32_t ntopics)
{
	wbuf_i32(wb, throttle_ms);
	if (version >= 7) {
		wbuf_i16(wb, error);
		wbuf_i32(wb, 0);	/* session_id: no session */
	}
	wbuf_i32(wb, ntopics);
}

void
kfetch_resp_topic(struct wbuf *wb, struct kstr name, int32_t npart)
{
	kbuf_put_str(wb, name);
	wbuf_i32(wb, npart);
}

/* Flume has no transactions: the aborted list is always empty, not null. */
void
kfetch_resp_part(struct wbuf *wb, int16_t version,
    const struct kfetch_part_resp *pr, int32_t records_len)
{
	wbuf_i32(wb, pr->partition);
	wbuf_i16(wb, pr->error);
	wbuf_i64(wb, pr->high_watermark);
	wbuf_i64(wb, pr->last_stable_offset);
	if (version >= 5)
		wbuf_i64(wb, pr->log_start_offset);
	wbuf_i32(wb, 0);
	wbuf_i32(wb, records_len);
}

void
kfetch_encode_resp(struct wbuf *wb, int16_t version,
    const struct kfetch_resp *r)
{
	const struct kfetch_topic_resp *t;
	const struct kfetch_part_resp *pr;
	int32_t i, j;

	kfetch_resp_begin(wb, version, r->throttle_ms, r->error, r->ntopics);
	for (i = 0; i < r->ntopics; i++) {
		t = &r->topics[i];
		kfetch_resp_topic(wb, t->name, t->npart);
		for (j = 0; j < t->npart; j++) {
			pr = &t->parts[j];
			kfetch_resp_part(wb, version, pr, pr->records.len);
			if (pr->records.len > 0)
				wbuf_raw(wb, pr->records.p,
				    (size_t)pr->records.len);
		}
	}
}

int
klist_offsets_decode_req(struct klist_offsets_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	struct klist_offsets_topic *t;
	int32_t i, j;

	memset(r, 0, sizeof(*r));
	if (version < 1 || version > 2)
		return -1;
	rbuf_init(&rb, p, len);
	r->replica_id = rbuf_i32(&rb);
	if (version >= 2)
		r->isolation_level = rbuf_i8(&rb);
	r->ntopics = kbuf_count(&rb, TOPIC_MIN, 0);
	r->topics = kbuf_alloc(&rb, a, r->ntopics, sizeof(*r->topics));
	for (i = 0; i < r->ntopics && !rb.err; i++) {
		t = &r->topics[i];
		t->name = kbuf_str(&rb);
		t->npart = kbuf_count(&rb, LIST_PART_MIN, 0);
		t->parts = kbuf_alloc(&rb, a, t->npart, sizeof(*t->parts));
		for (j = 0; j < t->npart && !rb.err; j++) {
			t->parts[j].partition = rbuf_i32(&rb);
			t->parts[j].timestamp = rbuf_i64(&rb);
		}
	}
	return kbuf_done(&rb);
}

void
klist_offsets_encode_resp(struct wbuf *wb, int16_t version,
    const struct klist_offsets_resp *r)
{
	const struct klist_offsets_topic_resp *t;
	const struct klist_offsets_part_resp *pr;
	int32_t i, j;

	if (version >= 2)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i32(wb, r->ntopics);
	for (i = 0; i < r->ntopics; i++) {
		t = &r->topics[i];
		kbuf_put_str(wb, t->name);
		wbuf_i32(wb, t->npart);
		for (j = 0; j < t->npart; j++) {
			pr = &t->parts[j];
			wbuf_i32(wb, pr->partition);
			wbuf_i16(wb, pr->error);
			wbuf_i64(wb, pr->timestamp);
			wbuf_i64(wb, pr->offset);
		}
	}
}
