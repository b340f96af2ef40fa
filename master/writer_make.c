/*
 * A new topic's files, made off the writer's loop (writer_make.h).
 */
#include <bsd/string.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "master/writer_make.h"
#include "store/topic.h"

struct wmake *
wmake_new(const char *data_dir, const char *name, uint32_t ti,
    int32_t partitions, const struct plog_config *cfg)
{
	struct wmake *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	if (strlcpy(m->data_dir, data_dir, sizeof(m->data_dir)) >=
	    sizeof(m->data_dir) ||
	    strlcpy(m->name, name, sizeof(m->name)) >= sizeof(m->name)) {
		free(m);
		errno = ENAMETOOLONG;
		return NULL;
	}
	m->ti = ti;
	m->partitions = partitions;
	m->cfg = *cfg;
	return m;
}

int
wmake_run(struct wmake *m)
{
	char dir[PATH_MAX];
	int32_t pi, parts;

	/* Missing or unreadable: the directory in memory is the truth. */
	if (topic_meta_load(m->data_dir, m->name, &parts, NULL) == 0)
		m->meta_parts = parts;
	else if (topic_meta_save(m->data_dir, m->name, m->partitions,
	    m->id) == -1)
		return m->meta_err = errno != 0 ? errno : EIO;
	if ((m->parts = calloc((size_t)m->partitions, sizeof(*m->parts))) ==
	    NULL)
		return m->meta_err = ENOMEM;
	for (pi = 0; pi < m->partitions; pi++) {
		struct wmake_part *p = &m->parts[pi];

		if (topic_partition_dir(dir, sizeof(dir), m->data_dir, m->name,
		    pi) == -1)
			p->err = ENAMETOOLONG;
		else if (plog_open(&p->log, dir, &m->cfg, &p->rec) == -1) {
			p->log = NULL;
			p->err = errno != 0 ? errno : EIO;
		}
	}
	return 0;
}

void
wmake_free(struct wmake *m)
{
	int32_t pi;

	if (m == NULL)
		return;
	for (pi = 0; m->parts != NULL && pi < m->partitions; pi++)
		if (m->parts[pi].log != NULL)
			plog_close(m->parts[pi].log);
	free(m->parts);
	free(m);
}

int
wmake_grow(const char *data_dir, const char *name, int32_t from, int32_t to,
    const uint8_t *id, const struct plog_config *cfg, struct plog **logs)
{
	char dir[PATH_MAX];
	struct plog_recovery rec;
	int32_t pi;
	int saved;

	for (pi = from; pi < to; pi++)
		logs[pi - from] = NULL;
	for (pi = from; pi < to; pi++) {
		if (topic_partition_dir(dir, sizeof(dir), data_dir, name,
		    pi) == -1) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		if (plog_open(&logs[pi - from], dir, cfg, &rec) == -1) {
			logs[pi - from] = NULL;
			goto fail;
		}
	}
	if (topic_meta_save(data_dir, name, to, id) == -1 ||
	    topic_dir_sync(data_dir, name) == -1)
		goto fail;
	return 0;
fail:
	saved = errno != 0 ? errno : EIO;
	for (pi = from; pi < to; pi++)
		if (logs[pi - from] != NULL) {
			plog_close(logs[pi - from]);
			logs[pi - from] = NULL;
		}
	errno = saved;
	return -1;
}
