/*
 * The worker's TLS layer (worker/tls.h).
 *
 * The context is this process's own (common/tlsctx.h): built after fork
 * and rebuilt on SIGHUP; a session keeps a reference to the context it
 * was made from, so a reload never touches an established connection.
 *
 * Fetches: with kernel TLS (OpenSSL's SSL_OP_ENABLE_KTLS and a kernel
 * with the tls module), SSL_sendfile() keeps log bytes out of user space
 * as sendfile(2) does for plaintext; otherwise they are pread(2) into one
 * buffer per worker and written with SSL_write().  A write that would
 * block is retried from the same file position, which holds the same
 * bytes: segments are append-only.
 *
 * With tls_cert_user, a verified client certificate's CN must name a
 * user of the auth_file (worker/access.h logs the connection in as that
 * user): one that does not is refused in the handshake itself, with a
 * bad_certificate alert, so the client learns it from its TLS library
 * as it does of any other certificate it may not use.
 */
#include <sys/epoll.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/string.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "common/authfile.h"
#include "common/log.h"
#include "common/tlsctx.h"
#include "worker/tls.h"

#define TLS_FILE_BUF	(64 * 1024)	/* one fallback fetch write */

struct tls {
	SSL		*ssl;
	const char	*peer;		/* the connection's, outlives us */
	int		 done;		/* handshake finished */
	uint32_t	 want;		/* events the last blocked call needs */
	uint32_t	 want_r, want_w; /* ... the last blocked read, write */
	char		 cn[128];
	char		 refused[160];	/* why tls_verify_user said no */
};

static SSL_CTX *tls_ctx;
static uint8_t *tls_fbuf;
static int tls_ktls_logged;
static int tls_cert_user;

int
tls_init(const struct config *c)
{
	char err[512];

	if (!tlsctx_wanted(c))
		return 0;
	tls_cert_user = c->tls_cert_user;
	if ((tls_ctx = tlsctx_new(c, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	return 0;
}

void
tls_reload(const struct config *c)
{
	SSL_CTX *n;
	char err[512];

	if (tls_ctx == NULL)
		return;
	if ((n = tlsctx_new(c, err, sizeof(err))) == NULL) {
		log_warnx("reload: %s; keeping the current certificate", err);
		return;
	}
	SSL_CTX_free(tls_ctx);	/* sessions hold their own reference */
	tls_ctx = n;
	log_debug("reload: TLS certificate read again");
}

void
tls_fini(void)
{
	SSL_CTX_free(tls_ctx);
	tls_ctx = NULL;
	free(tls_fbuf);
	tls_fbuf = NULL;
}

/*
 * OpenSSL's verify callback with tls_cert_user: a certificate chain the
 * CA vouches for is still refused when its leaf's CN names no user.
 */
static int
tls_verify_user(int ok, X509_STORE_CTX *x)
{
	SSL *ssl;
	struct tls *t;
	X509 *cert;
	char cn[AUTH_USER_MAX + 2];
	int n;

	if (!ok || X509_STORE_CTX_get_error_depth(x) != 0)
		return ok;
	ssl = X509_STORE_CTX_get_ex_data(x, SSL_get_ex_data_X509_STORE_CTX_idx());
	if (ssl == NULL || (t = SSL_get_app_data(ssl)) == NULL ||
	    (cert = X509_STORE_CTX_get_current_cert(x)) == NULL)
		return 0;
	n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert),
	    NID_commonName, cn, sizeof(cn));
	/* No CN, a NUL inside it, or longer than any user name: no user. */
	if (n <= 0 || (size_t)n != strlen(cn) || n > AUTH_USER_MAX)
		snprintf(t->refused, sizeof(t->refused), "client certificate "
		    "has no CN that could name a user");
	else if (auth_find_in(auth_table_current(), cn, (size_t)n) == NULL)
		snprintf(t->refused, sizeof(t->refused), "client certificate "
		    "CN %s is not a user in the auth_file", cn);
	else
		return 1;
	X509_STORE_CTX_set_error(x, X509_V_ERR_CERT_REJECTED);
	return 0;
}

struct tls *
tls_new(int fd, const char *peer)
{
	struct tls *t;

	if (tls_ctx == NULL || (t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	if ((t->ssl = SSL_new(tls_ctx)) == NULL || SSL_set_fd(t->ssl, fd) != 1) {
		SSL_free(t->ssl);
		free(t);
		ERR_clear_error();
		return NULL;
	}
	SSL_set_accept_state(t->ssl);
	if (tls_cert_user) {
		SSL_set_app_data(t->ssl, t);
		SSL_set_verify(t->ssl, SSL_get_verify_mode(t->ssl),
		    tls_verify_user);
	}
	t->peer = peer;
	t->want = EPOLLIN;
	return t;
}

void
tls_free(struct tls *t)
{
	if (t == NULL)
		return;
	/* One close_notify if it fits; never waits for the peer's. */
	if (t->done && !(SSL_get_shutdown(t->ssl) & SSL_SENT_SHUTDOWN))
		(void)SSL_shutdown(t->ssl);
	SSL_free(t->ssl);
	ERR_clear_error();
	free(t);
}

/*
 * Map a failed call: -1 with errno EAGAIN (and t->want set) when it
 * would block, 0 for the peer's close_notify, -1 ECONNRESET for a socket
 * gone, -1 EPROTO (logged) for a TLS error.
 */
static ssize_t
tls_fail(struct tls *t, int rc, const char *what)
{
	char e[256];
	int err = SSL_get_error(t->ssl, rc);

	switch (err) {
	case SSL_ERROR_WANT_READ:
		t->want = EPOLLIN;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_WANT_WRITE:
		t->want = EPOLLOUT;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_SYSCALL:
		ERR_clear_error();
		if (rc == 0 || errno == 0 || errno == EPIPE ||
		    errno == ECONNRESET) {
			errno = ECONNRESET;
			return -1;
		}
		return -1;	/* errno from the socket */
	default:
		if (t->refused[0] != '\0') {
			/* Our own reason, not OpenSSL's "verify failed". */
			log_warnx("%s: TLS %s refused: %s, closing", t->peer,
			    what, t->refused);
			ERR_clear_error();
		} else
			log_warnx("%s: TLS %s failed: %s, closing", t->peer,
			    what, tlsctx_error(e, sizeof(e)));
		errno = EPROTO;
		return -1;
	}
}

int
tls_handshake(struct tls *t)
{
	X509 *x;
	int rc;

	if (t->done)
		return 1;
	ERR_clear_error();
	if ((rc = SSL_do_handshake(t->ssl)) != 1) {
		if (tls_fail(t, rc, "handshake") == 0)
			errno = ECONNRESET;	/* closed before it was done */
		else if (errno == EAGAIN)
			return 0;
		if (errno == ECONNRESET)
			log_warnx("%s: TLS handshake failed: connection "
			    "closed by the client, closing", t->peer);
		else if (errno != EPROTO)
			log_warn("%s: TLS handshake failed", t->peer);
		return -1;
	}
	t->done = 1;
	t->want = 0;
	if ((x = SSL_get_peer_certificate(t->ssl)) != NULL) {
		X509_NAME_get_text_by_NID(X509_get_subject_name(x),
		    NID_commonName, t->cn, sizeof(t->cn));
		X509_free(x);
	}
	if (!tls_ktls_logged) {
		/* Once per worker: which fetch path this machine gets. */
		tls_ktls_logged = 1;
		log_info("TLS: kernel TLS %s for sending (%s)",
		    BIO_get_ktls_send(SSL_get_wbio(t->ssl)) ? "on" : "off",
		    BIO_get_ktls_send(SSL_get_wbio(t->ssl)) ?
		    "fetch stays zero copy" : "fetch reads and encrypts");
	}
	log_debug("%s: TLS %s %s%s%s", t->peer, SSL_get_version(t->ssl),
	    SSL_get_cipher_name(t->ssl), t->cn[0] ? ", client " : "", t->cn);
	return 1;
}

int
tls_handshake_done(const struct tls *t)
{
	return t->done;
}

/*
 * During the handshake, what it waits for.  After it, only the crossed
 * cases: conn.c asks for EPOLLIN while it wants input and EPOLLOUT
 * while output waits, but not for a read that needs the socket writable
 * or a write that needs it readable.
 */
uint32_t
tls_events(const struct tls *t)
{
	if (!t->done)
		return t->want;
	return (t->want_r & EPOLLOUT) | (t->want_w & EPOLLIN);
}

ssize_t
tls_read(struct tls *t, void *buf, size_t len)
{
	size_t n;
	int rc;

	ERR_clear_error();
	if ((rc = SSL_read_ex(t->ssl, buf, len, &n)) == 1) {
		t->want_r = 0;
		return (ssize_t)n;
	}
	t->want = 0;
	rc = (int)tls_fail(t, 0, "read");
	t->want_r = t->want;
	return rc;
}

ssize_t
tls_write(struct tls *t, const void *buf, size_t len)
{
	size_t n;

	ERR_clear_error();
	if (SSL_write_ex(t->ssl, buf, len, &n) == 1) {
		t->want_w = 0;
		return (ssize_t)n;
	}
	t->want = 0;
	if ((n = (size_t)tls_fail(t, 0, "write")) == 0) {
		/* The peer's close_notify: nothing more can be sent. */
		errno = ECONNRESET;
		n = (size_t)-1;
	}
	t->want_w = t->want;
	return (ssize_t)n;
}

ssize_t
tls_sendfile(struct tls *t, int fd, off_t pos, size_t len)
{
	ssize_t n;

	ERR_clear_error();
	if (BIO_get_ktls_send(SSL_get_wbio(t->ssl))) {
		if ((n = SSL_sendfile(t->ssl, fd, pos, len, 0)) >= 0) {
			t->want_w = 0;
			return n;
		}
		t->want = 0;
		if ((n = tls_fail(t, -1, "sendfile")) == 0) {
			errno = ECONNRESET;
			n = -1;
		}
		t->want_w = t->want;
		return n;
	}
	if (tls_fbuf == NULL && (tls_fbuf = malloc(TLS_FILE_BUF)) == NULL)
		return -1;
	if (len > TLS_FILE_BUF)
		len = TLS_FILE_BUF;
	for (;;) {
		n = pread(fd, tls_fbuf, len, pos);
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (n <= 0)
		return n;
	return tls_write(t, tls_fbuf, (size_t)n);
}

size_t
tls_pending(const struct tls *t)
{
	return t->done ? (size_t)SSL_pending(t->ssl) : 0;
}

const char *
tls_peer_cn(const struct tls *t)
{
	return t->cn;
}
