/*
 * The Kafka listener's side of a worker: connections accepted on
 * kafka_listen speak Kafka's protocol for their whole life (conn.c calls
 * these instead of the native handlers).  Requests are dispatched by one
 * table (worker/dispatch.h) over the Kafka codec (proto/kafka/); the
 * data path calls the operations of worker/op/, so both protocols share
 * ring appends, acks, dedup, long-poll fetch and sendfile.  worker/kafka/kafka.c has the framing, the table and the small APIs,
 * worker/kafka/data.c Produce, Fetch, ListOffsets and InitProducerId.
 */
#ifndef FLUME_WORKER_KAFKA_H
#define FLUME_WORKER_KAFKA_H

#include <stdint.h>

#include "proto/kafka/kheader.h"
#include "proto/msg.h"
#include "worker/op/fetch.h"
#include "worker/op/op.h"
#include "worker/op/produce.h"

struct worker;
struct conn;
struct req;
struct api_row;
struct face;

/* The Kafka listener's face (face.h): these, and kafka_sasl_free. */
extern const struct face kafka_face;
void	kafka_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_poll(struct worker *w, struct conn *c, struct req *r);
void	kafka_emit(struct worker *w, struct conn *c, struct req *r);
int	kafka_redecode(struct conn *c, struct req *r,
	    const uint8_t *old);
void	kafka_release(struct req *r);

/* ---- for kafka*.c ---- */

/*
 * r->dec of a Kafka request: its header, its body as the codec decoded
 * it, and the arguments of a data path operation (op: worker/kafka/data.c,
 * rebuilt by a redecode).
 */
struct kafka_req {
	struct kheader		 h;
	void			*body;		/* decoded by the row's description */
	union {
		struct op_produce	 produce;
		struct op_fetch		 fetch;
	} op;
	const struct api_row	*row;
	int16_t			 kerror;	/* a Kafka error for the whole request */
	int			 no_op;	/* answered without an operation */
	int16_t			*pre;		/* per Kafka part: an error found here */
	enum op_err		 operr;		/* the operation failed as a whole */
	void			*kst;		/* the API's own state */
	void			*aux;		/* ... made once by decode, kept
						   across redecodes (data.c) */
};

/* What Metadata and DescribeCluster answer for the cluster (kafka.c). */
#define KAFKA_CLUSTER_ID	"flume"
#define KAFKA_NODE_ID		0
/*
 * Kafka's authorized operations (KIP-430 bits) of c's user on the
 * cluster and of x's user on a topic, as Metadata answers them.
 */
int32_t	kafka_cluster_ops(const struct conn *c);
int32_t	kafka_topic_ops(const struct op_ctx *x, const char *topic, size_t len);

/* The Kafka error code for an operation's error (errors.c). */
int16_t	kafka_op_error(enum op_err e);
/*
 * Decode r's body with its row's description (struct kmsg) into k->body
 * (the arena; the same memory again after a detach); 0 or -1.
 */
int	kafka_decode_desc(struct conn *c, struct req *r);
/*
 * The same, bytes after the body ignored as Kafka ignores them:
 * librdkafka 2.0 ends its OffsetFetch v7 and ListGroups v4 with zero
 * bytes after the tagged fields.
 */
int	kafka_decode_desc_tail(struct conn *c, struct req *r);
/*
 * Answer r with resp, a response of its row's description at the
 * request's version, in one frame with the response header that
 * version takes; an answer the version cannot carry closes the
 * connection (logged).
 */
void	kafka_emit_desc(struct conn *c, struct req *r, const void *resp);
/* Begin / end a response frame in c's output. */
size_t	kafka_resp_begin(struct conn *c, struct req *r);
void	kafka_resp_end(struct conn *c, size_t pos);

int	kafka_produce_decode(struct conn *c, struct req *r);
void	kafka_produce_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_produce_poll(struct worker *w, struct conn *c, struct req *r);
void	kafka_produce_emit(struct worker *w, struct conn *c, struct req *r);
int	kafka_fetch_decode(struct conn *c, struct req *r);
void	kafka_fetch_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_fetch_poll(struct worker *w, struct conn *c, struct req *r);
void	kafka_fetch_release(struct req *r);
void	kafka_fetch_emit(struct worker *w, struct conn *c, struct req *r);
void	kafka_list_offsets_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_list_offsets_emit(struct worker *w, struct conn *c, struct req *r);
/* worker/kafka/sasl.c: SaslHandshake, SaslAuthenticate and the bare messages of v0. */
void	kafka_sasl_handshake_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_sasl_handshake_emit(struct worker *w, struct conn *c, struct req *r);
void	kafka_sasl_auth_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_sasl_auth_emit(struct worker *w, struct conn *c, struct req *r);
/* The row of the next frame when it is a bare SASL message, else NULL. */
const struct api_row *kafka_sasl_raw_row(const struct conn *c);
/* conn.c, closing: the exchange's state. */
void	kafka_sasl_free(struct conn *c);
void	kafka_init_pid_exec(struct worker *w, struct conn *c, struct req *r);
void	kafka_init_pid_emit(struct worker *w, struct conn *c, struct req *r);

#endif
