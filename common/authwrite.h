/*
 * Changing the auth_file from a worker (worker/op/acl.c): under an
 * exclusive flock(2) on its directory, so two workers' changes are made
 * one after the other, each on the file as the other left it; written
 * as a temp file in the same directory, fsync'd, renamed over the file
 * and the directory fsync'd, so a crash leaves the old or the new file,
 * never a mix.  The file's mode is kept.
 */
#ifndef FLUME_COMMON_AUTHWRITE_H
#define FLUME_COMMON_AUTHWRITE_H

#include <stddef.h>

/* Lock path's directory: the directory's fd (the lock), or -1 (errno). */
int	authfile_lock(const char *path);
/* Drop the lock and close dirfd. */
void	authfile_unlock(int dirfd);
/*
 * Read path (a regular file of at most AUTH_FILE_MAX bytes, else EFBIG):
 * a malloc'd copy with a NUL after it in *text, its length in *len, its
 * permission bits in *mode (unless NULL); 0 or -1 (errno).
 */
int	authfile_read(const char *path, char **text, size_t *len,
	    unsigned *mode);
/* Replace path by text[0..len) atomically (see above): 0 or -1 (errno). */
int	authfile_replace(const char *path, int dirfd, const char *text,
	    size_t len);
/* A user line's new fields; NULL: kept as it is. */
struct auth_line_edit {
	const char	*secret;
	size_t		 secret_len;
	const char	*perms;
	size_t		 perms_len;
};

struct auth_table;

/*
 * The auth_file text[0..len) (parsed as t) with the fields e[i] gives
 * for user i of t replaced and append[0..alen) added as lines at the end;
 * every other byte is kept (comments, blank lines, spacing).  A new
 * malloc'd text in *out (*outlen); 0 or -1 (ENOMEM).
 */
int	auth_text_edit(const char *text, size_t len, const struct auth_table *t,
	    const struct auth_line_edit *e, const char *append, size_t alen,
	    char **out, size_t *outlen);
/* Clear and free a text authfile_read or authacl_* gave. */
void	authfile_text_free(char *text, size_t len);

#endif
