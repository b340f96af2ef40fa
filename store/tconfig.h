/*
 * A topic's dynamic settings on disk: <data_dir>/<topic>/topic.config,
 * Kafka's names, one "key=value" line each (proto/tconf.h), replaced
 * atomically (temp file, fdatasync, rename, fsync the directory).  The
 * writer saves it; recovery reads it back.  It lives in the topic's
 * directory, so a deleted topic's settings go with it.
 */
#ifndef FLUME_STORE_TCONFIG_H
#define FLUME_STORE_TCONFIG_H

#include <stddef.h>

#include "proto/tconf.h"

#define TOPIC_CONFIG	"topic.config"

/* Save t as topic's topic.config (the directory exists): 0 or -1. */
int	topic_config_save(const char *data_dir, const char *topic,
	    const struct tconf *t);
/*
 * Read topic's topic.config into t: 0; -1 with ENOENT when it has none
 * (t empty), EBADMSG when a line is bad (t holds the good ones, why
 * says which).
 */
int	topic_config_load(const char *data_dir, const char *topic,
	    struct tconf *t, char *why, size_t whylen);

#endif
