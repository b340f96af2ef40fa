/*
 * Process-shared robust mutexes, the only locks in the shared region.  A
 * leaf: it knows nothing of the region's layout.
 *
 * A lock whose owner died (EOWNERDEAD) is taken over: the caller's repair
 * runs first, under the lock, then the lock is made consistent.  Because
 * every shared structure is published last (shm.h, the crash rule), a
 * repair only ever rolls published state forward (a ring's next offset,
 * a group's generation); most locks need none.
 */
#ifndef FLUME_SHM_LOCK_H
#define FLUME_SHM_LOCK_H

#include <pthread.h>

/* Make m a process-shared robust mutex.  0, or -1 with errno. */
int	lock_init(pthread_mutex_t *m);
/*
 * Take m.  When its owner died, repair(arg) runs (if not NULL) before m
 * is made consistent.  0, 1 when the owner had died, or -1 with errno
 * (m not held).
 */
int	lock_take(pthread_mutex_t *m, void (*repair)(void *), void *arg);
void	lock_release(pthread_mutex_t *m);

#endif
