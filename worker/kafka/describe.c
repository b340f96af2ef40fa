/*
 * The read-only cluster and log APIs of the Kafka face, rows of its table
 * (worker/kafka/kafka.c), through their descriptions
 * (proto/kafka/kmsg_describe.h).  One broker is the whole cluster: node
 * 0 (as Metadata answers it), the controller, the leader of every
 * partition with leader epoch 0, the only replica, never reassigning.
 *
 * Each exec builds its whole answer in the request's memory (k->kst, the
 * response struct of its description) and kafka_group_emit sends it;
 * names in it point into the request's bytes, which kafka_redecode()
 * moves the answer along with when they move (it does so for every row
 * whose emit is kafka_group_emit).
 *
 * - DescribeCluster v0-2: this node at the address advertised for the
 *   listener the client is on, rack null, never fenced, the controller
 *   itself; the cluster's authorized operations only when asked (else
 *   Kafka's -2147483648).  EndpointType 2 (controllers) is
 *   MISMATCHED_ENDPOINT_TYPE, another unknown one
 *   UNSUPPORTED_ENDPOINT_TYPE (both INVALID_REQUEST in v0), as a Kafka
 *   broker answers.  No permission needed, as in Kafka.
 * - DescribeLogDirs v0-4: one log directory, the data directory's real
 *   path, each partition asked (null: every topic the user may see) with
 *   the size of its segments, offset lag 0, never a future log; from v4
 *   the volume's total and usable bytes (statvfs).  Kafka asks Describe
 *   on the cluster: a user without admin rights on some topic is
 *   CLUSTER_AUTHORIZATION_FAILED (v3+; v0-2 get no log directory at
 *   all).  Unknown topics and partitions are left out, as Kafka does.
 * - OffsetForLeaderEpoch v0-4: every leader epoch is 0, so epoch 0 ends
 *   at the log end (what a Kafka leader answers for its current epoch),
 *   a later one is unknown (UNDEFINED_EPOCH_OFFSET -1, epoch -1), -1
 *   answers -1 and -1, and one below -1 starts at the log start.  A
 *   current_leader_epoch (v2+) other than -1 and 0 is FENCED_LEADER_EPOCH
 *   below 0 and UNKNOWN_LEADER_EPOCH above.  Kafka's Describe on the topic:
 *   produce or consume rights.
 * - ListPartitionReassignments v0: never any (one node); needs admin
 *   rights on some topic (Kafka's Describe on the cluster), else
 *   CLUSTER_AUTHORIZATION_FAILED.  Unknown topics are left out, as Kafka's
 *   controller does.
 * - DescribeProducers v0: the idempotent producers the broker remembers on
 *   each partition (shm/producer.h), with coordinator epoch and
 *   transaction start -1 (no transactions).  Kafka's Read on the topic:
 *   consume or admin rights.
 * - DescribeTopicPartitions v0: Kafka 4's kafka-topics --describe.  The
 *   topics named (none: every topic the user may see), sorted by name, from
 *   the cursor on, at most response_partition_limit partitions (1 to
 *   2000) with a next cursor (worker/op/describe.h: op_topic_page); a
 *   denied topic named is TOPIC_AUTHORIZATION_FAILED after the others, an
 *   unknown one UNKNOWN_TOPIC_OR_PARTITION, a cursor outside the topics
 *   named INVALID_REQUEST for every topic, as Kafka answers.
 */
#include <sys/statvfs.h>

#include <bsd/string.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_describe.h"
#include "proto/names.h"
#include "store/topic.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/kafka/describe.h"
#include "worker/kafka/group.h"
#include "worker/kafka/kafka.h"
#include "worker/op/describe.h"
#include "worker/op/offsets.h"
#include "worker/op/part.h"
#include "worker/op/topics.h"
#include "worker/worker.h"

#define DESCRIBE_PARTS_MAX	2000	/* Kafka's max.request.partition.size.limit */
#define KENDPOINT_BROKERS	1
#define KENDPOINT_CONTROLLERS 2

static const int32_t node0[1] = { KAFKA_NODE_ID };

/* n elements of size bytes of c's memory (n 0: NULL), or close c. */
static void *
dalloc(struct conn *c, size_t n, size_t size)
{
	void *p;

	if (n == 0)
		return NULL;
	if ((p = conn_alloc(c, n * size)) == NULL)
		c->dead = 1;
	else
		memset(p, 0, n * size);
	return p;
}

/* k->kst: a response of r's row, at its defaults; NULL closes c. */
static void *
answer(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kmsg *m = k->row->desc;

	r->state = REQ_DONE;
	if ((k->kst = conn_alloc(c, m->km_resp->kd_size)) == NULL) {
		c->dead = 1;
		return NULL;
	}
	kdesc_defaults(m->km_resp, k->kst);
	return k->kst;
}

/* ---- DescribeCluster ---- */

void
kafka_describe_cluster_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_dcluster_req *q = k->body;
	struct km_dcluster_resp *s;
	struct km_dcluster_broker *b;
	int16_t v = k->h.api_version;
	char *msg;

	if ((s = answer(c, r)) == NULL)
		return;
	if (q->endpoint_type != KENDPOINT_BROKERS) {
		s->error_code = v == 0 ? KERR_INVALID_REQUEST :
		    q->endpoint_type == KENDPOINT_CONTROLLERS ?
		    KERR_MISMATCHED_ENDPOINT_TYPE :
		    KERR_UNSUPPORTED_ENDPOINT_TYPE;
		if (q->endpoint_type == KENDPOINT_CONTROLLERS)
			s->error_message = kstr_c("The request was sent to an "
			    "endpoint of type BROKER, but we wanted an endpoint "
			    "of type CONTROLLER");
		else if ((msg = conn_alloc(c, 40)) != NULL) {
			snprintf(msg, 40, "Unsupported endpoint type %d",
			    (int)q->endpoint_type);
			s->error_message = kstr_c(msg);
		}
		return;
	}
	if ((b = dalloc(c, 1, sizeof(*b))) == NULL)
		return;
	b->broker_id = KAFKA_NODE_ID;
	/* As Metadata: a TLS client is sent to the TLS listener. */
	b->host = kstr_c(c->tls != NULL ? w->conf->kafka_tls_adv_host :
	    w->conf->kafka_adv_host);
	b->port = c->tls != NULL ? w->conf->kafka_tls_adv_port :
	    w->conf->kafka_adv_port;
	b->rack = kstr_c(NULL);
	s->brokers.n = 1;
	s->brokers.v = b;
	s->cluster_id = kstr_c(KAFKA_CLUSTER_ID);
	s->controller_id = KAFKA_NODE_ID;
	s->endpoint_type = KENDPOINT_BROKERS;
	if (q->include_cluster_authorized_operations)
		s->cluster_authorized_operations = kafka_cluster_ops(c);
}

/* ---- DescribeLogDirs ---- */

/* Is partition p of topic i asked by q (null: every one)? */
static int
logdirs_asked(const struct km_logdirs_req *q, const struct op_topic_info *ti,
    int32_t p)
{
	const struct km_logdirs_topic *t = q->topics.v;
	const int32_t *ps;
	int32_t i, j;

	if (q->topics.n < 0)
		return 1;
	for (i = 0; i < q->topics.n; i++) {
		if ((size_t)t[i].topic.len != ti->name_len ||
		    memcmp(t[i].topic.p, ti->name, ti->name_len) != 0)
			continue;
		ps = t[i].partitions.v;
		for (j = 0; j < t[i].partitions.n; j++)
			if (ps[j] == p)
				return 1;
	}
	return 0;
}

/* Was topic i of q named before (its partitions answered already)? */
static int
logdirs_dup(const struct km_logdirs_req *q, int32_t i)
{
	const struct km_logdirs_topic *t = q->topics.v;
	int32_t j;

	for (j = 0; j < i; j++)
		if (t[j].topic.len == t[i].topic.len && (t[i].topic.len <= 0 ||
		    memcmp(t[j].topic.p, t[i].topic.p,
		    (size_t)t[i].topic.len) == 0))
			return 1;
	return 0;
}

void
kafka_describe_log_dirs_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_logdirs_req *q = k->body;
	const struct km_logdirs_topic *rt = q->topics.v;
	struct km_logdirs_resp *s;
	struct km_logdirs_result *res;
	struct km_logdirs_topic_resp *t;
	struct km_logdirs_part *pp;
	struct op_topic_info *ti = NULL;
	struct op_name *names = NULL;
	struct statvfs sv;
	struct op_ctx x;
	char *dir;
	int32_t i, j, n, nti = 0, nn = 0;

	if ((s = answer(c, r)) == NULL)
		return;
	if (auth_gate(c, AUTH_ADMIN, r->name) != OP_OK) {
		s->error_code = KERR_CLUSTER_AUTHORIZATION_FAILED;
		return;
	}
	conn_op_ctx(c, r, &x);
	if (q->topics.n > 0) {
		if ((names = dalloc(c, (size_t)q->topics.n,
		    sizeof(*names))) == NULL)
			return;
		for (i = 0; i < q->topics.n; i++) {
			if (logdirs_dup(q, i) || rt[i].topic.len <= 0)
				continue;
			names[nn].s = rt[i].topic.p;
			names[nn++].len = (size_t)rt[i].topic.len;
		}
	}
	if ((q->topics.n < 0 || nn > 0) && op_metadata(&x, names, q->topics.n <
	    0 ? 0 : nn, 0, &ti, &nti) != OP_OK) {
		c->dead = 1;
		return;
	}
	if ((res = dalloc(c, 1, sizeof(*res))) == NULL ||
	    (dir = conn_alloc(c, PATH_MAX)) == NULL) {
		c->dead = 1;
		return;
	}
	if (realpath(w->conf->data_dir, dir) == NULL)
		(void)strlcpy(dir, w->conf->data_dir, PATH_MAX);
	res->log_dir = kstr_c(dir);
	res->total_bytes = res->usable_bytes = -1;
	if (statvfs(dir, &sv) == 0) {
		res->total_bytes = (int64_t)sv.f_blocks * (int64_t)sv.f_frsize;
		res->usable_bytes = (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
	}
	s->results.n = 1;
	s->results.v = res;
	if (nti > 0 && (res->topics.v = dalloc(c, (size_t)nti,
	    sizeof(*t))) == NULL)
		return;
	for (i = 0; i < nti; i++) {
		if (ti[i].err != OP_OK)
			continue;	/* unknown or denied: left out */
		for (n = j = 0; j < ti[i].nparts; j++)
			n += logdirs_asked(q, &ti[i], ti[i].parts[j].partition);
		if (n == 0)
			continue;
		if ((pp = dalloc(c, (size_t)n, sizeof(*pp))) == NULL)
			return;
		t = (struct km_logdirs_topic_resp *)res->topics.v +
		    res->topics.n++;
		t->name.p = ti[i].name;
		t->name.len = (int32_t)ti[i].name_len;
		t->partitions.v = pp;
		for (j = 0; j < ti[i].nparts; j++) {
			if (!logdirs_asked(q, &ti[i], ti[i].parts[j].partition))
				continue;
			pp->partition_index = ti[i].parts[j].partition;
			pp->partition_size = ti[i].parts[j].size_bytes;
			pp++;
			t->partitions.n++;
		}
	}
}

/* ---- OffsetForLeaderEpoch ---- */

/* One partition's answer into e (partition and defaults set). */
static void
ofle_one(const struct op_ctx *x, struct kstr topic,
    const struct km_ofle_part *rp, struct km_ofle_part_resp *e)
{
	int64_t end, ts;
	enum op_err err;

	err = topic.len <= 0 ? OP_NO_TOPIC : op_list_offset(x, topic.p,
	    (size_t)topic.len, rp->partition, OP_OFFSET_LATEST, &end, &ts);
	if (err != OP_OK) {
		e->error_code = kafka_op_error(err == OP_BAD_TOPIC_NAME ?
		    OP_NO_TOPIC : err);
		return;
	}
	/* Kafka's fencing: -1 asks for none. */
	if (rp->current_leader_epoch != -1 && rp->current_leader_epoch != 0) {
		e->error_code = rp->current_leader_epoch < 0 ?
		    KERR_FENCED_LEADER_EPOCH : KERR_UNKNOWN_LEADER_EPOCH;
		return;
	}
	if (rp->leader_epoch == 0) {
		e->leader_epoch = 0;
		e->end_offset = end;
	} else if (rp->leader_epoch < -1 && op_list_offset(x, topic.p,
	    (size_t)topic.len, rp->partition, OP_OFFSET_EARLIEST, &end,
	    &ts) == OP_OK) {
		/* Before the first epoch: it ends where the log starts. */
		e->leader_epoch = rp->leader_epoch;
		e->end_offset = end;
	}
	/* -1, or after the current epoch: undefined (-1, -1), no error. */
}

void
kafka_ofle_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_ofle_req *q = k->body;
	const struct km_ofle_topic *rt = q->topics.v;
	const struct km_ofle_part *rp;
	struct km_ofle_resp *s;
	struct km_ofle_topic_resp *t;
	struct km_ofle_part_resp *e;
	struct op_ctx x;
	int32_t i, j;

	(void)w;
	if ((s = answer(c, r)) == NULL)
		return;
	conn_op_ctx(c, r, &x);
	if (q->topics.n <= 0 ||
	    (t = dalloc(c, (size_t)q->topics.n, sizeof(*t))) == NULL)
		return;
	s->topics.n = q->topics.n;
	s->topics.v = t;
	for (i = 0; i < q->topics.n; i++) {
		t[i].topic = rt[i].topic;
		rp = rt[i].partitions.v;
		if (rt[i].partitions.n <= 0)
			continue;
		if ((e = dalloc(c, (size_t)rt[i].partitions.n,
		    sizeof(*e))) == NULL)
			return;
		t[i].partitions.n = rt[i].partitions.n;
		t[i].partitions.v = e;
		for (j = 0; j < rt[i].partitions.n; j++) {
			e[j].partition = rp[j].partition;
			e[j].leader_epoch = -1;
			e[j].end_offset = -1;
			ofle_one(&x, rt[i].topic, &rp[j], &e[j]);
		}
	}
}

/* ---- ListPartitionReassignments ---- */

void
kafka_list_reassign_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct km_lpr_resp *s;

	(void)w;
	if ((s = answer(c, r)) == NULL)
		return;
	if (auth_gate(c, AUTH_ADMIN, r->name) != OP_OK) {
		s->error_code = KERR_CLUSTER_AUTHORIZATION_FAILED;
		s->error_message = kstr_c("Cluster authorization failed.");
	}
	/* One node: nothing is ever being reassigned. */
}

/* ---- DescribeProducers ---- */

void
kafka_describe_producers_exec(struct worker *w, struct conn *c,
    struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_dprod_req *q = k->body;
	const struct km_dprod_topic *rt = q->topics.v;
	const int32_t *pi;
	struct km_dprod_resp *s;
	struct km_dprod_topic_resp *t;
	struct km_dprod_part_resp *e;
	struct km_dprod_state *ps;
	struct op_producer *pr;
	struct op_ctx x;
	enum op_err err, terr;
	int32_t i, j;
	int np, m;

	(void)w;
	if ((s = answer(c, r)) == NULL)
		return;
	conn_op_ctx(c, r, &x);
	if (q->topics.n <= 0 ||
	    (t = dalloc(c, (size_t)q->topics.n, sizeof(*t))) == NULL)
		return;
	s->topics.n = q->topics.n;
	s->topics.v = t;
	for (i = 0; i < q->topics.n; i++) {
		t[i].name = rt[i].name;
		pi = rt[i].partition_indexes.v;
		if (rt[i].partition_indexes.n <= 0)
			continue;
		if ((e = dalloc(c, (size_t)rt[i].partition_indexes.n,
		    sizeof(*e))) == NULL)
			return;
		t[i].partitions.n = rt[i].partition_indexes.n;
		t[i].partitions.v = e;
		/* Kafka: the topic's errors first, with their messages. */
		terr = rt[i].name.len <= 0 || !topic_name_valid(rt[i].name.p,
		    (size_t)rt[i].name.len) ? OP_BAD_TOPIC_NAME : OP_OK;
		for (j = 0; j < rt[i].partition_indexes.n; j++) {
			e[j].partition_index = pi[j];
			e[j].error_message = kstr_c(NULL);
			err = terr != OP_OK ? terr : op_producers(&x,
			    rt[i].name.p, (size_t)rt[i].name.len, pi[j], &pr,
			    &np);
			if (err == OP_NO_TOPIC && op_topic_resolve(w,
			    rt[i].name.p, (size_t)rt[i].name.len, 0,
			    &m) != OP_OK)
				e[j].error_message = kstr_c("This server does "
				    "not host this topic-partition.");
			else if (err == OP_DENIED_TOPIC)
				e[j].error_message = kstr_c("Topic "
				    "authorization failed.");
			else if (err == OP_BAD_TOPIC_NAME)
				e[j].error_message = kstr_c("Topic name is "
				    "invalid");
			if (err != OP_OK) {
				e[j].error_code = kafka_op_error(err);
				continue;
			}
			if (np == 0)
				continue;
			if ((ps = dalloc(c, (size_t)np, sizeof(*ps))) == NULL)
				return;
			e[j].active_producers.n = np;
			e[j].active_producers.v = ps;
			for (m = 0; m < np; m++) {
				ps[m].producer_id = pr[m].pid;
				ps[m].producer_epoch = pr[m].epoch;
				ps[m].last_sequence = pr[m].last_seq;
				ps[m].last_timestamp = pr[m].last_ts;
				ps[m].coordinator_epoch = -1;
				ps[m].current_txn_start_offset = pr[m].txn_first;
			}
		}
	}
}

/* ---- DescribeTopicPartitions ---- */

static int
dtp_cmp(const void *a, const void *b)
{
	const struct op_name *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int d = memcmp(x->s, y->s, n);

	return d != 0 ? d : (x->len > y->len) - (x->len < y->len);
}

/* Does a name come before the cursor's topic (Java's compareTo)? */
static int
dtp_before(const struct op_name *nm, struct kstr cur)
{
	struct op_name cn = { cur.p, cur.len > 0 ? (size_t)cur.len : 0 };

	return dtp_cmp(nm, &cn) < 0;
}

/* Is a name the cursor's topic? */
static int
dtp_same(const struct op_name *nm, struct kstr cur)
{
	struct op_name cn = { cur.p, cur.len > 0 ? (size_t)cur.len : 0 };

	return dtp_cmp(nm, &cn) == 0;
}

/* The answer of a request Kafka refuses: err for every topic named. */
static void
dtp_refuse(struct conn *c, const struct km_dtp_req *q,
    struct km_dtp_resp *s, int16_t err)
{
	const struct km_dtp_topic *rt = q->topics.v;
	struct km_dtp_topic_resp *t;
	int32_t i;

	if (q->topics.n <= 0 ||
	    (t = dalloc(c, (size_t)q->topics.n, sizeof(*t))) == NULL)
		return;
	for (i = 0; i < q->topics.n; i++) {
		t[i].error_code = err;
		t[i].name = rt[i].name;
		t[i].topic_authorized_operations = INT32_MIN;
	}
	s->topics.n = q->topics.n;
	s->topics.v = t;
}

/* One partition of a topic shown: this node leads, alone, epoch 0. */
static void
dtp_part(struct km_dtp_part *p, int32_t index)
{
	p->partition_index = index;
	p->leader_id = KAFKA_NODE_ID;
	p->leader_epoch = 0;
	p->replica_nodes.n = p->isr_nodes.n = 1;
	p->replica_nodes.v = p->isr_nodes.v = (void *)node0;
	/* No eligible leader replicas (KIP-966): empty, as Kafka's. */
	p->eligible_leader_replicas.n = p->last_known_elr.n = 0;
}

void
kafka_describe_topic_parts_exec(struct worker *w, struct conn *c,
    struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_dtp_req *q = k->body;
	const struct km_dtp_topic *rt = q->topics.v;
	struct km_dtp_resp *s;
	struct km_dtp_topic_resp *t = NULL;
	struct km_dtp_part *pp;
	struct op_topic_info *ti = NULL;
	struct op_name *names = NULL;
	struct op_page_topic *pg = NULL;
	struct op_ctx x;
	int32_t i, j, nn = 0, nti = 0, nt, ndenied = 0, limit, next;
	int all = q->topics.n <= 0, cursor = q->cursor_present >= 0, found;
	long at;

	(void)w;
	if ((s = answer(c, r)) == NULL)
		return;
	conn_op_ctx(c, r, &x);
	if (cursor && q->cursor.partition_index < 0) {
		dtp_refuse(c, q, s, KERR_INVALID_REQUEST);
		return;
	}
	if (all) {
		if (op_metadata(&x, NULL, 0, 0, &ti, &nti) != OP_OK) {
			c->dead = 1;
			return;
		}
		if (nti > 0 && (names = dalloc(c, (size_t)nti,
		    sizeof(*names))) == NULL)
			return;
		for (i = 0; i < nti; i++) {
			names[nn].s = ti[i].name;
			names[nn].len = ti[i].name_len;
			if (!cursor || !dtp_before(&names[nn], q->cursor.topic_name))
				nn++;
		}
	} else {
		if ((names = dalloc(c, (size_t)q->topics.n,
		    sizeof(*names))) == NULL)
			return;
		for (i = found = 0; i < q->topics.n; i++) {
			struct op_name nm = { rt[i].name.p,
			    rt[i].name.len > 0 ? (size_t)rt[i].name.len : 0 };

			if (cursor && dtp_before(&nm, q->cursor.topic_name))
				continue;
			for (j = 0; j < nn && dtp_cmp(&names[j], &nm) != 0; j++)
				;
			if (j < nn)
				continue;	/* a set, as Kafka's */
			names[nn++] = nm;
		}
		if (cursor) {
			for (j = found = 0; j < nn && !found; j++)
				found = dtp_same(&names[j], q->cursor.topic_name);
			if (!found) {
				dtp_refuse(c, q, s, KERR_INVALID_REQUEST);
				return;
			}
		}
	}
	if (nn > 1)
		qsort(names, (size_t)nn, sizeof(*names), dtp_cmp);
	if (!all && nn > 0 &&
	    op_metadata(&x, names, nn, 0, &ti, &nti) != OP_OK) {
		c->dead = 1;
		return;
	}
	if (all) {
		/* op_metadata's order is not by name: match them up again. */
		struct op_topic_info *sorted;

		if (nn > 0 && (sorted = dalloc(c, (size_t)nn,
		    sizeof(*sorted))) == NULL)
			return;
		for (i = 0; i < nn; i++)
			for (j = 0; j < nti; j++)
				if (ti[j].name == names[i].s)
					sorted[i] = ti[j];
		ti = nn > 0 ? sorted : NULL;
		nti = nn;
	}
	if (nti > 0 && ((pg = dalloc(c, (size_t)nti, sizeof(*pg))) == NULL ||
	    (t = dalloc(c, (size_t)nti, sizeof(*t))) == NULL))
		return;
	/* Denied ones go last and take none of the limit. */
	for (i = nt = 0; i < nti; i++) {
		if (ti[i].err == OP_DENIED_TOPIC) {
			ndenied++;
			continue;
		}
		pg[nt].nparts = ti[i].err == OP_OK ? ti[i].nparts : -1;
		pg[nt].start = cursor && dtp_same(&names[i],
		    q->cursor.topic_name) ? q->cursor.partition_index : 0;
		nt++;
	}
	limit = q->response_partition_limit < 1 ? 1 :
	    q->response_partition_limit > DESCRIBE_PARTS_MAX ?
	    DESCRIBE_PARTS_MAX : q->response_partition_limit;
	at = op_topic_page(pg, (size_t)nt, limit, &next);
	s->topics.v = t;
	for (i = j = 0; i < nti; i++) {
		struct km_dtp_topic_resp *o;
		int32_t p;

		if (ti[i].err == OP_DENIED_TOPIC)
			continue;
		if (!pg[j].shown) {
			j++;
			continue;
		}
		o = &t[s->topics.n++];
		o->name.p = names[i].s;
		o->name.len = (int32_t)names[i].len;
		if (ti[i].err == OP_OK)
			memcpy(o->topic_id, ti[i].id, sizeof(o->topic_id));
		o->is_internal = topic_name_reserved(names[i].s, names[i].len);
		o->error_code = ti[i].err == OP_OK ? KERR_NONE :
		    kafka_op_error(ti[i].err);
		o->topic_authorized_operations = kafka_topic_ops(&x,
		    names[i].s, names[i].len);
		if (ti[i].err == OP_OK && pg[j].to > pg[j].from) {
			if ((pp = dalloc(c, (size_t)(pg[j].to - pg[j].from),
			    sizeof(*pp))) == NULL)
				return;
			o->partitions.n = pg[j].to - pg[j].from;
			o->partitions.v = pp;
			for (p = pg[j].from; p < pg[j].to; p++)
				dtp_part(pp++, p);
		}
		if (at == (long)j) {
			s->next_cursor_present = 1;
			s->next_cursor.topic_name = o->name;
			s->next_cursor.partition_index = next;
		}
		j++;
	}
	/* The cursor names a topic this page has no room for. */
	if (at >= 0 && s->next_cursor_present < 0) {
		for (i = j = 0; i < nti; i++) {
			if (ti[i].err == OP_DENIED_TOPIC)
				continue;
			if (at == (long)j++) {
				s->next_cursor_present = 1;
				s->next_cursor.topic_name.p = names[i].s;
				s->next_cursor.topic_name.len =
				    (int32_t)names[i].len;
				s->next_cursor.partition_index = next;
			}
		}
	}
	for (i = 0; i < nti && ndenied > 0; i++) {
		if (ti[i].err != OP_DENIED_TOPIC)
			continue;
		t[s->topics.n].error_code = KERR_TOPIC_AUTHORIZATION_FAILED;
		t[s->topics.n].name.p = names[i].s;
		t[s->topics.n].name.len = (int32_t)names[i].len;
		t[s->topics.n++].topic_authorized_operations = INT32_MIN;
	}
}
