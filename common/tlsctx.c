/*
 * The TLS server context (common/tlsctx.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "common/tlsctx.h"

int
tlsctx_wanted(const struct config *c)
{
	return c->listen_tls[0] != '\0' || c->kafka_listen_tls[0] != '\0' ||
	    (c->metrics_tls && c->metrics_listen[0] != '\0');
}

const char *
tlsctx_error(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();

	if (e == 0)
		snprintf(buf, len, "unknown error");
	else
		ERR_error_string_n(e, buf, len);
	ERR_clear_error();
	return buf;
}

/* The key is a secret: others than owner and group must not read it. */
static int
tlsctx_key_private(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) == -1) {
		snprintf(err, errlen, "tls_key_file %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if ((st.st_mode & 007) != 0) {
		snprintf(err, errlen, "tls_key_file %s: readable or writable "
		    "by others (mode %03o): chmod o-rwx it", path,
		    (unsigned)(st.st_mode & 0777));
		return -1;
	}
	return 0;
}

SSL_CTX *
tlsctx_new(const struct config *c, char *err, size_t errlen)
{
	SSL_CTX *ctx;
	char e[256];
	int mode;

	ERR_clear_error();
	if (tlsctx_key_private(c->tls_key_file, err, errlen) == -1)
		return NULL;
	if ((ctx = SSL_CTX_new(TLS_server_method())) == NULL) {
		snprintf(err, errlen, "TLS context: %s",
		    tlsctx_error(e, sizeof(e)));
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/*
	 * kTLS: after the handshake the kernel encrypts (and SSL_sendfile
	 * keeps fetches zero copy) where the tls module is there; OpenSSL
	 * silently stays in user space otherwise.  Partial writes and a
	 * moving buffer: a connection's output buffer grows while a record
	 * waits for the socket.
	 */
	SSL_CTX_set_options(ctx, SSL_OP_ENABLE_KTLS | SSL_OP_NO_RENEGOTIATION |
	    SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_IGNORE_UNEXPECTED_EOF);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
	    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
	if (SSL_CTX_use_certificate_chain_file(ctx, c->tls_cert_file) != 1) {
		snprintf(err, errlen, "tls_cert_file %s: %s", c->tls_cert_file,
		    tlsctx_error(e, sizeof(e)));
		goto fail;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, c->tls_key_file,
	    SSL_FILETYPE_PEM) != 1) {
		snprintf(err, errlen, "tls_key_file %s: %s", c->tls_key_file,
		    tlsctx_error(e, sizeof(e)));
		goto fail;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		snprintf(err, errlen, "tls_key_file %s does not belong to "
		    "tls_cert_file %s", c->tls_key_file, c->tls_cert_file);
		goto fail;
	}
	if (c->tls_ca_file[0] != '\0') {
		STACK_OF(X509_NAME) *names;

		if (SSL_CTX_load_verify_locations(ctx, c->tls_ca_file,
		    NULL) != 1) {
			snprintf(err, errlen, "tls_ca_file %s: %s",
			    c->tls_ca_file, tlsctx_error(e, sizeof(e)));
			goto fail;
		}
		if ((names = SSL_load_client_CA_file(c->tls_ca_file)) != NULL)
			SSL_CTX_set_client_CA_list(ctx, names);
	}
	mode = SSL_VERIFY_NONE;
	if (c->tls_client_auth == TLS_CLIENT_REQUEST)
		mode = SSL_VERIFY_PEER;
	else if (c->tls_client_auth == TLS_CLIENT_REQUIRE)
		mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
	SSL_CTX_set_verify(ctx, mode, NULL);
	/* Session resumption would need a cache shared by every worker. */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_num_tickets(ctx, 0);
	ERR_clear_error();
	return ctx;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}
