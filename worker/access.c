/*
 * Access control of a worker's connections (see worker/access.h): what
 * a connection may send before and after it authenticates, per API and
 * per topic, and taking a reloaded auth_file into the open sessions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/authfile.h"
#include "common/log.h"
#include "store/topic.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/tls.h"
#include "worker/worker.h"

int
auth_refresh(struct worker *w)
{
	struct auth_table t;
	struct conn *c, *next;
	const struct auth_user *u;
	char err[256];
	uint32_t gen;
	int closed = 0, rc;

	if ((rc = auth_table_take(w->shm, &t, &gen, err, sizeof(err))) == 0)
		return 0;
	if (rc == -1) {
		log_warnx("published %s; keeping the current users", err);
		return 0;
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
	log_info("applied the reloaded auth_file (generation %u, %zu users, "
	    "%d connection%s closed)", gen, t.nusers, closed,
	    closed == 1 ? "" : "s");
	auth_table_install(&t, gen);
	return 1;
}

/*
 * The verdicts of worker/op/access.h for a connection, in native error
 * codes: what the faces call until each has moved to op_access_*.
 */
static void
ctx_of(const struct conn *c, const char *api, struct op_ctx *x)
{
	conn_op_ctx((struct conn *)(uintptr_t)c, NULL, x);
	x->api = api;
}

enum op_err
auth_gate(struct conn *c, unsigned perm, const char *api)
{
	struct op_ctx x;

	if (perm & API_PERM_OPEN)
		return OP_OK;
	ctx_of(c, api, &x);
	return op_access_gate(&x, perm & AUTH_TOPIC_PERMS,
	    (perm & API_PERM_ALL) != 0);
}

void
auth_conn_init(struct conn *c)
{
	if (auth_enabled() && c->rd.max_size > AUTH_FRAME_MAX)
		c->rd.max_size = AUTH_FRAME_MAX;
}

const struct auth_user *
auth_user_find(const char *name, size_t len)
{
	return auth_enabled() ? auth_find_in(auth_table_current(), name, len) :
	    NULL;
}

void
auth_session_login(struct conn *c, const struct auth_user *u, const char *how)
{
	c->auth.user = u;
	c->rd.max_size = c->w->conf->max_request_bytes;
	log_info("%s: authenticated as user %s (%s)", c->peer, u->name, how);
}

void
auth_session_cert(struct conn *c)
{
	const struct auth_user *u;
	const char *cn;

	if (c->auth.cert_checked)
		return;
	c->auth.cert_checked = 1;
	if (!auth_enabled() || !c->w->conf->tls_cert_user || c->tls == NULL ||
	    c->auth.user != NULL)
		return;
	/* No certificate (tls_client_auth = request): SASL or AUTH as ever. */
	if ((cn = tls_peer_cn(c->tls))[0] == '\0')
		return;
	/* NULL only if a reload removed the user since the handshake. */
	if ((u = auth_user_find(cn, strlen(cn))) == NULL)
		return;
	auth_session_login(c, u, "TLS client certificate");
	c->auth.by_cert = 1;
}

int
auth_session_again(struct conn *c, const struct auth_user *u,
    const char *how)
{
	const struct auth_user *cur = c->auth.user;

	if (cur == NULL)
		return 1;
	if (c->auth.by_cert && strcmp(cur->name, u->name) == 0)
		return 1;
	log_warnx("%s: %s as user %s, but the connection is user %s%s, "
	    "closing", c->peer, how, u->name, cur->name, c->auth.by_cert ?
	    " by its TLS client certificate" : "");
	return 0;
}
