/*
 * Producers of a partition and topic paging (worker/op/describe.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "common/authfile.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "shm/conntab.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "shm/shm.h"
#include "store/plog.h"
#include "worker/op/access.h"
#include "worker/op/describe.h"
#include "worker/op/part.h"
#include "worker/op/reader.h"
#include "worker/worker.h"

/*
 * The max timestamp of the batch at base of p, if the writer has made it
 * visible and it reads: else -1.  The producer table keeps offsets, not
 * times, so the batch's header answers.
 */
static int64_t
batch_max_ts(struct worker *w, struct shm_partition *p, int64_t base)
{
	uint8_t hdr[BATCH_HEADER_SIZE];
	struct plog_reader *rd;
	struct plog_slice sl;
	int64_t visible;

	visible = atomic_load_explicit(&p->visible_offset,
	    memory_order_acquire);
	if (base < 0 || base >= visible || (rd = op_reader(w, p)) == NULL)
		return -1;
	if (plog_reader_read(rd, base, visible, 1, &sl) == -1 ||
	    sl.len < BATCH_HEADER_SIZE || sl.first_offset != base ||
	    pread(sl.fd, hdr, sizeof(hdr), sl.pos) != (ssize_t)sizeof(hdr))
		return -1;
	return (int64_t)be64_get(hdr + BATCH_OFF_MAX_TS);
}

enum op_err
op_producers(const struct op_ctx *x, const char *topic, size_t len,
    int32_t partition, struct op_producer **out, int *n)
{
	struct producer_info info[PRODUCER_SLOTS];
	struct shm_partition *p;
	enum op_err err;
	int i, k;

	*out = NULL;
	*n = 0;
	if ((err = op_access_topic(x, AUTH_CONSUME | AUTH_ADMIN, topic,
	    len)) != OP_OK)
		return err;
	if ((err = op_part_resolve(x->w, topic, len, partition, 0, &p)) !=
	    OP_OK)
		return err;
	if (part_lock(x->w->shm, p) == -1)
		return OP_INTERNAL;
	k = producer_list(x->w->shm, p, info, PRODUCER_SLOTS);
	part_unlock(p);
	if (k == 0)
		return OP_OK;
	if ((*out = op_alloc(x, (size_t)k * sizeof(**out))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < k; i++) {
		(*out)[i].pid = info[i].pid;
		(*out)[i].epoch = info[i].epoch;
		(*out)[i].last_seq = info[i].last_seq;
		(*out)[i].last_ts = info[i].last_base < 0 ? -1 :
		    batch_max_ts(x->w, p, info[i].last_base);
		(*out)[i].txn_first = info[i].txn_first;
	}
	*n = k;
	return OP_OK;
}

long
op_topic_page(struct op_page_topic *t, size_t n, int32_t limit,
    int32_t *next)
{
	int64_t remaining = limit, upper;
	size_t i;

	*next = -1;
	for (i = 0; i < n; i++) {
		t[i].shown = 0;
		t[i].from = t[i].to = 0;
	}
	for (i = 0; i < n; i++) {
		if (remaining == 0) {
			*next = 0;
			return (long)i;
		}
		t[i].shown = 1;
		if (t[i].nparts < 0)
			continue;	/* an error, which takes none */
		upper = (int64_t)t[i].start + remaining;
		if (upper > t[i].nparts)
			upper = t[i].nparts;
		t[i].from = t[i].start;
		t[i].to = upper > t[i].start ? (int32_t)upper : t[i].start;
		if (upper < t[i].nparts) {
			*next = (int32_t)upper;
			return (long)i;
		}
		remaining -= t[i].to - t[i].from;
	}
	return -1;
}

/* A copy of s in request memory, or NULL. */
static const char *
op_strdup(const struct op_ctx *x, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if ((p = op_alloc(x, n)) != NULL)
		memcpy(p, s, n);
	return p;
}

enum op_err
op_connections(const struct op_ctx *x, struct op_conn **out, int32_t *n)
{
	struct shm *shm = x->w->shm;
	struct shm_child *ch;
	struct conntab_entry e;
	struct op_conn *v = NULL, *nv;
	uint32_t i, j, slots = shm->hdr->limits.child_slots;
	uint32_t per = conntab_slots(shm);
	int32_t pid, cap = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < slots; i++) {
		ch = &shm->children[i];
		if (ch->role != ROLE_WORKER || (pid = atomic_load(&ch->pid)) <= 0)
			continue;
		for (j = 0; j < per; j++) {
			if (!conntab_read(shm, i, j, &e))
				continue;
			if (*n == cap) {
				/* Request memory is not freed: grow by doubling. */
				cap = cap == 0 ? 16 : cap * 2;
				if ((nv = op_alloc(x, (size_t)cap *
				    sizeof(*nv))) == NULL)
					return OP_NO_MEMORY;
				if (*n > 0)
					memcpy(nv, v, (size_t)*n * sizeof(*nv));
				v = nv;
			}
			v[*n].slot = (int32_t)i;
			v[*n].pid = pid;
			v[*n].kafka = e.face == CONNTAB_KAFKA;
			v[*n].tls = (int8_t)e.tls;
			v[*n].opened_ms = e.opened_ms;
			if ((v[*n].peer = op_strdup(x, e.peer)) == NULL ||
			    (v[*n].sw_name = op_strdup(x, e.sw_name)) == NULL ||
			    (v[*n].sw_version = op_strdup(x,
			    e.sw_version)) == NULL)
				return OP_NO_MEMORY;
			(*n)++;
		}
	}
	*out = v;
	return OP_OK;
}
