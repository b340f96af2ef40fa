/*
 * How long the names a client gives may be, whatever protocol carries
 * them: the broker's limits, not a wire format's.
 */
#ifndef FLUME_PROTO_NAMES_H
#define FLUME_PROTO_NAMES_H

#define TOPIC_NAME_MAX		249
#define GROUP_NAME_MAX		249
#define MEMBER_ID_MAX		64
#define CLIENT_ID_MAX		128
/*
 * A topic's id (Kafka's KIP-516): 16 random bytes made when the topic is
 * created and kept in its topic.meta, so a topic deleted and created
 * again under the same name is told apart.  Never all zero.
 */
#define TOPIC_ID_LEN		16

#endif
