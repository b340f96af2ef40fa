/*
 * The writer: the single consumer of every partition ring.  writer_main()
 * is the child process; the pieces below are what the
 * master's startup recovery and the tests use.
 */
#ifndef FLUME_MASTER_WRITER_H
#define FLUME_MASTER_WRITER_H

#include <stdint.h>

#include "common/broker.h"
#include "master/config.h"
#include "shm/shm.h"

/*
 * Startup recovery, in the master before the fresh region is created:
 * append what every ring of an old, re-attached region still holds to the
 * partition logs under conf->data_dir (opened by the topic names in the
 * old region's directory; batches already in a log are skipped, so this
 * is safe to repeat), fdatasync them and close them.  Also moves the old
 * rings' heads, so a drain cut short resumes where it stopped.
 *
 * Returns the number of batches written.  -1 when some log could not be
 * opened, written or synced (errno set, the failure logged): the data is
 * not safely on disk yet, so the caller must keep the old region and not
 * start.  A ring whose bytes are damaged, or whose batches contradict the
 * log (plog_append_at EINVAL), is logged and skipped, not an error:
 * retrying could never succeed.
 */
int	writer_drain_region(struct shm *old, const struct config *conf);

/* The writer child (role table, master/roles.c); exits. */
__attribute__((noreturn)) void writer_main(struct broker *b);

/*
 * The writer's state and one pass of its loop, separate from the process
 * plumbing (signals, epoll, child slot) so tests drive it in-process.
 */
struct writer;

/* b->shm must be mapped; opens every topic already in the directory. */
int	writer_open(struct writer **wp, struct broker *b, int64_t now_ms);
void	writer_close(struct writer *w);
/*
 * Run the partitions' fdatasync calls on a thread of their own
 * (master/writer_sync.h), its finished jobs signalled on wake_fd; without
 * it (the unit tests) a cycle syncs in line.  0 or -1.
 */
int	writer_sync_start(struct writer *w, int wake_fd);
/*
 * One pass at now_ms (CLOCK_MONOTONIC ms): open new topics, drain every
 * ring into its log and publish visible_offset, fdatasync where the
 * policy says (sync_wanted, flush_interval_ms, flush_messages) and
 * publish durable_offset (when the sync threads run them: when they come
 * back, a later pass), apply retention when due, wake the workers
 * that asked.  Returns 1 if anything moved (head, visible, durable), else 0.
 */
int	writer_cycle(struct writer *w, int64_t now_ms);
/* 1 if some partition has work that is not waiting out an error backoff. */
int	writer_pending(struct writer *w, int64_t now_ms);
/* Milliseconds until the next timed duty (interval sync, retention, retry). */
int	writer_timeout(struct writer *w, int64_t now_ms);
/*
 * Shutdown: drain every ring completely and fdatasync every log that has
 * unsynced bytes, ignoring backoffs.  0 when everything is on disk and
 * durable_offset covers it, -1 if anything is left (retry, or give up and
 * leave the region to the next start's recovery).
 */
int	writer_finish(struct writer *w, int64_t now_ms);

#endif
