/*
 * The roles of the broker's child processes, as the WORKERS and STATS
 * answers carry them (a role i8) and the tools print them.
 */
#ifndef FLUME_PROTO_ROLE_H
#define FLUME_PROTO_ROLE_H

enum flume_role { ROLE_WORKER = 0, ROLE_WRITER = 1, ROLE_METRICS = 2,
	ROLE_CLEANER = 3 };
#define ROLE_COUNT	4

/* "worker", "writer", "metrics", "cleaner"; "unknown" for any other. */
const char *role_name(int role);

#endif
