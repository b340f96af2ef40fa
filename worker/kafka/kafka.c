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
#include "proto/bytes.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_acl.h"
#include "proto/kafka/kmsg_admin.h"
#include "proto/kafka/kmsg_cgroup.h"
#include "proto/kafka/kmsg_config.h"
#include "proto/kafka/kmsg_describe.h"
#include "proto/kafka/kmsg_fetch.h"
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_join.h"
#include "proto/kafka/kmsg_listoff.h"
#include "proto/kafka/kmsg_meta.h"
#include "proto/kafka/kmsg_offset.h"
#include "proto/kafka/kmsg_partitions.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/kafka/kmsg_records.h"
#include "proto/kafka/kmsg_sasl.h"
#include "proto/kafka/kmsg_txn.h"
#include "proto/kafka/kheader.h"
#include "shm/conntab.h"
#include "store/topic.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/face.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/acl.h"
#include "worker/kafka/admin.h"
#include "worker/kafka/cgroup.h"
#include "worker/kafka/config.h"
#include "worker/kafka/describe.h"
#include "worker/kafka/group.h"
#include "worker/kafka/partitions.h"
#include "worker/kafka/records.h"
#include "worker/lograte.h"
#include "worker/op/access.h"
#include "worker/op/topics.h"
#include "worker/kafka/txn.h"
#include "worker/worker.h"


static void	api_versions_exec(struct worker *, struct conn *, struct req *);
static void	api_versions_emit(struct worker *, struct conn *, struct req *);
static void	init_pid_exec(struct worker *, struct conn *, struct req *);
static void	metadata_exec(struct worker *, struct conn *, struct req *);
static void	metadata_emit(struct worker *, struct conn *, struct req *);

/*
 * What the Kafka listener serves: a subset of the codec's table
 * (proto/kafka/kapi.c), and what ApiVersions advertises.  The permission
 * column is what the operation checks: per topic (Produce, Fetch,
 * ListOffsets, the admin APIs) or per group (op_access_group()), each in its
 * own answer's shape; InitProducerId names neither and is checked here
 * (init_pid_exec).
 */
static const struct api_row kafka_rows[] = {
	{ KAPI_PRODUCE, 0, 12, "Produce", AUTH_PRODUCE,
	    kafka_produce_decode, kafka_produce_exec, kafka_produce_poll,
	    kafka_produce_emit, NULL, ERRBODY_NONE, &kmsg_produce },
	{ KAPI_FETCH, 0, 17, "Fetch", AUTH_CONSUME,
	    kafka_fetch_decode, kafka_fetch_exec, kafka_fetch_poll,
	    kafka_fetch_emit, kafka_fetch_release, ERRBODY_NONE, &kmsg_fetch },
	/* Either: Kafka's Describe, which Write and Read imply. */
	{ KAPI_LIST_OFFSETS, 0, 10, "ListOffsets", AUTH_PRODUCE | AUTH_CONSUME,
	    kafka_decode_desc, kafka_list_offsets_exec, NULL,
	    kafka_list_offsets_emit, NULL, ERRBODY_NONE, &kmsg_list_offsets },
	{ KAPI_METADATA, 0, 13, "Metadata", 0,
	    kafka_decode_desc, metadata_exec, NULL, metadata_emit, NULL,
	    ERRBODY_NONE, &kmsg_metadata },
	{ KAPI_API_VERSIONS, 0, 4, "ApiVersions", API_PERM_OPEN,
	    kafka_decode_desc, api_versions_exec, NULL, api_versions_emit,
	    NULL, ERRBODY_NONE, &kmsg_api_versions },
	{ KAPI_INIT_PRODUCER_ID, 0, 5, "InitProducerId", AUTH_PRODUCE,
	    kafka_decode_desc, init_pid_exec, kafka_txn_init_poll,
	    kafka_init_pid_emit, NULL, ERRBODY_NONE, &kmsg_init_producer_id },
	/* Transactions: worker/kafka/txn.c. */
	{ KAPI_ADD_PARTITIONS_TO_TXN, 0, 5, "AddPartitionsToTxn", AUTH_PRODUCE,
	    kafka_decode_desc, kafka_addparts_exec, kafka_txn_poll,
	    kafka_txn_emit, NULL, ERRBODY_NONE, &kmsg_add_partitions_to_txn },
	{ KAPI_ADD_OFFSETS_TO_TXN, 0, 4, "AddOffsetsToTxn", AUTH_PRODUCE,
	    kafka_decode_desc, kafka_addoffs_exec, kafka_txn_poll,
	    kafka_txn_emit, NULL, ERRBODY_NONE, &kmsg_add_offsets_to_txn },
	{ KAPI_END_TXN, 0, 5, "EndTxn", AUTH_PRODUCE,
	    kafka_decode_desc, kafka_endtxn_exec, kafka_txn_poll,
	    kafka_txn_emit, NULL, ERRBODY_NONE, &kmsg_end_txn },
	{ KAPI_TXN_OFFSET_COMMIT, 0, 5, "TxnOffsetCommit", AUTH_PRODUCE,
	    kafka_decode_desc, kafka_txnoc_exec, kafka_txn_poll,
	    kafka_txn_emit, NULL, ERRBODY_NONE, &kmsg_txn_offset_commit },
	{ KAPI_DESCRIBE_TRANSACTIONS, 0, 0, "DescribeTransactions",
	    AUTH_PRODUCE, kafka_decode_desc, kafka_desctxn_exec, NULL,
	    kafka_txn_emit, NULL, ERRBODY_NONE, &kmsg_describe_transactions },
	{ KAPI_LIST_TRANSACTIONS, 0, 1, "ListTransactions", AUTH_PRODUCE,
	    kafka_decode_desc, kafka_listtxn_exec, NULL, kafka_txn_emit, NULL,
	    ERRBODY_NONE, &kmsg_list_transactions },
	/* Groups: worker/kafka/group.c. */
	{ KAPI_FIND_COORDINATOR, 0, 6, "FindCoordinator", 0,
	    kafka_decode_desc_tail, kafka_find_coord_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_find_coordinator },
	{ KAPI_JOIN_GROUP, 0, 9, "JoinGroup", AUTH_CONSUME,
	    kafka_decode_desc_tail, kafka_join_exec, kafka_join_poll,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_join_group },
	{ KAPI_SYNC_GROUP, 0, 5, "SyncGroup", AUTH_CONSUME,
	    kafka_decode_desc_tail, kafka_sync_exec, kafka_sync_poll,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_sync_group },
	{ KAPI_HEARTBEAT, 0, 4, "Heartbeat", AUTH_CONSUME,
	    kafka_decode_desc_tail, kafka_heartbeat_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_heartbeat },
	{ KAPI_LEAVE_GROUP, 0, 5, "LeaveGroup", AUTH_CONSUME,
	    kafka_decode_desc_tail, kafka_leave_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_leave_group },
	/* Committed offsets and listings: worker/kafka/offset.c. */
	{ KAPI_OFFSET_COMMIT, 0, 9, "OffsetCommit", AUTH_CONSUME,
	    kafka_decode_desc_tail, kafka_commit_exec, NULL, kafka_group_emit,
	    NULL, ERRBODY_NONE, &kmsg_offset_commit },
	{ KAPI_OFFSET_FETCH, 0, 9, "OffsetFetch", AUTH_CONSUME,
	    kafka_decode_desc_tail, kafka_offset_fetch_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_offset_fetch },
	{ KAPI_LIST_GROUPS, 0, 5, "ListGroups", AUTH_CONSUME,
	    kafka_decode_desc_tail, kafka_list_groups_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_list_groups },
	{ KAPI_DESCRIBE_GROUPS, 0, 6, "DescribeGroups", AUTH_CONSUME,
	    kafka_decode_desc_tail, kafka_describe_groups_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE,
	    &kmsg_describe_groups },
	/* Topic administration: worker/kafka/admin.c. */
	{ KAPI_CREATE_TOPICS, 0, 7, "CreateTopics", AUTH_ADMIN,
	    kafka_decode_desc, kafka_create_topics_exec, kafka_create_topics_poll,
	    kafka_create_topics_emit, NULL, ERRBODY_NONE, &kmsg_create_topics },
	{ KAPI_DELETE_TOPICS, 0, 6, "DeleteTopics", AUTH_ADMIN,
	    kafka_decode_desc, kafka_delete_topics_exec, kafka_delete_topics_poll,
	    kafka_delete_topics_emit, NULL, ERRBODY_NONE, &kmsg_delete_topics },
	/* Topic and broker settings: worker/kafka/config.c. */
	{ KAPI_DESCRIBE_CONFIGS, 0, 4, "DescribeConfigs", AUTH_CONSUME,
	    kafka_decode_desc, kafka_describe_configs_exec, NULL,
	    kafka_describe_configs_emit, NULL, ERRBODY_NONE,
	    &kmsg_describe_configs },
	{ KAPI_ALTER_CONFIGS, 0, 2, "AlterConfigs", AUTH_ADMIN,
	    kafka_decode_desc, kafka_alter_configs_exec, kafka_alter_configs_poll,
	    kafka_alter_configs_emit, NULL, ERRBODY_NONE, &kmsg_alter_configs },
	{ KAPI_INCREMENTAL_ALTER_CONFIGS, 0, 1, "IncrementalAlterConfigs",
	    AUTH_ADMIN, kafka_decode_desc, kafka_alter_configs_exec,
	    kafka_alter_configs_poll, kafka_alter_configs_emit, NULL,
	    ERRBODY_NONE, &kmsg_incremental_alter_configs },
	/* Growing topics: worker/kafka/partitions.c. */
	{ KAPI_CREATE_PARTITIONS, 0, 3, "CreatePartitions", AUTH_ADMIN,
	    kafka_decode_desc, kafka_create_partitions_exec,
	    kafka_create_partitions_poll, kafka_create_partitions_emit, NULL,
	    ERRBODY_NONE, &kmsg_create_partitions },
	/* Records, groups and offsets deleted: worker/kafka/records.c. */
	{ KAPI_DELETE_RECORDS, 0, 2, "DeleteRecords", AUTH_ADMIN,
	    kafka_decode_desc, kafka_delete_records_exec,
	    kafka_delete_records_poll, kafka_delete_records_emit, NULL,
	    ERRBODY_NONE, &kmsg_delete_records },
	{ KAPI_DELETE_GROUPS, 0, 2, "DeleteGroups", 0,
	    kafka_decode_desc, kafka_delete_groups_exec, NULL,
	    kafka_delete_groups_emit, NULL, ERRBODY_NONE, &kmsg_delete_groups },
	{ KAPI_OFFSET_DELETE, 0, 0, "OffsetDelete", 0,
	    kafka_decode_desc, kafka_offset_delete_exec, NULL,
	    kafka_offset_delete_emit, NULL, ERRBODY_NONE, &kmsg_offset_delete },
	/* Read-only cluster and log APIs: worker/kafka/describe.c. */
	{ KAPI_OFFSET_FOR_LEADER_EPOCH, 0, 4, "OffsetForLeaderEpoch",
	    AUTH_PRODUCE | AUTH_CONSUME, kafka_decode_desc, kafka_ofle_exec,
	    NULL, kafka_group_emit, NULL, ERRBODY_NONE,
	    &kmsg_offset_for_leader_epoch },
	{ KAPI_DESCRIBE_LOG_DIRS, 0, 4, "DescribeLogDirs", AUTH_ADMIN,
	    kafka_decode_desc, kafka_describe_log_dirs_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_describe_log_dirs },
	{ KAPI_LIST_PARTITION_REASSIGNMENTS, 0, 0,
	    "ListPartitionReassignments", AUTH_ADMIN, kafka_decode_desc,
	    kafka_list_reassign_exec, NULL, kafka_group_emit, NULL,
	    ERRBODY_NONE, &kmsg_list_partition_reassignments },
	{ KAPI_DESCRIBE_CLUSTER, 0, 2, "DescribeCluster", 0,
	    kafka_decode_desc, kafka_describe_cluster_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE, &kmsg_describe_cluster },
	{ KAPI_DESCRIBE_PRODUCERS, 0, 0, "DescribeProducers",
	    AUTH_CONSUME | AUTH_ADMIN, kafka_decode_desc,
	    kafka_describe_producers_exec, NULL, kafka_group_emit, NULL,
	    ERRBODY_NONE, &kmsg_describe_producers },
	{ KAPI_DESCRIBE_TOPIC_PARTITIONS, 0, 0, "DescribeTopicPartitions",
	    AUTH_PRODUCE | AUTH_CONSUME | AUTH_ADMIN, kafka_decode_desc,
	    kafka_describe_topic_parts_exec, NULL, kafka_group_emit, NULL,
	    ERRBODY_NONE, &kmsg_describe_topic_partitions },
	{ KAPI_SASL_HANDSHAKE, 0, 1, "SaslHandshake", 0,
	    kafka_decode_desc, kafka_sasl_handshake_exec, NULL,
	    kafka_sasl_handshake_emit, NULL, ERRBODY_NONE, &kmsg_sasl_handshake },
	{ KAPI_SASL_AUTHENTICATE, 0, 2, "SaslAuthenticate", 0,
	    kafka_decode_desc, kafka_sasl_auth_exec, NULL,
	    kafka_sasl_auth_emit, NULL, ERRBODY_NONE, &kmsg_sasl_authenticate },
	/*
	 * ACLs and SCRAM users over the auth_file (worker/kafka/acl.c,
	 * scram_admin.c): each checks the broker's admin rights itself,
	 * after SECURITY_DISABLED for a broker without an auth_file.
	 */
	{ KAPI_DESCRIBE_ACLS, 0, 3, "DescribeAcls", 0,
	    kafka_decode_desc, kafka_describe_acls_exec, NULL,
	    kafka_describe_acls_emit, NULL, ERRBODY_NONE, &kmsg_describe_acls },
	{ KAPI_CREATE_ACLS, 0, 3, "CreateAcls", 0,
	    kafka_decode_desc, kafka_create_acls_exec, kafka_acls_change_poll,
	    kafka_create_acls_emit, NULL, ERRBODY_NONE, &kmsg_create_acls },
	{ KAPI_DELETE_ACLS, 0, 3, "DeleteAcls", 0,
	    kafka_decode_desc, kafka_delete_acls_exec, kafka_acls_change_poll,
	    kafka_delete_acls_emit, NULL, ERRBODY_NONE, &kmsg_delete_acls },
	{ KAPI_DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0,
	    "DescribeUserScramCredentials", 0, kafka_decode_desc,
	    kafka_describe_scram_exec, NULL, kafka_describe_scram_emit, NULL,
	    ERRBODY_NONE, &kmsg_describe_scram },
	{ KAPI_ALTER_USER_SCRAM_CREDENTIALS, 0, 0, "AlterUserScramCredentials",
	    0, kafka_decode_desc, kafka_alter_scram_exec, kafka_alter_scram_poll,
	    kafka_alter_scram_emit, NULL, ERRBODY_NONE, &kmsg_alter_scram },
	/* The consumer group protocol (KIP-848): worker/kafka/cgroup.c. */
	{ KAPI_CONSUMER_GROUP_HEARTBEAT, 0, 1, "ConsumerGroupHeartbeat",
	    AUTH_CONSUME, kafka_decode_desc, kafka_cghb_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE,
	    &kmsg_consumer_group_heartbeat },
	{ KAPI_CONSUMER_GROUP_DESCRIBE, 0, 1, "ConsumerGroupDescribe",
	    AUTH_CONSUME, kafka_decode_desc, kafka_cgd_exec, NULL,
	    kafka_group_emit, NULL, ERRBODY_NONE,
	    &kmsg_consumer_group_describe },
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
	struct km_init_pid_resp *s;

	if (auth_gate(c, k->row->perm, r->name) == OP_OK) {
		kafka_init_pid_exec(w, c, r);
		return;
	}
	r->state = REQ_DONE;
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_init_producer_id.km_resp, s);
	s->error_code = KERR_CLUSTER_AUTHORIZATION_FAILED;
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

/*
 * The request header of r's payload into k->h: v1, or v2 (tagged
 * fields) for a flexible version of a described API.  0 or -1.
 */
static int
kafka_header(struct kafka_req *k, const uint8_t *p, size_t len)
{
	struct kreq_hdr h;
	size_t hlen;

	if (kmsg_decode_req_hdr(&h, p, len, &hlen) == -1)
		return -1;
	k->h.api_key = h.api_key;
	k->h.api_version = h.api_version;
	k->h.correlation_id = h.correlation_id;
	k->h.client_id = h.client_id;
	k->h.body_off = hlen;
	return 0;
}

static int
decode_desc(struct conn *c, struct req *r, int tail)
{
	struct kafka_req *k = r->dec;
	const struct kmsg *m = k->row->desc;
	struct rbuf rb;

	if (k->body == NULL &&
	    (k->body = conn_alloc(c, m->km_req->kd_size)) == NULL)
		return -1;
	/* Arena growth by the codec is not seen by conn_alloc. */
	c->arena_bytes += r->payload_len;
	if (!tail)
		return kmsg_decode_req(m, k->h.api_version, k->body,
		    r->payload + k->h.body_off,
		    r->payload_len - k->h.body_off, &c->arena);
	rbuf_init(&rb, r->payload + k->h.body_off,
	    r->payload_len - k->h.body_off);
	return kdesc_read(m->km_req, k->h.api_version,
	    kmsg_flexible(m, k->h.api_version), k->body, &rb, &c->arena);
}

int
kafka_decode_desc(struct conn *c, struct req *r)
{
	return decode_desc(c, r, 0);
}

int
kafka_decode_desc_tail(struct conn *c, struct req *r)
{
	return decode_desc(c, r, 1);
}

void
kafka_emit_desc(struct conn *c, struct req *r, const void *resp)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	pos = kafka_resp_begin(c, r);
	if (kmsg_encode_resp(k->row->desc, k->h.api_version, resp,
	    &c->out) == -1) {
		log_warnx("%s: Kafka %s v%d: the answer does not fit its "
		    "version, closing", c->peer, k->row->name,
		    (int)k->h.api_version);
		c->dead = 1;
		return;
	}
	kafka_resp_end(c, pos);
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
	if (kafka_header(k, r->payload, r->payload_len) == -1) {
		/*
		 * A version above what Flume serves may have a header this
		 * reads wrongly (v2 where the client wrote v1): name the
		 * request by its key and version, which always read.
		 */
		if (r->payload_len >= 4) {
			k->h.api_key = (int16_t)be16_get(r->payload);
			k->h.api_version = (int16_t)be16_get(r->payload + 2);
			k->row = api_row_find(kafka_rows, KAFKA_NROWS,
			    k->h.api_key);
			if (k->row == NULL ||
			    k->h.api_version < k->row->min_version ||
			    k->h.api_version > k->row->max_version) {
				kafka_refuse(c, r, " is not supported");
				k->row = NULL;
				return;
			}
			k->row = NULL;
		}
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
kafka_redecode(struct conn *c, struct req *r, const uint8_t *old)
{
	struct kafka_req *k = r->dec;
	const struct kmsg *m;

	if (k == NULL || k->row == NULL)
		return 0;
	if (k->row->key == -1)		/* a bare SASL message */
		return k->row->decode(c, r);
	if (kafka_header(k, r->payload, r->payload_len) == -1)
		return -1;
	if (k->kerror == KERR_UNSUPPORTED_VERSION &&
	    k->row->key == KAPI_API_VERSIONS) {
		k->h.api_version = 0;
		return 0;
	}
	if (k->row->decode(c, r) == -1)
		return -1;
	/*
	 * The group rows build their answer (k->kst, their description's
	 * response) when they run, naming topics, groups and members from
	 * the request: it follows the bytes it points into.  A request
	 * answered behind a parked one (a Fetch waiting for data) is
	 * moved here before it is sent.
	 */
	if (k->kst != NULL && k->row->emit == kafka_group_emit &&
	    (m = k->row->desc) != NULL)
		kdesc_rebase(m->km_resp, k->h.api_version, k->kst, old,
		    r->payload_len, (ptrdiff_t)((uintptr_t)r->payload -
		    (uintptr_t)old));
	return 0;
}

void
kafka_release(struct req *r)
{
	struct kafka_req *k = r->dec;

	if (k != NULL && k->row != NULL && k->row->release != NULL)
		k->row->release(r);
}

/*
 * The size placeholder and the response header the request's version
 * takes: v0, or v1 (tagged fields) for a flexible version other than
 * ApiVersions'.
 */
size_t
kafka_resp_begin(struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos = c->out.len;

	wbuf_i32(&c->out, 0);
	(void)kmsg_encode_resp_hdr(k->h.api_key, k->h.api_version,
	    k->h.correlation_id, &c->out);
	return pos;
}

void
kafka_resp_end(struct conn *c, size_t pos)
{
	kheader_resp_end(&c->out, pos);
	conn_out_commit(c);
}

/* ---- ApiVersions ---- */

/*
 * v3 and later name the client's software: kept for flume-admin
 * connections (shm/conntab.h) and the log at debug level (a client that
 * sends nonsense there is still answered).
 */
static void
api_versions_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_apiver_req *q = k->body;
	char nbuf[LOG_ESC_SIZE(64)], vbuf[LOG_ESC_SIZE(64)];

	r->state = REQ_DONE;
	if (q == NULL || k->h.api_version < 3 ||
	    q->client_software_name.len <= 0)
		return;
	/* Shown by flume-admin connections (shm/conntab.h). */
	conntab_set_client(w->shm, worker_slot(w), c->ct_idx,
	    q->client_software_name.p, (size_t)q->client_software_name.len,
	    q->client_software_version.p, q->client_software_version.len > 0 ?
	    (size_t)q->client_software_version.len : 0);
	log_debug("%s: Kafka client %s %s", c->peer,
	    log_escape(nbuf, sizeof(nbuf), q->client_software_name.p,
	    q->client_software_name.len > 64 ? 64 :
	    (size_t)q->client_software_name.len),
	    log_escape(vbuf, sizeof(vbuf), q->client_software_version.p,
	    q->client_software_version.len > 64 ? 64 :
	    q->client_software_version.len < 0 ? 0 :
	    (size_t)q->client_software_version.len));
}

/* Every row of the table, at the versions it is served in. */
static void
api_versions_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct km_apiver_resp s;
	struct km_apiver_key *v;
	size_t i;

	if ((v = conn_alloc(c, KAFKA_NROWS * sizeof(*v))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < KAFKA_NROWS; i++) {
		v[i].api_key = kafka_rows[i].key;
		v[i].min_version = kafka_rows[i].min_version;
		v[i].max_version = kafka_rows[i].max_version;
	}
	kdesc_defaults(kmsg_api_versions.km_resp, &s);
	s.error_code = k->kerror;
	s.api_keys.n = (int32_t)KAFKA_NROWS;
	s.api_keys.v = v;
	kafka_emit_desc(c, r, &s);
}

/* ---- Metadata ---- */

/*
 * Kafka's AclOperation codes, as the bits of an authorized-operations
 * set (KIP-430): what the topic and cluster resources support.
 */
#define KACL_READ		3
#define KACL_WRITE		4
#define KACL_CREATE		5
#define KACL_DELETE		6
#define KACL_ALTER		7
#define KACL_DESCRIBE		8
#define KACL_CLUSTER_ACTION	9
#define KACL_DESCRIBE_CONFIGS	10
#define KACL_ALTER_CONFIGS	11
#define KACL_IDEMPOTENT_WRITE	12
#define KACL(op)		(1 << (op))
#define KACL_TOPIC_ALL	(KACL(KACL_READ) | KACL(KACL_WRITE) |		\
	KACL(KACL_CREATE) | KACL(KACL_DELETE) | KACL(KACL_ALTER) |	\
	KACL(KACL_DESCRIBE) | KACL(KACL_DESCRIBE_CONFIGS) |		\
	KACL(KACL_ALTER_CONFIGS))
#define KACL_CLUSTER_ALL (KACL(KACL_CREATE) | KACL(KACL_CLUSTER_ACTION) | \
	KACL(KACL_DESCRIBE_CONFIGS) | KACL(KACL_ALTER_CONFIGS) |	\
	KACL(KACL_IDEMPOTENT_WRITE) | KACL(KACL_ALTER) | KACL(KACL_DESCRIBE))
#define KACL_NOT_ASKED	INT32_MIN	/* the schema's default */

/*
 * The operations x's user may do on topic, as Kafka's authorizer
 * answers them from the auth table: consume is Read, produce Write,
 * admin (which creates and deletes) Create, Delete, Alter and the
 * configs; any of them implies Describe.  Without an auth_file, every
 * operation a topic supports (as Kafka without an authorizer).
 */
static int32_t
topic_acl_ops(const struct op_ctx *x, const char *topic, size_t len)
{
	int32_t ops = 0;

	if (op_access_topic_may(x, AUTH_CONSUME, topic, len))
		ops |= KACL(KACL_READ);
	if (op_access_topic_may(x, AUTH_PRODUCE, topic, len))
		ops |= KACL(KACL_WRITE);
	if (op_access_topic_may(x, AUTH_ADMIN, topic, len))
		ops |= KACL(KACL_CREATE) | KACL(KACL_DELETE) |
		    KACL(KACL_ALTER) | KACL(KACL_DESCRIBE_CONFIGS) |
		    KACL(KACL_ALTER_CONFIGS);
	if (ops != 0)
		ops |= KACL(KACL_DESCRIBE);
	return ops;
}

/*
 * The same for the cluster (Metadata v8-10): Describe for any
 * authenticated user, IdempotentWrite with produce on some topic (what
 * InitProducerId asks), Create with admin on some topic.
 */
static int32_t
cluster_acl_ops(const struct conn *c)
{
	const struct auth_user *u = c->auth.user;
	int32_t ops;

	if (!auth_enabled())
		return KACL_CLUSTER_ALL;
	if (u == NULL)
		return 0;
	ops = KACL(KACL_DESCRIBE);
	if (auth_user_has(u, AUTH_PRODUCE, 0))
		ops |= KACL(KACL_IDEMPOTENT_WRITE);
	if (auth_user_has(u, AUTH_ADMIN, 0))
		ops |= KACL(KACL_CREATE);
	return ops;
}

int32_t
kafka_cluster_ops(const struct conn *c)
{
	return cluster_acl_ops(c);
}

int32_t
kafka_topic_ops(const struct op_ctx *x, const char *topic, size_t len)
{
	return topic_acl_ops(x, topic, len);
}

/* A Metadata's answer, built by exec (k->kst): the topics. */
struct kmeta_st {
	enum op_err		 err;		/* OP_OK, or close the connection */
	int16_t			 kerror;	/* the whole request's */
	struct km_meta_topic	*t;
	int32_t			 n;
};

/* The topics asked by id (v12+): found ones by name, in *names. */
static int
meta_ids(struct conn *c, const struct op_ctx *x, const struct km_meta_req *q,
    struct op_name **names, int32_t *n, uint8_t **found)
{
	const struct km_meta_req_topic *rt = q->topics.v;
	int32_t i;

	*n = 0;
	if ((*names = conn_alloc(c, (size_t)q->topics.n *
	    sizeof(**names))) == NULL ||
	    (*found = conn_alloc(c, (size_t)q->topics.n)) == NULL)
		return -1;
	for (i = 0; i < q->topics.n; i++) {
		(*found)[i] = op_topic_find_id(x, rt[i].topic_id,
		    &(*names)[*n].s, &(*names)[*n].len) == OP_OK;
		if ((*found)[i])
			(*n)++;
	}
	return 0;
}

/*
 * Does any topic of q name it by id?  A v10-11 request may not (Kafka:
 * INVALID_REQUEST); from v12 the ids are what is asked, names ignored.
 */
static int
meta_by_id(const struct km_meta_req *q)
{
	static const uint8_t zero[TOPIC_ID_LEN];
	const struct km_meta_req_topic *rt = q->topics.v;
	int32_t i;

	for (i = 0; i < q->topics.n; i++)
		if (rt[i].name.len < 0 ||
		    memcmp(rt[i].topic_id, zero, TOPIC_ID_LEN) != 0)
			return 1;
	return 0;
}

/* One topic's answer from the operation's ti. */
static int
meta_topic(struct conn *c, const struct op_ctx *x, int with_ops,
    const struct op_topic_info *ti, struct km_meta_topic *t)
{
	static const int32_t node0[1] = { KAFKA_NODE_ID };
	struct km_meta_part *mp;
	int32_t j;

	memset(t, 0, sizeof(*t));
	t->error_code = kafka_op_error(ti->err);
	t->name.p = ti->name;
	t->name.len = (int32_t)ti->name_len;
	/* __consumer_offsets: Kafka's tools skip internal topics unless asked. */
	t->is_internal = ti->err == OP_OK &&
	    topic_name_reserved(ti->name, ti->name_len);
	memcpy(t->topic_id, ti->id, sizeof(t->topic_id));
	/* Kafka asks the authorizer for every topic but the denied ones. */
	t->topic_authorized_operations = with_ops && ti->err != OP_DENIED_TOPIC ?
	    topic_acl_ops(x, ti->name, ti->name_len) : KACL_NOT_ASKED;
	if (ti->err != OP_OK || ti->nparts <= 0)
		return 0;
	if ((mp = conn_alloc(c, (size_t)ti->nparts * sizeof(*mp))) == NULL)
		return -1;
	t->partitions.n = ti->nparts;
	t->partitions.v = mp;
	for (j = 0; j < ti->nparts; j++) {
		memset(&mp[j], 0, sizeof(mp[j]));
		mp[j].partition_index = ti->parts[j].partition;
		mp[j].leader_id = KAFKA_NODE_ID;
		mp[j].leader_epoch = 0;
		mp[j].replica_nodes.n = mp[j].isr_nodes.n = 1;
		mp[j].replica_nodes.v = mp[j].isr_nodes.v = (void *)node0;
		/* offline_replicas: none (memset: an empty array). */
	}
	return 0;
}

/*
 * A null topic list (v1+) or an empty one in v0 asks for every topic and
 * never creates one; an empty list in v1+ asks for none (librdkafka's
 * bootstrap request).  Named unknown topics are created as the native
 * METADATA does (auto_create_topics), from v4 only when the request
 * allows it.  From v12 topics may be asked by id (KIP-516): then the ids
 * are what is asked, never created; an unknown one is UNKNOWN_TOPIC_ID,
 * and it and a denied one are answered with a null name, as Kafka does.
 * A v10-11 request naming an id or a null name is INVALID_REQUEST.
 */
static void
metadata_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_meta_req *q = k->body;
	const struct km_meta_req_topic *rt = q->topics.v;
	int16_t v = k->h.api_version;
	struct kmeta_st *st;
	struct op_name *names = NULL;
	struct op_topic_info *ti = NULL;
	uint8_t *found = NULL;
	struct op_ctx x;
	int32_t i, j, nnames = 0, nti = 0;
	int byid, ops;

	(void)w;
	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL)
		return;		/* emit closes the connection */
	memset(st, 0, sizeof(*st));
	k->kst = st;
	conn_op_ctx(c, r, &x);
	ops = v >= 8 && q->include_topic_authorized_operations;
	byid = v >= 10 && q->topics.n > 0 && meta_by_id(q);
	if (byid && v < 12) {
		if ((st->t = conn_alloc(c, (size_t)q->topics.n *
		    sizeof(*st->t))) == NULL) {
			st->err = OP_NO_MEMORY;
			return;
		}
		st->n = q->topics.n;
		for (i = 0; i < st->n; i++) {
			memset(&st->t[i], 0, sizeof(st->t[i]));
			st->t[i].error_code = KERR_INVALID_REQUEST;
			/* The request's bytes may move before the answer. */
			if (rt[i].name.len > 0) {
				char *cp = conn_alloc(c, (size_t)rt[i].name.len);

				if (cp == NULL) {
					st->err = OP_NO_MEMORY;
					return;
				}
				memcpy(cp, rt[i].name.p, (size_t)rt[i].name.len);
				st->t[i].name.p = cp;
				st->t[i].name.len = rt[i].name.len;
			} else
				st->t[i].name = kstr_c("");
			memcpy(st->t[i].topic_id, rt[i].topic_id, TOPIC_ID_LEN);
			st->t[i].topic_authorized_operations = KACL_NOT_ASKED;
		}
		return;
	}
	if (q->topics.n == 0 && v >= 1)
		return;
	if (byid) {
		if (meta_ids(c, &x, q, &names, &nnames, &found) == -1) {
			st->err = OP_NO_MEMORY;
			return;
		}
		if (nnames > 0)
			st->err = op_metadata(&x, names, nnames, 0, &ti, &nti);
	} else if (q->topics.n > 0) {
		if ((names = conn_alloc(c, (size_t)q->topics.n *
		    sizeof(*names))) == NULL) {
			st->err = OP_NO_MEMORY;
			return;
		}
		for (i = 0; i < q->topics.n; i++) {
			names[i].s = rt[i].name.p;
			names[i].len = (size_t)rt[i].name.len;
		}
		st->err = op_metadata(&x, names, q->topics.n,
		    q->allow_auto_topic_creation, &ti, &nti);
	} else
		st->err = op_metadata(&x, NULL, 0, 0, &ti, &nti);
	if (st->err != OP_OK)
		return;
	st->n = byid ? q->topics.n : nti;
	if (st->n > 0 && (st->t = conn_alloc(c, (size_t)st->n *
	    sizeof(*st->t))) == NULL) {
		st->err = OP_NO_MEMORY;
		return;
	}
	for (i = j = 0; i < st->n; i++) {
		struct km_meta_topic *t = &st->t[i];

		if (!byid) {
			if (meta_topic(c, &x, ops, &ti[i], t) == -1)
				st->err = OP_NO_MEMORY;
			continue;
		}
		/* Found by id, then deleted (or made again) meanwhile: gone. */
		if (found[i] && (ti[j].err == OP_DENIED_TOPIC ||
		    (ti[j].err == OP_OK && memcmp(ti[j].id, rt[i].topic_id,
		    TOPIC_ID_LEN) == 0))) {
			if (meta_topic(c, &x, ops, &ti[j], t) == -1)
				st->err = OP_NO_MEMORY;
			if (ti[j].err == OP_DENIED_TOPIC)
				t->name = kstr_c(NULL);
		} else {
			memset(t, 0, sizeof(*t));
			t->error_code = KERR_UNKNOWN_TOPIC_ID;
			t->name = kstr_c(NULL);
			t->topic_authorized_operations = KACL_NOT_ASKED;
		}
		memcpy(t->topic_id, rt[i].topic_id, TOPIC_ID_LEN);
		if (found[i])
			j++;
	}
}

static void
metadata_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_meta_req *q = k->body;
	const struct kmeta_st *st = k->kst;
	struct km_meta_broker b;
	struct km_meta_resp s;

	if (st == NULL || st->err != OP_OK) {
		log_warnx("%s: Kafka Metadata failed: %s, closing", c->peer,
		    op_strerror(st != NULL ? st->err : OP_NO_MEMORY));
		c->dead = 1;
		return;
	}
	kdesc_defaults(kmsg_metadata.km_resp, &s);
	memset(&b, 0, sizeof(b));
	b.node_id = KAFKA_NODE_ID;
	/* A TLS client is sent to the TLS listener, a plaintext one not. */
	b.host = kstr_c(c->tls != NULL ? w->conf->kafka_tls_adv_host :
	    w->conf->kafka_adv_host);
	b.port = c->tls != NULL ? w->conf->kafka_tls_adv_port :
	    w->conf->kafka_adv_port;
	b.rack = kstr_c(NULL);
	s.brokers.n = 1;
	s.brokers.v = &b;
	s.cluster_id = kstr_c(KAFKA_CLUSTER_ID);
	s.controller_id = KAFKA_NODE_ID;
	s.topics.n = st->n;
	s.topics.v = st->t;
	if (k->h.api_version >= 8 && k->h.api_version <= 10 &&
	    q->include_cluster_authorized_operations)
		s.cluster_authorized_operations = cluster_acl_ops(c);
	s.error_code = st->kerror;
	kafka_emit_desc(c, r, &s);
}
