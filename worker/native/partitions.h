/*
 * The native CREATE_PARTITIONS, a row of the native table
 * (worker/native/native.c), in worker/native/partitions.c.
 */
#ifndef FLUME_WORKER_NATIVE_PARTITIONS_H
#define FLUME_WORKER_NATIVE_PARTITIONS_H

struct worker;
struct conn;
struct req;

int	native_partitions_decode(struct conn *c, struct req *r);
void	native_partitions_exec(struct worker *w, struct conn *c, struct req *r);
void	native_partitions_poll(struct worker *w, struct conn *c, struct req *r);
void	native_partitions_emit(struct worker *w, struct conn *c, struct req *r);

#endif
