/*
 * flume-kbench's pure parts, without librdkafka so that
 * tests/unit/test_kbench.c checks them exactly: the command line, and
 * the one Kafka request it makes itself (ApiVersions v0, to learn
 * whether the broker serves consumer groups before a group run waits
 * for an assignment that would never come).
 */
#ifndef FLUME_TESTS_BENCH_KBENCH_OPTS_H
#define FLUME_TESTS_BENCH_KBENCH_OPTS_H

#include <stddef.h>
#include <stdint.h>

enum kbench_mode { KB_PRODUCE, KB_CONSUME, KB_SYNC, KB_GROUP };

#define KBENCH_BROKER		"127.0.0.1:9092"
#define KBENCH_MAX_CONNS	64
#define KBENCH_GROUP_BATCH	1000	/* -m default, as flume-bench group */

struct kbench_opts {
	enum kbench_mode mode;
	const char	*mode_name;
	const char	*broker;	/* -b, else $FLUME_KAFKA_BROKER, else KBENCH_BROKER */
	const char	*topic;
	const char	*group;		/* -g; NULL: a new one per run */
	uint64_t	 count;		/* -n: produce, sync: to send; consume: at most */
	size_t		 size;		/* -s */
	int		 acks;		/* -a: 0, 1, -1 (all) */
	int		 conns;		/* -c: consume threads, group members */
	long long	 linger_ms;	/* -l; -1: librdkafka's default */
	long long	 batch_bytes;	/* -B; -1: librdkafka's default */
	long long	 commit_every;	/* -m */
	long long	 txn_records;	/* -x: produce in transactions of this
					   many messages; 0: none */
	int		 json;		/* -J */
};

/* What kbench_parse() found. */
#define KBENCH_RUN	0
#define KBENCH_HELP	1
#define KBENCH_VERSION	2

/*
 * Parse argv (argv[1] the mode) into *o.  KBENCH_RUN, KBENCH_HELP,
 * KBENCH_VERSION, or -1 with the reason in err[0..errlen) (a usage
 * error: exit 2).  Uses getopt(), so it resets optind first.
 */
int	kbench_parse(int argc, char *argv[], struct kbench_opts *o, char *err,
	    size_t errlen);
/* The usage text, one string. */
extern const char kbench_usage[];

/*
 * group: has the group made no progress for limit ns?  moved is when a
 * commit last moved it, as another member's thread may have stored it
 * after now was read.
 */
int	kbench_stalled(uint64_t moved, uint64_t now, uint64_t limit);

/* Kafka API keys a group consumer needs (classic protocol). */
#define KAFKA_API_OFFSET_COMMIT		8
#define KAFKA_API_OFFSET_FETCH		9
#define KAFKA_API_FIND_COORDINATOR	10
#define KAFKA_API_JOIN_GROUP		11
#define KAFKA_API_HEARTBEAT		12
#define KAFKA_API_LEAVE_GROUP		13
#define KAFKA_API_SYNC_GROUP		14
#define KAFKA_API_API_VERSIONS		18

/*
 * An ApiVersions v0 request with correlation id corr into buf (size
 * prefix included); its length, or -1 when len is too small.
 */
int	kbench_apiversions_req(uint8_t *buf, size_t len, int32_t corr);
/*
 * Given an ApiVersions v0 response without its size prefix: 1 when it
 * lists every API a group consumer needs, 0 when one is missing (or the
 * answer is an error), -1 when it is malformed or answers another
 * correlation id.
 */
int	kbench_groups_served(const uint8_t *buf, size_t len, int32_t corr);

#endif
