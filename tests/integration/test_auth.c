/*
 * Authentication and access control through the real daemon: a broker
 * with an auth_file answers nothing but HANDSHAKE and the AUTH apis
 * before a client proves its secret; a wrong secret or an unknown user
 * is refused (and the connection closed); a forbidden topic or an admin
 * operation without admin is denied per entry, with a log line naming
 * the user and no data either way; the tools authenticate from
 * --secret-file or FLUME_SECRET_FILE; no secret ever reaches the log.
 * Also: the data directory is created 0700 and the shared memory 0600.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/msg_auth.h"
#include "proto/wire.h"
#include "shm/shm.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;
static char *adir;		/* auth file and the users' secret files */
static char users[512];

#define ALICE_SECRET	"s3cret-of-alice"
#define BOB_SECRET	"pw:of:bob"
#define ROOT_SECRET	"root-pw-0123456789"
#define NOBODY_SECRET	"nobody-pw"
#define CAROL_SECRET	"carol-pw"

static const char users_text[] =
    "# test users\n"
    "alice:" ALICE_SECRET ":produce,consume\n"
    "bob:" BOB_SECRET ":consume=orders.\n"
    "root:" ROOT_SECRET ":admin,produce,consume\n"
    "nobody:" NOBODY_SECRET ":\n"
    "carol:" CAROL_SECRET ":produce=logs.,consume=logs.\n";

static int
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	size_t len = strlen(text);

	if (fd == -1)
		return -1;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The path of user's secret file (written by setup). */
static const char *
secret_path(const char *user)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, 512, "%s/%s.secret", adir, user);
	return p;
}

static int
setup(void)
{
	char extra[1024], line[256];
	static const char *const who[][2] = { { "alice", ALICE_SECRET },
	    { "bob", BOB_SECRET }, { "root", ROOT_SECRET },
	    { "nobody", NOBODY_SECRET }, { "wrong", "alice:not-her-secret" } };
	size_t i;

	adir = test_mkdtemp("auth");
	snprintf(users, sizeof(users), "%s/users", adir);
	if (write_file(users, users_text, 0600) == -1)
		goto fail;
	for (i = 0; i < sizeof(who) / sizeof(who[0]); i++) {
		if (strcmp(who[i][0], "wrong") == 0)
			snprintf(line, sizeof(line), "%s\n", who[i][1]);
		else
			snprintf(line, sizeof(line), "%s:%s\n", who[i][0], who[i][1]);
		if (write_file(secret_path(who[i][0]), line, 0600) == -1)
			goto fail;
	}
	/* Every failure logged: the tests count them (test_logs: the limit). */
	snprintf(extra, sizeof(extra), "auth_file = %s\npartitions = 2\n"
	    "client_log_interval_ms = 0\n", users);
	/* flume-admin workers (used by flumed_child_pid) needs admin. */
	setenv("FLUME_SECRET_FILE", secret_path("root"), 1);
	if (flumed_start(&d, extra) != 0)
		goto fail;
	return 0;
fail:
	test_rmtree(adir);
	free(adir);
	return -1;
}

static int
teardown(void)
{
	flumed_stop(&d);	/* faster than the kill of flumed_cleanup */
	flumed_cleanup(&d);
	test_rmtree(adir);
	free(adir);
	unsetenv("FLUME_SECRET_FILE");
	return 0;
}

/* A connection authenticated as user (or not at all for NULL). */
static int
connect_as(const char *user, const char *secret)
{
	int fd = support_connect(&d);

	CU_ASSERT_FATAL(fd != -1);
	if (user != NULL)
		CU_ASSERT_EQUAL_FATAL(support_auth(fd, user, secret), 0);
	return fd;
}

/* Was fd closed by the broker (EOF within 5 s)? */
static int
closed_by_broker(int fd)
{
	uint8_t *p = NULL;
	size_t len;
	uint32_t id;
	int r = support_recv(fd, 5000, &id, &p, &len);

	free(p);
	return r == 0;
}

static void
produce_payload(struct wbuf *wb, const char *topic, const char *value)
{
	struct batch_builder bb;
	const uint8_t *batch;
	size_t blen;

	batch_builder_init(&bb);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1700000000000LL, NULL, -1,
	    value, (int32_t)strlen(value), NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &batch, &blen), 0);
	wbuf_i8(wb, 1);
	wbuf_i32(wb, 5000);
	wbuf_i32(wb, 1);
	wbuf_str(wb, topic, strlen(topic));
	wbuf_i32(wb, 0);
	wbuf_bytes(wb, batch, (int32_t)blen);
	batch_builder_free(&bb);
}

/* The per-entry error of a one-entry PRODUCE/LIST_OFFSETS-shaped answer. */
static int
first_entry_error(const uint8_t *p, size_t len)
{
	if (len < 8 || be16_get(p) != 0 || be32_get(p + 2) != 1)
		return -1;
	return (int16_t)be16_get(p + 6);
}

static void
test_modes(void)
{
	char name[SHM_NAME_MAX], path[600];
	struct stat st;

	CU_ASSERT_EQUAL_FATAL(stat(d.data, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0700);
	CU_ASSERT_EQUAL_FATAL(shm_name_for(d.data, name, sizeof(name)), 0);
	snprintf(path, sizeof(path), "/dev/shm%s", name);
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
	snprintf(path, sizeof(path), "%s/flume.pid", d.data);
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 077, 0);
}

static void
test_no_secret(void)
{
	const char *produce[] = { "flume-produce", "-t", "orders.a", NULL };
	struct wbuf wb;
	int fd = connect_as(NULL, NULL), api;
	char path[600];
	struct stat st;

	wbuf_init(&wb);
	/* HANDSHAKE is allowed: the protocol version comes first. */
	wbuf_i16(&wb, 1);
	wbuf_str(&wb, "t", 1);
	CU_ASSERT_EQUAL(support_call(fd, API_HANDSHAKE, 1, &wb, 5000, NULL, NULL), 0);
	/* Everything else, known or not, well-formed or not. */
	for (api = API_METADATA; api < API_MAX + 3; api++) {
		if (api == API_AUTH_BEGIN || api == API_AUTH_PROVE)
			continue;
		CU_ASSERT_EQUAL(support_call(fd, (uint16_t)api, 100 + (uint32_t)api, NULL, 5000, NULL, NULL), ERR_AUTH_REQUIRED);
	}
	wbuf_reset(&wb);
	produce_payload(&wb, "orders.a", "sneaky");
	CU_ASSERT_EQUAL(support_call(fd, API_PRODUCE, 2, &wb, 5000, NULL, NULL),
	    ERR_AUTH_REQUIRED);
	wbuf_free(&wb);
	close(fd);
	/* Before authenticating, a frame over 4K closes the connection. */
	fd = connect_as(NULL, NULL);
	{
		uint8_t hdr[10] = { 0, 0, 0x10, 0x01, 0, API_METADATA, 0, 0, 0, 1 };

		CU_ASSERT_EQUAL(support_send(fd, hdr, sizeof(hdr)), 0);
		CU_ASSERT(closed_by_broker(fd));
	}
	close(fd);
	/* Nothing was created. */
	snprintf(path, sizeof(path), "%s/orders.a", d.data);
	CU_ASSERT_EQUAL(stat(path, &st), -1);
	/* The tools without a secret fail. */
	unsetenv("FLUME_SECRET_FILE");
	CU_ASSERT_EQUAL(run_tool(&d, "x\n", NULL, 10000, produce), 1);
	setenv("FLUME_SECRET_FILE", secret_path("root"), 1);
	CU_ASSERT_EQUAL(stat(path, &st), -1);
}

static void
test_wrong_secret(void)
{
	const char *produce[] = { "flume-produce", "--secret-file",
	    secret_path("wrong"), "-t", "orders.a", NULL };
	int fd, before = flumed_log_count(&d, "authentication failed for user alice");

	fd = connect_as(NULL, NULL);
	CU_ASSERT_EQUAL(support_auth(fd, "alice", "not-her-secret"),
	    ERR_AUTH_FAILED);
	CU_ASSERT(closed_by_broker(fd));
	close(fd);
	/* An unknown user is answered the same way. */
	fd = connect_as(NULL, NULL);
	CU_ASSERT_EQUAL(support_auth(fd, "mallory", "whatever"), ERR_AUTH_FAILED);
	CU_ASSERT(closed_by_broker(fd));
	close(fd);
	CU_ASSERT_EQUAL(run_tool(&d, "x\n", NULL, 10000, produce), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "authentication failed for user alice"), before + 2);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "authentication failed for user mallory (no such user)"), 1);
}

static void
test_protocol_misuse(void)
{
	uint8_t mac[AUTH_MAC_LEN] = { 0 };
	struct wbuf wb;
	int fd;

	/* AUTH_PROVE without AUTH_BEGIN: refused and closed. */
	fd = connect_as(NULL, NULL);
	wbuf_init(&wb);
	wbuf_raw(&wb, mac, sizeof(mac));
	CU_ASSERT_EQUAL(support_call(fd, API_AUTH_PROVE, 7, &wb, 5000, NULL, NULL),
	    ERR_AUTH_FAILED);
	CU_ASSERT(closed_by_broker(fd));
	close(fd);
	/* A short proof and a malformed name are invalid requests. */
	fd = connect_as(NULL, NULL);
	wbuf_reset(&wb);
	wbuf_raw(&wb, mac, 31);
	CU_ASSERT_EQUAL(support_call(fd, API_AUTH_PROVE, 8, &wb, 5000, NULL, NULL),
	    ERR_INVALID_REQUEST);
	wbuf_reset(&wb);
	wbuf_i16(&wb, 40);		/* says 40 bytes, has 3 */
	wbuf_raw(&wb, "abc", 3);
	CU_ASSERT_EQUAL(support_call(fd, API_AUTH_BEGIN, 9, &wb, 5000, NULL, NULL),
	    ERR_INVALID_REQUEST);
	/* After all that, the right secret still works on this connection... */
	CU_ASSERT_EQUAL(support_auth(fd, "alice", ALICE_SECRET), 0);
	/* ... once: a second AUTH_BEGIN is refused. */
	CU_ASSERT_EQUAL(support_auth(fd, "root", ROOT_SECRET), ERR_INVALID_REQUEST);
	wbuf_free(&wb);
	close(fd);
}

static void
test_right_secret(void)
{
	const char *produce[] = { "flume-produce", "--secret-file",
	    secret_path("alice"), "-t", "orders.a", "-p", "0", NULL };
	const char *consume[] = { "flume-consume", "-t", "orders.a", "-p", "0",
	    "-o", "beginning", "-e", NULL };
	char *out = NULL;

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, "one\ntwo\n", NULL, 10000, produce), 0);
	/* FLUME_SECRET_FILE works as well as --secret-file. */
	setenv("FLUME_SECRET_FILE", secret_path("alice"), 1);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, consume), 0);
	setenv("FLUME_SECRET_FILE", secret_path("root"), 1);
	CU_ASSERT_STRING_EQUAL(out, "one\ntwo\n");
	free(out);
	CU_ASSERT(flumed_log_count(&d, "authenticated as user alice") >= 2);
}

static void
test_forbidden_topic(void)
{
	const char *bob_consume[] = { "flume-consume", "--secret-file",
	    secret_path("bob"), "-t", "orders.a", "-p", "0", "-o", "beginning",
	    "-e", NULL };
	const char *alice_produce[] = { "flume-produce", "--secret-file",
	    secret_path("alice"), "-t", "private", "-p", "0", NULL };
	const char *bob_private[] = { "flume-consume", "--secret-file",
	    secret_path("bob"), "-t", "private", "-p", "0", "-o", "beginning",
	    "-e", NULL };
	uint8_t *p = NULL;
	size_t len = 0;
	struct wbuf wb;
	char *out = NULL;
	int fd;

	/* bob may read orders.* ... */
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, bob_consume), 0);
	CU_ASSERT_STRING_EQUAL(out, "one\ntwo\n");
	free(out);
	/* ... but not write it, and not read anything else. */
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, "secret data\n", NULL, 10000,
	    alice_produce), 0);
	out = NULL;
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, bob_private), 1);
	CU_ASSERT_PTR_NULL(strstr(out, "secret data"));
	free(out);

	/* carol may produce to logs.* only: denied per entry elsewhere. */
	fd = connect_as("carol", CAROL_SECRET);
	wbuf_init(&wb);
	produce_payload(&wb, "orders.a", "from carol");
	CU_ASSERT_EQUAL(support_call(fd, API_PRODUCE, 3, &wb, 5000, &p, &len), 0);
	CU_ASSERT_EQUAL(first_entry_error(p, len), ERR_ACCESS_DENIED);
	free(p);
	wbuf_reset(&wb);
	produce_payload(&wb, "logs.x", "from carol");
	p = NULL;
	CU_ASSERT_EQUAL(support_call(fd, API_PRODUCE, 4, &wb, 5000, &p, &len), 0);
	CU_ASSERT_EQUAL(first_entry_error(p, len), 0);
	free(p);
	close(fd);
	/* bob may not produce at all: the whole request is denied. */
	fd = connect_as("bob", BOB_SECRET);
	wbuf_reset(&wb);
	produce_payload(&wb, "orders.a", "from bob");
	CU_ASSERT_EQUAL(support_call(fd, API_PRODUCE, 3, &wb, 5000, NULL, NULL),
	    ERR_ACCESS_DENIED);
	/* FETCH of private: per-partition ACCESS_DENIED and no bytes. */
	wbuf_reset(&wb);
	wbuf_i32(&wb, 0);
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 1 << 20);
	wbuf_i32(&wb, 1);
	wbuf_str(&wb, "private", 7);
	wbuf_i32(&wb, 0);
	wbuf_i64(&wb, 0);
	wbuf_i32(&wb, 1 << 20);
	p = NULL;
	CU_ASSERT_EQUAL(support_call(fd, API_FETCH, 4, &wb, 5000, &p, &len), 0);
	/* [error][count=1][error][log_start][hwm][records len=0] */
	CU_ASSERT_EQUAL_FATAL(len, 2 + 4 + 2 + 8 + 8 + 4);
	CU_ASSERT_EQUAL((int16_t)be16_get(p + 6), ERR_ACCESS_DENIED);
	CU_ASSERT_EQUAL(be32_get(p + 24), 0);
	free(p);
	/* METADATA of every topic lists only what bob may see. */
	wbuf_reset(&wb);
	wbuf_i8(&wb, 0);
	wbuf_i32(&wb, 0);
	p = NULL;
	CU_ASSERT_EQUAL(support_call(fd, API_METADATA, 5, &wb, 5000, &p, &len), 0);
	CU_ASSERT_FATAL(len >= 6);
	CU_ASSERT_EQUAL(be32_get(p + 2), 1);
	CU_ASSERT_FATAL(len >= 6 + 2 + 2 + 8);
	CU_ASSERT_EQUAL(memcmp(p + 10, "orders.a", 8), 0);
	free(p);
	wbuf_free(&wb);
	close(fd);
	/* Still exactly alice's two messages in orders.a. */
	out = NULL;
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, bob_consume), 0);
	CU_ASSERT_STRING_EQUAL(out, "one\ntwo\n");
	free(out);
	CU_ASSERT(flumed_log_count(&d,
	    "user carol: access denied: PRODUCE on topic orders.a") >= 1);
	CU_ASSERT(flumed_log_count(&d, "user bob: access denied: PRODUCE") >= 1);
	CU_ASSERT(flumed_log_count(&d,
	    "user bob: access denied: FETCH on topic private") >= 1);
}

static void
test_admin_without_admin(void)
{
	const char *alice_workers[] = { "flume-admin", "--secret-file",
	    secret_path("alice"), "workers", NULL };
	const char *alice_create[] = { "flume-admin", "--secret-file",
	    secret_path("alice"), "create", "newtopic", NULL };
	const char *root_create[] = { "flume-admin", "--secret-file",
	    secret_path("root"), "create", "newtopic", "-p", "1", NULL };
	char *out = NULL, path[600];
	struct stat st;
	struct wbuf wb;
	int fd;

	CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, alice_workers), 1);
	CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, alice_create), 1);
	snprintf(path, sizeof(path), "%s/newtopic", d.data);
	CU_ASSERT_EQUAL(stat(path, &st), -1);
	/* A user without any permission gets nothing either. */
	fd = connect_as("nobody", NOBODY_SECRET);
	wbuf_init(&wb);
	CU_ASSERT_EQUAL(support_call(fd, API_WORKERS, 6, NULL, 5000, NULL, NULL),
	    ERR_ACCESS_DENIED);
	wbuf_str(&wb, "newtopic", 8);
	wbuf_i32(&wb, 1);
	CU_ASSERT_EQUAL(support_call(fd, API_CREATE_TOPIC, 7, &wb, 5000, NULL, NULL),
	    ERR_ACCESS_DENIED);
	wbuf_free(&wb);
	close(fd);
	/* root may. */
	CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 10000, root_create), 0);
	CU_ASSERT_STRING_EQUAL(out, "created newtopic with 1 partitions\n");
	free(out);
	CU_ASSERT(flumed_child_pid(&d, "worker", 0) > 0);
	CU_ASSERT(flumed_log_count(&d, "user alice: access denied: WORKERS") >= 1);
	CU_ASSERT(flumed_log_count(&d, "user nobody: access denied: WORKERS") >= 1);
}

/* flume-master -n checks the auth file; its messages never show a secret. */
static void
test_config_check(void)
{
	char conf[600], bad[600], cmd[2048], line[700];
	FILE *f;
	int found = 0, leaked = 0, status;

	snprintf(bad, sizeof(bad), "%s/bad-users", adir);
	CU_ASSERT_EQUAL_FATAL(write_file(bad, "ok:pw:produce\n"
	    "eve:TOPSECRET-42:produce,fly\n", 0644), 0);
	snprintf(conf, sizeof(conf), "%s/check.conf", adir);
	snprintf(line, sizeof(line), "auth_file = %s\n", bad);
	CU_ASSERT_EQUAL_FATAL(write_file(conf, line, 0600), 0);
	snprintf(cmd, sizeof(cmd), "%s/flume-master -n -c %s 2>&1",
	    support_bindir(), conf);
	f = popen(cmd, "r");
	CU_ASSERT_FATAL(f != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, ":2: user eve: unknown permission") != NULL)
			found = 1;
		if (strstr(line, "TOPSECRET") != NULL)
			leaked = 1;
	}
	status = pclose(f);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	CU_ASSERT(found);
	CU_ASSERT(!leaked);
	/* A valid file readable by others is accepted with a warning. */
	CU_ASSERT_EQUAL_FATAL(write_file(bad, "ok:pw:produce\n", 0644), 0);
	chmod(bad, 0644);
	f = popen(cmd, "r");
	CU_ASSERT_FATAL(f != NULL);
	found = 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "readable by others") != NULL)
			found = 1;
	status = pclose(f);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT(found);
}

/*
 * users_text lets alice and bob consume but gives no one a group
 * permission: as Kafka, no group is open to anyone, and the master says
 * so once at start.  bob, who could consume orders.*, may not join.
 */
static void
test_groupless_file(void)
{
	struct wire_str t = { "orders.a", 8 };
	struct join_group_req q = { "g", 1, "", 0, "raw", 3, 10000, 1, &t };
	struct wbuf wb;
	int fd;

	CU_ASSERT_EQUAL(flumed_log_count(&d, "/users: no user has a group "
	    "permission, so no consumer group may be used (add "
	    "group-read=prefix, see flume.conf(5))"), 1);
	fd = connect_as("bob", BOB_SECRET);
	wbuf_init(&wb);
	msg_encode_join_group_req(&wb, &q);
	CU_ASSERT_EQUAL(support_call(fd, API_JOIN_GROUP, 8, &wb, 5000, NULL,
	    NULL), ERR_ACCESS_DENIED);
	wbuf_free(&wb);
	close(fd);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "user bob: access denied: "
	    "JOIN_GROUP on group g", 1, 5000), 1);
}

static void
test_no_secret_in_log(void)
{
	CU_ASSERT(flumed_log_count(&d, "authenticated as user") > 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, ALICE_SECRET), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, BOB_SECRET), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, ROOT_SECRET), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, NOBODY_SECRET), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, CAROL_SECRET), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "not-her-secret"), 0);
	/* Nobody crashed on the way. */
	CU_ASSERT_EQUAL(flumed_log_count(&d, "exited"), 0);
}

TEST_SUITE("auth", setup, teardown,
    { "data directory 0700, shared memory 0600", test_modes },
    { "no secret: only handshake is answered", test_no_secret },
    { "wrong secret or unknown user: refused, closed, logged", test_wrong_secret },
    { "auth protocol misuse", test_protocol_misuse },
    { "right secret: tools produce and consume", test_right_secret },
    { "forbidden topic: denied per entry, no data", test_forbidden_topic },
    { "admin op without admin: denied", test_admin_without_admin },
    { "flume-master -n checks the auth file", test_config_check },
    { "a file without group permissions: warned, no group",
	test_groupless_file },
    { "no secret in the log", test_no_secret_in_log });
