/*
 * Access verdicts (worker/op/access.h) over a request's session.
 */
#include <stddef.h>

#include "common/authfile.h"
#include "common/log.h"
#include "proto/names.h"
#include "worker/op/access.h"

/* The name a session goes by in the log. */
static const char *
who(const struct op_ctx *x)
{
	if (x->auth->user != NULL)
		return x->auth->user->name;
	return "(unauthenticated)";
}

/* Whether this denial is still logged (AUTH_LOG_DENIALS a session). */
static int
log_more(const struct op_ctx *x)
{
	if (x->auth->denials++ >= AUTH_LOG_DENIALS) {
		if (x->auth->denials == AUTH_LOG_DENIALS + 1)
			log_warnx("%s: user %s: further denials on this "
			    "connection are not logged", x->peer, who(x));
		return 0;
	}
	return 1;
}

/*
 * A name from the wire for the log, escaped (log_escape: it could hold a
 * newline), at most max bytes of it; "" when absent (null).
 */
static const char *
esc(char *buf, size_t size, const char *p, size_t len, size_t max)
{
	if (p == NULL)
		return "";
	return log_escape(buf, size, p, len > max ? max : len);
}

static const char *
api(const struct op_ctx *x)
{
	return x->api != NULL ? x->api : "?";
}

enum op_err
op_access_gate(const struct op_ctx *x, unsigned perms, int all)
{
	const struct auth_user *u = x->auth->user;

	if (!auth_enabled())
		return OP_OK;
	if (u == NULL) {
		log_debug("%s: %s before authentication", x->peer,
		    x->api != NULL ? x->api : "a request");
		return OP_AUTH_REQUIRED;
	}
	perms &= AUTH_TOPIC_PERMS;
	if (perms == 0 || auth_user_has(u, perms, all))
		return OP_OK;
	if (log_more(x))
		log_warnx("%s: user %s: access denied: %s", x->peer, who(x),
		    api(x));
	return OP_DENIED_TOPIC;
}

int
op_access_topic_may(const struct op_ctx *x, unsigned perms, const char *topic,
    size_t len)
{
	if (!auth_enabled())
		return 1;
	return x->auth->user != NULL && auth_user_may(x->auth->user, perms,
	    topic, len);
}

enum op_err
op_access_topic(const struct op_ctx *x, unsigned perms, const char *topic,
    size_t len)
{
	char tbuf[LOG_ESC_SIZE(TOPIC_NAME_MAX)];

	if (op_access_topic_may(x, perms, topic, len))
		return OP_OK;
	if (log_more(x))
		log_warnx("%s: user %s: access denied: %s on topic %s",
		    x->peer, who(x), api(x),
		    esc(tbuf, sizeof(tbuf), topic, len, TOPIC_NAME_MAX));
	return OP_DENIED_TOPIC;
}

int
op_access_group_may(const struct op_ctx *x, unsigned perm, const char *group,
    size_t glen)
{
	if (!auth_enabled())
		return 1;
	return x->auth->user != NULL && group != NULL &&
	    auth_user_may_group(x->auth->user, perm, group, glen);
}

enum op_err
op_access_group(const struct op_ctx *x, unsigned perm, const char *group,
    size_t glen)
{
	char gbuf[LOG_ESC_SIZE(GROUP_NAME_MAX)];

	if (op_access_group_may(x, perm, group, glen))
		return OP_OK;
	if (log_more(x))
		log_warnx("%s: user %s: access denied: %s on group %s",
		    x->peer, who(x), api(x),
		    esc(gbuf, sizeof(gbuf), group, glen, GROUP_NAME_MAX));
	return OP_DENIED_GROUP;
}

enum op_err
op_access_group_topic(const struct op_ctx *x, const char *group, size_t glen,
    const char *topic, size_t tlen)
{
	char gbuf[LOG_ESC_SIZE(GROUP_NAME_MAX)];
	char tbuf[LOG_ESC_SIZE(TOPIC_NAME_MAX)];
	const char *g;

	if (!auth_enabled())
		return OP_OK;
	if (topic != NULL && op_access_topic_may(x, AUTH_CONSUME, topic, tlen))
		return OP_OK;
	if (!log_more(x))
		return OP_DENIED_TOPIC;
	g = esc(gbuf, sizeof(gbuf), group, glen, GROUP_NAME_MAX);
	if (topic == NULL)
		log_warnx("%s: user %s: access denied: %s on group %s: "
		    "its consumer subscription cannot be read", x->peer,
		    who(x), api(x), g);
	else
		log_warnx("%s: user %s: access denied: %s on group %s "
		    "subscribes to topic %s", x->peer, who(x), api(x), g,
		    esc(tbuf, sizeof(tbuf), topic, tlen, TOPIC_NAME_MAX));
	return OP_DENIED_TOPIC;
}
