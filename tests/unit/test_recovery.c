/*
 * Recovery in plog_open: a torn or corrupt tail is cut at the first bad
 * batch and nothing before it is lost; a bad batch with valid ones behind
 * it is kept and reported, and so are they; a missing, damaged or short index
 * is brought back to exactly what the appends wrote; older segments are
 * trusted and not rescanned.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "store/plog.h"
#include "tests/harness.h"

/* Record id -> value: "v<id>" padded with letters. */
static size_t
make_value(int64_t id, uint8_t *buf, size_t vlen)
{
	char head[32];
	size_t i, n;

	n = (size_t)snprintf(head, sizeof(head), "v%lld", (long long)id);
	for (i = 0; i < vlen; i++)
		buf[i] = i < n ? (uint8_t)head[i] :
		    (uint8_t)('a' + (uint64_t)(id * 7 + (int64_t)i) % 26);
	return vlen;
}

static void
add_batch(struct batch_builder *b, uint8_t **buf, size_t *len, int64_t id,
    int n, size_t vlen)
{
	char key[32];
	uint8_t val[512];
	const uint8_t *out;
	size_t outlen;
	int i, klen;

	batch_builder_reset(b);
	for (i = 0; i < n; i++) {
		klen = snprintf(key, sizeof(key), "k%lld", (long long)(id + i));
		make_value(id + i, val, vlen);
		CU_ASSERT_FATAL(batch_builder_add(b, 1000 + id + i, key, klen,
		    val, (int32_t)vlen, NULL, 0) == 0);
	}
	CU_ASSERT_FATAL(batch_builder_close(b, &out, &outlen) == 0);
	*buf = realloc(*buf, *len + outlen);
	CU_ASSERT_FATAL(*buf != NULL);
	memcpy(*buf + *len, out, outlen);
	*len += outlen;
}

static uint8_t *
file_get(const char *dir, int64_t base, const char *ext, size_t *len)
{
	char path[4096];
	struct stat st;
	uint8_t *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%020lld.%s", dir, (long long)base, ext);
	CU_ASSERT_FATAL((fd = open(path, O_RDONLY)) != -1);
	CU_ASSERT_FATAL(fstat(fd, &st) == 0);
	buf = malloc((size_t)st.st_size + 1);
	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_FATAL(pread(fd, buf, (size_t)st.st_size, 0) == st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static void
file_put(const char *dir, int64_t base, const char *ext, const void *buf,
    size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%020lld.%s", dir, (long long)base, ext);
	CU_ASSERT_FATAL((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) != -1);
	CU_ASSERT_FATAL(write(fd, buf, len) == (ssize_t)len);
	close(fd);
}

static void
file_del(const char *dir, int64_t base, const char *ext)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%020lld.%s", dir, (long long)base, ext);
	CU_ASSERT_FATAL(unlink(path) == 0);
}

/* Everything from offset 0 to end through plog_read equals want. */
static void
check_content(struct plog *l, const uint8_t *want, size_t want_len, int64_t end)
{
	struct plog_slice s;
	uint8_t *got;

	CU_ASSERT_FATAL(plog_end_offset(l) == end);
	if (end == 0) {
		CU_ASSERT(want_len == 0);
		return;
	}
	CU_ASSERT_FATAL(plog_read(l, 0, end, 1 << 20, &s) == 0);
	CU_ASSERT_FATAL(s.pos == 0);
	CU_ASSERT_FATAL(s.len == want_len);
	CU_ASSERT_FATAL(s.next_offset == end);
	got = malloc(s.len);
	CU_ASSERT_FATAL(got != NULL);
	CU_ASSERT_FATAL(pread(s.fd, got, s.len, 0) == (ssize_t)s.len);
	CU_ASSERT_FATAL(memcmp(got, want, s.len) == 0);
	free(got);
}

/*
 * A log of four batches (3, 2, 4, 3 records: offsets 0..11) in one
 * segment; returns the log and index bytes and where the last batch is.
 */
static void
make_log(const char *dir, const struct plog_config *cfg, uint8_t **log,
    size_t *loglen, uint8_t **idx, size_t *idxlen, size_t *last_pos)
{
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL;
	size_t len = 0;
	int64_t base;

	batch_builder_init(&b);
	add_batch(&b, &buf, &len, 0, 3, 30);
	add_batch(&b, &buf, &len, 3, 2, 50);
	add_batch(&b, &buf, &len, 5, 4, 20);
	*last_pos = len;
	add_batch(&b, &buf, &len, 9, 3, 40);
	CU_ASSERT_FATAL(plog_open(&l, dir, cfg, NULL) == 0);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT_FATAL(plog_end_offset(l) == 12);
	plog_close(l);
	*log = file_get(dir, 0, "log", loglen);
	*idx = file_get(dir, 0, "index", idxlen);
	CU_ASSERT_FATAL(*loglen == len);
	free(buf);
	batch_builder_free(&b);
}

/*
 * Cut the last batch at every byte (interval 1: every batch indexed, the
 * scan starts at the torn batch's own entry; interval 4096: only the
 * first is, the scan starts at 0).  Recovery keeps exactly the first
 * three batches, reports the bytes it dropped, removes index entries past
 * the cut, and the next append gets offset 9.
 */
static void
test_truncate_every_byte(void)
{
	struct plog_config cfgs[2] = {
		{ 1 << 20, 1, -1, -1, 0, 0 }, { 1 << 20, 4096, -1, -1, 0, 0 } };
	struct plog_recovery rec;
	struct batch_builder b;
	struct plog *l;
	uint8_t *log, *idx, *nb = NULL, *idx2;
	size_t loglen, idxlen, last_pos, cut, nblen = 0, idx2len, keep_idx;
	int64_t base;
	int c;
	char *dir;

	batch_builder_init(&b);
	add_batch(&b, &nb, &nblen, 9, 2, 10);
	for (c = 0; c < 2; c++) {
		dir = test_mkdtemp("trunc");
		make_log(dir, &cfgs[c], &log, &loglen, &idx, &idxlen, &last_pos);
		CU_ASSERT_FATAL(idxlen == (c == 0 ? 32u : 8u));
		keep_idx = c == 0 ? 24 : 8;
		for (cut = last_pos; cut < loglen; cut++) {
			file_put(dir, 0, "log", log, cut);
			file_put(dir, 0, "index", idx, idxlen);
			CU_ASSERT_FATAL(plog_open(&l, dir, &cfgs[c], &rec) == 0);
			CU_ASSERT_FATAL(rec.segments == 1);
			CU_ASSERT_FATAL(rec.truncated_bytes == cut - last_pos);
			CU_ASSERT_FATAL(rec.index_rebuilt == 0);
			check_content(l, log, last_pos, 9);
			idx2 = file_get(dir, 0, "index", &idx2len);
			CU_ASSERT_FATAL(idx2len == keep_idx);
			CU_ASSERT_FATAL(memcmp(idx2, idx, keep_idx) == 0);
			free(idx2);
			/* Appends continue where the good data ends. */
			CU_ASSERT_FATAL(plog_append(l, nb, nblen, &base) == 0);
			CU_ASSERT_FATAL(base == 9);
			CU_ASSERT_FATAL(plog_end_offset(l) == 11);
			CU_ASSERT_FATAL(plog_size_bytes(l) == last_pos + nblen);
			plog_close(l);
			CU_ASSERT_FATAL(plog_open(&l, dir, &cfgs[c], &rec) == 0);
			CU_ASSERT_FATAL(rec.truncated_bytes == 0);
			CU_ASSERT_FATAL(plog_end_offset(l) == 11);
			plog_close(l);
		}
		free(log);
		free(idx);
		test_rmtree(dir);
		free(dir);
	}
	free(nb);
	batch_builder_free(&b);
}

/*
 * Flip one byte of the last batch: anything the CRC, the length, the
 * magic or the offset check covers cuts the batch; partitionLeaderEpoch
 * (bytes 12-15) is covered by nothing, as in Kafka, and is kept.
 */
static void
test_crc_flip(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct plog *l;
	uint8_t *log, *idx;
	size_t loglen, idxlen, last_pos, i;
	int epoch;
	char *dir = test_mkdtemp("flip");

	make_log(dir, &cfg, &log, &loglen, &idx, &idxlen, &last_pos);
	for (i = last_pos; i < loglen; i++) {
		epoch = i - last_pos >= BATCH_OFF_EPOCH &&
		    i - last_pos < BATCH_OFF_MAGIC;
		log[i] ^= 0x5a;
		file_put(dir, 0, "log", log, loglen);
		file_put(dir, 0, "index", idx, idxlen);
		log[i] ^= 0x5a;
		CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
		if (epoch) {
			CU_ASSERT_FATAL(rec.truncated_bytes == 0);
			CU_ASSERT_FATAL(plog_end_offset(l) == 12);
		} else {
			CU_ASSERT_FATAL(rec.truncated_bytes == loglen - last_pos);
			check_content(l, log, last_pos, 9);
		}
		plog_close(l);
	}
	free(log);
	free(idx);
	test_rmtree(dir);
	free(dir);
}

/* The index entries of segment 0 as (rel, pos) pairs; their count. */
static size_t
index_entries(const char *dir, uint32_t *e, size_t max)
{
	uint8_t *idx;
	size_t len, i;

	idx = file_get(dir, 0, "index", &len);
	for (i = 0; i < len / 8 && i < max; i++) {
		e[2 * i] = (uint32_t)idx[8 * i] << 24 | (uint32_t)idx[8 * i + 1] << 16 |
		    (uint32_t)idx[8 * i + 2] << 8 | idx[8 * i + 3];
		e[2 * i + 1] = (uint32_t)idx[8 * i + 4] << 24 |
		    (uint32_t)idx[8 * i + 5] << 16 | (uint32_t)idx[8 * i + 6] << 8 |
		    idx[8 * i + 7];
	}
	free(idx);
	return len / 8;
}

/*
 * Every byte of the second of four batches (offsets 3..4) flipped in
 * turn, index removed: the batches after it are kept, the damage is
 * reported as offsets 3..4 at its exact bytes, the index points past it,
 * and a read of it fails with EBADMSG where the header shows the damage
 * (CRC damage is for the client's CRC check: the read serves it as is).
 */
static void
test_damage_kept(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct plog_slice s;
	struct batch_header h;
	struct plog *l;
	uint8_t *log, *idx;
	uint32_t e[8];
	size_t loglen, idxlen, last_pos, p1, p2, i;
	int header, rc;
	char *dir = test_mkdtemp("damage");

	make_log(dir, &cfg, &log, &loglen, &idx, &idxlen, &last_pos);
	CU_ASSERT_FATAL(batch_parse_header(log, loglen, &h) == BATCH_OK);
	p1 = batch_total_size(&h);
	CU_ASSERT_FATAL(batch_parse_header(log + p1, loglen - p1, &h) == BATCH_OK);
	p2 = p1 + batch_total_size(&h);
	for (i = p1; i < p2; i++) {
		if (i - p1 >= BATCH_OFF_EPOCH && i - p1 < BATCH_OFF_MAGIC)
			continue;	/* partitionLeaderEpoch: covered by nothing */
		/* What a read checks: offsets, length, magic. */
		header = i - p1 <= BATCH_OFF_MAGIC ||
		    (i - p1 >= BATCH_OFF_LAST_DELTA &&
		    i - p1 < BATCH_OFF_LAST_DELTA + 4);
		log[i] ^= 0x5a;
		file_put(dir, 0, "log", log, loglen);
		log[i] ^= 0x5a;
		file_del(dir, 0, "index");
		CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
		CU_ASSERT_EQUAL(rec.truncated_bytes, 0);
		CU_ASSERT_EQUAL_FATAL(rec.ncorrupt, 1);
		CU_ASSERT_EQUAL(rec.corrupt[0].first_offset, 3);
		CU_ASSERT_EQUAL(rec.corrupt[0].next_offset, 5);
		CU_ASSERT_EQUAL(rec.corrupt[0].segment, 0);
		CU_ASSERT_EQUAL(rec.corrupt[0].pos, p1);
		CU_ASSERT_EQUAL(rec.corrupt[0].end, p2);
		CU_ASSERT_EQUAL(plog_end_offset(l), 12);
		/* (0, 0), then the batch after the damage; nothing inside it. */
		CU_ASSERT_EQUAL_FATAL(index_entries(dir, e, 4), 2);
		CU_ASSERT(e[0] == 0 && e[1] == 0);
		CU_ASSERT(e[2] == 5 && e[3] == p2);
		/* After the damage: every batch from there. */
		CU_ASSERT_FATAL(plog_read(l, 5, 12, 1 << 20, &s) == 0);
		CU_ASSERT(s.pos == (off_t)p2 && s.len == loglen - p2 &&
		    s.first_offset == 5 && s.next_offset == 12);
		/* Before it: the first batch alone, whole. */
		CU_ASSERT_FATAL(plog_read(l, 0, 12, 1 << 20, &s) == 0);
		if (header)
			CU_ASSERT(s.pos == 0 && s.len == p1 && s.next_offset == 3);
		rc = plog_read(l, 4, 12, 1 << 20, &s);
		if (header) {
			CU_ASSERT(rc == -1 && errno == EBADMSG);
			CU_ASSERT(s.first_offset == 3 && s.next_offset == 5 &&
			    s.pos == (off_t)p1 && s.segment == 0);
		} else
			CU_ASSERT(rc == 0 && s.pos == (off_t)p1 &&
			    s.first_offset == 3);
		plog_close(l);
		/* A second open has nothing new to say. */
		CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
		CU_ASSERT_EQUAL(rec.ncorrupt, 0);
		CU_ASSERT_EQUAL(rec.truncated_bytes, 0);
		CU_ASSERT_EQUAL(rec.index_rebuilt, 0);
		CU_ASSERT_EQUAL(plog_end_offset(l), 12);
		plog_close(l);
	}
	free(log);
	free(idx);
	test_rmtree(dir);
	free(dir);
}

/*
 * The first batch damaged and the last one torn: the damage is kept and
 * reported, the torn tail truncated, the index still starts at (0, 0).
 */
static void
test_damage_and_torn_tail(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct batch_header h;
	struct plog *l;
	uint8_t *log, *idx;
	uint32_t e[8];
	size_t loglen, idxlen, last_pos, p1;
	char *dir = test_mkdtemp("damagetorn");

	make_log(dir, &cfg, &log, &loglen, &idx, &idxlen, &last_pos);
	CU_ASSERT_FATAL(batch_parse_header(log, loglen, &h) == BATCH_OK);
	p1 = batch_total_size(&h);
	log[BATCH_HEADER_SIZE + 3] ^= 0x01;
	file_put(dir, 0, "log", log, last_pos + 20);
	file_del(dir, 0, "index");
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT_EQUAL(rec.truncated_bytes, 20);
	CU_ASSERT_EQUAL_FATAL(rec.ncorrupt, 1);
	CU_ASSERT_EQUAL(rec.corrupt[0].first_offset, 0);
	CU_ASSERT_EQUAL(rec.corrupt[0].next_offset, 3);
	CU_ASSERT_EQUAL(rec.corrupt[0].pos, 0);
	CU_ASSERT_EQUAL(rec.corrupt[0].end, p1);
	CU_ASSERT_EQUAL(plog_end_offset(l), 9);
	CU_ASSERT_EQUAL_FATAL(index_entries(dir, e, 4), 2);
	CU_ASSERT(e[0] == 0 && e[1] == 0);
	CU_ASSERT(e[2] == 3 && e[3] == p1);
	plog_close(l);
	/* The index it wrote is one a later open accepts. */
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT_EQUAL(rec.index_rebuilt, 0);
	CU_ASSERT_EQUAL(rec.truncated_bytes, 0);
	CU_ASSERT_EQUAL(plog_end_offset(l), 9);
	plog_close(l);
	free(log);
	free(idx);
	test_rmtree(dir);
	free(dir);
}

/*
 * An older segment cut short (its tail lost) leaves offsets that are in
 * no file: a reader reports them as damage up to the next segment, not
 * as "nothing yet".
 */
static void
test_cut_older_segment(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog_reader *rd;
	struct plog_slice s;
	struct plog *l;
	uint8_t *buf = NULL, *log;
	size_t len = 0, loglen, p1;
	int64_t base;
	char *dir = test_mkdtemp("cut");
	struct batch_header h;

	/* Segment 0: offsets 0..4 in two batches; segment 5: 5..7. */
	batch_builder_init(&b);
	add_batch(&b, &buf, &len, 0, 3, 30);
	add_batch(&b, &buf, &len, 3, 2, 30);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	plog_close(l);
	cfg.segment_bytes = len;	/* the next append rolls */
	len = 0;
	add_batch(&b, &buf, &len, 5, 3, 30);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT_FATAL(plog_segment_count(l) == 2);
	plog_close(l);
	/* Lose the second batch of segment 0. */
	log = file_get(dir, 0, "log", &loglen);
	CU_ASSERT_FATAL(batch_parse_header(log, loglen, &h) == BATCH_OK);
	p1 = batch_total_size(&h);
	file_put(dir, 0, "log", log, p1);
	CU_ASSERT_FATAL(plog_reader_open(&rd, dir) == 0);
	CU_ASSERT_FATAL(plog_reader_read(rd, 0, 8, 1 << 20, &s) == 0);
	CU_ASSERT(s.len == p1 && s.next_offset == 3);
	CU_ASSERT_EQUAL(plog_reader_read(rd, 3, 8, 1 << 20, &s), -1);
	CU_ASSERT_EQUAL(errno, EBADMSG);
	CU_ASSERT(s.first_offset == 3 && s.next_offset == 5 && s.segment == 0);
	CU_ASSERT_EQUAL(s.corrupt_new, 1);
	CU_ASSERT_EQUAL(plog_reader_read(rd, 4, 8, 1 << 20, &s), -1);
	CU_ASSERT(s.first_offset == 4 && s.next_offset == 5);
	CU_ASSERT_EQUAL(plog_reader_read(rd, 3, 8, 1 << 20, &s), -1);
	CU_ASSERT_EQUAL(s.corrupt_new, 0);	/* reported once */
	CU_ASSERT_FATAL(plog_reader_read(rd, 5, 8, 1 << 20, &s) == 0);
	CU_ASSERT(s.first_offset == 5 && s.next_offset == 8 && s.pos == 0);
	plog_reader_close(rd);
	free(log);
	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* Junk after the last batch, and a valid batch with the wrong offsets. */
static void
test_bad_tail(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct plog *l;
	uint8_t *log, *idx, *bad;
	size_t loglen, idxlen, last_pos;
	char *dir = test_mkdtemp("badtail");

	make_log(dir, &cfg, &log, &loglen, &idx, &idxlen, &last_pos);
	bad = calloc(1, loglen + last_pos);
	CU_ASSERT_FATAL(bad != NULL);
	/* 100 zero bytes, as a crash that extended the file may leave. */
	memcpy(bad, log, loglen);
	file_put(dir, 0, "log", bad, loglen + 100);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.truncated_bytes == 100);
	check_content(l, log, loglen, 12);
	plog_close(l);
	/* The first batches again after the end: offsets do not continue. */
	memcpy(bad + loglen, log, last_pos);
	file_put(dir, 0, "log", bad, loglen + last_pos);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.truncated_bytes == last_pos);
	check_content(l, log, loglen, 12);
	plog_close(l);
	/* A first batch that is bad: the segment is emptied, offsets restart at its base. */
	memset(bad, 0xff, loglen);
	file_put(dir, 0, "log", bad, loglen);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.truncated_bytes == loglen);
	CU_ASSERT(plog_end_offset(l) == 0);
	CU_ASSERT(plog_size_bytes(l) == 0);
	plog_close(l);
	free(bad);
	free(log);
	free(idx);
	test_rmtree(dir);
	free(dir);
}

/* Missing, damaged, torn and short indexes of the last segment. */
static void
test_index_repair(void)
{
	struct plog_config cfg = { 1 << 20, 1, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct plog *l;
	uint8_t *log, *idx, *idx2, junk[40];
	size_t loglen, idxlen, last_pos, idx2len;
	int k;
	char *dir = test_mkdtemp("index");

	make_log(dir, &cfg, &log, &loglen, &idx, &idxlen, &last_pos);
	CU_ASSERT_FATAL(idxlen == 32);
	for (k = 0; k < 5; k++) {
		switch (k) {
		case 0:		/* missing */
			file_del(dir, 0, "index");
			break;
		case 1:		/* entries out of order */
			memcpy(junk, idx + 16, 8);
			memcpy(junk + 8, idx + 8, 8);
			memcpy(junk + 16, idx, 8);
			file_put(dir, 0, "index", junk, 24);
			break;
		case 2:		/* torn: not a whole number of entries */
			file_put(dir, 0, "index", idx, 29);
			break;
		case 3:		/* the newest entry points into a batch */
			memcpy(junk, idx, 32);
			junk[31] ^= 0x01;	/* low byte of its position */
			file_put(dir, 0, "index", junk, 32);
			break;
		case 4:		/* random bytes */
			test_fill_random(junk, sizeof(junk));
			file_put(dir, 0, "index", junk, sizeof(junk));
			break;
		}
		CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
		CU_ASSERT(rec.index_rebuilt == 1);
		CU_ASSERT(rec.truncated_bytes == 0);
		check_content(l, log, loglen, 12);
		plog_close(l);
		/* Rebuilt to exactly what the appends had written. */
		idx2 = file_get(dir, 0, "index", &idx2len);
		CU_ASSERT(idx2len == idxlen && memcmp(idx2, idx, idxlen) == 0);
		free(idx2);
	}

	/*
	 * An older entry pointing into a batch is beyond the cheap checks
	 * of open; a reader that lands on it falls back to a scan from the
	 * start of the segment and still finds the right batch.
	 */
	{
		struct plog_reader *r;
		struct plog_slice s;

		memcpy(junk, idx, 32);
		junk[15] ^= 0x01;	/* low byte of the 2nd entry's position */
		file_put(dir, 0, "index", junk, 32);
		CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
		CU_ASSERT_FATAL(plog_reader_read(r, 4, 12, 0, &s) == 0);
		CU_ASSERT(s.first_offset == 3);
		CU_ASSERT(s.next_offset == 5);
		CU_ASSERT(s.len > 0 && s.pos > 0 && (size_t)s.pos < last_pos);
		CU_ASSERT(memcmp(idx + 12, (uint8_t[]){ (uint8_t)(s.pos >> 24),
		    (uint8_t)(s.pos >> 16), (uint8_t)(s.pos >> 8),
		    (uint8_t)s.pos }, 4) == 0);
		plog_reader_close(r);
	}

	/* The writer died between the log write and the index write. */
	file_put(dir, 0, "index", idx, 16);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.index_rebuilt == 0);
	CU_ASSERT(rec.truncated_bytes == 0);
	plog_close(l);
	idx2 = file_get(dir, 0, "index", &idx2len);
	CU_ASSERT(idx2len == idxlen && memcmp(idx2, idx, idxlen) == 0);
	free(idx2);

	/*
	 * The log lost its last batch but the index kept its entry (page
	 * cache lost unevenly): the entry goes, nothing else changes.
	 */
	file_put(dir, 0, "log", log, last_pos);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.index_rebuilt == 0);
	CU_ASSERT(rec.truncated_bytes == 0);
	check_content(l, log, last_pos, 9);
	plog_close(l);
	idx2 = file_get(dir, 0, "index", &idx2len);
	CU_ASSERT(idx2len == 24 && memcmp(idx2, idx, 24) == 0);
	free(idx2);

	free(log);
	free(idx);
	test_rmtree(dir);
	free(dir);
}

/*
 * Several segments: an older segment's missing or damaged index is
 * rebuilt to the same bytes; an older segment's data is trusted (a
 * flipped byte there is not looked at on open).
 */
static void
test_older_segments(void)
{
	struct plog_config cfg = { 2000, 300, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL, *idx0, *idx1, *x, *log0;
	size_t len = 0, idx0len, idx1len, xlen, log0len;
	int64_t base, seg1;
	int i, segs;
	char *dir = test_mkdtemp("older");

	batch_builder_init(&b);
	for (i = 0; i < 30; i++)
		add_batch(&b, &buf, &len, i * 3, 3, 30);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	segs = plog_segment_count(l);
	CU_ASSERT_FATAL(segs >= 3);
	plog_close(l);

	idx0 = file_get(dir, 0, "index", &idx0len);
	CU_ASSERT_FATAL(idx0len >= 16);
	/* Find the second segment's base: the first offset segment 0 lacks. */
	{
		struct plog_slice s;

		CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
		CU_ASSERT_FATAL(plog_read(l, 0, 90, 1 << 20, &s) == 0);
		seg1 = s.next_offset;
		plog_close(l);
	}
	idx1 = file_get(dir, seg1, "index", &idx1len);

	file_del(dir, 0, "index");
	file_put(dir, seg1, "index", idx1, idx1len - 3);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.segments == segs);
	CU_ASSERT(rec.index_rebuilt == 1);
	CU_ASSERT(rec.truncated_bytes == 0);
	CU_ASSERT(plog_end_offset(l) == 90);
	plog_close(l);
	x = file_get(dir, 0, "index", &xlen);
	CU_ASSERT(xlen == idx0len && memcmp(x, idx0, xlen) == 0);
	free(x);
	x = file_get(dir, seg1, "index", &xlen);
	CU_ASSERT(xlen == idx1len && memcmp(x, idx1, xlen) == 0);
	free(x);

	/* A corrupt byte inside segment 0: not the tail, not rescanned. */
	log0 = file_get(dir, 0, "log", &log0len);
	log0[log0len - 5] ^= 0xff;
	file_put(dir, 0, "log", log0, log0len);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.truncated_bytes == 0);
	CU_ASSERT(rec.index_rebuilt == 0);
	CU_ASSERT(plog_end_offset(l) == 90);
	CU_ASSERT(plog_segment_count(l) == segs);
	plog_close(l);

	free(log0);
	free(idx0);
	free(idx1);
	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* The last segment is empty after a roll that wrote nothing yet. */
static void
test_empty_last(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL;
	size_t len = 0;
	int64_t base;
	char *dir = test_mkdtemp("emptylast");

	batch_builder_init(&b);
	add_batch(&b, &buf, &len, 0, 5, 10);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	plog_close(l);
	file_put(dir, 5, "log", "", 0);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.segments == 2);
	CU_ASSERT(rec.index_rebuilt == 0);
	CU_ASSERT(plog_end_offset(l) == 5);
	CU_ASSERT(plog_start_offset(l) == 0);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT(base == 5);
	CU_ASSERT(plog_segment_count(l) == 2);
	plog_close(l);
	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

TEST_SUITE("recovery", NULL, NULL,
    { "truncate last batch at every byte", test_truncate_every_byte },
    { "flip a byte of the last batch", test_crc_flip },
    { "junk and foreign batches after the end", test_bad_tail },
    { "index missing, damaged, short", test_index_repair },
    { "older segments", test_older_segments },
    { "empty last segment", test_empty_last },
    { "a damaged batch is kept with the batches after it", test_damage_kept },
    { "damage kept, torn tail cut", test_damage_and_torn_tail },
    { "an older segment cut short", test_cut_older_segment });
