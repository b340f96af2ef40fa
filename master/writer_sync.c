/*
 * The writer's fdatasync threads (master/writer_sync.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/clock.h"
#include "master/writer_make.h"
#include "master/writer_sync.h"
#include "store/plog.h"

struct wsync {
	pthread_t	 threads[WSYNC_THREADS];
	int		 nthreads;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* work queued, a job done, or stop */
	struct wsync_job *queue, **queue_tail;
	struct wsync_job *done, **done_tail;
	int		 running;	/* jobs between queue and done */
	int		 stop;
	int		 wake_fd;
};

static void
wsync_wake(int fd)
{
	uint64_t one = 1;

	/* Full (2^64 - 2 wakes unread) or not: the writer will look. */
	(void)!write(fd, &one, sizeof(one));
}

static void *
wsync_thread(void *arg)
{
	struct wsync *ws = arg;
	struct wsync_job *job;
	uint64_t t0;

	pthread_mutex_lock(&ws->mu);
	for (;;) {
		while (ws->queue == NULL && !ws->stop)
			pthread_cond_wait(&ws->cv, &ws->mu);
		if ((job = ws->queue) == NULL)
			break;
		if ((ws->queue = job->next) == NULL)
			ws->queue_tail = &ws->queue;
		job->next = NULL;
		ws->running++;
		pthread_mutex_unlock(&ws->mu);

		t0 = clock_mono_us();
		if (job->make != NULL)
			job->err = wmake_run(job->make);
		else
			job->err = plog_sync_run(job->ps) == 0 ? 0 : errno;
		job->us = clock_mono_us() - t0;

		pthread_mutex_lock(&ws->mu);
		*ws->done_tail = job;
		ws->done_tail = &job->next;
		ws->running--;
		pthread_cond_broadcast(&ws->cv);
		wsync_wake(ws->wake_fd);
	}
	pthread_mutex_unlock(&ws->mu);
	return NULL;
}

int
wsync_open(struct wsync **out, int wake_fd)
{
	struct wsync *ws;
	int rc;

	if ((ws = calloc(1, sizeof(*ws))) == NULL)
		return -1;
	ws->queue_tail = &ws->queue;
	ws->done_tail = &ws->done;
	ws->wake_fd = wake_fd;
	pthread_mutex_init(&ws->mu, NULL);
	pthread_cond_init(&ws->cv, NULL);
	for (rc = 0; ws->nthreads < WSYNC_THREADS; ws->nthreads++)
		if ((rc = pthread_create(&ws->threads[ws->nthreads], NULL,
		    wsync_thread, ws)) != 0)
			break;
	/* Fewer threads only mean fewer syncs at a time. */
	if (ws->nthreads == 0) {
		pthread_cond_destroy(&ws->cv);
		pthread_mutex_destroy(&ws->mu);
		free(ws);
		errno = rc;
		return -1;
	}
	*out = ws;
	return 0;
}

void
wsync_close(struct wsync *ws)
{
	struct wsync_job *job;
	int i;

	if (ws == NULL)
		return;
	pthread_mutex_lock(&ws->mu);
	ws->stop = 1;
	pthread_cond_broadcast(&ws->cv);
	pthread_mutex_unlock(&ws->mu);
	for (i = 0; i < ws->nthreads; i++)
		pthread_join(ws->threads[i], NULL);
	while ((job = wsync_done(ws, 0)) != NULL) {
		while (job != NULL) {
			struct wsync_job *next = job->next;

			wsync_job_free(job);
			job = next;
		}
	}
	pthread_cond_destroy(&ws->cv);
	pthread_mutex_destroy(&ws->mu);
	free(ws);
}

void
wsync_submit(struct wsync *ws, struct wsync_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&ws->mu);
	*ws->queue_tail = job;
	ws->queue_tail = &job->next;
	pthread_cond_broadcast(&ws->cv);
	pthread_mutex_unlock(&ws->mu);
}

struct wsync_job *
wsync_done(struct wsync *ws, int wait)
{
	struct wsync_job *list;

	pthread_mutex_lock(&ws->mu);
	while (wait && (ws->queue != NULL || ws->running))
		pthread_cond_wait(&ws->cv, &ws->mu);
	list = ws->done;
	ws->done = NULL;
	ws->done_tail = &ws->done;
	pthread_mutex_unlock(&ws->mu);
	return list;
}

void
wsync_job_free(struct wsync_job *job)
{
	if (job == NULL)
		return;
	plog_sync_end(job->ps);
	wmake_free(job->make);
	free(job);
}
