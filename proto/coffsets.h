/*
 * The records of Kafka's __consumer_offsets topic, in the formats of
 * Kafka's group coordinator (apache/kafka group-coordinator/src/main/
 * resources/common/message/: OffsetCommitKey.json, OffsetCommitValue.json,
 * GroupMetadataKey.json, GroupMetadataValue.json), so that Kafka's tools,
 * Burrow and lag exporters read Flume's committed offsets as Kafka's.
 *
 * A key starts with its version (int16): 0 and 1 are an offset commit
 * (group, topic, partition), 2 a group's metadata (group).  A value starts
 * with its own version.  A null value is a tombstone: the offset, or the
 * group, is deleted.  Strings are int16-length UTF-8, nullable ones -1;
 * bytes int32-length.  Versions read here: commit values 0-4 (4 is
 * flexible: compact lengths, tagged fields, skipped), group values 0-3.
 *
 * The broker writes commit keys v1 and values v1 (offset, metadata,
 * commit timestamp, expire timestamp -1): every reader of the topic,
 * Burrow 1.2 among them, decodes v1, not all decode v3.
 */
#ifndef FLUME_PROTO_COFFSETS_H
#define FLUME_PROTO_COFFSETS_H

#include <stddef.h>
#include <stdint.h>

#define COFFSETS_TOPIC		"__consumer_offsets"
#define COFFSETS_TOPIC_LEN	18

/* Key versions. */
#define COFFSETS_KEY_COMMIT_V0	0
#define COFFSETS_KEY_COMMIT_V1	1
#define COFFSETS_KEY_GROUP	2

struct coffsets_key {
	int16_t		 version;	/* COFFSETS_KEY_* */
	const char	*group;		/* into the decoded bytes */
	size_t		 group_len;
	const char	*topic;		/* commit keys only */
	size_t		 topic_len;
	int32_t		 partition;
};

struct coffsets_commit {
	int16_t		 version;	/* value version, 0..4 */
	int64_t		 offset;
	int32_t		 leader_epoch;	/* v3+, -1 none */
	const char	*metadata;
	size_t		 metadata_len;
	int64_t		 commit_ts;
	int64_t		 expire_ts;	/* v1 only, -1 none */
};

struct coffsets_member {
	const char	*id;
	size_t		 id_len;
	const char	*instance_id;	/* v3+, NULL: null */
	size_t		 instance_id_len;
	const char	*client_id;
	size_t		 client_id_len;
	const char	*client_host;
	size_t		 client_host_len;
	int32_t		 rebalance_timeout_ms;	/* v1+ */
	int32_t		 session_timeout_ms;
	const uint8_t	*subscription;
	size_t		 subscription_len;
	const uint8_t	*assignment;
	size_t		 assignment_len;
};

struct coffsets_group {
	int16_t		 version;	/* value version, 0..3 */
	const char	*protocol_type;
	size_t		 protocol_type_len;
	int32_t		 generation;
	const char	*protocol;	/* NULL: null */
	size_t		 protocol_len;
	const char	*leader;	/* NULL: null */
	size_t		 leader_len;
	int64_t		 state_ts;	/* v2+, -1 none */
	struct coffsets_member *members;
	int32_t		 nmembers;
};

/*
 * Kafka's partition of a group: Utils.abs(groupId.hashCode()) % n, with
 * Java's String.hashCode over the UTF-16 code units of the (UTF-8) name.
 */
int32_t	coffsets_partition_for(const char *group, size_t len, int32_t n);

/*
 * Encoders: the bytes into buf[0..cap); the length written, or the
 * length needed when larger than cap (nothing is then written past cap).
 */
size_t	coffsets_commit_key(uint8_t *buf, size_t cap, const char *group,
	    size_t glen, const char *topic, size_t tlen, int32_t partition);
/* Versions 0-3 (v->version). */
size_t	coffsets_commit_value(uint8_t *buf, size_t cap,
	    const struct coffsets_commit *v);
size_t	coffsets_group_key(uint8_t *buf, size_t cap, const char *group,
	    size_t glen);
/* Versions 0-3 (g->version). */
size_t	coffsets_group_value(uint8_t *buf, size_t cap,
	    const struct coffsets_group *g);

/*
 * Decoders: 0, or -1 when the bytes are short, carry trailing bytes, or
 * have a version not read here.  Pointers point into buf.
 */
int	coffsets_key_decode(const uint8_t *buf, size_t len,
	    struct coffsets_key *k);
int	coffsets_commit_decode(const uint8_t *buf, size_t len,
	    struct coffsets_commit *v);
/* members[] gets at most cap members; *g->nmembers the count in the value. */
int	coffsets_group_decode(const uint8_t *buf, size_t len,
	    struct coffsets_group *g, struct coffsets_member *members,
	    int32_t cap);

#endif
