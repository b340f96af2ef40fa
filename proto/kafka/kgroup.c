/*
 * Group membership codecs (layouts in kgroup.h).  Member metadata and
 * assignments are opaque bytes here: the broker relays them.
 */
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kgroup.h"
#include "proto/wire.h"

#define BLOB_MIN	(2 + 4)		/* "" and empty bytes */

static struct kgroup_blob *
blobs_decode(struct rbuf *rb, struct arena *a, int32_t *n)
{
	struct kgroup_blob *b;
	int32_t i;

	*n = kbuf_count(rb, BLOB_MIN, 0);
	b = kbuf_alloc(rb, a, *n, sizeof(*b));
	for (i = 0; i < *n && !rb->err; i++) {
		b[i].name = kbuf_str(rb);
		b[i].data = kbuf_bytes(rb);
	}
	return b;
}

static void
blobs_encode(struct wbuf *wb, int32_t n, const struct kgroup_blob *b)
{
	int32_t i;

	wbuf_i32(wb, n);
	for (i = 0; i < n; i++) {
		kbuf_put_str(wb, b[i].name);
		kbuf_put_bytes(wb, b[i].data);
	}
}

int
kfind_coord_decode_req(struct kfind_coord_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;

	(void)a;
	memset(r, 0, sizeof(*r));
	if (version != 0)
		return -1;
	rbuf_init(&rb, p, len);
	r->group_id = kbuf_str(&rb);
	return kbuf_done(&rb);
}

void
kfind_coord_encode_resp(struct wbuf *wb, int16_t version,
    const struct kfind_coord_resp *r)
{
	(void)version;
	wbuf_i16(wb, r->error);
	wbuf_i32(wb, r->node_id);
	kbuf_put_str(wb, r->host);
	wbuf_i32(wb, r->port);
}

int
kjoin_decode_req(struct kjoin_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 2)
		return -1;
	rbuf_init(&rb, p, len);
	r->group_id = kbuf_str(&rb);
	r->session_timeout_ms = rbuf_i32(&rb);
	r->rebalance_timeout_ms = version >= 1 ? rbuf_i32(&rb) :
	    r->session_timeout_ms;
	r->member_id = kbuf_str(&rb);
	r->protocol_type = kbuf_str(&rb);
	r->protocols = blobs_decode(&rb, a, &r->nprotocols);
	return kbuf_done(&rb);
}

void
kjoin_encode_resp(struct wbuf *wb, int16_t version, const struct kjoin_resp *r)
{
	if (version >= 2)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i16(wb, r->error);
	wbuf_i32(wb, r->generation_id);
	kbuf_put_str(wb, r->protocol_name);
	kbuf_put_str(wb, r->leader);
	kbuf_put_str(wb, r->member_id);
	blobs_encode(wb, r->nmembers, r->members);
}

int
ksync_decode_req(struct ksync_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 1)
		return -1;
	rbuf_init(&rb, p, len);
	r->group_id = kbuf_str(&rb);
	r->generation_id = rbuf_i32(&rb);
	r->member_id = kbuf_str(&rb);
	r->assign = blobs_decode(&rb, a, &r->nassign);
	return kbuf_done(&rb);
}

void
ksync_encode_resp(struct wbuf *wb, int16_t version, const struct ksync_resp *r)
{
	if (version >= 1)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i16(wb, r->error);
	kbuf_put_bytes(wb, r->assignment);
}

int
kheartbeat_decode_req(struct kheartbeat_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;

	(void)a;
	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 1)
		return -1;
	rbuf_init(&rb, p, len);
	r->group_id = kbuf_str(&rb);
	r->generation_id = rbuf_i32(&rb);
	r->member_id = kbuf_str(&rb);
	return kbuf_done(&rb);
}

int
kleave_decode_req(struct kleave_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;

	(void)a;
	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 1)
		return -1;
	rbuf_init(&rb, p, len);
	r->group_id = kbuf_str(&rb);
	r->member_id = kbuf_str(&rb);
	return kbuf_done(&rb);
}

void
kgroup_error_encode_resp(struct wbuf *wb, int16_t version,
    const struct kgroup_error_resp *r)
{
	if (version >= 1)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i16(wb, r->error);
}

int
klist_groups_decode_req(int16_t version, const uint8_t *p, size_t len)
{
	(void)p;
	if (version < 0 || version > 1)
		return -1;
	return len == 0 ? 0 : -1;
}

void
klist_groups_encode_resp(struct wbuf *wb, int16_t version,
    const struct klist_groups_resp *r)
{
	int32_t i;

	if (version >= 1)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i16(wb, r->error);
	wbuf_i32(wb, r->ngroups);
	for (i = 0; i < r->ngroups; i++) {
		kbuf_put_str(wb, r->groups[i].group_id);
		kbuf_put_str(wb, r->groups[i].protocol_type);
	}
}

int
kdescribe_groups_decode_req(struct kdescribe_groups_req *r, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	struct rbuf rb;
	int32_t i;

	memset(r, 0, sizeof(*r));
	if (version < 0 || version > 1)
		return -1;
	rbuf_init(&rb, p, len);
	r->ngroups = kbuf_count(&rb, 2, 0);
	r->groups = kbuf_alloc(&rb, a, r->ngroups, sizeof(*r->groups));
	for (i = 0; i < r->ngroups && !rb.err; i++)
		r->groups[i] = kbuf_str(&rb);
	return kbuf_done(&rb);
}

void
kdescribe_groups_encode_resp(struct wbuf *wb, int16_t version,
    const struct kdescribe_groups_resp *r)
{
	const struct kdescribe_group *g;
	const struct kdescribe_member *m;
	int32_t i, j;

	if (version >= 1)
		wbuf_i32(wb, r->throttle_ms);
	wbuf_i32(wb, r->ngroups);
	for (i = 0; i < r->ngroups; i++) {
		g = &r->groups[i];
		wbuf_i16(wb, g->error);
		kbuf_put_str(wb, g->group_id);
		kbuf_put_str(wb, g->state);
		kbuf_put_str(wb, g->protocol_type);
		kbuf_put_str(wb, g->protocol);
		wbuf_i32(wb, g->nmembers);
		for (j = 0; j < g->nmembers; j++) {
			m = &g->members[j];
			kbuf_put_str(wb, m->member_id);
			kbuf_put_str(wb, m->client_id);
			kbuf_put_str(wb, m->client_host);
			kbuf_put_bytes(wb, m->metadata);
			kbuf_put_bytes(wb, m->assignment);
		}
	}
}
