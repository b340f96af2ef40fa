/*
 * The authentication throttle (issue 32 item 7): failed logins are
 * counted per client address and minute, in each worker's own table
 * (worker/addrtab.h, AUTHLIMIT_SLOTS entries).  Past
 * auth_throttle_after failures, the answer to every further attempt
 * from that address waits auth_throttle_delay_ms (the request is
 * parked; the event loop goes on); past auth_throttle_max, attempts are
 * refused with the usual authentication error and their password is
 * not even checked, until the minute is over.  So a guesser costs the
 * worker a few key derivations a minute, and other addresses are
 * served as before.
 *
 * An attempt is counted as a failure when it starts (authlimit_begin)
 * and taken back when it succeeds (authlimit_success), so attempts sent
 * together cannot all slip in before the first of them failed.
 */
#ifndef FLUME_WORKER_AUTHLIMIT_H
#define FLUME_WORKER_AUTHLIMIT_H

#include <stdint.h>

struct worker;
struct conn;
struct req;

#define AUTHLIMIT_SLOTS		1024
#define AUTHLIMIT_WINDOW_MS	60000

enum authlimit_verdict {
	AUTHLIMIT_GO = 0,	/* check it now */
	AUTHLIMIT_WAIT,		/* parked: r is BLOCKED until r->deadline */
	AUTHLIMIT_REFUSE	/* fail it unchecked */
};

/*
 * Worker, before checking the password or proof that request r of c
 * carries: the attempt starts (counted as a failure of c's address) and
 * the verdict says what to do with it.  A request parked by
 * AUTHLIMIT_WAIT is executed again and comes back here: AUTHLIMIT_WAIT
 * until its deadline (or shutdown), then AUTHLIMIT_GO.
 */
int	authlimit_check(struct conn *c, struct req *r);
/* Worker: the attempt authlimit_check counted for c succeeded. */
void	authlimit_success(struct conn *c);
/* Tests: forget everything. */
void	authlimit_reset(void);

#endif
