/*
 * Kafka RecordBatch v2 (magic 2): the unit of storage, unchanged from the
 * wire to the ring to the segment file.
 *
 * Header, 61 bytes, big-endian:
 *   0  baseOffset i64          the only field the broker rewrites
 *   8  batchLength i32         bytes after this field (total = 12 + length)
 *  12  partitionLeaderEpoch i32
 *  16  magic i8 (= 2)
 *  17  crc u32                 CRC-32C over byte 21 to the end of the batch
 *  21  attributes i16          bits 0-2 compression (proto/compress.h)
 *  23  lastOffsetDelta i32
 *  27  firstTimestamp i64
 *  35  maxTimestamp i64
 *  43  producerId i64
 *  51  producerEpoch i16
 *  53  baseSequence i32
 *  57  recordsCount i32
 *  61  records...
 * Record: length varint, attributes i8, timestampDelta varlong,
 * offsetDelta varint, keyLength varint (-1 = null), key, valueLength
 * varint (-1 = null), value, headerCount varint, headers (keyLength varint,
 * key, valueLength varint, value).
 *
 * A compressed batch (attributes bits 0-2 = 1..4) holds the same records
 * as one compressed stream after the header; the header (count, deltas,
 * CRC over the compressed bytes) is as in an uncompressed one.  The
 * broker inflates it only to validate, and stores the original bytes.
 */
#ifndef FLUME_PROTO_BATCH_H
#define FLUME_PROTO_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/compress.h"
#include "proto/wire.h"

#define BATCH_HEADER_SIZE	61
#define BATCH_LOG_OVERHEAD	12	/* baseOffset + batchLength */
#define BATCH_MAGIC		2

/* Attribute bits. */
#define BATCH_ATTR_LOG_APPEND_TIME	0x08	/* timestamps are the broker's */

/* Field offsets inside the header. */
#define BATCH_OFF_BASE_OFFSET	0
#define BATCH_OFF_LENGTH	8
#define BATCH_OFF_EPOCH		12
#define BATCH_OFF_MAGIC		16
#define BATCH_OFF_CRC		17
#define BATCH_OFF_ATTRIBUTES	21
#define BATCH_OFF_LAST_DELTA	23
#define BATCH_OFF_FIRST_TS	27
#define BATCH_OFF_MAX_TS	35
#define BATCH_OFF_PRODUCER_ID	43
#define BATCH_OFF_PRODUCER_EPOCH 51
#define BATCH_OFF_BASE_SEQUENCE	53
#define BATCH_OFF_COUNT		57
#define BATCH_CRC_START		21

#define BATCH_COMPRESSION_MASK	0x07

/* Validation errors: negative, each a distinct way a batch can be wrong. */
enum batch_error {
	BATCH_OK = 0,
	BATCH_ESHORT = -1,	/* fewer bytes than a header or than batchLength says */
	BATCH_ELENGTH = -2,	/* batchLength too small, or disagrees with the buffer */
	BATCH_EMAGIC = -3,	/* magic is not 2 */
	BATCH_ECRC = -4,	/* CRC-32C mismatch */
	BATCH_ECOMPRESSION = -5, /* unknown codec, or compressed and no buffer */
	BATCH_ECOUNT = -6,	/* recordsCount disagrees with the records */
	BATCH_EDELTA = -7,	/* lastOffsetDelta or an offsetDelta is wrong */
	BATCH_ERECORD = -8,	/* a record's varints or lengths overrun it */
	BATCH_ETRAILING = -9,	/* bytes after the last record */
	BATCH_EINFLATE = -10,	/* compressed records corrupt or truncated */
	BATCH_ETOOBIG = -11,	/* records inflate past the buffer's limit */
	BATCH_ENOMEM = -12,	/* no memory to inflate */
};

struct batch_header {
	int64_t		base_offset;
	int32_t		length;			/* batchLength */
	int32_t		leader_epoch;
	int8_t		magic;
	uint32_t	crc;
	int16_t		attributes;
	int32_t		last_offset_delta;
	int64_t		first_timestamp;
	int64_t		max_timestamp;
	int64_t		producer_id;
	int16_t		producer_epoch;
	int32_t		base_sequence;
	int32_t		records_count;
};

/* Total bytes of the batch that starts at buf (12 + batchLength). */
static inline size_t
batch_total_size(const struct batch_header *h)
{
	return (size_t)BATCH_LOG_OVERHEAD + (size_t)(uint32_t)h->length;
}

/*
 * Decode the header fields of the batch at buf[0..len) without checking the
 * CRC or the records.  Fails (BATCH_ESHORT) if len < BATCH_HEADER_SIZE, and
 * BATCH_ELENGTH / BATCH_EMAGIC for an impossible length or wrong magic.
 */
int	batch_parse_header(const uint8_t *buf, size_t len, struct batch_header *h);

/*
 * Full validation of exactly one batch occupying buf[0..len): header, CRC,
 * and every record walked.  Returns BATCH_OK or a negative batch_error.
 * h may be NULL.  A compressed batch is BATCH_ECOMPRESSION here; see
 * batch_validate_z.
 */
int	batch_validate(const uint8_t *buf, size_t len, struct batch_header *h);

/*
 * batch_validate, and a compressed batch is inflated into z (never past
 * z->limit: BATCH_ETOOBIG) and its records walked there.  On BATCH_OK for
 * a compressed batch z holds its records, for batch_iter_init_z.  z is
 * untouched for an uncompressed batch.
 */
int	batch_validate_z(const uint8_t *buf, size_t len, struct batch_header *h,
	    struct compress_buf *z);

/*
 * Header and CRC only, for a batch that was fully validated before (the
 * log recovery path).  len must be exactly the batch size.
 */
int	batch_check_crc(const uint8_t *buf, size_t len);

const char *batch_strerror(int err);

void	batch_set_base_offset(uint8_t *buf, int64_t base_offset);
/*
 * LogAppendTime: set the timestamp-type attribute bit and maxTimestamp of
 * the whole batch buf[0..len) to ts and recompute its CRC-32C (the one
 * edit of CRC-covered bytes the broker makes).  Kafka leaves
 * firstTimestamp and the records' deltas as they came; readers take
 * maxTimestamp as every record's time.
 */
void	batch_set_log_append_time(uint8_t *buf, size_t len, int64_t ts);
int64_t	batch_base_offset(const uint8_t *buf);
/* Offset of the last record: baseOffset + lastOffsetDelta. */
int64_t	batch_last_offset(const uint8_t *buf);

/* One header of a record; key and value point into the batch. */
struct record_header {
	const uint8_t	*key;
	int32_t		 key_len;
	const uint8_t	*value;
	int32_t		 value_len;	/* -1 = null */
};

/* One record; pointers into the batch, valid as long as the batch is. */
struct record {
	int64_t		 offset;	/* baseOffset + offsetDelta */
	int64_t		 timestamp;	/* firstTimestamp + timestampDelta, or
					   maxTimestamp in a LogAppendTime batch */
	const uint8_t	*key;
	int32_t		 key_len;	/* -1 = null key */
	const uint8_t	*value;
	int32_t		 value_len;	/* -1 = null value */
	int32_t		 header_count;
	const uint8_t	*headers;	/* encoded headers, see record_header_next */
	size_t		 headers_len;
};

struct batch_iter {
	const uint8_t	*p, *end;
	int64_t		 base_offset;
	int64_t		 first_timestamp;
	int32_t		 remaining;
	int		 log_append;	/* every record's time is max_timestamp */
	int64_t		 max_timestamp;
};

/*
 * Iterate the records of a batch that passed batch_validate().  A
 * compressed batch is BATCH_ECOMPRESSION.
 */
int	batch_iter_init(struct batch_iter *it, const uint8_t *buf, size_t len);
/*
 * The same for any batch that passed batch_validate_z(buf, len, h, z):
 * a compressed batch's records are read from z, so the record pointers
 * live as long as z's contents.
 */
int	batch_iter_init_z(struct batch_iter *it, const uint8_t *buf, size_t len,
	    const struct compress_buf *z);
/* 1 and *r filled, 0 at the end, -1 on a malformed record. */
int	batch_iter_next(struct batch_iter *it, struct record *r);

/* Walk a record's headers: 1 and *h filled, 0 at the end, -1 malformed. */
struct record_header_iter {
	const uint8_t	*p, *end;
	int32_t		 remaining;
};
void	record_header_iter_init(struct record_header_iter *it, const struct record *r);
int	record_header_next(struct record_header_iter *it, struct record_header *h);

/*
 * Builder: append records, then close to get one CRC'd batch.  The buffer
 * grows as needed and is kept across batch_builder_reset(), so a producer
 * that reuses a builder does not allocate in steady state.
 *
 * A value appended with batch_builder_add_ref() is not copied: the batch
 * is then the builder's own bytes (header, record preludes, keys,
 * headers) with the caller's value spans inserted, and the caller keeps
 * those bytes valid and unchanged until the batch is no longer needed.
 * The records' CRC-32C is kept up to date as records are appended,
 * while their bytes are hot in the cache, so closing reads at most the
 * last few kilobytes of them.
 */
struct batch_builder {
	uint8_t		*buf;
	size_t		 len, cap;	/* own bytes only */
	struct wbuf_span *refs;		/* referenced values, by position */
	size_t		 nrefs, refcap;
	size_t		 ref_bytes;	/* their total length */
	uint32_t	 crc;		/* CRC-32C of the records up to crc_pos */
	size_t		 crc_pos;	/* own bytes before it are in crc */
	int32_t		 count;
	int64_t		 first_timestamp;
	int64_t		 max_timestamp;
	int64_t		 producer_id;
	int16_t		 producer_epoch;
	int32_t		 base_sequence;
	int		 closed;
	uint32_t	 records_crc;	/* closed: CRC of what follows the header */
	/* Compressed close: the codec's output, then header + it. */
	struct compress_buf z;
	uint8_t		*zbatch;
	size_t		 zbatch_cap;
};

/*
 * Set the CRC of the total-byte batch whose header is at h, given the CRC
 * of the bytes after its header (a closed builder's records_crc): after
 * the producer fields of a sealed batch were patched, say.
 */
void	batch_header_recrc(uint8_t *h, size_t total, uint32_t records_crc);

void	batch_builder_init(struct batch_builder *b);
void	batch_builder_free(struct batch_builder *b);
/* Empty the builder for a new batch (keeps the buffer). */
void	batch_builder_reset(struct batch_builder *b);
/* Defaults: producer id -1, epoch -1, sequence -1 (no idempotence). */
void	batch_builder_set_producer(struct batch_builder *b, int64_t producer_id,
	    int16_t epoch, int32_t base_sequence);
/*
 * Append one record.  key/value may be NULL with length -1 for null.
 * The first record's timestamp becomes firstTimestamp.  0 or -1 (ENOMEM,
 * or EINVAL after close).
 */
int	batch_builder_add(struct batch_builder *b, int64_t timestamp,
	    const void *key, int32_t key_len, const void *value, int32_t value_len,
	    const struct record_header *headers, int32_t header_count);
/*
 * batch_builder_add, but the value (if longer than 0 bytes) is referenced,
 * not copied; see struct batch_builder for the lifetime rule.
 */
int	batch_builder_add_ref(struct batch_builder *b, int64_t timestamp,
	    const void *key, int32_t key_len, const void *value, int32_t value_len,
	    const struct record_header *headers, int32_t header_count);
/*
 * Bytes the batch has now (header and referenced values included), for
 * size-based flushing.
 */
size_t	batch_builder_size(const struct batch_builder *b);
/* Bytes one more record like this would add, at most. */
size_t	batch_builder_record_size(int32_t key_len, int32_t value_len,
	    const struct record_header *headers, int32_t header_count);
/*
 * Fill in the header and CRC; *out points into the builder's buffer until
 * the next reset.  Fails (-1, EINVAL) with no records.  Referenced values
 * are copied in first (once), so *out is always the whole batch.
 */
int	batch_builder_close(struct batch_builder *b, const uint8_t **out, size_t *outlen);
/*
 * batch_builder_close, with the records compressed once as a whole by
 * codec (COMPRESS_NONE is batch_builder_close); *out points into the
 * builder until the next reset.  -1 with EINVAL (no records, unknown
 * codec) or ENOMEM.
 */
int	batch_builder_close_codec(struct batch_builder *b, int codec,
	    const uint8_t **out, size_t *outlen);
/*
 * Close an uncompressed batch without copying referenced values: *out is
 * the builder's own bytes with the referenced spans inserted (total
 * out->len + out->span_bytes == batch_builder_size()), valid until the
 * next reset.  The header is at out->buf[0], so batch_header_recrc()
 * applies to it.  -1 with EINVAL when there are no records.
 */
int	batch_builder_close_pieces(struct batch_builder *b,
	    struct wbuf_pieces *out);

#endif
