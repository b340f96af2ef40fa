/*
 * The online migration in a worker (worker/kafka/cgmigrate.h).
 */
#include <stdatomic.h>
#include <string.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kconsumer.h"
#include "shm/cgroup.h"
#include "shm/group.h"
#include "shm/kgroup.h"
#include "shm/topics.h"
#include "worker/conn.h"
#include "worker/kafka/cgmigrate.h"
#include "worker/kafka/group.h"
#include "worker/worker.h"

struct dec {
	struct worker		*w;
	struct cg_classic_member *m;
	const char		**names;
	size_t			*lens;
	struct cg_tp		*tps;
	uint32_t		 cap;
};

static int
dec_name(const char *name, size_t len, void *arg)
{
	struct dec *d = arg;

	if (d->m->nnames < CG_NAMES_MAX) {
		d->names[d->m->nnames] = name;
		d->lens[d->m->nnames++] = len;
	}
	return 0;
}

/* A partition of a topic this broker has; others are left out, as Kafka. */
static int
dec_tp(const char *name, size_t len, int32_t partition, void *arg)
{
	struct dec *d = arg;
	int t = shm_topic_find(d->w->shm, name, len);

	if (t >= 0 && d->m->nowned < d->cap) {
		d->tps[d->m->nowned].topic = (uint32_t)t;
		d->tps[d->m->nowned++].partition = partition;
	}
	return 0;
}

int
kafka_cg_decode(struct worker *w, struct conn *c, const uint8_t *sub,
    size_t sublen, const uint8_t *a, size_t alen, struct cg_classic_member *m)
{
	struct dec d;
	int16_t version;

	memset(m, 0, sizeof(*m));
	d.w = w;
	d.m = m;
	d.cap = w->shm->hdr->limits.max_partitions;
	d.names = conn_alloc(c, CG_NAMES_MAX * sizeof(*d.names));
	d.lens = conn_alloc(c, CG_NAMES_MAX * sizeof(*d.lens));
	d.tps = conn_alloc(c, ((size_t)d.cap + 1) * sizeof(*d.tps));
	if (d.names == NULL || d.lens == NULL || d.tps == NULL)
		return -1;
	m->names = d.names;
	m->lens = d.lens;
	m->owned = d.tps;
	if (kconsumer_subscription_topics(sub, sublen, dec_name, &d) == -1)
		return -1;
	if (a != NULL)
		return alen == 0 ? 0 :
		    kconsumer_assignment_parts(a, alen, dec_tp, &d);
	return kconsumer_subscription_owned(sub, sublen, &version, dec_tp, &d);
}

int16_t
kafka_cg_upgrade(struct worker *w, struct conn *c, struct shm_group *g,
    const struct group_params *gp)
{
	struct cg_classic_member *mv;
	struct shm_member *m;
	const uint8_t *meta, *a;
	const char *name;
	size_t ml, nl;
	uint32_t i, n = 0, max = w->shm->hdr->limits.max_group_members;
	int joined;

	if (!cgroup_upgradable(w->shm, g, gp) ||
	    (mv = conn_alloc(c, max * sizeof(*mv))) == NULL)
		return KERR_GROUP_ID_NOT_FOUND;
	for (i = 0; i < max; i++) {
		m = group_member_at(w->shm, g, i);
		if (atomic_load_explicit(&m->state, memory_order_relaxed) !=
		    MEMBER_ACTIVE)
			continue;
		/* The generation's protocol, else (a newcomer) its first. */
		if (kgroup_member_metadata(w->shm, g, i, &meta, &ml) == -1 &&
		    cgroup_classic_protocol(w->shm, g, i, &name, &nl, &meta,
		    &ml) == -1)
			return KERR_GROUP_ID_NOT_FOUND;
		/*
		 * What it owns: its assignment, unless it rejoined a round
		 * (then it gave its partitions up, or, cooperative, lists
		 * those it kept in its subscription).
		 */
		joined = (g->state == GROUP_REBALANCING &&
		    (m->kflags & KMEMBER_JOINING)) ||
		    g->state == GROUP_AWAITING_SYNC;
		a = group_assign(w->shm, g, i);
		if (kafka_cg_decode(w, c, meta, ml, joined ? NULL : a,
		    m->assign_len <= w->shm->hdr->limits.member_meta ?
		    m->assign_len : 0, &mv[n]) == -1)
			return KERR_GROUP_ID_NOT_FOUND;
		mv[n++].idx = i;
	}
	return cgroup_upgrade(w->shm, g, mv, n, w->now, gp);
}

struct kstr
kafka_cg_assignment(struct worker *w, struct conn *c, struct shm_group *g,
    uint32_t i)
{
	struct kstr k = { NULL, 0 };
	struct kconsumer_tp *tps;
	struct cg_tp *v;
	const struct shm_topic *t;
	const uint8_t *meta;
	const char *name;
	size_t nl, ml, cap = w->shm->hdr->limits.member_meta + 64, len;
	uint32_t n, j, max = w->shm->hdr->limits.max_partitions;
	uint8_t *out;
	int16_t version = 0;

	if (cgroup_classic_protocol(w->shm, g, i, &name, &nl, &meta, &ml) == 0 &&
	    ml >= 2)
		version = (int16_t)(meta[0] << 8 | meta[1]);
	if ((v = conn_alloc(c, ((size_t)max + 1) * sizeof(*v))) == NULL ||
	    (tps = conn_alloc(c, ((size_t)max + 1) * sizeof(*tps))) == NULL)
		return k;
	n = cgroup_list(w->shm, g, i, CG_ASSIGNED, v, max);
	if (n > max)
		n = max;
	for (j = 0; j < n; j++) {
		t = &w->shm->topics[v[j].topic];
		tps[j].topic = t->name;
		tps[j].tlen = t->name_len <= TOPIC_NAME_MAX ? t->name_len : 0;
		tps[j].partition = v[j].partition;
		cap += 4 + tps[j].tlen + 6;
	}
	if ((out = conn_alloc(c, cap)) == NULL ||
	    (len = kconsumer_assignment_encode(out, cap, version, tps, n)) == 0)
		return k;
	k.p = (const char *)out;
	k.len = (int32_t)len;
	return k;
}
