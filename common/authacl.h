/*
 * The auth_file's permissions seen as Kafka's ACLs, both ways: what
 * bindings (resource, principal, operation) a user's grants amount to,
 * and the new text of an auth_file after creating or deleting bindings.
 * Pure functions over a text and its table (common/authfile.h), so the
 * mapping is unit-tested without a broker; worker/op/acl.c does the
 * locking, writing and reloading.
 *
 * One grant is one bundle of bindings on one resource pattern (a grant
 * for every name is LITERAL "*", `perm==name` LITERAL name, `perm=prefix`
 * PREFIXED prefix), always ALLOW, host "*", principal User:NAME:
 *
 *   produce         TOPIC WRITE
 *   consume         TOPIC READ
 *   admin           TOPIC CREATE, DELETE, ALTER, DESCRIBE_CONFIGS,
 *                   ALTER_CONFIGS; for every topic also CLUSTER
 *                   kafka-cluster ALL (the broker's admin rights)
 *   group-read      GROUP READ
 *   group-describe  GROUP DESCRIBE
 *   group-delete    GROUP DELETE
 *
 * A creation is accepted only when the bindings it makes the file grant
 * are exactly those the request (with what the file already grants)
 * asks for: a bundle is added only when the request names all of it, so
 * nothing is ever silently widened.  DENY, hosts but "*", principals but
 * User:NAME of a user the file has, DESCRIBE on a topic (every user with
 * a permission on a topic sees it), other resource types and operations
 * are refused with a message saying why.  A deletion removes a grant
 * when the request's filters match all of its bundle; a matching binding
 * whose bundle is not wholly matched is answered with an error and kept.
 *
 * The enums' values are Kafka's own (org.apache.kafka.common.acl and
 * .resource), the same on the wire of every version.
 */
#ifndef FLUME_COMMON_AUTHACL_H
#define FLUME_COMMON_AUTHACL_H

#include <stddef.h>
#include <stdint.h>

#include "common/authfile.h"

enum acl_res {
	ACL_RES_UNKNOWN = 0, ACL_RES_ANY, ACL_RES_TOPIC, ACL_RES_GROUP,
	ACL_RES_CLUSTER, ACL_RES_TRANSACTIONAL_ID, ACL_RES_DELEGATION_TOKEN,
	ACL_RES_USER
};

enum acl_pat {
	ACL_PAT_UNKNOWN = 0, ACL_PAT_ANY, ACL_PAT_MATCH, ACL_PAT_LITERAL,
	ACL_PAT_PREFIXED
};

enum acl_op {
	ACL_OP_UNKNOWN = 0, ACL_OP_ANY, ACL_OP_ALL, ACL_OP_READ, ACL_OP_WRITE,
	ACL_OP_CREATE, ACL_OP_DELETE, ACL_OP_ALTER, ACL_OP_DESCRIBE,
	ACL_OP_CLUSTER_ACTION, ACL_OP_DESCRIBE_CONFIGS, ACL_OP_ALTER_CONFIGS,
	ACL_OP_IDEMPOTENT_WRITE, ACL_OP_CREATE_TOKENS, ACL_OP_DESCRIBE_TOKENS
};

enum acl_perm {
	ACL_PERM_UNKNOWN = 0, ACL_PERM_ANY, ACL_PERM_DENY, ACL_PERM_ALLOW
};

#define ACL_CLUSTER_NAME	"kafka-cluster"
#define ACL_PRINCIPAL_MAX	(5 + AUTH_USER_MAX)	/* "User:" NAME */
#define ACL_WHY_MAX		256

/* One ACL as the file grants it (host "*", ALLOW). */
struct acl_binding {
	int8_t		 res;
	int8_t		 pat;
	int8_t		 op;
	int8_t		 perm;
	char		 name[TOPIC_NAME_MAX + 1];	/* "*": every name */
	char		 principal[ACL_PRINCIPAL_MAX + 1];
	/* Where it comes from in the table: user and grant. */
	size_t		 user;
	size_t		 grant;
};

/*
 * A creation (every field concrete) or a filter (ANY values, NULL
 * strings match everything); strings need not be NUL-terminated.
 */
struct acl_spec {
	int8_t		 res;
	int8_t		 pat;
	int8_t		 op;
	int8_t		 perm;
	const char	*name;
	size_t		 name_len;
	const char	*principal;
	size_t		 principal_len;
	const char	*host;
	size_t		 host_len;
};

/* Per deletion filter: the bindings it matched, each kept or deleted. */
struct acl_match {
	struct acl_binding b;
	int		 refused;		/* kept: why says why */
	char		 why[ACL_WHY_MAX];
};

struct acl_deleted {
	int		 refused;		/* a bad filter: why */
	char		 why[ACL_WHY_MAX];
	struct acl_match *m;			/* malloc'd */
	size_t		 n;
};

/* The bindings of t, deduplicated, sorted by resource: 0 or -1 (ENOMEM). */
int	authacl_list(const struct auth_table *t, struct acl_binding **out,
	    size_t *n);
/* Does filter f match b?  1 or 0. */
int	authacl_match(const struct acl_spec *f, const struct acl_binding *b);
/* Is f a filter Kafka accepts?  0, or -1 with why. */
int	authacl_filter_check(const struct acl_spec *f, char *why, size_t len);

/*
 * Create the n bindings c[] in the auth_file text[0..len) (parsed as
 * table t): refused[i] and why[i] per creation; the new text in *out
 * (malloc'd, *outlen), or NULL when nothing changes.  0, or -1 (ENOMEM).
 */
int	authacl_create(const char *text, size_t len,
	    const struct auth_table *t, const struct acl_spec *c, size_t n,
	    int *refused, char (*why)[ACL_WHY_MAX], char **out, size_t *outlen);
/*
 * Delete what the n filters f[] match: d[i] per filter (free with
 * authacl_deleted_free); the new text in *out as above.  0 or -1.
 */
int	authacl_delete(const char *text, size_t len,
	    const struct auth_table *t, const struct acl_spec *f, size_t n,
	    struct acl_deleted *d, char **out, size_t *outlen);
void	authacl_deleted_free(struct acl_deleted *d, size_t n);

/*
 * The text with user u's permissions field (of table t parsed from it)
 * replaced by the grants g[0..ng): a new malloc'd text in *out, or -1.
 * Every other byte of the file is kept.
 */
int	authacl_rewrite(const char *text, size_t len,
	    const struct auth_table *t, const struct auth_grant *const *g,
	    const size_t *ng, char **out, size_t *outlen);

#endif
