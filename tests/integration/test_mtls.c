/*
 * Mutual TLS with tls_cert_user = yes: a client certificate whose CN is
 * a user of the auth_file logs the connection in as that user, on the
 * native and the Kafka TLS listener, without AUTH or SASL; that user's
 * permissions then apply (a produce outside alice's prefix is refused
 * with the native error and TOPIC_AUTHORIZATION_FAILED).  A certificate
 * of our CA whose CN is no user, and one from another CA, are refused
 * in the handshake with one broker line each.  SASL and AUTH after a
 * certificate login must name the same user.  Certificates come from
 * scripts/make-test-certs into temporary directories.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/integration/support.h"

#define KCAT		"/usr/bin/kcat"
#define OPENSSL		"/usr/bin/openssl"
#define MAKE_CERTS	"scripts/make-test-certs"

static struct flumed d;
static char *certs, *other;	/* our CA and certificates; another CA's */
static char ca[600], users[600], admin_secret[600], bob_secret[600];
static char alice_pem[600], alice_key[600], mal_pem[600], mal_key[600];
static char foreign_pem[600], foreign_key[600];
static int tport, ktport;
static char tbroker[64], ktbroker[64];
static pid_t workers_before[2];

static int
sh(const char *a1, const char *a2, const char *a3)
{
	const char *argv[] = { "sh", MAKE_CERTS, a1, a2, a3, NULL };

	return support_run_cmd("/bin/sh", argv, NULL, NULL, NULL, 30000);
}

static int
write_file(const char *path, const char *text)
{
	FILE *f;

	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs(text, f);
	if (fclose(f) != 0)
		return -1;
	return chmod(path, 0600);
}

/* flume-admin workers (flumed_child_pid) as the admin user. */
static pid_t
child_pid(int slot)
{
	pid_t pid;

	setenv("FLUME_SECRET_FILE", admin_secret, 1);
	pid = flumed_child_pid(&d, "worker", slot);
	unsetenv("FLUME_SECRET_FILE");
	return pid;
}

static int
setup(void)
{
	char extra[3072];

	if ((certs = test_mkdtemp("mtls")) == NULL ||
	    (other = test_mkdtemp("mtls-other")) == NULL)
		return -1;
	/* Ours: client.pem is CN alice; mallory.pem is CN mallory. */
	if (sh(certs, "alice", NULL) != 0 || sh("-c", "mallory", certs) != 0 ||
	    sh(other, "alice", NULL) != 0)
		return -1;
	snprintf(ca, sizeof(ca), "%s/ca.pem", certs);
	snprintf(alice_pem, sizeof(alice_pem), "%s/client.pem", certs);
	snprintf(alice_key, sizeof(alice_key), "%s/client.key", certs);
	snprintf(mal_pem, sizeof(mal_pem), "%s/mallory.pem", certs);
	snprintf(mal_key, sizeof(mal_key), "%s/mallory.key", certs);
	/* CN alice too, but signed by a CA the broker does not trust. */
	snprintf(foreign_pem, sizeof(foreign_pem), "%s/client.pem", other);
	snprintf(foreign_key, sizeof(foreign_key), "%s/client.key", other);
	snprintf(users, sizeof(users), "%s/users", certs);
	snprintf(admin_secret, sizeof(admin_secret), "%s/admin.secret", certs);
	snprintf(bob_secret, sizeof(bob_secret), "%s/bob.secret", certs);
	if (write_file(users, "alice:alice-pw:produce=a.,consume=a.\n"
	    "bob:bob-pw:produce,consume\n"
	    "admin:admin-pw:produce,consume,admin\n") != 0 ||
	    write_file(admin_secret, "admin:admin-pw\n") != 0 ||
	    write_file(bob_secret, "bob:bob-pw\n") != 0)
		return -1;
	if ((tport = support_free_port()) <= 0 ||
	    (ktport = support_free_port()) <= 0)
		return -1;
	snprintf(tbroker, sizeof(tbroker), "127.0.0.1:%d", tport);
	snprintf(ktbroker, sizeof(ktbroker), "127.0.0.1:%d", ktport);
	snprintf(extra, sizeof(extra), "auth_file = %s\n"
	    "listen_tls = %s\nkafka_listen_tls = %s\n"
	    "tls_cert_file = %s/server.pem\ntls_key_file = %s/server.key\n"
	    "tls_ca_file = %s\ntls_client_auth = request\n"
	    "tls_cert_user = yes\n"
	    "[topic a.n]\npartitions = 1\n[topic a.k]\npartitions = 1\n"
	    "[topic b.n]\npartitions = 1\n[topic b.k]\npartitions = 1\n",
	    users, tbroker, ktbroker, certs, certs, ca);
	if (flumed_start(&d, extra) != 0)
		return -1;
	workers_before[0] = child_pid(0);
	workers_before[1] = child_pid(1);
	return workers_before[0] > 0 && workers_before[1] > 0 ? 0 : -1;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	if (certs != NULL) {
		test_rmtree(certs);
		free(certs);
	}
	if (other != NULL) {
		test_rmtree(other);
		free(other);
	}
	return 0;
}

/*
 * kcat to the Kafka TLS listener with certificate pem/key (NULL: none)
 * and, when user is set, SASL_SSL SCRAM-SHA-256 as user:pass; args...
 */
static int
kcat(const char *input, char **out, char **err, const char *pem,
    const char *key, const char *user, const char *pass, ...)
{
	const char *argv[48];
	char cap[700], cp[700], kp[700], u[128], p[128];
	va_list ap;
	int n = 0;

	snprintf(cap, sizeof(cap), "ssl.ca.location=%s", ca);
	argv[n++] = "kcat";
	argv[n++] = "-b";
	argv[n++] = ktbroker;
	argv[n++] = "-X";
	argv[n++] = cap;
	argv[n++] = "-X";
	if (user != NULL) {
		snprintf(u, sizeof(u), "sasl.username=%s", user);
		snprintf(p, sizeof(p), "sasl.password=%s", pass);
		argv[n++] = "security.protocol=SASL_SSL";
		argv[n++] = "-X";
		argv[n++] = "sasl.mechanisms=SCRAM-SHA-256";
		argv[n++] = "-X";
		argv[n++] = u;
		argv[n++] = "-X";
		argv[n++] = p;
	} else
		argv[n++] = "security.protocol=SSL";
	if (pem != NULL) {
		snprintf(cp, sizeof(cp), "ssl.certificate.location=%s", pem);
		snprintf(kp, sizeof(kp), "ssl.key.location=%s", key);
		argv[n++] = "-X";
		argv[n++] = cp;
		argv[n++] = "-X";
		argv[n++] = kp;
	}
	argv[n++] = "-m";
	argv[n++] = "5";
	va_start(ap, pass);
	while (n < 47 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return support_run_cmd(KCAT, argv, input, out, err, 60000);
}

/* Native: alice's certificate alone is alice; her prefix and no more. */
static void
test_native_certificate_names_the_user(void)
{
	char *out = NULL, *err = NULL;
	int before = flumed_log_count(&d, "authenticated as user alice (TLS "
	    "client certificate)");

	CU_ASSERT_EQUAL(support_tool(NULL, NULL, NULL, "flume-produce", "-b", tbroker,
	    "--ca-file", ca, "--cert", alice_pem, "--key", alice_key,
	    "-t", "a.n", "m1", "m2", NULL), 0);
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-consume", "-b", tbroker,
	    "--ca-file", ca, "--cert", alice_pem, "--key", alice_key,
	    "-t", "a.n", "-o", "beginning", "-e", "-f", "%o %v\\n", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "0 m1\n1 m2\n");
	free(out);
	CU_ASSERT(flumed_wait_log(&d, "authenticated as user alice (TLS "
	    "client certificate)", before + 2, 5000) >= before + 2);
	/* Outside her prefix: the native refusal, nothing stored. */
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, &err, "flume-produce", "-b", tbroker,
	    "--ca-file", ca, "--cert", alice_pem, "--key", alice_key,
	    "-t", "b.n", "x", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "access denied"));
	free(err);
	CU_ASSERT(flumed_wait_log(&d, "user alice: access denied: METADATA on "
	    "topic b.n", 1, 5000) >= 1);
	/* Without a certificate (request, not require) AUTH is needed. */
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, &err, "flume-produce", "-b", tbroker,
	    "--tls", "--ca-file", ca, "-t", "a.n", "x", NULL), 1);
	free(err);
	setenv("FLUME_SECRET_FILE", bob_secret, 1);
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-consume", "-b", tbroker,
	    "--tls", "--ca-file", ca, "-t", "b.n", "-o", "beginning", "-e",
	    NULL), 0);
	unsetenv("FLUME_SECRET_FILE");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
}

/* Kafka: kcat with alice's certificate and no SASL is alice. */
static void
test_kafka_certificate_names_the_user(void)
{
	char *out = NULL, *err = NULL;

	CU_ASSERT_EQUAL(kcat("k1\nk2\nk3\n", NULL, NULL, alice_pem, alice_key,
	    NULL, NULL, "-P", "-t", "a.k", "-p", "0", NULL), 0);
	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, alice_pem, alice_key, NULL,
	    NULL, "-C", "-t", "a.k", "-o", "beginning", "-e", "-f",
	    "%o %s\\n", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "0 k1\n1 k2\n2 k3\n");
	free(out);
	/* kcat -P exits 1 when a message was not delivered. */
	CU_ASSERT_EQUAL(kcat("evil\n", NULL, &err, alice_pem, alice_key, NULL,
	    NULL, "-P", "-t", "b.k", "-p", "0", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Topic authorization failed"));
	free(err);
	setenv("FLUME_SECRET_FILE", admin_secret, 1);
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-consume", "-b", d.broker,
	    "-t", "b.k", "-o", "beginning", "-e", NULL), 0);
	unsetenv("FLUME_SECRET_FILE");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
}

/* SASL after the certificate: the same user only. */
static void
test_sasl_after_certificate_same_user_only(void)
{
	char *out = NULL, *err = NULL;
	int before = flumed_log_count(&d, "as user bob, but the connection "
	    "is user alice by its TLS client certificate");

	CU_ASSERT_EQUAL(kcat(NULL, &out, NULL, alice_pem, alice_key, "alice",
	    "alice-pw", "-C", "-t", "a.k", "-o", "beginning", "-e", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "k1\nk2\nk3\n");
	free(out);
	CU_ASSERT_NOT_EQUAL(kcat(NULL, NULL, &err, alice_pem, alice_key, "bob",
	    "bob-pw", "-L", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "the TLS client certificate names "
	    "another user"));
	free(err);
	CU_ASSERT(flumed_wait_log(&d, "as user bob, but the connection is user "
	    "alice by its TLS client certificate", before + 1, 5000) >=
	    before + 1);
	/* Native AUTH likewise. */
	before = flumed_log_count(&d, "AUTH_PROVE as user bob, but");
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, &err, "flume-produce", "-b", tbroker,
	    "--ca-file", ca, "--cert", alice_pem, "--key", alice_key,
	    "--secret-file", bob_secret, "-t", "b.n", "x", NULL), 1);
	free(err);
	CU_ASSERT(flumed_wait_log(&d, "AUTH_PROVE as user bob, but",
	    before + 1, 5000) >= before + 1);
}

/*
 * openssl s_client with certificate pem/key to the TLS port: one
 * connection, so exactly one broker line; its stderr in *err.  TLS 1.2,
 * where the server judges the client's certificate before its Finished,
 * so the client always sees the alert (in TLS 1.3 it may have closed
 * before the alert arrives).
 */
static int
s_client(int port, const char *pem, const char *key, char **err)
{
	const char *argv[16];
	char addr[64];
	int n = 0;

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	argv[n++] = "openssl";
	argv[n++] = "s_client";
	argv[n++] = "-connect";
	argv[n++] = addr;
	argv[n++] = "-CAfile";
	argv[n++] = ca;
	argv[n++] = "-cert";
	argv[n++] = pem;
	argv[n++] = "-key";
	argv[n++] = key;
	argv[n++] = "-brief";
	argv[n++] = "-tls1_2";
	argv[n] = NULL;
	return support_run_cmd(OPENSSL, argv, "", NULL, err, 30000);
}

/* A certificate of our CA whose CN is no user: refused, one line each. */
static void
test_certificate_of_no_user_refused(void)
{
	const char *line = "TLS handshake refused: client certificate CN "
	    "mallory is not a user in the auth_file, closing";
	char *err = NULL;
	int before = flumed_log_count(&d, line);

	/* One connection each, to both listeners: one line each. */
	(void)s_client(tport, mal_pem, mal_key, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "alert bad certificate"));
	free(err);
	(void)s_client(ktport, mal_pem, mal_key, &err);
	free(err);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, line, before + 2, 5000),
	    before + 2);
	/* The clients: librdkafka names the alert; both fail. */
	CU_ASSERT_NOT_EQUAL(kcat(NULL, NULL, &err, mal_pem, mal_key, NULL,
	    NULL, "-L", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "alert bad certificate"));
	free(err);
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, &err, "flume-produce", "-b", tbroker,
	    "--ca-file", ca, "--cert", mal_pem, "--key", mal_key, "-t", "a.n",
	    "x", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "handshake failed"));
	free(err);
	/* Nothing of it was stored. */
	setenv("FLUME_SECRET_FILE", admin_secret, 1);
	CU_ASSERT_EQUAL(support_tool(NULL, &err, NULL, "flume-consume", "-b", d.broker,
	    "-t", "a.n", "-o", "beginning", "-e", NULL), 0);
	unsetenv("FLUME_SECRET_FILE");
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(err, "m1\nm2\n");
	free(err);
}

/* A certificate another CA signed (CN alice even): refused, one line. */
static void
test_certificate_of_another_ca_refused(void)
{
	const char *line = "TLS handshake failed: error:0A000086:SSL "
	    "routines::certificate verify failed, closing";
	char *err = NULL;
	int before = flumed_log_count(&d, line);
	int logins = flumed_log_count(&d, "authenticated as user alice (TLS "
	    "client certificate)");

	(void)s_client(tport, foreign_pem, foreign_key, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "alert unknown ca"));
	free(err);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, line, before + 1, 5000),
	    before + 1);
	CU_ASSERT_NOT_EQUAL(kcat(NULL, NULL, &err, foreign_pem, foreign_key,
	    NULL, NULL, "-L", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "alert unknown ca"));
	free(err);
	/* Its CN is alice, yet nobody logged in as her meanwhile. */
	CU_ASSERT_EQUAL(flumed_log_count(&d, "authenticated as user alice (TLS "
	    "client certificate)"), logins);
}

static void
test_workers_survived(void)
{
	CU_ASSERT_EQUAL(child_pid(0), workers_before[0]);
	CU_ASSERT_EQUAL(child_pid(1), workers_before[1]);
}

TEST_SUITE("mtls", setup, teardown,
    { "native: the certificate's CN is the user",
	test_native_certificate_names_the_user },
    { "Kafka: the certificate's CN is the user",
	test_kafka_certificate_names_the_user },
    { "SASL and AUTH after it: the same user only",
	test_sasl_after_certificate_same_user_only },
    { "a CN that is no user: refused, logged",
	test_certificate_of_no_user_refused },
    { "another CA's certificate: refused, logged",
	test_certificate_of_another_ca_refused },
    { "workers survived", test_workers_survived });
