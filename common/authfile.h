/*
 * The auth_file and the table of users it describes, as the master loads
 * it and every worker checks against it.
 *
 * The auth_file named in flume.conf holds one `user:secret:permissions`
 * line per user; permissions is a comma-separated list of produce,
 * consume and admin, each optionally limited to the topics whose names
 * start with a prefix (`consume=orders.`), and of group-read,
 * group-describe and group-delete, each optionally limited the same way
 * to the consumer groups whose names start with a prefix (Kafka's GROUP
 * resource: without one, a user may use no group).  The master reads the file
 * before forking, so every worker (and every respawned one) has the
 * same table without reading it again; SIGHUP reads it again and hands
 * the new text to the running workers through shared memory
 * (shm/authpub.h), where each takes it (worker/access.c).
 */
#ifndef FLUME_COMMON_AUTHFILE_H
#define FLUME_COMMON_AUTHFILE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"
#include "proto/msg_auth.h"

#define AUTH_PRODUCE		0x01u
#define AUTH_CONSUME		0x02u
#define AUTH_ADMIN		0x04u
#define AUTH_GROUP_READ		0x08u	/* join, heartbeat, leave, commit */
#define AUTH_GROUP_DESCRIBE	0x10u	/* describe, list, offset fetch */
#define AUTH_GROUP_DELETE	0x20u	/* GROUP_RESET */
#define AUTH_TOPIC_PERMS	(AUTH_PRODUCE | AUTH_CONSUME | AUTH_ADMIN)
#define AUTH_GROUP_PERMS	(AUTH_GROUP_READ | AUTH_GROUP_DESCRIBE | \
				    AUTH_GROUP_DELETE)
#define AUTH_FILE_MAX		(1u << 20)	/* largest auth_file accepted */
#define AUTH_SECRET_MAX		1024
#define AUTH_LOG_DENIALS	8		/* denials logged per connection */
#define AUTH_FRAME_MAX		4096		/* largest frame before authenticating */

/*
 * One permission, for the topics (AUTH_TOPIC_PERMS) or the groups
 * (AUTH_GROUP_PERMS) whose names start with prefix ("" = all), or, with
 * exact (written `consume==name`), for the one named prefix.
 */
struct auth_grant {
	unsigned	 perm;			/* one AUTH_* bit */
	uint8_t		 exact;			/* prefix is the whole name */
	size_t		 prefix_len;
	char		 prefix[TOPIC_NAME_MAX + 1];
};

/*
 * A SCRAM credential as Kafka keeps one (RFC 5802: the salt, the
 * iterations, StoredKey and ServerKey; never the password), for a user
 * whose secret field is `{scram}` followed by space-separated
 * `sha-256$ITERATIONS$SALT$STOREDKEY$SERVERKEY` (and `sha-512$...`),
 * base64: what AlterUserScramCredentials writes.
 */
#define AUTH_SCRAM_PREFIX	"{scram}"
#define AUTH_SCRAM_SALT_MAX	64
#define AUTH_SCRAM_KEY_MAX	64
#define AUTH_SCRAM_ITER_MIN	4096	/* Kafka's bounds */
#define AUTH_SCRAM_ITER_MAX	16384
enum { AUTH_SCRAM_SHA256 = 0, AUTH_SCRAM_SHA512, AUTH_SCRAM_MECHS };

struct auth_scram {
	uint8_t		 set;
	int32_t		 iterations;
	size_t		 salt_len;
	uint8_t		 salt[AUTH_SCRAM_SALT_MAX];
	uint8_t		 stored_key[AUTH_SCRAM_KEY_MAX];
	uint8_t		 server_key[AUTH_SCRAM_KEY_MAX];
};

struct auth_user {
	char		 name[AUTH_USER_MAX + 1];
	size_t		 name_len;
	uint8_t		*secret;	/* NULL when scram_only */
	size_t		 secret_len;
	uint8_t		 scram_only;	/* a {scram} secret: no password */
	struct auth_scram scram[AUTH_SCRAM_MECHS];
	struct auth_grant *grants;
	size_t		 ngrants;
};

struct auth_table {
	struct auth_user *users;
	size_t		 nusers;
};

struct shm;

/*
 * Parse the text of an auth file (len bytes, need not be NUL-terminated)
 * into t.  0, or -1 with "NAME:LINE: message" in err (never a secret).
 */
int	auth_parse(const char *name, const char *text, size_t len,
	    struct auth_table *t, char *err, size_t errlen);
void	auth_table_free(struct auth_table *t);
/* The user's grants allow one of perms (AUTH_* bits) on topic? 1 or 0. */
int	auth_user_may(const struct auth_user *u, unsigned perm, const char *topic,
	    size_t len);
/*
 * The user's grants allow perm (one AUTH_GROUP_* bit) on group?  Every
 * group permission implies AUTH_GROUP_DESCRIBE, as in Kafka.  1 or 0.
 */
int	auth_user_may_group(const struct auth_user *u, unsigned perm,
	    const char *group, size_t len);
/* The user has perm on some topic (all: on every topic)? 1 or 0. */
int	auth_user_has(const struct auth_user *u, unsigned perm, int all);
/* The key length of SCRAM mechanism mech (AUTH_SCRAM_SHA*): 32 or 64. */
size_t	auth_scram_keylen(int mech);
/*
 * StoredKey = H(HMAC(salted, "Client Key")) and ServerKey =
 * HMAC(salted, "Server Key") of a salted password (RFC 5802), each
 * auth_scram_keylen(mech) bytes.
 */
void	auth_scram_keys(int mech, const uint8_t *salted, uint8_t *stored,
	    uint8_t *server);
/* The `{scram}...` secret field of u's credentials into buf: 0 or -1. */
int	auth_scram_format(const struct auth_user *u, char *buf, size_t len);
/* 1 if a user name may hold ch. */
int	auth_name_char(int ch);
/* The user named name[0..len) in t, or NULL. */
const struct auth_user *auth_find_in(const struct auth_table *t,
	    const char *name, size_t len);

/*
 * Master, before forking: read path into the process-wide table that
 * the workers inherit.  0, or -1 with "path:line: message" in err.
 * A file readable by group or others is accepted with a warning in warn,
 * as is one where users may consume but none may use a consumer group
 * (written before groups had permissions of their own); both in one line.
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

/* This process's table of users. */
const struct auth_table *auth_table_current(void);
/* The key an unknown user's proof is checked against (random per start). */
const uint8_t *auth_unknown_user_key(size_t *len);
/*
 * Worker: a table the master published since this process's: parsed into
 * t (1, generation in *gen); 0 when there is none; -1 with err when it
 * does not parse (it is then skipped).
 */
int	auth_table_take(struct shm *s, struct auth_table *t, uint32_t *gen,
	    char *err, size_t errlen);
/* The published generation this process's table is from (0: inherited). */
uint32_t auth_table_generation(void);
/* Worker: make t (taken by auth_table_take) the table; t is emptied. */
void	auth_table_install(struct auth_table *t, uint32_t gen);

#endif
