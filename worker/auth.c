/*
 * Authentication and access control (see auth.h for the model).
 *
 * The table is process-wide: the master loads it before forking and the
 * workers only read it, so a connection's identity is a plain pointer
 * into it.  A respawned worker is forked from the master and inherits
 * the same table.  On SIGHUP the master loads the file again and, once
 * it parsed, publishes its text in shared memory (shm/authpub.h); each
 * worker parses that text into a new table, moves every connection's
 * identity over to it by user name, closes the connections of users
 * that are gone, and only then frees the old table.
 *
 * An AUTH_BEGIN for an unknown user is answered exactly like one for a
 * known user (a fresh nonce), and its AUTH_PROVE is checked against a
 * random key that nobody knows, so neither the answers nor their timing
 * tell a client which user names exist.  Each nonce is good for one
 * AUTH_PROVE; a failed one is answered and the connection closed, so
 * guessing costs a connection per try.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/log.h"
#include "shm/authpub.h"
#include "worker/auth.h"
#include "worker/conn.h"

_Static_assert(AUTH_FILE_MAX == AUTHPUB_TEXT_MAX, "auth_file fits the shm copy");

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

static int
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

/* Parse "produce,consume=orders.,admin" into u's grants; 0 or -1. */
static int
auth_parse_perms(const char *name, int line, const char *p, size_t len,
    struct auth_user *u, char *err, size_t errlen)
{
	static const struct { const char *word; unsigned bit; } perms[] = {
		{ "produce", AUTH_PRODUCE },
		{ "consume", AUTH_CONSUME },
		{ "admin", AUTH_ADMIN },
	};
	struct auth_grant *g;
	const char *tok, *end = p + len, *comma, *eq, *wend;
	size_t wlen, i;
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
			    "consume or admin, each optionally =topic-prefix)",
			    u->name);
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
		g->prefix_len = (size_t)(comma - eq - 1);
		if (g->prefix_len == 0 || g->prefix_len > TOPIC_NAME_MAX)
			return auth_err(err, errlen, name, line,
			    "user %s: a topic prefix must be 1 to %d characters",
			    u->name, TOPIC_NAME_MAX);
		for (i = 0; i < g->prefix_len; i++)
			if (!auth_topic_char((unsigned char)eq[1 + i]))
				return auth_err(err, errlen, name, line,
				    "user %s: a topic prefix may only hold "
				    "A-Z a-z 0-9 . _ -", u->name);
		memcpy(g->prefix, eq + 1, g->prefix_len);
		if (comma == end)
			break;
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
	if ((u->secret = malloc(slen)) == NULL)
		return auth_err(err, errlen, name, line, "out of memory");
	memcpy(u->secret, c1 + 1, slen);
	u->secret_len = slen;
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
		    memcmp(g->prefix, topic, g->prefix_len) == 0)
			return 1;
	}
	return 0;
}

/* Has u perm (one AUTH_* bit) on some topics, or (all) on every topic? */
static int
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
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;
	int fd, rc;

	if (warnlen > 0)
		warn[0] = '\0';
	if (sodium_init() < 0)
		return auth_err(err, errlen, path, 0, "libsodium failed to start");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return auth_err(err, errlen, path, 0, "%s", strerror(errno));
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > (off_t)AUTH_FILE_MAX) {
		close(fd);
		return auth_err(err, errlen, path, 0,
		    "expected a regular file of at most %u bytes", AUTH_FILE_MAX);
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return auth_err(err, errlen, path, 0, "out of memory");
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	rc = auth_parse(path, buf, got, &t, err, errlen);
	if (rc == -1) {
		sodium_memzero(buf, (size_t)st.st_size + 1);
		free(buf);
		return -1;
	}
	if ((st.st_mode & 077) != 0 && warnlen > 0)
		snprintf(warn, warnlen, "%s: readable by others than its owner "
		    "(mode %03o); it holds secrets, chmod 600 it", path,
		    (unsigned)(st.st_mode & 0777));
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
static const struct auth_user *
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
auth_refresh(struct worker *w)
{
	struct auth_table t;
	struct conn *c, *next;
	const struct auth_user *u;
	char err[256];
	uint8_t *buf;
	uint32_t gen;
	size_t len;
	int closed = 0;

	if (!auth_on || authpub_generation(w->shm) == auth_seen)
		return 0;
	if ((buf = malloc(AUTHPUB_TEXT_MAX)) == NULL)
		return 0;	/* try again at the next turn */
	if (authpub_read(w->shm, buf, &len, &gen) == 0) {
		free(buf);
		return 0;
	}
	memset(&t, 0, sizeof(t));
	if (auth_parse("auth_file", (const char *)buf, len, &t, err,
	    sizeof(err)) == -1) {
		/* The master parsed it; this cannot happen but must not crash. */
		log_warnx("published %s; keeping the current users", err);
		auth_table_free(&t);
		auth_seen = gen;
		sodium_memzero(buf, len);
		free(buf);
		return 0;
	}
	sodium_memzero(buf, len);
	free(buf);
	/* The inherited copy of the master's text is not needed here. */
	if (auth_text != NULL) {
		sodium_memzero(auth_text, auth_text_len);
		free(auth_text);
		auth_text = NULL;
		auth_text_len = 0;
	}
	for (c = TAILQ_FIRST(&w->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->auth.pending != NULL)
			c->auth.pending = auth_find_in(&t, c->auth.pending->name,
			    c->auth.pending->name_len);
		if (c->auth.user == NULL)
			continue;
		u = auth_find_in(&t, c->auth.user->name, c->auth.user->name_len);
		if (u == NULL) {
			log_warnx("%s: user %s is no longer in the auth_file, "
			    "closing", c->peer, c->auth.user->name);
			conn_close(c);
			closed++;
			continue;
		}
		c->auth.user = u;
	}
	auth_table_free(&auth_tab);
	auth_tab = t;
	auth_seen = gen;
	log_info("applied the reloaded auth_file (generation %u, %zu users, "
	    "%d connection%s closed)", gen, t.nusers, closed,
	    closed == 1 ? "" : "s");
	return 1;
}

const struct auth_user *
auth_user_find(const char *name, size_t len)
{
	return auth_on ? auth_find_in(&auth_tab, name, len) : NULL;
}

void
auth_session_login(struct conn *c, const struct auth_user *u, const char *how)
{
	c->auth.user = u;
	c->rd.max_size = c->w->conf->max_request_bytes;
	log_info("%s: authenticated as user %s (%s)", c->peer, u->name, how);
}

int
auth_enabled(void)
{
	return auth_on;
}

/* The name a connection goes by in the log. */
static const char *
auth_who(const struct conn *c)
{
	if (c->auth.user != NULL)
		return c->auth.user->name;
	return "(unauthenticated)";
}

static void
auth_log_denial(struct conn *c, uint16_t api, const char *topic, size_t len)
{
	if (c->auth.denials++ >= AUTH_LOG_DENIALS) {
		if (c->auth.denials == AUTH_LOG_DENIALS + 1)
			log_warnx("%s: user %s: further denials on this "
			    "connection are not logged", c->peer, auth_who(c));
		return;
	}
	if (topic != NULL) {
		if (len > TOPIC_NAME_MAX)
			len = TOPIC_NAME_MAX;
		log_warnx("%s: user %s: access denied: %s on topic %.*s",
		    c->peer, auth_who(c), api_name(api), (int)len, topic);
	} else
		log_warnx("%s: user %s: access denied: %s", c->peer,
		    auth_who(c), api_name(api));
}

int16_t
auth_gate(struct conn *c, uint16_t api)
{
	const struct auth_user *u = c->auth.user;
	int ok;

	if (!auth_on || api == API_HANDSHAKE || api == API_AUTH_BEGIN ||
	    api == API_AUTH_PROVE)
		return ERR_NONE;
	if (u == NULL) {
		log_debug("%s: %s before authentication", c->peer, api_name(api));
		return ERR_AUTH_REQUIRED;
	}
	switch (api) {
	case API_PRODUCE:
	case API_INIT_PRODUCER:
		ok = auth_user_has(u, AUTH_PRODUCE, 0);
		break;
	case API_FETCH:
	case API_JOIN_GROUP:
	case API_HEARTBEAT:
	case API_LEAVE_GROUP:
	case API_OFFSET_COMMIT:
	case API_OFFSET_FETCH:
	case API_LIST_GROUPS:
	case API_DESCRIBE_GROUP:
		ok = auth_user_has(u, AUTH_CONSUME, 0);
		break;
	case API_CREATE_TOPIC:
	case API_GROUP_RESET:		/* and per topic, by the handler */
		ok = auth_user_has(u, AUTH_ADMIN, 0);
		break;
	case API_WORKERS:
	case API_STATS:
		/* Broker-wide: only an admin of every topic. */
		ok = auth_user_has(u, AUTH_ADMIN, 1);
		break;
	default:
		/* METADATA, LIST_OFFSETS: checked per topic; unknown apis fail later. */
		ok = 1;
		break;
	}
	if (ok)
		return ERR_NONE;
	auth_log_denial(c, api, NULL, 0);
	return ERR_ACCESS_DENIED;
}

int16_t
auth_topic(struct conn *c, unsigned perms, const char *topic, size_t len)
{
	const struct auth_user *u = c->auth.user;
	uint16_t api;

	if (!auth_on)
		return ERR_NONE;
	if (u != NULL && auth_user_may(u, perms, topic, len))
		return ERR_NONE;
	api = (perms & AUTH_ADMIN) ? API_CREATE_TOPIC :
	    (perms & AUTH_PRODUCE) && !(perms & AUTH_CONSUME) ? API_PRODUCE :
	    (perms & AUTH_CONSUME) && !(perms & AUTH_PRODUCE) ? API_FETCH :
	    API_METADATA;
	auth_log_denial(c, api, topic, len);
	return ERR_ACCESS_DENIED;
}

int
auth_may(const struct conn *c, unsigned perms, const char *topic, size_t len)
{
	if (!auth_on)
		return 1;
	return c->auth.user != NULL && auth_user_may(c->auth.user, perms, topic,
	    len);
}

void
auth_conn_init(struct conn *c)
{
	if (auth_on && c->rd.max_size > AUTH_FRAME_MAX)
		c->rd.max_size = AUTH_FRAME_MAX;
}

static const struct auth_user *
auth_find(const char *name, size_t len)
{
	return auth_find_in(&auth_tab, name, len);
}

static void
auth_done(struct req *r, int16_t error)
{
	r->error = error;
	r->state = REQ_DONE;
}

static void
auth_exec_begin(struct conn *c, struct req *r)
{
	struct auth_begin_req q;
	struct auth_begin_resp *s;
	struct auth_session *as = &c->auth;
	size_t i, n;

	if (msg_decode_auth_begin_req(r->payload, r->payload_len, &q) == -1 ||
	    as->user != NULL) {
		auth_done(r, ERR_INVALID_REQUEST);
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		auth_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	as->pending = q.user_len <= AUTH_USER_MAX ? auth_find(q.user, q.user_len) :
	    NULL;
	/* A printable copy of the claimed name for the log. */
	n = q.user_len < AUTH_USER_MAX ? q.user_len : AUTH_USER_MAX;
	for (i = 0; i < n; i++)
		as->claimed[i] = auth_name_char((unsigned char)q.user[i]) ?
		    q.user[i] : '?';
	as->claimed[n] = '\0';
	randombytes_buf(as->nonce, sizeof(as->nonce));
	as->nonce_set = 1;
	s->error = ERR_NONE;
	memcpy(s->nonce, as->nonce, sizeof(s->nonce));
	r->st = s;
	auth_done(r, ERR_NONE);
}

static void
auth_exec_prove(struct conn *c, struct req *r)
{
	crypto_auth_hmacsha256_state hs;
	struct auth_prove_req q;
	struct auth_prove_resp *s;
	struct auth_session *as = &c->auth;
	const struct auth_user *u = as->pending;
	uint8_t want[crypto_auth_hmacsha256_BYTES];
	int ok;

	if (msg_decode_auth_prove_req(r->payload, r->payload_len, &q) == -1 ||
	    as->user != NULL) {
		auth_done(r, ERR_INVALID_REQUEST);
		return;
	}
	if (!as->nonce_set) {
		log_warnx("%s: AUTH_PROVE without AUTH_BEGIN, closing", c->peer);
		auth_done(r, ERR_AUTH_FAILED);
		c->eof = 1;
		return;
	}
	if (u != NULL)
		crypto_auth_hmacsha256_init(&hs, u->secret, u->secret_len);
	else
		crypto_auth_hmacsha256_init(&hs, auth_dummy_key,
		    sizeof(auth_dummy_key));
	crypto_auth_hmacsha256_update(&hs, as->nonce, sizeof(as->nonce));
	crypto_auth_hmacsha256_final(&hs, want);
	ok = sodium_memcmp(want, q.mac, sizeof(want)) == 0 && u != NULL;
	sodium_memzero(want, sizeof(want));
	sodium_memzero(&hs, sizeof(hs));
	/* One proof per nonce. */
	sodium_memzero(as->nonce, sizeof(as->nonce));
	as->nonce_set = 0;
	as->pending = NULL;
	if (!ok) {
		log_warnx("%s: authentication failed for user %s%s, closing",
		    c->peer, as->claimed, u == NULL ? " (no such user)" : "");
		auth_done(r, ERR_AUTH_FAILED);
		c->eof = 1;
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		auth_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	as->user = u;
	c->rd.max_size = c->w->conf->max_request_bytes;
	log_info("%s: authenticated as user %s", c->peer, u->name);
	s->error = ERR_NONE;
	r->st = s;
	auth_done(r, ERR_NONE);
}

void
auth_exec(struct worker *w, struct conn *c, struct req *r)
{
	(void)w;
	if (!auth_on) {
		auth_done(r, ERR_UNSUPPORTED_API);
		return;
	}
	if (r->api == API_AUTH_BEGIN)
		auth_exec_begin(c, r);
	else
		auth_exec_prove(c, r);
}

void
auth_emit(struct conn *c, struct req *r)
{
	size_t start;

	start = frame_begin_response(&c->out, r->id);
	if (r->api == API_AUTH_BEGIN)
		msg_encode_auth_begin_resp(&c->out, r->st);
	else
		msg_encode_auth_prove_resp(&c->out, r->st);
	frame_end(&c->out, start);
	conn_out_commit(c);
}
