/*
 * A topic's dynamic settings in the shared region (issue 27): one entry
 * per topic table entry, valid for the topic whose id it carries (a
 * deleted topic's entry is simply ignored by the next one in its place).
 *
 * Publication, per the crash rule: two slots; generation g lives in
 * slot[g & 1].  A worker, under the header's dir_lock, writes slot
 * [(g + 1) & 1] whole and then stores gen = g + 1 with release.  A
 * reader loads gen, copies that slot and loads gen again: equal, the
 * copy is whole (a slot is rewritten only two publications later).  A
 * worker that dies mid-write never stored gen: readers see g, and the
 * next writer rewrites the half-written slot.  The writer persists
 * generation g to <topic>/topic.config and then stores saved = g, which
 * is what an alteration's answer waits for.
 */
#ifndef FLUME_SHM_TCONF_H
#define FLUME_SHM_TCONF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/names.h"
#include "proto/tconf.h"
#include "shm/shm.h"

struct shm_tconf_slot {
	uint8_t		id[TOPIC_ID_LEN];	/* the topic these are for */
	struct tconf	t;
};

struct shm_tconf {
	_Atomic uint32_t	gen;	/* published generation; 0: none ever */
	_Atomic uint32_t	saved;	/* persisted by the writer */
	struct shm_tconf_slot	slot[2];
};

size_t	shm_tconf_table_size(const struct shm_limits *lim);
/*
 * Copy the published settings of topic entry ti into *t when they are
 * for the topic with id id: 1, with their generation in *gen; 0 (t
 * cleared, *gen 0) when it has none.
 */
int	shm_tconf_read(struct shm *s, int ti, const uint8_t *id, struct tconf *t,
	    uint32_t *gen);
/*
 * Publish t as topic entry ti's settings for id; the caller holds
 * dir_lock (or is the master before fork).  The new generation.
 */
uint32_t shm_tconf_publish(struct shm *s, int ti, const uint8_t *id,
	    const struct tconf *t);
/* The writer saved generation gen of entry ti. */
void	shm_tconf_saved(struct shm *s, int ti, uint32_t gen);
uint32_t shm_tconf_saved_gen(struct shm *s, int ti);

#endif
