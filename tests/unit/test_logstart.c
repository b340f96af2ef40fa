/*
 * DeleteRecords in the store: the log-start file (store/logstart.h) and
 * plog_delete_below() (store/plog.h): a start inside a segment is kept
 * exactly, the segments wholly below it are removed (never the active
 * one), reads below it are refused, and a reopened log starts there; a
 * damaged file is refused and reported, retention still works.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "store/logstart.h"
#include "store/plog.h"
#include "tests/harness.h"

/* 10 batches of one 600-byte record each: with 2 KiB segments, 4 segments. */
#define NBATCH	10

static struct plog_config cfg = { 2048, 4096, -1, -1, 0, 0 };

static void
fill(struct plog *l, int n)
{
	struct batch_builder b;
	const uint8_t *out;
	uint8_t val[600], *copy;
	size_t outlen;
	int64_t base;
	int i;

	memset(val, 'x', sizeof(val));
	batch_builder_init(&b);
	for (i = 0; i < n; i++) {
		batch_builder_reset(&b);
		CU_ASSERT_FATAL(batch_builder_add(&b, 1000 + i, NULL, 0, val,
		    sizeof(val), NULL, 0) == 0);
		CU_ASSERT_FATAL(batch_builder_close(&b, &out, &outlen) == 0);
		CU_ASSERT_FATAL((copy = malloc(outlen)) != NULL);
		memcpy(copy, out, outlen);
		CU_ASSERT_FATAL(plog_append(l, copy, outlen, &base) == 0);
		free(copy);
	}
	batch_builder_free(&b);
}

/* Whether dir/<20-digit base>.log exists. */
static int
has_segment(const char *dir, long long base)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%020lld.log", dir, base);
	return access(path, F_OK) == 0;
}

static void
test_file(void)
{
	char *dir = test_mkdtemp("logstart"), path[1024];
	int64_t off = 5;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	CU_ASSERT_EQUAL(logstart_load(dir, &off), 0);
	CU_ASSERT_EQUAL(off, -1);
	CU_ASSERT_EQUAL(logstart_save(dir, 1234567890123LL), 0);
	CU_ASSERT_EQUAL(logstart_load(dir, &off), 0);
	CU_ASSERT_EQUAL(off, 1234567890123LL);
	CU_ASSERT_EQUAL(logstart_save(dir, -1), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* One byte changed: refused. */
	snprintf(path, sizeof(path), "%s/%s", dir, LOGSTART_FILE);
	CU_ASSERT_FATAL((fd = open(path, O_WRONLY)) != -1);
	CU_ASSERT_EQUAL(pwrite(fd, "9", 1, 25), 1);
	close(fd);
	CU_ASSERT_EQUAL(logstart_load(dir, &off), -1);
	CU_ASSERT_EQUAL(errno, EBADMSG);
	test_rmtree(dir);
	free(dir);
}

static void
test_delete_below(void)
{
	char *dir = test_mkdtemp("logstart"), path[1024];
	struct plog_recovery rec;
	struct plog_slice s;
	struct plog *l;
	int deleted = -1, nseg, fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	fill(l, NBATCH);
	nseg = plog_segment_count(l);
	/* 3 batches of ~670 bytes reach 2 KiB: bases 0, 3, 6, 9. */
	CU_ASSERT_EQUAL_FATAL(nseg, 4);
	CU_ASSERT(has_segment(dir, 3) && has_segment(dir, 6));
	/* Past the end: refused, nothing changed. */
	CU_ASSERT_EQUAL(plog_delete_below(l, NBATCH + 1, &deleted), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(plog_start_offset(l), 0);
	/* Inside the third segment (6..8). */
	CU_ASSERT_EQUAL(plog_delete_below(l, 7, &deleted), 0);
	CU_ASSERT_EQUAL(deleted, 2);
	CU_ASSERT_EQUAL(plog_start_offset(l), 7);
	CU_ASSERT_EQUAL(plog_segment_count(l), 2);
	CU_ASSERT(!has_segment(dir, 0) && !has_segment(dir, 3));
	CU_ASSERT(has_segment(dir, 6) && has_segment(dir, 9));
	CU_ASSERT_EQUAL(plog_read(l, 6, NBATCH, 1 << 20, &s), -1);
	CU_ASSERT_EQUAL(errno, ERANGE);
	CU_ASSERT_EQUAL(plog_read(l, 7, NBATCH, 1, &s), 0);
	CU_ASSERT_EQUAL(s.first_offset, 7);
	/* Below the start: nothing. */
	CU_ASSERT_EQUAL(plog_delete_below(l, 2, &deleted), 0);
	CU_ASSERT_EQUAL(deleted, 0);
	CU_ASSERT_EQUAL(plog_start_offset(l), 7);
	plog_close(l);
	/* Reopened: exact, not the segment's base. */
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, &rec), 0);
	CU_ASSERT_EQUAL(rec.logstart_bad, 0);
	CU_ASSERT_EQUAL(plog_start_offset(l), 7);
	CU_ASSERT_EQUAL(plog_end_offset(l), NBATCH);
	/* The end: the active segment stays, the start is the end. */
	CU_ASSERT_EQUAL(plog_delete_below(l, NBATCH, &deleted), 0);
	CU_ASSERT_EQUAL(deleted, 1);
	CU_ASSERT_EQUAL(plog_start_offset(l), NBATCH);
	CU_ASSERT_EQUAL(plog_segment_count(l), 1);
	CU_ASSERT(has_segment(dir, 9));
	fill(l, 1);
	CU_ASSERT_EQUAL(plog_read(l, NBATCH, NBATCH + 1, 1, &s), 0);
	CU_ASSERT_EQUAL(s.first_offset, NBATCH);
	plog_close(l);
	/* A damaged file: reported, the oldest segment's base then. */
	snprintf(path, sizeof(path), "%s/%s", dir, LOGSTART_FILE);
	CU_ASSERT_FATAL((fd = open(path, O_WRONLY | O_TRUNC)) != -1);
	CU_ASSERT_EQUAL(write(fd, "junk\n", 5), 5);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, &rec), 0);
	CU_ASSERT_EQUAL(rec.logstart_bad, 1);
	CU_ASSERT_EQUAL(plog_start_offset(l), 9);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

/*
 * A start beyond what a power loss left (the log ends before it) is the
 * end; segments a crash left below the start are removed by the next
 * call; retention past the start takes the start with it.
 */
static void
test_start_bounds(void)
{
	char *dir = test_mkdtemp("logstart");
	struct plog_config rcfg = cfg;
	struct plog *l;
	int deleted = -1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	fill(l, NBATCH);
	plog_close(l);
	CU_ASSERT_EQUAL(logstart_save(dir, 50), 0);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	CU_ASSERT_EQUAL(plog_start_offset(l), NBATCH);
	plog_close(l);
	/* A crash after the file, before the segments went: they go now. */
	CU_ASSERT_EQUAL(logstart_save(dir, 7), 0);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	CU_ASSERT_EQUAL(plog_start_offset(l), 7);
	CU_ASSERT_EQUAL(plog_segment_count(l), 4);
	CU_ASSERT_EQUAL(plog_delete_below(l, 0, &deleted), 0);
	CU_ASSERT_EQUAL(deleted, 2);
	CU_ASSERT_EQUAL(plog_start_offset(l), 7);
	CU_ASSERT(!has_segment(dir, 0) && !has_segment(dir, 3));
	CU_ASSERT(has_segment(dir, 6));
	plog_close(l);
	/* A fresh log of the same 4 segments for retention. */
	test_rmtree(dir);
	free(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir = test_mkdtemp("logstart"));
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	fill(l, NBATCH);
	plog_close(l);
	CU_ASSERT_EQUAL(logstart_save(dir, 4), 0);
	/* Retention by size keeps the last two segments (6.., 9..). */
	rcfg.retention_bytes = 3000;
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &rcfg, NULL), 0);
	CU_ASSERT_EQUAL(plog_start_offset(l), 4);
	CU_ASSERT_EQUAL(plog_retain(l, 0, &deleted), 0);
	CU_ASSERT_EQUAL(deleted, 2);
	CU_ASSERT_EQUAL(plog_start_offset(l), 6);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

TEST_SUITE("logstart", NULL, NULL,
    { "the log-start file: saved, loaded, damage refused", test_file },
    { "plog_delete_below: exact start, segments below removed, reopened",
	test_delete_below },
    { "a start past the end, a crash's leftovers, retention past the start",
	test_start_bounds });
