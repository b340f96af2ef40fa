/*
 * libFuzzer target: legacy message sets (proto/kafka/kmsgset.h) both
 * ways, with small limits (64 KiB inflated, 1000 records, fetches of at
 * most 4 KiB).  Input byte 0 chooses:
 *   bit 0  0: the rest is a Produce message set; 1: stored v2 batches
 *   bit 1  patch the CRCs (CRC-32 of each top-level message, CRC-32C of
 *          each batch) so the fuzzer gets past them
 *   bit 2  the magic a fetch writes (0 or 1)
 *   bit 3  min_one
 * byte 1 is the fetch's max_bytes in units of 16 and byte 2 its start
 * offset.  A message set that converts must give a valid batch with as
 * many records as the walk saw, and converting that batch back (both
 * magics) must give the same keys and values; a fetch's output must be
 * whole messages, within max_bytes (one message past it with min_one),
 * at offsets at or after the start and increasing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/crc32c.h"
#include "proto/kafka/kmsgset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct kmsgset_limits fz_lim = { 64 * 1024, 1000 };

/* What a walk saw: a count, a hash of keys and values, the offsets. */
struct sum {
	int32_t		n;
	uint64_t	h;
	int64_t		last;
	int		unordered;
};

static uint64_t
fnv(uint64_t h, const uint8_t *p, int32_t len)
{
	int32_t i;

	h = (h ^ (uint64_t)(uint32_t)len) * 1099511628211ULL;
	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static int
sum_cb(const struct kmsgset_msg *m, void *arg)
{
	struct sum *s = arg;

	if ((m->key_len < -1 || (m->key_len >= 0 && m->key == NULL)) ||
	    (m->value_len < -1 || (m->value_len >= 0 && m->value == NULL)))
		abort();
	s->h = fnv(s->h, m->key, m->key_len);
	s->h = fnv(s->h, m->value, m->value_len);
	if (s->n > 0 && m->offset <= s->last)
		s->unordered = 1;
	s->last = m->offset;
	s->n++;
	return 0;
}

static void
produce(struct kmsgset *k, struct kmsgset *k2, uint8_t *b, size_t n,
    int fix)
{
	struct kmsgset_fetch res;
	struct batch_header h;
	struct sum a, c;
	const uint8_t *out, *set;
	uint8_t *copy;
	size_t pos, outlen, sz;
	int magic;

	/* Patch every top-level message's CRC-32 as its size says. */
	for (pos = 0; fix && n - pos >= 17; pos += 12 + sz) {
		sz = be32_get(b + pos + 8);
		if (sz < 5 || sz > n - pos - 12)
			break;
		be32_put(b + pos + 12, (uint32_t)crc32(0L, b + pos + 16,
		    (uInt)(sz - 4)));
	}
	memset(&a, 0, sizeof(a));
	if (kmsgset_walk(k, b, n, sum_cb, &a) != KMSGSET_OK)
		return;
	if (kmsgset_to_batches(k, b, n, 1234, &out, &outlen) != KMSGSET_OK)
		return;		/* e.g. mixed timestamp types */
	if (batch_validate(out, outlen, &h) != BATCH_OK ||
	    h.records_count != a.n || h.producer_id != -1)
		abort();
	if ((copy = malloc(outlen)) == NULL)
		return;
	memcpy(copy, out, outlen);
	for (magic = 0; magic <= 1; magic++) {
		if (kmsgset_from_batches(k2, copy, outlen, magic, 0, SIZE_MAX, 0,
		    &set, &res) != KMSGSET_OK || res.count != a.n)
			abort();
		memset(&c, 0, sizeof(c));
		if (kmsgset_walk(k, set, res.len, sum_cb, &c) != KMSGSET_OK ||
		    c.n != a.n || c.h != a.h || c.unordered || c.last != a.n - 1)
			abort();
	}
	free(copy);
}

static void
fetch(struct kmsgset *k, struct kmsgset *k2, uint8_t *b, size_t n,
    int fix, int magic, size_t max_bytes, int64_t start, int min_one)
{
	struct batch_header h;
	struct kmsgset_fetch res;
	struct sum c;
	const uint8_t *out;
	size_t pos, total;
	uint8_t *copy;

	for (pos = 0; fix && batch_parse_header(b + pos, n - pos, &h) ==
	    BATCH_OK; pos += total) {
		total = batch_total_size(&h);
		if (total > n - pos)
			break;
		be32_put(b + pos + BATCH_OFF_CRC, crc32c(0, b + pos +
		    BATCH_CRC_START, total - BATCH_CRC_START));
	}
	if (kmsgset_from_batches(k, b, n, magic, start, max_bytes, min_one,
	    &out, &res) != KMSGSET_OK)
		return;
	if (res.count < 0 || (res.len > max_bytes && !(min_one &&
	    res.count == 1)) || (res.count == 0) != (res.len == 0))
		abort();
	if (res.len == 0)
		return;
	/* The output must read back whole (copied: walk reuses k2 only). */
	if ((copy = malloc(res.len)) == NULL)
		return;
	memcpy(copy, out, res.len);
	memset(&c, 0, sizeof(c));
	c.last = -1;
	if (kmsgset_walk(k2, copy, res.len, sum_cb, &c) != KMSGSET_OK ||
	    c.n != res.count || c.unordered || c.last + 1 != res.next_offset)
		abort();
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kmsgset *k, *k2;
	uint8_t *b;
	size_t n;

	if (size < 3)
		return 0;
	if (k == NULL && ((k = kmsgset_new(&fz_lim)) == NULL ||
	    (k2 = kmsgset_new(&fz_lim)) == NULL))
		abort();
	n = size - 3;
	if ((b = malloc(n ? n : 1)) == NULL)
		return 0;
	memcpy(b, data + 3, n);
	if ((data[0] & 1) == 0)
		produce(k, k2, b, n, data[0] & 2);
	else
		fetch(k, k2, b, n, data[0] & 2, (data[0] >> 2) & 1,
		    (size_t)data[1] * 16, data[2], (data[0] >> 3) & 1);
	free(b);
	return 0;
}
