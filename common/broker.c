/*
 * Helpers on struct broker shared by every child process.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "common/broker.h"

/*
 * Wake the child in slot by adding 1 to its eventfd.  A full counter
 * (EAGAIN) already means "wake up", and a failed wake-up is only a lost
 * hint: every sleeper also has a timeout, so nothing is reported.
 */
void
broker_wake(const struct broker *b, int slot)
{
	uint64_t	one = 1;
	ssize_t		n;

	if (b == NULL || b->eventfds == NULL || slot < 0 || slot >= b->nslots)
		return;
	do
		n = write(b->eventfds[slot], &one, sizeof(one));
	while (n == -1 && errno == EINTR);
}

int
broker_writer_slot(const struct broker *b)
{
	return b->nslots - 2 - (b->has_metrics ? 1 : 0);
}

int
broker_cleaner_slot(const struct broker *b)
{
	return broker_writer_slot(b) + 1;
}

int
broker_metrics_slot(const struct broker *b)
{
	return b->has_metrics ? b->nslots - 1 : -1;
}
