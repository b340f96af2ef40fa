/*
 * The server side TLS context every TLS listener uses: OpenSSL's SSL_CTX
 * built from tls_cert_file, tls_key_file, tls_ca_file and
 * tls_client_auth.  The master builds one before it forks, only to report
 * a bad certificate or key on the terminal; each worker builds its own
 * after fork and again on SIGHUP, so new connections get the new
 * certificate while established ones keep theirs (an SSL holds a
 * reference to the context it was made from).
 */
#ifndef FLUME_COMMON_TLSCTX_H
#define FLUME_COMMON_TLSCTX_H

#include <stddef.h>

#include <openssl/ssl.h>

#include "common/config.h"

/*
 * A new context (TLS 1.2 at least, kTLS asked for) or NULL with a
 * one-line reason in err.  A key file readable or writable by others
 * than its owner and group is refused.
 */
SSL_CTX	*tlsctx_new(const struct config *c, char *err, size_t errlen);
/* Whether any listener needs the certificate (metrics_tls included). */
int	 tlsctx_wanted(const struct config *c);
/* The first error on OpenSSL's queue as text (and the queue cleared). */
const char *tlsctx_error(char *buf, size_t len);

#endif
