/*
 * The native authentication handlers, AUTH_BEGIN and AUTH_PROVE (see
 * worker/native/auth.h): a random nonce, then HMAC-SHA256(secret, nonce)
 * compared in constant time.  An unknown user's proof is checked against
 * a random key, so a failure takes the same time whether the user exists.
 */
#include <stdatomic.h>
#include <string.h>

#include <sodium.h>

#include "common/authfile.h"
#include "common/log.h"
#include "proto/frame.h"
#include "worker/access.h"
#include "worker/native/auth.h"
#include "worker/authlimit.h"
#include "worker/lograte.h"
#include "worker/conn.h"
#include "worker/worker.h"

static const struct auth_user *
auth_find(const char *name, size_t len)
{
	return auth_find_in(auth_table_current(), name, len);
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

	/* Logged in by a certificate: AUTH may confirm it (access.h). */
	if (msg_decode_auth_begin_req(r->payload, r->payload_len, &q) == -1 ||
	    (as->user != NULL && !as->by_cert)) {
		auth_done(r, ERR_INVALID_REQUEST);
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		auth_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	as->pending = q.user_len <= AUTH_USER_MAX ? auth_find(q.user, q.user_len) :
	    NULL;
	/* The claimed name for the log, escaped (log.h). */
	log_escape(as->claimed, sizeof(as->claimed), q.user, q.user_len);
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
	const uint8_t *key;
	size_t keylen;
	int ok, verdict;

	if (msg_decode_auth_prove_req(r->payload, r->payload_len, &q) == -1 ||
	    (as->user != NULL && !as->by_cert)) {
		auth_done(r, ERR_INVALID_REQUEST);
		return;
	}
	if (!as->nonce_set) {
		lograte_warnx(c->w, c->peer, LOGRATE_REFUSED, "AUTH_PROVE "
		    "without AUTH_BEGIN, closing");
		auth_done(r, ERR_AUTH_FAILED);
		c->eof = 1;
		return;
	}
	/* The throttle (authlimit.h): parked, or refused unchecked. */
	if ((verdict = authlimit_check(c, r)) == AUTHLIMIT_WAIT)
		return;		/* executed again at r->deadline */
	/* A user with SCRAM credentials only has no secret to prove. */
	if (u != NULL && u->scram_only)
		u = NULL;
	if (u != NULL)
		crypto_auth_hmacsha256_init(&hs, u->secret, u->secret_len);
	else {
		key = auth_unknown_user_key(&keylen);
		crypto_auth_hmacsha256_init(&hs, key, keylen);
	}
	crypto_auth_hmacsha256_update(&hs, as->nonce, sizeof(as->nonce));
	crypto_auth_hmacsha256_final(&hs, want);
	ok = verdict == AUTHLIMIT_GO && u != NULL &&
	    sodium_memcmp(want, q.mac, sizeof(want)) == 0;
	sodium_memzero(want, sizeof(want));
	sodium_memzero(&hs, sizeof(hs));
	/* One proof per nonce. */
	sodium_memzero(as->nonce, sizeof(as->nonce));
	as->nonce_set = 0;
	as->pending = NULL;
	if (!ok) {
		atomic_fetch_add_explicit(&c->w->me->auth_failures, 1,
		    memory_order_relaxed);
		lograte_warnx(c->w, c->peer, LOGRATE_AUTH, "authentication "
		    "failed for user %s%s, closing", as->claimed,
		    verdict == AUTHLIMIT_REFUSE ? " (too many failures from "
		    "this address, refused unchecked)" : u == NULL ?
		    " (no such user)" : "");
		auth_done(r, ERR_AUTH_FAILED);
		c->eof = 1;
		return;
	}
	if (!auth_session_again(c, u, "AUTH_PROVE")) {
		auth_done(r, ERR_AUTH_FAILED);
		c->eof = 1;
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		auth_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	as->user = u;
	authlimit_success(c);
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
	if (!auth_enabled()) {
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

