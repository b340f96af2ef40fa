/*
 * ACLs and SCRAM users through Kafka's admin API, over the auth_file
 * (worker/kafka/acl.c, scram_admin.c, worker/op/acl.c): kafka-python's
 * KafkaAdminClient creates an ACL that lets bob read topic t and not
 * write it, in force at once and after a restart, and deletes it again;
 * DescribeAcls shows the file's permissions; a non-admin is refused;
 * DENY, a host, DESCRIBE alone, half of admin, an unknown mechanism and
 * iterations out of Kafka's bounds are refused with the file unchanged
 * byte for byte; AlterUserScramCredentials (raw frames after a SCRAM
 * login of the test's own, tests/tools/kafka_acl.py) makes a user who
 * logs in with kafka-python's SCRAM-SHA-256, and deleting the credential
 * locks him out; creations from parallel clients all land; a broker
 * without an auth_file answers SECURITY_DISABLED.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/kafka/kapi.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define PYTHON		"/usr/bin/python3"
#define KAFKA_ACL	"tests/tools/kafka_acl.py"

extern char **environ;

static struct flumed d;
static char *dir;
static char users[600], kbroker[64];
static int kport;

static const char users0[] =
    "# Flume users: alice administers, bob reads nothing yet\n"
    "alice:alice-pw:produce,consume,admin,group-read\n"
    "\n"
    "bob:bob-pw:group-read=g.\n";

static int
write_users(const char *text)
{
	FILE *f;

	if ((f = fopen(users, "w")) == NULL)
		return -1;
	fputs(text, f);
	fclose(f);
	return chmod(users, 0600);
}

static int
setup(void)
{
	char extra[1024];

	if ((dir = test_mkdtemp("kacl")) == NULL)
		return -1;
	snprintf(users, sizeof(users), "%s/users", dir);
	if (write_users(users0) == -1)
		return -1;
	kport = support_free_port();
	snprintf(kbroker, sizeof(kbroker), "127.0.0.1:%d", kport);
	snprintf(extra, sizeof(extra), "auth_file = %s\n"
	    "client_log_interval_ms = 0\nkafka_listen = %s\n"
	    "[topic t]\npartitions = 1\n[topic u]\npartitions = 1\n",
	    users, kbroker);
	return flumed_start(&d, extra);
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	if (dir != NULL) {
		test_rmtree(dir);
		free(dir);
	}
	return 0;
}

/* kafka_acl.py CMD BROKER args...: its stdout (malloc'd), or NULL. */
static char *
acl_tool(const char *cmd, ...)
{
	const char *argv[24];
	va_list ap;
	char *out = NULL;
	int n = 0;

	argv[n++] = PYTHON;
	argv[n++] = KAFKA_ACL;
	argv[n++] = cmd;
	argv[n++] = kbroker;
	va_start(ap, cmd);
	while (n < 23 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (support_run_cmd(PYTHON, argv, NULL, &out, NULL, 60000) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* The tool's output is exactly want (with its newline). */
#define TOOL_IS(call, want) do {					\
	char *o_ = (call);						\
	CU_ASSERT_PTR_NOT_NULL(o_);					\
	if (o_ != NULL) {						\
		CU_ASSERT_STRING_EQUAL(o_, want);			\
		if (strcmp(o_, want) != 0)				\
			fprintf(stderr, "got: %s\nwant: %s\n", o_, want); \
	}								\
	free(o_);							\
} while (0)

/* The auth_file is exactly text, byte for byte. */
static int
users_are(const char *text)
{
	size_t len;
	uint8_t *b = test_slurp(users, &len);
	int same;

	same = b != NULL && len == strlen(text) && memcmp(b, text, len) == 0;
	if (!same && b != NULL)
		fprintf(stderr, "auth_file:\n%.*s\n", (int)len, (char *)b);
	free(b);
	return same;
}

/*
 * user may not read topic: kafka-python gets nothing (the broker denies
 * the topic's metadata, so it never fetches) and the broker says why.
 */
static void
read_refused(const char *user, const char *pw, const char *topic)
{
	char needle[128];
	int before;

	snprintf(needle, sizeof(needle), "user %s: access denied: Metadata on "
	    "topic %s", user, topic);
	before = flumed_log_count(&d, needle);
	TOOL_IS(acl_tool("read", user, pw, topic, NULL), "read ok \n");
	CU_ASSERT(flumed_log_count(&d, needle) > before);
}

static void
test_describe_shows_the_file(void)
{
	TOOL_IS(acl_tool("describe", "alice", "alice-pw", NULL),
	    "describe\n"
	    " CLUSTER:kafka-cluster:LITERAL:User:alice:ALL:ALLOW\n"
	    " GROUP:*:LITERAL:User:alice:READ:ALLOW\n"
	    " GROUP:g.:PREFIXED:User:bob:READ:ALLOW\n"
	    " TOPIC:*:LITERAL:User:alice:ALTER:ALLOW\n"
	    " TOPIC:*:LITERAL:User:alice:ALTER_CONFIGS:ALLOW\n"
	    " TOPIC:*:LITERAL:User:alice:CREATE:ALLOW\n"
	    " TOPIC:*:LITERAL:User:alice:DELETE:ALLOW\n"
	    " TOPIC:*:LITERAL:User:alice:DESCRIBE_CONFIGS:ALLOW\n"
	    " TOPIC:*:LITERAL:User:alice:READ:ALLOW\n"
	    " TOPIC:*:LITERAL:User:alice:WRITE:ALLOW\n");
	TOOL_IS(acl_tool("describe", "alice", "alice-pw", "User:bob", NULL),
	    "describe\n"
	    " GROUP:g.:PREFIXED:User:bob:READ:ALLOW\n");
}

static void
test_non_admin_refused(void)
{
	TOOL_IS(acl_tool("describe", "bob", "bob-pw", NULL),
	    "describe ClusterAuthorizationFailedError\n");
	TOOL_IS(acl_tool("create", "bob", "bob-pw", "User:bob", "TOPIC", "t",
	    "LITERAL", "READ", "ALLOW", "*", NULL),
	    "create ClusterAuthorizationFailedError\n");
	TOOL_IS(acl_tool("delete", "bob", "bob-pw", "User:alice", "ANY", "-",
	    "ANY", "ANY", NULL), "delete ClusterAuthorizationFailedError\n");
	TOOL_IS(acl_tool("scram-describe", "bob", "bob-pw", NULL),
	    "describe 31\n");
	TOOL_IS(acl_tool("scram-upsert", "bob", "bob-pw", "bob",
	    "SCRAM-SHA-256", "4096", "x", NULL), "alter bob 31\n");
	CU_ASSERT(users_are(users0));
}

static void
test_read_acl_in_force_and_after_restart(void)
{
	static const char with_read[] =
	    "# Flume users: alice administers, bob reads nothing yet\n"
	    "alice:alice-pw:produce,consume,admin,group-read\n"
	    "\n"
	    "bob:bob-pw:group-read=g.,consume==t\n";

	TOOL_IS(acl_tool("produce", "alice", "alice-pw", "t", "a1", NULL),
	    "produce ok\n");
	read_refused("bob", "bob-pw", "t");
	/* READ on topic t, LITERAL: consume==t and nothing more. */
	TOOL_IS(acl_tool("create", "alice", "alice-pw", "User:bob", "TOPIC",
	    "t", "LITERAL", "READ", "ALLOW", "*", NULL), "create ok\n");
	CU_ASSERT(users_are(with_read));
	TOOL_IS(acl_tool("read", "bob", "bob-pw", "t", NULL), "read ok a1\n");
	TOOL_IS(acl_tool("produce", "bob", "bob-pw", "t", "b1", NULL),
	    "produce TopicAuthorizationFailedError\n");
	/* Literal: topic u is not t. */
	read_refused("bob", "bob-pw", "u");
	TOOL_IS(acl_tool("describe", "alice", "alice-pw", "User:bob", NULL),
	    "describe\n"
	    " GROUP:g.:PREFIXED:User:bob:READ:ALLOW\n"
	    " TOPIC:t:LITERAL:User:bob:READ:ALLOW\n");
	/* After a restart the file says the same. */
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	TOOL_IS(acl_tool("read", "bob", "bob-pw", "t", NULL), "read ok a1\n");
	/* Deleted: refused again at once, the file as it was. */
	TOOL_IS(acl_tool("delete", "alice", "alice-pw", "User:bob", "TOPIC",
	    "t", "LITERAL", "READ", NULL),
	    "delete 1\n TOPIC:t:LITERAL:READ:NoError\n");
	CU_ASSERT(users_are(users0));
	read_refused("bob", "bob-pw", "t");
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	read_refused("bob", "bob-pw", "t");
}

static void
test_bad_input_changes_nothing(void)
{
	TOOL_IS(acl_tool("create", "alice", "alice-pw", "User:bob", "TOPIC",
	    "t", "LITERAL", "READ", "DENY", "*", NULL),
	    "create InvalidRequestError\n");
	TOOL_IS(acl_tool("create", "alice", "alice-pw", "User:bob", "TOPIC",
	    "t", "LITERAL", "READ", "ALLOW", "10.0.0.1", NULL),
	    "create InvalidRequestError\n");
	TOOL_IS(acl_tool("create", "alice", "alice-pw", "User:bob", "TOPIC",
	    "t", "LITERAL", "DESCRIBE", "ALLOW", "*", NULL),
	    "create InvalidRequestError\n");
	/* CREATE alone would grant DELETE too (Flume's admin). */
	TOOL_IS(acl_tool("create", "alice", "alice-pw", "User:bob", "TOPIC",
	    "t", "PREFIXED", "CREATE", "ALLOW", "*", NULL),
	    "create InvalidRequestError\n");
	TOOL_IS(acl_tool("create", "alice", "alice-pw", "User:nobody",
	    "TOPIC", "t", "LITERAL", "READ", "ALLOW", "*", NULL),
	    "create InvalidRequestError\n");
	/* Kafka's own codes for SCRAM: mechanism 33, iterations 93. */
	TOOL_IS(acl_tool("scram-upsert", "alice", "alice-pw", "carol", "7",
	    "8192", "carol-pw", NULL), "alter carol 33\n");
	TOOL_IS(acl_tool("scram-upsert", "alice", "alice-pw", "carol",
	    "SCRAM-SHA-256", "4095", "carol-pw", NULL), "alter carol 93\n");
	TOOL_IS(acl_tool("scram-upsert", "alice", "alice-pw", "carol",
	    "SCRAM-SHA-256", "16385", "carol-pw", NULL), "alter carol 93\n");
	TOOL_IS(acl_tool("scram-delete", "alice", "alice-pw", "carol",
	    "SCRAM-SHA-256", NULL), "alter carol 91\n");
	TOOL_IS(acl_tool("scram-describe", "alice", "alice-pw", "carol", NULL),
	    "describe 0\n carol 91 \n");
	CU_ASSERT(users_are(users0));
}

static void
test_scram_user_logs_in_then_not(void)
{
	int before = flumed_log_count(&d, "authentication failed for user "
	    "carol: no such user"), fd;

	TOOL_IS(acl_tool("scram-upsert", "alice", "alice-pw", "carol",
	    "SCRAM-SHA-256", "8192", "carol-pw", NULL), "alter carol 0\n");
	/* kafka-python logs in with what the broker never saw in clear. */
	TOOL_IS(acl_tool("login", "carol", "carol-pw", NULL), "login ok\n");
	/*
	 * The native AUTH needs a password, which a SCRAM-only user has not:
	 * neither hers nor an empty one opens it.
	 */
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL(support_auth(fd, "carol", "carol-pw"), ERR_AUTH_FAILED);
	close(fd);
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL(support_auth(fd, "carol", ""), ERR_AUTH_FAILED);
	close(fd);
	/* A second mechanism beside the first, and both after a restart. */
	TOOL_IS(acl_tool("scram-upsert", "alice", "alice-pw", "carol",
	    "SCRAM-SHA-512", "4096", "carol-512", NULL), "alter carol 0\n");
	TOOL_IS(acl_tool("scram-describe", "alice", "alice-pw", "carol", "bob",
	    NULL), "describe 0\n carol 0 1:8192,2:4096\n"
	    " bob 0 1:4096,2:4096\n");
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	TOOL_IS(acl_tool("login", "carol", "carol-512", "SCRAM-SHA-512", NULL),
	    "login ok\n");
	TOOL_IS(acl_tool("login", "carol", "carol-pw", "SCRAM-SHA-512", NULL),
	    "login NoBrokersAvailable\n");
	TOOL_IS(acl_tool("login", "carol", "carol-pw", NULL), "login ok\n");
	/* A new user has no permission until an ACL grants one. */
	read_refused("carol", "carol-pw", "t");
	TOOL_IS(acl_tool("create", "alice", "alice-pw", "User:carol", "TOPIC",
	    "t", "LITERAL", "READ", "ALLOW", "*", NULL), "create ok\n");
	TOOL_IS(acl_tool("read", "carol", "carol-pw", "t", NULL),
	    "read ok a1\n");
	TOOL_IS(acl_tool("scram-delete", "alice", "alice-pw", "carol",
	    "SCRAM-SHA-256", NULL), "alter carol 0\n");
	TOOL_IS(acl_tool("scram-delete", "alice", "alice-pw", "carol",
	    "SCRAM-SHA-512", NULL), "alter carol 0\n");
	TOOL_IS(acl_tool("login", "carol", "carol-pw", NULL),
	    "login NoBrokersAvailable\n");
	CU_ASSERT(flumed_wait_log(&d, "authentication failed for user carol: "
	    "no such user", before + 1, 5000) >= before + 1);
	/* The line stays, with its permission and no credential. */
	CU_ASSERT(users_are(
	    "# Flume users: alice administers, bob reads nothing yet\n"
	    "alice:alice-pw:produce,consume,admin,group-read\n"
	    "\n"
	    "bob:bob-pw:group-read=g.\n"
	    "carol:{scram}:consume==t\n"));
}

static void
test_parallel_creations_all_land(void)
{
	static const char *const topics[] = { "p1", "p2", "p3", "p4" };
	char *argv[4][16];
	pid_t pids[4];
	int i, st, ok = 0;
	char *out;

	for (i = 0; i < 4; i++) {
		char **a = argv[i];

		a[0] = PYTHON;
		a[1] = KAFKA_ACL;
		a[2] = "create";
		a[3] = kbroker;
		a[4] = "alice";
		a[5] = "alice-pw";
		a[6] = "User:bob";
		a[7] = "TOPIC";
		a[8] = (char *)(uintptr_t)topics[i];
		a[9] = "PREFIXED";
		a[10] = "WRITE";
		a[11] = "ALLOW";
		a[12] = "*";
		a[13] = NULL;
		CU_ASSERT_EQUAL_FATAL(posix_spawn(&pids[i], PYTHON, NULL, NULL,
		    a, environ), 0);
	}
	for (i = 0; i < 4; i++)
		if (waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0)
			ok++;
	CU_ASSERT_EQUAL(ok, 4);
	out = acl_tool("describe", "alice", "alice-pw", "User:bob", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "describe\n"
	    " GROUP:g.:PREFIXED:User:bob:READ:ALLOW\n"
	    " TOPIC:p1:PREFIXED:User:bob:WRITE:ALLOW\n"
	    " TOPIC:p2:PREFIXED:User:bob:WRITE:ALLOW\n"
	    " TOPIC:p3:PREFIXED:User:bob:WRITE:ALLOW\n"
	    " TOPIC:p4:PREFIXED:User:bob:WRITE:ALLOW\n");
	free(out);
}

/* The error code at off of the answer to corr; -1000 closed, -2000 none. */
static int
kcode(int fd, int32_t corr, size_t off)
{
	uint8_t *p = NULL;
	size_t n = 0;
	uint32_t id;
	int rc, code;

	if ((rc = support_recv(fd, 10000, &id, &p, &n)) == 0)
		return -1000;
	code = rc == 1 && id == (uint32_t)corr && n >= off + 2 ?
	    (int16_t)be16_get(p + off) : -2000;
	free(p);
	return code;
}

static void
test_auth_off_security_disabled(void)
{
	/* DescribeAcls v1: ANY resource, null name, ANY pattern, ... */
	static const uint8_t describe[] = { 1, 0xff, 0xff, 1, 0xff, 0xff,
	    0xff, 0xff, 1, 1 };
	/* CreateAcls v1: one creation, READ ALLOW on topic t for User:a. */
	static const uint8_t create[] = { 0, 0, 0, 1, 2, 0, 1, 't', 3, 0, 6,
	    'U', 's', 'e', 'r', ':', 'a', 0, 1, '*', 3, 3 };
	/* AlterUserScramCredentials v0 (flexible: the header's tags first). */
	static const uint8_t alter[] = { 0, 2, 2, 'a', 1, 0, 1, 0 };
	/* DescribeUserScramCredentials v0: every user (null). */
	static const uint8_t scram[] = { 0, 0, 0 };
	struct flumed off;
	char extra[128];
	int fd, port = support_free_port();

	memset(&off, 0, sizeof(off));
	snprintf(extra, sizeof(extra), "kafka_listen = 127.0.0.1:%d\n", port);
	CU_ASSERT_EQUAL_FATAL(flumed_start(&off, extra), 0);
	fd = support_connect_from(port, NULL);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(support_kafka_send(fd, KAPI_DESCRIBE_ACLS, 1, 1,
	    describe, sizeof(describe)), 0);
	CU_ASSERT_EQUAL(kcode(fd, 1, 4), KERR_SECURITY_DISABLED);
	CU_ASSERT_EQUAL(support_kafka_send(fd, KAPI_CREATE_ACLS, 1, 2, create,
	    sizeof(create)), 0);
	CU_ASSERT_EQUAL(kcode(fd, 2, 8), KERR_SECURITY_DISABLED);
	CU_ASSERT_EQUAL(support_kafka_send(fd, KAPI_ALTER_USER_SCRAM_CREDENTIALS,
	    0, 3, alter, sizeof(alter)), 0);
	/* tags, throttle, 1 result, user "a", its error */
	CU_ASSERT_EQUAL(kcode(fd, 3, 8), KERR_SECURITY_DISABLED);
	CU_ASSERT_EQUAL(support_kafka_send(fd,
	    KAPI_DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 4, scram, sizeof(scram)),
	    0);
	CU_ASSERT_EQUAL(kcode(fd, 4, 5), KERR_SECURITY_DISABLED);
	close(fd);
	flumed_cleanup(&off);
}

TEST_SUITE("kafka_acl", setup, teardown,
    { "DescribeAcls shows the auth_file", test_describe_shows_the_file },
    { "a non-admin is refused", test_non_admin_refused },
    { "a READ ACL: consume, not produce, at once and after a restart",
	test_read_acl_in_force_and_after_restart },
    { "bad input is refused, the file unchanged",
	test_bad_input_changes_nothing },
    { "a SCRAM user logs in, then not", test_scram_user_logs_in_then_not },
    { "parallel creations all land", test_parallel_creations_all_land },
    { "without an auth_file: SECURITY_DISABLED",
	test_auth_off_security_disabled });
