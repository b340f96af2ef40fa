/*
 * flume.conf: `key = value` lines, `#` comments, and `[topic NAME]`
 * sections that override partitions and the log settings for one topic.
 * Every key is described once in the table in config.c (name, type, min,
 * max, default); sizes accept K/M/G suffixes, durations ms/s/m/h/d.
 * Errors are "file:line: message".
 */
#ifndef FLUME_MASTER_CONFIG_H
#define FLUME_MASTER_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "store/plog.h"

/* Where console_dir points by default: the GNUmakefile sets the install's. */
#ifndef FLUME_CONSOLE_DIR
#define FLUME_CONSOLE_DIR	"/usr/local/share/flume/console"
#endif

/* Defaults for everything; data_dir "./data", listen 127.0.0.1:9192. */
void	config_defaults(struct config *c);
/*
 * Read path into c (over the defaults).  0, or -1 with a
 * "file:line: message" in err.
 */
int	config_load(struct config *c, const char *path, char *err, size_t errlen);
void	config_free(struct config *c);
/*
 * Call fn(key, arg) for every global key whose value differs between a
 * and b, in table order; "[topic NAME]" for a topic section that was
 * added, removed or changed.  Returns the number of differences.
 */
int	config_diff(const struct config *a, const struct config *b,
	    void (*fn)(const char *key, void *arg), void *arg);
/*
 * The reload column of the key table: the settings a SIGHUP may change
 * without a restart, and where each lives in struct config (numbers
 * only, so width is 4 or 8).  master/live.c copies and publishes by it.
 */
struct config_field {
	const char	*name;
	size_t		 off;
	size_t		 width;
};
/* 1 if a reload may change key (a flume.conf key name). */
int	config_key_reloadable(const char *key);
/* The reloadable keys in table order, at most max into out; how many there are. */
size_t	config_reloadable(struct config_field *out, size_t max);
/* Copy every reloadable setting from src to dst. */
void	config_copy_reloadable(struct config *dst, const struct config *src);

/* The log settings of a topic (its section, else the defaults). */
void	config_topic_log(const struct config *c, const char *name, struct plog_config *out);
/* Parse "64K"/"8M"/"1G"/"123" -> bytes; "250ms"/"5s"/"7d" -> ms. 0 or -1. */
int	config_parse_size(const char *s, uint64_t *out);
int	config_parse_duration(const char *s, int64_t *out);

#endif
