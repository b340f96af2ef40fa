/*
 * The shared region: naming, layout, create/attach checks, the topic
 * directory and its crash rule.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm/authpub.h"
#include "shm/lock.h"
#include "shm/producer.h"
#include "shm/shm.h"
#include "shm/tconf.h"
#include "shm/topics.h"
#include "tests/harness.h"
#include "tests/unit/fixture_shm.h"

static char	*tmpdir;

static const struct shm_limits small = {
	.child_slots = 3, .max_topics = 4, .max_partitions = 6, .ring_size = 4096
};

static int
setup(void)
{
	tmpdir = test_mkdtemp("shm");
	return 0;
}

static int
teardown(void)
{
	shm_unlink_name(fixture_shm_name());
	test_rmtree(tmpdir);
	free(tmpdir);
	return 0;
}

static void
test_name_for(void)
{
	char a[SHM_NAME_MAX], b[SHM_NAME_MAX], c[SHM_NAME_MAX], path[512], sub[512];
	size_t i;

	snprintf(sub, sizeof(sub), "%s/d", tmpdir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	CU_ASSERT_EQUAL(shm_name_for(tmpdir, a, sizeof(a)), 0);
	/* Another spelling of the same directory gives the same name. */
	snprintf(path, sizeof(path), "%s/d/..//.", tmpdir);
	CU_ASSERT_EQUAL(shm_name_for(path, b, sizeof(b)), 0);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_EQUAL(shm_name_for(sub, c, sizeof(c)), 0);
	CU_ASSERT_STRING_NOT_EQUAL(a, c);
	CU_ASSERT_EQUAL(strlen(a), strlen("/flume-") + 16);
	CU_ASSERT_EQUAL(strncmp(a, "/flume-", 7), 0);
	for (i = 7; i < strlen(a); i++)
		CU_ASSERT_PTR_NOT_NULL(strchr("0123456789abcdef", a[i]));

	snprintf(path, sizeof(path), "%s/missing", tmpdir);
	errno = 0;
	CU_ASSERT_EQUAL(shm_name_for(path, a, sizeof(a)), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	errno = 0;
	CU_ASSERT_EQUAL(shm_name_for(tmpdir, a, 10), -1);
	CU_ASSERT_EQUAL(errno, ENAMETOOLONG);
	rmdir(sub);
}

static void
test_layout(void)
{
	struct shm s;
	struct shm_limits bad;
	size_t size = shm_layout_size(&small);
	size_t rings_off;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &small), 0);
	CU_ASSERT_EQUAL(s.size, size);
	CU_ASSERT_EQUAL(s.hdr->layout_size, size);
	CU_ASSERT_PTR_EQUAL(s.hdr, s.base);
	CU_ASSERT_EQUAL(((uintptr_t)s.children - (uintptr_t)s.base) % 64, 0);
	CU_ASSERT_EQUAL(((uintptr_t)s.topics - (uintptr_t)s.base) % 64, 0);
	CU_ASSERT_EQUAL(((uintptr_t)s.parts - (uintptr_t)s.base) % 64, 0);
	rings_off = (uintptr_t)s.rings - (uintptr_t)s.base;
	CU_ASSERT_EQUAL(rings_off % 4096, 0);
	/* Tables in order, none overlapping the next. */
	CU_ASSERT((uint8_t *)s.children >= (uint8_t *)s.base + sizeof(struct shm_header));
	CU_ASSERT((uint8_t *)s.topics >= (uint8_t *)(s.children + small.child_slots));
	CU_ASSERT((uint8_t *)s.parts >= (uint8_t *)(s.topics + small.max_topics));
	CU_ASSERT(s.rings >= (uint8_t *)(s.parts + small.max_partitions));
	/* After the rings: the groups, the producers' table, the auth text last. */
	CU_ASSERT(s.groups >= s.rings + small.max_partitions * small.ring_size);
	CU_ASSERT(s.producers >= s.groups);
	CU_ASSERT_EQUAL(((uintptr_t)s.producers - (uintptr_t)s.base) % 64, 0);
	CU_ASSERT((uint8_t *)s.authpub >= s.producers +
	    producer_table_size(&small));
	CU_ASSERT_EQUAL(((uintptr_t)s.authpub - (uintptr_t)s.base) % 64, 0);
	CU_ASSERT(size >= (size_t)((uint8_t *)s.authpub - (uint8_t *)s.base) +
	    sizeof(struct shm_authpub));
	/* Then the topics' settings (shm/tconf.h), the ipcount tables last. */
	CU_ASSERT((uint8_t *)s.tconf >= (uint8_t *)s.authpub +
	    sizeof(struct shm_authpub));
	CU_ASSERT_EQUAL(((uintptr_t)s.tconf - (uintptr_t)s.base) % 64, 0);
	CU_ASSERT(size < (size_t)((uint8_t *)s.tconf - (uint8_t *)s.base) +
	    shm_tconf_table_size(&small) + 4096);
	CU_ASSERT_EQUAL(authpub_generation(&s), 0);
	CU_ASSERT_PTR_EQUAL(shm_ring_data(&s, &s.parts[5]), s.rings + 5 * 4096);
	CU_ASSERT_EQUAL(s.hdr->magic, SHM_MAGIC);
	CU_ASSERT_EQUAL(s.hdr->version, SHM_LAYOUT_VERSION);
	CU_ASSERT_EQUAL(s.hdr->master_pid, getpid());
	CU_ASSERT_EQUAL(s.children[0].role, ROLE_WORKER);
	CU_ASSERT_EQUAL(s.children[2].role, ROLE_WRITER);
	CU_ASSERT_EQUAL(s.children[2].state, CHILD_FREE);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->topic_count), 0);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 0);
	shm_detach(&s);

	/* Impossible limits have no layout. */
	bad = small;
	bad.ring_size = 4100;
	CU_ASSERT_EQUAL(shm_layout_size(&bad), 0);
	bad = small;
	bad.max_partitions = 0;
	CU_ASSERT_EQUAL(shm_layout_size(&bad), 0);
	bad = small;
	bad.max_partitions = UINT32_MAX;
	bad.ring_size = (uint64_t)1 << 31;
	CU_ASSERT_EQUAL(shm_layout_size(&bad), 0);	/* past off_t */
	errno = 0;
	bad = small;
	bad.child_slots = 0;
	CU_ASSERT_EQUAL(shm_create(&s, fixture_shm_name(), &bad), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
}

static void
test_create_attach(void)
{
	struct shm a, b;
	uint32_t gen;
	int idx;

	shm_unlink_name(fixture_shm_name());
	CU_ASSERT_EQUAL_FATAL(shm_create(&a, fixture_shm_name(), &small), 0);
	CU_ASSERT_EQUAL(a.hdr->generation, 1);
	gen = a.hdr->generation;
	CU_ASSERT_EQUAL(shm_topic_create(&a, "orders", 6, 2, &idx), 0);
	a.parts[1].next_offset = 1234;
	a.rings[3 * 4096 - 1] = 0x5a;

	CU_ASSERT_EQUAL_FATAL(shm_attach(&b, fixture_shm_name()), 0);
	CU_ASSERT_STRING_EQUAL(b.name, fixture_shm_name());
	CU_ASSERT_EQUAL(b.size, a.size);
	CU_ASSERT_EQUAL(memcmp(&b.hdr->limits, &small, sizeof(small)), 0);
	CU_ASSERT_EQUAL((uint8_t *)b.parts - (uint8_t *)b.base,
	    (uint8_t *)a.parts - (uint8_t *)a.base);
	CU_ASSERT_EQUAL((uint8_t *)b.rings - (uint8_t *)b.base,
	    (uint8_t *)a.rings - (uint8_t *)a.base);
	CU_ASSERT_EQUAL(shm_topic_find(&b, "orders", 6), 0);
	CU_ASSERT_EQUAL(b.parts[1].next_offset, 1234);
	CU_ASSERT_EQUAL(b.rings[3 * 4096 - 1], 0x5a);
	/* One mapping's writes are the other's reads. */
	b.parts[0].next_offset = 77;
	CU_ASSERT_EQUAL(a.parts[0].next_offset, 77);
	shm_detach(&b);
	CU_ASSERT_PTR_NULL(b.base);
	shm_detach(&a);

	/* A new region of the same name replaces it, one generation on. */
	CU_ASSERT_EQUAL_FATAL(shm_create(&a, fixture_shm_name(), &small), 0);
	CU_ASSERT_EQUAL(a.hdr->generation, gen + 1);
	CU_ASSERT_EQUAL(shm_topic_find(&a, "orders", 6), -1);
	CU_ASSERT_EQUAL(a.parts[1].next_offset, 0);
	shm_detach(&a);

	CU_ASSERT_EQUAL(shm_unlink_name(fixture_shm_name()), 0);
	errno = 0;
	CU_ASSERT_EQUAL(shm_attach(&b, fixture_shm_name()), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
}

/* Create a region, let damage() change it, and expect attach to refuse it. */
static void
attach_refused(void (*damage)(struct shm *, int fd))
{
	struct shm a, b;
	int fd;

	CU_ASSERT_EQUAL_FATAL(shm_create(&a, fixture_shm_name(), &small), 0);
	fd = shm_open(fixture_shm_name(), O_RDWR, 0);
	CU_ASSERT_FATAL(fd != -1);
	damage(&a, fd);
	close(fd);
	errno = 0;
	CU_ASSERT_EQUAL(shm_attach(&b, fixture_shm_name()), -1);
	CU_ASSERT_EQUAL(errno, EPROTO);
	CU_ASSERT_PTR_NULL(b.base);
	shm_detach(&a);
}

static void
damage_magic(struct shm *s, int fd)
{
	s->hdr->magic ^= 1;
}

static void
damage_version(struct shm *s, int fd)
{
	s->hdr->version = SHM_LAYOUT_VERSION + 1;
}

static void
damage_grow(struct shm *s, int fd)
{
	CU_ASSERT_EQUAL(ftruncate(fd, (off_t)s->size + 4096), 0);
}

static void
damage_shrink(struct shm *s, int fd)
{
	CU_ASSERT_EQUAL(ftruncate(fd, (off_t)s->size - 4096), 0);
}

static void
damage_tiny(struct shm *s, int fd)
{
	CU_ASSERT_EQUAL(ftruncate(fd, 16), 0);
}

static void
damage_layout_field(struct shm *s, int fd)
{
	s->hdr->layout_size += 4096;
}

/* Limits that give another size than the object has. */
static void
damage_limits(struct shm *s, int fd)
{
	s->hdr->limits.max_partitions += 1;
}

static void
damage_count(struct shm *s, int fd)
{
	atomic_store(&s->hdr->topic_count, small.max_topics + 1);
}

static void
test_attach_refused(void)
{
	attach_refused(damage_magic);
	attach_refused(damage_version);
	attach_refused(damage_grow);
	attach_refused(damage_shrink);
	attach_refused(damage_tiny);
	attach_refused(damage_layout_field);
	attach_refused(damage_limits);
	attach_refused(damage_count);
}

static void
test_topics(void)
{
	struct shm s;
	struct shm_partition *p;
	int idx = -5;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &small), 0);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "orders", 6), -1);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "orders", 6, 3, &idx), 0);
	CU_ASSERT_EQUAL(idx, 0);
	/* A prefix is another topic: names compare by length and bytes. */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "ord", 3, 2, &idx), 1);
	CU_ASSERT_EQUAL(idx, 1);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "orders", 6), 0);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "ord", 3), 1);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "orders", 3), 1);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "order", 5), -1);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "ordersX", 7), -1);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "", 0), -1);

	CU_ASSERT_EQUAL(s.topics[0].partitions, 3);
	CU_ASSERT_EQUAL(s.topics[0].first_part, 0);
	CU_ASSERT_EQUAL(s.topics[1].first_part, 3);
	CU_ASSERT_EQUAL(s.topics[1].name_len, 3);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->topic_count), 2);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 5);
	p = shm_partition(&s, 0, 2);
	CU_ASSERT_PTR_EQUAL(p, &s.parts[2]);
	CU_ASSERT_EQUAL(p->topic, 0);
	CU_ASSERT_EQUAL(p->partition, 2);
	p = shm_partition(&s, 1, 1);
	CU_ASSERT_PTR_EQUAL(p, &s.parts[4]);
	CU_ASSERT_EQUAL(p->topic, 1);
	CU_ASSERT_EQUAL(p->partition, 1);
	CU_ASSERT_EQUAL(p->next_offset, 0);
	CU_ASSERT_EQUAL(atomic_load(&p->head), 0);
	CU_ASSERT_EQUAL(atomic_load(&p->tail), 0);
	CU_ASSERT_PTR_NULL(shm_partition(&s, 0, 3));
	CU_ASSERT_PTR_NULL(shm_partition(&s, 0, -1));
	CU_ASSERT_PTR_NULL(shm_partition(&s, 2, 0));
	CU_ASSERT_PTR_NULL(shm_partition(&s, -1, 0));

	/* Existing: EEXIST and its index, whatever the partition count. */
	idx = -5;
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "ord", 3, 1, &idx), -1);
	CU_ASSERT_EQUAL(errno, EEXIST);
	CU_ASSERT_EQUAL(idx, 1);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "x", 1, 0, &idx), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);

	/* One partition slot is left: 2 do not fit, 1 does. */
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "big", 3, 2, &idx), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->topic_count), 2);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 5);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "big", 3, 1, &idx), 2);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 6);
	/* No partition slot left. */
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "more", 4, 1, &idx), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	shm_detach(&s);

	/* Topic table full while partition slots remain. */
	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &small), 0);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "a", 1, 1, NULL), 0);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "b", 1, 1, NULL), 1);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "c", 1, 1, NULL), 2);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "d", 1, 1, NULL), 3);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "e", 1, 1, NULL), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "d", 1), 3);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "e", 1), -1);
	shm_detach(&s);
}

/*
 * A creator that died before publishing leaves nothing; one that died
 * after storing READY but before topic_count is rolled forward.
 */
static void
test_topic_crash(void)
{
	struct shm s;
	struct shm_topic *t;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &small), 0);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "a", 1, 1, NULL), 0);

	/* Died before READY: the half-filled entry is reused. */
	t = &s.topics[1];
	t->partitions = 2;
	t->first_part = 1;
	t->name_len = 4;
	memcpy(t->name, "dead", 4);
	s.parts[1].next_offset = 99;
	CU_ASSERT_EQUAL(shm_topic_find(&s, "dead", 4), -1);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "b", 1, 1, NULL), 1);
	CU_ASSERT_EQUAL(s.topics[1].name_len, 1);
	CU_ASSERT_EQUAL(s.topics[1].first_part, 1);
	CU_ASSERT_EQUAL(s.parts[1].next_offset, 0);

	/* Died after READY: complete, so it is published by the next creator. */
	t = &s.topics[2];
	t->partitions = 2;
	t->first_part = 2;
	t->name_len = 4;
	memcpy(t->name, "half", 4);
	s.parts[2].topic = 2;
	s.parts[3].topic = 2;
	s.parts[3].partition = 1;
	atomic_store(&t->state, TOPIC_READY);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "half", 4), -1);	/* not counted yet */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "c", 1, 1, NULL), 3);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "half", 4), 2);
	CU_ASSERT_EQUAL(s.topics[3].first_part, 4);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->topic_count), 4);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 5);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 2, 1), &s.parts[3]);
	shm_detach(&s);
}

/* A process dying with dir_lock held does not block topic creation. */
static void
test_dir_lock_owner_dead(void)
{
	struct shm s;
	pid_t pid;
	int st;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &small), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid != -1);
	if (pid == 0) {
		if (lock_take(&s.hdr->dir_lock, NULL, NULL) < 0)
			_exit(1);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "after", 5, 1, NULL), 0);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "again", 5, 1, NULL), 1);
	CU_ASSERT_EQUAL(lock_take(&s.hdr->dir_lock, NULL, NULL), 0);
	lock_release(&s.hdr->dir_lock);
	shm_detach(&s);
}

/*
 * The topic directory's slot ranges are sound: every entry below
 * topic_count that owns slots (in use, or a FREE hole) owns a range
 * inside [0, parts_used), no slot is owned twice, and a topic in use
 * owns at least its partitions.  The number of slots owned.
 */
static int
ranges_sound(struct shm *s)
{
	uint8_t owned[1024];
	uint32_t ti, i, n = atomic_load(&s->hdr->topic_count),
	    used = atomic_load(&s->hdr->parts_used);
	const struct shm_topic *t;
	int total = 0;

	CU_ASSERT_FATAL(s->hdr->limits.max_partitions <= sizeof(owned));
	CU_ASSERT_FATAL(used <= s->hdr->limits.max_partitions);
	memset(owned, 0, sizeof(owned));
	for (ti = 0; ti < n; ti++) {
		t = &s->topics[ti];
		if (atomic_load(&t->state) != TOPIC_FREE)
			CU_ASSERT(t->span >= (uint32_t)t->partitions);
		CU_ASSERT_FATAL(t->span <= used && t->first_part <= used - t->span);
		for (i = t->first_part; i < t->first_part + t->span; i++) {
			CU_ASSERT_EQUAL(owned[i], 0);
			owned[i] = 1;
			total++;
		}
	}
	return total;
}

/* Delete topic name as a worker and then the writer do. */
static void
delete_topic(struct shm *s, const char *name)
{
	int ti = shm_topic_delete_begin(s, name, strlen(name));

	CU_ASSERT_FATAL(ti >= 0);
	shm_topic_delete_end(s, ti);
	CU_ASSERT_EQUAL(atomic_load(&s->topics[ti].state), TOPIC_FREE);
}

/* Create 1-partition topics "<prefix><i>" for i in [from, to): 0 or -1. */
static int
create_ones(struct shm *s, const char *prefix, int from, int to)
{
	char name[32];
	int i;

	for (i = from; i < to; i++) {
		snprintf(name, sizeof(name), "%s%d", prefix, i);
		if (shm_topic_create(s, name, strlen(name), 1, NULL) < 0)
			return -1;
	}
	return 0;
}

/*
 * The default limits (1024 topics, 256 partitions): 256 one-partition
 * topics created and deleted leave 256 holes of one slot, and a
 * three-partition topic is made from three of them; the other 253 slots
 * still take one-partition topics, and nothing more fits.
 */
static void
test_topic_holes_merge(void)
{
	const struct shm_limits lim = {
		.child_slots = 3, .max_topics = 1024, .max_partitions = 256,
		.ring_size = 4096
	};
	struct shm s;
	char name[32];
	int i, idx = -1;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &lim), 0);
	CU_ASSERT_EQUAL_FATAL(create_ones(&s, "t", 0, 256), 0);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 256);
	for (i = 0; i < 256; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		delete_topic(&s, name);
	}
	CU_ASSERT_EQUAL(ranges_sound(&s), 256);

	CU_ASSERT_EQUAL(shm_topic_create(&s, "big", 3, 3, &idx), 0);
	CU_ASSERT_EQUAL(idx, 0);
	CU_ASSERT_EQUAL(s.topics[0].first_part, 0);
	CU_ASSERT_EQUAL(s.topics[0].span, 3);
	CU_ASSERT_EQUAL(s.topics[1].span, 0);
	CU_ASSERT_EQUAL(s.topics[2].span, 0);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_PTR_EQUAL(shm_partition(&s, 0, i), &s.parts[i]);
		CU_ASSERT_EQUAL(s.parts[i].topic, 0);
		CU_ASSERT_EQUAL(s.parts[i].partition, i);
		CU_ASSERT_EQUAL(atomic_load(&s.parts[i].dead), 0);
	}
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->topic_count), 256);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 256);
	CU_ASSERT_EQUAL(ranges_sound(&s), 256);

	/* Every other slot takes a topic; then the table is full. */
	CU_ASSERT_EQUAL(create_ones(&s, "u", 0, 253), 0);
	CU_ASSERT_EQUAL(ranges_sound(&s), 256);
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "x", 1, 1, NULL), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	shm_detach(&s);
}

/*
 * Small tables, one case each: a hole larger than the topic gives its
 * end to an entry a merge emptied; a hole that ends at parts_used grows
 * into the slots never used; with the topic table full, the slots never
 * used go to an entry that owns none; a merge cut short by a crash
 * (one hole emptied, the other not grown) leaves slots nobody owns and
 * every other slot usable.
 */
static void
test_topic_holes_reuse(void)
{
	const struct shm_limits lim = {
		.child_slots = 3, .max_topics = 4, .max_partitions = 8,
		.ring_size = 4096
	};
	struct shm s;
	uint32_t inc2;
	int idx = -1;

	/* a b c d each one slot, then b and c deleted: two holes that touch. */
	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &lim), 0);
	CU_ASSERT_EQUAL_FATAL(create_ones(&s, "t", 0, 4), 0);
	inc2 = atomic_load(&s.parts[2].incarnation);
	delete_topic(&s, "t1");
	delete_topic(&s, "t2");
	/* The table is full and no hole is big enough: they merge. */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "e", 1, 2, &idx), 1);
	CU_ASSERT_EQUAL(s.topics[1].first_part, 1);
	CU_ASSERT_EQUAL(s.topics[1].span, 2);
	CU_ASSERT_EQUAL(s.topics[2].span, 0);
	CU_ASSERT_EQUAL(atomic_load(&s.topics[2].state), TOPIC_FREE);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 4);
	/* The emptied entry takes the slots never used. */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "f", 1, 3, &idx), 2);
	CU_ASSERT_EQUAL(s.topics[2].first_part, 4);
	CU_ASSERT_EQUAL(s.topics[2].span, 3);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 7);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 2, 2), &s.parts[6]);
	CU_ASSERT_EQUAL(ranges_sound(&s), 7);
	/* Entry 2 moved: its first slot's incarnation is above the old one's. */
	CU_ASSERT(atomic_load(&s.parts[2].incarnation) > inc2);
	CU_ASSERT(atomic_load(&s.parts[4].incarnation) >
	    atomic_load(&s.parts[2].incarnation));

	/* e deleted: its hole of 2 ends at slot 3; one slot is never used. */
	delete_topic(&s, "e");
	/* The hole is larger than a topic of 1, and no entry owns nothing. */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "g", 1, 1, &idx), 1);
	CU_ASSERT_EQUAL(s.topics[1].span, 2);
	CU_ASSERT_EQUAL(ranges_sound(&s), 7);
	delete_topic(&s, "g");
	delete_topic(&s, "f");
	/* Holes [1,3) and [4,7) do not touch: 4 partitions fit nowhere... */
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "h", 1, 5, &idx), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	/* ...but [4,7) grows into the slot after parts_used. */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "h", 1, 4, &idx), 2);
	CU_ASSERT_EQUAL(s.topics[2].first_part, 4);
	CU_ASSERT_EQUAL(s.topics[2].span, 4);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 8);
	CU_ASSERT_EQUAL(ranges_sound(&s), 8);
	shm_detach(&s);

	/* A hole's unused end goes to an entry a merge emptied. */
	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &lim), 0);
	CU_ASSERT_EQUAL_FATAL(create_ones(&s, "t", 0, 4), 0);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "x", 1, 4, &idx), -1);
	delete_topic(&s, "t0");
	delete_topic(&s, "t1");
	delete_topic(&s, "t2");
	CU_ASSERT_EQUAL(shm_topic_create(&s, "m", 1, 3, &idx), 0);
	CU_ASSERT_EQUAL(s.topics[0].span, 3);
	delete_topic(&s, "m");
	CU_ASSERT_EQUAL(shm_topic_create(&s, "n", 1, 2, &idx), 0);
	CU_ASSERT_EQUAL(s.topics[0].first_part, 0);
	CU_ASSERT_EQUAL(s.topics[0].span, 2);
	CU_ASSERT_EQUAL(s.topics[1].first_part, 2);
	CU_ASSERT_EQUAL(s.topics[1].span, 1);
	CU_ASSERT_EQUAL(atomic_load(&s.topics[1].state), TOPIC_FREE);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "o", 1, 1, &idx), 1);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 1, 0), &s.parts[2]);
	CU_ASSERT_EQUAL(ranges_sound(&s), 4);
	shm_detach(&s);

	/* A merge cut short: t1's hole emptied, t0's not grown. */
	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &lim), 0);
	CU_ASSERT_EQUAL_FATAL(create_ones(&s, "t", 0, 4), 0);
	delete_topic(&s, "t0");
	delete_topic(&s, "t1");
	s.topics[1].span = 0;
	CU_ASSERT_EQUAL(ranges_sound(&s), 3);
	/* Slot 1 is nobody's; the others are handed out as ever. */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "p", 1, 2, &idx), 1);
	CU_ASSERT_EQUAL(s.topics[1].first_part, 4);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 6);
	/* The table is full and t0's hole does not touch the free slots. */
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "q", 1, 2, &idx), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "r", 1, 1, &idx), 0);
	CU_ASSERT_EQUAL(s.topics[0].first_part, 0);
	CU_ASSERT_EQUAL(s.topics[0].span, 1);
	CU_ASSERT_EQUAL(ranges_sound(&s), 5);
	for (idx = 0; idx < 4; idx++)
		CU_ASSERT(s.topics[idx].first_part > 1 ||
		    s.topics[idx].first_part + s.topics[idx].span <= 1);
	shm_detach(&s);
}

/*
 * The auth_file hand-off: each publish is a new generation with its
 * text; a publish cut short (seq left odd, as by a master killed in the
 * middle) is never read, the reader keeps what it had.
 */
static void
test_authpub(void)
{
	static uint8_t buf[AUTHPUB_TEXT_MAX];
	struct shm s;
	uint32_t gen = 0, seq;
	size_t len = 0;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &small), 0);
	CU_ASSERT_EQUAL(authpub_publish(&s, "a:x:consume\n", 12), 1);
	CU_ASSERT_EQUAL(authpub_read(&s, buf, &len, &gen), 1);
	CU_ASSERT_EQUAL(gen, 1);
	CU_ASSERT_EQUAL(len, 12);
	CU_ASSERT_EQUAL(memcmp(buf, "a:x:consume\n", 12), 0);
	CU_ASSERT_EQUAL(authpub_publish(&s, "b:y:\n", 5), 2);
	CU_ASSERT_EQUAL(authpub_generation(&s), 2);
	CU_ASSERT_EQUAL(authpub_read(&s, buf, &len, &gen), 1);
	CU_ASSERT_EQUAL(gen, 2);
	CU_ASSERT_EQUAL(len, 5);
	CU_ASSERT_EQUAL(memcmp(buf, "b:y:\n", 5), 0);
	/* A writer that died mid-publish: odd seq, nothing is read. */
	seq = atomic_load(&s.authpub->seq);
	atomic_store(&s.authpub->seq, seq + 1);
	memcpy(s.authpub->text, "torn", 4);
	len = 0;
	CU_ASSERT_EQUAL(authpub_read(&s, buf, &len, &gen), 0);
	CU_ASSERT_EQUAL(len, 0);
	shm_detach(&s);
	shm_unlink_name(fixture_shm_name());
}

/* Every topic gets an id of its own; one given (recovery's) is kept. */
static void
test_topic_ids(void)
{
	const struct shm_limits lim = {
		.child_slots = 3, .max_topics = 4, .max_partitions = 8,
		.ring_size = 4096
	};
	static const uint8_t zero[TOPIC_ID_LEN];
	uint8_t given[TOPIC_ID_LEN], first[TOPIC_ID_LEN], id[TOPIC_ID_LEN];
	struct shm s;
	int i, idx = -1;

	CU_ASSERT_EQUAL_FATAL(shm_create(&s, fixture_shm_name(), &lim), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "a", 1, 1, &idx), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&s, "b", 1, 1, &idx), 1);
	CU_ASSERT_NOT_EQUAL(memcmp(s.topics[0].id, zero, TOPIC_ID_LEN), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(s.topics[0].id, s.topics[1].id,
	    TOPIC_ID_LEN), 0);
	for (i = 0; i < TOPIC_ID_LEN; i++)
		given[i] = (uint8_t)(i + 1);
	CU_ASSERT_EQUAL(shm_topic_create_id(&s, "c", 1, 1, given, &idx), 2);
	CU_ASSERT_EQUAL(memcmp(s.topics[2].id, given, TOPIC_ID_LEN), 0);
	/* An all-zero id is no id: refused, nothing created. */
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create_id(&s, "d", 1, 1, zero, &idx), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "d", 1), -1);
	/* Deleted and created again in the same entry: a new id. */
	memcpy(first, s.topics[1].id, TOPIC_ID_LEN);
	delete_topic(&s, "b");
	CU_ASSERT_EQUAL(shm_topic_create(&s, "b", 1, 1, &idx), 1);
	CU_ASSERT_NOT_EQUAL(memcmp(s.topics[1].id, first, TOPIC_ID_LEN), 0);
	/* Never a text form Kafka's tools would take for an option. */
	for (i = 0; i < 4096; i++) {
		shm_topic_id_new(id);
		CU_ASSERT_NOT_EQUAL(id[0] >> 2, 62);
		CU_ASSERT_NOT_EQUAL(memcmp(id, zero, TOPIC_ID_LEN), 0);
	}
	shm_detach(&s);
}

TEST_SUITE("shm", setup, teardown,
	{ "name_for", test_name_for },
	{ "layout", test_layout },
	{ "create_attach", test_create_attach },
	{ "attach_refused", test_attach_refused },
	{ "topics", test_topics },
	{ "topic_crash", test_topic_crash },
	{ "dir_lock_owner_dead", test_dir_lock_owner_dead },
	{ "topic_holes_merge", test_topic_holes_merge },
	{ "topic_holes_reuse", test_topic_holes_reuse },
	{ "topic_ids", test_topic_ids },
	{ "authpub", test_authpub });
