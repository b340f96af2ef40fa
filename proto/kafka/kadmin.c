/*
 * CreateTopics v0-2 and DeleteTopics v0-1 codecs (layouts in kadmin.h).
 */
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kadmin.h"
#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

#define CREATE_TOPIC_MIN	(2 + 4 + 2 + 4 + 4)
#define ASSIGN_MIN		(4 + 4)
#define CONFIG_MIN		(2 + 2)

int
kcreate_topics_decode_req(struct kcreate_topics_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	struct kcreate_topic *t;
	struct kcreate_assignment *as;
	int32_t i, j, k;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 2)
		return -1;
	rbuf_init(&rb, p, len);
	r->ntopics = kbuf_count(&rb, CREATE_TOPIC_MIN, 0);
	r->topics = kbuf_alloc(&rb, a, r->ntopics, sizeof(*r->topics));
	for (i = 0; i < r->ntopics && !rb.err; i++) {
		t = &r->topics[i];
		t->name = kbuf_str(&rb);
		t->num_partitions = rbuf_i32(&rb);
		t->replication_factor = rbuf_i16(&rb);
		t->nassign = kbuf_count(&rb, ASSIGN_MIN, 0);
		t->assign = kbuf_alloc(&rb, a, t->nassign, sizeof(*t->assign));
		for (j = 0; j < t->nassign && !rb.err; j++) {
			as = &t->assign[j];
			as->partition = rbuf_i32(&rb);
			as->nbrokers = kbuf_count(&rb, 4, 0);
			as->brokers = kbuf_alloc(&rb, a, as->nbrokers,
			    sizeof(*as->brokers));
			for (k = 0; k < as->nbrokers && !rb.err; k++)
				as->brokers[k] = rbuf_i32(&rb);
		}
		t->nconfigs = kbuf_count(&rb, CONFIG_MIN, 0);
		t->configs = kbuf_alloc(&rb, a, t->nconfigs,
		    sizeof(*t->configs));
		for (j = 0; j < t->nconfigs && !rb.err; j++) {
			t->configs[j].name = kbuf_str(&rb);
			t->configs[j].value = kbuf_nstr(&rb);
		}
	}
	r->timeout_ms = rbuf_i32(&rb);
	r->validate_only = version >= 1 ? kbuf_bool(&rb) : 0;
	return kbuf_done(&rb);
}

void
kcreate_topics_encode_resp(struct wbuf *wb, int16_t version,
    const struct ktopic_errors_resp *r)
{
	int32_t i;

	if (version >= 2)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i32(wb, r->ntopics);
	for (i = 0; i < r->ntopics; i++) {
		kbuf_put_str(wb, r->topics[i].name);
		wbuf_i16(wb, r->topics[i].error);
		if (version >= 1)
			kbuf_put_str(wb, r->topics[i].message);
	}
}

int
kdelete_topics_decode_req(struct kdelete_topics_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	int32_t i;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 1)
		return -1;
	rbuf_init(&rb, p, len);
	r->ntopics = kbuf_count(&rb, 2, 0);
	r->topics = kbuf_alloc(&rb, a, r->ntopics, sizeof(*r->topics));
	for (i = 0; i < r->ntopics && !rb.err; i++)
		r->topics[i] = kbuf_str(&rb);
	r->timeout_ms = rbuf_i32(&rb);
	return kbuf_done(&rb);
}

void
kdelete_topics_encode_resp(struct wbuf *wb, int16_t version,
    const struct ktopic_errors_resp *r)
{
	int32_t i;

	if (version >= 1)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i32(wb, r->ntopics);
	for (i = 0; i < r->ntopics; i++) {
		kbuf_put_str(wb, r->topics[i].name);
		wbuf_i16(wb, r->topics[i].error);
	}
}
