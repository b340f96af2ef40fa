/*
 * Worker connections: non-blocking sockets read into a frame reader,
 * pipelined requests queued in arrival order, responses written in the
 * same order with writev(2) for memory and sendfile(2) for log bytes.
 *
 * Frames handed out by the reader stay where they are until the next
 * frame_reader_space() call, so a request is decoded straight from the
 * reader's buffer; only requests still queued when the socket is read
 * again are copied ("detached") into the connection's arena.  The arena
 * is reset whenever the queue empties, which is the usual state after
 * every read, so steady-state request handling allocates nothing.
 *
 * Reading stops (EPOLLIN dropped) while max_inflight_per_connection
 * requests are queued, while more than max_buffered_bytes of output wait
 * (until all of it is sent; finished answers wait in the queue meanwhile)
 * or while the arena holds more than max_buffered_bytes, so one client
 * can neither exhaust memory nor starve the others: a connection holds
 * at most about max_request_bytes of input, its arena and its output.
 * It also stops while the request to execute next is blocked (ring
 * full): nothing behind it can run, and reading on would only copy it
 * into the arena (a whole large batch, into fresh pages, each time the
 * writer falls behind); the socket buffer holds what follows instead.
 *
 * The frame reader grows as a frame's bytes arrive, and a connection
 * holding an incomplete frame is charged its reader's memory against
 * partial_frame_memory and the per-address share (limits.h): one whose
 * reader would grow past them is not read (rd_paused) until others free
 * memory, and is closed by request_timeout_ms if that takes too long.
 * Frames that fit the reader as it is are never held back, so slow
 * senders of large frames cannot stall anyone's small requests.
 */
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <bsd/string.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "shm/conntab.h"
#include "worker/conn.h"
#include "worker/face.h"
#include "worker/limits.h"
#include "worker/lograte.h"
#include "worker/tls.h"
#include "worker/worker.h"

#define CONN_READ_ROUNDS	16	/* socket reads per turn, for fairness */
#define CONN_IOV		32
#define CONN_SENDFILE_MAX	(1u << 30)
#define CONN_OUT_KEEP		(1u << 20)	/* output buffer kept between bursts */
#define CONN_ARENA_KEEP		(1u << 20)	/* arena kept between bursts */

static inline struct req *
conn_req(struct conn *c, uint32_t i)
{
	return &c->q[(c->qhead + i) % c->qcap];
}

/*
 * How long a TLS handshake may take: request_timeout_ms, as for a frame
 * that stalls halfway, or handshake_timeout_ms when that is shorter.
 */
static int64_t
conn_tls_timeout(const struct config *conf)
{
	if (conf->handshake_timeout_ms > 0 &&
	    conf->handshake_timeout_ms < conf->request_timeout_ms)
		return conf->handshake_timeout_ms;
	return conf->request_timeout_ms;
}

static size_t
conn_arena_limit(const struct conn *c)
{
	size_t max = c->w->conf->max_request_bytes;

	/* A decoded request takes a few times its payload at most. */
	return c->w->conf->max_buffered_bytes + 8 * max + 2 * max;
}

/*
 * Read again, in the order they were paused, the connections whose
 * reader now fits partial_frame_memory: as if their socket had said so
 * (w->ready), as many as the memory freed allows.
 */
static void
conn_partial_wake(struct worker *w)
{
	struct conn *c, *next;
	uint64_t reserved = 0;

	for (c = TAILQ_FIRST(&w->paused); c != NULL; c = next) {
		next = TAILQ_NEXT(c, pause_entry);
		if (!limits_partial_fits(w, c->addr_key, c->rd_held, c->rd_want,
		    reserved))
			continue;
		reserved += c->rd_want - c->rd_held;
		TAILQ_REMOVE(&w->paused, c, pause_entry);
		c->rd_paused = 0;
		if (!c->in_ready) {
			TAILQ_INSERT_TAIL(&w->ready, c, ready_entry);
			c->in_ready = 1;
		}
	}
}

/*
 * Charge c what its reader holds for incomplete frames; memory freed
 * may let paused connections read again.
 */
static void
conn_rd_account(struct conn *c)
{
	size_t now = frame_reader_pending(&c->rd) > 0 ? c->rd.cap : 0;
	size_t held = c->rd_held;

	if (now == held)
		return;
	limits_partial_charge(c->w, held, now);
	c->rd_held = now;
	if (now < held && !TAILQ_EMPTY(&c->w->paused))
		conn_partial_wake(c->w);
}

/*
 * May c's reader grow as it wants to for the next read?  If not, c is
 * not read (rd_paused) until conn_partial_wake() finds the room.
 */
static int
conn_rd_may_grow(struct conn *c)
{
	size_t want = frame_reader_want(&c->rd);

	if (limits_partial_fits(c->w, c->addr_key, c->rd_held, want, 0))
		return 1;
	c->rd_paused = 1;
	c->rd_want = want;
	TAILQ_INSERT_TAIL(&c->w->paused, c, pause_entry);
	atomic_fetch_add_explicit(&c->w->me->partial_pauses, 1,
	    memory_order_relaxed);
	log_debug("%s: %zu bytes of a frame in, paused for "
	    "partial_frame_memory", c->peer, frame_reader_pending(&c->rd));
	return 0;
}

struct conn *
conn_new(struct worker *w, int fd, const char *peer, const struct face *face)
{
	struct conn *c;
	struct epoll_event ev;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		log_warn("%s: connection", peer);
		close(fd);
		return NULL;
	}
	c->w = w;
	c->fd = fd;
	strlcpy(c->peer, peer, sizeof(c->peer));
	c->face = face;
	frame_reader_init(&c->rd, face->frames, w->conf->max_request_bytes);
	auth_conn_init(c);
	arena_init(&c->arena, conn_arena_limit(c));
	wbuf_init(&c->out);
	c->qcap = 8;
	if ((c->q = calloc(c->qcap, sizeof(*c->q))) == NULL) {
		log_warn("%s: connection", peer);
		free(c);
		close(fd);
		return NULL;
	}
	c->events = EPOLLIN;
	memset(&ev, 0, sizeof(ev));
	ev.events = c->events;
	ev.data.ptr = c;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) == -1) {
		log_warn("%s: epoll_ctl", peer);
		free(c->q);
		free(c);
		close(fd);
		return NULL;
	}
	c->last_active = w->now;
	c->opened = w->now;
	/* Listed for flume-admin connections (not listed if the table is full). */
	c->ct_idx = conntab_take(w->shm, worker_slot(w), face->frames ==
	    FRAME_KAFKA ? CONNTAB_KAFKA : CONNTAB_NATIVE, 0, peer, clock_real_ms());
	TAILQ_INSERT_TAIL(&w->conns, c, entry);
	w->nconns++;
	atomic_fetch_add_explicit(&w->me->connections, 1, memory_order_relaxed);
	if (w->conf->idle_timeout_ms > 0)
		worker_sweep_before(w, w->now + w->conf->idle_timeout_ms);
	if (w->conf->handshake_timeout_ms > 0)
		worker_sweep_before(w, w->now + w->conf->handshake_timeout_ms);
	return c;
}

void
conn_close(struct conn *c)
{
	struct worker *w = c->w;
	uint32_t i;
	size_t j;

	for (i = 0; i < c->nreq; i++)
		c->face->release(conn_req(c, i));
	for (j = c->chead; j < c->nchunks; j++)
		if (c->chunks[j].fd >= 0)
			close(c->chunks[j].fd);
	if (c->in_busy)
		TAILQ_REMOVE(&w->busy, c, busy_entry);
	if (c->in_ready)
		TAILQ_REMOVE(&w->ready, c, ready_entry);
	if (c->rd_paused)
		TAILQ_REMOVE(&w->paused, c, pause_entry);
	tls_free(c->tls);
	if (c->face->close != NULL)
		c->face->close(c);
	TAILQ_REMOVE(&w->conns, c, entry);
	conntab_release(w->shm, worker_slot(w), c->ct_idx);
	w->nconns--;
	atomic_fetch_sub_explicit(&w->me->connections, 1, memory_order_relaxed);
	limits_ip_release(w, c->ip_key);
	if (c->rd_held > 0) {
		limits_partial_charge(w, c->rd_held, 0);
		conn_partial_wake(w);
	}
	close(c->fd);	/* also drops it from the epoll set */
	frame_reader_free(&c->rd);
	arena_free(&c->arena);
	wbuf_free(&c->out);
	free(c->chunks);
	free(c->q);
	free(c);
}

int
conn_tls_start(struct conn *c)
{
	if ((c->tls = tls_new(c->fd, c->peer)) == NULL) {
		log_warnx("%s: cannot start TLS, closing", c->peer);
		conn_close(c);
		return -1;
	}
	conntab_set_tls(c->w->shm, worker_slot(c->w), c->ct_idx);
	worker_sweep_before(c->w, c->w->now + conn_tls_timeout(c->w->conf));
	return 0;
}

void *
conn_alloc(struct conn *c, size_t size)
{
	void *p;

	if ((p = arena_alloc(&c->arena, size)) != NULL)
		c->arena_bytes += (size + 7) & ~(size_t)7;
	return p;
}

static void *
conn_alloc_for_op(void *arg, size_t size)
{
	return conn_alloc(arg, size);
}

void
conn_op_ctx(struct conn *c, const struct req *r, struct op_ctx *x)
{
	x->w = c->w;
	x->auth = &c->auth;
	x->peer = c->peer;
	x->api = r != NULL ? r->name : NULL;
	x->alloc = conn_alloc_for_op;
	x->alloc_arg = c;
}

/* Forget the arena's contents; give back memory a burst left behind. */
static void
conn_arena_reset(struct conn *c)
{
	if (c->arena_bytes > CONN_ARENA_KEEP) {
		arena_free(&c->arena);
		arena_init(&c->arena, conn_arena_limit(c));
	} else
		arena_reset(&c->arena);
	c->arena_bytes = 0;
}

static int
conn_chunk_push(struct conn *c, int fd, off_t pos, size_t len)
{
	struct chunk *nc;
	size_t ncap;

	if (c->nchunks == c->chcap) {
		ncap = c->chcap ? c->chcap * 2 : 16;
		if ((nc = reallocarray(c->chunks, ncap, sizeof(*nc))) == NULL)
			return -1;
		c->chunks = nc;
		c->chcap = ncap;
	}
	c->chunks[c->nchunks].fd = fd;
	c->chunks[c->nchunks].pos = pos;
	c->chunks[c->nchunks].len = len;
	c->nchunks++;
	c->out_pending += len;
	if (c->out_pending > c->w->conf->max_buffered_bytes)
		c->out_full = 1;
	return 0;
}

void
conn_out_commit(struct conn *c)
{
	struct chunk *last;
	size_t n;

	if (c->out.err) {
		c->dead = 1;
		return;
	}
	if ((n = c->out.len - c->out_committed) == 0)
		return;
	last = c->nchunks > c->chead ? &c->chunks[c->nchunks - 1] : NULL;
	if (last != NULL && last->fd < 0 &&
	    (size_t)last->pos + last->len == c->out_committed) {
		last->len += n;
		c->out_pending += n;
		if (c->out_pending > c->w->conf->max_buffered_bytes)
			c->out_full = 1;
	} else if (conn_chunk_push(c, -1, (off_t)c->out_committed, n) == -1)
		c->dead = 1;
	c->out_committed = c->out.len;
}

int
conn_out_file(struct conn *c, int fd, off_t pos, size_t len)
{
	conn_out_commit(c);
	if (c->dead || conn_chunk_push(c, fd, pos, len) == -1) {
		close(fd);
		c->dead = 1;
		return -1;
	}
	return 0;
}

/* Send what can be sent now; marks the connection dead on a socket error. */
static void
conn_flush(struct conn *c)
{
	struct worker *w = c->w;
	struct iovec iov[CONN_IOV];
	struct chunk *ch;
	ssize_t n;
	off_t pos;
	size_t k, j;
	int niov;

	conn_out_commit(c);
	if (c->tls != NULL && !tls_handshake_done(c->tls))
		return;
	while (!c->dead && c->chead < c->nchunks) {
		ch = &c->chunks[c->chead];
		if (c->tls != NULL) {
			/* One record source at a time; kTLS or not is tls.c's. */
			if (ch->fd < 0)
				n = tls_write(c->tls, c->out.buf + ch->pos,
				    ch->len);
			else {
				k = ch->len < CONN_SENDFILE_MAX ? ch->len :
				    CONN_SENDFILE_MAX;
				if ((n = tls_sendfile(c->tls, ch->fd, ch->pos,
				    k)) == 0) {
					log_warnx("%s: segment ended early, "
					    "closing", c->peer);
					c->dead = 1;
					return;
				}
			}
		} else if (ch->fd < 0) {
			niov = 0;
			for (j = c->chead; j < c->nchunks && niov < CONN_IOV &&
			    c->chunks[j].fd < 0; j++) {
				iov[niov].iov_base = c->out.buf + c->chunks[j].pos;
				iov[niov].iov_len = c->chunks[j].len;
				niov++;
			}
			n = writev(c->fd, iov, niov);
		} else {
			/* A copy of pos: the loop below advances the chunk. */
			pos = ch->pos;
			k = ch->len < CONN_SENDFILE_MAX ? ch->len : CONN_SENDFILE_MAX;
			n = sendfile(c->fd, ch->fd, &pos, k);
			if (n == 0) {
				/* The segment is shorter than the log said. */
				log_warnx("%s: segment ended early, closing", c->peer);
				c->dead = 1;
				return;
			}
		}
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				if (errno != EPIPE && errno != ECONNRESET &&
				    errno != EPROTO)
					log_warn("%s: write", c->peer);
				c->dead = 1;
			}
			return;
		}
		atomic_fetch_add_explicit(&w->me->bytes_out, (uint64_t)n,
		    memory_order_relaxed);
		c->out_pending -= (uint64_t)n;
		c->last_active = w->now;
		k = (size_t)n;
		while (k > 0 && c->chead < c->nchunks) {
			ch = &c->chunks[c->chead];
			if (k < ch->len) {
				ch->pos += (off_t)k;
				ch->len -= k;
				k = 0;
				break;
			}
			k -= ch->len;
			if (ch->fd >= 0)
				close(ch->fd);
			c->chead++;
		}
	}
	if (c->chead == c->nchunks) {
		c->chead = c->nchunks = 0;
		c->out_pending = 0;
		c->out_full = 0;
		c->out_committed = 0;
		if (c->out.cap > CONN_OUT_KEEP) {
			wbuf_free(&c->out);
			wbuf_init(&c->out);
		} else
			wbuf_reset(&c->out);
	}
}

/* Whether more frames may be taken from the reader now. */
static int
conn_may_parse(const struct conn *c)
{
	return !c->dead && !c->out_full &&
	    c->nreq < c->w->conf->max_inflight_per_connection &&
	    !(c->arena_bytes > c->w->conf->max_buffered_bytes && c->nreq > 0);
}

/* Is the next request to execute blocked with its payload in the reader? */
static int
conn_blocked(const struct conn *c)
{
	const struct req *r;

	if (c->exec >= c->nreq)
		return 0;
	r = &c->q[(c->qhead + c->exec) % c->qcap];
	return r->state == REQ_BLOCKED && !r->detached;
}

static int
conn_may_read(const struct conn *c)
{
	return conn_may_parse(c) && !conn_blocked(c) && !c->eof &&
	    !c->rd_paused && !c->w->stopping;
}

static int
conn_push(struct conn *c, const struct frame *f)
{
	struct req *nq, *r;
	uint32_t i, ncap;

	if (c->nreq == c->qcap) {
		ncap = c->qcap * 2;
		if ((nq = calloc(ncap, sizeof(*nq))) == NULL)
			return -1;
		for (i = 0; i < c->nreq; i++)
			nq[i] = *conn_req(c, i);
		free(c->q);
		c->q = nq;
		c->qcap = ncap;
		c->qhead = 0;
	}
	r = conn_req(c, c->nreq);
	memset(r, 0, sizeof(*r));
	r->api = f->api_key;
	r->id = f->request_id;
	r->payload = f->payload;
	r->payload_len = f->payload_len;
	r->state = REQ_NEW;
	c->nreq++;
	atomic_fetch_add_explicit(&c->w->me->requests, 1, memory_order_relaxed);
	return 0;
}

/* Copy every queued payload out of the reader before it moves bytes. */
static int
conn_detach(struct conn *c)
{
	struct req *r;
	const uint8_t *old;
	uint8_t *copy;
	size_t before, more;
	uint32_t i;

	for (i = 0; i < c->nreq; i++) {
		r = conn_req(c, i);
		if (r->detached)
			continue;
		if ((copy = conn_alloc(c, r->payload_len)) == NULL)
			return -1;
		if (r->payload_len > 0)
			memcpy(copy, r->payload, r->payload_len);
		old = r->payload;
		r->payload = copy;
		r->detached = 1;
		if (r->dec == NULL)
			continue;
		before = c->arena_bytes;
		if (c->face->redecode(c, r, old) == -1)
			return -1;
		/*
		 * A decoder charges the payload's length for what its codec
		 * takes from the arena unseen by conn_alloc; the first decode
		 * did, and the copy is charged above.  Charged again, a
		 * request held three times its size against
		 * max_buffered_bytes and the connection stopped taking
		 * requests early.  Only what the redecode took past that
		 * estimate (conn_alloc'ed parts) still counts.
		 */
		more = c->arena_bytes - before;
		c->arena_bytes -= more < r->payload_len ? more : r->payload_len;
	}
	return 0;
}

/* Execute queued requests in order, stopping behind a BLOCKED one. */
static void
conn_execute(struct conn *c)
{
	struct req *r;

	while (!c->dead && c->exec < c->nreq) {
		r = conn_req(c, c->exec);
		if (r->state == REQ_NEW || r->state == REQ_BLOCKED) {
			c->face->exec(c->w, c, r);
			if (r->state == REQ_BLOCKED)
				return;
		}
		c->exec++;
	}
}

/* Answer finished requests from the head of the queue. */
static int
conn_emit(struct conn *c)
{
	struct req *r;
	int n = 0;

	/* Over max_buffered_bytes, answers wait until the output drained. */
	while (!c->dead && c->nreq > 0 && !c->out_full) {
		r = conn_req(c, 0);
		if (r->state != REQ_DONE)
			break;
		if (!r->noresp)
			c->face->emit(c->w, c, r);
		c->face->release(r);
		c->qhead = (c->qhead + 1) % c->qcap;
		c->nreq--;
		c->exec--;
		n++;
	}
	if (c->nreq == 0) {
		c->qhead = 0;
		conn_arena_reset(c);
	}
	return n;
}

/* Take whole frames from the reader, run and answer them. */
static void
conn_process(struct conn *c)
{
	struct frame f;
	int st, more;

	do {
		more = 0;
		while (conn_may_parse(c)) {
			st = frame_reader_next(&c->rd, &f);
			if (st == -1) {
				lograte_warnx(c->w, c->peer,
				    LOGRATE_REFUSED, "bad frame size, closing "
				    "connection");
				atomic_fetch_add_explicit(&c->w->me->protocol_errors,
				    1, memory_order_relaxed);
				c->dead = 1;
				return;
			}
			if (st == 0)
				break;
			c->partial_since = 0;
			if (conn_push(c, &f) == -1) {
				log_warn("%s: request queue", c->peer);
				c->dead = 1;
				return;
			}
			more = 1;
		}
		conn_execute(c);
		if (conn_emit(c) > 0 && frame_reader_pending(&c->rd) > 0)
			more = 1;
	} while (more && !c->dead);
	/* Nothing points into the reader: a large frame's memory goes now. */
	if (c->nreq == 0)
		frame_reader_trim(&c->rd);
	conn_rd_account(c);
	if (frame_reader_pending(&c->rd) == 0)
		c->partial_since = 0;
	else if (c->partial_since == 0 && conn_may_parse(c)) {
		c->partial_since = c->w->now;
		if (c->w->conf->request_timeout_ms > 0)
			worker_sweep_before(c->w,
			    c->w->now + c->w->conf->request_timeout_ms);
	}
}

/*
 * One read(2) into the frame reader: 2 filled the space offered (more may
 * wait), 1 got fewer bytes (the socket is drained for now), 0 nothing
 * (or EOF).
 */
static int
conn_read(struct conn *c)
{
	uint8_t *p;
	size_t room;
	ssize_t n;

	if (conn_detach(c) == -1) {
		log_warnx("%s: request memory exhausted, closing", c->peer);
		c->dead = 1;
		return 0;
	}
	if (!conn_rd_may_grow(c))
		return 0;
	if ((p = frame_reader_space(&c->rd, &room)) == NULL) {
		log_warn("%s: read buffer", c->peer);
		c->dead = 1;
		return 0;
	}
	for (;;) {
		n = c->tls != NULL ? tls_read(c->tls, p, room) :
		    read(c->fd, p, room);
		if (n > 0)
			break;
		if (n == 0) {
			c->eof = 1;
			return 0;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			if (errno != ECONNRESET && errno != EPROTO)
				log_warn("%s: read", c->peer);
			c->dead = 1;
		}
		return 0;
	}
	frame_reader_commit(&c->rd, (size_t)n);
	atomic_fetch_add_explicit(&c->w->me->bytes_in, (uint64_t)n,
	    memory_order_relaxed);
	c->last_active = c->w->now;
	/* A TLS read returns one record: a short one says nothing. */
	return (size_t)n == room || c->tls != NULL ? 2 : 1;
}

void
conn_on_event(struct conn *c, uint32_t events)
{
	if (events & (EPOLLERR | EPOLLHUP)) {
		/*
		 * A client that refuses our certificate sends its alert and
		 * may reset at once (unread bytes of our flight): read the
		 * alert still queued, so the reason is logged, then close.
		 */
		if (c->tls != NULL && !tls_handshake_done(c->tls) &&
		    tls_handshake(c->tls) == -1)
			atomic_fetch_add_explicit(&c->w->me->protocol_errors, 1,
			    memory_order_relaxed);
		c->dead = 1;
		return;
	}
	if (c->tls != NULL) {
		switch (tls_handshake(c->tls)) {
		case -1:
			atomic_fetch_add_explicit(&c->w->me->protocol_errors, 1,
			    memory_order_relaxed);
			c->dead = 1;
			return;
		case 0:
			return;
		}
		auth_session_cert(c);
		/*
		 * Any event may be the one a TLS read waited for (a read can
		 * need to write), and the handshake may have brought data.
		 */
		events |= EPOLLIN;
	}
	if (events & EPOLLIN) {
		int i, rc;

		/*
		 * A short read drained the socket: epoll is level-triggered,
		 * so another read(2) would only return EAGAIN, one syscall
		 * per request for nothing.
		 */
		for (i = 0; i < CONN_READ_ROUNDS && conn_may_read(c); i++) {
			rc = conn_read(c);
			conn_rd_account(c);
			if (rc == 0)
				break;
			conn_process(c);
			if (rc == 1)
				break;
		}
	}
}

/* again: conn_run() must come back even if the sockets have nothing new. */
static void
conn_update_events(struct conn *c, int again)
{
	struct epoll_event ev;
	uint32_t want = 0;

	if (c->tls != NULL && !tls_handshake_done(c->tls))
		want = tls_events(c->tls);
	else {
		if (conn_may_read(c))
			want |= EPOLLIN;
		if (c->chead < c->nchunks || again)
			want |= EPOLLOUT;
		if (c->tls != NULL)
			want |= tls_events(c->tls);
	}
	if (want == c->events)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = want;
	ev.data.ptr = c;
	if (epoll_ctl(c->w->epfd, EPOLL_CTL_MOD, c->fd, &ev) == -1) {
		log_warn("%s: epoll_ctl", c->peer);
		c->dead = 1;
		return;
	}
	c->events = want;
}

int
conn_run(struct conn *c)
{
	struct worker *w = c->w;
	int idle, full;

	conn_process(c);
	full = c->out_full;
	conn_flush(c);
	idle = c->nreq == 0 && c->chead == c->nchunks;
	if (c->dead || (idle && (c->eof || w->stopping))) {
		conn_close(c);
		return -1;
	}
	if (c->nreq > 0 && !c->in_busy) {
		TAILQ_INSERT_TAIL(&w->busy, c, busy_entry);
		c->in_busy = 1;
	} else if (c->nreq == 0 && c->in_busy) {
		TAILQ_REMOVE(&w->busy, c, busy_entry);
		c->in_busy = 0;
	}
	/*
	 * Output over max_buffered_bytes that left in one go: the answers
	 * and frames it held back can go now, but no socket event would say
	 * so (reading may be off, nothing is left to write) and the loop
	 * would sleep on them.  Wanting EPOLLOUT on the socket, writable
	 * now, brings it back after one turn, as fair as any other event.
	 */
	conn_update_events(c, full && !c->out_full);
	if (c->dead) {
		conn_close(c);
		return -1;
	}
	/* Input OpenSSL already holds raises no event: the loop comes back. */
	if (c->tls != NULL && !c->in_ready && tls_pending(c->tls) > 0 &&
	    conn_may_read(c)) {
		TAILQ_INSERT_TAIL(&w->ready, c, ready_entry);
		c->in_ready = 1;
	}
	return 0;
}

int
conn_check_timeouts(struct conn *c, int64_t now, int64_t *deadline)
{
	const struct config *conf = c->w->conf;
	int64_t t;

	if (c->tls != NULL && !tls_handshake_done(c->tls)) {
		t = c->opened + conn_tls_timeout(conf);
		if (now >= t) {
			log_warnx("%s: TLS handshake not completed in %lld ms, "
			    "closing", c->peer,
			    (long long)conn_tls_timeout(conf));
			conn_close(c);
			return -1;
		}
		if (t < *deadline)
			*deadline = t;
	}
	/*
	 * A connection that has not said who it is (HANDSHAKE, or with an
	 * auth_file a successful AUTH_PROVE), or said only that (one
	 * ApiVersions, one HANDSHAKE, a SASL exchange) and nothing since,
	 * soon holds no slot any more: a flood of such connections cannot
	 * lock others out for idle_timeout_ms.  The face sets c->useful on
	 * the first request past that setup (a Metadata is what a real
	 * client sends next).
	 */
	if (conf->handshake_timeout_ms > 0 && !c->useful) {
		t = c->opened + conf->handshake_timeout_ms;
		if (now >= t) {
			log_warnx("%s: %s within handshake_timeout_ms "
			    "(%lld ms), closing", c->peer, auth_enabled() &&
			    c->auth.user == NULL ? "no authentication" :
			    !c->handshaken ? "no HANDSHAKE" :
			    "nothing past the handshake",
			    (long long)conf->handshake_timeout_ms);
			conn_close(c);
			return -1;
		}
		if (t < *deadline)
			*deadline = t;
	}
	if (conf->idle_timeout_ms > 0 && c->nreq == 0 &&
	    c->chead == c->nchunks) {
		t = c->last_active + conf->idle_timeout_ms;
		if (now >= t) {
			log_debug("%s: idle, closing", c->peer);
			conn_close(c);
			return -1;
		}
		if (t < *deadline)
			*deadline = t;
	}
	if (conf->request_timeout_ms > 0 && c->partial_since != 0) {
		t = c->partial_since + conf->request_timeout_ms;
		if (now >= t) {
			log_warnx("%s: request not completed in time%s, closing",
			    c->peer, c->rd_paused ? " (not read meanwhile: "
			    "partial_frame_memory full)" : "");
			conn_close(c);
			return -1;
		}
		if (t < *deadline)
			*deadline = t;
	}
	return 0;
}

int
conn_poll_parked(struct conn *c, int64_t now, int64_t *deadline, int *parked)
{
	struct req *r;
	uint32_t i;

	for (i = 0; i < c->nreq; i++) {
		r = conn_req(c, i);
		if (r->state == REQ_WAIT)
			c->face->poll(c->w, c, r);
	}
	if (conn_run(c) == -1)
		return -1;
	for (i = 0; i < c->nreq; i++) {
		r = conn_req(c, i);
		if (r->state == REQ_WAIT || r->state == REQ_BLOCKED) {
			(*parked)++;
			if (r->deadline < *deadline)
				*deadline = r->deadline;
		}
	}
	return 0;
}
