/*
 * One client connection of a worker: the frame reader for its input, the
 * ordered queue of requests it has sent and not yet been answered for,
 * and the queue of output chunks (memory or a range of a segment file,
 * the latter sent with sendfile(2)).
 *
 * Requests are executed in arrival order; one that must wait for ring
 * space (BLOCKED) holds back the execution of every later one, so a
 * connection's produces reach the log in the order they were sent.  One
 * that was executed and waits for a condition (WAIT: a long-poll fetch,
 * an acks=all produce) lets later ones run.  Responses always leave in
 * request order.
 */
#ifndef FLUME_WORKER_CONN_H
#define FLUME_WORKER_CONN_H

#include <sys/queue.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/frame.h"
#include "proto/wire.h"
#include "worker/access.h"
#include "worker/op/op.h"
#include "worker/worker.h"

/*
 * Requests queued per connection (max_inflight_per_connection), output
 * and arena bytes held (max_buffered_bytes) come from flume.conf.
 */

enum req_state {
	REQ_NEW = 0,		/* not executed yet */
	REQ_BLOCKED,		/* must be executed again (ring full) */
	REQ_WAIT,		/* executed; waits for data, durability or a deadline */
	REQ_DONE		/* answer ready */
};

struct req {
	uint16_t	 api;
	uint32_t	 id;
	const char	*name;		/* the API as its face names it, for logs */
	const uint8_t	*payload;	/* in the frame reader until detached */
	size_t		 payload_len;
	uint8_t		 state;		/* enum req_state */
	uint8_t		 detached;	/* payload copied into the arena */
	uint8_t		 noresp;	/* acks=0: send nothing */
	int16_t		 error;		/* whole-request error, answered alone */
	int64_t		 deadline;	/* for BLOCKED / WAIT */
	void		*dec;		/* decoded request, in the arena */
	void		*st;		/* handler state, in the arena */
};

/* Output chunk: fd -1 = bytes [pos, pos+len) of c->out, else a file range. */
struct chunk {
	int		 fd;
	off_t		 pos;
	size_t		 len;
};

struct conn {
	TAILQ_ENTRY(conn)	 entry;
	TAILQ_ENTRY(conn)	 busy_entry;
	int			 in_busy;
	struct worker		*w;
	int			 fd;
	char			 peer[64];
	uint32_t		 events;	/* registered with epoll */
	struct frame_reader	 rd;
	struct arena		 arena;
	size_t			 arena_bytes;	/* handed out since the last reset */
	struct req		*q;		/* ring of requests */
	uint32_t		 qcap, qhead, nreq;
	uint32_t		 exec;		/* requests [0, exec) were executed */
	struct wbuf		 out;
	size_t			 out_committed;	/* out bytes already in chunks */
	struct chunk		*chunks;
	size_t			 nchunks, chead, chcap;
	uint64_t		 out_pending;	/* bytes queued, memory and file */
	int			 out_full;	/* reading paused until output drains */
	int			 eof;		/* peer closed its side */
	int			 dead;		/* close as soon as possible */
	int64_t			 last_active;
	int64_t			 partial_since;	/* a partial frame arrived; 0 = none */
	int64_t			 opened;	/* accepted at (for handshake_timeout_ms) */
	int			 handshaken;	/* a HANDSHAKE was answered without error */
	int16_t			 proto_version;	/* native: the version both speak (0: 1) */
	int			 useful;	/* took a request past the session's setup */
	uint64_t		 ip_key;	/* per-address count held (shm/ipcount.h); 0 none */
	uint64_t		 addr_key;	/* the peer's address, for partial_frame_memory_per_ip */
	size_t			 rd_held;	/* charged to partial_frame_memory (limits.h) */
	size_t			 rd_want;	/* paused: the reader size it waits for */
	int			 rd_paused;	/* not read until rd_want fits (on w->paused) */
	TAILQ_ENTRY(conn)	 pause_entry;
	struct auth_session	 auth;		/* who this client proved to be */
	const struct face	*face;		/* its listener's protocol (face.h) */
	struct tls		*tls;		/* came in on a TLS listener; NULL plaintext */
	struct kafka_sasl	*sasl;		/* a Kafka SASL exchange (worker/kafka/sasl.c) */
	TAILQ_ENTRY(conn)	 ready_entry;	/* on w->ready: TLS input buffered */
	int			 in_ready;
	int			 ct_idx;	/* its entry in shm/conntab.h; -1 none */
};

/* Take an accepted socket; NULL (socket closed) on failure. */
struct conn *conn_new(struct worker *w, int fd, const char *peer,
	    const struct face *face);
void	conn_close(struct conn *c);
/* Speak TLS on c (a TLS listener's); -1 (c closed) on failure. */
int	conn_tls_start(struct conn *c);
/* Socket events from epoll. */
void	conn_on_event(struct conn *c, uint32_t events);
/*
 * Parse, execute, answer and flush as far as possible, then update the
 * epoll registration; closes the connection (freeing c) when it is done
 * for.  Returns -1 if c was closed.
 */
int	conn_run(struct conn *c);
/* Deadline of the nearest idle / partial-frame timeout; closes expired ones. */
int	conn_check_timeouts(struct conn *c, int64_t now, int64_t *deadline);
/* Re-check this connection's waiting requests; nearest deadline out. */
int	conn_poll_parked(struct conn *c, int64_t now, int64_t *deadline, int *parked);

/* For handlers: arena memory (NULL when over the limit). */
void	*conn_alloc(struct conn *c, size_t size);
/* The context of r's operations (worker/op/op.h); r NULL: no API name. */
void	conn_op_ctx(struct conn *c, const struct req *r, struct op_ctx *x);
/* For handlers: bytes appended to c->out become the next chunk. */
void	conn_out_commit(struct conn *c);
/* For handlers: queue a file range; takes ownership of fd. */
int	conn_out_file(struct conn *c, int fd, off_t pos, size_t len);

#endif
