/*
 * SCRAM credentials in the auth_file (see common/authscram.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/authscram.h"
#include "common/authwrite.h"

/* The auth_file's secret field holds at most this much. */
#define SCRAM_FIELD_MAX	(AUTH_SECRET_MAX + 1)

int
authscram_describe(const struct auth_user *u, int32_t it[2])
{
	int i, n = 0;

	for (i = 0; i < AUTH_SCRAM_MECHS; i++) {
		it[i] = u->scram_only ? (u->scram[i].set ?
		    u->scram[i].iterations : 0) : SCRAM_DERIVED_ITERATIONS;
		n += it[i] != 0;
	}
	return n;
}

static int
why(struct scram_result *r, enum authscram_err e, const char *msg)
{
	r->err = e;
	snprintf(r->why, sizeof(r->why), "%s", msg);
	return -1;
}

/* Check one alteration; 0, or -1 with r's error. */
static int
alter_check(const struct auth_table *t, const struct scram_alter *a,
    struct scram_result *r)
{
	const struct auth_user *u;
	size_t i, keylen;
	int m;

	if (a->user_len == 0)
		return why(r, AUTHSCRAM_UNACCEPTABLE,
		    "Username must not be empty");
	if (a->mech != SCRAM_MECH_SHA256 && a->mech != SCRAM_MECH_SHA512)
		return why(r, AUTHSCRAM_MECHANISM, "Unknown SCRAM mechanism");
	if (a->user_len > AUTH_USER_MAX)
		return why(r, AUTHSCRAM_UNACCEPTABLE, "a user name is at most "
		    "64 characters");
	for (i = 0; i < a->user_len; i++)
		if (!auth_name_char((unsigned char)a->user[i]))
			return why(r, AUTHSCRAM_UNACCEPTABLE, "a user name may "
			    "only hold A-Z a-z 0-9 . _ - @");
	m = a->mech - 1;
	u = auth_find_in(t, a->user, a->user_len);
	if (a->del) {
		if (u == NULL || (u->scram_only && !u->scram[m].set))
			return why(r, AUTHSCRAM_NOT_FOUND, "Attempt to delete "
			    "a user credential that does not exist");
		if (!u->scram_only)
			return why(r, AUTHSCRAM_PASSWORD, "the user has a "
			    "password in the auth_file, from which both SCRAM "
			    "mechanisms come: upsert a credential to replace "
			    "it");
		return 0;
	}
	if (a->iterations < AUTH_SCRAM_ITER_MIN)
		return why(r, AUTHSCRAM_UNACCEPTABLE, "Too few iterations");
	if (a->iterations > AUTH_SCRAM_ITER_MAX)
		return why(r, AUTHSCRAM_UNACCEPTABLE, "Too many iterations");
	if (a->salt_len == 0 || a->salt_len > AUTH_SCRAM_SALT_MAX)
		return why(r, AUTHSCRAM_UNACCEPTABLE, "the salt must be 1 to "
		    "64 bytes");
	keylen = auth_scram_keylen(m);
	if (a->salted_len != keylen)
		return why(r, AUTHSCRAM_UNACCEPTABLE, m == AUTH_SCRAM_SHA512 ?
		    "a SCRAM-SHA-512 salted password is 64 bytes" :
		    "a SCRAM-SHA-256 salted password is 32 bytes");
	return 0;
}

/* The user's credentials after a (checked) alteration, into u. */
static void
alter_apply(struct auth_user *u, const struct scram_alter *a)
{
	struct auth_scram *sc = &u->scram[a->mech - 1];

	if (!u->scram_only) {
		/* A new password: what came from the old one goes. */
		memset(u->scram, 0, sizeof(u->scram));
		u->scram_only = 1;
	}
	if (a->del) {
		memset(sc, 0, sizeof(*sc));
		return;
	}
	sc->set = 1;
	sc->iterations = a->iterations;
	sc->salt_len = a->salt_len;
	memcpy(sc->salt, a->salt, a->salt_len);
	auth_scram_keys(a->mech - 1, a->salted, sc->stored_key,
	    sc->server_key);
}

int
authscram_alter(const char *text, size_t len, const struct auth_table *t,
    const struct scram_alter *a, size_t n, struct scram_result *res,
    size_t *nres, char **out, size_t *outlen)
{
	struct auth_line_edit *e = NULL;
	struct auth_user nu;
	char *fields = NULL, *app = NULL;
	size_t *which = NULL, i, j, k, alen = 0, acap = 0;
	int changed = 0, rc = -1;

	*out = NULL;
	*outlen = 0;
	*nres = 0;
	if ((which = calloc(n + 1, sizeof(*which))) == NULL ||
	    (e = calloc(t->nusers + 1, sizeof(*e))) == NULL ||
	    (fields = calloc(n + 1, SCRAM_FIELD_MAX)) == NULL)
		goto out;
	/* One result per user; a user named twice is refused whole. */
	for (i = 0; i < n; i++) {
		for (k = 0; k < *nres; k++)
			if (res[k].user_len == a[i].user_len &&
			    memcmp(res[k].user, a[i].user, a[i].user_len) == 0)
				break;
		which[i] = k;
		if (k < *nres) {
			/* Kafka keeps the first error a user got. */
			if (res[k].err == AUTHSCRAM_OK)
				why(&res[k], AUTHSCRAM_DUPLICATE, "A user "
				    "credential cannot be altered twice in the "
				    "same request");
			continue;
		}
		memset(&res[k], 0, sizeof(res[k]));
		res[k].user = a[i].user;
		res[k].user_len = a[i].user_len;
		(*nres)++;
		(void)alter_check(t, &a[i], &res[k]);
	}
	for (i = 0; i < n; i++) {
		const struct auth_user *u;

		if (res[which[i]].err != AUTHSCRAM_OK)
			continue;
		u = auth_find_in(t, a[i].user, a[i].user_len);
		memset(&nu, 0, sizeof(nu));
		if (u != NULL) {
			nu.scram_only = u->scram_only;
			memcpy(nu.scram, u->scram, sizeof(nu.scram));
		}
		alter_apply(&nu, &a[i]);
		if (auth_scram_format(&nu, fields + i * SCRAM_FIELD_MAX,
		    SCRAM_FIELD_MAX) == -1) {
			sodium_memzero(&nu, sizeof(nu));
			goto out;
		}
		sodium_memzero(&nu, sizeof(nu));
		changed = 1;
		if (u != NULL) {
			j = (size_t)(u - t->users);
			e[j].secret = fields + i * SCRAM_FIELD_MAX;
			e[j].secret_len = strlen(e[j].secret);
			continue;
		}
		/* A new user, with no permission: "name:{scram}...:\n". */
		k = a[i].user_len + strlen(fields + i * SCRAM_FIELD_MAX) + 3;
		if (alen + k + 1 > acap) {
			char *np;

			acap = (alen + k + 1) * 2;
			if ((np = realloc(app, acap)) == NULL)
				goto out;
			app = np;
		}
		alen += (size_t)snprintf(app + alen, acap - alen, "%.*s:%s:\n",
		    (int)a[i].user_len, a[i].user,
		    fields + i * SCRAM_FIELD_MAX);
	}
	rc = 0;
	if (changed)
		rc = auth_text_edit(text, len, t, e, app, alen, out, outlen);
out:
	if (rc == -1)
		for (k = 0; k < *nres; k++)
			if (res[k].err == AUTHSCRAM_OK)
				why(&res[k], AUTHSCRAM_INTERNAL, "out of memory");
	if (fields != NULL) {
		sodium_memzero(fields, (n + 1) * SCRAM_FIELD_MAX);
		free(fields);
	}
	if (app != NULL) {
		sodium_memzero(app, alen);
		free(app);
	}
	free(e);
	free(which);
	return rc;
}
