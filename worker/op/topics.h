/*
 * The topic operations: metadata (with auto-create), create and delete
 * with their waits for the writer (worker/op/topics.c), for both faces.
 *
 * A create publishes the topic in shared memory at once, so produces
 * and fetches find it; the writer then makes its directory, topic.meta
 * and every partition's log, syncs the directories and sets the entry's
 * opened flag (shm/shm.h), waking the parked request.  A create is
 * answered only then, so the topic it acknowledges survives a power loss
 * and a produce right after it does not wait for the writer.  A delete
 * marks the topic DELETING and waits for the writer to remove the files:
 * once it is done, a create of the same name starts empty.  A request
 * whose deadline passes first ends with OP_TIMEOUT; the create or delete
 * itself goes on.
 *
 * The reserved names (store/topic.h: Kafka's internal topics, the lock
 * file) are never created or deleted: OP_RESERVED_TOPIC, one line logged
 * naming the peer and the API.  Creating and deleting need admin
 * permission on the topic.
 */
#ifndef FLUME_WORKER_OP_TOPICS_H
#define FLUME_WORKER_OP_TOPICS_H

#include <stddef.h>
#include <stdint.h>

#include "proto/names.h"
#include "worker/op/op.h"

/*
 * How long a create waits when its request carries no timeout (the
 * native CREATE_TOPIC): less than libflume's default request timeout
 * (30 s), so that a client sees TIMEOUT rather than giving up on the
 * connection.  A delete without a timeout waits TOPIC_DELETE_TIMEOUT_MS.
 */
#define TOPIC_CREATE_TIMEOUT_MS	25000
#define TOPIC_DELETE_TIMEOUT_MS	30000

/* ---- metadata ---- */

/* A topic name as a request gives it (not NUL-terminated). */
struct op_name {
	const char	*s;
	size_t		 len;
};

struct op_part_info {
	int32_t		 partition;
	int64_t		 log_start;
	int64_t		 log_end;	/* acknowledged end (next_offset) */
	int64_t		 size_bytes;
};

struct op_topic_info {
	enum op_err		 err;		/* OP_OK: the partitions follow */
	const char		*name;		/* shared memory or request memory */
	size_t			 name_len;
	uint8_t			 id[TOPIC_ID_LEN];	/* OP_OK: the topic's; else zero */
	int32_t			 nparts;
	struct op_part_info	*parts;
};

/*
 * names NULL: every READY topic the user may see (any of produce,
 * consume, admin), nothing created.  Else the n topics named, in order,
 * each with its own err: OP_DENIED_TOPIC (logged), OP_BAD_TOPIC_NAME,
 * OP_NO_TOPIC, ... as op_topic_resolve(); a missing one is created when
 * auto_create, auto_create_topics and the user may produce to it.
 * Results in request memory: *out, *nout.  OP_OK or OP_NO_MEMORY.
 */
enum op_err op_metadata(const struct op_ctx *x, const struct op_name *names,
	    int32_t n, int auto_create, struct op_topic_info **out,
	    int32_t *nout);

/*
 * The name of the READY topic whose id is id (TOPIC_ID_LEN bytes) into
 * *name (shared memory), *len: OP_OK, or OP_NO_TOPIC when none has it.
 * No access check: op_metadata() of the name makes it.
 */
enum op_err op_topic_find_id(const struct op_ctx *x, const uint8_t *id,
	    const char **name, size_t *len);

/* ---- create ---- */

struct op_topic_create {
	int32_t		 partitions;	/* asked (0: configured); the count */
	enum op_err	 err;		/* the outcome once OP_DONE */
	int64_t		 deadline;	/* 0: answer once created */
	int		 ti;		/* the entry waited on */
	uint32_t	 inc;		/* its partition 0's incarnation */
	uint8_t		 id[TOPIC_ID_LEN];	/* created: the new topic's id */
};

/*
 * May x create name?  OP_OK, OP_BAD_TOPIC_NAME, OP_RESERVED_TOPIC or
 * OP_DENIED_TOPIC (both logged).
 */
enum op_err op_topic_create_check(const struct op_ctx *x, const char *name,
	    size_t len);
/*
 * The partition count of a create of name asking asked (0: the
 * configured one) into *n: OP_OK, or OP_BAD_PARTITIONS when out of
 * 1..max_partitions.
 */
enum op_err op_topic_create_partitions(const struct op_ctx *x,
	    const char *name, size_t len, int32_t asked, int32_t *n);
/*
 * Create name (op_topic_create_check, op_topic_create_partitions, then
 * the shared entry) with a->partitions and a->deadline set by the
 * caller.  OP_DONE with a->err: a failure, OP_TOPIC_EXISTS (at once, as
 * Kafka does: a->partitions is the existing topic's), OP_NO_ROOM, or
 * OP_OK when no deadline was given.  OP_WAIT: created, waiting for its
 * files; call op_topic_create_poll().
 */
enum op_status op_topic_create(const struct op_ctx *x, const char *name,
	    size_t len, struct op_topic_create *a);
/*
 * OP_DONE once the files exist (a->err OP_OK), the writer failed to make
 * them (OP_STORAGE: the topic stays created and the writer retries), the
 * topic was deleted meanwhile (OP_NO_TOPIC) or the deadline passed
 * (OP_TIMEOUT); else OP_WAIT.
 */
enum op_status op_topic_create_poll(const struct op_ctx *x,
	    struct op_topic_create *a);

/* ---- delete ---- */

struct op_topic_delete {
	int64_t		 deadline;	/* set by the caller */
	int32_t		 partitions;	/* of the deleted topic */
	enum op_err	 err;		/* the outcome once OP_DONE */
	int		 ti;
	uint8_t		 id[TOPIC_ID_LEN];	/* started: the deleted topic's id */
};

/*
 * Start deleting name: OP_DONE with a->err OP_BAD_TOPIC_NAME,
 * OP_RESERVED_TOPIC, OP_DENIED_TOPIC, OP_NO_TOPIC (none of that name;
 * also while another delete of it runs) or OP_INTERNAL; OP_WAIT with
 * a->partitions and a->id set: call op_topic_delete_poll().
 */
enum op_status op_topic_delete(const struct op_ctx *x, const char *name,
	    size_t len, struct op_topic_delete *a);
/* OP_DONE once the writer removed the files (OP_OK) or at the deadline. */
enum op_status op_topic_delete_poll(const struct op_ctx *x,
	    struct op_topic_delete *a);

#endif
