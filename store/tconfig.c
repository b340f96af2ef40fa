/*
 * topic.config; see tconfig.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/file.h"
#include "store/tconfig.h"
#include "store/topic.h"

/* Every key at once is well below this. */
#define TOPIC_CONFIG_MAX	4096

static int
config_dir(char *buf, size_t size, const char *data_dir, const char *topic)
{
	int n;

	if (!topic_name_valid(topic, strlen(topic))) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(buf, size, "%s/%s", data_dir, topic);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
topic_config_save(const char *data_dir, const char *topic,
    const struct tconf *t)
{
	char dir[PATH_MAX], text[TOPIC_CONFIG_MAX];
	int n;

	if (config_dir(dir, sizeof(dir), data_dir, topic) == -1 ||
	    (n = tconf_format(t, text, sizeof(text))) == -1)
		return -1;
	return store_file_replace(dir, TOPIC_CONFIG, text, (size_t)n);
}

int
topic_config_load(const char *data_dir, const char *topic, struct tconf *t,
    char *why, size_t whylen)
{
	char dir[PATH_MAX], path[PATH_MAX + sizeof(TOPIC_CONFIG) + 1], *buf;
	size_t len;
	int rc;

	memset(t, 0, sizeof(*t));
	if (whylen > 0)
		why[0] = '\0';
	if (config_dir(dir, sizeof(dir), data_dir, topic) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, TOPIC_CONFIG);
	if (store_file_read(path, TOPIC_CONFIG_MAX, &buf, &len) == -1)
		return -1;
	rc = tconf_parse_file(buf, len, t, why, whylen);
	free(buf);
	if (rc == -1) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}
