/*
 * The STATS api for the tools (in libflume.a, not installed and not part
 * of flume.h): flume-admin stats.  The answer is the protocol's own
 * struct stats_resp (proto/msg.h), decoded into the caller's arena.
 */
#ifndef FLUME_CLIENTS_FLUME_STATS_H
#define FLUME_CLIENTS_FLUME_STATS_H

#include <stdio.h>

#include "clients/flume.h"
#include "proto/msg.h"
#include "proto/wire.h"

/*
 * Ask the broker for its figures; out's arrays and strings live in a.
 * 0, or -1 with flume_errstr(c) set (a broker error, a lost connection,
 * a malformed answer).
 */
int	flume_tool_stats(struct flume_client *c, struct arena *a,
	    struct stats_resp *out);

/*
 * Print st for a human, as flume-admin stats does: sections PARTITIONS,
 * PROCESSES, FSYNC, ERRORS and GROUP LAG, one row per line, columns
 * separated by spaces (so scripts may split them too).
 */
void	flume_tool_stats_print(FILE *f, const struct stats_resp *st);

/*
 * The cleaner's figures (the CLEANER api, issue 28), as flume_tool_stats:
 * 0, or -1 with flume_errstr(c) set.
 */
int	flume_tool_cleaner(struct flume_client *c, struct arena *a,
	    struct cleaner_resp *out);
/* The transaction coordinator's table (TRANSACTIONS, issue 29), the same way. */
int	flume_tool_transactions(struct flume_client *c, struct arena *a,
	    struct transactions_resp *out);

#endif
