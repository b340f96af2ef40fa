/*
 * The worker process: one epoll loop over the shared listening socket
 * (EPOLLEXCLUSIVE, so one worker wakes per connection), this worker's
 * eventfd (the writer's wake-ups) and its connections.
 *
 * There are no timers: epoll_wait sleeps until the nearest deadline of a
 * parked request, an idle or partial-frame timeout sweep, or the end of
 * the shutdown grace period.  Parking follows the contract with the
 * writer: set children[slot].wake_wanted, re-check every parked request,
 * then sleep; the writer clears the flag and writes our eventfd after any
 * drain cycle that moved an offset.
 */
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <bsd/unistd.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/broker.h"
#include "common/live.h"
#include "common/child.h"
#include "common/clock.h"
#include "common/log.h"
#include "worker/conn.h"
#include "worker/op/reader.h"
#include "worker/kafka/kafka.h"
#include "worker/native/native.h"
#include "worker/limits.h"
#include "worker/main.h"
#include "worker/tls.h"
#include "worker/worker.h"

#define WORKER_EVENTS		128
#define WORKER_ACCEPTS		64	/* accept(2) calls per wake-up */
#define WORKER_STOP_GRACE	5000	/* ms to answer in-flight requests */

static volatile sig_atomic_t worker_quit;

/* epoll tags for the non-connection descriptors. */
static char tag_listen, tag_kafka, tag_tls, tag_kafka_tls, tag_wake;

/* What each listener speaks; the index is worker_accept's argument. */
enum { LISTEN_NATIVE, LISTEN_KAFKA, LISTEN_TLS, LISTEN_KAFKA_TLS };

static void
worker_sig(int sig)
{
	(void)sig;
	worker_quit = 1;
}

static void
peer_name(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN];
	const struct sockaddr_in *sin;
	const struct sockaddr_in6 *sin6;

	if (ss->ss_family == AF_INET) {
		sin = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(sin6->sin6_port));
	} else
		snprintf(buf, size, "unix");
}

static int *
worker_listen_fd(struct worker *w, int which)
{
	switch (which) {
	case LISTEN_KAFKA:
		return &w->kafka_fd;
	case LISTEN_TLS:
		return &w->tls_fd;
	case LISTEN_KAFKA_TLS:
		return &w->kafka_tls_fd;
	default:
		return &w->listen_fd;
	}
}

/* Accept on one listener (LISTEN_*). */
static void
worker_accept(struct worker *w, int which)
{
	int kafka = which == LISTEN_KAFKA || which == LISTEN_KAFKA_TLS;
	int tls = which == LISTEN_TLS || which == LISTEN_KAFKA_TLS;
	struct sockaddr_storage ss;
	socklen_t sl;
	char peer[64];
	struct conn *c;
	uint64_t key;
	int fd, lfd, one = 1, i;

	lfd = *worker_listen_fd(w, which);
	for (i = 0; i < WORKER_ACCEPTS && lfd != -1; i++) {
		sl = sizeof(ss);
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_warn("accept");
			return;
		}
		atomic_fetch_add_explicit(&w->me->accepted, 1,
		    memory_order_relaxed);
		peer_name(&ss, peer, sizeof(peer));
		if (w->conf->max_connections > 0 &&
		    w->nconns >= w->conf->max_connections) {
			/* Counted before it is logged: a log reader may then scrape. */
			atomic_fetch_add_explicit(&w->me->rejected_conns, 1,
			    memory_order_relaxed);
			log_warnx("%s: too many connections, closing", peer);
			close(fd);
			continue;
		}
		if (limits_conn_reserve(w) == -1) {
			atomic_fetch_add_explicit(&w->me->rejected_conns, 1,
			    memory_order_relaxed);
			log_warnx("%s: too many connections in total "
			    "(max_connections_total %u), closing", peer,
			    w->conf->max_connections_total);
			close(fd);
			continue;
		}
		if (limits_ip_reserve(w, &ss, peer, &key) == -1) {
			limits_conn_release(w);
			atomic_fetch_add_explicit(&w->me->rejected_conns, 1,
			    memory_order_relaxed);
			log_warnx("%s: too many connections from this address "
			    "(max_connections_per_ip %u), closing", peer,
			    w->conf->max_connections_per_ip);
			close(fd);
			continue;
		}
		if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = conn_new(w, fd, peer, kafka ? &kafka_face : &native_face);
		limits_conn_release(w);
		if (c != NULL) {
			c->ip_key = key;
			c->addr_key = limits_addr_key(&ss);
			if (tls && conn_tls_start(c) == -1)
				continue;	/* closed, the address released */
			log_debug("%s: connected%s%s", peer,
			    kafka ? " (Kafka)" : "", tls ? " (TLS)" : "");
		} else
			limits_ip_release(w, key);
	}
}

/*
 * Connections whose input OpenSSL holds decrypted (a record larger than
 * the room the frame reader offered), or that partial_frame_memory had
 * paused and now lets read: read them as if the socket said so.  Each is
 * taken off the list first, so one turn reads each once.
 */
static void
worker_run_ready(struct worker *w)
{
	struct conn *c;
	int n = (int)w->nconns;

	while ((c = TAILQ_FIRST(&w->ready)) != NULL && n-- > 0) {
		TAILQ_REMOVE(&w->ready, c, ready_entry);
		c->in_ready = 0;
		conn_on_event(c, EPOLLIN);
		conn_run(c);
	}
}

/* Reset our eventfd; its count only means "look again". */
static void
worker_drain_wake(struct worker *w)
{
	uint64_t v;

	while (read(w->wake_fd, &v, sizeof(v)) == -1 && errno == EINTR)
		;
}

/*
 * Re-check every connection that holds requests; returns how many are
 * still parked and lowers *deadline to the nearest of theirs.
 */
static int
worker_poll_parked(struct worker *w, int64_t *deadline)
{
	struct conn *c, *next;
	int parked = 0;

	for (c = TAILQ_FIRST(&w->busy); c != NULL; c = next) {
		next = TAILQ_NEXT(c, busy_entry);
		conn_poll_parked(c, w->now, deadline, &parked);
	}
	return parked;
}

static void
worker_sweep(struct worker *w)
{
	struct conn *c, *next;
	int64_t deadline = WORKER_NEVER;

	for (c = TAILQ_FIRST(&w->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		conn_check_timeouts(c, w->now, &deadline);
	}
	w->next_sweep = deadline;
}

/* Stop accepting; requests in flight get WORKER_STOP_GRACE ms. */
static void
worker_stop(struct worker *w)
{
	struct conn *c, *next;

	int which, *fd;

	w->stopping = 1;
	w->stop_deadline = w->now + WORKER_STOP_GRACE;
	for (which = LISTEN_NATIVE; which <= LISTEN_KAFKA_TLS; which++) {
		fd = worker_listen_fd(w, which);
		if (*fd != -1) {
			epoll_ctl(w->epfd, EPOLL_CTL_DEL, *fd, NULL);
			close(*fd);
			*fd = -1;
		}
	}
	log_info("shutting down, %u connections", w->nconns);
	/* Idle connections close now; busy ones once answered. */
	for (c = TAILQ_FIRST(&w->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		conn_run(c);
	}
}

static __attribute__((noreturn)) void
worker_exit(struct worker *w)
{
	struct conn *c;

	while ((c = TAILQ_FIRST(&w->conns)) != NULL)
		conn_close(c);
	worker_wake_flush(w);
	op_reader_fini(w);
	tls_fini();
	close(w->epfd);
	atomic_store(&w->me->wake_wanted, 0);
	atomic_store(&w->me->state, CHILD_ASSIGNED);
	log_info("exiting");
	exit(0);
}

/* Signals stay blocked except inside epoll_pwait, so none is missed. */
static sigset_t worker_waitmask;

static void
worker_setup(struct worker *w, struct broker *b)
{
	static char title[32];
	struct epoll_event ev;

	snprintf(title, sizeof(title), "worker %d", b->slot);
	child_start(b, title, worker_sig, &worker_waitmask);

	memset(w, 0, sizeof(*w));
	w->b = b;
	w->shm = &b->shm;
	w->conf = b->conf;
	w->me = &b->shm.children[b->slot];
	w->listen_fd = b->conf->listen[0] != '\0' ? b->listen_fd : -1;
	w->kafka_fd = b->conf->kafka_listen[0] != '\0' ? b->kafka_fd : -1;
	w->tls_fd = b->conf->listen_tls[0] != '\0' ? b->tls_fd : -1;
	w->kafka_tls_fd = b->conf->kafka_listen_tls[0] != '\0' ?
	    b->kafka_tls_fd : -1;
	w->wake_fd = b->eventfds[b->slot];
	w->next_sweep = WORKER_NEVER;
	w->now = clock_mono_ms();
	TAILQ_INIT(&w->conns);
	TAILQ_INIT(&w->busy);
	TAILQ_INIT(&w->ready);
	TAILQ_INIT(&w->paused);
	if (op_reader_init(w) == -1)
		fatal("reader cache");
	/* The master checked the files: a failure now is a changed file. */
	if (tls_init(w->conf) == -1)
		exit(EXIT_NO_RESPAWN);
	if ((w->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1");
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN | EPOLLEXCLUSIVE;
	ev.data.ptr = &tag_listen;
	if (w->listen_fd != -1 &&
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->listen_fd, &ev) == -1)
		fatal("epoll_ctl listen");
	ev.data.ptr = &tag_kafka;
	if (w->kafka_fd != -1 &&
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->kafka_fd, &ev) == -1)
		fatal("epoll_ctl kafka listen");
	ev.data.ptr = &tag_tls;
	if (w->tls_fd != -1 &&
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->tls_fd, &ev) == -1)
		fatal("epoll_ctl TLS listen");
	ev.data.ptr = &tag_kafka_tls;
	if (w->kafka_tls_fd != -1 &&
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->kafka_tls_fd, &ev) == -1)
		fatal("epoll_ctl Kafka TLS listen");
	ev.events = EPOLLIN;
	ev.data.ptr = &tag_wake;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->wake_fd, &ev) == -1)
		fatal("epoll_ctl eventfd");

	atomic_store(&w->me->connections, 0);
	atomic_store(&w->me->partial_bytes, 0);
	child_active(b);
}

void
worker_main(struct broker *b)
{
	struct worker wk, *w = &wk;
	struct epoll_event evs[WORKER_EVENTS];
	int64_t deadline, timeout, lazy;
	int i, n, parked;

	worker_setup(w, b);
	log_info("started");
	for (;;) {
		w->now = clock_mono_ms();
		/* SIGHUP: new timeouts take effect at the next sweep, now. */
		if (live_refresh(w->shm, w->b->conf) == 1) {
			worker_sweep_before(w, w->now);
			/* ... and the certificates, for new connections. */
			tls_reload(w->conf);
		}
		/* SIGHUP: the auth_file again; removed users' sessions close. */
		(void)auth_refresh(w);
		if (!w->stopping && (worker_quit ||
		    atomic_load(&w->shm->hdr->shutdown)))
			worker_stop(w);
		if (w->stopping && (w->nconns == 0 || w->now >= w->stop_deadline))
			worker_exit(w);

		deadline = WORKER_NEVER;
		parked = worker_poll_parked(w, &deadline);
		if (parked > 0) {
			/* Ask for a wake-up, then look once more (no lost wake-up). */
			if (atomic_exchange(&w->me->wake_wanted, 1) == 0) {
				deadline = WORKER_NEVER;
				parked = worker_poll_parked(w, &deadline);
			}
		}
		if (w->now >= w->next_sweep)
			worker_sweep(w);
		if (w->next_sweep < deadline)
			deadline = w->next_sweep;
		if (w->stopping && w->stop_deadline < deadline)
			deadline = w->stop_deadline;
		if (w->stopping && w->nconns == 0)
			continue;
		if (deadline == WORKER_NEVER)
			timeout = -1;
		else {
			timeout = deadline - w->now;
			if (timeout < 0)
				timeout = 0;
			if (timeout > INT32_MAX)
				timeout = INT32_MAX;
		}
		if (!TAILQ_EMPTY(&w->ready))
			timeout = 0;
		if ((lazy = worker_wake_flush(w)) != WORKER_NEVER &&
		    (timeout < 0 || lazy - w->now < timeout))
			timeout = lazy > w->now ? lazy - w->now : 0;
		n = epoll_pwait(w->epfd, evs, WORKER_EVENTS, (int)timeout,
		    &worker_waitmask);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			fatal("epoll_wait");
		}
		w->now = clock_mono_ms();
		for (i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;

			if (tag == &tag_listen || tag == &tag_kafka ||
			    tag == &tag_tls || tag == &tag_kafka_tls) {
				if (!w->stopping)
					worker_accept(w, tag == &tag_kafka ?
					    LISTEN_KAFKA : tag == &tag_tls ?
					    LISTEN_TLS : tag == &tag_kafka_tls ?
					    LISTEN_KAFKA_TLS : LISTEN_NATIVE);
			} else if (evs[i].data.ptr == &tag_wake) {
				worker_drain_wake(w);
			} else {
				struct conn *c = evs[i].data.ptr;

				conn_on_event(c, evs[i].events);
				conn_run(c);
			}
		}
		worker_run_ready(w);
	}
}
