/*
 * Quiet, safe logs (issue 24 item 4, issue 32 items 8, 9), against one
 * worker, so every count is exact:
 *
 * - 300 requests of an API Kafka has and Flume does not serve, 300 of
 *   an unsupported version, 300 of a key Kafka does not have, 300
 *   frames of a bad size, 300 malformed bodies, each set from its own
 *   client address, write one line per address, naming the API; a
 *   second address still gets its own line.
 * - A SASL mechanism name holding a newline is logged on one line,
 *   escaped.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "proto/kafka/kapi.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define ATTEMPTS	300

static struct flumed d;
static char *dir;
static int kport;

static int
setup(void)
{
	char users[600], extra[1024];
	FILE *f;

	if ((dir = test_mkdtemp("logs")) == NULL)
		return -1;
	snprintf(users, sizeof(users), "%s/users", dir);
	if ((f = fopen(users, "w")) == NULL)
		return -1;
	fprintf(f, "alice:alice-pw:produce,consume,admin\n");
	fclose(f);
	chmod(users, 0600);
	kport = support_free_port();
	snprintf(extra, sizeof(extra), "workers = 1\nauth_file = %s\n"
	    "kafka_listen = 127.0.0.1:%d\n", users, kport);
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

/* 1 when the broker closed fd without answering (bounded: 10 s). */
static int
closed(int fd)
{
	uint8_t *p = NULL;
	size_t n;
	uint32_t id;
	int rc = support_recv(fd, 10000, &id, &p, &n);

	free(p);
	return rc == 0;
}

/*
 * ATTEMPTS connections from src, each sending frame (len bytes) and
 * closed for it; how many were.
 */
static int
refused_from(const char *src, const uint8_t *frame, size_t len)
{
	int i, fd, n = 0;

	for (i = 0; i < ATTEMPTS; i++) {
		if ((fd = support_connect_from(kport, src)) == -1)
			continue;
		if (support_send(fd, frame, len) == 0 && closed(fd))
			n++;
		close(fd);
	}
	return n;
}

/* A Kafka request frame with an empty body: key, version. */
static size_t
kframe(uint8_t *b, int16_t key, int16_t ver)
{
	be32_put(b, 11);
	be16_put(b + 4, (uint16_t)key);
	be16_put(b + 6, (uint16_t)ver);
	be32_put(b + 8, 7);
	be16_put(b + 12, 1);
	b[14] = 't';
	return 15;
}

/* Lines of the log holding needle, waited for (one at least, 5 s). */
static int
lines(const char *needle)
{
	return flumed_wait_log(&d, needle, 1, 5000);
}

static void
test_refused_requests_once_per_address(void)
{
	static const uint8_t bad_size[] = { 0x7f, 0xff, 0xff, 0xff, 0, 0 };
	/* SaslHandshake v1 whose mechanism claims 9 bytes and has 2. */
	static const uint8_t bad_body[] = { 0, 0, 0, 15, 0, 17, 0, 1, 0, 0,
	    0, 8, 0, 1, 't', 0, 9, 'x', 'y' };
	uint8_t f[64];
	size_t n;
	int fd;

	n = kframe(f, 21, 0);		/* DeleteRecords: Kafka's, not ours */
	CU_ASSERT_EQUAL(refused_from("127.0.0.2", f, n), ATTEMPTS);
	n = kframe(f, KAPI_PRODUCE, 99);
	CU_ASSERT_EQUAL(refused_from("127.0.0.3", f, n), ATTEMPTS);
	n = kframe(f, 200, 0);		/* no such API anywhere */
	CU_ASSERT_EQUAL(refused_from("127.0.0.4", f, n), ATTEMPTS);
	CU_ASSERT_EQUAL(refused_from("127.0.0.5", bad_size, sizeof(bad_size)),
	    ATTEMPTS);
	CU_ASSERT_EQUAL(refused_from("127.0.0.6", bad_body, sizeof(bad_body)),
	    ATTEMPTS);
	/* One line each, naming the API. */
	CU_ASSERT_EQUAL(lines("127.0.0.2:"), 1);
	CU_ASSERT_EQUAL(lines(": Kafka DeleteRecords v0 (key 21) is not "
	    "supported, closing connection"), 1);
	CU_ASSERT_EQUAL(lines("127.0.0.3:"), 1);
	CU_ASSERT_EQUAL(lines(": Kafka Produce v99 (key 0) is not supported, "
	    "closing connection"), 1);
	CU_ASSERT_EQUAL(lines("127.0.0.4:"), 1);
	CU_ASSERT_EQUAL(lines(": Kafka API key 200 v0 (Kafka has no such API) "
	    "is not supported, closing connection"), 1);
	CU_ASSERT_EQUAL(lines("127.0.0.5:"), 1);
	CU_ASSERT_EQUAL(lines(": bad frame size, closing connection"), 1);
	CU_ASSERT_EQUAL(lines("127.0.0.6:"), 1);
	CU_ASSERT_EQUAL(lines(": Kafka SaslHandshake v1 (key 17): malformed "
	    "body, closing connection"), 1);
	/* Another address gets its own line; others are still served. */
	n = kframe(f, 21, 0);
	CU_ASSERT_FATAL((fd = support_connect_from(kport, "127.0.0.7")) >= 0);
	CU_ASSERT_EQUAL(support_send(fd, f, n), 0);
	CU_ASSERT(closed(fd));
	close(fd);
	CU_ASSERT_EQUAL(lines("127.0.0.7:"), 1);
	CU_ASSERT_EQUAL(lines(": Kafka DeleteRecords v0 (key 21) is not "
	    "supported, closing connection"), 2);
	n = kframe(f, KAPI_API_VERSIONS, 0);
	CU_ASSERT_FATAL((fd = support_connect_from(kport, "127.0.0.2")) >= 0);
	CU_ASSERT_EQUAL(support_send(fd, f, n), 0);
	CU_ASSERT_FALSE(closed(fd));	/* answered */
	close(fd);
}

static void
test_mechanism_newline_escaped(void)
{
	static const char mech[] = "X\nFORGED 2026-01-01T00:00:00.000 INFO "
	    "[master 1] owned";
	uint8_t body[128], *p = NULL;
	size_t n;
	uint32_t id;
	int fd;

	be16_put(body, sizeof(mech) - 1);
	memcpy(body + 2, mech, sizeof(mech) - 1);
	CU_ASSERT_FATAL((fd = support_connect_from(kport, "127.0.0.8")) >= 0);
	CU_ASSERT_EQUAL(support_kafka_send(fd, KAPI_SASL_HANDSHAKE, 1, 3,
	    body, 2 + sizeof(mech) - 1), 0);
	CU_ASSERT_EQUAL(support_recv(fd, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(id, 3);
	CU_ASSERT_FATAL(n >= 2);
	CU_ASSERT_EQUAL((int16_t)be16_get(p), KERR_UNSUPPORTED_SASL_MECHANISM);
	free(p);
	close(fd);
	CU_ASSERT_EQUAL(lines("127.0.0.8:"), 1);
	CU_ASSERT_EQUAL(lines("127.0.0.8:"), flumed_log_count(&d, "FORGED"));
	CU_ASSERT_EQUAL(lines(": Kafka SASL mechanism X\\nFORGED "
	    "2026-01-01T00:00:00.000 INFO [master 1] owned is not offered"), 1);
}

TEST_SUITE("logs", setup, teardown,
    { "refused requests: one line per address, naming the API",
	test_refused_requests_once_per_address },
    { "a SASL mechanism with a newline: one escaped line",
	test_mechanism_newline_escaped });
