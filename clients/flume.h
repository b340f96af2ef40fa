/*
 * libflume: the C client library of the Flume broker.
 *
 * One struct flume_client is one TCP connection to a broker (it knows its
 * address and reconnects itself).  Synchronous calls (metadata, create,
 * list offsets, workers) send one request and wait for its answer; a
 * producer and a consumer are built on a client and pipeline their own
 * requests on it.  A client, and the producer or consumer on it, belong to
 * one thread at a time.
 *
 * Conventions: functions return 0 (or a count, or a pointer) on success
 * and -1 (or NULL) with errno set on failure; flume_errstr(client) then
 * holds a one-line reason ("unknown topic or partition", "connection
 * lost: Connection reset by peer").  The library never prints and never
 * exits.  Broker errors map to errno (EEXIST topic exists, ENOENT unknown
 * topic or partition, EINVAL invalid request/name/partitions, EMSGSIZE
 * message too large, ETIMEDOUT timeout, EIO anything else) and the broker's
 * code is kept in flume_broker_error(client).
 */
#ifndef FLUME_H
#define FLUME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; its API is what this marks. */
#pragma GCC visibility push(default)

#define FLUME_DEFAULT_BROKER	"127.0.0.1:9192"
#define FLUME_DEFAULT_PORT	9192

/* Start positions for flume_consumer_subscribe(); same values as the wire. */
#define FLUME_OFFSET_BEGINNING	(-2)
#define FLUME_OFFSET_END	(-1)

/* Partition argument meaning "let the partitioner choose" / "all". */
#define FLUME_PARTITION_ANY	(-1)

struct flume_client;
struct flume_producer;
struct flume_consumer;

/* ---- connection ---- */

struct flume_client_conf {
	int		 connect_timeout_ms;	/* default 5000 */
	int		 request_timeout_ms;	/* default 30000 */
	int		 reconnect_attempts;	/* default 10 */
	int		 reconnect_backoff_ms;	/* first delay, doubled, max 1 s; default 100 */
	const char	*client_id;		/* default "libflume" */
	/*
	 * File holding one line `user:secret`: authenticate with it after
	 * every connect (AUTH_BEGIN, AUTH_PROVE).  Default NULL: do not.
	 */
	const char	*secret_file;
};

/* Fill *conf with the defaults above. */
void	flume_client_conf_init(struct flume_client_conf *conf);

/*
 * Connect to host_port ("host:port", "[v6addr]:port", "host", NULL for
 * FLUME_DEFAULT_BROKER), with TCP_NODELAY and a connect timeout, and do
 * the HANDSHAKE.  NULL with errno on failure; flume_errstr(NULL) then
 * tells why (per thread).
 */
struct flume_client *flume_connect(const char *host_port);
struct flume_client *flume_connect_conf(const char *host_port,
	    const struct flume_client_conf *conf);
void	flume_close(struct flume_client *c);

/*
 * TLS to a broker's listen_tls: the broker's certificate is verified
 * against ca_file (NULL: the system's trusted CAs) and must name the host
 * of host_port (its IP address for a numeric one).  cert_file and
 * key_file (PEM) present a client certificate, for tls_client_auth.
 */
struct flume_tls_conf {
	const char	*ca_file;
	const char	*cert_file;
	const char	*key_file;
};

/* Fill *tls with the defaults (all NULL). */
void	flume_tls_conf_init(struct flume_tls_conf *tls);
/* flume_connect_conf() over TLS (tls NULL: as flume_connect_conf). */
struct flume_client *flume_connect_tls(const char *host_port,
	    const struct flume_client_conf *conf, const struct flume_tls_conf *tls);
/* Whether c speaks TLS, and the protocol version ("TLSv1.3") once connected. */
const char *flume_client_tls_version(const struct flume_client *c);

/* The last failure on c, or the calling thread's last connect failure when c is NULL. */
const char *flume_errstr(const struct flume_client *c);
/* The broker error code (proto/msg.h enum flume_error) of the last failure, 0 if none. */
int	flume_broker_error(const struct flume_client *c);
/* The broker's text for a broker error code ("topic already exists"). */
const char *flume_strerror(int err);
/* "host:port" as given (or the default). */
const char *flume_client_address(const struct flume_client *c);
/* The broker's name and version from the HANDSHAKE ("flume 0.2.0"). */
const char *flume_broker_version(const struct flume_client *c);
/* This library's version ("0.2.0"). */
const char *flume_version(void);
/* Times the client re-established its connection. */
unsigned flume_client_reconnects(const struct flume_client *c);
/* Bytes written to / read from the broker so far, over every connection. */
uint64_t flume_client_bytes_out(const struct flume_client *c);
uint64_t flume_client_bytes_in(const struct flume_client *c);

/* ---- metadata and administration ---- */

struct flume_partition_meta {
	int32_t		 partition;
	int64_t		 log_start;
	int64_t		 log_end;
	int64_t		 size_bytes;
};

struct flume_topic_meta {
	int		 error;		/* broker error for this topic, 0 if fine */
	char		*name;
	int32_t		 partition_count;
	struct flume_partition_meta *partitions;
};

struct flume_metadata {
	int32_t		 topic_count;
	struct flume_topic_meta *topics;
};

/*
 * Metadata of the named topics (ntopics 0: every topic).  auto_create asks
 * the broker to create missing topics (its auto_create_topics decides).
 * *out is freed with flume_metadata_free().
 */
int	flume_metadata(struct flume_client *c, const char *const *topics,
	    int ntopics, int auto_create, struct flume_metadata **out);
void	flume_metadata_free(struct flume_metadata *md);

/* Create a topic (partitions 0: broker default); *created gets the count. */
int	flume_create_topic(struct flume_client *c, const char *topic,
	    int32_t partitions, int32_t *created);

/*
 * Delete a topic and all its data (*deleted gets its partition count).
 * Returns once the broker has removed its files: a topic of that name
 * created afterwards starts empty at offset 0.  Fails with the broker's
 * error (flume_broker_error) UNKNOWN_TOPIC_OR_PARTITION when there is no
 * such topic, TIMEOUT when the removal took longer than the request
 * timeout (it still completes).
 */
int	flume_delete_topic(struct flume_client *c, const char *topic,
	    int32_t *deleted);

/*
 * Grow a topic to count partitions in total (*now gets the count after,
 * or the current one on INVALID_PARTITIONS).  Returns once the new
 * partitions are on disk.  Fails with the broker's error
 * (flume_broker_error): UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS
 * when count is not above the current count (a topic never shrinks),
 * RESOURCE_LIMIT past the broker's max_partitions, TIMEOUT when making
 * the files took longer than the request timeout (the grow completes).
 * Keys then route over the new count: a key's later records may go to
 * another partition than its earlier ones.
 */
int	flume_create_partitions(struct flume_client *c, const char *topic,
	    int32_t count, int32_t *now);

/* The earliest (FLUME_OFFSET_BEGINNING) or latest (FLUME_OFFSET_END) offset. */
int	flume_list_offset(struct flume_client *c, const char *topic,
	    int32_t partition, int64_t which, int64_t *offset);
/*
 * The first offset whose record timestamp (ms since the epoch, >= 0) is
 * at or after ts_ms, as Kafka's ListOffsets answers it; -1 when no record
 * is that new (start at FLUME_OFFSET_END to wait for one).
 */
int	flume_list_offset_for_time(struct flume_client *c, const char *topic,
	    int32_t partition, int64_t ts_ms, int64_t *offset);

struct flume_worker_info {
	int32_t		 slot;
	int		 role;		/* 0 worker, 1 writer, 2 metrics */
	int32_t		 pid;
	int64_t		 uptime_ms;
	int32_t		 restarts;
};

/* The broker's children; *out is freed with free(). Returns the count. */
int	flume_workers(struct flume_client *c, struct flume_worker_info **out);

struct flume_conn_info {
	int32_t		 slot;		/* the worker's slot */
	int32_t		 pid;		/* and its pid */
	int		 kafka;		/* 1 Kafka listener, 0 native */
	int		 tls;
	int64_t		 opened_ms;	/* accepted at, ms since the epoch */
	char		 peer[48];	/* the client's address:port */
	char		 client_name[32];	/* "" unless a Kafka client */
	char		 client_version[32];	/* named it (ApiVersions v3+) */
};

/* The workers' client connections; *out is freed with free(). The count. */
int	flume_connections(struct flume_client *c,
	    struct flume_conn_info **out);

/*
 * The partition a key goes to: FNV-1a 32-bit of the key bytes (offset
 * basis 0x811c9dc5, prime 0x01000193) modulo partition_count.  Every
 * Flume client must agree on this, so the same key always lands in the
 * same partition.
 */
uint32_t flume_fnv1a32(const void *key, size_t len);
int32_t	flume_partition_for_key(const void *key, size_t len, int32_t partition_count);

/* ---- producer ---- */

struct flume_delivery {
	uint64_t	 seq;		/* from flume_produce(), in call order */
	const char	*topic;
	int32_t		 partition;
	int64_t		 offset;	/* -1 with acks 0 or on error */
	int		 error;		/* 0; > 0 broker error; < 0 -errno (transport) */
};

typedef void flume_delivery_fn(const struct flume_delivery *d, void *arg);

struct flume_producer_conf {
	int		 acks;		/* 0, 1 (default) or -1 (all) */
	int		 linger_ms;	/* default 5 */
	size_t		 batch_bytes;	/* default 16384 */
	int		 max_inflight;	/* PRODUCE requests in flight, default 8 */
	size_t		 max_request_bytes; /* per PRODUCE request, default 1 MiB */
	size_t		 buffer_bytes;	/* queued + in flight before produce blocks, default 32 MiB */
	int		 timeout_ms;	/* broker-side acks=all timeout, default 30000 */
	int		 auto_create;	/* ask METADATA to create topics, default 1 */
	int		 idempotent;	/* producer id + sequences (acks != 0), default 1 */
	flume_delivery_fn *on_delivery;	/* may be NULL */
	void		*on_delivery_arg;
	int		 compression;	/* FLUME_COMPRESSION_*, default NONE */
};

/*
 * Compression codecs, Kafka's numbers (the low bits of a batch's
 * attributes).  A producer compresses each batch once, whole; consumers
 * decompress whatever they fetch, whatever the producer chose.
 */
#define FLUME_COMPRESSION_NONE		0
#define FLUME_COMPRESSION_GZIP		1
#define FLUME_COMPRESSION_SNAPPY	2
#define FLUME_COMPRESSION_LZ4		3
#define FLUME_COMPRESSION_ZSTD		4
/* "none", "gzip", "snappy", "lz4" or "zstd" to its number, else -1. */
int	flume_compression_by_name(const char *name);

void	flume_producer_conf_init(struct flume_producer_conf *conf);
/* A producer using c (which it does not own) for its requests. */
struct flume_producer *flume_producer_new(struct flume_client *c,
	    const struct flume_producer_conf *conf);
/* Frees without flushing (call flume_producer_flush first). */
void	flume_producer_free(struct flume_producer *p);

/*
 * Queue one message.  partition FLUME_PARTITION_ANY: by key (FNV-1a
 * modulo the topic's partition count, which the producer asks the broker
 * for again every 10 seconds: after a topic grows, a key's records may go
 * to another partition than before), or round-robin per batch when key
 * is NULL.  key_len / value_len -1 with
 * NULL pointer means null.  The bytes are copied.  *seq (may be NULL)
 * gets the message's sequence number (0, 1, 2, ... per producer).
 * May block while the buffer is full.  -1: the message was not queued
 * (unknown topic, bad partition, connection gone for good).
 */
int	flume_produce(struct flume_producer *p, const char *topic,
	    int32_t partition, const void *key, int32_t key_len,
	    const void *value, int32_t value_len, uint64_t *seq);
/*
 * flume_produce without copying the value: the library keeps a pointer
 * to value[0..value_len) and sends those bytes from there, also when it
 * sends the message again (after a lost connection or answer).  The
 * caller keeps them valid and unchanged until the message's delivery is
 * reported: on_delivery was called for its *seq (with or without an
 * error), or flume_producer_flush() returned 0 (every message reported),
 * or the producer was freed.  After a flush that failed, messages not
 * yet reported are still referenced.  A value changed before then is
 * refused by the broker (its CRC-32C was computed when it was queued)
 * or, for a resend, stored as it was first sent.  The key is copied.
 *
 * The contract is always the same, but the library may copy anyway:
 * values shorter than FLUME_PRODUCE_REF_MIN bytes (referencing costs
 * more), producers with conf.compression other than NONE (the batch is
 * compressed from a copy), and a TLS connection or acks 0 (the request
 * is encoded from a copy at send time).  Return values as flume_produce.
 */
int	flume_produce_ref(struct flume_producer *p, const char *topic,
	    int32_t partition, const void *key, int32_t key_len,
	    const void *value, int32_t value_len, uint64_t *seq);
/* Shorter values are copied by flume_produce_ref. */
#define FLUME_PRODUCE_REF_MIN	512
/* Make progress for up to timeout_ms (send, receive, report, retry). */
int	flume_producer_poll(struct flume_producer *p, int timeout_ms);
/*
 * Send everything and wait for every acknowledgement (with acks 0: until
 * every byte was written).  0 when every message so far was delivered,
 * -1 when some failed or on timeout (timeout_ms < 0: no limit).
 */
int	flume_producer_flush(struct flume_producer *p, int timeout_ms);
/* Messages queued or in flight, not yet reported. */
uint64_t flume_producer_pending(const struct flume_producer *p);
/* Messages reported as failed so far. */
uint64_t flume_producer_failed(const struct flume_producer *p);
/*
 * Idempotence.  With conf.idempotent (the default, unless acks is 0) the
 * producer asks the broker for a producer id when it is created, keeps
 * it across reconnects, numbers its records per partition and resends a
 * batch whose answer was lost with the same numbers, so the broker
 * stores it once.  The id, or -1 when the producer is not idempotent
 * (acks 0, conf.idempotent 0, or a broker without INIT_PRODUCER).
 */
int64_t	flume_producer_id(const struct flume_producer *p);
/*
 * INIT_PRODUCER: *producer_id -1 asks for a new id (epoch 0); an id the
 * broker issued asks for its next epoch, which fences older users of it.
 * 0 with *producer_id and *epoch set, or -1 (EPERM: fenced/unknown id).
 */
int	flume_init_producer(struct flume_client *c, int64_t *producer_id,
	    int16_t *epoch);

/* ---- consumer ---- */

struct flume_message {
	const char	*topic;
	int32_t		 partition;
	int64_t		 offset;
	int64_t		 timestamp;	/* ms since the epoch */
	const void	*key;		/* NULL and key_len -1 for a null key */
	int32_t		 key_len;
	const void	*value;		/* NULL and value_len -1 for a null value */
	int32_t		 value_len;
};

struct flume_consumer_conf {
	int		 max_wait_ms;	/* fetch long-poll, default 500 */
	int32_t		 min_bytes;	/* default 1 */
	int32_t		 max_bytes;	/* per partition and fetch, default 1 MiB */
};

void	flume_consumer_conf_init(struct flume_consumer_conf *conf);
struct flume_consumer *flume_consumer_new(struct flume_client *c,
	    const struct flume_consumer_conf *conf);
void	flume_consumer_free(struct flume_consumer *k);

/*
 * Read topic's partition (FLUME_PARTITION_ANY: every partition) from
 * offset: FLUME_OFFSET_BEGINNING (log start), FLUME_OFFSET_END (latest),
 * or an offset (clamped to the log's range).  May be called per topic.
 */
int	flume_consumer_subscribe(struct flume_consumer *k, const char *topic,
	    int32_t partition, int64_t offset);
/*
 * The next message: 1 with *m filled (pointers valid until the next call),
 * 0 when none came within timeout_ms, -1 on error (a corrupt batch, an
 * unknown topic, the connection gone for good).
 */
int	flume_consumer_poll(struct flume_consumer *k, struct flume_message *m,
	    int timeout_ms);
/*
 * 1 when the next flume_consumer_poll() may be answered from the last
 * response without a network round trip (flush output when 0).
 */
int	flume_consumer_buffered(const struct flume_consumer *k);
/*
 * 1 when every subscribed partition's next offset is its high watermark
 * (read_committed: its last stable offset).
 */
int	flume_consumer_at_end(const struct flume_consumer *k);

/*
 * Transactions: which records a consumer sees.  FLUME_READ_COMMITTED
 * (the default; it needs a broker of protocol version 3, older ones give
 * everything): only records of committed transactions and of producers
 * without transactions, up to the last stable offset.
 * FLUME_READ_UNCOMMITTED: every record, aborted ones too.  Transaction
 * markers are never handed out.  0, or -1 (EINVAL).
 */
#define FLUME_READ_UNCOMMITTED	0
#define FLUME_READ_COMMITTED	1
int	flume_consumer_set_isolation(struct flume_consumer *k, int isolation);
/* The next offset of topic/partition, -1 if not subscribed. */
int64_t	flume_consumer_position(const struct flume_consumer *k,
	    const char *topic, int32_t partition);

/*
 * A poll (consumer or group) failed with errno EBADMSG on a corrupt
 * batch: the broker refused the range (CORRUPT_MESSAGE) or the batch
 * failed its CRC here.  Offsets [offset, next) of topic/partition cannot
 * be read; reading can resume at next (subscribe there, or reset a
 * group's offset to it).
 */
struct flume_corrupt {
	const char	*topic;		/* valid until the next error on c */
	int32_t		 partition;
	int64_t		 offset;	/* first offset of the corrupt range */
	int64_t		 next;		/* first readable offset after it */
};

/* The corrupt range of c's last error: 0, or -1 (ENOENT) when it was not one. */
int	flume_corrupt_range(const struct flume_client *c, struct flume_corrupt *out);

/* ---- consumer groups (libflume_group.c) ---- */

/*
 * A group member: the broker assigns it partitions of the subscribed
 * topics (every partition to one member of the group), the member reads
 * them from the group's committed offsets, heartbeats, follows
 * rebalances and commits what the application marked processed.
 * Everything happens inside flume_group_poll(), on the caller's thread;
 * call it at least every heartbeat interval or the broker drops the
 * member after its session timeout.
 *
 * The commit contract: a message handed out by flume_group_poll() is not
 * committed until the application says it has finished with it, with
 * flume_group_mark() or flume_group_mark_message().  Auto-commit,
 * flume_group_commit(), flume_group_commit_async() and
 * flume_group_close() commit only marked offsets, never merely
 * handed-out ones, so a member that dies (even by
 * SIGKILL) before marking a message leaves it to be delivered again:
 * delivery is at least once.  After a rebalance a partition continues
 * from its last committed offset.
 */
struct flume_group;

struct flume_group_conf {
	int		 session_timeout_ms;	/* default 10000 */
	int		 heartbeat_interval_ms;	/* default session_timeout_ms / 3 */
	int		 auto_commit_ms;	/* commit marked offsets this often and before
						   a rejoin; 0: only explicitly; default 5000 */
	int64_t		 start_offset;		/* FLUME_OFFSET_END (default) or _BEGINNING: a
						   partition the group has no committed offset for */
	int		 max_wait_ms;		/* fetch long-poll, default 500 (at most half the interval) */
	int32_t		 max_bytes;		/* per partition and fetch, default 1 MiB */
};

void	flume_group_conf_init(struct flume_group_conf *conf);
/*
 * Join group with a subscription of ntopics topics (1..16) on c (which
 * it uses, not owns) and wait for the first assignment.  NULL with errno
 * and flume_errstr(c) on failure.
 */
struct flume_group *flume_group_join(struct flume_client *c, const char *group,
	    const char *const *topics, int ntopics, const struct flume_group_conf *conf);
/*
 * The next message of an assigned partition: 1 with *m (valid until the
 * next call), 0 when none came within timeout_ms, -1 on error (the
 * connection gone for good, a corrupt batch, a join refused).
 */
int	flume_group_poll(struct flume_group *g, struct flume_message *m,
	    int timeout_ms);
/*
 * Mark everything of assigned topic/partition before next_offset as
 * processed: the next commit stores next_offset.  next_offset is at most
 * the partition's position (what was handed out).  0, or -1 with errno
 * ENOENT (not assigned to this member now: after a rebalance the new
 * owner reads it again from the committed offset) or EINVAL.
 */
int	flume_group_mark(struct flume_group *g, const char *topic,
	    int32_t partition, int64_t next_offset);
/* flume_group_mark() of m->offset + 1 for a message m from flume_group_poll(). */
int	flume_group_mark_message(struct flume_group *g,
	    const struct flume_message *m);
/*
 * Commit the marked offset of every assigned partition now.  0, or -1
 * (errno EAGAIN: a rebalance began, nothing was committed; the member
 * rejoins in the next poll).
 */
int	flume_group_commit(struct flume_group *g);
/*
 * Send a commit of the marked offsets that moved, without waiting for
 * its answer: a later call that talks to the broker on this thread takes
 * it (usually the next fetch of flume_group_poll()), so a consumer that
 * commits every batch need not wait a round trip per batch.  Until the
 * answer, nothing counts as committed (flume_group_committed()); a
 * commit lost with the connection or refused leaves its offsets marked,
 * and the next commit sends them again.  A refusal because a rebalance
 * began makes the next poll rejoin (until then a commit fails with
 * EAGAIN, as flume_group_commit()); any other refusal fails the next
 * flume_group_commit_async() call.  flume_group_close() waits for
 * every answer.  0, or -1 with errno.
 */
int	flume_group_commit_async(struct flume_group *g);
/*
 * The offset of assigned topic/partition that the group is known to hold
 * from this member: found at the assignment or acknowledged by a commit
 * since (-1: none).  0, or -1 with errno ENOENT (not assigned).
 */
int	flume_group_committed(const struct flume_group *g, const char *topic,
	    int32_t partition, int64_t *offset);
/* 1 when every assigned partition is read to its high watermark. */
int	flume_group_at_end(const struct flume_group *g);
/* 1 when the next poll may be answered without a network round trip. */
int	flume_group_buffered(const struct flume_group *g);
/* Commit the marked offsets, leave the group (its partitions move at once) and free g. 0 or -1. */
int	flume_group_close(struct flume_group *g);
/* Free g without committing or leaving (its session runs out instead). */
void	flume_group_free(struct flume_group *g);
int32_t	flume_group_generation(const struct flume_group *g);
const char *flume_group_member_id(const struct flume_group *g);
/* Assignments received so far (1 after the join, +1 per rebalance). */
unsigned flume_group_assignments(const struct flume_group *g);

/* Administration. */
#define FLUME_GROUP_EMPTY		0
#define FLUME_GROUP_REBALANCING		1
#define FLUME_GROUP_STABLE		2
#define FLUME_GROUP_AWAITING_SYNC	3	/* a Kafka group between JoinGroup and SyncGroup */

/* "empty", "rebalancing", "stable" (or "unknown"). */
const char *flume_group_state_name(int state);

struct flume_group_info {
	char		*name;
	int		 state;		/* FLUME_GROUP_* */
	int32_t		 generation;
	int32_t		 members;
};

/* Every group the broker knows; *out (freed with flume_group_list_free). Returns the count. */
int	flume_list_groups(struct flume_client *c, struct flume_group_info **out);
void	flume_group_list_free(struct flume_group_info *l, int n);

struct flume_topic_partition {
	char		*topic;
	int32_t		 partition;
};

struct flume_group_member {
	char		*member_id;
	char		*client_id;
	int32_t		 session_timeout_ms;
	int32_t		 count;
	struct flume_topic_partition *parts;	/* its assignment */
};

struct flume_group_partition {
	char		*topic;
	int32_t		 partition;
	int64_t		 committed;	/* -1: none */
	int64_t		 log_end;
};

/* A group's kind (flume_group_desc's kind). */
#define FLUME_GROUP_KIND_UNKNOWN	0	/* a broker before protocol version 2 */
#define FLUME_GROUP_KIND_NATIVE		1	/* libflume's groups */
#define FLUME_GROUP_KIND_CLASSIC	2	/* Kafka's classic protocol */
#define FLUME_GROUP_KIND_CONSUMER	3	/* Kafka's consumer protocol (KIP-848) */

/*
 * What a member is beside its assignment (protocol version 2): its epoch
 * (a consumer protocol member's member epoch, else the generation it
 * last joined), its static instance id ("" for none), and for the
 * consumer protocol the partitions it is revoking and its target.
 */
struct flume_group_member_detail {
	int32_t		 epoch;
	char		*instance_id;
	int32_t		 revoking_count;
	struct flume_topic_partition *revoking;
	int32_t		 target_count;
	struct flume_topic_partition *target;
};

struct flume_group_desc {
	int		 state;
	int32_t		 generation;	/* a consumer protocol group's group epoch */
	int32_t		 member_count;
	struct flume_group_member *members;
	int32_t		 partition_count;	/* subscribed or committed partitions */
	struct flume_group_partition *partitions;
	/* From a broker of protocol version 2; else 0, -1 and NULL. */
	int		 kind;			/* FLUME_GROUP_KIND_* */
	int32_t		 assignment_epoch;	/* consumer protocol; else -1 */
	struct flume_group_member_detail *details;	/* member_count, as members */
};

/* One group; *out freed with flume_group_desc_free().  ENOENT: no such group. */
int	flume_describe_group(struct flume_client *c, const char *group,
	    struct flume_group_desc **out);
void	flume_group_desc_free(struct flume_group_desc *d);
/* Where flume_group_reset() moves a group (like kafka-consumer-groups --reset-offsets). */
#define FLUME_RESET_TO_OFFSET	0	/* value: an offset, clamped to the log */
#define FLUME_RESET_TO_EARLIEST	1
#define FLUME_RESET_TO_LATEST	2
#define FLUME_RESET_TO_TIME	3	/* value: epoch ms; the first batch whose
					   timestamp is >= value, else the log end */

struct flume_reset_result {
	int32_t		 partition;
	int		 error;		/* broker error code, 0 when set */
	int64_t		 offset;	/* the committed offset now */
};

/*
 * Set group's committed offsets of topic's partition (FLUME_PARTITION_ANY:
 * every partition) as mode and value say; the group is created if
 * needed.  Refused while the group has members (errno EBUSY): they would
 * commit over it.  Returns the number of results in *out (free()), or -1.
 */
int	flume_group_reset(struct flume_client *c, const char *group,
	    const char *topic, int32_t partition, int mode, int64_t value,
	    struct flume_reset_result **out);
/*
 * Delete group: its committed offsets and its place in the broker's
 * group table.  Refused while the group has members (errno EBUSY); a
 * group that does not exist is ENOENT.  0 or -1.
 */
int	flume_group_delete(struct flume_client *c, const char *group);
/*
 * Delete topic/partition's records below offset (FLUME_DELETE_TO_END:
 * every record so far): the log start moves there for good, as Kafka's
 * DeleteRecords; *log_start (may be NULL) gets the start afterwards (an
 * offset below it changes nothing).  Past the log end: ERANGE, nothing
 * changed.  Needs admin on the topic.  0 or -1.
 */
#define FLUME_DELETE_TO_END	(-1)
int	flume_delete_records(struct flume_client *c, const char *topic,
	    int32_t partition, int64_t offset, int64_t *log_start);

struct flume_offset_delete_result {
	int32_t		 partition;
	int		 error;		/* broker error code, 0 when deleted
					   (or none was committed) */
};

/*
 * Delete group's committed offsets of topic's partitions[0..n) (n 0:
 * every partition), as Kafka's OffsetDelete.  A partition of a topic the
 * group's members consume is refused (error GROUP_SUBSCRIBED).  Returns
 * the number of results in *out (free()), or -1 (ENOENT: no such group).
 */
int	flume_group_delete_offsets(struct flume_client *c, const char *group,
	    const char *topic, const int32_t *partitions, int32_t n,
	    struct flume_offset_delete_result **out);
/*
 * The group's committed offset of topic/partition into *offset (-1:
 * none; a committed offset below 0, which Kafka clients may store, reads
 * as none too).
 */
int	flume_committed_offset(struct flume_client *c, const char *group,
	    const char *topic, int32_t partition, int64_t *offset);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
