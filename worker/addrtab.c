/*
 * Tables keyed by client address (see worker/addrtab.h).
 */
#include <string.h>

#include <bsd/string.h>

#include "shm/ipcount.h"
#include "worker/addrtab.h"

void
addrtab_addr(const char *peer, char out[ADDRTAB_ADDR_MAX])
{
	const char *end;
	size_t len;

	if (peer[0] == '[' && (end = strchr(peer, ']')) != NULL) {
		peer++;
		len = (size_t)(end - peer);
	} else if ((end = strrchr(peer, ':')) != NULL &&
	    strchr(peer, ':') == end)
		len = (size_t)(end - peer);
	else
		len = strlen(peer);
	if (len >= ADDRTAB_ADDR_MAX)
		len = ADDRTAB_ADDR_MAX - 1;
	memcpy(out, peer, len);
	out[len] = '\0';
}

void *
addrtab_get(void *tab, size_t n, size_t size, const char *addr, int64_t now)
{
	struct addr_slot *e, *victim = NULL;
	size_t bucket, i;

	/* The same hash as the per-address connection counts. */
	bucket = (size_t)(ipcount_key(addr, strlen(addr)) %
	    (n / ADDRTAB_WAYS)) * ADDRTAB_WAYS;
	for (i = 0; i < ADDRTAB_WAYS; i++) {
		e = (struct addr_slot *)(void *)((char *)tab +
		    (bucket + i) * size);
		if (e->addr[0] != '\0' && strcmp(e->addr, addr) == 0) {
			e->used = now;
			return e;
		}
		if (victim == NULL || (victim->addr[0] != '\0' &&
		    (e->addr[0] == '\0' || e->used < victim->used)))
			victim = e;
	}
	memset(victim, 0, size);
	strlcpy(victim->addr, addr, sizeof(victim->addr));
	victim->used = now;
	return victim;
}
