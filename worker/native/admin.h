/*
 * The native session and topic administration rows of the native table
 * (worker/native/native.c), in worker/native/admin.c: HANDSHAKE (the
 * native protocol's own), METADATA, CREATE_TOPIC, DELETE_TOPIC and
 * WORKERS over the topic and broker operations (worker/op/topics.h,
 * worker/op/broker.h).  Each exec leaves r DONE (its answer in r->st, or
 * r->error) or WAIT, and its poll finishes a WAIT.
 */
#ifndef FLUME_WORKER_NATIVE_ADMIN_H
#define FLUME_WORKER_NATIVE_ADMIN_H

struct worker;
struct conn;
struct req;

void	native_handshake_exec(struct worker *w, struct conn *c, struct req *r);
void	native_metadata_exec(struct worker *w, struct conn *c, struct req *r);
void	native_metadata_emit(struct worker *w, struct conn *c, struct req *r);
void	native_create_topic_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	native_create_topic_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	native_delete_topic_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	native_delete_topic_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	native_workers_exec(struct worker *w, struct conn *c, struct req *r);

#endif
