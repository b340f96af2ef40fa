/*
 * Growing a topic in the shared region (shm_topic_grow, shm/slots.c's
 * slots_grow and slots_release, the shm_topic_slot accessor): in place,
 * through extents, from holes, out of room, published last, and the
 * crash rule (no slot ever owned twice, a grow cut short leaves slots
 * owned by nobody or by the topic, never half a topic).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm/lock.h"
#include "shm/shm.h"
#include "shm/slots.h"
#include "shm/topics.h"
#include "tests/harness.h"
#include "tests/unit/fixture_shm.h"

static int
setup(void)
{
	return 0;
}

static int
teardown(void)
{
	shm_unlink_name(fixture_shm_name());
	return 0;
}

static void
region(struct shm *s, uint32_t topics, uint32_t parts)
{
	const struct shm_limits lim = {
		.child_slots = 3, .max_topics = topics, .max_partitions = parts,
		.ring_size = 4096
	};

	CU_ASSERT_EQUAL_FATAL(shm_create(s, fixture_shm_name(), &lim), 0);
}

/*
 * Every entry below topic_count owns its first run, and a READY or
 * DELETING one its extents, inside [0, parts_used); no slot is owned
 * twice; a FREE entry has no extent; a topic's partitions and its grow
 * fit its capacity.  The number of slots owned.
 */
static int
owned_sound(struct shm *s)
{
	uint8_t owned[256];
	uint32_t ti, i, e, n = atomic_load(&s->hdr->topic_count),
	    used = atomic_load(&s->hdr->parts_used);
	const struct shm_topic *t;
	int total = 0;

	CU_ASSERT_FATAL(s->hdr->limits.max_partitions <= sizeof(owned));
	CU_ASSERT_FATAL(used <= s->hdr->limits.max_partitions);
	memset(owned, 0, sizeof(owned));
	for (ti = 0; ti < n; ti++) {
		t = &s->topics[ti];
		if (atomic_load(&t->state) == TOPIC_FREE) {
			for (e = 0; e < SHM_TOPIC_EXTENTS; e++)
				CU_ASSERT_EQUAL(t->ext[e].span, 0);
		} else {
			CU_ASSERT(shm_topic_capacity(t) >= (uint32_t)t->partitions);
			CU_ASSERT(shm_topic_capacity(t) >=
			    (uint32_t)atomic_load(&t->grow_to));
		}
		CU_ASSERT_FATAL(t->span <= used && t->first_part <= used - t->span);
		for (i = t->first_part; i < t->first_part + t->span; i++) {
			CU_ASSERT_EQUAL(owned[i], 0);
			owned[i] = 1;
			total++;
		}
		for (e = 0; e < SHM_TOPIC_EXTENTS; e++) {
			CU_ASSERT_FATAL(t->ext[e].span <= used &&
			    t->ext[e].first <= used - t->ext[e].span);
			for (i = t->ext[e].first;
			    i < t->ext[e].first + t->ext[e].span; i++) {
				CU_ASSERT_EQUAL(owned[i], 0);
				owned[i] = 1;
				total++;
			}
		}
	}
	return total;
}

/* Grow name to n as a worker and then the writer do; the entry. */
static int
grow(struct shm *s, const char *name, int32_t n)
{
	int32_t cur;
	int ti = shm_topic_grow(s, name, strlen(name), n, &cur);

	if (ti >= 0)
		shm_topic_grow_publish(s, ti, n);
	return ti;
}

static void
delete_topic(struct shm *s, const char *name)
{
	int ti = shm_topic_delete_begin(s, name, strlen(name));

	CU_ASSERT_FATAL(ti >= 0);
	shm_topic_delete_end(s, ti);
}

/*
 * The last topic grows in place; the new partitions are invisible until
 * the count is published, then empty, live and numbered.
 */
static void
test_grow_in_place(void)
{
	struct shm s;
	int32_t cur = -1;
	int ti;

	region(&s, 4, 12);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "a", 1, 2, NULL), 0);
	s.parts[2].next_offset = 77;	/* left by an earlier owner */
	atomic_store(&s.parts[2].dead, 1);
	ti = shm_topic_grow(&s, "a", 1, 4, &cur);
	CU_ASSERT_EQUAL(ti, 0);
	CU_ASSERT_EQUAL(cur, 2);
	CU_ASSERT_EQUAL(s.topics[0].span, 4);
	CU_ASSERT_EQUAL(s.topics[0].ext[0].span, 0);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 4);
	CU_ASSERT_EQUAL(atomic_load(&s.topics[0].grow_to), 4);
	/* Asked, not published: readers still see two partitions. */
	CU_ASSERT_EQUAL(s.topics[0].partitions, 2);
	CU_ASSERT_PTR_NULL(shm_partition(&s, 0, 2));
	shm_topic_grow_publish(&s, 0, 4);
	CU_ASSERT_EQUAL(s.topics[0].partitions, 4);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 0, 2), &s.parts[2]);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 0, 3), &s.parts[3]);
	CU_ASSERT_PTR_NULL(shm_partition(&s, 0, 4));
	CU_ASSERT_EQUAL(s.parts[2].next_offset, 0);
	CU_ASSERT_EQUAL(atomic_load(&s.parts[2].dead), 0);
	CU_ASSERT_EQUAL(s.parts[3].topic, 0);
	CU_ASSERT_EQUAL(s.parts[3].partition, 3);
	CU_ASSERT_EQUAL(owned_sound(&s), 4);
	shm_detach(&s);
}

/*
 * A topic whose next slots are another's grows by extents; partition i
 * maps through them in order; both topics keep their slots; a delete
 * hands the extents on as holes that a create reuses.
 */
static void
test_grow_extents(void)
{
	struct shm s;
	const struct shm_topic *a;
	uint32_t i;
	static const uint32_t want[6] = { 0, 1, 4, 5, 6, 8 };

	region(&s, 6, 16);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "a", 1, 2, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "b", 1, 2, NULL), 1);
	CU_ASSERT_EQUAL(grow(&s, "a", 5), 0);
	a = &s.topics[0];
	CU_ASSERT_EQUAL(a->span, 2);
	CU_ASSERT_EQUAL(a->ext[0].first, 4);
	CU_ASSERT_EQUAL(a->ext[0].span, 3);
	/* b's next slot is a's now: b takes an extent too. */
	CU_ASSERT_EQUAL(grow(&s, "b", 3), 1);
	CU_ASSERT_EQUAL(s.topics[1].ext[0].first, 7);
	CU_ASSERT_EQUAL(grow(&s, "a", 6), 0);
	CU_ASSERT_EQUAL(a->ext[1].first, 8);
	CU_ASSERT_EQUAL(a->ext[1].span, 1);
	CU_ASSERT_EQUAL(shm_topic_capacity(a), 6);
	for (i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(shm_topic_slot(&s, a, i), want[i]);
		CU_ASSERT_PTR_EQUAL(shm_partition(&s, 0, (int32_t)i),
		    &s.parts[want[i]]);
		CU_ASSERT_EQUAL(s.parts[want[i]].partition, (int32_t)i);
		CU_ASSERT_EQUAL(s.parts[want[i]].topic, 0);
	}
	CU_ASSERT_EQUAL(shm_topic_slot(&s, a, 6), UINT32_MAX);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 1, 2), &s.parts[7]);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 1, 1), &s.parts[3]);
	CU_ASSERT_EQUAL(owned_sound(&s), 9);

	/* Deleted: its extents become holes of entries of their own. */
	delete_topic(&s, "a");
	CU_ASSERT_EQUAL(owned_sound(&s), 9);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->topic_count), 4);
	CU_ASSERT_EQUAL(a->ext[0].span, 0);
	/* The three-slot hole [4, 7) takes a topic of three. */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "c", 1, 3, NULL), 2);
	CU_ASSERT_EQUAL(s.topics[2].first_part, 4);
	CU_ASSERT_EQUAL(owned_sound(&s), 9);
	shm_detach(&s);
}

/* A deleted topic's slots (a hole) become another topic's extent. */
static void
test_grow_from_hole(void)
{
	struct shm s;

	region(&s, 4, 6);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "a", 1, 2, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "b", 1, 2, NULL), 1);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "c", 1, 2, NULL), 2);
	delete_topic(&s, "b");
	CU_ASSERT_EQUAL(grow(&s, "a", 4), 0);
	CU_ASSERT_EQUAL(s.topics[0].ext[0].first, 2);
	CU_ASSERT_EQUAL(s.topics[0].ext[0].span, 2);
	CU_ASSERT_EQUAL(s.topics[1].span, 0);	/* the hole let go */
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 6);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 0, 3), &s.parts[3]);
	CU_ASSERT_EQUAL(owned_sound(&s), 6);
	shm_detach(&s);
}

/*
 * Refusals change nothing: unknown topic, a count not above the current
 * one (or the one a grow already asked for), past max_partitions, no
 * free slot, every extent used.
 */
static void
test_grow_refused(void)
{
	struct shm s;
	int32_t cur = -1;
	int i;

	region(&s, 4, 6);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "a", 1, 3, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "b", 1, 2, NULL), 1);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "x", 1, 4, &cur), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "a", 1, 3, &cur), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(cur, 3);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "a", 1, 2, &cur), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "a", 1, 7, &cur), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	/* One slot left: 5 fits, then nothing more. */
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "b", 1, 3, &cur), 1);
	/* Asked but not published: 3 is taken already. */
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "b", 1, 3, &cur), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(cur, 3);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "a", 1, 4, &cur), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	CU_ASSERT_EQUAL(s.topics[0].partitions, 3);
	CU_ASSERT_EQUAL(atomic_load(&s.topics[0].grow_to), 0);
	CU_ASSERT_EQUAL(shm_topic_capacity(&s.topics[0]), 3);
	CU_ASSERT_EQUAL(owned_sound(&s), 6);
	shm_detach(&s);

	/* Two topics growing in turn use up a's extents. */
	region(&s, 4, 32);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "a", 1, 1, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "b", 1, 1, NULL), 1);
	for (i = 0; i < SHM_TOPIC_EXTENTS; i++) {
		CU_ASSERT_EQUAL(grow(&s, "a", 2 + i), 0);
		CU_ASSERT_EQUAL(grow(&s, "b", 2 + i), 1);
	}
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "a", 1, 2 + i, &cur), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	CU_ASSERT_EQUAL(s.topics[0].partitions, 1 + SHM_TOPIC_EXTENTS);
	CU_ASSERT_EQUAL(owned_sound(&s), 2 * (1 + SHM_TOPIC_EXTENTS));
	/* An entry owning fewer slots than its partitions is not grown. */
	__atomic_store_n(&s.topics[1].partitions, 9, __ATOMIC_RELEASE);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "b", 1, 10, &cur), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	shm_detach(&s);
}

/*
 * A grow cut short.  A worker that dies holding dir_lock after taking
 * the slots but before asking (grow_to) leaves them owned by the topic,
 * unpublished; the next grow uses them without taking more.  One that
 * dies after asking leaves the writer its work: readers see the old
 * count until it publishes.  A hole emptied with its extent not yet
 * stored leaves slots owned by nobody, never twice.
 */
static void
test_grow_crash(void)
{
	struct shm s;
	int32_t cur = -1;
	pid_t pid;
	int st;

	region(&s, 4, 12);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "a", 1, 2, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "b", 1, 2, NULL), 1);
	pid = fork();
	CU_ASSERT_FATAL(pid != -1);
	if (pid == 0) {
		if (lock_take(&s.hdr->dir_lock, NULL, NULL) < 0 ||
		    slots_grow(&s, 0, 3) == -1)
			_exit(1);
		_exit(0);	/* dies holding dir_lock */
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(owned_sound(&s), 7);
	CU_ASSERT_EQUAL(s.topics[0].partitions, 2);
	CU_ASSERT_PTR_NULL(shm_partition(&s, 0, 2));
	/* The next grow takes the lock over and uses what was taken. */
	CU_ASSERT_EQUAL(shm_topic_grow(&s, "a", 1, 5, &cur), 0);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 7);
	CU_ASSERT_EQUAL(owned_sound(&s), 7);
	/* Asked, the writer not done: still the old topic to readers. */
	CU_ASSERT_EQUAL(s.topics[0].partitions, 2);
	CU_ASSERT_PTR_NULL(shm_partition(&s, 0, 4));
	shm_topic_grow_publish(&s, 0, 5);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 0, 4), &s.parts[6]);

	/* A hole emptied, the extent never stored: nobody owns it. */
	delete_topic(&s, "b");
	CU_ASSERT_EQUAL(owned_sound(&s), 7);
	__atomic_store_n(&s.topics[1].span, 0, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(owned_sound(&s), 5);
	CU_ASSERT_EQUAL(grow(&s, "a", 6), 0);
	CU_ASSERT_EQUAL(owned_sound(&s), 6);
	shm_detach(&s);
}

/*
 * With the topic table full a deleted topic's extents have no entry to
 * go to: owned by nobody until the next start, never twice.
 */
static void
test_grow_release_full(void)
{
	struct shm s;

	region(&s, 2, 8);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "a", 1, 1, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "b", 1, 1, NULL), 1);
	CU_ASSERT_EQUAL(grow(&s, "a", 3), 0);
	CU_ASSERT_EQUAL(owned_sound(&s), 4);
	delete_topic(&s, "a");
	CU_ASSERT_EQUAL(owned_sound(&s), 2);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "c", 1, 1, NULL), 0);
	CU_ASSERT_EQUAL(owned_sound(&s), 2);
	shm_detach(&s);
}

TEST_SUITE("shm_grow", setup, teardown,
	{ "grow_in_place", test_grow_in_place },
	{ "grow_extents", test_grow_extents },
	{ "grow_from_hole", test_grow_from_hole },
	{ "grow_refused", test_grow_refused },
	{ "grow_crash", test_grow_crash },
	{ "grow_release_full", test_grow_release_full });
