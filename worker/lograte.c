/*
 * Rate-limited WARN lines per client address (see worker/lograte.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "worker/addrtab.h"
#include "worker/lograte.h"
#include "worker/worker.h"

#define LOGRATE_MSG_MAX	1024

struct lograte_entry {
	struct addr_slot slot;
	int64_t		 logged[LOGRATE_NKINDS];	/* last line at, ms; 0 none */
	uint32_t	 skipped[LOGRATE_NKINDS];	/* not logged since */
};

static struct lograte_entry lograte_tab[LOGRATE_SLOTS];
static int64_t	lograte_window;		/* start of the burst's minute */
static uint32_t	lograte_lines;		/* lines logged in it */
static uint32_t	lograte_over;		/* not logged for the burst limit */

void
lograte_reset(void)
{
	memset(lograte_tab, 0, sizeof(lograte_tab));
	lograte_window = 0;
	lograte_lines = 0;
	lograte_over = 0;
}

/* Log at WARN (warn 1) or INFO, if peer's address and the burst allow. */
static void
lograte_vlog(const struct worker *w, const char *peer, int kind, int warn,
    const char *fmt, va_list ap)
{
	struct lograte_entry *e;
	char addr[ADDRTAB_ADDR_MAX], msg[LOGRATE_MSG_MAX], more[160];
	int64_t now = w->now, every = w->conf->client_log_interval_ms;
	size_t len;

	addrtab_addr(peer, addr);
	e = addrtab_get(lograte_tab, LOGRATE_SLOTS, sizeof(*lograte_tab),
	    addr, now);
	if (every > 0 && e->logged[kind] != 0 && now - e->logged[kind] <
	    every) {
		e->skipped[kind]++;
		return;
	}
	if (lograte_window == 0 || now - lograte_window >= every) {
		lograte_window = now;
		lograte_lines = 0;
	}
	if (every > 0 && lograte_lines >= LOGRATE_BURST) {
		lograte_over++;
		return;
	}
	lograte_lines++;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	more[0] = '\0';
	if (e->skipped[kind] > 0)
		snprintf(more, sizeof(more), " (and %u more from %s in the "
		    "last %lld s, not logged)", e->skipped[kind], addr,
		    (long long)(now - e->logged[kind]) / 1000);
	if (lograte_over > 0) {
		len = strlen(more);
		snprintf(more + len, sizeof(more) - len, " (and %u more from "
		    "other addresses, not logged)", lograte_over);
		lograte_over = 0;
	}
	e->logged[kind] = now;
	e->skipped[kind] = 0;
	if (warn)
		log_warnx("%s: %s%s", peer, msg, more);
	else
		log_info("%s: %s%s", peer, msg, more);
}

void
lograte_warnx(const struct worker *w, const char *peer, int kind,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lograte_vlog(w, peer, kind, 1, fmt, ap);
	va_end(ap);
}

void
lograte_info(const struct worker *w, const char *peer, int kind,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lograte_vlog(w, peer, kind, 0, fmt, ap);
	va_end(ap);
}
