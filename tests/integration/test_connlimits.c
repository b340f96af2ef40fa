/*
 * A flood of idle connections from one address cannot lock others out:
 *
 *  - max_connections_per_ip holds exactly over all workers: the N+1th
 *    connection from 127.0.0.1 is closed at once, one from 127.0.0.2 is
 *    served meanwhile, a closed one frees its place, and a worker killed
 *    with SIGKILL leaks none of the counts of its connections;
 *  - handshake_timeout_ms closes a connection that never completes its
 *    HANDSHAKE after that long (not before), leaves a client that sent
 *    a real request alone, and a normal client gets in once the idle
 *    ones are gone;
 *  - it also closes, on both listeners, a connection that said only
 *    HANDSHAKE (Kafka: only ApiVersions) and went silent, which would
 *    otherwise hold its slot for idle_timeout_ms.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kheader.h"
#include "proto/bytes.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "shm/ipcount.h"
#include "shm/shm.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define LIMIT		5
#define MAXFD		16

static struct flumed d;
static int fds[MAXFD];

static int
setup(void)
{
	int i;

	for (i = 0; i < MAXFD; i++)
		fds[i] = -1;
	return 0;
}

static void
close_all(void)
{
	int i;

	for (i = 0; i < MAXFD; i++) {
		if (fds[i] != -1)
			close(fds[i]);
		fds[i] = -1;
	}
}

static int
teardown(void)
{
	close_all();
	flumed_cleanup(&d);
	return 0;
}

/* A TCP connection to the broker from source address src ("127.0.0.x"). */
static int
connect_from(const char *src)
{
	return support_connect_from(d.port, src);
}

/* METADATA of every topic on fd (request id id): 0 when answered. */
static int
metadata_all(int fd, uint32_t id)
{
	struct wbuf wb;
	int rc;

	wbuf_init(&wb);
	wbuf_i8(&wb, 0);	/* no auto-create */
	wbuf_i32(&wb, 0);	/* every topic */
	rc = support_call(fd, API_METADATA, id, &wb, 5000, NULL, NULL);
	wbuf_free(&wb);
	return rc;
}

/*
 * A connection from src that the broker serves, as a client's: HANDSHAKE
 * and a METADATA (a HANDSHAKE alone lasts handshake_timeout_ms).  Its
 * fd, or -1.
 */
static int
served_from(const char *src)
{
	int fd = connect_from(src);

	if (fd != -1 && (support_handshake(fd, 1, 5000) != 0 ||
	    metadata_all(fd, 2) != 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * A Kafka request (key, version, correlation id corr, body bytes) on fd,
 * and its answer's first two body bytes in *err: 1 answered, 0 closed,
 * -1 no answer in time.
 */
static int
kafka_call(int fd, int16_t key, int16_t version, int32_t corr,
    const void *body, size_t len, int16_t *err)
{
	struct kheader h;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t n = 0;
	uint32_t id = 0;
	int rc = 0;

	memset(&h, 0, sizeof(h));
	h.api_key = key;
	h.api_version = version;
	h.correlation_id = corr;
	h.client_id = kstr_c("test_connlimits");
	wbuf_init(&wb);
	wbuf_i32(&wb, 0);
	kheader_encode(&wb, &h);
	wbuf_raw(&wb, body, len);
	wbuf_put_u32_at(&wb, 0, (uint32_t)(wb.len - 4));
	if (support_send(fd, wb.buf, wb.len) == 0)
		rc = support_recv(fd, 5000, &id, &p, &n);
	if (rc == 1 && (id != (uint32_t)corr || n < 2))
		rc = -1;
	if (rc == 1)
		*err = (int16_t)be16_get(p);
	free(p);
	wbuf_free(&wb);
	return rc;
}

/* Was fd closed by the broker (EOF within timeout_ms)? */
static int
closed_by_broker(int fd, int timeout_ms)
{
	uint8_t *p = NULL;
	size_t len;
	uint32_t id;
	int r = support_recv(fd, timeout_ms, &id, &p, &len);

	free(p);
	return r == 0;
}

/*
 * A new connection from src, refused: closed by the broker at once,
 * well before any timeout (nothing is sent, so the close is a clean EOF).
 */
static int
refused_from(const char *src)
{
	long long t0 = support_now_ms();
	int fd = connect_from(src), r;

	if (fd == -1)
		return 0;
	r = closed_by_broker(fd, 2000) && support_now_ms() - t0 < 500;
	close(fd);
	return r;
}

/*
 * The pid of the master's child titled "...worker N" from /proc (the
 * admin tool would need a connection from 127.0.0.1, which is full).
 */
static pid_t
worker_pid(int slot)
{
	char path[64], buf[256], want[32];
	FILE *f;
	long pid;
	pid_t found = -1;
	size_t n, i;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
	    (long)d.pid, (long)d.pid);
	snprintf(want, sizeof(want), "worker %d", slot);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (found == -1 && fscanf(f, "%ld", &pid) == 1) {
		FILE *g;

		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		if ((g = fopen(path, "r")) == NULL)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, g);
		fclose(g);
		for (i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n] = '\0';
		if (strstr(buf, want) != NULL)
			found = (pid_t)pid;
	}
	fclose(f);
	return found;
}

/* The broker's count of connections from addr (its shm tables); -1 on error. */
static long
ip_count(const char *addr)
{
	char name[SHM_NAME_MAX];
	struct in_addr in;
	struct shm s;
	long n;

	inet_pton(AF_INET, addr, &in);
	if (shm_name_for(d.data, name, sizeof(name)) == -1 ||
	    shm_attach(&s, name) == -1)
		return -1;
	n = (long)ipcount_total(&s, ipcount_key(&in, 4));
	shm_detach(&s);
	return n;
}

/* Wait (bounded) until the broker counts n connections from addr. */
static long
wait_ip_count(const char *addr, long n)
{
	long long deadline = support_now_ms() + 5000;
	long c;

	while ((c = ip_count(addr)) != n && support_now_ms() < deadline)
		usleep(10 * 1000);
	return c;
}

static void
test_per_ip_limit(void)
{
	long long deadline;
	pid_t victim, respawned;
	char needle[64];
	int i, fd, alive, refused;

	/* No handshake timeout here: only the per-address limit acts. */
	CU_ASSERT_EQUAL_FATAL(flumed_start(&d, "max_connections_per_ip = 5\n"
	    "handshake_timeout_ms = 0\nworkers = 2\n"), 0);
	for (i = 0; i < LIMIT; i++) {
		fds[i] = served_from("127.0.0.1");
		CU_ASSERT_FATAL(fds[i] != -1);
	}
	CU_ASSERT_EQUAL(ip_count("127.0.0.1"), LIMIT);
	/* The sixth from 127.0.0.1 is closed at once. */
	CU_ASSERT(refused_from("127.0.0.1"));
	CU_ASSERT_EQUAL(ip_count("127.0.0.1"), LIMIT);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "too many connections from this "
	    "address (max_connections_per_ip 5)", 1, 5000), 1);
	/* Another address is not affected. */
	fd = served_from("127.0.0.2");
	CU_ASSERT(fd != -1);
	if (fd != -1)
		close(fd);
	/* The five are still served. */
	for (i = 0; i < LIMIT; i++)
		CU_ASSERT_EQUAL(support_handshake(fds[i], 3, 5000), 0);

	/* Closing one frees its place (once the worker saw the close). */
	close(fds[0]);
	fds[0] = -1;
	deadline = support_now_ms() + 5000;
	while (fds[0] == -1 && support_now_ms() < deadline)
		if ((fds[0] = served_from("127.0.0.1")) == -1)
			usleep(20 * 1000);
	CU_ASSERT_FATAL(fds[0] != -1);
	CU_ASSERT(refused_from("127.0.0.1"));

	/*
	 * SIGKILL worker 0: its connections die with it, and so do their
	 * counts; exactly LIMIT connections fit again once it is back.
	 */
	victim = worker_pid(0);
	CU_ASSERT_FATAL(victim > 0);
	CU_ASSERT_EQUAL_FATAL(kill(victim, SIGKILL), 0);
	/* Logged after the master repaired the slot (counts cleared). */
	CU_ASSERT(flumed_wait_log(&d, "exited on signal 9", 1, 10000) >= 1);
	/* The new worker 0 is accepting (and counting) before we go on. */
	deadline = support_now_ms() + 10000;
	while (((respawned = worker_pid(0)) <= 0 || respawned == victim) &&
	    support_now_ms() < deadline)
		usleep(20 * 1000);
	CU_ASSERT_FATAL(respawned > 0 && respawned != victim);
	snprintf(needle, sizeof(needle), "[worker 0 %ld] started",
	    (long)respawned);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, needle, 1, 10000), 1);
	alive = 0;
	for (i = 0; i < LIMIT; i++) {
		if (support_handshake(fds[i], 5, 5000) == 0) {
			alive++;
		} else {
			close(fds[i]);
			fds[i] = -1;
		}
	}
	for (i = 0; i < LIMIT; i++) {
		if (fds[i] != -1)
			continue;
		fds[i] = served_from("127.0.0.1");
		CU_ASSERT(fds[i] != -1);
	}
	CU_ASSERT_EQUAL(ip_count("127.0.0.1"), LIMIT);
	refused = refused_from("127.0.0.1");
	CU_ASSERT_EQUAL(refused, 1);
	printf("worker killed with %d of %d connections; all %d places back\n",
	    LIMIT - alive, LIMIT, LIMIT);
	close_all();
	CU_ASSERT_EQUAL(wait_ip_count("127.0.0.1", 0), 0);
	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	flumed_cleanup(&d);
}

/*
 * fds[from..to) are each closed by the broker (EOF within 5 s; closed
 * here then), handshake_timeout_ms (700 ms) after t0, not before: the
 * time that took.
 */
static long long
closed_after_timeout(int from, int to, long long t0)
{
	long long elapsed;
	int i;

	for (i = from; i < to; i++) {
		CU_ASSERT(closed_by_broker(fds[i], 5000));
		close(fds[i]);
		fds[i] = -1;
	}
	elapsed = support_now_ms() - t0;
	CU_ASSERT(elapsed >= 650);
	CU_ASSERT(elapsed < 5000);
	return elapsed;
}

static void
test_handshake_timeout(void)
{
	struct flume_client *c;
	long long t0, elapsed;
	int i, fd, ok;

	CU_ASSERT_EQUAL_FATAL(flumed_start(&d, "max_connections_per_ip = 3\n"
	    "handshake_timeout_ms = 700ms\nworkers = 2\n"), 0);
	/* One handshaken connection, then two idle ones fill 127.0.0.1. */
	fds[0] = served_from("127.0.0.1");
	CU_ASSERT_FATAL(fds[0] != -1);
	t0 = support_now_ms();
	for (i = 1; i < 3; i++) {
		fds[i] = connect_from("127.0.0.1");
		CU_ASSERT_FATAL(fds[i] != -1);
	}
	/* Accepted (and counted) by the workers before the next one comes. */
	CU_ASSERT_EQUAL_FATAL(wait_ip_count("127.0.0.1", 3), 3);
	/* A normal client from there is locked out for now ... */
	CU_ASSERT(refused_from("127.0.0.1"));
	/* ... and from 127.0.0.2 is not. */
	fd = served_from("127.0.0.2");
	CU_ASSERT(fd != -1);
	if (fd != -1)
		close(fd);
	/* The idle ones are closed after the timeout, not before. */
	elapsed = closed_after_timeout(1, 3, t0);
	printf("idle connections closed after %lld ms\n", elapsed);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "no HANDSHAKE within "
	    "handshake_timeout_ms (700 ms), closing"), 2);
	/* The one that sent a METADATA is still served. */
	CU_ASSERT_EQUAL(support_handshake(fds[0], 3, 5000), 0);
	/* A normal client (libflume) gets in again. */
	ok = 0;
	if ((c = flume_connect(d.broker)) != NULL) {
		struct flume_metadata *md = NULL;

		ok = flume_metadata(c, NULL, 0, 0, &md) == 0;
		flume_metadata_free(md);
		flume_close(c);
	}
	CU_ASSERT(ok);
	close_all();
	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	flumed_cleanup(&d);
}

/*
 * SILENT native connections that say HANDSHAKE and SILENT Kafka ones
 * that ask ApiVersions, then go silent, are closed after
 * handshake_timeout_ms (not before); one of each that sent a real
 * request (METADATA, Metadata) is still served after it.
 */
#define SILENT		5

static void
test_handshake_only(void)
{
	static const uint8_t no_topics[4] = { 0, 0, 0, 0 };
	struct flumed k;
	char extra[256];
	long long t0, elapsed;
	int16_t err;
	int i, kport, real_n, real_k;

	kport = support_free_port();
	CU_ASSERT_FATAL(kport > 0);
	snprintf(extra, sizeof(extra), "handshake_timeout_ms = 700ms\n"
	    "workers = 2\nkafka_listen = 127.0.0.1:%d\n", kport);
	CU_ASSERT_EQUAL_FATAL(flumed_start(&d, extra), 0);
	k = d;
	k.port = kport;
	t0 = support_now_ms();
	/* The real clients: a HANDSHAKE or ApiVersions, then metadata. */
	real_n = fds[0] = support_connect_served(&d, 5000);
	CU_ASSERT_FATAL(real_n != -1);
	CU_ASSERT_EQUAL_FATAL(metadata_all(real_n, 2), 0);
	real_k = fds[1] = support_connect(&k);
	CU_ASSERT_FATAL(real_k != -1);
	CU_ASSERT_EQUAL_FATAL(kafka_call(real_k, KAPI_API_VERSIONS, 0, 1,
	    NULL, 0, &err), 1);
	CU_ASSERT_EQUAL(err, KERR_NONE);
	/* Metadata v1 of no topic: librdkafka's first request. */
	CU_ASSERT_EQUAL_FATAL(kafka_call(real_k, KAPI_METADATA, 1, 2,
	    no_topics, sizeof(no_topics), &err), 1);
	/* The silent ones. */
	for (i = 0; i < SILENT; i++) {
		fds[2 + i] = support_connect_served(&d, 5000);
		CU_ASSERT_FATAL(fds[2 + i] != -1);
		fds[2 + SILENT + i] = support_connect(&k);
		CU_ASSERT_FATAL(fds[2 + SILENT + i] != -1);
		CU_ASSERT_EQUAL_FATAL(kafka_call(fds[2 + SILENT + i],
		    KAPI_API_VERSIONS, 2, 10 + i, NULL, 0, &err), 1);
		CU_ASSERT_EQUAL(err, KERR_NONE);
	}
	elapsed = closed_after_timeout(2, 2 + 2 * SILENT, t0);
	printf("handshake-only connections closed after %lld ms\n", elapsed);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "nothing past the handshake "
	    "within handshake_timeout_ms (700 ms), closing"), 2 * SILENT);
	/* Opened before all of them, the real clients are still served. */
	CU_ASSERT(support_now_ms() - t0 >= 700);
	CU_ASSERT_EQUAL(support_handshake(real_n, 3, 5000), 0);
	CU_ASSERT_EQUAL(kafka_call(real_k, KAPI_API_VERSIONS, 0, 3, NULL, 0,
	    &err), 1);
	CU_ASSERT_EQUAL(flumed_log_count(&d, "within handshake_timeout_ms"),
	    2 * SILENT);
	close_all();
	CU_ASSERT_EQUAL(flumed_stop(&d), 0);
	flumed_cleanup(&d);
}

TEST_SUITE("connlimits", setup, teardown,
    { "max_connections_per_ip", test_per_ip_limit },
    { "handshake_timeout_ms", test_handshake_timeout },
    { "handshake_timeout_ms: a handshake alone", test_handshake_only });
