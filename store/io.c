/*
 * The default store_io: straight to the system calls.  Tests swap the
 * pointers to inject a full disk or an I/O error, then store_io_reset().
 */
#include <fcntl.h>
#include <unistd.h>

#include "store/io.h"

static ssize_t
io_write(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len);
}

static int
io_fdatasync(int fd)
{
	return fdatasync(fd);
}

/*
 * Only SYNC_FILE_RANGE_WRITE: the WAIT flags would collect a writeback
 * error for this file description, and the fdatasync that decides
 * durability would then no longer see it.
 */
static int
io_writeback(int fd, off_t pos, off_t len)
{
	return sync_file_range(fd, pos, len, SYNC_FILE_RANGE_WRITE);
}

/*
 * DONTNEED starts writeback of dirty pages in the range (not waiting) and
 * drops the clean ones; it does not collect writeback errors.
 */
static int
io_dropcache(int fd, off_t pos, off_t len)
{
	return posix_fadvise(fd, pos, len, POSIX_FADV_DONTNEED);
}

struct store_io store_io = { io_write, io_fdatasync, io_writeback,
    io_dropcache };

void
store_io_reset(void)
{
	store_io.write = io_write;
	store_io.fdatasync = io_fdatasync;
	store_io.writeback = io_writeback;
	store_io.dropcache = io_dropcache;
}
