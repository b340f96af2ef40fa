/*
 * flume-consume: print the messages of a topic (every partition, or one)
 * from an offset, optionally until the end (-e) or a count (-n).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clients/flume.h"
#include "clients/flume_tool.h"

/*
 * Output waits in a buffer at most this long (and at most 64 KiB), so a
 * slow trickle of messages is still printed promptly and committed.
 */
#define FLUSH_MS	100
#define FLUSH_BYTES	65536

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	stop = 1;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: flume-consume [-b host:port] -t topic [-p partition] "
	    "[-o beginning|end|offset|@time|-age]\n"
	    "                     [-e] [-U] [-n count] [-f format] "
	    "[--secret-file file]\n"
	    "       flume-consume [-b host:port] -g group -t topic "
	    "[-o beginning|end] [-C commit_ms]\n"
	    "                     [-s session_ms] [-e] [-n count] [-f format]\n"
	    "       flume-consume -h | --help | -V | --version\n%s",
	    flume_tool_tls_usage);
}

/*
 * -o @T: each partition (or the one asked for) from its first offset whose
 * record timestamp is >= at_ms, or from its end when none is that new.
 */
static int
subscribe_at(struct flume_client *c, struct flume_consumer *k,
    const char *topic, int32_t partition, int64_t at_ms)
{
	struct flume_metadata *md;
	int64_t off;
	int32_t p, n;

	if (flume_metadata(c, &topic, 1, 0, &md) == -1)
		return -1;
	n = md->topic_count == 1 && md->topics[0].error == 0 ?
	    md->topics[0].partition_count : 0;
	flume_metadata_free(md);
	if (n <= 0)		/* the subscribe says why */
		return flume_consumer_subscribe(k, topic, partition,
		    FLUME_OFFSET_END);
	for (p = 0; p < n; p++) {
		if (partition != FLUME_PARTITION_ANY && p != partition)
			continue;
		if (flume_list_offset_for_time(c, topic, p, at_ms, &off) == -1)
			return -1;
		if (flume_consumer_subscribe(k, topic, p, off >= 0 ? off :
		    FLUME_OFFSET_END) == -1)
			return -1;
	}
	if (partition != FLUME_PARTITION_ANY && partition >= n)
		return flume_consumer_subscribe(k, topic, partition,
		    FLUME_OFFSET_END);	/* out of range: its error */
	return 0;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A partition's next offset once what is buffered has been written out. */
struct written {
	int32_t	partition;
	int64_t	next;
};

/* Where the print loop gets messages: a plain consumer or a group member. */
struct source {
	void	*h;
	int	(*poll)(void *h, struct flume_message *m, int timeout_ms);
	int	(*at_end)(void *h);
	int	(*buffered)(void *h);
	const char *group;	/* -g, for the way past a corrupt batch */
	/* Tell the group what stdout has taken; NULL for a plain consumer. */
	int	(*ack)(void *h, const char *topic, int32_t partition, int64_t next);
	const char	*topic;
	struct written	 w[64];		/* partitions with output in the buffer */
	size_t		 nw;
};

/*
 * Say why polling failed.  For a corrupt batch: where it is and the
 * command that gets past it, since retrying can only fail again.
 */
static void
poll_error(struct flume_client *c, const struct source *src)
{
	struct flume_corrupt bad;

	if (flume_corrupt_range(c, &bad) == -1) {
		fprintf(stderr, "flume-consume: %s\n", flume_errstr(c));
		return;
	}
	fprintf(stderr, "flume-consume: %s[%d]: corrupt batch at offset %lld "
	    "(offsets %lld to %lld cannot be read); skip it with: ",
	    bad.topic, (int)bad.partition, (long long)bad.offset,
	    (long long)bad.offset, (long long)bad.next - 1);
	if (src->group != NULL)
		fprintf(stderr, "flume-admin group %s reset -t %s -p %d "
		    "--to-offset %lld\n", src->group, bad.topic,
		    (int)bad.partition, (long long)bad.next);
	else
		fprintf(stderr, "flume-consume -t %s -p %d -o %lld\n",
		    bad.topic, (int)bad.partition, (long long)bad.next);
}

static int
consumer_poll(void *h, struct flume_message *m, int timeout_ms)
{
	return flume_consumer_poll(h, m, timeout_ms);
}

/* Remember that m goes out with the buffer; 0, or 1 when the table is full. */
static int
src_note(struct source *src, const struct flume_message *m)
{
	size_t i;

	if (src->ack == NULL)
		return 0;
	for (i = 0; i < src->nw; i++) {
		if (src->w[i].partition == m->partition) {
			src->w[i].next = m->offset + 1;
			return 0;
		}
	}
	if (src->nw == sizeof(src->w) / sizeof(src->w[0]))
		return 1;
	src->w[src->nw].partition = m->partition;
	src->w[src->nw++].next = m->offset + 1;
	return 0;
}

/*
 * Write out what was rendered and, once stdout has taken it (fflush
 * returned), let the group commit it: only what was printed is ever
 * committed.  0 or -1 (stdout failed).
 */
static int
out_flush(struct flume_tool_buf *ob, struct source *src)
{
	size_t i;

	if (ob->len > 0 && fwrite(ob->p, 1, ob->len, stdout) != ob->len)
		return -1;
	ob->len = 0;
	if (fflush(stdout) == EOF)
		return -1;
	/* A partition moved away meanwhile (ENOENT): its new owner reads it again. */
	for (i = 0; src != NULL && src->ack != NULL && i < src->nw; i++)
		(void)src->ack(src->h, src->topic, src->w[i].partition,
		    src->w[i].next);
	if (src != NULL)
		src->nw = 0;
	return 0;
}

static int
consumer_at_end(void *h)
{
	return flume_consumer_at_end(h);
}

static int
consumer_buffered(void *h)
{
	return flume_consumer_buffered(h) != 0;
}

static int
group_poll(void *h, struct flume_message *m, int timeout_ms)
{
	return flume_group_poll(h, m, timeout_ms);
}

static int
group_at_end(void *h)
{
	return flume_group_at_end(h);
}

static int
group_buffered(void *h)
{
	return flume_group_buffered(h) != 0;
}

static int
group_ack(void *h, const char *topic, int32_t partition, int64_t next)
{
	return flume_group_mark(h, topic, partition, next);
}

/*
 * Print messages from src in fmt until a signal, count messages, or with
 * eflag the end of its partitions.  Returns the exit status.
 */
static int
print_loop(struct flume_client *c, struct source *src, const char *fmt,
    long long count, int eflag)
{
	struct flume_tool_buf ob = { NULL, 0, 0 };
	struct flume_message m;
	long long seen = 0, flush_at = 0, left;
	int rc, full, status = 0;

	while (!stop && (count < 0 || seen < count)) {
		if (eflag && src->at_end(src->h))
			break;
		/* Never wait in a poll with output older than FLUSH_MS pending. */
		left = 1000;
		if (ob.len > 0 && (left = flush_at - now_ms()) < 0)
			left = 0;
		rc = src->poll(src->h, &m, (int)(left > 1000 ? 1000 : left));
		if (rc == -1) {
			poll_error(c, src);
			status = 1;
			break;
		}
		full = 0;
		if (rc == 1) {
			seen++;
			if (ob.len == 0)
				flush_at = now_ms() + FLUSH_MS;
			if (flume_tool_format(&ob, fmt, &m) == -1) {
				fprintf(stderr, "flume-consume: out of memory\n");
				status = 1;
				break;
			}
			full = src_note(src, &m);
		}
		/*
		 * Flush when idle, when the response is used up, when the
		 * buffer is big or old.
		 */
		if ((rc == 0 || full || !src->buffered(src->h) ||
		    ob.len > FLUSH_BYTES || now_ms() >= flush_at) &&
		    out_flush(&ob, src) == -1)
			break;
		/* m (no room in the table) went out with that flush. */
		if (full)
			(void)src_note(src, &m);
	}
	if (out_flush(&ob, src) == -1 || ferror(stdout)) {
		fprintf(stderr, "flume-consume: stdout: %s\n", strerror(errno));
		status = 1;
	}
	flume_tool_buf_free(&ob);
	return status;
}

/*
 * -g: consume topic as a member of group until a signal (then commit and
 * leave), the count, or with eflag the end of the assigned partitions.
 * Returns the exit status.
 */
static int
consume_group(struct flume_client *c, const char *group, const char *topic,
    const struct flume_group_conf *gconf, int eflag, long long count,
    const char *fmt)
{
	struct source src = { NULL, group_poll, group_at_end, group_buffered,
	    NULL, group_ack, topic, { { 0, 0 } }, 0 };
	struct flume_group *g;
	int status;

	if ((g = flume_group_join(c, group, &topic, 1, gconf)) == NULL) {
		fprintf(stderr, "flume-consume: %s\n", flume_errstr(c));
		return 1;
	}
	src.h = g;
	src.group = group;
	status = print_loop(c, &src, fmt, count, eflag);
	/* Everything printed (and only that) is committed; then the partitions move at once. */
	if (flume_group_close(g) == -1) {
		fprintf(stderr, "flume-consume: leaving %s: %s\n", group,
		    flume_errstr(c));
		status = 1;
	}
	return status;
}

int
main(int argc, char *argv[])
{
	struct flume_consumer_conf kconf;
	struct flume_client *c;
	struct flume_consumer *k;
	struct sigaction sa;
	const char *broker = NULL, *topic = NULL, *fmt = "%v\n";
	const char *secret = NULL, *group = NULL;
	struct flume_group_conf gconf;
	char ferr[128];
	long long ll, count = -1;
	int64_t offset = FLUME_OFFSET_END, at_ms = -1;
	struct timespec rt;
	int32_t partition = FLUME_PARTITION_ANY;
	int ch, eflag = 0, uflag = 0, status = 0;

	flume_group_conf_init(&gconf);

	while ((ch = getopt_long(argc, argv, "b:C:ef:g:hn:o:p:s:t:UV",
	    flume_tool_longopts, NULL)) != -1) {
		switch (ch) {
		case FLUME_TOOL_OPT_SECRET:
			secret = optarg;
			break;
		case FLUME_TOOL_OPT_TLS:
		case FLUME_TOOL_OPT_CA:
		case FLUME_TOOL_OPT_CERT:
		case FLUME_TOOL_OPT_KEY:
			(void)flume_tool_tls_opt(ch, optarg);
			break;
		case 'b':
			broker = optarg;
			break;
		case 'e':
			eflag = 1;
			break;
		case 'f':
			fmt = optarg;
			if (flume_tool_format_check(fmt, ferr, sizeof(ferr)) == -1) {
				fprintf(stderr, "flume-consume: -f: %s\n", ferr);
				return 2;
			}
			break;
		case 'C':
			if (flume_tool_parse_long(optarg, 0, INT32_MAX, &ll) == -1) {
				fprintf(stderr, "flume-consume: bad commit interval "
				    "%s\n", optarg);
				return 2;
			}
			gconf.auto_commit_ms = (int)ll;
			break;
		case 'g':
			group = optarg;
			break;
		case 's':
			if (flume_tool_parse_long(optarg, 1, INT32_MAX, &ll) == -1) {
				fprintf(stderr, "flume-consume: bad session timeout "
				    "%s\n", optarg);
				return 2;
			}
			gconf.session_timeout_ms = (int)ll;
			break;
		case 'U':
			uflag = 1;
			break;
		case 'V':
			flume_tool_version("flume-consume");
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'n':
			if (flume_tool_parse_long(optarg, 0, INT64_MAX, &count) == -1) {
				fprintf(stderr, "flume-consume: bad count %s\n",
				    optarg);
				return 2;
			}
			break;
		case 'o':
			clock_gettime(CLOCK_REALTIME, &rt);
			if (optarg[0] == '@' || optarg[0] == '-') {
				if (flume_tool_parse_time(optarg,
				    (int64_t)rt.tv_sec * 1000 +
				    rt.tv_nsec / 1000000, &at_ms) == -1) {
					fprintf(stderr, "flume-consume: -o: bad "
					    "time %s (@epoch_ms, @2026-12-01T14:00"
					    ":00Z, or -30s, -15m, -1h, -2d)\n",
					    optarg);
					return 2;
				}
				offset = FLUME_OFFSET_END;
			} else if (flume_tool_parse_offset(optarg, &offset) == -1) {
				fprintf(stderr, "flume-consume: -o must be "
				    "beginning, end, an offset or a time, not "
				    "%s\n", optarg);
				return 2;
			}
			break;
		case 'p':
			if (flume_tool_parse_long(optarg, 0, INT32_MAX, &ll) == -1) {
				fprintf(stderr, "flume-consume: bad partition %s\n",
				    optarg);
				return 2;
			}
			partition = (int32_t)ll;
			break;
		case 't':
			topic = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "flume-consume: unexpected argument %s\n",
		    argv[optind]);
		usage(stderr);
		return 2;
	}
	if (topic == NULL || *topic == '\0') {
		fprintf(stderr, "flume-consume: a topic (-t) is required\n");
		usage(stderr);
		return 2;
	}
	if (group != NULL && (partition != FLUME_PARTITION_ANY || offset >= 0 ||
	    at_ms >= 0)) {
		fprintf(stderr, "flume-consume: with -g the group assigns the "
		    "partitions: no -p, and -o is beginning or end\n");
		return 2;
	}
	gconf.start_offset = offset;
	/* No SA_RESTART: a signal cuts the current wait short. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	broker = flume_tool_broker(broker);
	if ((c = flume_tool_connect(broker, secret)) == NULL) {
		fprintf(stderr, "flume-consume: %s\n", flume_errstr(NULL));
		return 1;
	}
	if (group != NULL) {
		status = consume_group(c, group, topic, &gconf, eflag, count, fmt);
		flume_close(c);
		return status;
	}
	flume_consumer_conf_init(&kconf);
	if ((k = flume_consumer_new(c, &kconf)) == NULL) {
		fprintf(stderr, "flume-consume: out of memory\n");
		flume_close(c);
		return 1;
	}
	/* Transactions: aborted records too (markers never). */
	if (uflag)
		(void)flume_consumer_set_isolation(k, FLUME_READ_UNCOMMITTED);
	if ((at_ms >= 0 ? subscribe_at(c, k, topic, partition, at_ms) :
	    flume_consumer_subscribe(k, topic, partition, offset)) == -1) {
		fprintf(stderr, "flume-consume: %s\n", flume_errstr(c));
		status = 1;
	} else {
		struct source src = { k, consumer_poll, consumer_at_end,
		    consumer_buffered, NULL, NULL, topic, { { 0, 0 } }, 0 };

		status = print_loop(c, &src, fmt, count, eflag);
	}
	flume_consumer_free(k);
	flume_close(c);
	return status;
}
