/*
 * Kafka's consumer group protocol (KIP-848) in a worker, rows of the
 * Kafka table (worker/kafka/kafka.c): ConsumerGroupHeartbeat v0-1 and
 * ConsumerGroupDescribe v0-1 over shm/cgroup.h.  Their answer is k->kst
 * (kafka_group_emit()).
 */
#ifndef FLUME_WORKER_KAFKA_CGROUP_H
#define FLUME_WORKER_KAFKA_CGROUP_H

struct worker;
struct conn;
struct req;

void	kafka_cghb_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_cgd_exec(struct worker *w, struct conn *c, struct req *r);

#endif
