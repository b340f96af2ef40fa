/*
 * The per-partition reader cache of a worker (worker/op/reader.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "shm/shm.h"
#include "store/plog.h"
#include "store/topic.h"
#include "worker/op/reader.h"
#include "worker/worker.h"

int
op_reader_init(struct worker *w)
{
	w->nreaders = w->shm->hdr->limits.max_partitions;
	w->readers = calloc(w->nreaders ? w->nreaders : 1, sizeof(*w->readers));
	w->reader_inc = calloc(w->nreaders ? w->nreaders : 1,
	    sizeof(*w->reader_inc));
	return w->readers == NULL || w->reader_inc == NULL ? -1 : 0;
}

void
op_reader_fini(struct worker *w)
{
	uint32_t i;

	for (i = 0; i < w->nreaders; i++)
		if (w->readers != NULL && w->readers[i] != NULL)
			plog_reader_close(w->readers[i]);
	free(w->readers);
	free(w->reader_inc);
	w->readers = NULL;
	w->reader_inc = NULL;
	w->nreaders = 0;
}

struct plog_reader *
op_reader(struct worker *w, struct shm_partition *p)
{
	char dir[PATH_MAX], name[TOPIC_NAME_MAX + 1];
	const struct shm_topic *t;
	size_t slot = (size_t)(p - w->shm->parts);
	uint32_t inc;

	if (slot >= w->nreaders) {
		errno = EINVAL;
		return NULL;
	}
	inc = atomic_load_explicit(&p->incarnation, memory_order_acquire);
	if (w->readers[slot] != NULL && w->reader_inc[slot] == inc)
		return w->readers[slot];
	/* Opened on a deleted topic's files: never read them again. */
	if (w->readers[slot] != NULL) {
		plog_reader_close(w->readers[slot]);
		w->readers[slot] = NULL;
	}
	w->reader_inc[slot] = inc;
	t = &w->shm->topics[p->topic];
	if (t->name_len > TOPIC_NAME_MAX) {
		errno = EINVAL;
		return NULL;
	}
	memcpy(name, t->name, t->name_len);
	name[t->name_len] = '\0';
	if (topic_partition_dir(dir, sizeof(dir), w->conf->data_dir, name,
	    p->partition) == -1) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (plog_reader_open(&w->readers[slot], dir) == -1) {
		w->readers[slot] = NULL;
		return NULL;
	}
	/* A consumer far behind the end reads with drop-behind. */
	if (w->conf->cache_window_bytes > 0)
		plog_reader_set_cache_window(w->readers[slot],
		    (uint64_t)w->conf->cache_window_bytes);
	return w->readers[slot];
}
