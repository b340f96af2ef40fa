/*
 * Transaction markers: Kafka's control batches (DESIGN.md section 3).
 *
 * When a transaction ends, the coordinator appends one control batch to
 * every partition the transaction wrote: a RecordBatch v2 whose
 * attributes have the transactional (0x10) and control (0x20) bits, the
 * transaction's producer id and epoch, baseSequence -1 and one record:
 *
 *   key   version i16 (0), type i16 (0 ABORT, 1 COMMIT)
 *   value version i16 (0), coordinatorEpoch i32
 *
 * Such a batch closes the producer's open transaction on that partition.
 * Clients never see its record: Kafka's consumers, libflume and
 * flume-consume skip control batches.  A produce request may not carry
 * one (only the broker writes markers).
 */
#ifndef FLUME_PROTO_CTRL_H
#define FLUME_PROTO_CTRL_H

#include <stddef.h>
#include <stdint.h>

#define BATCH_ATTR_TRANSACTIONAL	0x10
#define BATCH_ATTR_CONTROL		0x20

#define CTRL_ABORT	0
#define CTRL_COMMIT	1

/* Bytes of the marker batch ctrl_marker_encode() writes. */
#define CTRL_MARKER_SIZE	78

struct ctrl_marker {
	int64_t		producer_id;
	int16_t		producer_epoch;
	int16_t		type;			/* CTRL_ABORT or CTRL_COMMIT */
	int32_t		coordinator_epoch;
	int64_t		timestamp;
};

/*
 * Write the marker batch of m into out (CTRL_MARKER_SIZE bytes), with
 * baseOffset 0 (the append assigns it) and its CRC.
 */
void	ctrl_marker_encode(uint8_t out[CTRL_MARKER_SIZE],
	    const struct ctrl_marker *m);

/*
 * The batch at buf[0..len) (header checked by the caller): 0 if it is
 * not a control batch, 1 with *m filled if it is a transaction marker,
 * -1 if it is a control batch whose record is not a marker Flume knows
 * (another control type, or malformed; Kafka skips those too).
 */
int	ctrl_marker_parse(const uint8_t *buf, size_t len, struct ctrl_marker *m);

/* Attributes of the batch at buf (at least BATCH_HEADER_SIZE bytes). */
int	ctrl_is_control(const uint8_t *buf);
int	ctrl_is_transactional(const uint8_t *buf);

#endif
