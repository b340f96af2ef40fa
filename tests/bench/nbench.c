/*
 * flume-nbench: the NATS JetStream peer rows of `make bench`, measured the
 * way flume-bench measures Flume and printed in its format
 * (clients/bench_stats.c renders both), so the table compares like with
 * like on the same machine in the same run.  It speaks the NATS text
 * protocol over one plain TCP connection (tests/bench/nproto.c parses
 * what the server sends); natscli, which `nats bench --js` needs, is not
 * in Debian.
 *
 *   produce  COUNT messages of SIZE bytes to a file-storage stream named
 *            -t (subject the same), each published with a reply inbox,
 *            at most -w acknowledgements outstanding, as `nats bench
 *            --js` publishes asynchronously; the clock stops when the
 *            last one is acked.  Latency: publish to ack, every message.
 *   sync     one publish, its ack awaited, the next (a window of one)
 *   group    a durable pull consumer on stream -t reads all it holds:
 *            Fetch -m messages, AckAll on the last, again, as a
 *            consumer group committing per batch does
 *
 * Every ack is checked: the timed messages must get the stream sequences
 * right after the warm-up message's, each exactly once.  A group run
 * checks the consumer's ack floor reached the last message afterwards.
 * Not installed.  It never fails on speed: exit 0 when every message was
 * acked (or read and acked), 1 when not, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clients/bench_stats.h"
#include "clients/flume_tool.h"
#include "tests/bench/nproto.h"

#define NB_BROKER	"127.0.0.1:4222"
#define NB_WINDOW	256	/* produce: acks outstanding, see -w */
#define NB_FETCH	1000	/* group: -m, as the peer figure */
#define NB_RBUF		(4u << 20)
#define NB_RBUF_MAX	(64u << 20)
#define NB_WHIGH	(1u << 20)	/* stop filling the output buffer here */
#define NB_POLL_MS	100
#define NB_REQ_NS	(5ull * 1000000000u)	/* a JetStream API request */
#define NB_STALL_NS	(30ull * 1000000000u)	/* no progress: give up */
#define NB_FETCH_NS	5000000000ull		/* a Fetch's expires, ns */

/* Subscription ids: acks (inbox.a.<n>), API answers (inbox.r.<n>), Fetch. */
#define NB_SID_ACK	1
#define NB_SID_REQ	2
#define NB_SID_FETCH	3

enum nb_mode { NB_PRODUCE, NB_SYNC, NB_GROUP };

struct nb {
	enum nb_mode	 mode;
	const char	*mode_name;
	const char	*broker;
	const char	*stream;
	uint64_t	 count;
	size_t		 size;
	uint64_t	 window;
	uint64_t	 fetch;
	int		 json;

	int		 fd;
	char		 inbox[48];	/* _INBOX.<pid>.<time> */
	size_t		 inbox_len;
	char		*rbuf;
	size_t		 rcap, rlen, roff;
	char		*wbuf;
	size_t		 wcap, wlen, woff;
	uint64_t	 wire;		/* bytes written since the last reset */
	uint64_t	 now;		/* clock read after each read(2) */
	uint64_t	 pongs;
	char		 err[300];

	/* A JetStream API request's answer (copied, truncated). */
	uint64_t	 req_id, resp_id;
	char		 resp[8192];
	size_t		 resp_len;

	/* produce, sync */
	char		*value;
	uint64_t	 base;		/* the sequence the first timed one gets */
	uint64_t	*sent_ns;	/* by message number */
	uint8_t		*acked;		/* by message number */
	uint8_t		*seq_seen;	/* by sequence - base */
	uint64_t	 nacked, nfailed;
	struct bench_hist *hist;

	/* group */
	uint64_t	 got;		/* messages of the current Fetch */
	uint64_t	 nread, nbytes, nredelivered, ncommits;
	int		 fetch_done;
	char		 last_reply[256];
};

static int
fcntl_nonblock(int fd)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1)
		return -1;
	return fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char nb_usage[] =
    "usage: flume-nbench produce -t stream [-J] [-b host:port] [-n count] "
    "[-s size]\n"
    "                    [-w window]\n"
    "       flume-nbench sync -t stream [-J] [-b host:port] [-n count] "
    "[-s size]\n"
    "       flume-nbench group -t stream [-J] [-b host:port] [-m batch]\n"
    "       flume-nbench -h | --help | -V | --version\n"
    "produce and sync publish to a JetStream file stream named stream\n"
    "(created if missing); group reads it all with a durable pull consumer,\n"
    "Fetch batch then AckAll.  Defaults: -b " NB_BROKER ", -n 1000000\n"
    "(sync 10000), -s 100, -w 256 acks outstanding, -m 1000.\n";

/* Append len bytes to the output buffer: 0, or -1 (out of memory). */
static int
nb_put(struct nb *nb, const void *p, size_t len)
{
	char *w;
	size_t cap;

	if (nb->woff > 0 && nb->woff == nb->wlen)
		nb->woff = nb->wlen = 0;
	if (nb->wlen + len > nb->wcap) {
		cap = nb->wcap ? nb->wcap : 65536;
		while (cap < nb->wlen + len)
			cap *= 2;
		if ((w = realloc(nb->wbuf, cap)) == NULL) {
			snprintf(nb->err, sizeof(nb->err), "out of memory");
			return -1;
		}
		nb->wbuf = w;
		nb->wcap = cap;
	}
	memcpy(nb->wbuf + nb->wlen, p, len);
	nb->wlen += len;
	return 0;
}

static int
nb_putf(struct nb *nb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
nb_putf(struct nb *nb, const char *fmt, ...)
{
	char line[NPROTO_MAX_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		snprintf(nb->err, sizeof(nb->err), "protocol line too long");
		return -1;
	}
	return nb_put(nb, line, (size_t)n);
}

/* Does subject s[0..len) start with our inbox followed by ".tag"? */
static const char *
nb_inbox_tail(struct nb *nb, const char *s, size_t len, const char *tag,
    size_t *tail_len)
{
	size_t tl = strlen(tag);

	if (len < nb->inbox_len + 1 + tl ||
	    memcmp(s, nb->inbox, nb->inbox_len) != 0 ||
	    s[nb->inbox_len] != '.' ||
	    memcmp(s + nb->inbox_len + 1, tag, tl) != 0)
		return NULL;
	*tail_len = len - nb->inbox_len - 1 - tl;
	return s + nb->inbox_len + 1 + tl;
}

/* produce, sync: the ack of message k (inbox.a.<k>). */
static void
nb_on_ack(struct nb *nb, uint64_t k, const struct nproto_msg *m)
{
	uint64_t seq;

	if (k >= nb->count || nb->acked[k]) {
		nb->nfailed++;		/* an answer to nothing we sent */
		return;
	}
	nb->acked[k] = 1;
	nb->nacked++;
	bench_hist_add(nb->hist, nb->now - nb->sent_ns[k]);
	if (m->status != 0 || nproto_ack_seq(m->payload, m->payload_len,
	    &seq) == -1) {
		if (nb->err[0] == '\0')
			snprintf(nb->err, sizeof(nb->err), "message %llu: %.*s",
			    (unsigned long long)k, (int)(m->payload_len < 200 ?
			    m->payload_len : 200), m->payload);
		nb->nfailed++;
		return;
	}
	if (seq < nb->base || seq - nb->base >= nb->count ||
	    nb->seq_seen[seq - nb->base]) {
		if (nb->err[0] == '\0')
			snprintf(nb->err, sizeof(nb->err), "message %llu: "
			    "sequence %llu outside %llu..%llu or repeated",
			    (unsigned long long)k, (unsigned long long)seq,
			    (unsigned long long)nb->base,
			    (unsigned long long)(nb->base + nb->count - 1));
		nb->nfailed++;
		return;
	}
	nb->seq_seen[seq - nb->base] = 1;
}

/* group: one message of the current Fetch, or its end (a status). */
static void
nb_on_fetched(struct nb *nb, const struct nproto_msg *m)
{
	const char *p, *tok[9];
	size_t i, n = 0;
	uint64_t delivered;

	if (m->status != 0) {
		/* 404 no messages, 408 expired, 409 limits: this Fetch is over. */
		nb->fetch_done = 1;
		return;
	}
	nb->got++;
	/* $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending> */
	if (m->reply == NULL || m->reply_len >= sizeof(nb->last_reply)) {
		nb->nfailed++;
		return;
	}
	memcpy(nb->last_reply, m->reply, m->reply_len);
	nb->last_reply[m->reply_len] = '\0';
	p = nb->last_reply;
	tok[n++] = p;
	for (i = 0; i < m->reply_len && n < 9; i++)
		if (p[i] == '.')
			tok[n++] = p + i + 1;
	if (n < 5 || nproto_num(tok[4], (size_t)(strchr(tok[4], '.') ?
	    strchr(tok[4], '.') - tok[4] : (ptrdiff_t)strlen(tok[4])),
	    &delivered) == -1) {
		nb->nfailed++;
		return;
	}
	if (delivered > 1)
		nb->nredelivered++;
	else {
		nb->nread++;
		nb->nbytes += m->payload_len;
	}
}

static int
nb_on_msg(struct nb *nb, const struct nproto_msg *m)
{
	const char *t;
	size_t tl;
	uint64_t k;

	/* A fetched message keeps its own subject: known by its sid. */
	if (m->sid == NB_SID_FETCH) {
		nb_on_fetched(nb, m);
		return 0;
	}
	if ((t = nb_inbox_tail(nb, m->subject, m->subject_len, "a.", &tl)) !=
	    NULL) {
		if (nproto_num(t, tl, &k) == -1 || nb->acked == NULL) {
			nb->nfailed++;
			return 0;
		}
		nb_on_ack(nb, k, m);
		return 0;
	}
	if ((t = nb_inbox_tail(nb, m->subject, m->subject_len, "r.", &tl)) !=
	    NULL) {
		if (nproto_num(t, tl, &k) == -1 || k != nb->req_id)
			return 0;	/* a late answer to a timed-out request */
		if (m->status == 503) {
			snprintf(nb->resp, sizeof(nb->resp),
			    "{\"error\":{\"description\":\"no responders "
			    "(JetStream not enabled?)\"}}");
			nb->resp_len = strlen(nb->resp);
		} else {
			nb->resp_len = m->payload_len < sizeof(nb->resp) - 1 ?
			    m->payload_len : sizeof(nb->resp) - 1;
			memcpy(nb->resp, m->payload, nb->resp_len);
			nb->resp[nb->resp_len] = '\0';
		}
		nb->resp_id = k;
		return 0;
	}
	return 0;
}

/*
 * Write what the socket takes, wait up to timeout_ms for input, read it
 * and act on every whole operation.  0, or -1 with nb->err set (the
 * connection failed or the server sent -ERR or garbage).
 */
static int
nb_pump(struct nb *nb, int timeout_ms)
{
	struct pollfd p;
	struct nproto_msg m;
	ssize_t n;
	char *r;

	p.fd = nb->fd;
	p.events = POLLIN | (nb->wlen > nb->woff ? POLLOUT : 0);
	p.revents = 0;
	if (poll(&p, 1, timeout_ms) == -1)
		return errno == EINTR ? 0 : -1;
	if (p.revents & POLLOUT) {
		while (nb->woff < nb->wlen) {
			n = write(nb->fd, nb->wbuf + nb->woff,
			    nb->wlen - nb->woff);
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN)
				break;
			if (n <= 0) {
				snprintf(nb->err, sizeof(nb->err), "write: %s",
				    strerror(errno));
				return -1;
			}
			nb->woff += (size_t)n;
			nb->wire += (uint64_t)n;
		}
	}
	if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	if (nb->roff > 0) {
		memmove(nb->rbuf, nb->rbuf + nb->roff, nb->rlen - nb->roff);
		nb->rlen -= nb->roff;
		nb->roff = 0;
	}
	if (nb->rlen == nb->rcap) {
		/* One message larger than the buffer: make room for it. */
		if (nb->rcap >= NB_RBUF_MAX ||
		    (r = realloc(nb->rbuf, nb->rcap * 2)) == NULL) {
			snprintf(nb->err, sizeof(nb->err), "a message over %u "
			    "bytes", NB_RBUF_MAX);
			return -1;
		}
		nb->rbuf = r;
		nb->rcap *= 2;
	}
	n = read(nb->fd, nb->rbuf + nb->rlen, nb->rcap - nb->rlen);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		snprintf(nb->err, sizeof(nb->err), "read: %s",
		    n == 0 ? "connection closed by the server" : strerror(errno));
		return -1;
	}
	nb->rlen += (size_t)n;
	nb->now = now_ns();
	while ((n = nproto_parse(nb->rbuf + nb->roff, nb->rlen - nb->roff,
	    &m)) > 0) {
		nb->roff += (size_t)n;
		switch (m.op) {
		case NP_PING:
			if (nb_put(nb, "PONG\r\n", 6) == -1)
				return -1;
			break;
		case NP_PONG:
			nb->pongs++;
			break;
		case NP_ERR:
			snprintf(nb->err, sizeof(nb->err), "server: -ERR %.*s",
			    (int)(m.text_len < 200 ? m.text_len : 200), m.text);
			return -1;
		case NP_MSG:
		case NP_HMSG:
			if (nb_on_msg(nb, &m) == -1)
				return -1;
			break;
		default:
			break;
		}
	}
	if (n == -1) {
		snprintf(nb->err, sizeof(nb->err), "malformed data from the "
		    "server at: %.40s", nb->rbuf + nb->roff);
		return -1;
	}
	if (nb->roff == nb->rlen)
		nb->roff = nb->rlen = 0;
	return 0;
}

/* PING and wait for its PONG: everything before it was processed. */
static int
nb_sync(struct nb *nb)
{
	uint64_t want = nb->pongs + 1, deadline = now_ns() + NB_REQ_NS;

	if (nb_put(nb, "PING\r\n", 6) == -1)
		return -1;
	while (nb->pongs < want) {
		if (now_ns() > deadline) {
			snprintf(nb->err, sizeof(nb->err), "no PONG in 5 s");
			return -1;
		}
		if (nb_pump(nb, NB_POLL_MS) == -1)
			return -1;
	}
	return 0;
}

/* A JetStream API request; its answer in nb->resp.  0, or -1 (no answer). */
static int
nb_request(struct nb *nb, const char *subject, const char *body)
{
	uint64_t deadline = now_ns() + NB_REQ_NS;

	nb->req_id++;
	if (nb_putf(nb, "PUB %s %s.r.%llu %zu\r\n", subject, nb->inbox,
	    (unsigned long long)nb->req_id, strlen(body)) == -1 ||
	    nb_put(nb, body, strlen(body)) == -1 || nb_put(nb, "\r\n", 2) == -1)
		return -1;
	while (nb->resp_id != nb->req_id) {
		if (now_ns() > deadline) {
			snprintf(nb->err, sizeof(nb->err), "%s: no answer in "
			    "5 s", subject);
			return -1;
		}
		if (nb_pump(nb, NB_POLL_MS) == -1)
			return -1;
	}
	return 0;
}

/* The answer was {"error":...}: say so.  1 if it was, else 0. */
static int
nb_api_error(struct nb *nb, const char *what)
{
	if (memmem(nb->resp, nb->resp_len, "\"error\"", 7) == NULL)
		return 0;
	snprintf(nb->err, sizeof(nb->err), "%s: %.200s", what, nb->resp);
	return 1;
}

/* Connect, read INFO, CONNECT, subscribe to our inbox.  0 or -1. */
static int
nb_connect(struct nb *nb)
{
	struct addrinfo hints, *res, *ai;
	struct nproto_msg m;
	char host[256], *port;
	uint64_t deadline = now_ns() + NB_REQ_NS, maxp;
	ssize_t n;
	int rc, one = 1;

	snprintf(host, sizeof(host), "%s", nb->broker);
	if ((port = strrchr(host, ':')) == NULL) {
		snprintf(nb->err, sizeof(nb->err), "%s: not host:port",
		    nb->broker);
		return -1;
	}
	*port++ = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(nb->err, sizeof(nb->err), "%s: %s", nb->broker,
		    gai_strerror(rc));
		return -1;
	}
	nb->fd = -1;
	for (ai = res; ai != NULL && nb->fd == -1; ai = ai->ai_next) {
		nb->fd = socket(ai->ai_family, ai->ai_socktype, 0);
		if (nb->fd != -1 && connect(nb->fd, ai->ai_addr,
		    ai->ai_addrlen) == -1) {
			close(nb->fd);
			nb->fd = -1;
		}
	}
	freeaddrinfo(res);
	if (nb->fd == -1) {
		snprintf(nb->err, sizeof(nb->err), "connect %s: %s",
		    nb->broker, strerror(errno));
		return -1;
	}
	setsockopt(nb->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* The INFO line comes first; read it before anything else. */
	for (;;) {
		if (now_ns() > deadline) {
			snprintf(nb->err, sizeof(nb->err), "no INFO in 5 s");
			return -1;
		}
		n = read(nb->fd, nb->rbuf + nb->rlen, nb->rcap - nb->rlen);
		if (n <= 0) {
			snprintf(nb->err, sizeof(nb->err), "%s: no INFO: %s",
			    nb->broker, n == 0 ? "closed" : strerror(errno));
			return -1;
		}
		nb->rlen += (size_t)n;
		if ((n = nproto_parse(nb->rbuf, nb->rlen, &m)) != 0)
			break;
	}
	if (n < 0 || m.op != NP_INFO) {
		snprintf(nb->err, sizeof(nb->err), "%s: not a NATS server",
		    nb->broker);
		return -1;
	}
	if (memmem(m.text, m.text_len, "\"jetstream\":true", 16) == NULL) {
		snprintf(nb->err, sizeof(nb->err), "%s: JetStream is not "
		    "enabled (nats-server -js)", nb->broker);
		return -1;
	}
	/* Said here, not as the -ERR that would close the connection. */
	if (nproto_json_u64(m.text, m.text_len, "max_payload", &maxp) == 0 &&
	    nb->size > maxp) {
		snprintf(nb->err, sizeof(nb->err), "-s %zu is over the server's "
		    "max_payload %llu", nb->size, (unsigned long long)maxp);
		return -1;
	}
	nb->roff = (size_t)n;
	/* Headers on, so a request nobody serves gets a 503 at once. */
	if (nb_putf(nb, "CONNECT {\"verbose\":false,\"pedantic\":false,"
	    "\"headers\":true,\"no_responders\":true,\"lang\":\"c\","
	    "\"version\":\"flume-nbench\",\"protocol\":1}\r\n") == -1 ||
	    nb_putf(nb, "SUB %s.a.* %d\r\nSUB %s.r.* %d\r\nSUB %s.f %d\r\n",
	    nb->inbox, NB_SID_ACK, nb->inbox, NB_SID_REQ, nb->inbox,
	    NB_SID_FETCH) == -1)
		return -1;
	if (fcntl_nonblock(nb->fd) == -1) {
		snprintf(nb->err, sizeof(nb->err), "fcntl: %s", strerror(errno));
		return -1;
	}
	return nb_sync(nb);
}

/* Create the file-storage stream nb->stream if missing.  0 or -1. */
static int
nb_stream_create(struct nb *nb)
{
	char subj[300], body[600];

	snprintf(subj, sizeof(subj), "$JS.API.STREAM.CREATE.%s", nb->stream);
	/* One subject, the stream's name; file storage, as the issue measured. */
	snprintf(body, sizeof(body), "{\"name\":\"%s\",\"subjects\":[\"%s\"],"
	    "\"storage\":\"file\",\"num_replicas\":1,\"retention\":\"limits\","
	    "\"discard\":\"old\",\"max_msgs\":-1,\"max_bytes\":-1}",
	    nb->stream, nb->stream);
	if (nb_request(nb, subj, body) == -1)
		return -1;
	return nb_api_error(nb, "stream create") ? -1 : 0;
}

/* produce, sync: publish count values, window acks outstanding at most. */
static int
nb_produce(struct nb *nb, uint64_t *t0, uint64_t *t1)
{
	uint64_t sent = 0, last_acked = 0, moved, now, seq;

	if (nb_stream_create(nb) == -1)
		return -1;
	/* The warm-up message, outside the clock; its ack gives the base. */
	if (nb_request(nb, nb->stream, nb->value) == -1)
		return -1;
	if (nproto_ack_seq(nb->resp, nb->resp_len, &seq) == -1) {
		snprintf(nb->err, sizeof(nb->err), "warm-up publish: %.200s",
		    nb->resp);
		return -1;
	}
	nb->base = seq + 1;
	if ((nb->sent_ns = calloc(nb->count, sizeof(*nb->sent_ns))) == NULL ||
	    (nb->acked = calloc(nb->count, 1)) == NULL ||
	    (nb->seq_seen = calloc(nb->count, 1)) == NULL) {
		snprintf(nb->err, sizeof(nb->err), "out of memory");
		return -1;
	}
	nb->wire = 0;
	*t0 = moved = now_ns();
	while (nb->nacked < nb->count) {
		now = now_ns();
		while (sent < nb->count && sent - nb->nacked < nb->window &&
		    nb->wlen - nb->woff < NB_WHIGH) {
			if (nb_putf(nb, "PUB %s %s.a.%llu %zu\r\n", nb->stream,
			    nb->inbox, (unsigned long long)sent,
			    nb->size) == -1 ||
			    nb_put(nb, nb->value, nb->size) == -1 ||
			    nb_put(nb, "\r\n", 2) == -1)
				return -1;
			nb->sent_ns[sent++] = now;
		}
		if (nb_pump(nb, NB_POLL_MS) == -1)
			return -1;
		if (nb->nacked != last_acked) {
			last_acked = nb->nacked;
			moved = nb->now;
		} else if (now_ns() - moved > NB_STALL_NS) {
			snprintf(nb->err, sizeof(nb->err), "no ack in 30 s "
			    "(%llu of %llu acked)",
			    (unsigned long long)nb->nacked,
			    (unsigned long long)nb->count);
			return -1;
		}
	}
	*t1 = now_ns();
	return 0;
}

/* group: the ack floor's stream sequence of the consumer, or -1. */
static int
nb_ack_floor(struct nb *nb, const char *durable, uint64_t *floor)
{
	char subj[400];
	const char *a;

	snprintf(subj, sizeof(subj), "$JS.API.CONSUMER.INFO.%s.%s",
	    nb->stream, durable);
	if (nb_request(nb, subj, "") == -1 || nb_api_error(nb, "consumer info"))
		return -1;
	if ((a = memmem(nb->resp, nb->resp_len, "\"ack_floor\"", 11)) == NULL ||
	    nproto_json_u64(a, nb->resp_len - (size_t)(a - nb->resp),
	    "stream_seq", floor) == -1) {
		snprintf(nb->err, sizeof(nb->err), "consumer info without "
		    "ack_floor: %.200s", nb->resp);
		return -1;
	}
	return 0;
}

/* group: read the whole stream, Fetch nb->fetch, AckAll, again. */
static int
nb_group(struct nb *nb, uint64_t *t0, uint64_t *t1)
{
	char subj[400], body[400], durable[64];
	uint64_t total, last_seq, want, moved, floor, deadline, before;

	snprintf(subj, sizeof(subj), "$JS.API.STREAM.INFO.%s", nb->stream);
	if (nb_request(nb, subj, "") == -1 || nb_api_error(nb, "stream info"))
		return -1;
	if (nproto_json_u64(nb->resp, nb->resp_len, "messages", &total) == -1 ||
	    nproto_json_u64(nb->resp, nb->resp_len, "last_seq", &last_seq) == -1) {
		snprintf(nb->err, sizeof(nb->err), "stream info: %.200s",
		    nb->resp);
		return -1;
	}
	if (total == 0) {
		snprintf(nb->err, sizeof(nb->err), "%s is empty: produce to it "
		    "first", nb->stream);
		return -1;
	}
	nb->count = total;
	snprintf(durable, sizeof(durable), "nbench_%ld", (long)getpid());
	*t0 = moved = now_ns();
	/* Creating the consumer is inside the clock, as joining a group is. */
	snprintf(subj, sizeof(subj), "$JS.API.CONSUMER.DURABLE.CREATE.%s.%s",
	    nb->stream, durable);
	snprintf(body, sizeof(body), "{\"stream_name\":\"%s\",\"config\":{"
	    "\"durable_name\":\"%s\",\"deliver_policy\":\"all\","
	    "\"ack_policy\":\"all\",\"ack_wait\":30000000000,"
	    "\"max_ack_pending\":%llu,\"max_waiting\":512,"
	    "\"replay_policy\":\"instant\"}}", nb->stream, durable,
	    (unsigned long long)nb->fetch * 2);
	if (nb_request(nb, subj, body) == -1 ||
	    nb_api_error(nb, "consumer create"))
		return -1;
	snprintf(subj, sizeof(subj), "$JS.API.CONSUMER.MSG.NEXT.%s.%s",
	    nb->stream, durable);
	while (nb->nread < total) {
		want = total - nb->nread < nb->fetch ? total - nb->nread :
		    nb->fetch;
		nb->got = 0;
		nb->fetch_done = 0;
		snprintf(body, sizeof(body), "{\"batch\":%llu,\"expires\":%llu}",
		    (unsigned long long)want, NB_FETCH_NS);
		if (nb_putf(nb, "PUB %s %s.f %zu\r\n%s\r\n", subj, nb->inbox,
		    strlen(body), body) == -1)
			return -1;
		before = nb->nread;
		while (nb->got < want && !nb->fetch_done)
			if (nb_pump(nb, NB_POLL_MS) == -1)
				return -1;
		if (nb->got > 0) {
			/* AckAll: acking the last acks every one before it. */
			if (nb_putf(nb, "PUB %s 0\r\n\r\n", nb->last_reply) == -1)
				return -1;
			nb->ncommits++;
		}
		if (nb->nread != before)
			moved = now_ns();
		else if (now_ns() - moved > NB_STALL_NS) {
			snprintf(nb->err, sizeof(nb->err), "nothing read in "
			    "30 s (%llu of %llu)", (unsigned long long)nb->nread,
			    (unsigned long long)total);
			return -1;
		}
	}
	if (nb_sync(nb) == -1)
		return -1;
	*t1 = now_ns();
	/* The last AckAll is applied asynchronously: await it, bounded. */
	deadline = now_ns() + NB_REQ_NS;
	for (;;) {
		if (nb_ack_floor(nb, durable, &floor) == -1)
			return -1;
		if (floor >= last_seq)
			break;
		if (now_ns() > deadline) {
			snprintf(nb->err, sizeof(nb->err), "ack floor %llu, "
			    "not %llu, 5 s after the last ack",
			    (unsigned long long)floor,
			    (unsigned long long)last_seq);
			return -1;
		}
		usleep(10000);
	}
	snprintf(subj, sizeof(subj), "$JS.API.CONSUMER.DELETE.%s.%s",
	    nb->stream, durable);
	return nb_request(nb, subj, "");
}

/* A stream name JetStream takes as a name and as a subject. */
static int
nb_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 200)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~' || strchr(".*>/\\\"", s[i]))
			return 0;
	return 1;
}

static int
nb_usage_error(const char *msg)
{
	fprintf(stderr, "flume-nbench: %s\n%s", msg, nb_usage);
	return 2;
}

int
main(int argc, char *argv[])
{
	static struct nb nbs;
	struct nb *nb = &nbs;
	struct bench_hist *hist;
	struct bench_result r;
	char out[2048], *end;
	uint64_t t0 = 0, t1 = 0, x = 0x9e3779b9u;
	unsigned long long v;
	size_t i;
	int ch, rc, wset = 0, mset = 0, nset = 0, sset = 0;

	if (argc > 1 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0)) {
		fputs(nb_usage, stdout);
		return 0;
	}
	if (argc > 1 && (strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "--version") == 0)) {
		flume_tool_version("flume-nbench");
		return 0;
	}
	if (argc < 2)
		return nb_usage_error("a mode is required");
	if (strcmp(argv[1], "produce") == 0)
		nb->mode = NB_PRODUCE;
	else if (strcmp(argv[1], "sync") == 0)
		nb->mode = NB_SYNC;
	else if (strcmp(argv[1], "group") == 0)
		nb->mode = NB_GROUP;
	else
		return nb_usage_error("unknown mode");
	nb->mode_name = argv[1];
	nb->broker = NB_BROKER;
	nb->count = nb->mode == NB_SYNC ? 10000 : 1000000;
	nb->size = 100;
	nb->window = NB_WINDOW;
	nb->fetch = NB_FETCH;
	optind = 2;
	while ((ch = getopt_long(argc, argv, "b:hJm:n:s:t:Vw:",
	    flume_tool_longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			nb->broker = optarg;
			break;
		case 'h':
			fputs(nb_usage, stdout);
			return 0;
		case 'J':
			nb->json = 1;
			break;
		case 't':
			nb->stream = optarg;
			break;
		case 'V':
			flume_tool_version("flume-nbench");
			return 0;
		case 'm':
		case 'n':
		case 's':
		case 'w':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    optarg[0] == '-' || v == 0 || v > 1000000000000ull ||
			    ((ch == 's' || ch == 'm' || ch == 'w') && v > 64u << 20))
				return nb_usage_error("-m, -n, -s and -w take "
				    "a positive number");
			if (ch == 'm') {
				nb->fetch = v;
				mset = 1;
			} else if (ch == 'n') {
				nb->count = v;
				nset = 1;
			} else if (ch == 's') {
				nb->size = (size_t)v;
				sset = 1;
			} else {
				nb->window = v;
				wset = 1;
			}
			break;
		default:
			return nb_usage_error("unknown option");
		}
	}
	if (optind != argc)
		return nb_usage_error("unexpected argument");
	if (nb->stream == NULL || !nb_name_ok(nb->stream))
		return nb_usage_error("-t stream is required: letters, digits, "
		    "- and _ (no '.', '*', '>')");
	if (wset && nb->mode != NB_PRODUCE)
		return nb_usage_error("-w is for produce");
	if (mset && nb->mode != NB_GROUP)
		return nb_usage_error("-m is for group");
	if ((nset || sset) && nb->mode == NB_GROUP)
		return nb_usage_error("group reads the whole stream: no -n, -s");
	if (nb->mode == NB_SYNC)
		nb->window = 1;

	if ((nb->rbuf = malloc(NB_RBUF)) == NULL ||
	    (nb->value = malloc(nb->size + 1)) == NULL ||
	    (hist = malloc(sizeof(*hist))) == NULL) {
		fprintf(stderr, "flume-nbench: out of memory\n");
		return 1;
	}
	nb->rcap = NB_RBUF;
	bench_hist_init(hist);
	nb->hist = hist;
	/* The same printable filler as flume-bench's. */
	for (i = 0; i < nb->size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		nb->value[i] = (char)(' ' + (uint32_t)x % 95);
	}
	nb->value[nb->size] = '\0';
	nb->inbox_len = (size_t)snprintf(nb->inbox, sizeof(nb->inbox),
	    "_INBOX.nbench%ld_%llu", (long)getpid(),
	    (unsigned long long)(now_ns() % 1000000000u));

	rc = nb_connect(nb);
	if (rc == 0)
		rc = nb->mode == NB_GROUP ? nb_group(nb, &t0, &t1) :
		    nb_produce(nb, &t0, &t1);
	if (rc == -1) {
		fprintf(stderr, "flume-nbench: %s\n", nb->err);
		return 1;
	}
	memset(&r, 0, sizeof(r));
	r.mode = nb->mode_name;
	r.seconds = (double)(t1 - t0) / 1e9;
	if (nb->mode == NB_GROUP) {
		r.msgs = nb->nread;
		r.bytes = nb->nbytes;
		r.commits = nb->ncommits;
		r.redelivered = nb->nredelivered;
		r.failed = nb->nfailed;
		r.wire_bytes = -1;
	} else {
		r.msgs = nb->count;
		r.bytes = nb->count * nb->size;
		r.failed = nb->nfailed;
		r.wire_bytes = (int64_t)nb->wire;
		r.lat = hist;
	}
	if (nb->json)
		bench_json(out, sizeof(out), &r);
	else
		bench_summary(out, sizeof(out), &r);
	fputs(out, stdout);
	if (nb->err[0] != '\0')
		fprintf(stderr, "flume-nbench: %s\n", nb->err);
	return r.failed == 0 ? 0 : 1;
}
