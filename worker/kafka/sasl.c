/*
 * SASL on the Kafka listener: SaslHandshake v0-1 and SaslAuthenticate v0-2
 * (v1 adds session_lifetime_ms, 0: the session does not expire; v2 is
 * flexible), through their descriptions (proto/kafka/kmsg_sasl.h), with
 * SCRAM-SHA-256, SCRAM-SHA-512 (worker/kafka/scram.h) and PLAIN, against
 * the users of the auth_file (common/authfile.h).  With an auth_file, worker/kafka/kafka.c
 * lets nothing but ApiVersions and these through before a success; then
 * the user's per-topic permissions apply to the data requests as they do
 * on the native protocol.
 *
 * After SaslHandshake v1 each SASL message comes in a SaslAuthenticate
 * request (librdkafka); after v0 the client sends the bare messages,
 * each framed by an i32 size, and gets the answers framed the same way
 * (kafka-python), so worker/kafka/kafka.c hands such frames to sasl_raw_row.  A
 * failure is answered (SASL_AUTHENTICATION_FAILED, or for v0 nothing),
 * logged once and closes the connection.
 *
 * PLAIN sends the secret itself, so it is offered only on a TLS
 * connection or from a loopback address.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/authfile.h"
#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_sasl.h"
#include "proto/kafka/ksasl.h"
#include "worker/access.h"
#include "worker/authlimit.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/kafka/kafka.h"
#include "worker/lograte.h"
#include "worker/kafka/scram.h"

enum sasl_mech { SASL_NONE = 0, SASL_PLAIN, SASL_SCRAM256, SASL_SCRAM512 };
enum sasl_step { STEP_FIRST = 0, STEP_FINAL, STEP_DONE };

/* A connection's SASL exchange (c->sasl), from SaslHandshake on. */
struct kafka_sasl {
	int			 mech;		/* enum sasl_mech */
	int			 raw;		/* after v0: bare messages */
	int			 step;		/* enum sasl_step */
	char			 user[KSASL_USER_MAX + 1];
	size_t			 user_len;
	struct scram_server	 scram;
};

/* One SASL request: its message in, the answer out (arena memory). */
struct sasl_rq {
	struct kstr	 mech;		/* SaslHandshake */
	struct kstr	 in;		/* SaslAuthenticate, or a bare message */
	int16_t		 err;
	const char	*msg;
	const uint8_t	*out;
	size_t		 outlen;
};

static const char *const sasl_names[] = { "", "PLAIN", "SCRAM-SHA-256",
	"SCRAM-SHA-512" };

static int	sasl_raw_decode(struct conn *, struct req *);
static void	sasl_raw_exec(struct worker *, struct conn *, struct req *);
static void	sasl_raw_emit(struct worker *, struct conn *, struct req *);

static const struct api_row sasl_raw_row = {
	-1, 0, 0, "SASL message", 0,
	sasl_raw_decode, sasl_raw_exec, NULL, sasl_raw_emit, NULL, ERRBODY_NONE,
	NULL
};

void
kafka_sasl_free(struct conn *c)
{
	if (c->sasl != NULL) {
		sodium_memzero(c->sasl, sizeof(*c->sasl));
		free(c->sasl);
		c->sasl = NULL;
	}
}

const struct api_row *
kafka_sasl_raw_row(const struct conn *c)
{
	return c->sasl != NULL && c->sasl->raw && c->sasl->step != STEP_DONE ?
	    &sasl_raw_row : NULL;
}

/* PLAIN is for connections nobody can read: TLS or loopback. */
static int
sasl_plain_allowed(const struct conn *c)
{
	return c->tls != NULL || strncmp(c->peer, "127.", 4) == 0 ||
	    strncmp(c->peer, "[::1]:", 6) == 0;
}

static struct sasl_rq *
sasl_rq(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (k->kst == NULL && (k->kst = conn_alloc(c, sizeof(struct sasl_rq)))
	    != NULL)
		memset(k->kst, 0, sizeof(struct sasl_rq));
	return k->kst;
}

/* ---- SaslHandshake ---- */

void
kafka_sasl_handshake_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_sasl_handshake_req *b = k->body;
	struct sasl_rq *q;
	char esc[LOG_ESC_SIZE(64)];
	int m;

	r->state = REQ_DONE;
	if ((q = sasl_rq(c, r)) == NULL) {
		c->dead = 1;
		r->noresp = 1;
		return;
	}
	q->mech = b->mechanism;
	if (!auth_enabled()) {
		q->err = KERR_UNSUPPORTED_SASL_MECHANISM;
		lograte_warnx(w, c->peer, LOGRATE_REFUSED, "Kafka "
		    "SaslHandshake, but there is no auth_file (no users to "
		    "authenticate)");
		return;
	}
	/* Logged in by a certificate: SASL may confirm it (access.h). */
	if ((c->auth.user != NULL && !c->auth.by_cert) || c->sasl != NULL) {
		q->err = KERR_ILLEGAL_SASL_STATE;
		lograte_warnx(w, c->peer, LOGRATE_REFUSED, "Kafka "
		    "SaslHandshake again, closing");
		c->eof = 1;
		return;
	}
	for (m = SASL_PLAIN; m <= SASL_SCRAM512; m++)
		if (kstr_eq(q->mech, sasl_names[m]))
			break;
	if (m > SASL_SCRAM512 || (m == SASL_PLAIN && !sasl_plain_allowed(c))) {
		q->err = KERR_UNSUPPORTED_SASL_MECHANISM;
		lograte_warnx(w, c->peer, LOGRATE_AUTH, "Kafka SASL "
		    "mechanism %s is not offered%s", log_escape(esc,
		    sizeof(esc), q->mech.p,
		    q->mech.len > 64 ? 64 : (size_t)q->mech.len),
		    m == SASL_PLAIN ? " here (PLAIN only over TLS or loopback)" :
		    "");
		return;
	}
	if ((c->sasl = calloc(1, sizeof(*c->sasl))) == NULL) {
		log_warn("%s: SASL", c->peer);
		c->dead = 1;
		r->noresp = 1;
		return;
	}
	c->sasl->mech = m;
	c->sasl->raw = k->h.api_version == 0;
}

void
kafka_sasl_handshake_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct sasl_rq *q = k->kst;
	static const char *const mechs[3] = { "SCRAM-SHA-256",
	    "SCRAM-SHA-512", "PLAIN" };
	struct km_sasl_handshake_resp s;
	struct kstr *m;
	int i, n = 0;

	if (auth_enabled())
		n = sasl_plain_allowed(c) ? 3 : 2;
	if ((m = conn_alloc(c, 3 * sizeof(*m))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < n; i++)
		m[i] = kstr_c(mechs[i]);
	kdesc_defaults(kmsg_sasl_handshake.km_resp, &s);
	s.error_code = q->err;
	s.mechanisms.n = n;
	s.mechanisms.v = m;
	kafka_emit_desc(c, r, &s);
}

/* ---- the exchange ---- */

static void
sasl_fail(struct conn *c, struct sasl_rq *q, const char *why)
{
	struct kafka_sasl *s = c->sasl;
	char name[LOG_ESC_SIZE(KSASL_USER_MAX)];

	lograte_warnx(c->w, c->peer, LOGRATE_AUTH, "Kafka SASL %s "
	    "authentication failed for user %s: %s, closing",
	    sasl_names[s->mech], s->user_len > 0 ?
	    log_escape(name, sizeof(name), s->user, s->user_len) : "(none)",
	    why);
	atomic_fetch_add_explicit(&c->w->me->auth_failures, 1,
	    memory_order_relaxed);
	q->err = KERR_SASL_AUTHENTICATION_FAILED;
	q->msg = "Authentication failed: invalid credentials";
	q->out = NULL;
	q->outlen = 0;
	s->step = STEP_DONE;
	c->eof = 1;	/* closed once the answer is out */
}

/*
 * The throttle (worker/authlimit.h) before a password or proof is
 * checked: 1 to check it now; 0 when r is parked (BLOCKED until
 * r->deadline, then executed again) or was failed unchecked.
 */
static int
sasl_throttle(struct conn *c, struct req *r, struct sasl_rq *q)
{
	switch (authlimit_check(c, r)) {
	case AUTHLIMIT_WAIT:
		return 0;
	case AUTHLIMIT_REFUSE:
		sasl_fail(c, q, "too many failures from this address, "
		    "refused unchecked");
		return 0;
	}
	return 1;
}

/* As sasl_fail, for a reason auth_session_again has logged already. */
static void
sasl_refuse(struct conn *c, struct sasl_rq *q)
{
	q->err = KERR_SASL_AUTHENTICATION_FAILED;
	q->msg = "Authentication failed: the TLS client certificate names "
	    "another user";
	q->out = NULL;
	q->outlen = 0;
	c->sasl->step = STEP_DONE;
	c->eof = 1;
}

/* The user name the client claims (looked up again at the proof). */
static void
sasl_set_user(struct kafka_sasl *s, const char *p, size_t len)
{
	if (len > KSASL_USER_MAX)
		len = KSASL_USER_MAX;
	memcpy(s->user, p, len);
	s->user[len] = '\0';
	s->user_len = len;
}

static void
sasl_plain(struct conn *c, struct req *r, struct sasl_rq *q)
{
	struct kafka_sasl *s = c->sasl;
	const struct auth_user *u;
	const char *user, *pass;
	size_t ul, pl;

	if (ksasl_plain_parse(q->in.p, (size_t)q->in.len, &user, &ul, &pass,
	    &pl) == -1) {
		sasl_fail(c, q, "malformed PLAIN message");
		return;
	}
	sasl_set_user(s, user, ul);
	if (!sasl_throttle(c, r, q))
		return;
	u = auth_user_find(user, ul);
	/* Unequal lengths already differ; equal ones compare in constant time. */
	if (u == NULL || u->scram_only || u->secret_len != pl ||
	    sodium_memcmp(u->secret, pass, pl) != 0) {
		sasl_fail(c, q, u == NULL ? "no such user" : u->scram_only ?
		    "the user has SCRAM credentials only" : "wrong password");
		return;
	}
	if (!auth_session_again(c, u, "Kafka SASL PLAIN")) {
		sasl_refuse(c, q);
		return;
	}
	s->step = STEP_DONE;
	authlimit_success(c);
	auth_session_login(c, u, "SASL PLAIN");
}

static void
sasl_scram(struct conn *c, struct req *r, struct sasl_rq *q)
{
	struct kafka_sasl *s = c->sasl;
	struct ksasl_scram_first f;
	struct ksasl_scram_final fin;
	const struct auth_user *u;
	const uint8_t *key, *pw;
	uint8_t salt[SCRAM_SALT_LEN];
	char snonce[2 * SCRAM_SNONCE_LEN + 1], *out;
	int mech = s->mech == SASL_SCRAM512 ? SCRAM_SHA512 : SCRAM_SHA256;
	int amech = mech == SCRAM_SHA512 ? AUTH_SCRAM_SHA512 : AUTH_SCRAM_SHA256;
	const struct auth_scram *sc;
	size_t keylen, pwlen;
	uint64_t derived;
	int rc;

	key = auth_unknown_user_key(&keylen);

	if (s->step == STEP_FIRST) {
		if (ksasl_scram_first_parse(q->in.p, (size_t)q->in.len,
		    &f) == -1) {
			sasl_fail(c, q, "malformed client-first message");
			return;
		}
		sasl_set_user(s, f.user, f.user_len);
		/*
		 * A stored credential (AlterUserScramCredentials) has its own
		 * salt and iterations; a password's and an unknown user's
		 * are derived, and the unknown one fails at the proof.
		 */
		u = auth_user_find(f.user, f.user_len);
		sc = u != NULL && u->scram[amech].set ? &u->scram[amech] : NULL;
		scram_salt(key, keylen, f.user, f.user_len, salt);
		scram_nonce(snonce);
		if (scram_server_first(&s->scram, mech, q->in.p,
		    (size_t)q->in.len, &f, snonce, sc != NULL ? sc->salt : salt,
		    sc != NULL ? sc->salt_len : sizeof(salt), sc != NULL ?
		    sc->iterations : SCRAM_ITERATIONS) == -1) {
			sasl_fail(c, q, "client-first message too long");
			return;
		}
		q->out = (const uint8_t *)s->scram.auth + s->scram.auth_len -
		    s->scram.first_len;
		q->outlen = s->scram.first_len;
		s->step = STEP_FINAL;
		return;
	}
	if (ksasl_scram_final_parse(q->in.p, (size_t)q->in.len, &fin) == -1) {
		sasl_fail(c, q, "malformed client-final message");
		return;
	}
	if (!sasl_throttle(c, r, q))
		return;
	if ((out = conn_alloc(c, 256)) == NULL) {
		sasl_fail(c, q, "out of memory");
		return;
	}
	/*
	 * A user the auth_file does not have costs the same derivation,
	 * against the broker's secret (scram.h): no answer and no delay
	 * tells whether a name exists.
	 */
	u = auth_user_find(s->user, s->user_len);
	/* SCRAM credentials only, none for this mechanism: no such user. */
	if (u != NULL && u->scram_only && !u->scram[amech].set)
		u = NULL;
	if (u != NULL && u->scram[amech].set) {
		sc = &u->scram[amech];
		rc = scram_server_final_keys(&s->scram, sc->stored_key,
		    sc->server_key, &fin, out, 256);
	} else {
		if (u != NULL) {
			pw = u->secret;
			pwlen = u->secret_len;
		} else {
			pw = key;
			pwlen = keylen;
		}
		scram_salt(key, keylen, s->user, s->user_len, salt);
		derived = scram_derivations();
		rc = scram_server_final(&s->scram, pw, pwlen, salt,
		    sizeof(salt), SCRAM_ITERATIONS, &fin, out, 256);
		atomic_fetch_add_explicit(&c->w->me->auth_derivations,
		    scram_derivations() - derived, memory_order_relaxed);
	}
	if (rc == -1 || u == NULL) {
		sasl_fail(c, q, u == NULL ? "no such user" :
		    "wrong password (or proof)");
		return;
	}
	if (!auth_session_again(c, u, mech == SCRAM_SHA512 ?
	    "Kafka SASL SCRAM-SHA-512" : "Kafka SASL SCRAM-SHA-256")) {
		sasl_refuse(c, q);
		return;
	}
	q->out = (const uint8_t *)out;
	q->outlen = strlen(out);
	s->step = STEP_DONE;
	authlimit_success(c);
	auth_session_login(c, u, mech == SCRAM_SHA512 ? "SASL SCRAM-SHA-512" :
	    "SASL SCRAM-SHA-256");
}

static void
sasl_step(struct conn *c, struct req *r, struct sasl_rq *q)
{
	if (c->sasl == NULL || c->sasl->step == STEP_DONE) {
		lograte_warnx(c->w, c->peer, LOGRATE_REFUSED, "Kafka "
		    "SaslAuthenticate %s, closing", c->sasl == NULL ?
		    "before SaslHandshake" :
		    "after the exchange ended");
		q->err = KERR_ILLEGAL_SASL_STATE;
		q->msg = "no SASL exchange in progress";
		c->eof = 1;
		return;
	}
	if (c->sasl->mech == SASL_PLAIN)
		sasl_plain(c, r, q);
	else
		sasl_scram(c, r, q);
}

/* ---- SaslAuthenticate ---- */

void
kafka_sasl_auth_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_sasl_auth_req *b = k->body;
	struct sasl_rq *q;

	if ((q = sasl_rq(c, r)) == NULL) {
		c->dead = 1;
		r->noresp = 1;
		r->state = REQ_DONE;
		return;
	}
	/* From the body each time: a parked request's bytes may move. */
	q->in = b->auth_bytes;
	if (q->in.len < 0)
		q->in.len = 0;
	sasl_step(c, r, q);
	if (r->state != REQ_BLOCKED)
		r->state = REQ_DONE;
}

void
kafka_sasl_auth_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct sasl_rq *q = k->kst;
	struct km_sasl_auth_resp s;

	kdesc_defaults(kmsg_sasl_authenticate.km_resp, &s);
	s.error_code = q->err;
	s.error_message = kstr_c(q->msg);
	s.auth_bytes.p = (const char *)q->out;
	s.auth_bytes.len = (int32_t)q->outlen;
	s.session_lifetime_ms = 0;	/* v1+: the session never expires */
	kafka_emit_desc(c, r, &s);
}

/* ---- bare messages, after SaslHandshake v0 ---- */

static int
sasl_raw_decode(struct conn *c, struct req *r)
{
	struct sasl_rq *q;

	if ((q = sasl_rq(c, r)) == NULL)
		return -1;
	q->in.p = (const char *)r->payload;
	q->in.len = (int32_t)r->payload_len;
	return 0;
}

static void
sasl_raw_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct sasl_rq *q = k->kst;

	sasl_step(c, r, q);
	if (r->state == REQ_BLOCKED)
		return;
	r->state = REQ_DONE;
	/* v0 has no error field: a failure is the closed connection. */
	if (q->err != KERR_NONE)
		r->noresp = 1;
}

static void
sasl_raw_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct sasl_rq *q = k->kst;

	wbuf_i32(&c->out, (int32_t)q->outlen);
	if (q->outlen > 0)
		wbuf_raw(&c->out, q->out, q->outlen);
	conn_out_commit(c);
}
