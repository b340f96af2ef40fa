/*
 * The NATS client protocol as flume-nbench reads it (tests/bench/nproto.c):
 * splitting the server's byte stream into operations (INFO, MSG, HMSG,
 * PING, PONG, +OK, -ERR) and the few JSON answers of JetStream it looks
 * at.  No I/O, so tests/unit/test_nproto.c checks it exactly.
 *
 * Server operations (docs.nats.io, "Client Protocol"): a control line
 * ending in CRLF, and for MSG and HMSG a payload of the announced size
 * followed by CRLF:
 *   MSG <subject> <sid> [reply-to] <#bytes>
 *   HMSG <subject> <sid> [reply-to] <#header bytes> <#total bytes>
 * An HMSG's headers start with "NATS/1.0", and a status code after it
 * when the server itself answers (503 no responders, 404 no messages,
 * 408 request timeout).
 */
#ifndef FLUME_TESTS_BENCH_NPROTO_H
#define FLUME_TESTS_BENCH_NPROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A control line longer than this is malformed (the server's is 4096). */
#define NPROTO_MAX_LINE		4096

enum nproto_op { NP_INFO = 1, NP_MSG, NP_HMSG, NP_PING, NP_PONG, NP_OK,
	NP_ERR };

/* One server operation; the pointers point into the parsed buffer. */
struct nproto_msg {
	enum nproto_op	 op;
	const char	*subject;	/* MSG, HMSG */
	size_t		 subject_len;
	uint64_t	 sid;
	const char	*reply;		/* NULL: no reply subject */
	size_t		 reply_len;
	const char	*hdr;		/* HMSG: the header block */
	size_t		 hdr_len;
	int		 status;	/* HMSG: status code, 0: none */
	const char	*payload;	/* MSG, HMSG: the payload (after headers) */
	size_t		 payload_len;
	const char	*text;		/* INFO: the JSON, -ERR: the message */
	size_t		 text_len;
};

/*
 * One operation from buf[0..len) into *m: the bytes it took (> 0), 0 when
 * buf holds only part of one (read more), -1 when it is malformed (an
 * unknown operation, a bad count, a line over NPROTO_MAX_LINE, a payload
 * not followed by CRLF).
 */
/* Decimal digits at s[0..len) into *v: 0, or -1 (empty, not digits, overflow). */
int	nproto_num(const char *s, size_t len, uint64_t *v);
ssize_t	nproto_parse(const char *buf, size_t len, struct nproto_msg *m);

/*
 * The unsigned number of "key" at the top level or anywhere in the JSON
 * object json[0..len) (its first occurrence as a key): 0, or -1 when
 * there is none or it is not a number.
 */
int	nproto_json_u64(const char *json, size_t len, const char *key,
	    uint64_t *v);

/*
 * A JetStream publish acknowledgement, {"stream":"S","seq":N,...}: 0
 * with *seq = N; -1 when it is an error answer ({"error":{...}}) or not
 * an ack.
 */
int	nproto_ack_seq(const char *json, size_t len, uint64_t *seq);

#endif
