/*
 * Corrupt logs through the real daemon: a flipped byte in a batch header
 * of an older segment, a flipped byte inside the last segment found by
 * start-up recovery, and the way past them (flume-consume's error names
 * the offset; flume-admin group reset moves a group beyond it).
 *
 * Every test writes one single-partition topic "orders" whose values are
 * "m-NNNNNN-" plus padding, NNNNNN being the record's offset, so what a
 * consumer reads can be checked record by record.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/flume.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;

static int
teardown(void)
{
	flumed_cleanup(&d);
	return 0;
}

static int
start(const char *extra)
{
	if (d.pid > 0 || d.dir != NULL)
		flumed_cleanup(&d);
	return flumed_start(&d, extra);
}

#define PAD	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

/* Lines "m-NNNNNN-PAD" for n in [from, from + count). */
static char *
numbered(int from, int count)
{
	char *buf = malloc((size_t)count * 128 + 1);
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = from; i < from + count; i++)
		len += (size_t)sprintf(buf + len, "m-%06d-%s\n", i, PAD);
	return buf;
}

/* Produce numbered records [from, from + count) to orders; the exit status. */
static int
produce(int from, int count, const char *acks)
{
	const char *argv[] = { "flume-produce", "-t", "orders", "-a", acks, NULL };
	char *in = numbered(from, count);
	int rc;

	rc = run_tool(&d, in, NULL, 120000, argv);
	free(in);
	return rc;
}

/* A batch as found in a segment file. */
struct found {
	uint64_t	pos;
	int64_t		base;
	int64_t		next;	/* offset after it */
	char		file[600];	/* the segment file holding it */
};

/*
 * The segment logs of orders/0, ascending; *n of them.  Names are
 * "<dir>/<20 digits>.log" and sort as numbers.
 */
static int
segments(char paths[][600], int max)
{
	char cmd[700];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls %s/orders/partition-0/*.log", d.data);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (n < max && fgets(paths[n], 600, f) != NULL) {
		paths[n][strcspn(paths[n], "\n")] = '\0';
		n++;
	}
	pclose(f);
	return n;
}

/* The batches of one segment file, in order (at most max). */
static int
batches_of(const char *path, struct found *v, int max)
{
	struct batch_header h;
	uint8_t hdr[BATCH_HEADER_SIZE];
	struct stat st;
	uint64_t pos = 0;
	int fd, n = 0;

	if ((fd = open(path, O_RDONLY)) == -1 || fstat(fd, &st) == -1)
		return -1;
	while (n < max && pos + BATCH_HEADER_SIZE <= (uint64_t)st.st_size &&
	    pread(fd, hdr, sizeof(hdr), (off_t)pos) == (ssize_t)sizeof(hdr) &&
	    batch_parse_header(hdr, sizeof(hdr), &h) == BATCH_OK) {
		v[n].pos = pos;
		v[n].base = h.base_offset;
		v[n].next = h.base_offset + h.last_offset_delta + 1;
		n++;
		pos += batch_total_size(&h);
	}
	close(fd);
	return n;
}

/* XOR one byte of a file with mask. */
static int
flip(const char *path, uint64_t pos, uint8_t mask)
{
	uint8_t b;
	int fd, rc = -1;

	if ((fd = open(path, O_RDWR)) == -1)
		return -1;
	if (pread(fd, &b, 1, (off_t)pos) == 1) {
		b ^= mask;
		if (pwrite(fd, &b, 1, (off_t)pos) == 1)
			rc = 0;
	}
	close(fd);
	return rc;
}

/* Whether m is the numbered record of its offset. */
static int
is_numbered(const struct flume_message *m)
{
	char want[128];
	int n;

	n = snprintf(want, sizeof(want), "m-%06lld-%s", (long long)m->offset, PAD);
	return m->value_len == n && memcmp(m->value, want, (size_t)n) == 0;
}

/*
 * Read orders/0 from `from` with libflume until an error or the end:
 * *count records, each checked to be the next offset's numbered record
 * (*bad counts those that were not); the final poll's result.
 */
static int
read_from(int64_t from, long *count, long *bad, struct flume_corrupt *cr)
{
	struct flume_client *c;
	struct flume_consumer *k;
	struct flume_message m;
	long long deadline = support_now_ms() + 60000;
	int64_t expect = from < 0 ? 0 : from;
	int rc = -2;

	*count = *bad = 0;
	if ((c = flume_connect(d.broker)) == NULL)
		return -3;
	if ((k = flume_consumer_new(c, NULL)) == NULL ||
	    flume_consumer_subscribe(k, "orders", 0, from) == -1) {
		flume_consumer_free(k);
		flume_close(c);
		return -3;
	}
	while (support_now_ms() < deadline) {
		if (flume_consumer_at_end(k)) {
			rc = 0;
			break;
		}
		rc = flume_consumer_poll(k, &m, 1000);
		if (rc == -1) {
			if (errno != EBADMSG || flume_corrupt_range(c, cr) == -1)
				rc = -4;
			else {
				/* Copy out what lives in the client. */
				static char topic[64];

				snprintf(topic, sizeof(topic), "%s", cr->topic);
				cr->topic = topic;
			}
			break;
		}
		if (rc == 1) {
			if (m.offset != expect || !is_numbered(&m))
				(*bad)++;
			expect = m.offset + 1;
			(*count)++;
		}
	}
	flume_consumer_free(k);
	flume_close(c);
	return rc;
}

/* Run tool with stderr into a file; its exit status, *err its stderr. */
static int
run_tool_err(const char *input, char **out, char **err, const char *const argv[])
{
	char path[600];
	int fd, saved, rc;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/tool.err", d.dir);
	fflush(stderr);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		return -2;
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	rc = run_tool(&d, input, out, 60000, argv);
	dup2(saved, STDERR_FILENO);
	close(saved);
	*err = calloc(1, 4096);
	if ((f = fopen(path, "r")) != NULL) {
		n = (long)fread(*err, 1, 4095, f);
		(*err)[n > 0 ? n : 0] = '\0';
		fclose(f);
	}
	return rc;
}

static long
lines(const char *s)
{
	long n = 0;

	for (; s != NULL && *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

#define NMSG		50000
#define CONF_SEGS	"partitions = 1\nsegment_bytes = 1M\n"

/*
 * 50,000 records over segments of 1 MiB; one header byte of a batch in
 * the middle of the third segment XORed while the broker is down; *hit
 * is the damaged batch as it was.
 */
static void
corrupt_third_segment(int byte, uint8_t mask, struct found *hit)
{
	static char paths[64][600];
	static struct found v[4096];
	int nseg, nb;

	CU_ASSERT_FATAL(start(CONF_SEGS) == 0);
	CU_ASSERT_FATAL(produce(0, NMSG, "all") == 0);
	CU_ASSERT_FATAL(flumed_stop(&d) == 0);
	nseg = segments(paths, 64);
	CU_ASSERT_FATAL(nseg >= 5);
	nb = batches_of(paths[2], v, 4096);
	CU_ASSERT_FATAL(nb >= 3);
	*hit = v[nb / 2];
	snprintf(hit->file, sizeof(hit->file), "%s", paths[2]);
	CU_ASSERT_FATAL(v[nb / 2 + 1].base == hit->next);
	CU_ASSERT_FATAL(flip(paths[2], hit->pos + (uint64_t)byte, mask) == 0);
	CU_ASSERT_FATAL(flumed_restart(&d) == 0);
}

/* What every header-corruption case must show. */
static void
check_header_corruption(const struct found *hit)
{
	struct flume_corrupt cr;
	char *out = NULL, *err = NULL, needle[700];
	long count, bad;
	int rc;

	/* Everything before the damage, then the error naming it. */
	rc = read_from(FLUME_OFFSET_BEGINNING, &count, &bad, &cr);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(count, hit->base);
	CU_ASSERT_EQUAL(bad, 0);
	if (rc == -1) {
		CU_ASSERT_STRING_EQUAL(cr.topic, "orders");
		CU_ASSERT_EQUAL(cr.partition, 0);
		CU_ASSERT_EQUAL(cr.offset, hit->base);
		CU_ASSERT_EQUAL(cr.next, hit->next);
	}

	/* Past it, every record to the end. */
	rc = read_from(hit->next, &count, &bad, &cr);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(count, NMSG - hit->next);
	CU_ASSERT_EQUAL(bad, 0);

	/* The tool stops, says where and how to get past, exits 1. */
	{
		const char *argv[] = { "flume-consume", "-t", "orders", "-o",
		    "beginning", "-e", NULL };

		rc = run_tool_err(NULL, &out, &err, argv);
	}
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_EQUAL(lines(out), hit->base);
	snprintf(needle, sizeof(needle), "flume-consume: orders[0]: corrupt "
	    "batch at offset %lld", (long long)hit->base);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
	snprintf(needle, sizeof(needle), "skip it with: flume-consume -t "
	    "orders -p 0 -o %lld\n", (long long)hit->next);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
	free(out);
	free(err);

	/* The broker said where, once per worker that read it. */
	snprintf(needle, sizeof(needle), "orders/0: corrupt batch: offsets "
	    "%lld to %lld unreadable", (long long)hit->base,
	    (long long)hit->next - 1);
	rc = flumed_log_count(&d, needle);
	CU_ASSERT(rc >= 1 && rc <= 2);
	snprintf(needle, sizeof(needle), "%s at position %llu\n", hit->file,
	    (unsigned long long)hit->pos);
	CU_ASSERT_EQUAL(flumed_log_count(&d, needle), rc);
}

/* ---- a flipped byte in a batch header of an older segment ---- */

static void
test_header_length(void)
{
	struct found hit;

	/* The second byte of batchLength: the length grows by 64 KiB. */
	corrupt_third_segment(BATCH_OFF_LENGTH + 2, 0x01, &hit);
	check_header_corruption(&hit);
}

static void
test_header_length_short(void)
{
	struct found hit;

	/* The low byte of batchLength: a shorter batch, garbage after it. */
	corrupt_third_segment(BATCH_OFF_LENGTH + 3, 0x10, &hit);
	check_header_corruption(&hit);
}

static void
test_header_base_offset(void)
{
	struct found hit;

	corrupt_third_segment(BATCH_OFF_BASE_OFFSET + 7, 0x04, &hit);
	check_header_corruption(&hit);
}

/* A group stopped by the damage gets past it with the command it printed. */
static void
test_group_way_out(void)
{
	const char *first[] = { "flume-consume", "-g", "G", "-t", "orders",
	    "-o", "beginning", "-e", NULL };
	const char *again[] = { "flume-consume", "-g", "G", "-t", "orders",
	    "-e", NULL };
	struct found hit;
	char *out = NULL, *err = NULL, needle[256], next[32];
	int rc;

	corrupt_third_segment(BATCH_OFF_BASE_OFFSET + 7, 0x04, &hit);
	rc = run_tool_err(NULL, &out, &err, first);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_EQUAL(lines(out), hit.base);
	snprintf(needle, sizeof(needle), "flume-consume: orders[0]: corrupt "
	    "batch at offset %lld (offsets %lld to %lld cannot be read); skip "
	    "it with: flume-admin group G reset -t orders -p 0 --to-offset "
	    "%lld\n", (long long)hit.base, (long long)hit.base,
	    (long long)hit.next - 1, (long long)hit.next);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
	free(out);
	free(err);

	snprintf(next, sizeof(next), "%lld", (long long)hit.next);
	{
		const char *argv[] = { "flume-admin", "group", "G", "reset",
		    "-t", "orders", "-p", "0", "--to-offset", next, NULL };

		CU_ASSERT_EQUAL(run_tool(&d, NULL, &out, 15000, argv), 0);
		free(out);
	}
	rc = run_tool_err(NULL, &out, &err, again);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(lines(out), NMSG - hit.next);
	free(out);
	free(err);
}

/* ---- start-up recovery keeps what follows a bad batch ---- */

#define NREC		2500
#define PER_RUN		50	/* records per produce run: one batch or more */

/*
 * 2,500 acks=all records in many batches in one segment; XOR one byte at
 * `byte` into the batch in the middle, remove the index, restart.
 */
static void
recovery_case(int byte, uint8_t mask)
{
	static char paths[4][600];
	static struct found v[4096];
	struct flume_corrupt cr;
	struct found hit;
	char idx[600], needle[900];
	long count, bad;
	int i, nb, rc;

	CU_ASSERT_FATAL(start("partitions = 1\n") == 0);
	for (i = 0; i < NREC; i += PER_RUN)
		CU_ASSERT_FATAL(produce(i, PER_RUN, "all") == 0);
	CU_ASSERT_FATAL(flumed_stop(&d) == 0);
	CU_ASSERT_FATAL(segments(paths, 4) == 1);
	nb = batches_of(paths[0], v, 4096);
	CU_ASSERT_FATAL(nb >= NREC / PER_RUN);
	CU_ASSERT_FATAL(v[nb - 1].next == NREC);
	hit = v[nb / 2];
	CU_ASSERT_FATAL(flip(paths[0], hit.pos + (uint64_t)byte, mask) == 0);
	snprintf(idx, sizeof(idx), "%.*s.index", (int)strlen(paths[0]) - 4,
	    paths[0]);
	CU_ASSERT_FATAL(unlink(idx) == 0);
	CU_ASSERT_FATAL(flumed_restart(&d) == 0);

	/* Nothing truncated; the range named once, with its bytes. */
	CU_ASSERT_EQUAL(flumed_log_count(&d, "torn tail"), 0);
	snprintf(needle, sizeof(needle), "orders/0: corrupt batch: offsets "
	    "%lld to %lld unreadable, bytes %llu to %llu of %s; the valid "
	    "batches after them are kept", (long long)hit.base,
	    (long long)hit.next - 1, (unsigned long long)hit.pos,
	    (unsigned long long)v[nb / 2 + 1].pos, paths[0]);
	CU_ASSERT_EQUAL(flumed_log_count(&d, needle), 1);

	/* Every record before the damaged batch, then its offset. */
	rc = read_from(FLUME_OFFSET_BEGINNING, &count, &bad, &cr);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(count, hit.base);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(rc != -1 || (cr.offset == hit.base && cr.next == hit.next));
	/* Any offset of the damaged batch gives the same error. */
	rc = read_from(hit.next - 1, &count, &bad, &cr);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(count, 0);
	CU_ASSERT(rc != -1 || (cr.offset == hit.base && cr.next == hit.next));
	/* Every record of the undamaged batches after it. */
	rc = read_from(hit.next, &count, &bad, &cr);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(count, NREC - hit.next);
	CU_ASSERT_EQUAL(bad, 0);

	/* New records continue the log after a restart that met the damage. */
	CU_ASSERT_FATAL(produce(NREC, PER_RUN, "all") == 0);
	rc = read_from(hit.next, &count, &bad, &cr);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(count, NREC + PER_RUN - hit.next);
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_recovery_record_byte(void)
{
	/* Inside the records: only the CRC can tell. */
	recovery_case(BATCH_HEADER_SIZE + 20, 0x20);
}

static void
test_recovery_length_byte(void)
{
	recovery_case(BATCH_OFF_LENGTH + 3, 0x10);
}

TEST_SUITE("corrupt", NULL, teardown,
    { "recovery keeps the batches after a bad record byte", test_recovery_record_byte },
    { "recovery keeps the batches after a bad length byte", test_recovery_length_byte },
    { "flipped length byte in an older segment", test_header_length },
    { "flipped low length byte in an older segment", test_header_length_short },
    { "flipped baseOffset byte in an older segment", test_header_base_offset },
    { "a group gets past a corrupt batch with reset", test_group_way_out });
