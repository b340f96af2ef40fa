/*
 * libFuzzer target: the Kafka request path of proto/kafka/, as the
 * listener runs it.  The input is a request frame: [i32 size][header v1]
 * [body].  The size prefix goes through kframe_size, the rest (whatever
 * the size says) through kheader_decode and then kreq_decode for the
 * header's (key, version), so every request decoder is reached from the
 * corpus of real requests (kafka-python-NN-* encoded by kafka-python's
 * classes, kcat-* and *-live-* captured from kcat/librdkafka 2.0.2 and
 * kafka-python 2.0.2 talking to a broker through a proxy).  On success every
 * string and byte array of the decoded request is read (ASan checks that
 * each lies inside the frame) and every count must be one the frame can
 * hold.  A second pass decodes the same body under every other key, so a
 * body meant for one API is also thrown at all the others, and a third
 * through the SASL decoders (proto/kafka/ksasl.h): SaslHandshake,
 * SaslAuthenticate and, on the whole frame as a bare SASL message, the
 * SCRAM and PLAIN parsers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kconsumer.h"
#include "proto/kafka/kheader.h"
#include "proto/kafka/kreq.h"
#include "proto/kafka/ksasl.h"
#include "proto/wire.h"

static const uint8_t *fz_lo, *fz_hi;
static volatile uint8_t fz_sink;

/* Touch every byte of s and check it lies inside the frame. */
static void
touch(struct kstr s)
{
	int32_t i;

	if (s.len < 0) {
		if (s.p != NULL)
			abort();
		return;
	}
	if (s.len > 0 && ((const uint8_t *)s.p < fz_lo ||
	    (const uint8_t *)s.p + s.len > fz_hi))
		abort();
	for (i = 0; i < s.len; i++)
		fz_sink ^= (uint8_t)s.p[i];
}

static void
count(int32_t n, size_t len)
{
	if (n < -1 || (n > 0 && (size_t)n > len))
		abort();
}

static int
consumer_topic(const char *name, size_t len, void *arg)
{
	touch((struct kstr){ name, (int32_t)len });
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
	struct kstr s;
	const char *u, *p;
	size_t ul, pl;

	fz_lo = body;
	fz_hi = body + len;
	if (ksasl_handshake_decode(body, len, &s) == 0)
		touch(s);
	if (ksasl_authenticate_decode(body, len, &s) == 0)
		touch(s);
	if (ksasl_scram_first_parse((const char *)body, len, &f) == 0) {
		if (f.user_len > KSASL_USER_MAX || f.user[f.user_len] != '\0')
			abort();
		touch((struct kstr){ f.nonce, (int32_t)f.nonce_len });
		touch((struct kstr){ f.bare, (int32_t)f.bare_len });
	}
	if (ksasl_scram_final_parse((const char *)body, len, &fin) == 0) {
		touch((struct kstr){ fin.cbind, (int32_t)fin.cbind_len });
		touch((struct kstr){ fin.nonce, (int32_t)fin.nonce_len });
		touch((struct kstr){ fin.proof, (int32_t)fin.proof_len });
		touch((struct kstr){ fin.without_proof,
		    (int32_t)fin.without_proof_len });
	}
	if (ksasl_plain_parse((const char *)body, len, &u, &ul, &p, &pl) == 0) {
		touch((struct kstr){ u, (int32_t)ul });
		touch((struct kstr){ p, (int32_t)pl });
	}
}

static void
walk(const union kreq *r, int16_t key, size_t len)
{
	int32_t i, j, k;

	switch (key) {
	case KAPI_PRODUCE:
		touch(r->produce.transactional_id);
		count(r->produce.ntopics, len);
		for (i = 0; i < r->produce.ntopics; i++) {
			touch(r->produce.topics[i].name);
			count(r->produce.topics[i].npart, len);
			for (j = 0; j < r->produce.topics[i].npart; j++)
				touch(r->produce.topics[i].parts[j].records);
		}
		break;
	case KAPI_FETCH:
		for (i = 0; i < r->fetch.ntopics; i++) {
			touch(r->fetch.topics[i].name);
			for (j = 0; j < r->fetch.topics[i].npart; j++)
				fz_sink ^= (uint8_t)
				    r->fetch.topics[i].parts[j].fetch_offset;
		}
		break;
	case KAPI_LIST_OFFSETS:
		for (i = 0; i < r->list_offsets.ntopics; i++) {
			touch(r->list_offsets.topics[i].name);
			for (j = 0; j < r->list_offsets.topics[i].npart; j++)
				fz_sink ^= (uint8_t)
				    r->list_offsets.topics[i].parts[j].timestamp;
		}
		break;
	case KAPI_METADATA:
		count(r->metadata.ntopics, len);
		for (i = 0; i < r->metadata.ntopics; i++)
			touch(r->metadata.topics[i]);
		break;
	case KAPI_INIT_PRODUCER_ID:
		touch(r->init_pid.transactional_id);
		break;
	case KAPI_FIND_COORDINATOR:
		touch(r->find_coord.group_id);
		break;
	case KAPI_JOIN_GROUP:
		touch(r->join.group_id);
		touch(r->join.member_id);
		touch(r->join.protocol_type);
		for (i = 0; i < r->join.nprotocols; i++) {
			touch(r->join.protocols[i].name);
			touch(r->join.protocols[i].data);
		}
		break;
	case KAPI_SYNC_GROUP:
		touch(r->sync.group_id);
		touch(r->sync.member_id);
		for (i = 0; i < r->sync.nassign; i++) {
			touch(r->sync.assign[i].name);
			touch(r->sync.assign[i].data);
		}
		break;
	case KAPI_HEARTBEAT:
		touch(r->heartbeat.group_id);
		touch(r->heartbeat.member_id);
		break;
	case KAPI_LEAVE_GROUP:
		touch(r->leave.group_id);
		touch(r->leave.member_id);
		break;
	case KAPI_OFFSET_COMMIT:
		touch(r->commit.group_id);
		touch(r->commit.member_id);
		for (i = 0; i < r->commit.ntopics; i++) {
			touch(r->commit.topics[i].name);
			for (j = 0; j < r->commit.topics[i].npart; j++)
				touch(r->commit.topics[i].parts[j].metadata);
		}
		break;
	case KAPI_OFFSET_FETCH:
		touch(r->offset_fetch.group_id);
		for (i = 0; i < r->offset_fetch.ntopics; i++) {
			touch(r->offset_fetch.topics[i].name);
			for (j = 0; j < r->offset_fetch.topics[i].npart; j++)
				fz_sink ^= (uint8_t)
				    r->offset_fetch.topics[i].parts[j];
		}
		break;
	case KAPI_CREATE_TOPICS:
		for (i = 0; i < r->create_topics.ntopics; i++) {
			const struct kcreate_topic *t =
			    &r->create_topics.topics[i];

			touch(t->name);
			for (j = 0; j < t->nassign; j++)
				for (k = 0; k < t->assign[j].nbrokers; k++)
					fz_sink ^= (uint8_t)
					    t->assign[j].brokers[k];
			for (j = 0; j < t->nconfigs; j++) {
				touch(t->configs[j].name);
				touch(t->configs[j].value);
			}
		}
		break;
	case KAPI_DELETE_TOPICS:
		for (i = 0; i < r->delete_topics.ntopics; i++)
			touch(r->delete_topics.topics[i]);
		break;
	case KAPI_DESCRIBE_GROUPS:
		for (i = 0; i < r->describe_groups.ngroups; i++)
			touch(r->describe_groups.groups[i]);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kheader h;
	struct arena a;
	union kreq r;
	uint8_t *copy;
	int32_t fsize = 0;
	size_t n, blen;
	size_t i;

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
	if (kheader_decode(&h, copy, n) == 0) {
		if (h.body_off > n)
			abort();
		fz_lo = copy + h.body_off;
		fz_hi = copy + n;
		blen = n - h.body_off;
		arena_init(&a, 1u << 20);
		if (kreq_decode(&r, h.api_key, h.api_version, fz_lo, blen,
		    &a) == 0)
			walk(&r, h.api_key, blen);
		for (i = 0; i < kapi_nversions; i++) {
			arena_reset(&a);
			if (kreq_decode(&r, kapi_versions[i].key, h.api_version,
			    fz_lo, blen, &a) == 0)
				walk(&r, kapi_versions[i].key, blen);
		}
		arena_free(&a);
		sasl(copy + h.body_off, blen);
		consumer(copy + h.body_off, blen);
	}
	sasl(copy, n);
	consumer(copy, n);
	free(copy);
	return 0;
}
