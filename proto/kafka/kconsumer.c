/*
 * Kafka's consumer protocol (kconsumer.h).
 */
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

int
kconsumer_assignment_parts(const uint8_t *p, size_t len,
    int (*fn)(const char *, size_t, int32_t, void *), void *arg)
{
	struct rbuf rb;
	const char *name;
	size_t nlen;
	int32_t i, j, nt, np, part;

	rbuf_init(&rb, p, len);
	(void)rbuf_i16(&rb);		/* the consumer protocol's version */
	nt = rbuf_count(&rb, 6);
	for (i = 0; i < nt && !rb.err; i++) {
		name = rbuf_str(&rb, &nlen);
		np = rbuf_count(&rb, 4);
		for (j = 0; j < np && !rb.err; j++) {
			part = rbuf_i32(&rb);
			if (!rb.err && fn(name, nlen, part, arg) != 0)
				return 0;
		}
	}
	return rb.err ? -1 : 0;
}
