/*
 * The broker's error codes (proto/msg.h, flume_strerror(3)) for the
 * operations' errors (worker/op/op.h): what the native protocol answers
 * and what the broker's figures count, whichever face answered.  The
 * Kafka face answers its own codes (worker/kafka/errors.c) but counts
 * here.
 */
#ifndef FLUME_WORKER_ERRCODE_H
#define FLUME_WORKER_ERRCODE_H

#include <stdint.h>

#include "worker/op/op.h"

struct worker;

/* The broker's code for e; ERR_UNKNOWN for a value out of range. */
int16_t	errcode(enum op_err e);
/* Count one answer carrying e in this worker's figures (shm/stats.h). */
void	errcode_count(struct worker *w, enum op_err e);

#endif
