/*
 * Topic settings operations (issue 27), for both faces: describe a
 * topic's or the broker's settings with where each comes from, alter a
 * topic's dynamic settings (replace the set, or edit it key by key),
 * and the checks CreateTopics makes of the settings it is given.
 *
 * The model is proto/tconf.h; precedence and sources are
 * config_topic_tconf() (common/config.h).  An alteration is validated
 * whole before anything changes: one bad key and none applies
 * (OP_BAD_CONFIG, the key named in why).  It is published in shared
 * memory under dir_lock (shm/tconf.h) and the answer waits (OP_WAIT)
 * until the writer has saved it to <topic>/topic.config, so what was
 * acknowledged survives a restart; workers and the writer apply it at
 * once.  Describe needs consume or admin permission on the topic, alter
 * admin; the broker's settings are flume.conf's and cannot be altered
 * through the API.
 */
#ifndef FLUME_WORKER_OP_TCONF_H
#define FLUME_WORKER_OP_TCONF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto/names.h"
#include "proto/tconf.h"
#include "worker/op/op.h"

struct worker;

/* Kafka's IncrementalAlterConfigs operations, by their numbers. */
enum op_tconf_kind {
	OP_TCONF_SET = 0,
	OP_TCONF_DELETE = 1,
	OP_TCONF_APPEND = 2,
	OP_TCONF_SUBTRACT = 3
};

/* One key of an alteration as the request gives it (not NUL-terminated). */
struct op_tconf_edit {
	const char	*name;
	size_t		 name_len;
	const char	*value;		/* NULL: null */
	size_t		 value_len;
	int		 kind;		/* enum op_tconf_kind */
};

#define OP_TCONF_WHY	224

/* What describe answers: every key's value and source, and below it. */
struct op_tconf_view {
	struct tconf	 eff;			/* every key set */
	int8_t		 src[TC_NKEYS];		/* enum tconf_source */
	struct tconf	 below;			/* without the dynamic level */
	int8_t		 below_src[TC_NKEYS];
};

/* OP_OK, OP_BAD_TOPIC_NAME, OP_NO_TOPIC or OP_DENIED_TOPIC (logged). */
enum op_err op_tconf_describe(const struct op_ctx *x, const char *name,
	    size_t len, struct op_tconf_view *v);
/* The broker's defaults for topics (flume.conf over Kafka's): OP_OK. */
enum op_err op_tconf_describe_broker(const struct op_ctx *x,
	    struct op_tconf_view *v);

struct op_tconf_alter {
	/* set by the caller */
	const struct op_tconf_edit *edits;
	int		 n;
	int		 replace;	/* AlterConfigs: the set becomes edits */
	int		 validate_only;
	int64_t		 deadline;	/* for the writer's save */
	/* the outcome */
	enum op_err	 err;
	char		 why[OP_TCONF_WHY];	/* "" or what was wrong */
	int		 ti;
	uint32_t	 gen;
};

/*
 * Alter topic name's dynamic settings: OP_DONE with a->err (OP_OK when
 * validate_only passed, OP_BAD_CONFIG, OP_NO_TOPIC, OP_DENIED_TOPIC, ...)
 * or OP_WAIT once published: call op_tconf_alter_poll().
 */
enum op_status op_tconf_alter(const struct op_ctx *x, const char *name,
	    size_t len, struct op_tconf_alter *a);
/* OP_DONE once saved (OP_OK) or at the deadline (OP_TIMEOUT). */
enum op_status op_tconf_alter_poll(const struct op_ctx *x,
	    struct op_tconf_alter *a);

/*
 * Validate a new topic's settings (CreateTopics' configs) into *out:
 * OP_OK or OP_BAD_CONFIG with why.
 */
enum op_err op_tconf_check_new(const struct op_ctx *x,
	    const struct op_tconf_edit *e, int n, struct tconf *out,
	    char *why, size_t whylen);
/*
 * Publish t for the topic just created in entry ti (with id id); *gen
 * is what op_tconf_is_saved() waits for.  Nothing to publish (t empty):
 * *gen 0.
 */
void	op_tconf_publish_new(const struct op_ctx *x, int ti, const uint8_t *id,
	    const struct tconf *t, uint32_t *gen);
/* 1 when the writer saved generation gen of entry ti (gen 0: always). */
int	op_tconf_is_saved(struct worker *w, int ti, uint32_t gen);
/* The effective settings of the READY topic in entry ti. */
void	op_tconf_topic(struct worker *w, int ti, struct tconf *eff);

#endif
