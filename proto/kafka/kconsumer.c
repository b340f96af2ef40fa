/*
 * Kafka's consumer protocol (kconsumer.h).
 */
#include <string.h>

#include "proto/kafka/kconsumer.h"
#include "proto/wire.h"

int
kconsumer_subscription_topics(const uint8_t *p, size_t len,
    int (*fn)(const char *, size_t, void *), void *arg)
{
	struct rbuf rb;
	const char *name;
	size_t nlen;
	int32_t i, nt;

	rbuf_init(&rb, p, len);
	(void)rbuf_i16(&rb);		/* the consumer protocol's version */
	nt = rbuf_count(&rb, 2);
	for (i = 0; i < nt && !rb.err; i++) {
		name = rbuf_str(&rb, &nlen);
		if (!rb.err && fn(name, nlen, arg) != 0)
			return 0;
	}
	return rb.err ? -1 : 0;
}

/* [topic str [partition i32]] from rb: fn for each; 0, or -1 torn. */
static int
topic_parts(struct rbuf *rb, int (*fn)(const char *, size_t, int32_t, void *),
    void *arg)
{
	const char *name;
	size_t nlen;
	int32_t i, j, nt, np, part;

	nt = rbuf_count(rb, 6);
	for (i = 0; i < nt && !rb->err; i++) {
		name = rbuf_str(rb, &nlen);
		np = rbuf_count(rb, 4);
		for (j = 0; j < np && !rb->err; j++) {
			part = rbuf_i32(rb);
			if (!rb->err && fn(name, nlen, part, arg) != 0)
				return 0;
		}
	}
	return rb->err ? -1 : 0;
}

int
kconsumer_assignment_parts(const uint8_t *p, size_t len,
    int (*fn)(const char *, size_t, int32_t, void *), void *arg)
{
	struct rbuf rb;

	rbuf_init(&rb, p, len);
	(void)rbuf_i16(&rb);		/* the consumer protocol's version */
	return topic_parts(&rb, fn, arg);
}

int
kconsumer_subscription_owned(const uint8_t *p, size_t len, int16_t *version,
    int (*fn)(const char *, size_t, int32_t, void *), void *arg)
{
	struct rbuf rb;
	size_t nlen;
	int32_t i, nt, ul;

	rbuf_init(&rb, p, len);
	*version = rbuf_i16(&rb);
	nt = rbuf_count(&rb, 2);
	for (i = 0; i < nt && !rb.err; i++)
		(void)rbuf_str(&rb, &nlen);
	(void)rbuf_bytes(&rb, &ul);	/* user_data, nullable */
	if (rb.err || *version < 1)
		return rb.err ? -1 : 0;
	return topic_parts(&rb, fn, arg);
}

static int
put(uint8_t *out, size_t cap, size_t *off, uint64_t v, int n)
{
	int k;

	if (cap - *off < (size_t)n)
		return -1;
	for (k = n - 1; k >= 0; k--)
		out[(*off)++] = (uint8_t)(v >> (8 * k));
	return 0;
}

size_t
kconsumer_assignment_encode(uint8_t *out, size_t cap, int16_t version,
    const struct kconsumer_tp *tps, uint32_t n)
{
	size_t off = 0, cnt_at, end;
	uint32_t k, j, nt = 0;

	version = version < 0 ? 0 : version > 3 ? 3 : version;
	if (put(out, cap, &off, (uint16_t)version, 2) == -1)
		return 0;
	cnt_at = off;
	if (put(out, cap, &off, 0, 4) == -1)
		return 0;
	for (k = 0; k < n; k = j) {
		for (j = k; j < n && tps[j].tlen == tps[k].tlen &&
		    memcmp(tps[j].topic, tps[k].topic, tps[k].tlen) == 0; j++)
			;
		if (tps[k].tlen > 0x7fff || put(out, cap, &off, tps[k].tlen,
		    2) == -1 || cap - off < tps[k].tlen)
			return 0;
		memcpy(out + off, tps[k].topic, tps[k].tlen);
		off += tps[k].tlen;
		if (put(out, cap, &off, j - k, 4) == -1)
			return 0;
		for (; k < j; k++)
			if (put(out, cap, &off, (uint32_t)tps[k].partition,
			    4) == -1)
				return 0;
		nt++;
	}
	if (put(out, cap, &off, 0xffffffffu, 4) == -1)	/* user_data null */
		return 0;
	end = off;
	off = cnt_at;
	(void)put(out, cap, &off, nt, 4);
	return end;
}
