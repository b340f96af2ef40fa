/*
 * Access control of a worker's connections (see worker/access.h): what
 * a connection may send before and after it authenticates, per API and
 * per topic, and taking a reloaded auth_file into the open sessions.
 */
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

/* The name a connection goes by in the log. */
static const char *
auth_who(const struct conn *c)
{
	if (c->auth.user != NULL)
		return c->auth.user->name;
	return "(unauthenticated)";
}

/* Whether this denial is still logged (AUTH_LOG_DENIALS a connection). */
static int
auth_log_more(struct conn *c)
{
	if (c->auth.denials++ >= AUTH_LOG_DENIALS) {
		if (c->auth.denials == AUTH_LOG_DENIALS + 1)
			log_warnx("%s: user %s: further denials on this "
			    "connection are not logged", c->peer, auth_who(c));
		return 0;
	}
	return 1;
}

/*
 * A name from the wire for the log, escaped (log_escape: it could hold a
 * newline), at most max bytes of it; "" when absent (null).
 */
static const char *
auth_esc(char *buf, size_t size, const char *p, size_t len, size_t max)
{
	if (p == NULL)
		return "";
	return log_escape(buf, size, p, len > max ? max : len);
}

static void
auth_log_denial(struct conn *c, const char *api, const char *topic, size_t len)
{
	char tbuf[LOG_ESC_SIZE(TOPIC_NAME_MAX)];

	if (!auth_log_more(c))
		return;
	if (topic != NULL)
		log_warnx("%s: user %s: access denied: %s on topic %s",
		    c->peer, auth_who(c), api != NULL ? api : "?",
		    auth_esc(tbuf, sizeof(tbuf), topic, len, TOPIC_NAME_MAX));
	else
		log_warnx("%s: user %s: access denied: %s", c->peer,
		    auth_who(c), api != NULL ? api : "?");
}

int16_t
auth_gate(struct conn *c, unsigned perm, const char *api)
{
	const struct auth_user *u = c->auth.user;
	unsigned need = perm & AUTH_TOPIC_PERMS;

	if (!auth_enabled() || (perm & API_PERM_OPEN))
		return ERR_NONE;
	if (u == NULL) {
		log_debug("%s: %s before authentication", c->peer,
		    api != NULL ? api : "a request");
		return ERR_AUTH_REQUIRED;
	}
	if (need == 0 || auth_user_has(u, need, (perm & API_PERM_ALL) != 0))
		return ERR_NONE;
	auth_log_denial(c, api, NULL, 0);
	return ERR_ACCESS_DENIED;
}

int16_t
auth_topic(struct conn *c, unsigned perms, const char *topic, size_t len,
    const char *api)
{
	const struct auth_user *u = c->auth.user;

	if (!auth_enabled())
		return ERR_NONE;
	if (u != NULL && auth_user_may(u, perms, topic, len))
		return ERR_NONE;
	auth_log_denial(c, api, topic, len);
	return ERR_ACCESS_DENIED;
}

/* A name from the wire, at most max bytes of it, for the log. */
int
auth_group_may(const struct conn *c, unsigned perm, const char *group,
    size_t glen)
{
	if (!auth_enabled())
		return 1;
	return c->auth.user != NULL && group != NULL &&
	    auth_user_may_group(c->auth.user, perm, group, glen);
}

int16_t
auth_group(struct conn *c, unsigned perm, const char *api, const char *group,
    size_t glen)
{
	char gbuf[LOG_ESC_SIZE(GROUP_NAME_MAX)];

	if (auth_group_may(c, perm, group, glen))
		return ERR_NONE;
	if (auth_log_more(c))
		log_warnx("%s: user %s: access denied: %s on group %s",
		    c->peer, auth_who(c), api,
		    auth_esc(gbuf, sizeof(gbuf), group, glen, GROUP_NAME_MAX));
	return ERR_ACCESS_DENIED;
}

int16_t
auth_group_topic(struct conn *c, const char *api, const char *group,
    size_t glen, const char *topic, size_t tlen)
{
	char gbuf[LOG_ESC_SIZE(GROUP_NAME_MAX)];
	char tbuf[LOG_ESC_SIZE(TOPIC_NAME_MAX)];
	const char *g;

	if (!auth_enabled())
		return ERR_NONE;
	if (topic != NULL && auth_may(c, AUTH_CONSUME, topic, tlen))
		return ERR_NONE;
	if (!auth_log_more(c))
		return ERR_ACCESS_DENIED;
	g = auth_esc(gbuf, sizeof(gbuf), group, glen, GROUP_NAME_MAX);
	if (topic == NULL)
		log_warnx("%s: user %s: access denied: %s on group %s: "
		    "its consumer subscription cannot be read", c->peer,
		    auth_who(c), api, g);
	else
		log_warnx("%s: user %s: access denied: %s on group %s "
		    "subscribes to topic %s", c->peer, auth_who(c), api,
		    g, auth_esc(tbuf, sizeof(tbuf), topic, tlen, TOPIC_NAME_MAX));
	return ERR_ACCESS_DENIED;
}

int
auth_may(const struct conn *c, unsigned perms, const char *topic, size_t len)
{
	if (!auth_enabled())
		return 1;
	return c->auth.user != NULL && auth_user_may(c->auth.user, perms, topic,
	    len);
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
