/*
 * The native data path (worker/native/data.c): PRODUCE, FETCH,
 * LIST_OFFSETS and INIT_PRODUCER, each a row's functions over the
 * operations of worker/op/ (produce.h, fetch.h, offsets.h, producer.h).
 */
#ifndef FLUME_WORKER_NATIVE_DATA_H
#define FLUME_WORKER_NATIVE_DATA_H

struct worker;
struct conn;
struct req;

int	native_produce_decode(struct conn *c, struct req *r);
void	native_produce_exec(struct worker *w, struct conn *c, struct req *r);
void	native_produce_poll(struct worker *w, struct conn *c, struct req *r);
void	native_produce_emit(struct worker *w, struct conn *c, struct req *r);
int	native_fetch_decode(struct conn *c, struct req *r);
void	native_fetch_exec(struct worker *w, struct conn *c, struct req *r);
void	native_fetch_poll(struct worker *w, struct conn *c, struct req *r);
void	native_fetch_emit(struct worker *w, struct conn *c, struct req *r);
void	native_fetch_release(struct req *r);
int	native_list_offsets_decode(struct conn *c, struct req *r);
void	native_list_offsets_exec(struct worker *w, struct conn *c, struct req *r);
void	native_list_offsets_emit(struct worker *w, struct conn *c, struct req *r);
/* Decodes its own request in exec. */
void	native_init_producer_exec(struct worker *w, struct conn *c, struct req *r);
void	native_init_producer_emit(struct worker *w, struct conn *c, struct req *r);

#endif
