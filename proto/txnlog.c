/*
 * __transaction_state's records (see txnlog.h).
 */
#include <string.h>

#include "proto/bytes.h"
#include "proto/txnlog.h"

/* Kafka's TransactionState names, by status byte. */
static const char *const state_names[TXNLOG_STATES] = {
	[0] = "Empty",
	[1] = "Ongoing",
	[2] = "PrepareCommit",
	[3] = "PrepareAbort",
	[4] = "CompleteCommit",
	[5] = "CompleteAbort",
	[6] = "Dead",
	[7] = "PrepareEpochFence",
};

const char *
txnlog_state_name(uint32_t st)
{
	return st < TXNLOG_STATES ? state_names[st] : NULL;
}

int
txnlog_state_parse(const char *name, size_t len)
{
	int i;

	for (i = 0; i < TXNLOG_STATES; i++)
		if (strlen(state_names[i]) == len &&
		    memcmp(state_names[i], name, len) == 0)
			return i;
	return -1;
}

/* A bounded writer: counts what does not fit, writes what does. */
struct tw {
	uint8_t	*p;
	size_t	 cap;
	size_t	 n;
};

static void
tw_bytes(struct tw *w, const void *b, size_t len)
{
	if (len > 0 && w->p != NULL && w->n <= w->cap &&
	    len <= w->cap - w->n)
		memcpy(w->p + w->n, b, len);
	w->n += len;
}

static void
tw_u8(struct tw *w, uint8_t v)
{
	tw_bytes(w, &v, 1);
}

static void
tw_16(struct tw *w, int16_t v)
{
	uint8_t b[2];

	be16_put(b, (uint16_t)v);
	tw_bytes(w, b, 2);
}

static void
tw_32(struct tw *w, int32_t v)
{
	uint8_t b[4];

	be32_put(b, (uint32_t)v);
	tw_bytes(w, b, 4);
}

static void
tw_64(struct tw *w, int64_t v)
{
	uint8_t b[8];

	be64_put(b, (uint64_t)v);
	tw_bytes(w, b, 8);
}

static void
tw_uvar(struct tw *w, uint64_t v)
{
	while (v >= 0x80) {
		tw_u8(w, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	tw_u8(w, (uint8_t)v);
}

static void
tw_cstr(struct tw *w, const char *s, size_t len)
{
	tw_uvar(w, (uint64_t)len + 1);
	tw_bytes(w, s, len);
}

size_t
txnlog_key(uint8_t *buf, size_t cap, const char *id, size_t len)
{
	struct tw w = { buf, cap, 0 };

	tw_16(&w, 0);
	tw_16(&w, (int16_t)len);
	tw_bytes(&w, id, len);
	return w.n;
}

/* The offsets tag's content (also to size it first). */
static void
offs_put(struct tw *w, const struct txnlog_value *v)
{
	uint32_t i;

	tw_uvar(w, (uint64_t)v->noffs + 1);
	for (i = 0; i < v->noffs; i++) {
		tw_cstr(w, v->offs[i].group, v->offs[i].group_len);
		tw_cstr(w, v->offs[i].topic, v->offs[i].topic_len);
		tw_32(w, v->offs[i].partition);
		tw_64(w, v->offs[i].offset);
	}
}

size_t
txnlog_value(uint8_t *buf, size_t cap, const struct txnlog_value *v)
{
	struct tw w = { buf, cap, 0 }, sz = { NULL, 0, 0 };
	uint32_t i;

	tw_16(&w, 1);
	tw_64(&w, v->pid);
	tw_16(&w, v->epoch);
	tw_32(&w, v->timeout_ms);
	tw_u8(&w, (uint8_t)v->status);
	/* One entry per partition: Kafka's reader takes them as a set. */
	tw_uvar(&w, (uint64_t)v->nparts + 1);
	for (i = 0; i < v->nparts; i++) {
		tw_cstr(&w, v->parts[i].topic, v->parts[i].topic_len);
		tw_uvar(&w, 2);
		tw_32(&w, v->parts[i].partition);
		tw_uvar(&w, 0);
	}
	tw_64(&w, v->update_ms);
	tw_64(&w, v->start_ms);
	if (v->noffs == 0) {
		tw_uvar(&w, 0);
		return w.n;
	}
	tw_uvar(&w, 1);
	tw_uvar(&w, TXNLOG_TAG_OFFSETS);
	offs_put(&sz, v);
	tw_uvar(&w, sz.n);
	offs_put(&w, v);
	return w.n;
}

/* A bounded reader: any read past the end sets bad. */
struct tr {
	const uint8_t	*p;
	size_t		 len;
	size_t		 pos;
	int		 bad;
};

static const uint8_t *
tr_take(struct tr *r, size_t n)
{
	const uint8_t *q;

	if (r->bad || n > r->len - r->pos) {
		r->bad = 1;
		return NULL;
	}
	q = r->p + r->pos;
	r->pos += n;
	return q;
}

static int64_t
tr_be(struct tr *r, size_t n)
{
	const uint8_t *q = tr_take(r, n);

	if (q == NULL)
		return 0;
	return n == 1 ? (int8_t)q[0] : n == 2 ? (int16_t)be16_get(q) :
	    n == 4 ? (int32_t)be32_get(q) : (int64_t)be64_get(q);
}

static uint64_t
tr_uvar(struct tr *r)
{
	uint64_t v = 0;
	const uint8_t *q;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		if ((q = tr_take(r, 1)) == NULL)
			return 0;
		v |= (uint64_t)(*q & 0x7f) << shift;
		if (!(*q & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

/* A string: compact (flexible) or i16 length; never null here. */
static const char *
tr_str(struct tr *r, int flexible, size_t *len)
{
	int64_t n = flexible ? (int64_t)tr_uvar(r) - 1 : tr_be(r, 2);
	const uint8_t *q;

	if (n < 0 || r->bad) {
		r->bad = 1;
		return NULL;
	}
	*len = (size_t)n;
	q = tr_take(r, (size_t)n);
	return (const char *)q;
}

/* Array length: compact or i32; -1 null. */
static int64_t
tr_alen(struct tr *r, int flexible)
{
	int64_t n = flexible ? (int64_t)tr_uvar(r) - 1 : tr_be(r, 4);

	if (n < -1 || n > (int64_t)(r->len - r->pos))
		r->bad = 1;
	return n;
}

static void
tr_skip_tags(struct tr *r)
{
	uint64_t n = tr_uvar(r), i, sz;

	for (i = 0; i < n && !r->bad; i++) {
		(void)tr_uvar(r);
		sz = tr_uvar(r);
		(void)tr_take(r, (size_t)sz);
	}
}

int
txnlog_key_decode(const uint8_t *buf, size_t len, const char **id,
    size_t *id_len)
{
	struct tr r = { buf, len, 0, 0 };

	if (tr_be(&r, 2) != 0)
		return -1;
	*id = tr_str(&r, 0, id_len);
	return r.bad || r.pos != len ? -1 : 0;
}

static void
offs_get(struct tr *r, struct txnlog_value *v, uint32_t cap)
{
	int64_t n = tr_alen(r, 1), i;

	if (n < 0 || n > cap) {
		r->bad = 1;
		return;
	}
	for (i = 0; i < n && !r->bad; i++) {
		struct txnlog_off *o = &v->offs[i];

		o->group = tr_str(r, 1, &o->group_len);
		o->topic = tr_str(r, 1, &o->topic_len);
		o->partition = (int32_t)tr_be(r, 4);
		o->offset = tr_be(r, 8);
	}
	v->noffs = (uint32_t)n;
}

int
txnlog_value_decode(const uint8_t *buf, size_t len, struct txnlog_value *v,
    uint32_t part_cap, uint32_t off_cap)
{
	struct tr r = { buf, len, 0, 0 };
	int64_t ver, nt, np, i, j;
	int flex;
	const char *topic;
	size_t tl = 0;
	uint64_t ntags, k, tag, sz;
	size_t end;

	ver = tr_be(&r, 2);
	if (ver != 0 && ver != 1)
		return -1;
	flex = ver >= 1;
	v->nparts = 0;
	v->noffs = 0;
	v->pid = tr_be(&r, 8);
	v->epoch = (int16_t)tr_be(&r, 2);
	v->timeout_ms = (int32_t)tr_be(&r, 4);
	v->status = (int8_t)tr_be(&r, 1);
	nt = tr_alen(&r, flex);
	for (i = 0; i < nt && !r.bad; i++) {
		topic = tr_str(&r, flex, &tl);
		np = tr_alen(&r, flex);
		for (j = 0; j < np && !r.bad; j++) {
			if (v->nparts >= part_cap) {
				r.bad = 1;
				break;
			}
			v->parts[v->nparts].topic = topic;
			v->parts[v->nparts].topic_len = tl;
			v->parts[v->nparts].partition = (int32_t)tr_be(&r, 4);
			v->nparts++;
		}
		if (flex)
			tr_skip_tags(&r);
	}
	v->update_ms = tr_be(&r, 8);
	v->start_ms = tr_be(&r, 8);
	if (flex) {
		ntags = tr_uvar(&r);
		for (k = 0; k < ntags && !r.bad; k++) {
			tag = tr_uvar(&r);
			sz = tr_uvar(&r);
			if (r.bad || sz > len - r.pos) {
				r.bad = 1;
				break;
			}
			end = r.pos + (size_t)sz;
			if (tag == TXNLOG_TAG_OFFSETS) {
				offs_get(&r, v, off_cap);
				if (r.pos != end)
					r.bad = 1;
			}
			r.pos = end;
		}
	}
	if (r.bad || r.pos != len || v->status < 0)
		return -1;
	return 0;
}
