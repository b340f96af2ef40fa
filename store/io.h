/*
 * The seam between the log and the kernel for writes: every write(2),
 * ftruncate(2) and fdatasync(2) the store does on a segment goes through
 * store_io, so tests inject a full disk or an I/O error.
 */
#ifndef FLUME_STORE_IO_H
#define FLUME_STORE_IO_H

#include <sys/types.h>

struct store_io {
	ssize_t	(*write)(int fd, const void *buf, size_t len);
	int	(*fdatasync)(int fd);
};

extern struct store_io store_io;	/* defaults: the system calls */
void	store_io_reset(void);

#endif
