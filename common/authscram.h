/*
 * SCRAM credentials in the auth_file, as Kafka's
 * DescribeUserScramCredentials and AlterUserScramCredentials see them:
 * pure functions over the text and its table (common/authfile.h), so
 * worker/op/scram.c only locks, writes and waits.
 *
 * A user with a password (a plain secret) has both mechanisms, derived
 * from it with 4096 iterations; one made or changed by
 * AlterUserScramCredentials has a `{scram}` secret holding what Kafka
 * keeps (salt, iterations, StoredKey, ServerKey per mechanism).  An
 * upsertion for a user with a password replaces the password by the one
 * credential (the password changes, so what came from the old one goes:
 * native AUTH and PLAIN need a password and refuse such a user); a new
 * user gets a line of its own with no permission at all, until an ACL
 * (CreateAcls) or an edit grants one.  Deleting a mechanism of a user
 * with a password is refused (both mechanisms come from it); deleting
 * the last credential of a `{scram}` user keeps the line and its
 * permissions, and nobody can log in as it (but by a TLS certificate).
 */
#ifndef FLUME_COMMON_AUTHSCRAM_H
#define FLUME_COMMON_AUTHSCRAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/authfile.h"

/* Kafka's mechanism numbers (ScramMechanism): 1 SHA-256, 2 SHA-512. */
#define SCRAM_MECH_SHA256	1
#define SCRAM_MECH_SHA512	2
#define SCRAM_DERIVED_ITERATIONS 4096	/* a password's (worker/kafka/scram.h) */

enum authscram_err {
	AUTHSCRAM_OK = 0,
	AUTHSCRAM_DUPLICATE,		/* the user twice in one request */
	AUTHSCRAM_NOT_FOUND,		/* no such user or credential */
	AUTHSCRAM_MECHANISM,		/* not SCRAM-SHA-256 or -512 */
	AUTHSCRAM_UNACCEPTABLE,		/* name, iterations, salt, length */
	AUTHSCRAM_PASSWORD,		/* the credential comes from a password */
	AUTHSCRAM_INTERNAL		/* out of memory */
};

/* One deletion (del) or upsertion; strings need not be NUL-terminated. */
struct scram_alter {
	const char	*user;
	size_t		 user_len;
	int		 del;
	int		 mech;		/* Kafka's number */
	int32_t		 iterations;
	const uint8_t	*salt;
	size_t		 salt_len;
	const uint8_t	*salted;	/* the salted password */
	size_t		 salted_len;
};

/* One user's answer (Kafka answers per user, not per alteration). */
struct scram_result {
	const char	*user;		/* into the request's alteration */
	size_t		 user_len;
	enum authscram_err err;
	char		 why[160];
};

/*
 * The n alterations a[] on the auth_file text[0..len) (parsed as t):
 * one result per user named, in the order first named, in res (n
 * entries) and *nres; the new text in *out (malloc'd, *outlen), or NULL
 * when nothing changes.  0, or -1 (ENOMEM).
 */
int	authscram_alter(const char *text, size_t len, const struct auth_table *t,
	    const struct scram_alter *a, size_t n, struct scram_result *res,
	    size_t *nres, char **out, size_t *outlen);

/*
 * The mechanisms of user u: for i in 0..1 (SHA-256, SHA-512), iterations
 * in it[i] or 0 when the user has none; the count.
 */
int	authscram_describe(const struct auth_user *u, int32_t it[2]);

#endif
