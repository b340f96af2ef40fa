/*
 * Flume's own state out of every client's reach (issue 24).  The names
 * Kafka reserves for its internal topics are no topic a client can make,
 * write or delete, on either protocol: a Kafka Metadata for
 * __consumer_offsets (kcat -L -t, as Burrow does at start) no longer
 * creates a topic whose directory held every group's committed offsets,
 * and a DeleteTopics of it no longer removes them.  The offsets live in
 * data/flume~offsets/, which no topic name can reach, and a data
 * directory of the old layout moves there at start with every group.
 * Nor can a client create or delete a topic "flume.pid", the name of
 * the data directory's lock file.
 *
 * Real clients: kcat, kafka-python and confluent-kafka through
 * tests/tools/kafka_internal.py.  The broker auto-creates topics, as the
 * bug needed.  Topic "t" has one partition holding 10 records.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/crc32c.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define PYTHON		"/usr/bin/python3"
#define KCAT		"/usr/bin/kcat"
#define CLIENTS		"tests/tools/kafka_internal.py"
#define REFUSED		"refused: the name is reserved for the broker's " \
			"own use"
#define UNKNOWN_CO	"topic \"__consumer_offsets\" with 0 partitions: " \
			"Broker: Unknown topic or partition"

static struct flumed d;
static int kport;
static char kbroker[64];

static int
setup(void)
{
	char extra[512];

	if ((kport = support_free_port()) <= 0)
		return -1;
	snprintf(kbroker, sizeof(kbroker), "127.0.0.1:%d", kport);
	snprintf(extra, sizeof(extra), "partitions = 3\n"
	    "auto_create_topics = yes\nkafka_listen = %s\n"
	    "[topic t]\npartitions = 1\n", kbroker);
	return flumed_start(&d, extra);
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
	const char *argv[] = { PYTHON, CLIENTS, cmd, kbroker, a1, a2, a3,
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

/* kcat -L -t __consumer_offsets names it unknown, with no partitions. */
static void
expect_kcat_unknown(void)
{
	const char *argv[] = { "kcat", "-b", kbroker, "-L", "-t",
	    "__consumer_offsets", NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL(support_run_cmd(KCAT, argv, NULL, &out, NULL, 30000),
	    0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (strstr(out, UNKNOWN_CO) == NULL)
		fprintf(stderr, "kcat -L: %s\n", out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, UNKNOWN_CO));
	free(out);
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
 * The scenario of the report: a group commits, a Kafka client asks for
 * __consumer_offsets' metadata, then creates and deletes it and produces
 * to it; every one is refused with Kafka's error, nothing is created,
 * and after a restart the group's offset is still there.
 */
static void
test_kafka_clients_cannot_reach_offsets(void)
{
	const char *pargv[] = { "flume-produce", "-t", "t", "-p", "0", NULL };

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n",
	    NULL, 30000, pargv), 0);
	expect_clients("committed 7\n", "commit", "G", "t", "7");
	CU_ASSERT(data_wait("flume~offsets/G.offsets"));

	expect_kcat_unknown();
	expect_clients("kafka-python create InvalidTopicError, delete "
	    "InvalidTopicError; confluent-kafka create TOPIC_EXCEPTION, "
	    "delete TOPIC_EXCEPTION; produce 17; listed []; flume.pid create "
	    "InvalidTopicError, delete InvalidTopicError\n", "refuse", NULL,
	    NULL, NULL);
	/* One line per refused create or delete. */
	CU_ASSERT_EQUAL(flumed_log_count(&d, REFUSED), 6);
	/* The lock file of the data directory is still there. */
	CU_ASSERT(data_has("flume.pid"));
	CU_ASSERT_EQUAL(flumed_log_count(&d, "deleted topic __consumer_offsets"),
	    0);
	CU_ASSERT_FALSE(data_has("__consumer_offsets"));
	CU_ASSERT_FALSE(data_has("__transaction_state"));
	CU_ASSERT(data_has("flume~offsets/G.offsets"));
	CU_ASSERT_EQUAL(committed("G"), 7);

	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(committed("G"), 7);
	expect_clients("committed 7\n", "committed", "G", "t", NULL);
	expect_kcat_unknown();
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
 * flume-admin gets INVALID_TOPIC, said as such; flume-produce finds no
 * such topic (its metadata request does not create it).
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
	expect_tool_error("x\n", "flume-produce", "-t", "__consumer_offsets",
	    NULL, "__consumer_offsets: unknown topic or partition");
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-admin", "-b",
	    d.broker, "topics", NULL), 0);
	CU_ASSERT(out != NULL && strcmp(out, "t 1\n") == 0);
	if (out != NULL && strcmp(out, "t 1\n") != 0)
		fprintf(stderr, "flume-admin topics: '%s'\n", out);
	free(out);
	CU_ASSERT_FALSE(data_has("__consumer_offsets"));
	CU_ASSERT_FALSE(data_has("__transaction_state"));
	CU_ASSERT(data_has("flume.pid"));
	CU_ASSERT_EQUAL(committed("G"), 7);
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
 * A data directory as the broker left it before: the group files in
 * __consumer_offsets/, which a Kafka client had also made a topic of.
 * The start moves the files (one line), says the topic is not served,
 * and every group has its offset; the next start moves nothing.
 */
static void
test_old_layout_starts_with_its_groups(void)
{
	char path[1024];

	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	rm_data("flume~offsets");
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
	CU_ASSERT_EQUAL(flumed_log_count(&d, "/__consumer_offsets: a topic a "
	    "client created under a name Kafka reserves"), 1);
	CU_ASSERT(data_has("flume~offsets/G.offsets"));
	CU_ASSERT(data_has("flume~offsets/billing.offsets"));
	CU_ASSERT_FALSE(data_has("__consumer_offsets/G.offsets"));
	CU_ASSERT_FALSE(data_has("__consumer_offsets/billing.offsets"));
	/* The client's topic is left alone, and not served. */
	CU_ASSERT(data_has("__consumer_offsets/topic.meta"));
	expect_kcat_unknown();
	expect_clients("committed 4\n", "committed", "billing", "t", NULL);

	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "moved the committed offsets"),
	    1);
	CU_ASSERT_EQUAL(committed("G"), 7);
	CU_ASSERT_EQUAL(committed("billing"), 4);
}

TEST_SUITE("internal", setup, teardown,
    { "Kafka clients cannot reach the committed offsets",
	test_kafka_clients_cannot_reach_offsets },
    { "flume-admin and flume-produce refuse the names",
	test_native_tools_refuse },
    { "a data directory of the old layout starts with its groups",
	test_old_layout_starts_with_its_groups });
