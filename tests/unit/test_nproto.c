/*
 * flume-nbench's NATS parser (tests/bench/nproto.c): every server
 * operation with its exact fields, a message split at every byte, status
 * headers, the malformed lines it must refuse, and the JetStream answers
 * it reads (publish acks, error answers, numbers by key).
 */
#include <string.h>

#include "tests/bench/nproto.h"
#include "tests/harness.h"

static ssize_t
parse(const char *s, struct nproto_msg *m)
{
	return nproto_parse(s, strlen(s), m);
}

static void
test_control(void)
{
	struct nproto_msg m;

	CU_ASSERT_EQUAL(parse("PING\r\n", &m), 6);
	CU_ASSERT_EQUAL(m.op, NP_PING);
	CU_ASSERT_EQUAL(parse("PONG\r\nPING\r\n", &m), 6);
	CU_ASSERT_EQUAL(m.op, NP_PONG);
	CU_ASSERT_EQUAL(parse("+OK\r\n", &m), 5);
	CU_ASSERT_EQUAL(m.op, NP_OK);
	CU_ASSERT_EQUAL(parse("-ERR 'Unknown Protocol Operation'\r\n", &m), 35);
	CU_ASSERT_EQUAL(m.op, NP_ERR);
	CU_ASSERT_EQUAL(m.text_len, 28);
	CU_ASSERT_EQUAL(memcmp(m.text, "'Unknown Protocol Operation'", 28), 0);
	CU_ASSERT_EQUAL(parse("INFO {\"jetstream\":true} \r\n", &m), 26);
	CU_ASSERT_EQUAL(m.op, NP_INFO);
	CU_ASSERT_EQUAL(m.text_len, 18);
	CU_ASSERT_EQUAL(memcmp(m.text, "{\"jetstream\":true}", 18), 0);
	/* Operation names are case-insensitive, as the server's parser. */
	CU_ASSERT_EQUAL(parse("ping\r\n", &m), 6);
	CU_ASSERT_EQUAL(m.op, NP_PING);
}

static void
test_msg(void)
{
	struct nproto_msg m;
	const char *s = "MSG orders 7 _INBOX.x.a.12 5\r\nhello\r\nPING\r\n";

	CU_ASSERT_EQUAL(parse(s, &m), 37);
	CU_ASSERT_EQUAL(m.op, NP_MSG);
	CU_ASSERT_EQUAL(m.subject_len, 6);
	CU_ASSERT_EQUAL(memcmp(m.subject, "orders", 6), 0);
	CU_ASSERT_EQUAL(m.sid, 7);
	CU_ASSERT_EQUAL(m.reply_len, 13);
	CU_ASSERT_EQUAL(memcmp(m.reply, "_INBOX.x.a.12", 13), 0);
	CU_ASSERT_EQUAL(m.payload_len, 5);
	CU_ASSERT_EQUAL(memcmp(m.payload, "hello", 5), 0);
	CU_ASSERT_PTR_NULL(m.hdr);
	CU_ASSERT_EQUAL(m.status, 0);
	/* No reply subject; an empty payload. */
	CU_ASSERT_EQUAL(parse("MSG a.b 1 0\r\n\r\n", &m), 15);
	CU_ASSERT_EQUAL(m.op, NP_MSG);
	CU_ASSERT_PTR_NULL(m.reply);
	CU_ASSERT_EQUAL(m.payload_len, 0);
	CU_ASSERT_EQUAL(m.sid, 1);
	/* A payload holding CRLF is taken by its count, not by lines. */
	CU_ASSERT_EQUAL(parse("MSG s 2 4\r\na\r\nb\r\n", &m), 17);
	CU_ASSERT_EQUAL(m.payload_len, 4);
	CU_ASSERT_EQUAL(memcmp(m.payload, "a\r\nb", 4), 0);
}

static void
test_split(void)
{
	struct nproto_msg m;
	const char *s = "MSG orders 7 _INBOX.x.a.12 5\r\nhello\r\n";
	size_t i, len = strlen(s);

	/* Every proper prefix asks for more; the whole takes all of it. */
	for (i = 0; i < len; i++)
		CU_ASSERT_EQUAL(nproto_parse(s, i, &m), 0);
	CU_ASSERT_EQUAL(nproto_parse(s, len, &m), (ssize_t)len);
}

static void
test_hmsg(void)
{
	struct nproto_msg m;
	const char *s503 = "HMSG _INBOX.r.1 2 16 16\r\nNATS/1.0 503\r\n\r\n\r\n";
	const char *s404 = "HMSG _INBOX.f 3 28 28\r\n"
	    "NATS/1.0 404 No Messages\r\n\r\n\r\n";
	const char *sh = "HMSG s 4 _R 18 21\r\nNATS/1.0\r\nK: v\r\n\r\nabc\r\n";

	CU_ASSERT_EQUAL(parse(s503, &m), (ssize_t)strlen(s503));
	CU_ASSERT_EQUAL(m.op, NP_HMSG);
	CU_ASSERT_EQUAL(m.status, 503);
	CU_ASSERT_EQUAL(m.sid, 2);
	CU_ASSERT_PTR_NULL(m.reply);
	CU_ASSERT_EQUAL(m.hdr_len, 16);
	CU_ASSERT_EQUAL(m.payload_len, 0);
	CU_ASSERT_EQUAL(parse(s404, &m), (ssize_t)strlen(s404));
	CU_ASSERT_EQUAL(m.status, 404);
	CU_ASSERT_EQUAL(m.sid, 3);
	/* Headers without a status, then a payload. */
	CU_ASSERT_EQUAL(parse(sh, &m), (ssize_t)strlen(sh));
	CU_ASSERT_EQUAL(m.status, 0);
	CU_ASSERT_EQUAL(m.reply_len, 2);
	CU_ASSERT_EQUAL(memcmp(m.reply, "_R", 2), 0);
	CU_ASSERT_EQUAL(m.hdr_len, 18);
	CU_ASSERT_EQUAL(m.payload_len, 3);
	CU_ASSERT_EQUAL(memcmp(m.payload, "abc", 3), 0);
}

static void
test_malformed(void)
{
	struct nproto_msg m;
	char big[NPROTO_MAX_LINE + 10];

	CU_ASSERT_EQUAL(parse("HELLO\r\n", &m), -1);
	CU_ASSERT_EQUAL(parse("PING\n", &m), -1);		/* LF without CR */
	CU_ASSERT_EQUAL(parse("PINGX\r\n", &m), -1);
	CU_ASSERT_EQUAL(parse("MSG s 1 x\r\n", &m), -1);	/* count */
	CU_ASSERT_EQUAL(parse("MSG s y 1\r\na\r\n", &m), -1);	/* sid */
	CU_ASSERT_EQUAL(parse("MSG s 1\r\n", &m), -1);	/* too few */
	CU_ASSERT_EQUAL(parse("MSG s 1 r q 1\r\na\r\n", &m), -1);	/* too many */
	CU_ASSERT_EQUAL(parse("MSG s 1 3\r\nabcde\r\n", &m), -1);	/* no CRLF */
	CU_ASSERT_EQUAL(parse("MSG s 1 99999999999999999999\r\n", &m), -1);
	/* More header bytes than total bytes. */
	CU_ASSERT_EQUAL(parse("HMSG s 1 9 3\r\nabc\r\n", &m), -1);
	/* A line with no end: wait below the limit, refuse at it. */
	memset(big, 'A', sizeof(big));
	CU_ASSERT_EQUAL(nproto_parse(big, NPROTO_MAX_LINE - 1, &m), 0);
	CU_ASSERT_EQUAL(nproto_parse(big, sizeof(big), &m), -1);
}

static void
test_json(void)
{
	const char *ack = "{\"stream\":\"bench-1-1\", \"seq\": 42}";
	const char *dup = "{\"stream\":\"s\",\"seq\":7,\"duplicate\":true}";
	const char *err = "{\"error\":{\"code\":503,\"description\":"
	    "\"no suitable peers\"},\"stream\":\"s\",\"seq\":0}";
	const char *info = "{\"state\":{\"messages\":300001,\"bytes\":1,"
	    "\"first_seq\":1,\"last_seq\":300001},\"seq_name\":\"seq\"}";
	uint64_t v = 0;

	CU_ASSERT_EQUAL(nproto_ack_seq(ack, strlen(ack), &v), 0);
	CU_ASSERT_EQUAL(v, 42);
	CU_ASSERT_EQUAL(nproto_ack_seq(dup, strlen(dup), &v), 0);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(nproto_ack_seq(err, strlen(err), &v), -1);
	CU_ASSERT_EQUAL(nproto_ack_seq("{\"seq\":1}", 9, &v), -1);
	CU_ASSERT_EQUAL(nproto_ack_seq("", 0, &v), -1);
	CU_ASSERT_EQUAL(nproto_json_u64(info, strlen(info), "messages", &v), 0);
	CU_ASSERT_EQUAL(v, 300001);
	CU_ASSERT_EQUAL(nproto_json_u64(info, strlen(info), "last_seq", &v), 0);
	CU_ASSERT_EQUAL(v, 300001);
	/* "seq" appears only as a string value here, never as a key. */
	CU_ASSERT_EQUAL(nproto_json_u64(info, strlen(info), "seq", &v), -1);
	CU_ASSERT_EQUAL(nproto_json_u64(info, strlen(info), "nope", &v), -1);
	/* A key whose value is not a number. */
	CU_ASSERT_EQUAL(nproto_json_u64(dup, strlen(dup), "stream", &v), -1);
}

TEST_SUITE("nproto", NULL, NULL,
	{ "control", test_control },
	{ "msg", test_msg },
	{ "split", test_split },
	{ "hmsg", test_hmsg },
	{ "malformed", test_malformed },
	{ "json", test_json });
