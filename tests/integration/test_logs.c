/*
 * Quiet, safe logs and the authentication throttle (issue 24 item 4,
 * issue 32 items 7, 8, 9), against one worker, so every count is exact:
 *
 * - 300 requests of an API Kafka has and Flume does not serve, 300 of
 *   an unsupported version, 300 of a key Kafka does not have, 300
 *   frames of a bad size, 300 malformed bodies, each set from its own
 *   client address, write one line per address, naming the API; a
 *   second address still gets its own line.
 * - 300 transactional InitProducerId retried on one connection write
 *   one line.
 * - A SASL mechanism name holding a newline is logged on one line,
 *   escaped.
 * - A SCRAM failure costs one key derivation whether the user exists or
 *   not, and an unknown user is offered a salt like a real one.
 * - Failures from one address are answered late after
 *   auth_throttle_after, refused unchecked (no derivation) after
 *   auth_throttle_max, and logged once; another address logs in at
 *   once.  The same for the native AUTH_PROVE.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "proto/bytes.h"
#include "proto/kafka/kapi.h"
#include "proto/msg.h"
#include "shm/shm.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define ATTEMPTS	300
#define DELAY_MS	300
#define THROTTLE_AFTER	3
#define THROTTLE_MAX	8

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
	    "kafka_listen = 127.0.0.1:%d\nauth_throttle_after = %d\n"
	    "auth_throttle_delay_ms = %d\nauth_throttle_max = %d\n", users,
	    kport, THROTTLE_AFTER, DELAY_MS, THROTTLE_MAX);
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

/* The sum over the workers of the shm_child counter at off. */
static uint64_t
counter(size_t off)
{
	char name[SHM_NAME_MAX];
	struct shm s;
	uint64_t n = 0;
	uint32_t i;

	if (shm_name_for(d.data, name, sizeof(name)) == -1 ||
	    shm_attach(&s, name) == -1)
		return UINT64_MAX;
	for (i = 0; i < s.hdr->limits.child_slots; i++)
		if (s.children[i].role == ROLE_WORKER)
			n += atomic_load((_Atomic uint64_t *)(void *)
			    ((char *)&s.children[i] + off));
	shm_detach(&s);
	return n;
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
		if (support_send(fd, frame, len) == 0 && support_closed(fd))
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

	n = kframe(f, 27, 0);		/* WriteTxnMarkers: Kafka's, not ours */
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
	CU_ASSERT_EQUAL(lines(": Kafka WriteTxnMarkers v0 (key 27) is not "
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
	n = kframe(f, 27, 0);
	CU_ASSERT_FATAL((fd = support_connect_from(kport, "127.0.0.7")) >= 0);
	CU_ASSERT_EQUAL(support_send(fd, f, n), 0);
	CU_ASSERT(support_closed(fd));
	close(fd);
	CU_ASSERT_EQUAL(lines("127.0.0.7:"), 1);
	CU_ASSERT_EQUAL(lines(": Kafka WriteTxnMarkers v0 (key 27) is not "
	    "supported, closing connection"), 2);
	n = kframe(f, KAPI_API_VERSIONS, 0);
	CU_ASSERT_FATAL((fd = support_connect_from(kport, "127.0.0.2")) >= 0);
	CU_ASSERT_EQUAL(support_send(fd, f, n), 0);
	CU_ASSERT_FALSE(support_closed(fd));	/* answered */
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

/* SaslAuthenticate v0 carrying msg; the answer's error, its bytes in out. */
static int
sasl_auth(int fd, int32_t corr, const char *msg, size_t len, char *out,
    size_t outlen)
{
	uint8_t body[512], *p = NULL;
	size_t n, ml, tl;
	uint32_t id;
	int err = -1;

	be32_put(body, (uint32_t)len);
	memcpy(body + 4, msg, len);
	if (support_kafka_send(fd, KAPI_SASL_AUTHENTICATE, 0, corr, body,
	    4 + len) != 0 || support_recv(fd, 10000, &id, &p, &n) != 1 ||
	    id != (uint32_t)corr || n < 2 + 2 + 4)
		goto out;
	err = (int16_t)be16_get(p);
	ml = be16_get(p + 2) == 0xffff ? 0 : be16_get(p + 2);
	if (n < 4 + ml + 4 || (tl = be32_get(p + 4 + ml)) > n - 8 - ml ||
	    tl >= outlen)
		goto out;
	memcpy(out, p + 8 + ml, tl);
	out[tl] = '\0';
out:
	free(p);
	return err;
}

/*
 * One SCRAM-SHA-256 login from src as user with a wrong proof: the
 * final answer's error (or -1); the server-first message in first; the
 * final step's milliseconds in *ms.
 */
static int
scram_wrong(const char *src, const char *user, char *first, size_t flen,
    long long *ms)
{
	static const uint8_t mech[] = { 0, 13, 'S', 'C', 'R', 'A', 'M', '-',
	    'S', 'H', 'A', '-', '2', '5', '6' };
	uint8_t *p = NULL, zero[32] = { 0 };
	char msg[512], b64[64], out[512], *r, *end;
	size_t n;
	uint32_t id;
	int fd, err = -1;
	long long t0;

	if ((fd = support_connect_from(kport, src)) == -1)
		return -1;
	if (support_kafka_send(fd, KAPI_SASL_HANDSHAKE, 1, 1, mech,
	    sizeof(mech)) != 0 || support_recv(fd, 10000, &id, &p, &n) != 1 ||
	    n < 2 || be16_get(p) != 0)
		goto out;
	snprintf(msg, sizeof(msg), "n,,n=%s,r=testnonce", user);
	if (sasl_auth(fd, 2, msg, strlen(msg), out, sizeof(out)) != 0)
		goto out;
	snprintf(first, flen, "%s", out);
	if ((r = strstr(out, "r=")) == NULL || (end = strchr(r, ',')) == NULL)
		goto out;
	*end = '\0';
	sodium_bin2base64(b64, sizeof(b64), zero, sizeof(zero),
	    sodium_base64_VARIANT_ORIGINAL);
	snprintf(msg, sizeof(msg), "c=biws,%s,p=%s", r, b64);
	t0 = support_now_ms();
	err = sasl_auth(fd, 3, msg, strlen(msg), out, sizeof(out));
	*ms = support_now_ms() - t0;
out:
	free(p);
	close(fd);
	return err;
}

/* The "s=...,i=..." part of a server-first message. */
static const char *
salt_part(const char *first)
{
	const char *s = strstr(first, ",s=");

	return s != NULL ? s : "";
}

#define DERIVED	offsetof(struct shm_child, auth_derivations)
#define THROTTLED offsetof(struct shm_child, auth_throttled)
#define FAILED	offsetof(struct shm_child, auth_failures)

static void
test_unknown_user_same_work(void)
{
	char known[512], unknown[512], again[512];
	uint64_t before = counter(DERIVED);
	long long ms;

	CU_ASSERT_EQUAL(scram_wrong("127.0.0.10", "alice", known,
	    sizeof(known), &ms), KERR_SASL_AUTHENTICATION_FAILED);
	CU_ASSERT_EQUAL(counter(DERIVED), before + 1);
	CU_ASSERT_EQUAL(scram_wrong("127.0.0.11", "mallory", unknown,
	    sizeof(unknown), &ms), KERR_SASL_AUTHENTICATION_FAILED);
	CU_ASSERT_EQUAL(counter(DERIVED), before + 2);
	CU_ASSERT_EQUAL(scram_wrong("127.0.0.12", "mallory", again,
	    sizeof(again), &ms), KERR_SASL_AUTHENTICATION_FAILED);
	CU_ASSERT_EQUAL(counter(DERIVED), before + 3);
	CU_ASSERT_EQUAL(lines(": Kafka SASL SCRAM-SHA-256 authentication failed "
	    "for user mallory: no such user, closing"), 2);
	/* The same shape (24 base64 characters of salt, 4096 rounds)... */
	CU_ASSERT_EQUAL(strlen(salt_part(known)), strlen(",s=,i=4096") + 24);
	CU_ASSERT_EQUAL(strlen(salt_part(unknown)), strlen(",s=,i=4096") + 24);
	CU_ASSERT_PTR_NOT_NULL(strstr(unknown, ",i=4096"));
	/* ... a salt of its own, the same at every try, as a real user's. */
	CU_ASSERT_STRING_NOT_EQUAL(salt_part(known), salt_part(unknown));
	CU_ASSERT_STRING_EQUAL(salt_part(unknown), salt_part(again));
}

/*
 * PLAIN login from src as alice on the Kafka listener: its error; with
 * fdp, the connection is left open there.
 */
static int
plain_login_fd(const char *src, int *fdp)
{
	static const uint8_t mech[] = { 0, 5, 'P', 'L', 'A', 'I', 'N' };
	uint8_t *p = NULL;
	char out[64];
	size_t n;
	uint32_t id;
	int fd, err = -1;

	if ((fd = support_connect_from(kport, src)) == -1)
		return -1;
	if (support_kafka_send(fd, KAPI_SASL_HANDSHAKE, 1, 1, mech,
	    sizeof(mech)) == 0 && support_recv(fd, 10000, &id, &p, &n) == 1 &&
	    n >= 2 && be16_get(p) == 0)
		err = sasl_auth(fd, 2, "\0alice\0alice-pw", 15, out,
		    sizeof(out));
	free(p);
	if (fdp != NULL && err == 0)
		*fdp = fd;
	else
		close(fd);
	return err;
}

static int
plain_login(const char *src)
{
	return plain_login_fd(src, NULL);
}

/*
 * A client that retries a refused request on its connection: 300
 * transactional InitProducerId with a timeout over
 * transaction_max_timeout_ms, each answered INVALID_TRANSACTION_TIMEOUT,
 * one line.
 */
static void
test_retried_refusal_once(void)
{
	static const uint8_t body[] = { 0, 2, 't', 'x', 0x7f, 0xff, 0xff,
	    0xff };
	uint8_t *p = NULL;
	size_t n;
	uint32_t id;
	int i, fd = -1, ok = 0;

	CU_ASSERT_FATAL(plain_login_fd("127.0.0.40", &fd) == 0);
	for (i = 0; i < ATTEMPTS; i++) {
		if (support_kafka_send(fd, KAPI_INIT_PRODUCER_ID, 0, 10 + i,
		    body, sizeof(body)) == 0 &&
		    support_recv(fd, 10000, &id, &p, &n) == 1 &&
		    id == (uint32_t)(10 + i) && n == 4 + 2 + 8 + 2 &&
		    (int16_t)be16_get(p + 4) ==
		    KERR_INVALID_TRANSACTION_TIMEOUT)
			ok++;
		free(p);
		p = NULL;
	}
	close(fd);
	CU_ASSERT_EQUAL(ok, ATTEMPTS);
	CU_ASSERT_EQUAL(lines("127.0.0.40:"), 2);	/* the login, the refusal */
	CU_ASSERT_EQUAL(lines(": InitProducerId: transaction timeout "
	    "2147483647 ms refused"), 1);
}

static void
test_scram_throttle(void)
{
	uint64_t derived = counter(DERIVED), throttled = counter(THROTTLED);
	uint64_t failed = counter(FAILED);
	char first[512];
	long long ms;
	int i;

	for (i = 0; i < THROTTLE_MAX + 4; i++) {
		CU_ASSERT_EQUAL(scram_wrong("127.0.0.20", "alice", first,
		    sizeof(first), &ms), KERR_SASL_AUTHENTICATION_FAILED);
		/* Past THROTTLE_AFTER, answered no earlier than the delay. */
		if (i >= THROTTLE_AFTER && i < THROTTLE_MAX)
			CU_ASSERT(ms >= DELAY_MS - 10);
		if (i == THROTTLE_AFTER)	/* another address: at once */
			CU_ASSERT_EQUAL(plain_login("127.0.0.21"), 0);
	}
	/* Only THROTTLE_MAX were checked; the rest were refused unchecked. */
	CU_ASSERT_EQUAL(counter(DERIVED), derived + THROTTLE_MAX);
	CU_ASSERT_EQUAL(counter(THROTTLED), throttled + THROTTLE_MAX + 4 -
	    THROTTLE_AFTER);
	CU_ASSERT_EQUAL(counter(FAILED), failed + THROTTLE_MAX + 4);
	/* One line for them all (and one from the test above). */
	CU_ASSERT_EQUAL(lines("127.0.0.20:"), 1);
	CU_ASSERT_EQUAL(lines(": Kafka SASL SCRAM-SHA-256 authentication failed "
	    "for user alice: wrong password (or proof), closing"), 2);
	/* The other address is still not throttled. */
	CU_ASSERT_EQUAL(plain_login("127.0.0.21"), 0);
	CU_ASSERT_EQUAL(counter(THROTTLED), throttled + THROTTLE_MAX + 4 -
	    THROTTLE_AFTER);
}

/* The native AUTH_PROVE is throttled the same way, per address. */
static void
test_native_throttle(void)
{
	uint64_t throttled = counter(THROTTLED);
	long long t0;
	int i, fd;

	for (i = 0; i < THROTTLE_MAX + 2; i++) {
		CU_ASSERT_FATAL((fd = support_connect_from(d.port,
		    "127.0.0.30")) >= 0);
		t0 = support_now_ms();
		CU_ASSERT_EQUAL(support_auth(fd, "alice", "wrong"),
		    ERR_AUTH_FAILED);
		if (i >= THROTTLE_AFTER && i < THROTTLE_MAX)
			CU_ASSERT(support_now_ms() - t0 >= DELAY_MS - 10);
		close(fd);
	}
	/* The right secret from there is refused too, until the minute ends... */
	CU_ASSERT_FATAL((fd = support_connect_from(d.port, "127.0.0.30")) >= 0);
	CU_ASSERT_EQUAL(support_auth(fd, "alice", "alice-pw"), ERR_AUTH_FAILED);
	close(fd);
	/* ... and taken at once from another address. */
	CU_ASSERT_FATAL((fd = support_connect_from(d.port, "127.0.0.31")) >= 0);
	CU_ASSERT_EQUAL(support_auth(fd, "alice", "alice-pw"), 0);
	close(fd);
	CU_ASSERT_EQUAL(counter(THROTTLED), throttled + THROTTLE_MAX + 3 -
	    THROTTLE_AFTER);
	CU_ASSERT_EQUAL(lines("127.0.0.30:"), 1);
	CU_ASSERT_EQUAL(lines(": authentication failed for user alice, "
	    "closing"), 1);
}

TEST_SUITE("logs", setup, teardown,
    { "refused requests: one line per address, naming the API",
	test_refused_requests_once_per_address },
    { "a SASL mechanism with a newline: one escaped line",
	test_mechanism_newline_escaped },
    { "SCRAM: an unknown user costs one derivation too",
	test_unknown_user_same_work },
    { "SCRAM: failures delayed, then refused unchecked, logged once",
	test_scram_throttle },
    { "a refusal retried on one connection: one line",
	test_retried_refusal_once },
    { "native AUTH_PROVE: the same throttle", test_native_throttle });
