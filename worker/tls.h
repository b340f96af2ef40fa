/*
 * A connection's TLS layer (OpenSSL) for the worker: the handshake run
 * inside the event loop and the read, write and sendfile calls conn.c
 * makes instead of read(2), writev(2) and sendfile(2) when the client
 * came in on listen_tls or kafka_listen_tls.  Every call is non-blocking;
 * one that would block returns -1 with errno EAGAIN and tls_events()
 * says which socket event (EPOLLIN, EPOLLOUT) it waits for, which may
 * not be the obvious one (a read may need to write and the other way
 * round).  A TLS failure is logged here, once, and returned as EPROTO.
 */
#ifndef FLUME_WORKER_TLS_H
#define FLUME_WORKER_TLS_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"

struct tls;

/* This worker's context from the configuration: 0, or -1 (logged). */
int	 tls_init(const struct config *c);
/* SIGHUP: read the certificates again for new connections; keeps the old on error. */
void	 tls_reload(const struct config *c);
void	 tls_fini(void);
/* A TLS session for an accepted socket (the server side); NULL on failure. */
struct tls *tls_new(int fd, const char *peer);
void	 tls_free(struct tls *t);
/* Advance the handshake: 1 done, 0 not yet (see tls_events), -1 failed. */
int	 tls_handshake(struct tls *t);
int	 tls_handshake_done(const struct tls *t);
/* The events the last call that could not finish waits for (0 none). */
uint32_t tls_events(const struct tls *t);
/* As read(2), write(2): > 0 bytes, 0 end of stream (read), -1 errno. */
ssize_t	 tls_read(struct tls *t, void *buf, size_t len);
ssize_t	 tls_write(struct tls *t, const void *buf, size_t len);
/* Up to len bytes of file fd at pos: kernel TLS when on, else read + encrypt. */
ssize_t	 tls_sendfile(struct tls *t, int fd, off_t pos, size_t len);
/* Decrypted bytes OpenSSL holds that no socket event will announce. */
size_t	 tls_pending(const struct tls *t);
/* The verified client certificate's common name, or "" without one. */
const char *tls_peer_cn(const struct tls *t);

#endif
