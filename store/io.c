/*
 * The default store_io: straight to the system calls.  Tests swap the
 * pointers to inject a full disk or an I/O error, then store_io_reset().
 */
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

struct store_io store_io = { io_write, io_fdatasync };

void
store_io_reset(void)
{
	store_io.write = io_write;
	store_io.fdatasync = io_fdatasync;
}
