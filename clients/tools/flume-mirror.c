/*
 * flume-mirror: copy topics from one Kafka-protocol broker to another
 * (Flume's Kafka listener or any Kafka cluster, either way round) with
 * librdkafka, partition p to partition p, keys, values, headers and
 * CreateTime timestamps as they are.
 *
 * The position is a consumer group on the source (--group).  A source
 * offset is committed only once the target acknowledged (acks=all,
 * idempotent producer, delivery report) every record before it, so a
 * restart resumes without loss; what a kill -9 can repeat is exactly the
 * records the target acknowledged after the last commit.  The mirror
 * assigns partitions itself instead of joining the group: one mirror per
 * group, and no rebalance in the middle of a copy.
 *
 * Delivery reports also give, per partition, runs of source offset ->
 * target offset; --groups uses them to translate other groups' committed
 * offsets (see mirror_translate.c).
 */
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "clients/tools/mirror.h"
#include "proto/version.h"

/* How often progress is drawn. */
#define PROGRESS_MS	1000

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	stop = 1;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: flume-mirror -s host:port -d host:port [-r] [--once] "
	    "[--group name]\n"
	    "                    [--groups g1,g2,^regex] [-t timeout_ms] "
	    "[-c commit_ms]\n"
	    "                    [-X [source.|target.]key=value] [-q] [-v] "
	    "topic ...\n"
	    "       flume-mirror -h | --help | -V | --version\n"
	    "  -s, --source      source bootstrap servers\n"
	    "  -d, --target      target bootstrap servers\n"
	    "  -r, --regex       topics are POSIX extended regular expressions\n"
	    "      --once        copy up to the end offsets at start, then exit\n"
	    "  -g, --group       the mirror's group on the source "
	    "(default flume-mirror)\n"
	    "      --groups      translate these groups' committed offsets to "
	    "the target\n"
	    "  -t, --timeout     broker timeout in ms (default 10000)\n"
	    "  -c, --commit-interval  ms between commits of the position "
	    "(default 500)\n"
	    "  -X                librdkafka property for both sides, or "
	    "source./target. only\n"
	    "  -q, --quiet       no progress and no notes on stderr\n"
	    "  -v, --verbose     librdkafka's own log on stderr\n");
}

void
mirror_note(const struct mirror *m, const char *fmt, ...)
{
	va_list ap;

	if (m->quiet)
		return;
	if (m->progress_shown)
		fputs("\r\033[K", stderr);
	fputs("flume-mirror: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
mirror_warn(const char *fmt, ...)
{
	va_list ap;

	/* Over a progress line, if one is drawn. */
	if (isatty(2))
		fputs("\r\033[K", stderr);
	fputs("flume-mirror: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int64_t
mirror_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	const struct mirror *m = rd_kafka_opaque(rk);

	if (m != NULL && m->verbose)
		fprintf(stderr, "flume-mirror: %s: %s: %s\n",
		    rd_kafka_name(rk), fac, buf);
}

/* librdkafka keeps retrying; the last error explains a timeout. */
static void
error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	struct mirror *m = opaque;

	if (m == NULL)
		return;
	snprintf(m->last_error, sizeof(m->last_error), "%s", reason);
	if (err == RD_KAFKA_RESP_ERR__FATAL) {
		mirror_warn("fatal: %s", reason);
		m->failed = 1;
		stop = 1;
	}
}

/*
 * A delivery report, in produce order per partition (idempotence): the
 * record at source offset mm->src now sits at target offset msg->offset.
 */
static void
dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
	struct mirror *m = opaque;
	struct mirror_msg *mm = msg->_private;
	struct mirror_part *mp = mm->part;

	mp->inflight--;
	if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
		if (!m->failed)
			mirror_warn("target %s [%d]: record at source offset "
			    "%lld not delivered: %s", mp->topic->name,
			    (int)mp->partition, (long long)mm->src,
			    rd_kafka_err2str(msg->err));
		m->failed = 1;
		stop = 1;
	} else if (!m->failed) {
		mirror_map_add(mp, mm->src, msg->offset);
		m->delivered++;
	}
	free(mm);
}

/* A librdkafka configuration from -X: prefix "source." or "target." or none. */
static rd_kafka_conf_t *
conf_new(struct mirror *m, const char *side, const char *servers)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char errstr[512];
	size_t plen = strlen(side), i;

	if (rd_kafka_conf_set(conf, "bootstrap.servers", servers, errstr,
	    sizeof(errstr)) != RD_KAFKA_CONF_OK)
		goto bad;
	for (i = 0; i < m->nprops; i++) {
		const char *k = m->props[i].key;

		if (strncmp(k, "source.", 7) == 0 || strncmp(k, "target.", 7) == 0) {
			if (strncmp(k, side, plen) != 0 || k[plen] != '.')
				continue;
			k += plen + 1;
		}
		if (rd_kafka_conf_set(conf, k, m->props[i].value, errstr,
		    sizeof(errstr)) != RD_KAFKA_CONF_OK)
			goto bad;
	}
	rd_kafka_conf_set_log_cb(conf, log_cb);
	rd_kafka_conf_set_error_cb(conf, error_cb);
	rd_kafka_conf_set_opaque(conf, m);
	return conf;
bad:
	mirror_warn("%s: %s", side, errstr);
	rd_kafka_conf_destroy(conf);
	return NULL;
}

rd_kafka_t *
mirror_client(struct mirror *m, const char *side, rd_kafka_type_t type,
    const char *group)
{
	rd_kafka_conf_t *conf;
	rd_kafka_t *rk;
	char errstr[512];
	const char *servers = strcmp(side, "source") == 0 ? m->source : m->target;
	struct { const char *k, *v; } fixed[] = {
		{ "group.id", group },
		{ "enable.auto.commit", "false" },
		{ "enable.auto.offset.store", "false" },
		{ "auto.offset.reset", "earliest" },
		{ "client.id", "flume-mirror" },
	};
	size_t i;

	if ((conf = conf_new(m, side, servers)) == NULL)
		return NULL;
	if (type == RD_KAFKA_PRODUCER) {
		/* Ordered, acknowledged by every replica, never duplicated by a retry. */
		if (rd_kafka_conf_set(conf, "enable.idempotence", "true", errstr,
		    sizeof(errstr)) != RD_KAFKA_CONF_OK ||
		    rd_kafka_conf_set(conf, "acks", "all", errstr,
		    sizeof(errstr)) != RD_KAFKA_CONF_OK ||
		    rd_kafka_conf_set(conf, "linger.ms", "5", errstr,
		    sizeof(errstr)) != RD_KAFKA_CONF_OK)
			goto bad;
		rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
	} else {
		for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
			if (fixed[i].v == NULL)
				continue;
			if (rd_kafka_conf_set(conf, fixed[i].k, fixed[i].v,
			    errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK)
				goto bad;
		}
	}
	if ((rk = rd_kafka_new(type, conf, errstr, sizeof(errstr))) == NULL) {
		mirror_warn("%s %s: %s", side, servers, errstr);
		return NULL;
	}
	if (type == RD_KAFKA_CONSUMER)
		rd_kafka_poll_set_consumer(rk);
	return rk;
bad:
	mirror_warn("%s: %s", side, errstr);
	rd_kafka_conf_destroy(conf);
	return NULL;
}

/* Metadata of every topic, or NULL with the reason said. */
static const rd_kafka_metadata_t *
metadata_get(struct mirror *m, rd_kafka_t *rk, const char *side)
{
	const rd_kafka_metadata_t *md;
	rd_kafka_resp_err_t e;

	m->last_error[0] = '\0';
	e = rd_kafka_metadata(rk, 1, NULL, &md, m->timeout_ms);
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		mirror_warn("%s %s: no metadata within %d ms: %s%s%s", side,
		    strcmp(side, "source") == 0 ? m->source : m->target,
		    m->timeout_ms, rd_kafka_err2str(e),
		    m->last_error[0] != '\0' ? ": " : "", m->last_error);
		return NULL;
	}
	return md;
}

static int
topic_wanted(struct mirror *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->npatterns; i++) {
		if (m->regex) {
			if (regexec(&m->res[i], name, 0, NULL, 0) == 0 &&
			    strncmp(name, "__", 2) != 0)
				return 1;
		} else if (strcmp(m->patterns[i], name) == 0)
			return 1;
	}
	return 0;
}

/* The source topics to copy; -1 when a named one does not exist. */
static int
topics_select(struct mirror *m, const rd_kafka_metadata_t *md)
{
	struct mirror_topic *t;
	size_t i, j;
	int found;

	for (i = 0; i < (size_t)md->topic_cnt; i++) {
		const rd_kafka_metadata_topic_t *mt = &md->topics[i];

		if (mt->err != RD_KAFKA_RESP_ERR_NO_ERROR ||
		    !topic_wanted(m, mt->topic) || mt->partition_cnt <= 0)
			continue;
		t = reallocarray(m->topics, m->ntopics + 1, sizeof(*t));
		if (t == NULL)
			return -1;
		m->topics = t;
		t = &m->topics[m->ntopics++];
		memset(t, 0, sizeof(*t));
		if ((t->name = strdup(mt->topic)) == NULL)
			return -1;
		t->npart = mt->partition_cnt;
	}
	if (m->regex) {
		if (m->ntopics == 0) {
			mirror_warn("source %s: no topic matches", m->source);
			return -1;
		}
		return 0;
	}
	for (j = 0; j < m->npatterns; j++) {
		for (found = 0, i = 0; i < m->ntopics && !found; i++)
			found = strcmp(m->topics[i].name, m->patterns[j]) == 0;
		if (!found) {
			mirror_warn("source %s: no topic %s", m->source,
			    m->patterns[j]);
			return -1;
		}
	}
	return 0;
}

/*
 * Make every topic exist on the target with at least the source's
 * partitions: create the missing ones (CreateTopics, replication factor
 * the broker's default, or 1 where the broker is too old for a default),
 * refuse a topic with fewer.  0 or -1.
 */
static int
topics_prepare(struct mirror *m, rd_kafka_t *admin)
{
	const rd_kafka_metadata_t *md;
	rd_kafka_NewTopic_t **nt;
	rd_kafka_queue_t *q;
	rd_kafka_event_t *ev;
	const rd_kafka_topic_result_t **res;
	char errstr[512];
	size_t i, j, n = 0, nres;
	int rc = 0, rf, attempt;

	if ((md = metadata_get(m, admin, "target")) == NULL)
		return -1;
	if ((nt = calloc(m->ntopics + 1, sizeof(*nt))) == NULL) {
		rd_kafka_metadata_destroy(md);
		return -1;
	}
	for (i = 0; i < m->ntopics; i++) {
		struct mirror_topic *t = &m->topics[i];
		int have = -1;

		for (j = 0; j < (size_t)md->topic_cnt; j++)
			if (strcmp(md->topics[j].topic, t->name) == 0 &&
			    md->topics[j].err == RD_KAFKA_RESP_ERR_NO_ERROR)
				have = md->topics[j].partition_cnt;
		if (have < 0)
			t->create = 1;
		else if (have < t->npart) {
			mirror_warn("target %s: topic %s has %d partitions, the "
			    "source %d: refusing (add partitions on the target)",
			    m->target, t->name, have, t->npart);
			rc = -1;
		}
	}
	rd_kafka_metadata_destroy(md);
	q = rd_kafka_queue_new(admin);
	for (attempt = 0, rf = -1; rc == 0 && attempt < 2; attempt++, rf = 1) {
		rd_kafka_AdminOptions_t *opt;
		int retry = 0;

		for (n = 0, i = 0; i < m->ntopics; i++) {
			if (!m->topics[i].create)
				continue;
			nt[n++] = rd_kafka_NewTopic_new(m->topics[i].name,
			    m->topics[i].npart, rf, errstr, sizeof(errstr));
			if (nt[n - 1] == NULL) {
				mirror_warn("target: topic %s: %s",
				    m->topics[i].name, errstr);
				n--;
				rc = -1;
			}
		}
		if (n == 0 || rc == -1)
			break;
		opt = rd_kafka_AdminOptions_new(admin, RD_KAFKA_ADMIN_OP_CREATETOPICS);
		rd_kafka_AdminOptions_set_request_timeout(opt, m->timeout_ms,
		    errstr, sizeof(errstr));
		rd_kafka_CreateTopics(admin, nt, n, opt, q);
		rd_kafka_AdminOptions_destroy(opt);
		ev = rd_kafka_queue_poll(q, m->timeout_ms + 1000);
		for (i = 0; i < n; i++)
			rd_kafka_NewTopic_destroy(nt[i]);
		if (ev == NULL) {
			mirror_warn("target %s: CreateTopics timed out", m->target);
			rc = -1;
			break;
		}
		if (rd_kafka_event_error(ev) != RD_KAFKA_RESP_ERR_NO_ERROR) {
			/* A broker without CreateTopics v4 has no default factor. */
			if (rf == -1 && rd_kafka_event_error(ev) ==
			    RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE)
				retry = 1;
			else {
				mirror_warn("target %s: CreateTopics: %s",
				    m->target, rd_kafka_event_error_string(ev));
				rc = -1;
			}
		} else {
			res = rd_kafka_CreateTopics_result_topics(
			    rd_kafka_event_CreateTopics_result(ev), &nres);
			for (i = 0; i < nres; i++) {
				rd_kafka_resp_err_t e =
				    rd_kafka_topic_result_error(res[i]);

				if (e == RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE &&
				    rf == -1) {
					retry = 1;
					continue;
				}
				if (e != RD_KAFKA_RESP_ERR_NO_ERROR &&
				    e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
					mirror_warn("target %s: cannot create "
					    "topic %s: %s", m->target,
					    rd_kafka_topic_result_name(res[i]),
					    rd_kafka_err2str(e));
					rc = -1;
					continue;
				}
				for (j = 0; j < m->ntopics; j++)
					if (strcmp(m->topics[j].name,
					    rd_kafka_topic_result_name(res[i])) == 0) {
						m->topics[j].create = 0;
						mirror_note(m, "created topic %s "
						    "on the target, %d partitions",
						    m->topics[j].name,
						    m->topics[j].npart);
					}
			}
		}
		rd_kafka_event_destroy(ev);
		if (!retry)
			break;
	}
	rd_kafka_queue_destroy(q);
	free(nt);
	return rc;
}

/*
 * Where each partition starts (the group's committed offset, else the
 * log start), where --once ends (the high watermark now), and the
 * target's end (for offsets translated at the very end).  0 or -1.
 */
static int
parts_prepare(struct mirror *m, rd_kafka_t *src, rd_kafka_t *tgt)
{
	rd_kafka_topic_partition_list_t *l;
	rd_kafka_resp_err_t e;
	struct mirror_part *mp;
	size_t i, n = 0;
	int32_t p;
	int64_t lo, hi;

	for (i = 0; i < m->ntopics; i++)
		n += (size_t)m->topics[i].npart;
	if ((m->parts = calloc(n, sizeof(*m->parts))) == NULL)
		return -1;
	l = rd_kafka_topic_partition_list_new((int)n);
	for (i = 0; i < m->ntopics; i++)
		for (p = 0; p < m->topics[i].npart; p++) {
			mp = &m->parts[m->nparts++];
			mp->topic = &m->topics[i];
			mp->partition = p;
			rd_kafka_topic_partition_list_add(l, m->topics[i].name, p);
		}
	m->last_error[0] = '\0';
	if ((e = rd_kafka_committed(src, l, m->timeout_ms)) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR) {
		mirror_warn("source %s: group %s: committed offsets: %s%s%s",
		    m->source, m->group, rd_kafka_err2str(e),
		    m->last_error[0] != '\0' ? ": " : "", m->last_error);
		rd_kafka_topic_partition_list_destroy(l);
		return -1;
	}
	for (i = 0; i < m->nparts; i++) {
		mp = &m->parts[i];
		if ((e = rd_kafka_query_watermark_offsets(src, mp->topic->name,
		    mp->partition, &lo, &hi, m->timeout_ms)) !=
		    RD_KAFKA_RESP_ERR_NO_ERROR) {
			mirror_warn("source %s: %s [%d]: offsets: %s", m->source,
			    mp->topic->name, (int)mp->partition,
			    rd_kafka_err2str(e));
			rd_kafka_topic_partition_list_destroy(l);
			return -1;
		}
		mp->end = hi;
		mp->start = l->elems[i].offset >= 0 ? l->elems[i].offset : lo;
		if (mp->start < lo) {
			mirror_warn("source %s [%d]: committed offset %lld is "
			    "gone (log starts at %lld): records lost to "
			    "retention are not copied", mp->topic->name,
			    (int)mp->partition, (long long)mp->start,
			    (long long)lo);
			mp->start = lo;
		}
		mp->acked_next = mp->committed = mp->start;
		if ((e = rd_kafka_query_watermark_offsets(tgt, mp->topic->name,
		    mp->partition, &lo, &hi, m->timeout_ms)) !=
		    RD_KAFKA_RESP_ERR_NO_ERROR) {
			mirror_warn("target %s: %s [%d]: offsets: %s", m->target,
			    mp->topic->name, (int)mp->partition,
			    rd_kafka_err2str(e));
			rd_kafka_topic_partition_list_destroy(l);
			return -1;
		}
		mp->tgt_next = hi;
		l->elems[i].offset = mp->start;
	}
	e = rd_kafka_assign(src, l);
	rd_kafka_topic_partition_list_destroy(l);
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		mirror_warn("source: assign: %s", rd_kafka_err2str(e));
		return -1;
	}
	return 0;
}

static struct mirror_part *
part_find(struct mirror *m, const char *topic, int32_t partition)
{
	size_t i;

	for (i = 0; i < m->nparts; i++)
		if (m->parts[i].partition == partition &&
		    strcmp(m->parts[i].topic->name, topic) == 0)
			return &m->parts[i];
	return NULL;
}

/*
 * Commit each partition's acknowledged position (async while running,
 * sync at the end).  0 or -1.
 */
static int
positions_commit(struct mirror *m, rd_kafka_t *src, int async)
{
	rd_kafka_topic_partition_list_t *l;
	rd_kafka_resp_err_t e;
	size_t i;
	int n = 0;

	l = rd_kafka_topic_partition_list_new((int)m->nparts);
	for (i = 0; i < m->nparts; i++) {
		struct mirror_part *mp = &m->parts[i];

		/*
		 * The last commit is sync and says every position moved this
		 * run again, in case an async one before it failed.
		 */
		if (async ? mp->acked_next <= mp->committed :
		    mp->acked_next <= mp->start)
			continue;
		rd_kafka_topic_partition_list_add(l, mp->topic->name,
		    mp->partition)->offset = mp->acked_next;
		mp->committed = mp->acked_next;
		n++;
	}
	e = n > 0 ? rd_kafka_commit(src, l, async) : RD_KAFKA_RESP_ERR_NO_ERROR;
	rd_kafka_topic_partition_list_destroy(l);
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		mirror_warn("source %s: group %s: commit: %s", m->source,
		    m->group, rd_kafka_err2str(e));
		return -1;
	}
	return 0;
}

/* --once: every partition copied up to its end at start. */
static int
once_done(struct mirror *m, rd_kafka_t *src)
{
	rd_kafka_topic_partition_list_t *l;
	size_t i;
	int done = 1;

	l = rd_kafka_topic_partition_list_new((int)m->nparts);
	for (i = 0; i < m->nparts; i++)
		rd_kafka_topic_partition_list_add(l, m->parts[i].topic->name,
		    m->parts[i].partition);
	rd_kafka_position(src, l);
	for (i = 0; i < m->nparts && done; i++) {
		struct mirror_part *mp = &m->parts[i];
		/* Past the last record (compaction, markers) counts as there. */
		int64_t pos = l->elems[i].offset >= 0 ? l->elems[i].offset :
		    mp->start;

		if (mp->inflight > 0 || (mp->acked_next < mp->end &&
		    (pos < mp->end || mp->produced_next > mp->acked_next)))
			done = 0;
	}
	rd_kafka_topic_partition_list_destroy(l);
	return done;
}

static void
progress_draw(struct mirror *m, rd_kafka_t *src, int64_t now)
{
	char line[512];
	size_t i, len;
	int64_t lo, hi, lag, total = 0;
	double rate;

	rate = (double)(m->delivered - m->progress_delivered) * 1000.0 /
	    (double)(now - m->progress_ms > 0 ? now - m->progress_ms : 1);
	len = (size_t)snprintf(line, sizeof(line), "%llu records, %.0f/s, lag",
	    (unsigned long long)m->delivered, rate);
	for (i = 0; i < m->nparts; i++) {
		struct mirror_part *mp = &m->parts[i];

		if (rd_kafka_get_watermark_offsets(src, mp->topic->name,
		    mp->partition, &lo, &hi) != RD_KAFKA_RESP_ERR_NO_ERROR ||
		    hi < 0)
			hi = mp->end;
		lag = hi > mp->acked_next ? hi - mp->acked_next : 0;
		total += lag;
		if (len < sizeof(line) - 40)
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " %s[%d]=%lld", mp->topic->name, (int)mp->partition,
			    (long long)lag);
	}
	fprintf(stderr, "\r\033[Kflume-mirror: %s (total %lld)", line,
	    (long long)total);
	m->progress_shown = 1;
	m->progress_delivered = m->delivered;
	m->progress_ms = now;
}

/* Produce one source record to the target; 0, or -1 (stop). */
static int
record_copy(struct mirror *m, rd_kafka_t *tgt, const rd_kafka_message_t *rm)
{
	struct mirror_part *mp;
	struct mirror_msg *mm;
	rd_kafka_headers_t *h = NULL, *hc = NULL;
	rd_kafka_timestamp_type_t tst;
	rd_kafka_resp_err_t e;
	int64_t ts;
	int tries;

	mp = part_find(m, rd_kafka_topic_name(rm->rkt), rm->partition);
	if (mp == NULL)
		return 0;
	if (m->once && rm->offset >= mp->end)
		return 0;	/* written after we started: not this run's */
	if ((mm = malloc(sizeof(*mm))) == NULL)
		return -1;
	mm->part = mp;
	mm->src = rm->offset;
	if (rd_kafka_message_headers(rm, &h) == RD_KAFKA_RESP_ERR_NO_ERROR)
		hc = rd_kafka_headers_copy(h);
	/* A LogAppendTime is kept too: it becomes the target's CreateTime. */
	ts = rd_kafka_message_timestamp(rm, &tst);
	if (tst == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE || ts < 0)
		ts = 0;		/* librdkafka's "now" */
	for (tries = 0; ; tries++) {
		e = rd_kafka_producev(tgt,
		    RD_KAFKA_V_TOPIC(mp->topic->name),
		    RD_KAFKA_V_PARTITION(mp->partition),
		    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
		    RD_KAFKA_V_KEY(rm->key, rm->key_len),
		    RD_KAFKA_V_VALUE(rm->payload, rm->len),
		    RD_KAFKA_V_TIMESTAMP(ts),
		    RD_KAFKA_V_HEADERS(hc),
		    RD_KAFKA_V_OPAQUE(mm),
		    RD_KAFKA_V_END);
		if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL || stop)
			break;
		/* Backpressure: the target is slower than the source. */
		rd_kafka_poll(tgt, 100);
	}
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		if (hc != NULL)
			rd_kafka_headers_destroy(hc);
		free(mm);
		if (stop && e == RD_KAFKA_RESP_ERR__QUEUE_FULL)
			return -1;
		mirror_warn("target %s [%d]: produce: %s", mp->topic->name,
		    (int)mp->partition, rd_kafka_err2str(e));
		m->failed = 1;
		return -1;
	}
	mp->inflight++;
	mp->produced_next = rm->offset + 1;
	return 0;
}

/* Copy until stopped (or, with --once, until the ends at start); 0 or -1. */
static int
mirror_run(struct mirror *m, rd_kafka_t *src, rd_kafka_t *tgt)
{
	rd_kafka_message_t *rm;
	int64_t now, last_commit, last_check = 0;
	int tty = isatty(2) && !m->quiet;

	m->progress_ms = last_commit = mirror_now_ms();
	while (!stop) {
		rd_kafka_poll(tgt, 0);
		if ((rm = rd_kafka_consumer_poll(src, 100)) != NULL) {
			if (rm->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
				if (record_copy(m, tgt, rm) == -1)
					stop = 1;
			} else if (rm->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
				mirror_warn("source: %s",
				    rd_kafka_message_errstr(rm));
				if (rm->err == RD_KAFKA_RESP_ERR__FATAL ||
				    rm->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
					m->failed = 1;
					stop = 1;
				}
			}
			rd_kafka_message_destroy(rm);
		}
		now = mirror_now_ms();
		if (now - last_commit >= m->commit_ms) {
			positions_commit(m, src, 1);
			last_commit = now;
		}
		if (tty && now - m->progress_ms >= PROGRESS_MS)
			progress_draw(m, src, now);
		if (m->once && now - last_check >= 50) {
			last_check = now;
			if (once_done(m, src))
				return m->failed ? -1 : 0;
		}
	}
	if (m->once && !m->failed) {
		mirror_warn("stopped before the end offsets at start");
		return -1;
	}
	return m->failed ? -1 : 0;
}

/* Stop: every produced record acknowledged or failed, then commit. */
static int
mirror_finish(struct mirror *m, rd_kafka_t *src, rd_kafka_t *tgt)
{
	rd_kafka_resp_err_t e;
	int rc = 0;

	if ((e = rd_kafka_flush(tgt, m->timeout_ms * 3)) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR) {
		mirror_warn("target %s: %d records not acknowledged in time: %s",
		    m->target, rd_kafka_outq_len(tgt), rd_kafka_err2str(e));
		rc = -1;
	}
	rd_kafka_poll(tgt, 0);
	if (positions_commit(m, src, 0) == -1)
		rc = -1;
	if (m->progress_shown)
		fputs("\r\033[K", stderr);
	m->progress_shown = 0;
	return m->failed ? -1 : rc;
}

static int
prop_add(struct mirror *m, const char *arg)
{
	struct mirror_prop *p;
	const char *eq = strchr(arg, '=');

	if (eq == NULL || eq == arg) {
		mirror_warn("-X %s: expected key=value", arg);
		return -1;
	}
	if ((p = reallocarray(m->props, m->nprops + 1, sizeof(*p))) == NULL)
		return -1;
	m->props = p;
	p = &m->props[m->nprops++];
	if ((p->key = strndup(arg, (size_t)(eq - arg))) == NULL ||
	    (p->value = strdup(eq + 1)) == NULL)
		return -1;
	return 0;
}

static void
mirror_free(struct mirror *m)
{
	size_t i;

	for (i = 0; i < m->nparts; i++)
		free(m->parts[i].runs);
	free(m->parts);
	for (i = 0; i < m->ntopics; i++)
		free(m->topics[i].name);
	free(m->topics);
	if (m->regex)
		for (i = 0; i < m->npatterns; i++)
			regfree(&m->res[i]);
	free(m->res);
	for (i = 0; i < m->nprops; i++) {
		free(m->props[i].key);
		free(m->props[i].value);
	}
	free(m->props);
}

#define OPT_ONCE	0x200
#define OPT_GROUPS	0x201

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "target", required_argument, NULL, 'd' },
		{ "regex", no_argument, NULL, 'r' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "group", required_argument, NULL, 'g' },
		{ "groups", required_argument, NULL, OPT_GROUPS },
		{ "timeout", required_argument, NULL, 't' },
		{ "commit-interval", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct mirror m;
	struct sigaction sa;
	rd_kafka_t *src = NULL, *tgt = NULL;
	const rd_kafka_metadata_t *md;
	char *end;
	long l;
	size_t i;
	int ch, rc = 1;

	memset(&m, 0, sizeof(m));
	m.group = "flume-mirror";
	m.timeout_ms = 10000;
	m.commit_ms = 500;
	while ((ch = getopt_long(argc, argv, "s:d:rg:t:c:X:qvhV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 's':
			m.source = optarg;
			break;
		case 'd':
			m.target = optarg;
			break;
		case 'r':
			m.regex = 1;
			break;
		case OPT_ONCE:
			m.once = 1;
			break;
		case 'g':
			m.group = optarg;
			break;
		case OPT_GROUPS:
			m.groups = optarg;
			break;
		case 't':
			errno = 0;
			l = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || l < 100 || l > 3600000) {
				fprintf(stderr, "flume-mirror: -t %s: expected "
				    "milliseconds from 100 to 3600000\n", optarg);
				return 2;
			}
			m.timeout_ms = (int)l;
			break;
		case 'c':
			errno = 0;
			l = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || l < 10 || l > 3600000) {
				fprintf(stderr, "flume-mirror: -c %s: expected "
				    "milliseconds from 10 to 3600000\n", optarg);
				return 2;
			}
			m.commit_ms = (int)l;
			break;
		case 'X':
			if (prop_add(&m, optarg) == -1)
				return 2;
			break;
		case 'q':
			m.quiet = 1;
			break;
		case 'v':
			m.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("flume-mirror %s\n", FLUME_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (m.verbose)
		fprintf(stderr, "flume-mirror %s, librdkafka %s\n",
		    FLUME_VERSION, rd_kafka_version_str());
	if (m.source == NULL || m.target == NULL || optind == argc ||
	    *m.group == '\0') {
		fprintf(stderr, "flume-mirror: a source (-s), a target (-d) and "
		    "at least one topic are required\n");
		usage(stderr);
		return 2;
	}
	m.patterns = (const char **)&argv[optind];
	m.npatterns = (size_t)(argc - optind);
	if (m.regex) {
		if ((m.res = calloc(m.npatterns, sizeof(*m.res))) == NULL)
			return 1;
		for (i = 0; i < m.npatterns; i++)
			if (regcomp(&m.res[i], m.patterns[i],
			    REG_EXTENDED | REG_NOSUB) != 0) {
				fprintf(stderr, "flume-mirror: -r %s: not a "
				    "regular expression\n", m.patterns[i]);
				m.npatterns = i;
				mirror_free(&m);
				return 2;
			}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if ((src = mirror_client(&m, "source", RD_KAFKA_CONSUMER, m.group)) == NULL ||
	    (tgt = mirror_client(&m, "target", RD_KAFKA_PRODUCER, NULL)) == NULL)
		goto out;
	if ((md = metadata_get(&m, src, "source")) == NULL)
		goto out;
	if (topics_select(&m, md) == -1) {
		rd_kafka_metadata_destroy(md);
		goto out;
	}
	rd_kafka_metadata_destroy(md);
	if (topics_prepare(&m, tgt) == -1 || parts_prepare(&m, src, tgt) == -1)
		goto out;
	rc = mirror_run(&m, src, tgt) == -1 ? 1 : 0;
	if (mirror_finish(&m, src, tgt) == -1)
		rc = 1;
	if (rc == 0 && m.groups != NULL && mirror_translate_groups(&m) == -1)
		rc = 1;
	if (rc == 0)
		mirror_note(&m, "%llu records copied%s",
		    (unsigned long long)m.delivered,
		    m.once ? ", up to the end offsets at start" : "");
out:
	if (src != NULL) {
		rd_kafka_consumer_close(src);
		rd_kafka_destroy(src);
	}
	if (tgt != NULL)
		rd_kafka_destroy(tgt);
	mirror_free(&m);
	return rc;
}
