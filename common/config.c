/*
 * Read-only questions every role asks of the configuration; parsing it
 * is the master's (master/config.c).
 */
#include <stdint.h>
#include <string.h>

#include "common/config.h"

const struct topic_config *
config_topic(const struct config *c, const char *name)
{
	size_t	i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < c->ntopics; i++)
		if (strcmp(c->topics[i].name, name) == 0)
			return &c->topics[i];
	return NULL;
}

int32_t
config_topic_partitions(const struct config *c, const char *name)
{
	const struct topic_config	*t = config_topic(c, name);

	if (t != NULL && t->partitions > 0)
		return t->partitions;
	return c->partitions;
}

int64_t
config_get_field(const struct config *c, size_t off, size_t width)
{
	int64_t v64;
	int32_t v32;

	if (width == sizeof(v32) && off <= sizeof(*c) - sizeof(v32)) {
		memcpy(&v32, (const char *)c + off, sizeof(v32));
		return v32;
	}
	if (width == sizeof(v64) && off <= sizeof(*c) - sizeof(v64)) {
		memcpy(&v64, (const char *)c + off, sizeof(v64));
		return v64;
	}
	return 0;
}

int
config_set_field(struct config *c, size_t off, size_t width, int64_t v)
{
	int32_t v32 = (int32_t)v;

	if (width == sizeof(v32) && off <= sizeof(*c) - sizeof(v32))
		memcpy((char *)c + off, &v32, sizeof(v32));
	else if (width == sizeof(v) && off <= sizeof(*c) - sizeof(v))
		memcpy((char *)c + off, &v, sizeof(v));
	else
		return -1;
	return 0;
}
