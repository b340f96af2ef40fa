/*
 * Access verdicts of the operations: may the user of a request do this
 * on that topic or group?  With a table of users loaded
 * (common/authfile.h) a request needs an authenticated user with the
 * permission; without one everything is allowed.  A "no" is logged with
 * the user, the request's name as its face gives it (struct op_ctx's
 * api: a DeleteTopics denial says DeleteTopics) and the resource, at
 * most AUTH_LOG_DENIALS times a session; secrets never are.  The *_may
 * forms answer yes (1) or no (0) without logging.
 */
#ifndef FLUME_WORKER_OP_ACCESS_H
#define FLUME_WORKER_OP_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "common/authfile.h"
#include "common/log.h"
#include "worker/op/op.h"

/* A session's identity; all zero (calloc) = not authenticated. */
struct auth_session {
	const struct auth_user *user;		/* set by a successful login */
	const struct auth_user *pending;	/* named by AUTH_BEGIN; NULL if unknown */
	char		 claimed[LOG_ESC_SIZE(AUTH_USER_MAX)]; /* AUTH_BEGIN's name, log_escape'd */
	uint8_t		 nonce[AUTH_NONCE_LEN];
	uint8_t		 nonce_set;		/* an AUTH_BEGIN awaits its AUTH_PROVE */
	uint32_t	 denials;		/* for AUTH_LOG_DENIALS */
	uint8_t		 by_cert;		/* user named by the TLS client certificate */
	uint8_t		 cert_checked;		/* auth_session_cert ran */
};

/*
 * May the request be made at all?  perms are the AUTH_* topic bits it
 * needs on some topic (on every topic with all); 0: any authenticated
 * user.  OP_OK, OP_AUTH_REQUIRED (not logged in; logged at debug) or
 * OP_DENIED_TOPIC.
 */
enum op_err op_access_gate(const struct op_ctx *x, unsigned perms, int all);
/* One of perms (AUTH_* bits) on topic: OP_OK or OP_DENIED_TOPIC. */
enum op_err op_access_topic(const struct op_ctx *x, unsigned perms,
	    const char *topic, size_t len);
int	op_access_topic_may(const struct op_ctx *x, unsigned perms,
	    const char *topic, size_t len);
/*
 * perm (an AUTH_GROUP_* bit: READ to be a member and commit, DESCRIBE,
 * implied by the others, to look, DELETE to reset) on group: OP_OK or
 * OP_DENIED_GROUP.
 */
enum op_err op_access_group(const struct op_ctx *x, unsigned perm,
	    const char *group, size_t glen);
int	op_access_group_may(const struct op_ctx *x, unsigned perm,
	    const char *group, size_t glen);
/*
 * A join of group subscribes to topic (NULL: its subscription could not
 * be read): may the user consume it?  OP_OK or OP_DENIED_TOPIC.
 */
enum op_err op_access_group_topic(const struct op_ctx *x, const char *group,
	    size_t glen, const char *topic, size_t tlen);

#endif
