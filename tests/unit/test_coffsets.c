/*
 * __consumer_offsets records (proto/coffsets.c) against the bytes Kafka's
 * coordinator writes and its tools read (OffsetCommitKey.json,
 * OffsetCommitValue.json, GroupMetadataKey.json, GroupMetadataValue.json
 * of apache/kafka's group-coordinator), and Kafka's group -> partition
 * rule (Java's String.hashCode).
 */
#include <string.h>

#include "proto/coffsets.h"
#include "tests/harness.h"

/* OffsetCommitKey v1: group "g1", topic "t", partition 3. */
static const uint8_t key_v1[] = {
	0x00, 0x01, 0x00, 0x02, 'g', '1', 0x00, 0x01, 't',
	0x00, 0x00, 0x00, 0x03,
};

/* OffsetCommitValue v1: offset 42, metadata "m", ts 1700000000000, expire -1. */
static const uint8_t value_v1[] = {
	0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a,
	0x00, 0x01, 'm',
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* OffsetCommitValue v3: offset 7, leader epoch 5, metadata "", ts 1. */
static const uint8_t value_v3[] = {
	0x00, 0x03,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
	0x00, 0x00, 0x00, 0x05,
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

/* OffsetCommitValue v4 (flexible): offset 9, epoch -1, metadata "ab", ts 2, no tags. */
static const uint8_t value_v4[] = {
	0x00, 0x04,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,
	0xff, 0xff, 0xff, 0xff,
	0x03, 'a', 'b',
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x00,
};

/* GroupMetadataKey v2: group "grp". */
static const uint8_t gkey[] = { 0x00, 0x02, 0x00, 0x03, 'g', 'r', 'p' };

/*
 * GroupMetadataValue v3: "consumer", generation 2, protocol "range",
 * leader "m1", state ts 5, one member m1 (instance null, client "c",
 * host "/h", rebalance 300, session 10, subscription 01, assignment 02 03).
 */
static const uint8_t gvalue_v3[] = {
	0x00, 0x03,
	0x00, 0x08, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r',
	0x00, 0x00, 0x00, 0x02,
	0x00, 0x05, 'r', 'a', 'n', 'g', 'e',
	0x00, 0x02, 'm', '1',
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x02, 'm', '1',
	0xff, 0xff,
	0x00, 0x01, 'c',
	0x00, 0x02, '/', 'h',
	0x00, 0x00, 0x01, 0x2c,
	0x00, 0x00, 0x00, 0x0a,
	0x00, 0x00, 0x00, 0x01, 0x01,
	0x00, 0x00, 0x00, 0x02, 0x02, 0x03,
};

static void
test_commit_key(void)
{
	uint8_t buf[64];
	struct coffsets_key k;
	size_t n;

	n = coffsets_commit_key(buf, sizeof(buf), "g1", 2, "t", 1, 3);
	CU_ASSERT_EQUAL(n, sizeof(key_v1));
	CU_ASSERT_EQUAL(memcmp(buf, key_v1, sizeof(key_v1)), 0);
	/* Too small a buffer: the length needed, nothing past cap. */
	memset(buf, 0xee, sizeof(buf));
	CU_ASSERT_EQUAL(coffsets_commit_key(buf, 4, "g1", 2, "t", 1, 3),
	    sizeof(key_v1));
	CU_ASSERT_EQUAL(buf[4], 0xee);

	CU_ASSERT_EQUAL(coffsets_key_decode(key_v1, sizeof(key_v1), &k), 0);
	CU_ASSERT_EQUAL(k.version, 1);
	CU_ASSERT_EQUAL(k.group_len, 2);
	CU_ASSERT_EQUAL(memcmp(k.group, "g1", 2), 0);
	CU_ASSERT_EQUAL(k.topic_len, 1);
	CU_ASSERT_EQUAL(k.topic[0], 't');
	CU_ASSERT_EQUAL(k.partition, 3);
	/* Version 0 has the same fields. */
	memcpy(buf, key_v1, sizeof(key_v1));
	buf[1] = 0;
	CU_ASSERT_EQUAL(coffsets_key_decode(buf, sizeof(key_v1), &k), 0);
	CU_ASSERT_EQUAL(k.version, 0);
	CU_ASSERT_EQUAL(k.partition, 3);
	/* Short, trailing bytes, unknown version. */
	CU_ASSERT_EQUAL(coffsets_key_decode(key_v1, sizeof(key_v1) - 1, &k), -1);
	CU_ASSERT_EQUAL(coffsets_key_decode(buf, sizeof(key_v1) + 1, &k), -1);
	buf[1] = 3;
	CU_ASSERT_EQUAL(coffsets_key_decode(buf, sizeof(key_v1), &k), -1);
}

static void
test_commit_value(void)
{
	struct coffsets_commit v = { .version = 1, .offset = 42,
	    .leader_epoch = -1, .metadata = "m", .metadata_len = 1,
	    .commit_ts = 1700000000000LL, .expire_ts = -1 }, d;
	uint8_t buf[64];

	CU_ASSERT_EQUAL(coffsets_commit_value(buf, sizeof(buf), &v),
	    sizeof(value_v1));
	CU_ASSERT_EQUAL(memcmp(buf, value_v1, sizeof(value_v1)), 0);
	CU_ASSERT_EQUAL(coffsets_commit_decode(value_v1, sizeof(value_v1), &d), 0);
	CU_ASSERT_EQUAL(d.version, 1);
	CU_ASSERT_EQUAL(d.offset, 42);
	CU_ASSERT_EQUAL(d.metadata_len, 1);
	CU_ASSERT_EQUAL(d.commit_ts, 1700000000000LL);
	CU_ASSERT_EQUAL(d.expire_ts, -1);

	v = (struct coffsets_commit){ .version = 3, .offset = 7,
	    .leader_epoch = 5, .metadata = "", .commit_ts = 1 };
	CU_ASSERT_EQUAL(coffsets_commit_value(buf, sizeof(buf), &v),
	    sizeof(value_v3));
	CU_ASSERT_EQUAL(memcmp(buf, value_v3, sizeof(value_v3)), 0);
	CU_ASSERT_EQUAL(coffsets_commit_decode(value_v3, sizeof(value_v3), &d), 0);
	CU_ASSERT_EQUAL(d.offset, 7);
	CU_ASSERT_EQUAL(d.leader_epoch, 5);
	CU_ASSERT_EQUAL(d.commit_ts, 1);

	CU_ASSERT_EQUAL(coffsets_commit_decode(value_v4, sizeof(value_v4), &d), 0);
	CU_ASSERT_EQUAL(d.version, 4);
	CU_ASSERT_EQUAL(d.offset, 9);
	CU_ASSERT_EQUAL(d.metadata_len, 2);
	CU_ASSERT_EQUAL(memcmp(d.metadata, "ab", 2), 0);
	CU_ASSERT_EQUAL(d.commit_ts, 2);
	CU_ASSERT_EQUAL(coffsets_commit_decode(value_v4, sizeof(value_v4) - 1,
	    &d), -1);
	CU_ASSERT_EQUAL(coffsets_commit_decode(value_v3, sizeof(value_v3) - 1,
	    &d), -1);
}

static void
test_group_records(void)
{
	struct coffsets_member m = { .id = "m1", .id_len = 2, .client_id = "c",
	    .client_id_len = 1, .client_host = "/h", .client_host_len = 2,
	    .rebalance_timeout_ms = 300, .session_timeout_ms = 10,
	    .subscription = (const uint8_t *)"\x01", .subscription_len = 1,
	    .assignment = (const uint8_t *)"\x02\x03", .assignment_len = 2 };
	struct coffsets_group g = { .version = 3, .protocol_type = "consumer",
	    .protocol_type_len = 8, .generation = 2, .protocol = "range",
	    .protocol_len = 5, .leader = "m1", .leader_len = 2, .state_ts = 5,
	    .members = &m, .nmembers = 1 }, d;
	struct coffsets_member dm[2];
	struct coffsets_key k;
	uint8_t buf[128];

	CU_ASSERT_EQUAL(coffsets_group_key(buf, sizeof(buf), "grp", 3),
	    sizeof(gkey));
	CU_ASSERT_EQUAL(memcmp(buf, gkey, sizeof(gkey)), 0);
	CU_ASSERT_EQUAL(coffsets_key_decode(gkey, sizeof(gkey), &k), 0);
	CU_ASSERT_EQUAL(k.version, 2);
	CU_ASSERT_EQUAL(k.group_len, 3);
	CU_ASSERT_PTR_NULL(k.topic);

	CU_ASSERT_EQUAL(coffsets_group_value(buf, sizeof(buf), &g),
	    sizeof(gvalue_v3));
	CU_ASSERT_EQUAL(memcmp(buf, gvalue_v3, sizeof(gvalue_v3)), 0);
	CU_ASSERT_EQUAL(coffsets_group_decode(gvalue_v3, sizeof(gvalue_v3), &d,
	    dm, 2), 0);
	CU_ASSERT_EQUAL(d.generation, 2);
	CU_ASSERT_EQUAL(d.nmembers, 1);
	CU_ASSERT_EQUAL(d.state_ts, 5);
	CU_ASSERT_EQUAL(d.leader_len, 2);
	CU_ASSERT_PTR_NULL(dm[0].instance_id);
	CU_ASSERT_EQUAL(dm[0].rebalance_timeout_ms, 300);
	CU_ASSERT_EQUAL(dm[0].session_timeout_ms, 10);
	CU_ASSERT_EQUAL(dm[0].assignment_len, 2);
	CU_ASSERT_EQUAL(coffsets_group_decode(gvalue_v3, sizeof(gvalue_v3) - 1,
	    &d, dm, 2), -1);
	/* Version 0: no rebalance timeout, no state timestamp. */
	g.version = 0;
	CU_ASSERT_EQUAL(coffsets_group_value(buf, sizeof(buf), &g),
	    sizeof(gvalue_v3) - 8 - 2 - 4);
}

/* Kafka: Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions. */
static void
test_partition_for(void)
{
	/* "hello".hashCode() == 99162322. */
	CU_ASSERT_EQUAL(coffsets_partition_for("hello", 5, 50), 99162322 % 50);
	CU_ASSERT_EQUAL(coffsets_partition_for("hello", 5, 1000), 322);
	/* hashCode Integer.MIN_VALUE: Utils.abs makes it 0. */
	CU_ASSERT_EQUAL(coffsets_partition_for("polygenelubricants", 18, 50), 0);
	CU_ASSERT_EQUAL(coffsets_partition_for("", 0, 50), 0);
	/* U+1F600 is the pair D83D DE00: 55357 * 31 + 56832 = 1772899. */
	CU_ASSERT_EQUAL(coffsets_partition_for("\xf0\x9f\x98\x80", 4, 1000000),
	    1772899 % 1000000);
	/* U+00E9 is one unit, 233. */
	CU_ASSERT_EQUAL(coffsets_partition_for("\xc3\xa9", 2, 1000), 233);
}

TEST_SUITE("coffsets", NULL, NULL,
    { "offset commit key v0/v1", test_commit_key },
    { "offset commit value v1/v3/v4", test_commit_value },
    { "group metadata key and value", test_group_records },
    { "group -> partition as Kafka", test_partition_for });
