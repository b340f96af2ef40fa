/*
 * The native frame: [size u32][...size bytes...], big-endian.
 *   request:  [size u32][api_key u16][request_id u32][payload]
 *   response: [size u32][request_id u32][payload]   payload = [error i16]...
 * size counts the bytes after the size field.
 *
 * struct frame_reader accumulates bytes from a socket in any split (one
 * byte at a time works) and yields whole frames.  A size larger than the
 * configured maximum, or too small to hold the header, is refused as soon
 * as the 4 size bytes are in, before anything is allocated for the body.
 * A frame of up to 256 KiB is read into a buffer of its size at once; a
 * larger frame's buffer grows as its bytes arrive (doubling), never to
 * what the size field merely claims, so a peer that declares 16 MiB and
 * sends a few bytes costs FRAME_READ_MIN.
 */
#ifndef FLUME_PROTO_FRAME_H
#define FLUME_PROTO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_SIZE_LEN		4
#define FRAME_REQ_HEADER	10	/* size + api_key + request_id */
#define FRAME_RESP_HEADER	8	/* size + request_id */
/* Smallest buffer: enough to read many small frames with one read(2). */
#define FRAME_READ_MIN		4096

/*
 * FRAME_KAFKA: a Kafka request, [size i32][api_key i16][api_version i16]
 * [correlation_id i32][client_id nstr][body]; api_key and request_id
 * (the correlation id) are filled in, the payload is everything after
 * the size (the header included, for proto/kafka/kheader.h).
 */
enum frame_kind { FRAME_REQUEST, FRAME_RESPONSE, FRAME_KAFKA };
#define FRAME_KAFKA_HEADER	14	/* size + the smallest header v1 */

struct frame {
	uint16_t	 api_key;	/* requests only */
	uint32_t	 request_id;
	const uint8_t	*payload;	/* valid until the next frame_reader call */
	size_t		 payload_len;
};

struct frame_reader {
	enum frame_kind	 kind;
	uint32_t	 max_size;	/* largest size field accepted */
	uint8_t		*buf;
	size_t		 len;		/* bytes held */
	size_t		 cap;
	size_t		 start;		/* first unconsumed byte */
};

void	frame_reader_init(struct frame_reader *r, enum frame_kind kind, uint32_t max_size);
void	frame_reader_free(struct frame_reader *r);
/*
 * The buffer size the next frame_reader_space() call sets: the present
 * one, FRAME_READ_MIN for none, the frame's whole size when the frame
 * being read does not fit and is at most 256 KiB, or, for a larger one,
 * when less than FRAME_READ_MIN / 2 is free, twice the present one up to
 * the frame's whole size (never beyond max_size).
 */
size_t	frame_reader_want(const struct frame_reader *r);
/*
 * Where to put up to *room more bytes (read(2) straight into it), the
 * buffer grown or dropped as frame_reader_want() says.  NULL on
 * allocation failure.
 */
uint8_t	*frame_reader_space(struct frame_reader *r, size_t *room);
/*
 * With nothing pending, give back a buffer a past large frame needed
 * (frame_reader_space() does as much before its read); frames handed out
 * are gone with it.
 */
void	frame_reader_trim(struct frame_reader *r);
/* n bytes were written at frame_reader_space(). */
void	frame_reader_commit(struct frame_reader *r, size_t n);
/* Copy bytes in (for tests and clients that already hold bytes). */
int	frame_reader_feed(struct frame_reader *r, const void *p, size_t n);
/*
 * 1: a whole frame is in *f (pointers valid until the next call that
 * changes the reader); 0: need more bytes; -1: the size field is bad
 * (too large or too small): the stream is unusable, close it.
 */
int	frame_reader_next(struct frame_reader *r, struct frame *f);
/* Bytes held that belong to no complete frame yet. */
size_t	frame_reader_pending(const struct frame_reader *r);

/* Start a frame in wb; finish it with frame_end() to patch the size. */
struct wbuf;
size_t	frame_begin_request(struct wbuf *wb, uint16_t api_key, uint32_t request_id);
size_t	frame_begin_response(struct wbuf *wb, uint32_t request_id);
void	frame_end(struct wbuf *wb, size_t start);

#endif
