/*
 * libflume connection layer: address parsing, connect with a timeout,
 * HANDSHAKE, the request/response pump, reconnection, and the synchronous
 * administrative calls (metadata, create topic, list offsets, workers).
 *
 * The socket is non-blocking.  Requests are encoded into one output
 * buffer, so many pipelined frames leave in one send(2); responses are
 * matched to their waiting handler by request id (the broker answers in
 * order, so the match is nearly always the FIFO head).
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clients/libflume_int.h"
#include "proto/msg.h"
#include "proto/msg_auth.h"
#include "proto/msg_tconf.h"
#include "proto/version.h"

/* Largest response frame accepted; only a real frame that big is allocated. */
#define CLIENT_MAX_RESPONSE	(256u * 1024 * 1024)
/* Pieces of output handed to one sendmsg. */
#define CLIENT_IOV_MAX		64
/* Arena for decoding one administrative response. */
#define CLIENT_ARENA_LIMIT	(64u * 1024 * 1024)

/* Why the calling thread's last flume_connect() failed. */
static _Thread_local char connect_err[256];

int64_t
client_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
client_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

void
client_seterr(struct flume_client *c, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	errno = saved;
}

/* The errno that best describes broker error e. */
static int
client_errno_of(int e)
{
	switch (e) {
	case ERR_TOPIC_EXISTS:
		return EEXIST;
	case ERR_UNKNOWN_TOPIC_OR_PARTITION:
		return ENOENT;
	case ERR_INVALID_REQUEST:
	case ERR_INVALID_TOPIC:
	case ERR_INVALID_PARTITIONS:
		return EINVAL;
	case ERR_MESSAGE_TOO_LARGE:
		return EMSGSIZE;
	case ERR_CORRUPT_MESSAGE:
		return EBADMSG;
	case ERR_GROUP_NOT_EMPTY:
		return EBUSY;
	case ERR_TIMEOUT:
		return ETIMEDOUT;
	case ERR_OFFSET_OUT_OF_RANGE:
		return ERANGE;
	case ERR_UNSUPPORTED_API:
	case ERR_UNSUPPORTED_VERSION:
		return ENOTSUP;
	case ERR_AUTH_FAILED:
	case ERR_AUTH_REQUIRED:
	case ERR_ACCESS_DENIED:
		return EACCES;
	default:
		return EIO;
	}
}

int
client_broker_fail(struct flume_client *c, int e, const char *what)
{
	c->broker_err = e;
	if (what != NULL)
		client_seterr(c, "%s: %s", what, flume_strerror(e));
	else
		client_seterr(c, "%s", flume_strerror(e));
	errno = client_errno_of(e);
	return -1;
}

/*
 * Split "host:port", "[v6]:port", "[v6]", "host" or a bare IPv6 literal
 * into host and port; 0 or -1 (EINVAL).
 */
static int
client_parse_addr(const char *hp, char *host, size_t hostlen, char *port,
    size_t portlen)
{
	const char *colon, *close, *p;
	size_t n;

	snprintf(port, portlen, "%d", FLUME_DEFAULT_PORT);
	if (*hp == '[') {
		if ((close = strchr(hp, ']')) == NULL)
			goto bad;
		n = (size_t)(close - hp - 1);
		p = close + 1;
		if (*p == ':' && p[1] != '\0')
			p++;
		else if (*p != '\0')
			goto bad;
	} else if ((colon = strrchr(hp, ':')) != NULL &&
	    strchr(hp, ':') == colon) {
		n = (size_t)(colon - hp);
		p = colon + 1;
		if (*p == '\0')
			goto bad;
	} else {
		n = strlen(hp);		/* no port, or a bare IPv6 literal */
		p = "";
	}
	if (n == 0 || n >= hostlen)
		goto bad;
	memcpy(host, hp + (*hp == '[' ? 1 : 0), n);
	host[n] = '\0';
	if (*p != '\0') {
		if (strlen(p) >= portlen || strspn(p, "0123456789") != strlen(p))
			goto bad;
		snprintf(port, portlen, "%s", p);
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* Connect one address with a timeout; the socket or -1 with errno. */
static int
client_connect_one(const struct addrinfo *ai, int timeout_ms)
{
	struct pollfd pfd;
	socklen_t sl;
	int fd, one = 1, soerr, n;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    ai->ai_protocol);
	if (fd == -1)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1) {
		if (errno != EINPROGRESS)
			goto fail;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do {
			n = poll(&pfd, 1, timeout_ms);
		} while (n == -1 && errno == EINTR);
		if (n == 0) {
			errno = ETIMEDOUT;
			goto fail;
		}
		if (n == -1)
			goto fail;
		sl = sizeof(soerr);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == -1)
			goto fail;
		if (soerr != 0) {
			errno = soerr;
			goto fail;
		}
	}
	/* Small requests (acks, fetches) must not wait for Nagle. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
fail:
	n = errno;
	close(fd);
	errno = n;
	return -1;
}

/* Handler of a synchronous call: keep a copy of the payload. */
int
client_sync_fn(struct flume_client *c, void *ctx, const uint8_t *p, size_t len,
    int err)
{
	struct client_sync *s = ctx;

	s->done = 1;
	if (err != 0) {
		s->err = err;
		return 0;
	}
	if ((s->buf = malloc(len > 0 ? len : 1)) == NULL) {
		s->err = ENOMEM;
		return 0;
	}
	memcpy(s->buf, p, len);
	s->len = len;
	return 0;
}

/*
 * Wait for the synchronous call s; on timeout the connection is dropped,
 * since a late answer could not be matched to anything any more.
 */
int
client_sync_wait_ms(struct flume_client *c, struct client_sync *s, int timeout_ms)
{
	int64_t deadline = client_now_ms() + timeout_ms, left;

	while (!s->done) {
		left = deadline - client_now_ms();
		if (left <= 0) {
			client_disconnect(c, ETIMEDOUT);
			break;
		}
		(void)client_pump(c, (int)(left > 1000 ? 1000 : left));
	}
	if (s->err != 0) {
		if (s->err != ENOMEM && s->err != EPROTO)
			client_seterr(c, "connection to %s lost: %s",
			    c->host_port, strerror(s->err));
		else
			client_seterr(c, "%s", strerror(s->err));
		errno = s->err;
		return -1;
	}
	return 0;
}

/* Send the handshake on a fresh socket and check the answer. */
static int
client_handshake(struct flume_client *c)
{
	struct handshake_req req;
	struct handshake_resp resp;
	struct client_sync s;

	req.version = FLUME_PROTOCOL_VERSION;
	req.client_id = c->conf.client_id;
	req.client_id_len = strlen(c->conf.client_id);
	if (client_call_send(c, API_HANDSHAKE, &req, &s) == -1)
		return -1;
	/* Part of connecting: a broker that accepts but never answers is down. */
	if (client_sync_wait_ms(c, &s, c->conf.connect_timeout_ms) == -1)
		return -1;
	if (msg_decode_handshake_resp(s.buf, s.len, &resp) == -1) {
		free(s.buf);
		client_seterr(c, "malformed handshake response");
		errno = EPROTO;
		return -1;
	}
	/* resp.broker points into s.buf. */
	snprintf(c->broker_name, sizeof(c->broker_name), "%.*s",
	    (int)(resp.broker_len < sizeof(c->broker_name) ?
	    resp.broker_len : sizeof(c->broker_name) - 1), resp.broker);
	free(s.buf);
	if (resp.error != ERR_NONE)
		return client_broker_fail(c, resp.error, "handshake");
	c->max_frame = resp.max_frame > 0 ? resp.max_frame : 1024 * 1024;
	/* An older broker answers its own, older version. */
	c->proto_version = resp.version < FLUME_PROTOCOL_VERSION ?
	    (resp.version > 1 ? resp.version : 1) : FLUME_PROTOCOL_VERSION;
	return 0;
}

/* Resolve and connect c->host_port once, then handshake; 0 or -1. */
static int
client_open(struct flume_client *c)
{
	struct addrinfo hints, *res, *ai;
	char host[256], port[16];
	int fd = -1, rc, saved = ECONNREFUSED;

	if (client_parse_addr(c->host_port, host, sizeof(host), port,
	    sizeof(port)) == -1) {
		client_seterr(c, "bad broker address %s", c->host_port);
		return -1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
		client_seterr(c, "cannot connect to %s: %s", c->host_port,
		    gai_strerror(rc));
		errno = rc == EAI_SYSTEM ? errno : EHOSTUNREACH;
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = client_connect_one(ai, c->conf.connect_timeout_ms)) != -1)
			break;
		saved = errno;
	}
	freeaddrinfo(res);
	if (fd == -1) {
		client_seterr(c, "cannot connect to %s: %s", c->host_port,
		    strerror(saved));
		errno = saved;
		return -1;
	}
	c->fd = fd;
	frame_reader_free(&c->rd);
	frame_reader_init(&c->rd, FRAME_RESPONSE, CLIENT_MAX_RESPONSE);
	if (c->tls != NULL &&
	    client_tls_start(c, host, c->conf.connect_timeout_ms) == -1) {
		rc = errno;
		client_tls_stop(c->tls);
		close(c->fd);
		c->fd = -1;
		errno = rc;
		return -1;
	}
	if (client_handshake(c) == -1) {
		rc = errno;
		client_disconnect(c, rc);
		client_seterr(c, "cannot connect to %s: handshake failed: %s",
		    c->host_port, strerror(rc));
		errno = rc;
		return -1;
	}
	if (client_authenticate(c) == -1) {
		char why[sizeof(c->err)];

		rc = errno;
		snprintf(why, sizeof(why), "%s", c->err);
		client_disconnect(c, ECONNABORTED);
		client_seterr(c, "cannot connect to %s: %s", c->host_port, why);
		errno = rc;
		return -1;
	}
	return 0;
}

void
flume_client_conf_init(struct flume_client_conf *conf)
{
	conf->connect_timeout_ms = 5000;
	conf->request_timeout_ms = 30000;
	conf->reconnect_attempts = 10;
	conf->reconnect_backoff_ms = 100;
	conf->client_id = "libflume";
	conf->secret_file = NULL;
}

/*
 * The first connect failed.  A broker that refuses, does not answer or
 * answers something (a TLS port, a wrong protocol) is reported at once;
 * a plaintext connection that was accepted and then broken before a
 * single byte came back (the worker that took it was killed; the master
 * respawns it, and another worker takes the next connection) is tried
 * once more.  0 or -1.
 */
static int
client_open_again(struct flume_client *c, uint64_t in0)
{
	/*
	 * Once: a plaintext client at a TLS port looks the same (reset,
	 * nothing answered), and must fail fast, not after every backoff.
	 */
	if (c->tls != NULL || c->bytes_in != in0 ||
	    (errno != ECONNRESET && errno != EPIPE && errno != ECONNABORTED))
		return -1;
	client_sleep_ms(c->conf.reconnect_backoff_ms);
	return client_open(c);
}

void
flume_tls_conf_init(struct flume_tls_conf *tls)
{
	memset(tls, 0, sizeof(*tls));
}

struct flume_client *
flume_connect_conf(const char *host_port, const struct flume_client_conf *conf)
{
	return flume_connect_tls(host_port, conf, NULL);
}

const char *
flume_client_tls_version(const struct flume_client *c)
{
	return c->tls != NULL ? client_tls_version(c->tls) : "";
}

struct flume_client *
flume_connect_tls(const char *host_port, const struct flume_client_conf *conf,
    const struct flume_tls_conf *tls)
{
	struct flume_client *c;
	int saved;

	if (host_port == NULL || *host_port == '\0')
		host_port = FLUME_DEFAULT_BROKER;
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->host_port = strdup(host_port)) == NULL) {
		free(c);
		snprintf(connect_err, sizeof(connect_err), "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (conf != NULL)
		c->conf = *conf;
	else
		flume_client_conf_init(&c->conf);
	if (c->conf.client_id == NULL)
		c->conf.client_id = "libflume";
	if (c->conf.connect_timeout_ms <= 0)
		c->conf.connect_timeout_ms = 5000;
	if (c->conf.request_timeout_ms <= 0)
		c->conf.request_timeout_ms = 30000;
	if (c->conf.reconnect_backoff_ms <= 0)
		c->conf.reconnect_backoff_ms = 100;
	c->fd = -1;
	c->next_id = 1;
	frame_reader_init(&c->rd, FRAME_RESPONSE, CLIENT_MAX_RESPONSE);
	wbuf_init(&c->out);
	if ((tls != NULL && (c->tls = client_tls_new(c, tls)) == NULL) ||
	    (client_open(c) == -1 && client_open_again(c, 0) == -1)) {
		saved = errno;
		snprintf(connect_err, sizeof(connect_err), "%s", c->err);
		flume_close(c);
		errno = saved;
		return NULL;
	}
	return c;
}

struct flume_client *
flume_connect(const char *host_port)
{
	return flume_connect_conf(host_port, NULL);
}

void
flume_close(struct flume_client *c)
{
	if (c == NULL)
		return;
	client_disconnect(c, ECONNABORTED);
	client_tls_free(c->tls);
	frame_reader_free(&c->rd);
	wbuf_free(&c->out);
	free(c->waits);
	free(c->host_port);
	free(c);
}

const char *
flume_errstr(const struct flume_client *c)
{
	return c == NULL ? connect_err : c->err;
}

int
flume_broker_error(const struct flume_client *c)
{
	return c->broker_err;
}

int
flume_corrupt_range(const struct flume_client *c, struct flume_corrupt *out)
{
	if (c == NULL || c->broker_err != ERR_CORRUPT_MESSAGE ||
	    c->bad_topic[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	out->topic = c->bad_topic;
	out->partition = c->bad_partition;
	out->offset = c->bad_first;
	out->next = c->bad_next;
	return 0;
}

void
client_corrupt(struct flume_client *c, const char *topic, int32_t partition,
    int64_t first, int64_t next)
{
	c->broker_err = ERR_CORRUPT_MESSAGE;
	snprintf(c->bad_topic, sizeof(c->bad_topic), "%s", topic);
	c->bad_partition = partition;
	c->bad_first = first;
	c->bad_next = next;
	client_seterr(c, "%s[%d]: corrupt batch at offset %lld (readable "
	    "again from %lld)", topic, (int)partition, (long long)first,
	    (long long)next);
	errno = EBADMSG;
}

const char *
flume_broker_version(const struct flume_client *c)
{
	return c->broker_name;
}

const char *
flume_version(void)
{
	return FLUME_VERSION;
}

const char *
flume_client_address(const struct flume_client *c)
{
	return c->host_port;
}

unsigned
flume_client_reconnects(const struct flume_client *c)
{
	return c->reconnects;
}

uint64_t
flume_client_bytes_out(const struct flume_client *c)
{
	return c->bytes_out;
}

uint64_t
flume_client_bytes_in(const struct flume_client *c)
{
	return c->bytes_in;
}

int
client_connected(const struct flume_client *c)
{
	return c->fd != -1;
}

int
client_can_ref(const struct flume_client *c)
{
	return c->tls == NULL;
}

size_t
client_unsent(const struct flume_client *c)
{
	return wbuf_size(&c->out) - c->out_off;
}

size_t
client_waiting(const struct flume_client *c)
{
	return c->wait_len;
}

int
client_reconnect(struct flume_client *c)
{
	int i, delay = c->conf.reconnect_backoff_ms;

	if (c->fd != -1)
		return 0;
	for (i = 0; i < c->conf.reconnect_attempts; i++) {
		if (i > 0) {
			client_sleep_ms(delay);
			delay = delay * 2 > 1000 ? 1000 : delay * 2;
		}
		if (client_open(c) == 0) {
			c->reconnects++;
			return 0;
		}
	}
	if (c->conf.reconnect_attempts <= 0) {
		client_seterr(c, "not connected to %s", c->host_port);
		errno = ENOTCONN;
	}
	return -1;
}

size_t
client_begin(struct flume_client *c, uint16_t api, uint32_t *id)
{
	*id = c->next_id++;
	if (c->next_id == 0)
		c->next_id = 1;
	return frame_begin_request(&c->out, api, *id);
}

int
client_end(struct flume_client *c, size_t start, uint32_t id,
    client_resp_fn *fn, void *ctx)
{
	struct client_wait *nw;
	size_t ncap, i;

	frame_end(&c->out, start);
	if (c->out.err == 0 && fn != NULL && c->wait_len == c->wait_cap) {
		ncap = c->wait_cap ? c->wait_cap * 2 : 16;
		if ((nw = calloc(ncap, sizeof(*nw))) == NULL)
			c->out.err = ENOMEM;
		else {
			for (i = 0; i < c->wait_len; i++)
				nw[i] = c->waits[(c->wait_head + i) % c->wait_cap];
			free(c->waits);
			c->waits = nw;
			c->wait_cap = ncap;
			c->wait_head = 0;
		}
	}
	if (c->out.err != 0) {
		/* Drop the partial frame; the bytes before it are intact. */
		errno = c->out.err == EMSGSIZE ? EMSGSIZE : ENOMEM;
		wbuf_truncate(&c->out, start);
		c->out.err = 0;
		client_seterr(c, "cannot encode request: %s", strerror(errno));
		return -1;
	}
	if (fn != NULL) {
		nw = &c->waits[(c->wait_head + c->wait_len) % c->wait_cap];
		nw->id = id;
		nw->fn = fn;
		nw->ctx = ctx;
		c->wait_len++;
	}
	return 0;
}

void
client_disconnect(struct flume_client *c, int err)
{
	struct client_wait w;

	if (c->fd != -1) {
		client_tls_stop(c->tls);
		close(c->fd);
		c->fd = -1;
	}
	frame_reader_free(&c->rd);
	frame_reader_init(&c->rd, FRAME_RESPONSE, CLIENT_MAX_RESPONSE);
	wbuf_reset(&c->out);
	c->out_off = 0;
	while (c->wait_len > 0) {
		w = c->waits[c->wait_head];
		c->wait_head = (c->wait_head + 1) % c->wait_cap;
		c->wait_len--;
		(void)w.fn(c, w.ctx, NULL, 0, err);
	}
	if (err != ECONNABORTED)
		client_seterr(c, "connection to %s lost: %s", c->host_port,
		    strerror(err));
}

/* Hand one response frame to its waiting handler; 0 or -1 (disconnected). */
static int
client_dispatch(struct flume_client *c, const struct frame *f)
{
	struct client_wait w;
	size_t i, j, n;

	for (i = 0; i < c->wait_len; i++)
		if (c->waits[(c->wait_head + i) % c->wait_cap].id == f->request_id)
			break;
	if (i == c->wait_len) {
		client_disconnect(c, EPROTO);
		errno = EPROTO;
		return -1;
	}
	w = c->waits[(c->wait_head + i) % c->wait_cap];
	/* Close the gap (i is 0 unless the broker reordered answers). */
	for (j = i; j > 0; j--) {
		n = (c->wait_head + j) % c->wait_cap;
		c->waits[n] = c->waits[(c->wait_head + j - 1) % c->wait_cap];
	}
	c->wait_head = (c->wait_head + 1) % c->wait_cap;
	c->wait_len--;
	if (w.fn(c, w.ctx, f->payload, f->payload_len, 0) == -1) {
		client_disconnect(c, EPROTO);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/*
 * Write what the socket takes; 0, or -1 on a hard error.  Output with
 * spans (batches referenced, not copied: client_can_ref) goes out with
 * sendmsg, a gather of the buffer's pieces.
 */
static int
client_flush_out(struct flume_client *c)
{
	struct iovec iov[CLIENT_IOV_MAX];
	struct msghdr mh;
	ssize_t n;

	while (c->out_off < wbuf_size(&c->out)) {
		c->tls_want = 0;
		if (c->tls != NULL)
			n = client_tls_write(c->tls, c->out.buf + c->out_off,
			    c->out.len - c->out_off, &c->tls_want);
		else if (c->out.nspans == 0)
			n = send(c->fd, c->out.buf + c->out_off,
			    c->out.len - c->out_off, MSG_NOSIGNAL);
		else {
			memset(&mh, 0, sizeof(mh));
			mh.msg_iov = iov;
			mh.msg_iovlen = (size_t)wbuf_iov(&c->out, c->out_off, iov,
			    CLIENT_IOV_MAX);
			n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		}
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		c->out_off += (size_t)n;
		c->bytes_out += (uint64_t)n;
	}
	wbuf_reset(&c->out);
	c->out_off = 0;
	return 0;
}

/* Read what is there and dispatch every whole frame; 0 or -1 (lost). */
static int
client_read_in(struct flume_client *c)
{
	struct frame f;
	uint8_t *space;
	size_t room;
	ssize_t n;
	int rc, rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		if ((space = frame_reader_space(&c->rd, &room)) == NULL) {
			client_disconnect(c, ENOMEM);
			errno = ENOMEM;
			return -1;
		}
		c->tls_want = 0;
		n = c->tls != NULL ? client_tls_read(c->tls, space, room,
		    &c->tls_want) : recv(c->fd, space, room, 0);
		if (n == 0) {
			client_disconnect(c, ECONNRESET);
			errno = ECONNRESET;
			return -1;
		}
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			rc = errno;
			client_disconnect(c, rc);
			errno = rc;
			return -1;
		}
		frame_reader_commit(&c->rd, (size_t)n);
		c->bytes_in += (uint64_t)n;
		while ((rc = frame_reader_next(&c->rd, &f)) == 1)
			if (client_dispatch(c, &f) == -1)
				return -1;
		if (rc == -1) {
			client_disconnect(c, EPROTO);
			errno = EPROTO;
			return -1;
		}
		if (c->wait_len == 0 && frame_reader_pending(&c->rd) == 0)
			return 0;
		/* A TLS read returns one record: read until EAGAIN. */
		if ((size_t)n < room && c->tls == NULL)
			return 0;
	}
	return 0;
}

int
client_pump(struct flume_client *c, int timeout_ms)
{
	struct pollfd pfd;
	int n, rc;

	if (c->fd == -1) {
		errno = ENOTCONN;
		return -1;
	}
	/* Write first: the request we wait for may still be in out. */
	if (client_unsent(c) > 0 && client_flush_out(c) == -1)
		goto lost;
	/* Records OpenSSL already decrypted raise no poll event. */
	if (c->tls != NULL && c->wait_len > 0 && client_tls_pending(c->tls) > 0)
		return client_read_in(c);
	pfd.fd = c->fd;
	pfd.events = 0;
	pfd.revents = 0;
	if (client_unsent(c) > 0)
		pfd.events |= POLLOUT;
	if (c->wait_len > 0)
		pfd.events |= POLLIN;
	if (pfd.events == 0)
		return 0;
	if (c->tls != NULL)
		pfd.events |= c->tls_want;	/* a read may need to write */
	n = poll(&pfd, 1, timeout_ms);
	if (n == -1)
		return errno == EINTR ? 0 : -1;
	if (n == 0)
		return 0;
	if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) != 0 &&
	    (pfd.events & POLLIN) != 0 && client_read_in(c) == -1)
		return -1;
	if ((pfd.revents & (POLLOUT | POLLERR | POLLHUP)) != 0 &&
	    c->fd != -1 && client_flush_out(c) == -1)
		goto lost;
	if ((pfd.revents & (POLLERR | POLLHUP)) != 0 && pfd.events == POLLOUT &&
	    c->fd != -1) {
		errno = ECONNRESET;
		goto lost;
	}
	return 0;
lost:
	rc = errno;
	client_disconnect(c, rc);
	errno = rc;
	return -1;
}

/* Encode msg, the request of api, into the frame being built in wb. */
static void
client_encode(struct wbuf *wb, uint16_t api, const void *msg)
{
	switch (api) {
	case API_HANDSHAKE:
		msg_encode_handshake_req(wb, msg);
		break;
	case API_METADATA:
		msg_encode_metadata_req(wb, msg);
		break;
	case API_CREATE_TOPIC:
		msg_encode_create_topic_req(wb, msg);
		break;
	case API_DELETE_TOPIC:
		msg_encode_delete_topic_req(wb, msg);
		break;
	case API_CREATE_PARTITIONS:
		msg_encode_create_partitions_req(wb, msg);
		break;
	case API_LIST_OFFSETS:
		msg_encode_list_offsets_req(wb, msg);
		break;
	case API_JOIN_GROUP:
		msg_encode_join_group_req(wb, msg);
		break;
	case API_HEARTBEAT:
		msg_encode_heartbeat_req(wb, msg);
		break;
	case API_LEAVE_GROUP:
		msg_encode_leave_group_req(wb, msg);
		break;
	case API_OFFSET_COMMIT:
		msg_encode_offset_commit_req(wb, msg);
		break;
	case API_OFFSET_FETCH:
		msg_encode_offset_fetch_req(wb, msg);
		break;
	case API_DESCRIBE_GROUP:
	case API_GROUP_DELETE:		/* the same [group str] */
		msg_encode_describe_group_req(wb, msg);
		break;
	case API_GROUP_RESET:
		msg_encode_group_reset_req(wb, msg);
		break;
	case API_CONFIG_DESCRIBE:
		msg_encode_config_describe_req(wb, msg);
		break;
	case API_CONFIG_ALTER:
		msg_encode_config_alter_req(wb, msg);
		break;
	case API_DELETE_RECORDS:
		msg_encode_delete_records_req(wb, msg);
		break;
	case API_OFFSET_DELETE:
		msg_encode_offset_delete_req(wb, msg);
		break;
	case API_INIT_PRODUCER:
		msg_encode_init_producer_req(wb, msg);
		break;
	case API_AUTH_BEGIN:
		msg_encode_auth_begin_req(wb, msg);
		break;
	case API_AUTH_PROVE:
		msg_encode_auth_prove_req(wb, msg);
		break;
	default:
		break;		/* WORKERS, LIST_GROUPS, STATS: empty */
	}
}

int
client_call_send(struct flume_client *c, uint16_t api, const void *msg,
    struct client_sync *s)
{
	uint32_t id;
	size_t start;

	memset(s, 0, sizeof(*s));
	c->broker_err = 0;
	start = client_begin(c, api, &id);
	client_encode(&c->out, api, msg);
	return client_end(c, start, id, client_sync_fn, s);
}

int
client_call(struct flume_client *c, uint16_t api, const void *msg,
    int timeout_ms, int resend, struct client_sync *s)
{
	int attempt;

	for (attempt = 0;; attempt++) {
		memset(s, 0, sizeof(*s));
		if (!client_connected(c) && client_reconnect(c) == -1)
			return -1;
		if (client_call_send(c, api, msg, s) == -1)
			return -1;
		if (client_sync_wait_ms(c, s, timeout_ms) == 0)
			return 0;
		/* An idempotent call goes once more after a lost connection. */
		if (!resend || attempt > 0 || s->err == ENOMEM ||
		    s->err == ETIMEDOUT)
			return -1;
	}
}

/* ---- METADATA ---- */

void
flume_metadata_free(struct flume_metadata *md)
{
	int32_t i;

	if (md == NULL)
		return;
	for (i = 0; i < md->topic_count; i++) {
		free(md->topics[i].name);
		free(md->topics[i].partitions);
	}
	free(md->topics);
	free(md);
}

/* Copy a decoded metadata response out of the arena. */
static struct flume_metadata *
client_metadata_copy(const struct metadata_resp *r)
{
	struct flume_metadata *md;
	struct flume_topic_meta *t;
	const struct topic_info *ti;
	int32_t i, j;

	if ((md = calloc(1, sizeof(*md))) == NULL)
		return NULL;
	if (r->count > 0 &&
	    (md->topics = calloc((size_t)r->count, sizeof(*md->topics))) == NULL)
		goto fail;
	for (i = 0; i < r->count; i++) {
		ti = &r->topics[i];
		t = &md->topics[i];
		md->topic_count = i + 1;
		t->error = ti->error;
		if ((t->name = strndup(ti->name, ti->name_len)) == NULL)
			goto fail;
		t->partition_count = ti->count;
		if (ti->count > 0 && (t->partitions = calloc((size_t)ti->count,
		    sizeof(*t->partitions))) == NULL)
			goto fail;
		for (j = 0; j < ti->count; j++) {
			t->partitions[j].partition = ti->partitions[j].partition;
			t->partitions[j].log_start = ti->partitions[j].log_start;
			t->partitions[j].log_end = ti->partitions[j].log_end;
			t->partitions[j].size_bytes = ti->partitions[j].size_bytes;
		}
	}
	return md;
fail:
	flume_metadata_free(md);
	return NULL;
}

int
flume_metadata(struct flume_client *c, const char *const *topics, int ntopics,
    int auto_create, struct flume_metadata **out)
{
	struct metadata_req req;
	struct metadata_resp resp;
	struct wire_str *names = NULL;
	struct client_sync s;
	struct arena a;
	int i, rc = -1;

	*out = NULL;
	if (ntopics < 0 || (ntopics > 0 && topics == NULL)) {
		errno = EINVAL;
		client_seterr(c, "bad topic list");
		return -1;
	}
	if (ntopics > 0 && (names = calloc((size_t)ntopics, sizeof(*names))) == NULL)
		return -1;
	for (i = 0; i < ntopics; i++) {
		names[i].s = topics[i];
		names[i].len = strlen(topics[i]);
	}
	req.auto_create = auto_create ? 1 : 0;
	req.count = ntopics;
	req.topics = names;
	arena_init(&a, CLIENT_ARENA_LIMIT);
	/* Metadata is idempotent: one resend after a lost connection. */
	if (client_call(c, API_METADATA, &req, c->conf.request_timeout_ms, 1,
	    &s) == -1)
		goto done;
	if (msg_decode_metadata_resp(s.buf, s.len, &a, &resp) == -1) {
		client_seterr(c, "malformed metadata response");
		errno = EPROTO;
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, "metadata");
		goto done;
	}
	if ((*out = client_metadata_copy(&resp)) == NULL) {
		client_seterr(c, "out of memory");
		errno = ENOMEM;
		goto done;
	}
	rc = 0;
done:
	free(s.buf);
	free(names);
	arena_free(&a);
	return rc;
}

/* ---- CREATE_TOPIC ---- */

int
flume_create_topic(struct flume_client *c, const char *topic,
    int32_t partitions, int32_t *created)
{
	struct create_topic_req req;
	struct create_topic_resp resp;
	struct client_sync s;
	int rc = -1;

	req.topic = topic;
	req.topic_len = strlen(topic);
	req.partitions = partitions;
	if (client_call(c, API_CREATE_TOPIC, &req, c->conf.request_timeout_ms, 0,
	    &s) == -1)
		goto done;
	if (msg_decode_create_topic_resp(s.buf, s.len, &resp) == -1) {
		client_seterr(c, "malformed create topic response");
		errno = EPROTO;
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, topic);
		goto done;
	}
	if (created != NULL)
		*created = resp.partitions;
	rc = 0;
done:
	free(s.buf);
	return rc;
}

/* ---- DELETE_TOPIC ---- */

int
flume_delete_topic(struct flume_client *c, const char *topic, int32_t *deleted)
{
	struct delete_topic_req req;
	struct delete_topic_resp resp;
	struct client_sync s;
	int rc = -1;

	req.topic = topic;
	req.topic_len = strlen(topic);
	/* The broker answers within this; the call waits a little longer. */
	req.timeout_ms = c->conf.request_timeout_ms;
	if (client_call(c, API_DELETE_TOPIC, &req, c->conf.request_timeout_ms +
	    1000, 0, &s) == -1)
		goto done;
	if (msg_decode_delete_topic_resp(s.buf, s.len, &resp) == -1) {
		client_seterr(c, "malformed delete topic response");
		errno = EPROTO;
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, topic);
		goto done;
	}
	if (deleted != NULL)
		*deleted = resp.partitions;
	rc = 0;
done:
	free(s.buf);
	return rc;
}

/* ---- LIST_OFFSETS ---- */

/*
 * Offsets of n (topic, partition, which) triples in one request, for the
 * library (the consumer asks for every partition at once); results[i]
 * gets the offset.  A per-entry broker error fails the whole call.
 */
int
client_list_offsets(struct flume_client *c, const struct list_offsets_part *parts,
    int32_t n, int64_t *results)
{
	struct list_offsets_req req;
	struct list_offsets_resp resp;
	struct client_sync s;
	struct arena a;
	int32_t i;
	int rc = -1;

	req.count = n;
	req.parts = (struct list_offsets_part *)(uintptr_t)parts;
	arena_init(&a, CLIENT_ARENA_LIMIT);
	if (client_call(c, API_LIST_OFFSETS, &req, c->conf.request_timeout_ms, 1,
	    &s) == -1)
		goto done;
	if (msg_decode_list_offsets_resp(s.buf, s.len, &a, &resp) == -1 ||
	    (resp.error == ERR_NONE && resp.count != n)) {
		client_seterr(c, "malformed list offsets response");
		errno = EPROTO;
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, "list offsets");
		goto done;
	}
	for (i = 0; i < n; i++) {
		if (resp.results[i].error != ERR_NONE) {
			client_broker_fail(c, resp.results[i].error, "list offsets");
			goto done;
		}
		results[i] = resp.results[i].offset;
	}
	rc = 0;
done:
	free(s.buf);
	arena_free(&a);
	return rc;
}

int
flume_list_offset(struct flume_client *c, const char *topic, int32_t partition,
    int64_t which, int64_t *offset)
{
	struct list_offsets_part part;

	if (which != FLUME_OFFSET_BEGINNING && which != FLUME_OFFSET_END) {
		errno = EINVAL;
		client_seterr(c, "list offset: which must be beginning or end");
		return -1;
	}
	part.topic = topic;
	part.topic_len = strlen(topic);
	part.partition = partition;
	part.which = which;
	return client_list_offsets(c, &part, 1, offset);
}

int
flume_list_offset_for_time(struct flume_client *c, const char *topic,
    int32_t partition, int64_t ts_ms, int64_t *offset)
{
	struct list_offsets_part part;

	if (ts_ms < 0) {
		errno = EINVAL;
		client_seterr(c, "list offset for time: negative timestamp");
		return -1;
	}
	part.topic = topic;
	part.topic_len = strlen(topic);
	part.partition = partition;
	part.which = ts_ms;		/* which >= 0: a timestamp */
	return client_list_offsets(c, &part, 1, offset);
}

/* ---- WORKERS ---- */

int
flume_workers(struct flume_client *c, struct flume_worker_info **out)
{
	struct workers_resp resp;
	struct client_sync s;
	struct arena a;
	int32_t i;
	int rc = -1;

	*out = NULL;
	arena_init(&a, CLIENT_ARENA_LIMIT);
	if (client_call(c, API_WORKERS, NULL, c->conf.request_timeout_ms, 0,
	    &s) == -1)
		goto done;
	if (msg_decode_workers_resp(s.buf, s.len, &a, &resp) == -1) {
		client_seterr(c, "malformed workers response");
		errno = EPROTO;
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, "workers");
		goto done;
	}
	if ((*out = calloc(resp.count > 0 ? (size_t)resp.count : 1,
	    sizeof(**out))) == NULL) {
		client_seterr(c, "out of memory");
		goto done;
	}
	for (i = 0; i < resp.count; i++) {
		(*out)[i].slot = resp.children[i].slot;
		(*out)[i].role = resp.children[i].role;
		(*out)[i].pid = resp.children[i].pid;
		(*out)[i].uptime_ms = resp.children[i].uptime_ms;
		(*out)[i].restarts = resp.children[i].restarts;
	}
	rc = resp.count;
done:
	free(s.buf);
	arena_free(&a);
	return rc;
}

/* ---- CONNECTIONS ---- */

/* Copy a wire string into a fixed field, cut to fit. */
static void
conn_str(char *dst, size_t max, const char *src, size_t len)
{
	if (len > max - 1)
		len = max - 1;
	if (len > 0)
		memcpy(dst, src, len);
	dst[len] = '\0';
}

int
flume_connections(struct flume_client *c, struct flume_conn_info **out)
{
	struct connections_resp resp;
	struct client_sync s;
	struct arena a;
	int32_t i;
	int rc = -1;

	*out = NULL;
	arena_init(&a, CLIENT_ARENA_LIMIT);
	if (client_call(c, API_CONNECTIONS, NULL, c->conf.request_timeout_ms,
	    0, &s) == -1)
		goto done;
	if (msg_decode_connections_resp(s.buf, s.len, &a, &resp) == -1) {
		client_seterr(c, "malformed connections response");
		errno = EPROTO;
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, "connections");
		goto done;
	}
	if ((*out = calloc(resp.count > 0 ? (size_t)resp.count : 1,
	    sizeof(**out))) == NULL) {
		client_seterr(c, "out of memory");
		goto done;
	}
	for (i = 0; i < resp.count; i++) {
		(*out)[i].slot = resp.conns[i].slot;
		(*out)[i].pid = resp.conns[i].pid;
		(*out)[i].kafka = resp.conns[i].protocol == 1;
		(*out)[i].tls = resp.conns[i].tls != 0;
		(*out)[i].opened_ms = resp.conns[i].opened_ms;
		conn_str((*out)[i].peer, sizeof((*out)[i].peer),
		    resp.conns[i].peer, resp.conns[i].peer_len);
		conn_str((*out)[i].client_name, sizeof((*out)[i].client_name),
		    resp.conns[i].client_name, resp.conns[i].client_name_len);
		conn_str((*out)[i].client_version,
		    sizeof((*out)[i].client_version),
		    resp.conns[i].client_version,
		    resp.conns[i].client_version_len);
	}
	rc = resp.count;
done:
	if (rc == -1) {
		free(*out);
		*out = NULL;
	}
	free(s.buf);
	arena_free(&a);
	return rc;
}

/* ---- key partitioner ---- */

uint32_t
flume_fnv1a32(const void *key, size_t len)
{
	const uint8_t *p = key;
	uint32_t h = 0x811c9dc5u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x01000193u;
	}
	return h;
}

int32_t
flume_partition_for_key(const void *key, size_t len, int32_t partition_count)
{
	if (partition_count <= 0)
		return -1;
	return (int32_t)(flume_fnv1a32(key, len) % (uint32_t)partition_count);
}
