/*
 * TLS on the native and Kafka listeners: the tools (--tls, --ca-file,
 * --cert/--key), kcat, kafka-python and confluent-kafka over TLS, openssl
 * s_client's view of the listener, the refusals (no trust in the CA,
 * plaintext to a TLS port, TLS 1.1, a missing client certificate), each
 * with one broker log line, a stalled handshake closed in time, garbage
 * before and during the handshake, a key file others may read, TLS only
 * (listen = off) and the certificate reloaded on SIGHUP.  Certificates
 * come from scripts/make-test-certs into temporary directories.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "proto/bytes.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define KCAT		"/usr/bin/kcat"
#define OPENSSL		"/usr/bin/openssl"
#define PYTHON		"/usr/bin/python3"
#define KAFKA_TLS	"tests/tools/kafka_tls.py"
#define MAKE_CERTS	"scripts/make-test-certs"

static struct flumed d;
static char *certs;		/* CA, server and client certificates */
static char ca[600], srv_cert[600], srv_key[600], cli_cert[600], cli_key[600];
static int tport, kport, ktport;
static char tbroker[64], kbroker[64], ktbroker[64], kcat_ca[700];
static pid_t workers_before[2];

static int
make_certs(const char *dir)
{
	const char *argv[] = { "sh", MAKE_CERTS, dir, "alice", NULL };

	return support_run_cmd("/bin/sh", argv, NULL, NULL, NULL, 30000);
}

static int
setup(void)
{
	char extra[2048];

	if ((certs = test_mkdtemp("tlscerts")) == NULL || make_certs(certs) != 0)
		return -1;
	snprintf(ca, sizeof(ca), "%s/ca.pem", certs);
	snprintf(srv_cert, sizeof(srv_cert), "%s/server.pem", certs);
	snprintf(srv_key, sizeof(srv_key), "%s/server.key", certs);
	snprintf(cli_cert, sizeof(cli_cert), "%s/client.pem", certs);
	snprintf(cli_key, sizeof(cli_key), "%s/client.key", certs);
	snprintf(kcat_ca, sizeof(kcat_ca), "ssl.ca.location=%s", ca);
	if ((tport = support_free_port()) <= 0 ||
	    (kport = support_free_port()) <= 0 ||
	    (ktport = support_free_port()) <= 0)
		return -1;
	snprintf(tbroker, sizeof(tbroker), "127.0.0.1:%d", tport);
	snprintf(kbroker, sizeof(kbroker), "127.0.0.1:%d", kport);
	snprintf(ktbroker, sizeof(ktbroker), "127.0.0.1:%d", ktport);
	snprintf(extra, sizeof(extra), "listen_tls = %s\n"
	    "kafka_listen = %s\nkafka_listen_tls = %s\n"
	    "tls_cert_file = %s\ntls_key_file = %s\n"
	    "handshake_timeout_ms = 2s\n"
	    "[topic n1]\npartitions = 1\n[topic k1]\npartitions = 1\n"
	    "[topic p1]\npartitions = 1\n[topic c1]\npartitions = 1\n",
	    tbroker, kbroker, ktbroker, srv_cert, srv_key);
	if (flumed_start(&d, extra) != 0)
		return -1;
	workers_before[0] = flumed_child_pid(&d, "worker", 0);
	workers_before[1] = flumed_child_pid(&d, "worker", 1);
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
	return 0;
}

/* Any program by path, args... NULL. */
static int
cmd(const char *path, const char *input, char **out, char **err, ...)
{
	const char *argv[32];
	va_list ap;
	int n = 1;

	argv[0] = path;
	va_start(ap, err);
	while (n < 31 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return support_run_cmd(path, argv, input, out, err, 60000);
}

static int
tcp_connect(int port)
{
	struct sockaddr_in sin;
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
	return fd;
}

/* Whether the broker closes fd within timeout_ms (reads to EOF). */
static int
closed_within(int fd, int timeout_ms)
{
	long long end = support_now_ms() + timeout_ms;
	struct pollfd pfd = { fd, POLLIN, 0 };
	char buf[4096];
	ssize_t n;

	while (support_now_ms() < end) {
		if (poll(&pfd, 1, (int)(end - support_now_ms())) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0 || (n == -1 && errno == ECONNRESET))
			return 1;
		if (n == -1 && errno != EINTR && errno != EAGAIN)
			return 1;
	}
	return 0;
}

/* openssl s_client sees TLS 1.3 (and 1.2 when asked) and our certificate. */
static void
test_s_client_sees_tls_and_the_certificate(void)
{
	char *out = NULL, *err = NULL;
	int before;

	CU_ASSERT_EQUAL(cmd(OPENSSL, "", &out, &err, "s_client", "-connect",
	    tbroker, "-CAfile", ca, "-verify_ip", "127.0.0.1",
	    "-verify_return_error", "-brief", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Protocol version: TLSv1.3"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Peer certificate: CN = flume"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Verification: OK"));
	free(out);
	free(err);
	CU_ASSERT_EQUAL(cmd(OPENSSL, "", &out, &err, "s_client", "-connect",
	    ktbroker, "-CAfile", ca, "-verify_return_error", "-brief",
	    "-tls1_2", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Protocol version: TLSv1.2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Peer certificate: CN = flume"));
	free(out);
	free(err);
	/* Below TLS 1.2 is refused, with one line. */
	before = flumed_log_count(&d, "unsupported protocol");
	CU_ASSERT_NOT_EQUAL(cmd(OPENSSL, "", &out, &err, "s_client",
	    "-connect", tbroker, "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0",
	    "-brief", NULL), 0);
	CU_ASSERT_PTR_NULL(out != NULL ? strstr(out, "CONNECTION ESTABLISHED") :
	    NULL);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "unsupported protocol",
	    before + 1, 5000), before + 1);
	free(out);
	free(err);
}

/* flume-produce --tls --ca-file to listen_tls, flume-consume back. */
static void
test_native_tools_over_tls(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(support_tool(NULL, NULL, NULL, "flume-produce", "-b", tbroker,
	    "--tls", "--ca-file", ca, "-t", "n1", "m1", "m2", "m3", NULL), 0);
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-consume", "-b", tbroker,
	    "--tls", "--ca-file", ca, "-t", "n1", "-o", "beginning", "-e",
	    NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "m1\nm2\nm3\n");
	free(out);
	/* The same records on the plaintext listener beside it. */
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-consume", "-b", d.broker,
	    "-t", "n1", "-o", "beginning", "-e", "-f", "%o %v\\n", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "0 m1\n1 m2\n2 m3\n");
	free(out);
}

/* The environment instead of options: FLUME_TLS and FLUME_CA_FILE. */
static void
test_native_tools_tls_from_the_environment(void)
{
	char *out = NULL;

	setenv("FLUME_TLS", "1", 1);
	setenv("FLUME_CA_FILE", ca, 1);
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-admin", "-b", tbroker,
	    "describe", "n1", NULL), 0);
	unsetenv("FLUME_TLS");
	unsetenv("FLUME_CA_FILE");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	{
		long long part = -1, start = -1, end = -1;
		const char *row = strchr(out, '\n');

		/* One partition holding the three records of the last test. */
		CU_ASSERT_PTR_NOT_NULL_FATAL(row);
		CU_ASSERT_EQUAL(sscanf(row + 1, "%lld %lld %lld", &part, &start,
		    &end), 3);
		CU_ASSERT_EQUAL(part, 0);
		CU_ASSERT_EQUAL(start, 0);
		CU_ASSERT_EQUAL(end, 3);
	}
	free(out);
}

/* No trust in the test CA; plaintext to the TLS port: refused, logged. */
static void
test_refusals_are_logged_once_each(void)
{
	char *err = NULL;
	int ca_before = flumed_log_count(&d, "alert unknown ca");
	int pt_before = flumed_log_count(&d, "wrong version number");

	CU_ASSERT_EQUAL(support_tool(NULL, NULL, &err, "flume-produce", "-b", tbroker,
	    "--tls", "-t", "n1", "x", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "certificate of 127.0.0.1:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err,
	    "not accepted: unable to get local issuer certificate"));
	free(err);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "alert unknown ca", ca_before + 1,
	    5000), ca_before + 1);
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, &err, "flume-produce", "-b", tbroker,
	    "-t", "n1", "x", NULL), 1);
	free(err);
	/*
	 * Two lines: libflume tries a first connect that was reset before any
	 * answer once more (a killed worker looks the same), then gives up.
	 */
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "wrong version number",
	    pt_before + 2, 5000), pt_before + 2);
	/* Nothing of it was stored. */
	CU_ASSERT_EQUAL(support_tool(NULL, &err, NULL, "flume-consume", "-b", d.broker,
	    "-t", "n1", "-o", "beginning", "-e", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(err, "m1\nm2\nm3\n");
	free(err);
}

/* kcat over SSL: produce, consume; the tools read the same records. */
static void
test_kcat_over_tls(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(cmd(KCAT, "a\nb\n", NULL, NULL, "-b", ktbroker,
	    "-X", "security.protocol=SSL", "-X", kcat_ca,
	    "-P", "-t", "k1", "-k", "key", NULL), 0);
	CU_ASSERT_EQUAL(cmd(KCAT, NULL, &out, NULL, "-b", ktbroker,
	    "-X", "security.protocol=SSL", "-X", kcat_ca,
	    "-C", "-t", "k1", "-o", "beginning", "-e", "-f", "%k=%s\\n", NULL),
	    0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "key=a\nkey=b\n");
	free(out);
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-consume", "-b", d.broker,
	    "-t", "k1", "-o", "beginning", "-e", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "a\nb\n");
	free(out);
}

/* kcat without the CA, and kcat in plaintext to the TLS port: refused. */
static void
test_kcat_refusals(void)
{
	int ca_before = flumed_log_count(&d, "alert unknown ca");
	int pt_before = flumed_log_count(&d, "TLS handshake failed");
	char *err = NULL;

	CU_ASSERT_NOT_EQUAL(cmd(KCAT, NULL, NULL, &err, "-b", ktbroker,
	    "-X", "security.protocol=SSL", "-m", "3", "-L", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "certificate verify failed"));
	free(err);
	CU_ASSERT(flumed_wait_log(&d, "alert unknown ca", ca_before + 1,
	    5000) >= ca_before + 1);
	pt_before = flumed_log_count(&d, "TLS handshake failed");
	CU_ASSERT_NOT_EQUAL(cmd(KCAT, NULL, NULL, &err, "-b", ktbroker,
	    "-m", "3", "-L", NULL), 0);
	free(err);
	CU_ASSERT(flumed_wait_log(&d, "TLS handshake failed", pt_before + 1,
	    5000) >= pt_before + 1);
}

/* kafka-python and confluent-kafka over TLS, the host name checked. */
static void
test_python_clients_over_tls(void)
{
	char *out = NULL;

	CU_ASSERT_EQUAL(cmd(PYTHON, NULL, &out, NULL, KAFKA_TLS, "kp",
	    ktbroker, ca, "p1", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "kp ok v0,v1,v2\n");
	free(out);
	CU_ASSERT_EQUAL(cmd(PYTHON, NULL, &out, NULL, KAFKA_TLS, "ck",
	    ktbroker, ca, "c1", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "ck ok v0,v1,v2\n");
	free(out);
}

/* A client that connects and says nothing is closed after the timeout. */
static void
test_stalled_handshake_is_closed(void)
{
	int before = flumed_log_count(&d, "TLS handshake not completed in "
	    "2000 ms");
	long long t0 = support_now_ms(), took;
	int fd;

	CU_ASSERT_FATAL((fd = tcp_connect(tport)) >= 0);
	CU_ASSERT_EQUAL(closed_within(fd, 15000), 1);
	took = support_now_ms() - t0;
	close(fd);
	CU_ASSERT(took >= 1900);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "TLS handshake not completed in "
	    "2000 ms", before + 1, 5000), before + 1);
	printf("\n  stalled handshake closed after %lld ms\n", took);
}

/* Random bytes instead of a ClientHello, on both TLS ports. */
static void
test_garbage_before_the_handshake(void)
{
	uint8_t buf[512];
	int i, fd, closed = 0, ports[2] = { tport, ktport };

	for (i = 0; i < 100; i++) {
		test_fill_random(buf, sizeof(buf));
		if (i % 4 == 0)
			buf[0] = 0x16;	/* a handshake record type, then junk */
		if ((fd = tcp_connect(ports[i % 2])) < 0)
			continue;
		if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) == -1 ||
		    closed_within(fd, 10000))
			closed++;
		close(fd);
	}
	CU_ASSERT_EQUAL(closed, 100);
}

/*
 * A real ClientHello (made by OpenSSL into memory), the server's answer
 * read, then random bytes where the client's next handshake message
 * belongs.
 */
static void
test_garbage_during_the_handshake(void)
{
	uint8_t buf[300], hello[4096];
	SSL_CTX *ctx;
	SSL *ssl;
	BIO *rb, *wb;
	struct pollfd pfd;
	int i, fd, rc, hlen, closed = 0, answered = 0;
	int ports[2] = { tport, ktport };

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx = SSL_CTX_new(TLS_client_method()));
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	for (i = 0; i < 40; i++) {
		ssl = SSL_new(ctx);
		rb = BIO_new(BIO_s_mem());
		wb = BIO_new(BIO_s_mem());
		SSL_set_bio(ssl, rb, wb);
		rc = SSL_connect(ssl);
		CU_ASSERT_EQUAL(SSL_get_error(ssl, rc), SSL_ERROR_WANT_READ);
		hlen = BIO_read(wb, hello, sizeof(hello));
		CU_ASSERT(hlen > 0);
		if ((fd = tcp_connect(ports[i % 2])) < 0 || hlen <= 0) {
			SSL_free(ssl);
			continue;
		}
		CU_ASSERT_EQUAL(send(fd, hello, (size_t)hlen, MSG_NOSIGNAL),
		    hlen);
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		/* The ServerHello comes. */
		if (poll(&pfd, 1, 10000) == 1 &&
		    recv(fd, hello, sizeof(hello), 0) > 0)
			answered++;
		test_fill_random(buf, sizeof(buf));
		buf[0] = 0x16;
		buf[1] = 3;
		buf[2] = 3;
		be16_put(buf + 3, (uint16_t)(sizeof(buf) - 5));
		if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) == -1 ||
		    closed_within(fd, 10000))
			closed++;
		SSL_free(ssl);
		close(fd);
	}
	SSL_CTX_free(ctx);
	ERR_clear_error();
	CU_ASSERT_EQUAL(answered, 40);
	CU_ASSERT_EQUAL(closed, 40);
}

/* Many TLS handshakes at once, half abandoned midway. */
static void
test_handshake_flood(void)
{
	int fds[200], i, n = 0;
	char *out = NULL;

	for (i = 0; i < 200; i++)
		if ((fds[n] = tcp_connect(i % 2 ? tport : ktport)) >= 0)
			n++;
	CU_ASSERT_EQUAL(n, 200);
	/* While they hang, a real client is still served. */
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-consume", "-b", tbroker,
	    "--tls", "--ca-file", ca, "-t", "n1", "-o", "beginning", "-e",
	    NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "m1\nm2\nm3\n");
	free(out);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

static void
test_workers_survived(void)
{
	CU_ASSERT_EQUAL(flumed_child_pid(&d, "worker", 0), workers_before[0]);
	CU_ASSERT_EQUAL(flumed_child_pid(&d, "worker", 1), workers_before[1]);
}

/* tls_client_auth = require on a TLS-only broker (listen = off). */
static void
test_mutual_tls_only(void)
{
	struct flumed m;
	char extra[2048], *out = NULL, *err = NULL;
	int port = support_free_port(), before;

	snprintf(extra, sizeof(extra), "listen = off\n"
	    "listen_tls = 127.0.0.1:%d\ntls_cert_file = %s\n"
	    "tls_key_file = %s\ntls_ca_file = %s\n"
	    "tls_client_auth = require\n[topic m1]\npartitions = 1\n",
	    port, srv_cert, srv_key, ca);
	CU_ASSERT_EQUAL_FATAL(flumed_start_on(&m, extra, port), 0);
	snprintf(m.broker, sizeof(m.broker), "127.0.0.1:%d", port);
	/* The plaintext listener is off. */
	CU_ASSERT_EQUAL(tcp_connect(m.port), -1);
	before = flumed_log_count(&m, "peer did not return a certificate");
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, &err, "flume-produce", "-b", m.broker,
	    "--tls", "--ca-file", ca, "-t", "m1", "x", NULL), 1);
	free(err);
	CU_ASSERT_EQUAL(flumed_wait_log(&m, "peer did not return a "
	    "certificate", before + 1, 5000), before + 1);
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, NULL, "flume-produce", "-b", m.broker,
	    "--ca-file", ca, "--cert", cli_cert, "--key", cli_key, "-t", "m1",
	    "y", NULL), 0);
	CU_ASSERT_EQUAL(support_tool(NULL, &out, NULL, "flume-consume", "-b", m.broker,
	    "--ca-file", ca, "--cert", cli_cert, "--key", cli_key, "-t", "m1",
	    "-o", "beginning", "-e", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "y\n");
	free(out);
	flumed_cleanup(&m);
}

static int
copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[8192], tmp[700];
	ssize_t n;
	int in, out;

	snprintf(tmp, sizeof(tmp), "%s.tmp", to);
	if ((in = open(from, O_RDONLY)) == -1)
		return -1;
	if ((out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode)) == -1) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	close(in);
	if (close(out) == -1 || n < 0 || chmod(tmp, mode) == -1)
		return -1;
	return rename(tmp, to);
}

/* A key file others may read is refused, by -n too. */
static void
test_key_readable_by_others_is_refused(void)
{
	char *dir = test_mkdtemp("tlskey"), key[700], conf[700], *err = NULL;
	char master[600];
	FILE *f;

	snprintf(key, sizeof(key), "%s/server.key", dir);
	snprintf(conf, sizeof(conf), "%s/flume.conf", dir);
	snprintf(master, sizeof(master), "%s/flume-master", support_bindir());
	CU_ASSERT_EQUAL_FATAL(copy_file(srv_key, key, 0644), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(conf, "w"));
	fprintf(f, "listen_tls = 127.0.0.1:1\ntls_cert_file = %s\n"
	    "tls_key_file = %s\ndata_dir = %s/data\n", srv_cert, key, dir);
	fclose(f);
	CU_ASSERT_EQUAL(cmd(master, NULL, NULL, &err, "-n", "-c", conf, NULL),
	    1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "readable or writable by others "
	    "(mode 644): chmod o-rwx it"));
	free(err);
	CU_ASSERT_EQUAL(chmod(key, 0600), 0);
	CU_ASSERT_EQUAL(cmd(master, NULL, NULL, &err, "-n", "-c", conf, NULL),
	    0);
	free(err);
	test_rmtree(dir);
	free(dir);
}

/* SIGHUP: new connections get the new certificate. */
static void
test_sighup_reloads_the_certificate(void)
{
	struct flumed r;
	char *dir = test_mkdtemp("tlsreload"), *other = test_mkdtemp("tlsca2");
	char cert[700], key[700], ca2[700], ocert[700], okey[700], extra[2048];
	char *err = NULL;
	int port = support_free_port();

	snprintf(cert, sizeof(cert), "%s/server.pem", dir);
	snprintf(key, sizeof(key), "%s/server.key", dir);
	snprintf(ca2, sizeof(ca2), "%s/ca.pem", other);
	snprintf(ocert, sizeof(ocert), "%s/server.pem", other);
	snprintf(okey, sizeof(okey), "%s/server.key", other);
	CU_ASSERT_EQUAL_FATAL(make_certs(other), 0);
	CU_ASSERT_EQUAL_FATAL(copy_file(srv_cert, cert, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(copy_file(srv_key, key, 0600), 0);
	snprintf(extra, sizeof(extra), "listen_tls = 127.0.0.1:%d\n"
	    "tls_cert_file = %s\ntls_key_file = %s\n", port, cert, key);
	CU_ASSERT_EQUAL_FATAL(flumed_start(&r, extra), 0);
	snprintf(r.broker, sizeof(r.broker), "127.0.0.1:%d", port);
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, NULL, "flume-produce", "-b", r.broker,
	    "--ca-file", ca, "-t", "r1", "before", NULL), 0);
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, NULL, "flume-produce", "-b", r.broker,
	    "--ca-file", ca2, "-t", "r1", "x", NULL), 1);
	CU_ASSERT_EQUAL(copy_file(okey, key, 0600), 0);
	CU_ASSERT_EQUAL(copy_file(ocert, cert, 0644), 0);
	CU_ASSERT_EQUAL(kill(r.pid, SIGHUP), 0);
	CU_ASSERT_EQUAL(flumed_wait_log(&r, "TLS certificate read again", 1,
	    10000), 1);
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, &err, "flume-produce", "-b", r.broker,
	    "--ca-file", ca2, "-t", "r1", "after", NULL), 0);
	free(err);
	CU_ASSERT_EQUAL(support_tool(NULL, NULL, NULL, "flume-produce", "-b", r.broker,
	    "--ca-file", ca, "-t", "r1", "x", NULL), 1);
	flumed_cleanup(&r);
	test_rmtree(dir);
	test_rmtree(other);
	free(dir);
	free(other);
}

/* metrics_tls: /metrics over HTTPS with the same certificate. */
static void
test_metrics_over_https(void)
{
	static const char prog[] =
	    "import ssl, sys, urllib.request\n"
	    "ctx = ssl.create_default_context(cafile=sys.argv[1])\n"
	    "r = urllib.request.urlopen('https://' + sys.argv[2] + '/metrics',\n"
	    "    context=ctx, timeout=10)\n"
	    "b = r.read().decode()\n"
	    "print(r.status, 'flume_worker_connections_accepted_total' in b)\n";
	static const char plain[] =
	    "import sys, urllib.request\n"
	    "try:\n"
	    "    urllib.request.urlopen('http://' + sys.argv[1] + '/metrics',\n"
	    "        timeout=10).read()\n"
	    "    print('answered')\n"
	    "except Exception:\n"
	    "    print('refused')\n";
	struct flumed m;
	char extra[2048], addr[64], *out = NULL;
	int port = support_free_port();

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	snprintf(extra, sizeof(extra), "metrics_listen = %s\nmetrics_tls = yes\n"
	    "tls_cert_file = %s\ntls_key_file = %s\n", addr, srv_cert,
	    srv_key);
	CU_ASSERT_EQUAL_FATAL(flumed_start(&m, extra), 0);
	CU_ASSERT(flumed_wait_log(&m, "serving metrics on https://", 1,
	    10000) == 1);
	CU_ASSERT_EQUAL(cmd(PYTHON, NULL, &out, NULL, "-c", prog, ca, addr,
	    NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "200 True\n");
	free(out);
	CU_ASSERT_EQUAL(cmd(PYTHON, NULL, &out, NULL, "-c", plain, addr, NULL),
	    0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "refused\n");
	free(out);
	flumed_cleanup(&m);
}

TEST_SUITE("tls", setup, teardown,
    { "openssl s_client sees TLS 1.2+ and the certificate",
	test_s_client_sees_tls_and_the_certificate },
    { "flume-produce/consume --tls --ca-file", test_native_tools_over_tls },
    { "FLUME_TLS and FLUME_CA_FILE", test_native_tools_tls_from_the_environment },
    { "no CA trust, plaintext to TLS: refused, one line each",
	test_refusals_are_logged_once_each },
    { "kcat over SSL produces and consumes", test_kcat_over_tls },
    { "kcat without the CA, kcat plaintext: refused", test_kcat_refusals },
    { "kafka-python and confluent-kafka over TLS",
	test_python_clients_over_tls },
    { "a stalled handshake is closed", test_stalled_handshake_is_closed },
    { "garbage before the handshake", test_garbage_before_the_handshake },
    { "garbage during the handshake", test_garbage_during_the_handshake },
    { "a flood of handshakes", test_handshake_flood },
    { "workers survived", test_workers_survived },
    { "mutual TLS, TLS only", test_mutual_tls_only },
    { "a key file others may read is refused",
	test_key_readable_by_others_is_refused },
    { "SIGHUP reloads the certificate", test_sighup_reloads_the_certificate },
    { "metrics over HTTPS", test_metrics_over_https });
