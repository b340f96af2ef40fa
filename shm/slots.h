/*
 * Partition slot ranges of the topic directory (used by shm.c's topic
 * create, under dir_lock).
 *
 * Every topic entry below topic_count owns the slots [first_part,
 * first_part + span), and a grown READY or DELETING one its extents too
 * (shm.h); a FREE entry's range is a hole a create may fill.
 * Deleting topics leaves holes of their sizes behind, so without more a
 * broker whose slots were all used once could only make topics no larger
 * than the largest one it deleted.  Here holes that touch are merged
 * (the free slots after parts_used count as one more), a hole larger
 * than the topic gives its unused end to a FREE entry that owns nothing
 * (span 0), and the smallest hole that fits is taken first.
 *
 * The crash rule: a range only ever moves from one owner to another
 * through "owned by nobody" (the old owner's span shrinks first, the new
 * one's grows last; parts_used is raised before an entry claims the
 * slots it covers), so a process killed half-way leaves at worst slots
 * that nobody owns until the next start, never a slot owned twice.
 * Workers and the writer read only READY and DELETING entries' ranges,
 * which nothing here touches.  An entry keeps its first slot unless it
 * owned nothing, and one that takes a new first slot raises that slot's
 * incarnation above the old one's, so a topic remembered by its entry
 * and first slot's incarnation (group_topic_incarnation) never looks
 * like one made later in that entry.
 */
#ifndef FLUME_SHM_SLOTS_H
#define FLUME_SHM_SLOTS_H

#include <stdint.h>

#include "shm/shm.h"

/* Where a topic of n partitions goes. */
struct slots_pick {
	uint32_t	ti;	/* its entry */
	uint32_t	first;	/* its first partition slot */
	int		fresh;	/* 1: entry topic_count, slots from parts_used on,
				   neither counted yet; 0: a FREE entry below
				   topic_count whose span (>= n) covers them */
};

/*
 * Under dir_lock: room for a topic of n partitions, merging and trimming
 * holes as it goes.  0, or -1 with ENOSPC (ENOMEM when a merge could not
 * be worked out).
 */
int	slots_pick(struct shm *s, uint32_t n, struct slots_pick *pk);

/*
 * Under dir_lock: k more slots for READY entry ti, whose capacity is
 * all taken by its partitions and its pending grow.  Its last run grows
 * in place when it ends where parts_used does; else the slots come as
 * one more extent: the smallest hole that fits (trimmed), fresh slots
 * after parts_used, or merged holes, in that order.  The source lets go
 * first (a hole's span drops to 0, parts_used rises), the extent's span
 * is stored last, so a crash in between leaves the slots owned by
 * nobody, never by two.  0, or -1 with ENOSPC (no room, or every extent
 * used) or ENOMEM.
 */
int	slots_grow(struct shm *s, uint32_t ti, uint32_t k);
/*
 * Under dir_lock, the writer freeing DELETING entry ti: each extent is
 * handed to an entry that owns nothing (one that a merge emptied, else a
 * new one past topic_count), emptied first, so it becomes a hole like
 * the first run.  The slots of an extent no entry can take are owned by
 * nobody until the next start; their number is returned.
 */
uint32_t slots_release(struct shm *s, uint32_t ti);

#endif
