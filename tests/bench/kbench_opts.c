/*
 * flume-kbench's command line and its ApiVersions probe; see
 * kbench_opts.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume_tool.h"
#include "tests/bench/kbench_opts.h"

const char kbench_usage[] =
    "usage: flume-kbench produce|sync -t topic [-J] [-a 0|1|all] "
    "[-B batch_bytes]\n"
    "                    [-b host:port] [-l linger_ms] [-n count] "
    "[-s size]\n"
    "                    [-x messages_per_transaction] (produce only; "
    "acks all)\n"
    "       flume-kbench consume -t topic [-J] [-b host:port] "
    "[-c connections] [-n count]\n"
    "       flume-kbench group -t topic [-J] [-b host:port] [-c members] "
    "[-g group]\n"
    "                    [-m messages_per_commit]\n"
    "       flume-kbench -h | --help | -V | --version\n"
    "environment: FLUME_KAFKA_BROKER, FLUME_TLS=1 (SSL; not for group) "
    "and FLUME_CA_FILE\n";

/* Which options each mode takes. */
static const struct {
	const char	*name;
	enum kbench_mode mode;
	const char	*opts;
} kbench_modes[] = {
	{ "produce",	KB_PRODUCE,	"aBblnsJtx" },
	{ "sync",	KB_SYNC,	"aBblnsJt" },
	{ "consume",	KB_CONSUME,	"bcnJt" },
	{ "group",	KB_GROUP,	"bcgmJt" },
};

int
kbench_parse(int argc, char *argv[], struct kbench_opts *o, char *err,
    size_t errlen)
{
	const char *allowed = NULL;
	long long v;
	size_t i;
	int ch, acks_given = 0;

	memset(o, 0, sizeof(*o));
	o->count = 1000000;
	o->size = 100;
	o->acks = 1;
	o->conns = 1;
	o->linger_ms = -1;
	o->batch_bytes = -1;
	o->commit_every = KBENCH_GROUP_BATCH;
	err[0] = '\0';
	if (argc < 2) {
		snprintf(err, errlen, "no mode");
		return -1;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return KBENCH_HELP;
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0)
		return KBENCH_VERSION;
	for (i = 0; i < sizeof(kbench_modes) / sizeof(kbench_modes[0]); i++)
		if (strcmp(argv[1], kbench_modes[i].name) == 0) {
			o->mode = kbench_modes[i].mode;
			o->mode_name = kbench_modes[i].name;
			allowed = kbench_modes[i].opts;
		}
	if (allowed == NULL) {
		snprintf(err, errlen, "unknown mode %s", argv[1]);
		return -1;
	}
	if (o->mode == KB_SYNC)
		o->count = 10000;
	argc--;
	argv++;
	optind = 0;	/* glibc: start over, so a test may parse twice */
	opterr = 0;
	while ((ch = getopt(argc, argv, "+:a:B:b:c:g:hJl:m:n:s:t:x:")) != -1) {
		if (ch == 'h')
			return KBENCH_HELP;
		if (ch == '?' || ch == ':') {
			snprintf(err, errlen, "-%c: %s", optopt, ch == ':' ?
			    "needs a value" : "unknown option");
			return -1;
		}
		if (strchr(allowed, ch) == NULL) {
			snprintf(err, errlen, "-%c is not for %s", ch,
			    o->mode_name);
			return -1;
		}
		switch (ch) {
		case 'a':
			if (flume_tool_parse_acks(optarg, &o->acks) == -1) {
				snprintf(err, errlen, "-a: 0, 1 or all");
				return -1;
			}
			acks_given = 1;
			break;
		case 'B':
			if (flume_tool_parse_long(optarg, 1, 2147483647, &v) == -1)
				goto bad;
			o->batch_bytes = v;
			break;
		case 'b':
			o->broker = optarg;
			break;
		case 'c':
			if (flume_tool_parse_long(optarg, 1, KBENCH_MAX_CONNS,
			    &v) == -1)
				goto bad;
			o->conns = (int)v;
			break;
		case 'g':
			if (optarg[0] == '\0')
				goto bad;
			o->group = optarg;
			break;
		case 'J':
			o->json = 1;
			break;
		case 'l':
			if (flume_tool_parse_long(optarg, 0, 900000, &v) == -1)
				goto bad;
			o->linger_ms = v;
			break;
		case 'm':
			if (flume_tool_parse_long(optarg, 1, 1 << 24, &v) == -1)
				goto bad;
			o->commit_every = v;
			break;
		case 'n':
			if (flume_tool_parse_long(optarg, 1, 1LL << 40, &v) == -1)
				goto bad;
			o->count = (uint64_t)v;
			break;
		case 's':
			/* librdkafka's message.max.bytes tops out at 1e9. */
			if (flume_tool_parse_long(optarg, 0, 64 << 20, &v) == -1)
				goto bad;
			o->size = (size_t)v;
			break;
		case 't':
			o->topic = optarg;
			break;
		case 'x':
			if (flume_tool_parse_long(optarg, 1, 1 << 24, &v) == -1)
				goto bad;
			o->txn_records = v;
			break;
		}
	}
	/* A transactional producer is idempotent: librdkafka wants acks all. */
	if (o->txn_records > 0) {
		if (acks_given && o->acks != -1) {
			snprintf(err, errlen, "-x: transactions need -a all");
			return -1;
		}
		o->acks = -1;
	}
	if (optind != argc) {
		snprintf(err, errlen, "unexpected argument %s", argv[optind]);
		return -1;
	}
	if (o->topic == NULL || o->topic[0] == '\0') {
		snprintf(err, errlen, "-t topic is required");
		return -1;
	}
	if (o->broker == NULL)
		o->broker = getenv("FLUME_KAFKA_BROKER");
	if (o->broker == NULL || o->broker[0] == '\0')
		o->broker = KBENCH_BROKER;
	return KBENCH_RUN;
bad:
	snprintf(err, errlen, "-%c: bad value %s", ch, optarg);
	return -1;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

int
kbench_apiversions_req(uint8_t *buf, size_t len, int32_t corr)
{
	static const char id[] = "flume-kbench";
	size_t n = 4 + 2 + 2 + 4 + 2 + sizeof(id) - 1;

	if (len < n)
		return -1;
	put32(buf, (uint32_t)(n - 4));
	put16(buf + 4, KAFKA_API_API_VERSIONS);
	put16(buf + 6, 0);
	put32(buf + 8, (uint32_t)corr);
	put16(buf + 12, sizeof(id) - 1);
	memcpy(buf + 14, id, sizeof(id) - 1);
	return (int)n;
}

int
kbench_groups_served(const uint8_t *buf, size_t len, int32_t corr)
{
	static const int16_t need[] = { KAFKA_API_OFFSET_COMMIT,
	    KAFKA_API_OFFSET_FETCH, KAFKA_API_FIND_COORDINATOR,
	    KAFKA_API_JOIN_GROUP, KAFKA_API_HEARTBEAT, KAFKA_API_LEAVE_GROUP,
	    KAFKA_API_SYNC_GROUP };
	unsigned have = 0;
	uint32_t n, i;
	size_t j;

	/* correlation id, error, count, then 6 bytes per API. */
	if (len < 10 || (int32_t)get32(buf) != corr)
		return -1;
	n = get32(buf + 6);
	if (n > (len - 10) / 6 || len != 10 + (size_t)n * 6)
		return -1;
	if (get16(buf + 4) != 0)
		return 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < sizeof(need) / sizeof(need[0]); j++)
			if ((int16_t)get16(buf + 10 + i * 6) == need[j])
				have |= 1u << j;
	return have == (1u << (sizeof(need) / sizeof(need[0]))) - 1;
}

int
kbench_stalled(uint64_t moved, uint64_t now, uint64_t limit)
{
	/* moved > now: the unsigned difference would be a huge "stall". */
	return now > moved && now - moved > limit;
}
