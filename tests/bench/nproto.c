/*
 * NATS server operations and JetStream answers, parsed without I/O; see
 * nproto.h.  The parser copies nothing: a payload is only pointed at, so
 * a 10 KiB ack-free MSG costs a scan for its control line only.
 */
#include <string.h>
#include <strings.h>

#include "tests/bench/nproto.h"

int
nproto_num(const char *s, size_t len, uint64_t *v)
{
	uint64_t n = 0;
	size_t i;

	if (len == 0 || len > 19)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		n = n * 10 + (uint64_t)(s[i] - '0');
	}
	*v = n;
	return 0;
}

/* Split line[0..len) at spaces or tabs into at most max fields; their count. */
static int
nproto_fields(const char *line, size_t len, const char **f, size_t *flen,
    int max)
{
	size_t i = 0, start;
	int n = 0;

	while (i < len) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			break;
		if (n == max)
			return max + 1;
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		f[n] = line + start;
		flen[n] = i - start;
		n++;
	}
	return n;
}

/* Does line[0..len) start with the operation name op, case-insensitively? */
static int
nproto_is(const char *line, size_t len, const char *op)
{
	size_t n = strlen(op);

	return len >= n && strncasecmp(line, op, n) == 0 &&
	    (len == n || line[n] == ' ' || line[n] == '\t');
}

/* The status code of an HMSG header block ("NATS/1.0 404 ..."), 0: none. */
static int
nproto_status(const char *h, size_t len)
{
	uint64_t code;
	size_t i = 8, s;

	if (len < 8 || memcmp(h, "NATS/1.0", 8) != 0)
		return 0;
	while (i < len && h[i] == ' ')
		i++;
	s = i;
	while (i < len && h[i] >= '0' && h[i] <= '9')
		i++;
	if (i - s != 3 || nproto_num(h + s, 3, &code) == -1)
		return 0;
	return (int)code;
}

ssize_t
nproto_parse(const char *buf, size_t len, struct nproto_msg *m)
{
	const char *eol, *f[6];
	size_t llen, flen[6], need, total;
	uint64_t nb, nh = 0;
	int n, hmsg;

	memset(m, 0, sizeof(*m));
	eol = memchr(buf, '\n', len < NPROTO_MAX_LINE ? len : NPROTO_MAX_LINE);
	if (eol == NULL)
		return len < NPROTO_MAX_LINE ? 0 : -1;
	if (eol == buf || eol[-1] != '\r')
		return -1;
	llen = (size_t)(eol - buf) - 1;
	total = llen + 2;
	if (nproto_is(buf, llen, "PING")) {
		m->op = NP_PING;
		return llen == 4 ? (ssize_t)total : -1;
	}
	if (nproto_is(buf, llen, "PONG")) {
		m->op = NP_PONG;
		return llen == 4 ? (ssize_t)total : -1;
	}
	if (nproto_is(buf, llen, "+OK")) {
		m->op = NP_OK;
		return llen == 3 ? (ssize_t)total : -1;
	}
	if (nproto_is(buf, llen, "-ERR") || nproto_is(buf, llen, "INFO")) {
		m->op = buf[0] == '-' ? NP_ERR : NP_INFO;
		m->text = buf + 4;
		m->text_len = llen - 4;
		while (m->text_len > 0 && *m->text == ' ') {
			m->text++;
			m->text_len--;
		}
		/* The server ends INFO's JSON with a space. */
		while (m->text_len > 0 && m->text[m->text_len - 1] == ' ')
			m->text_len--;
		return (ssize_t)total;
	}
	hmsg = nproto_is(buf, llen, "HMSG");
	if (!hmsg && !nproto_is(buf, llen, "MSG"))
		return -1;
	n = nproto_fields(buf, llen, f, flen, 6);
	/* MSG: 4 or 5 fields; HMSG: 5 or 6 (the operation name included). */
	if (n < 4 + hmsg || n > 5 + hmsg)
		return -1;
	m->op = hmsg ? NP_HMSG : NP_MSG;
	m->subject = f[1];
	m->subject_len = flen[1];
	if (nproto_num(f[2], flen[2], &m->sid) == -1)
		return -1;
	if (n == 5 + hmsg) {
		m->reply = f[3];
		m->reply_len = flen[3];
	}
	if (nproto_num(f[n - 1], flen[n - 1], &nb) == -1)
		return -1;
	if (hmsg && (nproto_num(f[n - 2], flen[n - 2], &nh) == -1 || nh > nb))
		return -1;
	/* The payload and its CRLF must fit a size_t beside the line. */
	if (nb > SIZE_MAX / 2)
		return -1;
	need = total + (size_t)nb + 2;
	if (len < need)
		return 0;
	if (buf[need - 2] != '\r' || buf[need - 1] != '\n')
		return -1;
	m->hdr = hmsg ? buf + total : NULL;
	m->hdr_len = (size_t)nh;
	m->status = hmsg ? nproto_status(buf + total, (size_t)nh) : 0;
	m->payload = buf + total + nh;
	m->payload_len = (size_t)(nb - nh);
	return (ssize_t)need;
}

int
nproto_json_u64(const char *json, size_t len, const char *key, uint64_t *v)
{
	size_t klen = strlen(key), i, s;

	for (i = 0; i + klen + 2 < len; i++) {
		if (json[i] != '"' || memcmp(json + i + 1, key, klen) != 0 ||
		    json[i + 1 + klen] != '"')
			continue;
		/* A key, not a string value: a colon follows. */
		s = i + klen + 2;
		while (s < len && (json[s] == ' ' || json[s] == '\t'))
			s++;
		if (s == len || json[s] != ':')
			continue;
		s++;
		while (s < len && (json[s] == ' ' || json[s] == '\t'))
			s++;
		i = s;
		while (i < len && json[i] >= '0' && json[i] <= '9')
			i++;
		return nproto_num(json + s, i - s, v);
	}
	return -1;
}

int
nproto_ack_seq(const char *json, size_t len, uint64_t *seq)
{
	size_t i = 0;

	while (i < len && (json[i] == ' ' || json[i] == '\t'))
		i++;
	if (i == len || json[i] != '{')
		return -1;
	if (memmem(json, len, "\"error\"", 7) != NULL)
		return -1;
	if (memmem(json, len, "\"stream\"", 8) == NULL)
		return -1;
	return nproto_json_u64(json, len, "seq", seq);
}
