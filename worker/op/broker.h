/*
 * The broker's processes as the shared child table (shm/shm.h) lists
 * them, for an administrator (worker/op/broker.c).
 */
#ifndef FLUME_WORKER_OP_BROKER_H
#define FLUME_WORKER_OP_BROKER_H

#include <stdint.h>

#include "worker/op/op.h"

struct op_child {
	int32_t		 slot;
	int8_t		 role;		/* enum flume_role (proto/role.h) */
	int32_t		 pid;
	int64_t		 uptime_ms;	/* 0 when its start is unknown */
	int32_t		 restarts;
};

/*
 * Every running child (a slot with a pid), in slot order, into *out
 * (request memory) and *n: OP_OK or OP_NO_MEMORY.
 */
enum op_err op_broker_children(const struct op_ctx *x, struct op_child **out,
	    int32_t *n);

#endif
