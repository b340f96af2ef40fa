/*
 * STATS (18): the broker's figures for flume-admin stats, the same ones
 * the metrics child serves in the Prometheus format.  Layout in
 * proto/msg.h and flume-protocol(7).  A layout table (proto/msg_layout.c)
 * like the other messages: its decoder checks that the payload is exactly
 * one well-formed message, or a lone non-zero error, and sizes no array
 * beyond what the payload could hold.
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

/* The metrics' own counters (auth_*) are not on the wire. */
static const struct msg_field stats_child_rows[] = {
	MSG_I32(struct stats_child, slot),
	MSG_I8(struct stats_child, role),
	MSG_I32(struct stats_child, pid),
	MSG_I32(struct stats_child, restarts),
	MSG_I64(struct stats_child, connections),
	MSG_I64(struct stats_child, accepted),
	MSG_I64(struct stats_child, requests),
	MSG_I64(struct stats_child, bytes_in),
	MSG_I64(struct stats_child, bytes_out),
	MSG_I64(struct stats_child, rejected_conns),
	MSG_I64(struct stats_child, protocol_errors),
};
static const struct msg_layout stats_child =
    MSG_ELEMENT(stats_child_rows, MIN_STATS_CHILD);

static const struct msg_field stats_partition_rows[] = {
	MSG_STR(struct stats_partition, topic, topic_len),
	MSG_I32(struct stats_partition, partition),
	MSG_I64(struct stats_partition, log_start),
	MSG_I64(struct stats_partition, log_end),
	MSG_I64(struct stats_partition, visible),
	MSG_I64(struct stats_partition, durable),
	MSG_I64(struct stats_partition, msgs_in),
	MSG_I64(struct stats_partition, bytes_in),
	MSG_I64(struct stats_partition, msgs_out),
	MSG_I64(struct stats_partition, bytes_out),
	MSG_I64(struct stats_partition, ring_used),
	MSG_I64(struct stats_partition, ring_size),
	MSG_I32(struct stats_partition, segments),
	MSG_I64(struct stats_partition, log_bytes),
};
static const struct msg_layout stats_partition =
    MSG_ELEMENT(stats_partition_rows, MIN_STATS_PARTITION);

static const struct msg_field stats_bucket_rows[] = {
	MSG_I64(struct stats_bucket, le_us),
	MSG_I64(struct stats_bucket, count),
};
static const struct msg_layout stats_bucket =
    MSG_ELEMENT(stats_bucket_rows, MIN_STATS_BUCKET);

static const struct msg_field stats_error_rows[] = {
	MSG_I16(struct stats_error, error),
	MSG_I64(struct stats_error, count),
};
static const struct msg_layout stats_error =
    MSG_ELEMENT(stats_error_rows, MIN_STATS_ERROR);

static const struct msg_field stats_lag_rows[] = {
	MSG_STR(struct stats_lag, group, group_len),
	MSG_STR(struct stats_lag, topic, topic_len),
	MSG_I32(struct stats_lag, partition),
	MSG_I64(struct stats_lag, committed),
	MSG_I64(struct stats_lag, lag),
};
static const struct msg_layout stats_lag =
    MSG_ELEMENT(stats_lag_rows, MIN_STATS_LAG);

static const struct msg_field stats_resp_rows[] = {
	MSG_I16(struct stats_resp, error),
	MSG_ARRAY(struct stats_resp, nchildren, children, stats_child),
	MSG_ARRAY(struct stats_resp, nparts, parts, stats_partition),
	MSG_I64(struct stats_resp, fsync_count),
	MSG_I64(struct stats_resp, fsync_errors),
	MSG_I64(struct stats_resp, fsync_sum_us),
	MSG_ARRAY(struct stats_resp, nbuckets, buckets, stats_bucket),
	MSG_ARRAY(struct stats_resp, nerrors, errors, stats_error),
	MSG_ARRAY(struct stats_resp, nlags, lags, stats_lag),
};
static const struct msg_layout stats_resp = MSG_RESPONSE(stats_resp_rows);

MSG_ENCODER(msg_encode_stats_resp, stats_resp)
MSG_DECODER_ARENA(msg_decode_stats_resp, stats_resp)
