/*
 * flume-mirror's offset map and --groups.
 *
 * The map is this run's delivery reports, kept as runs of consecutive
 * offsets, so a whole copy onto an empty target is one entry per
 * partition.  A group's committed source offset o means "the next record
 * to read is the first with offset >= o"; its translation is the target
 * offset of the first mirrored record with source offset >= o, and once
 * the mirror is caught up, the target's end.  Offsets mirrored by an
 * earlier run (before a restart) are not in the map: they are translated
 * only where source and target offsets are equal, which the mirror checks
 * by reading both records and comparing key, value, headers and timestamp.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "clients/tools/mirror.h"

void
mirror_map_add(struct mirror_part *mp, int64_t src, int64_t tgt)
{
	struct mirror_run *r;
	size_t cap;

	mp->acked_next = src + 1;
	if (tgt < 0)
		return;		/* a target that does not say where */
	mp->tgt_next = tgt + 1;
	if (mp->nruns > 0) {
		r = &mp->runs[mp->nruns - 1];
		if (r->src + r->n == src && r->tgt + r->n == tgt) {
			r->n++;
			return;
		}
	}
	if (mp->nruns == mp->runs_cap) {
		cap = mp->runs_cap ? mp->runs_cap * 2 : 4;
		if ((r = reallocarray(mp->runs, cap, sizeof(*r))) == NULL)
			return;	/* the lookup then says it cannot know */
		mp->runs = r;
		mp->runs_cap = cap;
	}
	r = &mp->runs[mp->nruns++];
	r->src = src;
	r->tgt = tgt;
	r->n = 1;
}

/* The first record of topic/partition at offset >= o through rk; NULL if none in time. */
static rd_kafka_message_t *
fetch_one(struct mirror *m, rd_kafka_t *rk, struct mirror_part *mp, int64_t o)
{
	rd_kafka_topic_partition_list_t *l;
	rd_kafka_message_t *rm = NULL;
	int64_t deadline = mirror_now_ms() + m->timeout_ms;

	l = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(l, mp->topic->name,
	    mp->partition)->offset = o;
	if (rd_kafka_assign(rk, l) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		rd_kafka_topic_partition_list_destroy(l);
		return NULL;
	}
	rd_kafka_topic_partition_list_destroy(l);
	while (mirror_now_ms() < deadline) {
		if ((rm = rd_kafka_consumer_poll(rk, 100)) == NULL)
			continue;
		if (rm->err == RD_KAFKA_RESP_ERR_NO_ERROR)
			break;
		rd_kafka_message_destroy(rm);
		rm = NULL;
	}
	rd_kafka_assign(rk, NULL);
	return rm;
}

static int
bytes_equal(const void *a, size_t alen, const void *b, size_t blen)
{
	if ((a == NULL) != (b == NULL) || alen != blen)
		return 0;
	return alen == 0 || memcmp(a, b, alen) == 0;
}

/* Key, value, headers and timestamp all equal. */
static int
record_equal(const rd_kafka_message_t *a, const rd_kafka_message_t *b)
{
	rd_kafka_headers_t *ha = NULL, *hb = NULL;
	rd_kafka_timestamp_type_t ta, tb;
	const char *na, *nb;
	const void *va, *vb;
	size_t la, lb, i, n;

	if (!bytes_equal(a->key, a->key_len, b->key, b->key_len) ||
	    !bytes_equal(a->payload, a->len, b->payload, b->len) ||
	    rd_kafka_message_timestamp(a, &ta) !=
	    rd_kafka_message_timestamp(b, &tb))
		return 0;
	rd_kafka_message_headers(a, &ha);
	rd_kafka_message_headers(b, &hb);
	n = ha != NULL ? rd_kafka_header_cnt(ha) : 0;
	if (n != (hb != NULL ? rd_kafka_header_cnt(hb) : 0))
		return 0;
	for (i = 0; i < n; i++) {
		if (rd_kafka_header_get_all(ha, i, &na, &va, &la) !=
		    RD_KAFKA_RESP_ERR_NO_ERROR ||
		    rd_kafka_header_get_all(hb, i, &nb, &vb, &lb) !=
		    RD_KAFKA_RESP_ERR_NO_ERROR ||
		    strcmp(na, nb) != 0 || !bytes_equal(va, la, vb, lb))
			return 0;
	}
	return 1;
}

int
mirror_map_lookup(struct mirror *m, struct mirror_part *mp, int64_t o,
    rd_kafka_t *gsrc, rd_kafka_t *gtgt, int64_t *tgt, int *same)
{
	rd_kafka_message_t *a, *b;
	const struct mirror_run *r;
	size_t i;
	int ok;

	if (mp->nruns > 0 && o >= mp->runs[0].src && o < mp->acked_next) {
		for (i = 0; i < mp->nruns; i++) {
			r = &mp->runs[i];
			if (o < r->src + r->n) {
				*tgt = o >= r->src ? r->tgt + (o - r->src) :
				    r->tgt;
				*same = *tgt == o;
				return 1;
			}
		}
	}
	if (o == mp->acked_next && mp->inflight == 0) {
		/* Caught up to o: what comes next goes to the target's end. */
		*tgt = mp->tgt_next;
		*same = *tgt == o;
		return 1;
	}
	if (o > mp->acked_next)
		return 0;	/* not mirrored yet */
	/* Mirrored before this run: only equal offsets can be known. */
	if ((a = fetch_one(m, gsrc, mp, o)) == NULL)
		return 0;
	if ((b = fetch_one(m, gtgt, mp, a->offset)) == NULL) {
		rd_kafka_message_destroy(a);
		return 0;
	}
	ok = a->offset == b->offset && record_equal(a, b);
	if (ok) {
		*tgt = a->offset;
		*same = 1;
	}
	rd_kafka_message_destroy(a);
	rd_kafka_message_destroy(b);
	return ok;
}

/* Translate and commit one group; 0 or -1. */
static int
group_translate(struct mirror *m, const char *group)
{
	rd_kafka_topic_partition_list_t *l, *out;
	rd_kafka_t *gsrc, *gtgt = NULL;
	rd_kafka_resp_err_t e;
	int64_t t;
	size_t i;
	int rc = 0, same, r;

	if ((gsrc = mirror_client(m, "source", RD_KAFKA_CONSUMER, group)) == NULL ||
	    (gtgt = mirror_client(m, "target", RD_KAFKA_CONSUMER, group)) == NULL) {
		if (gsrc != NULL)
			rd_kafka_destroy(gsrc);
		return -1;
	}
	l = rd_kafka_topic_partition_list_new((int)m->nparts);
	out = rd_kafka_topic_partition_list_new((int)m->nparts);
	for (i = 0; i < m->nparts; i++)
		rd_kafka_topic_partition_list_add(l, m->parts[i].topic->name,
		    m->parts[i].partition);
	if ((e = rd_kafka_committed(gsrc, l, m->timeout_ms)) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR) {
		mirror_warn("source %s: group %s: committed offsets: %s",
		    m->source, group, rd_kafka_err2str(e));
		rc = -1;
		goto done;
	}
	for (i = 0; i < m->nparts; i++) {
		struct mirror_part *mp = &m->parts[i];
		int64_t o = l->elems[i].offset;

		if (l->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR || o < 0)
			continue;	/* nothing committed there */
		if ((r = mirror_map_lookup(m, mp, o, gsrc, gtgt, &t, &same)) != 1) {
			mirror_warn("group %s: %s [%d]: source offset %lld: "
			    "cannot translate (%s)", group, mp->topic->name,
			    (int)mp->partition, (long long)o, o > mp->acked_next ?
			    "not mirrored yet" : "mirrored before this run "
			    "and the target's offsets differ");
			rc = -1;
			continue;
		}
		rd_kafka_topic_partition_list_add(out, mp->topic->name,
		    mp->partition)->offset = t;
		printf("%s %s %d %lld -> %lld%s\n", group, mp->topic->name,
		    (int)mp->partition, (long long)o, (long long)t,
		    same ? " (same offset: source and target offsets are equal)" :
		    "");
	}
	if (out->cnt == 0)
		goto done;
	if ((e = rd_kafka_commit(gtgt, out, 0)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		mirror_warn("target %s: group %s: commit: %s", m->target, group,
		    rd_kafka_err2str(e));
		rc = -1;
		goto done;
	}
	for (i = 0; i < (size_t)out->cnt; i++)
		if (out->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
			mirror_warn("target %s: group %s: %s [%d]: commit: %s",
			    m->target, group, out->elems[i].topic,
			    (int)out->elems[i].partition,
			    rd_kafka_err2str(out->elems[i].err));
			rc = -1;
		}
done:
	fflush(stdout);
	rd_kafka_topic_partition_list_destroy(l);
	rd_kafka_topic_partition_list_destroy(out);
	rd_kafka_consumer_close(gsrc);
	rd_kafka_destroy(gsrc);
	rd_kafka_consumer_close(gtgt);
	rd_kafka_destroy(gtgt);
	return rc;
}

/* Add name to the list unless it is there (a name and a regex may both say it). */
static int
name_add(char ***names, size_t *n, const char *name)
{
	char **v;
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return 0;
	if ((v = reallocarray(*names, *n + 1, sizeof(*v))) == NULL)
		return -1;
	*names = v;
	if ((v[*n] = strdup(name)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

/* Groups on the source whose names match re (not the mirror's own); -1 on error. */
static int
groups_match(struct mirror *m, const char *re_src, char ***names, size_t *n)
{
	const struct rd_kafka_group_list *gl;
	rd_kafka_resp_err_t e;
	rd_kafka_t *rk;
	regex_t re;
	int i, rc = 0;

	if (regcomp(&re, re_src, REG_EXTENDED | REG_NOSUB) != 0) {
		mirror_warn("--groups %s: not a regular expression", re_src);
		return -1;
	}
	if ((rk = mirror_client(m, "source", RD_KAFKA_CONSUMER, m->group)) == NULL) {
		regfree(&re);
		return -1;
	}
	if ((e = rd_kafka_list_groups(rk, NULL, &gl, m->timeout_ms)) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR) {
		mirror_warn("source %s: list groups: %s", m->source,
		    rd_kafka_err2str(e));
		rc = -1;
	} else {
		for (i = 0; i < gl->group_cnt && rc == 0; i++) {
			const char *g = gl->groups[i].group;

			if (strcmp(g, m->group) == 0 ||
			    regexec(&re, g, 0, NULL, 0) != 0)
				continue;
			if (name_add(names, n, g) == -1)
				rc = -1;
		}
		rd_kafka_group_list_destroy(gl);
	}
	rd_kafka_destroy(rk);
	regfree(&re);
	return rc;
}

int
mirror_translate_groups(struct mirror *m)
{
	char *list, *item, *save = NULL, **names = NULL;
	size_t i, n = 0;
	int rc = 0;

	if ((list = strdup(m->groups)) == NULL)
		return -1;
	for (item = strtok_r(list, ",", &save); item != NULL;
	    item = strtok_r(NULL, ",", &save)) {
		if (*item == '^') {
			if (groups_match(m, item, &names, &n) == -1)
				rc = -1;
			continue;
		}
		if (name_add(&names, &n, item) == -1) {
			rc = -1;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		if (group_translate(m, names[i]) == -1)
			rc = -1;
		free(names[i]);
	}
	free(names);
	free(list);
	return rc;
}
