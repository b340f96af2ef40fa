/*
 * Supervision loop of flume-master.
 *
 * The master is single-threaded and never on the data path.  Signals are
 * blocked except inside ppoll(2), whose timeout is the nearest pending
 * event (a delayed respawn, a shutdown deadline); the handlers only set
 * flags and the loop does the work.  The master's own table children[]
 * is what it trusts; it mirrors pid, role, start time, restart count and
 * state into the shared region for the WORKERS api.
 *
 * Shutdown order matters: workers first (they stop producing into the
 * rings), then the writer, which drains every ring and syncs before it
 * exits 0.  Only then may the shared region be removed; if the writer did
 * not finish, the region is left for the next start to drain.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "master/drain.h"
#include "master/live.h"
#include "master/fault.h"
#include "common/clock.h"
#include "common/log.h"
#include "master/supervisor.h"
#include "master/roles.h"
#include "master/writer.h"
#include "shm/conntab.h"
#include "shm/ipcount.h"

struct child {
	pid_t		 pid;		/* 0 when not running */
	int		 role;		/* enum flume_role */
	int		 slot;
	int64_t		 start_mono;	/* CLOCK_MONOTONIC ms of the last fork */
	int		 restarts;
	int		 quick_deaths;	/* consecutive deaths within 2 s of start */
	int64_t		 respawn_at;	/* monotonic ms; 0: no respawn pending */
	int		 retired;	/* exited with EXIT_NO_RESPAWN */
};

enum sup_phase {
	PHASE_RUN,		/* supervising, respawning */
	PHASE_WORKERS,		/* shutdown: waiting for the workers */
	PHASE_WRITER,		/* shutdown: waiting for the writer to drain */
	PHASE_DONE,
};

static volatile sig_atomic_t	sig_chld, sig_term, sig_hup, sig_users;

static struct child	*children;
static int		 nchildren;
static enum sup_phase	 phase;
static int64_t		 phase_deadline;
static int		 exit_status;
static int		 writer_clean;	/* the writer exited 0 during shutdown */

static void
sup_sighandler(int sig)
{
	switch (sig) {
	case SIGCHLD:
		sig_chld = 1;
		break;
	case SIGHUP:
		sig_hup = 1;
		break;
	case SIGUSR1:
		sig_users = 1;
		break;
	default:
		sig_term = 1;
		break;
	}
}

int64_t
supervisor_backoff_ms(int n)
{
	int64_t	ms = SUPERVISOR_BACKOFF_MIN_MS;

	if (n <= 0)
		return 0;
	while (--n > 0 && ms < SUPERVISOR_BACKOFF_MAX_MS)
		ms *= 2;
	return ms < SUPERVISOR_BACKOFF_MAX_MS ? ms : SUPERVISOR_BACKOFF_MAX_MS;
}

/* "worker 3" or "writer", for log lines and process titles. */
static const char *
child_name(const struct child *ch, char *buf, size_t size)
{
	if (ch->role == ROLE_WORKER)
		snprintf(buf, size, "%s %d", role_name(ch->role), ch->slot);
	else
		snprintf(buf, size, "%s", role_name(ch->role));
	return buf;
}

/*
 * Put the child back to the signal state a fresh program has (SIGHUP
 * aside), so its own handlers (installed by worker_main/writer_main) are
 * the only ones, and nothing stays blocked.
 */
static void
child_reset_signals(const sigset_t *origmask)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* A terminal hang-up is the master's business, not a reason to die. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigprocmask(SIG_SETMASK, origmask, NULL);
}

/* Fork the child for ch's slot; the child never returns from here. */
static int
child_spawn(struct broker *b, struct child *ch, const sigset_t *origmask)
{
	struct shm_child	*sc = &b->shm.children[ch->slot];
	char			 name[32];
	pid_t			 pid;

	child_name(ch, name, sizeof(name));
	atomic_store(&sc->state, CHILD_ASSIGNED);
	atomic_store(&sc->wake_wanted, 0);
	sc->role = ch->role;

	pid = fork();
	if (pid == -1) {
		log_warn("fork %s", name);
		return -1;
	}
	if (pid == 0) {
		child_reset_signals(origmask);
		log_setrole(name);
		fault_child_start(name, ch->restarts);	/* tests only */
		b->slot = ch->slot;
		/* The metrics socket is only the metrics child's business. */
		if (b->has_metrics && ch->role != ROLE_METRICS)
			close(b->metrics_fd);
		roles[ch->role].main(b);
		/* NOTREACHED */
	}
	ch->pid = pid;
	ch->start_mono = clock_mono_ms();
	ch->respawn_at = 0;
	sc->restarts = ch->restarts;
	sc->start_ms = clock_real_ms();
	atomic_store(&sc->pid, (int32_t)pid);
	if (ch->restarts == 0)
		log_info("started %s (pid %ld)", name, (long)pid);
	else
		log_info("respawned %s (pid %ld, restart %d)", name, (long)pid,
		    ch->restarts);
	return 0;
}

static struct child *
child_by_pid(pid_t pid)
{
	int	i;

	for (i = 0; i < nchildren; i++)
		if (children[i].pid == pid)
			return &children[i];
	return NULL;
}

/* Workers, the cleaner and the metrics child: stopped first at shutdown. */
static int
workers_running(void)
{
	int	i, n = 0;

	for (i = 0; i < nchildren; i++)
		if (children[i].role != ROLE_WRITER && children[i].pid != 0)
			n++;
	return n;
}

static int
workers_usable(void)
{
	int	i, n = 0;

	for (i = 0; i < nchildren; i++)
		if (children[i].role == ROLE_WORKER && !children[i].retired)
			n++;
	return n;
}

static void
shutdown_begin(struct broker *b, int status)
{
	int	i;

	if (phase != PHASE_RUN)
		return;
	exit_status = status;
	atomic_store(&b->shm.hdr->shutdown, 1);
	for (i = 0; i < nchildren; i++)
		children[i].respawn_at = 0;
	phase = PHASE_WORKERS;
	phase_deadline = clock_mono_ms() + SUPERVISOR_WORKER_GRACE_MS;
	for (i = 0; i < nchildren; i++)
		if (children[i].role != ROLE_WRITER && children[i].pid != 0)
			kill(children[i].pid, SIGTERM);
}

/* Log one child's death, repair its shared slot and plan what comes next. */
static void
child_died(struct broker *b, struct child *ch, int status)
{
	struct shm_child	*sc = &b->shm.children[ch->slot];
	char			 name[32], how[96];
	int64_t			 lived, delay;
	uint32_t		 state;
	pid_t			 pid = ch->pid;
	int			 crashed;

	child_name(ch, name, sizeof(name));
	lived = clock_mono_ms() - ch->start_mono;
	state = atomic_load(&sc->state);
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "exited on signal %d%s",
		    WTERMSIG(status), WCOREDUMP(status) ? " (core dumped)" : "");
	else
		snprintf(how, sizeof(how), "exited with status %d",
		    WEXITSTATUS(status));
	crashed = !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    state == CHILD_ACTIVE;

	/*
	 * Repair the slot: the child's connections are gone and nobody is
	 * parked there any more.  The rings need nothing (publish-last).
	 */
	ch->pid = 0;
	atomic_store(&sc->pid, 0);
	atomic_store(&sc->state, CHILD_ASSIGNED);
	atomic_store(&sc->wake_wanted, 0);
	atomic_store(&sc->connections, 0);
	if (ch->role == ROLE_WORKER) {
		ipcount_clear(&b->shm, (uint32_t)ch->slot);
		conntab_clear(&b->shm, (uint32_t)ch->slot);
	}

	if (phase != PHASE_RUN) {
		/* Only a drain after the last worker is gone is complete. */
		if (ch->role == ROLE_WRITER && !crashed && phase == PHASE_WRITER)
			writer_clean = 1;
		if (crashed)
			log_warnx("%s (pid %ld) %s during shutdown", name,
			    (long)pid, how);
		else
			log_info("%s (pid %ld) %s", name, (long)pid, how);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_NO_RESPAWN) {
		log_warnx("%s (pid %ld) %s: not respawned", name, (long)pid, how);
		ch->retired = 1;
		if (ch->role == ROLE_WRITER) {
			log_warnx("the writer cannot run: shutting down");
			shutdown_begin(b, 1);
		} else if (workers_usable() == 0) {
			log_warnx("no worker can run: shutting down");
			shutdown_begin(b, 1);
		}
		return;
	}
	if (crashed)
		log_warnx("%s (pid %ld) %s", name, (long)pid, how);
	else
		log_warnx("%s (pid %ld) %s unexpectedly", name, (long)pid, how);

	if (lived < SUPERVISOR_QUICK_DEATH_MS)
		ch->quick_deaths++;
	else
		ch->quick_deaths = 0;
	delay = supervisor_backoff_ms(ch->quick_deaths);
	ch->restarts++;
	ch->respawn_at = clock_mono_ms() + delay;
	if (delay > 0)
		log_warnx("%s died %lld ms after its start (%d time%s in a row): "
		    "respawning in %lld ms", name, (long long)lived,
		    ch->quick_deaths, ch->quick_deaths == 1 ? "" : "s",
		    (long long)delay);
}

static void
reap(struct broker *b)
{
	struct child	*ch;
	pid_t		 pid;
	int		 status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if ((ch = child_by_pid(pid)) == NULL) {
			log_debug("reaped unknown child %ld", (long)pid);
			continue;
		}
		child_died(b, ch, status);
	}
}

static void
kill_role(int role, int sig)
{
	int	i;

	for (i = 0; i < nchildren; i++)
		if (children[i].role == role && children[i].pid != 0)
			kill(children[i].pid, sig);
}

/* Advance the shutdown: workers gone -> signal the writer -> done. */
static void
shutdown_step(struct broker *b, int64_t now)
{
	struct child	*w = &children[broker_writer_slot(b)];
	char		 name[32];

	if (phase == PHASE_WORKERS) {
		if (workers_running() > 0) {
			if (now < phase_deadline)
				return;
			log_warnx("workers did not exit within %d ms: killing them",
			    SUPERVISOR_WORKER_GRACE_MS);
			kill_role(ROLE_WORKER, SIGKILL);
			kill_role(ROLE_METRICS, SIGKILL);
			kill_role(ROLE_CLEANER, SIGKILL);
			/* Their deaths arrive as SIGCHLD; wait for them. */
			phase_deadline = INT64_MAX;
			return;
		}
		phase = PHASE_WRITER;
		phase_deadline = now + SUPERVISOR_WRITER_GRACE_MS;
		if (w->pid != 0) {
			log_info("workers stopped; asking the writer to drain");
			kill(w->pid, SIGTERM);
		}
	}
	if (phase == PHASE_WRITER) {
		if (w->pid != 0) {
			if (now < phase_deadline)
				return;
			log_warnx("%s did not finish within %d ms: killing it",
			    child_name(w, name, sizeof(name)),
			    SUPERVISOR_WRITER_GRACE_MS);
			kill(w->pid, SIGKILL);
			phase_deadline = INT64_MAX;
			return;
		}
		phase = PHASE_DONE;
	}
}

/* 1 when every ring's bytes were consumed by the writer. */
static int
rings_empty(struct shm *s)
{
	uint32_t	i, n = atomic_load(&s->hdr->parts_used);

	if (n > s->hdr->limits.max_partitions)
		n = s->hdr->limits.max_partitions;
	for (i = 0; i < n; i++)
		if (atomic_load(&s->parts[i].head) != atomic_load(&s->parts[i].tail))
			return 0;
	return 1;
}

int
supervisor_run(struct broker *b, const char *bound, int *unlink_ok)
{
	struct sigaction	 sa;
	struct timespec		 ts;
	sigset_t		 block, origmask;
	int64_t			 now, next;
	int			 i;

	nchildren = b->nslots;
	children = calloc((size_t)nchildren, sizeof(*children));
	if (children == NULL)
		fatal("calloc");
	for (i = 0; i < nchildren; i++) {
		children[i].slot = i;
		if (i == broker_writer_slot(b))
			children[i].role = ROLE_WRITER;
		else if (i == broker_metrics_slot(b))
			children[i].role = ROLE_METRICS;
		else if (i == broker_cleaner_slot(b))
			children[i].role = ROLE_CLEANER;
		else
			children[i].role = ROLE_WORKER;
		b->shm.children[i].role = children[i].role;
	}

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &block, &origmask) == -1)
		fatal("sigprocmask");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sup_sighandler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: ppoll must return EINTR */
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	/* The writer first, so the rings have a consumer before producers. */
	if (child_spawn(b, &children[broker_writer_slot(b)], &origmask) == -1)
		fatalx("cannot start the writer");
	for (i = 0; i < nchildren; i++)
		if (i != broker_writer_slot(b) &&
		    child_spawn(b, &children[i], &origmask) == -1)
			children[i].respawn_at = clock_mono_ms() +
			    SUPERVISOR_BACKOFF_MIN_MS;
	log_info("listening on %s", bound);

	phase = PHASE_RUN;
	exit_status = 0;
	writer_clean = 0;
	for (;;) {
		/*
		 * Shutdown first: a terminal's ^C signals the whole process
		 * group, so the children's exits arrive with it and must
		 * not be taken for crashes and respawned.
		 */
		if (sig_term) {
			sig_term = 0;
			if (phase == PHASE_RUN) {
				log_info("shutting down");
				shutdown_begin(b, 0);
			}
		}
		if (sig_chld) {
			sig_chld = 0;
			reap(b);
		}
		if (sig_hup) {
			sig_hup = 0;
			if (phase == PHASE_RUN)
				(void)live_reload(b);
		}
		/*
		 * A worker changed the auth_file (worker/op/acl.c): read it
		 * again.  Cleared before the read, so a change written
		 * after it is read by the next turn.
		 */
		if (sig_users) {
			sig_users = 0;
			if (phase == PHASE_RUN)
				(void)live_reload_users(b, 1);
		}
		now = clock_mono_ms();
		if (phase != PHASE_RUN) {
			shutdown_step(b, now);
			if (phase == PHASE_DONE)
				break;
		}

		next = INT64_MAX;
		for (i = 0; i < nchildren; i++) {
			struct child	*ch = &children[i];

			if (phase != PHASE_RUN || ch->pid != 0 ||
			    ch->retired || ch->respawn_at == 0)
				continue;
			if (ch->respawn_at <= now) {
				if (child_spawn(b, ch, &origmask) == -1)
					ch->respawn_at = now +
					    SUPERVISOR_BACKOFF_MAX_MS;
				else
					continue;
			}
			if (ch->respawn_at < next)
				next = ch->respawn_at;
		}
		if (phase != PHASE_RUN && phase_deadline < next)
			next = phase_deadline;

		if (sig_chld || sig_term || sig_hup || sig_users)
			continue;
		if (next == INT64_MAX) {
			ppoll(NULL, 0, NULL, &origmask);
		} else {
			next -= clock_mono_ms();
			if (next < 0)
				next = 0;
			ts.tv_sec = next / 1000;
			ts.tv_nsec = (next % 1000) * 1000000;
			ppoll(NULL, 0, &ts, &origmask);
		}
	}

	/*
	 * The writer crashed, was killed, or exited before the last worker
	 * (a process-group signal): what the rings still hold goes to disk
	 * the way the next start would do it, in a child (drain.h).  If that
	 * fails too, the region is kept and the next start drains it.
	 */
	if (!writer_clean && rings_empty(&b->shm))
		writer_clean = 1;
	if (!writer_clean) {
		log_info("the writer did not drain after the last worker "
		    "stopped: draining the rings in a child");
		if (drain_child(&b->shm, b->conf, 0) == 0)
			writer_clean = 1;
		else
			log_warnx("draining the rings failed: the shared memory "
			    "is kept for the next start");
	}
	*unlink_ok = writer_clean;
	free(children);
	children = NULL;
	sigprocmask(SIG_SETMASK, &origmask, NULL);
	return exit_status;
}
