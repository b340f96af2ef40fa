/*
 * Kafka's legacy message sets (magic 0 and 1), converted to and from the
 * RecordBatch v2 that Flume stores (proto/batch.h), for Produce v0-2 and
 * Fetch v0-3.  Not wired into the worker yet.
 *
 * A message set is messages back to back, each (big-endian):
 *   0  offset i64            a producer's is ignored; the log's on fetch
 *   8  messageSize i32       bytes after this field
 *  12  crc u32               CRC-32 (IEEE, zlib's) over magic to the end
 *  16  magic i8              0 or 1
 *  17  attributes i8         bits 0-2 compression (1 gzip, 2 snappy, 3 lz4),
 *                            bit 3 (magic 1) LogAppendTime
 *  18  timestamp i64         magic 1 only
 *      keyLength i32 (-1 = null), key, valueLength i32 (-1 = null), value
 *
 * A compressed message (a "wrapper") has a null key and, as its value, a
 * whole message set compressed: inner messages of the wrapper's magic,
 * never compressed themselves (nested compression is refused, so no
 * recursion).  Inner offsets are absolute in magic 0 and relative
 * (0..n-1) in magic 1, where the wrapper's offset is the last inner
 * message's absolute offset.  Snappy is read raw (librdkafka, sarama)
 * or xerial-framed (the Java client, kafka-python); an LZ4 frame is read
 * with either the right header checksum or the one Kafka 0.8-0.9 wrote
 * (over the frame's magic number too, KIP-57).
 *
 * Bounded: all wrappers of one set together inflate to at most the
 * inflate limit (a Fetch: each stored batch alone, and a batch wholly
 * below the fetch offset is not inflated), a set holds at most
 * max_records messages, a Fetch answer is at most max_bytes.  Pure: no logging, no globals.
 */
#ifndef FLUME_PROTO_KAFKA_KMSGSET_H
#define FLUME_PROTO_KAFKA_KMSGSET_H

#include <stddef.h>
#include <stdint.h>

#define KMSGSET_LOG_OVERHEAD	12	/* offset + messageSize */
#define KMSGSET_V0_OVERHEAD	14	/* crc, magic, attributes, two lengths */
#define KMSGSET_V1_OVERHEAD	22	/* and a timestamp */

#define KMSGSET_ATTR_CODEC_MASK	0x07
#define KMSGSET_ATTR_LOG_APPEND	0x08	/* magic 1: LogAppendTime */

/* Errors: negative, each one way a message set can be wrong. */
enum kmsgset_error {
	KMSGSET_OK = 0,
	KMSGSET_ESHORT = -1,	/* truncated: a header or messageSize runs past the set */
	KMSGSET_ESIZE = -2,	/* messageSize below the minimum, or key/value do not fill it */
	KMSGSET_EMAGIC = -3,	/* magic not 0 or 1, or an inner magic unlike its wrapper's */
	KMSGSET_ECRC = -4,	/* CRC-32 mismatch */
	KMSGSET_ECODEC = -5,	/* compression 4-7: not a legacy codec */
	KMSGSET_ENESTED = -6,	/* a compressed message inside a compressed one */
	KMSGSET_EINFLATE = -7,	/* a wrapper's value corrupt, null or inflating to nothing */
	KMSGSET_ELIMIT = -8,	/* past the inflate limit or max_records */
	KMSGSET_EEMPTY = -9,	/* no message at all */
	KMSGSET_ETSTYPE = -10,	/* LogAppendTime and CreateTime mixed in one set */
	KMSGSET_EBATCH = -11,	/* a stored RecordBatch failed validation */
	KMSGSET_EARG = -12,	/* bad argument (magic to write, limits) */
	KMSGSET_ENOMEM = -13,
};

struct kmsgset_limits {
	size_t	 inflate_limit;	/* bytes all wrappers of a set may inflate
				   to together, and each compressed batch of
				   a fetch alone; at most COMPRESS_LIMIT_MAX */
	int32_t	 max_records;	/* messages in one set, inner ones counted */
};

/* One message as read: pointers into the set or the inflated wrapper
   (see kmsgset_walk for how long they live). */
struct kmsgset_msg {
	int64_t		 offset;	/* absolute (see the top of this file) */
	int64_t		 timestamp;	/* -1 for magic 0; a LogAppendTime
					   wrapper's own for its inner messages */
	int8_t		 magic;
	int8_t		 log_append;	/* LogAppendTime (magic 1 only) */
	const uint8_t	*key;
	int32_t		 key_len;	/* -1 = null */
	const uint8_t	*value;
	int32_t		 value_len;	/* -1 = null */
};

/* Called per message, in order; a nonzero return stops the walk with it. */
typedef int (*kmsgset_cb)(const struct kmsgset_msg *m, void *arg);

/*
 * The converter: its limits and the buffers it reuses from call to call
 * (inflated wrappers, the batch builder, the Fetch output).  Opaque; one
 * per worker, not shared between threads.
 */
struct kmsgset;

/* NULL on ENOMEM or limits out of range (errno EINVAL). */
struct kmsgset	*kmsgset_new(const struct kmsgset_limits *lim);
void		 kmsgset_free(struct kmsgset *k);

/*
 * Read the set set[0..len) and call cb for each message, inner messages
 * in place of their wrapper.  Each message is checked (size, magic, CRC)
 * before cb sees it, a wrapper's whole inner set before cb sees any of
 * it; an error later in the set is returned after cb has seen the
 * messages before it.  A trailing partial message is KMSGSET_ESHORT (a
 * producer's set is whole).  KMSGSET_OK, a negative kmsgset_error, or
 * cb's nonzero return.  A message's key and value point into set (valid
 * as long as it is) or, inside a wrapper, into k's inflate buffer: valid
 * only until cb returns.
 */
int	kmsgset_walk(struct kmsgset *k, const uint8_t *set, size_t len,
	    kmsgset_cb cb, void *arg);

/*
 * Produce v0-2: the partition's message set set[0..len) as ONE
 * uncompressed RecordBatch v2 (kmsgset_to_batches_codec: compressed) (magic 2) with the same keys, values (null
 * stays null) and timestamps, offset deltas 0..n-1, base offset 0,
 * producer id -1.  A magic-0 message's timestamp is now_ms (the broker's
 * time); a magic-1 message keeps its own.  A set of LogAppendTime
 * messages becomes a LogAppendTime batch whose maxTimestamp is their
 * latest.  *out points into k until the next call on it.  KMSGSET_OK or
 * a negative kmsgset_error; the whole set is checked first.
 */
int	kmsgset_to_batches(struct kmsgset *k, const uint8_t *set, size_t len,
	    int64_t now_ms, const uint8_t **out, size_t *outlen);

/*
 * The same, the batch's records compressed with codec (proto/compress.h:
 * none, gzip, snappy or lz4, the legacy codecs; else KMSGSET_EARG), as
 * Kafka stores a converted set with the producer's codec.
 */
int	kmsgset_to_batches_codec(struct kmsgset *k, const uint8_t *set,
	    size_t len, int64_t now_ms, int codec, const uint8_t **out,
	    size_t *outlen);
/*
 * The codec of a producer's set: its first message's (a wrapper's codec,
 * or none), unchecked (kmsgset_walk checks it); 0 for a set too short.
 */
int	kmsgset_codec(const uint8_t *set, size_t len);

/* What kmsgset_from_batches wrote. */
struct kmsgset_fetch {
	size_t		 len;		/* bytes at out */
	int32_t		 count;		/* messages written */
	int64_t		 next_offset;	/* after the last one written; -1 if none */
	int		 truncated;	/* stopped at max_bytes with records left */
};

/*
 * Fetch v0-3: the stored RecordBatch v2 batches batches[0..len) (as the
 * log holds them; a trailing partial batch ends the input) as messages of
 * magic (0 for Fetch v0-1, 1 for v2-3), offsets below start_offset
 * skipped.  Each message keeps its record's absolute offset, key and
 * value; magic 1 keeps its timestamp and the batch's LogAppendTime.
 * Control batches are skipped; headers are dropped (magic 0 and 1 have
 * none).  The output is uncompressed: every client of these versions
 * reads it, and it is the simplest valid answer (Kafka recompresses;
 * Flume spends no CPU on it).  At most max_bytes are written, always
 * whole messages; with min_one (Fetch v3, KIP-74) the first message is
 * written even if it alone is larger.  *out (never NULL) points into k
 * until the next call on it.  KMSGSET_OK (possibly with nothing written) or a negative
 * kmsgset_error (KMSGSET_EBATCH for a batch that fails its CRC-32C or
 * record checks or whose offsets go back, KMSGSET_ELIMIT for one
 * inflating past the limit).
 */
int	kmsgset_from_batches(struct kmsgset *k, const uint8_t *batches,
	    size_t len, int magic, int64_t start_offset, size_t max_bytes,
	    int min_one, const uint8_t **out, struct kmsgset_fetch *res);

const char *kmsgset_strerror(int err);

#endif
