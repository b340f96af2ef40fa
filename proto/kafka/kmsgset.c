/*
 * Legacy message sets (magic 0 and 1) to and from RecordBatch v2; the
 * format is described in kmsgset.h.
 *
 * One reader (set_walk) serves both the Produce conversion and
 * kmsgset_walk.  Every length is checked against what is left before it
 * is used; a wrapper is inflated once into k->z (bounded by what is left
 * of the set's inflate budget) and its inner set is walked twice: once to
 * check every inner message and find the last relative offset (magic 1
 * offsets are relative to it), once to hand the messages out.  Inner
 * messages may not be compressed, so there is no recursion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/kafka/kmsgset.h"

/* RecordBatch v2 attribute: a control batch (transaction markers). */
#define KMSGSET_BATCH_CONTROL	0x20

struct kmsgset {
	struct kmsgset_limits	 lim;
	struct compress_buf	 z;		/* the wrapper being walked */
	struct batch_builder	 b;		/* Produce: the batch */
	uint8_t			*fix;		/* an LZ4 frame with its header
						   checksum repaired */
	size_t			 fixcap;
	uint8_t			*out;		/* Fetch: the messages */
	size_t			 outcap;
};

/* One message's fields, as parsed from the wire. */
struct raw {
	int64_t		 offset;
	int8_t		 magic;
	int8_t		 attributes;
	int64_t		 timestamp;	/* -1 for magic 0 */
	const uint8_t	*key, *value;
	int32_t		 key_len, value_len;
	size_t		 total;		/* bytes including offset and size */
};

struct kmsgset *
kmsgset_new(const struct kmsgset_limits *lim)
{
	struct kmsgset *k;

	if (lim == NULL || lim->inflate_limit > COMPRESS_LIMIT_MAX ||
	    lim->max_records < 1) {
		errno = EINVAL;
		return NULL;
	}
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return NULL;
	k->lim = *lim;
	compress_buf_init(&k->z, 0);
	batch_builder_init(&k->b);
	return k;
}

void
kmsgset_free(struct kmsgset *k)
{
	if (k == NULL)
		return;
	compress_buf_free(&k->z);
	batch_builder_free(&k->b);
	free(k->fix);
	free(k->out);
	free(k);
}

/* A nullable byte field (i32 length, -1 = null) at *pos in p[0..end). */
static int
field_get(const uint8_t *p, size_t end, size_t *pos, const uint8_t **f,
    int32_t *flen)
{
	int32_t n;

	if (end - *pos < 4)
		return KMSGSET_ESIZE;
	n = (int32_t)be32_get(p + *pos);
	*pos += 4;
	if (n < -1 || (n > 0 && (size_t)n > end - *pos))
		return KMSGSET_ESIZE;
	*f = n >= 0 ? p + *pos : NULL;
	*flen = n;
	if (n > 0)
		*pos += (size_t)n;
	return KMSGSET_OK;
}

/*
 * Parse and check (size, magic, CRC unless it was checked before, the
 * fields filling the message exactly) the message at p[0..avail).
 */
static int
msg_parse(const uint8_t *p, size_t avail, struct raw *m, int crc_checked)
{
	int32_t size;
	size_t end, pos;
	int rc;

	if (avail < KMSGSET_LOG_OVERHEAD)
		return KMSGSET_ESHORT;
	size = (int32_t)be32_get(p + 8);
	if (size < 0)
		return KMSGSET_ESIZE;
	if ((size_t)size > avail - KMSGSET_LOG_OVERHEAD)
		return KMSGSET_ESHORT;
	if (size < 5)		/* not even a CRC and a magic */
		return KMSGSET_ESIZE;
	m->offset = (int64_t)be64_get(p);
	m->magic = (int8_t)p[16];
	if (m->magic != 0 && m->magic != 1)
		return KMSGSET_EMAGIC;
	if (size < (m->magic == 0 ? KMSGSET_V0_OVERHEAD : KMSGSET_V1_OVERHEAD))
		return KMSGSET_ESIZE;
	end = KMSGSET_LOG_OVERHEAD + (size_t)size;
	if (!crc_checked &&
	    (uint32_t)crc32(0L, p + 16, (uInt)(end - 16)) != be32_get(p + 12))
		return KMSGSET_ECRC;
	m->attributes = (int8_t)p[17];
	pos = 18;
	m->timestamp = -1;
	if (m->magic == 1) {
		m->timestamp = (int64_t)be64_get(p + 18);
		pos += 8;
	}
	if ((rc = field_get(p, end, &pos, &m->key, &m->key_len)) != 0 ||
	    (rc = field_get(p, end, &pos, &m->value, &m->value_len)) != 0)
		return rc;
	if (pos != end)
		return KMSGSET_ESIZE;
	m->total = end;
	return KMSGSET_OK;
}

static int
codec_of(const struct raw *m)
{
	int codec = m->attributes & KMSGSET_ATTR_CODEC_MASK;

	return codec > COMPRESS_LZ4 ? -1 : codec;
}

/* xxHash32 (seed 0), for the LZ4 frame header checksum. */
#define XXH_P1	2654435761U
#define XXH_P2	2246822519U
#define XXH_P3	3266489917U
#define XXH_P4	668265263U
#define XXH_P5	374761393U

static uint32_t
rotl32(uint32_t x, int r)
{
	return x << r | x >> (32 - r);
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint32_t
xxh32(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint32_t h, v[4] = { XXH_P1 + XXH_P2, XXH_P2, 0, 0U - XXH_P1 };
	int i;

	if (len >= 16) {
		for (; end - p >= 16; p += 16)
			for (i = 0; i < 4; i++)
				v[i] = rotl32(v[i] + le32(p + 4 * i) * XXH_P2,
				    13) * XXH_P1;
		h = rotl32(v[0], 1) + rotl32(v[1], 7) + rotl32(v[2], 12) +
		    rotl32(v[3], 18);
	} else
		h = XXH_P5;
	h += (uint32_t)len;
	for (; end - p >= 4; p += 4)
		h = rotl32(h + le32(p) * XXH_P3, 17) * XXH_P4;
	for (; p < end; p++)
		h = rotl32(h + *p * XXH_P5, 11) * XXH_P1;
	h ^= h >> 15;
	h *= XXH_P2;
	h ^= h >> 13;
	h *= XXH_P3;
	h ^= h >> 16;
	return h;
}

/*
 * KIP-57: Kafka 0.8-0.9 (and kafka-python for magic 0) wrote the LZ4
 * frame's header checksum over the frame's magic number too, which
 * lz4frame refuses.  If the byte is that wrong one and not the right
 * one, inflate a copy with it repaired; otherwise the frame as it is.
 */
static int
lz4_repair(struct kmsgset *k, const uint8_t **in, size_t inlen)
{
	const uint8_t *p = *in;
	size_t desc;
	uint8_t good, old;

	if (inlen < 7 || le32(p) != 0x184D2204U)
		return KMSGSET_OK;
	desc = 2 + ((p[4] & 0x08) ? 8 : 0) + ((p[4] & 0x01) ? 4 : 0);
	if (inlen < 4 + desc + 1)
		return KMSGSET_OK;
	good = (uint8_t)(xxh32(p + 4, desc) >> 8);
	old = (uint8_t)(xxh32(p, 4 + desc) >> 8);
	if (p[4 + desc] == good || p[4 + desc] != old)
		return KMSGSET_OK;
	if (k->fixcap < inlen) {
		uint8_t *nb = realloc(k->fix, inlen);

		if (nb == NULL)
			return KMSGSET_ENOMEM;
		k->fix = nb;
		k->fixcap = inlen;
	}
	memcpy(k->fix, p, inlen);
	k->fix[4 + desc] = good;
	*in = k->fix;
	return KMSGSET_OK;
}

static int
inflate_wrapper(struct kmsgset *k, const struct raw *w, size_t *budget)
{
	const uint8_t *in = w->value;
	int rc;

	if (w->value_len <= 0)
		return KMSGSET_EINFLATE;
	if (codec_of(w) == COMPRESS_LZ4 &&
	    (rc = lz4_repair(k, &in, (size_t)w->value_len)) != KMSGSET_OK)
		return rc;
	k->z.limit = *budget;
	switch (compress_inflate(codec_of(w), in, (size_t)w->value_len,
	    &k->z)) {
	case COMPRESS_OK:
		break;
	case COMPRESS_ELIMIT:
		return KMSGSET_ELIMIT;
	case COMPRESS_ENOMEM:
		return KMSGSET_ENOMEM;
	default:
		return KMSGSET_EINFLATE;
	}
	if (k->z.len == 0)
		return KMSGSET_EINFLATE;
	*budget -= k->z.len;
	return KMSGSET_OK;
}

static int
emit(const struct raw *m, int64_t offset, int64_t ts, int log_append,
    kmsgset_cb cb, void *arg)
{
	struct kmsgset_msg out;

	out.offset = offset;
	out.timestamp = ts;
	out.magic = m->magic;
	out.log_append = (int8_t)log_append;
	out.key = m->key;
	out.key_len = m->key_len;
	out.value = m->value;
	out.value_len = m->value_len;
	return cb(&out, arg);
}

/* The inner set of wrapper w, inflated in k->z: check it, then emit it. */
static int
walk_inner(struct kmsgset *k, const struct raw *w, int32_t *count,
    kmsgset_cb cb, void *arg)
{
	const uint8_t *p = k->z.buf;
	size_t pos, len = k->z.len;
	struct raw m;
	int64_t last = 0, base, ts;
	int32_t n = *count;
	int rc, la;

	for (pos = 0; pos < len; pos += m.total) {
		if ((rc = msg_parse(p + pos, len - pos, &m, 0)) != KMSGSET_OK)
			return rc;
		if (m.magic != w->magic)
			return KMSGSET_EMAGIC;
		if (codec_of(&m) != COMPRESS_NONE)
			return KMSGSET_ENESTED;
		if (n == k->lim.max_records)
			return KMSGSET_ELIMIT;
		n++;
		last = m.offset;
	}
	*count = n;
	/* Magic 1: inner offsets are relative to the last one (wrapping
	   arithmetic: a hostile offset is wrong, never undefined). */
	base = w->magic == 1 ? (int64_t)((uint64_t)w->offset - (uint64_t)last) :
	    0;
	la = w->magic == 1 && (w->attributes & KMSGSET_ATTR_LOG_APPEND);
	for (pos = 0; pos < len; pos += m.total) {
		(void)msg_parse(p + pos, len - pos, &m, 1);	/* passed above */
		ts = la ? w->timestamp : m.timestamp;
		if ((rc = emit(&m, (int64_t)((uint64_t)base + (uint64_t)m.offset),
		    ts, la, cb, arg)) != 0)
			return rc;
	}
	return KMSGSET_OK;
}

int
kmsgset_walk(struct kmsgset *k, const uint8_t *set, size_t len,
    kmsgset_cb cb, void *arg)
{
	size_t pos, budget = k->lim.inflate_limit;
	struct raw m;
	int32_t count = 0;
	int rc;

	if (len == 0)
		return KMSGSET_EEMPTY;
	for (pos = 0; pos < len; pos += m.total) {
		if ((rc = msg_parse(set + pos, len - pos, &m, 0)) != KMSGSET_OK)
			return rc;
		if (codec_of(&m) < 0)
			return KMSGSET_ECODEC;
		if (codec_of(&m) != COMPRESS_NONE) {
			if ((rc = inflate_wrapper(k, &m, &budget)) != KMSGSET_OK ||
			    (rc = walk_inner(k, &m, &count, cb, arg)) != 0)
				return rc;
			continue;
		}
		if (count == k->lim.max_records)
			return KMSGSET_ELIMIT;
		count++;
		if ((rc = emit(&m, m.offset, m.timestamp, m.magic == 1 &&
		    (m.attributes & KMSGSET_ATTR_LOG_APPEND), cb, arg)) != 0)
			return rc;
	}
	return KMSGSET_OK;
}

/* kmsgset_to_batches' state across the walk. */
struct to_batch {
	struct batch_builder	*b;
	int64_t			 now_ms;
	int			 log_append;	/* -1 until the first message */
};

static int
to_batch_add(const struct kmsgset_msg *m, void *arg)
{
	struct to_batch *t = arg;

	if (t->log_append == -1)
		t->log_append = m->log_append;
	else if (t->log_append != m->log_append)
		return KMSGSET_ETSTYPE;
	if (batch_builder_add(t->b, m->magic == 0 ? t->now_ms : m->timestamp,
	    m->key, m->key_len, m->value, m->value_len, NULL, 0) == -1)
		return errno == ENOMEM ? KMSGSET_ENOMEM : KMSGSET_ELIMIT;
	return 0;
}

int
kmsgset_to_batches(struct kmsgset *k, const uint8_t *set, size_t len,
    int64_t now_ms, const uint8_t **out, size_t *outlen)
{
	return kmsgset_to_batches_codec(k, set, len, now_ms, COMPRESS_NONE,
	    out, outlen);
}

int
kmsgset_to_batches_codec(struct kmsgset *k, const uint8_t *set, size_t len,
    int64_t now_ms, int codec, const uint8_t **out, size_t *outlen)
{
	struct to_batch t = { &k->b, now_ms, -1 };
	int rc;

	if (codec < COMPRESS_NONE || codec > COMPRESS_LZ4)
		return KMSGSET_EARG;
	batch_builder_reset(&k->b);
	if ((rc = kmsgset_walk(k, set, len, to_batch_add, &t)) != KMSGSET_OK)
		return rc;
	if (batch_builder_close_codec(&k->b, codec, out, outlen) == -1)
		return errno == ENOMEM ? KMSGSET_ENOMEM : KMSGSET_EEMPTY;
	/* *out is the builder's own buffer, so it may be edited. */
	if (t.log_append == 1)
		batch_set_log_append_time((uint8_t *)(uintptr_t)*out, *outlen,
		    k->b.max_timestamp);
	return KMSGSET_OK;
}

/* Room for n more output bytes; the buffer never passes need. */
static int
out_reserve(struct kmsgset *k, size_t used, size_t n)
{
	size_t cap;
	uint8_t *nb;

	if (k->outcap - used >= n)
		return KMSGSET_OK;
	cap = k->outcap ? k->outcap : 4096;
	while (cap - used < n)
		cap *= 2;
	if ((nb = realloc(k->out, cap)) == NULL)
		return KMSGSET_ENOMEM;
	k->out = nb;
	k->outcap = cap;
	return KMSGSET_OK;
}

static uint8_t *
field_put(uint8_t *p, const uint8_t *f, int32_t flen)
{
	be32_put(p, (uint32_t)flen);
	p += 4;
	if (flen > 0) {
		memcpy(p, f, (size_t)flen);
		p += flen;
	}
	return p;
}

/* One message of magic for record r at p (size bytes, checked by the caller). */
static void
msg_write(uint8_t *p, size_t size, int magic, int log_append,
    const struct record *r)
{
	uint8_t *q;

	be64_put(p, (uint64_t)r->offset);
	be32_put(p + 8, (uint32_t)(size - KMSGSET_LOG_OVERHEAD));
	p[16] = (uint8_t)magic;
	p[17] = magic == 1 && log_append ? KMSGSET_ATTR_LOG_APPEND : 0;
	q = p + 18;
	if (magic == 1) {
		be64_put(q, (uint64_t)r->timestamp);
		q += 8;
	}
	q = field_put(q, r->key, r->key_len);
	(void)field_put(q, r->value, r->value_len);
	be32_put(p + 12, (uint32_t)crc32(0L, p + 16, (uInt)(size - 16)));
}

int
kmsgset_from_batches(struct kmsgset *k, const uint8_t *batches,
    size_t len, int magic, int64_t start_offset, size_t max_bytes,
    int min_one, const uint8_t **out, struct kmsgset_fetch *res)
{
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	size_t pos, total, size, used = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	res->next_offset = -1;
	*out = NULL;
	if (magic != 0 && magic != 1)
		return KMSGSET_EARG;
	for (pos = 0; pos < len; pos += total) {
		/* A partial batch at the end is where the log read stopped. */
		rc = batch_parse_header(batches + pos, len - pos, &h);
		if (rc == BATCH_ESHORT)
			break;
		if (rc != BATCH_OK)
			return KMSGSET_EBATCH;
		total = batch_total_size(&h);
		if (total > len - pos)
			break;
		/* A log's offsets are not negative, and base + delta must
		   not overflow (here and in batch_iter_next). */
		if (h.base_offset < 0 || h.last_offset_delta < 0 ||
		    h.base_offset > INT64_MAX - h.last_offset_delta)
			return KMSGSET_EBATCH;
		if ((h.attributes & KMSGSET_BATCH_CONTROL) ||
		    h.base_offset + h.last_offset_delta < start_offset)
			continue;
		/* Each batch inflates alone: memory is one batch's worth. */
		k->z.limit = k->lim.inflate_limit;
		switch (batch_validate_z(batches + pos, total, &h, &k->z)) {
		case BATCH_OK:
			break;
		case BATCH_ETOOBIG:
			return KMSGSET_ELIMIT;
		case BATCH_ENOMEM:
			return KMSGSET_ENOMEM;
		default:
			return KMSGSET_EBATCH;
		}
		if (batch_iter_init_z(&it, batches + pos, total, &k->z) != 0)
			return KMSGSET_EBATCH;
		while ((rc = batch_iter_next(&it, &r)) == 1) {
			if (r.offset < start_offset)
				continue;
			/* A log's offsets only grow; an old client would
			   take anything else for a new message. */
			if (res->count > 0 && r.offset < res->next_offset)
				return KMSGSET_EBATCH;
			size = KMSGSET_LOG_OVERHEAD + (magic == 0 ?
			    KMSGSET_V0_OVERHEAD : KMSGSET_V1_OVERHEAD) +
			    (size_t)(r.key_len > 0 ? r.key_len : 0) +
			    (size_t)(r.value_len > 0 ? r.value_len : 0);
			/* used passes max_bytes only after a min_one message. */
			if ((used > max_bytes || size > max_bytes - used) &&
			    !(min_one && res->count == 0)) {
				res->truncated = 1;
				goto done;
			}
			if (size - KMSGSET_LOG_OVERHEAD > INT32_MAX)
				return KMSGSET_ELIMIT;
			if ((rc = out_reserve(k, used, size)) != KMSGSET_OK)
				return rc;
			msg_write(k->out + used, size, magic, it.log_append, &r);
			used += size;
			res->count++;
			res->next_offset = r.offset + 1;
		}
		if (rc != 0)
			return KMSGSET_EBATCH;
	}
done:
	res->len = used;
	/* Never NULL, even empty: memcpy(dst, *out, 0) stays defined. */
	*out = k->out != NULL ? k->out : (const uint8_t *)"";
	return KMSGSET_OK;
}

const char *
kmsgset_strerror(int err)
{
	switch (err) {
	case KMSGSET_OK:
		return "ok";
	case KMSGSET_ESHORT:
		return "message set truncated";
	case KMSGSET_ESIZE:
		return "message size does not match its fields";
	case KMSGSET_EMAGIC:
		return "message magic not 0 or 1, or unlike its wrapper's";
	case KMSGSET_ECRC:
		return "message CRC-32 mismatch";
	case KMSGSET_ECODEC:
		return "unknown compression codec for a legacy message";
	case KMSGSET_ENESTED:
		return "compressed message inside a compressed message";
	case KMSGSET_EINFLATE:
		return "compressed message corrupt or empty";
	case KMSGSET_ELIMIT:
		return "message set past the conversion limits";
	case KMSGSET_EEMPTY:
		return "empty message set";
	case KMSGSET_ETSTYPE:
		return "LogAppendTime and CreateTime mixed in one message set";
	case KMSGSET_EBATCH:
		return "stored record batch invalid";
	case KMSGSET_EARG:
		return "invalid argument";
	case KMSGSET_ENOMEM:
		return "out of memory";
	default:
		return "unknown error";
	}
}

int
kmsgset_codec(const uint8_t *set, size_t len)
{
	if (len < KMSGSET_LOG_OVERHEAD + KMSGSET_V0_OVERHEAD)
		return COMPRESS_NONE;
	return set[KMSGSET_LOG_OVERHEAD + 5] & KMSGSET_ATTR_CODEC_MASK;
}
