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

#include "master/broker.h"
#include "master/config.h"
#include "shm/shm.h"

struct conn;
struct plog_reader;

#define WORKER_NEVER	INT64_MAX

struct worker {
	struct broker		*b;
	struct shm		*shm;
	const struct config	*conf;
	struct shm_child	*me;		/* children[b->slot] */
	int			 epfd;
	int			 listen_fd;	/* -1 once shutdown began */
	int			 wake_fd;	/* eventfds[b->slot] */
	TAILQ_HEAD(, conn)	 conns;		/* every open connection */
	TAILQ_HEAD(, conn)	 busy;		/* connections holding requests */
	uint32_t		 nconns;
	struct plog_reader	**readers;	/* [max_partitions], opened lazily */
	uint32_t		 nreaders;
	int64_t			 now;		/* updated once per loop turn */
	int64_t			 next_sweep;	/* idle / partial-frame timeouts */
	int			 stopping;	/* shutdown began */
	int64_t			 stop_deadline;
};

/* CLOCK_MONOTONIC / CLOCK_REALTIME in milliseconds. */
int64_t	worker_clock_ms(void);
int64_t	worker_realtime_ms(void);
/* Wake the writer if it sleeps (or always, when force is set). */
void	worker_wake_writer(struct worker *w, int force);
/* Bring the next timeout sweep forward to at least t. */
void	worker_sweep_before(struct worker *w, int64_t t);

#endif
