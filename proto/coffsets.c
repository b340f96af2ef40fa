/*
 * Kafka's __consumer_offsets record formats (see coffsets.h).
 */
#include <string.h>

#include "proto/bytes.h"
#include "proto/coffsets.h"

/* The next UTF-16 code units of a UTF-8 string (bad bytes count as U+FFFD). */
static size_t
utf8_next(const uint8_t *p, size_t len, uint32_t *cp)
{
	uint32_t c = p[0];
	size_t n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		n = 2;
		c &= 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		c &= 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4;
		c &= 0x07;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	if (n > len) {
		*cp = 0xfffd;
		return 1;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return 1;
		}
		c = c << 6 | (p[i] & 0x3f);
	}
	*cp = c;
	return n;
}

int32_t
coffsets_partition_for(const char *group, size_t len, int32_t n)
{
	const uint8_t *p = (const uint8_t *)group;
	uint32_t h = 0, cp;
	size_t i = 0;

	if (n <= 0)
		return 0;
	while (i < len) {
		i += utf8_next(p + i, len - i, &cp);
		if (cp >= 0x10000) {	/* a surrogate pair */
			cp -= 0x10000;
			h = 31 * h + (0xd800 | cp >> 10);
			h = 31 * h + (0xdc00 | (cp & 0x3ff));
		} else
			h = 31 * h + cp;
	}
	/* Kafka's Utils.abs: Integer.MIN_VALUE becomes 0. */
	return (int32_t)((h & 0x7fffffffu) % (uint32_t)n);
}

/* ---- encoding ---- */

struct cw {
	uint8_t	*buf;
	size_t	 cap, len;
};

static void
cw_bytes(struct cw *w, const void *p, size_t n)
{
	if (w->len + n <= w->cap && n > 0)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void
cw_i16(struct cw *w, int16_t v)
{
	uint8_t b[2];

	be16_put(b, (uint16_t)v);
	cw_bytes(w, b, 2);
}

static void
cw_i32(struct cw *w, int32_t v)
{
	uint8_t b[4];

	be32_put(b, (uint32_t)v);
	cw_bytes(w, b, 4);
}

static void
cw_i64(struct cw *w, int64_t v)
{
	uint8_t b[8];

	be64_put(b, (uint64_t)v);
	cw_bytes(w, b, 8);
}

/* A string (NULL: a nullable one's null); longer than int16 is cut. */
static void
cw_str(struct cw *w, const char *s, size_t n)
{
	if (s == NULL) {
		cw_i16(w, -1);
		return;
	}
	if (n > INT16_MAX)
		n = INT16_MAX;
	cw_i16(w, (int16_t)n);
	cw_bytes(w, s, n);
}

static void
cw_blob(struct cw *w, const uint8_t *p, size_t n)
{
	cw_i32(w, (int32_t)n);
	cw_bytes(w, p, n);
}

size_t
coffsets_commit_key(uint8_t *buf, size_t cap, const char *group, size_t glen,
    const char *topic, size_t tlen, int32_t partition)
{
	struct cw w = { buf, cap, 0 };

	cw_i16(&w, COFFSETS_KEY_COMMIT_V1);
	cw_str(&w, group, glen);
	cw_str(&w, topic, tlen);
	cw_i32(&w, partition);
	return w.len;
}

size_t
coffsets_commit_value(uint8_t *buf, size_t cap, const struct coffsets_commit *v)
{
	struct cw w = { buf, cap, 0 };

	cw_i16(&w, v->version);
	cw_i64(&w, v->offset);
	if (v->version >= 3)
		cw_i32(&w, v->leader_epoch);
	cw_str(&w, v->metadata != NULL ? v->metadata : "", v->metadata_len);
	cw_i64(&w, v->commit_ts);
	if (v->version == 1)
		cw_i64(&w, v->expire_ts);
	return w.len;
}

size_t
coffsets_group_key(uint8_t *buf, size_t cap, const char *group, size_t glen)
{
	struct cw w = { buf, cap, 0 };

	cw_i16(&w, COFFSETS_KEY_GROUP);
	cw_str(&w, group, glen);
	return w.len;
}

size_t
coffsets_group_value(uint8_t *buf, size_t cap, const struct coffsets_group *g)
{
	struct cw w = { buf, cap, 0 };
	const struct coffsets_member *m;
	int32_t i;

	cw_i16(&w, g->version);
	cw_str(&w, g->protocol_type != NULL ? g->protocol_type : "",
	    g->protocol_type_len);
	cw_i32(&w, g->generation);
	cw_str(&w, g->protocol, g->protocol_len);
	cw_str(&w, g->leader, g->leader_len);
	if (g->version >= 2)
		cw_i64(&w, g->state_ts);
	cw_i32(&w, g->nmembers);
	for (i = 0; i < g->nmembers; i++) {
		m = &g->members[i];
		cw_str(&w, m->id, m->id_len);
		if (g->version >= 3)
			cw_str(&w, m->instance_id, m->instance_id_len);
		cw_str(&w, m->client_id, m->client_id_len);
		cw_str(&w, m->client_host, m->client_host_len);
		if (g->version >= 1)
			cw_i32(&w, m->rebalance_timeout_ms);
		cw_i32(&w, m->session_timeout_ms);
		cw_blob(&w, m->subscription, m->subscription_len);
		cw_blob(&w, m->assignment, m->assignment_len);
	}
	return w.len;
}

/* ---- decoding ---- */

struct cr {
	const uint8_t	*p, *end;
	int		 bad;
	int		 flexible;	/* compact lengths (KIP-482) */
};

static int
cr_need(struct cr *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	return 1;
}

static int16_t
cr_i16(struct cr *r)
{
	int16_t v;

	if (!cr_need(r, 2))
		return 0;
	v = (int16_t)be16_get(r->p);
	r->p += 2;
	return v;
}

static int32_t
cr_i32(struct cr *r)
{
	int32_t v;

	if (!cr_need(r, 4))
		return 0;
	v = (int32_t)be32_get(r->p);
	r->p += 4;
	return v;
}

static int64_t
cr_i64(struct cr *r)
{
	int64_t v;

	if (!cr_need(r, 8))
		return 0;
	v = (int64_t)be64_get(r->p);
	r->p += 8;
	return v;
}

/* An unsigned varint (flexible versions' lengths and tag counts). */
static uint64_t
cr_uvarint(struct cr *r)
{
	uint64_t v = 0;
	int shift = 0;

	while (cr_need(r, 1)) {
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0)
			return v;
		if ((shift += 7) > 63)
			break;
	}
	r->bad = 1;
	return 0;
}

/* A string or a nullable string (*s NULL for null). */
static void
cr_str(struct cr *r, const char **s, size_t *n, int nullable)
{
	int64_t len;

	*s = NULL;
	*n = 0;
	len = r->flexible ? (int64_t)cr_uvarint(r) - 1 : cr_i16(r);
	if (r->bad)
		return;
	if (len < 0) {
		if (!nullable)
			r->bad = 1;
		return;
	}
	if (!cr_need(r, (size_t)len))
		return;
	*s = (const char *)r->p;
	*n = (size_t)len;
	r->p += len;
}

static void
cr_blob(struct cr *r, const uint8_t **b, size_t *n)
{
	int64_t len = cr_i32(r);

	*b = NULL;
	*n = 0;
	if (r->bad || len < 0 || !cr_need(r, (size_t)len)) {
		r->bad = 1;
		return;
	}
	*b = r->p;
	*n = (size_t)len;
	r->p += len;
}

/* Tagged fields of a flexible version: skipped. */
static void
cr_tags(struct cr *r)
{
	uint64_t n = cr_uvarint(r), len;

	while (!r->bad && n-- > 0) {
		(void)cr_uvarint(r);
		len = cr_uvarint(r);
		if (cr_need(r, len))
			r->p += len;
	}
}

static int
cr_done(const struct cr *r)
{
	return r->bad || r->p != r->end ? -1 : 0;
}

int
coffsets_key_decode(const uint8_t *buf, size_t len, struct coffsets_key *k)
{
	struct cr r = { buf, buf + len, 0, 0 };

	memset(k, 0, sizeof(*k));
	k->version = cr_i16(&r);
	if (r.bad || k->version < 0 || k->version > COFFSETS_KEY_GROUP)
		return -1;
	cr_str(&r, &k->group, &k->group_len, 0);
	if (k->version != COFFSETS_KEY_GROUP) {
		cr_str(&r, &k->topic, &k->topic_len, 0);
		k->partition = cr_i32(&r);
	}
	return cr_done(&r);
}

int
coffsets_commit_decode(const uint8_t *buf, size_t len, struct coffsets_commit *v)
{
	struct cr r = { buf, buf + len, 0, 0 };

	memset(v, 0, sizeof(*v));
	v->version = cr_i16(&r);
	if (r.bad || v->version < 0 || v->version > 4)
		return -1;
	r.flexible = v->version >= 4;
	v->leader_epoch = -1;
	v->expire_ts = -1;
	v->offset = cr_i64(&r);
	if (v->version >= 3)
		v->leader_epoch = cr_i32(&r);
	cr_str(&r, &v->metadata, &v->metadata_len, 0);
	v->commit_ts = cr_i64(&r);
	if (v->version == 1)
		v->expire_ts = cr_i64(&r);
	if (r.flexible)
		cr_tags(&r);
	return cr_done(&r);
}

int
coffsets_group_decode(const uint8_t *buf, size_t len, struct coffsets_group *g,
    struct coffsets_member *members, int32_t cap)
{
	struct cr r = { buf, buf + len, 0, 0 };
	struct coffsets_member m;
	int32_t i;

	memset(g, 0, sizeof(*g));
	g->version = cr_i16(&r);
	if (r.bad || g->version < 0 || g->version > 3)
		return -1;
	g->state_ts = -1;
	cr_str(&r, &g->protocol_type, &g->protocol_type_len, 0);
	g->generation = cr_i32(&r);
	cr_str(&r, &g->protocol, &g->protocol_len, 1);
	cr_str(&r, &g->leader, &g->leader_len, 1);
	if (g->version >= 2)
		g->state_ts = cr_i64(&r);
	g->nmembers = cr_i32(&r);
	if (g->nmembers < 0)
		return -1;
	g->members = members;
	for (i = 0; i < g->nmembers && !r.bad; i++) {
		memset(&m, 0, sizeof(m));
		cr_str(&r, &m.id, &m.id_len, 0);
		if (g->version >= 3)
			cr_str(&r, &m.instance_id, &m.instance_id_len, 1);
		cr_str(&r, &m.client_id, &m.client_id_len, 0);
		cr_str(&r, &m.client_host, &m.client_host_len, 0);
		m.rebalance_timeout_ms = g->version >= 1 ? cr_i32(&r) : -1;
		m.session_timeout_ms = cr_i32(&r);
		cr_blob(&r, &m.subscription, &m.subscription_len);
		cr_blob(&r, &m.assignment, &m.assignment_len);
		if (i < cap && members != NULL)
			members[i] = m;
	}
	return cr_done(&r);
}
