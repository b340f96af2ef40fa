/*
 * The web console (see master/console.h and flume-console(7)).
 *
 * Everything here runs in the metrics child.  The HTTP thread answers;
 * the main thread takes the samples and reloads the auth table.  The two
 * share the ring and the table under one mutex, held only to copy.
 *
 * What the console reads and how:
 *  - figures (offsets, counters, lags): common/stats.h's snapshot, the
 *    same lock-free loads /metrics renders;
 *  - groups (state, members, assignments): the shm_group entries read
 *    without their lock: a member list is copied field by field with
 *    every length bounded, so a group changing under the read gives at
 *    worst a mixed picture for one answer, never a bad read.  Taking the
 *    lock is not done: group_lock() repairs a dead owner's group, which
 *    is the workers' business;
 *  - records: the partition's files through plog_reader (store/plog.h),
 *    never past visible_offset, at most CONSOLE_READ_MAX bytes a request,
 *    compressed batches inflated to at most CONSOLE_INFLATE_MAX.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "common/authfile.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/stats.h"
#include "master/console.h"
#include "master/console_admin.h"
#include "master/metrics.h"
#include "proto/batch.h"
#include "proto/compress.h"
#include "proto/role.h"
#include "proto/version.h"
#include "proto/tconf.h"
#include "shm/group.h"
#include "shm/tconf.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "store/plog.h"
#include "store/topic.h"

#define CONSOLE_ARENA_LIMIT	(64u << 20)

struct sample {
	int64_t		t_ms;		/* CLOCK_REALTIME */
	int64_t		msgs_in, bytes_in, msgs_out, bytes_out;	/* totals */
	int64_t		lag[CONSOLE_GROUPS];	/* by group index; -1: none */
};

struct console {
	struct broker	*b;
	pthread_mutex_t	 mu;		/* the ring, rates and auth table */
	struct sample	*ring;
	uint32_t	 head, count;	/* ring[(head - 1)] is the newest */
	int64_t		 next_due;	/* CLOCK_MONOTONIC ms */
	/* Per partition slot: msgs_in at the last sample, and the rate. */
	int64_t		*prev_in;
	double		*rate;
	uint32_t	 nslots;
	int64_t		 prev_t_ms;
};

/* ---- JSON ---- */

/* A string literal, without its NUL. */
#define JRAW(wb, lit)	wbuf_raw((wb), (lit), sizeof(lit) - 1)

/* A JSON string of s[0..len): quotes, backslashes and controls escaped. */
static void
jstr(struct wbuf *wb, const char *s, size_t len)
{
	size_t i;

	JRAW(wb, "\"");
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\') {
			JRAW(wb, "\\");
			wbuf_raw(wb, &s[i], 1);
		} else if (ch < 0x20 || ch == 0x7f)
			metrics_printf(wb, "\\u%04x", ch);
		else
			wbuf_raw(wb, &s[i], 1);
	}
	JRAW(wb, "\"");
}

/* Bytes as base64 (null for -1): the pages decode them for each view. */
static void
jb64(struct wbuf *wb, const uint8_t *p, int32_t len)
{
	char *out;
	size_t n;

	if (len < 0 || p == NULL) {
		JRAW(wb, "null");
		return;
	}
	n = sodium_base64_encoded_len((size_t)len,
	    sodium_base64_VARIANT_ORIGINAL);
	if ((out = malloc(n)) == NULL) {
		wb->err = 1;
		return;
	}
	sodium_bin2base64(out, n, p, (size_t)len,
	    sodium_base64_VARIANT_ORIGINAL);
	JRAW(wb, "\"");
	wbuf_raw(wb, out, strlen(out));
	JRAW(wb, "\"");
	free(out);
}

/* "," before every element of a list but the first (*n counts them). */
static void
jsep(struct wbuf *wb, int64_t *n)
{
	if ((*n)++ > 0)
		JRAW(wb, ",");
}

static enum MHD_Result
reply(struct MHD_Connection *conn, unsigned int status, const char *type,
    const void *body, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result rc;

	resp = MHD_create_response_from_buffer(len, (void *)(uintptr_t)body,
	    MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	rc = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

static enum MHD_Result jerror(struct MHD_Connection *conn, unsigned int status,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* {"error": "..."} with status: what was wrong, named. */
static enum MHD_Result
jerror(struct MHD_Connection *conn, unsigned int status, const char *fmt, ...)
{
	char msg[400];
	struct wbuf wb;
	enum MHD_Result rc;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	wbuf_init(&wb);
	JRAW(&wb, "{\"error\":");
	jstr(&wb, msg, strlen(msg));
	JRAW(&wb, "}\n");
	rc = wb.err ? MHD_NO : reply(conn, status, "application/json",
	    wb.buf, wb.len);
	wbuf_free(&wb);
	return rc;
}

static enum MHD_Result
jreply(struct MHD_Connection *conn, struct wbuf *wb)
{
	enum MHD_Result rc;

	if (wb->err) {
		wbuf_free(wb);
		log_warnx("console: out of memory rendering");
		return MHD_NO;
	}
	JRAW(wb, "\n");
	rc = reply(conn, MHD_HTTP_OK, "application/json", wb->buf, wb->len);
	wbuf_free(wb);
	return rc;
}

/* ---- query arguments ---- */

/*
 * The integer argument name in [min, max] into *v (def when absent).
 * 0, or -1 with a message in err naming the argument.
 */
static int
arg_int(struct MHD_Connection *conn, const char *name, int64_t min,
    int64_t max, int64_t def, int64_t *v, char *err, size_t errlen)
{
	const char *s = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND,
	    name);
	char *end;
	long long n;

	if (s == NULL || *s == '\0') {
		*v = def;
		return 0;
	}
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s) {
		snprintf(err, errlen, "%s: not a number: %.40s", name, s);
		return -1;
	}
	if (n < min || n > max) {
		snprintf(err, errlen, "%s: %lld is out of range [%lld, %lld]",
		    name, n, (long long)min, (long long)max);
		return -1;
	}
	*v = n;
	return 0;
}

/* The topic named by argument name: its index, or -1 with err. */
static int
arg_topic(struct console *c, struct MHD_Connection *conn, const char *name,
    const char **tname, char *err, size_t errlen)
{
	const char *s = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND,
	    name);
	int ti;

	if (s == NULL || *s == '\0') {
		snprintf(err, errlen, "%s: missing", name);
		return -1;
	}
	if (strlen(s) > TOPIC_NAME_MAX ||
	    (ti = shm_topic_find(&c->b->shm, s, strlen(s))) < 0 ||
	    atomic_load_explicit(&c->b->shm.topics[ti].state,
	    memory_order_acquire) != TOPIC_READY) {
		snprintf(err, errlen, "unknown topic: %.*s", TOPIC_NAME_MAX, s);
		return -1;
	}
	*tname = s;
	return ti;
}

/* ---- samples ---- */

struct console *
console_new(struct broker *b)
{
	struct console *c;
	uint32_t n = b->shm.hdr->limits.max_partitions;

	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->ring = calloc(CONSOLE_SAMPLES, sizeof(*c->ring))) == NULL ||
	    (c->prev_in = calloc(n ? n : 1, sizeof(*c->prev_in))) == NULL ||
	    (c->rate = calloc(n ? n : 1, sizeof(*c->rate))) == NULL)
		return NULL;
	c->b = b;
	c->nslots = n;
	pthread_mutex_init(&c->mu, NULL);
	return c;
}

static int64_t
u2i(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* A snapshot of the figures into st (arena a); -1 when memory ran out. */
static int
snapshot(struct console *c, struct arena *a, struct stats_resp *st)
{
	arena_init(a, CONSOLE_ARENA_LIMIT);
	if (stats_collect(&c->b->shm, a, st) == -1) {
		arena_free(a);
		return -1;
	}
	return 0;
}

void
console_tick(struct console *c, int64_t now)
{
	struct shm *s = &c->b->shm;
	struct sample sm;
	struct stats_resp st;
	struct arena a;
	struct shm_group *g;
	uint32_t i, np;
	int64_t in;
	int32_t k;

	if (now < c->next_due)
		return;
	c->next_due = now + CONSOLE_SAMPLE_MS;
	memset(&sm, 0, sizeof(sm));
	sm.t_ms = clock_real_ms();
	if (snapshot(c, &a, &st) == -1)
		return;
	for (k = 0; k < st.nparts; k++) {
		sm.msgs_in += st.parts[k].msgs_in;
		sm.bytes_in += st.parts[k].bytes_in;
		sm.msgs_out += st.parts[k].msgs_out;
		sm.bytes_out += st.parts[k].bytes_out;
	}
	for (i = 0; i < CONSOLE_GROUPS; i++)
		sm.lag[i] = -1;
	for (i = 0; i < CONSOLE_GROUPS && i < group_count(s); i++) {
		if ((g = group_at(s, i)) == NULL || atomic_load_explicit(&g->used,
		    memory_order_acquire) != GROUP_SLOT_USED)
			continue;
		for (k = 0; k < st.nlags; k++)
			if (st.lags[k].group_len == g->name_len &&
			    memcmp(st.lags[k].group, g->name, g->name_len) == 0)
				sm.lag[i] = (sm.lag[i] < 0 ? 0 : sm.lag[i]) +
				    st.lags[k].lag;
	}
	arena_free(&a);

	np = atomic_load_explicit(&s->hdr->parts_used, memory_order_acquire);
	if (np > c->nslots)
		np = c->nslots;
	pthread_mutex_lock(&c->mu);
	c->ring[c->head] = sm;
	c->head = (c->head + 1) % CONSOLE_SAMPLES;
	if (c->count < CONSOLE_SAMPLES)
		c->count++;
	for (i = 0; i < np; i++) {
		in = u2i(atomic_load(&s->parts[i].msgs_in));
		c->rate[i] = c->prev_t_ms > 0 && sm.t_ms > c->prev_t_ms &&
		    in >= c->prev_in[i] ? (double)(in - c->prev_in[i]) * 1000.0 /
		    (double)(sm.t_ms - c->prev_t_ms) : 0.0;
		c->prev_in[i] = in;
	}
	c->prev_t_ms = sm.t_ms;
	pthread_mutex_unlock(&c->mu);
}

void
console_reload(struct console *c)
{
	struct auth_table t;
	uint32_t gen;
	char err[256];
	int rc;

	if (!auth_enabled())
		return;
	rc = auth_table_take(&c->b->shm, &t, &gen, err, sizeof(err));
	if (rc == -1)
		log_warnx("console: the new auth table: %s", err);
	if (rc != 1)
		return;
	pthread_mutex_lock(&c->mu);
	auth_table_install(&t, gen);
	pthread_mutex_unlock(&c->mu);
}

static double
part_rate(struct console *c, const struct shm_partition *sp)
{
	size_t slot = (size_t)(sp - c->b->shm.parts);
	double r;

	if (slot >= c->nslots)
		return 0;
	pthread_mutex_lock(&c->mu);
	r = c->rate[slot];
	pthread_mutex_unlock(&c->mu);
	return r;
}

/* ---- authentication ---- */

/*
 * Who asks, from HTTP Basic credentials checked against the auth table:
 * 1 when they match a user with the admin permission on every topic; 0
 * when absent, wrong or not admin.  *known says they matched a user,
 * whose name is then in name and, when secret is not NULL, whose secret
 * is in secret[0..*slen) (AUTH_SECRET_MAX bytes; the caller wipes it).
 * Without an auth_file nobody is admin.
 */
static int
console_admin(struct console *c, struct MHD_Connection *conn, char *name,
    size_t namelen, uint8_t *secret, size_t *slen, int *known)
{
	const struct auth_user *u;
	char *user, *pass = NULL;
	int ok = 0;

	name[0] = '\0';
	*known = 0;
	if ((user = MHD_basic_auth_get_username_password(conn, &pass)) == NULL)
		return 0;
	if (auth_enabled() && pass != NULL) {
		pthread_mutex_lock(&c->mu);
		u = auth_find_in(auth_table_current(), user, strlen(user));
		if (u != NULL && u->secret_len == strlen(pass) &&
		    sodium_memcmp(u->secret, pass, u->secret_len) == 0) {
			*known = 1;
			snprintf(name, namelen, "%s", user);
			ok = auth_user_has(u, AUTH_ADMIN, 1);
			if (secret != NULL && u->secret_len <= AUTH_SECRET_MAX) {
				memcpy(secret, u->secret, u->secret_len);
				*slen = u->secret_len;
			}
		}
		pthread_mutex_unlock(&c->mu);
	}
	if (pass != NULL) {
		sodium_memzero(pass, strlen(pass));
		MHD_free(pass);
	}
	MHD_free(user);
	return ok;
}

/* ---- /api/overview ---- */

/* The master's start, from /proc (CLOCK_REALTIME ms), or -1. */
static int64_t
master_started_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	double up;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return -1;
	/* Field 22 (starttime); p is at the end of field 2. */
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &start) != 1)
		return -1;
	if ((f = fopen("/proc/uptime", "r")) == NULL)
		return -1;
	i = fscanf(f, "%lf", &up);
	fclose(f);
	if (i != 1)
		return -1;
	return clock_real_ms() - (int64_t)(up * 1000.0) +
	    (int64_t)(start * 1000ull / (unsigned long long)sysconf(_SC_CLK_TCK));
}

static enum MHD_Result
api_overview(struct console *c, struct MHD_Connection *conn)
{
	struct shm *s = &c->b->shm;
	struct stats_resp st;
	struct arena a;
	struct wbuf wb;
	int64_t started, bytes = 0, conns = 0;
	uint32_t i, n, ntopics = 0, ngroups = 0, ninternal = 0;
	int32_t nparts = 0;
	struct shm_group *g;
	struct sample *sm;
	int32_t k;

	if (snapshot(c, &a, &st) == -1)
		return jerror(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "out of memory");
	wbuf_init(&wb);
	started = master_started_ms(s->hdr->master_pid);
	metrics_printf(&wb, "{\"version\":\"%s\",\"now_ms\":%" PRId64
	    ",\"started_ms\":%" PRId64 ",\"uptime_s\":%" PRId64
	    ",\"processes\":[", FLUME_VERSION, clock_real_ms(), started,
	    started < 0 ? -1 : (clock_real_ms() - started) / 1000);
	for (k = 0; k < st.nchildren; k++) {
		const struct stats_child *ch = &st.children[k];

		if (ch->role == ROLE_WORKER)
			conns += ch->connections;
		metrics_printf(&wb, "%s{\"role\":\"%s\",\"slot\":%d,\"pid\":%d,"
		    "\"restarts\":%d,\"connections\":%" PRId64 ",\"requests\":%"
		    PRId64 "}", k ? "," : "", role_name(ch->role), (int)ch->slot,
		    (int)ch->pid, (int)ch->restarts,
		    ch->role == ROLE_WORKER ? ch->connections : 0, ch->requests);
	}
	/* The broker's own topics (__consumer_offsets) are counted apart. */
	for (k = 0; k < st.nparts; k++) {
		bytes += st.parts[k].log_bytes;
		if (topic_name_reserved(st.parts[k].topic,
		    st.parts[k].topic_len)) {
			ninternal += st.parts[k].partition == 0;
			continue;
		}
		nparts++;
		if (st.parts[k].partition == 0)
			ntopics++;
	}
	n = group_count(s);
	for (i = 0; i < n; i++)
		if ((g = group_at(s, i)) != NULL && atomic_load_explicit(&g->used,
		    memory_order_acquire) == GROUP_SLOT_USED)
			ngroups++;
	metrics_printf(&wb, "],\"connections\":%" PRId64, conns);
	JRAW(&wb, ",\"listeners\":{");
	metrics_printf(&wb, "\"native\":\"%s\",\"native_tls\":\"%s\",\"kafka\":\"%s\","
	    "\"kafka_tls\":\"%s\",\"metrics\":\"%s\"}",
	    c->b->conf->listen, c->b->conf->listen_tls, c->b->conf->kafka_listen,
	    c->b->conf->kafka_listen_tls, c->b->conf->metrics_listen);
	JRAW(&wb, ",\"data_dir\":");
	jstr(&wb, c->b->conf->data_dir, strlen(c->b->conf->data_dir));
	metrics_printf(&wb, ",\"disk_bytes\":%" PRId64 ",\"topics\":%u,\"partitions\":%d,"
	    "\"internal_topics\":%u,\"groups\":%u,\"sample_ms\":%d,"
	    "\"samples\":[", bytes, ntopics, (int)nparts, ninternal, ngroups,
	    CONSOLE_SAMPLE_MS);
	arena_free(&a);
	/* Rates between neighbouring samples, oldest first. */
	pthread_mutex_lock(&c->mu);
	for (i = 1; i < c->count; i++) {
		struct sample *p0 = &c->ring[(c->head + CONSOLE_SAMPLES -
		    c->count + i - 1) % CONSOLE_SAMPLES];
		double dt;

		sm = &c->ring[(c->head + CONSOLE_SAMPLES - c->count + i) %
		    CONSOLE_SAMPLES];
		dt = (double)(sm->t_ms - p0->t_ms) / 1000.0;
		if (dt <= 0)
			continue;
		metrics_printf(&wb, "%s{\"t_ms\":%" PRId64 ",\"msgs_in\":%.1f,"
		    "\"bytes_in\":%.1f,\"msgs_out\":%.1f,\"bytes_out\":%.1f}",
		    i > 1 ? "," : "", sm->t_ms,
		    (double)(sm->msgs_in - p0->msgs_in) / dt,
		    (double)(sm->bytes_in - p0->bytes_in) / dt,
		    (double)(sm->msgs_out - p0->msgs_out) / dt,
		    (double)(sm->bytes_out - p0->bytes_out) / dt);
	}
	pthread_mutex_unlock(&c->mu);
	JRAW(&wb, "]}");
	return jreply(conn, &wb);
}

/* ---- /api/topics, /api/topic ---- */

static enum MHD_Result
api_topics(struct console *c, struct MHD_Connection *conn)
{
	struct shm *s = &c->b->shm;
	const struct shm_topic *t;
	struct shm_partition *sp;
	int64_t start, limit, msgs, bytes, n = 0, total = 0, internal;
	double rate;
	uint32_t ti, nt;
	int32_t pi;
	char err[200];
	struct wbuf wb;
	int own;

	if (arg_int(conn, "start", 0, INT32_MAX, 0, &start, err,
	    sizeof(err)) == -1 || arg_int(conn, "limit", 1, CONSOLE_PAGE_MAX,
	    CONSOLE_PAGE_DEFAULT, &limit, err, sizeof(err)) == -1 ||
	    arg_int(conn, "internal", 0, 1, 0, &internal, err,
	    sizeof(err)) == -1)
		return jerror(conn, MHD_HTTP_BAD_REQUEST, "%s", err);
	nt = atomic_load_explicit(&s->hdr->topic_count, memory_order_acquire);
	if (nt > s->hdr->limits.max_topics)
		nt = s->hdr->limits.max_topics;
	wbuf_init(&wb);
	JRAW(&wb, "{\"topics\":[");
	for (ti = 0; ti < nt; ti++) {
		t = &s->topics[ti];
		if (atomic_load_explicit(&t->state, memory_order_acquire) !=
		    TOPIC_READY || t->name_len == 0 ||
		    t->name_len > TOPIC_NAME_MAX)
			continue;
		/* The broker's own topics only when asked (internal=1). */
		own = topic_name_reserved(t->name, t->name_len);
		if ((own && !internal) || total++ < start || n >= limit)
			continue;
		msgs = bytes = 0;
		rate = 0;
		for (pi = 0; pi < t->partitions; pi++) {
			if ((sp = shm_partition(s, (int)ti, pi)) == NULL)
				break;
			msgs += __atomic_load_n(&sp->next_offset,
			    __ATOMIC_ACQUIRE) - atomic_load_explicit(
			    &sp->log_start, memory_order_acquire);
			bytes += u2i(atomic_load(&sp->log_bytes));
			rate += part_rate(c, sp);
		}
		jsep(&wb, &n);
		JRAW(&wb, "{\"name\":");
		jstr(&wb, t->name, t->name_len);
		metrics_printf(&wb, ",\"partitions\":%d,\"messages\":%" PRId64
		    ",\"bytes\":%" PRId64 ",\"msgs_per_s\":%.1f,\"internal\":%s}",
		    (int)t->partitions, msgs, bytes, rate, own ? "true" : "false");
	}
	metrics_printf(&wb, "],\"start\":%" PRId64 ",\"total\":%" PRId64 "}", start,
	    total);
	return jreply(conn, &wb);
}

static const char *
tconf_source_name(int src)
{
	return src == TCS_DYNAMIC_TOPIC ? "topic" : src == TCS_STATIC_BROKER ?
	    "flume.conf" : "default";
}

/*
 * A topic's settings with Kafka's names and where each comes from, read
 * as the workers read them (shm/tconf.h over flume.conf).
 */
static void
topic_configs(struct console *c, struct wbuf *wb, int ti, const char *name)
{
	struct shm *s = &c->b->shm;
	struct tconf dyn, eff;
	int8_t src[TC_NKEYS];
	char val[128];
	uint32_t gen;
	int k;

	if (shm_tconf_read(s, ti, s->topics[ti].id, &dyn, &gen) == -1)
		memset(&dyn, 0, sizeof(dyn));
	config_topic_tconf(c->b->conf, name, &dyn, &eff, src);
	JRAW(wb, ",\"configs\":[");
	for (k = 0; k < TC_NKEYS; k++) {
		tconf_print((enum tconf_key)k, eff.v[k], val, sizeof(val));
		metrics_printf(wb, "%s{\"name\":\"%s\",\"value\":", k ? "," : "",
		    tconf_defs[k].name);
		jstr(wb, val, strlen(val));
		metrics_printf(wb, ",\"source\":\"%s\"}", tconf_source_name(src[k]));
	}
	JRAW(wb, "]");
}

static enum MHD_Result
api_topic(struct console *c, struct MHD_Connection *conn)
{
	struct shm *s = &c->b->shm;
	struct shm_partition *sp;
	const char *name;
	char err[400];
	struct wbuf wb;
	int ti;
	int32_t pi;

	if ((ti = arg_topic(c, conn, "name", &name, err, sizeof(err))) < 0)
		return jerror(conn, strncmp(err, "unknown", 7) == 0 ?
		    MHD_HTTP_NOT_FOUND : MHD_HTTP_BAD_REQUEST, "%s", err);
	wbuf_init(&wb);
	JRAW(&wb, "{\"name\":");
	jstr(&wb, name, strlen(name));
	metrics_printf(&wb, ",\"partitions\":[");
	for (pi = 0; pi < s->topics[ti].partitions; pi++) {
		if ((sp = shm_partition(s, ti, pi)) == NULL)
			break;
		metrics_printf(&wb, "%s{\"partition\":%d,\"log_start\":%" PRId64
		    ",\"log_end\":%" PRId64 ",\"visible\":%" PRId64
		    ",\"durable\":%" PRId64 ",\"bytes\":%" PRId64
		    ",\"segments\":%u,\"msgs_per_s\":%.1f}", pi ? "," : "",
		    (int)pi, (int64_t)atomic_load(&sp->log_start),
		    (int64_t)__atomic_load_n(&sp->next_offset, __ATOMIC_ACQUIRE),
		    (int64_t)atomic_load(&sp->visible_offset),
		    (int64_t)atomic_load(&sp->durable_offset),
		    u2i(atomic_load(&sp->log_bytes)),
		    (unsigned)atomic_load(&sp->segments), part_rate(c, sp));
	}
	JRAW(&wb, "]");
	topic_configs(c, &wb, ti, name);
	JRAW(&wb, "}");
	return jreply(conn, &wb);
}

/* ---- /api/segments ---- */

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static enum MHD_Result
api_segments(struct console *c, struct MHD_Connection *conn)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], err[400], *end;
	int64_t part, start, limit, *bases = NULL, base;
	size_t n = 0, cap = 0, i;
	const char *name;
	struct dirent *de;
	struct stat sb;
	struct wbuf wb;
	DIR *d;
	int ti;

	if ((ti = arg_topic(c, conn, "topic", &name, err, sizeof(err))) < 0)
		return jerror(conn, strncmp(err, "unknown", 7) == 0 ?
		    MHD_HTTP_NOT_FOUND : MHD_HTTP_BAD_REQUEST, "%s", err);
	if (arg_int(conn, "partition", 0, c->b->shm.topics[ti].partitions - 1,
	    0, &part, err, sizeof(err)) == -1 || arg_int(conn, "start", 0,
	    INT32_MAX, 0, &start, err, sizeof(err)) == -1 || arg_int(conn,
	    "limit", 1, CONSOLE_PAGE_MAX, CONSOLE_PAGE_DEFAULT, &limit, err,
	    sizeof(err)) == -1)
		return jerror(conn, MHD_HTTP_BAD_REQUEST, "%s", err);
	if (topic_partition_dir(dir, sizeof(dir), c->b->conf->data_dir, name,
	    (int32_t)part) == -1 || (d = opendir(dir)) == NULL)
		return jerror(conn, MHD_HTTP_NOT_FOUND, "no directory for %s-%d",
		    name, (int)part);
	while ((de = readdir(d)) != NULL) {
		if (strlen(de->d_name) != 24 ||
		    strcmp(de->d_name + 20, ".log") != 0)
			continue;
		errno = 0;
		base = strtoll(de->d_name, &end, 10);
		if (errno != 0 || end != de->d_name + 20)
			continue;
		if (n == cap) {
			int64_t *nb = reallocarray(bases, cap ? cap * 2 : 64,
			    sizeof(*nb));

			if (nb == NULL)
				break;
			bases = nb;
			cap = cap ? cap * 2 : 64;
		}
		bases[n++] = base;
	}
	closedir(d);
	qsort(bases, n, sizeof(*bases), cmp_i64);
	wbuf_init(&wb);
	JRAW(&wb, "{\"topic\":");
	jstr(&wb, name, strlen(name));
	metrics_printf(&wb, ",\"partition\":%d,\"segments\":[", (int)part);
	for (i = (size_t)start; i < n && i < (size_t)(start + limit); i++) {
		int64_t sz = -1, isz = -1, tsz = -1, mt = -1;

		snprintf(path, sizeof(path), "%s/%020" PRId64 ".log", dir, bases[i]);
		if (stat(path, &sb) == 0) {
			sz = sb.st_size;
			mt = (int64_t)sb.st_mtim.tv_sec * 1000 +
			    sb.st_mtim.tv_nsec / 1000000;
		}
		snprintf(path, sizeof(path), "%s/%020" PRId64 ".index", dir, bases[i]);
		if (stat(path, &sb) == 0)
			isz = sb.st_size;
		snprintf(path, sizeof(path), "%s/%020" PRId64 ".timeindex", dir,
		    bases[i]);
		if (stat(path, &sb) == 0)
			tsz = sb.st_size;
		metrics_printf(&wb, "%s{\"base_offset\":%" PRId64 ",\"bytes\":%" PRId64
		    ",\"index_bytes\":%" PRId64 ",\"timeindex_bytes\":%" PRId64
		    ",\"modified_ms\":%" PRId64 "}", i > (size_t)start ? "," : "",
		    bases[i], sz, isz, tsz, mt);
	}
	metrics_printf(&wb, "],\"start\":%" PRId64 ",\"total\":%zu}", start, n);
	free(bases);
	return jreply(conn, &wb);
}

/* ---- /api/groups, /api/group ---- */

static const char *
group_state_name(uint32_t st)
{
	switch (st) {
	case GROUP_EMPTY:		return "Empty";
	case GROUP_REBALANCING:		return "PreparingRebalance";
	case GROUP_STABLE:		return "Stable";
	case GROUP_AWAITING_SYNC:	return "CompletingRebalance";
	}
	return "Unknown";
}

static const char *
group_kind_name(uint32_t k)
{
	return k == GROUP_KIND_NATIVE ? "native" : k == GROUP_KIND_KAFKA ?
	    "kafka" : "none";
}

/* The used group named name (index), or -1. */
static int
group_named(struct shm *s, const char *name)
{
	size_t len = strlen(name);
	struct shm_group *g;
	uint32_t i, n = group_count(s);

	for (i = 0; i < n; i++)
		if ((g = group_at(s, i)) != NULL && atomic_load_explicit(&g->used,
		    memory_order_acquire) == GROUP_SLOT_USED &&
		    g->name_len == len && memcmp(g->name, name, len) == 0)
			return (int)i;
	return -1;
}

static uint32_t
group_active_members(struct shm *s, struct shm_group *g)
{
	uint32_t i, n = 0, max = s->hdr->limits.max_group_members;
	struct shm_member *m;

	for (i = 0; i < max; i++)
		if ((m = group_member_at(s, g, i)) != NULL &&
		    atomic_load_explicit(&m->state, memory_order_acquire) ==
		    MEMBER_ACTIVE)
			n++;
	return n;
}

static enum MHD_Result
api_groups(struct console *c, struct MHD_Connection *conn)
{
	struct shm *s = &c->b->shm;
	struct stats_resp st;
	struct shm_group *g;
	struct arena a;
	struct wbuf wb;
	uint32_t i, ng = group_count(s);
	int64_t lag, n = 0;
	int32_t k;

	if (snapshot(c, &a, &st) == -1)
		return jerror(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "out of memory");
	wbuf_init(&wb);
	JRAW(&wb, "{\"groups\":[");
	for (i = 0; i < ng && n < CONSOLE_PAGE_MAX; i++) {
		if ((g = group_at(s, i)) == NULL || atomic_load_explicit(&g->used,
		    memory_order_acquire) != GROUP_SLOT_USED || g->name_len == 0 ||
		    g->name_len > GROUP_NAME_MAX)
			continue;
		lag = 0;
		for (k = 0; k < st.nlags; k++)
			if (st.lags[k].group_len == g->name_len &&
			    memcmp(st.lags[k].group, g->name, g->name_len) == 0)
				lag += st.lags[k].lag;
		jsep(&wb, &n);
		JRAW(&wb, "{\"name\":");
		jstr(&wb, g->name, g->name_len);
		metrics_printf(&wb, ",\"kind\":\"%s\",\"state\":\"%s\",\"generation\":%u,"
		    "\"members\":%u,\"lag\":%" PRId64 "}", group_kind_name(g->kind),
		    group_state_name(g->state), g->generation,
		    group_active_members(s, g), lag);
	}
	JRAW(&wb, "]}");
	arena_free(&a);
	return jreply(conn, &wb);
}

/* The topic and partition of partition slot, into *t and *p; 0 or -1. */
static int
slot_topic(struct shm *s, uint32_t slot, const struct shm_topic **t,
    int32_t *p)
{
	struct shm_partition *sp;

	if (slot >= s->hdr->limits.max_partitions)
		return -1;
	sp = &s->parts[slot];
	if (sp->topic >= s->hdr->limits.max_topics)
		return -1;
	*t = &s->topics[sp->topic];
	*p = sp->partition;
	if ((*t)->name_len == 0 || (*t)->name_len > TOPIC_NAME_MAX)
		return -1;
	return 0;
}

static uint32_t
be_get(const uint8_t *p, int n)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * A Kafka member's assignment as its leader wrote it (Kafka's
 * ConsumerProtocolAssignment: [version i16][count i32]{[topic str]
 * [count i32]{[partition i32]}}...), every length checked against len;
 * a protocol other than "consumer" or bytes that do not parse list
 * nothing.
 */
static void
kafka_assignment(struct wbuf *wb, const uint8_t *p, uint32_t len)
{
	const uint8_t *end = p + len;
	uint32_t nt, np, tl, i, j;
	int64_t k = 0;

	if (p == NULL || len < 6)
		return;
	nt = be_get(p + 2, 4);
	p += 6;
	for (i = 0; i < nt && i < 4096; i++) {
		if (end - p < 2 || (tl = be_get(p, 2)) > TOPIC_NAME_MAX ||
		    (uint32_t)(end - p - 2) < tl + 4)
			return;
		np = be_get(p + 2 + tl, 4);
		if (np > (uint32_t)(end - p - 6 - tl) / 4)
			return;
		for (j = 0; j < np; j++) {
			jsep(wb, &k);
			JRAW(wb, "{\"topic\":");
			jstr(wb, (const char *)p + 2, tl);
			metrics_printf(wb, ",\"partition\":%d}",
			    (int)be_get(p + 6 + tl + 4 * j, 4));
		}
		p += 6 + tl + 4 * (size_t)np;
	}
}

static enum MHD_Result
api_group(struct console *c, struct MHD_Connection *conn)
{
	struct shm *s = &c->b->shm;
	const char *name = MHD_lookup_connection_value(conn,
	    MHD_GET_ARGUMENT_KIND, "name");
	uint32_t i, j, na, np, max = s->hdr->limits.max_group_members;
	int64_t nm = 0, k;
	uint32_t *slots;
	const struct shm_topic *t;
	struct shm_member *m;
	struct shm_partition *sp;
	struct shm_group *g;
	struct wbuf wb;
	int64_t committed, end;
	int32_t p;
	int gi;

	if (name == NULL || *name == '\0')
		return jerror(conn, MHD_HTTP_BAD_REQUEST, "name: missing");
	if (strlen(name) > GROUP_NAME_MAX || (gi = group_named(s, name)) < 0)
		return jerror(conn, MHD_HTTP_NOT_FOUND, "unknown group: %.*s",
		    GROUP_NAME_MAX, name);
	g = group_at(s, (uint32_t)gi);
	np = atomic_load_explicit(&s->hdr->parts_used, memory_order_acquire);
	if (np > s->hdr->limits.max_partitions)
		np = s->hdr->limits.max_partitions;
	if ((slots = calloc(np ? np : 1, sizeof(*slots))) == NULL)
		return jerror(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "out of memory");
	wbuf_init(&wb);
	JRAW(&wb, "{\"name\":");
	jstr(&wb, g->name, g->name_len);
	metrics_printf(&wb, ",\"kind\":\"%s\",\"state\":\"%s\",\"generation\":%u,"
	    "\"protocol\":", group_kind_name(g->kind), group_state_name(g->state),
	    g->generation);
	jstr(&wb, g->proto, g->proto_len <= KGROUP_PROTO_MAX ? g->proto_len : 0);
	JRAW(&wb, ",\"members\":[");
	for (i = 0; i < max; i++) {
		if ((m = group_member_at(s, g, i)) == NULL ||
		    atomic_load_explicit(&m->state, memory_order_acquire) !=
		    MEMBER_ACTIVE)
			continue;
		jsep(&wb, &nm);
		JRAW(&wb, "{\"id\":");
		jstr(&wb, m->id, m->id_len <= MEMBER_ID_MAX ? m->id_len : 0);
		JRAW(&wb, ",\"client\":");
		jstr(&wb, m->client, m->client_len <= CLIENT_ID_MAX ?
		    m->client_len : 0);
		JRAW(&wb, ",\"host\":");
		jstr(&wb, m->host, m->host_len <= MEMBER_HOST_MAX ?
		    m->host_len : 0);
		JRAW(&wb, ",\"assignments\":[");
		if (g->kind == GROUP_KIND_KAFKA) {
			if (g->ptype_len == 8 && memcmp(g->ptype, "consumer",
			    8) == 0 && m->assign_len <=
			    s->hdr->limits.member_meta)
				kafka_assignment(&wb, group_assign(s, g, i),
				    m->assign_len);
			JRAW(&wb, "]}");
			continue;
		}
		na = group_assignment(s, g, (int)i, slots, np);
		for (j = 0, k = 0; j < na && j < np; j++) {
			if (slot_topic(s, slots[j], &t, &p) == -1)
				continue;
			jsep(&wb, &k);
			JRAW(&wb, "{\"topic\":");
			jstr(&wb, t->name, t->name_len);
			metrics_printf(&wb, ",\"partition\":%d}", (int)p);
		}
		JRAW(&wb, "]}");
	}
	free(slots);
	JRAW(&wb, "],\"offsets\":[");
	for (i = 0, k = 0; i < np; i++) {
		if ((committed = group_offset_get(s, g, i)) < 0 ||
		    slot_topic(s, i, &t, &p) == -1)
			continue;
		sp = &s->parts[i];
		end = __atomic_load_n(&sp->next_offset, __ATOMIC_ACQUIRE);
		jsep(&wb, &k);
		JRAW(&wb, "{\"topic\":");
		jstr(&wb, t->name, t->name_len);
		metrics_printf(&wb, ",\"partition\":%d,\"committed\":%" PRId64
		    ",\"log_end\":%" PRId64 ",\"lag\":%" PRId64 "}", (int)p,
		    committed, end, end > committed ? end - committed : 0);
	}
	metrics_printf(&wb, "],\"sample_ms\":%d,\"lag_history\":[", CONSOLE_SAMPLE_MS);
	if (gi < CONSOLE_GROUPS) {
		pthread_mutex_lock(&c->mu);
		for (i = 0, k = 0; i < c->count; i++) {
			struct sample *sm = &c->ring[(c->head + CONSOLE_SAMPLES -
			    c->count + i) % CONSOLE_SAMPLES];

			if (sm->lag[gi] < 0)
				continue;
			metrics_printf(&wb, "%s{\"t_ms\":%" PRId64 ",\"lag\":%" PRId64 "}",
			    k++ ? "," : "", sm->t_ms, sm->lag[gi]);
		}
		pthread_mutex_unlock(&c->mu);
	}
	JRAW(&wb, "]}");
	return jreply(conn, &wb);
}

/* ---- /api/messages ---- */

struct browse {
	int64_t		 from, to;	/* offsets wanted: [from, to) */
	int64_t		 n, limit;
	struct wbuf	*wb;
};

static void
browse_record(struct browse *br, const struct record *r)
{
	struct record_header_iter hi;
	struct record_header h;
	int64_t k = 0;

	metrics_printf(br->wb, "%s{\"offset\":%" PRId64 ",\"timestamp\":%" PRId64
	    ",\"key\":", br->n++ ? "," : "", r->offset, r->timestamp);
	jb64(br->wb, r->key, r->key_len);
	JRAW(br->wb, ",\"value\":");
	jb64(br->wb, r->value, r->value_len);
	JRAW(br->wb, ",\"headers\":[");
	record_header_iter_init(&hi, r);
	while (record_header_next(&hi, &h) == 1) {
		jsep(br->wb, &k);
		JRAW(br->wb, "{\"key\":");
		jstr(br->wb, (const char *)h.key, h.key_len > 0 ?
		    (size_t)h.key_len : 0);
		JRAW(br->wb, ",\"value\":");
		jb64(br->wb, h.value, h.value_len);
		JRAW(br->wb, "}");
	}
	JRAW(br->wb, "]}");
}

/*
 * Records [br->from, br->to) of the log, oldest first, into br; at most
 * br->limit records and CONSOLE_READ_MAX bytes read.  The offset after the
 * last record given, or -1 with err.
 */
static int64_t
browse_read(struct plog_reader *rd, int64_t visible, struct browse *br,
    char *err, size_t errlen)
{
	struct compress_buf z;
	struct plog_slice sl;
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	uint8_t *buf = NULL;
	size_t pos, total = 0;
	int64_t off = br->from;
	ssize_t got;
	int rc;

	compress_buf_init(&z, CONSOLE_INFLATE_MAX);
	while (off < br->to && off < visible && br->n < br->limit &&
	    total < CONSOLE_READ_MAX) {
		if (plog_reader_read(rd, off, visible, CONSOLE_READ_MAX - total,
		    &sl) == -1) {
			if (errno == EBADMSG) {
				off = sl.next_offset;	/* past a corrupt range */
				continue;
			}
			snprintf(err, errlen, "reading the log: %s",
			    strerror(errno));
			off = -1;
			break;
		}
		if (sl.len == 0)
			break;
		free(buf);
		if ((buf = malloc(sl.len)) == NULL ||
		    (got = pread(sl.fd, buf, sl.len, sl.pos)) < 0 ||
		    (size_t)got != sl.len) {
			snprintf(err, errlen, "reading the log: short read");
			off = -1;
			break;
		}
		total += sl.len;
		for (pos = 0; pos + BATCH_HEADER_SIZE <= sl.len; ) {
			if (batch_parse_header(buf + pos, sl.len - pos, &h) !=
			    BATCH_OK || batch_total_size(&h) > sl.len - pos)
				break;
			rc = batch_validate_z(buf + pos, batch_total_size(&h), &h,
			    &z);
			if (rc == BATCH_OK && batch_iter_init_z(&it, buf + pos,
			    batch_total_size(&h), &z) == BATCH_OK)
				while (br->n < br->limit &&
				    batch_iter_next(&it, &r) == 1)
					if (r.offset >= off && r.offset < br->to)
						browse_record(br, &r);
			off = h.base_offset + h.last_offset_delta + 1;
			pos += batch_total_size(&h);
			if (br->n >= br->limit || off >= br->to)
				break;
		}
		if (off < sl.next_offset && pos >= sl.len)
			off = sl.next_offset;
		if (pos == 0)
			break;	/* nothing parsed: do not spin */
	}
	free(buf);
	compress_buf_free(&z);
	return off;
}

static enum MHD_Result
api_messages(struct console *c, struct MHD_Connection *conn)
{
	struct shm *s = &c->b->shm;
	struct shm_partition *sp;
	struct plog_reader *rd;
	struct browse br;
	struct wbuf wb;
	const char *name, *order, *ts;
	char dir[PATH_MAX], err[400];
	int64_t part, offset, limit, tms, start, end, visible, next;
	int newest, ti;

	if ((ti = arg_topic(c, conn, "topic", &name, err, sizeof(err))) < 0)
		return jerror(conn, strncmp(err, "unknown", 7) == 0 ?
		    MHD_HTTP_NOT_FOUND : MHD_HTTP_BAD_REQUEST, "%s", err);
	order = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "order");
	if (order == NULL || strcmp(order, "oldest") == 0)
		newest = 0;
	else if (strcmp(order, "newest") == 0)
		newest = 1;
	else
		return jerror(conn, MHD_HTTP_BAD_REQUEST,
		    "order: expected oldest or newest");
	if (arg_int(conn, "partition", 0, s->topics[ti].partitions - 1, 0,
	    &part, err, sizeof(err)) == -1 || arg_int(conn, "limit", 1,
	    CONSOLE_PAGE_MAX, CONSOLE_PAGE_DEFAULT, &limit, err,
	    sizeof(err)) == -1 || arg_int(conn, "time", 0, INT64_MAX, -1, &tms,
	    err, sizeof(err)) == -1)
		return jerror(conn, MHD_HTTP_BAD_REQUEST, "%s", err);
	if ((sp = shm_partition(s, ti, (int32_t)part)) == NULL)
		return jerror(conn, MHD_HTTP_NOT_FOUND, "no partition %d",
		    (int)part);
	start = atomic_load_explicit(&sp->log_start, memory_order_acquire);
	end = __atomic_load_n(&sp->next_offset, __ATOMIC_ACQUIRE);
	visible = atomic_load_explicit(&sp->visible_offset, memory_order_acquire);
	if (visible > end)
		visible = end;
	ts = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "offset");
	if (ts != NULL && tms >= 0)
		return jerror(conn, MHD_HTTP_BAD_REQUEST,
		    "offset and time: give one");
	if (arg_int(conn, "offset", INT64_MIN, INT64_MAX, newest ? end : start,
	    &offset, err, sizeof(err)) == -1)
		return jerror(conn, MHD_HTTP_BAD_REQUEST, "%s", err);
	if (offset < start || offset > end)
		return jerror(conn, MHD_HTTP_RANGE_NOT_SATISFIABLE,
		    "offset %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]",
		    offset, start, end);
	if (topic_partition_dir(dir, sizeof(dir), c->b->conf->data_dir, name,
	    (int32_t)part) == -1 || plog_reader_open(&rd, dir) == -1)
		return jerror(conn, MHD_HTTP_NOT_FOUND, "no log for %s-%d", name,
		    (int)part);
	if (tms >= 0 && plog_reader_offset_for_time(rd, tms, visible,
	    &offset) == -1) {
		plog_reader_close(rd);
		return jerror(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "time lookup: %s", strerror(errno));
	}
	if (offset < start)
		offset = start;
	memset(&br, 0, sizeof(br));
	wbuf_init(&wb);
	br.wb = &wb;
	br.limit = limit;
	/* Newest first: the page ends just before offset (inclusive of it
	 * when a time picked it), read oldest first and shown reversed. */
	if (newest) {
		br.to = tms >= 0 ? offset + 1 : offset;
		br.from = br.to - limit > start ? br.to - limit : start;
	} else {
		br.from = offset;
		br.to = INT64_MAX;
	}
	JRAW(&wb, "{\"topic\":");
	jstr(&wb, name, strlen(name));
	metrics_printf(&wb, ",\"partition\":%d,\"log_start\":%" PRId64 ",\"log_end\":%"
	    PRId64 ",\"order\":\"%s\",\"records\":[", (int)part, start, end,
	    newest ? "newest" : "oldest");
	next = browse_read(rd, visible, &br, err, sizeof(err));
	plog_reader_close(rd);
	if (next < 0) {
		wbuf_free(&wb);
		return jerror(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err);
	}
	/* next: where the following page starts, in the page's direction. */
	metrics_printf(&wb, "],\"next\":%" PRId64 "}", newest ? br.from : next);
	return jreply(conn, &wb);
}

/* ---- admin actions ---- */

static enum MHD_Result
api_whoami(struct console *c, struct MHD_Connection *conn)
{
	char user[AUTH_USER_MAX + 1];
	struct wbuf wb;
	int admin, known;

	admin = console_admin(c, conn, user, sizeof(user), NULL, NULL, &known);
	wbuf_init(&wb);
	JRAW(&wb, "{\"user\":");
	if (known)
		jstr(&wb, user, strlen(user));
	else
		JRAW(&wb, "null");
	metrics_printf(&wb, ",\"admin\":%s,\"auth\":%s}", admin ? "true" : "false",
	    auth_enabled() ? "true" : "false");
	return jreply(conn, &wb);
}

/* A required string argument of a write action, or NULL with err. */
static const char *
arg_str(struct MHD_Connection *conn, const char *name, size_t max, char *err,
    size_t errlen)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND,
	    name);

	if (v == NULL || *v == '\0')
		snprintf(err, errlen, "%s: missing", name);
	else if (strlen(v) > max)
		snprintf(err, errlen, "%s: longer than %zu bytes", name, max);
	else
		return v;
	return NULL;
}

/*
 * The write actions, each through a native session as the user
 * (master/console_admin.h).  0 and the answer in wb, or -1 with status
 * and err for the caller's error answer.
 */
static int
act_create(struct cadmin *s, struct MHD_Connection *conn, struct wbuf *wb,
    char *what, size_t whatlen, unsigned *status, char *err, size_t errlen)
{
	const char *name;
	int64_t parts;
	int32_t made = 0;
	int16_t e = 0;

	if ((name = arg_str(conn, "name", TOPIC_NAME_MAX, err, errlen)) == NULL ||
	    arg_int(conn, "partitions", 0, INT32_MAX, 0, &parts, err,
	    errlen) == -1)
		return -1;
	snprintf(what, whatlen, "create topic %s (%lld partitions)", name,
	    (long long)parts);
	if (cadmin_create_topic(s, name, (int32_t)parts, &e, &made, err,
	    errlen) == -1) {
		*status = MHD_HTTP_BAD_GATEWAY;
		return -1;
	}
	if (e != ERR_NONE) {
		*status = e == ERR_TOPIC_EXISTS ? MHD_HTTP_CONFLICT :
		    e == ERR_ACCESS_DENIED ? MHD_HTTP_FORBIDDEN :
		    MHD_HTTP_BAD_REQUEST;
		snprintf(err, errlen, "create topic %s: %s", name,
		    flume_strerror(e));
		return -1;
	}
	JRAW(wb, "{\"created\":");
	jstr(wb, name, strlen(name));
	metrics_printf(wb, ",\"partitions\":%d}", (int)made);
	return 0;
}

static int
act_produce(struct cadmin *s, struct MHD_Connection *conn, struct wbuf *wb,
    char *what, size_t whatlen, unsigned *status, char *err, size_t errlen)
{
	const char *topic, *key, *value;
	int64_t part, off = -1;
	int16_t e = 0;

	if ((topic = arg_str(conn, "topic", TOPIC_NAME_MAX, err, errlen)) ==
	    NULL || arg_int(conn, "partition", 0, INT32_MAX, 0, &part, err,
	    errlen) == -1)
		return -1;
	key = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "key");
	value = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "value");
	if ((key != NULL && strlen(key) > 65536) ||
	    (value != NULL && strlen(value) > 65536)) {
		snprintf(err, errlen, "key and value: at most 65536 bytes each");
		return -1;
	}
	snprintf(what, whatlen, "produce a record to %s-%lld", topic,
	    (long long)part);
	if (cadmin_produce(s, topic, (int32_t)part, key, value, &e, &off, err,
	    errlen) == -1) {
		*status = MHD_HTTP_BAD_GATEWAY;
		return -1;
	}
	if (e != ERR_NONE) {
		*status = e == ERR_ACCESS_DENIED ? MHD_HTTP_FORBIDDEN :
		    MHD_HTTP_BAD_REQUEST;
		snprintf(err, errlen, "produce to %s-%lld: %s", topic,
		    (long long)part, flume_strerror(e));
		return -1;
	}
	JRAW(wb, "{\"topic\":");
	jstr(wb, topic, strlen(topic));
	metrics_printf(wb, ",\"partition\":%lld,\"offset\":%" PRId64 "}",
	    (long long)part, off);
	return 0;
}

static int
act_reset(struct cadmin *s, struct MHD_Connection *conn, struct wbuf *wb,
    char *what, size_t whatlen, unsigned *status, char *err, size_t errlen)
{
	struct group_reset_result res[CADMIN_RESULTS_MAX];
	struct group_reset_req q;
	const char *to;
	int64_t part, off;
	int32_t n = 0, i;
	int16_t e = 0;

	memset(&q, 0, sizeof(q));
	if ((q.group = arg_str(conn, "group", GROUP_NAME_MAX, err, errlen)) ==
	    NULL || (q.topic = arg_str(conn, "topic", TOPIC_NAME_MAX, err,
	    errlen)) == NULL || arg_int(conn, "partition", -1, INT32_MAX, -1,
	    &part, err, errlen) == -1 || (to = arg_str(conn, "to", 32, err,
	    errlen)) == NULL)
		return -1;
	q.group_len = strlen(q.group);
	q.topic_len = strlen(q.topic);
	q.partition = (int32_t)part;
	if (strcmp(to, "earliest") == 0)
		q.mode = RESET_TO_EARLIEST;
	else if (strcmp(to, "latest") == 0)
		q.mode = RESET_TO_LATEST;
	else if (arg_int(conn, "to", 0, INT64_MAX, 0, &off, err, errlen) == 0) {
		q.mode = RESET_TO_OFFSET;
		q.value = off;
	} else {
		snprintf(err, errlen, "to: expected earliest, latest or an offset");
		return -1;
	}
	snprintf(what, whatlen, "reset group %s on %s partition %lld to %s",
	    q.group, q.topic, (long long)part, to);
	if (cadmin_group_reset(s, &q, &e, res, &n, err, errlen) == -1) {
		*status = MHD_HTTP_BAD_GATEWAY;
		return -1;
	}
	if (e != ERR_NONE) {
		*status = e == ERR_ACCESS_DENIED ? MHD_HTTP_FORBIDDEN :
		    e == ERR_GROUP_NOT_EMPTY ? MHD_HTTP_CONFLICT :
		    MHD_HTTP_BAD_REQUEST;
		snprintf(err, errlen, "reset group %s: %s", q.group,
		    flume_strerror(e));
		return -1;
	}
	JRAW(wb, "{\"group\":");
	jstr(wb, q.group, q.group_len);
	JRAW(wb, ",\"partitions\":[");
	for (i = 0; i < n; i++)
		metrics_printf(wb, "%s{\"partition\":%d,\"offset\":%" PRId64
		    ",\"error\":\"%s\"}", i ? "," : "", (int)res[i].partition,
		    res[i].offset, res[i].error ? flume_strerror(res[i].error) :
		    "");
	JRAW(wb, "]}");
	return 0;
}

static int
act_config(struct cadmin *s, struct MHD_Connection *conn, struct wbuf *wb,
    char *what, size_t whatlen, unsigned *status, char *err, size_t errlen)
{
	const char *topic, *key, *value;
	char msg[320];
	int16_t e = 0;

	if ((topic = arg_str(conn, "topic", TOPIC_NAME_MAX, err, errlen)) ==
	    NULL || (key = arg_str(conn, "key", 64, err, errlen)) == NULL)
		return -1;
	/* No value: delete the topic's own, back to flume.conf's. */
	value = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "value");
	if (value != NULL && strlen(value) > 1024) {
		snprintf(err, errlen, "value: longer than 1024 bytes");
		return -1;
	}
	snprintf(what, whatlen, "set %s of topic %s to %s", key, topic,
	    value != NULL ? value : "its default (deleted)");
	if (cadmin_config_set(s, topic, key, value, &e, msg, sizeof(msg), err,
	    errlen) == -1) {
		*status = MHD_HTTP_BAD_GATEWAY;
		return -1;
	}
	if (e != ERR_NONE) {
		*status = e == ERR_ACCESS_DENIED ? MHD_HTTP_FORBIDDEN :
		    e == ERR_UNKNOWN_TOPIC_OR_PARTITION ? MHD_HTTP_NOT_FOUND :
		    MHD_HTTP_BAD_REQUEST;
		snprintf(err, errlen, "%s: %s%s%s", what, flume_strerror(e),
		    msg[0] ? ": " : "", msg);
		return -1;
	}
	JRAW(wb, "{\"topic\":");
	jstr(wb, topic, strlen(topic));
	JRAW(wb, ",\"key\":");
	jstr(wb, key, strlen(key));
	JRAW(wb, ",\"value\":");
	if (value != NULL)
		jstr(wb, value, strlen(value));
	else
		JRAW(wb, "null");
	JRAW(wb, "}");
	return 0;
}

typedef int (*act_fn)(struct cadmin *, struct MHD_Connection *, struct wbuf *,
    char *, size_t, unsigned *, char *, size_t);

/*
 * A write action (POST): refused with 401 without valid credentials and
 * 403 without admin; otherwise carried out as that user through the
 * broker's own listener, and logged in one line naming the user.
 */
static enum MHD_Result
api_admin(struct console *c, struct MHD_Connection *conn, const char *url,
    act_fn fn)
{
	char user[AUTH_USER_MAX + 1], err[400], what[600];
	const char *origin, *host, *p;
	uint8_t secret[AUTH_SECRET_MAX];
	unsigned status = MHD_HTTP_BAD_REQUEST;
	size_t slen = 0;
	struct cadmin *s;
	struct wbuf wb;
	int known, rc;

	/*
	 * The page sends the credentials itself (no WWW-Authenticate, so no
	 * browser keeps them to send on its own); an Origin other than this
	 * host is another site's page posting here all the same: refused.
	 */
	origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
	if (origin != NULL && (host == NULL || (p = strstr(origin, "://")) ==
	    NULL || strcmp(p + 3, host) != 0)) {
		log_info("console: %s refused: a request from %.100s", url,
		    origin);
		return jerror(conn, MHD_HTTP_FORBIDDEN,
		    "%s: requests from another origin are refused", url);
	}
	if (!console_admin(c, conn, user, sizeof(user), secret, &slen, &known)) {
		sodium_memzero(secret, sizeof(secret));
		log_info("console: %s refused for %s", url,
		    known ? user : "a client without valid credentials");
		if (!known)
			return jerror(conn, MHD_HTTP_UNAUTHORIZED,
			    "%s needs the credentials of an admin user", url);
		return jerror(conn, MHD_HTTP_FORBIDDEN,
		    "%s needs the admin permission on every topic", url);
	}
	err[0] = what[0] = '\0';
	wbuf_init(&wb);
	rc = cadmin_open(&s, c->b->conf, user, secret, slen, err, sizeof(err));
	sodium_memzero(secret, sizeof(secret));
	if (rc == -1) {
		log_warnx("console: %s by %s: %s", url, user, err);
		wbuf_free(&wb);
		return jerror(conn, MHD_HTTP_BAD_GATEWAY, "%s", err);
	}
	rc = fn(s, conn, &wb, what, sizeof(what), &status, err, sizeof(err));
	cadmin_close(s);
	if (rc == -1) {
		wbuf_free(&wb);
		if (what[0] != '\0')
			log_info("console: %s: %s by %s failed: %s", url, what,
			    user, err);
		return jerror(conn, status, "%s", err);
	}
	log_info("console: %s by %s", what, user);
	return jreply(conn, &wb);
}

/* ---- static pages ---- */

static const char *
file_type(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot == NULL)
		return "application/octet-stream";
	if (strcmp(dot, ".html") == 0)
		return "text/html; charset=utf-8";
	if (strcmp(dot, ".css") == 0)
		return "text/css; charset=utf-8";
	if (strcmp(dot, ".js") == 0)
		return "text/javascript; charset=utf-8";
	if (strcmp(dot, ".svg") == 0)
		return "image/svg+xml";
	return "application/octet-stream";
}

/* A file of console_dir: names of [A-Za-z0-9._-/] only, no "..". */
static enum MHD_Result
serve_file(struct console *c, struct MHD_Connection *conn, const char *url)
{
	char path[PATH_MAX];
	struct MHD_Response *resp;
	struct stat sb;
	const char *p;
	enum MHD_Result rc;
	int fd;

	if (strcmp(url, "/") == 0)
		url = "/index.html";
	for (p = url; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		    *p == '-' || *p == '/'))
			return jerror(conn, MHD_HTTP_NOT_FOUND, "not found");
	if (strstr(url, "..") != NULL || (size_t)snprintf(path, sizeof(path),
	    "%s%s", c->b->conf->console_dir, url) >= sizeof(path))
		return jerror(conn, MHD_HTTP_NOT_FOUND, "not found");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		if (strcmp(url, "/index.html") == 0) {
			/* No pages installed: say where they were looked for. */
			char msg[PATH_MAX + 128];
			int n = snprintf(msg, sizeof(msg), "flume metrics: GET "
			    "/metrics; the console's pages are not in %s "
			    "(console_dir)\n", c->b->conf->console_dir);

			return reply(conn, MHD_HTTP_OK, "text/plain; charset=utf-8",
			    msg, n > 0 && (size_t)n < sizeof(msg) ? (size_t)n : 0);
		}
		return jerror(conn, MHD_HTTP_NOT_FOUND, "not found");
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > CONSOLE_FILE_MAX) {
		close(fd);
		return jerror(conn, MHD_HTTP_NOT_FOUND, "not found");
	}
	if ((resp = MHD_create_response_from_fd((uint64_t)sb.st_size,
	    fd)) == NULL) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
	    file_type(path));
	MHD_add_response_header(resp, "Content-Security-Policy",
	    "default-src 'self'; img-src 'self' data:");
	rc = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* ---- dispatch ---- */

static const struct {
	const char	*url;
	enum MHD_Result	(*get)(struct console *, struct MHD_Connection *);
} api_gets[] = {
	{ "/api/overview",	api_overview },
	{ "/api/topics",	api_topics },
	{ "/api/topic",		api_topic },
	{ "/api/segments",	api_segments },
	{ "/api/groups",	api_groups },
	{ "/api/group",		api_group },
	{ "/api/messages",	api_messages },
	{ "/api/whoami",	api_whoami },
};

static const struct {
	const char	*url;
	act_fn		 fn;
} api_posts[] = {
	{ "/api/topic/create",	act_create },
	{ "/api/topic/config",	act_config },
	{ "/api/group/reset",	act_reset },
	{ "/api/produce",	act_produce },
};

enum MHD_Result
console_http(struct console *c, struct MHD_Connection *conn, const char *url,
    const char *method, int *handled)
{
	int get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
	    strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
	size_t i;

	*handled = 1;
	if (strncmp(url, "/api/", 5) != 0) {
		if (strcmp(url, "/metrics") == 0 || !get) {
			*handled = 0;
			return MHD_NO;
		}
		return serve_file(c, conn, url);
	}
	for (i = 0; i < sizeof(api_posts) / sizeof(api_posts[0]); i++)
		if (strcmp(url, api_posts[i].url) == 0) {
			if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
				return jerror(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "%s: POST only", url);
			return api_admin(c, conn, url, api_posts[i].fn);
		}
	for (i = 0; i < sizeof(api_gets) / sizeof(api_gets[0]); i++)
		if (strcmp(url, api_gets[i].url) == 0) {
			if (!get)
				return jerror(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "%s: GET only", url);
			return api_gets[i].get(c, conn);
		}
	return jerror(conn, MHD_HTTP_NOT_FOUND, "no such API: %.100s", url);
}
