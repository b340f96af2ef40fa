/*
 * SCRAM credentials of the auth_file's users, protocol-neutral (Kafka's
 * DescribeUserScramCredentials and AlterUserScramCredentials): the
 * mapping is common/authscram.h, the change of the file the one of
 * worker/op/acl.h (lock, re-read, atomic write, the master's reload,
 * the wait).
 */
#ifndef FLUME_WORKER_OP_SCRAM_H
#define FLUME_WORKER_OP_SCRAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/authscram.h"
#include "worker/op/acl.h"

/* One user described: found or not, the iterations per mechanism. */
struct op_scram_user {
	const char	*name;		/* the caller's */
	size_t		 name_len;
	enum authscram_err err;		/* NOT_FOUND, DUPLICATE */
	int		 repeat;	/* named before: answered once */
	int32_t		 it[2];		/* SHA-256, SHA-512; 0: none */
};

/*
 * Describe the n users u[] (names set by the caller), or with n 0 every
 * user with a credential into *all (request memory, *nall).  OP_OK or
 * OP_NO_MEMORY.
 */
enum op_err op_scram_describe(const struct op_ctx *x, struct op_scram_user *u,
	    size_t n, struct op_scram_user **all, size_t *nall);

/* An AlterUserScramCredentials in progress. */
struct op_scram_alter {
	const struct scram_alter *a;	/* n alterations */
	size_t		 n;
	struct scram_result *res;	/* request memory, nres of them */
	size_t		 nres;
	struct op_auth_change ch;
};

/* Set a->a, a->n first; OP_WAIT: poll a->ch (op_auth_change_poll). */
enum op_status op_scram_alter(const struct op_ctx *x, struct op_scram_alter *a);

#endif
