/*
 * Each worker's connections in shared memory (shm/conntab.h).
 */
#include <stdatomic.h>
#include <string.h>

#include "shm/conntab.h"
#include "shm/shm.h"

#define CONNTAB_READ_TRIES	8

static uint32_t	take_hint;	/* where conntab_take looks first */

size_t
conntab_table_size(const struct shm_limits *lim)
{
	size_t n;

	if (__builtin_mul_overflow((size_t)lim->child_slots,
	    (size_t)lim->conn_slots, &n) ||
	    __builtin_mul_overflow(n, sizeof(struct conntab_entry), &n))
		return SIZE_MAX;
	return n;
}

uint32_t
conntab_slots(const struct shm *s)
{
	return s->hdr->limits.conn_slots;
}

static struct conntab_entry *
table(const struct shm *s, uint32_t slot)
{
	return (struct conntab_entry *)(void *)s->conntab +
	    (size_t)slot * s->hdr->limits.conn_slots;
}

/* Open and close entry e for writing (its worker alone writes it). */
static void
write_begin(struct conntab_entry *e)
{
	atomic_fetch_add_explicit(&e->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

static void
write_end(struct conntab_entry *e)
{
	atomic_fetch_add_explicit(&e->seq, 1, memory_order_release);
}

/*
 * Copy at most max - 1 bytes of src[0..len) as a C string, anything but
 * printable ASCII as '?': what clients send is shown on terminals.
 */
static void
copy_str(char *dst, size_t max, const char *src, size_t len)
{
	size_t i;

	if (len > max - 1)
		len = max - 1;
	for (i = 0; i < len; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[len] = '\0';
}

int
conntab_take(struct shm *s, uint32_t slot, int face, int tls,
    const char *peer, int64_t opened_ms)
{
	struct conntab_entry *t = table(s, slot), *e;
	uint32_t i, k, n = s->hdr->limits.conn_slots;

	/*
	 * From after the last entry taken (this process's, one worker per
	 * process): a free one is then usually the first looked at.
	 */
	for (k = 0; k < n; k++) {
		i = (take_hint + k) % n;
		e = &t[i];
		/* An odd seq: a write a dead worker left; never reused. */
		if (e->used || (atomic_load_explicit(&e->seq,
		    memory_order_relaxed) & 1))
			continue;
		write_begin(e);
		e->face = (uint8_t)face;
		e->tls = tls != 0;
		e->opened_ms = opened_ms;
		copy_str(e->peer, sizeof(e->peer), peer, strlen(peer));
		e->sw_name[0] = e->sw_version[0] = '\0';
		e->used = 1;
		write_end(e);
		take_hint = i + 1;
		return (int)i;
	}
	return -1;
}

void
conntab_set_client(struct shm *s, uint32_t slot, int idx, const char *name,
    size_t nlen, const char *version, size_t vlen)
{
	struct conntab_entry *e;

	if (idx < 0)
		return;
	e = &table(s, slot)[idx];
	write_begin(e);
	copy_str(e->sw_name, sizeof(e->sw_name), name, nlen);
	copy_str(e->sw_version, sizeof(e->sw_version), version, vlen);
	write_end(e);
}

void
conntab_set_tls(struct shm *s, uint32_t slot, int idx)
{
	struct conntab_entry *e;

	if (idx < 0)
		return;
	e = &table(s, slot)[idx];
	write_begin(e);
	e->tls = 1;
	write_end(e);
}

void
conntab_release(struct shm *s, uint32_t slot, int idx)
{
	struct conntab_entry *e;

	if (idx < 0)
		return;
	e = &table(s, slot)[idx];
	write_begin(e);
	e->used = 0;
	write_end(e);
}

int
conntab_read(const struct shm *s, uint32_t slot, uint32_t idx,
    struct conntab_entry *out)
{
	struct conntab_entry *e = &table(s, slot)[idx];
	uint32_t a, b;
	int i;

	for (i = 0; i < CONNTAB_READ_TRIES; i++) {
		a = atomic_load_explicit(&e->seq, memory_order_acquire);
		if (a & 1)
			continue;
		memcpy((char *)out + sizeof(out->seq),
		    (const char *)e + sizeof(e->seq),
		    sizeof(*e) - sizeof(e->seq));
		atomic_thread_fence(memory_order_acquire);
		b = atomic_load_explicit(&e->seq, memory_order_relaxed);
		if (a == b) {
			out->peer[sizeof(out->peer) - 1] = '\0';
			out->sw_name[sizeof(out->sw_name) - 1] = '\0';
			out->sw_version[sizeof(out->sw_version) - 1] = '\0';
			return out->used != 0;
		}
	}
	return 0;
}

void
conntab_clear(struct shm *s, uint32_t slot)
{
	struct conntab_entry *t = table(s, slot);
	uint32_t i, n = s->hdr->limits.conn_slots;

	for (i = 0; i < n; i++) {
		t[i].used = 0;
		atomic_store_explicit(&t[i].seq, 0, memory_order_release);
	}
}
