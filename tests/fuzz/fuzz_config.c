/*
 * libFuzzer target: the flume.conf parser (config_load() on a memfd
 * holding the input) and the size and duration parsers.  A load either
 * fails with a "path:" message or yields a configuration that passes the
 * cross-key checks the parser promises.
 */
#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "master/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char path[64], err[PATH_MAX + 512], *s;
	uint64_t u;
	int64_t v;
	int fd;

	/* The number parsers take a NUL-terminated string. */
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)config_parse_size(s, &u);
	(void)config_parse_duration(s, &v);
	free(s);

	if ((fd = memfd_create("fuzzconf", MFD_CLOEXEC)) == -1)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (config_load(&c, path, err, sizeof(err)) == 0) {
		if ((uint64_t)c.max_message_bytes > c.ring_size / 2 ||
		    (uint64_t)c.max_message_bytes + 1024 > c.max_request_bytes ||
		    (uint32_t)c.partitions > c.max_partitions ||
		    c.ntopics > c.max_topics || c.ring_size % 8 != 0)
			abort();
		config_free(&c);
	} else if (strncmp(err, path, strlen(path)) != 0 ||
	    memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	close(fd);
	return 0;
}
