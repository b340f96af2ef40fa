/*
 * Deleting a topic, the worker's half (shared by the native DELETE_TOPIC
 * and Kafka's DeleteTopics): check the name and the permission, mark the
 * topic DELETING in shared memory (shm/shm.h) and wake the writer, which
 * removes the files; the request then waits until the writer is done.
 *
 * The permission is admin on the topic, the same as creating it.
 */
#ifndef FLUME_WORKER_TOPIC_DELETE_H
#define FLUME_WORKER_TOPIC_DELETE_H

#include <stddef.h>
#include <stdint.h>

struct worker;
struct conn;
struct req;

#define TOPIC_DELETE_TIMEOUT_MS	30000	/* when the request gives none */

/*
 * Start deleting name[0..len) for a request of api (its name, for the
 * logs): ERR_NONE with *ti and *partitions set, or
 * ERR_INVALID_TOPIC (a bad or reserved name: see
 * topic_reserved_refuse), ERR_ACCESS_DENIED, ERR_UNKNOWN_TOPIC_OR_PARTITION
 * (none of that name; also while another delete of it runs).
 */
int16_t	topic_delete_start(struct worker *w, struct conn *c, const char *api,
	    const char *name, size_t len, int *ti, int32_t *partitions);
/* 1 when the writer has finished the delete started as entry ti. */
int	topic_delete_done(struct worker *w, int ti);

/* Native DELETE_TOPIC: exec (decodes nothing itself) and wait check. */
void	handle_delete_topic(struct worker *w, struct conn *c, struct req *r);
void	handle_delete_topic_poll(struct worker *w, struct conn *c, struct req *r);

#endif
