/*
 * proto/msg_group.c: every consumer-group message round-trips field for
 * field; every message is pinned by hand-written bytes; every truncation, a trailing byte,
 * negative and huge counts, and an exhausted arena are refused; a lone
 * non-zero error decodes as an error-only answer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/wire.h"
#include "tests/harness.h"

static struct arena arena;

static int
suite_setup(void)
{
	arena_init(&arena, 1 << 20);
	return 0;
}

static int
suite_teardown(void)
{
	arena_free(&arena);
	return 0;
}

static int
str_is(const char *s, size_t len, const char *want)
{
	return s != NULL && len == strlen(want) && memcmp(s, want, len) == 0;
}

static int
tp_is(const struct group_tp *tp, const char *topic, int32_t partition)
{
	return str_is(tp->topic, tp->topic_len, topic) && tp->partition == partition;
}

/* ---- samples ---- */

static struct wire_str s_topics[] = { { "orders", 6 }, { "audit-log", 9 } };
static const struct join_group_req s_join_req = { "billing", 7,
    "member-0123456789abcdef", 23, "flume-consume", 13, 10000, 2, s_topics };
static struct group_tp s_tps[] = { { "orders", 6, 0 }, { "orders", 6, 5 },
    { "audit-log", 9, 2147483647 } };
static const struct join_group_resp s_join_resp = { ERR_NONE, 42,
    "member-0123456789abcdef", 23, 3, s_tps };
static const struct heartbeat_req s_hb_req = { "billing", 7, "m1", 2, -7 };
static const struct leave_group_req s_leave_req = { "billing", 7, "m2", 2 };
static const struct group_error_resp s_err_resp = { ERR_REBALANCE_IN_PROGRESS };
static struct commit_part s_cparts[] = { { "orders", 6, 3, 0 },
    { "orders", 6, 4, INT64_MAX } };
static const struct offset_commit_req s_commit_req = { "billing", 7, "m1", 2,
    9, 2, s_cparts };
static int16_t s_cerrs[] = { ERR_NONE, ERR_UNKNOWN_TOPIC_OR_PARTITION };
static const struct offset_commit_resp s_commit_resp = { ERR_NONE, 2, s_cerrs };
static const struct offset_fetch_req s_fetch_req = { "billing", 7, 2, s_tps };
static struct offset_fetch_result s_fres[] = { { "orders", 6, 0, ERR_NONE, 17 },
    { "nope", 4, 1, ERR_UNKNOWN_TOPIC_OR_PARTITION, -1 } };
static const struct offset_fetch_resp s_fetch_resp = { ERR_NONE, 2, s_fres };
static struct group_listing s_listing[] = { { "billing", 7, GROUP_WIRE_STABLE, 4, 3 },
    { "x", 1, GROUP_WIRE_EMPTY, 0, 0 } };
static const struct list_groups_resp s_list_resp = { ERR_NONE, 2, s_listing };
static const struct describe_group_req s_desc_req = { "billing", 7 };
/* Version 2's fields are set too: version 1's layout leaves them out. */
static struct group_tp s_rev[] = { { "orders", 6, 7 } };
static struct member_desc s_mdesc[] = {
	{ .member_id = "m1", .member_id_len = 2, .client_id = "c1",
	    .client_id_len = 2, .session_timeout_ms = 1500, .count = 2,
	    .parts = s_tps, .member_epoch = 6, .instance_id = "i-1",
	    .instance_id_len = 3, .nrevoking = 1, .revoking = s_rev,
	    .ntarget = 1, .target = s_tps },
	{ .member_id = "m2", .member_id_len = 2, .client_id = "",
	    .session_timeout_ms = 60000, .member_epoch = 4, .instance_id = "",
	    .ntarget = 2, .target = s_tps } };
static struct group_offset_desc s_odesc[] = { { "orders", 6, 0, 10, 20 },
    { "orders", 6, 1, -1, 0 } };
static const struct describe_group_resp s_desc_resp = { .error = ERR_NONE,
    .state = GROUP_WIRE_REBALANCING, .generation = 5, .nmembers = 2,
    .members = s_mdesc, .noffsets = 2, .offsets = s_odesc,
    .kind = GROUP_WIRE_KIND_CONSUMER, .assignment_epoch = 4 };

/* ---- one case per message ---- */

struct gcase {
	const char	*name;
	int		 resp;
	void		(*encode)(struct wbuf *wb);
	/* 0 or -1 from the decoder; *ok when it equals the sample */
	int		(*decode)(const uint8_t *p, size_t len, int *ok);
};

static void enc_join_req(struct wbuf *wb) { msg_encode_join_group_req(wb, &s_join_req); }
static void enc_join_resp(struct wbuf *wb) { msg_encode_join_group_resp(wb, &s_join_resp); }
static void enc_hb_req(struct wbuf *wb) { msg_encode_heartbeat_req(wb, &s_hb_req); }
static void enc_leave_req(struct wbuf *wb) { msg_encode_leave_group_req(wb, &s_leave_req); }
static void enc_err_resp(struct wbuf *wb) { msg_encode_group_error_resp(wb, &s_err_resp); }
static void enc_commit_req(struct wbuf *wb) { msg_encode_offset_commit_req(wb, &s_commit_req); }
static void enc_commit_resp(struct wbuf *wb) { msg_encode_offset_commit_resp(wb, &s_commit_resp); }
static void enc_fetch_req(struct wbuf *wb) { msg_encode_offset_fetch_req(wb, &s_fetch_req); }
static void enc_fetch_resp(struct wbuf *wb) { msg_encode_offset_fetch_resp(wb, &s_fetch_resp); }
static void enc_list_resp(struct wbuf *wb) { msg_encode_list_groups_resp(wb, &s_list_resp); }
static void enc_desc_req(struct wbuf *wb) { msg_encode_describe_group_req(wb, &s_desc_req); }
static void enc_desc_resp(struct wbuf *wb) { msg_encode_describe_group_resp(wb, &s_desc_resp); }
static void enc_desc_resp_v2(struct wbuf *wb) { msg_encode_describe_group_resp_v2(wb, &s_desc_resp); }

static const struct group_reset_req s_reset_req = { "billing", 7, "orders", 6,
    -1, RESET_TO_TIME, 1700000000123LL };
static struct group_reset_result s_reset_res[] = { { 0, ERR_NONE, 19401 },
    { 1, ERR_STORAGE, -1 } };
static const struct group_reset_resp s_reset_resp = { ERR_NONE, 2, s_reset_res };

static void enc_reset_req(struct wbuf *wb) { msg_encode_group_reset_req(wb, &s_reset_req); }
static void enc_reset_resp(struct wbuf *wb) { msg_encode_group_reset_resp(wb, &s_reset_resp); }

static int
dec_reset_req(const uint8_t *p, size_t len, int *ok)
{
	struct group_reset_req m;
	int rc = msg_decode_group_reset_req(p, len, &m);

	*ok = rc == 0 && str_is(m.group, m.group_len, "billing") &&
	    str_is(m.topic, m.topic_len, "orders") && m.partition == -1 &&
	    m.mode == RESET_TO_TIME && m.value == 1700000000123LL;
	return rc;
}

static int
dec_reset_resp(const uint8_t *p, size_t len, int *ok)
{
	struct group_reset_resp m;
	int rc = msg_decode_group_reset_resp(p, len, &arena, &m);

	*ok = rc == 0 && m.error == ERR_NONE && m.count == 2 &&
	    m.results[0].partition == 0 && m.results[0].error == ERR_NONE &&
	    m.results[0].offset == 19401 && m.results[1].partition == 1 &&
	    m.results[1].error == ERR_STORAGE && m.results[1].offset == -1;
	return rc;
}

static int
dec_join_req(const uint8_t *p, size_t len, int *ok)
{
	struct join_group_req m;
	int rc = msg_decode_join_group_req(p, len, &arena, &m);

	*ok = rc == 0 && str_is(m.group, m.group_len, "billing") &&
	    str_is(m.member_id, m.member_id_len, "member-0123456789abcdef") &&
	    str_is(m.client_id, m.client_id_len, "flume-consume") &&
	    m.session_timeout_ms == 10000 && m.count == 2 &&
	    str_is(m.topics[0].s, m.topics[0].len, "orders") &&
	    str_is(m.topics[1].s, m.topics[1].len, "audit-log");
	return rc;
}

static int
dec_join_resp(const uint8_t *p, size_t len, int *ok)
{
	struct join_group_resp m;
	int rc = msg_decode_join_group_resp(p, len, &arena, &m);

	*ok = rc == 0 && m.error == ERR_NONE && m.generation == 42 &&
	    str_is(m.member_id, m.member_id_len, "member-0123456789abcdef") &&
	    m.count == 3 && tp_is(&m.parts[0], "orders", 0) &&
	    tp_is(&m.parts[1], "orders", 5) &&
	    tp_is(&m.parts[2], "audit-log", 2147483647);
	return rc;
}

static int
dec_hb_req(const uint8_t *p, size_t len, int *ok)
{
	struct heartbeat_req m;
	int rc = msg_decode_heartbeat_req(p, len, &m);

	*ok = rc == 0 && str_is(m.group, m.group_len, "billing") &&
	    str_is(m.member_id, m.member_id_len, "m1") && m.generation == -7;
	return rc;
}

static int
dec_leave_req(const uint8_t *p, size_t len, int *ok)
{
	struct leave_group_req m;
	int rc = msg_decode_leave_group_req(p, len, &m);

	*ok = rc == 0 && str_is(m.group, m.group_len, "billing") &&
	    str_is(m.member_id, m.member_id_len, "m2");
	return rc;
}

static int
dec_err_resp(const uint8_t *p, size_t len, int *ok)
{
	struct group_error_resp m;
	int rc = msg_decode_group_error_resp(p, len, &m);

	*ok = rc == 0 && m.error == ERR_REBALANCE_IN_PROGRESS;
	return rc;
}

static int
dec_commit_req(const uint8_t *p, size_t len, int *ok)
{
	struct offset_commit_req m;
	int rc = msg_decode_offset_commit_req(p, len, &arena, &m);

	*ok = rc == 0 && str_is(m.group, m.group_len, "billing") &&
	    str_is(m.member_id, m.member_id_len, "m1") && m.generation == 9 &&
	    m.count == 2 && str_is(m.parts[0].topic, m.parts[0].topic_len, "orders") &&
	    m.parts[0].partition == 3 && m.parts[0].offset == 0 &&
	    m.parts[1].partition == 4 && m.parts[1].offset == INT64_MAX;
	return rc;
}

static int
dec_commit_resp(const uint8_t *p, size_t len, int *ok)
{
	struct offset_commit_resp m;
	int rc = msg_decode_offset_commit_resp(p, len, &arena, &m);

	*ok = rc == 0 && m.error == ERR_NONE && m.count == 2 &&
	    m.errors[0] == ERR_NONE && m.errors[1] == ERR_UNKNOWN_TOPIC_OR_PARTITION;
	return rc;
}

static int
dec_fetch_req(const uint8_t *p, size_t len, int *ok)
{
	struct offset_fetch_req m;
	int rc = msg_decode_offset_fetch_req(p, len, &arena, &m);

	*ok = rc == 0 && str_is(m.group, m.group_len, "billing") && m.count == 2 &&
	    tp_is(&m.parts[0], "orders", 0) && tp_is(&m.parts[1], "orders", 5);
	return rc;
}

static int
dec_fetch_resp(const uint8_t *p, size_t len, int *ok)
{
	struct offset_fetch_resp m;
	int rc = msg_decode_offset_fetch_resp(p, len, &arena, &m);

	*ok = rc == 0 && m.error == ERR_NONE && m.count == 2 &&
	    str_is(m.results[0].topic, m.results[0].topic_len, "orders") &&
	    m.results[0].partition == 0 && m.results[0].error == ERR_NONE &&
	    m.results[0].offset == 17 &&
	    str_is(m.results[1].topic, m.results[1].topic_len, "nope") &&
	    m.results[1].partition == 1 &&
	    m.results[1].error == ERR_UNKNOWN_TOPIC_OR_PARTITION &&
	    m.results[1].offset == -1;
	return rc;
}

static int
dec_list_resp(const uint8_t *p, size_t len, int *ok)
{
	struct list_groups_resp m;
	int rc = msg_decode_list_groups_resp(p, len, &arena, &m);

	*ok = rc == 0 && m.error == ERR_NONE && m.count == 2 &&
	    str_is(m.groups[0].group, m.groups[0].group_len, "billing") &&
	    m.groups[0].state == GROUP_WIRE_STABLE && m.groups[0].generation == 4 &&
	    m.groups[0].members == 3 &&
	    str_is(m.groups[1].group, m.groups[1].group_len, "x") &&
	    m.groups[1].state == GROUP_WIRE_EMPTY && m.groups[1].members == 0;
	return rc;
}

static int
dec_desc_req(const uint8_t *p, size_t len, int *ok)
{
	struct describe_group_req m;
	int rc = msg_decode_describe_group_req(p, len, &m);

	*ok = rc == 0 && str_is(m.group, m.group_len, "billing");
	return rc;
}

static int
dec_desc_resp(const uint8_t *p, size_t len, int *ok)
{
	struct describe_group_resp m;
	int rc = msg_decode_describe_group_resp(p, len, &arena, &m);

	*ok = rc == 0 && m.error == ERR_NONE && m.state == GROUP_WIRE_REBALANCING &&
	    m.generation == 5 && m.nmembers == 2 &&
	    str_is(m.members[0].member_id, m.members[0].member_id_len, "m1") &&
	    str_is(m.members[0].client_id, m.members[0].client_id_len, "c1") &&
	    m.members[0].session_timeout_ms == 1500 && m.members[0].count == 2 &&
	    tp_is(&m.members[0].parts[1], "orders", 5) &&
	    str_is(m.members[1].client_id, m.members[1].client_id_len, "") &&
	    m.members[1].session_timeout_ms == 60000 && m.members[1].count == 0 &&
	    m.noffsets == 2 &&
	    str_is(m.offsets[0].topic, m.offsets[0].topic_len, "orders") &&
	    m.offsets[0].committed == 10 && m.offsets[0].log_end == 20 &&
	    m.offsets[1].partition == 1 && m.offsets[1].committed == -1 &&
	    m.offsets[1].log_end == 0;
	return rc;
}

static int
dec_desc_resp_v2(const uint8_t *p, size_t len, int *ok)
{
	struct describe_group_resp m;
	int rc = msg_decode_describe_group_resp_v2(p, len, &arena, &m);

	*ok = rc == 0 && m.error == ERR_NONE && m.state == GROUP_WIRE_REBALANCING &&
	    m.generation == 5 && m.kind == GROUP_WIRE_KIND_CONSUMER &&
	    m.assignment_epoch == 4 && m.nmembers == 2 &&
	    str_is(m.members[0].member_id, m.members[0].member_id_len, "m1") &&
	    m.members[0].count == 2 && tp_is(&m.members[0].parts[1], "orders", 5) &&
	    m.members[0].member_epoch == 6 &&
	    str_is(m.members[0].instance_id, m.members[0].instance_id_len,
	    "i-1") && m.members[0].nrevoking == 1 &&
	    tp_is(&m.members[0].revoking[0], "orders", 7) &&
	    m.members[0].ntarget == 1 &&
	    tp_is(&m.members[0].target[0], "orders", 0) &&
	    m.members[1].member_epoch == 4 &&
	    str_is(m.members[1].instance_id, m.members[1].instance_id_len, "") &&
	    m.members[1].count == 0 && m.members[1].nrevoking == 0 &&
	    m.members[1].ntarget == 2 &&
	    tp_is(&m.members[1].target[1], "orders", 5) &&
	    m.noffsets == 2 && m.offsets[0].committed == 10 &&
	    m.offsets[1].partition == 1 && m.offsets[1].log_end == 0;
	return rc;
}

static const struct gcase cases[] = {
	{ "join_group_req", 0, enc_join_req, dec_join_req },
	{ "join_group_resp", 1, enc_join_resp, dec_join_resp },
	{ "heartbeat_req", 0, enc_hb_req, dec_hb_req },
	{ "leave_group_req", 0, enc_leave_req, dec_leave_req },
	{ "group_error_resp", 1, enc_err_resp, dec_err_resp },
	{ "offset_commit_req", 0, enc_commit_req, dec_commit_req },
	{ "offset_commit_resp", 1, enc_commit_resp, dec_commit_resp },
	{ "offset_fetch_req", 0, enc_fetch_req, dec_fetch_req },
	{ "offset_fetch_resp", 1, enc_fetch_resp, dec_fetch_resp },
	{ "list_groups_resp", 1, enc_list_resp, dec_list_resp },
	{ "describe_group_req", 0, enc_desc_req, dec_desc_req },
	{ "describe_group_resp", 1, enc_desc_resp, dec_desc_resp },
	{ "describe_group_resp_v2", 1, enc_desc_resp_v2, dec_desc_resp_v2 },
	{ "group_reset_req", 0, enc_reset_req, dec_reset_req },
	{ "group_reset_resp", 1, enc_reset_resp, dec_reset_resp },
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* Decode from an exact-size heap copy, so ASan sees any overread. */
static int
decode_exact(const struct gcase *gc, const uint8_t *p, size_t len, int *ok)
{
	uint8_t *copy = malloc(len > 0 ? len : 1);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	if (len > 0)
		memcpy(copy, p, len);
	arena_reset(&arena);
	*ok = 0;
	rc = gc->decode(copy, len, ok);
	free(copy);
	return rc;
}

static void
test_round_trips(void)
{
	struct wbuf wb;
	size_t i;
	int ok;

	wbuf_init(&wb);
	for (i = 0; i < NCASES; i++) {
		wbuf_reset(&wb);
		cases[i].encode(&wb);
		CU_ASSERT_EQUAL_FATAL(wb.err, 0);
		CU_ASSERT_EQUAL(decode_exact(&cases[i], wb.buf, wb.len, &ok), 0);
		CU_ASSERT(ok);
		if (!ok)
			fprintf(stderr, "round trip failed: %s\n", cases[i].name);
	}
	wbuf_free(&wb);
}

static void
test_truncations_and_trailing(void)
{
	struct wbuf wb;
	size_t i, n;
	int ok, accepted = 0;

	wbuf_init(&wb);
	for (i = 0; i < NCASES; i++) {
		wbuf_reset(&wb);
		cases[i].encode(&wb);
		for (n = 0; n < wb.len; n++) {
			/* [error i16] alone is an answer when the error is set. */
			if (n == 2 && cases[i].resp && (wb.buf[0] | wb.buf[1]) != 0) {
				CU_ASSERT_EQUAL(decode_exact(&cases[i], wb.buf, n,
				    &ok), 0);
				continue;
			}
			if (decode_exact(&cases[i], wb.buf, n, &ok) != -1) {
				fprintf(stderr, "%s: %zu of %zu bytes accepted\n",
				    cases[i].name, n, wb.len);
				accepted++;
			}
		}
		wbuf_i8(&wb, 0);
		CU_ASSERT_EQUAL(decode_exact(&cases[i], wb.buf, wb.len, &ok), -1);
	}
	CU_ASSERT_EQUAL(accepted, 0);
	wbuf_free(&wb);
}

static void
check_bytes(const struct wbuf *wb, const uint8_t *want, size_t len)
{
	CU_ASSERT_EQUAL(wb->len, len);
	CU_ASSERT(wb->len == len && memcmp(wb->buf, want, len) == 0);
}

static void
test_hand_bytes(void)
{
	static const uint8_t join[] = {
		0, 1, 'g',			/* group */
		0, 0,				/* member id: new member */
		0, 2, 'c', 'l',			/* client id */
		0, 0, 0x05, 0xdc,		/* session 1500 ms */
		0, 0, 0, 1, 0, 1, 't',		/* one topic */
	};
	static const uint8_t hb[] = {
		0, 1, 'g', 0, 2, 'm', '1', 0, 0, 0, 3,
	};
	static const uint8_t commit[] = {
		0, 1, 'g', 0, 1, 'm', 0, 0, 0, 2,	/* generation 2 */
		0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 4,	/* t/4 */
		0, 0, 0, 0, 0, 0, 0x01, 0x00,		/* offset 256 */
	};
	static const uint8_t resp[] = {
		0, 0, 0, 0, 0, 7, 0, 1, 'm',		/* ok, generation 7, "m" */
		0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 3,	/* t/3 */
	};
	struct wire_str t = { "t", 1 };
	struct join_group_req jq = { "g", 1, "", 0, "cl", 2, 1500, 1, &t };
	struct heartbeat_req hq = { "g", 1, "m1", 2, 3 };
	struct commit_part cp = { "t", 1, 4, 256 };
	struct offset_commit_req cq = { "g", 1, "m", 1, 2, 1, &cp };
	struct group_tp tp = { "t", 1, 3 };
	struct join_group_resp jr = { 0, 7, "m", 1, 1, &tp }, got;
	struct wbuf wb;

	wbuf_init(&wb);
	msg_encode_join_group_req(&wb, &jq);
	check_bytes(&wb, join, sizeof(join));
	wbuf_reset(&wb);
	msg_encode_heartbeat_req(&wb, &hq);
	check_bytes(&wb, hb, sizeof(hb));
	wbuf_reset(&wb);
	msg_encode_offset_commit_req(&wb, &cq);
	check_bytes(&wb, commit, sizeof(commit));
	wbuf_reset(&wb);
	msg_encode_join_group_resp(&wb, &jr);
	check_bytes(&wb, resp, sizeof(resp));
	wbuf_free(&wb);
	arena_reset(&arena);
	CU_ASSERT_EQUAL(msg_decode_join_group_resp(resp, sizeof(resp), &arena,
	    &got), 0);
	CU_ASSERT_EQUAL(got.generation, 7);
	CU_ASSERT(got.count == 1 && tp_is(&got.parts[0], "t", 3));
}

/*
 * The other group messages, pinned the same way, and each pinned payload
 * decoded and encoded again to the same bytes (so a decoder that reads a
 * field into the wrong place, or skips one, fails here too).
 */
#define PIN_GROUP(name, msg, want) do {				\
	struct name got_;						\
									\
	wbuf_reset(&wb);						\
	msg_encode_##name(&wb, msg);					\
	check_bytes(&wb, want, sizeof(want));				\
	arena_reset(&arena);						\
	CU_ASSERT_EQUAL(DECODE_##name(want, &got_), 0);			\
	wbuf_reset(&wb);						\
	msg_encode_##name(&wb, &got_);					\
	check_bytes(&wb, want, sizeof(want));				\
} while (0)
#define DECODE_leave_group_req(w, m)	msg_decode_leave_group_req(w, sizeof(w), m)
#define DECODE_group_error_resp(w, m)	msg_decode_group_error_resp(w, sizeof(w), m)
#define DECODE_describe_group_req(w, m)	msg_decode_describe_group_req(w, sizeof(w), m)
#define DECODE_group_reset_req(w, m)	msg_decode_group_reset_req(w, sizeof(w), m)
#define DECODE_offset_commit_resp(w, m)	msg_decode_offset_commit_resp(w, sizeof(w), &arena, m)
#define DECODE_offset_fetch_req(w, m)	msg_decode_offset_fetch_req(w, sizeof(w), &arena, m)
#define DECODE_offset_fetch_resp(w, m)	msg_decode_offset_fetch_resp(w, sizeof(w), &arena, m)
#define DECODE_list_groups_resp(w, m)	msg_decode_list_groups_resp(w, sizeof(w), &arena, m)
#define DECODE_describe_group_resp(w, m) msg_decode_describe_group_resp(w, sizeof(w), &arena, m)
#define DECODE_describe_group_resp_v2(w, m) msg_decode_describe_group_resp_v2(w, sizeof(w), &arena, m)
#define DECODE_group_reset_resp(w, m)	msg_decode_group_reset_resp(w, sizeof(w), &arena, m)

static void
test_hand_bytes_more(void)
{
	static const uint8_t leave[] = { 0, 1, 'g', 0, 1, 'm' };
	static const uint8_t err[] = { 0, ERR_REBALANCE_IN_PROGRESS };
	static const uint8_t commit_resp[] = {
		0, 0, 0, 0, 0, 2,		/* ok, two entries */
		0, 0, 0, ERR_UNKNOWN_TOPIC_OR_PARTITION,
	};
	static const uint8_t fetch_req[] = {
		0, 1, 'g', 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 3,	/* g: t/3 */
	};
	static const uint8_t fetch_resp[] = {
		0, 0, 0, 0, 0, 1,
		0, 1, 't', 0, 0, 0, 2,		/* t/2 */
		0, ERR_UNKNOWN_TOPIC_OR_PARTITION,
		0, 0, 0, 0, 0, 0, 0, 17,	/* offset 17 */
	};
	static const uint8_t list_resp[] = {
		0, 0, 0, 0, 0, 1,
		0, 1, 'g', GROUP_WIRE_STABLE,
		0, 0, 0, 4, 0, 0, 0, 3,		/* generation 4, 3 members */
	};
	static const uint8_t desc_req[] = { 0, 1, 'g' };
	static const uint8_t desc_resp[] = {
		0, 0, GROUP_WIRE_REBALANCING, 0, 0, 0, 5,	/* generation 5 */
		0, 0, 0, 1,				/* one member: */
		0, 1, 'm', 0, 1, 'c', 0, 0, 0x05, 0xdc,	/* m, c, 1500 ms */
		0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 3,	/* t/3 */
		0, 0, 0, 1,				/* one offset: */
		0, 1, 't', 0, 0, 0, 0,			/* t/0 */
		0, 0, 0, 0, 0, 0, 0, 10,		/* committed 10 */
		0, 0, 0, 0, 0, 0, 0, 20,		/* log end 20 */
	};
	static const uint8_t desc_resp_v2[] = {
		0, 0, GROUP_WIRE_REBALANCING, 0, 0, 0, 5,	/* generation 5 */
		GROUP_WIRE_KIND_CONSUMER, 0, 0, 0, 8,	/* assignment epoch 8 */
		0, 0, 0, 1,				/* one member: */
		0, 1, 'm', 0, 1, 'c', 0, 0, 0x05, 0xdc,	/* m, c, 1500 ms */
		0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 3,	/* t/3 */
		0, 0, 0, 9, 0, 1, 'i',			/* epoch 9, instance i */
		0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 3,	/* revoking t/3 */
		0, 0, 0, 0,				/* no target */
		0, 0, 0, 1,				/* one offset: */
		0, 1, 't', 0, 0, 0, 0,			/* t/0 */
		0, 0, 0, 0, 0, 0, 0, 10,		/* committed 10 */
		0, 0, 0, 0, 0, 0, 0, 20,		/* log end 20 */
	};
	static const uint8_t reset_req[] = {
		0, 1, 'g', 0, 1, 't', 0xff, 0xff, 0xff, 0xff,	/* g, t/-1 */
		RESET_TO_TIME, 1, 2, 3, 4, 5, 6, 7, 8,
	};
	static const uint8_t reset_resp[] = {
		0, 0, 0, 0, 0, 1,
		0, 0, 0, 2, 0, ERR_STORAGE,		/* partition 2 */
		0, 0, 0, 0, 0, 0, 0, 9,			/* offset 9 */
	};
	struct leave_group_req lq = { "g", 1, "m", 1 };
	struct group_error_resp er = { ERR_REBALANCE_IN_PROGRESS };
	int16_t cerrs[] = { ERR_NONE, ERR_UNKNOWN_TOPIC_OR_PARTITION };
	struct offset_commit_resp cr = { ERR_NONE, 2, cerrs };
	struct group_tp tp = { "t", 1, 3 };
	struct offset_fetch_req fq = { "g", 1, 1, &tp };
	struct offset_fetch_result fres = { "t", 1, 2,
	    ERR_UNKNOWN_TOPIC_OR_PARTITION, 17 };
	struct offset_fetch_resp fr = { ERR_NONE, 1, &fres };
	struct group_listing gl = { "g", 1, GROUP_WIRE_STABLE, 4, 3 };
	struct list_groups_resp lr = { ERR_NONE, 1, &gl };
	struct describe_group_req dq = { "g", 1 };
	struct member_desc md = { .member_id = "m", .member_id_len = 1,
	    .client_id = "c", .client_id_len = 1, .session_timeout_ms = 1500,
	    .count = 1, .parts = &tp, .member_epoch = 9, .instance_id = "i",
	    .instance_id_len = 1, .nrevoking = 1, .revoking = &tp };
	struct group_offset_desc od = { "t", 1, 0, 10, 20 };
	struct describe_group_resp dr = { .error = ERR_NONE,
	    .state = GROUP_WIRE_REBALANCING, .generation = 5, .nmembers = 1,
	    .members = &md, .noffsets = 1, .offsets = &od,
	    .kind = GROUP_WIRE_KIND_CONSUMER, .assignment_epoch = 8 };
	struct describe_group_resp dv2;
	struct group_reset_req rq = { "g", 1, "t", 1, -1, RESET_TO_TIME,
	    0x0102030405060708LL };
	struct group_reset_result rres = { 2, ERR_STORAGE, 9 };
	struct group_reset_resp rr = { ERR_NONE, 1, &rres };
	struct wbuf wb;

	wbuf_init(&wb);
	PIN_GROUP(leave_group_req, &lq, leave);
	PIN_GROUP(group_error_resp, &er, err);
	PIN_GROUP(offset_commit_resp, &cr, commit_resp);
	PIN_GROUP(offset_fetch_req, &fq, fetch_req);
	PIN_GROUP(offset_fetch_resp, &fr, fetch_resp);
	PIN_GROUP(list_groups_resp, &lr, list_resp);
	PIN_GROUP(describe_group_req, &dq, desc_req);
	PIN_GROUP(describe_group_resp, &dr, desc_resp);
	/* PIN_GROUP by hand: version 2 has the same struct. */
	wbuf_reset(&wb);
	msg_encode_describe_group_resp_v2(&wb, &dr);
	check_bytes(&wb, desc_resp_v2, sizeof(desc_resp_v2));
	arena_reset(&arena);
	CU_ASSERT_EQUAL(DECODE_describe_group_resp_v2(desc_resp_v2, &dv2), 0);
	wbuf_reset(&wb);
	msg_encode_describe_group_resp_v2(&wb, &dv2);
	check_bytes(&wb, desc_resp_v2, sizeof(desc_resp_v2));
	/* Version 1's decoder refuses version 2's bytes, and the reverse. */
	CU_ASSERT_EQUAL(DECODE_describe_group_resp(desc_resp_v2, &dv2), -1);
	CU_ASSERT_EQUAL(DECODE_describe_group_resp_v2(desc_resp, &dv2), -1);
	PIN_GROUP(group_reset_req, &rq, reset_req);
	PIN_GROUP(group_reset_resp, &rr, reset_resp);
	wbuf_free(&wb);
}

static void
test_bad_counts_and_errors(void)
{
	static const uint8_t neg[] = { 0, 1, 'g', 0, 0, 0, 0, 0, 0, 0x05, 0xdc,
	    0xff, 0xff, 0xff, 0xff };
	static const uint8_t huge[] = { 0, 1, 'g', 0, 0, 0, 0, 0, 0, 0x05, 0xdc,
	    0x7f, 0xff, 0xff, 0xff, 0, 1, 't' };
	static const uint8_t fetch_huge[] = { 0, 1, 'g', 0x10, 0, 0, 0 };
	static const uint8_t err_only[] = { 0, ERR_ILLEGAL_GENERATION };
	static const uint8_t zero_only[] = { 0, 0 };
	struct join_group_req jq;
	struct offset_fetch_req fq;
	struct offset_commit_resp cr;
	struct describe_group_resp dr;
	struct join_group_resp jr;
	struct wbuf wb;
	struct arena tiny;

	arena_reset(&arena);
	CU_ASSERT_EQUAL(msg_decode_join_group_req(neg, sizeof(neg), &arena, &jq), -1);
	CU_ASSERT_EQUAL(msg_decode_join_group_req(huge, sizeof(huge), &arena, &jq), -1);
	CU_ASSERT_EQUAL(msg_decode_offset_fetch_req(fetch_huge, sizeof(fetch_huge),
	    &arena, &fq), -1);
	CU_ASSERT_EQUAL(msg_decode_offset_commit_resp(err_only, 2, &arena, &cr), 0);
	CU_ASSERT_EQUAL(cr.error, ERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(cr.count, 0);
	CU_ASSERT_EQUAL(msg_decode_describe_group_resp(err_only, 2, &arena, &dr), 0);
	CU_ASSERT_EQUAL(dr.error, ERR_ILLEGAL_GENERATION);
	CU_ASSERT_EQUAL(msg_decode_join_group_resp(err_only, 2, &arena, &jr), 0);
	CU_ASSERT_EQUAL(jr.count, 0);
	/* A zero error alone is not a whole answer. */
	CU_ASSERT_EQUAL(msg_decode_join_group_resp(zero_only, 2, &arena, &jr), -1);

	/* An arena too small for the arrays fails cleanly. */
	wbuf_init(&wb);
	msg_encode_describe_group_resp(&wb, &s_desc_resp);
	arena_init(&tiny, 16);
	CU_ASSERT_EQUAL(msg_decode_describe_group_resp(wb.buf, wb.len, &tiny, &dr),
	    -1);
	arena_free(&tiny);
	wbuf_free(&wb);
}

static void
test_names(void)
{
	CU_ASSERT_STRING_EQUAL(api_name(API_JOIN_GROUP), "JOIN_GROUP");
	CU_ASSERT_STRING_EQUAL(api_name(API_DESCRIBE_GROUP), "DESCRIBE_GROUP");
	CU_ASSERT_STRING_EQUAL(flume_strerror(ERR_ILLEGAL_GENERATION),
	    "illegal group generation");
	CU_ASSERT_STRING_EQUAL(flume_strerror(ERR_UNKNOWN_MEMBER),
	    "unknown group member");
	CU_ASSERT_STRING_EQUAL(api_name(API_GROUP_RESET), "GROUP_RESET");
	CU_ASSERT_STRING_EQUAL(flume_strerror(ERR_GROUP_NOT_EMPTY),
	    "the group has active members");
}

TEST_SUITE("msg_group", suite_setup, suite_teardown,
    { "every group message round-trips", test_round_trips },
    { "truncations and a trailing byte are refused", test_truncations_and_trailing },
    { "hand-written bytes", test_hand_bytes },
    { "hand-written bytes of the other messages", test_hand_bytes_more },
    { "bad counts, error-only answers, small arena", test_bad_counts_and_errors },
    { "api and error names", test_names });
