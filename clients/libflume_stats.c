/*
 * STATS (18) for the tools: one request, wait for its answer (bounded by
 * the client's request timeout), decode it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clients/flume_stats.h"
#include "clients/libflume_int.h"
#include "proto/role.h"

/*
 * The answer's bytes moved into the arena: the decoders point strings
 * (topic and group names) into the bytes they decode, and the caller
 * reads them after the call, when the receive buffer is long freed.
 */
static const uint8_t *
keep(struct arena *a, const struct client_sync *s)
{
	uint8_t *p;

	if ((p = arena_alloc(a, s->len > 0 ? s->len : 1)) != NULL &&
	    s->len > 0)
		memcpy(p, s->buf, s->len);
	return p;
}

int
flume_tool_stats(struct flume_client *c, struct arena *a, struct stats_resp *out)
{
	struct client_sync s;
	const uint8_t *p;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (client_call(c, API_STATS, NULL, c->conf.request_timeout_ms, 0,
	    &s) == -1)
		goto done;
	if ((p = keep(a, &s)) == NULL ||
	    msg_decode_stats_resp(p, s.len, a, out) == -1) {
		client_seterr(c, "malformed stats response");
		errno = EPROTO;
		goto done;
	}
	if (out->error != ERR_NONE) {
		client_broker_fail(c, out->error, "stats");
		goto done;
	}
	rc = 0;
done:
	free(s.buf);
	return rc;
}

int
flume_tool_cleaner(struct flume_client *c, struct arena *a,
    struct cleaner_resp *out)
{
	struct client_sync s;
	const uint8_t *p;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (client_call(c, API_CLEANER, NULL, c->conf.request_timeout_ms, 0,
	    &s) == -1)
		goto done;
	if ((p = keep(a, &s)) == NULL ||
	    msg_decode_cleaner_resp(p, s.len, a, out) == -1) {
		client_seterr(c, "malformed cleaner response");
		errno = EPROTO;
		goto done;
	}
	if (out->error != ERR_NONE) {
		client_broker_fail(c, out->error, "cleaner");
		goto done;
	}
	rc = 0;
done:
	free(s.buf);
	return rc;
}

int
flume_tool_transactions(struct flume_client *c, struct arena *a,
    struct transactions_resp *out)
{
	struct client_sync s;
	const uint8_t *p;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (client_call(c, API_TRANSACTIONS, NULL, c->conf.request_timeout_ms, 0,
	    &s) == -1)
		goto done;
	if ((p = keep(a, &s)) == NULL ||
	    msg_decode_transactions_resp(p, s.len, a, out) == -1) {
		client_seterr(c, "malformed transactions response");
		errno = EPROTO;
		goto done;
	}
	if (out->error != ERR_NONE) {
		client_broker_fail(c, out->error, "transactions");
		goto done;
	}
	rc = 0;
done:
	free(s.buf);
	return rc;
}

void
flume_tool_stats_print(FILE *f, const struct stats_resp *st)
{
	const struct stats_partition *p;
	const struct stats_child *c;
	const struct stats_lag *l;
	int32_t i;

	fprintf(f, "PARTITIONS\n%-20s %4s %12s %12s %12s %14s %12s %14s %10s %6s %5s %14s\n",
	    "TOPIC", "PART", "LOG_START", "LOG_END", "MSGS_IN", "BYTES_IN",
	    "MSGS_OUT", "BYTES_OUT", "RING_USED", "RING%", "SEGS", "LOG_BYTES");
	for (i = 0; i < st->nparts; i++) {
		p = &st->parts[i];
		fprintf(f, "%-20.*s %4d %12lld %12lld %12lld %14lld %12lld %14lld "
		    "%10lld %5.1f%% %5d %14lld\n", (int)p->topic_len, p->topic,
		    (int)p->partition, (long long)p->log_start,
		    (long long)p->log_end, (long long)p->msgs_in,
		    (long long)p->bytes_in, (long long)p->msgs_out,
		    (long long)p->bytes_out, (long long)p->ring_used,
		    p->ring_size > 0 ? 100.0 * (double)p->ring_used /
		    (double)p->ring_size : 0.0, (int)p->segments,
		    (long long)p->log_bytes);
	}

	fprintf(f, "\nPROCESSES\n%-4s %-7s %8s %8s %6s %10s %8s %8s %12s %14s %14s\n",
	    "SLOT", "ROLE", "PID", "RESTARTS", "CONNS", "ACCEPTED", "REJECTED",
	    "BADFRAME", "REQUESTS", "BYTES_IN", "BYTES_OUT");
	for (i = 0; i < st->nchildren; i++) {
		c = &st->children[i];
		fprintf(f, "%-4d %-7s %8d %8d %6lld %10lld %8lld %8lld %12lld %14lld %14lld\n",
		    (int)c->slot, role_name(c->role), (int)c->pid,
		    (int)c->restarts, (long long)c->connections,
		    (long long)c->accepted, (long long)c->rejected_conns,
		    (long long)c->protocol_errors,
		    (long long)c->requests, (long long)c->bytes_in,
		    (long long)c->bytes_out);
	}

	fprintf(f, "\nFSYNC\ncount %lld errors %lld mean %.3f ms\n",
	    (long long)st->fsync_count, (long long)st->fsync_errors,
	    st->fsync_count > 0 ? (double)st->fsync_sum_us /
	    (double)st->fsync_count / 1000.0 : 0.0);
	for (i = 0; i < st->nbuckets; i++) {
		if (st->buckets[i].count == 0)
			continue;
		if (st->buckets[i].le_us < 0)
			fprintf(f, "  slower %lld\n", (long long)st->buckets[i].count);
		else
			fprintf(f, "  <= %gms %lld\n",
			    (double)st->buckets[i].le_us / 1000.0,
			    (long long)st->buckets[i].count);
	}

	fprintf(f, "\nERRORS\n%-4s %10s  %s\n", "CODE", "COUNT", "ERROR");
	for (i = 0; i < st->nerrors; i++)
		fprintf(f, "%-4d %10lld  %s\n", (int)st->errors[i].error,
		    (long long)st->errors[i].count,
		    flume_strerror(st->errors[i].error));

	fprintf(f, "\nGROUP LAG\n%-20s %-20s %4s %12s %12s\n", "GROUP", "TOPIC",
	    "PART", "COMMITTED", "LAG");
	for (i = 0; i < st->nlags; i++) {
		l = &st->lags[i];
		fprintf(f, "%-20.*s %-20.*s %4d %12lld %12lld\n",
		    (int)l->group_len, l->group, (int)l->topic_len, l->topic,
		    (int)l->partition, (long long)l->committed,
		    (long long)l->lag);
	}
}
