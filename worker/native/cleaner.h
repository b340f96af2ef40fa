/*
 * The native CLEANER request (issue 28): the cleaner's figures for
 * flume-admin cleaner (worker/op/cleaner.h).
 */
#ifndef FLUME_WORKER_NATIVE_CLEANER_H
#define FLUME_WORKER_NATIVE_CLEANER_H

struct worker;
struct conn;
struct req;

void	native_cleaner_exec(struct worker *w, struct conn *c, struct req *r);
void	native_cleaner_emit(struct worker *w, struct conn *c, struct req *r);

#endif
