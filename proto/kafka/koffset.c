/*
 * OffsetCommit v0-2 and OffsetFetch v0-1 codecs (layouts in koffset.h).
 */
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/koffset.h"
#include "proto/wire.h"

#define TOPIC_MIN	(2 + 4)

int
kcommit_decode_req(struct kcommit_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	struct kcommit_topic *t;
	struct kcommit_part *cp;
	size_t part_min;
	int32_t i, j;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 2)
		return -1;
	rbuf_init(&rb, p, len);
	r->group_id = kbuf_str(&rb);
	r->generation_id = -1;
	r->member_id = kstr_c("");
	r->retention_ms = -1;
	if (version >= 1) {
		r->generation_id = rbuf_i32(&rb);
		r->member_id = kbuf_str(&rb);
	}
	if (version >= 2)
		r->retention_ms = rbuf_i64(&rb);
	part_min = 4 + 8 + 2 + (version == 1 ? 8 : 0);
	r->ntopics = kbuf_count(&rb, TOPIC_MIN, 0);
	r->topics = kbuf_alloc(&rb, a, r->ntopics, sizeof(*r->topics));
	for (i = 0; i < r->ntopics && !rb.err; i++) {
		t = &r->topics[i];
		t->name = kbuf_str(&rb);
		t->npart = kbuf_count(&rb, part_min, 0);
		t->parts = kbuf_alloc(&rb, a, t->npart, sizeof(*t->parts));
		for (j = 0; j < t->npart && !rb.err; j++) {
			cp = &t->parts[j];
			cp->partition = rbuf_i32(&rb);
			cp->offset = rbuf_i64(&rb);
			cp->timestamp = version == 1 ? rbuf_i64(&rb) : -1;
			cp->metadata = kbuf_nstr(&rb);
		}
	}
	return kbuf_done(&rb);
}

void
kcommit_encode_resp(struct wbuf *wb, int16_t version,
    const struct kcommit_resp *r)
{
	const struct kcommit_topic_resp *t;
	int32_t i, j;

	(void)version;
	wbuf_i32(wb, r->ntopics);
	for (i = 0; i < r->ntopics; i++) {
		t = &r->topics[i];
		kbuf_put_str(wb, t->name);
		wbuf_i32(wb, t->npart);
		for (j = 0; j < t->npart; j++) {
			wbuf_i32(wb, t->parts[j].partition);
			wbuf_i16(wb, t->parts[j].error);
		}
	}
}

int
koffset_fetch_decode_req(struct koffset_fetch_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	struct koffset_fetch_topic *t;
	int32_t i, j;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 1)
		return -1;
	rbuf_init(&rb, p, len);
	r->group_id = kbuf_str(&rb);
	r->ntopics = kbuf_count(&rb, TOPIC_MIN, 0);
	r->topics = kbuf_alloc(&rb, a, r->ntopics, sizeof(*r->topics));
	for (i = 0; i < r->ntopics && !rb.err; i++) {
		t = &r->topics[i];
		t->name = kbuf_str(&rb);
		t->npart = kbuf_count(&rb, 4, 0);
		t->parts = kbuf_alloc(&rb, a, t->npart, sizeof(*t->parts));
		for (j = 0; j < t->npart && !rb.err; j++)
			t->parts[j] = rbuf_i32(&rb);
	}
	return kbuf_done(&rb);
}

void
koffset_fetch_encode_resp(struct wbuf *wb, int16_t version,
    const struct koffset_fetch_resp *r)
{
	const struct koffset_fetch_topic_resp *t;
	const struct koffset_fetch_part_resp *fp;
	int32_t i, j;

	(void)version;
	wbuf_i32(wb, r->ntopics);
	for (i = 0; i < r->ntopics; i++) {
		t = &r->topics[i];
		kbuf_put_str(wb, t->name);
		wbuf_i32(wb, t->npart);
		for (j = 0; j < t->npart; j++) {
			fp = &t->parts[j];
			wbuf_i32(wb, fp->partition);
			wbuf_i64(wb, fp->offset);
			kbuf_put_str(wb, fp->metadata);
			wbuf_i16(wb, fp->error);
		}
	}
}
