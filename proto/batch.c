/*
 * Kafka RecordBatch v2: validation, iteration and building.  The layout is
 * described in batch.h.
 *
 * The validator is what stands between a client's bytes and the log, so
 * it walks every record with bounds checks and names the first thing that
 * is wrong.  The iterator trusts a validated batch but still never reads
 * past it.  Everything is read through proto/bytes.h and memcpy: a batch
 * may sit at any alignment (in a ring, in a socket buffer).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/crc32c.h"
#include "proto/varint.h"

/* Own bytes the builder lets wait for its running CRC (see builder_add). */
#define BUILDER_CRC_RUN		(32 * 1024)
/* Smallest batchLength: the header minus baseOffset and batchLength. */
#define BATCH_MIN_LENGTH	(BATCH_HEADER_SIZE - BATCH_LOG_OVERHEAD)
/* A batch's total size must fit the i32 batchLength field. */
#define BATCH_MAX_TOTAL		((size_t)INT32_MAX + BATCH_LOG_OVERHEAD)

/* One decoded record, internal form (offsetDelta kept, not yet rebased). */
struct rec_raw {
	int64_t		 ts_delta;
	int32_t		 offset_delta;
	const uint8_t	*key;
	int32_t		 key_len;
	const uint8_t	*value;
	int32_t		 value_len;
	int32_t		 header_count;
	const uint8_t	*headers;
	size_t		 headers_len;
};

/*
 * Read a nullable byte field ([varint len][bytes], -1 = null) from
 * [*pp, end); 0 and advance, or -1 if the length is < -1 or overruns.
 */
static int
field_get(const uint8_t **pp, const uint8_t *end, const uint8_t **data,
    int32_t *len, int nullable)
{
	const uint8_t *p = *pp;
	int n;

	if ((n = varint_get(p, (size_t)(end - p), len)) < 0)
		return -1;
	p += n;
	if (*len < 0) {
		if (*len != -1 || !nullable)
			return -1;
		*data = NULL;
	} else {
		if ((size_t)*len > (size_t)(end - p))
			return -1;
		*data = p;
		p += *len;
	}
	*pp = p;
	return 0;
}

/*
 * Decode one record starting at *pp, not past end; advance *pp past it.
 * Every length is checked against the record's own length, and the record
 * must be consumed exactly.  0 or BATCH_ERECORD.
 */
static int
record_decode(const uint8_t **pp, const uint8_t *end, struct rec_raw *r)
{
	const uint8_t *p = *pp, *rend, *hk, *hv;
	int32_t rlen, hklen, hvlen, i;
	int n;

	if ((n = varint_get(p, (size_t)(end - p), &rlen)) < 0)
		return BATCH_ERECORD;
	p += n;
	if (rlen < 0 || (size_t)rlen > (size_t)(end - p))
		return BATCH_ERECORD;
	rend = p + rlen;

	/* attributes: unused in v2, any value is accepted as Kafka does */
	if (p >= rend)
		return BATCH_ERECORD;
	p++;
	if ((n = varlong_get(p, (size_t)(rend - p), &r->ts_delta)) < 0)
		return BATCH_ERECORD;
	p += n;
	if ((n = varint_get(p, (size_t)(rend - p), &r->offset_delta)) < 0)
		return BATCH_ERECORD;
	p += n;
	if (field_get(&p, rend, &r->key, &r->key_len, 1) == -1 ||
	    field_get(&p, rend, &r->value, &r->value_len, 1) == -1)
		return BATCH_ERECORD;
	if ((n = varint_get(p, (size_t)(rend - p), &r->header_count)) < 0)
		return BATCH_ERECORD;
	p += n;
	if (r->header_count < 0)
		return BATCH_ERECORD;
	r->headers = p;
	/* Each header takes at least 2 bytes, so this loop is bounded by rlen. */
	for (i = 0; i < r->header_count; i++) {
		if (field_get(&p, rend, &hk, &hklen, 0) == -1 ||
		    field_get(&p, rend, &hv, &hvlen, 1) == -1)
			return BATCH_ERECORD;
	}
	r->headers_len = (size_t)(p - r->headers);
	if (p != rend)
		return BATCH_ERECORD;
	*pp = p;
	return 0;
}

int
batch_parse_header(const uint8_t *buf, size_t len, struct batch_header *h)
{
	if (len < BATCH_HEADER_SIZE)
		return BATCH_ESHORT;
	h->base_offset = (int64_t)be64_get(buf + BATCH_OFF_BASE_OFFSET);
	h->length = (int32_t)be32_get(buf + BATCH_OFF_LENGTH);
	h->leader_epoch = (int32_t)be32_get(buf + BATCH_OFF_EPOCH);
	h->magic = (int8_t)buf[BATCH_OFF_MAGIC];
	h->crc = be32_get(buf + BATCH_OFF_CRC);
	h->attributes = (int16_t)be16_get(buf + BATCH_OFF_ATTRIBUTES);
	h->last_offset_delta = (int32_t)be32_get(buf + BATCH_OFF_LAST_DELTA);
	h->first_timestamp = (int64_t)be64_get(buf + BATCH_OFF_FIRST_TS);
	h->max_timestamp = (int64_t)be64_get(buf + BATCH_OFF_MAX_TS);
	h->producer_id = (int64_t)be64_get(buf + BATCH_OFF_PRODUCER_ID);
	h->producer_epoch = (int16_t)be16_get(buf + BATCH_OFF_PRODUCER_EPOCH);
	h->base_sequence = (int32_t)be32_get(buf + BATCH_OFF_BASE_SEQUENCE);
	h->records_count = (int32_t)be32_get(buf + BATCH_OFF_COUNT);
	if (h->length < BATCH_MIN_LENGTH)
		return BATCH_ELENGTH;
	if (h->magic != BATCH_MAGIC)
		return BATCH_EMAGIC;
	return BATCH_OK;
}

/*
 * Header, exact size and CRC of the batch in buf[0..len): the checks that
 * do not look at records.  A buffer shorter than batchLength says is
 * BATCH_ESHORT (it was cut); a longer one is BATCH_ELENGTH.
 */
static int
batch_check_frame(const uint8_t *buf, size_t len, struct batch_header *h)
{
	size_t total;
	int rc;

	if ((rc = batch_parse_header(buf, len, h)) != BATCH_OK)
		return rc;
	total = batch_total_size(h);
	if (total > len)
		return BATCH_ESHORT;
	if (total < len)
		return BATCH_ELENGTH;
	if (crc32c(0, buf + BATCH_CRC_START, len - BATCH_CRC_START) != h->crc)
		return BATCH_ECRC;
	return BATCH_OK;
}

int
batch_check_crc(const uint8_t *buf, size_t len)
{
	struct batch_header h;

	return batch_check_frame(buf, len, &h);
}

/*
 * Walk the records in [p, end) that the header h describes: the count,
 * every offsetDelta and every length.  Shared by plain batches (records
 * in place) and compressed ones (records inflated).
 */
static int
records_check(const uint8_t *p, const uint8_t *end, const struct batch_header *h)
{
	struct rec_raw r;
	int32_t i;
	int rc;

	/* An empty batch carries no offsets; a producer never sends one. */
	if (h->records_count <= 0)
		return BATCH_ECOUNT;
	for (i = 0; i < h->records_count; i++) {
		if (p == end)
			return BATCH_ECOUNT;	/* fewer records than claimed */
		if ((rc = record_decode(&p, end, &r)) != 0)
			return rc;
		if (r.offset_delta != i)
			return BATCH_EDELTA;
	}
	if (p != end) {
		/*
		 * More bytes.  If they are whole records the count was too
		 * low; anything else is junk after the last record.  Each
		 * record consumes at least one byte, so this terminates.
		 */
		while (p < end)
			if (record_decode(&p, end, &r) != 0)
				return BATCH_ETRAILING;
		return BATCH_ECOUNT;
	}
	if (h->last_offset_delta != h->records_count - 1)
		return BATCH_EDELTA;
	return BATCH_OK;
}

int
batch_validate(const uint8_t *buf, size_t len, struct batch_header *hp)
{
	return batch_validate_z(buf, len, hp, NULL);
}

int
batch_validate_z(const uint8_t *buf, size_t len, struct batch_header *hp,
    struct compress_buf *z)
{
	struct batch_header hs, *h = hp != NULL ? hp : &hs;
	int codec, rc;

	if ((rc = batch_check_frame(buf, len, h)) != BATCH_OK)
		return rc;
	codec = h->attributes & BATCH_COMPRESSION_MASK;
	if (codec == COMPRESS_NONE)
		return records_check(buf + BATCH_HEADER_SIZE, buf + len, h);
	if (z == NULL || compress_name(codec) == NULL)
		return BATCH_ECOMPRESSION;
	/* Cheap checks first: a bad count costs no inflating. */
	if (h->records_count <= 0)
		return BATCH_ECOUNT;
	switch (compress_inflate(codec, buf + BATCH_HEADER_SIZE,
	    len - BATCH_HEADER_SIZE, z)) {
	case COMPRESS_OK:
		break;
	case COMPRESS_ELIMIT:
		return BATCH_ETOOBIG;
	case COMPRESS_ENOMEM:
		return BATCH_ENOMEM;
	case COMPRESS_ECODEC:
		return BATCH_ECOMPRESSION;
	default:
		return BATCH_EINFLATE;
	}
	return records_check(z->buf, z->buf + z->len, h);
}

const char *
batch_strerror(int err)
{
	switch (err) {
	case BATCH_OK:
		return "no error";
	case BATCH_ESHORT:
		return "batch truncated";
	case BATCH_ELENGTH:
		return "batch length invalid";
	case BATCH_EMAGIC:
		return "batch magic is not 2";
	case BATCH_ECRC:
		return "batch CRC-32C mismatch";
	case BATCH_ECOMPRESSION:
		return "unsupported compression codec";
	case BATCH_ECOUNT:
		return "batch record count mismatch";
	case BATCH_EDELTA:
		return "batch offset delta invalid";
	case BATCH_ERECORD:
		return "malformed record in batch";
	case BATCH_ETRAILING:
		return "trailing bytes after last record";
	case BATCH_EINFLATE:
		return "compressed records corrupt or truncated";
	case BATCH_ETOOBIG:
		return "batch inflates past the limit";
	case BATCH_ENOMEM:
		return "out of memory inflating batch";
	default:
		return "unknown batch error";
	}
}

void
batch_set_base_offset(uint8_t *buf, int64_t base_offset)
{
	be64_put(buf + BATCH_OFF_BASE_OFFSET, (uint64_t)base_offset);
}

void
batch_set_log_append_time(uint8_t *buf, size_t len, int64_t ts)
{
	uint16_t attr = be16_get(buf + BATCH_OFF_ATTRIBUTES);

	be16_put(buf + BATCH_OFF_ATTRIBUTES,
	    (uint16_t)(attr | BATCH_ATTR_LOG_APPEND_TIME));
	be64_put(buf + BATCH_OFF_MAX_TS, (uint64_t)ts);
	be32_put(buf + BATCH_OFF_CRC, crc32c(0, buf + BATCH_OFF_ATTRIBUTES,
	    len - BATCH_OFF_ATTRIBUTES));
}

/*
 * Wrapping add: a hostile base offset or delta (an offset or a
 * timestamp) must not be signed overflow.  What the sum means is the
 * validation's business.
 */
static inline int64_t
wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

int64_t
batch_base_offset(const uint8_t *buf)
{
	return (int64_t)be64_get(buf + BATCH_OFF_BASE_OFFSET);
}

int64_t
batch_last_offset(const uint8_t *buf)
{
	int32_t delta = (int32_t)be32_get(buf + BATCH_OFF_LAST_DELTA);

	return wrap_add(batch_base_offset(buf), delta);
}

int
batch_iter_init(struct batch_iter *it, const uint8_t *buf, size_t len)
{
	return batch_iter_init_z(it, buf, len, NULL);
}

int
batch_iter_init_z(struct batch_iter *it, const uint8_t *buf, size_t len,
    const struct compress_buf *z)
{
	struct batch_header h;
	size_t total;
	int rc;

	if ((rc = batch_parse_header(buf, len, &h)) != BATCH_OK)
		return rc;
	total = batch_total_size(&h);
	if (total > len)
		return BATCH_ESHORT;
	if (h.records_count < 0)
		return BATCH_ECOUNT;
	if ((h.attributes & BATCH_COMPRESSION_MASK) != COMPRESS_NONE) {
		if (z == NULL)
			return BATCH_ECOMPRESSION;
		it->p = z->buf;
		it->end = z->buf + z->len;
	} else {
		it->p = buf + BATCH_HEADER_SIZE;
		it->end = buf + total;
	}
	it->base_offset = h.base_offset;
	it->first_timestamp = h.first_timestamp;
	it->remaining = h.records_count;
	it->log_append = (h.attributes & BATCH_ATTR_LOG_APPEND_TIME) != 0;
	it->max_timestamp = h.max_timestamp;
	return BATCH_OK;
}

int
batch_iter_next(struct batch_iter *it, struct record *r)
{
	struct rec_raw raw;

	if (it->remaining <= 0)
		return 0;
	if (it->p >= it->end || record_decode(&it->p, it->end, &raw) != 0) {
		it->remaining = 0;	/* stay failed: never resync mid-batch */
		return -1;
	}
	it->remaining--;
	r->offset = wrap_add(it->base_offset, raw.offset_delta);
	r->timestamp = it->log_append ? it->max_timestamp :
	    wrap_add(it->first_timestamp, raw.ts_delta);
	r->key = raw.key;
	r->key_len = raw.key_len;
	r->value = raw.value;
	r->value_len = raw.value_len;
	r->header_count = raw.header_count;
	r->headers = raw.headers;
	r->headers_len = raw.headers_len;
	return 1;
}

void
record_header_iter_init(struct record_header_iter *it, const struct record *r)
{
	it->p = r->headers;
	it->end = r->headers + r->headers_len;
	it->remaining = r->header_count;
}

int
record_header_next(struct record_header_iter *it, struct record_header *h)
{
	if (it->remaining <= 0)
		return 0;
	if (field_get(&it->p, it->end, &h->key, &h->key_len, 0) == -1 ||
	    field_get(&it->p, it->end, &h->value, &h->value_len, 1) == -1) {
		it->remaining = 0;
		return -1;
	}
	it->remaining--;
	return 1;
}

/* Builder. */

void
batch_builder_init(struct batch_builder *b)
{
	memset(b, 0, sizeof(*b));
	b->producer_id = -1;
	b->producer_epoch = -1;
	b->base_sequence = -1;
	b->len = BATCH_HEADER_SIZE;	/* header space, written at close */
	b->crc_pos = BATCH_HEADER_SIZE;
}

void
batch_builder_free(struct batch_builder *b)
{
	free(b->buf);
	b->buf = NULL;
	b->cap = 0;
	free(b->refs);
	b->refs = NULL;
	b->nrefs = b->refcap = 0;
	b->ref_bytes = 0;
	b->crc = 0;
	b->crc_pos = BATCH_HEADER_SIZE;
	compress_buf_free(&b->z);
	free(b->zbatch);
	b->zbatch = NULL;
	b->zbatch_cap = 0;
	b->len = BATCH_HEADER_SIZE;
	b->count = 0;
	b->closed = 0;
}

/* Producer fields survive a reset; callers set the sequence per batch. */
void
batch_builder_reset(struct batch_builder *b)
{
	b->len = BATCH_HEADER_SIZE;
	b->nrefs = 0;
	b->ref_bytes = 0;
	b->crc = 0;
	b->crc_pos = BATCH_HEADER_SIZE;
	b->count = 0;
	b->first_timestamp = 0;
	b->max_timestamp = 0;
	b->closed = 0;
}

void
batch_builder_set_producer(struct batch_builder *b, int64_t producer_id,
    int16_t epoch, int32_t base_sequence)
{
	b->producer_id = producer_id;
	b->producer_epoch = epoch;
	b->base_sequence = base_sequence;
}

size_t
batch_builder_size(const struct batch_builder *b)
{
	return b->len + b->ref_bytes;
}

/* Bytes of a nullable field: its length varint plus the bytes. */
static inline size_t
field_size(int32_t len)
{
	return varint_size(len) + (len > 0 ? (size_t)len : 0);
}

/*
 * Bytes the headers take encoded, or SIZE_MAX if an argument is invalid
 * (negative key length, value length below -1) or the sum is absurd.
 */
static size_t
headers_size(const struct record_header *hs, int32_t count)
{
	size_t n = 0;
	int32_t i;

	for (i = 0; i < count; i++) {
		if (hs[i].key_len < 0 || hs[i].value_len < -1 ||
		    (hs[i].key == NULL && hs[i].key_len > 0) ||
		    (hs[i].value == NULL && hs[i].value_len > 0))
			return SIZE_MAX;
		n += field_size(hs[i].key_len) + field_size(hs[i].value_len);
		if (n > BATCH_MAX_TOTAL)
			return SIZE_MAX;
	}
	return n;
}

size_t
batch_builder_record_size(int32_t key_len, int32_t value_len,
    const struct record_header *headers, int32_t header_count)
{
	size_t hs;

	if (header_count < 0 || (header_count > 0 && headers == NULL))
		return SIZE_MAX;
	if ((hs = headers_size(headers, header_count)) == SIZE_MAX)
		return SIZE_MAX;
	/* Worst case for the parts that depend on the batch so far. */
	return VARINT_MAX + 1 + VARLONG_MAX + VARINT_MAX +
	    field_size(key_len < -1 ? -1 : key_len) +
	    field_size(value_len < -1 ? -1 : value_len) +
	    varint_size(header_count) + hs;
}

/* Make room for n more bytes, doubling; 0 or -1 (ENOMEM). */
static int
builder_reserve(struct batch_builder *b, size_t n)
{
	size_t want = b->len + n, ncap;
	uint8_t *nbuf;

	if (want <= b->cap)
		return 0;
	ncap = b->cap > 0 ? b->cap : 512;
	while (ncap < want)
		ncap *= 2;
	if ((nbuf = realloc(b->buf, ncap)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	b->buf = nbuf;
	b->cap = ncap;
	return 0;
}

static inline uint8_t *
field_put(uint8_t *p, const void *data, int32_t len)
{
	p += varint_put(p, len);
	if (len > 0) {
		memcpy(p, data, (size_t)len);
		p += len;
	}
	return p;
}

/* Room for one more referenced span; 0 or -1 (ENOMEM). */
static int
builder_ref_room(struct batch_builder *b)
{
	struct wbuf_span *nr;
	size_t ncap;

	if (b->nrefs < b->refcap)
		return 0;
	ncap = b->refcap ? b->refcap * 2 : 16;
	if ((nr = reallocarray(b->refs, ncap, sizeof(*nr))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	b->refs = nr;
	b->refcap = ncap;
	return 0;
}

/*
 * Bring the running CRC up to own byte upto (what lies before it was
 * written, and the referenced values before it were taken in already).
 */
static void
builder_crc_to(struct batch_builder *b, size_t upto)
{
	b->crc = crc32c(b->crc, b->buf + b->crc_pos, upto - b->crc_pos);
	b->crc_pos = upto;
}

/*
 * Append one record, its value copied or (by_ref and not empty)
 * referenced.  The bytes go into the running CRC while they are in the
 * cache: a referenced value as it is appended (with the own bytes
 * before it), own bytes once BUILDER_CRC_RUN of them are waiting, so
 * short records are checksummed in runs (one long CRC is faster than
 * many short ones) and close has at most a run left to do.
 */
/* Inlined into both callers, so each is compiled for its by_ref. */
static inline __attribute__((always_inline)) int
builder_add(struct batch_builder *b, int64_t timestamp,
    const void *key, int32_t key_len, const void *value, int32_t value_len,
    const struct record_header *headers, int32_t header_count, int by_ref)
{
	int64_t ts_delta;
	size_t body, hs, own;
	uint8_t *p;
	int32_t i;

	if (b->closed || b->count == INT32_MAX || key_len < -1 ||
	    value_len < -1 || header_count < 0 ||
	    (key == NULL && key_len > 0) || (value == NULL && value_len > 0) ||
	    (headers == NULL && header_count > 0)) {
		errno = EINVAL;
		return -1;
	}
	if ((hs = headers_size(headers, header_count)) == SIZE_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (b->count == 0) {
		b->first_timestamp = timestamp;
		b->max_timestamp = timestamp;
	}
	ts_delta = (int64_t)((uint64_t)timestamp - (uint64_t)b->first_timestamp);

	body = 1 + varlong_size(ts_delta) + varint_size(b->count) +
	    field_size(key_len) + field_size(value_len) +
	    varint_size(header_count) + hs;
	/* The batch must stay describable by the i32 batchLength. */
	if (body > INT32_MAX ||
	    b->len + b->ref_bytes + VARINT_MAX + body > BATCH_MAX_TOTAL) {
		errno = EINVAL;
		return -1;
	}
	by_ref = by_ref && value_len > 0;
	own = VARINT_MAX + body - (by_ref ? (size_t)value_len : 0);
	/* Every allocation before the first byte: a failure changes nothing. */
	if (builder_reserve(b, own) == -1 ||
	    (by_ref && builder_ref_room(b) == -1))
		return -1;

	p = b->buf + b->len;
	p += varint_put(p, (int32_t)body);
	*p++ = 0;			/* record attributes */
	p += varlong_put(p, ts_delta);
	p += varint_put(p, b->count);	/* offsetDelta */
	p = field_put(p, key, key_len);
	if (by_ref) {
		p += varint_put(p, value_len);
		builder_crc_to(b, (size_t)(p - b->buf));
		b->crc = crc32c(b->crc, value, (size_t)value_len);
		b->refs[b->nrefs].at = (size_t)(p - b->buf);
		b->refs[b->nrefs].p = value;
		b->refs[b->nrefs].len = (size_t)value_len;
		b->refs[b->nrefs].before = b->ref_bytes;
		b->nrefs++;
		b->ref_bytes += (size_t)value_len;
	} else
		p = field_put(p, value, value_len);
	p += varint_put(p, header_count);
	for (i = 0; i < header_count; i++) {
		p = field_put(p, headers[i].key, headers[i].key_len);
		p = field_put(p, headers[i].value, headers[i].value_len);
	}
	b->len = (size_t)(p - b->buf);
	if (b->len - b->crc_pos >= BUILDER_CRC_RUN)
		builder_crc_to(b, b->len);
	b->count++;
	if (timestamp > b->max_timestamp)
		b->max_timestamp = timestamp;
	return 0;
}

int
batch_builder_add(struct batch_builder *b, int64_t timestamp,
    const void *key, int32_t key_len, const void *value, int32_t value_len,
    const struct record_header *headers, int32_t header_count)
{
	return builder_add(b, timestamp, key, key_len, value, value_len,
	    headers, header_count, 0);
}

int
batch_builder_add_ref(struct batch_builder *b, int64_t timestamp,
    const void *key, int32_t key_len, const void *value, int32_t value_len,
    const struct record_header *headers, int32_t header_count)
{
	return builder_add(b, timestamp, key, key_len, value, value_len,
	    headers, header_count, 1);
}

/*
 * Copy the referenced values into the builder's own buffer, in place:
 * own bytes move back from the end, each span is copied into the gap
 * left before them.  For the paths that need the batch in one piece
 * (compression, a caller of batch_builder_close).  0 or -1 (ENOMEM).
 */
static int
builder_flatten(struct batch_builder *b)
{
	size_t dst, src, seg, i;

	if (b->nrefs == 0)
		return 0;
	if (builder_reserve(b, b->ref_bytes) == -1)
		return -1;
	dst = b->len + b->ref_bytes;
	src = b->len;
	for (i = b->nrefs; i > 0; i--) {
		seg = src - b->refs[i - 1].at;
		memmove(b->buf + dst - seg, b->buf + b->refs[i - 1].at, seg);
		dst -= seg;
		src = b->refs[i - 1].at;
		dst -= b->refs[i - 1].len;
		memcpy(b->buf + dst, b->refs[i - 1].p, b->refs[i - 1].len);
	}
	b->len += b->ref_bytes;
	b->nrefs = 0;
	b->ref_bytes = 0;
	return 0;
}

/*
 * Write the header of a batch of total bytes into h, CRC included, given
 * the CRC of its records (what follows the header).  That CRC is kept in
 * the builder, so batch_header_recrc() can redo the batch's CRC after a
 * change to the header alone without reading the records again.
 */
static void
builder_header(struct batch_builder *b, uint8_t *h, size_t total,
    int16_t attributes, uint32_t records_crc)
{
	be64_put(h + BATCH_OFF_BASE_OFFSET, 0);
	be32_put(h + BATCH_OFF_LENGTH, (uint32_t)(total - BATCH_LOG_OVERHEAD));
	be32_put(h + BATCH_OFF_EPOCH, (uint32_t)-1);
	h[BATCH_OFF_MAGIC] = BATCH_MAGIC;
	be16_put(h + BATCH_OFF_ATTRIBUTES, (uint16_t)attributes);
	be32_put(h + BATCH_OFF_LAST_DELTA, (uint32_t)(b->count - 1));
	be64_put(h + BATCH_OFF_FIRST_TS, (uint64_t)b->first_timestamp);
	be64_put(h + BATCH_OFF_MAX_TS, (uint64_t)b->max_timestamp);
	be64_put(h + BATCH_OFF_PRODUCER_ID, (uint64_t)b->producer_id);
	be16_put(h + BATCH_OFF_PRODUCER_EPOCH, (uint16_t)b->producer_epoch);
	be32_put(h + BATCH_OFF_BASE_SEQUENCE, (uint32_t)b->base_sequence);
	be32_put(h + BATCH_OFF_COUNT, (uint32_t)b->count);
	b->records_crc = records_crc;
	batch_header_recrc(h, total, b->records_crc);
}

void
batch_header_recrc(uint8_t *h, size_t total, uint32_t records_crc)
{
	be32_put(h + BATCH_OFF_CRC, crc32c_combine(crc32c(0, h + BATCH_CRC_START,
	    BATCH_HEADER_SIZE - BATCH_CRC_START), records_crc,
	    total - BATCH_HEADER_SIZE));
}

int
batch_builder_close(struct batch_builder *b, const uint8_t **out, size_t *outlen)
{
	return batch_builder_close_codec(b, COMPRESS_NONE, out, outlen);
}

int
batch_builder_close_codec(struct batch_builder *b, int codec,
    const uint8_t **out, size_t *outlen)
{
	size_t total;
	uint8_t *nb;
	int rc;

	if (b->count == 0 || compress_name(codec) == NULL) {
		errno = EINVAL;
		return -1;
	}
	builder_crc_to(b, b->len);
	if (builder_flatten(b) == -1)
		return -1;
	b->crc_pos = b->len;
	if (codec == COMPRESS_NONE) {
		builder_header(b, b->buf, b->len, 0, b->crc);
		b->closed = 1;
		*out = b->buf;
		*outlen = b->len;
		return 0;
	}
	/* The codec's output has no room for a header: copy it once more. */
	if ((rc = compress_deflate(codec, b->buf + BATCH_HEADER_SIZE,
	    b->len - BATCH_HEADER_SIZE, &b->z)) != COMPRESS_OK) {
		errno = rc == COMPRESS_ECODEC ? EINVAL : ENOMEM;
		return -1;
	}
	total = BATCH_HEADER_SIZE + b->z.len;
	if (total > BATCH_MAX_TOTAL) {
		errno = EINVAL;
		return -1;
	}
	if (total > b->zbatch_cap) {
		if ((nb = realloc(b->zbatch, total)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		b->zbatch = nb;
		b->zbatch_cap = total;
	}
	memcpy(b->zbatch + BATCH_HEADER_SIZE, b->z.buf, b->z.len);
	builder_header(b, b->zbatch, total, (int16_t)codec,
	    crc32c(0, b->zbatch + BATCH_HEADER_SIZE, b->z.len));
	b->closed = 1;
	*out = b->zbatch;
	*outlen = total;
	return 0;
}

int
batch_builder_close_pieces(struct batch_builder *b, struct wbuf_pieces *out)
{
	if (b->count == 0) {
		errno = EINVAL;
		return -1;
	}
	builder_crc_to(b, b->len);
	builder_header(b, b->buf, b->len + b->ref_bytes, 0, b->crc);
	b->closed = 1;
	out->buf = b->buf;
	out->len = b->len;
	out->spans = b->refs;
	out->nspans = b->nrefs;
	out->span_bytes = b->ref_bytes;
	return 0;
}
