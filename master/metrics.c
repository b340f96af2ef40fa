/*
 * The metrics child (see master/metrics.h).
 *
 * libmicrohttpd runs a pool of METRICS_THREADS polling threads that
 * accept and serve the scrapes and the console (master/console.h); each
 * scrape takes a fresh snapshot of the region and renders it.  The main
 * thread only waits: for SIGTERM (stop), for its eventfd (a reload was
 * published: apply the new log level, take a new auth table) and, once
 * a second, checks that the master is still there and takes the
 * console's samples when due.  The stop signals are blocked before the
 * HTTP threads start, so they reach the main thread's ppoll and nothing
 * else.
 *
 * Metric names follow the Prometheus conventions: counters end in
 * _total, sizes are _bytes, the fdatasync latency is a histogram in
 * seconds.  Every series of a partition has the labels topic and
 * partition; of a child, slot and role.
 */
#include <sys/prctl.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/unistd.h>
#include <microhttpd.h>
#include <sodium.h>

#include "common/broker.h"
#include "common/child.h"
#include "common/clock.h"
#include "common/live.h"
#include "common/log.h"
#include "master/console.h"
#include "master/metrics.h"
#include "proto/version.h"
#include "common/stats.h"
#include "shm/stats.h"

#define METRICS_CONN_LIMIT	64
#define METRICS_CONN_TIMEOUT_S	10
#define METRICS_ARENA_LIMIT	(256u << 20)
#define METRICS_POLL_MS		1000
/*
 * HTTP threads: a console write action waits on the broker (up to
 * CADMIN_TIMEOUT_MS) and a message page reads the disk; the others
 * serve scrapes and pages meanwhile.
 */
#define METRICS_THREADS		4

static volatile sig_atomic_t metrics_stop;

/* The web console's state, shared with the HTTP thread (master/console.h). */
static struct console *metrics_console;

/* ---- rendering ---- */

/* Append printf output to wb (a line of a few hundred bytes at most). */
void
metrics_printf(struct wbuf *wb, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	wbuf_raw(wb, line, (size_t)n);
}

/* A label value with \, " and newline escaped, as the text format wants. */
static void
out_label(struct wbuf *wb, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\\' || s[i] == '"')
			wbuf_raw(wb, "\\", 1);
		if (s[i] == '\n')
			wbuf_raw(wb, "\\n", 2);
		else
			wbuf_raw(wb, &s[i], 1);
	}
}

static void
out_head(struct wbuf *wb, const char *name, const char *type, const char *help)
{
	metrics_printf(wb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * The series, as tables: a row names a metric and the field of the
 * snapshot (struct stats_resp, proto/msg.h) it shows.  Adding a metric is
 * adding a row.
 */
enum field_width { F64, F32 };

struct series {
	const char	*name;
	const char	*type;		/* "counter" or "gauge" */
	const char	*help;
	size_t		 off;		/* of the field in its struct */
	enum field_width width;
};

#define PF(f)	offsetof(struct stats_partition, f)
#define CFO(f)	offsetof(struct stats_child, f)
#define GFO(f)	offsetof(struct stats_lag, f)

static const struct series partition_series[] = {
	{ "flume_partition_messages_in_total", "counter",
	    "Records appended to the partition.", PF(msgs_in), F64 },
	{ "flume_partition_bytes_in_total", "counter",
	    "Record batch bytes appended to the partition.", PF(bytes_in), F64 },
	{ "flume_partition_messages_out_total", "counter",
	    "Records sent to consumers by FETCH.", PF(msgs_out), F64 },
	{ "flume_partition_bytes_out_total", "counter",
	    "Record batch bytes sent to consumers by FETCH.", PF(bytes_out), F64 },
	{ "flume_partition_log_start_offset", "gauge",
	    "First offset kept on disk.", PF(log_start), F64 },
	{ "flume_partition_log_end_offset", "gauge",
	    "Next offset to assign (everything acknowledged).", PF(log_end), F64 },
	{ "flume_partition_visible_offset", "gauge",
	    "Offsets below this are in the log files.", PF(visible), F64 },
	{ "flume_partition_durable_offset", "gauge",
	    "Offsets below this are fdatasync'ed.", PF(durable), F64 },
	{ "flume_partition_ring_used_bytes", "gauge",
	    "Bytes waiting in the partition's ring for the writer.",
	    PF(ring_used), F64 },
	{ "flume_partition_ring_size_bytes", "gauge",
	    "Size of the partition's ring.", PF(ring_size), F64 },
	{ "flume_partition_segments", "gauge",
	    "Segment files of the partition's log.", PF(segments), F32 },
	{ "flume_partition_log_bytes", "gauge",
	    "Bytes of all segment files of the partition.", PF(log_bytes), F64 },
	{ "flume_partition_cleaner_dirty_ratio_ppm", "gauge",
	    "Dirty part of a compacted partition's cleanable log, in millionths.",
	    PF(clean_ratio_ppm), F64 },
	{ "flume_partition_cleaner_last_clean_ms", "gauge",
	    "When the cleaner last swapped the partition's segments (Unix ms).",
	    PF(clean_last_ms), F64 },
	{ "flume_partition_cleaner_saved_bytes_total", "counter",
	    "Bytes the cleaner's passes removed from the partition.",
	    PF(clean_saved), F64 },
};

static const struct series group_series[] = {
	{ "flume_group_committed_offset", "gauge",
	    "Offset committed by a consumer group.", GFO(committed), F64 },
	{ "flume_group_lag", "gauge",
	    "Log end offset minus the group's committed offset.", GFO(lag), F64 },
};

/* Every child slot. */
static const struct series child_series[] = {
	{ "flume_child_restarts_total", "counter",
	    "Times the master respawned the slot's child.", CFO(restarts), F32 },
};

/* Worker slots only. */
static const struct series worker_series[] = {
	{ "flume_worker_connections", "gauge",
	    "Client connections open now.", CFO(connections), F64 },
	{ "flume_worker_connections_accepted_total", "counter",
	    "Client connections accepted.", CFO(accepted), F64 },
	{ "flume_worker_connections_rejected_total", "counter",
	    "Connections closed at accept because of max_connections.",
	    CFO(rejected_conns), F64 },
	{ "flume_worker_protocol_errors_total", "counter",
	    "Connections closed for a malformed frame.", CFO(protocol_errors), F64 },
	{ "flume_worker_requests_total", "counter",
	    "Requests received.", CFO(requests), F64 },
	{ "flume_worker_bytes_in_total", "counter",
	    "Bytes read from clients.", CFO(bytes_in), F64 },
	{ "flume_worker_bytes_out_total", "counter",
	    "Bytes written to clients.", CFO(bytes_out), F64 },
	{ "flume_worker_auth_failures_total", "counter",
	    "Failed logins.", CFO(auth_failures), F64 },
	{ "flume_worker_auth_throttled_total", "counter",
	    "Logins answered late or refused unchecked by the authentication "
	    "throttle.", CFO(auth_throttled), F64 },
	{ "flume_worker_auth_key_derivations_total", "counter",
	    "SCRAM salted passwords derived (PBKDF2).", CFO(auth_derivations),
	    F64 },
	{ "flume_worker_kafka_msgset_conversions_total", "counter",
	    "Kafka message sets (magic 0 or 1) converted: produced ones to "
	    "record batches, fetched batches to message sets.",
	    CFO(msgset_conversions), F64 },
	{ "flume_worker_kafka_msgset_bytes_total", "counter",
	    "Bytes of the Kafka message sets converted (as the client sent or "
	    "received them).", CFO(msgset_bytes), F64 },
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* The field a row names, in the struct at base. */
static long long
field(const void *base, const struct series *m)
{
	int64_t v;
	int32_t v32;

	if (m->width == F32) {
		memcpy(&v32, (const char *)base + m->off, sizeof(v32));
		return v32;
	}
	memcpy(&v, (const char *)base + m->off, sizeof(v));
	return v;
}

static void
out_partitions(struct wbuf *wb, const struct stats_resp *st)
{
	const struct stats_partition *p;
	size_t k;
	int32_t i;

	for (k = 0; k < NELEM(partition_series); k++) {
		out_head(wb, partition_series[k].name, partition_series[k].type,
		    partition_series[k].help);
		for (i = 0; i < st->nparts; i++) {
			p = &st->parts[i];
			metrics_printf(wb, "%s{topic=\"", partition_series[k].name);
			out_label(wb, p->topic, p->topic_len);
			metrics_printf(wb, "\",partition=\"%d\"} %lld\n",
			    (int)p->partition, field(p, &partition_series[k]));
		}
	}
}

static void
out_groups(struct wbuf *wb, const struct stats_resp *st)
{
	const struct stats_lag *l;
	size_t k;
	int32_t i;

	for (k = 0; k < NELEM(group_series); k++) {
		out_head(wb, group_series[k].name, group_series[k].type,
		    group_series[k].help);
		for (i = 0; i < st->nlags; i++) {
			l = &st->lags[i];
			metrics_printf(wb, "%s{group=\"", group_series[k].name);
			out_label(wb, l->group, l->group_len);
			metrics_printf(wb, "\",topic=\"");
			out_label(wb, l->topic, l->topic_len);
			metrics_printf(wb, "\",partition=\"%d\"} %lld\n",
			    (int)l->partition, field(l, &group_series[k]));
		}
	}
}

/* The rows of tab for the children of role (-1: every child). */
static void
out_children(struct wbuf *wb, const struct stats_resp *st,
    const struct series *tab, size_t n, int role)
{
	const struct stats_child *c;
	size_t k;
	int32_t i;

	for (k = 0; k < n; k++) {
		out_head(wb, tab[k].name, tab[k].type, tab[k].help);
		for (i = 0; i < st->nchildren; i++) {
			c = &st->children[i];
			if (role >= 0 && c->role != role)
				continue;
			metrics_printf(wb, "%s{slot=\"%d\",role=\"%s\"} %lld\n",
			    tab[k].name, (int)c->slot, role_name(c->role),
			    field(c, &tab[k]));
		}
	}
}

void
metrics_render(const struct stats_resp *st, struct wbuf *wb)
{
	int64_t cum = 0;
	int32_t i;

	out_head(wb, "flume_build_info", "gauge",
	    "Always 1; the label names the broker's version.");
	metrics_printf(wb, "flume_build_info{version=\"%s\"} 1\n", FLUME_VERSION);
	out_partitions(wb, st);
	out_groups(wb, st);

	out_head(wb, "flume_child_up", "gauge",
	    "1 while the child process of the slot is running.");
	for (i = 0; i < st->nchildren; i++)
		metrics_printf(wb, "flume_child_up{slot=\"%d\",role=\"%s\"} %d\n",
		    (int)st->children[i].slot, role_name(st->children[i].role),
		    st->children[i].pid > 0 ? 1 : 0);
	out_children(wb, st, child_series, NELEM(child_series), -1);
	out_children(wb, st, worker_series, NELEM(worker_series), ROLE_WORKER);

	out_head(wb, "flume_request_errors_total", "counter",
	    "Answers (or per-partition results) carrying an error code.");
	for (i = 0; i < st->nerrors; i++)
		metrics_printf(wb, "flume_request_errors_total{code=\"%d\",error=\"%s\"} %lld\n",
		    (int)st->errors[i].error, flume_strerror(st->errors[i].error),
		    (long long)st->errors[i].count);

	out_head(wb, "flume_fsync_duration_seconds", "histogram",
	    "Latency of the writer's fdatasync calls.");
	for (i = 0; i < st->nbuckets; i++) {
		cum += st->buckets[i].count;
		if (st->buckets[i].le_us < 0)
			metrics_printf(wb, "flume_fsync_duration_seconds_bucket{le=\"+Inf\"} %lld\n",
			    (long long)cum);
		else
			metrics_printf(wb, "flume_fsync_duration_seconds_bucket{le=\"%g\"} %lld\n",
			    (double)st->buckets[i].le_us / 1e6, (long long)cum);
	}
	metrics_printf(wb, "flume_fsync_duration_seconds_sum %.6f\n",
	    (double)st->fsync_sum_us / 1e6);
	metrics_printf(wb, "flume_fsync_duration_seconds_count %lld\n",
	    (long long)st->fsync_count);
	out_head(wb, "flume_fsync_errors_total", "counter",
	    "fdatasync calls that failed.");
	metrics_printf(wb, "flume_fsync_errors_total %lld\n",
	    (long long)st->fsync_errors);
	{
		const struct { const char *name, *help; int64_t v; } cl[] = {
			{ "flume_cleaner_runs_total",
			    "Cleaner passes that swapped segments.",
			    st->cleaner_runs },
			{ "flume_cleaner_read_bytes_total",
			    "Bytes the cleaner read.", st->cleaner_bytes_read },
			{ "flume_cleaner_written_bytes_total",
			    "Bytes the cleaner wrote.", st->cleaner_bytes_written },
			{ "flume_cleaner_records_removed_total",
			    "Records the cleaner removed.",
			    st->cleaner_records_removed },
		};

		for (i = 0; i < (int)(sizeof(cl) / sizeof(cl[0])); i++) {
			out_head(wb, cl[i].name, "counter", cl[i].help);
			metrics_printf(wb, "%s %lld\n", cl[i].name,
			    (long long)cl[i].v);
		}
	}
}

/* ---- the master's part: the socket ---- */

int
metrics_listen_socket(const struct config *conf, char *bound, size_t boundlen)
{
	struct addrinfo hints, *res, *ai;
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN];
	socklen_t sl;
	int fd = -1, on = 1, rc, saved = EADDRNOTAVAIL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(conf->metrics_host, conf->metrics_port, &hints, &res);
	if (rc != 0) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol);
		if (fd == -1) {
			saved = errno;
			continue;
		}
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
		    sizeof(on)) == 0 &&
		    bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(fd, 64) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1) {
		errno = saved;
		return -1;
	}
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(bound, boundlen, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(bound, boundlen, "%s:%u", host, ntohs(s4->sin_port));
	}
	return fd;
}

/* ---- the child ---- */

static void
metrics_on_signal(int sig)
{
	(void)sig;
	metrics_stop = 1;
}

static void
metrics_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	log_warnx("http: %s", msg);
}

static enum MHD_Result
metrics_reply(struct MHD_Connection *conn, unsigned int status,
    const char *type, const void *body, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result rc;

	resp = MHD_create_response_from_buffer(len, (void *)(uintptr_t)body,
	    MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* Called by libmicrohttpd's thread for every request. */
static enum MHD_Result
metrics_http(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
	static const char text[] = "text/plain; version=0.0.4; charset=utf-8";
	static const char not_found[] = "not found: try /metrics\n";
	static const char bad_method[] = "only GET and HEAD\n";
	struct broker *b = cls;
	struct shm_child *me = &b->shm.children[b->slot];
	struct stats_resp st;
	struct arena a;
	struct wbuf wb;
	enum MHD_Result rc;

	int handled;

	(void)version;
	(void)upload_data;
	/*
	 * The first call of a request only says it came; a body (the
	 * console's POSTs carry none that is read) is then skipped.
	 */
	if (*con_cls == NULL) {
		*con_cls = (void *)1;
		atomic_fetch_add_explicit(&me->requests, 1, memory_order_relaxed);
		if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
			goto answer;
		return MHD_YES;
	}
	if (*upload_data_size != 0) {
		*upload_data_size = 0;
		return MHD_YES;
	}
answer:
	rc = console_http(metrics_console, conn, url, method, &handled);
	if (handled)
		return rc;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return metrics_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "text/plain", bad_method, sizeof(bad_method) - 1);
	if (strcmp(url, "/metrics") != 0)
		return metrics_reply(conn, MHD_HTTP_NOT_FOUND, "text/plain",
		    not_found, sizeof(not_found) - 1);

	arena_init(&a, METRICS_ARENA_LIMIT);
	wbuf_init(&wb);
	if (stats_collect(&b->shm, &a, &st) == -1) {
		arena_free(&a);
		log_warn("metrics snapshot");
		return MHD_NO;
	}
	metrics_render(&st, &wb);
	arena_free(&a);
	if (wb.err) {
		wbuf_free(&wb);
		log_warnx("metrics: out of memory rendering");
		return MHD_NO;
	}
	rc = metrics_reply(conn, MHD_HTTP_OK, text, wb.buf, wb.len);
	atomic_fetch_add_explicit(&me->bytes_out, wb.len, memory_order_relaxed);
	wbuf_free(&wb);
	return rc;
}

/* A whole PEM file, NUL-terminated (what libmicrohttpd takes); NULL on error. */
static char *
metrics_slurp(const char *path)
{
	FILE *f;
	char *buf;
	long sz;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 ||
	    sz > (1L << 20) || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)sz + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fclose(f);
		free(buf);
		return NULL;
	}
	buf[sz] = '\0';
	fclose(f);
	return buf;
}

void
metrics_main(struct broker *b)
{
	struct shm_child *me = &b->shm.children[b->slot];
	struct MHD_Daemon *d;
	struct pollfd pfd;
	struct timespec ts = { METRICS_POLL_MS / 1000, 0 };
	sigset_t waitmask;
	uint64_t count;
	int master = b->shm.hdr->master_pid;
	char *cert = NULL, *key = NULL;

	child_start(b, "metrics", metrics_on_signal, &waitmask);
	if ((metrics_console = console_new(b)) == NULL) {
		log_warn("console");
		exit(1);
	}
	console_tick(metrics_console, clock_mono_ms());
	/* The broker's own socket is the workers' business. */
	if (b->listen_fd >= 0)
		close(b->listen_fd);
	if (b->kafka_fd >= 0 && b->conf->kafka_listen[0] != '\0')
		close(b->kafka_fd);
	if (b->tls_fd >= 0)
		close(b->tls_fd);
	if (b->kafka_tls_fd >= 0)
		close(b->kafka_tls_fd);

	if (b->conf->metrics_tls) {
		/*
		 * HTTPS (libmicrohttpd over GnuTLS) with the listeners'
		 * certificate, read once: a new one needs a restart here.
		 */
		if ((cert = metrics_slurp(b->conf->tls_cert_file)) == NULL ||
		    (key = metrics_slurp(b->conf->tls_key_file)) == NULL) {
			log_warn("metrics: cannot read %s",
			    cert == NULL ? b->conf->tls_cert_file :
			    b->conf->tls_key_file);
			exit(EXIT_NO_RESPAWN);
		}
		d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
		    MHD_USE_POLL | MHD_USE_ERROR_LOG | MHD_USE_TLS, 0, NULL, NULL,
		    metrics_http, b,
		    MHD_OPTION_EXTERNAL_LOGGER, metrics_mhd_log, NULL,
		    MHD_OPTION_LISTEN_SOCKET, b->metrics_fd,
		    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_CONN_LIMIT,
		    MHD_OPTION_CONNECTION_TIMEOUT,
		    (unsigned int)METRICS_CONN_TIMEOUT_S,
		    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)METRICS_THREADS,
		    MHD_OPTION_HTTPS_MEM_CERT, cert,
		    MHD_OPTION_HTTPS_MEM_KEY, key,
		    MHD_OPTION_HTTPS_PRIORITIES,
		    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
		    MHD_OPTION_END);
	} else
		d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
		    MHD_USE_POLL | MHD_USE_ERROR_LOG, 0, NULL, NULL,
		    metrics_http, b,
		    MHD_OPTION_EXTERNAL_LOGGER, metrics_mhd_log, NULL,
		    MHD_OPTION_LISTEN_SOCKET, b->metrics_fd,
		    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_CONN_LIMIT,
		    MHD_OPTION_CONNECTION_TIMEOUT,
		    (unsigned int)METRICS_CONN_TIMEOUT_S,
		    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)METRICS_THREADS,
		    MHD_OPTION_END);
	if (d == NULL) {
		log_warnx("cannot start the HTTP server on %s",
		    b->conf->metrics_listen);
		exit(1);
	}
	child_active(b);
	log_info("serving metrics on %s://%s/metrics and the console on /",
	    b->conf->metrics_tls ? "https" : "http", b->conf->metrics_listen);

	pfd.fd = b->eventfds[b->slot];
	pfd.events = POLLIN;
	while (!metrics_stop && !atomic_load(&b->shm.hdr->shutdown)) {
		if (ppoll(&pfd, 1, &ts, &waitmask) > 0) {
			(void)!read(pfd.fd, &count, sizeof(count));
			console_reload(metrics_console);
		}
		(void)live_refresh(&b->shm, b->conf);
		console_tick(metrics_console, clock_mono_ms());
		if (getppid() != master)
			break;
	}
	MHD_stop_daemon(d);
	free(cert);
	if (key != NULL) {
		sodium_memzero(key, strlen(key));
		free(key);
	}
	atomic_store(&me->state, CHILD_ASSIGNED);
	log_info("stopped");
	exit(0);
}
