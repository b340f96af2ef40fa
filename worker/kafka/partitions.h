/*
 * Kafka's CreatePartitions, a row of the Kafka table (worker/kafka/kafka.c),
 * in worker/kafka/partitions.c.
 */
#ifndef FLUME_WORKER_KAFKA_PARTITIONS_H
#define FLUME_WORKER_KAFKA_PARTITIONS_H

struct worker;
struct conn;
struct req;

void	kafka_create_partitions_exec(struct worker *w, struct conn *c,
	    struct req *r);
/* A CreatePartitions waiting for the writer: every grow published yet? */
void	kafka_create_partitions_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_create_partitions_emit(struct worker *w, struct conn *c,
	    struct req *r);

#endif
