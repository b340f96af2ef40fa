/* Child start-up, the same for every role; see child.h. */
#include <sys/prctl.h>

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <bsd/unistd.h>

#include "common/child.h"
#include "common/log.h"
#include "shm/shm.h"

void
child_start(struct broker *b, const char *title, void (*on_stop)(int),
    sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t block;
	int32_t master;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		fatal("prctl");
	master = b->shm.hdr->master_pid;
	if (master > 0 && getppid() != master)
		_exit(0);	/* the master died before PDEATHSIG was set */
	setproctitle("%s", title);
	log_setrole(title);

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	if (sigprocmask(SIG_BLOCK, &block, waitmask) == -1)
		fatal("sigprocmask");
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGINT);
}

void
child_active(struct broker *b)
{
	struct shm_child *me = &b->shm.children[b->slot];

	atomic_store(&me->pid, (int32_t)getpid());
	atomic_store(&me->state, CHILD_ACTIVE);
}
