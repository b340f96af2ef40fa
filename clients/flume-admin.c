/*
 * flume-admin: list, create, delete and describe topics, list the broker's
 * worker and writer processes, show consumer groups and reset a group's
 * committed offsets, show and change a topic's settings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clients/flume.h"
#include "clients/flume_config.h"
#include "clients/flume_stats.h"
#include "clients/flume_tool.h"
#include "proto/role.h"
#include "proto/txnlog.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: flume-admin [-b host:port] topics\n"
	    "       flume-admin [-b host:port] create topic [-p partitions]\n"
	    "       flume-admin [-b host:port] delete topic [topic ...]\n"
	    "       flume-admin [-b host:port] partitions topic count\n"
	    "       flume-admin [-b host:port] describe topic\n"
	    "       flume-admin [-b host:port] workers\n"
	    "       flume-admin [-b host:port] connections\n"
	    "       flume-admin [-b host:port] groups\n"
	    "       flume-admin [-b host:port] group name\n"
	    "       flume-admin [-b host:port] group name reset -t topic "
	    "[-p partition]\n"
	    "                   --to-offset N | --to-earliest | --to-latest | "
	    "--to-time ms|@time|-age\n"
	    "       flume-admin [-b host:port] group name delete\n"
	    "       flume-admin [-b host:port] group name delete-offsets topic "
	    "[partition ...]\n"
	    "       flume-admin [-b host:port] delete-records topic partition "
	    "offset|end\n"
	    "       flume-admin [-b host:port] stats\n"
	    "       flume-admin [-b host:port] cleaner\n"
	    "       flume-admin [-b host:port] transactions\n"
	    "       flume-admin [-b host:port] config topic | --broker\n"
	    "       flume-admin [-b host:port] config topic set key=value ...\n"
	    "       flume-admin [-b host:port] config topic delete key ...\n"
	    "       flume-admin -h | --help | -V | --version\n"
	    "options (before the command): --secret-file file (default "
	    "$FLUME_SECRET_FILE)\n%s", flume_tool_tls_usage);
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
cmd_partitions(struct flume_client *c, const char *topic, const char *cstr)
{
	long long count;
	int32_t now;

	if (flume_tool_parse_long(cstr, 1, INT32_MAX, &count) == -1) {
		fprintf(stderr, "flume-admin: partitions needs a partition "
		    "count of at least 1\n");
		return 2;
	}
	if (flume_create_partitions(c, topic, (int32_t)count, &now) == -1) {
		fprintf(stderr, "flume-admin: cannot grow %s\n", flume_errstr(c));
		return 1;
	}
	printf("grew %s to %d partitions\n", topic, (int)now);
	return 0;
}

/* Every topic is tried; the status is 1 if any of them failed. */
static int
cmd_delete(struct flume_client *c, int argc, char *argv[])
{
	int32_t parts;
	int i, status = 0;

	for (i = 1; i < argc; i++) {
		if (flume_delete_topic(c, argv[i], &parts) == -1) {
			fprintf(stderr, "flume-admin: cannot delete %s\n",
			    flume_errstr(c));
			status = 1;
			continue;
		}
		printf("deleted %s with %d partition%s\n", argv[i], (int)parts,
		    parts == 1 ? "" : "s");
	}
	return status;
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
	printf("%-4s %-7s %8s %12s %8s\n", "SLOT", "ROLE", "PID", "UPTIME",
	    "RESTARTS");
	for (i = 0; i < n; i++) {
		flume_tool_uptime(up, sizeof(up), w[i].uptime_ms);
		printf("%-4d %-7s %8d %12s %8d\n", (int)w[i].slot,
		    role_name(w[i].role), (int)w[i].pid, up,
		    (int)w[i].restarts);
	}
	free(w);
	return 0;
}

/*
 * The workers' client connections, oldest first, with the software a
 * Kafka client names (ApiVersions v3+); "-" where none is known.
 */
static int
conn_cmp(const void *a, const void *b)
{
	const struct flume_conn_info *x = a, *y = b;

	if (x->opened_ms != y->opened_ms)
		return x->opened_ms < y->opened_ms ? -1 : 1;
	return strcmp(x->peer, y->peer);
}

static int
cmd_connections(struct flume_client *c)
{
	struct flume_conn_info *v;
	char since[32];
	struct tm tm;
	time_t t;
	int n, i;

	if ((n = flume_connections(c, &v)) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		return 1;
	}
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), conn_cmp);
	printf("%-4s %8s %-47s %-8s %-20s %-31s %s\n", "SLOT", "PID", "PEER",
	    "PROTOCOL", "SINCE", "CLIENT", "VERSION");
	for (i = 0; i < n; i++) {
		t = (time_t)(v[i].opened_ms / 1000);
		if (gmtime_r(&t, &tm) == NULL ||
		    strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ",
		    &tm) == 0)
			snprintf(since, sizeof(since), "-");
		printf("%-4d %8d %-47s %-8s %-20s %-31s %s\n", (int)v[i].slot,
		    (int)v[i].pid, v[i].peer, v[i].kafka ?
		    (v[i].tls ? "kafka+tls" : "kafka") :
		    (v[i].tls ? "tls" : "native"), since,
		    v[i].client_name[0] != '\0' ? v[i].client_name : "-",
		    v[i].client_version[0] != '\0' ? v[i].client_version : "-");
	}
	free(v);
	return 0;
}

/* ms since the epoch as UTC text into buf ("-" for none). */
static void
utc_text(char *buf, size_t size, int64_t ms)
{
	struct tm tm;
	time_t t;

	snprintf(buf, size, "-");
	if (ms <= 0)
		return;
	t = (time_t)(ms / 1000);
	if (gmtime_r(&t, &tm) != NULL)
		strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * The transaction coordinator's table (the TRANSACTIONS api): each
 * transactional id with Kafka's state name, its producer id and epoch,
 * its timeout, how many partitions its open transaction holds and when
 * that began (UTC).
 */
static int
cmd_transactions(struct flume_client *c)
{
	struct transactions_resp tr;
	struct txn_listing *t;
	struct arena a;
	char when[32];
	const char *st;
	int32_t i;

	arena_init(&a, 64u << 20);
	if (flume_tool_transactions(c, &a, &tr) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		arena_free(&a);
		return 1;
	}
	printf("%-24s %-18s %20s %6s %10s %5s %s\n", "TRANSACTIONAL_ID",
	    "STATE", "PRODUCER_ID", "EPOCH", "TIMEOUT_MS", "PARTS", "STARTED");
	for (i = 0; i < tr.count; i++) {
		t = &tr.txns[i];
		st = txnlog_state_name((uint32_t)(uint8_t)t->state);
		utc_text(when, sizeof(when), t->start_ms);
		printf("%-24.*s %-18s %20lld %6d %10d %5d %s\n",
		    (int)t->id_len, t->id, st != NULL ? st : "?",
		    (long long)t->producer_id, (int)t->epoch,
		    (int)t->timeout_ms, (int)t->partitions, when);
	}
	arena_free(&a);
	return 0;
}

/*
 * The cleaner's figures (the CLEANER api): its totals, then each
 * partition of a compacted topic with its dirty ratio, last clean (UTC)
 * and the bytes its passes saved.
 */
static int
cmd_cleaner(struct flume_client *c)
{
	struct cleaner_resp cr;
	struct cleaner_part *p;
	struct arena a;
	char when[32];
	int32_t i;

	arena_init(&a, 64u << 20);
	if (flume_tool_cleaner(c, &a, &cr) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		arena_free(&a);
		return 1;
	}
	printf("RUNS %lld READ %lld WRITTEN %lld REMOVED %lld\n",
	    (long long)cr.runs, (long long)cr.bytes_read,
	    (long long)cr.bytes_written, (long long)cr.records_removed);
	printf("%-20s %4s %8s %-20s %14s %14s\n", "TOPIC", "PART", "DIRTY",
	    "LAST_CLEAN", "SAVED", "LOG_BYTES");
	for (i = 0; i < cr.count; i++) {
		p = &cr.parts[i];
		utc_text(when, sizeof(when), p->last_clean_ms);
		printf("%-20.*s %4d %8.4f %-20s %14lld %14lld\n",
		    (int)p->topic_len, p->topic, (int)p->partition,
		    (double)p->dirty_ppm / 1e6, when, (long long)p->saved,
		    (long long)p->log_bytes);
	}
	arena_free(&a);
	return 0;
}

/* The broker's figures (the STATS api), as the metrics endpoint has them. */
static int
cmd_stats(struct flume_client *c)
{
	struct stats_resp st;
	struct arena a;
	int rc = 0;

	arena_init(&a, 256u << 20);
	if (flume_tool_stats(c, &a, &st) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		rc = 1;
	} else {
		printf("broker %s\n", flume_broker_version(c));
		flume_tool_stats_print(stdout, &st);
	}
	arena_free(&a);
	return rc;
}

/* Every consumer group: name, state, generation, members. */
static int
cmd_groups(struct flume_client *c)
{
	struct flume_group_info *l;
	int n, i;

	if ((n = flume_list_groups(c, &l)) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		return 1;
	}
	printf("%-24s %-11s %10s %7s\n", "GROUP", "STATE", "GENERATION",
	    "MEMBERS");
	for (i = 0; i < n; i++)
		printf("%-24s %-11s %10d %7d\n", l[i].name,
		    flume_group_state_name(l[i].state), (int)l[i].generation,
		    (int)l[i].members);
	flume_group_list_free(l, n);
	return 0;
}

/* topic/partition, comma separated ("-" for none), then a newline. */
static void
print_tps(const struct flume_topic_partition *tp, int32_t n)
{
	int32_t j;

	for (j = 0; j < n; j++)
		printf("%s%s/%d", j > 0 ? "," : "", tp[j].topic,
		    (int)tp[j].partition);
	printf("%s\n", n == 0 ? "-" : "");
}

static const char *const group_kinds[] = {
	[FLUME_GROUP_KIND_NATIVE] = "native",
	[FLUME_GROUP_KIND_CLASSIC] = "classic",
	[FLUME_GROUP_KIND_CONSUMER] = "consumer",
};

/*
 * One group: its state, kind and generation (a consumer protocol
 * group's group and assignment epochs), each member with its epoch, its
 * static instance id and its assigned partitions (topic/partition,
 * comma separated; a consumer protocol member's revoking and target
 * lists on two lines below), and per partition the committed offset,
 * the log end and the lag ("-" where nothing is committed).  A broker
 * before protocol version 2 gives no kind, epochs or instance ids.
 */
static int
cmd_group(struct flume_client *c, const char *name)
{
	struct flume_group_desc *d;
	const struct flume_group_member *m;
	const struct flume_group_member_detail *x;
	const struct flume_group_partition *p;
	char committed[32], lag[32], epoch[16];
	int32_t i;

	if (flume_describe_group(c, name, &d) == -1) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(c));
		return 1;
	}
	printf("group %s\nstate %s\n", name, flume_group_state_name(d->state));
	if (d->kind > 0 && d->kind <= FLUME_GROUP_KIND_CONSUMER)
		printf("kind %s\n", group_kinds[d->kind]);
	if (d->kind == FLUME_GROUP_KIND_CONSUMER)
		printf("group epoch %d\nassignment epoch %d\n",
		    (int)d->generation, (int)d->assignment_epoch);
	else
		printf("generation %d\n", (int)d->generation);
	printf("%-40s %-20s %5s %-20s %s\n", "MEMBER", "CLIENT", "EPOCH",
	    "INSTANCE", "PARTITIONS");
	for (i = 0; i < d->member_count; i++) {
		m = &d->members[i];
		x = d->details != NULL ? &d->details[i] : NULL;
		if (x != NULL)
			snprintf(epoch, sizeof(epoch), "%d", (int)x->epoch);
		else
			snprintf(epoch, sizeof(epoch), "-");
		printf("%-40s %-20s %5s %-20s ", m->member_id,
		    m->client_id[0] != '\0' ? m->client_id : "-", epoch,
		    x != NULL && x->instance_id[0] != '\0' ? x->instance_id :
		    "-");
		print_tps(m->parts, m->count);
		if (x == NULL || d->kind != FLUME_GROUP_KIND_CONSUMER)
			continue;
		printf("  revoking ");
		print_tps(x->revoking, x->revoking_count);
		printf("  target ");
		print_tps(x->target, x->target_count);
	}
	printf("%-24s %9s %20s %20s %20s\n", "TOPIC", "PARTITION", "COMMITTED",
	    "LOG_END", "LAG");
	for (i = 0; i < d->partition_count; i++) {
		p = &d->partitions[i];
		if (p->committed >= 0) {
			snprintf(committed, sizeof(committed), "%lld",
			    (long long)p->committed);
			snprintf(lag, sizeof(lag), "%lld", (long long)(p->log_end >
			    p->committed ? p->log_end - p->committed : 0));
		} else {
			snprintf(committed, sizeof(committed), "-");
			snprintf(lag, sizeof(lag), "-");
		}
		printf("%-24s %9d %20s %20lld %20s\n", p->topic, (int)p->partition,
		    committed, (long long)p->log_end, lag);
	}
	flume_group_desc_free(d);
	return 0;
}

/* What `group NAME reset` was asked to do. */
struct reset_args {
	const char	*topic;
	int32_t		 partition;	/* FLUME_PARTITION_ANY: all */
	int		 mode;		/* FLUME_RESET_TO_* */
	int64_t		 value;
};

/*
 * Parse "reset -t topic [-p N] --to-..." (argv[0] is "reset"); 0, or -1
 * after printing why (exit 2: nothing was sent).
 */
static int
reset_parse(int argc, char *argv[], struct reset_args *ra)
{
	const char *a, *v;
	long long ll;
	int i, modes = 0;

	ra->topic = NULL;
	ra->partition = FLUME_PARTITION_ANY;
	ra->mode = -1;
	ra->value = 0;
	for (i = 1; i < argc; i++) {
		a = argv[i];
		v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "-t") == 0 && v != NULL) {
			ra->topic = v;
			i++;
		} else if (strcmp(a, "-p") == 0 && v != NULL) {
			if (flume_tool_parse_long(v, 0, INT32_MAX, &ll) == -1) {
				fprintf(stderr, "flume-admin: bad partition "
				    "%s\n", v);
				return -1;
			}
			ra->partition = (int32_t)ll;
			i++;
		} else if (strcmp(a, "--to-time") == 0 && v != NULL &&
		    (v[0] == '@' || v[0] == '-')) {
			/* The forms of flume-consume -o: @ISO-8601, -1h. */
			struct timespec rt;
			int64_t ts;

			clock_gettime(CLOCK_REALTIME, &rt);
			if (flume_tool_parse_time(v, (int64_t)rt.tv_sec * 1000 +
			    rt.tv_nsec / 1000000, &ts) == -1) {
				fprintf(stderr, "flume-admin: --to-time: bad "
				    "time %s (ms, @2026-12-01T14:00:00Z or "
				    "-1h)\n", v);
				return -1;
			}
			ra->mode = FLUME_RESET_TO_TIME;
			ra->value = ts;
			modes++;
			i++;
		} else if ((strcmp(a, "--to-offset") == 0 ||
		    strcmp(a, "--to-time") == 0) && v != NULL) {
			if (flume_tool_parse_long(v, 0, INT64_MAX, &ll) == -1) {
				fprintf(stderr, "flume-admin: %s needs a "
				    "number, not %s\n", a, v);
				return -1;
			}
			ra->mode = a[5] == 'o' ? FLUME_RESET_TO_OFFSET :
			    FLUME_RESET_TO_TIME;
			ra->value = ll;
			modes++;
			i++;
		} else if (strcmp(a, "--to-earliest") == 0) {
			ra->mode = FLUME_RESET_TO_EARLIEST;
			modes++;
		} else if (strcmp(a, "--to-latest") == 0) {
			ra->mode = FLUME_RESET_TO_LATEST;
			modes++;
		} else if (v == NULL && (strcmp(a, "-t") == 0 ||
		    strcmp(a, "-p") == 0 || strcmp(a, "--to-offset") == 0 ||
		    strcmp(a, "--to-time") == 0)) {
			fprintf(stderr, "flume-admin: reset: %s needs a value\n",
			    a);
			return -1;
		} else {
			fprintf(stderr, "flume-admin: reset: unexpected %s\n", a);
			return -1;
		}
	}
	if (ra->topic == NULL || modes != 1) {
		fprintf(stderr, "flume-admin: reset needs -t topic and exactly "
		    "one of --to-offset, --to-earliest, --to-latest, "
		    "--to-time\n");
		return -1;
	}
	return 0;
}

/* Reset group name's offsets as ra says; print where each partition is now. */
static int
cmd_reset(struct flume_client *c, const char *name, const struct reset_args *ra)
{
	struct flume_reset_result *res;
	int i, n, status = 0;

	if ((n = flume_group_reset(c, name, ra->topic, ra->partition, ra->mode,
	    ra->value, &res)) == -1) {
		fprintf(stderr, "flume-admin: reset: %s\n", flume_errstr(c));
		return 1;
	}
	printf("%-24s %9s %20s\n", "TOPIC", "PARTITION", "COMMITTED");
	for (i = 0; i < n; i++) {
		if (res[i].error != 0) {
			fprintf(stderr, "flume-admin: %s/%d: %s\n", ra->topic,
			    (int)res[i].partition, flume_strerror(res[i].error));
			status = 1;
			continue;
		}
		printf("%-24s %9d %20lld\n", ra->topic, (int)res[i].partition,
		    (long long)res[i].offset);
	}
	free(res);
	return status;
}

/* Delete group name (it must have no members). */
static int
cmd_group_delete(struct flume_client *c, const char *name)
{
	if (flume_group_delete(c, name) == -1) {
		fprintf(stderr, "flume-admin: delete: %s\n", flume_errstr(c));
		return 1;
	}
	printf("deleted group %s\n", name);
	return 0;
}

/* Where a setting comes from, as config prints it. */
static const char *
config_source(int8_t source)
{
	switch (source) {
	case 1:
		return "topic";
	case 4:
		return "flume.conf";
	default:
		return "default";
	}
}

/* Show topic's (NULL: the broker's) settings: key, value, source. */
static int
cmd_config_show(struct flume_client *c, const char *topic)
{
	struct config_describe_resp r;
	struct arena a;
	int32_t i;
	int status = 0;

	arena_init(&a, 1 << 16);
	if (flume_tool_config_describe(c, topic, &a, &r) == -1) {
		fprintf(stderr, "flume-admin: config: %s\n", flume_errstr(c));
		status = 1;
	}
	for (i = 0; status == 0 && i < r.count; i++)
		printf("%-36.*s %-20.*s %s\n", (int)r.entries[i].key_len,
		    r.entries[i].key, (int)r.entries[i].value_len,
		    r.entries[i].value, config_source(r.entries[i].source));
	arena_free(&a);
	return status;
}

/* config topic set key=value... | delete key...: all or none. */
static int
cmd_config_alter(struct flume_client *c, int argc, char *argv[])
{
	struct config_edit *e;
	const char *eq;
	int del = strcmp(argv[2], "delete") == 0, i, n = argc - 3, status = 0;

	if ((e = calloc((size_t)n, sizeof(*e))) == NULL) {
		fprintf(stderr, "flume-admin: config: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		e[i].op = del ? 1 : 0;
		e[i].key = argv[3 + i];
		e[i].key_len = strlen(argv[3 + i]);
		e[i].value = "";
		if (del)
			continue;
		if ((eq = strchr(argv[3 + i], '=')) == NULL ||
		    eq == argv[3 + i]) {
			fprintf(stderr, "flume-admin: config: expected "
			    "key=value, got '%s'\n", argv[3 + i]);
			free(e);
			return 2;
		}
		e[i].key_len = (size_t)(eq - argv[3 + i]);
		e[i].value = eq + 1;
		e[i].value_len = strlen(eq + 1);
	}
	if (flume_tool_config_alter(c, argv[1], e, n) == -1) {
		fprintf(stderr, "flume-admin: config: %s\n", flume_errstr(c));
		status = 1;
	} else
		printf("%s: %d setting%s %s\n", argv[1], n, n == 1 ? "" : "s",
		    del ? "deleted" : "set");
	free(e);
	return status;
}

/* A partition number or an offset (or "end") of the command line. */
static int
num_arg(const char *s, int64_t min, int64_t max, int64_t *v)
{
	char *end;
	long long n;

	if (strcmp(s, "end") == 0 && min < 0) {
		*v = FLUME_DELETE_TO_END;
		return 0;
	}
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || n < min || n > max) {
		fprintf(stderr, "flume-admin: bad number %s\n", s);
		return -1;
	}
	*v = n;
	return 0;
}

static int
cmd_delete_records(struct flume_client *c, char *argv[])
{
	int64_t part, offset, start;

	if (num_arg(argv[2], 0, INT32_MAX, &part) == -1 ||
	    num_arg(argv[3], -1, INT64_MAX, &offset) == -1)
		return 2;
	if (flume_delete_records(c, argv[1], (int32_t)part, offset,
	    &start) == -1) {
		fprintf(stderr, "flume-admin: delete-records: %s\n",
		    flume_errstr(c));
		return 1;
	}
	printf("%s/%d: log starts at %lld\n", argv[1], (int)part,
	    (long long)start);
	return 0;
}

static int
cmd_group_delete_offsets(struct flume_client *c, int argc, char *argv[])
{
	struct flume_offset_delete_result *res;
	int32_t *parts = NULL;
	int64_t v;
	int i, n, np = argc - 4, status = 0;

	if (np > 0 && (parts = calloc((size_t)np, sizeof(*parts))) == NULL) {
		fprintf(stderr, "flume-admin: out of memory\n");
		return 1;
	}
	for (i = 0; i < np; i++) {
		if (num_arg(argv[4 + i], 0, INT32_MAX, &v) == -1) {
			free(parts);
			return 2;
		}
		parts[i] = (int32_t)v;
	}
	n = flume_group_delete_offsets(c, argv[1], argv[3], parts, np, &res);
	free(parts);
	if (n == -1) {
		fprintf(stderr, "flume-admin: delete-offsets: %s\n",
		    flume_errstr(c));
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (res[i].error != 0) {
			printf("%s/%d: %s\n", argv[3], (int)res[i].partition,
			    flume_strerror(res[i].error));
			status = 1;
		} else
			printf("%s/%d: deleted\n", argv[3],
			    (int)res[i].partition);
	}
	free(res);
	return status;
}

int
main(int argc, char *argv[])
{
	struct reset_args ra = { NULL, FLUME_PARTITION_ANY, 0, 0 };
	struct flume_client *c;
	const char *broker = NULL, *cmd, *secret = NULL;
	int ch, status;

	/* "+": options stop at the command, which has its own. */
	while ((ch = getopt_long(argc, argv, "+b:hV", flume_tool_longopts,
	    NULL)) != -1) {
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
		case 'V':
			flume_tool_version("flume-admin");
			return 0;
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
	    (strcmp(cmd, "connections") == 0 && argc == 1) ||
	    (strcmp(cmd, "stats") == 0 && argc == 1) ||
	    (strcmp(cmd, "cleaner") == 0 && argc == 1) ||
	    (strcmp(cmd, "transactions") == 0 && argc == 1) ||
	    (strcmp(cmd, "groups") == 0 && argc == 1) ||
	    (strcmp(cmd, "group") == 0 && argc == 2) ||
	    (strcmp(cmd, "group") == 0 && argc >= 3 &&
	    strcmp(argv[2], "reset") == 0) ||
	    (strcmp(cmd, "group") == 0 && argc == 3 &&
	    strcmp(argv[2], "delete") == 0) ||
	    (strcmp(cmd, "group") == 0 && argc >= 4 &&
	    strcmp(argv[2], "delete-offsets") == 0) ||
	    (strcmp(cmd, "delete-records") == 0 && argc == 4) ||
	    (strcmp(cmd, "describe") == 0 && argc == 2) ||
	    (strcmp(cmd, "config") == 0 && argc == 2) ||
	    (strcmp(cmd, "config") == 0 && argc >= 4 &&
	    strcmp(argv[1], "--broker") != 0 &&
	    (strcmp(argv[2], "set") == 0 || strcmp(argv[2], "delete") == 0)) ||
	    (strcmp(cmd, "delete") == 0 && argc >= 2) ||
	    (strcmp(cmd, "partitions") == 0 && argc == 3) ||
	    strcmp(cmd, "create") == 0)) {
		usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "group") == 0 && argc >= 3 &&
	    strcmp(argv[2], "reset") == 0 &&
	    reset_parse(argc - 2, argv + 2, &ra) == -1)
		return 2;
	broker = flume_tool_broker(broker);
	if ((c = flume_tool_connect(broker, secret)) == NULL) {
		fprintf(stderr, "flume-admin: %s\n", flume_errstr(NULL));
		return 1;
	}
	if (strcmp(cmd, "topics") == 0)
		status = cmd_topics(c);
	else if (strcmp(cmd, "workers") == 0)
		status = cmd_workers(c);
	else if (strcmp(cmd, "connections") == 0)
		status = cmd_connections(c);
	else if (strcmp(cmd, "stats") == 0)
		status = cmd_stats(c);
	else if (strcmp(cmd, "cleaner") == 0)
		status = cmd_cleaner(c);
	else if (strcmp(cmd, "transactions") == 0)
		status = cmd_transactions(c);
	else if (strcmp(cmd, "groups") == 0)
		status = cmd_groups(c);
	else if (strcmp(cmd, "group") == 0 && argc >= 3 &&
	    strcmp(argv[2], "delete") == 0)
		status = cmd_group_delete(c, argv[1]);
	else if (strcmp(cmd, "group") == 0 && argc >= 4 &&
	    strcmp(argv[2], "delete-offsets") == 0)
		status = cmd_group_delete_offsets(c, argc, argv);
	else if (strcmp(cmd, "delete-records") == 0)
		status = cmd_delete_records(c, argv);
	else if (strcmp(cmd, "group") == 0 && argc >= 3)
		status = cmd_reset(c, argv[1], &ra);
	else if (strcmp(cmd, "group") == 0)
		status = cmd_group(c, argv[1]);
	else if (strcmp(cmd, "describe") == 0)
		status = cmd_describe(c, argv[1]);
	else if (strcmp(cmd, "config") == 0 && argc == 2)
		status = cmd_config_show(c, strcmp(argv[1], "--broker") == 0 ?
		    NULL : argv[1]);
	else if (strcmp(cmd, "config") == 0)
		status = cmd_config_alter(c, argc, argv);
	else if (strcmp(cmd, "delete") == 0)
		status = cmd_delete(c, argc, argv);
	else if (strcmp(cmd, "partitions") == 0)
		status = cmd_partitions(c, argv[1], argv[2]);
	else
		status = cmd_create(c, argc, argv);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "flume-admin: stdout: %s\n", strerror(errno));
		status = 1;
	}
	flume_close(c);
	return status;
}
