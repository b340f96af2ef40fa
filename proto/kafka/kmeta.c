/*
 * Metadata v0-4 and ApiVersions v0-2 codecs (layouts in kmeta.h).
 */
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kmeta.h"
#include "proto/wire.h"

int
kmetadata_decode_req(struct kmetadata_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	int32_t i;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 4)
		return -1;
	rbuf_init(&rb, p, len);
	r->ntopics = kbuf_count(&rb, 2, version >= 1);
	r->topics = kbuf_alloc(&rb, a, r->ntopics, sizeof(*r->topics));
	for (i = 0; i < r->ntopics && !rb.err; i++)
		r->topics[i] = kbuf_str(&rb);
	r->allow_auto_create = version >= 4 ? kbuf_bool(&rb) : 1;
	return kbuf_done(&rb);
}

static void
put_i32_array(struct wbuf *wb, int32_t n, const int32_t *v)
{
	int32_t i;

	wbuf_i32(wb, n);
	for (i = 0; i < n; i++)
		wbuf_i32(wb, v[i]);
}

void
kmetadata_encode_resp(struct wbuf *wb, int16_t version,
    const struct kmetadata_resp *r)
{
	const struct kmetadata_broker *b;
	const struct kmetadata_topic *t;
	const struct kmetadata_part *mp;
	int32_t i, j;

	if (version >= 3)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i32(wb, r->nbrokers);
	for (i = 0; i < r->nbrokers; i++) {
		b = &r->brokers[i];
		wbuf_i32(wb, b->node_id);
		kbuf_put_str(wb, b->host);
		wbuf_i32(wb, b->port);
		if (version >= 1)
			kbuf_put_str(wb, b->rack);
	}
	if (version >= 2)
		kbuf_put_str(wb, r->cluster_id);
	if (version >= 1)
		wbuf_i32(wb, r->controller_id);
	wbuf_i32(wb, r->ntopics);
	for (i = 0; i < r->ntopics; i++) {
		t = &r->topics[i];
		wbuf_i16(wb, t->error);
		kbuf_put_str(wb, t->name);
		if (version >= 1)
			wbuf_i8(wb, t->is_internal ? 1 : 0);
		wbuf_i32(wb, t->npart);
		for (j = 0; j < t->npart; j++) {
			mp = &t->parts[j];
			wbuf_i16(wb, mp->error);
			wbuf_i32(wb, mp->partition);
			wbuf_i32(wb, mp->leader);
			put_i32_array(wb, mp->nreplicas, mp->replicas);
			put_i32_array(wb, mp->nisr, mp->isr);
		}
	}
}

int
kapi_versions_decode_req(int16_t version, const uint8_t *p, size_t len)
{
	(void)p;
	if (version < 0 || version > 2)
		return -1;
	return len == 0 ? 0 : -1;
}

void
kapi_versions_encode_resp(struct wbuf *wb, int16_t version,
    const struct kapi_versions_resp *r)
{
	int32_t i;

	wbuf_i16(wb, r->error);
	wbuf_i32(wb, r->napis);
	for (i = 0; i < r->napis; i++) {
		wbuf_i16(wb, r->apis[i].key);
		wbuf_i16(wb, r->apis[i].min);
		wbuf_i16(wb, r->apis[i].max);
	}
	if (version >= 1)
		wbuf_i32(wb, r->throttle_ms);
}
