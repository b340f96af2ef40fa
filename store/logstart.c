/*
 * The log start checkpoint of a partition (store/logstart.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/crc32c.h"
#include "store/file.h"
#include "store/logstart.h"

#define LOGSTART_MAX	128	/* bytes of a file that can be ours */
#define LOGSTART_HEAD	"flume-log-start 1\noffset "

int
logstart_save(const char *dir, int64_t offset)
{
	char text[LOGSTART_MAX];
	int n, m;

	if (offset < 0) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(text, sizeof(text), LOGSTART_HEAD "%" PRId64 "\n", offset);
	m = snprintf(text + n, sizeof(text) - (size_t)n, "crc32c %08" PRIx32
	    "\n", crc32c(0, text, (size_t)n));
	return store_file_replace(dir, LOGSTART_FILE, text, (size_t)(n + m));
}

int
logstart_load(const char *dir, int64_t *offset)
{
	char path[4096], *buf, *end;
	size_t len, body, hl = strlen(LOGSTART_HEAD);
	long long v;
	int n;

	*offset = -1;
	n = snprintf(path, sizeof(path), "%s/%s", dir, LOGSTART_FILE);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (store_file_read(path, LOGSTART_MAX, &buf, &len) == -1)
		return errno == ENOENT ? 0 : -1;
	if (store_text_check(buf, len, &body) == -1)
		goto bad;
	buf[body] = '\0';
	if (strncmp(buf, LOGSTART_HEAD, hl) != 0 || buf[hl] < '0' ||
	    buf[hl] > '9')
		goto bad;
	errno = 0;
	v = strtoll(buf + hl, &end, 10);
	if (errno != 0 || v < 0 || strcmp(end, "\n") != 0)
		goto bad;
	free(buf);
	*offset = (int64_t)v;
	return 0;
bad:
	free(buf);
	errno = EBADMSG;
	return -1;
}
