/*
 * The consumer-group table in shared memory and its state machine (see
 * shm/group.h for the layout, the states and the crash rule).
 *
 * Group creation is serialised by the directory lock and publishes like
 * the topic directory: the slot is filled, `used` is stored (release),
 * then `count` covers it; a creator that dies between the two is rolled
 * forward by the next one.  Everything else about a group changes under
 * its own robust lock, in orders that keep each member slot whole: a
 * new member is filled before its state becomes ACTIVE, a leaving one is
 * freed by one store.
 */
#include <bsd/stdlib.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "shm/lock.h"
#include "shm/shm.h"

#define GROUP_ALIGN		64
#define GROUP_MEMBERS_MAX	1024	/* config caps max_group_members here */
#define MEMBER_PREFIX_MAX	40	/* of the client id, in a generated member id */

static size_t
align64(size_t v)
{
	return (v + GROUP_ALIGN - 1) & ~(size_t)(GROUP_ALIGN - 1);
}

/* Bytes of one group (header, members, offsets); SIZE_MAX on overflow. */
static size_t
group_stride(const struct shm_limits *lim)
{
	size_t m, o, k, n;

	if (__builtin_mul_overflow((size_t)lim->max_group_members,
	    sizeof(struct shm_member), &m) ||
	    __builtin_mul_overflow((size_t)lim->max_partitions,
	    2 * sizeof(int64_t), &o) ||
	    __builtin_mul_overflow((size_t)lim->max_group_members,
	    2 * (size_t)lim->member_meta, &k) ||
	    __builtin_add_overflow(sizeof(struct shm_group), m, &n) ||
	    __builtin_add_overflow(n, o, &n) ||
	    __builtin_add_overflow(n, k, &n) || n > SIZE_MAX - GROUP_ALIGN)
		return SIZE_MAX;
	return align64(n);
}

size_t
group_table_size(const struct shm_limits *lim)
{
	size_t stride, n;

	if (lim->max_groups == 0)
		return 0;
	if (lim->max_group_members < 1 || lim->max_group_members > GROUP_MEMBERS_MAX)
		return SIZE_MAX;
	if ((stride = group_stride(lim)) == SIZE_MAX ||
	    __builtin_mul_overflow((size_t)lim->max_groups, stride, &n) ||
	    __builtin_add_overflow(n, align64(sizeof(struct shm_group_dir)), &n))
		return SIZE_MAX;
	return n;
}

static struct shm_group_dir *
group_dir(const struct shm *s)
{
	return (struct shm_group_dir *)(void *)s->groups;
}

int
group_table_init(struct shm *s)
{
	uint32_t i;

	if (s->hdr->limits.max_groups == 0)
		return 0;
	if (lock_init(&group_dir(s)->lock) == -1)
		return -1;
	for (i = 0; i < s->hdr->limits.max_groups; i++)
		if (lock_init(&group_at(s, i)->lock) == -1)
			return -1;
	return 0;
}

uint32_t
group_count(const struct shm *s)
{
	uint32_t n;

	if (s->hdr->limits.max_groups == 0)
		return 0;
	n = atomic_load_explicit(&group_dir(s)->count, memory_order_acquire);
	return n < s->hdr->limits.max_groups ? n : s->hdr->limits.max_groups;
}

struct shm_group *
group_at(const struct shm *s, uint32_t i)
{
	const struct shm_limits *lim = &s->hdr->limits;

	if (i >= lim->max_groups)
		return NULL;
	return (struct shm_group *)(void *)(s->groups +
	    align64(sizeof(struct shm_group_dir)) + (size_t)i * group_stride(lim));
}

struct shm_member *
group_member_at(const struct shm *s, struct shm_group *g, uint32_t i)
{
	if (i >= s->hdr->limits.max_group_members)
		return NULL;
	return (struct shm_member *)(void *)((uint8_t *)g + sizeof(*g)) + i;
}

static int64_t *
group_offsets(const struct shm *s, struct shm_group *g)
{
	return (int64_t *)(void *)((uint8_t *)g + sizeof(*g) +
	    (size_t)s->hdr->limits.max_group_members * sizeof(struct shm_member));
}

uint8_t *
group_meta(const struct shm *s, struct shm_group *g, uint32_t i)
{
	const struct shm_limits *lim = &s->hdr->limits;

	if (i >= lim->max_group_members || lim->member_meta == 0)
		return NULL;
	return (uint8_t *)(group_offsets(s, g) + 2 * (size_t)lim->max_partitions) +
	    (size_t)i * 2 * lim->member_meta;
}

uint8_t *
group_assign(const struct shm *s, struct shm_group *g, uint32_t i)
{
	uint8_t *p = group_meta(s, g, i);

	return p == NULL ? NULL : p + s->hdr->limits.member_meta;
}

/* The offsets the writer last logged: right after the committed ones. */
static int64_t *
group_logged(const struct shm *s, struct shm_group *g)
{
	return group_offsets(s, g) + s->hdr->limits.max_partitions;
}

int64_t
group_logged_get(const struct shm *s, struct shm_group *g, uint32_t slot)
{
	if (slot >= s->hdr->limits.max_partitions)
		return -1;
	return group_logged(s, g)[slot];
}

void
group_logged_set(const struct shm *s, struct shm_group *g, uint32_t slot,
    int64_t offset)
{
	if (slot < s->hdr->limits.max_partitions)
		group_logged(s, g)[slot] = offset;
}

int64_t
group_offset_get(const struct shm *s, struct shm_group *g, uint32_t slot)
{
	if (slot >= s->hdr->limits.max_partitions)
		return -1;
	return __atomic_load_n(&group_offsets(s, g)[slot], __ATOMIC_ACQUIRE);
}

void
group_offset_set(const struct shm *s, struct shm_group *g, uint32_t slot,
    int64_t offset)
{
	if (slot >= s->hdr->limits.max_partitions)
		return;
	__atomic_store_n(&group_offsets(s, g)[slot], offset, __ATOMIC_RELEASE);
	atomic_fetch_add_explicit(&g->commit_seq, 1, memory_order_release);
}

int
group_find(struct shm *s, const char *name, size_t len)
{
	struct shm_group *g;
	uint32_t i, n;

	if (len == 0 || len > GROUP_NAME_MAX)
		return -1;
	n = group_count(s);
	for (i = 0; i < n; i++) {
		g = group_at(s, i);
		if (atomic_load_explicit(&g->used, memory_order_acquire) !=
		    GROUP_SLOT_USED)
			continue;
		if (g->name_len == len && memcmp(g->name, name, len) == 0)
			return (int)i;
	}
	return -1;
}

/* Under the directory lock: publish slots whose creator died after `used`. */
static void
group_roll_forward(struct shm *s)
{
	struct shm_group_dir *d = group_dir(s);
	uint32_t n = atomic_load_explicit(&d->count, memory_order_relaxed);

	while (n < s->hdr->limits.max_groups &&
	    atomic_load_explicit(&group_at(s, n)->used, memory_order_acquire) !=
	    GROUP_SLOT_FREE) {
		n++;
		atomic_store_explicit(&d->count, n, memory_order_release);
	}
}

uint32_t
group_reserved(const struct shm_limits *lim)
{
	if (lim->max_groups < 2)
		return 0;
	return lim->max_groups / 8 > 0 ? lim->max_groups / 8 : 1;
}

/*
 * Under the directory lock: a slot for a new group, FREE ones below
 * count first, or -1 (ENOSPC) when a group created by a commit alone
 * (join 0) would leave fewer than group_reserved() slots.
 */
static int
group_slot_pick(struct shm *s, uint32_t n, int join)
{
	uint32_t i, nfree, first = UINT32_MAX;

	nfree = s->hdr->limits.max_groups - n;
	for (i = 0; i < n; i++) {
		if (atomic_load_explicit(&group_at(s, i)->used,
		    memory_order_acquire) != GROUP_SLOT_FREE)
			continue;
		if (first == UINT32_MAX)
			first = i;
		nfree++;
	}
	if (nfree == 0 || (!join && nfree <= group_reserved(&s->hdr->limits))) {
		errno = ENOSPC;
		return -1;
	}
	return first != UINT32_MAX ? (int)first : (int)n;
}

int
group_create(struct shm *s, const char *name, size_t len, int join)
{
	struct shm_group_dir *d;
	struct shm_group *g;
	uint32_t i, n;
	int idx, locked;

	if (len == 0 || len > GROUP_NAME_MAX) {
		errno = EINVAL;
		return -1;
	}
	if ((idx = group_find(s, name, len)) >= 0)
		return idx;
	if (s->hdr->limits.max_groups == 0) {
		errno = ENOSPC;
		return -1;
	}
	d = group_dir(s);
	if (lock_take(&d->lock, NULL, NULL) == -1)
		return -1;
	group_roll_forward(s);
	if ((idx = group_find(s, name, len)) >= 0) {
		lock_release(&d->lock);
		return idx;
	}
	n = atomic_load_explicit(&d->count, memory_order_relaxed);
	if ((idx = group_slot_pick(s, n, join)) == -1) {
		lock_release(&d->lock);
		return -1;
	}
	g = group_at(s, (uint32_t)idx);
	/*
	 * A reused slot may still be looked at by a process that found the
	 * group it held: fill it under its lock, which that process takes
	 * (and then sees the name) before it uses the group.  Slot n has
	 * never been locked by anyone.
	 */
	locked = (uint32_t)idx < n;
	if (locked && lock_take(&g->lock, NULL, NULL) == -1) {
		lock_release(&d->lock);
		return -1;
	}
	g->name_len = (uint32_t)len;
	memset(g->name, 0, sizeof(g->name));
	memcpy(g->name, name, len);
	g->state = GROUP_EMPTY;
	g->generation = 0;
	g->rebalance_deadline = 0;
	g->ntopics = 0;
	g->kind = GROUP_KIND_NONE;
	g->gen_members = 0;
	g->leader = -1;
	g->initial = 0;
	g->ptype_len = g->proto_len = 0;
	/* A reused slot's never goes back to a value the writer saved. */
	if (locked)
		atomic_fetch_add_explicit(&g->commit_seq, 1, memory_order_relaxed);
	else
		atomic_store_explicit(&g->commit_seq, 0, memory_order_relaxed);
	memset(group_member_at(s, g, 0), 0,
	    (size_t)s->hdr->limits.max_group_members * sizeof(struct shm_member));
	for (i = 0; i < s->hdr->limits.max_partitions; i++) {
		__atomic_store_n(&group_offsets(s, g)[i], -1, __ATOMIC_RELAXED);
		group_logged(s, g)[i] = -1;
	}
	atomic_store_explicit(&g->used, GROUP_SLOT_USED, memory_order_release);
	if (locked)
		lock_release(&g->lock);
	else
		atomic_store_explicit(&d->count, n + 1, memory_order_release);
	lock_release(&d->lock);
	return idx;
}

int16_t
group_delete(struct shm *s, uint32_t idx, int64_t now,
    const struct group_params *gp, uint64_t if_seq)
{
	struct shm_group_dir *d = group_dir(s);
	struct shm_group *g;
	uint32_t i;
	int16_t err = ERR_NONE;

	if (idx >= group_count(s) || (g = group_at(s, idx)) == NULL)
		return ERR_INVALID_GROUP;
	if (lock_take(&d->lock, NULL, NULL) == -1)
		return ERR_UNKNOWN;
	if (group_lock(s, g, now, gp) == -1) {
		lock_release(&d->lock);
		return ERR_UNKNOWN;
	}
	if (atomic_load_explicit(&g->used, memory_order_acquire) !=
	    GROUP_SLOT_USED)
		err = ERR_INVALID_GROUP;
	else {
		/* Members silent past their session are gone already. */
		(void)group_tick(s, g, now, gp);
		if (group_member_count(s, g) > 0 || (if_seq != GROUP_ANY_SEQ &&
		    atomic_load_explicit(&g->commit_seq, memory_order_acquire) !=
		    if_seq))
			err = ERR_GROUP_NOT_EMPTY;
	}
	if (err == ERR_NONE) {
		for (i = 0; i < s->hdr->limits.max_partitions; i++)
			__atomic_store_n(&group_offsets(s, g)[i], -1,
			    __ATOMIC_RELAXED);
		atomic_fetch_add_explicit(&g->commit_seq, 1,
		    memory_order_relaxed);
		atomic_store_explicit(&g->used, GROUP_SLOT_DELETED,
		    memory_order_release);
	}
	group_unlock(g);
	lock_release(&d->lock);
	return err;
}

void
group_slot_free(struct shm *s, uint32_t idx)
{
	struct shm_group_dir *d = group_dir(s);
	struct shm_group *g = group_at(s, idx);

	if (g == NULL || lock_take(&d->lock, NULL, NULL) == -1)
		return;
	if (atomic_load_explicit(&g->used, memory_order_acquire) ==
	    GROUP_SLOT_DELETED)
		atomic_store_explicit(&g->used, GROUP_SLOT_FREE,
		    memory_order_release);
	lock_release(&d->lock);
}

uint32_t
group_member_count(const struct shm *s, struct shm_group *g)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->hdr->limits.max_group_members; i++)
		if (atomic_load_explicit(&group_member_at(s, g, i)->state,
		    memory_order_relaxed) == MEMBER_ACTIVE)
			n++;
	return n;
}

int
group_member_find(const struct shm *s, struct shm_group *g, const char *id,
    size_t len)
{
	struct shm_member *m;
	uint32_t i;

	if (len == 0 || len > MEMBER_ID_MAX)
		return -1;
	for (i = 0; i < s->hdr->limits.max_group_members; i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) ==
		    MEMBER_ACTIVE && m->id_len == len && memcmp(m->id, id, len) == 0)
			return (int)i;
	}
	return -1;
}

static void
member_free(struct shm_member *m)
{
	atomic_store_explicit(&m->state, MEMBER_FREE, memory_order_release);
}

/* A new generation in which every member must rejoin. */
static void
group_rebalance_start(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	g->generation++;
	g->state = group_member_count(s, g) > 0 ? GROUP_REBALANCING : GROUP_EMPTY;
	g->rebalance_deadline = now + gp->rebalance_timeout_ms;
}

/* Membership changed: a new generation unless one is being formed already. */
static void
group_membership_changed(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	if (g->state != GROUP_REBALANCING)
		group_rebalance_start(s, g, now, gp);
}

/* Partitions of topic t now; 0 when it is not a published topic. */
static int32_t
topic_partitions_now(struct shm *s, uint32_t t)
{
	uint32_t n = atomic_load_explicit(&s->hdr->topic_count, memory_order_acquire);

	if (t >= n || t >= s->hdr->limits.max_topics ||
	    atomic_load_explicit(&s->topics[t].state, memory_order_acquire) !=
	    TOPIC_READY)
		return 0;
	return __atomic_load_n(&s->topics[t].partitions, __ATOMIC_ACQUIRE);
}

/*
 * The incarnation of topic t's first partition slot (shm/shm.h): it
 * changes with every delete, and a create that reuses the entry reuses
 * the slots, so a topic gone and made again reads differently.
 */
uint32_t
group_topic_incarnation(struct shm *s, uint32_t t)
{
	uint32_t first;

	if (t >= s->hdr->limits.max_topics)
		return 0;
	if ((first = shm_topic_slot(s, &s->topics[t], 0)) == UINT32_MAX)
		return 0;
	return atomic_load_explicit(&s->parts[first].incarnation,
	    memory_order_acquire);
}

static int member_id_cmp(const struct shm_member *, const struct shm_member *);

/* me's rank among the members of g's generation sorted by id; *nm their number. */
static uint32_t
gen_rank(struct shm *s, struct shm_group *g, const struct shm_member *me,
    uint32_t *nm)
{
	struct shm_member *m;
	uint32_t i, rank = 0;

	*nm = 0;
	for (i = 0; i < s->hdr->limits.max_group_members; i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE || m->joined_gen != g->generation)
			continue;
		(*nm)++;
		if (m != me && member_id_cmp(m, me) < 0)
			rank++;
	}
	return rank;
}

static uint32_t
rr_owner(uint32_t k, uint32_t nmembers)
{
	return k % nmembers;
}

/*
 * Note each member's rank in the generation (members sorted by id) and
 * their number, so that what a member owned can still be told once the
 * next rebalance has begun (group_prev_owned()).
 */
static void
group_rank(struct shm *s, struct shm_group *g)
{
	struct shm_member *m;
	uint32_t i;

	g->gen_members = 0;
	for (i = 0; i < s->hdr->limits.max_group_members; i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE || m->joined_gen != g->generation)
			continue;
		m->rank = gen_rank(s, g, m, &g->gen_members);
		m->rank_gen = g->generation;
	}
}

/*
 * The rebalance is over: the subscription becomes the sorted union of
 * the members' topics with their partition counts now, and every member
 * starts a fresh session.
 */
static void
group_complete(struct shm *s, struct shm_group *g, int64_t now)
{
	struct shm_member *m;
	uint32_t i, j, k, t, n = 0;

	for (i = 0; i < s->hdr->limits.max_group_members; i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE)
			continue;
		m->last_seen_ms = now;
		for (j = 0; j < m->ntopics && j < GROUP_TOPICS_MAX; j++) {
			t = m->topics[j];
			for (k = 0; k < n && g->topics[k].topic < t; k++)
				;
			if ((k < n && g->topics[k].topic == t) || n == GROUP_TOPICS_MAX)
				continue;
			memmove(&g->topics[k + 1], &g->topics[k],
			    (n - k) * sizeof(g->topics[0]));
			g->topics[k].topic = t;
			n++;
		}
	}
	for (k = 0; k < n; k++) {
		g->topics[k].partitions = topic_partitions_now(s, g->topics[k].topic);
		g->topics[k].incarnation = group_topic_incarnation(s,
		    g->topics[k].topic);
	}
	g->ntopics = n;
	group_rank(s, g);
	g->state = group_member_count(s, g) > 0 ? GROUP_STABLE : GROUP_EMPTY;
}

int64_t
group_due(const struct shm *s, struct shm_group *g)
{
	struct shm_member *m;
	int64_t due = INT64_MAX, t;
	uint32_t j;

	if (g->state == GROUP_REBALANCING)
		due = g->rebalance_deadline;
	for (j = 0; j < s->hdr->limits.max_group_members; j++) {
		m = group_member_at(s, g, j);
		/* Members waiting in a join phase are not expired. */
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE || (g->state == GROUP_REBALANCING &&
		    (g->kind == GROUP_KIND_KAFKA ?
		    (m->kflags & KMEMBER_JOINING) != 0 :
		    m->joined_gen == g->generation)))
			continue;
		t = m->last_seen_ms + m->session_timeout_ms + 1;
		if (t < due)
			due = t;
		if (g->kind == GROUP_KIND_CONSUMER &&
		    (t = cgroup_revoke_due(s, g, j)) < due)
			due = t;
	}
	return due;
}

int
group_tick(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	uint32_t i, k, state0 = g->state, gen0 = g->generation;
	int removed = 0, all;

	if (g->kind == GROUP_KIND_KAFKA)
		return kgroup_tick(s, g, now, gp);
	if (g->kind == GROUP_KIND_CONSUMER)
		return cgroup_tick(s, g, now, gp);
	for (i = 0; i < s->hdr->limits.max_group_members; i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE)
			continue;
		/* Waiting in a rebalance it rejoined: not silent. */
		if (g->state == GROUP_REBALANCING && m->joined_gen == g->generation)
			continue;
		if (now - m->last_seen_ms > m->session_timeout_ms) {
			member_free(m);
			removed = 1;
		}
	}
	if (removed)
		group_membership_changed(s, g, now, gp);
	if (g->state == GROUP_STABLE) {
		for (k = 0; k < g->ntopics; k++) {
			if (topic_partitions_now(s, g->topics[k].topic) !=
			    g->topics[k].partitions ||
			    group_topic_incarnation(s, g->topics[k].topic) !=
			    g->topics[k].incarnation) {
				group_rebalance_start(s, g, now, gp);
				break;
			}
		}
	}
	if (g->state == GROUP_REBALANCING) {
		all = 1;
		for (i = 0; i < s->hdr->limits.max_group_members; i++) {
			m = group_member_at(s, g, i);
			if (atomic_load_explicit(&m->state, memory_order_relaxed) ==
			    MEMBER_ACTIVE && m->joined_gen != g->generation)
				all = 0;
		}
		if (!all && now >= g->rebalance_deadline) {
			/* The timeout passed: who did not rejoin is dropped. */
			for (i = 0; i < s->hdr->limits.max_group_members; i++) {
				m = group_member_at(s, g, i);
				if (atomic_load_explicit(&m->state,
				    memory_order_relaxed) == MEMBER_ACTIVE &&
				    m->joined_gen != g->generation)
					member_free(m);
			}
			all = 1;
		}
		if (all)
			group_complete(s, g, now);
	}
	return g->state != state0 || g->generation != gen0;
}

/* Does member m's stored subscription differ from topics[0..n)? */
static int
member_topics_differ(const struct shm_member *m, const uint32_t *topics,
    uint32_t n)
{
	uint32_t i, j;

	if (m->ntopics != n)
		return 1;
	for (i = 0; i < n; i++) {
		for (j = 0; j < n && m->topics[j] != topics[i]; j++)
			;
		if (j == n)
			return 1;
	}
	return 0;
}

size_t
group_member_id_make(const struct shm *s, struct shm_group *g, const char *client,
    size_t clen, char *out)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t rnd[8];
	size_t n, i;
	int tries;

	for (tries = 0; ; tries++) {
		n = 0;
		if (clen == 0) {
			memcpy(out, "member", 6);
			n = 6;
		}
		for (i = 0; i < clen && i < MEMBER_PREFIX_MAX; i++) {
			char ch = client[i];

			out[n++] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
			    ch == '-' ? ch : '_';
		}
		out[n++] = '-';
		arc4random_buf(rnd, sizeof(rnd));
		for (i = 0; i < sizeof(rnd); i++) {
			out[n++] = hex[rnd[i] >> 4];
			out[n++] = hex[rnd[i] & 15];
		}
		out[n] = '\0';
		if (group_member_find(s, g, out, n) == -1 || tries >= 3)
			return n;
	}
}

int16_t
group_join(struct shm *s, struct shm_group *g, const struct group_join_in *in,
    int64_t now, const struct group_params *gp, int *member)
{
	struct shm_member *m = NULL;
	uint32_t i;
	int idx;

	if (in->session_timeout_ms < gp->min_session_ms ||
	    in->session_timeout_ms > gp->max_session_ms)
		return ERR_INVALID_SESSION_TIMEOUT;
	if (in->ntopics == 0 || in->ntopics > GROUP_TOPICS_MAX ||
	    in->client_id_len > CLIENT_ID_MAX)
		return ERR_INVALID_REQUEST;
	if (g->kind == GROUP_KIND_KAFKA || g->kind == GROUP_KIND_CONSUMER) {
		(void)group_tick(s, g, now, gp);
		if (group_member_count(s, g) > 0)
			return ERR_GROUP_KIND;
		/* Empty: it becomes native, in a state the native machine knows. */
		g->kind = GROUP_KIND_NATIVE;
		g->state = GROUP_EMPTY;
		g->leader = -1;
	}
	g->kind = GROUP_KIND_NATIVE;
	if (in->member_id_len > 0) {
		if ((idx = group_member_find(s, g, in->member_id,
		    in->member_id_len)) == -1) {
			(void)group_tick(s, g, now, gp);
			return ERR_UNKNOWN_MEMBER;
		}
		m = group_member_at(s, g, (uint32_t)idx);
		m->last_seen_ms = now;
		m->session_timeout_ms = in->session_timeout_ms;
		*member = idx;
		if (g->state == GROUP_STABLE && m->joined_gen == g->generation &&
		    !member_topics_differ(m, in->topics, in->ntopics))
			return ERR_NONE;	/* nothing changed: answered at once */
		if (member_topics_differ(m, in->topics, in->ntopics)) {
			m->ntopics = in->ntopics;
			memcpy(m->topics, in->topics, in->ntopics * sizeof(uint32_t));
		}
		if (g->state != GROUP_REBALANCING)
			group_rebalance_start(s, g, now, gp);
		m->joined_gen = g->generation;
		(void)group_tick(s, g, now, gp);
		return ERR_NONE;
	}

	/* A new member: first expire the silent, which may free a slot. */
	(void)group_tick(s, g, now, gp);
	for (i = 0; i < s->hdr->limits.max_group_members; i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) ==
		    MEMBER_FREE)
			break;
	}
	if (i == s->hdr->limits.max_group_members)
		return ERR_RESOURCE_LIMIT;
	if (g->state != GROUP_REBALANCING) {
		g->generation++;
		g->state = GROUP_REBALANCING;
		g->rebalance_deadline = now + gp->rebalance_timeout_ms;
	}
	/* Fill the slot, then publish it. */
	m->joined_gen = g->generation;
	m->session_timeout_ms = in->session_timeout_ms;
	m->last_seen_ms = now;
	m->ntopics = in->ntopics;
	memcpy(m->topics, in->topics, in->ntopics * sizeof(uint32_t));
	memset(m->client, 0, sizeof(m->client));
	memcpy(m->client, in->client_id, in->client_id_len);
	m->host_len = 0;
	m->kflags = 0;
	m->instance_len = 0;
	m->meta_len = m->assign_len = 0;
	m->client_len = (uint16_t)in->client_id_len;
	memset(m->id, 0, sizeof(m->id));
	m->id_len = (uint16_t)group_member_id_make(s, g, in->client_id,
	    in->client_id_len, m->id);
	atomic_store_explicit(&m->state, MEMBER_ACTIVE, memory_order_release);
	*member = (int)i;
	(void)group_tick(s, g, now, gp);
	return ERR_NONE;
}

int
group_join_ready(struct shm *s, struct shm_group *g, int member,
    const char *id, size_t len, int64_t now, const struct group_params *gp)
{
	struct shm_member *m;

	(void)group_tick(s, g, now, gp);
	m = member >= 0 ? group_member_at(s, g, (uint32_t)member) : NULL;
	if (m == NULL || atomic_load_explicit(&m->state, memory_order_relaxed) !=
	    MEMBER_ACTIVE || m->id_len != len || memcmp(m->id, id, len) != 0)
		return -1;
	if (g->state == GROUP_REBALANCING && m->joined_gen != g->generation) {
		/* A generation forced while we waited (a repair): rejoin it. */
		m->joined_gen = g->generation;
		m->last_seen_ms = now;
		(void)group_tick(s, g, now, gp);
	}
	return g->state == GROUP_STABLE && m->joined_gen == g->generation ? 1 : 0;
}

int16_t
group_heartbeat(struct shm *s, struct shm_group *g, const char *id, size_t len,
    int32_t generation, int64_t now, const struct group_params *gp)
{
	struct shm_member *m;
	int idx;

	if ((idx = group_member_find(s, g, id, len)) == -1) {
		(void)group_tick(s, g, now, gp);
		return ERR_UNKNOWN_MEMBER;
	}
	m = group_member_at(s, g, (uint32_t)idx);
	m->last_seen_ms = now;
	(void)group_tick(s, g, now, gp);
	if (atomic_load_explicit(&m->state, memory_order_relaxed) != MEMBER_ACTIVE)
		return ERR_UNKNOWN_MEMBER;
	if (g->state == GROUP_REBALANCING)
		return ERR_REBALANCE_IN_PROGRESS;
	if ((uint32_t)generation != g->generation || m->joined_gen != g->generation)
		return ERR_ILLEGAL_GENERATION;
	return ERR_NONE;
}

int16_t
group_leave(struct shm *s, struct shm_group *g, const char *id, size_t len,
    int64_t now, const struct group_params *gp)
{
	int idx;

	if ((idx = group_member_find(s, g, id, len)) == -1) {
		(void)group_tick(s, g, now, gp);
		return ERR_UNKNOWN_MEMBER;
	}
	member_free(group_member_at(s, g, (uint32_t)idx));
	group_membership_changed(s, g, now, gp);
	(void)group_tick(s, g, now, gp);
	return ERR_NONE;
}

int16_t
group_commit_check(struct shm *s, struct shm_group *g, const char *id,
    size_t len, int32_t generation, int64_t now, const struct group_params *gp,
    int *prev)
{
	struct shm_member *m;
	int idx;

	*prev = -1;
	(void)group_tick(s, g, now, gp);
	if ((idx = group_member_find(s, g, id, len)) == -1)
		return ERR_UNKNOWN_MEMBER;
	m = group_member_at(s, g, (uint32_t)idx);
	if ((uint32_t)generation == g->generation &&
	    m->joined_gen == g->generation) {
		m->last_seen_ms = now;
		return ERR_NONE;
	}
	/*
	 * The generation it had just ended and the next is being formed:
	 * no one has been given its partitions yet (a new generation's
	 * assignment exists only once it completes).
	 */
	if (g->state == GROUP_REBALANCING && g->kind == GROUP_KIND_NATIVE &&
	    (uint32_t)generation == m->joined_gen &&
	    m->joined_gen + 1 == g->generation && m->rank_gen == m->joined_gen &&
	    m->rank < g->gen_members) {
		m->last_seen_ms = now;
		*prev = idx;
		return ERR_NONE;
	}
	return ERR_ILLEGAL_GENERATION;
}

int
group_prev_owned(struct shm *s, struct shm_group *g, int member, uint32_t slot)
{
	struct shm_member *m;
	const struct shm_topic *t;
	uint32_t i, k = 0, p;

	m = member >= 0 ? group_member_at(s, g, (uint32_t)member) : NULL;
	if (m == NULL || g->gen_members == 0 || slot >= s->hdr->limits.max_partitions)
		return 0;
	/* The topics are the generation's until the next one completes. */
	for (i = 0; i < g->ntopics && i < GROUP_TOPICS_MAX; i++) {
		if (g->topics[i].topic >= s->hdr->limits.max_topics ||
		    g->topics[i].partitions <= 0)
			continue;
		t = &s->topics[g->topics[i].topic];
		p = (uint32_t)s->parts[slot].partition;
		if (s->parts[slot].topic == g->topics[i].topic &&
		    p < (uint32_t)g->topics[i].partitions &&
		    shm_topic_slot(s, t, p) == slot &&
		    group_topic_incarnation(s, g->topics[i].topic) ==
		    g->topics[i].incarnation)
			return rr_owner(k + p, g->gen_members) == m->rank;
		k += (uint32_t)g->topics[i].partitions;
	}
	return 0;
}

/* EOWNERDEAD: drop member slots that do not check out, force a generation. */
static void
group_repair(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct shm_member *m;
	uint32_t i, j;
	int bad;

	if (g->cg_migrating != CG_MIGRATE_NONE)
		cgroup_migrate_repair(s, g, now, gp);
	if (g->kind == GROUP_KIND_KAFKA) {
		kgroup_repair(s, g, now, gp);
		return;
	}
	if (g->kind == GROUP_KIND_CONSUMER) {
		cgroup_repair(s, g, now, gp);
		return;
	}
	for (i = 0; i < s->hdr->limits.max_group_members; i++) {
		m = group_member_at(s, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) ==
		    MEMBER_FREE)
			continue;
		bad = atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE || m->id_len == 0 || m->id_len > MEMBER_ID_MAX ||
		    m->client_len > CLIENT_ID_MAX || m->ntopics == 0 ||
		    m->ntopics > GROUP_TOPICS_MAX || m->session_timeout_ms <= 0;
		for (j = 0; !bad && j < m->ntopics; j++)
			if (m->topics[j] >= s->hdr->limits.max_topics)
				bad = 1;
		if (bad)
			member_free(m);
	}
	if (g->ntopics > GROUP_TOPICS_MAX)
		g->ntopics = 0;
	group_rebalance_start(s, g, now, gp);
}

struct group_ref {
	struct shm			*s;
	struct shm_group		*g;
	int64_t				 now;
	const struct group_params	*gp;
};

static void
group_repair_ref(void *arg)
{
	struct group_ref *r = arg;

	group_repair(r->s, r->g, r->now, r->gp);
}

int
group_lock(struct shm *s, struct shm_group *g, int64_t now,
    const struct group_params *gp)
{
	struct group_ref r = { s, g, now, gp };

	return lock_take(&g->lock, group_repair_ref, &r);
}

void
group_unlock(struct shm_group *g)
{
	lock_release(&g->lock);
}

void
group_assign_rr(uint32_t nmembers, uint32_t npart, uint32_t *owner)
{
	uint32_t k;

	for (k = 0; k < npart; k++)
		owner[k] = nmembers > 0 ? rr_owner(k, nmembers) : 0;
}

static int
member_id_cmp(const struct shm_member *a, const struct shm_member *b)
{
	size_t n = a->id_len < b->id_len ? a->id_len : b->id_len;
	int c = memcmp(a->id, b->id, n);

	if (c != 0)
		return c;
	return a->id_len < b->id_len ? -1 : a->id_len > b->id_len;
}

uint32_t
group_assignment(struct shm *s, struct shm_group *g, int member,
    uint32_t *slots, uint32_t cap)
{
	struct shm_member *me;
	const struct shm_topic *t;
	uint32_t i, k, p, slot, nm = 0, rank = 0, got = 0;

	me = member >= 0 ? group_member_at(s, g, (uint32_t)member) : NULL;
	if (g->state != GROUP_STABLE || me == NULL ||
	    atomic_load_explicit(&me->state, memory_order_relaxed) != MEMBER_ACTIVE ||
	    me->joined_gen != g->generation)
		return 0;
	rank = gen_rank(s, g, me, &nm);
	k = 0;
	for (i = 0; i < g->ntopics && i < GROUP_TOPICS_MAX; i++) {
		if (g->topics[i].topic >= s->hdr->limits.max_topics)
			continue;
		t = &s->topics[g->topics[i].topic];
		for (p = 0; p < (uint32_t)(g->topics[i].partitions > 0 ?
		    g->topics[i].partitions : 0); p++, k++) {
			if (rr_owner(k, nm) != rank)
				continue;
			if ((slot = shm_topic_slot(s, t, p)) == UINT32_MAX)
				continue;
			if (got < cap)
				slots[got] = slot;
			got++;
		}
	}
	return got;
}
