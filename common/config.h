/*
 * The broker's configuration as every role reads it.  The master parses
 * flume.conf into it (master/config.c) before it forks; the children get
 * their own copy with the fork and treat it as read-only, except for the
 * settings a reload publishes (common/live.h).
 */
#ifndef FLUME_COMMON_CONFIG_H
#define FLUME_COMMON_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/tconf.h"
#include "proto/msg.h"

/* A topic's log settings (the store's struct plog_config, for the master). */
struct log_settings {
	uint64_t	segment_bytes;		/* roll when a segment reaches this */
	uint32_t	index_interval_bytes;	/* bytes between index entries */
	int64_t		retention_bytes;	/* -1 = unlimited */
	int64_t		retention_ms;		/* -1 = unlimited */
	int		log_append_time;	/* message_timestamp_type = log_append */
};

struct topic_config {
	char		 name[TOPIC_NAME_MAX + 1];
	int32_t		 partitions;		/* 0 = the global default */
	struct log_settings log;			/* filled with the effective values */
	struct tconf	 tc;			/* the topic keys the section gives */
};

/* tls_client_auth: whether a TLS client must show a certificate. */
enum tls_client_auth {
	TLS_CLIENT_NONE = 0,	/* never asked for */
	TLS_CLIENT_REQUEST,	/* asked for; checked when shown */
	TLS_CLIENT_REQUIRE	/* a connection without a valid one fails */
};

struct config {
	char		 path[PATH_MAX];	/* the file it was read from */
	char		 listen[300];		/* "host:port" as written */
	char		 listen_host[256];
	char		 listen_port[16];
	char		 data_dir[PATH_MAX];
	int		 workers;		/* default: number of CPUs */
	int32_t		 partitions;		/* for auto-created topics */
	uint64_t	 ring_size;
	struct log_settings log;			/* segment, index, retention defaults */
	int64_t		 cache_window_bytes;	/* newest log bytes left cached; -1 all */
	int64_t		 flush_interval_ms;	/* fdatasync at least this often; -1 never */
	int64_t		 flush_messages;	/* ... or after this many messages; -1 never */
	uint32_t	 max_message_bytes;	/* largest record batch accepted */
	uint32_t	 max_request_bytes;	/* largest frame accepted */
	int		 auto_create_topics;
	uint32_t	 max_topics;
	uint32_t	 max_partitions;
	uint32_t	 max_connections;	/* per worker */
	uint32_t	 max_connections_total;	/* over all workers */
	uint32_t	 max_connections_per_ip; /* from one client address, over all workers; 0 no limit */
	int64_t		 handshake_timeout_ms;	/* close a connection that sent no request past its handshake by then; 0 never */
	uint32_t	 max_inflight_per_connection; /* requests queued per connection */
	uint64_t	 max_buffered_bytes;	/* output held per connection before reading stops */
	uint64_t	 partial_frame_memory;	/* per worker: reader memory of incomplete frames */
	uint64_t	 partial_frame_memory_per_ip; /* ... of one client address; 0 no share */
	char		 auth_file[PATH_MAX];	/* user:secret:permissions lines; "" = no auth */
	uint32_t	 auth_throttle_after;	/* failed logins from an address a minute before each waits */
	int64_t		 auth_throttle_delay_ms; /* ... this long for its answer */
	uint32_t	 auth_throttle_max;	/* failed logins an address a minute before refusal; 0 no limit */
	int64_t		 client_log_interval_ms; /* a client address's errors logged once per this; 0 all */
	int64_t		 idle_timeout_ms;	/* drop a connection silent this long; 0 never */
	int64_t		 request_timeout_ms;	/* a half-sent frame older than this is dropped */
	int64_t		 retention_check_ms;	/* how often the writer applies retention */
	uint32_t	 cleaner_threads;	/* compaction threads (1) */
	uint64_t	 cleaner_dedupe_buffer_bytes; /* the cleaner's key map */
	uint64_t	 cleaner_io_max_bytes_per_second; /* its reads + writes; 0 unthrottled */
	int64_t		 cleaner_backoff_ms;	/* its sleep when nothing is dirty enough */
	uint32_t	 max_groups;		/* consumer groups in shared memory */
	uint32_t	 max_group_members;	/* members per group */
	uint32_t	 max_group_member_metadata;	/* Kafka member metadata / assignment bytes */
	int64_t		 group_initial_rebalance_delay_ms;	/* a new Kafka group waits for more members */
	int64_t		 group_min_session_timeout_ms;	/* bounds of a member's session */
	int64_t		 group_max_session_timeout_ms;
	int64_t		 group_rebalance_timeout_ms;	/* wait this long for members to rejoin */
	/* Kafka's consumer group protocol (KIP-848, shm/cgroup.h). */
	int64_t		 group_consumer_session_timeout_ms;
	int64_t		 group_consumer_heartbeat_interval_ms;
	char		 group_consumer_assignor[16];	/* "uniform" or "range" */
	uint32_t	 group_consumer_max_size;	/* members; 0: max_group_members */
	char		 group_consumer_migration_policy[16];	/* shm/cgroup.h cgroup_policy() */
	int64_t		 offsets_retention_ms;	/* an idle empty group's offsets expire; -1 never */
	int32_t		 offsets_topic_partitions;	/* __consumer_offsets when it is made */
	/* Transactions (issue 29, shm/txn.h, master/writer_txn.c). */
	uint32_t	 max_transactions;		/* transactional ids in shared memory */
	uint32_t	 max_transaction_partitions;	/* partitions per transaction */
	uint32_t	 max_transaction_offsets;	/* pending TxnOffsetCommit offsets per transaction */
	int64_t		 transaction_max_timeout_ms;	/* the largest timeout a producer may ask */
	int64_t		 transactional_id_expiration_ms; /* an idle id is forgotten */
	int32_t		 transaction_topic_partitions;	/* __transaction_state when it is made */
	int		 log_level;
	char		 metrics_listen[300];	/* "host:port" of /metrics; "" = off */
	int		 metrics_tls;		/* HTTPS with tls_cert_file, tls_key_file */
	char		 metrics_host[256];
	char		 metrics_port[16];
	char		 console_dir[PATH_MAX];	/* the web console's pages (master/console.h) */
	/* The Kafka listener (worker/kafka*.c); kafka_listen "" = off. */
	char		 kafka_listen[300];
	char		 kafka_host[256];
	char		 kafka_port[16];
	/* host:port Metadata and FindCoordinator return; "" = kafka_listen. */
	char		 kafka_advertised[300];
	char		 kafka_adv_host[256];
	int32_t		 kafka_adv_port;
	/*
	 * TLS (common/tlsctx.h): listen_tls (native) and kafka_listen_tls
	 * beside the plaintext listeners, "" = off; any listener may be off.
	 */
	char		 listen_tls[300];
	char		 listen_tls_host[256];
	char		 listen_tls_port[16];
	char		 kafka_listen_tls[300];
	char		 kafka_tls_host[256];
	char		 kafka_tls_port[16];
	/* What Metadata returns on a TLS connection (kafka_adv_* otherwise). */
	char		 kafka_tls_adv_host[256];
	int32_t		 kafka_tls_adv_port;
	char		 tls_cert_file[PATH_MAX];	/* PEM chain; "" = none */
	char		 tls_key_file[PATH_MAX];	/* PEM private key */
	char		 tls_ca_file[PATH_MAX];		/* CAs for client certificates */
	int		 tls_client_auth;	/* enum tls_client_auth */
	int		 tls_cert_user;		/* a client certificate's CN logs in */
	struct tconf	 tstatic;		/* topic keys flume.conf sets globally */
	struct topic_config *topics;		/* [topic NAME] sections */
	size_t		 ntopics;
};

/* The [topic NAME] section of name, or NULL. */
const struct topic_config *config_topic(const struct config *c, const char *name);
/*
 * A number field of struct config by its place (offset, width 4 or 8), as
 * the live block of a reload carries it (common/live.h).  config_set_field
 * returns -1 (and changes nothing) for a place outside the struct.
 */
int64_t	config_get_field(const struct config *c, size_t off, size_t width);
int	config_set_field(struct config *c, size_t off, size_t width, int64_t v);
/*
 * Kafka's ConfigSource numbers (DescribeConfigsResponse) for where a
 * topic setting comes from.
 */
enum tconf_source {
	TCS_DYNAMIC_TOPIC = 1,		/* the topic's own (topic.config) */
	TCS_STATIC_BROKER = 4,		/* flume.conf: global or [topic] section */
	TCS_DEFAULT = 5			/* the built-in default */
};
/*
 * The effective settings of topic name (NULL: the broker's, no section)
 * with its dynamic overrides dyn (NULL: none): every key into eff (all
 * set), where each came from into src[k] (enum tconf_source).
 * Precedence: dyn, the [topic] section, flume.conf's global, default.
 */
void	config_topic_tconf(const struct config *c, const char *name,
	    const struct tconf *dyn, struct tconf *eff, int8_t src[TC_NKEYS]);
/*
 * The value key k has below the dynamic level (section, global, default)
 * into *v with its source into *src; section 0 skips the section.
 */
void	config_tconf_static(const struct config *c, const struct topic_config *t,
	    enum tconf_key k, int64_t *v, int8_t *src);
/* Effective settings for a topic (its section, else the defaults). */
int32_t	config_topic_partitions(const struct config *c, const char *name);

#endif
