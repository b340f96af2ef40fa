/*
 * The auth_file as the master last validated it, handed to the workers
 * through shared memory so that SIGHUP reaches every running worker
 * (one forked later inherits the master's table instead).
 *
 * A seqlock with one writer, the master, like hdr->live: seq is odd
 * while it writes the text; generation is bumped before seq turns even
 * again (publish-last).  A reader copies the text between two loads of
 * seq and keeps the copy only when both saw the same even value.  A
 * master that dies mid-write leaves seq odd: readers, whose retries are
 * bounded, keep the table they have, and the next master publishes its
 * own at start.
 */
#ifndef FLUME_SHM_AUTHPUB_H
#define FLUME_SHM_AUTHPUB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "shm/shm.h"

#define AUTHPUB_TEXT_MAX	(1u << 20)	/* = AUTH_FILE_MAX (worker/auth.h) */

struct shm_authpub {
	_Atomic uint32_t	seq;
	_Atomic uint32_t	generation;	/* 0: never published */
	_Atomic uint32_t	len;
	uint32_t		pad0;
	uint8_t			text[AUTHPUB_TEXT_MAX];
};

/* Master: publish len bytes of text (len <= AUTHPUB_TEXT_MAX); the new generation. */
uint32_t authpub_publish(struct shm *s, const void *text, size_t len);
/* The generation published last (0: none). */
uint32_t authpub_generation(const struct shm *s);
/*
 * Copy the published text into buf (AUTHPUB_TEXT_MAX bytes): 1 with *len
 * and *gen, 0 when no consistent copy could be taken now (try later).
 */
int	authpub_read(const struct shm *s, uint8_t *buf, size_t *len,
	    uint32_t *gen);

#endif
