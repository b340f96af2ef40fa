/*
 * The native protocol's dispatch (worker/native/native.c): every request of a
 * native connection goes through native_exec() once (again after a
 * BLOCKED state), may then wait (native_poll() re-checks it after every
 * wake-up and at its deadline) and is answered by native_emit() when it
 * reaches the head of its connection's queue.  What each API key does is
 * one row of the table in worker/native/native.c.
 */
#ifndef FLUME_WORKER_NATIVE_H
#define FLUME_WORKER_NATIVE_H

#include <stdint.h>

#include "worker/op/op.h"

struct worker;
struct conn;
struct req;
struct face;

/* The native listener's face (face.h): the functions below. */
extern const struct face native_face;

void	native_exec(struct worker *w, struct conn *c, struct req *r);
void	native_poll(struct worker *w, struct conn *c, struct req *r);
void	native_emit(struct worker *w, struct conn *c, struct req *r);
/* The payload moved (detached); decode it again from r->payload. 0 or -1. */
int	native_redecode(struct conn *c, struct req *r,
	    const uint8_t *old);
/* Free what r holds outside the arena (file descriptors). */
void	native_release(struct req *r);


#endif
