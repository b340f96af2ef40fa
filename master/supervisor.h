/*
 * The master's supervision of its children: fork every child slot, reap,
 * log and respawn (with backoff for a child that keeps dying right after
 * it started), and the ordered shutdown (workers first, then the writer,
 * which drains the rings).  The master's private table of children is the
 * truth; shm children[] is only a mirror for the WORKERS api.
 */
#ifndef FLUME_MASTER_SUPERVISOR_H
#define FLUME_MASTER_SUPERVISOR_H

#include <stdint.h>
#include <sys/types.h>

#include "common/broker.h"

/* A child that dies sooner than this after its start is respawned with backoff. */
#define SUPERVISOR_QUICK_DEATH_MS	2000
#define SUPERVISOR_BACKOFF_MIN_MS	100
#define SUPERVISOR_BACKOFF_MAX_MS	10000
/* How long shutdown waits for the workers, then for the writer, before SIGKILL. */
#define SUPERVISOR_WORKER_GRACE_MS	10000
#define SUPERVISOR_WRITER_GRACE_MS	60000

/*
 * Backoff before respawning a child that died quickly for the n-th time in
 * a row (n >= 1): 100 ms doubling up to 10 s.  0 for n <= 0.
 */
int64_t	supervisor_backoff_ms(int n);

/*
 * Run the broker: b is filled in by the master (conf, shm, listen_fd,
 * eventfds, nslots); fork every child and supervise them until SIGTERM or
 * SIGINT (or until the writer or every worker refuses to run).
 * "listening on <bound>" is logged once every child is forked (the socket
 * is already listening, so the integration tests may connect from then).
 * Returns the master's exit status: 0 after a clean shutdown, 1 otherwise.
 * *unlink_ok is set when the rings are empty and on disk (the writer
 * drained them after the last worker stopped, or, if it could not, the
 * master did with writer_drain_region), so the region may be removed.
 */
int	supervisor_run(struct broker *b, const char *bound, int *unlink_ok);

#endif
