/*
 * What the read-only describe APIs need of the operations beyond the
 * topic listings (worker/op/topics.h) and offsets (worker/op/offsets.h):
 * a partition's idempotent producers, and paging through topics'
 * partitions within a limit.
 */
#ifndef FLUME_WORKER_OP_DESCRIBE_H
#define FLUME_WORKER_OP_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

/* One idempotent producer remembered on a partition. */
struct op_producer {
	int64_t		 pid;
	int16_t		 epoch;
	int32_t		 last_seq;	/* the last sequence of its newest append */
	int64_t		 last_ts;	/* that batch's max timestamp; -1 not
					   yet on disk or unreadable */
	int64_t		 txn_first;	/* its open transaction's first offset, -1 */
};

/*
 * The producers the broker remembers on (topic, partition) (shm/producer.h:
 * the last PRODUCER_SLOTS), in request memory: *out, *n.  Needs the right
 * to consume the topic or administer it (Kafka asks Read).  OP_OK,
 * OP_DENIED_TOPIC, a lookup's error (op_part_resolve()) or OP_NO_MEMORY.
 */
enum op_err op_producers(const struct op_ctx *x, const char *topic,
	    size_t len, int32_t partition, struct op_producer **out, int *n);

/*
 * Paging through the partitions of topics in order, at most limit (> 0)
 * in all, as Kafka's DescribeTopicPartitions pages: each topic from its
 * start partition (a cursor's, or 0) to its end while the limit lasts.
 * In: nparts (-1: the topic does not exist, shown as an error that takes
 * none of the limit) and start.  Out: shown (the topic is in this page),
 * [from, to) the partitions shown.  Returns the index of the topic the
 * next page starts at, with its first partition in *next, or -1 when
 * this page ends the listing.  A topic whose partitions end the limit
 * exactly ends the page; the next starts at the following topic,
 * partition 0 (even one that does not exist), as Kafka's cursor does.
 */
struct op_page_topic {
	int32_t		 nparts;
	int32_t		 start;
	int		 shown;
	int32_t		 from, to;
};

long	op_topic_page(struct op_page_topic *t, size_t n, int32_t limit,
	    int32_t *next);

/* One client connection of a worker (shm/conntab.h). */
struct op_conn {
	int32_t		 slot;		/* the worker's child slot */
	int32_t		 pid;
	int8_t		 kafka;		/* 1 Kafka listener, 0 native */
	int8_t		 tls;
	int64_t		 opened_ms;	/* wall clock */
	const char	*peer;		/* request memory, NUL-terminated */
	const char	*sw_name;	/* "" unless a Kafka client named it */
	const char	*sw_version;
};

/*
 * Every client connection of the running workers, by slot and entry,
 * into *out (request memory) and *n.  Needs admin rights on every topic,
 * as the broker's process list (the caller checks).  OP_OK or
 * OP_NO_MEMORY.
 */
enum op_err op_connections(const struct op_ctx *x, struct op_conn **out,
	    int32_t *n);

#endif
