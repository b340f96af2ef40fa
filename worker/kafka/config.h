/*
 * Kafka's settings APIs, rows of the Kafka table (worker/kafka/kafka.c):
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs in
 * worker/kafka/config.c.
 */
#ifndef FLUME_WORKER_KAFKA_CONFIG_H
#define FLUME_WORKER_KAFKA_CONFIG_H

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

struct worker;
struct conn;
struct req;

void	kafka_describe_configs_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_describe_configs_emit(struct worker *w, struct conn *c,
	    struct req *r);
/* AlterConfigs and IncrementalAlterConfigs share exec, poll and emit. */
void	kafka_alter_configs_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_alter_configs_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_alter_configs_emit(struct worker *w, struct conn *c,
	    struct req *r);
#endif
