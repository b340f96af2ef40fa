/*
 * SASL on the Kafka listener with an auth_file: kcat with SASL_SSL and
 * SCRAM-SHA-256 / SCRAM-SHA-512, kafka-python (SaslHandshake v0, bare
 * messages) and confluent-kafka (v1, SaslAuthenticate) over TLS, PLAIN
 * over TLS; a wrong password, an unknown user and a request before
 * authenticating are refused with the client's usual error and one
 * broker line each; a consume-only user gets TOPIC_AUTHORIZATION_FAILED
 * for a produce; raw frames check the exact error codes (33, 34, 58).
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/bytes.h"
#include "proto/kafka/kapi.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define KCAT		"/usr/bin/kcat"
#define PYTHON		"/usr/bin/python3"
#define KAFKA_TLS	"tests/tools/kafka_tls.py"

static struct flumed d;
static char *dir;
static char ca[600], kcat_ca[700], users[600], secret[600];
static int kport, ktport;
static char kbroker[64], ktbroker[64];
static pid_t workers_before[2];

static int
setup(void)
{
	const char *argv[] = { "sh", "scripts/make-test-certs", NULL, NULL };
	char extra[2048];
	FILE *f;

	if ((dir = test_mkdtemp("sasl")) == NULL)
		return -1;
	argv[2] = dir;
	if (support_run_cmd("/bin/sh", argv, NULL, NULL, NULL, 30000) != 0)
		return -1;
	snprintf(ca, sizeof(ca), "%s/ca.pem", dir);
	snprintf(kcat_ca, sizeof(kcat_ca), "ssl.ca.location=%s", ca);
	snprintf(users, sizeof(users), "%s/users", dir);
	snprintf(secret, sizeof(secret), "%s/alice.secret", dir);
	if ((f = fopen(users, "w")) == NULL)
		return -1;
	fprintf(f, "alice:alice-pw:produce,consume,admin\n"
	    "bob:bob-pw:consume\n");
	fclose(f);
	if ((f = fopen(secret, "w")) == NULL)
		return -1;
	fprintf(f, "alice:alice-pw\n");
	fclose(f);
	chmod(users, 0600);
	chmod(secret, 0600);
	kport = support_free_port();
	ktport = support_free_port();
	snprintf(kbroker, sizeof(kbroker), "127.0.0.1:%d", kport);
	snprintf(ktbroker, sizeof(ktbroker), "127.0.0.1:%d", ktport);
	snprintf(extra, sizeof(extra), "auth_file = %s\n"
	    "kafka_listen = %s\nkafka_listen_tls = %s\n"
	    "tls_cert_file = %s/server.pem\ntls_key_file = %s/server.key\n"
	    "[topic s1]\npartitions = 1\n[topic s2]\npartitions = 1\n"
	    "[topic kp]\npartitions = 1\n[topic ck]\npartitions = 1\n"
	    "[topic pl]\npartitions = 1\n",
	    users, kbroker, ktbroker, dir, dir);
	if (flumed_start(&d, extra) != 0)
		return -1;
	/* flume-admin workers (flumed_child_pid) must authenticate too. */
	setenv("FLUME_SECRET_FILE", secret, 1);
	workers_before[0] = flumed_child_pid(&d, "worker", 0);
	workers_before[1] = flumed_child_pid(&d, "worker", 1);
	return workers_before[0] > 0 && workers_before[1] > 0 ? 0 : -1;
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

/* kcat over SASL_SSL as user:password with mech, then args... NULL. */
static int
kcat(const char *input, char **out, char **err, const char *mech,
    const char *user, const char *pass, ...)
{
	const char *argv[40];
	char m[64], u[128], p[128];
	va_list ap;
	int n = 0;

	snprintf(m, sizeof(m), "sasl.mechanisms=%s", mech);
	snprintf(u, sizeof(u), "sasl.username=%s", user);
	snprintf(p, sizeof(p), "sasl.password=%s", pass);
	argv[n++] = "kcat";
	argv[n++] = "-b";
	argv[n++] = ktbroker;
	argv[n++] = "-X";
	argv[n++] = "security.protocol=SASL_SSL";
	argv[n++] = "-X";
	argv[n++] = kcat_ca;
	argv[n++] = "-X";
	argv[n++] = m;
	argv[n++] = "-X";
	argv[n++] = u;
	argv[n++] = "-X";
	argv[n++] = p;
	va_start(ap, pass);
	while (n < 39 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return support_run_cmd(KCAT, argv, input, out, err, 60000);
}

static int
python(char **out, const char *mode, const char *topic, const char *user,
    const char *pass, const char *mech)
{
	const char *argv[] = { PYTHON, KAFKA_TLS, mode, ktbroker, ca, topic,
	    user, pass, mech, NULL };

	return support_run_cmd(PYTHON, argv, NULL, out, NULL, 90000);
}

static void
test_kcat_scram_sha256_produces_and_consumes(void)
{
	char *out = NULL;
	const char *argv[] = { "flume-consume", "-b", d.broker, "--secret-file",
	    secret, "-t", "s1", "-o", "beginning", "-e", NULL };
	char path[600];

	CU_ASSERT_EQUAL(kcat("a\nb\n", NULL, NULL, "SCRAM-SHA-256", "alice",
	    "alice-pw", "-P", "-t", "s1", "-k", "k", NULL), 0);
	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, "SCRAM-SHA-256", "alice",
	    "alice-pw", "-C", "-t", "s1", "-o", "beginning", "-e", "-f",
	    "%k=%s\\n", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "k=a\nk=b\n");
	free(out);
	/* The same user, natively (HMAC challenge), reads the same. */
	snprintf(path, sizeof(path), "%s/flume-consume", support_bindir());
	CU_ASSERT_EQUAL(support_run_cmd(path, argv, NULL, &out, NULL, 30000),
	    0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "a\nb\n");
	free(out);
	CU_ASSERT(flumed_log_count(&d, "authenticated as user alice (SASL "
	    "SCRAM-SHA-256)") >= 2);
}

static void
test_kcat_scram_sha512_consumes(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, "SCRAM-SHA-512", "alice",
	    "alice-pw", "-C", "-t", "s1", "-o", "beginning", "-e", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "a\nb\n");
	free(out);
	CU_ASSERT(flumed_log_count(&d, "authenticated as user alice (SASL "
	    "SCRAM-SHA-512)") >= 1);
}

static void
test_wrong_password_and_unknown_user(void)
{
	int wp = flumed_log_count(&d, "authentication failed for user alice: "
	    "wrong password");
	int nu = flumed_log_count(&d, "authentication failed for user mallory: "
	    "no such user");
	char *err = NULL;

	CU_ASSERT_NOT_EQUAL(kcat(NULL, NULL, &err, "SCRAM-SHA-256", "alice",
	    "nope", "-m", "3", "-L", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "SASL authentication error: "
	    "Authentication failed: invalid credentials"));
	free(err);
	CU_ASSERT(flumed_wait_log(&d, "authentication failed for user alice: "
	    "wrong password", wp + 1, 5000) >= wp + 1);
	CU_ASSERT_NOT_EQUAL(kcat(NULL, NULL, &err, "SCRAM-SHA-512", "mallory",
	    "x", "-m", "3", "-L", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Authentication failed: invalid "
	    "credentials"));
	free(err);
	CU_ASSERT(flumed_wait_log(&d, "authentication failed for user mallory: "
	    "no such user", nu + 1, 5000) >= nu + 1);
}

/* bob may consume only: his produce is refused, nothing is stored. */
static void
test_consume_only_user_cannot_produce(void)
{
	char *out = NULL, *err = NULL;

	/* kcat -P exits 1 when a message was not delivered. */
	CU_ASSERT_EQUAL(kcat("evil\n", NULL, &err, "SCRAM-SHA-256", "bob",
	    "bob-pw", "-P", "-t", "s1", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Topic authorization failed"));
	free(err);
	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, "SCRAM-SHA-256", "bob",
	    "bob-pw", "-C", "-t", "s1", "-o", "beginning", "-e", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "a\nb\n");
	free(out);
}

static void
test_python_clients_scram_over_tls(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(python(&out, "kp", "kp", "alice", "alice-pw",
	    "SCRAM-SHA-256"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "kp ok v0,v1,v2\n");
	free(out);
	CU_ASSERT_EQUAL(python(&out, "ck", "ck", "alice", "alice-pw",
	    "SCRAM-SHA-512"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "ck ok v0,v1,v2\n");
	free(out);
	CU_ASSERT_EQUAL(python(&out, "kp", "pl", "alice", "alice-pw",
	    "PLAIN"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "kp ok v0,v1,v2\n");
	free(out);
	CU_ASSERT(flumed_log_count(&d, "authenticated as user alice (SASL "
	    "PLAIN)") >= 1);
}

static int
kconnect(int port)
{
	struct sockaddr_in sin;
	struct timeval tv = { 5, 0 };
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

/* One Kafka request (client id "t"), body given; 0 or -1. */
static int
ksend(int fd, int16_t key, int16_t ver, int32_t corr, const void *body,
    size_t blen)
{
	uint8_t buf[1024];
	size_t n = 4;

	if (blen > sizeof(buf) - 17)
		return -1;
	be16_put(buf + n, (uint16_t)key);
	be16_put(buf + n + 2, (uint16_t)ver);
	be32_put(buf + n + 4, (uint32_t)corr);
	be16_put(buf + n + 8, 1);
	buf[n + 10] = 't';
	n += 11;
	memcpy(buf + n, body, blen);
	n += blen;
	be32_put(buf, (uint32_t)(n - 4));
	return support_send(fd, buf, n);
}

/* The error code of the answer to corr; -1000 closed, -2000 no answer. */
static int
kerror(int fd, int32_t corr, uint8_t **p, size_t *n)
{
	uint32_t id;
	int rc;

	if ((rc = support_recv(fd, 10000, &id, p, n)) == 0)
		return -1000;
	if (rc != 1 || id != (uint32_t)corr || *n < 2)
		return -2000;
	return (int16_t)be16_get(*p);
}

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

static void
test_raw_error_codes(void)
{
	static const uint8_t gss[] = { 0, 6, 'G', 'S', 'S', 'A', 'P', 'I' };
	static const uint8_t scram[] = { 0, 13, 'S', 'C', 'R', 'A', 'M', '-',
	    'S', 'H', 'A', '-', '2', '5', '6' };
	static const uint8_t junk[] = { 0, 0, 0, 4, 'n', ',', ',', 'x' };
	static const uint8_t meta[] = { 0, 0, 0, 0 };
	uint8_t *p = NULL;
	size_t n = 0;
	int fd, before;

	/* An unknown mechanism: 33 and the ones offered (PLAIN: loopback). */
	CU_ASSERT_FATAL((fd = kconnect(kport)) >= 0);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_SASL_HANDSHAKE, 1, 1, gss, sizeof(gss)),
	    0);
	CU_ASSERT_EQUAL(kerror(fd, 1, &p, &n), KERR_UNSUPPORTED_SASL_MECHANISM);
	CU_ASSERT_EQUAL(n, 2 + 4 + 15 + 15 + 7);
	if (n == 43)
		CU_ASSERT_EQUAL(memcmp(p + 2, "\0\0\0\3\0\015SCRAM-SHA-256"
		    "\0\015SCRAM-SHA-512\0\005PLAIN", 41), 0);
	free(p);
	/* SaslAuthenticate before a handshake took: 34, closed. */
	CU_ASSERT_EQUAL(ksend(fd, KAPI_SASL_AUTHENTICATE, 0, 2, junk,
	    sizeof(junk)), 0);
	CU_ASSERT_EQUAL(kerror(fd, 2, &p, &n), KERR_ILLEGAL_SASL_STATE);
	free(p);
	CU_ASSERT(closed(fd));
	close(fd);
	/* A malformed SCRAM message: 58, closed, one line. */
	before = flumed_log_count(&d, "malformed client-first message");
	CU_ASSERT_FATAL((fd = kconnect(kport)) >= 0);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_SASL_HANDSHAKE, 1, 3, scram,
	    sizeof(scram)), 0);
	CU_ASSERT_EQUAL(kerror(fd, 3, &p, &n), 0);
	free(p);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_SASL_AUTHENTICATE, 0, 4, junk,
	    sizeof(junk)), 0);
	CU_ASSERT_EQUAL(kerror(fd, 4, &p, &n), KERR_SASL_AUTHENTICATION_FAILED);
	free(p);
	CU_ASSERT(closed(fd));
	close(fd);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "malformed client-first message",
	    before + 1, 5000), before + 1);
	/* Metadata before authenticating: closed, one line. */
	before = flumed_log_count(&d, "before authentication (SASL first)");
	CU_ASSERT_FATAL((fd = kconnect(kport)) >= 0);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_METADATA, 1, 5, meta, sizeof(meta)), 0);
	CU_ASSERT(closed(fd));
	close(fd);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "before authentication (SASL first)",
	    before + 1, 5000), before + 1);
}

/* Random SASL messages after a good handshake, v0 and v1. */
static void
test_random_sasl_messages(void)
{
	static const uint8_t scram[] = { 0, 13, 'S', 'C', 'R', 'A', 'M', '-',
	    'S', 'H', 'A', '-', '5', '1', '2' };
	uint8_t buf[200], *p = NULL;
	size_t n;
	int i, fd, ok = 0;

	for (i = 0; i < 60; i++) {
		if ((fd = kconnect(kport)) < 0)
			continue;
		if (ksend(fd, KAPI_SASL_HANDSHAKE, (int16_t)(i % 2), 1, scram,
		    sizeof(scram)) == 0 && kerror(fd, 1, &p, &n) == 0) {
			test_fill_random(buf, sizeof(buf));
			if (i % 2 == 0) {
				/* v0: a bare message of random bytes. */
				be32_put(buf, (uint32_t)(sizeof(buf) - 4));
				if (support_send(fd, buf, sizeof(buf)) == 0 &&
				    closed(fd))
					ok++;
			} else {
				be32_put(buf, (uint32_t)(sizeof(buf) - 4));
				if (ksend(fd, KAPI_SASL_AUTHENTICATE, 0, 2, buf,
				    sizeof(buf)) == 0) {
					free(p);
					p = NULL;
					if (kerror(fd, 2, &p, &n) ==
					    KERR_SASL_AUTHENTICATION_FAILED &&
					    closed(fd))
						ok++;
				}
			}
		}
		free(p);
		p = NULL;
		close(fd);
	}
	CU_ASSERT_EQUAL(ok, 60);
}

static void
test_workers_survived(void)
{
	CU_ASSERT_EQUAL(flumed_child_pid(&d, "worker", 0), workers_before[0]);
	CU_ASSERT_EQUAL(flumed_child_pid(&d, "worker", 1), workers_before[1]);
}

TEST_SUITE("sasl", setup, teardown,
    { "kcat SASL_SSL SCRAM-SHA-256 produces and consumes",
	test_kcat_scram_sha256_produces_and_consumes },
    { "kcat SCRAM-SHA-512 consumes", test_kcat_scram_sha512_consumes },
    { "wrong password, unknown user: refused, logged",
	test_wrong_password_and_unknown_user },
    { "a consume-only user cannot produce",
	test_consume_only_user_cannot_produce },
    { "kafka-python and confluent-kafka SCRAM, PLAIN over TLS",
	test_python_clients_scram_over_tls },
    { "raw frames: 33, 34, 58, before authentication",
	test_raw_error_codes },
    { "random SASL messages", test_random_sasl_messages },
    { "workers survived", test_workers_survived });
