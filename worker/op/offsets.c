/*
 * Offsets of a partition, by position or by time (worker/op/offsets.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>

#include "common/authfile.h"
#include "common/log.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "shm/producer.h"
#include "shm/shm.h"
#include "store/plog.h"
#include "worker/op/access.h"
#include "worker/op/offsets.h"
#include "worker/op/part.h"
#include "worker/op/reader.h"
#include "worker/worker.h"

enum op_err
op_offset_for_time(struct worker *w, struct shm_partition *p, int64_t ts,
    int64_t *off, int64_t *rts)
{
	struct plog_reader *rd;
	int64_t start, visible;

	*off = *rts = -1;
	start = atomic_load_explicit(&p->log_start, memory_order_acquire);
	visible = atomic_load_explicit(&p->visible_offset, memory_order_acquire);
	if ((rd = op_reader(w, p)) == NULL)
		return errno == ENOENT ? OP_OK : OP_STORAGE;
	if (plog_reader_time_lookup(rd, ts, visible, off, rts) == -1) {
		log_warn("time lookup: partition %d", (int)p->partition);
		return OP_STORAGE;
	}
	/* Segments below the start may linger until retention unlinks them. */
	if (*off != -1 && *off < start)
		*off = start;
	return OP_OK;
}

/*
 * The partition a list of offsets asks about, if x may see it (produce
 * or consume), with *offset and *timestamp -1 until found.
 */
static enum op_err
list_part(const struct op_ctx *x, const char *topic, size_t len,
    int32_t partition, int64_t *offset, int64_t *timestamp,
    struct shm_partition **pp)
{
	enum op_err err;

	*offset = -1;
	*timestamp = -1;
	if ((err = op_access_topic(x, AUTH_PRODUCE | AUTH_CONSUME, topic,
	    len)) != OP_OK)
		return err;
	return op_part_resolve(x->w, topic, len, partition, 0, pp);
}

enum op_err
op_list_offset(const struct op_ctx *x, const char *topic, size_t len,
    int32_t partition, int64_t which, int64_t *offset, int64_t *timestamp)
{
	struct shm_partition *p = NULL;
	enum op_err err;

	if ((err = list_part(x, topic, len, partition, offset, timestamp,
	    &p)) != OP_OK)
		return err;
	if (which == OP_OFFSET_EARLIEST) {
		*offset = atomic_load_explicit(&p->log_start,
		    memory_order_acquire);
		return OP_OK;
	}
	if (which == OP_OFFSET_LATEST) {
		*offset = op_part_end(p);
		return OP_OK;
	}
	if (which >= 0)		/* a timestamp, ms */
		return op_offset_for_time(x->w, p, which, offset, timestamp);
	return OP_BAD_REQUEST;
}

enum op_err
op_list_offset_committed(const struct op_ctx *x, const char *topic,
    size_t len, int32_t partition, int64_t which, int64_t *offset,
    int64_t *timestamp)
{
	struct shm_partition *p = NULL;
	enum op_err err;
	int64_t lso;

	if ((err = list_part(x, topic, len, partition, offset, timestamp,
	    &p)) != OP_OK)
		return err;
	/* The acknowledged end, as latest is, below every open transaction. */
	lso = producer_txn_oldest(x->w->shm, p);
	if (lso > op_part_end(p))
		lso = op_part_end(p);
	if (which == OP_OFFSET_LATEST) {
		*offset = lso;
		return OP_OK;
	}
	if ((err = op_list_offset(x, topic, len, partition, which, offset,
	    timestamp)) != OP_OK)
		return err;
	if (which >= 0 && *offset >= lso)
		*offset = *timestamp = -1;
	return OP_OK;
}

enum op_err
op_list_offset_max_ts(const struct op_ctx *x, const char *topic, size_t len,
    int32_t partition, int64_t *offset, int64_t *timestamp)
{
	struct shm_partition *p = NULL;
	struct plog_reader *rd;
	int64_t start, visible;
	enum op_err err;

	if ((err = list_part(x, topic, len, partition, offset, timestamp,
	    &p)) != OP_OK)
		return err;
	start = atomic_load_explicit(&p->log_start, memory_order_acquire);
	visible = atomic_load_explicit(&p->visible_offset, memory_order_acquire);
	if (visible <= start)
		return OP_OK;
	if ((rd = op_reader(x->w, p)) == NULL)
		return errno == ENOENT ? OP_OK : OP_STORAGE;
	if (plog_reader_max_time(rd, start, visible, offset, timestamp) == -1) {
		log_warn("max timestamp: partition %d", (int)p->partition);
		return OP_STORAGE;
	}
	return OP_OK;
}
