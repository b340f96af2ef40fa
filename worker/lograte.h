/*
 * What clients do wrong is logged at most once a minute
 * (client_log_interval_ms) per client address and kind (issue 24 item 4, issue 32 item 9): a client that
 * retries a refused request, or sends garbage, costs one WARN line a
 * minute in each worker that serves it, and the next line it gets says
 * how many were not logged.  Over all addresses, a worker logs at most
 * LOGRATE_BURST such lines a minute, so many addresses cannot flood the
 * log either; the next line allowed counts those too.
 *
 * Each worker keeps its own table (worker/addrtab.h, LOGRATE_SLOTS
 * entries): nothing is shared, nothing can be left locked.
 */
#ifndef FLUME_WORKER_LOGRATE_H
#define FLUME_WORKER_LOGRATE_H

#include <stdint.h>

struct worker;

enum lograte_kind {
	LOGRATE_REFUSED = 0,	/* refused requests, malformed frames */
	LOGRATE_AUTH,		/* failed authentications */
	LOGRATE_NKINDS
};

#define LOGRATE_SLOTS		1024
#define LOGRATE_BURST		60

/*
 * Worker: log "peer: <fmt>" at WARN if no line of kind was logged for
 * peer's address within w->conf->client_log_interval_ms before w->now
 * (and the worker's LOGRATE_BURST allows it); else only count it.
 * An interval of 0 logs every one.
 */
void	lograte_warnx(const struct worker *w, const char *peer, int kind,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same at INFO, for refusals a working client meets in passing. */
void	lograte_info(const struct worker *w, const char *peer, int kind,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Tests: forget everything. */
void	lograte_reset(void);

#endif
