/*
 * The server side of SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, 7677)
 * over OpenSSL's PBKDF2 and HMAC.
 *
 * The auth_file holds secrets, not SCRAM credentials: the salted
 * password is derived from the user's secret at each authentication,
 * with SCRAM_ITERATIONS rounds and a salt derived from the user name and
 * a secret of the broker's (scram_salt()), so the same user always gets
 * the same salt from a running broker, nothing else needs storing, and
 * no table computed for another broker applies.  Clients authenticate
 * with the secret as their password.
 *
 * A user the auth_file does not have gets a salt the same way and, at
 * the proof, the same key derivation (against the broker's secret as
 * password), so a failure takes the same work and looks the same
 * whether the user exists or not.
 */
#ifndef FLUME_WORKER_KAFKA_SCRAM_H
#define FLUME_WORKER_KAFKA_SCRAM_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/ksasl.h"

enum scram_mech { SCRAM_SHA256 = 1, SCRAM_SHA512 = 2 };

#define SCRAM_ITERATIONS	4096
#define SCRAM_SALT_LEN		16
#define SCRAM_KEY_MAX		64	/* SHA-512 */
#define SCRAM_SNONCE_LEN	24	/* random bytes of the server's nonce */
#define SCRAM_MSG_MAX		4096	/* a server message, and AuthMessage's prefix */

struct scram_server {
	int		 mech;
	char		 nonce[KSASL_NONCE_MAX + 2 * SCRAM_SNONCE_LEN + 1];
	size_t		 nonce_len;		/* client's + server's */
	char		 gs2[4];		/* "n,," or "y,," */
	/* client-first-message-bare "," server-first-message */
	char		 auth[2 * SCRAM_MSG_MAX];
	size_t		 auth_len;
	size_t		 first_len;		/* the server-first part's length */
};

/*
 * The salt of user: HMAC-SHA-256 keyed with the broker's secret key
 * (common/authfile.h, auth_unknown_user_key) of a fixed label and the
 * name, cut short.
 */
void	scram_salt(const uint8_t *key, size_t keylen, const char *user,
	    size_t len, uint8_t salt[SCRAM_SALT_LEN]);
/*
 * Answer a client-first message: the server-first message is
 * s->auth + s->auth_len - s->first_len (s->first_len bytes).  snonce is
 * the server's nonce part (printable, no ','); 0 or -1.
 */
int	scram_server_first(struct scram_server *s, int mech, const char *msg,
	    size_t len, const struct ksasl_scram_first *f, const char *snonce,
	    const uint8_t *salt, size_t saltlen, int iterations);
/*
 * Check a client-final message against password: 0 with the
 * server-final message ("v=...", NUL-terminated) in out, or -1 (a wrong
 * proof, nonce or channel binding; out untouched).
 */
int	scram_server_final(struct scram_server *s, const uint8_t *password,
	    size_t plen, const uint8_t *salt, size_t saltlen, int iterations,
	    const struct ksasl_scram_final *f, char *out, size_t outlen);
/*
 * The same against a stored credential (StoredKey and ServerKey of s's
 * mechanism), as AlterUserScramCredentials gives it; 0 or -1.
 */
int	scram_server_final_keys(struct scram_server *s, const uint8_t *stored,
	    const uint8_t *server, const struct ksasl_scram_final *f,
	    char *out, size_t outlen);
/* Salted passwords this process has derived (PBKDF2 runs), for metrics. */
uint64_t scram_derivations(void);
/* A fresh server nonce part, base64 of SCRAM_SNONCE_LEN random bytes. */
void	scram_nonce(char out[2 * SCRAM_SNONCE_LEN + 1]);

#endif
