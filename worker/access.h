/*
 * A worker's connections and their sessions.  With a table of users
 * loaded (common/authfile.h), a connection must first authenticate
 * (native: AUTH_BEGIN and AUTH_PROVE, worker/native/auth.h; Kafka: SASL,
 * worker/kafka/sasl.c); until then every request but those its table
 * row marks open is refused (auth_gate).  What a user may do on a topic
 * or a group is the operations' verdict (worker/op/access.h), logged
 * with the user's name (at most AUTH_LOG_DENIALS per connection);
 * secrets never are.
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
