/*
 * The Kafka group APIs at every version Flume serves (issue 26): each
 * API at its lowest, a middle, its first flexible and its highest
 * version, with librdkafka 2.0's own request bytes where we have them
 * (tests/fixtures/kdesc/kcat-*.bin, captured from kcat 1.7.1), each
 * answer compared byte for byte with what Kafka answers.  Then
 * librdkafka's admin API: ListConsumerGroupOffsets for every partition
 * (OffsetFetch with a null topic list) and ListConsumerGroups' states
 * (ListGroups v4).
 *
 * kafkajs 2.2.4's, sarama 1.22's (as Kafka 0.10.2) and kafka-python
 * 2.0.2's requests (tests/fixtures/kdesc/{kafkajs,sarama,kafka-python}-*)
 * were captured by a TCP proxy in front of Flume (kafka_advertised_listener
 * its port), each client run as tests/compat's "member" of a group.
 *
 * The tests run in order on one broker and build on each other: the
 * group "grp" that librdkafka's JoinGroup v5 creates is synced, commits
 * and is listed, described and left by the later ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "proto/bytes.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

#define FIXTURES	"tests/fixtures/kdesc"
#define HOST		"127.0.0.1"

static struct flumed d;
/* The member librdkafka's JoinGroup made, its generation, its metadata. */
static char mid[256];
static int32_t mgen = -1;
static uint8_t rmeta[64];
static size_t rmeta_len;

static int
setup(void)
{
	return flumed_start_kafka(&d, NULL,
	    "group_initial_rebalance_delay_ms = 100ms\n"
	    "[topic t]\npartitions = 2\n");
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

/* ---- encodings ---- */

static void
uv(struct wbuf *b, uint32_t n)
{
	while (n >= 0x80) {
		wbuf_i8(b, (int8_t)((n & 0x7f) | 0x80));
		n >>= 7;
	}
	wbuf_i8(b, (int8_t)n);
}

/* A string (NULL: null) in a flexible (compact) or classic encoding. */
static void
vstr(struct wbuf *b, int flex, const char *s)
{
	if (!flex && s == NULL)
		wbuf_i16(b, -1);
	else if (!flex)
		wbuf_str(b, s, strlen(s));
	else if (s == NULL)
		uv(b, 0);
	else {
		uv(b, (uint32_t)strlen(s) + 1);
		wbuf_raw(b, s, strlen(s));
	}
}

static void
vbytes(struct wbuf *b, int flex, const void *p, size_t n)
{
	if (flex)
		uv(b, (uint32_t)n + 1);
	else
		wbuf_i32(b, (int32_t)n);
	if (n > 0)
		wbuf_raw(b, p, n);
}

/* An array's count (-1: null). */
static void
varr(struct wbuf *b, int flex, int32_t n)
{
	if (flex)
		uv(b, (uint32_t)(n + 1));
	else
		wbuf_i32(b, n);
}

/* An empty tagged field section, in flexible versions only. */
static void
vtags(struct wbuf *b, int flex)
{
	if (flex)
		wbuf_i8(b, 0);
}

static int
flex(int16_t key, int16_t ver)
{
	return kmsg_flexible(kmsg_lookup(key), ver);
}

/* ---- requests ---- */

/* Send a frame, read its answer: the body after the correlation id. */
static uint8_t *
send_frame(int fd, const void *frame, size_t len, int32_t corr, size_t *n)
{
	uint8_t *p = NULL;
	uint32_t id = 0;

	if (support_send(fd, frame, len) != 0 ||
	    support_recv(fd, 10000, &id, &p, n) != 1 || id != (uint32_t)corr) {
		free(p);
		return NULL;
	}
	return p;
}

/* Request (key, ver) with body b, header v2 when ver is flexible. */
static uint8_t *
call(int fd, int16_t key, int16_t ver, int32_t corr, const struct wbuf *b,
    size_t *n)
{
	struct wbuf f;
	uint8_t *p;

	wbuf_init(&f);
	wbuf_i32(&f, 0);
	wbuf_i16(&f, key);
	wbuf_i16(&f, ver);
	wbuf_i32(&f, corr);
	wbuf_str(&f, "gv", 2);
	vtags(&f, flex(key, ver));
	wbuf_raw(&f, b->buf, b->len);
	be32_put(f.buf, (uint32_t)(f.len - 4));
	p = send_frame(fd, f.buf, f.len, corr, n);
	wbuf_free(&f);
	return p;
}

/* A fixture's frame with its correlation id set to corr. */
static uint8_t *
fixture(const char *name, int32_t corr, size_t *len)
{
	char path[256];
	uint8_t *p;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), FIXTURES "/%s.bin", name);
	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 12 ||
	    fseek(f, 0, SEEK_SET) != 0 || (p = malloc((size_t)n)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	if (p != NULL)
		be32_put(p + 8, (uint32_t)corr);
	*len = (size_t)n;
	return p;
}

/* Is answer (p, n) want exactly?  Both printed when not. */
static int
same(const uint8_t *p, size_t n, const struct wbuf *want, const char *what)
{
	size_t i;

	if (p != NULL && n == want->len && memcmp(p, want->buf, n) == 0)
		return 1;
	fprintf(stderr, "%s: answer differs\n  got ", what);
	for (i = 0; p != NULL && i < n; i++)
		fprintf(stderr, "%02x", p[i]);
	fprintf(stderr, "\n want ");
	for (i = 0; i < want->len; i++)
		fprintf(stderr, "%02x", want->buf[i]);
	fprintf(stderr, "\n");
	return 0;
}

/* Call and compare; wb and want are reset for the next one. */
static int
exchange(int fd, int16_t key, int16_t ver, int32_t corr, struct wbuf *b,
    struct wbuf *want, const char *what)
{
	uint8_t *p;
	size_t n = 0;
	int ok;

	p = call(fd, key, ver, corr, b, &n);
	ok = same(p, n, want, what);
	free(p);
	wbuf_reset(b);
	wbuf_reset(want);
	return ok;
}

/* Send librdkafka's request name and compare its answer; want reset. */
static int
fixture_exchange(int fd, const char *name, int32_t corr, struct wbuf *want)
{
	uint8_t *p, *a;
	size_t n = 0, flen;
	int ok;

	if ((p = fixture(name, corr, &flen)) == NULL)
		return 0;
	a = send_frame(fd, p, flen, corr, &n);
	ok = same(a, n, want, name);
	free(a);
	free(p);
	wbuf_reset(want);
	return ok;
}

/* The start of a response body: flexible ones open with header tags. */
static void
resp_begin(struct wbuf *want, int16_t key, int16_t ver)
{
	wbuf_reset(want);
	vtags(want, flex(key, ver));
}

/* ---- FindCoordinator ---- */

static void
coord_ok(struct wbuf *w, int fl)
{
	wbuf_i32(w, 0);			/* node */
	vstr(w, fl, HOST);
	wbuf_i32(w, d.kport);
}

/* A FindCoordinator v4+ request for keys k1, k2 of key type kt. */
static void
coord_keys(struct wbuf *b, int8_t kt, const char *k1, const char *k2)
{
	wbuf_i8(b, kt);
	varr(b, 1, 2);
	vstr(b, 1, k1);
	vstr(b, 1, k2);
	vtags(b, 1);
}

/* One key's coordinator in a v4+ answer: this broker, or err and msg. */
static void
coord_key(struct wbuf *w, const char *key, int16_t err, const char *msg)
{
	vstr(w, 1, key);
	if (err == 0)
		coord_ok(w, 1);
	else {
		wbuf_i32(w, -1);
		vstr(w, 1, "");
		wbuf_i32(w, -1);
	}
	wbuf_i16(w, err);
	vstr(w, 1, msg);
	vtags(w, 1);
}

static void
test_find_coordinator(void)
{
	struct wbuf b, w;
	int fd, fl;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	wbuf_init(&w);
	/* v0: the group's coordinator, no throttle. */
	vstr(&b, 0, "gv1");
	resp_begin(&w, KAPI_FIND_COORDINATOR, 0);
	wbuf_i16(&w, 0);
	coord_ok(&w, 0);
	CU_ASSERT(exchange(fd, KAPI_FIND_COORDINATOR, 0, 1, &b, &w, "FC v0"));
	/* librdkafka's v2: throttle, error, a null message. */
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	vstr(&w, 0, NULL);
	coord_ok(&w, 0);
	CU_ASSERT(fixture_exchange(fd, "kcat-FindCoordinator-v2", 2, &w));
	/* v1: a key type Kafka does not have. */
	vstr(&b, 0, "gv1");
	wbuf_i8(&b, 2);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, KERR_INVALID_REQUEST);
	vstr(&w, 0, "Unknown coordinator type");
	wbuf_i32(&w, -1);
	vstr(&w, 0, "");
	wbuf_i32(&w, -1);
	CU_ASSERT(exchange(fd, KAPI_FIND_COORDINATOR, 1, 3, &b, &w, "FC v1"));
	/* v3, the first flexible. */
	fl = 1;
	vstr(&b, fl, "gv1");
	wbuf_i8(&b, 0);
	vtags(&b, fl);
	resp_begin(&w, KAPI_FIND_COORDINATOR, 3);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	vstr(&w, fl, NULL);
	coord_ok(&w, fl);
	vtags(&w, fl);
	CU_ASSERT(exchange(fd, KAPI_FIND_COORDINATOR, 3, 4, &b, &w, "FC v3"));
	/* v4: a batch of transactional ids, this broker for each. */
	coord_keys(&b, 1, "tx1", "tx2");
	resp_begin(&w, KAPI_FIND_COORDINATOR, 4);
	wbuf_i32(&w, 0);
	varr(&w, fl, 2);
	coord_key(&w, "tx1", 0, NULL);
	coord_key(&w, "tx2", 0, NULL);
	vtags(&w, fl);
	CU_ASSERT(exchange(fd, KAPI_FIND_COORDINATOR, 4, 5, &b, &w, "FC v4"));
	/* v6, the highest: two groups, each answered. */
	coord_keys(&b, 0, "gv1", "gv2");
	resp_begin(&w, KAPI_FIND_COORDINATOR, 6);
	wbuf_i32(&w, 0);
	varr(&w, fl, 2);
	coord_key(&w, "gv1", 0, NULL);
	coord_key(&w, "gv2", 0, NULL);
	vtags(&w, fl);
	CU_ASSERT(exchange(fd, KAPI_FIND_COORDINATOR, 6, 6, &b, &w, "FC v6"));
	wbuf_free(&b);
	wbuf_free(&w);
	close(fd);
}

/* ---- JoinGroup, SyncGroup, Heartbeat ---- */

/*
 * A JoinGroup answer's start up to its member id: error, generation,
 * protocol type (v7+) and name, leader, skip_assignment (v9).
 */
static void
join_head(struct wbuf *w, int16_t ver, int16_t err, int32_t gen,
    const char *ptype, const char *proto, const char *leader)
{
	int fl = ver >= 6;

	resp_begin(w, KAPI_JOIN_GROUP, ver);
	if (ver >= 2)
		wbuf_i32(w, 0);
	wbuf_i16(w, err);
	wbuf_i32(w, gen);
	if (ver >= 7)
		vstr(w, fl, ptype);
	vstr(w, fl, proto);
	vstr(w, fl, leader);
	if (ver >= 9)
		wbuf_i8(w, 0);
}

/* Read a JoinGroup answer's member id (at off) into id; its length or -1. */
static int
answer_id(const uint8_t *p, size_t n, size_t off, int fl, char *id,
    size_t idsz)
{
	size_t l;

	if (p == NULL || off + 2 > n)
		return -1;
	if (fl) {
		if (p[off] == 0 || p[off] >= 0x80)
			return -1;
		l = (size_t)p[off] - 1;
		off += 1;
	} else {
		l = (size_t)(p[off] << 8 | p[off + 1]);
		off += 2;
	}
	if (off + l > n || l >= idsz)
		return -1;
	memcpy(id, p + off, l);
	id[l] = '\0';
	return (int)l;
}

/*
 * Frame (p, flen) of a classic version with the empty string at off
 * replaced by id, into f.
 */
static void
frame_with_id(struct wbuf *f, const uint8_t *p, size_t flen, size_t off,
    const char *id)
{
	wbuf_reset(f);
	wbuf_raw(f, p, off);
	wbuf_str(f, id, strlen(id));
	wbuf_raw(f, p + off + 2, flen - off - 2);
	be32_put(f->buf, (uint32_t)(f->len - 4));
}

/* Is id what Flume makes: prefix, '-', 16 hex digits? */
static int
id_shape(const char *id, const char *prefix)
{
	size_t i, pl = strlen(prefix);

	if (strlen(id) != pl + 17 || strncmp(id, prefix, pl) != 0 ||
	    id[pl] != '-')
		return 0;
	for (i = pl + 1; id[i] != '\0'; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		    (id[i] >= 'a' && id[i] <= 'f')))
			return 0;
	return 1;
}

/*
 * librdkafka's JoinGroup v5 (empty member id, group "grp", protocols
 * range and roundrobin on topic t) gets MEMBER_ID_REQUIRED and an id
 * (KIP-394); the same request with that id joins: generation 1, it
 * leads, its range metadata in the members.  A made-up id is refused.
 */
static void
test_join_member_id_required(void)
{
	struct wbuf w, f;
	uint8_t *p, *a;
	size_t n, flen, off;
	int fd, l;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&w);
	wbuf_init(&f);
	p = fixture("kcat-JoinGroup-v5", 1, &flen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* The range protocol's metadata, as the leader will get it back. */
	a = memmem(p, flen, "\0\5range", 7);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	rmeta_len = (size_t)be32_get(a + 7);
	CU_ASSERT_FATAL(rmeta_len <= sizeof(rmeta));
	memcpy(rmeta, a + 11, rmeta_len);

	a = send_frame(fd, p, flen, 1, &n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	/* throttle 4, error 2, generation 4, "" 2, "" 2: the id at 14. */
	l = answer_id(a, n, 14, 0, mid, sizeof(mid));
	CU_ASSERT_FATAL(l > 0);
	CU_ASSERT(id_shape(mid, "rdkafka"));
	join_head(&w, 5, KERR_MEMBER_ID_REQUIRED, -1, NULL, "", "");
	vstr(&w, 0, mid);
	varr(&w, 0, 0);
	CU_ASSERT(same(a, n, &w, "JoinGroup v5 MEMBER_ID_REQUIRED"));
	free(a);

	/* The same request with the id: body offset 21, member id at +13. */
	off = 4 + 2 + 2 + 4 + 2 + 7 + 2 + 3 + 4 + 4;
	CU_ASSERT_FATAL(p[off] == 0 && p[off + 1] == 0);
	frame_with_id(&f, p, flen, off, mid);
	a = send_frame(fd, f.buf, f.len, 1, &n);
	join_head(&w, 5, KERR_NONE, 1, NULL, "range", mid);
	vstr(&w, 0, mid);
	varr(&w, 0, 1);
	vstr(&w, 0, mid);
	vstr(&w, 0, NULL);		/* group_instance_id */
	vbytes(&w, 0, rmeta, rmeta_len);
	CU_ASSERT(same(a, n, &w, "JoinGroup v5 with its id"));
	mgen = 1;
	free(a);

	/* An id of the right shape the coordinator did not give. */
	frame_with_id(&f, p, flen, off, "rdkafka-0123456789abcdef");
	a = send_frame(fd, f.buf, f.len, 1, &n);
	join_head(&w, 5, KERR_UNKNOWN_MEMBER_ID, -1, NULL, "", "");
	vstr(&w, 0, "rdkafka-0123456789abcdef");
	varr(&w, 0, 0);
	CU_ASSERT(same(a, n, &w, "JoinGroup v5 unknown id"));
	free(a);
	free(p);
	wbuf_free(&w);
	wbuf_free(&f);
	close(fd);
}

/* A JoinGroup body of member id (NULL: "") of group gv9, at ver. */
static void
join_body(struct wbuf *b, int16_t ver, const char *id)
{
	int fl = ver >= 6;

	vstr(b, fl, "gv9");
	wbuf_i32(b, 60000);		/* outlives the suite: no expiry */
	wbuf_i32(b, 60000);
	vstr(b, fl, id != NULL ? id : "");
	vstr(b, fl, NULL);		/* group_instance_id */
	vstr(b, fl, "consumer");
	varr(b, fl, 1);
	vstr(b, fl, "range");
	vbytes(b, fl, rmeta, rmeta_len);
	vtags(b, fl);
	if (ver >= 8)
		vstr(b, fl, "because");
	vtags(b, fl);
}

/*
 * JoinGroup v6 (first flexible) and v9 (highest): null protocol names
 * with MEMBER_ID_REQUIRED, then the protocol type and name (v7) and
 * skip_assignment false (v9) once joined.
 */
static void
test_join_flexible(void)
{
	struct wbuf b, w;
	char id[256], id6[256];
	uint8_t *a;
	size_t n;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	wbuf_init(&w);
	join_body(&b, 6, NULL);
	a = call(fd, KAPI_JOIN_GROUP, 6, 1, &b, &n);
	/* tags 1, throttle 4, error 2, generation 4, "" 1, "" 1: id at 13. */
	CU_ASSERT_FATAL(answer_id(a, n, 13, 1, id6, sizeof(id6)) > 0);
	CU_ASSERT(id_shape(id6, "gv"));
	join_head(&w, 6, KERR_MEMBER_ID_REQUIRED, -1, NULL, "", "");
	vstr(&w, 1, id6);
	varr(&w, 1, 0);
	vtags(&w, 1);
	CU_ASSERT(same(a, n, &w, "JoinGroup v6 MEMBER_ID_REQUIRED"));
	free(a);
	wbuf_reset(&b);

	join_body(&b, 9, NULL);
	a = call(fd, KAPI_JOIN_GROUP, 9, 2, &b, &n);
	/* ... type null 1, name null 1, leader "" 1, skip 1: id at 15. */
	CU_ASSERT_FATAL(answer_id(a, n, 15, 1, id, sizeof(id)) > 0);
	join_head(&w, 9, KERR_MEMBER_ID_REQUIRED, -1, NULL, NULL, "");
	vstr(&w, 1, id);
	varr(&w, 1, 0);
	vtags(&w, 1);
	CU_ASSERT(same(a, n, &w, "JoinGroup v9 MEMBER_ID_REQUIRED"));
	free(a);
	wbuf_reset(&b);

	join_body(&b, 9, id);
	join_head(&w, 9, KERR_NONE, 1, "consumer", "range", id);
	vstr(&w, 1, id);
	varr(&w, 1, 1);
	vstr(&w, 1, id);
	vstr(&w, 1, NULL);
	vbytes(&w, 1, rmeta, rmeta_len);
	vtags(&w, 1);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_JOIN_GROUP, 9, 3, &b, &w,
	    "JoinGroup v9 with its id"));
	wbuf_free(&b);
	wbuf_free(&w);
	close(fd);
}

/* An assignment of t's partitions 0 and 1 (consumer protocol v0). */
static const uint8_t assign01[] = { 0, 0, 0, 0, 0, 1, 0, 1, 't',
	0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff };

static void
sync_body(struct wbuf *b, const char *ptype, const char *proto)
{
	vstr(b, 1, "grp");
	wbuf_i32(b, mgen);
	vstr(b, 1, mid);
	vstr(b, 1, NULL);
	vstr(b, 1, ptype);
	vstr(b, 1, proto);
	varr(b, 1, 1);
	vstr(b, 1, mid);
	vbytes(b, 1, assign01, sizeof(assign01));
	vtags(b, 1);
	vtags(b, 1);
}

/*
 * SyncGroup v5 (highest, flexible): a protocol name that is not the
 * group's is INCONSISTENT_GROUP_PROTOCOL with null names; the group's
 * own gets the assignment and both names.  librdkafka's v3 of a member
 * it does not know: UNKNOWN_MEMBER_ID.  Heartbeat v0, v3 (librdkafka's)
 * and v4 (flexible; an instance id no static member holds is
 * UNKNOWN_MEMBER_ID, as Kafka's validateCurrentMember answers).
 */
static void
test_sync_heartbeat(void)
{
	struct wbuf b, w;
	int fd;

	CU_ASSERT_FATAL(mgen == 1);
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	wbuf_init(&w);
	sync_body(&b, "consumer", "roundrobin");
	resp_begin(&w, KAPI_SYNC_GROUP, 5);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, KERR_INCONSISTENT_GROUP_PROTOCOL);
	vstr(&w, 1, NULL);
	vstr(&w, 1, NULL);
	vbytes(&w, 1, NULL, 0);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_SYNC_GROUP, 5, 1, &b, &w,
	    "SyncGroup v5 other protocol"));
	sync_body(&b, NULL, "range");	/* a null type is not checked */
	resp_begin(&w, KAPI_SYNC_GROUP, 5);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	vstr(&w, 1, "consumer");
	vstr(&w, 1, "range");
	vbytes(&w, 1, assign01, sizeof(assign01));
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_SYNC_GROUP, 5, 2, &b, &w, "SyncGroup v5"));

	wbuf_i32(&w, 0);
	wbuf_i16(&w, KERR_UNKNOWN_MEMBER_ID);
	vbytes(&w, 0, NULL, 0);
	CU_ASSERT(fixture_exchange(fd, "kcat-SyncGroup-v3", 3, &w));

	vstr(&b, 0, "grp");
	wbuf_i32(&b, mgen);
	vstr(&b, 0, mid);
	wbuf_i16(&w, 0);
	CU_ASSERT(exchange(fd, KAPI_HEARTBEAT, 0, 4, &b, &w, "Heartbeat v0"));
	wbuf_i32(&w, 0);
	wbuf_i16(&w, KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT(fixture_exchange(fd, "kcat-Heartbeat-v3", 5, &w));
	vstr(&b, 1, "grp");
	wbuf_i32(&b, mgen);
	vstr(&b, 1, mid);
	vstr(&b, 1, "static-1");	/* no static member holds it (KIP-345) */
	vtags(&b, 1);
	resp_begin(&w, KAPI_HEARTBEAT, 4);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, KERR_UNKNOWN_MEMBER_ID);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_HEARTBEAT, 4, 6, &b, &w, "Heartbeat v4"));
	vstr(&b, 1, "grp");
	wbuf_i32(&b, mgen);
	vstr(&b, 1, mid);
	vstr(&b, 1, NULL);
	vtags(&b, 1);
	resp_begin(&w, KAPI_HEARTBEAT, 4);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_HEARTBEAT, 4, 7, &b, &w, "Heartbeat v4"));
	wbuf_free(&b);
	wbuf_free(&w);
	close(fd);
}

/* ---- OffsetCommit, OffsetFetch ---- */

/*
 * An OffsetCommit of grp at ver by member (generation gen) for t's
 * partitions parts[0..n) at offsets offs.
 */
static void
commit_body(struct wbuf *b, int16_t ver, int32_t gen, const char *member,
    const int32_t *parts, const int64_t *offs, int n)
{
	int fl = ver >= 8, i;

	vstr(b, fl, "grp");
	wbuf_i32(b, gen);
	vstr(b, fl, member);
	if (ver >= 7)
		vstr(b, fl, NULL);	/* group_instance_id */
	if (ver >= 2 && ver <= 4)
		wbuf_i64(b, -1);	/* retention */
	varr(b, fl, 1);
	vstr(b, fl, "t");
	varr(b, fl, n);
	for (i = 0; i < n; i++) {
		wbuf_i32(b, parts[i]);
		wbuf_i64(b, offs[i]);
		if (ver >= 6)
			wbuf_i32(b, -1);	/* leader epoch */
		if (ver == 1)
			wbuf_i64(b, 1700000000000LL);	/* timestamp */
		vstr(b, fl, "");
		vtags(b, fl);
	}
	vtags(b, fl);
	vtags(b, fl);
}

/* Its answer: each partition's error. */
static void
commit_resp(struct wbuf *w, int16_t ver, const int32_t *parts,
    const int16_t *errs, int n)
{
	int fl = ver >= 8, i;

	resp_begin(w, KAPI_OFFSET_COMMIT, ver);
	if (ver >= 3)
		wbuf_i32(w, 0);
	varr(w, fl, 1);
	vstr(w, fl, "t");
	varr(w, fl, n);
	for (i = 0; i < n; i++) {
		wbuf_i32(w, parts[i]);
		wbuf_i16(w, errs[i]);
		vtags(w, fl);
	}
	vtags(w, fl);
	vtags(w, fl);
}

/*
 * OffsetCommit v9 (highest, its generation field is the generation or
 * member epoch), v8 (first flexible), v5 (no retention) with a stale
 * generation, v2 (a retention time) and v1 (a commit timestamp).
 */
static void
test_offset_commit(void)
{
	static const int32_t p015[] = { 0, 1, 5 }, p1[] = { 1 }, p0[] = { 0 };
	static const int64_t o015[] = { 7, 9, 1 }, o9[] = { 9 }, o100[] = { 100 };
	static const int16_t e015[] = { 0, 0, KERR_UNKNOWN_TOPIC_OR_PARTITION },
	    e0[] = { 0 }, egen[] = { KERR_ILLEGAL_GENERATION },
	    emem[] = { KERR_UNKNOWN_MEMBER_ID };
	struct wbuf b, w;
	int fd;

	CU_ASSERT_FATAL(mgen == 1);
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	wbuf_init(&w);
	commit_body(&b, 9, mgen, mid, p015, o015, 3);
	commit_resp(&w, 9, p015, e015, 3);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_COMMIT, 9, 1, &b, &w,
	    "OffsetCommit v9"));
	/* v8: the same partition again, stored. */
	commit_body(&b, 8, mgen, mid, p1, o9, 1);
	commit_resp(&w, 8, p1, e0, 1);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_COMMIT, 8, 2, &b, &w,
	    "OffsetCommit v8"));
	/* v5: a generation the group is not at. */
	commit_body(&b, 5, mgen + 5, mid, p0, o100, 1);
	commit_resp(&w, 5, p0, egen, 1);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_COMMIT, 5, 3, &b, &w,
	    "OffsetCommit v5"));
	/* v2 (a retention time) and v1 (a commit timestamp): unknown member. */
	commit_body(&b, 2, mgen, "nobody", p0, o100, 1);
	commit_resp(&w, 2, p0, emem, 1);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_COMMIT, 2, 4, &b, &w,
	    "OffsetCommit v2"));
	commit_body(&b, 1, mgen, "nobody", p0, o100, 1);
	commit_resp(&w, 1, p0, emem, 1);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_COMMIT, 1, 5, &b, &w,
	    "OffsetCommit v1"));
	wbuf_free(&b);
	wbuf_free(&w);
	close(fd);
}

/* One partition of an OffsetFetch answer. */
static void
fetch_part(struct wbuf *w, int16_t ver, int32_t part, int64_t off,
    int16_t err)
{
	int fl = ver >= 6;

	wbuf_i32(w, part);
	wbuf_i64(w, off);
	if (ver >= 5)
		wbuf_i32(w, -1);
	vstr(w, fl, "");
	wbuf_i16(w, err);
	vtags(w, fl);
}

/* Topic t with partitions 0 and 1 at 7 and 9 (what was committed). */
static void
fetch_t01(struct wbuf *w, int16_t ver)
{
	int fl = ver >= 6;

	vstr(w, fl, "t");
	varr(w, fl, 2);
	fetch_part(w, ver, 0, 7, 0);
	fetch_part(w, ver, 1, 9, 0);
	vtags(w, fl);
}

/*
 * OffsetFetch v1 (named partitions), v2 (an invalid group: the top
 * level error), v5 (a null topic list: every committed offset, leader
 * epoch -1), librdkafka's v7, v8 (several groups, one that does not
 * exist) and v9 (member id and epoch).
 */
static void
test_offset_fetch(void)
{
	struct wbuf b, w;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	wbuf_init(&w);
	vstr(&b, 0, "grp");
	varr(&b, 0, 1);
	vstr(&b, 0, "t");
	varr(&b, 0, 2);
	wbuf_i32(&b, 0);
	wbuf_i32(&b, 1);
	varr(&w, 0, 1);
	fetch_t01(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_FETCH, 1, 1, &b, &w,
	    "OffsetFetch v1"));

	vstr(&b, 0, "");
	varr(&b, 0, 1);
	vstr(&b, 0, "t");
	varr(&b, 0, 1);
	wbuf_i32(&b, 0);
	varr(&w, 0, 0);
	wbuf_i16(&w, KERR_INVALID_GROUP_ID);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_FETCH, 2, 2, &b, &w,
	    "OffsetFetch v2 invalid group"));

	vstr(&b, 0, "grp");
	varr(&b, 0, -1);
	wbuf_i32(&w, 0);
	varr(&w, 0, 1);
	fetch_t01(&w, 5);
	wbuf_i16(&w, 0);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_FETCH, 5, 3, &b, &w,
	    "OffsetFetch v5 all"));

	/* librdkafka's v7: group "grp", t partition 0, require_stable. */
	resp_begin(&w, KAPI_OFFSET_FETCH, 7);
	wbuf_i32(&w, 0);
	varr(&w, 1, 1);
	vstr(&w, 1, "t");
	varr(&w, 1, 1);
	fetch_part(&w, 7, 0, 7, 0);
	vtags(&w, 1);
	wbuf_i16(&w, 0);
	vtags(&w, 1);
	CU_ASSERT(fixture_exchange(fd, "kcat-OffsetFetch-v7", 4, &w));

	/* v8: grp's every offset, and a group that does not exist. */
	varr(&b, 1, 2);
	vstr(&b, 1, "grp");
	varr(&b, 1, -1);
	vtags(&b, 1);
	vstr(&b, 1, "nogroup");
	varr(&b, 1, 1);
	vstr(&b, 1, "t");
	varr(&b, 1, 1);
	wbuf_i32(&b, 1);
	vtags(&b, 1);
	vtags(&b, 1);
	wbuf_i8(&b, 1);			/* require_stable */
	vtags(&b, 1);
	resp_begin(&w, KAPI_OFFSET_FETCH, 8);
	wbuf_i32(&w, 0);
	varr(&w, 1, 2);
	vstr(&w, 1, "grp");
	varr(&w, 1, 1);
	fetch_t01(&w, 8);
	wbuf_i16(&w, 0);
	vtags(&w, 1);
	vstr(&w, 1, "nogroup");
	varr(&w, 1, 1);
	vstr(&w, 1, "t");
	varr(&w, 1, 1);
	fetch_part(&w, 8, 1, -1, 0);
	vtags(&w, 1);
	wbuf_i16(&w, 0);
	vtags(&w, 1);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_FETCH, 8, 5, &b, &w,
	    "OffsetFetch v8"));

	varr(&b, 1, 1);
	vstr(&b, 1, "grp");
	vstr(&b, 1, mid);
	wbuf_i32(&b, mgen);
	varr(&b, 1, -1);
	vtags(&b, 1);
	wbuf_i8(&b, 0);
	vtags(&b, 1);
	resp_begin(&w, KAPI_OFFSET_FETCH, 9);
	wbuf_i32(&w, 0);
	varr(&w, 1, 1);
	vstr(&w, 1, "grp");
	varr(&w, 1, 1);
	fetch_t01(&w, 9);
	wbuf_i16(&w, 0);
	vtags(&w, 1);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_OFFSET_FETCH, 9, 6, &b, &w,
	    "OffsetFetch v9"));
	wbuf_free(&b);
	wbuf_free(&w);
	close(fd);
}

/* A request frame of (key, ver) with body b into f (header v1). */
static void
frame_of(struct wbuf *f, int16_t key, int16_t ver, int32_t corr,
    const struct wbuf *b)
{
	size_t at = f->len;

	wbuf_i32(f, 0);
	wbuf_i16(f, key);
	wbuf_i16(f, ver);
	wbuf_i32(f, corr);
	wbuf_str(f, "gv", 2);
	wbuf_raw(f, b->buf, b->len);
	be32_put(f->buf + at, (uint32_t)(f->len - at - 4));
}

/*
 * An OffsetFetch answered behind a Fetch that waits for data is sent
 * only once the Fetch is, and its answer names topics from the request:
 * when the connection reads again meanwhile, the request's bytes move
 * into the arena and the reader's buffer takes new ones.  The answer
 * still names "t" (sarama 0.8.2 sends exactly this, and got garbage).
 */
static void
test_offset_fetch_behind_fetch(void)
{
	struct wbuf fb, ob, f, w, ab;
	char name[300];
	uint64_t before;
	uint8_t *p = NULL;
	uint32_t id;
	size_t n = 0;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&fb);
	wbuf_init(&ob);
	wbuf_init(&ab);
	wbuf_init(&f);
	wbuf_init(&w);
	/* Fetch v4 of t/1 at its end (0): waits up to 1.5 s for data. */
	wbuf_i32(&fb, -1);
	wbuf_i32(&fb, 1500);
	wbuf_i32(&fb, 1);
	wbuf_i32(&fb, 1 << 20);
	wbuf_i8(&fb, 0);
	wbuf_i32(&fb, 1);
	wbuf_str(&fb, "t", 1);
	wbuf_i32(&fb, 1);
	wbuf_i32(&fb, 1);
	wbuf_i64(&fb, 0);
	wbuf_i32(&fb, 1 << 20);
	/* OffsetFetch v1 of grp's t/0 and t/1. */
	vstr(&ob, 0, "grp");
	varr(&ob, 0, 1);
	vstr(&ob, 0, "t");
	varr(&ob, 0, 2);
	wbuf_i32(&ob, 0);
	wbuf_i32(&ob, 1);
	before = flumed_requests_taken(&d);
	CU_ASSERT_FATAL(before != UINT64_MAX);
	frame_of(&f, KAPI_FETCH, 4, 11, &fb);
	frame_of(&f, KAPI_OFFSET_FETCH, 1, 12, &ob);
	CU_ASSERT_EQUAL_FATAL(support_send(fd, f.buf, f.len), 0);
	/* Both taken (the OffsetFetch answered, held behind the Fetch)... */
	WAIT_UNTIL(flumed_requests_taken(&d) >= before + 2, 5000);
	CU_ASSERT_EQUAL_FATAL(flumed_requests_taken(&d), before + 2);
	/*
	 * ...then more bytes, read into the buffer the two came in (from
	 * its start, both being taken): an ApiVersions v3 longer than them.
	 */
	memset(name, 'x', sizeof(name));
	vtags(&ab, 1);			/* header v2: no tags */
	vbytes(&ab, 1, name, sizeof(name));
	vstr(&ab, 1, "1");
	vtags(&ab, 1);
	f.len = 0;
	frame_of(&f, KAPI_API_VERSIONS, 3, 13, &ab);
	CU_ASSERT_FATAL(f.len > 300);
	CU_ASSERT_EQUAL_FATAL(support_send(fd, f.buf, f.len), 0);
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(id, 11);
	free(p);
	p = NULL;
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(id, 12);
	varr(&w, 0, 1);
	fetch_t01(&w, 1);
	CU_ASSERT(same(p, n, &w, "OffsetFetch v1 behind a Fetch"));
	free(p);
	p = NULL;
	CU_ASSERT_EQUAL_FATAL(support_recv(fd, 10000, &id, &p, &n), 1);
	CU_ASSERT_EQUAL(id, 13);
	free(p);
	wbuf_free(&fb);
	wbuf_free(&ob);
	wbuf_free(&ab);
	wbuf_free(&f);
	wbuf_free(&w);
	close(fd);
}

/* ---- ListGroups, DescribeGroups ---- */

static void
listed(struct wbuf *w, int16_t ver, const char *group, const char *state)
{
	int fl = ver >= 3;

	vstr(w, fl, group);
	vstr(w, fl, "consumer");
	if (ver >= 4)
		vstr(w, fl, state);
	if (ver >= 5)
		vstr(w, fl, "classic");
	vtags(w, fl);
}

/*
 * ListGroups v0, v3 (first flexible), v4 (a states filter, in any case)
 * and v5 (a types filter): grp is Stable, gv9 waits for its SyncGroup
 * (CompletingRebalance).
 */
static void
test_list_groups(void)
{
	struct wbuf b, w;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	wbuf_init(&w);
	wbuf_i16(&w, 0);
	varr(&w, 0, 2);
	listed(&w, 0, "grp", NULL);
	listed(&w, 0, "gv9", NULL);
	CU_ASSERT(exchange(fd, KAPI_LIST_GROUPS, 0, 1, &b, &w,
	    "ListGroups v0"));
	vtags(&b, 1);
	resp_begin(&w, KAPI_LIST_GROUPS, 3);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	varr(&w, 1, 2);
	listed(&w, 3, "grp", NULL);
	listed(&w, 3, "gv9", NULL);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_LIST_GROUPS, 3, 2, &b, &w,
	    "ListGroups v3"));
	varr(&b, 1, 1);
	vstr(&b, 1, "stable");
	vtags(&b, 1);
	resp_begin(&w, KAPI_LIST_GROUPS, 4);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	varr(&w, 1, 1);
	listed(&w, 4, "grp", "Stable");
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_LIST_GROUPS, 4, 3, &b, &w,
	    "ListGroups v4 Stable"));
	varr(&b, 1, 0);
	varr(&b, 1, 1);
	vstr(&b, 1, "Classic");
	vtags(&b, 1);
	resp_begin(&w, KAPI_LIST_GROUPS, 5);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	varr(&w, 1, 2);
	listed(&w, 5, "grp", "Stable");
	listed(&w, 5, "gv9", "CompletingRebalance");
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_LIST_GROUPS, 5, 4, &b, &w,
	    "ListGroups v5 classic"));
	varr(&b, 1, 0);
	varr(&b, 1, 1);
	vstr(&b, 1, "consumer");	/* KIP-848 groups: Flume has none */
	vtags(&b, 1);
	resp_begin(&w, KAPI_LIST_GROUPS, 5);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	varr(&w, 1, 0);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_LIST_GROUPS, 5, 5, &b, &w,
	    "ListGroups v5 consumer"));
	wbuf_free(&b);
	wbuf_free(&w);
	close(fd);
}

/* grp as DescribeGroups answers it at ver (ops: authorized operations). */
static void
described_grp(struct wbuf *w, int16_t ver, int32_t ops)
{
	int fl = ver >= 5;

	wbuf_i16(w, 0);
	if (ver >= 6)
		vstr(w, fl, NULL);
	vstr(w, fl, "grp");
	vstr(w, fl, "Stable");
	vstr(w, fl, "consumer");
	vstr(w, fl, "range");
	varr(w, fl, 1);
	vstr(w, fl, mid);
	if (ver >= 4)
		vstr(w, fl, NULL);
	vstr(w, fl, "rdkafka");
	vstr(w, fl, HOST);
	vbytes(w, fl, rmeta, rmeta_len);
	vbytes(w, fl, assign01, sizeof(assign01));
	vtags(w, fl);
	if (ver >= 3)
		wbuf_i32(w, ops);
	vtags(w, fl);
}

/*
 * DescribeGroups v0, v3 (authorized operations asked: read, delete,
 * describe without an auth_file), v5 (first flexible) and v6 (a group
 * that does not exist: GROUP_ID_NOT_FOUND with Kafka's message).
 */
static void
test_describe_groups(void)
{
	struct wbuf b, w;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	wbuf_init(&w);
	varr(&b, 0, 2);
	vstr(&b, 0, "grp");
	vstr(&b, 0, "nosuch");
	varr(&w, 0, 2);
	described_grp(&w, 0, 0);
	wbuf_i16(&w, 0);
	vstr(&w, 0, "nosuch");
	vstr(&w, 0, "Dead");
	vstr(&w, 0, "");
	vstr(&w, 0, "");
	varr(&w, 0, 0);
	CU_ASSERT(exchange(fd, KAPI_DESCRIBE_GROUPS, 0, 1, &b, &w,
	    "DescribeGroups v0"));
	varr(&b, 0, 1);
	vstr(&b, 0, "grp");
	wbuf_i8(&b, 1);
	wbuf_i32(&w, 0);
	varr(&w, 0, 1);
	described_grp(&w, 3, 1 << 3 | 1 << 6 | 1 << 8);
	CU_ASSERT(exchange(fd, KAPI_DESCRIBE_GROUPS, 3, 2, &b, &w,
	    "DescribeGroups v3"));
	varr(&b, 1, 1);
	vstr(&b, 1, "grp");
	wbuf_i8(&b, 0);
	vtags(&b, 1);
	resp_begin(&w, KAPI_DESCRIBE_GROUPS, 5);
	wbuf_i32(&w, 0);
	varr(&w, 1, 1);
	described_grp(&w, 5, INT32_MIN);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_DESCRIBE_GROUPS, 5, 3, &b, &w,
	    "DescribeGroups v5"));
	varr(&b, 1, 2);
	vstr(&b, 1, "grp");
	vstr(&b, 1, "nosuch");
	wbuf_i8(&b, 0);
	vtags(&b, 1);
	resp_begin(&w, KAPI_DESCRIBE_GROUPS, 6);
	wbuf_i32(&w, 0);
	varr(&w, 1, 2);
	described_grp(&w, 6, INT32_MIN);
	wbuf_i16(&w, KERR_GROUP_ID_NOT_FOUND);
	vstr(&w, 1, "Group nosuch not found.");
	vstr(&w, 1, "nosuch");
	vstr(&w, 1, "Dead");
	vstr(&w, 1, "");
	vstr(&w, 1, "");
	varr(&w, 1, 0);
	wbuf_i32(&w, INT32_MIN);
	vtags(&w, 1);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_DESCRIBE_GROUPS, 6, 4, &b, &w,
	    "DescribeGroups v6"));
	wbuf_free(&b);
	wbuf_free(&w);
	close(fd);
}

/* ---- librdkafka's admin API ---- */

static rd_kafka_t *
admin_new(void)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char err[256];

	if (rd_kafka_conf_set(conf, "bootstrap.servers", d.kbroker, err,
	    sizeof(err)) != RD_KAFKA_CONF_OK) {
		rd_kafka_conf_destroy(conf);
		return NULL;
	}
	return rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
}

/* Wait for the admin result of type t on q (10 s); NULL on timeout. */
static rd_kafka_event_t *
admin_wait(rd_kafka_queue_t *q, rd_kafka_event_type_t t)
{
	rd_kafka_event_t *ev;
	int i;

	for (i = 0; i < 100; i++) {
		if ((ev = rd_kafka_queue_poll(q, 100)) == NULL)
			continue;
		if (rd_kafka_event_type(ev) == t)
			return ev;
		rd_kafka_event_destroy(ev);
	}
	return NULL;
}

/*
 * librdkafka 2.0's ListConsumerGroupOffsets without partitions (every
 * committed offset: OffsetFetch with null topics) returns grp's t/0 at 7
 * and t/1 at 9; ListConsumerGroups shows grp Stable (ListGroups v4).
 */
static void
test_librdkafka_admin(void)
{
	rd_kafka_t *rk;
	rd_kafka_queue_t *q;
	rd_kafka_event_t *ev;
	rd_kafka_ListConsumerGroupOffsets_t *req;
	const rd_kafka_ListConsumerGroupOffsets_result_t *res;
	const rd_kafka_ListConsumerGroups_result_t *lres;
	const rd_kafka_group_result_t **gr;
	const rd_kafka_ConsumerGroupListing_t **gl;
	const rd_kafka_topic_partition_list_t *tp;
	int64_t off[2] = { -2, -2 };
	size_t n, i;
	int found = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rk = admin_new());
	q = rd_kafka_queue_new(rk);
	req = rd_kafka_ListConsumerGroupOffsets_new("grp", NULL);
	rd_kafka_ListConsumerGroupOffsets(rk, &req, 1, NULL, q);
	rd_kafka_ListConsumerGroupOffsets_destroy(req);
	ev = admin_wait(q, RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(rd_kafka_event_error(ev), RD_KAFKA_RESP_ERR_NO_ERROR);
	res = rd_kafka_event_ListConsumerGroupOffsets_result(ev);
	gr = rd_kafka_ListConsumerGroupOffsets_result_groups(res, &n);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_PTR_NULL(rd_kafka_group_result_error(gr[0]));
	tp = rd_kafka_group_result_partitions(gr[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tp);
	CU_ASSERT_EQUAL(tp->cnt, 2);
	for (i = 0; i < (size_t)tp->cnt; i++) {
		CU_ASSERT_STRING_EQUAL(tp->elems[i].topic, "t");
		CU_ASSERT_EQUAL(tp->elems[i].err, RD_KAFKA_RESP_ERR_NO_ERROR);
		if (tp->elems[i].partition >= 0 && tp->elems[i].partition < 2)
			off[tp->elems[i].partition] = tp->elems[i].offset;
	}
	CU_ASSERT_EQUAL(off[0], 7);
	CU_ASSERT_EQUAL(off[1], 9);
	rd_kafka_event_destroy(ev);

	rd_kafka_ListConsumerGroups(rk, NULL, q);
	ev = admin_wait(q, RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	lres = rd_kafka_event_ListConsumerGroups_result(ev);
	gl = rd_kafka_ListConsumerGroups_result_valid(lres, &n);
	for (i = 0; i < n; i++) {
		if (strcmp(rd_kafka_ConsumerGroupListing_group_id(gl[i]),
		    "grp") != 0)
			continue;
		found++;
		CU_ASSERT_EQUAL(rd_kafka_ConsumerGroupListing_state(gl[i]),
		    RD_KAFKA_CONSUMER_GROUP_STATE_STABLE);
		CU_ASSERT_FALSE(
		    rd_kafka_ConsumerGroupListing_is_simple_consumer_group(
		    gl[i]));
	}
	CU_ASSERT_EQUAL(found, 1);
	rd_kafka_event_destroy(ev);
	rd_kafka_queue_destroy(q);
	rd_kafka_destroy(rk);
}

/* ---- LeaveGroup ---- */

/*
 * LeaveGroup v1 (librdkafka's, of a member grp does not have), v3 (a
 * group that does not exist: each member unknown, the request NONE) and
 * v5 (highest: a batch, the real member leaves, one named only by an
 * instance id is unknown).
 */
static void
test_leave_group(void)
{
	struct wbuf b, w;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&b);
	wbuf_init(&w);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT(fixture_exchange(fd, "kcat-LeaveGroup-v1", 1, &w));

	vstr(&b, 0, "nosuch");
	varr(&b, 0, 1);
	vstr(&b, 0, "m1");
	vstr(&b, 0, NULL);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	varr(&w, 0, 1);
	vstr(&w, 0, "m1");
	vstr(&w, 0, NULL);
	wbuf_i16(&w, KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT(exchange(fd, KAPI_LEAVE_GROUP, 3, 2, &b, &w,
	    "LeaveGroup v3 no group"));

	vstr(&b, 1, "grp");
	varr(&b, 1, 2);
	vstr(&b, 1, mid);
	vstr(&b, 1, NULL);
	vstr(&b, 1, "done");
	vtags(&b, 1);
	vstr(&b, 1, "");
	vstr(&b, 1, "inst-1");
	vstr(&b, 1, NULL);
	vtags(&b, 1);
	vtags(&b, 1);
	resp_begin(&w, KAPI_LEAVE_GROUP, 5);
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	varr(&w, 1, 2);
	vstr(&w, 1, mid);
	vstr(&w, 1, NULL);
	wbuf_i16(&w, 0);
	vtags(&w, 1);
	vstr(&w, 1, "");
	vstr(&w, 1, "inst-1");
	wbuf_i16(&w, KERR_UNKNOWN_MEMBER_ID);
	vtags(&w, 1);
	vtags(&w, 1);
	CU_ASSERT(exchange(fd, KAPI_LEAVE_GROUP, 5, 3, &b, &w,
	    "LeaveGroup v5"));
	/* It left: a heartbeat of it is unknown now. */
	vstr(&b, 0, "grp");
	wbuf_i32(&b, mgen);
	vstr(&b, 0, mid);
	wbuf_i16(&w, KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT(exchange(fd, KAPI_HEARTBEAT, 0, 4, &b, &w,
	    "Heartbeat v0 after leaving"));
	wbuf_free(&b);
	wbuf_free(&w);
	close(fd);
}

/* ---- other clients' requests ---- */

/* The metadata of the first protocol of a JoinGroup v1-5 frame. */
static size_t
join_meta(const uint8_t *p, size_t flen, const char *proto, uint8_t *out,
    size_t outsz)
{
	const uint8_t *a;
	size_t pl = strlen(proto), n;
	char key[64];

	key[0] = 0;
	key[1] = (char)pl;
	memcpy(key + 2, proto, pl);
	if ((a = memmem(p, flen, key, pl + 2)) == NULL ||
	    (n = (size_t)be32_get(a + pl + 2)) > outsz)
		return 0;
	memcpy(out, a + pl + 6, n);
	return n;
}

/*
 * A client's JoinGroup (name) of a new group at ver 1 or 2 (range
 * first): joined at once, generation 1, it leads, its id made from its
 * client id (prefix).  1 when answered exactly.
 */
static int
join_at_once(int fd, const char *name, int32_t corr, int16_t ver,
    const char *prefix)
{
	struct wbuf w;
	uint8_t *p, *a, meta[64];
	char id[256];
	size_t n = 0, flen, ml;
	int ok = 0;

	if ((p = fixture(name, corr, &flen)) == NULL ||
	    (ml = join_meta(p, flen, "range", meta, sizeof(meta))) == 0) {
		free(p);
		return 0;
	}
	wbuf_init(&w);
	a = send_frame(fd, p, flen, corr, &n);
	/* (throttle 4), error 2, generation 4, "range" 7: the leader. */
	if (answer_id(a, n, ver >= 2 ? 17 : 13, 0, id, sizeof(id)) > 0 &&
	    id_shape(id, prefix)) {
		join_head(&w, ver, KERR_NONE, 1, NULL, "range", id);
		vstr(&w, 0, id);
		varr(&w, 0, 1);
		vstr(&w, 0, id);
		vbytes(&w, 0, meta, ml);
		ok = same(a, n, &w, name);
	}
	free(a);
	free(p);
	wbuf_free(&w);
	return ok;
}

/*
 * kafkajs 2.2.4 (JoinGroup v5 twice, OffsetFetch v4, LeaveGroup v3),
 * sarama 1.22 as Kafka 0.10.2 (JoinGroup v1) and kafka-python 2.0.2
 * (JoinGroup v2): their own requests, captured through a proxy, each
 * answered as Kafka answers them.
 */
static void
test_other_clients(void)
{
	struct wbuf w, f;
	uint8_t *p, *a, meta[64];
	char id[256];
	size_t n, flen, ml, off;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	wbuf_init(&w);
	wbuf_init(&f);
	/* kafkajs: group kjgrp, client id flume-compat, session 10 s. */
	p = fixture("kafkajs-JoinGroup-v5", 1, &flen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	ml = join_meta(p, flen, "RoundRobinAssigner", meta, sizeof(meta));
	CU_ASSERT_FATAL(ml > 0);
	a = send_frame(fd, p, flen, 1, &n);
	CU_ASSERT_FATAL(answer_id(a, n, 14, 0, id, sizeof(id)) > 0);
	CU_ASSERT(id_shape(id, "flume-compat"));
	join_head(&w, 5, KERR_MEMBER_ID_REQUIRED, -1, NULL, "", "");
	vstr(&w, 0, id);
	varr(&w, 0, 0);
	CU_ASSERT(same(a, n, &w, "kafkajs JoinGroup v5"));
	free(a);
	/* Header 26 bytes, then group (7), session, rebalance: the id. */
	off = 4 + 2 + 2 + 4 + 2 + 12 + 7 + 4 + 4;
	CU_ASSERT_FATAL(p[off] == 0 && p[off + 1] == 0);
	frame_with_id(&f, p, flen, off, id);
	a = send_frame(fd, f.buf, f.len, 1, &n);
	join_head(&w, 5, KERR_NONE, 1, NULL, "RoundRobinAssigner", id);
	vstr(&w, 0, id);
	varr(&w, 0, 1);
	vstr(&w, 0, id);
	vstr(&w, 0, NULL);
	vbytes(&w, 0, meta, ml);
	CU_ASSERT(same(a, n, &w, "kafkajs JoinGroup v5 with its id"));
	free(a);
	free(p);
	wbuf_reset(&w);
	/* Its OffsetFetch v4 of t/0 and t/1: nothing committed. */
	wbuf_i32(&w, 0);
	varr(&w, 0, 1);
	vstr(&w, 0, "t");
	varr(&w, 0, 2);
	fetch_part(&w, 4, 0, -1, 0);
	fetch_part(&w, 4, 1, -1, 0);
	wbuf_i16(&w, 0);
	CU_ASSERT(fixture_exchange(fd, "kafkajs-OffsetFetch-v4", 2, &w));
	/* Its LeaveGroup v3, of the member of its own run: not this one. */
	wbuf_i32(&w, 0);
	wbuf_i16(&w, 0);
	varr(&w, 0, 1);
	vstr(&w, 0, "flume-compat-b397d6ef9bf13ef9");
	vstr(&w, 0, NULL);
	wbuf_i16(&w, KERR_UNKNOWN_MEMBER_ID);
	CU_ASSERT(fixture_exchange(fd, "kafkajs-LeaveGroup-v3", 3, &w));

	/* sarama and kafka-python join at once: no MEMBER_ID_REQUIRED. */
	CU_ASSERT(join_at_once(fd, "sarama-JoinGroup-v1", 4, 1,
	    "sarama-0.10.2"));
	CU_ASSERT(join_at_once(fd, "kafka-python-JoinGroup-v2", 5, 2,
	    "kafka-python-2.0.2"));
	wbuf_free(&w);
	wbuf_free(&f);
	close(fd);
}

TEST_SUITE("kafka_gvers", setup, teardown,
    { "FindCoordinator v0, v1, v2 (librdkafka), v3, v4 (transactions), v6", test_find_coordinator },
    { "JoinGroup v5 (librdkafka): MEMBER_ID_REQUIRED, then joined", test_join_member_id_required },
    { "JoinGroup v6 and v9: flexible, MEMBER_ID_REQUIRED, protocol type", test_join_flexible },
    { "SyncGroup v3, v5 (protocol checked); Heartbeat v0, v3, v4", test_sync_heartbeat },
    { "OffsetCommit v1, v2, v5, v8, v9", test_offset_commit },
    { "OffsetFetch v1, v2, v5 (all), v7 (librdkafka), v8 (groups), v9", test_offset_fetch },
    { "OffsetFetch answered behind a waiting Fetch keeps its names",
	test_offset_fetch_behind_fetch },
    { "ListGroups v0, v3, v4 (states), v5 (types)", test_list_groups },
    { "DescribeGroups v0, v3 (operations), v5, v6 (not found)", test_describe_groups },
    { "librdkafka ListConsumerGroupOffsets (all) and ListConsumerGroups", test_librdkafka_admin },
    { "LeaveGroup v1 (librdkafka), v3, v5 (a batch)", test_leave_group },
    { "kafkajs, sarama (Kafka 0.10.2) and kafka-python's own requests", test_other_clients });
