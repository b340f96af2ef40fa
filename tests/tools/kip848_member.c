/*
 * A librdkafka consumer with group.protocol=consumer (KIP-848), for
 * tests/tools/kip848_rdkafka.py.  Debian's librdkafka (2.0.2) does not
 * speak the consumer protocol; build this against a librdkafka of 2.12
 * or later (the driver's docstring says how), e.g.:
 *
 *   cc -o kip848_member tests/tools/kip848_member.c -I$RDK/include \
 *       -L$RDK/lib -Wl,-rpath,$RDK/lib -lrdkafka
 *
 *   kip848_member BROKER TOPIC GROUP NAME
 *
 * Prints, flushed, "assign P,P,..." / "revoke P,P,..." on each
 * incremental rebalance event and "rec PARTITION OFFSET KEY" for each
 * record; runs until SIGTERM (closes: it leaves) or SIGKILL.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void
print_parts(const char *what, const rd_kafka_topic_partition_list_t *l)
{
	int i;

	printf("%s ", what);
	for (i = 0; i < l->cnt; i++)
		printf("%s%d", i > 0 ? "," : "", (int)l->elems[i].partition);
	printf("%s\n", l->cnt == 0 ? "-" : "");
	fflush(stdout);
}

static void
rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
    rd_kafka_topic_partition_list_t *parts, void *opaque)
{
	(void)opaque;
	if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
		print_parts("assign", parts);
		rd_kafka_error_destroy(rd_kafka_incremental_assign(rk, parts));
	} else {
		print_parts("revoke", parts);
		rd_kafka_error_destroy(rd_kafka_incremental_unassign(rk, parts));
	}
}

int
main(int argc, char **argv)
{
	char err[512];
	rd_kafka_conf_t *conf;
	rd_kafka_t *rk;
	rd_kafka_topic_partition_list_t *sub;
	rd_kafka_message_t *m;

	if (argc != 5) {
		fprintf(stderr, "usage: kip848_member BROKER TOPIC GROUP NAME\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	conf = rd_kafka_conf_new();
	if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "group.id", argv[3], err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "client.id", argv[4], err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "group.protocol", "consumer", err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", err,
	    sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(conf, "topic.metadata.refresh.interval.ms",
	    "1000", err, sizeof(err)) != RD_KAFKA_CONF_OK) {
		fprintf(stderr, "kip848_member: %s\n", err);
		return 1;
	}
	rd_kafka_conf_set_rebalance_cb(conf, rebalance);
	if ((rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err,
	    sizeof(err))) == NULL) {
		fprintf(stderr, "kip848_member: %s\n", err);
		return 1;
	}
	rd_kafka_poll_set_consumer(rk);
	sub = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(sub, argv[2], RD_KAFKA_PARTITION_UA);
	if (rd_kafka_subscribe(rk, sub) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fprintf(stderr, "kip848_member: subscribe failed\n");
		return 1;
	}
	rd_kafka_topic_partition_list_destroy(sub);
	while (!stop) {
		if ((m = rd_kafka_consumer_poll(rk, 100)) == NULL)
			continue;
		if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
			printf("rec %d %lld %.*s\n", (int)m->partition,
			    (long long)m->offset, (int)m->key_len,
			    (const char *)m->key);
		else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
			printf("error %s\n", rd_kafka_message_errstr(m));
		fflush(stdout);
		rd_kafka_message_destroy(m);
	}
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	printf("closed\n");
	return 0;
}
