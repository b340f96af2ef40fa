/*
 * libFuzzer target: the frame reader.  The input is fed to a request
 * reader and a response reader in pieces whose sizes come from the input
 * itself (through frame_reader_space/commit, as the worker does, and
 * frame_reader_feed, as the client does).  Every frame handed out must
 * be exactly the next bytes of the stream, with a size in bounds; a
 * refused size must stop the stream for good.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/bytes.h"
#include "proto/frame.h"

#define FUZZ_MAX_FRAME	4096

static void
check_stream(enum frame_kind kind, const uint8_t *data, size_t size, int feed)
{
	struct frame_reader r;
	struct frame f;
	size_t off = 0, seen = 0, hdr, room, chunk;
	uint8_t *sp;
	uint32_t sz;
	int st, bad = 0, rounds = 0;

	hdr = kind == FRAME_REQUEST ? FRAME_REQ_HEADER : FRAME_RESP_HEADER;
	frame_reader_init(&r, kind, FUZZ_MAX_FRAME);
	while (off < size && !bad && rounds++ < 100000) {
		/* Chunk sizes from the data: 1..64 bytes, so splits vary. */
		chunk = 1 + data[off] % 64;
		if (chunk > size - off)
			chunk = size - off;
		if (feed) {
			if (frame_reader_feed(&r, data + off, chunk) == -1)
				break;
		} else {
			if ((sp = frame_reader_space(&r, &room)) == NULL)
				break;
			if (chunk > room)
				chunk = room;
			memcpy(sp, data + off, chunk);
			frame_reader_commit(&r, chunk);
		}
		off += chunk;
		while ((st = frame_reader_next(&r, &f)) == 1) {
			/* The frame is exactly the stream's next bytes. */
			sz = be32_get(data + seen);
			if (sz > FUZZ_MAX_FRAME || sz + 4 < hdr ||
			    f.payload_len != sz + 4 - hdr ||
			    memcmp(f.payload, data + seen + hdr, f.payload_len) != 0)
				abort();
			if (f.request_id != be32_get(data + seen +
			    (kind == FRAME_REQUEST ? 6 : 4)))
				abort();
			seen += 4 + (size_t)sz;
		}
		if (st == -1) {
			sz = be32_get(data + seen);
			if (sz <= FUZZ_MAX_FRAME && sz + 4 >= hdr)
				abort();	/* refused a good size */
			bad = 1;
		}
	}
	if (!bad && frame_reader_pending(&r) != off - seen)
		abort();
	frame_reader_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_stream(FRAME_REQUEST, data, size, 0);
	check_stream(FRAME_RESPONSE, data, size, 1);
	return 0;
}
