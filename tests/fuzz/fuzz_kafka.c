/*
 * libFuzzer target: the Kafka request path as the listener runs it,
 * through the declarative codec (proto/kafka/kdesc.h).  The input is a
 * request frame: [i32 size][header][body].  The size prefix goes through
 * kframe_size, the rest (whatever the size says) through
 * kmsg_decode_req_hdr (header v1, or v2 for a flexible version of a
 * described API) and then the header's own description at its version,
 * which must encode back, header and body, to bytes that decode and
 * encode to themselves.  The body is then thrown at every description of
 * kmsg_all at every version, request and response (kdesc_walk.h: what
 * decodes is walked, every string inside the frame, and re-encoded), so
 * a body meant for one API reaches all the others.  Last, the body and
 * the whole frame go through what the listener reads inside requests:
 * the SASL mechanisms' messages (proto/kafka/ksasl.h: SCRAM and PLAIN,
 * as bare SASL frames after SaslHandshake v0 carry them) and the
 * consumer protocol (proto/kafka/kconsumer.h).
 * The corpus (tests/fuzz/corpus/fuzz_kafka/) holds whole frames: real
 * clients' requests (kafka-python-NN-* encoded by kafka-python's classes,
 * kcat-* and *-live-* captured from kcat/librdkafka 2.0.2 and
 * kafka-python 2.0.2 through a proxy, flexible ones of tests/fixtures/
 * kdesc/) and SASL exchanges (sasl-*).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/kafka/kconsumer.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kheader.h"
#include "proto/kafka/ksasl.h"
#include "proto/wire.h"

#include "tests/fuzz/kdesc_walk.h"

static int
consumer_topic(const char *name, size_t len, void *arg)
{
	touch(&(struct kstr){ name, (int32_t)len });
	++*(int *)arg;
	return 0;
}

static int
consumer_part(const char *name, size_t len, int32_t partition, void *arg)
{
	(void)partition;
	return consumer_topic(name, len, arg);
}

/* The consumer protocol's readers on p[0..len): names inside, counts bounded. */
static void
consumer(const uint8_t *p, size_t len)
{
	int n = 0;

	fz_lo = p;
	fz_hi = p + len;
	if (kconsumer_subscription_topics(p, len, consumer_topic, &n) == 0 &&
	    (size_t)n * 2 > len)
		abort();
	n = 0;
	if (kconsumer_assignment_parts(p, len, consumer_part, &n) == 0 &&
	    (size_t)n * 4 > len)
		abort();
}

/* Every SASL decoder on body[0..len); what they return lies inside it. */
static void
sasl(const uint8_t *body, size_t len)
{
	struct ksasl_scram_first f;
	struct ksasl_scram_final fin;
	const char *u, *p;
	size_t ul, pl;

	fz_lo = body;
	fz_hi = body + len;
	if (ksasl_scram_first_parse((const char *)body, len, &f) == 0) {
		if (f.user_len > KSASL_USER_MAX || f.user[f.user_len] != '\0')
			abort();
		touch(&(struct kstr){ f.nonce, (int32_t)f.nonce_len });
		touch(&(struct kstr){ f.bare, (int32_t)f.bare_len });
	}
	if (ksasl_scram_final_parse((const char *)body, len, &fin) == 0) {
		touch(&(struct kstr){ fin.cbind, (int32_t)fin.cbind_len });
		touch(&(struct kstr){ fin.nonce, (int32_t)fin.nonce_len });
		touch(&(struct kstr){ fin.proof, (int32_t)fin.proof_len });
		touch(&(struct kstr){ fin.without_proof,
		    (int32_t)fin.without_proof_len });
	}
	if (ksasl_plain_parse((const char *)body, len, &u, &ul, &p, &pl) == 0) {
		touch(&(struct kstr){ u, (int32_t)ul });
		touch(&(struct kstr){ p, (int32_t)pl });
	}
}

/*
 * The frame body p[0..n) as the listener reads it: the header, then the
 * body with the header's (key, version) description; what decodes must
 * encode to bytes that decode and encode to themselves.
 */
static void
request(const uint8_t *p, size_t n)
{
	const struct kmsg *m;
	struct kreq_hdr h, h2;
	struct arena a;
	struct wbuf w1, w2;
	void *out, *out2;
	size_t hlen, hlen2;

	fz_lo = p;
	fz_hi = p + n;
	if (kmsg_decode_req_hdr(&h, p, n, &hlen) == -1)
		return;
	if (hlen > n)
		abort();
	touch(&h.client_id);
	if ((m = kmsg_lookup(h.api_key)) == NULL ||
	    h.api_version < m->km_vmin || h.api_version > m->km_vmax)
		return;
	if ((out = malloc(m->km_req->kd_size)) == NULL ||
	    (out2 = malloc(m->km_req->kd_size)) == NULL)
		abort();
	arena_init(&a, 1u << 20);
	if (kmsg_decode_req(m, h.api_version, out, p + hlen, n - hlen,
	    &a) == 0) {
		walk(m->km_req, out);
		wbuf_init(&w1);
		wbuf_init(&w2);
		if (kmsg_encode_req_hdr(&h, &w1) != 0 ||
		    kmsg_encode_req(m, h.api_version, out, &w1) != 0)
			abort();
		fz_lo = w1.buf;
		fz_hi = w1.buf + w1.len;
		if (kmsg_decode_req_hdr(&h2, w1.buf, w1.len, &hlen2) != 0 ||
		    h2.api_key != h.api_key ||
		    h2.api_version != h.api_version ||
		    h2.correlation_id != h.correlation_id ||
		    kmsg_decode_req(m, h.api_version, out2, w1.buf + hlen2,
		    w1.len - hlen2, &a) != 0)
			abort();
		walk(m->km_req, out2);
		if (kmsg_encode_req_hdr(&h2, &w2) != 0 ||
		    kmsg_encode_req(m, h.api_version, out2, &w2) != 0 ||
		    w1.len != w2.len || memcmp(w1.buf, w2.buf, w1.len) != 0)
			abort();
		wbuf_free(&w1);
		wbuf_free(&w2);
	}
	arena_free(&a);
	free(out);
	free(out2);
	all_descriptions(p + hlen, n - hlen);
	sasl(p + hlen, n - hlen);
	consumer(p + hlen, n - hlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	int32_t fsize = 0;
	size_t n;

	if (kframe_size(data, size, &fsize) == 1 &&
	    (size_t)fsize < size - KFRAME_SIZE_LEN)
		size = (size_t)fsize + KFRAME_SIZE_LEN;	/* the rest is the next frame */
	if (size < KFRAME_SIZE_LEN)
		return 0;
	n = size - KFRAME_SIZE_LEN;
	/* An exact-size heap copy, so ASan sees any read past the frame. */
	if ((copy = malloc(n ? n : 1)) == NULL)
		return 0;
	memcpy(copy, data + KFRAME_SIZE_LEN, n);
	request(copy, n);
	sasl(copy, n);
	consumer(copy, n);
	free(copy);
	return 0;
}
