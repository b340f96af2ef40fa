/*
 * Kafka's ACLs over the auth_file, protocol-neutral: describing what the
 * file grants, creating and deleting grants (common/authacl.h is the
 * mapping), and the change of the file every such write goes through,
 * which SCRAM credentials share (worker/op/scram.h).
 *
 * Who writes: the worker that took the request.  Under an exclusive
 * flock on the file's directory it reads the file again (another
 * worker's change is never lost), computes the new text, writes it
 * atomically (common/authwrite.h), then asks the master to read it again
 * (SIGUSR1: the master parses and publishes it through shm/authpub.h,
 * the one path SIGHUP takes too) and waits, parked, until this worker
 * has installed a published table holding its change.  The master stays
 * the only writer of the published copy (a seqlock with one writer), and
 * a respawned worker inherits the master's table as before.
 */
#ifndef FLUME_WORKER_OP_ACL_H
#define FLUME_WORKER_OP_ACL_H

#include <stddef.h>
#include <stdint.h>

#include "common/authacl.h"
#include "worker/op/op.h"

#define OP_AUTH_CHANGE_WAIT_MS	10000	/* the master's reload, at most */

/* A change of the auth_file waiting to be in force here. */
struct op_auth_change {
	int		 waiting;
	uint32_t	 gen0;		/* published generation after the rename */
	uint32_t	 target;	/* the generation with the change, once seen */
	uint8_t		 hash[32];	/* of the text written */
	int64_t		 deadline;
	enum op_err	 err;
};

/*
 * The new text of the auth_file text[0..len) (parsed as t), or *out
 * NULL when nothing changes: 0, or -1 (the change fails: OP_INTERNAL).
 */
typedef int (*op_auth_edit_fn)(void *arg, const char *text, size_t len,
	    const struct auth_table *t, char **out, size_t *outlen);

/*
 * May the session change users and permissions, or see them?  Needs an
 * auth_file (else OP_SECURITY_DISABLED) and admin on every topic (else
 * OP_DENIED_CLUSTER, logged).
 */
enum op_err op_auth_admin(const struct op_ctx *x);
/*
 * Change the auth_file through edit (see above): OP_DONE with ch->err
 * (OP_OK also when nothing changed), or OP_WAIT until the change is in
 * force in this worker (op_auth_change_poll).
 */
enum op_status op_auth_change(const struct op_ctx *x, op_auth_edit_fn edit,
	    void *arg, struct op_auth_change *ch);
enum op_status op_auth_change_poll(const struct op_ctx *x,
	    struct op_auth_change *ch);

/*
 * The bindings filter f matches (request memory): OP_OK, or OP_BAD_REQUEST
 * with why (a bad filter), or OP_NO_MEMORY.
 */
enum op_err op_acl_describe(const struct op_ctx *x, const struct acl_spec *f,
	    struct acl_binding **out, size_t *n, char *why, size_t whylen);

/* A CreateAcls or DeleteAcls in progress. */
struct op_acl_create {
	const struct acl_spec *c;	/* n creations */
	size_t		 n;
	int		*refused;	/* per creation, request memory */
	char		(*why)[ACL_WHY_MAX];
	struct op_auth_change ch;
};

struct op_acl_delete {
	const struct acl_spec *f;	/* n filters */
	size_t		 n;
	struct acl_deleted *d;		/* per filter, request memory */
	struct op_auth_change ch;
};

/* Set a->c, a->n first.  Results in a; OP_WAIT: poll a->ch. */
enum op_status op_acl_create(const struct op_ctx *x, struct op_acl_create *a);
enum op_status op_acl_delete(const struct op_ctx *x, struct op_acl_delete *a);

#endif
