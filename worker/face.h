/*
 * A listener's protocol face: what conn.c calls for the requests of a
 * connection.  The listener a client came in on picks its face at accept
 * (worker.c) and the connection keeps it for life, so conn.c knows no
 * protocol: it reads frames of the face's kind and hands each request to
 * these functions.
 *
 *   exec      run a request (state NEW or BLOCKED); leaves it DONE, WAIT
 *             or BLOCKED.
 *   poll      re-check a WAIT or BLOCKED request after a wake-up or at
 *             its deadline.
 *   emit      append the answer of a DONE request to the output.
 *   redecode  decode r->payload again after conn.c copied it from old
 *             (still readable during the call) into the arena; an
 *             answer already built that points into old is moved too.
 *             0 or -1.
 *   release   free what a request holds outside the arena.
 *   close     free what the face keeps per connection; NULL: nothing.
 */
#ifndef FLUME_WORKER_FACE_H
#define FLUME_WORKER_FACE_H

#include "proto/frame.h"

struct worker;
struct conn;
struct req;

struct face {
	const char	*name;		/* "native", "Kafka" */
	enum frame_kind	 frames;	/* how its requests are framed */
	void		(*exec)(struct worker *w, struct conn *c, struct req *r);
	void		(*poll)(struct worker *w, struct conn *c, struct req *r);
	void		(*emit)(struct worker *w, struct conn *c, struct req *r);
	int		(*redecode)(struct conn *c, struct req *r,
			    const uint8_t *old);
	void		(*release)(struct req *r);
	void		(*close)(struct conn *c);
};

#endif
