/*
 * flume.conf parser.  Every key is one row of conf_keys[] below: its name,
 * type, range, default and where it is stored (in struct config and, for
 * the keys a [topic NAME] section may override, in struct topic_config).
 * Defaults are written in the table as text and go through the same parser
 * as the file, so the table is the only place a default lives.
 *
 * Syntax, line by line: blank, `# comment`, `key = value` (a `#` after
 * whitespace starts a comment), `[topic NAME]`.  Keys after a section
 * header belong to that section until the next one.  A key given twice
 * keeps the last value (so a test may append overrides to a stock file).
 * Errors are "file:line: what was expected".
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <bsd/string.h>

#include "master/config.h"
#include "common/log.h"
#include "store/topic.h"

#define KB		1024LL
#define MB		(1024LL * KB)
#define GB		(1024LL * MB)
#define TB		(1024LL * GB)
#define SEC		1000LL
#define MIN		(60 * SEC)
#define HOUR		(60 * MIN)
#define DAY		(24 * HOUR)

enum conf_type {
	CT_SIZE,		/* bytes, K/M/G/T suffixes */
	CT_DURATION,		/* milliseconds, ms/s/m/h/d suffixes */
	CT_INT,
	CT_BOOL,
	CT_STRING,
	CT_LISTEN,
	CT_LOGLEVEL,
	CT_TSTYPE,		/* message_timestamp_type: create | log_append */
	CT_CLIENTAUTH,		/* none, request or require */
};

struct conf_key {
	const char	*name;
	enum conf_type	 type;
	int64_t		 min, max;	/* numbers: inclusive range */
	int		 minus1;	/* -1 is also accepted (unlimited, never) */
	const char	*def;		/* default as text; NULL: computed */
	size_t		 off;		/* field in struct config */
	size_t		 width;		/* its size (numbers: 4 or 8) */
	long		 topic_off;	/* field in struct topic_config, or -1 */
	int		 reload;	/* a SIGHUP may change it (numbers only) */
};

#define CF(f)		offsetof(struct config, f), sizeof(((struct config *)0)->f)
#define TF(f)		(long)offsetof(struct topic_config, f)
#define NOTOPIC		-1L
#define RELOAD		1	/* the reload column: a SIGHUP applies it */
#define RESTART		0	/* ... or names it as needing a restart */

static const struct conf_key conf_keys[] = {
	{ "listen", CT_LISTEN, 0, 0, 0, "127.0.0.1:9192", CF(listen), NOTOPIC, RESTART },
	{ "data_dir", CT_STRING, 0, 0, 0, "./data", CF(data_dir), NOTOPIC, RESTART },
	{ "workers", CT_INT, 1, 64, 0, NULL, CF(workers), NOTOPIC, RESTART },
	{ "partitions", CT_INT, 1, 1024, 0, "3", CF(partitions), TF(partitions), RESTART },
	{ "ring_size", CT_SIZE, 64 * KB, GB, 0, "8M", CF(ring_size), NOTOPIC, RESTART },
	{ "segment_bytes", CT_SIZE, 4 * KB, 4 * GB, 0, "1G",
	    CF(log.segment_bytes), TF(log.segment_bytes), RESTART },
	{ "index_interval_bytes", CT_SIZE, 1, GB, 0, "4K",
	    CF(log.index_interval_bytes), TF(log.index_interval_bytes), RESTART },
	{ "retention_bytes", CT_SIZE, 0, 1024 * TB, 1, "-1",
	    CF(log.retention_bytes), TF(log.retention_bytes), RELOAD },
	{ "retention_ms", CT_DURATION, 0, 36500 * DAY, 1, "7d",
	    CF(log.retention_ms), TF(log.retention_ms), RELOAD },
	{ "message_timestamp_type", CT_TSTYPE, 0, 0, 0, "create",
	    CF(log.log_append_time), TF(log.log_append_time), RESTART },
	{ "cache_window_bytes", CT_SIZE, MB, 1024 * TB, 1, "64M",
	    CF(cache_window_bytes), NOTOPIC, RESTART },
	{ "flush_interval_ms", CT_DURATION, 0, DAY, 1, "1s",
	    CF(flush_interval_ms), NOTOPIC, RELOAD },
	{ "flush_messages", CT_INT, 1, INT32_MAX, 1, "-1",
	    CF(flush_messages), NOTOPIC, RELOAD },
	{ "max_message_bytes", CT_SIZE, 64, GB, 0, "1M",
	    CF(max_message_bytes), NOTOPIC, RELOAD },
	{ "max_request_bytes", CT_SIZE, 4 * KB, 2 * GB, 0, "17M",
	    CF(max_request_bytes), NOTOPIC, RESTART },
	{ "auto_create_topics", CT_BOOL, 0, 1, 0, "yes",
	    CF(auto_create_topics), NOTOPIC, RELOAD },
	{ "max_topics", CT_INT, 1, 65536, 0, "1024", CF(max_topics), NOTOPIC, RESTART },
	{ "max_partitions", CT_INT, 1, 1048576, 0, "256",
	    CF(max_partitions), NOTOPIC, RESTART },
	{ "max_connections", CT_INT, 1, 1048576, 0, "1024",
	    CF(max_connections), NOTOPIC, RELOAD },
	{ "max_connections_total", CT_INT, 1, 1048576, 0, "4096",
	    CF(max_connections_total), NOTOPIC, RESTART },
	{ "max_connections_per_ip", CT_INT, 0, 65535, 0, "256",
	    CF(max_connections_per_ip), NOTOPIC, RELOAD },
	{ "handshake_timeout_ms", CT_DURATION, 0, DAY, 0, "10s",
	    CF(handshake_timeout_ms), NOTOPIC, RELOAD },
	{ "max_inflight_per_connection", CT_INT, 1, 65536, 0, "256",
	    CF(max_inflight_per_connection), NOTOPIC, RESTART },
	{ "max_buffered_bytes", CT_SIZE, 4 * KB, GB, 0, "4M",
	    CF(max_buffered_bytes), NOTOPIC, RESTART },
	{ "partial_frame_memory", CT_SIZE, 64 * KB, TB, 0, "256M",
	    CF(partial_frame_memory), NOTOPIC, RESTART },
	{ "partial_frame_memory_per_ip", CT_SIZE, 0, TB, 0, "64M",
	    CF(partial_frame_memory_per_ip), NOTOPIC, RESTART },
	{ "auth_file", CT_STRING, 0, 0, 0, NULL, CF(auth_file), NOTOPIC, RESTART },
	{ "auth_throttle_after", CT_INT, 0, 1000000, 0, "3",
	    CF(auth_throttle_after), NOTOPIC, RESTART },
	{ "auth_throttle_delay_ms", CT_DURATION, 0, MIN, 0, "1s",
	    CF(auth_throttle_delay_ms), NOTOPIC, RESTART },
	{ "auth_throttle_max", CT_INT, 0, 1000000, 0, "20",
	    CF(auth_throttle_max), NOTOPIC, RESTART },
	{ "client_log_interval_ms", CT_DURATION, 0, DAY, 0, "1m",
	    CF(client_log_interval_ms), NOTOPIC, RESTART },
	{ "idle_timeout_ms", CT_DURATION, 0, 36500 * DAY, 0, "10m",
	    CF(idle_timeout_ms), NOTOPIC, RELOAD },
	{ "request_timeout_ms", CT_DURATION, 1, DAY, 0, "30s",
	    CF(request_timeout_ms), NOTOPIC, RELOAD },
	{ "retention_check_ms", CT_DURATION, 1, DAY, 0, "30s",
	    CF(retention_check_ms), NOTOPIC, RELOAD },
	{ "cleaner_threads", CT_INT, 1, 1, 0, "1",
	    CF(cleaner_threads), NOTOPIC, RESTART },
	{ "cleaner_dedupe_buffer_bytes", CT_SIZE, 64 * KB, 16 * GB, 0, "128M",
	    CF(cleaner_dedupe_buffer_bytes), NOTOPIC, RESTART },
	{ "cleaner_io_max_bytes_per_second", CT_SIZE, 0, TB, 0, "0",
	    CF(cleaner_io_max_bytes_per_second), NOTOPIC, RESTART },
	{ "cleaner_backoff_ms", CT_DURATION, 1, HOUR, 0, "15s",
	    CF(cleaner_backoff_ms), NOTOPIC, RESTART },
	{ "max_groups", CT_INT, 1, 65536, 0, "64", CF(max_groups), NOTOPIC, RESTART },
	{ "max_group_members", CT_INT, 1, 1024, 0, "64",
	    CF(max_group_members), NOTOPIC, RESTART },
	{ "max_group_member_metadata", CT_SIZE, 64, MB, 0, "4K",
	    CF(max_group_member_metadata), NOTOPIC, RESTART },
	{ "group_initial_rebalance_delay_ms", CT_DURATION, 0, HOUR, 0, "3s",
	    CF(group_initial_rebalance_delay_ms), NOTOPIC, RESTART },
	{ "group_min_session_timeout_ms", CT_DURATION, 100, HOUR, 0, "1s",
	    CF(group_min_session_timeout_ms), NOTOPIC, RESTART },
	{ "group_max_session_timeout_ms", CT_DURATION, 100, HOUR, 0, "5m",
	    CF(group_max_session_timeout_ms), NOTOPIC, RESTART },
	{ "group_rebalance_timeout_ms", CT_DURATION, 100, HOUR, 0, "30s",
	    CF(group_rebalance_timeout_ms), NOTOPIC, RESTART },
	{ "group_consumer_session_timeout_ms", CT_DURATION, 100, HOUR, 0,
	    "45s", CF(group_consumer_session_timeout_ms), NOTOPIC, RESTART },
	{ "group_consumer_heartbeat_interval_ms", CT_DURATION, 100, HOUR, 0,
	    "5s", CF(group_consumer_heartbeat_interval_ms), NOTOPIC, RESTART },
	{ "group_consumer_assignor", CT_STRING, 0, 0, 0, "uniform",
	    CF(group_consumer_assignor), NOTOPIC, RESTART },
	{ "group_consumer_max_size", CT_INT, 0, 1024, 0, "0",
	    CF(group_consumer_max_size), NOTOPIC, RESTART },
	{ "group_consumer_migration_policy", CT_STRING, 0, 0, 0,
	    "bidirectional", CF(group_consumer_migration_policy), NOTOPIC,
	    RESTART },
	{ "offsets_retention", CT_DURATION, 100, 36500 * DAY, 1, "7d",
	    CF(offsets_retention_ms), NOTOPIC, RESTART },
	{ "offsets_topic_num_partitions", CT_INT, 1, 1000, 0, "50",
	    CF(offsets_topic_partitions), NOTOPIC, RESTART },
	{ "max_transactions", CT_INT, 0, 65536, 0, "256",
	    CF(max_transactions), NOTOPIC, RESTART },
	{ "max_transaction_partitions", CT_INT, 1, 100000, 0, "1024",
	    CF(max_transaction_partitions), NOTOPIC, RESTART },
	{ "max_transaction_offsets", CT_INT, 1, 100000, 0, "1024",
	    CF(max_transaction_offsets), NOTOPIC, RESTART },
	{ "transaction_max_timeout_ms", CT_DURATION, 1, 36500 * DAY, 0, "15m",
	    CF(transaction_max_timeout_ms), NOTOPIC, RESTART },
	{ "transactional_id_expiration_ms", CT_DURATION, 1, 36500 * DAY, 0,
	    "7d", CF(transactional_id_expiration_ms), NOTOPIC, RESTART },
	{ "transaction_state_log_num_partitions", CT_INT, 1, 1000, 0, "50",
	    CF(transaction_topic_partitions), NOTOPIC, RESTART },
	{ "log_level", CT_LOGLEVEL, 0, 0, 0, "info", CF(log_level), NOTOPIC, RELOAD },
	{ "metrics_listen", CT_LISTEN, 0, 0, 0, NULL, CF(metrics_listen), NOTOPIC, RESTART },
	{ "metrics_tls", CT_BOOL, 0, 1, 0, "no", CF(metrics_tls), NOTOPIC, RESTART },
	{ "console_dir", CT_STRING, 0, 0, 0, FLUME_CONSOLE_DIR, CF(console_dir),
	    NOTOPIC, RESTART },
	{ "kafka_listen", CT_LISTEN, 0, 0, 0, NULL, CF(kafka_listen), NOTOPIC, RESTART },
	{ "kafka_advertised_listener", CT_LISTEN, 0, 0, 0, NULL,
	    CF(kafka_advertised), NOTOPIC, RESTART },
	{ "listen_tls", CT_LISTEN, 0, 0, 0, NULL, CF(listen_tls), NOTOPIC, RESTART },
	{ "kafka_listen_tls", CT_LISTEN, 0, 0, 0, NULL, CF(kafka_listen_tls),
	    NOTOPIC, RESTART },
	/* Certificates are read again on SIGHUP (common/tlsctx.h), by path. */
	{ "tls_cert_file", CT_STRING, 0, 0, 0, NULL, CF(tls_cert_file), NOTOPIC, RESTART },
	{ "tls_key_file", CT_STRING, 0, 0, 0, NULL, CF(tls_key_file), NOTOPIC, RESTART },
	{ "tls_ca_file", CT_STRING, 0, 0, 0, NULL, CF(tls_ca_file), NOTOPIC, RESTART },
	{ "tls_client_auth", CT_CLIENTAUTH, 0, 0, 0, "none", CF(tls_client_auth),
	    NOTOPIC, RESTART },
	{ "tls_cert_user", CT_BOOL, 0, 1, 0, "no", CF(tls_cert_user), NOTOPIC,
	    RESTART },
};
#define NKEYS	(sizeof(conf_keys) / sizeof(conf_keys[0]))

static const char topic_keys_help[] =
    "partitions or a topic setting: retention_ms, cleanup_policy, ... "
    "or Kafka's names, see flume.conf(5)";

/* One parse in progress: where errors go and which line set each key. */
struct conf_parse {
	const char	*path;
	int		 lineno;
	char		*err;
	size_t		 errlen;
	int		 key_line[NKEYS];
};

static int
conf_error(struct conf_parse *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Write "file:line: message" (or "file: message" for line 0); returns -1. */
static int
conf_error(struct conf_parse *p, int line, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (p->errlen == 0)
		return -1;
	if (line > 0)
		n = snprintf(p->err, p->errlen, "%s:%d: ", p->path, line);
	else
		n = snprintf(p->err, p->errlen, "%s: ", p->path);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

int
config_parse_size(const char *s, uint64_t *out)
{
	uint64_t	v = 0, mult = 1;
	const char	*q = s;
	unsigned	d;

	if (!isdigit((unsigned char)*q))
		return -1;
	for (; isdigit((unsigned char)*q); q++) {
		d = (unsigned)(*q - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	switch (*q) {
	case '\0':
		break;
	case 'k': case 'K':
		mult = KB;
		q++;
		break;
	case 'm': case 'M':
		mult = MB;
		q++;
		break;
	case 'g': case 'G':
		mult = GB;
		q++;
		break;
	case 't': case 'T':
		mult = TB;
		q++;
		break;
	default:
		return -1;
	}
	if (*q != '\0')
		return -1;
	if (v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

int
config_parse_duration(const char *s, int64_t *out)
{
	int64_t		 v = 0, mult;
	const char	*q = s;
	int		 d;

	if (!isdigit((unsigned char)*q))
		return -1;
	for (; isdigit((unsigned char)*q); q++) {
		d = *q - '0';
		if (v > (INT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (*q == '\0' || strcasecmp(q, "ms") == 0)
		mult = 1;
	else if (strcasecmp(q, "s") == 0)
		mult = SEC;
	else if (strcasecmp(q, "m") == 0)
		mult = MIN;
	else if (strcasecmp(q, "h") == 0)
		mult = HOUR;
	else if (strcasecmp(q, "d") == 0)
		mult = DAY;
	else
		return -1;
	if (v > INT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

/* "64K", "8M", "1G" when exact, else the plain number, for messages. */
static const char *
fmt_size(int64_t v, char *buf, size_t size)
{
	static const struct { int64_t mult; char suffix; } u[] = {
		{ TB, 'T' }, { GB, 'G' }, { MB, 'M' }, { KB, 'K' },
	};
	size_t	i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (v > 0 && v % u[i].mult == 0) {
			snprintf(buf, size, "%lld%c", (long long)(v / u[i].mult),
			    u[i].suffix);
			return buf;
		}
	snprintf(buf, size, "%lld", (long long)v);
	return buf;
}

/* "7d", "10m", "30s", "250ms" with the largest exact unit. */
static const char *
fmt_duration(int64_t v, char *buf, size_t size)
{
	static const struct { int64_t mult; const char *suffix; } u[] = {
		{ DAY, "d" }, { HOUR, "h" }, { MIN, "m" }, { SEC, "s" },
	};
	size_t	i;

	if (v == 0) {
		snprintf(buf, size, "0");
		return buf;
	}
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (v > 0 && v % u[i].mult == 0) {
			snprintf(buf, size, "%lld%s", (long long)(v / u[i].mult),
			    u[i].suffix);
			return buf;
		}
	snprintf(buf, size, "%lldms", (long long)v);
	return buf;
}

static const char *
fmt_value(const struct conf_key *k, int64_t v, char *buf, size_t size)
{
	if (k->type == CT_SIZE)
		return fmt_size(v, buf, size);
	if (k->type == CT_DURATION)
		return fmt_duration(v, buf, size);
	snprintf(buf, size, "%lld", (long long)v);
	return buf;
}

/* Store a range-checked number into a 4- or 8-byte field. */
static void
conf_store_num(void *field, size_t width, int64_t v)
{
	uint32_t	v32;
	uint64_t	v64;

	if (width == 4) {
		v32 = (uint32_t)v;
		memcpy(field, &v32, sizeof(v32));
	} else {
		v64 = (uint64_t)v;
		memcpy(field, &v64, sizeof(v64));
	}
}

/* Which host:port key conf_set_listen() sets. */
enum conf_listen { CL_MAIN, CL_METRICS, CL_KAFKA, CL_KAFKA_ADV, CL_TLS,
	CL_KAFKA_TLS };

static int
conf_listen_which(const struct conf_key *k)
{
	if (k->off == offsetof(struct config, metrics_listen))
		return CL_METRICS;
	if (k->off == offsetof(struct config, kafka_listen))
		return CL_KAFKA;
	if (k->off == offsetof(struct config, kafka_advertised))
		return CL_KAFKA_ADV;
	if (k->off == offsetof(struct config, listen_tls))
		return CL_TLS;
	if (k->off == offsetof(struct config, kafka_listen_tls))
		return CL_KAFKA_TLS;
	return CL_MAIN;
}

/* The three fields ("host:port", host, port) a listener key fills. */
struct conf_addr {
	char	*text, *host, *port;
	size_t	 textlen, hostlen, portlen;
};

#define CONF_ADDR(t, h, p)	\
	(struct conf_addr){ (t), (h), (p), sizeof(t), sizeof(h), sizeof(p) }

static struct conf_addr
conf_addr_of(struct config *c, int which)
{
	switch (which) {
	case CL_METRICS:
		return CONF_ADDR(c->metrics_listen, c->metrics_host,
		    c->metrics_port);
	case CL_KAFKA:
		return CONF_ADDR(c->kafka_listen, c->kafka_host, c->kafka_port);
	case CL_TLS:
		return CONF_ADDR(c->listen_tls, c->listen_tls_host,
		    c->listen_tls_port);
	case CL_KAFKA_TLS:
		return CONF_ADDR(c->kafka_listen_tls, c->kafka_tls_host,
		    c->kafka_tls_port);
	default:
		return CONF_ADDR(c->listen, c->listen_host, c->listen_port);
	}
}

/* A wildcard address, which no client can be told to connect to. */
static int
conf_host_wildcard(const char *h)
{
	return strcmp(h, "0.0.0.0") == 0 || strcmp(h, "::") == 0 ||
	    strcmp(h, "*") == 0;
}

/*
 * Split "host:port" / "[v6]:port" into the fields of the key `which`
 * (enum conf_listen); "*" means every address (not for the advertised
 * Kafka address, which clients connect to).
 */
static int
conf_set_listen(struct config *c, int which, const char *v)
{
	char		 host[256];
	const char	*port, *end;
	size_t		 hlen;
	struct in6_addr	 a6;
	struct conf_addr a;
	long		 n;
	char		*ep;

	if (v[0] == '[') {
		end = strchr(v, ']');
		if (end == NULL || end[1] != ':')
			return -1;
		hlen = (size_t)(end - v - 1);
		if (hlen == 0 || hlen >= sizeof(host))
			return -1;
		memcpy(host, v + 1, hlen);
		host[hlen] = '\0';
		if (inet_pton(AF_INET6, host, &a6) != 1)
			return -1;
		port = end + 2;
	} else {
		end = strrchr(v, ':');
		if (end == NULL)
			return -1;
		hlen = (size_t)(end - v);
		if (hlen == 0 || hlen >= sizeof(host))
			return -1;
		memcpy(host, v, hlen);
		host[hlen] = '\0';
		if (strcmp(host, "*") == 0)
			strlcpy(host, "0.0.0.0", sizeof(host));
		else if (strspn(host, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != hlen)
			return -1;
		port = end + 1;
	}
	if (!isdigit((unsigned char)port[0]) || strlen(port) > 5)
		return -1;
	errno = 0;
	n = strtol(port, &ep, 10);
	if (*ep != '\0' || n < 0 || n > 65535)
		return -1;
	if (which == CL_KAFKA_ADV) {
		if (conf_host_wildcard(host) || n == 0 ||
		    strlcpy(c->kafka_advertised, v, sizeof(c->kafka_advertised)) >=
		    sizeof(c->kafka_advertised))
			return -1;
		strlcpy(c->kafka_adv_host, host, sizeof(c->kafka_adv_host));
		c->kafka_adv_port = (int32_t)n;
		return 0;
	}
	a = conf_addr_of(c, which);
	if (strlcpy(a.text, v, a.textlen) >= a.textlen)
		return -1;
	strlcpy(a.host, host, a.hostlen);
	snprintf(a.port, a.portlen, "%ld", n);
	return 0;
}

static const char *
conf_expected(enum conf_type t)
{
	switch (t) {
	case CT_SIZE:
		return "a size such as 4096, 64K, 8M or 1G";
	case CT_DURATION:
		return "a duration such as 250ms, 30s, 5m, 1h or 7d";
	case CT_INT:
		return "an integer";
	case CT_BOOL:
		return "yes or no";
	case CT_LISTEN:
		return "host:port or [ipv6-address]:port";
	case CT_LOGLEVEL:
		return "error, warn, info or debug";
	case CT_TSTYPE:
		return "create or log_append";
	case CT_CLIENTAUTH:
		return "none, request or require";
	case CT_STRING:
		break;
	}
	return "a non-empty string";
}

/*
 * Parse value for key k and store it at base + off (base is a struct config
 * or a struct topic_config).  -1 with the message in p on a bad value.
 */
static int
conf_set(struct conf_parse *p, const struct conf_key *k, void *base, size_t off,
    struct config *c, const char *value)
{
	char		 lo[32], hi[32];
	uint64_t	 u;
	int64_t		 v = 0;
	long long	 ll;
	char		*ep;
	int		 b;

	switch (k->type) {
	case CT_STRING:
		if (value[0] == '\0' ||
		    strlcpy((char *)base + off, value, k->width) >= k->width)
			return conf_error(p, p->lineno,
			    "bad value for %s: expected a path of 1 to %zu bytes",
			    k->name, k->width - 1);
		return 0;
	case CT_LISTEN:
		b = conf_listen_which(k);
		/*
		 * Any listener may be off (or no): metrics_listen disables
		 * the metrics child, listen the plaintext native listener
		 * (so a broker may serve TLS only), and so on.  Whether one
		 * client listener is left is conf_crosscheck()'s question.
		 */
		if (b != CL_KAFKA_ADV && (strcasecmp(value, "off") == 0 ||
		    strcasecmp(value, "no") == 0)) {
			struct conf_addr a = conf_addr_of(c, b);

			a.text[0] = a.host[0] = a.port[0] = '\0';
			return 0;
		}
		if (conf_set_listen(c, b, value) == -1)
			return conf_error(p, p->lineno,
			    "bad value '%s' for %s: expected %s%s", value, k->name,
			    b == CL_KAFKA_ADV ? "host:port that clients can "
			    "connect to (not a wildcard, not port 0)" :
			    conf_expected(k->type),
			    b != CL_KAFKA_ADV ? " or off" : "");
		return 0;
	case CT_CLIENTAUTH:
		if (strcmp(value, "none") == 0)
			b = TLS_CLIENT_NONE;
		else if (strcmp(value, "request") == 0)
			b = TLS_CLIENT_REQUEST;
		else if (strcmp(value, "require") == 0)
			b = TLS_CLIENT_REQUIRE;
		else
			return conf_error(p, p->lineno,
			    "bad value '%s' for %s: expected %s", value, k->name,
			    conf_expected(k->type));
		conf_store_num((char *)base + off, k->width, b);
		return 0;
	case CT_LOGLEVEL:
		if ((b = log_level_parse(value)) == -1)
			return conf_error(p, p->lineno,
			    "bad value '%s' for %s: expected %s", value, k->name,
			    conf_expected(k->type));
		conf_store_num((char *)base + off, k->width, b);
		return 0;
	case CT_TSTYPE:
		/* Kafka's names too: CreateTime, LogAppendTime. */
		if (strcasecmp(value, "create") == 0 ||
		    strcasecmp(value, "CreateTime") == 0)
			b = 0;
		else if (strcasecmp(value, "log_append") == 0 ||
		    strcasecmp(value, "LogAppendTime") == 0)
			b = 1;
		else
			return conf_error(p, p->lineno,
			    "bad value '%s' for %s: expected %s", value, k->name,
			    conf_expected(k->type));
		conf_store_num((char *)base + off, k->width, b);
		return 0;
	case CT_BOOL:
		if (strcasecmp(value, "yes") == 0 || strcasecmp(value, "true") == 0 ||
		    strcasecmp(value, "on") == 0 || strcmp(value, "1") == 0)
			b = 1;
		else if (strcasecmp(value, "no") == 0 ||
		    strcasecmp(value, "false") == 0 ||
		    strcasecmp(value, "off") == 0 || strcmp(value, "0") == 0)
			b = 0;
		else
			return conf_error(p, p->lineno,
			    "bad value '%s' for %s: expected %s", value, k->name,
			    conf_expected(k->type));
		conf_store_num((char *)base + off, k->width, b);
		return 0;
	case CT_INT:
	case CT_SIZE:
	case CT_DURATION:
		break;
	}

	if (k->minus1 && strcmp(value, "-1") == 0)
		v = -1;
	else if (k->type == CT_INT) {
		errno = 0;
		ll = strtoll(value, &ep, 10);
		if (ep == value || *ep != '\0' || errno == ERANGE)
			return conf_error(p, p->lineno,
			    "bad value '%s' for %s: expected %s", value, k->name,
			    conf_expected(k->type));
		v = ll;
	} else if (k->type == CT_SIZE) {
		if (config_parse_size(value, &u) == -1 || u > INT64_MAX)
			return conf_error(p, p->lineno,
			    "bad value '%s' for %s: expected %s", value, k->name,
			    conf_expected(k->type));
		v = (int64_t)u;
	} else {
		if (config_parse_duration(value, &v) == -1)
			return conf_error(p, p->lineno,
			    "bad value '%s' for %s: expected %s", value, k->name,
			    conf_expected(k->type));
	}
	if (v != -1 || !k->minus1) {
		if (v < k->min || v > k->max)
			return conf_error(p, p->lineno,
			    "%s = %s is out of range: expected %s%s..%s",
			    k->name, value, k->minus1 ? "-1 or " : "",
			    fmt_value(k, k->min, lo, sizeof(lo)),
			    fmt_value(k, k->max, hi, sizeof(hi)));
	}
	if (strcmp(k->name, "ring_size") == 0 && v % 8 != 0)
		return conf_error(p, p->lineno,
		    "ring_size = %s must be a multiple of 8", value);
	conf_store_num((char *)base + off, k->width, v);
	return 0;
}

static const struct conf_key *
conf_key_find(const char *name, size_t *idx)
{
	size_t	i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(conf_keys[i].name, name) == 0) {
			if (idx != NULL)
				*idx = i;
			return &conf_keys[i];
		}
	return NULL;
}

static int
online_cpus(void)
{
	long	n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if (n > 64)
		return 64;
	return (int)n;
}

void
config_defaults(struct config *c)
{
	struct conf_parse	 p;
	size_t			 i;

	memset(c, 0, sizeof(*c));
	memset(&p, 0, sizeof(p));
	p.path = "(defaults)";
	for (i = 0; i < NKEYS; i++) {
		if (conf_keys[i].def == NULL)
			continue;
		/* The defaults are in range by construction (test_config). */
		(void)conf_set(&p, &conf_keys[i], c, conf_keys[i].off, c,
		    conf_keys[i].def);
	}
	c->workers = online_cpus();
}

void
config_free(struct config *c)
{
	free(c->topics);
	c->topics = NULL;
	c->ntopics = 0;
}

static char *
trim(char *s)
{
	char	*e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "[topic NAME]": start a section whose log settings begin as the globals. */
static int
conf_section(struct conf_parse *p, struct config *c, char *line, const int *lines)
{
	struct topic_config	*t;
	char			*in, *end, *name;
	size_t			 i;

	end = line + strlen(line) - 1;
	if (*end != ']')
		return conf_error(p, p->lineno,
		    "expected '[topic NAME]': missing ']'");
	*end = '\0';
	in = trim(line + 1);
	if (strncmp(in, "topic", 5) != 0 || !isspace((unsigned char)in[5]))
		return conf_error(p, p->lineno,
		    "expected '[topic NAME]', got '[%s]'", in);
	name = trim(in + 5);
	if (!topic_name_valid(name, strlen(name)))
		return conf_error(p, p->lineno,
		    "invalid topic name '%s': expected 1 to %d of A-Z a-z 0-9 . _ -",
		    name, TOPIC_NAME_MAX);
	if (topic_name_reserved(name, strlen(name)))
		return conf_error(p, p->lineno,
		    "topic name '%s' is reserved for the broker's own use",
		    name);
	for (i = 0; i < c->ntopics; i++)
		if (strcmp(c->topics[i].name, name) == 0)
			return conf_error(p, p->lineno,
			    "duplicate section [topic %s] (first at line %d)",
			    name, lines[i]);
	t = reallocarray(c->topics, c->ntopics + 1, sizeof(*t));
	if (t == NULL)
		return conf_error(p, p->lineno, "out of memory");
	c->topics = t;
	t = &c->topics[c->ntopics];
	memset(t, 0, sizeof(*t));
	strlcpy(t->name, name, sizeof(t->name));
	t->log = c->log;
	return 0;
}

/* The line that last set key, 0 if it kept its default. */
static int
conf_line(const struct conf_parse *p, const char *key)
{
	size_t	i;

	if (conf_key_find(key, &i) == NULL)
		return 0;
	return p->key_line[i];
}

/* The later of the lines that set two keys: where a conflict shows. */
static int
conf_line2(const struct conf_parse *p, const char *k1, const char *k2)
{
	int	a = conf_line(p, k1), b = conf_line(p, k2);

	return a > b ? a : b;
}

/* The checks that involve more than one key, after the whole file is read. */
static int
conf_crosscheck(struct conf_parse *p, struct config *c, const int *tlines)
{
	char		 a[32], b[32];
	size_t		 i;
	uint64_t	 total;

	if ((uint64_t)c->max_message_bytes > c->ring_size / 2)
		return conf_error(p,
		    conf_line2(p, "max_message_bytes", "ring_size"),
		    "max_message_bytes (%s) must be at most half of ring_size (%s)",
		    fmt_size(c->max_message_bytes, a, sizeof(a)),
		    fmt_size((int64_t)c->ring_size, b, sizeof(b)));
	if ((uint64_t)c->max_message_bytes + 1024 > c->max_request_bytes)
		return conf_error(p,
		    conf_line2(p, "max_message_bytes", "max_request_bytes"),
		    "max_message_bytes (%s) must be at most max_request_bytes (%s) "
		    "minus 1K", fmt_size(c->max_message_bytes, a, sizeof(a)),
		    fmt_size(c->max_request_bytes, b, sizeof(b)));
	if (c->group_min_session_timeout_ms > c->group_max_session_timeout_ms)
		return conf_error(p, conf_line2(p, "group_min_session_timeout_ms",
		    "group_max_session_timeout_ms"),
		    "group_min_session_timeout_ms (%s) must be at most "
		    "group_max_session_timeout_ms (%s)",
		    fmt_duration(c->group_min_session_timeout_ms, a, sizeof(a)),
		    fmt_duration(c->group_max_session_timeout_ms, b, sizeof(b)));
	if (strcmp(c->group_consumer_assignor, "uniform") != 0 &&
	    strcmp(c->group_consumer_assignor, "range") != 0)
		return conf_error(p, conf_line(p, "group_consumer_assignor"),
		    "group_consumer_assignor must be uniform or range, not %s",
		    c->group_consumer_assignor);
	if (strcasecmp(c->group_consumer_migration_policy, "bidirectional") != 0 &&
	    strcasecmp(c->group_consumer_migration_policy, "upgrade") != 0 &&
	    strcasecmp(c->group_consumer_migration_policy, "downgrade") != 0 &&
	    strcasecmp(c->group_consumer_migration_policy, "disabled") != 0)
		return conf_error(p, conf_line(p,
		    "group_consumer_migration_policy"),
		    "group_consumer_migration_policy must be bidirectional, "
		    "upgrade, downgrade or disabled, not %s",
		    c->group_consumer_migration_policy);
	if (c->group_consumer_heartbeat_interval_ms >=
	    c->group_consumer_session_timeout_ms)
		return conf_error(p, conf_line2(p,
		    "group_consumer_heartbeat_interval_ms",
		    "group_consumer_session_timeout_ms"),
		    "group_consumer_heartbeat_interval_ms (%s) must be below "
		    "group_consumer_session_timeout_ms (%s)",
		    fmt_duration(c->group_consumer_heartbeat_interval_ms, a,
		    sizeof(a)), fmt_duration(c->group_consumer_session_timeout_ms,
		    b, sizeof(b)));
	if ((uint32_t)c->partitions > c->max_partitions)
		return conf_error(p, conf_line2(p, "partitions", "max_partitions"),
		    "partitions (%d) must be at most max_partitions (%u)",
		    c->partitions, c->max_partitions);
	if (c->kafka_listen[0] != '\0' && c->kafka_advertised[0] == '\0') {
		/* Clients are told to connect where the listener is. */
		if (conf_host_wildcard(c->kafka_host) ||
		    strcmp(c->kafka_port, "0") == 0)
			return conf_error(p, conf_line(p, "kafka_listen"),
			    "kafka_listen %s is not an address clients can "
			    "connect to: set kafka_advertised_listener",
			    c->kafka_listen);
		strlcpy(c->kafka_adv_host, c->kafka_host,
		    sizeof(c->kafka_adv_host));
		c->kafka_adv_port = (int32_t)strtol(c->kafka_port, NULL, 10);
	}
	if (c->kafka_listen_tls[0] != '\0') {
		/*
		 * A TLS client is sent back to the TLS port: on the
		 * advertised host when one is set, else where it listens.
		 */
		if (c->kafka_advertised[0] != '\0')
			strlcpy(c->kafka_tls_adv_host, c->kafka_adv_host,
			    sizeof(c->kafka_tls_adv_host));
		else if (conf_host_wildcard(c->kafka_tls_host) ||
		    strcmp(c->kafka_tls_port, "0") == 0)
			return conf_error(p, conf_line(p, "kafka_listen_tls"),
			    "kafka_listen_tls %s is not an address clients can "
			    "connect to: set kafka_advertised_listener",
			    c->kafka_listen_tls);
		else
			strlcpy(c->kafka_tls_adv_host, c->kafka_tls_host,
			    sizeof(c->kafka_tls_adv_host));
		c->kafka_tls_adv_port = (int32_t)strtol(c->kafka_tls_port,
		    NULL, 10);
	}
	if (c->listen[0] == '\0' && c->listen_tls[0] == '\0' &&
	    c->kafka_listen[0] == '\0' && c->kafka_listen_tls[0] == '\0')
		return conf_error(p, conf_line(p, "listen"),
		    "every listener is off: set listen, listen_tls, "
		    "kafka_listen or kafka_listen_tls");
	if ((c->listen_tls[0] != '\0' || c->kafka_listen_tls[0] != '\0') &&
	    (c->tls_cert_file[0] == '\0' || c->tls_key_file[0] == '\0'))
		return conf_error(p, conf_line2(p, "listen_tls",
		    "kafka_listen_tls"), "a TLS listener needs tls_cert_file "
		    "and tls_key_file");
	if (c->metrics_tls && (c->tls_cert_file[0] == '\0' ||
	    c->tls_key_file[0] == '\0'))
		return conf_error(p, conf_line(p, "metrics_tls"),
		    "metrics_tls needs tls_cert_file and tls_key_file");
	if (c->tls_client_auth != TLS_CLIENT_NONE && c->tls_ca_file[0] == '\0')
		return conf_error(p, conf_line(p, "tls_client_auth"),
		    "tls_client_auth needs tls_ca_file (the CAs that sign "
		    "client certificates)");
	/* The CN names a user: without users or certificates it names none. */
	if (c->tls_cert_user && (c->tls_client_auth == TLS_CLIENT_NONE ||
	    c->auth_file[0] == '\0'))
		return conf_error(p, conf_line(p, "tls_cert_user"),
		    "tls_cert_user needs tls_client_auth request or require "
		    "and an auth_file");
	if (c->ntopics > c->max_topics)
		return conf_error(p, tlines[c->max_topics],
		    "too many [topic] sections: max_topics is %u", c->max_topics);
	total = 0;
	for (i = 0; i < c->ntopics; i++) {
		total += (uint64_t)config_topic_partitions(c, c->topics[i].name);
		if (total > c->max_partitions)
			return conf_error(p, tlines[i],
			    "[topic %s]: the topic sections need more than "
			    "max_partitions (%u) partitions", c->topics[i].name,
			    c->max_partitions);
	}
	return 0;
}

/* A number field (width 4: int32, 8: int64) at base + off. */
static int64_t
conf_field_num(const void *base, size_t off, size_t width)
{
	int32_t v32;
	int64_t v64;

	if (width == sizeof(v32)) {
		memcpy(&v32, (const char *)base + off, sizeof(v32));
		return v32;
	}
	memcpy(&v64, (const char *)base + off, sizeof(v64));
	return v64;
}

/*
 * A topic key's value in the topic set's form (tconf.h) from the number
 * its flume.conf key stored: flume's -1 ("never") of the flush keys is
 * Kafka's Long.MAX_VALUE.
 */
static int64_t
conf_tconf_value(enum tconf_key tk, int64_t v)
{
	if ((tk == TC_FLUSH_MESSAGES || tk == TC_FLUSH_MS) && v < 0)
		return INT64_MAX;
	if (tk == TC_TS_TYPE)
		return v ? TCONF_TS_LOG_APPEND : TCONF_TS_CREATE;
	return v;
}

/* A topic key flume.conf has no key of its own for (cleanup_policy...). */
static int
conf_tconf_only(struct conf_parse *p, struct tconf *t, enum tconf_key tk,
    const char *value)
{
	char why[192];
	int64_t v;

	if (tconf_parse(tk, value, strlen(value), &v, why, sizeof(why)) == -1)
		return conf_error(p, p->lineno, "%s", why);
	tconf_put(t, tk, v);
	return 0;
}

/*
 * A global flume.conf key (k, a NOTOPIC one) in a [topic] section: parsed
 * as the global would be (suffixes, range), kept in the section's set.
 */
static int
conf_tconf_parsed(struct conf_parse *p, const struct conf_key *k,
    struct tconf *t, enum tconf_key tk, struct config *c, const char *value)
{
	struct config *scratch;
	int rc = -1;

	if ((scratch = calloc(1, sizeof(*scratch))) == NULL)
		return conf_error(p, p->lineno, "out of memory");
	if (conf_set(p, k, scratch, k->off, c, value) == 0) {
		tconf_put(t, tk, conf_tconf_value(tk,
		    conf_field_num(scratch, k->off, k->width)));
		rc = 0;
	}
	free(scratch);
	return rc;
}

int
config_load(struct config *c, const char *path, char *err, size_t errlen)
{
	struct conf_parse	 p;
	const struct conf_key	*k;
	struct topic_config	*cur = NULL;
	FILE			*f;
	char			*buf = NULL, *line, *eq, *key, *value, *hash;
	size_t			 bufsz = 0, idx;
	ssize_t			 len;
	int			*tlines = NULL, *nl, rc = -1, tmapped;
	enum tconf_key		 tk = TC_CLEANUP_POLICY;

	config_defaults(c);
	memset(&p, 0, sizeof(p));
	p.path = path;
	p.err = err;
	p.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	if (strlcpy(c->path, path, sizeof(c->path)) >= sizeof(c->path)) {
		errno = ENAMETOOLONG;
		return conf_error(&p, 0, "%s", strerror(errno));
	}
	if ((f = fopen(path, "r")) == NULL)
		return conf_error(&p, 0, "%s", strerror(errno));

	while ((len = getline(&buf, &bufsz, f)) != -1) {
		p.lineno++;
		if ((size_t)len != strlen(buf)) {
			conf_error(&p, p.lineno, "unexpected NUL byte");
			goto out;
		}
		line = trim(buf);
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (line[0] == '[') {
			/* Drop a trailing comment after the ']'. */
			hash = strchr(line, ']');
			if (hash != NULL && hash[1] != '\0' &&
			    trim(hash + 1)[0] == '#')
				hash[1] = '\0';
			nl = reallocarray(tlines, c->ntopics + 1, sizeof(*nl));
			if (nl == NULL) {
				conf_error(&p, p.lineno, "out of memory");
				goto out;
			}
			tlines = nl;
			tlines[c->ntopics] = p.lineno;
			if (conf_section(&p, c, line, tlines) == -1)
				goto out;
			cur = &c->topics[c->ntopics++];
			continue;
		}
		if ((eq = strchr(line, '=')) == NULL) {
			conf_error(&p, p.lineno,
			    "expected 'key = value': missing '=' after '%s'", line);
			goto out;
		}
		*eq = '\0';
		key = trim(line);
		value = eq + 1;
		/* A '#' after whitespace starts a comment. */
		for (hash = value; (hash = strchr(hash, '#')) != NULL; hash++)
			if (hash == value || isspace((unsigned char)hash[-1])) {
				*hash = '\0';
				break;
			}
		value = trim(value);
		if (key[0] == '\0') {
			conf_error(&p, p.lineno, "expected a key before '='");
			goto out;
		}
		/*
		 * A topic key by Kafka's topic or broker name is the
		 * flume.conf key of that setting (log.retention.ms is
		 * retention_ms); a topic key flume.conf had no key for
		 * lives in the topic set only (conf_tconf_only).
		 */
		tmapped = tconf_key_find_conf(key, &tk) == 0;
		if ((k = conf_key_find(key, &idx)) == NULL && tmapped)
			k = conf_key_find(tconf_defs[tk].flume, &idx);
		if (k == NULL && !tmapped) {
			conf_error(&p, p.lineno, "unknown key '%s'", key);
			goto out;
		}
		if (value[0] == '\0') {
			conf_error(&p, p.lineno, "missing value for '%s'", key);
			goto out;
		}
		if (k == NULL) {
			if (conf_tconf_only(&p, cur != NULL ? &cur->tc :
			    &c->tstatic, tk, value) == -1)
				goto out;
			continue;
		}
		if (k->type == CT_STRING && strlen(value) >= 2 &&
		    value[0] == '"' && value[strlen(value) - 1] == '"') {
			value[strlen(value) - 1] = '\0';
			value++;
		}
		if (cur != NULL && tmapped && k->topic_off < 0) {
			/* flush_messages, max_message_bytes...: the topic set only. */
			if (conf_tconf_parsed(&p, k, &cur->tc, tk, c, value) == -1)
				goto out;
		} else if (cur != NULL) {
			if (k->topic_off < 0) {
				conf_error(&p, p.lineno,
				    "key '%s' is not allowed in a [topic] section "
				    "(expected one of %s)", key, topic_keys_help);
				goto out;
			}
			if (conf_set(&p, k, cur, (size_t)k->topic_off, c,
			    value) == -1)
				goto out;
			if (tmapped)
				tconf_put(&cur->tc, tk, conf_tconf_value(tk,
				    conf_field_num(cur, (size_t)k->topic_off,
				    k->width)));
		} else {
			if (conf_set(&p, k, c, k->off, c, value) == -1)
				goto out;
			p.key_line[idx] = p.lineno;
			if (tmapped)
				tconf_put(&c->tstatic, tk, conf_tconf_value(tk,
				    conf_field_num(c, k->off, k->width)));
		}
	}
	if (ferror(f)) {
		conf_error(&p, p.lineno, "read error: %s", strerror(errno));
		goto out;
	}
	if (conf_crosscheck(&p, c, tlines) == -1)
		goto out;
	rc = 0;
out:
	free(buf);
	free(tlines);
	fclose(f);
	if (rc == -1) {
		config_free(c);
		errno = EINVAL;
	}
	return rc;
}

/* 1 when key k holds the same value in a and b. */
static int
conf_key_same(const struct conf_key *k, const struct config *a,
    const struct config *b)
{
	const char *fa = (const char *)a + k->off, *fb = (const char *)b + k->off;

	if (k->type == CT_STRING || k->type == CT_LISTEN)
		return strncmp(fa, fb, k->width) == 0;
	return memcmp(fa, fb, k->width) == 0;
}

int
config_diff(const struct config *a, const struct config *b,
    void (*fn)(const char *key, void *arg), void *arg)
{
	const struct topic_config *ta, *tb;
	char name[TOPIC_NAME_MAX + 16];
	size_t i;
	int n = 0;

	for (i = 0; i < NKEYS; i++) {
		if (conf_key_same(&conf_keys[i], a, b))
			continue;
		fn(conf_keys[i].name, arg);
		n++;
	}
	/* The topic keys flume.conf has no conf_keys row for. */
	for (i = 0; i < TC_NKEYS; i++) {
		if (conf_key_find(tconf_defs[i].flume, NULL) != NULL ||
		    (tconf_has(&a->tstatic, (enum tconf_key)i) ==
		    tconf_has(&b->tstatic, (enum tconf_key)i) &&
		    a->tstatic.v[i] == b->tstatic.v[i]))
			continue;
		fn(tconf_defs[i].flume, arg);
		n++;
	}
	/* Sections: compare by name, so reordering them is no change. */
	for (i = 0; i < a->ntopics + b->ntopics; i++) {
		ta = i < a->ntopics ? &a->topics[i] : NULL;
		tb = i < a->ntopics ? config_topic(b, ta->name) :
		    &b->topics[i - a->ntopics];
		if (ta == NULL && config_topic(a, tb->name) != NULL)
			continue;	/* present in both: seen from a's side */
		if (ta != NULL && tb != NULL &&
		    ta->partitions == tb->partitions &&
		    ta->log.segment_bytes == tb->log.segment_bytes &&
		    ta->log.index_interval_bytes == tb->log.index_interval_bytes &&
		    ta->log.retention_bytes == tb->log.retention_bytes &&
		    ta->log.retention_ms == tb->log.retention_ms &&
		    ta->log.log_append_time == tb->log.log_append_time &&
		    memcmp(&ta->tc, &tb->tc, sizeof(ta->tc)) == 0)
			continue;
		snprintf(name, sizeof(name), "[topic %s]",
		    ta != NULL ? ta->name : tb->name);
		fn(name, arg);
		n++;
	}
	return n;
}

void
config_topic_log(const struct config *c, const char *name, struct plog_config *out)
{
	const struct topic_config	*t = config_topic(c, name);
	const struct log_settings	*l = t != NULL ? &t->log : &c->log;

	out->segment_bytes = l->segment_bytes;
	out->index_interval_bytes = l->index_interval_bytes;
	out->retention_bytes = l->retention_bytes;
	out->retention_ms = l->retention_ms;
	out->segment_ms = 0;
	out->cache_window = c->cache_window_bytes < 0 ? 0 :
	    (uint64_t)c->cache_window_bytes;
}

int
config_key_reloadable(const char *key)
{
	size_t	i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(conf_keys[i].name, key) == 0)
			return conf_keys[i].reload;
	return 0;
}

size_t
config_reloadable(struct config_field *out, size_t max)
{
	size_t	i, n = 0;

	for (i = 0; i < NKEYS; i++) {
		if (!conf_keys[i].reload)
			continue;
		if (n < max) {
			out[n].name = conf_keys[i].name;
			out[n].off = conf_keys[i].off;
			out[n].width = conf_keys[i].width;
		}
		n++;
	}
	return n;
}

void
config_copy_reloadable(struct config *dst, const struct config *src)
{
	size_t	i;

	for (i = 0; i < NKEYS; i++)
		if (conf_keys[i].reload)
			memcpy((char *)dst + conf_keys[i].off,
			    (const char *)src + conf_keys[i].off,
			    conf_keys[i].width);
}
