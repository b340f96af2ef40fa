/*
 * Kafka's DeleteRecords, DeleteGroups and OffsetDelete, rows of the
 * Kafka table (worker/kafka/kafka.c), in worker/kafka/records.c.
 */
#ifndef FLUME_WORKER_KAFKA_RECORDS_H
#define FLUME_WORKER_KAFKA_RECORDS_H

struct worker;
struct conn;
struct req;

void	kafka_delete_records_exec(struct worker *w, struct conn *c,
	    struct req *r);
/* A DeleteRecords waiting for the writer: every log start moved yet? */
void	kafka_delete_records_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_delete_records_emit(struct worker *w, struct conn *c,
	    struct req *r);

void	kafka_delete_groups_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_delete_groups_emit(struct worker *w, struct conn *c,
	    struct req *r);

void	kafka_offset_delete_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_offset_delete_emit(struct worker *w, struct conn *c,
	    struct req *r);

#endif
