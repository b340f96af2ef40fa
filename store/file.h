/*
 * Internal to store/: small files replaced atomically (committed offsets,
 * topic.meta) and read back whole.  Not for other modules.
 */
#ifndef FLUME_STORE_FILE_H
#define FLUME_STORE_FILE_H

#include <sys/types.h>

#include <stddef.h>

/* The temp files of store_file_replace() start with this. */
#define STORE_TMP_PREFIX	".tmp-"

/*
 * Replace dir/name with buf: a temp file in dir (".tmp-XXXXXX"), write
 * and fdatasync through store_io, rename, fsync dir.  On failure the old
 * file is untouched and the temp file removed.  0 or -1.
 */
int	store_file_replace(const char *dir, const char *name, const void *buf,
	    size_t len);
/* Read a whole file of at most max bytes, NUL-terminated (malloc'ed). */
int	store_file_read(const char *path, size_t max, char **buf, size_t *len);
/*
 * Check the trailing "crc32c XXXXXXXX\n" line (CRC-32C of everything
 * before it, lowercase hex) of a text file; *body_len gets the length it
 * covers.  0, or -1 with EBADMSG.
 */
int	store_text_check(const char *buf, size_t len, size_t *body_len);
/*
 * The entries of dir that keep() accepts, sorted: a malloc'ed array of
 * malloc'ed names.  keep returns how much of the entry's name to store
 * (0 skips it).  0, or -1 with errno (ENOENT when dir does not exist).
 */
int	store_dir_names(const char *dir,
	    size_t (*keep)(const char *dir, const char *name, size_t len),
	    char ***names, size_t *n);
/*
 * mkdir, and fsync the parent when it was created (through store_io); a
 * directory whose parent could not be synced is removed again.  0 or -1.
 */
int	store_mkdir(const char *path);
/* mkdir -p: every directory it creates gets mode and is synced into its parent. */
int	store_mkdir_p(const char *path, mode_t mode);
/* fsync a directory (its entries) through store_io.fdatasync. 0 or -1. */
int	store_dir_sync(const char *dir);

#endif
