/*
 * Optional shared-secret authentication and per-topic access control.
 *
 * The auth_file named in flume.conf holds one `user:secret:permissions`
 * line per user; permissions is a comma-separated list of produce,
 * consume and admin, each optionally limited to the topics whose names
 * start with a prefix (`consume=orders.`).  The master reads the file
 * before forking, so every worker (and every respawned one) has the
 * same table without reading it again; SIGHUP reads it again and hands
 * the new text to the running workers through shared memory.
 *
 * With a table loaded, a connection must first send AUTH_BEGIN [user]
 * (answered with a random 32-byte nonce) and AUTH_PROVE
 * [HMAC-SHA256(secret, nonce)], compared in constant time.  Until then
 * every request but HANDSHAKE, AUTH_BEGIN and AUTH_PROVE is answered with
 * ERR_AUTH_REQUIRED; afterwards a request the user may not make gets
 * ERR_ACCESS_DENIED (per entry where the request names topics).  Each
 * success, failure and denial is logged with the user's name; secrets
 * never are.
 */
#ifndef FLUME_WORKER_AUTH_H
#define FLUME_WORKER_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"
#include "proto/msg_auth.h"

#define AUTH_PRODUCE		0x01u
#define AUTH_CONSUME		0x02u
#define AUTH_ADMIN		0x04u
#define AUTH_FILE_MAX		(1u << 20)	/* largest auth_file accepted */
#define AUTH_SECRET_MAX		1024
#define AUTH_LOG_DENIALS	8		/* denials logged per connection */
#define AUTH_FRAME_MAX		4096		/* largest frame before authenticating */

/* One permission, for the topics whose names start with prefix ("" = all). */
struct auth_grant {
	unsigned	 perm;			/* one AUTH_* bit */
	size_t		 prefix_len;
	char		 prefix[TOPIC_NAME_MAX + 1];
};

struct auth_user {
	char		 name[AUTH_USER_MAX + 1];
	size_t		 name_len;
	uint8_t		*secret;
	size_t		 secret_len;
	struct auth_grant *grants;
	size_t		 ngrants;
};

struct auth_table {
	struct auth_user *users;
	size_t		 nusers;
};

/* A connection's identity; all zero (calloc) = not authenticated. */
struct auth_session {
	const struct auth_user *user;		/* set by a successful AUTH_PROVE */
	const struct auth_user *pending;	/* named by AUTH_BEGIN; NULL if unknown */
	char		 claimed[AUTH_USER_MAX + 1]; /* printable name from AUTH_BEGIN */
	uint8_t		 nonce[AUTH_NONCE_LEN];
	uint8_t		 nonce_set;		/* an AUTH_BEGIN awaits its AUTH_PROVE */
	uint32_t	 denials;		/* for AUTH_LOG_DENIALS */
};

struct worker;
struct conn;
struct req;
struct shm;

/*
 * Parse the text of an auth file (len bytes, need not be NUL-terminated)
 * into t.  0, or -1 with "NAME:LINE: message" in err (never a secret).
 */
int	auth_parse(const char *name, const char *text, size_t len,
	    struct auth_table *t, char *err, size_t errlen);
void	auth_table_free(struct auth_table *t);
/* The user's grants allow perm (one AUTH_* bit) on topic? 1 or 0. */
int	auth_user_may(const struct auth_user *u, unsigned perm, const char *topic,
	    size_t len);

/*
 * Master, before forking: read path into the process-wide table that
 * the workers inherit.  0, or -1 with "path:line: message" in err.
 * A file readable by group or others is accepted with a warning in warn.
 */
int	auth_load(const char *path, char *err, size_t errlen, char *warn,
	    size_t warnlen);
void	auth_unload(void);
/* Is authentication required (a table is loaded)? */
int	auth_enabled(void);
/* Master: publish the loaded table's text for the workers (shm/authpub.h). */
void	auth_publish(struct shm *s);
/*
 * Master, SIGHUP: with authentication on, load path again and publish it.
 * 1 when reloaded, 0 when authentication is off (an auth_file named only
 * now needs a restart), -1 with err when the file is bad (nothing changes).
 */
int	auth_reload(struct shm *s, const char *path, char *err, size_t errlen,
	    char *warn, size_t warnlen);
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
 * Worker: may c send a request of api at all?  ERR_NONE,
 * ERR_AUTH_REQUIRED or ERR_ACCESS_DENIED (logged).
 */
int16_t	auth_gate(struct conn *c, uint16_t api);
/*
 * Worker: may c's user do one of perms (AUTH_* bits) on topic?
 * ERR_NONE or ERR_ACCESS_DENIED (logged).  Always ERR_NONE without auth.
 */
int16_t	auth_topic(struct conn *c, unsigned perms, const char *topic,
	    size_t len);
/* Worker: the same as a yes (1) or no (0), without logging. */
int	auth_may(const struct conn *c, unsigned perms, const char *topic,
	    size_t len);
/* Worker: the user named name[0..len) in the current table, or NULL. */
const struct auth_user *auth_user_find(const char *name, size_t len);
/*
 * Worker: c proved to be u some other way (Kafka SASL, worker/kafka_sasl.c):
 * the same session and frame limit as after AUTH_PROVE; logged with how.
 */
void	auth_session_login(struct conn *c, const struct auth_user *u,
	    const char *how);
/* Execute AUTH_BEGIN / AUTH_PROVE; leaves r DONE with r->st the response. */
void	auth_exec(struct worker *w, struct conn *c, struct req *r);
/* Append the response of a DONE AUTH_BEGIN / AUTH_PROVE to c's output. */
void	auth_emit(struct conn *c, struct req *r);

#endif
