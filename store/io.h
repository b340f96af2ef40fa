/*
 * The seam between the log and the kernel for writes: every write(2),
 * fdatasync(2), early writeback request and page-cache drop the store
 * makes on a segment goes through store_io, so tests inject a full disk
 * or an I/O error, or watch what is asked of the kernel.
 */
#ifndef FLUME_STORE_IO_H
#define FLUME_STORE_IO_H

#include <sys/types.h>

struct store_io {
	ssize_t	(*write)(int fd, const void *buf, size_t len);
	int	(*fdatasync)(int fd);
	/*
	 * Start writing back [pos, pos+len) without waiting (Linux
	 * sync_file_range SYNC_FILE_RANGE_WRITE).  Advisory: an error here
	 * is reported again by the next fdatasync, which is what counts.
	 */
	int	(*writeback)(int fd, off_t pos, off_t len);
	/*
	 * Tell the kernel [pos, pos+len) is not needed soon: it drops the
	 * pages of the range that are clean (posix_fadvise DONTNEED).
	 * Advisory as well; dirty pages stay until written back.
	 */
	int	(*dropcache)(int fd, off_t pos, off_t len);
};

extern struct store_io store_io;	/* defaults: the system calls */
void	store_io_reset(void);

#endif
