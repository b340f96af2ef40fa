/*
 * The native authentication handlers: a connection sends AUTH_BEGIN
 * [user] (answered with a random 32-byte nonce) and AUTH_PROVE
 * [HMAC-SHA256(secret, nonce)], compared in constant time.  Each success
 * and failure is logged with the user's name; secrets never are.
 */
#ifndef FLUME_WORKER_NATIVE_AUTH_H
#define FLUME_WORKER_NATIVE_AUTH_H

struct worker;
struct conn;
struct req;

/* Execute AUTH_BEGIN / AUTH_PROVE; leaves r DONE with r->st the response. */
void	auth_exec(struct worker *w, struct conn *c, struct req *r);
/* Append the response of a DONE AUTH_BEGIN / AUTH_PROVE to c's output. */
void	auth_emit(struct conn *c, struct req *r);

#endif
