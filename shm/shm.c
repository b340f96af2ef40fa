/*
 * The shared region: naming, sizing, creation, attachment, robust locks
 * and the topic directory.
 *
 * Layout: the header, then each table at a 64-byte boundary (no two
 * tables share a cache line), then the rings at a 4096-byte boundary so
 * ring i starts at rings + i * ring_size.  The size follows from the
 * limits alone, which is how shm_attach() tells whether an old region was
 * made by a compatible build: the limits recorded in its header must
 * give back exactly its size.
 *
 * Topic creation is serialised by dir_lock and publishes in this order:
 * partition slots and the topic entry are filled, state becomes
 * TOPIC_READY (release), parts_used covers its slots, topic_count covers
 * the entry.  Lock-free readers scan only [0, topic_count), so a creator
 * that dies before the last store leaves nothing visible; the next
 * creator rolls a READY entry past topic_count forward (it is complete,
 * since its state was stored last) and reuses anything before that.
 *
 * A deleted topic's entry (FREE below topic_count, see shm/shm.h) is a
 * hole: a create of at most its span partitions fills it while it is
 * still FREE, so readers skip it, and publishes it by the READY store
 * alone.  Holes that touch are merged and a hole's unused end is handed
 * to another FREE entry (shm/slots.h), only while FREE and under
 * dir_lock, so a creator that dies half-way leaves holes as good as
 * before, less at worst some slots nobody owns until the next start.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/string.h>

#include "shm/authpub.h"
#include "shm/group.h"
#include "shm/conntab.h"
#include "shm/ipcount.h"
#include "shm/tconf.h"
#include "shm/lock.h"
#include "shm/producer.h"
#include "shm/txn.h"
#include "shm/ring.h"
#include "shm/shm.h"
#include "shm/slots.h"

#define SHM_TABLE_ALIGN	64
#define SHM_RING_ALIGN	4096
#define SHM_RING_MIN	128	/* two smallest batches, see ring_append */
#define SHM_RING_MAX	((uint64_t)1 << 31)	/* skip marker lengths fit an i32 */

struct shm_offsets {
	size_t	children, topics, parts, rings, groups, producers, txns, authpub, tconf,
		ipcount, conntab, size;
};

static int
align_up(size_t v, size_t a, size_t *out)
{
	if (v > SIZE_MAX - (a - 1))
		return -1;
	*out = (v + a - 1) & ~(a - 1);
	return 0;
}

/* Where each table starts for these limits; -1 if they are invalid or overflow. */
static int
shm_offsets_for(const struct shm_limits *lim, struct shm_offsets *o)
{
	size_t n, end;

	if (lim->child_slots < 1 || lim->max_topics < 1 || lim->max_partitions < 1 ||
	    lim->ring_size < SHM_RING_MIN || lim->ring_size % 8 != 0 ||
	    lim->ring_size > SHM_RING_MAX)
		return -1;
	if (align_up(sizeof(struct shm_header), SHM_TABLE_ALIGN, &o->children) == -1)
		return -1;
	if (__builtin_mul_overflow((size_t)lim->child_slots, sizeof(struct shm_child), &n) ||
	    __builtin_add_overflow(o->children, n, &end) ||
	    align_up(end, SHM_TABLE_ALIGN, &o->topics) == -1)
		return -1;
	if (__builtin_mul_overflow((size_t)lim->max_topics, sizeof(struct shm_topic), &n) ||
	    __builtin_add_overflow(o->topics, n, &end) ||
	    align_up(end, SHM_TABLE_ALIGN, &o->parts) == -1)
		return -1;
	if (__builtin_mul_overflow((size_t)lim->max_partitions,
	    sizeof(struct shm_partition), &n) ||
	    __builtin_add_overflow(o->parts, n, &end) ||
	    align_up(end, SHM_RING_ALIGN, &o->rings) == -1)
		return -1;
	if (__builtin_mul_overflow((size_t)lim->max_partitions, (size_t)lim->ring_size, &n) ||
	    __builtin_add_overflow(o->rings, n, &end) ||
	    align_up(end, SHM_RING_ALIGN, &o->groups) == -1)
		return -1;
	/* The consumer-group table (shm/group.h) comes after the rings. */
	if ((n = group_table_size(lim)) == SIZE_MAX ||
	    __builtin_add_overflow(o->groups, n, &end) ||
	    align_up(end, SHM_TABLE_ALIGN, &o->producers) == -1)
		return -1;
	/* The idempotent producers' table (shm/producer.h). */
	if ((n = producer_table_size(lim)) == SIZE_MAX ||
	    __builtin_add_overflow(o->producers, n, &end) ||
	    align_up(end, SHM_TABLE_ALIGN, &o->txns) == -1)
		return -1;
	/* The transaction coordinator's table (shm/txn.h). */
	if ((n = txn_table_size(lim)) == SIZE_MAX ||
	    __builtin_add_overflow(o->txns, n, &end) ||
	    align_up(end, SHM_TABLE_ALIGN, &o->authpub) == -1)
		return -1;
	/* The published auth_file (shm/authpub.h). */
	if (__builtin_add_overflow(o->authpub, sizeof(struct shm_authpub), &end) ||
	    align_up(end, SHM_TABLE_ALIGN, &o->tconf) == -1)
		return -1;
	/* The topics' dynamic settings (shm/tconf.h). */
	if ((n = shm_tconf_table_size(lim)) == SIZE_MAX ||
	    __builtin_add_overflow(o->tconf, n, &end) ||
	    align_up(end, SHM_TABLE_ALIGN, &o->ipcount) == -1)
		return -1;
	/* The per-address connection counts (shm/ipcount.h). */
	if ((n = ipcount_table_size(lim)) == SIZE_MAX ||
	    __builtin_add_overflow(o->ipcount, n, &end) ||
	    align_up(end, SHM_TABLE_ALIGN, &o->conntab) == -1)
		return -1;
	/* Each worker's connections (shm/conntab.h) come last. */
	if ((n = conntab_table_size(lim)) == SIZE_MAX ||
	    __builtin_add_overflow(o->conntab, n, &end) ||
	    align_up(end, SHM_RING_ALIGN, &o->size) == -1)
		return -1;
	/* mmap and ftruncate take off_t. */
	if (o->size > (size_t)INT64_MAX)
		return -1;
	return 0;
}

/* FNV-1a 64 of the real path: stable for one directory, whatever path names it. */
int
shm_name_for(const char *data_dir, char *buf, size_t size)
{
	char		*real;
	const unsigned char *c;
	uint64_t	 h = 0xcbf29ce484222325ULL;
	int		 n;

	if ((real = realpath(data_dir, NULL)) == NULL)
		return -1;
	for (c = (const unsigned char *)real; *c != '\0'; c++) {
		h ^= *c;
		h *= 0x100000001b3ULL;
	}
	free(real);
	n = snprintf(buf, size, "/flume-%016llx", (unsigned long long)h);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Bytes of the whole region for these limits; 0 if the limits are invalid. */
size_t
shm_layout_size(const struct shm_limits *lim)
{
	struct shm_offsets o;

	if (shm_offsets_for(lim, &o) == -1)
		return 0;
	return o.size;
}

static void
shm_handle_fill(struct shm *s, void *base, size_t size, const struct shm_offsets *o)
{
	uint8_t *b = base;

	s->base = base;
	s->size = size;
	s->hdr = base;
	s->children = (struct shm_child *)(void *)(b + o->children);
	s->topics = (struct shm_topic *)(void *)(b + o->topics);
	s->parts = (struct shm_partition *)(void *)(b + o->parts);
	s->rings = b + o->rings;
	s->groups = b + o->groups;
	s->producers = b + o->producers;
	s->txns = b + o->txns;
	s->authpub = (struct shm_authpub *)(void *)(b + o->authpub);
	s->tconf = (struct shm_tconf *)(void *)(b + o->tconf);
	s->ipcount = b + o->ipcount;
	s->conntab = b + o->conntab;
}

/* The generation of a valid old region of that name, or 0. */
static uint32_t
shm_old_generation(const char *name)
{
	struct shm_header h;
	int fd;
	ssize_t n;

	if ((fd = shm_open(name, O_RDONLY, 0)) == -1)
		return 0;
	n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(h) || h.magic != SHM_MAGIC ||
	    h.version != SHM_LAYOUT_VERSION)
		return 0;
	return h.generation;
}

/*
 * Master, before fork: replace any region of that name by a fresh one.
 * The magic is stored last, so a master that dies half-way leaves a
 * region that shm_attach() refuses.
 */
int
shm_create(struct shm *s, const char *name, const struct shm_limits *lim)
{
	struct shm_offsets o;
	struct shm_header *h;
	uint32_t i, gen;
	void *base;
	int fd, saved;

	memset(s, 0, sizeof(*s));
	if (shm_offsets_for(lim, &o) == -1 || strlen(name) >= sizeof(s->name)) {
		errno = EINVAL;
		return -1;
	}
	gen = shm_old_generation(name) + 1;
	if (shm_unlink(name) == -1 && errno != ENOENT)
		return -1;
	if ((fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600)) == -1)
		return -1;
	if (ftruncate(fd, (off_t)o.size) == -1)
		goto fail_unlink;
	base = mmap(NULL, o.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		goto fail_unlink;
	close(fd);
	fd = -1;

	/* ftruncate gave zeroed memory: every offset, count and state is 0. */
	shm_handle_fill(s, base, o.size, &o);
	strlcpy(s->name, name, sizeof(s->name));
	h = s->hdr;
	h->version = SHM_LAYOUT_VERSION;
	h->layout_size = o.size;
	h->limits = *lim;
	h->master_pid = (int32_t)getpid();
	h->generation = gen;
	if (lock_init(&h->dir_lock) == -1)
		goto fail_unmap;
	for (i = 0; i < lim->child_slots; i++)
		s->children[i].role = i + 1 == lim->child_slots ? ROLE_WRITER : ROLE_WORKER;
	for (i = 0; i < lim->max_partitions; i++)
		if (lock_init(&s->parts[i].lock) == -1 ||
		    lock_init(&s->parts[i].clean_lock) == -1)
			goto fail_unmap;
	if (group_table_init(s) == -1)
		goto fail_unmap;
	producer_table_init(s);
	if (txn_table_init(s) == -1)
		goto fail_unmap;
	atomic_thread_fence(memory_order_release);
	h->magic = SHM_MAGIC;
	return 0;

fail_unmap:
	saved = errno;
	munmap(base, o.size);
	memset(s, 0, sizeof(*s));
	shm_unlink(name);
	errno = saved;
	return -1;
fail_unlink:
	saved = errno;
	close(fd);
	shm_unlink(name);
	errno = saved;
	return -1;
}

/*
 * Map an existing region, trusting nothing in it until the header checks
 * out: the size the kernel reports, the size the header records and the
 * size its recorded limits give must all agree.
 */
int
shm_attach(struct shm *s, const char *name)
{
	struct shm_offsets o;
	struct shm_header *h;
	struct stat st;
	void *base;
	size_t size;
	int fd, saved;

	memset(s, 0, sizeof(*s));
	if (strlen(name) >= sizeof(s->name)) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = shm_open(name, O_RDWR, 0)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (st.st_size < (off_t)sizeof(struct shm_header) ||
	    (uintmax_t)st.st_size > SIZE_MAX) {
		close(fd);
		errno = EPROTO;
		return -1;
	}
	size = (size_t)st.st_size;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	saved = errno;
	close(fd);
	if (base == MAP_FAILED) {
		errno = saved;
		return -1;
	}
	h = base;
	if (h->magic != SHM_MAGIC || h->version != SHM_LAYOUT_VERSION ||
	    h->layout_size != size || shm_offsets_for(&h->limits, &o) == -1 ||
	    o.size != size ||
	    atomic_load(&h->topic_count) > h->limits.max_topics ||
	    atomic_load(&h->parts_used) > h->limits.max_partitions) {
		munmap(base, size);
		errno = EPROTO;
		return -1;
	}
	shm_handle_fill(s, base, size, &o);
	strlcpy(s->name, name, sizeof(s->name));
	return 0;
}

void
shm_detach(struct shm *s)
{
	if (s->base != NULL)
		munmap(s->base, s->size);
	memset(s, 0, sizeof(*s));
}

int
shm_unlink_name(const char *name)
{
	return shm_unlink(name);
}

uint8_t *
shm_ring_data(struct shm *s, const struct shm_partition *p)
{
	size_t i = (size_t)(p - s->parts);

	return s->rings + i * (size_t)s->hdr->limits.ring_size;
}
