/*
 * The (key, version) table of DESIGN.md section 7.  Changing a range here
 * changes what ApiVersions advertises and what the codec accepts, so it
 * must move together with the decoders.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kapi.h"

const struct kapi_version kapi_versions[] = {
	{ KAPI_PRODUCE,		0, 7, "Produce" },	/* v0-2: kproduce.h */
	{ KAPI_FETCH,		4, 10, "Fetch" },
	{ KAPI_LIST_OFFSETS,	1, 2, "ListOffsets" },
	{ KAPI_METADATA,	0, 4, "Metadata" },
	{ KAPI_OFFSET_COMMIT,	0, 2, "OffsetCommit" },
	{ KAPI_OFFSET_FETCH,	0, 1, "OffsetFetch" },
	{ KAPI_FIND_COORDINATOR, 0, 0, "FindCoordinator" },
	{ KAPI_JOIN_GROUP,	0, 2, "JoinGroup" },
	{ KAPI_HEARTBEAT,	0, 1, "Heartbeat" },
	{ KAPI_LEAVE_GROUP,	0, 1, "LeaveGroup" },
	{ KAPI_SYNC_GROUP,	0, 1, "SyncGroup" },
	{ KAPI_DESCRIBE_GROUPS,	0, 1, "DescribeGroups" },
	{ KAPI_LIST_GROUPS,	0, 1, "ListGroups" },
	{ KAPI_API_VERSIONS,	0, 2, "ApiVersions" },
	{ KAPI_CREATE_TOPICS,	0, 2, "CreateTopics" },
	{ KAPI_DELETE_TOPICS,	0, 1, "DeleteTopics" },
	{ KAPI_INIT_PRODUCER_ID, 0, 1, "InitProducerId" },
};
const size_t kapi_nversions = sizeof(kapi_versions) / sizeof(kapi_versions[0]);

const struct kapi_version *
kapi_lookup(int16_t key)
{
	size_t i;

	for (i = 0; i < kapi_nversions; i++)
		if (kapi_versions[i].key == key)
			return &kapi_versions[i];
	return NULL;
}

int
kapi_supported(int16_t key, int16_t version)
{
	const struct kapi_version *v = kapi_lookup(key);

	return v != NULL && version >= v->min && version <= v->max;
}

const char *
kapi_name(int16_t key)
{
	const struct kapi_version *v = kapi_lookup(key);

	return v == NULL ? "Unknown" : v->name;
}
