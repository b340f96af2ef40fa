/*
 * CRC-32C (Castagnoli), as Kafka's RecordBatch v2 uses it.  crc32c() picks
 * carry-less multiplication (VPCLMULQDQ) for long buffers and the SSE4.2
 * instruction when the CPU has them, else a table-driven software path;
 * the choice is made once, at first use.
 *
 * crc32c(0, "123456789", 9) == 0xE3069283.  The crc argument is the value
 * returned by a previous call, so a buffer may be checksummed in pieces.
 */
#ifndef FLUME_PROTO_CRC32C_H
#define FLUME_PROTO_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t	crc32c(uint32_t crc, const void *buf, size_t len);
/*
 * The CRC of A||B from crc32c(0, A, .), crc32c(0, B, .) and |B|, without
 * reading either: so a header patched in front of bytes whose CRC is
 * known costs a CRC of the header only.
 */
uint32_t	crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b);
uint32_t	crc32c_sw(uint32_t crc, const void *buf, size_t len);
/* Only valid when crc32c_hw_available() is true. */
uint32_t	crc32c_hw(uint32_t crc, const void *buf, size_t len);
int		crc32c_hw_available(void);
/*
 * The path crc32c() takes for long buffers: "vpclmulqdq" (folding with
 * carry-less multiplies, from 1 KiB on; the crc32 instruction below),
 * "sse4.2" or "sw".
 */
const char	*crc32c_path(void);

#endif
