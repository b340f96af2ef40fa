/*
 * The cleaner child; see cleaner.h and store/clean.h.
 *
 * One loop: look at every partition of every READY topic whose
 * cleanup.policy has compact (the effective settings, as the writer
 * reads them: the topic's dynamic ones over flume.conf), publish its
 * dirty ratio, and clean the one that qualifies with the highest ratio:
 * its ratio reaches min.cleanable.dirty.ratio, or its oldest dirty
 * record passed max.compaction.lag.ms, or tombstones kept by an earlier
 * pass are past delete.retention.ms.  Nothing qualifies: sleep
 * cleaner_backoff_ms, or until the eventfd of its slot is written.
 * Never past durable_offset; the swap under the partition's clean_lock,
 * after which seg_gen moves so the writer reloads.  SIGTERM ends a pass
 * between two batches (its .cleaned files go) and the child exits 0;
 * kill -9 anywhere leaves what clean_recover() finishes or undoes.
 */
#include <sys/epoll.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/child.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/log.h"
#include "master/cleaner.h"
#include "proto/compress.h"
#include "proto/tconf.h"
#include "shm/lock.h"
#include "shm/producer.h"
#include "shm/shm.h"
#include "shm/tconf.h"
#include "store/clean.h"
#include "store/topic.h"

static volatile sig_atomic_t cleaner_stop;

static void
cleaner_on_signal(int sig)
{
	(void)sig;
	cleaner_stop = 1;
}

static void
clean_repair(void *arg)
{
	const char *dir = arg;

	if (dir != NULL && clean_recover(dir) == -1)
		log_warn("%s: finishing a swap a dead process left", dir);
}

int
cleaner_lock(struct shm *s, uint32_t slot, const char *dir)
{
	return lock_take(&s->parts[slot].clean_lock, clean_repair, (void *)dir);
}

void
cleaner_unlock(struct shm *s, uint32_t slot)
{
	lock_release(&s->parts[slot].clean_lock);
}

struct cleaner_arg {
	struct shm	*s;
	uint32_t	 slot;
	const char	*dir;
};

static int
swap_begin(void *arg)
{
	struct cleaner_arg *cp = arg;

	return cleaner_lock(cp->s, cp->slot, cp->dir) == -1 ? -1 : 0;
}

static void
swap_done(void *arg)
{
	struct cleaner_arg *cp = arg;

	atomic_fetch_add_explicit(&cp->s->parts[cp->slot].seg_gen, 1,
	    memory_order_release);
	cleaner_unlock(cp->s, cp->slot);
}

static int
pass_yield(void *arg, uint64_t bytes)
{
	(void)arg;
	(void)bytes;
	return cleaner_stop != 0;
}

/* A candidate: one partition that qualifies. */
struct cand {
	uint32_t	slot;
	int64_t		ratio_ppm;
	char		dir[PATH_MAX];
	char		topic[TOPIC_NAME_MAX + 1];
	int32_t		partition;
	struct tconf	eff;
};


/*
 * Never past what is durable, nor past the last stable offset: an open
 * transaction's records may still be aborted (DESIGN.md section 3).
 */
static int64_t
cleaner_limit(const struct shm *s, uint32_t slot)
{
	int64_t dur = atomic_load(&s->parts[slot].durable_offset);
	int64_t lso = part_lso(s, slot);

	return lso < dur ? lso : dur;
}
/*
 * Look at every compacted partition, publish its ratio, pick the one to
 * clean into *best: 1 found, 0 none.
 */
static int
cleaner_pick(struct broker *b, int64_t now, struct cand *best)
{
	struct shm *s = &b->shm;
	struct clean_config cc;
	struct clean_state cs;
	struct tconf dyn, eff;
	struct shm_topic *t;
	char name[TOPIC_NAME_MAX + 1], dir[PATH_MAX];
	uint32_t ti, nt, pi, slot, gen, len;
	int64_t ratio, total;
	int found = 0, due;

	nt = atomic_load(&s->hdr->topic_count);
	if (nt > s->hdr->limits.max_topics)
		nt = s->hdr->limits.max_topics;
	for (ti = 0; ti < nt && !cleaner_stop; ti++) {
		t = &s->topics[ti];
		if (atomic_load_explicit(&t->state, memory_order_acquire) !=
		    TOPIC_READY || !atomic_load(&t->opened))
			continue;
		len = t->name_len <= TOPIC_NAME_MAX ? t->name_len : TOPIC_NAME_MAX;
		memcpy(name, t->name, len);
		name[len] = '\0';
		(void)shm_tconf_read(s, (int)ti, t->id, &dyn, &gen);
		config_topic_tconf(b->conf, name, &dyn, &eff, NULL);
		if (!(eff.v[TC_CLEANUP_POLICY] & TCONF_CLEANUP_COMPACT))
			continue;
		for (pi = 0; pi < (uint32_t)t->partitions; pi++) {
			if ((slot = shm_topic_slot(s, t, pi)) == UINT32_MAX)
				break;
			if (topic_partition_dir(dir, sizeof(dir),
			    b->conf->data_dir, name, (int32_t)pi) == -1)
				continue;
			memset(&cc, 0, sizeof(cc));
			cc.now_ms = now;
			cc.limit = cleaner_limit(s, slot);
			cc.min_lag_ms = eff.v[TC_MIN_COMPACTION_LAG_MS];
			if (clean_inspect(dir, &cc, &cs) == -1)
				continue;
			total = (int64_t)(cs.clean_bytes + cs.dirty_bytes);
			ratio = total > 0 ? (int64_t)(cs.dirty_bytes * 1000000 /
			    (uint64_t)total) : 0;
			atomic_store_explicit(&s->parts[slot].clean_ratio_ppm,
			    (uint32_t)ratio, memory_order_relaxed);
			due = cs.dirty_bytes > 0 &&
			    (ratio >= eff.v[TC_MIN_CLEANABLE_DIRTY_RATIO] ||
			    (eff.v[TC_MAX_COMPACTION_LAG_MS] < INT64_MAX &&
			    cs.first_dirty_ts >= 0 &&
			    now - cs.first_dirty_ts >
			    eff.v[TC_MAX_COMPACTION_LAG_MS]));
			if (!due && cs.tombs_due > 0 && now >= cs.tombs_due)
				due = 1;
			if (!due || (found && ratio <= best->ratio_ppm))
				continue;
			found = 1;
			best->slot = slot;
			best->ratio_ppm = ratio;
			best->partition = (int32_t)pi;
			memcpy(best->dir, dir, sizeof(dir));
			memcpy(best->topic, name, sizeof(name));
			best->eff = eff;
		}
	}
	return found;
}

/*
 * Clean the candidate once; the figures go to the region.  1 when it
 * swapped segments, 0 when not (an error, nothing to do, a stop): the
 * loop then backs off instead of picking the same partition at once.
 */
static int
cleaner_run(struct broker *b, struct cand *c, int64_t now)
{
	struct shm *s = &b->shm;
	struct shm_partition *p = &s->parts[c->slot];
	struct shm_cleaner *sc = &s->hdr->cleaner;
	struct cleaner_arg cp = { s, c->slot, c->dir };
	struct clean_config cc;
	struct clean_stats st;
	int rc, saved;

	memset(&cc, 0, sizeof(cc));
	cc.now_ms = now;
	cc.limit = cleaner_limit(s, c->slot);
	cc.min_lag_ms = c->eff.v[TC_MIN_COMPACTION_LAG_MS];
	cc.delete_retention_ms = c->eff.v[TC_DELETE_RETENTION_MS];
	cc.segment_bytes = (uint64_t)c->eff.v[TC_SEGMENT_BYTES];
	cc.index_interval_bytes = (uint32_t)c->eff.v[TC_INDEX_INTERVAL_BYTES];
	cc.dedupe_bytes = (size_t)b->conf->cleaner_dedupe_buffer_bytes;
	cc.inflate_limit = COMPRESS_LIMIT_MAX;
	cc.io_bytes_per_sec = b->conf->cleaner_io_max_bytes_per_second;
	cc.yield = pass_yield;
	cc.swap_begin = swap_begin;
	cc.swap_done = swap_done;
	cc.swap_lock_arg = &cp;

	log_info("cleaning %s-%d (dirty ratio %.3f)", c->topic, (int)c->partition,
	    (double)c->ratio_ppm / 1e6);
	atomic_fetch_add(&sc->passes_started, 1);
	atomic_store(&sc->cleaning, c->slot + 1);
	rc = clean_partition(c->dir, &cc, &st);
	saved = errno;
	atomic_store(&sc->cleaning, 0);
	atomic_fetch_add(&sc->bytes_read, st.bytes_read);
	atomic_fetch_add(&sc->bytes_written, st.bytes_written);
	if (rc == -1) {
		errno = saved;
		if (errno == ECANCELED)
			return 0;
		log_warn("%s-%d: cleaning", c->topic, (int)c->partition);
		return 0;
	}
	if (st.segments_in == 0)
		return 0;
	atomic_fetch_add(&sc->runs, 1);
	atomic_fetch_add(&sc->records_removed, st.records_removed);
	atomic_store(&p->clean_last_ms, clock_real_ms());
	if (st.bytes_before > st.bytes_after)
		atomic_fetch_add(&p->clean_saved, st.bytes_before - st.bytes_after);
	atomic_store(&p->clean_ratio_ppm, 0);
	log_info("%s-%d: cleaned %d segment%s into %d: %llu -> %llu bytes, "
	    "%llu records removed, clean up to offset %lld", c->topic,
	    (int)c->partition, st.segments_in, st.segments_in == 1 ? "" : "s",
	    st.segments_out, (unsigned long long)st.bytes_before,
	    (unsigned long long)st.bytes_after,
	    (unsigned long long)st.records_removed, (long long)st.checkpoint);
	return 1;
}

void
cleaner_main(struct broker *b)
{
	struct epoll_event ev;
	struct cand *c;
	sigset_t waitmask;
	uint64_t count;
	int epfd, rc, efd = b->eventfds[b->slot];

	child_start(b, "cleaner", cleaner_on_signal, &waitmask);
	child_active(b);
	if ((c = calloc(1, sizeof(*c))) == NULL)
		fatal("calloc");
	if ((epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1");
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = efd;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev) == -1)
		fatal("epoll_ctl");
	log_info("started");
	while (!cleaner_stop && !atomic_load(&b->shm.hdr->shutdown)) {
		if (cleaner_pick(b, clock_real_ms(), c) == 1 &&
		    cleaner_run(b, c, clock_real_ms()) == 1)
			continue;
		rc = epoll_pwait(epfd, &ev, 1, (int)b->conf->cleaner_backoff_ms,
		    &waitmask);
		if (rc == -1 && errno != EINTR)
			fatal("epoll_pwait");
		if (rc > 0)
			(void)!read(efd, &count, sizeof(count));
	}
	atomic_store(&b->shm.children[b->slot].state, CHILD_ASSIGNED);
	log_info("stopped");
	exit(0);
}
