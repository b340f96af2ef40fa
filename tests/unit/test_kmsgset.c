/*
 * Legacy message sets (proto/kafka/kmsgset.h) against kafka-python's
 * bytes (tests/fixtures/kmsgset/, written by
 * tests/tools/kmsgset_capture.py): every fixture is read with the records
 * kafka-python reads from it, converted to the exact RecordBatch v2 the
 * builder makes from those records, and stored batches are converted
 * back to kafka-python's own encoding byte for byte.  Each error is
 * produced by a hand-made set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/kafka/kmsgset.h"
#include "tests/harness.h"

#define THIS_FILE	"tests/unit/test_kmsgset.c"
#define TS		1700000000000LL		/* the capture script's */
#define NOW		1800000000000LL		/* the broker's time */

static const struct kmsgset_limits lim = { 1 << 20, 1000 };

/* One record as kafka-python read it (NAME.txt). */
struct exp {
	int64_t	offset;
	int64_t	ts;		/* -1: none */
	uint8_t	key[16];
	int32_t	key_len;
	uint8_t	value[400];
	int32_t	value_len;
};

#define MAXREC	8

static const char *
srcdir(void)
{
	return test_srcdir(__FILE__, THIS_FILE);
}

static uint8_t *
fixture(const char *name, size_t *len)
{
	char path[1200];
	uint8_t *buf;

	snprintf(path, sizeof(path), "%s/tests/fixtures/kmsgset/%s.bin",
	    srcdir(), name);
	buf = test_slurp(path, len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	return buf;
}

static int32_t
hexfield(const char *s, uint8_t *out, size_t cap)
{
	size_t n, i;
	unsigned v;

	if (strcmp(s, "-") == 0)
		return -1;
	if (strcmp(s, "\"\"") == 0)
		return 0;
	n = strlen(s) / 2;
	CU_ASSERT_FATAL(n <= cap);
	for (i = 0; i < n; i++) {
		CU_ASSERT_FATAL(sscanf(s + 2 * i, "%2x", &v) == 1);
		out[i] = (uint8_t)v;
	}
	return (int32_t)n;
}

/* kafka-python's reading of fixture name: the number of records. */
static int
expected(const char *name, struct exp *e)
{
	char path[1200], ts[32], k[64], v[1024];
	long long off;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/tests/fixtures/kmsgset/%s.txt",
	    srcdir(), name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "r"));
	while (fscanf(f, "%lld %31s %63s %1023s", &off, ts, k, v) == 4) {
		CU_ASSERT_FATAL(n < MAXREC);
		e[n].offset = off;
		e[n].ts = strcmp(ts, "none") == 0 ? -1 : atoll(ts);
		e[n].key_len = hexfield(k, e[n].key, sizeof(e[n].key));
		e[n].value_len = hexfield(v, e[n].value, sizeof(e[n].value));
		n++;
	}
	fclose(f);
	return n;
}

static int
field_eq(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen)
{
	return alen == blen && (alen <= 0 || memcmp(a, b, (size_t)alen) == 0);
}

/*
 * Messages seen by a walk, keys and values copied: an inner message's
 * bytes last only until the next wrapper is inflated.
 */
struct seen {
	struct kmsgset_msg	m[MAXREC];
	uint8_t			key[MAXREC][16];
	uint8_t			value[MAXREC][400];
	int			n;
	int			stop_at;	/* return 99 at this one, or -1 */
	int			calls;
};

static int
seen_cb(const struct kmsgset_msg *m, void *arg)
{
	struct seen *s = arg;
	struct kmsgset_msg *c;

	s->calls++;
	if (s->n == s->stop_at)
		return 99;
	CU_ASSERT_FATAL(s->n < MAXREC);
	CU_ASSERT_FATAL(m->key_len <= 16 && m->value_len <= 400);
	c = &s->m[s->n];
	*c = *m;
	if (m->key_len > 0)
		c->key = memcpy(s->key[s->n], m->key, (size_t)m->key_len);
	if (m->value_len > 0)
		c->value = memcpy(s->value[s->n], m->value,
		    (size_t)m->value_len);
	s->n++;
	return 0;
}

static int
walk(struct kmsgset *k, const uint8_t *buf, size_t len, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->stop_at = -1;
	return kmsgset_walk(k, buf, len, seen_cb, s);
}

static const char *const produced[] = {
	"m0-none", "m0-gzip", "m0-snappy", "m0-snappy-raw", "m0-lz4",
	"m1-none", "m1-gzip", "m1-snappy", "m1-snappy-raw", "m1-lz4",
};

/*
 * Every fixture reads as kafka-python reads it: keys, values (null and
 * empty apart), timestamps, and offsets where kafka-python's are Kafka's
 * (its magic-1 wrapper has offset 0, so it leaves the relative offsets
 * alone where Kafka's rule gives -4..0; the fetched sets check that rule).
 */
static void
test_read_fixtures(void)
{
	static const char *const names[] = {
		"m0-none", "m0-gzip", "m0-snappy", "m0-snappy-raw", "m0-lz4",
		"m1-none", "m1-gzip", "m1-snappy", "m1-snappy-raw", "m1-lz4",
		"m0-fetched", "m1-fetched",
	};
	struct kmsgset *k = kmsgset_new(&lim);
	struct exp e[MAXREC];
	struct seen s;
	size_t i, len;
	uint8_t *buf;
	int n, j, wrapped;

	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		buf = fixture(names[i], &len);
		n = expected(names[i], e);
		CU_ASSERT_FATAL(n >= 5);
		CU_ASSERT_EQUAL(walk(k, buf, len, &s), KMSGSET_OK);
		CU_ASSERT_EQUAL_FATAL(s.n, n);
		wrapped = names[i][1] == '1' && strstr(names[i], "none") ==
		    NULL && strstr(names[i], "fetched") == NULL;
		for (j = 0; j < n; j++) {
			CU_ASSERT(field_eq(s.m[j].key, s.m[j].key_len,
			    e[j].key, e[j].key_len));
			CU_ASSERT(field_eq(s.m[j].value, s.m[j].value_len,
			    e[j].value, e[j].value_len));
			CU_ASSERT_EQUAL(s.m[j].timestamp, e[j].ts);
			CU_ASSERT_EQUAL(s.m[j].magic, names[i][1] - '0');
			CU_ASSERT_EQUAL(s.m[j].log_append, 0);
			if (wrapped) {
				CU_ASSERT_EQUAL(s.m[j].offset, j - (n - 1));
			} else {
				CU_ASSERT_EQUAL(s.m[j].offset, e[j].offset);
			}
		}
		free(buf);
	}
	kmsgset_free(k);
}

/* Exact values of one fixture, in case the .txt files and the code agree
   on something wrong. */
static void
test_read_exact(void)
{
	struct kmsgset *k = kmsgset_new(&lim);
	struct seen s;
	uint8_t *buf;
	size_t len;

	buf = fixture("m1-fetched", &len);
	CU_ASSERT_EQUAL_FATAL(walk(k, buf, len, &s), KMSGSET_OK);
	CU_ASSERT_EQUAL_FATAL(s.n, 6);
	CU_ASSERT_EQUAL(s.m[0].offset, 100);
	CU_ASSERT_EQUAL(s.m[0].timestamp, TS);
	CU_ASSERT(field_eq(s.m[0].key, s.m[0].key_len, (const uint8_t *)"k0", 2));
	CU_ASSERT(field_eq(s.m[0].value, s.m[0].value_len,
	    (const uint8_t *)"v0", 2));
	CU_ASSERT_EQUAL(s.m[1].key_len, -1);
	CU_ASSERT_PTR_NULL(s.m[1].key);
	CU_ASSERT_EQUAL(s.m[2].value_len, -1);
	CU_ASSERT_PTR_NULL(s.m[2].value);
	CU_ASSERT_EQUAL(s.m[3].key_len, 0);
	CU_ASSERT_EQUAL(s.m[3].value_len, 0);
	CU_ASSERT_EQUAL(s.m[3].offset, 103);
	CU_ASSERT_EQUAL(s.m[4].offset, 104);
	CU_ASSERT_EQUAL(s.m[4].value_len, 300);
	CU_ASSERT_EQUAL(s.m[4].timestamp, TS + 4);
	CU_ASSERT_EQUAL(s.m[5].offset, 105);
	CU_ASSERT_EQUAL(s.m[5].timestamp, TS + 9);
	/* The callback's nonzero return stops the walk with it, inside a
	   wrapper or not. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	CU_ASSERT_EQUAL(kmsgset_walk(k, buf, len, seen_cb, &s), 99);
	CU_ASSERT_EQUAL(s.n, 1);
	CU_ASSERT_EQUAL(s.calls, 2);
	memset(&s, 0, sizeof(s));
	s.stop_at = 5;
	CU_ASSERT_EQUAL(kmsgset_walk(k, buf, len, seen_cb, &s), 99);
	CU_ASSERT_EQUAL(s.calls, 6);
	free(buf);
	kmsgset_free(k);
}

/* KIP-57: kafka-python's magic-0 LZ4 frame has the old header checksum. */
static void
test_lz4_old_checksum(void)
{
	struct compress_buf z;
	uint8_t *buf;
	size_t len;

	buf = fixture("m0-lz4", &len);
	compress_buf_init(&z, 1 << 20);
	/* The value starts after 12 + crc, magic, attributes, (timestamp,)
	   key -1, value length. */
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_LZ4, buf + 26, len - 26, &z),
	    COMPRESS_ECORRUPT);
	/* ... which the converter repairs. */
	{
		struct kmsgset *k = kmsgset_new(&lim);
		struct seen s;

		CU_ASSERT_EQUAL(walk(k, buf, len, &s), KMSGSET_OK);
		CU_ASSERT_EQUAL(s.n, 5);
		kmsgset_free(k);
	}
	free(buf);
	buf = fixture("m1-lz4", &len);
	CU_ASSERT_EQUAL(compress_inflate(COMPRESS_LZ4, buf + 34, len - 34, &z),
	    COMPRESS_OK);
	free(buf);
	compress_buf_free(&z);
}

/* The batch the builder makes from records e[0..n) at timestamps ts[]. */
static void
builder_batch(struct batch_builder *b, const struct exp *e, int n,
    const int64_t *ts, const uint8_t **out, size_t *len)
{
	int i;

	batch_builder_init(b);
	for (i = 0; i < n; i++)
		CU_ASSERT_FATAL(batch_builder_add(b, ts[i],
		    e[i].key_len >= 0 ? e[i].key : NULL, e[i].key_len,
		    e[i].value_len >= 0 ? e[i].value : NULL, e[i].value_len,
		    NULL, 0) == 0);
	CU_ASSERT_FATAL(batch_builder_close(b, out, len) == 0);
}

/*
 * Produce: each fixture becomes exactly the uncompressed batch the
 * builder makes from kafka-python's records (magic 0 at the broker's
 * time), and reads back with offsets 0..n-1 and producer id -1.
 */
static void
test_to_batches(void)
{
	struct kmsgset *k = kmsgset_new(&lim);
	struct batch_builder b;
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	struct exp e[MAXREC];
	int64_t ts[MAXREC];
	const uint8_t *out, *want;
	size_t i, len, outlen, wantlen;
	uint8_t *buf;
	int n, j;

	for (i = 0; i < sizeof(produced) / sizeof(produced[0]); i++) {
		buf = fixture(produced[i], &len);
		n = expected(produced[i], e);
		for (j = 0; j < n; j++)
			ts[j] = e[j].ts == -1 ? NOW : e[j].ts;
		CU_ASSERT_EQUAL_FATAL(kmsgset_to_batches(k, buf, len, NOW, &out,
		    &outlen), KMSGSET_OK);
		builder_batch(&b, e, n, ts, &want, &wantlen);
		CU_ASSERT_EQUAL(outlen, wantlen);
		CU_ASSERT(outlen == wantlen && memcmp(out, want, outlen) == 0);
		batch_builder_free(&b);

		CU_ASSERT_EQUAL_FATAL(batch_validate(out, outlen, &h), BATCH_OK);
		CU_ASSERT_EQUAL(h.magic, 2);
		CU_ASSERT_EQUAL(h.attributes, 0);
		CU_ASSERT_EQUAL(h.producer_id, -1);
		CU_ASSERT_EQUAL(h.base_offset, 0);
		CU_ASSERT_EQUAL(h.records_count, n);
		CU_ASSERT_EQUAL(h.last_offset_delta, n - 1);
		CU_ASSERT_EQUAL_FATAL(batch_iter_init(&it, out, outlen), 0);
		for (j = 0; batch_iter_next(&it, &r) == 1; j++) {
			CU_ASSERT_EQUAL(r.offset, j);
			CU_ASSERT_EQUAL(r.timestamp, produced[i][1] == '0' ? NOW :
			    TS + j);
			CU_ASSERT(field_eq(r.key, r.key_len, e[j].key,
			    e[j].key_len));
			CU_ASSERT(field_eq(r.value, r.value_len, e[j].value,
			    e[j].value_len));
			CU_ASSERT_EQUAL(r.header_count, 0);
		}
		CU_ASSERT_EQUAL(j, n);
		free(buf);
	}
	kmsgset_free(k);
}

/* A hand-made message: its CRC right unless crc_adjust. */
struct w {
	uint8_t	buf[8192];
	size_t	len;
};

static void
w_msg(struct w *w, int64_t offset, int magic, int attributes, int64_t ts,
    const char *key, const void *value, int32_t value_len, uint32_t crc_adjust)
{
	uint8_t *p = w->buf + w->len, *q;
	int32_t klen = key ? (int32_t)strlen(key) : -1;
	size_t size;

	size = 12 + (magic == 1 ? 22 : 14) + (klen > 0 ? (size_t)klen : 0) +
	    (value_len > 0 ? (size_t)value_len : 0);
	CU_ASSERT_FATAL(w->len + size <= sizeof(w->buf));
	be64_put(p, (uint64_t)offset);
	be32_put(p + 8, (uint32_t)(size - 12));
	p[16] = (uint8_t)magic;
	p[17] = (uint8_t)attributes;
	q = p + 18;
	if (magic == 1) {
		be64_put(q, (uint64_t)ts);
		q += 8;
	}
	be32_put(q, (uint32_t)klen);
	q += 4;
	if (klen > 0) {
		memcpy(q, key, (size_t)klen);
		q += klen;
	}
	be32_put(q, (uint32_t)value_len);
	q += 4;
	if (value_len > 0)
		memcpy(q, value, (size_t)value_len);
	be32_put(p + 12, (uint32_t)crc32(0L, p + 16, (uInt)(size - 16)) +
	    crc_adjust);
	w->len += size;
}

/* A wrapper around inner[0..len) compressed with codec. */
static void
w_wrap(struct w *w, int64_t offset, int magic, int codec, int extra_attr,
    const uint8_t *inner, size_t len)
{
	struct compress_buf z;

	compress_buf_init(&z, 0);
	CU_ASSERT_FATAL(compress_deflate(codec, inner, len, &z) == COMPRESS_OK);
	w_msg(w, offset, magic, codec | extra_attr, TS + 50, NULL, z.buf,
	    (int32_t)z.len, 0);
	compress_buf_free(&z);
}

/* Re-CRC the message at p after its bytes were edited. */
static void
recrc(uint8_t *p)
{
	size_t size = be32_get(p + 8);

	be32_put(p + 12, (uint32_t)crc32(0L, p + 16, (uInt)(size - 4)));
}

static int
to_batch(struct kmsgset *k, const struct w *w)
{
	const uint8_t *out;
	size_t outlen;

	return kmsgset_to_batches(k, w->buf, w->len, NOW, &out, &outlen);
}

/* LogAppendTime is kept; mixed with CreateTime is refused. */
static void
test_log_append_time(void)
{
	struct kmsgset *k = kmsgset_new(&lim);
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	const uint8_t *out;
	size_t outlen;
	struct w w, inner;
	struct seen s;

	w.len = inner.len = 0;
	w_msg(&inner, 0, 1, 0, TS, "a", "1", 1, 0);
	w_msg(&inner, 1, 1, 0, TS + 1, "b", "2", 1, 0);
	w_wrap(&w, 7, 1, COMPRESS_GZIP, KMSGSET_ATTR_LOG_APPEND, inner.buf,
	    inner.len);
	CU_ASSERT_EQUAL_FATAL(walk(k, w.buf, w.len, &s), KMSGSET_OK);
	CU_ASSERT_EQUAL_FATAL(s.n, 2);
	CU_ASSERT_EQUAL(s.m[0].timestamp, TS + 50);
	CU_ASSERT_EQUAL(s.m[1].timestamp, TS + 50);
	CU_ASSERT_EQUAL(s.m[0].log_append, 1);
	CU_ASSERT_EQUAL(s.m[0].offset, 6);
	CU_ASSERT_EQUAL(s.m[1].offset, 7);
	CU_ASSERT_EQUAL_FATAL(kmsgset_to_batches(k, w.buf, w.len, NOW, &out,
	    &outlen), KMSGSET_OK);
	CU_ASSERT_EQUAL_FATAL(batch_validate(out, outlen, &h), BATCH_OK);
	CU_ASSERT_EQUAL(h.attributes, BATCH_ATTR_LOG_APPEND_TIME);
	CU_ASSERT_EQUAL(h.max_timestamp, TS + 50);
	CU_ASSERT_EQUAL_FATAL(batch_iter_init(&it, out, outlen), 0);
	CU_ASSERT_EQUAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.timestamp, TS + 50);

	w_msg(&w, 8, 1, 0, TS + 60, "c", "3", 1, 0);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ETSTYPE);
	kmsgset_free(k);
}

/* Every error from a hand-made set, exactly. */
static void
test_errors(void)
{
	struct kmsgset_limits small = { 64, 3 };
	struct kmsgset *k = kmsgset_new(&lim), *ks = kmsgset_new(&small);
	struct w w, inner, wrap;
	uint8_t big[200];
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ks);
	/* Good, as a baseline. */
	w.len = 0;
	w_msg(&w, 0, 1, 0, TS, "k", "v", 1, 0);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_OK);
	/* Wrong CRC. */
	w.len = 0;
	w_msg(&w, 0, 1, 0, TS, "k", "v", 1, 1);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ECRC);
	/* Every truncation of a good two-message set. */
	w.len = 0;
	w_msg(&w, 0, 0, 0, -1, "k", "v", 1, 0);
	w_msg(&w, 1, 1, 0, TS, "key", "value", 5, 0);
	for (i = 0; i < w.len; i++) {
		const uint8_t *out;
		size_t outlen;

		CU_ASSERT_EQUAL(kmsgset_to_batches(k, w.buf, i, NOW, &out,
		    &outlen), i == 0 ? KMSGSET_EEMPTY : i == 12 + 14 + 2 ?
		    KMSGSET_OK : KMSGSET_ESHORT);
	}
	/* Size below the minimum; key and value not filling it. */
	w.len = 0;
	w_msg(&w, 0, 1, 0, TS, "k", "v", 1, 0);
	be32_put(w.buf + 8, 21);
	w.len = 12 + 21;
	recrc(w.buf);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ESIZE);
	w.len = 0;
	w_msg(&w, 0, 1, 0, TS, "k", "v", 1, 0);
	be32_put(w.buf + 26, 5);	/* key length past the message */
	recrc(w.buf);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ESIZE);
	w.len = 0;
	w_msg(&w, 0, 1, 0, TS, "k", "vv", 2, 0);
	be32_put(w.buf + 31, 1);	/* value one byte short of the end */
	recrc(w.buf);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ESIZE);
	w.len = 0;
	w_msg(&w, 0, 1, 0, TS, "k", "v", 1, 0);
	be32_put(w.buf + 8, 0xffffffffU);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ESIZE);
	/* Magic 2 in a legacy set. */
	w.len = 0;
	w_msg(&w, 0, 1, 0, TS, "k", "v", 1, 0);
	w.buf[16] = 2;
	recrc(w.buf);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_EMAGIC);
	/* Codec 4 (zstd exists only in magic 2) and 7. */
	w.len = 0;
	w_msg(&w, 0, 1, 4, TS, NULL, "zz", 2, 0);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ECODEC);
	w.len = 0;
	w_msg(&w, 0, 0, 7, TS, NULL, "zz", 2, 0);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ECODEC);
	/* Double-nested: a gzip wrapper holding a gzip wrapper. */
	inner.len = wrap.len = w.len = 0;
	w_msg(&inner, 0, 1, 0, TS, "k", "v", 1, 0);
	w_wrap(&wrap, 0, 1, COMPRESS_GZIP, 0, inner.buf, inner.len);
	w_wrap(&w, 0, 1, COMPRESS_SNAPPY, 0, wrap.buf, wrap.len);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ENESTED);
	/* An inner message of another magic than its wrapper. */
	inner.len = w.len = 0;
	w_msg(&inner, 0, 0, 0, -1, "k", "v", 1, 0);
	w_wrap(&w, 0, 1, COMPRESS_GZIP, 0, inner.buf, inner.len);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_EMAGIC);
	/* A truncated inner set (its wrapper's CRC right). */
	inner.len = w.len = 0;
	w_msg(&inner, 0, 1, 0, TS, "k", "v", 1, 0);
	w_msg(&inner, 1, 1, 0, TS, "k", "v", 1, 0);
	w_wrap(&w, 1, 1, COMPRESS_LZ4, 0, inner.buf, inner.len - 3);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ESHORT);
	/* A bad CRC inside a wrapper. */
	inner.len = w.len = 0;
	w_msg(&inner, 0, 1, 0, TS, "k", "v", 1, 5);
	w_wrap(&w, 0, 1, COMPRESS_GZIP, 0, inner.buf, inner.len);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_ECRC);
	/* Wrapper values: null, garbage, inflating to nothing. */
	w.len = 0;
	w_msg(&w, 0, 1, COMPRESS_GZIP, TS, NULL, NULL, -1, 0);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_EINFLATE);
	w.len = 0;
	w_msg(&w, 0, 1, COMPRESS_GZIP, TS, NULL, "garbage", 7, 0);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_EINFLATE);
	w.len = 0;
	w_wrap(&w, 0, 1, COMPRESS_GZIP, 0, (const uint8_t *)"", 0);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_EINFLATE);
	/* Oversized: past the inflate limit (64), then past max_records (3). */
	memset(big, 'x', sizeof(big));
	inner.len = w.len = 0;
	w_msg(&inner, 0, 1, 0, TS, "k", big, sizeof(big), 0);
	w_wrap(&w, 0, 1, COMPRESS_GZIP, 0, inner.buf, inner.len);
	CU_ASSERT_EQUAL(to_batch(ks, &w), KMSGSET_ELIMIT);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_OK);
	/* Two wrappers of 45 bytes each: each fits 64, together they do not. */
	inner.len = w.len = 0;
	w_msg(&inner, 0, 1, 0, TS, "k", "0123456789", 10, 0);
	w_wrap(&w, 0, 1, COMPRESS_GZIP, 0, inner.buf, inner.len);
	CU_ASSERT_EQUAL(inner.len, 45);
	CU_ASSERT_EQUAL(to_batch(ks, &w), KMSGSET_OK);
	w_wrap(&w, 1, 1, COMPRESS_GZIP, 0, inner.buf, inner.len);
	CU_ASSERT_EQUAL(to_batch(ks, &w), KMSGSET_ELIMIT);
	w.len = 0;
	for (i = 0; i < 3; i++)
		w_msg(&w, (int64_t)i, 0, 0, -1, "k", "v", 1, 0);
	CU_ASSERT_EQUAL(to_batch(ks, &w), KMSGSET_OK);
	w_msg(&w, 3, 0, 0, -1, "k", "v", 1, 0);
	CU_ASSERT_EQUAL(to_batch(ks, &w), KMSGSET_ELIMIT);
	inner.len = w.len = 0;
	for (i = 0; i < 4; i++)
		w_msg(&inner, (int64_t)i, 0, 0, -1, NULL, "v", 1, 0);
	w_wrap(&w, 3, 0, COMPRESS_SNAPPY, 0, inner.buf, inner.len);
	CU_ASSERT_EQUAL(to_batch(ks, &w), KMSGSET_ELIMIT);
	CU_ASSERT_EQUAL(to_batch(k, &w), KMSGSET_OK);
	/* Limits out of range. */
	small.inflate_limit = COMPRESS_LIMIT_MAX + 1;
	CU_ASSERT_PTR_NULL(kmsgset_new(&small));
	small.inflate_limit = 0;
	small.max_records = 0;
	CU_ASSERT_PTR_NULL(kmsgset_new(&small));
	CU_ASSERT_STRING_EQUAL(kmsgset_strerror(KMSGSET_ENESTED),
	    "compressed message inside a compressed message");
	kmsgset_free(k);
	kmsgset_free(ks);
}

/* Stored batches with RECORDS at 100..104, as the capture script has them. */
static void
stored_batch(struct batch_builder *b, int codec, const uint8_t **out,
    size_t *len)
{
	static const struct record_header hdr = {
		(const uint8_t *)"h", 1, (const uint8_t *)"dropped", 7 };
	struct exp e[MAXREC];
	int i, n = expected("fetch-m1", e);

	batch_builder_init(b);
	for (i = 0; i < n; i++)
		CU_ASSERT_FATAL(batch_builder_add(b, e[i].ts,
		    e[i].key_len >= 0 ? e[i].key : NULL, e[i].key_len,
		    e[i].value_len >= 0 ? e[i].value : NULL, e[i].value_len,
		    &hdr, i % 2) == 0);
	CU_ASSERT_FATAL(batch_builder_close_codec(b, codec, out, len) == 0);
	batch_set_base_offset((uint8_t *)(uintptr_t)*out, 100);
}

/*
 * Fetch: stored batches (any codec; headers dropped) become exactly
 * kafka-python's magic-0 and magic-1 encoding of the same records.
 */
static void
test_from_batches_exact(void)
{
	static const int codecs[] = { COMPRESS_NONE, COMPRESS_GZIP,
	    COMPRESS_SNAPPY, COMPRESS_LZ4, COMPRESS_ZSTD };
	struct kmsgset *k = kmsgset_new(&lim);
	struct kmsgset_fetch res;
	struct batch_builder b;
	const uint8_t *batch, *out;
	uint8_t *want;
	size_t blen, wantlen, i;
	int magic;

	for (i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
		stored_batch(&b, codecs[i], &batch, &blen);
		for (magic = 0; magic <= 1; magic++) {
			want = fixture(magic ? "fetch-m1" : "fetch-m0", &wantlen);
			CU_ASSERT_EQUAL_FATAL(kmsgset_from_batches(k, batch, blen,
			    magic, 0, SIZE_MAX, 0, &out, &res), KMSGSET_OK);
			CU_ASSERT_EQUAL(res.count, 5);
			CU_ASSERT_EQUAL(res.next_offset, 105);
			CU_ASSERT_EQUAL(res.truncated, 0);
			CU_ASSERT_EQUAL(res.len, wantlen);
			CU_ASSERT(res.len == wantlen &&
			    memcmp(out, want, wantlen) == 0);
			free(want);
		}
		batch_builder_free(&b);
	}
	kmsgset_free(k);
}

/*
 * Fetch bounds: every max_bytes gives the longest whole-message prefix;
 * start_offset skips; control batches are skipped; LogAppendTime kept;
 * a bad stored batch is refused; a trailing partial batch ends the input.
 */
static void
test_from_batches_bounds(void)
{
	struct kmsgset_limits small = { 100, 10 };
	struct kmsgset *k = kmsgset_new(&lim), *ks = kmsgset_new(&small);
	size_t ends[6], blen, wantlen, max, i, two;
	struct kmsgset_fetch res;
	struct batch_builder b, c;
	const uint8_t *batch, *ctl, *out;
	uint8_t *want, *buf;
	struct seen s;

	stored_batch(&b, COMPRESS_NONE, &batch, &blen);
	want = fixture("fetch-m0", &wantlen);
	/* Message ends in kafka-python's encoding. */
	ends[0] = 0;
	for (i = 1; i <= 5; i++)
		ends[i] = ends[i - 1] + 12 + be32_get(want + ends[i - 1] + 8);
	CU_ASSERT_EQUAL_FATAL(ends[5], wantlen);
	for (max = 0; max <= wantlen + 1; max++) {
		size_t fit = 0;

		while (fit < 5 && ends[fit + 1] <= max)
			fit++;
		CU_ASSERT_EQUAL_FATAL(kmsgset_from_batches(k, batch, blen, 0, 0,
		    max, 0, &out, &res), KMSGSET_OK);
		CU_ASSERT_EQUAL(res.len, ends[fit]);
		CU_ASSERT_EQUAL(res.count, (int32_t)fit);
		CU_ASSERT_EQUAL(res.truncated, fit < 5);
		CU_ASSERT_EQUAL(res.next_offset, fit ? 100 + (int64_t)fit : -1);
		CU_ASSERT(memcmp(out, want, res.len) == 0);
	}
	/* min_one (KIP-74): the first message even past max_bytes, no more. */
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, batch, blen, 0, 0, 1, 1, &out,
	    &res), KMSGSET_OK);
	CU_ASSERT_EQUAL(res.len, ends[1]);
	CU_ASSERT_EQUAL(res.count, 1);
	CU_ASSERT_EQUAL(res.truncated, 1);
	/* start_offset inside the batch. */
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, batch, blen, 0, 103, SIZE_MAX,
	    0, &out, &res), KMSGSET_OK);
	CU_ASSERT_EQUAL(res.count, 2);
	CU_ASSERT(res.len == wantlen - ends[3] &&
	    memcmp(out, want + ends[3], res.len) == 0);
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, batch, blen, 0, 105, SIZE_MAX,
	    0, &out, &res), KMSGSET_OK);
	CU_ASSERT_EQUAL(res.count, 0);
	CU_ASSERT_EQUAL(res.len, 0);

	/* A control batch, then the data batch, then a partial batch. */
	batch_builder_init(&c);
	CU_ASSERT_FATAL(batch_builder_add(&c, TS, "\0\0\0\0", 4, "\0\0\0\0\0\0",
	    6, NULL, 0) == 0);
	CU_ASSERT_FATAL(batch_builder_close(&c, &ctl, &two) == 0);
	CU_ASSERT_FATAL((buf = malloc(two + 2 * blen)) != NULL);
	memcpy(buf, ctl, two);
	be16_put(buf + BATCH_OFF_ATTRIBUTES, 0x20 | 0x10);
	batch_header_recrc(buf, two, c.records_crc);
	batch_set_base_offset(buf, 99);
	memcpy(buf + two, batch, blen);
	memcpy(buf + two + blen, batch, two - 1);
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, buf, 2 * two + blen - 1, 0, 0,
	    SIZE_MAX, 0, &out, &res), KMSGSET_OK);
	CU_ASSERT(res.len == wantlen && memcmp(out, want, wantlen) == 0);
	/* The data batch twice: offsets going back are refused. */
	memcpy(buf + two + blen, batch, blen);
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, buf, two + 2 * blen, 0, 0,
	    SIZE_MAX, 0, &out, &res), KMSGSET_EBATCH);
	/* Offsets past INT64_MAX, or negative: refused, never wrapped. */
	batch_set_base_offset(buf + two + blen, INT64_MAX - 2);
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, buf + two + blen, blen, 0, 0,
	    SIZE_MAX, 0, &out, &res), KMSGSET_EBATCH);
	batch_set_base_offset(buf + two + blen, -5);
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, buf + two + blen, blen, 0, 0,
	    SIZE_MAX, 0, &out, &res), KMSGSET_EBATCH);
	/* The same with a data batch's CRC broken. */
	buf[two + blen - 1] ^= 1;
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, buf, two + blen, 0, 0,
	    SIZE_MAX, 0, &out, &res), KMSGSET_EBATCH);
	free(buf);
	batch_builder_free(&c);
	/* LogAppendTime: every message has the batch's time and the bit. */
	CU_ASSERT_FATAL((buf = malloc(blen)) != NULL);
	memcpy(buf, batch, blen);
	batch_set_log_append_time(buf, blen, NOW);
	CU_ASSERT_EQUAL_FATAL(kmsgset_from_batches(k, buf, blen, 1, 0,
	    SIZE_MAX, 0, &out, &res), KMSGSET_OK);
	CU_ASSERT_EQUAL(out[17], KMSGSET_ATTR_LOG_APPEND);
	CU_ASSERT_EQUAL(walk(k, out, res.len, &s), KMSGSET_OK);
	CU_ASSERT_EQUAL(s.n, 5);
	CU_ASSERT_EQUAL(s.m[4].timestamp, NOW);
	CU_ASSERT_EQUAL(s.m[4].log_append, 1);
	free(buf);
	batch_builder_free(&b);
	/* A compressed batch inflating past the limit; a wrong magic. */
	stored_batch(&b, COMPRESS_GZIP, &batch, &blen);
	CU_ASSERT_EQUAL(kmsgset_from_batches(ks, batch, blen, 1, 0, SIZE_MAX,
	    0, &out, &res), KMSGSET_ELIMIT);
	CU_ASSERT_EQUAL(kmsgset_from_batches(k, batch, blen, 2, 0, SIZE_MAX,
	    0, &out, &res), KMSGSET_EARG);
	batch_builder_free(&b);
	free(want);
	kmsgset_free(k);
	kmsgset_free(ks);
}

/*
 * Round trip: each produced fixture to a batch, stored at 100, fetched as
 * magic 0 and 1, read back: the same keys and values, offsets 100..,
 * timestamps kept in magic 1.
 */
static void
test_round_trip(void)
{
	struct kmsgset *k = kmsgset_new(&lim), *k2 = kmsgset_new(&lim);
	struct kmsgset_fetch res;
	struct exp e[MAXREC];
	const uint8_t *batch, *out;
	uint8_t *buf, *stored;
	size_t i, len, blen;
	struct seen s;
	int n, j, magic;

	for (i = 0; i < sizeof(produced) / sizeof(produced[0]); i++) {
		buf = fixture(produced[i], &len);
		n = expected(produced[i], e);
		CU_ASSERT_EQUAL_FATAL(kmsgset_to_batches(k, buf, len, NOW,
		    &batch, &blen), KMSGSET_OK);
		CU_ASSERT_FATAL((stored = malloc(blen)) != NULL);
		memcpy(stored, batch, blen);
		batch_set_base_offset(stored, 100);
		for (magic = 0; magic <= 1; magic++) {
			CU_ASSERT_EQUAL_FATAL(kmsgset_from_batches(k2, stored,
			    blen, magic, 0, SIZE_MAX, 0, &out, &res),
			    KMSGSET_OK);
			CU_ASSERT_EQUAL_FATAL(walk(k, out, res.len, &s),
			    KMSGSET_OK);
			CU_ASSERT_EQUAL_FATAL(s.n, n);
			for (j = 0; j < n; j++) {
				CU_ASSERT_EQUAL(s.m[j].offset, 100 + j);
				CU_ASSERT_EQUAL(s.m[j].magic, magic);
				CU_ASSERT_EQUAL(s.m[j].timestamp, magic == 0 ?
				    -1 : e[j].ts == -1 ? NOW : e[j].ts);
				CU_ASSERT(field_eq(s.m[j].key, s.m[j].key_len,
				    e[j].key, e[j].key_len));
				CU_ASSERT(field_eq(s.m[j].value,
				    s.m[j].value_len, e[j].value,
				    e[j].value_len));
			}
		}
		free(stored);
		free(buf);
	}
	kmsgset_free(k);
	kmsgset_free(k2);
}

/* Every single flipped byte of a good compressed set is refused. */
static void
test_flip_every_byte(void)
{
	struct kmsgset *k = kmsgset_new(&lim);
	const uint8_t *out;
	size_t i, len, outlen;
	uint8_t *buf;
	int rc;

	buf = fixture("m1-gzip", &len);
	/* Bytes 0-7 are the offset, which nothing checks; a flipped size
	   or magic (8-16) is refused before the CRC is. */
	for (i = 8; i < len; i++) {
		buf[i] ^= 0x40;
		rc = kmsgset_to_batches(k, buf, len, NOW, &out, &outlen);
		CU_ASSERT(rc != KMSGSET_OK);
		if (i > 16) {
			CU_ASSERT_EQUAL(rc, KMSGSET_ECRC);
		}
		buf[i] ^= 0x40;
	}
	free(buf);
	kmsgset_free(k);
}

/*
 * kmsgset_to_batches_codec: each produced fixture as one batch compressed
 * with its own codec (kmsgset_codec), exactly the builder's batch of the
 * same records closed with that codec; zstd (not a legacy codec) is
 * KMSGSET_EARG.
 */
static void
test_to_batches_codec(void)
{
	struct kmsgset *k = kmsgset_new(&lim);
	struct batch_builder b;
	struct batch_header h;
	struct compress_buf z;
	struct exp e[MAXREC];
	int64_t ts[MAXREC];
	const uint8_t *out, *want;
	size_t i, len, outlen, wantlen;
	uint8_t *buf;
	int n, j, codec;

	compress_buf_init(&z, 1 << 20);
	for (i = 0; i < sizeof(produced) / sizeof(produced[0]); i++) {
		buf = fixture(produced[i], &len);
		n = expected(produced[i], e);
		for (j = 0; j < n; j++)
			ts[j] = e[j].ts == -1 ? NOW : e[j].ts;
		codec = kmsgset_codec(buf, len);
		CU_ASSERT_EQUAL(codec, strstr(produced[i], "gzip") ?
		    COMPRESS_GZIP : strstr(produced[i], "snappy") ?
		    COMPRESS_SNAPPY : strstr(produced[i], "lz4") ?
		    COMPRESS_LZ4 : COMPRESS_NONE);
		CU_ASSERT_EQUAL_FATAL(kmsgset_to_batches_codec(k, buf, len, NOW,
		    codec, &out, &outlen), KMSGSET_OK);
		CU_ASSERT_EQUAL_FATAL(batch_validate_z(out, outlen, &h, &z),
		    BATCH_OK);
		CU_ASSERT_EQUAL(h.attributes & 7, codec);
		CU_ASSERT_EQUAL(h.records_count, n);
		/* The builder's own batch of those records with that codec. */
		batch_builder_init(&b);
		for (j = 0; j < n; j++)
			CU_ASSERT_FATAL(batch_builder_add(&b, ts[j],
			    e[j].key_len < 0 ? NULL : e[j].key, e[j].key_len,
			    e[j].value_len < 0 ? NULL : e[j].value,
			    e[j].value_len, NULL, 0) == 0);
		CU_ASSERT_FATAL(batch_builder_close_codec(&b, codec, &want,
		    &wantlen) == 0);
		CU_ASSERT(outlen == wantlen && memcmp(out, want, outlen) == 0);
		batch_builder_free(&b);
		CU_ASSERT_EQUAL(kmsgset_to_batches_codec(k, buf, len, NOW,
		    COMPRESS_ZSTD, &out, &outlen), KMSGSET_EARG);
		free(buf);
	}
	compress_buf_free(&z);
	kmsgset_free(k);
}

TEST_SUITE("kmsgset", NULL, NULL,
    { "kafka-python's message sets read", test_read_fixtures },
    { "exact values of a fetched magic-1 set", test_read_exact },
    { "LZ4 with the old header checksum (KIP-57)", test_lz4_old_checksum },
    { "produce: the exact RecordBatch v2", test_to_batches },
    { "produce: kept compressed with the producer's codec",
	test_to_batches_codec },
    { "LogAppendTime kept, mixing refused", test_log_append_time },
    { "every error exactly", test_errors },
    { "fetch: kafka-python's exact bytes from any codec",
	test_from_batches_exact },
    { "fetch: max_bytes, offsets, control and bad batches",
	test_from_batches_bounds },
    { "round trip through both conversions", test_round_trip },
    { "every flipped byte refused", test_flip_every_byte });
