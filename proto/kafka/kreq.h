/*
 * Any Kafka request body Flume speaks, decoded by (api key, version): the
 * one entry point the listener and the fuzzer use.
 */
#ifndef FLUME_PROTO_KAFKA_KREQ_H
#define FLUME_PROTO_KAFKA_KREQ_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kadmin.h"
#include "proto/kafka/kfetch.h"
#include "proto/kafka/kgroup.h"
#include "proto/kafka/kmeta.h"
#include "proto/kafka/koffset.h"
#include "proto/kafka/kproduce.h"
#include "proto/wire.h"

union kreq {
	struct kproduce_req		produce;
	struct kfetch_req		fetch;
	struct klist_offsets_req	list_offsets;
	struct kmetadata_req		metadata;
	struct kinit_pid_req		init_pid;
	struct kfind_coord_req		find_coord;
	struct kjoin_req		join;
	struct ksync_req		sync;
	struct kheartbeat_req		heartbeat;
	struct kleave_req		leave;
	struct kcommit_req		commit;
	struct koffset_fetch_req	offset_fetch;
	struct kcreate_topics_req	create_topics;
	struct kdelete_topics_req	delete_topics;
	struct kdescribe_groups_req	describe_groups;
	/* ApiVersions and ListGroups have empty bodies. */
};

/*
 * Decode the body of a (key, version) request into r; arrays come from a.
 * 0, or -1 when the (key, version) is not supported or the body does not
 * parse exactly.
 */
int	kreq_decode(union kreq *r, int16_t key, int16_t version,
	    const uint8_t *p, size_t len, struct arena *a);

#endif
