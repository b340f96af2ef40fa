/*
 * Dispatch a request body to its decoder by API key.  The version checks
 * are the table's (kapi.c), so a decoder never sees a version it was not
 * written for.
 */
#include <stdint.h>
#include <string.h>

#include "proto/kafka/kapi.h"
#include "proto/kafka/kreq.h"

int
kreq_decode(union kreq *r, int16_t key, int16_t version,
    const uint8_t *p, size_t len, struct arena *a)
{
	memset(r, 0, sizeof(*r));
	if (!kapi_supported(key, version))
		return -1;
	switch (key) {
	case KAPI_PRODUCE:
		return kproduce_decode_req(&r->produce, version, p, len, a);
	case KAPI_FETCH:
		return kfetch_decode_req(&r->fetch, version, p, len, a);
	case KAPI_LIST_OFFSETS:
		return klist_offsets_decode_req(&r->list_offsets, version, p,
		    len, a);
	case KAPI_METADATA:
		return kmetadata_decode_req(&r->metadata, version, p, len, a);
	case KAPI_API_VERSIONS:
		return kapi_versions_decode_req(version, p, len);
	case KAPI_INIT_PRODUCER_ID:
		return kinit_pid_decode_req(&r->init_pid, version, p, len, a);
	case KAPI_FIND_COORDINATOR:
		return kfind_coord_decode_req(&r->find_coord, version, p, len,
		    a);
	case KAPI_JOIN_GROUP:
		return kjoin_decode_req(&r->join, version, p, len, a);
	case KAPI_SYNC_GROUP:
		return ksync_decode_req(&r->sync, version, p, len, a);
	case KAPI_HEARTBEAT:
		return kheartbeat_decode_req(&r->heartbeat, version, p, len, a);
	case KAPI_LEAVE_GROUP:
		return kleave_decode_req(&r->leave, version, p, len, a);
	case KAPI_OFFSET_COMMIT:
		return kcommit_decode_req(&r->commit, version, p, len, a);
	case KAPI_OFFSET_FETCH:
		return koffset_fetch_decode_req(&r->offset_fetch, version, p,
		    len, a);
	case KAPI_CREATE_TOPICS:
		return kcreate_topics_decode_req(&r->create_topics, version, p,
		    len, a);
	case KAPI_DELETE_TOPICS:
		return kdelete_topics_decode_req(&r->delete_topics, version, p,
		    len, a);
	case KAPI_LIST_GROUPS:
		return klist_groups_decode_req(version, p, len);
	case KAPI_DESCRIBE_GROUPS:
		return kdescribe_groups_decode_req(&r->describe_groups,
		    version, p, len, a);
	}
	return -1;
}
