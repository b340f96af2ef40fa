/*
 * Kafka topic administration, rows of the Kafka table (worker/kafka/kafka.c):
 * CreateTopics and DeleteTopics in worker/kafka/admin.c.
 */
#ifndef FLUME_WORKER_KAFKA_ADMIN_H
#define FLUME_WORKER_KAFKA_ADMIN_H

struct worker;
struct conn;
struct req;

void	kafka_create_topics_exec(struct worker *w, struct conn *c,
	    struct req *r);
/* A CreateTopics waiting for the writer: every topic on disk yet? */
void	kafka_create_topics_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_create_topics_emit(struct worker *w, struct conn *c,
	    struct req *r);

void	kafka_delete_topics_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_delete_topics_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_delete_topics_emit(struct worker *w, struct conn *c,
	    struct req *r);

#endif
