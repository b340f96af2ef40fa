/*
 * The native protocol's table: one row per API key (proto/msg.h), with
 * its decoder, operation, wait check, answer, release, permission and
 * error shape (worker/dispatch.h).  The operations themselves are shared
 * with the Kafka listener (worker/op/); this file and the native face's
 * others (data.c, admin.c, group.c) only bind them to native requests.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/version.h"
#include "shm/stats.h"
#include "worker/access.h"
#include "worker/native/auth.h"
#include "worker/conn.h"
#include "worker/dispatch.h"
#include "worker/errcode.h"
#include "worker/face.h"
#include "worker/lograte.h"
#include "worker/native/admin.h"
#include "worker/native/cleaner.h"
#include "worker/native/txn.h"
#include "worker/native/config.h"
#include "worker/native/conns.h"
#include "worker/native/data.h"
#include "worker/native/group.h"
#include "worker/native/native.h"
#include "worker/native/partitions.h"
#include "worker/native/records.h"
#include "worker/native/stats.h"
#include "worker/worker.h"

/* ---- decoders: r->payload into r->dec, in the connection's arena ---- */

/*
 * Allocate r->dec (once: a redecode reuses it) and account the payload's
 * arena use (once per request: conn_detach takes a redecode's back);
 * the decoder's 0 or -1.
 */
#define DECODE(c, r, type, call) do {					\
	if ((r)->dec == NULL &&						\
	    ((r)->dec = conn_alloc((c), sizeof(struct type))) == NULL)	\
		return -1;						\
	(c)->arena_bytes += (r)->payload_len;				\
	return (call);							\
} while (0)

static int
dec_handshake(struct conn *c, struct req *r)
{
	DECODE(c, r, handshake_req,
	    msg_decode_handshake_req(r->payload, r->payload_len, r->dec));
}

static int
dec_metadata(struct conn *c, struct req *r)
{
	DECODE(c, r, metadata_req, msg_decode_metadata_req(r->payload,
	    r->payload_len, &c->arena, r->dec));
}

static int
dec_create_topic(struct conn *c, struct req *r)
{
	DECODE(c, r, create_topic_req,
	    msg_decode_create_topic_req(r->payload, r->payload_len, r->dec));
}

static int
dec_delete_topic(struct conn *c, struct req *r)
{
	DECODE(c, r, delete_topic_req,
	    msg_decode_delete_topic_req(r->payload, r->payload_len, r->dec));
}

/* ---- answers of a DONE request without error ---- */

/* One frame holding what encode writes of r->st. */
#define EMIT(c, r, call) do {						\
	size_t start_ = frame_begin_response(&(c)->out, (r)->id);	\
	call;								\
	frame_end(&(c)->out, start_);					\
	conn_out_commit(c);						\
} while (0)

static void
emit_handshake(struct worker *w, struct conn *c, struct req *r)
{
	EMIT(c, r, msg_encode_handshake_resp(&c->out, r->st));
}

static void
emit_create_topic(struct worker *w, struct conn *c, struct req *r)
{
	EMIT(c, r, msg_encode_create_topic_resp(&c->out, r->st));
}

static void
emit_delete_topic(struct worker *w, struct conn *c, struct req *r)
{
	EMIT(c, r, msg_encode_delete_topic_resp(&c->out, r->st));
}

static void
emit_workers(struct worker *w, struct conn *c, struct req *r)
{
	EMIT(c, r, msg_encode_workers_resp(&c->out, r->st));
}

static void
emit_auth(struct worker *w, struct conn *c, struct req *r)
{
	auth_emit(c, r);
}

/* ---- the table, indexed by API key ---- */

#define ROW(key, name, perm, dec, exec, poll, emit, rel, errbody)	\
	[key] = { key, 0, 0, name, perm, dec, exec, poll, emit, rel, errbody, NULL }

static const struct api_row native_rows[] = {
	ROW(API_HANDSHAKE, "HANDSHAKE", API_PERM_OPEN, dec_handshake,
	    native_handshake_exec, NULL, emit_handshake, NULL,
	    ERRBODY_HANDSHAKE),
	/* METADATA and LIST_OFFSETS: checked per topic by the operation. */
	ROW(API_METADATA, "METADATA", 0, dec_metadata, native_metadata_exec,
	    NULL, native_metadata_emit, NULL, ERRBODY_EMPTY),
	/* The data path: worker/native/data.c. */
	ROW(API_PRODUCE, "PRODUCE", AUTH_PRODUCE, native_produce_decode,
	    native_produce_exec, native_produce_poll, native_produce_emit, NULL,
	    ERRBODY_EMPTY),
	ROW(API_FETCH, "FETCH", AUTH_CONSUME, native_fetch_decode,
	    native_fetch_exec, native_fetch_poll, native_fetch_emit,
	    native_fetch_release, ERRBODY_EMPTY),
	ROW(API_LIST_OFFSETS, "LIST_OFFSETS", 0, native_list_offsets_decode,
	    native_list_offsets_exec, NULL, native_list_offsets_emit, NULL,
	    ERRBODY_EMPTY),
	ROW(API_CREATE_TOPIC, "CREATE_TOPIC", AUTH_ADMIN, dec_create_topic,
	    native_create_topic_exec, native_create_topic_poll,
	    emit_create_topic, NULL, ERRBODY_EMPTY),
	/* Admin of the topic, as for CREATE_TOPIC: checked by the operation. */
	ROW(API_DELETE_TOPIC, "DELETE_TOPIC", AUTH_ADMIN, dec_delete_topic,
	    native_delete_topic_exec, native_delete_topic_poll,
	    emit_delete_topic, NULL, ERRBODY_EMPTY),
	/* Admin of the topic: checked by the operation. */
	ROW(API_CREATE_PARTITIONS, "CREATE_PARTITIONS", AUTH_ADMIN,
	    native_partitions_decode, native_partitions_exec,
	    native_partitions_poll, native_partitions_emit, NULL,
	    ERRBODY_EMPTY),
	/* Broker-wide: only an admin of every topic. */
	ROW(API_WORKERS, "WORKERS", AUTH_ADMIN | API_PERM_ALL, NULL,
	    native_workers_exec, NULL, emit_workers, NULL, ERRBODY_EMPTY),
	ROW(API_CLEANER, "CLEANER", AUTH_ADMIN | API_PERM_ALL, NULL,
	    native_cleaner_exec, NULL, native_cleaner_emit, NULL,
	    ERRBODY_EMPTY),
	ROW(API_TRANSACTIONS, "TRANSACTIONS", AUTH_ADMIN | API_PERM_ALL, NULL,
	    native_txn_exec, NULL, native_txn_emit, NULL, ERRBODY_EMPTY),
	/* Groups: checked per group and per topic by the operations. */
	ROW(API_JOIN_GROUP, "JOIN_GROUP", 0, native_join_decode,
	    native_join_exec, native_join_poll, native_join_emit, NULL,
	    ERRBODY_NONE),
	ROW(API_HEARTBEAT, "HEARTBEAT", 0, native_heartbeat_decode,
	    native_heartbeat_exec, NULL, native_group_ok_emit, NULL,
	    ERRBODY_NONE),
	ROW(API_LEAVE_GROUP, "LEAVE_GROUP", 0, native_leave_decode,
	    native_leave_exec, NULL, native_group_ok_emit, NULL, ERRBODY_NONE),
	ROW(API_OFFSET_COMMIT, "OFFSET_COMMIT", 0, native_commit_decode,
	    native_commit_exec, NULL, native_commit_emit, NULL, ERRBODY_NONE),
	ROW(API_OFFSET_FETCH, "OFFSET_FETCH", 0, native_offset_fetch_decode,
	    native_offset_fetch_exec, NULL, native_offset_fetch_emit, NULL,
	    ERRBODY_NONE),
	ROW(API_LIST_GROUPS, "LIST_GROUPS", 0, native_list_groups_decode,
	    native_list_groups_exec, NULL, native_list_groups_emit, NULL,
	    ERRBODY_NONE),
	ROW(API_DESCRIBE_GROUP, "DESCRIBE_GROUP", 0, native_group_name_decode,
	    native_describe_exec, NULL, native_describe_emit, NULL,
	    ERRBODY_NONE),
	ROW(API_GROUP_RESET, "GROUP_RESET", AUTH_ADMIN, native_reset_decode,
	    native_reset_exec, NULL, native_reset_emit, NULL, ERRBODY_NONE),
	/* group-delete on the group, as Kafka's DeleteGroups needs DELETE. */
	ROW(API_GROUP_DELETE, "GROUP_DELETE", 0, native_group_name_decode,
	    native_group_delete_exec, NULL, native_group_ok_emit, NULL,
	    ERRBODY_NONE),
	/* Topic settings: checked per topic by the operations. */
	ROW(API_CONFIG_DESCRIBE, "CONFIG_DESCRIBE", 0,
	    native_config_describe_decode, native_config_describe_exec, NULL,
	    native_config_describe_emit, NULL, ERRBODY_NONE),
	ROW(API_CONFIG_ALTER, "CONFIG_ALTER", AUTH_ADMIN,
	    native_config_alter_decode, native_config_alter_exec,
	    native_config_alter_poll, native_config_alter_emit, NULL,
	    ERRBODY_NONE),
	/* Admin on the topic, checked by the operation (Kafka: DELETE). */
	ROW(API_DELETE_RECORDS, "DELETE_RECORDS", AUTH_ADMIN,
	    native_delete_records_decode, native_delete_records_exec,
	    native_delete_records_poll, native_delete_records_emit, NULL,
	    ERRBODY_NONE),
	/* group-delete on the group, consume on the topic: the operation. */
	ROW(API_OFFSET_DELETE, "OFFSET_DELETE", 0,
	    native_offset_delete_decode, native_offset_delete_exec, NULL,
	    native_offset_delete_emit, NULL, ERRBODY_NONE),
	/* Decodes its own request. */
	ROW(API_INIT_PRODUCER, "INIT_PRODUCER", AUTH_PRODUCE, NULL,
	    native_init_producer_exec, NULL, native_init_producer_emit, NULL,
	    ERRBODY_NONE),
	ROW(API_AUTH_BEGIN, "AUTH_BEGIN", API_PERM_OPEN, NULL, auth_exec, NULL,
	    emit_auth, NULL, ERRBODY_NONE),
	ROW(API_AUTH_PROVE, "AUTH_PROVE", API_PERM_OPEN, NULL, auth_exec, NULL,
	    emit_auth, NULL, ERRBODY_NONE),
	ROW(API_STATS, "STATS", AUTH_ADMIN | API_PERM_ALL, NULL,
	    stats_handler_exec, NULL, stats_handler_emit, NULL, ERRBODY_NONE),
	/* Every client's address: admin of every topic, as WORKERS. */
	ROW(API_CONNECTIONS, "CONNECTIONS", AUTH_ADMIN | API_PERM_ALL, NULL,
	    native_connections_exec, NULL, native_connections_emit, NULL,
	    ERRBODY_NONE),
};
#define NATIVE_NROWS	(sizeof(native_rows) / sizeof(native_rows[0]))

/* The row of api, or NULL for a key no row serves (reserved or unknown). */
static const struct api_row *
native_row(uint16_t api)
{
	if (api >= NATIVE_NROWS || native_rows[api].exec == NULL)
		return NULL;
	return &native_rows[api];
}

/* ---- the entry points conn.c calls for a native connection ---- */

void
native_exec(struct worker *w, struct conn *c, struct req *r)
{
	const struct api_row *row = native_row(r->api);

	r->name = row != NULL ? row->name : NULL;
	if (row == NULL) {
		/* Known or not, nothing is answered before authentication. */
		r->error = errcode(auth_gate(c, 0, r->name));
		if (r->error == ERR_NONE) {
			r->error = ERR_UNSUPPORTED_API;
			lograte_warnx(w, c->peer, LOGRATE_REFUSED, "API "
			    "key %u is not one this broker serves, answered "
			    "UNSUPPORTED_API", (unsigned)r->api);
		}
		r->state = REQ_DONE;
		return;
	}
	if (r->state == REQ_NEW) {
		if ((r->error = errcode(auth_gate(c, row->perm,
		    r->name))) != ERR_NONE) {
			r->state = REQ_DONE;
			return;
		}
		if (row->decode != NULL && row->decode(c, r) == -1) {
			r->error = ERR_INVALID_REQUEST;
			lograte_warnx(w, c->peer, LOGRATE_REFUSED, "%s: "
			    "malformed request, answered INVALID_REQUEST",
			    row->name);
			r->state = REQ_DONE;
			return;
		}
		/* HANDSHAKE and AUTH_* only set up the session. */
		if (!(row->perm & API_PERM_OPEN))
			c->useful = 1;
	}
	row->exec(w, c, r);
}

void
native_poll(struct worker *w, struct conn *c, struct req *r)
{
	const struct api_row *row = native_row(r->api);

	if (r->state == REQ_WAIT && row != NULL && row->poll != NULL)
		row->poll(w, c, r);
}

int
native_redecode(struct conn *c, struct req *r, const uint8_t *old)
{
	const struct api_row *row = native_row(r->api);

	/*
	 * Native answers point into shared memory or the arena, never old
	 * (OFFSET_FETCH copies the names its request gave).
	 */
	(void)old;
	return row == NULL || row->decode == NULL ? 0 : row->decode(c, r);
}

void
native_release(struct req *r)
{
	const struct api_row *row = native_row(r->api);

	if (row != NULL && row->release != NULL)
		row->release(r);
}

/* An answer that is only an error, in the shape the api's decoder reads. */
static void
emit_error(struct worker *w, struct conn *c, struct req *r,
    enum api_errbody body)
{
	struct wbuf *wb = &c->out;
	size_t start;

	start = frame_begin_response(wb, r->id);
	wbuf_i16(wb, r->error);
	switch (body) {
	case ERRBODY_HANDSHAKE:
		wbuf_i16(wb, FLUME_PROTOCOL_VERSION);
		wbuf_i32(wb, (int32_t)w->conf->max_request_bytes);
		wbuf_str(wb, FLUME_BROKER_NAME, sizeof(FLUME_BROKER_NAME) - 1);
		break;
	case ERRBODY_EMPTY:
		wbuf_i32(wb, 0);
		break;
	case ERRBODY_NONE:
		break;
	}
	frame_end(wb, start);
	conn_out_commit(c);
}

void
native_emit(struct worker *w, struct conn *c, struct req *r)
{
	const struct api_row *row = native_row(r->api);

	if (row == NULL || r->error != ERR_NONE || r->st == NULL) {
		if (r->error == ERR_NONE)
			r->error = ERR_UNKNOWN;
		stats_error_count(w->me, r->error);
		emit_error(w, c, r, row != NULL ? row->errbody : ERRBODY_NONE);
		return;
	}
	row->emit(w, c, r);
}

const struct face native_face = {
	.name = "native",
	.frames = FRAME_REQUEST,
	.exec = native_exec,
	.poll = native_poll,
	.emit = native_emit,
	.redecode = native_redecode,
	.release = native_release,
	.close = NULL,
};
