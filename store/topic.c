/*
 * Topic names and topic directories.  Names are checked byte by byte
 * against a short allow-list before they are ever joined into a path, so
 * no name can climb out of the data directory or hide a NUL.
 *
 * topic.meta is text with a checksum line:
 *	flume-topic 1
 *	partitions N
 *	crc32c XXXXXXXX		(CRC-32C of the lines above, hex)
 */
#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/crc32c.h"
#include "proto/names.h"
#include "proto/msg.h"
#include "store/file.h"
#include "store/topic.h"

#define TOPIC_META	"topic.meta"
#define TOPIC_META_MAX	4096

static int
name_valid(const char *name, size_t len, size_t max)
{
	size_t i;
	char c;

	if (name == NULL || len == 0 || len > max)
		return 0;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	for (i = 0; i < len; i++) {
		c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

int
topic_name_valid(const char *name, size_t len)
{
	return name_valid(name, len, TOPIC_NAME_MAX);
}

int
group_name_valid(const char *name, size_t len)
{
	return name_valid(name, len, GROUP_NAME_MAX);
}

/*
 * Kafka's internal topics (Topic.isInternal) and its KRaft log; and the
 * broker's lock file in the data directory, whose name a topic could
 * have (a delete of that topic removed the lock).
 */
static const char *const reserved[] = { "__consumer_offsets",
    "__transaction_state", "__share_group_state", "__cluster_metadata",
    "flume.pid" };

const char *
topic_reserved_name(size_t i)
{
	return i < sizeof(reserved) / sizeof(reserved[0]) ? reserved[i] : NULL;
}

int
topic_name_reserved(const char *name, size_t len)
{
	const char *r;
	size_t i;

	if (name == NULL)
		return 0;
	for (i = 0; (r = topic_reserved_name(i)) != NULL; i++)
		if (strlen(r) == len && memcmp(r, name, len) == 0)
			return 1;
	return 0;
}

static int
topic_check(const char *topic)
{
	if (topic == NULL || !topic_name_valid(topic, strlen(topic))) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int
topic_dir(char *buf, size_t size, const char *data_dir, const char *topic)
{
	int n;

	n = snprintf(buf, size, "%s/%s", data_dir, topic);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int
topic_meta_write(const char *data_dir, const char *topic, int32_t partitions,
    const uint8_t *id, int internal)
{
	char dir[PATH_MAX], text[160];
	int n, m, i;

	if (topic_check(topic) == -1)
		return -1;
	if (partitions <= 0 || (topic_name_reserved(topic, strlen(topic)) &&
	    !(internal && (strcmp(topic, TOPIC_INTERNAL_OFFSETS) == 0 ||
	    strcmp(topic, TOPIC_INTERNAL_TXNS) == 0)))) {
		errno = EINVAL;
		return -1;
	}
	if (topic_dir(dir, sizeof(dir), data_dir, topic) == -1 ||
	    store_mkdir(dir) == -1)
		return -1;
	n = snprintf(text, sizeof(text), "flume-topic 1\npartitions %" PRId32
	    "\n", partitions);
	if (id != NULL) {
		n += snprintf(text + n, sizeof(text) - (size_t)n, "id ");
		for (i = 0; i < TOPIC_ID_LEN; i++)
			n += snprintf(text + n, sizeof(text) - (size_t)n,
			    "%02x", id[i]);
		n += snprintf(text + n, sizeof(text) - (size_t)n, "\n");
	}
	m = snprintf(text + n, sizeof(text) - (size_t)n, "crc32c %08" PRIx32
	    "\n", crc32c(0, text, (size_t)n));
	return store_file_replace(dir, TOPIC_META, text, (size_t)(n + m));
}

int
topic_meta_save(const char *data_dir, const char *topic, int32_t partitions,
    const uint8_t *id)
{
	return topic_meta_write(data_dir, topic, partitions, id, 0);
}

int
topic_internal_meta_save(const char *data_dir, const char *topic,
    int32_t partitions, const uint8_t *id)
{
	return topic_meta_write(data_dir, topic, partitions, id, 1);
}

int
topic_dir_sync(const char *data_dir, const char *topic)
{
	char dir[PATH_MAX];

	if (topic_check(topic) == -1 ||
	    topic_dir(dir, sizeof(dir), data_dir, topic) == -1 ||
	    store_dir_sync(dir) == -1)
		return -1;
	return store_dir_sync(data_dir);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "id <32 hex digits>\n" and nothing after it: 0, else -1. */
static int
topic_id_parse(const char *s, uint8_t id[TOPIC_ID_LEN])
{
	static const uint8_t zero[TOPIC_ID_LEN];
	int i, hi, lo;

	if (strncmp(s, "id ", 3) != 0)
		return -1;
	s += 3;
	for (i = 0; i < TOPIC_ID_LEN; i++, s += 2) {
		if ((hi = hexval(s[0])) < 0 || (lo = hexval(s[1])) < 0)
			return -1;
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	if (strcmp(s, "\n") != 0 || memcmp(id, zero, TOPIC_ID_LEN) == 0)
		return -1;
	return 0;
}

int
topic_meta_load(const char *data_dir, const char *topic, int32_t *partitions,
    uint8_t *id)
{
	uint8_t got[TOPIC_ID_LEN];
	char dir[PATH_MAX], path[PATH_MAX], *buf, *end;
	size_t len, body;
	long long v;
	int n;

	if (topic_check(topic) == -1 ||
	    topic_dir(dir, sizeof(dir), data_dir, topic) == -1)
		return -1;
	n = snprintf(path, sizeof(path), "%s/%s", dir, TOPIC_META);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (store_file_read(path, TOPIC_META_MAX, &buf, &len) == -1)
		return -1;
	if (store_text_check(buf, len, &body) == -1)
		goto bad;
	buf[body] = '\0';
	if (strncmp(buf, "flume-topic 1\npartitions ", 25) != 0)
		goto bad;
	if (buf[25] < '0' || buf[25] > '9')
		goto bad;
	errno = 0;
	v = strtoll(buf + 25, &end, 10);
	if (errno != 0 || v <= 0 || v > INT32_MAX || *end++ != '\n')
		goto bad;
	memset(got, 0, sizeof(got));
	if (*end != '\0' && topic_id_parse(end, got) == -1)
		goto bad;
	free(buf);
	*partitions = (int32_t)v;
	if (id != NULL)
		memcpy(id, got, TOPIC_ID_LEN);
	return 0;
bad:
	free(buf);
	errno = EBADMSG;
	return -1;
}

/*
 * A topic is a directory with a valid name holding a topic.meta file.
 * A reserved name is not, even with topic.meta: a client could make
 * __consumer_offsets a topic before those names were refused.
 */
static size_t
topic_dir_keep(const char *data_dir, const char *name, size_t len)
{
	char path[PATH_MAX];
	struct stat st;
	int k;

	if (!topic_name_valid(name, len) || topic_name_reserved(name, len))
		return 0;
	k = snprintf(path, sizeof(path), "%s/%s/%s", data_dir, name, TOPIC_META);
	if (k < 0 || (size_t)k >= sizeof(path) ||
	    stat(path, &st) == -1 || !S_ISREG(st.st_mode))
		return 0;
	return len;
}

int
topic_list(const char *data_dir, char ***names, size_t *np)
{
	return store_dir_names(data_dir, topic_dir_keep, names, np);
}

int
topic_partition_dir(char *buf, size_t size, const char *data_dir,
    const char *topic, int32_t partition)
{
	int n;

	if (topic_check(topic) == -1)
		return -1;
	if (partition < 0) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(buf, size, "%s/%s/partition-%" PRId32, data_dir, topic,
	    partition);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}
