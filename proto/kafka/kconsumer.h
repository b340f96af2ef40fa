/*
 * Kafka's consumer protocol: the bytes a consumer group of protocol type
 * "consumer" carries inside JoinGroup (a member's subscription) and
 * SyncGroup (the leader's assignment to each member).  The broker does not
 * need them to run a classic group; it reads them to check which topics a
 * member may subscribe to and to describe an assignment.
 *
 *   Subscription v0-3: [version i16][topics [str]][user_data bytes]...
 *   Assignment v0-3:   [version i16][topics [str [partition i32]]]
 *                      [user_data bytes]
 *
 * Later versions only append fields (owned partitions, generation, rack),
 * so reading the leading ones serves every version.  Every count and
 * length is checked against the bytes left before use.
 */
#ifndef FLUME_PROTO_KAFKA_KCONSUMER_H
#define FLUME_PROTO_KAFKA_KCONSUMER_H

#include <stddef.h>
#include <stdint.h>

/*
 * Call fn for each topic of subscription p[0..len) until it returns
 * non-zero.  0 when every topic was read (or fn stopped the walk), -1
 * when the bytes are not a subscription.
 */
int	kconsumer_subscription_topics(const uint8_t *p, size_t len,
	    int (*fn)(const char *topic, size_t tlen, void *arg), void *arg);
/*
 * Call fn for each (topic, partition) of assignment p[0..len) until it
 * returns non-zero.  0 when every partition was read (or fn stopped the
 * walk), -1 when the bytes are not an assignment.
 */
int	kconsumer_assignment_parts(const uint8_t *p, size_t len,
	    int (*fn)(const char *topic, size_t tlen, int32_t partition,
	    void *arg), void *arg);

/*
 * Subscription v1+ (KIP-429): call fn for each owned (topic, partition)
 * until it returns non-zero; *version gets the subscription's version.
 * 0 (v0 owns nothing said), -1 when the bytes are not a subscription.
 */
int	kconsumer_subscription_owned(const uint8_t *p, size_t len,
	    int16_t *version, int (*fn)(const char *topic, size_t tlen,
	    int32_t partition, void *arg), void *arg);

/* One partition of an assignment to encode. */
struct kconsumer_tp {
	const char	*topic;
	size_t		 tlen;
	int32_t		 partition;
};

/*
 * Encode an assignment of version (clamped to 0..3, Kafka's
 * ConsumerProtocol.serializeAssignment) of the n partitions tps (those of
 * one topic consecutive), no user data, into out (cap): its length, or 0
 * when it does not fit.
 */
size_t	kconsumer_assignment_encode(uint8_t *out, size_t cap, int16_t version,
	    const struct kconsumer_tp *tps, uint32_t n);

#endif
