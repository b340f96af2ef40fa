/*
 * Topic and partition lookup for the operations (worker/op/part.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "proto/names.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/op/part.h"
#include "worker/worker.h"

enum op_err
op_topic_resolve(struct worker *w, const char *name, size_t len, int create,
    int *tidx)
{
	char buf[TOPIC_NAME_MAX + 1];
	int32_t n;
	int idx;

	if (len > TOPIC_NAME_MAX || !topic_name_valid(name, len))
		return OP_BAD_TOPIC_NAME;
	if ((idx = shm_topic_find(w->shm, name, len)) >= 0) {
		*tidx = idx;
		return OP_OK;
	}
	if (!create || !w->conf->auto_create_topics ||
	    topic_name_reserved(name, len))
		return OP_NO_TOPIC;
	memcpy(buf, name, len);
	buf[len] = '\0';
	n = config_topic_partitions(w->conf, buf);
	if (n < 1 || (uint32_t)n > w->conf->max_partitions)
		return OP_BAD_PARTITIONS;
	if (shm_topic_create(w->shm, name, len, n, &idx) == -1 &&
	    errno != EEXIST) {
		if (errno == ENOSPC)
			return OP_NO_ROOM;
		log_warn("auto-create topic %s", buf);
		return OP_INTERNAL;
	}
	if (idx < 0)
		idx = shm_topic_find(w->shm, name, len);
	if (idx < 0)
		return OP_INTERNAL;
	log_info("created topic %s with %d partitions", buf, (int)n);
	worker_wake_writer(w, 1);
	*tidx = idx;
	return OP_OK;
}

enum op_err
op_part_resolve(struct worker *w, const char *name, size_t len,
    int32_t partition, int create, struct shm_partition **pp)
{
	enum op_err err;
	int idx = -1;

	if ((err = op_topic_resolve(w, name, len, create, &idx)) != OP_OK)
		return err;
	if (partition < 0 || partition >= w->shm->topics[idx].partitions)
		return OP_NO_TOPIC;
	if ((*pp = shm_partition(w->shm, idx, partition)) == NULL)
		return OP_NO_TOPIC;
	return OP_OK;
}

enum op_err
op_part_incarnation(struct worker *w, struct shm_partition *p, uint32_t *inc)
{
	*inc = atomic_load_explicit(&p->incarnation, memory_order_acquire);
	if (p->topic >= w->shm->hdr->limits.max_topics ||
	    atomic_load_explicit(&w->shm->topics[p->topic].state,
	    memory_order_acquire) != TOPIC_READY ||
	    atomic_load_explicit(&p->dead, memory_order_acquire) != 0)
		return OP_NO_TOPIC;
	return OP_OK;
}

int
op_part_gone(const struct shm_partition *p, uint32_t inc)
{
	return atomic_load_explicit(&p->incarnation, memory_order_acquire) != inc;
}

int64_t
op_part_end(struct shm_partition *p)
{
	return __atomic_load_n(&p->next_offset, __ATOMIC_ACQUIRE);
}

int
op_part_internal(const struct op_ctx *x, const char *what, const char *done,
    const char *name, size_t len)
{
	if (!topic_name_reserved(name, len))
		return 0;
	log_warnx("%s: %s: %s of %.*s not %s: an internal topic", x->peer,
	    x->api != NULL ? x->api : "?", what, (int)len, name, done);
	return 1;
}
