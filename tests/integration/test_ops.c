/*
 * Operability, black-box: the metrics endpoint (scraped with a raw HTTP
 * GET) and flume-admin stats against what the test produced, SIGHUP
 * reloads (applied, needing a restart, invalid), and the log lines of
 * events (child death and respawn, rejected clients, torn tail on start).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/version.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;
static int mport;

static int
setup(void)
{
	char extra[256];

	mport = support_free_port();
	snprintf(extra, sizeof(extra), "partitions = 2\nflush_messages = 1\n"
	    "segment_bytes = 4K\nretention_check_ms = 100ms\n"
	    "metrics_listen = 127.0.0.1:%d", mport);
	return flumed_start(&d, extra) == 0 ? 0 : -1;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/*
 * GET path from the metrics port: the status code, and the body
 * (malloc'ed) in *body.  -1 when no complete answer came within 5 s.
 */
static int
http_get(const char *path, char **body)
{
	struct sockaddr_in sin;
	struct pollfd pfd;
	char req[256], *buf = NULL, *p, *nb;
	size_t len = 0, cap = 0;
	long long deadline = support_now_ms() + 5000;
	ssize_t n;
	int fd, status = -1;

	*body = NULL;
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)mport);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		goto out;
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n",
	    path);
	if (support_send(fd, req, strlen(req)) == -1)
		goto out;
	for (;;) {
		long long left = deadline - support_now_ms();

		if (left <= 0)
			goto out;
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			if ((nb = realloc(buf, cap + 1)) == NULL)
				goto out;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1 ||
	    (p = strstr(buf, "\r\n\r\n")) == NULL) {
		status = -1;
		goto out;
	}
	*body = strdup(p + 4);
out:
	free(buf);
	close(fd);
	return status;
}

/* The value of one series ("name{labels}") in a scrape; -1 if absent. */
static long long
series(const char *text, const char *name)
{
	size_t nl = strlen(name);
	const char *p = text;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, name, nl) == 0 && p[nl] == ' ')
			return strtoll(p + nl + 1, NULL, 10);
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

/*
 * Scrape until series `name` equals want (or, with at_least, reaches it),
 * bounded by 10 s; returns its last value.
 */
static long long
scrape_wait(const char *name, long long want, int at_least)
{
	long long deadline = support_now_ms() + 10000, v = -2;
	char *body;

	while (support_now_ms() < deadline) {
		if (http_get("/metrics", &body) == 200) {
			v = series(body, name);
			free(body);
			if (v == want || (at_least && v >= want))
				return v;
		} else
			free(body);
		usleep(20 * 1000);	/* polling a condition, bounded above */
	}
	return v;
}

static long long
scrape_until(const char *name, long long want)
{
	return scrape_wait(name, want, 0);
}

static int
produce(const char *topic, const char *part, const char *input)
{
	const char *argv[] = { "flume-produce", "-t", topic, "-p", part, NULL };

	return run_tool(&d, input, NULL, 20000, argv);
}

static int
consume_count(const char *topic, const char *part)
{
	const char *argv[] = { "flume-consume", "-t", topic, "-p", part, "-o",
	    "beginning", "-e", NULL };
	char *out = NULL, *p;
	int n = 0;

	if (run_tool(&d, NULL, &out, 20000, argv) != 0) {
		free(out);
		return -1;
	}
	for (p = out; p != NULL && (p = strchr(p, '\n')) != NULL; p++)
		n++;
	free(out);
	return n;
}

/* A FETCH of a topic that does not exist: one per-partition error 8. */
static int
fetch_unknown(void)
{
	struct fetch_part fp = { "nosuch", 6, 0, 0, 1024 };
	struct fetch_req q = { 0, 0, 1 << 20, 1, &fp, 0 };
	struct fetch_resp r;
	struct arena a;
	struct wbuf wb;
	uint8_t *payload = NULL;
	size_t len;
	uint32_t id;
	int fd, rc = -1;

	if ((fd = support_connect(&d)) == -1)
		return -1;
	wbuf_init(&wb);
	msg_encode_fetch_req(&wb, &q);
	arena_init(&a, 1 << 20);
	if (support_request(fd, API_FETCH, 7, wb.buf, wb.len) == 0 &&
	    support_recv(fd, 5000, &id, &payload, &len) == 1 && id == 7 &&
	    msg_decode_fetch_resp(payload, len, &a, &r) == 0 && r.count == 1 &&
	    r.results[0].error == ERR_UNKNOWN_TOPIC_OR_PARTITION)
		rc = 0;
	free(payload);
	arena_free(&a);
	wbuf_free(&wb);
	close(fd);
	return rc;
}

static void
test_metrics_scrape(void)
{
	char *body = NULL;
	long long in, logb, errs;

	CU_ASSERT_EQUAL_FATAL(produce("m", "0", "one\ntwo\nthree\nfour\nfive\n"), 0);
	CU_ASSERT_EQUAL_FATAL(produce("m", "1", "six\nseven\n"), 0);
	CU_ASSERT_EQUAL(consume_count("m", "0"), 5);

	CU_ASSERT_EQUAL(scrape_until("flume_partition_messages_out_total"
	    "{topic=\"m\",partition=\"0\"}", 5), 5);
	/* The writer syncs after it has made the batches visible: wait for it. */
	CU_ASSERT_EQUAL(scrape_until("flume_partition_durable_offset"
	    "{topic=\"m\",partition=\"0\"}", 5), 5);
	CU_ASSERT_EQUAL_FATAL(http_get("/metrics", &body), 200);
	CU_ASSERT_EQUAL(series(body, "flume_partition_messages_in_total"
	    "{topic=\"m\",partition=\"0\"}"), 5);
	CU_ASSERT_EQUAL(series(body, "flume_partition_messages_in_total"
	    "{topic=\"m\",partition=\"1\"}"), 2);
	CU_ASSERT_EQUAL(series(body, "flume_partition_messages_out_total"
	    "{topic=\"m\",partition=\"1\"}"), 0);
	CU_ASSERT_EQUAL(series(body, "flume_partition_log_start_offset"
	    "{topic=\"m\",partition=\"0\"}"), 0);
	CU_ASSERT_EQUAL(series(body, "flume_partition_log_end_offset"
	    "{topic=\"m\",partition=\"0\"}"), 5);
	CU_ASSERT_EQUAL(series(body, "flume_partition_log_end_offset"
	    "{topic=\"m\",partition=\"1\"}"), 2);
	CU_ASSERT_EQUAL(series(body, "flume_partition_segments"
	    "{topic=\"m\",partition=\"0\"}"), 1);
	CU_ASSERT_EQUAL(series(body, "flume_partition_ring_used_bytes"
	    "{topic=\"m\",partition=\"0\"}"), 0);
	/* Bytes in are the batches stored; all of them were read once. */
	in = series(body, "flume_partition_bytes_in_total{topic=\"m\",partition=\"0\"}");
	logb = series(body, "flume_partition_log_bytes{topic=\"m\",partition=\"0\"}");
	CU_ASSERT(in > 61);
	CU_ASSERT_EQUAL(in, logb);
	CU_ASSERT_EQUAL(series(body, "flume_partition_bytes_out_total"
	    "{topic=\"m\",partition=\"0\"}"), in);
	/* flush_messages = 1: every drain was synced; the histogram adds up. */
	CU_ASSERT(series(body, "flume_fsync_duration_seconds_count") >= 1);
	CU_ASSERT_EQUAL(series(body, "flume_fsync_duration_seconds_bucket{le=\"+Inf\"}"),
	    series(body, "flume_fsync_duration_seconds_count"));
	CU_ASSERT_EQUAL(series(body, "flume_fsync_errors_total"), 0);
	CU_ASSERT_EQUAL(series(body, "flume_partition_durable_offset"
	    "{topic=\"m\",partition=\"0\"}"), 5);
	CU_ASSERT_EQUAL(series(body, "flume_build_info{version=\"" FLUME_VERSION "\"}"), 1);
	CU_ASSERT_EQUAL(series(body, "flume_child_up{slot=\"2\",role=\"writer\"}"), 1);
	CU_ASSERT_EQUAL(series(body, "flume_child_up{slot=\"3\",role=\"cleaner\"}"), 1);
	CU_ASSERT_EQUAL(series(body, "flume_child_up{slot=\"4\",role=\"metrics\"}"), 1);
	CU_ASSERT_EQUAL(series(body, "flume_cleaner_runs_total"), 0);
	CU_ASSERT_EQUAL(series(body, "flume_child_restarts_total{slot=\"0\",role=\"worker\"}"), 0);
	CU_ASSERT(series(body, "flume_worker_requests_total{slot=\"0\",role=\"worker\"}") +
	    series(body, "flume_worker_requests_total{slot=\"1\",role=\"worker\"}") >= 6);
	errs = series(body, "flume_request_errors_total{code=\"8\","
	    "error=\"unknown topic or partition\"}");
	CU_ASSERT_EQUAL(errs, -1);	/* none yet: the series is absent */
	free(body);

	/* One rejected FETCH entry: the error counter goes from 0 to exactly 1. */
	CU_ASSERT_EQUAL_FATAL(fetch_unknown(), 0);
	CU_ASSERT_EQUAL(scrape_until("flume_request_errors_total{code=\"8\","
	    "error=\"unknown topic or partition\"}", 1), 1);

	CU_ASSERT_EQUAL(http_get("/nope", &body), 404);
	free(body);
	CU_ASSERT_EQUAL(http_get("/", &body), 200);
	CU_ASSERT_PTR_NOT_NULL(body != NULL ? strstr(body, "/metrics") : NULL);
	free(body);
}

/* The row of `flume-admin stats` that starts with prefix, split in fields. */
static int
stats_row(const char *out, const char *prefix, long long *v, int max)
{
	const char *p = out;
	char *end;
	int n = 0;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			p += strlen(prefix);
			while (n < max) {
				while (*p == ' ' || *p == '%')
					p++;
				if (*p == '\n' || *p == '\0')
					break;
				v[n++] = strtoll(p, &end, 10);
				p = end;
				while (*p != ' ' && *p != '\n' && *p != '\0')
					p++;
			}
			return n;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

static void
test_admin_stats(void)
{
	const char *argv[] = { "flume-admin", "stats", NULL };
	char *out = NULL;
	long long v[16];

	CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, &out, 10000, argv), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(strncmp(out, "broker " FLUME_BROKER_NAME "\n",
	    strlen("broker " FLUME_BROKER_NAME "\n")), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "PARTITIONS\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nPROCESSES\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nFSYNC\ncount "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nGROUP LAG\n"));
	/* PART LOG_START LOG_END MSGS_IN BYTES_IN MSGS_OUT BYTES_OUT RING_USED RING% SEGS LOG_BYTES */
	CU_ASSERT_EQUAL_FATAL(stats_row(out, "m                   ", v, 16), 11);
	CU_ASSERT_EQUAL(v[0], 0);
	CU_ASSERT_EQUAL(v[1], 0);
	CU_ASSERT_EQUAL(v[2], 5);
	CU_ASSERT_EQUAL(v[3], 5);
	CU_ASSERT_EQUAL(v[5], 5);
	CU_ASSERT_EQUAL(v[6], v[4]);
	CU_ASSERT_EQUAL(v[7], 0);
	CU_ASSERT_EQUAL(v[9], 1);
	CU_ASSERT_EQUAL(v[10], v[4]);
	/* CODE COUNT ERROR: the one rejected FETCH of the scrape test. */
	CU_ASSERT_EQUAL(stats_row(out, "8    ", v, 2), 2);
	CU_ASSERT_EQUAL(v[0], 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "unknown topic or partition\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n2    writer "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n3    cleaner "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n4    metrics "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n0    worker "));
	free(out);
}

static int
conf_append(const char *text)
{
	FILE *f = fopen(d.conf, "a");

	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void
test_sighup_reload(void)
{
	struct stat st;
	char *input, name[64];
	size_t len;
	int i, j, debug_before;

	/* Five batches of about 2.5 KiB: each 4 KiB segment holds one. */
	input = malloc(40 * 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(input);
	for (j = 0; j < 5; j++) {
		len = 0;
		for (i = 0; i < 40; i++)
			len += (size_t)sprintf(input + len, "retained-message-%04d-"
			    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", j * 40 + i);
		CU_ASSERT_EQUAL(produce("r", "0", input), 0);
	}
	free(input);
	CU_ASSERT_EQUAL_FATAL(scrape_until("flume_partition_visible_offset"
	    "{topic=\"r\",partition=\"0\"}", 200), 200);
	CU_ASSERT_EQUAL(scrape_until("flume_partition_log_start_offset"
	    "{topic=\"r\",partition=\"0\"}", 0), 0);
	CU_ASSERT(scrape_wait("flume_partition_segments{topic=\"r\",partition=\"0\"}",
	    3, 1) >= 3);
	debug_before = flumed_log_count(&d, "DEBUG");
	CU_ASSERT_EQUAL(debug_before, 0);

	/* log_level and retention reload; listen needs a restart. */
	CU_ASSERT_EQUAL_FATAL(stat(d.conf, &st), 0);
	snprintf(name, sizeof(name), "listen = 127.0.0.1:%d\n", support_free_port());
	CU_ASSERT_EQUAL_FATAL(conf_append("log_level = debug\nretention_bytes = 1\n"), 0);
	CU_ASSERT_EQUAL_FATAL(conf_append(name), 0);
	CU_ASSERT_EQUAL_FATAL(kill(d.pid, SIGHUP), 0);
	CU_ASSERT_EQUAL(flumed_wait_log(&d,
	    "reload: applied retention_bytes, log_level\n", 1, 10000), 1);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "reload: changed settings that need a restart "
	    "of flume-master to take effect: listen\n", 1, 10000), 1);
	/* Retention keeps only the active segment now. */
	CU_ASSERT_EQUAL(scrape_until("flume_partition_segments"
	    "{topic=\"r\",partition=\"0\"}", 1), 1);
	CU_ASSERT(scrape_wait("flume_partition_log_start_offset"
	    "{topic=\"r\",partition=\"0\"}", 1, 1) > 0);
	CU_ASSERT(flumed_wait_log(&d, "r-0: retention deleted ", 1, 10000) >= 1);
	CU_ASSERT_EQUAL(scrape_until("flume_partition_log_end_offset"
	    "{topic=\"r\",partition=\"0\"}", 200), 200);
	/* Debug lines appear now (a worker logs each connection at debug). */
	CU_ASSERT_EQUAL(consume_count("m", "1"), 2);
	CU_ASSERT(flumed_wait_log(&d, ": connected", 1, 10000) >= 1);
	/* The old port still serves: listen was not applied. */
	CU_ASSERT_EQUAL(consume_count("m", "0"), 5);
	/* Back to the file the daemon was started with (for the restart test). */
	CU_ASSERT_EQUAL(truncate(d.conf, st.st_size), 0);
}

static void
test_sighup_invalid(void)
{
	struct stat st;
	const char *argv[] = { "flume-admin", "workers", NULL };

	CU_ASSERT_EQUAL_FATAL(stat(d.conf, &st), 0);
	CU_ASSERT_EQUAL_FATAL(conf_append("retention_bytes = 5\nbogus_key = 1\n"), 0);
	CU_ASSERT_EQUAL_FATAL(kill(d.pid, SIGHUP), 0);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "unknown key 'bogus_key'; keeping the current "
	    "settings\n", 1, 10000), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "reload: applied"), 1);
	/* The broker goes on with the settings it had. */
	CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 10000, argv), 0);
	CU_ASSERT_EQUAL(truncate(d.conf, st.st_size), 0);
}

/* How many of fds[0..n) the peer closes within ms (each polled for EOF). */
static int
closed_within(const int *fds, int n, int ms)
{
	long long deadline = support_now_ms() + ms;
	int closed[8] = { 0 }, nclosed = 0, i, left;
	char c;

	while (nclosed < n && (left = (int)(deadline - support_now_ms())) > 0) {
		struct pollfd pfd[8];

		for (i = 0; i < n; i++) {
			pfd[i].fd = closed[i] || fds[i] == -1 ? -1 : fds[i];
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, (nfds_t)n, left) <= 0)
			break;
		for (i = 0; i < n; i++)
			if (pfd[i].revents != 0 && recv(fds[i], &c, 1, 0) <= 0) {
				closed[i] = 1;
				nclosed++;
			}
	}
	return nclosed;
}

static void
test_event_logs(void)
{
	long long deadline, counted = -1;
	struct stat st;
	int fds[3], i, rejected;
	pid_t victim;
	char needle[96];
	char *body = NULL;

	/* A worker killed: its death, with the signal, and its respawn. */
	victim = flumed_child_pid(&d, "worker", 1);
	CU_ASSERT_FATAL(victim > 0);
	CU_ASSERT_EQUAL_FATAL(kill(victim, SIGKILL), 0);
	snprintf(needle, sizeof(needle), "worker 1 (pid %ld) exited on signal 9",
	    (long)victim);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, needle, 1, 10000), 1);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "respawned worker 1 (pid ", 1, 10000), 1);
	CU_ASSERT_EQUAL(scrape_until("flume_child_restarts_total"
	    "{slot=\"1\",role=\"worker\"}", 1), 1);

	/* max_connections = 1 by reload: three clients on two workers. */
	CU_ASSERT_EQUAL_FATAL(stat(d.conf, &st), 0);
	CU_ASSERT_EQUAL_FATAL(conf_append("max_connections = 1\n"), 0);
	CU_ASSERT_EQUAL_FATAL(kill(d.pid, SIGHUP), 0);
	/* The file is the original again, plus max_connections. */
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "reload: applied retention_bytes, "
	    "max_connections, log_level\n", 1, 10000), 1);
	/* Every child (two workers, the writer, metrics) has applied it. */
	CU_ASSERT_EQUAL(flumed_wait_log(&d,
	    "applied the reloaded settings (generation 2)", 4, 10000), 4);
	for (i = 0; i < 3; i++)
		fds[i] = support_connect(&d);
	/* Which of them the workers closed (1 or 2, as accepts fell). */
	rejected = closed_within(fds, 3, 2000);
	CU_ASSERT(rejected >= 1);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "too many connections, closing",
	    rejected, 10000), rejected);
	deadline = support_now_ms() + 10000;
	do {
		free(body);
		body = NULL;
		CU_ASSERT_EQUAL_FATAL(http_get("/metrics", &body), 200);
		counted = series(body, "flume_worker_connections_rejected_total"
		    "{slot=\"0\",role=\"worker\"}") + series(body,
		    "flume_worker_connections_rejected_total{slot=\"1\",role=\"worker\"}");
	} while (counted != rejected && support_now_ms() < deadline &&
	    usleep(20 * 1000) == 0);
	CU_ASSERT_EQUAL(counted, rejected);
	free(body);
	for (i = 0; i < 3; i++)
		if (fds[i] != -1)
			close(fds[i]);
	/* Later tests restart the broker: not with max_connections = 1. */
	CU_ASSERT_EQUAL(truncate(d.conf, st.st_size), 0);
}

/* Restart after garbage was appended to a segment: the truncation is logged. */
static void
test_torn_tail_logged(void)
{
	char path[1024], last[64] = "";
	struct dirent *de;
	DIR *dir;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	snprintf(path, sizeof(path), "%s/m/partition-0", d.data);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir = opendir(path));
	while ((de = readdir(dir)) != NULL)
		if (strlen(de->d_name) == 24 && strcmp(de->d_name + 20, ".log") == 0 &&
		    strcmp(de->d_name, last) > 0)
			snprintf(last, sizeof(last), "%s", de->d_name);
	closedir(dir);
	CU_ASSERT_FATAL(last[0] != '\0');
	snprintf(path, sizeof(path), "%s/m/partition-0/%s", d.data, last);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "a"));
	fputs("torn-tail", f);
	CU_ASSERT_EQUAL(fclose(f), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "m/0: dropped 9 bytes of torn tail",
	    1, 10000), 1);
	CU_ASSERT_EQUAL(consume_count("m", "0"), 5);
	CU_ASSERT_EQUAL(scrape_until("flume_partition_log_end_offset"
	    "{topic=\"m\",partition=\"0\"}", 5), 5);
}

/*
 * flush_messages reloads (a SIGHUP applies it, the writer follows it):
 * with flush_interval_ms and flush_messages both -1 nothing is synced,
 * ten records stay visible and not durable; once flush_messages = 5 is
 * reloaded the ten are synced, four more are not, the fifth syncs them.
 * On the restarted broker of test_torn_tail_logged, whose live
 * settings are its file's; every child logs each reload it applies.
 */
static void
test_sighup_flush_messages(void)
{
	struct stat st;
	int applied;

	CU_ASSERT_EQUAL_FATAL(stat(d.conf, &st), 0);
	applied = flumed_log_count(&d, "applied the reloaded settings");
	CU_ASSERT_EQUAL_FATAL(conf_append("flush_interval_ms = -1\n"
	    "flush_messages = -1\n"), 0);
	CU_ASSERT_EQUAL_FATAL(kill(d.pid, SIGHUP), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d,
	    "reload: applied flush_interval_ms, flush_messages\n", 1, 10000), 1);
	/* Two workers, the writer, metrics. */
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d, "applied the reloaded settings",
	    applied + 4, 10000), applied + 4);
	CU_ASSERT_EQUAL_FATAL(produce("fm", "0", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"),
	    0);
	CU_ASSERT_EQUAL_FATAL(scrape_until("flume_partition_visible_offset"
	    "{topic=\"fm\",partition=\"0\"}", 10), 10);
	CU_ASSERT_EQUAL(scrape_until("flume_partition_durable_offset"
	    "{topic=\"fm\",partition=\"0\"}", 0), 0);

	CU_ASSERT_EQUAL_FATAL(truncate(d.conf, st.st_size), 0);
	CU_ASSERT_EQUAL_FATAL(conf_append("flush_interval_ms = -1\n"
	    "flush_messages = 5\n"), 0);
	CU_ASSERT_EQUAL_FATAL(kill(d.pid, SIGHUP), 0);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "reload: applied flush_messages\n",
	    1, 10000), 1);
	CU_ASSERT_EQUAL_FATAL(flumed_wait_log(&d, "applied the reloaded settings",
	    applied + 8, 10000), applied + 8);
	/* Ten since the last sync: synced now. */
	CU_ASSERT_EQUAL(scrape_until("flume_partition_durable_offset"
	    "{topic=\"fm\",partition=\"0\"}", 10), 10);
	/* Four more are not five: visible, not synced. */
	CU_ASSERT_EQUAL_FATAL(produce("fm", "0", "11\n12\n13\n14\n"), 0);
	CU_ASSERT_EQUAL_FATAL(scrape_until("flume_partition_visible_offset"
	    "{topic=\"fm\",partition=\"0\"}", 14), 14);
	CU_ASSERT_EQUAL(scrape_until("flume_partition_durable_offset"
	    "{topic=\"fm\",partition=\"0\"}", 10), 10);
	/* The fifth is. */
	CU_ASSERT_EQUAL_FATAL(produce("fm", "0", "15\n"), 0);
	CU_ASSERT_EQUAL(scrape_until("flume_partition_durable_offset"
	    "{topic=\"fm\",partition=\"0\"}", 15), 15);
	CU_ASSERT_EQUAL(truncate(d.conf, st.st_size), 0);
}

TEST_SUITE("ops", setup, teardown,
	{ "metrics scrape matches what was produced", test_metrics_scrape },
	{ "flume-admin stats shows the same figures", test_admin_stats },
	{ "SIGHUP applies log_level and retention, names restart keys", test_sighup_reload },
	{ "SIGHUP with an invalid file keeps the settings", test_sighup_invalid },
	{ "child death, respawn and rejected clients are logged", test_event_logs },
	{ "a torn tail found at start is logged", test_torn_tail_logged },
	{ "SIGHUP applies flush_messages: the writer syncs by it",
	    test_sighup_flush_messages });
