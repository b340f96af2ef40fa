/*
 * libflume consumer groups: a group member built on the plain consumer
 * (libflume_consumer.c), plus the group administration calls.
 *
 * The member's life: JOIN_GROUP (the broker answers once the rebalance
 * is complete, with this member's partitions), then a plain consumer over
 * those partitions starting at the group's committed offsets; every
 * heartbeat interval a HEARTBEAT, every auto_commit_ms an OFFSET_COMMIT
 * of the marked offsets that moved.  Only what the application marked
 * processed (flume_group_mark) is committed, never the consumer's
 * position: a message handed out but not yet written anywhere must be
 * delivered again if this process dies.  A heartbeat or commit answered
 * REBALANCE_IN_PROGRESS or ILLEGAL_GENERATION means "rejoin with the same
 * member id"; UNKNOWN_MEMBER means the broker dropped us: rejoin as a new
 * member.  Partitions kept across a rebalance keep their in-memory
 * position; new ones start at the committed offset, or at start_offset
 * when the group has none, which is then committed at once so that a
 * member taking the partition over later starts from the same place.
 *
 * All requests are synchronous and share the client's connection with
 * the consumer's fetches; fetches long-poll for at most half a heartbeat
 * interval so heartbeats stay on time.  A lost connection is
 * re-established by the next request (client_reconnect); the member id
 * and generation live in the broker's shared memory, so a member whose
 * worker died carries on with its partitions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/libflume_int.h"
#include "proto/msg.h"

#define GROUP_JOIN_SLACK_MS	60000	/* a JOIN waits for the rebalance */
#define GROUP_JOIN_ATTEMPTS	30
#define GROUP_ARENA_LIMIT	(64u * 1024 * 1024)
#define GROUP_RETRY_MS		100

struct gpart {
	char		*topic;
	int32_t		 partition;
	int64_t		 committed;	/* what the group has, as far as we know; -1 none */
	int64_t		 marked;	/* next offset the application finished with; -1 none */
};

/*
 * An OFFSET_COMMIT of flume_group_commit_async() awaiting its answer:
 * which parts it covers (indexes into g->parts of assignment number
 * assignment) and the offsets it stores.  g is NULL once the group is
 * freed: the answer is then dropped.
 */
struct gasync {
	struct flume_group	*g;
	struct gasync		*next;
	unsigned		 assignment;
	size_t			 n;
	size_t			*idx;
	int64_t			*want;
};

struct flume_group {
	struct flume_client	*c;
	struct flume_group_conf	 conf;
	char			*group;
	char			**topics;
	int			 ntopics;
	char			 member_id[MEMBER_ID_MAX + 1];
	int32_t			 generation;
	struct gpart		*parts;
	size_t			 nparts;
	struct flume_consumer	*k;		/* over parts; NULL when none */
	struct gasync		*async;		/* commits sent, not yet answered */
	int16_t			 async_err;	/* a refused one, for the next call */
	int			 need_join;
	int64_t			 next_hb;
	int64_t			 next_commit;
	unsigned		 assignments;
};

static void
gsleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int
gmalformed(struct flume_client *c, const char *what)
{
	client_seterr(c, "malformed %s response", what);
	errno = EPROTO;
	return -1;
}

void
flume_group_conf_init(struct flume_group_conf *conf)
{
	conf->session_timeout_ms = 10000;
	conf->heartbeat_interval_ms = 0;
	conf->auto_commit_ms = 5000;
	conf->start_offset = FLUME_OFFSET_END;
	conf->max_wait_ms = 500;
	conf->max_bytes = 1024 * 1024;
}

static void
gparts_free(struct gpart *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(p[i].topic);
	free(p);
}

void
flume_group_free(struct flume_group *g)
{
	struct gasync *q;
	int i;

	if (g == NULL)
		return;
	/* The client still holds them: their answers must not reach g. */
	for (q = g->async; q != NULL; q = q->next)
		q->g = NULL;
	flume_consumer_free(g->k);
	gparts_free(g->parts, g->nparts);
	for (i = 0; i < g->ntopics; i++)
		free(g->topics[i]);
	free(g->topics);
	free(g->group);
	free(g);
}

/* OFFSET_FETCH of every part in n; fills parts[].committed. 0 or -1. */
static int
gfetch_committed(struct flume_group *g, struct gpart *parts, size_t n)
{
	struct offset_fetch_req req;
	struct offset_fetch_resp resp;
	struct group_tp *tp;
	struct client_sync s;
	struct arena a;
	size_t i;
	int rc = -1;

	if (n == 0)
		return 0;
	if ((tp = calloc(n, sizeof(*tp))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		tp[i].topic = parts[i].topic;
		tp[i].topic_len = strlen(parts[i].topic);
		tp[i].partition = parts[i].partition;
	}
	req.group = g->group;
	req.group_len = strlen(g->group);
	req.count = (int32_t)n;
	req.parts = tp;
	arena_init(&a, GROUP_ARENA_LIMIT);
	if (client_call(g->c, API_OFFSET_FETCH, &req,
	    g->c->conf.request_timeout_ms, 0, &s) == -1)
		goto done;
	if (msg_decode_offset_fetch_resp(s.buf, s.len, &a, &resp) == -1 ||
	    (resp.error == ERR_NONE && (size_t)resp.count != n)) {
		gmalformed(g->c, "offset fetch");
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(g->c, resp.error, "offset fetch");
		goto done;
	}
	for (i = 0; i < n; i++)
		/* Below 0 (a Kafka client may commit -2): none, start_offset applies. */
		parts[i].committed = resp.results[i].error == ERR_NONE &&
		    resp.results[i].offset >= 0 ? resp.results[i].offset : -1;
	rc = 0;
done:
	free(s.buf);
	free(tp);
	arena_free(&a);
	return rc;
}

/*
 * Handle a broker error of a group request that is about membership:
 * 1 when it means "rejoin" (the state is updated), 0 when it is not one
 * of those.
 */
static int
gmembership_error(struct flume_group *g, int err)
{
	switch (err) {
	case ERR_UNKNOWN_MEMBER:
		g->member_id[0] = '\0';
		/* FALLTHROUGH */
	case ERR_REBALANCE_IN_PROGRESS:
	case ERR_ILLEGAL_GENERATION:
		g->need_join = 1;
		return 1;
	default:
		return 0;
	}
}

#define GCOMMIT_ALL	0x1	/* also offsets the group already has */
#define GCOMMIT_PIN	0x2	/* a partition without a committed offset: its position */
#define GCOMMIT_STALE	0x4	/* also with a rejoin pending (see flume_group_close) */

/*
 * The parts an OFFSET_COMMIT of the marked offsets covers (only those
 * that moved, unless GCOMMIT_ALL); with GCOMMIT_PIN a partition that has
 * no committed offset and nothing marked is committed at its position,
 * which right after an assignment is its start (nothing handed out yet).
 * Fills cp, and idx/want (the part and offset of each), room for
 * g->nparts each; returns how many.
 */
static size_t
gcommit_parts(struct flume_group *g, int flags, struct commit_part *cp,
    size_t *idx, int64_t *want)
{
	int64_t pos;
	size_t i, n = 0;

	for (i = 0; i < g->nparts; i++) {
		pos = g->parts[i].marked;
		if (pos < 0 && (flags & GCOMMIT_PIN) && g->parts[i].committed < 0)
			pos = flume_consumer_position(g->k, g->parts[i].topic,
			    g->parts[i].partition);
		if (pos < 0 || (!(flags & GCOMMIT_ALL) &&
		    pos == g->parts[i].committed))
			continue;
		cp[n].topic = g->parts[i].topic;
		cp[n].topic_len = strlen(g->parts[i].topic);
		cp[n].partition = g->parts[i].partition;
		cp[n].offset = pos;
		idx[n] = i;
		want[n] = pos;
		n++;
	}
	return n;
}

static void
gcommit_req(struct flume_group *g, struct commit_part *cp, size_t n,
    struct offset_commit_req *req)
{
	req->group = g->group;
	req->group_len = strlen(g->group);
	req->member_id = g->member_id;
	req->member_id_len = strlen(g->member_id);
	req->generation = g->generation;
	req->count = (int32_t)n;
	req->parts = cp;
}

/*
 * OFFSET_COMMIT the marked offsets of the assigned partitions and wait
 * for the answer (see gcommit_parts for flags).  0 when committed (or
 * nothing to do); 1 when the broker answered that we must rejoin; -1 on
 * any other failure.
 */
static int
gcommit(struct flume_group *g, int flags)
{
	struct offset_commit_req req;
	struct offset_commit_resp resp;
	struct commit_part *cp;
	struct client_sync s;
	struct arena a;
	int64_t *want;
	size_t i, n, *idx;
	int rc = -1;

	if (g->nparts == 0 || g->k == NULL ||
	    (g->need_join && !(flags & GCOMMIT_STALE)))
		return 0;
	cp = calloc(g->nparts, sizeof(*cp));
	want = calloc(g->nparts, sizeof(*want));
	idx = calloc(g->nparts, sizeof(*idx));
	if (cp == NULL || want == NULL || idx == NULL) {
		free(cp);
		free(want);
		free(idx);
		return -1;
	}
	n = gcommit_parts(g, flags, cp, idx, want);
	memset(&s, 0, sizeof(s));
	arena_init(&a, GROUP_ARENA_LIMIT);
	if (n == 0) {
		rc = 0;
		goto done;
	}
	gcommit_req(g, cp, n, &req);
	if (client_call(g->c, API_OFFSET_COMMIT, &req,
	    g->c->conf.request_timeout_ms, 0, &s) == -1)
		goto done;
	if (msg_decode_offset_commit_resp(s.buf, s.len, &a, &resp) == -1 ||
	    (resp.error == ERR_NONE && (size_t)resp.count != n)) {
		gmalformed(g->c, "offset commit");
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(g->c, resp.error, "offset commit");
		rc = gmembership_error(g, resp.error) ? 1 : -1;
		goto done;
	}
	for (i = 0; i < n; i++)
		if (resp.errors[i] == ERR_NONE)
			g->parts[idx[i]].committed = want[i];
	rc = 0;
done:
	free(s.buf);
	free(cp);
	free(want);
	free(idx);
	arena_free(&a);
	return rc;
}

/*
 * The answer to a flume_group_commit_async() request, taken by whatever
 * call of this thread pumps the connection next (usually the consumer's
 * next FETCH).  A lost connection (err) or a refusal leaves the offsets
 * marked and not committed, so the next commit sends them again.
 */
static int
gasync_fn(struct flume_client *c, void *ctx, const uint8_t *p, size_t len,
    int err)
{
	struct gasync *q = ctx, **qp;
	struct flume_group *g = q->g;
	struct offset_commit_resp resp;
	struct arena a;
	size_t i;
	int rc = 0;

	if (g != NULL)
		for (qp = &g->async; *qp != NULL; qp = &(*qp)->next)
			if (*qp == q) {
				*qp = q->next;
				break;
			}
	if (g == NULL || err != 0) {
		free(q);
		return 0;
	}
	arena_init(&a, GROUP_ARENA_LIMIT);
	if (msg_decode_offset_commit_resp(p, len, &a, &resp) == -1 ||
	    (resp.error == ERR_NONE && (size_t)resp.count != q->n)) {
		client_seterr(c, "malformed offset commit response");
		rc = -1;	/* the client drops the connection */
	} else if (resp.error != ERR_NONE) {
		if (!gmembership_error(g, resp.error))
			g->async_err = resp.error;
	} else if (q->assignment == g->assignments) {
		for (i = 0; i < q->n; i++)
			if (resp.errors[i] == ERR_NONE)
				g->parts[q->idx[i]].committed = q->want[i];
	}
	arena_free(&a);
	free(q);
	return rc;
}

int
flume_group_commit_async(struct flume_group *g)
{
	struct offset_commit_req req;
	struct commit_part *cp;
	struct gasync *q;
	size_t n, start;
	uint32_t id;
	int16_t err;

	if ((err = g->async_err) != 0) {
		g->async_err = 0;
		return client_broker_fail(g->c, err, "offset commit");
	}
	if (g->need_join) {
		client_seterr(g->c, "offset commit: rebalance in progress");
		errno = EAGAIN;
		return -1;
	}
	if (g->nparts == 0 || g->k == NULL)
		return 0;
	/* One allocation: the request's parts go once it is encoded. */
	if ((q = calloc(1, sizeof(*q) + g->nparts * (sizeof(*q->idx) +
	    sizeof(*q->want)))) == NULL ||
	    (cp = calloc(g->nparts, sizeof(*cp))) == NULL) {
		free(q);
		client_seterr(g->c, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	q->want = (int64_t *)(q + 1);
	q->idx = (size_t *)(q->want + g->nparts);
	if ((n = gcommit_parts(g, 0, cp, q->idx, q->want)) == 0) {
		free(cp);
		free(q);
		return 0;
	}
	q->g = g;
	q->n = n;
	q->assignment = g->assignments;
	gcommit_req(g, cp, n, &req);
	if ((!client_connected(g->c) && client_reconnect(g->c) == -1)) {
		free(cp);
		free(q);
		return -1;
	}
	start = client_begin(g->c, API_OFFSET_COMMIT, &id);
	msg_encode_offset_commit_req(&g->c->out, &req);
	free(cp);
	if (client_end(g->c, start, id, gasync_fn, q) == -1) {
		free(q);
		return -1;
	}
	q->next = g->async;
	g->async = q;
	/* On its way now: the broker stores it while we go on reading. */
	return client_pump(g->c, 0);
}

int
flume_group_committed(const struct flume_group *g, const char *topic,
    int32_t partition, int64_t *offset)
{
	size_t i;

	for (i = 0; i < g->nparts; i++) {
		if (g->parts[i].partition == partition &&
		    strcmp(g->parts[i].topic, topic) == 0) {
			*offset = g->parts[i].committed;
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}

/*
 * Take a new assignment: parts kept from the old one keep their position,
 * new ones start at the committed offset or start_offset.  Rebuilds the
 * consumer.  0 or -1.
 */
static int
gassign(struct flume_group *g, const struct join_group_resp *r)
{
	struct flume_consumer_conf kconf;
	struct flume_consumer *k = NULL;
	struct gpart *np = NULL;
	int64_t start, *pos = NULL;
	size_t i, j, n = (size_t)(r->count > 0 ? r->count : 0);

	if (n > 0 && ((np = calloc(n, sizeof(*np))) == NULL ||
	    (pos = calloc(n, sizeof(*pos))) == NULL))
		goto nomem;
	for (i = 0; i < n; i++) {
		if ((np[i].topic = strndup(r->parts[i].topic,
		    r->parts[i].topic_len)) == NULL)
			goto nomem;
		np[i].partition = r->parts[i].partition;
		np[i].committed = -1;
		np[i].marked = -1;
		pos[i] = -1;
		for (j = 0; j < g->nparts && g->k != NULL; j++) {
			if (g->parts[j].partition == np[i].partition &&
			    strcmp(g->parts[j].topic, np[i].topic) == 0) {
				pos[i] = flume_consumer_position(g->k,
				    np[i].topic, np[i].partition);
				np[i].committed = g->parts[j].committed;
				np[i].marked = g->parts[j].marked;
			}
		}
	}
	/* Partitions new to us: where did the group get to? */
	for (i = 0; i < n; i++) {
		if (pos[i] >= 0)
			continue;
		if (gfetch_committed(g, &np[i], 1) == -1)
			goto fail;
		pos[i] = np[i].committed;
	}
	if (n > 0) {
		flume_consumer_conf_init(&kconf);
		kconf.max_wait_ms = g->conf.max_wait_ms;
		kconf.max_bytes = g->conf.max_bytes;
		if ((k = flume_consumer_new(g->c, &kconf)) == NULL)
			goto nomem;
		for (i = 0; i < n; i++) {
			start = pos[i] >= 0 ? pos[i] : g->conf.start_offset;
			if (flume_consumer_subscribe(k, np[i].topic,
			    np[i].partition, start) == -1)
				goto fail;
		}
	}
	flume_consumer_free(g->k);
	gparts_free(g->parts, g->nparts);
	g->k = k;
	g->parts = np;
	g->nparts = n;
	g->assignments++;
	free(pos);
	/*
	 * Pin where every partition stands now (those without a committed
	 * offset in particular), so that a member taking one over later
	 * starts from here, not from its own start_offset.
	 */
	if (gcommit(g, GCOMMIT_PIN) == -1)
		return -1;
	return 0;
nomem:
	client_seterr(g->c, "out of memory");
	errno = ENOMEM;
fail:
	flume_consumer_free(k);
	if (np != NULL)
		gparts_free(np, n);
	free(pos);
	return -1;
}

/* JOIN_GROUP until an assignment is taken (bounded).  0 or -1. */
static int
gjoin(struct flume_group *g)
{
	struct join_group_req req;
	struct join_group_resp resp;
	struct wire_str ts[16];
	struct client_sync s;
	struct arena a;
	int attempt, i, rc = -1, delay = GROUP_RETRY_MS, pause = 0;

	for (i = 0; i < g->ntopics; i++) {
		ts[i].s = g->topics[i];
		ts[i].len = strlen(g->topics[i]);
	}
	arena_init(&a, GROUP_ARENA_LIMIT);
	for (attempt = 0; attempt < GROUP_JOIN_ATTEMPTS; attempt++) {
		if (pause) {
			gsleep_ms(delay);
			delay = delay * 2 > 1000 ? 1000 : delay * 2;
		}
		pause = 1;
		req.group = g->group;
		req.group_len = strlen(g->group);
		req.member_id = g->member_id;
		req.member_id_len = strlen(g->member_id);
		req.client_id = g->c->conf.client_id;
		req.client_id_len = strlen(g->c->conf.client_id);
		if (req.client_id_len > CLIENT_ID_MAX)
			req.client_id_len = CLIENT_ID_MAX;
		req.session_timeout_ms = g->conf.session_timeout_ms;
		req.count = g->ntopics;
		req.topics = ts;
		if (client_call(g->c, API_JOIN_GROUP, &req,
		    g->c->conf.request_timeout_ms + GROUP_JOIN_SLACK_MS, 0,
		    &s) == -1) {
			if (errno == ENOMEM)
				goto done;
			continue;	/* connection lost: the next call reconnects */
		}
		arena_reset(&a);
		if (msg_decode_join_group_resp(s.buf, s.len, &a, &resp) == -1 ||
		    resp.member_id_len > MEMBER_ID_MAX) {
			free(s.buf);
			gmalformed(g->c, "join group");
			goto done;
		}
		if (resp.error == ERR_NONE) {
			memcpy(g->member_id, resp.member_id, resp.member_id_len);
			g->member_id[resp.member_id_len] = '\0';
			g->generation = resp.generation;
			g->need_join = 0;
			rc = gassign(g, &resp);
			free(s.buf);
			if (rc == 0 && !g->need_join)
				goto done;
			rc = -1;
			/*
			 * A newer rebalance began meanwhile (a member started
			 * together with us joined after our JOIN was
			 * answered): rejoin at once, the broker holds that
			 * JOIN until the rebalance completes, so there is
			 * nothing to back off from.  Sleeping here cost every
			 * group whose members start together a retry delay.
			 */
			if (g->need_join) {
				pause = 0;
				continue;
			}
			if (!client_connected(g->c))
				continue;
			goto done;
		}
		free(s.buf);
		client_broker_fail(g->c, resp.error, g->group);
		if (resp.error == ERR_UNKNOWN_MEMBER) {
			g->member_id[0] = '\0';
			delay = GROUP_RETRY_MS / 2;
			continue;
		}
		if (resp.error == ERR_REBALANCE_IN_PROGRESS ||
		    resp.error == ERR_SHUTTING_DOWN || resp.error == ERR_TIMEOUT ||
		    resp.error == ERR_UNKNOWN)
			continue;
		goto done;	/* bad group, topic, session timeout: give up */
	}
done:
	arena_free(&a);
	if (rc == 0) {
		g->next_hb = client_now_ms() + g->conf.heartbeat_interval_ms;
		if (g->next_commit == 0 && g->conf.auto_commit_ms > 0)
			g->next_commit = client_now_ms() + g->conf.auto_commit_ms;
	}
	return rc;
}

struct flume_group *
flume_group_join(struct flume_client *c, const char *group,
    const char *const *topics, int ntopics, const struct flume_group_conf *conf)
{
	struct flume_group *g;
	int i, saved;

	if (group == NULL || topics == NULL || ntopics < 1 || ntopics > 16) {
		client_seterr(c, "a group and 1 to 16 topics are needed");
		errno = EINVAL;
		return NULL;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->c = c;
	if (conf != NULL)
		g->conf = *conf;
	else
		flume_group_conf_init(&g->conf);
	if (g->conf.heartbeat_interval_ms <= 0)
		g->conf.heartbeat_interval_ms = g->conf.session_timeout_ms / 3;
	if (g->conf.heartbeat_interval_ms < 10)
		g->conf.heartbeat_interval_ms = 10;
	if (g->conf.max_wait_ms > g->conf.heartbeat_interval_ms / 2)
		g->conf.max_wait_ms = g->conf.heartbeat_interval_ms / 2;
	if (g->conf.max_wait_ms < 0)
		g->conf.max_wait_ms = 0;
	if (g->conf.auto_commit_ms < 0)
		g->conf.auto_commit_ms = 0;
	if ((g->group = strdup(group)) == NULL ||
	    (g->topics = calloc((size_t)ntopics, sizeof(*g->topics))) == NULL)
		goto nomem;
	for (i = 0; i < ntopics; i++) {
		if ((g->topics[i] = strdup(topics[i])) == NULL)
			goto nomem;
		g->ntopics++;
	}
	if (gjoin(g) == -1) {
		saved = errno;
		flume_group_free(g);
		errno = saved;
		return NULL;
	}
	return g;
nomem:
	client_seterr(c, "out of memory");
	flume_group_free(g);
	errno = ENOMEM;
	return NULL;
}

/* HEARTBEAT now.  0 (answered: fine or "rejoin"), -1 transport failure. */
static int
gheartbeat(struct flume_group *g)
{
	struct heartbeat_req req;
	struct group_error_resp resp;
	struct client_sync s;

	req.group = g->group;
	req.group_len = strlen(g->group);
	req.member_id = g->member_id;
	req.member_id_len = strlen(g->member_id);
	req.generation = g->generation;
	if (client_call(g->c, API_HEARTBEAT, &req,
	    g->c->conf.request_timeout_ms, 0, &s) == -1)
		return -1;
	if (msg_decode_group_error_resp(s.buf, s.len, &resp) == -1) {
		free(s.buf);
		return gmalformed(g->c, "heartbeat");
	}
	free(s.buf);
	if (resp.error != ERR_NONE && !gmembership_error(g, resp.error))
		return client_broker_fail(g->c, resp.error, "heartbeat");
	return 0;
}

/*
 * Heartbeat, commit and rejoin when due at now.  1 when it sent a
 * request (time passed), 0 when nothing was due, -1 (give up).
 */
static int
gduties(struct flume_group *g, int64_t now)
{
	int sent = 0;

	if (!g->need_join && now >= g->next_hb) {
		sent = 1;
		if (gheartbeat(g) == -1) {
			if (flume_broker_error(g->c) != 0 || errno == EPROTO)
				return -1;
			/* Transport: the next request reconnects; retry soon. */
			if (!client_connected(g->c) && client_reconnect(g->c) == -1)
				return -1;
			g->next_hb = now + GROUP_RETRY_MS;
		} else
			g->next_hb = now + g->conf.heartbeat_interval_ms;
	}
	if (!g->need_join && g->conf.auto_commit_ms > 0 && now >= g->next_commit) {
		sent = 1;
		if (gcommit(g, 0) == -1 && !client_connected(g->c) &&
		    client_reconnect(g->c) == -1)
			return -1;
		g->next_commit = now + g->conf.auto_commit_ms;
	}
	if (g->need_join) {
		sent = 1;
		/*
		 * Commit before the rebalance may move partitions away (as
		 * Kafka's consumers do on revocation): the broker takes the
		 * ending generation's commit until the next one completes.
		 */
		if (g->conf.auto_commit_ms > 0 && g->member_id[0] != '\0')
			(void)gcommit(g, GCOMMIT_STALE);
		if (gjoin(g) == -1)
			return -1;
	}
	return sent;
}

/*
 * The clock for deciding whether duties are due while messages are
 * buffered: CLOCK_MONOTONIC_COARSE is the same clock read from the last
 * tick (a few ms behind at most, which a heartbeat interval of 10 ms or
 * more absorbs) and costs a quarter of a CLOCK_MONOTONIC read, which in
 * a virtual machine is ~45 ns: a tenth of a message's cost at the rates
 * a group member reaches.
 */
static int64_t
gcoarse_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == -1)
		return client_now_ms();
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A message already buffered costs one coarse clock read (duties must
 * still run on time however slowly the application polls); only when
 * the buffer is empty does the precise loop below run: one clock read
 * per round, and a second only after duties that went to the broker.
 */
int
flume_group_poll(struct flume_group *g, struct flume_message *m, int timeout_ms)
{
	int64_t now, deadline, wait;
	int rc, rounds;

	if ((rc = gduties(g, gcoarse_ms())) == -1)
		return -1;
	if (rc == 0 && g->k != NULL &&
	    (rc = consumer_next_buffered(g->k, m)) != 0)
		return rc;
	now = client_now_ms();
	deadline = now + (timeout_ms > 0 ? timeout_ms : 0);
	for (rounds = 0; rounds < 1000000; rounds++) {
		if (rounds > 0)
			now = client_now_ms();
		if ((rc = gduties(g, now)) == -1)
			return -1;
		if (rc == 1)
			now = client_now_ms();
		if (rounds > 0 && now >= deadline)
			return 0;
		wait = (deadline < g->next_hb ? deadline : g->next_hb) - now;
		if (wait < 0)
			wait = 0;
		if (g->k == NULL) {
			/* Nothing assigned: just keep the membership alive. */
			gsleep_ms((int)(wait > 1000 ? 1000 : wait));
			continue;
		}
		rc = flume_consumer_poll(g->k, m, (int)wait);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
flume_group_mark(struct flume_group *g, const char *topic, int32_t partition,
    int64_t next_offset)
{
	int64_t pos;
	size_t i;

	for (i = 0; i < g->nparts && g->k != NULL; i++) {
		if (g->parts[i].partition != partition ||
		    strcmp(g->parts[i].topic, topic) != 0)
			continue;
		pos = flume_consumer_position(g->k, topic, partition);
		if (next_offset < 0 || next_offset > pos) {
			client_seterr(g->c, "%s/%d: cannot mark %lld processed: "
			    "handed out up to %lld", topic, (int)partition,
			    (long long)next_offset, (long long)pos);
			errno = EINVAL;
			return -1;
		}
		g->parts[i].marked = next_offset;
		return 0;
	}
	client_seterr(g->c, "%s/%d: not assigned to this member", topic,
	    (int)partition);
	errno = ENOENT;
	return -1;
}

int
flume_group_mark_message(struct flume_group *g, const struct flume_message *m)
{
	return flume_group_mark(g, m->topic, m->partition, m->offset + 1);
}

int
flume_group_commit(struct flume_group *g)
{
	int rc;

	/*
	 * A refusal seen before (a heartbeat's, an async commit's) left a
	 * rejoin pending: gcommit() sends nothing then, which must not read
	 * as committed.
	 */
	if (g->need_join) {
		client_seterr(g->c, "offset commit: rebalance in progress");
		errno = EAGAIN;
		return -1;
	}
	rc = gcommit(g, GCOMMIT_ALL);

	if (rc == 1) {
		errno = EAGAIN;
		return -1;
	}
	return rc;
}

int
flume_group_at_end(const struct flume_group *g)
{
	return !g->need_join && (g->k == NULL || flume_consumer_at_end(g->k));
}

int
flume_group_buffered(const struct flume_group *g)
{
	return g->k != NULL && flume_consumer_buffered(g->k);
}

/* Is part i's marked offset one the group does not have yet? */
static int
gmark_pending(const struct gpart *p)
{
	return p->marked >= 0 && p->marked != p->committed;
}

/* Does the group have offset (or more) for topic/partition, as we know? */
static int
gcommitted_past(const struct flume_group *g, const char *topic,
    int32_t partition, int64_t offset)
{
	size_t i;

	for (i = 0; i < g->nparts; i++)
		if (g->parts[i].partition == partition &&
		    strcmp(g->parts[i].topic, topic) == 0)
			return g->parts[i].committed >= offset;
	return 0;
}

/*
 * Commit what was marked before leaving.  A rebalance that began (a
 * member that stopped with us left first) does not stop it: the broker
 * takes a commit of the generation just ended for the partitions we
 * owned in it, until the next one completes.  If it did complete (or we
 * were dropped), rejoin and commit what is still ours; what moved to
 * another member is not ours to commit, and is delivered again there.
 */
static int
gclose_commit(struct flume_group *g)
{
	struct gpart *want;
	size_t i, n = 0, lost = 0;
	int rc;

	if (g->member_id[0] != '\0' &&
	    (rc = gcommit(g, GCOMMIT_STALE)) != 1)
		return rc;
	for (i = 0; i < g->nparts; i++)
		n += gmark_pending(&g->parts[i]);
	if (n == 0)
		return 0;
	/* What to commit, by name: the rejoin rebuilds g->parts. */
	if ((want = calloc(n, sizeof(*want))) == NULL) {
		client_seterr(g->c, "out of memory");
		return -1;
	}
	for (i = 0, n = 0; i < g->nparts; i++)
		if (gmark_pending(&g->parts[i]) &&
		    (want[n].topic = strdup(g->parts[i].topic)) != NULL) {
			want[n].partition = g->parts[i].partition;
			want[n++].marked = g->parts[i].marked;
		}
	rc = gjoin(g) == 0 && gcommit(g, 0) == 0 ? 0 : -1;
	for (i = 0; i < n; i++)
		if (!gcommitted_past(g, want[i].topic, want[i].partition,
		    want[i].marked))
			lost++;
	gparts_free(want, n);
	if (rc == 0 && lost > 0) {
		client_seterr(g->c, "offset commit: %zu partition%s moved to "
		    "another member before the commit; its last records will "
		    "be delivered again", lost, lost == 1 ? "" : "s");
		rc = -1;
	}
	return rc;
}

int
flume_group_close(struct flume_group *g)
{
	struct leave_group_req req;
	struct group_error_resp resp;
	struct client_sync s;
	int rc = 0;

	if (g == NULL)
		return 0;
	if (gclose_commit(g) != 0)
		rc = -1;
	if (g->member_id[0] != '\0') {
		req.group = g->group;
		req.group_len = strlen(g->group);
		req.member_id = g->member_id;
		req.member_id_len = strlen(g->member_id);
		if (client_call(g->c, API_LEAVE_GROUP, &req,
		    g->c->conf.request_timeout_ms, 0, &s) == -1)
			rc = -1;
		else {
			if (msg_decode_group_error_resp(s.buf, s.len, &resp) == -1 ||
			    (resp.error != ERR_NONE &&
			    resp.error != ERR_UNKNOWN_MEMBER))
				rc = -1;
			free(s.buf);
		}
	}
	flume_group_free(g);
	return rc;
}

int32_t
flume_group_generation(const struct flume_group *g)
{
	return g->generation;
}

const char *
flume_group_member_id(const struct flume_group *g)
{
	return g->member_id;
}

unsigned
flume_group_assignments(const struct flume_group *g)
{
	return g->assignments;
}

/* ---- administration ---- */

const char *
flume_group_state_name(int state)
{
	switch (state) {
	case FLUME_GROUP_EMPTY:
		return "empty";
	case FLUME_GROUP_REBALANCING:
		return "rebalancing";
	case FLUME_GROUP_STABLE:
		return "stable";
	case FLUME_GROUP_AWAITING_SYNC:
		return "awaiting-sync";
	default:
		return "unknown";
	}
}

void
flume_group_list_free(struct flume_group_info *l, int n)
{
	int i;

	if (l == NULL)
		return;
	for (i = 0; i < n; i++)
		free(l[i].name);
	free(l);
}

int
flume_list_groups(struct flume_client *c, struct flume_group_info **out)
{
	struct list_groups_resp resp;
	struct client_sync s;
	struct arena a;
	int32_t i;
	int rc = -1;

	*out = NULL;
	arena_init(&a, GROUP_ARENA_LIMIT);
	if (client_call(c, API_LIST_GROUPS, NULL, c->conf.request_timeout_ms, 0,
	    &s) == -1)
		goto done;
	if (msg_decode_list_groups_resp(s.buf, s.len, &a, &resp) == -1) {
		gmalformed(c, "list groups");
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, "list groups");
		goto done;
	}
	if ((*out = calloc(resp.count > 0 ? (size_t)resp.count : 1,
	    sizeof(**out))) == NULL)
		goto nomem;
	for (i = 0; i < resp.count; i++) {
		if (((*out)[i].name = strndup(resp.groups[i].group,
		    resp.groups[i].group_len)) == NULL) {
			flume_group_list_free(*out, i);
			*out = NULL;
			goto nomem;
		}
		(*out)[i].state = resp.groups[i].state;
		(*out)[i].generation = resp.groups[i].generation;
		(*out)[i].members = resp.groups[i].members;
	}
	rc = resp.count;
	goto done;
nomem:
	client_seterr(c, "out of memory");
	errno = ENOMEM;
done:
	free(s.buf);
	arena_free(&a);
	return rc;
}

void
flume_group_desc_free(struct flume_group_desc *d)
{
	int32_t i, j;

	if (d == NULL)
		return;
	for (i = 0; i < d->member_count; i++) {
		free(d->members[i].member_id);
		free(d->members[i].client_id);
		for (j = 0; j < d->members[i].count; j++)
			free(d->members[i].parts[j].topic);
		free(d->members[i].parts);
		if (d->details != NULL) {
			struct flume_group_member_detail *x = &d->details[i];

			free(x->instance_id);
			for (j = 0; j < x->revoking_count; j++)
				free(x->revoking[j].topic);
			free(x->revoking);
			for (j = 0; j < x->target_count; j++)
				free(x->target[j].topic);
			free(x->target);
		}
	}
	free(d->members);
	free(d->details);
	for (i = 0; i < d->partition_count; i++)
		free(d->partitions[i].topic);
	free(d->partitions);
	free(d);
}

/* Copy n (topic, partition) out of the arena into *out (free()): 0 or -1. */
static int
gtps_copy(const struct group_tp *tp, int32_t n,
    struct flume_topic_partition **out, int32_t *nout)
{
	int32_t j;

	*out = NULL;
	*nout = 0;
	if (n <= 0)
		return 0;
	if ((*out = calloc((size_t)n, sizeof(**out))) == NULL)
		return -1;
	for (j = 0; j < n; j++) {
		*nout = j + 1;
		(*out)[j].partition = tp[j].partition;
		if (((*out)[j].topic = strndup(tp[j].topic,
		    tp[j].topic_len)) == NULL)
			return -1;
	}
	return 0;
}

/*
 * Copy a decoded DESCRIBE_GROUP answer out of the arena (v2: with its
 * kind and epochs); NULL on ENOMEM.
 */
static struct flume_group_desc *
gdesc_copy(const struct describe_group_resp *r, int v2)
{
	struct flume_group_desc *d;
	struct flume_group_member *m;
	const struct member_desc *md;
	int32_t i, j;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	d->state = r->state;
	d->generation = r->generation;
	d->kind = v2 ? r->kind : FLUME_GROUP_KIND_UNKNOWN;
	d->assignment_epoch = v2 ? r->assignment_epoch : -1;
	if (r->nmembers > 0 && ((d->members = calloc((size_t)r->nmembers,
	    sizeof(*d->members))) == NULL || (v2 && (d->details =
	    calloc((size_t)r->nmembers, sizeof(*d->details))) == NULL)))
		goto fail;
	for (i = 0; i < r->nmembers; i++) {
		md = &r->members[i];
		m = &d->members[i];
		d->member_count = i + 1;
		m->session_timeout_ms = md->session_timeout_ms;
		if ((m->member_id = strndup(md->member_id, md->member_id_len)) ==
		    NULL || (m->client_id = strndup(md->client_id,
		    md->client_id_len)) == NULL)
			goto fail;
		if (md->count > 0 && (m->parts = calloc((size_t)md->count,
		    sizeof(*m->parts))) == NULL)
			goto fail;
		for (j = 0; j < md->count; j++) {
			m->count = j + 1;
			m->parts[j].partition = md->parts[j].partition;
			if ((m->parts[j].topic = strndup(md->parts[j].topic,
			    md->parts[j].topic_len)) == NULL)
				goto fail;
		}
		if (d->details == NULL)
			continue;
		d->details[i].epoch = md->member_epoch;
		if ((d->details[i].instance_id = strndup(md->instance_id != NULL ?
		    md->instance_id : "", md->instance_id_len)) == NULL ||
		    gtps_copy(md->revoking, md->nrevoking, &d->details[i].revoking,
		    &d->details[i].revoking_count) == -1 ||
		    gtps_copy(md->target, md->ntarget, &d->details[i].target,
		    &d->details[i].target_count) == -1)
			goto fail;
	}
	if (r->noffsets > 0 && (d->partitions = calloc((size_t)r->noffsets,
	    sizeof(*d->partitions))) == NULL)
		goto fail;
	for (i = 0; i < r->noffsets; i++) {
		d->partition_count = i + 1;
		d->partitions[i].partition = r->offsets[i].partition;
		d->partitions[i].committed = r->offsets[i].committed >= 0 ?
		    r->offsets[i].committed : -1;
		d->partitions[i].log_end = r->offsets[i].log_end;
		if ((d->partitions[i].topic = strndup(r->offsets[i].topic,
		    r->offsets[i].topic_len)) == NULL)
			goto fail;
	}
	return d;
fail:
	flume_group_desc_free(d);
	return NULL;
}

int
flume_describe_group(struct flume_client *c, const char *group,
    struct flume_group_desc **out)
{
	struct describe_group_req req;
	struct describe_group_resp resp;
	struct client_sync s;
	struct arena a;
	int rc = -1, v2;

	*out = NULL;
	req.group = group;
	req.group_len = strlen(group);
	arena_init(&a, GROUP_ARENA_LIMIT);
	if (client_call(c, API_DESCRIBE_GROUP, &req, c->conf.request_timeout_ms, 0,
	    &s) == -1)
		goto done;
	/* The layout of the version the connection's handshake agreed. */
	v2 = c->proto_version >= 2;
	if ((v2 ? msg_decode_describe_group_resp_v2(s.buf, s.len, &a, &resp) :
	    msg_decode_describe_group_resp(s.buf, s.len, &a, &resp)) == -1) {
		gmalformed(c, "describe group");
		goto done;
	}
	if (resp.error != ERR_NONE) {
		client_broker_fail(c, resp.error, group);
		if (resp.error == ERR_INVALID_GROUP) {
			client_seterr(c, "%s: no such group", group);
			errno = ENOENT;
		}
		goto done;
	}
	if ((*out = gdesc_copy(&resp, v2)) == NULL) {
		client_seterr(c, "out of memory");
		errno = ENOMEM;
		goto done;
	}
	rc = 0;
done:
	free(s.buf);
	arena_free(&a);
	return rc;
}

int
flume_committed_offset(struct flume_client *c, const char *group,
    const char *topic, int32_t partition, int64_t *offset)
{
	struct flume_group g;
	struct gpart p;

	memset(&g, 0, sizeof(g));
	g.c = c;
	g.group = (char *)(uintptr_t)group;
	p.topic = (char *)(uintptr_t)topic;
	p.partition = partition;
	p.committed = -1;
	p.marked = -1;
	if (gfetch_committed(&g, &p, 1) == -1)
		return -1;
	*offset = p.committed;
	return 0;
}
