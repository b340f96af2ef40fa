/*
 * Fault injection for tests, through environment variables read only by
 * the test build of the broker (compiled with FLUME_FAULT_SEAMS; the
 * shipped one has empty functions), documented in flume-master.8, TESTING:
 *
 *   FLUME_FAULT=KIND:BYTES:PATH   (read by the writer only)
 *	KIND enospc or eio: once the writer has written BYTES bytes to
 *	segments, every write fails with that errno (the one crossing
 *	the limit is cut short first) for as long as the file PATH
 *	exists; KIND fsync: once the writer has written BYTES bytes,
 *	fdatasync fails with EIO while PATH exists.  Removing PATH ends
 *	the fault for good.
 *
 *   FLUME_TEST_FSYNC_LOG=PATH   (master, and the writer it forks)
 *	every write and fdatasync of a segment, a small file or a
 *	directory is appended to PATH as a line "ROLE fdatasync PATH
 *	RESULT" or "ROLE write PATH LEN RESULT" (RESULT "ok" or an errno
 *	name such as EIO), so a test can count exactly what was written
 *	and synced, by whom, before an answer.
 *
 *   FLUME_TEST_CHILD_EXIT=ROLE:STATUS[:COUNT]   (read by each child)
 *	a child of that role ("worker" or "writer") exits with STATUS
 *	right after it is forked, for its first COUNT starts (every
 *	start without COUNT), as a child that cannot start would.
 *
 *   FLUME_TEST_DELETE_CRASH=1   (writer)
 *	the writer kills the master and exits right after a topic
 *	delete's rename, as a power cut would.
 */
#ifndef FLUME_MASTER_FAULT_H
#define FLUME_MASTER_FAULT_H

#include <sys/types.h>

/*
 * Master before recovery ("master"), writer at start ("writer"): log
 * store_io.fdatasync calls as FLUME_TEST_FSYNC_LOG says (no-op when unset).
 */
void	fault_trace_install(const char *role);
/* Writer: wrap store_io as FLUME_FAULT says (no-op when unset). 0 or -1. */
int	fault_store_install(void);
/*
 * Child, right after fork: exit as FLUME_TEST_CHILD_EXIT says when role
 * ("worker 1", "writer") matches and restarts is below COUNT.
 */
void	fault_child_start(const char *role, int restarts);
/* Writer, after a delete's rename: as FLUME_TEST_DELETE_CRASH says. */
void	fault_delete_crash(pid_t master);

#endif
