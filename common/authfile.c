/*
 * The auth_file: parsing it, and the process-wide table of users (see
 * common/authfile.h).  The master loads the file before forking and on
 * SIGHUP, and publishes its text in the shared region (shm/authpub.h);
 * workers take a newly published text and install it.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/authfile.h"
#include "common/authwrite.h"
#include "shm/authpub.h"

_Static_assert(AUTH_FILE_MAX == AUTHPUB_TEXT_MAX, "auth_file fits the shm copy");
_Static_assert(GROUP_NAME_MAX <= TOPIC_NAME_MAX, "a group prefix fits a grant");

static struct auth_table auth_tab;
static int auth_on;
/* The master's copy of the text it loaded last, to publish. */
static char *auth_text;
static size_t auth_text_len;
/* The published generation this process's table is from. */
static uint32_t auth_seen;
/* The key an unknown user's proof is checked against. */
static uint8_t auth_dummy_key[32];

static int
auth_err(char *err, size_t errlen, const char *name, int line,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int
auth_err(char *err, size_t errlen, const char *name, int line,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "name:line: message" into err; returns -1. */
static int
auth_err(char *err, size_t errlen, const char *name, int line,
    const char *fmt, ...)
{
	va_list ap;
	int n;

	if (errlen == 0)
		return -1;
	n = snprintf(err, errlen, "%s:%d: ", name, line);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

int
auth_name_char(int ch)
{
	return isalnum(ch) || ch == '.' || ch == '_' || ch == '-' || ch == '@';
}

static int
auth_topic_char(int ch)
{
	return isalnum(ch) || ch == '.' || ch == '_' || ch == '-';
}

void
auth_table_free(struct auth_table *t)
{
	size_t i;

	for (i = 0; i < t->nusers; i++) {
		if (t->users[i].secret != NULL) {
			sodium_memzero(t->users[i].secret, t->users[i].secret_len);
			free(t->users[i].secret);
		}
		free(t->users[i].grants);
	}
	free(t->users);
	t->users = NULL;
	t->nusers = 0;
}

/*
 * Parse "produce,consume=orders.,admin,group-read=app." into u's grants;
 * 0 or -1.
 */
static int
auth_parse_perms(const char *name, int line, const char *p, size_t len,
    struct auth_user *u, char *err, size_t errlen)
{
	static const struct { const char *word; unsigned bit; } perms[] = {
		{ "produce", AUTH_PRODUCE },
		{ "consume", AUTH_CONSUME },
		{ "admin", AUTH_ADMIN },
		{ "group-read", AUTH_GROUP_READ },
		{ "group-describe", AUTH_GROUP_DESCRIBE },
		{ "group-delete", AUTH_GROUP_DELETE },
	};
	struct auth_grant *g;
	const char *tok, *end = p + len, *comma, *eq, *wend, *what;
	size_t wlen, i, max;
	unsigned bit;

	if (len > 0 && p[len - 1] == ',')
		return auth_err(err, errlen, name, line,
		    "user %s: empty permission after ','", u->name);
	for (tok = p; tok < end; tok = comma + 1) {
		if ((comma = memchr(tok, ',', (size_t)(end - tok))) == NULL)
			comma = end;
		eq = memchr(tok, '=', (size_t)(comma - tok));
		wend = eq != NULL ? eq : comma;
		wlen = (size_t)(wend - tok);
		bit = 0;
		for (i = 0; i < sizeof(perms) / sizeof(perms[0]); i++)
			if (strlen(perms[i].word) == wlen &&
			    memcmp(perms[i].word, tok, wlen) == 0)
				bit = perms[i].bit;
		if (bit == 0)
			return auth_err(err, errlen, name, line,
			    "user %s: unknown permission (expected produce, "
			    "consume or admin, each optionally =topic-prefix, "
			    "or group-read, group-describe or group-delete, "
			    "each optionally =group-prefix)", u->name);
		g = reallocarray(u->grants, u->ngrants + 1, sizeof(*g));
		if (g == NULL)
			return auth_err(err, errlen, name, line, "out of memory");
		u->grants = g;
		g = &u->grants[u->ngrants++];
		memset(g, 0, sizeof(*g));
		g->perm = bit;
		if (eq == NULL) {
			if (comma == end)
				break;
			continue;
		}
		what = (bit & AUTH_GROUP_PERMS) ? "group" : "topic";
		max = (bit & AUTH_GROUP_PERMS) ? GROUP_NAME_MAX : TOPIC_NAME_MAX;
		/* `consume==orders`: the topic orders only (a Kafka LITERAL ACL). */
		if (eq + 1 < comma && eq[1] == '=') {
			g->exact = 1;
			eq++;
		}
		g->prefix_len = (size_t)(comma - eq - 1);
		if (g->prefix_len == 0 || g->prefix_len > max)
			return auth_err(err, errlen, name, line,
			    "user %s: a %s prefix must be 1 to %zu characters",
			    u->name, what, max);
		for (i = 0; i < g->prefix_len; i++)
			if (!auth_topic_char((unsigned char)eq[1 + i]))
				return auth_err(err, errlen, name, line,
				    "user %s: a %s prefix may only hold "
				    "A-Z a-z 0-9 . _ -", u->name, what);
		memcpy(g->prefix, eq + 1, g->prefix_len);
		if (comma == end)
			break;
	}
	return 0;
}

size_t
auth_scram_keylen(int mech)
{
	return mech == AUTH_SCRAM_SHA512 ? 64 : 32;
}

/* base64 p[0..len) into out (exactly want bytes, or 1..want with *got). */
static int
b64_field(const char *p, size_t len, uint8_t *out, size_t max, size_t *got)
{
	if (len == 0 || sodium_base642bin(out, max, p, len, NULL, got, NULL,
	    sodium_base64_VARIANT_ORIGINAL) != 0)
		return -1;
	return 0;
}

/*
 * The credentials after `{scram}`: "sha-256$I$SALT$STORED$SERVER ..." into
 * u (each mechanism at most once; none at all: a user who cannot log in
 * but by a TLS certificate); 0 or -1.
 */
static int
auth_scram_parse(struct auth_user *u, const char *p, size_t len)
{
	const char *end = p + len, *tok, *sp, *f[5], *fe[5];
	struct auth_scram *sc;
	size_t n, keylen;
	long it;
	char num[12], *ep;
	int i, mech;

	for (tok = p; tok < end; tok = sp + 1) {
		if ((sp = memchr(tok, ' ', (size_t)(end - tok))) == NULL)
			sp = end;
		f[0] = tok;
		for (i = 0; i < 5; i++) {
			fe[i] = memchr(f[i], '$', (size_t)(sp - f[i]));
			if (fe[i] == NULL)
				fe[i] = sp;
			if (i < 4) {
				if (fe[i] == sp)
					return -1;
				f[i + 1] = fe[i] + 1;
			}
		}
		if (fe[4] != sp)
			return -1;
		if (fe[0] - f[0] == 7 && memcmp(f[0], "sha-256", 7) == 0)
			mech = AUTH_SCRAM_SHA256;
		else if (fe[0] - f[0] == 7 && memcmp(f[0], "sha-512", 7) == 0)
			mech = AUTH_SCRAM_SHA512;
		else
			return -1;
		sc = &u->scram[mech];
		if (sc->set)
			return -1;
		n = (size_t)(fe[1] - f[1]);
		if (n == 0 || n >= sizeof(num))
			return -1;
		memcpy(num, f[1], n);
		num[n] = '\0';
		it = strtol(num, &ep, 10);
		if (*ep != '\0' || it < AUTH_SCRAM_ITER_MIN ||
		    it > AUTH_SCRAM_ITER_MAX)
			return -1;
		sc->iterations = (int32_t)it;
		keylen = auth_scram_keylen(mech);
		if (b64_field(f[2], (size_t)(fe[2] - f[2]), sc->salt,
		    sizeof(sc->salt), &sc->salt_len) == -1 ||
		    b64_field(f[3], (size_t)(fe[3] - f[3]), sc->stored_key,
		    sizeof(sc->stored_key), &n) == -1 || n != keylen ||
		    b64_field(f[4], (size_t)(fe[4] - f[4]), sc->server_key,
		    sizeof(sc->server_key), &n) == -1 || n != keylen)
			return -1;
		sc->set = 1;
		if (sp == end)
			break;
	}
	return 0;
}

void
auth_scram_keys(int mech, const uint8_t *salted, uint8_t *stored,
    uint8_t *server)
{
	crypto_auth_hmacsha512_state h5;
	crypto_auth_hmacsha256_state h2;
	uint8_t ckey[AUTH_SCRAM_KEY_MAX];

	if (mech == AUTH_SCRAM_SHA512) {
		crypto_auth_hmacsha512_init(&h5, salted, 64);
		crypto_auth_hmacsha512_update(&h5, (const uint8_t *)"Client Key",
		    10);
		crypto_auth_hmacsha512_final(&h5, ckey);
		crypto_hash_sha512(stored, ckey, 64);
		crypto_auth_hmacsha512_init(&h5, salted, 64);
		crypto_auth_hmacsha512_update(&h5, (const uint8_t *)"Server Key",
		    10);
		crypto_auth_hmacsha512_final(&h5, server);
		sodium_memzero(&h5, sizeof(h5));
	} else {
		crypto_auth_hmacsha256_init(&h2, salted, 32);
		crypto_auth_hmacsha256_update(&h2, (const uint8_t *)"Client Key",
		    10);
		crypto_auth_hmacsha256_final(&h2, ckey);
		crypto_hash_sha256(stored, ckey, 32);
		crypto_auth_hmacsha256_init(&h2, salted, 32);
		crypto_auth_hmacsha256_update(&h2, (const uint8_t *)"Server Key",
		    10);
		crypto_auth_hmacsha256_final(&h2, server);
		sodium_memzero(&h2, sizeof(h2));
	}
	sodium_memzero(ckey, sizeof(ckey));
}

int
auth_scram_format(const struct auth_user *u, char *buf, size_t len)
{
	char salt[sodium_base64_ENCODED_LEN(AUTH_SCRAM_SALT_MAX,
	    sodium_base64_VARIANT_ORIGINAL)];
	char sk[sodium_base64_ENCODED_LEN(AUTH_SCRAM_KEY_MAX,
	    sodium_base64_VARIANT_ORIGINAL)], vk[sizeof(sk)];
	const struct auth_scram *sc;
	size_t n, keylen;
	int mech, w, first = 1;

	if ((n = (size_t)snprintf(buf, len, AUTH_SCRAM_PREFIX)) >= len)
		return -1;
	for (mech = 0; mech < AUTH_SCRAM_MECHS; mech++) {
		sc = &u->scram[mech];
		if (!sc->set)
			continue;
		keylen = auth_scram_keylen(mech);
		sodium_bin2base64(salt, sizeof(salt), sc->salt, sc->salt_len,
		    sodium_base64_VARIANT_ORIGINAL);
		sodium_bin2base64(sk, sizeof(sk), sc->stored_key, keylen,
		    sodium_base64_VARIANT_ORIGINAL);
		sodium_bin2base64(vk, sizeof(vk), sc->server_key, keylen,
		    sodium_base64_VARIANT_ORIGINAL);
		w = snprintf(buf + n, len - n, "%ssha-%s$%d$%s$%s$%s",
		    first ? "" : " ", mech == AUTH_SCRAM_SHA512 ? "512" : "256",
		    (int)sc->iterations, salt, sk, vk);
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
		first = 0;
	}
	return 0;
}

/* One `user:secret:permissions` line (without its newline); 0 or -1. */
static int
auth_parse_line(const char *name, int line, const char *s, size_t len,
    struct auth_table *t, char *err, size_t errlen)
{
	struct auth_user *u, *nu;
	const char *c1, *c2;
	size_t ulen, slen, i;

	c1 = memchr(s, ':', len);
	c2 = NULL;
	for (i = len; i > 0; i--)
		if (s[i - 1] == ':') {
			c2 = s + i - 1;
			break;
		}
	if (c1 == NULL || c2 == c1)
		return auth_err(err, errlen, name, line,
		    "expected user:secret:permissions");
	ulen = (size_t)(c1 - s);
	slen = (size_t)(c2 - c1 - 1);
	if (ulen == 0 || ulen > AUTH_USER_MAX)
		return auth_err(err, errlen, name, line,
		    "a user name must be 1 to %d characters", AUTH_USER_MAX);
	for (i = 0; i < ulen; i++)
		if (!auth_name_char((unsigned char)s[i]))
			return auth_err(err, errlen, name, line,
			    "a user name may only hold A-Z a-z 0-9 . _ - @");
	for (i = 0; i < t->nusers; i++)
		if (t->users[i].name_len == ulen &&
		    memcmp(t->users[i].name, s, ulen) == 0)
			return auth_err(err, errlen, name, line,
			    "user %.*s is listed twice", (int)ulen, s);
	if (slen == 0 || slen > AUTH_SECRET_MAX)
		return auth_err(err, errlen, name, line,
		    "user %.*s: the secret must be 1 to %d bytes", (int)ulen, s,
		    AUTH_SECRET_MAX);
	nu = reallocarray(t->users, t->nusers + 1, sizeof(*nu));
	if (nu == NULL)
		return auth_err(err, errlen, name, line, "out of memory");
	t->users = nu;
	u = &t->users[t->nusers++];
	memset(u, 0, sizeof(*u));
	memcpy(u->name, s, ulen);
	u->name_len = ulen;
	if (slen >= sizeof(AUTH_SCRAM_PREFIX) - 1 && memcmp(c1 + 1,
	    AUTH_SCRAM_PREFIX, sizeof(AUTH_SCRAM_PREFIX) - 1) == 0) {
		if (auth_scram_parse(u, c1 + sizeof(AUTH_SCRAM_PREFIX),
		    slen - (sizeof(AUTH_SCRAM_PREFIX) - 1)) == -1)
			return auth_err(err, errlen, name, line,
			    "user %.*s: expected " AUTH_SCRAM_PREFIX " and "
			    "sha-256$ITERATIONS$SALT$STOREDKEY$SERVERKEY or "
			    "sha-512$..., space-separated, base64, iterations "
			    "%d to %d", (int)ulen, s, AUTH_SCRAM_ITER_MIN,
			    AUTH_SCRAM_ITER_MAX);
		u->scram_only = 1;
	} else {
		if ((u->secret = malloc(slen)) == NULL)
			return auth_err(err, errlen, name, line,
			    "out of memory");
		memcpy(u->secret, c1 + 1, slen);
		u->secret_len = slen;
	}
	return auth_parse_perms(name, line, c2 + 1, (size_t)(s + len - c2 - 1),
	    u, err, errlen);
}

int
auth_parse(const char *name, const char *text, size_t len,
    struct auth_table *t, char *err, size_t errlen)
{
	const char *s = text, *end = text + len, *nl, *b, *e;
	int line = 0;

	memset(t, 0, sizeof(*t));
	if (errlen > 0)
		err[0] = '\0';
	while (s < end) {
		line++;
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		/* Leading and trailing blanks (and a CR) are not part of a field. */
		for (b = s; b < nl && (*b == ' ' || *b == '\t'); b++)
			;
		for (e = nl; e > b && (e[-1] == ' ' || e[-1] == '\t' ||
		    e[-1] == '\r'); e--)
			;
		if (memchr(b, '\0', (size_t)(e - b)) != NULL) {
			auth_err(err, errlen, name, line, "unexpected NUL byte");
			goto fail;
		}
		if (e > b && *b != '#' &&
		    auth_parse_line(name, line, b, (size_t)(e - b), t, err,
		    errlen) == -1)
			goto fail;
		s = nl + 1;
	}
	return 0;
fail:
	auth_table_free(t);
	errno = EINVAL;
	return -1;
}

int
auth_user_may(const struct auth_user *u, unsigned perm, const char *topic,
    size_t len)
{
	const struct auth_grant *g;
	size_t i;

	for (i = 0; i < u->ngrants; i++) {
		g = &u->grants[i];
		if ((g->perm & perm) != 0 && g->prefix_len <= len &&
		    (!g->exact || g->prefix_len == len) &&
		    memcmp(g->prefix, topic, g->prefix_len) == 0)
			return 1;
	}
	return 0;
}

int
auth_user_may_group(const struct auth_user *u, unsigned perm,
    const char *group, size_t len)
{
	/* Read and delete imply describe (Kafka's rule). */
	if (perm & AUTH_GROUP_DESCRIBE)
		perm = AUTH_GROUP_PERMS;
	return auth_user_may(u, perm & AUTH_GROUP_PERMS, group, len);
}

/*
 * Does t give consume to some user but no group permission to anyone?
 * Such a file was written when any consumer could use every group.
 */
static int
auth_table_groupless(const struct auth_table *t)
{
	size_t i;
	int consumers = 0;

	for (i = 0; i < t->nusers; i++) {
		if (auth_user_has(&t->users[i], AUTH_GROUP_PERMS, 0))
			return 0;
		if (auth_user_has(&t->users[i], AUTH_CONSUME, 0))
			consumers = 1;
	}
	return consumers;
}

/* Has u perm (one AUTH_* bit) on some topics, or (all) on every topic? */
int
auth_user_has(const struct auth_user *u, unsigned perm, int all)
{
	size_t i;

	for (i = 0; i < u->ngrants; i++)
		if ((u->grants[i].perm & perm) != 0 &&
		    (!all || u->grants[i].prefix_len == 0))
			return 1;
	return 0;
}

int
auth_load(const char *path, char *err, size_t errlen, char *warn,
    size_t warnlen)
{
	struct auth_table t;
	char *buf;
	size_t got, n;
	unsigned mode;

	if (warnlen > 0)
		warn[0] = '\0';
	if (sodium_init() < 0)
		return auth_err(err, errlen, path, 0, "libsodium failed to start");
	if (authfile_read(path, &buf, &got, &mode) == -1) {
		if (errno == EFBIG)
			return auth_err(err, errlen, path, 0, "expected a "
			    "regular file of at most %u bytes", AUTH_FILE_MAX);
		return auth_err(err, errlen, path, 0, "%s", strerror(errno));
	}
	if (auth_parse(path, buf, got, &t, err, errlen) == -1) {
		authfile_text_free(buf, got);
		return -1;
	}
	if ((mode & 077) != 0 && warnlen > 0)
		snprintf(warn, warnlen, "%s: readable by others than its owner "
		    "(mode %03o); it holds secrets, chmod 600 it", path,
		    mode & 0777);
	if (auth_table_groupless(&t) && warnlen > 0) {
		n = strlen(warn);
		snprintf(warn + n, warnlen - n, "%s%s: no user has a "
		    "group permission, so no consumer group may be used (add "
		    "group-read=prefix, see flume.conf(5))", n > 0 ? "; " : "",
		    path);
	}
	auth_unload();
	auth_tab = t;
	auth_text = buf;
	auth_text_len = got;
	randombytes_buf(auth_dummy_key, sizeof(auth_dummy_key));
	auth_on = 1;
	return 0;
}

void
auth_unload(void)
{
	auth_table_free(&auth_tab);
	if (auth_text != NULL) {
		sodium_memzero(auth_text, auth_text_len);
		free(auth_text);
	}
	auth_text = NULL;
	auth_text_len = 0;
	auth_on = 0;
}

void
auth_publish(struct shm *s)
{
	if (!auth_on || auth_text == NULL)
		return;
	/* Children forked from now on have this table: nothing to apply. */
	auth_seen = authpub_publish(s, auth_text, auth_text_len);
}

int
auth_reload(struct shm *s, const char *path, char *err, size_t errlen,
    char *warn, size_t warnlen)
{
	if (!auth_on) {
		if (warnlen > 0)
			warn[0] = '\0';
		return 0;
	}
	if (auth_load(path, err, errlen, warn, warnlen) == -1)
		return -1;
	auth_publish(s);
	return 1;
}

/* By name, in table t. */
const struct auth_user *
auth_find_in(const struct auth_table *t, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < t->nusers; i++)
		if (t->users[i].name_len == len &&
		    memcmp(t->users[i].name, name, len) == 0)
			return &t->users[i];
	return NULL;
}

int
auth_enabled(void)
{
	return auth_on;
}

const struct auth_table *
auth_table_current(void)
{
	return &auth_tab;
}

const uint8_t *
auth_unknown_user_key(size_t *len)
{
	*len = sizeof(auth_dummy_key);
	return auth_dummy_key;
}

int
auth_table_take(struct shm *s, struct auth_table *t, uint32_t *gen,
    char *err, size_t errlen)
{
	uint8_t *buf;
	size_t len;
	int rc;

	if (!auth_on || authpub_generation(s) == auth_seen)
		return 0;
	if ((buf = malloc(AUTHPUB_TEXT_MAX)) == NULL)
		return 0;	/* try again at the next turn */
	if (authpub_read(s, buf, &len, gen) == 0) {
		free(buf);
		return 0;
	}
	memset(t, 0, sizeof(*t));
	rc = auth_parse("auth_file", (const char *)buf, len, t, err, errlen);
	sodium_memzero(buf, len);
	free(buf);
	/* The inherited copy of the master's text is not needed here. */
	if (auth_text != NULL) {
		sodium_memzero(auth_text, auth_text_len);
		free(auth_text);
		auth_text = NULL;
		auth_text_len = 0;
	}
	if (rc == -1) {
		/* The master parsed it; this cannot happen but must not crash. */
		auth_table_free(t);
		auth_seen = *gen;
		return -1;
	}
	return 1;
}

void
auth_table_install(struct auth_table *t, uint32_t gen)
{
	auth_table_free(&auth_tab);
	auth_tab = *t;
	memset(t, 0, sizeof(*t));
	auth_seen = gen;
}

uint32_t
auth_table_generation(void)
{
	return auth_seen;
}
