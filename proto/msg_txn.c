/*
 * TRANSACTIONS (29): the transaction coordinator's table for flume-admin
 * transactions (issue 29).  Layout in proto/msg.h and flume-protocol(7).
 */
#include <stdint.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/msg_codec.h"
#include "proto/wire.h"

static const struct msg_field txn_listing_rows[] = {
	MSG_STR(struct txn_listing, id, id_len),
	MSG_I64(struct txn_listing, producer_id),
	MSG_I16(struct txn_listing, epoch),
	MSG_I8(struct txn_listing, state),
	MSG_I32(struct txn_listing, timeout_ms),
	MSG_I64(struct txn_listing, start_ms),
	MSG_I64(struct txn_listing, update_ms),
	MSG_I32(struct txn_listing, partitions),
};
static const struct msg_layout txn_listing =
    MSG_ELEMENT(txn_listing_rows, MIN_TXN_LISTING);

static const struct msg_field transactions_resp_rows[] = {
	MSG_I16(struct transactions_resp, error),
	MSG_ARRAY(struct transactions_resp, count, txns, txn_listing),
};
static const struct msg_layout transactions_resp =
    MSG_RESPONSE(transactions_resp_rows);

MSG_ENCODER(msg_encode_transactions_resp, transactions_resp)
MSG_DECODER_ARENA(msg_decode_transactions_resp, transactions_resp)
