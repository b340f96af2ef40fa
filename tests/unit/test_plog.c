/*
 * The partition log: appends, offsets, rolling, reads through the writer
 * and through a read-only reader, index lookups against a linear scan of
 * the files, one write per append, a full disk in the middle of an
 * append leaving the log exactly as it was, and early writeback requests.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "store/io.h"
#include "store/plog.h"
#include "tests/harness.h"

/* Value bytes for record id: "v<id>" then letters derived from id. */
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

/* Value length used for record id in the tests that vary it. */
static size_t
value_len(int64_t id, size_t base)
{
	return base + (size_t)(id % 13);
}

/* Append to *buf one batch of n records for ids id.. (key "k<id>"). */
static void
add_batch(struct batch_builder *b, uint8_t **buf, size_t *len, int64_t id,
    int n, size_t vbase)
{
	char key[32];
	uint8_t val[512];
	const uint8_t *out;
	size_t outlen, vlen;
	int i, klen;

	batch_builder_reset(b);
	for (i = 0; i < n; i++) {
		klen = snprintf(key, sizeof(key), "k%lld", (long long)(id + i));
		vlen = make_value(id + i, val, value_len(id + i, vbase));
		CU_ASSERT_FATAL(batch_builder_add(b, 1000 + id + i, key, klen,
		    val, (int32_t)vlen, NULL, 0) == 0);
	}
	CU_ASSERT_FATAL(batch_builder_close(b, &out, &outlen) == 0);
	*buf = realloc(*buf, *len + outlen);
	CU_ASSERT_FATAL(*buf != NULL);
	memcpy(*buf + *len, out, outlen);
	*len += outlen;
}

/*
 * Check that the batches in buf[0..len) are whole, valid, start at
 * *expect and carry the records add_batch wrote; advance *expect.
 */
static void
check_batches(const uint8_t *buf, size_t len, int64_t *expect, size_t vbase)
{
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	char key[32];
	uint8_t val[512];
	size_t pos = 0, tot, vlen;
	int klen, rc, guard;

	while (pos < len) {
		CU_ASSERT_FATAL(batch_parse_header(buf + pos, len - pos, &h) == BATCH_OK);
		tot = batch_total_size(&h);
		CU_ASSERT_FATAL(tot <= len - pos);
		CU_ASSERT_FATAL(batch_validate(buf + pos, tot, NULL) == BATCH_OK);
		CU_ASSERT_FATAL(h.base_offset == *expect);
		CU_ASSERT_FATAL(batch_iter_init(&it, buf + pos, tot) == BATCH_OK);
		for (guard = 0; guard <= h.records_count; guard++) {
			if ((rc = batch_iter_next(&it, &r)) == 0)
				break;
			CU_ASSERT_FATAL(rc == 1);
			CU_ASSERT_FATAL(r.offset == *expect);
			klen = snprintf(key, sizeof(key), "k%lld", (long long)*expect);
			CU_ASSERT_FATAL(r.key_len == klen);
			CU_ASSERT_FATAL(memcmp(r.key, key, (size_t)klen) == 0);
			vlen = make_value(*expect, val, value_len(*expect, vbase));
			CU_ASSERT_FATAL(r.value_len == (int32_t)vlen);
			CU_ASSERT_FATAL(memcmp(r.value, val, vlen) == 0);
			(*expect)++;
		}
		CU_ASSERT_FATAL(*expect == h.base_offset + h.last_offset_delta + 1);
		pos += tot;
	}
}

/* Read [from, to) through the reader and check every record. */
static void
read_all_reader(const char *dir, int64_t from, int64_t to, size_t max_bytes,
    size_t vbase, int *reads)
{
	struct plog_reader *r;
	struct plog_slice s;
	uint8_t *buf = NULL;
	size_t cap = 0;
	int64_t off = from, expect = from;
	int guard;

	*reads = 0;
	CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
	for (guard = 0; off < to && guard < 10000000; guard++) {
		CU_ASSERT_FATAL(plog_reader_read(r, off, to, max_bytes, &s) == 0);
		CU_ASSERT_FATAL(s.len > 0);
		CU_ASSERT_FATAL(s.first_offset == off);
		if (s.len > cap) {
			cap = s.len;
			buf = realloc(buf, cap);
			CU_ASSERT_FATAL(buf != NULL);
		}
		CU_ASSERT_FATAL(pread(s.fd, buf, s.len, s.pos) == (ssize_t)s.len);
		check_batches(buf, s.len, &expect, vbase);
		CU_ASSERT_FATAL(expect == s.next_offset);
		off = s.next_offset;
		(*reads)++;
	}
	CU_ASSERT(off == to);
	/* At the end: nothing visible, no error. */
	CU_ASSERT(plog_reader_read(r, to, to, max_bytes, &s) == 0);
	CU_ASSERT(s.len == 0);
	CU_ASSERT(s.next_offset == to);
	/* Past the visible end: ERANGE. */
	errno = 0;
	CU_ASSERT(plog_reader_read(r, to + 1, to, max_bytes, &s) == -1);
	CU_ASSERT(errno == ERANGE);
	free(buf);
	plog_reader_close(r);
}

static void
test_append_read(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct batch_builder b;
	struct plog *l;
	struct plog_slice s;
	uint8_t *buf = NULL, rd[8192];
	size_t len = 0, first_len;
	int64_t base, expect;
	char *dir = test_mkdtemp("plog");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.segments == 0);
	CU_ASSERT(rec.truncated_bytes == 0);
	CU_ASSERT(plog_start_offset(l) == 0);
	CU_ASSERT(plog_end_offset(l) == 0);
	CU_ASSERT(plog_segment_count(l) == 1);

	/* One call, three batches (3, 1, 5 records). */
	add_batch(&b, &buf, &len, 0, 3, 20);
	first_len = len;
	add_batch(&b, &buf, &len, 3, 1, 20);
	add_batch(&b, &buf, &len, 4, 5, 20);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT(base == 0);
	CU_ASSERT(plog_end_offset(l) == 9);
	CU_ASSERT(plog_size_bytes(l) == len);

	/* The next append's batch gets offset 9 whatever it said. */
	free(buf);
	buf = NULL;
	len = 0;
	add_batch(&b, &buf, &len, 9, 2, 20);
	batch_set_base_offset(buf, 12345);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT(base == 9);
	CU_ASSERT(plog_end_offset(l) == 11);

	/* Offset 4 is the first record of the third batch. */
	CU_ASSERT_FATAL(plog_read(l, 4, 11, 1, &s) == 0);
	CU_ASSERT(s.first_offset == 4);
	CU_ASSERT(s.next_offset == 9);
	/* Offset 1 is inside the first batch: whole batch from offset 0. */
	CU_ASSERT_FATAL(plog_read(l, 1, 11, 1, &s) == 0);
	CU_ASSERT(s.first_offset == 0);
	CU_ASSERT(s.pos == 0);
	CU_ASSERT(s.len == first_len);
	CU_ASSERT(s.next_offset == 3);
	/* Everything; then only what is visible. */
	CU_ASSERT_FATAL(plog_read(l, 0, 11, sizeof(rd), &s) == 0);
	CU_ASSERT(s.next_offset == 11);
	CU_ASSERT_FATAL(s.len <= sizeof(rd));
	CU_ASSERT_FATAL(pread(s.fd, rd, s.len, s.pos) == (ssize_t)s.len);
	expect = 0;
	check_batches(rd, s.len, &expect, 20);
	CU_ASSERT(expect == 11);
	CU_ASSERT_FATAL(plog_read(l, 0, 9, sizeof(rd), &s) == 0);
	CU_ASSERT(s.next_offset == 9);
	CU_ASSERT(s.len == plog_size_bytes(l) - len);
	CU_ASSERT_FATAL(plog_read(l, 9, 9, sizeof(rd), &s) == 0);
	CU_ASSERT(s.len == 0);
	CU_ASSERT(s.next_offset == 9);
	errno = 0;
	CU_ASSERT(plog_read(l, 12, 11, sizeof(rd), &s) == -1 && errno == ERANGE);
	errno = 0;
	CU_ASSERT(plog_read(l, -1, 11, sizeof(rd), &s) == -1 && errno == ERANGE);

	/* Bad input is refused and changes nothing. */
	errno = 0;
	CU_ASSERT(plog_append(l, buf, len - 1, &base) == -1 && errno == EINVAL);
	errno = 0;
	CU_ASSERT(plog_append(l, buf, 0, &base) == -1 && errno == EINVAL);
	CU_ASSERT(plog_end_offset(l) == 11);

	plog_close(l);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.segments == 1);
	CU_ASSERT(rec.truncated_bytes == 0);
	CU_ASSERT(rec.index_rebuilt == 0);
	CU_ASSERT(plog_end_offset(l) == 11);
	plog_close(l);

	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* Sizes of the segment files, in base-offset order. */
static int
list_segments(const char *dir, int64_t *bases, off_t *sizes, int max)
{
	struct dirent **ents;
	struct stat st;
	char path[4096];
	int n, i, cnt = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	CU_ASSERT_FATAL(n >= 0);
	for (i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (l == 24 && strcmp(ents[i]->d_name + 20, ".log") == 0 &&
		    cnt < max) {
			bases[cnt] = strtoll(ents[i]->d_name, NULL, 10);
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			CU_ASSERT_FATAL(stat(path, &st) == 0);
			sizes[cnt++] = st.st_size;
		}
		free(ents[i]);
	}
	free(ents);
	return cnt;
}

static void
test_roll(void)
{
	struct plog_config cfg = { 1000, 4096, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL, *big = NULL;
	size_t len = 0, one, biglen = 0;
	int64_t base, bases[16];
	off_t sizes[16];
	int n, i, reads;
	char *dir = test_mkdtemp("roll");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	/* Batches of 4 records of ~60-byte values: ~330 bytes each. */
	add_batch(&b, &buf, &len, 0, 4, 50);
	one = len;
	CU_ASSERT_FATAL(one > 250 && one < 500);
	free(buf);
	/* Seven single appends: 3 fit per 1000-byte segment at most. */
	for (i = 0; i < 7; i++) {
		buf = NULL;
		len = 0;
		add_batch(&b, &buf, &len, i * 4, 4, 50);
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
		CU_ASSERT(base == i * 4);
		free(buf);
	}
	/* A batch larger than segment_bytes gets a segment of its own. */
	add_batch(&b, &big, &biglen, 28, 30, 50);
	CU_ASSERT_FATAL(biglen > cfg.segment_bytes);
	CU_ASSERT_FATAL(plog_append(l, big, biglen, &base) == 0);
	CU_ASSERT(base == 28);
	buf = NULL;
	len = 0;
	add_batch(&b, &buf, &len, 58, 4, 50);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT(base == 58);
	CU_ASSERT(plog_end_offset(l) == 62);

	n = list_segments(dir, bases, sizes, 16);
	CU_ASSERT(n == plog_segment_count(l));
	/* [0,4,8] [12,16,20] [24] [28 big] [58] — rolls before overflow. */
	CU_ASSERT_FATAL(n == 5);
	CU_ASSERT(bases[0] == 0 && bases[1] == 12 && bases[2] == 24 &&
	    bases[3] == 28 && bases[4] == 58);
	CU_ASSERT(sizes[0] > 0 && (uint64_t)sizes[0] <= cfg.segment_bytes);
	CU_ASSERT(sizes[1] > 0 && (uint64_t)sizes[1] <= cfg.segment_bytes);
	CU_ASSERT((size_t)sizes[3] == biglen);
	CU_ASSERT(plog_size_bytes(l) == (uint64_t)(sizes[0] + sizes[1] +
	    sizes[2] + sizes[3] + sizes[4]));

	/* A read returns batches of one segment only. */
	{
		struct plog_slice s;

		CU_ASSERT_FATAL(plog_read(l, 0, 62, 1 << 20, &s) == 0);
		CU_ASSERT(s.next_offset == 12);
		CU_ASSERT(s.len == (size_t)sizes[0]);
		CU_ASSERT_FATAL(plog_read(l, 30, 62, 10, &s) == 0);
		CU_ASSERT(s.first_offset == 28);
		CU_ASSERT(s.len == biglen);
		CU_ASSERT(s.next_offset == 58);
	}
	plog_close(l);
	read_all_reader(dir, 0, 62, 1 << 20, 50, &reads);
	CU_ASSERT(reads == 5);

	free(buf);
	free(big);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/*
 * A million records in 1000 batches of 1000, several segments; reopen
 * and read every record back through the reader.
 */
static void
test_million(void)
{
	struct plog_config cfg = { 4 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL;
	size_t len = 0;
	int64_t base, id = 0;
	int i, j, reads, segs;
	char *dir = test_mkdtemp("million");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	for (i = 0; i < 100; i++) {
		len = 0;
		for (j = 0; j < 10; j++) {
			add_batch(&b, &buf, &len, id, 1000, 4);
			id += 1000;
		}
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
		CU_ASSERT_FATAL(base == id - 10000);
	}
	CU_ASSERT(plog_end_offset(l) == 1000000);
	segs = plog_segment_count(l);
	CU_ASSERT(segs >= 4);
	plog_close(l);

	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.segments == segs);
	CU_ASSERT(rec.truncated_bytes == 0);
	CU_ASSERT(rec.index_rebuilt == 0);
	CU_ASSERT(plog_end_offset(l) == 1000000);
	CU_ASSERT(plog_start_offset(l) == 0);
	plog_close(l);

	read_all_reader(dir, 0, 1000000, 1 << 20, 4, &reads);
	/* Whole segments fit in 1 MiB reads only partly: more reads than segments. */
	CU_ASSERT(reads >= segs);

	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* One batch as found by a linear scan of the segment files. */
struct lin_batch {
	int64_t		base, last;
	off_t		pos;
	size_t		len;
	ino_t		ino;
};

static size_t
linear_scan(const char *dir, struct lin_batch *v, size_t max)
{
	int64_t bases[64];
	off_t sizes[64];
	char path[4096];
	struct stat st;
	struct batch_header h;
	uint8_t *data;
	size_t n = 0, pos;
	int nseg, i, fd;

	nseg = list_segments(dir, bases, sizes, 64);
	for (i = 0; i < nseg; i++) {
		snprintf(path, sizeof(path), "%s/%020lld.log", dir,
		    (long long)bases[i]);
		CU_ASSERT_FATAL((fd = open(path, O_RDONLY)) != -1);
		CU_ASSERT_FATAL(fstat(fd, &st) == 0);
		data = malloc((size_t)sizes[i] + 1);
		CU_ASSERT_FATAL(data != NULL);
		CU_ASSERT_FATAL(pread(fd, data, (size_t)sizes[i], 0) == sizes[i]);
		close(fd);
		for (pos = 0; pos < (size_t)sizes[i]; pos += v[n - 1].len) {
			CU_ASSERT_FATAL(n < max);
			CU_ASSERT_FATAL(batch_parse_header(data + pos,
			    (size_t)sizes[i] - pos, &h) == BATCH_OK);
			v[n].base = h.base_offset;
			v[n].last = h.base_offset + h.last_offset_delta;
			v[n].pos = (off_t)pos;
			v[n].len = batch_total_size(&h);
			v[n].ino = st.st_ino;
			n++;
		}
		free(data);
	}
	return n;
}

static void
test_index_lookup(void)
{
	struct plog_config cfg = { 256 << 10, 1024, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog *l;
	struct plog_reader *r;
	struct plog_slice s;
	struct lin_batch *v;
	struct stat st;
	uint8_t *buf = NULL;
	size_t len, n, lo, hi, mid;
	int64_t id = 0, off, base;
	int i, j, k, cnt;
	char *dir = test_mkdtemp("lookup");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	/* ~20000 batches of 1..8 records, 0..60-byte values, 16 per append. */
	for (i = 0; i < 1250; i++) {
		len = 0;
		for (j = 0; j < 16; j++) {
			k = 1 + (int)(test_rand() % 8);
			add_batch(&b, &buf, &len, id, k, (size_t)(test_rand() % 48));
			id += k;
		}
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	}
	CU_ASSERT_FATAL(plog_end_offset(l) == id);
	CU_ASSERT(plog_segment_count(l) >= 5);

	v = calloc(20001, sizeof(*v));
	CU_ASSERT_FATAL(v != NULL);
	n = linear_scan(dir, v, 20001);
	CU_ASSERT_FATAL(n == 20000);
	CU_ASSERT_FATAL(v[0].base == 0 && v[n - 1].last == id - 1);

	CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
	for (cnt = 0; cnt < 10000; cnt++) {
		off = (int64_t)(test_rand() % (uint64_t)id);
		lo = 0;
		hi = n;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (v[mid].base <= off)
				lo = mid;
			else
				hi = mid;
		}
		CU_ASSERT_FATAL(v[lo].base <= off && off <= v[lo].last);

		CU_ASSERT_FATAL(plog_reader_read(r, off, id, 0, &s) == 0);
		CU_ASSERT_FATAL(fstat(s.fd, &st) == 0);
		CU_ASSERT_FATAL(s.first_offset == v[lo].base);
		CU_ASSERT_FATAL(s.pos == v[lo].pos);
		CU_ASSERT_FATAL(s.len == v[lo].len);
		CU_ASSERT_FATAL(s.next_offset == v[lo].last + 1);
		CU_ASSERT_FATAL(st.st_ino == v[lo].ino);

		CU_ASSERT_FATAL(plog_read(l, off, id, 0, &s) == 0);
		CU_ASSERT_FATAL(fstat(s.fd, &st) == 0);
		CU_ASSERT_FATAL(s.first_offset == v[lo].base);
		CU_ASSERT_FATAL(s.pos == v[lo].pos);
		CU_ASSERT_FATAL(s.len == v[lo].len);
		CU_ASSERT_FATAL(st.st_ino == v[lo].ino);
	}
	plog_reader_close(r);
	plog_close(l);
	free(v);
	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* The reader follows the writer: appends, rolls, without reopening. */
static void
test_reader_follows(void)
{
	struct plog_config cfg = { 2000, 512, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog *l;
	struct plog_reader *r;
	struct plog_slice s;
	uint8_t *buf = NULL, rd[4096];
	size_t len;
	int64_t base, expect, off = 0;
	int i;
	char *dir = test_mkdtemp("follow");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
	CU_ASSERT(plog_reader_read(r, 0, 0, 100, &s) == 0 && s.len == 0);
	for (i = 0; i < 40; i++) {
		len = 0;
		add_batch(&b, &buf, &len, i * 3, 3, 30);
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
		/* Everything appended so far is visible at once. */
		CU_ASSERT_FATAL(plog_reader_read(r, off, plog_end_offset(l),
		    sizeof(rd), &s) == 0);
		CU_ASSERT_FATAL(s.len == len);
		CU_ASSERT_FATAL(pread(s.fd, rd, s.len, s.pos) == (ssize_t)s.len);
		expect = off;
		check_batches(rd, s.len, &expect, 30);
		CU_ASSERT_FATAL(s.next_offset == (i + 1) * 3);
		off = s.next_offset;
		/* Nothing past the visible end, even though it is written. */
		CU_ASSERT_FATAL(plog_reader_read(r, off, off, sizeof(rd), &s) == 0);
		CU_ASSERT_FATAL(s.len == 0);
	}
	CU_ASSERT(plog_segment_count(l) >= 5);
	/* visible_end inside the written data holds back later batches. */
	CU_ASSERT_FATAL(plog_reader_read(r, 0, 6, 1 << 20, &s) == 0);
	CU_ASSERT(s.first_offset == 0 && s.next_offset == 6);
	plog_reader_close(r);
	plog_close(l);
	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/*
 * The writer in another process appends and rolls while this process
 * reads through a reader opened before any of it; the child announces
 * each new visible end through a pipe, as the writer publishes
 * visible_offset.
 */
static void
test_reader_other_process(void)
{
	struct plog_config cfg = { 2000, 512, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog_reader *r;
	struct plog_slice s;
	struct plog *l;
	uint8_t *buf = NULL, rd[1 << 16];
	size_t len;
	int64_t end, off = 0, expect = 0, base;
	int fds[2], status, i, guard, ok;
	pid_t pid;
	char *dir = test_mkdtemp("xproc");

	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
	CU_ASSERT_FATAL(pipe(fds) == 0);
	CU_ASSERT_FATAL((pid = fork()) != -1);
	if (pid == 0) {
		close(fds[0]);
		batch_builder_init(&b);
		ok = 1;
		for (i = 0; i < 300 && ok; i++) {
			len = 0;
			add_batch(&b, &buf, &len, (int64_t)i * 4, 4, 30);
			end = plog_end_offset(l) + 4;
			ok = plog_append(l, buf, len, &base) == 0 &&
			    write(fds[1], &end, sizeof(end)) == sizeof(end);
		}
		_exit(ok ? 0 : 1);
	}
	close(fds[1]);
	for (guard = 0; guard < 1000; guard++) {
		if (read(fds[0], &end, sizeof(end)) != sizeof(end))
			break;
		/* Read up to the announced end while the child goes on. */
		while (off < end) {
			CU_ASSERT_FATAL(plog_reader_read(r, off, end, sizeof(rd),
			    &s) == 0);
			CU_ASSERT_FATAL(s.len > 0 && s.len <= sizeof(rd));
			CU_ASSERT_FATAL(s.first_offset == off);
			CU_ASSERT_FATAL(pread(s.fd, rd, s.len, s.pos) ==
			    (ssize_t)s.len);
			check_batches(rd, s.len, &expect, 30);
			CU_ASSERT_FATAL(expect == s.next_offset);
			off = s.next_offset;
		}
	}
	close(fds[0]);
	CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT(off == 1200);
	plog_reader_close(r);
	plog_close(l);
	/* The child rolled many times. */
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	CU_ASSERT(plog_end_offset(l) == 1200);
	CU_ASSERT(plog_segment_count(l) > 20);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

/* Write seam: count calls, and fail after a byte budget. */
static int io_calls;
static size_t io_first_len;
static long long io_budget;

static ssize_t
counting_write(int fd, const void *p, size_t n)
{
	if (io_calls++ == 0)
		io_first_len = n;
	return write(fd, p, n);
}

static ssize_t
enospc_write(int fd, const void *p, size_t n)
{
	ssize_t w;

	if (io_budget <= 0) {
		errno = ENOSPC;
		return -1;
	}
	/* A short write first, as a filling disk does. */
	if ((long long)n > io_budget)
		n = (size_t)io_budget;
	if ((w = write(fd, p, n)) > 0)
		io_budget -= w;
	return w;
}

static void
test_one_write(void)
{
	struct plog_config cfg = { 1 << 20, 1024, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL;
	size_t len = 0;
	int64_t base;
	int i;
	char *dir = test_mkdtemp("onewrite");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	for (i = 0; i < 50; i++)
		add_batch(&b, &buf, &len, i * 2, 2, 40);
	io_calls = 0;
	store_io.write = counting_write;
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	store_io_reset();
	/*
	 * The 50 batches in one write, their index entries in another, the
	 * time index entries in a third.
	 */
	CU_ASSERT(io_calls == 3);
	CU_ASSERT(io_first_len == len);
	CU_ASSERT(plog_end_offset(l) == 100);
	plog_close(l);
	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* Names and sizes of every file in dir, as one string. */
static void
dir_state(const char *dir, char *out, size_t size)
{
	struct dirent **ents;
	struct stat st;
	char path[4096];
	size_t used = 0;
	int n, i;

	out[0] = '\0';
	n = scandir(dir, &ents, NULL, alphasort);
	CU_ASSERT_FATAL(n >= 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    used < size)
			used += (size_t)snprintf(out + used, size - used,
			    "%s:%lld ", ents[i]->d_name, (long long)st.st_size);
		free(ents[i]);
	}
	free(ents);
}

/*
 * A full disk at every point of an append that also rolls: the append
 * fails with ENOSPC, the files and the log are as before, old batches
 * read back, and the same append then succeeds at the same offset.
 */
static void
test_enospc(void)
{
	struct plog_config cfg = { 3000, 256, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL, *more = NULL;
	size_t len = 0, mlen = 0;
	char before[4096], after[4096];
	int64_t base, end;
	uint64_t size;
	int segs, reads, rc = -1, saved;
	long long budget;
	char *dir = test_mkdtemp("enospc");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	add_batch(&b, &buf, &len, 0, 5, 40);
	add_batch(&b, &buf, &len, 5, 5, 40);
	add_batch(&b, &buf, &len, 10, 5, 40);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	end = plog_end_offset(l);
	size = plog_size_bytes(l);
	segs = plog_segment_count(l);
	CU_ASSERT_FATAL(end == 15 && segs == 1);
	dir_state(dir, before, sizeof(before));

	/* Sixteen batches: fill the active segment, roll, go on. */
	for (int i = 0; i < 16; i++)
		add_batch(&b, &more, &mlen, 15 + i * 5, 5, 40);
	CU_ASSERT_FATAL(size + mlen > 2 * cfg.segment_bytes);

	/* Budgets below what the append needs fail; the first big enough wins. */
	for (budget = 0; budget <= (long long)mlen + 4096; budget += 37) {
		io_budget = budget;
		store_io.write = enospc_write;
		errno = 0;
		rc = plog_append(l, more, mlen, &base);
		saved = errno;
		store_io_reset();
		if (rc == 0)
			break;
		CU_ASSERT_FATAL(saved == ENOSPC);
		CU_ASSERT_FATAL(plog_end_offset(l) == end);
		CU_ASSERT_FATAL(plog_size_bytes(l) == size);
		CU_ASSERT_FATAL(plog_segment_count(l) == segs);
		dir_state(dir, after, sizeof(after));
		CU_ASSERT_FATAL(strcmp(before, after) == 0);
		if (budget == 37 * 20) {
			read_all_reader(dir, 0, end, 1 << 20, 40, &reads);
			CU_ASSERT(reads == 1);
		}
	}
	/* It needed at least the batches themselves, and then worked. */
	CU_ASSERT_FATAL(rc == 0);
	CU_ASSERT(budget >= (long long)mlen);
	CU_ASSERT(base == 15);
	CU_ASSERT(plog_end_offset(l) == 95);
	segs = plog_segment_count(l);
	CU_ASSERT(segs >= 3);
	plog_close(l);
	read_all_reader(dir, 0, 95, 1 << 20, 40, &reads);
	/* One read per segment: each is far below 1 MiB. */
	CU_ASSERT(reads == segs);

	free(buf);
	free(more);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* plog_sync reaches fdatasync for every segment written since the last. */
static int sync_calls;

static int
counting_sync(int fd)
{
	sync_calls++;
	return fdatasync(fd);
}

static void
test_sync(void)
{
	struct plog_config cfg = { 1000, 4096, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL;
	size_t len = 0;
	int64_t base;
	int i;
	char *dir = test_mkdtemp("sync");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	store_io.fdatasync = counting_sync;
	sync_calls = 0;
	CU_ASSERT(plog_sync(l) == 0);
	/* The new segment's directory entry. */
	CU_ASSERT(sync_calls == 1);
	sync_calls = 0;
	CU_ASSERT(plog_sync(l) == 0);
	CU_ASSERT(sync_calls == 0);
	for (i = 0; i < 4; i++)
		add_batch(&b, &buf, &len, i * 4, 4, 50);
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT_FATAL(plog_segment_count(l) == 2);
	sync_calls = 0;
	CU_ASSERT(plog_sync(l) == 0);
	/* Old segment's tail, new segment, directory. */
	CU_ASSERT(sync_calls == 3);
	store_io_reset();
	plog_close(l);
	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* What plog_resync writes: counted, passed on. */
static int rw_calls;
static long long rw_bytes;

static ssize_t
resync_write(int fd, const void *buf, size_t len)
{
	rw_calls++;
	rw_bytes += (long long)len;
	return write(fd, buf, len);
}

/* The bytes of dir's segment with base offset base (malloc'ed). */
static uint8_t *
seg_bytes(const char *dir, int64_t base, size_t *len)
{
	char path[1024];
	struct stat st;
	uint8_t *b;
	int fd;

	snprintf(path, sizeof(path), "%s/%020lld.log", dir, (long long)base);
	fd = open(path, O_RDONLY);
	CU_ASSERT_FATAL(fd != -1 && fstat(fd, &st) == 0);
	b = malloc((size_t)st.st_size + 1);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_FATAL(read(fd, b, (size_t)st.st_size) == st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

/*
 * plog_sync_all syncs every segment and the directory; plog_resync
 * writes the batches from the one holding an offset to the end again,
 * byte for byte, and refuses (EIO) to make a damaged batch durable.
 */
static void
test_resync(void)
{
	struct plog_config cfg = { 1000, 4096, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog *l;
	uint8_t *buf = NULL, *s0, *s1, *t0, *t1;
	size_t len = 0, blen, n0, n1, m0, m1;
	int64_t base, last_base;
	char path[1024];
	int i, fd;
	char *dir = test_mkdtemp("resync");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	for (i = 0; i < 4; i++)
		add_batch(&b, &buf, &len, i * 4, 4, 50);
	blen = BATCH_LOG_OVERHEAD + be32_get(buf + BATCH_OFF_LENGTH);	/* batch 0 */
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT_FATAL(plog_segment_count(l) == 2);
	CU_ASSERT_FATAL(plog_sync(l) == 0);
	/* The second segment starts at some batch: 4, 8 or 12. */
	for (last_base = 4; last_base <= 12; last_base += 4) {
		snprintf(path, sizeof(path), "%s/%020lld.log", dir,
		    (long long)last_base);
		if (access(path, F_OK) == 0)
			break;
	}
	CU_ASSERT_FATAL(last_base <= 12);
	s0 = seg_bytes(dir, 0, &n0);
	s1 = seg_bytes(dir, last_base, &n1);
	CU_ASSERT(n0 + n1 == len);

	store_io.fdatasync = counting_sync;
	sync_calls = 0;
	CU_ASSERT(plog_sync_all(l) == 0);
	CU_ASSERT(sync_calls == 3);	/* two segments, the directory */

	/* From offset 5 (inside the second batch): batches 1, 2 and 3. */
	store_io.write = resync_write;
	rw_calls = 0;
	rw_bytes = 0;
	sync_calls = 0;
	CU_ASSERT(plog_resync(l, 5) == 0);
	CU_ASSERT(rw_calls == 3);
	CU_ASSERT(rw_bytes == (long long)(len - blen));
	CU_ASSERT(sync_calls == 3);
	t0 = seg_bytes(dir, 0, &m0);
	t1 = seg_bytes(dir, last_base, &m1);
	CU_ASSERT(m0 == n0 && m1 == n1 && memcmp(s0, t0, n0) == 0 &&
	    memcmp(s1, t1, n1) == 0);
	/* At the log end: nothing to write. */
	rw_calls = 0;
	CU_ASSERT(plog_resync(l, 16) == 0);
	CU_ASSERT(rw_calls == 0);

	/* A byte of the last batch lost: refused, not written. */
	snprintf(path, sizeof(path), "%s/%020lld.log", dir, (long long)last_base);
	fd = open(path, O_WRONLY);
	CU_ASSERT_FATAL(fd != -1);
	CU_ASSERT_FATAL(pwrite(fd, "\xff", 1, (off_t)n1 - 3) == 1);
	close(fd);
	rw_calls = 0;
	errno = 0;
	CU_ASSERT(plog_resync(l, 0) == -1);
	CU_ASSERT(errno == EIO);
	/* The first segment's batches were written again, the bad one not. */
	CU_ASSERT(rw_calls == 3);
	store_io_reset();
	plog_close(l);
	free(s0);
	free(s1);
	free(t0);
	free(t1);
	free(buf);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/*
 * Batches that carry their offsets (a drained ring): kept as they are,
 * leading batches already in the log skipped, and an overlap, a gap or a
 * step backwards refused with the log unchanged.
 */
static void
test_append_at(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct batch_builder b;
	struct plog *l;
	struct plog_slice s;
	uint8_t *buf = NULL, *two = NULL;
	size_t len = 0, first_len, two_len = 0, skipped = 99;
	uint64_t size;
	char *dir = test_mkdtemp("plog-at");

	batch_builder_init(&b);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	add_batch(&b, &buf, &len, 0, 3, 20);		/* offsets 0..2 */
	first_len = len;
	add_batch(&b, &buf, &len, 3, 2, 20);		/* 3..4 */
	batch_set_base_offset(buf, 0);
	batch_set_base_offset(buf + first_len, 3);
	CU_ASSERT_FATAL(plog_append_at(l, buf, len, &skipped) == 0);
	CU_ASSERT(skipped == 0);
	CU_ASSERT(plog_end_offset(l) == 5);

	/* The same bytes again (a writer restarted): all skipped. */
	CU_ASSERT_FATAL(plog_append_at(l, buf, len, &skipped) == 0);
	CU_ASSERT(skipped == len);
	CU_ASSERT(plog_end_offset(l) == 5);
	CU_ASSERT(plog_size_bytes(l) == len);

	/* First batch old, the next continues at 5: only it is written. */
	add_batch(&b, &two, &two_len, 5, 2, 20);
	batch_set_base_offset(two, 5);
	buf = realloc(buf, first_len + two_len);
	memcpy(buf + first_len, two, two_len);
	CU_ASSERT_FATAL(plog_append_at(l, buf, first_len + two_len, &skipped) == 0);
	CU_ASSERT(skipped == first_len);
	CU_ASSERT(plog_end_offset(l) == 7);
	CU_ASSERT_FATAL(plog_read(l, 5, 7, 1 << 20, &s) == 0);
	CU_ASSERT(s.first_offset == 5);
	CU_ASSERT(s.next_offset == 7);
	CU_ASSERT(s.len == two_len);

	/* Overlapping the end (6 < 7 <= 7), a gap (8), backwards: refused. */
	size = plog_size_bytes(l);
	batch_set_base_offset(two, 6);
	CU_ASSERT(plog_append_at(l, two, two_len, &skipped) == -1);
	CU_ASSERT(errno == EINVAL);
	batch_set_base_offset(two, 8);
	CU_ASSERT(plog_append_at(l, two, two_len, &skipped) == -1);
	CU_ASSERT(errno == EINVAL);
	memcpy(buf, two, two_len);
	memcpy(buf + two_len, two, two_len);
	batch_set_base_offset(buf, 7);
	batch_set_base_offset(buf + two_len, 7);
	CU_ASSERT(plog_append_at(l, buf, 2 * two_len, &skipped) == -1);
	CU_ASSERT(errno == EINVAL);
	CU_ASSERT(plog_end_offset(l) == 7);
	CU_ASSERT(plog_size_bytes(l) == size);

	plog_close(l);
	batch_builder_free(&b);
	free(buf);
	free(two);
	test_rmtree(dir);
	free(dir);
}

/*
 * One batch of 15 random records of 64 KiB (just under 1 MiB), copied
 * to a buffer of its own (*buf, *len); *val is the value, b the builder.
 */
static void
mib_batch(struct batch_builder *b, uint8_t **val, uint8_t **buf, size_t *len)
{
	const uint8_t *out;
	int i;

	*val = malloc(65536);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*val);
	test_fill_random(*val, 65536);
	for (i = 0; i < 15; i++)
		CU_ASSERT_FATAL(batch_builder_add(b, 1000 + i, NULL, -1, *val,
		    65536, NULL, 0) == 0);
	CU_ASSERT_FATAL(batch_builder_close(b, &out, len) == 0);
	*buf = malloc(*len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*buf);
	memcpy(*buf, out, *len);
}

/* Early writeback requests seen by recording_writeback. */
static struct { off_t pos, len; } wb_calls[16];
static int wb_ncalls;

static int
recording_writeback(int fd, off_t pos, off_t len)
{
	if (wb_ncalls < (int)(sizeof(wb_calls) / sizeof(wb_calls[0]))) {
		wb_calls[wb_ncalls].pos = pos;
		wb_calls[wb_ncalls].len = len;
	}
	wb_ncalls++;
	return 0;
}

/*
 * Appends ask the kernel to start writeback of whole pages once 4 MiB of
 * them have accumulated in a segment since the last request: the
 * requests are contiguous from 0, page-aligned and at least 4 MiB; a
 * roll starts over at 0 in the new segment; a reopened log does not ask
 * again for what was already in the file; the bytes read back intact.
 */
static void
test_writeback(void)
{
	struct plog_config cfg = { 12 << 20, 4096, -1, -1, 0, 0 };
	struct batch_builder b;
	struct plog_reader *r;
	struct plog_slice s;
	struct plog *l;
	const uint64_t mib4 = 4 << 20;
	uint8_t *val, *buf, *rbuf;
	size_t len;
	uint64_t size, done = 0, end;
	int64_t base, next;
	int i, calls;
	char *dir = test_mkdtemp("writeback");

	batch_builder_init(&b);
	mib_batch(&b, &val, &buf, &len);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);

	store_io.writeback = recording_writeback;
	wb_ncalls = 0;
	calls = 0;
	for (i = 0; i < 11; i++) {
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
		CU_ASSERT_EQUAL_FATAL(base, (int64_t)i * 15);
		CU_ASSERT_FATAL(plog_segment_count(l) == 1);
		size = plog_size_bytes(l);
		end = size - size % 4096;
		/* Exactly one new request whenever 4 MiB of pages piled up. */
		if (end - done >= mib4) {
			CU_ASSERT_EQUAL_FATAL(wb_ncalls, calls + 1);
			CU_ASSERT_EQUAL(wb_calls[calls].pos, (off_t)done);
			CU_ASSERT_EQUAL(wb_calls[calls].len, (off_t)(end - done));
			done = end;
			calls++;
		} else
			CU_ASSERT_EQUAL_FATAL(wb_ncalls, calls);
	}
	/* 11 batches of ~15 * 64 KiB: requests after the 5th and the 9th. */
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT(wb_calls[0].len >= (off_t)mib4 && wb_calls[1].len >= (off_t)mib4);

	/*
	 * Six more: the second of them rolls the segment (12 MiB), and the
	 * five in the new one ask for its pages from 0.
	 */
	wb_ncalls = 0;
	for (i = 0; i < 6; i++)
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT_FATAL(plog_segment_count(l) == 2);
	CU_ASSERT_EQUAL(wb_ncalls, 1);
	CU_ASSERT_EQUAL(wb_calls[0].pos, 0);
	CU_ASSERT(wb_calls[0].len >= (off_t)mib4 && wb_calls[0].len % 4096 == 0);
	next = plog_end_offset(l);
	CU_ASSERT_EQUAL(next, 17 * 15);
	plog_close(l);

	/* Reopened with 5 batches in the last segment: 1 more asks nothing. */
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	wb_ncalls = 0;
	CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT_EQUAL(base, next);
	CU_ASSERT_EQUAL(wb_ncalls, 0);
	store_io_reset();
	plog_close(l);

	/* What was written reads back: the last batch, whole. */
	CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
	CU_ASSERT_FATAL(plog_reader_read(r, base, base + 15, 1, &s) == 0);
	CU_ASSERT_EQUAL_FATAL(s.len, len);
	CU_ASSERT_EQUAL(s.first_offset, base);
	rbuf = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rbuf);
	CU_ASSERT_FATAL(pread(s.fd, rbuf, len, s.pos) == (ssize_t)len);
	CU_ASSERT(memcmp(rbuf + BATCH_CRC_START, buf + BATCH_CRC_START,
	    len - BATCH_CRC_START) == 0);
	plog_reader_close(r);
	free(rbuf);
	free(buf);
	free(val);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/* Page-cache drops seen by recording_dropcache. */
static struct { int fd; off_t pos, len; } dc_calls[64];
static int dc_ncalls;

static int
recording_dropcache(int fd, off_t pos, off_t len)
{
	if (dc_ncalls < (int)(sizeof(dc_calls) / sizeof(dc_calls[0]))) {
		dc_calls[dc_ncalls].fd = fd;
		dc_calls[dc_ncalls].pos = pos;
		dc_calls[dc_ncalls].len = len;
	}
	dc_ncalls++;
	return 0;
}

/*
 * With cache_window = W, appends let the page cache go behind the newest
 * W bytes of the log: per segment the drops advance contiguously from 0,
 * each starting W before where the previous one ended (0 at first: the
 * pages still being written then are asked again), never reach into the
 * newest W bytes (counted over segments), come in steps of
 * at least 4 MiB of whole pages in the active segment, and take a sealed
 * segment to its end once it lies wholly behind; the log stays within
 * W + 4 MiB + a page of its end.  A reopened log leaves what was in its
 * files alone, a window of 0 drops nothing, and the bytes read back.
 */
static void
test_drop_behind(void)
{
	const uint64_t W = 2 << 20, mib4 = 4 << 20;
	struct plog_config cfg = { 12 << 20, 4096, -1, -1, 2 << 20, 0 };
	struct batch_builder b;
	struct plog_reader *r;
	struct plog_slice sl;
	struct plog *l;
	uint8_t *val, *buf, *rbuf;
	size_t len;
	uint64_t seg1 = 0, done1 = 0, done2 = 0, size, cur, pos, step;
	int64_t base;
	int i, seen = 0, fd1 = -1, fd2 = -1, k;
	char *dir = test_mkdtemp("dropbehind");

	batch_builder_init(&b);
	mib_batch(&b, &val, &buf, &len);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	store_io.dropcache = recording_dropcache;
	dc_ncalls = 0;
	/* 20 batches of just under 1 MiB: a roll after the 12th. */
	for (i = 0; i < 20; i++) {
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
		CU_ASSERT_EQUAL_FATAL(base, (int64_t)i * 15);
		size = plog_size_bytes(l);
		if (plog_segment_count(l) == 1)
			seg1 = size;
		cur = size - seg1;	/* bytes in the second segment */
		CU_ASSERT_FATAL(dc_ncalls <= 64);
		for (k = seen; k < dc_ncalls; k++) {
			pos = (uint64_t)dc_calls[k].pos;
			if (fd1 == -1)
				fd1 = dc_calls[k].fd;
			if (dc_calls[k].fd == fd1) {
				/* Segment 1: contiguous, behind the window. */
				CU_ASSERT_EQUAL(pos, done1 > W ? done1 - W : 0);
				step = pos + (uint64_t)dc_calls[k].len - done1;
				done1 += step;
				CU_ASSERT(done1 <= seg1);
				CU_ASSERT(done1 + W <= size);
				CU_ASSERT(step >= mib4 ||
				    (plog_segment_count(l) == 2 && done1 == seg1));
				if (plog_segment_count(l) == 1 || done1 < seg1)
					CU_ASSERT(done1 % 4096 == 0);
			} else {
				if (fd2 == -1)
					fd2 = dc_calls[k].fd;
				CU_ASSERT_EQUAL(dc_calls[k].fd, fd2);
				CU_ASSERT_EQUAL(pos, done2 > W ? done2 - W : 0);
				step = pos + (uint64_t)dc_calls[k].len - done2;
				done2 += step;
				CU_ASSERT(step >= mib4);
				CU_ASSERT(done2 % 4096 == 0);
				CU_ASSERT(done2 + W <= cur);
				/* Segment 1 went wholly first. */
				CU_ASSERT_EQUAL(done1, seg1);
			}
		}
		seen = dc_ncalls;
		/* Drops keep up: at most W + a step + a page stay behind. */
		CU_ASSERT(size - (done1 + done2) < W + mib4 + 4096);
		/* A sealed segment behind the window is let go at once. */
		if (plog_segment_count(l) == 2 && cur >= W)
			CU_ASSERT_EQUAL(done1, seg1);
	}
	CU_ASSERT_EQUAL(plog_segment_count(l), 2);
	CU_ASSERT(done1 == seg1 && done2 > 0 && fd1 != fd2);
	plog_close(l);

	/* Reopened: what is in the files stays; new bytes are dropped later. */
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	dc_ncalls = 0;
	for (i = 0; i < 2; i++)
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT_EQUAL(dc_ncalls, 0);
	plog_close(l);

	/* A window of 0: nothing is ever dropped. */
	cfg.cache_window = 0;
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	for (i = 0; i < 8; i++)
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	CU_ASSERT_EQUAL(dc_ncalls, 0);
	store_io_reset();
	plog_close(l);

	/* The first batch, long dropped, reads back whole. */
	CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
	CU_ASSERT_FATAL(plog_reader_read(r, 0, 15, 1, &sl) == 0);
	CU_ASSERT_EQUAL_FATAL(sl.len, len);
	CU_ASSERT_EQUAL(sl.first_offset, 0);
	rbuf = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rbuf);
	CU_ASSERT_FATAL(pread(sl.fd, rbuf, len, sl.pos) == (ssize_t)len);
	CU_ASSERT(memcmp(rbuf + BATCH_CRC_START, buf + BATCH_CRC_START,
	    len - BATCH_CRC_START) == 0);
	plog_reader_close(r);
	free(rbuf);
	free(buf);
	free(val);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

/*
 * A reader with a cache window drops behind a consumer that reads more
 * than the window before the end: contiguous from 0, whole pages, steps
 * of at least 4 MiB, never within 8 MiB behind the read; reads within
 * the window of the end drop nothing, and a reader without a window
 * never drops.
 */
static void
test_reader_drop_behind(void)
{
	struct plog_config cfg = { 64 << 20, 4096, -1, -1, 0, 0 };
	const uint64_t win = 4 << 20, lag = 8 << 20, step = 4 << 20;
	struct batch_builder b;
	struct plog_reader *r;
	struct plog_slice sl;
	struct plog *l;
	uint8_t *val, *buf;
	size_t len;
	uint64_t done = 0, size;
	int64_t base, off;
	int i, k, seen = 0, pass;
	char *dir = test_mkdtemp("readerdrop");

	batch_builder_init(&b);
	mib_batch(&b, &val, &buf, &len);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	for (i = 0; i < 30; i++)	/* ~29 MiB, one segment */
		CU_ASSERT_FATAL(plog_append(l, buf, len, &base) == 0);
	size = plog_size_bytes(l);
	store_io.dropcache = recording_dropcache;
	for (pass = 0; pass < 2; pass++) {
		CU_ASSERT_FATAL(plog_reader_open(&r, dir) == 0);
		if (pass == 0)
			plog_reader_set_cache_window(r, win);
		dc_ncalls = seen = 0;
		done = 0;
		for (off = 0; off < plog_end_offset(l); off = sl.next_offset) {
			CU_ASSERT_FATAL(plog_reader_read(r, off,
			    plog_end_offset(l), 1, &sl) == 0);
			CU_ASSERT_FATAL(sl.len == len);
			CU_ASSERT_FATAL(dc_ncalls <= 64);
			for (k = seen; k < dc_ncalls; k++) {
				CU_ASSERT_EQUAL(dc_calls[k].pos, (off_t)done);
				CU_ASSERT((uint64_t)dc_calls[k].len >= step);
				done += (uint64_t)dc_calls[k].len;
				CU_ASSERT(done % 4096 == 0);
				CU_ASSERT(done + lag <= (uint64_t)sl.pos);
				/* Only for a read outside the window. */
				CU_ASSERT((uint64_t)sl.pos + sl.len + win < size);
			}
			seen = dc_ncalls;
		}
		if (pass == 0) {
			/* Dropped up to within a step and the lag of the last
			 * read outside the window. */
			CU_ASSERT(done > 0);
			CU_ASSERT(done + lag + step + len + win + 4096 >= size);
		} else
			CU_ASSERT_EQUAL(dc_ncalls, 0);
		plog_reader_close(r);
	}
	store_io_reset();
	plog_close(l);
	free(buf);
	free(val);
	batch_builder_free(&b);
	test_rmtree(dir);
	free(dir);
}

TEST_SUITE("plog", NULL, NULL,
    { "append with offsets kept", test_append_at },
    { "append and read", test_append_read },
    { "roll", test_roll },
    { "million records", test_million },
    { "index lookup vs linear scan", test_index_lookup },
    { "reader follows writer", test_reader_follows },
    { "reader in another process", test_reader_other_process },
    { "one write per append", test_one_write },
    { "ENOSPC mid-append", test_enospc },
    { "sync", test_sync },
    { "sync all, write again and sync", test_resync },
    { "early writeback", test_writeback },
    { "page cache let go behind the window", test_drop_behind },
    { "page cache let go behind a reader far back", test_reader_drop_behind });
