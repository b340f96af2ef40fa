/*
 * What every child role (worker, writer, metrics) does first after the
 * master forked it, and the role table's row type.
 */
#ifndef FLUME_COMMON_CHILD_H
#define FLUME_COMMON_CHILD_H

#include <signal.h>

#include "common/broker.h"

/* A row of the master's role table (master/roles.c). */
struct role {
	int		 id;			/* enum flume_role */
	__attribute__((noreturn)) void (*main)(struct broker *b);
};

/*
 * Child, first thing: die with the master (PR_SET_PDEATHSIG; exit 0 at
 * once if it is already gone), set the process title, send SIGTERM and
 * SIGINT to on_stop (which only sets a flag), ignore SIGPIPE and SIGHUP,
 * and block the stop signals.  *waitmask is then the mask to wait with
 * (epoll_pwait, ppoll): the current one with the stop signals let in, so
 * one that arrives between two waits is taken by the next wait instead
 * of being missed.
 */
void	child_start(struct broker *b, const char *title, void (*on_stop)(int),
	    sigset_t *waitmask);
/* Child, once it is ready: its slot shows its pid and ACTIVE. */
void	child_active(struct broker *b);

#endif
