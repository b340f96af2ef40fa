/*
 * SASL on the Kafka listener with an auth_file: kcat with SASL_SSL and
 * SCRAM-SHA-256 / SCRAM-SHA-512, kafka-python (SaslHandshake v0, bare
 * messages) and confluent-kafka (v1, SaslAuthenticate) over TLS, PLAIN
 * over TLS; a wrong password, an unknown user and a request before
 * authenticating are refused with the client's usual error and one
 * broker line each; a consume-only user gets TOPIC_AUTHORIZATION_FAILED
 * for a produce; raw frames check the exact error codes (33, 34, 58).
 * kafka-python and confluent-kafka as a user who may consume only the
 * topics under in.: no produce, no group on out.t, a group on in.t;
 * raw group requests get GROUP_AUTHORIZATION_FAILED (30) and
 * TOPIC_AUTHORIZATION_FAILED (29) where the user may not.
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
#define KAFKA_AUTHZ	"tests/tools/kafka_authz.py"

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
	/* Groups have permissions of their own: carol's start with g. */
	fprintf(f, "alice:alice-pw:produce,consume,admin,group-read\n"
	    "bob:bob-pw:consume\n"
	    "carol:carol-pw:consume=in.,group-read=g\n"
	    "dave:dave-pw:produce\n");
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
	/* Every failure logged: the tests count them (test_logs: the limit). */
	snprintf(extra, sizeof(extra), "auth_file = %s\n"
	    "client_log_interval_ms = 0\n"
	    "kafka_listen = %s\nkafka_listen_tls = %s\n"
	    "tls_cert_file = %s/server.pem\ntls_key_file = %s/server.key\n"
	    "[topic s1]\npartitions = 1\n[topic s2]\npartitions = 1\n"
	    "[topic kp]\npartitions = 1\n[topic ck]\npartitions = 1\n"
	    "[topic pl]\npartitions = 1\n"
	    "[topic in.t]\npartitions = 1\n[topic out.t]\npartitions = 1\n",
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

/* kafka_authz.py mode as user:pass, args... NULL; its one line in *out. */
static int
authz(char **out, const char *mode, const char *user, const char *pass, ...)
{
	const char *argv[16];
	va_list ap;
	int n = 0;

	argv[n++] = PYTHON;
	argv[n++] = KAFKA_AUTHZ;
	argv[n++] = mode;
	argv[n++] = ktbroker;
	argv[n++] = ca;
	argv[n++] = user;
	argv[n++] = pass;
	va_start(ap, pass);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return support_run_cmd(PYTHON, argv, NULL, out, NULL, 90000);
}

/*
 * carol may consume in.* only: both clients fail to produce, fail to
 * join a group subscribed to out.t, and join one on in.t and read it.
 */
static void
test_consume_only_user_groups(void)
{
	static const char *const want[][2] = {
		{ "kp-produce", "kp produce TopicAuthorizationFailedError\n" },
		{ "ck-produce", "ck produce TOPIC_AUTHORIZATION_FAILED\n" },
	};
	char *out = NULL;
	size_t i;
	int before;

	CU_ASSERT_EQUAL(kcat("i1\ni2\n", NULL, NULL, "SCRAM-SHA-256", "alice",
	    "alice-pw", "-P", "-t", "in.t", "-p", "0", NULL), 0);
	CU_ASSERT_EQUAL(kcat("o1\n", NULL, NULL, "SCRAM-SHA-256", "alice",
	    "alice-pw", "-P", "-t", "out.t", "-p", "0", NULL), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CU_ASSERT_EQUAL(authz(&out, want[i][0], "carol", "carol-pw",
		    "in.t", NULL), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		CU_ASSERT_STRING_EQUAL(out, want[i][1]);
		free(out);
	}
	before = flumed_log_count(&d, "user carol: access denied: JoinGroup on "
	    "group ga subscribes to topic out.t");
	CU_ASSERT_EQUAL(authz(&out, "kp-group", "carol", "carol-pw", "out.t",
	    "ga", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "kp group GroupAuthorizationFailedError\n");
	free(out);
	CU_ASSERT(flumed_wait_log(&d, "user carol: access denied: JoinGroup on "
	    "group ga subscribes to topic out.t", before + 1, 5000) >=
	    before + 1);
	CU_ASSERT_EQUAL(authz(&out, "ck-group", "carol", "carol-pw", "out.t",
	    "gb", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "ck group TOPIC_AUTHORIZATION_FAILED\n");
	free(out);
	CU_ASSERT_EQUAL(authz(&out, "kp-group", "carol", "carol-pw", "in.t",
	    "gc", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "kp group ok i1,i2\n");
	free(out);
	CU_ASSERT_EQUAL(authz(&out, "ck-group", "carol", "carol-pw", "in.t",
	    "gd", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "ck group ok i1,i2\n");
	free(out);
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
	return support_kafka_send(fd, key, ver, corr, body, blen);
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
	return support_closed(fd);
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
/* Log in on the plaintext Kafka port with PLAIN (loopback); 0 or -1. */
static int
kplain(int fd, const char *user, const char *pass)
{
	static const uint8_t plain[] = { 0, 5, 'P', 'L', 'A', 'I', 'N' };
	uint8_t msg[256], *p = NULL;
	size_t n = 0, ul = strlen(user), pl = strlen(pass);
	int rc;

	if (ksend(fd, KAPI_SASL_HANDSHAKE, 1, 100, plain, sizeof(plain)) != 0 ||
	    kerror(fd, 100, &p, &n) != 0)
		return -1;
	free(p);
	be32_put(msg, (uint32_t)(2 + ul + pl));
	msg[4] = 0;
	memcpy(msg + 5, user, ul);
	msg[5 + ul] = 0;
	memcpy(msg + 6 + ul, pass, pl);
	if (ksend(fd, KAPI_SASL_AUTHENTICATE, 0, 101, msg, 6 + ul + pl) != 0)
		return -1;
	rc = kerror(fd, 101, &p, &n);
	free(p);
	return rc == 0 ? 0 : -1;
}

/* Append a Kafka string to b at *n. */
static void
kput_str(uint8_t *b, size_t *n, const char *str)
{
	size_t len = strlen(str);

	be16_put(b + *n, (uint16_t)len);
	memcpy(b + *n + 2, str, len);
	*n += 2 + len;
}

/* A JoinGroup v0 body of group, type "consumer", one protocol's metadata. */
static size_t
kjoin_body(uint8_t *b, const char *group, const uint8_t *meta, size_t mlen)
{
	size_t n = 0;

	kput_str(b, &n, group);
	be32_put(b + n, 10000);		/* session timeout */
	n += 4;
	kput_str(b, &n, "");		/* member id */
	kput_str(b, &n, "consumer");
	be32_put(b + n, 1);
	n += 4;
	kput_str(b, &n, "range");
	be32_put(b + n, (uint32_t)mlen);
	memcpy(b + n + 4, meta, mlen);
	return n + 4 + mlen;
}

/* An OffsetFetch v1 body: group, topic, partition 0. */
static size_t
koffset_fetch_body(uint8_t *b, const char *group, const char *topic)
{
	size_t n = 0;

	kput_str(b, &n, group);
	be32_put(b + n, 1);
	n += 4;
	kput_str(b, &n, topic);
	be32_put(b + n, 1);
	be32_put(b + n + 4, 0);
	return n + 8;
}

/* The error of the only partition of an OffsetFetch v1 answer, or -1. */
static int
koffset_fetch_error(const uint8_t *p, size_t n)
{
	size_t tl;

	if (n < 6 || be32_get(p) != 1)
		return -1;
	tl = be16_get(p + 4);
	if (n < 6 + tl + 4 + 4 + 8 + 2 + 2 || be32_get(p + 6 + tl) != 1)
		return -1;
	/* partition, offset, metadata "" then the error. */
	return (int16_t)be16_get(p + 6 + tl + 4 + 4 + 8 + 2);
}

/*
 * Raw group requests: a subscription outside carol's prefix, one that
 * cannot be read, her offsets per topic, and dave, who may consume
 * nothing, on every group API: exact error codes, one line each.
 */
static void
test_raw_group_authorization(void)
{
	static const uint8_t out_meta[] = { 0, 0, 0, 0, 0, 1, 0, 5, 'o', 'u',
	    't', '.', 't', 0, 0, 0, 0 };
	static const uint8_t bad_meta[] = { 0 };
	uint8_t b[512], *p = NULL;
	uint32_t id;
	size_t n = 0, bl;
	int fd, before;

	CU_ASSERT_FATAL((fd = kconnect(kport)) >= 0);
	CU_ASSERT_FATAL(kplain(fd, "carol", "carol-pw") == 0);
	before = flumed_log_count(&d, "user carol: access denied: JoinGroup on "
	    "group graw subscribes to topic out.t");
	bl = kjoin_body(b, "graw", out_meta, sizeof(out_meta));
	CU_ASSERT_EQUAL(ksend(fd, KAPI_JOIN_GROUP, 0, 1, b, bl), 0);
	CU_ASSERT_EQUAL(kerror(fd, 1, &p, &n), KERR_GROUP_AUTHORIZATION_FAILED);
	free(p);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "user carol: access denied: "
	    "JoinGroup on group graw subscribes to topic out.t", before + 1,
	    5000), before + 1);
	before = flumed_log_count(&d, "JoinGroup on group graw: its consumer "
	    "subscription cannot be read");
	bl = kjoin_body(b, "graw", bad_meta, sizeof(bad_meta));
	CU_ASSERT_EQUAL(ksend(fd, KAPI_JOIN_GROUP, 0, 2, b, bl), 0);
	CU_ASSERT_EQUAL(kerror(fd, 2, &p, &n), KERR_GROUP_AUTHORIZATION_FAILED);
	free(p);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "JoinGroup on group graw: its "
	    "consumer subscription cannot be read", before + 1, 5000),
	    before + 1);
	/* Refused joins made no group: DescribeGroups says Dead, no error. */
	be32_put(b, 1);
	n = 4;
	kput_str(b, &n, "graw");
	CU_ASSERT_EQUAL(ksend(fd, KAPI_DESCRIBE_GROUPS, 0, 3, b, n), 0);
	/* kerror reads the first half of the i32 group count. */
	CU_ASSERT_EQUAL(kerror(fd, 3, &p, &n), 0);
	if (n >= 4 + 2 + 2 + 4 + 2 + 4)
		CU_ASSERT_EQUAL(memcmp(p, "\0\0\0\1\0\0\0\4graw\0\4Dead",
		    4 + 2 + 6 + 6), 0);
	free(p);
	/* OffsetFetch v1: 29 for out.t, none for in.t. */
	bl = koffset_fetch_body(b, "graw", "out.t");
	CU_ASSERT_EQUAL(ksend(fd, KAPI_OFFSET_FETCH, 1, 4, b, bl), 0);
	CU_ASSERT_EQUAL(support_recv(fd, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(koffset_fetch_error(p, n),
	    KERR_TOPIC_AUTHORIZATION_FAILED);
	free(p);
	bl = koffset_fetch_body(b, "graw", "in.t");
	CU_ASSERT_EQUAL(ksend(fd, KAPI_OFFSET_FETCH, 1, 5, b, bl), 0);
	CU_ASSERT_EQUAL(support_recv(fd, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(koffset_fetch_error(p, n), 0);
	free(p);
	close(fd);
	/* dave has no group permission: 30 from every group API ... */
	CU_ASSERT_FATAL((fd = kconnect(kport)) >= 0);
	CU_ASSERT_FATAL(kplain(fd, "dave", "dave-pw") == 0);
	before = flumed_log_count(&d, "user dave: access denied: ");
	n = 0;
	kput_str(b, &n, "gdave");
	CU_ASSERT_EQUAL(ksend(fd, KAPI_FIND_COORDINATOR, 0, 6, b, n), 0);
	CU_ASSERT_EQUAL(kerror(fd, 6, &p, &bl), KERR_GROUP_AUTHORIZATION_FAILED);
	free(p);
	be32_put(b + n, 1);		/* generation */
	n += 4;
	kput_str(b, &n, "m");
	CU_ASSERT_EQUAL(ksend(fd, KAPI_HEARTBEAT, 0, 7, b, n), 0);
	CU_ASSERT_EQUAL(kerror(fd, 7, &p, &bl), KERR_GROUP_AUTHORIZATION_FAILED);
	free(p);
	bl = kjoin_body(b, "gdave", out_meta, sizeof(out_meta));
	CU_ASSERT_EQUAL(ksend(fd, KAPI_JOIN_GROUP, 0, 8, b, bl), 0);
	CU_ASSERT_EQUAL(kerror(fd, 8, &p, &bl), KERR_GROUP_AUTHORIZATION_FAILED);
	free(p);
	/* ... but ListGroups, which lists none for him, as Kafka does. */
	CU_ASSERT_EQUAL(ksend(fd, KAPI_LIST_GROUPS, 0, 9, b, 0), 0);
	CU_ASSERT_EQUAL(kerror(fd, 9, &p, &bl), KERR_NONE);
	/* [error][count] */
	CU_ASSERT_EQUAL(bl, 2 + 4);
	if (bl == 6)
		CU_ASSERT_EQUAL(be32_get(p + 2), 0);
	free(p);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "user dave: access denied: ",
	    before + 3, 5000), before + 3);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "user dave: access denied: "
	    "Heartbeat on group gdave"), 1);
	close(fd);
}

/* The answer to corr (malloc'ed in *p, *n bytes); 0, or -1. */
static int
kanswer(int fd, int32_t corr, uint8_t **p, size_t *n)
{
	uint32_t id;

	*p = NULL;
	if (support_recv(fd, 10000, &id, p, n) != 1 || id != (uint32_t)corr) {
		free(*p);
		*p = NULL;
		return -1;
	}
	return 0;
}

/* The error after [i32 1][str name] at off in p, or -1. */
static int
kname_error(const uint8_t *p, size_t n, size_t off, const char *name)
{
	size_t l = strlen(name);

	if (n < off + 4 + 2 + l + 2 || be32_get(p + off) != 1 ||
	    be16_get(p + off + 4) != l || memcmp(p + off + 6, name, l) != 0)
		return -1;
	return (int16_t)be16_get(p + off + 6 + l);
}

/*
 * Every Kafka API whose table row asks for a permission refuses a user
 * without it, with Kafka's code for it: bob may only consume (no
 * InitProducerId: 31, no CreateTopics or DeleteTopics: 29), dave may
 * only produce (no Fetch: 29; ListOffsets is Describe, which Write
 * implies).  Produce and the group APIs are checked above.
 */
static void
test_raw_api_permissions(void)
{
	uint8_t b[256], *p = NULL;
	size_t n = 0;
	int fd, before;

	CU_ASSERT_FATAL((fd = kconnect(kport)) >= 0);
	CU_ASSERT_FATAL(kplain(fd, "bob", "bob-pw") == 0);
	before = flumed_log_count(&d, "user bob: access denied: InitProducerId");
	be16_put(b, 0xffff);		/* transactional id: null */
	be32_put(b + 2, 60000);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_INIT_PRODUCER_ID, 0, 1, b, 6), 0);
	CU_ASSERT_EQUAL_FATAL(kanswer(fd, 1, &p, &n), 0);
	/* [throttle][error][producer id][epoch] */
	CU_ASSERT_EQUAL_FATAL(n, 4 + 2 + 8 + 2);
	CU_ASSERT_EQUAL((int16_t)be16_get(p + 4),
	    KERR_CLUSTER_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL((int64_t)be64_get(p + 6), -1);
	CU_ASSERT_EQUAL((int16_t)be16_get(p + 14), -1);
	free(p);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "user bob: access denied: "
	    "InitProducerId", before + 1, 5000), before + 1);

	be32_put(b, 1);
	n = 4;
	kput_str(b, &n, "bobt");
	be32_put(b + n, 1);		/* partitions */
	be16_put(b + n + 4, 1);		/* replication factor */
	be32_put(b + n + 6, 0);		/* assignments */
	be32_put(b + n + 10, 0);	/* configs */
	be32_put(b + n + 14, 5000);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_CREATE_TOPICS, 0, 2, b, n + 18), 0);
	CU_ASSERT_EQUAL_FATAL(kanswer(fd, 2, &p, &n), 0);
	CU_ASSERT_EQUAL(kname_error(p, n, 0, "bobt"),
	    KERR_TOPIC_AUTHORIZATION_FAILED);
	free(p);

	be32_put(b, 1);
	n = 4;
	kput_str(b, &n, "s2");
	be32_put(b + n, 5000);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_DELETE_TOPICS, 0, 3, b, n + 4), 0);
	CU_ASSERT_EQUAL_FATAL(kanswer(fd, 3, &p, &n), 0);
	CU_ASSERT_EQUAL(kname_error(p, n, 0, "s2"),
	    KERR_TOPIC_AUTHORIZATION_FAILED);
	free(p);
	close(fd);
	/* Each denial is logged under the API name the client sent. */
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "user bob: access denied: "
	    "CreateTopics on topic bobt", 1, 5000), 1);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "user bob: access denied: "
	    "DeleteTopics on topic s2", 1, 5000), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "CREATE_TOPIC on topic"), 0);

	CU_ASSERT_FATAL((fd = kconnect(kport)) >= 0);
	CU_ASSERT_FATAL(kplain(fd, "dave", "dave-pw") == 0);
	/* Fetch v4: replica, max wait, min and max bytes, isolation. */
	be32_put(b, (uint32_t)-1);
	be32_put(b + 4, 0);
	be32_put(b + 8, 1);
	be32_put(b + 12, 1 << 20);
	b[16] = 0;
	be32_put(b + 17, 1);
	n = 21;
	kput_str(b, &n, "s1");
	be32_put(b + n, 1);
	be32_put(b + n + 4, 0);		/* partition */
	be64_put(b + n + 8, 0);		/* offset */
	be32_put(b + n + 16, 1 << 20);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_FETCH, 4, 4, b, n + 20), 0);
	CU_ASSERT_EQUAL_FATAL(kanswer(fd, 4, &p, &n), 0);
	/* [throttle][1][s1][1][partition 0][error] */
	CU_ASSERT_FATAL(n >= 4 + 4 + 4 + 4 + 4 + 2);
	CU_ASSERT_EQUAL(be32_get(p + 4), 1);
	CU_ASSERT_EQUAL(memcmp(p + 8, "\0\2s1", 4), 0);
	CU_ASSERT_EQUAL(be32_get(p + 12), 1);
	CU_ASSERT_EQUAL(be32_get(p + 16), 0);
	CU_ASSERT_EQUAL((int16_t)be16_get(p + 20),
	    KERR_TOPIC_AUTHORIZATION_FAILED);
	free(p);
	/* ListOffsets v1: replica, then s1/0 at the latest offset. */
	be32_put(b, (uint32_t)-1);
	be32_put(b + 4, 1);
	n = 8;
	kput_str(b, &n, "s1");
	be32_put(b + n, 1);
	be32_put(b + n + 4, 0);
	be64_put(b + n + 8, (uint64_t)-1);
	CU_ASSERT_EQUAL(ksend(fd, KAPI_LIST_OFFSETS, 1, 5, b, n + 16), 0);
	CU_ASSERT_EQUAL_FATAL(kanswer(fd, 5, &p, &n), 0);
	/* [1][s1][1][partition 0][error][timestamp][offset] */
	CU_ASSERT_FATAL(n == 4 + 4 + 4 + 4 + 2 + 8 + 8);
	CU_ASSERT_EQUAL(memcmp(p, "\0\0\0\1\0\2s1", 8), 0);
	CU_ASSERT_EQUAL(be32_get(p + 8), 1);
	CU_ASSERT_EQUAL(be32_get(p + 12), 0);
	CU_ASSERT_EQUAL((int16_t)be16_get(p + 16), KERR_NONE);
	free(p);
	close(fd);
}

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
    { "a consume-only user: groups on its topics only",
	test_consume_only_user_groups },
    { "raw group requests: 30 and 29", test_raw_group_authorization },
    { "raw requests without the API's permission: 31 and 29",
	test_raw_api_permissions },
    { "random SASL messages", test_random_sasl_messages },
    { "workers survived", test_workers_survived });
