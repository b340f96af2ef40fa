/*
 * Permissions of the group offset apis and SIGHUP reloads of the
 * auth_file, against the real daemon:
 *
 *  - OFFSET_COMMIT and OFFSET_FETCH are checked per topic with the same
 *    rule as FETCH: an entry outside the user's consume prefix is
 *    answered ACCESS_DENIED (nothing stored, nothing shown), and "every
 *    committed offset" lists only topics the user may consume.
 *  - SIGHUP reads the auth_file again: the open connection of a user
 *    removed from it is closed and a new one is refused; a changed
 *    permission applies to the next request of an open connection; a
 *    bad file is logged and changes nothing.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/msg_auth.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;
static char *adir;
static char users[512], rootsecret[512];

#define ROOT_SECRET	"root-pw-0123456789"
#define BOB_SECRET	"bob-pw"
#define CAROL_SECRET	"carol-pw"
#define DAVE_SECRET	"dave-pw"

/* bob and carol may use every group; what they see is per topic. */
static const char users_v1[] =
    "root:" ROOT_SECRET ":admin,produce,consume\n"
    "bob:" BOB_SECRET ":consume=orders.,group-read\n"
    "carol:" CAROL_SECRET ":consume,group-read\n"
    "dave:" DAVE_SECRET ":consume=orders.\n";
/* carol removed, dave moved from orders.* to private. */
static const char users_v2[] =
    "root:" ROOT_SECRET ":admin,produce,consume\n"
    "bob:" BOB_SECRET ":consume=orders.,group-read\n"
    "dave:" DAVE_SECRET ":consume=private\n";

static int
write_file(const char *path, const char *text)
{
	char tmp[600];
	size_t len = strlen(text);
	int fd;

	/* Replaced by rename, as an editor or a deployment tool would. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		return -1;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	if (close(fd) == -1)
		return -1;
	return rename(tmp, path);
}

static int
setup(void)
{
	char extra[1024];

	adir = test_mkdtemp("authreload");
	snprintf(users, sizeof(users), "%s/users", adir);
	snprintf(rootsecret, sizeof(rootsecret), "%s/root.secret", adir);
	if (write_file(users, users_v1) == -1 ||
	    write_file(rootsecret, "root:" ROOT_SECRET "\n") == -1)
		goto fail;
	snprintf(extra, sizeof(extra), "auth_file = %s\npartitions = 1\n"
	    "group_min_session_timeout_ms = 500\n", users);
	setenv("FLUME_SECRET_FILE", rootsecret, 1);
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
	flumed_stop(&d);
	flumed_cleanup(&d);
	test_rmtree(adir);
	free(adir);
	unsetenv("FLUME_SECRET_FILE");
	return 0;
}

static int
connect_as(const char *user, const char *secret)
{
	int fd = support_connect(&d);

	CU_ASSERT_FATAL(fd != -1);
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
produce_to(const char *topic, const char *value)
{
	const char *argv[] = { "flume-produce", "-t", topic, value, NULL };

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, NULL, 10000, argv), 0);
}

/* JOIN_GROUP group on topic as the connection fd; member id and generation out. */
static void
join(int fd, const char *group, const char *topic, char *member, size_t msize,
    int32_t *generation)
{
	struct join_group_req q;
	struct join_group_resp s;
	struct wire_str t = { topic, strlen(topic) };
	struct arena a;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t len = 0;

	memset(&q, 0, sizeof(q));
	q.group = group;
	q.group_len = strlen(group);
	q.member_id = "";
	q.client_id = "test";
	q.client_id_len = 4;
	q.session_timeout_ms = 10000;
	q.count = 1;
	q.topics = &t;
	wbuf_init(&wb);
	msg_encode_join_group_req(&wb, &q);
	CU_ASSERT_EQUAL_FATAL(support_call(fd, API_JOIN_GROUP, 1, &wb, 15000,
	    &p, &len), 0);
	arena_init(&a, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(msg_decode_join_group_resp(p, len, &a, &s), 0);
	CU_ASSERT_FATAL(s.member_id_len < msize);
	memcpy(member, s.member_id, s.member_id_len);
	member[s.member_id_len] = '\0';
	*generation = s.generation;
	arena_free(&a);
	wbuf_free(&wb);
	free(p);
}

/* OFFSET_COMMIT topic/0 at offset for each of n topics; errors[] out. */
static void
commit(int fd, const char *group, const char *member, int32_t generation,
    const char *const *topics, int n, int64_t offset, int16_t *errors)
{
	struct offset_commit_req q;
	struct offset_commit_resp s;
	struct commit_part cp[4];
	struct arena a;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++) {
		cp[i].topic = topics[i];
		cp[i].topic_len = strlen(topics[i]);
		cp[i].partition = 0;
		cp[i].offset = offset;
	}
	q.group = group;
	q.group_len = strlen(group);
	q.member_id = member;
	q.member_id_len = strlen(member);
	q.generation = generation;
	q.count = n;
	q.parts = cp;
	wbuf_init(&wb);
	msg_encode_offset_commit_req(&wb, &q);
	CU_ASSERT_EQUAL_FATAL(support_call(fd, API_OFFSET_COMMIT, 2, &wb, 5000,
	    &p, &len), 0);
	arena_init(&a, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(msg_decode_offset_commit_resp(p, len, &a, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.count, n);
	for (i = 0; i < n; i++)
		errors[i] = s.errors[i];
	arena_free(&a);
	wbuf_free(&wb);
	free(p);
}

/*
 * OFFSET_FETCH of topic/0 for each of n topics (n 0: every committed
 * offset); per result error and offset out, the count returned.
 */
static int
offsets(int fd, const char *group, const char *const *topics, int n,
    int16_t *errors, int64_t *offs, char names[][32])
{
	struct offset_fetch_req q;
	struct offset_fetch_resp s;
	struct group_tp tp[4];
	struct arena a;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t len = 0;
	int i, count;

	for (i = 0; i < n; i++) {
		tp[i].topic = topics[i];
		tp[i].topic_len = strlen(topics[i]);
		tp[i].partition = 0;
	}
	q.group = group;
	q.group_len = strlen(group);
	q.count = n;
	q.parts = tp;
	wbuf_init(&wb);
	msg_encode_offset_fetch_req(&wb, &q);
	CU_ASSERT_EQUAL_FATAL(support_call(fd, API_OFFSET_FETCH, 3, &wb, 5000,
	    &p, &len), 0);
	arena_init(&a, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(msg_decode_offset_fetch_resp(p, len, &a, &s), 0);
	count = s.count;
	for (i = 0; i < s.count && i < 4; i++) {
		errors[i] = s.results[i].error;
		offs[i] = s.results[i].offset;
		snprintf(names[i], 32, "%.*s", (int)s.results[i].topic_len,
		    s.results[i].topic);
	}
	arena_free(&a);
	wbuf_free(&wb);
	free(p);
	return count;
}

/* FETCH topic/0 from offset 0 on fd: the partition's error code. */
static int
fetch_error(int fd, const char *topic)
{
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t len = 0;
	int e = -1;

	wbuf_init(&wb);
	wbuf_i32(&wb, 0);
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 1 << 20);
	wbuf_i32(&wb, 1);
	wbuf_str(&wb, topic, strlen(topic));
	wbuf_i32(&wb, 0);
	wbuf_i64(&wb, 0);
	wbuf_i32(&wb, 1 << 20);
	if (support_call(fd, API_FETCH, 4, &wb, 5000, &p, &len) == 0 && len >= 8)
		e = (int16_t)be16_get(p + 6);
	wbuf_free(&wb);
	free(p);
	return e;
}

static void
test_offsets_per_topic(void)
{
	const char *both[] = { "private", "orders.a" };
	char member[256], names[4][32];
	int16_t errs[4];
	int64_t offs[4];
	int32_t gen;
	int bob, carol;

	produce_to("orders.a", "o1");
	produce_to("orders.a", "o2");
	produce_to("private", "p1");
	produce_to("private", "p2");

	/* carol (consume on every topic) commits both in her group. */
	carol = connect_as("carol", CAROL_SECRET);
	join(carol, "gc", "orders.a", member, sizeof(member), &gen);
	commit(carol, "gc", member, gen, both, 2, 2, errs);
	CU_ASSERT_EQUAL(errs[0], ERR_NONE);
	CU_ASSERT_EQUAL(errs[1], ERR_NONE);

	/* bob (consume=orders.) may commit orders.a only. */
	bob = connect_as("bob", BOB_SECRET);
	join(bob, "gb", "orders.a", member, sizeof(member), &gen);
	commit(bob, "gb", member, gen, both, 2, 1, errs);
	CU_ASSERT_EQUAL(errs[0], ERR_ACCESS_DENIED);
	CU_ASSERT_EQUAL(errs[1], ERR_NONE);
	/* Nothing stored for private: carol sees -1 there, 1 for orders.a. */
	CU_ASSERT_EQUAL(offsets(carol, "gb", both, 2, errs, offs, names), 2);
	CU_ASSERT_EQUAL(errs[0], ERR_NONE);
	CU_ASSERT_EQUAL(offs[0], -1);
	CU_ASSERT_EQUAL(errs[1], ERR_NONE);
	CU_ASSERT_EQUAL(offs[1], 1);

	/* bob may not read carol's offset of private, only of orders.a ... */
	CU_ASSERT_EQUAL(offsets(bob, "gc", both, 2, errs, offs, names), 2);
	CU_ASSERT_EQUAL(errs[0], ERR_ACCESS_DENIED);
	CU_ASSERT_EQUAL(offs[0], -1);
	CU_ASSERT_EQUAL(errs[1], ERR_NONE);
	CU_ASSERT_EQUAL(offs[1], 2);
	/* ... and "every committed offset" lists orders.a alone for him. */
	CU_ASSERT_EQUAL(offsets(bob, "gc", NULL, 0, errs, offs, names), 1);
	CU_ASSERT_STRING_EQUAL(names[0], "orders.a");
	CU_ASSERT_EQUAL(offs[0], 2);
	CU_ASSERT_EQUAL(offsets(carol, "gc", NULL, 0, errs, offs, names), 2);
	close(bob);
	close(carol);
	/* Each denial names the request bob sent. */
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "user bob: access denied: OFFSET_COMMIT on topic private"), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "user bob: access denied: OFFSET_FETCH on topic private"), 1);
}

static void
test_sighup_reload(void)
{
	int carol, dave, again, applied;

	produce_to("orders.a", "o3");
	produce_to("private", "p3");
	carol = connect_as("carol", CAROL_SECRET);
	dave = connect_as("dave", DAVE_SECRET);
	CU_ASSERT_EQUAL(fetch_error(carol, "private"), ERR_NONE);
	CU_ASSERT_EQUAL(fetch_error(dave, "orders.a"), ERR_NONE);
	CU_ASSERT_EQUAL(fetch_error(dave, "private"), ERR_ACCESS_DENIED);

	applied = flumed_log_count(&d, "applied the reloaded auth_file");
	CU_ASSERT_EQUAL_FATAL(write_file(users, users_v2), 0);
	CU_ASSERT_EQUAL_FATAL(kill(d.pid, SIGHUP), 0);
	/* Both workers (workers = 2) take the new table. */
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "applied the reloaded auth_file",
	    applied + 2, 10000), applied + 2);

	/* carol's open session is closed; a new one is refused. */
	CU_ASSERT(closed_by_broker(carol));
	close(carol);
	again = support_connect(&d);
	CU_ASSERT_FATAL(again != -1);
	CU_ASSERT_EQUAL(support_auth(again, "carol", CAROL_SECRET),
	    ERR_AUTH_FAILED);
	close(again);
	CU_ASSERT_EQUAL(flumed_log_count(&d,
	    "user carol is no longer in the auth_file, closing"), 1);

	/* dave's open session goes on under his new permissions. */
	CU_ASSERT_EQUAL(fetch_error(dave, "private"), ERR_NONE);
	CU_ASSERT_EQUAL(fetch_error(dave, "orders.a"), ERR_ACCESS_DENIED);

	/* A bad file is logged and changes nothing. */
	CU_ASSERT_EQUAL_FATAL(write_file(users, "dave:" DAVE_SECRET
	    ":consume=private\nbroken line\n"), 0);
	CU_ASSERT_EQUAL_FATAL(kill(d.pid, SIGHUP), 0);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "reload of the auth_file failed",
	    1, 10000), 1);
	CU_ASSERT_EQUAL(fetch_error(dave, "private"), ERR_NONE);
	close(dave);
	again = connect_as("bob", BOB_SECRET);
	CU_ASSERT_EQUAL(fetch_error(again, "orders.a"), ERR_NONE);
	close(again);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "applied the reloaded auth_file"),
	    applied + 2);
	/* No secret in the log. */
	CU_ASSERT_EQUAL(flumed_log_count(&d, CAROL_SECRET), 0);
	CU_ASSERT_EQUAL(flumed_log_count(&d, DAVE_SECRET), 0);
}

TEST_SUITE("auth_reload", setup, teardown,
    { "offset_commit/offset_fetch per topic", test_offsets_per_topic },
    { "SIGHUP reloads the auth_file", test_sighup_reload });
