/*
 * The console's write actions over the native protocol (see
 * master/console_admin.h): HANDSHAKE, AUTH_BEGIN / AUTH_PROVE as the
 * user, then one request and its answer, the way libflume does it
 * (clients/libflume_auth.c), written here with proto/'s codecs because
 * master/ may not use clients/.
 */
#include <sys/socket.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/clock.h"
#include "master/console_admin.h"
#include "proto/batch.h"
#include "proto/frame.h"
#include "proto/msg_auth.h"
#include "proto/msg_tconf.h"
#include "proto/wire.h"

#define CADMIN_FRAME_MAX	(1u << 20)

struct cadmin {
	int		 fd;
	uint32_t	 next_id;
	struct frame_reader fr;
	struct arena	 a;		/* decoded answers */
};

static int cadmin_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
cadmin_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Send the frame in wb and wait for its answer: *p, *len (valid until the
 * next call).  0 or -1 with err.
 */
static int
cadmin_roundtrip(struct cadmin *c, struct wbuf *wb, uint32_t id,
    const uint8_t **p, size_t *len, char *err, size_t errlen)
{
	int64_t deadline = clock_mono_ms() + CADMIN_TIMEOUT_MS, left;
	struct pollfd pfd = { c->fd, POLLIN, 0 };
	struct frame f;
	size_t off = 0, room;
	uint8_t *space;
	ssize_t n;
	int rc;

	if (wb->err)
		return cadmin_fail(err, errlen, "out of memory");
	while (off < wb->len) {
		n = send(c->fd, wb->buf + off, wb->len - off, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return cadmin_fail(err, errlen, "sending to the broker: %s",
			    strerror(errno));
		off += (size_t)n;
	}
	for (;;) {
		rc = frame_reader_next(&c->fr, &f);
		if (rc == 1) {
			if (f.request_id != id)
				return cadmin_fail(err, errlen,
				    "the broker answered request %u, not %u",
				    f.request_id, id);
			*p = f.payload;
			*len = f.payload_len;
			return 0;
		}
		if (rc == -1)
			return cadmin_fail(err, errlen, "a bad frame from the broker");
		if ((left = deadline - clock_mono_ms()) <= 0)
			return cadmin_fail(err, errlen, "the broker did not answer "
			    "within %d ms", CADMIN_TIMEOUT_MS);
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		if ((space = frame_reader_space(&c->fr, &room)) == NULL)
			return cadmin_fail(err, errlen, "out of memory");
		n = recv(c->fd, space, room, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return cadmin_fail(err, errlen, "the broker closed the "
			    "connection");
		frame_reader_commit(&c->fr, (size_t)n);
	}
}

/* Encode a request with enc and exchange it; the answer's payload in *p. */
#define CADMIN_CALL(c, api, enc, req, p, len, err, errlen) __extension__ ({ \
	struct wbuf wb_;						\
	uint32_t id_ = ++(c)->next_id;					\
	size_t st_;							\
	int rc_;							\
	wbuf_init(&wb_);						\
	st_ = frame_begin_request(&wb_, (api), id_);			\
	enc(&wb_, (req));						\
	frame_end(&wb_, st_);						\
	rc_ = cadmin_roundtrip((c), &wb_, id_, (p), (len), (err), (errlen)); \
	wbuf_free(&wb_);						\
	rc_; })

int
cadmin_open(struct cadmin **cp, const struct config *conf, const char *user,
    const uint8_t *secret, size_t slen, char *err, size_t errlen)
{
	crypto_auth_hmacsha256_state hs;
	struct addrinfo hints, *res, *ai;
	struct handshake_req hq = { FLUME_PROTOCOL_VERSION, "flume-console", 13 };
	struct handshake_resp hr;
	struct auth_begin_req bq;
	struct auth_begin_resp br;
	struct auth_prove_req pq;
	struct auth_prove_resp pr;
	struct timeval tv = { CADMIN_TIMEOUT_MS / 1000, 0 };
	struct cadmin *c;
	const uint8_t *p;
	size_t len;
	int rc;

	*cp = NULL;
	if (conf->listen[0] == '\0')
		return cadmin_fail(err, errlen, "write actions need the plaintext "
		    "native listener (listen), which is off");
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return cadmin_fail(err, errlen, "out of memory");
	c->fd = -1;
	frame_reader_init(&c->fr, FRAME_RESPONSE, CADMIN_FRAME_MAX);
	arena_init(&c->a, CADMIN_FRAME_MAX);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(conf->listen_host[0] ? conf->listen_host : "127.0.0.1",
	    conf->listen_port, &hints, &res) != 0) {
		cadmin_close(c);
		return cadmin_fail(err, errlen, "cannot resolve %s", conf->listen);
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol)) == -1)
			continue;
		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(res);
	if (c->fd == -1) {
		cadmin_close(c);
		return cadmin_fail(err, errlen, "cannot connect to %s: %s",
		    conf->listen, strerror(errno));
	}
	if (CADMIN_CALL(c, API_HANDSHAKE, msg_encode_handshake_req, &hq, &p,
	    &len, err, errlen) == -1 ||
	    msg_decode_handshake_resp(p, len, &hr) == -1 || hr.error != 0) {
		cadmin_close(c);
		return err[0] ? -1 : cadmin_fail(err, errlen, "handshake refused");
	}
	bq.user = user;
	bq.user_len = strlen(user);
	if (CADMIN_CALL(c, API_AUTH_BEGIN, msg_encode_auth_begin_req, &bq, &p,
	    &len, err, errlen) == -1 ||
	    msg_decode_auth_begin_resp(p, len, &br) == -1) {
		cadmin_close(c);
		return err[0] ? -1 : cadmin_fail(err, errlen, "bad AUTH_BEGIN answer");
	}
	if (br.error == ERR_UNSUPPORTED_API) {
		*cp = c;		/* the broker asks nobody */
		return 0;
	}
	if (br.error != ERR_NONE) {
		cadmin_close(c);
		return cadmin_fail(err, errlen, "authentication as %s: %s", user,
		    flume_strerror(br.error));
	}
	crypto_auth_hmacsha256_init(&hs, secret, slen);
	crypto_auth_hmacsha256_update(&hs, br.nonce, sizeof(br.nonce));
	crypto_auth_hmacsha256_final(&hs, pq.mac);
	sodium_memzero(&hs, sizeof(hs));
	rc = CADMIN_CALL(c, API_AUTH_PROVE, msg_encode_auth_prove_req, &pq, &p,
	    &len, err, errlen);
	sodium_memzero(&pq, sizeof(pq));
	if (rc == -1 || msg_decode_auth_prove_resp(p, len, &pr) == -1 ||
	    pr.error != ERR_NONE) {
		cadmin_close(c);
		return rc == -1 ? -1 : cadmin_fail(err, errlen,
		    "authentication as %s failed", user);
	}
	*cp = c;
	return 0;
}

void
cadmin_close(struct cadmin *c)
{
	if (c == NULL)
		return;
	if (c->fd != -1)
		close(c->fd);
	frame_reader_free(&c->fr);
	arena_free(&c->a);
	free(c);
}

int
cadmin_create_topic(struct cadmin *c, const char *topic, int32_t partitions,
    int16_t *error, int32_t *made, char *err, size_t errlen)
{
	struct create_topic_req q = { topic, strlen(topic), partitions };
	struct create_topic_resp r;
	const uint8_t *p;
	size_t len;

	if (CADMIN_CALL(c, API_CREATE_TOPIC, msg_encode_create_topic_req, &q,
	    &p, &len, err, errlen) == -1)
		return -1;
	if (msg_decode_create_topic_resp(p, len, &r) == -1)
		return cadmin_fail(err, errlen, "bad CREATE_TOPIC answer");
	*error = r.error;
	*made = r.partitions;
	return 0;
}

int
cadmin_produce(struct cadmin *c, const char *topic, int32_t partition,
    const char *key, const char *value, int16_t *error, int64_t *offset,
    char *err, size_t errlen)
{
	struct batch_builder bb;
	struct produce_part part;
	struct produce_req q;
	struct produce_resp r;
	const uint8_t *batch, *p;
	size_t blen, len;
	int rc = -1;

	batch_builder_init(&bb);
	if (batch_builder_add(&bb, clock_real_ms(), key,
	    key ? (int32_t)strlen(key) : -1, value,
	    value ? (int32_t)strlen(value) : -1, NULL, 0) != 0 ||
	    batch_builder_close(&bb, &batch, &blen) != 0) {
		batch_builder_free(&bb);
		return cadmin_fail(err, errlen, "cannot build the record");
	}
	part.topic = topic;
	part.topic_len = strlen(topic);
	part.partition = partition;
	part.records = batch;
	part.records_len = (int32_t)blen;
	q.acks = 1;
	q.timeout_ms = CADMIN_TIMEOUT_MS;
	q.count = 1;
	q.parts = &part;
	if (CADMIN_CALL(c, API_PRODUCE, msg_encode_produce_req, &q, &p, &len,
	    err, errlen) == 0) {
		if (msg_decode_produce_resp(p, len, &c->a, &r) == -1)
			cadmin_fail(err, errlen, "bad PRODUCE answer");
		else {
			*error = r.error != ERR_NONE || r.count < 1 ? r.error :
			    r.results[0].error;
			*offset = r.count >= 1 ? r.results[0].base_offset : -1;
			rc = 0;
		}
	}
	batch_builder_free(&bb);
	return rc;
}

int
cadmin_group_reset(struct cadmin *c, const struct group_reset_req *q,
    int16_t *error, struct group_reset_result *res, int32_t *n, char *err,
    size_t errlen)
{
	struct group_reset_resp r;
	const uint8_t *p;
	size_t len;
	int32_t i;

	if (CADMIN_CALL(c, API_GROUP_RESET, msg_encode_group_reset_req, q, &p,
	    &len, err, errlen) == -1)
		return -1;
	if (msg_decode_group_reset_resp(p, len, &c->a, &r) == -1)
		return cadmin_fail(err, errlen, "bad GROUP_RESET answer");
	*error = r.error;
	for (i = 0; i < r.count && i < CADMIN_RESULTS_MAX; i++)
		res[i] = r.results[i];
	*n = i;
	return 0;
}

int
cadmin_config_set(struct cadmin *c, const char *topic, const char *key,
    const char *value, int16_t *error, char *msg, size_t msglen, char *err,
    size_t errlen)
{
	struct config_edit e = { value != NULL ? 0 : 1, key, strlen(key),
	    value != NULL ? value : "", value != NULL ? strlen(value) : 0 };
	struct config_alter_req q = { topic, strlen(topic), 0, 1, &e };
	struct config_alter_resp r;
	const uint8_t *p;
	size_t len;

	if (CADMIN_CALL(c, API_CONFIG_ALTER, msg_encode_config_alter_req, &q,
	    &p, &len, err, errlen) == -1)
		return -1;
	if (msg_decode_config_alter_resp(p, len, &r) == -1)
		return cadmin_fail(err, errlen, "bad CONFIG_ALTER answer");
	*error = r.error;
	snprintf(msg, msglen, "%.*s", (int)(r.message_len < 300 ?
	    r.message_len : 300), r.message != NULL ? r.message : "");
	return 0;
}
