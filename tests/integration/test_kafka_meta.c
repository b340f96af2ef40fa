/*
 * Metadata (v0-13), CreateTopics (v0-7), DeleteTopics (v0-6),
 * SaslHandshake (v0-1) and SaslAuthenticate (v0-2) through the
 * declarative codec, at their lowest, middle, highest and first flexible
 * versions, against a running broker: real clients' requests
 * (tests/fixtures/kdesc/, captured with tests/tools/kdesc_proxy.py from
 * kafka-python 2.0.2, confluent-kafka / kcat (librdkafka 2.0.2) and
 * kafkajs 2.2.4) and requests made with the codec where no client here
 * sends that version.  Each answer is decoded by the description of its
 * version, which must consume it exactly, and every field is asserted.
 *
 * flume-kafka(7) lists the served versions: the list there must be the
 * one ApiVersions answers (test_man_page_lists_api_versions).
 *
 * Two brokers: one without users (auto_create_topics on, 2 partitions
 * by default), one with an auth_file (SASL, authorized operations).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_admin.h"
#include "proto/kafka/kmsg_meta.h"
#include "proto/kafka/kmsg_sasl.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "tests/integration/kcall.h"
#include "tests/integration/support.h"

#define MANPAGE		"man/flume-kafka.7"
#define NOT_ASKED	INT32_MIN
/* Kafka's authorized operations: every topic and cluster operation. */
#define TOPIC_OPS_ALL	3576	/* READ..ALTER, DESCRIBE, DESCRIBE/ALTER_CONFIGS */
#define CLUSTER_OPS_ALL	8096	/* CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, ... */

static struct flumed d, da;

static int
setup(void)
{
	if (flumed_start_kafka(&d, NULL, "partitions = 2\n"
	    "client_log_interval_ms = 0\nmax_message_bytes = 256K\n"
	    "retention_ms = 3600000\n"
	    "[topic cfg]\npartitions = 1\nretention_ms = 60000\n"
	    "segment_bytes = 1048576\n") != 0 ||
	    flumed_start_kafka(&da, "alice:alice-pw:produce,consume,admin\n"
	    "bob:bob-pw:consume\n", "client_log_interval_ms = 0\n"
	    "[topic s1]\npartitions = 1\n") != 0)
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

static int
kstr_is(struct kstr s, const char *c)
{
	return s.len >= 0 && (size_t)s.len == strlen(c) &&
	    memcmp(s.p, c, (size_t)s.len) == 0;
}

static int
id_zero(const uint8_t *id)
{
	static const uint8_t zero[16];

	return memcmp(id, zero, 16) == 0;
}

/* ---- Metadata ---- */

/* The broker part of a Metadata answer at v, exactly. */
static void
check_meta_broker(const struct km_meta_resp *s, int16_t v, int port)
{
	const struct km_meta_broker *b = s->brokers.v;

	CU_ASSERT_EQUAL(s->throttle_time_ms, 0);
	CU_ASSERT_EQUAL_FATAL(s->brokers.n, 1);
	CU_ASSERT_EQUAL(b->node_id, 0);
	CU_ASSERT(kstr_is(b->host, "127.0.0.1"));
	CU_ASSERT_EQUAL(b->port, port);
	CU_ASSERT_EQUAL(b->rack.len, -1);		/* v0: the default */
	CU_ASSERT(v >= 2 ? kstr_is(s->cluster_id, "flume") :
	    s->cluster_id.len == -1);
	CU_ASSERT_EQUAL(s->controller_id, v >= 1 ? 0 : -1);
	CU_ASSERT_EQUAL(s->cluster_authorized_operations, NOT_ASKED);
	CU_ASSERT_EQUAL(s->error_code, 0);
}

/* A served topic of n partitions at v, exactly; its id into id. */
static void
check_meta_topic(const struct km_meta_topic *t, int16_t v, const char *name,
    int n, int32_t ops, uint8_t *id)
{
	const struct km_meta_part *p = t->partitions.v;
	const int32_t *r, *isr;
	int i;

	CU_ASSERT_EQUAL(t->error_code, 0);
	CU_ASSERT(kstr_is(t->name, name));
	CU_ASSERT_EQUAL(id_zero(t->topic_id), v < 10);
	if (id != NULL)
		memcpy(id, t->topic_id, 16);
	CU_ASSERT_EQUAL(t->is_internal, 0);
	CU_ASSERT_EQUAL(t->topic_authorized_operations, v >= 8 ? ops :
	    NOT_ASKED);
	CU_ASSERT_EQUAL_FATAL(t->partitions.n, n);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(p[i].error_code, 0);
		CU_ASSERT_EQUAL(p[i].partition_index, i);
		CU_ASSERT_EQUAL(p[i].leader_id, 0);
		/* The description's default -1 where the version has none. */
		CU_ASSERT_EQUAL(p[i].leader_epoch, v >= 7 ? 0 : -1);
		CU_ASSERT_EQUAL_FATAL(p[i].replica_nodes.n, 1);
		CU_ASSERT_EQUAL_FATAL(p[i].isr_nodes.n, 1);
		r = p[i].replica_nodes.v;
		isr = p[i].isr_nodes.v;
		CU_ASSERT_EQUAL(r[0], 0);
		CU_ASSERT_EQUAL(isr[0], 0);
		CU_ASSERT_EQUAL(p[i].offline_replicas.n, 0);
	}
}

/* A Metadata request naming topics (NULL: a null list). */
static void
meta_req(struct km_meta_req *q, struct km_meta_req_topic *t,
    const char *const *names, int n, int allow)
{
	int i;

	kdesc_defaults(kmsg_metadata.km_req, q);
	q->allow_auto_topic_creation = (uint8_t)allow;
	if (names == NULL) {
		q->topics.n = -1;
		return;
	}
	for (i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].name = kstr_c(names[i]);
	}
	q->topics.n = n;
	q->topics.v = t;
}

/*
 * One topic named at v0 (the oldest), v1, v5 (sarama 1.0 and 2.1, Burrow),
 * v7 (leader epochs), v9 (the first flexible), v10 (ids), v12 and v13
 * (the newest): every field of the answer as Kafka's schema has it.
 * Unknown names from v4 with auto-creation off are
 * UNKNOWN_TOPIC_OR_PARTITION with a zero id; v12+ answers their names.
 */
static void
test_metadata_every_version(void)
{
	static const int16_t vs[] = { 0, 1, 5, 7, 9, 10, 12, 13 };
	static const char *const names[] = { "m2", "nope" };
	struct km_meta_req_topic t[2];
	struct km_meta_req q;
	struct km_meta_resp s;
	const struct km_meta_topic *rt;
	uint8_t id[16], first[16];
	size_t i;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	for (i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
		/* v0-3 would create "nope": they always may. */
		meta_req(&q, t, names, vs[i] >= 4 ? 2 : 1, vs[i] == 0);
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, vs[i],
		    (int32_t)i + 1, &q, &s), 0);
		check_meta_broker(&s, vs[i], d.kport);
		CU_ASSERT_EQUAL_FATAL(s.topics.n, vs[i] >= 4 ? 2 : 1);
		rt = s.topics.v;
		check_meta_topic(&rt[0], vs[i], "m2", 2, NOT_ASKED, id);
		if (vs[i] == 10)
			memcpy(first, id, 16);
		else if (vs[i] > 10)
			CU_ASSERT_EQUAL(memcmp(first, id, 16), 0);
		if (vs[i] >= 4) {
			CU_ASSERT_EQUAL(rt[1].error_code,
			    KERR_UNKNOWN_TOPIC_OR_PARTITION);
			CU_ASSERT(kstr_is(rt[1].name, "nope"));
			CU_ASSERT(id_zero(rt[1].topic_id));
			CU_ASSERT_EQUAL(rt[1].partitions.n, 0);
		}
		kcall_release();
	}
	close(fd);
}

/*
 * Real clients' Metadata requests: kafka-python's v0 (every topic), v1
 * and v5 (every topic, auto-creation off), kcat's v4 (librdkafka 2.0.2:
 * an empty list, no topic), kafkajs' v6 (every topic).
 */
static void
test_metadata_real_clients(void)
{
	static const char *const files[] = { "kafka-python-Metadata-v0.bin",
	    "kafka-python-Metadata-v1.bin", "kafka-python-Metadata-v5.bin",
	    "kcat-Metadata-v4.bin", "kafkajs-Metadata-v6.bin" };
	/* kcat's first asks for no topic (the brokers only). */
	static const int want[] = { 1, 1, 1, 0, 1 };
	struct km_meta_resp s;
	const struct km_meta_topic *rt;
	int16_t v;
	size_t i;
	int32_t k;
	int fd, seen;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, files[i], &kmsg_metadata, &v,
		    &s), 0);
		check_meta_broker(&s, v, d.kport);
		rt = s.topics.v;
		seen = 0;
		for (k = 0; k < s.topics.n; k++)
			if (kstr_is(rt[k].name, "m2")) {
				check_meta_topic(&rt[k], v, "m2", 2, NOT_ASKED,
				    NULL);
				seen++;
			}
		CU_ASSERT_EQUAL(seen, want[i]);
		if (want[i] == 0)
			CU_ASSERT_EQUAL(s.topics.n, 0);
		kcall_release();
	}
	close(fd);
}

/*
 * Auto-creation as before: v0-3 always may create a named topic, from
 * v4 only when allow_auto_topic_creation is set.
 */
static void
test_metadata_auto_create(void)
{
	static const struct {
		int16_t		 v;
		const char	*name;
		int		 allow, made;
	} cases[] = { { 3, "auto3", 0, 1 }, { 4, "auto4", 0, 0 },
	    { 11, "auto4", 1, 1 } };
	struct km_meta_req_topic t[1];
	struct km_meta_req q;
	struct km_meta_resp s;
	const struct km_meta_topic *rt;
	size_t i;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		meta_req(&q, t, &cases[i].name, 1, cases[i].allow);
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, cases[i].v,
		    (int32_t)i + 1, &q, &s), 0);
		CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
		rt = s.topics.v;
		if (cases[i].made)
			check_meta_topic(&rt[0], cases[i].v, cases[i].name, 2,
			    NOT_ASKED, NULL);
		CU_ASSERT_EQUAL(rt[0].error_code, cases[i].made ? 0 :
		    KERR_UNKNOWN_TOPIC_OR_PARTITION);
		kcall_release();
	}
	/* v1+: an empty list asks for none. */
	meta_req(&q, t, &cases[0].name, 0, 1);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, 9, 9, &q, &s), 0);
	CU_ASSERT_EQUAL(s.topics.n, 0);
	kcall_release();
	close(fd);
}

/* The id Metadata v10 answers for topic on fd. */
static void
meta_id(int fd, const char *topic, uint8_t *id)
{
	const char *names[1] = { topic };
	struct km_meta_req_topic t[1];
	struct km_meta_req q;
	struct km_meta_resp s;
	const struct km_meta_topic *rt;

	meta_req(&q, t, names, 1, 0);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, 10, 99, &q, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	rt = s.topics.v;
	CU_ASSERT_EQUAL(rt[0].error_code, 0);
	memcpy(id, rt[0].topic_id, 16);
	kcall_release();
}

/*
 * v12+ asks by id (KIP-516): a known id is answered with its name, an
 * unknown one UNKNOWN_TOPIC_ID with a null name and the id; v10-11 may
 * not carry ids (INVALID_REQUEST, as Kafka).  Authorized operations when
 * asked (v8+): every topic and cluster operation without an auth_file;
 * the cluster's only in v8-10.
 */
static void
test_metadata_by_id_and_operations(void)
{
	static const uint8_t unknown[16] = { 0xde, 0xad, 0xbe, 0xef, 1 };
	struct km_meta_req_topic t[2];
	struct km_meta_req q;
	struct km_meta_resp s;
	const struct km_meta_topic *rt;
	uint8_t id[16];
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	meta_id(fd, "m2", id);
	kdesc_defaults(kmsg_metadata.km_req, &q);
	memset(t, 0, sizeof(t));
	t[0].name.len = t[1].name.len = -1;
	memcpy(t[0].topic_id, unknown, 16);
	memcpy(t[1].topic_id, id, 16);
	q.topics.n = 2;
	q.topics.v = t;
	q.include_topic_authorized_operations = 1;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, 12, 1, &q, &s), 0);
	check_meta_broker(&s, 12, d.kport);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 2);
	rt = s.topics.v;
	CU_ASSERT_EQUAL(rt[0].error_code, KERR_UNKNOWN_TOPIC_ID);
	CU_ASSERT_EQUAL(rt[0].name.len, -1);
	CU_ASSERT_EQUAL(memcmp(rt[0].topic_id, unknown, 16), 0);
	CU_ASSERT_EQUAL(rt[0].partitions.n, 0);
	CU_ASSERT_EQUAL(rt[0].topic_authorized_operations, NOT_ASKED);
	check_meta_topic(&rt[1], 12, "m2", 2, TOPIC_OPS_ALL, NULL);
	CU_ASSERT_EQUAL(memcmp(rt[1].topic_id, id, 16), 0);
	kcall_release();

	/* v10 with an id: INVALID_REQUEST, the name as given. */
	t[0].name = kstr_c("m2");
	q.topics.n = 1;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, 10, 2, &q, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	rt = s.topics.v;
	CU_ASSERT_EQUAL(rt[0].error_code, KERR_INVALID_REQUEST);
	CU_ASSERT(kstr_is(rt[0].name, "m2"));
	kcall_release();

	/* v8: both sets asked; v11 has no cluster set. */
	memset(t, 0, sizeof(t));
	t[0].name = kstr_c("m2");
	q.include_cluster_authorized_operations = 1;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, 8, 3, &q, &s), 0);
	CU_ASSERT_EQUAL(s.cluster_authorized_operations, CLUSTER_OPS_ALL);
	CU_ASSERT_EQUAL_FATAL(s.topics.n, 1);
	check_meta_topic(s.topics.v, 8, "m2", 2, TOPIC_OPS_ALL, NULL);
	kcall_release();
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, 11, 4, &q, &s), 0);
	CU_ASSERT_EQUAL(s.cluster_authorized_operations, NOT_ASKED);
	check_meta_topic(s.topics.v, 11, "m2", 2, TOPIC_OPS_ALL, NULL);
	kcall_release();
	close(fd);
}

/* ---- CreateTopics ---- */

static void
create_req(struct km_create_topics_req *q, struct km_creatable_topic *t,
    const char *name, int32_t parts, int16_t rf)
{
	kdesc_defaults(kmsg_create_topics.km_req, q);
	memset(t, 0, sizeof(*t));
	t->name = kstr_c(name);
	t->num_partitions = parts;
	t->replication_factor = rf;
	q->topics.n = 1;
	q->topics.v = t;
	q->timeout_ms = 10000;
}

/* One created topic's answer at v, exactly (error 0). */
static void
check_created(const struct km_create_topics_resp *s, int16_t v,
    const char *name, int32_t parts, int validate)
{
	const struct km_created_topic *t = s->topics.v;

	CU_ASSERT_EQUAL(s->throttle_time_ms, 0);
	CU_ASSERT_EQUAL_FATAL(s->topics.n, 1);
	CU_ASSERT(kstr_is(t->name, name));
	CU_ASSERT_EQUAL(t->error_code, 0);
	CU_ASSERT_EQUAL(t->error_message.len, -1);
	CU_ASSERT_EQUAL(t->topic_config_error_code, 0);
	CU_ASSERT_EQUAL(t->num_partitions, v >= 5 ? parts : -1);
	CU_ASSERT_EQUAL(t->replication_factor, v >= 5 ? 1 : -1);
	CU_ASSERT_EQUAL(id_zero(t->topic_id), v < 7 || validate);
	if (v < 5)
		CU_ASSERT_EQUAL(t->configs.n, 0);
}

/*
 * The configs of a v5+ answer: every topic setting (19) with its value
 * and source; these four as flume.conf sets them (STATIC_BROKER_CONFIG
 * 4) or the default (DEFAULT_CONFIG 5).
 */
static void
check_configs(const struct km_created_topic *t, const char *retention,
    const char *segment, int segment_source)
{
	static const char *const names[4] = { "retention.ms",
	    "retention.bytes", "segment.bytes", "max.message.bytes" };
	const char *values[4] = { retention, "-1", segment, "262144" };
	const int8_t sources[4] = { 4, 5, (int8_t)segment_source, 4 };
	const struct km_created_config *c = t->configs.v;
	int i, j, found;

	CU_ASSERT_EQUAL_FATAL(t->configs.n, 19);
	for (i = 0; i < 4; i++) {
		found = 0;
		for (j = 0; j < t->configs.n; j++) {
			if (!kstr_is(c[j].name, names[i]))
				continue;
			found++;
			CU_ASSERT(kstr_is(c[j].value, values[i]));
			CU_ASSERT_EQUAL(c[j].read_only, 0);
			CU_ASSERT_EQUAL(c[j].config_source, sources[i]);
			CU_ASSERT_EQUAL(c[j].is_sensitive, 0);
		}
		CU_ASSERT_EQUAL(found, 1);
	}
}

/*
 * Real clients' CreateTopics (kafka-python v3: 3 partitions, kafkajs v3,
 * confluent-kafka v4), then v0, v1 validate_only (nothing made), v4 with
 * -1 (the broker's defaults), v5 (the first flexible: partitions,
 * replication factor and configs: flume.conf's defaults, and the
 * [topic cfg] section's for cfg deleted and made again) and v7 (the
 * topic's id, the one Metadata answers); a replication factor of 3 is
 * INVALID_REPLICATION_FACTOR with a message, a bad config INVALID_CONFIG naming the key.
 */
static void
test_create_topics_every_version(void)
{
	struct km_create_topics_req q;
	struct km_create_topics_resp s;
	struct km_creatable_topic t;
	struct km_topic_config cf;
	const struct km_created_topic *rt;
	struct km_delete_topics_req dq;
	struct km_delete_topics_resp ds;
	struct kstr dname;
	uint8_t id[16], mid[16];
	int16_t v;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, "kafka-python-CreateTopics-v3.bin",
	    &kmsg_create_topics, &v, &s), 0);
	CU_ASSERT_EQUAL(v, 3);
	check_created(&s, v, "kpt", 3, 0);
	kcall_release();
	CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, "kafkajs-CreateTopics-v3.bin",
	    &kmsg_create_topics, &v, &s), 0);
	check_created(&s, v, "kjt", 2, 0);
	kcall_release();
	CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, "confluent-kafka-CreateTopics-v4.bin",
	    &kmsg_create_topics, &v, &s), 0);
	CU_ASSERT_EQUAL(v, 4);
	check_created(&s, v, "ckt", 2, 0);
	kcall_release();

	create_req(&q, &t, "c0", 1, 1);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 0, 1, &q, &s), 0);
	check_created(&s, 0, "c0", 1, 0);
	kcall_release();
	/* Again: exists, with its message from v1. */
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 1, 2, &q, &s), 0);
	rt = s.topics.v;
	CU_ASSERT_EQUAL(rt->error_code, KERR_TOPIC_ALREADY_EXISTS);
	CU_ASSERT(kstr_is(rt->error_message, "topic already exists"));
	kcall_release();

	create_req(&q, &t, "c1", 3, 1);
	q.validate_only = 1;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 1, 3, &q, &s), 0);
	check_created(&s, 1, "c1", 3, 1);
	kcall_release();
	q.validate_only = 0;
	t.replication_factor = 3;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 2, 4, &q, &s), 0);
	rt = s.topics.v;
	CU_ASSERT_EQUAL(rt->error_code, KERR_INVALID_REPLICATION_FACTOR);
	CU_ASSERT(kstr_is(rt->error_message,
	    "replication factor must be 1 (one broker)"));
	kcall_release();

	create_req(&q, &t, "c4", -1, -1);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 4, 5, &q, &s), 0);
	check_created(&s, 4, "c4", 2, 0);
	kcall_release();

	/* v5, flexible: validate_only answers what would be made. */
	create_req(&q, &t, "c5", -1, -1);
	q.validate_only = 1;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 5, 6, &q, &s), 0);
	check_created(&s, 5, "c5", 2, 1);
	check_configs(s.topics.v, "3600000", "1073741824", 5);
	kcall_release();
	/* [topic cfg] made it at start; made again, it has its settings. */
	kdesc_defaults(kmsg_delete_topics.km_req, &dq);
	dq.timeout_ms = 10000;
	dname = kstr_c("cfg");
	dq.topic_names.n = 1;
	dq.topic_names.v = &dname;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_delete_topics, 1, 70, &dq, &ds),
	    0);
	CU_ASSERT_EQUAL_FATAL(ds.responses.n, 1);
	CU_ASSERT_EQUAL(((struct km_deleted_topic *)ds.responses.v)->
	    error_code, 0);
	kcall_release();
	create_req(&q, &t, "cfg", -1, 1);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 6, 7, &q, &s), 0);
	check_created(&s, 6, "cfg", 1, 0);
	check_configs(s.topics.v, "60000", "1048576", 4);
	kcall_release();

	create_req(&q, &t, "c7", 4, -1);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 7, 8, &q, &s), 0);
	check_created(&s, 7, "c7", 4, 0);
	rt = s.topics.v;
	memcpy(id, rt->topic_id, 16);
	kcall_release();
	meta_id(fd, "c7", mid);
	CU_ASSERT_EQUAL(memcmp(mid, id, 16), 0);

	cf.name = kstr_c("cleanup.policy");
	cf.value = kstr_c("remove");
	create_req(&q, &t, "c8", 1, 1);
	t.configs.n = 1;
	t.configs.v = &cf;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 7, 9, &q, &s), 0);
	rt = s.topics.v;
	CU_ASSERT_EQUAL(rt->error_code, KERR_INVALID_CONFIG);
	CU_ASSERT(kstr_is(rt->error_message, "invalid value 'remove' for "
	    "cleanup.policy: expected delete, compact or compact,delete"));
	CU_ASSERT_EQUAL(rt->num_partitions, -1);
	CU_ASSERT_EQUAL(rt->replication_factor, -1);
	CU_ASSERT_EQUAL(rt->configs.n, 0);
	CU_ASSERT(id_zero(rt->topic_id));
	kcall_release();
	close(fd);
}

/* ---- DeleteTopics ---- */

/* One answer of a DeleteTopics, exactly. */
static void
check_deleted(const struct km_deleted_topic *t, const char *name,
    const uint8_t *id, int16_t err)
{
	CU_ASSERT(name != NULL ? kstr_is(t->name, name) : t->name.len == -1);
	CU_ASSERT(id != NULL ? memcmp(t->topic_id, id, 16) == 0 :
	    id_zero(t->topic_id));
	CU_ASSERT_EQUAL(t->error_code, err);
	CU_ASSERT_EQUAL(t->error_message.len, -1);
}

/*
 * Real clients' DeleteTopics (kafka-python v3, kafkajs and
 * confluent-kafka v1) of the topics they made, then v0, v4 (the first
 * flexible), v5 and v6 by name (answered with the deleted topic's id)
 * and by id (answered with its name); an unknown name is
 * UNKNOWN_TOPIC_OR_PARTITION, an unknown id UNKNOWN_TOPIC_ID with a null
 * name.  Each deleted topic is gone from Metadata.
 */
static void
test_delete_topics_every_version(void)
{
	static const uint8_t unknown[16] = { 0xde, 0xad, 0xbe, 0xef, 2 };
	static const char *const mk[] = { "d0", "d4", "d5", "d6n", "d6i" };
	struct km_create_topics_req cq;
	struct km_create_topics_resp cs;
	struct km_creatable_topic ct;
	struct km_delete_topics_req q;
	struct km_delete_topics_resp s;
	struct km_delete_topic_state ts[2];
	const struct km_deleted_topic *rt;
	struct kstr names[2];
	uint8_t id6n[16], id6i[16];
	int16_t v;
	size_t i;
	int fd;

	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	/* The real clients' topics: made by their CreateTopics above. */
	CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, "kafka-python-DeleteTopics-v3.bin",
	    &kmsg_delete_topics, &v, &s), 0);
	CU_ASSERT_EQUAL(v, 3);
	CU_ASSERT_EQUAL(s.throttle_time_ms, 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	check_deleted(s.responses.v, "kpt", NULL, 0);
	kcall_release();
	CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, "kafkajs-DeleteTopics-v1.bin",
	    &kmsg_delete_topics, &v, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	check_deleted(s.responses.v, "kjt", NULL, 0);
	kcall_release();
	CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, "confluent-kafka-DeleteTopics-v1.bin",
	    &kmsg_delete_topics, &v, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	check_deleted(s.responses.v, "ckt", NULL, 0);
	kcall_release();

	for (i = 0; i < sizeof(mk) / sizeof(mk[0]); i++) {
		create_req(&cq, &ct, mk[i], 1, 1);
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_create_topics, 7,
		    (int32_t)i + 10, &cq, &cs), 0);
		CU_ASSERT_EQUAL(((struct km_created_topic *)cs.topics.v)->
		    error_code, 0);
		if (i == 3)
			memcpy(id6n, ((struct km_created_topic *)cs.topics.v)->
			    topic_id, 16);
		if (i == 4)
			memcpy(id6i, ((struct km_created_topic *)cs.topics.v)->
			    topic_id, 16);
		kcall_release();
	}

	kdesc_defaults(kmsg_delete_topics.km_req, &q);
	q.timeout_ms = 10000;
	names[0] = kstr_c("d0");
	names[1] = kstr_c("never");
	q.topic_names.n = 2;
	q.topic_names.v = names;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_delete_topics, 0, 1, &q, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 2);
	rt = s.responses.v;
	check_deleted(&rt[0], "d0", NULL, 0);
	check_deleted(&rt[1], "never", NULL, KERR_UNKNOWN_TOPIC_OR_PARTITION);
	kcall_release();
	names[0] = kstr_c("d4");
	q.topic_names.n = 1;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_delete_topics, 4, 2, &q, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	check_deleted(s.responses.v, "d4", NULL, 0);
	kcall_release();
	names[0] = kstr_c("d5");
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_delete_topics, 5, 3, &q, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	check_deleted(s.responses.v, "d5", NULL, 0);
	kcall_release();

	/* v6: one by name, one by id, one unknown id. */
	kdesc_defaults(kmsg_delete_topics.km_req, &q);
	q.timeout_ms = 10000;
	memset(ts, 0, sizeof(ts));
	ts[0].name = kstr_c("d6n");
	ts[1].name.len = -1;
	memcpy(ts[1].topic_id, id6i, 16);
	q.topics.n = 2;
	q.topics.v = ts;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_delete_topics, 6, 4, &q, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 2);
	rt = s.responses.v;
	check_deleted(&rt[0], "d6n", id6n, 0);
	check_deleted(&rt[1], "d6i", id6i, 0);
	kcall_release();
	memcpy(ts[1].topic_id, unknown, 16);
	q.topics.v = &ts[1];
	q.topics.n = 1;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_delete_topics, 6, 5, &q, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.responses.n, 1);
	check_deleted(s.responses.v, NULL, unknown, KERR_UNKNOWN_TOPIC_ID);
	kcall_release();
	close(fd);
}

/* ---- SASL ---- */

/* SaslHandshake at v for mech on fd: the answer's error, mechanisms checked. */
static int16_t
handshake(int fd, const char *file, int16_t v, const char *mech)
{
	struct km_sasl_handshake_req q;
	struct km_sasl_handshake_resp s;
	const struct kstr *m;
	int16_t got = v, err;

	if (file != NULL) {
		CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, file, &kmsg_sasl_handshake,
		    &got, &s), 0);
	} else {
		q.mechanism = kstr_c(mech);
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_sasl_handshake, v, 1, &q,
		    &s), 0);
	}
	CU_ASSERT_EQUAL(got, v);
	/* Loopback: PLAIN is offered too. */
	CU_ASSERT_EQUAL_FATAL(s.mechanisms.n, 3);
	m = s.mechanisms.v;
	CU_ASSERT(kstr_is(m[0], "SCRAM-SHA-256"));
	CU_ASSERT(kstr_is(m[1], "SCRAM-SHA-512"));
	CU_ASSERT(kstr_is(m[2], "PLAIN"));
	err = s.error_code;
	kcall_release();
	return err;
}

/* SaslAuthenticate with PLAIN for user at v: the answer, exactly. */
static void
plain(int fd, int16_t v, const char *user, const char *pw, int16_t want)
{
	struct km_sasl_auth_req q;
	struct km_sasl_auth_resp s;
	char msg[64];
	int n;

	n = snprintf(msg, sizeof(msg), "%c%s%c%s", 0, user, 0, pw);
	q.auth_bytes.p = msg;
	q.auth_bytes.len = n;
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_sasl_authenticate, v, 2, &q,
	    &s), 0);
	CU_ASSERT_EQUAL(s.error_code, want);
	CU_ASSERT(want == 0 ? s.error_message.len == -1 :
	    kstr_is(s.error_message,
	    "Authentication failed: invalid credentials"));
	CU_ASSERT_EQUAL(s.auth_bytes.len, 0);
	/* v0: the description's default; v1+: 0, the session never ends. */
	CU_ASSERT_EQUAL(s.session_lifetime_ms, 0);
	kcall_release();
}

/*
 * Real clients' first SASL steps: kcat's SaslHandshake v1 then its
 * SaslAuthenticate v0 (SCRAM client-first: answered the server-first
 * message), kafkajs' v1 pair, kafka-python's SaslHandshake v0 (after
 * which the messages travel bare, as before); then PLAIN through
 * SaslAuthenticate v0, v1 and v2 (flexible), after which Metadata v12
 * answers the user's authorized operations: alice may do everything
 * with topic s1, bob only Read (and Describe); the cluster's (v8-10)
 * from the same table.
 */
static void
test_sasl_versions_and_operations(void)
{
	static const char *const auths[] = { "kcat-SaslAuthenticate-v0.bin",
	    "kafkajs-SaslAuthenticate-v1.bin" };
	static const char *const shakes[] = { "kcat-SaslHandshake-v1.bin",
	    "kafkajs-SaslHandshake-v1.bin" };
	static const char *const s1[] = { "s1" };
	struct km_sasl_auth_resp s;
	struct km_meta_req_topic t[1];
	struct km_meta_req mq;
	struct km_meta_resp ms;
	int16_t v;
	int fd, i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
		CU_ASSERT_EQUAL(handshake(fd, shakes[i], 1, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(kcall_replay(fd, auths[i],
		    &kmsg_sasl_authenticate, &v, &s), 0);
		CU_ASSERT_EQUAL(v, i);
		CU_ASSERT_EQUAL(s.error_code, 0);
		CU_ASSERT_EQUAL(s.error_message.len, -1);
		/* The server-first message of SCRAM. */
		CU_ASSERT_FATAL(s.auth_bytes.len > 2);
		CU_ASSERT_EQUAL(memcmp(s.auth_bytes.p, "r=", 2), 0);
		CU_ASSERT_EQUAL(s.session_lifetime_ms, 0);
		kcall_release();
		close(fd);
	}
	CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
	CU_ASSERT_EQUAL(handshake(fd, "kafka-python-SaslHandshake-v0.bin", 0,
	    NULL), 0);
	close(fd);

	for (i = 0; i <= 2; i++) {
		CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
		CU_ASSERT_EQUAL(handshake(fd, NULL, 1, "PLAIN"), 0);
		plain(fd, (int16_t)i, i == 2 ? "bob" : "alice",
		    i == 2 ? "bob-pw" : "alice-pw", 0);
		/* alice may produce: the first request makes s1. */
		meta_req(&mq, t, s1, 1, 1);
		mq.include_topic_authorized_operations = 1;
		mq.include_cluster_authorized_operations = 1;
		CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_metadata, i == 1 ? 12 : 8,
		    3, &mq, &ms), 0);
		CU_ASSERT_EQUAL_FATAL(ms.topics.n, 1);
		/* bob: Read, Describe; alice: every topic operation. */
		check_meta_topic(ms.topics.v, i == 1 ? 12 : 8, "s1", 1,
		    i == 2 ? (1 << 3 | 1 << 8) : TOPIC_OPS_ALL, NULL);
		/* alice: Describe, IdempotentWrite, Create; bob: Describe. */
		CU_ASSERT_EQUAL(ms.cluster_authorized_operations, i == 1 ?
		    NOT_ASKED : i == 2 ? 1 << 8 :
		    (1 << 8 | 1 << 12 | 1 << 5));
		kcall_release();
		close(fd);
	}
	/* A wrong password: SASL_AUTHENTICATION_FAILED, with its message. */
	CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
	CU_ASSERT_EQUAL(handshake(fd, NULL, 0, "PLAIN"), 0);
	close(fd);
	CU_ASSERT_FATAL((fd = support_kconnect(&da)) >= 0);
	CU_ASSERT_EQUAL(handshake(fd, NULL, 1, "PLAIN"), 0);
	plain(fd, 2, "alice", "wrong", KERR_SASL_AUTHENTICATION_FAILED);
	close(fd);
}

/* ---- flume-kafka(7) ---- */

/*
 * The versions flume-kafka(7) lists under "What works": each item line
 * (.It) names one or more APIs by Kafka's name, separated by ", ", each
 * with "N" or "N\(enM".  Fills keys[i] = {key, min, max}: the count, or
 * -1 (asserted) for a line that does not read so.
 */
static int
man_versions(int16_t keys[][3], int max)
{
	char line[512], *p, *tok, *save = NULL, *sp;
	FILE *f;
	int in = 0, n = 0, k, lo, hi;
	const char *name;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(MANPAGE, "r"));
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, ".Ss ", 4) == 0) {
			in = strcmp(line, ".Ss What works") == 0;
			continue;
		}
		if (!in)
			continue;
		if (strcmp(line, ".El") == 0)
			break;
		if (strncmp(line, ".It ", 4) != 0)
			continue;
		for (tok = strtok_r(line + 4, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save)) {
			while (*tok == ' ')
				tok++;
			if ((sp = strchr(tok, ' ')) == NULL) {
				CU_FAIL("a man page item without versions");
				fclose(f);
				return -1;
			}
			*sp++ = '\0';
			lo = (int)strtol(sp, &p, 10);
			hi = lo;
			if (strncmp(p, "\\(en", 4) == 0)
				hi = (int)strtol(p + 4, &p, 10);
			for (k = 0; k < 100; k++)
				if ((name = kapi_name((int16_t)k)) != NULL &&
				    strcmp(name, tok) == 0)
					break;
			if (*p != '\0' || k == 100 || n == max) {
				fprintf(stderr, "man page item: %s %s\n", tok,
				    sp);
				CU_FAIL("a man page item that is not "
				    "\"KafkaName N\" or \"KafkaName N\\(enM\"");
				fclose(f);
				return -1;
			}
			keys[n][0] = (int16_t)k;
			keys[n][1] = (int16_t)lo;
			keys[n][2] = (int16_t)hi;
			n++;
		}
	}
	fclose(f);
	return n;
}

/*
 * One source of truth: the APIs and versions flume-kafka(7) lists are
 * exactly those ApiVersions answers (the broker's row table), each once.
 */
static void
test_man_page_lists_api_versions(void)
{
	int16_t man[64][3];
	struct km_apiver_req q;
	struct km_apiver_resp s;
	const struct km_apiver_key *a;
	int fd, n, i, j, found;

	n = man_versions(man, 64);
	CU_ASSERT_FATAL(n > 0);
	CU_ASSERT_FATAL((fd = support_kconnect(&d)) >= 0);
	kdesc_defaults(kmsg_api_versions.km_req, &q);
	CU_ASSERT_EQUAL_FATAL(kcall(fd, &kmsg_api_versions, 0, 1, &q, &s), 0);
	CU_ASSERT_EQUAL(s.error_code, 0);
	a = s.api_keys.v;
	CU_ASSERT_EQUAL(s.api_keys.n, n);
	for (i = 0; i < s.api_keys.n; i++) {
		found = 0;
		for (j = 0; j < n; j++)
			if (man[j][0] == a[i].api_key) {
				found++;
				if (man[j][1] != a[i].min_version ||
				    man[j][2] != a[i].max_version)
					fprintf(stderr, "%s: ApiVersions "
					    "%d-%d, flume-kafka(7) %d-%d\n",
					    kapi_name(a[i].api_key),
					    a[i].min_version, a[i].max_version,
					    man[j][1], man[j][2]);
				CU_ASSERT_EQUAL(man[j][1], a[i].min_version);
				CU_ASSERT_EQUAL(man[j][2], a[i].max_version);
			}
		if (found != 1)
			fprintf(stderr, "%s: listed %d times in "
			    "flume-kafka(7)\n", kapi_name(a[i].api_key), found);
		CU_ASSERT_EQUAL(found, 1);
	}
	kcall_release();
	close(fd);
}

TEST_SUITE("kafka_meta", setup, teardown,
	{ "flume-kafka(7) lists what ApiVersions answers",
	    test_man_page_lists_api_versions },
	{ "CreateTopics v0-7: real clients, validate_only, defaults, configs, "
	    "ids", test_create_topics_every_version },
	{ "Metadata v0-13: every field of every version",
	    test_metadata_every_version },
	{ "Metadata: kafka-python, kcat and kafkajs requests",
	    test_metadata_real_clients },
	{ "Metadata: auto-creation by version", test_metadata_auto_create },
	{ "Metadata v12: topics by id; authorized operations",
	    test_metadata_by_id_and_operations },
	{ "DeleteTopics v0-6: real clients, by name and by id",
	    test_delete_topics_every_version },
	{ "SASL: SaslHandshake v0-1, SaslAuthenticate v0-2, the user's "
	    "operations", test_sasl_versions_and_operations });
