/*
 * An internal topic's partition read back record by record (replay.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "master/replay.h"

#define REPLAY_READ_MAX	(1u << 20)

/* The batches of buf[0..len), whole ones only. */
static void
replay_batches(const uint8_t *buf, size_t len,
    void (*rec)(void *, const struct record *), void *arg, uint64_t *bad)
{
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	size_t pos = 0, sz;
	int rc;

	while (len - pos >= BATCH_HEADER_SIZE &&
	    batch_parse_header(buf + pos, len - pos, &h) == BATCH_OK) {
		sz = batch_total_size(&h);
		if (sz > len - pos)
			break;
		if (batch_validate(buf + pos, sz, NULL) != BATCH_OK ||
		    batch_iter_init(&it, buf + pos, sz) != BATCH_OK) {
			(*bad)++;
			pos += sz;
			continue;
		}
		while ((rc = batch_iter_next(&it, &r)) == 1)
			rec(arg, &r);
		if (rc == -1)
			(*bad)++;
		pos += sz;
	}
}

int
replay_log(struct plog *l, void (*rec)(void *, const struct record *),
    void *arg, uint64_t *bad)
{
	struct plog_slice sl;
	int64_t off = plog_start_offset(l), end = plog_end_offset(l);
	uint8_t *buf = NULL;
	size_t cap = 0;
	ssize_t got;

	while (off < end) {
		if (plog_read(l, off, end, REPLAY_READ_MAX, &sl) == -1) {
			if (errno != EBADMSG || sl.next_offset <= off)
				break;
			off = sl.next_offset;	/* past a damaged range */
			continue;
		}
		if (sl.len == 0 || sl.next_offset <= off)
			break;
		if (sl.len > cap) {
			free(buf);
			cap = sl.len;
			if ((buf = malloc(cap)) == NULL)
				return -1;
		}
		if ((got = pread(sl.fd, buf, sl.len, sl.pos)) != (ssize_t)sl.len) {
			if (got >= 0)
				errno = EIO;
			free(buf);
			return -1;
		}
		replay_batches(buf, sl.len, rec, arg, bad);
		off = sl.next_offset;
	}
	free(buf);
	return 0;
}
