/*
 * The topic settings table and its pure parse/print functions (tconf.h).
 * Defaults are Kafka 3.9's.  Numbers are plain decimal as Kafka takes
 * them (no suffixes: a Kafka tool sends "604800000"); flume.conf's
 * suffixed forms ("7d", "1G") are master/config.c's, which hands the
 * number it parsed to tconf_put().
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/tconf.h"

#define LMAX	INT64_MAX
#define IMAX	INT32_MAX

const struct tconf_def tconf_defs[TC_NKEYS] = {
	[TC_CLEANUP_POLICY] = { "cleanup.policy", "log.cleanup.policy",
	    "cleanup_policy", TCT_LIST, 0, 0, 0, TCONF_CLEANUP_DELETE,
	    "delete: old segments are removed by retention.ms and "
	    "retention.bytes; compact: never removed by time or size (the "
	    "cleaner is not built yet); compact,delete: both" },
	[TC_COMPRESSION_TYPE] = { "compression.type", "compression.type",
	    "compression_type", TCT_STRING, 0, 0, 0, TCONF_CODEC_PRODUCER,
	    "producer keeps a batch as sent; uncompressed, gzip, snappy, lz4 "
	    "or zstd is the codec batches are stored with" },
	[TC_DELETE_RETENTION_MS] = { "delete.retention.ms",
	    "log.cleaner.delete.retention.ms", "delete_retention_ms",
	    TCT_LONG, 0, LMAX, 0, 86400000,
	    "how long compaction keeps tombstones (compaction is not built yet)" },
	[TC_FLUSH_MESSAGES] = { "flush.messages",
	    "log.flush.interval.messages", "flush_messages", TCT_LONG, 1, LMAX,
	    0, LMAX, "fdatasync a partition after this many records" },
	[TC_FLUSH_MS] = { "flush.ms", "log.flush.interval.ms",
	    "flush_interval_ms", TCT_LONG, 0, LMAX, 0, LMAX,
	    "fdatasync a partition at least this often (ms)" },
	[TC_INDEX_INTERVAL_BYTES] = { "index.interval.bytes",
	    "log.index.interval.bytes", "index_interval_bytes", TCT_INT, 1,
	    IMAX, 0, 4096, "bytes of log between two offset index entries" },
	[TC_MAX_COMPACTION_LAG_MS] = { "max.compaction.lag.ms",
	    "log.cleaner.max.compaction.lag.ms", "max_compaction_lag_ms",
	    TCT_LONG, 1, LMAX, 0, LMAX,
	    "longest a record stays uncompacted (compaction is not built yet)" },
	[TC_MAX_MESSAGE_BYTES] = { "max.message.bytes", "message.max.bytes",
	    "max_message_bytes", TCT_INT, 64, IMAX, 0, 1048588,
	    "largest record batch a produce may append" },
	[TC_TS_AFTER_MAX_MS] = { "message.timestamp.after.max.ms",
	    "log.message.timestamp.after.max.ms", "message_timestamp_after_max_ms",
	    TCT_LONG, 0, LMAX, 0, LMAX,
	    "a CreateTime timestamp may be at most this far in the future (ms)" },
	[TC_TS_BEFORE_MAX_MS] = { "message.timestamp.before.max.ms",
	    "log.message.timestamp.before.max.ms",
	    "message_timestamp_before_max_ms", TCT_LONG, 0, LMAX, 0, LMAX,
	    "a CreateTime timestamp may be at most this far in the past (ms)" },
	[TC_TS_TYPE] = { "message.timestamp.type",
	    "log.message.timestamp.type", "message_timestamp_type", TCT_STRING,
	    0, 0, 0, TCONF_TS_CREATE,
	    "CreateTime keeps the producer's timestamps; LogAppendTime stamps "
	    "the broker's time" },
	[TC_MIN_CLEANABLE_DIRTY_RATIO] = { "min.cleanable.dirty.ratio",
	    "log.cleaner.min.cleanable.ratio", "min_cleanable_dirty_ratio",
	    TCT_DOUBLE, 0, 1000000, 0, 500000,
	    "dirty share of a log that starts compaction (not built yet)" },
	[TC_MIN_COMPACTION_LAG_MS] = { "min.compaction.lag.ms",
	    "log.cleaner.min.compaction.lag.ms", "min_compaction_lag_ms",
	    TCT_LONG, 0, LMAX, 0, 0,
	    "shortest a record stays uncompacted (compaction is not built yet)" },
	[TC_MIN_INSYNC_REPLICAS] = { "min.insync.replicas",
	    "min.insync.replicas", "min_insync_replicas", TCT_INT, 1, 1, 0, 1,
	    "one broker holds one copy: only 1" },
	[TC_RETENTION_BYTES] = { "retention.bytes", "log.retention.bytes",
	    "retention_bytes", TCT_LONG, 0, LMAX, 1, -1,
	    "a partition's closed segments are deleted beyond this size; -1 "
	    "never" },
	[TC_RETENTION_MS] = { "retention.ms", "log.retention.ms",
	    "retention_ms", TCT_LONG, 0, LMAX, 1, 604800000,
	    "a closed segment is deleted once its newest record is this old; "
	    "-1 never" },
	[TC_SEGMENT_BYTES] = { "segment.bytes", "log.segment.bytes",
	    "segment_bytes", TCT_INT, 4096, IMAX, 0, 1073741824,
	    "a segment is rolled at this size" },
	[TC_SEGMENT_MS] = { "segment.ms", "log.roll.ms", "segment_ms",
	    TCT_LONG, 1, LMAX, 0, 604800000,
	    "an append to a segment older than this rolls a new one" },
	[TC_UNCLEAN_LEADER_ELECTION] = { "unclean.leader.election.enable",
	    "unclean.leader.election.enable", "unclean_leader_election_enable",
	    TCT_BOOLEAN, 0, 1, 0, 0, "one broker: never used" },
};

static const char *const codec_names[] = {
	[TCONF_CODEC_PRODUCER] = "producer",
	[TCONF_CODEC_GZIP] = "gzip",
	[TCONF_CODEC_SNAPPY] = "snappy",
	[TCONF_CODEC_LZ4] = "lz4",
	[TCONF_CODEC_ZSTD] = "zstd",
	[TCONF_CODEC_UNCOMPRESSED] = "uncompressed",
};
#define NCODECS	(sizeof(codec_names) / sizeof(codec_names[0]))

static int
eq(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

int
tconf_key_find(const char *name, size_t len, enum tconf_key *k)
{
	int i;

	for (i = 0; i < TC_NKEYS; i++)
		if (strlen(tconf_defs[i].name) == len &&
		    memcmp(tconf_defs[i].name, name, len) == 0) {
			*k = (enum tconf_key)i;
			return 0;
		}
	return -1;
}

int
tconf_key_find_conf(const char *name, enum tconf_key *k)
{
	int i;

	for (i = 0; i < TC_NKEYS; i++)
		if (strcmp(tconf_defs[i].name, name) == 0 ||
		    strcmp(tconf_defs[i].flume, name) == 0 ||
		    (tconf_defs[i].broker != NULL &&
		    strcmp(tconf_defs[i].broker, name) == 0)) {
			*k = (enum tconf_key)i;
			return 0;
		}
	return -1;
}

static int
bad(char *why, size_t whylen, enum tconf_key k, const char *s, size_t len,
    const char *expected)
{
	if (whylen > 0)
		snprintf(why, whylen, "invalid value '%.*s' for %s: expected %s",
		    (int)(len > 64 ? 64 : len), s, tconf_defs[k].name, expected);
	return -1;
}

/* A decimal integer, optionally negative, of exactly len bytes. */
static int
parse_int64(const char *s, size_t len, int64_t *out)
{
	char buf[32], *end;
	long long v;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!isdigit((unsigned char)buf[0]) && !(buf[0] == '-' &&
	    isdigit((unsigned char)buf[1])))
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* "0", "0.5", "1", "1.0": millionths, 0..1000000. */
static int
parse_ratio(const char *s, size_t len, int64_t *out)
{
	int64_t whole = 0, frac = 0, scale = 100000;
	size_t i = 0;

	if (len == 0 || !isdigit((unsigned char)s[0]))
		return -1;
	for (; i < len && isdigit((unsigned char)s[i]); i++) {
		whole = whole * 10 + (s[i] - '0');
		if (whole > 1)
			return -1;
	}
	if (i < len) {
		if (s[i++] != '.' || i == len)
			return -1;
		for (; i < len; i++) {
			if (!isdigit((unsigned char)s[i]))
				return -1;
			frac += (s[i] - '0') * scale;
			scale /= 10;
		}
	}
	if (whole * 1000000 + frac > 1000000)
		return -1;
	*out = whole * 1000000 + frac;
	return 0;
}

/* The cleanup.policy bits of a list "delete", "compact,delete", "" (none). */
static int
parse_policy(const char *s, size_t len, int64_t *out)
{
	size_t i = 0, j;
	int64_t v = 0;

	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == ','))
			i++;
		for (j = i; j < len && s[j] != ','; j++)
			;
		while (j > i && s[j - 1] == ' ')
			j--;
		if (j == i)
			break;
		if (eq(s + i, j - i, "delete"))
			v |= TCONF_CLEANUP_DELETE;
		else if (eq(s + i, j - i, "compact"))
			v |= TCONF_CLEANUP_COMPACT;
		else
			return -1;
		for (i = j; i < len && s[i] != ','; i++)
			;
	}
	*out = v;
	return 0;
}

int
tconf_parse(enum tconf_key k, const char *s, size_t len, int64_t *out,
    char *why, size_t whylen)
{
	const struct tconf_def *d = &tconf_defs[k];
	char range[96];
	int64_t v;
	size_t i;

	switch (k) {
	case TC_CLEANUP_POLICY:
		if (parse_policy(s, len, &v) == -1 || v == 0)
			return bad(why, whylen, k, s, len,
			    "delete, compact or compact,delete");
		*out = v;
		return 0;
	case TC_COMPRESSION_TYPE:
		for (i = 0; i < NCODECS; i++)
			if (eq(s, len, codec_names[i])) {
				*out = (int64_t)i;
				return 0;
			}
		return bad(why, whylen, k, s, len,
		    "producer, uncompressed, gzip, snappy, lz4 or zstd");
	case TC_TS_TYPE:
		if (eq(s, len, "CreateTime") || eq(s, len, "create"))
			*out = TCONF_TS_CREATE;
		else if (eq(s, len, "LogAppendTime") || eq(s, len, "log_append"))
			*out = TCONF_TS_LOG_APPEND;
		else
			return bad(why, whylen, k, s, len,
			    "CreateTime or LogAppendTime");
		return 0;
	default:
		break;
	}
	if (d->type == TCT_BOOLEAN) {
		if (eq(s, len, "true"))
			*out = 1;
		else if (eq(s, len, "false"))
			*out = 0;
		else
			return bad(why, whylen, k, s, len, "true or false");
		return 0;
	}
	if (d->type == TCT_DOUBLE) {
		if (parse_ratio(s, len, out) == -1)
			return bad(why, whylen, k, s, len, "a number from 0 to 1");
		return 0;
	}
	if (d->min == d->max)
		snprintf(range, sizeof(range), "%" PRId64 " (the only value one "
		    "broker can honour)", d->min);
	else
		snprintf(range, sizeof(range), "%san integer from %" PRId64
		    " to %" PRId64, d->minus1 ? "-1 or " : "", d->min, d->max);
	if (parse_int64(s, len, &v) == -1)
		return bad(why, whylen, k, s, len, range);
	if (!(d->minus1 && v == -1) && (v < d->min || v > d->max))
		return bad(why, whylen, k, s, len, range);
	*out = v;
	return 0;
}

void
tconf_print(enum tconf_key k, int64_t v, char *buf, size_t size)
{
	const struct tconf_def *d = &tconf_defs[k];
	int64_t frac;
	int n;

	switch (k) {
	case TC_CLEANUP_POLICY:
		snprintf(buf, size, "%s",
		    v == (TCONF_CLEANUP_DELETE | TCONF_CLEANUP_COMPACT) ?
		    "compact,delete" : v == TCONF_CLEANUP_COMPACT ? "compact" :
		    "delete");
		return;
	case TC_COMPRESSION_TYPE:
		snprintf(buf, size, "%s", v >= 0 && (size_t)v < NCODECS ?
		    codec_names[v] : "producer");
		return;
	case TC_TS_TYPE:
		snprintf(buf, size, "%s", v == TCONF_TS_LOG_APPEND ?
		    "LogAppendTime" : "CreateTime");
		return;
	default:
		break;
	}
	if (d->type == TCT_BOOLEAN) {
		snprintf(buf, size, "%s", v ? "true" : "false");
		return;
	}
	if (d->type == TCT_DOUBLE) {
		/* Java's Double.toString: "0.5", "1.0", "0.25". */
		n = snprintf(buf, size, "%" PRId64 ".", v / 1000000);
		frac = v % 1000000;
		if (n < 0 || (size_t)n >= size)
			return;
		if (frac == 0) {
			snprintf(buf + n, size - (size_t)n, "0");
			return;
		}
		n += snprintf(buf + n, size - (size_t)n, "%06" PRId64, frac);
		while (n > 0 && (size_t)n < size && buf[n - 1] == '0')
			buf[--n] = '\0';
		return;
	}
	snprintf(buf, size, "%" PRId64, v);
}

void
tconf_put(struct tconf *t, enum tconf_key k, int64_t v)
{
	t->set |= 1u << k;
	t->v[k] = v;
}

void
tconf_del(struct tconf *t, enum tconf_key k)
{
	t->set &= ~(1u << k);
	t->v[k] = 0;
}

int
tconf_has(const struct tconf *t, enum tconf_key k)
{
	return (t->set >> k) & 1;
}

int
tconf_format(const struct tconf *t, char *buf, size_t size)
{
	char val[64];
	size_t off = 0;
	int i, n;

	if (size > 0)
		buf[0] = '\0';
	for (i = 0; i < TC_NKEYS; i++) {
		if (!tconf_has(t, (enum tconf_key)i))
			continue;
		tconf_print((enum tconf_key)i, t->v[i], val, sizeof(val));
		n = snprintf(buf + off, size - off, "%s=%s\n",
		    tconf_defs[i].name, val);
		if (n < 0 || (size_t)n >= size - off) {
			errno = ENOSPC;
			return -1;
		}
		off += (size_t)n;
	}
	return (int)off;
}

int
tconf_parse_file(const char *text, size_t len, struct tconf *t, char *why,
    size_t whylen)
{
	const char *line = text, *end = text + len, *nl, *eqs;
	enum tconf_key k;
	int64_t v;
	int rc = 0, lineno = 0;
	char msg[160];

	memset(t, 0, sizeof(*t));
	while (line < end) {
		lineno++;
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		if (nl == line || line[0] == '#') {
			line = nl + 1;
			continue;
		}
		eqs = memchr(line, '=', (size_t)(nl - line));
		if (eqs == NULL || tconf_key_find(line, (size_t)(eqs - line),
		    &k) == -1) {
			if (rc == 0 && whylen > 0)
				snprintf(why, whylen, "line %d: unknown key '%.*s'",
				    lineno, (int)(eqs != NULL ? eqs - line :
				    (nl - line > 64 ? 64 : nl - line)), line);
			rc = -1;
		} else if (tconf_parse(k, eqs + 1, (size_t)(nl - eqs - 1), &v,
		    msg, sizeof(msg)) == -1) {
			if (rc == 0 && whylen > 0)
				snprintf(why, whylen, "line %d: %s", lineno, msg);
			rc = -1;
		} else
			tconf_put(t, k, v);
		line = nl + 1;
	}
	return rc;
}

int
tconf_list_edit(enum tconf_key k, int64_t *v, const char *s, size_t len,
    int add, char *why, size_t whylen)
{
	int64_t bits;

	if (k != TC_CLEANUP_POLICY) {
		if (whylen > 0)
			snprintf(why, whylen, "%s is not a list: APPEND and "
			    "SUBTRACT apply to cleanup.policy only",
			    tconf_defs[k].name);
		return -1;
	}
	if (parse_policy(s, len, &bits) == -1)
		return bad(why, whylen, k, s, len, "delete or compact");
	*v = add ? (*v | bits) : (*v & ~bits);
	if (*v == 0) {
		if (whylen > 0)
			snprintf(why, whylen, "cleanup.policy may not be empty");
		return -1;
	}
	return 0;
}
