/*
 * Failed logins per client address (see worker/authlimit.h).
 */
#include <stdatomic.h>
#include <string.h>

#include "worker/addrtab.h"
#include "worker/authlimit.h"
#include "worker/conn.h"
#include "worker/worker.h"

struct authlimit_entry {
	struct addr_slot slot;
	int64_t		 since;		/* start of the counted minute */
	uint32_t	 failures;	/* in it, attempts under way included */
};

static struct authlimit_entry authlimit_tab[AUTHLIMIT_SLOTS];

void
authlimit_reset(void)
{
	memset(authlimit_tab, 0, sizeof(authlimit_tab));
}

static struct authlimit_entry *
authlimit_entry(struct worker *w, const char *peer)
{
	struct authlimit_entry *e;
	char addr[ADDRTAB_ADDR_MAX];

	addrtab_addr(peer, addr);
	e = addrtab_get(authlimit_tab, AUTHLIMIT_SLOTS, sizeof(*authlimit_tab),
	    addr, w->now);
	if (e->since == 0 || w->now - e->since >= AUTHLIMIT_WINDOW_MS) {
		e->since = w->now;
		e->failures = 0;
	}
	return e;
}

int
authlimit_check(struct conn *c, struct req *r)
{
	struct worker *w = c->w;
	const struct config *conf = w->conf;
	struct authlimit_entry *e;
	uint32_t before;
	int v = AUTHLIMIT_GO;

	if (r->state == REQ_BLOCKED) {
		if (w->now < r->deadline && !w->stopping)
			return AUTHLIMIT_WAIT;
		r->state = REQ_NEW;	/* its wait is over: the caller goes on */
		return AUTHLIMIT_GO;
	}
	e = authlimit_entry(w, c->peer);
	before = e->failures;
	if (e->failures < UINT32_MAX)
		e->failures++;
	if (conf->auth_throttle_max > 0 && before >= conf->auth_throttle_max)
		v = AUTHLIMIT_REFUSE;
	else if (before >= conf->auth_throttle_after &&
	    conf->auth_throttle_delay_ms > 0 && !w->stopping) {
		r->state = REQ_BLOCKED;
		r->deadline = w->now + conf->auth_throttle_delay_ms;
		v = AUTHLIMIT_WAIT;
	}
	if (v != AUTHLIMIT_GO && w->me != NULL)
		atomic_fetch_add_explicit(&w->me->auth_throttled, 1,
		    memory_order_relaxed);
	return v;
}

void
authlimit_success(struct conn *c)
{
	struct authlimit_entry *e = authlimit_entry(c->w, c->peer);

	if (e->failures > 0)
		e->failures--;
}
