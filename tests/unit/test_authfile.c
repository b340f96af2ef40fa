/*
 * The auth_file parser and permission checks (common/authfile.c), the
 * group permissions and the warning for a file without any, and the
 * AUTH_BEGIN / AUTH_PROVE codecs (proto/msg_auth.c): exact tables,
 * exact error lines, never a secret in a message.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/msg.h"
#include "proto/msg_auth.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "common/authfile.h"

static int
parse(const char *text, struct auth_table *t, char *err, size_t errlen)
{
	return auth_parse("users", text, strlen(text), t, err, errlen);
}

static void
test_parse_users(void)
{
	struct auth_table t;
	char err[256];
	const struct auth_user *u;

	CU_ASSERT_EQUAL_FATAL(parse("# comment\n\n"
	    "alice:s3cret:produce,consume\n"
	    "  bob:p:w:d:consume=orders.  \r\n"
	    "carol:x:\n"
	    "ops@corp:long:admin,produce=logs.,consume=logs.", &t, err,
	    sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(t.nusers, 4);
	u = &t.users[0];
	CU_ASSERT_STRING_EQUAL(u->name, "alice");
	CU_ASSERT_EQUAL(u->secret_len, 6);
	CU_ASSERT_EQUAL(memcmp(u->secret, "s3cret", 6), 0);
	CU_ASSERT_EQUAL(u->ngrants, 2);
	CU_ASSERT(auth_user_may(u, AUTH_PRODUCE, "anything", 8));
	CU_ASSERT(auth_user_may(u, AUTH_CONSUME, "x", 1));
	CU_ASSERT(!auth_user_may(u, AUTH_ADMIN, "x", 1));
	/* The secret is everything between the first and the last colon. */
	u = &t.users[1];
	CU_ASSERT_STRING_EQUAL(u->name, "bob");
	CU_ASSERT_EQUAL(u->secret_len, 5);
	CU_ASSERT_EQUAL(memcmp(u->secret, "p:w:d", 5), 0);
	CU_ASSERT(auth_user_may(u, AUTH_CONSUME, "orders.eu", 9));
	CU_ASSERT(auth_user_may(u, AUTH_CONSUME, "orders.", 7));
	CU_ASSERT(!auth_user_may(u, AUTH_CONSUME, "orders", 6));
	CU_ASSERT(!auth_user_may(u, AUTH_CONSUME, "xorders.eu", 10));
	CU_ASSERT(!auth_user_may(u, AUTH_PRODUCE, "orders.eu", 9));
	u = &t.users[2];
	CU_ASSERT_EQUAL(u->ngrants, 0);
	CU_ASSERT(!auth_user_may(u, AUTH_PRODUCE | AUTH_CONSUME | AUTH_ADMIN,
	    "t", 1));
	u = &t.users[3];
	CU_ASSERT_STRING_EQUAL(u->name, "ops@corp");
	CU_ASSERT(auth_user_may(u, AUTH_ADMIN, "x", 1));
	CU_ASSERT(auth_user_may(u, AUTH_PRODUCE, "logs.a", 6));
	CU_ASSERT(!auth_user_may(u, AUTH_PRODUCE, "log", 3));
	/* Any of several permissions will do. */
	CU_ASSERT(auth_user_may(u, AUTH_PRODUCE | AUTH_CONSUME, "logs.b", 6));
	auth_table_free(&t);
	CU_ASSERT_EQUAL(t.nusers, 0);
}

#define UNKNOWN_PERM(where) where ": unknown permission (expected " \
	"produce, consume or admin, each optionally =topic-prefix, or " \
	"group-read, group-describe or group-delete, each optionally " \
	"=group-prefix)"

static void
expect_error(const char *text, const char *msg, const char *secret)
{
	struct auth_table t;
	char err[256];

	CU_ASSERT_EQUAL(parse(text, &t, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(t.nusers, 0);
	CU_ASSERT_STRING_EQUAL(err, msg);
	if (secret != NULL)
		CU_ASSERT_PTR_NULL(strstr(err, secret));
}

static void
test_parse_errors(void)
{
	expect_error("alice\n", "users:1: expected user:secret:permissions", NULL);
	expect_error("ok:a:produce\nalice:SECRET1\n",
	    "users:2: expected user:secret:permissions", "SECRET1");
	expect_error(":SECRET2:produce\n",
	    "users:1: a user name must be 1 to 64 characters", "SECRET2");
	expect_error("al ice:SECRET3:produce\n",
	    "users:1: a user name may only hold A-Z a-z 0-9 . _ - @", "SECRET3");
	expect_error("bob::produce\n",
	    "users:1: user bob: the secret must be 1 to 1024 bytes", NULL);
	expect_error("bob:SECRET4:fly\n", UNKNOWN_PERM("users:1: user bob"), "SECRET4");
	expect_error("bob:SECRET5:produce,\n",
	    "users:1: user bob: empty permission after ','", "SECRET5");
	expect_error("bob:SECRET6:consume=\n",
	    "users:1: user bob: a topic prefix must be 1 to 249 characters",
	    "SECRET6");
	expect_error("bob:SECRET7:consume=a/b\n",
	    "users:1: user bob: a topic prefix may only hold A-Z a-z 0-9 . _ -",
	    "SECRET7");
	expect_error("bob:x:produce\n# c\nbob:SECRET8:consume\n",
	    "users:3: user bob is listed twice", "SECRET8");
	expect_error("bob:x:produce, consume\n", UNKNOWN_PERM("users:1: user bob"), NULL);
}

/* Group permissions: their own names, prefixes and implications. */
static void
test_parse_groups(void)
{
	struct auth_table t;
	char err[256];
	const struct auth_user *u;

	CU_ASSERT_EQUAL_FATAL(parse("a:x:consume=orders.,group-read=app.\n"
	    "b:x:group-describe\n"
	    "c:x:consume,group-delete=ops.,group-read=app.eu\n"
	    "d:x:consume,admin,produce\n", &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(t.nusers, 4);
	u = &t.users[0];
	CU_ASSERT_EQUAL(u->ngrants, 2);
	CU_ASSERT_EQUAL(u->grants[1].perm, AUTH_GROUP_READ);
	CU_ASSERT_STRING_EQUAL(u->grants[1].prefix, "app.");
	CU_ASSERT(auth_user_may_group(u, AUTH_GROUP_READ, "app.x", 5));
	/* Read implies describe, not delete. */
	CU_ASSERT(auth_user_may_group(u, AUTH_GROUP_DESCRIBE, "app.x", 5));
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_DELETE, "app.x", 5));
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_READ, "app", 3));
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_READ, "secret", 6));
	/* A group grant is no topic grant, and the other way round. */
	CU_ASSERT(!auth_user_may(u, AUTH_CONSUME, "app.x", 5));
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_READ, "orders.x", 8));
	CU_ASSERT(auth_user_has(u, AUTH_CONSUME, 0));
	CU_ASSERT(!auth_user_has(u, AUTH_PRODUCE | AUTH_ADMIN, 0));
	u = &t.users[1];
	CU_ASSERT(auth_user_may_group(u, AUTH_GROUP_DESCRIBE, "any", 3));
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_READ, "any", 3));
	CU_ASSERT(!auth_user_has(u, AUTH_CONSUME, 0));
	u = &t.users[2];
	CU_ASSERT(auth_user_may_group(u, AUTH_GROUP_DELETE, "ops.1", 5));
	CU_ASSERT(auth_user_may_group(u, AUTH_GROUP_DESCRIBE, "ops.1", 5));
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_READ, "ops.1", 5));
	CU_ASSERT(auth_user_may_group(u, AUTH_GROUP_READ, "app.eu.1", 8));
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_READ, "app.us", 6));
	/* Every topic permission, no group permission: no group. */
	u = &t.users[3];
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_READ, "g", 1));
	CU_ASSERT(!auth_user_may_group(u, AUTH_GROUP_DESCRIBE, "g", 1));
	auth_table_free(&t);

	expect_error("ok:x:group-read\nbob:SECRET9:group-read=\n",
	    "users:2: user bob: a group prefix must be 1 to 249 characters",
	    "SECRET9");
	expect_error("bob:SECRET10:consume,group-describe=a/b\n",
	    "users:1: user bob: a group prefix may only hold A-Z a-z 0-9 . _ -",
	    "SECRET10");
	expect_error("# c\n\nbob:SECRET11:group=app.\n",
	    UNKNOWN_PERM("users:3: user bob"), "SECRET11");
	expect_error("bob:SECRET12:group-write\n",
	    UNKNOWN_PERM("users:1: user bob"), "SECRET12");
	expect_error("bob:SECRET13:group-read=app.,\n",
	    "users:1: user bob: empty permission after ','", "SECRET13");
}

/* auth_load's warning for a file in which nobody may use a group. */
static void
test_load_groupless_warning(void)
{
	static const char *const texts[] = {
		"alice:x:produce,consume\nbob:y:consume=orders.\n",
		"alice:x:produce,consume\nbob:y:consume,group-read=b.\n",
		"alice:x:produce\n",
	};
	char *dir = test_mkdtemp("authfile"), path[512], err[256], warn[512];
	size_t i;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof(path), "%s/users", dir);
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CU_ASSERT_FATAL(fd != -1);
		CU_ASSERT_EQUAL(write(fd, texts[i], strlen(texts[i])),
		    (ssize_t)strlen(texts[i]));
		close(fd);
		CU_ASSERT_EQUAL(auth_load(path, err, sizeof(err), warn,
		    sizeof(warn)), 0);
		if (i == 0) {
			CU_ASSERT_PTR_NOT_NULL(strstr(warn, "/users: no user has "
			    "a group permission, so no consumer group may be "
			    "used (add group-read=prefix, see flume.conf(5))"));
			CU_ASSERT_PTR_NULL(strstr(warn, "readable"));
		} else	/* some group permission, or nobody consumes */
			CU_ASSERT_STRING_EQUAL(warn, "");
	}
	/* With the mode warning: both in one line. */
	chmod(path, 0644);
	fd = open(path, O_WRONLY | O_TRUNC);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL(write(fd, texts[0], strlen(texts[0])),
	    (ssize_t)strlen(texts[0]));
	close(fd);
	CU_ASSERT_EQUAL(auth_load(path, err, sizeof(err), warn, sizeof(warn)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(warn, "(mode 644); it holds secrets, "
	    "chmod 600 it; "));
	CU_ASSERT_PTR_NOT_NULL(strstr(warn, "/users: no user has a group "
	    "permission"));
	CU_ASSERT_PTR_NULL(strchr(warn, '\n'));
	auth_unload();
	test_rmtree(dir);
	free(dir);
}

static void
test_parse_nul(void)
{
	static const char text[] = "bob:x\0y:produce\n";
	struct auth_table t;
	char err[128];

	CU_ASSERT_EQUAL(auth_parse("users", text, sizeof(text) - 1, &t, err,
	    sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "users:1: unexpected NUL byte");
}

static void
test_codecs(void)
{
	struct auth_begin_req bq = { "alice", 5 }, bq2;
	struct auth_begin_resp bs, bs2;
	struct auth_prove_req pq, pq2;
	struct auth_prove_resp ps = { ERR_AUTH_FAILED }, ps2;
	struct wbuf wb;
	int i;

	wbuf_init(&wb);
	msg_encode_auth_begin_req(&wb, &bq);
	CU_ASSERT_EQUAL(wb.len, 7);
	CU_ASSERT_EQUAL(memcmp(wb.buf, "\0\5alice", 7), 0);
	CU_ASSERT_EQUAL(msg_decode_auth_begin_req(wb.buf, wb.len, &bq2), 0);
	CU_ASSERT_EQUAL(bq2.user_len, 5);
	CU_ASSERT_EQUAL(memcmp(bq2.user, "alice", 5), 0);
	CU_ASSERT_EQUAL(msg_decode_auth_begin_req(wb.buf, wb.len - 1, &bq2), -1);

	wbuf_reset(&wb);
	bs.error = 0;
	for (i = 0; i < AUTH_NONCE_LEN; i++)
		bs.nonce[i] = (uint8_t)(i * 7);
	msg_encode_auth_begin_resp(&wb, &bs);
	CU_ASSERT_EQUAL(wb.len, 2 + AUTH_NONCE_LEN);
	CU_ASSERT_EQUAL(msg_decode_auth_begin_resp(wb.buf, wb.len, &bs2), 0);
	CU_ASSERT_EQUAL(memcmp(bs2.nonce, bs.nonce, AUTH_NONCE_LEN), 0);
	CU_ASSERT_EQUAL(msg_decode_auth_begin_resp(wb.buf, wb.len - 1, &bs2), -1);
	/* An error answer has no nonce, and must have none. */
	wbuf_reset(&wb);
	bs.error = ERR_UNSUPPORTED_API;
	msg_encode_auth_begin_resp(&wb, &bs);
	CU_ASSERT_EQUAL(wb.len, 2);
	CU_ASSERT_EQUAL(msg_decode_auth_begin_resp(wb.buf, wb.len, &bs2), 0);
	CU_ASSERT_EQUAL(bs2.error, ERR_UNSUPPORTED_API);
	wbuf_raw(&wb, bs.nonce, AUTH_NONCE_LEN);
	CU_ASSERT_EQUAL(msg_decode_auth_begin_resp(wb.buf, wb.len, &bs2), -1);

	wbuf_reset(&wb);
	memset(pq.mac, 0xab, sizeof(pq.mac));
	msg_encode_auth_prove_req(&wb, &pq);
	CU_ASSERT_EQUAL(wb.len, AUTH_MAC_LEN);
	CU_ASSERT_EQUAL(msg_decode_auth_prove_req(wb.buf, wb.len, &pq2), 0);
	CU_ASSERT_EQUAL(memcmp(pq2.mac, pq.mac, AUTH_MAC_LEN), 0);
	CU_ASSERT_EQUAL(msg_decode_auth_prove_req(wb.buf, wb.len - 1, &pq2), -1);
	wbuf_i8(&wb, 0);
	wbuf_i8(&wb, 0);
	CU_ASSERT_EQUAL(msg_decode_auth_prove_req(wb.buf, wb.len, &pq2), -1);

	wbuf_reset(&wb);
	msg_encode_auth_prove_resp(&wb, &ps);
	CU_ASSERT_EQUAL(wb.len, 2);
	CU_ASSERT_EQUAL(msg_decode_auth_prove_resp(wb.buf, wb.len, &ps2), 0);
	CU_ASSERT_EQUAL(ps2.error, ERR_AUTH_FAILED);
	CU_ASSERT_EQUAL(msg_decode_auth_prove_resp(wb.buf, 1, &ps2), -1);
	wbuf_free(&wb);
}

TEST_SUITE("authfile", NULL, NULL,
    { "parse users, secrets and grants", test_parse_users },
    { "errors name the line, never the secret", test_parse_errors },
    { "group permissions", test_parse_groups },
    { "auth_load warns of a file without group permissions",
	test_load_groupless_warning },
    { "NUL byte", test_parse_nul },
    { "AUTH_BEGIN / AUTH_PROVE codecs", test_codecs });
