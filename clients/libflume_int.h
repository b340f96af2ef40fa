/*
 * libflume internals shared by the library's files (not installed).
 *
 * A client keeps one non-blocking socket, an output buffer of encoded
 * frames and a FIFO of requests waiting for their response.  Each waiting
 * request has a handler, called exactly once: with the response payload,
 * or with err != 0 when the connection is lost (or times out) first.
 * Handlers run from inside client_pump() and must not pump themselves.
 */
#ifndef FLUME_CLIENTS_LIBFLUME_INT_H
#define FLUME_CLIENTS_LIBFLUME_INT_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "clients/flume.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/wire.h"

/*
 * Response handler: payload (valid only during the call) or err (an errno
 * value, payload NULL).  Returns 0, or -1 if the payload is malformed,
 * which drops the connection (EPROTO).
 */
/* Internal to the library: not exported from libflume.so. */
#pragma GCC visibility push(hidden)

typedef int client_resp_fn(struct flume_client *c, void *ctx,
	    const uint8_t *payload, size_t len, int err);

struct client_wait {
	uint32_t	 id;
	client_resp_fn	*fn;
	void		*ctx;
};

struct flume_client {
	char		*host_port;
	struct flume_client_conf conf;
	int		 fd;		/* -1 when disconnected */
	struct client_tls *tls;		/* NULL: plaintext (libflume_tls.c) */
	short		 tls_want;	/* poll event a blocked TLS call waits for */
	uint32_t	 next_id;
	int32_t		 max_frame;	/* from the handshake */
	int16_t		 proto_version;	/* both speak, from the handshake (1..) */
	char		 broker_name[64]; /* from the handshake, NUL-terminated */
	struct frame_reader rd;
	struct wbuf	 out;		/* encoded frames not yet written */
	size_t		 out_off;	/* first unwritten byte of out */
	struct client_wait *waits;	/* FIFO ring */
	size_t		 wait_head, wait_len, wait_cap;
	int		 broker_err;
	unsigned	 reconnects;
	uint64_t	 bytes_out, bytes_in;	/* socket totals, for flume-bench */
	char		 err[256];
	/* The last corrupt range met (flume_corrupt_range). */
	char		 bad_topic[256];
	int32_t		 bad_partition;
	int64_t		 bad_first, bad_next;
};

/*
 * TLS (libflume_tls.c): the context from a struct flume_tls_conf, a
 * session per connection, whose handshake client_tls_start() finishes
 * within timeout_ms.  read and write are recv(2) and send(2) (-1 EAGAIN
 * when they would block, with the event they wait for in *want).
 */
struct client_tls;
struct client_tls *client_tls_new(struct flume_client *c,
	    const struct flume_tls_conf *t);
void	client_tls_free(struct client_tls *t);
int	client_tls_start(struct flume_client *c, const char *host, int timeout_ms);
void	client_tls_stop(struct client_tls *t);
ssize_t	client_tls_read(struct client_tls *t, void *buf, size_t len, short *want);
ssize_t	client_tls_write(struct client_tls *t, const void *buf, size_t len,
	    short *want);
size_t	client_tls_pending(const struct client_tls *t);
const char *client_tls_version(const struct client_tls *t);

/* Set the client's error string (printf-style); keeps errno. */
void	client_seterr(struct flume_client *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * Record a corrupt range [first, next) of topic/partition: broker error
 * CORRUPT_MESSAGE, the error string and errno EBADMSG.
 */
void	client_corrupt(struct flume_client *c, const char *topic,
	    int32_t partition, int64_t first, int64_t next);
/* Record broker error code e: error string and errno; returns -1. */
int	client_broker_fail(struct flume_client *c, int e, const char *what);

/* Begin a request frame in c->out; returns its start for client_end(). */
size_t	client_begin(struct flume_client *c, uint16_t api, uint32_t *id);
/*
 * Finish the frame begun at start and, if fn is not NULL, wait for its
 * response.  -1 (ENOMEM) if encoding failed; the frame is dropped.
 */
int	client_end(struct flume_client *c, size_t start, uint32_t id,
	    client_resp_fn *fn, void *ctx);
/*
 * One round of I/O: write what can be written, read and dispatch whole
 * responses, waiting up to timeout_ms for the socket.  0, or -1 when the
 * connection was lost (every waiting handler got the error).
 */
int	client_pump(struct flume_client *c, int timeout_ms);
/* Close the socket and fail every waiting handler with err. */
void	client_disconnect(struct flume_client *c, int err);
/* Connected (a socket is open)? */
int	client_connected(const struct flume_client *c);
/* Reconnect with bounded attempts and backoff (no-op when connected). */
int	client_reconnect(struct flume_client *c);
/* A synchronous call's answer: client_sync_fn keeps a copy (free buf). */
struct client_sync {
	int		 done;
	int		 err;
	uint8_t		*buf;
	size_t		 len;
};

/* The client_resp_fn of a synchronous call (ctx is a struct client_sync). */
int	client_sync_fn(struct flume_client *c, void *ctx, const uint8_t *p,
	    size_t len, int err);
/*
 * Wait up to timeout_ms for the synchronous call s; on a timeout the
 * connection is dropped, since a late answer could not be matched to
 * anything any more.  0, or -1 with errno and the error string set.
 */
int	client_sync_wait_ms(struct flume_client *c, struct client_sync *s,
	    int timeout_ms);
/*
 * Send the request of api (msg is its struct, NULL for an empty one) on
 * the current connection, to be answered into s; no waiting.  0 or -1.
 */
int	client_call_send(struct flume_client *c, uint16_t api, const void *msg,
	    struct client_sync *s);
/*
 * One synchronous call: connect if needed, send, wait up to timeout_ms
 * for the answer in s (free s->buf).  With resend (idempotent calls only)
 * the request goes once more after a lost connection.  0, or -1 with
 * errno and the error string set.
 */
int	client_call(struct flume_client *c, uint16_t api, const void *msg,
	    int timeout_ms, int resend, struct client_sync *s);
/* Bytes encoded but not yet written. */
size_t	client_unsent(const struct flume_client *c);
/*
 * Whether c->out may take bytes by reference (wbuf_bytes_ref): on a
 * plaintext connection, sent with sendmsg; TLS encrypts from one copy.
 */
int	client_can_ref(const struct flume_client *c);
/* Requests waiting for a response. */
size_t	client_waiting(const struct flume_client *c);

/*
 * Offsets of n (topic, partition, which) entries in one LIST_OFFSETS
 * request into results[0..n); any per-entry error fails the call.
 */
int	client_list_offsets(struct flume_client *c,
	    const struct list_offsets_part *parts, int32_t n, int64_t *results);

/* Monotonic milliseconds. */
int64_t	client_now_ms(void);

/*
 * The next message k already holds, without fetching or reading the
 * clock (libflume_consumer.c): 1 with *m, 0 when nothing is buffered,
 * -1 on a corrupt batch, as flume_consumer_poll().
 */
int	consumer_next_buffered(struct flume_consumer *k, struct flume_message *m);

/*
 * Prove c->conf.secret_file's user:secret to the broker (libflume_auth.c);
 * 0 (also when there is no secret file or the broker has no
 * authentication), or -1 with errno and c->err set.
 */
int	client_authenticate(struct flume_client *c);
/*
 * Read `user:secret` (the first line) from path: user NUL-terminated,
 * secret with its length in *secretlen (in: the room).  0 or -1 (errno;
 * EINVAL when malformed).
 */
int	client_secret_read(const char *path, char *user, size_t userlen,
	    uint8_t *secret, size_t *secretlen);

#pragma GCC visibility pop

#endif
