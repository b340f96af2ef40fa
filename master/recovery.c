/*
 * Startup recovery (see recovery.h).  Runs in the master alone, before any
 * child exists, so nothing here races with a worker or the writer: the
 * data-directory lock is held and the old children are gone (they die
 * with their master through PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "master/coffsets.h"
#include "master/txnstate.h"
#include "master/drain.h"
#include "master/producers.h"
#include "master/recovery.h"
#include "master/txnpart.h"
#include "master/writer.h"
#include "master/writer_group.h"
#include "shm/conntab.h"
#include "shm/ipcount.h"
#include "shm/tconf.h"
#include "shm/topics.h"
#include "proto/coffsets.h"
#include "proto/txnlog.h"
#include "store/offsets.h"
#include "store/offsets_migrate.h"
#include "store/plog.h"
#include "store/tconfig.h"
#include "store/tomb.h"
#include "store/topic.h"

/*
 * Step 1: whatever acknowledged data the old region still holds goes to
 * disk.  -1 when that failed: the region must then be kept (not replaced
 * by a fresh one) and the broker must not start.
 */
static int
recovery_drain_old(const struct config *conf, const char *name, int *drained)
{
	struct shm	old;
	int		n;

	memset(&old, 0, sizeof(old));
	if (shm_attach(&old, name) == -1) {
		if (errno == ENOENT)
			return 0;
		if (errno == EPROTO)
			log_warnx("shared memory %s has another layout or is "
			    "damaged: not used (its contents are lost)", name);
		else
			log_warn("shared memory %s: cannot attach; not used", name);
		return 0;
	}
	log_info("found shared memory %s of a previous run (master pid %ld, "
	    "generation %u): draining it", name, (long)old.hdr->master_pid,
	    old.hdr->generation);
	/* Committed offsets too: a master killed with SIGKILL loses none. */
	n = drain_child(&old, conf, DRAIN_GROUPS);
	shm_detach(&old);
	if (n == -1) {
		log_warnx("draining shared memory %s failed; it is kept for "
		    "the next attempt", name);
		return -1;
	}
	*drained = 1;
	return 0;
}

/* One line per corrupt range recovery kept (valid batches follow it). */
static void
recovery_log_corrupt(const char *dir, const char *topic, int32_t part,
    const struct plog_recovery *rec)
{
	const struct plog_corrupt_range *cr;
	int i;

	for (i = 0; i < rec->ncorrupt && i < PLOG_CORRUPT_MAX; i++) {
		cr = &rec->corrupt[i];
		log_warnx("%s/%d: corrupt batch: offsets %lld to %lld unreadable, "
		    "bytes %llu to %llu of %s/%020lld.log; the valid batches "
		    "after them are kept", topic, part,
		    (long long)cr->first_offset, (long long)cr->next_offset - 1,
		    (unsigned long long)cr->pos, (unsigned long long)cr->end,
		    dir, (long long)cr->segment);
	}
	if (rec->ncorrupt > PLOG_CORRUPT_MAX)
		log_warnx("%s/%d: %d more corrupt ranges", topic, part,
		    rec->ncorrupt - PLOG_CORRUPT_MAX);
}

/*
 * Recover one partition's log and publish its offsets in the fresh region.
 * The log is closed again: only the writer keeps it open.
 */
static int
recovery_partition(const struct config *conf, struct shm *shm, int idx,
    const char *topic, int32_t part, struct coffsets_replay *replay,
    struct txnstate_replay *treplay)
{
	struct plog_config	 pc;
	struct plog_recovery	 rec;
	struct shm_partition	*p;
	struct plog		*l;
	char			 dir[PATH_MAX];
	int64_t			 end;
	int			 n;

	if (topic_partition_dir(dir, sizeof(dir), conf->data_dir, topic,
	    part) == -1) {
		log_warnx("%s/%d: partition path too long", topic, part);
		return -1;
	}
	config_topic_log(conf, topic, &pc);
	memset(&rec, 0, sizeof(rec));
	if (plog_open(&l, dir, &pc, &rec) == -1) {
		log_warn("%s/%d: cannot open the log in %s", topic, part, dir);
		return -1;
	}
	if (rec.truncated_bytes > 0)
		log_warnx("%s/%d: dropped %llu bytes of torn tail", topic, part,
		    (unsigned long long)rec.truncated_bytes);
	recovery_log_corrupt(dir, topic, part, &rec);
	if (rec.index_rebuilt)
		log_info("%s/%d: rebuilt the index", topic, part);
	if (rec.timeindex_rebuilt)
		log_info("%s/%d: rebuilt the time index", topic, part);
	if (rec.logstart_bad)
		log_warnx("%s/%d: the log-start file is damaged; the log starts "
		    "at its oldest segment", topic, part);
	/*
	 * Everything below end is declared durable next, so it must be: a
	 * master or writer killed between a write and its fdatasync left
	 * bytes that may be in the page cache only, and a resent acks=all
	 * batch is answered from durable_offset alone.
	 */
	if (plog_sync_all(l) == -1) {
		log_warn("%s/%d: fdatasync of the log in %s", topic, part, dir);
		plog_close(l);
		return -1;
	}
	end = plog_end_offset(l);
	p = shm_partition(shm, idx, part);
	p->next_offset = end;
	atomic_store(&p->visible_offset, end);
	atomic_store(&p->durable_offset, end);
	atomic_store(&p->log_start, plog_start_offset(l));
	atomic_store(&p->log_bytes, plog_size_bytes(l));
	atomic_store(&p->segments, (uint32_t)rec.segments);
	/* Idempotent producers' last sequences, from the tail of the log. */
	if ((n = producers_rebuild(shm, p, l)) == -1)
		log_warn("%s/%d: reading producer sequences back", topic, part);
	else if (n > 0)
		log_debug("%s/%d: %d producer batch%s remembered", topic, part,
		    n, n == 1 ? "" : "es");
	/* Open transactions, from the newest producer-state snapshot on. */
	if ((n = txn_rebuild(shm, p, l)) == -1) {
		/* Without them read_committed would see aborted records. */
		log_warn("%s/%d: reading open transactions back", topic, part);
		plog_close(l);
		return -1;
	}
	if (n > 0)
		log_info("%s/%d: %d open transaction%s", topic, part, n,
		    n == 1 ? "" : "s");
	log_debug("%s/%d: offsets %lld..%lld, %llu bytes in %d segment%s",
	    topic, part, (long long)plog_start_offset(l), (long long)end,
	    (unsigned long long)plog_size_bytes(l), rec.segments,
	    rec.segments == 1 ? "" : "s");
	if (replay != NULL && coffsets_replay(shm, l, part, replay) == -1) {
		log_warn("%s/%d: reading the committed offsets back", topic,
		    part);
		plog_close(l);
		return -1;
	}
	if (treplay != NULL && txnstate_replay(shm, l, treplay) == -1) {
		log_warn("%s/%d: reading the transactions back", topic, part);
		plog_close(l);
		return -1;
	}
	plog_close(l);
	return 0;
}

/* Enter a topic into the region; a full table is a configuration error. */
static int
recovery_topic_create(const struct config *conf, struct shm *shm,
    const char *topic, int32_t n, const uint8_t *id, int *idx)
{
	if (shm_topic_create_id(shm, topic, strlen(topic), n, id, idx) >= 0)
		return 0;
	if (errno == ENOSPC)
		log_warnx("topic %s (%d partitions) does not fit: raise "
		    "max_topics (%u) or max_partitions (%u) in %s", topic, n,
		    conf->max_topics, conf->max_partitions, conf->path);
	else
		log_warn("topic %s: cannot enter it in shared memory", topic);
	return -1;
}

/*
 * Publish topic's saved settings (topic.config) in entry idx, as saved.
 * A bad line is logged and skipped: the topic keeps its other settings
 * rather than not starting.
 */
static void
recovery_tconf(const struct config *conf, struct shm *shm, int idx,
    const char *topic)
{
	struct tconf t;
	char why[192];
	uint32_t gen;

	if (topic_config_load(conf->data_dir, topic, &t, why,
	    sizeof(why)) == -1) {
		if (errno == ENOENT)
			return;
		if (errno == EBADMSG)
			log_warnx("topic %s: %s: %s; that line is ignored", topic,
			    TOPIC_CONFIG, why);
		else {
			log_warn("topic %s: cannot read %s", topic, TOPIC_CONFIG);
			return;
		}
	}
	if (t.set == 0)
		return;
	gen = shm_tconf_publish(shm, idx, shm->topics[idx].id, &t);
	shm_tconf_saved(shm, idx, gen);
}

static int
recovery_topics(const struct config *conf, struct shm *shm)
{
	static const uint8_t zero[TOPIC_ID_LEN];
	uint8_t		  id[TOPIC_ID_LEN];
	char		**names = NULL;
	size_t		  n = 0, i;
	int32_t		  parts, j;
	int		  idx, rc = -1, ntopics = 0, nparts = 0;

	if (topic_list(conf->data_dir, &names, &n) == -1) {
		log_warn("cannot list topics in %s", conf->data_dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (topic_meta_load(conf->data_dir, names[i], &parts, id) == -1) {
			log_warn("topic %s: cannot read topic.meta", names[i]);
			goto out;
		}
		if (recovery_topic_create(conf, shm, names[i], parts,
		    memcmp(id, zero, sizeof(id)) != 0 ? id : NULL, &idx) == -1)
			goto out;
		/* Written by a Flume before topic ids: it gets one now. */
		if (memcmp(id, zero, sizeof(id)) == 0) {
			if (topic_meta_save(conf->data_dir, names[i], parts,
			    shm->topics[idx].id) == -1) {
				log_warn("topic %s: cannot record its new topic id "
				    "in topic.meta", names[i]);
				goto out;
			}
			log_info("topic %s: given a topic id", names[i]);
		}
		recovery_tconf(conf, shm, idx, names[i]);
		for (j = 0; j < parts; j++)
			if (recovery_partition(conf, shm, idx, names[i], j, NULL,
			    NULL) == -1)
				goto out;
		/* The entries that lead to those logs, likewise. */
		if (topic_dir_sync(conf->data_dir, names[i]) == -1) {
			log_warn("topic %s: fdatasync of its directory", names[i]);
			goto out;
		}
		ntopics++;
		nparts += parts;
	}
	log_info("recovered %d topic%s, %d partition%s from %s", ntopics,
	    ntopics == 1 ? "" : "s", nparts, nparts == 1 ? "" : "s",
	    conf->data_dir);
	/* Topics the configuration names but the disk does not have yet. */
	for (i = 0; i < conf->ntopics; i++) {
		const char	*t = conf->topics[i].name;

		if (shm_topic_find(shm, t, strlen(t)) >= 0)
			continue;
		parts = config_topic_partitions(conf, t);
		if (recovery_topic_create(conf, shm, t, parts, NULL, &idx) == -1)
			goto out;
		if (topic_meta_save(conf->data_dir, t, parts,
		    shm->topics[idx].id) == -1) {
			log_warn("topic %s: cannot create it in %s", t,
			    conf->data_dir);
			goto out;
		}
		log_info("created topic %s with %d partition%s (from %s)", t,
		    parts, parts == 1 ? "" : "s", conf->path);
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/*
 * An internal topic (__consumer_offsets, __transaction_state): made at
 * the first start with nparts partitions, always compacted; its entry
 * into *idx, its partition count into *parts, *made 1 if new.
 */
static int
recovery_internal(const struct config *conf, struct shm *shm,
    const char *name, int32_t nparts, int *idx, int32_t *parts, int *made)
{
	struct tconf t;
	char why[192];
	uint8_t id[TOPIC_ID_LEN];

	*made = 0;
	if (topic_meta_load(conf->data_dir, name, parts, id) == -1) {
		if (errno != ENOENT) {
			log_warn("%s: cannot read topic.meta", name);
			return -1;
		}
		*parts = nparts;
		if (recovery_topic_create(conf, shm, name, *parts, NULL,
		    idx) == -1)
			return -1;
		if (topic_internal_meta_save(conf->data_dir, name, *parts,
		    shm->topics[*idx].id) == -1) {
			log_warn("%s: cannot create it in %s", name,
			    conf->data_dir);
			return -1;
		}
		*made = 1;
	} else {
		static const uint8_t zero[TOPIC_ID_LEN];
		int noid = memcmp(id, zero, sizeof(id)) == 0;

		if (recovery_topic_create(conf, shm, name, *parts,
		    noid ? NULL : id, idx) == -1)
			return -1;
		/* Made as a client's topic by a Flume before topic ids. */
		if (noid && topic_internal_meta_save(conf->data_dir, name,
		    *parts, shm->topics[*idx].id) == -1) {
			log_warn("%s: cannot record its topic id", name);
			return -1;
		}
	}
	/* Compacted, always: the cleaner keeps each key's latest record. */
	memset(&t, 0, sizeof(t));
	if (topic_config_load(conf->data_dir, name, &t, why,
	    sizeof(why)) == -1 && errno != ENOENT && errno != EBADMSG) {
		log_warn("%s: cannot read %s", name, TOPIC_CONFIG);
		return -1;
	}
	if (!tconf_has(&t, TC_CLEANUP_POLICY) ||
	    t.v[TC_CLEANUP_POLICY] != TCONF_CLEANUP_COMPACT) {
		tconf_put(&t, TC_CLEANUP_POLICY, TCONF_CLEANUP_COMPACT);
		if (topic_config_save(conf->data_dir, name, &t) == -1) {
			log_warn("%s: cannot save its %s", name, TOPIC_CONFIG);
			return -1;
		}
	}
	shm_tconf_saved(shm, *idx, shm_tconf_publish(shm, *idx,
	    shm->topics[*idx].id, &t));
	return 0;
}

/*
 * __consumer_offsets (master/coffsets.h): made at the first start with
 * offsets_topic_num_partitions partitions and cleanup.policy=compact,
 * recovered like any topic, and read back into the region's committed
 * offsets.  Its count never changes once made.
 */
static int
recovery_coffsets(const struct config *conf, struct shm *shm)
{
	struct coffsets_replay r;
	int32_t parts, j;
	int idx, made;

	memset(&r, 0, sizeof(r));
	if (recovery_internal(conf, shm, COFFSETS_TOPIC,
	    conf->offsets_topic_partitions, &idx, &parts, &made) == -1)
		return -1;
	for (j = 0; j < parts; j++)
		if (recovery_partition(conf, shm, idx, COFFSETS_TOPIC, j,
		    &r, NULL) == -1)
			return -1;
	if (topic_dir_sync(conf->data_dir, COFFSETS_TOPIC) == -1) {
		log_warn("%s: fdatasync of its directory", COFFSETS_TOPIC);
		return -1;
	}
	coffsets_replay_end(shm);
	if (made)
		log_info("created %s with %d partition%s (committed offsets)",
		    COFFSETS_TOPIC, parts, parts == 1 ? "" : "s");
	if (r.records > 0 || r.tombstones > 0)
		log_info("%s: read %llu commit record%s and %llu tombstone%s "
		    "back", COFFSETS_TOPIC, (unsigned long long)r.records,
		    r.records == 1 ? "" : "s", (unsigned long long)r.tombstones,
		    r.tombstones == 1 ? "" : "s");
	if (r.dropped > 0)
		log_warnx("%s: %llu committed offset%s for missing topics or "
		    "partitions dropped", COFFSETS_TOPIC,
		    (unsigned long long)r.dropped, r.dropped == 1 ? "" : "s");
	if (r.bad > 0)
		log_warnx("%s: %llu record%s that do not decode skipped",
		    COFFSETS_TOPIC, (unsigned long long)r.bad,
		    r.bad == 1 ? "" : "s");
	return 0;
}

/*
 * __transaction_state (master/txnstate.h): made like __consumer_offsets
 * (transaction_state_log_num_partitions), read back into the region's
 * transaction table.
 */
static int
recovery_txnstate(const struct config *conf, struct shm *shm)
{
	struct txnstate_replay r;
	int32_t parts, j;
	int idx, made;

	if (shm->hdr->limits.max_txns == 0)
		return 0;
	memset(&r, 0, sizeof(r));
	if (recovery_internal(conf, shm, TXNLOG_TOPIC,
	    conf->transaction_topic_partitions, &idx, &parts, &made) == -1)
		return -1;
	for (j = 0; j < parts; j++)
		if (recovery_partition(conf, shm, idx, TXNLOG_TOPIC, j, NULL,
		    &r) == -1)
			return -1;
	if (topic_dir_sync(conf->data_dir, TXNLOG_TOPIC) == -1) {
		log_warn("%s: fdatasync of its directory", TXNLOG_TOPIC);
		return -1;
	}
	txnstate_replay_end(shm);
	if (made)
		log_info("created %s with %d partition%s (transactions)",
		    TXNLOG_TOPIC, parts, parts == 1 ? "" : "s");
	if (r.records > 0)
		log_info("%s: read %llu transaction record%s back", TXNLOG_TOPIC,
		    (unsigned long long)r.records, r.records == 1 ? "" : "s");
	if (r.bad > 0 || r.dropped > 0)
		log_warnx("%s: %llu record%s that do not decode skipped, %llu "
		    "over max_transactions dropped", TXNLOG_TOPIC,
		    (unsigned long long)r.bad, r.bad == 1 ? "" : "s",
		    (unsigned long long)r.dropped);
	return 0;
}

/*
 * Step 2: a topic delete cut short by a crash left its tombstone (store/
 * tomb.h); the topic is already gone, so only its files are removed.
 */
static int
recovery_tombstones(const struct config *conf)
{
	int removed = 0;

	if (tomb_sweep(conf->data_dir, &removed) == -1) {
		log_warn("removing deleted topics' directories in %s",
		    conf->data_dir);
		return -1;
	}
	if (removed > 0)
		log_info("finished %d topic delete%s a previous run left "
		    "half-done", removed, removed == 1 ? "" : "s");
	return 0;
}

/*
 * Step 0: committed offsets saved where a broker before this layout kept
 * them (store/offsets_migrate.h) move to their own directory, before
 * anything reads or writes them.  A topic that a client made of a name
 * Kafka reserves is no topic any more (store/topic.h): said once per
 * start, its files left alone.
 */
static int
recovery_offsets_dir(const struct config *conf)
{
	struct offsets_migration m;
	const char *r;
	int32_t parts;
	size_t i;

	if (offsets_migrate(conf->data_dir, &m) == -1) {
		log_warn("moving committed offsets from %s/%s to %s/%s",
		    conf->data_dir, OFFSETS_OLD_DIR, conf->data_dir,
		    OFFSETS_DIR);
		return -1;
	}
	if (m.moved > 0)
		log_info("moved the committed offsets of %d group%s from "
		    "%s/%s to %s/%s", m.moved, m.moved == 1 ? "" : "s",
		    conf->data_dir, OFFSETS_OLD_DIR, conf->data_dir,
		    OFFSETS_DIR);
	if (m.kept > 0)
		log_warnx("%s/%s: %d group file%s not moved, %s/%s has them "
		    "already (the old ones are left in place)", conf->data_dir,
		    OFFSETS_OLD_DIR, m.kept, m.kept == 1 ? "" : "s",
		    conf->data_dir, OFFSETS_DIR);
	for (i = 0; (r = topic_reserved_name(i)) != NULL; i++)
		if (strcmp(r, COFFSETS_TOPIC) != 0 &&
		    topic_meta_load(conf->data_dir, r, &parts, NULL) == 0)
			log_warnx("%s/%s: a topic a client created under a name "
			    "Kafka reserves; not served (remove the directory "
			    "to drop it)", conf->data_dir, r);
	return 0;
}

int
recovery_run(const struct config *conf, struct shm *shm)
{
	struct shm_limits	lim;
	char			name[SHM_NAME_MAX];
	int			drained = 0, rc;

	if (shm_name_for(conf->data_dir, name, sizeof(name)) == -1) {
		log_warn("cannot name the shared memory for %s", conf->data_dir);
		return -1;
	}
	if (recovery_offsets_dir(conf) == -1 ||
	    recovery_drain_old(conf, name, &drained) == -1)
		return -1;
	/*
	 * A clean start (no region left to drain) after the one that moved
	 * the offsets files into __consumer_offsets: they go now.
	 */
	if (!drained && (rc = offsets_migrated_drop(conf->data_dir)) != 0) {
		if (rc == -1)
			log_warn("cannot remove %s/%s", conf->data_dir,
			    OFFSETS_MIGRATED);
		else
			log_info("removed %s/%s: a clean start since its "
			    "offsets went into %s", conf->data_dir,
			    OFFSETS_MIGRATED, COFFSETS_TOPIC);
	}
	if (recovery_tombstones(conf) == -1)
		return -1;

	memset(&lim, 0, sizeof(lim));
	/* Workers, the writer, and the metrics child if it is configured. */
	lim.child_slots = (uint32_t)conf->workers + 2 +
	    (conf->metrics_listen[0] != '\0' ? 1 : 0);
	/*
	 * __consumer_offsets and __transaction_state come on top of what
	 * clients may make.
	 */
	lim.max_topics = conf->max_topics + 2;
	lim.max_partitions = conf->max_partitions +
	    (uint32_t)coffsets_partitions(conf) +
	    (conf->max_transactions > 0 ?
	    (uint32_t)txnstate_partitions(conf) : 0);
	lim.max_txns = conf->max_transactions;
	lim.max_txn_parts = conf->max_transaction_partitions;
	lim.max_txn_offsets = conf->max_transaction_offsets;
	lim.ring_size = conf->ring_size;
	lim.max_groups = conf->max_groups;
	lim.max_group_members = conf->max_group_members;
	lim.member_meta = conf->max_group_member_metadata;
	/*
	 * Per-address counts: a worker holds at most max_connections_total
	 * connections, so at most that many addresses; twice as many entries
	 * keep the probe chains short.  Always there, so that SIGHUP can turn
	 * max_connections_per_ip on.
	 */
	lim.ip_slots = conf->max_connections_total > IPCOUNT_SLOTS_MAX / 2 ?
	    IPCOUNT_SLOTS_MAX : conf->max_connections_total * 2;
	/* A worker never holds more than max_connections_total. */
	lim.conn_slots = conf->max_connections_total > CONNTAB_SLOTS_MAX ?
	    CONNTAB_SLOTS_MAX : conf->max_connections_total;
	if (shm_create(shm, name, &lim) == -1) {
		log_warn("cannot create shared memory %s (%zu bytes)", name,
		    shm_layout_size(&lim));
		return -1;
	}
	log_info("shared memory %s: %zu bytes (%u partitions x %llu byte "
	    "rings)", name, shm->size, lim.max_partitions,
	    (unsigned long long)lim.ring_size);
	if (recovery_topics(conf, shm) == -1 ||
	    recovery_coffsets(conf, shm) == -1 ||
	    recovery_txnstate(conf, shm) == -1 ||
	    writer_groups_load(shm, conf) == -1) {
		shm_detach(shm);
		shm_unlink_name(name);
		return -1;
	}
	return 0;
}
