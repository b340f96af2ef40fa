/*
 * Kafka's consumer group protocol (KIP-848): see shm/cgroup.h.  Called
 * by workers (ConsumerGroupHeartbeat, worker/kafka/cgroup.c) and,
 * through group_tick(), by the writer, which expires silent members.
 * Every function runs under the group's lock.
 */
#include <bsd/stdlib.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/kafka/kapi.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "shm/topics.h"

#define CG_HDR	12	/* three u32 counts before the lists */

static int
active(const struct shm_member *m)
{
	return atomic_load_explicit(&m->state, memory_order_relaxed) ==
	    MEMBER_ACTIVE;
}

static uint32_t
nmem(const struct shm *s)
{
	return s->hdr->limits.max_group_members;
}

/* Entries of each of a member's three lists. */
static uint32_t
list_cap(const struct shm *s)
{
	uint32_t m = s->hdr->limits.member_meta;

	return m > CG_HDR ? (m - CG_HDR) / sizeof(struct cg_tp) / 3 : 0;
}

/* Is (topic, partition) a partition of a READY topic? */
static int
tp_valid(const struct shm *s, const struct cg_tp *tp)
{
	const struct shm_topic *t;

	if (tp->topic >= s->hdr->limits.max_topics || tp->partition < 0)
		return 0;
	t = &s->topics[tp->topic];
	return atomic_load_explicit(&t->state, memory_order_acquire) ==
	    TOPIC_READY && tp->partition < t->partitions;
}

uint32_t
cgroup_list(const struct shm *s, struct shm_group *g, uint32_t i, int which,
    struct cg_tp *out, uint32_t cap)
{
	const uint8_t *p = group_assign(s, g, i);
	uint32_t n[3], k, c = list_cap(s);

	if (p == NULL || which < 0 || which > 2)
		return 0;
	memcpy(n, p, sizeof(n));
	if (n[which] > c)
		return 0;	/* a torn slot: nothing (repair drops it) */
	for (k = 0; k < n[which] && k < cap; k++)
		memcpy(&out[k], p + CG_HDR + ((size_t)which * c + k) *
		    sizeof(struct cg_tp), sizeof(struct cg_tp));
	return n[which];
}

/* Store list which of member i (at most list_cap()). */
static void
list_set(const struct shm *s, struct shm_group *g, uint32_t i, int which,
    const struct cg_tp *v, uint32_t n)
{
	uint8_t *p = group_assign(s, g, i);
	uint32_t c = list_cap(s);

	if (p == NULL)
		return;
	if (n > c)
		n = c;
	if (n > 0)
		memcpy(p + CG_HDR + (size_t)which * c * sizeof(struct cg_tp), v,
		    n * sizeof(struct cg_tp));
	memcpy(p + (size_t)which * 4, &n, 4);
	group_member_at(s, g, i)->assign_len = CG_HDR + 3 * c *
	    (uint32_t)sizeof(struct cg_tp);
}

static void
lists_clear(const struct shm *s, struct shm_group *g, uint32_t i)
{
	list_set(s, g, i, CG_ASSIGNED, NULL, 0);
	list_set(s, g, i, CG_REVOKING, NULL, 0);
	list_set(s, g, i, CG_TARGET, NULL, 0);
}

static int
tp_in(const struct cg_tp *v, uint32_t n, const struct cg_tp *tp)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (v[k].topic == tp->topic && v[k].partition == tp->partition)
			return 1;
	return 0;
}

/* ---- subscriptions ---- */

static int
classic(const struct shm_member *m)
{
	return (m->kflags & KMEMBER_CLASSIC) != 0;
}

/*
 * Where member i's subscription starts in its metadata space: after its
 * protocols ([u16 len][name][u32 len][metadata] each) for a classic
 * member, else 0.  A torn walk ends at meta_len (no subscription).
 */
static size_t
sub_base(const struct shm *s, struct shm_group *g, uint32_t i)
{
	struct shm_member *m = group_member_at(s, g, i);
	const uint8_t *p = group_meta(s, g, i);
	size_t off = 0, end, l;
	uint32_t k;

	if (m == NULL || p == NULL || !classic(m))
		return 0;
	end = m->meta_len <= s->hdr->limits.member_meta ? m->meta_len : 0;
	for (k = 0; k < m->nprotocols; k++) {
		if (end - off < 2)
			return end;
		l = (size_t)p[off] << 8 | p[off + 1];
		off += 2;
		if (end - off < l + 4)
			return end;
		off += l;
		l = (size_t)p[off] << 24 | (size_t)p[off + 1] << 16 |
		    (size_t)p[off + 2] << 8 | p[off + 3];
		off += 4;
		if (end - off < l)
			return end;
		off += l;
	}
	return off;
}

/*
 * The metadata space holds [u16 regex len, 0xffff none][regex][u16 n]
 * {[u16 len][name]} x n.
 */
int
cgroup_subscription(const struct shm *s, struct shm_group *g, uint32_t i,
    const char **regex, size_t *rlen, const char **names, size_t *lens,
    uint32_t cap, uint32_t *n)
{
	struct shm_member *m = group_member_at(s, g, i);
	const uint8_t *p = group_meta(s, g, i);
	size_t end, off = 0, l, base;
	uint32_t k, cnt;

	*regex = NULL;
	*rlen = 0;
	*n = 0;
	if (m == NULL || p == NULL || m->meta_len > s->hdr->limits.member_meta)
		return -1;
	base = sub_base(s, g, i);
	p += base;
	end = m->meta_len - base;
	if (end < 4)
		return end == 0 ? 0 : -1;
	l = (size_t)p[0] << 8 | p[1];
	off = 2;
	if (l != 0xffff) {
		if (end - off < l)
			return -1;
		*regex = (const char *)p + off;
		*rlen = l;
		off += l;
	}
	if (end - off < 2)
		return -1;
	cnt = (uint32_t)p[off] << 8 | p[off + 1];
	off += 2;
	for (k = 0; k < cnt; k++) {
		if (end - off < 2)
			return -1;
		l = (size_t)p[off] << 8 | p[off + 1];
		off += 2;
		if (end - off < l)
			return -1;
		if (k < cap) {
			names[k] = (const char *)p + off;
			lens[k] = l;
		}
		off += l;
	}
	*n = cnt < cap ? cnt : cap;
	return 0;
}

/* A compiled whole-name regex; 0 or -1. */
static int
regex_compile(regex_t *re, const char *src, size_t len)
{
	char buf[CG_REGEX_MAX + 8];

	if (len > CG_REGEX_MAX)
		return -1;
	buf[0] = '^';
	buf[1] = '(';
	memcpy(buf + 2, src, len);
	buf[len + 2] = ')';
	buf[len + 3] = '$';
	buf[len + 4] = '\0';
	if (memchr(src, '\0', len) != NULL)
		return -1;
	return regcomp(re, buf, REG_EXTENDED | REG_NOSUB) == 0 ? 0 : -1;
}

int
cgroup_regex_valid(const char *re, size_t len)
{
	regex_t r;

	if (regex_compile(&r, re, len) == -1)
		return 0;
	regfree(&r);
	return 1;
}

/* One member's subscription, ready to match. */
struct sub {
	const char	*names[CG_NAMES_MAX];
	size_t		 lens[CG_NAMES_MAX];
	uint32_t	 n;
	int		 has_re;
	regex_t		 re;
};

static void
sub_load(const struct shm *s, struct shm_group *g, uint32_t i, struct sub *u)
{
	const char *r;
	size_t rl;

	u->has_re = 0;
	if (cgroup_subscription(s, g, i, &r, &rl, u->names, u->lens,
	    CG_NAMES_MAX, &u->n) == -1) {
		u->n = 0;
		return;
	}
	if (r != NULL && regex_compile(&u->re, r, rl) == 0)
		u->has_re = 1;
}

static void
sub_free(struct sub *u)
{
	if (u->has_re)
		regfree(&u->re);
	u->has_re = 0;
}

static int
sub_match(const struct sub *u, const char *name, size_t len)
{
	uint32_t k;

	for (k = 0; k < u->n; k++)
		if (u->lens[k] == len && memcmp(u->names[k], name, len) == 0)
			return 1;
	return u->has_re && regexec(&u->re, name, 0, NULL, 0) == 0;
}

/*
 * Encode a subscription (names, regex: NULL none) into buf (cap): its
 * length, or 0 when it does not fit.
 */
static size_t
sub_encode(uint8_t *buf, size_t cap, const char *const *names,
    const size_t *lens, uint32_t n, const char *re, size_t rlen)
{
	size_t off = 0;
	uint32_t k;

	if (cap < 4 || n > CG_NAMES_MAX)
		return 0;
	if (re == NULL) {
		buf[0] = buf[1] = 0xff;
		off = 2;
	} else {
		if (rlen >= 0xffff || cap - 2 < rlen + 2)
			return 0;
		buf[0] = (uint8_t)(rlen >> 8);
		buf[1] = (uint8_t)rlen;
		memcpy(buf + 2, re, rlen);
		off = 2 + rlen;
	}
	if (cap - off < 2)
		return 0;
	buf[off] = (uint8_t)(n >> 8);
	buf[off + 1] = (uint8_t)n;
	off += 2;
	for (k = 0; k < n; k++) {
		if (lens[k] >= 0xffff || cap - off < 2 + lens[k])
			return 0;
		buf[off] = (uint8_t)(lens[k] >> 8);
		buf[off + 1] = (uint8_t)lens[k];
		memcpy(buf + off + 2, names[k], lens[k]);
		off += 2 + lens[k];
	}
	return off;
}

/* ---- the target assignment ---- */

static int
member_cmp(const struct shm *s, struct shm_group *g, uint32_t a, uint32_t b)
{
	const struct shm_member *x = group_member_at(s, g, a);
	const struct shm_member *y = group_member_at(s, g, b);
	size_t l = x->id_len < y->id_len ? x->id_len : y->id_len;
	int c = memcmp(x->id, y->id, l);

	return c != 0 ? c : (int)x->id_len - (int)y->id_len;
}

struct calc {
	uint32_t	 nm;		/* members, sorted by id */
	uint32_t	*idx;		/* their slot indexes */
	struct sub	*sub;
	uint32_t	 ntp;		/* partitions of subscribed topics */
	struct cg_tp	*tp;
	uint8_t		*elig;		/* [tp][member]: subscribed */
	int32_t		*owner;		/* [tp]: member (position), -1 */
	uint32_t	*count;		/* [member] */
	uint64_t	 hash;
};

static void
calc_free(struct calc *c)
{
	uint32_t k;

	for (k = 0; c->sub != NULL && k < c->nm; k++)
		sub_free(&c->sub[k]);
	free(c->idx);
	free(c->sub);
	free(c->tp);
	free(c->elig);
	free(c->owner);
	free(c->count);
	memset(c, 0, sizeof(*c));
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n-- > 0)
		h = (h ^ *b++) * 1099511628211ull;
	return h;
}

/*
 * The members, their subscriptions and the partitions of the topics
 * they subscribe to (with the hash of those topics' identity and size;
 * the hash alone unless full).  0, or -1 when memory ran out.
 */
static int
calc_load(struct shm *s, struct shm_group *g, struct calc *c, int full)
{
	uint32_t i, j, t, nt = s->hdr->limits.max_topics, cap;
	const struct shm_topic *tp;
	uint32_t x;
	int any;

	memset(c, 0, sizeof(*c));
	c->hash = 1469598103934665603ull;
	if ((c->idx = calloc(nmem(s), sizeof(*c->idx))) == NULL ||
	    (c->sub = calloc(nmem(s), sizeof(*c->sub))) == NULL)
		return -1;
	for (i = 0; i < nmem(s); i++)
		if (active(group_member_at(s, g, i)))
			c->idx[c->nm++] = i;
	/* Insertion sort by id: at most max_group_members. */
	for (i = 1; i < c->nm; i++)
		for (j = i; j > 0 && member_cmp(s, g, c->idx[j - 1],
		    c->idx[j]) > 0; j--) {
			x = c->idx[j];
			c->idx[j] = c->idx[j - 1];
			c->idx[j - 1] = x;
		}
	for (i = 0; i < c->nm; i++)
		sub_load(s, g, c->idx[i], &c->sub[i]);
	cap = full ? s->hdr->limits.max_partitions : 0;
	if (full && ((c->tp = calloc(cap > 0 ? cap : 1, sizeof(*c->tp))) == NULL ||
	    (c->elig = calloc((size_t)(cap > 0 ? cap : 1) *
	    (c->nm > 0 ? c->nm : 1), 1)) == NULL ||
	    (c->owner = calloc(cap > 0 ? cap : 1, sizeof(*c->owner))) == NULL ||
	    (c->count = calloc(c->nm > 0 ? c->nm : 1, sizeof(*c->count))) ==
	    NULL))
		return -1;
	for (t = 0; t < nt; t++) {
		int32_t p, np;

		tp = &s->topics[t];
		if (atomic_load_explicit(&tp->state, memory_order_acquire) !=
		    TOPIC_READY || tp->name_len > TOPIC_NAME_MAX)
			continue;
		any = 0;
		for (i = 0; i < c->nm; i++)
			if (sub_match(&c->sub[i], tp->name, tp->name_len))
				any = 1;
		if (!any)
			continue;
		np = tp->partitions;
		x = group_topic_incarnation(s, t);
		c->hash = fnv(c->hash, &t, sizeof(t));
		c->hash = fnv(c->hash, &x, sizeof(x));
		c->hash = fnv(c->hash, &np, sizeof(np));
		for (p = 0; p < np && c->ntp < cap; p++) {
			c->tp[c->ntp].topic = t;
			c->tp[c->ntp].partition = p;
			for (i = 0; i < c->nm; i++)
				c->elig[(size_t)c->ntp * c->nm + i] = (uint8_t)
				    sub_match(&c->sub[i], tp->name, tp->name_len);
			c->owner[c->ntp] = -1;
			c->ntp++;
		}
	}
	return 0;
}

static int
elig(const struct calc *c, uint32_t p, uint32_t m)
{
	return c->elig[(size_t)p * c->nm + m];
}

/* Per topic, consecutive ranges over its subscribers sorted by id. */
static void
assign_range(struct calc *c, uint32_t cap)
{
	uint32_t p = 0, q, k, nsub, per, extra, j, want, pos;

	while (p < c->ntp) {
		for (q = p; q < c->ntp && c->tp[q].topic == c->tp[p].topic; q++)
			;
		nsub = 0;
		for (k = 0; k < c->nm; k++)
			if (elig(c, p, k))
				nsub++;
		if (nsub > 0) {
			per = (q - p) / nsub;
			extra = (q - p) % nsub;
			pos = p;
			for (k = 0, j = 0; k < c->nm; k++) {
				if (!elig(c, p, k))
					continue;
				want = per + (j < extra ? 1 : 0);
				j++;
				while (want-- > 0 && pos < q) {
					if (c->count[k] < cap) {
						c->owner[pos] = (int32_t)k;
						c->count[k]++;
					}
					pos++;
				}
			}
		}
		p = q;
	}
}

/*
 * Balanced and sticky: every member keeps its previous target up to the
 * even share, the rest goes to the eligible member with the fewest, and
 * partitions move from a member with two more than an eligible other.
 */
static void
assign_uniform(struct shm *s, struct shm_group *g, struct calc *c,
    uint32_t cap)
{
	struct cg_tp *prev;
	uint32_t k, p, np, j, nsubbed = 0, share, best, moves;
	int moved;

	for (k = 0; k < c->nm; k++)
		for (p = 0; p < c->ntp; p++)
			if (elig(c, p, k)) {
				nsubbed++;
				break;
			}
	share = nsubbed > 0 ? (c->ntp + nsubbed - 1) / nsubbed : 0;
	if ((prev = calloc(list_cap(s) > 0 ? list_cap(s) : 1,
	    sizeof(*prev))) != NULL) {
		for (k = 0; k < c->nm; k++) {
			np = cgroup_list(s, g, c->idx[k], CG_TARGET, prev,
			    list_cap(s));
			if (np > list_cap(s))
				np = list_cap(s);
			for (p = 0; p < c->ntp; p++) {
				if (c->owner[p] != -1 || !elig(c, p, k) ||
				    c->count[k] >= share || c->count[k] >= cap ||
				    !tp_in(prev, np, &c->tp[p]))
					continue;
				c->owner[p] = (int32_t)k;
				c->count[k]++;
			}
		}
		free(prev);
	}
	for (p = 0; p < c->ntp; p++) {
		if (c->owner[p] != -1)
			continue;
		best = UINT32_MAX;
		for (k = 0; k < c->nm; k++)
			if (elig(c, p, k) && c->count[k] < cap &&
			    (best == UINT32_MAX || c->count[k] < c->count[best]))
				best = k;
		if (best != UINT32_MAX) {
			c->owner[p] = (int32_t)best;
			c->count[best]++;
		}
	}
	for (moves = 0, moved = 1; moved && moves < c->ntp * 4 + 4; moves++) {
		moved = 0;
		for (p = 0; p < c->ntp && !moved; p++) {
			if (c->owner[p] < 0)
				continue;
			k = (uint32_t)c->owner[p];
			for (j = 0; j < c->nm; j++)
				if (j != k && elig(c, p, j) && c->count[j] < cap &&
				    c->count[k] > c->count[j] + 1) {
					c->owner[p] = (int32_t)j;
					c->count[k]--;
					c->count[j]++;
					moved = 1;
					break;
				}
		}
	}
}

/* The assignor the members ask for most, else the group's default. */
static uint32_t
pick_assignor(const struct shm *s, struct shm_group *g,
    const struct group_params *gp)
{
	uint32_t votes[3] = { 0, 0, 0 }, i, a;

	for (i = 0; i < nmem(s); i++) {
		a = group_member_at(s, g, i)->cg_assignor;
		if (active(group_member_at(s, g, i)) && a > 0 && a < 3)
			votes[a]++;
	}
	if (votes[CG_ASSIGNOR_UNIFORM] == 0 && votes[CG_ASSIGNOR_RANGE] == 0)
		return gp->cg_assignor == CG_ASSIGNOR_RANGE ?
		    CG_ASSIGNOR_RANGE : CG_ASSIGNOR_UNIFORM;
	return votes[CG_ASSIGNOR_RANGE] > votes[CG_ASSIGNOR_UNIFORM] ?
	    CG_ASSIGNOR_RANGE : CG_ASSIGNOR_UNIFORM;
}

/* Compute every member's target at the group epoch; 0 or -1 (memory). */
static int
compute_targets(struct shm *s, struct shm_group *g,
    const struct group_params *gp)
{
	struct calc c;
	struct cg_tp *v;
	uint32_t k, p, n, cap = list_cap(s);

	if (calc_load(s, g, &c, 1) == -1 ||
	    (v = calloc(cap > 0 ? cap : 1, sizeof(*v))) == NULL) {
		calc_free(&c);
		return -1;
	}
	g->cg_assignor = pick_assignor(s, g, gp);
	if (g->cg_assignor == CG_ASSIGNOR_RANGE)
		assign_range(&c, cap);
	else
		assign_uniform(s, g, &c, cap);
	for (k = 0; k < c.nm; k++) {
		for (p = 0, n = 0; p < c.ntp; p++)
			if (c.owner[p] == (int32_t)k && n < cap)
				v[n++] = c.tp[p];
		list_set(s, g, c.idx[k], CG_TARGET, v, n);
	}
	g->cg_topics_hash = c.hash;
	/* Last: a crash before leaves the epoch behind, computed again. */
	g->cg_assign_epoch = g->generation;
	free(v);
	calc_free(&c);
	return 0;
}

/* The hash of the subscribed topics now (0 on a memory failure). */
static uint64_t
topics_hash(struct shm *s, struct shm_group *g)
{
	struct calc c;
	uint64_t h = 0;

	if (calc_load(s, g, &c, 0) == 0)
		h = c.hash;
	calc_free(&c);
	return h;
}

/* ---- members ---- */

static void
bump(struct shm_group *g)
{
	g->generation++;
}

static void downgrade_finish(struct shm *, struct shm_group *, int64_t,
    const struct group_params *);

/*
 * Member i leaves (a leave, an expiry, a missed revocation).  When it is
 * the last member of the consumer protocol and classic members remain,
 * the group becomes a classic one if the policy allows it (Kafka's
 * validateOnlineDowngradeWithFencedMember): 1, else 0.
 */
static int
member_remove(struct shm *s, struct shm_group *g, uint32_t i, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m = group_member_at(s, g, i);
	uint32_t k, left = 0, classics = 0;

	for (k = 0; k < nmem(s); k++)
		if (k != i && active(group_member_at(s, g, k))) {
			left++;
			if (classic(group_member_at(s, g, k)))
				classics++;
		}
	if (!classic(m) && left > 0 && classics == left &&
	    (gp->cg_migration & CG_POLICY_DOWNGRADE)) {
		/* First, so that a repair finishes what this starts. */
		g->cg_migrating = CG_MIGRATE_DOWN;
		atomic_store_explicit(&m->state, MEMBER_FREE,
		    memory_order_release);
		downgrade_finish(s, g, now, gp);
		return 1;
	}
	atomic_store_explicit(&m->state, MEMBER_FREE, memory_order_release);
	bump(g);
	g->state = group_member_count(s, g) > 0 ? GROUP_STABLE : GROUP_EMPTY;
	return 0;
}

/* Is any partition of v held (assigned or revoking) by a member but skip? */
static int
held_by_other(const struct shm *s, struct shm_group *g, uint32_t skip,
    const struct cg_tp *tp, struct cg_tp *buf, uint32_t cap)
{
	uint32_t i, n;

	for (i = 0; i < nmem(s); i++) {
		if (i == skip || !active(group_member_at(s, g, i)))
			continue;
		n = cgroup_list(s, g, i, CG_ASSIGNED, buf, cap);
		if (tp_in(buf, n < cap ? n : cap, tp))
			return 1;
		n = cgroup_list(s, g, i, CG_REVOKING, buf, cap);
		if (tp_in(buf, n < cap ? n : cap, tp))
			return 1;
	}
	return 0;
}

/*
 * Move member i toward its target (shm/cgroup.h: revoke, then assign).
 * owned: the partitions its heartbeat says it owns (NULL: not said).
 * 0, or -1 when memory ran out (nothing changed).
 */
static int
reconcile(struct shm *s, struct shm_group *g, uint32_t i,
    const struct cg_tp *owned, uint32_t nowned, int64_t now)
{
	struct shm_member *m = group_member_at(s, g, i);
	uint32_t cap = list_cap(s), na, nr, nt, k, n2;
	struct cg_tp *a, *r, *t, *x, *buf;
	int rc = -1, released;

	a = calloc(cap + 1, sizeof(*a));
	r = calloc(cap + 1, sizeof(*r));
	t = calloc(cap + 1, sizeof(*t));
	x = calloc(cap + 1, sizeof(*x));
	buf = calloc(cap + 1, sizeof(*buf));
	if (a == NULL || r == NULL || t == NULL || x == NULL || buf == NULL)
		goto out;
	rc = 0;
	na = cgroup_list(s, g, i, CG_ASSIGNED, a, cap);
	nr = cgroup_list(s, g, i, CG_REVOKING, r, cap);
	nt = cgroup_list(s, g, i, CG_TARGET, t, cap);
	if (nr > 0) {
		released = owned != NULL;
		for (k = 0; released && k < nr; k++)
			if (tp_in(owned, nowned, &r[k]))
				released = 0;
		if (!released)
			goto out;	/* still revoking: epoch and list stay */
		list_set(s, g, i, CG_REVOKING, NULL, 0);
		nr = 0;
	}
	/* Revoke what the target no longer has (and what no longer exists). */
	for (k = 0, n2 = 0; k < na; k++)
		if (!tp_in(t, nt, &a[k]) || !tp_valid(s, &a[k]))
			r[nr++] = a[k];
		else
			x[n2++] = a[k];
	/*
	 * Kafka's ownsRevokedPartitions: a member whose heartbeat (or a
	 * classic member's rejoin) says it owns none of them has given them
	 * up already.
	 */
	for (k = 0, released = owned != NULL; released && k < nr; k++)
		if (tp_in(owned, nowned, &r[k]))
			released = 0;
	if (nr > 0 && released)
		nr = 0;
	if (nr > 0) {
		list_set(s, g, i, CG_REVOKING, r, nr);
		list_set(s, g, i, CG_ASSIGNED, x, n2);
		m->cg_revoke_deadline = now + (m->rebalance_timeout_ms > 0 ?
		    m->rebalance_timeout_ms : 30000);
		goto out;
	}
	/* Then add what nobody else holds. */
	for (k = 0; k < nt && n2 < cap; k++)
		if (!tp_in(x, n2, &t[k]) && tp_valid(s, &t[k]) &&
		    !held_by_other(s, g, i, &t[k], buf, cap))
			x[n2++] = t[k];
	list_set(s, g, i, CG_ASSIGNED, x, n2);
	if (m->cg_epoch != (int32_t)g->cg_assign_epoch) {
		m->cg_prev_epoch = m->cg_epoch;
		m->cg_epoch = (int32_t)g->cg_assign_epoch;
	}
out:
	free(a);
	free(r);
	free(t);
	free(x);
	free(buf);
	return rc;
}

/* Member id: 16 random bytes as 22 characters of URL-safe base64 (Kafka's Uuid). */
static size_t
member_id_new(const struct shm *s, struct shm_group *g, char *out)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz0123456789-_";
	uint8_t r[17];
	uint32_t v;
	size_t n, k;
	int tries;

	for (tries = 0; ; tries++) {
		arc4random_buf(r, 16);
		r[16] = 0;
		for (k = 0, n = 0; k < 16 && n < 22; k += 3) {
			v = (uint32_t)r[k] << 16 | (uint32_t)r[k + 1] << 8 |
			    (k + 2 < 17 ? r[k + 2] : 0);
			out[n++] = b64[(v >> 18) & 63];
			out[n++] = b64[(v >> 12) & 63];
			if (n < 22)
				out[n++] = b64[(v >> 6) & 63];
			if (n < 22)
				out[n++] = b64[v & 63];
		}
		out[22] = '\0';
		if (out[0] != '-' && (group_member_find(s, g, out, 22) == -1 ||
		    tries >= 3))
			return 22;
	}
}

static int
find_instance(const struct shm *s, struct shm_group *g, const char *inst,
    size_t len)
{
	struct shm_member *m;
	uint32_t i;

	for (i = 0; inst != NULL && len > 0 && i < nmem(s); i++) {
		m = group_member_at(s, g, i);
		if (active(m) && m->instance_len == len &&
		    memcmp(m->instance, inst, len) == 0)
			return (int)i;
	}
	return -1;
}

/*
 * The member's client id and host, as its request says: Kafka sets both
 * on every heartbeat, so a static member taken over by a new instance
 * shows the new one's.
 */
static void
member_client(struct shm_member *m, const struct cgroup_hb_in *in)
{
	memset(m->client, 0, sizeof(m->client));
	if (in->client_id_len > 0)
		memcpy(m->client, in->client_id, in->client_id_len);
	m->client_len = (uint16_t)in->client_id_len;
	m->host_len = (uint16_t)(in->host_len > MEMBER_HOST_MAX ?
	    MEMBER_HOST_MAX : in->host_len);
	if (m->host_len > 0)
		memcpy(m->host, in->host, m->host_len);
	m->host[m->host_len] = '\0';
}

/* A new member's slot (filled, not yet published), or -1 (full). */
static int
member_new(struct shm *s, struct shm_group *g, const struct cgroup_hb_in *in,
    const struct group_params *gp)
{
	struct shm_member *m;
	uint32_t i, max = gp->cg_max_size > 0 && gp->cg_max_size < nmem(s) ?
	    gp->cg_max_size : nmem(s);

	if (group_member_count(s, g) >= max)
		return -1;
	for (i = 0; i < nmem(s); i++)
		if (!active(group_member_at(s, g, i)))
			break;
	if (i == nmem(s))
		return -1;
	m = group_member_at(s, g, i);
	memset(m->id, 0, sizeof(m->id));
	if (in->member_id_len > 0) {
		memcpy(m->id, in->member_id, in->member_id_len);
		m->id_len = (uint16_t)in->member_id_len;
	} else
		m->id_len = (uint16_t)member_id_new(s, g, m->id);
	member_client(m, in);
	memset(m->instance, 0, sizeof(m->instance));
	m->instance_len = (uint16_t)(in->instance != NULL ? in->instance_len : 0);
	if (m->instance_len > 0)
		memcpy(m->instance, in->instance, m->instance_len);
	m->kflags = 0;
	m->nprotocols = 0;
	m->meta_len = 0;
	m->ntopics = 0;
	m->joined_gen = 0;
	m->cg_epoch = 0;
	m->cg_prev_epoch = 0;
	m->cg_revoke_deadline = 0;
	m->cg_assignor = 0;
	m->rebalance_timeout_ms = in->rebalance_timeout_ms;
	lists_clear(s, g, i);
	return (int)i;
}

/*
 * Store in's subscription changes into member i: 1 when it changed, 0
 * not, -1 when it does not fit its metadata space.
 */
static int
sub_update(struct shm *s, struct shm_group *g, uint32_t i,
    const struct cgroup_hb_in *in)
{
	struct shm_member *m = group_member_at(s, g, i);
	const char *names[CG_NAMES_MAX], *re;
	size_t lens[CG_NAMES_MAX], rl, len, base = sub_base(s, g, i);
	uint32_t n, cap = s->hdr->limits.member_meta - (uint32_t)base;
	uint8_t *buf, *p = group_meta(s, g, i);
	int changed;

	if (!in->names_set && in->regex == NULL)
		return 0;
	if (p == NULL)
		return -1;
	p += base;
	(void)cgroup_subscription(s, g, i, &re, &rl, names, lens,
	    CG_NAMES_MAX, &n);
	if ((buf = malloc(cap)) == NULL)
		return -1;
	len = sub_encode(buf, cap, in->names_set ? in->names : names,
	    in->names_set ? in->name_lens : lens, in->names_set ? in->nnames :
	    n, in->regex != NULL ? (in->regex_len > 0 ? in->regex : NULL) : re,
	    in->regex != NULL ? in->regex_len : rl);
	if (len == 0) {
		free(buf);
		return -1;
	}
	changed = len != m->meta_len - base || memcmp(buf, p, len) != 0;
	if (changed) {
		memcpy(p, buf, len);
		m->meta_len = (uint32_t)(base + len);
	}
	free(buf);
	return changed;
}

int16_t
cgroup_heartbeat(struct shm *s, struct shm_group *g,
    const struct cgroup_hb_in *in, int64_t now, const struct group_params *gp,
    int *member)
{
	struct shm_member *m;
	struct cg_tp *buf;
	uint32_t n, k, cap = list_cap(s);
	int idx = -1, fresh = 0, changed, ok;

	if (g->kind != GROUP_KIND_CONSUMER) {
		(void)group_tick(s, g, now, gp);
		if (group_member_count(s, g) > 0)
			return KERR_GROUP_ID_NOT_FOUND;	/* "not a consumer group" */
		/* Empty (classic, native or only offsets): it becomes one. */
		g->kind = GROUP_KIND_CONSUMER;
		g->state = GROUP_EMPTY;
		g->leader = -1;
		g->ntopics = 0;
		g->cg_assign_epoch = g->generation;
		g->cg_topics_hash = 0;
	}
	(void)cgroup_tick(s, g, now, gp);
	if (g->kind != GROUP_KIND_CONSUMER)
		return KERR_COORDINATOR_NOT_AVAILABLE;	/* downgraded: ask again */
	if (in->member_id_len > 0)
		idx = group_member_find(s, g, in->member_id, in->member_id_len);
	if (in->epoch == -1 || in->epoch == -2) {
		if (idx == -1)
			return KERR_UNKNOWN_MEMBER_ID;
		m = group_member_at(s, g, (uint32_t)idx);
		*member = idx;
		if (in->epoch == -1) {
			if (!member_remove(s, g, (uint32_t)idx, now, gp))
				(void)cgroup_tick(s, g, now, gp);
		} else if (m->cg_epoch != -2) {
			/* A static member away: it keeps its place till its session ends. */
			m->cg_prev_epoch = m->cg_epoch;
			m->cg_epoch = -2;
			m->last_seen_ms = now;
		}
		return KERR_NONE;
	}
	if (in->epoch == 0) {
		k = (uint32_t)find_instance(s, g, in->instance,
		    in->instance != NULL ? in->instance_len : 0);
		if ((int)k >= 0 && (int)k != idx) {
			m = group_member_at(s, g, k);
			if (m->cg_epoch != -2)
				return KERR_UNRELEASED_INSTANCE_ID;
			/* It comes back: its place, assignment and epoch. */
			memset(m->id, 0, sizeof(m->id));
			if (in->member_id_len > 0) {
				memcpy(m->id, in->member_id, in->member_id_len);
				m->id_len = (uint16_t)in->member_id_len;
			} else
				m->id_len = (uint16_t)member_id_new(s, g, m->id);
			m->cg_epoch = m->cg_prev_epoch;
			idx = (int)k;
		} else if (idx >= 0) {
			/* Joins again (it lost its state): from nothing. */
			m = group_member_at(s, g, (uint32_t)idx);
			lists_clear(s, g, (uint32_t)idx);
			m->cg_prev_epoch = m->cg_epoch;
			m->cg_epoch = 0;
			bump(g);
		} else {
			if ((idx = member_new(s, g, in, gp)) == -1)
				return KERR_GROUP_MAX_SIZE_REACHED;
			fresh = 1;
		}
	} else {
		if (idx == -1)
			return KERR_UNKNOWN_MEMBER_ID;
		m = group_member_at(s, g, (uint32_t)idx);
		if (in->epoch != m->cg_epoch) {
			/* The epoch before, if the answer was lost: owns no more. */
			ok = in->epoch == m->cg_prev_epoch && in->owned_set &&
			    (buf = calloc(cap + 1, sizeof(*buf))) != NULL;
			if (ok) {
				n = cgroup_list(s, g, (uint32_t)idx, CG_ASSIGNED,
				    buf, cap);
				for (k = 0; k < in->nowned && ok; k++)
					if (!tp_in(buf, n < cap ? n : cap,
					    &in->owned[k]))
						ok = 0;
				free(buf);
			}
			if (!ok)
				return KERR_FENCED_MEMBER_EPOCH;
		}
	}
	m = group_member_at(s, g, (uint32_t)idx);
	*member = idx;
	m->last_seen_ms = now;
	member_client(m, in);
	m->session_timeout_ms = gp->cg_session_ms;
	if (in->rebalance_timeout_ms > 0)
		m->rebalance_timeout_ms = in->rebalance_timeout_ms;
	if ((changed = sub_update(s, g, (uint32_t)idx, in)) == -1) {
		if (fresh)
			return KERR_MESSAGE_TOO_LARGE;	/* never published */
		return KERR_MESSAGE_TOO_LARGE;
	}
	if (in->assignor != CG_ASSIGNOR_NONE && in->assignor != m->cg_assignor) {
		m->cg_assignor = in->assignor;
		changed = 1;
	}
	if (fresh) {
		atomic_store_explicit(&m->state, MEMBER_ACTIVE,
		    memory_order_release);
		g->state = GROUP_STABLE;
		changed = 1;
	}
	if (changed)
		bump(g);
	(void)cgroup_tick(s, g, now, gp);
	if (g->cg_assign_epoch != g->generation &&
	    compute_targets(s, g, gp) == -1)
		return KERR_NONE;	/* answered with what it has */
	(void)reconcile(s, g, (uint32_t)idx, in->owned_set ? in->owned : NULL,
	    in->nowned, now);
	return KERR_NONE;
}

int64_t
cgroup_revoke_due(const struct shm *s, struct shm_group *g, uint32_t i)
{
	struct shm_member *m = group_member_at(s, g, i);
	struct cg_tp one;

	/* cgroup_tick() removes it once now passes the deadline. */
	if (m->cg_revoke_deadline <= 0 ||
	    cgroup_list(s, g, i, CG_REVOKING, &one, 1) == 0)
		return INT64_MAX;
	return m->cg_revoke_deadline + 1;
}

int
cgroup_tick(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	uint32_t i, gen0 = g->generation, state0 = g->state;
	uint64_t h;
	struct cg_tp one;

	for (i = 0; i < nmem(s); i++) {
		m = group_member_at(s, g, i);
		if (!active(m))
			continue;
		if (now - m->last_seen_ms > m->session_timeout_ms ||
		    (cgroup_list(s, g, i, CG_REVOKING, &one, 1) > 0 &&
		    m->cg_revoke_deadline > 0 && now > m->cg_revoke_deadline)) {
			if (member_remove(s, g, i, now, gp))
				return 1;	/* now a classic group */
		}
	}
	if (group_member_count(s, g) > 0) {
		h = topics_hash(s, g);
		if (h != 0 && h != g->cg_topics_hash &&
		    g->cg_assign_epoch == g->generation)
			bump(g);
		if (g->cg_assign_epoch != g->generation)
			(void)compute_targets(s, g, gp);
	}
	return g->generation != gen0 || g->state != state0;
}

void
cgroup_repair(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	const uint8_t *p;
	uint32_t i, n[3], max = s->hdr->limits.member_meta;

	(void)now;
	(void)gp;
	for (i = 0; i < nmem(s); i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) ==
		    MEMBER_FREE)
			continue;
		p = group_assign(s, g, i);
		if (p != NULL)
			memcpy(n, p, sizeof(n));
		if (!active(m) || p == NULL || m->id_len == 0 ||
		    m->id_len > MEMBER_ID_MAX || m->client_len > CLIENT_ID_MAX ||
		    m->host_len > MEMBER_HOST_MAX || m->meta_len > max ||
		    m->instance_len > KGROUP_INSTANCE_MAX ||
		    n[0] > list_cap(s) || n[1] > list_cap(s) ||
		    n[2] > list_cap(s))
			atomic_store_explicit(&m->state, MEMBER_FREE,
			    memory_order_release);
	}
	/* Always valid: every target is computed again. */
	bump(g);
	g->state = group_member_count(s, g) > 0 ? GROUP_STABLE : GROUP_EMPTY;
}

int16_t
cgroup_commit_check(struct shm *s, struct shm_group *g, const char *id,
    size_t len, int32_t epoch, int64_t now, const struct group_params *gp)
{
	int idx;

	(void)group_tick(s, g, now, gp);
	if (g->kind != GROUP_KIND_CONSUMER)
		return KERR_REBALANCE_IN_PROGRESS;	/* downgraded meanwhile */
	if (epoch < 0 && group_member_count(s, g) == 0)
		return KERR_NONE;
	if ((idx = group_member_find(s, g, id, len)) == -1)
		return KERR_UNKNOWN_MEMBER_ID;
	if (epoch != group_member_at(s, g, (uint32_t)idx)->cg_epoch)
		/* Kafka's validateMemberEpoch: a classic member's generation */
		return classic(group_member_at(s, g, (uint32_t)idx)) ?
		    KERR_ILLEGAL_GENERATION : KERR_STALE_MEMBER_EPOCH;
	return KERR_NONE;
}

int16_t
cgroup_fetch_check(struct shm *s, struct shm_group *g, const char *id,
    size_t len, int32_t epoch, int64_t now, const struct group_params *gp)
{
	int idx;

	if (id == NULL && epoch < 0)
		return KERR_NONE;
	(void)group_tick(s, g, now, gp);
	if (id == NULL || (idx = group_member_find(s, g, id, len)) == -1)
		return KERR_UNKNOWN_MEMBER_ID;
	if (epoch != group_member_at(s, g, (uint32_t)idx)->cg_epoch)
		return KERR_STALE_MEMBER_EPOCH;
	return KERR_NONE;
}

int
cgroup_subscribes(const struct shm *s, struct shm_group *g, uint32_t topic)
{
	const struct shm_topic *t;
	struct sub u;
	uint32_t i;
	int yes = 0;

	if (topic >= s->hdr->limits.max_topics)
		return 0;
	t = &s->topics[topic];
	for (i = 0; i < nmem(s) && !yes; i++) {
		if (!active(group_member_at(s, g, i)))
			continue;
		sub_load(s, g, i, &u);
		yes = sub_match(&u, t->name, t->name_len <= TOPIC_NAME_MAX ?
		    t->name_len : 0);
		sub_free(&u);
	}
	return yes;
}

uint32_t
cgroup_assignor(const char *name, size_t len)
{
	if (len == 7 && memcmp(name, "uniform", 7) == 0)
		return CG_ASSIGNOR_UNIFORM;
	if (len == 5 && memcmp(name, "range", 5) == 0)
		return CG_ASSIGNOR_RANGE;
	return CG_ASSIGNOR_NONE;
}

const char *
cgroup_assignor_name(uint32_t a)
{
	return a == CG_ASSIGNOR_RANGE ? "range" : "uniform";
}

const char *
cgroup_state_name(const struct shm *s, struct shm_group *g)
{
	struct shm_member *m;
	struct cg_tp one;
	uint32_t i, na, nt;

	if (group_member_count(s, g) == 0)
		return "Empty";
	if (g->cg_assign_epoch != g->generation)
		return "Assigning";
	for (i = 0; i < nmem(s); i++) {
		m = group_member_at(s, g, i);
		if (!active(m))
			continue;
		na = cgroup_list(s, g, i, CG_ASSIGNED, &one, 1);
		nt = cgroup_list(s, g, i, CG_TARGET, &one, 1);
		if (m->cg_epoch != (int32_t)g->cg_assign_epoch || na != nt ||
		    cgroup_list(s, g, i, CG_REVOKING, &one, 1) > 0)
			return "Reconciling";
	}
	return "Stable";
}

/* ---- the online migration (classic members of a consumer group) ---- */

int
cgroup_policy(const char *name)
{
	static const char *const names[] = { "disabled", "upgrade",
	    "downgrade", "bidirectional" };
	int k;

	for (k = 0; k < 4; k++)
		if (strcasecmp(name, names[k]) == 0)
			return k;	/* the bits CG_POLICY_UPGRADE | _DOWNGRADE */
	return -1;
}

int
cgroup_upgradable(struct shm *s, struct shm_group *g,
    const struct group_params *gp)
{
	uint32_t n = group_member_count(s, g), max = gp->cg_max_size > 0 &&
	    gp->cg_max_size < nmem(s) ? gp->cg_max_size : nmem(s);

	return g->kind == GROUP_KIND_KAFKA && n > 0 &&
	    (gp->cg_migration & CG_POLICY_UPGRADE) && g->ptype_len == 8 &&
	    memcmp(g->ptype, "consumer", 8) == 0 && n <= max;
}

/* Member i's subscription (names) stored after its protocols; 0 or -1. */
static int
classic_sub_store(struct shm *s, struct shm_group *g, uint32_t i,
    const char *const *names, const size_t *lens, uint32_t n)
{
	struct shm_member *m = group_member_at(s, g, i);
	size_t base = sub_base(s, g, i), len;
	uint8_t *p = group_meta(s, g, i);

	if (p == NULL || base > s->hdr->limits.member_meta ||
	    (len = sub_encode(p + base, s->hdr->limits.member_meta - base,
	    names, lens, n, NULL, 0)) == 0)
		return -1;
	m->meta_len = (uint32_t)(base + len);
	return 0;
}

/* The owned partitions in v that exist, at most list_cap(), in buf. */
static uint32_t
tps_valid(const struct shm *s, const struct cg_tp *v, uint32_t n,
    struct cg_tp *buf)
{
	uint32_t k, m = 0;

	for (k = 0; k < n && m < list_cap(s); k++)
		if (tp_valid(s, &v[k]) && !tp_in(buf, m, &v[k]))
			buf[m++] = v[k];
	return m;
}

int16_t
cgroup_upgrade(struct shm *s, struct shm_group *g,
    const struct cg_classic_member *mv, uint32_t n, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	struct cg_tp *buf, *taken;
	uint32_t k, j, nb, ntaken = 0, cap = list_cap(s);

	(void)now;
	if (!cgroup_upgradable(s, g, gp) || n != group_member_count(s, g))
		return KERR_GROUP_ID_NOT_FOUND;
	for (k = 0; k < n; k++)
		if (mv[k].idx >= nmem(s) ||
		    !active(group_member_at(s, g, mv[k].idx)))
			return KERR_GROUP_ID_NOT_FOUND;
	if ((buf = calloc(cap + 1, sizeof(*buf))) == NULL ||
	    (taken = calloc((size_t)cap * n + 1, sizeof(*taken))) == NULL) {
		free(buf);
		return KERR_GROUP_ID_NOT_FOUND;
	}
	/* First: a repair before the kind is stored rolls it back. */
	g->cg_migrating = CG_MIGRATE_UP;
	for (k = 0; k < n; k++) {
		m = group_member_at(s, g, mv[k].idx);
		m->kflags = (m->kflags & ~(uint32_t)KMEMBER_JOINING) |
		    KMEMBER_CLASSIC;
		if (classic_sub_store(s, g, mv[k].idx, mv[k].names, mv[k].lens,
		    mv[k].nnames) == -1)
			(void)classic_sub_store(s, g, mv[k].idx, NULL, NULL, 0);
		/* No partition in two members' lists, whatever they said. */
		nb = tps_valid(s, mv[k].owned, mv[k].nowned, buf);
		for (j = 0; j < nb; )
			if (tp_in(taken, ntaken, &buf[j]))
				buf[j] = buf[--nb];
			else
				taken[ntaken++] = buf[j++];
		list_set(s, g, mv[k].idx, CG_REVOKING, NULL, 0);
		list_set(s, g, mv[k].idx, CG_TARGET, buf, nb);
		list_set(s, g, mv[k].idx, CG_ASSIGNED, buf, nb);
		m->cg_epoch = m->cg_prev_epoch = (int32_t)g->generation;
		m->cg_revoke_deadline = 0;
		m->cg_assignor = 0;
	}
	free(buf);
	free(taken);
	g->leader = -1;
	g->ntopics = 0;
	g->cg_assignor = pick_assignor(s, g, gp);
	g->cg_topics_hash = topics_hash(s, g);
	g->cg_assign_epoch = g->generation;
	g->state = GROUP_STABLE;
	g->kind = GROUP_KIND_CONSUMER;
	g->cg_migrating = CG_MIGRATE_NONE;
	return KERR_NONE;
}

/* The downgrade, from its first step on (member_remove(), a repair). */
static void
downgrade_finish(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	uint32_t i;

	for (i = 0; i < nmem(s); i++) {
		m = group_member_at(s, g, i);
		if (!active(m))
			continue;
		if (!classic(m)) {
			/* Only the member that left (a repair comes here again). */
			atomic_store_explicit(&m->state, MEMBER_FREE,
			    memory_order_release);
			continue;
		}
		m->assign_len = 0;	/* the classic rebalance assigns */
		m->joined_gen = g->generation;
		m->last_seen_ms = now;
	}
	kgroup_adopt(s, g, now, gp);
	g->kind = GROUP_KIND_KAFKA;
	g->cg_migrating = CG_MIGRATE_NONE;
	/* Meaningless in a classic group; cleared to keep slots plain. */
	for (i = 0; i < nmem(s); i++) {
		m = group_member_at(s, g, i);
		if (classic(m)) {
			m->meta_len = (uint32_t)sub_base(s, g, i);
			m->kflags &= ~(uint32_t)KMEMBER_CLASSIC;
		}
	}
}

void
cgroup_migrate_repair(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	uint32_t i;

	if (g->cg_migrating == CG_MIGRATE_DOWN &&
	    g->kind == GROUP_KIND_CONSUMER) {
		downgrade_finish(s, g, now, gp);
		return;
	}
	if (g->kind == GROUP_KIND_KAFKA) {
		/* An upgrade rolled back (or a downgrade's tidying finished). */
		for (i = 0; i < nmem(s); i++) {
			m = group_member_at(s, g, i);
			if (!classic(m))
				continue;
			if (g->cg_migrating == CG_MIGRATE_UP)
				m->assign_len = 0;	/* lists, not bytes */
			m->meta_len = (uint32_t)sub_base(s, g, i);
			m->kflags &= ~(uint32_t)KMEMBER_CLASSIC;
		}
	}
	g->cg_migrating = CG_MIGRATE_NONE;
}

int
cgroup_is_classic(const struct shm *s, struct shm_group *g, uint32_t i)
{
	struct shm_member *m = group_member_at(s, g, i);

	return m != NULL && classic(m);
}

/*
 * Kafka's validateConsumerGroupMember and throwIfMemberDoesNotUseClassicProtocol:
 * the classic member (index) of id or of instance inst.
 */
static int16_t
classic_find(struct shm *s, struct shm_group *g, const char *id, size_t len,
    const char *inst, size_t ilen, int *idx)
{
	struct shm_member *m;

	if (inst != NULL && ilen > 0) {
		if ((*idx = find_instance(s, g, inst, ilen)) == -1)
			return KERR_UNKNOWN_MEMBER_ID;
		m = group_member_at(s, g, (uint32_t)*idx);
		if (m->id_len != len || memcmp(m->id, id, len) != 0)
			return KERR_FENCED_INSTANCE_ID;
	} else if ((*idx = group_member_find(s, g, id, len)) == -1)
		return KERR_UNKNOWN_MEMBER_ID;
	if (!classic(group_member_at(s, g, (uint32_t)*idx)))
		return KERR_UNKNOWN_MEMBER_ID;
	return KERR_NONE;
}

/* Does every classic member (but skip) support one of in's protocols? */
static int
classic_supports(const struct shm *s, struct shm_group *g,
    const struct kgroup_join_in *in, int skip)
{
	const uint8_t *p;
	struct shm_member *m;
	uint32_t k, i, j, end, off, l;
	int all;

	if (in->ptype_len != 8 || memcmp(in->ptype, "consumer", 8) != 0)
		return 0;
	for (k = 0; k < in->nprotos; k++) {
		all = 1;
		for (i = 0; i < nmem(s) && all; i++) {
			m = group_member_at(s, g, i);
			if ((int)i == skip || !active(m) || !classic(m))
				continue;
			p = group_meta(s, g, i);
			end = (uint32_t)sub_base(s, g, i);
			for (j = 0, off = 0, all = 0; j < m->nprotocols &&
			    end - off >= 2 && !all; j++) {
				l = (uint32_t)p[off] << 8 | p[off + 1];
				if (end - off - 2 < l + 4)
					break;
				all = l == in->protos[k].name_len &&
				    memcmp(p + off + 2, in->protos[k].name, l) == 0;
				off += 2 + l;
				l = (uint32_t)p[off] << 24 | (uint32_t)p[off + 1] << 16 |
				    (uint32_t)p[off + 2] << 8 | p[off + 3];
				off += 4 + l;
				if (off > end)
					break;
			}
		}
		if (all)
			return 1;
	}
	return 0;
}

int16_t
cgroup_classic_join(struct shm *s, struct shm_group *g,
    const struct kgroup_join_in *in, const struct cg_classic_member *sub,
    int64_t now, const struct group_params *gp, int *member)
{
	struct shm_member *m;
	struct cgroup_hb_in h;
	uint8_t *old = NULL;
	size_t oldlen = 0, base;
	uint32_t max = gp->cg_max_size > 0 && gp->cg_max_size < nmem(s) ?
	    gp->cg_max_size : nmem(s);
	size_t ilen = in->instance != NULL ? in->instance_len : 0;
	int idx = -1, changed = 0;
	int16_t err;

	if (ilen > KGROUP_INSTANCE_MAX)
		return KERR_INVALID_REQUEST;
	if (in->session_timeout_ms < gp->min_session_ms ||
	    in->session_timeout_ms > gp->max_session_ms)
		return KERR_INVALID_SESSION_TIMEOUT;
	if (in->nprotos == 0 || in->client_id_len > CLIENT_ID_MAX)
		return KERR_INCONSISTENT_GROUP_PROTOCOL;
	(void)cgroup_tick(s, g, now, gp);
	if (g->kind != GROUP_KIND_CONSUMER)
		return KERR_COORDINATOR_NOT_AVAILABLE;	/* downgraded: ask again */
	if (ilen > 0) {
		idx = find_instance(s, g, in->instance, ilen);
		/* A known member id must hold the instance (Kafka's checks). */
		if (in->member_id_len > 0 && idx == -1)
			return KERR_UNKNOWN_MEMBER_ID;
		if (in->member_id_len > 0 && (group_member_at(s, g,
		    (uint32_t)idx)->id_len != in->member_id_len ||
		    memcmp(group_member_at(s, g, (uint32_t)idx)->id,
		    in->member_id, in->member_id_len) != 0))
			return KERR_FENCED_INSTANCE_ID;
	} else if (in->member_id_len > 0)
		idx = group_member_find(s, g, in->member_id, in->member_id_len);
	if (idx == -1 && group_member_count(s, g) >= max)
		return KERR_GROUP_MAX_SIZE_REACHED;
	if (!classic_supports(s, g, in, idx))
		return KERR_INCONSISTENT_GROUP_PROTOCOL;
	if (in->require_id && in->member_id_len == 0 && ilen == 0) {
		*in->pending_len = member_id_new(s, g, in->pending);
		return KERR_MEMBER_ID_REQUIRED;
	}
	if (idx >= 0 && !classic(group_member_at(s, g, (uint32_t)idx)))
		return KERR_UNKNOWN_MEMBER_ID;	/* a consumer protocol member */
	memset(&h, 0, sizeof(h));
	h.member_id = in->member_id;
	h.member_id_len = in->member_id_len;
	h.instance = in->instance;
	h.instance_len = ilen;
	h.client_id = in->client_id;
	h.client_id_len = in->client_id_len;
	h.host = in->host;
	h.host_len = in->host_len;
	h.rebalance_timeout_ms = in->rebalance_timeout_ms;
	if (idx == -1) {
		if ((idx = member_new(s, g, &h, gp)) == -1)
			return KERR_GROUP_MAX_SIZE_REACHED;
		changed = 1;
	} else if (ilen > 0 && (group_member_at(s, g, (uint32_t)idx)->id_len !=
	    in->member_id_len || memcmp(group_member_at(s, g,
	    (uint32_t)idx)->id, in->member_id, in->member_id_len) != 0)) {
		/* A static member's restart: a new id, its lists kept, epoch 0. */
		m = group_member_at(s, g, (uint32_t)idx);
		memset(m->id, 0, sizeof(m->id));
		m->id_len = (uint16_t)member_id_new(s, g, m->id);
		m->cg_epoch = m->cg_prev_epoch = 0;
	}
	m = group_member_at(s, g, (uint32_t)idx);
	*member = idx;
	/* Its subscription before, to tell a change. */
	if (!changed && (base = sub_base(s, g, (uint32_t)idx)) <= m->meta_len &&
	    m->meta_len <= s->hdr->limits.member_meta &&
	    (old = malloc(m->meta_len - base + 1)) != NULL) {
		oldlen = m->meta_len - base;
		memcpy(old, group_meta(s, g, (uint32_t)idx) + base, oldlen);
	}
	m->kflags = KMEMBER_CLASSIC;
	if ((err = kgroup_store_protocols(s, g, (uint32_t)idx, in)) !=
	    KERR_NONE || classic_sub_store(s, g, (uint32_t)idx, sub->names,
	    sub->lens, sub->nnames) == -1) {
		free(old);
		if (changed)
			return err != KERR_NONE ? err : KERR_MESSAGE_TOO_LARGE;
		/* A known member's slot holds what fit: it leaves. */
		(void)member_remove(s, g, (uint32_t)idx, now, gp);
		return err != KERR_NONE ? err : KERR_MESSAGE_TOO_LARGE;
	}
	base = sub_base(s, g, (uint32_t)idx);
	if (old == NULL || oldlen != m->meta_len - base ||
	    memcmp(old, group_meta(s, g, (uint32_t)idx) + base, oldlen) != 0)
		changed = 1;
	free(old);
	m->session_timeout_ms = in->session_timeout_ms;
	if (in->rebalance_timeout_ms > 0)
		m->rebalance_timeout_ms = in->rebalance_timeout_ms;
	m->last_seen_ms = now;
	if (m->client_len != in->client_id_len || (in->client_id_len > 0 &&
	    memcmp(m->client, in->client_id, in->client_id_len) != 0)) {
		memset(m->client, 0, sizeof(m->client));
		if (in->client_id_len > 0)
			memcpy(m->client, in->client_id, in->client_id_len);
		m->client_len = (uint16_t)in->client_id_len;
	}
	if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
	    MEMBER_ACTIVE) {
		atomic_store_explicit(&m->state, MEMBER_ACTIVE,
		    memory_order_release);
		g->state = GROUP_STABLE;
	}
	if (changed)
		bump(g);
	if (g->cg_assign_epoch != g->generation)
		(void)compute_targets(s, g, gp);
	(void)reconcile(s, g, (uint32_t)idx, sub->owned, sub->nowned, now);
	return KERR_NONE;
}

/* Kafka's throwIfRebalanceInProgress: behind the group epoch, not revoking. */
static int
classic_rejoin(const struct shm *s, struct shm_group *g, uint32_t i)
{
	struct cg_tp one;

	return (uint32_t)group_member_at(s, g, i)->cg_epoch < g->generation &&
	    cgroup_list(s, g, i, CG_REVOKING, &one, 1) == 0;
}

/*
 * The classic member (index) a SyncGroup or Heartbeat names, at its
 * member epoch as the generation (Kafka's throwIfGenerationIdUnmatched).
 */
static int16_t
classic_current(struct shm *s, struct shm_group *g, const char *id,
    size_t len, const char *inst, size_t ilen, int32_t generation,
    int64_t now, const struct group_params *gp, int *idx)
{
	int16_t err;

	(void)cgroup_tick(s, g, now, gp);
	if (g->kind != GROUP_KIND_CONSUMER)
		return KERR_REBALANCE_IN_PROGRESS;	/* downgraded: rejoin */
	if ((err = classic_find(s, g, id, len, inst, ilen, idx)) != KERR_NONE)
		return err;
	if (generation != group_member_at(s, g, (uint32_t)*idx)->cg_epoch)
		return KERR_ILLEGAL_GENERATION;
	group_member_at(s, g, (uint32_t)*idx)->last_seen_ms = now;
	return KERR_NONE;
}

int16_t
cgroup_classic_sync(struct shm *s, struct shm_group *g, const char *id,
    size_t len, const char *inst, size_t ilen, int32_t generation,
    const char *ptype, size_t ptlen, const char *pname, size_t pnlen,
    int64_t now, const struct group_params *gp, int *member)
{
	const char *name;
	size_t nl;
	int16_t err;
	int idx = -1;

	if ((err = classic_current(s, g, id, len, inst, ilen, generation, now,
	    gp, &idx)) != KERR_NONE)
		return err;
	if (cgroup_classic_protocol(s, g, (uint32_t)idx, &name, &nl, NULL,
	    NULL) == -1)
		return KERR_INCONSISTENT_GROUP_PROTOCOL;
	if ((ptype != NULL && (ptlen != 8 || memcmp(ptype, "consumer", 8) !=
	    0)) || (pname != NULL && (pnlen != nl ||
	    memcmp(pname, name, nl) != 0)))
		return KERR_INCONSISTENT_GROUP_PROTOCOL;
	if (classic_rejoin(s, g, (uint32_t)idx))
		return KERR_REBALANCE_IN_PROGRESS;
	*member = idx;
	return KERR_NONE;
}

int16_t
cgroup_classic_heartbeat(struct shm *s, struct shm_group *g, const char *id,
    size_t len, const char *inst, size_t ilen, int32_t generation,
    int64_t now, const struct group_params *gp)
{
	struct shm_member *m;
	struct cg_tp *a, *t, *buf;
	uint32_t na, nt, k, cap = list_cap(s);
	int16_t err;
	int idx = -1, free_all = 0, missing = 0;

	if ((err = classic_current(s, g, id, len, inst, ilen, generation, now,
	    gp, &idx)) != KERR_NONE)
		return err;
	m = group_member_at(s, g, (uint32_t)idx);
	if ((uint32_t)m->cg_epoch < g->generation ||
	    cgroup_list(s, g, (uint32_t)idx, CG_REVOKING, NULL, 0) > 0)
		return KERR_REBALANCE_IN_PROGRESS;
	/* Partitions of its target it waits for, all free now: rejoin. */
	a = calloc(cap + 1, sizeof(*a));
	t = calloc(cap + 1, sizeof(*t));
	buf = calloc(cap + 1, sizeof(*buf));
	if (a != NULL && t != NULL && buf != NULL) {
		na = cgroup_list(s, g, (uint32_t)idx, CG_ASSIGNED, a, cap);
		nt = cgroup_list(s, g, (uint32_t)idx, CG_TARGET, t, cap);
		free_all = 1;
		for (k = 0; k < nt && k < cap; k++) {
			if (tp_in(a, na < cap ? na : cap, &t[k]) ||
			    !tp_valid(s, &t[k]))
				continue;
			missing = 1;
			if (held_by_other(s, g, (uint32_t)idx, &t[k], buf, cap))
				free_all = 0;
		}
	}
	free(a);
	free(t);
	free(buf);
	return missing && free_all ? KERR_REBALANCE_IN_PROGRESS : KERR_NONE;
}

int16_t
cgroup_classic_leave(struct shm *s, struct shm_group *g, const char *id,
    size_t len, const char *inst, size_t ilen, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	int16_t err;
	int idx = -1;

	(void)cgroup_tick(s, g, now, gp);
	if (g->kind != GROUP_KIND_CONSUMER)
		return KERR_UNKNOWN_MEMBER_ID;
	if (len == 0 && inst != NULL && ilen > 0) {
		/* By instance id alone (an admin's removal). */
		if ((idx = find_instance(s, g, inst, ilen)) == -1)
			return KERR_UNKNOWN_MEMBER_ID;
		if (!classic(group_member_at(s, g, (uint32_t)idx)))
			return KERR_UNKNOWN_MEMBER_ID;
	} else if ((err = classic_find(s, g, id, len, inst, ilen, &idx)) !=
	    KERR_NONE)
		return err;
	m = group_member_at(s, g, (uint32_t)idx);
	(void)m;
	if (!member_remove(s, g, (uint32_t)idx, now, gp))
		(void)cgroup_tick(s, g, now, gp);
	return KERR_NONE;
}

int
cgroup_classic_protocol(const struct shm *s, struct shm_group *g, uint32_t i,
    const char **name, size_t *nlen, const uint8_t **meta, size_t *mlen)
{
	struct shm_member *m = group_member_at(s, g, i);
	const uint8_t *p = group_meta(s, g, i);
	size_t end, l, ml;

	if (m == NULL || p == NULL || m->nprotocols == 0)
		return -1;
	end = sub_base(s, g, i);
	if (end < 2 || end - 2 < (l = (size_t)p[0] << 8 | p[1]) + 4)
		return -1;
	ml = (size_t)p[2 + l] << 24 | (size_t)p[3 + l] << 16 |
	    (size_t)p[4 + l] << 8 | p[5 + l];
	if (end - 6 - l < ml)
		return -1;
	*name = (const char *)p + 2;
	*nlen = l;
	if (meta != NULL) {
		*meta = p + 6 + l;
		*mlen = ml;
	}
	return 0;
}
