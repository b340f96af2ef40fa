/*
 * A topic's settings with Kafka's names and meanings (issue 27): one
 * table of keys (name, type, range, Kafka's default, Kafka's broker
 * synonym, flume.conf's spelling, documentation) and the pure functions
 * every role uses on it: parse and validate a value, print it, parse and
 * print a topic.config file, merge a set of overrides.  No I/O, no
 * global state: the master (flume.conf), the workers (API input) and the
 * writer (topic.config) share it, and tests/unit/test_tconf.c tests it.
 *
 * A struct tconf is a set of values: bit k of set says key k is given.
 * Values are int64: numbers as they are, booleans 0/1, an enum its index
 * (tconf_enum_*), cleanup.policy a bit set (TCONF_CLEANUP_*), the ratio
 * min.cleanable.dirty.ratio in millionths.
 */
#ifndef FLUME_PROTO_TCONF_H
#define FLUME_PROTO_TCONF_H

#include <stddef.h>
#include <stdint.h>

enum tconf_key {
	TC_CLEANUP_POLICY = 0,
	TC_COMPRESSION_TYPE,
	TC_DELETE_RETENTION_MS,
	TC_FLUSH_MESSAGES,
	TC_FLUSH_MS,
	TC_INDEX_INTERVAL_BYTES,
	TC_MAX_COMPACTION_LAG_MS,
	TC_MAX_MESSAGE_BYTES,
	TC_TS_AFTER_MAX_MS,
	TC_TS_BEFORE_MAX_MS,
	TC_TS_TYPE,
	TC_MIN_CLEANABLE_DIRTY_RATIO,
	TC_MIN_COMPACTION_LAG_MS,
	TC_MIN_INSYNC_REPLICAS,
	TC_RETENTION_BYTES,
	TC_RETENTION_MS,
	TC_SEGMENT_BYTES,
	TC_SEGMENT_MS,
	TC_UNCLEAN_LEADER_ELECTION,
	TC_NKEYS
};

/* Value kinds, numbered as Kafka's DescribeConfigs ConfigType (v3+). */
enum tconf_type {
	TCT_BOOLEAN = 1,
	TCT_STRING = 2,
	TCT_INT = 3,
	TCT_LONG = 5,
	TCT_DOUBLE = 6,
	TCT_LIST = 7
};

/* cleanup.policy bits. */
#define TCONF_CLEANUP_DELETE	0x1
#define TCONF_CLEANUP_COMPACT	0x2

/* message.timestamp.type values. */
#define TCONF_TS_CREATE		0
#define TCONF_TS_LOG_APPEND	1

/* compression.type values (proto/compress.h's codecs are 1..4). */
enum tconf_codec {
	TCONF_CODEC_PRODUCER = 0,
	TCONF_CODEC_GZIP,
	TCONF_CODEC_SNAPPY,
	TCONF_CODEC_LZ4,
	TCONF_CODEC_ZSTD,
	TCONF_CODEC_UNCOMPRESSED
};

struct tconf_def {
	const char	*name;		/* Kafka's topic key */
	const char	*broker;	/* Kafka's broker synonym, or NULL */
	const char	*flume;		/* flume.conf's spelling */
	enum tconf_type	 type;
	int64_t		 min, max;	/* numbers: inclusive */
	int		 minus1;	/* -1 is also valid (unlimited) */
	int64_t		 def;		/* Kafka's default */
	const char	*doc;
};

struct tconf {
	uint32_t	set;		/* bit k: v[k] is given */
	uint32_t	pad;
	int64_t		v[TC_NKEYS];
};

extern const struct tconf_def tconf_defs[TC_NKEYS];

/* The key named name (Kafka's topic name) into *k: 0, or -1. */
int	tconf_key_find(const char *name, size_t len, enum tconf_key *k);
/*
 * The key a flume.conf line names, by its flume.conf spelling, Kafka's
 * topic name or Kafka's broker synonym: 0, or -1.
 */
int	tconf_key_find_conf(const char *name, enum tconf_key *k);
/*
 * Parse and validate a value of key k (len bytes, not NUL-terminated)
 * into *out: 0, or -1 with a message naming the key in why.
 */
int	tconf_parse(enum tconf_key k, const char *s, size_t len, int64_t *out,
	    char *why, size_t whylen);
/* Print v of key k as Kafka prints it ("delete", "0.5", "604800000"). */
void	tconf_print(enum tconf_key k, int64_t v, char *buf, size_t size);
/* Give or remove key k in t. */
void	tconf_put(struct tconf *t, enum tconf_key k, int64_t v);
void	tconf_del(struct tconf *t, enum tconf_key k);
int	tconf_has(const struct tconf *t, enum tconf_key k);
/*
 * The lines of a topic.config ("key=value\n", Kafka's names, key order)
 * of t into buf: the length, or -1 with ENOSPC.
 */
int	tconf_format(const struct tconf *t, char *buf, size_t size);
/*
 * Parse a topic.config's text (len bytes) into t: 0, or -1 with the
 * first bad line's message in why (t then holds the good lines).
 */
int	tconf_parse_file(const char *text, size_t len, struct tconf *t,
	    char *why, size_t whylen);
/*
 * Apply a list key's APPEND (add 1) or SUBTRACT (add 0) of value s to
 * *v (cleanup.policy only): 0, or -1 with why.
 */
int	tconf_list_edit(enum tconf_key k, int64_t *v, const char *s, size_t len,
	    int add, char *why, size_t whylen);

#endif
