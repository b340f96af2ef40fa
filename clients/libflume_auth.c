/*
 * libflume authentication: read `user:secret` from the secret file named
 * in the client configuration and prove it to the broker right after the
 * HANDSHAKE of every (re)connection, with AUTH_BEGIN (the broker answers
 * a random nonce) and AUTH_PROVE (HMAC-SHA256 of the nonce keyed with
 * the secret).  The secret is read again at each connection, so a
 * rotated file is picked up, and wiped from memory as soon as the proof
 * is computed.  A broker without authentication answers AUTH_BEGIN with
 * "unsupported api"; the client then carries on unauthenticated.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "clients/libflume_int.h"
#include "proto/msg_auth.h"

#define SECRET_FILE_MAX	4096

/*
 * One exchange of the authentication, part of connecting: wait within
 * the connect timeout.  0, or -1 with errno.
 */
static int
auth_call(struct flume_client *c, uint16_t api, const void *msg,
    struct client_sync *s)
{
	if (client_call_send(c, api, msg, s) == -1 ||
	    client_sync_wait_ms(c, s, c->conf.connect_timeout_ms) == -1) {
		client_seterr(c, "authentication: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int
client_secret_read(const char *path, char *user, size_t userlen,
    uint8_t *secret, size_t *secretlen)
{
	char buf[SECRET_FILE_MAX + 1], *colon, *nl;
	size_t got = 0, ulen, slen;
	ssize_t n;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (got < SECRET_FILE_MAX) {
		n = read(fd, buf + got, SECRET_FILE_MAX - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	if ((nl = memchr(buf, '\n', got)) != NULL)
		got = (size_t)(nl - buf);
	if (got > 0 && buf[got - 1] == '\r')
		got--;
	buf[got] = '\0';
	errno = EINVAL;
	if ((colon = memchr(buf, ':', got)) == NULL)
		goto out;
	ulen = (size_t)(colon - buf);
	slen = got - ulen - 1;
	if (ulen == 0 || ulen >= userlen || ulen > AUTH_USER_MAX || slen == 0 ||
	    slen > *secretlen)
		goto out;
	memcpy(user, buf, ulen);
	user[ulen] = '\0';
	memcpy(secret, colon + 1, slen);
	*secretlen = slen;
	rc = 0;
out:
	sodium_memzero(buf, sizeof(buf));
	return rc;
}

int
client_authenticate(struct flume_client *c)
{
	crypto_auth_hmacsha256_state hs;
	struct auth_begin_req bq;
	struct auth_begin_resp bs;
	struct auth_prove_req pq;
	struct auth_prove_resp ps;
	struct client_sync s;
	char user[AUTH_USER_MAX + 1];
	uint8_t secret[SECRET_FILE_MAX];
	size_t slen = sizeof(secret);
	int rc;

	if (c->conf.secret_file == NULL)
		return 0;
	if (sodium_init() < 0) {
		client_seterr(c, "authentication: libsodium failed to start");
		errno = EIO;
		return -1;
	}
	if (client_secret_read(c->conf.secret_file, user, sizeof(user), secret,
	    &slen) == -1) {
		rc = errno;
		if (rc == EINVAL)
			client_seterr(c, "secret file %s: expected one line "
			    "user:secret", c->conf.secret_file);
		else
			client_seterr(c, "secret file %s: %s",
			    c->conf.secret_file, strerror(rc));
		errno = rc;
		return -1;
	}

	bq.user = user;
	bq.user_len = strlen(user);
	if (auth_call(c, API_AUTH_BEGIN, &bq, &s) == -1)
		goto fail;
	rc = msg_decode_auth_begin_resp(s.buf, s.len, &bs);
	free(s.buf);
	if (rc == -1) {
		client_seterr(c, "authentication: malformed response");
		errno = EPROTO;
		goto fail;
	}
	if (bs.error == ERR_UNSUPPORTED_API) {
		/* The broker does not ask for authentication. */
		sodium_memzero(secret, sizeof(secret));
		return 0;
	}
	if (bs.error != ERR_NONE) {
		client_broker_fail(c, bs.error, "authentication");
		goto fail;
	}
	crypto_auth_hmacsha256_init(&hs, secret, slen);
	crypto_auth_hmacsha256_update(&hs, bs.nonce, sizeof(bs.nonce));
	crypto_auth_hmacsha256_final(&hs, pq.mac);
	sodium_memzero(&hs, sizeof(hs));
	sodium_memzero(secret, sizeof(secret));

	rc = auth_call(c, API_AUTH_PROVE, &pq, &s);
	sodium_memzero(&pq, sizeof(pq));
	if (rc == -1)
		goto fail;
	rc = msg_decode_auth_prove_resp(s.buf, s.len, &ps);
	free(s.buf);
	if (rc == -1) {
		client_seterr(c, "authentication: malformed response");
		errno = EPROTO;
		goto fail;
	}
	if (ps.error != ERR_NONE) {
		client_broker_fail(c, ps.error, "authentication as user");
		client_seterr(c, "authentication as user %s failed: %s", user,
		    flume_strerror(ps.error));
		errno = EACCES;
		goto fail;
	}
	return 0;
fail:
	rc = errno;
	sodium_memzero(secret, sizeof(secret));
	errno = rc;
	return -1;
}
