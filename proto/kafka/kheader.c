/*
 * Kafka framing: the size prefix, request header v1, response header v0.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/bytes.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kheader.h"
#include "proto/wire.h"

int
kframe_size(const uint8_t *buf, size_t len, int32_t *size)
{
	int32_t n;

	if (len < KFRAME_SIZE_LEN)
		return 0;
	n = (int32_t)be32_get(buf);
	if (n < KHEADER_MIN_LEN)
		return -1;
	*size = n;
	return 1;
}

size_t
kheader_resp_begin(struct wbuf *wb, int32_t correlation_id)
{
	size_t pos = wb->len;

	wbuf_i32(wb, 0);
	wbuf_i32(wb, correlation_id);
	return pos;
}

void
kheader_resp_end(struct wbuf *wb, size_t pos)
{
	if (wb->err)
		return;
	wbuf_put_u32_at(wb, pos, (uint32_t)(wb->len - pos - KFRAME_SIZE_LEN));
}

void
kheader_encode(struct wbuf *wb, const struct kheader *h)
{
	wbuf_i16(wb, h->api_key);
	wbuf_i16(wb, h->api_version);
	wbuf_i32(wb, h->correlation_id);
	kbuf_put_str(wb, h->client_id);
}
