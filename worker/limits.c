/*
 * The total connection limit (see limits.h).  A reservation raises this
 * worker's counter before the sum is read, so at every instant the
 * counters hold at least the true number of connections: two workers
 * accepting at the same moment may both refuse the last slot, but can
 * never both take it.
 */
#include <netinet/in.h>

#include <errno.h>
#include <stdatomic.h>

#include "common/log.h"
#include "proto/frame.h"
#include "shm/ipcount.h"
#include "shm/shm.h"
#include "worker/conn.h"
#include "worker/limits.h"
#include "worker/worker.h"

uint64_t
limits_conn_total(const struct worker *w)
{
	const struct shm_child *ch;
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < w->shm->hdr->limits.child_slots; i++) {
		ch = &w->shm->children[i];
		if (ch->role == ROLE_WORKER)
			total += atomic_load_explicit(&ch->connections,
			    memory_order_acquire);
	}
	return total;
}

int
limits_conn_reserve(struct worker *w)
{
	atomic_fetch_add_explicit(&w->me->connections, 1, memory_order_acq_rel);
	if (limits_conn_total(w) > w->conf->max_connections_total) {
		limits_conn_release(w);
		return -1;
	}
	return 0;
}

void
limits_conn_release(struct worker *w)
{
	atomic_fetch_sub_explicit(&w->me->connections, 1, memory_order_release);
}

/* IPv4-mapped addresses count as IPv4. */
uint64_t
limits_addr_key(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *sin;
	const struct sockaddr_in6 *sin6;

	if (ss->ss_family == AF_INET) {
		sin = (const struct sockaddr_in *)ss;
		return ipcount_key(&sin->sin_addr, 4);
	}
	if (ss->ss_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)ss;
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
			return ipcount_key(&sin6->sin6_addr.s6_addr[12], 4);
		return ipcount_key(&sin6->sin6_addr, 16);
	}
	return 0;
}

int
limits_ip_reserve(struct worker *w, const struct sockaddr_storage *ss,
    const char *peer, uint64_t *key)
{
	*key = 0;
	if (w->conf->max_connections_per_ip == 0 ||
	    (*key = limits_addr_key(ss)) == 0)
		return 0;
	if (ipcount_reserve(w->shm, worker_slot(w), *key,
	    w->conf->max_connections_per_ip) == 0)
		return 0;
	if (errno == EMFILE)
		return -1;
	/* This worker's table is full: the other limits still hold. */
	log_warnx("%s: per-address table full, connection not counted", peer);
	*key = 0;
	return 0;
}

void
limits_ip_release(struct worker *w, uint64_t key)
{
	if (key != 0)
		ipcount_release(w->shm, worker_slot(w), key);
}

/*
 * What the others hold is what counts: a connection alone in the worker
 * (or its address) may always grow, so a frame of max_request_bytes gets
 * through even when a limit is set below it, and nothing waits forever.
 * The per-address sum walks the connections, but only when the worker's
 * whole charge could exceed the share: with the defaults (256M, 64M),
 * only on a worker already holding most of 64M in incomplete frames,
 * and then once per doubling of one connection's reader.
 */
int
limits_partial_fits(const struct worker *w, uint64_t addr, size_t held,
    size_t want, uint64_t reserved)
{
	const struct conn *c;
	uint64_t share = w->conf->partial_frame_memory_per_ip, mine = 0;
	uint64_t others = w->partial_bytes - held + reserved;

	if (want <= FRAME_READ_MIN || want <= held || others == 0)
		return 1;
	if (others + want > w->conf->partial_frame_memory)
		return 0;
	if (share == 0 || addr == 0 || others + want <= share)
		return 1;
	TAILQ_FOREACH(c, &w->conns, entry)
		if (c->addr_key == addr)
			mine += c->rd_held;
	mine -= held;
	return mine == 0 || mine + want <= share;
}

void
limits_partial_charge(struct worker *w, size_t held, size_t now)
{
	w->partial_bytes = w->partial_bytes - held + now;
	atomic_store_explicit(&w->me->partial_bytes, w->partial_bytes,
	    memory_order_relaxed);
}
