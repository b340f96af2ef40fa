/*
 * libFuzzer target: the RecordBatch v2 validator and record iterator.
 * Input byte 0 chooses the mode: even = the bytes as they are; odd = the
 * batchLength and CRC-32C are patched to fit, so the fuzzer gets past the
 * checksum into the records.  A batch that batch_validate() accepts must
 * iterate to exactly recordsCount records whose headers all walk, with
 * consecutive offsets; the hardware and software CRC must agree.
 * Compressed batches are inflated (into at most 1 MiB) and their records
 * must lie inside the inflated bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/crc32c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	struct record_header_iter hi;
	struct record_header rh;
	static struct compress_buf z = { .limit = 1 << 20 };
	const uint8_t *lo, *hi_end;
	uint8_t *b;
	size_t n;
	int32_t count = 0, hc;
	int st, hs;

	if (size < 1)
		return 0;
	n = size - 1;
	if ((b = malloc(n ? n : 1)) == NULL)
		return 0;
	memcpy(b, data + 1, n);
	if (crc32c_hw_available() && crc32c_hw(0, b, n) != crc32c_sw(0, b, n))
		abort();
	if ((data[0] & 1) && n >= BATCH_HEADER_SIZE) {
		be32_put(b + BATCH_OFF_LENGTH, (uint32_t)(n - BATCH_LOG_OVERHEAD));
		be32_put(b + BATCH_OFF_CRC, crc32c(0, b + BATCH_CRC_START,
		    n - BATCH_CRC_START));
	}
	if (batch_validate_z(b, n, &h, &z) == BATCH_OK) {
		if (batch_total_size(&h) != n || batch_check_crc(b, n) != BATCH_OK)
			abort();
		if (batch_iter_init_z(&it, b, n, &z) == -1)
			abort();
		if (h.attributes & BATCH_COMPRESSION_MASK) {
			if (z.len > z.limit)
				abort();
			lo = z.buf;
			hi_end = z.buf + z.len;
		} else {
			lo = b;
			hi_end = b + n;
		}
		while ((st = batch_iter_next(&it, &r)) == 1) {
			if (r.offset != h.base_offset + count)
				abort();
			if ((r.key_len > 0 && (r.key < lo ||
			    r.key + r.key_len > hi_end)) ||
			    (r.value_len > 0 && (r.value < lo ||
			    r.value + r.value_len > hi_end)))
				abort();
			record_header_iter_init(&hi, &r);
			hc = 0;
			while ((hs = record_header_next(&hi, &rh)) == 1)
				hc++;
			if (hs == -1 || hc != r.header_count)
				abort();
			if (++count > h.records_count)
				abort();
		}
		if (st == -1 || count != h.records_count)
			abort();
	}
	free(b);
	return 0;
}
