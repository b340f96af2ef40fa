/*
 * A partition's log start offset, as DeleteRecords moved it (Kafka's
 * log-start-offset checkpoint): one small text file in the partition's
 * directory, replaced atomically (temp file, fdatasync, rename, fsync the
 * directory: store/file.h) and checked by its CRC-32C line on load.
 *
 *   flume-log-start 1
 *   offset 1234
 *   crc32c 0a1b2c3d
 *
 * The log start is the larger of this offset and the base of the oldest
 * segment left (retention may have removed more since), so a file that
 * lags behind is harmless; no file means the oldest segment's base.
 * Written only by the writer, which owns the partition's files.
 */
#ifndef FLUME_STORE_LOGSTART_H
#define FLUME_STORE_LOGSTART_H

#include <stdint.h>

#define LOGSTART_FILE	"log-start"

/* Save offset as dir's log start.  0 or -1 with errno. */
int	logstart_save(const char *dir, int64_t offset);
/*
 * dir's saved log start into *offset: 0; 0 with *offset -1 when there is
 * no file; -1 with errno (EBADMSG: damaged).
 */
int	logstart_load(const char *dir, int64_t *offset);

#endif
