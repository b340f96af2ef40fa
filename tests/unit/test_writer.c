/*
 * The writer, in-process: startup recovery of an old region
 * (writer_drain_region), and the loop's pieces (writer_cycle and
 * friends): topics opened as they appear, rings drained into the logs
 * with exact bytes and offsets, visible/durable publication under each
 * flush policy, storage errors kept in the ring and retried, a restarted
 * writer skipping what is already on disk, wake-ups, shutdown drain,
 * and syncs handed to the sync thread.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

#include "common/broker.h"
#include "master/config.h"
#include "common/log.h"
#include "master/writer.h"
#include "master/writer_group.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/coffsets.h"
#include "shm/group.h"
#include "shm/ring.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "store/io.h"
#include "store/offsets.h"
#include "store/plog.h"
#include "store/topic.h"
#include "tests/harness.h"

#define NSLOTS		4	/* two workers, the writer, the cleaner */
#define MAX_BATCHES	64

static char		 shm_name[SHM_NAME_MAX];
static char		*dir;
static struct config	 conf;
static struct broker	 b;
static int		 efds[NSLOTS];

/* What was appended to one partition, in order, with the offsets given. */
struct expect {
	uint8_t		*bytes[MAX_BATCHES];
	size_t		 len[MAX_BATCHES];
	int64_t		 base[MAX_BATCHES];
	int		 n;
};

static int
setup(void)
{
	snprintf(shm_name, sizeof(shm_name), "/flume-test-writer-%ld", (long)getpid());
	log_init(0, LOG_LVL_ERROR, "test");
	return 0;
}

static int
teardown(void)
{
	shm_unlink_name(shm_name);
	return 0;
}

/* A fresh data directory, config and region; b is the writer's broker. */
static void
start(void)
{
	struct shm_limits lim = {
		.child_slots = NSLOTS, .max_topics = 4, .max_partitions = 8,
		.ring_size = 64 * 1024, .max_groups = 2, .max_group_members = 2
	};
	int i;

	dir = test_mkdtemp("writer");
	config_defaults(&conf);
	strlcpy(conf.data_dir, dir, sizeof(conf.data_dir));
	conf.flush_interval_ms = -1;
	conf.flush_messages = -1;
	conf.retention_check_ms = 3600 * 1000;
	memset(&b, 0, sizeof(b));
	CU_ASSERT_EQUAL_FATAL(shm_create(&b.shm, shm_name, &lim), 0);
	for (i = 0; i < NSLOTS; i++) {
		efds[i] = eventfd(0, EFD_NONBLOCK);
		CU_ASSERT_FATAL(efds[i] != -1);
	}
	b.conf = &conf;
	b.listen_fd = -1;
	b.eventfds = efds;
	b.nslots = NSLOTS;
	b.slot = NSLOTS - 2;		/* the writer's */
}

static void
expect_free(struct expect *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		free(e->bytes[i]);
	e->n = 0;
}

static void
finish(void)
{
	int i;

	store_io_reset();
	shm_detach(&b.shm);
	shm_unlink_name(shm_name);
	for (i = 0; i < NSLOTS; i++)
		close(efds[i]);
	config_free(&conf);
	test_rmtree(dir);
	free(dir);
}

static int
topic(const char *name, int32_t parts)
{
	int idx = -1;

	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&b.shm, name, strlen(name), parts, &idx), idx);
	return idx;
}

/*
 * Append one batch of nrec records (values tagged with tag) to a
 * partition and remember it.
 */
static void
produce(struct shm *s, int t, int32_t part, int nrec, uint32_t tag, struct expect *e)
{
	struct batch_builder bb;
	const uint8_t *out;
	uint8_t val[40];
	size_t n;
	int64_t base, next;
	int r;

	CU_ASSERT_FATAL(e->n < MAX_BATCHES);
	batch_builder_init(&bb);
	for (r = 0; r < nrec; r++) {
		memset(val, (int)(tag + (uint32_t)r), sizeof(val));
		be32_put(val, tag);
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 5000 + r, "k", 1, val,
		    (int32_t)sizeof(val), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &out, &n), 0);
	CU_ASSERT_EQUAL_FATAL(ring_append(s, shm_partition(s, t, part), out, n, &base,
	    &next), 0);
	CU_ASSERT_EQUAL(next - base, nrec);
	e->bytes[e->n] = malloc(n);
	memcpy(e->bytes[e->n], out, n);
	batch_set_base_offset(e->bytes[e->n], base);
	e->len[e->n] = n;
	e->base[e->n] = base;
	e->n++;
	batch_builder_free(&bb);
}

/* The partition's log holds exactly the expected batches, in order. */
static void
assert_log(const char *tname, int32_t part, const struct expect *e)
{
	struct plog_reader *r;
	struct plog_slice sl;
	char pdir[4096];
	uint8_t *buf = NULL;
	size_t len = 0, want = 0, pos = 0;
	int64_t off = 0;
	int i, guard;

	for (i = 0; i < e->n; i++)
		want += e->len[i];
	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(pdir, sizeof(pdir), dir, tname, part), 0);
	CU_ASSERT_EQUAL_FATAL(plog_reader_open(&r, pdir), 0);
	for (guard = 0; guard < 1000; guard++) {
		if (plog_reader_read(r, off, INT64_MAX / 2, 1 << 20, &sl) == -1 || sl.len == 0)
			break;
		buf = realloc(buf, len + sl.len);
		CU_ASSERT_EQUAL_FATAL(pread(sl.fd, buf + len, sl.len, sl.pos), (ssize_t)sl.len);
		len += sl.len;
		off = sl.next_offset;
	}
	plog_reader_close(r);
	CU_ASSERT_EQUAL(len, want);
	for (i = 0; i < e->n && len == want; i++) {
		CU_ASSERT_EQUAL(batch_base_offset(buf + pos), e->base[i]);
		CU_ASSERT_EQUAL(memcmp(buf + pos, e->bytes[i], e->len[i]), 0);
		pos += e->len[i];
	}
	free(buf);
}

static int64_t
visible(int t, int32_t part)
{
	return atomic_load(&shm_partition(&b.shm, t, part)->visible_offset);
}

static int64_t
durable(int t, int32_t part)
{
	return atomic_load(&shm_partition(&b.shm, t, part)->durable_offset);
}

static int
ring_empty(int t, int32_t part)
{
	struct shm_partition *p = shm_partition(&b.shm, t, part);

	return atomic_load(&p->head) == atomic_load(&p->tail);
}

/* Startup recovery writes exactly the ring contents; repeating writes nothing. */
static void
test_drain_region(void)
{
	struct expect ea0 = { 0 }, ea1 = { 0 }, eb = { 0 };
	struct shm old;
	struct shm_partition *pa0;
	int ta, tb, i, k;
	int32_t parts = 0;

	start();
	ta = topic("alpha", 2);
	tb = topic("beta", 1);
	for (i = 0; i < 5; i++)
		produce(&b.shm, ta, 0, 1 + i % 3, (uint32_t)i, &ea0);
	for (i = 0; i < 3; i++)
		produce(&b.shm, ta, 1, 2, 100 + (uint32_t)i, &ea1);
	produce(&b.shm, tb, 0, 4, 200, &eb);
	pa0 = shm_partition(&b.shm, ta, 0);

	/* The master re-attaches the old region by name and drains it. */
	CU_ASSERT_EQUAL_FATAL(shm_attach(&old, shm_name), 0);
	CU_ASSERT_EQUAL(writer_drain_region(&old, &conf), 9);
	assert_log("alpha", 0, &ea0);
	assert_log("alpha", 1, &ea1);
	assert_log("beta", 0, &eb);
	CU_ASSERT_EQUAL(topic_meta_load(dir, "alpha", &parts, NULL), 0);
	CU_ASSERT_EQUAL(parts, 2);
	CU_ASSERT_EQUAL(topic_meta_load(dir, "beta", &parts, NULL), 0);
	CU_ASSERT_EQUAL(parts, 1);
	CU_ASSERT(ring_empty(ta, 0) && ring_empty(ta, 1) && ring_empty(tb, 0));

	/* Again, with nothing new: nothing written. */
	CU_ASSERT_EQUAL(writer_drain_region(&old, &conf), 0);

	/*
	 * A drain that wrote and died before moving head: everything is read
	 * again and skipped, and only the batches appended since are written.
	 */
	for (k = 0; k < 2; k++)
		produce(&b.shm, ta, 0, 2, 300 + (uint32_t)k, &ea0);
	atomic_store(&pa0->head, 0);
	CU_ASSERT_EQUAL(writer_drain_region(&old, &conf), 2);
	assert_log("alpha", 0, &ea0);
	atomic_store(&pa0->head, 0);
	CU_ASSERT_EQUAL(writer_drain_region(&old, &conf), 0);
	assert_log("alpha", 0, &ea0);
	assert_log("alpha", 1, &ea1);
	assert_log("beta", 0, &eb);
	shm_detach(&old);
	expect_free(&ea0);
	expect_free(&ea1);
	expect_free(&eb);
	finish();
}

/* A region whose ring is damaged is reported, not written, and not fatal. */
static void
test_drain_region_damaged(void)
{
	struct expect e = { 0 }, eb = { 0 };
	struct shm_partition *p;
	int t, tb;

	start();
	t = topic("bad", 1);
	tb = topic("good", 1);
	produce(&b.shm, t, 0, 1, 1, &e);
	produce(&b.shm, tb, 0, 1, 2, &eb);
	p = shm_partition(&b.shm, t, 0);
	be32_put(shm_ring_data(&b.shm, p) + 8, 3);	/* batchLength below a header */
	CU_ASSERT_EQUAL(writer_drain_region(&b.shm, &conf), 1);
	assert_log("good", 0, &eb);
	expect_free(&e);
	expect_free(&eb);
	finish();
}

static int
exists(const char *tname, int32_t part)
{
	char pdir[4096];
	struct stat st;

	if (topic_partition_dir(pdir, sizeof(pdir), dir, tname, part) == -1)
		return 0;
	return stat(pdir, &st) == 0 && S_ISDIR(st.st_mode);
}

static void
test_cycle_basic(void)
{
	struct expect e0 = { 0 }, e1 = { 0 }, en = { 0 };
	struct writer *w;
	int32_t parts = 0;
	int t, tn;

	start();
	t = topic("orders", 2);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 1000), 0);
	CU_ASSERT_EQUAL(topic_meta_load(dir, "orders", &parts, NULL), 0);
	CU_ASSERT_EQUAL(parts, 2);
	CU_ASSERT(exists("orders", 0) && exists("orders", 1));
	CU_ASSERT_EQUAL(writer_pending(w, 1000), 0);

	produce(&b.shm, t, 0, 3, 1, &e0);
	produce(&b.shm, t, 0, 2, 2, &e0);
	produce(&b.shm, t, 1, 1, 3, &e1);
	CU_ASSERT_EQUAL(writer_pending(w, 1000), 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 1000), 1);
	CU_ASSERT_EQUAL(visible(t, 0), 5);
	CU_ASSERT_EQUAL(visible(t, 1), 1);
	CU_ASSERT(ring_empty(t, 0) && ring_empty(t, 1));
	CU_ASSERT_EQUAL(atomic_load(&shm_partition(&b.shm, t, 0)->log_bytes),
	    e0.len[0] + e0.len[1]);
	/* No flush policy and nobody waiting: not synced. */
	CU_ASSERT_EQUAL(durable(t, 0), 0);
	assert_log("orders", 0, &e0);
	assert_log("orders", 1, &e1);
	CU_ASSERT_EQUAL(writer_cycle(w, 1001), 0);
	CU_ASSERT_EQUAL(writer_pending(w, 1001), 0);

	/* acks=all: a sync is asked for, partition 0 only. */
	atomic_store(&shm_partition(&b.shm, t, 0)->sync_wanted, 1);
	CU_ASSERT_EQUAL(writer_pending(w, 1002), 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 1002), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 5);
	CU_ASSERT_EQUAL(durable(t, 1), 0);
	CU_ASSERT_EQUAL(atomic_load(&shm_partition(&b.shm, t, 0)->sync_wanted), 0);

	/* Asked together with new data: one cycle drains and syncs it. */
	produce(&b.shm, t, 0, 4, 4, &e0);
	atomic_store(&shm_partition(&b.shm, t, 0)->sync_wanted, 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 1003), 1);
	CU_ASSERT_EQUAL(visible(t, 0), 9);
	CU_ASSERT_EQUAL(durable(t, 0), 9);

	/* A topic created later is opened by the next cycle. */
	tn = topic("later", 1);
	CU_ASSERT(!exists("later", 0));
	CU_ASSERT_EQUAL(writer_pending(w, 1004), 1);
	produce(&b.shm, tn, 0, 1, 5, &en);
	CU_ASSERT_EQUAL(writer_cycle(w, 1004), 1);
	CU_ASSERT(exists("later", 0));
	CU_ASSERT_EQUAL(topic_meta_load(dir, "later", &parts, NULL), 0);
	CU_ASSERT_EQUAL(parts, 1);
	CU_ASSERT_EQUAL(visible(tn, 0), 1);
	assert_log("later", 0, &en);
	assert_log("orders", 0, &e0);

	writer_close(w);
	expect_free(&e0);
	expect_free(&e1);
	expect_free(&en);
	finish();
}

static void
test_flush_policies(void)
{
	struct expect e = { 0 };
	struct writer *w;
	int t;

	start();
	conf.flush_messages = 5;
	t = topic("m", 1);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	produce(&b.shm, t, 0, 3, 1, &e);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	CU_ASSERT_EQUAL(visible(t, 0), 3);
	CU_ASSERT_EQUAL(durable(t, 0), 0);
	produce(&b.shm, t, 0, 2, 2, &e);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 5);
	produce(&b.shm, t, 0, 4, 3, &e);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 5);
	writer_close(w);
	expect_free(&e);

	/* Interval: synced once flush_interval_ms has passed since the last sync. */
	conf.flush_messages = -1;
	conf.flush_interval_ms = 100;
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 10000), 0);
	/* Reopened on a log with unsynced bytes past durable_offset. */
	CU_ASSERT_EQUAL(writer_timeout(w, 10000), 100);
	CU_ASSERT_EQUAL(writer_cycle(w, 10050), 0);
	CU_ASSERT_EQUAL(durable(t, 0), 5);
	CU_ASSERT_EQUAL(writer_timeout(w, 10050), 50);
	CU_ASSERT_EQUAL(writer_cycle(w, 10100), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 9);
	produce(&b.shm, t, 0, 1, 4, &e);
	CU_ASSERT_EQUAL(writer_cycle(w, 10150), 1);
	CU_ASSERT_EQUAL(visible(t, 0), 10);
	CU_ASSERT_EQUAL(durable(t, 0), 9);
	CU_ASSERT_EQUAL(writer_cycle(w, 10199), 0);
	CU_ASSERT_EQUAL(durable(t, 0), 9);
	CU_ASSERT_EQUAL(writer_cycle(w, 10200), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 10);
	writer_close(w);
	expect_free(&e);
	finish();
}

static int	fail_errno;

static ssize_t
failing_write(int fd, const void *buf, size_t len)
{
	errno = fail_errno;
	return -1;
}

static int
failing_fdatasync(int fd)
{
	errno = EIO;
	return -1;
}

/* A full disk keeps the data in the ring, flags the partition, and heals. */
static void
test_storage_error(void)
{
	struct expect e = { 0 };
	struct writer *w;
	struct shm_partition *p;
	int t, timeout;

	start();
	t = topic("disk", 1);
	p = shm_partition(&b.shm, t, 0);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	produce(&b.shm, t, 0, 2, 1, &e);
	fail_errno = ENOSPC;
	store_io.write = failing_write;
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), ENOSPC);
	CU_ASSERT(!ring_empty(t, 0));
	CU_ASSERT_EQUAL(visible(t, 0), 0);
	/* Backing off: not pending, and the sleep ends at the retry time. */
	CU_ASSERT_EQUAL(writer_pending(w, 10), 0);
	timeout = writer_timeout(w, 10);
	CU_ASSERT(timeout > 0 && timeout <= 40);
	CU_ASSERT_EQUAL(writer_cycle(w, 10), 0);
	/* Still failing at the retry: the backoff grows. */
	CU_ASSERT_EQUAL(writer_cycle(w, 1000), 0);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), ENOSPC);
	CU_ASSERT(writer_timeout(w, 1000) > 50);
	produce(&b.shm, t, 0, 1, 2, &e);

	store_io_reset();
	CU_ASSERT_EQUAL(writer_pending(w, 3000), 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 3000), 1);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), 0);
	CU_ASSERT(ring_empty(t, 0));
	CU_ASSERT_EQUAL(visible(t, 0), 3);
	assert_log("disk", 0, &e);

	/* fdatasync failing: durable is not published until it works. */
	produce(&b.shm, t, 0, 1, 3, &e);
	atomic_store(&p->sync_wanted, 1);
	store_io.fdatasync = failing_fdatasync;
	CU_ASSERT_EQUAL(writer_cycle(w, 4000), 1);	/* drained, not synced */
	CU_ASSERT_EQUAL(visible(t, 0), 4);
	CU_ASSERT_EQUAL(durable(t, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), EIO);
	store_io_reset();
	CU_ASSERT_EQUAL(writer_cycle(w, 5000), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 4);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), 0);
	assert_log("disk", 0, &e);
	writer_close(w);
	expect_free(&e);
	finish();
}

/*
 * A writer killed after writing but before releasing the ring: its
 * successor reads the same batches again and skips them.
 */
static void
test_restart_skips(void)
{
	struct expect e = { 0 };
	struct writer *w;
	struct shm_partition *p;
	int t;

	start();
	t = topic("again", 1);
	p = shm_partition(&b.shm, t, 0);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	produce(&b.shm, t, 0, 2, 1, &e);
	produce(&b.shm, t, 0, 3, 2, &e);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	writer_close(w);
	atomic_store(&p->head, 0);		/* as if never released */
	produce(&b.shm, t, 0, 1, 3, &e);

	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	CU_ASSERT_EQUAL(visible(t, 0), 5);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	CU_ASSERT(ring_empty(t, 0));
	CU_ASSERT_EQUAL(visible(t, 0), 6);
	assert_log("again", 0, &e);
	writer_close(w);
	expect_free(&e);
	finish();
}

/*
 * A producer died after publishing its batch but before storing
 * next_offset: the next producer continues after it, and the writer
 * stores both without complaint.
 */
static void
test_dead_producer(void)
{
	struct expect e = { 0 }, dead = { 0 };
	struct shm_partition *p;
	struct writer *w;
	uint8_t *ring;
	uint64_t tail;
	pid_t pid;
	int t, st;

	start();
	t = topic("dead", 1);
	p = shm_partition(&b.shm, t, 0);
	ring = shm_ring_data(&b.shm, p);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	produce(&b.shm, t, 0, 2, 1, &e);
	/* Build the dead producer's batch here, where CUnit can check it. */
	produce(&b.shm, t, 0, 3, 2, &dead);
	tail = atomic_load(&p->tail) - dead.len[0];
	atomic_store(&p->tail, tail);
	p->next_offset = 2;
	pid = fork();
	CU_ASSERT_FATAL(pid != -1);
	if (pid == 0) {
		if (part_lock(&b.shm, p) != 0)
			_exit(1);
		memcpy(ring + tail, dead.bytes[0], dead.len[0]);
		atomic_store(&p->tail, tail + dead.len[0]);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	e.bytes[e.n] = dead.bytes[0];
	e.len[e.n] = dead.len[0];
	e.base[e.n] = 2;
	e.n++;
	dead.n = 0;
	produce(&b.shm, t, 0, 1, 3, &e);
	CU_ASSERT_EQUAL(e.base[2], 5);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), 0);
	CU_ASSERT_EQUAL(visible(t, 0), 6);
	assert_log("dead", 0, &e);
	writer_close(w);
	expect_free(&e);
	finish();
}

static uint64_t
efd_count(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

/* Workers that asked are woken once after a cycle that moved something. */
static void
test_wake(void)
{
	struct expect e = { 0 };
	struct writer *w;
	int t;

	start();
	t = topic("wake", 1);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	atomic_store(&b.shm.children[0].wake_wanted, 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 0);		/* nothing moved */
	CU_ASSERT_EQUAL(efd_count(efds[0]), 0);
	CU_ASSERT_EQUAL(atomic_load(&b.shm.children[0].wake_wanted), 1);
	produce(&b.shm, t, 0, 1, 1, &e);
	CU_ASSERT_EQUAL(writer_cycle(w, 1), 1);
	CU_ASSERT_EQUAL(efd_count(efds[0]), 1);
	CU_ASSERT_EQUAL(efd_count(efds[1]), 0);
	CU_ASSERT_EQUAL(efd_count(efds[2]), 0);
	CU_ASSERT_EQUAL(atomic_load(&b.shm.children[0].wake_wanted), 0);
	produce(&b.shm, t, 0, 1, 2, &e);
	CU_ASSERT_EQUAL(writer_cycle(w, 2), 1);
	CU_ASSERT_EQUAL(efd_count(efds[0]), 0);		/* did not ask again */
	writer_close(w);
	expect_free(&e);
	finish();
}

/* Shutdown: every ring drained and every log synced. */
static void
test_finish(void)
{
	struct expect e0 = { 0 }, e1 = { 0 }, e2 = { 0 };
	struct writer *w;
	int t, t2;

	start();
	t = topic("one", 2);
	t2 = topic("two", 1);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	produce(&b.shm, t, 0, 2, 1, &e0);
	produce(&b.shm, t, 1, 3, 2, &e1);
	produce(&b.shm, t2, 0, 1, 3, &e2);
	/* Even a partition in an error backoff is retried at shutdown. */
	fail_errno = EIO;
	store_io.write = failing_write;
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 0);
	CU_ASSERT_EQUAL(writer_finish(w, 1), -1);
	store_io_reset();
	CU_ASSERT_EQUAL(writer_finish(w, 2), 0);
	CU_ASSERT_EQUAL(durable(t, 0), 2);
	CU_ASSERT_EQUAL(durable(t, 1), 3);
	CU_ASSERT_EQUAL(durable(t2, 0), 1);
	CU_ASSERT(ring_empty(t, 0) && ring_empty(t, 1) && ring_empty(t2, 0));
	CU_ASSERT_EQUAL(atomic_load(&shm_partition(&b.shm, t, 0)->storage_error), 0);
	assert_log("one", 0, &e0);
	assert_log("one", 1, &e1);
	assert_log("two", 0, &e2);
	writer_close(w);
	expect_free(&e0);
	expect_free(&e1);
	expect_free(&e2);
	finish();
}

/*
 * The sync thread: an fdatasync held up does not stop the drain, and
 * durable_offset is published for exactly what the sync covered when it
 * comes back; one sync per partition at a time; a failed one flags the
 * partition and the resync after it counts.
 */
static int		 hold_fd = -1;		/* read end: one byte lets a call go */
static _Atomic int	 hold_next;		/* the next call waits for that byte */
static _Atomic int	 fail_next;		/* the next call fails with EIO */
static _Atomic int	 sync_calls;

static int
held_fdatasync(int fd)
{
	char c;

	struct pollfd pfd = { .fd = hold_fd, .events = POLLIN };

	atomic_fetch_add(&sync_calls, 1);
	/* Held at most 5 s: code that waits for it in line fails, not hangs. */
	if (atomic_exchange(&hold_next, 0) != 0 &&
	    (poll(&pfd, 1, 5000) != 1 || read(hold_fd, &c, 1) != 1)) {
		errno = EIO;
		return -1;
	}
	if (atomic_exchange(&fail_next, 0) != 0) {
		errno = EIO;
		return -1;
	}
	return fdatasync(fd);
}

/* Wait (at most 10 s) until the sync thread signals a finished job. */
static int
sync_back(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, 10000) != 1)
		return -1;
	return efd_count(fd) > 0 ? 0 : -1;
}

static void
test_sync_thread(void)
{
	struct expect e = { 0 };
	struct writer *w;
	struct shm_partition *p;
	int t, i, pfd[2], wfd;

	start();
	wfd = efds[b.slot];
	CU_ASSERT_EQUAL_FATAL(pipe(pfd), 0);
	hold_fd = pfd[0];
	atomic_store(&sync_calls, 0);
	store_io.fdatasync = held_fdatasync;
	t = topic("bg", 1);
	p = shm_partition(&b.shm, t, 0);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	CU_ASSERT_EQUAL_FATAL(writer_sync_start(w, wfd), 0);
	(void)efd_count(wfd);
	atomic_store(&sync_calls, 0);	/* opening the topic synced its directories */

	/* acks=all asks; the sync is handed off and held there. */
	atomic_store(&hold_next, 1);
	produce(&b.shm, t, 0, 2, 1, &e);
	atomic_store(&p->sync_wanted, 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	CU_ASSERT_EQUAL(visible(t, 0), 2);
	CU_ASSERT_EQUAL(durable(t, 0), 0);
	for (i = 0; i < 10000 && atomic_load(&sync_calls) == 0; i++)
		usleep(1000);
	CU_ASSERT_EQUAL(atomic_load(&sync_calls), 1);
	/* Waiting for it is not work: the loop may sleep. */
	CU_ASSERT_EQUAL(writer_pending(w, 0), 0);
	CU_ASSERT(writer_timeout(w, 0) > 0);

	/* Meanwhile the ring drains on, and no second sync starts. */
	produce(&b.shm, t, 0, 3, 2, &e);
	atomic_store(&p->sync_wanted, 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 1), 1);
	CU_ASSERT_EQUAL(visible(t, 0), 5);
	CU_ASSERT(ring_empty(t, 0));
	CU_ASSERT_EQUAL(durable(t, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&sync_calls), 1);

	/* Let it go: durable is what it covered, then the second request. */
	CU_ASSERT_EQUAL(write(pfd[1], "g", 1), 1);
	CU_ASSERT_EQUAL_FATAL(sync_back(wfd), 0);
	CU_ASSERT_EQUAL(writer_cycle(w, 2), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 2);
	CU_ASSERT_EQUAL_FATAL(sync_back(wfd), 0);
	CU_ASSERT_EQUAL(writer_cycle(w, 3), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 5);
	CU_ASSERT_EQUAL(writer_cycle(w, 4), 0);
	CU_ASSERT_EQUAL(writer_pending(w, 4), 0);

	/* A failed sync: flagged, nothing published, then a resync counts. */
	produce(&b.shm, t, 0, 1, 3, &e);
	atomic_store(&fail_next, 1);
	atomic_store(&p->sync_wanted, 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 5), 1);
	CU_ASSERT_EQUAL(visible(t, 0), 6);
	CU_ASSERT_EQUAL_FATAL(sync_back(wfd), 0);
	CU_ASSERT_EQUAL(writer_cycle(w, 6), 0);
	CU_ASSERT_EQUAL(durable(t, 0), 5);
	CU_ASSERT_EQUAL(atomic_load(&p->sync_failed), 1);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), EIO);
	CU_ASSERT_EQUAL(writer_cycle(w, 5000), 1);
	CU_ASSERT_EQUAL(durable(t, 0), 6);
	CU_ASSERT_EQUAL(atomic_load(&p->sync_failed), 0);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), 0);
	assert_log("bg", 0, &e);

	/* Shutdown waits for a sync still out and publishes it. */
	produce(&b.shm, t, 0, 2, 4, &e);
	atomic_store(&p->sync_wanted, 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 5001), 1);
	CU_ASSERT_EQUAL(writer_finish(w, 5002), 0);
	CU_ASSERT_EQUAL(durable(t, 0), 8);
	assert_log("bg", 0, &e);
	writer_close(w);
	close(pfd[0]);
	close(pfd[1]);
	hold_fd = -1;
	expect_free(&e);
	finish();
}

/*
 * Syncs of two partitions run at once: with one held on the disk, the
 * other's comes back and is published, then the held one's.
 */
static void
test_sync_pool(void)
{
	struct expect ea = { 0 }, eb = { 0 };
	struct writer *w;
	int ta, tb, i, pfd[2], wfd;

	start();
	wfd = efds[b.slot];
	CU_ASSERT_EQUAL_FATAL(pipe(pfd), 0);
	hold_fd = pfd[0];
	store_io.fdatasync = held_fdatasync;
	ta = topic("a", 1);
	tb = topic("b", 1);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	CU_ASSERT_EQUAL_FATAL(writer_sync_start(w, wfd), 0);
	(void)efd_count(wfd);

	atomic_store(&sync_calls, 0);
	atomic_store(&hold_next, 1);
	produce(&b.shm, ta, 0, 2, 1, &ea);
	atomic_store(&shm_partition(&b.shm, ta, 0)->sync_wanted, 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	for (i = 0; i < 10000 && atomic_load(&sync_calls) == 0; i++)
		usleep(1000);
	CU_ASSERT_EQUAL_FATAL(atomic_load(&sync_calls), 1);

	produce(&b.shm, tb, 0, 3, 2, &eb);
	atomic_store(&shm_partition(&b.shm, tb, 0)->sync_wanted, 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(sync_back(wfd), 0);
	CU_ASSERT_EQUAL(writer_cycle(w, 2), 1);
	CU_ASSERT_EQUAL(durable(tb, 0), 3);
	CU_ASSERT_EQUAL(durable(ta, 0), 0);

	CU_ASSERT_EQUAL(write(pfd[1], "g", 1), 1);
	CU_ASSERT_EQUAL_FATAL(sync_back(wfd), 0);
	CU_ASSERT_EQUAL(writer_cycle(w, 3), 1);
	CU_ASSERT_EQUAL(durable(ta, 0), 2);
	CU_ASSERT_EQUAL(writer_finish(w, 4), 0);
	assert_log("a", 0, &ea);
	assert_log("b", 0, &eb);
	writer_close(w);
	close(pfd[0]);
	close(pfd[1]);
	hold_fd = -1;
	expect_free(&ea);
	expect_free(&eb);
	finish();
}

/*
 * A new topic's files are made on the sync thread: with its first sync
 * held, the loop drains the other topics on and may sleep, the new one's
 * records wait in its ring; once let go the topic is on disk and drained.
 */
static void
test_make_thread(void)
{
	struct expect e = { 0 }, en = { 0 };
	struct writer *w;
	int32_t parts = 0;
	int t, tn, i, pfd[2], wfd;

	start();
	wfd = efds[b.slot];
	CU_ASSERT_EQUAL_FATAL(pipe(pfd), 0);
	hold_fd = pfd[0];
	store_io.fdatasync = held_fdatasync;
	t = topic("old", 1);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	CU_ASSERT_EQUAL_FATAL(writer_sync_start(w, wfd), 0);
	(void)efd_count(wfd);

	atomic_store(&sync_calls, 0);
	atomic_store(&hold_next, 1);
	tn = topic("new", 2);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 0);
	for (i = 0; i < 10000 && atomic_load(&sync_calls) == 0; i++)
		usleep(1000);
	CU_ASSERT_EQUAL(atomic_load(&sync_calls), 1);
	CU_ASSERT_EQUAL(atomic_load(&b.shm.topics[tn].opened), 0);
	CU_ASSERT_EQUAL(topic_meta_load(dir, "new", &parts, NULL), -1);

	produce(&b.shm, t, 0, 3, 1, &e);
	produce(&b.shm, tn, 1, 2, 2, &en);
	CU_ASSERT_EQUAL(writer_cycle(w, 1), 1);
	CU_ASSERT_EQUAL(visible(t, 0), 3);
	CU_ASSERT(ring_empty(t, 0));
	CU_ASSERT_EQUAL(visible(tn, 1), 0);
	CU_ASSERT(!ring_empty(tn, 1));
	/* Waiting for the thread is not work: the loop may sleep. */
	CU_ASSERT_EQUAL(writer_pending(w, 1), 0);
	CU_ASSERT_EQUAL(atomic_load(&sync_calls), 1);

	CU_ASSERT_EQUAL(write(pfd[1], "g", 1), 1);
	CU_ASSERT_EQUAL_FATAL(sync_back(wfd), 0);
	CU_ASSERT_EQUAL(writer_cycle(w, 2), 1);
	CU_ASSERT_EQUAL(atomic_load(&b.shm.topics[tn].opened), 1);
	CU_ASSERT_EQUAL(topic_meta_load(dir, "new", &parts, NULL), 0);
	CU_ASSERT_EQUAL(parts, 2);
	CU_ASSERT_EQUAL(visible(tn, 1), 2);
	CU_ASSERT(ring_empty(tn, 1));
	CU_ASSERT_EQUAL(visible(tn, 0), 0);
	CU_ASSERT_EQUAL(writer_finish(w, 3), 0);
	assert_log("old", 0, &e);
	assert_log("new", 1, &en);
	writer_close(w);
	close(pfd[0]);
	close(pfd[1]);
	hold_fd = -1;
	expect_free(&e);
	expect_free(&en);
	finish();
}

/* Damaged ring bytes stop that partition with EPROTO, and only that one. */
static void
test_damaged_ring(void)
{
	struct expect e = { 0 }, eg = { 0 };
	struct writer *w;
	struct shm_partition *p;
	int t, tg;

	start();
	t = topic("bad", 1);
	tg = topic("good", 1);
	p = shm_partition(&b.shm, t, 0);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	produce(&b.shm, t, 0, 1, 1, &e);
	produce(&b.shm, tg, 0, 1, 2, &eg);
	be32_put(shm_ring_data(&b.shm, p) + 8, 3);
	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	CU_ASSERT_EQUAL(atomic_load(&p->storage_error), EPROTO);
	CU_ASSERT_EQUAL(visible(t, 0), 0);
	CU_ASSERT_EQUAL(visible(tg, 0), 1);
	assert_log("good", 0, &eg);
	writer_close(w);
	expect_free(&e);
	expect_free(&eg);
	finish();
}

/* Retention runs on its tick and publishes where the log now starts. */
static void
test_retention(void)
{
	struct expect e = { 0 };
	struct writer *w;
	struct shm_partition *p;
	uint64_t seg = 0, total = 0, segsize[16], kept;
	int segfirst[16], nseg = 0, first, i, t;

	start();
	conf.log.segment_bytes = 1024;
	conf.log.retention_bytes = 2048;
	conf.log.retention_ms = -1;
	conf.retention_check_ms = 100;
	t = topic("old", 1);
	p = shm_partition(&b.shm, t, 0);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 0), 0);
	for (i = 0; i < 12; i++)
		produce(&b.shm, t, 0, 5, (uint32_t)i, &e);
	/* Where the log rolls: a batch that would pass segment_bytes starts one. */
	for (i = 0; i < e.n; i++) {
		if (nseg == 0 || seg + e.len[i] > 1024) {
			segfirst[nseg] = i;
			segsize[nseg] = 0;
			nseg++;
			seg = 0;
		}
		seg += e.len[i];
		segsize[nseg - 1] += e.len[i];
		total += e.len[i];
	}
	CU_ASSERT_FATAL(nseg >= 3);
	/* Oldest segments go while the total passes retention_bytes. */
	for (first = 0, kept = total; first < nseg - 1 && kept > 2048; first++)
		kept -= segsize[first];
	CU_ASSERT_FATAL(first > 0);

	CU_ASSERT_EQUAL(writer_cycle(w, 0), 1);
	CU_ASSERT_EQUAL(atomic_load(&p->log_start), 0);
	CU_ASSERT_EQUAL(atomic_load(&p->log_bytes), total);
	CU_ASSERT_EQUAL(writer_timeout(w, 0), 100);
	CU_ASSERT_EQUAL(writer_cycle(w, 99), 0);
	CU_ASSERT_EQUAL(writer_cycle(w, 100), 1);
	CU_ASSERT_EQUAL(atomic_load(&p->log_start), e.base[segfirst[first]]);
	CU_ASSERT_EQUAL(atomic_load(&p->log_bytes), kept);
	CU_ASSERT_EQUAL(visible(t, 0), 60);
	CU_ASSERT_EQUAL(writer_cycle(w, 150), 0);
	writer_close(w);
	expect_free(&e);
	finish();
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Poll an offset until it reaches want or 10 s pass; returns the last value. */
static int64_t
wait_offset(_Atomic int64_t *v, int64_t want)
{
	struct timespec ms = { 0, 1000000 };
	int64_t deadline = mono_ms() + 10000, x;

	while ((x = atomic_load(v)) < want && mono_ms() < deadline)
		nanosleep(&ms, NULL);
	return x;
}

/*
 * The writer as a process: it marks its slot, drains what workers
 * append when woken, syncs on request, and on SIGTERM drains and syncs
 * what is left and exits 0.
 */
static void
test_process(void)
{
	struct expect e = { 0 };
	struct shm_child *me;
	struct shm_partition *p;
	struct timespec ms = { 0, 1000000 };
	int64_t deadline;
	pid_t pid;
	int t, st;

	start();
	t = topic("proc", 1);
	p = shm_partition(&b.shm, t, 0);
	me = &b.shm.children[b.slot];
	produce(&b.shm, t, 0, 2, 1, &e);
	pid = fork();
	CU_ASSERT_FATAL(pid != -1);
	if (pid == 0)
		writer_main(&b);
	CU_ASSERT_EQUAL(wait_offset(&p->visible_offset, 2), 2);
	CU_ASSERT_EQUAL(atomic_load(&me->pid), pid);
	CU_ASSERT_EQUAL(atomic_load(&me->state), CHILD_ACTIVE);

	/* Appended while it sleeps, woken the way a worker wakes it. */
	deadline = mono_ms() + 10000;
	while (!atomic_load(&b.shm.hdr->writer_sleeping) && mono_ms() < deadline)
		nanosleep(&ms, NULL);
	produce(&b.shm, t, 0, 3, 2, &e);
	if (atomic_load(&b.shm.hdr->writer_sleeping))
		broker_wake(&b, broker_writer_slot(&b));
	CU_ASSERT_EQUAL(wait_offset(&p->visible_offset, 5), 5);

	/* acks=all */
	CU_ASSERT_EQUAL(atomic_load(&p->durable_offset), 0);
	atomic_store(&p->sync_wanted, 1);
	broker_wake(&b, broker_writer_slot(&b));
	CU_ASSERT_EQUAL(wait_offset(&p->durable_offset, 5), 5);

	/* Not woken: the stop signal alone makes it drain. */
	produce(&b.shm, t, 0, 1, 3, &e);
	CU_ASSERT_EQUAL(kill(pid, SIGTERM), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(atomic_load(&me->state), CHILD_ASSIGNED);
	CU_ASSERT_EQUAL(atomic_load(&p->visible_offset), 6);
	CU_ASSERT_EQUAL(atomic_load(&p->durable_offset), 6);
	CU_ASSERT(ring_empty(t, 0));
	assert_log("proc", 0, &e);
	expect_free(&e);
	finish();
}

/* One record of __consumer_offsets as the test reads it back. */
struct corec {
	int16_t	kver;
	char	group[32];
	char	topic[32];
	int32_t	partition;
	int64_t	offset;		/* -1: a tombstone */
};

/*
 * Every record of __consumer_offsets partition part, in offset order,
 * decoded with Kafka's formats (proto/coffsets.h); returns how many.
 */
static int
corecs(int32_t part, struct corec *out, int cap)
{
	struct plog_reader *r;
	struct plog_slice sl;
	struct batch_iter it;
	struct record rec;
	struct coffsets_key k;
	struct coffsets_commit v;
	char pdir[4096];
	uint8_t *buf;
	size_t pos;
	int64_t off = 0;
	int n = 0, guard;

	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(pdir, sizeof(pdir), dir,
	    COFFSETS_TOPIC, part), 0);
	CU_ASSERT_EQUAL_FATAL(plog_reader_open(&r, pdir), 0);
	for (guard = 0; guard < 1000; guard++) {
		if (plog_reader_read(r, off, INT64_MAX / 2, 1 << 20, &sl) == -1 ||
		    sl.len == 0)
			break;
		CU_ASSERT_FATAL((buf = malloc(sl.len)) != NULL);
		CU_ASSERT_EQUAL_FATAL(pread(sl.fd, buf, sl.len, sl.pos),
		    (ssize_t)sl.len);
		for (pos = 0; pos < sl.len; pos += 12 + be32_get(buf + pos + 8)) {
			CU_ASSERT_EQUAL_FATAL(batch_iter_init(&it, buf + pos,
			    12 + be32_get(buf + pos + 8)), 0);
			while (batch_iter_next(&it, &rec) == 1 && n < cap) {
				CU_ASSERT_EQUAL_FATAL(coffsets_key_decode(rec.key,
				    (size_t)rec.key_len, &k), 0);
				memset(&out[n], 0, sizeof(out[n]));
				out[n].kver = k.version;
				memcpy(out[n].group, k.group, k.group_len);
				if (k.topic != NULL)
					memcpy(out[n].topic, k.topic, k.topic_len);
				out[n].partition = k.partition;
				out[n].offset = -1;
				if (rec.value_len >= 0) {
					CU_ASSERT_EQUAL_FATAL(coffsets_commit_decode(
					    rec.value, (size_t)rec.value_len, &v), 0);
					CU_ASSERT_EQUAL(v.version, 1);
					out[n].offset = v.offset;
				}
				n++;
			}
		}
		free(buf);
		off = sl.next_offset;
	}
	plog_reader_close(r);
	return n;
}

static void
corec_is(const struct corec *c, int16_t kver, const char *group,
    const char *t, int32_t part, int64_t offset)
{
	CU_ASSERT_EQUAL(c->kver, kver);
	CU_ASSERT_STRING_EQUAL(c->group, group);
	CU_ASSERT_STRING_EQUAL(c->topic, t);
	CU_ASSERT_EQUAL(c->partition, part);
	CU_ASSERT_EQUAL(c->offset, offset);
}

/*
 * Committed offsets go to __consumer_offsets: every cycle appends, as
 * one batch per group, the offsets that changed since the last (no
 * periodic rewrite, no delay), through the ring; nothing changed, nothing
 * appended; shutdown appends what is left and drains it; a deleted group
 * gets the tombstones of its offsets and its own.
 */
static void
test_group_save(void)
{
	struct group_params gp = { 0 };
	struct corec c[8];
	struct writer *w;
	struct shm_group *g;
	struct shm_partition *cp;
	uint32_t slot;
	int t, ct, gi;

	start();
	/* Recovery makes it at start; here, as it would. */
	CU_ASSERT_EQUAL_FATAL(topic_internal_meta_save(dir, COFFSETS_TOPIC, 1,
	    NULL), 0);
	ct = topic(COFFSETS_TOPIC, 1);
	cp = shm_partition(&b.shm, ct, 0);
	t = topic("gs", 2);
	slot = (uint32_t)(shm_partition(&b.shm, t, 1) - b.shm.parts);
	gi = group_create(&b.shm, "billing", strlen("billing"), 1);
	CU_ASSERT_FATAL(gi >= 0);
	g = group_at(&b.shm, (uint32_t)gi);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 1000), 0);
	group_offset_set(&b.shm, g, slot, 5);
	(void)writer_cycle(w, 1000);
	CU_ASSERT_EQUAL(cp->next_offset, 1);
	CU_ASSERT_EQUAL(group_logged_get(&b.shm, g, slot), 5);
	group_offset_set(&b.shm, g, slot, 9);
	(void)writer_cycle(w, 1001);
	CU_ASSERT_EQUAL(cp->next_offset, 2);
	/* Nothing changed: nothing appended. */
	(void)writer_cycle(w, 1002);
	(void)writer_cycle(w, 1003);
	CU_ASSERT_EQUAL(cp->next_offset, 2);
	group_offset_set(&b.shm, g, slot, 12);
	CU_ASSERT_EQUAL(writer_finish(w, 1004), 0);
	CU_ASSERT_EQUAL(cp->next_offset, 3);
	CU_ASSERT_EQUAL(atomic_load(&cp->durable_offset), 3);
	CU_ASSERT_EQUAL_FATAL(corecs(0, c, 8), 3);
	corec_is(&c[0], 1, "billing", "gs", 1, 5);
	corec_is(&c[1], 1, "billing", "gs", 1, 9);
	corec_is(&c[2], 1, "billing", "gs", 1, 12);

	/* Deleted (DeleteGroups, expiry): tombstones, the group's last. */
	CU_ASSERT_EQUAL(group_delete(&b.shm, (uint32_t)gi, 1005, &gp,
	    GROUP_ANY_SEQ), ERR_NONE);
	CU_ASSERT_EQUAL(writer_finish(w, 1006), 0);
	CU_ASSERT_EQUAL(atomic_load(&g->used), GROUP_SLOT_FREE);
	CU_ASSERT_EQUAL_FATAL(corecs(0, c, 8), 5);
	corec_is(&c[3], 1, "billing", "gs", 1, -1);
	corec_is(&c[4], 2, "billing", "", 0, -1);
	writer_close(w);
	finish();
}

/*
 * A grow (shm_topic_grow): the writer makes the new partitions' logs,
 * rewrites topic.meta, then publishes the count; until then readers see
 * the old topic.  The topic's next slot is another topic's, so the new
 * partitions are an extent.  A grow whose files cannot be made leaves
 * the count and topic.meta as they were and is retried.
 */
static void
test_grow(void)
{
	static struct expect e[5], eu;
	struct writer *w;
	char path[4096];
	int32_t parts = 0, cur;
	int t, u, i;
	FILE *f;

	start();
	t = topic("orders", 2);
	u = topic("other", 1);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 1000), 0);
	produce(&b.shm, t, 0, 2, 1, &e[0]);
	produce(&b.shm, u, 0, 1, 2, &eu);
	CU_ASSERT_EQUAL(shm_topic_grow(&b.shm, "orders", 6, 4, &cur), t);
	CU_ASSERT_EQUAL(cur, 2);
	CU_ASSERT_PTR_NULL(shm_partition(&b.shm, t, 2));
	CU_ASSERT_EQUAL(writer_pending(w, 1000), 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 1000), 1);
	CU_ASSERT_EQUAL(b.shm.topics[t].partitions, 4);
	CU_ASSERT_EQUAL(b.shm.topics[t].ext[0].span, 2);
	CU_ASSERT_EQUAL(topic_meta_load(dir, "orders", &parts, NULL), 0);
	CU_ASSERT_EQUAL(parts, 4);
	CU_ASSERT(exists("orders", 2) && exists("orders", 3));
	for (i = 1; i < 4; i++)
		produce(&b.shm, t, i, 1, 10 + (uint32_t)i, &e[i]);
	produce(&b.shm, u, 0, 1, 3, &eu);
	CU_ASSERT_EQUAL(writer_cycle(w, 1001), 1);
	for (i = 0; i < 4; i++) {
		assert_log("orders", i, &e[i]);
		CU_ASSERT_EQUAL(visible(t, i), i == 0 ? 2 : 1);
	}
	assert_log("other", 0, &eu);

	/* partition-4 cannot be made (a file in its place): nothing moves. */
	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(path, sizeof(path), dir,
	    "orders", 4), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "w"));
	fclose(f);
	CU_ASSERT_EQUAL(shm_topic_grow(&b.shm, "orders", 6, 5, &cur), t);
	(void)writer_cycle(w, 1002);
	CU_ASSERT_EQUAL(b.shm.topics[t].partitions, 4);
	CU_ASSERT_EQUAL(topic_meta_load(dir, "orders", &parts, NULL), 0);
	CU_ASSERT_EQUAL(parts, 4);
	CU_ASSERT_EQUAL(writer_pending(w, 1003), 0);	/* backing off */
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(writer_pending(w, 1002 + 2000), 1);
	CU_ASSERT_EQUAL(writer_cycle(w, 1002 + 2000), 1);
	CU_ASSERT_EQUAL(b.shm.topics[t].partitions, 5);
	CU_ASSERT_EQUAL(topic_meta_load(dir, "orders", &parts, NULL), 0);
	CU_ASSERT_EQUAL(parts, 5);
	writer_close(w);
	for (i = 0; i < 5; i++)
		expect_free(&e[i]);
	expect_free(&eu);
	finish();
}

TEST_SUITE("writer", setup, teardown,
	{ "drain_region", test_drain_region },
	{ "drain_region_damaged", test_drain_region_damaged },
	{ "cycle_basic", test_cycle_basic },
	{ "flush_policies", test_flush_policies },
	{ "storage_error", test_storage_error },
	{ "restart_skips", test_restart_skips },
	{ "dead_producer", test_dead_producer },
	{ "wake", test_wake },
	{ "finish", test_finish },
	{ "sync_thread", test_sync_thread },
	{ "make_thread", test_make_thread },
	{ "sync_pool", test_sync_pool },
	{ "group_save", test_group_save },
	{ "damaged_ring", test_damaged_ring },
	{ "retention", test_retention },
	{ "process", test_process },
	{ "grow", test_grow });
