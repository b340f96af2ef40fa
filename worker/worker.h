/*
 * The worker process's private state, shared by its modules (the event
 * loop in worker.c, connections in conn.c, the API handlers in
 * handlers.c).  Nothing here lives in shared memory.
 *
 * Times are CLOCK_MONOTONIC milliseconds unless a name says otherwise.
 */
#ifndef FLUME_WORKER_WORKER_H
#define FLUME_WORKER_WORKER_H

#include <sys/queue.h>
#include <stdint.h>

#include "common/broker.h"
#include "common/config.h"
#include "shm/shm.h"

struct conn;
struct plog_reader;

#define WORKER_NEVER	INT64_MAX
#define WORKER_LAZY_WAKE_MS	2	/* acks=1 data reaches the log within this */

struct worker {
	struct broker		*b;
	struct shm		*shm;
	const struct config	*conf;
	struct shm_child	*me;		/* children[b->slot] */
	int			 epfd;
	int			 listen_fd;	/* -1 once shutdown began */
	int			 kafka_fd;	/* the Kafka listener; -1 off or stopping */
	int			 tls_fd;	/* listen_tls; -1 off or stopping */
	int			 kafka_tls_fd;	/* kafka_listen_tls; -1 off or stopping */
	int			 wake_fd;	/* eventfds[b->slot] */
	TAILQ_HEAD(, conn)	 conns;		/* every open connection */
	TAILQ_HEAD(, conn)	 busy;		/* connections holding requests */
	TAILQ_HEAD(, conn)	 ready;		/* to read with no event due (TLS, unpaused) */
	TAILQ_HEAD(, conn)	 paused;	/* wait for partial_frame_memory, in order */
	uint32_t		 nconns;
	uint64_t		 partial_bytes;	/* charged by connections (limits.h) */
	struct plog_reader	**readers;	/* [max_partitions], opened lazily */
	uint32_t		 nreaders;
	uint32_t		*reader_inc;	/* [max_partitions]: incarnation it was opened in */
	int64_t			 now;		/* updated once per loop turn */
	int64_t			 next_sweep;	/* idle / partial-frame timeouts */
	int			 stopping;	/* shutdown began */
	int64_t			 stop_deadline;
	int			 wake_writer;	/* 1 lazily, 2 now: see worker_wake_writer */
	int64_t			 wake_writer_at; /* the latest time for a lazy wake */
};

/*
 * Ask for the writer: with force, at the end of this loop turn (after the
 * turn's answers are written; one eventfd write for the whole turn).
 * Without force (acks=1 data in a ring) only if it sleeps, and lazily:
 * at the end of the turn when some worker waits for the writer (a parked
 * fetch or produce sets wake_wanted) or the ring fills, otherwise within
 * WORKER_LAZY_WAKE_MS, so a stream of small produces nobody reads yet
 * does not cost a writer wake-up each.
 */
void	worker_wake_writer(struct worker *w, int force);
/*
 * Do the wake-up worker_wake_writer() asked for if it is due; the loop
 * calls it before sleeping.  Returns when the loop must call it again
 * (WORKER_NEVER: nothing pending).
 */
int64_t	worker_wake_flush(struct worker *w);
/* This worker's child slot (index into shm children). */
uint32_t worker_slot(const struct worker *w);
/* Bring the next timeout sweep forward to at least t. */
void	worker_sweep_before(struct worker *w, int64_t t);

#endif
