/*
 * Topic settings (issue 27) against a running broker, through Kafka's
 * CreateTopics, DescribeConfigs, AlterConfigs and IncrementalAlterConfigs
 * made with the codec: a topic created with retention.ms=1000 loses its
 * old segments, a cleanup.policy=compact one keeps them, an alteration
 * is in force at once and after a restart (topic.config), every value is
 * answered with its source, bad input changes nothing, permissions, and
 * the produce limits (max.message.bytes, timestamps).
 *
 * The broker: retention_check_ms 100, retention_ms 3600000 in flume.conf
 * (STATIC_BROKER_CONFIG), a [topic sect] section with segment_bytes 8K.
 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_admin.h"
#include "proto/kafka/kmsg_config.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/batch.h"
#include "proto/batch_codec.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "tests/harness.h"
#include "tests/integration/kcall.h"
#include "tests/integration/support.h"

static struct flumed d, da;

static int
setup(void)
{
	if (flumed_start_kafka(&d, NULL, "partitions = 1\n"
	    "client_log_interval_ms = 0\nretention_check_ms = 100\n"
	    "retention_ms = 3600000\n"
	    "[topic sect]\nsegment_bytes = 8K\n") != 0 ||
	    flumed_start_kafka(&da, "alice:alice-pw:produce,consume,admin\n"
	    "bob:bob-pw:consume\ncarol:carol-pw:produce\n",
	    "client_log_interval_ms = 0\npartitions = 1\n") != 0)
		return -1;
	return 0;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	flumed_cleanup(&da);
	return 0;
}

/* ---- requests ---- */

/* CreateTopics v7 of name (1 partition) with n configs: its error. */
static int16_t
create(int fd, const char *name, const struct km_topic_config *cf, int n,
    const char **why)
{
	static char msg[256];
	struct km_create_topics_req q;
	struct km_create_topics_resp s;
	struct km_creatable_topic t;
	const struct km_created_topic *rt;
	int16_t err;

	kdesc_defaults(kmsg_create_topics.km_req, &q);
	memset(&t, 0, sizeof(t));
	t.name = kstr_c(name);
	t.num_partitions = -1;
	t.replication_factor = -1;
	t.configs.n = n;
	t.configs.v = (void *)(uintptr_t)cf;
	q.topics.n = 1;
	q.topics.v = &t;
	q.timeout_ms = 10000;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 7, 1, &q, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	rt = s.topics.v;
	err = rt->error_code;
	msg[0] = '\0';
	if (rt->error_message.len > 0)
		snprintf(msg, sizeof(msg), "%.*s", (int)rt->error_message.len,
		    rt->error_message.p);
	if (why != NULL)
		*why = msg;
	kcall_release();
	return err;
}

/*
 * IncrementalAlterConfigs v1 (incremental) or AlterConfigs v2 of topic
 * name: names[i] = values[i] with ops[i] (incremental): its error.
 */
static int16_t
alter(int fd, int incremental, int8_t type, const char *name, int n,
    const char *const *names, const char *const *values, const int8_t *ops,
    int validate, char *why, size_t whylen)
{
	struct km_alter_configs_req q;
	struct km_alter_configs_resp s;
	struct km_alter_configs_resource r;
	struct km_alterable_config cf[8];
	const struct km_alter_configs_result *rr;
	const struct kmsg *m = incremental ? &kmsg_incremental_alter_configs :
	    &kmsg_alter_configs;
	int16_t err;
	int i;

	kdesc_defaults(m->km_req, &q);
	memset(&r, 0, sizeof(r));
	memset(cf, 0, sizeof(cf));
	for (i = 0; i < n; i++) {
		cf[i].name = kstr_c(names[i]);
		cf[i].value = kstr_c(values[i]);
		cf[i].config_operation = ops != NULL ? ops[i] : 0;
	}
	r.resource_type = type;
	r.resource_name = kstr_c(name);
	r.configs.n = n;
	r.configs.v = cf;
	q.resources.n = 1;
	q.resources.v = &r;
	q.validate_only = (uint8_t)validate;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, m, incremental ? 1 : 2, 2, &q, &s), 0);
	CU_ASSERT_EQUAL(s.throttle_time_ms, 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	rr = s.responses.v;
	CU_ASSERT_EQUAL(rr->resource_type, type);
	CU_ASSERT(kstr_eq(rr->resource_name, name));
	err = rr->error_code;
	if (why != NULL)
		snprintf(why, whylen, "%.*s", rr->error_message.len > 0 ?
		    (int)rr->error_message.len : 0, rr->error_message.p);
	kcall_release();
	return err;
}

/* One described setting. */
struct dval {
	char	value[64];
	int	source;
	int	read_only;
	int	nsyn;
	int	syn_src[3];
	char	syn_name[3][64];
	int	type;
	int	has_doc;
};

/*
 * DescribeConfigs at v of (type, name) for key (NULL: every key; the
 * count is returned) with synonyms and documentation: its error, the
 * key's answer in *out.
 */
static int16_t
describe(int fd, int16_t v, int8_t type, const char *name, const char *key,
    struct dval *out, int *count)
{
	struct km_describe_configs_req q;
	struct km_describe_configs_resp s;
	struct km_describe_configs_resource r;
	const struct km_describe_configs_result *rr;
	const struct km_describe_configs_config *c;
	const struct km_describe_configs_synonym *sy;
	struct kstr k = kstr_c(key);
	int16_t err;
	int i, j;

	kdesc_defaults(kmsg_describe_configs.km_req, &q);
	memset(&r, 0, sizeof(r));
	r.resource_type = type;
	r.resource_name = kstr_c(name);
	r.configuration_keys.n = key != NULL ? 1 : -1;
	r.configuration_keys.v = key != NULL ? &k : NULL;
	q.resources.n = 1;
	q.resources.v = &r;
	q.include_synonyms = 1;
	q.include_documentation = 1;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_describe_configs, v, 3, &q, &s),
	    0);
	CU_ASSERT_EQUAL_FATAL(s.results.n, 1);
	rr = s.results.v;
	CU_ASSERT_EQUAL(rr->resource_type, type);
	CU_ASSERT(kstr_eq(rr->resource_name, name));
	err = rr->error_code;
	if (count != NULL)
		*count = rr->configs.n;
	memset(out, 0, sizeof(*out));
	c = rr->configs.v;
	for (i = 0; key != NULL && i < rr->configs.n; i++) {
		if (!kstr_eq(c[i].name, key))
			continue;
		snprintf(out->value, sizeof(out->value), "%.*s",
		    (int)c[i].value.len, c[i].value.p);
		out->source = v >= 1 ? c[i].config_source : c[i].is_default;
		out->read_only = c[i].read_only;
		out->nsyn = c[i].synonyms.n;
		sy = c[i].synonyms.v;
		for (j = 0; j < c[i].synonyms.n && j < 3; j++) {
			out->syn_src[j] = sy[j].source;
			snprintf(out->syn_name[j], sizeof(out->syn_name[j]),
			    "%.*s", (int)sy[j].name.len, sy[j].name.p);
		}
		out->type = c[i].config_type;
		out->has_doc = c[i].documentation.len > 0;
	}
	kcall_release();
	return err;
}

/* The value of key on topic now (DescribeConfigs v4), in a static buffer. */
static const char *
value_of(int fd, const char *topic, const char *key, int *source)
{
	static struct dval dv;

	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_TOPIC, topic, key,
	    &dv, NULL), 0);
	if (source != NULL)
		*source = dv.source;
	return dv.value;
}

/* Produce one message of size bytes to topic (one batch) with flume-produce. */
static int
produce(const struct flumed *b, const char *topic, size_t size)
{
	char *msg;
	int rc;

	if ((msg = malloc(size + 1)) == NULL)
		return -1;
	memset(msg, 'm', size);
	msg[size] = '\0';
	{
		/* Keyed: a compacted topic refuses a record without a key. */
		const char *argv[] = { "flume-produce", "-t", topic, "-k", "k",
		    msg, NULL };

		rc = run_tool(b, NULL, NULL, 30000, argv);
	}
	free(msg);
	return rc;
}

/* Segment files (.log) of topic's partition 0; -1 when unreadable. */
static int
segments(const struct flumed *b, const char *topic, int *has_first)
{
	char path[1024];
	struct dirent *e;
	DIR *dp;
	int n = 0;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s/partition-0", b->data, topic);
	if ((dp = opendir(path)) == NULL)
		return -1;
	if (has_first != NULL)
		*has_first = 0;
	while ((e = readdir(dp)) != NULL) {
		len = strlen(e->d_name);
		if (len > 4 && strcmp(e->d_name + len - 4, ".log") == 0) {
			n++;
			if (has_first != NULL && strcmp(e->d_name,
			    "00000000000000000000.log") == 0)
				*has_first = 1;
		}
	}
	closedir(dp);
	return n;
}

/* The text of topic's topic.config, in a static buffer ("" when none). */
static const char *
topic_config_text(const struct flumed *b, const char *topic)
{
	static char text[2048];
	char path[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s/topic.config", b->data, topic);
	text[0] = '\0';
	if ((f = fopen(path, "r")) == NULL)
		return text;
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static struct km_topic_config
tc(const char *name, const char *value)
{
	struct km_topic_config c;

	c.name = kstr_c(name);
	c.value = kstr_c(value);
	return c;
}

/*
 * Produce v8 of one record stamped ts to topic partition 0: its error,
 * the answer's log_append_time_ms into *lat.
 */
static int16_t
kproduce(int fd, const char *topic, int64_t ts, int64_t *lat)
{
	struct batch_builder bb;
	struct km_produce_req q;
	struct km_produce_resp s;
	struct km_produce_topic t;
	struct km_produce_part p;
	const struct km_produce_topic_resp *rt;
	const struct km_produce_part_resp *rp;
	const uint8_t *batch;
	size_t blen;
	int16_t err;

	batch_builder_init(&bb);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, ts, NULL, -1, "v", 1, NULL,
	    0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &batch, &blen), 0);
	kdesc_defaults(kmsg_produce.km_req, &q);
	memset(&t, 0, sizeof(t));
	memset(&p, 0, sizeof(p));
	p.index = 0;
	p.records.p = (const char *)batch;
	p.records.len = (int32_t)blen;
	t.name = kstr_c(topic);
	t.partition_data.n = 1;
	t.partition_data.v = &p;
	q.acks = 1;
	q.timeout_ms = 10000;
	q.topic_data.n = 1;
	q.topic_data.v = &t;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_produce, 8, 5, &q, &s), 0);
	batch_builder_free(&bb);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	rt = s.responses.v;
	CU_ASSERT_EQUAL_FATAL(rt->partition_responses.n, 1);
	rp = rt->partition_responses.v;
	err = rp->error_code;
	*lat = rp->log_append_time_ms;
	kcall_release();
	return err;
}

/* ---- tests ---- */

/*
 * Created with retention.ms=1000 and segment.bytes=4096: six batches of
 * 2000 bytes make six segments; the five closed ones go once a second
 * has passed.  Created cleanup.policy=compact with retention.ms=1: all
 * six stay, also after the delete topic's retention ran.  Then compact
 * becomes compact,delete with IncrementalAlterConfigs APPEND: its
 * segments go too, without a restart.
 */
static void
test_retention_and_compact(void)
{
	struct km_topic_config del[2], cmp[4];
	const char *why;
	int fd, i, first = 1;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	del[0] = tc("retention.ms", "1000");
	del[1] = tc("segment.bytes", "4096");
	CU_ASSERT_EQUAL_FATAL(create(fd, "rdel", del, 2, &why), 0);
	cmp[0] = tc("cleanup.policy", "compact");
	cmp[1] = tc("retention.ms", "1");
	cmp[2] = tc("segment.bytes", "4096");
	/* The cleaner leaves it alone: this is about retention. */
	cmp[3] = tc("min.compaction.lag.ms", "3600000");
	CU_ASSERT_EQUAL_FATAL(create(fd, "rcmp", cmp, 4, &why), 0);
	for (i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL_FATAL(produce(&d, "rdel", 2000), 0);
		CU_ASSERT_EQUAL_FATAL(produce(&d, "rcmp", 2000), 0);
	}
	/* Acknowledged is in the ring: the writer writes them soon after. */
	WAIT_UNTIL(segments(&d, "rcmp", NULL) == 6, 10000);
	CU_ASSERT_EQUAL(segments(&d, "rcmp", NULL), 6);
	WAIT_UNTIL(segments(&d, "rdel", &first) == 1, 15000);
	CU_ASSERT_EQUAL(segments(&d, "rdel", &first), 1);
	CU_ASSERT_EQUAL(first, 0);
	/* The same retention passes kept every segment of the compact one. */
	CU_ASSERT_EQUAL(segments(&d, "rcmp", &first), 6);
	CU_ASSERT_EQUAL(first, 1);
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "rcmp"),
	    "cleanup.policy=compact\nmin.compaction.lag.ms=3600000\n"
	    "retention.ms=1\nsegment.bytes=4096\n");

	{
		const char *names[] = { "cleanup.policy" };
		const char *values[] = { "delete" };
		const int8_t ops[] = { 2 };	/* APPEND */

		CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "rcmp", 1,
		    names, values, ops, 0, NULL, 0), 0);
	}
	CU_ASSERT_STRING_EQUAL(value_of(fd, "rcmp", "cleanup.policy", NULL),
	    "compact,delete");
	WAIT_UNTIL(segments(&d, "rcmp", NULL) == 1, 15000);
	CU_ASSERT_EQUAL(segments(&d, "rcmp", NULL), 1);
	close(fd);
}

/*
 * Every value with its source: the topic's own (1), flume.conf's global
 * (4) and [topic sect] (4), the default (5); v0 says IsDefault; the
 * synonyms, most specific first, under Kafka's broker names; config
 * types and documentation (v3+); the broker resource, read only.
 */
static void
test_describe_sources(void)
{
	struct km_topic_config cf[1];
	struct dval dv;
	int fd, n, src;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	cf[0] = tc("max.message.bytes", "200000");
	CU_ASSERT_EQUAL_FATAL(create(fd, "dsrc", cf, 1, NULL), 0);
	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_TOPIC, "dsrc", NULL,
	    &dv, &n), 0);
	CU_ASSERT_EQUAL(n, 19);

	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_TOPIC, "dsrc",
	    "max.message.bytes", &dv, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dv.value, "200000");
	CU_ASSERT_EQUAL(dv.source, 1);
	CU_ASSERT_EQUAL(dv.read_only, 0);
	CU_ASSERT_EQUAL(dv.type, 3);		/* INT */
	CU_ASSERT(dv.has_doc);
	CU_ASSERT_EQUAL(dv.nsyn, 2);
	CU_ASSERT_EQUAL(dv.syn_src[0], 1);
	CU_ASSERT_STRING_EQUAL(dv.syn_name[0], "max.message.bytes");
	CU_ASSERT_EQUAL(dv.syn_src[1], 5);
	CU_ASSERT_STRING_EQUAL(dv.syn_name[1], "message.max.bytes");

	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_TOPIC, "dsrc",
	    "retention.ms", &dv, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dv.value, "3600000");
	CU_ASSERT_EQUAL(dv.source, 4);
	CU_ASSERT_EQUAL(dv.type, 5);		/* LONG */
	CU_ASSERT_EQUAL(dv.nsyn, 2);
	CU_ASSERT_EQUAL(dv.syn_src[0], 4);
	CU_ASSERT_STRING_EQUAL(dv.syn_name[0], "log.retention.ms");
	CU_ASSERT_EQUAL(dv.syn_src[1], 5);

	CU_ASSERT_STRING_EQUAL(value_of(fd, "dsrc", "cleanup.policy", &src),
	    "delete");
	CU_ASSERT_EQUAL(src, 5);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "dsrc", "min.cleanable.dirty.ratio",
	    &src), "0.5");
	CU_ASSERT_STRING_EQUAL(value_of(fd, "dsrc", "message.timestamp.type",
	    &src), "CreateTime");
	/* [topic sect], made at start: flume.conf's, so STATIC_BROKER_CONFIG. */
	CU_ASSERT_STRING_EQUAL(value_of(fd, "sect", "segment.bytes", &src),
	    "8192");
	CU_ASSERT_EQUAL(src, 4);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "dsrc", "segment.bytes", &src),
	    "1073741824");
	CU_ASSERT_EQUAL(src, 5);

	/* v0: IsDefault instead of a source; no synonyms. */
	CU_ASSERT_EQUAL(describe(fd, 0, KCONFIG_RESOURCE_TOPIC, "dsrc",
	    "segment.bytes", &dv, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dv.value, "1073741824");
	CU_ASSERT_EQUAL(dv.source, 1);		/* is_default */
	CU_ASSERT_EQUAL(dv.nsyn, 0);
	CU_ASSERT_EQUAL(describe(fd, 1, KCONFIG_RESOURCE_TOPIC, "dsrc",
	    "segment.bytes", &dv, NULL), 0);
	CU_ASSERT_EQUAL(dv.source, 5);
	CU_ASSERT_EQUAL(dv.type, 0);		/* v3+ only */

	/* The broker, "" or "0": Kafka's broker names, read only. */
	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_BROKER, "0",
	    "log.retention.ms", &dv, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dv.value, "3600000");
	CU_ASSERT_EQUAL(dv.source, 4);
	CU_ASSERT_EQUAL(dv.read_only, 1);
	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_BROKER, "",
	    "log.segment.bytes", &dv, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dv.value, "1073741824");
	CU_ASSERT_EQUAL(dv.source, 5);
	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_BROKER, "7",
	    "log.segment.bytes", &dv, NULL), KERR_INVALID_REQUEST);
	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_TOPIC, "nosuch",
	    NULL, &dv, NULL), KERR_UNKNOWN_TOPIC_OR_PARTITION);
	close(fd);
}

/*
 * AlterConfigs replaces the set, IncrementalAlterConfigs edits it; in
 * force at once (a produce over the new max.message.bytes is refused),
 * saved in topic.config, and the same after a restart.
 */
static void
test_alter_in_force_and_after_restart(void)
{
	const char *n2[] = { "retention.ms", "max.message.bytes" };
	const char *v2[] = { "5000", "1000" };
	const char *n1[] = { "retention.ms" };
	const int8_t del[] = { 1 };	/* DELETE */
	int fd, src;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	CU_ASSERT_EQUAL_FATAL(create(fd, "alt", NULL, 0, NULL), 0);
	CU_ASSERT_EQUAL(produce(&d, "alt", 1500), 0);
	CU_ASSERT_EQUAL(alter(fd, 0, KCONFIG_RESOURCE_TOPIC, "alt", 2, n2, v2,
	    NULL, 0, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "alt", "retention.ms", &src),
	    "5000");
	CU_ASSERT_EQUAL(src, 1);
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "alt"),
	    "max.message.bytes=1000\nretention.ms=5000\n");
	/* In force at once: the same produce is now too large. */
	CU_ASSERT_NOT_EQUAL(produce(&d, "alt", 1500), 0);
	CU_ASSERT_EQUAL(produce(&d, "alt", 100), 0);
	/* AlterConfigs replaces: retention.ms alone stays. */
	CU_ASSERT_EQUAL(alter(fd, 0, KCONFIG_RESOURCE_TOPIC, "alt", 1, n1, v2,
	    NULL, 0, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "alt", "max.message.bytes", &src),
	    "1048576");
	CU_ASSERT_EQUAL(src, 5);
	CU_ASSERT_EQUAL(produce(&d, "alt", 1500), 0);
	/* Incremental SET, then the restart. */
	{
		const char *n[] = { "max.message.bytes", "segment.ms" };
		const char *v[] = { "2000", "60000" };

		CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "alt", 2,
		    n, v, NULL, 0, NULL, 0), 0);
	}
	close(fd);
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "alt", "retention.ms", &src),
	    "5000");
	CU_ASSERT_EQUAL(src, 1);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "alt", "max.message.bytes", &src),
	    "2000");
	CU_ASSERT_STRING_EQUAL(value_of(fd, "alt", "segment.ms", &src),
	    "60000");
	CU_ASSERT_NOT_EQUAL(produce(&d, "alt", 2500), 0);
	CU_ASSERT_EQUAL(produce(&d, "alt", 1500), 0);
	/* DELETE: back to flume.conf's. */
	CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "alt", 1, n1, v2,
	    del, 0, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "alt", "retention.ms", &src),
	    "3600000");
	CU_ASSERT_EQUAL(src, 4);
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "alt"),
	    "max.message.bytes=2000\nsegment.ms=60000\n");
	close(fd);
}

/*
 * Bad input: an unknown key, a negative retention, a bad type, a value
 * out of range, min.insync.replicas 2, and one bad key among good ones:
 * INVALID_CONFIG naming the key, nothing changed (nor created);
 * validate_only changes nothing; the broker's settings are refused.
 */
static void
test_bad_input_changes_nothing(void)
{
	static const struct {
		const char *key, *value, *why;
	} bad[] = {
		{ "retention.mss", "1", "unknown topic setting 'retention.mss'" },
		{ "retention.ms", "-5", "invalid value '-5' for retention.ms: "
		    "expected -1 or an integer from 0 to 9223372036854775807" },
		{ "segment.bytes", "big", "invalid value 'big' for segment.bytes: "
		    "expected an integer from 4096 to 2147483647" },
		{ "cleanup.policy", "remove", "invalid value 'remove' for "
		    "cleanup.policy: expected delete, compact or compact,delete" },
		{ "min.insync.replicas", "2", "invalid value '2' for "
		    "min.insync.replicas: expected 1 (the only value one broker "
		    "can honour)" },
		{ "unclean.leader.election.enable", "yes", "invalid value 'yes' "
		    "for unclean.leader.election.enable: expected true or false" },
	};
	struct km_topic_config cf[2];
	char why[256];
	const char *w;
	const char *names[2], *values[2];
	size_t i;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	CU_ASSERT_EQUAL_FATAL(create(fd, "bad", NULL, 0, NULL), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		names[0] = "retention.ms";
		values[0] = "7000";
		names[1] = bad[i].key;
		values[1] = bad[i].value;
		CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "bad", 2,
		    names, values, NULL, 0, why, sizeof(why)),
		    KERR_INVALID_CONFIG);
		CU_ASSERT_STRING_EQUAL(why, bad[i].why);
		CU_ASSERT_EQUAL(alter(fd, 0, KCONFIG_RESOURCE_TOPIC, "bad", 2,
		    names, values, NULL, 0, why, sizeof(why)),
		    KERR_INVALID_CONFIG);
		CU_ASSERT_STRING_EQUAL(why, bad[i].why);
		/* The good key beside it was not applied either. */
		CU_ASSERT_STRING_EQUAL(value_of(fd, "bad", "retention.ms",
		    NULL), "3600000");
		cf[0] = tc("retention.ms", "7000");
		cf[1] = tc(bad[i].key, bad[i].value);
		CU_ASSERT_EQUAL(create(fd, "bad2", cf, 2, &w),
		    KERR_INVALID_CONFIG);
		CU_ASSERT_STRING_EQUAL(w, bad[i].why);
	}
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "bad"), "");
	/* Never created. */
	CU_ASSERT_EQUAL(describe(fd, 4, KCONFIG_RESOURCE_TOPIC, "bad2", NULL,
	    &(struct dval){ 0 }, NULL), KERR_UNKNOWN_TOPIC_OR_PARTITION);
	/* validate_only: checked, not applied. */
	names[0] = "retention.ms";
	values[0] = "7000";
	CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "bad", 1, names,
	    values, NULL, 1, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "bad", "retention.ms", NULL),
	    "3600000");
	/* SUBTRACT of the last policy leaves none. */
	{
		const char *n[] = { "cleanup.policy" };
		const char *v[] = { "delete" };
		const int8_t ops[] = { 3 };

		CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "bad", 1,
		    n, v, ops, 0, why, sizeof(why)), KERR_INVALID_CONFIG);
		CU_ASSERT_STRING_EQUAL(why, "cleanup.policy may not be empty");
	}
	/* The broker's settings are flume.conf's. */
	names[0] = "log.retention.ms";
	CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_BROKER, "0", 1, names,
	    values, NULL, 0, why, sizeof(why)), KERR_INVALID_REQUEST);
	CU_ASSERT_STRING_EQUAL(why, "broker settings are set in flume.conf "
	    "(a SIGHUP reloads it)");
	CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "nosuch", 1,
	    names, values, NULL, 0, NULL, 0), KERR_UNKNOWN_TOPIC_OR_PARTITION);
	close(fd);
}

/* SASL/PLAIN login on the auth broker: 0 or -1. */
static int
plain_login(int fd, const char *user, const char *pw)
{
	char body[128];
	uint8_t frame[256];
	uint8_t *p = NULL;
	size_t n = 0, ulen = strlen(user), plen = strlen(pw), blen;
	uint32_t id = 0;
	int ok;

	/* SaslHandshake v1 "PLAIN". */
	if (support_kafka_send(fd, KAPI_SASL_HANDSHAKE, 1, 900,
	    (const uint8_t *)"\0\5PLAIN", 7) != 0 ||
	    support_recv(fd, 10000, &id, &p, &n) != 1)
		return -1;
	ok = n >= 2 && p[0] == 0 && p[1] == 0;
	free(p);
	if (!ok)
		return -1;
	/* SaslAuthenticate v0: bytes "\0user\0pw". */
	body[0] = '\0';
	memcpy(body + 1, user, ulen);
	body[1 + ulen] = '\0';
	memcpy(body + 2 + ulen, pw, plen);
	blen = 2 + ulen + plen;
	frame[0] = (uint8_t)(blen >> 24);
	frame[1] = (uint8_t)(blen >> 16);
	frame[2] = (uint8_t)(blen >> 8);
	frame[3] = (uint8_t)blen;
	memcpy(frame + 4, body, blen);
	p = NULL;
	if (support_kafka_send(fd, KAPI_SASL_AUTHENTICATE, 0, 901, frame,
	    blen + 4) != 0 || support_recv(fd, 10000, &id, &p, &n) != 1)
		return -1;
	ok = n >= 2 && p[0] == 0 && p[1] == 0;
	free(p);
	return ok ? 0 : -1;
}

/*
 * Permissions: describe needs consume or admin (carol, produce only:
 * TOPIC_AUTHORIZATION_FAILED), alter admin (bob, consume:
 * TOPIC_AUTHORIZATION_FAILED; the broker: CLUSTER_AUTHORIZATION_FAILED).
 */
static void
test_permissions(void)
{
	const char *n[] = { "retention.ms" };
	const char *v[] = { "1000" };
	struct dval dv;
	int fa, fb, fc;

	CU_ASSERT_FATAL((fa = support_kconnect(&da)) >= 0);
	CU_ASSERT_EQUAL_FATAL(plain_login(fa, "alice", "alice-pw"), 0);
	CU_ASSERT_EQUAL_FATAL(create(fa, "perm", NULL, 0, NULL), 0);
	CU_ASSERT_FATAL((fb = support_kconnect(&da)) >= 0);
	CU_ASSERT_EQUAL_FATAL(plain_login(fb, "bob", "bob-pw"), 0);
	CU_ASSERT_FATAL((fc = support_kconnect(&da)) >= 0);
	CU_ASSERT_EQUAL_FATAL(plain_login(fc, "carol", "carol-pw"), 0);

	CU_ASSERT_EQUAL(describe(fb, 4, KCONFIG_RESOURCE_TOPIC, "perm",
	    "retention.ms", &dv, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dv.value, "604800000");
	CU_ASSERT_EQUAL(describe(fc, 4, KCONFIG_RESOURCE_TOPIC, "perm",
	    "retention.ms", &dv, NULL), KERR_TOPIC_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(alter(fb, 1, KCONFIG_RESOURCE_TOPIC, "perm", 1, n, v,
	    NULL, 0, NULL, 0), KERR_TOPIC_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(alter(fb, 1, KCONFIG_RESOURCE_BROKER, "0", 1, n, v,
	    NULL, 0, NULL, 0), KERR_CLUSTER_AUTHORIZATION_FAILED);
	CU_ASSERT_EQUAL(describe(fb, 4, KCONFIG_RESOURCE_TOPIC, "perm",
	    "retention.ms", &dv, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dv.value, "604800000");
	CU_ASSERT_EQUAL(alter(fa, 1, KCONFIG_RESOURCE_TOPIC, "perm", 1, n, v,
	    NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(describe(fb, 4, KCONFIG_RESOURCE_TOPIC, "perm",
	    "retention.ms", &dv, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dv.value, "1000");
	close(fa);
	close(fb);
	close(fc);
}

/* The line of key in flume-admin config's output, or NULL. */
static const char *
config_line(const char *out, const char *key, char *line, size_t size)
{
	const char *p = out, *nl;
	size_t klen = strlen(key);

	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
			snprintf(line, size, "%.*s", (int)(nl != NULL ? nl - p :
			    (long)strlen(p)), p);
			return line;
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
	return NULL;
}

/*
 * flume-admin config over the native CONFIG_DESCRIBE and CONFIG_ALTER:
 * show with sources, set several keys at once, delete, a bad key refused
 * with nothing applied, the broker's settings.
 */
static void
test_flume_admin_config(void)
{
	char *out = NULL, line[256];
	int n;

	{
		const char *argv[] = { "flume-admin", "create", "adm", "-p",
		    "1", NULL };

		CU_ASSERT_EQUAL_FATAL(run_tool(&d, NULL, NULL, 30000, argv), 0);
	}
	{
		const char *argv[] = { "flume-admin", "config", "adm", "set",
		    "retention.ms=90000", "cleanup.policy=compact,delete", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
		CU_ASSERT_STRING_EQUAL(out, "adm: 2 settings set\n");
		free(out);
	}
	{
		const char *argv[] = { "flume-admin", "config", "adm", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
		for (n = 0; out[n] != '\0'; n++)
			;
		CU_ASSERT(n > 0);
		CU_ASSERT_PTR_NOT_NULL(config_line(out, "retention.ms", line,
		    sizeof(line)));
		CU_ASSERT_STRING_EQUAL(line, "retention.ms                         "
		    "90000                topic");
		CU_ASSERT_PTR_NOT_NULL(config_line(out, "cleanup.policy", line,
		    sizeof(line)));
		CU_ASSERT_STRING_EQUAL(line, "cleanup.policy                       "
		    "compact,delete       topic");
		CU_ASSERT_PTR_NOT_NULL(config_line(out, "segment.bytes", line,
		    sizeof(line)));
		CU_ASSERT_STRING_EQUAL(line, "segment.bytes                        "
		    "1073741824           default");
		free(out);
	}
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "adm"),
	    "cleanup.policy=compact,delete\nretention.ms=90000\n");
	{
		/* One bad key: nothing applied, exit 1. */
		const char *argv[] = { "flume-admin", "config", "adm", "set",
		    "segment.ms=5", "retention.ms=-7", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 30000, argv), 1);
		CU_ASSERT_EQUAL(flumed_wait_log(&d, "invalid value '-7' for "
		    "retention.ms", 1, 5000), 1);
	}
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "adm"),
	    "cleanup.policy=compact,delete\nretention.ms=90000\n");
	{
		const char *argv[] = { "flume-admin", "config", "adm", "delete",
		    "cleanup.policy", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
		CU_ASSERT_STRING_EQUAL(out, "adm: 1 setting deleted\n");
		free(out);
	}
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "adm"),
	    "retention.ms=90000\n");
	{
		const char *argv[] = { "flume-admin", "config", "--broker", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 30000, argv), 0);
		CU_ASSERT_PTR_NOT_NULL(config_line(out, "log.retention.ms", line,
		    sizeof(line)));
		CU_ASSERT_STRING_EQUAL(line, "log.retention.ms                     "
		    "3600000              flume.conf");
		free(out);
	}
	{
		const char *argv[] = { "flume-admin", "config", "nosuch", NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, NULL, 30000, argv), 1);
	}
}

/*
 * message.timestamp.before.max.ms / after.max.ms refuse a CreateTime
 * record an hour off (INVALID_TIMESTAMP, nothing stored); turned into a
 * LogAppendTime topic at once, the same record is taken and stamped.
 */
static void
test_timestamps(void)
{
	struct km_topic_config cf[2];
	const char *n[] = { "message.timestamp.type" };
	const char *v[] = { "LogAppendTime" };
	long long now;
	int64_t lat;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	cf[0] = tc("message.timestamp.before.max.ms", "60000");
	cf[1] = tc("message.timestamp.after.max.ms", "60000");
	CU_ASSERT_EQUAL_FATAL(create(fd, "tst", cf, 2, NULL), 0);
	now = (long long)time(NULL) * 1000;
	CU_ASSERT_EQUAL(kproduce(fd, "tst", now, &lat), 0);
	CU_ASSERT_EQUAL(lat, -1);
	CU_ASSERT_EQUAL(kproduce(fd, "tst", now - 3600000, &lat),
	    KERR_INVALID_TIMESTAMP);
	CU_ASSERT_EQUAL(kproduce(fd, "tst", now + 3600000, &lat),
	    KERR_INVALID_TIMESTAMP);
	CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "tst", 1, n, v,
	    NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(kproduce(fd, "tst", now - 3600000, &lat), 0);
	CU_ASSERT(lat >= now && lat < now + 60000);
	close(fd);
}

/* The first segment of topic's partition 0 (malloc'ed), its length in *n. */
static uint8_t *
first_segment(const struct flumed *b, const char *topic, size_t *n)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s/partition-0/"
	    "00000000000000000000.log", b->data, topic);
	return test_slurp(path, n);
}

/*
 * compression.type zstd: a batch produced uncompressed is stored as one
 * zstd batch with the same record; back to producer, the next is stored
 * as it came.
 */
static void
test_compression_type(void)
{
	struct km_topic_config cf[1];
	struct compress_buf z;
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	const char *n[] = { "compression.type" };
	const char *v[] = { "producer" };
	uint8_t *seg = NULL;
	size_t len = 0, first;
	int64_t lat;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	cf[0] = tc("compression.type", "zstd");
	CU_ASSERT_EQUAL_FATAL(create(fd, "zst", cf, 1, NULL), 0);
	CU_ASSERT_EQUAL(kproduce(fd, "zst", 1234, &lat), 0);
	CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "zst", 1, n, v,
	    NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(kproduce(fd, "zst", 1235, &lat), 0);
	WAIT_UNTIL((free(seg), seg = first_segment(&d, "zst", &len)) != NULL &&
	    len >= 2 * BATCH_HEADER_SIZE, 10000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(seg);
	compress_buf_init(&z, 1 << 20);
	CU_ASSERT_FATAL(len >= BATCH_HEADER_SIZE);
	first = BATCH_LOG_OVERHEAD + (size_t)be32_get(seg + BATCH_OFF_LENGTH);
	CU_ASSERT_FATAL(first < len);
	CU_ASSERT_EQUAL(batch_codec(seg), COMPRESS_ZSTD);
	CU_ASSERT_EQUAL_FATAL(batch_validate_z(seg, first, &h, &z), BATCH_OK);
	CU_ASSERT_EQUAL(h.records_count, 1);
	CU_ASSERT_EQUAL(h.first_timestamp, 1234);
	CU_ASSERT_EQUAL_FATAL(batch_iter_init_z(&it, seg, first, &z), 0);
	CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.value_len, 1);
	CU_ASSERT_EQUAL(r.value[0], 'v');
	CU_ASSERT_EQUAL(r.offset, 0);
	CU_ASSERT_EQUAL(batch_codec(seg + first), COMPRESS_NONE);
	CU_ASSERT_EQUAL(batch_validate_z(seg + first, len - first, &h, &z),
	    BATCH_OK);
	CU_ASSERT_EQUAL(h.first_timestamp, 1235);
	compress_buf_free(&z);
	free(seg);
	close(fd);
}

/*
 * segment.ms=1000: an append to a segment older than a second rolls a
 * new one; one younger does not.
 */
static void
test_segment_ms(void)
{
	struct km_topic_config cf[1];
	long long t0, now;
	int64_t lat;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	cf[0] = tc("segment.ms", "1000");
	CU_ASSERT_EQUAL_FATAL(create(fd, "roll", cf, 1, NULL), 0);
	t0 = support_now_ms();
	/* Now-stamped: retention (an hour here) keeps the closed segment. */
	now = (long long)time(NULL) * 1000;
	CU_ASSERT_EQUAL(kproduce(fd, "roll", now, &lat), 0);
	CU_ASSERT_EQUAL(kproduce(fd, "roll", now, &lat), 0);
	WAIT_UNTIL(segments(&d, "roll", NULL) == 1, 5000);
	if (support_now_ms() - t0 < 900)
		CU_ASSERT_EQUAL(segments(&d, "roll", NULL), 1);
	/* The condition is the segment's age itself. */
	WAIT_UNTIL(support_now_ms() - t0 >= 1100, 2000);
	CU_ASSERT_EQUAL(kproduce(fd, "roll", now + 1000, &lat), 0);
	WAIT_UNTIL(segments(&d, "roll", NULL) == 2, 5000);
	CU_ASSERT_EQUAL(segments(&d, "roll", NULL), 2);
	close(fd);
}

/*
 * A topic.config with a bad line (edited by hand, say): at start the
 * line is logged and skipped, the good ones still apply.
 */
static void
test_bad_file_line(void)
{
	struct km_topic_config cf[1];
	char path[1024];
	FILE *f;
	int fd, src;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	cf[0] = tc("retention.ms", "4000");
	CU_ASSERT_EQUAL_FATAL(create(fd, "hand", cf, 1, NULL), 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(flumed_stop(&d), 0);
	snprintf(path, sizeof(path), "%s/hand/topic.config", d.data);
	CU_ASSERT_FATAL((f = fopen(path, "a")) != NULL);
	fputs("segment.ms=soon\n", f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(flumed_restart(&d), 0);
	CU_ASSERT_EQUAL(flumed_wait_log(&d, "topic hand: topic.config: line 2: "
	    "invalid value 'soon' for segment.ms", 1, 5000), 1);
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "hand", "retention.ms", &src),
	    "4000");
	CU_ASSERT_EQUAL(src, 1);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "hand", "segment.ms", &src),
	    "604800000");
	CU_ASSERT_EQUAL(src, 5);
	close(fd);
}

/* The broker's fdatasync count (flume-admin stats), -1 when unreadable. */
static long long
fsyncs(const struct flumed *b)
{
	const char *argv[] = { "flume-admin", "stats", NULL };
	char *out = NULL, *p;
	long long n = -1;

	if (run_tool(b, NULL, &out, 30000, argv) == 0 && out != NULL &&
	    (p = strstr(out, "\nFSYNC\ncount ")) != NULL)
		n = strtoll(p + 13, NULL, 10);
	free(out);
	return n;
}

/*
 * A broker that never syncs by itself (flush_interval_ms and
 * flush_messages -1): a topic with flush.messages=1 syncs its partition
 * after a produce; another topic's records wait until its flush.ms is
 * set, which applies at once.
 */
static void
test_flush_per_topic(void)
{
	struct km_topic_config cf[1];
	struct flumed nd;
	const char *n[] = { "flush.ms" };
	const char *v[] = { "100" };
	long long c0, c1, now;
	int64_t lat;
	int fd;

	CU_ASSERT_EQUAL_FATAL(flumed_start_kafka(&nd, NULL, "partitions = 1\n"
	    "flush_interval_ms = -1\nflush_messages = -1\n"), 0);
	CU_ASSERT_FATAL((fd = support_kconnect(&nd)) >= 0);
	cf[0] = tc("flush.messages", "1");
	CU_ASSERT_EQUAL_FATAL(create(fd, "fl", cf, 1, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(create(fd, "nf", NULL, 0, NULL), 0);
	now = (long long)time(NULL) * 1000;
	c0 = fsyncs(&nd);
	CU_ASSERT_FATAL(c0 >= 0);
	CU_ASSERT_EQUAL(kproduce(fd, "nf", now, &lat), 0);
	CU_ASSERT_EQUAL(kproduce(fd, "fl", now, &lat), 0);
	WAIT_UNTIL(fsyncs(&nd) > c0, 5000);
	c1 = fsyncs(&nd);
	/* fl's partition alone: nf's record is not synced. */
	CU_ASSERT_EQUAL(c1, c0 + 1);
	CU_ASSERT_EQUAL(alter(fd, 1, KCONFIG_RESOURCE_TOPIC, "nf", 1, n, v,
	    NULL, 0, NULL, 0), 0);
	WAIT_UNTIL(fsyncs(&nd) > c1, 5000);
	CU_ASSERT_EQUAL(fsyncs(&nd), c1 + 1);
	close(fd);
	flumed_cleanup(&nd);
}

/* A deleted topic's settings go with it: made again, it has none. */
static void
test_delete_takes_settings(void)
{
	struct km_topic_config cf[1];
	struct km_delete_topics_req dq;
	struct km_delete_topics_resp ds;
	struct kstr name = kstr_c("gone");
	int fd, src;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	cf[0] = tc("retention.ms", "5000");
	CU_ASSERT_EQUAL_FATAL(create(fd, "gone", cf, 1, NULL), 0);
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "gone"),
	    "retention.ms=5000\n");
	kdesc_defaults(kmsg_delete_topics.km_req, &dq);
	dq.timeout_ms = 10000;
	dq.topic_names.n = 1;
	dq.topic_names.v = &name;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_delete_topics, 1, 6, &dq, &ds),
	    0);
	CU_ASSERT_EQUAL_FATAL(ds.responses.n, 1);
	CU_ASSERT_EQUAL(((const struct km_deleted_topic *)ds.responses.v)->
	    error_code, 0);
	kcall_release();
	CU_ASSERT_EQUAL_FATAL(create(fd, "gone", NULL, 0, NULL), 0);
	CU_ASSERT_STRING_EQUAL(value_of(fd, "gone", "retention.ms", &src),
	    "3600000");
	CU_ASSERT_EQUAL(src, 4);
	CU_ASSERT_STRING_EQUAL(topic_config_text(&d, "gone"), "");
	close(fd);
}

TEST_SUITE("tconfig", setup, teardown,
	{ "retention.ms=1000 deletes, cleanup.policy=compact keeps, APPEND "
	    "delete applies at once", test_retention_and_compact },
	{ "DescribeConfigs: values, sources, synonyms, types, broker",
	    test_describe_sources },
	{ "AlterConfigs and IncrementalAlterConfigs: in force at once and "
	    "after a restart", test_alter_in_force_and_after_restart },
	{ "bad input: INVALID_CONFIG naming the key, nothing applied",
	    test_bad_input_changes_nothing },
	{ "permissions: describe needs consume or admin, alter admin",
	    test_permissions },
	{ "flume-admin config: show, set, delete, bad key, broker",
	    test_flume_admin_config },
	{ "timestamp bounds, LogAppendTime at once", test_timestamps },
	{ "a deleted topic's settings go with it",
	    test_delete_takes_settings },
	{ "compression.type: a batch stored in the topic's codec",
	    test_compression_type },
	{ "segment.ms rolls a segment by age", test_segment_ms },
	{ "a bad topic.config line is skipped at start", test_bad_file_line },
	{ "flush.messages and flush.ms per topic", test_flush_per_topic });
