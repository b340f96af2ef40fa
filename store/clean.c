/*
 * Log compaction of one partition; see clean.h for the rules and the
 * swap.  One pass: list the segments, load the checkpoint, build the key
 * map over the dirty part, rewrite the segments up to where the map
 * reached into .cleaned files, commit by the manifest, swap, save the
 * new checkpoint.  Everything is read with pread through batch headers;
 * at most one batch (and its inflated records) is in memory at a time,
 * besides the map.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/crc32c.h"
#include "proto/ctrl.h"
#include "proto/varint.h"
#include "store/clean.h"
#include "store/file.h"
#include "store/io.h"
#include "store/segment.h"
#include "store/timeindex.h"
#include "store/txnindex.h"

#define CLEAN_PASSES_MAX	32	/* first-cleaned times remembered */
#define CLEAN_MAP_ENTRY		24	/* 16-byte key hash + 8-byte offset */
#define CLEAN_MAP_LOAD		90	/* percent full counts as full (Kafka's 0.9) */

/* One range of offsets [.., end) first cleaned at time ms. */
struct clean_pass {
	int64_t		end;
	int64_t		ms;
};

struct clean_ckpt {
	int64_t		offset;		/* first dirty offset */
	int64_t		tombs_due;	/* when a kept tombstone may go; 0 none */
	int		npass;
	struct clean_pass pass[CLEAN_PASSES_MAX]; /* ascending end */
};

/* A segment of the directory as the pass sees it. */
struct cseg {
	int64_t		base;
	int64_t		next;		/* base of the next segment (or the log end) */
	uint64_t	size;
	int64_t		max_ts;		/* TIDX_NONE when no batch has one */
};

/* ---- small helpers ---------------------------------------------------- */

static int
seg_path_ext(char *buf, size_t size, const char *dir, int64_t base,
    const char *ext, const char *suffix)
{
	int n = snprintf(buf, size, "%s/%020" PRId64 ".%s%s", dir, base, ext,
	    suffix);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The log last: its rename is what a reader sees (clean.h). */
#define SEG_EXTS	4
#define EXT_LOG		3
#define EXT_TXN		2
static const char *const seg_exts[SEG_EXTS] = { "index", "timeindex",
    "txnindex", "log" };

static int
fd_sync(int fd)
{
	return store_io.fdatasync(fd);
}

/* ---- checkpoint ------------------------------------------------------- */

static int
ckpt_load(const char *dir, struct clean_ckpt *ck)
{
	char path[4096], *buf = NULL, *line, *save = NULL;
	size_t len, body;
	long long a, b;

	memset(ck, 0, sizeof(*ck));
	if (snprintf(path, sizeof(path), "%s/%s", dir, CLEAN_CHECKPOINT) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (store_file_read(path, 65536, &buf, &len) == -1)
		return errno == ENOENT ? 0 : -1;
	if (store_text_check(buf, len, &body) == -1) {
		free(buf);
		return 0;	/* damaged: everything is dirty again, which is safe */
	}
	buf[body] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "offset %lld", &a) == 1 && a >= 0)
			ck->offset = a;
		else if (sscanf(line, "tombs_due %lld", &a) == 1 && a >= 0)
			ck->tombs_due = a;
		else if (sscanf(line, "pass %lld %lld", &a, &b) == 2 &&
		    ck->npass < CLEAN_PASSES_MAX) {
			ck->pass[ck->npass].end = a;
			ck->pass[ck->npass].ms = b;
			ck->npass++;
		}
	}
	free(buf);
	return 0;
}

static int
ckpt_save(const char *dir, const struct clean_ckpt *ck)
{
	char buf[4096];
	size_t n;
	int i;

	n = (size_t)snprintf(buf, sizeof(buf),
	    "flume-cleaner 1\noffset %lld\ntombs_due %lld\n",
	    (long long)ck->offset, (long long)ck->tombs_due);
	for (i = 0; i < ck->npass; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "pass %lld %lld\n",
		    (long long)ck->pass[i].end, (long long)ck->pass[i].ms);
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "crc32c %08x\n",
	    crc32c(0, buf, n));
	return store_file_replace(dir, CLEAN_CHECKPOINT, buf, n);
}

/* When offset o was first cleaned: its pass's time, or -1 (not yet). */
static int64_t
ckpt_first_cleaned(const struct clean_ckpt *ck, int64_t o)
{
	int i;

	for (i = 0; i < ck->npass; i++)
		if (o < ck->pass[i].end)
			return ck->pass[i].ms;
	return -1;
}

/* Record that [.., end) was cleaned at ms; the oldest two merge when full. */
static void
ckpt_add_pass(struct clean_ckpt *ck, int64_t end, int64_t ms)
{
	if (ck->npass > 0 && ck->pass[ck->npass - 1].end >= end)
		return;
	if (ck->npass == CLEAN_PASSES_MAX) {
		/* The later time for both: tombstones stay longer, never less. */
		ck->pass[1].ms = ck->pass[1].ms > ck->pass[0].ms ?
		    ck->pass[1].ms : ck->pass[0].ms;
		memmove(&ck->pass[0], &ck->pass[1],
		    (size_t)(CLEAN_PASSES_MAX - 1) * sizeof(ck->pass[0]));
		ck->npass--;
	}
	ck->pass[ck->npass].end = end;
	ck->pass[ck->npass].ms = ms;
	ck->npass++;
}

/* ---- the key map ------------------------------------------------------ */

struct kmap {
	uint8_t		*v;		/* [cap] entries; offset -1: free */
	size_t		 cap, used, full_at;
};

static void
key_hash(const uint8_t *k, size_t len, uint64_t h[2])
{
	uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		a = (a ^ k[i]) * 0x100000001b3ULL;
		b = (b ^ k[i]) * 0x9e3779b97f4a7c15ULL;
		b ^= b >> 29;
	}
	a ^= len;
	b ^= (uint64_t)len << 32;
	h[0] = a ? a : 1;
	h[1] = b;
}

static int
kmap_init(struct kmap *m, size_t bytes)
{
	size_t i;

	m->cap = bytes / CLEAN_MAP_ENTRY;
	if (m->cap < 16)
		m->cap = 16;
	if ((m->v = malloc(m->cap * CLEAN_MAP_ENTRY)) == NULL)
		return -1;
	for (i = 0; i < m->cap; i++)
		memset(m->v + i * CLEAN_MAP_ENTRY, 0, 16);
	m->used = 0;
	m->full_at = m->cap * CLEAN_MAP_LOAD / 100;
	return 0;
}

/* Slot of key h: its entry, or the free one where it goes. */
static uint8_t *
kmap_slot(const struct kmap *m, const uint64_t h[2])
{
	size_t i = (size_t)(h[0] % m->cap);
	uint64_t a, b;

	for (;;) {
		uint8_t *e = m->v + i * CLEAN_MAP_ENTRY;

		memcpy(&a, e, 8);
		memcpy(&b, e + 8, 8);
		if (a == 0 || (a == h[0] && b == h[1]))
			return e;
		i = (i + 1) % m->cap;
	}
}

/* Put key -> offset: 0, or -1 when the map is full (nothing put). */
static int
kmap_put(struct kmap *m, const uint64_t h[2], int64_t off)
{
	uint8_t *e = kmap_slot(m, h);
	uint64_t a;

	memcpy(&a, e, 8);
	if (a == 0) {
		if (m->used >= m->full_at)
			return -1;
		memcpy(e, &h[0], 8);
		memcpy(e + 8, &h[1], 8);
		m->used++;
	}
	memcpy(e + 16, &off, 8);
	return 0;
}

static int64_t
kmap_get(const struct kmap *m, const uint64_t h[2])
{
	uint8_t *e = kmap_slot(m, h);
	uint64_t a;
	int64_t off;

	memcpy(&a, e, 8);
	if (a == 0)
		return -1;
	memcpy(&off, e + 16, 8);
	return off;
}

/* ---- producers' last batches ----------------------------------------- */

struct pidlast {
	int64_t		pid;
	int64_t		base;		/* base offset of its last batch */
};

struct pidset {
	struct pidlast	*v;
	size_t		 n, cap;
};

static int
pidset_note(struct pidset *ps, int64_t pid, int64_t base)
{
	size_t i;
	struct pidlast *nv;

	for (i = 0; i < ps->n; i++)
		if (ps->v[i].pid == pid) {
			if (base > ps->v[i].base)
				ps->v[i].base = base;
			return 0;
		}
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 16;
		if ((nv = reallocarray(ps->v, ps->cap, sizeof(*nv))) == NULL)
			return -1;
		ps->v = nv;
	}
	ps->v[ps->n].pid = pid;
	ps->v[ps->n].base = base;
	ps->n++;
	return 0;
}

static int
pidset_is_last(const struct pidset *ps, int64_t pid, int64_t base)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (ps->v[i].pid == pid)
			return ps->v[i].base == base;
	return 0;
}

/* ---- segments --------------------------------------------------------- */

/* A closed segment's max timestamp: its time index's last entry, or a scan. */
static int
cseg_max_ts(const char *dir, struct cseg *cs)
{
	char path[4096];
	struct tidx_entry e;
	struct hdr_cursor c;
	struct batch_header h;
	uint64_t pos = 0;
	int fd, r;

	cs->max_ts = TIDX_NONE;
	if (seg_path(path, sizeof(path), dir, cs->base, "timeindex") == 0 &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		struct stat st;

		r = fstat(fd, &st) == 0 && st.st_size % TIDX_ENTRY == 0 &&
		    st.st_size > 0 ? tidx_last(fd, &e) : 0;
		close(fd);
		if (r == 1) {
			cs->max_ts = e.ts;
			return 0;
		}
	}
	if (seg_path(path, sizeof(path), dir, cs->base, "log") == -1 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	hdr_cursor_init(&c, fd, cs->size);
	while ((r = hdr_cursor_get(&c, pos, &h)) == 1) {
		if (h.max_timestamp > cs->max_ts)
			cs->max_ts = h.max_timestamp;
		pos += batch_total_size(&h);
	}
	close(fd);
	return r == -1 ? -1 : 0;
}

/* The directory's segments with sizes; the last is the active one. */
static int
cseg_list(const char *dir, struct cseg **out, size_t *n)
{
	char path[4096];
	struct stat st;
	int64_t *bases;
	struct cseg *v;
	size_t i;

	if (seg_list(dir, &bases, n) == -1)
		return -1;
	if ((v = calloc(*n ? *n : 1, sizeof(*v))) == NULL) {
		free(bases);
		return -1;
	}
	for (i = 0; i < *n; i++) {
		v[i].base = bases[i];
		v[i].next = i + 1 < *n ? bases[i + 1] : INT64_MAX;
		if (seg_path(path, sizeof(path), dir, bases[i], "log") == -1 ||
		    stat(path, &st) == -1) {
			free(bases);
			free(v);
			return -1;
		}
		v[i].size = (uint64_t)st.st_size;
		v[i].max_ts = TIDX_NONE;
	}
	free(bases);
	*out = v;
	return 0;
}

/*
 * How many of the segments are cleanable: closed, wholly below the
 * limit, and none from the first with a record younger than the lag on.
 */
static size_t
cleanable_count(const char *dir, struct cseg *v, size_t n,
    const struct clean_config *cc)
{
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (v[i].next > cc->limit)
			break;
		if (cseg_max_ts(dir, &v[i]) == -1)
			break;
		if (cc->min_lag_ms > 0 && v[i].max_ts != TIDX_NONE &&
		    v[i].max_ts > cc->now_ms - cc->min_lag_ms)
			break;
	}
	return i;
}

int
clean_inspect(const char *dir, const struct clean_config *cc,
    struct clean_state *cs)
{
	struct clean_ckpt ck;
	struct cseg *v;
	size_t n, nc, i;

	memset(cs, 0, sizeof(*cs));
	cs->first_dirty_ts = -1;
	if (ckpt_load(dir, &ck) == -1 || cseg_list(dir, &v, &n) == -1)
		return -1;
	nc = cleanable_count(dir, v, n, cc);
	cs->checkpoint = ck.offset;
	cs->tombs_due = ck.tombs_due;
	cs->cleanable_end = nc > 0 ? v[nc - 1].next : (n > 0 ? v[0].base : 0);
	for (i = 0; i < nc; i++) {
		if (v[i].next <= ck.offset) {
			cs->clean_bytes += v[i].size;
			continue;
		}
		cs->dirty_bytes += v[i].size;
		if (cs->first_dirty_ts == -1 && v[i].max_ts != TIDX_NONE)
			cs->first_dirty_ts = v[i].max_ts;
	}
	free(v);
	return 0;
}

/* ---- reading batches -------------------------------------------------- */

struct breader {
	int		 fd;
	struct hdr_cursor c;
	uint64_t	 pos;
	uint8_t		*buf;
	size_t		 cap;
};

static int
breader_open(struct breader *br, const char *dir, const struct cseg *cs)
{
	char path[4096];

	br->fd = -1;
	if (seg_path(path, sizeof(path), dir, cs->base, "log") == -1 ||
	    (br->fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	hdr_cursor_init(&br->c, br->fd, cs->size);
	br->pos = 0;
	return 0;
}

/* The next whole batch, CRC checked: 1 with *b and *len, 0 at the end, -1. */
static int
breader_next(struct breader *br, uint8_t **b, size_t *len)
{
	struct batch_header h;
	size_t tot;
	uint8_t *nb;
	int r;

	if ((r = hdr_cursor_get(&br->c, br->pos, &h)) != 1)
		return r;
	tot = batch_total_size(&h);
	if (tot > br->cap) {
		if ((nb = realloc(br->buf, tot)) == NULL)
			return -1;
		br->buf = nb;
		br->cap = tot;
	}
	if (seg_pread_full(br->fd, br->buf, tot, (off_t)br->pos) != (ssize_t)tot)
		return -1;
	if (batch_check_crc(br->buf, tot) != BATCH_OK) {
		/* Damage in a closed segment: stop before it, clean nothing past. */
		errno = EBADMSG;
		return -1;
	}
	br->pos += tot;
	*b = br->buf;
	*len = tot;
	return 1;
}

static void
breader_close(struct breader *br)
{
	if (br->fd != -1)
		close(br->fd);
	br->fd = -1;
}

/* The records of batch b: uncompressed in place, else inflated into z. */
static int
batch_records(const uint8_t *b, size_t len, struct compress_buf *z,
    const uint8_t **rec, size_t *rlen)
{
	int codec = be16_get(b + BATCH_OFF_ATTRIBUTES) & BATCH_COMPRESSION_MASK;

	if (codec == COMPRESS_NONE) {
		*rec = b + BATCH_HEADER_SIZE;
		*rlen = len - BATCH_HEADER_SIZE;
		return 0;
	}
	z->len = 0;
	if (compress_inflate(codec, b + BATCH_HEADER_SIZE,
	    len - BATCH_HEADER_SIZE, z) != COMPRESS_OK) {
		errno = EBADMSG;
		return -1;
	}
	*rec = z->buf;
	*rlen = z->len;
	return 0;
}

/* One raw record: its span, offset delta, key and whether its value is null. */
struct rawrec {
	const uint8_t	*p;
	size_t		 len;		/* the whole record, length varint included */
	int32_t		 odelta;
	const uint8_t	*key;
	int32_t		 key_len;
	int		 tomb;
};

/* The record at p[0..end): 1 and *r, 0 at end, -1 malformed. */
static int
rawrec_next(const uint8_t **pp, const uint8_t *end, struct rawrec *r)
{
	const uint8_t *p = *pp, *q;
	int32_t len, odelta, klen, vlen;
	int64_t tsd;
	int n;

	if (p >= end)
		return 0;
	if ((n = varint_get(p, (size_t)(end - p), &len)) < 0 || len < 0 ||
	    (size_t)len > (size_t)(end - p) - (size_t)n)
		return -1;
	r->p = p;
	r->len = (size_t)n + (size_t)len;
	q = p + n;
	end = p + r->len;
	if (q >= end)
		return -1;
	q++;				/* attributes */
	if ((n = varlong_get(q, (size_t)(end - q), &tsd)) < 0)
		return -1;
	q += n;
	if ((n = varint_get(q, (size_t)(end - q), &odelta)) < 0)
		return -1;
	q += n;
	if ((n = varint_get(q, (size_t)(end - q), &klen)) < 0 ||
	    (klen >= 0 && (size_t)klen > (size_t)(end - q) - (size_t)n))
		return -1;
	q += n;
	r->key = klen >= 0 ? q : NULL;
	r->key_len = klen;
	if (klen > 0)
		q += klen;
	if ((n = varint_get(q, (size_t)(end - q), &vlen)) < 0)
		return -1;
	r->tomb = vlen < 0;
	r->odelta = odelta;
	*pp = p + r->len;
	return 1;
}

/* ---- throttle --------------------------------------------------------- */

struct throttle {
	uint64_t	 bps;
	uint64_t	 bytes;
	struct timespec	 t0;
};

static void
throttle_init(struct throttle *t, uint64_t bps)
{
	t->bps = bps;
	t->bytes = 0;
	clock_gettime(CLOCK_MONOTONIC, &t->t0);
}

/* Sleep as long as bytes moved so far run ahead of the rate. */
static void
throttle_add(struct throttle *t, uint64_t n)
{
	struct timespec now, ts;
	double due, el;

	t->bytes += n;
	if (t->bps == 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (double)(now.tv_sec - t->t0.tv_sec) +
	    (double)(now.tv_nsec - t->t0.tv_nsec) / 1e9;
	due = (double)t->bytes / (double)t->bps;
	if (due > el + 0.001) {
		due -= el;
		ts.tv_sec = (time_t)due;
		ts.tv_nsec = (long)((due - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
			;
	}
}

/* ---- writing outputs -------------------------------------------------- */

struct out {
	int64_t		 base;
	int		 fd[SEG_EXTS];	/* index, timeindex, txnindex, log (.cleaned) */
	uint64_t	 size;
	uint64_t	 last_idx_pos;
	int		 have_idx;
	int64_t		 max_ts;
	int64_t		 tidx_last_ts;
	int64_t		 last_base;
	uint32_t	 interval;
};

static int
out_open(struct out *o, const char *dir, int64_t base, uint32_t interval)
{
	char path[4096];
	int i;

	memset(o, 0, sizeof(*o));
	o->base = base;
	o->max_ts = o->tidx_last_ts = TIDX_NONE;
	o->last_base = -1;
	o->interval = interval;
	for (i = 0; i < SEG_EXTS; i++)
		o->fd[i] = -1;
	for (i = 0; i < SEG_EXTS; i++)
		if (seg_path_ext(path, sizeof(path), dir, base, seg_exts[i],
		    ".cleaned") == -1 ||
		    (o->fd[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644)) == -1)
			return -1;
	return 0;
}

static int
out_append(struct out *o, const uint8_t *b, size_t len)
{
	uint8_t e[TIDX_ENTRY];
	int64_t base = batch_base_offset(b), mts = (int64_t)be64_get(b + BATCH_OFF_MAX_TS);
	uint32_t rel = (uint32_t)(base - o->base);

	if (seg_write_all(o->fd[EXT_LOG], b, len) == -1)
		return -1;
	if (mts > o->max_ts)
		o->max_ts = mts;
	if (!o->have_idx || o->size - o->last_idx_pos >= o->interval) {
		be32_put(e, rel);
		be32_put(e + 4, (uint32_t)o->size);
		if (seg_write_all(o->fd[0], e, SEG_INDEX_ENTRY) == -1)
			return -1;
		tidx_put(e, o->max_ts, rel);
		if (seg_write_all(o->fd[1], e, TIDX_ENTRY) == -1)
			return -1;
		o->tidx_last_ts = o->max_ts;
		o->last_idx_pos = o->size;
		o->have_idx = 1;
	}
	o->last_base = base;
	o->size += len;
	return 0;
}

/* Close a finished output: the time index's closing entry, syncs. */
static int
out_finish(struct out *o)
{
	uint8_t e[TIDX_ENTRY];
	int i;

	/* As plog_close_timeindex: the closing entry when the max rose. */
	if (o->last_base >= 0 && o->max_ts > o->tidx_last_ts) {
		tidx_put(e, o->max_ts, (uint32_t)(o->last_base - o->base));
		if (seg_write_all(o->fd[1], e, TIDX_ENTRY) == -1)
			return -1;
	}
	for (i = 0; i < SEG_EXTS; i++) {
		if (fd_sync(o->fd[i]) == -1)
			return -1;
		close(o->fd[i]);
		o->fd[i] = -1;
	}
	return 0;
}

static void
out_close(struct out *o)
{
	int i;

	for (i = 0; i < SEG_EXTS; i++)
		if (o->fd[i] != -1) {
			close(o->fd[i]);
			o->fd[i] = -1;
		}
}

/* Remove every .cleaned and .swap file of dir. */
static int
remove_leftovers(const char *dir)
{
	char path[4096];
	DIR *d;
	struct dirent *de;
	size_t l;
	int changed = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		l = strlen(de->d_name);
		if ((l > 8 && strcmp(de->d_name + l - 8, ".cleaned") == 0) ||
		    (l > 5 && strcmp(de->d_name + l - 5, ".swap") == 0)) {
			if (snprintf(path, sizeof(path), "%s/%s", dir,
			    de->d_name) < (int)sizeof(path) && unlink(path) == 0)
				changed = 1;
		}
	}
	closedir(d);
	return changed;
}

/* ---- the manifest and the swap ---------------------------------------- */

struct manifest {
	int64_t		 from, to;	/* old segments with base in [from, to) */
	size_t		 n;
	int64_t		*bases;		/* the new ones */
};

static int
manifest_save(const char *dir, const struct manifest *m)
{
	char *buf;
	size_t cap = 128 + m->n * 32, n, i;
	int rc;

	if ((buf = malloc(cap)) == NULL)
		return -1;
	n = (size_t)snprintf(buf, cap, "flume-cleaner-swap 1\nrange %lld %lld\n",
	    (long long)m->from, (long long)m->to);
	for (i = 0; i < m->n; i++)
		n += (size_t)snprintf(buf + n, cap - n, "segment %lld\n",
		    (long long)m->bases[i]);
	n += (size_t)snprintf(buf + n, cap - n, "crc32c %08x\n",
	    crc32c(0, buf, n));
	rc = store_file_replace(dir, CLEAN_MANIFEST, buf, n);
	free(buf);
	return rc;
}

/* 1 and *m (bases malloc'ed), 0 when there is none or it is damaged, -1. */
static int
manifest_load(const char *dir, struct manifest *m)
{
	char path[4096], *buf, *line, *save = NULL;
	size_t len, body;
	long long a, b;
	int64_t *nv;
	int have = 0;

	memset(m, 0, sizeof(*m));
	if (snprintf(path, sizeof(path), "%s/%s", dir, CLEAN_MANIFEST) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (store_file_read(path, 1 << 24, &buf, &len) == -1)
		return errno == ENOENT ? 0 : -1;
	if (store_text_check(buf, len, &body) == -1) {
		free(buf);
		return 0;
	}
	buf[body] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "range %lld %lld", &a, &b) == 2) {
			m->from = a;
			m->to = b;
			have = 1;
		} else if (sscanf(line, "segment %lld", &a) == 1) {
			if ((nv = reallocarray(m->bases, m->n + 1,
			    sizeof(*nv))) == NULL) {
				free(buf);
				free(m->bases);
				return -1;
			}
			m->bases = nv;
			m->bases[m->n++] = a;
		}
	}
	free(buf);
	if (!have) {
		free(m->bases);
		m->bases = NULL;
		return 0;
	}
	return 1;
}

static int
is_new_base(const struct manifest *m, int64_t base)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->bases[i] == base)
			return 1;
	return 0;
}

/*
 * Carry a committed swap out from wherever it stands (idempotent):
 * .cleaned -> .swap, each .swap over its name, old segments the manifest
 * covers unlinked, the manifest removed; the directory synced between.
 * hook (tests) may stop it at a step.
 */
static int
swap_forward(const char *dir, const struct manifest *m,
    int (*hook)(void *, int), void *arg)
{
	char from[4096], to[4096];
	int64_t *bases;
	size_t i, n, k;
	int e;

	for (i = 0; i < m->n; i++)
		for (e = 0; e < SEG_EXTS; e++) {
			if (seg_path_ext(from, sizeof(from), dir, m->bases[i],
			    seg_exts[e], ".cleaned") == -1 ||
			    seg_path_ext(to, sizeof(to), dir, m->bases[i],
			    seg_exts[e], ".swap") == -1)
				return -1;
			if (rename(from, to) == -1 && errno != ENOENT)
				return -1;
		}
	if (store_dir_sync(dir) == -1)
		return -1;
	if (hook != NULL && hook(arg, 2)) {
		errno = EINTR;
		return -1;
	}
	for (i = 0; i < m->n; i++) {
		/* Indexes first, the log last: see clean.h. */
		for (e = 0; e < SEG_EXTS; e++) {
			if (seg_path_ext(from, sizeof(from), dir, m->bases[i],
			    seg_exts[e], ".swap") == -1 ||
			    seg_path_ext(to, sizeof(to), dir, m->bases[i],
			    seg_exts[e], "") == -1)
				return -1;
			if (rename(from, to) == -1 && errno != ENOENT)
				return -1;
		}
		if (i == 0 && hook != NULL && hook(arg, 3)) {
			errno = EINTR;
			return -1;
		}
	}
	if (seg_list(dir, &bases, &n) == -1)
		return -1;
	for (k = 0; k < n; k++) {
		if (bases[k] < m->from || bases[k] >= m->to ||
		    is_new_base(m, bases[k]))
			continue;
		/* The log first: readers look for logs. */
		for (e = EXT_LOG; e >= 0; e--)
			if (seg_path_ext(to, sizeof(to), dir, bases[k],
			    seg_exts[e], "") == 0)
				(void)unlink(to);
	}
	free(bases);
	if (store_dir_sync(dir) == -1)
		return -1;
	if (hook != NULL && hook(arg, 4)) {
		errno = EINTR;
		return -1;
	}
	if (snprintf(to, sizeof(to), "%s/%s", dir, CLEAN_MANIFEST) >=
	    (int)sizeof(to))
		return -1;
	if (unlink(to) == -1 && errno != ENOENT)
		return -1;
	return store_dir_sync(dir);
}

int
clean_recover(const char *dir)
{
	struct manifest m;
	int r, changed;

	if ((r = manifest_load(dir, &m)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (r == 1) {
		r = swap_forward(dir, &m, NULL, NULL);
		free(m.bases);
		return r == -1 ? -1 : 1;
	}
	/* No commit: what a pass left is not part of the log. */
	if ((changed = remove_leftovers(dir)) == -1)
		return errno == ENOENT ? 0 : -1;
	{
		char path[4096];

		if (snprintf(path, sizeof(path), "%s/%s", dir,
		    CLEAN_MANIFEST) < (int)sizeof(path) && unlink(path) == 0)
			changed = 1;
	}
	if (changed && store_dir_sync(dir) == -1)
		return -1;
	return changed;
}

/* ---- the pass --------------------------------------------------------- */

struct pass {
	const char		*dir;
	const struct clean_config *cc;
	struct clean_stats	*st;
	struct clean_ckpt	 ck;
	struct kmap		 map;
	struct pidset		 pids;
	struct compress_buf	 z, zout;
	uint8_t			*kbuf;		/* the records a batch keeps */
	size_t			 klen, kcap;
	uint8_t			*nb;		/* a rebuilt batch */
	size_t			 nbcap;
	struct throttle		 th;
	int64_t			 tombs_due;	/* of the tombstones kept */
	struct txn_aborted	*ab;		/* the partition's aborted transactions */
	size_t			 nab;
};

/*
 * Transactions (DESIGN.md section 3), as Kafka's LogCleaner: a batch of
 * an aborted transaction is discarded (its keys never enter the map, so
 * it cannot hide a committed record), and control batches (markers)
 * are kept whole and their records are no keys.  Markers are never
 * removed: Kafka may drop one once its transaction's data is gone and
 * delete.retention.ms has passed, which keeping it always satisfies.
 */
static int
batch_aborted(const struct pass *ps, const uint8_t *b)
{
	int64_t pid, base;
	size_t i;

	if (ps->nab == 0 || !ctrl_is_transactional(b) || ctrl_is_control(b))
		return 0;
	pid = (int64_t)be64_get(b + BATCH_OFF_PRODUCER_ID);
	base = batch_base_offset(b);
	for (i = 0; i < ps->nab; i++)
		if (ps->ab[i].pid == pid && ps->ab[i].first <= base &&
		    base <= ps->ab[i].last)
			return 1;
	return 0;
}

/* Every aborted transaction of the partition (all segments' indexes). */
static int
aborted_load(struct pass *ps)
{
	int64_t *bases = NULL;
	size_t nb = 0, cap = 0;
	int rc;

	if (seg_list(ps->dir, &bases, &nb) == -1)
		return -1;
	rc = txnindex_collect(ps->dir, bases, nb, 0, INT64_MAX, &ps->ab,
	    &ps->nab, &cap);
	free(bases);
	return rc;
}

/* Copy segment base's aborted-transaction entries to output o. */
static int
out_txnindex(struct out *o, const char *dir, int64_t base)
{
	struct txn_aborted *v;
	uint8_t e[TXNINDEX_ENTRY];
	size_t n, i;
	int rc = 0;

	if (txnindex_load(dir, base, &v, &n) == -1)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		txnindex_encode(e, &v[i]);
		rc = seg_write_all(o->fd[EXT_TXN], e, sizeof(e));
	}
	free(v);
	return rc;
}

static int
pass_yield(struct pass *ps)
{
	if (ps->cc->yield != NULL &&
	    ps->cc->yield(ps->cc->yield_arg, ps->st->bytes_read +
	    ps->st->bytes_written)) {
		errno = ECANCELED;
		return -1;
	}
	return 0;
}

/*
 * Map the keys of segment cs (1: all of it went in; 0: the map filled,
 * entries of it may be in: harmless, see clean.h), noting producers.
 */
static int
map_segment(struct pass *ps, const struct cseg *cs)
{
	struct breader br = { .fd = -1 };
	struct rawrec rr;
	const uint8_t *rec, *p, *end;
	uint8_t *b;
	size_t len, rlen;
	uint64_t h[2];
	int r, full = 0;

	br.buf = NULL;
	br.cap = 0;
	if (breader_open(&br, ps->dir, cs) == -1)
		return -1;
	while (!full && (r = breader_next(&br, &b, &len)) == 1) {
		ps->st->bytes_read += len;
		throttle_add(&ps->th, len);
		/* Markers have no keys; aborted data never counts. */
		if (ctrl_is_control(b) || batch_aborted(ps, b))
			continue;
		if (batch_records(b, len, &ps->z, &rec, &rlen) == -1)
			goto fail;
		p = rec;
		end = rec + rlen;
		while ((r = rawrec_next(&p, end, &rr)) == 1) {
			if (rr.key == NULL)
				continue;
			key_hash(rr.key, (size_t)rr.key_len, h);
			if (kmap_put(&ps->map, h, batch_base_offset(b) +
			    rr.odelta) == -1) {
				full = 1;
				break;
			}
		}
		if (r == -1) {
			errno = EBADMSG;
			goto fail;
		}
		if (pass_yield(ps) == -1)
			goto fail;
	}
	if (!full && r == -1)
		goto fail;
	breader_close(&br);
	free(br.buf);
	return full ? 0 : 1;
fail:
	{
		int saved = errno;

		breader_close(&br);
		free(br.buf);
		errno = saved;
	}
	return -1;
}

/* Note the producers' batches of segment cs (headers only). */
static int
note_producers(struct pass *ps, const struct cseg *cs)
{
	char path[4096];
	struct hdr_cursor c;
	struct batch_header h;
	uint64_t pos = 0;
	int fd, r;

	if (seg_path(path, sizeof(path), ps->dir, cs->base, "log") == -1 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	hdr_cursor_init(&c, fd, cs->size);
	while ((r = hdr_cursor_get(&c, pos, &h)) == 1) {
		if (h.producer_id >= 0 &&
		    pidset_note(&ps->pids, h.producer_id, h.base_offset) == -1) {
			r = -1;
			break;
		}
		pos += batch_total_size(&h);
	}
	close(fd);
	return r == -1 ? -1 : 0;
}

/* Whether the record goes (see clean.h). */
static int
record_goes(struct pass *ps, const struct rawrec *rr, int64_t off)
{
	uint64_t h[2];
	int64_t latest, first;

	if (rr->key == NULL)
		return 0;
	key_hash(rr->key, (size_t)rr->key_len, h);
	latest = kmap_get(&ps->map, h);
	if (latest > off)
		return 1;
	if (!rr->tomb)
		return 0;
	first = ckpt_first_cleaned(&ps->ck, off);
	if (first >= 0 && ps->cc->now_ms - first > ps->cc->delete_retention_ms)
		return 1;
	if (first >= 0 && first + ps->cc->delete_retention_ms + 1 > ps->tombs_due)
		ps->tombs_due = first + ps->cc->delete_retention_ms + 1;
	return 0;
}

static int
nb_reserve(struct pass *ps, size_t n)
{
	uint8_t *nb;

	if (n <= ps->nbcap)
		return 0;
	if ((nb = realloc(ps->nb, n)) == NULL)
		return -1;
	ps->nb = nb;
	ps->nbcap = n;
	return 0;
}

static int
kept_add(struct pass *ps, const uint8_t *p, size_t n)
{
	uint8_t *nb;
	size_t ncap;

	if (ps->klen + n > ps->kcap) {
		ncap = ps->kcap ? ps->kcap : 4096;
		while (ncap < ps->klen + n)
			ncap *= 2;
		if ((nb = realloc(ps->kbuf, ncap)) == NULL)
			return -1;
		ps->kbuf = nb;
		ps->kcap = ncap;
	}
	memcpy(ps->kbuf + ps->klen, p, n);
	ps->klen += n;
	return 0;
}

/*
 * Filter batch b into the output: unchanged, rebuilt with fewer records,
 * a header alone (a producer's last batch emptied), or nothing.
 */
static int
clean_batch(struct pass *ps, struct out *o, const uint8_t *b, size_t len)
{
	struct rawrec rr;
	const uint8_t *rec, *p, *end, *src;
	int64_t base = batch_base_offset(b), pid;
	int32_t count = 0, total = 0;
	int codec = be16_get(b + BATCH_OFF_ATTRIBUTES) & BATCH_COMPRESSION_MASK;
	size_t rlen, outlen;
	int r, aborted;

	if (ctrl_is_control(b))
		return out_append(o, b, len);
	aborted = batch_aborted(ps, b);
	if (batch_records(b, len, &ps->z, &rec, &rlen) == -1)
		return -1;
	ps->klen = 0;
	p = rec;
	end = rec + rlen;
	while ((r = rawrec_next(&p, end, &rr)) == 1) {
		total++;
		if (aborted || record_goes(ps, &rr, base + rr.odelta))
			continue;
		if (kept_add(ps, rr.p, rr.len) == -1)
			return -1;
		count++;
	}
	if (r == -1) {
		errno = EBADMSG;
		return -1;
	}
	ps->st->records_removed += (uint64_t)(total - count);
	if (count == total)
		return out_append(o, b, len);
	pid = (int64_t)be64_get(b + BATCH_OFF_PRODUCER_ID);
	if (count == 0 && !(pid >= 0 && pidset_is_last(&ps->pids, pid, base)))
		return 0;
	src = ps->kbuf;
	rlen = ps->klen;
	if (codec != COMPRESS_NONE && count > 0) {
		ps->zout.len = 0;
		if (compress_deflate(codec, ps->kbuf, ps->klen,
		    &ps->zout) != COMPRESS_OK) {
			errno = ENOMEM;
			return -1;
		}
		src = ps->zout.buf;
		rlen = ps->zout.len;
	}
	outlen = BATCH_HEADER_SIZE + rlen;
	if (nb_reserve(ps, outlen) == -1)
		return -1;
	memcpy(ps->nb, b, BATCH_HEADER_SIZE);
	if (rlen > 0)
		memcpy(ps->nb + BATCH_HEADER_SIZE, src, rlen);
	be32_put(ps->nb + BATCH_OFF_LENGTH, (uint32_t)(outlen - BATCH_LOG_OVERHEAD));
	be32_put(ps->nb + BATCH_OFF_COUNT, (uint32_t)count);
	if (count == 0) {
		/* An empty batch: its records are none, whatever the codec. */
		be16_put(ps->nb + BATCH_OFF_ATTRIBUTES, (uint16_t)(be16_get(ps->nb +
		    BATCH_OFF_ATTRIBUTES) & ~BATCH_COMPRESSION_MASK));
	}
	be32_put(ps->nb + BATCH_OFF_CRC, crc32c(0, ps->nb + BATCH_CRC_START,
	    outlen - BATCH_CRC_START));
	return out_append(o, ps->nb, outlen);
}

/* Rewrite old segments v[from..to) into one output named v[from].base. */
static int
rewrite_group(struct pass *ps, const struct cseg *v, size_t from, size_t to)
{
	struct out o;
	struct breader br = { .fd = -1 };
	uint8_t *b;
	size_t i, len;
	int r;

	br.buf = NULL;
	br.cap = 0;
	if (out_open(&o, ps->dir, v[from].base, ps->cc->index_interval_bytes) == -1)
		goto fail;
	for (i = from; i < to; i++) {
		ps->st->bytes_before += v[i].size;
		/* The aborts its markers ended go with the output. */
		if (out_txnindex(&o, ps->dir, v[i].base) == -1)
			goto fail;
		if (breader_open(&br, ps->dir, &v[i]) == -1)
			goto fail;
		while ((r = breader_next(&br, &b, &len)) == 1) {
			ps->st->bytes_read += len;
			throttle_add(&ps->th, len);
			if (clean_batch(ps, &o, b, len) == -1)
				goto fail;
			if (pass_yield(ps) == -1)
				goto fail;
		}
		if (r == -1)
			goto fail;
		breader_close(&br);
	}
	if (out_finish(&o) == -1)
		goto fail;
	ps->st->bytes_written += o.size;
	ps->st->bytes_after += o.size;
	throttle_add(&ps->th, o.size);
	free(br.buf);
	return 0;
fail:
	{
		int saved = errno;

		breader_close(&br);
		out_close(&o);
		free(br.buf);
		errno = saved;
	}
	return -1;
}

/* 1 when every segment of v[0..n) is still in dir, 0 when not, -1. */
static int
segments_still_there(const char *dir, const struct cseg *v, size_t n)
{
	int64_t *bases;
	size_t nb, i, j = 0;
	int ok = 1;

	if (seg_list(dir, &bases, &nb) == -1)
		return -1;
	for (i = 0; i < n && ok; i++) {
		while (j < nb && bases[j] < v[i].base)
			j++;
		ok = j < nb && bases[j] == v[i].base;
	}
	free(bases);
	return ok;
}

int
clean_partition(const char *dir, const struct clean_config *cc,
    struct clean_stats *st)
{
	struct pass ps;
	struct clean_ckpt ck_before;
	struct manifest m = { 0, 0, 0, NULL };
	struct cseg *v = NULL;
	size_t n = 0, nc, i, first_dirty, end, g;
	uint64_t acc;
	int r, rc = -1, saved, locked = 0;

	memset(st, 0, sizeof(*st));
	memset(&ps, 0, sizeof(ps));
	ps.dir = dir;
	ps.cc = cc;
	ps.st = st;
	compress_buf_init(&ps.z, cc->inflate_limit);
	compress_buf_init(&ps.zout, COMPRESS_LIMIT_MAX);
	throttle_init(&ps.th, cc->io_bytes_per_sec);
	/* A previous pass that died: finish or discard it first. */
	if (cc->swap_begin != NULL && cc->swap_begin(cc->swap_lock_arg) != 0)
		goto out;
	r = clean_recover(dir);
	if (cc->swap_done != NULL)
		cc->swap_done(cc->swap_lock_arg);
	if (r == -1)
		goto out;
	if (ckpt_load(dir, &ps.ck) == -1 || cseg_list(dir, &v, &n) == -1 ||
	    aborted_load(&ps) == -1)
		goto out;
	nc = cleanable_count(dir, v, n, cc);
	st->checkpoint = ps.ck.offset;
	for (first_dirty = 0; first_dirty < nc; first_dirty++)
		if (v[first_dirty].next > ps.ck.offset)
			break;
	if (kmap_init(&ps.map, cc->dedupe_bytes) == -1)
		goto out;
	if (first_dirty == nc) {
		/*
		 * Nothing dirty, but tombstones kept by earlier passes may
		 * go now: a pass over the clean part with an empty map.
		 */
		if (nc == 0 || ps.ck.tombs_due == 0 || cc->now_ms < ps.ck.tombs_due) {
			rc = 0;
			goto out;
		}
	}
	/* The map over the dirty part, whole segments while it has room. */
	for (end = first_dirty; end < nc; end++) {
		if ((r = map_segment(&ps, &v[end])) == -1)
			goto out;
		if (r == 0) {
			if (end == first_dirty) {
				errno = ENOSPC;
				goto out;
			}
			break;
		}
	}
	for (i = 0; i < end; i++)
		if (note_producers(&ps, &v[i]) == -1)
			goto out;
	/* Its tombstones count as cleaned from now (once it swaps). */
	ck_before = ps.ck;
	ckpt_add_pass(&ps.ck, v[end - 1].next, cc->now_ms);
	/* Rewrite [0, end), neighbours merged by their original sizes. */
	if ((m.bases = calloc(end, sizeof(*m.bases))) == NULL)
		goto out;
	m.from = v[0].base;
	m.to = v[end - 1].next;
	for (i = 0; i < end; i = g) {
		acc = v[i].size;
		for (g = i + 1; g < end && acc + v[g].size <= cc->segment_bytes &&
		    v[g].next - v[i].base <= (int64_t)SEG_REL_MAX; g++)
			acc += v[g].size;
		if (rewrite_group(&ps, v, i, g) == -1)
			goto out;
		m.bases[m.n++] = v[i].base;
		st->segments_out++;
	}
	st->segments_in = (int)end;
	/* Retention or DeleteRecords may have taken some meanwhile. */
	if (cc->swap_begin != NULL) {
		if (cc->swap_begin(cc->swap_lock_arg) != 0) {
			errno = EAGAIN;
			goto out;
		}
		locked = 1;
	}
	if (segments_still_there(dir, v, end) != 1) {
		errno = EAGAIN;
		goto out;
	}
	/*
	 * The checkpoint exists before the first swap: readers take a log
	 * with one for compacted (seg_dir_compacted), gaps and all.
	 */
	if (!seg_dir_compacted(dir) && ckpt_save(dir, &ck_before) == -1)
		goto out;
	if (manifest_save(dir, &m) == -1)
		goto out;
	if (cc->swap_hook != NULL && cc->swap_hook(cc->swap_arg, 1)) {
		errno = EINTR;
		goto out_keep;
	}
	if (swap_forward(dir, &m, cc->swap_hook, cc->swap_arg) == -1)
		goto out_keep;
	ps.ck.offset = v[end - 1].next;
	ps.ck.tombs_due = ps.tombs_due;
	st->checkpoint = ps.ck.offset;
	if (ckpt_save(dir, &ps.ck) == -1)
		goto out_keep;
	rc = 0;
	goto out_keep;
out:
	saved = errno;
	/* Never committed: the .cleaned files are not the log. */
	(void)remove_leftovers(dir);
	errno = saved;
out_keep:
	saved = errno;
	if (locked && cc->swap_done != NULL)
		cc->swap_done(cc->swap_lock_arg);
	free(m.bases);
	free(v);
	free(ps.ab);
	free(ps.map.v);
	free(ps.pids.v);
	free(ps.nb);
	compress_buf_free(&ps.z);
	free(ps.kbuf);
	compress_buf_free(&ps.zout);
	errno = saved;
	return rc;
}
