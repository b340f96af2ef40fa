/*
 * Kafka's classic group coordinator (see shm/kgroup.h for the states).
 * Called by workers (the Kafka group APIs, worker/kafka_group.c) and,
 * through group_tick(), by the writer, which expires silent members and
 * ends rebalances whose time is up even when nobody asks.
 */
#include <stdatomic.h>
#include <string.h>

#include "proto/kafka/kapi.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "shm/topics.h"

static int
active(const struct shm_member *m)
{
	return atomic_load_explicit(&m->state, memory_order_relaxed) ==
	    MEMBER_ACTIVE;
}

static uint32_t
nmembers(const struct shm *s)
{
	return s->hdr->limits.max_group_members;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/*
 * Protocol k of member i: name and metadata, read back from its space
 * and checked against meta_len (a repaired slot is trusted no further).
 */
static int
proto_at(const struct shm *s, struct shm_group *g, uint32_t i, uint32_t k,
    const char **name, size_t *nlen, const uint8_t **meta, size_t *mlen)
{
	struct shm_member *m = group_member_at(s, g, i);
	const uint8_t *p = group_meta(s, g, i);
	size_t off = 0, n, l, end;
	uint32_t j;

	if (m == NULL || p == NULL || k >= m->nprotocols)
		return -1;
	end = m->meta_len <= s->hdr->limits.member_meta ? m->meta_len : 0;
	for (j = 0; ; j++) {
		if (end - off < 2)
			return -1;
		n = get16(p + off);
		if (end - off - 2 < n + 4)
			return -1;
		l = get32(p + off + 2 + n);
		if (end - off - 6 - n < l)
			return -1;
		if (j == k) {
			*name = (const char *)p + off + 2;
			*nlen = n;
			*meta = p + off + 6 + n;
			*mlen = l;
			return 0;
		}
		off += 6 + n + l;
	}
}

/* Does member i support protocol name?  Its rank in its list, or -1. */
static int
proto_rank(const struct shm *s, struct shm_group *g, uint32_t i,
    const char *name, size_t len)
{
	struct shm_member *m = group_member_at(s, g, i);
	const uint8_t *meta;
	const char *n;
	size_t nl, ml;
	uint32_t k;

	for (k = 0; k < m->nprotocols; k++)
		if (proto_at(s, g, i, k, &n, &nl, &meta, &ml) == 0 &&
		    nl == len && (len == 0 || memcmp(n, name, len) == 0))
			return (int)k;
	return -1;
}

/* Is protocol (name) supported by every active member but skip? */
static int
proto_common(const struct shm *s, struct shm_group *g, const char *name,
    size_t len, int skip)
{
	uint32_t i;

	for (i = 0; i < nmembers(s); i++)
		if ((int)i != skip && active(group_member_at(s, g, i)) &&
		    proto_rank(s, g, i, name, len) == -1)
			return 0;
	return 1;
}

static uint32_t
count_active(const struct shm *s, struct shm_group *g)
{
	return group_member_count(s, g);
}

/* The group's rebalance timeout: the largest of its members'. */
static int64_t
rebalance_timeout(const struct shm *s, struct shm_group *g,
    const struct group_params *gp)
{
	struct shm_member *m;
	int64_t t = 0;
	uint32_t i;

	for (i = 0; i < nmembers(s); i++) {
		m = group_member_at(s, g, i);
		if (active(m) && m->rebalance_timeout_ms > t)
			t = m->rebalance_timeout_ms;
	}
	return t > 0 ? t : gp->rebalance_timeout_ms;
}

/* Enter REBALANCING (unless there already): every member must rejoin. */
static void
prepare(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	uint32_t i;

	if (g->state == GROUP_REBALANCING)
		return;
	for (i = 0; i < nmembers(s); i++)
		group_member_at(s, g, i)->kflags &= ~(uint32_t)KMEMBER_JOINING;
	if (g->state == GROUP_EMPTY && count_active(s, g) <= 1) {
		/* A new group: wait a little for the others to arrive. */
		g->initial = 1;
		g->rebalance_start = now;
		g->rebalance_deadline = now + (gp->initial_delay_ms <
		    rebalance_timeout(s, g, gp) ? gp->initial_delay_ms :
		    rebalance_timeout(s, g, gp));
	} else {
		g->initial = 0;
		g->rebalance_start = now;
		g->rebalance_deadline = now + rebalance_timeout(s, g, gp);
	}
	g->state = GROUP_REBALANCING;
}

/*
 * The protocol every member supports with the most first-choice votes
 * (each member votes for the first of its own that all support).  0, or
 * -1 when there is none.
 */
static int
select_protocol(struct shm *s, struct shm_group *g)
{
	const char *name, *best = NULL;
	const uint8_t *meta;
	size_t nl, ml, bestlen = 0;
	uint32_t i, j, k, votes, bestvotes = 0;
	int rank;

	for (i = 0; i < nmembers(s); i++) {
		if (!active(group_member_at(s, g, i)))
			continue;
		for (k = 0; proto_at(s, g, i, k, &name, &nl, &meta, &ml) == 0; k++) {
			if (nl > KGROUP_PROTO_MAX ||
			    !proto_common(s, g, name, nl, -1))
				continue;
			votes = 0;
			for (j = 0; j < nmembers(s); j++) {
				const char *n2;
				size_t l2, m2;
				const uint8_t *md;
				uint32_t q;

				if (!active(group_member_at(s, g, j)))
					continue;
				rank = proto_rank(s, g, j, name, nl);
				/* j's first choice among the common ones */
				for (q = 0; proto_at(s, g, j, q, &n2, &l2, &md,
				    &m2) == 0 && (int)q < rank; q++)
					if (proto_common(s, g, n2, l2, -1))
						break;
				if ((int)q == rank)
					votes++;
			}
			if (best == NULL || votes > bestvotes) {
				best = name;
				bestlen = nl;
				bestvotes = votes;
			}
		}
	}
	if (best == NULL)
		return -1;
	memcpy(g->proto, best, bestlen);
	g->proto[bestlen] = '\0';
	g->proto_len = (uint16_t)bestlen;
	return 0;
}

/*
 * The topics the generation's members subscribe to, with the incarnation
 * of each now (shm/group.h struct group_topic), so that kgroup_tick()
 * sees one deleted (and maybe created again) under the generation.  Only
 * the "consumer" protocol type says what a member subscribes to: its
 * Subscription (any version) starts [i16 version][i32 n][n x string].
 * Topics that do not exist, or past GROUP_TOPICS_MAX, are not kept.
 */
static void
subscription_record(struct shm *s, struct shm_group *g)
{
	const uint8_t *meta;
	size_t len, off, l;
	uint32_t i, k, n, j;
	int t;

	g->ntopics = 0;
	if (g->ptype_len != 8 || memcmp(g->ptype, "consumer", 8) != 0)
		return;
	for (i = 0; i < nmembers(s); i++) {
		if (!active(group_member_at(s, g, i)) ||
		    kgroup_member_metadata(s, g, i, &meta, &len) == -1 ||
		    len < 6 || (int16_t)get16(meta) < 0)
			continue;
		n = get32(meta + 2);
		for (k = 0, off = 6; k < n && len - off >= 2; k++) {
			l = get16(meta + off);
			if (l > len - off - 2)
				break;
			t = shm_topic_find(s, (const char *)meta + off + 2, l);
			off += 2 + l;
			if (t < 0)
				continue;
			for (j = 0; j < g->ntopics; j++)
				if (g->topics[j].topic == (uint32_t)t)
					break;
			if (j < g->ntopics || g->ntopics == GROUP_TOPICS_MAX)
				continue;
			g->topics[j].topic = (uint32_t)t;
			g->topics[j].partitions = 0;	/* Kafka clients see counts themselves */
			g->topics[j].incarnation = group_topic_incarnation(s,
			    (uint32_t)t);
			g->ntopics++;
		}
	}
}

/* Was a topic of the generation's subscription deleted since it formed? */
static int
subscription_gone(struct shm *s, struct shm_group *g)
{
	uint32_t k;

	for (k = 0; k < g->ntopics && k < GROUP_TOPICS_MAX; k++)
		if (group_topic_incarnation(s, g->topics[k].topic) !=
		    g->topics[k].incarnation)
			return 1;
	return 0;
}

/* The join phase is over: who rejoined forms generation + 1. */
static void
complete(struct shm *s, struct shm_group *g, int64_t now)
{
	struct shm_member *m;
	uint32_t i;

	/*
	 * A dynamic member that did not rejoin is dropped; a static one
	 * stays (Kafka's onCompleteJoin): only its session timeout removes
	 * it, so a restart within the session keeps its place.
	 */
	for (i = 0; i < nmembers(s); i++) {
		m = group_member_at(s, g, i);
		if (active(m) && !(m->kflags & KMEMBER_JOINING) &&
		    m->instance_len == 0)
			atomic_store_explicit(&m->state, MEMBER_FREE,
			    memory_order_release);
	}
	/* The leader is one who rejoined (Kafka's maybeElectNewJoinedLeader). */
	if (g->leader >= 0 && (uint32_t)g->leader < nmembers(s) &&
	    !(group_member_at(s, g, (uint32_t)g->leader)->kflags &
	    KMEMBER_JOINING))
		g->leader = -1;
	for (i = 0; i < nmembers(s) && g->leader < 0; i++) {
		m = group_member_at(s, g, i);
		if (active(m) && (m->kflags & KMEMBER_JOINING))
			g->leader = (int32_t)i;
	}
	g->generation++;
	g->initial = 0;
	if (count_active(s, g) == 0 || select_protocol(s, g) == -1) {
		/* Nobody left (or, after a repair, nothing in common). */
		for (i = 0; i < nmembers(s); i++)
			atomic_store_explicit(&group_member_at(s, g, i)->state,
			    MEMBER_FREE, memory_order_release);
		g->leader = -1;
		g->proto_len = 0;
		g->ntopics = 0;
		g->state = GROUP_EMPTY;
		return;
	}
	if (g->leader < 0 || (uint32_t)g->leader >= nmembers(s) ||
	    !active(group_member_at(s, g, (uint32_t)g->leader))) {
		g->leader = -1;
		for (i = 0; i < nmembers(s) && g->leader < 0; i++)
			if (active(group_member_at(s, g, i)))
				g->leader = (int32_t)i;
	}
	for (i = 0; i < nmembers(s); i++) {
		m = group_member_at(s, g, i);
		if (!active(m))
			continue;
		m->joined_gen = g->generation;
		m->kflags &= ~(uint32_t)KMEMBER_JOINING;
		m->last_seen_ms = now;
		m->assign_len = 0;
	}
	subscription_record(s, g);
	g->state = GROUP_AWAITING_SYNC;
}

static void
member_remove(struct shm *s, struct shm_group *g, uint32_t i, int64_t now,
    const struct group_params *gp)
{
	atomic_store_explicit(&group_member_at(s, g, i)->state, MEMBER_FREE,
	    memory_order_release);
	if ((int32_t)i == g->leader)
		g->leader = -1;
	if (g->state == GROUP_STABLE || g->state == GROUP_AWAITING_SYNC)
		prepare(s, g, now, gp);
}

int
kgroup_tick(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	uint32_t i, state0 = g->state, gen0 = g->generation;
	int all;

	for (i = 0; i < nmembers(s); i++) {
		m = group_member_at(s, g, i);
		if (!active(m))
			continue;
		/* Waiting in the join phase it rejoined: not silent. */
		if (g->state == GROUP_REBALANCING && (m->kflags & KMEMBER_JOINING))
			continue;
		if (now - m->last_seen_ms > m->session_timeout_ms)
			member_remove(s, g, i, now, gp);
	}
	/* As Kafka's coordinator drops a deleted topic's offsets: rejoin. */
	if ((g->state == GROUP_STABLE || g->state == GROUP_AWAITING_SYNC) &&
	    subscription_gone(s, g))
		prepare(s, g, now, gp);
	if (g->state == GROUP_REBALANCING) {
		all = !g->initial;
		for (i = 0; all && i < nmembers(s); i++) {
			m = group_member_at(s, g, i);
			if (active(m) && !(m->kflags & KMEMBER_JOINING))
				all = 0;
		}
		if (all || now >= g->rebalance_deadline) {
			/*
			 * Only static members that did not rejoin are left:
			 * nobody can lead, so wait another round (Kafka does);
			 * their session timeouts end it.
			 */
			int joined = 0;

			for (i = 0; i < nmembers(s); i++) {
				m = group_member_at(s, g, i);
				if (active(m) && (m->kflags & KMEMBER_JOINING))
					joined = 1;
			}
			if (!joined && count_active(s, g) > 0)
				g->rebalance_deadline = now +
				    rebalance_timeout(s, g, gp);
			else
				complete(s, g, now);
		}
	}
	return g->state != state0 || g->generation != gen0;
}

void
kgroup_repair(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	uint32_t i, max = s->hdr->limits.member_meta;

	for (i = 0; i < nmembers(s); i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) ==
		    MEMBER_FREE)
			continue;
		if (!active(m) || m->id_len == 0 || m->id_len > MEMBER_ID_MAX ||
		    m->client_len > CLIENT_ID_MAX ||
		    m->host_len > MEMBER_HOST_MAX || m->meta_len > max ||
		    m->instance_len > KGROUP_INSTANCE_MAX ||
		    m->assign_len > max || m->session_timeout_ms <= 0)
			atomic_store_explicit(&m->state, MEMBER_FREE,
			    memory_order_release);
	}
	if (g->ptype_len > KGROUP_PROTO_MAX)
		g->ptype_len = 0;
	if (g->proto_len > KGROUP_PROTO_MAX)
		g->proto_len = 0;
	if (g->state == GROUP_EMPTY && count_active(s, g) == 0)
		return;
	g->state = GROUP_STABLE;	/* so that prepare() starts a new round */
	prepare(s, g, now, gp);
}

void
kgroup_adopt(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	memcpy(g->ptype, "consumer", 9);
	g->ptype_len = 8;
	g->leader = -1;
	g->initial = 0;
	g->ntopics = 0;
	if (select_protocol(s, g) == -1)
		g->proto_len = 0;
	g->state = GROUP_STABLE;	/* so that prepare() starts a round */
	prepare(s, g, now, gp);
}

/* Store in's protocols in member i's space; a Kafka error code. */
int16_t
kgroup_store_protocols(struct shm *s, struct shm_group *g, uint32_t i,
    const struct kgroup_join_in *in)
{
	struct shm_member *m = group_member_at(s, g, i);
	uint8_t *p = group_meta(s, g, i);
	size_t need = 0, off = 0;
	uint32_t k;

	for (k = 0; k < in->nprotos; k++) {
		if (in->protos[k].name_len > KGROUP_PROTO_MAX ||
		    in->protos[k].meta_len > UINT32_MAX)
			return KERR_INVALID_REQUEST;
		need += 6 + in->protos[k].name_len + in->protos[k].meta_len;
	}
	if (p == NULL || need > s->hdr->limits.member_meta)
		return KERR_MESSAGE_TOO_LARGE;
	for (k = 0; k < in->nprotos; k++) {
		const struct kgroup_proto *q = &in->protos[k];

		p[off] = (uint8_t)(q->name_len >> 8);
		p[off + 1] = (uint8_t)q->name_len;
		if (q->name_len > 0)
			memcpy(p + off + 2, q->name, q->name_len);
		off += 2 + q->name_len;
		p[off] = (uint8_t)(q->meta_len >> 24);
		p[off + 1] = (uint8_t)(q->meta_len >> 16);
		p[off + 2] = (uint8_t)(q->meta_len >> 8);
		p[off + 3] = (uint8_t)q->meta_len;
		if (q->meta_len > 0)
			memcpy(p + off + 4, q->meta, q->meta_len);
		off += 4 + q->meta_len;
	}
	m->meta_len = (uint32_t)off;
	m->nprotocols = in->nprotos;
	return KERR_NONE;
}

/* Are member i's stored protocols exactly in's? */
static int
protocols_match(const struct shm *s, struct shm_group *g, uint32_t i,
    const struct kgroup_join_in *in)
{
	const uint8_t *meta;
	const char *name;
	size_t nl, ml;
	uint32_t k;

	if (group_member_at(s, g, i)->nprotocols != in->nprotos)
		return 0;
	for (k = 0; k < in->nprotos; k++)
		if (proto_at(s, g, i, k, &name, &nl, &meta, &ml) == -1 ||
		    nl != in->protos[k].name_len ||
		    (nl > 0 && memcmp(name, in->protos[k].name, nl) != 0) ||
		    ml != in->protos[k].meta_len ||
		    (ml > 0 && memcmp(meta, in->protos[k].meta, ml) != 0))
			return 0;
	return 1;
}

/* Does the group (but member skip) support one of in's protocols? */
static int
supports(const struct shm *s, struct shm_group *g,
    const struct kgroup_join_in *in, int skip)
{
	uint32_t k, i, others = 0;

	for (i = 0; i < nmembers(s); i++)
		if ((int)i != skip && active(group_member_at(s, g, i)))
			others++;
	if (others == 0)
		return 1;
	if (g->ptype_len != in->ptype_len ||
	    memcmp(g->ptype, in->ptype, in->ptype_len) != 0)
		return 0;
	for (k = 0; k < in->nprotos; k++)
		if (proto_common(s, g, in->protos[k].name,
		    in->protos[k].name_len, skip))
			return 1;
	return 0;
}

static void
member_touch(struct shm_member *m, const struct kgroup_join_in *in,
    int64_t now)
{
	m->session_timeout_ms = in->session_timeout_ms;
	m->rebalance_timeout_ms = in->rebalance_timeout_ms;
	m->last_seen_ms = now;
}

/*
 * A pending member's id (KIP-394) is not stored: its last 4 hex digits
 * are a check of the group's name, generation and the rest of the id,
 * so that the join that follows MEMBER_ID_REQUIRED is told from an
 * unknown or stale id (UNKNOWN_MEMBER_ID) without a table of pending
 * members.  A generation completed in between invalidates it (the
 * client gets UNKNOWN_MEMBER_ID and starts again, as after a Kafka
 * coordinator's pending member expired).
 */
#define PENDING_CHECK	4

static uint32_t
pending_check(const struct shm_group *g, const char *id, size_t len)
{
	uint32_t h = 2166136261u, gen = g->generation;
	size_t i;

	for (i = 0; i < g->name_len; i++)
		h = (h ^ (uint8_t)g->name[i]) * 16777619u;
	for (i = 0; i < sizeof(gen); i++, gen >>= 8)
		h = (h ^ (gen & 0xff)) * 16777619u;
	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)id[i]) * 16777619u;
	return (h ^ (h >> 16)) & 0xffff;
}

static size_t
pending_make(struct shm *s, struct shm_group *g, const char *client,
    size_t clen, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = group_member_id_make(s, g, client, clen, out);
	uint32_t h = pending_check(g, out, n - PENDING_CHECK);
	int i;

	for (i = PENDING_CHECK - 1; i >= 0; i--, h >>= 4)
		out[n - PENDING_CHECK + (size_t)i] = hex[h & 15];
	return n;
}

static int
pending_valid(const struct shm_group *g, const char *id, size_t len)
{
	uint32_t h = 0;
	size_t i;

	if (len <= PENDING_CHECK + 1 || len > MEMBER_ID_MAX)
		return 0;
	for (i = len - PENDING_CHECK; i < len; i++) {
		if (id[i] >= '0' && id[i] <= '9')
			h = h << 4 | (uint32_t)(id[i] - '0');
		else if (id[i] >= 'a' && id[i] <= 'f')
			h = h << 4 | (uint32_t)(id[i] - 'a' + 10);
		else
			return 0;
	}
	return h == pending_check(g, id, len - PENDING_CHECK);
}

int
kgroup_instance_find(const struct shm *s, struct shm_group *g,
    const char *inst, size_t ilen)
{
	struct shm_member *m;
	uint32_t i;

	if (inst == NULL || ilen == 0 || ilen > KGROUP_INSTANCE_MAX)
		return -1;
	for (i = 0; i < nmembers(s); i++) {
		m = group_member_at(s, g, i);
		if (active(m) && m->instance_len == ilen &&
		    memcmp(m->instance, inst, ilen) == 0)
			return (int)i;
	}
	return -1;
}

/*
 * Kafka's validateCurrentMember: with an instance id, it must be known
 * (else UNKNOWN_MEMBER_ID) and held by this member id (else
 * FENCED_INSTANCE_ID); without, the member id must be known.
 */
static int16_t
member_validate(struct shm *s, struct shm_group *g, const char *id,
    size_t len, const char *inst, size_t ilen, int *idx)
{
	struct shm_member *m;
	int i;

	if (inst != NULL && ilen > 0) {
		if ((i = kgroup_instance_find(s, g, inst, ilen)) == -1)
			return KERR_UNKNOWN_MEMBER_ID;
		m = group_member_at(s, g, (uint32_t)i);
		if (m->id_len != len || memcmp(m->id, id, len) != 0)
			return KERR_FENCED_INSTANCE_ID;
		*idx = i;
		return KERR_NONE;
	}
	if ((*idx = group_member_find(s, g, id, len)) == -1)
		return KERR_UNKNOWN_MEMBER_ID;
	return KERR_NONE;
}

/*
 * A known static member joins with no member id (a restart, or a second
 * process with the same instance id): slot idx takes a new member id and
 * the old one is fenced.  In a STABLE group whose selected protocol
 * stays, it is answered at once with the generation and keeps its
 * assignment (no rebalance: Kafka's updateStaticMemberAndRebalance);
 * otherwise it joins the rebalance, which starts unless under way.
 */
static int16_t
static_replace(struct shm *s, struct shm_group *g, int idx,
    const struct kgroup_join_in *in, int64_t now,
    const struct group_params *gp, int *ready)
{
	struct shm_member *m = group_member_at(s, g, (uint32_t)idx);
	char id[MEMBER_ID_MAX + 1], proto[KGROUP_PROTO_MAX + 1];
	uint16_t plen = g->proto_len <= KGROUP_PROTO_MAX ? g->proto_len : 0;
	size_t n;
	int16_t err;

	if (!protocols_match(s, g, (uint32_t)idx, in) &&
	    (err = kgroup_store_protocols(s, g, (uint32_t)idx, in)) != KERR_NONE)
		return err;
	member_touch(m, in, now);
	/*
	 * The id, then its length: a crash between leaves an id nobody
	 * holds, which the repair's rebalance and the session timeout
	 * clear like any silent member's.
	 */
	n = group_member_id_make(s, g, in->instance, in->instance_len, id);
	memcpy(m->id, id, n + 1);
	m->id_len = (uint16_t)n;
	if (g->state == GROUP_STABLE) {
		memcpy(proto, g->proto, plen);
		if (select_protocol(s, g) == 0 && g->proto_len == plen &&
		    memcmp(g->proto, proto, plen) == 0) {
			*ready = 1;
			if (in->replaced != NULL)
				*in->replaced = 1;
			return KERR_NONE;
		}
		memcpy(g->proto, proto, plen);	/* complete() selects anew */
		g->proto[plen] = '\0';
		g->proto_len = plen;
	}
	prepare(s, g, now, gp);
	m->kflags |= KMEMBER_JOINING;
	(void)kgroup_tick(s, g, now, gp);
	return KERR_NONE;
}

int16_t
kgroup_join(struct shm *s, struct shm_group *g, const struct kgroup_join_in *in,
    int64_t now, const struct group_params *gp, int *member, int *ready)
{
	struct shm_member *m;
	uint32_t i;
	int16_t err;
	int idx = -1, inst = -1;
	size_t ilen = in->instance != NULL ? in->instance_len : 0;

	*ready = 0;
	if (in->replaced != NULL)
		*in->replaced = 0;
	if (ilen > KGROUP_INSTANCE_MAX)
		return KERR_INVALID_REQUEST;
	if (in->session_timeout_ms < gp->min_session_ms ||
	    in->session_timeout_ms > gp->max_session_ms)
		return KERR_INVALID_SESSION_TIMEOUT;
	if (in->nprotos == 0 || in->ptype_len == 0 ||
	    in->ptype_len > KGROUP_PROTO_MAX ||
	    in->client_id_len > CLIENT_ID_MAX)
		return KERR_INCONSISTENT_GROUP_PROTOCOL;
	if (g->kind != GROUP_KIND_KAFKA) {
		(void)group_tick(s, g, now, gp);
		if (group_member_count(s, g) > 0)
			return KERR_INCONSISTENT_GROUP_PROTOCOL;
		/* No members: it becomes a Kafka group, still EMPTY. */
		g->state = GROUP_EMPTY;
		g->leader = -1;
		g->initial = 0;
		g->ntopics = 0;		/* a native subscription means nothing here */
		g->kind = GROUP_KIND_KAFKA;
	}
	(void)kgroup_tick(s, g, now, gp);
	if (ilen > 0) {
		inst = kgroup_instance_find(s, g, in->instance, ilen);
		if (in->member_id_len > 0) {
			/* A known member id must hold the instance. */
			idx = group_member_find(s, g, in->member_id,
			    in->member_id_len);
			if (inst >= 0 && inst != idx)
				return KERR_FENCED_INSTANCE_ID;
			if (idx == -1 || inst == -1)
				return KERR_UNKNOWN_MEMBER_ID;
		} else if (inst >= 0) {
			if (!supports(s, g, in, inst))
				return KERR_INCONSISTENT_GROUP_PROTOCOL;
			*member = inst;
			return static_replace(s, g, inst, in, now, gp, ready);
		}
	} else if (in->member_id_len > 0 && (idx = group_member_find(s, g,
	    in->member_id, in->member_id_len)) == -1 &&
	    !(in->require_id && pending_valid(g, in->member_id,
	    in->member_id_len)))
		return KERR_UNKNOWN_MEMBER_ID;
	if (!supports(s, g, in, idx))
		return KERR_INCONSISTENT_GROUP_PROTOCOL;
	/* A static member joins with no id round trip (Kafka's rule). */
	if (in->require_id && in->member_id_len == 0 && ilen == 0) {
		*in->pending_len = pending_make(s, g, in->client_id,
		    in->client_id_len, in->pending);
		return KERR_MEMBER_ID_REQUIRED;
	}
	if (idx >= 0) {
		m = group_member_at(s, g, (uint32_t)idx);
		*member = idx;
		member_touch(m, in, now);
		if ((g->state == GROUP_AWAITING_SYNC || (g->state ==
		    GROUP_STABLE && idx != g->leader)) &&
		    protocols_match(s, g, (uint32_t)idx, in)) {
			/* Nothing changed: the current generation again. */
			*ready = 1;
			return KERR_NONE;
		}
		if (!protocols_match(s, g, (uint32_t)idx, in) &&
		    (err = kgroup_store_protocols(s, g, (uint32_t)idx, in)) != KERR_NONE)
			return err;
		prepare(s, g, now, gp);
		m->kflags |= KMEMBER_JOINING;
		(void)kgroup_tick(s, g, now, gp);
		return KERR_NONE;
	}

	/* A new member. */
	for (i = 0; i < nmembers(s); i++)
		if (!active(group_member_at(s, g, i)))
			break;
	if (i == nmembers(s))
		return KERR_POLICY_VIOLATION;	/* max_group_members */
	m = group_member_at(s, g, i);
	m->kflags = 0;
	m->joined_gen = 0;
	m->ntopics = 0;
	m->assign_len = 0;
	member_touch(m, in, now);
	if ((err = kgroup_store_protocols(s, g, i, in)) != KERR_NONE)
		return err;
	/* A null client id (or host) comes as NULL with length 0. */
	memset(m->client, 0, sizeof(m->client));
	if (in->client_id_len > 0)
		memcpy(m->client, in->client_id, in->client_id_len);
	m->client_len = (uint16_t)in->client_id_len;
	m->host_len = (uint16_t)(in->host_len > MEMBER_HOST_MAX ?
	    MEMBER_HOST_MAX : in->host_len);
	if (m->host_len > 0)
		memcpy(m->host, in->host, m->host_len);
	m->host[m->host_len] = '\0';
	memset(m->instance, 0, sizeof(m->instance));
	if (ilen > 0)
		memcpy(m->instance, in->instance, ilen);
	m->instance_len = (uint16_t)ilen;
	memset(m->id, 0, sizeof(m->id));
	if (in->member_id_len > 0) {	/* the id MEMBER_ID_REQUIRED gave */
		memcpy(m->id, in->member_id, in->member_id_len);
		m->id_len = (uint16_t)in->member_id_len;
	} else if (ilen > 0)	/* Kafka's "<instance id>-<uuid>" */
		m->id_len = (uint16_t)group_member_id_make(s, g, in->instance,
		    ilen, m->id);
	else
		m->id_len = (uint16_t)group_member_id_make(s, g, in->client_id,
		    in->client_id_len, m->id);
	if (count_active(s, g) == 0) {
		memcpy(g->ptype, in->ptype, in->ptype_len);
		g->ptype[in->ptype_len] = '\0';
		g->ptype_len = (uint16_t)in->ptype_len;
	}
	prepare(s, g, now, gp);
	m->kflags = KMEMBER_JOINING;
	atomic_store_explicit(&m->state, MEMBER_ACTIVE, memory_order_release);
	if (g->initial) {
		/* Members keep arriving: wait once more, within the timeout. */
		int64_t end = g->rebalance_start + rebalance_timeout(s, g, gp);

		g->rebalance_deadline = now + gp->initial_delay_ms < end ?
		    now + gp->initial_delay_ms : end;
	}
	*member = (int)i;
	(void)kgroup_tick(s, g, now, gp);
	return KERR_NONE;
}

int
kgroup_join_ready(struct shm *s, struct shm_group *g, int member,
    const char *id, size_t len, uint32_t wait_gen, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;

	(void)group_tick(s, g, now, gp);
	m = member >= 0 ? group_member_at(s, g, (uint32_t)member) : NULL;
	if (g->kind != GROUP_KIND_KAFKA || m == NULL || !active(m) ||
	    m->id_len != len || memcmp(m->id, id, len) != 0)
		return -1;
	if (g->state == GROUP_REBALANCING && !(m->kflags & KMEMBER_JOINING)) {
		/* A round forced while we waited (a repair): join it. */
		m->kflags |= KMEMBER_JOINING;
		m->last_seen_ms = now;
		(void)group_tick(s, g, now, gp);
	}
	return g->generation != wait_gen && m->joined_gen == g->generation &&
	    !(m->kflags & KMEMBER_JOINING) ? 1 : 0;
}

int
kgroup_member_metadata(const struct shm *s, struct shm_group *g, uint32_t i,
    const uint8_t **meta, size_t *len)
{
	const char *name;
	size_t nl;
	uint32_t k;

	for (k = 0; proto_at(s, g, i, k, &name, &nl, meta, len) == 0; k++)
		if (nl == g->proto_len && memcmp(name, g->proto, nl) == 0)
			return 0;
	return -1;
}

/* The member (index) of id in the generation, checks as Kafka's. */
static int16_t
member_check(struct shm *s, struct shm_group *g, const char *id, size_t len,
    const char *inst, size_t ilen, int32_t generation, int *idx)
{
	int16_t err;

	if (g->kind != GROUP_KIND_KAFKA)
		return group_member_count(s, g) > 0 ?
		    KERR_INCONSISTENT_GROUP_PROTOCOL : KERR_UNKNOWN_MEMBER_ID;
	if (g->state == GROUP_EMPTY)
		return KERR_UNKNOWN_MEMBER_ID;
	if ((err = member_validate(s, g, id, len, inst, ilen, idx)) !=
	    KERR_NONE)
		return err;
	if ((uint32_t)generation != g->generation)
		return KERR_ILLEGAL_GENERATION;
	return KERR_NONE;
}

int16_t
kgroup_sync(struct shm *s, struct shm_group *g, const char *id, size_t len,
    const char *inst, size_t ilen, int32_t generation, const struct kgroup_assign_in *a, uint32_t na,
    int64_t now, const struct group_params *gp, int *member, int *ready)
{
	struct shm_member *m;
	uint32_t i, k;
	int16_t err;
	int idx = -1, j;

	*ready = 0;
	(void)group_tick(s, g, now, gp);
	if ((err = member_check(s, g, id, len, inst, ilen, generation,
	    &idx)) != KERR_NONE)
		return err;
	*member = idx;
	group_member_at(s, g, (uint32_t)idx)->last_seen_ms = now;
	if (g->state == GROUP_REBALANCING)
		return KERR_REBALANCE_IN_PROGRESS;
	if (g->state == GROUP_STABLE) {
		*ready = 1;
		return KERR_NONE;
	}
	if (idx != g->leader)
		return KERR_NONE;	/* waits for the leader's */
	for (k = 0; k < na; k++)
		if (a[k].len > s->hdr->limits.member_meta) {
			/* Refused whole; everyone rejoins and the leader retries. */
			prepare(s, g, now, gp);
			return KERR_MESSAGE_TOO_LARGE;
		}
	for (i = 0; i < nmembers(s); i++)
		group_member_at(s, g, i)->assign_len = 0;
	for (k = 0; k < na; k++) {
		if ((j = group_member_find(s, g, a[k].member_id,
		    a[k].member_id_len)) == -1)
			continue;
		m = group_member_at(s, g, (uint32_t)j);
		if (a[k].len > 0)
			memcpy(group_assign(s, g, (uint32_t)j), a[k].data, a[k].len);
		m->assign_len = (uint32_t)a[k].len;
	}
	/* Published last: a crash before this leaves AWAITING_SYNC (repaired). */
	g->state = GROUP_STABLE;
	*ready = 1;
	return KERR_NONE;
}

int
kgroup_sync_ready(struct shm *s, struct shm_group *g, int member,
    const char *id, size_t len, int32_t generation, int64_t now,
    const struct group_params *gp, int16_t *err)
{
	struct shm_member *m;

	(void)group_tick(s, g, now, gp);
	m = member >= 0 ? group_member_at(s, g, (uint32_t)member) : NULL;
	if (g->kind != GROUP_KIND_KAFKA || m == NULL || !active(m) ||
	    m->id_len != len || memcmp(m->id, id, len) != 0) {
		*err = KERR_UNKNOWN_MEMBER_ID;
		return -1;
	}
	if ((uint32_t)generation != g->generation ||
	    g->state == GROUP_REBALANCING) {
		*err = KERR_REBALANCE_IN_PROGRESS;
		return -1;
	}
	*err = KERR_NONE;
	return g->state == GROUP_STABLE ? 1 : 0;
}

int16_t
kgroup_heartbeat(struct shm *s, struct shm_group *g, const char *id,
    size_t len, const char *inst, size_t ilen, int32_t generation, int64_t now,
    const struct group_params *gp)
{
	int16_t err;
	int idx = -1;

	(void)group_tick(s, g, now, gp);
	if ((err = member_check(s, g, id, len, inst, ilen, generation,
	    &idx)) != KERR_NONE)
		return err;
	group_member_at(s, g, (uint32_t)idx)->last_seen_ms = now;
	return g->state == GROUP_STABLE ? KERR_NONE : KERR_REBALANCE_IN_PROGRESS;
}

int16_t
kgroup_leave(struct shm *s, struct shm_group *g, const char *id, size_t len,
    const char *inst, size_t ilen, int64_t now, const struct group_params *gp)
{
	int16_t err;
	int idx = -1;

	(void)group_tick(s, g, now, gp);
	if (g->kind != GROUP_KIND_KAFKA)
		return KERR_UNKNOWN_MEMBER_ID;
	if (len == 0) {
		/* By instance id alone (v3+: an admin's removal). */
		if ((idx = kgroup_instance_find(s, g, inst, ilen)) == -1)
			return KERR_UNKNOWN_MEMBER_ID;
	} else if ((err = member_validate(s, g, id, len, inst, ilen, &idx)) !=
	    KERR_NONE)
		return err;
	member_remove(s, g, (uint32_t)idx, now, gp);
	(void)group_tick(s, g, now, gp);
	return KERR_NONE;
}

int16_t
kgroup_commit_topic(struct shm *s, struct shm_group *g, int topic)
{
	uint32_t k;

	if (g->kind != GROUP_KIND_KAFKA || topic < 0)
		return KERR_NONE;
	for (k = 0; k < g->ntopics && k < GROUP_TOPICS_MAX; k++)
		if (g->topics[k].topic == (uint32_t)topic &&
		    group_topic_incarnation(s, (uint32_t)topic) !=
		    g->topics[k].incarnation)
			return KERR_UNKNOWN_TOPIC_OR_PARTITION;
	return KERR_NONE;
}

int16_t
kgroup_commit_check(struct shm *s, struct shm_group *g, const char *id,
    size_t len, const char *inst, size_t ilen, int32_t generation,
    int64_t now, const struct group_params *gp)
{
	int16_t err;
	int idx = -1;

	(void)group_tick(s, g, now, gp);
	if (generation < 0 && len == 0 && (inst == NULL || ilen == 0) &&
	    group_member_count(s, g) == 0) {
		if (g->kind == GROUP_KIND_NONE)
			g->kind = GROUP_KIND_KAFKA;
		return KERR_NONE;
	}
	if (g->kind == GROUP_KIND_KAFKA && g->state == GROUP_AWAITING_SYNC)
		return KERR_REBALANCE_IN_PROGRESS;
	if ((err = member_check(s, g, id, len, inst, ilen, generation,
	    &idx)) != KERR_NONE)
		return err;
	group_member_at(s, g, (uint32_t)idx)->last_seen_ms = now;
	return KERR_NONE;
}
