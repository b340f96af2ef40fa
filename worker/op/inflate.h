/*
 * The worker's inflate buffer for compressed batches: one per worker
 * process (workers are single-threaded), kept and reused, so however many
 * compressed batches arrive the worker's memory grows by at most the
 * limit once.  Both protocols' produce paths validate through it.
 */
#ifndef FLUME_WORKER_OP_INFLATE_H
#define FLUME_WORKER_OP_INFLATE_H

#include <stddef.h>

#include "proto/compress.h"

struct config;

/*
 * How far a compressed batch may inflate: 16 times max_message_bytes,
 * at most COMPRESS_LIMIT_MAX (64 MiB).  Read per call, so a reload of
 * max_message_bytes applies at once.
 */
size_t	inflate_limit(const struct config *conf);

/* The buffer, its limit set from conf; pass it to batch_validate_z. */
struct compress_buf *inflate_scratch(const struct config *conf);

#endif
