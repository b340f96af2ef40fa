/*
 * Test-only fault injection (see fault.h).  The store's seam (store/io.h)
 * is wrapped in the writer process only, so a test can fill the disk of
 * the real daemon and clear it again without root or a small filesystem.
 *
 * Compiled in only with FLUME_FAULT_SEAMS, into the test build of the
 * broker (build/tests/flume-master-seams); the shipped flume-master gets
 * the empty functions at the end and reads none of these variables.
 */
#ifdef FLUME_FAULT_SEAMS
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/string.h>

#include "master/fault.h"
#include "common/log.h"
#include "store/io.h"
#include <signal.h>

enum fault_kind { FAULT_NONE, FAULT_ENOSPC, FAULT_EIO, FAULT_FSYNC };

static struct {
	enum fault_kind	 kind;
	unsigned long long limit;	/* bytes written before writes fail */
	/* Also read by the writer's sync threads (fdatasync). */
	_Atomic unsigned long long written;
	char		 path[1024];	/* fault holds while this exists */
	_Atomic int	 over;		/* PATH disappeared: no more faults */
	ssize_t		(*write)(int, const void *, size_t);
	int		(*fdatasync)(int);
} fault;

/*
 * FLUME_TEST_FSYNC_LOG: every fdatasync and write through store_io
 * appends one line to this file, with one write(2) on an O_APPEND
 * descriptor so lines of the master and the writer never mix:
 *	ROLE fdatasync PATH RESULT
 *	ROLE write PATH LEN RESULT
 * RESULT is "ok" or the errno name.  Outermost wrapper: it also sees the
 * calls an injected fault fails.
 */
static struct {
	int		 fd;
	const char	*role;
	ssize_t		(*write)(int, const void *, size_t);
	int		(*fdatasync)(int);
} trace;

static void
trace_line(const char *op, int fd, long long len, int ok, int err)
{
	char link[64], path[1024], line[1200], num[32] = "";
	ssize_t n;
	int k;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) < 0)
		n = 0;
	path[n] = '\0';
	if (len >= 0)
		snprintf(num, sizeof(num), " %lld", len);
	k = snprintf(line, sizeof(line), "%s %s %s%s %s\n", trace.role, op,
	    path, num, ok ? "ok" : strerrorname_np(err));
	if (k > 0 && (size_t)k < sizeof(line))
		(void)!write(trace.fd, line, (size_t)k);
}

static int
trace_fdatasync(int fd)
{
	int rc, saved;

	rc = trace.fdatasync(fd);
	saved = errno;
	trace_line("fdatasync", fd, -1, rc == 0, saved);
	errno = saved;
	return rc;
}

static ssize_t
trace_write(int fd, const void *buf, size_t len)
{
	ssize_t n;
	int saved;

	n = trace.write(fd, buf, len);
	saved = errno;
	trace_line("write", fd, n >= 0 ? (long long)n : (long long)len, n >= 0,
	    saved);
	errno = saved;
	return n;
}

void
fault_trace_install(const char *role)
{
	const char *v = getenv("FLUME_TEST_FSYNC_LOG");

	if (v == NULL || *v == '\0')
		return;
	trace.role = role;
	if (store_io.fdatasync == trace_fdatasync)
		return;		/* inherited from the master: only the role changes */
	if ((trace.fd = open(v, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0600)) == -1) {
		log_warn("FLUME_TEST_FSYNC_LOG=%s", v);
		return;
	}
	trace.write = store_io.write;
	trace.fdatasync = store_io.fdatasync;
	store_io.write = trace_write;
	store_io.fdatasync = trace_fdatasync;
	log_warnx("TEST FAULT INJECTION: writes and fdatasync calls logged "
	    "to %s", v);
}

/* Does the fault hold now?  Once its file is gone it never does again. */
static int
fault_active(void)
{
	if (fault.over)
		return 0;
	if (access(fault.path, F_OK) == -1) {
		fault.over = 1;
		log_info("test fault cleared (%s is gone)", fault.path);
		return 0;
	}
	return 1;
}

static ssize_t
fault_write(int fd, const void *buf, size_t len)
{
	unsigned long long room;
	ssize_t n;

	if (fault.kind == FAULT_ENOSPC || fault.kind == FAULT_EIO) {
		room = fault.written < fault.limit ? fault.limit - fault.written : 0;
		if (len > room && fault_active()) {
			if (room == 0) {
				errno = fault.kind == FAULT_ENOSPC ? ENOSPC : EIO;
				return -1;
			}
			len = (size_t)room;	/* a short write, then the error */
		}
	}
	n = fault.write(fd, buf, len);
	if (n > 0)
		fault.written += (unsigned long long)n;
	return n;
}

static int
fault_fdatasync(int fd)
{
	if (fault.kind == FAULT_FSYNC && fault.written >= fault.limit &&
	    fault_active()) {
		errno = EIO;
		return -1;
	}
	return fault.fdatasync(fd);
}

int
fault_store_install(void)
{
	const char *v = getenv("FLUME_FAULT");
	char kind[16], *end;
	const char *p, *q;

	if (v == NULL || *v == '\0')
		return 0;
	if ((p = strchr(v, ':')) == NULL || (q = strchr(p + 1, ':')) == NULL ||
	    (size_t)(p - v) >= sizeof(kind) || q[1] == '\0')
		goto bad;
	memcpy(kind, v, (size_t)(p - v));
	kind[p - v] = '\0';
	if (strcmp(kind, "enospc") == 0)
		fault.kind = FAULT_ENOSPC;
	else if (strcmp(kind, "eio") == 0)
		fault.kind = FAULT_EIO;
	else if (strcmp(kind, "fsync") == 0)
		fault.kind = FAULT_FSYNC;
	else
		goto bad;
	errno = 0;
	fault.limit = strtoull(p + 1, &end, 10);
	if (errno != 0 || end != q)
		goto bad;
	if (strlcpy(fault.path, q + 1, sizeof(fault.path)) >= sizeof(fault.path))
		goto bad;
	/* Under the trace, if there is one, so the trace sees the failures. */
	if (store_io.fdatasync == trace_fdatasync) {
		fault.write = trace.write;
		fault.fdatasync = trace.fdatasync;
		trace.write = fault_write;
		trace.fdatasync = fault_fdatasync;
	} else {
		fault.write = store_io.write;
		fault.fdatasync = store_io.fdatasync;
		store_io.write = fault_write;
		store_io.fdatasync = fault_fdatasync;
	}
	log_warnx("TEST FAULT INJECTION: FLUME_FAULT=%s", v);
	return 0;
bad:
	log_warnx("FLUME_FAULT=%s: expected enospc|eio|fsync:BYTES:PATH", v);
	fault.kind = FAULT_NONE;
	errno = EINVAL;
	return -1;
}

void
fault_child_start(const char *role, int restarts)
{
	const char *v = getenv("FLUME_TEST_CHILD_EXIT");
	size_t n;
	char *end;
	long status, count = -1;

	if (v == NULL || *v == '\0')
		return;
	n = strcspn(v, ":");
	if (v[n] != ':' || n == 0 || strncmp(role, v, n) != 0)
		return;
	status = strtol(v + n + 1, &end, 10);
	if (end == v + n + 1 || status < 0 || status > 255)
		return;
	if (*end == ':')
		count = strtol(end + 1, NULL, 10);
	if (count >= 0 && restarts >= count)
		return;
	log_warnx("TEST FAULT INJECTION: %s exits with status %ld at start",
	    role, status);
	_exit((int)status);
}

void
fault_delete_crash(pid_t master)
{
	const char *v = getenv("FLUME_TEST_DELETE_CRASH");

	if (v == NULL || *v == '\0')
		return;
	log_warnx("TEST FAULT INJECTION: FLUME_TEST_DELETE_CRASH: the master "
	    "is killed after the rename");
	if (master > 1)
		kill(master, SIGKILL);
	_exit(1);
}

#else	/* !FLUME_FAULT_SEAMS: the shipped broker */

#include "master/fault.h"

void
fault_trace_install(const char *role)
{
}

int
fault_store_install(void)
{
	return 0;
}

void
fault_child_start(const char *role, int restarts)
{
}

void
fault_delete_crash(pid_t master)
{
}

#endif
