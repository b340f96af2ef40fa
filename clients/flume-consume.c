/*
 * flume-consume: print the messages of a topic (every partition, or one)
 * from an offset, optionally until the end (-e) or a count (-n).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "clients/flume_tool.h"

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
	    "[-o beginning|end|offset]\n"
	    "                     [-e] [-n count] [-f format]\n");
}

/* Write out what was rendered; 0 or -1 (stdout failed). */
static int
out_flush(struct flume_tool_buf *ob)
{
	if (ob->len > 0 && fwrite(ob->p, 1, ob->len, stdout) != ob->len)
		return -1;
	ob->len = 0;
	return fflush(stdout) == EOF ? -1 : 0;
}

int
main(int argc, char *argv[])
{
	struct flume_consumer_conf kconf;
	struct flume_client *c;
	struct flume_consumer *k;
	struct flume_message m;
	struct flume_tool_buf ob = { NULL, 0, 0 };
	struct sigaction sa;
	const char *broker = NULL, *topic = NULL, *fmt = "%v\n";
	char ferr[128];
	long long ll, count = -1, seen = 0;
	int64_t offset = FLUME_OFFSET_END;
	int32_t partition = FLUME_PARTITION_ANY;
	int ch, eflag = 0, rc, status = 0;

	while ((ch = getopt(argc, argv, "b:ef:g:hn:o:p:t:")) != -1) {
		switch (ch) {
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
		case 'g':
			fprintf(stderr, "flume-consume: consumer groups (-g) are "
			    "not supported yet\n");
			return 2;
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
			if (flume_tool_parse_offset(optarg, &offset) == -1) {
				fprintf(stderr, "flume-consume: -o must be "
				    "beginning, end or an offset, not %s\n", optarg);
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
	/* No SA_RESTART: a signal cuts the current wait short. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	broker = flume_tool_broker(broker);
	if ((c = flume_connect(broker)) == NULL) {
		fprintf(stderr, "flume-consume: %s\n", flume_errstr(NULL));
		return 1;
	}
	flume_consumer_conf_init(&kconf);
	if ((k = flume_consumer_new(c, &kconf)) == NULL) {
		fprintf(stderr, "flume-consume: out of memory\n");
		flume_close(c);
		return 1;
	}
	if (flume_consumer_subscribe(k, topic, partition, offset) == -1) {
		fprintf(stderr, "flume-consume: %s\n", flume_errstr(c));
		status = 1;
		goto done;
	}
	while (!stop && (count < 0 || seen < count)) {
		if (eflag && flume_consumer_at_end(k))
			break;
		rc = flume_consumer_poll(k, &m, 1000);
		if (rc == -1) {
			fprintf(stderr, "flume-consume: %s\n", flume_errstr(c));
			status = 1;
			break;
		}
		if (rc == 1) {
			seen++;
			if (flume_tool_format(&ob, fmt, &m) == -1) {
				fprintf(stderr, "flume-consume: out of memory\n");
				status = 1;
				break;
			}
		}
		/* Flush when the response is used up, or when the buffer is big. */
		if ((rc == 0 || !flume_consumer_buffered(k) || ob.len > 65536) &&
		    out_flush(&ob) == -1)
			break;
	}
done:
	if (out_flush(&ob) == -1 || ferror(stdout)) {
		fprintf(stderr, "flume-consume: stdout: %s\n", strerror(errno));
		status = 1;
	}
	flume_tool_buf_free(&ob);
	flume_consumer_free(k);
	flume_close(c);
	return status;
}
