/*
 * Topic settings (proto/tconf.h, config_topic_tconf): every key's parse,
 * range and print, the topic.config text both ways, list edits, and
 * flume.conf's spellings and precedence (dynamic > [topic] section >
 * global > default) with each value's source.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/config.h"
#include "proto/tconf.h"
#include "tests/harness.h"

static char	*tmpdir;
static char	 cpath[4096];
static char	 err[4608];

static int
setup(void)
{
	tmpdir = test_mkdtemp("tconf");
	snprintf(cpath, sizeof(cpath), "%s/flume.conf", tmpdir);
	return 0;
}

static int
teardown(void)
{
	test_rmtree(tmpdir);
	free(tmpdir);
	return 0;
}

static int
parse(enum tconf_key k, const char *s, int64_t *v, char *why)
{
	return tconf_parse(k, s, strlen(s), v, why, 256);
}

static const char *
print(enum tconf_key k, int64_t v)
{
	static char buf[64];

	tconf_print(k, v, buf, sizeof(buf));
	return buf;
}

/* Every key's default prints and parses back to itself. */
static void
test_defaults_round_trip(void)
{
	char why[256];
	int64_t v;
	int k;

	for (k = 0; k < TC_NKEYS; k++) {
		CU_ASSERT_EQUAL(parse((enum tconf_key)k, print((enum tconf_key)k,
		    tconf_defs[k].def), &v, why), 0);
		CU_ASSERT_EQUAL(v, tconf_defs[k].def);
		CU_ASSERT_PTR_NOT_NULL(tconf_defs[k].doc);
		CU_ASSERT_PTR_NOT_NULL(tconf_defs[k].flume);
	}
	CU_ASSERT_STRING_EQUAL(print(TC_CLEANUP_POLICY, tconf_defs[
	    TC_CLEANUP_POLICY].def), "delete");
	CU_ASSERT_STRING_EQUAL(print(TC_RETENTION_MS, tconf_defs[
	    TC_RETENTION_MS].def), "604800000");
	CU_ASSERT_STRING_EQUAL(print(TC_SEGMENT_BYTES, tconf_defs[
	    TC_SEGMENT_BYTES].def), "1073741824");
	CU_ASSERT_STRING_EQUAL(print(TC_MIN_CLEANABLE_DIRTY_RATIO, tconf_defs[
	    TC_MIN_CLEANABLE_DIRTY_RATIO].def), "0.5");
	CU_ASSERT_STRING_EQUAL(print(TC_TS_TYPE, 0), "CreateTime");
	CU_ASSERT_STRING_EQUAL(print(TC_UNCLEAN_LEADER_ELECTION, 0), "false");
	CU_ASSERT_STRING_EQUAL(print(TC_COMPRESSION_TYPE, 0), "producer");
}

/* Good values of every kind, and their printed forms. */
static void
test_parse_good(void)
{
	char why[256];
	int64_t v;

	CU_ASSERT_EQUAL(parse(TC_CLEANUP_POLICY, "compact", &v, why), 0);
	CU_ASSERT_EQUAL(v, TCONF_CLEANUP_COMPACT);
	CU_ASSERT_EQUAL(parse(TC_CLEANUP_POLICY, "delete, compact", &v, why), 0);
	CU_ASSERT_EQUAL(v, TCONF_CLEANUP_COMPACT | TCONF_CLEANUP_DELETE);
	CU_ASSERT_STRING_EQUAL(print(TC_CLEANUP_POLICY, v), "compact,delete");
	CU_ASSERT_EQUAL(parse(TC_RETENTION_MS, "-1", &v, why), 0);
	CU_ASSERT_EQUAL(v, -1);
	CU_ASSERT_EQUAL(parse(TC_RETENTION_BYTES, "0", &v, why), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(parse(TC_MIN_CLEANABLE_DIRTY_RATIO, "0.25", &v, why), 0);
	CU_ASSERT_EQUAL(v, 250000);
	CU_ASSERT_STRING_EQUAL(print(TC_MIN_CLEANABLE_DIRTY_RATIO, v), "0.25");
	CU_ASSERT_EQUAL(parse(TC_MIN_CLEANABLE_DIRTY_RATIO, "1", &v, why), 0);
	CU_ASSERT_STRING_EQUAL(print(TC_MIN_CLEANABLE_DIRTY_RATIO, v), "1.0");
	CU_ASSERT_EQUAL(parse(TC_TS_TYPE, "LogAppendTime", &v, why), 0);
	CU_ASSERT_EQUAL(v, TCONF_TS_LOG_APPEND);
	CU_ASSERT_EQUAL(parse(TC_TS_TYPE, "log_append", &v, why), 0);
	CU_ASSERT_EQUAL(v, TCONF_TS_LOG_APPEND);
	CU_ASSERT_EQUAL(parse(TC_COMPRESSION_TYPE, "zstd", &v, why), 0);
	CU_ASSERT_STRING_EQUAL(print(TC_COMPRESSION_TYPE, v), "zstd");
	CU_ASSERT_EQUAL(parse(TC_UNCLEAN_LEADER_ELECTION, "true", &v, why), 0);
	CU_ASSERT_EQUAL(v, 1);
	CU_ASSERT_EQUAL(parse(TC_MIN_INSYNC_REPLICAS, "1", &v, why), 0);
	CU_ASSERT_EQUAL(parse(TC_SEGMENT_BYTES, "2147483647", &v, why), 0);
	CU_ASSERT_EQUAL(v, INT32_MAX);
	CU_ASSERT_EQUAL(parse(TC_FLUSH_MS, "9223372036854775807", &v, why), 0);
	CU_ASSERT_EQUAL(v, INT64_MAX);
}

/* Bad values: refused with a message naming the key, word for word. */
static void
test_parse_bad(void)
{
	static const struct {
		enum tconf_key k;
		const char *s, *why;
	} bad[] = {
		{ TC_RETENTION_MS, "-2", "invalid value '-2' for retention.ms: "
		    "expected -1 or an integer from 0 to 9223372036854775807" },
		{ TC_SEGMENT_MS, "-1", "invalid value '-1' for segment.ms: "
		    "expected an integer from 1 to 9223372036854775807" },
		{ TC_SEGMENT_BYTES, "1G", "invalid value '1G' for segment.bytes: "
		    "expected an integer from 4096 to 2147483647" },
		{ TC_SEGMENT_BYTES, "2147483648", "invalid value '2147483648' for "
		    "segment.bytes: expected an integer from 4096 to 2147483647" },
		{ TC_RETENTION_BYTES, "99999999999999999999", "invalid value "
		    "'99999999999999999999' for retention.bytes: expected -1 or an "
		    "integer from 0 to 9223372036854775807" },
		{ TC_RETENTION_BYTES, "", "invalid value '' for retention.bytes: "
		    "expected -1 or an integer from 0 to 9223372036854775807" },
		{ TC_MIN_INSYNC_REPLICAS, "2", "invalid value '2' for "
		    "min.insync.replicas: expected 1 (the only value one broker "
		    "can honour)" },
		{ TC_MIN_CLEANABLE_DIRTY_RATIO, "1.5", "invalid value '1.5' for "
		    "min.cleanable.dirty.ratio: expected a number from 0 to 1" },
		{ TC_CLEANUP_POLICY, "", "invalid value '' for cleanup.policy: "
		    "expected delete, compact or compact,delete" },
		{ TC_CLEANUP_POLICY, "delete,purge", "invalid value 'delete,purge' "
		    "for cleanup.policy: expected delete, compact or "
		    "compact,delete" },
		{ TC_TS_TYPE, "Now", "invalid value 'Now' for "
		    "message.timestamp.type: expected CreateTime or LogAppendTime" },
		{ TC_COMPRESSION_TYPE, "brotli", "invalid value 'brotli' for "
		    "compression.type: expected producer, uncompressed, gzip, "
		    "snappy, lz4 or zstd" },
		{ TC_UNCLEAN_LEADER_ELECTION, "1", "invalid value '1' for "
		    "unclean.leader.election.enable: expected true or false" },
	};
	char why[256];
	int64_t v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		CU_ASSERT_EQUAL(parse(bad[i].k, bad[i].s, &v, why), -1);
		CU_ASSERT_STRING_EQUAL(why, bad[i].why);
		CU_ASSERT_EQUAL(v, 12345);
	}
}

/* Keys by every spelling; a topic.config's text both ways. */
static void
test_names_and_file(void)
{
	struct tconf t, back;
	enum tconf_key k;
	char buf[1024], why[256];

	CU_ASSERT_EQUAL(tconf_key_find("retention.ms", 12, &k), 0);
	CU_ASSERT_EQUAL(k, TC_RETENTION_MS);
	CU_ASSERT_EQUAL(tconf_key_find("retention.mss", 13, &k), -1);
	CU_ASSERT_EQUAL(tconf_key_find_conf("log.retention.ms", &k), 0);
	CU_ASSERT_EQUAL(k, TC_RETENTION_MS);
	CU_ASSERT_EQUAL(tconf_key_find_conf("retention_ms", &k), 0);
	CU_ASSERT_EQUAL(tconf_key_find_conf("log.roll.ms", &k), 0);
	CU_ASSERT_EQUAL(k, TC_SEGMENT_MS);
	CU_ASSERT_EQUAL(tconf_key_find_conf("message.max.bytes", &k), 0);
	CU_ASSERT_EQUAL(k, TC_MAX_MESSAGE_BYTES);
	CU_ASSERT_EQUAL(tconf_key_find_conf("workers", &k), -1);

	memset(&t, 0, sizeof(t));
	tconf_put(&t, TC_SEGMENT_MS, 60000);
	tconf_put(&t, TC_CLEANUP_POLICY, TCONF_CLEANUP_COMPACT);
	tconf_put(&t, TC_MIN_CLEANABLE_DIRTY_RATIO, 100000);
	CU_ASSERT_EQUAL(tconf_format(&t, buf, sizeof(buf)), 70);
	CU_ASSERT_STRING_EQUAL(buf, "cleanup.policy=compact\n"
	    "min.cleanable.dirty.ratio=0.1\nsegment.ms=60000\n");
	CU_ASSERT_EQUAL(tconf_parse_file(buf, strlen(buf), &back, why,
	    sizeof(why)), 0);
	CU_ASSERT_EQUAL(memcmp(&t, &back, sizeof(t)), 0);
	CU_ASSERT_EQUAL(tconf_format(&t, buf, 20), -1);
	tconf_del(&t, TC_SEGMENT_MS);
	CU_ASSERT_EQUAL(tconf_has(&t, TC_SEGMENT_MS), 0);
	/* A bad line: the good ones kept, the first bad one named. */
	CU_ASSERT_EQUAL(tconf_parse_file("retention.ms=5\nfoo=1\n"
	    "segment.bytes=0\n", 38, &back, why, sizeof(why)), -1);
	CU_ASSERT_STRING_EQUAL(why, "line 2: unknown key 'foo'");
	CU_ASSERT_EQUAL(back.set, 1u << TC_RETENTION_MS);
	CU_ASSERT_EQUAL(back.v[TC_RETENTION_MS], 5);
}

/* APPEND and SUBTRACT on cleanup.policy; other keys are not lists. */
static void
test_list_edit(void)
{
	char why[256];
	int64_t v = TCONF_CLEANUP_DELETE;

	CU_ASSERT_EQUAL(tconf_list_edit(TC_CLEANUP_POLICY, &v, "compact", 7, 1,
	    why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(v, TCONF_CLEANUP_DELETE | TCONF_CLEANUP_COMPACT);
	CU_ASSERT_EQUAL(tconf_list_edit(TC_CLEANUP_POLICY, &v, "delete", 6, 0,
	    why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(v, TCONF_CLEANUP_COMPACT);
	CU_ASSERT_EQUAL(tconf_list_edit(TC_CLEANUP_POLICY, &v, "compact", 7, 0,
	    why, sizeof(why)), -1);
	CU_ASSERT_STRING_EQUAL(why, "cleanup.policy may not be empty");
	CU_ASSERT_EQUAL(tconf_list_edit(TC_RETENTION_MS, &v, "1", 1, 1, why,
	    sizeof(why)), -1);
	CU_ASSERT_STRING_EQUAL(why, "retention.ms is not a list: APPEND and "
	    "SUBTRACT apply to cleanup.policy only");
}

static int
load(struct config *c, const char *text)
{
	FILE *f = fopen(cpath, "w");

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fputs(text, f) >= 0);
	CU_ASSERT_FATAL(fclose(f) == 0);
	return config_load(c, cpath, err, sizeof(err));
}

/*
 * flume.conf: flume, Kafka topic and Kafka broker names, globally and in
 * sections; precedence and sources.
 */
static void
test_conf_precedence(void)
{
	struct config c;
	struct tconf dyn, eff;
	int8_t src[TC_NKEYS];
	char want[4608];

	CU_ASSERT_EQUAL_FATAL(load(&c, "log.retention.ms = 1000\n"
	    "cleanup_policy = compact\nlog.roll.ms = 3600000\n"
	    "message.max.bytes = 100000\n"
	    "[topic a]\nretention.ms = 2000\nmax.message.bytes = 5000\n"
	    "min_insync_replicas = 1\nflush_messages = 7\n"
	    "message.timestamp.type = LogAppendTime\n"), 0);
	CU_ASSERT_EQUAL(c.log.retention_ms, 1000);
	CU_ASSERT_EQUAL(c.max_message_bytes, 100000);

	config_topic_tconf(&c, "b", NULL, &eff, src);
	CU_ASSERT_EQUAL(eff.v[TC_RETENTION_MS], 1000);
	CU_ASSERT_EQUAL(src[TC_RETENTION_MS], TCS_STATIC_BROKER);
	CU_ASSERT_EQUAL(eff.v[TC_CLEANUP_POLICY], TCONF_CLEANUP_COMPACT);
	CU_ASSERT_EQUAL(src[TC_CLEANUP_POLICY], TCS_STATIC_BROKER);
	CU_ASSERT_EQUAL(eff.v[TC_SEGMENT_MS], 3600000);
	CU_ASSERT_EQUAL(eff.v[TC_MAX_MESSAGE_BYTES], 100000);
	CU_ASSERT_EQUAL(eff.v[TC_SEGMENT_BYTES], 1073741824);
	CU_ASSERT_EQUAL(src[TC_SEGMENT_BYTES], TCS_DEFAULT);
	CU_ASSERT_EQUAL(eff.v[TC_FLUSH_MESSAGES], INT64_MAX);
	CU_ASSERT_EQUAL(eff.v[TC_FLUSH_MS], 1000);	/* flush_interval_ms 1s */
	CU_ASSERT_EQUAL(src[TC_FLUSH_MS], TCS_DEFAULT);

	config_topic_tconf(&c, "a", NULL, &eff, src);
	CU_ASSERT_EQUAL(eff.v[TC_RETENTION_MS], 2000);
	CU_ASSERT_EQUAL(src[TC_RETENTION_MS], TCS_STATIC_BROKER);
	CU_ASSERT_EQUAL(eff.v[TC_MAX_MESSAGE_BYTES], 5000);
	CU_ASSERT_EQUAL(eff.v[TC_FLUSH_MESSAGES], 7);
	CU_ASSERT_EQUAL(eff.v[TC_TS_TYPE], TCONF_TS_LOG_APPEND);
	CU_ASSERT_EQUAL(eff.v[TC_MIN_INSYNC_REPLICAS], 1);

	memset(&dyn, 0, sizeof(dyn));
	tconf_put(&dyn, TC_RETENTION_MS, 3000);
	tconf_put(&dyn, TC_CLEANUP_POLICY, TCONF_CLEANUP_DELETE);
	config_topic_tconf(&c, "a", &dyn, &eff, src);
	CU_ASSERT_EQUAL(eff.v[TC_RETENTION_MS], 3000);
	CU_ASSERT_EQUAL(src[TC_RETENTION_MS], TCS_DYNAMIC_TOPIC);
	CU_ASSERT_EQUAL(eff.v[TC_CLEANUP_POLICY], TCONF_CLEANUP_DELETE);
	CU_ASSERT_EQUAL(src[TC_CLEANUP_POLICY], TCS_DYNAMIC_TOPIC);
	CU_ASSERT_EQUAL(eff.v[TC_MAX_MESSAGE_BYTES], 5000);
	CU_ASSERT_EQUAL(src[TC_MAX_MESSAGE_BYTES], TCS_STATIC_BROKER);
	config_free(&c);

	/* A bad topic setting: file:line and the key. */
	CU_ASSERT_EQUAL(load(&c, "[topic a]\nmin.insync.replicas = 3\n"), -1);
	snprintf(want, sizeof(want), "%s:2: invalid value '3' for "
	    "min.insync.replicas: expected 1 (the only value one broker can "
	    "honour)", cpath);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(load(&c, "log.cleanup.policy = shred\n"), -1);
	snprintf(want, sizeof(want), "%s:1: invalid value 'shred' for "
	    "cleanup.policy: expected delete, compact or compact,delete", cpath);
	CU_ASSERT_STRING_EQUAL(err, want);
}

TEST_SUITE("tconf", setup, teardown,
	{ "every default prints and parses back", test_defaults_round_trip },
	{ "good values of every kind", test_parse_good },
	{ "bad values: the key named, nothing stored", test_parse_bad },
	{ "names by every spelling; topic.config text", test_names_and_file },
	{ "cleanup.policy APPEND and SUBTRACT", test_list_edit },
	{ "flume.conf spellings, precedence and sources",
	    test_conf_precedence });
