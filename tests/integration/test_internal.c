/*
 * Flume's own state out of every client's reach (issue 24), and the
 * committed offsets kept as Kafka keeps them (issue 28): the names Kafka
 * reserves for its internal topics are no topic a client can make, write
 * or delete, on either protocol, and __consumer_offsets is the broker's
 * internal topic holding every group's commits in Kafka's record formats
 * (proto/coffsets.h), which clients may read (kcat, Burrow) but not
 * produce to, delete, trim or reconfigure.  A data directory whose
 * offsets are files (the layout before the topic, and the one before
 * that, in __consumer_offsets/) starts with every group, the files moved
 * into the topic, kept until the next clean start, then removed.
 * Nor can a client create or delete a topic "flume.pid", the name of
 * the data directory's lock file.
 *
 * Real clients: kcat, kafka-python and confluent-kafka through
 * tests/tools/kafka_internal.py, Burrow through tests/tools/
 * burrow_check.py.  The broker auto-creates topics.  Topic "t" has one
 * partition holding 10 records; __consumer_offsets has 4 partitions.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/coffsets.h"
#include "proto/crc32c.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define PYTHON		"/usr/bin/python3"
#define KCAT		"/usr/bin/kcat"
#define CLIENTS		"tests/tools/kafka_internal.py"
#define BURROW_CHECK	"tests/tools/burrow_check.py"
#define CO_PARTS	4
#define REFUSED		"refused: the name is reserved for the broker's " \
			"own use"
#define LISTED_CO	"topic \"__consumer_offsets\" with 4 partitions:"

static struct flumed d;

static int
setup(void)
{
	char extra[512];

	snprintf(extra, sizeof(extra), "partitions = 3\n"
	    "auto_create_topics = yes\n"
	    "offsets_topic_num_partitions = %d\n"
	    "[topic t]\npartitions = 1\n", CO_PARTS);
	return flumed_start_kafka(&d, NULL, extra);
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* kafka_internal.py CMD KBROKER args...; exit status, stdout in *out. */
static int
clients(char **out, const char *cmd, const char *a1, const char *a2,
    const char *a3)
{
	const char *argv[] = { PYTHON, CLIENTS, cmd, d.kbroker, a1, a2, a3,
	    NULL };

	return support_run_cmd(PYTHON, argv, NULL, out, NULL, 90000);
}

/* clients() printed exactly want (and exited 0). */
static void
expect_clients(const char *want, const char *cmd, const char *a1,
    const char *a2, const char *a3)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(clients(&out, cmd, a1, a2, a3), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (strcmp(out, want) != 0)
		fprintf(stderr, "kafka_internal.py %s: got '%s' want '%s'\n",
		    cmd, out, want);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
}

/* kcat -L -t __consumer_offsets lists it with its CO_PARTS partitions. */
static void
expect_kcat_listed(void)
{
	const char *argv[] = { "kcat", "-b", d.kbroker, "-L", "-t",
	    "__consumer_offsets", NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL(support_run_cmd(KCAT, argv, NULL, &out, NULL, 30000),
	    0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (strstr(out, LISTED_CO) == NULL)
		fprintf(stderr, "kcat -L: %s\n", out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, LISTED_CO));
	free(out);
}

/* One record of __consumer_offsets, decoded as Kafka's tools decode it. */
struct corec {
	int32_t	kpart;		/* its partition of __consumer_offsets */
	int16_t	kver;
	char	group[64];
	char	topic[64];
	int32_t	partition;
	int16_t	vver;		/* -1: a tombstone */
	int64_t	offset;
};

/*
 * Every record of __consumer_offsets as kcat -C reads it ("%K %S %p\n"
 * then the raw key and value), decoded with proto/coffsets.c; how many,
 * or -1.  Sorted by nothing: kcat's order (per partition, by offset).
 */
static int
kcat_corecs(struct corec *out, int cap)
{
	char cmd[512];
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct coffsets_key k;
	struct coffsets_commit v;
	char *hex = NULL, *h, line[64];
	uint8_t *buf, *p, *end;
	unsigned x;
	long kl, vl, part;
	size_t len = 0, i;
	int n = 0, used;

	/* kcat's bytes are binary: through od, as hex. */
	snprintf(cmd, sizeof(cmd), "%s -b %s -C -t __consumer_offsets -e -q "
	    "-f '%%K %%S %%p\\n%%k%%s' | od -An -v -tx1", KCAT, d.kbroker);
	if (support_run_cmd("/bin/sh", argv, NULL, &hex, NULL, 30000) != 0 ||
	    hex == NULL || (buf = malloc(strlen(hex) / 2 + 1)) == NULL) {
		free(hex);
		return -1;
	}
	for (h = hex; sscanf(h, " %2x%n", &x, &used) == 1; h += used)
		buf[len++] = (uint8_t)x;
	free(hex);
	p = buf;
	end = buf + len;
	while (p < end && n < cap) {
		for (i = 0; p + i < end && p[i] != '\n' && i + 1 < sizeof(line);
		    i++)
			line[i] = (char)p[i];
		line[i] = '\0';
		if (p + i >= end || sscanf(line, "%ld %ld %ld", &kl, &vl,
		    &part) != 3 || kl < 0 ||
		    (size_t)(end - p) < i + 1 + (size_t)kl + (size_t)(vl > 0 ? vl : 0))
			break;
		p += i + 1;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].kpart = (int32_t)part;
		out[n].vver = -1;
		if (coffsets_key_decode(p, (size_t)kl, &k) == -1 ||
		    k.group_len >= sizeof(out[n].group) ||
		    k.topic_len >= sizeof(out[n].topic))
			break;
		out[n].kver = k.version;
		memcpy(out[n].group, k.group, k.group_len);
		if (k.topic != NULL)
			memcpy(out[n].topic, k.topic, k.topic_len);
		out[n].partition = k.partition;
		p += kl;
		if (vl >= 0) {
			if (coffsets_commit_decode(p, (size_t)vl, &v) == -1)
				break;
			out[n].vver = v.version;
			out[n].offset = v.offset;
			p += vl;
		}
		n++;
	}
	free(buf);
	return n;
}

/* The commit of group on t/0 in rec, at offset, in Kafka's partition. */
static void
expect_commit(const struct corec *rec, const char *group, int64_t offset)
{
	CU_ASSERT_EQUAL(rec->kpart, coffsets_partition_for(group, strlen(group),
	    CO_PARTS));
	CU_ASSERT_EQUAL(rec->kver, 1);
	CU_ASSERT_STRING_EQUAL(rec->group, group);
	CU_ASSERT_STRING_EQUAL(rec->topic, "t");
	CU_ASSERT_EQUAL(rec->partition, 0);
	CU_ASSERT_EQUAL(rec->vver, 1);
	CU_ASSERT_EQUAL(rec->offset, offset);
}

/* The committed offset of group on t/0 through libflume; -2 on failure. */
static long long
committed(const char *group)
{
	struct flume_client *c;
	int64_t off = -2;

	if ((c = flume_connect(d.broker)) == NULL)
		return -2;
	if (flume_committed_offset(c, group, "t", 0, &off) == -1)
		off = -2;
	flume_close(c);
	return off;
}

/* data/<rel> exists? */
static int
data_has(const char *rel)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", d.data, rel);
	return stat(path, &st) == 0;
}

/* Wait (<= 10 s) until data/<rel> exists; 1 if it does. */
static int
data_wait(const char *rel)
{
	long long deadline = support_now_ms() + 10000;

	while (!data_has(rel) && support_now_ms() < deadline)
		usleep(20 * 1000);
	return data_has(rel);
}

/*
 * A group commits (kafka-python); kcat reads the commit from
 * __consumer_offsets in Kafka's format, in Kafka's partition for the
 * group; Kafka clients' creates, deletes, produce, alter_configs and
 * create_partitions of it are refused with Kafka's errors and change
 * nothing; Metadata lists
 * it as internal; a second commit appends a second record; after a
 * restart the offset is read back from the topic alone.
 */
static void
test_kafka_clients_read_offsets_topic(void)
{
	const char *pargv[] = { "flume-produce", "-t", "t", "-p", "0", NULL };
	struct corec rec[8];

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n",
	    NULL, 30000, pargv), 0);
	expect_clients("committed 7\n", "commit", "G", "t", "7");
	/* Answered once in the ring: the writer drains it at once. */
	WAIT_UNTIL(kcat_corecs(rec, 8) == 1, 10000);
	CU_ASSERT_EQUAL_FATAL(kcat_corecs(rec, 8), 1);
	expect_commit(&rec[0], "G", 7);
	CU_ASSERT_FALSE(data_has("flume~offsets"));

	expect_kcat_listed();
	expect_clients("kafka-python create InvalidTopicError, delete "
	    "InvalidTopicError; confluent-kafka create TOPIC_EXCEPTION, "
	    "delete TOPIC_EXCEPTION; produce 17; listed ['__consumer_offsets', "
	    "'__transaction_state']; "
	    "flume.pid create InvalidTopicError, delete InvalidTopicError; "
	    "alter 17, partitions InvalidTopicError\n", "refuse", NULL, NULL,
	    NULL);
	/* One line per refused create, delete or grow. */
	CU_ASSERT_EQUAL(flumed_log_count(&d, REFUSED), 7);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "settings of __consumer_offsets "
	    "not changed: an internal topic"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "growing topic __consumer_offsets "
	    "refused"), 1);
	/* The lock file of the data directory is still there. */
	CU_ASSERT(data_has("flume.pid"));
	CU_ASSERT_EQUAL(flumed_log_count(&d, "deleted topic __consumer_offsets"),
	    0);
	CU_ASSERT(data_has("__consumer_offsets/topic.meta"));
	/* Made at the first start too (transactions, test_kafka_txn.c). */
	CU_ASSERT(data_has("__transaction_state/topic.meta"));
	CU_ASSERT_EQUAL(committed("G"), 7);
	/* Nothing but the commit reached the topic. */
	CU_ASSERT_EQUAL(kcat_corecs(rec, 8), 1);

	expect_clients("committed 9\n", "commit", "G", "t", "9");
	WAIT_UNTIL(kcat_corecs(rec, 8) == 2, 10000);
	CU_ASSERT_EQUAL_FATAL(kcat_corecs(rec, 8), 2);
	expect_commit(&rec[1], "G", 9);

	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "__consumer_offsets: read 2 "
	    "commit records and 0 tombstones back"), 1);
	CU_ASSERT_EQUAL(committed("G"), 9);
	expect_clients("committed 9\n", "committed", "G", "t", NULL);
	expect_kcat_listed();
	/* Nothing new appended by the restart. */
	CU_ASSERT_EQUAL(kcat_corecs(rec, 8), 2);
	CU_ASSERT_FALSE(data_has("flume~offsets"));
}

/*
 * Burrow 1.2.1 (Debian), its kafka consumer module reading
 * __consumer_offsets with kafka-version 2.1.0, lists group G and its
 * exact lag on t/0: 10 records, committed 9.
 */
static void
test_burrow_lag(void)
{
	const char *argv[] = { PYTHON, BURROW_CHECK, d.kbroker, "G", "t", NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL(support_run_cmd(PYTHON, argv, NULL, &out, NULL,
	    180000), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (strcmp(out, "listed G; t/0 offset 9 lag 1; totallag 1\n") != 0)
		fprintf(stderr, "burrow_check.py: %s\n", out);
	CU_ASSERT_STRING_EQUAL(out, "listed G; t/0 offset 9 lag 1; totallag 1\n");
	free(out);
}

/* Lines of s. */
static int
lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/* bin/tool -b BROKER a1 a2 a3 (input on stdin) exits 1 saying msg. */
static void
expect_tool_error(const char *input, const char *tool, const char *a1,
    const char *a2, const char *a3, const char *msg)
{
	char *err = NULL;

	CU_ASSERT_EQUAL(support_tool(input, NULL, &err, tool, "-b", d.broker,
	    a1, a2, a3, NULL), 1);
	if (err == NULL || strstr(err, msg) == NULL)
		fprintf(stderr, "%s %s %s: '%s', want '%s'\n", tool, a1, a2,
		    err != NULL ? err : "", msg);
	CU_ASSERT_PTR_NOT_NULL(err != NULL ? strstr(err, msg) : NULL);
	free(err);
}

/*
 * flume-admin gets INVALID_TOPIC, said as such, for a create or delete;
 * flume-produce to __consumer_offsets too; flume-admin topics lists the
 * clients' topics only, flume-admin describe names the internal one.
 */
static void
test_native_tools_refuse(void)
{
	char *out = NULL;

	expect_tool_error(NULL, "flume-admin", "create", "__consumer_offsets",
	    NULL, "invalid or reserved topic name");
	expect_tool_error(NULL, "flume-admin", "delete", "__transaction_state",
	    NULL, "invalid or reserved topic name");
	expect_tool_error(NULL, "flume-admin", "delete", "flume.pid", NULL,
	    "invalid or reserved topic name");
	expect_tool_error(NULL, "flume-admin", "delete", "__consumer_offsets",
	    NULL, "invalid or reserved topic name");
	expect_tool_error("x\n", "flume-produce", "-t", "__consumer_offsets",
	    NULL, "invalid or reserved topic name");
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-admin", "-b",
	    d.broker, "topics", NULL), 0);
	CU_ASSERT(out != NULL && strcmp(out, "t 1\n") == 0);
	if (out != NULL && strcmp(out, "t 1\n") != 0)
		fprintf(stderr, "flume-admin topics: '%s'\n", out);
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-admin", "-b",
	    d.broker, "describe", "__consumer_offsets", NULL), 0);
	/* A header line and its 4 partitions. */
	CU_ASSERT(out != NULL && strncmp(out, "PARTITION", 9) == 0 &&
	    lines(out) == 1 + CO_PARTS);
	free(out);
	CU_ASSERT(data_has("__consumer_offsets/topic.meta"));
	/* Made at the first start too (transactions, test_kafka_txn.c). */
	CU_ASSERT(data_has("__transaction_state/topic.meta"));
	CU_ASSERT(data_has("flume.pid"));
	CU_ASSERT_EQUAL(committed("G"), 9);
}

/* Write data/<rel> as a Flume text file: body, then its crc32c line. */
static int
write_checked(const char *rel, const char *body)
{
	char path[1024];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", d.data, rel);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "%scrc32c %08x\n", body,
	    (unsigned)crc32c(0, body, strlen(body)));
	rc = fclose(f);
	return rc;
}

static void
rm_data(const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", d.data, rel);
	test_rmtree(path);
}

/*
 * A data directory as brokers before the topic left it: the group files
 * of two layouts ago in __consumer_offsets/ (which a Kafka client had
 * also made a one-partition topic of: it becomes the internal topic),
 * moved to flume~offsets/ at start (one line), read into the topic (two
 * commit records), then kept as flume~offsets.migrated until the next
 * clean start, which removes it; every start has every group's offset.
 */
static void
test_old_layout_starts_with_its_groups(void)
{
	struct corec rec[8];
	char path[1024];

	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	rm_data("__consumer_offsets");
	snprintf(path, sizeof(path), "%s/__consumer_offsets", d.data);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/__consumer_offsets/partition-0",
	    d.data);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
	CU_ASSERT_FATAL(write_checked("__consumer_offsets/topic.meta",
	    "flume-topic 1\npartitions 1\n") == 0);
	CU_ASSERT_FATAL(write_checked("__consumer_offsets/G.offsets",
	    "flume-offsets 1\ngroup G\nt 0 7\n") == 0);
	CU_ASSERT_FATAL(write_checked("__consumer_offsets/billing.offsets",
	    "flume-offsets 1\ngroup billing\nt 0 4\n") == 0);

	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(committed("G"), 7);
	CU_ASSERT_EQUAL(committed("billing"), 4);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "moved the committed offsets of "
	    "2 groups from"), 1);
	CU_ASSERT_FALSE(data_has("__consumer_offsets/G.offsets"));
	CU_ASSERT_FALSE(data_has("__consumer_offsets/billing.offsets"));
	/* In the topic, synced: the files are kept aside. */
	CU_ASSERT(data_wait("flume~offsets.migrated/G.offsets"));
	CU_ASSERT(data_has("flume~offsets.migrated/billing.offsets"));
	CU_ASSERT_FALSE(data_has("flume~offsets"));
	CU_ASSERT_EQUAL(kcat_corecs(rec, 8), 2);
	expect_clients("committed 4\n", "committed", "billing", "t", NULL);

	/* A clean start: the files go; the offsets come from the topic. */
	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "moved the committed offsets"),
	    1);
	CU_ASSERT_FALSE(data_has("flume~offsets.migrated"));
	CU_ASSERT_FALSE(data_has("flume~offsets"));
	CU_ASSERT_EQUAL(committed("G"), 7);
	CU_ASSERT_EQUAL(committed("billing"), 4);
	CU_ASSERT_EQUAL(kcat_corecs(rec, 8), 2);
}

TEST_SUITE("internal", setup, teardown,
    { "Kafka clients read __consumer_offsets, never write or delete it",
	test_kafka_clients_read_offsets_topic },
    { "Burrow lists the group and its lag", test_burrow_lag },
    { "flume-admin and flume-produce refuse the names",
	test_native_tools_refuse },
    { "a data directory of the old layout starts with its groups",
	test_old_layout_starts_with_its_groups });
