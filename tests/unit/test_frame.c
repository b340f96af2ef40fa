/*
 * Frame codec: frames written with frame_begin_*()/frame_end() come back
 * out of a frame_reader intact however the stream is split, and a bad
 * size field is refused as soon as its 4 bytes arrive, before the reader
 * allocates anything for the body.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/bytes.h"
#include "proto/frame.h"
#include "proto/wire.h"
#include "tests/harness.h"

#define NFRAMES		200
#define MAX_PAYLOAD	700

struct expect {
	uint16_t	api_key;
	uint32_t	request_id;
	uint8_t		payload[MAX_PAYLOAD];
	size_t		len;
};

static struct expect *exp_frames;
static struct wbuf stream;		/* NFRAMES frames back to back */

/* Build the stream of frames of the given kind with random payloads. */
static void
make_stream(enum frame_kind kind)
{
	struct expect *e;
	size_t start;
	int i;

	wbuf_reset(&stream);
	for (i = 0; i < NFRAMES; i++) {
		e = &exp_frames[i];
		e->api_key = kind == FRAME_REQUEST ?
		    (uint16_t)(1 + test_rand() % 0xfffe) : 0;
		e->request_id = (uint32_t)test_rand();
		/* Mostly small, some empty, a few large. */
		if (i % 17 == 0)
			e->len = 0;
		else if (i % 23 == 0)
			e->len = MAX_PAYLOAD;
		else
			e->len = (size_t)(test_rand() % 64);
		test_fill_random(e->payload, e->len);
		if (kind == FRAME_REQUEST)
			start = frame_begin_request(&stream, e->api_key,
			    e->request_id);
		else
			start = frame_begin_response(&stream, e->request_id);
		wbuf_raw(&stream, e->payload, e->len);
		frame_end(&stream, start);
	}
	CU_ASSERT_EQUAL_FATAL(stream.err, 0);
}

static int
setup(void)
{
	exp_frames = calloc(NFRAMES, sizeof(*exp_frames));
	wbuf_init(&stream);
	return exp_frames == NULL ? -1 : 0;
}

static int
teardown(void)
{
	free(exp_frames);
	wbuf_free(&stream);
	return 0;
}

/* Pull every complete frame out of r, checking it against exp_frames. */
static void
drain(struct frame_reader *r, enum frame_kind kind, int *got)
{
	struct frame f;
	struct expect *e;
	int rc;

	while ((rc = frame_reader_next(r, &f)) == 1) {
		CU_ASSERT_FATAL(*got < NFRAMES);
		e = &exp_frames[*got];
		CU_ASSERT_EQUAL(f.request_id, e->request_id);
		if (kind == FRAME_REQUEST)
			CU_ASSERT_EQUAL(f.api_key, e->api_key);
		CU_ASSERT_EQUAL_FATAL(f.payload_len, e->len);
		if (e->len > 0)
			CU_ASSERT_EQUAL(memcmp(f.payload, e->payload, e->len),
			    0);
		(*got)++;
	}
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static void
test_exact_bytes(void)
{
	static const uint8_t req[] = { 0, 0, 0, 9, 0, 3, 1, 2, 3, 4,
	    'a', 'b', 'c' };
	static const uint8_t resp[] = { 0, 0, 0, 6, 0xde, 0xad, 0xbe, 0xef,
	    0xff, 0xfd };
	static const uint8_t empty[] = { 0, 0, 0, 6, 0xff, 0xff, 0, 0, 0, 0 };
	struct wbuf wb;
	size_t s;

	wbuf_init(&wb);
	wbuf_raw(&wb, "xy", 2);		/* frames need not start at 0 */
	s = frame_begin_request(&wb, 3, 0x01020304);
	CU_ASSERT_EQUAL(s, 2);
	wbuf_raw(&wb, "abc", 3);
	frame_end(&wb, s);
	CU_ASSERT_EQUAL_FATAL(wb.len, 2 + sizeof(req));
	CU_ASSERT_EQUAL(memcmp(wb.buf + 2, req, sizeof(req)), 0);
	CU_ASSERT_EQUAL(memcmp(wb.buf, "xy", 2), 0);

	wbuf_reset(&wb);
	s = frame_begin_response(&wb, 0xdeadbeef);
	CU_ASSERT_EQUAL(s, 0);
	wbuf_i16(&wb, -3);
	frame_end(&wb, s);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(resp));
	CU_ASSERT_EQUAL(memcmp(wb.buf, resp, sizeof(resp)), 0);

	wbuf_reset(&wb);
	s = frame_begin_request(&wb, 0xffff, 0);
	frame_end(&wb, s);
	CU_ASSERT_EQUAL_FATAL(wb.len, sizeof(empty));
	CU_ASSERT_EQUAL(memcmp(wb.buf, empty, sizeof(empty)), 0);

	/* A start past the end is refused, not patched. */
	frame_end(&wb, wb.len - 2);
	CU_ASSERT_NOT_EQUAL(wb.err, 0);
	CU_ASSERT_EQUAL(memcmp(wb.buf, empty, sizeof(empty)), 0);
	wbuf_free(&wb);
}

static void
one_byte_at_a_time(enum frame_kind kind)
{
	struct frame_reader r;
	size_t i;
	int got = 0;

	make_stream(kind);
	frame_reader_init(&r, kind, 1024);
	for (i = 0; i < stream.len; i++) {
		CU_ASSERT_EQUAL_FATAL(frame_reader_feed(&r, stream.buf + i, 1),
		    0);
		drain(&r, kind, &got);
	}
	CU_ASSERT_EQUAL(got, NFRAMES);
	CU_ASSERT_EQUAL(frame_reader_pending(&r), 0);
	/* Small frames never need more than the minimum buffer. */
	CU_ASSERT(r.cap <= 4096);
	frame_reader_free(&r);
}

static void
test_requests_byte_by_byte(void)
{
	one_byte_at_a_time(FRAME_REQUEST);
}

static void
test_responses_byte_by_byte(void)
{
	one_byte_at_a_time(FRAME_RESPONSE);
}

/* The read(2) path: space/commit with random chunk sizes. */
static void
random_splits(enum frame_kind kind)
{
	struct frame_reader r;
	uint8_t *p;
	size_t off = 0, room, n;
	int got = 0, round;

	make_stream(kind);
	for (round = 0; round < 3; round++) {
		frame_reader_init(&r, kind, MAX_PAYLOAD + 10);
		off = 0;
		got = 0;
		while (off < stream.len) {
			p = frame_reader_space(&r, &room);
			CU_ASSERT_PTR_NOT_NULL_FATAL(p);
			CU_ASSERT_FATAL(room > 0);
			/* Round 0: tiny reads; 1: medium; 2: whatever fits. */
			n = round == 0 ? 1 + test_rand() % 7 :
			    round == 1 ? 1 + test_rand() % 300 : room;
			if (n > room)
				n = room;
			if (n > stream.len - off)
				n = stream.len - off;
			memcpy(p, stream.buf + off, n);
			frame_reader_commit(&r, n);
			off += n;
			drain(&r, kind, &got);
			CU_ASSERT_FATAL(r.cap <= 4096);
		}
		CU_ASSERT_EQUAL(got, NFRAMES);
		CU_ASSERT_EQUAL(frame_reader_pending(&r), 0);
		frame_reader_free(&r);
	}
}

static void
test_requests_random_splits(void)
{
	random_splits(FRAME_REQUEST);
}

static void
test_responses_random_splits(void)
{
	random_splits(FRAME_RESPONSE);
}

/*
 * All frames in one feed; every frame's payload stays valid while the
 * later ones are taken out (nothing moves until the next feed).
 */
static void
test_back_to_back(void)
{
	struct frame_reader r;
	struct frame f[NFRAMES];
	int i;

	make_stream(FRAME_REQUEST);
	frame_reader_init(&r, FRAME_REQUEST, 1024);
	/* Half a frame first, then the rest in one go. */
	CU_ASSERT_EQUAL_FATAL(frame_reader_feed(&r, stream.buf, 7), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f[0]), 0);
	CU_ASSERT_EQUAL(frame_reader_pending(&r), 7);
	CU_ASSERT_EQUAL_FATAL(frame_reader_feed(&r, stream.buf + 7,
	    stream.len - 7), 0);
	for (i = 0; i < NFRAMES; i++)
		CU_ASSERT_EQUAL_FATAL(frame_reader_next(&r, &f[i]), 1);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f[0]), 0);
	CU_ASSERT_EQUAL(frame_reader_pending(&r), 0);
	for (i = 0; i < NFRAMES; i++) {
		CU_ASSERT_EQUAL(f[i].api_key, exp_frames[i].api_key);
		CU_ASSERT_EQUAL(f[i].request_id, exp_frames[i].request_id);
		CU_ASSERT_EQUAL_FATAL(f[i].payload_len, exp_frames[i].len);
		if (f[i].payload_len > 0)
			CU_ASSERT_EQUAL(memcmp(f[i].payload,
			    exp_frames[i].payload, f[i].payload_len), 0);
	}
	/* The reader is reusable after draining. */
	CU_ASSERT_EQUAL_FATAL(frame_reader_feed(&r, stream.buf, stream.len), 0);
	for (i = 0; i < NFRAMES; i++)
		CU_ASSERT_EQUAL_FATAL(frame_reader_next(&r, &f[i]), 1);
	CU_ASSERT_EQUAL(f[NFRAMES - 1].request_id,
	    exp_frames[NFRAMES - 1].request_id);
	frame_reader_free(&r);
}

/*
 * A size one above max: 3 bytes in, the reader waits; the 4th byte makes
 * it refuse, and the buffer never grew toward the claimed size.
 */
static void
oversize(enum frame_kind kind, uint32_t max, uint32_t size)
{
	struct frame_reader r;
	struct frame f;
	uint8_t hdr[16], *p;
	size_t room;
	int i;

	memset(hdr, 0x41, sizeof(hdr));
	be32_put(hdr, size);

	/* feed() path */
	frame_reader_init(&r, kind, max);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(frame_reader_feed(&r, hdr + i, 1), 0);
		CU_ASSERT_EQUAL(frame_reader_next(&r, &f), 0);
	}
	CU_ASSERT_EQUAL(frame_reader_feed(&r, hdr + 3, 1), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), -1);
	CU_ASSERT(r.cap <= 4096);
	/* Still refused, still small, after more bytes arrive. */
	CU_ASSERT_EQUAL(frame_reader_feed(&r, hdr + 4, 12), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), -1);
	CU_ASSERT(r.cap <= 4096);
	frame_reader_free(&r);

	/* read(2) path: space() must not grow for a refused size. */
	frame_reader_init(&r, kind, max);
	for (i = 0; i < 4; i++) {
		p = frame_reader_space(&r, &room);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_FATAL(room >= 1);
		*p = hdr[i];
		frame_reader_commit(&r, 1);
		CU_ASSERT_EQUAL(frame_reader_next(&r, &f), i < 3 ? 0 : -1);
	}
	p = frame_reader_space(&r, &room);
	CU_ASSERT(r.cap <= 4096);
	CU_ASSERT(room <= 4096);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), -1);
	frame_reader_free(&r);
}

static void
test_oversize_refused(void)
{
	oversize(FRAME_REQUEST, 1024, 1025);
	oversize(FRAME_RESPONSE, 1024, 1025);
	oversize(FRAME_REQUEST, 1 << 20, 0xffffffffU);
	oversize(FRAME_REQUEST, 100u << 20, (100u << 20) + 1);
	oversize(FRAME_RESPONSE, 0x7fffffff, 0x80000000U);
}

static void
test_undersize_refused(void)
{
	struct frame_reader r;
	struct frame f;
	uint8_t b[10];

	/* A request needs 6 bytes after size: api_key + request_id. */
	be32_put(b, 5);
	frame_reader_init(&r, FRAME_REQUEST, 1024);
	CU_ASSERT_EQUAL(frame_reader_feed(&r, b, 4), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), -1);
	frame_reader_free(&r);
	be32_put(b, 0);
	frame_reader_init(&r, FRAME_REQUEST, 1024);
	CU_ASSERT_EQUAL(frame_reader_feed(&r, b, 4), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), -1);
	frame_reader_free(&r);

	/* Exactly 6: an empty request payload, arriving in two pieces. */
	be32_put(b, 6);
	be16_put(b + 4, 9);
	be32_put(b + 6, 77);
	frame_reader_init(&r, FRAME_REQUEST, 1024);
	CU_ASSERT_EQUAL(frame_reader_feed(&r, b, 8), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), 0);
	CU_ASSERT_EQUAL(frame_reader_feed(&r, b + 8, 2), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), 1);
	CU_ASSERT_EQUAL(f.api_key, 9);
	CU_ASSERT_EQUAL(f.request_id, 77);
	CU_ASSERT_EQUAL(f.payload_len, 0);
	CU_ASSERT_EQUAL(frame_reader_pending(&r), 0);
	frame_reader_free(&r);

	/* A response needs 4: request_id. */
	be32_put(b, 3);
	frame_reader_init(&r, FRAME_RESPONSE, 1024);
	CU_ASSERT_EQUAL(frame_reader_feed(&r, b, 4), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), -1);
	frame_reader_free(&r);
	be32_put(b, 4);
	be32_put(b + 4, 5);
	frame_reader_init(&r, FRAME_RESPONSE, 1024);
	CU_ASSERT_EQUAL(frame_reader_feed(&r, b, 8), 0);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), 1);
	CU_ASSERT_EQUAL(f.request_id, 5);
	CU_ASSERT_EQUAL(f.payload_len, 0);
	frame_reader_free(&r);
}

/*
 * A frame of exactly max_size is accepted and the buffer grows to fit it
 * (no more), as its bytes arrive: never more than twice what is in plus
 * FRAME_READ_MIN; once it is consumed, the reader gives the memory back.
 */
static void
test_large_frame(void)
{
	enum { MAX = 256 * 1024 };
	struct frame_reader r;
	struct frame f;
	struct wbuf wb;
	uint8_t *payload, *p;
	size_t s, off = 0, room, n, maxcap = 0;
	int got = 0;

	payload = malloc(MAX - 6);
	CU_ASSERT_PTR_NOT_NULL_FATAL(payload);
	test_fill_random(payload, MAX - 6);
	wbuf_init(&wb);
	s = frame_begin_request(&wb, 4, 1234);
	wbuf_raw(&wb, payload, MAX - 6);
	frame_end(&wb, s);
	s = frame_begin_request(&wb, 5, 1235);	/* a small one behind it */
	frame_end(&wb, s);
	CU_ASSERT_EQUAL_FATAL(wb.len, 4 + MAX + 10);

	frame_reader_init(&r, FRAME_REQUEST, MAX);
	while (off < wb.len) {
		p = frame_reader_space(&r, &room);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_FATAL(room > 0);
		CU_ASSERT_FATAL(r.cap <= 4 + MAX);
		CU_ASSERT_FATAL(r.cap <= 2 * (r.len - r.start) + FRAME_READ_MIN);
		if (r.cap > maxcap)
			maxcap = r.cap;
		n = 1 + test_rand() % 10000;
		if (n > room)
			n = room;
		if (n > wb.len - off)
			n = wb.len - off;
		memcpy(p, wb.buf + off, n);
		frame_reader_commit(&r, n);
		off += n;
		while (frame_reader_next(&r, &f) == 1) {
			if (got == 0) {
				CU_ASSERT_EQUAL(f.api_key, 4);
				CU_ASSERT_EQUAL(f.request_id, 1234);
				CU_ASSERT_EQUAL_FATAL(f.payload_len, MAX - 6);
				CU_ASSERT_EQUAL(memcmp(f.payload, payload,
				    MAX - 6), 0);
			} else {
				CU_ASSERT_EQUAL(f.api_key, 5);
				CU_ASSERT_EQUAL(f.request_id, 1235);
				CU_ASSERT_EQUAL(f.payload_len, 0);
			}
			got++;
		}
	}
	CU_ASSERT_EQUAL(got, 2);
	/* Grown to exactly the frame, never rounded past max_size. */
	CU_ASSERT_EQUAL(maxcap, 4 + (size_t)MAX);
	/* Idle again: the large buffer is released on the next read. */
	p = frame_reader_space(&r, &room);
	CU_ASSERT_PTR_NOT_NULL(p);
	CU_ASSERT(r.cap <= 4096);
	frame_reader_free(&r);
	wbuf_free(&wb);
	free(payload);
}

/*
 * A peer that declares a 16 MiB frame and sends 100 bytes of it holds
 * FRAME_READ_MIN of the reader, however often it is offered room.
 */
static void
test_declared_not_reserved(void)
{
	struct frame_reader r;
	struct frame f;
	uint8_t *p, head[100];
	size_t room;
	int i;

	memset(head, 0x5a, sizeof(head));
	be32_put(head, 16u << 20);
	be16_put(head + 4, 1);
	be32_put(head + 6, 77);
	frame_reader_init(&r, FRAME_REQUEST, 17u << 20);
	p = frame_reader_space(&r, &room);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_FATAL(room >= sizeof(head));
	memcpy(p, head, sizeof(head));
	frame_reader_commit(&r, sizeof(head));
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), 0);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(frame_reader_want(&r), FRAME_READ_MIN);
		p = frame_reader_space(&r, &room);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL(r.cap, FRAME_READ_MIN);
		CU_ASSERT_EQUAL(room, FRAME_READ_MIN - sizeof(head));
	}
	/* Filled to within FRAME_READ_MIN / 2: it doubles, no more. */
	memset(p, 0, room - 100);
	frame_reader_commit(&r, room - 100);
	CU_ASSERT_EQUAL(frame_reader_want(&r), 2 * FRAME_READ_MIN);
	p = frame_reader_space(&r, &room);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(r.cap, 2 * FRAME_READ_MIN);
	CU_ASSERT_EQUAL(room, FRAME_READ_MIN + 100);
	CU_ASSERT_EQUAL(frame_reader_pending(&r), FRAME_READ_MIN - 100);
	CU_ASSERT_EQUAL(frame_reader_next(&r, &f), 0);
	frame_reader_free(&r);
}

/*
 * A frame of up to 256 KiB (a producer's 64 KiB request) gets a buffer of
 * its whole size as soon as its size is in: one read, no regrowth; one of
 * 256 KiB + 1 grows as its bytes arrive.
 */
static void
test_ordinary_frame_whole(void)
{
	static const uint32_t sizes[2] = { 256u << 10, (256u << 10) + 1 };
	struct frame_reader r;
	uint8_t *p, head[100];
	size_t room;
	int i;

	for (i = 0; i < 2; i++) {
		memset(head, 0x5a, sizeof(head));
		be32_put(head, sizes[i] - FRAME_SIZE_LEN);
		be16_put(head + 4, 1);
		be32_put(head + 6, 77);
		frame_reader_init(&r, FRAME_REQUEST, 1u << 20);
		p = frame_reader_space(&r, &room);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		memcpy(p, head, sizeof(head));
		frame_reader_commit(&r, sizeof(head));
		CU_ASSERT_EQUAL(frame_reader_want(&r), i == 0 ? sizes[0] :
		    FRAME_READ_MIN);
		p = frame_reader_space(&r, &room);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL(room, (i == 0 ? sizes[0] : FRAME_READ_MIN) -
		    sizeof(head));
		frame_reader_free(&r);
	}
}

TEST_SUITE("frame", setup, teardown,
    { "frame_begin/frame_end exact bytes", test_exact_bytes },
    { "requests one byte at a time", test_requests_byte_by_byte },
    { "responses one byte at a time", test_responses_byte_by_byte },
    { "requests in random splits", test_requests_random_splits },
    { "responses in random splits", test_responses_random_splits },
    { "many frames in one feed", test_back_to_back },
    { "oversize refused after 4 bytes", test_oversize_refused },
    { "a declared size is not reserved", test_declared_not_reserved },
    { "a frame up to 256 KiB is read whole", test_ordinary_frame_whole },
    { "undersize refused", test_undersize_refused },
    { "large frame up to max", test_large_frame });
