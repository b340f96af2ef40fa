/*
 * flume-admin: list, create and describe topics, and list the broker's
 * worker and writer processes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "clients/flume_tool.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: flume-admin [-b host:port] topics\n"
	    "       flume-admin [-b host:port] create topic [-p partitions]\n"
	    "       flume-admin [-b host:port] describe topic\n"
	    "       flume-admin [-b host:port] workers\n");
}

static int
topic_cmp(const void *a, const void *b)
{
	const struct flume_topic_meta *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int
cmd_topics(struct flume_client *c)
{
	struct flume_metadata *md;
	int32_t i;

	if (flume_metadata(c, NULL, 0, 0, &md) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		return 1;
	}
	if (md->topic_count > 0)
		qsort(md->topics, (size_t)md->topic_count, sizeof(*md->topics),
		    topic_cmp);
	for (i = 0; i < md->topic_count; i++)
		printf("%s %d\n", md->topics[i].name,
		    (int)md->topics[i].partition_count);
	flume_metadata_free(md);
	return 0;
}

static int
cmd_create(struct flume_client *c, int argc, char *argv[])
{
	const char *topic = NULL, *pstr;
	long long parts = 0;
	int32_t created;
	int i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-p", 2) == 0) {
			pstr = argv[i][2] != '\0' ? argv[i] + 2 : argv[++i];
			if (pstr == NULL || flume_tool_parse_long(pstr, 1,
			    INT32_MAX, &parts) == -1) {
				fprintf(stderr, "flume-admin: -p needs a "
				    "partition count of at least 1\n");
				return 2;
			}
		} else if (topic == NULL && argv[i][0] != '-')
			topic = argv[i];
		else {
			usage(stderr);
			return 2;
		}
	}
	if (topic == NULL) {
		usage(stderr);
		return 2;
	}
	if (flume_create_topic(c, topic, (int32_t)parts, &created) == -1) {
		fprintf(stderr, "flume-admin: cannot create %s\n", flume_errstr(c));
		return 1;
	}
	printf("created %s with %d partitions\n", topic, (int)created);
	return 0;
}

static int
cmd_describe(struct flume_client *c, const char *topic)
{
	struct flume_metadata *md;
	const struct flume_topic_meta *t;
	int32_t i;
	int rc = 0;

	if (flume_metadata(c, &topic, 1, 0, &md) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		return 1;
	}
	if (md->topic_count != 1 || md->topics[0].error != 0) {
		fprintf(stderr, "flume-admin: %s: %s\n", topic,
		    md->topic_count == 1 ? flume_strerror(md->topics[0].error) :
		    "unknown topic or partition");
		flume_metadata_free(md);
		return 1;
	}
	t = &md->topics[0];
	printf("%-9s %20s %20s %20s\n", "PARTITION", "LOG_START", "LOG_END",
	    "SIZE");
	for (i = 0; i < t->partition_count; i++)
		printf("%-9d %20lld %20lld %20lld\n",
		    (int)t->partitions[i].partition,
		    (long long)t->partitions[i].log_start,
		    (long long)t->partitions[i].log_end,
		    (long long)t->partitions[i].size_bytes);
	flume_metadata_free(md);
	return rc;
}

static int
cmd_workers(struct flume_client *c)
{
	struct flume_worker_info *w;
	char up[32];
	int n, i;

	if ((n = flume_workers(c, &w)) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		return 1;
	}
	printf("%-4s %-6s %8s %12s %8s\n", "SLOT", "ROLE", "PID", "UPTIME",
	    "RESTARTS");
	for (i = 0; i < n; i++) {
		flume_tool_uptime(up, sizeof(up), w[i].uptime_ms);
		printf("%-4d %-6s %8d %12s %8d\n", (int)w[i].slot,
		    w[i].role == 1 ? "writer" : "worker", (int)w[i].pid, up,
		    (int)w[i].restarts);
	}
	free(w);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct flume_client *c;
	const char *broker = NULL, *cmd;
	int ch, status;

	/* "+": options stop at the command, which has its own. */
	while ((ch = getopt(argc, argv, "+b:h")) != -1) {
		switch (ch) {
		case 'b':
			broker = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return 2;
	}
	cmd = argv[0];
	if (!((strcmp(cmd, "topics") == 0 && argc == 1) ||
	    (strcmp(cmd, "workers") == 0 && argc == 1) ||
	    (strcmp(cmd, "describe") == 0 && argc == 2) ||
	    strcmp(cmd, "create") == 0)) {
		usage(stderr);
		return 2;
	}
	broker = flume_tool_broker(broker);
	if ((c = flume_connect(broker)) == NULL) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(NULL));
		return 1;
	}
	if (strcmp(cmd, "topics") == 0)
		status = cmd_topics(c);
	else if (strcmp(cmd, "workers") == 0)
		status = cmd_workers(c);
	else if (strcmp(cmd, "describe") == 0)
		status = cmd_describe(c, argv[1]);
	else
		status = cmd_create(c, argc, argv);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "flume-admin: stdout: %s\n", strerror(errno));
		status = 1;
	}
	flume_close(c);
	return status;
}
