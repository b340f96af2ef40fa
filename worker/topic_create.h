/*
 * Waiting for a created topic to reach the disk (shared by the native
 * CREATE_TOPIC and Kafka's CreateTopics).  shm_topic_create publishes
 * the topic at once; the writer then makes its directory, topic.meta
 * and every partition's log, syncs the directories and sets the
 * entry's opened flag (shm/shm.h), waking the parked request.  A create
 * is answered only then, so the topic it acknowledges survives a power
 * loss and a produce right after it does not wait for the writer.
 */
#ifndef FLUME_WORKER_TOPIC_CREATE_H
#define FLUME_WORKER_TOPIC_CREATE_H

#include <stddef.h>
#include <stdint.h>

struct worker;
struct conn;
struct req;

/*
 * How long a native CREATE_TOPIC (which carries no timeout) waits: less
 * than libflume's default request timeout (30 s), so that a client sees
 * TIMEOUT rather than giving up on the connection.
 */
#define TOPIC_CREATE_TIMEOUT_MS	25000

/* Sentinel of topic_create_check: keep waiting. */
#define TOPIC_CREATE_WAIT	(-1)

/*
 * Where topic entry ti, created with partition 0's incarnation inc, is:
 * ERR_NONE once its files exist, ERR_STORAGE when the writer failed to
 * make them (the topic stays created and the writer retries),
 * ERR_UNKNOWN_TOPIC_OR_PARTITION when it was deleted meanwhile, else
 * TOPIC_CREATE_WAIT.
 */
int16_t	topic_create_check(struct worker *w, int ti, uint32_t inc);
/* Partition 0's incarnation of entry ti, for topic_create_check. */
uint32_t topic_create_incarnation(struct worker *w, int ti);

/*
 * A create or delete (what) of a reserved name (store/topic.h: Kafka's
 * internal topics, the lock file) is refused: ERR_INVALID_TOPIC, one
 * line logged naming the peer; ERR_NONE for any other name.  Both
 * protocols and both operations go through here.
 */
int16_t	topic_reserved_refuse(struct conn *c, const char *what,
	    const char *name, size_t len);

/* Native CREATE_TOPIC: exec (decodes nothing itself) and wait check. */
void	handle_create_topic(struct worker *w, struct conn *c, struct req *r);
void	handle_create_topic_poll(struct worker *w, struct conn *c, struct req *r);

#endif
