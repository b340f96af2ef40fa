/*
 * Bad input on the socket: every case gets an error response or a closed
 * connection, the workers stay up, another client keeps producing and
 * fetching meanwhile, and nothing appears outside the data directory.
 *
 * test_badinput_auth.c includes this file with BADINPUT_AUTH defined:
 * the same cases against a broker with an auth_file, every raw
 * connection authenticated first (badinput_connect()) and the tools
 * given a secret file.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;
static pid_t workers_before[2];
static int good_rounds;

#define BADINPUT_CONF	"partitions = 2\nmax_request_bytes = 1M\n" \
	"max_message_bytes = 256K"

#ifdef BADINPUT_AUTH
#define BADINPUT_USER	"tester"
#define BADINPUT_SECRET	"badinput-secret"
static char *authdir;

/* An auth file and a secret file for the tools; the extra config lines. */
static const char *
badinput_conf(void)
{
	static char extra[1024];
	char path[512];
	FILE *f;

	authdir = test_mkdtemp("badinput-auth");
	snprintf(path, sizeof(path), "%s/users", authdir);
	if ((f = fopen(path, "w")) == NULL)
		return NULL;
	fprintf(f, "%s:%s:produce,consume,admin\n", BADINPUT_USER,
	    BADINPUT_SECRET);
	fclose(f);
	snprintf(extra, sizeof(extra), "%s\nauth_file = %s", BADINPUT_CONF, path);
	snprintf(path, sizeof(path), "%s/secret", authdir);
	if ((f = fopen(path, "w")) == NULL)
		return NULL;
	fprintf(f, "%s:%s\n", BADINPUT_USER, BADINPUT_SECRET);
	fclose(f);
	setenv("FLUME_SECRET_FILE", path, 1);
	return extra;
}

static void
badinput_conf_free(void)
{
	if (authdir != NULL) {
		test_rmtree(authdir);
		free(authdir);
		authdir = NULL;
	}
	unsetenv("FLUME_SECRET_FILE");
}

/* A raw connection, authenticated: the bad input comes after that. */
static int
badinput_connect(void)
{
	int fd = support_connect(&d);

	if (fd != -1 && support_auth(fd, BADINPUT_USER, BADINPUT_SECRET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}
#else
static const char *
badinput_conf(void)
{
	return BADINPUT_CONF;
}

static void
badinput_conf_free(void)
{
}

static int
badinput_connect(void)
{
	return support_connect(&d);
}
#endif

static int
setup(void)
{
	const char *extra = badinput_conf();

	if (extra == NULL || flumed_start(&d, extra) != 0) {
		badinput_conf_free();
		return -1;
	}
	workers_before[0] = flumed_child_pid(&d, "worker", 0);
	workers_before[1] = flumed_child_pid(&d, "worker", 1);
	if (workers_before[0] <= 0 || workers_before[1] <= 0) {
		flumed_cleanup(&d);
		badinput_conf_free();
		return -1;
	}
	return 0;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	badinput_conf_free();
	return 0;
}

/* A well-behaved client: produce one message and read it back. */
static void
good_client_works(void)
{
	const char *produce[] = { "flume-produce", "-t", "good", "-p", "0", "-v",
	    NULL };
	const char *consume[] = { "flume-consume", "-t", "good", "-p", "0", "-o",
	    NULL, "-e", "-n", "1", NULL };
	char msg[32], offs[32], *out = NULL;
	int p = -1;
	long o = -1;

	snprintf(msg, sizeof(msg), "good-%d\n", good_rounds++);
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, msg, &out, 10000, produce), 0);
	CU_ASSERT_EQUAL(sscanf(out, "%d %ld", &p, &o), 2);
	free(out);
	CU_ASSERT_EQUAL(p, 0);
	CU_ASSERT_EQUAL(o, good_rounds - 1);
	snprintf(offs, sizeof(offs), "%ld", o);
	consume[6] = offs;
	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 10000, consume), 0);
	CU_ASSERT_STRING_EQUAL(out, msg);
	free(out);
}

/* Send raw bytes; 1 if the connection was closed, else the response error. */
static int
send_raw(const void *buf, size_t len, uint32_t *id)
{
	uint8_t *payload = NULL;
	size_t plen = 0;
	int fd, r, result;

	fd = badinput_connect();
	CU_ASSERT_FATAL(fd != -1);
	support_send(fd, buf, len);
	r = support_recv(fd, 5000, id, &payload, &plen);
	if (r == 0)
		result = -1000;		/* closed */
	else if (r == 1 && plen >= 2)
		result = (int16_t)be16_get(payload);
	else
		result = -2000;		/* no answer in time */
	free(payload);
	close(fd);
	return result;
}

static int
send_request(uint16_t api, const struct wbuf *wb)
{
	uint8_t *frame = malloc(wb->len + 10);
	uint32_t id = 0;
	int r;

	be32_put(frame, (uint32_t)wb->len + 6);
	be16_put(frame + 4, api);
	be32_put(frame + 6, 77);
	memcpy(frame + 10, wb->buf, wb->len);
	r = send_raw(frame, wb->len + 10, &id);
	if (r > -1000)
		CU_ASSERT_EQUAL(id, 77);
	free(frame);
	return r;
}

/*
 * Seeded junk three ways, each with the one outcome the framing rules
 * give it: under a size field over max_request_bytes, the connection
 * closed; as one whole frame for an API key no row serves,
 * ERR_UNSUPPORTED_API under its request id; as the body of a PRODUCE
 * whose partition count is negative, ERR_INVALID_REQUEST.
 */
static void
test_random_bytes(void)
{
	uint8_t junk[1024];
	uint32_t id = 0, want;

	test_fill_random(junk, sizeof(junk));
	junk[0] |= 0x80;		/* a size of 2 GiB or more */
	CU_ASSERT_EQUAL(send_raw(junk, sizeof(junk), &id), -1000);
	good_client_works();

	test_fill_random(junk, sizeof(junk));
	be32_put(junk, sizeof(junk) - 4);
	/* API_MAX and above: no row serves them. */
	be16_put(junk + 4, (uint16_t)(API_MAX +
	    be16_get(junk + 4) % (0x10000 - API_MAX)));
	want = be32_get(junk + 6);
	CU_ASSERT_EQUAL(send_raw(junk, sizeof(junk), &id), ERR_UNSUPPORTED_API);
	CU_ASSERT_EQUAL(id, want);
	good_client_works();

	/* PRODUCE: acks (1 byte), timeout (4), then the count. */
	test_fill_random(junk, sizeof(junk));
	be32_put(junk, sizeof(junk) - 4);
	be16_put(junk + 4, API_PRODUCE);
	junk[10 + 1 + 4] |= 0x80;
	want = be32_get(junk + 6);
	CU_ASSERT_EQUAL(send_raw(junk, sizeof(junk), &id), ERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(id, want);
	good_client_works();
}

static void
test_frame_claiming_2gib(void)
{
	uint8_t frame[10] = { 0x80, 0, 0, 0, 0, API_PRODUCE, 0, 0, 0, 1 };
	uint32_t id;

	CU_ASSERT_EQUAL(send_raw(frame, sizeof(frame), &id), -1000);
	CU_ASSERT(flumed_log_count(&d, "frame") >= 1);
	good_client_works();
}

static void
test_frame_too_small(void)
{
	uint8_t frame[6] = { 0, 0, 0, 2, 0, API_PRODUCE };
	uint32_t id;

	CU_ASSERT_EQUAL(send_raw(frame, sizeof(frame), &id), -1000);
	good_client_works();
}

static void
test_negative_count(void)
{
	struct wbuf wb;

	wbuf_init(&wb);
	wbuf_i8(&wb, 1);
	wbuf_i32(&wb, 1000);
	wbuf_i32(&wb, -1);		/* count */
	CU_ASSERT_EQUAL(send_request(API_PRODUCE, &wb), ERR_INVALID_REQUEST);
	wbuf_free(&wb);
	good_client_works();
}

static void
test_overlong_inner_length(void)
{
	struct wbuf wb;

	wbuf_init(&wb);
	wbuf_i8(&wb, 1);
	wbuf_i32(&wb, 1000);
	wbuf_i32(&wb, 1);
	wbuf_str(&wb, "good", 4);
	wbuf_i32(&wb, 0);
	wbuf_i32(&wb, 100000);		/* records length past the frame */
	wbuf_raw(&wb, "0123456789", 10);
	CU_ASSERT_EQUAL(send_request(API_PRODUCE, &wb), ERR_INVALID_REQUEST);
	wbuf_reset(&wb);
	wbuf_i32(&wb, 1);		/* metadata: one topic */
	wbuf_i16(&wb, -1);		/* string length 65535, nothing follows */
	CU_ASSERT_EQUAL(send_request(API_METADATA, &wb), ERR_INVALID_REQUEST);
	wbuf_free(&wb);
	good_client_works();
}

static void
test_frame_cut_in_the_middle(void)
{
	uint8_t frame[10] = { 0, 0, 0, 100, 0, API_FETCH, 0, 0, 0, 1 };
	int fd = badinput_connect();

	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_EQUAL(support_send(fd, frame, sizeof(frame)), 0);
	close(fd);
	good_client_works();
}

static int
count_entries(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (dp == NULL)
		return -1;
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(dp);
	return n;
}

static void
test_bad_topic_names(void)
{
	const char *names[] = { "../x", "a/b", "", "..", ".", "x\ny" };
	char longname[300];
	int before = count_entries(d.dir);
	struct wbuf wb;
	struct stat st;
	char path[1024];

	memset(longname, 'n', 250);
	longname[250] = '\0';
	wbuf_init(&wb);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) + 1; i++) {
		const char *name = i < 6 ? names[i] : longname;

		wbuf_reset(&wb);
		wbuf_str(&wb, name, strlen(name));
		wbuf_i32(&wb, 1);
		CU_ASSERT_EQUAL(send_request(API_CREATE_TOPIC, &wb), ERR_INVALID_TOPIC);
		/* The produce path checks names too, and answers per entry. */
		wbuf_reset(&wb);
		wbuf_i8(&wb, 1);
		wbuf_i32(&wb, 1000);
		wbuf_i32(&wb, 1);
		wbuf_str(&wb, name, strlen(name));
		wbuf_i32(&wb, 0);
		wbuf_i32(&wb, 0);
		{
			uint8_t *frame = malloc(wb.len + 10), *payload = NULL;
			uint32_t id;
			size_t plen;
			int fd = badinput_connect();

			be32_put(frame, (uint32_t)wb.len + 6);
			be16_put(frame + 4, API_PRODUCE);
			be32_put(frame + 6, 5);
			memcpy(frame + 10, wb.buf, wb.len);
			CU_ASSERT_EQUAL(support_send(fd, frame, wb.len + 10), 0);
			CU_ASSERT_EQUAL(support_recv(fd, 5000, &id, &payload, &plen), 1);
			/* [error i16][count i32][error i16]... */
			CU_ASSERT_FATAL(plen >= 8);
			CU_ASSERT_EQUAL((int16_t)be16_get(payload), 0);
			CU_ASSERT_EQUAL(be32_get(payload + 2), 1);
			CU_ASSERT_EQUAL((int16_t)be16_get(payload + 6), ERR_INVALID_TOPIC);
			free(payload);
			free(frame);
			close(fd);
		}
	}
	wbuf_free(&wb);
	snprintf(path, sizeof(path), "%s/x", d.dir);
	CU_ASSERT_EQUAL(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/a", d.data);
	CU_ASSERT_EQUAL(stat(path, &st), -1);
	CU_ASSERT_EQUAL(count_entries(d.dir), before);
	good_client_works();
}

/* After everything above, the same two worker processes still serve. */
static void
test_workers_survived(void)
{
	CU_ASSERT_EQUAL(flumed_child_pid(&d, "worker", 0), workers_before[0]);
	CU_ASSERT_EQUAL(flumed_child_pid(&d, "worker", 1), workers_before[1]);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "exited"), 0);
}

#ifndef BADINPUT_SUITE
#define BADINPUT_SUITE		"badinput"
#define BADINPUT_EXTRA_CASES
#endif

TEST_SUITE(BADINPUT_SUITE, setup, teardown,
    BADINPUT_EXTRA_CASES
    { "random bytes", test_random_bytes },
    { "frame claiming 2 GiB", test_frame_claiming_2gib },
    { "frame too small for a header", test_frame_too_small },
    { "negative count", test_negative_count },
    { "overlong inner length", test_overlong_inner_length },
    { "frame cut in the middle", test_frame_cut_in_the_middle },
    { "bad topic names", test_bad_topic_names },
    { "workers survived", test_workers_survived });
