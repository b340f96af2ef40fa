/*
 * Kafka requests through the codec for the integration suites; see
 * kcall.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "proto/kafka/kdesc.h"
#include "proto/wire.h"
#include "tests/integration/kcall.h"
#include "tests/integration/support.h"

static uint8_t *held[64];
static int nheld;
static struct arena arena;

void
kcall_release(void)
{
	while (nheld > 0)
		free(held[--nheld]);
	arena_free(&arena);
	memset(&arena, 0, sizeof(arena));
}

static int
kcall_answer(int fd, const struct kmsg *m, int16_t v, int32_t corr,
    void *resp)
{
	uint8_t *p = NULL;
	size_t n = 0, off = 0;
	uint32_t id = 0;

	if (arena.cap == 0)
		arena_init(&arena, 1 << 20);
	if (support_recv(fd, 35000, &id, &p, &n) != 1 || p == NULL)
		return -1;
	if (nheld < (int)(sizeof(held) / sizeof(held[0])))
		held[nheld++] = p;
	if (id != (uint32_t)corr)
		return -1;
	if (kmsg_resp_hdr_version(m->km_key, v) == 1) {
		if (n < 1 || p[0] != 0)
			return -1;
		off = 1;
	}
	return kmsg_decode_resp(m, v, resp, p + off, n - off, &arena);
}

int
kcall(int fd, const struct kmsg *m, int16_t v, int32_t corr, const void *q,
    void *resp)
{
	struct kreq_hdr h;
	struct wbuf wb;
	int rc;

	wbuf_init(&wb);
	wbuf_i32(&wb, 0);
	h.api_key = m->km_key;
	h.api_version = v;
	h.correlation_id = corr;
	h.client_id = kstr_c("kcall");
	if (kmsg_encode_req_hdr(&h, &wb) == -1 ||
	    kmsg_encode_req(m, v, q, &wb) == -1) {
		wbuf_free(&wb);
		return -1;
	}
	wbuf_put_u32_at(&wb, 0, (uint32_t)(wb.len - 4));
	rc = support_send(fd, wb.buf, wb.len);
	wbuf_free(&wb);
	if (rc != 0)
		return -1;
	return kcall_answer(fd, m, v, corr, resp);
}

int
kcall_replay(int fd, const char *name, const struct kmsg *m, int16_t *v,
    void *resp)
{
	char path[256];
	uint8_t *f;
	FILE *fp;
	long n;
	int32_t corr;
	int rc;

	snprintf(path, sizeof(path), "tests/fixtures/kdesc/%s", name);
	if ((fp = fopen(path, "rb")) == NULL)
		return -1;
	if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 12 ||
	    fseek(fp, 0, SEEK_SET) != 0 || (f = malloc((size_t)n)) == NULL) {
		fclose(fp);
		return -1;
	}
	if (fread(f, 1, (size_t)n, fp) != (size_t)n) {
		free(f);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	if ((int16_t)(f[4] << 8 | f[5]) != m->km_key) {
		free(f);
		return -1;
	}
	*v = (int16_t)(f[6] << 8 | f[7]);
	corr = (int32_t)((uint32_t)f[8] << 24 | (uint32_t)f[9] << 16 |
	    (uint32_t)f[10] << 8 | f[11]);
	rc = support_send(fd, f, (size_t)n);
	free(f);
	if (rc != 0)
		return -1;
	return kcall_answer(fd, m, *v, corr, resp);
}
