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
/*
 * 1 for the reserved names: those Kafka reserves for its internal topics
 * (__consumer_offsets, __transaction_state, __share_group_state and
 * __cluster_metadata) and flume.pid, the broker's lock file in the data
 * directory.  Valid names that no client may create, produce to or
 * delete, and that are never taken for a topic on disk.  Flume keeps
 * its own state where no topic name reaches (store/offsets.h).
 */
int	topic_name_reserved(const char *name, size_t len);
/* The i-th reserved name, NULL past the last. */
const char *topic_reserved_name(size_t i);
/* Same rule for group names. */
int	group_name_valid(const char *name, size_t len);

/*
 * Create <data_dir>/<topic>/ and topic.meta with the partition count and
 * the topic's id (TOPIC_ID_LEN bytes, proto/names.h; NULL: none
 * recorded, as Flume before topic ids wrote it); 0 or -1 (EINVAL: a bad
 * or reserved name, or partitions < 1).
 */
int	topic_meta_save(const char *data_dir, const char *topic,
	    int32_t partitions, const uint8_t *id);
/* fdatasync the topic's directory and data_dir (their entries); 0 or -1. */
int	topic_dir_sync(const char *data_dir, const char *topic);
/*
 * The broker's own internal topic (Kafka's committed offsets, proto/
 * coffsets.h): reserved for clients, made by the broker alone with
 * topic_internal_meta_save(), which takes no other name.
 */
#define TOPIC_INTERNAL_OFFSETS	"__consumer_offsets"
#define TOPIC_INTERNAL_TXNS	"__transaction_state"	/* issue 29 */
int	topic_internal_meta_save(const char *data_dir, const char *topic,
	    int32_t partitions, const uint8_t *id);
/*
 * Read topic.meta: the partition count, and into id (when not NULL;
 * TOPIC_ID_LEN bytes) the topic's id, all zero in a file that records
 * none.  -1 with ENOENT if the topic has no meta file, EBADMSG if it is
 * damaged.
 */
int	topic_meta_load(const char *data_dir, const char *topic,
	    int32_t *partitions, uint8_t *id);
/*
 * Names of every topic under data_dir (malloc'ed array of malloc'ed
 * names): valid names, not reserved, whose directory holds topic.meta.
 */
int	topic_list(const char *data_dir, char ***names, size_t *n);
/* snprintf the partition's directory path; -1 if it does not fit. */
int	topic_partition_dir(char *buf, size_t size, const char *data_dir,
	    const char *topic, int32_t partition);

#endif
