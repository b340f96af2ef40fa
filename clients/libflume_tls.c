/*
 * libflume's TLS transport (OpenSSL): one context per client, built from
 * its struct flume_tls_conf, and one session per connection.  The socket
 * stays non-blocking; the handshake is driven with poll(2) inside
 * connect's timeout, later reads and writes return EAGAIN as recv(2) and
 * send(2) do, with the poll event OpenSSL waits for.
 *
 * Verification is always on: the chain against ca_file (or the system's
 * CAs) and the name against the host the caller connected to.
 */
#include <sys/socket.h>

#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "clients/libflume_int.h"

struct client_tls {
	SSL_CTX		*ctx;
	SSL		*ssl;		/* this connection's; NULL between them */
};

static const char *
client_tls_err(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();

	if (e == 0)
		snprintf(buf, len, "connection closed during the handshake");
	else
		ERR_error_string_n(e, buf, len);
	ERR_clear_error();
	return buf;
}

struct client_tls *
client_tls_new(struct flume_client *c, const struct flume_tls_conf *t)
{
	struct client_tls *ct;
	char e[256];

	if ((ct = calloc(1, sizeof(*ct))) == NULL) {
		client_seterr(c, "out of memory");
		return NULL;
	}
	ERR_clear_error();
	if ((ct->ctx = SSL_CTX_new(TLS_client_method())) == NULL) {
		client_seterr(c, "TLS: %s", client_tls_err(e, sizeof(e)));
		goto fail;
	}
	SSL_CTX_set_min_proto_version(ct->ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ct->ctx, SSL_VERIFY_PEER, NULL);
	if (t->ca_file != NULL ? SSL_CTX_load_verify_locations(ct->ctx,
	    t->ca_file, NULL) != 1 : SSL_CTX_set_default_verify_paths(ct->ctx)
	    != 1) {
		client_seterr(c, "TLS CA file %s: %s", t->ca_file != NULL ?
		    t->ca_file : "(system)", client_tls_err(e, sizeof(e)));
		goto fail;
	}
	if ((t->cert_file == NULL) != (t->key_file == NULL)) {
		client_seterr(c, "TLS: a client certificate needs both a "
		    "certificate and a key file");
		goto fail;
	}
	if (t->cert_file != NULL &&
	    (SSL_CTX_use_certificate_chain_file(ct->ctx, t->cert_file) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ct->ctx, t->key_file,
	    SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ct->ctx) != 1)) {
		client_seterr(c, "TLS client certificate %s (key %s): %s",
		    t->cert_file, t->key_file, client_tls_err(e, sizeof(e)));
		goto fail;
	}
	SSL_CTX_set_mode(ct->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
	    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_options(ct->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	return ct;
fail:
	client_tls_free(ct);
	errno = EINVAL;
	return NULL;
}

void
client_tls_free(struct client_tls *t)
{
	if (t == NULL)
		return;
	client_tls_stop(t);
	SSL_CTX_free(t->ctx);
	free(t);
}

void
client_tls_stop(struct client_tls *t)
{
	if (t == NULL || t->ssl == NULL)
		return;
	(void)SSL_shutdown(t->ssl);	/* close_notify if it fits */
	SSL_free(t->ssl);
	t->ssl = NULL;
	ERR_clear_error();
}

static int64_t
client_tls_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
client_tls_start(struct flume_client *c, const char *host, int timeout_ms)
{
	struct client_tls *t = c->tls;
	struct in6_addr a;
	struct pollfd pfd;
	char e[256];
	int64_t end = client_tls_now() + timeout_ms, left;
	long vr;
	int rc, err;

	ERR_clear_error();
	client_tls_stop(t);
	if ((t->ssl = SSL_new(t->ctx)) == NULL || SSL_set_fd(t->ssl, c->fd) != 1)
		goto fail;
	/* The certificate must name what we connected to. */
	if (inet_pton(AF_INET, host, &a) == 1 ||
	    inet_pton(AF_INET6, host, &a) == 1) {
		if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl),
		    host) != 1)
			goto fail;
	} else if (SSL_set1_host(t->ssl, host) != 1 ||
	    SSL_set_tlsext_host_name(t->ssl, host) != 1)
		goto fail;
	SSL_set_connect_state(t->ssl);
	for (;;) {
		if ((rc = SSL_do_handshake(t->ssl)) == 1)
			return 0;
		err = SSL_get_error(t->ssl, rc);
		if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)
			break;
		if ((left = end - client_tls_now()) <= 0) {
			client_seterr(c, "TLS handshake with %s timed out",
			    c->host_port);
			errno = ETIMEDOUT;
			return -1;
		}
		pfd.fd = c->fd;
		pfd.events = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			break;
	}
	if ((vr = SSL_get_verify_result(t->ssl)) != X509_V_OK) {
		client_seterr(c, "TLS: certificate of %s not accepted: %s",
		    c->host_port, X509_verify_cert_error_string(vr));
		ERR_clear_error();
		errno = EPERM;
		return -1;
	}
fail:
	client_seterr(c, "TLS handshake with %s failed: %s", c->host_port,
	    client_tls_err(e, sizeof(e)));
	errno = ECONNREFUSED;
	return -1;
}

/* -1 with errno: EAGAIN (and *want) to wait, ECONNRESET, EPROTO. */
static ssize_t
client_tls_fail(struct client_tls *t, short *want)
{
	switch (SSL_get_error(t->ssl, 0)) {
	case SSL_ERROR_WANT_READ:
		*want = POLLIN;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_WANT_WRITE:
		*want = POLLOUT;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN:
		ERR_clear_error();
		return 0;
	case SSL_ERROR_SYSCALL:
		ERR_clear_error();
		errno = ECONNRESET;
		return -1;
	default:
		ERR_clear_error();
		errno = EPROTO;
		return -1;
	}
}

ssize_t
client_tls_read(struct client_tls *t, void *buf, size_t len, short *want)
{
	size_t n;

	ERR_clear_error();
	if (SSL_read_ex(t->ssl, buf, len, &n) == 1)
		return (ssize_t)n;
	return client_tls_fail(t, want);
}

ssize_t
client_tls_write(struct client_tls *t, const void *buf, size_t len, short *want)
{
	size_t n;

	ERR_clear_error();
	if (SSL_write_ex(t->ssl, buf, len, &n) == 1)
		return (ssize_t)n;
	return client_tls_fail(t, want);
}

size_t
client_tls_pending(const struct client_tls *t)
{
	return t->ssl != NULL ? (size_t)SSL_pending(t->ssl) : 0;
}

const char *
client_tls_version(const struct client_tls *t)
{
	return t->ssl != NULL ? SSL_get_version(t->ssl) : "";
}
