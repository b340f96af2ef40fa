/*
 * flume-produce: send messages (arguments, or lines of stdin) to a topic
 * and exit 0 only when every one was acknowledged.  With -v, print
 * "PARTITION OFFSET" per message in input order as acknowledgements come.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "clients/flume_tool.h"

struct result {
	int64_t		 offset;
	int32_t		 partition;
	int		 error;
	int		 done;
};

/* Delivery reports not yet printed, indexed by seq - base. */
struct results {
	struct result	*r;
	size_t		 len, cap;	/* slots in use from base */
	uint64_t	 base;		/* seq of r[0] */
	uint64_t	 failed;
	int		 first_error;
	int32_t		 first_error_partition;
	int		 verbose;
	int		 oom;
};

/* Lines of a file descriptor, read in large chunks. */
struct lines {
	int		 fd;
	char		*buf;
	size_t		 start, len, cap;
	int		 eof;
};

/*
 * The next line (without its newline) in *line and *len: 1, 0 at the end, -1
 * on a read error.  idle() runs before a read that would block, so
 * messages typed by hand are sent and acknowledged while input waits.
 */
static int
lines_next(struct lines *ls, char **line, size_t *len, void (*idle)(void *),
    void *arg)
{
	struct pollfd pfd;
	char *nl, *nb;
	size_t ncap;
	ssize_t n;

	for (;;) {
		nl = ls->len > ls->start ? memchr(ls->buf + ls->start, '\n',
		    ls->len - ls->start) : NULL;
		if (nl != NULL || (ls->eof && ls->start < ls->len)) {
			*line = ls->buf + ls->start;
			*len = nl != NULL ? (size_t)(nl - *line) :
			    ls->len - ls->start;
			ls->start += *len + (nl != NULL ? 1 : 0);
			return 1;
		}
		if (ls->eof)
			return 0;
		if (ls->start > 0) {
			memmove(ls->buf, ls->buf + ls->start, ls->len - ls->start);
			ls->len -= ls->start;
			ls->start = 0;
		}
		if (ls->len == ls->cap) {
			ncap = ls->cap ? ls->cap * 2 : 65536;
			if ((nb = realloc(ls->buf, ncap)) == NULL)
				return -1;
			ls->buf = nb;
			ls->cap = ncap;
		}
		pfd.fd = ls->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) == 0)
			idle(arg);
		n = read(ls->fd, ls->buf + ls->len, ls->cap - ls->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			ls->eof = 1;
		ls->len += (size_t)n;
	}
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: flume-produce [-b host:port] -t topic [-k key] "
	    "[-p partition] [-K delim]\n"
	    "                     [-a 0|1|all] [-z gzip|snappy|lz4|zstd|none] "
	    "[-v]\n"
	    "                     [--secret-file file] [message ...]\n"
	    "       flume-produce -h | --help | -V | --version\n%s",
	    flume_tool_tls_usage);
}

static const char *
error_text(int e)
{
	return e > 0 ? flume_strerror(e) : strerror(-e);
}

/* Room for seq in the window (compacting printed slots away first). */
static struct result *
results_slot(struct results *rs, uint64_t seq)
{
	struct result *nr;
	size_t idx, ncap;

	if (seq < rs->base)
		return NULL;
	idx = (size_t)(seq - rs->base);
	if (idx >= rs->cap) {
		ncap = rs->cap ? rs->cap : 1024;
		while (ncap <= idx)
			ncap *= 2;
		if ((nr = reallocarray(rs->r, ncap, sizeof(*nr))) == NULL) {
			rs->oom = 1;
			return NULL;
		}
		memset(nr + rs->cap, 0, (ncap - rs->cap) * sizeof(*nr));
		rs->r = nr;
		rs->cap = ncap;
	}
	if (idx >= rs->len)
		rs->len = idx + 1;
	return &rs->r[idx];
}

static void
on_delivery(const struct flume_delivery *d, void *arg)
{
	struct results *rs = arg;
	struct result *r;

	if (d->error != 0 && rs->failed++ == 0) {
		rs->first_error = d->error;
		rs->first_error_partition = d->partition;
	}
	if (!rs->verbose)
		return;
	if ((r = results_slot(rs, d->seq)) == NULL)
		return;
	r->offset = d->offset;
	r->partition = d->partition;
	r->error = d->error;
	r->done = 1;
}

/* Print the reports that are next in input order. */
static void
results_print(struct results *rs)
{
	size_t i = 0;

	if (!rs->verbose)
		return;
	while (i < rs->len && rs->r[i].done) {
		if (rs->r[i].error == 0)
			printf("%d %lld\n", (int)rs->r[i].partition,
			    (long long)rs->r[i].offset);
		i++;
	}
	if (i == 0)
		return;
	fflush(stdout);
	memmove(rs->r, rs->r + i, (rs->len - i) * sizeof(*rs->r));
	memset(rs->r + (rs->len - i), 0, i * sizeof(*rs->r));
	rs->len -= i;
	rs->base += i;
}

struct idle_ctx {
	struct flume_producer	*p;
	struct results		*rs;
};

/* Input is idle: send what is queued and report it before blocking. */
static void
on_idle(void *arg)
{
	struct idle_ctx *ic = arg;

	(void)flume_producer_flush(ic->p, -1);
	results_print(ic->rs);
}

int
main(int argc, char *argv[])
{
	struct flume_producer_conf pconf;
	struct flume_client *c;
	struct flume_producer *p;
	struct results rs;
	const char *broker = NULL, *topic = NULL, *key = NULL, *delim = NULL;
	const char *secret = NULL;
	const char *k, *v;
	struct lines ls = { 0, NULL, 0, 0, 0, 0 };
	struct idle_ctx ic;
	char *line;
	size_t linelen;
	int n;
	long long ll;
	int32_t partition = FLUME_PARTITION_ANY, kl, vl;
	int ch, acks = 1, codec = FLUME_COMPRESSION_NONE, i, rc = 0, status = 0;

	memset(&rs, 0, sizeof(rs));
	while ((ch = getopt_long(argc, argv, "a:b:hk:K:p:t:vVz:",
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
		case 'a':
			if (flume_tool_parse_acks(optarg, &acks) == -1) {
				fprintf(stderr, "flume-produce: -a must be 0, 1 "
				    "or all, not %s\n", optarg);
				return 2;
			}
			break;
		case 'b':
			broker = optarg;
			break;
		case 'V':
			flume_tool_version("flume-produce");
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'k':
			key = optarg;
			break;
		case 'K':
			if (*optarg == '\0') {
				fprintf(stderr, "flume-produce: -K needs a "
				    "delimiter\n");
				return 2;
			}
			delim = optarg;
			break;
		case 'p':
			if (flume_tool_parse_long(optarg, 0, INT32_MAX, &ll) == -1) {
				fprintf(stderr, "flume-produce: bad partition "
				    "%s\n", optarg);
				return 2;
			}
			partition = (int32_t)ll;
			break;
		case 't':
			topic = optarg;
			break;
		case 'v':
			rs.verbose = 1;
			break;
		case 'z':
			if ((codec = flume_compression_by_name(optarg)) == -1) {
				fprintf(stderr, "flume-produce: -z must be gzip, "
				    "snappy, lz4, zstd or none, not %s\n", optarg);
				return 2;
			}
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (topic == NULL || *topic == '\0') {
		fprintf(stderr, "flume-produce: a topic (-t) is required\n");
		usage(stderr);
		return 2;
	}
	broker = flume_tool_broker(broker);
	if ((c = flume_tool_connect(broker, secret)) == NULL) {
		fprintf(stderr, "flume-produce: %s\n", flume_errstr(NULL));
		return 1;
	}
	flume_producer_conf_init(&pconf);
	pconf.acks = acks;
	pconf.compression = codec;
	pconf.on_delivery = on_delivery;
	pconf.on_delivery_arg = &rs;
	if ((p = flume_producer_new(c, &pconf)) == NULL) {
		fprintf(stderr, "flume-produce: %s\n", flume_errstr(c));
		flume_close(c);
		return 1;
	}
	kl = key != NULL ? (int32_t)strlen(key) : -1;
	if (argc > 0) {
		for (i = 0; i < argc && rc == 0; i++) {
			rc = flume_produce(p, topic, partition, key, kl, argv[i],
			    (int32_t)strlen(argv[i]), NULL);
			results_print(&rs);
		}
	} else {
		ic.p = p;
		ic.rs = &rs;
		while (rc == 0 && (n = lines_next(&ls, &line, &linelen, on_idle,
		    &ic)) == 1) {
			if (linelen > INT32_MAX) {
				fprintf(stderr, "flume-produce: line too long\n");
				rc = -1;
				break;
			}
			if (delim == NULL || flume_tool_split_key(line, linelen,
			    delim, &k, &kl, &v, &vl) == 0) {
				k = key;
				kl = key != NULL ? (int32_t)strlen(key) : -1;
				v = line;
				vl = (int32_t)linelen;
			}
			rc = flume_produce(p, topic, partition, k, kl, v, vl, NULL);
			results_print(&rs);
		}
		if (n == -1) {
			fprintf(stderr, "flume-produce: stdin: %s\n",
			    strerror(errno));
			status = 1;
		}
		free(ls.buf);
	}
	if (rc == -1) {
		fprintf(stderr, "flume-produce: %s\n", flume_errstr(c));
		status = 1;
	}
	if (flume_producer_flush(p, -1) == -1 || rs.failed > 0) {
		if (rs.failed > 0)
			fprintf(stderr, "flume-produce: %llu message(s) failed: "
			    "%s/%d: %s\n", (unsigned long long)rs.failed, topic,
			    (int)rs.first_error_partition,
			    error_text(rs.first_error));
		else if (status == 0)
			fprintf(stderr, "flume-produce: %s\n", flume_errstr(c));
		status = 1;
	}
	results_print(&rs);
	if (rs.oom) {
		fprintf(stderr, "flume-produce: out of memory for -v\n");
		status = 1;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "flume-produce: stdout: %s\n", strerror(errno));
		status = 1;
	}
	flume_producer_free(p);
	flume_close(c);
	free(rs.r);
	return status;
}
