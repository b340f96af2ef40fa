/*
 * One consumer group member for tests/compat/kip848/run, built against
 * the librdkafka of scripts/install-librdkafka-next (2.15.1: Debian's
 * 2.0.2 does not speak the consumer protocol):
 *
 *   member BROKER TOPIC GROUP NAME consumer|classic [INSTANCE_ID]
 *
 * "consumer" is group.protocol=consumer (KIP-848: the broker assigns);
 * "classic" is the classic protocol with the cooperative-sticky assignor
 * (incremental too, but assigned by the group's leader), 6 s sessions.
 * INSTANCE_ID makes it a static member (group.instance.id).  MEMBER_DEBUG
 * in the environment is librdkafka's debug setting (e.g. "cgrp,fetch").
 *
 * Prints, each line flushed and stamped with CLOCK_MONOTONIC in
 * microseconds (Python's time.monotonic() reads the same clock):
 *   T assign P,P,...   partitions added (before incremental_assign)
 *   T revoke P,P,...   partitions taken (after incremental_unassign)
 *   T rec P OFFSET KEY each record
 *   T error WHY        a consumer error
 *   T closed           after rd_kafka_consumer_close (on SIGTERM)
 * and librdkafka's warnings and errors ("%LEVEL|..." on stderr).
 * Runs until SIGTERM (closes) or SIGKILL.  "member describe" (below)
 * samples the broker's view of the group instead.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static long long
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void
print_parts(const char *what, const rd_kafka_topic_partition_list_t *l)
{
	int i;

	printf("%lld %s ", now_us(), what);
	for (i = 0; i < l->cnt; i++)
		printf("%s%d", i > 0 ? "," : "", (int)l->elems[i].partition);
	printf("%s\n", l->cnt == 0 ? "-" : "");
	fflush(stdout);
}

static void
rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
    rd_kafka_topic_partition_list_t *parts, void *opaque)
{
	rd_kafka_error_t *e;

	(void)opaque;
	/* The widest span of ownership: from before the assign to after the
	 * unassign, so that the driver's overlap check is the strictest. */
	if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
		print_parts("assign", parts);
		e = rd_kafka_incremental_assign(rk, parts);
	} else {
		e = rd_kafka_incremental_unassign(rk, parts);
		print_parts("revoke", parts);
	}
	if (e != NULL) {
		printf("%lld error %s\n", now_us(), rd_kafka_error_string(e));
		fflush(stdout);
		rd_kafka_error_destroy(e);
	}
}

static int
set(rd_kafka_conf_t *conf, const char *k, const char *v)
{
	char err[512];

	if (rd_kafka_conf_set(conf, k, v, err, sizeof(err)) ==
	    RD_KAFKA_CONF_OK)
		return 0;
	fprintf(stderr, "member: %s=%s: %s\n", k, v, err);
	return -1;
}

/*
 * member describe BROKER GROUP: the broker's view, every 100 ms until
 * SIGTERM, from librdkafka's DescribeConsumerGroups (ConsumerGroupDescribe
 * for a consumer protocol group, DescribeGroups for a classic one):
 *   T desc consumer|classic|unknown NAME:P,P NAME:- ...   (client ids)
 *   T desc error WHY
 */
static int
describe(const char *broker, const char *group)
{
	static const char *types[] = { "unknown", "consumer", "classic" };
	char err[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	rd_kafka_t *rk;
	rd_kafka_queue_t *q;
	rd_kafka_event_t *ev;
	const rd_kafka_DescribeConsumerGroups_result_t *res;
	const rd_kafka_ConsumerGroupDescription_t **gs;
	const rd_kafka_ConsumerGroupDescription_t *g;
	const rd_kafka_MemberDescription_t *md;
	const rd_kafka_topic_partition_list_t *l;
	const rd_kafka_error_t *ge;
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	size_t ng, i;
	int j, k, t;

	if (set(conf, "bootstrap.servers", broker) != 0 ||
	    set(conf, "client.id", "describe") != 0 ||
	    set(conf, "log_level", "4") != 0)
		return 1;
	if ((rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err,
	    sizeof(err))) == NULL) {
		fprintf(stderr, "member: %s\n", err);
		return 1;
	}
	q = rd_kafka_queue_new(rk);
	while (!stop) {
		rd_kafka_DescribeConsumerGroups(rk, &group, 1, NULL, q);
		if ((ev = rd_kafka_queue_poll(q, 10000)) == NULL)
			continue;
		if (rd_kafka_event_error(ev) != RD_KAFKA_RESP_ERR_NO_ERROR) {
			printf("%lld desc error %s\n", now_us(),
			    rd_kafka_event_error_string(ev));
		} else {
			res = rd_kafka_event_DescribeConsumerGroups_result(ev);
			gs = rd_kafka_DescribeConsumerGroups_result_groups(res,
			    &ng);
			for (i = 0; i < ng; i++) {
				g = gs[i];
				if ((ge = rd_kafka_ConsumerGroupDescription_error(
				    g)) != NULL) {
					printf("%lld desc error %s\n", now_us(),
					    rd_kafka_error_string(ge));
					continue;
				}
				t = (int)rd_kafka_ConsumerGroupDescription_type(g);
				printf("%lld desc %s", now_us(),
				    types[t >= 0 && t <= 2 ? t : 0]);
				for (j = 0; j < (int)
				    rd_kafka_ConsumerGroupDescription_member_count(g);
				    j++) {
					md = rd_kafka_ConsumerGroupDescription_member(
					    g, (size_t)j);
					l = rd_kafka_MemberAssignment_partitions(
					    rd_kafka_MemberDescription_assignment(md));
					printf(" %s:",
					    rd_kafka_MemberDescription_client_id(md));
					for (k = 0; l != NULL && k < l->cnt; k++)
						printf("%s%d", k > 0 ? "," : "",
						    (int)l->elems[k].partition);
					printf("%s", l == NULL || l->cnt == 0 ?
					    "-" : "");
				}
				printf("\n");
			}
		}
		fflush(stdout);
		rd_kafka_event_destroy(ev);
		nanosleep(&pause, NULL);
	}
	rd_kafka_queue_destroy(q);
	rd_kafka_destroy(rk);
	return 0;
}

int
main(int argc, char **argv)
{
	char err[512];
	rd_kafka_conf_t *conf;
	rd_kafka_t *rk;
	rd_kafka_topic_partition_list_t *sub;
	rd_kafka_message_t *m;
	int classic;

	signal(SIGTERM, on_term);
	if (argc == 4 && strcmp(argv[1], "describe") == 0)
		return describe(argv[2], argv[3]);
	if ((argc != 6 && argc != 7) || (strcmp(argv[5], "consumer") != 0 &&
	    strcmp(argv[5], "classic") != 0)) {
		fprintf(stderr, "usage: member BROKER TOPIC GROUP NAME "
		    "consumer|classic [INSTANCE_ID]\n"
		    "       member describe BROKER GROUP\n");
		return 2;
	}
	classic = strcmp(argv[5], "classic") == 0;
	conf = rd_kafka_conf_new();
	if (set(conf, "bootstrap.servers", argv[1]) != 0 ||
	    set(conf, "group.id", argv[3]) != 0 ||
	    set(conf, "client.id", argv[4]) != 0 ||
	    set(conf, "group.protocol", argv[5]) != 0 ||
	    set(conf, "auto.offset.reset", "earliest") != 0 ||
	    set(conf, "topic.metadata.refresh.interval.ms", "1000") != 0 ||
	    set(conf, "log_level", "4") != 0 ||
	    (classic && (set(conf, "partition.assignment.strategy",
	    "cooperative-sticky") != 0 ||
	    set(conf, "session.timeout.ms", "6000") != 0 ||
	    set(conf, "heartbeat.interval.ms", "500") != 0)) ||
	    (argc == 7 && set(conf, "group.instance.id", argv[6]) != 0) ||
	    (getenv("MEMBER_DEBUG") != NULL &&
	    set(conf, "debug", getenv("MEMBER_DEBUG")) != 0))
		return 1;
	rd_kafka_conf_set_rebalance_cb(conf, rebalance);
	if ((rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err,
	    sizeof(err))) == NULL) {
		fprintf(stderr, "member: %s\n", err);
		return 1;
	}
	rd_kafka_poll_set_consumer(rk);
	sub = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(sub, argv[2], RD_KAFKA_PARTITION_UA);
	if (rd_kafka_subscribe(rk, sub) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fprintf(stderr, "member: subscribe failed\n");
		return 1;
	}
	rd_kafka_topic_partition_list_destroy(sub);
	while (!stop) {
		if ((m = rd_kafka_consumer_poll(rk, 100)) == NULL)
			continue;
		if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
			printf("%lld rec %d %lld %.*s\n", now_us(),
			    (int)m->partition, (long long)m->offset,
			    (int)m->key_len, (const char *)m->key);
		else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
			printf("%lld error %s\n", now_us(),
			    rd_kafka_message_errstr(m));
		fflush(stdout);
		rd_kafka_message_destroy(m);
	}
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	printf("%lld closed\n", now_us());
	return 0;
}
