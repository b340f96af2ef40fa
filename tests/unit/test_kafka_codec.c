/*
 * The Kafka API codec (proto/kafka/) against a real client's codec, both
 * ways:
 *   - requests of every supported (API, version), encoded by kafka-python's
 *     kafka.protocol classes (tests/fixtures/kafka_codec/, written by
 *     tests/tools/kafka_codec_fixture.py encode), are decoded here with
 *     exact field assertions, and every truncation of them is refused;
 *   - responses encoded here are decoded by kafka-python (the same script,
 *     "decode", run with the Debian python3-kafka package) and its JSON
 *     is compared byte for byte with what the fields must be.
 *
 * The source tree is found as in test_kafka_compat.c: $FLUME_SRCDIR, else
 * from __FILE__.
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kbuf.h"
#include "proto/kafka/kheader.h"
#include "proto/kafka/kreq.h"
#include "proto/wire.h"
#include "tests/harness.h"

#define PYTHON		"/usr/bin/python3"
#define FIXTURES	"tests/fixtures/kafka_codec"
#define BATCH_FIXTURE	"tests/fixtures/kafka_python_batch.bin"
#define TOOL		"tests/tools/kafka_codec_fixture.py"
#define THIS_FILE	"tests/unit/test_kafka_codec.c"

/* The files kafka_codec_fixture.py writes, in its REQUESTS order. */
static const struct {
	const char	*file;
	int16_t		 key;
	int16_t		 version;
} fixtures[] = {
	{ "00-Produce-v3.bin", KAPI_PRODUCE, 3 },
	{ "01-Fetch-v4.bin", KAPI_FETCH, 4 },
	{ "02-ListOffsets-v1.bin", KAPI_LIST_OFFSETS, 1 },
	{ "03-Metadata-v0.bin", KAPI_METADATA, 0 },
	{ "04-Metadata-v1.bin", KAPI_METADATA, 1 },
	{ "05-Metadata-v2.bin", KAPI_METADATA, 2 },
	{ "06-Metadata-v3.bin", KAPI_METADATA, 3 },
	{ "07-Metadata-v4.bin", KAPI_METADATA, 4 },
	{ "08-ApiVersions-v0.bin", KAPI_API_VERSIONS, 0 },
	{ "09-ApiVersions-v1.bin", KAPI_API_VERSIONS, 1 },
	{ "10-ApiVersions-v2.bin", KAPI_API_VERSIONS, 2 },
	{ "11-InitProducerId-v0.bin", KAPI_INIT_PRODUCER_ID, 0 },
	{ "12-InitProducerId-v1.bin", KAPI_INIT_PRODUCER_ID, 1 },
	{ "13-FindCoordinator-v0.bin", KAPI_FIND_COORDINATOR, 0 },
	{ "14-JoinGroup-v0.bin", KAPI_JOIN_GROUP, 0 },
	{ "15-JoinGroup-v1.bin", KAPI_JOIN_GROUP, 1 },
	{ "16-JoinGroup-v2.bin", KAPI_JOIN_GROUP, 2 },
	{ "17-SyncGroup-v0.bin", KAPI_SYNC_GROUP, 0 },
	{ "18-SyncGroup-v1.bin", KAPI_SYNC_GROUP, 1 },
	{ "19-Heartbeat-v0.bin", KAPI_HEARTBEAT, 0 },
	{ "20-Heartbeat-v1.bin", KAPI_HEARTBEAT, 1 },
	{ "21-LeaveGroup-v0.bin", KAPI_LEAVE_GROUP, 0 },
	{ "22-LeaveGroup-v1.bin", KAPI_LEAVE_GROUP, 1 },
	{ "23-OffsetCommit-v0.bin", KAPI_OFFSET_COMMIT, 0 },
	{ "24-OffsetCommit-v1.bin", KAPI_OFFSET_COMMIT, 1 },
	{ "25-OffsetCommit-v2.bin", KAPI_OFFSET_COMMIT, 2 },
	{ "26-OffsetFetch-v0.bin", KAPI_OFFSET_FETCH, 0 },
	{ "27-OffsetFetch-v1.bin", KAPI_OFFSET_FETCH, 1 },
	{ "28-CreateTopics-v0.bin", KAPI_CREATE_TOPICS, 0 },
	{ "29-CreateTopics-v1.bin", KAPI_CREATE_TOPICS, 1 },
	{ "30-CreateTopics-v2.bin", KAPI_CREATE_TOPICS, 2 },
	{ "31-DeleteTopics-v0.bin", KAPI_DELETE_TOPICS, 0 },
	{ "32-DeleteTopics-v1.bin", KAPI_DELETE_TOPICS, 1 },
	{ "33-ListGroups-v0.bin", KAPI_LIST_GROUPS, 0 },
	{ "34-ListGroups-v1.bin", KAPI_LIST_GROUPS, 1 },
	{ "35-DescribeGroups-v0.bin", KAPI_DESCRIBE_GROUPS, 0 },
	{ "36-DescribeGroups-v1.bin", KAPI_DESCRIBE_GROUPS, 1 },
	{ "37-Produce-v0.bin", KAPI_PRODUCE, 0 },
	{ "38-Produce-v1.bin", KAPI_PRODUCE, 1 },
	{ "39-Produce-v2.bin", KAPI_PRODUCE, 2 },
	{ "40-Produce-v4.bin", KAPI_PRODUCE, 4 },
	{ "41-Produce-v5.bin", KAPI_PRODUCE, 5 },
	{ "42-Produce-v6.bin", KAPI_PRODUCE, 6 },
	{ "43-Produce-v7.bin", KAPI_PRODUCE, 7 },
	{ "44-Fetch-v5.bin", KAPI_FETCH, 5 },
	{ "45-Fetch-v6.bin", KAPI_FETCH, 6 },
	{ "46-Fetch-v7.bin", KAPI_FETCH, 7 },
	{ "47-Fetch-v8.bin", KAPI_FETCH, 8 },
	{ "48-Fetch-v9.bin", KAPI_FETCH, 9 },
	{ "49-Fetch-v10.bin", KAPI_FETCH, 10 },
	{ "50-ListOffsets-v2.bin", KAPI_LIST_OFFSETS, 2 },
};
#define NFIXTURES	((int)(sizeof(fixtures) / sizeof(fixtures[0])))

static char srcdir[1024];

static int
setup(void)
{
	const char *env = getenv("FLUME_SRCDIR"), *file = __FILE__;
	size_t n = strlen(file), t = strlen(THIS_FILE);

	if (env != NULL && *env != '\0')
		snprintf(srcdir, sizeof(srcdir), "%s", env);
	else if (n > t && strcmp(file + n - t, THIS_FILE) == 0)
		snprintf(srcdir, sizeof(srcdir), "%.*s", (int)(n - t), file);
	else
		snprintf(srcdir, sizeof(srcdir), ".");
	return 0;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	uint8_t *buf;
	FILE *f;
	long sz;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) <= 0 ||
	    sz > (1 << 20) || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)sz)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)sz;
	return buf;
}

/* A loaded fixture: the frame, its header, its decoded body. */
struct fx {
	uint8_t		*buf;
	size_t		 len;
	struct kheader	 h;
	const uint8_t	*body;
	size_t		 blen;
	struct arena	 a;
	union kreq	 r;
};

/* Load fixture i, check its frame and header, decode its body. */
static void
fx_load(struct fx *f, int i)
{
	char path[1200], cid[32];
	int32_t size = 0;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "%s/%s/%s", srcdir, FIXTURES,
	    fixtures[i].file);
	f->buf = slurp(path, &f->len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->buf);
	CU_ASSERT_EQUAL_FATAL(kframe_size(f->buf, f->len, &size), 1);
	CU_ASSERT_EQUAL_FATAL((size_t)size, f->len - KFRAME_SIZE_LEN);
	CU_ASSERT_EQUAL_FATAL(kheader_decode(&f->h, f->buf + KFRAME_SIZE_LEN,
	    (size_t)size), 0);
	CU_ASSERT_EQUAL(f->h.api_key, fixtures[i].key);
	CU_ASSERT_EQUAL(f->h.api_version, fixtures[i].version);
	CU_ASSERT_EQUAL(f->h.correlation_id, 1000 + i);
	snprintf(cid, sizeof(cid), "fixture-%d", i);
	CU_ASSERT(kstr_eq(f->h.client_id, cid));
	f->body = f->buf + KFRAME_SIZE_LEN + f->h.body_off;
	f->blen = (size_t)size - f->h.body_off;
	arena_init(&f->a, 1u << 20);
	CU_ASSERT_EQUAL_FATAL(kreq_decode(&f->r, f->h.api_key,
	    f->h.api_version, f->body, f->blen, &f->a), 0);
}

static void
fx_free(struct fx *f)
{
	arena_free(&f->a);
	free(f->buf);
}

#define STR(s, c)	CU_ASSERT(kstr_eq((s), (c)))
#define NUL(s)		do { CU_ASSERT_EQUAL((s).len, -1);		\
			    CU_ASSERT_PTR_NULL((s).p); } while (0)
#define BYTES(s, c, n)	do { CU_ASSERT_EQUAL_FATAL((s).len, (n));	\
			    CU_ASSERT(memcmp((s).p, (c), (n)) == 0); } while (0)

/* Every fixture: header, exact decode, and no prefix or extension decodes. */
static void
test_every_fixture_and_its_truncations(void)
{
	struct fx f;
	struct arena a;
	union kreq r;
	uint8_t *copy;
	size_t n;
	int i, seen[KAPI_KEY_MAX] = { 0 };

	CU_ASSERT_EQUAL(NFIXTURES, 51);
	for (i = 0; i < NFIXTURES; i++) {
		fx_load(&f, i);
		seen[f.h.api_key]++;
		arena_init(&a, 1u << 20);
		/* Exact-size copies, so a read past the end would be seen. */
		for (n = 0; n < f.blen; n++) {
			copy = malloc(n ? n : 1);
			CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
			memcpy(copy, f.body, n);
			arena_reset(&a);
			CU_ASSERT_EQUAL(kreq_decode(&r, f.h.api_key,
			    f.h.api_version, copy, n, &a), -1);
			free(copy);
		}
		copy = malloc(f.blen + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
		memcpy(copy, f.body, f.blen);
		copy[f.blen] = 0;
		CU_ASSERT_EQUAL(kreq_decode(&r, f.h.api_key, f.h.api_version,
		    copy, f.blen + 1, &a), -1);
		/* The same body under a version the table does not list. */
		CU_ASSERT_EQUAL(kreq_decode(&r, f.h.api_key, 11, copy, f.blen,
		    &a), -1);
		free(copy);
		arena_free(&a);
		fx_free(&f);
	}
	/* Every API of the table has at least one fixture. */
	for (i = 0; i < (int)kapi_nversions; i++)
		CU_ASSERT(seen[kapi_versions[i].key] ==
		    kapi_versions[i].max - kapi_versions[i].min + 1);
}

static void
test_produce_v3(void)
{
	struct kproduce_req *p;
	struct batch_header bh;
	uint8_t *batch;
	size_t blen;
	char path[1200];
	struct fx f;

	fx_load(&f, 0);
	p = &f.r.produce;
	NUL(p->transactional_id);
	CU_ASSERT_EQUAL(p->acks, -1);
	CU_ASSERT_EQUAL(p->timeout_ms, 1500);
	CU_ASSERT_EQUAL_FATAL(p->ntopics, 2);
	STR(p->topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(p->topics[0].npart, 2);
	CU_ASSERT_EQUAL(p->topics[0].parts[0].partition, 0);
	snprintf(path, sizeof(path), "%s/%s", srcdir, BATCH_FIXTURE);
	batch = slurp(path, &blen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(batch);
	BYTES(p->topics[0].parts[0].records, batch, (int32_t)blen);
	/* Zero copy: the records point into the frame. */
	CU_ASSERT((const uint8_t *)p->topics[0].parts[0].records.p > f.buf &&
	    (const uint8_t *)p->topics[0].parts[0].records.p < f.buf + f.len);
	CU_ASSERT_EQUAL(batch_validate((const uint8_t *)
	    p->topics[0].parts[0].records.p, blen, &bh), BATCH_OK);
	CU_ASSERT_EQUAL(bh.records_count, 6);
	CU_ASSERT_EQUAL(p->topics[0].parts[1].partition, 3);
	NUL(p->topics[0].parts[1].records);
	STR(p->topics[1].name, "orders");
	CU_ASSERT_EQUAL_FATAL(p->topics[1].npart, 1);
	CU_ASSERT_EQUAL(p->topics[1].parts[0].partition, 2);
	CU_ASSERT_EQUAL(p->topics[1].parts[0].records.len, 0);
	CU_ASSERT_PTR_NOT_NULL(p->topics[1].parts[0].records.p);
	free(batch);
	fx_free(&f);
}

static void
test_fetch_v4_list_offsets_v1(void)
{
	struct kfetch_req *q;
	struct klist_offsets_req *l;
	struct fx f;

	fx_load(&f, 1);
	q = &f.r.fetch;
	CU_ASSERT_EQUAL(q->replica_id, -1);
	CU_ASSERT_EQUAL(q->max_wait_ms, 500);
	CU_ASSERT_EQUAL(q->min_bytes, 1);
	CU_ASSERT_EQUAL(q->max_bytes, 52428800);
	CU_ASSERT_EQUAL(q->isolation_level, 0);
	CU_ASSERT_EQUAL_FATAL(q->ntopics, 2);
	STR(q->topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(q->topics[0].npart, 2);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].partition, 0);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].fetch_offset, 42);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].max_bytes, 1048576);
	CU_ASSERT_EQUAL(q->topics[0].parts[1].partition, 1);
	CU_ASSERT_EQUAL(q->topics[0].parts[1].fetch_offset, 0);
	CU_ASSERT_EQUAL(q->topics[0].parts[1].max_bytes, 65536);
	STR(q->topics[1].name, "u");
	CU_ASSERT_EQUAL_FATAL(q->topics[1].npart, 1);
	CU_ASSERT_EQUAL(q->topics[1].parts[0].partition, 7);
	CU_ASSERT_EQUAL(q->topics[1].parts[0].fetch_offset, 9000000000LL);
	CU_ASSERT_EQUAL(q->topics[1].parts[0].max_bytes, 100);
	fx_free(&f);

	fx_load(&f, 2);
	l = &f.r.list_offsets;
	CU_ASSERT_EQUAL(l->replica_id, -1);
	CU_ASSERT_EQUAL_FATAL(l->ntopics, 1);
	STR(l->topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(l->topics[0].npart, 3);
	CU_ASSERT_EQUAL(l->topics[0].parts[0].partition, 0);
	CU_ASSERT_EQUAL(l->topics[0].parts[0].timestamp, KLIST_OFFSETS_LATEST);
	CU_ASSERT_EQUAL(l->topics[0].parts[1].partition, 1);
	CU_ASSERT_EQUAL(l->topics[0].parts[1].timestamp,
	    KLIST_OFFSETS_EARLIEST);
	CU_ASSERT_EQUAL(l->topics[0].parts[2].partition, 2);
	CU_ASSERT_EQUAL(l->topics[0].parts[2].timestamp, 1700000000000LL);
	fx_free(&f);
}

/* Produce v0-2 and v4-7, Fetch v5-10 and ListOffsets v2 (fixtures 37-50). */
static void
test_later_data_versions(void)
{
	static const uint8_t forgot[] = {
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* replica..max */
	    0,						/* isolation */
	    0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,		/* session 0, -1 */
	    0, 0, 0, 0,					/* no topics */
	    0, 0, 0, 1, 0, 3, 'o', 'l', 'd',		/* forgotten "old" */
	    0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2 };		/* [1, 2] */
	struct kproduce_req *p;
	struct kfetch_req *q;
	struct klist_offsets_req *l;
	struct arena a;
	union kreq r;
	struct fx f;
	uint8_t *batch;
	size_t n, blen;
	char path[1200];

	snprintf(path, sizeof(path), "%s/%s", srcdir, BATCH_FIXTURE);
	batch = slurp(path, &blen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(batch);
	fx_load(&f, 37);			/* Produce v0 */
	p = &f.r.produce;
	NUL(p->transactional_id);
	CU_ASSERT_EQUAL(p->acks, 1);
	CU_ASSERT_EQUAL(p->timeout_ms, 1000);
	CU_ASSERT_EQUAL_FATAL(p->ntopics, 1);
	STR(p->topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(p->topics[0].npart, 1);
	CU_ASSERT_EQUAL(p->topics[0].parts[0].partition, 0);
	BYTES(p->topics[0].parts[0].records, batch, (int32_t)blen);
	fx_free(&f);
	fx_load(&f, 38);			/* Produce v1 */
	p = &f.r.produce;
	NUL(p->transactional_id);
	CU_ASSERT_EQUAL(p->acks, 0);
	CU_ASSERT_EQUAL(p->timeout_ms, 2000);
	CU_ASSERT_EQUAL_FATAL(p->ntopics, 1);
	STR(p->topics[0].name, "a");
	CU_ASSERT_EQUAL_FATAL(p->topics[0].npart, 1);
	CU_ASSERT_EQUAL(p->topics[0].parts[0].partition, 1);
	CU_ASSERT_EQUAL(p->topics[0].parts[0].records.len, 0);
	fx_free(&f);
	fx_load(&f, 39);			/* Produce v2 */
	CU_ASSERT_EQUAL(f.r.produce.acks, -1);
	CU_ASSERT_EQUAL(f.r.produce.timeout_ms, 3000);
	CU_ASSERT_EQUAL(f.r.produce.ntopics, 0);
	fx_free(&f);
	fx_load(&f, 40);			/* Produce v4 */
	p = &f.r.produce;
	NUL(p->transactional_id);
	CU_ASSERT_EQUAL(p->acks, 1);
	CU_ASSERT_EQUAL(p->timeout_ms, 4000);
	CU_ASSERT_EQUAL_FATAL(p->ntopics, 1);
	CU_ASSERT_EQUAL_FATAL(p->topics[0].npart, 1);
	BYTES(p->topics[0].parts[0].records, batch, (int32_t)blen);
	fx_free(&f);
	fx_load(&f, 41);			/* Produce v5 */
	p = &f.r.produce;
	STR(p->transactional_id, "txn");
	CU_ASSERT_EQUAL(p->timeout_ms, 5000);
	CU_ASSERT_EQUAL_FATAL(p->ntopics, 1);
	STR(p->topics[0].name, "b");
	CU_ASSERT_EQUAL_FATAL(p->topics[0].npart, 1);
	CU_ASSERT_EQUAL(p->topics[0].parts[0].partition, 2);
	NUL(p->topics[0].parts[0].records);
	fx_free(&f);
	fx_load(&f, 42);			/* Produce v6 */
	p = &f.r.produce;
	CU_ASSERT_EQUAL(p->timeout_ms, 6000);
	CU_ASSERT_EQUAL_FATAL(p->ntopics, 1);
	CU_ASSERT_EQUAL_FATAL(p->topics[0].npart, 2);
	CU_ASSERT_EQUAL(p->topics[0].parts[1].partition, 1);
	BYTES(p->topics[0].parts[1].records, batch, (int32_t)blen);
	fx_free(&f);
	fx_load(&f, 43);			/* Produce v7 */
	p = &f.r.produce;
	NUL(p->transactional_id);
	CU_ASSERT_EQUAL(p->acks, -1);
	CU_ASSERT_EQUAL(p->timeout_ms, 7000);
	CU_ASSERT_EQUAL_FATAL(p->ntopics, 1);
	BYTES(p->topics[0].parts[0].records, batch, (int32_t)blen);
	fx_free(&f);

	fx_load(&f, 44);			/* Fetch v5 */
	q = &f.r.fetch;
	CU_ASSERT_EQUAL(q->max_wait_ms, 500);
	CU_ASSERT_EQUAL(q->max_bytes, 1000);
	CU_ASSERT_EQUAL(q->session_id, 0);
	CU_ASSERT_EQUAL(q->session_epoch, -1);
	CU_ASSERT_EQUAL_FATAL(q->ntopics, 1);
	CU_ASSERT_EQUAL_FATAL(q->topics[0].npart, 1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].partition, 0);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].leader_epoch, -1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].fetch_offset, 42);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].log_start_offset, 3);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].max_bytes, 1048576);
	fx_free(&f);
	fx_load(&f, 45);			/* Fetch v6 */
	q = &f.r.fetch;
	CU_ASSERT_EQUAL(q->max_wait_ms, 600);
	CU_ASSERT_EQUAL(q->min_bytes, 2);
	CU_ASSERT_EQUAL(q->isolation_level, 1);
	CU_ASSERT_EQUAL_FATAL(q->ntopics, 2);
	CU_ASSERT_EQUAL_FATAL(q->topics[0].npart, 1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].partition, 1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].fetch_offset, 43);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].log_start_offset, -1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].max_bytes, 65536);
	STR(q->topics[1].name, "u");
	CU_ASSERT_EQUAL(q->topics[1].npart, 0);
	fx_free(&f);
	fx_load(&f, 46);			/* Fetch v7 */
	q = &f.r.fetch;
	CU_ASSERT_EQUAL(q->max_bytes, 3000);
	CU_ASSERT_EQUAL(q->session_id, 0);
	CU_ASSERT_EQUAL(q->session_epoch, 0);
	CU_ASSERT_EQUAL_FATAL(q->ntopics, 1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].fetch_offset, 44);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].max_bytes, 100);
	CU_ASSERT_EQUAL(q->nforgotten, 0);
	fx_free(&f);
	fx_load(&f, 47);			/* Fetch v8 */
	q = &f.r.fetch;
	CU_ASSERT_EQUAL(q->max_wait_ms, 800);
	CU_ASSERT_EQUAL(q->isolation_level, 1);
	CU_ASSERT_EQUAL(q->session_id, 12345);
	CU_ASSERT_EQUAL(q->session_epoch, 3);
	CU_ASSERT_EQUAL(q->ntopics, 0);
	fx_free(&f);
	fx_load(&f, 48);			/* Fetch v9 */
	q = &f.r.fetch;
	CU_ASSERT_EQUAL(q->session_epoch, -1);
	CU_ASSERT_EQUAL_FATAL(q->ntopics, 1);
	CU_ASSERT_EQUAL_FATAL(q->topics[0].npart, 1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].partition, 0);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].leader_epoch, 5);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].fetch_offset, 45);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].log_start_offset, -1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].max_bytes, 200);
	fx_free(&f);
	fx_load(&f, 49);			/* Fetch v10 */
	q = &f.r.fetch;
	CU_ASSERT_EQUAL(q->max_bytes, 6000);
	CU_ASSERT_EQUAL_FATAL(q->ntopics, 1);
	CU_ASSERT_EQUAL_FATAL(q->topics[0].npart, 2);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].partition, 2);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].leader_epoch, -1);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].fetch_offset, 46);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].log_start_offset, 0);
	CU_ASSERT_EQUAL(q->topics[0].parts[0].max_bytes, 300);
	CU_ASSERT_EQUAL(q->topics[0].parts[1].partition, 3);
	CU_ASSERT_EQUAL(q->topics[0].parts[1].leader_epoch, 7);
	CU_ASSERT_EQUAL(q->topics[0].parts[1].fetch_offset, 47);
	CU_ASSERT_EQUAL(q->topics[0].parts[1].log_start_offset, 1);
	CU_ASSERT_EQUAL(q->topics[0].parts[1].max_bytes, 400);
	fx_free(&f);

	fx_load(&f, 50);			/* ListOffsets v2 */
	l = &f.r.list_offsets;
	CU_ASSERT_EQUAL(l->replica_id, -1);
	CU_ASSERT_EQUAL(l->isolation_level, 1);
	CU_ASSERT_EQUAL_FATAL(l->ntopics, 1);
	CU_ASSERT_EQUAL_FATAL(l->topics[0].npart, 2);
	CU_ASSERT_EQUAL(l->topics[0].parts[0].timestamp, KLIST_OFFSETS_LATEST);
	CU_ASSERT_EQUAL(l->topics[0].parts[1].partition, 1);
	CU_ASSERT_EQUAL(l->topics[0].parts[1].timestamp, 1700000000000LL);
	fx_free(&f);

	/* Forgotten topics (v7+), which kafka-python cannot encode. */
	arena_init(&a, 1u << 16);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_FETCH, 7, forgot, sizeof(forgot),
	    &a), 0);
	CU_ASSERT_EQUAL(r.fetch.ntopics, 0);
	CU_ASSERT_EQUAL(r.fetch.nforgotten, 2);
	for (n = 0; n < sizeof(forgot); n++)
		CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_FETCH, 7, forgot, n, &a),
		    -1);
	/* Under v6 the session fields are taken as topics: no parse. */
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_FETCH, 6, forgot, sizeof(forgot),
	    &a), -1);
	arena_free(&a);
	free(batch);
}

static void
test_metadata_api_versions_init_pid(void)
{
	struct kmetadata_req *m;
	struct fx f;
	int i;

	fx_load(&f, 3);			/* v0 ["t1", "orders"] */
	m = &f.r.metadata;
	CU_ASSERT_EQUAL_FATAL(m->ntopics, 2);
	STR(m->topics[0], "t1");
	STR(m->topics[1], "orders");
	CU_ASSERT_EQUAL(m->allow_auto_create, 1);
	fx_free(&f);
	fx_load(&f, 4);			/* v1 null: all topics */
	CU_ASSERT_EQUAL(f.r.metadata.ntopics, -1);
	CU_ASSERT_PTR_NULL(f.r.metadata.topics);
	CU_ASSERT_EQUAL(f.r.metadata.allow_auto_create, 1);
	fx_free(&f);
	fx_load(&f, 5);			/* v2 [] */
	CU_ASSERT_EQUAL(f.r.metadata.ntopics, 0);
	fx_free(&f);
	fx_load(&f, 6);			/* v3 ["a"] */
	CU_ASSERT_EQUAL_FATAL(f.r.metadata.ntopics, 1);
	STR(f.r.metadata.topics[0], "a");
	fx_free(&f);
	fx_load(&f, 7);			/* v4 ["x", "y"], no auto-create */
	CU_ASSERT_EQUAL_FATAL(f.r.metadata.ntopics, 2);
	STR(f.r.metadata.topics[0], "x");
	STR(f.r.metadata.topics[1], "y");
	CU_ASSERT_EQUAL(f.r.metadata.allow_auto_create, 0);
	fx_free(&f);
	for (i = 8; i <= 10; i++) {	/* ApiVersions: empty bodies */
		fx_load(&f, i);
		CU_ASSERT_EQUAL(f.blen, 0);
		fx_free(&f);
	}
	fx_load(&f, 11);
	NUL(f.r.init_pid.transactional_id);
	CU_ASSERT_EQUAL(f.r.init_pid.txn_timeout_ms, 60000);
	fx_free(&f);
	fx_load(&f, 12);
	STR(f.r.init_pid.transactional_id, "txn-1");
	CU_ASSERT_EQUAL(f.r.init_pid.txn_timeout_ms, 1000);
	fx_free(&f);
}

static void
test_group_requests(void)
{
	struct kjoin_req *j;
	struct ksync_req *s;
	struct fx f;

	fx_load(&f, 13);
	STR(f.r.find_coord.group_id, "g1");
	fx_free(&f);

	fx_load(&f, 14);		/* JoinGroup v0 */
	j = &f.r.join;
	STR(j->group_id, "g1");
	CU_ASSERT_EQUAL(j->session_timeout_ms, 10000);
	CU_ASSERT_EQUAL(j->rebalance_timeout_ms, 10000);
	STR(j->member_id, "");
	STR(j->protocol_type, "consumer");
	CU_ASSERT_EQUAL_FATAL(j->nprotocols, 2);
	STR(j->protocols[0].name, "range");
	BYTES(j->protocols[0].data, "\x00\x01meta", 6);
	STR(j->protocols[1].name, "roundrobin");
	CU_ASSERT_EQUAL(j->protocols[1].data.len, 0);
	fx_free(&f);
	fx_load(&f, 15);		/* v1 */
	j = &f.r.join;
	CU_ASSERT_EQUAL(j->session_timeout_ms, 10000);
	CU_ASSERT_EQUAL(j->rebalance_timeout_ms, 30000);
	STR(j->member_id, "m-1");
	CU_ASSERT_EQUAL(j->nprotocols, 2);
	fx_free(&f);
	fx_load(&f, 16);		/* v2 */
	j = &f.r.join;
	STR(j->group_id, "g2");
	CU_ASSERT_EQUAL(j->session_timeout_ms, 6000);
	CU_ASSERT_EQUAL(j->rebalance_timeout_ms, 45000);
	STR(j->member_id, "");
	CU_ASSERT_EQUAL_FATAL(j->nprotocols, 1);
	STR(j->protocols[0].name, "range");
	BYTES(j->protocols[0].data, "\xff", 1);
	fx_free(&f);

	fx_load(&f, 17);		/* SyncGroup v0 */
	s = &f.r.sync;
	STR(s->group_id, "g1");
	CU_ASSERT_EQUAL(s->generation_id, 3);
	STR(s->member_id, "m-1");
	CU_ASSERT_EQUAL_FATAL(s->nassign, 2);
	STR(s->assign[0].name, "m-1");
	BYTES(s->assign[0].data, "assign1", 7);
	STR(s->assign[1].name, "m-2");
	CU_ASSERT_EQUAL(s->assign[1].data.len, 0);
	fx_free(&f);
	fx_load(&f, 18);		/* v1 */
	s = &f.r.sync;
	CU_ASSERT_EQUAL(s->generation_id, 4);
	STR(s->member_id, "m-2");
	CU_ASSERT_EQUAL(s->nassign, 0);
	fx_free(&f);

	fx_load(&f, 19);
	STR(f.r.heartbeat.group_id, "g1");
	CU_ASSERT_EQUAL(f.r.heartbeat.generation_id, 5);
	STR(f.r.heartbeat.member_id, "m-1");
	fx_free(&f);
	fx_load(&f, 20);
	CU_ASSERT_EQUAL(f.r.heartbeat.generation_id, 6);
	STR(f.r.heartbeat.member_id, "m-2");
	fx_free(&f);
	fx_load(&f, 21);
	STR(f.r.leave.group_id, "g1");
	STR(f.r.leave.member_id, "m-1");
	fx_free(&f);
	fx_load(&f, 22);
	STR(f.r.leave.group_id, "g2");
	STR(f.r.leave.member_id, "m-2");
	fx_free(&f);

	fx_load(&f, 33);
	CU_ASSERT_EQUAL(f.blen, 0);
	fx_free(&f);
	fx_load(&f, 34);
	CU_ASSERT_EQUAL(f.blen, 0);
	fx_free(&f);
	fx_load(&f, 35);
	CU_ASSERT_EQUAL_FATAL(f.r.describe_groups.ngroups, 2);
	STR(f.r.describe_groups.groups[0], "g1");
	STR(f.r.describe_groups.groups[1], "g2");
	fx_free(&f);
	fx_load(&f, 36);
	CU_ASSERT_EQUAL(f.r.describe_groups.ngroups, 0);
	fx_free(&f);
}

static void
test_offset_requests(void)
{
	struct kcommit_req *c;
	struct koffset_fetch_req *o;
	struct fx f;

	fx_load(&f, 23);		/* OffsetCommit v0 */
	c = &f.r.commit;
	STR(c->group_id, "g1");
	CU_ASSERT_EQUAL(c->generation_id, -1);
	STR(c->member_id, "");
	CU_ASSERT_EQUAL(c->retention_ms, -1);
	CU_ASSERT_EQUAL_FATAL(c->ntopics, 1);
	STR(c->topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(c->topics[0].npart, 2);
	CU_ASSERT_EQUAL(c->topics[0].parts[0].partition, 0);
	CU_ASSERT_EQUAL(c->topics[0].parts[0].offset, 42);
	CU_ASSERT_EQUAL(c->topics[0].parts[0].timestamp, -1);
	STR(c->topics[0].parts[0].metadata, "meta");
	CU_ASSERT_EQUAL(c->topics[0].parts[1].partition, 1);
	CU_ASSERT_EQUAL(c->topics[0].parts[1].offset, 7);
	NUL(c->topics[0].parts[1].metadata);
	fx_free(&f);
	fx_load(&f, 24);		/* v1: per-partition timestamp */
	c = &f.r.commit;
	CU_ASSERT_EQUAL(c->generation_id, 4);
	STR(c->member_id, "m-1");
	CU_ASSERT_EQUAL(c->retention_ms, -1);
	CU_ASSERT_EQUAL_FATAL(c->ntopics, 1);
	CU_ASSERT_EQUAL_FATAL(c->topics[0].npart, 1);
	CU_ASSERT_EQUAL(c->topics[0].parts[0].offset, 43);
	CU_ASSERT_EQUAL(c->topics[0].parts[0].timestamp, 1700000000000LL);
	STR(c->topics[0].parts[0].metadata, "");
	fx_free(&f);
	fx_load(&f, 25);		/* v2: retention */
	c = &f.r.commit;
	CU_ASSERT_EQUAL(c->generation_id, 5);
	CU_ASSERT_EQUAL(c->retention_ms, 86400000);
	CU_ASSERT_EQUAL_FATAL(c->ntopics, 2);
	CU_ASSERT_EQUAL_FATAL(c->topics[0].npart, 1);
	CU_ASSERT_EQUAL(c->topics[0].parts[0].partition, 2);
	CU_ASSERT_EQUAL(c->topics[0].parts[0].offset, 99);
	CU_ASSERT_EQUAL(c->topics[0].parts[0].timestamp, -1);
	STR(c->topics[0].parts[0].metadata, "x");
	STR(c->topics[1].name, "u");
	CU_ASSERT_EQUAL(c->topics[1].npart, 0);
	fx_free(&f);

	fx_load(&f, 26);		/* OffsetFetch v0 */
	o = &f.r.offset_fetch;
	STR(o->group_id, "g1");
	CU_ASSERT_EQUAL_FATAL(o->ntopics, 2);
	STR(o->topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(o->topics[0].npart, 3);
	CU_ASSERT_EQUAL(o->topics[0].parts[0], 0);
	CU_ASSERT_EQUAL(o->topics[0].parts[1], 1);
	CU_ASSERT_EQUAL(o->topics[0].parts[2], 2);
	STR(o->topics[1].name, "u");
	CU_ASSERT_EQUAL_FATAL(o->topics[1].npart, 1);
	CU_ASSERT_EQUAL(o->topics[1].parts[0], 5);
	fx_free(&f);
	fx_load(&f, 27);
	o = &f.r.offset_fetch;
	STR(o->group_id, "g2");
	CU_ASSERT_EQUAL_FATAL(o->ntopics, 1);
	CU_ASSERT_EQUAL(o->topics[0].npart, 0);
	fx_free(&f);
}

static void
test_admin_requests(void)
{
	struct kcreate_topics_req *c;
	struct kcreate_topic *t;
	struct fx f;

	fx_load(&f, 28);		/* CreateTopics v0 */
	c = &f.r.create_topics;
	CU_ASSERT_EQUAL_FATAL(c->ntopics, 1);
	t = &c->topics[0];
	STR(t->name, "new1");
	CU_ASSERT_EQUAL(t->num_partitions, 3);
	CU_ASSERT_EQUAL(t->replication_factor, 1);
	CU_ASSERT_EQUAL(t->nassign, 0);
	CU_ASSERT_EQUAL_FATAL(t->nconfigs, 1);
	STR(t->configs[0].name, "retention.ms");
	STR(t->configs[0].value, "1000");
	CU_ASSERT_EQUAL(c->timeout_ms, 5000);
	CU_ASSERT_EQUAL(c->validate_only, 0);
	fx_free(&f);
	fx_load(&f, 29);		/* v1 */
	c = &f.r.create_topics;
	CU_ASSERT_EQUAL_FATAL(c->ntopics, 2);
	t = &c->topics[0];
	STR(t->name, "new2");
	CU_ASSERT_EQUAL(t->num_partitions, -1);
	CU_ASSERT_EQUAL(t->replication_factor, -1);
	CU_ASSERT_EQUAL_FATAL(t->nassign, 2);
	CU_ASSERT_EQUAL(t->assign[0].partition, 0);
	CU_ASSERT_EQUAL_FATAL(t->assign[0].nbrokers, 1);
	CU_ASSERT_EQUAL(t->assign[0].brokers[0], 0);
	CU_ASSERT_EQUAL(t->assign[1].partition, 1);
	CU_ASSERT_EQUAL_FATAL(t->assign[1].nbrokers, 2);
	CU_ASSERT_EQUAL(t->assign[1].brokers[0], 0);
	CU_ASSERT_EQUAL(t->assign[1].brokers[1], 1);
	CU_ASSERT_EQUAL_FATAL(t->nconfigs, 1);
	STR(t->configs[0].name, "cleanup.policy");
	NUL(t->configs[0].value);
	STR(c->topics[1].name, "new3");
	CU_ASSERT_EQUAL(c->topics[1].num_partitions, 1);
	CU_ASSERT_EQUAL(c->topics[1].nconfigs, 0);
	CU_ASSERT_EQUAL(c->timeout_ms, 6000);
	CU_ASSERT_EQUAL(c->validate_only, 1);
	fx_free(&f);
	fx_load(&f, 30);		/* v2 */
	c = &f.r.create_topics;
	CU_ASSERT_EQUAL_FATAL(c->ntopics, 1);
	STR(c->topics[0].name, "new4");
	CU_ASSERT_EQUAL(c->topics[0].num_partitions, 8);
	CU_ASSERT_EQUAL(c->topics[0].replication_factor, 3);
	CU_ASSERT_EQUAL(c->timeout_ms, 7000);
	CU_ASSERT_EQUAL(c->validate_only, 0);
	fx_free(&f);

	fx_load(&f, 31);
	CU_ASSERT_EQUAL_FATAL(f.r.delete_topics.ntopics, 2);
	STR(f.r.delete_topics.topics[0], "a");
	STR(f.r.delete_topics.topics[1], "b");
	CU_ASSERT_EQUAL(f.r.delete_topics.timeout_ms, 3000);
	fx_free(&f);
	fx_load(&f, 32);
	CU_ASSERT_EQUAL(f.r.delete_topics.ntopics, 0);
	CU_ASSERT_EQUAL(f.r.delete_topics.timeout_ms, 4000);
	fx_free(&f);
}

/*
 * What kcat (librdkafka 2.0.2) sends first, captured once from a real
 * kcat -L: ApiVersions v3 (flexible: the header prefix parses, the body
 * is not one Flume decodes), the v0 retry, and a Metadata v4 for no topic
 * at all (librdkafka's bootstrap request) without auto-creation.
 */
static void
test_kcat_first_requests(void)
{
	static const char *files[] = { "kcat-ApiVersions-v3.bin",
	    "kcat-ApiVersions-v0.bin", "kcat-Metadata-v4.bin" };
	static const int16_t keys[][2] = { { KAPI_API_VERSIONS, 3 },
	    { KAPI_API_VERSIONS, 0 }, { KAPI_METADATA, 4 } };
	static const int32_t corr[] = { 1, 2, 3 };
	struct kheader h;
	struct arena a;
	union kreq r;
	uint8_t *buf;
	size_t len;
	int32_t size;
	char path[1200];
	int i;

	arena_init(&a, 4096);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", srcdir, FIXTURES,
		    files[i]);
		buf = slurp(path, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		CU_ASSERT_EQUAL_FATAL(kframe_size(buf, len, &size), 1);
		CU_ASSERT_EQUAL_FATAL((size_t)size, len - 4);
		CU_ASSERT_EQUAL_FATAL(kheader_decode(&h, buf + 4, len - 4), 0);
		CU_ASSERT_EQUAL(h.api_key, keys[i][0]);
		CU_ASSERT_EQUAL(h.api_version, keys[i][1]);
		CU_ASSERT_EQUAL(h.correlation_id, corr[i]);
		STR(h.client_id, "rdkafka");
		arena_reset(&a);
		CU_ASSERT_EQUAL(kreq_decode(&r, h.api_key, h.api_version,
		    buf + 4 + h.body_off, len - 4 - h.body_off, &a),
		    i == 0 ? -1 : 0);
		if (i == 2) {
			CU_ASSERT_EQUAL(r.metadata.ntopics, 0);
			CU_ASSERT_EQUAL(r.metadata.allow_auto_create, 0);
		}
		free(buf);
	}
	arena_free(&a);
}

/* Read a captured frame and decode its header and body; buf to free. */
static uint8_t *
load_capture(const char *file, struct kheader *h, union kreq *r,
    struct arena *a)
{
	char path[1200];
	uint8_t *buf;
	size_t len;
	int32_t size;

	snprintf(path, sizeof(path), "%s/%s/%s", srcdir, FIXTURES, file);
	buf = slurp(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL_FATAL(kframe_size(buf, len, &size), 1);
	CU_ASSERT_EQUAL_FATAL((size_t)size, len - 4);
	CU_ASSERT_EQUAL_FATAL(kheader_decode(h, buf + 4, len - 4), 0);
	CU_ASSERT_EQUAL_FATAL(kreq_decode(r, h->api_key, h->api_version,
	    buf + 4 + h->body_off, len - 4 - h->body_off, a), 0);
	return buf;
}

/*
 * The data path requests of kcat (librdkafka 2.0.2), captured once
 * through a proxy while it produced "a", "b" with key k and consumed
 * them (fields as kafka-python's ProduceRequest[3], FetchRequest[4] and
 * OffsetRequest[1] decode them).
 */
static void
test_librdkafka_data_requests(void)
{
	struct kheader h;
	struct arena a;
	union kreq r;
	struct batch_header bh;
	const struct kproduce_part *pp;
	uint8_t *buf;

	arena_init(&a, 1u << 16);
	buf = load_capture("librdkafka-Produce-v3.bin", &h, &r, &a);
	CU_ASSERT_EQUAL(h.api_key, KAPI_PRODUCE);
	CU_ASSERT_EQUAL(h.api_version, 3);
	STR(h.client_id, "rdkafka");
	NUL(r.produce.transactional_id);
	CU_ASSERT_EQUAL(r.produce.acks, -1);
	CU_ASSERT_EQUAL(r.produce.timeout_ms, 30000);
	CU_ASSERT_EQUAL_FATAL(r.produce.ntopics, 1);
	STR(r.produce.topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(r.produce.topics[0].npart, 1);
	pp = &r.produce.topics[0].parts[0];
	CU_ASSERT_EQUAL(pp->partition, 1);
	CU_ASSERT_EQUAL_FATAL(batch_validate((const uint8_t *)pp->records.p,
	    (size_t)pp->records.len, &bh), BATCH_OK);
	CU_ASSERT_EQUAL(bh.base_offset, 0);
	CU_ASSERT_EQUAL(bh.records_count, 2);
	CU_ASSERT_EQUAL(pp->records.len, 12 + 67);
	free(buf);

	arena_reset(&a);
	buf = load_capture("librdkafka-Fetch-v4.bin", &h, &r, &a);
	CU_ASSERT_EQUAL(h.api_key, KAPI_FETCH);
	CU_ASSERT_EQUAL(r.fetch.replica_id, -1);
	CU_ASSERT_EQUAL(r.fetch.max_wait_ms, 500);
	CU_ASSERT_EQUAL(r.fetch.min_bytes, 1);
	CU_ASSERT_EQUAL(r.fetch.max_bytes, 52428800);
	CU_ASSERT_EQUAL(r.fetch.isolation_level, 1);	/* read_committed */
	CU_ASSERT_EQUAL_FATAL(r.fetch.ntopics, 1);
	STR(r.fetch.topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(r.fetch.topics[0].npart, 1);
	CU_ASSERT_EQUAL(r.fetch.topics[0].parts[0].partition, 0);
	CU_ASSERT_EQUAL(r.fetch.topics[0].parts[0].fetch_offset, 0);
	CU_ASSERT_EQUAL(r.fetch.topics[0].parts[0].max_bytes, 1048576);
	free(buf);

	arena_reset(&a);
	buf = load_capture("librdkafka-ListOffsets-v1.bin", &h, &r, &a);
	CU_ASSERT_EQUAL(h.api_key, KAPI_LIST_OFFSETS);
	CU_ASSERT_EQUAL_FATAL(r.list_offsets.ntopics, 1);
	STR(r.list_offsets.topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(r.list_offsets.topics[0].npart, 1);
	CU_ASSERT_EQUAL(r.list_offsets.topics[0].parts[0].partition, 0);
	CU_ASSERT_EQUAL(r.list_offsets.topics[0].parts[0].timestamp,
	    KLIST_OFFSETS_EARLIEST);
	free(buf);
	arena_free(&a);
}

/*
 * The same requests once the broker lists Produce 0-7, Fetch 4-10 and
 * ListOffsets 1-2: kcat -z lz4 producing two records with key k to t1
 * and consuming them, captured the same way.  librdkafka now sends the
 * highest versions, and the batch is lz4-compressed.
 */
static void
test_librdkafka_later_requests(void)
{
	struct kheader h;
	struct arena a;
	union kreq r;
	struct batch_header bh;
	const struct kproduce_part *pp;
	const struct kfetch_part *fp;
	struct compress_buf z;
	struct batch_iter it;
	struct record rec;
	uint8_t *buf;
	int32_t i, j;

	arena_init(&a, 1u << 16);
	buf = load_capture("librdkafka-Produce-v7.bin", &h, &r, &a);
	CU_ASSERT_EQUAL(h.api_key, KAPI_PRODUCE);
	CU_ASSERT_EQUAL(h.api_version, 7);
	STR(h.client_id, "rdkafka");
	NUL(r.produce.transactional_id);
	CU_ASSERT_EQUAL(r.produce.acks, -1);
	CU_ASSERT_EQUAL(r.produce.timeout_ms, 30000);
	CU_ASSERT_EQUAL_FATAL(r.produce.ntopics, 1);
	STR(r.produce.topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(r.produce.topics[0].npart, 1);
	pp = &r.produce.topics[0].parts[0];
	CU_ASSERT_EQUAL(pp->partition, 0);
	CU_ASSERT_EQUAL(pp->records.len, 111);
	compress_buf_init(&z, 1u << 20);
	CU_ASSERT_EQUAL_FATAL(batch_validate_z((const uint8_t *)pp->records.p,
	    (size_t)pp->records.len, &bh, &z), BATCH_OK);
	CU_ASSERT_EQUAL(bh.attributes & BATCH_COMPRESSION_MASK, 3);	/* lz4 */
	CU_ASSERT_EQUAL(bh.base_offset, 0);
	CU_ASSERT_EQUAL_FATAL(bh.records_count, 2);
	CU_ASSERT_EQUAL_FATAL(batch_iter_init_z(&it, (const uint8_t *)
	    pp->records.p, (size_t)pp->records.len, &z), 0);
	/* "k" -> 86 x 'a', then "k" -> 92 x 'b'. */
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(batch_iter_next(&it, &rec), 1);
		CU_ASSERT_EQUAL(rec.offset, i);
		CU_ASSERT(rec.key_len == 1 && rec.key[0] == 'k');
		CU_ASSERT_EQUAL_FATAL(rec.value_len, i == 0 ? 86 : 92);
		for (j = 0; j < rec.value_len; j++)
			CU_ASSERT_EQUAL(rec.value[j], i == 0 ? 'a' : 'b');
	}
	CU_ASSERT_EQUAL(batch_iter_next(&it, &rec), 0);
	compress_buf_free(&z);
	free(buf);

	arena_reset(&a);
	buf = load_capture("librdkafka-Fetch-v10.bin", &h, &r, &a);
	CU_ASSERT_EQUAL(h.api_key, KAPI_FETCH);
	CU_ASSERT_EQUAL(h.api_version, 10);
	CU_ASSERT_EQUAL(r.fetch.replica_id, -1);
	CU_ASSERT_EQUAL(r.fetch.max_wait_ms, 500);
	CU_ASSERT_EQUAL(r.fetch.min_bytes, 1);
	CU_ASSERT_EQUAL(r.fetch.max_bytes, 52428800);
	CU_ASSERT_EQUAL(r.fetch.isolation_level, 1);	/* read_committed */
	CU_ASSERT_EQUAL(r.fetch.session_id, 0);		/* no session */
	CU_ASSERT_EQUAL(r.fetch.session_epoch, -1);
	CU_ASSERT_EQUAL_FATAL(r.fetch.ntopics, 1);
	STR(r.fetch.topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(r.fetch.topics[0].npart, 1);
	fp = &r.fetch.topics[0].parts[0];
	CU_ASSERT_EQUAL(fp->partition, 0);
	CU_ASSERT_EQUAL(fp->leader_epoch, -1);
	CU_ASSERT_EQUAL(fp->fetch_offset, 0);
	CU_ASSERT_EQUAL(fp->log_start_offset, -1);
	CU_ASSERT_EQUAL(fp->max_bytes, 1048576);
	CU_ASSERT_EQUAL(r.fetch.nforgotten, 0);
	free(buf);

	arena_reset(&a);
	buf = load_capture("librdkafka-ListOffsets-v2.bin", &h, &r, &a);
	CU_ASSERT_EQUAL(h.api_key, KAPI_LIST_OFFSETS);
	CU_ASSERT_EQUAL(h.api_version, 2);
	CU_ASSERT_EQUAL(r.list_offsets.replica_id, -1);
	CU_ASSERT_EQUAL(r.list_offsets.isolation_level, 1);
	CU_ASSERT_EQUAL_FATAL(r.list_offsets.ntopics, 1);
	STR(r.list_offsets.topics[0].name, "t1");
	CU_ASSERT_EQUAL_FATAL(r.list_offsets.topics[0].npart, 1);
	CU_ASSERT_EQUAL(r.list_offsets.topics[0].parts[0].partition, 0);
	CU_ASSERT_EQUAL(r.list_offsets.topics[0].parts[0].timestamp,
	    KLIST_OFFSETS_EARLIEST);
	free(buf);
	arena_free(&a);
}

/* Hostile counts and lengths: refused before anything is sized by them. */
static void
test_hostile_counts_and_lengths(void)
{
	static const uint8_t huge_count[] = {	/* Metadata v1: 2^31-1 topics */
		0x7f, 0xff, 0xff, 0xff, 0, 1, 'a' };
	static const uint8_t neg_count[] = { 0xff, 0xff, 0xff, 0xfe };
	static const uint8_t neg_str[] = {	/* FindCoordinator: len -2 */
		0xff, 0xfe, 'g' };
	static const uint8_t null_str[] = { 0xff, 0xff };	/* not nullable */
	static const uint8_t null_v0[] = { 0xff, 0xff, 0xff, 0xff };
	/* Produce: 1 topic "t", 1 partition, records claiming 1 GiB. */
	static const uint8_t big_records[] = {
		0xff, 0xff, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 't',
		0, 0, 0, 1, 0, 0, 0, 0, 0x40, 0, 0, 0, 1, 2, 3 };
	/* Fetch: 3 partitions claimed, room for one (16 bytes each). */
	static const uint8_t short_parts[] = {
		0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0,
		0, 0, 0, 1, 0, 1, 'u', 0, 0, 0, 3,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	struct arena a;
	union kreq r;
	struct kheader h;

	arena_init(&a, 4096);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_METADATA, 1, huge_count,
	    sizeof(huge_count), &a), -1);
	CU_ASSERT_EQUAL(a.used, 0);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_METADATA, 1, neg_count,
	    sizeof(neg_count), &a), -1);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_METADATA, 0, null_v0,
	    sizeof(null_v0), &a), -1);	/* v0 arrays are not nullable */
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_METADATA, 1, null_v0,
	    sizeof(null_v0), &a), 0);
	CU_ASSERT_EQUAL(r.metadata.ntopics, -1);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_FIND_COORDINATOR, 0, neg_str,
	    sizeof(neg_str), &a), -1);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_FIND_COORDINATOR, 0, null_str,
	    sizeof(null_str), &a), -1);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_PRODUCE, 3, big_records,
	    sizeof(big_records), &a), -1);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_FETCH, 4, short_parts,
	    sizeof(short_parts), &a), -1);
	arena_reset(&a);
	/* Unknown keys and versions outside the table. */
	CU_ASSERT_EQUAL(kreq_decode(&r, 17, 0, NULL, 0, &a), -1);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_API_VERSIONS, 3, NULL, 0, &a), -1);
	CU_ASSERT_EQUAL(kreq_decode(&r, KAPI_PRODUCE, 2, big_records,
	    sizeof(big_records), &a), -1);
	CU_ASSERT_EQUAL(kreq_decode(&r, -1, 0, NULL, 0, &a), -1);
	arena_free(&a);

	/* Frame sizes: too small to hold a header, negative, incomplete. */
	{
		uint8_t b[4];
		int32_t size = 0;

		be32_put(b, 9);
		CU_ASSERT_EQUAL(kframe_size(b, 4, &size), -1);
		be32_put(b, 0x80000000u);
		CU_ASSERT_EQUAL(kframe_size(b, 4, &size), -1);
		be32_put(b, 10);
		CU_ASSERT_EQUAL(kframe_size(b, 3, &size), 0);
		CU_ASSERT_EQUAL(kframe_size(b, 4, &size), 1);
		CU_ASSERT_EQUAL(size, 10);
	}
	/* A header whose client id runs past the frame. */
	{
		static const uint8_t hb[] = { 0, 18, 0, 3, 0, 0, 0, 7, 0, 5,
		    'a', 'b' };

		CU_ASSERT_EQUAL(kheader_decode(&h, hb, sizeof(hb)), -1);
		CU_ASSERT_EQUAL(kheader_decode(&h, hb, 8), -1);
	}
}

static void
test_version_table(void)
{
	/* DESIGN.md section 7, exactly. */
	static const int16_t want[][3] = {
		{ 0, 0, 7 }, { 1, 4, 10 }, { 2, 1, 2 }, { 3, 0, 4 },
		{ 8, 0, 2 }, { 9, 0, 1 }, { 10, 0, 0 }, { 11, 0, 2 },
		{ 12, 0, 1 }, { 13, 0, 1 }, { 14, 0, 1 }, { 15, 0, 1 },
		{ 16, 0, 1 }, { 18, 0, 2 }, { 19, 0, 2 }, { 20, 0, 1 },
		{ 22, 0, 1 } };
	size_t i;

	CU_ASSERT_EQUAL_FATAL(kapi_nversions, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < kapi_nversions; i++) {
		CU_ASSERT_EQUAL(kapi_versions[i].key, want[i][0]);
		CU_ASSERT_EQUAL(kapi_versions[i].min, want[i][1]);
		CU_ASSERT_EQUAL(kapi_versions[i].max, want[i][2]);
		CU_ASSERT(kapi_supported(want[i][0], want[i][1]));
		CU_ASSERT(kapi_supported(want[i][0], want[i][2]));
		CU_ASSERT(!kapi_supported(want[i][0], want[i][1] - 1));
		CU_ASSERT(!kapi_supported(want[i][0], want[i][2] + 1));
	}
	CU_ASSERT(!kapi_supported(4, 0));	/* LeaderAndIsr */
	CU_ASSERT(!kapi_supported(17, 0));	/* SaslHandshake, for now */
	CU_ASSERT_STRING_EQUAL(kapi_name(KAPI_FETCH), "Fetch");
	CU_ASSERT_PTR_NULL(kapi_name(99));
	CU_ASSERT_PTR_NULL(kapi_name(-1));
	/* Every key Kafka has is named, served or not. */
	CU_ASSERT_STRING_EQUAL(kapi_name(0), "Produce");
	CU_ASSERT_STRING_EQUAL(kapi_name(21), "DeleteRecords");
	CU_ASSERT_STRING_EQUAL(kapi_name(32), "DescribeConfigs");
	CU_ASSERT_STRING_EQUAL(kapi_name(33), "AlterConfigs");
	CU_ASSERT_STRING_EQUAL(kapi_name(37), "CreatePartitions");
	CU_ASSERT_STRING_EQUAL(kapi_name(42), "DeleteGroups");
	CU_ASSERT_STRING_EQUAL(kapi_name(68), "ConsumerGroupHeartbeat");
	CU_ASSERT_STRING_EQUAL(kapi_name(75), "DescribeTopicPartitions");
	CU_ASSERT_STRING_EQUAL(kapi_name(92), "DeleteShareGroupOffsets");
	CU_ASSERT_PTR_NULL(kapi_name(93));
}

/*
 * Run the decoder on body: its exit status, with its first line of
 * output in out (NUL-terminated, newline removed).
 */
static int
py_decode(const char *api, int version, const struct wbuf *wb, char *out,
    size_t outsz)
{
	char script[1200], ver[16], *dir, *file;
	char *argv[] = { PYTHON, script, "decode", (char *)api, ver, NULL,
	    NULL };
	FILE *f;
	size_t got = 0;
	ssize_t n;
	pid_t pid;
	int fds[2], st, devnull;

	CU_ASSERT_FATAL(wb->err == 0);
	dir = test_mkdtemp("kcodec");
	CU_ASSERT_FATAL(asprintf(&file, "%s/resp.bin", dir) != -1);
	f = fopen(file, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	if (wb->len > 0)
		CU_ASSERT_FATAL(fwrite(wb->buf, 1, wb->len, f) == wb->len);
	CU_ASSERT_FATAL(fclose(f) == 0);
	snprintf(script, sizeof(script), "%s/%s", srcdir, TOOL);
	snprintf(ver, sizeof(ver), "%d", version);
	argv[5] = file;
	CU_ASSERT_FATAL(pipe(fds) == 0);
	fflush(stdout);
	fflush(stderr);
	CU_ASSERT_FATAL((pid = fork()) != -1);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		if ((devnull = open("/dev/null", O_WRONLY)) != -1)
			dup2(devnull, STDERR_FILENO);
		close(fds[0]);
		execv(PYTHON, argv);
		_exit(127);
	}
	close(fds[1]);
	while (got + 1 < outsz &&
	    (n = read(fds[0], out + got, outsz - 1 - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	unlink(file);
	test_rmtree(dir);
	free(file);
	free(dir);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Encode, have kafka-python decode it, compare its JSON with want. */
#define PY_EXPECT(api, ver, wb, want) do {				\
	char out_[8192];						\
									\
	CU_ASSERT_EQUAL(py_decode(api, ver, wb, out_, sizeof(out_)), 0);\
	CU_ASSERT_STRING_EQUAL(out_, want);				\
	if (strcmp(out_, want) != 0)					\
		fprintf(stderr, "\n%s v%d: got  %s\n want %s\n", api,	\
		    ver, out_, want);					\
} while (0)

static void
test_kafka_python_reads_data_responses(void)
{
	struct wbuf wb;
	char out[256];
	int32_t replicas[] = { 0 }, isr[] = { 0 };
	struct kproduce_part_resp pp[] = {
		{ 0, KERR_NONE, 42, -1, 7 },
		{ 5, KERR_CORRUPT_MESSAGE, -1, -1, -1 } };
	struct kproduce_topic_resp pt[] = {
		{ { "t1", 2 }, 2, pp }, { { "x", 1 }, 0, NULL } };
	struct kproduce_resp pr = { 2, pt, 0 };
	struct kfetch_part_resp fp[] = {
		{ 0, KERR_NONE, 10, 10, 2, { "\x01\x02\x03", 3 } },
		{ 1, KERR_OFFSET_OUT_OF_RANGE, 4, 4, 0, { NULL, -1 } } };
	struct kfetch_topic_resp ft[] = { { { "t1", 2 }, 2, fp } };
	struct kfetch_resp fr = { 7, 0, 1, ft };
	struct kfetch_resp fe = { 0, KERR_FETCH_SESSION_ID_NOT_FOUND, 0, NULL };
	struct klist_offsets_part_resp lp[] = {
		{ 0, KERR_NONE, -1, 1234 },
		{ 9, KERR_UNKNOWN_TOPIC_OR_PARTITION, -1, -1 } };
	struct klist_offsets_topic_resp lt[] = { { { "t1", 2 }, 2, lp } };
	struct klist_offsets_resp lr = { 0, 1, lt };
	struct kmetadata_broker mb[] = {
		{ 0, { "127.0.0.1", 9 }, 19092, { NULL, -1 } } };
	struct kmetadata_part mp[] = {
		{ KERR_NONE, 0, 0, 1, replicas, 1, isr },
		{ KERR_NONE, 1, 0, 1, replicas, 1, isr } };
	struct kmetadata_topic mt[] = {
		{ KERR_NONE, { "t1", 2 }, 0, 2, mp },
		{ KERR_UNKNOWN_TOPIC_OR_PARTITION, { "nope", 4 }, 0, 0, NULL } };
	struct kmetadata_resp mr = { 0, 1, mb, { "flume", 5 }, 0, 2, mt };
	static const struct kapi_version av[] = {
		{ KAPI_PRODUCE, 3, 3, "Produce" },
		{ KAPI_API_VERSIONS, 0, 2, "ApiVersions" } };
	struct kapi_versions_resp ar = { KERR_NONE, 2, av, 0 };
	struct kinit_pid_resp ir = { 0, KERR_NONE, 4000000001LL, 3 };
	int v;

	wbuf_init(&wb);
	kproduce_encode_resp(&wb, 3, &pr);
	PY_EXPECT("Produce", 3, &wb,
	    "{\"topics\":[{\"topic\":\"t1\",\"partitions\":["
	    "{\"partition\":0,\"error_code\":0,\"offset\":42,\"timestamp\":-1},"
	    "{\"partition\":5,\"error_code\":2,\"offset\":-1,\"timestamp\":-1}"
	    "]},{\"topic\":\"x\",\"partitions\":[]}],\"throttle_time_ms\":0}");

	/* The checker can fail: a body one byte short ... */
	wb.len--;
	CU_ASSERT_EQUAL(py_decode("Produce", 3, &wb, out, sizeof(out)), 1);
	/* ... and one byte long. */
	wb.len += 2;
	CU_ASSERT_EQUAL(py_decode("Produce", 3, &wb, out, sizeof(out)), 1);

	/* v0: no timestamp, no throttle; v2: timestamp; v5+: log start. */
	wbuf_reset(&wb);
	kproduce_encode_resp(&wb, 0, &pr);
	PY_EXPECT("Produce", 0, &wb,
	    "{\"topics\":[{\"topic\":\"t1\",\"partitions\":["
	    "{\"partition\":0,\"error_code\":0,\"offset\":42},"
	    "{\"partition\":5,\"error_code\":2,\"offset\":-1}"
	    "]},{\"topic\":\"x\",\"partitions\":[]}]}");
	wbuf_reset(&wb);
	kproduce_encode_resp(&wb, 1, &pr);
	PY_EXPECT("Produce", 1, &wb,
	    "{\"topics\":[{\"topic\":\"t1\",\"partitions\":["
	    "{\"partition\":0,\"error_code\":0,\"offset\":42},"
	    "{\"partition\":5,\"error_code\":2,\"offset\":-1}"
	    "]},{\"topic\":\"x\",\"partitions\":[]}],"
	    "\"throttle_time_ms\":0}");
	for (v = 2; v <= 7; v++) {
		char want[1024];

		snprintf(want, sizeof(want),
		    "{\"topics\":[{\"topic\":\"t1\",\"partitions\":["
		    "{\"partition\":0,\"error_code\":0,\"offset\":42,"
		    "\"timestamp\":-1%s},"
		    "{\"partition\":5,\"error_code\":2,\"offset\":-1,"
		    "\"timestamp\":-1%s}"
		    "]},{\"topic\":\"x\",\"partitions\":[]}],"
		    "\"throttle_time_ms\":0}",
		    v >= 5 ? ",\"log_start_offset\":7" : "",
		    v >= 5 ? ",\"log_start_offset\":-1" : "");
		wbuf_reset(&wb);
		kproduce_encode_resp(&wb, (int16_t)v, &pr);
		PY_EXPECT("Produce", v, &wb, want);
	}
	for (v = 5; v <= 10; v++) {
		char want[1024];

		snprintf(want, sizeof(want), "{\"throttle_time_ms\":7,%s"
		    "\"topics\":[{\"topics\":\"t1\","
		    "\"partitions\":[{\"partition\":0,\"error_code\":0,"
		    "\"highwater_offset\":10,\"last_stable_offset\":10,"
		    "\"log_start_offset\":2,"
		    "\"aborted_transactions\":[],\"message_set\":\"010203\"},"
		    "{\"partition\":1,\"error_code\":1,\"highwater_offset\":4,"
		    "\"last_stable_offset\":4,\"log_start_offset\":0,"
		    "\"aborted_transactions\":[],\"message_set\":null}]}]}",
		    v >= 7 ? "\"error_code\":0,\"session_id\":0," : "");
		wbuf_reset(&wb);
		kfetch_encode_resp(&wb, (int16_t)v, &fr);
		PY_EXPECT("Fetch", v, &wb, want);
	}
	/* A refused session: the top-level error, no topics. */
	wbuf_reset(&wb);
	kfetch_encode_resp(&wb, 10, &fe);
	PY_EXPECT("Fetch", 10, &wb, "{\"throttle_time_ms\":0,"
	    "\"error_code\":70,\"session_id\":0,\"topics\":[]}");
	lr.throttle_ms = 3;
	wbuf_reset(&wb);
	klist_offsets_encode_resp(&wb, 2, &lr);
	PY_EXPECT("ListOffsets", 2, &wb,
	    "{\"throttle_time_ms\":3,\"topics\":[{\"topic\":\"t1\","
	    "\"partitions\":["
	    "{\"partition\":0,\"error_code\":0,\"timestamp\":-1,\"offset\":1234},"
	    "{\"partition\":9,\"error_code\":3,\"timestamp\":-1,\"offset\":-1}"
	    "]}]}");
	lr.throttle_ms = 0;

	wbuf_reset(&wb);
	kfetch_encode_resp(&wb, 4, &fr);
	PY_EXPECT("Fetch", 4, &wb,
	    "{\"throttle_time_ms\":7,\"topics\":[{\"topics\":\"t1\","
	    "\"partitions\":[{\"partition\":0,\"error_code\":0,"
	    "\"highwater_offset\":10,\"last_stable_offset\":10,"
	    "\"aborted_transactions\":[],\"message_set\":\"010203\"},"
	    "{\"partition\":1,\"error_code\":1,\"highwater_offset\":4,"
	    "\"last_stable_offset\":4,\"aborted_transactions\":[],"
	    "\"message_set\":null}]}]}");

	wbuf_reset(&wb);
	klist_offsets_encode_resp(&wb, 1, &lr);
	PY_EXPECT("ListOffsets", 1, &wb,
	    "{\"topics\":[{\"topic\":\"t1\",\"partitions\":["
	    "{\"partition\":0,\"error_code\":0,\"timestamp\":-1,\"offset\":1234},"
	    "{\"partition\":9,\"error_code\":3,\"timestamp\":-1,\"offset\":-1}"
	    "]}]}");

	wbuf_reset(&wb);
	kmetadata_encode_resp(&wb, 0, &mr);
	PY_EXPECT("Metadata", 0, &wb,
	    "{\"brokers\":[{\"node_id\":0,\"host\":\"127.0.0.1\","
	    "\"port\":19092}],\"topics\":[{\"error_code\":0,\"topic\":\"t1\","
	    "\"partitions\":[{\"error_code\":0,\"partition\":0,\"leader\":0,"
	    "\"replicas\":[0],\"isr\":[0]},{\"error_code\":0,\"partition\":1,"
	    "\"leader\":0,\"replicas\":[0],\"isr\":[0]}]},{\"error_code\":3,"
	    "\"topic\":\"nope\",\"partitions\":[]}]}");
	wbuf_reset(&wb);
	kmetadata_encode_resp(&wb, 1, &mr);
	PY_EXPECT("Metadata", 1, &wb,
	    "{\"brokers\":[{\"node_id\":0,\"host\":\"127.0.0.1\","
	    "\"port\":19092,\"rack\":null}],\"controller_id\":0,"
	    "\"topics\":[{\"error_code\":0,\"topic\":\"t1\",\"is_internal\":false,"
	    "\"partitions\":[{\"error_code\":0,\"partition\":0,\"leader\":0,"
	    "\"replicas\":[0],\"isr\":[0]},{\"error_code\":0,\"partition\":1,"
	    "\"leader\":0,\"replicas\":[0],\"isr\":[0]}]},{\"error_code\":3,"
	    "\"topic\":\"nope\",\"is_internal\":false,\"partitions\":[]}]}");
	mr.throttle_ms = 5;
	for (v = 2; v <= 4; v++) {
		char want[2048];

		snprintf(want, sizeof(want), "{%s\"brokers\":[{\"node_id\":0,"
		    "\"host\":\"127.0.0.1\",\"port\":19092,\"rack\":null}],"
		    "\"cluster_id\":\"flume\",\"controller_id\":0,"
		    "\"topics\":[{\"error_code\":0,\"topic\":\"t1\","
		    "\"is_internal\":false,\"partitions\":[{\"error_code\":0,"
		    "\"partition\":0,\"leader\":0,\"replicas\":[0],"
		    "\"isr\":[0]},{\"error_code\":0,\"partition\":1,"
		    "\"leader\":0,\"replicas\":[0],\"isr\":[0]}]},"
		    "{\"error_code\":3,\"topic\":\"nope\",\"is_internal\":false,"
		    "\"partitions\":[]}]}",
		    v >= 3 ? "\"throttle_time_ms\":5," : "");
		wbuf_reset(&wb);
		kmetadata_encode_resp(&wb, (int16_t)v, &mr);
		PY_EXPECT("Metadata", v, &wb, want);
	}

	wbuf_reset(&wb);
	kapi_versions_encode_resp(&wb, 0, &ar);
	PY_EXPECT("ApiVersions", 0, &wb,
	    "{\"error_code\":0,\"api_versions\":[{\"api_key\":0,"
	    "\"min_version\":3,\"max_version\":3},{\"api_key\":18,"
	    "\"min_version\":0,\"max_version\":2}]}");
	ar.error = KERR_UNSUPPORTED_VERSION;
	ar.throttle_ms = 1;
	for (v = 1; v <= 2; v++) {
		wbuf_reset(&wb);
		kapi_versions_encode_resp(&wb, (int16_t)v, &ar);
		PY_EXPECT("ApiVersions", v, &wb,
		    "{\"error_code\":35,\"api_versions\":[{\"api_key\":0,"
		    "\"min_version\":3,\"max_version\":3},{\"api_key\":18,"
		    "\"min_version\":0,\"max_version\":2}],"
		    "\"throttle_time_ms\":1}");
	}

	for (v = 0; v <= 1; v++) {
		wbuf_reset(&wb);
		kinit_pid_encode_resp(&wb, (int16_t)v, &ir);
		PY_EXPECT("InitProducerId", v, &wb,
		    "{\"throttle_time_ms\":0,\"error_code\":0,"
		    "\"producer_id\":4000000001,\"producer_epoch\":3}");
	}
	wbuf_free(&wb);
}

static void
test_kafka_python_reads_group_responses(void)
{
	struct wbuf wb;
	struct kfind_coord_resp fc = { KERR_NONE, 0, { "localhost", 9 }, 9092 };
	struct kgroup_blob members[] = {
		{ { "m-1", 3 }, { "\x00\x01", 2 } }, { { "m-2", 3 }, { "", 0 } } };
	struct kjoin_resp jr = { 3, KERR_NONE, 7, { "range", 5 }, { "m-1", 3 },
	    { "m-2", 3 }, 2, members };
	struct ksync_resp sr = { 2, KERR_REBALANCE_IN_PROGRESS, { "ab", 2 } };
	struct kgroup_error_resp er = { 4, KERR_ILLEGAL_GENERATION };
	struct kpart_error pe[] = { { 0, KERR_NONE }, { 3, 25 } };
	struct kcommit_topic_resp ct[] = { { { "t1", 2 }, 2, pe } };
	struct kcommit_resp cr = { 1, ct };
	struct koffset_fetch_part_resp op[] = {
		{ 0, 42, { "meta", 4 }, KERR_NONE }, { 1, -1, { "", 0 }, 0 } };
	struct koffset_fetch_topic_resp ot[] = { { { "t1", 2 }, 2, op } };
	struct koffset_fetch_resp orr = { 1, ot };
	struct klist_groups_entry lg[] = { { { "g1", 2 }, { "consumer", 8 } } };
	struct klist_groups_resp lr = { 6, KERR_NONE, 1, lg };
	struct kdescribe_member dm[] = { { { "m-1", 3 }, { "rdkafka", 7 },
	    { "/127.0.0.1", 10 }, { "\x01", 1 }, { "\x02\x03", 2 } } };
	struct kdescribe_group dg[] = {
		{ KERR_NONE, { "g1", 2 }, { "Stable", 6 }, { "consumer", 8 },
		    { "range", 5 }, 1, dm },
		{ KERR_NONE, { "g9", 2 }, { "Dead", 4 }, { "", 0 }, { "", 0 },
		    0, NULL } };
	struct kdescribe_groups_resp dr = { 8, 2, dg };
	struct ktopic_error te[] = {
		{ { "new1", 4 }, KERR_NONE, { NULL, -1 } },
		{ { "new2", 4 }, KERR_TOPIC_ALREADY_EXISTS,
		    { "exists", 6 } } };
	struct ktopic_errors_resp tr = { 9, 2, te };
	const char *members_json = "\"members\":[{\"member_id\":\"m-1\","
	    "\"member_metadata\":\"0001\"},{\"member_id\":\"m-2\","
	    "\"member_metadata\":\"\"}]";
	char want[1024];
	int v;

	wbuf_init(&wb);
	kfind_coord_encode_resp(&wb, 0, &fc);
	PY_EXPECT("FindCoordinator", 0, &wb, "{\"error_code\":0,"
	    "\"coordinator_id\":0,\"host\":\"localhost\",\"port\":9092}");

	for (v = 0; v <= 2; v++) {
		snprintf(want, sizeof(want), "{%s\"error_code\":0,"
		    "\"generation_id\":7,\"group_protocol\":\"range\","
		    "\"leader_id\":\"m-1\",\"member_id\":\"m-2\",%s}",
		    v >= 2 ? "\"throttle_time_ms\":3," : "", members_json);
		wbuf_reset(&wb);
		kjoin_encode_resp(&wb, (int16_t)v, &jr);
		PY_EXPECT("JoinGroup", v, &wb, want);
	}
	for (v = 0; v <= 1; v++) {
		snprintf(want, sizeof(want), "{%s\"error_code\":27,"
		    "\"member_assignment\":\"6162\"}",
		    v >= 1 ? "\"throttle_time_ms\":2," : "");
		wbuf_reset(&wb);
		ksync_encode_resp(&wb, (int16_t)v, &sr);
		PY_EXPECT("SyncGroup", v, &wb, want);

		snprintf(want, sizeof(want), "{%s\"error_code\":22}",
		    v >= 1 ? "\"throttle_time_ms\":4," : "");
		wbuf_reset(&wb);
		kgroup_error_encode_resp(&wb, (int16_t)v, &er);
		PY_EXPECT("Heartbeat", v, &wb, want);
		PY_EXPECT("LeaveGroup", v, &wb, want);

		wbuf_reset(&wb);
		koffset_fetch_encode_resp(&wb, (int16_t)v, &orr);
		PY_EXPECT("OffsetFetch", v, &wb, "{\"topics\":[{\"topic\":"
		    "\"t1\",\"partitions\":[{\"partition\":0,\"offset\":42,"
		    "\"metadata\":\"meta\",\"error_code\":0},{\"partition\":1,"
		    "\"offset\":-1,\"metadata\":\"\",\"error_code\":0}]}]}");

		snprintf(want, sizeof(want), "{%s\"error_code\":0,"
		    "\"groups\":[{\"group\":\"g1\",\"protocol_type\":"
		    "\"consumer\"}]}", v >= 1 ? "\"throttle_time_ms\":6," : "");
		wbuf_reset(&wb);
		klist_groups_encode_resp(&wb, (int16_t)v, &lr);
		PY_EXPECT("ListGroups", v, &wb, want);

		snprintf(want, sizeof(want), "{%s\"groups\":[{\"error_code\":0,"
		    "\"group\":\"g1\",\"state\":\"Stable\",\"protocol_type\":"
		    "\"consumer\",\"protocol\":\"range\",\"members\":[{"
		    "\"member_id\":\"m-1\",\"client_id\":\"rdkafka\","
		    "\"client_host\":\"/127.0.0.1\",\"member_metadata\":\"01\","
		    "\"member_assignment\":\"0203\"}]},{\"error_code\":0,"
		    "\"group\":\"g9\",\"state\":\"Dead\",\"protocol_type\":\"\","
		    "\"protocol\":\"\",\"members\":[]}]}",
		    v >= 1 ? "\"throttle_time_ms\":8," : "");
		wbuf_reset(&wb);
		kdescribe_groups_encode_resp(&wb, (int16_t)v, &dr);
		PY_EXPECT("DescribeGroups", v, &wb, want);

		snprintf(want, sizeof(want), "{%s\"topic_error_codes\":["
		    "{\"topic\":\"new1\",\"error_code\":0},{\"topic\":\"new2\","
		    "\"error_code\":36}]}",
		    v >= 1 ? "\"throttle_time_ms\":9," : "");
		wbuf_reset(&wb);
		kdelete_topics_encode_resp(&wb, (int16_t)v, &tr);
		PY_EXPECT("DeleteTopics", v, &wb, want);
	}
	for (v = 0; v <= 2; v++) {
		wbuf_reset(&wb);
		kcommit_encode_resp(&wb, (int16_t)v, &cr);
		PY_EXPECT("OffsetCommit", v, &wb, "{\"topics\":[{\"topic\":"
		    "\"t1\",\"partitions\":[{\"partition\":0,\"error_code\":0},"
		    "{\"partition\":3,\"error_code\":25}]}]}");

		if (v == 0)
			snprintf(want, sizeof(want), "{\"topic_errors\":["
			    "{\"topic\":\"new1\",\"error_code\":0},"
			    "{\"topic\":\"new2\",\"error_code\":36}]}");
		else
			snprintf(want, sizeof(want), "{%s\"topic_errors\":["
			    "{\"topic\":\"new1\",\"error_code\":0,"
			    "\"error_message\":null},{\"topic\":\"new2\","
			    "\"error_code\":36,\"error_message\":\"exists\"}]}",
			    v >= 2 ? "\"throttle_time_ms\":9," : "");
		wbuf_reset(&wb);
		kcreate_topics_encode_resp(&wb, (int16_t)v, &tr);
		PY_EXPECT("CreateTopics", v, &wb, want);
	}
	wbuf_free(&wb);
}

/* A whole response frame: size, correlation id, body. */
static void
test_response_frame(void)
{
	struct wbuf wb;
	size_t pos;

	wbuf_init(&wb);
	wbuf_i8(&wb, 0x55);		/* something already queued */
	pos = kheader_resp_begin(&wb, 0x01020304);
	wbuf_i16(&wb, KERR_NONE);
	wbuf_i32(&wb, 0);
	kheader_resp_end(&wb, pos);
	CU_ASSERT_EQUAL_FATAL(wb.err, 0);
	CU_ASSERT_EQUAL_FATAL(wb.len, 1 + 4 + 4 + 6);
	CU_ASSERT_EQUAL(be32_get(wb.buf + 1), 10);
	CU_ASSERT_EQUAL(be32_get(wb.buf + 5), 0x01020304);
	wbuf_free(&wb);
}

TEST_SUITE("kafka_codec", setup, NULL,
    { "every fixture and its truncations",
	test_every_fixture_and_its_truncations },
    { "Produce v3", test_produce_v3 },
    { "Fetch v4, ListOffsets v1", test_fetch_v4_list_offsets_v1 },
    { "Produce v0-7, Fetch v5-10, ListOffsets v2",
	test_later_data_versions },
    { "Metadata, ApiVersions, InitProducerId",
	test_metadata_api_versions_init_pid },
    { "group requests", test_group_requests },
    { "offset requests", test_offset_requests },
    { "admin requests", test_admin_requests },
    { "kcat's first requests", test_kcat_first_requests },
    { "librdkafka's data requests", test_librdkafka_data_requests },
    { "librdkafka's Produce v7, Fetch v10, ListOffsets v2",
	test_librdkafka_later_requests },
    { "hostile counts and lengths", test_hostile_counts_and_lengths },
    { "version table", test_version_table },
    { "kafka-python reads data responses",
	test_kafka_python_reads_data_responses },
    { "kafka-python reads group and admin responses",
	test_kafka_python_reads_group_responses },
    { "response frame", test_response_frame });
