/*
 * Transaction markers: Kafka's control batches (proto/ctrl.h).
 */
#include <string.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/crc32c.h"
#include "proto/ctrl.h"

/* The one record: length, attributes, ts delta, offset delta, key, value, headers. */
#define REC_BODY	16	/* bytes after the record's length varint */
#define KEY_LEN		4
#define VALUE_LEN	6

void
ctrl_marker_encode(uint8_t out[CTRL_MARKER_SIZE], const struct ctrl_marker *m)
{
	uint8_t *h = out, *p = out + BATCH_HEADER_SIZE;

	be64_put(h + BATCH_OFF_BASE_OFFSET, 0);
	be32_put(h + BATCH_OFF_LENGTH, CTRL_MARKER_SIZE - BATCH_LOG_OVERHEAD);
	be32_put(h + BATCH_OFF_EPOCH, 0);
	h[BATCH_OFF_MAGIC] = BATCH_MAGIC;
	be16_put(h + BATCH_OFF_ATTRIBUTES,
	    BATCH_ATTR_TRANSACTIONAL | BATCH_ATTR_CONTROL);
	be32_put(h + BATCH_OFF_LAST_DELTA, 0);
	be64_put(h + BATCH_OFF_FIRST_TS, (uint64_t)m->timestamp);
	be64_put(h + BATCH_OFF_MAX_TS, (uint64_t)m->timestamp);
	be64_put(h + BATCH_OFF_PRODUCER_ID, (uint64_t)m->producer_id);
	be16_put(h + BATCH_OFF_PRODUCER_EPOCH, (uint16_t)m->producer_epoch);
	be32_put(h + BATCH_OFF_BASE_SEQUENCE, (uint32_t)-1);
	be32_put(h + BATCH_OFF_COUNT, 1);

	*p++ = REC_BODY << 1;		/* length, zigzag varint */
	*p++ = 0;			/* attributes */
	*p++ = 0;			/* timestampDelta */
	*p++ = 0;			/* offsetDelta */
	*p++ = KEY_LEN << 1;
	be16_put(p, 0);			/* key version */
	be16_put(p + 2, (uint16_t)m->type);
	p += KEY_LEN;
	*p++ = VALUE_LEN << 1;
	be16_put(p, 0);			/* value version */
	be32_put(p + 2, (uint32_t)m->coordinator_epoch);
	p += VALUE_LEN;
	*p++ = 0;			/* headers */

	be32_put(h + BATCH_OFF_CRC, crc32c(0, h + BATCH_CRC_START,
	    CTRL_MARKER_SIZE - BATCH_CRC_START));
}

int
ctrl_is_control(const uint8_t *buf)
{
	return (be16_get(buf + BATCH_OFF_ATTRIBUTES) & BATCH_ATTR_CONTROL) != 0;
}

int
ctrl_is_transactional(const uint8_t *buf)
{
	return (be16_get(buf + BATCH_OFF_ATTRIBUTES) &
	    BATCH_ATTR_TRANSACTIONAL) != 0;
}

int
ctrl_marker_parse(const uint8_t *buf, size_t len, struct ctrl_marker *m)
{
	struct batch_iter it;
	struct record r;
	struct batch_header h;

	if (batch_parse_header(buf, len, &h) != BATCH_OK)
		return -1;
	if (!(h.attributes & BATCH_ATTR_CONTROL))
		return 0;
	if (h.records_count != 1 ||
	    (h.attributes & BATCH_COMPRESSION_MASK) != COMPRESS_NONE ||
	    batch_iter_init(&it, buf, len) != BATCH_OK ||
	    batch_iter_next(&it, &r) != 1)
		return -1;
	if (r.key_len < KEY_LEN || r.key == NULL ||
	    be16_get(r.key) != 0)
		return -1;
	memset(m, 0, sizeof(*m));
	m->type = (int16_t)be16_get(r.key + 2);
	if (m->type != CTRL_ABORT && m->type != CTRL_COMMIT)
		return -1;
	if (r.value_len >= VALUE_LEN && r.value != NULL)
		m->coordinator_epoch = (int32_t)be32_get(r.value + 2);
	m->producer_id = h.producer_id;
	m->producer_epoch = h.producer_epoch;
	m->timestamp = h.first_timestamp;
	return 1;
}
