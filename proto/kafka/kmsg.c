/*
 * The registry of described messages and the request and response
 * headers (Kafka's RequestHeader.json and ResponseHeader.json): what
 * ApiVersions, the man page and the dispatcher will read their version
 * ranges from.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_acl.h"
#include "proto/kafka/kmsg_admin.h"
#include "proto/kafka/kmsg_cgroup.h"
#include "proto/kafka/kmsg_config.h"
#include "proto/kafka/kmsg_describe.h"
#include "proto/kafka/kmsg_fetch.h"
#include "proto/kafka/kmsg_group.h"
#include "proto/kafka/kmsg_join.h"
#include "proto/kafka/kmsg_listoff.h"
#include "proto/kafka/kmsg_meta.h"
#include "proto/kafka/kmsg_offset.h"
#include "proto/kafka/kmsg_partitions.h"
#include "proto/kafka/kmsg_produce.h"
#include "proto/kafka/kmsg_records.h"
#include "proto/kafka/kmsg_sasl.h"
#include "proto/kafka/kmsg_txn.h"
#include "proto/wire.h"

const struct kmsg *const kmsg_all[] = {
	&kmsg_produce,
	&kmsg_fetch,
	&kmsg_list_offsets,
	&kmsg_metadata,
	&kmsg_offset_commit,
	&kmsg_offset_fetch,
	&kmsg_find_coordinator,
	&kmsg_join_group,
	&kmsg_heartbeat,
	&kmsg_leave_group,
	&kmsg_sync_group,
	&kmsg_describe_groups,
	&kmsg_list_groups,
	&kmsg_sasl_handshake,
	&kmsg_api_versions,
	&kmsg_create_topics,
	&kmsg_delete_topics,
	&kmsg_delete_records,
	&kmsg_init_producer_id,
	&kmsg_offset_for_leader_epoch,
	&kmsg_add_partitions_to_txn,
	&kmsg_add_offsets_to_txn,
	&kmsg_end_txn,
	&kmsg_txn_offset_commit,
	&kmsg_describe_acls,
	&kmsg_create_acls,
	&kmsg_delete_acls,
	&kmsg_describe_configs,
	&kmsg_alter_configs,
	&kmsg_describe_log_dirs,
	&kmsg_sasl_authenticate,
	&kmsg_create_partitions,
	&kmsg_delete_groups,
	&kmsg_incremental_alter_configs,
	&kmsg_list_partition_reassignments,
	&kmsg_offset_delete,
	&kmsg_describe_scram,
	&kmsg_alter_scram,
	&kmsg_describe_cluster,
	&kmsg_describe_producers,
	&kmsg_describe_transactions,
	&kmsg_list_transactions,
	&kmsg_consumer_group_heartbeat,
	&kmsg_consumer_group_describe,
	&kmsg_describe_topic_partitions,
};
const size_t kmsg_count = sizeof(kmsg_all) / sizeof(kmsg_all[0]);

/* RequestHeader: v1 and v2 (v0 is ControlledShutdown v0's alone). */
static const struct kfield req_hdr_fields[] = {
	KF(KT_INT16, struct kreq_hdr, api_key, 0, KV_MAX),
	KF(KT_INT16, struct kreq_hdr, api_version, 0, KV_MAX),
	KF(KT_INT32, struct kreq_hdr, correlation_id, 0, KV_MAX),
	/* "flexibleVersions": "none": an i16 string even in v2. */
	KF(KT_STRING, struct kreq_hdr, client_id, 1, KV_MAX,
	    .kf_flags = KF_NULL | KF_NOFLEX, .kf_nullmin = 1, .kf_def = -1),
};
const struct kdesc kdesc_req_hdr =
    KDESC("RequestHeader", struct kreq_hdr, req_hdr_fields);

/* ResponseHeader: v0 and v1. */
static const struct kfield resp_hdr_fields[] = {
	KF(KT_INT32, struct kresp_hdr, correlation_id, 0, KV_MAX),
};
const struct kdesc kdesc_resp_hdr =
    KDESC("ResponseHeader", struct kresp_hdr, resp_hdr_fields);

const struct kmsg *
kmsg_lookup(int16_t key)
{
	size_t i;

	for (i = 0; i < kmsg_count; i++)
		if (kmsg_all[i]->km_key == key)
			return kmsg_all[i];
	return NULL;
}

int
kmsg_versions(int16_t key, int16_t *vmin, int16_t *vmax, int16_t *flexmin)
{
	const struct kmsg *m;

	if ((m = kmsg_lookup(key)) == NULL)
		return -1;
	*vmin = m->km_vmin;
	*vmax = m->km_vmax;
	*flexmin = m->km_flexmin;
	return 0;
}

int
kmsg_flexible(const struct kmsg *m, int16_t version)
{
	return m->km_flexmin >= 0 && version >= m->km_flexmin;
}

static int
in_range(const struct kmsg *m, int16_t version)
{
	return version >= m->km_vmin && version <= m->km_vmax;
}

int
kmsg_decode_req(const struct kmsg *m, int16_t version, void *out,
    const uint8_t *p, size_t len, struct arena *a)
{
	if (!in_range(m, version))
		return -1;
	return kdesc_decode(m->km_req, version, kmsg_flexible(m, version), out,
	    p, len, a);
}

int
kmsg_decode_resp(const struct kmsg *m, int16_t version, void *out,
    const uint8_t *p, size_t len, struct arena *a)
{
	if (!in_range(m, version))
		return -1;
	return kdesc_decode(m->km_resp, version, kmsg_flexible(m, version),
	    out, p, len, a);
}

int
kmsg_encode_req(const struct kmsg *m, int16_t version, const void *in,
    struct wbuf *wb)
{
	if (!in_range(m, version))
		return -1;
	return kdesc_encode(m->km_req, version, kmsg_flexible(m, version), in,
	    wb);
}

int
kmsg_encode_resp(const struct kmsg *m, int16_t version, const void *in,
    struct wbuf *wb)
{
	if (!in_range(m, version))
		return -1;
	return kdesc_encode(m->km_resp, version, kmsg_flexible(m, version),
	    in, wb);
}

int
kmsg_encode_resp_hook(const struct kmsg *m, int16_t version, const void *in,
    const struct kdesc_hook *h, struct wbuf *wb)
{
	if (!in_range(m, version))
		return -1;
	return kdesc_encode_hook(m->km_resp, version,
	    kmsg_flexible(m, version), in, h, wb);
}

int
kmsg_req_hdr_version(int16_t key, int16_t version)
{
	const struct kmsg *m = kmsg_lookup(key);

	return m != NULL && kmsg_flexible(m, version) ? 2 : 1;
}

int
kmsg_resp_hdr_version(int16_t key, int16_t version)
{
	const struct kmsg *m = kmsg_lookup(key);

	/* A client reads this one before it knows what the broker speaks. */
	if (key == KAPI_API_VERSIONS)
		return 0;
	return m != NULL && kmsg_flexible(m, version) ? 1 : 0;
}

int
kmsg_decode_req_hdr(struct kreq_hdr *h, const uint8_t *p, size_t len,
    size_t *hlen)
{
	struct rbuf rb;
	int16_t key, version;
	int hv;

	rbuf_init(&rb, p, len);
	key = rbuf_i16(&rb);
	version = rbuf_i16(&rb);
	if (rb.err)
		return -1;
	hv = kmsg_req_hdr_version(key, version);
	rbuf_init(&rb, p, len);
	/* No arrays in a header: no arena. */
	if (kdesc_read(&kdesc_req_hdr, (int16_t)hv, hv >= 2, h, &rb,
	    NULL) == -1)
		return -1;
	*hlen = (size_t)(rb.p - p);
	return 0;
}

int
kmsg_encode_req_hdr(const struct kreq_hdr *h, struct wbuf *wb)
{
	int hv = kmsg_req_hdr_version(h->api_key, h->api_version);

	return kdesc_encode(&kdesc_req_hdr, (int16_t)hv, hv >= 2, h, wb);
}

int
kmsg_encode_resp_hdr(int16_t key, int16_t version, int32_t correlation_id,
    struct wbuf *wb)
{
	struct kresp_hdr h = { correlation_id };
	int hv = kmsg_resp_hdr_version(key, version);

	return kdesc_encode(&kdesc_resp_hdr, (int16_t)hv, hv >= 1, &h, wb);
}
