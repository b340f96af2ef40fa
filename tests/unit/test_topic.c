/*
 * Topic and group names, topic.meta and the directory layout.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/crc32c.h"
#include "proto/names.h"
#include "store/topic.h"
#include "tests/harness.h"

#define VALID(s)	topic_name_valid((s), strlen(s))

static void
test_names(void)
{
	char name[300];

	CU_ASSERT(VALID("orders") == 1);
	CU_ASSERT(VALID("a") == 1);
	CU_ASSERT(VALID("A-Z_a.z-0.9") == 1);
	CU_ASSERT(VALID("...") == 1);
	CU_ASSERT(VALID(".a") == 1);
	CU_ASSERT(VALID("__consumer_offsets") == 1);

	CU_ASSERT(VALID("") == 0);
	CU_ASSERT(topic_name_valid(NULL, 0) == 0);
	CU_ASSERT(VALID(".") == 0);
	CU_ASSERT(VALID("..") == 0);
	CU_ASSERT(VALID("../x") == 0);
	CU_ASSERT(VALID("a/b") == 0);
	CU_ASSERT(VALID("/a") == 0);
	CU_ASSERT(VALID("a b") == 0);
	CU_ASSERT(VALID("a\nb") == 0);
	CU_ASSERT(VALID("caf\xc3\xa9") == 0);
	CU_ASSERT(VALID("\xff") == 0);
	CU_ASSERT(VALID("a\\b") == 0);
	CU_ASSERT(VALID("a:b") == 0);
	/* A NUL inside the given length. */
	CU_ASSERT(topic_name_valid("ab\0cd", 5) == 0);
	CU_ASSERT(topic_name_valid("ab\0cd", 2) == 1);

	memset(name, 'x', sizeof(name));
	CU_ASSERT(topic_name_valid(name, 249) == 1);
	CU_ASSERT(topic_name_valid(name, 250) == 0);
	CU_ASSERT(group_name_valid(name, 249) == 1);
	CU_ASSERT(group_name_valid(name, 250) == 0);
	CU_ASSERT(group_name_valid("..", 2) == 0);
	CU_ASSERT(group_name_valid("g/../h", 6) == 0);
	CU_ASSERT(group_name_valid("", 0) == 0);
}

static void
test_meta(void)
{
	char path[4096], **names;
	int32_t parts;
	size_t n, i;
	int fd;
	char *dir = test_mkdtemp("topic");

	errno = 0;
	CU_ASSERT(topic_meta_load(dir, "orders", &parts, NULL) == -1 && errno == ENOENT);
	CU_ASSERT_FATAL(topic_meta_save(dir, "orders", 12, NULL) == 0);
	CU_ASSERT_FATAL(topic_meta_load(dir, "orders", &parts, NULL) == 0);
	CU_ASSERT(parts == 12);
	CU_ASSERT_FATAL(topic_meta_save(dir, "orders", 16, NULL) == 0);
	CU_ASSERT_FATAL(topic_meta_load(dir, "orders", &parts, NULL) == 0);
	CU_ASSERT(parts == 16);
	CU_ASSERT_FATAL(topic_meta_save(dir, "a.b", 1, NULL) == 0);

	errno = 0;
	CU_ASSERT(topic_meta_save(dir, "../evil", 1, NULL) == -1 && errno == EINVAL);
	errno = 0;
	CU_ASSERT(topic_meta_save(dir, "ok", 0, NULL) == -1 && errno == EINVAL);
	errno = 0;
	CU_ASSERT(topic_meta_save(dir, "ok", -3, NULL) == -1 && errno == EINVAL);
	errno = 0;
	CU_ASSERT(topic_meta_load(dir, "..", &parts, NULL) == -1 && errno == EINVAL);

	/* A damaged meta file is refused. */
	snprintf(path, sizeof(path), "%s/a.b/topic.meta", dir);
	CU_ASSERT_FATAL((fd = open(path, O_WRONLY)) != -1);
	CU_ASSERT_FATAL(pwrite(fd, "9", 1, 25) == 1);
	close(fd);
	errno = 0;
	CU_ASSERT(topic_meta_load(dir, "a.b", &parts, NULL) == -1 && errno == EBADMSG);

	/* Directories without topic.meta, and bad names, are not topics. */
	snprintf(path, sizeof(path), "%s/__consumer_offsets", dir);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/not a topic", dir);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
	CU_ASSERT_FATAL(topic_list(dir, &names, &n) == 0);
	CU_ASSERT_FATAL(n == 2);
	CU_ASSERT(strcmp(names[0], "a.b") == 0);
	CU_ASSERT(strcmp(names[1], "orders") == 0);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	test_rmtree(dir);
	free(dir);
}

static void
test_partition_dir(void)
{
	char buf[64], small[19];

	CU_ASSERT_FATAL(topic_partition_dir(buf, sizeof(buf), "/data", "orders",
	    3) == 0);
	CU_ASSERT(strcmp(buf, "/data/orders/partition-3") == 0);
	CU_ASSERT_FATAL(topic_partition_dir(buf, sizeof(buf), "d", "t",
	    2147483647) == 0);
	CU_ASSERT(strcmp(buf, "d/t/partition-2147483647") == 0);
	/* "d/t/partition-1234" is 18 bytes: fits in 19, not in 18. */
	CU_ASSERT(topic_partition_dir(small, 19, "d", "t", 1234) == 0);
	CU_ASSERT(strcmp(small, "d/t/partition-1234") == 0);
	errno = 0;
	CU_ASSERT(topic_partition_dir(small, 18, "d", "t", 1234) == -1 &&
	    errno == ENAMETOOLONG);
	errno = 0;
	CU_ASSERT(topic_partition_dir(buf, sizeof(buf), "d", "a/b", 0) == -1 &&
	    errno == EINVAL);
	errno = 0;
	CU_ASSERT(topic_partition_dir(buf, sizeof(buf), "d", "t", -1) == -1 &&
	    errno == EINVAL);
}

#define RESERVED(s)	topic_name_reserved((s), strlen(s))

/*
 * Kafka's internal topic names are valid names that are never a topic:
 * none is made, and a directory a client made of one (before they were
 * refused) is not listed, topic.meta and all.
 */
static void
test_reserved(void)
{
	char from[4096], to[4096], **names;
	size_t n, i;
	int32_t parts;
	char *dir = test_mkdtemp("reserved");

	CU_ASSERT(RESERVED("__consumer_offsets") == 1);
	CU_ASSERT(RESERVED("__transaction_state") == 1);
	CU_ASSERT(RESERVED("__share_group_state") == 1);
	CU_ASSERT(RESERVED("__cluster_metadata") == 1);
	CU_ASSERT(VALID("__transaction_state") == 1);
	CU_ASSERT(RESERVED("__consumer_offsets2") == 0);
	CU_ASSERT(RESERVED("_consumer_offsets") == 0);
	CU_ASSERT(RESERVED("__Consumer_offsets") == 0);
	CU_ASSERT(RESERVED("orders") == 0);
	CU_ASSERT(RESERVED("") == 0);
	CU_ASSERT(topic_name_reserved(NULL, 0) == 0);
	/* Only the given length counts. */
	CU_ASSERT(topic_name_reserved("__consumer_offsets", 17) == 0);
	CU_ASSERT(topic_name_reserved("__consumer_offsetsX", 18) == 1);
	CU_ASSERT(RESERVED("flume.pid") == 1);
	CU_ASSERT(RESERVED("flume.pid2") == 0);
	for (i = 0; topic_reserved_name(i) != NULL; i++)
		CU_ASSERT(RESERVED(topic_reserved_name(i)) == 1);
	CU_ASSERT(i == 5);

	errno = 0;
	CU_ASSERT(topic_meta_save(dir, "__transaction_state", 3, NULL) == -1 &&
	    errno == EINVAL);
	snprintf(from, sizeof(from), "%s/__transaction_state", dir);
	CU_ASSERT(access(from, F_OK) == -1 && errno == ENOENT);

	/* The directory an older broker let a Kafka client make. */
	CU_ASSERT_FATAL(topic_meta_save(dir, "made", 3, NULL) == 0);
	CU_ASSERT_FATAL(topic_meta_save(dir, "orders", 1, NULL) == 0);
	snprintf(from, sizeof(from), "%s/made", dir);
	snprintf(to, sizeof(to), "%s/__consumer_offsets", dir);
	CU_ASSERT_FATAL(rename(from, to) == 0);
	CU_ASSERT(topic_meta_load(dir, "__consumer_offsets", &parts, NULL) == 0 &&
	    parts == 3);
	CU_ASSERT_FATAL(topic_list(dir, &names, &n) == 0);
	CU_ASSERT_FATAL(n == 1);
	CU_ASSERT(strcmp(names[0], "orders") == 0);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	test_rmtree(dir);
	free(dir);
}

/* Write text as dir/name/topic.meta, its crc32c line added. */
static void
meta_write(const char *dir, const char *name, const char *body)
{
	char path[4096], text[512];
	FILE *f;
	int n;

	n = snprintf(text, sizeof(text), "%scrc32c %08x\n", body,
	    (unsigned)crc32c(0, body, strlen(body)));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/topic.meta", dir, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "w"));
	CU_ASSERT_EQUAL(fwrite(text, 1, (size_t)n, f), (size_t)n);
	CU_ASSERT_EQUAL(fclose(f), 0);
}

static void
test_meta_id(void)
{
	static const uint8_t zero[TOPIC_ID_LEN];
	static const char want[] = "flume-topic 1\npartitions 3\n"
	    "id a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\ncrc32c ";
	uint8_t id[TOPIC_ID_LEN], got[TOPIC_ID_LEN];
	char path[4096], text[256];
	int32_t parts;
	FILE *f;
	size_t n;
	int i;
	char *dir = test_mkdtemp("topic");

	for (i = 0; i < TOPIC_ID_LEN; i++)
		id[i] = (uint8_t)(0xa0 + i);
	CU_ASSERT_FATAL(topic_meta_save(dir, "ids", 3, id) == 0);
	/* The file as it is on disk: one line more than before ids. */
	snprintf(path, sizeof(path), "%s/ids/topic.meta", dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "r"));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	CU_ASSERT_EQUAL(n, sizeof(want) - 1 + 9);
	CU_ASSERT_EQUAL(strncmp(text, want, sizeof(want) - 1), 0);
	memset(got, 0, sizeof(got));
	CU_ASSERT_FATAL(topic_meta_load(dir, "ids", &parts, got) == 0);
	CU_ASSERT_EQUAL(parts, 3);
	CU_ASSERT_EQUAL(memcmp(got, id, TOPIC_ID_LEN), 0);

	/* A file of a Flume before ids: read, with an all-zero id. */
	meta_write(dir, "old", "flume-topic 1\npartitions 2\n");
	memset(got, 0xff, sizeof(got));
	CU_ASSERT_FATAL(topic_meta_load(dir, "old", &parts, got) == 0);
	CU_ASSERT_EQUAL(parts, 2);
	CU_ASSERT_EQUAL(memcmp(got, zero, TOPIC_ID_LEN), 0);

	/* Damaged id lines are refused, however well their CRC matches. */
	meta_write(dir, "z", "flume-topic 1\npartitions 2\n"
	    "id 00000000000000000000000000000000\n");
	errno = 0;
	CU_ASSERT(topic_meta_load(dir, "z", &parts, got) == -1 &&
	    errno == EBADMSG);
	meta_write(dir, "short", "flume-topic 1\npartitions 2\n"
	    "id a0a1a2\n");
	errno = 0;
	CU_ASSERT(topic_meta_load(dir, "short", &parts, got) == -1 &&
	    errno == EBADMSG);
	meta_write(dir, "upper", "flume-topic 1\npartitions 2\n"
	    "id A0A1A2A3A4A5A6A7A8A9AAABACADAEAF\n");
	errno = 0;
	CU_ASSERT(topic_meta_load(dir, "upper", &parts, got) == -1 &&
	    errno == EBADMSG);
	meta_write(dir, "junk", "flume-topic 1\npartitions 2\n"
	    "id a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\nmore\n");
	errno = 0;
	CU_ASSERT(topic_meta_load(dir, "junk", &parts, got) == -1 &&
	    errno == EBADMSG);
	meta_write(dir, "other", "flume-topic 1\npartitions 2\nsize 9\n");
	errno = 0;
	CU_ASSERT(topic_meta_load(dir, "other", &parts, got) == -1 &&
	    errno == EBADMSG);
	test_rmtree(dir);
	free(dir);
}

TEST_SUITE("topic", NULL, NULL,
    { "names", test_names },
    { "meta save, load, list", test_meta },
    { "topic.meta keeps the topic id", test_meta_id },
    { "partition dir", test_partition_dir },
    { "names Kafka reserves", test_reserved });
