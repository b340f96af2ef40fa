/*
 * The read-only cluster and log APIs, rows of the Kafka table
 * (worker/kafka/kafka.c), in worker/kafka/describe.c: each exec builds
 * its answer, kafka_group_emit sends it.
 */
#ifndef FLUME_WORKER_KAFKA_DESCRIBE_H
#define FLUME_WORKER_KAFKA_DESCRIBE_H

struct worker;
struct conn;
struct req;

void	kafka_describe_cluster_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_describe_log_dirs_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_ofle_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_list_reassign_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_describe_producers_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_describe_topic_parts_exec(struct worker *w, struct conn *c,
	    struct req *r);

#endif
