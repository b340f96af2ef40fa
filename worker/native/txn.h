/*
 * The native TRANSACTIONS request (issue 29): the transaction
 * coordinator's table for flume-admin transactions (worker/op/txn.h).
 */
#ifndef FLUME_WORKER_NATIVE_TXN_H
#define FLUME_WORKER_NATIVE_TXN_H

struct worker;
struct conn;
struct req;

void	native_txn_exec(struct worker *w, struct conn *c, struct req *r);
void	native_txn_emit(struct worker *w, struct conn *c, struct req *r);

#endif
