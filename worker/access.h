/*
 * Access control of a worker's connections.  With a table of users
 * loaded (common/authfile.h), a connection must first authenticate
 * (native: AUTH_BEGIN and AUTH_PROVE, worker/auth.h); until then every
 * request but those its table row marks open is answered with
 * ERR_AUTH_REQUIRED; afterwards a request the user may not make gets
 * ERR_ACCESS_DENIED (per entry where the request names topics).  Each
 * denial is logged with the user's name (at most AUTH_LOG_DENIALS per
 * connection); secrets never are.
 */
#ifndef FLUME_WORKER_ACCESS_H
#define FLUME_WORKER_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "common/authfile.h"
#include "worker/op/access.h"


struct worker;
struct conn;

/*
 * Worker, every loop turn: take a newly published table; connections of
 * users no longer in it are closed, the others keep going under their
 * user's new permissions.  1 when a new table was applied, else 0.
 */
int	auth_refresh(struct worker *w);
/*
 * Worker, for a new connection: until it authenticates, frames larger
 * than AUTH_FRAME_MAX are refused (the connection is closed), so an
 * unauthenticated client cannot make the broker buffer max_request_bytes.
 */
void	auth_conn_init(struct conn *c);
/*
 * Worker: may c send a request of api (the name its face gives it, as
 * the client sent it: r->name), whose table row asks for perm
 * (worker/dispatch.h), at all?  OP_OK, OP_AUTH_REQUIRED or
 * OP_DENIED_TOPIC (logged, naming api), for the face to answer in its
 * protocol.  Per-topic checks are the operations'.
 */
enum op_err auth_gate(struct conn *c, unsigned perm, const char *api);
/*
 * Worker: may c's user do one of perms (AUTH_* bits) on topic for a
 * request of api (r->name)?  ERR_NONE or ERR_ACCESS_DENIED (logged,
 * naming api and topic).  Always ERR_NONE without auth.
 */
int16_t	auth_topic(struct conn *c, unsigned perms, const char *topic,
	    size_t len, const char *api);
/* Worker: the same as a yes (1) or no (0), without logging. */
int	auth_may(const struct conn *c, unsigned perms, const char *topic,
	    size_t len);
/*
 * Worker: may c's user make the group request api (its name as the
 * client sent it, for the log: "JOIN_GROUP", "JoinGroup") on group?
 * perm is the AUTH_GROUP_* permission api needs: READ to be a member
 * and commit, DESCRIBE (implied by the others) to look, DELETE for
 * GROUP_RESET.  Without a group permission of the auth_file naming the
 * group, no: ERR_ACCESS_DENIED (logged with user, api and group), else
 * ERR_NONE.  What a group reads is checked per topic besides
 * (auth_group_topic, and at each fetch and offset commit).
 */
int16_t	auth_group(struct conn *c, unsigned perm, const char *api,
	    const char *group, size_t glen);
/* Worker: the same as a yes (1) or no (0), without logging. */
int	auth_group_may(const struct conn *c, unsigned perm, const char *group,
	    size_t glen);
/*
 * Worker: a join (api) of group subscribes to topic (named by the
 * request, or by the Kafka consumer protocol's metadata); may c's user
 * consume it?  topic NULL: the subscription could not be read.
 * ERR_NONE or ERR_ACCESS_DENIED (logged).
 */
int16_t	auth_group_topic(struct conn *c, const char *api, const char *group,
	    size_t glen, const char *topic, size_t tlen);
/* Worker: the user named name[0..len) in the current table, or NULL. */
const struct auth_user *auth_user_find(const char *name, size_t len);
/*
 * Worker: c proved to be u some other way (Kafka SASL, worker/kafka/sasl.c):
 * the same session and frame limit as after AUTH_PROVE; logged with how.
 */
void	auth_session_login(struct conn *c, const struct auth_user *u,
	    const char *how);
/*
 * Worker, once a TLS handshake is done (later calls return at once):
 * with tls_cert_user, a verified client certificate whose CN is a user
 * logs c in as that user (worker/tls.c has refused any other CN).  The
 * connection may still authenticate with SASL or AUTH_BEGIN/AUTH_PROVE,
 * but only as that same user.
 */
void	auth_session_cert(struct conn *c);
/*
 * Worker: may c, already logged in, authenticate again as u?  Only when
 * its certificate named it u; otherwise logged, and 0.
 */
int	auth_session_again(struct conn *c, const struct auth_user *u,
	    const char *how);

#endif
