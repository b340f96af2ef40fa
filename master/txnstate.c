/*
 * Transactions on the partition side, in the writer (see txnstate.h).
 */
#include <errno.h>

#include "common/log.h"
#include "master/txnstate.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/ctrl.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "store/plog.h"
#include "store/txnindex.h"

/* One marker at offset off: close its transaction. */
static int
marker_close(struct shm *s, struct shm_partition *p, struct plog *log,
    const struct ctrl_marker *m, int64_t off)
{
	struct txn_aborted a;
	int64_t first, lso;
	int rc = 0;

	if (part_lock(s, p) == -1)
		return -1;
	first = producer_txn_find(s, p, m->producer_id, m->producer_epoch, off,
	    &lso);
	if (first >= 0 && m->type == CTRL_ABORT) {
		a.pid = m->producer_id;
		a.first = first;
		a.last = off;
		a.lso = lso;
		/* Before the LSO may pass it: a reader must find it. */
		rc = txnindex_append(plog_dir(log), plog_segment_of(log, off), &a);
	}
	if (first >= 0 && rc == 0)
		producer_txn_clear(s, p, m->producer_id);
	part_unlock(p);
	return rc;
}

int
txn_markers_drained(struct shm *s, struct shm_partition *p, struct plog *log,
    const uint8_t *data, size_t n)
{
	struct ctrl_marker m;
	size_t pos, sz;

	for (pos = 0; pos + BATCH_HEADER_SIZE <= n; pos += sz) {
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(data + pos + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > n - pos)
			break;
		if (!ctrl_is_control(data + pos) ||
		    ctrl_marker_parse(data + pos, sz, &m) != 1)
			continue;
		if (marker_close(s, p, log, &m,
		    (int64_t)be64_get(data + pos + BATCH_OFF_BASE_OFFSET)) == -1) {
			log_warn("writing the aborted-transaction index");
			return -1;
		}
	}
	return 0;
}
