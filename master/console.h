/*
 * The web console (flume-console(7)): a JSON API under /api/ and the
 * static pages of console_dir, served by the metrics child on the
 * metrics listener beside /metrics.
 *
 * It only reads: the shared region (lock-free loads, as the metrics do)
 * and the partition logs (store/plog.h's read-only reader, as FETCH
 * does).  It keeps a ring of samples of its own (one every
 * CONSOLE_SAMPLE_MS, an hour of them) for the throughput and lag graphs.
 * Reads are open as /metrics is; a write action (POST) needs HTTP Basic
 * credentials of an auth_file user with the admin permission.
 */
#ifndef FLUME_MASTER_CONSOLE_H
#define FLUME_MASTER_CONSOLE_H

#include <stdint.h>

#include <microhttpd.h>

#include "common/broker.h"

#define CONSOLE_SAMPLE_MS	10000	/* one sample every 10 s ... */
#define CONSOLE_SAMPLES		360	/* ... for an hour */
#define CONSOLE_GROUPS		64	/* groups whose lag the ring keeps */
#define CONSOLE_PAGE_MAX	500	/* records, topics, segments per answer */
#define CONSOLE_PAGE_DEFAULT	50
#define CONSOLE_READ_MAX	(1u << 20)	/* log bytes read per request */
#define CONSOLE_INFLATE_MAX	(16u << 20)	/* a compressed batch inflated */
#define CONSOLE_FILE_MAX	(4u << 20)	/* largest static file served */

struct console;

/* Metrics child, before the HTTP thread starts: the console's state. */
struct console *console_new(struct broker *b);
/* Main thread: take a sample when one is due (now: CLOCK_MONOTONIC ms). */
void	console_tick(struct console *c, int64_t now);
/* Main thread: a reload was published; take a new auth table if any. */
void	console_reload(struct console *c);
/*
 * HTTP thread: serve url if it is the console's (/api/..., or a page).
 * MHD_YES/MHD_NO as libmicrohttpd wants; *handled 0 when the url is not
 * the console's (the caller answers it).
 */
enum MHD_Result console_http(struct console *c, struct MHD_Connection *conn,
	    const char *url, const char *method, int *handled);

#endif
