/*
 * The writer's fdatasync threads.  An fdatasync can take a long time when
 * the disk is behind the appends (on ext4 it also waits for other files'
 * data to reach the disk: 50 ms on average at 1 GB/s here, up to 400 ms),
 * and while the writer's one loop waited in it, no ring was drained: the
 * rings filled and every producer of every partition stopped.  So the
 * writer hands each partition's sync to these threads (plog_sync_begin()
 * takes what to sync, plog_sync_run() syncs it) and drains on; it
 * publishes durable_offset when the job comes back.
 *
 * A job can also make a new topic's files instead (master/writer_make.h),
 * whose syncs stalled the loop the same way.
 *
 * WSYNC_THREADS threads take the jobs in the order submitted, so that
 * the syncs of several partitions wait for the disk together (on ext4
 * concurrent fdatasync calls share a journal commit, one after another
 * each waits for its own); the writer never has two jobs of one
 * partition out.  A thread touches nothing but a job's own descriptors,
 * files and store_io; a finished job is handed back through a list under
 * the mutex, and the writer's eventfd is written so its epoll wakes.
 */
#ifndef FLUME_MASTER_WRITER_SYNC_H
#define FLUME_MASTER_WRITER_SYNC_H

#include <stdint.h>

struct plog_sync;
struct wmake;

struct wsync_job {
	struct wsync_job *next;
	struct plog_sync *ps;		/* what to sync; freed with the job */
	struct wmake	*make;		/* instead: a topic to make; freed with it */
	uint32_t	 slot;		/* partition slot */
	uint64_t	 epoch;		/* the slot's log handle it came from */
	uint32_t	 incarnation;	/* the partition's, then */
	int64_t		 visible;	/* the log end it covers */
	uint64_t	 head;		/* ring bytes drained into that end */
	int		 err;		/* result: 0 or the errno */
	uint64_t	 us;		/* how long the fdatasync calls took */
};

#define WSYNC_THREADS	4

struct wsync;

/* Start the threads; done jobs are signalled on wake_fd (an eventfd). */
int	wsync_open(struct wsync **out, int wake_fd);
/* Finish every queued job (they are freed unread), stop the threads. */
void	wsync_close(struct wsync *ws);
/* Queue a job; the thread owns it until wsync_done() gives it back. */
void	wsync_submit(struct wsync *ws, struct wsync_job *job);
/*
 * The finished jobs, oldest first (NULL: none); with wait, first wait
 * until nothing is queued or running.  Free each with wsync_job_free().
 */
struct wsync_job *wsync_done(struct wsync *ws, int wait);
void	wsync_job_free(struct wsync_job *job);

#endif
