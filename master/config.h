/*
 * flume.conf: `key = value` lines, `#` comments, and `[topic NAME]`
 * sections that override partitions and the log settings for one topic.
 * Every key is described once in the table in config.c (name, type, min,
 * max, default); sizes accept K/M/G suffixes, durations ms/s/m/h/d.
 * Errors are "file:line: message".
 */
#ifndef FLUME_MASTER_CONFIG_H
#define FLUME_MASTER_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"
#include "store/plog.h"

struct topic_config {
	char		 name[TOPIC_NAME_MAX + 1];
	int32_t		 partitions;		/* 0 = the global default */
	struct plog_config log;			/* filled with the effective values */
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
	struct plog_config log;			/* segment, index, retention defaults */
	int64_t		 flush_interval_ms;	/* fdatasync at least this often; -1 never */
	int64_t		 flush_messages;	/* ... or after this many messages; -1 never */
	uint32_t	 max_message_bytes;	/* largest record batch accepted */
	uint32_t	 max_request_bytes;	/* largest frame accepted */
	int		 auto_create_topics;
	uint32_t	 max_topics;
	uint32_t	 max_partitions;
	uint32_t	 max_connections;	/* per worker */
	uint32_t	 max_connections_total;	/* over all workers */
	uint32_t	 max_inflight_per_connection; /* requests queued per connection */
	uint64_t	 max_buffered_bytes;	/* output held per connection before reading stops */
	char		 auth_file[PATH_MAX];	/* user:secret:permissions lines; "" = no auth */
	int64_t		 idle_timeout_ms;	/* drop a connection silent this long; 0 never */
	int64_t		 request_timeout_ms;	/* a half-sent frame older than this is dropped */
	int64_t		 retention_check_ms;	/* how often the writer applies retention */
	uint32_t	 max_groups;		/* consumer groups in shared memory */
	uint32_t	 max_group_members;	/* members per group */
	int64_t		 group_min_session_timeout_ms;	/* bounds of a member's session */
	int64_t		 group_max_session_timeout_ms;
	int64_t		 group_rebalance_timeout_ms;	/* wait this long for members to rejoin */
	int		 log_level;
	char		 metrics_listen[300];	/* "host:port" of /metrics; "" = off */
	char		 metrics_host[256];
	char		 metrics_port[16];
	/* The Kafka listener (worker/kafka*.c); kafka_listen "" = off. */
	char		 kafka_listen[300];
	char		 kafka_host[256];
	char		 kafka_port[16];
	/* host:port Metadata and FindCoordinator return; "" = kafka_listen. */
	char		 kafka_advertised[300];
	char		 kafka_adv_host[256];
	int32_t		 kafka_adv_port;
	struct topic_config *topics;		/* [topic NAME] sections */
	size_t		 ntopics;
};

/* Defaults for everything; data_dir "./data", listen 127.0.0.1:9192. */
void	config_defaults(struct config *c);
/*
 * Read path into c (over the defaults).  0, or -1 with a
 * "file:line: message" in err.
 */
int	config_load(struct config *c, const char *path, char *err, size_t errlen);
void	config_free(struct config *c);
/*
 * Call fn(key, arg) for every global key whose value differs between a
 * and b, in table order; "[topic NAME]" for a topic section that was
 * added, removed or changed.  Returns the number of differences.
 */
int	config_diff(const struct config *a, const struct config *b,
	    void (*fn)(const char *key, void *arg), void *arg);
/* Effective settings for a topic (its section, else the defaults). */
int32_t	config_topic_partitions(const struct config *c, const char *name);
void	config_topic_log(const struct config *c, const char *name, struct plog_config *out);
/* Parse "64K"/"8M"/"1G"/"123" -> bytes; "250ms"/"5s"/"7d" -> ms. 0 or -1. */
int	config_parse_size(const char *s, uint64_t *out);
int	config_parse_duration(const char *s, int64_t *out);

#endif
