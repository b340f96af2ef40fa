/*
 * Kafka framing and headers.  A request is [i32 size][header v1][body], a
 * response [i32 size][header v0][body]:
 *
 *   request header v1:  api_key i16, api_version i16, correlation_id i32,
 *                       client_id nullable string
 *   response header v0: correlation_id i32
 *
 * The listener reads and writes headers with the declarative codec
 * (kdesc.h: kmsg_decode_req_hdr, kmsg_encode_resp_hdr), which speaks
 * header v2 and response header v1 of the flexible versions too; what
 * stays here is the frame size, and the v1 header the tests and tools
 * write.
 */
#ifndef FLUME_PROTO_KAFKA_KHEADER_H
#define FLUME_PROTO_KAFKA_KHEADER_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

#define KFRAME_SIZE_LEN		4
#define KHEADER_MIN_LEN		10	/* key, version, correlation, null id */

struct kheader {
	int16_t		 api_key;
	int16_t		 api_version;
	int32_t		 correlation_id;
	struct kstr	 client_id;
	size_t		 body_off;	/* where the body starts in the frame */
};

/*
 * Parse the size prefix of a frame from the first 4 bytes of buf:
 * 1 and *size when a whole prefix is there, 0 when more bytes are needed,
 * -1 when the size is negative or below a header (close the connection).
 * The caller compares *size with its own limit before allocating.
 */
int		 kframe_size(const uint8_t *buf, size_t len, int32_t *size);

/*
 * Start a response: writes the size placeholder and the correlation id
 * and returns the position to give kheader_resp_end, which patches the
 * size once the body is written.
 */
size_t		 kheader_resp_begin(struct wbuf *wb, int32_t correlation_id);
void		 kheader_resp_end(struct wbuf *wb, size_t pos);

/* Encode a request header (tests, tools). */
void		 kheader_encode(struct wbuf *wb, const struct kheader *h);

#endif
