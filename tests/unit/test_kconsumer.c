/*
 * Kafka's consumer protocol (proto/kafka/kconsumer.h): librdkafka 2.0.2's
 * own subscription and assignment bytes (kcat -G, as captured in
 * tests/fixtures/kdesc/kcat-JoinGroup-v5.bin and kcat-SyncGroup-v3.bin),
 * several topics and partitions, a walk stopped early, and every
 * malformed form refused.
 */
#include <string.h>

#include "proto/kafka/kconsumer.h"
#include "tests/harness.h"

/* librdkafka's subscription v1: topic "t", empty user data, no owned. */
static const uint8_t rd_sub[17] = { 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x01, 't', 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
/* librdkafka's assignment v0: t/0, null user data. */
static const uint8_t rd_asg[21] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x01, 't', 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    0xff, 0xff, 0xff, 0xff };
/* v0 subscription of "orders" and "ab", then user data "u". */
static const uint8_t sub2[] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', 0x00, 0x02, 'a', 'b',
    0x00, 0x00, 0x00, 0x01, 'u' };
/* v0 assignment: orders/3, orders/1, ab/0; empty user data. */
static const uint8_t asg3[] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x02, 'a', 'b', 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00 };

struct seen {
	char	 text[256];	/* "topic/partition " or "topic " per call */
	int	 calls;
	int	 stop_at;	/* return 1 on this call (1-based); 0: never */
};

static int
on_topic(const char *name, size_t len, void *arg)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%.*s ", (int)len, name);
	return ++s->calls == s->stop_at;
}

static int
on_part(const char *name, size_t len, int32_t partition, void *arg)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%.*s/%d ", (int)len, name,
	    partition);
	return ++s->calls == s->stop_at;
}

static void
test_librdkafka(void)
{
	struct seen s;

	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(kconsumer_subscription_topics(rd_sub, sizeof(rd_sub),
	    on_topic, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.text, "t ");
	CU_ASSERT_EQUAL(s.calls, 1);
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(kconsumer_assignment_parts(rd_asg, sizeof(rd_asg),
	    on_part, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.text, "t/0 ");
	CU_ASSERT_EQUAL(s.calls, 1);
}

static void
test_several_and_stop(void)
{
	struct seen s;

	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(kconsumer_subscription_topics(sub2, sizeof(sub2),
	    on_topic, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.text, "orders ab ");
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(kconsumer_assignment_parts(asg3, sizeof(asg3),
	    on_part, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.text, "orders/3 orders/1 ab/0 ");
	CU_ASSERT_EQUAL(s.calls, 3);

	/* The callback stops the walk: nothing after it is read. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	CU_ASSERT_EQUAL(kconsumer_subscription_topics(sub2, sizeof(sub2),
	    on_topic, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.text, "orders ");
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	CU_ASSERT_EQUAL(kconsumer_assignment_parts(asg3, sizeof(asg3),
	    on_part, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.text, "orders/3 orders/1 ");
}

/*
 * Every cut short of the topics is refused, with the topics wholly read
 * before the cut reported; so are negative and oversized counts.
 */
static void
test_malformed(void)
{
	static const uint8_t neg[] = { 0x00, 0x00, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t huge[] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	    0x00, 0x01, 't', 0x7f, 0xff, 0xff, 0xff };
	static const uint8_t longname[] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	    0x00, 0x09, 't' };
	static const uint8_t nullname[] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	    0xff, 0xff };
	struct seen s;
	size_t cut;

	/* sub2's topics end at byte 18, asg3's at byte 38. */
	for (cut = 0; cut < 18; cut++) {
		memset(&s, 0, sizeof(s));
		CU_ASSERT_EQUAL(kconsumer_subscription_topics(sub2, cut,
		    on_topic, &s), -1);
		CU_ASSERT_STRING_EQUAL(s.text, cut >= 14 ? "orders " : "");
	}
	for (cut = 0; cut < 38; cut++) {
		memset(&s, 0, sizeof(s));
		CU_ASSERT_EQUAL(kconsumer_assignment_parts(asg3, cut,
		    on_part, &s), -1);
		/* A count is checked against the bytes left first. */
		CU_ASSERT_STRING_EQUAL(s.text, cut >= 26 ? "orders/3 orders/1 " :
		    "");
	}
	/* The user data after the topics is not needed: it may be cut. */
	CU_ASSERT_EQUAL(kconsumer_subscription_topics(sub2, 18, on_topic, &s), 0);
	CU_ASSERT_EQUAL(kconsumer_assignment_parts(asg3, 38, on_part, &s), 0);

	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(kconsumer_subscription_topics(neg, sizeof(neg),
	    on_topic, &s), -1);
	CU_ASSERT_EQUAL(kconsumer_assignment_parts(neg, sizeof(neg), on_part,
	    &s), -1);
	/* A partition count the bytes left cannot hold. */
	CU_ASSERT_EQUAL(kconsumer_assignment_parts(huge, sizeof(huge), on_part,
	    &s), -1);
	CU_ASSERT_EQUAL(kconsumer_subscription_topics(longname,
	    sizeof(longname), on_topic, &s), -1);
	CU_ASSERT_EQUAL(kconsumer_subscription_topics(nullname,
	    sizeof(nullname), on_topic, &s), -1);
	CU_ASSERT_EQUAL(s.calls, 0);
}

/*
 * The online migration's reading and writing: a subscription's owned
 * partitions (v1, KIP-429; v0 owns nothing said; torn bytes refused) and
 * an assignment encoded as Kafka's serializeAssignment (version clamped
 * to 3, topics grouped, null user data), read back; too small a buffer
 * gives 0.
 */
static void
test_owned_and_encode(void)
{
	/* v1: topic "t", null user data, owned t/2, t/0. */
	static const uint8_t own[] = { 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
	    0x00, 0x01, 't', 0xff, 0xff, 0xff, 0xff,
	    0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 't', 0x00, 0x00, 0x00, 0x02,
	    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00 };
	static const struct kconsumer_tp tps[3] = { { "orders", 6, 3 },
	    { "orders", 6, 1 }, { "ab", 2, 0 } };
	uint8_t out[64];
	struct seen s;
	int16_t v = -9;

	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(kconsumer_subscription_owned(own, sizeof(own), &v,
	    on_part, &s), 0);
	CU_ASSERT_EQUAL(v, 1);
	CU_ASSERT_STRING_EQUAL(s.text, "t/2 t/0 ");
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(kconsumer_subscription_owned(rd_sub, sizeof(rd_sub),
	    &v, on_part, &s), 0);
	CU_ASSERT_EQUAL(s.calls, 0);
	CU_ASSERT_EQUAL(kconsumer_subscription_owned(sub2, sizeof(sub2), &v,
	    on_part, &s), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(s.calls, 0);
	CU_ASSERT_EQUAL(kconsumer_subscription_owned(own, sizeof(own) - 1, &v,
	    on_part, &s), -1);
	/* Encoded as asg3 is, but with null user data and version 3. */
	CU_ASSERT_EQUAL(kconsumer_assignment_encode(out, sizeof(out), 7, tps,
	    3), sizeof(asg3));
	CU_ASSERT(out[0] == 0 && out[1] == 3);
	CU_ASSERT_EQUAL(memcmp(out + 2, asg3 + 2, sizeof(asg3) - 6), 0);
	CU_ASSERT_EQUAL(memcmp(out + sizeof(asg3) - 4, "\xff\xff\xff\xff",
	    4), 0);
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(kconsumer_assignment_parts(out, sizeof(asg3), on_part,
	    &s), 0);
	CU_ASSERT_STRING_EQUAL(s.text, "orders/3 orders/1 ab/0 ");
	CU_ASSERT_EQUAL(kconsumer_assignment_encode(out, sizeof(asg3) - 1, 0,
	    tps, 3), 0);
	CU_ASSERT_EQUAL(kconsumer_assignment_encode(out, 10, 0, NULL, 0), 10);
}

TEST_SUITE("kconsumer", NULL, NULL,
    { "librdkafka's subscription and assignment", test_librdkafka },
    { "several topics and partitions; a walk stopped", test_several_and_stop },
    { "malformed bytes are refused", test_malformed },
    { "owned partitions; an assignment encoded", test_owned_and_encode });
