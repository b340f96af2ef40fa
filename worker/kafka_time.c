/*
 * ListOffsets by time for the Kafka listener: the first offset whose
 * record timestamp is at or after T.  Until segments have a time index
 * this is a scan of what the writer has made visible, batch headers
 * first (a batch whose maxTimestamp is below T is skipped without reading
 * its records), then the records of the first batch that can hold T.
 * It runs in the worker, synchronously, bounded by the partition's size.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/msg.h"
#include "shm/shm.h"
#include "store/plog.h"
#include "store/topic.h"
#include "worker/kafka.h"
#include "worker/worker.h"

#define SCAN_CHUNK	(1u << 20)	/* bytes asked of the log per step */

/* Read exactly n bytes at pos; 0 or -1. */
static int
read_at(int fd, void *buf, size_t n, off_t pos)
{
	ssize_t r;
	size_t got = 0;

	while (got < n) {
		r = pread(fd, (uint8_t *)buf + got, n - got, pos + (off_t)got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/*
 * The batch of total bytes at pos holds a record at or after ts (its
 * header said so): find the first one at or after from.  1 found, 0 not
 * in this batch, -1 on a read error.
 */
static int
batch_find(int fd, off_t pos, size_t total, const uint8_t *hdr, int64_t from,
    int64_t ts, int64_t *off, int64_t *rts)
{
	struct batch_iter it;
	struct record rec;
	uint8_t *buf;
	int rc = 0;

	if ((be16_get(hdr + BATCH_OFF_ATTRIBUTES) & 0x07) != 0) {
		/* Compressed: its records are not readable here; the batch. */
		*off = (int64_t)be64_get(hdr + BATCH_OFF_BASE_OFFSET);
		if (*off < from)
			*off = from;
		*rts = (int64_t)be64_get(hdr + BATCH_OFF_MAX_TS);
		return 1;
	}
	if ((buf = malloc(total)) == NULL)
		return -1;
	if (read_at(fd, buf, total, pos) == -1 ||
	    batch_iter_init(&it, buf, total) != BATCH_OK) {
		free(buf);
		return -1;
	}
	while ((rc = batch_iter_next(&it, &rec)) == 1) {
		if (rec.offset >= from && rec.timestamp >= ts) {
			*off = rec.offset;
			*rts = rec.timestamp;
			break;
		}
	}
	free(buf);
	return rc == -1 ? -1 : rc;
}

int16_t
kafka_offset_for_time(struct worker *w, struct shm_partition *p, int64_t ts,
    int64_t *off, int64_t *rts)
{
	char dir[PATH_MAX], name[TOPIC_NAME_MAX + 1];
	const struct shm_topic *t = &w->shm->topics[p->topic];
	struct plog_reader *rd = NULL;
	struct plog_slice sl;
	uint8_t hdr[BATCH_HEADER_SIZE];
	int64_t from, visible, base, last;
	size_t done, total;
	int rc;

	*off = *rts = -1;
	from = atomic_load_explicit(&p->log_start, memory_order_acquire);
	visible = atomic_load_explicit(&p->visible_offset, memory_order_acquire);
	if (t->name_len > TOPIC_NAME_MAX)
		return ERR_UNKNOWN;
	memcpy(name, t->name, t->name_len);
	name[t->name_len] = '\0';
	if (topic_partition_dir(dir, sizeof(dir), w->conf->data_dir, name,
	    p->partition) == -1)
		return ERR_UNKNOWN;
	if (plog_reader_open(&rd, dir) == -1)
		return errno == ENOENT ? ERR_NONE : ERR_STORAGE;
	while (from < visible) {
		if (plog_reader_read(rd, from, visible, SCAN_CHUNK, &sl) == -1) {
			rc = errno == ERANGE ? ERR_NONE : ERR_STORAGE;
			goto out;
		}
		if (sl.len == 0)
			break;
		for (done = 0; done + BATCH_HEADER_SIZE <= sl.len; done += total) {
			if (read_at(sl.fd, hdr, sizeof(hdr), sl.pos +
			    (off_t)done) == -1) {
				rc = ERR_STORAGE;
				goto out;
			}
			total = BATCH_LOG_OVERHEAD +
			    (size_t)be32_get(hdr + BATCH_OFF_LENGTH);
			base = (int64_t)be64_get(hdr + BATCH_OFF_BASE_OFFSET);
			last = base + (int32_t)be32_get(hdr +
			    BATCH_OFF_LAST_DELTA);
			if (total > sl.len - done)
				break;
			if (last < from || (int64_t)be64_get(hdr +
			    BATCH_OFF_MAX_TS) < ts)
				continue;
			rc = batch_find(sl.fd, sl.pos + (off_t)done, total, hdr,
			    from, ts, off, rts);
			if (rc == -1) {
				rc = ERR_STORAGE;
				goto out;
			}
			if (rc == 1) {
				rc = ERR_NONE;
				goto out;
			}
		}
		if (sl.next_offset <= from)
			break;		/* no progress: never loop */
		from = sl.next_offset;
	}
	rc = ERR_NONE;
out:
	if (rc == ERR_STORAGE)
		log_warn("ListOffsets by time: %s/%d", name, (int)p->partition);
	plog_reader_close(rd);
	return (int16_t)rc;
}
