/*
 * Retention: whole oldest segments go by total size and by age (the
 * segment's max timestamp from its time index; the file mtime, set with
 * utimensat rather than waited for, for batches without timestamps); the
 * active segment
 * never goes; the start offset moves to the next segment's base, and
 * reads below it are ERANGE for the writer and for a reader that still
 * holds the deleted files open.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/batch.h"
#include "store/plog.h"
#include "tests/harness.h"

#define NSEG_MAX	64

/*
 * Forty appends of one 3-record batch, ~1000-byte segments.  Batch i's
 * records have timestamp ts[i], or i when ts is NULL.
 */
static struct plog *
make_log_ts(const char *dir, struct plog_config *cfg, const int64_t *ts)
{
	struct batch_builder b;
	struct plog *l;
	const uint8_t *out;
	uint8_t val[100], *copy;
	size_t outlen;
	int64_t base;
	int i, j;

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, cfg, NULL) == 0);
	for (i = 0; i < 40; i++) {
		batch_builder_reset(&b);
		for (j = 0; j < 3; j++) {
			memset(val, 'a' + (i + j) % 26, sizeof(val));
			CU_ASSERT_FATAL(batch_builder_add(&b, ts != NULL ?
			    ts[i] : i, "k", 1, val,
			    (int32_t)sizeof(val), NULL, 0) == 0);
		}
		CU_ASSERT_FATAL(batch_builder_close(&b, &out, &outlen) == 0);
		copy = malloc(outlen);
		CU_ASSERT_FATAL(copy != NULL);
		memcpy(copy, out, outlen);
		CU_ASSERT_FATAL(plog_append(l, copy, outlen, &base) == 0);
		CU_ASSERT_FATAL(base == i * 3);
		free(copy);
	}
	batch_builder_free(&b);
	CU_ASSERT_FATAL(plog_segment_count(l) >= 8);
	return l;
}

static struct plog *
make_log(const char *dir, struct plog_config *cfg)
{
	return make_log_ts(dir, cfg, NULL);
}

/* Bases and sizes of the segment logs on disk, ascending. */
static int
segments_on_disk(const char *dir, int64_t *bases, off_t *sizes)
{
	struct dirent **ents;
	struct stat st;
	char path[4096];
	int n, i, cnt = 0, idx = 0, tidx = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	CU_ASSERT_FATAL(n >= 0);
	for (i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (len == 24 && strcmp(ents[i]->d_name + 20, ".log") == 0) {
			CU_ASSERT_FATAL(cnt < NSEG_MAX);
			CU_ASSERT_FATAL(stat(path, &st) == 0);
			bases[cnt] = strtoll(ents[i]->d_name, NULL, 10);
			sizes[cnt++] = st.st_size;
		} else if (len == 26 && strcmp(ents[i]->d_name + 20, ".index") == 0)
			idx++;
		else if (len == 30 && strcmp(ents[i]->d_name + 20,
		    ".timeindex") == 0)
			tidx++;
		free(ents[i]);
	}
	free(ents);
	/* No index outlives its log, and every log has both. */
	CU_ASSERT(idx == cnt);
	CU_ASSERT(tidx == cnt);
	return cnt;
}

static void
set_mtime(const char *dir, int64_t base, int64_t ms)
{
	struct timespec ts[2];
	char path[4096];

	snprintf(path, sizeof(path), "%s/%020lld.log", dir, (long long)base);
	ts[0].tv_sec = ts[1].tv_sec = ms / 1000;
	ts[0].tv_nsec = ts[1].tv_nsec = (ms % 1000) * 1000000;
	CU_ASSERT_FATAL(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
test_by_size(void)
{
	struct plog_config cfg = { 1000, 4096, 3500, -1, 0, 0 };
	struct plog_reader *r;
	struct plog_slice s;
	struct plog *l;
	int64_t bases[NSEG_MAX], bases2[NSEG_MAX];
	off_t sizes[NSEG_MAX], sizes2[NSEG_MAX];
	uint64_t total = 0;
	int n, n2, i, want = 0, deleted;
	char *dir = test_mkdtemp("retsize");

	l = make_log(dir, &cfg);
	n = segments_on_disk(dir, bases, sizes);
	CU_ASSERT_FATAL(n == plog_segment_count(l));
	for (i = 0; i < n; i++)
		total += (uint64_t)sizes[i];
	CU_ASSERT_FATAL(total == plog_size_bytes(l));
	/* Expected: drop oldest while the total is over 3500. */
	while (want < n - 1 && total > 3500)
		total -= (uint64_t)sizes[want++];
	CU_ASSERT_FATAL(want > 0 && want < n - 1);

	/* A reader that has every segment open before retention runs. */
	CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
	CU_ASSERT_FATAL(plog_reader_read(r, 0, 120, 100, &s) == 0);
	CU_ASSERT(s.first_offset == 0);

	CU_ASSERT_FATAL(plog_retain(l, now_ms(), &deleted) == 0);
	CU_ASSERT(deleted == want);
	CU_ASSERT(plog_segment_count(l) == n - want);
	CU_ASSERT(plog_start_offset(l) == bases[want]);
	CU_ASSERT(plog_end_offset(l) == 120);
	CU_ASSERT(plog_size_bytes(l) == total);
	n2 = segments_on_disk(dir, bases2, sizes2);
	CU_ASSERT_FATAL(n2 == n - want);
	CU_ASSERT(bases2[0] == bases[want]);
	CU_ASSERT(sizes2[n2 - 1] == sizes[n - 1]);

	/* Below the start: ERANGE from the writer and from the reader. */
	errno = 0;
	CU_ASSERT(plog_read(l, bases[want] - 1, 120, 100, &s) == -1 &&
	    errno == ERANGE);
	errno = 0;
	CU_ASSERT(plog_reader_read(r, 0, 120, 100, &s) == -1 && errno == ERANGE);
	errno = 0;
	CU_ASSERT(plog_reader_read(r, bases[want] - 1, 120, 100, &s) == -1 &&
	    errno == ERANGE);
	/* At the start: served. */
	CU_ASSERT_FATAL(plog_read(l, bases[want], 120, 100, &s) == 0);
	CU_ASSERT(s.first_offset == bases[want] && s.len > 0);
	CU_ASSERT_FATAL(plog_reader_read(r, bases[want], 120, 100, &s) == 0);
	CU_ASSERT(s.first_offset == bases[want] && s.len > 0);

	/* Nothing more to do: a second pass deletes nothing. */
	CU_ASSERT_FATAL(plog_retain(l, now_ms(), &deleted) == 0);
	CU_ASSERT(deleted == 0);
	plog_reader_close(r);
	plog_close(l);

	/* The start survives a reopen. */
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	CU_ASSERT(plog_start_offset(l) == bases[want]);
	CU_ASSERT(plog_end_offset(l) == 120);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

/*
 * By the time index: segment k holds the batches whose first offset lies
 * in [bases[k], bases[k+1]); its max timestamp is what its last batch
 * carries.  The layout is learnt from a first log (timestamps do not
 * change batch sizes), then a second one gets the timestamps.
 */
static void
test_by_age(void)
{
	struct plog_config cfg = { 1000, 4096, -1, 3600 * 1000, 0, 0 };
	struct plog_recovery rec;
	struct plog *l;
	int64_t bases[NSEG_MAX], bases2[NSEG_MAX], ts[40], now = now_ms();
	off_t sizes[NSEG_MAX];
	int n, i, k, deleted;
	char *dir = test_mkdtemp("retagets");

	l = make_log(dir, &cfg);
	n = segments_on_disk(dir, bases, sizes);
	plog_close(l);
	test_rmtree(dir);
	CU_ASSERT_FATAL(n > 5);
	/* The oldest three two hours old, the fourth exactly one, new after. */
	for (i = 0; i < 40; i++) {
		for (k = 0; k + 1 < n && bases[k + 1] <= 3 * i; k++)
			;
		ts[i] = k < 3 ? now - 7200 * 1000 - (3 - k) * 1000 :
		    k == 3 ? now - 3600 * 1000 : now - 1000;
	}
	l = make_log_ts(dir, &cfg, ts);
	CU_ASSERT_FATAL(segments_on_disk(dir, bases2, sizes) == n);
	CU_ASSERT_FATAL(memcmp(bases, bases2, (size_t)n * sizeof(*bases)) == 0);
	/* File times say nothing: every file is new. */
	CU_ASSERT_FATAL(plog_retain(l, now, &deleted) == 0);
	CU_ASSERT(deleted == 3);
	CU_ASSERT(plog_start_offset(l) == bases[3]);
	CU_ASSERT_FATAL(plog_retain(l, now, &deleted) == 0);
	CU_ASSERT(deleted == 0);
	plog_close(l);

	/* The max timestamps survive a restart, time indexes deleted too. */
	for (i = 3; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%020lld.timeindex", dir,
		    (long long)bases[i]);
		CU_ASSERT_FATAL(unlink(path) == 0);
	}
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.timeindex_rebuilt == 1);
	CU_ASSERT_FATAL(plog_retain(l, now, &deleted) == 0);
	CU_ASSERT(deleted == 0);
	/* One millisecond later the fourth is older than an hour. */
	CU_ASSERT_FATAL(plog_retain(l, now + 1, &deleted) == 0);
	CU_ASSERT(deleted == 1);
	CU_ASSERT(plog_start_offset(l) == bases[4]);
	/* In two hours all but the active one. */
	CU_ASSERT_FATAL(plog_retain(l, now + 7200 * 1000, &deleted) == 0);
	CU_ASSERT(deleted == n - 5);
	CU_ASSERT(plog_start_offset(l) == bases[n - 1]);
	CU_ASSERT(segments_on_disk(dir, bases2, sizes) == 1);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

/* Batches without timestamps (-1): the file time decides. */
static void
test_by_age_mtime(void)
{
	struct plog_config cfg = { 1000, 4096, -1, 3600 * 1000, 0, 0 };
	struct plog_slice s;
	struct plog *l;
	int64_t bases[NSEG_MAX], ts[40], now = now_ms();
	off_t sizes[NSEG_MAX];
	int n, i, deleted;
	char *dir = test_mkdtemp("retage");

	for (i = 0; i < 40; i++)
		ts[i] = -1;
	l = make_log_ts(dir, &cfg, ts);
	n = segments_on_disk(dir, bases, sizes);
	/* The oldest three are two hours old, the fourth exactly one. */
	for (i = 0; i < n; i++)
		set_mtime(dir, bases[i], i < 3 ? now - 7200 * 1000 :
		    i == 3 ? now - 3600 * 1000 : now - 1000);
	CU_ASSERT_FATAL(plog_retain(l, now, &deleted) == 0);
	CU_ASSERT(deleted == 3);
	CU_ASSERT(plog_start_offset(l) == bases[3]);
	CU_ASSERT(plog_segment_count(l) == n - 3);
	errno = 0;
	CU_ASSERT(plog_read(l, bases[3] - 1, 120, 100, &s) == -1 &&
	    errno == ERANGE);
	/* One millisecond later the fourth is older than an hour. */
	CU_ASSERT_FATAL(plog_retain(l, now + 1, &deleted) == 0);
	CU_ASSERT(deleted == 1);
	CU_ASSERT(plog_start_offset(l) == bases[4]);

	/* Everything old, the active segment too: the active one stays. */
	for (i = 4; i < n; i++)
		set_mtime(dir, bases[i], now - 7200 * 1000);
	CU_ASSERT_FATAL(plog_retain(l, now, &deleted) == 0);
	CU_ASSERT(deleted == n - 5);
	CU_ASSERT(plog_segment_count(l) == 1);
	CU_ASSERT(plog_start_offset(l) == bases[n - 1]);
	CU_ASSERT(plog_end_offset(l) == 120);
	CU_ASSERT(segments_on_disk(dir, bases, sizes) == 1);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

/* retention_bytes 0 keeps only the active segment; -1/-1 keeps all. */
static void
test_active_kept(void)
{
	struct plog_config keep = { 1000, 4096, -1, -1, 0, 0 };
	struct plog_config none = { 1000, 4096, 0, 0, 0, 0 };
	struct plog_reader *r;
	struct plog_slice s;
	struct plog *l;
	int64_t bases[NSEG_MAX];
	off_t sizes[NSEG_MAX];
	int n, deleted;
	char *dir = test_mkdtemp("retactive");

	l = make_log(dir, &keep);
	n = segments_on_disk(dir, bases, sizes);
	CU_ASSERT_FATAL(plog_retain(l, now_ms() + 86400000, &deleted) == 0);
	CU_ASSERT(deleted == 0);
	CU_ASSERT(plog_segment_count(l) == n);
	plog_close(l);

	CU_ASSERT_FATAL(plog_open(&l, dir, &none, NULL) == 0);
	CU_ASSERT_FATAL(plog_retain(l, now_ms(), &deleted) == 0);
	CU_ASSERT(deleted == n - 1);
	CU_ASSERT(plog_segment_count(l) == 1);
	CU_ASSERT(plog_start_offset(l) == bases[n - 1]);
	CU_ASSERT(plog_size_bytes(l) == (uint64_t)sizes[n - 1]);
	CU_ASSERT_FATAL(plog_retain(l, now_ms(), &deleted) == 0);
	CU_ASSERT(deleted == 0);
	/* A reader opened now sees only the active segment. */
	CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
	errno = 0;
	CU_ASSERT(plog_reader_read(r, 0, 120, 100, &s) == -1 && errno == ERANGE);
	CU_ASSERT_FATAL(plog_reader_read(r, 119, 120, 100, &s) == 0);
	CU_ASSERT(s.next_offset == 120 && s.len > 0);
	plog_reader_close(r);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

TEST_SUITE("retention", NULL, NULL,
    { "by size", test_by_size },
    { "by age", test_by_age },
    { "by age, no timestamps", test_by_age_mtime },
    { "active segment kept", test_active_kept });
