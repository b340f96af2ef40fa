/*
 * The Kafka transaction APIs of a worker (worker/kafka/txn.c): rows of
 * the Kafka listener's table (kafka.c) over worker/op/txn.h.
 */
#ifndef FLUME_WORKER_KAFKA_TXN_H
#define FLUME_WORKER_KAFKA_TXN_H

struct worker;
struct conn;
struct req;

/* InitProducerId with a transactional id (data.c hands it over). */
void	kafka_txn_init_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_txn_init_poll(struct worker *w, struct conn *c, struct req *r);

void	kafka_addparts_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_addoffs_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_endtxn_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_txnoc_exec(struct worker *w, struct conn *c, struct req *r);
/* The poll of the four above (every one waits on op_txn_poll). */
void	kafka_txn_poll(struct worker *w, struct conn *c, struct req *r);
void	kafka_desctxn_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_listtxn_exec(struct worker *w, struct conn *c, struct req *r);
/* Every row here: emit the response its exec built. */
void	kafka_txn_emit(struct worker *w, struct conn *c, struct req *r);

#endif
