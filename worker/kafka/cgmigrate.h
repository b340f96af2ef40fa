/*
 * The online migration between Kafka's classic and consumer protocols in
 * a worker (shm/cgroup.h): the consumer protocol's bytes a classic
 * member carries (proto/kafka/kconsumer.h) read into what shm/cgroup.c
 * keeps, and its assignment written back for its SyncGroup.
 */
#ifndef FLUME_WORKER_KAFKA_CGMIGRATE_H
#define FLUME_WORKER_KAFKA_CGMIGRATE_H

#include <stddef.h>
#include <stdint.h>

#include "shm/cgroup.h"
#include "worker/kafka/kafka.h"

struct worker;
struct conn;
struct shm_group;
struct group_params;

/*
 * A classic member's subscription sub (its topic names) and what it owns:
 * the partitions of assignment bytes a (alen) when a is not NULL, else
 * the subscription's owned partitions (v1+).  Arrays in c's arena, names
 * pointing into sub.  0, or -1 when the bytes are not the consumer
 * protocol's (or memory ran out).
 */
int	kafka_cg_decode(struct worker *w, struct conn *c, const uint8_t *sub,
	    size_t sublen, const uint8_t *a, size_t alen,
	    struct cg_classic_member *m);
/*
 * Under g's lock, a ConsumerGroupHeartbeat joining classic group g with
 * members: upgrade it (KERR_NONE) or not (GROUP_ID_NOT_FOUND, Kafka's
 * answer: the policy, another protocol type, too many members, bytes that
 * are not the consumer protocol's).
 */
int16_t	kafka_cg_upgrade(struct worker *w, struct conn *c, struct shm_group *g,
	    const struct group_params *gp);
/* Classic member i's assigned list as the consumer protocol's assignment. */
struct kstr kafka_cg_assignment(struct worker *w, struct conn *c,
	    struct shm_group *g, uint32_t i);

#endif
