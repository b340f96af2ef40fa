/*
 * The writer: a supervised child (slot `workers`), the single consumer of
 * every partition ring.  One loop:
 *
 *   open topics that appeared in the directory (topic.meta, one plog per
 *   partition); for every partition: take sync_wanted, drain the ring
 *   into the log with plog_append_at (workers assigned the offsets; what a
 *   previous writer already wrote is skipped), publish visible_offset,
 *   free the ring bytes; fdatasync when the policy says and publish
 *   durable_offset; apply retention when due; wake the workers that
 *   asked; sleep on the eventfd when nothing is left to do.
 *
 * Many acks=all produces share one fdatasync: a cycle drains every ring
 * first and syncs once per partition for everything that arrived.
 *
 * The order per partition is what makes a writer crash harmless: bytes
 * reach the log (write), then visible_offset is published, then the ring
 * space is released.  A writer killed anywhere in between leaves the
 * batches in the ring, and its successor skips those already in the log.
 *
 * A storage error (ENOSPC, EIO) keeps the bytes in the ring (they were
 * acknowledged), sets the partition's storage_error so workers refuse new
 * produces, logs one line, and is retried with a growing backoff; the
 * first success clears it.  A respawned writer takes over the errors its
 * predecessor left set (wslot_inherit) and retries them at once, so a
 * writer killed during a storage error does not leave the partition
 * refusing produces until the master restarts.  Batches that contradict
 * the log (EINVAL from plog_append_at: overlapping its end or leaving a
 * gap, which the crash rule of shm/ring.h rules out) are treated the same
 * way: the partition stops with storage_error set rather than lose or
 * renumber them.
 *
 * Deleting a topic (shm/shm.h): a worker marks the entry DELETING; the
 * next cycle closes its logs, renames its directory to a tombstone
 * (store/tomb.h, data directory synced), removes it, clears the group
 * offsets committed on its slots and resets them (shm_topic_delete_end
 * frees the entry).  A failure is retried with backoff; start-up
 * recovery removes a tombstone a crash left behind.  A freed entry that
 * a create reused is opened again like a new topic.
 *
 * A failed fdatasync also sets the partition's sync_failed (in shared
 * memory, so a respawned writer and start-up recovery see it), and
 * durable_offset stays where it was: the kernel may have marked the
 * pages clean without writing them, so no later fdatasync alone proves
 * them durable.  Each retry writes everything past durable_offset again
 * (plog_resync, which refuses bytes that read back damaged) before its
 * fdatasync; only that clears the mark and publishes durable_offset.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <bsd/unistd.h>

#include "common/broker.h"
#include "master/config.h"
#include "common/live.h"
#include "master/fault.h"
#include "common/child.h"
#include "common/clock.h"
#include "common/log.h"
#include "master/cleaner.h"
#include "master/txnpart.h"
#include "master/writer.h"
#include "master/writer_group.h"
#include "master/writer_make.h"
#include "master/writer_sync.h"
#include "master/writer_tconf.h"
#include "master/writer_txn.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "shm/stats.h"
#include "shm/group.h"
#include "store/plog.h"
#include "store/tomb.h"
#include "store/topic.h"

#define WRITER_BACKOFF_MIN_MS	50
#define WRITER_BACKOFF_MAX_MS	2000
#define WRITER_SLEEP_MAX_MS	1000	/* a lost wake-up costs at most this */
#define WRITER_STOP_POLL_MS	50	/* checking whether the workers exited */
#define WRITER_STOP_WAIT_MS	10000	/* for the workers, after a signal */
#define WRITER_FINISH_MS	10000	/* retrying the final drain */
/*
 * Peeks per partition per cycle: from any head, one run reaches a skip
 * or the ring end and the next reaches tail; more rounds only chase
 * producers, which the next cycle does anyway.
 */
#define WRITER_DRAIN_ROUNDS	4
/*
 * Bytes written per step of a drain: after each the ring space is
 * released, the new end published and waiting workers woken, so a worker
 * appends (and acks) while the writer writes the rest, rather than the
 * ring staying full for a whole run.  At least one batch per step.
 */
#define WRITER_CHUNK_BYTES	(2u << 20)

/* The writer's private view of one partition slot. */
struct wslot {
	struct plog	*log;		/* NULL until opened */
	int64_t		 visible;	/* log end, as published */
	int64_t		 durable;	/* as published */
	int64_t		 last_sync_ms;
	int64_t		 msgs;		/* records written since the last sync */
	uint64_t	 want_pos;	/* an acks=all producer waits for the ring up to here */
	int		 want;
	int		 sync_all;	/* opened with visible > durable: sync every segment */
	int		 syncing;	/* a job of this handle is with the sync threads */
	uint64_t	 epoch;		/* which open of the log this handle is */
	int		 error;		/* errno of the failing step, 0 if none */
	int64_t		 retry_ms;	/* no retry before */
	int64_t		 backoff_ms;
	int64_t		 ret_ms;	/* retention the log was opened with */
	int64_t		 ret_bytes;
	int64_t		 flush_ms;	/* the topic's flush.ms; -1 never */
	int64_t		 flush_msgs;	/* ... flush.messages; -1 never */
	int64_t		 del_retry_ms;	/* a failed DeleteRecords: not before */
	uint32_t	 seg_gen;	/* the cleaner's swaps this handle has seen */
	int64_t		 txn_snap;	/* newest producer-state snapshot, -1 none
					   (master/txnpart.h) */
};

struct writer {
	struct broker		*b;
	struct shm		*s;
	const struct config	*conf;
	struct wslot		*slots;		/* [max_partitions] */
	uint8_t			*topic_ok;	/* [max_topics]: WTOPIC_* */
	uint32_t		 topics_open;	/* topics[0..topics_open) are handled */
	int64_t			 meta_retry_ms;	/* WTOPIC_WAIT, refilled FREED */
	int64_t			 next_retention_ms;
	int64_t			 delete_retry_ms;
	int64_t			 delete_backoff_ms;
	int64_t			 grow_retry_ms;	/* a grow whose files failed */
	struct writer_groups	*groups;	/* master/writer_group.c */
	struct wsync		*sync;		/* master/writer_sync.c */
	uint64_t		 epochs;	/* log handles opened so far */
	uint32_t		*tconf_seen;	/* [max_topics]: settings generation applied */
	int			 tconf_woke;	/* a save happened: wake the workers */
};

/* What the writer made of a topic entry below topics_open. */
enum {
	WTOPIC_BAD = 0,		/* damaged: ignored */
	WTOPIC_OPEN = 1,	/* checked, logs opened */
	WTOPIC_CLOSED = 2,	/* being deleted: logs closed */
	WTOPIC_FREED = 3,	/* deleted; opened again when a create reuses it */
	WTOPIC_WAIT = 4,	/* its directory could not be made: retried */
	WTOPIC_MAKING = 5	/* its files are being made by the sync threads */
};

static int	writer_topic_made(struct writer *, struct wmake *, int64_t, int *);

static uint32_t
topic_count_now(const struct shm *s)
{
	uint32_t n = atomic_load_explicit(&s->hdr->topic_count, memory_order_acquire);

	return n < s->hdr->limits.max_topics ? n : s->hdr->limits.max_topics;
}

/*
 * Copy topic ti's name into buf (TOPIC_NAME_MAX + 1 bytes) after checking
 * everything the writer relies on: published, a valid name, partition
 * slots inside the table.  A region re-attached at startup is trusted no
 * further than this.
 */
static int
topic_entry_check_state(const struct shm *s, uint32_t ti, char *buf,
    uint32_t state)
{
	const struct shm_topic *t = &s->topics[ti];
	uint32_t len = t->name_len;

	if (atomic_load_explicit(&t->state, memory_order_acquire) != state ||
	    len == 0 || len > TOPIC_NAME_MAX || t->partitions < 1 ||
	    shm_topic_slot(s, t, (uint32_t)t->partitions - 1) == UINT32_MAX)
		return -1;
	memcpy(buf, t->name, len);
	buf[len] = '\0';
	if (!topic_name_valid(buf, len))
		return -1;
	return 0;
}

static int
topic_entry_check(const struct shm *s, uint32_t ti, char *buf)
{
	return topic_entry_check_state(s, ti, buf, TOPIC_READY);
}

/* Name of the topic owning slot i, for log lines. */
static const char *
slot_topic(const struct writer *w, uint32_t i, int *len)
{
	const struct shm_partition *p = &w->s->parts[i];
	const struct shm_topic *t;

	if (p->topic >= w->s->hdr->limits.max_topics) {
		*len = 1;
		return "?";
	}
	t = &w->s->topics[p->topic];
	*len = t->name_len <= TOPIC_NAME_MAX ? (int)t->name_len : TOPIC_NAME_MAX;
	return t->name;
}

static void
wslot_fail(struct writer *w, uint32_t i, const char *what, int err, int64_t now)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	const char *name;
	int len;

	/* Published before the log line, which tests take as the sign. */
	atomic_store_explicit(&p->storage_error, err, memory_order_release);
	if (sl->error != err) {
		name = slot_topic(w, i, &len);
		log_warnx("%.*s-%d: %s: %s; keeping the data in memory and retrying",
		    len, name, p->partition, what, strerror(err));
	}
	sl->error = err;
	if (sl->backoff_ms == 0)
		sl->backoff_ms = WRITER_BACKOFF_MIN_MS;
	else if (sl->backoff_ms < WRITER_BACKOFF_MAX_MS)
		sl->backoff_ms *= 2;
	if (sl->backoff_ms > WRITER_BACKOFF_MAX_MS)
		sl->backoff_ms = WRITER_BACKOFF_MAX_MS;
	sl->retry_ms = now + sl->backoff_ms;
}

static void
wslot_ok(struct writer *w, uint32_t i)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	const char *name;
	int len;

	if (sl->error == 0)
		return;
	name = slot_topic(w, i, &len);
	log_info("%.*s-%d: storage works again", len, name, p->partition);
	sl->error = 0;
	sl->backoff_ms = 0;
	sl->retry_ms = 0;
	atomic_store_explicit(&p->storage_error, 0, memory_order_release);
}

/* One line when opening a partition's log had to mend it. */
static void
log_recovered(const char *topic, int32_t partition,
    const struct plog_recovery *rec)
{
	if (rec->truncated_bytes > 0 || rec->index_rebuilt)
		log_info("%s-%d: recovered the log: %llu bytes truncated%s", topic,
		    partition, (unsigned long long)rec->truncated_bytes,
		    rec->index_rebuilt ? ", index rebuilt" : "");
	if (rec->logstart_bad)
		log_warnx("%s-%d: the log-start file is damaged; the log starts "
		    "at its oldest segment", topic, partition);
}

static int
plog_open_for(struct plog **lp, const struct config *conf, const char *topic,
    int32_t partition)
{
	struct plog_config cfg;
	struct plog_recovery rec;
	char dir[PATH_MAX];

	if (topic_partition_dir(dir, sizeof(dir), conf->data_dir, topic, partition) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	config_topic_log(conf, topic, &cfg);
	memset(&rec, 0, sizeof(rec));
	if (plog_open(lp, dir, &cfg, &rec) == -1)
		return -1;
	log_recovered(topic, partition, &rec);
	return 0;
}

/*
 * A storage error in shared memory that this writer did not see itself
 * was left by a predecessor that died before its retry succeeded (each
 * writer sets the flag and its own sl->error together).  Only the writer
 * ever clears the flag, so slot i adopts it as its own pending error,
 * due at once: the next cycle that drains and syncs (a resync if
 * sync_failed is set too) clears it with "storage works again", and one
 * that fails goes on retrying.  Without this, the partition would refuse
 * every produce with STORAGE until the master restarted.
 */
static void
wslot_inherit(struct writer *w, uint32_t i, const char *name, int64_t now)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	int err;

	err = atomic_load_explicit(&p->storage_error, memory_order_acquire);
	if (err == 0 || sl->error != 0)
		return;
	log_warnx("%s-%d: %s before the writer restarted; retrying", name,
	    p->partition, strerror(err));
	sl->error = err;
	sl->backoff_ms = 0;
	sl->retry_ms = now;
}

/*
 * Slot i's log and flushing take its topic's settings (flume.conf's and
 * the topic's own, writer_tconf.h).
 */
static void
wslot_settings(struct writer *w, uint32_t i, const char *name)
{
	struct wslot *sl = &w->slots[i];
	struct writer_tlog tl;

	writer_tconf_log(w->s, w->conf, w->s->parts[i].topic, name, &tl);
	if (sl->log != NULL)
		plog_set_config(sl->log, &tl.cfg);
	sl->ret_ms = tl.cfg.retention_ms;
	sl->ret_bytes = tl.cfg.retention_bytes;
	sl->flush_ms = tl.flush_ms;
	sl->flush_msgs = tl.flush_msgs;
}

/*
 * Slot i takes log (just opened for topic name; NULL: that failed with
 * err) and over the partition from whatever state the shared region is
 * in (a fresh topic, or a previous writer's).  0, or -1 for no log.
 */
static int
wslot_take(struct writer *w, uint32_t i, const char *name, struct plog *log,
    int err, int64_t now)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	int64_t end, vis, dur;

	/* A sync still out for an earlier handle is not this one's. */
	sl->syncing = 0;
	sl->epoch = ++w->epochs;
	wslot_inherit(w, i, name, now);
	if ((sl->log = log) == NULL) {
		wslot_fail(w, i, "opening the log", err, now);
		return -1;
	}
	end = plog_end_offset(sl->log);
	wslot_settings(w, i, name);
	sl->txn_snap = txn_snapshot_newest(sl->log);

	/*
	 * A log that already runs past the offsets workers hand out (a
	 * partition directory the master did not load) would make every new
	 * batch overlap it; continue numbering from the log end instead.
	 */
	if (part_lock(w->s, p) == 0) {
		if (p->next_offset < end) {
			log_warnx("%s-%d: the log ends at offset %lld, past the next "
			    "offset %lld in memory; numbering continues from the log end",
			    name, p->partition, (long long)end, (long long)p->next_offset);
			__atomic_store_n(&p->next_offset, end, __ATOMIC_RELEASE);
		}
		part_unlock(p);
	}

	vis = atomic_load_explicit(&p->visible_offset, memory_order_acquire);
	if (vis > end)
		log_warnx("%s-%d: the log ends at offset %lld, before the visible "
		    "offset %lld", name, p->partition, (long long)end, (long long)vis);
	if (vis < end)
		atomic_store_explicit(&p->visible_offset, end, memory_order_release);
	dur = atomic_load_explicit(&p->durable_offset, memory_order_acquire);
	sl->visible = end;
	sl->durable = dur < end ? dur : end;
	/*
	 * A predecessor killed between its write and its fdatasync left
	 * bytes this handle did not write, so plog_sync would not sync
	 * them: the first sync covers every segment.
	 */
	sl->sync_all = sl->durable < end;
	sl->last_sync_ms = now;
	sl->msgs = 0;
	/* Segments below a DeleteRecords' start that a crash left behind. */
	if (plog_delete_below(sl->log, plog_start_offset(sl->log), NULL) == -1)
		log_warn("%s-%d: removing segments below the log start", name,
		    p->partition);
	atomic_store_explicit(&p->log_start, plog_start_offset(sl->log), memory_order_release);
	atomic_store_explicit(&p->log_bytes, plog_size_bytes(sl->log), memory_order_release);
	atomic_store_explicit(&p->segments, (uint32_t)plog_segment_count(sl->log),
	    memory_order_relaxed);
	/*
	 * An error, this writer's or inherited, is cleared by the first
	 * cycle that drains and syncs, not here.
	 */
	return 0;
}

/* Open slot i's log again (after a failure, or to reopen it). */
static int
wslot_open(struct writer *w, uint32_t i, int64_t now)
{
	struct shm_partition *p = &w->s->parts[i];
	char name[TOPIC_NAME_MAX + 1];
	struct plog *log;

	if (p->topic >= w->s->hdr->limits.max_topics ||
	    topic_entry_check(w->s, p->topic, name) == -1) {
		wslot_fail(w, i, "topic entry", EPROTO, now);
		return -1;
	}
	{
		char dir[PATH_MAX];
		int locked = 0, err;

		/* Not while the cleaner swaps segments (plog_open recovers). */
		if (topic_partition_dir(dir, sizeof(dir), w->conf->data_dir, name,
		    p->partition) == 0 && cleaner_lock(w->s, i, dir) == 0)
			locked = 1;
		w->slots[i].seg_gen = atomic_load(&p->seg_gen);
		if (plog_open_for(&log, w->conf, name, p->partition) == -1)
			log = NULL;
		err = errno;
		if (locked)
			cleaner_unlock(w->s, i);
		errno = err;
	}
	return wslot_take(w, i, name, log, errno, now);
}

/*
 * Take slot i's clean_lock before removing segments (retention,
 * DeleteRecords), and take in what a cleaner's swap changed since this
 * handle last looked: its closed segments reloaded, the size published.
 * 0 (locked) or -1 (not locked: skip the step this time).
 */
static int
wslot_clean_begin(struct writer *w, uint32_t i)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	char name[TOPIC_NAME_MAX + 1], dir[PATH_MAX];
	const char *n;
	uint32_t gen;
	int len;

	n = slot_topic(w, i, &len);
	memcpy(name, n, (size_t)len);
	name[len] = '\0';
	if (topic_partition_dir(dir, sizeof(dir), w->conf->data_dir, name,
	    p->partition) == -1 || cleaner_lock(w->s, i, dir) == -1)
		return -1;
	gen = atomic_load_explicit(&p->seg_gen, memory_order_acquire);
	if (gen != sl->seg_gen) {
		if (plog_reload_closed(sl->log) == -1)
			log_warn("%s-%d: reloading the segments the cleaner "
			    "replaced", name, p->partition);
		sl->seg_gen = gen;
		atomic_store_explicit(&p->log_bytes, plog_size_bytes(sl->log),
		    memory_order_release);
		atomic_store_explicit(&p->segments,
		    (uint32_t)plog_segment_count(sl->log), memory_order_relaxed);
	}
	return 0;
}

/*
 * Append one run of whole batches from a ring to a log and account for
 * it: *batches and *records count what was written (not skipped).
 */
static int
run_append(struct plog *log, const uint8_t *data, size_t n, uint64_t *batches,
    uint64_t *records)
{
	size_t skipped = 0, pos, sz;
	int32_t count;

	if (plog_append_at(log, data, n, &skipped) == -1)
		return -1;
	*batches = *records = 0;
	/* ring_peek returned whole batches, each at least a header long. */
	for (pos = 0; pos + BATCH_HEADER_SIZE <= n; pos += sz) {
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(data + pos + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > n - pos)
			break;
		if (pos < skipped)
			continue;
		count = (int32_t)be32_get(data + pos + BATCH_OFF_COUNT);
		(*batches)++;
		if (count > 0)
			*records += (uint64_t)count;
	}
	return 0;
}

/*
 * Tell the workers that topic ti is on disk once every partition's log
 * is open: a create parked on it (worker/op/topics.h) answers then.
 * *moved is set so that the cycle wakes them.
 */
static void
writer_topic_opened(struct writer *w, uint32_t ti, int *moved)
{
	struct shm_topic *t = &w->s->topics[ti];
	uint32_t pi, i;

	if (atomic_load_explicit(&t->opened, memory_order_relaxed) != 0)
		return;
	/* A parked create answers a partition's storage error. */
	*moved = 1;
	for (pi = 0; pi < (uint32_t)t->partitions; pi++)
		if ((i = shm_topic_slot(w->s, t, pi)) == UINT32_MAX ||
		    w->slots[i].log == NULL)
			return;
	atomic_store_explicit(&t->opened, 1, memory_order_release);
}

/*
 * The leading whole batches of a run of n bytes that fit in cap bytes:
 * at least the first batch, n when the run fits.
 */
static size_t
run_cut(const uint8_t *data, size_t n, size_t cap)
{
	size_t pos, sz;

	if (n <= cap)
		return n;
	for (pos = 0; pos + BATCH_HEADER_SIZE <= n; pos += sz) {
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(data + pos + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > n - pos)
			return n;	/* cannot happen: ring_peek checked */
		if (pos + sz > cap)
			return pos > 0 ? pos : sz;
	}
	return n;
}

static void writer_wake_workers(struct writer *w);

/*
 * Drain slot i's ring into its log.  With force (shutdown) backoffs are
 * ignored.  0, or -1 when the slot failed or is waiting out a backoff.
 */
static int
wslot_drain(struct writer *w, uint32_t i, int64_t now, int force, int *moved)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	uint64_t stop, batches, records;
	uint8_t *data;
	size_t n, run;
	int64_t end;
	int round, segs;

	if (!force && sl->error != 0 && now < sl->retry_ms)
		return -1;
	if (sl->log == NULL) {
		if (wslot_open(w, i, now) == -1)
			return -1;
		writer_topic_opened(w, p->topic, moved);
	}
	stop = atomic_load_explicit(&p->tail, memory_order_acquire);
	for (round = 0; round < WRITER_DRAIN_ROUNDS;) {
		run = ring_peek(w->s, p, &data);
		if (run == 0) {
			if (ring_damaged(w->s, p)) {
				wslot_fail(w, i, "ring", EPROTO, now);
				return -1;
			}
			break;
		}
		/* A step that leaves part of its run behind is not a round. */
		n = run_cut(data, run, WRITER_CHUNK_BYTES);
		if (n == run)
			round++;
		segs = plog_segment_count(sl->log);
		if (txn_before_append(w->s, p, sl->log, data, n, &sl->txn_snap) == -1) {
			wslot_fail(w, i, "a producer-state snapshot", errno, now);
			return -1;
		}
		if (run_append(sl->log, data, n, &batches, &records) == -1) {
			/*
			 * Reopen before the retry: recovery puts the log back
			 * in a known state even if the failed append could
			 * not be undone.
			 */
			wslot_fail(w, i, "writing the log", errno, now);
			plog_close(sl->log);
			sl->log = NULL;
			return -1;
		}
		sl->msgs += (int64_t)records;
		end = plog_end_offset(sl->log);
		if (end > sl->visible) {
			sl->visible = end;
			atomic_store_explicit(&p->visible_offset, end, memory_order_release);
		}
		/* Before the release: a marker left in the ring is drained again. */
		if (txn_markers_drained(w->s, p, sl->log, data, n) == -1) {
			wslot_fail(w, i, "the aborted-transaction index", errno, now);
			return -1;
		}
		/* A segment rolled: the open transactions at the new end. */
		if (plog_segment_count(sl->log) != segs)
			(void)txn_snapshot(w->s, p, sl->log, &sl->txn_snap);
		atomic_store_explicit(&p->log_bytes, plog_size_bytes(sl->log),
		    memory_order_relaxed);
		atomic_store_explicit(&p->segments,
		    (uint32_t)plog_segment_count(sl->log), memory_order_relaxed);
		ring_release(w->s, p, n);
		*moved = 1;
		if (atomic_load_explicit(&p->head, memory_order_relaxed) >= stop)
			break;
		writer_wake_workers(w);
	}
	return 0;
}

/*
 * Hand slot i's sync to the sync threads: what the log holds now, drained
 * from the ring up to head now.  0, or -1 when it must be done here.
 */
static int
wslot_sync_submit(struct writer *w, uint32_t i, int64_t now)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	struct wsync_job *job;

	if (w->sync == NULL || (job = calloc(1, sizeof(*job))) == NULL)
		return -1;
	if (plog_sync_begin(sl->log, sl->sync_all, &job->ps) == -1) {
		free(job);
		return -1;
	}
	job->slot = i;
	job->epoch = sl->epoch;
	job->incarnation = atomic_load(&p->incarnation);
	job->visible = sl->visible;
	job->head = atomic_load_explicit(&p->head, memory_order_relaxed);
	/* A job that fails makes the next sync a resync, which covers all. */
	sl->sync_all = 0;
	sl->syncing = 1;
	sl->last_sync_ms = now;
	sl->msgs = 0;
	wsync_submit(w->sync, job);
	return 0;
}

/* A sync job came back: publish what it made durable, or its failure. */
static void
wslot_sync_done(struct writer *w, const struct wsync_job *job, int64_t now,
    int *moved)
{
	struct wslot *sl = &w->slots[job->slot];
	struct shm_partition *p = &w->s->parts[job->slot];

	if (job->err != 0) {
		stats_fsync_record(w->s, 0, 0);
		/*
		 * Even for a handle closed since: the bytes it covered are in
		 * the partition's files until a resync writes them again.
		 */
		if (atomic_load(&p->incarnation) == job->incarnation)
			atomic_store_explicit(&p->sync_failed, 1, memory_order_relaxed);
	} else
		stats_fsync_record(w->s, job->us, 1);
	/* From an earlier handle: the open that followed took over. */
	if (sl->log == NULL || sl->epoch != job->epoch || !sl->syncing)
		return;
	sl->syncing = 0;
	if (job->err != 0) {
		wslot_fail(w, job->slot, "fdatasync", job->err, now);
		return;
	}
	/* A job before this one failed: only a resync counts now. */
	if (atomic_load_explicit(&p->sync_failed, memory_order_relaxed) != 0)
		return;
	if (job->visible > sl->durable) {
		sl->durable = job->visible;
		atomic_store_explicit(&p->durable_offset, sl->durable,
		    memory_order_release);
	}
	if (sl->want && job->head >= sl->want_pos)
		sl->want = 0;
	*moved = 1;
}

/* Take back the finished sync jobs; with wait, every job submitted. */
static void
writer_sync_collect(struct writer *w, int64_t now, int wait, int *moved)
{
	struct wsync_job *job, *next;

	if (w->sync == NULL)
		return;
	for (job = wsync_done(w->sync, wait); job != NULL; job = next) {
		next = job->next;
		if (job->make != NULL)
			(void)writer_topic_made(w, job->make, now, moved);
		else
			wslot_sync_done(w, job, now, moved);
		wsync_job_free(job);
	}
}

/*
 * fdatasync slot i's log when the policy (or force) says so; publish
 * durable.  A sync due in the normal course goes to the sync threads and
 * is published when it comes back; one forced (shutdown, reopening), a
 * resync after a failure, and the first one after a storage error are
 * done here and now.
 */
static int
wslot_sync(struct writer *w, uint32_t i, int64_t now, int force, int *moved)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	const char *name;
	int64_t vis;
	uint64_t t0;
	int need, failed, rc, len;

	if (sl->log != NULL && sl->syncing) {
		if (!force)
			return 0;	/* one at a time: its return decides */
		writer_sync_collect(w, now, 1, moved);
	}
	if (sl->log == NULL)
		return 0;
	if (sl->visible > sl->durable) {
		failed = atomic_load_explicit(&p->sync_failed, memory_order_relaxed) != 0;
		need = failed || force || sl->want ||
		    (sl->flush_ms >= 0 && now - sl->last_sync_ms >= sl->flush_ms) ||
		    (sl->flush_msgs > 0 && sl->msgs >= sl->flush_msgs);
		if (!need)
			return 0;
		if (!force && !failed && sl->error == 0 &&
		    wslot_sync_submit(w, i, now) == 0)
			return 0;
		vis = sl->visible;
		t0 = clock_mono_us();
		/*
		 * Once an fdatasync has failed, a later one that succeeds
		 * proves nothing about the bytes the failed one covered (the
		 * kernel may have marked their pages clean unwritten): only
		 * bytes written again count.  The flag is in shared memory,
		 * so a respawned writer and start-up recovery honour it too;
		 * durable_offset stays at the failure point until then.
		 */
		rc = failed ? plog_resync(sl->log, sl->durable) : sl->sync_all ?
		    plog_sync_all(sl->log) : plog_sync(sl->log);
		if (rc == -1) {
			atomic_store_explicit(&p->sync_failed, 1, memory_order_relaxed);
			stats_fsync_record(w->s, 0, 0);
			wslot_fail(w, i, "fdatasync", errno, now);
			return -1;
		}
		stats_fsync_record(w->s, clock_mono_us() - t0, 1);
		sl->sync_all = 0;
		if (failed) {
			atomic_store_explicit(&p->sync_failed, 0, memory_order_relaxed);
			name = slot_topic(w, i, &len);
			log_info("%.*s-%d: offsets %lld..%lld written again and "
			    "synced after the failed fdatasync", len, name,
			    p->partition, (long long)sl->durable, (long long)vis);
		}
		sl->durable = vis;
		atomic_store_explicit(&p->durable_offset, vis, memory_order_release);
		sl->last_sync_ms = now;
		sl->msgs = 0;
		*moved = 1;
	}
	/* Everything drained is durable now; the request is met once drained. */
	if (sl->want && atomic_load_explicit(&p->head, memory_order_relaxed) >= sl->want_pos)
		sl->want = 0;
	return 0;
}

static void
wslot_cycle(struct writer *w, uint32_t i, int64_t now, int force, int *moved)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	uint64_t pos;

	/*
	 * Take the request before draining: a worker sets sync_wanted after
	 * its append, so everything it waits for is in the ring by now (and
	 * a request made after this exchange is seen next cycle).
	 */
	if (atomic_exchange(&p->sync_wanted, 0) != 0) {
		pos = atomic_load(&p->tail);
		if (!sl->want || pos > sl->want_pos)
			sl->want_pos = pos;
		sl->want = 1;
	}
	if (wslot_drain(w, i, now, force, moved) == 0 &&
	    wslot_sync(w, i, now, force, moved) == 0)
		wslot_ok(w, i);
}

/*
 * Topic m->ti's files are made (m came back from the sync threads, or ran
 * in line): its slots take the logs.  0 done, 1 when the directory could
 * not be made: the entry is WTOPIC_WAIT and retried after meta_retry_ms,
 * while other topics are opened on.  *moved is set when workers waiting
 * on the create have something to see: the topic on disk, or a new
 * storage error on it.  A partition whose log did not open is retried by
 * wslot_drain.
 */
static int
writer_topic_made(struct writer *w, struct wmake *m, int64_t now, int *moved)
{
	const struct shm_topic *t = &w->s->topics[m->ti];
	struct wmake_part *mp;
	uint32_t pi, i;
	int err = m->meta_err;

	if (err != 0) {
		/* One line per topic and error, not one per retry. */
		if (w->slots[shm_topic_slot(w->s, t, 0)].error != err)
			log_warnx("topic %s: cannot write topic.meta: %s; retrying",
			    m->name, strerror(err));
		w->topic_ok[m->ti] = WTOPIC_WAIT;
		w->meta_retry_ms = now + WRITER_BACKOFF_MAX_MS;
		/* Refuse produces to it until its directory exists. */
		for (pi = 0; pi < (uint32_t)t->partitions; pi++) {
			if ((i = shm_topic_slot(w->s, t, pi)) == UINT32_MAX)
				break;
			if (atomic_exchange(&w->s->parts[i].storage_error,
			    err) != err)
				*moved = 1;	/* a parked create answers it */
			w->slots[i].error = err;
		}
		return 1;
	}
	if (m->meta_parts != 0 && m->meta_parts != t->partitions)
		log_warnx("topic %s: topic.meta says %d partitions, memory %d",
		    m->name, m->meta_parts, t->partitions);
	for (pi = 0; pi < (uint32_t)m->partitions; pi++) {
		if ((i = shm_topic_slot(w->s, t, pi)) == UINT32_MAX)
			break;
		mp = &m->parts[pi];
		if (mp->log != NULL)
			log_recovered(m->name, (int32_t)pi, &mp->rec);
		(void)wslot_take(w, i, m->name, mp->log, mp->err, now);
		mp->log = NULL;
	}
	log_debug("topic %s: %d partitions opened", m->name, t->partitions);
	/* A published entry changes again only by a delete. */
	w->topic_ok[m->ti] = WTOPIC_OPEN;
	writer_topic_opened(w, m->ti, moved);
	return 0;
}

/*
 * Make topic ti's files and open its logs: on the sync threads when there
 * is one and nothing forces it (2: the entry is WTOPIC_MAKING until the
 * job comes back), else in line (writer_topic_made()'s answer).
 */
static int
writer_open_topic(struct writer *w, uint32_t ti, const char *name, int64_t now,
    int force, int *moved)
{
	const struct shm_topic *t = &w->s->topics[ti];
	struct plog_config cfg;
	struct wsync_job *job;
	struct wmake *m;
	int rc;

	config_topic_log(w->conf, name, &cfg);
	if ((m = wmake_new(w->conf->data_dir, name, ti, t->partitions,
	    &cfg)) == NULL) {
		log_warn("topic %s: opening its logs; retrying", name);
		w->topic_ok[ti] = WTOPIC_WAIT;
		w->meta_retry_ms = now + WRITER_BACKOFF_MAX_MS;
		return 1;
	}
	memcpy(m->id, t->id, sizeof(m->id));
	if (w->sync != NULL && !force &&
	    (job = calloc(1, sizeof(*job))) != NULL) {
		job->make = m;
		w->topic_ok[ti] = WTOPIC_MAKING;
		wsync_submit(w->sync, job);
		return 2;
	}
	(void)wmake_run(m);
	rc = writer_topic_made(w, m, now, moved);
	wmake_free(m);
	return rc;
}

/*
 * 1 if an entry below topics_open waits for writer_open_topic again: one
 * whose directory could not be made, or one a create filled after its
 * delete.
 */
static int
writer_retry_pending(const struct writer *w)
{
	uint32_t ti;

	for (ti = 0; ti < w->topics_open; ti++)
		if ((w->topic_ok[ti] == WTOPIC_FREED ||
		    w->topic_ok[ti] == WTOPIC_WAIT) &&
		    atomic_load_explicit(&w->s->topics[ti].state,
		    memory_order_acquire) == TOPIC_READY)
			return 1;
	return 0;
}

/*
 * Open the logs of topics created since the last look (each tried at
 * once), and, from meta_retry_ms on (or with force), of the entries
 * writer_retry_pending() counts.
 */
static void
writer_open_topics(struct writer *w, int64_t now, int force, int *moved)
{
	char name[TOPIC_NAME_MAX + 1];
	uint32_t n = topic_count_now(w->s), ti, st;
	int retry = force || now >= w->meta_retry_ms;

	for (ti = 0; retry && ti < w->topics_open; ti++) {
		if ((w->topic_ok[ti] != WTOPIC_FREED &&
		    w->topic_ok[ti] != WTOPIC_WAIT) ||
		    topic_entry_check(w->s, ti, name) == -1)
			continue;
		if (writer_open_topic(w, ti, name, now, force, moved) == 0)
			*moved = 1;
	}
	while (w->topics_open < n) {
		ti = w->topics_open;
		st = atomic_load_explicit(&w->s->topics[ti].state,
		    memory_order_acquire);
		if (st == TOPIC_FREE || st == TOPIC_DELETING) {
			/* A hole, or deleted before it was opened: nothing to open. */
			w->topic_ok[ti] = st == TOPIC_FREE ? WTOPIC_FREED :
			    WTOPIC_CLOSED;
			w->topics_open++;
			continue;
		}
		if (topic_entry_check(w->s, ti, name) == -1) {
			log_warnx("topic entry %u in shared memory is damaged; ignored", ti);
			w->topic_ok[ti] = WTOPIC_BAD;
			w->topics_open++;
			continue;
		}
		(void)writer_open_topic(w, ti, name, now, force, moved);
		w->topics_open++;
	}
}

/* Forget every group's committed offset on partition slot i. */
static void
writer_offsets_clear(struct writer *w, uint32_t slot)
{
	struct shm_group *g;
	uint32_t gi, n;

	if (w->s->groups == NULL)
		return;
	n = group_count(w->s);
	for (gi = 0; gi < n; gi++) {
		if ((g = group_at(w->s, gi)) == NULL)
			continue;
		/* group_offset_set bumps commit_seq: the offsets file follows. */
		if (group_offset_get(w->s, g, slot) != -1)
			group_offset_set(w->s, g, slot, -1);
	}
}

/*
 * Carry out the delete of entry ti (DELETING).  0, or -1 to retry later.
 * *moved is set when workers should look again at what they parked.
 */
static int
writer_delete_topic(struct writer *w, uint32_t ti, int64_t now, int *moved)
{
	struct shm_topic *t = &w->s->topics[ti];
	char name[TOPIC_NAME_MAX + 1], tomb[PATH_MAX];
	uint32_t pi, i, cap;
	uint64_t n;
	int removed;

	if (topic_entry_check_state(w->s, ti, name, TOPIC_DELETING) == -1 ||
	    (cap = shm_topic_capacity(t)) < (uint32_t)t->partitions ||
	    shm_topic_slot(w->s, t, cap - 1) == UINT32_MAX) {
		log_warnx("topic entry %u in shared memory is damaged; not deleted",
		    ti);
		return 0;
	}
	/*
	 * Nothing is appended any more; what the rings hold is dropped.  The
	 * workers' parked requests on it are answered now, even if the
	 * removal below has to be retried.
	 */
	if (w->topic_ok[ti] != WTOPIC_CLOSED)
		*moved = 1;
	w->topic_ok[ti] = WTOPIC_CLOSED;
	for (pi = 0; pi < cap; pi++) {
		if ((i = shm_topic_slot(w->s, t, pi)) == UINT32_MAX)
			continue;
		if (w->slots[i].log != NULL)
			plog_close(w->slots[i].log);
		memset(&w->slots[i], 0, sizeof(w->slots[i]));
	}
	n = (uint64_t)ti << 32 |
	    atomic_load(&w->s->parts[shm_topic_slot(w->s, t, 0)].incarnation);
	if (tomb_bury(w->conf->data_dir, name, n, tomb, sizeof(tomb)) == -1 &&
	    errno != ENOENT) {
		log_warn("delete topic %s: renaming its directory; retrying", name);
		return -1;
	}
	fault_delete_crash(w->s->hdr->master_pid);	/* tests only */
	if (tomb_sweep(w->conf->data_dir, &removed) == -1)
		log_warn("delete topic %s: removing %s (the next start removes it)",
		    name, tomb);
	for (pi = 0; pi < cap; pi++)
		if ((i = shm_topic_slot(w->s, t, pi)) != UINT32_MAX) {
			if (pi < (uint32_t)t->partitions)
				writer_groups_topic_gone(w->groups, name,
				    (int32_t)pi, i);
			writer_offsets_clear(w, i);
		}
	shm_topic_delete_end(w->s, (int)ti);
	w->topic_ok[ti] = WTOPIC_FREED;
	log_info("deleted topic %s (%d partition%s)", name, t->partitions,
	    t->partitions == 1 ? "" : "s");
	return 0;
}

/* 1 if an entry below topics_open is being deleted. */
static int
writer_deletes_pending(const struct writer *w)
{
	uint32_t ti;

	for (ti = 0; ti < w->topics_open; ti++)
		if (w->topic_ok[ti] != WTOPIC_MAKING &&
		    atomic_load_explicit(&w->s->topics[ti].state,
		    memory_order_acquire) == TOPIC_DELETING)
			return 1;
	return 0;
}

static void
writer_delete_topics(struct writer *w, int64_t now, int force, int *moved)
{
	uint32_t ti;
	int failed = 0;

	if (!force && now < w->delete_retry_ms)
		return;
	for (ti = 0; ti < w->topics_open; ti++) {
		/* Its files are being made: deleted once they are. */
		if (w->topic_ok[ti] == WTOPIC_MAKING ||
		    atomic_load_explicit(&w->s->topics[ti].state,
		    memory_order_acquire) != TOPIC_DELETING)
			continue;
		if (writer_delete_topic(w, ti, now, moved) == -1)
			failed = 1;
		else
			*moved = 1;
	}
	if (!failed) {
		w->delete_backoff_ms = 0;
		return;
	}
	w->delete_backoff_ms = w->delete_backoff_ms == 0 ? WRITER_BACKOFF_MIN_MS :
	    w->delete_backoff_ms * 2;
	if (w->delete_backoff_ms > WRITER_BACKOFF_MAX_MS)
		w->delete_backoff_ms = WRITER_BACKOFF_MAX_MS;
	w->delete_retry_ms = now + w->delete_backoff_ms;
}

/* 1 if an opened topic waits for its grow's files (shm_topic_grow()). */
static int
writer_grows_pending(const struct writer *w)
{
	const struct shm_topic *t;
	uint32_t ti;

	for (ti = 0; ti < w->topics_open; ti++) {
		t = &w->s->topics[ti];
		if (w->topic_ok[ti] == WTOPIC_OPEN &&
		    atomic_load_explicit(&t->grow_to, memory_order_acquire) >
		    t->partitions)
			return 1;
	}
	return 0;
}

/*
 * Make the files of the partitions a grow asked for (wmake_grow: logs,
 * then topic.meta), let their slots take the logs, then publish the
 * count, last: a worker that sees it finds every new partition on disk.
 * In line, as it is rare and each partition's files are made once; a
 * failure is retried after WRITER_BACKOFF_MAX_MS, one line logged.
 */
static void
writer_grow_topics(struct writer *w, int64_t now, int force, int *moved)
{
	char name[TOPIC_NAME_MAX + 1];
	struct plog_config cfg;
	struct plog **logs;
	struct shm_topic *t;
	uint32_t ti, i;
	int32_t from, to, pi;

	if (!force && now < w->grow_retry_ms)
		return;
	for (ti = 0; ti < w->topics_open; ti++) {
		t = &w->s->topics[ti];
		to = atomic_load_explicit(&t->grow_to, memory_order_acquire);
		from = t->partitions;
		if (w->topic_ok[ti] != WTOPIC_OPEN || to <= from ||
		    topic_entry_check(w->s, ti, name) == -1)
			continue;
		if (shm_topic_slot(w->s, t, (uint32_t)to - 1) == UINT32_MAX) {
			log_warnx("topic %s: grow to %d partitions: its slots "
			    "are damaged; not grown", name, (int)to);
			atomic_store_explicit(&t->grow_to, from,
			    memory_order_relaxed);
			continue;
		}
		config_topic_log(w->conf, name, &cfg);
		if ((logs = calloc((size_t)(to - from), sizeof(*logs))) == NULL ||
		    wmake_grow(w->conf->data_dir, name, from, to, t->id, &cfg,
		    logs) == -1) {
			if (now >= w->grow_retry_ms)
				log_warn("topic %s: making partitions %d..%d; "
				    "retrying", name, (int)from, (int)to - 1);
			free(logs);
			w->grow_retry_ms = now + WRITER_BACKOFF_MAX_MS;
			continue;
		}
		for (pi = from; pi < to; pi++) {
			i = shm_topic_slot(w->s, t, (uint32_t)pi);
			(void)wslot_take(w, i, name, logs[pi - from], 0, now);
		}
		free(logs);
		shm_topic_grow_publish(w->s, (int)ti, to);
		log_info("topic %s: grown from %d to %d partitions", name,
		    (int)from, (int)to);
		*moved = 1;
	}
}

/* Runs body with i = every partition slot of every opened, valid topic. */
#define WRITER_FOREACH_SLOT(w, i, body) do {				\
	uint32_t ti_, pi_;						\
	for (ti_ = 0; ti_ < (w)->topics_open; ti_++) {			\
		const struct shm_topic *t_ = &(w)->s->topics[ti_];	\
		if ((w)->topic_ok[ti_] != WTOPIC_OPEN)			\
			continue;					\
		for (pi_ = 0; pi_ < (uint32_t)t_->partitions; pi_++) {	\
			uint32_t i = shm_topic_slot((w)->s, t_, pi_);	\
			if (i == UINT32_MAX)				\
				break;					\
			body;						\
		}							\
	}								\
} while (0)

static void
writer_retain(struct writer *w, int64_t now, int *moved)
{
	int64_t real = clock_real_ms();
	int deleted;

	w->next_retention_ms = now + w->conf->retention_check_ms;
	WRITER_FOREACH_SLOT(w, i, {
		struct wslot *sl = &w->slots[i];
		struct shm_partition *p = &w->s->parts[i];
		const char *name;
		int len;

		if (sl->log == NULL)
			continue;
		deleted = 0;
		name = slot_topic(w, i, &len);
		if (wslot_clean_begin(w, i) == -1)
			continue;
		plog_set_txn_floor(sl->log, producer_txn_oldest(w->s, p));
		if (plog_retain(sl->log, real, &deleted) == -1) {
			cleaner_unlock(w->s, i);
			log_warn("%.*s-%d: retention", len, name, p->partition);
			continue;
		}
		cleaner_unlock(w->s, i);
		if (deleted == 0)
			continue;
		log_info("%.*s-%d: retention deleted %d segment%s; log starts at %lld",
		    len, name, p->partition, deleted, deleted == 1 ? "" : "s",
		    (long long)plog_start_offset(sl->log));
		atomic_store_explicit(&p->log_start, plog_start_offset(sl->log),
		    memory_order_release);
		atomic_store_explicit(&p->log_bytes, plog_size_bytes(sl->log),
		    memory_order_release);
		atomic_store_explicit(&p->segments,
		    (uint32_t)plog_segment_count(sl->log), memory_order_relaxed);
		*moved = 1;
	});
}

/*
 * DeleteRecords asks for a log start below delete_below that slot i's
 * log can take now: raised and within what the log holds (a record the
 * workers acknowledged but the ring still holds is drained first).
 */
static int
wslot_delete_due(const struct writer *w, uint32_t i, int64_t now)
{
	const struct wslot *sl = &w->slots[i];
	const struct shm_partition *p = &w->s->parts[i];
	int64_t want;

	if (sl->log == NULL || sl->error != 0 || now < sl->del_retry_ms)
		return 0;
	want = atomic_load_explicit(&p->delete_below, memory_order_acquire);
	return want > atomic_load_explicit(&p->log_start,
	    memory_order_relaxed) && want <= sl->visible;
}

/*
 * Carry out the DeleteRecords asked (shm/shm.h delete_below): persist
 * the new start, remove the segments below it, publish log_start (the
 * parked requests answer then).  A failure is logged and retried with
 * after WRITER_BACKOFF_MAX_MS.
 */
static void
wslot_delete_records(struct writer *w, uint32_t i, int64_t now, int *moved)
{
	struct wslot *sl = &w->slots[i];
	struct shm_partition *p = &w->s->parts[i];
	const char *name;
	int64_t want;
	int len, deleted = 0, rc;

	if (!wslot_delete_due(w, i, now))
		return;
	want = atomic_load_explicit(&p->delete_below, memory_order_acquire);
	name = slot_topic(w, i, &len);
	if (wslot_clean_begin(w, i) == -1)
		return;
	rc = plog_delete_below(sl->log, want, &deleted);
	cleaner_unlock(w->s, i);
	if (rc == -1) {
		log_warn("%.*s-%d: deleting records below %lld; retrying", len,
		    name, p->partition, (long long)want);
		sl->del_retry_ms = now + WRITER_BACKOFF_MAX_MS;
		return;
	}
	log_info("%.*s-%d: records deleted below %lld (%d segment%s removed)",
	    len, name, p->partition, (long long)want, deleted,
	    deleted == 1 ? "" : "s");
	atomic_store_explicit(&p->log_bytes, plog_size_bytes(sl->log),
	    memory_order_release);
	atomic_store_explicit(&p->segments,
	    (uint32_t)plog_segment_count(sl->log), memory_order_relaxed);
	atomic_store_explicit(&p->log_start, plog_start_offset(sl->log),
	    memory_order_release);
	*moved = 1;
}

/* Wake every worker that parked requests and asked to be woken. */
static void
writer_wake_workers(struct writer *w)
{
	struct broker *b = w->b;
	int slot, nworkers;

	/* Order the offsets published above before reading wake_wanted. */
	atomic_thread_fence(memory_order_seq_cst);
	nworkers = broker_writer_slot(b);
	if ((uint32_t)nworkers > w->s->hdr->limits.child_slots)
		nworkers = (int)w->s->hdr->limits.child_slots;
	for (slot = 0; slot < nworkers; slot++) {
		if (atomic_load(&w->s->children[slot].wake_wanted) != 0 &&
		    atomic_exchange(&w->s->children[slot].wake_wanted, 0) != 0)
			broker_wake(b, slot);
	}
}

int
writer_open(struct writer **wp, struct broker *b, int64_t now_ms)
{
	struct writer *w;
	int moved = 0;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return -1;
	w->slots = calloc(b->shm.hdr->limits.max_partitions, sizeof(*w->slots));
	w->topic_ok = calloc(b->shm.hdr->limits.max_topics, 1);
	w->tconf_seen = calloc(b->shm.hdr->limits.max_topics,
	    sizeof(*w->tconf_seen));
	if (w->slots == NULL || w->topic_ok == NULL || w->tconf_seen == NULL) {
		free(w->slots);
		free(w->topic_ok);
		free(w->tconf_seen);
		free(w);
		return -1;
	}
	w->b = b;
	w->s = &b->shm;
	w->conf = b->conf;
	w->next_retention_ms = now_ms + w->conf->retention_check_ms;
	if (writer_groups_open(&w->groups, b) == -1) {
		free(w->slots);
		free(w->topic_ok);
		free(w->tconf_seen);
		free(w);
		return -1;
	}
	writer_open_topics(w, now_ms, 0, &moved);
	/* A create that came in before this writer ran waits for it. */
	if (moved)
		writer_wake_workers(w);
	*wp = w;
	return 0;
}

void
writer_close(struct writer *w)
{
	uint32_t i;

	if (w == NULL)
		return;
	wsync_close(w->sync);
	for (i = 0; i < w->s->hdr->limits.max_partitions; i++)
		if (w->slots[i].log != NULL)
			plog_close(w->slots[i].log);
	free(w->slots);
	free(w->topic_ok);
	free(w->tconf_seen);
	writer_groups_close(w->groups);
	free(w);
}

int
writer_sync_start(struct writer *w, int wake_fd)
{
	return wsync_open(&w->sync, wake_fd);
}

/*
 * A worker published new settings of an open topic: save them to
 * topic.config (the alteration's answer waits for that), then apply
 * them to its logs, and apply retention at once.
 */
static void
writer_tconf_cycle(struct writer *w, int64_t now)
{
	char name[TOPIC_NAME_MAX + 1];
	uint32_t ti, pi, i;

	for (ti = 0; ti < w->topics_open; ti++) {
		if (w->topic_ok[ti] != WTOPIC_OPEN ||
		    !writer_tconf_changed(w->s, ti, w->tconf_seen[ti]) ||
		    topic_entry_check(w->s, ti, name) == -1)
			continue;
		if (writer_tconf_save(w->s, w->conf, ti, name,
		    &w->tconf_seen[ti]) == -1)
			continue;
		for (pi = 0; pi < (uint32_t)w->s->topics[ti].partitions; pi++) {
			i = shm_topic_slot(w->s, &w->s->topics[ti], pi);
			if (i == UINT32_MAX)
				break;
			wslot_settings(w, i, name);
		}
		w->next_retention_ms = now;
		/* Whoever waits for the save is a parked request. */
		w->tconf_woke = 1;
	}
}

/* 1 when an open topic has settings the writer has not applied. */
static int
writer_tconf_pending(const struct writer *w)
{
	uint32_t ti;

	for (ti = 0; ti < w->topics_open; ti++)
		if (w->topic_ok[ti] == WTOPIC_OPEN &&
		    writer_tconf_changed(w->s, ti, w->tconf_seen[ti]))
			return 1;
	return 0;
}

int
writer_cycle(struct writer *w, int64_t now_ms)
{
	int moved = 0;

	writer_sync_collect(w, now_ms, 0, &moved);
	writer_open_topics(w, now_ms, 0, &moved);
	writer_delete_topics(w, now_ms, 0, &moved);
	writer_open_topics(w, now_ms, 0, &moved);
	writer_tconf_cycle(w, now_ms);
	writer_grow_topics(w, now_ms, 0, &moved);
	WRITER_FOREACH_SLOT(w, i, wslot_cycle(w, i, now_ms, 0, &moved));
	WRITER_FOREACH_SLOT(w, i, wslot_delete_records(w, i, now_ms, &moved));
	if (w->conf->retention_check_ms > 0 && now_ms >= w->next_retention_ms)
		writer_retain(w, now_ms, &moved);
	if (w->tconf_woke) {
		w->tconf_woke = 0;
		moved = 1;
	}
	if (moved)
		writer_wake_workers(w);
	writer_groups_cycle(w->groups, now_ms);
	/* Transactions (master/writer_txn.h): answers wait on durable_gen. */
	if (writer_txn_cycle(w->s, w->conf, now_ms)) {
		writer_wake_workers(w);
		moved = 1;
	}
	return moved;
}

int
writer_pending(struct writer *w, int64_t now_ms)
{
	int pending = 0;

	atomic_thread_fence(memory_order_seq_cst);
	if (topic_count_now(w->s) > w->topics_open || writer_tconf_pending(w))
		return 1;
	if ((now_ms >= w->delete_retry_ms && writer_deletes_pending(w)) ||
	    (now_ms >= w->meta_retry_ms && writer_retry_pending(w)) ||
	    (now_ms >= w->grow_retry_ms && writer_grows_pending(w)))
		return 1;
	WRITER_FOREACH_SLOT(w, i, {
		struct wslot *sl = &w->slots[i];
		struct shm_partition *p = &w->s->parts[i];

		if (sl->error != 0 && now_ms < sl->retry_ms)
			continue;
		if ((sl->want && !sl->syncing) || atomic_load(&p->sync_wanted) != 0 ||
		    atomic_load(&p->head) != atomic_load(&p->tail) ||
		    wslot_delete_due(w, i, now_ms))
			pending = 1;
	});
	return pending;
}

int
writer_timeout(struct writer *w, int64_t now_ms)
{
	const struct config *c = w->conf;
	int64_t t = WRITER_SLEEP_MAX_MS;

#define WRITER_SOONER(due) do { if ((due) - now_ms < t) t = (due) - now_ms; } while (0)
	if (c->retention_check_ms > 0)
		WRITER_SOONER(w->next_retention_ms);
	if (topic_count_now(w->s) > w->topics_open)
		t = 0;
	else if (writer_retry_pending(w))
		WRITER_SOONER(w->meta_retry_ms);
	if (writer_deletes_pending(w))
		WRITER_SOONER(w->delete_retry_ms);
	if (writer_grows_pending(w))
		WRITER_SOONER(w->grow_retry_ms);
	WRITER_FOREACH_SLOT(w, i, {
		struct wslot *sl = &w->slots[i];

		if (sl->error != 0)
			WRITER_SOONER(sl->retry_ms);
		if (sl->del_retry_ms > now_ms)
			WRITER_SOONER(sl->del_retry_ms);
		else if (sl->log != NULL && !sl->syncing &&
		    sl->visible > sl->durable && sl->flush_ms >= 0)
			WRITER_SOONER(sl->last_sync_ms + sl->flush_ms);
	});
	WRITER_SOONER(writer_groups_due(w->groups));
	WRITER_SOONER(writer_txn_due(w->s, now_ms));
#undef WRITER_SOONER
	return t < 0 ? 0 : (int)t;
}

int
writer_finish(struct writer *w, int64_t now_ms)
{
	int moved = 0, rc = 0;

	writer_sync_collect(w, now_ms, 1, &moved);
	writer_open_topics(w, now_ms, 1, &moved);
	writer_delete_topics(w, now_ms, 1, &moved);
	writer_open_topics(w, now_ms, 1, &moved);
	writer_grow_topics(w, now_ms, 1, &moved);
	if (w->topics_open < topic_count_now(w->s) || writer_deletes_pending(w) ||
	    writer_retry_pending(w))
		rc = -1;
	/* Committed offsets go through __consumer_offsets' rings: first. */
	if (writer_groups_finish(w->groups, now_ms) == -1)
		rc = -1;
	(void)writer_txn_cycle(w->s, w->conf, now_ms);
	WRITER_FOREACH_SLOT(w, i, {
		struct wslot *sl = &w->slots[i];
		struct shm_partition *p = &w->s->parts[i];

		wslot_cycle(w, i, now_ms, 1, &moved);
		if (sl->error != 0 || sl->log == NULL || sl->visible > sl->durable ||
		    atomic_load(&p->head) != atomic_load(&p->tail))
			rc = -1;
		else if (txn_snapshot(w->s, p, sl->log, &sl->txn_snap) == -1)
			rc = -1;	/* the next start reads from an older one */
	});
	if (moved)
		writer_wake_workers(w);
	return rc;
}

int
writer_drain_region(struct shm *old, const struct config *conf)
{
	struct shm_partition *p;
	struct plog *log;
	char name[TOPIC_NAME_MAX + 1], tomb[PATH_MAX];
	uint64_t batches, records, total = 0, head, tail;
	uint32_t ti, pi, n = topic_count_now(old), slot;
	int32_t parts;
	uint8_t *data;
	size_t len;
	int64_t snap;
	int rc = 0, round, err, failed;

	for (ti = 0; ti < n; ti++) {
		if (atomic_load(&old->topics[ti].state) == TOPIC_FREE)
			continue;
		/*
		 * A delete the old writer did not finish: its directory becomes
		 * a tombstone now, so recovery does not load the topic again.
		 */
		if (topic_entry_check_state(old, ti, name, TOPIC_DELETING) == 0) {
			if (tomb_bury(conf->data_dir, name, (uint64_t)ti << 32 |
			    atomic_load(&old->parts[shm_topic_slot(old,
			    &old->topics[ti], 0)].incarnation),
			    tomb, sizeof(tomb)) == -1 && errno != ENOENT) {
				log_warn("topic %s: finishing its delete", name);
				rc = -1;
			} else
				log_info("topic %s: finishing its delete", name);
			continue;
		}
		if (topic_entry_check(old, ti, name) == -1) {
			log_warnx("old shared memory: topic entry %u is damaged; ignored", ti);
			continue;
		}
		parts = old->topics[ti].partitions;
		if (topic_meta_load(conf->data_dir, name, &(int32_t){0},
		    NULL) == -1 && topic_meta_save(conf->data_dir, name, parts,
		    old->topics[ti].id) == -1) {
			log_warn("topic %s: cannot write topic.meta", name);
			rc = -1;
			continue;
		}
		for (pi = 0; pi < (uint32_t)parts; pi++) {
			if ((slot = shm_topic_slot(old, &old->topics[ti], pi)) ==
			    UINT32_MAX)
				break;
			p = &old->parts[slot];
			head = atomic_load(&p->head);
			tail = atomic_load(&p->tail);
			failed = atomic_load(&p->sync_failed) != 0;
			if (head == tail && !failed)
				continue;
			if (plog_open_for(&log, conf, name, (int32_t)pi) == -1) {
				log_warn("%s-%u: cannot open the log", name, pi);
				rc = -1;
				continue;
			}
			snap = txn_snapshot_newest(log);
			/* A stable ring drains in two runs (to the end, from 0). */
			for (round = 0; round < WRITER_DRAIN_ROUNDS; round++) {
				if ((len = ring_peek(old, p, &data)) == 0)
					break;
				if (txn_before_append(old, p, log, data, len,
				    &snap) == -1 ||
				    run_append(log, data, len, &batches, &records) == -1 ||
				    txn_markers_drained(old, p, log, data, len) == -1)
					break;
				total += batches;
				ring_release(old, p, len);
			}
			if (round < WRITER_DRAIN_ROUNDS && len > 0) {
				err = errno;
				if (err == EINVAL)
					log_warnx("%s-%u: the ring's batches contradict the "
					    "log; %llu bytes dropped", name, pi,
					    (unsigned long long)(atomic_load(&p->tail) -
					    atomic_load(&p->head)));
				else {
					errno = err;
					log_warn("%s-%u: writing the log", name, pi);
					rc = -1;
				}
			} else if (len == 0 && ring_damaged(old, p))
				log_warnx("%s-%u: the ring is damaged; %llu bytes dropped",
				    name, pi, (unsigned long long)(atomic_load(&p->tail) -
				    atomic_load(&p->head)));
			/* What a failed fdatasync covered is written again first. */
			if ((failed ? plog_resync(log, atomic_load(&p->durable_offset)) :
			    plog_sync(log)) == -1) {
				log_warn("%s-%u: fdatasync%s", name, pi, failed ?
				    " after writing again what a failed one covered" : "");
				rc = -1;
			} else if (failed) {
				atomic_store(&p->sync_failed, 0);
				log_info("%s-%u: written again from offset %lld and "
				    "synced after the failed fdatasync", name, pi,
				    (long long)atomic_load(&p->durable_offset));
			}
			(void)txn_snapshot(old, p, log, &snap);
			plog_close(log);
		}
	}
	if (rc == -1) {
		errno = EIO;
		return -1;
	}
	return total > INT32_MAX ? INT32_MAX : (int)total;
}

/*
 * SIGHUP changed the settings (live_refresh updated w->conf): a log's
 * retention is fixed when it is opened, so reopen every log whose
 * effective retention changed, after syncing what it has, and apply
 * retention at the next cycle.  A log that cannot be synced now keeps
 * its old retention until the next reload.
 */
static void
writer_reconfigure(struct writer *w, int64_t now)
{
	int reopened = 0;

	/* The open logs take the new settings in place (plog_set_config). */
	WRITER_FOREACH_SLOT(w, i, {
		struct wslot *sl = &w->slots[i];
		char name[TOPIC_NAME_MAX + 1];
		int64_t ms = sl->ret_ms;
		int64_t bytes = sl->ret_bytes;

		if (sl->log == NULL ||
		    topic_entry_check(w->s, w->s->parts[i].topic, name) == -1)
			continue;
		wslot_settings(w, i, name);
		if (ms != sl->ret_ms || bytes != sl->ret_bytes)
			reopened++;
	});
	w->next_retention_ms = now;
	if (reopened > 0)
		log_info("retention changed: %d partition log%s",
		    reopened, reopened == 1 ? "" : "s");
}

/* Child process plumbing from here on. */

static volatile sig_atomic_t writer_stop;

static void
writer_on_signal(int sig)
{
	(void)sig;
	writer_stop = 1;
}

/* 1 when no worker is still running (the writer must outlive them). */
static int
writer_workers_gone(const struct broker *b)
{
	const struct shm_child *c;
	int slot, pid;

	for (slot = 0; slot < broker_writer_slot(b); slot++) {
		c = &b->shm.children[slot];
		if (atomic_load(&c->state) != CHILD_ACTIVE)
			continue;
		pid = atomic_load(&c->pid);
		if (pid > 0 && (kill(pid, 0) == 0 || errno == EPERM))
			return 0;
	}
	return 1;
}

static void
writer_child_start(struct broker *b, sigset_t *waitmask)
{
	child_start(b, "writer", writer_on_signal, waitmask);
	fault_trace_install("writer");	/* tests only: FLUME_TEST_FSYNC_LOG */
	(void)fault_store_install();	/* tests only: FLUME_FAULT */
	child_active(b);
}

void
writer_main(struct broker *b)
{
	struct shm_child *me = &b->shm.children[b->slot];
	struct shm_header *hdr = b->shm.hdr;
	struct epoll_event ev;
	struct writer *w;
	sigset_t waitmask;
	int64_t now, stop_at = 0, give_up;
	uint64_t count;
	int epfd, moved, timeout, stopping = 0, rc;

	writer_child_start(b, &waitmask);
	if ((epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1");
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = b->eventfds[b->slot];
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, b->eventfds[b->slot], &ev) == -1)
		fatal("epoll_ctl");
	if (writer_open(&w, b, clock_mono_ms()) == -1)
		fatal("writer_open");
	if (writer_sync_start(w, b->eventfds[b->slot]) == -1)
		log_warn("no sync threads: fdatasync runs in the writer's loop");
	log_info("started, %u topics", w->topics_open);

	for (;;) {
		now = clock_mono_ms();
		if (live_refresh(&b->shm, b->conf) == 1)
			writer_reconfigure(w, now);
		moved = writer_cycle(w, now);
		if (stopping && (writer_workers_gone(b) || now >= stop_at))
			break;
		timeout = 0;
		if (!moved) {
			/* Dekker with ring_append: flag first, then look again. */
			atomic_store(&hdr->writer_sleeping, 1);
			if (!writer_pending(w, now))
				timeout = writer_timeout(w, now);
			if (stopping && timeout > WRITER_STOP_POLL_MS)
				timeout = WRITER_STOP_POLL_MS;
		}
		rc = epoll_pwait(epfd, &ev, 1, timeout, &waitmask);
		atomic_store(&hdr->writer_sleeping, 0);
		if (rc == -1 && errno != EINTR)
			fatal("epoll_pwait");
		if (rc > 0)
			(void)!read(b->eventfds[b->slot], &count, sizeof(count));
		if (writer_stop && !stopping) {
			stopping = 1;
			stop_at = now + WRITER_STOP_WAIT_MS;
			log_info("stopping: draining every partition");
		}
	}

	/* Every producer is gone: drain and sync everything, retrying a while. */
	give_up = clock_mono_ms() + WRITER_FINISH_MS;
	while ((rc = writer_finish(w, clock_mono_ms())) == -1 &&
	    clock_mono_ms() < give_up) {
		struct timespec ts = { 0, WRITER_BACKOFF_MIN_MS * 1000000L };

		nanosleep(&ts, NULL);
	}
	writer_close(w);
	close(epfd);
	atomic_store(&me->state, CHILD_ASSIGNED);
	if (rc == -1) {
		log_warnx("stopped with data not on disk; the next start "
		    "recovers it from shared memory");
		exit(1);
	}
	log_info("stopped");
	exit(0);
}
