/*
 * libFuzzer target: every payload decoder of the native protocol.  The
 * first input byte picks a decoder (modulo their number), the rest is
 * the payload.  A decoder must return -1 or a message whose every pointer
 * lies inside the payload (ASan checks that when the message is encoded
 * again, which reads every string and byte array); for a request, the
 * encoding must also give back exactly the payload, since the broker
 * answers per entry from what it decoded.
 *
 * Adding a decoder is one line in FUZZ_DECODERS: X(name, A or N, req)
 * with A when the decoder takes an arena, req 1 for a request.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_auth.h"
#include "proto/msg_tconf.h"
#include "proto/wire.h"

#define FUZZ_DECODERS(X)			\
	X(handshake_req, N, 1)			\
	X(handshake_resp, N, 0)			\
	X(metadata_req, A, 1)			\
	X(metadata_resp, A, 0)			\
	X(create_topic_req, N, 1)		\
	X(create_topic_resp, N, 0)		\
	X(produce_req, A, 1)			\
	X(produce_resp, A, 0)			\
	X(fetch_req, A, 1)			\
	X(fetch_resp, A, 0)			\
	X(list_offsets_req, A, 1)		\
	X(list_offsets_resp, A, 0)		\
	X(workers_resp, A, 0)			\
	X(connections_resp, A, 0)		\
	X(join_group_req, A, 1)			\
	X(join_group_resp, A, 0)		\
	X(heartbeat_req, N, 1)			\
	X(leave_group_req, N, 1)		\
	X(group_error_resp, N, 0)		\
	X(offset_commit_req, A, 1)		\
	X(offset_commit_resp, A, 0)		\
	X(offset_fetch_req, A, 1)		\
	X(offset_fetch_resp, A, 0)		\
	X(list_groups_resp, A, 0)		\
	X(describe_group_req, N, 1)		\
	X(describe_group_resp, A, 0)		\
	X(init_producer_req, N, 1)		\
	X(init_producer_resp, N, 0)		\
	X(stats_resp, A, 0)			\
	X(auth_begin_req, N, 1)			\
	X(auth_begin_resp, N, 0)		\
	X(auth_prove_req, N, 1)			\
	X(auth_prove_resp, N, 0)		\
	X(group_reset_req, N, 1)		\
	X(group_reset_resp, A, 0)		\
	X(config_describe_req, N, 1)		\
	X(config_describe_resp, A, 0)		\
	X(config_alter_req, A, 1)		\
	X(config_alter_resp, N, 0)		\
	X(delete_records_req, N, 1)		\
	X(delete_records_resp, N, 0)		\
	X(offset_delete_req, A, 1)		\
	X(offset_delete_resp, A, 0)		\
	X(cleaner_resp, A, 0)

#define DECODE_A(name, p, n, a, m)	msg_decode_##name(p, n, a, m)
#define DECODE_N(name, p, n, a, m)	msg_decode_##name(p, n, m)

/* Decode, and on success encode the message into wb; 0 or -1. */
#define X_FN(name, kind, req)						\
static int								\
fz_##name(const uint8_t *p, size_t n, struct arena *a, struct wbuf *wb)	\
{									\
	struct name m;							\
									\
	(void)a;							\
	if (DECODE_##kind(name, p, n, a, &m) == -1)			\
		return -1;						\
	msg_encode_##name(wb, &m);					\
	return 0;							\
}
FUZZ_DECODERS(X_FN)

/* Version 2's DESCRIBE_GROUP answer: the same struct, another layout. */
static int
fz_describe_group_resp_v2(const uint8_t *p, size_t n, struct arena *a,
    struct wbuf *wb)
{
	struct describe_group_resp m;

	if (msg_decode_describe_group_resp_v2(p, n, a, &m) == -1)
		return -1;
	msg_encode_describe_group_resp_v2(wb, &m);
	return 0;
}

struct fz_decoder {
	const char	*name;
	int		(*fn)(const uint8_t *, size_t, struct arena *, struct wbuf *);
	int		 request;
};

#define X_ROW(name, kind, req)	{ #name, fz_##name, req },
static const struct fz_decoder decoders[] = { FUZZ_DECODERS(X_ROW)
	{ "describe_group_resp_v2", fz_describe_group_resp_v2, 0 } };
#define NDECODERS	(sizeof(decoders) / sizeof(decoders[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fz_decoder *d;
	struct arena a;
	struct wbuf wb;
	uint8_t *copy;
	size_t n;

	if (size < 1)
		return 0;
	d = &decoders[data[0] % NDECODERS];
	n = size - 1;
	/* An exact-size heap copy, so ASan sees any read past the payload. */
	if ((copy = malloc(n ? n : 1)) == NULL)
		return 0;
	memcpy(copy, data + 1, n);
	arena_init(&a, 1u << 20);
	wbuf_init(&wb);
	if (d->fn(copy, n, &a, &wb) == 0 && d->request && wb.err == 0) {
		if (wb.len != n || memcmp(wb.buf, copy, n) != 0)
			abort();	/* decoded message does not encode back */
	}
	wbuf_free(&wb);
	arena_free(&a);
	free(copy);
	return 0;
}
