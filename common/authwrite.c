/*
 * Changing the auth_file in place (see common/authwrite.h).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/authfile.h"
#include "common/authwrite.h"

/* The directory of path into dir (PATH_MAX). */
static int
dir_of(const char *path, char *dir)
{
	char tmp[PATH_MAX];

	if (strlen(path) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, path, strlen(path) + 1);
	snprintf(dir, PATH_MAX, "%s", dirname(tmp));
	return 0;
}

int
authfile_lock(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	if (dir_of(path, dir) == -1)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	while (flock(fd, LOCK_EX) == -1) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

void
authfile_unlock(int dirfd)
{
	if (dirfd < 0)
		return;
	(void)flock(dirfd, LOCK_UN);
	close(dirfd);
}

int
authfile_read(const char *path, char **text, size_t *len, unsigned *mode)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	char *buf;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > (off_t)AUTH_FILE_MAX) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	if (mode != NULL)
		*mode = (unsigned)(st.st_mode & 07777);
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

void
authfile_text_free(char *text, size_t len)
{
	if (text == NULL)
		return;
	sodium_memzero(text, len);
	free(text);
}

int
authfile_replace(const char *path, int dirfd, const char *text, size_t len)
{
	char tmp[PATH_MAX];
	struct stat st;
	mode_t mode = 0600;
	size_t done = 0;
	ssize_t n;
	int fd, e;

	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;
	if (snprintf(tmp, sizeof(tmp), "%s.new.%ld", path,
	    (long)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) == -1)
		return -1;
	if (fchmod(fd, mode) == -1)
		goto fail;
	while (done < len) {
		n = write(fd, text + done, len - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	if (fsync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) == -1)
		goto fail;
	/* The rename is durable once the directory is. */
	if (fsync(dirfd) == -1)
		return -1;
	return 0;
fail:
	e = errno;
	if (fd != -1)
		close(fd);
	(void)unlink(tmp);
	errno = e;
	return -1;
}

struct sbuf {
	char	*p;
	size_t	 n, cap;
	int	 err;
};

static void
sb_add(struct sbuf *s, const void *p, size_t len)
{
	char *np;

	if (s->err || len == 0)
		return;
	if (s->n + len + 1 > s->cap) {
		s->cap = (s->n + len + 1) * 2;
		if ((np = realloc(s->p, s->cap)) == NULL) {
			s->err = 1;
			return;
		}
		s->p = np;
	}
	memcpy(s->p + s->n, p, len);
	s->n += len;
}

int
auth_text_edit(const char *text, size_t len, const struct auth_table *t,
    const struct auth_line_edit *e, const char *append, size_t alen,
    char **out, size_t *outlen)
{
	const char *s = text, *end = text + len, *nl, *b, *ln, *c1, *c2;
	const struct auth_user *u;
	const struct auth_line_edit *ed;
	struct sbuf sb = { NULL, 0, 0, 0 };

	/* The same lines as auth_parse(), so the same users in order. */
	while (s < end) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		for (b = s; b < nl && (*b == ' ' || *b == '\t'); b++)
			;
		for (ln = nl; ln > b && (ln[-1] == ' ' || ln[-1] == '\t' ||
		    ln[-1] == '\r'); ln--)
			;
		c1 = ln > b && *b != '#' ? memchr(b, ':', (size_t)(ln - b)) :
		    NULL;
		u = c1 != NULL ? auth_find_in(t, b, (size_t)(c1 - b)) : NULL;
		ed = u != NULL ? &e[u - t->users] : NULL;
		if (ed == NULL || (ed->secret == NULL && ed->perms == NULL)) {
			sb_add(&sb, s, (size_t)(nl - s) + (nl < end));
			s = nl + 1;
			continue;
		}
		for (c2 = ln; c2[-1] != ':'; c2--)
			;
		c2--;
		sb_add(&sb, s, (size_t)(c1 + 1 - s));
		if (ed->secret != NULL)
			sb_add(&sb, ed->secret, ed->secret_len);
		else
			sb_add(&sb, c1 + 1, (size_t)(c2 - c1 - 1));
		sb_add(&sb, ":", 1);
		if (ed->perms != NULL)
			sb_add(&sb, ed->perms, ed->perms_len);
		else
			sb_add(&sb, c2 + 1, (size_t)(ln - c2 - 1));
		sb_add(&sb, ln, (size_t)(nl - ln) + (nl < end));
		s = nl + 1;
	}
	if (alen > 0) {
		if (sb.n > 0 && sb.p[sb.n - 1] != '\n')
			sb_add(&sb, "\n", 1);
		sb_add(&sb, append, alen);
	}
	/* Every line deleted: an empty file. */
	if (!sb.err && sb.p == NULL && (sb.p = calloc(1, 1)) == NULL)
		sb.err = 1;
	if (sb.err) {
		if (sb.p != NULL)
			sodium_memzero(sb.p, sb.n);
		free(sb.p);
		errno = ENOMEM;
		return -1;
	}
	sb.p[sb.n] = '\0';	/* sb_add() keeps room for it */
	*out = sb.p;
	*outlen = sb.n;
	return 0;
}
