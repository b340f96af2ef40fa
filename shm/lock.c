/*
 * Robust mutexes (lock.h).
 */
#include <errno.h>

#include "shm/lock.h"

int
lock_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int rc;

	if ((rc = pthread_mutexattr_init(&a)) != 0) {
		errno = rc;
		return -1;
	}
	if ((rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED)) == 0 &&
	    (rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST)) == 0)
		rc = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}

int
lock_take(pthread_mutex_t *m, void (*repair)(void *), void *arg)
{
	int rc;

	rc = pthread_mutex_lock(m);
	if (rc == 0)
		return 0;
	if (rc == EOWNERDEAD) {
		if (repair != NULL)
			repair(arg);
		if ((rc = pthread_mutex_consistent(m)) == 0)
			return 1;
		/* Cannot happen for a robust mutex we own; do not keep it. */
		pthread_mutex_unlock(m);
	}
	errno = rc;
	return -1;
}

void
lock_release(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
}
