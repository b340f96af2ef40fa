/*
 * Topic names and the topic's directory.  A name is [A-Za-z0-9._-]{1,249}
 * and not "." or ".."; anything else is refused before it reaches the
 * filesystem.  A topic directory holds partition-N/ subdirectories and a
 * small "topic.meta" file with the partition count, written atomically.
 */
#ifndef FLUME_STORE_TOPIC_H
#define FLUME_STORE_TOPIC_H

#include <stddef.h>
#include <stdint.h>

int	topic_name_valid(const char *name, size_t len);
/* Same rule for group names. */
int	group_name_valid(const char *name, size_t len);

/* Create <data_dir>/<topic>/ and topic.meta; 0 or -1. */
int	topic_meta_save(const char *data_dir, const char *topic, int32_t partitions);
/* fdatasync the topic's directory and data_dir (their entries); 0 or -1. */
int	topic_dir_sync(const char *data_dir, const char *topic);
/* -1 with ENOENT if the topic has no meta file. */
int	topic_meta_load(const char *data_dir, const char *topic, int32_t *partitions);
/* Names of every topic under data_dir (malloc'ed array of malloc'ed names). */
int	topic_list(const char *data_dir, char ***names, size_t *n);
/* snprintf the partition's directory path; -1 if it does not fit. */
int	topic_partition_dir(char *buf, size_t size, const char *data_dir,
	    const char *topic, int32_t partition);

#endif
