/*
 * Kafka's DeleteRecords v0-2, DeleteGroups v0-2 and OffsetDelete v0
 * (descriptions in proto/kafka/kmsg_records.h), over the operations of
 * worker/op/records.h, worker/op/group_info.h and
 * worker/op/group_offsets.h.
 *
 * DeleteRecords moves each partition's log start up to the offset asked
 * (-1: the high watermark) and waits, up to timeout_ms (0 or less: no
 * wait, as Kafka), for the writer to have done it; then it answers the
 * partition's new low watermark.  Per partition: OFFSET_OUT_OF_RANGE
 * past the high watermark (nothing changed), an offset below the start
 * answers the start as it is, UNKNOWN_TOPIC_OR_PARTITION,
 * TOPIC_AUTHORIZATION_FAILED without admin on the topic (Kafka asks
 * DELETE on it), REQUEST_TIMED_OUT (the deletion still completes); the
 * low watermark of an error is -1, as Kafka's.
 *
 * DeleteGroups deletes each group without members and its committed
 * offsets: NON_EMPTY_GROUP while it has members, GROUP_ID_NOT_FOUND for
 * none of that name, INVALID_GROUP_ID for a name no group can have,
 * GROUP_AUTHORIZATION_FAILED without group-delete on it (Kafka's DELETE).
 *
 * OffsetDelete deletes a group's committed offsets of the partitions
 * named.  As a whole (then no topics are answered, as Kafka):
 * GROUP_AUTHORIZATION_FAILED, INVALID_GROUP_ID, GROUP_ID_NOT_FOUND, and
 * NON_EMPTY_GROUP for a group with members of a protocol other than
 * "consumer" (Kafka's rule: only a consumer's subscription says which
 * topics are in use).  Per partition: GROUP_SUBSCRIBED_TO_TOPIC while
 * the group has members and its generation subscribes the topic,
 * UNKNOWN_TOPIC_OR_PARTITION, TOPIC_AUTHORIZATION_FAILED without
 * consume on the topic (Kafka's READ); NONE also when nothing was
 * committed there.
 *
 * The answers read topic and group names from the request's body, which
 * is decoded again if its bytes moved while the request waited.
 */
#include <string.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_records.h"
#include "worker/conn.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/records.h"
#include "worker/op/group_info.h"
#include "worker/op/group_offsets.h"
#include "worker/op/records.h"
#include "worker/worker.h"

/* No topic or partition has a bad name. */
static int16_t
part_error(enum op_err e)
{
	return e == OP_BAD_TOPIC_NAME ? KERR_UNKNOWN_TOPIC_OR_PARTITION :
	    kafka_op_error(e);
}

/* ---- DeleteRecords ---- */

struct kdelrec_one {
	int			 wait;
	struct op_delete_records a;
};

struct kdelrec_st {
	int32_t			 n;	/* partitions over every topic */
	struct kdelrec_one	*p;
};

void
kafka_delete_records_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_delete_records_req *q = k->body;
	const struct km_delrec_topic *t = q->topics.v;
	const struct km_delrec_part *rp;
	struct kdelrec_st *st;
	struct kdelrec_one *o;
	struct op_ctx x;
	int32_t i, j, n = 0;
	int waiting = 0;

	r->state = REQ_DONE;
	for (i = 0; i < q->topics.n; i++)
		n += t[i].partitions.n > 0 ? t[i].partitions.n : 0;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL || (n > 0 &&
	    (st->p = conn_alloc(c, (size_t)n * sizeof(*st->p))) == NULL)) {
		c->dead = 1;
		return;
	}
	st->n = n;
	k->kst = st;
	conn_op_ctx(c, r, &x);
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms : 0);
	o = st->p;
	for (i = 0; i < q->topics.n; i++) {
		rp = t[i].partitions.v;
		for (j = 0; j < t[i].partitions.n; j++, o++) {
			memset(o, 0, sizeof(*o));
			o->a.offset = rp[j].offset;
			o->a.deadline = r->deadline;
			if (t[i].name.len <= 0) {
				o->a.err = OP_NO_TOPIC;
				o->a.low_watermark = -1;
				continue;
			}
			if (op_delete_records(&x, t[i].name.p,
			    (size_t)t[i].name.len, rp[j].partition_index,
			    &o->a) == OP_WAIT)
				waiting = o->wait = 1;
		}
	}
	if (waiting)
		r->state = REQ_WAIT;
}

void
kafka_delete_records_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kdelrec_st *st = k->kst;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	(void)w;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->n; i++) {
		if (!st->p[i].wait)
			continue;
		if (op_delete_records_poll(&x, &st->p[i].a) == OP_WAIT)
			waiting = 1;
		else
			st->p[i].wait = 0;
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

void
kafka_delete_records_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_delete_records_req *q = k->body;
	const struct km_delrec_topic *t = q->topics.v;
	const struct km_delrec_part *rp;
	const struct kdelrec_st *st = k->kst;
	const struct kdelrec_one *o = st->p;
	struct km_delete_records_resp s;
	struct km_delrec_topic_result *tr = NULL;
	struct km_delrec_part_result *pr;
	int32_t i, j;

	(void)w;
	kdesc_defaults(kmsg_delete_records.km_resp, &s);
	if (q->topics.n > 0 && (tr = conn_alloc(c, (size_t)q->topics.n *
	    sizeof(*tr))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < q->topics.n; i++) {
		memset(&tr[i], 0, sizeof(tr[i]));
		tr[i].name = t[i].name;
		if (t[i].partitions.n <= 0)
			continue;
		if ((pr = conn_alloc(c, (size_t)t[i].partitions.n *
		    sizeof(*pr))) == NULL) {
			c->dead = 1;
			return;
		}
		rp = t[i].partitions.v;
		for (j = 0; j < t[i].partitions.n; j++, o++) {
			pr[j].partition_index = rp[j].partition_index;
			pr[j].error_code = part_error(o->a.err);
			pr[j].low_watermark = o->a.err == OP_OK ?
			    o->a.low_watermark : -1;
		}
		tr[i].partitions.n = t[i].partitions.n;
		tr[i].partitions.v = pr;
	}
	s.topics.n = q->topics.n > 0 ? q->topics.n : 0;
	s.topics.v = tr;
	kafka_emit_desc(c, r, &s);
}

/* ---- DeleteGroups ---- */

struct kdelgroups_st {
	int32_t		 n;
	int16_t		*err;
};

void
kafka_delete_groups_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_delete_groups_req *q = k->body;
	const struct kstr *names = q->groups_names.v;
	struct kdelgroups_st *st;
	struct op_ctx x;
	int32_t i;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	st->n = q->groups_names.n > 0 ? q->groups_names.n : 0;
	if (st->n > 0 && (st->err = conn_alloc(c, (size_t)st->n *
	    sizeof(*st->err))) == NULL) {
		c->dead = 1;
		return;
	}
	k->kst = st;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->n; i++) {
		if (names[i].len <= 0)
			st->err[i] = KERR_INVALID_GROUP_ID;
		else if (w->shm->hdr->limits.max_groups == 0)
			st->err[i] = KERR_GROUP_ID_NOT_FOUND;
		else
			st->err[i] = kafka_op_error(op_group_delete(&x,
			    names[i].p, (size_t)names[i].len));
	}
}

void
kafka_delete_groups_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_delete_groups_req *q = k->body;
	const struct kstr *names = q->groups_names.v;
	const struct kdelgroups_st *st = k->kst;
	struct km_delete_groups_resp s;
	struct km_deletable_group *g = NULL;
	int32_t i;

	(void)w;
	kdesc_defaults(kmsg_delete_groups.km_resp, &s);
	if (st->n > 0 && (g = conn_alloc(c, (size_t)st->n *
	    sizeof(*g))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < st->n; i++) {
		memset(&g[i], 0, sizeof(g[i]));
		g[i].group_id = names[i].len >= 0 ? names[i] : kstr_c("");
		g[i].error_code = st->err[i];
	}
	s.results.n = st->n;
	s.results.v = g;
	kafka_emit_desc(c, r, &s);
}

/* ---- OffsetDelete ---- */

struct koffdel_st {
	int16_t			 error;		/* the whole request's */
	int32_t			 n;		/* partitions over every topic */
	struct op_group_offset	*p;
};

void
kafka_offset_delete_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_offset_delete_req *q = k->body;
	const struct km_odel_topic *t = q->topics.v;
	const struct km_odel_part *rp;
	struct koffdel_st *st;
	struct op_group_offset *p;
	struct op_ctx x;
	int32_t i, j, n = 0;

	r->state = REQ_DONE;
	for (i = 0; i < q->topics.n; i++)
		n += t[i].partitions.n > 0 ? t[i].partitions.n : 0;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL || (n > 0 &&
	    (st->p = conn_alloc(c, (size_t)n * sizeof(*st->p))) == NULL)) {
		c->dead = 1;
		return;
	}
	st->n = n;
	st->error = KERR_NONE;
	k->kst = st;
	p = st->p;
	for (i = 0; i < q->topics.n; i++) {
		rp = t[i].partitions.v;
		for (j = 0; j < t[i].partitions.n; j++, p++) {
			memset(p, 0, sizeof(*p));
			p->topic = t[i].name.len > 0 ? t[i].name.p : "";
			p->topic_len = t[i].name.len > 0 ?
			    (size_t)t[i].name.len : 0;
			p->partition = rp[j].partition_index;
		}
	}
	if (q->group_id.len <= 0) {
		st->error = KERR_INVALID_GROUP_ID;
		return;
	}
	if (w->shm->hdr->limits.max_groups == 0) {
		st->error = KERR_GROUP_ID_NOT_FOUND;
		return;
	}
	conn_op_ctx(c, r, &x);
	st->error = kafka_op_error(op_group_offset_delete(&x, q->group_id.p,
	    (size_t)q->group_id.len, st->p, st->n));
}

void
kafka_offset_delete_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_offset_delete_req *q = k->body;
	const struct km_odel_topic *t = q->topics.v;
	const struct km_odel_part *rp;
	const struct koffdel_st *st = k->kst;
	const struct op_group_offset *p = st->p;
	struct km_offset_delete_resp s;
	struct km_odel_topic_result *tr = NULL;
	struct km_odel_part_result *pr;
	int32_t i, j;

	(void)w;
	kdesc_defaults(kmsg_offset_delete.km_resp, &s);
	s.error_code = st->error;
	if (st->error != KERR_NONE || q->topics.n <= 0) {
		kafka_emit_desc(c, r, &s);
		return;
	}
	if ((tr = conn_alloc(c, (size_t)q->topics.n * sizeof(*tr))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < q->topics.n; i++) {
		memset(&tr[i], 0, sizeof(tr[i]));
		tr[i].name = t[i].name;
		if (t[i].partitions.n <= 0)
			continue;
		if ((pr = conn_alloc(c, (size_t)t[i].partitions.n *
		    sizeof(*pr))) == NULL) {
			c->dead = 1;
			return;
		}
		rp = t[i].partitions.v;
		for (j = 0; j < t[i].partitions.n; j++, p++) {
			pr[j].partition_index = rp[j].partition_index;
			pr[j].error_code = part_error(p->err);
		}
		tr[i].partitions.n = t[i].partitions.n;
		tr[i].partitions.v = pr;
	}
	s.topics.n = q->topics.n;
	s.topics.v = tr;
	kafka_emit_desc(c, r, &s);
}
