/*
 * flume.conf parsing: the defaults, every key, the size and duration
 * syntax, every error message word for word, topic sections and their
 * effective settings, and the checks across keys.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "master/config.h"
#include "common/log.h"
#include "tests/harness.h"

static char	*tmpdir;
static char	 cpath[4096];
static char	 err[8192];
static char	 want[8192];

static int
setup(void)
{
	tmpdir = test_mkdtemp("config");
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

/* Write text to the suite's config file and load it; returns config_load's result. */
static int
load(struct config *c, const char *text)
{
	FILE	*f = fopen(cpath, "w");

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fputs(text, f) >= 0);
	CU_ASSERT_FATAL(fclose(f) == 0);
	memset(err, 'x', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	return config_load(c, cpath, err, sizeof(err));
}

/* Loading text must fail with exactly "<path>:<line>: <msg>". */
static void
expect_error(const char *text, int line, const char *msg)
{
	struct config	c;

	CU_ASSERT_EQUAL(load(&c, text), -1);
	if (line > 0)
		snprintf(want, sizeof(want), "%s:%d: %s", cpath, line, msg);
	else
		snprintf(want, sizeof(want), "%s: %s", cpath, msg);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "got:  %s\nwant: %s\n", err, want);
	CU_ASSERT_PTR_NULL(c.topics);
	CU_ASSERT_EQUAL(c.ntopics, 0);
	config_free(&c);
}

static void
test_defaults(void)
{
	struct config	c;
	long		cpus = sysconf(_SC_NPROCESSORS_ONLN);

	config_defaults(&c);
	CU_ASSERT_STRING_EQUAL(c.listen, "127.0.0.1:9192");
	CU_ASSERT_STRING_EQUAL(c.listen_host, "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(c.listen_port, "9192");
	CU_ASSERT_STRING_EQUAL(c.data_dir, "./data");
	CU_ASSERT_EQUAL(c.workers, cpus < 1 ? 1 : cpus > 64 ? 64 : cpus);
	CU_ASSERT_EQUAL(c.partitions, 3);
	CU_ASSERT_EQUAL(c.ring_size, 8ULL << 20);
	CU_ASSERT_EQUAL(c.log.segment_bytes, 1ULL << 30);
	CU_ASSERT_EQUAL(c.log.index_interval_bytes, 4096);
	CU_ASSERT_EQUAL(c.log.retention_bytes, -1);
	CU_ASSERT_EQUAL(c.log.retention_ms, 7LL * 24 * 3600 * 1000);
	CU_ASSERT_EQUAL(c.flush_interval_ms, 1000);
	CU_ASSERT_EQUAL(c.flush_messages, -1);
	CU_ASSERT_EQUAL(c.cache_window_bytes, 64LL << 20);
	CU_ASSERT_EQUAL(c.max_message_bytes, 1U << 20);
	CU_ASSERT_EQUAL(c.max_request_bytes, 17U << 20);
	CU_ASSERT_EQUAL(c.auto_create_topics, 1);
	CU_ASSERT_EQUAL(c.max_topics, 1024);
	CU_ASSERT_EQUAL(c.max_partitions, 256);
	CU_ASSERT_EQUAL(c.max_connections, 1024);
	CU_ASSERT_EQUAL(c.idle_timeout_ms, 600000);
	CU_ASSERT_EQUAL(c.request_timeout_ms, 30000);
	CU_ASSERT_EQUAL(c.retention_check_ms, 30000);
	CU_ASSERT_EQUAL(c.log_level, LOG_LVL_INFO);
	CU_ASSERT_PTR_NULL(c.topics);
	CU_ASSERT_EQUAL(c.ntopics, 0);
	CU_ASSERT_EQUAL(config_topic_partitions(&c, "any"), 3);
	config_free(&c);
}

/* An empty file (only comments) gives the defaults, which pass the cross-checks. */
static void
test_empty_file_is_defaults(void)
{
	struct config	c, d;

	CU_ASSERT_EQUAL_FATAL(load(&c, "# nothing\n\n   \n\t# indented\n"), 0);
	config_defaults(&d);
	CU_ASSERT_STRING_EQUAL(c.path, cpath);
	CU_ASSERT_EQUAL(memcmp(&c.log, &d.log, sizeof(c.log)), 0);
	CU_ASSERT_EQUAL(c.ring_size, d.ring_size);
	CU_ASSERT_EQUAL(c.workers, d.workers);
	CU_ASSERT_STRING_EQUAL(c.listen, d.listen);
	CU_ASSERT_EQUAL(c.max_request_bytes, d.max_request_bytes);
	config_free(&c);
	config_free(&d);
}

static void
test_every_key(void)
{
	struct config	c;

	CU_ASSERT_EQUAL_FATAL(load(&c,
	    "listen = 0.0.0.0:7000\n"
	    "data_dir = /var/lib/flume\n"
	    "workers = 5\n"
	    "partitions = 12\n"
	    "ring_size = 1M\n"
	    "segment_bytes = 4K\n"
	    "index_interval_bytes = 512\n"
	    "retention_bytes = 10G\n"
	    "retention_ms = 2h\n"
	    "flush_interval_ms = 250ms\n"
	    "flush_messages = 100\n"
	    "max_message_bytes = 64K\n"
	    "max_request_bytes = 128K\n"
	    "auto_create_topics = no\n"
	    "max_topics = 10\n"
	    "max_partitions = 100\n"
	    "max_connections = 77\n"
	    "idle_timeout_ms = 0\n"
	    "request_timeout_ms = 5s\n"
	    "retention_check_ms = 1m\n"
	    "log_level = debug\n"), 0);
	CU_ASSERT_STRING_EQUAL(c.listen, "0.0.0.0:7000");
	CU_ASSERT_STRING_EQUAL(c.listen_host, "0.0.0.0");
	CU_ASSERT_STRING_EQUAL(c.listen_port, "7000");
	CU_ASSERT_STRING_EQUAL(c.data_dir, "/var/lib/flume");
	CU_ASSERT_EQUAL(c.workers, 5);
	CU_ASSERT_EQUAL(c.partitions, 12);
	CU_ASSERT_EQUAL(c.ring_size, 1 << 20);
	CU_ASSERT_EQUAL(c.log.segment_bytes, 4096);
	CU_ASSERT_EQUAL(c.log.index_interval_bytes, 512);
	CU_ASSERT_EQUAL(c.log.retention_bytes, 10LL << 30);
	CU_ASSERT_EQUAL(c.log.retention_ms, 7200000);
	CU_ASSERT_EQUAL(c.flush_interval_ms, 250);
	CU_ASSERT_EQUAL(c.flush_messages, 100);
	CU_ASSERT_EQUAL(c.max_message_bytes, 65536);
	CU_ASSERT_EQUAL(c.max_request_bytes, 131072);
	CU_ASSERT_EQUAL(c.auto_create_topics, 0);
	CU_ASSERT_EQUAL(c.max_topics, 10);
	CU_ASSERT_EQUAL(c.max_partitions, 100);
	CU_ASSERT_EQUAL(c.max_connections, 77);
	CU_ASSERT_EQUAL(c.idle_timeout_ms, 0);
	CU_ASSERT_EQUAL(c.request_timeout_ms, 5000);
	CU_ASSERT_EQUAL(c.retention_check_ms, 60000);
	CU_ASSERT_EQUAL(c.log_level, LOG_LVL_DEBUG);
	config_free(&c);
}

/* -1 means unlimited / never where the key allows it; 4G fits segment_bytes. */
static void
test_minus_one_and_limits(void)
{
	struct config	c;
	struct plog_config pc;

	CU_ASSERT_EQUAL_FATAL(load(&c,
	    "retention_bytes = -1\nretention_ms = -1\n"
	    "flush_interval_ms = -1\nflush_messages = -1\n"
	    "segment_bytes = 4G\nmax_request_bytes = 2G\n"
	    "cache_window_bytes = -1\n"
	    "workers = 64\nworkers = 1\n"), 0);
	CU_ASSERT_EQUAL(c.cache_window_bytes, -1);
	config_topic_log(&c, "t", &pc);
	CU_ASSERT_EQUAL(pc.cache_window, 0);	/* 0: nothing dropped */
	CU_ASSERT_EQUAL(c.log.retention_bytes, -1);
	CU_ASSERT_EQUAL(c.log.retention_ms, -1);
	CU_ASSERT_EQUAL(c.flush_interval_ms, -1);
	CU_ASSERT_EQUAL(c.flush_messages, -1);
	CU_ASSERT_EQUAL(c.log.segment_bytes, 4ULL << 30);
	CU_ASSERT_EQUAL(c.max_request_bytes, 2U << 30);
	CU_ASSERT_EQUAL(c.workers, 1);		/* the last value wins */
	config_free(&c);
}

static void
test_parse_size(void)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "64K", 65536 }, { "64k", 65536 },
		{ "8M", 8ULL << 20 }, { "8m", 8ULL << 20 }, { "1G", 1ULL << 30 },
		{ "3g", 3ULL << 30 }, { "2T", 2ULL << 40 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "K", "-1", "+5", " 5", "5 ", "1X", "1KB", "1.5M", "0x10",
		"18446744073709551616", "17179869184G", "16777216T",
	};
	uint64_t	v;
	size_t		i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 12345;
		CU_ASSERT_EQUAL(config_parse_size(ok[i].s, &v), 0);
		CU_ASSERT_EQUAL(v, ok[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		CU_ASSERT_EQUAL(config_parse_size(bad[i], &v), -1);
		CU_ASSERT_EQUAL(v, 12345);
	}
}

static void
test_parse_duration(void)
{
	static const struct { const char *s; int64_t v; } ok[] = {
		{ "0", 0 }, { "250", 250 }, { "250ms", 250 }, { "5s", 5000 },
		{ "5S", 5000 }, { "10m", 600000 }, { "2h", 7200000 },
		{ "7d", 604800000 }, { "9223372036854775807", INT64_MAX },
	};
	static const char *const bad[] = {
		"", "s", "-5s", "5x", "5 s", "5sec", "1.5s", "5msx",
		"9223372036854775808", "106751991168d",
	};
	int64_t	v;
	size_t	i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 12345;
		CU_ASSERT_EQUAL(config_parse_duration(ok[i].s, &v), 0);
		CU_ASSERT_EQUAL(v, ok[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		CU_ASSERT_EQUAL(config_parse_duration(bad[i], &v), -1);
		CU_ASSERT_EQUAL(v, 12345);
	}
}

static void
test_booleans(void)
{
	static const struct { const char *s; int v; } ok[] = {
		{ "yes", 1 }, { "no", 0 }, { "true", 1 }, { "false", 0 },
		{ "on", 1 }, { "off", 0 }, { "1", 1 }, { "0", 0 },
		{ "YES", 1 }, { "Off", 0 },
	};
	struct config	c;
	char		text[128];
	size_t		i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "auto_create_topics = %s\n", ok[i].s);
		CU_ASSERT_EQUAL_FATAL(load(&c, text), 0);
		CU_ASSERT_EQUAL(c.auto_create_topics, ok[i].v);
		config_free(&c);
	}
	expect_error("auto_create_topics = maybe\n", 1,
	    "bad value 'maybe' for auto_create_topics: expected yes or no");
}

static void
test_listen(void)
{
	static const struct { const char *s, *host, *port; } ok[] = {
		{ "127.0.0.1:9192", "127.0.0.1", "9192" },
		{ "[::1]:9000", "::1", "9000" },
		{ "[fe80::1:2]:1", "fe80::1:2", "1" },
		{ "localhost:0", "localhost", "0" },
		{ "*:65535", "0.0.0.0", "65535" },
		{ "broker-1.example:80", "broker-1.example", "80" },
	};
	static const char *const bad[] = {
		"9192", "host:", ":9192", "::1:9192", "[::1]9192", "[zz]:1",
		"[]:1", "h:65536", "h:-1", "h:12a", "h:123456", "a b:1", "[::1]:",
	};
	struct config	c;
	char		text[128], msg[256];
	size_t		i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "listen = %s\n", ok[i].s);
		CU_ASSERT_EQUAL_FATAL(load(&c, text), 0);
		CU_ASSERT_STRING_EQUAL(c.listen, ok[i].s);
		CU_ASSERT_STRING_EQUAL(c.listen_host, ok[i].host);
		CU_ASSERT_STRING_EQUAL(c.listen_port, ok[i].port);
		config_free(&c);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "\nlisten = %s\n", bad[i]);
		snprintf(msg, sizeof(msg), "bad value '%s' for listen: expected "
		    "host:port or [ipv6-address]:port or off", bad[i]);
		expect_error(text, 2, msg);
	}
}

static void
test_log_levels(void)
{
	static const struct { const char *s; int v; } ok[] = {
		{ "error", LOG_LVL_ERROR }, { "warn", LOG_LVL_WARN },
		{ "warning", LOG_LVL_WARN }, { "info", LOG_LVL_INFO },
		{ "DEBUG", LOG_LVL_DEBUG },
	};
	struct config	c;
	char		text[64];
	size_t		i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "log_level = %s\n", ok[i].s);
		CU_ASSERT_EQUAL_FATAL(load(&c, text), 0);
		CU_ASSERT_EQUAL(c.log_level, ok[i].v);
		config_free(&c);
	}
	expect_error("log_level = loud\n", 1,
	    "bad value 'loud' for log_level: expected error, warn, info or debug");
}

/* Comments, spacing, CRLF line ends and a quoted path. */
static void
test_syntax(void)
{
	struct config	c;

	CU_ASSERT_EQUAL_FATAL(load(&c,
	    "# a comment\r\n"
	    "   partitions=7   # trailing comment\r\n"
	    "\tworkers\t=\t2\t\n"
	    "data_dir = \"/srv/flume data\"\n"
	    "listen = 127.0.0.1:9\n"), 0);
	CU_ASSERT_EQUAL(c.partitions, 7);
	CU_ASSERT_EQUAL(c.workers, 2);
	CU_ASSERT_STRING_EQUAL(c.data_dir, "/srv/flume data");
	CU_ASSERT_STRING_EQUAL(c.listen_port, "9");
	config_free(&c);

	/* A '#' inside a word is part of the value. */
	CU_ASSERT_EQUAL_FATAL(load(&c, "data_dir = /srv/a#b\t# comment\n"), 0);
	CU_ASSERT_STRING_EQUAL(c.data_dir, "/srv/a#b");
	config_free(&c);
}

/* Every message the parser can give, word for word. */
static void
test_error_messages(void)
{
	expect_error("workers = 2\n\nfoo = 1\n", 3, "unknown key 'foo'");
	expect_error("workers 2\n", 1,
	    "expected 'key = value': missing '=' after 'workers 2'");
	expect_error(" = 2\n", 1, "expected a key before '='");
	expect_error("workers =\n", 1, "missing value for 'workers'");
	expect_error("workers = # none\n", 1, "missing value for 'workers'");
	expect_error("workers = two\n", 1,
	    "bad value 'two' for workers: expected an integer");
	expect_error("workers = 2x\n", 1,
	    "bad value '2x' for workers: expected an integer");
	expect_error("workers = 0\n", 1,
	    "workers = 0 is out of range: expected 1..64");
	expect_error("workers = 65\n", 1,
	    "workers = 65 is out of range: expected 1..64");
	expect_error("workers = 99999999999999999999\n", 1,
	    "bad value '99999999999999999999' for workers: expected an integer");
	expect_error("partitions = 1025\n", 1,
	    "partitions = 1025 is out of range: expected 1..1024");
	expect_error("ring_size = 8Q\n", 1, "bad value '8Q' for ring_size: "
	    "expected a size such as 4096, 64K, 8M or 1G");
	expect_error("ring_size = 32K\n", 1,
	    "ring_size = 32K is out of range: expected 64K..1G");
	expect_error("ring_size = 2G\n", 1,
	    "ring_size = 2G is out of range: expected 64K..1G");
	expect_error("ring_size = 65540\n", 1,
	    "ring_size = 65540 must be a multiple of 8");
	expect_error("segment_bytes = 1K\n", 1,
	    "segment_bytes = 1K is out of range: expected 4K..4G");
	expect_error("retention_bytes = -2\n", 1, "bad value '-2' for "
	    "retention_bytes: expected a size such as 4096, 64K, 8M or 1G");
	expect_error("retention_ms = soon\n", 1, "bad value 'soon' for "
	    "retention_ms: expected a duration such as 250ms, 30s, 5m, 1h or 7d");
	expect_error("flush_interval_ms = 2d\n", 1,
	    "flush_interval_ms = 2d is out of range: expected -1 or 0..1d");
	expect_error("flush_messages = 0\n", 1,
	    "flush_messages = 0 is out of range: expected -1 or 1..2147483647");
	expect_error("request_timeout_ms = 0\n", 1,
	    "request_timeout_ms = 0 is out of range: expected 1ms..1d");
	expect_error("max_message_bytes = 10\n", 1,
	    "max_message_bytes = 10 is out of range: expected 64..1G");
	expect_error("data_dir = \"\"\n", 1,
	    "bad value for data_dir: expected a path of 1 to 4095 bytes");
	expect_error("[topic orders]\nworkers = 2\n", 2,
	    "key 'workers' is not allowed in a [topic] section (expected one of "
	    "partitions or a topic setting: retention_ms, cleanup_policy, ... "
	    "or Kafka's names, see flume.conf(5))");
	expect_error("[topic orders]\nmessage_timestamp_type = broker\n", 2,
	    "bad value 'broker' for message_timestamp_type: expected create "
	    "or log_append");
	expect_error("[topic orders]\n\n[topic orders]\n", 3,
	    "duplicate section [topic orders] (first at line 1)");
	expect_error("[topic a/b]\n", 1, "invalid topic name 'a/b': expected 1 "
	    "to 249 of A-Z a-z 0-9 . _ -");
	expect_error("[topic ..]\n", 1, "invalid topic name '..': expected 1 "
	    "to 249 of A-Z a-z 0-9 . _ -");
	expect_error("# Kafka's\n[topic __consumer_offsets]\n", 2, "topic name "
	    "'__consumer_offsets' is reserved for the broker's own use");
	expect_error("[topic __transaction_state]\n", 1, "topic name "
	    "'__transaction_state' is reserved for the broker's own use");
	expect_error("[group g]\n", 1, "expected '[topic NAME]', got '[group g]'");
	expect_error("[topic]\n", 1, "expected '[topic NAME]', got '[topic]'");
	expect_error("[topic orders\n", 1, "expected '[topic NAME]': missing ']'");
	expect_error("[topic x]\npartitions = 0\n", 2,
	    "partitions = 0 is out of range: expected 1..1024");
}

/* A NUL byte inside a line is refused, not silently cut. */
static void
test_nul_byte(void)
{
	static const char text[] = "workers = 1\nworkers = 2\0 3\n";
	struct config	c;
	FILE		*f = fopen(cpath, "w");

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fwrite(text, 1, sizeof(text) - 1, f) == sizeof(text) - 1);
	CU_ASSERT_FATAL(fclose(f) == 0);
	CU_ASSERT_EQUAL(config_load(&c, cpath, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:2: unexpected NUL byte", cpath);
	CU_ASSERT_STRING_EQUAL(err, want);
	config_free(&c);
}

static void
test_missing_file(void)
{
	struct config	c;
	char		path[4200];

	snprintf(path, sizeof(path), "%s/nonexistent.conf", tmpdir);
	CU_ASSERT_EQUAL(config_load(&c, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	config_free(&c);
}

/* A short error buffer gets a truncated, terminated message. */
static void
test_error_truncated(void)
{
	struct config	c;
	char		small[8];

	CU_ASSERT_FATAL(load(&c, "foo = 1\n") == -1);
	CU_ASSERT_EQUAL(config_load(&c, cpath, small, sizeof(small)), -1);
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	CU_ASSERT_EQUAL(strncmp(small, cpath, sizeof(small) - 1), 0);
	config_free(&c);
}

static void
test_topic_sections(void)
{
	struct config		c;
	struct plog_config	pc;

	CU_ASSERT_EQUAL_FATAL(load(&c,
	    "partitions = 4\n"
	    "segment_bytes = 64M\n"
	    "retention_ms = 1d\n"
	    "[topic orders]   # the shop\n"
	    "partitions = 12\n"
	    "retention_bytes = 1G\n"
	    "[ topic  audit.log ]\n"
	    "segment_bytes = 8K\n"
	    "index_interval_bytes = 1K\n"
	    "retention_ms = -1\n"), 0);
	CU_ASSERT_EQUAL_FATAL(c.ntopics, 2);
	CU_ASSERT_STRING_EQUAL(c.topics[0].name, "orders");
	CU_ASSERT_EQUAL(c.topics[0].partitions, 12);
	CU_ASSERT_STRING_EQUAL(c.topics[1].name, "audit.log");
	CU_ASSERT_EQUAL(c.topics[1].partitions, 0);
	/* Globals stay as set before the sections. */
	CU_ASSERT_EQUAL(c.partitions, 4);
	CU_ASSERT_EQUAL(c.log.segment_bytes, 64U << 20);
	CU_ASSERT_EQUAL(c.log.retention_bytes, -1);

	CU_ASSERT_EQUAL(config_topic_partitions(&c, "orders"), 12);
	CU_ASSERT_EQUAL(config_topic_partitions(&c, "audit.log"), 4);
	CU_ASSERT_EQUAL(config_topic_partitions(&c, "other"), 4);

	config_topic_log(&c, "orders", &pc);
	CU_ASSERT_EQUAL(pc.segment_bytes, 64U << 20);
	CU_ASSERT_EQUAL(pc.index_interval_bytes, 4096);
	CU_ASSERT_EQUAL(pc.retention_bytes, 1LL << 30);
	CU_ASSERT_EQUAL(pc.retention_ms, 86400000);
	CU_ASSERT_EQUAL(pc.cache_window, 64ULL << 20);	/* broker-wide */

	config_topic_log(&c, "audit.log", &pc);
	CU_ASSERT_EQUAL(pc.segment_bytes, 8192);
	CU_ASSERT_EQUAL(pc.index_interval_bytes, 1024);
	CU_ASSERT_EQUAL(pc.retention_bytes, -1);
	CU_ASSERT_EQUAL(pc.retention_ms, -1);

	config_topic_log(&c, "other", &pc);
	CU_ASSERT_EQUAL(pc.segment_bytes, c.log.segment_bytes);
	CU_ASSERT_EQUAL(pc.index_interval_bytes, c.log.index_interval_bytes);
	CU_ASSERT_EQUAL(pc.retention_bytes, c.log.retention_bytes);
	CU_ASSERT_EQUAL(pc.retention_ms, c.log.retention_ms);
	config_free(&c);
	CU_ASSERT_PTR_NULL(c.topics);
	CU_ASSERT_EQUAL(c.ntopics, 0);
}

/* The checks that involve two keys point at the later of the two lines. */
static void
test_cross_checks(void)
{
	struct config	c;

	expect_error("ring_size = 1M\nworkers = 2\nmax_message_bytes = 600K\n", 3,
	    "max_message_bytes (600K) must be at most half of ring_size (1M)");
	expect_error("max_message_bytes = 1M\n\nring_size = 1M\n", 3,
	    "max_message_bytes (1M) must be at most half of ring_size (1M)");
	expect_error("max_request_bytes = 1M\n", 1,
	    "max_message_bytes (1M) must be at most max_request_bytes (1M) "
	    "minus 1K");
	expect_error("max_partitions = 2\n", 1,
	    "partitions (3) must be at most max_partitions (2)");
	expect_error("max_topics = 1\n[topic a]\n[topic b]\n", 3,
	    "too many [topic] sections: max_topics is 1");
	expect_error("max_partitions = 10\n[topic a]\npartitions = 6\n"
	    "[topic b]\n[topic c]\n", 5, "[topic c]: the topic sections need "
	    "more than max_partitions (10) partitions");

	/* Exactly at the limits is fine. */
	CU_ASSERT_EQUAL(load(&c, "ring_size = 1M\nmax_message_bytes = 512K\n"
	    "max_request_bytes = 513K\nmax_partitions = 9\n[topic a]\n"
	    "partitions = 6\n[topic b]\n"), 0);
	CU_ASSERT_EQUAL(c.max_message_bytes, 512U << 10);
	CU_ASSERT_EQUAL(c.ntopics, 2);
	config_free(&c);
}

/* kafka_listen, kafka_advertised_listener and what Metadata will say. */
static void
test_kafka_listen(void)
{
	struct config	c;

	CU_ASSERT_EQUAL(load(&c, ""), 0);
	CU_ASSERT_STRING_EQUAL(c.kafka_listen, "");	/* off unless set */
	config_free(&c);
	CU_ASSERT_EQUAL(load(&c, "kafka_listen = 127.0.0.1:9092\n"), 0);
	CU_ASSERT_STRING_EQUAL(c.kafka_host, "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(c.kafka_port, "9092");
	CU_ASSERT_STRING_EQUAL(c.kafka_adv_host, "127.0.0.1");
	CU_ASSERT_EQUAL(c.kafka_adv_port, 9092);
	config_free(&c);
	CU_ASSERT_EQUAL(load(&c, "kafka_listen = *:9092\n"
	    "kafka_advertised_listener = kafka.example.org:19092\n"), 0);
	CU_ASSERT_STRING_EQUAL(c.kafka_host, "0.0.0.0");
	CU_ASSERT_STRING_EQUAL(c.kafka_adv_host, "kafka.example.org");
	CU_ASSERT_EQUAL(c.kafka_adv_port, 19092);
	config_free(&c);
	CU_ASSERT_EQUAL(load(&c, "kafka_listen = 127.0.0.1:9092\n"
	    "kafka_listen = off\n"), 0);
	CU_ASSERT_STRING_EQUAL(c.kafka_listen, "");
	config_free(&c);
	/* No client may be told to connect to a wildcard or to port 0. */
	expect_error("workers = 2\nkafka_listen = *:9092\n", 2,
	    "kafka_listen *:9092 is not an address clients can connect to: "
	    "set kafka_advertised_listener");
	expect_error("kafka_listen = 0.0.0.0:9092\n", 1,
	    "kafka_listen 0.0.0.0:9092 is not an address clients can connect "
	    "to: set kafka_advertised_listener");
	expect_error("kafka_listen = 127.0.0.1:0\n", 1,
	    "kafka_listen 127.0.0.1:0 is not an address clients can connect "
	    "to: set kafka_advertised_listener");
	expect_error("kafka_listen = *:9092\n"
	    "kafka_advertised_listener = 0.0.0.0:9092\n", 2,
	    "bad value '0.0.0.0:9092' for kafka_advertised_listener: expected "
	    "host:port that clients can connect to (not a wildcard, not port 0)");
	expect_error("kafka_listen = 9092\n", 1,
	    "bad value '9092' for kafka_listen: expected host:port or "
	    "[ipv6-address]:port or off");
}

/* The TLS listeners and certificates; listen = off (TLS only). */
static void
test_tls(void)
{
	struct config	c;

	CU_ASSERT_EQUAL(load(&c, ""), 0);
	CU_ASSERT_STRING_EQUAL(c.listen_tls, "");	/* off unless set */
	CU_ASSERT_STRING_EQUAL(c.kafka_listen_tls, "");
	CU_ASSERT_EQUAL(c.tls_client_auth, TLS_CLIENT_NONE);
	config_free(&c);
	CU_ASSERT_EQUAL(load(&c, "listen = off\nlisten_tls = 127.0.0.1:9193\n"
	    "kafka_listen_tls = 127.0.0.1:9093\ntls_cert_file = /c.pem\n"
	    "tls_key_file = /k.pem\ntls_ca_file = /ca.pem\n"
	    "tls_client_auth = require\n"), 0);
	CU_ASSERT_STRING_EQUAL(c.listen, "");
	CU_ASSERT_STRING_EQUAL(c.listen_tls_host, "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(c.listen_tls_port, "9193");
	CU_ASSERT_STRING_EQUAL(c.kafka_tls_port, "9093");
	CU_ASSERT_STRING_EQUAL(c.kafka_tls_adv_host, "127.0.0.1");
	CU_ASSERT_EQUAL(c.kafka_tls_adv_port, 9093);
	CU_ASSERT_STRING_EQUAL(c.tls_cert_file, "/c.pem");
	CU_ASSERT_EQUAL(c.tls_client_auth, TLS_CLIENT_REQUIRE);
	config_free(&c);
	/* The advertised host with the TLS port, for TLS clients. */
	CU_ASSERT_EQUAL(load(&c, "kafka_listen = *:9092\n"
	    "kafka_listen_tls = *:9093\n"
	    "kafka_advertised_listener = kafka.example.org:19092\n"
	    "tls_cert_file = /c.pem\ntls_key_file = /k.pem\n"), 0);
	CU_ASSERT_STRING_EQUAL(c.kafka_tls_adv_host, "kafka.example.org");
	CU_ASSERT_EQUAL(c.kafka_tls_adv_port, 9093);
	config_free(&c);
	expect_error("listen = off\n", 1, "every listener is off: set listen, "
	    "listen_tls, kafka_listen or kafka_listen_tls");
	expect_error("listen_tls = 127.0.0.1:9193\n", 1,
	    "a TLS listener needs tls_cert_file and tls_key_file");
	expect_error("tls_client_auth = maybe\n", 1, "bad value 'maybe' for "
	    "tls_client_auth: expected none, request or require");
	expect_error("tls_client_auth = request\n", 1,
	    "tls_client_auth needs tls_ca_file (the CAs that sign client "
	    "certificates)");
	expect_error("tls_ca_file = /ca\ntls_cert_user = yes\n", 2,
	    "tls_cert_user needs tls_client_auth request or require and an "
	    "auth_file");
	expect_error("tls_ca_file = /ca\ntls_client_auth = require\n"
	    "tls_cert_user = yes\n", 3, "tls_cert_user needs tls_client_auth "
	    "request or require and an auth_file");
	expect_error("kafka_listen_tls = *:9093\ntls_cert_file = /c\n"
	    "tls_key_file = /k\n", 1, "kafka_listen_tls *:9093 is not an "
	    "address clients can connect to: set kafka_advertised_listener");
}

/*
 * Each key's reload class, as flume-master(8) lists them under SIGHUP:
 * 1, a SIGHUP applies it; 0, it needs a restart.  A key added to the
 * table must be added here with its class.
 */
static const struct {
	const char	*key;
	int		 reload;
} key_classes[] = {
	{ "listen", 0 },
	{ "data_dir", 0 },
	{ "workers", 0 },
	{ "partitions", 0 },
	{ "ring_size", 0 },
	{ "segment_bytes", 0 },
	{ "index_interval_bytes", 0 },
	{ "retention_bytes", 1 },
	{ "retention_ms", 1 },
	{ "message_timestamp_type", 0 },
	{ "cache_window_bytes", 0 },
	{ "flush_interval_ms", 1 },
	{ "flush_messages", 1 },
	{ "max_message_bytes", 1 },
	{ "max_request_bytes", 0 },
	{ "auto_create_topics", 1 },
	{ "max_topics", 0 },
	{ "max_partitions", 0 },
	{ "max_connections", 1 },
	{ "max_connections_total", 0 },
	{ "max_connections_per_ip", 1 },
	{ "handshake_timeout_ms", 1 },
	{ "max_inflight_per_connection", 0 },
	{ "max_buffered_bytes", 0 },
	{ "partial_frame_memory", 0 },
	{ "partial_frame_memory_per_ip", 0 },
	{ "auth_throttle_after", 0 },
	{ "auth_throttle_delay_ms", 0 },
	{ "auth_throttle_max", 0 },
	{ "client_log_interval_ms", 0 },
	{ "offsets_retention", 0 },
	{ "offsets_topic_num_partitions", 0 },
	{ "max_transactions", 0 },
	{ "max_transaction_partitions", 0 },
	{ "max_transaction_offsets", 0 },
	{ "transaction_max_timeout_ms", 0 },
	{ "transactional_id_expiration_ms", 0 },
	{ "transaction_state_log_num_partitions", 0 },
	{ "auth_file", 0 },
	{ "idle_timeout_ms", 1 },
	{ "request_timeout_ms", 1 },
	{ "retention_check_ms", 1 },
	{ "cleaner_threads", 0 },
	{ "cleaner_dedupe_buffer_bytes", 0 },
	{ "cleaner_io_max_bytes_per_second", 0 },
	{ "cleaner_backoff_ms", 0 },
	{ "max_groups", 0 },
	{ "max_group_members", 0 },
	{ "max_group_member_metadata", 0 },
	{ "group_initial_rebalance_delay_ms", 0 },
	{ "group_min_session_timeout_ms", 0 },
	{ "group_max_session_timeout_ms", 0 },
	{ "group_rebalance_timeout_ms", 0 },
	{ "group_consumer_session_timeout_ms", 0 },
	{ "group_consumer_heartbeat_interval_ms", 0 },
	{ "group_consumer_assignor", 0 },
	{ "group_consumer_max_size", 0 },
	{ "group_consumer_migration_policy", 0 },
	{ "log_level", 1 },
	{ "metrics_listen", 0 },
	{ "metrics_tls", 0 },
	{ "console_dir", 0 },
	{ "kafka_listen", 0 },
	{ "kafka_advertised_listener", 0 },
	{ "listen_tls", 0 },
	{ "kafka_listen_tls", 0 },
	{ "tls_cert_file", 0 },
	{ "tls_key_file", 0 },
	{ "tls_ca_file", 0 },
	{ "tls_client_auth", 0 },
	{ "tls_cert_user", 0 },
	/* The topic settings flume.conf had no key for (proto/tconf.h). */
	{ "cleanup_policy", 0 },
	{ "compression_type", 0 },
	{ "delete_retention_ms", 0 },
	{ "max_compaction_lag_ms", 0 },
	{ "message_timestamp_after_max_ms", 0 },
	{ "message_timestamp_before_max_ms", 0 },
	{ "min_cleanable_dirty_ratio", 0 },
	{ "min_compaction_lag_ms", 0 },
	{ "min_insync_replicas", 0 },
	{ "segment_ms", 0 },
	{ "unclean_leader_election_enable", 0 },
};
#define NCLASSES	(sizeof(key_classes) / sizeof(key_classes[0]))

/* The index of key in key_classes, or -1. */
static int
key_class(const char *key)
{
	size_t i;

	for (i = 0; i < NCLASSES; i++)
		if (strcmp(key_classes[i].key, key) == 0)
			return (int)i;
	return -1;
}

/* config_diff's callback: count each key it names into seen[]. */
struct named {
	int	seen[NCLASSES];
	int	unknown;
};

static void
name_key(const char *key, void *arg)
{
	struct named *n = arg;
	int i = key_class(key);

	if (i == -1) {
		printf("config key %s: not in key_classes\n", key);
		n->unknown++;
	} else
		n->seen[i]++;
}

/*
 * Two configs that differ in every byte of every key's field, and no
 * topic section: config_diff names every key of the table, each once.
 */
static void
configs_all_differ(struct config *a, struct config *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0x5a, sizeof(*b));
	b->topics = NULL;
	b->ntopics = 0;
}

/*
 * The reload class of every key in the table is the one key_classes
 * pins; config_reloadable lists exactly the reloadable ones and
 * config_copy_reloadable copies exactly those.
 */
static void
test_reload_classes(void)
{
	struct config a, b;
	struct named n;
	struct config_field f[NCLASSES + 1];
	size_t i, nf, nreload = 0;
	int k;

	configs_all_differ(&a, &b);
	memset(&n, 0, sizeof(n));
	CU_ASSERT_EQUAL(config_diff(&a, &b, name_key, &n), (int)NCLASSES);
	CU_ASSERT_EQUAL(n.unknown, 0);
	for (i = 0; i < NCLASSES; i++) {
		CU_ASSERT_EQUAL(n.seen[i], 1);
		if (config_key_reloadable(key_classes[i].key) !=
		    key_classes[i].reload) {
			printf("config key %s: reload class %d, want %d\n",
			    key_classes[i].key, !key_classes[i].reload,
			    key_classes[i].reload);
			CU_FAIL("reload class");
		}
		nreload += (size_t)key_classes[i].reload;
	}
	CU_ASSERT_EQUAL(config_key_reloadable("no_such_key"), 0);

	nf = config_reloadable(f, NCLASSES + 1);
	CU_ASSERT_EQUAL(nf, nreload);
	for (i = 0; i < nf && i < NCLASSES + 1; i++) {
		k = key_class(f[i].name);
		CU_ASSERT(k != -1 && key_classes[k].reload == 1);
	}

	/* After the copy only the restart keys still differ. */
	configs_all_differ(&a, &b);
	config_copy_reloadable(&a, &b);
	memset(&n, 0, sizeof(n));
	CU_ASSERT_EQUAL(config_diff(&a, &b, name_key, &n),
	    (int)(NCLASSES - nreload));
	CU_ASSERT_EQUAL(n.unknown, 0);
	for (i = 0; i < NCLASSES; i++)
		CU_ASSERT_EQUAL(n.seen[i], !key_classes[i].reload);
}

TEST_SUITE("config", setup, teardown,
	{ "defaults", test_defaults },
	{ "empty file is the defaults", test_empty_file_is_defaults },
	{ "every key", test_every_key },
	{ "-1 and limits", test_minus_one_and_limits },
	{ "parse size", test_parse_size },
	{ "parse duration", test_parse_duration },
	{ "booleans", test_booleans },
	{ "listen", test_listen },
	{ "log levels", test_log_levels },
	{ "syntax", test_syntax },
	{ "error messages", test_error_messages },
	{ "NUL byte", test_nul_byte },
	{ "missing file", test_missing_file },
	{ "error truncated", test_error_truncated },
	{ "topic sections", test_topic_sections },
	{ "cross checks", test_cross_checks },
	{ "kafka_listen", test_kafka_listen },
	{ "tls", test_tls },
	{ "reload class of every key", test_reload_classes });
