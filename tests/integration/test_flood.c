/*
 * Memory of the whole broker is bounded by its configuration: open the
 * maximum number of connections (max_connections_total), have every one
 * pipeline requests whose answers are ~70 times their size (METADATA
 * naming a topic a thousand times) and produces, and never read.  The
 * broker must refuse one more connection, keep every process alive,
 * keep the workers' peak RSS (VmHWM) under a bound computed from the
 * configuration, and serve a new client as soon as a slot is free.
 *
 * The bound per worker: its RSS before the flood, plus the whole shared
 * region, plus for each connection it may hold the output it may buffer
 * and the arena its requests may take (max_buffered_bytes twice for
 * buffer growth, once more for the arena's soft part, 12 x
 * max_request_bytes for the read buffer and decoded requests) and 80K of
 * fixed per-connection state.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "shm/shm.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define NCONN		32
#define BUFFERED	(64 * 1024)
#define MAXREQ		(64 * 1024)
#define FLOOD_BYTES	(1024 * 1024)	/* sent per connection, at most */

static struct flumed d;

static int
setup(void)
{
	return flumed_start(&d, "max_connections = 32\n"
	    "max_connections_total = 32\nmax_buffered_bytes = 64K\n"
	    "max_request_bytes = 64K\nmax_message_bytes = 32K\n"
	    "ring_size = 64K\nmax_partitions = 16\nmax_topics = 8\n"
	    "partitions = 2") == 0 ? 0 : -1;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* Peak and current RSS of pid in KiB (from /proc/PID/status); 0 or -1. */
static int
rss_kib(pid_t pid, long *hwm, long *rss)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	*hwm = *rss = -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "VmHWM: %ld", hwm);
		sscanf(line, "VmRSS: %ld", rss);
	}
	fclose(f);
	return *hwm > 0 ? 0 : -1;
}


/* A connection the broker serves (handshaken): its fd, or -1. */
static int
open_served(void)
{
	return support_connect_served(&d, 10000);
}


/* Append one request frame to all. */
static void
frame_add(struct wbuf *all, uint16_t api, uint32_t id, const struct wbuf *p)
{
	wbuf_i32(all, (int32_t)p->len + 6);
	wbuf_i16(all, (int16_t)api);
	wbuf_i32(all, (int32_t)id);
	wbuf_raw(all, p->buf, p->len);
}

static void
produce_payload(struct wbuf *wb, const char *topic, const char *value,
    size_t vlen)
{
	struct batch_builder bb;
	const uint8_t *batch;
	size_t blen;

	batch_builder_init(&bb);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1700000000000LL, NULL, -1,
	    value, (int32_t)vlen, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &batch, &blen), 0);
	wbuf_i8(wb, 1);
	wbuf_i32(wb, 5000);
	wbuf_i32(wb, 1);
	wbuf_str(wb, topic, strlen(topic));
	wbuf_i32(wb, 0);
	wbuf_bytes(wb, batch, (int32_t)blen);
	batch_builder_free(&bb);
}

/* Send as much of buf as the socket takes now, up to len; bytes sent. */
static size_t
send_some(int fd, const uint8_t *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = send(fd, buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	return off;
}

static void
test_flood(void)
{
	struct wbuf meta, prod, all;
	pid_t w[2];
	long base_hwm[2], hwm[2], rss[2], bound_kib, per_conn;
	char name[SHM_NAME_MAX], path[600], *value;
	struct stat st;
	uint64_t before, last;
	long long deadline;
	size_t sent_total = 0, off[NCONN];
	uint8_t *p = NULL;
	size_t len = 0;
	uint32_t id;
	int fds[NCONN], fd, i, k, rounds;

	w[0] = flumed_child_pid(&d, "worker", 0);
	w[1] = flumed_child_pid(&d, "worker", 1);
	CU_ASSERT_FATAL(w[0] > 0 && w[1] > 0);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(rss_kib(w[i], &base_hwm[i], &rss[i]), 0);
	CU_ASSERT_EQUAL_FATAL(shm_name_for(d.data, name, sizeof(name)), 0);
	snprintf(path, sizeof(path), "/dev/shm%s", name);
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);

	/* The requests: answers ~70x their size, and 30 KB produces. */
	wbuf_init(&meta);
	wbuf_init(&prod);
	wbuf_init(&all);
	wbuf_i8(&meta, 1);		/* auto-create "flood" */
	wbuf_i32(&meta, 1000);
	for (i = 0; i < 1000; i++)
		wbuf_str(&meta, "flood", 5);
	value = malloc(30000);
	CU_ASSERT_FATAL(value != NULL);
	memset(value, 'v', 30000);
	produce_payload(&prod, "flood", value, 30000);
	free(value);
	for (id = 1; all.len < FLOOD_BYTES; id++)
		frame_add(&all, (id % 4 == 0) ? API_PRODUCE : API_METADATA, id,
		    (id % 4 == 0) ? &prod : &meta);

	for (i = 0; i < NCONN; i++) {
		fds[i] = open_served();
		CU_ASSERT_FATAL(fds[i] != -1);
		off[i] = 0;
	}
	/* Every slot is taken. */
	CU_ASSERT_EQUAL(open_served(), -1);

	before = flumed_requests_taken(&d);
	CU_ASSERT_FATAL(before != UINT64_MAX);
	/* Flood: push until every socket stops taking bytes (bounded). */
	for (rounds = 0; rounds < 200; rounds++) {
		size_t moved = 0;

		for (i = 0; i < NCONN; i++) {
			k = (int)send_some(fds[i], all.buf + off[i],
			    all.len - off[i]);
			off[i] += (size_t)k;
			moved += (size_t)k;
		}
		sent_total += moved;
		if (moved == 0 && rounds > 20)
			break;
		usleep(10 * 1000);	/* let the broker read; bounded rounds */
	}
	/*
	 * The broker stops reading a flooder once the answers it holds for
	 * it reach max_buffered_bytes (the flooders read nothing): await
	 * every flooder held so at once (bounded), each at its most.
	 */
	CU_ASSERT_EQUAL(flumed_wait_reads_stopped(&d, NCONN, 10000), NCONN);
	last = flumed_requests_taken(&d);

	/* Still up: the master and both workers, no child died. */
	CU_ASSERT_EQUAL(kill(d.pid, 0), 0);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(rss_kib(w[i], &hwm[i], &rss[i]), 0);
		snprintf(path, sizeof(path), "(pid %ld) ", (long)w[i]);
		CU_ASSERT_EQUAL(flumed_log_count(&d, path), 0);
	}
	CU_ASSERT_EQUAL(open_served(), -1);

	per_conn = (3L * BUFFERED + 12L * MAXREQ + 80L * 1024) / 1024;
	bound_kib = (long)(st.st_size / 1024) + NCONN * per_conn;
#ifdef __SANITIZE_ADDRESS__
	/* ASan's shadow memory and quarantine come on top. */
	bound_kib += 512L * 1024;
#endif
	printf("flood: %d connections, %zu bytes sent, %llu requests taken; "
	    "worker peak RSS %ld KiB and %ld KiB (before: %ld, %ld), bound "
	    "before + %ld KiB\n", NCONN, sent_total,
	    (unsigned long long)(last - before), hwm[0], hwm[1], base_hwm[0],
	    base_hwm[1], bound_kib);
	for (i = 0; i < 2; i++)
		CU_ASSERT(hwm[i] <= base_hwm[i] + bound_kib);
	/* Far fewer requests taken than sent: the rest wait in the sockets. */
	CU_ASSERT(last - before < (uint64_t)(id - 1) * NCONN);

	/* One flooder leaves: a new client gets its slot and is served. */
	close(fds[0]);
	fds[0] = -1;
	deadline = support_now_ms() + 10000;
	while ((fd = open_served()) == -1 && support_now_ms() < deadline)
		usleep(20 * 1000);	/* polling a condition, bounded above */
	CU_ASSERT_FATAL(fd != -1);
	wbuf_reset(&prod);
	produce_payload(&prod, "probe", "still here", 10);
	CU_ASSERT_EQUAL(support_call(fd, API_PRODUCE, 2, &prod, 10000, &p, &len), 0);
	CU_ASSERT(len >= 8 && (int16_t)be16_get(p + 6) == 0);
	free(p);
	wbuf_reset(&meta);
	wbuf_i32(&meta, 0);		/* FETCH probe/0 from offset 0 */
	wbuf_i32(&meta, 1);
	wbuf_i32(&meta, 1 << 20);
	wbuf_i32(&meta, 1);
	wbuf_str(&meta, "probe", 5);
	wbuf_i32(&meta, 0);
	wbuf_i64(&meta, 0);
	wbuf_i32(&meta, 1 << 20);
	p = NULL;
	deadline = support_now_ms() + 10000;
	/* Served up to what the writer has put in the log: wait for it. */
	for (;;) {
		CU_ASSERT_EQUAL_FATAL(support_call(fd, API_FETCH, 3, &meta, 10000, &p, &len), 0);
		if (len > 2 + 4 + 2 + 8 + 8 + 4 || support_now_ms() > deadline)
			break;
		free(p);
		p = NULL;
		usleep(20 * 1000);	/* polling a condition, bounded above */
	}
	CU_ASSERT(len > 2 + 4 + 2 + 8 + 8 + 4);
	CU_ASSERT(len >= 10 && memmem(p, len, "still here", 10) != NULL);
	free(p);
	close(fd);
	for (i = 1; i < NCONN; i++)
		close(fds[i]);
	wbuf_free(&meta);
	wbuf_free(&prod);
	wbuf_free(&all);
	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
}

TEST_SUITE("flood", setup, teardown,
    { "max connections flooded: bounded memory, still serving", test_flood });
