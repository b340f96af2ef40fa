/*
 * The shared-memory region of one broker instance: one POSIX shm object,
 * named from the data directory, created by the master before fork and
 * mapped at the same address in every child.
 *
 * Layout (every table fixed-size, sized from the configuration):
 *   struct shm_header
 *   struct shm_child    children[child_slots]     workers, the writer, metrics
 *   struct shm_topic    topics[max_topics]
 *   struct shm_partition parts[max_partitions]    control blocks
 *   uint8_t             rings[max_partitions][ring_size]
 *   consumer groups                                  shm/group.h (after the rings)
 *   idempotent producers' sequences                  shm/producer.h
 *   transactions                                     shm/txn.h
 *   the published auth_file                          shm/authpub.h
 *   topics' dynamic settings                         shm/tconf.h
 *   connections per client address                   shm/ipcount.h
 *   each worker's connections                        shm/conntab.h (last)
 *
 * The crash rule: any process may die at any instruction, so every shared
 * structure is valid at every instant.  Data is written first and
 * published by one release store last (a ring's tail, a topic's state).
 * Locks are process-shared robust mutexes (shm/lock.h); one whose owner
 * died is taken over, which is safe because nothing unpublished is ever
 * visible.
 *
 * Who writes what:
 *   header, children[].pid/state/role/start/restarts  master
 *   topics                                             workers (create, mark deleting,
 *                                                      grow), writer (free), under dir_lock
 *   topics[].partitions of a grown topic               writer (after its files)
 *   topics[].opened                                    writer (1), create and free (0)
 *   parts[].tail, next_offset                          workers (ring_append), under lock
 *   parts[].head, visible/durable offsets, log_*       writer
 *   parts[].delete_below                               workers (raise only, CAS)
 *   groups (shm/group.h)                               workers and writer, under
 *                                                      each group's robust lock
 *   parts[].segments, hdr->fsync                       writer
 *   parts[].msgs_out/bytes_out, children[].errors      workers (atomic adds)
 *   hdr->live, authpub                                 master (seqlocks)
 *   tconf[].gen and slots                              workers under dir_lock,
 *                                                      master at recovery
 *   tconf[].saved                                      writer
 *   ipcount tables                                     each worker its own;
 *                                                      master clears a dead one
 *   conntab tables                                     the same
 */
#ifndef FLUME_SHM_SHM_H
#define FLUME_SHM_SHM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto/msg.h"
#include "proto/role.h"

#define SHM_MAGIC		0x314d48534d554c46ULL	/* "FLUMSHM1" */
#define SHM_LAYOUT_VERSION	21
#define SHM_NAME_MAX		64

struct shm_authpub;
struct shm_tconf;

struct shm_limits {
	uint32_t	child_slots;		/* workers + 2 (writer, cleaner) [+ 1 (metrics)] */
	uint32_t	max_topics;
	uint32_t	max_partitions;		/* in total, over all topics */
	uint64_t	ring_size;		/* bytes per partition ring, multiple of 8 */
	uint32_t	max_groups;		/* consumer groups (shm/group.h); 0: none */
	uint32_t	max_group_members;	/* member slots per group */
	uint32_t	ip_slots;		/* per-address counts per child slot (shm/ipcount.h) */
	uint32_t	member_meta;		/* bytes of Kafka metadata, and of assignment, per member */
	uint32_t	conn_slots;		/* connections listed per child slot (shm/conntab.h) */
	uint32_t	max_txns;		/* transactional ids (shm/txn.h); 0: none */
	uint32_t	max_txn_parts;		/* partitions per transaction */
	uint32_t	max_txn_offsets;	/* pending TxnOffsetCommit offsets per transaction */
};

/*
 * The settings SIGHUP may change without a restart (master/live.c), as a
 * seqlock written only by the master: seq is odd while it writes.  A
 * reader copies the fields and retries while seq was odd or moved; a
 * master that dies mid-write leaves seq odd, and readers, whose retries
 * are bounded, keep their old values (the next master makes a new region).
 */
#define SHM_LIVE_FIELDS	32

/* One setting: where it lives in the children's struct config, its value. */
struct shm_live_field {
	_Atomic uint32_t	off;
	_Atomic uint32_t	width;		/* 4 or 8 */
	_Atomic int64_t		value;
};

struct shm_live {
	_Atomic uint32_t	seq;
	_Atomic uint32_t	generation;	/* 0: never published; bumped per reload */
	_Atomic uint32_t	nfields;	/* <= SHM_LIVE_FIELDS */
	uint32_t		pad;
	struct shm_live_field	field[SHM_LIVE_FIELDS];
};

/* fdatasync latency buckets; their upper bounds are in shm/stats.h. */
#define SHM_FSYNC_BUCKETS	16

/* The writer's fdatasync counters, written only by the writer. */
struct shm_fsync {
	_Atomic uint64_t	count;		/* successful calls */
	_Atomic uint64_t	errors;		/* failed calls */
	_Atomic uint64_t	sum_us;		/* total latency of the successful ones */
	_Atomic uint64_t	bucket[SHM_FSYNC_BUCKETS];	/* per bucket, not cumulative */
};

/* Rejected requests are counted per error code in this many slots. */
#define SHM_ERR_SLOTS		64

/*
 * The cleaner's figures (master/cleaner.c, the only writer): totals
 * since the region was made, and what it does now, which the tests
 * watch to kill it mid-pass.
 */
struct shm_cleaner {
	_Atomic uint64_t	runs;		/* passes that swapped */
	_Atomic uint64_t	bytes_read;
	_Atomic uint64_t	bytes_written;
	_Atomic uint64_t	records_removed;
	_Atomic uint64_t	passes_started;
	_Atomic uint32_t	cleaning;	/* partition slot + 1 being cleaned; 0 idle */
	uint32_t		pad0;
};

struct shm_header {
	uint64_t		magic;
	uint32_t		version;
	uint32_t		pad0;
	uint64_t		layout_size;	/* bytes of the whole region */
	struct shm_limits	limits;
	int32_t			master_pid;
	uint32_t		generation;	/* bumped by every master that creates it */
	_Atomic uint32_t	shutdown;	/* master asks children to finish */
	_Atomic uint32_t	writer_sleeping;/* writer is (about to be) in epoll_wait */
	_Atomic uint32_t	topic_count;	/* topics[0..topic_count) may be in use */
	_Atomic uint32_t	parts_used;	/* partition slots handed out */
	pthread_mutex_t		dir_lock;	/* topic creation */
	struct shm_live		live;		/* reloadable settings (common/live.h) */
	struct shm_fsync	fsync;		/* the writer's fdatasync figures */
	struct shm_cleaner	cleaner;	/* the cleaner's figures (issue 28) */
};

enum shm_child_state { CHILD_FREE = 0, CHILD_ASSIGNED = 1, CHILD_ACTIVE = 2 };
/* Slots: workers, the writer, then (with metrics_listen) the metrics child. */

struct shm_child {
	_Atomic int32_t		pid;
	_Atomic uint32_t	state;		/* enum shm_child_state */
	int32_t			role;		/* enum flume_role (proto/role.h) */
	int32_t			restarts;
	int64_t			start_ms;	/* CLOCK_REALTIME ms */
	_Atomic uint32_t	wake_wanted;	/* worker has parked requests */
	uint32_t		pad0;
	/* counters, written only by the child itself */
	_Atomic uint64_t	connections;	/* open now */
	_Atomic uint64_t	accepted;
	_Atomic uint64_t	requests;
	_Atomic uint64_t	bytes_in;
	_Atomic uint64_t	bytes_out;
	_Atomic uint64_t	rejected_conns;	/* closed at accept: max_connections */
	_Atomic uint64_t	protocol_errors;/* connections closed for a bad frame */
	_Atomic uint64_t	partial_bytes;	/* reader memory of incomplete frames, now */
	_Atomic uint64_t	partial_pauses;	/* reads paused by partial_frame_memory */
	_Atomic uint64_t	errors[SHM_ERR_SLOTS];	/* answers with that error code */
	_Atomic uint64_t	auth_failures;	/* failed logins (worker/authlimit.h) */
	_Atomic uint64_t	auth_throttled;	/* ... answered late or refused unchecked */
	_Atomic uint64_t	auth_derivations; /* SCRAM salted passwords derived (PBKDF2) */
	/* Kafka message sets (magic 0/1) converted to or from batches */
	_Atomic uint64_t	msgset_conversions;
	_Atomic uint64_t	msgset_bytes;	/* ... their bytes, as the client's */
};

/*
 * Deleting a topic (issue 15): a worker moves a READY entry to DELETING
 * under dir_lock, and from that store on no lookup finds it (produce and
 * fetch answer UNKNOWN_TOPIC_OR_PARTITION).  The writer, which owns the
 * files, then marks each partition dead under its lock (ring_append
 * refuses it from then on), drops what its rings still hold, renames the
 * topic directory to a tombstone, removes it, clears the committed
 * offsets and producer state of its slots, resets them to empty and
 * stores FREE last.  A FREE entry below topic_count is a hole that a
 * later create reuses with its partition slots (span of them).
 */
enum shm_topic_state { TOPIC_FREE = 0, TOPIC_READY = 1, TOPIC_DELETING = 2 };

/*
 * Growing a topic (CreatePartitions, shm_topic_grow()): the slots after
 * its first run may belong to another topic, so a grown topic holds up
 * to SHM_TOPIC_EXTENTS more runs.  Partition i is the i-th slot of the
 * first run, then of ext[0], ext[1]...: shm_topic_slot() is the one
 * place that says so.  A run is filled before the next is taken.
 */
#define SHM_TOPIC_EXTENTS	4

struct shm_extent {
	uint32_t		first;
	uint32_t		span;		/* 0: unused (and every later one) */
};

struct shm_topic {
	_Atomic uint32_t	state;		/* published last */
	int32_t			partitions;	/* a grow stores it last (release) */
	uint32_t		first_part;	/* partition 0's slot (shm_topic_slot()) */
	uint32_t		span;		/* slots of the first run, >= partitions
						   while it has no extent; a FREE
						   entry's changes (shm/slots.h), 0: none */
	struct shm_extent	ext[SHM_TOPIC_EXTENTS];	/* READY, DELETING only */
	/*
	 * A grow asked for this many partitions (worker, under dir_lock,
	 * once the slots [partitions, grow_to) are reset): the writer makes
	 * their files, rewrites topic.meta, then publishes partitions =
	 * grow_to.  At most partitions: nothing asked.
	 */
	_Atomic int32_t		grow_to;
	uint32_t		name_len;
	/*
	 * The writer has made this incarnation's files (topic.meta, every
	 * partition's log, the directories synced): stored 1 with release
	 * by the writer, 0 by a create before it publishes READY, so a
	 * create answers only once the topic is on disk.
	 */
	_Atomic uint32_t	opened;
	uint8_t			id[TOPIC_ID_LEN];	/* set before READY is published */
	char			name[TOPIC_NAME_MAX + 1];
};

struct shm_partition {
	pthread_mutex_t		lock;		/* robust; guards tail and next_offset */
	/* ring positions are byte counts since creation; index = pos % ring_size */
	_Atomic uint64_t	head;		/* writer has consumed up to here */
	_Atomic uint64_t	tail;		/* producers have published up to here */
	int64_t			next_offset;	/* next offset to assign; stored under
						   lock with __atomic release, read by
						   anyone as the acknowledged log end */
	_Atomic int64_t		visible_offset;	/* offsets below are in the log files */
	_Atomic int64_t		durable_offset;	/* ... and fdatasync'ed */
	_Atomic int64_t		log_start;	/* first offset kept on disk */
	/*
	 * DeleteRecords (worker/op/records.h): the log start asked for,
	 * only ever raised (CAS) by workers; the writer persists it, removes
	 * the segments below it and raises log_start, which the request
	 * waits for.  At most the log end when it is stored.
	 */
	_Atomic int64_t		delete_below;
	_Atomic uint64_t	log_bytes;	/* size of all segments */
	_Atomic int32_t		storage_error;	/* errno of the last failed write, 0 if none */
	_Atomic uint32_t	sync_wanted;	/* an acks=all produce waits for durable_offset */
	uint32_t		topic;		/* index into topics */
	int32_t			partition;	/* number within the topic */
	_Atomic uint64_t	msgs_in;	/* records appended */
	_Atomic uint64_t	bytes_in;
	_Atomic uint64_t	msgs_out;	/* records sent by FETCH (workers, atomic add) */
	_Atomic uint64_t	bytes_out;
	_Atomic uint32_t	segments;	/* segment files (writer) */
	/*
	 * An fdatasync failed (writer): the bytes past durable_offset must
	 * be written again before a sync may count for them (plog_resync).
	 */
	_Atomic uint32_t	sync_failed;
	/*
	 * Topic deletion (writer, under lock): dead makes ring_append refuse
	 * with ENOENT until a create reuses the slot; incarnation is bumped
	 * on every delete, so a request parked on the old topic (a full ring,
	 * acks=all, a long-poll fetch) sees that its partition is gone even
	 * after the slot was reused.
	 */
	_Atomic uint32_t	dead;
	_Atomic uint32_t	incarnation;
	/*
	 * Compaction (issue 28, master/cleaner.c).  clean_lock (robust) is
	 * held by the cleaner for a swap of closed segments and by the
	 * writer while it opens the log, applies retention or DeleteRecords,
	 * so neither removes or replaces a segment the other is changing; a
	 * holder that died leaves a swap clean_recover() finishes.  seg_gen
	 * is bumped after each swap: the writer reloads its closed segments
	 * when it moved.  The rest is what flume-admin cleaner shows.
	 */
	pthread_mutex_t		clean_lock;
	_Atomic uint32_t	seg_gen;
	_Atomic uint32_t	clean_ratio_ppm;	/* dirty ratio, millionths */
	_Atomic int64_t		clean_last_ms;		/* last swap, CLOCK_REALTIME */
	_Atomic uint64_t	clean_saved;		/* bytes saved, all passes */
	/*
	 * Transactions (shm/producer.h): 1 once the partition may hold a
	 * transactional batch (set by the append, under the lock and before
	 * its tail store, or at start-up when it has a producer-state
	 * snapshot); read_committed fetches of a partition with 0 look for
	 * no aborted transactions.  Cleared with its producers.
	 */
	_Atomic uint32_t	txn_seen;
};

/* The per-process handle: where the tables are in this mapping. */
struct shm {
	void			*base;
	size_t			 size;
	char			 name[SHM_NAME_MAX];
	struct shm_header	*hdr;
	struct shm_child	*children;
	struct shm_topic	*topics;
	struct shm_partition	*parts;
	uint8_t			*rings;
	uint8_t			*groups;	/* struct shm_group_dir, then the groups */
	uint8_t			*producers;	/* shm/producer.h */
	uint8_t			*txns;		/* shm/txn.h */
	struct shm_authpub	*authpub;	/* shm/authpub.h */
	struct shm_tconf	*tconf;		/* shm/tconf.h: [max_topics] */
	uint8_t			*ipcount;	/* shm/ipcount.h */
	uint8_t			*conntab;	/* shm/conntab.h */
};

/* "/flume-<16 hex digits of a hash of the data directory's real path>". */
int	shm_name_for(const char *data_dir, char *buf, size_t size);
size_t	shm_layout_size(const struct shm_limits *lim);
/*
 * Create a fresh region (mode 0600), replacing any old one of that name;
 * initialise every lock (robust, process-shared) and table.  0 or -1.
 */
int	shm_create(struct shm *s, const char *name, const struct shm_limits *lim);
/*
 * Map an existing region with the limits recorded in its own header.
 * -1 with ENOENT when there is none; -1 with EPROTO when its magic,
 * version or layout size is wrong (the caller must not use it).
 */
int	shm_attach(struct shm *s, const char *name);
void	shm_detach(struct shm *s);
int	shm_unlink_name(const char *name);

uint8_t	*shm_ring_data(struct shm *s, const struct shm_partition *p);

/* Slots a topic entry owns: its first run and its extents. */
static inline uint32_t
shm_topic_capacity(const struct shm_topic *t)
{
	uint32_t n = __atomic_load_n(&t->span, __ATOMIC_ACQUIRE), e, sp;

	for (e = 0; e < SHM_TOPIC_EXTENTS; e++) {
		if ((sp = __atomic_load_n(&t->ext[e].span, __ATOMIC_ACQUIRE)) == 0)
			break;
		n += sp;
	}
	return n;
}

/*
 * The slot of topic entry t's partition i (of its capacity, not checked
 * against partitions), or UINT32_MAX when i is past it or the slot is
 * outside the table.  Every "partition i of topic t" goes through here.
 */
static inline uint32_t
shm_topic_slot(const struct shm *s, const struct shm_topic *t, uint32_t i)
{
	uint32_t max = s->hdr->limits.max_partitions, first, sp, e;

	first = __atomic_load_n(&t->first_part, __ATOMIC_ACQUIRE);
	sp = __atomic_load_n(&t->span, __ATOMIC_ACQUIRE);
	/* An entry without extents: its partitions may reach past span. */
	if (__atomic_load_n(&t->ext[0].span, __ATOMIC_ACQUIRE) != 0) {
		for (e = 0; i >= sp && e < SHM_TOPIC_EXTENTS; e++) {
			i -= sp;
			first = __atomic_load_n(&t->ext[e].first, __ATOMIC_ACQUIRE);
			sp = __atomic_load_n(&t->ext[e].span, __ATOMIC_ACQUIRE);
			if (sp == 0)
				return UINT32_MAX;
		}
		if (i >= sp)
			return UINT32_MAX;
	}
	if (first >= max || i >= max - first)
		return UINT32_MAX;
	return first + i;
}

#endif
