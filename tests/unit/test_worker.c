/*
 * The worker process end to end, in-process: a temporary data directory,
 * a fresh shared-memory region, a listening socket on a free loopback
 * port and one eventfd per slot, then a forked worker (worker_main) and a
 * forked writer (writer_main), as the master would start them.  The tests
 * talk to the worker over raw sockets with the proto/msg.h codecs; every
 * client read is bounded by poll() timeouts, and the teardown kills
 * exactly the two children it forked.
 */
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <bsd/string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/broker.h"
#include "master/config.h"
#include "master/writer.h"
#include "common/log.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/wire.h"
#include "proto/version.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "worker/main.h"
#include "tests/harness.h"

#define IO_TIMEOUT_MS	5000

static struct config	 conf;
static struct broker	 tb;
static char		*topdir;	/* the test's own: holds datadir */
static char		*datadir;
static char		 shmname[SHM_NAME_MAX];
static int		 shm_made;
static int		 efds[3] = { -1, -1, -1 };
static int		 lfd = -1;
static uint16_t		 port;
static pid_t		 worker_pid = -1, writer_pid = -1;

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t
real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
kill_child(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = -1;
}

static pid_t
spawn(int slot, void (*fn)(struct broker *))
{
	pid_t pid;

	/* The child must not flush the parent's buffered output again. */
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		tb.slot = slot;
		fn(&tb);
		_exit(99);	/* not reached */
	}
	/* As the master does: its own record of who is in the slot. */
	tb.shm.children[slot].pid = pid;
	tb.shm.children[slot].start_ms = real_ms();
	return pid;
}

static int
suite_setup(void)
{
	struct shm_limits lim;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	int one = 1;

	/*
	 * data_dir one level down, so that what a bad topic name could reach
	 * ("../x") is still the test's own directory.
	 */
	topdir = test_mkdtemp("worker");
	if (topdir == NULL || asprintf(&datadir, "%s/data", topdir) == -1 ||
	    mkdir(datadir, 0700) == -1)
		return -1;
	config_defaults(&conf);
	strlcpy(conf.data_dir, datadir, sizeof(conf.data_dir));
	conf.workers = 1;
	conf.ring_size = 256 * 1024;
	conf.max_topics = 32;
	conf.max_partitions = 64;
	conf.partitions = 2;
	conf.idle_timeout_ms = 1500;
	conf.request_timeout_ms = 500;
	log_init(0, LOG_LVL_WARN, "test");

	memset(&lim, 0, sizeof(lim));
	lim.child_slots = 3;	/* a worker, the writer, the cleaner's slot */
	lim.max_topics = conf.max_topics;
	lim.max_partitions = conf.max_partitions;
	lim.ring_size = conf.ring_size;
	if (shm_name_for(datadir, shmname, sizeof(shmname)) == -1 ||
	    shm_create(&tb.shm, shmname, &lim) == -1)
		return -1;
	shm_made = 1;
	tb.shm.children[0].role = ROLE_WORKER;
	tb.shm.children[1].role = ROLE_WRITER;
	tb.shm.children[2].role = ROLE_CLEANER;

	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1)
		return -1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(lfd, 64) == -1 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &sl) == -1)
		return -1;
	port = ntohs(sin.sin_port);
	if ((efds[0] = eventfd(0, EFD_NONBLOCK)) == -1 ||
	    (efds[1] = eventfd(0, EFD_NONBLOCK)) == -1 ||
	    (efds[2] = eventfd(0, EFD_NONBLOCK)) == -1)
		return -1;

	tb.conf = &conf;
	tb.listen_fd = lfd;
	tb.eventfds = efds;
	tb.nslots = 3;
	if ((writer_pid = spawn(1, writer_main)) == -1 ||
	    (worker_pid = spawn(0, worker_main)) == -1)
		return -1;
	return 0;
}

static int
suite_teardown(void)
{
	kill_child(&worker_pid);
	kill_child(&writer_pid);
	if (lfd != -1)
		close(lfd);
	if (efds[0] != -1)
		close(efds[0]);
	if (efds[1] != -1)
		close(efds[1]);
	if (efds[2] != -1)
		close(efds[2]);
	if (shm_made) {
		shm_detach(&tb.shm);
		shm_unlink_name(shmname);
	}
	test_rmtree(topdir);
	free(topdir);
	free(datadir);
	config_free(&conf);
	return 0;
}

/* ---- a tiny client ---- */

struct client {
	int			 fd;
	struct frame_reader	 rd;
	struct wbuf		 wb;
	struct arena		 a;
	size_t			 start;
};

static int
client_open(struct client *cl)
{
	struct sockaddr_in sin;
	int one = 1;

	memset(cl, 0, sizeof(*cl));
	frame_reader_init(&cl->rd, FRAME_RESPONSE, 64u << 20);
	wbuf_init(&cl->wb);
	arena_init(&cl->a, 64u << 20);
	if ((cl->fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if (connect(cl->fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		return -1;
	setsockopt(cl->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

static void
client_close(struct client *cl)
{
	if (cl->fd >= 0)
		close(cl->fd);
	cl->fd = -1;
	frame_reader_free(&cl->rd);
	wbuf_free(&cl->wb);
	arena_free(&cl->a);
}

static int
send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	struct pollfd pfd;
	ssize_t n;

	while (len > 0) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, IO_TIMEOUT_MS) != 1)
			return -1;
		if ((n = send(fd, p, len, MSG_NOSIGNAL)) <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Start a request frame in cl->wb (after what it holds). */
static struct wbuf *
req_begin(struct client *cl, uint16_t api, uint32_t id)
{
	cl->start = frame_begin_request(&cl->wb, api, id);
	return &cl->wb;
}

static void
req_end(struct client *cl)
{
	frame_end(&cl->wb, cl->start);
}

/* Send everything in cl->wb. */
static int
client_flush(struct client *cl)
{
	int rc;

	rc = cl->wb.err ? -1 : send_all(cl->fd, cl->wb.buf, cl->wb.len);
	wbuf_reset(&cl->wb);
	return rc;
}

/* 1 and *f, 0 on timeout, -1 when the connection closed. */
static int
client_recv(struct client *cl, struct frame *f, int timeout_ms)
{
	struct pollfd pfd;
	int64_t end = mono_ms() + timeout_ms;
	uint8_t *p;
	size_t room;
	ssize_t n;
	int st;

	for (;;) {
		if ((st = frame_reader_next(&cl->rd, f)) != 0)
			return st;
		if (mono_ms() >= end)
			return 0;
		pfd.fd = cl->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)(end - mono_ms() > 0 ? end - mono_ms() : 0)) < 1)
			continue;
		if ((p = frame_reader_space(&cl->rd, &room)) == NULL)
			return -1;
		n = recv(cl->fd, p, room, 0);
		if (n <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			return -1;
		}
		frame_reader_commit(&cl->rd, (size_t)n);
	}
}

/* Send what is in cl->wb and wait for the response to id. */
static int
client_call(struct client *cl, uint32_t id, struct frame *f)
{
	arena_reset(&cl->a);
	if (client_flush(cl) == -1)
		return -1;
	if (client_recv(cl, f, IO_TIMEOUT_MS) != 1)
		return -1;
	return f->request_id == id ? 0 : -1;
}

/* ---- request helpers ---- */

static int
do_create(struct client *cl, const char *name, size_t len, int32_t parts,
    struct create_topic_resp *out)
{
	struct create_topic_req q = { name, len, parts };
	struct frame f;

	msg_encode_create_topic_req(req_begin(cl, API_CREATE_TOPIC, 7), &q);
	req_end(cl);
	if (client_call(cl, 7, &f) == -1)
		return -1;
	return msg_decode_create_topic_resp(f.payload, f.payload_len, out);
}

/* One batch of n records "k<i>"/"v<seed>-<i>". */
static void
make_batch(struct batch_builder *bb, int seed, int n)
{
	char k[32], v[64];
	int i;

	batch_builder_reset(bb);
	for (i = 0; i < n; i++) {
		snprintf(k, sizeof(k), "k%d", i);
		snprintf(v, sizeof(v), "v%d-%d", seed, i);
		batch_builder_add(bb, 1700000000000LL + i, k, (int32_t)strlen(k),
		    v, (int32_t)strlen(v), NULL, 0);
	}
}

static int
do_produce(struct client *cl, int8_t acks, const char *topic, int32_t part,
    const uint8_t *rec, int32_t len, uint32_t id, struct produce_resp *out)
{
	struct produce_part pp = { topic, strlen(topic), part, rec, len };
	struct produce_req q = { acks, 5000, 1, &pp };
	struct frame f;

	msg_encode_produce_req(req_begin(cl, API_PRODUCE, id), &q);
	req_end(cl);
	if (acks == 0) {
		int rc = client_flush(cl);

		return rc;
	}
	if (client_call(cl, id, &f) == -1)
		return -1;
	return msg_decode_produce_resp(f.payload, f.payload_len, &cl->a, out);
}

static int
do_fetch(struct client *cl, const char *topic, int32_t part, int64_t off,
    int32_t max_wait, int32_t min_bytes, uint32_t id, struct fetch_resp *out)
{
	struct fetch_part fp = { topic, strlen(topic), part, off, 1 << 20 };
	struct fetch_req q = { max_wait, min_bytes, 4 << 20, 1, &fp, 0 };
	struct frame f;

	msg_encode_fetch_req(req_begin(cl, API_FETCH, id), &q);
	req_end(cl);
	arena_reset(&cl->a);
	if (client_flush(cl) == -1 ||
	    client_recv(cl, &f, max_wait + IO_TIMEOUT_MS) != 1 ||
	    f.request_id != id)
		return -1;
	return msg_decode_fetch_resp(f.payload, f.payload_len, &cl->a, out);
}

static int64_t
do_latest(struct client *cl, const char *topic, int32_t part, int64_t which)
{
	struct list_offsets_part lp = { topic, strlen(topic), part, which };
	struct list_offsets_req q = { 1, &lp };
	struct list_offsets_resp r;
	struct frame f;

	msg_encode_list_offsets_req(req_begin(cl, API_LIST_OFFSETS, 11), &q);
	req_end(cl);
	if (client_call(cl, 11, &f) == -1 ||
	    msg_decode_list_offsets_resp(f.payload, f.payload_len, &cl->a, &r) == -1 ||
	    r.count != 1 || r.results[0].error != ERR_NONE)
		return -100;
	return r.results[0].offset;
}

/*
 * Wait (bounded) until the writer made offset `want` visible: the
 * partition's visible_offset in the region, not LIST_OFFSETS' latest,
 * which is the acknowledged end, ring included (worker/handlers.c
 * part_end), and is reached before the writer drains anything.
 */
static int64_t
wait_visible(struct client *cl, const char *topic, int32_t part, int64_t want)
{
	int64_t end = mono_ms() + IO_TIMEOUT_MS, v = -1;
	struct shm_partition *p;
	struct fetch_resp fr;
	int t;

	if ((t = shm_topic_find(&tb.shm, topic, strlen(topic))) < 0 ||
	    (p = shm_partition(&tb.shm, t, part)) == NULL)
		return -1;
	while (mono_ms() < end) {
		v = atomic_load_explicit(&p->visible_offset, memory_order_acquire);
		if (v >= want)
			return v;
		/* A long poll at the visible end is the wait (no sleep). */
		if (do_fetch(cl, topic, part, v, 200, 1, 12, &fr) == -1)
			return -1;
	}
	return v;
}

/* Every record in records (whole batches) in order: returns the count. */
static int
check_records(const uint8_t *p, size_t len, int64_t first, const int *seeds,
    const int *counts, int nbatches)
{
	struct batch_iter it;
	struct record rec;
	size_t off = 0, total;
	char v[64];
	int b = 0, i, n = 0;
	int64_t expect = first;

	while (off < len && b < nbatches) {
		if (len - off < BATCH_HEADER_SIZE)
			return -1;
		total = BATCH_LOG_OVERHEAD + be32_get(p + off + BATCH_OFF_LENGTH);
		if (total > len - off || batch_validate(p + off, total, NULL) != 0)
			return -1;
		if (batch_base_offset(p + off) != expect)
			return -1;
		if (batch_iter_init(&it, p + off, total) == -1)
			return -1;
		for (i = 0; batch_iter_next(&it, &rec) == 1; i++) {
			snprintf(v, sizeof(v), "v%d-%d", seeds[b], i);
			if (rec.offset != expect + i ||
			    rec.value_len != (int32_t)strlen(v) ||
			    memcmp(rec.value, v, strlen(v)) != 0)
				return -1;
			n++;
		}
		if (i != counts[b])
			return -1;
		expect += counts[b];
		off += total;
		b++;
	}
	return off == len ? n : -1;
}

/* ---- tests ---- */

static void
test_handshake(void)
{
	struct client cl;
	struct handshake_req q = { 1, "test", 4 };
	struct handshake_resp r;
	struct frame f;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	msg_encode_handshake_req(req_begin(&cl, API_HANDSHAKE, 1), &q);
	req_end(&cl);
	CU_ASSERT_FATAL(client_call(&cl, 1, &f) == 0);
	CU_ASSERT_FATAL(msg_decode_handshake_resp(f.payload, f.payload_len, &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_NONE);
	CU_ASSERT_EQUAL(r.version, FLUME_PROTOCOL_VERSION);
	CU_ASSERT_EQUAL(r.max_frame, (int32_t)conf.max_request_bytes);
	CU_ASSERT(r.broker_len == strlen(FLUME_BROKER_NAME) &&
	    memcmp(r.broker, FLUME_BROKER_NAME, r.broker_len) == 0);

	q.version = 0;
	msg_encode_handshake_req(req_begin(&cl, API_HANDSHAKE, 2), &q);
	req_end(&cl);
	CU_ASSERT_FATAL(client_call(&cl, 2, &f) == 0);
	CU_ASSERT_FATAL(msg_decode_handshake_resp(f.payload, f.payload_len, &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_UNSUPPORTED_VERSION);
	client_close(&cl);
}

static void
test_create_topic(void)
{
	struct client cl;
	struct create_topic_resp r;
	struct stat st;
	char path[1024];

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	CU_ASSERT_FATAL(do_create(&cl, "orders", 6, 3, &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_NONE);
	CU_ASSERT_EQUAL(r.partitions, 3);
	/* Answered once the writer has made the files. */
	snprintf(path, sizeof(path), "%s/orders/topic.meta", datadir);
	CU_ASSERT(stat(path, &st) == 0 && S_ISREG(st.st_mode));
	snprintf(path, sizeof(path), "%s/orders/partition-2", datadir);
	CU_ASSERT(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	CU_ASSERT_FATAL(do_create(&cl, "orders", 6, 5, &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_TOPIC_EXISTS);
	CU_ASSERT_EQUAL(r.partitions, 3);
	CU_ASSERT_FATAL(do_create(&cl, "dflt", 4, 0, &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_NONE);
	CU_ASSERT_EQUAL(r.partitions, conf.partitions);
	CU_ASSERT_FATAL(do_create(&cl, "neg", 3, -1, &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_INVALID_PARTITIONS);
	CU_ASSERT_FATAL(do_create(&cl, "big", 3, (int32_t)conf.max_partitions + 1,
	    &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_INVALID_PARTITIONS);
	CU_ASSERT(shm_topic_find(&tb.shm, "neg", 3) < 0);
	CU_ASSERT(shm_topic_find(&tb.shm, "orders", 6) >= 0);
	client_close(&cl);
}

static void
test_metadata(void)
{
	struct client cl;
	struct wire_str names[2] = { { "orders", 6 }, { "nope", 4 } };
	struct metadata_req q = { 0, 2, names };
	struct metadata_resp r;
	struct create_topic_resp cr;
	struct frame f;
	int32_t i;
	int found = 0;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	CU_ASSERT_FATAL(do_create(&cl, "orders", 6, 3, &cr) == 0);
	msg_encode_metadata_req(req_begin(&cl, API_METADATA, 3), &q);
	req_end(&cl);
	CU_ASSERT_FATAL(client_call(&cl, 3, &f) == 0);
	CU_ASSERT_FATAL(msg_decode_metadata_resp(f.payload, f.payload_len, &cl.a, &r) == 0);
	CU_ASSERT_EQUAL_FATAL(r.count, 2);
	CU_ASSERT_EQUAL(r.topics[0].error, ERR_NONE);
	CU_ASSERT(r.topics[0].name_len == 6 && memcmp(r.topics[0].name, "orders", 6) == 0);
	CU_ASSERT_EQUAL_FATAL(r.topics[0].count, 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(r.topics[0].partitions[i].partition, i);
		CU_ASSERT_EQUAL(r.topics[0].partitions[i].log_start, 0);
		CU_ASSERT_EQUAL(r.topics[0].partitions[i].log_end, 0);
	}
	CU_ASSERT_EQUAL(r.topics[1].error, ERR_UNKNOWN_TOPIC_OR_PARTITION);
	CU_ASSERT(r.topics[1].name_len == 4 && memcmp(r.topics[1].name, "nope", 4) == 0);
	CU_ASSERT(shm_topic_find(&tb.shm, "nope", 4) < 0);

	/* auto_create makes it, with the default partition count */
	names[0].s = "auto1";
	names[0].len = 5;
	q.auto_create = 1;
	q.count = 1;
	msg_encode_metadata_req(req_begin(&cl, API_METADATA, 4), &q);
	req_end(&cl);
	CU_ASSERT_FATAL(client_call(&cl, 4, &f) == 0);
	CU_ASSERT_FATAL(msg_decode_metadata_resp(f.payload, f.payload_len, &cl.a, &r) == 0);
	CU_ASSERT_EQUAL_FATAL(r.count, 1);
	CU_ASSERT_EQUAL(r.topics[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(r.topics[0].count, conf.partitions);
	CU_ASSERT(shm_topic_find(&tb.shm, "auto1", 5) >= 0);

	/* count 0: every topic */
	q.count = 0;
	q.auto_create = 0;
	msg_encode_metadata_req(req_begin(&cl, API_METADATA, 5), &q);
	req_end(&cl);
	CU_ASSERT_FATAL(client_call(&cl, 5, &f) == 0);
	CU_ASSERT_FATAL(msg_decode_metadata_resp(f.payload, f.payload_len, &cl.a, &r) == 0);
	CU_ASSERT_EQUAL(r.count, (int32_t)tb.shm.hdr->topic_count);
	for (i = 0; i < r.count; i++)
		if (r.topics[i].name_len == 5 && memcmp(r.topics[i].name, "auto1", 5) == 0)
			found++;
	CU_ASSERT_EQUAL(found, 1);
	client_close(&cl);
}

static void
test_produce_fetch(void)
{
	struct client cl;
	struct batch_builder bb;
	struct create_topic_resp cr;
	struct produce_resp pr;
	struct fetch_resp fr;
	const uint8_t *b;
	size_t blen, total = 0;
	int seeds[3] = { 1, 2, 3 }, counts[3] = { 2, 3, 1 };
	int i;
	int64_t base = 0;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	batch_builder_init(&bb);
	CU_ASSERT_FATAL(do_create(&cl, "pf", 2, 1, &cr) == 0);
	CU_ASSERT_EQUAL(cr.error, ERR_NONE);
	for (i = 0; i < 3; i++) {
		make_batch(&bb, seeds[i], counts[i]);
		CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
		total += blen;
		CU_ASSERT_FATAL(do_produce(&cl, 1, "pf", 0, b, (int32_t)blen,
		    20 + (uint32_t)i, &pr) == 0);
		CU_ASSERT_EQUAL_FATAL(pr.count, 1);
		CU_ASSERT_EQUAL(pr.results[0].error, ERR_NONE);
		CU_ASSERT_EQUAL(pr.results[0].base_offset, base);
		base += counts[i];
	}
	CU_ASSERT_EQUAL(wait_visible(&cl, "pf", 0, 6), 6);
	CU_ASSERT_EQUAL(do_latest(&cl, "pf", 0, OFFSET_EARLIEST), 0);

	CU_ASSERT_FATAL(do_fetch(&cl, "pf", 0, 0, 1000, 1, 30, &fr) == 0);
	CU_ASSERT_EQUAL_FATAL(fr.count, 1);
	CU_ASSERT_EQUAL(fr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(fr.results[0].high_watermark, 6);
	CU_ASSERT_EQUAL(fr.results[0].log_start, 0);
	CU_ASSERT_EQUAL((size_t)fr.results[0].records_len, total);
	CU_ASSERT_EQUAL(check_records(fr.results[0].records,
	    (size_t)fr.results[0].records_len, 0, seeds, counts, 3), 6);

	/* From offset 2: starts with the batch holding it. */
	CU_ASSERT_FATAL(do_fetch(&cl, "pf", 0, 3, 1000, 1, 31, &fr) == 0);
	CU_ASSERT_EQUAL(fr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(check_records(fr.results[0].records,
	    (size_t)fr.results[0].records_len, 2, seeds + 1, counts + 1, 2), 4);

	/* Past the end: out of range; at the end with no wait: empty. */
	CU_ASSERT_FATAL(do_fetch(&cl, "pf", 0, 7, 0, 1, 32, &fr) == 0);
	CU_ASSERT_EQUAL(fr.results[0].error, ERR_OFFSET_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(fr.results[0].high_watermark, 6);
	CU_ASSERT_FATAL(do_fetch(&cl, "pf", 0, 6, 0, 1, 33, &fr) == 0);
	CU_ASSERT_EQUAL(fr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(fr.results[0].records_len, 0);
	/* Unknown partition. */
	CU_ASSERT_FATAL(do_fetch(&cl, "pf", 1, 0, 0, 1, 34, &fr) == 0);
	CU_ASSERT_EQUAL(fr.results[0].error, ERR_UNKNOWN_TOPIC_OR_PARTITION);
	batch_builder_free(&bb);
	client_close(&cl);
}

static void
test_acks(void)
{
	struct client cl;
	struct batch_builder bb;
	struct create_topic_resp cr;
	struct produce_resp pr;
	const uint8_t *b;
	size_t blen;
	struct shm_partition *p;
	int idx;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	batch_builder_init(&bb);
	CU_ASSERT_FATAL(do_create(&cl, "acks", 4, 1, &cr) == 0);
	make_batch(&bb, 9, 4);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
	/* acks=all: answered once durable. */
	CU_ASSERT_FATAL(do_produce(&cl, -1, "acks", 0, b, (int32_t)blen, 40, &pr) == 0);
	CU_ASSERT_EQUAL_FATAL(pr.count, 1);
	CU_ASSERT_EQUAL(pr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(pr.results[0].base_offset, 0);
	CU_ASSERT_FATAL((idx = shm_topic_find(&tb.shm, "acks", 4)) >= 0);
	p = shm_partition(&tb.shm, idx, 0);
	CU_ASSERT(atomic_load(&p->durable_offset) >= 4);
	/* acks=0: nothing comes back; the next answer is the next request's. */
	CU_ASSERT_FATAL(do_produce(&cl, 0, "acks", 0, b, (int32_t)blen, 41, &pr) == 0);
	CU_ASSERT_EQUAL(wait_visible(&cl, "acks", 0, 8), 8);
	CU_ASSERT_FATAL(do_produce(&cl, 1, "acks", 0, b, (int32_t)blen, 42, &pr) == 0);
	CU_ASSERT_EQUAL(pr.results[0].base_offset, 8);
	batch_builder_free(&bb);
	client_close(&cl);
}

static void
test_corrupt_crc(void)
{
	struct client cl;
	struct batch_builder bb;
	struct produce_resp pr;
	const uint8_t *b;
	uint8_t *copy, *big;
	size_t blen;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	batch_builder_init(&bb);
	make_batch(&bb, 5, 3);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
	copy = malloc(blen);
	CU_ASSERT_FATAL(copy != NULL);
	memcpy(copy, b, blen);
	copy[blen - 2] ^= 0x40;		/* a value byte: CRC no longer matches */
	CU_ASSERT_FATAL(do_produce(&cl, 1, "orders", 0, copy, (int32_t)blen, 50, &pr) == 0);
	CU_ASSERT_EQUAL_FATAL(pr.count, 1);
	CU_ASSERT_EQUAL(pr.results[0].error, ERR_CORRUPT_MESSAGE);
	/* Too short to be a batch at all. */
	CU_ASSERT_FATAL(do_produce(&cl, 1, "orders", 0, copy, 30, 51, &pr) == 0);
	CU_ASSERT_EQUAL(pr.results[0].error, ERR_CORRUPT_MESSAGE);
	/* Larger than max_message_bytes: refused before validation. */
	big = calloc(1, conf.max_message_bytes + 1);
	CU_ASSERT_FATAL(big != NULL);
	CU_ASSERT_FATAL(do_produce(&cl, 1, "orders", 0, big,
	    (int32_t)conf.max_message_bytes + 1, 53, &pr) == 0);
	CU_ASSERT_EQUAL(pr.results[0].error, ERR_MESSAGE_TOO_LARGE);
	free(big);
	/* The connection still works, and nothing was appended. */
	CU_ASSERT_EQUAL(do_latest(&cl, "orders", 0, OFFSET_LATEST), 0);
	CU_ASSERT_FATAL(do_produce(&cl, 1, "orders", 0, b, (int32_t)blen, 52, &pr) == 0);
	CU_ASSERT_EQUAL(pr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(pr.results[0].base_offset, 0);
	free(copy);
	batch_builder_free(&bb);
	client_close(&cl);
}

static void
test_bad_topic_names(void)
{
	struct client cl;
	struct batch_builder bb;
	struct produce_resp pr;
	struct create_topic_resp cr;
	const uint8_t *b;
	size_t blen;
	char longname[251], path[PATH_MAX + 16];
	const char *bad[] = { "../x", "a/b", "", longname, ".", ".." };
	struct stat st;
	size_t i;

	memset(longname, 'n', 250);
	longname[250] = '\0';
	CU_ASSERT_FATAL(client_open(&cl) == 0);
	batch_builder_init(&bb);
	make_batch(&bb, 6, 1);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_FATAL(do_create(&cl, bad[i], strlen(bad[i]), 1, &cr) == 0);
		CU_ASSERT_EQUAL(cr.error, ERR_INVALID_TOPIC);
		CU_ASSERT_FATAL(do_produce(&cl, 1, bad[i], 0, b, (int32_t)blen,
		    60 + (uint32_t)i, &pr) == 0);
		CU_ASSERT_EQUAL(pr.results[0].error, ERR_INVALID_TOPIC);
		CU_ASSERT(shm_topic_find(&tb.shm, bad[i], strlen(bad[i])) < 0);
	}
	snprintf(path, sizeof(path), "%s/../x", datadir);
	CU_ASSERT(stat(path, &st) == -1 && errno == ENOENT);
	snprintf(path, sizeof(path), "%s/a", datadir);
	CU_ASSERT(stat(path, &st) == -1 && errno == ENOENT);
	batch_builder_free(&bb);
	client_close(&cl);
}

/*
 * The reserved names (Kafka's internal topics, the broker's lock file):
 * a create, a produce and a delete are INVALID_TOPIC, a Metadata with
 * auto_create does not make one (UNKNOWN_TOPIC_OR_PARTITION), and
 * nothing reaches shared memory or the disk.
 */
static void
test_reserved_names(void)
{
	static const char *const names[] = { "__consumer_offsets",
	    "__transaction_state", "flume.pid" };
	struct client cl;
	struct batch_builder bb;
	struct produce_resp pr;
	struct create_topic_resp cr;
	struct delete_topic_resp dr;
	struct metadata_resp mr;
	struct wire_str ws;
	struct metadata_req mq = { 1, 1, &ws };
	struct delete_topic_req dq;
	struct frame f;
	const uint8_t *b;
	size_t blen, i;
	char path[PATH_MAX + 32];
	struct stat st;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	batch_builder_init(&bb);
	make_batch(&bb, 9, 1);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ws.s = names[i];
		ws.len = strlen(names[i]);
		msg_encode_metadata_req(req_begin(&cl, API_METADATA, 80), &mq);
		req_end(&cl);
		CU_ASSERT_FATAL(client_call(&cl, 80, &f) == 0);
		CU_ASSERT_FATAL(msg_decode_metadata_resp(f.payload,
		    f.payload_len, &cl.a, &mr) == 0);
		CU_ASSERT_EQUAL_FATAL(mr.count, 1);
		CU_ASSERT_EQUAL(mr.topics[0].error,
		    ERR_UNKNOWN_TOPIC_OR_PARTITION);
		CU_ASSERT_EQUAL(mr.topics[0].count, 0);

		CU_ASSERT_FATAL(do_create(&cl, names[i], strlen(names[i]), 3,
		    &cr) == 0);
		CU_ASSERT_EQUAL(cr.error, ERR_INVALID_TOPIC);
		CU_ASSERT_FATAL(do_produce(&cl, 1, names[i], 0, b,
		    (int32_t)blen, 81, &pr) == 0);
		CU_ASSERT_EQUAL_FATAL(pr.count, 1);
		CU_ASSERT_EQUAL(pr.results[0].error, ERR_INVALID_TOPIC);

		dq.topic = names[i];
		dq.topic_len = strlen(names[i]);
		dq.timeout_ms = 5000;
		msg_encode_delete_topic_req(req_begin(&cl, API_DELETE_TOPIC,
		    82), &dq);
		req_end(&cl);
		CU_ASSERT_FATAL(client_call(&cl, 82, &f) == 0);
		CU_ASSERT_FATAL(msg_decode_delete_topic_resp(f.payload,
		    f.payload_len, &dr) == 0);
		CU_ASSERT_EQUAL(dr.error, ERR_INVALID_TOPIC);

		CU_ASSERT(shm_topic_find(&tb.shm, names[i],
		    strlen(names[i])) < 0);
		snprintf(path, sizeof(path), "%s/%s", datadir, names[i]);
		CU_ASSERT(stat(path, &st) == -1 && errno == ENOENT);
	}
	batch_builder_free(&bb);
	client_close(&cl);
}

static void
test_huge_frame(void)
{
	struct client bad, good;
	struct batch_builder bb;
	struct produce_resp pr;
	struct fetch_resp fr;
	const uint8_t *b;
	size_t blen;
	uint8_t hdr[10];
	struct frame f;
	int seeds[1] = { 77 }, counts[1] = { 2 };
	int64_t end;

	CU_ASSERT_FATAL(client_open(&bad) == 0);
	CU_ASSERT_FATAL(client_open(&good) == 0);
	be32_put(hdr, 0x80000000u);	/* 2 GiB */
	be16_put(hdr + 4, API_PRODUCE);
	be32_put(hdr + 6, 1);
	CU_ASSERT_FATAL(send_all(bad.fd, hdr, sizeof(hdr)) == 0);
	CU_ASSERT_EQUAL(client_recv(&bad, &f, IO_TIMEOUT_MS), -1);

	batch_builder_init(&bb);
	make_batch(&bb, 77, 2);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
	CU_ASSERT_FATAL(do_produce(&good, 1, "orders", 2, b, (int32_t)blen, 70, &pr) == 0);
	CU_ASSERT_EQUAL(pr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(pr.results[0].base_offset, 0);
	end = pr.results[0].base_offset + 2;
	CU_ASSERT_EQUAL(wait_visible(&good, "orders", 2, end), end);
	CU_ASSERT_FATAL(do_fetch(&good, "orders", 2, 0, 1000, 1, 71, &fr) == 0);
	CU_ASSERT_EQUAL(fr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(check_records(fr.results[0].records,
	    (size_t)fr.results[0].records_len, 0, seeds, counts, 1), 2);
	batch_builder_free(&bb);
	client_close(&bad);
	client_close(&good);
}

/* Send a raw payload for api; the decoded error of its answer. */
static int
raw_error(struct client *cl, uint16_t api, const void *payload, size_t len,
    uint32_t id)
{
	struct frame f;

	req_begin(cl, api, id);
	wbuf_raw(&cl->wb, payload, len);
	req_end(cl);
	if (client_call(cl, id, &f) == -1 || f.payload_len < 2)
		return -1;
	return (int16_t)be16_get(f.payload);
}

static void
test_malformed(void)
{
	struct client cl;
	struct batch_builder bb;
	struct produce_part pp;
	struct produce_req q;
	struct wbuf wb;
	const uint8_t *b;
	size_t blen;
	uint8_t buf[64];
	struct handshake_req hq = { 1, "x", 1 };
	struct handshake_resp hr;
	struct frame f;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	batch_builder_init(&bb);
	make_batch(&bb, 8, 2);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
	pp = (struct produce_part){ "orders", 6, 0, b, (int32_t)blen };
	q = (struct produce_req){ 1, 1000, 1, &pp };
	wbuf_init(&wb);
	msg_encode_produce_req(&wb, &q);
	CU_ASSERT_FATAL(wb.err == 0);
	/* truncated payload */
	CU_ASSERT_EQUAL(raw_error(&cl, API_PRODUCE, wb.buf, wb.len - 5, 80),
	    ERR_INVALID_REQUEST);
	/* negative records length */
	wbuf_reset(&wb);
	wbuf_i8(&wb, 1);
	wbuf_i32(&wb, 1000);
	wbuf_i32(&wb, 1);
	wbuf_str(&wb, "orders", 6);
	wbuf_i32(&wb, 0);
	wbuf_i32(&wb, -5);
	CU_ASSERT_EQUAL(raw_error(&cl, API_PRODUCE, wb.buf, wb.len, 81),
	    ERR_INVALID_REQUEST);
	/* overlong count */
	wbuf_reset(&wb);
	wbuf_i32(&wb, 1000);
	wbuf_i32(&wb, 1);
	wbuf_i32(&wb, 1 << 20);
	wbuf_i32(&wb, 1000000);
	wbuf_str(&wb, "orders", 6);
	CU_ASSERT_EQUAL(raw_error(&cl, API_FETCH, wb.buf, wb.len, 82),
	    ERR_INVALID_REQUEST);
	/* negative count */
	be32_put(buf, 0xffffffffu);
	CU_ASSERT_EQUAL(raw_error(&cl, API_LIST_OFFSETS, buf, 4, 83),
	    ERR_INVALID_REQUEST);
	/* string longer than the payload */
	be16_put(buf, 200);
	memset(buf + 2, 'a', 10);
	CU_ASSERT_EQUAL(raw_error(&cl, API_CREATE_TOPIC, buf, 12, 84),
	    ERR_INVALID_REQUEST);
	/* empty payload, trailing bytes */
	CU_ASSERT_EQUAL(raw_error(&cl, API_METADATA, buf, 0, 85),
	    ERR_INVALID_REQUEST);
	memset(buf, 0, 16);
	CU_ASSERT_EQUAL(raw_error(&cl, API_WORKERS, buf, 3, 86),
	    ERR_INVALID_REQUEST);
	/* the connection is still fine */
	msg_encode_handshake_req(req_begin(&cl, API_HANDSHAKE, 87), &hq);
	req_end(&cl);
	CU_ASSERT_FATAL(client_call(&cl, 87, &f) == 0);
	CU_ASSERT_FATAL(msg_decode_handshake_resp(f.payload, f.payload_len, &hr) == 0);
	CU_ASSERT_EQUAL(hr.error, ERR_NONE);
	wbuf_free(&wb);
	batch_builder_free(&bb);
	client_close(&cl);
}

static void
test_unknown_api(void)
{
	struct client cl;
	struct frame f;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	CU_ASSERT_EQUAL(raw_error(&cl, 99, "abc", 3, 90), ERR_UNSUPPORTED_API);
	CU_ASSERT_EQUAL(raw_error(&cl, 0, NULL, 0, 91), ERR_UNSUPPORTED_API);
	CU_ASSERT_EQUAL(raw_error(&cl, API_MAX, "zz", 2, 92),
	    ERR_UNSUPPORTED_API);
	req_begin(&cl, 500, 93);
	req_end(&cl);
	CU_ASSERT_FATAL(client_call(&cl, 93, &f) == 0);
	CU_ASSERT_EQUAL(f.payload_len, 2);
	client_close(&cl);
}

static void
test_pipelining(void)
{
	struct client cl;
	struct batch_builder bb;
	struct produce_part pp;
	struct produce_req pq;
	struct list_offsets_part lp = { "pipe", 4, 0, OFFSET_EARLIEST };
	struct list_offsets_req lq = { 1, &lp };
	struct wire_str nm = { "pipe", 4 };
	struct metadata_req mq = { 0, 1, &nm };
	struct create_topic_resp cr;
	struct produce_resp pr;
	const uint8_t *b;
	size_t blen;
	struct frame f;
	uint32_t i;
	int64_t expect = 0;
	int ok = 0;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	CU_ASSERT_FATAL(do_create(&cl, "pipe", 4, 1, &cr) == 0);
	batch_builder_init(&bb);
	make_batch(&bb, 3, 2);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
	pp = (struct produce_part){ "pipe", 4, 0, b, (int32_t)blen };
	pq = (struct produce_req){ 1, 5000, 1, &pp };
	for (i = 0; i < 50; i++) {
		switch (i % 3) {
		case 0:
			msg_encode_produce_req(req_begin(&cl, API_PRODUCE, 1000 + i), &pq);
			break;
		case 1:
			msg_encode_list_offsets_req(req_begin(&cl, API_LIST_OFFSETS,
			    1000 + i), &lq);
			break;
		default:
			msg_encode_metadata_req(req_begin(&cl, API_METADATA, 1000 + i), &mq);
			break;
		}
		req_end(&cl);
	}
	CU_ASSERT_FATAL(client_flush(&cl) == 0);
	for (i = 0; i < 50; i++) {
		if (client_recv(&cl, &f, IO_TIMEOUT_MS) != 1)
			break;
		if (f.request_id != 1000 + i)
			break;
		if (i % 3 == 0) {
			arena_reset(&cl.a);
			if (msg_decode_produce_resp(f.payload, f.payload_len, &cl.a,
			    &pr) == -1 || pr.count != 1 ||
			    pr.results[0].error != ERR_NONE ||
			    pr.results[0].base_offset != expect)
				break;
			expect += 2;
		} else if (f.payload_len < 2 || be16_get(f.payload) != 0)
			break;
		ok++;
	}
	CU_ASSERT_EQUAL(ok, 50);
	batch_builder_free(&bb);
	client_close(&cl);
}

static void
test_long_poll(void)
{
	struct client a, pcl;
	struct batch_builder bb;
	struct create_topic_resp cr;
	struct produce_resp pr;
	struct fetch_part fp = { "lp", 2, 0, 0, 1 << 20 };
	struct fetch_req q = { 300, 1, 1 << 20, 1, &fp, 0 };
	struct fetch_resp fr;
	const uint8_t *b;
	size_t blen;
	struct frame f;
	int seeds[1] = { 42 }, counts[1] = { 3 };
	int64_t t0, t1, tp;

	CU_ASSERT_FATAL(client_open(&a) == 0);
	CU_ASSERT_FATAL(client_open(&pcl) == 0);
	CU_ASSERT_FATAL(do_create(&a, "lp", 2, 1, &cr) == 0);

	/* Nothing arrives: the answer comes after max_wait_ms, empty. */
	t0 = mono_ms();
	CU_ASSERT_FATAL(do_fetch(&a, "lp", 0, 0, 300, 1, 100, &fr) == 0);
	t1 = mono_ms();
	CU_ASSERT_EQUAL(fr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(fr.results[0].records_len, 0);
	CU_ASSERT(t1 - t0 >= 300);

	/*
	 * Data arrives: the produce wakes the fetch.  It would otherwise wait
	 * 60 s, far past the 5 s the client waits for the answer, so getting
	 * one proves the wake-up without timing it.
	 */
	q.max_wait_ms = 60000;
	msg_encode_fetch_req(req_begin(&a, API_FETCH, 101), &q);
	req_end(&a);
	t0 = mono_ms();
	CU_ASSERT_FATAL(client_flush(&a) == 0);
	/* The fetch is parked: no answer yet. */
	CU_ASSERT_EQUAL(client_recv(&a, &f, 100), 0);
	batch_builder_init(&bb);
	make_batch(&bb, 42, 3);
	CU_ASSERT_FATAL(batch_builder_close(&bb, &b, &blen) == 0);
	CU_ASSERT_FATAL(do_produce(&pcl, 1, "lp", 0, b, (int32_t)blen, 102, &pr) == 0);
	tp = mono_ms();
	CU_ASSERT_EQUAL(pr.results[0].error, ERR_NONE);
	CU_ASSERT_FATAL(client_recv(&a, &f, IO_TIMEOUT_MS) == 1);
	t1 = mono_ms();
	CU_ASSERT_EQUAL(f.request_id, 101);
	CU_ASSERT(t1 >= tp);
	arena_reset(&a.a);
	CU_ASSERT_FATAL(msg_decode_fetch_resp(f.payload, f.payload_len, &a.a, &fr) == 0);
	CU_ASSERT_EQUAL(fr.results[0].error, ERR_NONE);
	CU_ASSERT_EQUAL(check_records(fr.results[0].records,
	    (size_t)fr.results[0].records_len, 0, seeds, counts, 1), 3);
	batch_builder_free(&bb);
	client_close(&a);
	client_close(&pcl);
}

static void
test_workers(void)
{
	struct client cl;
	struct workers_resp r;
	struct frame f;
	int32_t i;
	int seen = 0;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	req_begin(&cl, API_WORKERS, 110);
	req_end(&cl);
	CU_ASSERT_FATAL(client_call(&cl, 110, &f) == 0);
	CU_ASSERT_FATAL(msg_decode_workers_resp(f.payload, f.payload_len, &cl.a, &r) == 0);
	CU_ASSERT_EQUAL(r.error, ERR_NONE);
	CU_ASSERT_EQUAL_FATAL(r.count, 2);
	for (i = 0; i < r.count; i++) {
		if (r.children[i].slot == 0 && r.children[i].role == ROLE_WORKER &&
		    r.children[i].pid == worker_pid)
			seen++;
		if (r.children[i].slot == 1 && r.children[i].role == ROLE_WRITER &&
		    r.children[i].pid == writer_pid)
			seen++;
		CU_ASSERT(r.children[i].uptime_ms >= 0 &&
		    r.children[i].uptime_ms < 600000);
	}
	CU_ASSERT_EQUAL(seen, 2);
	CU_ASSERT(atomic_load(&tb.shm.children[0].requests) > 100);
	CU_ASSERT(atomic_load(&tb.shm.children[0].accepted) >= 10);
	CU_ASSERT(atomic_load(&tb.shm.children[0].connections) >= 1);
	client_close(&cl);
}

/* A half-sent frame and a silent connection are both dropped in time. */
static void
test_timeouts(void)
{
	struct client partial, silent, busy;
	struct frame f;
	uint8_t hdr[6];
	int64_t t0, tp = -1, ts = -1, end;
	int rp = 0, rs = 0;

	CU_ASSERT_FATAL(client_open(&partial) == 0);
	CU_ASSERT_FATAL(client_open(&silent) == 0);
	CU_ASSERT_FATAL(client_open(&busy) == 0);
	t0 = mono_ms();
	be32_put(hdr, 100);
	be16_put(hdr + 4, API_METADATA);
	CU_ASSERT_FATAL(send_all(partial.fd, hdr, sizeof(hdr)) == 0);
	end = t0 + IO_TIMEOUT_MS;
	while ((rp == 0 || rs == 0) && mono_ms() < end) {
		if (rp == 0 && (rp = client_recv(&partial, &f, 20)) != 0)
			tp = mono_ms() - t0;
		if (rs == 0 && (rs = client_recv(&silent, &f, 20)) != 0)
			ts = mono_ms() - t0;
		/* A connection in use is not idle. */
		CU_ASSERT_EQUAL(do_latest(&busy, "orders", 0, OFFSET_EARLIEST), 0);
	}
	CU_ASSERT_EQUAL(rp, -1);
	CU_ASSERT_EQUAL(rs, -1);
	CU_ASSERT(tp >= conf.request_timeout_ms && tp < conf.request_timeout_ms + 2000);
	CU_ASSERT(ts >= conf.idle_timeout_ms && ts < conf.idle_timeout_ms + 2000);
	CU_ASSERT_EQUAL(do_latest(&busy, "orders", 0, OFFSET_EARLIEST), 0);
	client_close(&partial);
	client_close(&silent);
	client_close(&busy);
}

/* Last: SIGTERM makes the worker answer what is in flight and exit 0. */
static void
test_shutdown(void)
{
	struct client cl;
	struct fetch_part fp = { "lp", 2, 0, 3, 1 << 20 };
	/* It would wait 60 s: an answer within IO_TIMEOUT_MS is the shutdown's. */
	struct fetch_req q = { 60000, 1, 1 << 20, 1, &fp, 0 };
	struct frame f;
	int status = -1;

	CU_ASSERT_FATAL(client_open(&cl) == 0);
	msg_encode_fetch_req(req_begin(&cl, API_FETCH, 120), &q);
	req_end(&cl);
	CU_ASSERT_FATAL(client_flush(&cl) == 0);
	CU_ASSERT_EQUAL(client_recv(&cl, &f, 100), 0);	/* parked */
	atomic_store(&tb.shm.hdr->shutdown, 1);
	CU_ASSERT_FATAL(kill(worker_pid, SIGTERM) == 0);
	/* The parked fetch is answered (empty), then the connection closes. */
	CU_ASSERT_EQUAL(client_recv(&cl, &f, IO_TIMEOUT_MS), 1);
	CU_ASSERT_EQUAL(f.request_id, 120);
	CU_ASSERT_EQUAL(client_recv(&cl, &f, IO_TIMEOUT_MS), -1);
	CU_ASSERT_EQUAL(waitpid(worker_pid, &status, 0), worker_pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(atomic_load(&tb.shm.children[0].state), CHILD_ASSIGNED);
	worker_pid = -1;
	client_close(&cl);
}

TEST_SUITE("worker", suite_setup, suite_teardown,
	{ "handshake", test_handshake },
	{ "create topic", test_create_topic },
	{ "metadata", test_metadata },
	{ "produce acks=1 then fetch", test_produce_fetch },
	{ "acks all and none", test_acks },
	{ "corrupt crc", test_corrupt_crc },
	{ "bad topic names", test_bad_topic_names },
	{ "reserved names", test_reserved_names },
	{ "2 GiB frame", test_huge_frame },
	{ "malformed payloads", test_malformed },
	{ "unknown api", test_unknown_api },
	{ "pipelining", test_pipelining },
	{ "long poll", test_long_poll },
	{ "workers", test_workers },
	{ "timeouts", test_timeouts },
	{ "shutdown", test_shutdown });
