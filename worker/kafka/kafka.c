/*
 * The Kafka listener in a worker: framing, the dispatch table, and the
 * APIs that need no data path (ApiVersions, Metadata).
 *
 * A request's life: conn.c reads a FRAME_KAFKA frame (the size was
 * checked against max_request_bytes before anything was allocated) and
 * queues it; kafka_exec() parses the header, looks the key up in the
 * table and closes the connection, logging once, when the (key, version)
 * is not one Flume speaks (Kafka does the same; a client that asked
 * ApiVersions first never sends one).  ApiVersions v3 and above is the
 * exception: it is answered with a v0 body carrying UNSUPPORTED_VERSION
 * and the list, as Kafka does, so librdkafka retries v0 on the same
 * connection.  Answers leave in request order (conn.c).
 *
 * With an auth_file, a Kafka client must authenticate with SASL first
 * (worker/kafka/sasl.c): every request but ApiVersions, SaslHandshake
 * and SaslAuthenticate before that closes its connection.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kheader.h"
#include "proto/kafka/kmeta.h"
#include "proto/kafka/kreq.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/face.h"
#include "worker/handlers.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/admin.h"
#include "worker/kafka/group.h"
#include "worker/lograte.h"
#include "worker/native/native.h"

#define KAFKA_CLUSTER_ID	"flume"
#define KAFKA_NODE_ID		0

static int	api_versions_decode(struct conn *, struct req *);
static void	api_versions_exec(struct worker *, struct conn *, struct req *);
static void	api_versions_emit(struct worker *, struct conn *, struct req *);
static void	init_pid_exec(struct worker *, struct conn *, struct req *);
static int	metadata_decode(struct conn *, struct req *);
static void	metadata_exec(struct worker *, struct conn *, struct req *);
static void	metadata_emit(struct worker *, struct conn *, struct req *);

/*
 * What the Kafka listener serves: a subset of the codec's table
 * (proto/kafka/kapi.c), and what ApiVersions advertises.  The permission
 * column is what the operation checks: per topic (Produce, Fetch,
 * ListOffsets, the admin APIs) or per group (auth_group()), each in its
 * own answer's shape; InitProducerId names neither and is checked here
 * (init_pid_exec).
 */
static const struct api_row kafka_rows[] = {
	{ KAPI_PRODUCE, 0, 7, "Produce", AUTH_PRODUCE,
	    kafka_produce_decode, kafka_produce_exec, native_poll,
	    kafka_produce_emit, NULL, ERRBODY_NONE },
	{ KAPI_FETCH, 4, 10, "Fetch", AUTH_CONSUME,
	    kafka_fetch_decode, kafka_fetch_exec, native_poll,
	    kafka_fetch_emit, native_release, ERRBODY_NONE },
	/* Either: Kafka's Describe, which Write and Read imply. */
	{ KAPI_LIST_OFFSETS, 1, 2, "ListOffsets", AUTH_PRODUCE | AUTH_CONSUME,
	    kafka_list_offsets_decode, kafka_list_offsets_exec, NULL,
	    kafka_list_offsets_emit, NULL, ERRBODY_NONE },
	{ KAPI_METADATA, 0, 4, "Metadata", 0,
	    metadata_decode, metadata_exec, NULL, metadata_emit, NULL, ERRBODY_NONE },
	{ KAPI_API_VERSIONS, 0, 2, "ApiVersions", API_PERM_OPEN,
	    api_versions_decode, api_versions_exec, NULL, api_versions_emit,
	    NULL, ERRBODY_NONE },
	{ KAPI_INIT_PRODUCER_ID, 0, 1, "InitProducerId", AUTH_PRODUCE,
	    kafka_decode_body, init_pid_exec, NULL, kafka_init_pid_emit,
	    NULL, ERRBODY_NONE },
	/* Groups: worker/kafka/group.c. */
	{ KAPI_FIND_COORDINATOR, 0, 0, "FindCoordinator", 0,
	    kafka_decode_body, kafka_find_coord_exec, NULL,
	    kafka_find_coord_emit, NULL, ERRBODY_NONE },
	{ KAPI_JOIN_GROUP, 0, 2, "JoinGroup", AUTH_CONSUME,
	    kafka_decode_body, kafka_join_exec, kafka_join_poll,
	    kafka_join_emit, NULL, ERRBODY_NONE },
	{ KAPI_SYNC_GROUP, 0, 1, "SyncGroup", AUTH_CONSUME,
	    kafka_decode_body, kafka_sync_exec, kafka_sync_poll,
	    kafka_sync_emit, NULL, ERRBODY_NONE },
	{ KAPI_HEARTBEAT, 0, 1, "Heartbeat", AUTH_CONSUME,
	    kafka_decode_body, kafka_heartbeat_exec, NULL,
	    kafka_member_op_emit, NULL, ERRBODY_NONE },
	{ KAPI_LEAVE_GROUP, 0, 1, "LeaveGroup", AUTH_CONSUME,
	    kafka_decode_body, kafka_leave_exec, NULL,
	    kafka_member_op_emit, NULL, ERRBODY_NONE },
	/* Committed offsets and listings: worker/kafka/offset.c. */
	{ KAPI_OFFSET_COMMIT, 0, 2, "OffsetCommit", AUTH_CONSUME,
	    kafka_decode_body, kafka_commit_exec, NULL, kafka_commit_emit,
	    NULL, ERRBODY_NONE },
	{ KAPI_OFFSET_FETCH, 0, 1, "OffsetFetch", AUTH_CONSUME,
	    kafka_decode_body, kafka_offset_fetch_exec, NULL,
	    kafka_offset_fetch_emit, NULL, ERRBODY_NONE },
	{ KAPI_LIST_GROUPS, 0, 1, "ListGroups", AUTH_CONSUME,
	    kafka_decode_body, kafka_list_groups_exec, NULL,
	    kafka_list_groups_emit, NULL, ERRBODY_NONE },
	{ KAPI_DESCRIBE_GROUPS, 0, 1, "DescribeGroups", AUTH_CONSUME,
	    kafka_decode_body, kafka_describe_groups_exec, NULL,
	    kafka_describe_groups_emit, NULL, ERRBODY_NONE },
	/* Topic administration: worker/kafka/admin.c. */
	{ KAPI_CREATE_TOPICS, 0, 2, "CreateTopics", AUTH_ADMIN,
	    kafka_decode_body, kafka_create_topics_exec, kafka_create_topics_poll,
	    kafka_create_topics_emit, NULL, ERRBODY_NONE },
	{ KAPI_DELETE_TOPICS, 0, 1, "DeleteTopics", AUTH_ADMIN,
	    kafka_decode_body, kafka_delete_topics_exec, kafka_delete_topics_poll,
	    kafka_delete_topics_emit, NULL, ERRBODY_NONE },
	{ KAPI_SASL_HANDSHAKE, 0, 1, "SaslHandshake", 0,
	    kafka_sasl_handshake_decode, kafka_sasl_handshake_exec, NULL,
	    kafka_sasl_handshake_emit, NULL, ERRBODY_NONE },
	{ KAPI_SASL_AUTHENTICATE, 0, 0, "SaslAuthenticate", 0,
	    kafka_sasl_auth_decode, kafka_sasl_auth_exec, NULL,
	    kafka_sasl_auth_emit, NULL, ERRBODY_NONE },
};
#define KAFKA_NROWS	(sizeof(kafka_rows) / sizeof(kafka_rows[0]))

/*
 * InitProducerId needs its row's permission, to produce to some topic
 * (as Kafka 2.8 asks Write on some topic, or IdempotentWrite on the
 * cluster): else CLUSTER_AUTHORIZATION_FAILED, no producer id taken
 * from the shared table, and one line (auth_gate(), as the native
 * INIT_PRODUCER).
 */
static void
init_pid_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kinit_pid_resp *s;

	if (auth_gate(c, k->row->perm, r->name) == ERR_NONE) {
		kafka_init_pid_exec(w, c, r);
		return;
	}
	r->state = REQ_DONE;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(s, 0, sizeof(*s));
	s->error = KERR_CLUSTER_AUTHORIZATION_FAILED;
	s->producer_id = -1;
	s->producer_epoch = -1;
	k->kst = s;
}

/*
 * The requests that only set up a session (ApiVersions, SASL), as taken
 * before authentication: not enough to keep a connection past
 * handshake_timeout_ms (conn.c).
 */
static int
kafka_setup_api(int16_t key)
{
	return key == KAPI_API_VERSIONS || key == KAPI_SASL_HANDSHAKE ||
	    key == KAPI_SASL_AUTHENTICATE;
}

const struct face kafka_face = {
	.name = "Kafka",
	.frames = FRAME_KAFKA,
	.exec = kafka_exec,
	.poll = kafka_poll,
	.emit = kafka_emit,
	.redecode = kafka_redecode,
	.release = kafka_release,
	.close = kafka_sasl_free,
};

int16_t
kafka_error(int16_t e)
{
	switch (e) {
	case ERR_NONE:				return KERR_NONE;
	case ERR_INVALID_REQUEST:		return KERR_INVALID_REQUEST;
	case ERR_UNSUPPORTED_API:
	case ERR_UNSUPPORTED_VERSION:		return KERR_UNSUPPORTED_VERSION;
	case ERR_CORRUPT_MESSAGE:		return KERR_CORRUPT_MESSAGE;
	case ERR_MESSAGE_TOO_LARGE:		return KERR_MESSAGE_TOO_LARGE;
	case ERR_INVALID_TOPIC:			return KERR_INVALID_TOPIC_EXCEPTION;
	case ERR_UNKNOWN_TOPIC_OR_PARTITION:	return KERR_UNKNOWN_TOPIC_OR_PARTITION;
	case ERR_TOPIC_EXISTS:			return KERR_TOPIC_ALREADY_EXISTS;
	case ERR_INVALID_PARTITIONS:		return KERR_INVALID_PARTITIONS;
	case ERR_OFFSET_OUT_OF_RANGE:		return KERR_OFFSET_OUT_OF_RANGE;
	case ERR_STORAGE:			return KERR_KAFKA_STORAGE_ERROR;
	case ERR_TIMEOUT:			return KERR_REQUEST_TIMED_OUT;
	case ERR_RESOURCE_LIMIT:		return KERR_POLICY_VIOLATION;
	case ERR_UNSUPPORTED_COMPRESSION:	return KERR_UNSUPPORTED_COMPRESSION_TYPE;
	case ERR_DUPLICATE_SEQUENCE:		return KERR_DUPLICATE_SEQUENCE_NUMBER;
	case ERR_OUT_OF_ORDER_SEQUENCE:		return KERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
	case ERR_INVALID_GROUP:			return KERR_INVALID_GROUP_ID;
	case ERR_UNKNOWN_MEMBER:		return KERR_UNKNOWN_MEMBER_ID;
	case ERR_ILLEGAL_GENERATION:		return KERR_ILLEGAL_GENERATION;
	case ERR_REBALANCE_IN_PROGRESS:		return KERR_REBALANCE_IN_PROGRESS;
	case ERR_INVALID_SESSION_TIMEOUT:	return KERR_INVALID_SESSION_TIMEOUT;
	case ERR_AUTH_FAILED:			return KERR_SASL_AUTHENTICATION_FAILED;
	case ERR_ACCESS_DENIED:			return KERR_TOPIC_AUTHORIZATION_FAILED;
	case ERR_AUTH_REQUIRED:			return KERR_CLUSTER_AUTHORIZATION_FAILED;
	/* A client retries elsewhere (here, once the worker is back). */
	case ERR_SHUTTING_DOWN:			return KERR_NOT_LEADER_FOR_PARTITION;
	case ERR_PRODUCER_FENCED:		return KERR_UNKNOWN_PRODUCER_ID;
	}
	return KERR_UNKNOWN_SERVER_ERROR;
}

/*
 * Close c for a request it should not have sent (why NULL: its header
 * could not be read); one log line a minute per address (lograte.h),
 * naming the API as Kafka does.
 */
static void
kafka_refuse(struct conn *c, struct req *r, const char *why)
{
	struct kafka_req *k = r->dec;
	const char *name = kapi_name(k->h.api_key);

	if (why == NULL)
		lograte_warnx(c->w, c->peer, LOGRATE_REFUSED, "Kafka "
		    "request with a malformed header, closing connection");
	else if (name != NULL)
		lograte_warnx(c->w, c->peer, LOGRATE_REFUSED, "Kafka %s "
		    "v%d (key %d)%s, closing connection", name,
		    (int)k->h.api_version, (int)k->h.api_key, why);
	else
		lograte_warnx(c->w, c->peer, LOGRATE_REFUSED, "Kafka "
		    "API key %d v%d (Kafka has no such API)%s, closing "
		    "connection", (int)k->h.api_key, (int)k->h.api_version,
		    why);
	atomic_fetch_add_explicit(&c->w->me->protocol_errors, 1,
	    memory_order_relaxed);
	r->noresp = 1;
	r->state = REQ_DONE;
	c->dead = 1;
}

int
kafka_decode_body(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (kheader_decode(&k->h, r->payload, r->payload_len) == -1)
		return -1;
	/* Arena growth by the codec is not seen by conn_alloc. */
	c->arena_bytes += r->payload_len;
	return kreq_decode(&k->k, k->h.api_key, k->h.api_version,
	    r->payload + k->h.body_off, r->payload_len - k->h.body_off,
	    &c->arena);
}

void
kafka_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (r->state != REQ_NEW) {
		k->row->exec(w, c, r);
		return;
	}
	if ((k = conn_alloc(c, sizeof(*k))) == NULL) {
		log_warnx("%s: request memory exhausted, closing", c->peer);
		c->dead = 1;
		r->noresp = 1;
		r->state = REQ_DONE;
		return;
	}
	memset(k, 0, sizeof(*k));
	r->dec = k;
	/* After SaslHandshake v0 the frames are bare SASL messages. */
	if ((k->row = kafka_sasl_raw_row(c)) != NULL) {
		if (k->row->decode(c, r) == -1) {
			log_warnx("%s: request memory exhausted, closing",
			    c->peer);
			c->dead = 1;
			r->noresp = 1;
			r->state = REQ_DONE;
			k->row = NULL;
			return;
		}
		k->row->exec(w, c, r);
		return;
	}
	if (kheader_decode(&k->h, r->payload, r->payload_len) == -1) {
		kafka_refuse(c, r, NULL);
		return;
	}
	k->row = api_row_find(kafka_rows, KAFKA_NROWS, k->h.api_key);
	if (k->row != NULL && k->row->key == KAPI_API_VERSIONS &&
	    k->h.api_version > k->row->max_version) {
		/* Answered in v0 with UNSUPPORTED_VERSION (see the top). */
		k->kerror = KERR_UNSUPPORTED_VERSION;
		k->h.api_version = 0;
		r->state = REQ_DONE;
		return;
	}
	if (k->row == NULL || k->h.api_version < k->row->min_version ||
	    k->h.api_version > k->row->max_version) {
		kafka_refuse(c, r, " is not supported");
		k->row = NULL;
		return;
	}
	/* Logs name it as Kafka does, also once a handler answers it. */
	r->name = k->row->name;
	if (auth_enabled() && c->auth.user == NULL &&
	    k->row->key != KAPI_API_VERSIONS &&
	    k->row->key != KAPI_SASL_HANDSHAKE &&
	    k->row->key != KAPI_SASL_AUTHENTICATE) {
		kafka_refuse(c, r, " before authentication (SASL first)");
		k->row = NULL;
		return;
	}
	if (k->row->decode(c, r) == -1) {
		kafka_refuse(c, r, ": malformed body");
		k->row = NULL;
		return;
	}
	/* Kafka has no HANDSHAKE: a well-formed request counts as one. */
	c->handshaken = 1;
	if (!kafka_setup_api(k->row->key))
		c->useful = 1;
	k->row->exec(w, c, r);
}

void
kafka_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (k != NULL && k->row != NULL && k->row->poll != NULL)
		k->row->poll(w, c, r);
}

void
kafka_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (k == NULL || k->row == NULL) {
		c->dead = 1;
		return;
	}
	k->row->emit(w, c, r);
}

int
kafka_redecode(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (k == NULL || k->row == NULL)
		return 0;
	if (k->row->key == -1)		/* a bare SASL message */
		return k->row->decode(c, r);
	if (kheader_decode(&k->h, r->payload, r->payload_len) == -1)
		return -1;
	if (k->kerror == KERR_UNSUPPORTED_VERSION &&
	    k->row->key == KAPI_API_VERSIONS) {
		k->h.api_version = 0;
		return 0;
	}
	return k->row->decode(c, r);
}

void
kafka_release(struct req *r)
{
	struct kafka_req *k = r->dec;

	if (k != NULL && k->row != NULL && k->row->release != NULL)
		k->row->release(r);
}

size_t
kafka_resp_begin(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	return kheader_resp_begin(&c->out, k->h.correlation_id);
}

void
kafka_resp_end(struct conn *c, size_t pos)
{
	kheader_resp_end(&c->out, pos);
	conn_out_commit(c);
}

/* ---- ApiVersions ---- */

static int
api_versions_decode(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	(void)c;
	return kapi_versions_decode_req(k->h.api_version,
	    r->payload + k->h.body_off, r->payload_len - k->h.body_off);
}

static void
api_versions_exec(struct worker *w, struct conn *c, struct req *r)
{
	r->state = REQ_DONE;
}

static void
api_versions_emit(struct worker *w, struct conn *c, struct req *r)
{
	static struct kapi_version v[KAFKA_NROWS];
	struct kafka_req *k = r->dec;
	struct kapi_versions_resp s;
	size_t i, pos;

	for (i = 0; i < KAFKA_NROWS; i++) {
		v[i].key = kafka_rows[i].key;
		v[i].min = kafka_rows[i].min_version;
		v[i].max = kafka_rows[i].max_version;
		v[i].name = kafka_rows[i].name;
	}
	memset(&s, 0, sizeof(s));
	s.error = k->kerror;
	s.napis = (int32_t)KAFKA_NROWS;
	s.apis = v;
	pos = kafka_resp_begin(c, r);
	kapi_versions_encode_resp(&c->out, k->h.api_version, &s);
	kafka_resp_end(c, pos);
}

/* ---- Metadata ---- */

/*
 * A null topic list (v1+) or an empty one in v0 asks for every topic and
 * never creates one; an empty list in v1+ asks for none (librdkafka's
 * bootstrap request).  Named unknown topics are created as the native
 * METADATA does (auto_create_topics), in v4 only when the request allows
 * it.
 */
static int
metadata_decode(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kmetadata_req *q;
	struct metadata_req *m = &k->native.metadata;
	int32_t i;

	if (kafka_decode_body(c, r) == -1)
		return -1;
	q = &k->k.metadata;
	memset(m, 0, sizeof(*m));
	k->no_native = q->ntopics == 0 && k->h.api_version >= 1;
	if (q->ntopics <= 0)
		return 0;	/* native count 0: every topic */
	m->auto_create = k->h.api_version < 4 || q->allow_auto_create;
	m->count = q->ntopics;
	if ((m->topics = conn_alloc(c, (size_t)q->ntopics *
	    sizeof(*m->topics))) == NULL)
		return -1;
	for (i = 0; i < q->ntopics; i++) {
		m->topics[i].s = q->topics[i].p;
		m->topics[i].len = (size_t)q->topics[i].len;
	}
	return 0;
}

static void
metadata_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;

	if (k->no_native) {
		r->state = REQ_DONE;
		return;
	}
	r->api = API_METADATA;
	native_exec_decoded(w, c, r);
}

static void
metadata_emit(struct worker *w, struct conn *c, struct req *r)
{
	static const int32_t node0[1] = { KAFKA_NODE_ID };
	struct kafka_req *k = r->dec;
	const struct metadata_resp *m = r->st;
	const struct topic_info *ti;
	struct kmetadata_broker b;
	struct kmetadata_resp s;
	struct kmetadata_topic *t;
	struct kmetadata_part *mp;
	int32_t i, j;
	size_t pos;

	if (!k->no_native && (m == NULL || r->error != ERR_NONE)) {
		log_warnx("%s: Kafka Metadata failed: %s, closing", c->peer,
		    flume_strerror(r->error));
		c->dead = 1;
		return;
	}
	memset(&s, 0, sizeof(s));
	memset(&b, 0, sizeof(b));
	b.node_id = KAFKA_NODE_ID;
	/* A TLS client is sent to the TLS listener, a plaintext one not. */
	b.host = kstr_c(c->tls != NULL ? w->conf->kafka_tls_adv_host :
	    w->conf->kafka_adv_host);
	b.port = c->tls != NULL ? w->conf->kafka_tls_adv_port :
	    w->conf->kafka_adv_port;
	b.rack.len = -1;
	s.nbrokers = 1;
	s.brokers = &b;
	s.cluster_id = kstr_c(KAFKA_CLUSTER_ID);
	s.controller_id = KAFKA_NODE_ID;
	if (!k->no_native && m->count > 0) {
		if ((s.topics = conn_alloc(c, (size_t)m->count *
		    sizeof(*s.topics))) == NULL) {
			c->dead = 1;
			return;
		}
		s.ntopics = m->count;
	}
	for (i = 0; i < s.ntopics; i++) {
		ti = &m->topics[i];
		t = &s.topics[i];
		memset(t, 0, sizeof(*t));
		t->error = kafka_error(ti->error);
		t->name.p = ti->name;
		t->name.len = (int32_t)ti->name_len;
		if (ti->error != ERR_NONE || ti->count <= 0)
			continue;
		if ((t->parts = conn_alloc(c, (size_t)ti->count *
		    sizeof(*t->parts))) == NULL) {
			c->dead = 1;
			return;
		}
		t->npart = ti->count;
		for (j = 0; j < ti->count; j++) {
			mp = &t->parts[j];
			memset(mp, 0, sizeof(*mp));
			mp->partition = ti->partitions[j].partition;
			mp->leader = KAFKA_NODE_ID;
			mp->nreplicas = mp->nisr = 1;
			mp->replicas = mp->isr = node0;
		}
	}
	pos = kafka_resp_begin(c, r);
	kmetadata_encode_resp(&c->out, k->h.api_version, &s);
	kafka_resp_end(c, pos);
}
