/*
 * The drain child (drain.h).  Called by the master at start, for the
 * region of a previous run, and at shutdown, when the writer did not
 * finish the drain after the last worker stopped.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <bsd/unistd.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "master/drain.h"
#include "master/writer.h"
#include "master/writer_group.h"

static __attribute__((noreturn)) void
drain_run(struct shm *s, const struct config *conf, int flags)
{
	sigset_t none;
	int n;

	/* Die with the master, as every child does. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	setproctitle("drain");
	log_setrole("drain");
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	n = writer_drain_region(s, conf);
	if (n >= 0 && (flags & DRAIN_GROUPS) &&
	    writer_groups_drain_region(s, conf) == -1)
		n = -1;
	if (n < 0)
		_exit(1);
	log_info("drained %d batch%s", n, n == 1 ? "" : "es");
	_exit(0);
}

int
drain_child(struct shm *s, const struct config *conf, int flags)
{
	pid_t pid;
	int status;

	if ((pid = fork()) == -1) {
		log_warn("drain: fork");
		return -1;
	}
	if (pid == 0)
		drain_run(s, conf, flags);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			log_warn("drain: waitpid");
			return -1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		log_warnx("drain (pid %ld) killed by signal %d%s", (long)pid,
		    WTERMSIG(status), WCOREDUMP(status) ? " (core dumped)" : "");
	else
		log_warnx("drain (pid %ld) exited %d", (long)pid,
		    WEXITSTATUS(status));
	return -1;
}
